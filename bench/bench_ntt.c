/*
 * bench_ntt: milliseconds per NTT over Fr, on one thread and on a pool of all cores.
 *
 *   bench_ntt [--ops LIST] [--root bellperson|snarkjs] [--block B] [--full-max F] [LG...]
 *       LG: log2 sizes (default 16 18 20 22)
 *       LIST: comma-separated among forward, inverse, coset_forward, coset_inverse,
 *             h_monomial, h_odd_coset (default forward,inverse,coset_forward)
 *       B, F: tuning experiments: blocks of 2^B elements, full twiddle table up to 2^F
 *             (defaults: the library's)
 *   CZK_BENCH_RUNS=<n>      timed runs per figure, median reported (default 5)
 *   CZK_BENCH_THREADS=<n>   ways of the multi-threaded pool (default: online CPUs)
 *
 * Output is CSV (header lines start with '#'): op, lg, threads, min/median/max ms per call.
 * Each size is checked once, outside the timed region, on the multi-threaded pool:
 * inverse(forward(x)) = x, and the forward output equals the single-threaded one at a few
 * positions; a failed check exits non-zero. Each figure is preceded by one untimed warm-up.
 */
#include "field/fr.h"
#include "poly/ntt.h"
#include "poly/ntt_internal.h"
#include "poly/quotient.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

enum { OP_FORWARD, OP_INVERSE, OP_COSET_FORWARD, OP_COSET_INVERSE, OP_H_MONO, OP_H_ODD, NOPS };
static const char *const op_names[NOPS] = {"forward",       "inverse",    "coset_forward",
                                           "coset_inverse", "h_monomial", "h_odd_coset"};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void run_op(int op, const czk_ntt_domain *d, czk_fr *a, czk_fr *b, czk_fr *c,
                   const czk_fr *g, czk_pool *pool) {
    switch (op) {
    case OP_FORWARD:
        czk_ntt_forward(d, a, pool);
        break;
    case OP_INVERSE:
        czk_ntt_inverse(d, a, pool);
        break;
    case OP_COSET_FORWARD:
        czk_ntt_coset_forward(d, a, g, pool);
        break;
    case OP_COSET_INVERSE:
        czk_ntt_coset_inverse(d, a, g, pool);
        break;
    case OP_H_MONO:
        (void)czk_poly_h_monomial(d, a, b, c, pool, NULL);
        break;
    default:
        (void)czk_poly_h_odd_coset(d, a, b, c, pool, NULL);
        break;
    }
}

/* inverse(forward(x)) = x on `pool`, and forward agrees with the inline run at 3 points. */
static int check(const czk_ntt_domain *d, czk_fr *a, czk_fr *ref, size_t n, czk_pool *pool,
                 czk_rng *rng) {
    for (size_t i = 0; i < n; i++)
        czk_fr_random(&a[i], rng);
    memcpy(ref, a, n * sizeof(czk_fr));
    czk_ntt_forward(d, a, pool);
    czk_ntt_inverse(d, a, pool);
    for (size_t i = 0; i < n; i++)
        if (!czk_fr_equal(&a[i], &ref[i]))
            return 0;
    czk_ntt_forward(d, a, pool);
    czk_ntt_forward(d, ref, NULL);
    size_t idx[3] = {0, n / 2, n - 1};
    for (int k = 0; k < 3; k++)
        if (!czk_fr_equal(&a[idx[k]], &ref[idx[k]]))
            return 0;
    return 1;
}

int main(int argc, char **argv) {
    int runs = 5, ops[NOPS] = {1, 1, 1, 0, 0, 0};
    unsigned lgs[64], nlg = 0, threads = 0;
    int block = -1, full_max = -1;
    czk_ntt_root root = CZK_NTT_ROOT_BELLPERSON;
    const char *env = getenv("CZK_BENCH_RUNS");
    if (env != NULL && atoi(env) > 0)
        runs = atoi(env);
    if (runs > 101)
        runs = 101;
    env = getenv("CZK_BENCH_THREADS");
    if (env != NULL && atoi(env) > 0)
        threads = (unsigned)atoi(env);
    if (threads == 0) {
        long nc = sysconf(_SC_NPROCESSORS_ONLN);
        threads = nc > 0 ? (unsigned)nc : 1;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) {
            memset(ops, 0, sizeof(ops));
            char *list = argv[++i];
            for (char *tok = strtok(list, ","); tok != NULL; tok = strtok(NULL, ",")) {
                int found = 0;
                for (int k = 0; k < NOPS; k++)
                    if (strcmp(tok, op_names[k]) == 0)
                        ops[k] = found = 1;
                if (!found) {
                    fprintf(stderr, "bench_ntt: unknown op '%s'\n", tok);
                    return 2;
                }
            }
        } else if (strcmp(argv[i], "--block") == 0 && i + 1 < argc) {
            block = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--full-max") == 0 && i + 1 < argc) {
            full_max = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--root") == 0 && i + 1 < argc) {
            i++;
            root = strcmp(argv[i], "snarkjs") == 0 ? CZK_NTT_ROOT_SNARKJS : CZK_NTT_ROOT_BELLPERSON;
        } else {
            int lg = atoi(argv[i]);
            if (lg < 1 || lg > CZK_NTT_MAX_LG || nlg == 64) {
                fprintf(stderr, "usage: bench_ntt [--ops LIST] [--root R] [LG 1..%d ...]\n",
                        CZK_NTT_MAX_LG);
                return 2;
            }
            lgs[nlg++] = (unsigned)lg;
        }
    }
    if (nlg == 0) {
        static const unsigned dflt[] = {16, 18, 20, 22};
        for (unsigned i = 0; i < 4; i++)
            lgs[nlg++] = dflt[i];
    }

    czk_pool *pool = NULL;
    if (threads > 1 && czk_pool_create(&pool, threads) != CZK_OK) {
        fprintf(stderr, "bench_ntt: cannot create a pool of %u\n", threads);
        return 1;
    }
    czk_rng rng;
    czk_rng_seed(&rng, 20261130);
    czk_fr g;
    czk_fr_set_u64(&g, 7);
    printf("# bench_ntt commit %s, %s roots, %d runs per figure, median reported, adx %d, "
           "block %d, full-max %d (-1: default)\n",
           CZK_GIT_COMMIT, root == CZK_NTT_ROOT_SNARKJS ? "snarkjs" : "bellperson", runs,
           czk__fr_uses_adx(), block, full_max);
    printf("%-14s,%3s,%8s,%12s,%12s,%12s\n", "op", "lg", "threads", "min_ms", "median_ms",
           "max_ms");
    int failed = 0;
    for (unsigned li = 0; li < nlg; li++) {
        unsigned lg = lgs[li];
        size_t n = (size_t)1 << lg;
        czk_ntt_domain *d = NULL;
        czk_fr *a = czk_malloc(n * sizeof(czk_fr)), *b = czk_malloc(n * sizeof(czk_fr));
        czk_fr *c = czk_malloc(n * sizeof(czk_fr));
        int rc = block < 0 && full_max < 0
                     ? czk_ntt_domain_create(&d, lg, root, NULL)
                     : czk__ntt_domain_create_tuned(
                           &d, lg, root, block < 0 ? CZK__NTT_BLOCK_LG : (unsigned)block,
                           full_max < 0 ? CZK__NTT_FULL_TABLE_MAX_LG : (unsigned)full_max, NULL);
        if (a == NULL || b == NULL || c == NULL || rc != CZK_OK) {
            fprintf(stderr, "bench_ntt: out of memory at 2^%u\n", lg);
            return 1;
        }
        if (!check(d, a, b, n, pool, &rng)) {
            printf("lg %u, CHECK FAILED: inverse(forward(x)) != x or threads disagree\n", lg);
            failed = 1;
            goto next;
        }
        for (size_t i = 0; i < n; i++) {
            czk_fr_random(&a[i], &rng);
            b[i] = a[(i * 7 + 1) % n];
            c[i] = a[(i * 13 + 5) % n];
        }
        for (int op = 0; op < NOPS; op++) {
            if (!ops[op])
                continue;
            for (int pass = 0; pass < (threads > 1 ? 2 : 1); pass++) {
                czk_pool *p = pass == 0 ? NULL : pool;
                double t[101];
                run_op(op, d, a, b, c, &g, p); /* warm-up */
                for (int r = 0; r < runs; r++) {
                    uint64_t t0 = czk_time_ns();
                    run_op(op, d, a, b, c, &g, p);
                    t[r] = (double)(czk_time_ns() - t0) / 1e6;
                }
                qsort(t, (size_t)runs, sizeof(double), cmp_double);
                printf("%-14s,%3u,%8u,%12.2f,%12.2f,%12.2f\n", op_names[op], lg,
                       pass == 0 ? 1 : threads, t[0], t[runs / 2], t[runs - 1]);
                fflush(stdout);
            }
        }
    next:
        czk_ntt_domain_destroy(d);
        czk_free(a);
        czk_free(b);
        czk_free(c);
    }
    czk_pool_destroy(pool);
    return failed;
}
