/*
 * Tests for Fp, Fr and Fp2.
 *
 * Fp and Fr are checked against a deliberately naive reference written here: integers as
 * little-endian 32-bit words, modular multiplication bit by bit (shift, add, compare,
 * subtract), exponentiation by square-and-multiply on top of it. It shares nothing with
 * mont_impl.h (no Montgomery form, no 64-bit limbs, no constants beyond the moduli, which are
 * re-parsed from their hex strings). Both fields go through one table of wrappers, so every
 * check runs on both; each check also runs once per arithmetic path (portable C, and MULX/ADX
 * where the CPU has it).
 */
#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"
#include "tests/test.h"
#include "util/status.h"

#include <string.h>

/* ---- naive reference ---------------------------------------------------------------- */

#define RW 14 /* 448 bits: room for 2·m with m < 2^384 */

typedef struct ref_int {
    uint32_t w[RW];
} ref_int;

static void ref_zero(ref_int *r) {
    memset(r, 0, sizeof(*r));
}

static void ref_from_u64(ref_int *r, const uint64_t *l, size_t n) {
    ref_zero(r);
    for (size_t i = 0; i < n; i++) {
        r->w[2 * i] = (uint32_t)l[i];
        r->w[2 * i + 1] = (uint32_t)(l[i] >> 32);
    }
}

static void ref_to_u64(uint64_t *l, const ref_int *a, size_t n) {
    for (size_t i = 0; i < n; i++)
        l[i] = (uint64_t)a->w[2 * i] | ((uint64_t)a->w[2 * i + 1] << 32);
}

static int ref_from_hex(ref_int *r, const char *hex) {
    ref_zero(r);
    size_t len = strlen(hex);
    for (size_t i = 0; i < len; i++) {
        char c = hex[len - 1 - i];
        unsigned v;
        if (c >= '0' && c <= '9')
            v = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = (unsigned)(c - 'a' + 10);
        else
            return -1;
        r->w[i / 8] |= (uint32_t)v << (4 * (i % 8));
    }
    return 0;
}

static int ref_cmp(const ref_int *a, const ref_int *b) {
    for (int i = RW - 1; i >= 0; i--) {
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    }
    return 0;
}

static void ref_add(ref_int *r, const ref_int *a, const ref_int *b) {
    uint64_t c = 0;
    for (int i = 0; i < RW; i++) {
        c += (uint64_t)a->w[i] + b->w[i];
        r->w[i] = (uint32_t)c;
        c >>= 32;
    }
}

/* r = a - b, for a >= b. */
static void ref_sub(ref_int *r, const ref_int *a, const ref_int *b) {
    int64_t c = 0;
    for (int i = 0; i < RW; i++) {
        c += (int64_t)a->w[i] - b->w[i];
        r->w[i] = (uint32_t)c;
        c = c < 0 ? -1 : 0;
    }
}

static int ref_bit(const ref_int *a, int i) {
    return (int)((a->w[i / 32] >> (i % 32)) & 1);
}

static int ref_is_zero(const ref_int *a) {
    for (int i = 0; i < RW; i++)
        if (a->w[i])
            return 0;
    return 1;
}

static void ref_addmod(ref_int *r, const ref_int *a, const ref_int *b, const ref_int *m) {
    ref_add(r, a, b);
    if (ref_cmp(r, m) >= 0)
        ref_sub(r, r, m);
}

static void ref_submod(ref_int *r, const ref_int *a, const ref_int *b, const ref_int *m) {
    if (ref_cmp(a, b) >= 0) {
        ref_sub(r, a, b);
    } else {
        ref_int t;
        ref_add(&t, a, m);
        ref_sub(r, &t, b);
    }
}

/* r = a·b mod m for a, b < m, most significant bit of b first. */
static void ref_mulmod(ref_int *r, const ref_int *a, const ref_int *b, const ref_int *m) {
    ref_int acc;
    ref_zero(&acc);
    for (int i = RW * 32 - 1; i >= 0; i--) {
        ref_addmod(&acc, &acc, &acc, m);
        if (ref_bit(b, i))
            ref_addmod(&acc, &acc, a, m);
    }
    *r = acc;
}

static void ref_powmod(ref_int *r, const ref_int *a, const ref_int *e, const ref_int *m) {
    ref_int acc;
    ref_zero(&acc);
    acc.w[0] = 1;
    for (int i = RW * 32 - 1; i >= 0; i--) {
        ref_mulmod(&acc, &acc, &acc, m);
        if (ref_bit(e, i))
            ref_mulmod(&acc, &acc, a, m);
    }
    *r = acc;
}

/* ---- one table for both prime fields -------------------------------------------------- */

typedef union elt {
    czk_fp fp;
    czk_fr fr;
    uint64_t l[CZK_FP_LIMBS];
} elt;

typedef struct field {
    const char *name;
    const char *hex; /* the modulus, from the header comments */
    size_t limbs;
    size_t bytes;
    unsigned bits;
    const uint64_t *modulus;
    const uint64_t *one; /* Montgomery form of 1, as limbs */
    void (*set_u64)(elt *r, uint64_t v);
    int (*is_zero)(const elt *a);
    int (*is_one)(const elt *a);
    int (*equal)(const elt *a, const elt *b);
    void (*cmov)(elt *r, const elt *a, int flag);
    void (*add)(elt *r, const elt *a, const elt *b);
    void (*sub)(elt *r, const elt *a, const elt *b);
    void (*neg)(elt *r, const elt *a);
    void (*dbl)(elt *r, const elt *a);
    void (*mul)(elt *r, const elt *a, const elt *b);
    void (*sqr)(elt *r, const elt *a);
    void (*pow)(elt *r, const elt *a, const uint64_t *e, size_t n);
    void (*inv)(elt *r, const elt *a);
    void (*inv_var)(elt *r, const elt *a);
    int (*batch_inv)(elt *out, const elt *in, size_t n, elt *scratch);
    int (*sqrt)(elt *r, const elt *a);
    int (*is_square)(const elt *a);
    void (*to_limbs)(uint64_t *out, const elt *a);
    int (*from_limbs)(elt *r, const uint64_t *in);
    void (*to_be)(uint8_t *out, const elt *a);
    int (*from_be)(elt *r, const uint8_t *in);
    void (*to_le)(uint8_t *out, const elt *a);
    int (*from_le)(elt *r, const uint8_t *in);
    void (*to_mont)(uint8_t *out, const elt *a);
    int (*from_mont)(elt *r, const uint8_t *in);
    void (*random)(elt *r, czk_rng *rng);
    void (*force_portable)(int on);
    int (*uses_adx)(void);
} field;

/*
 * Wrappers from the union to each field's own type. Batch inversion needs arrays of the
 * field's type, which the union does not give (it is as large as the bigger field), so it
 * copies through a local array of at most BATCH_MAX elements.
 */
#define BATCH_MAX 40

#define FIELD_WRAPPERS(F, T, NL)                                                                   \
    static void F##_w_set_u64(elt *r, uint64_t v) {                                                \
        czk_##F##_set_u64(&r->F, v);                                                               \
    }                                                                                              \
    static int F##_w_is_zero(const elt *a) {                                                       \
        return czk_##F##_is_zero(&a->F);                                                           \
    }                                                                                              \
    static int F##_w_is_one(const elt *a) {                                                        \
        return czk_##F##_is_one(&a->F);                                                            \
    }                                                                                              \
    static int F##_w_equal(const elt *a, const elt *b) {                                           \
        return czk_##F##_equal(&a->F, &b->F);                                                      \
    }                                                                                              \
    static void F##_w_cmov(elt *r, const elt *a, int flag) {                                       \
        czk_##F##_cmov(&r->F, &a->F, flag);                                                        \
    }                                                                                              \
    static void F##_w_add(elt *r, const elt *a, const elt *b) {                                    \
        czk_##F##_add(&r->F, &a->F, &b->F);                                                        \
    }                                                                                              \
    static void F##_w_sub(elt *r, const elt *a, const elt *b) {                                    \
        czk_##F##_sub(&r->F, &a->F, &b->F);                                                        \
    }                                                                                              \
    static void F##_w_neg(elt *r, const elt *a) {                                                  \
        czk_##F##_neg(&r->F, &a->F);                                                               \
    }                                                                                              \
    static void F##_w_dbl(elt *r, const elt *a) {                                                  \
        czk_##F##_dbl(&r->F, &a->F);                                                               \
    }                                                                                              \
    static void F##_w_mul(elt *r, const elt *a, const elt *b) {                                    \
        czk_##F##_mul(&r->F, &a->F, &b->F);                                                        \
    }                                                                                              \
    static void F##_w_sqr(elt *r, const elt *a) {                                                  \
        czk_##F##_sqr(&r->F, &a->F);                                                               \
    }                                                                                              \
    static void F##_w_pow(elt *r, const elt *a, const uint64_t *e, size_t n) {                     \
        czk_##F##_pow(&r->F, &a->F, e, n);                                                         \
    }                                                                                              \
    static void F##_w_inv(elt *r, const elt *a) {                                                  \
        czk_##F##_inv(&r->F, &a->F);                                                               \
    }                                                                                              \
    static void F##_w_inv_var(elt *r, const elt *a) {                                              \
        czk_##F##_inv_var(&r->F, &a->F);                                                           \
    }                                                                                              \
    static int F##_w_batch_inv(elt *out, const elt *in, size_t n, elt *scratch) {                  \
        T o[BATCH_MAX] = {{{0}}}, s[BATCH_MAX];                                                    \
        int rc;                                                                                    \
        if (n > BATCH_MAX)                                                                         \
            return CZK_EINVAL;                                                                     \
        for (size_t i = 0; i < n; i++)                                                             \
            o[i] = in[i].F;                                                                        \
        /* in place: out aliases in, the case the contract calls out */                            \
        rc = czk_##F##s_inv_var(o, o, n, scratch ? s : NULL);                                      \
        for (size_t i = 0; i < n; i++)                                                             \
            out[i].F = o[i];                                                                       \
        return rc;                                                                                 \
    }                                                                                              \
    static int F##_w_sqrt(elt *r, const elt *a) {                                                  \
        return czk_##F##_sqrt(&r->F, &a->F);                                                       \
    }                                                                                              \
    static int F##_w_is_square(const elt *a) {                                                     \
        return czk_##F##_is_square(&a->F);                                                         \
    }                                                                                              \
    static void F##_w_to_limbs(uint64_t *out, const elt *a) {                                      \
        czk_##F##_to_limbs(out, &a->F);                                                            \
    }                                                                                              \
    static int F##_w_from_limbs(elt *r, const uint64_t *in) {                                      \
        return czk_##F##_from_limbs(&r->F, in);                                                    \
    }                                                                                              \
    static void F##_w_to_be(uint8_t *out, const elt *a) {                                          \
        czk_##F##_to_bytes_be(out, &a->F);                                                         \
    }                                                                                              \
    static int F##_w_from_be(elt *r, const uint8_t *in) {                                          \
        return czk_##F##_from_bytes_be(&r->F, in);                                                 \
    }                                                                                              \
    static void F##_w_to_le(uint8_t *out, const elt *a) {                                          \
        czk_##F##_to_bytes_le(out, &a->F);                                                         \
    }                                                                                              \
    static int F##_w_from_le(elt *r, const uint8_t *in) {                                          \
        return czk_##F##_from_bytes_le(&r->F, in);                                                 \
    }                                                                                              \
    static void F##_w_to_mont(uint8_t *out, const elt *a) {                                        \
        czk_##F##_to_mont_bytes_le(out, &a->F);                                                    \
    }                                                                                              \
    static int F##_w_from_mont(elt *r, const uint8_t *in) {                                        \
        return czk_##F##_from_mont_bytes_le(&r->F, in);                                            \
    }                                                                                              \
    static void F##_w_random(elt *r, czk_rng *rng) {                                               \
        czk_##F##_random(&r->F, rng);                                                              \
    }

FIELD_WRAPPERS(fp, czk_fp, CZK_FP_LIMBS)
FIELD_WRAPPERS(fr, czk_fr, CZK_FR_LIMBS)

#define FIELD_TABLE(F, NL, NB, BITS, HEX, ONE)                                                     \
    {                                                                                              \
#F, HEX, NL, NB, BITS, CZK_##ONE##_MODULUS, CZK_##ONE##_ONE.l, F##_w_set_u64,              \
            F##_w_is_zero, F##_w_is_one, F##_w_equal, F##_w_cmov, F##_w_add, F##_w_sub, F##_w_neg, \
            F##_w_dbl, F##_w_mul, F##_w_sqr, F##_w_pow, F##_w_inv, F##_w_inv_var, F##_w_batch_inv, \
            F##_w_sqrt, F##_w_is_square, F##_w_to_limbs, F##_w_from_limbs, F##_w_to_be,            \
            F##_w_from_be, F##_w_to_le, F##_w_from_le, F##_w_to_mont, F##_w_from_mont,             \
            F##_w_random, czk__##F##_force_portable, czk__##F##_uses_adx                           \
    }

static const field FP_FIELD = FIELD_TABLE(fp, CZK_FP_LIMBS, CZK_FP_BYTES, 381,
                                          "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf"
                                          "6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab",
                                          FP);
static const field FR_FIELD =
    FIELD_TABLE(fr, CZK_FR_LIMBS, CZK_FR_BYTES, 255,
                "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001", FR);

/* ---- helpers ------------------------------------------------------------------------- */

static void field_one(const field *f, elt *r) {
    memset(r, 0, sizeof(*r));
    memcpy(r->l, f->one, f->limbs * 8);
}

static void ref_modulus(const field *f, ref_int *m) {
    ref_from_hex(m, f->hex);
}

/* Canonical value of an element, through the library's own decoder. */
static void elt_to_ref(const field *f, ref_int *r, const elt *a) {
    uint64_t l[CZK_FP_LIMBS];
    f->to_limbs(l, a);
    ref_from_u64(r, l, f->limbs);
}

static int elt_from_ref(const field *f, elt *r, const ref_int *a) {
    uint64_t l[CZK_FP_LIMBS];
    ref_to_u64(l, a, f->limbs);
    memset(r, 0, sizeof(*r));
    return f->from_limbs(r, l);
}

/*
 * A test value below the modulus: one of the edge cases (0, 1, 2, m-1, m-2, (m±1)/2, word
 * boundaries) one time in four, else uniform by rejection. Returned as reference integer.
 */
static void ref_sample(const field *f, czk_rng *rng, ref_int *r) {
    ref_int m, one, t;
    ref_modulus(f, &m);
    ref_zero(&one);
    one.w[0] = 1;
    unsigned pick = (unsigned)(czk_rng_u64(rng) % 48);
    ref_zero(r);
    switch (pick) {
    case 0:
        return;
    case 1:
        r->w[0] = 1;
        return;
    case 2:
        r->w[0] = 2;
        return;
    case 3:
        ref_sub(r, &m, &one);
        return;
    case 4:
        ref_sub(&t, &m, &one);
        ref_sub(r, &t, &one);
        return;
    case 5: /* (m - 1)/2 and (m + 1)/2 */
    case 6:
        ref_sub(&t, &m, &one);
        for (int i = 0; i < RW; i++)
            r->w[i] = (t.w[i] >> 1) | (i + 1 < RW ? t.w[i + 1] << 31 : 0);
        if (pick == 6)
            ref_add(r, r, &one);
        return;
    case 7: /* 2^64 - 1, 2^64 */
        r->w[0] = r->w[1] = 0xffffffffu;
        return;
    case 8:
        r->w[2] = 1;
        return;
    case 9: /* all-ones words up to the top limb */
        for (size_t i = 0; i + 2 < 2 * f->limbs; i++)
            r->w[i] = 0xffffffffu;
        return;
    case 10: /* m - 2^64 */
        ref_zero(&t);
        t.w[2] = 1;
        ref_sub(r, &m, &t);
        return;
    case 11: /* a random power of two below m */
    {
        unsigned b = (unsigned)(czk_rng_u64(rng) % f->bits);
        r->w[b / 32] = 1u << (b % 32);
        return;
    }
    default:
        break;
    }
    do {
        ref_zero(r);
        for (size_t i = 0; i < 2 * f->limbs; i++)
            r->w[i] = (uint32_t)czk_rng_u64(rng);
        unsigned top = f->bits % 32;
        if (top)
            r->w[f->bits / 32] &= (1u << top) - 1;
        for (size_t i = f->bits / 32 + 1; i < RW; i++)
            r->w[i] = 0;
    } while (ref_cmp(r, &m) >= 0);
}

static int sample(const field *f, czk_rng *rng, elt *a, ref_int *ra) {
    ref_sample(f, rng, ra);
    return elt_from_ref(f, a, ra);
}

/* Number of arithmetic paths to test: 2 where the MULX/ADX code is in use, else 1. */
static int path_count(const field *f) {
    f->force_portable(0);
    return f->uses_adx() ? 2 : 1;
}

/* ---- generic prime-field checks ------------------------------------------------------ */

static void check_constants(czk_test_ctx *t, const field *f) {
    ref_int m, r, one;
    uint64_t l[CZK_FP_LIMBS];
    ref_modulus(f, &m);
    ref_to_u64(l, &m, f->limbs);
    CHECKF(memcmp(l, f->modulus, f->limbs * 8) == 0, "%s modulus", f->name);
    /* ONE must be the Montgomery form of 1: R = 2^(64n) mod m, by repeated doubling. */
    ref_zero(&r);
    r.w[0] = 1;
    for (size_t i = 0; i < 64 * f->limbs; i++)
        ref_addmod(&r, &r, &r, &m);
    ref_to_u64(l, &r, f->limbs);
    CHECKF(memcmp(l, f->one, f->limbs * 8) == 0, "%s R mod m", f->name);
    elt e, one1;
    field_one(f, &one1);
    f->set_u64(&e, 1);
    CHECK(f->is_one(&e));
    CHECK(f->equal(&e, &one1));
    f->to_limbs(l, &one1);
    ref_from_u64(&one, l, f->limbs);
    CHECK(one.w[0] == 1);
    one.w[0] = 0;
    CHECK(ref_is_zero(&one));
}

static void check_arith(czk_test_ctx *t, const field *f, long iters) {
    ref_int m;
    ref_modulus(f, &m);
    for (long it = 0; it < iters; it++) {
        elt a, b, c;
        ref_int ra, rb, rc, rr;
        CHECK_EQ_INT(sample(f, &t->rng, &a, &ra), CZK_OK);
        CHECK_EQ_INT(sample(f, &t->rng, &b, &rb), CZK_OK);

        f->mul(&c, &a, &b);
        elt_to_ref(f, &rc, &c);
        ref_mulmod(&rr, &ra, &rb, &m);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s mul, iteration %ld", f->name, it);

        f->sqr(&c, &a);
        elt_to_ref(f, &rc, &c);
        ref_mulmod(&rr, &ra, &ra, &m);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s sqr, iteration %ld", f->name, it);

        f->add(&c, &a, &b);
        elt_to_ref(f, &rc, &c);
        ref_addmod(&rr, &ra, &rb, &m);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s add", f->name);

        f->sub(&c, &a, &b);
        elt_to_ref(f, &rc, &c);
        ref_submod(&rr, &ra, &rb, &m);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s sub", f->name);

        f->dbl(&c, &a);
        elt_to_ref(f, &rc, &c);
        ref_addmod(&rr, &ra, &ra, &m);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s dbl", f->name);

        f->neg(&c, &a);
        elt_to_ref(f, &rc, &c);
        ref_int z;
        ref_zero(&z);
        ref_submod(&rr, &z, &ra, &m);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s neg", f->name);

        /* Aliased forms: r == a == b. */
        c = a;
        f->mul(&c, &c, &c);
        ref_mulmod(&rr, &ra, &ra, &m);
        elt_to_ref(f, &rc, &c);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s aliased mul", f->name);
        c = a;
        f->add(&c, &c, &c);
        ref_addmod(&rr, &ra, &ra, &m);
        elt_to_ref(f, &rc, &c);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s aliased add", f->name);

        /* Results stay fully reduced: the raw Montgomery limbs are below m too. */
        ref_from_u64(&rc, c.l, f->limbs);
        CHECK(ref_cmp(&rc, &m) < 0);

        /* equal, is_zero, cmov. */
        CHECK_EQ_INT(f->equal(&a, &b), ref_cmp(&ra, &rb) == 0);
        CHECK_EQ_INT(f->is_zero(&a), ref_is_zero(&ra));
        c = a;
        f->cmov(&c, &b, 0);
        CHECK(f->equal(&c, &a));
        f->cmov(&c, &b, 1);
        CHECK(f->equal(&c, &b));
    }
}

static void check_pow(czk_test_ctx *t, const field *f, long iters) {
    ref_int m;
    ref_modulus(f, &m);
    for (long it = 0; it < iters; it++) {
        elt a, c;
        ref_int ra, re, rc, rr;
        uint64_t e[CZK_FP_LIMBS];
        CHECK_EQ_INT(sample(f, &t->rng, &a, &ra), CZK_OK);
        /* Exponents of every length from 0 to limbs words, some of them 0 or 1. */
        size_t n = (size_t)it % (f->limbs + 1);
        for (size_t i = 0; i < n; i++)
            e[i] = czk_rng_u64(&t->rng);
        if (it % 7 == 3 && n > 0)
            for (size_t i = 0; i < n; i++)
                e[i] = i == 0 ? (uint64_t)(it % 2) : 0;
        ref_from_u64(&re, e, n);
        f->pow(&c, &a, e, n);
        ref_powmod(&rr, &ra, &re, &m);
        elt_to_ref(f, &rc, &c);
        CHECKF(ref_cmp(&rc, &rr) == 0, "%s pow, n = %zu", f->name, n);
    }
}

static void check_inv(czk_test_ctx *t, const field *f, long iters) {
    ref_int m, one;
    ref_modulus(f, &m);
    ref_zero(&one);
    one.w[0] = 1;
    elt z, c;
    memset(&z, 0, sizeof(z));
    f->inv(&c, &z);
    CHECK(f->is_zero(&c));
    f->inv_var(&c, &z);
    CHECK(f->is_zero(&c));
    /*
     * Raw Montgomery representations 1, 2, 3, m - 1 and 2^64: the variable-time inversion
     * works on these limbs, and they drive its step count k to both ends of its range.
     */
    for (int k = 0; k < 5; k++) {
        ref_int v;
        uint8_t le[CZK_FP_BYTES] = {0};
        elt a, i1, i2;
        ref_zero(&v);
        v.w[0] = (uint32_t)(k + 1);
        if (k == 3)
            ref_sub(&v, &m, &one);
        if (k == 4) {
            ref_zero(&v);
            v.w[2] = 1;
        }
        for (size_t i = 0; i < f->bytes; i++)
            le[i] = (uint8_t)(v.w[i / 4] >> (8 * (i % 4)));
        CHECK_EQ_INT(f->from_mont(&a, le), CZK_OK);
        f->inv(&i1, &a);
        f->inv_var(&i2, &a);
        CHECKF(f->equal(&i1, &i2), "%s inv_var of raw value %d", f->name, k);
        f->mul(&i2, &i1, &a);
        CHECK(f->is_one(&i2));
    }
    for (long it = 0; it < iters; it++) {
        elt a, i1, i2;
        ref_int ra, ri, rr;
        CHECK_EQ_INT(sample(f, &t->rng, &a, &ra), CZK_OK);
        f->inv(&i1, &a);
        f->inv_var(&i2, &a);
        CHECKF(f->equal(&i1, &i2), "%s inv vs inv_var", f->name);
        elt_to_ref(f, &ri, &i1);
        ref_mulmod(&rr, &ra, &ri, &m);
        if (ref_is_zero(&ra))
            CHECK(ref_is_zero(&ri));
        else
            CHECKF(ref_cmp(&rr, &one) == 0, "%s a·inv(a) != 1", f->name);
        /* Aliased. */
        c = a;
        f->inv_var(&c, &c);
        CHECK(f->equal(&c, &i1));
    }
}

static void check_batch_inv(czk_test_ctx *t, const field *f) {
    static const size_t sizes[] = {0, 1, 2, 3, 17, 33};
    elt in[BATCH_MAX], out[BATCH_MAX], want;
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        size_t n = sizes[s];
        for (int variant = 0; variant < 4; variant++) {
            for (size_t i = 0; i < n; i++) {
                ref_int r;
                CHECK_EQ_INT(sample(f, &t->rng, &in[i], &r), CZK_OK);
                /* Variant 1: scattered zeros; variant 2: all zero; 3: every second one. */
                if ((variant == 1 && czk_rng_u64(&t->rng) % 3 == 0) || variant == 2 ||
                    (variant == 3 && i % 2 == 0))
                    memset(&in[i], 0, sizeof(in[i]));
            }
            CHECK_EQ_INT(f->batch_inv(out, in, n, (variant & 1) ? out : NULL), CZK_OK);
            for (size_t i = 0; i < n; i++) {
                f->inv(&want, &in[i]);
                CHECKF(f->equal(&out[i], &want), "%s batch n = %zu, i = %zu", f->name, n, i);
            }
        }
    }
}

static void check_sqrt(czk_test_ctx *t, const field *f, long iters) {
    ref_int m, e, rr, one;
    ref_modulus(f, &m);
    ref_zero(&one);
    one.w[0] = 1;
    /* e = (m - 1)/2 for Euler's criterion on the reference side. */
    ref_sub(&e, &m, &one);
    for (int i = 0; i < RW; i++)
        e.w[i] = (e.w[i] >> 1) | (i + 1 < RW ? e.w[i + 1] << 31 : 0);
    elt z, r, one1;
    memset(&z, 0, sizeof(z));
    field_one(f, &one1);
    CHECK(f->sqrt(&r, &z));
    CHECK(f->is_zero(&r));
    CHECK(f->is_square(&z));
    CHECK(f->sqrt(&r, &one1));
    CHECK(f->is_one(&r) || (f->neg(&r, &r), f->is_one(&r)));
    int squares = 0, nonsquares = 0;
    for (long it = 0; it < iters; it++) {
        elt a, a2, s, s2;
        ref_int ra;
        CHECK_EQ_INT(sample(f, &t->rng, &a, &ra), CZK_OK);
        /* A known square: a^2 has root ±a. */
        f->sqr(&a2, &a);
        CHECKF(f->sqrt(&s, &a2), "%s sqrt of a square failed", f->name);
        f->neg(&s2, &s);
        CHECK(f->equal(&s, &a) || f->equal(&s2, &a));
        CHECK(f->is_square(&a2));
        /* An arbitrary value: the verdict must match the reference's Euler criterion. */
        int want;
        if (ref_is_zero(&ra)) {
            want = 1;
        } else if (it < 24) {
            ref_powmod(&rr, &ra, &e, &m);
            want = ref_cmp(&rr, &one) == 0;
        } else {
            want = -1; /* the slow reference only runs on the first values */
        }
        int got = f->sqrt(&s, &a);
        CHECK_EQ_INT(f->is_square(&a), got);
        if (want >= 0)
            CHECKF(got == want, "%s is_square disagrees with the reference", f->name);
        if (got) {
            f->sqr(&s2, &s);
            CHECK(f->equal(&s2, &a));
            squares++;
        } else {
            nonsquares++;
        }
    }
    CHECK(iters < 64 || (squares > iters / 8 && nonsquares > iters / 8));
}

static void check_bytes(czk_test_ctx *t, const field *f, long iters) {
    ref_int m, one, rv, rr;
    uint8_t be[CZK_FP_BYTES], le[CZK_FP_BYTES], mb[CZK_FP_BYTES], buf[CZK_FP_BYTES];
    size_t nb = f->bytes;
    elt a, b, one1;
    ref_modulus(f, &m);
    ref_zero(&one);
    one.w[0] = 1;
    field_one(f, &one1);

    /* Known encodings: 1 is 00..01 big-endian, and the Montgomery bytes of 1 are R. */
    f->to_be(be, &one1);
    for (size_t i = 0; i + 1 < nb; i++)
        CHECK(be[i] == 0);
    CHECK(be[nb - 1] == 1);
    f->to_mont(mb, &one1);
    for (size_t i = 0; i < f->limbs; i++)
        for (size_t k = 0; k < 8; k++)
            CHECK(mb[8 * i + k] == (uint8_t)(f->one[i] >> (8 * k)));

    /* Rejected: m, m + 1, all-0xff, 2^(8·bytes - 1); accepted: m - 1. */
    ref_int bad[4];
    bad[0] = m;
    ref_add(&bad[1], &m, &one);
    ref_zero(&bad[2]);
    for (size_t i = 0; i < nb / 4; i++)
        bad[2].w[i] = 0xffffffffu;
    ref_zero(&bad[3]);
    bad[3].w[nb / 4 - 1] = 0x80000000u;
    for (int k = 0; k < 5; k++) {
        ref_int v;
        int want = CZK_ERANGE;
        if (k < 4) {
            v = bad[k];
        } else {
            ref_sub(&v, &m, &one);
            want = CZK_OK;
        }
        for (size_t i = 0; i < nb; i++) {
            uint8_t byte = (uint8_t)(v.w[i / 4] >> (8 * (i % 4)));
            le[i] = byte;
            be[nb - 1 - i] = byte;
        }
        CHECK_EQ_INT(f->from_le(&a, le), want);
        CHECK_EQ_INT(f->from_be(&a, be), want);
        CHECK_EQ_INT(f->from_mont(&a, le), want);
        uint64_t l[CZK_FP_LIMBS];
        ref_to_u64(l, &v, f->limbs);
        CHECK_EQ_INT(f->from_limbs(&a, l), want);
    }

    for (long it = 0; it < iters; it++) {
        CHECK_EQ_INT(sample(f, &t->rng, &a, &rv), CZK_OK);
        f->to_be(be, &a);
        f->to_le(le, &a);
        for (size_t i = 0; i < nb; i++) {
            CHECK(le[i] == (uint8_t)(rv.w[i / 4] >> (8 * (i % 4))));
            CHECK(be[nb - 1 - i] == le[i]);
        }
        CHECK_EQ_INT(f->from_be(&b, be), CZK_OK);
        CHECK(f->equal(&a, &b));
        CHECK_EQ_INT(f->from_le(&b, le), CZK_OK);
        CHECK(f->equal(&a, &b));
        /* Montgomery bytes: the raw value x decodes to the element x·R^(-1). */
        f->to_mont(mb, &a);
        CHECK_EQ_INT(f->from_mont(&b, mb), CZK_OK);
        CHECK(f->equal(&a, &b));
        memcpy(buf, le, nb);
        CHECK_EQ_INT(f->from_mont(&b, buf), CZK_OK);
        elt_to_ref(f, &rr, &b);
        ref_int rone, rx;
        ref_from_u64(&rone, f->one, f->limbs);
        ref_mulmod(&rx, &rr, &rone, &m);
        CHECKF(ref_cmp(&rx, &rv) == 0, "%s mont bytes decode", f->name);
        /* Random bytes: accepted exactly when below m. */
        czk_rng_bytes(&t->rng, buf, nb);
        if (it % 2)
            buf[nb - 1] &= (uint8_t)(0xff >> (8 * nb - f->bits));
        ref_zero(&rx);
        for (size_t i = 0; i < nb; i++)
            rx.w[i / 4] |= (uint32_t)buf[i] << (8 * (i % 4));
        int want = ref_cmp(&rx, &m) < 0 ? CZK_OK : CZK_ERANGE;
        CHECK_EQ_INT(f->from_le(&b, buf), want);
        CHECK_EQ_INT(f->from_mont(&b, buf), want);
    }
}

static void check_random(czk_test_ctx *t, const field *f) {
    ref_int m, rv;
    ref_modulus(f, &m);
    elt a, prev;
    int top_set = 0;
    memset(&prev, 0, sizeof(prev));
    for (int i = 0; i < 200; i++) {
        f->random(&a, &t->rng);
        ref_from_u64(&rv, a.l, f->limbs);
        CHECK(ref_cmp(&rv, &m) < 0);
        CHECK(!f->equal(&a, &prev));
        prev = a;
        top_set += ref_bit(&rv, (int)f->bits - 2);
    }
    CHECK(top_set > 20);
}

/*
 * Runs `stmt` once per arithmetic path of field f (run-time choice first, then forced
 * portable), stopping at the first failure and restoring the run-time choice after.
 */
#define FOR_EACH_PATH(f, stmt)                                                                     \
    do {                                                                                           \
        int czk__paths = path_count(f);                                                            \
        for (int czk__p = 0; czk__p < czk__paths && t->failures == 0; czk__p++) {                  \
            (f)->force_portable(czk__p == 1);                                                      \
            stmt;                                                                                  \
        }                                                                                          \
        (f)->force_portable(0);                                                                    \
    } while (0)

CZK_TEST(fp_constants) {
    FOR_EACH_PATH(&FP_FIELD, check_constants(t, &FP_FIELD));
}

CZK_TEST(fr_constants) {
    FOR_EACH_PATH(&FR_FIELD, check_constants(t, &FR_FIELD));
}

CZK_TEST(fp_arith_vs_ref) {
    FOR_EACH_PATH(&FP_FIELD, check_arith(t, &FP_FIELD, czk_test_iters(t, 10000)));
}

CZK_TEST(fr_arith_vs_ref) {
    FOR_EACH_PATH(&FR_FIELD, check_arith(t, &FR_FIELD, czk_test_iters(t, 10000)));
}

CZK_TEST(fp_pow_vs_ref) {
    FOR_EACH_PATH(&FP_FIELD, check_pow(t, &FP_FIELD, czk_test_iters(t, 40)));
}

CZK_TEST(fr_pow_vs_ref) {
    FOR_EACH_PATH(&FR_FIELD, check_pow(t, &FR_FIELD, czk_test_iters(t, 60)));
}

CZK_TEST(fp_inv) {
    FOR_EACH_PATH(&FP_FIELD, check_inv(t, &FP_FIELD, czk_test_iters(t, 3000)));
}

CZK_TEST(fr_inv) {
    FOR_EACH_PATH(&FR_FIELD, check_inv(t, &FR_FIELD, czk_test_iters(t, 3000)));
}

CZK_TEST(fp_batch_inv) {
    FOR_EACH_PATH(&FP_FIELD, check_batch_inv(t, &FP_FIELD));
}

CZK_TEST(fr_batch_inv) {
    FOR_EACH_PATH(&FR_FIELD, check_batch_inv(t, &FR_FIELD));
}

CZK_TEST(fp_sqrt) {
    FOR_EACH_PATH(&FP_FIELD, check_sqrt(t, &FP_FIELD, czk_test_iters(t, 300)));
}

CZK_TEST(fr_sqrt) {
    FOR_EACH_PATH(&FR_FIELD, check_sqrt(t, &FR_FIELD, czk_test_iters(t, 300)));
}

CZK_TEST(fp_bytes) {
    FOR_EACH_PATH(&FP_FIELD, check_bytes(t, &FP_FIELD, czk_test_iters(t, 1000)));
}

CZK_TEST(fr_bytes) {
    FOR_EACH_PATH(&FR_FIELD, check_bytes(t, &FR_FIELD, czk_test_iters(t, 1000)));
}

CZK_TEST(fp_random) {
    check_random(t, &FP_FIELD);
}

CZK_TEST(fr_random) {
    check_random(t, &FR_FIELD);
}

/* 1 when the little-endian limbs a are below r. */
static int fr_limbs_below_r(const uint64_t a[CZK_FR_LIMBS]) {
    for (int i = CZK_FR_LIMBS - 1; i >= 0; i--)
        if (a[i] != CZK_FR_MODULUS[i])
            return a[i] < CZK_FR_MODULUS[i];
    return 0;
}

/* OS draws: every one reduced (representation and value below r), none zero, all distinct, and
 * the top bits used (the 255-bit draws are not cut to fewer bits). */
CZK_TEST(fr_random_os) {
    enum { N = 512 };
    static czk_fr v[N];
    uint64_t top_or = 0;
    for (int i = 0; i < N; i++) {
        CHECK_EQ_INT(czk_fr_random_os(&v[i]), CZK_OK);
        uint64_t limbs[CZK_FR_LIMBS];
        czk_fr_to_limbs(limbs, &v[i]);
        CHECK(fr_limbs_below_r(v[i].l) && fr_limbs_below_r(limbs));
        CHECK(!czk_fr_is_zero(&v[i]));
        top_or |= v[i].l[CZK_FR_LIMBS - 1];
        for (int j = 0; j < i; j++)
            CHECKF(!czk_fr_equal(&v[i], &v[j]), "draws %d and %d are equal", j, i);
    }
    CHECK((top_or >> 62) == 1); /* bit 254 set somewhere, bit 255 never */
}

/* Fp-only: halving and the zcash sign rule, against the reference. */
static void check_fp_extras(czk_test_ctx *t, long iters) {
    const field *f = &FP_FIELD;
    ref_int m, one, half, ra, rc, rr;
    ref_modulus(f, &m);
    ref_zero(&one);
    one.w[0] = 1;
    ref_sub(&half, &m, &one);
    for (int i = 0; i < RW; i++)
        half.w[i] = (half.w[i] >> 1) | (i + 1 < RW ? half.w[i + 1] << 31 : 0);
    for (long it = 0; it < iters; it++) {
        elt a, c;
        CHECK_EQ_INT(sample(f, &t->rng, &a, &ra), CZK_OK);
        czk_fp_half(&c.fp, &a.fp);
        elt_to_ref(f, &rc, &c);
        ref_addmod(&rr, &rc, &rc, &m);
        CHECKF(ref_cmp(&rr, &ra) == 0, "half");
        CHECK_EQ_INT(czk_fp_is_lex_largest(&a.fp), ref_cmp(&ra, &half) > 0);
    }
}

CZK_TEST(fp_half_and_sign) {
    FOR_EACH_PATH(&FP_FIELD, check_fp_extras(t, czk_test_iters(t, 2000)));
}

/*
 * fp2.c feeds czk_fp_mul unreduced sums (below 2p) on purpose; both paths must still return
 * the fully reduced product. Adds p to the raw limbs of reduced operands to build them.
 */
static void check_fp_mul_unreduced(czk_test_ctx *t, long iters) {
    const field *f = &FP_FIELD;
    for (long it = 0; it < iters; it++) {
        elt a, b, a2, b2, want, got;
        ref_int ra, rg, m;
        CHECK_EQ_INT(sample(f, &t->rng, &a, &ra), CZK_OK);
        CHECK_EQ_INT(sample(f, &t->rng, &b, &ra), CZK_OK);
        if (it == 0) /* the largest allowed operand, 2p - 1 = p + (p - 1) */
            czk_fp_neg(&a.fp, &CZK_FP_ONE);
        a2 = a;
        b2 = b;
        uint64_t c = 0;
        for (int i = 0; i < CZK_FP_LIMBS; i++) {
            unsigned __int128 s = (unsigned __int128)a.l[i] + CZK_FP_MODULUS[i] + c;
            a2.l[i] = (uint64_t)s;
            c = (uint64_t)(s >> 64);
        }
        CHECK(c == 0);
        if (it % 2) {
            c = 0;
            for (int i = 0; i < CZK_FP_LIMBS; i++) {
                unsigned __int128 s = (unsigned __int128)b.l[i] + CZK_FP_MODULUS[i] + c;
                b2.l[i] = (uint64_t)s;
                c = (uint64_t)(s >> 64);
            }
        }
        czk_fp_mul(&want.fp, &a.fp, &b.fp);
        czk_fp_mul(&got.fp, &a2.fp, &b2.fp);
        CHECK(czk_fp_equal(&want.fp, &got.fp));
        czk_fp_mul(&got.fp, &b2.fp, &a2.fp);
        CHECK(czk_fp_equal(&want.fp, &got.fp));
        ref_modulus(f, &m);
        ref_from_u64(&rg, got.l, CZK_FP_LIMBS);
        CHECK(ref_cmp(&rg, &m) < 0);
    }
}

CZK_TEST(fp_mul_unreduced_inputs) {
    FOR_EACH_PATH(&FP_FIELD, check_fp_mul_unreduced(t, czk_test_iters(t, 20000)));
}

/* ---- Fp2 ----------------------------------------------------------------------------- */

static void fp2_schoolbook_mul(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
    czk_fp t0, t1, t2, t3;
    czk_fp_mul(&t0, &a->c0, &b->c0);
    czk_fp_mul(&t1, &a->c1, &b->c1);
    czk_fp_mul(&t2, &a->c0, &b->c1);
    czk_fp_mul(&t3, &a->c1, &b->c0);
    czk_fp_sub(&r->c0, &t0, &t1);
    czk_fp_add(&r->c1, &t2, &t3);
}

/* Elements with zero, one and edge coordinates mixed in. */
static void fp2_sample(czk_test_ctx *t, czk_fp2 *a) {
    elt x, y;
    ref_int r;
    sample(&FP_FIELD, &t->rng, &x, &r);
    sample(&FP_FIELD, &t->rng, &y, &r);
    a->c0 = x.fp;
    a->c1 = y.fp;
}

static void check_fp2(czk_test_ctx *t, long iters) {
    czk_fp2 a, b, c, d, e, one;
    czk_fp2_set_one(&one);
    CHECK(czk_fp2_is_one(&one));
    czk_fp2_set_zero(&a);
    CHECK(czk_fp2_is_zero(&a));
    czk_fp2_inv(&c, &a);
    CHECK(czk_fp2_is_zero(&c));
    czk_fp2_inv_var(&c, &a);
    CHECK(czk_fp2_is_zero(&c));
    CHECK(czk_fp2_sqrt(&c, &a));
    CHECK(czk_fp2_is_zero(&c));
    /* u^2 = -1. */
    czk_fp2 u;
    czk_fp_set_zero(&u.c0);
    czk_fp_set_one(&u.c1);
    czk_fp2_sqr(&c, &u);
    czk_fp2_neg(&d, &one);
    CHECK(czk_fp2_equal(&c, &d));
    /* -1 is a square in Fp2 (u), although not in Fp. */
    CHECK(czk_fp2_is_square(&d));
    CHECK(czk_fp2_sqrt(&c, &d));
    czk_fp2_sqr(&e, &c);
    CHECK(czk_fp2_equal(&e, &d));

    int squares = 0, nonsquares = 0;
    for (long it = 0; it < iters; it++) {
        fp2_sample(t, &a);
        fp2_sample(t, &b);
        czk_fp2_mul(&c, &a, &b);
        fp2_schoolbook_mul(&d, &a, &b);
        CHECK(czk_fp2_equal(&c, &d));
        czk_fp2_sqr(&c, &a);
        fp2_schoolbook_mul(&d, &a, &a);
        CHECK(czk_fp2_equal(&c, &d));
        /* Aliasing. */
        c = a;
        czk_fp2_mul(&c, &c, &b);
        fp2_schoolbook_mul(&d, &a, &b);
        CHECK(czk_fp2_equal(&c, &d));
        c = b;
        czk_fp2_mul(&c, &a, &c);
        CHECK(czk_fp2_equal(&c, &d));
        c = a;
        czk_fp2_sqr(&c, &c);
        fp2_schoolbook_mul(&d, &a, &a);
        CHECK(czk_fp2_equal(&c, &d));

        /* add/sub/neg/dbl against their definitions. */
        czk_fp2_add(&c, &a, &b);
        czk_fp2_sub(&c, &c, &b);
        CHECK(czk_fp2_equal(&c, &a));
        czk_fp2_neg(&c, &a);
        czk_fp2_add(&c, &c, &a);
        CHECK(czk_fp2_is_zero(&c));
        czk_fp2_dbl(&c, &a);
        czk_fp2_add(&d, &a, &a);
        CHECK(czk_fp2_equal(&c, &d));

        /* mul_fp and mul_by_nonresidue against the generic product. */
        czk_fp2 bf = {b.c0, CZK_FP_ZERO};
        czk_fp2_mul_fp(&c, &a, &b.c0);
        czk_fp2_mul(&d, &a, &bf);
        CHECK(czk_fp2_equal(&c, &d));
        czk_fp2 xi = {CZK_FP_ONE, CZK_FP_ONE};
        czk_fp2_mul_by_nonresidue(&c, &a);
        czk_fp2_mul(&d, &a, &xi);
        CHECK(czk_fp2_equal(&c, &d));
        c = a;
        czk_fp2_mul_by_nonresidue(&c, &c);
        CHECK(czk_fp2_equal(&c, &d));

        /* Inverse. */
        czk_fp2_inv(&c, &a);
        czk_fp2_inv_var(&d, &a);
        CHECK(czk_fp2_equal(&c, &d));
        czk_fp2_mul(&e, &c, &a);
        CHECK(czk_fp2_is_zero(&a) ? czk_fp2_is_zero(&e) : czk_fp2_is_one(&e));

        /* Frobenius: conjugation, an automorphism, of order 2. */
        czk_fp2_frobenius(&c, &a, 1);
        czk_fp2_conj(&d, &a);
        CHECK(czk_fp2_equal(&c, &d));
        czk_fp2_frobenius(&c, &c, 1);
        CHECK(czk_fp2_equal(&c, &a));
        czk_fp2_frobenius(&c, &a, 2);
        CHECK(czk_fp2_equal(&c, &a));
        czk_fp2_frobenius(&c, &a, 3);
        CHECK(czk_fp2_equal(&c, &d));
        czk_fp2 ab, fa, fb;
        czk_fp2_mul(&ab, &a, &b);
        czk_fp2_frobenius(&ab, &ab, 1);
        czk_fp2_frobenius(&fa, &a, 1);
        czk_fp2_frobenius(&fb, &b, 1);
        czk_fp2_mul(&fa, &fa, &fb);
        CHECK(czk_fp2_equal(&ab, &fa));

        /* Square roots: a^2 has root ±a; a itself agrees with is_square. */
        czk_fp2_sqr(&c, &a);
        CHECK(czk_fp2_sqrt(&d, &c));
        czk_fp2_neg(&e, &d);
        CHECK(czk_fp2_equal(&d, &a) || czk_fp2_equal(&e, &a));
        CHECK(czk_fp2_is_square(&c));
        int got = czk_fp2_sqrt(&d, &a);
        CHECK_EQ_INT(got, czk_fp2_is_square(&a));
        if (got) {
            czk_fp2_sqr(&e, &d);
            CHECK(czk_fp2_equal(&e, &a));
            squares++;
        } else {
            nonsquares++;
        }

        /* cmov. */
        c = a;
        czk_fp2_cmov(&c, &b, 0);
        CHECK(czk_fp2_equal(&c, &a));
        czk_fp2_cmov(&c, &b, 1);
        CHECK(czk_fp2_equal(&c, &b));

        /* Sign rule: exactly one of a, -a is "largest", unless a = 0. */
        czk_fp2_neg(&c, &a);
        int la = czk_fp2_is_lex_largest(&a), lc = czk_fp2_is_lex_largest(&c);
        CHECK(czk_fp2_is_zero(&a) ? (la == 0 && lc == 0) : (la + lc == 1));
        int want =
            czk_fp_is_zero(&a.c1) ? czk_fp_is_lex_largest(&a.c0) : czk_fp_is_lex_largest(&a.c1);
        CHECK_EQ_INT(la, want);
    }
    CHECK(iters < 64 || (squares > iters / 8 && nonsquares > iters / 8));

    /* pow against repeated multiplication for small exponents, and a^(p^2 - 1) = 1. */
    fp2_sample(t, &a);
    czk_fp2_set_one(&c);
    for (uint64_t k = 0; k < 40; k++) {
        czk_fp2_pow(&d, &a, &k, 1);
        CHECK(czk_fp2_equal(&c, &d));
        czk_fp2_mul(&c, &c, &a);
    }
    /* Frobenius as a power: a^p = conj(a). */
    czk_fp2_pow(&c, &a, CZK_FP_MODULUS, CZK_FP_LIMBS);
    czk_fp2_conj(&d, &a);
    CHECK(czk_fp2_equal(&c, &d));
    czk_fp2_random(&a, &t->rng);
    czk_fp2_random(&b, &t->rng);
    CHECK(!czk_fp2_equal(&a, &b));
}

CZK_TEST(fp2_arith) {
    FOR_EACH_PATH(&FP_FIELD, check_fp2(t, czk_test_iters(t, 1000)));
}
