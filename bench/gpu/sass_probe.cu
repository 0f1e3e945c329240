/*
 * Probe kernels for bench/gpu/sass_count.sh: each does exactly one field operation (or one G1
 * mixed addition) per step of a loop that is not unrolled, so the kernel's SASS is the
 * operation plus a fixed few instructions of loads, loop control and stores. Compiled only by
 * that script (nvcc -cubin), never linked into anything.
 */
#include "gpu/cuda/ec/xyzz.cuh"
#include "gpu/cuda/ff/mont.cuh"

using czk_cuda::fp_t;
using czk_cuda::fr_t;
using czk_cuda::g1_affine_t;
using czk_cuda::g1_xyzz_t;

template <class F> __device__ __forceinline__ void probe_store(F *out, const F &a) {
    a.store(out + blockIdx.x * blockDim.x + threadIdx.x);
}

#define CZK_PROBE_PRODUCT(NAME, F, STEP)                                                           \
    extern "C" __global__ void NAME(F *out, const F *in, unsigned k) {                             \
        const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;                                  \
        F a = F::load(in + 2 * i), b = F::load(in + 2 * i + 1);                                    \
        _Pragma("unroll 1") for (unsigned s = 0; s < k; s++) a = STEP;                             \
        probe_store(out, a);                                                                       \
    }

CZK_PROBE_PRODUCT(probe_fp_mul_wide, fp_t, fp_t::mul_wide(a, b))
CZK_PROBE_PRODUCT(probe_fp_sqr_wide, fp_t, a.sqr_wide())
CZK_PROBE_PRODUCT(probe_fr_mul_wide, fr_t, fr_t::mul_wide(a, b))
CZK_PROBE_PRODUCT(probe_fr_sqr_wide, fr_t, a.sqr_wide())
CZK_PROBE_PRODUCT(probe_fp_operator_mul, fp_t, a *b)
CZK_PROBE_PRODUCT(probe_fr_operator_mul, fr_t, a *b)

extern "C" __global__ void probe_g1_add_affine(g1_xyzz_t *out, const g1_affine_t *in, unsigned k) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    g1_xyzz_t acc = g1_xyzz_t::inf();
#pragma unroll 1
    for (unsigned s = 0; s < k; s++)
        acc.add_affine(g1_affine_t::load_ro(in + i + s));
    acc.store(out + i);
}
