/*
 * Fp12 = Fp6[w]/(w^2 - v); element c0 + c1·w. The target group GT of the BLS12-381 pairing is
 * the order-r subgroup of Fp12*.
 *
 * As a vector over Fp2 with w^6 = ξ = u + 1, c0 + c1·w = g0 + g1·w + ... + g5·w^5 where
 * (g0, g2, g4) = (c0.c0, c0.c1, c0.c2) and (g1, g3, g5) = (c1.c0, c1.c1, c1.c2).
 *
 * Every function accepts aliased arguments (r == a == b). Functions are constant-time unless
 * their name ends in _var. Stateless and thread-safe.
 */
#ifndef CZK_FIELD_FP12_H
#define CZK_FIELD_FP12_H

#include <stddef.h>
#include <stdint.h>

#include "field/fp6.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_fp12 {
    czk_fp6 c0, c1;
} czk_fp12;

void czk_fp12_set_zero(czk_fp12 *r);
void czk_fp12_set_one(czk_fp12 *r);
/* Return 1 or 0. */
int czk_fp12_is_zero(const czk_fp12 *a);
int czk_fp12_is_one(const czk_fp12 *a);
int czk_fp12_equal(const czk_fp12 *a, const czk_fp12 *b);
/* r = flag ? a : r, flag in {0,1}. */
void czk_fp12_cmov(czk_fp12 *r, const czk_fp12 *a, int flag);

void czk_fp12_add(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b);
void czk_fp12_sub(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b);
void czk_fp12_neg(czk_fp12 *r, const czk_fp12 *a);
/* r = a·b: Karatsuba over Fp6, 3 Fp6 multiplications. */
void czk_fp12_mul(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b);
/* r = a^2: the complex method, 2 Fp6 multiplications. */
void czk_fp12_sqr(czk_fp12 *r, const czk_fp12 *a);
/* r = conj(a) = c0 - c1·w = a^(q^6); the inverse of a in the cyclotomic subgroup. */
void czk_fp12_conj(czk_fp12 *r, const czk_fp12 *a);
/* r = 1/a; r = 0 when a = 0. Constant-time. */
void czk_fp12_inv(czk_fp12 *r, const czk_fp12 *a);

/* r = a^(q^power) for any power (the map has order 12). */
void czk_fp12_frobenius(czk_fp12 *r, const czk_fp12 *a, unsigned power);

/*
 * Sparse product with a line value: r = a·(b0 + b1·v + b4·v·w), i.e. the element whose only
 * non-zero Fp2 coefficients are g0 = b0, g2 = b1 and g3 = b4 (slots 0, 1, 4 of the tower:
 * c0.c0, c0.c1, c1.c1). 13 Fp2 multiplications instead of 18.
 */
void czk_fp12_mul_by_014(czk_fp12 *r, const czk_fp12 *a, const czk_fp2 *b0, const czk_fp2 *b1,
                         const czk_fp2 *b4);

/*
 * r = a^2 for a in the cyclotomic subgroup G_Φ12 = {a : a^(q^4 - q^2 + 1) = 1} (any output of
 * the easy part of the final exponentiation). Granger–Scott 2010, 9 Fp2 squarings. The result
 * is meaningless for other a.
 */
void czk_fp12_cyclotomic_sqr(czk_fp12 *r, const czk_fp12 *a);

/* r = a^e where e is `n` little-endian limbs (n = 0 gives 1). Variable time in e. */
void czk_fp12_pow_var(czk_fp12 *r, const czk_fp12 *a, const uint64_t *e, size_t n);

void czk_fp12_random(czk_fp12 *r, czk_rng *rng);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FIELD_FP12_H */
