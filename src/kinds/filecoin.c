/*
 * The Filecoin PoSt circuit kind: WinningPoSt and WindowPoSt (the Fallback PoSt circuit of
 * filecoin/post/post.h) proved from the vanilla proofs Curio sends, with the official v28 .params
 * (filecoin/io/params.h). One registered circuit per (PoSt kind, sector size); a job is one
 * partition, its payload the request's public data and vanilla proofs (kinds.h).
 *
 * Everything that can be checked without the key is checked at submit (job_create): the
 * payload's framing, each vanilla proof's strict decoding, the registered proof against the
 * circuit, and each proof's roots and challenged leaves against the request's randomness, so a
 * wrong request fails with a message instead of a failed proof. The public inputs the engine
 * verifies against are derived from the public data alone (post_inputs.h), never from the
 * witness: a tampered leaf or path then fails verification rather than proving something else.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/kind.h"
#include "filecoin/circuit.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/io/params.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/post/post.h"
#include "filecoin/post/post_inputs.h"
#include "formats/bellperson.h"
#include "kinds/filecoin_internal.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/file.h"
#include "util/memclear.h"

#define FC_PATH_MAX 4096

typedef struct fpost {
    czk_post_shape shape;
    czk_params_id pid;
    char *dir;                  /* the directory the key is looked up in */
    char key_path[FC_PATH_MAX]; /* dir/v28-….params, for messages (it may not exist yet) */
    char id[64];
    czk_cs_stats slot1; /* a one-slot circuit's counts (estimate, the witness layout) */
    int repeated;       /* load keeps the repeated form (rep) instead of the recording */
    czk_r1cs_rep rep;   /* while loaded, when repeated */
} fpost;

typedef struct fpost_job {
    czk_vanilla_post_type type;
    size_t n_sectors;
    czk_vanilla_sector *sectors;
    czk_fr *inputs; /* the public inputs derived from the request's public data */
    size_t n_inputs;
} fpost_job;

static const char *kind_name(czk_vanilla_post_kind k) {
    return k == CZK_VANILLA_POST_WINNING ? "winning-post" : "window-post";
}

/* Puts the request's context in front of a message a lower layer wrote (which names the
 * proof, field and offset but not the request). */
__attribute__((format(printf, 2, 3))) static void err_prefix(czk_err *err, const char *fmt, ...) {
    if (err == NULL)
        return;
    char pre[128], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    old[sizeof old - 1] = 0;
    size_t np = strlen(pre), no = strlen(old);
    if (np > sizeof err->msg - 1)
        np = sizeof err->msg - 1;
    if (no > sizeof err->msg - 1 - np)
        no = sizeof err->msg - 1 - np;
    memcpy(err->msg, pre, np);
    memcpy(err->msg + np, old, no);
    err->msg[np + no] = 0;
}

/* ---- payload ---------------------------------------------------------------------------- */

size_t czk_kinds_filecoin_payload_size(const size_t *lens, size_t n) {
    size_t total = CZK_FILECOIN_PAYLOAD_HEADER;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] > SIZE_MAX - 4 - total)
            return 0;
        total += 4 + lens[i];
    }
    return total;
}

size_t czk_kinds_filecoin_payload_encode(uint8_t *out, uint32_t registered_proof,
                                         uint32_t partition_index, uint64_t miner_id,
                                         const uint8_t randomness[32], const uint8_t *const *proofs,
                                         const size_t *lens, size_t n) {
    if (n > UINT32_MAX)
        return 0;
    memcpy(out, "CZKP", 4);
    czk_bytes_store_le32(out + 4, CZK_FILECOIN_PAYLOAD_VERSION);
    czk_bytes_store_le32(out + 8, registered_proof);
    czk_bytes_store_le32(out + 12, partition_index);
    czk_bytes_store_le64(out + 16, miner_id);
    memcpy(out + 24, randomness, 32);
    czk_bytes_store_le32(out + 56, (uint32_t)n);
    size_t off = CZK_FILECOIN_PAYLOAD_HEADER;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] > UINT32_MAX)
            return 0;
        czk_bytes_store_le32(out + off, (uint32_t)lens[i]);
        if (lens[i] != 0)
            memcpy(out + off + 4, proofs[i], lens[i]);
        off += 4 + lens[i];
    }
    return off;
}

int czk_kinds_filecoin_circuit_id(char *out, size_t cap, uint64_t registered_proof, czk_err *err) {
    czk_vanilla_post_type ty;
    int rc = czk_vanilla_post_type_from_abi(&ty, registered_proof, err);
    if (rc != CZK_OK)
        return rc;
    int si = czk_vanilla_size_index(ty.shape.sector_size);
    int n =
        si < 0 ? -1 : snprintf(out, cap, "%s-%s", kind_name(ty.kind), czk_vanilla_size_names[si]);
    if (n < 0 || (size_t)n >= cap)
        return czk_err_set(err, CZK_EINVAL, "registered proof %llu: circuit id does not fit",
                           (unsigned long long)registered_proof);
    return CZK_OK;
}

int czk__kinds_filecoin_read_key(czk_groth16_pk *pk, const czk_r1cs *cs, const char *path,
                                 const czk_cs_stats *st, const char *id, czk_pool *pool,
                                 czk_err *err) {
    /* Six length prefixes tell whether the file was made for this circuit before any of its
     * (up to tens of GiB of) points is read. */
    czk_params_expect x;
    czk_params_expect_from_stats(&x, st);
    int rc = czk_params_header_check(path, &x, err);
    if (rc == CZK_OK)
        rc = czk_bellperson_params_read(pk, path, CZK_KEY_CHECK_CURVE, pool, err);
    if (rc == CZK_OK && (cs->n_vars != pk->n_vars || cs->n_public != pk->n_public ||
                         cs->n_constraints + cs->n_public + 1 > pk->domain_size))
        rc = czk_err_set(err, CZK_EINVAL,
                         "%s: circuit %s (%zu vars, %zu public) does not match the key "
                         "(%zu vars, %zu public, domain %zu)",
                         czk_file_msg_path(path), id, cs->n_vars, cs->n_public, pk->n_vars,
                         pk->n_public, pk->domain_size);
    return rc;
}

int czk__kinds_filecoin_key_path(char **dir, char *key_path, size_t cap, const czk_params_id *pid,
                                 const char *param_dir, const char *env_value, const char *id,
                                 czk_err *err) {
    char name[CZK_PARAMS_NAME_MAX];
    *dir = czk_strdup(czk_params_cache_dir(param_dir, env_value));
    if (*dir == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    int rc = czk_params_file_name(name, sizeof name, pid, CZK_PARAMS_EXT_PARAMS, err);
    if (rc == CZK_OK) {
        int w = snprintf(key_path, cap, "%s/%s", *dir, name);
        if (w < 0 || (size_t)w >= cap)
            rc = czk_err_set(err, CZK_EINVAL, "circuit %s: parameter directory path too long", id);
    }
    if (rc != CZK_OK) {
        czk_free(*dir);
        *dir = NULL;
    }
    return rc;
}

/* ---- counting ---------------------------------------------------------------------------- */

static void f_estimate(const void *state, czk_kind_sizes *out) {
    const fpost *f = state;
    czk_cs_stats st;
    czk_circuit_post_stats_scale(&st, &f->slot1, f->shape.slots);
    czk_params_expect x;
    czk_params_lengths len;
    czk_params_expect_from_stats(&x, &st);
    if (czk_params_expected(&len, NULL, NULL, &x, NULL) != CZK_OK)
        return;
    uint64_t g1 = len.ic + len.h + len.l + len.a + len.b_g1;
    /* The recording's entries, or one slot's when the circuit is kept repeated. */
    const czk_cs_stats *rec = f->repeated ? &f->slot1 : &st;
    out->key_bytes = g1 * sizeof(czk_g1_affine) + len.b_g2 * sizeof(czk_g2_affine) +
                     (rec->nnz_a + rec->nnz_b + rec->nnz_c) * (sizeof(czk_fr) + sizeof(uint32_t));
    out->n_vars = (size_t)(st.n_inputs + st.n_aux);
    out->domain = (size_t)len.h + 1;
    out->device_rows = f->repeated;
}

static const char *f_key_path(const void *state) {
    return ((const fpost *)state)->key_path;
}

/* ---- load -------------------------------------------------------------------------------- */

static int f_load(void *state, czk_groth16_pk *pk, czk_r1cs *cs, uint64_t *extra_bytes,
                  czk_pool *pool, czk_err *err) {
    fpost *f = state;
    *extra_bytes = 0;
    char path[FC_PATH_MAX];
    /* The file first: a missing key should fail at once, not after recording the circuit. */
    int rc = czk_params_find(path, sizeof path, &f->pid, CZK_PARAMS_EXT_PARAMS, f->dir, NULL, err);
    czk_cs_stats st;
    czk_circuit_post_stats_scale(&st, &f->slot1, f->shape.slots);
    if (rc == CZK_OK && f->repeated) {
        /* One slot and the copy count; cs gets the whole system's sizes only (kind.h). */
        if ((rc = czk_circuit_post_record_rep(&f->rep, NULL, &f->shape, err)) == CZK_OK &&
            (rc = czk_r1cs_rep_dims(&f->rep, cs, err)) == CZK_OK)
            *extra_bytes = czk_r1cs_bytes(&f->rep.block);
    } else if (rc == CZK_OK) {
        rc = czk_circuit_post_record(cs, &st, &f->shape, err);
    }
    if (rc == CZK_OK)
        rc = czk__kinds_filecoin_read_key(pk, cs, path, &st, f->id, pool, err);
    if (rc != CZK_OK) {
        czk_groth16_pk_clear(pk);
        czk_r1cs_clear(cs);
        czk_r1cs_rep_clear(&f->rep);
        *extra_bytes = 0;
        return rc;
    }
    return CZK_OK;
}

static void f_unload(void *state) {
    czk_r1cs_rep_clear(&((fpost *)state)->rep);
}

static const czk_r1cs_rep *f_rep(const void *state) {
    const fpost *f = state;
    return f->rep.copies > 0 ? &f->rep : NULL;
}

/* ---- jobs -------------------------------------------------------------------------------- */

static void f_job_destroy(void *state, void *job) {
    (void)state;
    fpost_job *j = job;
    if (j == NULL)
        return;
    if (j->sectors != NULL)
        for (size_t i = 0; i < j->n_sectors; i++)
            czk_vanilla_sector_clear(&j->sectors[i]);
    czk_free(j->sectors);
    czk_free(j->inputs);
    czk_free(j);
}

static int f_job_create(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                        czk_err *err) {
    const fpost *f = state;
    const char *rid = req->request_id;
    *job = NULL;
    if (req->wtns != NULL)
        return czk_err_set(err, CZK_EINVAL, "request %s: circuit %s takes no witness files", rid,
                           f->id);
    if (req->n_partitions > 1)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s proves one partition per request, not %zu", rid,
                           f->id, req->n_partitions);
    const uint8_t *p = req->payload;
    size_t len = req->payload_len;
    if (p == NULL || len < CZK_FILECOIN_PAYLOAD_HEADER)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s: payload of %zu bytes, shorter than its "
                           "%d-byte header",
                           rid, f->id, len, CZK_FILECOIN_PAYLOAD_HEADER);
    if (memcmp(p, "CZKP", 4) != 0 || czk_bytes_load_le32(p + 4) != CZK_FILECOIN_PAYLOAD_VERSION)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: payload: bad magic or version %u at offset 0 "
                           "(want \"CZKP\", version %d)",
                           rid, czk_bytes_load_le32(p + 4), CZK_FILECOIN_PAYLOAD_VERSION);
    uint32_t reg = czk_bytes_load_le32(p + 8), part = czk_bytes_load_le32(p + 12);
    const uint8_t *rnd = p + 24;
    uint32_t n = czk_bytes_load_le32(p + 56);

    fpost_job *j = czk_calloc(1, sizeof *j);
    if (j == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", rid);
    int rc = czk_vanilla_post_type_from_abi(&j->type, reg, err);
    if (rc != CZK_OK) {
        rc = czk_err_set(err, CZK_EINVAL, "request %s: registered_proof %u is not a PoSt proof",
                         rid, reg);
        goto fail;
    }
    if (j->type.kind != f->shape.kind || j->type.shape.sector_size != f->shape.sector_size) {
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: registered_proof %u is %s of %llu-byte sectors, not "
                         "circuit %s",
                         rid, reg, kind_name(j->type.kind),
                         (unsigned long long)j->type.shape.sector_size, f->id);
        goto fail;
    }
    czk_fr rf;
    if (czk_fr_from_bytes_le(&rf, rnd) != 0) {
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: randomness (payload offset 24) is not a field element "
                         "(>= r)",
                         rid);
        goto fail;
    }
    if (j->type.kind == CZK_VANILLA_POST_WINNING && part != 0) {
        rc = czk_err_set(err, CZK_EINVAL, "request %s: WinningPoSt has partition 0 only, not %u",
                         rid, part);
        goto fail;
    }
    size_t max = j->type.kind == CZK_VANILLA_POST_WINNING ? 1 : j->type.sector_count;
    if (n == 0 || n > max) {
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: %u vanilla proofs; circuit %s takes 1 to %zu per partition",
                         rid, n, f->id, max);
        goto fail;
    }
    /* Frame the proofs before allocating anything for them: n is bounded by the sector count,
     * and every length by what is left of the payload. */
    const uint8_t *bufs_stack[1];
    size_t lens_stack[1];
    const uint8_t **bufs = n == 1 ? bufs_stack : czk_malloc(n * sizeof *bufs);
    size_t *lens = n == 1 ? lens_stack : czk_malloc(n * sizeof *lens);
    j->sectors = czk_calloc(n, sizeof *j->sectors);
    if (bufs == NULL || lens == NULL || j->sectors == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "request %s: cannot allocate %u vanilla proofs", rid, n);
        goto fail_bufs;
    }
    size_t off = CZK_FILECOIN_PAYLOAD_HEADER;
    for (uint32_t i = 0; i < n; i++) {
        if (len - off < 4) {
            rc = czk_err_set(err, CZK_EINVAL,
                             "request %s: payload ends at offset %zu inside vanilla proof %u's "
                             "length",
                             rid, off, i);
            goto fail_bufs;
        }
        size_t l = czk_bytes_load_le32(p + off);
        off += 4;
        if (l > len - off) {
            rc = czk_err_set(err, CZK_EINVAL,
                             "request %s: vanilla proof %u at payload offset %zu says %zu bytes, "
                             "%zu remain",
                             rid, i, off, l, len - off);
            goto fail_bufs;
        }
        bufs[i] = p + off;
        lens[i] = l;
        off += l;
    }
    if (off != len) {
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: %zu trailing payload bytes after vanilla proof %u (offset "
                         "%zu)",
                         rid, len - off, n - 1, off);
        goto fail_bufs;
    }
    rc = czk_vanilla_sectors_decode(j->sectors, &j->type, (const uint8_t *const *)bufs, lens, n,
                                    err);
    if (rc != CZK_OK) {
        err_prefix(err, "request %s: ", rid);
        goto fail_bufs;
    }
    j->n_sectors = n;
    /* Roots and challenged leaves against the request: a proof for another randomness,
     * partition or sector is refused here, naming it. WinningPoSt's one sector opens its 66
     * challenges as sector 0; WindowPoSt's i-th as partition_index · sector_count + i. */
    czk_public_inputs_sector *ps = czk_malloc(n * sizeof *ps);
    if (ps == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "request %s: cannot allocate", rid);
        goto fail_bufs;
    }
    for (uint32_t i = 0; i < n && rc == CZK_OK; i++) {
        uint64_t idx = j->type.kind == CZK_VANILLA_POST_WINNING
                           ? 0
                           : (uint64_t)part * j->type.sector_count + i;
        rc = czk_vanilla_sector_check(&j->sectors[i], &j->type, rnd, idx, err);
        if (rc != CZK_OK)
            err_prefix(err, "request %s: vanilla proof %u (sector %llu): ", rid, i,
                       (unsigned long long)j->sectors[i].sector_id);
        ps[i].sector_id = j->sectors[i].sector_id;
        ps[i].comm_r = j->sectors[i].comm_r;
    }
    if (rc == CZK_OK) {
        size_t slots, k;
        j->n_inputs = czk_public_inputs_post_dims(&slots, &k, &j->type);
        j->inputs = czk_malloc(j->n_inputs * sizeof *j->inputs);
        if (j->inputs == NULL)
            rc = czk_err_set(err, CZK_ENOMEM, "request %s: cannot allocate public inputs", rid);
        else
            rc = czk_public_inputs_post_derive(j->inputs, j->n_inputs, &j->type, rnd, part, ps, n,
                                               err);
        if (rc != CZK_OK)
            err_prefix(err, "request %s: public inputs: ", rid);
    }
    czk_free(ps);
    if (rc == CZK_OK) {
        /* A request the daemon cannot serve for want of a key is refused now, naming the
         * directory searched and the file expected, rather than failing after queueing. */
        char path[FC_PATH_MAX];
        rc = czk_params_find(path, sizeof path, &f->pid, CZK_PARAMS_EXT_PARAMS, f->dir, NULL, err);
        if (rc != CZK_OK)
            err_prefix(err, "request %s: circuit %s: ", rid, f->id);
    }
fail_bufs:
    if (bufs != bufs_stack)
        czk_free((void *)bufs);
    if (lens != lens_stack)
        czk_free(lens);
    if (rc != CZK_OK)
        goto fail;
    *job = j;
    *n_parts = 1;
    return CZK_OK;
fail:
    f_job_destroy(state, j);
    /* Whatever the lower layer called it (a decoding's CZK_EFORMAT, a check's CZK_EVERIFY),
     * the request is at fault: the engine and clients take CZK_EINVAL for that. */
    if (rc != CZK_ENOMEM && err != NULL)
        err->code = CZK_EINVAL;
    return rc == CZK_ENOMEM ? rc : CZK_EINVAL;
}

/* ---- synthesis --------------------------------------------------------------------------- */

static int f_synthesize(void *state, void *job, size_t part, const czk_r1cs *r1cs, czk_fr *w,
                        czk_pool *pool, czk_err *err) {
    (void)part;
    const fpost *f = state;
    const fpost_job *j = job;
    /* The layout is the recorded system's; czk_post_witness checks that every slot makes
     * exactly its share of it. */
    size_t ni = r1cs->n_public + 1, na = r1cs->n_vars - ni;
    /* The slots in parallel on the engine's pool, each written straight into the engine's
     * buffer (no system of values to copy from). */
    int rc = czk_post_witness(&f->shape, j->sectors, j->n_sectors, w, ni, na, pool, err);
    if (rc != CZK_OK)
        err_prefix(err, "circuit %s: synthesis: ", f->id);
    return rc;
}

static int f_public_inputs(void *state, void *job, size_t part, czk_fr *out, size_t n_public,
                           czk_err *err) {
    (void)part;
    const fpost *f = state;
    const fpost_job *j = job;
    if (n_public != j->n_inputs)
        return czk_err_set(err, CZK_EINTERNAL,
                           "circuit %s: the key has %zu public inputs, the request gives %zu",
                           f->id, n_public, j->n_inputs);
    memcpy(out, j->inputs, n_public * sizeof *out);
    return CZK_OK;
}

static void f_destroy(void *state) {
    fpost *f = state;
    czk_r1cs_rep_clear(&f->rep);
    czk_free(f->dir);
    czk_free(f);
}

static const czk_circuit_kind filecoin_post_kind = {
    .name = "filecoin-post",
    .estimate = f_estimate,
    .key_path = f_key_path,
    .load = f_load,
    .unload = f_unload,
    .rep = f_rep,
    .job_create = f_job_create,
    .job_destroy = f_job_destroy,
    .synthesize = f_synthesize,
    .public_inputs = f_public_inputs,
    .destroy = f_destroy,
};

int czk_kinds_register_filecoin_post(czk_engine *e, int kind, uint64_t sector_size,
                                     const char *param_dir, const char *env_value, unsigned flags,
                                     czk_err *err) {
    int si = czk_vanilla_size_index(sector_size);
    if (si < 0)
        return czk_err_set(err, CZK_EUNSUPPORTED, "PoSt: sector size %llu is not supported",
                           (unsigned long long)sector_size);
    if (kind != CZK_VANILLA_POST_WINNING && kind != CZK_VANILLA_POST_WINDOW)
        return czk_err_set(err, CZK_EINVAL, "PoSt: kind %d is neither winning (1) nor window (2)",
                           kind);
    fpost *f = czk_calloc(1, sizeof *f);
    if (f == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    snprintf(f->id, sizeof f->id, "%s-%s", kind_name(kind), czk_vanilla_size_names[si]);
    int rc = czk_post_shape_init(&f->shape, kind, sector_size, err);
    if (rc == CZK_OK)
        rc = czk_params_id_get(&f->pid,
                               kind == CZK_VANILLA_POST_WINNING ? CZK_PARAMS_WINNING_POST
                                                                : CZK_PARAMS_WINDOW_POST,
                               sector_size, err);
    if (rc == CZK_OK)
        rc = czk__kinds_filecoin_key_path(&f->dir, f->key_path, sizeof f->key_path, &f->pid,
                                          param_dir, env_value, f->id, err);
    if (rc == CZK_OK) {
        /* One slot counted, not S: the 32 GiB WindowPoSt is 2349 slots (~125 M rows), and
         * registration must stay cheap; the slots are identical blocks. */
        czk_post_shape one = f->shape;
        one.slots = 1;
        rc = czk_circuit_post_count(&f->slot1, NULL, &one, err);
        f->repeated = (flags & CZK_KINDS_POST_REPEATED) != 0 ||
                      czk_circuit_post_rows(&f->shape) > CZK_KINDS_POST_RECORD_MAX_ROWS;
    }
    if (rc != CZK_OK) {
        f_destroy(f);
        return rc;
    }
    return czk__engine_add_circuit(e, f->id, &filecoin_post_kind, f, err);
}

int czk_kinds_register_filecoin_posts(czk_engine *e, const char *param_dir, const char *env_value,
                                      czk_err *err) {
    for (int kind = CZK_VANILLA_POST_WINNING; kind <= CZK_VANILLA_POST_WINDOW; kind++)
        for (int i = 0; i < 5; i++) {
            int rc = czk_kinds_register_filecoin_post(e, kind, czk_vanilla_sizes[i], param_dir,
                                                      env_value, 0, err);
            if (rc != CZK_OK)
                return rc;
        }
    return CZK_OK;
}

int czk__kinds_filecoin_load_partition(czk_groth16_pk *pk, czk_r1cs *cs, czk_r1cs_rep *rep,
                                       uint64_t *extra_bytes, int repeated,
                                       czk__kinds_record_fn record, const void *shape,
                                       const czk_params_id *pid, const char *dir, const char *id,
                                       czk_pool *pool, czk_err *err) {
    *extra_bytes = 0;
    char path[4096];
    int rc = czk_params_find(path, sizeof path, pid, CZK_PARAMS_EXT_PARAMS, dir, NULL, err);
    /* The recording's own counts are exact (registration may have estimated the big ones). */
    czk_cs_stats st;
    if (rc == CZK_OK && repeated) {
        rep->copies = 1;
        if ((rc = record(&rep->block, &st, shape, err)) == CZK_OK &&
            (rc = czk_r1cs_rep_dims(rep, cs, err)) == CZK_OK)
            *extra_bytes = czk_r1cs_bytes(&rep->block);
    } else if (rc == CZK_OK) {
        rc = record(cs, &st, shape, err);
    }
    if (rc == CZK_OK)
        rc = czk__kinds_filecoin_read_key(pk, cs, path, &st, id, pool, err);
    if (rc != CZK_OK) {
        czk_groth16_pk_clear(pk);
        czk_r1cs_clear(cs);
        czk_r1cs_rep_clear(rep);
        *extra_bytes = 0;
    }
    return rc;
}
