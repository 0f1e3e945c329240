/*
 * Tests for neptune's Poseidon circuit (poseidon_gadget.h), PoR over Poseidon trees (por.h) and
 * the Fallback PoSt circuit (post.h).
 *
 * Counts are checked against the numbers the sources' own tests assert (neptune's circuit test,
 * rust-fil-proofs' por_circuit.rs) and against doc/FILECOIN.md §5 and §8 (rows, inputs, aux,
 * nnz, densities, R1CS digests of a reference reading). Satisfiability is checked both ways: the
 * gadgets' own values against each row as it is enforced (CHECK), and the WITNESS mode's vector
 * against the RECORD mode's matrices (czk_r1cs_check). The anchor for values is the real 32 GiB
 * WindowPoSt vanilla proof of tests/data/filecoin (see vanilla_test.c).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), neptune 11.0.0
 * (@ef8a821).
 */
#include "field/fr.h"
#include "filecoin/circuit.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/gadgets/gadgets.h"
#include "filecoin/gadgets/por.h"
#include "filecoin/gadgets/poseidon_gadget.h"
#include "filecoin/hash/poseidon.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/post/post.h"
#include "filecoin/testgen/harness.h"
#include "r1cs/r1cs.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/pool.h"
#include "util/rng.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- helpers ---------------------------------------------------------------------------- */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ---- Poseidon ------------------------------------------------------------------------------ */

static const size_t arities[] = {2, 4, 8, 11};
#define N_ARITIES (sizeof(arities) / sizeof(arities[0]))

typedef struct hash_ctx {
    size_t arity;
    czk_fr in[CZK_POSEIDON_MAX_ARITY];
    czk_var out;
} hash_ctx;

/* Allocates the inputs as aux, then hashes them. */
static int synth_hash(czk_cs *cs, void *p) {
    hash_ctx *h = p;
    const czk_poseidon_circuit *pc;
    czk_var in[CZK_POSEIDON_MAX_ARITY];
    int rc;
    if ((rc = czk_poseidon_circuit_get(&pc, h->arity, NULL)) != CZK_OK)
        return rc;
    for (size_t i = 0; i < h->arity; i++)
        if ((rc = czk_gadget_num_alloc(cs, &in[i], &h->in[i])) != CZK_OK)
            return rc;
    return czk_poseidon_gadget_hash(cs, &h->out, pc, in, h->arity);
}

/* neptune's circuit test: 311/377/505/598 rows (and as many aux) for arities 2/4/8/11. */
CZK_TEST(poseidon_gadget_counts) {
    static const uint64_t rows[N_ARITIES] = {311, 377, 505, 598};
    for (size_t k = 0; k < N_ARITIES; k++) {
        hash_ctx h = {.arity = arities[k]};
        czk_cs_stats st;
        czk_err e = {0};
        CHECKF(czk_harness_run_one(synth_hash, &h, CZK_CS_COUNT, 0, &st, NULL, &e) == CZK_OK, "%s",
               e.msg);
        CHECKF(st.n_rows == rows[k], "arity %zu: %llu rows", arities[k],
               (unsigned long long)st.n_rows);
        CHECK_EQ_INT(st.n_aux, arities[k] + rows[k]);
        CHECK_EQ_INT(st.n_inputs, 1);
        CHECK_EQ_INT(h.out, arities[k] + rows[k] - 1);
        /* Width 9's M is Hankel, so its witness mixes by blocks (the other tests check the
         * values that gives); no other width does. */
        const czk_poseidon_circuit *pc;
        CHECK_EQ_INT(czk_poseidon_circuit_get(&pc, arities[k], NULL), CZK_OK);
        CHECK_EQ_INT(pc->mds_fast, arities[k] == 8);
    }
}

/* Random inputs through every mode: satisfied, and the digest variable holds the native hash. */
CZK_TEST(poseidon_gadget_random_inputs) {
    long iters = czk_test_iters(t, 2);
    for (long it = 0; it < iters; it++)
        for (size_t k = 0; k < N_ARITIES; k++) {
            const czk_poseidon_constants *c;
            CHECK_EQ_INT(czk_poseidon_constants_get(&c, arities[k], NULL), CZK_OK);
            hash_ctx h = {.arity = arities[k]};
            for (size_t i = 0; i < h.arity; i++)
                czk_fr_random(&h.in[i], &t->rng);
            czk_harness_run res;
            if (!czk_harness_run_modes(t, synth_hash, &h, CZK_HARNESS_AUX_USED, &res))
                return;
            czk_fr want;
            CHECK_EQ_INT(czk_poseidon_hash(c, h.in, h.arity, &want), CZK_OK);
            CHECK(czk_fr_equal(&res.w[res.stats.n_inputs + h.out], &want));
            czk_harness_run_clear(&res);
        }
}

/* neptune's hash of [0 … a−1] and rust-fil-proofs' H(1, 0), through the gadget. */
CZK_TEST(poseidon_gadget_known_answers) {
    static const uint64_t want_limbs[N_ARITIES][4] = {
        {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
        {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
        {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
        {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
    };
    for (size_t k = 0; k <= N_ARITIES; k++) {
        hash_ctx h;
        czk_fr want;
        if (k < N_ARITIES) {
            h.arity = arities[k];
            for (size_t i = 0; i < h.arity; i++)
                czk_fr_set_u64(&h.in[i], i);
            CHECK_EQ_INT(czk_fr_from_limbs(&want, want_limbs[k]), CZK_OK);
        } else {
            static const uint64_t h10[4] = {0xb339ff6079800b5e, 0xec5907b3dc3094af,
                                            0x93c003cc74a24f26, 0x042f94ffbe786bc3};
            h.arity = 2;
            h.in[0] = CZK_FR_ONE;
            h.in[1] = CZK_FR_ZERO;
            CHECK_EQ_INT(czk_fr_from_limbs(&want, h10), CZK_OK);
        }
        czk_cs *cs;
        CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, CZK_CS_CHECK, NULL), CZK_OK);
        CHECK_EQ_INT(synth_hash(cs, &h), CZK_OK);
        CHECKF(czk_fr_equal(czk_cs_value(cs, h.out), &want), "known answer %zu", k);
        czk_cs_destroy(cs);
    }
}

/* A template refuses a different arity, and a wrong input value is caught by CHECK. */
CZK_TEST(poseidon_gadget_rejects) {
    const czk_poseidon_circuit *pc;
    CHECK_EQ_INT(czk_poseidon_circuit_get(&pc, 3, NULL), CZK_EUNSUPPORTED);
    CHECK_EQ_INT(czk_poseidon_circuit_get(&pc, 8, NULL), CZK_OK);
    czk_cs *cs;
    czk_var in[2], out;
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_COUNT, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_alloc(cs, &in[0], NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_alloc(cs, &in[1], NULL), CZK_OK);
    CHECK_EQ_INT(czk_poseidon_gadget_hash(cs, &out, pc, in, 2), CZK_EINVAL);
    czk_cs_destroy(cs);
}

/* ---- PoR ----------------------------------------------------------------------------------- */

/* A random tree path: leaf, random siblings, index per level, and the root it hashes to. */
typedef struct por_ctx {
    czk_por_shape shape;
    czk_vanilla_level path[CZK_POR_MAX_LEVELS];
    czk_fr leaf, root;
    uint64_t leaf_index;
    int private_root, random; /* random: carry a path */
    czk_var computed;
} por_ctx;

static uint32_t shape_arity(const czk_por_shape *s, uint32_t l) {
    return l < s->base_levels                      ? s->base_arity
           : (l == s->base_levels && s->sub_arity) ? s->sub_arity
                                                   : s->top_arity;
}

static void por_random(czk_test_ctx *t, por_ctx *p) {
    uint32_t n = czk_por_shape_levels(&p->shape), shift = 0;
    czk_fr cur;
    czk_fr_random(&p->leaf, &t->rng);
    cur = p->leaf;
    p->leaf_index = 0;
    for (uint32_t l = 0; l < n; l++) {
        czk_vanilla_level *lv = &p->path[l];
        const czk_poseidon_constants *c;
        lv->arity = shape_arity(&p->shape, l);
        lv->index = (uint32_t)(czk_rng_u64(&t->rng) % lv->arity);
        p->leaf_index |= (uint64_t)lv->index << shift;
        shift += lv->arity == 2 ? 1 : lv->arity == 4 ? 2 : 3;
        for (uint32_t i = 0; i + 1 < lv->arity; i++)
            czk_fr_random(&lv->sib[i], &t->rng);
        czk_fr in[8];
        for (uint32_t i = 0, j = 0; i < lv->arity; i++)
            in[i] = i == lv->index ? cur : lv->sib[j++];
        (void)czk_poseidon_constants_get(&c, lv->arity, NULL);
        (void)czk_poseidon_hash(c, in, lv->arity, &cur);
    }
    p->root = cur;
    p->random = 1;
}

/* PoRCircuit::new(proof, private): value and root are both Root::Val. */
static int synth_por(czk_cs *cs, void *ctx) {
    por_ctx *p = ctx;
    czk_por_root value = {CZK_POR_ROOT_VAL, 0, p->leaf}, root = {CZK_POR_ROOT_VAL, 0, p->root};
    return czk_por_synthesize(cs, &p->computed, &p->shape, &value, p->random ? p->path : NULL,
                              &root, p->private_root);
}

/* rust-fil-proofs' por_circuit.rs: 64 leaves per base tree, public root (3 inputs). */
CZK_TEST(por_counts_match_rust_fil_proofs) {
    static const struct {
        czk_por_shape shape;
        int private_root;
        uint64_t rows, inputs;
    } cases[] = {
        {{2, 6, 0, 0}, 0, 1887, 3}, {{4, 3, 0, 0}, 0, 1164, 3}, {{8, 2, 0, 0}, 0, 1063, 3},
        {{8, 2, 2, 0}, 0, 1377, 3}, {{8, 2, 4, 2}, 0, 1764, 3}, {{8, 2, 8, 0}, 0, 1593, 3},
        {{8, 2, 8, 2}, 0, 1907, 3}, {{8, 2, 2, 4}, 0, 1764, 3}, {{2, 6, 0, 0}, 1, 1886, 2},
        {{4, 3, 0, 0}, 1, 1163, 2},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        por_ctx p;
        memset(&p, 0, sizeof(p));
        p.shape = cases[k].shape;
        p.private_root = cases[k].private_root;
        czk_cs_stats st;
        czk_err e = {0};
        CHECKF(czk_harness_run_one(synth_por, &p, CZK_CS_COUNT, 0, &st, NULL, &e) == CZK_OK, "%s",
               e.msg);
        CHECKF(st.n_rows == cases[k].rows, "case %zu: %llu rows, want %llu", k,
               (unsigned long long)st.n_rows, (unsigned long long)cases[k].rows);
        CHECK_EQ_INT(st.n_inputs, cases[k].inputs);
    }
}

/* Random paths of several shapes through every mode; the packed input is the leaf index and
 * the computed root is the native one. */
CZK_TEST(por_random_paths_satisfied) {
    static const czk_por_shape shapes[] = {
        {2, 6, 0, 0}, {4, 3, 0, 0}, {8, 2, 0, 0}, {8, 2, 4, 2}, {8, 2, 8, 2}, {8, 9, 8, 0},
    };
    long iters = czk_test_iters(t, 1);
    for (long it = 0; it < iters; it++)
        for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
            por_ctx p;
            memset(&p, 0, sizeof(p));
            p.shape = shapes[k];
            p.private_root = (int)(k & 1);
            por_random(t, &p);
            czk_harness_run res;
            if (!czk_harness_run_modes(t, synth_por, &p, CZK_HARNESS_AUX_USED, &res))
                return;
            czk_fr idx;
            czk_fr_set_u64(&idx, p.leaf_index);
            CHECK(czk_fr_equal(&res.w[1], &idx));
            CHECK(czk_fr_equal(&res.w[res.stats.n_inputs + p.computed], &p.root));
            if (!p.private_root)
                CHECK(czk_fr_equal(&res.w[2], &p.root));
            czk_harness_run_clear(&res);
        }
}

/* Root::Var for both ends: the leaf and root allocated beforehand, then reused (no aux of
 * their own): the same rows as with Root::Val, two aux fewer inside the PoR, satisfied. */
static int synth_por_vars(czk_cs *cs, void *ctx) {
    por_ctx *p = ctx;
    czk_var leaf, rt;
    int rc;
    if ((rc = czk_gadget_num_alloc(cs, &leaf, &p->leaf)) != CZK_OK ||
        (rc = czk_gadget_num_alloc(cs, &rt, &p->root)) != CZK_OK)
        return rc;
    czk_por_root value = {CZK_POR_ROOT_VAR, leaf, CZK_FR_ZERO};
    czk_por_root root = {CZK_POR_ROOT_VAR, rt, CZK_FR_ZERO};
    return czk_por_synthesize(cs, &p->computed, &p->shape, &value, p->path, &root, p->private_root);
}

CZK_TEST(por_root_var) {
    for (int priv = 0; priv < 2; priv++) {
        por_ctx p;
        memset(&p, 0, sizeof(p));
        p.shape = (czk_por_shape){8, 2, 8, 2};
        p.private_root = priv;
        por_random(t, &p);
        czk_cs_stats by_val;
        CHECK_EQ_INT(czk_harness_run_one(synth_por, &p, CZK_CS_COUNT, 0, &by_val, NULL, NULL),
                     CZK_OK);
        czk_harness_run res;
        if (!czk_harness_run_modes(t, synth_por_vars, &p, CZK_HARNESS_AUX_USED, &res))
            return;
        const czk_cs_stats by_var = res.stats;
        CHECK_EQ_INT(by_var.n_rows, by_val.n_rows);
        CHECK_EQ_INT(by_var.n_aux, by_val.n_aux);
        CHECK_EQ_INT(by_var.n_inputs, by_val.n_inputs);
        CHECK(czk_fr_equal(&res.w[by_var.n_inputs + p.computed], &p.root));
        czk_harness_run_clear(&res);
    }
}

/* A wrong sibling makes the equal row fail under CHECK. */
CZK_TEST(por_wrong_path_fails) {
    por_ctx p;
    memset(&p, 0, sizeof(p));
    p.shape = (czk_por_shape){8, 2, 0, 0};
    por_random(t, &p);
    czk_fr_add(&p.path[1].sib[3], &p.path[1].sib[3], &CZK_FR_ONE);
    czk_cs *cs;
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, CZK_CS_CHECK, NULL), CZK_OK);
    CHECK_EQ_INT(synth_por(cs, &p), CZK_EVERIFY);
    czk_cs_destroy(cs);
}

static uint8_t *slurp_data(const char *name, size_t *len) {
    return czk_test_read_data("filecoin", name, len);
}

/* The real 32 GiB WindowPoSt sector proof (abi 8). */
static int decode_real(czk_vanilla_sector *s) {
    czk_vanilla_post_type ty;
    size_t len;
    uint8_t *buf = slurp_data("post-32g-window.vproof", &len);
    if (buf == NULL || czk_vanilla_post_type_from_abi(&ty, 8, NULL) != CZK_OK) {
        free(buf);
        return -1;
    }
    int rc = czk_vanilla_sector_decode(s, &ty, buf, len, 0, NULL);
    free(buf);
    return rc;
}

/* Its ten paths through PoR (32 GiB shape, root Val(comm_r_last)), each satisfied under CHECK,
 * computing comm_r_last and packing the challenged leaf index. */
CZK_TEST(por_real_32g_paths) {
    czk_vanilla_sector s;
    CHECK_EQ_INT(decode_real(&s), CZK_OK);
    for (size_t k = 0; k < s.n_inclusions; k++) {
        const czk_vanilla_inclusion *inc = &s.inclusion[k];
        por_ctx p;
        memset(&p, 0, sizeof(p));
        p.shape = (czk_por_shape){8, 9, 8, 0};
        p.private_root = 1;
        p.random = 1;
        p.leaf = inc->leaf;
        p.root = s.comm_r_last;
        memcpy(p.path, inc->level, inc->n_levels * sizeof(inc->level[0]));
        czk_cs *cs;
        CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, CZK_CS_CHECK, NULL), CZK_OK);
        CHECKF(synth_por(cs, &p) == CZK_OK, "path %zu: %s", k, czk_cs_error(cs)->msg);
        CHECK(czk_fr_equal(czk_cs_value(cs, p.computed), &s.comm_r_last));
        czk_fr idx;
        czk_fr_set_u64(&idx, inc->leaf_index);
        CHECK(czk_fr_equal(czk_cs_value(cs, CZK_VAR_INPUT | 1), &idx));
        czk_cs_destroy(cs);
    }
    czk_vanilla_sector_clear(&s);
}

/* ---- Fallback PoSt ------------------------------------------------------------------------- */

#define KIB 1024ull
#define MIB (1024ull * KIB)
#define GIB (1024ull * MIB)

typedef struct post_ctx {
    czk_post_shape shape;
    const czk_vanilla_sector *sectors;
    size_t n_sectors;
} post_ctx;

static int synth_post(czk_cs *cs, void *ctx) {
    post_ctx *p = ctx;
    return czk_post_synthesize(cs, &p->shape, p->sectors, p->n_sectors);
}

typedef struct post_expect {
    czk_vanilla_post_kind kind;
    uint64_t size;
    czk_cs_stats st; /* rows, inputs, aux, nnz A/B/C, a_aux, b_in, b_aux */
} post_expect;

/* Short names, so that the rows of the table below fit on one line. */
#define WINNING CZK_VANILLA_POST_WINNING
#define WINDOW CZK_VANILLA_POST_WINDOW
/* doc/FILECOIN.md §5 (rows exclude the input rows, nnz(A) includes them; inputs count ONE). */
static const post_expect post_table[] = {
    {WINNING, 2 * KIB, {90750, 133, 91674, 621985, 92070, 113652, 69300, 1, 66792}},
    {WINNING, 8 * MIB, {230670, 133, 233442, 1585585, 234366, 289476, 176748, 1, 169488}},
    {WINNING, 512 * MIB, {300630, 133, 304326, 2067385, 305514, 377388, 230472, 1, 220836}},
    {WINNING, 32 * GIB, {370590, 133, 375210, 2549185, 376662, 465300, 284196, 1, 272184}},
    {WINNING, 64 * GIB, {391314, 133, 396000, 2689501, 397518, 491040, 299838, 1, 287694}},
    {WINDOW, 2 * KIB, {21866, 23, 22128, 150285, 22230, 27456, 16770, 1, 16028}},
    {WINDOW, 8 * MIB, {64266, 23, 65088, 442285, 65350, 80736, 49330, 1, 47148}},
    {WINDOW, 512 * MIB, {85466, 23, 86568, 588285, 86910, 107376, 65610, 1, 62708}},
    {WINDOW,
     32 * GIB,
     {125279217, 25840, 126902376, 862416559, 127398015, 157401792, 96179805, 1, 91925766}},
    {WINDOW,
     64 * GIB,
     {129887900, 25301, 131500200, 893324601, 132008500, 163088400, 99624500, 1, 95413200}},
};
#undef WINNING
#undef WINDOW

static void check_post_counts(czk_test_ctx *t, const post_expect *x) {
    post_ctx p = {.sectors = NULL, .n_sectors = 0};
    CHECK_EQ_INT(czk_post_shape_init(&p.shape, x->kind, x->size, NULL), CZK_OK);
    czk_cs_stats st;
    czk_err e = {0};
    double t0 = now_s();
    CHECKF(czk_harness_run_one(synth_post, &p, CZK_CS_COUNT, 0, &st, NULL, &e) == CZK_OK, "%s",
           e.msg);
    double dt = now_s() - t0;
    printf("  %s %llu B: %llu rows, %llu inputs, %llu aux in %.2f s\n",
           x->kind == CZK_VANILLA_POST_WINNING ? "Winning" : "Window", (unsigned long long)x->size,
           (unsigned long long)st.n_rows, (unsigned long long)st.n_inputs,
           (unsigned long long)st.n_aux, dt);
    CHECK_EQ_INT(st.n_rows, x->st.n_rows);
    CHECK_EQ_INT(st.n_inputs, x->st.n_inputs);
    CHECK_EQ_INT(st.n_aux, x->st.n_aux);
    /* The table's nnz(A) counts the prover's input rows (one A entry each); czk_cs_stats
     * does not. */
    CHECK_EQ_INT(st.nnz_a + st.n_inputs, x->st.nnz_a);
    CHECK_EQ_INT(st.nnz_b, x->st.nnz_b);
    CHECK_EQ_INT(st.nnz_c, x->st.nnz_c);
    CHECK_EQ_INT(st.a_aux_density, x->st.a_aux_density);
    CHECK_EQ_INT(st.b_input_density, x->st.b_input_density);
    CHECK_EQ_INT(st.b_aux_density, x->st.b_aux_density);
}

/* Every row of the table but the two big WindowPoSt circuits (post_counts_window_32g/64g). */
CZK_TEST(post_counts_match_table) {
    for (size_t k = 0; k < sizeof(post_table) / sizeof(post_table[0]); k++) {
        if (post_table[k].kind == CZK_VANILLA_POST_WINDOW && post_table[k].size >= 32 * GIB)
            continue;
        check_post_counts(t, &post_table[k]);
    }
}

/* The 32 GiB and 64 GiB WindowPoSt circuits in COUNT mode (125 M and 130 M rows): O(aux) bits
 * of memory, no matrices. Slow (see post_tests.h). */
/* 125 M and 130 M rows: heavy, left out of the sanitizer runs (500 s each under TSan), whose
 * smaller counts go through the same code. */
CZK_TEST(post_counts_window_32g) {
    if (czk_test_skip_heavy("post_counts_window_32g"))
        return;
    check_post_counts(t, &post_table[8]);
}
CZK_TEST(post_counts_window_64g) {
    if (czk_test_skip_heavy("post_counts_window_64g"))
        return;
    check_post_counts(t, &post_table[9]);
}

/* The digests (doc/FILECOIN.md §8) of the independent replay of the Rust synthesis. */
CZK_TEST(post_digests_match_model) {
    static const struct {
        czk_vanilla_post_kind kind;
        uint64_t size;
        const char *hex;
    } cases[] = {
        {CZK_VANILLA_POST_WINDOW, 2 * KIB,
         "337e786ad1306f56f1e6762ae36ccb4ed07e9305d835960ad36ad9a52c07c805"},
        {CZK_VANILLA_POST_WINDOW, 8 * MIB,
         "ef4a71cff65fc4846fb0fab0a2cdce222e2c051e64d77ef341b2edc812567508"},
        {CZK_VANILLA_POST_WINNING, 2 * KIB,
         "e5413103701313236ffc97a6cfa34095321ad8cc3495124a5b465d9411279e41"},
        {CZK_VANILLA_POST_WINNING, 8 * MIB,
         "984f55e66e1fe01c0aafac0d59bd94c30450e6aade575607c2fe02a6c272565b"},
        {CZK_VANILLA_POST_WINNING, 32 * GIB,
         "141218939cac1296332934212ffde0beea79dd58de0af156d3eb672ae7605b19"},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        post_ctx p = {.sectors = NULL, .n_sectors = 0};
        CHECK_EQ_INT(czk_post_shape_init(&p.shape, cases[k].kind, cases[k].size, NULL), CZK_OK);
        czk_cs_stats st;
        uint8_t d[32], want[32];
        czk_err e = {0};
        CHECKF(czk_harness_run_one(synth_post, &p, CZK_CS_COUNT, CZK_CS_DIGEST, &st, d, &e) ==
                   CZK_OK,
               "%s", e.msg);
        CHECK(czk_test_hex(want, 32, cases[k].hex));
        /* RECORD mode's matrices give the same digest. */
        {
            czk_cs *cs;
            czk_r1cs r;
            uint8_t dr[32];
            CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_RECORD, 0, NULL), CZK_OK);
            CHECK_EQ_INT(synth_post(cs, &p), CZK_OK);
            CHECK_EQ_INT(czk_cs_finish_r1cs(cs, &r, NULL), CZK_OK);
            czk_cs_destroy(cs);
            CHECK_EQ_INT(czk_cs_r1cs_digest(&r, dr, NULL), CZK_OK);
            czk_r1cs_clear(&r);
            CHECK_MEM(dr, d, 32);
        }
        char got[65];
        for (int i = 0; i < 32; i++)
            snprintf(got + 2 * i, 3, "%02x", d[i]);
        CHECKF(memcmp(d, want, 32) == 0, "case %zu: digest %s, model %s", k, got, cases[k].hex);
    }
}

/* The shapes: slots and challenges of every kind and size; unknown sizes refused. */
CZK_TEST(post_shapes) {
    static const uint64_t sizes[] = {2 * KIB, 8 * MIB, 512 * MIB, 32 * GIB, 64 * GIB};
    static const size_t window_slots[] = {2, 2, 2, 2349, 2300};
    for (size_t k = 0; k < 5; k++) {
        czk_post_shape s;
        CHECK_EQ_INT(czk_post_shape_init(&s, CZK_VANILLA_POST_WINNING, sizes[k], NULL), CZK_OK);
        CHECK_EQ_INT(s.slots, 66);
        CHECK_EQ_INT(s.challenges, 1);
        CHECK_EQ_INT(czk_post_shape_init(&s, CZK_VANILLA_POST_WINDOW, sizes[k], NULL), CZK_OK);
        CHECK_EQ_INT(s.slots, window_slots[k]);
        CHECK_EQ_INT(s.challenges, 10);
    }
    czk_post_shape s;
    CHECK_EQ_INT(czk_post_shape_init(&s, CZK_VANILLA_POST_WINDOW, 4 * KIB, NULL), CZK_EUNSUPPORTED);
}

/*
 * A synthetic 2 KiB sector (64 random leaves, one octree of two levels): n_incl inclusion
 * proofs of random leaves, comm_c random, comm_r = H2(comm_c, comm_r_last). The inclusions are
 * czk_malloc'ed (freed by czk_vanilla_sector_clear).
 */
static int make_2k_sector(czk_test_ctx *t, czk_vanilla_sector *s, size_t n_incl) {
    const czk_poseidon_constants *c8, *c2;
    if (czk_poseidon_constants_get(&c8, 8, NULL) || czk_poseidon_constants_get(&c2, 2, NULL))
        return 0;
    czk_fr leaves[64], mid[8], root;
    for (int i = 0; i < 64; i++)
        czk_fr_random(&leaves[i], &t->rng);
    for (int i = 0; i < 8; i++)
        (void)czk_poseidon_hash(c8, &leaves[8 * i], 8, &mid[i]);
    (void)czk_poseidon_hash(c8, mid, 8, &root);
    memset(s, 0, sizeof(*s));
    s->inclusion = czk_malloc(n_incl * sizeof(*s->inclusion));
    if (s->inclusion == NULL)
        return 0;
    memset(s->inclusion, 0, n_incl * sizeof(*s->inclusion));
    s->n_inclusions = n_incl;
    s->sector_id = czk_rng_u64(&t->rng);
    s->comm_r_last = root;
    czk_fr_random(&s->comm_c, &t->rng);
    czk_fr pair[2] = {s->comm_c, root};
    (void)czk_poseidon_hash(c2, pair, 2, &s->comm_r);
    for (size_t k = 0; k < n_incl; k++) {
        czk_vanilla_inclusion *inc = &s->inclusion[k];
        uint32_t leaf = (uint32_t)(czk_rng_u64(&t->rng) % 64);
        inc->leaf = leaves[leaf];
        inc->root = root;
        inc->leaf_index = leaf;
        inc->n_levels = 2;
        const czk_fr *rows[2] = {&leaves[leaf & ~7u], mid};
        uint32_t idx[2] = {leaf & 7, leaf >> 3};
        for (int l = 0; l < 2; l++) {
            inc->level[l].arity = 8;
            inc->level[l].index = idx[l];
            for (uint32_t i = 0, j = 0; i < 8; i++)
                if (i != idx[l])
                    inc->level[l].sib[j++] = rows[l][i];
        }
    }
    return 1;
}

/* Synthetic 2 KiB sectors through every mode: WindowPoSt with one sector (padded to two slots)
 * and WinningPoSt (66 slots over one sector's 66 inclusions); the inputs are comm_r and the
 * leaf indices, slot by slot. */
CZK_TEST(post_2k_synthetic_satisfied) {
    for (int kind = 0; kind < 2; kind++) {
        post_ctx p;
        czk_vanilla_sector s;
        CHECK_EQ_INT(czk_post_shape_init(&p.shape,
                                         kind ? CZK_VANILLA_POST_WINNING : CZK_VANILLA_POST_WINDOW,
                                         2 * KIB, NULL),
                     CZK_OK);
        size_t n_incl = kind ? p.shape.slots : p.shape.challenges;
        CHECK(make_2k_sector(t, &s, n_incl));
        p.sectors = &s;
        p.n_sectors = 1;
        czk_harness_run res;
        int ok = czk_harness_run_modes(t, synth_post, &p, CZK_HARNESS_AUX_USED, &res);
        if (ok) {
            size_t in = 1;
            for (size_t slot = 0; slot < p.shape.slots; slot++) {
                CHECK(czk_fr_equal(&res.w[in++], &s.comm_r));
                for (size_t k = 0; k < p.shape.challenges; k++) {
                    czk_fr idx;
                    size_t i = kind ? slot : k;
                    czk_fr_set_u64(&idx, s.inclusion[i].leaf_index);
                    CHECK(czk_fr_equal(&res.w[in++], &idx));
                }
            }
            CHECK_EQ_INT(in, res.stats.n_inputs);
            czk_harness_run_clear(&res);
        }
        czk_vanilla_sector_clear(&s);
        if (!ok)
            return;
    }
}

/* Proofs that do not fit are refused: none with values, too many, a wrong challenge count. */
CZK_TEST(post_rejects_bad_sectors) {
    post_ctx p;
    czk_vanilla_sector s[3];
    CHECK_EQ_INT(czk_post_shape_init(&p.shape, CZK_VANILLA_POST_WINDOW, 2 * KIB, NULL), CZK_OK);
    for (int i = 0; i < 3; i++)
        CHECK(make_2k_sector(t, &s[i], i == 2 ? 9 : 10));
    czk_cs *cs;
    p.sectors = NULL;
    p.n_sectors = 0;
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, NULL), CZK_OK);
    CHECK_EQ_INT(synth_post(cs, &p), CZK_EINVAL);
    czk_cs_destroy(cs);
    p.sectors = s;
    p.n_sectors = 3; /* 2 slots */
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, NULL), CZK_OK);
    CHECK_EQ_INT(synth_post(cs, &p), CZK_EINVAL);
    czk_cs_destroy(cs);
    p.sectors = &s[1];
    p.n_sectors = 2; /* the second has 9 inclusions */
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, NULL), CZK_OK);
    CHECK_EQ_INT(synth_post(cs, &p), CZK_EINVAL);
    czk_cs_destroy(cs);
    /* A wrong comm_r fails its equal row. */
    czk_fr_add(&s[0].comm_r, &s[0].comm_r, &CZK_FR_ONE);
    p.sectors = s;
    p.n_sectors = 1;
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, CZK_CS_CHECK, NULL), CZK_OK);
    CHECK_EQ_INT(synth_post(cs, &p), CZK_EVERIFY);
    czk_cs_destroy(cs);
    for (int i = 0; i < 3; i++)
        czk_vanilla_sector_clear(&s[i]);
}

/* The real 32 GiB WindowPoSt sector proof as a one-slot circuit of the 32 GiB WindowPoSt shape
 * (53,333 rows, one slot of the table): every mode, satisfied; inputs comm_r then the ten leaf
 * indices. */
CZK_TEST(post_real_32g_window_slot) {
    czk_vanilla_sector s;
    CHECK_EQ_INT(decode_real(&s), CZK_OK);
    post_ctx p = {.sectors = &s, .n_sectors = 1};
    CHECK_EQ_INT(czk_post_shape_init(&p.shape, CZK_VANILLA_POST_WINDOW, 32 * GIB, NULL), CZK_OK);
    p.shape.slots = 1;
    czk_harness_run res;
    if (czk_harness_run_modes(t, synth_post, &p, CZK_HARNESS_AUX_USED, &res)) {
        CHECK_EQ_INT(res.stats.n_rows, post_table[8].st.n_rows / 2349);
        CHECK_EQ_INT(res.stats.n_aux, post_table[8].st.n_aux / 2349);
        CHECK_EQ_INT(res.stats.n_inputs, 12);
        CHECK(czk_fr_equal(&res.w[1], &s.comm_r));
        for (size_t k = 0; k < 10; k++) {
            czk_fr idx;
            czk_fr_set_u64(&idx, s.inclusion[k].leaf_index);
            CHECK(czk_fr_equal(&res.w[2 + k], &idx));
        }
        czk_harness_run_clear(&res);
    }
    czk_vanilla_sector_clear(&s);
}

/* WinningPoSt 32 GiB over the real sector, its ten inclusion proofs cycled to fill the 66
 * one-challenge slots (the circuit does not derive challenges, so any valid paths into
 * comm_r_last serve): every mode, satisfied; and the WITNESS pass timed. */
CZK_TEST(post_real_32g_winning_cycled) {
    czk_vanilla_sector s, w66;
    CHECK_EQ_INT(decode_real(&s), CZK_OK);
    post_ctx p = {.sectors = &w66, .n_sectors = 1};
    CHECK_EQ_INT(czk_post_shape_init(&p.shape, CZK_VANILLA_POST_WINNING, 32 * GIB, NULL), CZK_OK);
    w66 = s;
    w66.n_inclusions = p.shape.slots;
    w66.inclusion = czk_malloc(w66.n_inclusions * sizeof(*w66.inclusion));
    CHECK(w66.inclusion != NULL);
    for (size_t k = 0; k < w66.n_inclusions; k++)
        w66.inclusion[k] = s.inclusion[k % s.n_inclusions];
    czk_cs *cs;
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, NULL), CZK_OK);
    double t0 = now_s();
    CHECK_EQ_INT(synth_post(cs, &p), CZK_OK);
    printf("  WinningPoSt 32 GiB witness: %.3f s\n", now_s() - t0);
    czk_cs_destroy(cs);
    czk_harness_run res;
    if (czk_harness_run_modes(t, synth_post, &p, CZK_HARNESS_AUX_USED, &res)) {
        CHECK_EQ_INT(res.stats.n_rows, post_table[3].st.n_rows);
        for (size_t slot = 0; slot < p.shape.slots; slot++)
            CHECK(czk_fr_equal(&res.w[1 + 2 * slot], &s.comm_r));
        czk_harness_run_clear(&res);
    }
    czk_vanilla_sector_clear(&w66);
    czk_vanilla_sector_clear(&s);
}

/* ---- the parallel witness (czk_post_witness) ---------------------------------------------- */

/* The constraint system's parts the parallel witness stands on (cs.h): values bound to caller
 * memory (inputs after ONE, aux), blocks of aux, rows counted without enforce, and the
 * refusals that keep a synthesis inside the caller's bounds. */
CZK_TEST(cs_bind_values_and_blocks) {
    czk_fr in[2], aux[4], five, *vals = NULL;
    czk_var v, first;
    czk_cs *cs;
    czk_cs_stats st;
    memset(in, 0, sizeof in);
    memset(aux, 0, sizeof aux);
    czk_fr_set_u64(&five, 5);
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_bind_values(cs, in, 2, aux, 4), CZK_OK);
    CHECK_EQ_INT(czk_cs_alloc_input(cs, &v, &five), CZK_OK);
    CHECK_EQ_INT(v, CZK_VAR_INPUT | 1);
    CHECK(czk_cs_value(cs, v) == &in[0] && czk_fr_equal(&in[0], &five));
    CHECK(czk_fr_is_one(czk_cs_value(cs, CZK_VAR_ONE)));
    CHECK_EQ_INT(czk_cs_alloc(cs, &v, &five), CZK_OK);
    CHECK(v == 0 && czk_fr_equal(&aux[0], &five));
    CHECK_EQ_INT(czk_cs_alloc_aux_block(cs, 3, &first, &vals), CZK_OK);
    CHECK(first == 1 && vals == &aux[1]);
    CHECK_EQ_INT(czk_cs_count_rows(cs, 505), CZK_OK);
    czk_cs_get_stats(cs, &st);
    CHECK(st.n_rows == 505 && st.n_aux == 4 && st.n_inputs == 2);
    CHECK(czk_cs_aux_values(cs, NULL) == NULL && czk_cs_input_values(cs, NULL) == NULL);
    {
        czk_fr *w = NULL;
        size_t n = 0;
        CHECK_EQ_INT(czk_cs_witness(cs, &w, &n, NULL), CZK_EINVAL);
    }
    /* One aux more than the caller laid out: refused, and sticky. */
    CHECK_EQ_INT(czk_cs_alloc(cs, &v, &five), CZK_EINVAL);
    CHECK_EQ_INT(czk_cs_alloc_input(cs, &v, &five), CZK_EINVAL);
    czk_cs_destroy(cs); /* leaves the caller's memory alone */
    CHECK(czk_fr_equal(&aux[0], &five));

    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_bind_values(cs, in, 1, aux, 4), CZK_OK);
    CHECK_EQ_INT(czk_cs_alloc_input(cs, &v, &five), CZK_OK);
    CHECK_EQ_INT(czk_cs_alloc_input(cs, &v, &five), CZK_EINVAL); /* one input bound */
    czk_cs_destroy(cs);
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_bind_values(cs, in, 2, aux, 2), CZK_OK);
    CHECK_EQ_INT(czk_cs_alloc_aux_block(cs, 3, &first, &vals), CZK_EINVAL); /* block too big */
    czk_cs_destroy(cs);
    /* Bound only when fresh and in WITNESS mode; rows counted only where none are built. */
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_alloc(cs, &v, &five), CZK_OK);
    CHECK_EQ_INT(czk_cs_bind_values(cs, in, 2, aux, 4), CZK_EINVAL);
    czk_cs_destroy(cs);
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_WITNESS, CZK_CS_CHECK, NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_count_rows(cs, 1), CZK_EINVAL);
    czk_cs_destroy(cs);
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_COUNT, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_bind_values(cs, in, 2, aux, 4), CZK_EINVAL);
    czk_cs_destroy(cs);
    /* A block in COUNT mode: counted, no values. */
    CHECK_EQ_INT(czk_cs_create(&cs, CZK_CS_COUNT, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_cs_alloc_aux_block(cs, 7, &first, &vals), CZK_OK);
    CHECK(first == 0 && vals == NULL);
    czk_cs_get_stats(cs, &st);
    CHECK_EQ_INT(st.n_aux, 7);
    czk_cs_destroy(cs);
}

/* The sequential witness: czk_post_synthesize in WITNESS mode (with `flags`), as a vector. */
static int seq_witness(const post_ctx *p, unsigned flags, czk_fr **w, size_t *n, czk_err *err) {
    czk_cs *cs;
    int rc = czk_cs_create(&cs, CZK_CS_WITNESS, flags, err);
    if (rc != CZK_OK)
        return rc;
    rc = czk_post_synthesize(cs, &p->shape, p->sectors, p->n_sectors);
    if (rc != CZK_OK && err)
        *err = *czk_cs_error(cs);
    if (rc == CZK_OK)
        rc = czk_cs_witness(cs, w, n, err);
    czk_cs_destroy(cs);
    return rc;
}

/* czk_post_witness on a pool of `ways` (1: none) equals `want` (n values) value for value.
 * The buffer starts out as garbage, so that a value the parallel path skips shows. */
static void check_par_witness(czk_test_ctx *t, const post_ctx *p, unsigned ways, const czk_fr *want,
                              size_t n) {
    size_t ni = 0, na = 0;
    czk_err e = {0};
    CHECKF(czk_post_witness_dims(&p->shape, &ni, &na, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(ni + na, n);
    czk_fr *w = czk_malloc(n * sizeof *w);
    CHECK(w != NULL);
    memset(w, 0xa5, n * sizeof *w);
    czk_pool *pool = NULL;
    if (ways > 1 && czk_pool_create(&pool, ways) != CZK_OK) {
        czk_free(w);
        CHECK(0);
    }
    int rc = czk_post_witness(&p->shape, p->sectors, p->n_sectors, w, ni, na, pool, &e);
    czk_pool_destroy(pool);
    size_t bad = rc == CZK_OK ? n : 0;
    for (size_t i = 0; rc == CZK_OK && i < n && bad == n; i++)
        if (!czk_fr_equal(&w[i], &want[i]))
            bad = i;
    czk_harness_free_witness(w, n);
    CHECKF(rc == CZK_OK, "%zu ways: %s", (size_t)ways, e.msg);
    CHECKF(bad == n, "%zu ways, %zu slots, %zu sectors: value %zu of %zu differs", (size_t)ways,
           p->shape.slots, p->n_sectors, bad, n);
}

/* Synthetic 2 KiB sectors: WindowPoSt with 1 sector (padded) and 2; a 5-slot WindowPoSt over 3
 * distinct sectors (slot order and padding: a slot given the wrong sector differs); WinningPoSt
 * (66 slots over one sector's 66 inclusions). Each on pools of 1, 2 and 3 ways, equal to the
 * sequential witness, which equals the one made under CHECK (rows built, every row holding);
 * the 2-sector one also satisfies the recorded system. Then the refusals. */
CZK_TEST(post_witness_parallel_2k) {
    czk_vanilla_sector s[3], win;
    czk_post_shape window, winning;
    CHECK_EQ_INT(czk_post_shape_init(&window, CZK_VANILLA_POST_WINDOW, 2 * KIB, NULL), CZK_OK);
    CHECK_EQ_INT(czk_post_shape_init(&winning, CZK_VANILLA_POST_WINNING, 2 * KIB, NULL), CZK_OK);
    for (int i = 0; i < 3; i++)
        CHECK(make_2k_sector(t, &s[i], window.challenges));
    CHECK(make_2k_sector(t, &win, winning.slots));
    struct {
        czk_post_shape shape;
        const czk_vanilla_sector *sectors;
        size_t n_sectors, slots;
    } cases[] = {
        {window, s, 1, 2},
        {window, s, 2, 2},
        {window, s, 3, 5},
        {winning, &win, 1, 66},
    };
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        post_ctx p = {cases[k].shape, cases[k].sectors, cases[k].n_sectors};
        p.shape.slots = cases[k].slots;
        czk_fr *want = NULL, *checked = NULL;
        size_t n = 0, n_checked = 0;
        czk_err e = {0};
        CHECKF(seq_witness(&p, 0, &want, &n, &e) == CZK_OK, "case %zu: %s", k, e.msg);
        /* Under CHECK rows are built and each value goes its own way (no block, no memo), and
         * every row is evaluated: the same vector. */
        int rc = seq_witness(&p, CZK_CS_CHECK, &checked, &n_checked, &e);
        int same = rc == CZK_OK && n_checked == n && memcmp(checked, want, n * sizeof *want) == 0;
        czk_harness_free_witness(checked, n_checked);
        if (!same)
            czk_test_fail(t, __FILE__, __LINE__, "case %zu: the witness under CHECK differs: %s", k,
                          rc == CZK_OK ? "values" : e.msg);
        for (unsigned ways = 1; ways <= 3 && !t->failures; ways++)
            check_par_witness(t, &p, ways, want, n);
        if (k == 1 && !t->failures) {
            /* Every row of the recorded system holds on the (equal) parallel witness. */
            czk_cs *cs;
            czk_r1cs r;
            size_t bad = SIZE_MAX;
            memset(&r, 0, sizeof r);
            int rc = czk_cs_create(&cs, CZK_CS_RECORD, 0, &e);
            if (rc == CZK_OK) {
                rc = czk_post_synthesize(cs, &p.shape, NULL, 0);
                if (rc == CZK_OK)
                    rc = czk_cs_finish_r1cs(cs, &r, &e);
                czk_cs_destroy(cs);
            }
            if (rc == CZK_OK)
                rc = r.n_vars == n ? czk_r1cs_check(&r, want, &bad, NULL, &e) : CZK_EINVAL;
            czk_r1cs_clear(&r);
            if (rc != CZK_OK)
                czk_test_fail(t, __FILE__, __LINE__, "row %zu: %s", bad, e.msg);
        }
        czk_harness_free_witness(want, n);
        if (t->failures)
            break;
    }
    /* Refused: proofs that do not fit, and a layout that does not match the slots. */
    if (!t->failures) {
        post_ctx p = {window, s, 2};
        size_t ni = 0, na = 0;
        CHECK_EQ_INT(czk_post_witness_dims(&p.shape, &ni, &na, NULL), CZK_OK);
        czk_fr *w = czk_malloc((ni + na + 2) * sizeof *w);
        CHECK(w != NULL);
        int r1 = czk_post_witness(&p.shape, s, 3, w, ni, na, NULL, NULL);
        int r2 = czk_post_witness(&p.shape, NULL, 0, w, ni, na, NULL, NULL);
        int r3 = czk_post_witness(&p.shape, s, 2, w, ni, na + 2, NULL, NULL);
        int r4 = czk_post_witness(&p.shape, s, 2, w, ni + 2, na, NULL, NULL);
        czk_err e = {0};
        int r5 = czk_post_witness(&p.shape, s, 2, w, ni, na, NULL, &e);
        czk_harness_free_witness(w, ni + na + 2);
        CHECK_EQ_INT(r1, CZK_EINVAL);
        CHECK_EQ_INT(r2, CZK_EINVAL);
        CHECK_EQ_INT(r3, CZK_EINVAL);
        CHECK_EQ_INT(r4, CZK_EINVAL);
        CHECKF(r5 == CZK_OK, "%s", e.msg);
    }
    for (int i = 0; i < 3; i++)
        czk_vanilla_sector_clear(&s[i]);
    czk_vanilla_sector_clear(&win);
}

/* The real 32 GiB WindowPoSt sector as 3 sectors (its ten inclusion proofs rotated by 0, 1 and
 * 2, so that the slots differ) in a 7-slot WindowPoSt of the 32 GiB shape, the last sector
 * repeated in slots 3-6: the parallel witness on pools of 1, 2 and 3 ways equals the sequential
 * one, made under CHECK, so every row holds on it. */
CZK_TEST(post_witness_parallel_real_32g) {
    czk_vanilla_sector real, s[3];
    CHECK_EQ_INT(decode_real(&real), CZK_OK);
    memset(s, 0, sizeof s);
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
        s[i] = real;
        s[i].inclusion = czk_malloc(real.n_inclusions * sizeof(*real.inclusion));
        ok = s[i].inclusion != NULL;
        for (size_t k = 0; ok && k < real.n_inclusions; k++)
            s[i].inclusion[k] = real.inclusion[(k + (size_t)i) % real.n_inclusions];
        if (!ok)
            s[i].inclusion = NULL;
    }
    post_ctx p = {.sectors = s, .n_sectors = 3};
    czk_fr *want = NULL;
    size_t n = 0;
    czk_err e = {0};
    int rc = CZK_ENOMEM;
    if (ok) {
        rc = czk_post_shape_init(&p.shape, CZK_VANILLA_POST_WINDOW, 32 * GIB, &e);
        p.shape.slots = 7;
        double t0 = now_s();
        if (rc == CZK_OK)
            rc = seq_witness(&p, CZK_CS_CHECK, &want, &n, &e);
        printf("  sequential witness under CHECK, 7 slots: %.3f s\n", now_s() - t0);
    }
    if (rc == CZK_OK) {
        /* Slot 1 takes sector 1 (rotated by one): its first leaf index is the real second. */
        czk_fr idx;
        czk_fr_set_u64(&idx, real.inclusion[1].leaf_index);
        if (!czk_fr_equal(&want[1 + 11 + 1], &idx))
            czk_test_fail(t, __FILE__, __LINE__, "slot 1's first leaf index");
        for (unsigned ways = 1; ways <= 3 && !t->failures; ways++) {
            double t0 = now_s();
            check_par_witness(t, &p, ways, want, n);
            printf("  parallel witness, %u ways: %.3f s\n", ways, now_s() - t0);
        }
    } else {
        czk_test_fail(t, __FILE__, __LINE__, "sequential witness: %s", e.msg);
    }
    czk_harness_free_witness(want, n);
    for (int i = 0; i < 3; i++)
        czk_vanilla_sector_clear(&s[i]);
    czk_vanilla_sector_clear(&real);
}

/* The repeated-block form (czk_circuit_post_record_rep) expands to the recorded system entry
 * for entry, and its density pass equals the CSR one: 2 KiB WindowPoSt (2 slots), 2 KiB and
 * 8 MiB WinningPoSt (66 slots). A wrong column map (say, the aux of copy s placed after the
 * inputs of copy s) would differ in the first copy past 0. */
CZK_TEST(post_record_rep_matches_record) {
    static const struct {
        czk_vanilla_post_kind kind;
        uint64_t size;
    } cases[] = {{CZK_VANILLA_POST_WINDOW, 2 * KIB},
                 {CZK_VANILLA_POST_WINNING, 2 * KIB},
                 {CZK_VANILLA_POST_WINNING, 8 * KIB * KIB}};
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        czk_post_shape shape;
        czk_r1cs full = {0}, ex = {0};
        czk_r1cs_rep rep = {0};
        czk_err err = {0};
        CHECK_EQ_INT(czk_post_shape_init(&shape, cases[i].kind, cases[i].size, NULL), CZK_OK);
        CHECK_EQ_INT(czk_circuit_post_record(&full, NULL, &shape, &err), CZK_OK);
        czk_cs_stats counted, scaled;
        CHECK_EQ_INT(czk_circuit_post_count(&counted, NULL, &shape, &err), CZK_OK);
        CHECK_EQ_INT(czk_circuit_post_record_rep(&rep, &scaled, &shape, &err), CZK_OK);
        CHECK(memcmp(&counted, &scaled, sizeof counted) == 0);
        CHECK_EQ_INT(rep.copies, shape.slots);
        CHECK(rep.copies > 1);
        CHECK_EQ_INT(czk_r1cs_rep_expand(&rep, &ex, pool, &err), CZK_OK);
        CHECK_EQ_INT(ex.n_constraints, full.n_constraints);
        CHECK_EQ_INT(ex.n_vars, full.n_vars);
        CHECK_EQ_INT(ex.n_public, full.n_public);
        const czk_r1cs_matrix *fm[3] = {&full.a, &full.b, &full.c}, *em[3] = {&ex.a, &ex.b, &ex.c};
        for (int m = 0; m < 3; m++) {
            uint64_t nnz = czk_r1cs_nnz(fm[m], full.n_constraints);
            CHECK_EQ_INT(czk_r1cs_rep_nnz(&rep, m), nnz);
            CHECK_EQ_INT(czk_r1cs_nnz(em[m], ex.n_constraints), nnz);
            if (czk_r1cs_nnz(em[m], ex.n_constraints) != nnz)
                continue;
            CHECK(memcmp(fm[m]->row_ptr, em[m]->row_ptr,
                         (full.n_constraints + 1) * sizeof(uint64_t)) == 0);
            CHECK(memcmp(fm[m]->cols, em[m]->cols, nnz * sizeof(uint32_t)) == 0);
            CHECK(memcmp(fm[m]->vals, em[m]->vals, nnz * sizeof(czk_fr)) == 0);
        }
        CHECK_EQ_INT(czk_r1cs_validate(&ex, pool, &err), CZK_OK);
        size_t words = (full.n_vars + 63) / 64;
        uint64_t *fa = calloc(words, 8), *fb = calloc(words, 8), *ra = calloc(words, 8),
                 *rb = calloc(words, 8);
        CHECK(fa != NULL && fb != NULL && ra != NULL && rb != NULL);
        if (fa != NULL && fb != NULL && ra != NULL && rb != NULL) {
            CHECK_EQ_INT(czk_r1cs_density(&full, fa, fb), CZK_OK);
            CHECK_EQ_INT(czk_r1cs_rep_density(&rep, ra, rb, &err), CZK_OK);
            CHECK(memcmp(fa, ra, words * 8) == 0);
            CHECK(memcmp(fb, rb, words * 8) == 0);
        }
        free(fa);
        free(fb);
        free(ra);
        free(rb);
        czk_r1cs_clear(&full);
        czk_r1cs_clear(&ex);
        czk_r1cs_rep_clear(&rep);
    }
    czk_pool_destroy(pool);
}
