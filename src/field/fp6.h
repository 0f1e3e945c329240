/*
 * Fp6 = Fp2[v]/(v^3 - ξ) with ξ = u + 1; element c0 + c1·v + c2·v^2.
 *
 * The middle layer of the BLS12-381 tower (fp12.h sits on top). Every function accepts
 * aliased arguments (r == a == b). Functions are constant-time unless their name ends in _var.
 * Stateless and thread-safe.
 */
#ifndef CZK_FIELD_FP6_H
#define CZK_FIELD_FP6_H

#include "field/fp2.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_fp6 {
    czk_fp2 c0, c1, c2;
} czk_fp6;

void czk_fp6_set_zero(czk_fp6 *r);
void czk_fp6_set_one(czk_fp6 *r);
/* Return 1 or 0. */
int czk_fp6_is_zero(const czk_fp6 *a);
int czk_fp6_is_one(const czk_fp6 *a);
int czk_fp6_equal(const czk_fp6 *a, const czk_fp6 *b);
/* r = flag ? a : r, flag in {0,1}. */
void czk_fp6_cmov(czk_fp6 *r, const czk_fp6 *a, int flag);

void czk_fp6_add(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b);
void czk_fp6_sub(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b);
void czk_fp6_neg(czk_fp6 *r, const czk_fp6 *a);
void czk_fp6_dbl(czk_fp6 *r, const czk_fp6 *a);
/* r = a·b: Karatsuba, 6 Fp2 multiplications. */
void czk_fp6_mul(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b);
/* r = a^2: Chung–Hasan SQR2, 2 Fp2 multiplications and 3 Fp2 squarings. */
void czk_fp6_sqr(czk_fp6 *r, const czk_fp6 *a);
/* r = a·v, the non-residue that defines Fp12: (c0, c1, c2) -> (ξ·c2, c0, c1). */
void czk_fp6_mul_by_nonresidue(czk_fp6 *r, const czk_fp6 *a);
/* r = a·b for b in Fp2. */
void czk_fp6_mul_by_fp2(czk_fp6 *r, const czk_fp6 *a, const czk_fp2 *b);
/* Sparse products for line functions: r = a·(b0 + b1·v) (5 Fp2 multiplications). */
void czk_fp6_mul_by_01(czk_fp6 *r, const czk_fp6 *a, const czk_fp2 *b0, const czk_fp2 *b1);
/* r = a·(b1·v) (3 Fp2 multiplications). */
void czk_fp6_mul_by_1(czk_fp6 *r, const czk_fp6 *a, const czk_fp2 *b1);

/* r = 1/a; r = 0 when a = 0. Constant-time. */
void czk_fp6_inv(czk_fp6 *r, const czk_fp6 *a);

/* r = a^(q^power) for any power (the map has order 6 on Fp6). */
void czk_fp6_frobenius(czk_fp6 *r, const czk_fp6 *a, unsigned power);

void czk_fp6_random(czk_fp6 *r, czk_rng *rng);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FIELD_FP6_H */
