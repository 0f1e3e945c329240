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
#include <string.h>

#include "engine/kind.h"
#include "filecoin/circuit.h"
#include "filecoin/io/params.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_vanilla.h"
#include "kinds/filecoin_internal.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/bytes.h"

/* go-state-types abi RegisteredUpdateProof: StackedDrg{2KiB, 8MiB, 512MiB, 32GiB, 64GiB}V1. */
static const uint64_t UPDATE_SIZES[] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30,
                                        64ull << 30};
#define N_UPDATE (sizeof(UPDATE_SIZES) / sizeof(UPDATE_SIZES[0]))

typedef struct fsnap {
    czk__kinds_fc_base b; /* repeated above 2^24 rows, as the PoRep kind is */
    czk_snap_shape shape;
} fsnap;

typedef struct fsnap_job {
    czk__kinds_fc_job h; /* 4 inputs per partition (ONE excluded) */
    czk_snap_public pub;
    czk_snap_partition_proof *parts; /* h.n_parts of them */
} fsnap_job;

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
    return czk__kinds_fc_circuit_id(out, cap, "snap", size, "registered update proof",
                                    registered_proof, err);
}

size_t czk_kinds_snap_payload_size(const size_t *lens, size_t n) {
    return czk__kinds_fc_frames_size(CZK_SNAP_PAYLOAD_HEADER, lens, n);
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
    return czk__kinds_fc_frames_encode(out, CZK_SNAP_PAYLOAD_HEADER, proofs, lens, n);
}

/* ---- the kind's own parts ------------------------------------------------------------- */

static int s_record(const czk__kinds_fc_base *b, czk_r1cs *r1cs, czk_cs_stats *stats,
                    czk_pool *pool, czk_err *err) {
    return czk_circuit_snap_record(r1cs, stats, &((const fsnap *)b)->shape, pool, err);
}

static void s_job_clear(void *job) {
    fsnap_job *j = job;
    for (size_t k = 0; j->parts != NULL && k < j->h.n_parts; k++)
        czk_snap_partition_proof_clear(&j->parts[k]);
    czk_free(j->parts);
}

static int s_job_create(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                        czk_err *err) {
    const fsnap *f = state;
    const char *rid = req->request_id;
    int rc = czk__kinds_fc_job_begin(&f->b, req, job, "SnapDeals", "CZKS", CZK_SNAP_PAYLOAD_VERSION,
                                     CZK_SNAP_PAYLOAD_HEADER, err);
    if (rc != CZK_OK)
        return rc;
    uint32_t reg = czk_bytes_load_le32(req->payload + 8);
    uint64_t size = 0;
    rc = czk_kinds_snap_sector_size(&size, reg, err);
    if (rc != CZK_OK || size != f->shape.sector_size)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: registered_proof %u is not the update proof of circuit %s",
                           rid, reg, f->b.id);
    uint32_t parts = f->shape.partitions;
    if (req->n_partitions > 1 && req->n_partitions != parts)
        return czk_err_set(err, CZK_EINVAL, "request %s: %zu partitions asked, circuit %s has %u",
                           rid, req->n_partitions, f->b.id, parts);
    fsnap_job *j = czk_calloc(1, sizeof *j);
    if (j != NULL) {
        j->parts = czk_calloc(parts, sizeof *j->parts);
        j->h.inputs = czk_malloc((size_t)parts * 4 * sizeof *j->h.inputs);
    }
    if (j == NULL || j->parts == NULL || j->h.inputs == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", rid);
    } else {
        j->h.n_parts = parts;
        j->h.n_inputs = 4;
        rc = czk__kinds_snap_job_check(&j->pub, j->parts, j->h.inputs, &f->shape, req->payload,
                                       req->payload_len, rid, err);
    }
    return czk__kinds_fc_job_end(&f->b, j, rc, rid, job, n_parts, err);
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
        size_t l = 0;
        int rc = czk__kinds_fc_frame(p, len, &off, &l, k, rid, err);
        if (rc != CZK_OK)
            return rc;
        rc = czk_snap_partition_proof_decode(&parts[k], shape, p + off, l, k, err);
        if (rc == CZK_OK)
            rc = czk_snap_partition_check(shape, pub, &parts[k], k, err);
        if (rc == CZK_OK)
            rc = czk_snap_public_inputs(inputs + 4 * (size_t)k, shape, pub, k, err);
        if (rc != CZK_OK) {
            czk__kinds_err_prefix(err, "request %s: vanilla proof %u: ", rid, k);
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
    if (part >= j->h.n_parts)
        return czk_err_set(err, CZK_EINTERNAL, "circuit %s: partition %zu of %zu", f->b.id, part,
                           j->h.n_parts);
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
        czk_err_set(err, rc, "circuit %s: partition %zu: synthesis: %s", f->b.id, part,
                    czk_cs_error(cs)->msg);
    } else {
        czk_cs_stats st;
        czk_cs_get_stats(cs, &st);
        if (st.n_inputs != ni || st.n_aux != na)
            rc = czk_err_set(err, CZK_EINTERNAL,
                             "circuit %s: partition %zu made %llu inputs and %llu aux, the "
                             "system has %zu and %zu",
                             f->b.id, part, (unsigned long long)st.n_inputs,
                             (unsigned long long)st.n_aux, ni, na);
    }
    czk_cs_destroy(cs);
    return rc;
}

/* One partition's counts (czk_circuit_snap_count) of the five update circuits, so that
 * registering them costs nothing: counting takes 0.6 s at 2 KiB, 2.7 s at 8 MiB and 15 to 26 s
 * from 512 MiB on (2 cores), which every daemon start would pay. kinds_snap_stats_table and
 * kinds_snap_stats_table_large compare each row with a count. */
static const czk__kinds_fc_stats_row SNAP_STATS[] = {
    {2048ull, {1705039, 5, 1703569, 4030887, 1706537, 3616648, 1697189, 1, 444403}},
    {8ull << 20, {10007503, 5, 9998039, 23284273, 10015181, 21302734, 9981015, 1, 2567921}},
    {512ull << 20, {57450479, 5, 57401314, 135362847, 57500527, 121971144, 57212317, 1, 14916879}},
    {32ull << 30, {81049499, 5, 80978488, 190374907, 81118127, 172187492, 80743581, 1, 20983607}},
    {64ull << 30, {85006101, 5, 84931220, 199699027, 85077653, 180585650, 84682725, 1, 22012683}},
};

int czk__kinds_snap_stats(czk_cs_stats *out, uint64_t sector_size) {
    return czk__kinds_fc_stats_find(out, SNAP_STATS, sizeof SNAP_STATS / sizeof SNAP_STATS[0],
                                    sector_size);
}

/* A partition's counts: the table's, else one COUNT pass. Load records the circuit and takes
 * its exact counts for the key's header check either way. */
static int snap_stats(czk_cs_stats *out, const czk_snap_shape *shape, czk_err *err) {
    if (czk__kinds_snap_stats(out, shape->sector_size))
        return CZK_OK;
    return czk_circuit_snap_count(out, NULL, shape, err);
}

/* The shape, a partition's counts and whether load keeps the repeated form. */
static int s_setup(czk__kinds_fc_base *b, uint64_t sector_size, czk_err *err) {
    fsnap *f = (fsnap *)b;
    int rc = czk_snap_shape_init(&f->shape, sector_size, err);
    if (rc == CZK_OK)
        rc = snap_stats(&b->stats, &f->shape, err);
    b->repeated = czk_snap_rows(&f->shape) > CZK_KINDS_POREP_COUNT_MAX_ROWS;
    return rc;
}

static const czk__kinds_fc_kind filecoin_snap = {
    .kind =
        CZK__KINDS_FC_TABLE("filecoin-snap", czk__kinds_fc_estimate, s_job_create, s_synthesize),
    .record = s_record,
    .job_clear = s_job_clear,
    .size = sizeof(fsnap),
    .what = "SnapDeals",
    .prefix = "snap",
    .params = CZK_PARAMS_SNAP,
    .setup = s_setup,
};

int czk_kinds_register_filecoin_snap(czk_engine *e, uint64_t sector_size, const char *param_dir,
                                     const char *env_value, czk_err *err) {
    return czk__kinds_fc_register(e, &filecoin_snap, sector_size, param_dir, env_value, err);
}

int czk_kinds_register_filecoin_snaps(czk_engine *e, const char *param_dir, const char *env_value,
                                      czk_err *err) {
    return czk__kinds_fc_register_all(e, &filecoin_snap, param_dir, env_value, err);
}
