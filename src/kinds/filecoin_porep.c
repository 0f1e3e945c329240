/*
 * The Filecoin PoRep C2 kind: the StackedDRG partition circuit (filecoin/porep/porep.h) proved from
 * a C1 output as Curio sends it (filecoin/io/c1.h), with the official v28 .params
 * (filecoin/io/params.h). One registered circuit per sector size; a job is one C2 proof, its
 * partitions the registered proof's (1 below 32 GiB, 10 at 32 and 64 GiB).
 *
 * At submit (job_create) the C1 output is parsed strictly and checked against the public data
 * (filecoin/porep/c1_check.h): replica id, challenges, graph parents, every path, label and
 * encoding. A C1 output for another sector, or one whose paths do not lead to its commitments,
 * is refused then, naming the fault, rather than after minutes of proving. The public inputs
 * the engine verifies against are derived from the public data alone.
 */
#include <stdio.h>
#include <string.h>

#include "engine/kind.h"
#include "filecoin/circuit.h"
#include "filecoin/io/c1.h"
#include "filecoin/io/params.h"
#include "filecoin/porep/c1_check.h"
#include "filecoin/porep/porep.h"
#include "filecoin/porep/porep_inputs.h"
#include "filecoin/spec/sector.h"
#include "kinds/filecoin_internal.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/bytes.h"

typedef struct fporep {
    czk__kinds_fc_base b; /* repeated above 2^24 rows (32/64 GiB: 25 GB of CPU scratch) */
    czk_porep_shape shape;
} fporep;

typedef struct fporep_job {
    czk__kinds_fc_job h; /* n_inputs per partition */
    czk_c1 c1;
} fporep_job;

size_t czk_kinds_porep_payload_encode(uint8_t *out, uint32_t registered_proof, uint32_t flags,
                                      uint64_t miner_id, uint64_t sector_number, const uint8_t *c1,
                                      size_t c1_len) {
    memcpy(out, "CZKR", 4);
    czk_bytes_store_le32(out + 4, CZK_POREP_PAYLOAD_VERSION);
    czk_bytes_store_le32(out + 8, registered_proof);
    czk_bytes_store_le32(out + 12, flags);
    czk_bytes_store_le64(out + 16, miner_id);
    czk_bytes_store_le64(out + 24, sector_number);
    if (c1_len != 0)
        memcpy(out + CZK_POREP_PAYLOAD_HEADER, c1, c1_len);
    return CZK_POREP_PAYLOAD_HEADER + c1_len;
}

int czk_kinds_porep_circuit_id(char *out, size_t cap, uint64_t registered_proof, czk_err *err) {
    const czk_porep_type *ty = czk_porep_type_from_abi(registered_proof, err);
    if (ty == NULL)
        return CZK_EUNSUPPORTED;
    /* Non-interactive PoRep: refused with the reason, before its vanilla proofs are read. */
    if (czk_porep_type_supported(ty, err) != CZK_OK)
        return CZK_EUNSUPPORTED;
    return czk__kinds_fc_circuit_id(out, cap, "porep", ty->sector_size, "registered seal proof",
                                    registered_proof, err);
}

/* ---- the kind's own parts ------------------------------------------------------------- */

static int p_record(const czk__kinds_fc_base *b, czk_r1cs *r1cs, czk_cs_stats *stats,
                    czk_pool *pool, czk_err *err) {
    return czk_circuit_porep_record(r1cs, stats, &((const fporep *)b)->shape, pool, err);
}

/* The global part as the head and one challenge as the block (r1cs/rep.h): 1.5 GB of rows at
 * 32 GiB instead of 26 GB, the copies expanded on the devices. */
static int p_record_rep(czk__kinds_fc_base *b, czk_cs_stats *stats, czk_pool *pool, czk_err *err) {
    return czk_circuit_porep_record_rep(&b->rep, stats, &((const fporep *)b)->shape, pool, err);
}

static void p_job_clear(void *job) {
    czk_c1_clear(&((fporep_job *)job)->c1);
}

static int p_job_create(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                        czk_err *err) {
    const fporep *f = state;
    const char *rid = req->request_id;
    int rc = czk__kinds_fc_job_begin(&f->b, req, job, "PoRep", "CZKR", CZK_POREP_PAYLOAD_VERSION,
                                     CZK_POREP_PAYLOAD_HEADER, err);
    if (rc != CZK_OK)
        return rc;
    const uint8_t *p = req->payload;
    size_t len = req->payload_len;
    uint32_t reg = czk_bytes_load_le32(p + 8), flags = czk_bytes_load_le32(p + 12);
    czk_porep_sector_ids ids;
    czk_vanilla_prover_id(ids.prover_id, czk_bytes_load_le64(p + 16));
    ids.sector_id = czk_bytes_load_le64(p + 24);
    fporep_job *j = czk_calloc(1, sizeof *j);
    if (j == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", rid);
    char what[96];
    snprintf(what, sizeof what, "request %s: vanilla_proof", rid);
    rc = czk_c1_parse(&j->c1, p + CZK_POREP_PAYLOAD_HEADER, len - CZK_POREP_PAYLOAD_HEADER, what,
                      err);
    if (rc == CZK_OK && j->c1.type->abi_id != reg)
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: registered_proof %u, but the C1 output is %s (%u)", rid, reg,
                         j->c1.type->name, j->c1.type->abi_id);
    if (rc == CZK_OK && j->c1.type->sector_size != f->shape.sector_size)
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: the C1 output is for %llu-byte sectors, not circuit %s", rid,
                         (unsigned long long)j->c1.type->sector_size, f->b.id);
    if (rc == CZK_OK && req->n_partitions > 1 && req->n_partitions != j->c1.n_partitions)
        rc = czk_err_set(err, CZK_EINVAL, "request %s: %zu partitions asked, %s has %u", rid,
                         req->n_partitions, j->c1.type->name, j->c1.n_partitions);
    if (rc == CZK_OK)
        rc = czk_porep_c1_check(&j->c1, (flags & CZK_POREP_PAYLOAD_IDS) ? &ids : NULL, what, err);
    if (rc == CZK_OK) {
        size_t ni = j->h.n_inputs = czk_porep_public_count(j->c1.type);
        j->h.n_parts = j->c1.n_partitions;
        j->h.inputs = czk_malloc(j->h.n_parts * ni * sizeof *j->h.inputs);
        if (j->h.inputs == NULL)
            rc = czk_err_set(err, CZK_ENOMEM, "request %s: cannot allocate public inputs", rid);
        for (uint32_t k = 0; rc == CZK_OK && k < j->c1.n_partitions; k++)
            rc = czk_porep_public_inputs(j->h.inputs + k * ni, ni, j->c1.type, j->c1.replica_id,
                                         j->c1.comm_d, j->c1.comm_r, j->c1.seed, k, err);
    }
    return czk__kinds_fc_job_end(&f->b, j, rc, rid, job, n_parts, err);
}

static int p_synthesize(void *state, void *job, size_t part, const czk_r1cs *r1cs, czk_fr *w,
                        czk_pool *pool, czk_err *err) {
    const fporep *f = state;
    const fporep_job *j = job;
    size_t ni = r1cs->n_public + 1;
    return czk_porep_witness(&f->shape, &j->c1, (uint32_t)part, w, ni, r1cs->n_vars - ni, pool,
                             err);
}

/* A partition's counts for the estimate, by COUNT. Up to 2^24 rows, one COUNT pass. The
 * 130 M-row partitions would take some 25 s each: their counts are the global part's plus C
 * times one challenge's (a COUNT of 7 M rows), which is exact but for the densities of the few
 * variables the challenges share (the replica id's bits, comm_d, comm_c, comm_r_last: at most
 * 260 of 130 M). Load records the circuit and takes the exact counts from it for the key's
 * header check. Registration takes the table below instead; tests compare the two. */
int czk__kinds_porep_count_stats(czk_cs_stats *out, const czk_porep_shape *shape, czk_err *err) {
    if (czk_circuit_porep_rows(shape) <= CZK_KINDS_POREP_COUNT_MAX_ROWS)
        return czk_circuit_porep_count(out, NULL, shape, err);
    czk_porep_shape s0 = *shape, s1 = *shape;
    s0.challenges = 0;
    s1.challenges = 1;
    czk_cs_stats g, one;
    int rc = czk_circuit_porep_count(&g, NULL, &s0, err);
    if (rc == CZK_OK)
        rc = czk_circuit_porep_count(&one, NULL, &s1, err);
    if (rc != CZK_OK)
        return rc;
    uint64_t c = shape->challenges;
    out->n_rows = g.n_rows + c * (one.n_rows - g.n_rows);
    out->n_inputs = g.n_inputs + c * (one.n_inputs - g.n_inputs);
    out->n_aux = g.n_aux + c * (one.n_aux - g.n_aux);
    out->nnz_a = g.nnz_a + c * (one.nnz_a - g.nnz_a);
    out->nnz_b = g.nnz_b + c * (one.nnz_b - g.nnz_b);
    out->nnz_c = g.nnz_c + c * (one.nnz_c - g.nnz_c);
    out->a_aux_density = g.a_aux_density + c * (one.a_aux_density - g.a_aux_density);
    out->b_input_density = one.b_input_density;
    out->b_aux_density = g.b_aux_density + c * (one.b_aux_density - g.b_aux_density);
    return CZK_OK;
}

/* czk__kinds_porep_count_stats of each registered size, so that registering costs nothing:
 * the five counts take 4 s of one core (2 KiB to 512 MiB count whole partitions of 2.7-4.4 M
 * rows), which every daemon start paid, and which on a loaded 2-core machine stretched the
 * start past a minute. kinds_porep_stats_table and kinds_porep_stats_table_large compare each
 * row with a count. */
static const czk__kinds_fc_stats_row POREP_STATS[] = {
    {2048ull, {2687921, 40, 2685673, 6420965, 2689006, 5824682, 2674908, 1, 685521}},
    {8ull << 20, {3844929, 40, 3842449, 9388413, 3847886, 8234882, 3814996, 1, 1011289}},
    {512ull << 20, {4423433, 40, 4420837, 10872137, 4427326, 9439982, 4385040, 1, 1174173}},
    {32ull << 30,
     {130278541, 328, 130169893, 309404723, 130327340, 282656500, 129753292, 1, 33112281}},
    {64ull << 30,
     {131185849, 328, 131076643, 311892197, 131235764, 284512534, 130637542, 1, 33386943}},
};

int czk__kinds_porep_stats(czk_cs_stats *out, uint64_t sector_size) {
    return czk__kinds_fc_stats_find(out, POREP_STATS, sizeof POREP_STATS / sizeof POREP_STATS[0],
                                    sector_size);
}

/* A partition's counts: the table's, else the COUNT passes. */
static int porep_stats(czk_cs_stats *out, const czk_porep_shape *shape, czk_err *err) {
    if (czk__kinds_porep_stats(out, shape->sector_size))
        return CZK_OK;
    return czk__kinds_porep_count_stats(out, shape, err);
}

/* The shape, a partition's counts and whether load keeps the repeated form (above
 * CZK_KINDS_POREP_COUNT_MAX_ROWS, or when `repeated`). */
static int porep_setup(czk__kinds_fc_base *b, uint64_t sector_size, int repeated, czk_err *err) {
    fporep *f = (fporep *)b;
    int rc = czk_porep_shape_init(&f->shape, sector_size, err);
    if (rc == CZK_OK)
        rc = porep_stats(&b->stats, &f->shape, err);
    b->repeated = repeated || czk_circuit_porep_rows(&f->shape) > CZK_KINDS_POREP_COUNT_MAX_ROWS;
    if (rc == CZK_OK && b->repeated) {
        /* What load keeps: the global part (counted: 571 rows) and one challenge, the rest of
         * the partition's counts over its challenges. */
        czk_porep_shape s0 = f->shape;
        czk_cs_stats g;
        s0.challenges = 0;
        if ((rc = czk_circuit_porep_count(&g, NULL, &s0, err)) == CZK_OK) {
            const uint64_t c = f->shape.challenges;
            const czk_cs_stats *w = &b->stats;
            b->rec = (czk_cs_stats){.n_rows = g.n_rows + (w->n_rows - g.n_rows) / c,
                                    .n_inputs = g.n_inputs + (w->n_inputs - g.n_inputs) / c,
                                    .n_aux = g.n_aux + (w->n_aux - g.n_aux) / c,
                                    .nnz_a = g.nnz_a + (w->nnz_a - g.nnz_a) / c,
                                    .nnz_b = g.nnz_b + (w->nnz_b - g.nnz_b) / c,
                                    .nnz_c = g.nnz_c + (w->nnz_c - g.nnz_c) / c};
        }
    }
    return rc;
}

static int p_setup(czk__kinds_fc_base *b, uint64_t sector_size, czk_err *err) {
    return porep_setup(b, sector_size, 0, err);
}

static const czk__kinds_fc_kind filecoin_porep = {
    .kind =
        CZK__KINDS_FC_TABLE("filecoin-porep", czk__kinds_fc_estimate, p_job_create, p_synthesize),
    .record = p_record,
    .record_rep = p_record_rep,
    .job_clear = p_job_clear,
    .size = sizeof(fporep),
    .what = "PoRep",
    .prefix = "porep",
    .params = CZK_PARAMS_POREP,
    .setup = p_setup,
};

int czk_kinds_register_filecoin_porep(czk_engine *e, uint64_t sector_size, const char *param_dir,
                                      const char *env_value, czk_err *err) {
    return czk__kinds_fc_register(e, &filecoin_porep, sector_size, param_dir, env_value, err);
}

int czk_kinds_register_filecoin_porep_flags(czk_engine *e, uint64_t sector_size,
                                            const char *param_dir, const char *env_value,
                                            unsigned flags, czk_err *err) {
    if ((flags & ~CZK_KINDS_POREP_REPEATED) != 0)
        return czk_err_set(err, CZK_EINVAL, "PoRep: unknown registration flags 0x%x", flags);
    int rc;
    czk__kinds_fc_base *b =
        czk__kinds_fc_new(&filecoin_porep, sizeof(fporep), "PoRep", "porep", sector_size, &rc, err);
    if (b == NULL)
        return rc;
    rc = porep_setup(b, sector_size, (flags & CZK_KINDS_POREP_REPEATED) != 0, err);
    if (rc == CZK_OK)
        rc = czk__kinds_fc_locate(b, CZK_PARAMS_POREP, sector_size, param_dir, env_value, err);
    return czk__kinds_fc_add(e, b, rc, err);
}

int czk_kinds_register_filecoin_poreps(czk_engine *e, const char *param_dir, const char *env_value,
                                       czk_err *err) {
    return czk__kinds_fc_register_all(e, &filecoin_porep, param_dir, env_value, err);
}
