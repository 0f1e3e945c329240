/*
 * bench_gpu_ntt: milliseconds per device NTT over Fr (czk_gpu_ntt_var), data on the device,
 * for each kind (forward, inverse, coset forward, coset inverse).
 *
 *   bench_gpu_ntt [--min-lg N] [--max-lg N] [--seed N] [--threads N] [--log FILE]
 *       sizes 2^min .. 2^max (defaults 20 and 27; at most CZK_GPU_NTT_MAX_LG = 28)
 *
 * Each figure is the median of 5 runs timed by CUDA events after one untimed warm-up (which
 * builds the twiddle tables). The table runs between cudaProfilerStart and cudaProfilerStop,
 * so `ncu --profile-from-start off bench_gpu_ntt --min-lg 27 --max-lg 27` profiles one size
 * alone. Correctness is czk_gpu_test's (module ntt). Exit status: 0, 1 on an error, 77
 * without a CUDA device.
 */
#include <cuda_profiler_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/gpu_test.cuh"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

using namespace czk_gpu_test;

/* One row: the four kinds at 2^lg over the data at d (overwritten). */
static int ntt_row(czk_gpu *gpu, void *d, unsigned lg, double med[4], czk_err *err) {
    czk_fr w, g;
    int rc = CZK_OK;
    czk_fr_set_u64(&g, 7);
    root_of_unity(&w, lg);
    for (int k = 0; k < 4 && rc == CZK_OK; k++) {
        double ms[5];
        rc = czk_gpu_ntt_var(gpu, (czk_fr *)d, CZK_GPU_MEM_DEVICE, lg, (czk_gpu_ntt_kind)k, &w, &g,
                             err);
        for (int r = 0; r < 5 && rc == CZK_OK; r++) {
            rc = czk_gpu_timer_start(gpu, err);
            if (rc == CZK_OK)
                rc = czk_gpu_ntt_var(gpu, (czk_fr *)d, CZK_GPU_MEM_DEVICE, lg, (czk_gpu_ntt_kind)k,
                                     &w, &g, err);
            if (rc == CZK_OK)
                rc = czk_gpu_timer_stop(gpu, &ms[r], err);
        }
        if (rc == CZK_OK) {
            qsort(ms, 5, sizeof(double), cmp_double);
            med[k] = ms[2];
        }
    }
    return rc;
}

int main(int argc, char **argv) {
    common_flags cf;
    unsigned long long minlg = 20, maxlg = 27;
    czk_gpu *gpu = NULL;
    czk_pool *pool = NULL;
    czk_rng rng;
    const size_t tile = (size_t)1 << 20;
    czk_fr *h = NULL;
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
        } else {
            fprintf(stderr, "usage: bench_gpu_ntt [--min-lg N] [--max-lg N] [--seed N] "
                            "[--threads N] [--log FILE]\n");
            return 2;
        }
    }
    if (maxlg > CZK_GPU_NTT_MAX_LG)
        maxlg = CZK_GPU_NTT_MAX_LG;
    if (minlg < CZK_GPU_NTT_MIN_LG)
        minlg = CZK_GPU_NTT_MIN_LG;
    rc = open_device(&gpu, &pool, &cf);
    if (rc != 0) {
        close_device(gpu, pool);
        return rc;
    }
    module("ntt");
    say("bench_gpu_ntt, commit %s\n", CZK_GIT_COMMIT);
    czk_rng_seed(&rng, cf.seed);
    h = (czk_fr *)czk_malloc(tile * sizeof(czk_fr));
    if (h == NULL) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    fill_fr(pool, h, tile, czk_rng_u64(&rng), FILL_UNIFORM);
    say("\n== NTT timings (ms, median of 5, CUDA events, data on the device) ==\n");
    say("%-4s %10s %10s %10s %10s\n", "lg", "fwd", "inv", "coset fwd", "coset inv");
    /* The table alone for `ncu --profile-from-start off` (no-ops without a profiler). */
    if (cudaProfilerStart() != cudaSuccess)
        say("cudaProfilerStart failed (ignored)\n");
    for (unsigned lg = (unsigned)minlg; lg <= (unsigned)maxlg; lg++) {
        const size_t n = (size_t)1 << lg, bytes = n * sizeof(czk_fr);
        const size_t chunk = n < tile ? n : tile;
        void *d = NULL;
        czk_err err = {};
        double med[4];
        rc = czk_gpu_alloc(gpu, &d, bytes, &err);
        for (size_t off = 0; off < n && rc == CZK_OK; off += chunk)
            rc = czk_gpu_upload(gpu, (czk_fr *)d + off, h, chunk * sizeof(czk_fr), &err);
        if (rc == CZK_OK)
            rc = ntt_row(gpu, d, lg, med, &err);
        czk_gpu_free(gpu, d, bytes);
        if (rc != CZK_OK) {
            fail("ntt timing", rc, &err);
            break;
        }
        say("%-4u %10.3f %10.3f %10.3f %10.3f\n", lg, med[0], med[1], med[2], med[3]);
    }
    if (cudaProfilerStop() != cudaSuccess)
        say("cudaProfilerStop failed (ignored)\n");
out:
    czk_free(h);
    say_memory(gpu);
    close_device(gpu, pool);
    return failures() > 0 ? 1 : 0;
}
