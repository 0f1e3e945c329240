/*
 * Private to src/field: multi-precision Montgomery arithmetic on n little-endian 64-bit limbs,
 * shared by Fp (n = 6) and Fr (n = 4).
 *
 * Every helper is static inline and takes the limb count as an argument; fp.c and fr.c call
 * them with a literal n so that the compiler specializes and fully unrolls the loops (measured:
 * the unrolled 6-limb CIOS multiplication is within a few percent of a hand-unrolled one).
 *
 * The moduli this serves both leave the top bit of their top limb clear (q < 2^381,
 * r < 2^255), which the code relies on in two places, each noted where it is used: a + b of
 * two reduced values never carries out of n limbs, and the "no-carry" CIOS variant applies
 * (the top limb of the modulus is below 2^63 - 1, so the running sum fits n limbs without the
 * extra carry word; the gnark-crypto team's note "Faster Montgomery multiplication",
 * hackmd.io/@gnark/modular_multiplication, derives the bound; CIOS itself is from Koç, Acar
 * and Kaliski, "Analyzing and comparing Montgomery multiplication algorithms", IEEE Micro 1996).
 *
 * Constant time: everything here except the functions ending in _var runs in time independent
 * of the limb values (masks instead of branches).
 */
#ifndef CZK_FIELD_MONT_IMPL_H
#define CZK_FIELD_MONT_IMPL_H

#include <stddef.h>
#include <stdint.h>

#include "util/bytes.h"
#include "util/carry.h"

typedef unsigned __int128 czk__u128;

#define CZK__MONT_MAXN 6
#define CZK__INLINE static inline __attribute__((always_inline))

/* r = a + b over n limbs; returns the carry out. */
CZK__INLINE uint64_t czk__mp_add(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        r[i] = czk__adc(a[i], b[i], &c);
    return c;
}

/* r = a - b over n limbs; returns the borrow out (0 or 1). */
CZK__INLINE uint64_t czk__mp_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        r[i] = czk__sbb(a[i], b[i], &c);
    return c;
}

/* r = mask ? a : b for mask in {0, ~0}. */
CZK__INLINE void czk__mp_select(uint64_t *r, uint64_t mask, const uint64_t *a, const uint64_t *b,
                                size_t n) {
    for (size_t i = 0; i < n; i++)
        r[i] = (a[i] & mask) | (b[i] & ~mask);
}

/* Returns all-ones when a == 0, else 0, without branching on the limbs. */
CZK__INLINE uint64_t czk__mp_zero_mask(const uint64_t *a, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i];
    /* (acc | -acc) has its top bit set exactly when acc != 0. */
    return ((acc | (0 - acc)) >> 63) - 1;
}

CZK__INLINE uint64_t czk__mp_eq_mask(const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        acc |= a[i] ^ b[i];
    return ((acc | (0 - acc)) >> 63) - 1;
}

/* Returns 1 when a < b (as integers), else 0. Constant time. */
CZK__INLINE int czk__mp_lt(const uint64_t *a, const uint64_t *b, size_t n) {
    uint64_t t[CZK__MONT_MAXN];
    return (int)czk__mp_sub(t, a, b, n);
}

/* r = a - b mod p: a - b, and p added back under the borrow's mask. */
CZK__INLINE void czk__mont_sub(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p,
                               size_t n) {
    uint64_t d[CZK__MONT_MAXN], pm[CZK__MONT_MAXN];
    uint64_t mask = 0 - czk__mp_sub(d, a, b, n);
    for (size_t i = 0; i < n; i++)
        pm[i] = p[i] & mask;
    czk__mp_add(r, d, pm, n);
}

/*
 * r = a - p if a >= p, else a; valid for a < 2p: czk__mont_sub with b = p, which subtracts p
 * and adds it back under the borrow mask. That keeps everything in ADC/SBB chains; a select
 * between a and a - p instead was vectorized by GCC into 128-bit loads of just-stored limbs, a
 * store-forwarding stall that made czk_fp_add 70% slower.
 */
CZK__INLINE void czk__mont_reduce_once(uint64_t *r, const uint64_t *a, const uint64_t *p,
                                       size_t n) {
    czk__mont_sub(r, a, p, p, n);
}

/* r = a + b mod p. a + b < 2p < 2^(64n) because p's top bit is clear, so no carry out. */
CZK__INLINE void czk__mont_add(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p,
                               size_t n) {
    uint64_t s[CZK__MONT_MAXN];
    czk__mp_add(s, a, b, n);
    czk__mont_reduce_once(r, s, p, n);
}

/* r = -a mod p, mapping 0 to 0 (p - 0 = p is not reduced). */
CZK__INLINE void czk__mont_neg(uint64_t *r, const uint64_t *a, const uint64_t *p, size_t n) {
    uint64_t d[CZK__MONT_MAXN];
    uint64_t nz = ~czk__mp_zero_mask(a, n);
    czk__mp_sub(d, p, a, n);
    for (size_t i = 0; i < n; i++)
        r[i] = d[i] & nz;
}

/* r = a / 2 mod p: add p when a is odd (a + p < 2p fits n limbs), then shift right by one. */
CZK__INLINE void czk__mont_half(uint64_t *r, const uint64_t *a, const uint64_t *p, size_t n) {
    uint64_t s[CZK__MONT_MAXN], pm[CZK__MONT_MAXN];
    uint64_t mask = 0 - (a[0] & 1);
    for (size_t i = 0; i < n; i++)
        pm[i] = p[i] & mask;
    czk__mp_add(s, a, pm, n);
    for (size_t i = 0; i + 1 < n; i++)
        r[i] = (s[i] >> 1) | (s[i + 1] << 63);
    r[n - 1] = s[n - 1] >> 1;
}

/*
 * r = a·b·2^(-64n) mod p: CIOS (coarsely integrated operand scanning) Montgomery
 * multiplication, in its "no-carry" form. Each step computes t = (t + a·b[i] + m·p)/2^64, so
 * t < t/2^64 + a + p stays below a + p + 1 (below 2p for a < p). Because p[n-1] < 2^63 - 1,
 * t + a·b[i] + m·p then fits n + 1 words and the extra carry word that textbook CIOS keeps is
 * always zero, so the two carry chains (product and reduction) merge into t[n-1] at the end of
 * each step. The result is below a·b/2^(64n) + p, under 2p for a, b < p, so one conditional
 * subtraction reduces it. The same holds for a, b < 2p when 8p < 2^(64n), as for the
 * BLS12-381 base field (4p^2/2^384 < p/2), which czk_fp_mul documents and fp2.c uses.
 */
CZK__INLINE void czk__mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b, const uint64_t *p,
                               uint64_t n0, size_t n) {
    uint64_t t[CZK__MONT_MAXN] = {0};
    for (size_t i = 0; i < n; i++) {
        uint64_t bi = b[i];
        czk__u128 uv = (czk__u128)a[0] * bi + t[0];
        uint64_t ca = (uint64_t)(uv >> 64);
        uint64_t t0 = (uint64_t)uv;
        uint64_t m = t0 * n0;
        uv = (czk__u128)m * p[0] + t0;
        uint64_t cm = (uint64_t)(uv >> 64);
        for (size_t j = 1; j < n; j++) {
            uv = (czk__u128)a[j] * bi + t[j] + ca;
            ca = (uint64_t)(uv >> 64);
            uv = (czk__u128)m * p[j] + (uint64_t)uv + cm;
            cm = (uint64_t)(uv >> 64);
            t[j - 1] = (uint64_t)uv;
        }
        t[n - 1] = ca + cm;
    }
    czk__mont_reduce_once(r, t, p, n);
}

/*
 * r = T·2^(-64n) mod p for a 2n-limb T < p·2^(64n): n word-by-word reduction rounds. Each
 * round adds m·p at offset i; the carry out of limb i+n is kept in `hi` and folded into the
 * next round's top limb, so no limb above 2n is needed. The result is < 2p.
 */
CZK__INLINE void czk__mont_redc(uint64_t *r, uint64_t *T, const uint64_t *p, uint64_t n0,
                                size_t n) {
    uint64_t hi = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t m = T[i] * n0;
        uint64_t c = 0;
        for (size_t j = 0; j < n; j++) {
            czk__u128 uv = (czk__u128)m * p[j] + T[i + j] + c;
            T[i + j] = (uint64_t)uv;
            c = (uint64_t)(uv >> 64);
        }
        czk__u128 s = (czk__u128)T[i + n] + c + hi;
        T[i + n] = (uint64_t)s;
        hi = (uint64_t)(s >> 64);
    }
    czk__mont_reduce_once(r, T + n, p, n);
}

/*
 * r = a^2·2^(-64n) mod p: the off-diagonal products are computed once and doubled, which
 * saves n(n-1)/2 of the n^2 word multiplications of czk__mont_mul.
 */
CZK__INLINE void czk__mont_sqr(uint64_t *r, const uint64_t *a, const uint64_t *p, uint64_t n0,
                               size_t n) {
    uint64_t T[2 * CZK__MONT_MAXN];
    for (size_t i = 0; i < n; i++)
        T[i] = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t c = 0;
        for (size_t j = i + 1; j < n; j++) {
            czk__u128 uv = (czk__u128)a[i] * a[j] + T[i + j] + c;
            T[i + j] = (uint64_t)uv;
            c = (uint64_t)(uv >> 64);
        }
        T[i + n] = c;
    }
    /* Double the cross products (T < 2^(128n - 1), so nothing carries out) ... */
    czk__mp_add(T, T, T, 2 * n);
    /* ... and add the squares on the diagonal. */
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++) {
        czk__u128 sq = (czk__u128)a[i] * a[i];
        T[2 * i] = czk__adc(T[2 * i], (uint64_t)sq, &c);
        T[2 * i + 1] = czk__adc(T[2 * i + 1], (uint64_t)(sq >> 64), &c);
    }
    czk__mont_redc(r, T, p, n0, n);
}

/* Little-/big-endian byte codecs for n limbs (no range check). */
CZK__INLINE void czk__mp_from_le(uint64_t *r, const uint8_t *in, size_t n) {
    for (size_t i = 0; i < n; i++)
        r[i] = czk_bytes_load_le64(in + 8 * i);
}

CZK__INLINE void czk__mp_to_le(uint8_t *out, const uint64_t *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        czk_bytes_store_le64(out + 8 * i, a[i]);
}

/* Big-endian: limb i (least significant first) is the 8 bytes ending 8·i bytes from the end. */
CZK__INLINE void czk__mp_from_be(uint64_t *r, const uint8_t *in, size_t n) {
    for (size_t i = 0; i < n; i++)
        r[i] = czk_bytes_load_be64(in + 8 * (n - 1 - i));
}

CZK__INLINE void czk__mp_to_be(uint8_t *out, const uint64_t *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        czk_bytes_store_be64(out + 8 * (n - 1 - i), a[i]);
}

/* ---- variable-time inversion ---------------------------------------------------------- */

/* a >>= k for 0 < k < 64·n; the vacated top bits become 0. */
CZK__INLINE void czk__mp_shr_var(uint64_t *a, unsigned k, size_t n) {
    if (k < 64) { /* the common case, by far */
        for (size_t i = 0; i + 1 < n; i++)
            a[i] = (a[i] >> k) | (a[i + 1] << (64 - k));
        a[n - 1] >>= k;
        return;
    }
    size_t w = k / 64;
    unsigned b = k % 64;
    for (size_t i = 0; i < n; i++) {
        uint64_t lo = i + w < n ? a[i + w] : 0;
        uint64_t hi = i + w + 1 < n ? a[i + w + 1] : 0;
        a[i] = b ? (lo >> b) | (hi << (64 - b)) : lo;
    }
}

/* a <<= k for 0 < k < 64·n, dropping bits shifted out (callers guarantee there are none). */
CZK__INLINE void czk__mp_shl_var(uint64_t *a, unsigned k, size_t n) {
    if (k < 64) {
        for (size_t i = n - 1; i > 0; i--)
            a[i] = (a[i] << k) | (a[i - 1] >> (64 - k));
        a[0] <<= k;
        return;
    }
    size_t w = k / 64;
    unsigned b = k % 64;
    for (size_t i = n; i-- > 0;) {
        uint64_t hi = i >= w ? a[i - w] : 0;
        uint64_t lo = i >= w + 1 ? a[i - w - 1] : 0;
        a[i] = b ? (hi << b) | (lo >> (64 - b)) : hi;
    }
}

/* Number of trailing zero bits of a != 0. */
CZK__INLINE unsigned czk__mp_ctz_var(const uint64_t *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (a[i] != 0)
            return (unsigned)(64 * i) + (unsigned)__builtin_ctzll(a[i]);
    return (unsigned)(64 * n);
}

/*
 * Kaliski's "almost Montgomery inverse" (B. S. Kaliski Jr., "The Montgomery inverse and its
 * applications", IEEE Trans. Computers 44(8), 1995, phase 1): for 0 < a < p, sets
 * x = a^(-1)·2^k mod p and returns k, with bits(p) <= k <= 2·bits(p).
 *
 * It is the binary extended Euclidean algorithm rearranged so that the coefficients are only
 * ever doubled and added, never halved mod p: with u = p, v = a, r = 0, s = 1 it keeps
 * p = u·s + v·r, so r and s stay at most p (2p for r after the last step) and need no
 * reduction. Each subtraction of the odd u, v is followed by removing all trailing zeros of
 * the difference at once (one shift, with the matching left shift of s or r), which is
 * equivalent to Kaliski's one-bit steps. Variable time; returns 0 with x = 0 for a = 0.
 */
CZK__INLINE unsigned czk__mp_almost_inv_var(uint64_t *x, const uint64_t *a, const uint64_t *p,
                                            size_t n) {
    uint64_t u[CZK__MONT_MAXN], v[CZK__MONT_MAXN], r[CZK__MONT_MAXN] = {0}, s[CZK__MONT_MAXN] = {1},
                                                   d[CZK__MONT_MAXN];
    if (czk__mp_zero_mask(a, n)) {
        for (size_t i = 0; i < n; i++)
            x[i] = 0;
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        u[i] = p[i];
        v[i] = a[i];
    }
    unsigned k = czk__mp_ctz_var(v, n);
    if (k)
        czk__mp_shr_var(v, k, n);
    for (;;) {
        /* u and v are odd here. */
        if (czk__mp_sub(d, v, u, n)) { /* u > v */
            czk__mp_sub(u, u, v, n);
            czk__mp_add(r, r, s, n);
            unsigned t = czk__mp_ctz_var(u, n);
            czk__mp_shr_var(u, t, n);
            czk__mp_shl_var(s, t, n);
            k += t;
        } else {
            czk__mp_add(s, s, r, n);
            if (czk__mp_zero_mask(d, n)) { /* u = v = gcd = 1 */
                czk__mp_add(r, r, r, n);
                k += 1;
                break;
            }
            unsigned t = czk__mp_ctz_var(d, n);
            czk__mp_shr_var(d, t, n);
            for (size_t i = 0; i < n; i++)
                v[i] = d[i];
            czk__mp_shl_var(r, t, n);
            k += t;
        }
    }
    /* r < 2p: reduce once, then x = p - r is a^(-1)·2^k (r is never 0 mod p). */
    czk__mont_reduce_once(r, r, p, n);
    czk__mp_sub(x, p, r, n);
    return k;
}

/*
 * x = x·2^(-k) mod p for x < p: Montgomery reduction steps, one word (64 bits) at a time and
 * then the remaining k mod 64 bits in one partial step: with m = x·n0 mod 2^b, x + m·p is
 * divisible by 2^b because n0 = -p^(-1) mod 2^64, and (x + m·p)/2^b < 2p. Variable time in k.
 */
CZK__INLINE void czk__mont_div2k_var(uint64_t *x, unsigned k, const uint64_t *p, uint64_t n0,
                                     size_t n) {
    while (k > 0) {
        unsigned b = k < 64 ? k : 64;
        uint64_t m = x[0] * n0;
        if (b < 64)
            m &= (1ULL << b) - 1;
        /* t = x + m·p over n + 1 words. */
        uint64_t t[CZK__MONT_MAXN + 1], c = 0;
        for (size_t j = 0; j < n; j++) {
            czk__u128 uv = (czk__u128)m * p[j] + x[j] + c;
            t[j] = (uint64_t)uv;
            c = (uint64_t)(uv >> 64);
        }
        t[n] = c;
        for (size_t j = 0; j < n; j++)
            x[j] = b == 64 ? t[j + 1] : (t[j] >> b) | (t[j + 1] << (64 - b));
        czk__mont_reduce_once(x, x, p, n);
        k -= b;
    }
}

#endif /* CZK_FIELD_MONT_IMPL_H */
