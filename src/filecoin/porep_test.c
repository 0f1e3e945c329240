#include "filecoin/circuit.h"
#include "filecoin/porep.h"
#include "filecoin/porep_public.h"
#include "filecoin/porep_types.h"
#include "filecoin/seal.h"
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
    CHECKF(czk_circuit_porep_record(&r, NULL, &shape, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(r.n_constraints, porep_table[0].rows);
    CHECK_EQ_INT(czk_cs_r1cs_digest(&r, dr, NULL), CZK_OK);
    czk_r1cs_clear(&r);
    CHECK_MEM(dr, d, 32);
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

/* A sealed 2 KiB V1_1 sector of random data, miner 1000, sector 7. Returns the status. */
static int seal_2k(czk_test_ctx *t, czk_c1 *c1, czk_porep_sector_ids *ids, czk_err *e) {
    const czk_porep_type *ty = czk_porep_type_from_abi(5, NULL);
    uint8_t piece[2032], data[2048], ticket[32], seed[32];
    czk_rng_bytes(&t->rng, piece, sizeof piece);
    czk_rng_bytes(&t->rng, ticket, 32);
    czk_rng_bytes(&t->rng, seed, 32); /* raw randomness: only ever hashed */
    czk_vanilla_prover_id(ids->prover_id, 1000);
    ids->sector_id = 7;
    int rc = czk_seal_fr32_pad(data, sizeof data, piece, sizeof piece, e);
    if (rc == CZK_OK)
        rc = czk_seal_small(c1, ty, data, ids->prover_id, ids->sector_id, ticket, seed, e);
    return rc;
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
CZK_TEST(porep_2k_sealed_satisfied) {
    czk_c1 c1 = {0};
    czk_porep_sector_ids ids;
    czk_err e = {0};
    CHECKF(seal_2k(t, &c1, &ids, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_porep_c1_check(&c1, &ids, "sealed", &e) == CZK_OK, "%s", e.msg);
    size_t bad;
    CHECKF(check_partition(&c1, 0, &bad, &e) == CZK_OK, "row %zu: %s", bad, e.msg);

    czk_porep_shape shape;
    CHECK_EQ_INT(czk_porep_shape_init(&shape, 2 * KIB, NULL), CZK_OK);
    size_t ni = czk_porep_n_inputs(&shape), na = porep_table[0].aux;
    czk_fr *w = czk_malloc((ni + na) * sizeof *w);
    CHECK(w != NULL);
    CHECKF(czk_porep_witness(&shape, &c1, 0, w, ni, na, &e) == CZK_OK, "%s", e.msg);
    /* The recorded system is satisfied by it. */
    czk_r1cs r;
    CHECKF(czk_circuit_porep_record(&r, NULL, &shape, &e) == CZK_OK, "%s", e.msg);
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
    CHECK_EQ_INT(czk_porep_witness(&shape, &c1, 0, w, ni, na - 1, NULL), CZK_EINVAL);
    czk_free(w);
    czk_c1_clear(&c1);
}

/* Tampering: each fault is refused by the C1 check, naming it, and (where it reaches the
 * circuit) fails a row too. A proof against tampered public inputs is porep_prove_2k's. */
CZK_TEST(porep_2k_tampered_refused) {
    czk_c1 c1 = {0};
    czk_porep_sector_ids ids;
    czk_err e = {0};
    CHECKF(seal_2k(t, &c1, &ids, &e) == CZK_OK, "%s", e.msg);
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
    const czk_porep_type *ty = czk_porep_type_from_abi(8, NULL);
    uint8_t prover[32], ticket[32], seed[32];
    czk_vanilla_prover_id(prover, 1234);
    czk_rng_bytes(&t->rng, ticket, 32);
    czk_rng_bytes(&t->rng, seed, 32);
    czk_c1 c1 = {0};
    czk_err e = {0};
    CHECKF(czk_seal_virtual(&c1, ty, prover, 99, ticket, seed, &t->rng, &e) == CZK_OK, "%s", e.msg);
    czk_porep_sector_ids ids;
    memcpy(ids.prover_id, prover, 32);
    ids.sector_id = 99;
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
    const czk_porep_type *ty = czk_porep_type_from_abi(8, NULL);
    uint8_t prover[32], ticket[32], seed[32];
    czk_vanilla_prover_id(prover, 4321);
    czk_rng_bytes(&t->rng, ticket, 32);
    czk_rng_bytes(&t->rng, seed, 32);
    czk_c1 c1 = {0};
    czk_err e = {0};
    CHECKF(czk_seal_virtual(&c1, ty, prover, 5, ticket, seed, &t->rng, &e) == CZK_OK, "%s", e.msg);
    size_t bad = SIZE_MAX;
    CHECKF(check_partition(&c1, 9, &bad, &e) == CZK_OK, "row %zu: %s", bad, e.msg);
    czk_c1_clear(&c1);
}
