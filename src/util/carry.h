/*
 * Add and subtract with carry on 64-bit limbs, for the multi-precision code of every layer
 * (field's Montgomery arithmetic, the MSM's inline Fp additions, the R1CS row sums). On x86-64
 * the _addcarry_u64/_subborrow_u64 intrinsics (plain ADC/SBB, part of the x86-64 baseline) let
 * GCC keep the carry in the flags; the same loops written with unsigned __int128 compiled to a
 * setc/movzx per limb, and czk_fp_add took 15.6 ns instead of the 5 ns it takes now (Xeon at
 * 2.6 GHz, GCC 12 -O3); the R1CS row reduction became SSE selects through the stack
 * (store-forwarding stalls that cost more than the whole row sum).
 *
 * Each returns the low 64 bits of a ± b ± *carry and leaves the carry (or borrow) out, 0 or 1,
 * in *carry.
 */
#ifndef CZK_UTIL_CARRY_H
#define CZK_UTIL_CARRY_H

#include <stdint.h>

#if defined(__x86_64__)
#include <x86intrin.h>

static inline __attribute__((always_inline)) uint64_t czk__adc(uint64_t a, uint64_t b,
                                                               uint64_t *carry) {
    unsigned long long out;
    *carry = _addcarry_u64((unsigned char)*carry, a, b, &out);
    return out;
}

static inline __attribute__((always_inline)) uint64_t czk__sbb(uint64_t a, uint64_t b,
                                                               uint64_t *borrow) {
    unsigned long long out;
    *borrow = _subborrow_u64((unsigned char)*borrow, a, b, &out);
    return out;
}
#else
static inline __attribute__((always_inline)) uint64_t czk__adc(uint64_t a, uint64_t b,
                                                               uint64_t *carry) {
    unsigned __int128 s = (unsigned __int128)a + b + *carry;
    *carry = (uint64_t)(s >> 64);
    return (uint64_t)s;
}

static inline __attribute__((always_inline)) uint64_t czk__sbb(uint64_t a, uint64_t b,
                                                               uint64_t *borrow) {
    unsigned __int128 d = (unsigned __int128)a - b - *borrow;
    *borrow = (uint64_t)(d >> 64) & 1;
    return (uint64_t)d;
}
#endif

#endif /* CZK_UTIL_CARRY_H */
