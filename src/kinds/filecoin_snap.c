/*
 * The Filecoin SnapDeals kind: the EmptySectorUpdate partition circuit (filecoin/snap/snap.h)
 * proved from the vanilla partition proofs Curio sends (one bincode PartitionProof per
 * partition, snap_vanilla.h), with the v28 .params of the update circuit (filecoin/io/params.h).
 * One registered circuit per sector size; a job is one update proof, its partitions the
 * sector's (1 at 2 KiB, 4 at 8 MiB, 16 from 512 MiB on).
 *
 * At submit (job_create) every partition proof is decoded strictly and checked against the
 * request's commitments (czk_snap_partition_check: the challenges comm_r_new derives, every
 * path, the roots against comm_r_old, comm_r_new and comm_d_new, the encoding), so that a
 * proof for another sector or update, or a flipped byte, is refused naming the partition
 * rather than after minutes of proving. The public inputs the engine verifies against are
 * derived from the commitments alone. h is h_default (constants.rs: hs[3]), which is what
 * filecoin-proofs' update API proves with (SectorUpdateConfig::from_porep_config).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), curio@e0294b0f
 * (2026-08-20).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/kind.h"
#include "filecoin/circuit.h"
#include "filecoin/io/params.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_vanilla.h"
#include "filecoin/spec/sector.h"
#include "kinds/filecoin_internal.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/bytes.h"

#define FC_PATH_MAX 4096

/* go-state-types abi RegisteredUpdateProof: StackedDrg{2KiB, 8MiB, 512MiB, 32GiB, 64GiB}V1. */
static const uint64_t UPDATE_SIZES[] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30,
                                        64ull << 30};
#define N_UPDATE (sizeof(UPDATE_SIZES) / sizeof(UPDATE_SIZES[0]))

typedef struct fsnap {
    czk_snap_shape shape;
    czk_params_id pid;
    char *dir;
    char key_path[FC_PATH_MAX];
    char id[64];
    czk_cs_stats stats; /* one partition's counts (extrapolated above 2^24 rows) */
    /* Above 2^24 rows the recording is kept as a repeated form of one copy (r1cs/rep.h), as
     * the PoRep kind does, and proves on devices that take its rows. */
    int repeated;
    czk_r1cs_rep rep;
} fsnap;

typedef struct fsnap_job {
    czk_snap_public pub;
    uint32_t n_parts;
    czk_snap_partition_proof *parts; /* n_parts of them */
    czk_fr *inputs;                  /* per partition, 4 each (ONE excluded) */
} fsnap_job;

/* Puts the request's context in front of a message a lower layer wrote. */
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

/* ---- payload ----------------------------------------------------------------------------- */

int czk_kinds_snap_sector_size(uint64_t *out, uint64_t registered_proof, czk_err *err) {
    if (registered_proof >= N_UPDATE)
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "registered update proof %llu is not one of StackedDrg2KiBV1 .. "
                           "StackedDrg64GiBV1 (0-4)",
                           (unsigned long long)registered_proof);
    *out = UPDATE_SIZES[registered_proof];
    return CZK_OK;
}

int czk_kinds_snap_circuit_id(char *out, size_t cap, uint64_t registered_proof, czk_err *err) {
    uint64_t size = 0;
    int rc = czk_kinds_snap_sector_size(&size, registered_proof, err);
    if (rc != CZK_OK)
        return rc;
    int si = czk_vanilla_size_index(size);
    int n = si < 0 ? -1 : snprintf(out, cap, "snap-%s", czk_vanilla_size_names[si]);
    if (n < 0 || (size_t)n >= cap)
        return czk_err_set(err, CZK_EINVAL, "registered update proof %llu: circuit id does not fit",
                           (unsigned long long)registered_proof);
    return CZK_OK;
}

size_t czk_kinds_snap_payload_size(const size_t *lens, size_t n) {
    size_t total = CZK_SNAP_PAYLOAD_HEADER;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] > SIZE_MAX - 4 - total)
            return 0;
        total += 4 + lens[i];
    }
    return total;
}

size_t czk_kinds_snap_payload_encode(uint8_t *out, uint32_t registered_proof, uint64_t miner_id,
                                     uint64_t sector_number, const uint8_t comm_r_old[32],
                                     const uint8_t comm_r_new[32], const uint8_t comm_d_new[32],
                                     const uint8_t *const *proofs, const size_t *lens, size_t n) {
    if (n > UINT32_MAX)
        return 0;
    memcpy(out, "CZKS", 4);
    czk_bytes_store_le32(out + 4, CZK_SNAP_PAYLOAD_VERSION);
    czk_bytes_store_le32(out + 8, registered_proof);
    czk_bytes_store_le32(out + 12, 0);
    czk_bytes_store_le64(out + 16, miner_id);
    czk_bytes_store_le64(out + 24, sector_number);
    memcpy(out + 32, comm_r_old, 32);
    memcpy(out + 64, comm_r_new, 32);
    memcpy(out + 96, comm_d_new, 32);
    czk_bytes_store_le32(out + 128, (uint32_t)n);
    size_t off = CZK_SNAP_PAYLOAD_HEADER;
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

/* ---- sizes and load ---------------------------------------------------------------------- */

static void s_estimate(const void *state, czk_kind_sizes *out) {
    const fsnap *f = state;
    czk_params_expect x;
    czk_params_lengths len;
    czk_params_expect_from_stats(&x, &f->stats);
    if (czk_params_expected(&len, NULL, NULL, &x, NULL) != CZK_OK)
        return;
    const czk_cs_stats *st = &f->stats;
    uint64_t g1 = len.ic + len.h + len.l + len.a + len.b_g1;
    out->key_bytes = g1 * sizeof(czk_g1_affine) + len.b_g2 * sizeof(czk_g2_affine) +
                     (st->nnz_a + st->nnz_b + st->nnz_c) * (sizeof(czk_fr) + sizeof(uint32_t));
    out->n_vars = (size_t)(st->n_inputs + st->n_aux);
    out->domain = (size_t)len.h + 1;
    out->device_rows = f->repeated;
}

static const char *s_key_path(const void *state) {
    return ((const fsnap *)state)->key_path;
}

/* filecoin/circuit.h's recording of this kind's shape, as the shared load takes it. */
static int s_record(czk_r1cs *r1cs, czk_cs_stats *stats, const void *shape, czk_err *err) {
    return czk_circuit_snap_record(r1cs, stats, shape, err);
}

static int s_load(void *state, czk_groth16_pk *pk, czk_r1cs *cs, uint64_t *extra_bytes,
                  czk_pool *pool, czk_err *err) {
    fsnap *f = state;
    return czk__kinds_filecoin_load_partition(pk, cs, &f->rep, extra_bytes, f->repeated, s_record,
                                              &f->shape, &f->pid, f->dir, f->id, pool, err);
}

static void s_unload(void *state) {
    czk_r1cs_rep_clear(&((fsnap *)state)->rep);
}

static const czk_r1cs_rep *s_rep(const void *state) {
    const fsnap *f = state;
    return f->rep.copies > 0 ? &f->rep : NULL;
}

/* ---- jobs -------------------------------------------------------------------------------- */

static void s_job_destroy(void *state, void *job) {
    (void)state;
    fsnap_job *j = job;
    if (j == NULL)
        return;
    if (j->parts != NULL)
        for (uint32_t k = 0; k < j->n_parts; k++)
            czk_snap_partition_proof_clear(&j->parts[k]);
    czk_free(j->parts);
    czk_free(j->inputs);
    czk_free(j);
}

static int s_job_create(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                        czk_err *err) {
    const fsnap *f = state;
    const char *rid = req->request_id;
    *job = NULL;
    if (req->wtns != NULL)
        return czk_err_set(err, CZK_EINVAL, "request %s: circuit %s takes no witness files", rid,
                           f->id);
    const uint8_t *p = req->payload;
    size_t len = req->payload_len;
    if (p == NULL || len < CZK_SNAP_PAYLOAD_HEADER || memcmp(p, "CZKS", 4) != 0 ||
        czk_bytes_load_le32(p + 4) != CZK_SNAP_PAYLOAD_VERSION)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s: not a SnapDeals payload (magic \"CZKS\", "
                           "version %d, %d-byte header)",
                           rid, f->id, CZK_SNAP_PAYLOAD_VERSION, CZK_SNAP_PAYLOAD_HEADER);
    uint32_t reg = czk_bytes_load_le32(p + 8);
    uint64_t size = 0;
    int rc = czk_kinds_snap_sector_size(&size, reg, err);
    if (rc != CZK_OK || size != f->shape.sector_size)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: registered_proof %u is not the update proof of circuit %s",
                           rid, reg, f->id);
    uint32_t parts = f->shape.partitions;
    if (req->n_partitions > 1 && req->n_partitions != parts)
        return czk_err_set(err, CZK_EINVAL, "request %s: %zu partitions asked, circuit %s has %u",
                           rid, req->n_partitions, f->id, parts);
    fsnap_job *j = czk_calloc(1, sizeof *j);
    if (j != NULL) {
        j->parts = czk_calloc(parts, sizeof *j->parts);
        j->inputs = czk_malloc((size_t)parts * 4 * sizeof *j->inputs);
    }
    if (j == NULL || j->parts == NULL || j->inputs == NULL) {
        s_job_destroy(state, j);
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", rid);
    }
    j->n_parts = parts;
    rc = czk__kinds_snap_job_check(&j->pub, j->parts, j->inputs, &f->shape, p, len, rid, err);
    if (rc == CZK_OK) {
        /* A request the daemon cannot serve for want of a key is refused now. */
        char path[FC_PATH_MAX];
        rc = czk_params_find(path, sizeof path, &f->pid, CZK_PARAMS_EXT_PARAMS, f->dir, NULL, err);
        if (rc != CZK_OK)
            err_prefix(err, "request %s: circuit %s: ", rid, f->id);
    }
    if (rc != CZK_OK) {
        s_job_destroy(state, j);
        /* The request is at fault, whatever the lower layer called it. */
        if (rc != CZK_ENOMEM && err != NULL)
            err->code = CZK_EINVAL;
        return rc == CZK_ENOMEM ? rc : CZK_EINVAL;
    }
    *job = j;
    *n_parts = parts;
    return CZK_OK;
}

int czk__kinds_snap_job_check(czk_snap_public *pub, czk_snap_partition_proof *parts, czk_fr *inputs,
                              const czk_snap_shape *shape, const uint8_t *p, size_t len,
                              const char *rid, czk_err *err) {
    if (len < CZK_SNAP_PAYLOAD_HEADER || memcmp(p, "CZKS", 4) != 0 ||
        czk_bytes_load_le32(p + 4) != CZK_SNAP_PAYLOAD_VERSION)
        return czk_err_set(err, CZK_EINVAL, "request %s: not a SnapDeals payload", rid);
    memset(pub, 0, sizeof *pub);
    memcpy(pub->comm_r_old, p + 32, 32);
    memcpy(pub->comm_r_new, p + 64, 32);
    memcpy(pub->comm_d_new, p + 96, 32);
    pub->h = shape->hs[3];
    uint32_t n = czk_bytes_load_le32(p + 128);
    if (n != shape->partitions)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: %u vanilla proofs; a %llu-byte sector's update takes %u "
                           "(one per partition, in order)",
                           rid, n, (unsigned long long)shape->sector_size, shape->partitions);
    /* Each commitment on its own, so that the message names it. */
    static const char *const names[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    for (int i = 0; i < 3; i++) {
        czk_fr t;
        if (czk_fr_from_bytes_le(&t, p + 32 + 32 * i) != CZK_OK)
            return czk_err_set(err, CZK_EINVAL,
                               "request %s: %s is not a field element (>= r, little-endian)", rid,
                               names[i]);
    }
    size_t off = CZK_SNAP_PAYLOAD_HEADER;
    for (uint32_t k = 0; k < n; k++) {
        if (len - off < 4)
            return czk_err_set(err, CZK_EINVAL,
                               "request %s: payload ends at offset %zu inside vanilla proof %u's "
                               "length",
                               rid, off, k);
        size_t l = czk_bytes_load_le32(p + off);
        off += 4;
        if (l > len - off)
            return czk_err_set(err, CZK_EINVAL,
                               "request %s: vanilla proof %u at payload offset %zu says %zu "
                               "bytes, %zu remain",
                               rid, k, off, l, len - off);
        int rc = czk_snap_partition_proof_decode(&parts[k], shape, p + off, l, k, err);
        if (rc == CZK_OK)
            rc = czk_snap_partition_check(shape, pub, &parts[k], k, err);
        if (rc == CZK_OK)
            rc = czk_snap_public_inputs(inputs + 4 * (size_t)k, shape, pub, k, err);
        if (rc != CZK_OK) {
            err_prefix(err, "request %s: vanilla proof %u: ", rid, k);
            return rc;
        }
        off += l;
    }
    if (off != len)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: %zu trailing payload bytes after the last vanilla proof",
                           rid, len - off);
    return CZK_OK;
}

static int s_synthesize(void *state, void *job, size_t part, const czk_r1cs *r1cs, czk_fr *w,
                        czk_pool *pool, czk_err *err) {
    (void)pool;
    const fsnap *f = state;
    const fsnap_job *j = job;
    if (part >= j->n_parts)
        return czk_err_set(err, CZK_EINTERNAL, "circuit %s: partition %zu of %u", f->id, part,
                           j->n_parts);
    /* Values only, written straight into the engine's buffer in the recorded layout. */
    size_t ni = r1cs->n_public + 1, na = r1cs->n_vars - ni;
    czk_cs *cs = NULL;
    int rc = czk_cs_create(&cs, CZK_CS_WITNESS, 0, err);
    if (rc != CZK_OK)
        return rc;
    czk_fr_set_one(&w[0]);
    rc = czk_cs_bind_values(cs, w + 1, ni - 1, w + ni, na);
    if (rc == CZK_OK)
        rc = czk_snap_synthesize(cs, &f->shape, &j->pub, &j->parts[part], (uint32_t)part);
    if (rc != CZK_OK) {
        czk_err_set(err, rc, "circuit %s: partition %zu: synthesis: %s", f->id, part,
                    czk_cs_error(cs)->msg);
    } else {
        czk_cs_stats st;
        czk_cs_get_stats(cs, &st);
        if (st.n_inputs != ni || st.n_aux != na)
            rc = czk_err_set(err, CZK_EINTERNAL,
                             "circuit %s: partition %zu made %llu inputs and %llu aux, the "
                             "system has %zu and %zu",
                             f->id, part, (unsigned long long)st.n_inputs,
                             (unsigned long long)st.n_aux, ni, na);
    }
    czk_cs_destroy(cs);
    return rc;
}

static int s_public_inputs(void *state, void *job, size_t part, czk_fr *out, size_t n_public,
                           czk_err *err) {
    const fsnap *f = state;
    const fsnap_job *j = job;
    if (n_public != 4 || part >= j->n_parts)
        return czk_err_set(err, CZK_EINTERNAL,
                           "circuit %s: the key has %zu public inputs, the request gives 4", f->id,
                           n_public);
    memcpy(out, j->inputs + 4 * part, 4 * sizeof *out);
    return CZK_OK;
}

static void s_destroy(void *state) {
    fsnap *f = state;
    czk_r1cs_rep_clear(&f->rep);
    czk_free(f->dir);
    czk_free(f);
}

static const czk_circuit_kind filecoin_snap_kind = {
    .name = "filecoin-snap",
    .estimate = s_estimate,
    .key_path = s_key_path,
    .load = s_load,
    .unload = s_unload,
    .rep = s_rep,
    .job_create = s_job_create,
    .job_destroy = s_job_destroy,
    .synthesize = s_synthesize,
    .public_inputs = s_public_inputs,
    .destroy = s_destroy,
};

/* One partition's counts (czk_circuit_snap_count) of the five update circuits, so that
 * registering them costs nothing: counting takes 0.6 s at 2 KiB, 2.7 s at 8 MiB and 15 to 26 s
 * from 512 MiB on (2 cores), which every daemon start would pay. kinds_snap_stats_table and
 * kinds_snap_stats_table_large compare each row with a count. */
static const struct {
    uint64_t size;
    czk_cs_stats st; /* rows, inputs, aux, nnz A/B/C, densities a_aux, b_input, b_aux */
} SNAP_STATS[] = {
    {2048ull, {1705039, 5, 1703569, 4030887, 1706537, 3616648, 1697189, 1, 444403}},
    {8ull << 20, {10007503, 5, 9998039, 23284273, 10015181, 21302734, 9981015, 1, 2567921}},
    {512ull << 20, {57450479, 5, 57401314, 135362847, 57500527, 121971144, 57212317, 1, 14916879}},
    {32ull << 30, {81049499, 5, 80978488, 190374907, 81118127, 172187492, 80743581, 1, 20983607}},
    {64ull << 30, {85006101, 5, 84931220, 199699027, 85077653, 180585650, 84682725, 1, 22012683}},
};

int czk__kinds_snap_stats(czk_cs_stats *out, uint64_t sector_size) {
    for (size_t i = 0; i < sizeof SNAP_STATS / sizeof SNAP_STATS[0]; i++)
        if (SNAP_STATS[i].size == sector_size) {
            *out = SNAP_STATS[i].st;
            return 1;
        }
    return 0;
}

/* A partition's counts: the table's, else one COUNT pass. Load records the circuit and takes
 * its exact counts for the key's header check either way. */
static int snap_stats(czk_cs_stats *out, const czk_snap_shape *shape, czk_err *err) {
    if (czk__kinds_snap_stats(out, shape->sector_size))
        return CZK_OK;
    return czk_circuit_snap_count(out, NULL, shape, err);
}

int czk_kinds_register_filecoin_snap(czk_engine *e, uint64_t sector_size, const char *param_dir,
                                     const char *env_value, czk_err *err) {
    int si = czk_vanilla_size_index(sector_size);
    if (si < 0)
        return czk_err_set(err, CZK_EUNSUPPORTED, "SnapDeals: sector size %llu is not supported",
                           (unsigned long long)sector_size);
    fsnap *f = czk_calloc(1, sizeof *f);
    if (f == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    snprintf(f->id, sizeof f->id, "snap-%s", czk_vanilla_size_names[si]);
    int rc = czk_snap_shape_init(&f->shape, sector_size, err);
    if (rc == CZK_OK)
        rc = czk_params_id_get(&f->pid, CZK_PARAMS_SNAP, sector_size, err);
    if (rc == CZK_OK)
        rc = czk__kinds_filecoin_key_path(&f->dir, f->key_path, sizeof f->key_path, &f->pid,
                                          param_dir, env_value, f->id, err);
    if (rc == CZK_OK)
        rc = snap_stats(&f->stats, &f->shape, err);
    f->repeated = czk_snap_rows(&f->shape) > CZK_KINDS_POREP_COUNT_MAX_ROWS;
    if (rc != CZK_OK) {
        s_destroy(f);
        return rc;
    }
    return czk__engine_add_circuit(e, f->id, &filecoin_snap_kind, f, err);
}

int czk_kinds_register_filecoin_snaps(czk_engine *e, const char *param_dir, const char *env_value,
                                      czk_err *err) {
    for (size_t i = 0; i < N_UPDATE; i++) {
        int rc = czk_kinds_register_filecoin_snap(e, UPDATE_SIZES[i], param_dir, env_value, err);
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}
