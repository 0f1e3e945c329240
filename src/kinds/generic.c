/*
 * The generic circuit kind: a registered proving key — a snarkjs .zkey (which carries the
 * constraint system) or a bellperson .params with its R1CS (circom .r1cs or czk's own file) —
 * and one circom .wtns witness image per partition, carried by the request.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "curve/g1.h"
#include "engine/kind.h"
#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/zkey.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/memclear.h"

typedef struct generic {
    char *key_path, *r1cs_path; /* r1cs_path NULL for a .zkey */
    int zkey;                   /* key_path is a .zkey (its magic, read at registration) */
    czk_generic_opts opts;
} generic;

typedef struct generic_job {
    size_t n;
    uint8_t **wtns;
    size_t *len;
} generic_job;

static uint64_t file_size(const char *path) {
    struct stat st;
    if (path == NULL || stat(path, &st) != 0)
        return 0;
    return (uint64_t)st.st_size;
}

static void g_estimate(const void *state, czk_kind_sizes *out) {
    const generic *g = state;
    /* In memory, points take about what they take in the files (uncompressed), R1CS a bit
     * more than circom's compact terms; the engine corrects the estimate at load. */
    out->key_bytes = file_size(g->key_path) + 2 * file_size(g->r1cs_path);
}

static const char *g_key_path(const void *state) {
    return ((const generic *)state)->key_path;
}

/* 1 when p[0], p[1], p[2] are finite and in arithmetic progression (2·p[1] = p[0] + p[2]);
 * infinity is left out because a real key's L holds it for variables in no constraint. */
static int progression3(const czk_g1_affine *p) {
    for (int i = 0; i < 3; i++)
        if (czk_g1_affine_is_infinity(&p[i]))
            return 0;
    czk_g1_jacobian twice, sum;
    czk_g1_jacobian_from_affine(&twice, &p[1]);
    czk_g1_jacobian_dbl(&twice, &twice);
    czk_g1_jacobian_from_affine(&sum, &p[0]);
    czk_g1_jacobian_add_affine(&sum, &sum, &p[2]);
    return czk_g1_jacobian_equal(&twice, &sum);
}

/*
 * 1 when pk looks like a benchmark key (groth16/benchkey.h: `czk synth --keys bench`). Such
 * a file is a valid .params, so nothing in it says what it is, but its vectors are arithmetic
 * progressions P_0 + i·Q, which the points of a real setup are not (but with probability
 * about 1/r: H's points are τ^i·Z(τ)/δ).
 * Proofs with it never verify; checking here names the key as the fault instead of letting
 * every partition fail verification as if its witness were wrong.
 */
static int is_bench_key(const czk_groth16_pk *pk) {
    int tested = 0;
    if (pk->n_h >= 3) {
        if (!progression3(pk->h))
            return 0;
        tested = 1;
    }
    if (pk->n_l >= 3) {
        if (!progression3(pk->l))
            return 0;
        tested = 1;
    }
    return tested;
}

static int g_load(void *state, czk_groth16_pk *pk, czk_r1cs *cs, uint64_t *extra_bytes,
                  czk_pool *pool, czk_err *err) {
    const generic *g = state;
    int rc;
    *extra_bytes = 0;
    /* The format was told from the magic at registration (g_check); the readers check the
     * whole file again, so a file replaced since is still caught. */
    if (g->zkey) {
        rc = czk_zkey_read_ex(pk, cs, g->key_path,
                              g->opts.key_check_set ? g->opts.key_check : CZK_KEY_CHECK_FULL, pool,
                              err);
    } else {
        rc = czk_bellperson_params_read(
            pk, g->key_path, g->opts.key_check_set ? g->opts.key_check : CZK_KEY_CHECK_CURVE, pool,
            err);
        if (rc == CZK_OK && is_bench_key(pk))
            rc = czk_err_set(err, CZK_EINVAL,
                             "%s is a benchmark key (czk synth --keys bench): it makes proofs "
                             "that cannot verify; prove with a key from `czk setup` or "
                             "`czk synth --keys dev`",
                             czk_file_msg_path(g->key_path));
        if (rc == CZK_OK)
            rc = czk_formats_r1cs_read(cs, g->r1cs_path, pool, err);
    }
    if (rc == CZK_OK && (cs->n_vars != pk->n_vars || cs->n_public != pk->n_public ||
                         cs->n_constraints + cs->n_public + 1 > pk->domain_size))
        rc = czk_err_set(err, CZK_EINVAL,
                         "%s: the R1CS (%zu vars, %zu public) does not match the key "
                         "(%zu vars, %zu public, domain %zu)",
                         g->r1cs_path != NULL ? g->r1cs_path : g->key_path, cs->n_vars,
                         cs->n_public, pk->n_vars, pk->n_public, pk->domain_size);
    if (rc != CZK_OK) {
        czk_groth16_pk_clear(pk);
        czk_r1cs_clear(cs);
    }
    return rc;
}

/* Nothing of the kind's own goes with the key's points: a witness comes from its file. */
static uint64_t g_drop(void *state) {
    (void)state;
    return 0;
}

/* The key read again (and checked as at load); the system read with it is the one the engine
 * holds already. */
static int g_restore(void *state, czk_groth16_pk *pk, czk_pool *pool, czk_err *err) {
    return czk__kind_restore_by_load(g_load, state, pk, pool, err);
}

static void g_job_destroy(void *state, void *job) {
    (void)state;
    generic_job *j = job;
    if (j == NULL)
        return;
    for (size_t i = 0; i < j->n; i++) {
        if (j->wtns != NULL && j->wtns[i] != NULL) {
            czk_memclear_explicit(j->wtns[i], j->len[i]);
            czk_free(j->wtns[i]);
        }
    }
    czk_free(j->wtns);
    czk_free(j->len);
    czk_free(j);
}

static int g_job_create(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                        czk_err *err) {
    (void)state;
    *job = NULL;
    if (req->payload != NULL || req->payload_len != 0)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s takes .wtns witnesses, not a payload",
                           req->request_id, req->circuit_id);
    if (req->n_partitions == 0)
        return czk_err_set(err, CZK_EINVAL, "request %s: 0 partitions", req->request_id);
    if (req->wtns == NULL || req->wtns_len == NULL)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s needs one witness per partition",
                           req->request_id, req->circuit_id);
    for (size_t i = 0; i < req->n_partitions; i++) {
        if (req->wtns[i] == NULL || req->wtns_len[i] == 0)
            return czk_err_set(err, CZK_EINVAL, "request %s: partition %zu has no witness",
                               req->request_id, i);
    }
    generic_job *j = czk_calloc(1, sizeof *j);
    if (j == NULL)
        goto nomem;
    j->wtns = czk_calloc(req->n_partitions, sizeof(uint8_t *));
    j->len = czk_calloc(req->n_partitions, sizeof(size_t));
    if (j->wtns == NULL || j->len == NULL)
        goto nomem;
    j->n = req->n_partitions;
    for (size_t i = 0; i < j->n; i++) {
        j->wtns[i] = czk_malloc(req->wtns_len[i]);
        if (j->wtns[i] == NULL)
            goto nomem;
        memcpy(j->wtns[i], req->wtns[i], req->wtns_len[i]);
        j->len[i] = req->wtns_len[i];
    }
    *job = j;
    *n_parts = j->n;
    return CZK_OK;
nomem:
    g_job_destroy(state, j);
    return czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", req->request_id);
}

static int g_synthesize(void *state, void *job, size_t part, const czk_r1cs *cs, czk_fr *w,
                        czk_pool *pool, czk_err *err) {
    const generic *g = state;
    generic_job *j = job;
    char name[64];
    snprintf(name, sizeof name, "partition %zu witness", part);
    int rc = czk_circom_wtns_parse(w, cs->n_vars, j->wtns[part], j->len[part], name, err);
    if (rc != CZK_OK || !g->opts.check_witness)
        return rc;
    size_t bad = 0;
    rc = czk_r1cs_check(cs, w, &bad, pool, err);
    if (rc == CZK_EVERIFY)
        rc = czk_err_set(err, CZK_EVERIFY,
                         "partition %zu witness does not satisfy the circuit: constraint %zu fails",
                         part, bad);
    return rc;
}

/*
 * Checks at registration what can be checked without loading: each file opens, is a regular
 * file and starts as its format does (a .zkey's magic, or a .params with an R1CS whose magic
 * is circom's or czk's), so that a daemon with a wrong path refuses to start instead of
 * failing its first job.
 */
static int check_file(const char *path, const char *what, uint8_t magic[8], czk_err *err) {
    struct stat st;
    memset(magic, 0, 8);
    if (stat(path, &st) != 0)
        return czk_err_set(err, CZK_EIO, "%s: cannot open the %s: %s", path, what, strerror(errno));
    if (!S_ISREG(st.st_mode))
        return czk_err_set(err, CZK_EINVAL, "%s: the %s is not a regular file", path, what);
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return czk_err_set(err, CZK_EIO, "%s: cannot open the %s: %s", path, what, strerror(errno));
    size_t got = fread(magic, 1, 8, f);
    fclose(f);
    if (got < 8)
        return czk_err_set(err, CZK_EFORMAT, "%s: the %s is too short (%zu bytes)", path, what,
                           got);
    return CZK_OK;
}

static int g_check(generic *g, czk_err *err) {
    uint8_t m[8];
    int rc = check_file(g->key_path, "proving key", m, err);
    g->zkey = rc == CZK_OK && memcmp(m, "zkey", 4) == 0;
    if (rc != CZK_OK || g->zkey)
        return rc;
    if (g->r1cs_path == NULL)
        return czk_err_set(err, CZK_EINVAL, "%s: not a .zkey, and a .params key needs an R1CS file",
                           g->key_path);
    if ((rc = check_file(g->r1cs_path, "R1CS file", m, err)) != CZK_OK)
        return rc;
    if (memcmp(m, "r1cs", 4) != 0 && memcmp(m, "CZKR1CS", 8) != 0)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: neither a circom .r1cs nor a czk R1CS file (bad magic)",
                           g->r1cs_path);
    return CZK_OK;
}

static void g_destroy(void *state) {
    generic *g = state;
    czk_free(g->key_path);
    czk_free(g->r1cs_path);
    czk_free(g);
}

static const czk_circuit_kind generic_kind = {
    .name = "generic",
    .estimate = g_estimate,
    .key_path = g_key_path,
    .load = g_load,
    .drop = g_drop,
    .restore = g_restore,
    .job_create = g_job_create,
    .job_destroy = g_job_destroy,
    .synthesize = g_synthesize,
    .destroy = g_destroy,
};

int czk_kinds_register_generic(czk_engine *e, const char *circuit_id, const char *key_path,
                               const char *r1cs_path, const czk_generic_opts *opts, czk_err *err) {
    generic *g = czk_calloc(1, sizeof *g);
    if (g == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    g->key_path = czk_strdup(key_path);
    g->r1cs_path = r1cs_path != NULL ? czk_strdup(r1cs_path) : NULL;
    if (opts != NULL)
        g->opts = *opts;
    if (g->key_path == NULL || (r1cs_path != NULL && g->r1cs_path == NULL)) {
        g_destroy(g);
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    }
    int rc = g_check(g, err);
    if (rc != CZK_OK) {
        g_destroy(g);
        return rc;
    }
    return czk__engine_add_circuit(e, circuit_id, &generic_kind, g, err);
}

int czk_engine_register_circuit(czk_engine *e, const char *circuit_id, const char *key_path,
                                const char *r1cs_path, czk_err *err) {
    return czk_kinds_register_generic(e, circuit_id, key_path, r1cs_path, NULL, err);
}
