/*
 * The two groups as the MSM checks (msm_test.cu) and the MSM benchmark (bench/gpu/
 * bench_gpu_msm.cu) use them: CPU references (czk_msm_g1/_g2, and naive sums for small n),
 * the device calls (the public one, and the prover's form with scratch held by the caller,
 * with or without czk__gpu_msm_opts). Test code: header-only, in namespace czk_gpu_test.
 */
#ifndef CZK_GPU_CUDA_MSM_MSM_TEST_CUH
#define CZK_GPU_CUDA_MSM_MSM_TEST_CUH

#include <stddef.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/gpu_test.cuh"
#include "msm/msm.h"
#include "util/pool.h"
#include "util/status.h"

namespace czk_gpu_test {

/* Σ s[i]·p[i] by one scalar multiplication a point: the reference for small n. */
inline void naive_msm(czk_g1_jacobian *r, const czk_g1_affine *p, const czk_fr *s, size_t n) {
    czk_g1_jacobian_set_infinity(r);
    for (size_t i = 0; i < n; i++) {
        czk_g1_jacobian pj, t;
        czk_g1_jacobian_from_affine(&pj, &p[i]);
        czk_g1_jacobian_mul_var(&t, &pj, &s[i]);
        czk_g1_jacobian_add_var(r, r, &t);
    }
}

inline void naive_msm_g2(czk_g2_jacobian *r, const czk_g2_affine *p, const czk_fr *s, size_t n) {
    czk_g2_jacobian_set_infinity(r);
    for (size_t i = 0; i < n; i++) {
        czk_g2_jacobian pj, t;
        czk_g2_jacobian_from_affine(&pj, &p[i]);
        czk_g2_jacobian_mul_var(&t, &pj, &s[i]);
        czk_g2_jacobian_add_var(r, r, &t);
    }
}

struct tg1 {
    typedef czk_g1_affine aff;
    typedef czk_g1_jacobian jac;
    static const char *name() {
        return "G1";
    }
    static int make(czk_pool *pool, aff *p, size_t n, czk_rng *rng) {
        return make_points(pool, p, n, rng);
    }
    static void neg(aff *r, const aff *p) {
        czk_g1_affine_neg(r, p);
    }
    static void set_inf(jac *r) {
        czk_g1_jacobian_set_infinity(r);
    }
    static void add_aff(jac *r, const jac *a, const aff *b) {
        czk_g1_jacobian_add_affine_var(r, a, b);
    }
    static void add(jac *r, const jac *a, const jac *b) {
        czk_g1_jacobian_add_var(r, a, b);
    }
    static void mul(jac *r, const aff *p, const czk_fr *k) {
        jac pj;
        czk_g1_jacobian_from_affine(&pj, p);
        czk_g1_jacobian_mul_var(r, &pj, k);
    }
    static int equal(const jac *a, const jac *b) {
        return czk_g1_jacobian_equal(a, b);
    }
    static int is_inf(const jac *a) {
        return czk_g1_jacobian_is_infinity(a);
    }
    static void naive(jac *r, const aff *p, const czk_fr *s, size_t n) {
        naive_msm(r, p, s, n);
    }
    /* The CPU's Pippenger. */
    static int cpu(jac *r, const aff *p, const czk_fr *s, size_t n, czk_pool *pool, czk_err *err) {
        return czk_msm_g1(r, p, s, n, pool, err);
    }
    /* The public call: copies host inputs in, allocates and frees its scratch. */
    static int gpu(czk_gpu *g, jac *r, const aff *p, const czk_fr *s, size_t n, czk_gpu_mem where,
                   czk_err *err) {
        return czk_gpu_msm_g1_var(g, r, p, s, n, where, err);
    }
    static size_t scratch_bytes(size_t n) {
        return czk_gpu_msm_g1_scratch_bytes(n);
    }
    /* The prover's form: inputs on the device, scratch the caller holds. */
    static int scratch_opts(czk_gpu *g, size_t n, const czk__gpu_msm_opts *o, size_t *bytes,
                            czk_err *err) {
        return czk__gpu_msm_g1_scratch_opts(g, n, o, bytes, err);
    }
    static int run_opts(czk_gpu *g, jac *r, const void *p, const void *s, size_t n, void *scratch,
                        size_t bytes, const czk__gpu_msm_opts *o, czk_err *err) {
        return czk__gpu_msm_g1_run_opts(g, r, p, s, n, scratch, bytes, o, err);
    }
};

struct tg2 {
    typedef czk_g2_affine aff;
    typedef czk_g2_jacobian jac;
    static const char *name() {
        return "G2";
    }
    static int make(czk_pool *pool, aff *p, size_t n, czk_rng *rng) {
        return make_points_g2(pool, p, n, rng);
    }
    static void neg(aff *r, const aff *p) {
        czk_g2_affine_neg(r, p);
    }
    static void set_inf(jac *r) {
        czk_g2_jacobian_set_infinity(r);
    }
    static void add_aff(jac *r, const jac *a, const aff *b) {
        czk_g2_jacobian_add_affine_var(r, a, b);
    }
    static void add(jac *r, const jac *a, const jac *b) {
        czk_g2_jacobian_add_var(r, a, b);
    }
    static void mul(jac *r, const aff *p, const czk_fr *k) {
        jac pj;
        czk_g2_jacobian_from_affine(&pj, p);
        czk_g2_jacobian_mul_var(r, &pj, k);
    }
    static int equal(const jac *a, const jac *b) {
        return czk_g2_jacobian_equal(a, b);
    }
    static int is_inf(const jac *a) {
        return czk_g2_jacobian_is_infinity(a);
    }
    static void naive(jac *r, const aff *p, const czk_fr *s, size_t n) {
        naive_msm_g2(r, p, s, n);
    }
    static int cpu(jac *r, const aff *p, const czk_fr *s, size_t n, czk_pool *pool, czk_err *err) {
        return czk_msm_g2(r, p, s, n, pool, err);
    }
    static int gpu(czk_gpu *g, jac *r, const aff *p, const czk_fr *s, size_t n, czk_gpu_mem where,
                   czk_err *err) {
        return czk_gpu_msm_g2_var(g, r, p, s, n, where, err);
    }
    static size_t scratch_bytes(size_t n) {
        return czk_gpu_msm_g2_scratch_bytes(n);
    }
    static int scratch_opts(czk_gpu *g, size_t n, const czk__gpu_msm_opts *o, size_t *bytes,
                            czk_err *err) {
        return czk__gpu_msm_g2_scratch_opts(g, n, o, bytes, err);
    }
    static int run_opts(czk_gpu *g, jac *r, const void *p, const void *s, size_t n, void *scratch,
                        size_t bytes, const czk__gpu_msm_opts *o, czk_err *err) {
        return czk__gpu_msm_g2_run_opts(g, r, p, s, n, scratch, bytes, o, err);
    }
};

} // namespace czk_gpu_test

#endif /* CZK_GPU_CUDA_MSM_MSM_TEST_CUH */
