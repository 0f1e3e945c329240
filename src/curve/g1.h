/*
 * G1: E(Fp): y^2 = x^3 + 4, the prime-order-r subgroup.
 *
 * Affine points use (0, 0) for the point at infinity; (0, 0) is not on the curve, so the
 * representation is unambiguous (as in blst). Jacobian (X, Y, Z) is x = X/Z^2, y = Y/Z^3 with
 * infinity at Z = 0. XYZZ (X, Y, ZZ, ZZZ) is x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2 and
 * infinity at ZZ = 0 (the coordinates GPU MSMs use).
 */
#ifndef CZK_CURVE_G1_H
#define CZK_CURVE_G1_H

#include "field/fp.h"
#include "field/fr.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_g1_affine {
    czk_fp x, y;
} czk_g1_affine;

typedef struct czk_g1_jacobian {
    czk_fp x, y, z;
} czk_g1_jacobian;

typedef struct czk_g1_xyzz {
    czk_fp x, y, zz, zzz;
} czk_g1_xyzz;

#ifdef __cplusplus
}
#endif

#endif /* CZK_CURVE_G1_H */
