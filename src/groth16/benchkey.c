/*
 * DESIGN: benchmark-only keys (benchkey.h). NOT usable for proofs that must verify.
 *
 * Each point vector is an arithmetic progression P_i = P_0 + i·Q. The vector is cut into K
 * chains of L consecutive points; chain k starts at P_0 + (k·L)·Q. A worker owns a group of
 * up to CHAINS chains and advances all of them one step at a time: the step's additions
 * P + Q (affine, distinct x) share one field inversion through Montgomery's trick, so a point
 * costs about 5M + 1S instead of a Jacobian addition and its share of a batch conversion.
 * The start points of a group come from one scalar multiplication and Jacobian additions of
 * [L]Q, converted together. An addition whose x coordinates coincide (P = ±Q: only when the
 * discrete logarithm of P_0 to base Q is below the vector length, with negligible
 * probability) falls back to the complete Jacobian addition.
 */
#include "groth16/benchkey.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp2.h"
#include "groth16/setup.h"
#include "util/alloc.h"
#include "util/rng.h"

#include <stdatomic.h>
#include <string.h>

#define CHAINS 256 /* chains a worker advances together (one inversion per step) */

typedef struct chain_plan {
    size_t n, len, k; /* points, chain length L, chains K */
} chain_plan;

static chain_plan plan_for(size_t n, czk_pool *pool) {
    chain_plan p = {.n = n};
    size_t ways = czk_pool_ways(pool);
    /* Long chains amortize the start points; short ones give every worker several groups. */
    size_t len = n / ((size_t)CHAINS * ways * 4);
    len = len < 8 ? 8 : len > 1024 ? 1024 : len;
    p.len = len;
    p.k = (n + len - 1) / len;
    return p;
}

/*
 * One generator of the body for a group (G1 over Fp, G2 over Fp2). F: the field prefix;
 * AFF/JAC: the point types; GP: the group prefix.
 */
#define DEFINE_CHAIN_FILL(GP, F, FT, AFF, JAC)                                                     \
    typedef struct GP##_fill_job {                                                                 \
        AFF *out;                                                                                  \
        AFF p0, q;                                                                                 \
        JAC ql; /* [L]Q */                                                                         \
        chain_plan plan;                                                                           \
        _Atomic int failed;                                                                        \
    } GP##_fill_job;                                                                               \
                                                                                                   \
    static void GP##_fill_group(GP##_fill_job *j, size_t grp, JAC *jac, FT *den, FT *pre) {        \
        const chain_plan *pl = &j->plan;                                                           \
        size_t k0 = grp * CHAINS, k1 = k0 + CHAINS < pl->k ? k0 + CHAINS : pl->k;                  \
        size_t m = k1 - k0;                                                                        \
        /* Start points P_0 + (k·L)·Q. */                                                        \
        JAC base;                                                                                  \
        czk_fr s;                                                                                  \
        czk_fr_set_u64(&s, (uint64_t)(k0 * pl->len));                                              \
        czk_##GP##_jacobian_from_affine(&base, &j->q);                                             \
        czk_##GP##_jacobian_mul_var(&jac[0], &base, &s);                                           \
        czk_##GP##_jacobian_add_affine_var(&jac[0], &jac[0], &j->p0);                              \
        for (size_t i = 1; i < m; i++)                                                             \
            czk_##GP##_jacobian_add_var(&jac[i], &jac[i - 1], &j->ql);                             \
        AFF *starts = (AFF *)den; /* reuse: CHAINS affine points fit in den and pre */             \
        if (czk_##GP##s_to_affine(starts, jac, m) != CZK_OK) {                                     \
            atomic_store_explicit(&j->failed, 1, memory_order_relaxed);                            \
            return;                                                                                \
        }                                                                                          \
        for (size_t i = 0; i < m; i++)                                                             \
            j->out[(k0 + i) * pl->len] = starts[i];                                                \
        /* Steps: every chain advances by Q with one shared inversion. */                          \
        for (size_t t = 1; t < pl->len; t++) {                                                     \
            size_t mm = 0;                                                                         \
            FT acc;                                                                                \
            F##_set_one(&acc);                                                                     \
            for (size_t i = 0; i < m; i++) {                                                       \
                size_t idx = (k0 + i) * pl->len + t;                                               \
                if (idx >= pl->n)                                                                  \
                    break; /* only the last chain is short */                                      \
                F##_sub(&den[i], &j->q.x, &j->out[idx - 1].x);                                     \
                if (F##_is_zero(&den[i]))                                                          \
                    F##_set_one(&den[i]); /* P = ±Q: handled below */                             \
                pre[i] = acc;                                                                      \
                F##_mul(&acc, &acc, &den[i]);                                                      \
                mm++;                                                                              \
            }                                                                                      \
            if (mm == 0)                                                                           \
                break;                                                                             \
            F##_inv_var(&acc, &acc);                                                               \
            for (size_t i = mm; i-- > 0;) {                                                        \
                size_t idx = (k0 + i) * pl->len + t;                                               \
                const AFF *p = &j->out[idx - 1];                                                   \
                AFF *r = &j->out[idx];                                                             \
                FT inv, lam, tmp;                                                                  \
                F##_mul(&inv, &acc, &pre[i]); /* 1/den[i] */                                       \
                F##_mul(&acc, &acc, &den[i]);                                                      \
                if (F##_equal(&p->x, &j->q.x)) {                                                   \
                    JAC jp;                                                                        \
                    czk_##GP##_jacobian_from_affine(&jp, p);                                       \
                    czk_##GP##_jacobian_add_affine_var(&jp, &jp, &j->q);                           \
                    czk_##GP##_jacobian_to_affine(r, &jp);                                         \
                    continue;                                                                      \
                }                                                                                  \
                F##_sub(&lam, &j->q.y, &p->y);                                                     \
                F##_mul(&lam, &lam, &inv);                                                         \
                F##_sqr(&tmp, &lam);                                                               \
                F##_sub(&tmp, &tmp, &p->x);                                                        \
                F##_sub(&tmp, &tmp, &j->q.x); /* x3 */                                             \
                FT y3;                                                                             \
                F##_sub(&y3, &p->x, &tmp);                                                         \
                F##_mul(&y3, &y3, &lam);                                                           \
                F##_sub(&r->y, &y3, &p->y);                                                        \
                r->x = tmp;                                                                        \
            }                                                                                      \
        }                                                                                          \
    }                                                                                              \
                                                                                                   \
    static void GP##_fill_body(void *arg, size_t begin, size_t end, unsigned worker) {             \
        (void)worker;                                                                              \
        GP##_fill_job *j = arg;                                                                    \
        JAC *jac = czk_malloc(CHAINS * sizeof(JAC));                                               \
        /* den and pre also hold the CHAINS affine start points (2·sizeof(FT) each). */           \
        FT *den = czk_malloc(2 * CHAINS * sizeof(FT));                                             \
        FT *pre = den + CHAINS;                                                                    \
        if (jac == NULL || den == NULL) {                                                          \
            atomic_store_explicit(&j->failed, 1, memory_order_relaxed);                            \
        } else {                                                                                   \
            for (size_t g = begin; g < end; g++)                                                   \
                GP##_fill_group(j, g, jac, den, pre);                                              \
        }                                                                                          \
        czk_free(jac);                                                                             \
        czk_free(den);                                                                             \
    }                                                                                              \
                                                                                                   \
    /* out[i] = p0 + i·q for i < n. */                                                            \
    static int GP##_fill(AFF *out, size_t n, const AFF *p0, const AFF *q, czk_pool *pool) {        \
        if (n == 0)                                                                                \
            return CZK_OK;                                                                         \
        GP##_fill_job j = {.out = out, .p0 = *p0, .q = *q, .plan = plan_for(n, pool)};             \
        atomic_init(&j.failed, 0);                                                                 \
        JAC qj;                                                                                    \
        czk_fr s;                                                                                  \
        czk_fr_set_u64(&s, (uint64_t)j.plan.len);                                                  \
        czk_##GP##_jacobian_from_affine(&qj, q);                                                   \
        czk_##GP##_jacobian_mul_var(&j.ql, &qj, &s);                                               \
        size_t groups = (j.plan.k + CHAINS - 1) / CHAINS;                                          \
        czk_pool_run(pool, groups, 1, GP##_fill_body, &j);                                         \
        return atomic_load_explicit(&j.failed, memory_order_relaxed) ? CZK_ENOMEM : CZK_OK;        \
    }

DEFINE_CHAIN_FILL(g1, czk_fp, czk_fp, czk_g1_affine, czk_g1_jacobian)
DEFINE_CHAIN_FILL(g2, czk_fp2, czk_fp2, czk_g2_affine, czk_g2_jacobian)

/* A random point of G1 (or G2) that is not infinity. */
static void rand_g1(czk_g1_affine *p, czk_rng *rng) {
    do
        czk_g1_random(p, rng);
    while (czk_g1_affine_is_infinity(p));
}
static void rand_g2(czk_g2_affine *p, czk_rng *rng) {
    do
        czk_g2_random(p, rng);
    while (czk_g2_affine_is_infinity(p));
}

static int fill_g1(czk_g1_affine *out, size_t n, czk_rng *rng, czk_pool *pool) {
    czk_g1_affine p0, q;
    rand_g1(&p0, rng);
    rand_g1(&q, rng);
    return g1_fill(out, n, &p0, &q, pool);
}
static int fill_g2(czk_g2_affine *out, size_t n, czk_rng *rng, czk_pool *pool) {
    czk_g2_affine p0, q;
    rand_g2(&p0, rng);
    rand_g2(&q, rng);
    return g2_fill(out, n, &p0, &q, pool);
}

int czk_groth16_benchkey(czk_groth16_pk *pk, const czk_r1cs *cs, czk_groth16_h_basis basis,
                         uint64_t seed, czk_pool *pool, czk_err *err) {
    int rc = CZK_OK;
    uint64_t *a_bits = NULL, *b_bits = NULL;
    memset(pk, 0, sizeof(*pk));
    if (basis != CZK_H_MONOMIAL && basis != CZK_H_ODD_COSET)
        return czk_err_set(err, CZK_EINVAL, "benchkey: unknown H basis %d", (int)basis);
    if (cs->n_vars < cs->n_public + 1)
        return czk_err_set(err, CZK_EINVAL,
                           "benchkey: %zu variables cannot hold ONE and %zu inputs", cs->n_vars,
                           cs->n_public);
    unsigned lg = czk_groth16_domain_lg(cs);
    if (lg > 32)
        return czk_err_set(err, CZK_EINVAL, "benchkey: domain 2^%u is too large", lg);
    const size_t n = (size_t)1 << lg, n_vars = cs->n_vars, n_pub1 = cs->n_public + 1;
    const size_t words = (n_vars + 63) / 64;

    a_bits = czk_calloc(words, sizeof(uint64_t));
    b_bits = czk_calloc(words, sizeof(uint64_t));
    if (a_bits == NULL || b_bits == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "benchkey: density bitmaps");
        goto out;
    }
    if ((rc = czk_r1cs_density(cs, a_bits, b_bits)) != CZK_OK) {
        rc = czk_err_set(err, rc, "benchkey: density of the circuit");
        goto out;
    }
    for (size_t i = 0; i < n_pub1; i++) /* the input rows put every public variable in A */
        a_bits[i / 64] |= (uint64_t)1 << (i % 64);

    pk->h_basis = basis;
    pk->domain_size = n;
    pk->n_vars = n_vars;
    pk->n_public = cs->n_public;
    pk->n_h = basis == CZK_H_MONOMIAL ? n - 1 : n;
    pk->n_l = n_vars - n_pub1;
    pk->vk.n_ic = n_pub1;
    if (basis == CZK_H_MONOMIAL) {
        size_t na = 0, nb = 0;
        for (size_t q = 0; q < words; q++) {
            na += (size_t)__builtin_popcountll(a_bits[q]);
            nb += (size_t)__builtin_popcountll(b_bits[q]);
        }
        pk->density = CZK_DENSITY_FILTERED;
        pk->n_a = na;
        pk->n_b_g1 = pk->n_b_g2 = nb;
    } else {
        pk->density = CZK_DENSITY_DENSE;
        pk->n_a = pk->n_b_g1 = pk->n_b_g2 = n_vars;
    }
    pk->vk.ic = czk_malloc(n_pub1 * sizeof(czk_g1_affine));
    pk->h = pk->n_h ? czk_malloc(pk->n_h * sizeof(czk_g1_affine)) : NULL;
    pk->l = pk->n_l ? czk_malloc(pk->n_l * sizeof(czk_g1_affine)) : NULL;
    pk->a = pk->n_a ? czk_malloc(pk->n_a * sizeof(czk_g1_affine)) : NULL;
    pk->b_g1 = pk->n_b_g1 ? czk_malloc(pk->n_b_g1 * sizeof(czk_g1_affine)) : NULL;
    pk->b_g2 = pk->n_b_g2 ? czk_malloc(pk->n_b_g2 * sizeof(czk_g2_affine)) : NULL;
    if (pk->vk.ic == NULL || (pk->n_h && pk->h == NULL) || (pk->n_l && pk->l == NULL) ||
        (pk->n_a && pk->a == NULL) || (pk->n_b_g1 && (pk->b_g1 == NULL || pk->b_g2 == NULL))) {
        rc = czk_err_set(err, CZK_ENOMEM, "benchkey: key of %zu variables, domain %zu", n_vars, n);
        goto out;
    }

    czk_rng rng;
    czk_rng_seed(&rng, seed);
    rand_g1(&pk->vk.alpha_g1, &rng);
    rand_g1(&pk->vk.beta_g1, &rng);
    rand_g1(&pk->vk.delta_g1, &rng);
    rand_g2(&pk->vk.beta_g2, &rng);
    rand_g2(&pk->vk.gamma_g2, &rng);
    rand_g2(&pk->vk.delta_g2, &rng);
    if ((rc = fill_g1(pk->vk.ic, n_pub1, &rng, pool)) != CZK_OK ||
        (rc = fill_g1(pk->h, pk->n_h, &rng, pool)) != CZK_OK ||
        (rc = fill_g1(pk->l, pk->n_l, &rng, pool)) != CZK_OK ||
        (rc = fill_g1(pk->a, pk->n_a, &rng, pool)) != CZK_OK ||
        (rc = fill_g1(pk->b_g1, pk->n_b_g1, &rng, pool)) != CZK_OK ||
        (rc = fill_g2(pk->b_g2, pk->n_b_g2, &rng, pool)) != CZK_OK) {
        rc = czk_err_set(err, rc, "benchkey: points");
        goto out;
    }
    if (pk->density == CZK_DENSITY_DENSE) {
        /* Unused variables: the point at infinity, as in a real dense key. */
        for (size_t i = 0; i < n_vars; i++) {
            if (!((a_bits[i / 64] >> (i % 64)) & 1))
                memset(&pk->a[i], 0, sizeof(pk->a[i]));
            if (!((b_bits[i / 64] >> (i % 64)) & 1)) {
                memset(&pk->b_g1[i], 0, sizeof(pk->b_g1[i]));
                memset(&pk->b_g2[i], 0, sizeof(pk->b_g2[i]));
            }
        }
    }

out:
    czk_free(a_bits);
    czk_free(b_bits);
    if (rc != CZK_OK)
        czk_groth16_pk_clear(pk);
    return rc;
}
