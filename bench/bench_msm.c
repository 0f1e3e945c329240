/*
 * bench_msm: milliseconds per multi-scalar multiplication, G1 or G2, on the CPU.
 *
 *   bench_msm g1|g2 LG [LG...] [--witness] [--no-glv] [--no-booth] [--xyzz] [--no-split01]
 *                              [--no-ifma] [--window C] [--chunk N] [--splits S]
 *   CZK_BENCH_THREADS=<n>   ways of the pool (default 1: the calling thread alone)
 *   CZK_BENCH_RUNS=<n>      timed runs per size, median reported (default 3)
 *
 * Inputs: 2^LG points (eight from czk_g*_random, then P_i = P_{i-1} + R_{i mod 8} and one
 * batch conversion to affine, so that 2^20 points take about a second to make) and uniformly
 * random scalars, or with --witness a Groth16-like mix: 45 % zero, 45 % one, 10 % random.
 * The --no-* switches turn single techniques off (czk__msm_cfg) to measure what each buys.
 *
 * Output is CSV (header lines start with '#'): group, lg, mode, threads, window, min/median/max
 * wall ms per MSM, the median CPU ms of the process (all threads; on a shared machine the wall
 * time also counts what other processes took), ns per point (median wall), and for single-threaded
 * random G1 MSMs blst's figure on this kind of machine and our ratio to it. Each size is run once
 * untimed first; its result is checked once, outside the timed region, against MSM(first half) +
 * MSM(second half) computed with a different window (and for LG <= 10 also the naive sum of scalar
 * multiplications). A failed check exits non-zero.
 */
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "msm/msm.h"
#include "msm/msm_internal.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

/* blst's Pippenger (blst_p1s_mult_pippenger), one thread, random inputs, on this kind of
 * machine (figures from the issue). */
static double blst_g1_ms(unsigned lg) {
    switch (lg) {
    case 16:
        return 833.0;
    case 20:
        return 10750.0;
    default:
        return 0;
    }
}

/* CPU time of the whole process (all threads), in ms: on a shared machine the wall time of a
 * run includes time other processes held the cores, and this shows how much. */
static double process_cpu_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void make_scalars(czk_fr *k, size_t n, int witness, czk_rng *rng) {
    for (size_t i = 0; i < n; i++) {
        uint64_t r = witness ? czk_rng_u64(rng) % 100 : 99;
        if (r < 45)
            czk_fr_set_zero(&k[i]);
        else if (r < 90)
            czk_fr_set_one(&k[i]);
        else
            czk_fr_random(&k[i], rng);
    }
}

/* ---- one group at a time, through a small table ------------------------------------------- */

typedef struct group_ops {
    const char *name;
    size_t aff_size;
    int (*points)(void *out, size_t n, czk_rng *rng);
    int (*msm)(void *out, const void *p, const czk_fr *k, size_t n, const czk__msm_cfg *cfg,
               czk_pool *pool);
    /* 1 if msm(p, k, n) == msm(p, k, h) + msm(p + h, k + h, n - h) with window c2. */
    int (*check_halves)(const void *p, const czk_fr *k, size_t n, const czk__msm_cfg *cfg,
                        unsigned c2, czk_pool *pool);
    int (*check_naive)(const void *p, const czk_fr *k, size_t n, const czk__msm_cfg *cfg,
                       czk_pool *pool);
} group_ops;

#define DEFINE_GROUP(G)                                                                            \
    static int G##_points(void *outv, size_t n, czk_rng *rng) {                                    \
        czk_##G##_affine *out = outv, base[8];                                                     \
        czk_##G##_jacobian *j = czk_malloc(n * sizeof(*j));                                        \
        if (j == NULL)                                                                             \
            return CZK_ENOMEM;                                                                     \
        for (int i = 0; i < 8; i++)                                                                \
            czk_##G##_random(&base[i], rng);                                                       \
        for (size_t i = 0; i < n; i++) {                                                           \
            if (i < 8)                                                                             \
                czk_##G##_jacobian_from_affine(&j[i], &base[i]);                                   \
            else                                                                                   \
                czk_##G##_jacobian_add_affine_var(&j[i], &j[i - 1], &base[i % 8]);                 \
        }                                                                                          \
        int rc = czk_##G##s_to_affine(out, j, n);                                                  \
        czk_free(j);                                                                               \
        return rc;                                                                                 \
    }                                                                                              \
    static int G##_msm(void *out, const void *p, const czk_fr *k, size_t n,                        \
                       const czk__msm_cfg *cfg, czk_pool *pool) {                                  \
        return czk__msm_##G##_cfg(out, p, k, n, cfg, pool, NULL);                                  \
    }                                                                                              \
    static int G##_check_halves(const void *pv, const czk_fr *k, size_t n,                         \
                                const czk__msm_cfg *cfg, unsigned c2, czk_pool *pool) {            \
        const czk_##G##_affine *p = pv;                                                            \
        czk__msm_cfg other = *cfg;                                                                 \
        other.window = c2;                                                                         \
        czk_##G##_jacobian all, a, b;                                                              \
        size_t h = n / 2;                                                                          \
        if (czk__msm_##G##_cfg(&all, p, k, n, cfg, pool, NULL) != CZK_OK ||                        \
            czk__msm_##G##_cfg(&a, p, k, h, &other, pool, NULL) != CZK_OK ||                       \
            czk__msm_##G##_cfg(&b, p + h, k + h, n - h, &other, pool, NULL) != CZK_OK)             \
            return 0;                                                                              \
        czk_##G##_jacobian_add_var(&a, &a, &b);                                                    \
        return czk_##G##_jacobian_equal(&all, &a);                                                 \
    }                                                                                              \
    static int G##_check_naive(const void *pv, const czk_fr *k, size_t n, const czk__msm_cfg *cfg, \
                               czk_pool *pool) {                                                   \
        const czk_##G##_affine *p = pv;                                                            \
        czk_##G##_jacobian got, want, pj, t;                                                       \
        if (czk__msm_##G##_cfg(&got, p, k, n, cfg, pool, NULL) != CZK_OK)                          \
            return 0;                                                                              \
        czk_##G##_jacobian_set_infinity(&want);                                                    \
        for (size_t i = 0; i < n; i++) {                                                           \
            czk_##G##_jacobian_from_affine(&pj, &p[i]);                                            \
            czk_##G##_jacobian_mul_var(&t, &pj, &k[i]);                                            \
            czk_##G##_jacobian_add_var(&want, &want, &t);                                          \
        }                                                                                          \
        return czk_##G##_jacobian_equal(&got, &want);                                              \
    }

DEFINE_GROUP(g1)
DEFINE_GROUP(g2)

static const group_ops GROUPS[] = {
    {"g1", sizeof(czk_g1_affine), g1_points, g1_msm, g1_check_halves, g1_check_naive},
    {"g2", sizeof(czk_g2_affine), g2_points, g2_msm, g2_check_halves, g2_check_naive},
};

static int usage(void) {
    fprintf(stderr, "usage: bench_msm g1|g2 LG [LG...] [--witness] [--no-glv] [--no-booth] "
                    "[--xyzz] [--no-split01] [--no-ifma] [--window C] [--chunk N] [--splits S]\n");
    return 2;
}

int main(int argc, char **argv) {
    int runs = 3, witness = 0;
    unsigned threads = 1, lgs[32], nlg = 0;
    const char *env = getenv("CZK_BENCH_RUNS");
    if (env != NULL && atoi(env) > 0)
        runs = atoi(env);
    if (runs > 101)
        runs = 101;
    env = getenv("CZK_BENCH_THREADS");
    if (env != NULL && atoi(env) > 0)
        threads = (unsigned)atoi(env);
    if (argc < 3)
        return usage();
    const group_ops *g = NULL;
    for (size_t i = 0; i < sizeof(GROUPS) / sizeof(GROUPS[0]); i++)
        if (strcmp(argv[1], GROUPS[i].name) == 0)
            g = &GROUPS[i];
    if (g == NULL)
        return usage();
    czk__msm_cfg cfg;
    czk__msm_cfg_default(&cfg);
    char variant[128] = "";
    for (int i = 2; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--witness") == 0) {
            witness = 1;
        } else if (strcmp(a, "--no-glv") == 0) {
            cfg.glv = 0;
        } else if (strcmp(a, "--no-booth") == 0) {
            cfg.booth = 0;
        } else if (strcmp(a, "--xyzz") == 0) {
            cfg.affine = 0;
        } else if (strcmp(a, "--no-split01") == 0) {
            cfg.split01 = 0;
        } else if (strcmp(a, "--no-ifma") == 0) {
            cfg.ifma = 0;
        } else if (strcmp(a, "--window") == 0 && i + 1 < argc) {
            cfg.window = (unsigned)atoi(argv[++i]);
        } else if (strcmp(a, "--chunk") == 0 && i + 1 < argc) {
            cfg.chunk = (size_t)atoll(argv[++i]);
        } else if (strcmp(a, "--splits") == 0 && i + 1 < argc) {
            cfg.splits = (unsigned)atoi(argv[++i]);
        } else if (a[0] != '-' && nlg < 32 && atoi(a) >= 0 && atoi(a) <= 28) {
            lgs[nlg++] = (unsigned)atoi(a);
            continue;
        } else {
            return usage();
        }
        if (a[0] == '-' && strcmp(a, "--witness") != 0 &&
            strlen(variant) + strlen(a) + 2 < sizeof(variant)) {
            strcat(variant, " ");
            strcat(variant, a);
            if (strcmp(a, "--window") == 0 || strcmp(a, "--chunk") == 0 ||
                strcmp(a, "--splits") == 0) {
                strcat(variant, "=");
                strncat(variant, argv[i], sizeof(variant) - strlen(variant) - 1);
            }
        }
    }
    if (nlg == 0)
        return usage();

    czk_pool *pool = NULL;
    if (threads > 1 && czk_pool_create(&pool, threads) != CZK_OK) {
        fprintf(stderr, "bench_msm: cannot create a pool of %u\n", threads);
        return 1;
    }
    printf("# bench_msm commit %s, %s, %s scalars, %u thread(s), %d runs, median reported%s%s\n",
           CZK_GIT_COMMIT, g->name,
           witness ? "witness (45 % zero, 45 % one, 10 % random)" : "random", threads, runs,
           variant[0] ? ", variant:" : "", variant);
    printf("%-5s,%3s,%8s,%7s,%6s,%11s,%11s,%11s,%11s,%9s,%9s,%6s\n", "group", "lg", "mode",
           "threads", "window", "min_ms", "median_ms", "max_ms", "cpu_ms", "ns_point", "blst_ms",
           "ratio");
    fflush(stdout);
    int failed = 0;
    czk_rng rng;
    czk_rng_seed(&rng, 0x6d736d);
    for (unsigned l = 0; l < nlg; l++) {
        unsigned lg = lgs[l];
        size_t n = (size_t)1 << lg;
        void *p = czk_malloc(n * g->aff_size);
        czk_fr *k = czk_malloc(n * sizeof(czk_fr));
        if (p == NULL || k == NULL || g->points(p, n, &rng) != CZK_OK) {
            fprintf(stderr, "bench_msm: out of memory for 2^%u points\n", lg);
            return 1;
        }
        make_scalars(k, n, witness, &rng);
        /* The window the timed runs use, and a different one for the check. */
        size_t nrest = witness ? n / 10 : n;
        unsigned c = cfg.window ? cfg.window : czk__msm_pick_window(nrest, threads, &cfg);
        unsigned c2 = c > 4 ? c - 2 : c + 2;
        int ok = g->check_halves(p, k, n, &cfg, c2, pool);
        if (ok && lg <= 10)
            ok = g->check_naive(p, k, n, &cfg, pool);
        if (!ok) {
            printf("%-5s,%3u, CHECK FAILED: result disagrees with an independent computation\n",
                   g->name, lg);
            failed = 1;
        } else {
            double t[101], cpu[101];
            uint64_t out[64]; /* room for either Jacobian point */
            for (int r = 0; r < runs; r++) {
                double c0 = process_cpu_ms();
                uint64_t t0 = czk_time_ns();
                if (g->msm(out, p, k, n, &cfg, pool) != CZK_OK) {
                    fprintf(stderr, "bench_msm: msm failed\n");
                    return 1;
                }
                t[r] = (double)(czk_time_ns() - t0) / 1e6;
                cpu[r] = process_cpu_ms() - c0;
            }
            qsort(t, (size_t)runs, sizeof(double), cmp_double);
            qsort(cpu, (size_t)runs, sizeof(double), cmp_double);
            double med = t[runs / 2];
            double blst =
                (strcmp(g->name, "g1") == 0 && threads == 1 && !witness && variant[0] == 0)
                    ? blst_g1_ms(lg)
                    : 0;
            printf("%-5s,%3u,%8s,%7u,%6u,%11.1f,%11.1f,%11.1f,%11.1f,%9.1f,", g->name, lg,
                   witness ? "witness" : "random", threads, c, t[0], med, t[runs - 1],
                   cpu[runs / 2], med * 1e6 / (double)n);
            if (blst > 0)
                printf("%9.0f,%6.2f\n", blst, med / blst);
            else
                printf("%9s,%6s\n", "", "");
            fflush(stdout);
        }
        czk_free(p);
        czk_free(k);
    }
    czk_pool_destroy(pool);
    return failed;
}
