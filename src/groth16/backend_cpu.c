/*
 * The CPU backend: the czk_backend table over poly/quotient.h and msm/msm.h. It holds no
 * state (ctx = NULL), so one static table serves every thread.
 */
#include "groth16/backend.h"

#include "msm/msm.h"
#include "poly/quotient.h"

static int cpu_h(void *ctx, const czk_ntt_domain *d, czk_groth16_h_basis basis, czk_fr *a,
                 czk_fr *b, czk_fr *c, czk_pool *pool, czk_err *err) {
    (void)ctx;
    switch (basis) {
    case CZK_H_MONOMIAL:
        return czk_poly_h_monomial(d, a, b, c, pool, err);
    case CZK_H_ODD_COSET:
        return czk_poly_h_odd_coset(d, a, b, c, pool, err);
    }
    return czk_err_set(err, CZK_EINVAL, "cpu backend: unknown H basis %d", (int)basis);
}

/* The CPU keeps no keys (it reads every key's host arrays), so key and which are unused: a key
 * here was attached by another backend. czk_msm_g1/g2 split zeros and ones off in their first
 * pass (msm.h). */
static int foreign_key(czk_err *err) {
    return czk_err_set(err, CZK_EINVAL, "cpu backend: a key attached to another backend");
}

static int cpu_msm_g1(void *ctx, czk_g1_jacobian *out, const czk_backend_key *key,
                      czk_key_array which, const czk_g1_affine *pts, const czk_fr *sc, size_t n,
                      czk_pool *pool, czk_err *err) {
    (void)ctx, (void)which;
    return key != NULL ? foreign_key(err) : czk_msm_g1(out, pts, sc, n, pool, err);
}

static int cpu_msm_g2(void *ctx, czk_g2_jacobian *out, const czk_backend_key *key,
                      czk_key_array which, const czk_g2_affine *pts, const czk_fr *sc, size_t n,
                      czk_pool *pool, czk_err *err) {
    (void)ctx, (void)which;
    return key != NULL ? foreign_key(err) : czk_msm_g2(out, pts, sc, n, pool, err);
}

static const czk_backend CPU_BACKEND = {
    .name = "cpu",
    .ctx = NULL,
    .h = cpu_h,
    .msm_g1 = cpu_msm_g1,
    .msm_g2 = cpu_msm_g2,
};

const czk_backend *czk_backend_cpu(void) {
    return &CPU_BACKEND;
}
