/*
 * Fp2 = Fp[u]/(u^2 + 1) on the device, element c0 + c1·u: two fp_t in Montgomery form, c0
 * first, bit for bit the CPU's czk_fp2 (96 bytes), so G2 buffers copy without conversion.
 *
 * The operations are the ones the XYZZ formulas of ec/xyzz.cuh use, with the same names as
 * fp_t's so that the point code is one template over the field. Multiplication is Karatsuba
 * (3 Fp products instead of 4): (a0 + a1·u)(b0 + b1·u) = (a0·b0 − a1·b1) +
 * ((a0 + a1)(b0 + b1) − a0·b0 − a1·b1)·u. Squaring takes 2 products:
 * (a0 + a1·u)^2 = (a0 + a1)(a0 − a1) + 2·a0·a1·u. Branch-free in the values, as fp_t.
 */
#ifndef CZK_GPU_CUDA_FF_FP2_CUH
#define CZK_GPU_CUDA_FF_FP2_CUH

#include "gpu/cuda/ff/mont.cuh"

namespace czk_cuda {

struct __align__(16) fp2_t {
    fp_t c0, c1;

    __device__ __forceinline__ static fp2_t zero() {
        fp2_t r;
        r.c0 = fp_t::zero();
        r.c1 = fp_t::zero();
        return r;
    }
    __device__ __forceinline__ static fp2_t one() {
        fp2_t r;
        r.c0 = fp_t::one();
        r.c1 = fp_t::zero();
        return r;
    }

    __device__ __forceinline__ static fp2_t load(const fp2_t *p) {
        fp2_t r;
        r.c0 = fp_t::load(&p->c0);
        r.c1 = fp_t::load(&p->c1);
        return r;
    }
    __device__ __forceinline__ static fp2_t load_ro(const fp2_t *p) {
        fp2_t r;
        r.c0 = fp_t::load_ro(&p->c0);
        r.c1 = fp_t::load_ro(&p->c1);
        return r;
    }
    __device__ __forceinline__ void store(fp2_t * p) const {
        c0.store(&p->c0);
        c1.store(&p->c1);
    }

    __device__ __forceinline__ bool is_zero() const {
        return c0.is_zero() & c1.is_zero();
    }
    __device__ __forceinline__ bool equal(const fp2_t &b) const {
        return c0.equal(b.c0) & c1.equal(b.c1);
    }

    __device__ __forceinline__ friend fp2_t operator+(const fp2_t &a, const fp2_t &b) {
        fp2_t r;
        r.c0 = a.c0 + b.c0;
        r.c1 = a.c1 + b.c1;
        return r;
    }
    __device__ __forceinline__ friend fp2_t operator-(const fp2_t &a, const fp2_t &b) {
        fp2_t r;
        r.c0 = a.c0 - b.c0;
        r.c1 = a.c1 - b.c1;
        return r;
    }
    __device__ __forceinline__ fp2_t dbl() const {
        return *this + *this;
    }
    __device__ __forceinline__ fp2_t neg() const {
        fp2_t r;
        r.c0 = c0.neg();
        r.c1 = c1.neg();
        return r;
    }

    /* One Fp product: fp_t::mul_wide (WIDE) or operator*, bit for bit the same result; the
     * wide one in fewer instructions. */
    template <bool WIDE>
    __device__ __forceinline__ static fp_t fp_mul(const fp_t &a, const fp_t &b) {
        return WIDE ? fp_t::mul_wide(a, b) : a * b;
    }
    /* Karatsuba: three Fp products. */
    template <bool WIDE>
    __device__ __forceinline__ static fp2_t mul_t(const fp2_t &a, const fp2_t &b) {
        fp_t t0 = fp_mul<WIDE>(a.c0, b.c0);
        fp_t t1 = fp_mul<WIDE>(a.c1, b.c1);
        fp_t t2 = fp_mul<WIDE>(a.c0 + a.c1, b.c0 + b.c1);
        fp2_t r;
        r.c0 = t0 - t1;
        r.c1 = t2 - t0 - t1;
        return r;
    }
    /* (c0 + c1)(c0 − c1) and 2·c0·c1: two Fp products. */
    template <bool WIDE> __device__ __forceinline__ fp2_t sqr_t() const {
        fp2_t r;
        r.c0 = fp_mul<WIDE>(c0 + c1, c0 - c1);
        r.c1 = fp_mul<WIDE>(c0.dbl(), c1);
        return r;
    }

    __device__ __forceinline__ friend fp2_t operator*(const fp2_t &a, const fp2_t &b) {
        return mul_t<false>(a, b);
    }
    __device__ __forceinline__ fp2_t sqr() const {
        return sqr_t<false>();
    }
    /* operator* and sqr with fp_t::mul_wide for the Fp products. */
    __device__ __forceinline__ static fp2_t mul_wide(const fp2_t &a, const fp2_t &b) {
        return mul_t<true>(a, b);
    }
    __device__ __forceinline__ fp2_t sqr_wide() const {
        return sqr_t<true>();
    }

    /* (c0 + c1·u)^(−1) = (c0 − c1·u)/(c0² + c1²), u² = −1: one Fp inversion (0 for 0). */
    __device__ __forceinline__ fp2_t inv() const {
        const fp_t t = fp_t::mul_wide(c0, c0) + fp_t::mul_wide(c1, c1);
        const fp_t ti = t.inv();
        fp2_t r;
        r.c0 = fp_t::mul_wide(c0, ti);
        r.c1 = fp_t::mul_wide(c1, ti).neg();
        return r;
    }

    __device__ __forceinline__ fp2_t &operator*=(const fp2_t &b) {
        return *this = *this * b;
    }
    __device__ __forceinline__ fp2_t &operator+=(const fp2_t &b) {
        return *this = *this + b;
    }
    __device__ __forceinline__ fp2_t &operator-=(const fp2_t &b) {
        return *this = *this - b;
    }
};

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_FF_FP2_CUH */
