/*
 * Fp: the BLS12-381 base field, q = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf
 *                                     6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab (381 bits).
 *
 * Elements are kept in Montgomery form (a·R mod q, R = 2^384) as six little-endian 64-bit
 * limbs, always fully reduced (< q). Every function accepts aliased arguments (r == a == b).
 * Functions are constant-time unless their name ends in _var.
 */
#ifndef CZK_FIELD_FP_H
#define CZK_FIELD_FP_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_FP_LIMBS 6
#define CZK_FP_BYTES 48

typedef struct czk_fp {
    uint64_t l[CZK_FP_LIMBS];
} czk_fp;

/* The modulus q as canonical little-endian limbs. */
extern const uint64_t CZK_FP_MODULUS[CZK_FP_LIMBS];
/* Zero and one (one in Montgomery form, i.e. R mod q). */
extern const czk_fp CZK_FP_ZERO;
extern const czk_fp CZK_FP_ONE;

void czk_fp_set_zero(czk_fp *r);
void czk_fp_set_one(czk_fp *r);
/* r = v (any 64-bit value). */
void czk_fp_set_u64(czk_fp *r, uint64_t v);

/* Return 1 or 0. */
int czk_fp_is_zero(const czk_fp *a);
int czk_fp_is_one(const czk_fp *a);
int czk_fp_equal(const czk_fp *a, const czk_fp *b);

/* r = flag ? a : r, flag in {0,1}, constant-time. */
void czk_fp_cmov(czk_fp *r, const czk_fp *a, int flag);

void czk_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b);
void czk_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b);
void czk_fp_neg(czk_fp *r, const czk_fp *a);
void czk_fp_dbl(czk_fp *r, const czk_fp *a);
void czk_fp_mul(czk_fp *r, const czk_fp *a, const czk_fp *b);
void czk_fp_sqr(czk_fp *r, const czk_fp *a);
/* r = a / 2. */
void czk_fp_half(czk_fp *r, const czk_fp *a);

/* r = a^e where e is `n` little-endian limbs; variable time in e only. */
void czk_fp_pow(czk_fp *r, const czk_fp *a, const uint64_t *e, size_t n);

/* r = 1/a; r = 0 when a = 0. Constant-time. */
void czk_fp_inv(czk_fp *r, const czk_fp *a);
/* r = 1/a; r = 0 when a = 0. Variable time (binary extended Euclid). */
void czk_fp_inv_var(czk_fp *r, const czk_fp *a);

/*
 * Batch inversion (Montgomery's trick): out[i] = 1/in[i], and 0 where in[i] = 0. `out` may
 * equal `in`. Uses `scratch` of n elements when not NULL, else allocates; returns CZK_OK or
 * CZK_ENOMEM. Variable time.
 */
int czk_fps_inv_var(czk_fp *out, const czk_fp *in, size_t n, czk_fp *scratch);

/*
 * r = sqrt(a) when a is a square, returning 1; else returns 0 and r is unspecified.
 * Which root is returned is unspecified; callers choose the sign. Constant-time.
 */
int czk_fp_sqrt(czk_fp *r, const czk_fp *a);
/* 1 if a is a square (0 counts as a square), else 0. */
int czk_fp_is_square(const czk_fp *a);

/* 1 if the canonical value of a is > (q-1)/2 (zcash "lexicographically largest"), else 0. */
int czk_fp_is_lex_largest(const czk_fp *a);

/* Canonical (non-Montgomery) little-endian limbs of a, and back (CZK_ERANGE if >= q). */
void czk_fp_to_limbs(uint64_t out[CZK_FP_LIMBS], const czk_fp *a);
int czk_fp_from_limbs(czk_fp *r, const uint64_t in[CZK_FP_LIMBS]);

/* Canonical 48-byte big-/little-endian encodings. Decoders return CZK_OK or CZK_ERANGE (>= q). */
void czk_fp_to_bytes_be(uint8_t out[CZK_FP_BYTES], const czk_fp *a);
int czk_fp_from_bytes_be(czk_fp *r, const uint8_t in[CZK_FP_BYTES]);
void czk_fp_to_bytes_le(uint8_t out[CZK_FP_BYTES], const czk_fp *a);
int czk_fp_from_bytes_le(czk_fp *r, const uint8_t in[CZK_FP_BYTES]);

/*
 * snarkjs/ffjavascript layout: the Montgomery representation itself (a·R mod q) as 48
 * little-endian bytes. The decoder returns CZK_ERANGE when the value is >= q.
 */
void czk_fp_to_mont_bytes_le(uint8_t out[CZK_FP_BYTES], const czk_fp *a);
int czk_fp_from_mont_bytes_le(czk_fp *r, const uint8_t in[CZK_FP_BYTES]);

/* Uniformly random element (rejection sampling). */
void czk_fp_random(czk_fp *r, czk_rng *rng);

/*
 * Internal, for tests and benchmarks: on = 1 makes every Fp function use the portable C
 * arithmetic even where the x86-64 MULX/ADX code was selected at start-up; on = 0 restores
 * the run-time choice. Not thread-safe: call it only while no other thread uses Fp.
 */
void czk__fp_force_portable(int on);
/* Internal: 1 when Fp currently runs the MULX/ADX code, else 0. */
int czk__fp_uses_adx(void);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FIELD_FP_H */
