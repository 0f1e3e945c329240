/*
 * G1: E(Fp): y^2 = x^3 + 4, the prime-order-r subgroup.
 *
 * Affine points use (0, 0) for the point at infinity; (0, 0) is not on the curve, so the
 * representation is unambiguous (as in blst). Jacobian (X, Y, Z) is x = X/Z^2, y = Y/Z^3 with
 * infinity at Z = 0. XYZZ (X, Y, ZZ, ZZZ) is x = X/ZZ, y = Y/ZZZ with ZZ^3 = ZZZ^2 and
 * infinity at ZZ = 0 (the coordinates GPU MSMs use).
 *
 * Conventions for every function below: outputs may alias inputs (r == a == b) unless a doc
 * says otherwise; functions are constant-time in their inputs unless their name ends in _var;
 * nothing allocates except czk_g1s_to_affine; all functions are thread-safe (no globals).
 * Points handed to the arithmetic are assumed to be on the curve: only the decoders and the
 * is_on_curve / is_in_group predicates look at untrusted coordinates.
 */
#ifndef CZK_CURVE_G1_H
#define CZK_CURVE_G1_H

#include <stddef.h>
#include <stdint.h>

#include "field/fp.h"
#include "field/fr.h"
#include "util/rng.h"

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

#define CZK_G1_COMPRESSED_BYTES 48
#define CZK_G1_UNCOMPRESSED_BYTES 96
#define CZK_G1_SNARKJS_BYTES 96

/* The standard generator (the zcash / IETF BLS12-381 G1 generator). */
extern const czk_g1_affine CZK_G1_GENERATOR;

/* ---- affine ---------------------------------------------------------------------------- */

/* 1 if p is the point at infinity (0, 0), else 0. */
int czk_g1_affine_is_infinity(const czk_g1_affine *p);

/* 1 if p satisfies y^2 = x^3 + 4 or is the point at infinity, else 0. */
int czk_g1_affine_is_on_curve(const czk_g1_affine *p);

/*
 * 1 if p is in G1 (infinity included), else 0; 0 also for points not on the curve. Uses the
 * endomorphism sigma(x, y) = (beta x, y), which acts on G1 as [-x^2]: p is in G1 iff
 * sigma(p) = -[x^2]p (Scott, eprint 2021/1130, after Bowe, eprint 2019/814; correctness
 * proof in eprint 2022/352). About 128 doublings. Variable time (p is public).
 */
int czk_g1_affine_is_in_group(const czk_g1_affine *p);

/* As czk_g1_affine_is_in_group, by computing [r]p = O; the slow reference for tests. */
int czk_g1_affine_is_in_group_slow(const czk_g1_affine *p);

/* 1 if a == b (coordinates are canonical, so this compares them), else 0. */
int czk_g1_affine_equal(const czk_g1_affine *a, const czk_g1_affine *b);

/* r = -p; infinity stays infinity. */
void czk_g1_affine_neg(czk_g1_affine *r, const czk_g1_affine *p);

/* ---- Jacobian -------------------------------------------------------------------------- */

/* r = O, represented as (1, 1, 0). */
void czk_g1_jacobian_set_infinity(czk_g1_jacobian *r);
/* 1 if Z = 0, else 0. */
int czk_g1_jacobian_is_infinity(const czk_g1_jacobian *p);
/* 1 if a and b are the same point (projective equality), else 0. */
int czk_g1_jacobian_equal(const czk_g1_jacobian *a, const czk_g1_jacobian *b);
/* (x, y, 1), or Z = 0 for (0, 0). */
void czk_g1_jacobian_from_affine(czk_g1_jacobian *r, const czk_g1_affine *p);
/* One constant-time inversion; infinity maps to (0, 0). */
void czk_g1_jacobian_to_affine(czk_g1_affine *r, const czk_g1_jacobian *p);

/*
 * r = a + b, complete: correct for a == b, a == -b and either input at infinity, without
 * branches on the coordinates (a unified add/double in the style of blst's dadd, 12M+5S).
 */
void czk_g1_jacobian_add(czk_g1_jacobian *r, const czk_g1_jacobian *a, const czk_g1_jacobian *b);
/* r = a + b with b affine (mixed addition), complete and constant-time as above (8M+4S). */
void czk_g1_jacobian_add_affine(czk_g1_jacobian *r, const czk_g1_jacobian *a,
                                const czk_g1_affine *b);
/* r = 2a (EFD dbl-2009-l, 2M+5S); infinity doubles to infinity. */
void czk_g1_jacobian_dbl(czk_g1_jacobian *r, const czk_g1_jacobian *a);
/* r = -a = (X, -Y, Z). */
void czk_g1_jacobian_neg(czk_g1_jacobian *r, const czk_g1_jacobian *a);

/*
 * Variable-time additions for public points: the special cases are branches, and the generic
 * case is EFD add-2007-bl (11M+5S) and madd-2007-bl (7M+4S). Complete, like the ones above.
 */
void czk_g1_jacobian_add_var(czk_g1_jacobian *r, const czk_g1_jacobian *a,
                             const czk_g1_jacobian *b);
void czk_g1_jacobian_add_affine_var(czk_g1_jacobian *r, const czk_g1_jacobian *a,
                                    const czk_g1_affine *b);

/*
 * r = [k]p, variable time (p and k public). GLV (Gallant-Lambert-Vanstone, CRYPTO 2001): k is
 * split as k0 + k1*x^2 with both halves below 2^128, and [x^2]p = -sigma(p), followed by an
 * interleaved width-5 wNAF. p must be in G1 (sigma acts as [-x^2] only there); for other
 * points of the curve use czk_g1_jacobian_mul_limbs_var.
 */
void czk_g1_jacobian_mul_var(czk_g1_jacobian *r, const czk_g1_jacobian *p, const czk_fr *k);

/*
 * r = [k]p, constant-time in k and p: fixed 4-bit windows with a table scanned in full for
 * every lookup and the complete addition. Valid for any point of the curve.
 */
void czk_g1_jacobian_mul(czk_g1_jacobian *r, const czk_g1_jacobian *p, const czk_fr *k);

/*
 * r = [k]p for an integer k of `n` little-endian 64-bit limbs (n <= 4), not reduced mod r:
 * works for every point of the curve (for cofactor and subgroup arithmetic). Plain wNAF,
 * variable time. Returns CZK_OK, or CZK_EINVAL when n > 4 (r is then left untouched).
 */
int czk_g1_jacobian_mul_limbs_var(czk_g1_jacobian *r, const czk_g1_jacobian *p, const uint64_t *k,
                                  size_t n);

/* r = [1 - x]p = [0xd201000000010001]p, which maps any point of the curve into G1
 * (the effective cofactor of RFC 9380 §8.8.1). Variable time. */
void czk_g1_jacobian_clear_cofactor_var(czk_g1_jacobian *r, const czk_g1_jacobian *p);

/*
 * Batch conversion with one inversion (Montgomery's trick): out[i] = in[i] in affine form,
 * (0, 0) for points at infinity. `out` and `in` must not overlap. n = 0 is allowed.
 * Returns CZK_OK or CZK_ENOMEM (scratch of n field elements comes from czk_malloc).
 * Constant-time apart from n.
 */
int czk_g1s_to_affine(czk_g1_affine *out, const czk_g1_jacobian *in, size_t n);

/* ---- XYZZ (EFD "xyzz" coordinates for a = 0) --------------------------------------------- */

/* r = O, represented as (1, 1, 0, 0). */
void czk_g1_xyzz_set_infinity(czk_g1_xyzz *r);
/* 1 if ZZ = 0, else 0. */
int czk_g1_xyzz_is_infinity(const czk_g1_xyzz *p);
/* (x, y, 1, 1), or ZZ = ZZZ = 0 for (0, 0). */
void czk_g1_xyzz_from_affine(czk_g1_xyzz *r, const czk_g1_affine *p);
/* One constant-time inversion of ZZ*ZZZ; infinity maps to (0, 0). */
void czk_g1_xyzz_to_affine(czk_g1_affine *r, const czk_g1_xyzz *p);
/* r = a + b, complete and constant-time: EFD add-2008-s with dbl-2008-s-1 folded in
 * (12M+3S). */
void czk_g1_xyzz_add(czk_g1_xyzz *r, const czk_g1_xyzz *a, const czk_g1_xyzz *b);
/* r = a + b with b affine, complete and constant-time: madd-2008-s with dbl-2008-s-1
 * folded in (8M+3S). */
void czk_g1_xyzz_add_affine(czk_g1_xyzz *r, const czk_g1_xyzz *a, const czk_g1_affine *b);
/* r = 2a (EFD dbl-2008-s-1). */
void czk_g1_xyzz_dbl(czk_g1_xyzz *r, const czk_g1_xyzz *a);
/* r = -a = (X, -Y, ZZ, ZZZ). */
void czk_g1_xyzz_neg(czk_g1_xyzz *r, const czk_g1_xyzz *a);
/* Variable-time complete additions (add-2008-s, 12M+2S; madd-2008-s, 8M+2S). */
void czk_g1_xyzz_add_var(czk_g1_xyzz *r, const czk_g1_xyzz *a, const czk_g1_xyzz *b);
void czk_g1_xyzz_add_affine_var(czk_g1_xyzz *r, const czk_g1_xyzz *a, const czk_g1_affine *b);

/* ---- random points (tests, benchmarks) ------------------------------------------------- */

/* A uniformly random element of G1 ([k]G for random k). Not for secrets: rng is not a CSPRNG. */
void czk_g1_random(czk_g1_affine *r, czk_rng *rng);

/* A random point of E(Fp), almost surely outside G1 (no cofactor clearing), for tests. */
void czk_g1_random_on_curve(czk_g1_affine *r, czk_rng *rng);

/* ---- encodings ------------------------------------------------------------------------- */

/*
 * zcash encodings (doc/FORMATS.md §2.1): big-endian x (‖ y), flags in the top 3 bits of byte 0:
 * 0x80 compressed, 0x40 infinity, 0x20 "y is the lexicographically larger root" (compressed
 * only). Infinity is 0x40 (uncompressed) or 0xc0 (compressed) followed by zero bytes.
 */
void czk_g1_affine_serialize(uint8_t out[CZK_G1_UNCOMPRESSED_BYTES], const czk_g1_affine *p);
void czk_g1_affine_compress(uint8_t out[CZK_G1_COMPRESSED_BYTES], const czk_g1_affine *p);

/*
 * Decoders of untrusted bytes; every input is safe. On success they return CZK_OK and set p;
 * on failure p is unspecified and the code names the first rule broken, checked in this order:
 *   CZK_EFLAGS       compression bit wrong for the function; sort bit in an uncompressed
 *                    encoding; infinity bit with the sort bit or any other bit or byte set;
 *   CZK_ERANGE       a coordinate (flags masked off) >= q;
 *   CZK_ENOTONCURVE  (uncompressed) the point is not on the curve;
 *   CZK_ENOSQRT      (compressed) x^3 + 4 is not a square;
 *   CZK_ENOTINGROUP  the point is not in G1 (skipped by the _unchecked variants).
 * Variable time.
 */
int czk_g1_affine_deserialize(czk_g1_affine *p, const uint8_t in[CZK_G1_UNCOMPRESSED_BYTES]);
int czk_g1_affine_deserialize_unchecked(czk_g1_affine *p,
                                        const uint8_t in[CZK_G1_UNCOMPRESSED_BYTES]);
int czk_g1_affine_uncompress(czk_g1_affine *p, const uint8_t in[CZK_G1_COMPRESSED_BYTES]);
int czk_g1_affine_uncompress_unchecked(czk_g1_affine *p, const uint8_t in[CZK_G1_COMPRESSED_BYTES]);

/*
 * snarkjs "LEM" layout (doc/FORMATS.md §2.2): x ‖ y, each the 48-byte little-endian Montgomery
 * form; no flags; infinity is 96 zero bytes. The decoders return CZK_ERANGE, CZK_ENOTONCURVE
 * or (checked only) CZK_ENOTINGROUP.
 */
void czk_g1_affine_to_snarkjs(uint8_t out[CZK_G1_SNARKJS_BYTES], const czk_g1_affine *p);
int czk_g1_affine_from_snarkjs(czk_g1_affine *p, const uint8_t in[CZK_G1_SNARKJS_BYTES]);
int czk_g1_affine_from_snarkjs_unchecked(czk_g1_affine *p, const uint8_t in[CZK_G1_SNARKJS_BYTES]);

#ifdef __cplusplus
}
#endif

#endif /* CZK_CURVE_G1_H */
