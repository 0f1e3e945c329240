/*
 * Fr, the BLS12-381 scalar field (contract in fr.h).
 *
 * DESIGN
 * Elements are four 64-bit limbs in Montgomery form with R = 2^256, computed by the shared
 * n-limb code of mont_impl.h specialized to n = 4. Constant-time functions use masks, never
 * branches or indices that depend on the element; exponentiations branch on the exponent
 * only, which is public wherever this file uses one.
 *
 * Every constant below was derived with python3 from the modulus r:
 *   R = 2^256 mod r, R2 = R^2 mod r, R3 = R^3 mod r, N0 = -r^(-1) mod 2^64, r - 2,
 *   (r - 1)/2, r - 1 = 2^32·T with T odd, (T - 1)/2, and Z = 7^T·R mod r (7 generates the
 *   multiplicative group, so 7^T has order exactly 2^32; python asserted Z^(2^31) = -1),
 * each printed as little-endian 64-bit limbs ("%016x" of (x >> 64i) & (2^64 - 1)).
 */
#include "field/fr.h"

#include "field/mont_impl.h"
#include "field/mont_x86.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/status.h"

#define N CZK_FR_LIMBS

const uint64_t CZK_FR_MODULUS[N] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                    0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

const czk_fr CZK_FR_ZERO = {{0, 0, 0, 0}};

/* R mod r. */
const czk_fr CZK_FR_ONE = {
    {0x00000001fffffffeULL, 0x5884b7fa00034802ULL, 0x998c4fefecbc4ff5ULL, 0x1824b159acc5056fULL}};

/* R^2 mod r: Montgomery-multiplying a canonical value by it yields the Montgomery form. */
static const uint64_t FR_R2[N] = {0xc999e990f3f29c6dULL, 0x2b6cedcb87925c23ULL,
                                  0x05d314967254398fULL, 0x0748d9d99f59ff11ULL};

/* R^3 mod r: turns the plain inverse of a Montgomery value back into Montgomery form. */
static const uint64_t FR_R3[N] = {0xc62c1807439b73afULL, 0x1b3e0d188cf06990ULL,
                                  0x73d13c71c7b5f418ULL, 0x6e2a5bb9c8db33e9ULL};

/* -r^(-1) mod 2^64. */
static const uint64_t FR_N0 = 0xfffffffeffffffffULL;

#ifdef CZK__HAVE_MULX_ADX
/* The modulus followed by N0, the layout the MULX/ADX code of mont_x86.h reads. */
static const uint64_t FR_MODULUS_N0[N + 1] = {0xffffffff00000001ULL, 0x53bda402fffe5bfeULL,
                                              0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL,
                                              0xfffffffeffffffffULL};
#endif

static const uint64_t FR_P_MINUS_2[N] = {0xfffffffeffffffffULL, 0x53bda402fffe5bfeULL,
                                         0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

/* (r - 1)/2: Euler's criterion exponent. */
static const uint64_t FR_P_MINUS_1_DIV_2[N] = {0x7fffffff80000000ULL, 0xa9ded2017fff2dffULL,
                                               0x199cec0404d0ec02ULL, 0x39f6d3a994cebea4ULL};

/* Tonelli-Shanks: r - 1 = 2^S·T, (T - 1)/2, and a primitive 2^S-th root of unity 7^T. */
#define FR_S 32
static const uint64_t FR_T_MINUS_1_DIV_2[N] = {0x7fff2dff7fffffffULL, 0x04d0ec02a9ded201ULL,
                                               0x94cebea4199cec04ULL, 0x0000000039f6d3a9ULL};
static const czk_fr FR_ROOT_OF_UNITY = {
    {0xb9b58d8c5f0e466aULL, 0x5b1b4c801819d7ecULL, 0x0af53ae352a31e64ULL, 0x5bf3adda19e9b27bULL}};

/*
 * Arithmetic path: 1 runs the MULX/ADX code of mont_x86.h. A load-time constructor sets it
 * from CPUID before main runs; afterwards only czk__fr_force_portable (tests, benchmarks)
 * writes it. Until the constructor has run it is 0, the portable path, which is also correct.
 * Together with its twin in fp.c it is the only mutable global of the field layer.
 */
static int fr_adx;

#ifdef CZK__HAVE_MULX_ADX
__attribute__((constructor)) static void fr_select_path(void) {
    fr_adx = czk__cpu_has_mulx_adx();
}
#endif

void czk__fr_force_portable(int on) {
#ifdef CZK__HAVE_MULX_ADX
    fr_adx = on ? 0 : czk__cpu_has_mulx_adx();
#else
    (void)on;
#endif
}

int czk__fr_uses_adx(void) {
    return fr_adx;
}

/* r = a·b·R^(-1) on raw limbs, through the selected path. */
static inline void mont_mul(uint64_t *r, const uint64_t *a, const uint64_t *b) {
#ifdef CZK__HAVE_MULX_ADX
    if (fr_adx) {
        czk__mont_mul_adx4(r, a, b, FR_MODULUS_N0);
        return;
    }
#endif
    czk__mont_mul(r, a, b, CZK_FR_MODULUS, FR_N0, N);
}

void czk_fr_set_zero(czk_fr *r) {
    *r = CZK_FR_ZERO;
}

void czk_fr_set_one(czk_fr *r) {
    *r = CZK_FR_ONE;
}

void czk_fr_set_u64(czk_fr *r, uint64_t v) {
    uint64_t t[N] = {v};
    mont_mul(r->l, t, FR_R2);
}

int czk_fr_is_zero(const czk_fr *a) {
    return (int)(czk__mp_zero_mask(a->l, N) & 1);
}

int czk_fr_is_one(const czk_fr *a) {
    return (int)(czk__mp_eq_mask(a->l, CZK_FR_ONE.l, N) & 1);
}

int czk_fr_equal(const czk_fr *a, const czk_fr *b) {
    return (int)(czk__mp_eq_mask(a->l, b->l, N) & 1);
}

void czk_fr_cmov(czk_fr *r, const czk_fr *a, int flag) {
    uint64_t mask = 0 - (uint64_t)(flag & 1);
    czk__mp_select(r->l, mask, a->l, r->l, N);
}

void czk_fr_add(czk_fr *r, const czk_fr *a, const czk_fr *b) {
    czk__mont_add(r->l, a->l, b->l, CZK_FR_MODULUS, N);
}

void czk_fr_sub(czk_fr *r, const czk_fr *a, const czk_fr *b) {
    czk__mont_sub(r->l, a->l, b->l, CZK_FR_MODULUS, N);
}

void czk_fr_neg(czk_fr *r, const czk_fr *a) {
    czk__mont_neg(r->l, a->l, CZK_FR_MODULUS, N);
}

void czk_fr_dbl(czk_fr *r, const czk_fr *a) {
    czk__mont_add(r->l, a->l, a->l, CZK_FR_MODULUS, N);
}

void czk_fr_mul(czk_fr *r, const czk_fr *a, const czk_fr *b) {
    mont_mul(r->l, a->l, b->l);
}

/*
 * For four limbs the dedicated squaring of mont_impl.h only ties with multiplying a by itself
 * in the portable path (both 20.8 ns, 2.6 GHz Xeon, GCC 12 -O3), and the MULX/ADX
 * multiplication (19.4 ns) beats both, so Fr squares by multiplying.
 */
void czk_fr_sqr(czk_fr *r, const czk_fr *a) {
    mont_mul(r->l, a->l, a->l);
}

/*
 * Fixed 4-bit windows: 15 precomputed powers, then 4 squarings and at most one multiplication
 * per window. The table index is an exponent digit, so memory accesses depend on e only.
 */
void czk_fr_pow(czk_fr *r, const czk_fr *a, const uint64_t *e, size_t n) {
    czk_fr table[16], acc = CZK_FR_ONE;
    int started = 0;
    table[0] = CZK_FR_ONE;
    table[1] = *a;
    for (int i = 2; i < 16; i++)
        czk_fr_mul(&table[i], &table[i - 1], a);
    for (size_t w = 16 * n; w-- > 0;) {
        unsigned digit = (unsigned)(e[w / 16] >> (4 * (w % 16))) & 15;
        if (started) {
            for (int k = 0; k < 4; k++)
                czk_fr_sqr(&acc, &acc);
        }
        if (digit != 0) {
            if (started)
                czk_fr_mul(&acc, &acc, &table[digit]);
            else
                acc = table[digit];
            started = 1;
        }
    }
    *r = acc;
}

/* Fermat: a^(r-2) = 1/a for a != 0, and 0^(r-2) = 0 as the contract wants. */
void czk_fr_inv(czk_fr *r, const czk_fr *a) {
    czk_fr_pow(r, a, FR_P_MINUS_2, N);
}

/*
 * The Euclid step inverts the Montgomery representation A = a·R as a plain integer: it yields
 * x = A^(-1)·2^k = a^(-1)·R^(-1)·2^k, and we want a^(-1)·R = x·2^(-k)·R^2. Since k is at least
 * bits(r) and usually at least 64·N, dividing by 2^(k - 64·N) and Montgomery-multiplying by
 * R^2 gets there with N fewer reduction steps than dividing by 2^k and multiplying by R^3.
 */
void czk_fr_inv_var(czk_fr *r, const czk_fr *a) {
    uint64_t x[N];
    unsigned k = czk__mp_almost_inv_var(x, a->l, CZK_FR_MODULUS, N);
    if (k >= 64 * N) {
        czk__mont_div2k_var(x, k - 64 * N, CZK_FR_MODULUS, FR_N0, N);
        mont_mul(r->l, x, FR_R2);
    } else {
        czk__mont_div2k_var(x, k, CZK_FR_MODULUS, FR_N0, N);
        mont_mul(r->l, x, FR_R3);
    }
}

int czk_frs_inv_var(czk_fr *out, const czk_fr *in, size_t n, czk_fr *scratch) {
    int rc = CZK_OK;
    czk_fr *prefix = scratch, acc = CZK_FR_ONE, inv;
    if (n == 0)
        goto out;
    if (prefix == NULL) {
        if (n > SIZE_MAX / sizeof(czk_fr)) {
            rc = CZK_ENOMEM;
            goto out;
        }
        prefix = czk_malloc(n * sizeof(czk_fr));
        if (prefix == NULL) {
            rc = CZK_ENOMEM;
            goto out;
        }
    }
    /* prefix[i] = product of the non-zero in[0..i). */
    for (size_t i = 0; i < n; i++) {
        prefix[i] = acc;
        if (!czk_fr_is_zero(&in[i]))
            czk_fr_mul(&acc, &acc, &in[i]);
    }
    czk_fr_inv_var(&inv, &acc);
    /* Walk back; in[i] is read before out[i] is written so that out may alias in. */
    for (size_t i = n; i-- > 0;) {
        czk_fr x = in[i];
        if (czk_fr_is_zero(&x)) {
            out[i] = CZK_FR_ZERO;
            continue;
        }
        czk_fr_mul(&out[i], &inv, &prefix[i]);
        czk_fr_mul(&inv, &inv, &x);
    }
out:
    if (prefix != scratch)
        czk_free(prefix);
    return rc;
}

/*
 * Tonelli-Shanks in a fixed-schedule form, constant-time: the loop bounds depend only on S,
 * and every data-dependent choice is a cmov.
 *
 * Start from x = a^((T+1)/2), b = a^T (so x^2 = a·b) and z of order 2^S. While ord(b)
 * divides 2^(k-1) and z has order 2^k (true for k = S when a is a square), b^(2^(k-2)) is
 * +1 or -1; when it is -1, multiplying x by z and b by z^2 keeps x^2 = a·b and halves ord(b).
 * Squaring z then restores the invariant for k - 1. At k = 1, b = 1 and x^2 = a. For a
 * non-square the invariant fails from the start and the final check x^2 = a rejects it.
 * Cost: (S-1)(S-2)/2 = 465 squarings and 2(S-1) = 62 multiplications beyond the initial
 * exponentiation, about as much again as that exponentiation.
 */
int czk_fr_sqrt(czk_fr *r, const czk_fr *a) {
    czk_fr w, x, b, z = FR_ROOT_OF_UNITY, t, check;
    czk_fr_pow(&w, a, FR_T_MINUS_1_DIV_2, N);
    czk_fr_mul(&x, a, &w);
    czk_fr_mul(&b, &x, &w);
    for (int k = FR_S; k >= 2; k--) {
        t = b;
        for (int j = 0; j < k - 2; j++)
            czk_fr_sqr(&t, &t);
        int flip = 1 - czk_fr_is_one(&t);
        czk_fr_mul(&t, &x, &z);
        czk_fr_cmov(&x, &t, flip);
        czk_fr_sqr(&z, &z);
        czk_fr_mul(&t, &b, &z);
        czk_fr_cmov(&b, &t, flip);
    }
    czk_fr_sqr(&check, &x);
    *r = x;
    return czk_fr_equal(&check, a);
}

/* Euler's criterion: a^((r-1)/2) is 1 for non-zero squares, 0 for 0 and -1 otherwise. */
int czk_fr_is_square(const czk_fr *a) {
    czk_fr e, minus_one;
    czk_fr_pow(&e, a, FR_P_MINUS_1_DIV_2, N);
    czk_fr_neg(&minus_one, &CZK_FR_ONE);
    return 1 - czk_fr_equal(&e, &minus_one);
}

void czk_fr_to_limbs(uint64_t out[CZK_FR_LIMBS], const czk_fr *a) {
    static const uint64_t one[N] = {1};
    mont_mul(out, a->l, one);
}

int czk_fr_from_limbs(czk_fr *r, const uint64_t in[CZK_FR_LIMBS]) {
    if (!czk__mp_lt(in, CZK_FR_MODULUS, N))
        return CZK_ERANGE;
    mont_mul(r->l, in, FR_R2);
    return CZK_OK;
}

void czk_fr_to_bytes_be(uint8_t out[CZK_FR_BYTES], const czk_fr *a) {
    uint64_t v[N];
    czk_fr_to_limbs(v, a);
    czk__mp_to_be(out, v, N);
}

int czk_fr_from_bytes_be(czk_fr *r, const uint8_t in[CZK_FR_BYTES]) {
    uint64_t v[N];
    czk__mp_from_be(v, in, N);
    return czk_fr_from_limbs(r, v);
}

void czk_fr_to_bytes_le(uint8_t out[CZK_FR_BYTES], const czk_fr *a) {
    uint64_t v[N];
    czk_fr_to_limbs(v, a);
    czk__mp_to_le(out, v, N);
}

int czk_fr_from_bytes_le(czk_fr *r, const uint8_t in[CZK_FR_BYTES]) {
    uint64_t v[N];
    czk__mp_from_le(v, in, N);
    return czk_fr_from_limbs(r, v);
}

void czk_fr_to_mont_bytes_le(uint8_t out[CZK_FR_BYTES], const czk_fr *a) {
    czk__mp_to_le(out, a->l, N);
}

int czk_fr_from_mont_bytes_le(czk_fr *r, const uint8_t in[CZK_FR_BYTES]) {
    uint64_t v[N];
    czk__mp_from_le(v, in, N);
    if (!czk__mp_lt(v, CZK_FR_MODULUS, N))
        return CZK_ERANGE;
    for (int i = 0; i < N; i++)
        r->l[i] = v[i];
    return CZK_OK;
}

/*
 * Draw 255-bit values until one is below r (each draw succeeds with probability r/2^255 >
 * 0.9). The accepted value is used directly as the Montgomery representation: that map is a
 * bijection of [0, r), so the element is uniform either way and no multiplication is needed.
 */
void czk_fr_random(czk_fr *r, czk_rng *rng) {
    uint64_t v[N];
    do {
        for (int i = 0; i < N; i++)
            v[i] = czk_rng_u64(rng);
        v[N - 1] &= (1ULL << 63) - 1;
    } while (!czk__mp_lt(v, CZK_FR_MODULUS, N));
    for (int i = 0; i < N; i++)
        r->l[i] = v[i];
}

/* As czk_fr_random, from the OS; the rejections reveal nothing (each draw is fresh). */
int czk_fr_random_os(czk_fr *out) {
    uint8_t b[CZK_FR_BYTES];
    uint64_t v[N];
    int rc = CZK_OK;
    for (;;) {
        if (czk_rng_os(b, sizeof(b)) != CZK_OK) {
            rc = CZK_EIO;
            break;
        }
        czk__mp_from_le(v, b, N);
        v[N - 1] &= (1ULL << 63) - 1; /* r < 2^255: keep the rejection rate under 1/10 */
        if (czk__mp_lt(v, CZK_FR_MODULUS, N)) {
            for (int i = 0; i < N; i++)
                out->l[i] = v[i];
            break;
        }
    }
    /* The copies on the stack are the secret itself. */
    czk_memclear_explicit(b, sizeof(b));
    czk_memclear_explicit(v, sizeof(v));
    return rc;
}
