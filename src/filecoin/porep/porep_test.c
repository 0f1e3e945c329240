/* Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04). */
#include "filecoin/circuit.h"
#include "filecoin/porep/c1_check.h"
#include "filecoin/porep/porep.h"
#include "filecoin/porep/porep_inputs.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/testgen/harness.h"
#include "filecoin/testgen/seal.h"
#include "r1cs/r1cs.h"
#include "tests/test.h"
#include "util/alloc.h"

#include <stdio.h>
#include <string.h>

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define GIB (1ull << 30)

/* doc/FILECOIN.md §12's table: rows (input rows excluded), inputs (ONE included), aux, nnz and
 * densities of one partition, as cuzk measured them for 32 GiB from the Rust synthesis. */
typedef struct porep_row {
    uint64_t size;
    uint64_t rows, inputs, aux, nnz_a, nnz_b, nnz_c, a_aux, b_input, b_aux;
} porep_row;

static const porep_row porep_table[] = {
    {2 * KIB, 2687921, 40, 2685673, 6421005, 2689006, 5824682, 2674908, 1, 685521},
    {8 * MIB, 3844929, 40, 3842449, 9388453, 3847886, 8234882, 3814996, 1, 1011289},
    {512 * MIB, 4423433, 40, 4420837, 10872177, 4427326, 9439982, 4385040, 1, 1174173},
    {32 * GIB, 130278541, 328, 130169893, 309405051, 130327340, 282656500, 129753292, 1, 33112281},
    {64 * GIB, 131185849, 328, 131076643, 311892525, 131235764, 284512534, 130637542, 1, 33386943},
};

/* The table's nnz of A counts the prover's input rows (one entry each); COUNT's does not. */
static void check_porep_counts(czk_test_ctx *t, const porep_row *x, uint8_t digest[32]) {
    czk_porep_shape shape;
    czk_err e = {0};
    CHECK_EQ_INT(czk_porep_shape_init(&shape, x->size, &e), CZK_OK);
    czk_cs_stats st;
    CHECKF(czk_circuit_porep_count(&st, digest, &shape, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(st.n_rows, x->rows);
    CHECK_EQ_INT(czk_circuit_porep_rows(&shape), x->rows);
    CHECK_EQ_INT(st.n_inputs, x->inputs);
    CHECK_EQ_INT(st.n_inputs, czk_porep_n_inputs(&shape));
    CHECK_EQ_INT(st.n_aux, x->aux);
    CHECK_EQ_INT(st.nnz_a + st.n_inputs, x->nnz_a);
    CHECK_EQ_INT(st.nnz_b, x->nnz_b);
    CHECK_EQ_INT(st.nnz_c, x->nnz_c);
    CHECK_EQ_INT(st.a_aux_density, x->a_aux);
    CHECK_EQ_INT(st.b_input_density, x->b_input);
    CHECK_EQ_INT(st.b_aux_density, x->b_aux);
}

/* 2 KiB: counts, and the digest of the independent replay (doc/FILECOIN.md §12), the same from
 * the recorded matrices. */
CZK_TEST(porep_counts_digest_2k) {
    uint8_t d[32], want[32], dr[32];
    check_porep_counts(t, &porep_table[0], d);
    CHECK(
        czk_test_hex(want, 32, "16f31e3127e4e1c34e79d246ee05e6888d71e431db5ddcf0c903c586562872b5"));
    char got[65];
    for (int i = 0; i < 32; i++)
        snprintf(got + 2 * i, 3, "%02x", d[i]);
    CHECKF(memcmp(d, want, 32) == 0, "digest %s", got);
    czk_porep_shape shape;
    CHECK_EQ_INT(czk_porep_shape_init(&shape, 2 * KIB, NULL), CZK_OK);
    czk_r1cs r;
    czk_err e = {0};
    CHECKF(czk_circuit_porep_record(&r, NULL, &shape, NULL, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(r.n_constraints, porep_table[0].rows);
    CHECK_EQ_INT(czk_cs_r1cs_digest(&r, dr, NULL), CZK_OK);
    czk_r1cs_clear(&r);
    CHECK_MEM(dr, d, 32);
}

/* The challenges recorded over a pool (czk_porep_record), and inline, give the rows and counts
 * that one system recording the whole partition in order gives (the reference here is
 * czk_porep_synthesize into a plain RECORD system). */
CZK_TEST(porep_record_parallel) {
    czk_porep_shape shape;
    CHECK_EQ_INT(czk_porep_shape_init(&shape, 2 * KIB, NULL), CZK_OK);
    CHECK(shape.challenges >= 2);
    czk_cs *cs = NULL;
    czk_r1cs ref, par;
    czk_cs_stats ref_st, par_st;
    czk_err e = {0};
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_RECORD, 0, &e), CZK_OK);
    CHECK_EQ_INT(czk_porep_synthesize(cs, &shape, NULL, 0), CZK_OK);
    czk_cs_get_stats(cs, &ref_st);
    CHECK_EQ_INT(czk_cs_finish_r1cs(cs, &ref, &e), CZK_OK);
    czk_cs_destroy(cs);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 3), CZK_OK);
    for (int use_pool = 0; use_pool < 2; use_pool++) {
        memset(&par_st, 0xa5, sizeof par_st);
        CHECKF(czk_porep_record(&par, &par_st, &shape, use_pool ? pool : NULL, &e) == CZK_OK, "%s",
               e.msg);
        CHECKF(czk_r1cs_same(&ref, &par), "pool %d: the rows differ", use_pool);
        CHECKF(memcmp(&ref_st, &par_st, sizeof ref_st) == 0,
               "pool %d: counts differ (rows %llu/%llu, a density %llu/%llu, b inputs %llu/%llu, "
               "b aux %llu/%llu)",
               use_pool, (unsigned long long)ref_st.n_rows, (unsigned long long)par_st.n_rows,
               (unsigned long long)ref_st.a_aux_density, (unsigned long long)par_st.a_aux_density,
               (unsigned long long)ref_st.b_input_density,
               (unsigned long long)par_st.b_input_density, (unsigned long long)ref_st.b_aux_density,
               (unsigned long long)par_st.b_aux_density);
        czk_r1cs_clear(&par);
    }
    /* The repeated form (the global part as the head, challenge 0 as the block) expands to
     * the same rows and counts (over the pool: inline it records the same parts in turn). */
    {
        czk_r1cs_rep rep;
        memset(&par_st, 0xa5, sizeof par_st);
        CHECKF(czk_porep_record_rep(&rep, &par_st, &shape, pool, &e) == CZK_OK, "%s", e.msg);
        CHECK_EQ_INT(rep.copies, shape.challenges);
        CHECK(rep.head.n_constraints > 0 && rep.head.n_public == 3);
        CHECK_EQ_INT(czk_r1cs_rep_expand(&rep, &par, pool, &e), CZK_OK);
        CHECKF(czk_r1cs_same(&ref, &par), "rep: the rows differ");
        CHECKF(memcmp(&ref_st, &par_st, sizeof ref_st) == 0, "rep: counts differ");
        czk_r1cs_clear(&par);
        czk_r1cs_rep_clear(&rep);
    }
    czk_pool_destroy(pool);
    czk_r1cs_clear(&ref);
}

CZK_TEST(porep_counts_8m_512m) {
    check_porep_counts(t, &porep_table[1], NULL);
    check_porep_counts(t, &porep_table[2], NULL);
}

/* The 130 M-row partitions in COUNT mode: bitmaps only, no matrices. Slow. */
CZK_TEST(porep_counts_32g) {
    if (!czk_test_skip_heavy("porep_counts_32g"))
        check_porep_counts(t, &porep_table[3], NULL);
}
CZK_TEST(porep_counts_64g) {
    if (!czk_test_skip_heavy("porep_counts_64g"))
        check_porep_counts(t, &porep_table[4], NULL);
}

/* The registered seal proofs: every abi id has its name, size and counts; unknown ones are
 * refused; the interactive challenges lie in [1, nodes). */
CZK_TEST(porep_types_table) {
    static const char *const suffix[4] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                          "V1_2_Feat_NonInteractivePoRep"};
    static const char *const size[5] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
    for (uint32_t id = 0; id < CZK_POREP_N_TYPES; id++) {
        const czk_porep_type *ty = czk_porep_type_from_abi(id, NULL);
        CHECK(ty != NULL && ty->abi_id == id);
        char name[64];
        snprintf(name, sizeof(name), "StackedDrg%s%s", size[id % 5], suffix[id / 5]);
        CHECKF(strcmp(ty->name, name) == 0, "%u: %s", id, ty->name);
        CHECK(czk_porep_type_from_name(name, NULL) == ty);
        CHECK_EQ_INT(ty->nodes * 32, ty->sector_size);
        CHECK_EQ_INT(1ull << ty->comm_d_levels, ty->nodes);
        CHECK_EQ_INT(ty->partitions * ty->challenges >=
                         (id >= 15 ? (id % 5 >= 3 ? 2253u : 26u) : (id % 5 >= 3 ? 176u : 2u)),
                     1);
        /* Synthetic and NI types are API 1.2 (filecoin-proofs-api registry.rs version()), and
         * every type's porep_id is its own abi id, so a synthetic sector's graph and replica id
         * are not its V1_1 twin's. */
        CHECK_EQ_INT(ty->api, id < 5    ? CZK_VANILLA_API_V1_0
                              : id < 10 ? CZK_VANILLA_API_V1_1
                                        : CZK_VANILLA_API_V1_2);
        CHECK_EQ_INT(ty->variant, id < 10   ? CZK_POREP_INTERACTIVE
                                  : id < 15 ? CZK_POREP_SYNTHETIC
                                            : CZK_POREP_NI);
        uint8_t pid[32], want_pid[32] = {(uint8_t)id};
        czk_porep_id(pid, ty);
        CHECK_MEM(pid, want_pid, 32);
    }
    czk_err e = {0};
    CHECK(czk_porep_type_from_abi(20, &e) == NULL && e.code == CZK_EUNSUPPORTED);
    CHECK(czk_porep_type_from_name("StackedDrg4KiBV1", NULL) == NULL);
    const czk_porep_type *ty = czk_porep_type_for_size(32 * GIB, NULL);
    CHECK(ty != NULL && ty->abi_id == 8);
    uint8_t rid[32], seed[32];
    for (int i = 0; i < 32; i++) {
        rid[i] = (uint8_t)(i * 7);
        seed[i] = (uint8_t)(255 - i);
    }
    rid[31] &= 0x3f;
    uint64_t ch[18];
    for (uint32_t k = 0; k < 10; k++) {
        CHECK_EQ_INT(czk_porep_interactive_challenges(ch, ty, rid, seed, k, NULL), CZK_OK);
        for (int i = 0; i < 18; i++)
            CHECK(ch[i] >= 1 && ch[i] < ty->nodes);
    }
    CHECK_EQ_INT(czk_porep_interactive_challenges(ch, ty, rid, seed, 10, NULL), CZK_EINVAL);
    /* Python's hashlib and integers, independently: challenges 0 and 179 of the proof. */
    CHECK_EQ_INT(czk_porep_interactive_challenges(ch, ty, rid, seed, 0, NULL), CZK_OK);
    CHECK_EQ_INT(ch[0], 131697133);
    CHECK_EQ_INT(czk_porep_interactive_challenges(ch, ty, rid, seed, 9, NULL), CZK_OK);
    CHECK_EQ_INT(ch[17], 793428739);
    /* replica_id of miner 10000 (prover id LEB128 90 4e), sector 42, ticket 1^32, comm_d
     * 2^32, 32 GiB V1_1: Python again. */
    uint8_t pid[32] = {0x90, 0x4e}, ticket[32], comm_d[32], porep_id[32], got[32], want[32];
    memset(ticket, 1, 32);
    memset(comm_d, 2, 32);
    czk_porep_id(porep_id, ty);
    CHECK_EQ_INT(czk_porep_replica_id(got, pid, 42, ticket, comm_d, porep_id, NULL), CZK_OK);
    CHECK(
        czk_test_hex(want, 32, "73a4ada5aeb2d6ac3ca007ac75234e98d49b9995770d3d56022fc1e4e9858f08"));
    CHECK_MEM(got, want, 32);
}

/* ---- satisfiability on sealed and virtual sectors --------------------------------------- */

/* A sealed 2 KiB sector of registered proof `abi` (V1_1 or synthetic) of random data, miner
 * 1000, sector 7. Returns the status. */
static int seal_2k_abi(czk_test_ctx *t, uint64_t abi, czk_c1 *c1, czk_porep_sector_ids *ids,
                       czk_err *e) {
    czk_vanilla_prover_id(ids->prover_id, 1000);
    ids->sector_id = 7;
    return czk_harness_seal_2k(t, abi, c1, ids, e);
}

/* A sealed 2 KiB V1_1 sector (seal_2k_abi) and the 2 KiB circuit shape. */
static int sealed_2k_shape(czk_test_ctx *t, czk_c1 *c1, czk_porep_shape *shape, czk_err *e) {
    czk_porep_sector_ids ids;
    int rc = seal_2k_abi(t, 5, c1, &ids, e);
    return rc == CZK_OK ? czk_porep_shape_init(shape, 2 * KIB, e) : rc;
}

/* A virtual C1 output (czk_seal_virtual) of registered proof `abi` for miner `miner`'s sector
 * `sector`, with a random ticket and seed; *ids (if not NULL) gets the sector's ids. */
static int seal_virtual_abi(czk_test_ctx *t, uint64_t abi, uint64_t miner, uint64_t sector,
                            czk_c1 *c1, czk_porep_sector_ids *ids, czk_err *e) {
    czk_porep_sector_ids own;
    if (ids == NULL)
        ids = &own;
    uint8_t ticket[32], seed[32];
    czk_vanilla_prover_id(ids->prover_id, miner);
    ids->sector_id = sector;
    czk_rng_bytes(&t->rng, ticket, 32);
    czk_rng_bytes(&t->rng, seed, 32);
    const czk_porep_type *ty = czk_porep_type_from_abi(abi, e);
    if (ty == NULL)
        return CZK_EINVAL;
    return czk_seal_virtual(c1, ty, ids->prover_id, sector, ticket, seed, &t->rng, e);
}

/* Synthesises partition k of c1 in COUNT mode with CHECK; returns the status, *bad_row the
 * failing row (SIZE_MAX when none). */
static int check_partition(const czk_c1 *c1, uint32_t k, size_t *bad_row, czk_err *e) {
    czk_porep_shape shape;
    int rc = czk_porep_shape_init(&shape, c1->type->sector_size, e);
    if (rc != CZK_OK)
        return rc;
    czk_cs *cs;
    if ((rc = czk_cs_create(&cs, CZK_CS_COUNT, CZK_CS_CHECK, e)) != CZK_OK)
        return rc;
    rc = czk_porep_synthesize(cs, &shape, c1, k);
    *bad_row = czk_cs_bad_row(cs);
    if (rc != CZK_OK)
        *e = *czk_cs_error(cs);
    czk_cs_destroy(cs);
    return rc;
}

/*
 * The whole 2 KiB path short of proving: a sealed sector's C1 output passes the checks, its
 * witness satisfies every row, the fast witness (czk_porep_witness) equals the row-checked
 * one and its public values are the ones derived from the public data alone.
 */
static void check_2k_satisfied(czk_test_ctx *t, uint64_t abi) {
    czk_c1 c1 = {0};
    czk_porep_sector_ids ids;
    czk_err e = {0};
    CHECKF(seal_2k_abi(t, abi, &c1, &ids, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_porep_c1_check(&c1, &ids, "sealed", &e) == CZK_OK, "%s", e.msg);
    size_t bad;
    CHECKF(check_partition(&c1, 0, &bad, &e) == CZK_OK, "row %zu: %s", bad, e.msg);

    czk_porep_shape shape;
    CHECK_EQ_INT(czk_porep_shape_init(&shape, 2 * KIB, NULL), CZK_OK);
    size_t ni = czk_porep_n_inputs(&shape), na = porep_table[0].aux;
    czk_fr *w = czk_malloc((ni + na) * sizeof *w);
    CHECK(w != NULL);
    CHECKF(czk_porep_witness(&shape, &c1, 0, w, ni, na, NULL, &e) == CZK_OK, "%s", e.msg);
    /* The recorded system is satisfied by it. */
    czk_r1cs r;
    CHECKF(czk_circuit_porep_record(&r, NULL, &shape, NULL, &e) == CZK_OK, "%s", e.msg);
    size_t row = SIZE_MAX;
    CHECKF(czk_r1cs_check(&r, w, &row, NULL, &e) == CZK_OK, "row %zu: %s", row, e.msg);
    czk_r1cs_clear(&r);
    /* Public inputs from the public data equal the witness's. */
    czk_fr pub[39];
    CHECKF(czk_porep_public_inputs(pub, 39, c1.type, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed,
                                   0, &e) == CZK_OK,
           "%s", e.msg);
    for (size_t i = 0; i < 39; i++)
        CHECKF(czk_fr_equal(&pub[i], &w[1 + i]), "public input %zu", i);
    /* A witness of the wrong layout is refused. */
    CHECK_EQ_INT(czk_porep_witness(&shape, &c1, 0, w, ni, na - 1, NULL, NULL), CZK_EINVAL);
    czk_free(w);
    czk_c1_clear(&c1);
}

CZK_TEST(porep_2k_sealed_satisfied) {
    check_2k_satisfied(t, 5);
}

/* The same for StackedDrg2KiBV1_1_Feat_SyntheticPoRep: the circuit is V1_1's, the challenges are
 * the synthetic ones the seed selects, and the public inputs derived from the public data
 * (comm_r included) are the witness's. */
CZK_TEST(porep_2k_synthetic_satisfied) {
    check_2k_satisfied(t, 10);
}

/* Tampering: each fault is refused by the C1 check, naming it, and (where it reaches the
 * circuit) fails a row too. A proof against tampered public inputs is porep_prove_2k's. */
CZK_TEST(porep_2k_tampered_refused) {
    czk_c1 c1 = {0};
    czk_porep_sector_ids ids;
    czk_err e = {0};
    CHECKF(seal_2k_abi(t, 5, &c1, &ids, &e) == CZK_OK, "%s", e.msg);
    size_t bad;
    czk_c1_proof *p = czk_c1_at(&c1, 0, 1);
    /* A label of the challenged column. */
    czk_fr keep = p->c_x.rows[0], one;
    czk_fr_set_one(&one);
    czk_fr_add(&p->c_x.rows[0], &keep, &one);
    CHECK_EQ_INT(czk_porep_c1_check(&c1, &ids, "tampered", &e), CZK_EVERIFY);
    CHECKF(strstr(e.msg, "challenge 1") != NULL, "%s", e.msg);
    /* The circuit recomputes the labels from the parents and never reads these rows: only
     * the check catches this one, which is why it runs before any proving. */
    CHECK_EQ_INT(check_partition(&c1, 0, &bad, &e), CZK_OK);
    p->c_x.rows[0] = keep;
    /* A parent's row: its column no longer hashes to its leaf. */
    keep = p->drg_parents[2].rows[1];
    czk_fr_add(&p->drg_parents[2].rows[1], &keep, &one);
    CHECK_EQ_INT(czk_porep_c1_check(&c1, &ids, "tampered", &e), CZK_EVERIFY);
    CHECKF(strstr(e.msg, "DRG parent 2") != NULL, "%s", e.msg);
    CHECK_EQ_INT(check_partition(&c1, 0, &bad, &e), CZK_EVERIFY);
    p->drg_parents[2].rows[1] = keep;
    /* The data leaf. */
    keep = p->comm_d_proof.leaf;
    czk_fr_add(&p->comm_d_proof.leaf, &keep, &one);
    CHECK_EQ_INT(czk_porep_c1_check(&c1, &ids, "tampered", &e), CZK_EVERIFY);
    CHECK_EQ_INT(check_partition(&c1, 0, &bad, &e), CZK_EVERIFY);
    p->comm_d_proof.leaf = keep;
    /* Another sector's ids: the replica id differs. */
    czk_porep_sector_ids other = ids;
    other.sector_id++;
    CHECK_EQ_INT(czk_porep_c1_check(&c1, &other, "other", &e), CZK_EVERIFY);
    CHECKF(strstr(e.msg, "replica id") != NULL, "%s", e.msg);
    /* Another seed: the challenges differ. */
    c1.seed[0] ^= 1;
    CHECK_EQ_INT(czk_porep_c1_check(&c1, &ids, "seed", &e), CZK_EVERIFY);
    c1.seed[0] ^= 1;
    /* Restored, everything passes again (the faults above were each the only one). */
    CHECKF(czk_porep_c1_check(&c1, &ids, "restored", &e) == CZK_OK, "%s", e.msg);
    CHECKF(check_partition(&c1, 0, &bad, &e) == CZK_OK, "row %zu: %s", bad, e.msg);
    czk_c1_clear(&c1);
}

/* A virtual 32 GiB C1 output (sparse trees, real graph): it passes the checks, and its first
 * challenge with the global part satisfies the circuit's rows (a one-challenge circuit: the
 * full partition is 18 such challenges, 130 M rows, which porep_virtual_32g_partition runs). */
CZK_TEST(porep_virtual_32g_one_challenge) {
    czk_c1 c1 = {0};
    czk_err e = {0};
    czk_porep_sector_ids ids;
    CHECKF(seal_virtual_abi(t, 8, 1234, 99, &c1, &ids, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_porep_c1_check(&c1, &ids, "virtual", &e) == CZK_OK, "%s", e.msg);
    czk_porep_shape shape;
    CHECK_EQ_INT(czk_porep_shape_init(&shape, 32 * GIB, NULL), CZK_OK);
    shape.challenges = 1;
    /* The one-challenge circuit takes the partition's first challenge; c1 says 18. */
    uint32_t n = c1.n_challenges;
    c1.n_challenges = 1;
    czk_cs *cs;
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_COUNT, CZK_CS_CHECK, NULL), CZK_OK);
    int rc = czk_porep_synthesize(cs, &shape, &c1, 0);
    CHECKF(rc == CZK_OK, "row %zu: %s", czk_cs_bad_row(cs), czk_cs_error(cs)->msg);
    czk_cs_destroy(cs);
    c1.n_challenges = n;
    czk_c1_clear(&c1);
}

/* The whole 32 GiB partition (18 challenges, 130 M rows) of a virtual C1 output, every row
 * evaluated (COUNT with CHECK: values and bitmaps, no matrices; some 5 GB). Heavy. */
CZK_TEST(porep_virtual_32g_partition_satisfied) {
    if (czk_test_skip_heavy("porep_virtual_32g_partition_satisfied"))
        return;
    czk_c1 c1 = {0};
    czk_err e = {0};
    CHECKF(seal_virtual_abi(t, 8, 4321, 5, &c1, NULL, &e) == CZK_OK, "%s", e.msg);
    size_t bad = SIZE_MAX;
    CHECKF(check_partition(&c1, 9, &bad, &e) == CZK_OK, "row %zu: %s", bad, e.msg);
    czk_c1_clear(&c1);
}

/* ---- the witness over a pool ------------------------------------------------------------ */

/* The global part's counts (inputs with ONE, aux) of `shape`: a circuit of no challenges. */
static int porep_global_counts(const czk_porep_shape *shape, size_t *g_in, size_t *g_aux) {
    czk_porep_shape s0 = *shape;
    s0.challenges = 0;
    czk_cs *cs = NULL;
    int rc = czk_cs_create(&cs, CZK_CS_COUNT, 0, NULL);
    if (rc == CZK_OK)
        rc = czk_porep_synthesize(cs, &s0, NULL, 0);
    if (rc == CZK_OK) {
        czk_cs_stats st;
        czk_cs_get_stats(cs, &st);
        *g_in = (size_t)st.n_inputs;
        *g_aux = (size_t)st.n_aux;
    }
    czk_cs_destroy(cs);
    return rc;
}

/* A byte pattern no witness value has (its limbs are above r), so that a value left unwritten
 * cannot pass for a written one. */
#define UNWRITTEN 0xa5

/*
 * Partition 0's witness of c1 over pools of 1, 2, 3 and 5 ways (NULL-terminated `ways` of
 * them) is the sequential one (pool NULL), byte for byte, for a layout of na aux.
 */
static void check_pooled_witness(czk_test_ctx *t, const czk_porep_shape *shape, const czk_c1 *c1,
                                 size_t na) {
    static const unsigned ways[] = {1, 2, 3, 5};
    const size_t ni = czk_porep_n_inputs(shape), n = ni + na;
    czk_err e = {0};
    czk_fr *want = czk_malloc(n * sizeof(czk_fr)), *got = czk_malloc(n * sizeof(czk_fr));
    CHECK(want != NULL && got != NULL);
    CHECKF(czk_porep_witness(shape, c1, 0, want, ni, na, NULL, &e) == CZK_OK, "%s", e.msg);
    for (size_t k = 0; k < sizeof ways / sizeof ways[0] && t->failures == 0; k++) {
        czk_pool *pool = NULL;
        CHECK_EQ_INT(czk_pool_create(&pool, ways[k]), CZK_OK);
        memset(got, UNWRITTEN, n * sizeof(czk_fr));
        int rc = czk_porep_witness(shape, c1, 0, got, ni, na, pool, &e);
        czk_pool_destroy(pool);
        CHECKF(rc == CZK_OK, "%u ways: %s", ways[k], e.msg);
        size_t i = 0;
        while (i < n && memcmp(&got[i], &want[i], sizeof(czk_fr)) == 0)
            i++;
        CHECKF(i == n, "%u challenges, %u ways: variable %zu of %zu differs", shape->challenges,
               ways[k], i, n);
    }
    czk_free(want);
    czk_free(got);
}

/*
 * A sealed 2 KiB sector's witness over pools equals the sequential one, for its two challenges
 * and for five (the sector's proofs repeated, each copy's data leaf and node changed so that no
 * two challenges are alike: the witness does not need them to satisfy the rows), where the
 * ranges of challenges past the first two and pools with more ways than challenges are used.
 */
CZK_TEST(porep_2k_witness_pooled) {
    czk_c1 c1 = {0};
    czk_porep_shape shape;
    czk_err e = {0};
    CHECKF(sealed_2k_shape(t, &c1, &shape, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(shape.challenges, 2);
    check_pooled_witness(t, &shape, &c1, porep_table[0].aux);

    size_t g_in, g_aux;
    CHECK_EQ_INT(porep_global_counts(&shape, &g_in, &g_aux), CZK_OK);
    const size_t per_aux = (porep_table[0].aux - g_aux) / 2;
    enum { C5 = 5 };
    czk_c1 c5 = c1;
    c5.n_partitions = 1;
    c5.n_challenges = C5;
    c5.proofs = czk_malloc(C5 * sizeof *c5.proofs);
    CHECK(c5.proofs != NULL);
    for (uint32_t i = 0; i < C5; i++) {
        c5.proofs[i] = *czk_c1_at(&c1, 0, i % 2);
        czk_fr d;
        czk_fr_set_u64(&d, i);
        czk_fr_add(&c5.proofs[i].comm_d_proof.leaf, &c5.proofs[i].comm_d_proof.leaf, &d);
        c5.proofs[i].labeling[0].node += 17 * i;
    }
    shape.challenges = C5;
    check_pooled_witness(t, &shape, &c5, g_aux + C5 * per_aux);
    czk_free(c5.proofs);
    czk_c1_clear(&c1);
}

/* A virtual 8 MiB sector's witness over pools equals the sequential one. */
CZK_TEST(porep_8m_witness_pooled) {
    const czk_porep_type *ty = czk_porep_type_from_abi(6, NULL);
    CHECK(ty != NULL && ty->sector_size == 8 * MIB);
    czk_c1 c1 = {0};
    czk_err e = {0};
    CHECKF(seal_virtual_abi(t, 6, 1234, 3, &c1, NULL, &e) == CZK_OK, "%s", e.msg);
    czk_porep_shape shape;
    CHECK_EQ_INT(czk_porep_shape_init(&shape, 8 * MIB, NULL), CZK_OK);
    check_pooled_witness(t, &shape, &c1, porep_table[1].aux);
    czk_c1_clear(&c1);
}

/*
 * Layouts that do not fit the circuit are refused over a pool, and nothing past the layout is
 * written: aux one short (the challenges' share no longer splits evenly), one short per
 * challenge (each challenge runs out of room), one more per challenge, and one input more per
 * challenge (each ends short of its range). The error is the first challenge's.
 */
CZK_TEST(porep_witness_layout_refused) {
    czk_c1 c1 = {0};
    czk_porep_shape shape;
    czk_err e = {0};
    CHECKF(sealed_2k_shape(t, &c1, &shape, &e) == CZK_OK, "%s", e.msg);
    const size_t C = shape.challenges, ni = czk_porep_n_inputs(&shape), na = porep_table[0].aux;
    const size_t cap = ni + C + na + C;
    czk_fr *w = czk_malloc(cap * sizeof *w), pat;
    CHECK(w != NULL);
    memset(&pat, UNWRITTEN, sizeof pat);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    static const struct {
        long d_in, d_aux;
        const char *says;
    } cases[] = {
        {0, -1, "not a multiple"},
        {0, -2, "challenge 0: czk_cs_alloc: aux"},
        {0, 2, "challenge 0 ends at"},
        {2, 0, "challenge 0 ends at"},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0] && t->failures == 0; k++) {
        const size_t lin = ni + (size_t)cases[k].d_in, laux = na + (size_t)cases[k].d_aux;
        memset(w, UNWRITTEN, cap * sizeof *w);
        e = (czk_err){0};
        CHECK_EQ_INT(czk_porep_witness(&shape, &c1, 0, w, lin, laux, pool, &e), CZK_EINVAL);
        CHECKF(strstr(e.msg, cases[k].says) != NULL, "case %zu: %s", k, e.msg);
        for (size_t i = lin + laux; i < cap; i++)
            CHECKF(memcmp(&w[i], &pat, sizeof pat) == 0, "case %zu: w[%zu] written", k, i);
    }
    /* The right layout still works on the same pool. */
    CHECKF(czk_porep_witness(&shape, &c1, 0, w, ni, na, pool, &e) == CZK_OK, "%s", e.msg);
    czk_pool_destroy(pool);
    czk_free(w);
    czk_c1_clear(&c1);
}

/* ---- synthetic challenges ---------------------------------------------------------------- */

/* A 32-byte value from a pattern: b[i] = mul·i + add, top byte & 0x3f (a field element). */
static void pattern(uint8_t b[32], unsigned mul, unsigned add) {
    for (unsigned i = 0; i < 32; i++)
        b[i] = (uint8_t)(mul * i + add);
    b[31] &= 0x3f;
}

/*
 * Known answers. First rust-fil-proofs' own (rust-fil-proofs@87348a74:storage-proofs-porep/src/
 * stacked/vanilla/challenges.rs:512, test_synth_challenges_against_hardcoded): 2^10 nodes,
 * N = 21 synthetic challenges, replica_id 55, comm_r 101, seed [1; 32]; the 10 PoRep
 * challenges are one partition's. Then the registered sizes, computed independently in
 * Python (hashlib.blake2b(m, key=tag, digest_size=32); the `cryptography` package's ChaCha20
 * with the 16-byte nonce LE32(offset / 64) ‖ "synth-porep\0", skipping offset % 64 bytes;
 * int.from_bytes(…, "little")) with replica_id[i] = 7i, comm_r[i] = 3i + 1, seed[i] = 255 − i.
 */
CZK_TEST(porep_synth_challenges_kat) {
    static const uint64_t rust_synth[21] = {178, 297, 869, 211, 875, 477, 94,  781, 124, 332, 856,
                                            801, 176, 692, 429, 691, 290, 204, 986, 210, 973};
    static const uint64_t rust_porep[10] = {176, 781, 801, 986, 290, 211, 692, 856, 986, 332};
    uint8_t rid[32] = {55}, comm_r[32] = {101}, seed[32];
    memset(seed, 1, 32);
    uint64_t set[21];
    uint32_t idx[10];
    czk_err e = {0};
    CHECKF(czk_porep_synth_set(set, 1024, rid, comm_r, 0, 21, &e) == CZK_OK, "%s", e.msg);
    for (int i = 0; i < 21; i++)
        CHECKF(set[i] == rust_synth[i], "synthetic challenge %d: %llu", i,
               (unsigned long long)set[i]);
    /* One at a time, from the last (Rust's test seeks backwards too). */
    for (int i = 20; i >= 0; i--) {
        uint64_t one;
        CHECK_EQ_INT(czk_porep_synth_set(&one, 1024, rid, comm_r, (uint32_t)i, 1, NULL), CZK_OK);
        CHECK_EQ_INT(one, rust_synth[i]);
    }
    CHECKF(czk_porep_synth_select(idx, 21, rid, seed, 0, 10, &e) == CZK_OK, "%s", e.msg);
    for (int j = 0; j < 10; j++)
        CHECKF(idx[j] < 21 && set[idx[j]] == rust_porep[j], "PoRep challenge %d", j);

    /* The registered sizes: synthetic set entries 0, 1 and N − 1, then selected index and node
     * of the first and last challenge of the first and last partition. */
    static const struct {
        uint64_t abi, set0, set1, set_last;
        uint32_t k, i, idx;
        uint64_t node;
    } kat[] = {
        {10, 62, 61, 62, 0, 0, 26, 59},
        {10, 62, 61, 62, 0, 1, 38, 18},
        {11, 93680, 56887, 162455, 0, 0, 68122, 76613},
        {11, 93680, 56887, 162455, 0, 1, 39014, 71158},
        {13, 773230436, 385340821, 1043520260, 0, 0, 68122, 16931003},
        {13, 773230436, 385340821, 1043520260, 0, 17, 235094, 1024356122},
        {13, 773230436, 385340821, 1043520260, 9, 0, 244645, 750832714},
        {13, 773230436, 385340821, 1043520260, 9, 17, 15112, 968281754},
    };
    pattern(rid, 7, 0);
    pattern(comm_r, 3, 1);
    for (int i = 0; i < 32; i++)
        seed[i] = (uint8_t)(255 - i);
    for (size_t x = 0; x < sizeof kat / sizeof kat[0]; x++) {
        const czk_porep_type *ty = czk_porep_type_from_abi(kat[x].abi, NULL);
        uint32_t n = czk_porep_synth_count(ty->nodes);
        CHECK_EQ_INT(n, ty->nodes < (1u << 18) ? ty->nodes : 1u << 18);
        uint64_t v[2], ch[CZK_POREP_MAX_CHALLENGES], ch2[CZK_POREP_MAX_CHALLENGES];
        uint32_t si[CZK_POREP_MAX_CHALLENGES];
        CHECK_EQ_INT(czk_porep_synth_set(v, ty->nodes, rid, comm_r, 0, 2, NULL), CZK_OK);
        CHECK(v[0] == kat[x].set0 && v[1] == kat[x].set1);
        CHECK_EQ_INT(czk_porep_synth_set(v, ty->nodes, rid, comm_r, n - 1, 1, NULL), CZK_OK);
        CHECK_EQ_INT(v[0], kat[x].set_last);
        CHECKF(czk_porep_synthetic_challenges(ch, si, ty, rid, comm_r, seed, kat[x].k, &e) ==
                   CZK_OK,
               "%s", e.msg);
        CHECKF(si[kat[x].i] == kat[x].idx && ch[kat[x].i] == kat[x].node, "%s k %u i %u: %u %llu",
               ty->name, kat[x].k, kat[x].i, si[kat[x].i], (unsigned long long)ch[kat[x].i]);
        CHECK_EQ_INT(czk_porep_challenges(ch2, ty, rid, comm_r, seed, kat[x].k, NULL), CZK_OK);
        CHECK_MEM(ch2, ch, ty->challenges * sizeof *ch);
    }
}

/*
 * Consistency, as rust-fil-proofs' test_synth_challenges_32gib checks it, on every synthetic
 * size with random inputs: the whole synthetic set in one stream equals each member derived
 * alone (seeking); the selection of all the proof's challenges in one stream equals each
 * partition's; each partition's challenges are the set's members at the selected indexes and lie
 * in [1, nodes). Then the refusals.
 */
CZK_TEST(porep_synth_challenges_partitions) {
    uint8_t rid[32], comm_r[32], seed[32];
    czk_rng_bytes(&t->rng, rid, 32);
    czk_rng_bytes(&t->rng, comm_r, 32);
    czk_rng_bytes(&t->rng, seed, 32);
    rid[31] &= 0x3f;
    comm_r[31] &= 0x3f;
    uint64_t *set = czk_malloc((1u << 18) * sizeof *set);
    CHECK(set != NULL);
    czk_err e = {0};
    for (uint64_t abi = 10; abi < 15 && t->failures == 0; abi++) {
        const czk_porep_type *ty = czk_porep_type_from_abi(abi, NULL);
        uint32_t n = czk_porep_synth_count(ty->nodes), total = ty->partitions * ty->challenges;
        CHECKF(czk_porep_synth_set(set, ty->nodes, rid, comm_r, 0, n, &e) == CZK_OK, "%s", e.msg);
        for (uint32_t s = 0; s < n; s += 1 + s / 7) {
            uint64_t one;
            CHECK_EQ_INT(czk_porep_synth_set(&one, ty->nodes, rid, comm_r, s, 1, NULL), CZK_OK);
            CHECKF(one == set[s] && one >= 1 && one < ty->nodes, "%s: synthetic %u", ty->name, s);
        }
        /* An odd window: not at a block boundary, across several blocks. */
        uint64_t win[100];
        CHECK_EQ_INT(czk_porep_synth_set(win, ty->nodes, rid, comm_r, 3, 61, NULL), CZK_OK);
        CHECK_MEM(win, set + 3, 61 * sizeof *win);
        uint32_t all[180], part[CZK_POREP_MAX_CHALLENGES];
        CHECK_EQ_INT(czk_porep_synth_select(all, n, rid, seed, 0, total, NULL), CZK_OK);
        for (uint32_t k = 0; k < ty->partitions; k++) {
            uint64_t ch[CZK_POREP_MAX_CHALLENGES];
            CHECKF(czk_porep_synthetic_challenges(ch, part, ty, rid, comm_r, seed, k, &e) == CZK_OK,
                   "%s", e.msg);
            for (uint32_t i = 0; i < ty->challenges; i++) {
                uint32_t j = k * ty->challenges + i;
                CHECKF(part[i] == all[j] && all[j] < n && ch[i] == set[all[j]],
                       "%s: partition %u challenge %u", ty->name, k, i);
            }
        }
        uint64_t ch[CZK_POREP_MAX_CHALLENGES];
        CHECK_EQ_INT(
            czk_porep_synthetic_challenges(ch, NULL, ty, rid, comm_r, seed, ty->partitions, NULL),
            CZK_EINVAL);
        /* Another comm_r draws another set: the same seed selects other nodes. */
        uint8_t other[32];
        memcpy(other, comm_r, 32);
        other[0] ^= 1;
        uint64_t ch_other[CZK_POREP_MAX_CHALLENGES];
        CHECK_EQ_INT(czk_porep_challenges(ch, ty, rid, comm_r, seed, 0, NULL), CZK_OK);
        CHECK_EQ_INT(czk_porep_challenges(ch_other, ty, rid, other, seed, 0, NULL), CZK_OK);
        CHECK(memcmp(ch, ch_other, ty->challenges * sizeof *ch) != 0);
    }
    czk_free(set);
    /* An interactive type has no synthetic challenges; NI is refused, saying why. */
    uint64_t ch[CZK_POREP_MAX_CHALLENGES];
    CHECK_EQ_INT(czk_porep_synthetic_challenges(ch, NULL, czk_porep_type_from_abi(5, NULL), rid,
                                                comm_r, seed, 0, NULL),
                 CZK_EINVAL);
    const czk_porep_type *ni = czk_porep_type_from_abi(15, NULL);
    CHECK_EQ_INT(czk_porep_challenges(ch, ni, rid, comm_r, seed, 0, &e), CZK_EUNSUPPORTED);
    CHECKF(strstr(e.msg, "non-interactive PoRep is not supported: Curio does not seal it") !=
                   NULL &&
               strstr(e.msg, "StackedDrg2KiBV1_2_Feat_NonInteractivePoRep") != NULL,
           "%s", e.msg);
    czk_fr pub[39];
    CHECK_EQ_INT(czk_porep_public_inputs(pub, 39, ni, rid, comm_r, comm_r, seed, 0, &e),
                 CZK_EUNSUPPORTED);
    CHECKF(strstr(e.msg, "non-interactive") != NULL, "%s", e.msg);
    CHECK_EQ_INT(czk_porep_synth_set(ch, 1, rid, comm_r, 0, 1, NULL), CZK_EINVAL);
    CHECK_EQ_INT(czk_porep_synth_set(ch, 64, rid, comm_r, (1u << 27) - 1, 2, NULL), CZK_EINVAL);
    uint32_t idx[2];
    CHECK_EQ_INT(czk_porep_synth_select(idx, 0, rid, seed, 0, 1, NULL), CZK_EINVAL);
}

/*
 * A synthetic 2 KiB C1 output whose proof of one challenge is the proof of another node of the
 * same sector (the same comm_r and synthetic set, another seed's selection): the check refuses
 * it naming the synthetic challenge that was due. The circuit alone is satisfied (the proof is
 * a valid opening), but its public inputs are not the verifier's, so no proof of it verifies.
 */
CZK_TEST(porep_2k_synthetic_wrong_challenge_refused) {
    const czk_porep_type *ty = czk_porep_type_from_abi(10, NULL);
    uint8_t piece[2032], data[2048], ticket[32], seed[32], seed2[32];
    czk_porep_sector_ids ids;
    czk_rng_bytes(&t->rng, piece, sizeof piece);
    czk_rng_bytes(&t->rng, ticket, 32);
    czk_rng_bytes(&t->rng, seed, 32);
    czk_vanilla_prover_id(ids.prover_id, 1000);
    ids.sector_id = 7;
    czk_err e = {0};
    CHECK_EQ_INT(czk_seal_fr32_pad(data, sizeof data, piece, sizeof piece, NULL), CZK_OK);
    czk_c1 c1 = {0}, c2 = {0};
    CHECKF(czk_seal_small(&c1, ty, data, ids.prover_id, 7, ticket, seed, &e) == CZK_OK, "%s",
           e.msg);
    CHECKF(czk_porep_c1_check(&c1, &ids, "synthetic", &e) == CZK_OK, "%s", e.msg);
    /* Another seed until challenge 1 falls on another node (each try: 1 in 63 that it does not). */
    uint32_t i = 1;
    for (int tries = 0; tries < 64; tries++) {
        czk_c1_clear(&c2);
        czk_rng_bytes(&t->rng, seed2, 32);
        CHECK_EQ_INT(czk_seal_small(&c2, ty, data, ids.prover_id, 7, ticket, seed2, NULL), CZK_OK);
        CHECK_MEM(c2.comm_r, c1.comm_r, 32);
        if (czk_c1_at(&c2, 0, i)->labeling[0].node != czk_c1_at(&c1, 0, i)->labeling[0].node)
            break;
    }
    uint64_t due = czk_c1_at(&c1, 0, i)->labeling[0].node;
    CHECK(czk_c1_at(&c2, 0, i)->labeling[0].node != due);
    czk_c1_proof *keep = czk_malloc(sizeof *keep); /* a proof is tens of KiB */
    CHECK(keep != NULL);
    *keep = *czk_c1_at(&c1, 0, i);
    *czk_c1_at(&c1, 0, i) = *czk_c1_at(&c2, 0, i);
    CHECK_EQ_INT(czk_porep_c1_check(&c1, &ids, "tampered", &e), CZK_EVERIFY);
    char want[96];
    snprintf(want, sizeof want, "partition 0 challenge 1: the proof is for node %llu",
             (unsigned long long)czk_c1_at(&c2, 0, i)->labeling[0].node);
    CHECKF(strstr(e.msg, want) != NULL && strstr(e.msg, "synthetic challenge") != NULL, "%s",
           e.msg);
    snprintf(want, sizeof want, "node %llu (of this comm_r's synthetic set)",
             (unsigned long long)due);
    CHECKF(strstr(e.msg, want) != NULL, "%s", e.msg);
    size_t bad;
    CHECKF(check_partition(&c1, 0, &bad, &e) == CZK_OK, "row %zu: %s", bad, e.msg);
    czk_porep_shape shape;
    CHECK_EQ_INT(czk_porep_shape_init(&shape, 2 * KIB, NULL), CZK_OK);
    size_t ni = czk_porep_n_inputs(&shape), na = porep_table[0].aux;
    czk_fr *w = czk_malloc((ni + na) * sizeof *w), pub[39];
    CHECK(w != NULL);
    CHECKF(czk_porep_witness(&shape, &c1, 0, w, ni, na, NULL, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(
        czk_porep_public_inputs(pub, 39, ty, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, 0, NULL),
        CZK_OK);
    czk_fr due_fr;
    czk_fr_set_u64(&due_fr, due);
    CHECK(czk_fr_equal(&pub[3 + 18 * i], &due_fr));
    CHECK(!czk_fr_equal(&pub[3 + 18 * i], &w[1 + 3 + 18 * i]));
    czk_free(w);
    /* Restored, it passes; another seed selects other challenges and is refused. */
    *czk_c1_at(&c1, 0, i) = *keep;
    czk_free(keep);
    CHECKF(czk_porep_c1_check(&c1, &ids, "restored", &e) == CZK_OK, "%s", e.msg);
    memcpy(c1.seed, seed2, 32);
    CHECK_EQ_INT(czk_porep_c1_check(&c1, &ids, "seed", &e), CZK_EVERIFY);
    CHECKF(strstr(e.msg, "synthetic challenge") != NULL, "%s", e.msg);
    memcpy(c1.seed, seed, 32);
    /* The same C1 output under the V1_1 type: another porep_id, so another replica id. */
    c1.type = czk_porep_type_from_abi(5, NULL);
    CHECK_EQ_INT(czk_porep_c1_check(&c1, &ids, "as V1_1", &e), CZK_EVERIFY);
    CHECKF(strstr(e.msg, "replica id") != NULL, "%s", e.msg);
    c1.type = ty;
    czk_c1_clear(&c1);
    czk_c1_clear(&c2);
}
