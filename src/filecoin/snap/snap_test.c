/* Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04). */
#include "filecoin/circuit.h"
#include "filecoin/io/c1.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_vanilla.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/testgen/seal.h"
#include "filecoin/testgen/snap_gen.h"
#include "r1cs/r1cs.h"
#include "tests/test.h"
#include "util/alloc.h"

#include <stdio.h>
#include <string.h>

#define KIB (1ull << 10)
#define MIB (1ull << 20)
#define GIB (1ull << 30)

/* Counts one partition and checks what holds for every size: five inputs (ONE, k_and_h_select,
 * comm_r_old, comm_d_new, comm_r_new), the closed form, and B using ONE alone among the inputs.
 * Prints the figures and the digest, which the report of each size quotes. */
static void count_one(czk_test_ctx *t, uint64_t size, czk_cs_stats *st, uint8_t digest[32]) {
    czk_snap_shape shape;
    czk_err e = {0};
    CHECK_EQ_INT(czk_snap_shape_init(&shape, size, &e), CZK_OK);
    CHECKF(czk_circuit_snap_count(st, digest, &shape, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(st->n_inputs, CZK_SNAP_N_INPUTS);
    CHECK_EQ_INT(czk_snap_rows(&shape), st->n_rows);
    CHECK_EQ_INT(st->b_input_density, 1);
    char hex[65] = "";
    for (int i = 0; digest != NULL && i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    fprintf(stderr, "snap %llu bytes: rows %llu aux %llu nnz %llu/%llu/%llu digest %s\n",
            (unsigned long long)size, (unsigned long long)st->n_rows, (unsigned long long)st->n_aux,
            (unsigned long long)st->nnz_a, (unsigned long long)st->nnz_b,
            (unsigned long long)st->nnz_c, hex);
}

/* rust-fil-proofs@87348a74:storage-proofs-update/tests/circuit.rs:156-196 asserts
 * TestConstraintSystem::num_constraints() for the test sizes: the rows synthesize enforces,
 * without the prover's input rows (TestConstraintSystem adds none). */
CZK_TEST(snap_counts_rust_small) {
    static const struct {
        uint64_t size, rows;
    } rust[] = {
        {1 * KIB, 1248389}, {2 * KIB, 1705039},  {4 * KIB, 2165109},
        {8 * KIB, 2620359}, {16 * KIB, 6300021}, {32 * KIB, 6760091},
    };
    for (size_t i = 0; i < sizeof(rust) / sizeof(rust[0]); i++) {
        czk_cs_stats st;
        count_one(t, rust[i].size, &st, NULL);
        CHECK_EQ_INT(st.n_rows, rust[i].rows);
    }
}

/* 2 KiB: COUNT's digest (one system synthesising the partition in order) equals the digest
 * of the matrices recorded challenge by challenge (czk_snap_record), inline and over a pool,
 * and every count agrees, the densities included. */
CZK_TEST(snap_count_digest_2k) {
    czk_snap_shape shape;
    czk_err e = {0};
    czk_cs_stats st, rst;
    uint8_t d[32], dr[32];
    count_one(t, 2 * KIB, &st, d);
    CHECK_EQ_INT(st.n_rows, 1705039);
    CHECK_EQ_INT(czk_snap_shape_init(&shape, 2 * KIB, &e), CZK_OK);
    CHECK(shape.challenges >= 2);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 3), CZK_OK);
    for (int use_pool = 0; use_pool < 2; use_pool++) {
        czk_r1cs r;
        memset(&rst, 0xa5, sizeof rst);
        CHECKF(czk_circuit_snap_record(&r, &rst, &shape, use_pool ? pool : NULL, &e) == CZK_OK,
               "%s", e.msg);
        CHECKF(memcmp(&rst, &st, sizeof st) == 0, "pool %d: counts differ (rows %llu/%llu)",
               use_pool, (unsigned long long)rst.n_rows, (unsigned long long)st.n_rows);
        CHECK_EQ_INT(r.n_constraints, st.n_rows);
        CHECKF(czk_cs_r1cs_digest(&r, dr, &e) == CZK_OK, "%s", e.msg);
        CHECK_MEM(dr, d, 32);
        czk_r1cs_clear(&r);
    }
    czk_pool_destroy(pool);
}

/* count_one of a size too heavy for the sanitizer runs; 0 when told to leave it out. */
static int count_heavy(czk_test_ctx *t, const char *name, uint64_t size, czk_cs_stats *st) {
    if (czk_test_skip_heavy(name))
        return 0;
    uint8_t d[32];
    count_one(t, size, st, d);
    return 1;
}

/* 8 MiB: 4 partitions of 10 challenges, the arity-8 tree with an arity-2 top. COUNT equals the
 * closed form (count_one); 512 MiB and 64 GiB are left to `czk circuit info snap`, whose
 * figures doc/FILECOIN.md quotes, as they only repeat this check at a minute each. */
CZK_TEST(snap_count_8m) {
    czk_cs_stats st;
    count_heavy(t, "snap_count_8m", 8 * MIB, &st);
}

/* rust-fil-proofs@87348a74:storage-proofs-update/tests/circuit.rs:198-215: 81,049,499
 * (BenchCS, which counts enforce calls: no input rows either). */
CZK_TEST(snap_count_32g) {
    czk_cs_stats st;
    if (count_heavy(t, "snap_count_32g", 32 * GIB, &st))
        CHECK_EQ_INT(st.n_rows, 81049499);
}

/* k_and_h_select packs k under h_select (circuit.rs:46-71); bad k, h and commitments fail. */
CZK_TEST(snap_public_inputs) {
    czk_snap_shape sh;
    czk_snap_public pub;
    czk_fr in[4], want;
    czk_err e = {0};
    memset(&pub, 0, sizeof(pub));
    pub.comm_r_old[0] = 1;
    pub.comm_d_new[0] = 2;
    pub.comm_r_new[0] = 3;
    pub.h = 10; /* h_default: hs[3], h_select 8 */
    CHECK_EQ_INT(czk_snap_shape_init(&sh, 32 * GIB, &e), CZK_OK);
    CHECK_EQ_INT(czk_snap_public_inputs(in, &sh, &pub, 3, &e), CZK_OK);
    czk_fr_set_u64(&want, 3 | 8 << 4);
    CHECK(czk_fr_equal(&in[0], &want));
    for (int i = 0; i < 3; i++) {
        czk_fr_set_u64(&want, (uint64_t)i + 1);
        CHECK(czk_fr_equal(&in[1 + i], &want));
    }
    CHECK_EQ_INT(czk_snap_public_inputs(in, &sh, &pub, 16, &e), CZK_EINVAL);
    pub.h = 13;
    CHECK_EQ_INT(czk_snap_public_inputs(in, &sh, &pub, 0, &e), CZK_EINVAL);
    /* 2 KiB: one partition, and every allowed h is 1, which selects hs[0]. */
    pub.h = 1;
    CHECK_EQ_INT(czk_snap_shape_init(&sh, 2 * KIB, &e), CZK_OK);
    CHECK_EQ_INT(czk_snap_public_inputs(in, &sh, &pub, 0, &e), CZK_OK);
    CHECK(czk_fr_is_one(&in[0]));
    CHECK_EQ_INT(czk_snap_public_inputs(in, &sh, &pub, 1, &e), CZK_EINVAL);
    memset(pub.comm_d_new, 0xff, 32);
    CHECK_EQ_INT(czk_snap_public_inputs(in, &sh, &pub, 0, &e), CZK_ERANGE);
    CHECKF(strstr(e.msg, "comm_d_new") != NULL, "%s", e.msg);
    CHECK_EQ_INT(czk_snap_shape_init(&sh, 3 * KIB, &e), CZK_EUNSUPPORTED);
}

/* The file names of rust-fil-proofs@87348a74:parameters.json for the five update circuits. */
CZK_TEST(snap_params_names) {
    static const struct {
        uint64_t size;
        const char *name;
    } want[] = {
        {2 * KIB, "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
                  "fb9e095bebdd77511c0269b967b4d87ba8b8a525edaa0e165de23ba454510194.vk"},
        {8 * MIB, "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
                  "92180959e1918d26350b8e6cfe217bbdd0a2d8de51ebec269078b364b715ad63.vk"},
        {512 * MIB, "v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-"
                    "61fa69f38b9cc771ba27b670124714b4ea77fbeae05e377fb859c4a43b73a30c.vk"},
        {32 * GIB, "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-"
                   "3b7f44a9362e3985369454947bc94022e118211e49fd672d52bec1cbfd599d18.vk"},
        {64 * GIB, "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-2-"
                   "102e1444a7e9a97ebf1e3d6855dcc77e66c011ea66f936d9b2c508f87f2f83a7.vk"},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        czk_snap_shape sh;
        char name[192];
        CHECK_EQ_INT(czk_snap_shape_init(&sh, want[i].size, NULL), CZK_OK);
        CHECK_EQ_INT(czk_snap_params_file_name(name, sizeof(name), &sh, ".vk", NULL), CZK_OK);
        CHECKF(strcmp(name, want[i].name) == 0, "%s", name);
        CHECK_EQ_INT(czk_snap_params_file_name(name, 20, &sh, ".vk", NULL), CZK_ELENGTH);
    }
}

/* A generated proof of `size`, encoded: *buf (czk_free) of *len bytes. */
static int gen_encoded(czk_test_ctx *t, uint64_t size, uint32_t k, czk_snap_shape *sh,
                       czk_snap_public *pub, czk_snap_partition_proof *vp, uint8_t **buf,
                       size_t *len, czk_err *e) {
    int rc = czk_snap_shape_init(sh, size, e);
    if (rc == CZK_OK)
        rc = czk_snap_gen(pub, vp, sh, k, sh->hs[3], &t->rng, e);
    if (rc != CZK_OK)
        return rc;
    size_t n = czk_snap_partition_proof_encoded_size(sh);
    *buf = czk_malloc(n);
    if (*buf == NULL)
        return CZK_ENOMEM;
    return czk_snap_partition_proof_encode(*buf, n, len, vp, sh, e);
}

/* Encode, decode and encode again give the same bytes, of the size the shape fixes. */
CZK_TEST(snap_vanilla_roundtrip) {
    static const uint64_t sizes[] = {1 * KIB, 2 * KIB, 4 * KIB, 16 * KIB, 32 * KIB};
    for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
        czk_snap_shape sh;
        czk_snap_public pub;
        czk_snap_partition_proof vp, back;
        czk_err e = {0};
        uint8_t *buf = NULL, *again = NULL;
        size_t len = 0, len2 = 0;
        uint32_t k = sizes[i] >= 16 * KIB ? 1 : 0;
        CHECKF(gen_encoded(t, sizes[i], k, &sh, &pub, &vp, &buf, &len, &e) == CZK_OK, "%s", e.msg);
        CHECK_EQ_INT(len, czk_snap_partition_proof_encoded_size(&sh));
        if (sizes[i] == 2 * KIB)
            CHECK_EQ_INT(len, 15064);
        CHECKF(czk_snap_partition_proof_decode(&back, &sh, buf, len, k, &e) == CZK_OK, "%s", e.msg);
        again = czk_malloc(len);
        CHECK(again != NULL);
        CHECK_EQ_INT(czk_snap_partition_proof_encode(again, len, &len2, &back, &sh, &e), CZK_OK);
        CHECK_EQ_INT(len2, len);
        CHECK_MEM(again, buf, len);
        for (uint32_t c = 0; c < sh.challenges; c++)
            CHECK_EQ_INT(back.challenge[c].r_new.leaf_index, vp.challenge[c].r_new.leaf_index);
        CHECK_EQ_INT(czk_snap_partition_proof_encode(again, len - 1, &len2, &back, &sh, &e),
                     CZK_ELENGTH);
        czk_free(again);
        czk_free(buf);
        czk_snap_partition_proof_clear(&back);
        czk_snap_partition_proof_clear(&vp);
    }
}

/* Little-endian store, for the tampering below. */
static void put_le(uint8_t *p, uint64_t v, int bytes) {
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Decodes and expects code, with a message naming the partition and `what`. */
static void expect_refused(czk_test_ctx *t, const czk_snap_shape *sh, const uint8_t *buf,
                           size_t len, int code, const char *what) {
    czk_snap_partition_proof p;
    czk_err e = {0};
    CHECK_EQ_INT(czk_snap_partition_proof_decode(&p, sh, buf, len, 7, &e), code);
    CHECK(p.challenge == NULL);
    CHECKF(strstr(e.msg, "snap partition proof 7") != NULL && strstr(e.msg, what) != NULL &&
               strstr(e.msg, "at byte") != NULL,
           "%s (wanted %s)", e.msg, what);
}

/* expect_refused on a copy of buf[0 .. len) (into scratch) whose `bytes` little-endian bytes at
 * `off` are set to v. */
static void expect_patch_refused(czk_test_ctx *t, const czk_snap_shape *sh, const uint8_t *buf,
                                 uint8_t *scratch, size_t len, size_t off, uint64_t v, int bytes,
                                 int code, const char *what) {
    memcpy(scratch, buf, len);
    put_le(scratch + off, v, bytes);
    expect_refused(t, sh, scratch, len, code, what);
}

/* Truncation at every length, trailing bytes, wrong counts, tags and indices, values ≥ r. */
CZK_TEST(snap_vanilla_refuses) {
    czk_snap_shape sh;
    czk_snap_public pub;
    czk_snap_partition_proof vp;
    czk_err e = {0};
    uint8_t *buf = NULL;
    size_t len = 0;
    CHECKF(gen_encoded(t, 2 * KIB, 0, &sh, &pub, &vp, &buf, &len, &e) == CZK_OK, "%s", e.msg);
    czk_snap_partition_proof_clear(&vp);
    for (size_t n = 0; n < len; n++)
        expect_refused(t, &sh, buf, n, CZK_ELENGTH, "truncated");
    uint8_t *big = czk_malloc(len + 1);
    CHECK(big != NULL);
    memcpy(big, buf, len);
    big[len] = 0;
    expect_refused(t, &sh, big, len + 1, CZK_ELENGTH, "1 trailing bytes");
    czk_free(big);
    /* Layout of 2 KiB: comm_c (0), apex count (32), 8 apex leaves (40), challenge count (296),
     * challenge 0's proof_r_old tag (304), root (308), leaf (340), path length (372), level 0
     * sibling count (380), siblings (388), index (612). */
    uint8_t *b = czk_malloc(len);
    CHECK(b != NULL);
    expect_patch_refused(t, &sh, buf, b, len, 32, 9, 8, CZK_EFORMAT,
                         "apex leaf count is 9, expected 8");
    expect_patch_refused(t, &sh, buf, b, len, 296, 1ull << 40, 8, CZK_EFORMAT,
                         "challenge proof count");
    expect_patch_refused(t, &sh, buf, b, len, 304, 1, 4, CZK_EFORMAT,
                         "challenge 0 proof_r_old variant tag");
    expect_patch_refused(t, &sh, buf, b, len, 372, 3, 8, CZK_EFORMAT,
                         "proof_r_old base path length");
    expect_patch_refused(t, &sh, buf, b, len, 380, 1, 8, CZK_EFORMAT, "level 0 sibling count");
    expect_patch_refused(t, &sh, buf, b, len, 612, 8, 8, CZK_EFORMAT, "not below the arity 8");
    memcpy(b, buf, len);
    memset(b + 40 + 32 * 5, 0xff, 32);
    expect_refused(t, &sh, b, len, CZK_ERANGE, "apex leaf 5 is not below");
    /* proof_d_new of challenge 0 begins after proof_r_old's 556 bytes; its 6 levels are binary. */
    expect_patch_refused(t, &sh, buf, b, len, 304 + 556 + 4 + 64 + 8, 7, 8, CZK_EFORMAT,
                         "challenge 0 proof_d_new base path level 0 "
                         "sibling count is 7, expected 1");
    czk_free(b);
    czk_free(buf);
}

/* The witness of a generated partition proof satisfies every row: as rows are enforced (COUNT
 * with CHECK), and as the recorded system (WITNESS mode's vector against RECORD's matrices);
 * its public inputs are the ones derived from the public data. */
static void check_satisfied(czk_test_ctx *t, uint64_t size, uint32_t k, int record) {
    czk_snap_shape sh;
    czk_snap_public pub;
    czk_snap_partition_proof vp;
    czk_err e = {0};
    czk_cs *cs = NULL;
    CHECK_EQ_INT(czk_snap_shape_init(&sh, size, &e), CZK_OK);
    CHECKF(czk_snap_gen(&pub, &vp, &sh, k, sh.hs[3], &t->rng, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_COUNT, CZK_CS_CHECK, &e), CZK_OK);
    CHECKF(czk_snap_synthesize(cs, &sh, &pub, &vp, k) == CZK_OK, "row %zu: %s", czk_cs_bad_row(cs),
           czk_cs_error(cs)->msg);
    czk_cs_stats st;
    czk_cs_get_stats(cs, &st);
    CHECK_EQ_INT(st.n_rows, czk_snap_rows(&sh));
    czk_cs_destroy(cs);
    if (record) {
        CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, &e), CZK_OK);
        CHECKF(czk_snap_synthesize(cs, &sh, &pub, &vp, k) == CZK_OK, "%s", czk_cs_error(cs)->msg);
        czk_fr *w = NULL;
        size_t nw = 0;
        CHECK_EQ_INT(czk_cs_witness(cs, &w, &nw, &e), CZK_OK);
        czk_cs_destroy(cs);
        czk_r1cs r;
        CHECKF(czk_circuit_snap_record(&r, NULL, &sh, NULL, &e) == CZK_OK, "%s", e.msg);
        CHECK_EQ_INT(nw, r.n_vars);
        size_t row = SIZE_MAX;
        CHECKF(czk_r1cs_check(&r, w, &row, NULL, &e) == CZK_OK, "row %zu: %s", row, e.msg);
        czk_r1cs_clear(&r);
        czk_fr in[4];
        CHECK_EQ_INT(czk_snap_public_inputs(in, &sh, &pub, k, &e), CZK_OK);
        for (int i = 0; i < 4; i++)
            CHECKF(czk_fr_equal(&in[i], &w[1 + i]), "public input %d", i);
        czk_free(w);
    }
    czk_snap_partition_proof_clear(&vp);
}

CZK_TEST(snap_2k_satisfied) {
    check_satisfied(t, 2 * KIB, 0, 1);
}

/* The test sizes with an arity-4 sub level (1 KiB), two partitions and an arity-8 sub level
 * (16 KiB, partition 1), and a top level (32 KiB, partition 1): every path kind. */
CZK_TEST(snap_small_sizes_satisfied) {
    check_satisfied(t, 1 * KIB, 0, 0);
    check_satisfied(t, 16 * KIB, 1, 0);
    check_satisfied(t, 32 * KIB, 1, 0);
}

/* Runs the 2 KiB partition in COUNT mode with CHECK and returns its status. */
static int synth_checked(const czk_snap_shape *sh, const czk_snap_public *pub,
                         const czk_snap_partition_proof *vp, uint32_t k, czk_err *e) {
    czk_cs *cs = NULL;
    int rc = czk_cs_create(&cs, CZK_CS_COUNT, CZK_CS_CHECK, e);
    if (rc != CZK_OK)
        return rc;
    rc = czk_snap_synthesize(cs, sh, pub, vp, k);
    *e = *czk_cs_error(cs);
    czk_cs_destroy(cs);
    return rc;
}

/* Tampered proofs and public data are refused: by the checks synthesis makes (the encoding, the
 * challenged node, the partition path), or by a row. */
CZK_TEST(snap_2k_tampered_refused) {
    czk_snap_shape sh;
    czk_snap_public pub;
    czk_snap_partition_proof vp;
    czk_err e = {0};
    czk_fr one, keep;
    czk_fr_set_one(&one);
    CHECK_EQ_INT(czk_snap_shape_init(&sh, 2 * KIB, &e), CZK_OK);
    CHECKF(czk_snap_gen(&pub, &vp, &sh, 0, 1, &t->rng, &e) == CZK_OK, "%s", e.msg);
    /* The data leaf: the encoding no longer gives TreeRNew's leaf. */
    keep = vp.challenge[2].d_new.leaf;
    czk_fr_add(&vp.challenge[2].d_new.leaf, &keep, &one);
    CHECK_EQ_INT(synth_checked(&sh, &pub, &vp, 0, &e), CZK_EINVAL);
    CHECKF(strstr(e.msg, "challenge 2") != NULL, "%s", e.msg);
    vp.challenge[2].d_new.leaf = keep;
    /* A TreeROld sibling: the path no longer hashes to the root. */
    keep = vp.challenge[4].r_old.level[1].sib[3];
    czk_fr_add(&vp.challenge[4].r_old.level[1].sib[3], &keep, &one);
    CHECK_EQ_INT(synth_checked(&sh, &pub, &vp, 0, &e), CZK_EVERIFY);
    vp.challenge[4].r_old.level[1].sib[3] = keep;
    /* An apex leaf: the apex tree no longer hashes to comm_d_new. */
    keep = vp.apex[6];
    czk_fr_add(&vp.apex[6], &keep, &one);
    CHECK_EQ_INT(synth_checked(&sh, &pub, &vp, 0, &e), CZK_EVERIFY);
    vp.apex[6] = keep;
    /* Another comm_r_new: other challenges than the paths prove. */
    pub.comm_r_new[0] ^= 1;
    CHECK_EQ_INT(synth_checked(&sh, &pub, &vp, 0, &e), CZK_EINVAL);
    CHECKF(strstr(e.msg, "paths prove") != NULL, "%s", e.msg);
    pub.comm_r_new[0] ^= 1;
    /* Untouched, it holds. */
    CHECKF(synth_checked(&sh, &pub, &vp, 0, &e) == CZK_OK, "%s", e.msg);
    czk_snap_partition_proof_clear(&vp);
}

/* Virtual updates (testgen/snap_gen.h czk_snap_gen_virtual): every partition of a periodic
 * sector passes the native check against the public data (snap_check.c, which hashes every
 * path itself), the last partition's witness satisfies the circuit, a flipped sibling is
 * refused, and periods the shape cannot take are refused. 512 MiB takes a period of 8 nodes
 * here so that its 1,024 rho bins cost little; the benchmarks use 2^12. */
CZK_TEST(snap_virtual_updates) {
    static const struct {
        uint64_t size;
        uint32_t log2_period;
    } cases[] = {{2 * KIB, 3}, {16 * KIB, 6}, {32 * KIB, 9}, {8 * MIB, 6}, {512 * MIB, 3}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        czk_snap_shape sh;
        czk_snap_public pub;
        czk_snap_partition_proof vps[16];
        czk_err e = {0};
        CHECK_EQ_INT(czk_snap_shape_init(&sh, cases[i].size, &e), CZK_OK);
        uint32_t h = sh.hs[3];
        CHECKF(czk_snap_gen_virtual(&pub, vps, &sh, h, cases[i].log2_period, &t->rng, &e) == CZK_OK,
               "size %llu: %s", (unsigned long long)cases[i].size, e.msg);
        for (uint32_t k = 0; k < sh.partitions; k++)
            CHECKF(czk_snap_partition_check(&sh, &pub, &vps[k], k, &e) == CZK_OK,
                   "size %llu partition %u: %s", (unsigned long long)cases[i].size, k, e.msg);
        if (cases[i].size <= 8 * MIB) {
            uint32_t k = sh.partitions - 1;
            CHECKF(synth_checked(&sh, &pub, &vps[k], k, &e) == CZK_OK, "size %llu: %s",
                   (unsigned long long)cases[i].size, e.msg);
        }
        czk_fr one;
        czk_fr_set_u64(&one, 1);
        czk_fr_add(&vps[0].challenge[0].r_new.level[0].sib[0],
                   &vps[0].challenge[0].r_new.level[0].sib[0], &one);
        CHECKF(czk_snap_partition_check(&sh, &pub, &vps[0], 0, &e) != CZK_OK,
               "size %llu: a flipped TreeRNew sibling passes", (unsigned long long)cases[i].size);
        for (uint32_t k = 0; k < sh.partitions; k++)
            czk_snap_partition_proof_clear(&vps[k]);
    }
    /* A period that is not a power of 8, or larger than a rho bin, is refused. */
    czk_snap_shape sh;
    czk_snap_public pub;
    czk_snap_partition_proof vps[16];
    czk_err e = {0};
    CHECK_EQ_INT(czk_snap_shape_init(&sh, 8 * MIB, &e), CZK_OK);
    CHECK_EQ_INT(czk_snap_gen_virtual(&pub, vps, &sh, sh.hs[3], 4, &t->rng, &e), CZK_EINVAL);
    CHECK_EQ_INT(czk_snap_gen_virtual(&pub, vps, &sh, sh.hs[3], 9, &t->rng, &e), CZK_EINVAL);
}

/* Seals a committed-capacity sector of `size` (StackedDrg<size>V1_1) with czk's sealer and
 * updates it: comm_r_old is the sealed comm_r, every partition passes the native check, and
 * the last partition's witness satisfies the circuit. */
static void sealed_update(czk_test_ctx *t, uint64_t size, uint64_t abi) {
    const czk_porep_type *ty = czk_porep_type_from_abi(abi, NULL);
    CHECK(ty != NULL && ty->sector_size == size);
    uint8_t prover[32], ticket[32], seed[32];
    czk_vanilla_prover_id(prover, 1000);
    czk_rng_bytes(&t->rng, ticket, sizeof ticket);
    czk_rng_bytes(&t->rng, seed, sizeof seed);
    czk_c1 c1;
    czk_seal_replica rep;
    czk_err e = {0};
    CHECKF(czk_seal_small_replica(&c1, &rep, ty, NULL, prover, 7, ticket, seed, &e) == CZK_OK, "%s",
           e.msg);
    czk_snap_shape sh;
    czk_snap_public pub;
    czk_snap_partition_proof vps[16];
    CHECK_EQ_INT(czk_snap_shape_init(&sh, size, &e), CZK_OK);
    CHECKF(czk_snap_gen_sealed(&pub, vps, &sh, sh.hs[3], rep.nodes, rep.n, &rep.comm_c, &t->rng,
                               &e) == CZK_OK,
           "%s", e.msg);
    CHECK(memcmp(pub.comm_r_old, c1.comm_r, 32) == 0);
    for (uint32_t k = 0; k < sh.partitions; k++)
        CHECKF(czk_snap_partition_check(&sh, &pub, &vps[k], k, &e) == CZK_OK, "partition %u: %s", k,
               e.msg);
    uint32_t last = sh.partitions - 1;
    CHECKF(synth_checked(&sh, &pub, &vps[last], last, &e) == CZK_OK, "%s", e.msg);
    for (uint32_t k = 0; k < sh.partitions; k++)
        czk_snap_partition_proof_clear(&vps[k]);
    czk_seal_replica_clear(&rep);
    czk_c1_clear(&c1);
}

CZK_TEST(snap_sealed_update_2k) {
    sealed_update(t, 2 * KIB, 5);
}

CZK_TEST(snap_sealed_update_8m) {
    if (czk_test_skip_heavy("snap_sealed_update_8m"))
        return;
    sealed_update(t, 8 * MIB, 6);
}
