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

#include "curve/g1.h"
#include "gpu/backend.h"
#include "gpu/cuda/ec/xyzz.cuh"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/gpu_test.cuh"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

using namespace czk_gpu_test;

/* Entries of the point table of the arithmetic benchmarks: 2^14 G1 points are 1.5 MiB, L2
 * resident, so the loads cost what the MSM's random point reads cost at best. */
#define ADDRATE_LG 14

/* One xorshift32 step: a table index the compiler cannot foresee, as the sorted digits are. */
__device__ __forceinline__ uint32_t addrate_next(uint32_t s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

/* Folds the limbs of an Fp element into h (the checksum that keeps the work alive). */
template <class F> __device__ __forceinline__ uint32_t addrate_fold(uint32_t h, const F &a) {
    for (int i = 0; i < F::N; i++)
        h ^= a.l[i] * (2u * (uint32_t)i + 1u);
    return h;
}

/*
 * k mixed XYZZ additions per thread (add_affine, the accumulation's operation) of table points
 * at pseudo-random indices (LOAD), or of one point held in registers (!LOAD: the arithmetic
 * alone); the result's checksum goes to *sink.
 */
template <unsigned BLOCK, unsigned MINB, bool LOAD>
__global__ void __launch_bounds__(BLOCK, MINB)
    addrate_kernel(uint32_t *sink, const czk_cuda::g1_affine_t *table, unsigned k) {
    const uint32_t mask = (1u << ADDRATE_LG) - 1, tid = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t s = tid * 0x9e3779b9u + 0x7f4a7c15u, h = 0;
    czk_cuda::g1_xyzz_t acc = czk_cuda::g1_xyzz_t::inf();
    czk_cuda::g1_affine_t q = czk_cuda::g1_affine_t::load_ro(table + (tid & mask));
    s = s != 0 ? s : 1;
    for (unsigned i = 0; i < k; i++) {
        if (LOAD) {
            s = addrate_next(s);
            q = czk_cuda::g1_affine_t::load_ro(table + (s & mask));
        }
        acc.add_affine(q);
    }
    h = addrate_fold(addrate_fold(addrate_fold(addrate_fold(h, acc.x), acc.y), acc.zz), acc.zzz);
    atomicXor(sink, h);
}

/* Table entry i's x-coordinate as an element of F: Fp itself, or for Fr its low 8 limbs with
 * the top bits cleared (below r, as Montgomery products assume; the values do not matter). */
template <class F> __device__ __forceinline__ F fpmul_input(const czk_cuda::g1_affine_t *p) {
    czk_cuda::fp_t x = czk_cuda::fp_t::load_ro(&p->x);
    F r;
#pragma unroll
    for (int i = 0; i < F::N; i++)
        r.l[i] = x.l[i];
    if (F::N == 8)
        r.l[7] &= 0x3fffffffu;
    return r;
}

/*
 * k rounds of NC independent dependent chains a_j <- a_j·b per thread (Montgomery, F = Fp or
 * Fr): mul_wide (WIDE, what the curve formulas and the NTT use) or operator*. Inputs come
 * from the table's x-coordinates.
 */
template <class F, unsigned BLOCK, unsigned MINB, unsigned NC, bool WIDE>
__global__ void __launch_bounds__(BLOCK, MINB)
    fpmul_kernel(uint32_t *sink, const czk_cuda::g1_affine_t *table, unsigned k) {
    const uint32_t mask = (1u << ADDRATE_LG) - 1, tid = blockIdx.x * blockDim.x + threadIdx.x;
    F a[NC];
    const F b = fpmul_input<F>(&table[(tid * 7u + 3u) & mask]);
    uint32_t h = 0;
#pragma unroll
    for (unsigned j = 0; j < NC; j++)
        a[j] = fpmul_input<F>(&table[(tid + 977u * j) & mask]);
    for (unsigned i = 0; i < k; i++) {
#pragma unroll
        for (unsigned j = 0; j < NC; j++)
            a[j] = WIDE ? F::mul_wide(a[j], b) : a[j] * b;
    }
#pragma unroll
    for (unsigned j = 0; j < NC; j++)
        h = addrate_fold(h, a[j]);
    atomicXor(sink, h);
}

/* k dependent inversions per thread, a <- a^(−1) + b: the binary GCD or Fermat. */
template <class F, bool FERMAT>
__global__ void __launch_bounds__(128)
    fpinv_kernel(uint32_t *sink, const czk_cuda::g1_affine_t *table, unsigned k) {
    const uint32_t mask = (1u << ADDRATE_LG) - 1, tid = blockIdx.x * blockDim.x + threadIdx.x;
    F a = fpmul_input<F>(&table[tid & mask]);
    const F b = fpmul_input<F>(&table[(tid * 7u + 3u) & mask]);
    for (unsigned i = 0; i < k; i++)
        a = (FERMAT ? a.inv_fermat() : a.inv()) + b;
    atomicXor(sink, addrate_fold(0u, a));
}

typedef void (*addrate_fn)(uint32_t *, const czk_cuda::g1_affine_t *, unsigned);

/* One benchmark kernel: its launch shape, what one thread does per step, and the label. */
struct addrate_variant {
    addrate_fn fn;
    unsigned block, minb, ops_per_step; /* operations counted per loop step of a thread */
    unsigned steps;                     /* loop steps per thread */
    const char *what;
};

/*
 * The arithmetic ceiling. Each kernel runs one full wave (the
 * occupancy calculator's blocks per SM times the SMs), median of 3 after a warm-up; prints
 * operations per second, registers, local memory and blocks per SM. The mixed addition alone
 * fits 128 registers (ptxas, sm_90), so min blocks 1..4 give one binary; 5 and 6 force
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
        {addrate_kernel<256, 1, true>, 256, 1, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<256, 2, true>, 256, 2, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<512, 1, true>, 512, 1, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 1, false>, 128, 1, 1, 512, "mixed add, registers"},
        {addrate_kernel<128, 4, false>, 128, 4, 1, 512, "mixed add, registers"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 1, true>, 256, 1, 1, 8192, "Fp mul_wide, 1 chain"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 4, true>, 256, 1, 4, 2048, "Fp mul_wide, 4 chains"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 1, false>, 256, 1, 1, 8192, "Fp operator*, 1 chain"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 4, false>, 256, 1, 4, 2048, "Fp operator*, 4 chains"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 2, 4, false>, 256, 2, 4, 2048, "Fp operator*, 4 chains"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 1, true>, 256, 1, 1, 8192, "Fr mul_wide, 1 chain"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 4, true>, 256, 1, 4, 2048, "Fr mul_wide, 4 chains"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 1, false>, 256, 1, 1, 8192, "Fr operator*, 1 chain"},
        {fpinv_kernel<czk_cuda::fp_t, false>, 128, 1, 1, 32, "Fp inv (binary GCD)"},
        {fpinv_kernel<czk_cuda::fp_t, true>, 128, 1, 1, 8, "Fp inv_fermat"},
    };
    const size_t n = (size_t)1 << ADDRATE_LG;
    czk_g1_affine *p = (czk_g1_affine *)czk_malloc(n * sizeof(*p));
    void *dt = NULL, *dsink = NULL;
    uint32_t sink = 0;
    czk_err err = {};
    int rc = CZK_ENOMEM;

    say("\n== arithmetic rates (one full wave, median of 3, CUDA events) ==\n");
    if (p == NULL || make_points(pool, p, n, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    rc = czk_gpu_alloc(gpu, &dt, n * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &dsink, sizeof(uint32_t), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dt, p, n * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dsink, &sink, sizeof(sink), &err);
    if (rc != CZK_OK) {
        fail("addrate inputs", rc, &err);
        goto out;
    }
    say("%-24s %5s %4s %5s %6s %7s %8s %10s %14s\n", "kernel", "block", "minb", "regs", "local",
        "blk/SM", "threads", "ms", "ops/s");
    for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]) && rc == CZK_OK; v++) {
        cudaFuncAttributes fa;
        int nb = 0;
        double ms[3];
        unsigned grid;
        if (cudaFuncGetAttributes(&fa, vs[v].fn) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, vs[v].fn, (int)vs[v].block, 0) !=
                cudaSuccess ||
            nb <= 0) {
            rc = czk_err_set(&err, CZK_ECUDA, "no occupancy for %s", vs[v].what);
            break;
        }
        grid = (unsigned)nb * (unsigned)gpu->sm_count;
        for (int r = -1; r < 3 && rc == CZK_OK; r++) {
            if (r >= 0)
                rc = czk_gpu_timer_start(gpu, &err);
            vs[v].fn<<<grid, vs[v].block, 0, gpu->stream>>>(
                (uint32_t *)dsink, (const czk_cuda::g1_affine_t *)dt, vs[v].steps);
            if (rc == CZK_OK && cudaGetLastError() != cudaSuccess)
                rc = czk_err_set(&err, CZK_ECUDA, "launch of %s failed", vs[v].what);
            if (rc == CZK_OK && r >= 0)
                rc = czk_gpu_timer_stop(gpu, &ms[r], &err);
        }
        if (rc != CZK_OK)
            break;
        qsort(ms, 3, sizeof(double), cmp_double);
        {
            double ops = (double)grid * vs[v].block * vs[v].steps * vs[v].ops_per_step;
            say("%-24s %5u %4u %5d %6zu %7d %8u %10.3f %14.4g\n", vs[v].what, vs[v].block,
                vs[v].minb, fa.numRegs, (size_t)fa.localSizeBytes, nb, grid * vs[v].block, ms[1],
                ops / (ms[1] * 1e-3));
        }
    }
    if (rc == CZK_OK)
        rc = czk_gpu_download(gpu, &sink, dsink, sizeof(sink), &err);
    if (rc != CZK_OK)
        fail("addrate", rc, &err);
    else
        say("(checksum of all results %08x)\n", sink);
out:
    czk_gpu_free(gpu, dt, n * sizeof(*p));
    czk_gpu_free(gpu, dsink, sizeof(uint32_t));
    czk_free(p);
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
