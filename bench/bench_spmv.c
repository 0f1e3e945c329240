/*
 * bench_spmv: synthesis-side costs on PoRep-shaped circuits: generating the circuit and its
 * witness, a = A·w / b = B·w / c = C·w, the satisfaction check, and saving and loading our
 * R1CS file.
 *
 *   bench_spmv [K...]             log2 sizes (default: 16 18 20)
 *   CZK_BENCH_RUNS=<n>            timed runs per figure, median reported (default 5)
 *   CZK_BENCH_THREADS=<list>      comma-separated thread counts (default: 1 and every CPU)
 *   CZK_BENCH_DIR=<dir>           where the file benchmark writes (default: $TMPDIR or /tmp);
 *                                 "none" skips it
 *
 * Output is CSV (header lines start with '#'): op, k, threads, min/median/max milliseconds,
 * and a figure per op (bytes, or ns per nonzero for spmv). The result of SpMV is checked once,
 * outside the timed region, against a naive per-entry dot product on a sample of rows, and
 * the generated witness against czk_r1cs_check; a failed check exits non-zero.
 */
#include "r1cs/r1cs.h"
#include "r1cs/synth.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Sorts ms[0..runs) in place and returns the median. */
static double median(double *ms, int runs) {
    qsort(ms, (size_t)runs, sizeof(double), cmp_double);
    return ms[runs / 2];
}

static void report(const char *op, unsigned k, unsigned threads, double *ms, int runs,
                   const char *figure_name, double figure) {
    median(ms, runs);
    printf("%-8s,%3u,%8u,%10.2f,%10.2f,%10.2f,%12s,%14.2f\n", op, k, threads, ms[0], ms[runs / 2],
           ms[runs - 1], figure_name, figure);
    fflush(stdout);
}

/* Peak resident set from /proc (kB), or 0 where unavailable. */
static long peak_rss_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (f == NULL)
        return 0;
    char line[256];
    long kb = 0;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, "VmHWM:", 6) == 0)
            kb = strtol(line + 6, NULL, 10);
    fclose(f);
    return kb;
}

/* Rows of the sample checked against the naive dot product. */
static int spot_check(const czk_r1cs *cs, const czk_fr *w, const czk_fr *a, const czk_fr *b,
                      const czk_fr *c) {
    const czk_r1cs_matrix *ms[3] = {&cs->a, &cs->b, &cs->c};
    const czk_fr *out[3] = {a, b, c};
    size_t step = cs->n_constraints / 1000 + 1;
    for (size_t i = 0; i < cs->n_constraints; i += step) {
        for (int m = 0; m < 3; m++) {
            czk_fr acc = CZK_FR_ZERO, t;
            for (uint64_t k = ms[m]->row_ptr[i]; k < ms[m]->row_ptr[i + 1]; k++) {
                czk_fr_mul(&t, &ms[m]->vals[k], &w[ms[m]->cols[k]]);
                czk_fr_add(&acc, &acc, &t);
            }
            if (!czk_fr_equal(&acc, &out[m][i]))
                return 0;
        }
    }
    return 1;
}

int main(int argc, char **argv) {
    int runs = 5;
    const char *env = getenv("CZK_BENCH_RUNS");
    if (env != NULL && atoi(env) > 0)
        runs = atoi(env);
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    unsigned threads[16] = {1, ncpu > 1 ? (unsigned)ncpu : 0};
    int n_threads = ncpu > 1 ? 2 : 1;
    env = getenv("CZK_BENCH_THREADS");
    if (env != NULL) {
        n_threads = 0;
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", env);
        for (char *tok = strtok(buf, ","); tok != NULL && n_threads < 16; tok = strtok(NULL, ","))
            if (atoi(tok) > 0)
                threads[n_threads++] = (unsigned)atoi(tok);
    }
    const char *dir = getenv("CZK_BENCH_DIR");
    if (dir == NULL || *dir == '\0')
        dir = getenv("TMPDIR");
    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    unsigned ks[32];
    int n_k = 0;
    for (int i = 1; i < argc && n_k < 32; i++)
        ks[n_k++] = (unsigned)atoi(argv[i]);
    if (n_k == 0) {
        ks[0] = 16;
        ks[1] = 18;
        ks[2] = 20;
        n_k = 3;
    }
    double *ms = calloc((size_t)runs, sizeof(double));
    if (ms == NULL)
        return 1;
    unsigned max_threads = 1;
    for (int i = 0; i < n_threads; i++)
        max_threads = threads[i] > max_threads ? threads[i] : max_threads;
    printf("# bench_spmv commit %s, %ld CPUs, %d runs per figure, median reported\n",
           CZK_GIT_COMMIT, ncpu, runs);
    printf("%-8s,%3s,%8s,%10s,%10s,%10s,%12s,%14s\n", "op", "k", "threads", "min_ms", "median_ms",
           "max_ms", "figure", "value");
    int status = 0;
    for (int ki = 0; ki < n_k; ki++) {
        unsigned k = ks[ki];
        czk_synth_shape sh;
        czk_err err = {0};
        if (czk_synth_porep_shape(&sh, k, &err) != CZK_OK) {
            fprintf(stderr, "bench_spmv: %s\n", err.msg);
            return 1;
        }
        uint64_t nnz = sh.nnz[0] + sh.nnz[1] + sh.nnz[2];
        printf("# k=%u: %zu constraints, %zu vars, nnz A/B/C %llu/%llu/%llu, matrices %zu B, "
               "witness %zu B\n",
               k, sh.n_constraints, sh.n_vars, (unsigned long long)sh.nnz[0],
               (unsigned long long)sh.nnz[1], (unsigned long long)sh.nnz[2], sh.matrix_bytes,
               sh.witness_bytes);
        czk_r1cs cs = {0};
        czk_fr *w = NULL;
        czk_fr *out = czk_malloc(3 * sh.n_constraints * sizeof(czk_fr));
        if (out == NULL) {
            fprintf(stderr, "bench_spmv: out of memory at k=%u\n", k);
            return 1;
        }
        for (int ti = 0; ti < n_threads; ti++) {
            czk_pool *pool = NULL;
            if (threads[ti] > 1 && czk_pool_create(&pool, threads[ti]) != CZK_OK)
                return 1;
            /* generation (the first run also warms the pages) */
            for (int r = 0; r <= runs; r++) {
                czk_r1cs_clear(&cs);
                czk_free(w);
                w = NULL;
                uint64_t t0 = czk_time_ns();
                if (czk_synth_porep_shaped(&cs, &w, k, 42, pool, &err) != CZK_OK) {
                    fprintf(stderr, "bench_spmv: %s\n", err.msg);
                    return 1;
                }
                if (r > 0)
                    ms[r - 1] = (double)(czk_time_ns() - t0) / 1e6;
            }
            report("gen", k, threads[ti], ms, runs, "bytes",
                   (double)(sh.matrix_bytes + sh.witness_bytes));
            /* spmv: a, b and c */
            czk_fr *a = out, *b = out + sh.n_constraints, *c = out + 2 * sh.n_constraints;
            for (int r = 0; r <= runs; r++) {
                uint64_t t0 = czk_time_ns();
                czk_r1cs_spmv(&cs, w, a, b, c, pool);
                if (r > 0)
                    ms[r - 1] = (double)(czk_time_ns() - t0) / 1e6;
            }
            if (!spot_check(&cs, w, a, b, c)) {
                printf("spmv    ,%3u,%8u, CHECK FAILED: differs from the naive dot product\n", k,
                       threads[ti]);
                status = 1;
            }
            report("spmv", k, threads[ti], ms, runs, "ns_per_nnz",
                   median(ms, runs) * 1e6 / (double)nnz);
            /* check */
            for (int r = 0; r < runs; r++) {
                uint64_t t0 = czk_time_ns();
                int rc = czk_r1cs_check(&cs, w, NULL, pool, &err);
                ms[r] = (double)(czk_time_ns() - t0) / 1e6;
                if (rc != CZK_OK) {
                    printf("check   ,%3u,%8u, CHECK FAILED: %s\n", k, threads[ti], err.msg);
                    status = 1;
                    break;
                }
            }
            report("check", k, threads[ti], ms, runs, "ns_per_nnz",
                   median(ms, runs) * 1e6 / (double)nnz);
            czk_pool_destroy(pool);
        }
        if (strcmp(dir, "none") != 0) {
            char path[1024];
            snprintf(path, sizeof(path), "%s/bench_spmv_%ld_k%u.r1cs", dir, (long)getpid(), k);
            czk_pool *pool = NULL;
            if (max_threads > 1 && czk_pool_create(&pool, max_threads) != CZK_OK)
                return 1;
            uint64_t t0 = czk_time_ns();
            if (czk_r1cs_save(&cs, path, &err) != CZK_OK) {
                fprintf(stderr, "bench_spmv: %s\n", err.msg);
                return 1;
            }
            ms[0] = (double)(czk_time_ns() - t0) / 1e6;
            report("save", k, 1, ms, 1, "bytes", (double)sh.matrix_bytes);
            for (int r = 0; r < runs; r++) {
                czk_r1cs back;
                t0 = czk_time_ns();
                if (czk_r1cs_load_ex(&back, path, 0, pool, &err) != CZK_OK) {
                    fprintf(stderr, "bench_spmv: %s\n", err.msg);
                    return 1;
                }
                ms[r] = (double)(czk_time_ns() - t0) / 1e6;
                czk_r1cs_clear(&back);
            }
            report("load", k, max_threads, ms, runs, "bytes", (double)sh.matrix_bytes);
            unlink(path);
            czk_pool_destroy(pool);
        }
        printf("# k=%u: czk_malloc peak %zu B, peak RSS %ld kB\n", k, czk_alloc_peak(),
               peak_rss_kb());
        czk_r1cs_clear(&cs);
        czk_free(w);
        czk_free(out);
    }
    free(ms);
    return status;
}
