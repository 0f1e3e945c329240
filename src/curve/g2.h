/*
 * G2: E'(Fp2): y^2 = x^3 + 4(u + 1), the prime-order-r subgroup (the M-type sextic twist).
 * Representations and conventions as for G1 (g1.h), over Fp2.
 */
#ifndef CZK_CURVE_G2_H
#define CZK_CURVE_G2_H

#include <stddef.h>
#include <stdint.h>

#include "field/fp2.h"
#include "field/fr.h"
#include "util/rng.h"

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

#define CZK_G2_COMPRESSED_BYTES 96
#define CZK_G2_UNCOMPRESSED_BYTES 192
#define CZK_G2_SNARKJS_BYTES 192

/* The standard generator (the zcash / IETF BLS12-381 G2 generator). */
extern const czk_g2_affine CZK_G2_GENERATOR;

/* ---- affine ---------------------------------------------------------------------------- */

int czk_g2_affine_is_infinity(const czk_g2_affine *p);
/* 1 if p satisfies y^2 = x^3 + 4(u + 1) or is the point at infinity, else 0. */
int czk_g2_affine_is_on_curve(const czk_g2_affine *p);
/*
 * 1 if p is in G2 (infinity included), else 0; 0 also for points not on the curve. Uses the
 * untwist-Frobenius-twist endomorphism psi, which acts on G2 as [x]: p is in G2 iff
 * psi(p) = [x]p (Scott, eprint 2021/1130; correctness proof in eprint 2022/352). About 64
 * doublings. Variable time.
 */
int czk_g2_affine_is_in_group(const czk_g2_affine *p);
/* As czk_g2_affine_is_in_group, by computing [r]p = O; the slow reference for tests. */
int czk_g2_affine_is_in_group_slow(const czk_g2_affine *p);
int czk_g2_affine_equal(const czk_g2_affine *a, const czk_g2_affine *b);
void czk_g2_affine_neg(czk_g2_affine *r, const czk_g2_affine *p);

/* psi(p) = (conj(x) c_x, conj(y) c_y) with c_x = (u+1)^-((q-1)/3), c_y = (u+1)^-((q-1)/2). */
void czk_g2_affine_psi(czk_g2_affine *r, const czk_g2_affine *p);

/* ---- Jacobian -------------------------------------------------------------------------- */

void czk_g2_jacobian_set_infinity(czk_g2_jacobian *r);
int czk_g2_jacobian_is_infinity(const czk_g2_jacobian *p);
int czk_g2_jacobian_equal(const czk_g2_jacobian *a, const czk_g2_jacobian *b);
void czk_g2_jacobian_from_affine(czk_g2_jacobian *r, const czk_g2_affine *p);
void czk_g2_jacobian_to_affine(czk_g2_affine *r, const czk_g2_jacobian *p);
/* Complete, constant-time additions and doubling, as for G1. */
void czk_g2_jacobian_add(czk_g2_jacobian *r, const czk_g2_jacobian *a, const czk_g2_jacobian *b);
void czk_g2_jacobian_add_affine(czk_g2_jacobian *r, const czk_g2_jacobian *a,
                                const czk_g2_affine *b);
void czk_g2_jacobian_dbl(czk_g2_jacobian *r, const czk_g2_jacobian *a);
void czk_g2_jacobian_neg(czk_g2_jacobian *r, const czk_g2_jacobian *a);
/* Variable-time complete additions (add-2007-bl, madd-2007-bl). */
void czk_g2_jacobian_add_var(czk_g2_jacobian *r, const czk_g2_jacobian *a,
                             const czk_g2_jacobian *b);
void czk_g2_jacobian_add_affine_var(czk_g2_jacobian *r, const czk_g2_jacobian *a,
                                    const czk_g2_affine *b);
/* psi on Jacobian coordinates: (conj(X) c_x, conj(Y) c_y, conj(Z)). */
void czk_g2_jacobian_psi(czk_g2_jacobian *r, const czk_g2_jacobian *p);

/*
 * r = [k]p, variable time. GLS (Galbraith-Lin-Scott, EUROCRYPT 2009): k is written in base
 * |x| as four 64-bit digits, and [|x|]p = -psi(p) on G2, followed by an interleaved width-5
 * wNAF. p must be in G2; for other points use czk_g2_jacobian_mul_limbs_var.
 */
void czk_g2_jacobian_mul_var(czk_g2_jacobian *r, const czk_g2_jacobian *p, const czk_fr *k);
/* r = [k]p, constant-time (fixed 4-bit windows, full-table scans). Any point of the curve. */
void czk_g2_jacobian_mul(czk_g2_jacobian *r, const czk_g2_jacobian *p, const czk_fr *k);
/* r = [k]p for an integer of n <= 4 limbs, any point of the curve; CZK_OK or CZK_EINVAL. */
int czk_g2_jacobian_mul_limbs_var(czk_g2_jacobian *r, const czk_g2_jacobian *p, const uint64_t *k,
                                  size_t n);
/*
 * Maps any point of E' into G2: [x^2 - x - 1]p + [x - 1]psi(p) + psi^2(2p) (Budroni and
 * Pintore, eprint 2017/419; the h_eff multiple of RFC 9380 §8.8.2). Variable time.
 */
void czk_g2_jacobian_clear_cofactor_var(czk_g2_jacobian *r, const czk_g2_jacobian *p);

/* Batch conversion with one inversion; as czk_g1s_to_affine. */
int czk_g2s_to_affine(czk_g2_affine *out, const czk_g2_jacobian *in, size_t n);

/* ---- XYZZ ------------------------------------------------------------------------------ */

void czk_g2_xyzz_set_infinity(czk_g2_xyzz *r);
int czk_g2_xyzz_is_infinity(const czk_g2_xyzz *p);
void czk_g2_xyzz_from_affine(czk_g2_xyzz *r, const czk_g2_affine *p);
void czk_g2_xyzz_to_affine(czk_g2_affine *r, const czk_g2_xyzz *p);
void czk_g2_xyzz_add(czk_g2_xyzz *r, const czk_g2_xyzz *a, const czk_g2_xyzz *b);
void czk_g2_xyzz_add_affine(czk_g2_xyzz *r, const czk_g2_xyzz *a, const czk_g2_affine *b);
void czk_g2_xyzz_dbl(czk_g2_xyzz *r, const czk_g2_xyzz *a);
void czk_g2_xyzz_neg(czk_g2_xyzz *r, const czk_g2_xyzz *a);
void czk_g2_xyzz_add_var(czk_g2_xyzz *r, const czk_g2_xyzz *a, const czk_g2_xyzz *b);
void czk_g2_xyzz_add_affine_var(czk_g2_xyzz *r, const czk_g2_xyzz *a, const czk_g2_affine *b);

/* ---- random points (tests, benchmarks) ------------------------------------------------- */

void czk_g2_random(czk_g2_affine *r, czk_rng *rng);
/* A random point of E'(Fp2), almost surely outside G2, for tests. */
void czk_g2_random_on_curve(czk_g2_affine *r, czk_rng *rng);

/* ---- encodings ------------------------------------------------------------------------- */

/*
 * zcash encodings: Fp2 is written c1 ‖ c0, each big-endian; uncompressed is
 * x.c1 ‖ x.c0 ‖ y.c1 ‖ y.c0; flags as for G1. The sort bit compares y.c1 first, and y.c0 when
 * y.c1 = 0. Decoders and their error codes as for G1 (each Fp component must be < q).
 */
void czk_g2_affine_serialize(uint8_t out[CZK_G2_UNCOMPRESSED_BYTES], const czk_g2_affine *p);
void czk_g2_affine_compress(uint8_t out[CZK_G2_COMPRESSED_BYTES], const czk_g2_affine *p);
int czk_g2_affine_deserialize(czk_g2_affine *p, const uint8_t in[CZK_G2_UNCOMPRESSED_BYTES]);
int czk_g2_affine_deserialize_unchecked(czk_g2_affine *p,
                                        const uint8_t in[CZK_G2_UNCOMPRESSED_BYTES]);
int czk_g2_affine_uncompress(czk_g2_affine *p, const uint8_t in[CZK_G2_COMPRESSED_BYTES]);
int czk_g2_affine_uncompress_unchecked(czk_g2_affine *p, const uint8_t in[CZK_G2_COMPRESSED_BYTES]);

/* snarkjs LEM layout: x.c0 ‖ x.c1 ‖ y.c0 ‖ y.c1, each 48-byte LE Montgomery; zeros = infinity. */
void czk_g2_affine_to_snarkjs(uint8_t out[CZK_G2_SNARKJS_BYTES], const czk_g2_affine *p);
int czk_g2_affine_from_snarkjs(czk_g2_affine *p, const uint8_t in[CZK_G2_SNARKJS_BYTES]);
int czk_g2_affine_from_snarkjs_unchecked(czk_g2_affine *p, const uint8_t in[CZK_G2_SNARKJS_BYTES]);

#ifdef __cplusplus
}
#endif

#endif /* CZK_CURVE_G2_H */
