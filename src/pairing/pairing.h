/*
 * The optimal ate pairing on BLS12-381, e: G1 × G2 -> GT ⊂ Fp12*.
 *
 * e(P, Q) = f_{x,Q}(P)^(3·(q^12 - 1)/r) with x = -0xd201000000010000. The extra factor 3 in
 * the exponent comes from the final-exponentiation chain (see pairing.c); @noble/curves
 * computes the same power, and the tests check that results agree with it bit for bit.
 * Since gcd(3, r) = 1 it is still a non-degenerate bilinear pairing.
 *
 * Inputs are trusted to lie in G1 and G2 (callers run the subgroup checks of curve/); other
 * points give meaningless values but never fault. Points at infinity are (0, 0) affine, as in
 * curve/g1.h and curve/g2.h, and contribute 1. All functions are stateless and thread-safe,
 * and constant-time in the coordinates of their inputs (they branch only on which inputs are
 * the point at infinity).
 */
#ifndef CZK_PAIRING_PAIRING_H
#define CZK_PAIRING_PAIRING_H

#include <stddef.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp12.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Line functions in one Miller loop: 63 doubling steps and 5 addition steps for |x|. */
#define CZK_PAIRING_LINES 68

/*
 * A line of the Miller loop, precomputed from Q alone. Its value at P = (xP, yP) is the
 * sparse Fp12 element c0 + (c1·xP)·v + (c2·yP)·v·w (tower slots 0, 1 and 4), up to a factor
 * in Fp2 that the final exponentiation removes.
 */
typedef struct czk_pairing_line {
    czk_fp2 c0, c1, c2;
} czk_pairing_line;

/* Q prepared for any number of Miller loops (about 20 KiB). */
typedef struct czk_pairing_g2_prepared {
    czk_pairing_line lines[CZK_PAIRING_LINES];
    int infinity; /* 1 when Q is the point at infinity; lines are then unused */
} czk_pairing_g2_prepared;

/*
 * Precomputes the line coefficients of the Miller loop for Q.
 * In: q, a point of G2 (affine; (0, 0) is the point at infinity). Out: out.
 */
void czk_pairing_g2_prepare(czk_pairing_g2_prepared *out, const czk_g2_affine *q);

/*
 * out = prod_i f_{x,qs[i]}(ps[i]), the Miller loop of n pairs sharing one chain of Fp12
 * squarings. Pairs with a point at infinity in either slot contribute 1; n = 0 gives 1.
 * The value is only meaningful after czk_pairing_final_exp.
 */
void czk_pairing_miller_loop(czk_fp12 *out, const czk_g1_affine *ps,
                             const czk_pairing_g2_prepared *qs, size_t n);

/* out = f^(3·(q^12 - 1)/r). f must be non-zero (any Miller loop output is). */
void czk_pairing_final_exp(czk_fp12 *out, const czk_fp12 *f);

/* out = e(p, q). */
void czk_pairing(czk_fp12 *out, const czk_g1_affine *p, const czk_g2_affine *q);

/*
 * Returns 1 when prod_i e(ps[i], qs[i]) = 1, else 0: one Miller loop over all pairs and a
 * single final exponentiation (how Groth16 proofs are verified). n = 0 returns 1.
 */
int czk_pairing_check(const czk_g1_affine *ps, const czk_pairing_g2_prepared *qs, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CZK_PAIRING_PAIRING_H */
