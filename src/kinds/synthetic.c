/*
 * The synthetic circuit kind: PoRep-shaped circuits of 2^k constraints (r1cs/synth.h) with a
 * DEV key made at first load (NOT from a ceremony: development, tests and benchmarks only).
 * Jobs carry no data: partition p's witness is solved from (synth_seed, p), or, with seed 0,
 * is the witness made with the circuit, shared read-only (proving runs that should not
 * measure synthesis).
 */
#include <stdio.h>
#include <string.h>

#include "engine/kind.h"
#include "groth16/setup.h"
#include "r1cs/solve.h"
#include "r1cs/synth.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/rng.h"

typedef struct synthetic {
    unsigned k;
    uint64_t seed;      /* the circuit's: fixed per id, so its shape and key never change */
    czk_fr *template_w; /* while loaded: the witness made with the circuit (n_vars values) */
    size_t n_vars;
} synthetic;

typedef struct synthetic_job {
    uint64_t seed;
} synthetic_job;

static void s_estimate(const void *state, czk_kind_sizes *out) {
    const synthetic *s = state;
    czk_synth_shape sh;
    if (czk_synth_porep_shape(&sh, s->k, NULL) != CZK_OK)
        return;
    uint64_t n = 1ULL << s->k;
    out->key_bytes = (n + 3 * (uint64_t)sh.n_vars + 2 * (sh.n_public + 1)) * sizeof(czk_g1_affine) +
                     (uint64_t)sh.n_vars * sizeof(czk_g2_affine) + sh.matrix_bytes;
    out->n_vars = sh.n_vars;
    out->domain = (size_t)n;
}

static void s_unload(void *state) {
    synthetic *s = state;
    if (s->template_w != NULL) {
        czk_memclear_explicit(s->template_w, s->n_vars * sizeof(czk_fr));
        czk_free(s->template_w);
        s->template_w = NULL;
    }
}

/* The circuit, the witness made with it and its key: the same every time for one state (the
 * seeds are the state's), so that a key restored after a drop is the one loaded. On failure
 * pk, cs and *w are cleared. */
static int make(const synthetic *s, czk_groth16_pk *pk, czk_r1cs *cs, czk_fr **w, czk_pool *pool,
                czk_err *err) {
    *w = NULL;
    int rc = czk_synth_porep_shaped(cs, w, s->k, s->seed, pool, err);
    if (rc == CZK_OK) {
        czk_rng rng;
        czk_rng_seed(&rng, s->seed ^ 0x5eed);
        rc = czk_groth16_setup_dev(pk, cs, CZK_H_MONOMIAL, &rng, pool, err);
    }
    if (rc != CZK_OK) {
        if (*w != NULL) {
            czk_memclear_explicit(*w, cs->n_vars * sizeof(czk_fr));
            czk_free(*w);
            *w = NULL;
        }
        czk_groth16_pk_clear(pk);
        czk_r1cs_clear(cs);
    }
    return rc;
}

/* Nothing of the kind's own goes with the key's points: synthesis reads cs and the template. */
static uint64_t s_drop(void *state) {
    (void)state;
    return 0;
}

static int s_restore(void *state, czk_groth16_pk *pk, czk_pool *pool, czk_err *err) {
    czk_r1cs cs;
    czk_fr *w = NULL;
    memset(&cs, 0, sizeof cs);
    int rc = make(state, pk, &cs, &w, pool, err);
    if (w != NULL) {
        czk_memclear_explicit(w, cs.n_vars * sizeof(czk_fr));
        czk_free(w);
    }
    czk_r1cs_clear(&cs);
    return rc;
}

static int s_load(void *state, czk_groth16_pk *pk, czk_r1cs *cs, uint64_t *extra_bytes,
                  czk_pool *pool, czk_err *err) {
    synthetic *s = state;
    czk_fr *w = NULL;
    *extra_bytes = 0;
    /* The witness made with the circuit is kept: jobs with synth_seed 0 share it. */
    int rc = make(s, pk, cs, &w, pool, err);
    if (rc != CZK_OK)
        return rc;
    s->template_w = w;
    s->n_vars = cs->n_vars;
    *extra_bytes = cs->n_vars * sizeof(czk_fr);
    return CZK_OK;
}

static int s_job_create(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                        czk_err *err) {
    (void)state;
    *job = NULL;
    if (req->wtns != NULL)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s is synthetic and takes no witness files",
                           req->request_id, req->circuit_id);
    if (req->payload != NULL || req->payload_len != 0)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s is synthetic and takes no payload",
                           req->request_id, req->circuit_id);
    if (req->n_partitions == 0)
        return czk_err_set(err, CZK_EINVAL, "request %s: 0 partitions", req->request_id);
    synthetic_job *j = czk_calloc(1, sizeof *j);
    if (j == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", req->request_id);
    j->seed = req->synth_seed;
    *job = j;
    *n_parts = req->n_partitions;
    return CZK_OK;
}

static void s_job_destroy(void *state, void *job) {
    (void)state;
    czk_free(job);
}

static const czk_fr *s_shared_witness(void *state, void *job, size_t part) {
    (void)part;
    const synthetic *s = state;
    const synthetic_job *j = job;
    return j->seed == 0 ? s->template_w : NULL;
}

static int s_synthesize(void *state, void *job, size_t part, const czk_r1cs *cs, czk_fr *w,
                        czk_pool *pool, czk_err *err) {
    (void)state, (void)pool;
    const synthetic_job *j = job;
    return czk_r1cs_solve(w, cs, j->seed ^ ((uint64_t)(part + 1) * 0x9E3779B97F4A7C15ULL), err);
}

static void s_destroy(void *state) {
    s_unload(state);
    czk_free(state);
}

static const czk_circuit_kind synthetic_kind = {
    .name = "synthetic",
    .estimate = s_estimate,
    .load = s_load,
    .unload = s_unload,
    .drop = s_drop,
    .restore = s_restore,
    .job_create = s_job_create,
    .job_destroy = s_job_destroy,
    .shared_witness = s_shared_witness,
    .synthesize = s_synthesize,
    .destroy = s_destroy,
};

int czk_engine_register_synthetic(czk_engine *e, const char *circuit_id, unsigned k, czk_err *err) {
    if (!czk_id_valid(circuit_id))
        return czk_err_set(err, CZK_EINVAL,
                           "circuit id missing, longer than %d bytes or not printable ASCII",
                           CZK_ID_MAX);
    if (k < 4 || k > 26)
        return czk_err_set(err, CZK_EINVAL, "synthetic circuit %s: k = %u not in [4, 26]",
                           circuit_id, k);
    synthetic *s = czk_calloc(1, sizeof *s);
    if (s == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    s->k = k;
    s->seed = 0x637a6b2d636972ULL;
    for (const char *p = circuit_id; *p; p++)
        s->seed = s->seed * 1099511628211ULL ^ (uint8_t)*p;
    return czk__engine_add_circuit(e, circuit_id, &synthetic_kind, s, err);
}
