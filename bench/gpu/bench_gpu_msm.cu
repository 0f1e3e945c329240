/*
 * bench_gpu_msm: milliseconds per device MSM, inputs on the device.
 *
 *   bench_gpu_msm [--min-lg N] [--max-lg N] [--big] [--profile] [--sweep]
 *                 [--seed N] [--threads N] [--log FILE]
 *
 * Rows: G1 with uniform scalars at 2^min .. 2^max (defaults 20 and 24; --big: 27), G1 with
 * the PoRep witness mix (60 % zero, 38 % one) at 2^24 and 2^26 (a given --max-lg bounds
 * these too), G2 with uniform scalars at 2^min .. 2^min(max, 24); sizes shrink to what fits
 * in 90 % of the device's free memory. Columns: the public call (czk_gpu_msm_g1_var, which
 * allocates and frees its scratch each time), median and minimum of 5; "arena", the call as
 * the prover makes it (scratch allocated beforehand), median of 5; points a microsecond; and
 * whether every run gave the same sum (a disagreement fails the run).
 *   --profile  under each row, the steps of its last arena run (CUDA events: split, ones,
 *              digits, sort, accumulation, window sums; the window and the number of others)
 *   --sweep    G1 at 2^24 over windows c = 12 .. 22, uniform and PoRep mix (the cost model's
 *              check, BENCHMARKS.md run 2)
 * The tables run between cudaProfilerStart and cudaProfilerStop (for `ncu --profile-from-start
 * off`). Correctness is czk_gpu_test's (module msm). Exit status: 0, 1 on an error or a
 * disagreement, 77 without a CUDA device.
 */
#include <cuda_profiler_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm_test.cuh"
#include "gpu/gpu_test.cuh"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

using namespace czk_gpu_test;

namespace {

bool g_profile;

/*
 * Median and minimum of `runs` (1..5) CUDA-event runs of call(&r) after an untimed warm-up;
 * *same &= every result equals *want (or, with want NULL, the warm-up's, left in *first when
 * that is not NULL).
 */
template <class T, class Call>
int time_runs(czk_gpu *gpu, Call call, int runs, const typename T::jac *want,
              typename T::jac *first, double *med, double *mn, int *same, czk_err *err) {
    typename T::jac w, r;
    double ms[5];
    int rc = call(&w);
    runs = runs < 1 ? 1 : runs > 5 ? 5 : runs;
    if (want == NULL)
        want = &w;
    *same &= rc == CZK_OK && T::equal(want, &w);
    if (first != NULL)
        *first = w;
    for (int k = 0; k < runs && rc == CZK_OK; k++) {
        rc = czk_gpu_timer_start(gpu, err);
        if (rc == CZK_OK)
            rc = call(&r);
        if (rc == CZK_OK)
            rc = czk_gpu_timer_stop(gpu, &ms[k], err);
        *same &= rc == CZK_OK && T::equal(want, &r);
    }
    if (rc == CZK_OK) {
        qsort(ms, (size_t)runs, sizeof(double), cmp_double);
        *med = ms[runs / 2];
        *mn = ms[0];
    }
    return rc;
}

/* The public call (device inputs; it allocates and frees its scratch each time), timed as
 * time_runs says; *same is set, not accumulated; *result: the warm-up's. */
template <class T>
int time_public(czk_gpu *gpu, const void *dp, const void *ds, size_t n, double *med, double *mn,
                int *same, typename T::jac *result, czk_err *err) {
    auto call = [&](typename T::jac *r) {
        return T::gpu(gpu, r, (const typename T::aff *)dp, (const czk_fr *)ds, n,
                      CZK_GPU_MEM_DEVICE, err);
    };
    *same = 1;
    return time_runs<T>(gpu, call, 5, NULL, result, med, mn, same, err);
}

/*
 * Median of 5 CUDA-event runs of the MSM as the prover runs it: scratch allocated once
 * beforehand (the prover carves it from its arena), so the call allocates nothing; with
 * opts (NULL: the product's settings). want NULL: the runs must agree among themselves.
 */
template <class T>
int time_arena(czk_gpu *gpu, const void *dp, const void *ds, size_t n,
               const czk__gpu_msm_opts *opts, double *med, const typename T::jac *want, int *same,
               czk_err *err) {
    void *scratch = NULL;
    size_t bytes = 0;
    double mn;
    int rc = T::scratch_opts(gpu, n, opts, &bytes, err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &scratch, bytes, err);
    if (rc == CZK_OK) {
        auto call = [&](typename T::jac *r) {
            return T::run_opts(gpu, r, dp, ds, n, scratch, bytes, opts, err);
        };
        rc = time_runs<T>(gpu, call, 5, want, NULL, med, &mn, same, err);
    }
    czk_gpu_free(gpu, scratch, bytes);
    return rc;
}

/* One row of the table, and under it the steps of the last arena run with --profile. */
template <class T>
int msm_row(czk_gpu *gpu, const void *dp, const void *ds, unsigned lg, int kind) {
    czk_err err = {};
    czk__gpu_msm_profile pf;
    czk__gpu_msm_opts opts;
    const size_t n = (size_t)1 << lg;
    double med = 0, mn = 0, arena = 0;
    int same = 0;
    typename T::jac first;
    memset(&pf, 0, sizeof(pf));
    memset(&opts, 0, sizeof(opts));
    opts.profile = g_profile ? &pf : NULL;
    int rc = time_public<T>(gpu, dp, ds, n, &med, &mn, &same, &first, &err);
    if (rc == CZK_OK)
        rc = time_arena<T>(gpu, dp, ds, n, &opts, &arena, &first, &same, &err);
    if (rc != CZK_OK) {
        fail("msm timing", rc, &err);
        return rc;
    }
    say("%-3s 2^%-3u %-10s %10.2f %10.2f %10.2f %10.1f  %s\n", T::name(), lg, fill_name(kind), med,
        mn, arena, (double)n / arena / 1e3, same ? "yes" : "NO");
    if (!same)
        check(0, "%s 2^%u %s: every run gives the same sum", T::name(), lg, fill_name(kind));
    if (g_profile)
        say("      steps: split %.2f, ones %.2f, digits %.2f, sort %.2f, acc %.2f, windows %.2f "
            "ms (others %zu, ones %zu, c %u, window groups %u)\n",
            pf.split_ms, pf.ones_ms, pf.digits_ms, pf.sort_ms, pf.acc_ms, pf.windows_ms, pf.n_other,
            pf.n_one, pf.c, pf.groups);
    return CZK_OK;
}

/* The largest lg <= maxlg whose points, scalars (`vectors` arrays) and scratch fit in 90 % of
 * free device memory (at least 20). */
template <class T> unsigned fit_lg(czk_gpu *gpu, unsigned maxlg, unsigned vectors) {
    size_t free_b = 0, total_b = 0;
    czk_err err = {};
    if (czk_gpu_mem_info(gpu, &free_b, &total_b, &err) != CZK_OK)
        return 20;
    while (maxlg > 20) {
        const size_t n = (size_t)1 << maxlg;
        if (n * (sizeof(typename T::aff) + 32 * vectors) + T::scratch_bytes(n) < free_b / 10 * 9)
            break;
        maxlg--;
    }
    return maxlg;
}

/* G1 at 2^24 over windows c = 12 .. 22 (opts.c), arena form, uniform (ds) and PoRep mix (dm). */
int window_sweep(czk_gpu *gpu, const void *dp, const void *ds, const void *dm) {
    const size_t n = (size_t)1 << 24;
    int rc = CZK_OK;
    say("\n== MSM G1 window sweep at 2^24 (ms, median of 5, arena) ==\n%-4s %10s %10s\n", "c",
        "uniform", "PoRep-mix");
    for (unsigned c = 12; c <= 22 && rc == CZK_OK; c++) {
        czk__gpu_msm_opts opts;
        czk_err err = {};
        double mu = 0, mm = 0;
        int same_u = 1, same_m = 1;
        memset(&opts, 0, sizeof(opts));
        opts.c = c;
        rc = time_arena<tg1>(gpu, dp, ds, n, &opts, &mu, NULL, &same_u, &err);
        if (rc == CZK_OK)
            rc = time_arena<tg1>(gpu, dp, dm, n, &opts, &mm, NULL, &same_m, &err);
        if (rc != CZK_OK) {
            fail("msm sweep", rc, &err);
            break;
        }
        say("%-4u %10.2f %10.2f\n", c, mu, mm);
        if (!same_u || !same_m)
            check(0, "sweep c = %u: every run gives the same sum", c);
    }
    return rc;
}

/* The G1 rows (and the sweep), then the G2 rows. */
void bench_msm(czk_gpu *gpu, czk_pool *pool, czk_rng *rng, unsigned minlg, unsigned maxlg,
               bool max_given, bool sweep) {
    unsigned mixlg = max_given ? maxlg : (maxlg > 26 ? maxlg : 26), toplg, g2lg;
    size_t nmax;
    czk_err err = {};
    czk_g1_affine *p = NULL;
    czk_g2_affine *p2 = NULL;
    czk_fr *s = NULL;
    void *dp = NULL, *ds = NULL, *dm = NULL;
    int rc;
    uint64_t t0;

    mixlg = fit_lg<tg1>(gpu, mixlg, 2);
    maxlg = maxlg < mixlg ? maxlg : mixlg;
    toplg = maxlg > mixlg ? maxlg : mixlg;
    if (sweep && toplg < 24)
        sweep = false;
    nmax = (size_t)1 << toplg;
    say("\n== MSM timings (ms, median and min of 5, CUDA events, inputs on the device; arena: "
        "scratch allocated beforehand, as the prover holds it) ==\n");
    t0 = czk_time_ns();
    p = (czk_g1_affine *)czk_malloc(nmax * sizeof(*p));
    s = (czk_fr *)czk_malloc(nmax * sizeof(*s));
    if (p == NULL || s == NULL || make_points(pool, p, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("(2^%u G1 points and scalars generated in %.1f s)\n", toplg, (czk_time_ns() - t0) * 1e-9);
    /* Uniform scalars in ds, the PoRep mix in dm. */
    rc = czk_gpu_alloc(gpu, &dp, nmax * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &ds, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &dm, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dp, p, nmax * sizeof(*p), &err);
    if (rc == CZK_OK) {
        fill_fr(pool, s, nmax, czk_rng_u64(rng), FILL_UNIFORM);
        rc = czk_gpu_upload(gpu, ds, s, nmax * sizeof(*s), &err);
    }
    if (rc == CZK_OK) {
        fill_fr(pool, s, nmax, czk_rng_u64(rng), FILL_POREP);
        rc = czk_gpu_upload(gpu, dm, s, nmax * sizeof(*s), &err);
    }
    if (rc != CZK_OK) {
        fail("msm inputs", rc, &err);
        goto out;
    }
    say("%-3s %-6s %-10s %10s %10s %10s %10s  %s\n", "", "n", "scalars", "ms", "min", "arena",
        "Mpts/s", "runs agree");
    for (unsigned lg = minlg; lg <= maxlg && rc == CZK_OK; lg++)
        rc = msm_row<tg1>(gpu, dp, ds, lg, FILL_UNIFORM);
    for (unsigned lg = minlg > 24 ? 26 : 24; lg <= mixlg && rc == CZK_OK; lg += 2)
        rc = msm_row<tg1>(gpu, dp, dm, lg, FILL_POREP);
    if (sweep && rc == CZK_OK)
        rc = window_sweep(gpu, dp, ds, dm);
    czk_gpu_free(gpu, dp, nmax * sizeof(czk_g1_affine));
    czk_gpu_free(gpu, ds, nmax * sizeof(czk_fr));
    czk_gpu_free(gpu, dm, nmax * sizeof(czk_fr));
    dp = ds = dm = NULL;
    czk_free(p);
    p = NULL;

    /* G2, uniform scalars (the first 2^g2lg of s). */
    g2lg = fit_lg<tg2>(gpu, maxlg < 24 ? maxlg : 24, 1);
    nmax = (size_t)1 << g2lg;
    t0 = czk_time_ns();
    p2 = (czk_g2_affine *)czk_malloc(nmax * sizeof(*p2));
    if (p2 == NULL || make_points_g2(pool, p2, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("(2^%u G2 points generated in %.1f s)\n", g2lg, (czk_time_ns() - t0) * 1e-9);
    fill_fr(pool, s, nmax, czk_rng_u64(rng), FILL_UNIFORM);
    rc = czk_gpu_alloc(gpu, &dp, nmax * sizeof(*p2), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &ds, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dp, p2, nmax * sizeof(*p2), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, ds, s, nmax * sizeof(*s), &err);
    if (rc != CZK_OK) {
        fail("msm G2 inputs", rc, &err);
        goto out;
    }
    for (unsigned lg = minlg; lg <= g2lg && rc == CZK_OK; lg++)
        rc = msm_row<tg2>(gpu, dp, ds, lg, FILL_UNIFORM);
out:
    czk_gpu_free(gpu, dp, nmax * (p2 != NULL ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine)));
    czk_gpu_free(gpu, ds, nmax * sizeof(czk_fr));
    czk_gpu_free(gpu, dm, nmax * sizeof(czk_fr));
    czk_free(p);
    czk_free(p2);
    czk_free(s);
}

} // namespace

int main(int argc, char **argv) {
    common_flags cf;
    unsigned long long minlg = 20, maxlg = 0;
    bool big = false, sweep = false;
    czk_gpu *gpu = NULL;
    czk_pool *pool = NULL;
    czk_rng rng;
    int rc;

    common_defaults(&cf);
    for (int i = 1; i < argc; i++) {
        const int c = common_flag(argc, argv, &i, &cf);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (strcmp(argv[i], "--min-lg") == 0) {
            if (flag_value(argc, argv, &i, &minlg) != 0)
                return 2;
        } else if (strcmp(argv[i], "--max-lg") == 0) {
            if (flag_value(argc, argv, &i, &maxlg) != 0)
                return 2;
        } else if (strcmp(argv[i], "--big") == 0) {
            big = true;
        } else if (strcmp(argv[i], "--profile") == 0) {
            g_profile = true;
        } else if (strcmp(argv[i], "--sweep") == 0) {
            sweep = true;
        } else {
            fprintf(stderr, "usage: bench_gpu_msm [--min-lg N] [--max-lg N] [--big] [--profile] "
                            "[--sweep] [--seed N] [--threads N] [--log FILE]\n");
            return 2;
        }
    }
    const bool max_given = maxlg != 0;
    if (!max_given)
        maxlg = big ? 27 : 24;
    if (maxlg > 31)
        maxlg = 31;
    if (minlg < 1)
        minlg = 1;
    rc = open_device(&gpu, &pool, &cf);
    if (rc != 0) {
        close_device(gpu, pool);
        return rc;
    }
    module("msm");
    say("bench_gpu_msm, commit %s\n", CZK_GIT_COMMIT);
    czk_rng_seed(&rng, cf.seed);
    if (cudaProfilerStart() != cudaSuccess)
        say("cudaProfilerStart failed (ignored)\n");
    bench_msm(gpu, pool, &rng, (unsigned)minlg, (unsigned)maxlg, max_given, sweep);
    if (cudaProfilerStop() != cudaSuccess)
        say("cudaProfilerStop failed (ignored)\n");
    say_memory(gpu);
    close_device(gpu, pool);
    return failures() > 0 ? 1 : 0;
}
