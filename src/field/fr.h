/*
 * Fr: the BLS12-381 scalar field, r =
 * 0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001 (255 bits, 2-adicity 32,
 * multiplicative generator 7).
 *
 * Elements are kept in Montgomery form (a·R mod r, R = 2^256) as four little-endian 64-bit
 * limbs, always fully reduced. Aliasing is allowed. Constant-time unless named _var.
 */
#ifndef CZK_FIELD_FR_H
#define CZK_FIELD_FR_H

#include <stddef.h>
#include <stdint.h>

#include "util/rng.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_FR_LIMBS 4
#define CZK_FR_BYTES 32

typedef struct czk_fr {
    uint64_t l[CZK_FR_LIMBS];
} czk_fr;

extern const uint64_t CZK_FR_MODULUS[CZK_FR_LIMBS];
extern const czk_fr CZK_FR_ZERO;
extern const czk_fr CZK_FR_ONE;

void czk_fr_set_zero(czk_fr *r);
void czk_fr_set_one(czk_fr *r);
void czk_fr_set_u64(czk_fr *r, uint64_t v);

int czk_fr_is_zero(const czk_fr *a);
int czk_fr_is_one(const czk_fr *a);
int czk_fr_equal(const czk_fr *a, const czk_fr *b);
void czk_fr_cmov(czk_fr *r, const czk_fr *a, int flag);

void czk_fr_add(czk_fr *r, const czk_fr *a, const czk_fr *b);
void czk_fr_sub(czk_fr *r, const czk_fr *a, const czk_fr *b);
void czk_fr_neg(czk_fr *r, const czk_fr *a);
void czk_fr_dbl(czk_fr *r, const czk_fr *a);
void czk_fr_mul(czk_fr *r, const czk_fr *a, const czk_fr *b);
void czk_fr_sqr(czk_fr *r, const czk_fr *a);

void czk_fr_pow(czk_fr *r, const czk_fr *a, const uint64_t *e, size_t n);
void czk_fr_inv(czk_fr *r, const czk_fr *a);
void czk_fr_inv_var(czk_fr *r, const czk_fr *a);
int czk_frs_inv_var(czk_fr *out, const czk_fr *in, size_t n, czk_fr *scratch);
int czk_fr_sqrt(czk_fr *r, const czk_fr *a);
int czk_fr_is_square(const czk_fr *a);

void czk_fr_to_limbs(uint64_t out[CZK_FR_LIMBS], const czk_fr *a);
int czk_fr_from_limbs(czk_fr *r, const uint64_t in[CZK_FR_LIMBS]);
void czk_fr_to_bytes_be(uint8_t out[CZK_FR_BYTES], const czk_fr *a);
int czk_fr_from_bytes_be(czk_fr *r, const uint8_t in[CZK_FR_BYTES]);
void czk_fr_to_bytes_le(uint8_t out[CZK_FR_BYTES], const czk_fr *a);
int czk_fr_from_bytes_le(czk_fr *r, const uint8_t in[CZK_FR_BYTES]);
void czk_fr_to_mont_bytes_le(uint8_t out[CZK_FR_BYTES], const czk_fr *a);
int czk_fr_from_mont_bytes_le(czk_fr *r, const uint8_t in[CZK_FR_BYTES]);

void czk_fr_random(czk_fr *r, czk_rng *rng);

/*
 * A uniform element drawn from the operating system (czk_rng_os), for secrets such as a
 * proof's blinding scalars: 255 bits at a time, rejected until below r, every buffer cleared
 * before return. Returns CZK_OK, or CZK_EIO when the OS source fails (*out is then untouched).
 */
int czk_fr_random_os(czk_fr *out);

/*
 * Internal, for tests and benchmarks: on = 1 makes every Fr function use the portable C
 * arithmetic even where the x86-64 MULX/ADX code was selected at start-up; on = 0 restores
 * the run-time choice. Not thread-safe: call it only while no other thread uses Fr.
 */
void czk__fr_force_portable(int on);
/* Internal: 1 when Fr currently runs the MULX/ADX code, else 0. */
int czk__fr_uses_adx(void);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FIELD_FR_H */
