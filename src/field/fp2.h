/*
 * Fp2 = Fp[u]/(u^2 + 1), element c0 + c1·u. Aliasing allowed; constant-time unless _var.
 */
#ifndef CZK_FIELD_FP2_H
#define CZK_FIELD_FP2_H

#include "field/fp.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_fp2 {
    czk_fp c0, c1;
} czk_fp2;

void czk_fp2_set_zero(czk_fp2 *r);
void czk_fp2_set_one(czk_fp2 *r);
int czk_fp2_is_zero(const czk_fp2 *a);
int czk_fp2_is_one(const czk_fp2 *a);
int czk_fp2_equal(const czk_fp2 *a, const czk_fp2 *b);
void czk_fp2_cmov(czk_fp2 *r, const czk_fp2 *a, int flag);

void czk_fp2_add(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b);
void czk_fp2_sub(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b);
void czk_fp2_neg(czk_fp2 *r, const czk_fp2 *a);
void czk_fp2_dbl(czk_fp2 *r, const czk_fp2 *a);
void czk_fp2_conj(czk_fp2 *r, const czk_fp2 *a);
void czk_fp2_mul(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b);
void czk_fp2_sqr(czk_fp2 *r, const czk_fp2 *a);
/* r = a·b for b in Fp. */
void czk_fp2_mul_fp(czk_fp2 *r, const czk_fp2 *a, const czk_fp *b);
/* r = a·(u + 1), the non-residue that defines Fp6. */
void czk_fp2_mul_by_nonresidue(czk_fp2 *r, const czk_fp2 *a);

void czk_fp2_inv(czk_fp2 *r, const czk_fp2 *a);
void czk_fp2_inv_var(czk_fp2 *r, const czk_fp2 *a);
void czk_fp2_pow(czk_fp2 *r, const czk_fp2 *a, const uint64_t *e, size_t n);
/* Frobenius a^(q^power). For Fp2 it is conjugation when power is odd. */
void czk_fp2_frobenius(czk_fp2 *r, const czk_fp2 *a, unsigned power);

/* r = sqrt(a) and returns 1 when a is a square; else returns 0. */
int czk_fp2_sqrt(czk_fp2 *r, const czk_fp2 *a);
int czk_fp2_is_square(const czk_fp2 *a);

/*
 * zcash sign rule for G2 compressed points: 1 when c1 > (q-1)/2, or when c1 = 0 and
 * c0 > (q-1)/2; else 0.
 */
int czk_fp2_is_lex_largest(const czk_fp2 *a);

void czk_fp2_random(czk_fp2 *r, czk_rng *rng);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FIELD_FP2_H */
