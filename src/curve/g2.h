/*
 * G2: E'(Fp2): y^2 = x^3 + 4(u + 1), the prime-order-r subgroup (the M-type sextic twist).
 * Representations as for G1 (g1.h), over Fp2.
 */
#ifndef CZK_CURVE_G2_H
#define CZK_CURVE_G2_H

#include "field/fp2.h"
#include "field/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_g2_affine {
    czk_fp2 x, y;
} czk_g2_affine;

typedef struct czk_g2_jacobian {
    czk_fp2 x, y, z;
} czk_g2_jacobian;

typedef struct czk_g2_xyzz {
    czk_fp2 x, y, zz, zzz;
} czk_g2_xyzz;

#ifdef __cplusplus
}
#endif

#endif /* CZK_CURVE_G2_H */
