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
#include <string.h>

#include "engine/kind.h"
#include "filecoin/circuit.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/io/params.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/post/post.h"
#include "filecoin/post/post_inputs.h"
#include "kinds/filecoin_internal.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/bytes.h"

typedef struct fpost {
    czk__kinds_fc_base b; /* b.stats: one slot's counts; repeated when too large to record */
    czk_post_shape shape;
} fpost;

typedef struct fpost_job {
    czk__kinds_fc_job h; /* one partition */
    czk_vanilla_post_type type;
    size_t n_sectors;
    czk_vanilla_sector *sectors;
} fpost_job;

static const char *kind_name(czk_vanilla_post_kind k) {
    return k == CZK_VANILLA_POST_WINNING ? "winning-post" : "window-post";
}

/* ---- payload ---------------------------------------------------------------------------- */

size_t czk_kinds_filecoin_payload_size(const size_t *lens, size_t n) {
    return czk__kinds_fc_frames_size(CZK_FILECOIN_PAYLOAD_HEADER, lens, n);
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
    return czk__kinds_fc_frames_encode(out, CZK_FILECOIN_PAYLOAD_HEADER, proofs, lens, n);
}

int czk_kinds_filecoin_circuit_id(char *out, size_t cap, uint64_t registered_proof, czk_err *err) {
    czk_vanilla_post_type ty;
    int rc = czk_vanilla_post_type_from_abi(&ty, registered_proof, err);
    if (rc != CZK_OK)
        return rc;
    return czk__kinds_fc_circuit_id(out, cap, kind_name(ty.kind), ty.shape.sector_size,
                                    "registered proof", registered_proof, err);
}

/* ---- the kind's own parts ------------------------------------------------------------- */

static void f_estimate(const void *state, czk_kind_sizes *out) {
    const fpost *f = state;
    czk_cs_stats st;
    czk_circuit_post_stats_scale(&st, &f->b.stats, f->shape.slots);
    /* The recording's entries, or one slot's when the circuit is kept repeated. */
    czk__kinds_fc_sizes(out, &st, f->b.repeated ? &f->b.stats : &st, f->b.repeated);
    /* Curio's defaults (the gRPC adapter's too): a WinningPoSt is late after a few seconds. */
    out->prio =
        f->shape.kind == CZK_VANILLA_POST_WINNING ? CZK_PRIORITY_CRITICAL : CZK_PRIORITY_HIGH;
}

static int f_record(const czk__kinds_fc_base *b, czk_r1cs *r1cs, czk_cs_stats *stats,
                    czk_pool *pool, czk_err *err) {
    (void)pool; /* one system: its rows depend on each other */
    return czk_circuit_post_record(r1cs, stats, &((const fpost *)b)->shape, err);
}

/* One slot and the copy count, checked against registration's one-slot counts scaled. */
static int f_record_rep(czk__kinds_fc_base *b, czk_cs_stats *stats, czk_pool *pool, czk_err *err) {
    const fpost *f = (const fpost *)b;
    (void)pool; /* one slot: one system */
    czk_circuit_post_stats_scale(stats, &b->stats, f->shape.slots);
    return czk_circuit_post_record_rep(&b->rep, NULL, &f->shape, err);
}

/* ---- jobs -------------------------------------------------------------------------------- */

static int f_job_create(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                        czk_err *err) {
    const fpost *f = state;
    const char *rid = req->request_id;
    int rc = czk__kinds_fc_job_begin(&f->b, req, job, NULL, NULL, 0, 0, err);
    if (rc != CZK_OK)
        return rc;
    if (req->n_partitions > 1)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s proves one partition per request, not %zu", rid,
                           f->b.id, req->n_partitions);
    const uint8_t *p = req->payload;
    size_t len = req->payload_len;
    if (p == NULL || len < CZK_FILECOIN_PAYLOAD_HEADER)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s: payload of %zu bytes, shorter than its "
                           "%d-byte header",
                           rid, f->b.id, len, CZK_FILECOIN_PAYLOAD_HEADER);
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
    j->h.n_parts = 1;
    rc = czk_vanilla_post_type_from_abi(&j->type, reg, err);
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
                         (unsigned long long)j->type.shape.sector_size, f->b.id);
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
                         rid, n, f->b.id, max);
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
        size_t l = 0;
        if ((rc = czk__kinds_fc_frame(p, len, &off, &l, i, rid, err)) != CZK_OK)
            goto fail_bufs;
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
        czk__kinds_err_prefix(err, "request %s: ", rid);
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
            czk__kinds_err_prefix(err, "request %s: vanilla proof %u (sector %llu): ", rid, i,
                                  (unsigned long long)j->sectors[i].sector_id);
        ps[i].sector_id = j->sectors[i].sector_id;
        ps[i].comm_r = j->sectors[i].comm_r;
    }
    if (rc == CZK_OK) {
        size_t slots, k;
        j->h.n_inputs = czk_public_inputs_post_dims(&slots, &k, &j->type);
        j->h.inputs = czk_malloc(j->h.n_inputs * sizeof *j->h.inputs);
        if (j->h.inputs == NULL)
            rc = czk_err_set(err, CZK_ENOMEM, "request %s: cannot allocate public inputs", rid);
        else
            rc = czk_public_inputs_post_derive(j->h.inputs, j->h.n_inputs, &j->type, rnd, part, ps,
                                               n, err);
        if (rc != CZK_OK)
            czk__kinds_err_prefix(err, "request %s: public inputs: ", rid);
    }
    czk_free(ps);
fail_bufs:
    if (bufs != bufs_stack)
        czk_free((void *)bufs);
    if (lens != lens_stack)
        czk_free(lens);
fail:
    return czk__kinds_fc_job_end(&f->b, j, rc, rid, job, n_parts, err);
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
        czk__kinds_err_prefix(err, "circuit %s: synthesis: ", f->b.id);
    return rc;
}

static void f_job_clear(void *job) {
    fpost_job *j = job;
    for (size_t i = 0; j->sectors != NULL && i < j->n_sectors; i++)
        czk_vanilla_sector_clear(&j->sectors[i]);
    czk_free(j->sectors);
}

static const czk__kinds_fc_kind filecoin_post = {
    .kind = CZK__KINDS_FC_TABLE("filecoin-post", f_estimate, f_job_create, f_synthesize),
    .record = f_record,
    .record_rep = f_record_rep,
    .job_clear = f_job_clear,
};

int czk_kinds_register_filecoin_post(czk_engine *e, int kind, uint64_t sector_size,
                                     const char *param_dir, const char *env_value, unsigned flags,
                                     czk_err *err) {
    /* After a size czk__kinds_fc_new refuses, before anything is allocated. */
    if (kind != CZK_VANILLA_POST_WINNING && kind != CZK_VANILLA_POST_WINDOW &&
        czk_vanilla_size_index(sector_size) >= 0)
        return czk_err_set(err, CZK_EINVAL, "PoSt: kind %d is neither winning (1) nor window (2)",
                           kind);
    int rc;
    fpost *f = czk__kinds_fc_new(&filecoin_post, sizeof *f, "PoSt", kind_name(kind), sector_size,
                                 &rc, err);
    if (f == NULL)
        return rc;
    rc = czk_post_shape_init(&f->shape, kind, sector_size, err);
    if (rc == CZK_OK)
        rc = czk__kinds_fc_locate(&f->b,
                                  kind == CZK_VANILLA_POST_WINNING ? CZK_PARAMS_WINNING_POST
                                                                   : CZK_PARAMS_WINDOW_POST,
                                  sector_size, param_dir, env_value, err);
    if (rc == CZK_OK) {
        /* One slot counted, not S: the 32 GiB WindowPoSt is 2349 slots (~125 M rows), and
         * registration must stay cheap; the slots are identical blocks. */
        czk_post_shape one = f->shape;
        one.slots = 1;
        rc = czk_circuit_post_count(&f->b.stats, NULL, &one, err);
        f->b.repeated = (flags & CZK_KINDS_POST_REPEATED) != 0 ||
                        czk_circuit_post_rows(&f->shape) > CZK_KINDS_POST_RECORD_MAX_ROWS;
    }
    return czk__kinds_fc_add(e, &f->b, rc, err);
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
