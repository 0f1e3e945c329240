/*
 * G1 points on the device: affine (x, y) with (0, 0) for infinity, bit for bit czk_g1_affine,
 * and XYZZ (X, Y, ZZ, ZZZ) buckets, x = X/ZZ, y = Y/ZZZ, infinity at ZZ = 0, as czk_g1_xyzz.
 *
 * Formulas from the Explicit-Formulas Database, "xyzz" coordinates for a = 0 (Bernstein and
 * Lange, https://hyperelliptic.org/EFD/g1p/auto-shortw-xyzz.html): madd-2008-s (8M+2S),
 * add-2008-s (12M+2S), dbl-2008-s-1 and mdbl-2008-s-1. The exceptional cases (an input at
 * infinity, P = Q, P = −Q) are branches: everything here is variable time (_var).
 */
#ifndef CZK_GPU_CUDA_EC_XYZZ_CUH
#define CZK_GPU_CUDA_EC_XYZZ_CUH

#include "gpu/cuda/ff/mont.cuh"

namespace czk_cuda {

struct __align__(16) g1_affine_t {
    fp_t x, y;

    __device__ __forceinline__ static g1_affine_t load_ro(const g1_affine_t *p) {
        g1_affine_t r;
        r.x = fp_t::load_ro(&p->x);
        r.y = fp_t::load_ro(&p->y);
        return r;
    }
    __device__ __forceinline__ bool is_inf() const {
        return x.is_zero() && y.is_zero();
    }
};

struct __align__(16) g1_xyzz_t {
    fp_t x, y, zz, zzz;

    __device__ __forceinline__ static g1_xyzz_t inf() {
        g1_xyzz_t r;
        r.x = fp_t::one();
        r.y = fp_t::one();
        r.zz = fp_t::zero();
        r.zzz = fp_t::zero();
        return r;
    }
    __device__ __forceinline__ bool is_inf() const {
        return zz.is_zero();
    }
    __device__ __forceinline__ static g1_xyzz_t load(const g1_xyzz_t *p) {
        g1_xyzz_t r;
        r.x = fp_t::load(&p->x);
        r.y = fp_t::load(&p->y);
        r.zz = fp_t::load(&p->zz);
        r.zzz = fp_t::load(&p->zzz);
        return r;
    }
    __device__ __forceinline__ void store(g1_xyzz_t * p) const {
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
        fp_t u = y.dbl();
        fp_t v = u.sqr();
        fp_t w = u * v;
        fp_t s = x * v;
        fp_t xx = x.sqr();
        fp_t m = xx.dbl() + xx;
        x = m.sqr() - s.dbl();
        y = m * (s - x) - w * y;
        zz = zz * v;
        zzz = zzz * w;
    }

    /* this = 2·(a as XYZZ) (mdbl-2008-s-1). */
    __device__ __forceinline__ void set_dbl_affine(const g1_affine_t &a) {
        fp_t u = a.y.dbl();
        fp_t v = u.sqr();
        fp_t w = u * v;
        fp_t s = a.x * v;
        fp_t xx = a.x.sqr();
        fp_t m = xx.dbl() + xx;
        x = m.sqr() - s.dbl();
        y = m * (s - x) - w * a.y;
        zz = v;
        zzz = w;
    }

    /* this += a, a affine and not at infinity (madd-2008-s). */
    __device__ __forceinline__ void add_affine(const g1_affine_t &a) {
        if (is_inf()) {
            x = a.x;
            y = a.y;
            zz = fp_t::one();
            zzz = fp_t::one();
            return;
        }
        fp_t p = a.x * zz - x;
        fp_t r = a.y * zzz - y;
        if (p.is_zero()) {
            if (r.is_zero())
                set_dbl_affine(a);
            else
                *this = inf();
            return;
        }
        fp_t pp = p.sqr();
        fp_t ppp = p * pp;
        fp_t q = x * pp;
        x = r.sqr() - ppp - q.dbl();
        y = r * (q - x) - y * ppp;
        zz = zz * pp;
        zzz = zzz * ppp;
    }

    /* this += b (add-2008-s). */
    __device__ __noinline__ void add(const g1_xyzz_t &b) {
        if (b.is_inf())
            return;
        if (is_inf()) {
            *this = b;
            return;
        }
        fp_t u1 = x * b.zz;
        fp_t s1 = y * b.zzz;
        fp_t p = b.x * zz - u1;
        fp_t r = b.y * zzz - s1;
        if (p.is_zero()) {
            if (r.is_zero())
                dbl();
            else
                *this = inf();
            return;
        }
        fp_t pp = p.sqr();
        fp_t ppp = p * pp;
        fp_t q = u1 * pp;
        x = r.sqr() - ppp - q.dbl();
        y = r * (q - x) - s1 * ppp;
        zz = zz * b.zz * pp;
        zzz = zzz * b.zzz * ppp;
    }
};

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_EC_XYZZ_CUH */
