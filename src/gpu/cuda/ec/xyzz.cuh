/*
 * G1 and G2 points on the device: affine (x, y) with (0, 0) for infinity, and XYZZ
 * (X, Y, ZZ, ZZZ) buckets, x = X/ZZ, y = Y/ZZZ, infinity at ZZ = 0. One template over the
 * coordinate field F: F = fp_t gives G1, bit for bit czk_g1_affine / czk_g1_xyzz; F = fp2_t
 * gives G2 (the twist E'(Fp2)), bit for bit czk_g2_affine / czk_g2_xyzz. The formulas do not
 * use the curve constant b, so one body serves both curves.
 *
 * Formulas from the Explicit-Formulas Database, "xyzz" coordinates for a = 0 (Bernstein and
 * Lange, https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html): madd-2008-s (8M+2S),
 * add-2008-s (12M+2S), dbl-2008-s-1 and mdbl-2008-s-1. The exceptional cases (an input at
 * infinity, P = Q, P = −Q) are branches: everything here is variable time (_var).
 */
#ifndef CZK_GPU_CUDA_EC_XYZZ_CUH
#define CZK_GPU_CUDA_EC_XYZZ_CUH

#include "gpu/cuda/ff/fp2.cuh"
#include "gpu/cuda/ff/mont.cuh"

namespace czk_cuda {

/*
 * The field products of the formulas below: mul_wide/sqr_wide (ff/mont.cuh, ff/fp2.cuh), bit
 * for bit operator* and sqr in about 65 % fewer instructions on sm_90 (432 against 1248 SASS
 * for one Fp product, bench/gpu/sass_count.sh, whose probes count both forms).
 */
template <class F> __device__ __forceinline__ F fmul(const F &a, const F &b) {
    return F::mul_wide(a, b);
}
template <class F> __device__ __forceinline__ F fsqr(const F &a) {
    return a.sqr_wide();
}

template <class F> struct __align__(16) affine_t {
    F x, y;

    __device__ __forceinline__ static affine_t load_ro(const affine_t *p) {
        affine_t r;
        r.x = F::load_ro(&p->x);
        r.y = F::load_ro(&p->y);
        return r;
    }
    __device__ __forceinline__ bool is_inf() const {
        return x.is_zero() && y.is_zero();
    }
};

template <class F> struct __align__(16) xyzz_t {
    F x, y, zz, zzz;

    __device__ __forceinline__ static xyzz_t inf() {
        xyzz_t r;
        r.x = F::one();
        r.y = F::one();
        r.zz = F::zero();
        r.zzz = F::zero();
        return r;
    }
    __device__ __forceinline__ bool is_inf() const {
        return zz.is_zero();
    }
    __device__ __forceinline__ static xyzz_t load(const xyzz_t *p) {
        xyzz_t r;
        r.x = F::load(&p->x);
        r.y = F::load(&p->y);
        r.zz = F::load(&p->zz);
        r.zzz = F::load(&p->zzz);
        return r;
    }
    __device__ __forceinline__ void store(xyzz_t * p) const {
        x.store(&p->x);
        y.store(&p->y);
        zz.store(&p->zz);
        zzz.store(&p->zzz);
    }

    __device__ __forceinline__ void neg() {
        y = y.neg();
    }

    /* this = 2·this (dbl-2008-s-1). */
    __device__ __noinline__ void dbl() {
        if (is_inf())
            return;
        F u = y.dbl();
        F v = fsqr(u);
        F w = fmul(u, v);
        F s = fmul(x, v);
        F xx = fsqr(x);
        F m = xx.dbl() + xx;
        x = fsqr(m) - s.dbl();
        y = fmul(m, s - x) - fmul(w, y);
        zz = fmul(zz, v);
        zzz = fmul(zzz, w);
    }

    /* this = 2·(a as XYZZ) (mdbl-2008-s-1). Inlined: as a call it gave the accumulation a
     * stack frame and made it 7 % slower (H200 run 13). */
    __device__ __forceinline__ void set_dbl_affine(const affine_t<F> &a) {
        F u = a.y.dbl();
        F v = fsqr(u);
        F w = fmul(u, v);
        F s = fmul(a.x, v);
        F xx = fsqr(a.x);
        F m = xx.dbl() + xx;
        x = fsqr(m) - s.dbl();
        y = fmul(m, s - x) - fmul(w, a.y);
        zz = v;
        zzz = w;
    }

    /* this += a, a affine and not at infinity (madd-2008-s). */
    __device__ __forceinline__ void add_affine(const affine_t<F> &a) {
        if (is_inf()) {
            x = a.x;
            y = a.y;
            zz = F::one();
            zzz = F::one();
            return;
        }
        F p = fmul(a.x, zz) - x;
        F r = fmul(a.y, zzz) - y;
        if (p.is_zero()) {
            if (r.is_zero())
                set_dbl_affine(a);
            else
                *this = inf();
            return;
        }
        F pp = fsqr(p);
        F ppp = fmul(p, pp);
        F q = fmul(x, pp);
        x = fsqr(r) - ppp - q.dbl();
        y = fmul(r, q - x) - fmul(y, ppp);
        zz = fmul(zz, pp);
        zzz = fmul(zzz, ppp);
    }

    /* this += b (add-2008-s). */
    __device__ __noinline__ void add(const xyzz_t &b) {
        if (b.is_inf())
            return;
        if (is_inf()) {
            *this = b;
            return;
        }
        F u1 = fmul(x, b.zz);
        F s1 = fmul(y, b.zzz);
        F p = fmul(b.x, zz) - u1;
        F r = fmul(b.y, zzz) - s1;
        if (p.is_zero()) {
            if (r.is_zero())
                dbl();
            else
                *this = inf();
            return;
        }
        F pp = fsqr(p);
        F ppp = fmul(p, pp);
        F q = fmul(u1, pp);
        x = fsqr(r) - ppp - q.dbl();
        y = fmul(r, q - x) - fmul(s1, ppp);
        zz = fmul(fmul(zz, b.zz), pp);
        zzz = fmul(fmul(zzz, b.zzz), ppp);
    }
};

typedef affine_t<fp_t> g1_affine_t;
typedef xyzz_t<fp_t> g1_xyzz_t;
typedef affine_t<fp2_t> g2_affine_t;
typedef xyzz_t<fp2_t> g2_xyzz_t;

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_EC_XYZZ_CUH */
