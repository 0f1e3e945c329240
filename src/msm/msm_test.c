/*
 * MSM tests: every result is compared with an independent computation, the naive sum of
 * variable-time scalar multiplications (czk_g1/g2_jacobian_mul_var, the curve code's own GLV
 * and GLS wNAF) or, for batch addition, a plain loop of mixed additions.
 */
#include "tests/test.h"

#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "msm/msm.h"
#include "msm/msm_internal.h"
#include "util/alloc.h"
#include "util/pool.h"

/* ---- helpers ------------------------------------------------------------------------------ */

/* n distinct points of G1: four random ones, then P_i = P_{i-1} + P_{i mod 4} (cheap). */
static int g1_points(czk_g1_affine *out, size_t n, czk_rng *rng) {
    czk_g1_jacobian *j = czk_malloc((n + 1) * sizeof(*j));
    czk_g1_affine base[4];
    if (j == NULL)
        return CZK_ENOMEM;
    for (int i = 0; i < 4; i++)
        czk_g1_random(&base[i], rng);
    for (size_t i = 0; i < n; i++) {
        if (i < 4)
            czk_g1_jacobian_from_affine(&j[i], &base[i]);
        else
            czk_g1_jacobian_add_affine_var(&j[i], &j[i - 1], &base[i % 4]);
    }
    int rc = czk_g1s_to_affine(out, j, n);
    czk_free(j);
    return rc;
}

static int g2_points(czk_g2_affine *out, size_t n, czk_rng *rng) {
    czk_g2_jacobian *j = czk_malloc((n + 1) * sizeof(*j));
    czk_g2_affine base[4];
    if (j == NULL)
        return CZK_ENOMEM;
    for (int i = 0; i < 4; i++)
        czk_g2_random(&base[i], rng);
    for (size_t i = 0; i < n; i++) {
        if (i < 4)
            czk_g2_jacobian_from_affine(&j[i], &base[i]);
        else
            czk_g2_jacobian_add_affine_var(&j[i], &j[i - 1], &base[i % 4]);
    }
    int rc = czk_g2s_to_affine(out, j, n);
    czk_free(j);
    return rc;
}

static void g1_naive(czk_g1_jacobian *out, const czk_g1_affine *p, const czk_fr *k, size_t n) {
    czk_g1_jacobian_set_infinity(out);
    for (size_t i = 0; i < n; i++) {
        czk_g1_jacobian pj, t;
        czk_g1_jacobian_from_affine(&pj, &p[i]);
        czk_g1_jacobian_mul_var(&t, &pj, &k[i]);
        czk_g1_jacobian_add_var(out, out, &t);
    }
}

static void g2_naive(czk_g2_jacobian *out, const czk_g2_affine *p, const czk_fr *k, size_t n) {
    czk_g2_jacobian_set_infinity(out);
    for (size_t i = 0; i < n; i++) {
        czk_g2_jacobian pj, t;
        czk_g2_jacobian_from_affine(&pj, &p[i]);
        czk_g2_jacobian_mul_var(&t, &pj, &k[i]);
        czk_g2_jacobian_add_var(out, out, &t);
    }
}

static void g1_naive_sum(czk_g1_jacobian *out, const czk_g1_affine *p, const uint64_t *bm,
                         size_t n) {
    czk_g1_jacobian_set_infinity(out);
    for (size_t i = 0; i < n; i++)
        if ((bm[i / 64] >> (i % 64)) & 1)
            czk_g1_jacobian_add_affine_var(out, out, &p[i]);
}

static void g2_naive_sum(czk_g2_jacobian *out, const czk_g2_affine *p, const uint64_t *bm,
                         size_t n) {
    czk_g2_jacobian_set_infinity(out);
    for (size_t i = 0; i < n; i++)
        if ((bm[i / 64] >> (i % 64)) & 1)
            czk_g2_jacobian_add_affine_var(out, out, &p[i]);
}

enum scalar_kind { SC_RANDOM, SC_ZERO, SC_ONE, SC_MIX01, SC_RMINUS1, SC_SMALL, SC_EQUAL };

static void fill_scalars(czk_fr *k, size_t n, enum scalar_kind kind, czk_rng *rng) {
    czk_fr same;
    czk_fr_random(&same, rng);
    for (size_t i = 0; i < n; i++) {
        switch (kind) {
        case SC_RANDOM:
            czk_fr_random(&k[i], rng);
            break;
        case SC_ZERO:
            czk_fr_set_zero(&k[i]);
            break;
        case SC_ONE:
            czk_fr_set_one(&k[i]);
            break;
        case SC_MIX01: {
            /* 45 % zero, 45 % one, 10 % random: a Groth16 witness. */
            uint64_t r = czk_rng_u64(rng) % 100;
            if (r < 45)
                czk_fr_set_zero(&k[i]);
            else if (r < 90)
                czk_fr_set_one(&k[i]);
            else
                czk_fr_random(&k[i], rng);
            break;
        }
        case SC_RMINUS1:
            czk_fr_set_one(&k[i]);
            czk_fr_neg(&k[i], &k[i]);
            break;
        case SC_SMALL:
            czk_fr_set_u64(&k[i], 2 + czk_rng_u64(rng) % 6);
            break;
        case SC_EQUAL:
            k[i] = same;
            break;
        }
    }
}

/* ---- GLV split and endomorphism constants -------------------------------------------------- */

/* Reference: binary long division of k by x^2, k and x^2 as plain integers. */
static void slow_split(uint64_t out[4], const uint64_t k[4]) {
    const unsigned __int128 d = ((unsigned __int128)0xac45a4010001a402ULL << 64) | 0x100000000ULL;
    unsigned __int128 rem = 0, quo = 0;
    for (int i = 255; i >= 0; i--) {
        int top = (int)(rem >> 127);
        rem = (rem << 1) | ((k[i / 64] >> (i % 64)) & 1);
        quo <<= 1;
        if (top || rem >= d) {
            rem -= d;
            quo |= 1;
        }
    }
    out[0] = (uint64_t)rem;
    out[1] = (uint64_t)(rem >> 64);
    out[2] = (uint64_t)quo;
    out[3] = (uint64_t)(quo >> 64);
}

CZK_TEST(msm_glv_split) {
    uint64_t edge[][4] = {
        {0, 0, 0, 0},
        {1, 0, 0, 0},
        {0x00000000ffffffffULL, 0xac45a4010001a402ULL, 0, 0}, /* x^2 - 1 */
        {0x0000000100000000ULL, 0xac45a4010001a402ULL, 0, 0}, /* x^2 */
        {0xffffffff00000000ULL, 0x53bda402fffe5bfeULL, 0x3339d80809a1d805ULL,
         0x73eda753299d7d48ULL}, /* r - 1 */
        {0, 0, 0, 0x4000000000000000ULL},
    };
    uint64_t got[4], want[4];
    for (size_t i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
        czk__msm_glv_split(got, edge[i]);
        slow_split(want, edge[i]);
        CHECKF(memcmp(got, want, sizeof(got)) == 0, "edge case %zu", i);
    }
    long iters = czk_test_iters(t, 20000);
    for (long it = 0; it < iters; it++) {
        czk_fr k;
        uint64_t kl[4];
        czk_fr_random(&k, &t->rng);
        czk_fr_to_limbs(kl, &k);
        czk__msm_glv_split(got, kl);
        slow_split(want, kl);
        CHECK_MEM(got, want, sizeof(got));
    }
}

/* Scalars x^2 and x^2 + 1 isolate the endomorphism half: [x^2]P must be (beta x, -y). */
CZK_TEST(msm_endomorphism_constants) {
    czk_fr k[2];
    const uint64_t x2[4] = {0x0000000100000000ULL, 0xac45a4010001a402ULL, 0, 0};
    CHECK_EQ_INT(czk_fr_from_limbs(&k[0], x2), CZK_OK);
    czk_fr_set_one(&k[1]);
    czk_fr_add(&k[1], &k[1], &k[0]);
    czk__msm_cfg cfg;
    czk__msm_cfg_default(&cfg);
    cfg.window = 5; /* force Pippenger even for one point */
    for (int i = 0; i < 3; i++) {
        czk_g1_affine p1[2];
        czk_g2_affine p2[2];
        czk_g1_random(&p1[0], &t->rng);
        czk_g1_random(&p1[1], &t->rng);
        czk_g2_random(&p2[0], &t->rng);
        czk_g2_random(&p2[1], &t->rng);
        czk_g1_jacobian r1, w1;
        czk_g2_jacobian r2, w2;
        for (size_t n = 1; n <= 2; n++) {
            CHECK_EQ_INT(czk__msm_g1_cfg(&r1, p1, k, n, &cfg, NULL, NULL), CZK_OK);
            g1_naive(&w1, p1, k, n);
            CHECK(czk_g1_jacobian_equal(&r1, &w1));
            CHECK_EQ_INT(czk_msm_g1(&r1, p1, k, n, NULL, NULL), CZK_OK);
            CHECK(czk_g1_jacobian_equal(&r1, &w1));
            CHECK_EQ_INT(czk__msm_g2_cfg(&r2, p2, k, n, &cfg, NULL, NULL), CZK_OK);
            g2_naive(&w2, p2, k, n);
            CHECK(czk_g2_jacobian_equal(&r2, &w2));
            CHECK_EQ_INT(czk_msm_g2(&r2, p2, k, n, NULL, NULL), CZK_OK);
            CHECK(czk_g2_jacobian_equal(&r2, &w2));
        }
    }
}

/* ---- G1 ----------------------------------------------------------------------------------- */

CZK_TEST(msm_g1_sizes) {
    static const size_t sizes[] = {0, 1, 2, 3, 7, 8, 9, 64, 1000, 4097};
    size_t nmax = 4097;
    czk_g1_affine *p = czk_malloc(nmax * sizeof(*p));
    czk_fr *k = czk_malloc(nmax * sizeof(*k));
    CHECK(p != NULL && k != NULL);
    CHECK_EQ_INT(g1_points(p, nmax, &t->rng), CZK_OK);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        czk_g1_jacobian got, want;
        fill_scalars(k, n, SC_RANDOM, &t->rng);
        size_t before = czk_alloc_in_use();
        CHECK_EQ_INT(czk_msm_g1(&got, p, k, n, NULL, NULL), CZK_OK);
        CHECK_EQ_INT(czk_alloc_in_use(), before);
        g1_naive(&want, p, k, n);
        CHECKF(czk_g1_jacobian_equal(&got, &want), "n = %zu", n);
    }
    czk_free(p);
    czk_free(k);
}

CZK_TEST(msm_g1_special_scalars) {
    const size_t n = 1500;
    czk_g1_affine *p = czk_malloc(n * sizeof(*p));
    czk_fr *k = czk_malloc(n * sizeof(*k));
    CHECK(p != NULL && k != NULL);
    CHECK_EQ_INT(g1_points(p, n, &t->rng), CZK_OK);
    static const enum scalar_kind kinds[] = {SC_ZERO,    SC_ONE,   SC_MIX01,
                                             SC_RMINUS1, SC_SMALL, SC_EQUAL};
    for (size_t s = 0; s < sizeof(kinds) / sizeof(kinds[0]); s++) {
        czk_g1_jacobian got, want;
        fill_scalars(k, n, kinds[s], &t->rng);
        CHECK_EQ_INT(czk_msm_g1(&got, p, k, n, NULL, NULL), CZK_OK);
        g1_naive(&want, p, k, n);
        CHECKF(czk_g1_jacobian_equal(&got, &want), "scalar kind %d", (int)kinds[s]);
        if (kinds[s] == SC_ZERO)
            CHECK(czk_g1_jacobian_is_infinity(&got));
    }
    czk_free(p);
    czk_free(k);
}

/*
 * Duplicate points, points at infinity and P, -P pairs with equal scalars (their terms cancel:
 * the total is infinity), with random and 0/1 scalars: the doubling and cancellation cases of
 * the batch-affine additions.
 */
CZK_TEST(msm_g1_special_points) {
    const size_t n = 1200;
    czk_g1_affine *p = czk_malloc(n * sizeof(*p));
    czk_fr *k = czk_malloc(n * sizeof(*k));
    CHECK(p != NULL && k != NULL);
    CHECK_EQ_INT(g1_points(p, 8, &t->rng), CZK_OK);
    for (int mode = 0; mode < 4; mode++) {
        for (size_t i = 0; i < n; i++) {
            size_t r = czk_rng_u64(&t->rng) % 8;
            p[i] = p[r]; /* heavy duplication */
            if (mode == 1 && i % 5 == 0)
                memset(&p[i], 0, sizeof(p[i]));
        }
        fill_scalars(k, n, mode == 3 ? SC_MIX01 : SC_RANDOM, &t->rng);
        if (mode >= 2) {
            /* Second half = negated first half with the same scalars. */
            for (size_t i = n / 2; i < n; i++) {
                czk_g1_affine_neg(&p[i], &p[i - n / 2]);
                k[i] = k[i - n / 2];
            }
        }
        czk_g1_jacobian got, want;
        CHECK_EQ_INT(czk_msm_g1(&got, p, k, n, NULL, NULL), CZK_OK);
        g1_naive(&want, p, k, n);
        CHECKF(czk_g1_jacobian_equal(&got, &want), "mode %d", mode);
        if (mode >= 2)
            CHECKF(czk_g1_jacobian_is_infinity(&got), "mode %d", mode);
        /* The same without IFMA: the scalar batch additions' doublings and cancellations. */
        czk__msm_cfg scalar;
        czk__msm_cfg_default(&scalar);
        scalar.ifma = 0;
        CHECK_EQ_INT(czk__msm_g1_cfg(&got, p, k, n, &scalar, NULL, NULL), CZK_OK);
        CHECKF(czk_g1_jacobian_equal(&got, &want), "mode %d, no IFMA", mode);
        /* Duplicates again with the same scalar: every bucket gets equal points. */
        fill_scalars(k, n, SC_EQUAL, &t->rng);
        CHECK_EQ_INT(czk_msm_g1(&got, p, k, n, NULL, NULL), CZK_OK);
        g1_naive(&want, p, k, n);
        CHECKF(czk_g1_jacobian_equal(&got, &want), "mode %d, equal scalars", mode);
    }
    /*
     * P, -P, Q_i, P, -P, Q_i', ... with one scalar: every bucket sum cancels to infinity and
     * must restart from the next point. Wide windows too: many buckets, so that the bucket
     * batches (not only the sorted trees) see it.
     */
    czk_g1_affine base[3];
    CHECK_EQ_INT(g1_points(base, 3, &t->rng), CZK_OK);
    for (size_t i = 0; i < n; i++) {
        if (i % 3 == 0)
            p[i] = base[0];
        else if (i % 3 == 1)
            czk_g1_affine_neg(&p[i], &base[0]);
        else
            p[i] = base[1 + (i / 3) % 2];
    }
    fill_scalars(k, n, SC_EQUAL, &t->rng);
    czk_g1_jacobian got, want;
    g1_naive(&want, p, k, n);
    CHECK_EQ_INT(czk_msm_g1(&got, p, k, n, NULL, NULL), CZK_OK);
    CHECK(czk_g1_jacobian_equal(&got, &want));
    czk__msm_cfg cfg;
    czk__msm_cfg_default(&cfg);
    cfg.window = 12;
    CHECK_EQ_INT(czk__msm_g1_cfg(&got, p, k, n, &cfg, NULL, NULL), CZK_OK);
    CHECK(czk_g1_jacobian_equal(&got, &want));
    cfg.ifma = 0;
    CHECK_EQ_INT(czk__msm_g1_cfg(&got, p, k, n, &cfg, NULL, NULL), CZK_OK);
    CHECK(czk_g1_jacobian_equal(&got, &want));
    czk_free(p);
    czk_free(k);
}

/* The same inputs through pools of 1, 2 and 3 ways give the same point as the inline run. */
CZK_TEST(msm_g1_pools) {
    const size_t n = 3000;
    czk_g1_affine *p = czk_malloc(n * sizeof(*p));
    czk_fr *k = czk_malloc(n * sizeof(*k));
    CHECK(p != NULL && k != NULL);
    CHECK_EQ_INT(g1_points(p, n, &t->rng), CZK_OK);
    for (int kind = 0; kind < 2; kind++) {
        fill_scalars(k, n, kind == 0 ? SC_RANDOM : SC_MIX01, &t->rng);
        czk_g1_jacobian want, got;
        g1_naive(&want, p, k, n);
        for (unsigned ways = 1; ways <= 3; ways++) {
            czk_pool *pool = NULL;
            CHECK_EQ_INT(czk_pool_create(&pool, ways), CZK_OK);
            CHECK_EQ_INT(czk_msm_g1(&got, p, k, n, pool, NULL), CZK_OK);
            CHECKF(czk_g1_jacobian_equal(&got, &want), "ways %u kind %d", ways, kind);
            /* Forced splits: tasks over bucket ranges of one window. */
            czk__msm_cfg cfg;
            czk__msm_cfg_default(&cfg);
            cfg.splits = 3;
            cfg.window = 9;
            CHECK_EQ_INT(czk__msm_g1_cfg(&got, p, k, n, &cfg, pool, NULL), CZK_OK);
            CHECKF(czk_g1_jacobian_equal(&got, &want), "ways %u kind %d, 3 splits", ways, kind);
            czk_pool_destroy(pool);
        }
    }
    czk_free(p);
    czk_free(k);
}

/*
 * Every technique switched on and off, windows from 1 to 16, splits and tiny chunks (the chunk
 * loop and bitmap words that straddle chunks): all agree with the naive sum.
 */
CZK_TEST(msm_g1_configs) {
    const size_t n = 300;
    czk_g1_affine *p = czk_malloc(n * sizeof(*p));
    czk_fr *k = czk_malloc(n * sizeof(*k));
    CHECK(p != NULL && k != NULL);
    CHECK_EQ_INT(g1_points(p, n, &t->rng), CZK_OK);
    fill_scalars(k, n, SC_RANDOM, &t->rng);
    for (size_t i = 0; i < n; i += 7)
        czk_fr_set_one(&k[i]);
    for (size_t i = 3; i < n; i += 11)
        czk_fr_set_zero(&k[i]);
    p[5] = p[6];
    memset(&p[8], 0, sizeof(p[8]));
    czk_g1_jacobian want, got;
    g1_naive(&want, p, k, n);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    for (unsigned bits = 0; bits < 32; bits++) {
        czk__msm_cfg cfg;
        czk__msm_cfg_default(&cfg);
        cfg.glv = bits & 1;
        cfg.booth = (bits >> 1) & 1;
        cfg.affine = (bits >> 2) & 1;
        cfg.split01 = (bits >> 3) & 1;
        /* Without IFMA (the scalar batch-affine additions); the XYZZ path ignores it. */
        cfg.ifma = !((bits >> 4) & 1);
        if (!cfg.ifma && !cfg.affine)
            continue;
        for (unsigned c = 1; c <= 11; c += (c < 5 ? 1 : 2)) {
            if (!cfg.ifma && (c < 3 || c == 4))
                continue; /* fewer windows there: the test's time under the sanitizers */
            cfg.window = c;
            cfg.splits = 1 + (c + bits) % 3;
            cfg.chunk = (c % 3 == 0) ? 100 : 0;
            CHECK_EQ_INT(czk__msm_g1_cfg(&got, p, k, n, &cfg, c % 2 ? pool : NULL, NULL), CZK_OK);
            CHECKF(czk_g1_jacobian_equal(&got, &want),
                   "glv %d booth %d affine %d split01 %d ifma %d c %u", cfg.glv, cfg.booth,
                   cfg.affine, cfg.split01, cfg.ifma, c);
        }
    }
    czk__msm_cfg cfg;
    czk__msm_cfg_default(&cfg);
    cfg.window = 25;
    CHECK_EQ_INT(czk__msm_g1_cfg(&got, p, k, n, &cfg, NULL, NULL), CZK_EINVAL);
    czk_pool_destroy(pool);
    czk_free(p);
    czk_free(k);
}

/* The window choice grows with n and stays within the supported range. */
CZK_TEST(msm_window_choice) {
    czk__msm_cfg cfg;
    czk__msm_cfg_default(&cfg);
    unsigned prev = 0;
    for (unsigned lg = 0; lg <= 26; lg++) {
        unsigned c = czk__msm_pick_window((size_t)1 << lg, 1, &cfg);
        CHECKF(c >= 1 && c <= 24, "lg %u: c = %u", lg, c);
        CHECKF(c >= prev, "lg %u: c = %u after %u", lg, c, prev);
        prev = c;
    }
    CHECK(czk__msm_pick_window((size_t)1 << 16, 1, &cfg) >= 10);
}

/* ---- G2 ----------------------------------------------------------------------------------- */

CZK_TEST(msm_g2_sizes) {
    static const size_t sizes[] = {0, 1, 2, 3, 7, 9, 64, 300};
    size_t nmax = 300;
    czk_g2_affine *p = czk_malloc(nmax * sizeof(*p));
    czk_fr *k = czk_malloc(nmax * sizeof(*k));
    CHECK(p != NULL && k != NULL);
    CHECK_EQ_INT(g2_points(p, nmax, &t->rng), CZK_OK);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        czk_g2_jacobian got, want;
        fill_scalars(k, n, SC_RANDOM, &t->rng);
        CHECK_EQ_INT(czk_msm_g2(&got, p, k, n, NULL, NULL), CZK_OK);
        g2_naive(&want, p, k, n);
        CHECKF(czk_g2_jacobian_equal(&got, &want), "n = %zu", n);
    }
    czk_free(p);
    czk_free(k);
}

CZK_TEST(msm_g2_special) {
    const size_t n = 400;
    czk_g2_affine *p = czk_malloc(n * sizeof(*p));
    czk_fr *k = czk_malloc(n * sizeof(*k));
    CHECK(p != NULL && k != NULL);
    CHECK_EQ_INT(g2_points(p, n, &t->rng), CZK_OK);
    static const enum scalar_kind kinds[] = {SC_ZERO,    SC_ONE,   SC_MIX01,
                                             SC_RMINUS1, SC_SMALL, SC_EQUAL};
    for (size_t s = 0; s < sizeof(kinds) / sizeof(kinds[0]); s++) {
        czk_g2_jacobian got, want;
        fill_scalars(k, n, kinds[s], &t->rng);
        CHECK_EQ_INT(czk_msm_g2(&got, p, k, n, NULL, NULL), CZK_OK);
        g2_naive(&want, p, k, n);
        CHECKF(czk_g2_jacobian_equal(&got, &want), "scalar kind %d", (int)kinds[s]);
    }
    /* Duplicates, infinity, and P, -P pairs with equal scalars. */
    for (size_t i = 0; i < n / 2; i++) {
        p[i] = p[czk_rng_u64(&t->rng) % 4];
        if (i % 9 == 0)
            memset(&p[i], 0, sizeof(p[i]));
    }
    fill_scalars(k, n, SC_RANDOM, &t->rng);
    for (size_t i = n / 2; i < n; i++) {
        czk_g2_affine_neg(&p[i], &p[i - n / 2]);
        k[i] = k[i - n / 2];
    }
    czk_g2_jacobian got;
    CHECK_EQ_INT(czk_msm_g2(&got, p, k, n, NULL, NULL), CZK_OK);
    CHECK(czk_g2_jacobian_is_infinity(&got));
    czk__msm_cfg scalar;
    czk__msm_cfg_default(&scalar);
    scalar.ifma = 0;
    CHECK_EQ_INT(czk__msm_g2_cfg(&got, p, k, n, &scalar, NULL, NULL), CZK_OK);
    CHECK(czk_g2_jacobian_is_infinity(&got));
    czk_free(p);
    czk_free(k);
}

/* ifma_add_check_g1 / _g2: for each batch length of lens, np_max at most, and four modes
 * (0: distinct points; 1: also doublings and sums at infinity; 2: the same, written in place;
 * 3: in place, with every odd addition taking the previous one's output), the eight-lane
 * additions against mixed Jacobian additions, point by point, and the count of infinities. */
#define IFMA_ADD_CHECK(G, ADD, BUF)                                                                \
    static void ifma_add_check_##G(czk_test_ctx *t, size_t np_max, const size_t *lens,             \
                                   size_t n_lens) {                                                \
        const size_t NP = np_max;                                                                  \
        czk_##G##_affine *base = czk_malloc(2 * NP * sizeof(*base));                               \
        czk_##G##_affine *a = czk_malloc(NP * sizeof(*a)), *b = czk_malloc(NP * sizeof(*b));       \
        czk_##G##_affine *o = czk_malloc(2 * NP * sizeof(*o));                                     \
        const czk_##G##_affine **pa = czk_malloc(NP * sizeof(*pa)),                                \
                               **pb = czk_malloc(NP * sizeof(*pb));                                \
        czk_##G##_affine **po = czk_malloc(NP * sizeof(*po));                                      \
        uint8_t *kind = czk_malloc(NP);                                                            \
        void *vbuf = czk_malloc(BUF(NP));                                                          \
        CHECK(base != NULL && a != NULL && b != NULL && o != NULL && pa != NULL && pb != NULL &&   \
              po != NULL && kind != NULL && vbuf != NULL);                                         \
        CHECK_EQ_INT(G##_points(base, 2 * NP, &t->rng), CZK_OK);                                   \
        for (size_t li = 0; li < n_lens; li++) {                                                   \
            size_t np = lens[li];                                                                  \
            for (int mode = 0; mode < 4; mode++) {                                                 \
                czk_##G##_affine *want = o + NP; /* the second half of o */                        \
                size_t want_inf = 0;                                                               \
                for (size_t p = 0; p < np; p++) {                                                  \
                    uint64_t r = czk_rng_u64(&t->rng) % 8;                                         \
                    a[p] = base[p];                                                                \
                    b[p] = base[NP + p];                                                           \
                    if (mode == 3 && p % 2 == 1)                                                   \
                        b[p] = a[p - 1]; /* pb[p] will be po[p - 1] */                             \
                    else if (mode != 0 && r == 0)                                                  \
                        b[p] = a[p]; /* doubling */                                                \
                    else if (mode != 0 && r == 1)                                                  \
                        czk_##G##_affine_neg(&b[p], &a[p]); /* infinity */                         \
                    czk_##G##_jacobian j;                                                          \
                    czk_##G##_jacobian_from_affine(&j, &a[p]);                                     \
                    czk_##G##_jacobian_add_affine_var(&j, &j, &b[p]);                              \
                    czk_##G##_jacobian_to_affine(&want[p], &j);                                    \
                    want_inf += czk_##G##_jacobian_is_infinity(&j);                                \
                }                                                                                  \
                for (size_t p = 0; p < np; p++) {                                                  \
                    czk__msm_ifma_##G##_to(&a[p]);                                                 \
                    czk__msm_ifma_##G##_to(&b[p]);                                                 \
                    pa[p] = &a[p];                                                                 \
                    pb[p] = mode == 3 && p % 2 == 1 ? &a[p - 1] : &b[p];                           \
                    po[p] = mode >= 2 ? &a[p] : &o[p];                                             \
                }                                                                                  \
                size_t inf = ADD(pa, pb, po, np, kind, vbuf);                                      \
                CHECKF(inf == want_inf, "np %zu mode %d: %zu infinities, want %zu", np, mode, inf, \
                       want_inf);                                                                  \
                for (size_t p = 0; p < np; p++) {                                                  \
                    czk_##G##_affine got = *po[p];                                                 \
                    czk__msm_ifma_##G##_from(&got);                                                \
                    CHECKF(memcmp(&got, &want[p], sizeof(got)) == 0, "np %zu mode %d sum %zu", np, \
                           mode, p);                                                               \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
        czk_free(base);                                                                            \
        czk_free(a);                                                                               \
        czk_free(b);                                                                               \
        czk_free(o);                                                                               \
        czk_free(pa);                                                                              \
        czk_free(pb);                                                                              \
        czk_free(po);                                                                              \
        czk_free(kind);                                                                            \
        czk_free(vbuf);                                                                            \
    }
IFMA_ADD_CHECK(g1, czk__msm_ifma_add, CZK__MSM_IFMA_BUF)
IFMA_ADD_CHECK(g2, czk__msm_ifma_add_g2, CZK__MSM_IFMA_BUF_G2)

/*
 * The eight-lane IFMA batch addition against mixed additions: batches of every length
 * around the lane count, in place (po = pa) and not, with doublings and sums at infinity
 * mixed in (equal and opposite points), and with the output of addition p - 1 an input of
 * addition p (which must read the old value). Skipped where the CPU has no AVX-512 IFMA.
 */
CZK_TEST(msm_g1_ifma_add) {
    static const size_t lens[] = {1, 2, 7, 8, 9, 15, 16, 17, 64, 255, 300};
    if (czk__msm_ifma_available())
        ifma_add_check_g1(t, 300, lens, sizeof lens / sizeof lens[0]);
}

/* As msm_g1_ifma_add, for G2 (Fp2 lanes). */
CZK_TEST(msm_g2_ifma_add) {
    static const size_t lens[] = {1, 2, 7, 8, 9, 15, 16, 17, 64, 100};
    if (czk__msm_ifma_available())
        ifma_add_check_g2(t, 100, lens, sizeof lens / sizeof lens[0]);
}

CZK_TEST(msm_g2_pools_configs) {
    const size_t n = 200;
    czk_g2_affine *p = czk_malloc(n * sizeof(*p));
    czk_fr *k = czk_malloc(n * sizeof(*k));
    CHECK(p != NULL && k != NULL);
    CHECK_EQ_INT(g2_points(p, n, &t->rng), CZK_OK);
    fill_scalars(k, n, SC_MIX01, &t->rng);
    for (size_t i = 0; i < n; i += 3)
        czk_fr_random(&k[i], &t->rng);
    czk_g2_jacobian want, got;
    g2_naive(&want, p, k, n);
    for (unsigned ways = 1; ways <= 3; ways++) {
        czk_pool *pool = NULL;
        CHECK_EQ_INT(czk_pool_create(&pool, ways), CZK_OK);
        CHECK_EQ_INT(czk_msm_g2(&got, p, k, n, pool, NULL), CZK_OK);
        CHECKF(czk_g2_jacobian_equal(&got, &want), "ways %u", ways);
        for (unsigned bits = 0; bits < 8; bits++) {
            czk__msm_cfg cfg;
            czk__msm_cfg_default(&cfg);
            cfg.glv = bits & 1;
            cfg.booth = (bits >> 1) & 1;
            cfg.affine = (bits >> 2) & 1;
            cfg.window = 3 + bits;
            cfg.splits = 1 + bits % 3;
            cfg.chunk = bits % 2 ? 64 : 0;
            cfg.ifma = ways != 2; /* two ways: the scalar batch-affine additions */
            CHECK_EQ_INT(czk__msm_g2_cfg(&got, p, k, n, &cfg, pool, NULL), CZK_OK);
            CHECKF(czk_g2_jacobian_equal(&got, &want), "ways %u bits %u", ways, bits);
        }
        czk_pool_destroy(pool);
    }
    czk_free(p);
    czk_free(k);
}

/* ---- batch addition ----------------------------------------------------------------------- */

enum bitmap_kind { BM_EMPTY, BM_FULL, BM_RANDOM, BM_SPARSE };

static void fill_bitmap(uint64_t *bm, size_t words, enum bitmap_kind kind, czk_rng *rng) {
    for (size_t w = 0; w < words; w++) {
        switch (kind) {
        case BM_EMPTY:
            bm[w] = 0;
            break;
        case BM_FULL:
            bm[w] = ~0ULL;
            break;
        case BM_RANDOM:
            bm[w] = czk_rng_u64(rng);
            break;
        case BM_SPARSE:
            bm[w] = czk_rng_u64(rng) & czk_rng_u64(rng) & czk_rng_u64(rng);
            break;
        }
    }
}

CZK_TEST(msm_g1_sum) {
    static const size_t sizes[] = {0, 1, 63, 64, 65, 1000, 4097, 5000};
    const size_t nmax = 5000;
    czk_g1_affine *p = czk_malloc(nmax * sizeof(*p));
    uint64_t *bm = czk_malloc((nmax / 64 + 1) * sizeof(uint64_t));
    CHECK(p != NULL && bm != NULL);
    CHECK_EQ_INT(g1_points(p, nmax, &t->rng), CZK_OK);
    /* Duplicates, infinity and a P, -P pair among the points. */
    p[10] = p[11];
    p[12] = p[11];
    memset(&p[20], 0, sizeof(p[20]));
    czk_g1_affine_neg(&p[30], &p[31]);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 3), CZK_OK);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (int kind = BM_EMPTY; kind <= BM_SPARSE; kind++) {
            size_t n = sizes[s];
            fill_bitmap(bm, nmax / 64 + 1, (enum bitmap_kind)kind, &t->rng);
            czk_g1_jacobian got, want;
            g1_naive_sum(&want, p, bm, n);
            for (int usepool = 0; usepool < 2; usepool++) {
                CHECK_EQ_INT(czk_msm_g1_sum(&got, p, bm, n, usepool ? pool : NULL, NULL), CZK_OK);
                CHECKF(czk_g1_jacobian_equal(&got, &want), "n %zu bitmap %d pool %d", n, kind,
                       usepool);
            }
            if (kind == BM_EMPTY)
                CHECK(czk_g1_jacobian_is_infinity(&got));
        }
    }
    /* Only a P, -P pair, and only equal points: infinity and a doubling chain. */
    memset(bm, 0, 2 * sizeof(uint64_t));
    bm[0] = (1ULL << 30) | (1ULL << 31);
    czk_g1_jacobian got, want;
    CHECK_EQ_INT(czk_msm_g1_sum(&got, p, bm, 64, NULL, NULL), CZK_OK);
    CHECK(czk_g1_jacobian_is_infinity(&got));
    for (size_t i = 0; i < 300; i++)
        p[i] = p[0];
    fill_bitmap(bm, nmax / 64 + 1, BM_FULL, &t->rng);
    CHECK_EQ_INT(czk_msm_g1_sum(&got, p, bm, 300, pool, NULL), CZK_OK);
    g1_naive_sum(&want, p, bm, 300);
    CHECK(czk_g1_jacobian_equal(&got, &want));
    czk_pool_destroy(pool);
    czk_free(p);
    czk_free(bm);
}

CZK_TEST(msm_g2_sum) {
    static const size_t sizes[] = {0, 1, 64, 100, 1100};
    const size_t nmax = 1100;
    czk_g2_affine *p = czk_malloc(nmax * sizeof(*p));
    uint64_t *bm = czk_malloc((nmax / 64 + 1) * sizeof(uint64_t));
    CHECK(p != NULL && bm != NULL);
    CHECK_EQ_INT(g2_points(p, nmax, &t->rng), CZK_OK);
    p[10] = p[11];
    memset(&p[20], 0, sizeof(p[20]));
    czk_g2_affine_neg(&p[30], &p[31]);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        for (int kind = BM_EMPTY; kind <= BM_SPARSE; kind++) {
            size_t n = sizes[s];
            fill_bitmap(bm, nmax / 64 + 1, (enum bitmap_kind)kind, &t->rng);
            czk_g2_jacobian got, want;
            g2_naive_sum(&want, p, bm, n);
            for (int usepool = 0; usepool < 2; usepool++) {
                CHECK_EQ_INT(czk_msm_g2_sum(&got, p, bm, n, usepool ? pool : NULL, NULL), CZK_OK);
                CHECKF(czk_g2_jacobian_equal(&got, &want), "n %zu bitmap %d pool %d", n, kind,
                       usepool);
            }
        }
    }
    czk_pool_destroy(pool);
    czk_free(p);
    czk_free(bm);
}
