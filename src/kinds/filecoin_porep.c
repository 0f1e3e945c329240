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

#define FC_PATH_MAX 4096

typedef struct fporep {
    czk_porep_shape shape;
    czk_params_id pid;
    char *dir;
    char key_path[FC_PATH_MAX];
    char id[64];
    czk_cs_stats stats; /* one partition's counts (estimated above 2^24 rows) */
    /* Above 2^24 rows (32/64 GiB) the recording is kept here as a repeated form of one copy
     * (r1cs/rep.h) while loaded, and the engine gets the sizes only: the rows then go to the
     * devices that take them (a GPU), and a partition reserves its witness, not the CPU
     * prover's 25 GB of scratch, which could never be used for it. */
    int repeated;
    czk_r1cs_rep rep;
} fporep;

typedef struct fporep_job {
    czk_c1 c1;
    size_t n_inputs;
    czk_fr *inputs; /* per partition, n_inputs each */
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
    int si = czk_vanilla_size_index(ty->sector_size);
    int n = si < 0 ? -1 : snprintf(out, cap, "porep-%s", czk_vanilla_size_names[si]);
    if (n < 0 || (size_t)n >= cap)
        return czk_err_set(err, CZK_EINVAL, "registered seal proof %llu: circuit id does not fit",
                           (unsigned long long)registered_proof);
    return CZK_OK;
}

/* ---- sizes and load ---------------------------------------------------------------------- */

static void p_estimate(const void *state, czk_kind_sizes *out) {
    const fporep *f = state;
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

static const char *p_key_path(const void *state) {
    return ((const fporep *)state)->key_path;
}

/* filecoin/circuit.h's recording of this kind's shape, as the shared load takes it. */
static int p_record(czk_r1cs *r1cs, czk_cs_stats *stats, const void *shape, czk_err *err) {
    return czk_circuit_porep_record(r1cs, stats, shape, err);
}

static int p_load(void *state, czk_groth16_pk *pk, czk_r1cs *cs, uint64_t *extra_bytes,
                  czk_pool *pool, czk_err *err) {
    fporep *f = state;
    return czk__kinds_filecoin_load_partition(pk, cs, &f->rep, extra_bytes, f->repeated, p_record,
                                              &f->shape, &f->pid, f->dir, f->id, pool, err);
}

static void p_unload(void *state) {
    czk_r1cs_rep_clear(&((fporep *)state)->rep);
}

static const czk_r1cs_rep *p_rep(const void *state) {
    const fporep *f = state;
    return f->rep.copies > 0 ? &f->rep : NULL;
}

/* ---- jobs -------------------------------------------------------------------------------- */

static void p_job_destroy(void *state, void *job) {
    (void)state;
    fporep_job *j = job;
    if (j == NULL)
        return;
    czk_c1_clear(&j->c1);
    czk_free(j->inputs);
    czk_free(j);
}

static int p_job_create(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                        czk_err *err) {
    const fporep *f = state;
    const char *rid = req->request_id;
    *job = NULL;
    if (req->wtns != NULL)
        return czk_err_set(err, CZK_EINVAL, "request %s: circuit %s takes no witness files", rid,
                           f->id);
    const uint8_t *p = req->payload;
    size_t len = req->payload_len;
    if (p == NULL || len < CZK_POREP_PAYLOAD_HEADER || memcmp(p, "CZKR", 4) != 0 ||
        czk_bytes_load_le32(p + 4) != CZK_POREP_PAYLOAD_VERSION)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s: not a PoRep payload (magic \"CZKR\", "
                           "version %d, %d-byte header)",
                           rid, f->id, CZK_POREP_PAYLOAD_VERSION, CZK_POREP_PAYLOAD_HEADER);
    uint32_t reg = czk_bytes_load_le32(p + 8), flags = czk_bytes_load_le32(p + 12);
    czk_porep_sector_ids ids;
    czk_vanilla_prover_id(ids.prover_id, czk_bytes_load_le64(p + 16));
    ids.sector_id = czk_bytes_load_le64(p + 24);
    fporep_job *j = czk_calloc(1, sizeof *j);
    if (j == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", rid);
    char what[96];
    snprintf(what, sizeof what, "request %s: vanilla_proof", rid);
    int rc = czk_c1_parse(&j->c1, p + CZK_POREP_PAYLOAD_HEADER, len - CZK_POREP_PAYLOAD_HEADER,
                          what, err);
    if (rc == CZK_OK && j->c1.type->abi_id != reg)
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: registered_proof %u, but the C1 output is %s (%u)", rid, reg,
                         j->c1.type->name, j->c1.type->abi_id);
    if (rc == CZK_OK && j->c1.type->sector_size != f->shape.sector_size)
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: the C1 output is for %llu-byte sectors, not circuit %s", rid,
                         (unsigned long long)j->c1.type->sector_size, f->id);
    if (rc == CZK_OK && req->n_partitions > 1 && req->n_partitions != j->c1.n_partitions)
        rc = czk_err_set(err, CZK_EINVAL, "request %s: %zu partitions asked, %s has %u", rid,
                         req->n_partitions, j->c1.type->name, j->c1.n_partitions);
    if (rc == CZK_OK)
        rc = czk_porep_c1_check(&j->c1, (flags & CZK_POREP_PAYLOAD_IDS) ? &ids : NULL, what, err);
    if (rc == CZK_OK) {
        j->n_inputs = czk_porep_public_count(j->c1.type);
        j->inputs = czk_malloc((size_t)j->c1.n_partitions * j->n_inputs * sizeof *j->inputs);
        if (j->inputs == NULL)
            rc = czk_err_set(err, CZK_ENOMEM, "request %s: cannot allocate public inputs", rid);
        for (uint32_t k = 0; rc == CZK_OK && k < j->c1.n_partitions; k++)
            rc = czk_porep_public_inputs(j->inputs + k * j->n_inputs, j->n_inputs, j->c1.type,
                                         j->c1.replica_id, j->c1.comm_d, j->c1.comm_r, j->c1.seed,
                                         k, err);
    }
    if (rc == CZK_OK) {
        char path[FC_PATH_MAX];
        rc = czk_params_find(path, sizeof path, &f->pid, CZK_PARAMS_EXT_PARAMS, f->dir, NULL, err);
    }
    if (rc != CZK_OK) {
        p_job_destroy(state, j);
        /* The request is at fault, whatever the lower layer called it. */
        if (rc != CZK_ENOMEM && err != NULL)
            err->code = CZK_EINVAL;
        return rc == CZK_ENOMEM ? rc : CZK_EINVAL;
    }
    *job = j;
    *n_parts = j->c1.n_partitions;
    return CZK_OK;
}

static int p_synthesize(void *state, void *job, size_t part, const czk_r1cs *r1cs, czk_fr *w,
                        czk_pool *pool, czk_err *err) {
    const fporep *f = state;
    const fporep_job *j = job;
    size_t ni = r1cs->n_public + 1;
    return czk_porep_witness(&f->shape, &j->c1, (uint32_t)part, w, ni, r1cs->n_vars - ni, pool,
                             err);
}

static int p_public_inputs(void *state, void *job, size_t part, czk_fr *out, size_t n_public,
                           czk_err *err) {
    const fporep *f = state;
    const fporep_job *j = job;
    if (n_public != j->n_inputs || part >= j->c1.n_partitions)
        return czk_err_set(err, CZK_EINTERNAL,
                           "circuit %s: the key has %zu public inputs, the request gives %zu",
                           f->id, n_public, j->n_inputs);
    memcpy(out, j->inputs + part * j->n_inputs, n_public * sizeof *out);
    return CZK_OK;
}

static void p_destroy(void *state) {
    fporep *f = state;
    czk_r1cs_rep_clear(&f->rep);
    czk_free(f->dir);
    czk_free(f);
}

static const czk_circuit_kind filecoin_porep_kind = {
    .name = "filecoin-porep",
    .estimate = p_estimate,
    .key_path = p_key_path,
    .load = p_load,
    .unload = p_unload,
    .rep = p_rep,
    .job_create = p_job_create,
    .job_destroy = p_job_destroy,
    .synthesize = p_synthesize,
    .public_inputs = p_public_inputs,
    .destroy = p_destroy,
};

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
static const struct {
    uint64_t size;
    czk_cs_stats st; /* rows, inputs, aux, nnz A/B/C, densities a_aux, b_input, b_aux */
} POREP_STATS[] = {
    {2048ull, {2687921, 40, 2685673, 6420965, 2689006, 5824682, 2674908, 1, 685521}},
    {8ull << 20, {3844929, 40, 3842449, 9388413, 3847886, 8234882, 3814996, 1, 1011289}},
    {512ull << 20, {4423433, 40, 4420837, 10872137, 4427326, 9439982, 4385040, 1, 1174173}},
    {32ull << 30,
     {130278541, 328, 130169893, 309404723, 130327340, 282656500, 129753292, 1, 33112281}},
    {64ull << 30,
     {131185849, 328, 131076643, 311892197, 131235764, 284512534, 130637542, 1, 33386943}},
};

int czk__kinds_porep_stats(czk_cs_stats *out, uint64_t sector_size) {
    for (size_t i = 0; i < sizeof POREP_STATS / sizeof POREP_STATS[0]; i++)
        if (POREP_STATS[i].size == sector_size) {
            *out = POREP_STATS[i].st;
            return 1;
        }
    return 0;
}

/* A partition's counts: the table's, else the COUNT passes. */
static int porep_stats(czk_cs_stats *out, const czk_porep_shape *shape, czk_err *err) {
    if (czk__kinds_porep_stats(out, shape->sector_size))
        return CZK_OK;
    return czk__kinds_porep_count_stats(out, shape, err);
}

int czk_kinds_register_filecoin_porep(czk_engine *e, uint64_t sector_size, const char *param_dir,
                                      const char *env_value, czk_err *err) {
    int si = czk_vanilla_size_index(sector_size);
    if (si < 0)
        return czk_err_set(err, CZK_EUNSUPPORTED, "PoRep: sector size %llu is not supported",
                           (unsigned long long)sector_size);
    fporep *f = czk_calloc(1, sizeof *f);
    if (f == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    snprintf(f->id, sizeof f->id, "porep-%s", czk_vanilla_size_names[si]);
    int rc = czk_porep_shape_init(&f->shape, sector_size, err);
    if (rc == CZK_OK)
        rc = czk_params_id_get(&f->pid, CZK_PARAMS_POREP, sector_size, err);
    if (rc == CZK_OK)
        rc = czk__kinds_filecoin_key_path(&f->dir, f->key_path, sizeof f->key_path, &f->pid,
                                          param_dir, env_value, f->id, err);
    if (rc == CZK_OK)
        rc = porep_stats(&f->stats, &f->shape, err);
    f->repeated = czk_circuit_porep_rows(&f->shape) > CZK_KINDS_POREP_COUNT_MAX_ROWS;
    if (rc != CZK_OK) {
        p_destroy(f);
        return rc;
    }
    return czk__engine_add_circuit(e, f->id, &filecoin_porep_kind, f, err);
}

int czk_kinds_register_filecoin_poreps(czk_engine *e, const char *param_dir, const char *env_value,
                                       czk_err *err) {
    for (int i = 0; i < CZK_VANILLA_N_SIZES; i++) {
        int rc =
            czk_kinds_register_filecoin_porep(e, czk_vanilla_sizes[i], param_dir, env_value, err);
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}
