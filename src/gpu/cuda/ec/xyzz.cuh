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
        F v = u.sqr();
        F w = u * v;
        F s = x * v;
        F xx = x.sqr();
        F m = xx.dbl() + xx;
        x = m.sqr() - s.dbl();
        y = m * (s - x) - w * y;
        zz = zz * v;
        zzz = zzz * w;
    }

    /* this = 2·(a as XYZZ) (mdbl-2008-s-1). */
    __device__ __forceinline__ void set_dbl_affine(const affine_t<F> &a) {
        F u = a.y.dbl();
        F v = u.sqr();
        F w = u * v;
        F s = a.x * v;
        F xx = a.x.sqr();
        F m = xx.dbl() + xx;
        x = m.sqr() - s.dbl();
        y = m * (s - x) - w * a.y;
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
        F p = a.x * zz - x;
        F r = a.y * zzz - y;
        if (p.is_zero()) {
            if (r.is_zero())
                set_dbl_affine(a);
            else
                *this = inf();
            return;
        }
        F pp = p.sqr();
        F ppp = p * pp;
        F q = x * pp;
        x = r.sqr() - ppp - q.dbl();
        y = r * (q - x) - y * ppp;
        zz = zz * pp;
        zzz = zzz * ppp;
    }

    /* this += b (add-2008-s). */
    __device__ __noinline__ void add(const xyzz_t &b) {
        if (b.is_inf())
            return;
        if (is_inf()) {
            *this = b;
            return;
        }
        F u1 = x * b.zz;
        F s1 = y * b.zzz;
        F p = b.x * zz - u1;
        F r = b.y * zzz - s1;
        if (p.is_zero()) {
            if (r.is_zero())
                dbl();
            else
                *this = inf();
            return;
        }
        F pp = p.sqr();
        F ppp = p * pp;
        F q = u1 * pp;
        x = r.sqr() - ppp - q.dbl();
        y = r * (q - x) - s1 * ppp;
        zz = zz * b.zz * pp;
        zzz = zzz * b.zzz * ppp;
    }
};

typedef affine_t<fp_t> g1_affine_t;
typedef xyzz_t<fp_t> g1_xyzz_t;
typedef affine_t<fp2_t> g2_affine_t;
typedef xyzz_t<fp2_t> g2_xyzz_t;

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_EC_XYZZ_CUH */
