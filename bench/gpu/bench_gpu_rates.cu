/*
 * bench_gpu_rates: the device's arithmetic rates, the ceiling the MSM and NTT kernels are
 * measured against (BENCHMARKS.md, "arithmetic rates"): G1 mixed XYZZ additions a second (of
 * points at pseudo-random indices of an L2-resident table, and of one point in registers)
 * under several launch shapes, Fp and Fr Montgomery products (mul_wide and operator*, one or
 * four independent chains a thread), and Fp inversions (binary GCD and Fermat).
 *
 *   bench_gpu_rates [--seed N] [--threads N] [--log FILE]
 *
 * Each kernel runs one full wave (the occupancy calculator's blocks per SM times the SMs),
 * median of 3 after a warm-up; a row prints operations a second, registers, local memory
 * and blocks per SM. The results are folded into a checksum so that no work is dropped.
 * Exit status: 0, 1 on an error, 77 without a CUDA device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/backend.h"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/gpu_test.cuh"
#include "rates.cuh"
#include "util/rng.h"
#include "util/status.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

using namespace czk_gpu_test;

/*
 * The arithmetic ceiling (the kernels and their timing: rates.cuh). Each kernel runs one full
 * wave (the occupancy calculator's blocks per SM times the SMs), median of 3 after a warm-up;
 * prints operations per second, registers, local memory and blocks per SM. The mixed addition
 * alone fits 128 registers (ptxas, sm_90), so min blocks 1..4 give one binary; 5 and 6 force
 * fewer registers (spills) for more warps, to see which side of that trade wins.
 */
static void bench_addrate(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    static const addrate_variant vs[] = {
        {addrate_kernel<128, 1, true>, 128, 1, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 2, true>, 128, 2, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 3, true>, 128, 3, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 4, true>, 128, 4, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 5, true>, 128, 5, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 6, true>, 128, 6, 1, 512, "mixed add, L2 table"},
        rates_madd_l2,
        {addrate_kernel<256, 2, true>, 256, 2, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<512, 1, true>, 512, 1, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 1, false>, 128, 1, 1, 512, "mixed add, registers"},
        {addrate_kernel<128, 4, false>, 128, 4, 1, 512, "mixed add, registers"},
        rates_fp_mul_1,
        rates_fp_mul_4,
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 1, false>, 256, 1, 1, 8192, "Fp operator*, 1 chain"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 4, false>, 256, 1, 4, 2048, "Fp operator*, 4 chains"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 2, 4, false>, 256, 2, 4, 2048, "Fp operator*, 4 chains"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 1, true>, 256, 1, 1, 8192, "Fr mul_wide, 1 chain"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 4, true>, 256, 1, 4, 2048, "Fr mul_wide, 4 chains"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 1, false>, 256, 1, 1, 8192, "Fr operator*, 1 chain"},
        rates_fp_inv,
        {fpinv_kernel<czk_cuda::fp_t, true>, 128, 1, 1, 8, "Fp inv_fermat"},
    };
    rates_table t;
    uint32_t sink = 0;
    czk_err err = {};
    int rc;

    say("\n== arithmetic rates (one full wave, median of 3, CUDA events) ==\n");
    rc = rates_table_make(&t, gpu, pool, rng);
    if (rc != CZK_OK)
        goto out;
    rates_say_header();
    for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]) && rc == CZK_OK; v++) {
        rates_result r;
        rc = rates_measure(gpu, &vs[v], &t, &r, &err);
        if (rc == CZK_OK)
            rates_say_row(&vs[v], &r);
    }
    if (rc == CZK_OK)
        rc = czk_gpu_download(gpu, &sink, t.dsink, sizeof(sink), &err);
    if (rc != CZK_OK)
        fail("addrate", rc, &err);
    else
        say("(checksum of all results %08x)\n", sink);
out:
    rates_table_free(&t, gpu);
}

int main(int argc, char **argv) {
    common_flags cf;
    czk_gpu *gpu = NULL;
    czk_pool *pool = NULL;
    czk_rng rng;
    int rc;

    common_defaults(&cf);
    for (int i = 1; i < argc; i++) {
        const int c = common_flag(argc, argv, &i, &cf);
        if (c < 0)
            return 2;
        if (c == 0) {
            fprintf(stderr, "usage: bench_gpu_rates [--seed N] [--threads N] [--log FILE]\n");
            return 2;
        }
    }
    rc = open_device(&gpu, &pool, &cf);
    if (rc != 0) {
        close_device(gpu, pool);
        return rc;
    }
    module("rates");
    say("bench_gpu_rates, commit %s\n", CZK_GIT_COMMIT);
    czk_rng_seed(&rng, cf.seed);
    bench_addrate(gpu, pool, &rng);
    say_memory(gpu);
    close_device(gpu, pool);
    return failures() > 0 ? 1 : 0;
}
