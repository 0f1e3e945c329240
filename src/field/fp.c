/*
 * Fp, the BLS12-381 base field (contract in fp.h).
 *
 * DESIGN
 * Elements are six 64-bit limbs in Montgomery form with R = 2^384. The arithmetic is the
 * shared n-limb code of mont_impl.h specialized to n = 6. Constant-time functions use masks,
 * never branches or indices that depend on the element; exponentiations branch on the
 * exponent only, which is public wherever this file uses one (p - 2, (p + 1)/4, (p - 1)/2).
 *
 * Every constant below was derived with python3 from the modulus p:
 *   R = 2^384 mod p, R2 = R^2 mod p, R3 = R^3 mod p, N0 = -p^(-1) mod 2^64,
 *   p - 2, (p + 1)/4 and (p - 1)/2,
 * each printed as little-endian 64-bit limbs ("%016x" of (x >> 64i) & (2^64 - 1)).
 */
#include "field/fp.h"

#include "field/mont_impl.h"
#include "field/mont_x86.h"
#include "util/alloc.h"
#include "util/status.h"

#define N CZK_FP_LIMBS

const uint64_t CZK_FP_MODULUS[N] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL,
                                    0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                                    0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};

const czk_fp CZK_FP_ZERO = {{0, 0, 0, 0, 0, 0}};

/* R mod p. */
const czk_fp CZK_FP_ONE = {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL,
                            0x77ce585370525745ULL, 0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}};

/* R^2 mod p: Montgomery-multiplying a canonical value by it yields the Montgomery form. */
static const uint64_t FP_R2[N] = {0xf4df1f341c341746ULL, 0x0a76e6a609d104f1ULL,
                                  0x8de5476c4c95b6d5ULL, 0x67eb88a9939d83c0ULL,
                                  0x9a793e85b519952dULL, 0x11988fe592cae3aaULL};

/* R^3 mod p: turns the plain inverse of a Montgomery value back into Montgomery form. */
static const uint64_t FP_R3[N] = {0xed48ac6bd94ca1e0ULL, 0x315f831e03a7adf8ULL,
                                  0x9a53352a615e29ddULL, 0x34c04e5e921e1761ULL,
                                  0x2512d43565724728ULL, 0x0aa6346091755d4dULL};

/* -p^(-1) mod 2^64. */
static const uint64_t FP_N0 = 0x89f3fffcfffcfffdULL;

#ifdef CZK__HAVE_MULX_ADX
/* The modulus followed by N0, the layout the MULX/ADX code of mont_x86.h reads. */
static const uint64_t FP_MODULUS_N0[N + 1] = {
    0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
    0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL, 0x89f3fffcfffcfffdULL};
#endif

static const uint64_t FP_P_MINUS_2[N] = {0xb9feffffffffaaa9ULL, 0x1eabfffeb153ffffULL,
                                         0x6730d2a0f6b0f624ULL, 0x64774b84f38512bfULL,
                                         0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};

/* (p + 1)/4: p = 3 mod 4, so a^((p+1)/4) is a square root of a whenever one exists. */
static const uint64_t FP_P_PLUS_1_DIV_4[N] = {0xee7fbfffffffeaabULL, 0x07aaffffac54ffffULL,
                                              0xd9cc34a83dac3d89ULL, 0xd91dd2e13ce144afULL,
                                              0x92c6e9ed90d2eb35ULL, 0x0680447a8e5ff9a6ULL};

/* (p - 1)/2: Euler's criterion exponent, and the bound of the "lexicographically largest" half. */
static const uint64_t FP_P_MINUS_1_DIV_2[N] = {0xdcff7fffffffd555ULL, 0x0f55ffff58a9ffffULL,
                                               0xb39869507b587b12ULL, 0xb23ba5c279c2895fULL,
                                               0x258dd3db21a5d66bULL, 0x0d0088f51cbff34dULL};

/*
 * Arithmetic path: 1 runs the MULX/ADX code of mont_x86.h. A load-time constructor sets it
 * from CPUID before main runs; afterwards only czk__fp_force_portable (tests, benchmarks)
 * writes it. Until the constructor has run it is 0, the portable path, which is also correct.
 * Together with its twin in fr.c it is the only mutable global of the field layer.
 */
static int fp_adx;

#ifdef CZK__HAVE_MULX_ADX
__attribute__((constructor)) static void fp_select_path(void) {
    fp_adx = czk__cpu_has_mulx_adx();
}
#endif

void czk__fp_force_portable(int on) {
#ifdef CZK__HAVE_MULX_ADX
    fp_adx = on ? 0 : czk__cpu_has_mulx_adx();
#else
    (void)on;
#endif
}

int czk__fp_uses_adx(void) {
    return fp_adx;
}

/* r = a·b·R^(-1) on raw limbs, through the selected path. */
static inline void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b) {
#ifdef CZK__HAVE_MULX_ADX
    if (fp_adx) {
        czk__mont_mul_adx6(r, a, b, FP_MODULUS_N0);
        return;
    }
#endif
    czk__mont_mul(r, a, b, CZK_FP_MODULUS, FP_N0, N);
}

void czk_fp_set_zero(czk_fp *r) {
    *r = CZK_FP_ZERO;
}

void czk_fp_set_one(czk_fp *r) {
    *r = CZK_FP_ONE;
}

void czk_fp_set_u64(czk_fp *r, uint64_t v) {
    uint64_t t[N] = {v};
    mont_mul(r->l, t, FP_R2);
}

int czk_fp_is_zero(const czk_fp *a) {
    return (int)(czk__mp_zero_mask(a->l, N) & 1);
}

int czk_fp_is_one(const czk_fp *a) {
    return (int)(czk__mp_eq_mask(a->l, CZK_FP_ONE.l, N) & 1);
}

int czk_fp_equal(const czk_fp *a, const czk_fp *b) {
    return (int)(czk__mp_eq_mask(a->l, b->l, N) & 1);
}

void czk_fp_cmov(czk_fp *r, const czk_fp *a, int flag) {
    uint64_t mask = 0 - (uint64_t)(flag & 1);
    czk__mp_select(r->l, mask, a->l, r->l, N);
}

void czk_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b) {
    czk__mont_add(r->l, a->l, b->l, CZK_FP_MODULUS, N);
}

void czk_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b) {
    czk__mont_sub(r->l, a->l, b->l, CZK_FP_MODULUS, N);
}

void czk_fp_neg(czk_fp *r, const czk_fp *a) {
    czk__mont_neg(r->l, a->l, CZK_FP_MODULUS, N);
}

void czk_fp_dbl(czk_fp *r, const czk_fp *a) {
    czk__mont_add(r->l, a->l, a->l, CZK_FP_MODULUS, N);
}

/*
 * Beyond the contract, and relied on by fp2.c: both paths accept operands below 2p (not only
 * below p) and still return a fully reduced product. With a, b < 2p the Montgomery result is
 * below a·b/R + p < (4p/R + 1)·p < 1.5p because 4p < R/2, so the one conditional subtraction
 * suffices, and the no-carry bounds of mont_impl.h hold with a < 2p as well (the running value
 * stays below 3p < 2^383). Test: fp_mul_unreduced_inputs.
 */
void czk_fp_mul(czk_fp *r, const czk_fp *a, const czk_fp *b) {
    mont_mul(r->l, a->l, b->l);
}

/*
 * The portable path has a dedicated squaring (39.5 ns against 44.7 ns for czk__mont_mul(a, a),
 * 2.6 GHz Xeon, GCC 12 -O3). The MULX/ADX multiplication of a by itself (32 ns) beats both,
 * so that path has no squaring of its own.
 */
void czk_fp_sqr(czk_fp *r, const czk_fp *a) {
#ifdef CZK__HAVE_MULX_ADX
    if (fp_adx) {
        czk__mont_mul_adx6(r->l, a->l, a->l, FP_MODULUS_N0);
        return;
    }
#endif
    czk__mont_sqr(r->l, a->l, CZK_FP_MODULUS, FP_N0, N);
}

void czk_fp_half(czk_fp *r, const czk_fp *a) {
    czk__mont_half(r->l, a->l, CZK_FP_MODULUS, N);
}

/*
 * Fixed 4-bit windows: 15 precomputed powers, then 4 squarings and at most one multiplication
 * per window. The table index is an exponent digit, so memory accesses depend on e only.
 */
void czk_fp_pow(czk_fp *r, const czk_fp *a, const uint64_t *e, size_t n) {
    czk_fp table[16], acc = CZK_FP_ONE;
    int started = 0;
    table[0] = CZK_FP_ONE;
    table[1] = *a;
    for (int i = 2; i < 16; i++)
        czk_fp_mul(&table[i], &table[i - 1], a);
    for (size_t w = 16 * n; w-- > 0;) {
        unsigned digit = (unsigned)(e[w / 16] >> (4 * (w % 16))) & 15;
        if (started) {
            for (int k = 0; k < 4; k++)
                czk_fp_sqr(&acc, &acc);
        }
        if (digit != 0) {
            if (started)
                czk_fp_mul(&acc, &acc, &table[digit]);
            else
                acc = table[digit];
            started = 1;
        }
    }
    *r = acc;
}

/* Fermat: a^(p-2) = 1/a for a != 0, and 0^(p-2) = 0 as the contract wants. */
void czk_fp_inv(czk_fp *r, const czk_fp *a) {
    czk_fp_pow(r, a, FP_P_MINUS_2, N);
}

/*
 * The Euclid step inverts the Montgomery representation A = a·R as a plain integer: it yields
 * x = A^(-1)·2^k = a^(-1)·R^(-1)·2^k, and we want a^(-1)·R = x·2^(-k)·R^2. Since k is at least
 * bits(p) and usually at least 64·N, dividing by 2^(k - 64·N) and Montgomery-multiplying by
 * R^2 gets there with N fewer reduction steps than dividing by 2^k and multiplying by R^3.
 */
void czk_fp_inv_var(czk_fp *r, const czk_fp *a) {
    uint64_t x[N];
    unsigned k = czk__mp_almost_inv_var(x, a->l, CZK_FP_MODULUS, N);
    if (k >= 64 * N) {
        czk__mont_div2k_var(x, k - 64 * N, CZK_FP_MODULUS, FP_N0, N);
        mont_mul(r->l, x, FP_R2);
    } else {
        czk__mont_div2k_var(x, k, CZK_FP_MODULUS, FP_N0, N);
        mont_mul(r->l, x, FP_R3);
    }
}

int czk_fps_inv_var(czk_fp *out, const czk_fp *in, size_t n, czk_fp *scratch) {
    int rc = CZK_OK;
    czk_fp *prefix = scratch, acc = CZK_FP_ONE, inv;
    if (n == 0)
        goto out;
    if (prefix == NULL) {
        if (n > SIZE_MAX / sizeof(czk_fp)) {
            rc = CZK_ENOMEM;
            goto out;
        }
        prefix = czk_malloc(n * sizeof(czk_fp));
        if (prefix == NULL) {
            rc = CZK_ENOMEM;
            goto out;
        }
    }
    /* prefix[i] = product of the non-zero in[0..i). */
    for (size_t i = 0; i < n; i++) {
        prefix[i] = acc;
        if (!czk_fp_is_zero(&in[i]))
            czk_fp_mul(&acc, &acc, &in[i]);
    }
    czk_fp_inv_var(&inv, &acc);
    /* Walk back; in[i] is read before out[i] is written so that out may alias in. */
    for (size_t i = n; i-- > 0;) {
        czk_fp x = in[i];
        if (czk_fp_is_zero(&x)) {
            out[i] = CZK_FP_ZERO;
            continue;
        }
        czk_fp_mul(&out[i], &inv, &prefix[i]);
        czk_fp_mul(&inv, &inv, &x);
    }
out:
    if (prefix != scratch)
        czk_free(prefix);
    return rc;
}

int czk_fp_sqrt(czk_fp *r, const czk_fp *a) {
    czk_fp s, check;
    czk_fp_pow(&s, a, FP_P_PLUS_1_DIV_4, N);
    czk_fp_sqr(&check, &s);
    *r = s;
    return czk_fp_equal(&check, a);
}

/* Euler's criterion: a^((p-1)/2) is 1 for non-zero squares, 0 for 0 and -1 otherwise. */
int czk_fp_is_square(const czk_fp *a) {
    czk_fp e, minus_one;
    czk_fp_pow(&e, a, FP_P_MINUS_1_DIV_2, N);
    czk_fp_neg(&minus_one, &CZK_FP_ONE);
    return 1 - czk_fp_equal(&e, &minus_one);
}

int czk_fp_is_lex_largest(const czk_fp *a) {
    uint64_t v[N], t[N];
    czk_fp_to_limbs(v, a);
    /* (p-1)/2 - v borrows exactly when v > (p-1)/2. */
    return (int)czk__mp_sub(t, FP_P_MINUS_1_DIV_2, v, N);
}

void czk_fp_to_limbs(uint64_t out[CZK_FP_LIMBS], const czk_fp *a) {
    static const uint64_t one[N] = {1};
    mont_mul(out, a->l, one);
}

int czk_fp_from_limbs(czk_fp *r, const uint64_t in[CZK_FP_LIMBS]) {
    if (!czk__mp_lt(in, CZK_FP_MODULUS, N))
        return CZK_ERANGE;
    mont_mul(r->l, in, FP_R2);
    return CZK_OK;
}

void czk_fp_to_bytes_be(uint8_t out[CZK_FP_BYTES], const czk_fp *a) {
    uint64_t v[N];
    czk_fp_to_limbs(v, a);
    czk__mp_to_be(out, v, N);
}

int czk_fp_from_bytes_be(czk_fp *r, const uint8_t in[CZK_FP_BYTES]) {
    uint64_t v[N];
    czk__mp_from_be(v, in, N);
    return czk_fp_from_limbs(r, v);
}

void czk_fp_to_bytes_le(uint8_t out[CZK_FP_BYTES], const czk_fp *a) {
    uint64_t v[N];
    czk_fp_to_limbs(v, a);
    czk__mp_to_le(out, v, N);
}

int czk_fp_from_bytes_le(czk_fp *r, const uint8_t in[CZK_FP_BYTES]) {
    uint64_t v[N];
    czk__mp_from_le(v, in, N);
    return czk_fp_from_limbs(r, v);
}

void czk_fp_to_mont_bytes_le(uint8_t out[CZK_FP_BYTES], const czk_fp *a) {
    czk__mp_to_le(out, a->l, N);
}

int czk_fp_from_mont_bytes_le(czk_fp *r, const uint8_t in[CZK_FP_BYTES]) {
    uint64_t v[N];
    czk__mp_from_le(v, in, N);
    if (!czk__mp_lt(v, CZK_FP_MODULUS, N))
        return CZK_ERANGE;
    for (int i = 0; i < N; i++)
        r->l[i] = v[i];
    return CZK_OK;
}

/*
 * Draw 381-bit values until one is below p (each draw succeeds with probability p/2^381 >
 * 0.8). The accepted value is used directly as the Montgomery representation: that map is a
 * bijection of [0, p), so the element is uniform either way and no multiplication is needed.
 */
void czk_fp_random(czk_fp *r, czk_rng *rng) {
    uint64_t v[N];
    do {
        for (int i = 0; i < N; i++)
            v[i] = czk_rng_u64(rng);
        v[N - 1] &= (1ULL << (381 - 320)) - 1;
    } while (!czk__mp_lt(v, CZK_FP_MODULUS, N));
    for (int i = 0; i < N; i++)
        r->l[i] = v[i];
}
