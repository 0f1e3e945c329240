/*
 * The arithmetic-rate kernels and their timing, shared by bench_gpu_rates (every launch shape)
 * and bench_gpu_msm --roofline (the Fp product, inversion and mixed-addition rates its cost
 * model divides by): G1 mixed XYZZ additions (of points at pseudo-random indices of an
 * L2-resident table, or of one point in registers), Fp and Fr Montgomery products (mul_wide or
 * operator*, NC independent chains a thread) and Fp inversions (binary GCD or Fermat).
 *
 * A kernel runs one full wave (the occupancy calculator's blocks per SM times the SMs), median
 * of 3 after a warm-up, its results folded into a checksum (*sink) so that no work is dropped.
 * Benchmark code, header-only: each program instantiates the kernels it lists.
 */
#ifndef CZK_BENCH_GPU_RATES_CUH
#define CZK_BENCH_GPU_RATES_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdlib.h>

#include "curve/g1.h"
#include "gpu/backend.h"
#include "gpu/cuda/ec/xyzz.cuh"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/gpu_test.cuh"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"

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

/* The variants that bench_gpu_msm's roofline reads as well as bench_gpu_rates' table: the Fp
 * product as the curve formulas run it (mul_wide; one chain and four), the Fp inversion the
 * ones' batch-affine levels run (binary GCD), and the accumulation's mixed addition in its
 * launch shape (256 threads, one block an SM: msm.cuh, MSM_ACC_G1_BLOCK). */
inline const addrate_variant rates_fp_mul_1 = {
    fpmul_kernel<czk_cuda::fp_t, 256, 1, 1, true>, 256, 1, 1, 8192, "Fp mul_wide, 1 chain"};
inline const addrate_variant rates_fp_mul_4 = {
    fpmul_kernel<czk_cuda::fp_t, 256, 1, 4, true>, 256, 1, 4, 2048, "Fp mul_wide, 4 chains"};
inline const addrate_variant rates_fp_inv = {
    fpinv_kernel<czk_cuda::fp_t, false>, 128, 1, 1, 32, "Fp inv (binary GCD)"};
inline const addrate_variant rates_madd_l2 = {addrate_kernel<256, 1, true>, 256, 1, 1, 512,
                                              "mixed add, L2 table"};

/* The table (2^ADDRATE_LG G1 points on the device) and the checksum word the kernels read and
 * fold into. */
struct rates_table {
    void *dt, *dsink;
    size_t n;
};

/*
 * Makes t: random points (pool, rng) uploaded, the sink zeroed. On failure says why (as
 * bench_gpu_rates always has: "host allocation", "addrate inputs"), frees what it made and
 * returns the status.
 */
inline int rates_table_make(rates_table *t, czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    using namespace czk_gpu_test;
    const size_t n = (size_t)1 << ADDRATE_LG;
    czk_g1_affine *p = (czk_g1_affine *)czk_malloc(n * sizeof(*p));
    const uint32_t sink = 0;
    czk_err err = {};
    int rc = CZK_ENOMEM;
    t->dt = t->dsink = NULL;
    t->n = n;
    if (p == NULL || make_points(pool, p, n, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        czk_free(p);
        return rc;
    }
    rc = czk_gpu_alloc(gpu, &t->dt, n * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &t->dsink, sizeof(uint32_t), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, t->dt, p, n * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, t->dsink, &sink, sizeof(sink), &err);
    czk_free(p);
    if (rc != CZK_OK)
        fail("addrate inputs", rc, &err);
    return rc;
}

inline void rates_table_free(rates_table *t, czk_gpu *gpu) {
    czk_gpu_free(gpu, t->dt, t->n * sizeof(czk_g1_affine));
    czk_gpu_free(gpu, t->dsink, sizeof(uint32_t));
    t->dt = t->dsink = NULL;
}

/* One variant's measurement: the kernel's attributes, blocks an SM, the wave's grid, its
 * median milliseconds and operations a second. */
struct rates_result {
    cudaFuncAttributes fa;
    int nb;
    unsigned grid;
    double ms, ops_per_s;
};

/* Runs variant v over table t: one full wave, a warm-up then 3 timed launches (CUDA events),
 * the median kept. */
inline int rates_measure(czk_gpu *gpu, const addrate_variant *v, const rates_table *t,
                         rates_result *r, czk_err *err) {
    int rc = CZK_OK;
    double ms[3];
    r->nb = 0;
    if (cudaFuncGetAttributes(&r->fa, v->fn) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&r->nb, v->fn, (int)v->block, 0) !=
            cudaSuccess ||
        r->nb <= 0)
        return czk_err_set(err, CZK_ECUDA, "no occupancy for %s", v->what);
    r->grid = (unsigned)r->nb * (unsigned)gpu->sm_count;
    for (int k = -1; k < 3 && rc == CZK_OK; k++) {
        if (k >= 0)
            rc = czk_gpu_timer_start(gpu, err);
        v->fn<<<r->grid, v->block, 0, gpu->stream>>>(
            (uint32_t *)t->dsink, (const czk_cuda::g1_affine_t *)t->dt, v->steps);
        if (rc == CZK_OK && cudaGetLastError() != cudaSuccess)
            rc = czk_err_set(err, CZK_ECUDA, "launch of %s failed", v->what);
        if (rc == CZK_OK && k >= 0)
            rc = czk_gpu_timer_stop(gpu, &ms[k], err);
    }
    if (rc != CZK_OK)
        return rc;
    qsort(ms, 3, sizeof(double), czk_gpu_test::cmp_double);
    r->ms = ms[1];
    r->ops_per_s = (double)r->grid * v->block * v->steps * v->ops_per_step / (r->ms * 1e-3);
    return CZK_OK;
}

/* The table's header and one row, as bench_gpu_rates prints them. */
inline void rates_say_header() {
    czk_gpu_test::say("%-24s %5s %4s %5s %6s %7s %8s %10s %14s\n", "kernel", "block", "minb",
                      "regs", "local", "blk/SM", "threads", "ms", "ops/s");
}

inline void rates_say_row(const addrate_variant *v, const rates_result *r) {
    czk_gpu_test::say("%-24s %5u %4u %5d %6zu %7d %8u %10.3f %14.4g\n", v->what, v->block, v->minb,
                      r->fa.numRegs, (size_t)r->fa.localSizeBytes, r->nb, r->grid * v->block, r->ms,
                      r->ops_per_s);
}

#endif /* CZK_BENCH_GPU_RATES_CUH */
