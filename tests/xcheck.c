/*
 * czk_xcheck: recomputes @noble/curves vectors (tests/noble/gen.mjs) with czk.
 *
 * DESIGN
 * Each vector line is `<op> <args...> <expected...>` (the format is described at the top of
 * gen.mjs). An op's handler parses its arguments, runs every czk routine that should produce
 * the expected value (constant-time and _var variants, out-of-place and in-place, Jacobian,
 * mixed and XYZZ additions), re-encodes czk's results in the vector's encoding and compares
 * the text. Results are compared as encodings, so a report shows expected and got in the same
 * form as the file.
 *
 * The run fails on any mismatch, on any line that does not parse, when the file holds no
 * vectors, when an op kind of the table below is absent, or when the closing `end N` line is
 * missing or disagrees with the number of vectors read: a truncated or empty file cannot pass.
 *
 * Usage: czk_xcheck vectors.txt
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp12.h"
#include "field/fp2.h"
#include "field/fp6.h"
#include "field/fr.h"
#include "pairing/pairing.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"

#define XC_MAX_TOKENS 96
#define XC_MAX_BYTES 256 /* the longest encoding in a vector is 192 bytes */

typedef struct xc_line {
    long lineno;
    const char *op;
    int ntok; /* tokens after the op name */
    char *tok[XC_MAX_TOKENS];
    int failed;       /* a check on this line failed */
    int malformed;    /* an expected value is not well-formed hex of its width */
    const char *mode; /* "" or the arithmetic back end forced for this run, e.g. " (portable)" */
    czk_rng rng;      /* per-line randomness (projective rescaling), seeded by the line number */
} xc_line;

/* ------------------------------------------------------------------ reporting */

static void xc_report(xc_line *c, const char *what, const char *expected, const char *got) {
    c->failed = 1;
    printf("MISMATCH line %ld: %s [%s]%s\n  expected %s\n  got      %s\n", c->lineno, c->op, what,
           c->mode, expected, got);
}

static void xc_parse_error(xc_line *c, const char *what, int i) {
    printf("PARSE ERROR line %ld: %s: %s (token %d: '%.64s')\n", c->lineno, c->op, what, i,
           (i >= 0 && i < c->ntok) ? c->tok[i] : "");
}

static void hex_of(char *out, const uint8_t *b, size_t n) {
    static const char digits[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = digits[b[i] >> 4];
        out[2 * i + 1] = digits[b[i] & 15];
    }
    out[2 * n] = '\0';
}

/* 1 if expected token i is hex of exactly `chars` digits; else a parse error, and 0. */
static int expected_ok(xc_line *c, int i, size_t chars) {
    const char *t = c->tok[i];
    size_t k = 0;
    while (t[k] != '\0' && isxdigit((unsigned char)t[k]))
        k++;
    if (t[k] == '\0' && k == chars)
        return 1;
    xc_parse_error(c, "expected value is not hex of the right length", i);
    c->malformed = 1;
    return 0;
}

/* Compares got bytes with the expected hex token `i`. */
static void check_bytes(xc_line *c, const char *what, int i, const uint8_t *got, size_t n) {
    char h[2 * XC_MAX_BYTES + 1];
    if (n > XC_MAX_BYTES) {
        xc_report(c, what, c->tok[i], "(encoding longer than XC_MAX_BYTES)");
        return;
    }
    if (!expected_ok(c, i, 2 * n))
        return;
    hex_of(h, got, n);
    if (strcasecmp(h, c->tok[i]) != 0)
        xc_report(c, what, c->tok[i], h);
}

static void check_flag(xc_line *c, const char *what, int expected, int got) {
    if (expected != got) {
        char e[8], g[8];
        snprintf(e, sizeof e, "%d", expected);
        snprintf(g, sizeof g, "%d", got);
        xc_report(c, what, e, g);
    }
}

/* ------------------------------------------------------------------ parsing */

static int hex_digit(int ch) {
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    ch = tolower(ch);
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    return -1;
}

/* Token i as exactly n bytes of hex. Returns 0, or -1 after printing a parse error. */
static int parse_bytes(xc_line *c, int i, uint8_t *out, size_t n) {
    if (i >= c->ntok) {
        xc_parse_error(c, "missing token", i);
        return -1;
    }
    const char *s = c->tok[i];
    if (strlen(s) != 2 * n) {
        xc_parse_error(c, "wrong hex length", i);
        return -1;
    }
    for (size_t k = 0; k < n; k++) {
        int hi = hex_digit(s[2 * k]), lo = hex_digit(s[2 * k + 1]);
        if (hi < 0 || lo < 0) {
            xc_parse_error(c, "not hex", i);
            return -1;
        }
        out[k] = (uint8_t)(hi << 4 | lo);
    }
    return 0;
}

/* Token i as any whole number of hex bytes, at most `max`; *n receives the count. */
static int parse_var_bytes(xc_line *c, int i, uint8_t *out, size_t max, size_t *n) {
    if (i >= c->ntok) {
        xc_parse_error(c, "missing token", i);
        return -1;
    }
    size_t len = strlen(c->tok[i]);
    if (len == 0 || len % 2 != 0 || len / 2 > max) {
        xc_parse_error(c, "bad hex length", i);
        return -1;
    }
    *n = len / 2;
    return parse_bytes(c, i, out, *n);
}

/* Token i as a big-endian exponent, into little-endian limbs. */
static int parse_exp(xc_line *c, int i, uint64_t *limbs, size_t max_limbs, size_t *nlimbs) {
    uint8_t b[64];
    size_t n;
    if (max_limbs * 8 > sizeof b || parse_var_bytes(c, i, b, max_limbs * 8, &n) != 0)
        return -1;
    *nlimbs = (n + 7) / 8;
    memset(limbs, 0, *nlimbs * sizeof *limbs);
    for (size_t k = 0; k < n; k++)
        limbs[k / 8] |= (uint64_t)b[n - 1 - k] << (8 * (k % 8));
    return 0;
}

/* Token i as a small decimal number in [0, max]. */
static int parse_uint(xc_line *c, int i, unsigned max, unsigned *out) {
    if (i >= c->ntok) {
        xc_parse_error(c, "missing token", i);
        return -1;
    }
    char *end;
    errno = 0;
    unsigned long v = strtoul(c->tok[i], &end, 10);
    if (errno != 0 || *end != '\0' || end == c->tok[i] || v > max) {
        xc_parse_error(c, "bad number", i);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

static int parse_flag(xc_line *c, int i, int *out) {
    unsigned v;
    if (parse_uint(c, i, 1, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

static int parse_fp(xc_line *c, int i, czk_fp *r) {
    uint8_t b[CZK_FP_BYTES];
    if (parse_bytes(c, i, b, sizeof b) != 0)
        return -1;
    if (czk_fp_from_bytes_be(r, b) != CZK_OK) {
        xc_parse_error(c, "Fp value not below q", i);
        return -1;
    }
    return 0;
}

static int parse_fr(xc_line *c, int i, czk_fr *r) {
    uint8_t b[CZK_FR_BYTES];
    if (parse_bytes(c, i, b, sizeof b) != 0)
        return -1;
    if (czk_fr_from_bytes_be(r, b) != CZK_OK) {
        xc_parse_error(c, "Fr value not below r", i);
        return -1;
    }
    return 0;
}

static int parse_fp2(xc_line *c, int i, czk_fp2 *r) {
    return parse_fp(c, i, &r->c0) || parse_fp(c, i + 1, &r->c1) ? -1 : 0;
}

static int parse_fp6(xc_line *c, int i, czk_fp6 *r) {
    return parse_fp2(c, i, &r->c0) || parse_fp2(c, i + 2, &r->c1) || parse_fp2(c, i + 4, &r->c2)
               ? -1
               : 0;
}

static int parse_fp12(xc_line *c, int i, czk_fp12 *r) {
    return parse_fp6(c, i, &r->c0) || parse_fp6(c, i + 6, &r->c1) ? -1 : 0;
}

/* ------------------------------------------------------------------ field comparisons */

/* Canonical big-endian hex of `n` consecutive Fp values, space-separated. */
static void fps_hex(char *out, const czk_fp *v, size_t n) {
    for (size_t k = 0; k < n; k++) {
        uint8_t b[CZK_FP_BYTES];
        czk_fp_to_bytes_be(b, &v[k]);
        if (k > 0)
            *out++ = ' ';
        hex_of(out, b, sizeof b);
        out += 2 * sizeof b;
    }
}

/* Compares n Fp values (an Fp, Fp2, Fp6 or Fp12 laid out in tower order) with tokens i.. */
static void check_fps(xc_line *c, const char *what, int i, const czk_fp *got, size_t n) {
    enum { W = 2 * CZK_FP_BYTES + 1 }; /* one value and a separator */
    char e[12 * W + 1], g[12 * W + 1];
    int same = 1;
    size_t pe = 0;
    for (size_t k = 0; k < n; k++)
        if (!expected_ok(c, i + (int)k, W - 1))
            return;
    for (size_t k = 0; k < n; k++) {
        const char *t = c->tok[i + (int)k];
        uint8_t b[CZK_FP_BYTES];
        char h[W];
        czk_fp_to_bytes_be(b, &got[k]);
        hex_of(h, b, sizeof b);
        same &= strcasecmp(h, t) == 0;
        pe += (size_t)snprintf(e + pe, sizeof e - pe, "%s%s", k ? " " : "", t);
    }
    if (same)
        return;
    fps_hex(g, got, n);
    xc_report(c, what, e, g);
}

/*
 * The tower types are plain structs of czk_fp (fp2.h, fp6.h, fp12.h), so their coefficients
 * can be walked as an array in tower order.
 */
_Static_assert(sizeof(czk_fp2) == 2 * sizeof(czk_fp), "czk_fp2 is two czk_fp");
_Static_assert(sizeof(czk_fp6) == 6 * sizeof(czk_fp), "czk_fp6 is six czk_fp");
_Static_assert(sizeof(czk_fp12) == 12 * sizeof(czk_fp), "czk_fp12 is twelve czk_fp");

static void check_fp(xc_line *c, const char *what, int i, const czk_fp *got) {
    check_fps(c, what, i, got, 1);
}

static void check_fp2(xc_line *c, const char *what, int i, const czk_fp2 *got) {
    check_fps(c, what, i, &got->c0, 2);
}

static void check_fp6(xc_line *c, const char *what, int i, const czk_fp6 *got) {
    check_fps(c, what, i, &got->c0.c0, 6);
}

static void check_fp12(xc_line *c, const char *what, int i, const czk_fp12 *got) {
    check_fps(c, what, i, &got->c0.c0.c0, 12);
}

static void check_fr(xc_line *c, const char *what, int i, const czk_fr *got) {
    uint8_t b[CZK_FR_BYTES];
    czk_fr_to_bytes_be(b, got);
    check_bytes(c, what, i, b, sizeof b);
}

/* ------------------------------------------------------------------ Fp and Fr */

/*
 * Binary and unary ops are checked out of place and in place (r aliasing the first operand),
 * since every field function promises to accept aliased arguments.
 */
#define XC_FIELD_BINARY(name, T, W, parse, check, fn)                                              \
    static int name(xc_line *c) {                                                                  \
        T a, b, r;                                                                                 \
        if (parse(c, 0, &a) || parse(c, W, &b))                                                    \
            return -1;                                                                             \
        fn(&r, &a, &b);                                                                            \
        check(c, #fn, 2 * W, &r);                                                                  \
        fn(&a, &a, &b);                                                                            \
        check(c, #fn " in place", 2 * W, &a);                                                      \
        return 0;                                                                                  \
    }

#define XC_FIELD_UNARY(name, T, W, parse, check, fn)                                               \
    static int name(xc_line *c) {                                                                  \
        T a, r;                                                                                    \
        if (parse(c, 0, &a))                                                                       \
            return -1;                                                                             \
        fn(&r, &a);                                                                                \
        check(c, #fn, W, &r);                                                                      \
        fn(&a, &a);                                                                                \
        check(c, #fn " in place", W, &a);                                                          \
        return 0;                                                                                  \
    }

XC_FIELD_BINARY(op_fp_add, czk_fp, 1, parse_fp, check_fp, czk_fp_add)
XC_FIELD_BINARY(op_fp_sub, czk_fp, 1, parse_fp, check_fp, czk_fp_sub)
XC_FIELD_BINARY(op_fp_mul, czk_fp, 1, parse_fp, check_fp, czk_fp_mul)
XC_FIELD_UNARY(op_fp_sqr, czk_fp, 1, parse_fp, check_fp, czk_fp_sqr)
XC_FIELD_UNARY(op_fp_neg, czk_fp, 1, parse_fp, check_fp, czk_fp_neg)

XC_FIELD_BINARY(op_fr_add, czk_fr, 1, parse_fr, check_fr, czk_fr_add)
XC_FIELD_BINARY(op_fr_sub, czk_fr, 1, parse_fr, check_fr, czk_fr_sub)
XC_FIELD_BINARY(op_fr_mul, czk_fr, 1, parse_fr, check_fr, czk_fr_mul)
XC_FIELD_UNARY(op_fr_sqr, czk_fr, 1, parse_fr, check_fr, czk_fr_sqr)
XC_FIELD_UNARY(op_fr_neg, czk_fr, 1, parse_fr, check_fr, czk_fr_neg)

XC_FIELD_BINARY(op_fp2_add, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_add)
XC_FIELD_BINARY(op_fp2_sub, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_sub)
XC_FIELD_BINARY(op_fp2_mul, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_mul)
XC_FIELD_UNARY(op_fp2_sqr, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_sqr)
XC_FIELD_UNARY(op_fp2_neg, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_neg)
XC_FIELD_UNARY(op_fp2_conj, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_conj)
XC_FIELD_UNARY(op_fp2_mulnr, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_mul_by_nonresidue)

XC_FIELD_BINARY(op_fp6_mul, czk_fp6, 6, parse_fp6, check_fp6, czk_fp6_mul)
XC_FIELD_UNARY(op_fp6_sqr, czk_fp6, 6, parse_fp6, check_fp6, czk_fp6_sqr)
XC_FIELD_UNARY(op_fp6_mulnr, czk_fp6, 6, parse_fp6, check_fp6, czk_fp6_mul_by_nonresidue)

XC_FIELD_BINARY(op_fp12_mul, czk_fp12, 12, parse_fp12, check_fp12, czk_fp12_mul)
XC_FIELD_UNARY(op_fp12_sqr, czk_fp12, 12, parse_fp12, check_fp12, czk_fp12_sqr)
XC_FIELD_UNARY(op_fp12_conj, czk_fp12, 12, parse_fp12, check_fp12, czk_fp12_conj)
XC_FIELD_UNARY(op_fp12_cyclo_sqr, czk_fp12, 12, parse_fp12, check_fp12, czk_fp12_cyclotomic_sqr)

/* Inversion: the constant-time and the variable-time routine must agree with noble. */
#define XC_FIELD_INV(name, T, W, parse, check, fn, fn_var)                                         \
    static int name(xc_line *c) {                                                                  \
        T a, r;                                                                                    \
        if (parse(c, 0, &a))                                                                       \
            return -1;                                                                             \
        fn(&r, &a);                                                                                \
        check(c, #fn, W, &r);                                                                      \
        fn_var(&r, &a);                                                                            \
        check(c, #fn_var, W, &r);                                                                  \
        fn(&a, &a);                                                                                \
        check(c, #fn " in place", W, &a);                                                          \
        return 0;                                                                                  \
    }

XC_FIELD_INV(op_fp_inv, czk_fp, 1, parse_fp, check_fp, czk_fp_inv, czk_fp_inv_var)
XC_FIELD_INV(op_fr_inv, czk_fr, 1, parse_fr, check_fr, czk_fr_inv, czk_fr_inv_var)
XC_FIELD_INV(op_fp2_inv, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_inv, czk_fp2_inv_var)

static int op_fp6_inv(xc_line *c) {
    czk_fp6 a, r;
    if (parse_fp6(c, 0, &a))
        return -1;
    czk_fp6_inv(&r, &a);
    check_fp6(c, "czk_fp6_inv", 6, &r);
    return 0;
}

static int op_fp12_inv(xc_line *c) {
    czk_fp12 a, r;
    if (parse_fp12(c, 0, &a))
        return -1;
    czk_fp12_inv(&r, &a);
    check_fp12(c, "czk_fp12_inv", 12, &r);
    return 0;
}

/*
 * Square roots: the flag must agree with noble, and a root must square back and be noble's
 * root or its negative (which root is returned is unspecified).
 */
#define XC_FIELD_SQRT(name, T, W, parse, check, is_square, sqrt, sqr, neg, equal)                  \
    static int name(xc_line *c) {                                                                  \
        T a, root, s, t;                                                                           \
        int flag;                                                                                  \
        if (parse(c, 0, &a) || parse_flag(c, W, &flag) || parse(c, W + 1, &root))                  \
            return -1;                                                                             \
        check_flag(c, #is_square, flag, is_square(&a));                                            \
        int ok = sqrt(&s, &a);                                                                     \
        check_flag(c, #sqrt " return", flag, ok);                                                  \
        if (flag && ok) {                                                                          \
            sqr(&t, &s);                                                                           \
            check(c, #sqrt " squared back", 0, &t);                                                \
            neg(&t, &s);                                                                           \
            if (!equal(&s, &root) && !equal(&t, &root))                                            \
                check(c, #sqrt " root (either sign)", W + 1, &s);                                  \
        }                                                                                          \
        return 0;                                                                                  \
    }

XC_FIELD_SQRT(op_fp_sqrt, czk_fp, 1, parse_fp, check_fp, czk_fp_is_square, czk_fp_sqrt, czk_fp_sqr,
              czk_fp_neg, czk_fp_equal)
XC_FIELD_SQRT(op_fr_sqrt, czk_fr, 1, parse_fr, check_fr, czk_fr_is_square, czk_fr_sqrt, czk_fr_sqr,
              czk_fr_neg, czk_fr_equal)
XC_FIELD_SQRT(op_fp2_sqrt, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_is_square, czk_fp2_sqrt,
              czk_fp2_sqr, czk_fp2_neg, czk_fp2_equal)

/* a^e for an exponent of up to 512 bits. */
#define XC_FIELD_POW(name, T, W, parse, check, fn)                                                 \
    static int name(xc_line *c) {                                                                  \
        T a, r;                                                                                    \
        uint64_t e[8];                                                                             \
        size_t n;                                                                                  \
        if (parse(c, 0, &a) || parse_exp(c, W, e, 8, &n))                                          \
            return -1;                                                                             \
        fn(&r, &a, e, n);                                                                          \
        check(c, #fn, W + 1, &r);                                                                  \
        return 0;                                                                                  \
    }

XC_FIELD_POW(op_fp_pow, czk_fp, 1, parse_fp, check_fp, czk_fp_pow)
XC_FIELD_POW(op_fr_pow, czk_fr, 1, parse_fr, check_fr, czk_fr_pow)
XC_FIELD_POW(op_fp2_pow, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_pow)
XC_FIELD_POW(op_fp12_pow, czk_fp12, 12, parse_fp12, check_fp12, czk_fp12_pow_var)

/* Frobenius a^(q^k), with k in the vector. */
#define XC_FIELD_FROB(name, T, W, parse, check, fn)                                                \
    static int name(xc_line *c) {                                                                  \
        T a, r;                                                                                    \
        unsigned k;                                                                                \
        if (parse(c, 0, &a) || parse_uint(c, W, 11, &k))                                           \
            return -1;                                                                             \
        fn(&r, &a, k);                                                                             \
        check(c, #fn, W + 1, &r);                                                                  \
        fn(&a, &a, k);                                                                             \
        check(c, #fn " in place", W + 1, &a);                                                      \
        return 0;                                                                                  \
    }

XC_FIELD_FROB(op_fp2_frob, czk_fp2, 2, parse_fp2, check_fp2, czk_fp2_frobenius)
XC_FIELD_FROB(op_fp6_frob, czk_fp6, 6, parse_fp6, check_fp6, czk_fp6_frobenius)
XC_FIELD_FROB(op_fp12_frob, czk_fp12, 12, parse_fp12, check_fp12, czk_fp12_frobenius)

static int op_fp2_mul_fp(xc_line *c) {
    czk_fp2 a, r;
    czk_fp b;
    if (parse_fp2(c, 0, &a) || parse_fp(c, 2, &b))
        return -1;
    czk_fp2_mul_fp(&r, &a, &b);
    check_fp2(c, "czk_fp2_mul_fp", 3, &r);
    return 0;
}

static int op_fp6_mul01(xc_line *c) {
    czk_fp6 a, r;
    czk_fp2 b0, b1;
    if (parse_fp6(c, 0, &a) || parse_fp2(c, 6, &b0) || parse_fp2(c, 8, &b1))
        return -1;
    czk_fp6_mul_by_01(&r, &a, &b0, &b1);
    check_fp6(c, "czk_fp6_mul_by_01", 10, &r);
    czk_fp6_mul_by_01(&a, &a, &b0, &b1);
    check_fp6(c, "czk_fp6_mul_by_01 in place", 10, &a);
    return 0;
}

static int op_fp6_mul1(xc_line *c) {
    czk_fp6 a, r;
    czk_fp2 b1;
    if (parse_fp6(c, 0, &a) || parse_fp2(c, 6, &b1))
        return -1;
    czk_fp6_mul_by_1(&r, &a, &b1);
    check_fp6(c, "czk_fp6_mul_by_1", 8, &r);
    czk_fp6_mul_by_1(&a, &a, &b1);
    check_fp6(c, "czk_fp6_mul_by_1 in place", 8, &a);
    return 0;
}

static int op_fp6_mul_fp2(xc_line *c) {
    czk_fp6 a, r;
    czk_fp2 b;
    if (parse_fp6(c, 0, &a) || parse_fp2(c, 6, &b))
        return -1;
    czk_fp6_mul_by_fp2(&r, &a, &b);
    check_fp6(c, "czk_fp6_mul_by_fp2", 8, &r);
    return 0;
}

static int op_fp12_mul_014(xc_line *c) {
    czk_fp12 a, r;
    czk_fp2 b0, b1, b4;
    if (parse_fp12(c, 0, &a) || parse_fp2(c, 12, &b0) || parse_fp2(c, 14, &b1) ||
        parse_fp2(c, 16, &b4))
        return -1;
    czk_fp12_mul_by_014(&r, &a, &b0, &b1, &b4);
    check_fp12(c, "czk_fp12_mul_by_014", 18, &r);
    czk_fp12_mul_by_014(&a, &a, &b0, &b1, &b4);
    check_fp12(c, "czk_fp12_mul_by_014 in place", 18, &a);
    return 0;
}

/* ------------------------------------------------------------------ G1 and G2 */

/* Expected decoder status for a `*_bad` kind (the order of checks is in g1.h). */
static int bad_kind_code(const char *kind, int *code) {
    static const struct {
        const char *kind;
        int code;
    } kinds[] = {
        {"flags", CZK_EFLAGS},         {"infinity", CZK_EFLAGS},        {"zero", CZK_ENOTONCURVE},
        {"range", CZK_ERANGE},         {"notoncurve", CZK_ENOTONCURVE}, {"nosqrt", CZK_ENOSQRT},
        {"subgroup", CZK_ENOTINGROUP},
    };
    for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
        if (strcmp(kinds[k].kind, kind) == 0) {
            *code = kinds[k].code;
            return 0;
        }
    }
    return -1;
}

static void check_status(xc_line *c, const char *what, int expected, int got) {
    if (expected != got)
        xc_report(c, what, czk_status_name(expected), czk_status_name(got));
}

static void fp_random_nonzero(czk_fp *r, czk_rng *rng) {
    do
        czk_fp_random(r, rng);
    while (czk_fp_is_zero(r));
}

static void fp2_random_nonzero(czk_fp2 *r, czk_rng *rng) {
    do
        czk_fp2_random(r, rng);
    while (czk_fp2_is_zero(r));
}

/*
 * Everything below is written once for both groups: XC_GROUP(g1, G1, fp) and
 * XC_GROUP(g2, G2, fp2) expand to the helpers and op handlers of each. Projective inputs are
 * rescaled by a random l (X = x·l^2, Y = y·l^3, Z = l; ZZ = l^2, ZZZ = l^3), so that the
 * formulas run with Z != 1 as they do inside scalar multiplications and MSMs.
 */
#define XC_GROUP(G, GU, FE)                                                                        \
    /* Token i as an uncompressed point: 0, 1 when czk rejects it (reported), -1 parse error. */   \
    static int G##_decode(xc_line *c, int i, czk_##G##_affine *p, int checked) {                   \
        uint8_t b[CZK_##GU##_UNCOMPRESSED_BYTES];                                                  \
        if (parse_bytes(c, i, b, sizeof b) != 0)                                                   \
            return -1;                                                                             \
        int rc = checked ? czk_##G##_affine_deserialize(p, b)                                      \
                         : czk_##G##_affine_deserialize_unchecked(p, b);                           \
        if (rc != CZK_OK) {                                                                        \
            check_status(c, "czk_" #G "_affine_deserialize of noble's encoding", CZK_OK, rc);      \
            return 1;                                                                              \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    static void G##_check_affine(xc_line *c, const char *what, int i,                              \
                                 const czk_##G##_affine *got) {                                    \
        uint8_t b[CZK_##GU##_UNCOMPRESSED_BYTES];                                                  \
        czk_##G##_affine_serialize(b, got);                                                        \
        check_bytes(c, what, i, b, sizeof b);                                                      \
    }                                                                                              \
                                                                                                   \
    static void G##_check_jac(xc_line *c, const char *what, int i,                                 \
                              const czk_##G##_jacobian *got) {                                     \
        czk_##G##_affine a;                                                                        \
        czk_##G##_jacobian_to_affine(&a, got);                                                     \
        G##_check_affine(c, what, i, &a);                                                          \
    }                                                                                              \
                                                                                                   \
    static void G##_check_xyzz(xc_line *c, const char *what, int i, const czk_##G##_xyzz *got) {   \
        czk_##G##_affine a;                                                                        \
        czk_##G##_xyzz_to_affine(&a, got);                                                         \
        G##_check_affine(c, what, i, &a);                                                          \
    }                                                                                              \
                                                                                                   \
    static void G##_scaled_jac(xc_line *c, czk_##G##_jacobian *r, const czk_##G##_affine *p) {     \
        czk_##G##_jacobian_from_affine(r, p);                                                      \
        if (czk_##G##_affine_is_infinity(p))                                                       \
            return;                                                                                \
        czk_##FE l, l2, l3;                                                                        \
        FE##_random_nonzero(&l, &c->rng);                                                          \
        czk_##FE##_sqr(&l2, &l);                                                                   \
        czk_##FE##_mul(&l3, &l2, &l);                                                              \
        czk_##FE##_mul(&r->x, &p->x, &l2);                                                         \
        czk_##FE##_mul(&r->y, &p->y, &l3);                                                         \
        r->z = l;                                                                                  \
    }                                                                                              \
                                                                                                   \
    static void G##_scaled_xyzz(xc_line *c, czk_##G##_xyzz *r, const czk_##G##_affine *p) {        \
        czk_##G##_xyzz_from_affine(r, p);                                                          \
        if (czk_##G##_affine_is_infinity(p))                                                       \
            return;                                                                                \
        czk_##FE l;                                                                                \
        FE##_random_nonzero(&l, &c->rng);                                                          \
        czk_##FE##_sqr(&r->zz, &l);                                                                \
        czk_##FE##_mul(&r->zzz, &r->zz, &l);                                                       \
        czk_##FE##_mul(&r->x, &p->x, &r->zz);                                                      \
        czk_##FE##_mul(&r->y, &p->y, &r->zzz);                                                     \
    }                                                                                              \
                                                                                                   \
    /* Membership predicates for a point noble accepts. */                                         \
    static void G##_check_valid(xc_line *c, const czk_##G##_affine *p) {                           \
        check_flag(c, "czk_" #G "_affine_is_on_curve", 1, czk_##G##_affine_is_on_curve(p));        \
        check_flag(c, "czk_" #G "_affine_is_in_group", 1, czk_##G##_affine_is_in_group(p));        \
    }                                                                                              \
                                                                                                   \
    /* <gen> <uncompressed> <compressed>: the generator's encodings. */                            \
    static int op_##G##_gen(xc_line *c) {                                                          \
        uint8_t b[CZK_##GU##_COMPRESSED_BYTES];                                                    \
        G##_check_affine(c, "czk_" #G "_affine_serialize(GENERATOR)", 0, &CZK_##GU##_GENERATOR);   \
        czk_##G##_affine_compress(b, &CZK_##GU##_GENERATOR);                                       \
        check_bytes(c, "czk_" #G "_affine_compress(GENERATOR)", 1, b, sizeof b);                   \
        G##_check_valid(c, &CZK_##GU##_GENERATOR);                                                 \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <uncompressed> <compressed>: both codecs, both ways, checked and unchecked. */              \
    static int op_##G##_enc(xc_line *c) {                                                          \
        czk_##G##_affine p, q;                                                                     \
        uint8_t b[CZK_##GU##_COMPRESSED_BYTES];                                                    \
        int rc = G##_decode(c, 0, &p, 1);                                                          \
        if (rc != 0)                                                                               \
            return rc < 0 ? -1 : 0;                                                                \
        if (parse_bytes(c, 1, b, sizeof b) != 0)                                                   \
            return -1;                                                                             \
        G##_check_affine(c, "czk_" #G "_affine_serialize", 0, &p);                                 \
        czk_##G##_affine_compress(b, &p);                                                          \
        check_bytes(c, "czk_" #G "_affine_compress", 1, b, sizeof b);                              \
        parse_bytes(c, 1, b, sizeof b);                                                            \
        rc = czk_##G##_affine_uncompress(&q, b);                                                   \
        check_status(c, "czk_" #G "_affine_uncompress of noble's encoding", CZK_OK, rc);           \
        if (rc == CZK_OK)                                                                          \
            G##_check_affine(c, "czk_" #G "_affine_uncompress", 0, &q);                            \
        rc = czk_##G##_affine_uncompress_unchecked(&q, b);                                         \
        check_status(c, "czk_" #G "_affine_uncompress_unchecked", CZK_OK, rc);                     \
        if (rc == CZK_OK)                                                                          \
            G##_check_affine(c, "czk_" #G "_affine_uncompress_unchecked", 0, &q);                  \
        if (G##_decode(c, 0, &q, 0) == 0)                                                          \
            check_flag(c, "czk_" #G "_affine_deserialize_unchecked", 1,                            \
                       czk_##G##_affine_equal(&p, &q));                                            \
        G##_check_valid(c, &p);                                                                    \
        check_flag(c, "czk_" #G "_affine_is_in_group_slow", 1,                                     \
                   czk_##G##_affine_is_in_group_slow(&p));                                         \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <uncompressed> <snarkjs LEM>: to_snarkjs and from_snarkjs (checked and unchecked). */       \
    static int op_##G##_snarkjs(xc_line *c) {                                                      \
        czk_##G##_affine p, q;                                                                     \
        uint8_t b[CZK_##GU##_SNARKJS_BYTES];                                                       \
        int rc = G##_decode(c, 0, &p, 1);                                                          \
        if (rc != 0)                                                                               \
            return rc < 0 ? -1 : 0;                                                                \
        if (parse_bytes(c, 1, b, sizeof b) != 0)                                                   \
            return -1;                                                                             \
        czk_##G##_affine_to_snarkjs(b, &p);                                                        \
        check_bytes(c, "czk_" #G "_affine_to_snarkjs", 1, b, sizeof b);                            \
        parse_bytes(c, 1, b, sizeof b);                                                            \
        rc = czk_##G##_affine_from_snarkjs(&q, b);                                                 \
        check_status(c, "czk_" #G "_affine_from_snarkjs", CZK_OK, rc);                             \
        if (rc == CZK_OK)                                                                          \
            G##_check_affine(c, "czk_" #G "_affine_from_snarkjs", 0, &q);                          \
        rc = czk_##G##_affine_from_snarkjs_unchecked(&q, b);                                       \
        check_status(c, "czk_" #G "_affine_from_snarkjs_unchecked", CZK_OK, rc);                   \
        if (rc == CZK_OK)                                                                          \
            G##_check_affine(c, "czk_" #G "_affine_from_snarkjs_unchecked", 0, &q);                \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <k> <[k]G>: both scalar multiplications from the generator. */                              \
    static int op_##G##_mulgen(xc_line *c) {                                                       \
        czk_fr k;                                                                                  \
        czk_##G##_jacobian j, r;                                                                   \
        if (parse_fr(c, 0, &k) != 0)                                                               \
            return -1;                                                                             \
        czk_##G##_jacobian_from_affine(&j, &CZK_##GU##_GENERATOR);                                 \
        czk_##G##_jacobian_mul_var(&r, &j, &k);                                                    \
        G##_check_jac(c, "czk_" #G "_jacobian_mul_var", 1, &r);                                    \
        czk_##G##_jacobian_mul(&r, &j, &k);                                                        \
        G##_check_jac(c, "czk_" #G "_jacobian_mul", 1, &r);                                        \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <p> <k> <[k]p>, p in the group: mul_var, mul and mul_limbs_var, in and out of place. */     \
    static int op_##G##_mul(xc_line *c) {                                                          \
        czk_##G##_affine p;                                                                        \
        czk_##G##_jacobian j, r;                                                                   \
        czk_fr k;                                                                                  \
        uint64_t limbs[4];                                                                         \
        size_t n;                                                                                  \
        int rc = G##_decode(c, 0, &p, 1);                                                          \
        if (rc != 0)                                                                               \
            return rc < 0 ? -1 : 0;                                                                \
        if (parse_fr(c, 1, &k) != 0 || parse_exp(c, 1, limbs, 4, &n) != 0)                         \
            return -1;                                                                             \
        G##_scaled_jac(c, &j, &p);                                                                 \
        czk_##G##_jacobian_mul_var(&r, &j, &k);                                                    \
        G##_check_jac(c, "czk_" #G "_jacobian_mul_var", 2, &r);                                    \
        czk_##G##_jacobian_mul(&r, &j, &k);                                                        \
        G##_check_jac(c, "czk_" #G "_jacobian_mul", 2, &r);                                        \
        rc = czk_##G##_jacobian_mul_limbs_var(&r, &j, limbs, n);                                   \
        check_status(c, "czk_" #G "_jacobian_mul_limbs_var return", CZK_OK, rc);                   \
        G##_check_jac(c, "czk_" #G "_jacobian_mul_limbs_var", 2, &r);                              \
        r = j;                                                                                     \
        czk_##G##_jacobian_mul_var(&r, &r, &k);                                                    \
        G##_check_jac(c, "czk_" #G "_jacobian_mul_var in place", 2, &r);                           \
        r = j;                                                                                     \
        czk_##G##_jacobian_mul(&r, &r, &k);                                                        \
        G##_check_jac(c, "czk_" #G "_jacobian_mul in place", 2, &r);                               \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <p> <k> <[k]p>, p anywhere on the curve, k any 256-bit integer. */                          \
    static int op_##G##_mul_any(xc_line *c) {                                                      \
        czk_##G##_affine p;                                                                        \
        czk_##G##_jacobian j, r;                                                                   \
        uint8_t kb[CZK_FR_BYTES];                                                                  \
        uint64_t limbs[4];                                                                         \
        size_t n;                                                                                  \
        czk_fr k;                                                                                  \
        int rc = G##_decode(c, 0, &p, 0);                                                          \
        if (rc != 0)                                                                               \
            return rc < 0 ? -1 : 0;                                                                \
        if (parse_bytes(c, 1, kb, sizeof kb) != 0 || parse_exp(c, 1, limbs, 4, &n) != 0)           \
            return -1;                                                                             \
        G##_scaled_jac(c, &j, &p);                                                                 \
        rc = czk_##G##_jacobian_mul_limbs_var(&r, &j, limbs, n);                                   \
        check_status(c, "czk_" #G "_jacobian_mul_limbs_var return", CZK_OK, rc);                   \
        G##_check_jac(c, "czk_" #G "_jacobian_mul_limbs_var", 2, &r);                              \
        /* The constant-time ladder takes any curve point, for k < r. */                           \
        if (czk_fr_from_bytes_be(&k, kb) == CZK_OK) {                                              \
            czk_##G##_jacobian_mul(&r, &j, &k);                                                    \
            G##_check_jac(c, "czk_" #G "_jacobian_mul", 2, &r);                                    \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <p> <cofactor-cleared p>, p anywhere on the curve. */                                       \
    static int op_##G##_clear_cofactor(xc_line *c) {                                               \
        czk_##G##_affine p;                                                                        \
        czk_##G##_jacobian j, r;                                                                   \
        int rc = G##_decode(c, 0, &p, 0);                                                          \
        if (rc != 0)                                                                               \
            return rc < 0 ? -1 : 0;                                                                \
        G##_scaled_jac(c, &j, &p);                                                                 \
        czk_##G##_jacobian_clear_cofactor_var(&r, &j);                                             \
        G##_check_jac(c, "czk_" #G "_jacobian_clear_cofactor_var", 1, &r);                         \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /*                                                                                             \
     * <p> <q> <p + q>: every addition formula (complete constant-time and _var; Jacobian,         \
     * mixed and XYZZ), in and out of place, then the batch affine conversion of the results.      \
     */                                                                                            \
    static int op_##G##_add(xc_line *c) {                                                          \
        czk_##G##_affine a, b, e;                                                                  \
        czk_##G##_jacobian ja, jb, jr[6], je;                                                      \
        czk_##G##_xyzz xa, xb, xr;                                                                 \
        int rc = G##_decode(c, 0, &a, 1);                                                          \
        if (rc == 0)                                                                               \
            rc = G##_decode(c, 1, &b, 1);                                                          \
        if (rc == 0)                                                                               \
            rc = G##_decode(c, 2, &e, 1);                                                          \
        if (rc != 0)                                                                               \
            return rc < 0 ? -1 : 0;                                                                \
        G##_scaled_jac(c, &ja, &a);                                                                \
        G##_scaled_jac(c, &jb, &b);                                                                \
        czk_##G##_jacobian_add(&jr[0], &ja, &jb);                                                  \
        G##_check_jac(c, "czk_" #G "_jacobian_add", 2, &jr[0]);                                    \
        czk_##G##_jacobian_add_var(&jr[1], &ja, &jb);                                              \
        G##_check_jac(c, "czk_" #G "_jacobian_add_var", 2, &jr[1]);                                \
        czk_##G##_jacobian_add_affine(&jr[2], &ja, &b);                                            \
        G##_check_jac(c, "czk_" #G "_jacobian_add_affine", 2, &jr[2]);                             \
        czk_##G##_jacobian_add_affine_var(&jr[3], &ja, &b);                                        \
        G##_check_jac(c, "czk_" #G "_jacobian_add_affine_var", 2, &jr[3]);                         \
        jr[4] = ja;                                                                                \
        czk_##G##_jacobian_add(&jr[4], &jr[4], &jb);                                               \
        G##_check_jac(c, "czk_" #G "_jacobian_add in place", 2, &jr[4]);                           \
        czk_##G##_jacobian_from_affine(&ja, &a);                                                   \
        czk_##G##_jacobian_from_affine(&jb, &b);                                                   \
        czk_##G##_jacobian_add(&jr[5], &ja, &jb);                                                  \
        G##_check_jac(c, "czk_" #G "_jacobian_add (Z = 1)", 2, &jr[5]);                            \
        G##_scaled_jac(c, &je, &e);                                                                \
        check_flag(c, "czk_" #G "_jacobian_equal", 1, czk_##G##_jacobian_equal(&jr[0], &je));      \
        check_flag(c, "czk_" #G "_jacobian_is_infinity", czk_##G##_affine_is_infinity(&e),         \
                   czk_##G##_jacobian_is_infinity(&jr[0]));                                        \
        czk_##G##_affine out[6];                                                                   \
        rc = czk_##G##s_to_affine(out, jr, 6);                                                     \
        check_status(c, "czk_" #G "s_to_affine return", CZK_OK, rc);                               \
        for (int k = 0; k < 6 && rc == CZK_OK; k++)                                                \
            G##_check_affine(c, "czk_" #G "s_to_affine", 2, &out[k]);                              \
        G##_scaled_xyzz(c, &xa, &a);                                                               \
        G##_scaled_xyzz(c, &xb, &b);                                                               \
        czk_##G##_xyzz_add(&xr, &xa, &xb);                                                         \
        G##_check_xyzz(c, "czk_" #G "_xyzz_add", 2, &xr);                                          \
        czk_##G##_xyzz_add_var(&xr, &xa, &xb);                                                     \
        G##_check_xyzz(c, "czk_" #G "_xyzz_add_var", 2, &xr);                                      \
        czk_##G##_xyzz_add_affine(&xr, &xa, &b);                                                   \
        G##_check_xyzz(c, "czk_" #G "_xyzz_add_affine", 2, &xr);                                   \
        czk_##G##_xyzz_add_affine_var(&xr, &xa, &b);                                               \
        G##_check_xyzz(c, "czk_" #G "_xyzz_add_affine_var", 2, &xr);                               \
        czk_##G##_xyzz_add(&xa, &xa, &xb);                                                         \
        G##_check_xyzz(c, "czk_" #G "_xyzz_add in place", 2, &xa);                                 \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <p> <2p>: Jacobian and XYZZ doubling, in and out of place. */                               \
    static int op_##G##_dbl(xc_line *c) {                                                          \
        czk_##G##_affine a;                                                                        \
        czk_##G##_jacobian ja, jr;                                                                 \
        czk_##G##_xyzz xa, xr;                                                                     \
        int rc = G##_decode(c, 0, &a, 1);                                                          \
        if (rc != 0)                                                                               \
            return rc < 0 ? -1 : 0;                                                                \
        G##_scaled_jac(c, &ja, &a);                                                                \
        czk_##G##_jacobian_dbl(&jr, &ja);                                                          \
        G##_check_jac(c, "czk_" #G "_jacobian_dbl", 1, &jr);                                       \
        czk_##G##_jacobian_dbl(&ja, &ja);                                                          \
        G##_check_jac(c, "czk_" #G "_jacobian_dbl in place", 1, &ja);                              \
        G##_scaled_xyzz(c, &xa, &a);                                                               \
        czk_##G##_xyzz_dbl(&xr, &xa);                                                              \
        G##_check_xyzz(c, "czk_" #G "_xyzz_dbl", 1, &xr);                                          \
        czk_##G##_xyzz_dbl(&xa, &xa);                                                              \
        G##_check_xyzz(c, "czk_" #G "_xyzz_dbl in place", 1, &xa);                                 \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <p> <-p>: affine, Jacobian and XYZZ negation. */                                            \
    static int op_##G##_neg(xc_line *c) {                                                          \
        czk_##G##_affine a, r;                                                                     \
        czk_##G##_jacobian ja;                                                                     \
        czk_##G##_xyzz xa;                                                                         \
        int rc = G##_decode(c, 0, &a, 1);                                                          \
        if (rc != 0)                                                                               \
            return rc < 0 ? -1 : 0;                                                                \
        czk_##G##_affine_neg(&r, &a);                                                              \
        G##_check_affine(c, "czk_" #G "_affine_neg", 1, &r);                                       \
        G##_scaled_jac(c, &ja, &a);                                                                \
        czk_##G##_jacobian_neg(&ja, &ja);                                                          \
        G##_check_jac(c, "czk_" #G "_jacobian_neg", 1, &ja);                                       \
        G##_scaled_xyzz(c, &xa, &a);                                                               \
        czk_##G##_xyzz_neg(&xa, &xa);                                                              \
        G##_check_xyzz(c, "czk_" #G "_xyzz_neg", 1, &xa);                                          \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /*                                                                                             \
     * <kind> <bytes> that noble rejects: czk must reject them with the code of `kind`; the        \
     * _unchecked decoder gives the same code, except that it accepts points outside the group.    \
     */                                                                                            \
    static int op_##G##_bad(xc_line *c) {                                                          \
        uint8_t b[CZK_##GU##_UNCOMPRESSED_BYTES];                                                  \
        size_t n;                                                                                  \
        int want, rc, rcu;                                                                         \
        czk_##G##_affine p;                                                                        \
        if (bad_kind_code(c->tok[0], &want) != 0) {                                                \
            xc_parse_error(c, "unknown kind", 0);                                                  \
            return -1;                                                                             \
        }                                                                                          \
        if (parse_var_bytes(c, 1, b, sizeof b, &n) != 0)                                           \
            return -1;                                                                             \
        if (n == CZK_##GU##_UNCOMPRESSED_BYTES) {                                                  \
            rc = czk_##G##_affine_deserialize(&p, b);                                              \
            check_status(c, "czk_" #G "_affine_deserialize", want, rc);                            \
            rcu = czk_##G##_affine_deserialize_unchecked(&p, b);                                   \
        } else if (n == CZK_##GU##_COMPRESSED_BYTES) {                                             \
            rc = czk_##G##_affine_uncompress(&p, b);                                               \
            check_status(c, "czk_" #G "_affine_uncompress", want, rc);                             \
            rcu = czk_##G##_affine_uncompress_unchecked(&p, b);                                    \
        } else {                                                                                   \
            xc_parse_error(c, "neither encoding's length", 1);                                     \
            return -1;                                                                             \
        }                                                                                          \
        if (want != CZK_ENOTINGROUP) {                                                             \
            check_status(c, "czk_" #G " unchecked decoder", want, rcu);                            \
        } else {                                                                                   \
            check_status(c, "czk_" #G " unchecked decoder", CZK_OK, rcu);                          \
            if (rcu == CZK_OK) {                                                                   \
                check_flag(c, "czk_" #G "_affine_is_on_curve", 1,                                  \
                           czk_##G##_affine_is_on_curve(&p));                                      \
                check_flag(c, "czk_" #G "_affine_is_in_group", 0,                                  \
                           czk_##G##_affine_is_in_group(&p));                                      \
                check_flag(c, "czk_" #G "_affine_is_in_group_slow", 0,                             \
                           czk_##G##_affine_is_in_group_slow(&p));                                 \
            }                                                                                      \
        }                                                                                          \
        return 0;                                                                                  \
    }                                                                                              \
                                                                                                   \
    /* <kind> <snarkjs bytes>: as op_*_bad, for the snarkjs decoders. */                           \
    static int op_##G##_snarkjs_bad(xc_line *c) {                                                  \
        uint8_t b[CZK_##GU##_SNARKJS_BYTES];                                                       \
        int want;                                                                                  \
        czk_##G##_affine p;                                                                        \
        if (bad_kind_code(c->tok[0], &want) != 0) {                                                \
            xc_parse_error(c, "unknown kind", 0);                                                  \
            return -1;                                                                             \
        }                                                                                          \
        if (parse_bytes(c, 1, b, sizeof b) != 0)                                                   \
            return -1;                                                                             \
        check_status(c, "czk_" #G "_affine_from_snarkjs", want,                                    \
                     czk_##G##_affine_from_snarkjs(&p, b));                                        \
        int rcu = czk_##G##_affine_from_snarkjs_unchecked(&p, b);                                  \
        check_status(c, "czk_" #G "_affine_from_snarkjs_unchecked",                                \
                     want == CZK_ENOTINGROUP ? CZK_OK : want, rcu);                                \
        return 0;                                                                                  \
    }

XC_GROUP(g1, G1, fp)
XC_GROUP(g2, G2, fp2)

/* <p> <psi(p)>, p anywhere on E'. */
static int op_g2_psi(xc_line *c) {
    czk_g2_affine p, r;
    czk_g2_jacobian j;
    int rc = g2_decode(c, 0, &p, 0);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    czk_g2_affine_psi(&r, &p);
    g2_check_affine(c, "czk_g2_affine_psi", 1, &r);
    g2_scaled_jac(c, &j, &p);
    czk_g2_jacobian_psi(&j, &j);
    g2_check_jac(c, "czk_g2_jacobian_psi", 1, &j);
    return 0;
}

/* ------------------------------------------------------------------ pairings */

#define XC_MAX_PAIRS 8

/* Pairs of points from tokens first.. (G1, G2 alternating). */
static int parse_pairs(xc_line *c, int first, size_t n, czk_g1_affine *ps, czk_g2_affine *qs) {
    for (size_t k = 0; k < n; k++) {
        int rc = g1_decode(c, first + 2 * (int)k, &ps[k], 1);
        if (rc == 0)
            rc = g2_decode(c, first + 2 * (int)k + 1, &qs[k], 1);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* Reads the pair count of a variable-length line and checks the token count. */
static int parse_pair_count(xc_line *c, int extra, size_t *n) {
    unsigned v;
    if (parse_uint(c, 0, XC_MAX_PAIRS, &v) != 0)
        return -1;
    if (c->ntok != 1 + 2 * (int)v + extra) {
        xc_parse_error(c, "token count does not match the pair count", 0);
        return -1;
    }
    *n = v;
    return 0;
}

/* The prepared forms are 20 KiB each: keep them off the stack. */
static czk_pairing_g2_prepared xc_prepared[XC_MAX_PAIRS];

/* <P> <Q> <e(P, Q)>: czk_pairing and the Miller loop plus final exponentiation. */
static int op_pair(xc_line *c) {
    czk_g1_affine p;
    czk_g2_affine q;
    czk_fp12 f, m;
    int rc = parse_pairs(c, 0, 1, &p, &q);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    czk_pairing(&f, &p, &q);
    check_fp12(c, "czk_pairing", 2, &f);
    czk_pairing_g2_prepare(&xc_prepared[0], &q);
    czk_pairing_miller_loop(&m, &p, xc_prepared, 1);
    czk_pairing_final_exp(&f, &m);
    check_fp12(c, "czk_pairing_miller_loop + czk_pairing_final_exp", 2, &f);
    return 0;
}

/* <n> (<P> <Q>)*n <1 if the product of the pairings is 1, else 0>. */
static int op_pair_check(xc_line *c) {
    czk_g1_affine ps[XC_MAX_PAIRS];
    czk_g2_affine qs[XC_MAX_PAIRS];
    size_t n;
    int want;
    if (parse_pair_count(c, 1, &n) != 0 || parse_flag(c, 1 + 2 * (int)n, &want) != 0)
        return -1;
    int rc = parse_pairs(c, 1, n, ps, qs);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    for (size_t k = 0; k < n; k++)
        czk_pairing_g2_prepare(&xc_prepared[k], &qs[k]);
    check_flag(c, "czk_pairing_check", want, czk_pairing_check(ps, xc_prepared, n));
    return 0;
}

/* <n> (<P> <Q>)*n <prod e(P, Q)>: the multi-Miller loop, and the product of single pairings. */
static int op_pair_prod(xc_line *c) {
    czk_g1_affine ps[XC_MAX_PAIRS];
    czk_g2_affine qs[XC_MAX_PAIRS];
    czk_fp12 f, m;
    size_t n;
    if (parse_pair_count(c, 12, &n) != 0)
        return -1;
    int rc = parse_pairs(c, 1, n, ps, qs);
    if (rc != 0)
        return rc < 0 ? -1 : 0;
    int out = 1 + 2 * (int)n;
    for (size_t k = 0; k < n; k++)
        czk_pairing_g2_prepare(&xc_prepared[k], &qs[k]);
    czk_pairing_miller_loop(&m, ps, xc_prepared, n);
    czk_pairing_final_exp(&f, &m);
    check_fp12(c, "czk_pairing_miller_loop of n pairs + czk_pairing_final_exp", out, &f);
    czk_fp12_set_one(&f);
    for (size_t k = 0; k < n; k++) {
        czk_pairing(&m, &ps[k], &qs[k]);
        czk_fp12_mul(&f, &f, &m);
    }
    check_fp12(c, "product of czk_pairing", out, &f);
    return 0;
}

static int op_fp12_final_exp(xc_line *c) {
    czk_fp12 a, r;
    if (parse_fp12(c, 0, &a))
        return -1;
    czk_pairing_final_exp(&r, &a);
    check_fp12(c, "czk_pairing_final_exp", 12, &r);
    return 0;
}

/* ------------------------------------------------------------------ the op table */

typedef struct xc_op {
    const char *name;
    int ntok;               /* tokens after the name; -1 when the handler checks the count */
    int (*run)(xc_line *c); /* 0, or -1 on a parse error (already printed) */
    long count, failed;
} xc_op;

static xc_op xc_ops[] = {
    {"fp_add", 3, op_fp_add, 0, 0},
    {"fp_sub", 3, op_fp_sub, 0, 0},
    {"fp_mul", 3, op_fp_mul, 0, 0},
    {"fp_sqr", 2, op_fp_sqr, 0, 0},
    {"fp_neg", 2, op_fp_neg, 0, 0},
    {"fp_inv", 2, op_fp_inv, 0, 0},
    {"fp_sqrt", 3, op_fp_sqrt, 0, 0},
    {"fp_pow", 3, op_fp_pow, 0, 0},
    {"fr_add", 3, op_fr_add, 0, 0},
    {"fr_sub", 3, op_fr_sub, 0, 0},
    {"fr_mul", 3, op_fr_mul, 0, 0},
    {"fr_sqr", 2, op_fr_sqr, 0, 0},
    {"fr_neg", 2, op_fr_neg, 0, 0},
    {"fr_inv", 2, op_fr_inv, 0, 0},
    {"fr_sqrt", 3, op_fr_sqrt, 0, 0},
    {"fr_pow", 3, op_fr_pow, 0, 0},
    {"fp2_add", 6, op_fp2_add, 0, 0},
    {"fp2_sub", 6, op_fp2_sub, 0, 0},
    {"fp2_mul", 6, op_fp2_mul, 0, 0},
    {"fp2_sqr", 4, op_fp2_sqr, 0, 0},
    {"fp2_neg", 4, op_fp2_neg, 0, 0},
    {"fp2_inv", 4, op_fp2_inv, 0, 0},
    {"fp2_conj", 4, op_fp2_conj, 0, 0},
    {"fp2_mulnr", 4, op_fp2_mulnr, 0, 0},
    {"fp2_mul_fp", 5, op_fp2_mul_fp, 0, 0},
    {"fp2_sqrt", 5, op_fp2_sqrt, 0, 0},
    {"fp2_pow", 5, op_fp2_pow, 0, 0},
    {"fp2_frob", 5, op_fp2_frob, 0, 0},
    {"fp6_mul", 18, op_fp6_mul, 0, 0},
    {"fp6_sqr", 12, op_fp6_sqr, 0, 0},
    {"fp6_inv", 12, op_fp6_inv, 0, 0},
    {"fp6_mulnr", 12, op_fp6_mulnr, 0, 0},
    {"fp6_frob", 13, op_fp6_frob, 0, 0},
    {"fp6_mul01", 16, op_fp6_mul01, 0, 0},
    {"fp6_mul1", 14, op_fp6_mul1, 0, 0},
    {"fp6_mul_fp2", 14, op_fp6_mul_fp2, 0, 0},
    {"fp12_mul", 36, op_fp12_mul, 0, 0},
    {"fp12_sqr", 24, op_fp12_sqr, 0, 0},
    {"fp12_inv", 24, op_fp12_inv, 0, 0},
    {"fp12_conj", 24, op_fp12_conj, 0, 0},
    {"fp12_frob", 25, op_fp12_frob, 0, 0},
    {"fp12_mul_014", 30, op_fp12_mul_014, 0, 0},
    {"fp12_pow", 25, op_fp12_pow, 0, 0},
    {"fp12_cyclo_sqr", 24, op_fp12_cyclo_sqr, 0, 0},
    {"fp12_final_exp", 24, op_fp12_final_exp, 0, 0},
    {"g1_gen", 2, op_g1_gen, 0, 0},
    {"g1_enc", 2, op_g1_enc, 0, 0},
    {"g1_snarkjs", 2, op_g1_snarkjs, 0, 0},
    {"g1_mulgen", 2, op_g1_mulgen, 0, 0},
    {"g1_mul", 3, op_g1_mul, 0, 0},
    {"g1_mul_any", 3, op_g1_mul_any, 0, 0},
    {"g1_clear_cofactor", 2, op_g1_clear_cofactor, 0, 0},
    {"g1_add", 3, op_g1_add, 0, 0},
    {"g1_dbl", 2, op_g1_dbl, 0, 0},
    {"g1_neg", 2, op_g1_neg, 0, 0},
    {"g1_bad", 2, op_g1_bad, 0, 0},
    {"g1_snarkjs_bad", 2, op_g1_snarkjs_bad, 0, 0},
    {"g2_gen", 2, op_g2_gen, 0, 0},
    {"g2_enc", 2, op_g2_enc, 0, 0},
    {"g2_snarkjs", 2, op_g2_snarkjs, 0, 0},
    {"g2_mulgen", 2, op_g2_mulgen, 0, 0},
    {"g2_mul", 3, op_g2_mul, 0, 0},
    {"g2_mul_any", 3, op_g2_mul_any, 0, 0},
    {"g2_clear_cofactor", 2, op_g2_clear_cofactor, 0, 0},
    {"g2_add", 3, op_g2_add, 0, 0},
    {"g2_dbl", 2, op_g2_dbl, 0, 0},
    {"g2_neg", 2, op_g2_neg, 0, 0},
    {"g2_bad", 2, op_g2_bad, 0, 0},
    {"g2_snarkjs_bad", 2, op_g2_snarkjs_bad, 0, 0},
    {"g2_psi", 2, op_g2_psi, 0, 0},
    {"pair", 14, op_pair, 0, 0},
    {"pair_check", -1, op_pair_check, 0, 0},
    {"pair_prod", -1, op_pair_prod, 0, 0},
};

#define XC_NOPS (sizeof xc_ops / sizeof xc_ops[0])

static xc_op *find_op(const char *name) {
    for (size_t k = 0; k < XC_NOPS; k++)
        if (strcmp(xc_ops[k].name, name) == 0)
            return &xc_ops[k];
    return NULL;
}

/* ------------------------------------------------------------------ main */

/*
 * Runs one vector: once with the arithmetic czk selected at start-up and, when that is the
 * x86-64 MULX/ADX code, again with the portable C arithmetic forced, so that both back ends
 * meet noble. Returns 0, 1 on a mismatch, -1 on a parse error.
 */
static int run_line(xc_op *op, xc_line *c, int adx) {
    static const char *const modes[] = {"", " (portable C arithmetic)"};
    int failed = 0;
    for (int pass = 0; pass < (adx ? 2 : 1); pass++) {
        czk__fp_force_portable(pass);
        czk__fr_force_portable(pass);
        c->mode = modes[pass];
        c->failed = 0;
        czk_rng_seed(&c->rng, (uint64_t)c->lineno);
        int rc = op->run(c);
        czk__fp_force_portable(0);
        czk__fr_force_portable(0);
        if (rc != 0 || c->malformed)
            return -1;
        failed |= c->failed;
    }
    return failed;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: czk_xcheck vectors.txt\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "r");
    if (f == NULL) {
        fprintf(stderr, "czk_xcheck: cannot open %s: %s\n", argv[1], strerror(errno));
        return 2;
    }
    uint64_t t0 = czk_time_ns();
    int adx = czk__fp_uses_adx() || czk__fr_uses_adx();
    printf("czk_xcheck: %s; field arithmetic: %s\n", argv[1],
           adx ? "MULX/ADX and portable C, each vector twice" : "portable C");
    char *buf = NULL;
    size_t cap = 0;
    ssize_t len;
    long lineno = 0, vectors = 0, mismatches = 0, parse_errors = 0, end_count = -1;
    long end_line = 0;
    xc_line c;
    while ((len = getline(&buf, &cap, f)) != -1) {
        lineno++;
        while (len > 0 && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
            buf[--len] = '\0';
        if (len == 0 || buf[0] == '#')
            continue;
        memset(&c, 0, sizeof c);
        c.lineno = lineno;
        char *save = NULL;
        c.op = strtok_r(buf, " \t", &save);
        if (c.op == NULL)
            continue;
        int too_many = 0;
        for (char *t; (t = strtok_r(NULL, " \t", &save)) != NULL;) {
            if (c.ntok == XC_MAX_TOKENS) {
                too_many = 1;
                break;
            }
            c.tok[c.ntok++] = t;
        }
        if (end_count >= 0) {
            printf("PARSE ERROR line %ld: vectors after the end line (line %ld)\n", lineno,
                   end_line);
            parse_errors++;
            continue;
        }
        if (strcmp(c.op, "end") == 0) {
            char *e = NULL;
            end_count = c.ntok == 1 ? strtol(c.tok[0], &e, 10) : -1;
            end_line = lineno;
            if (c.ntok != 1 || *e != '\0' || end_count < 0) {
                printf("PARSE ERROR line %ld: malformed end line\n", lineno);
                parse_errors++;
                end_count = 0;
            }
            continue;
        }
        xc_op *op = find_op(c.op);
        if (op == NULL) {
            printf("PARSE ERROR line %ld: unknown op '%.64s'\n", lineno, c.op);
            parse_errors++;
            continue;
        }
        vectors++;
        op->count++;
        if (too_many || (op->ntok >= 0 && c.ntok != op->ntok)) {
            printf("PARSE ERROR line %ld: %s: %d tokens after the op, expected %d\n", lineno, c.op,
                   c.ntok, op->ntok);
            parse_errors++;
            op->failed++;
            continue;
        }
        int rc = run_line(op, &c, adx);
        if (rc < 0) {
            parse_errors++;
            op->failed++;
        } else if (rc > 0) {
            mismatches++;
            op->failed++;
        }
    }
    free(buf);
    if (ferror(f)) {
        printf("READ ERROR: %s\n", argv[1]);
        parse_errors++;
    }
    fclose(f);

    int missing = 0;
    printf("\n%-18s %8s %8s\n", "op", "vectors", "failed");
    for (size_t k = 0; k < XC_NOPS; k++) {
        printf("%-18s %8ld %8ld%s\n", xc_ops[k].name, xc_ops[k].count, xc_ops[k].failed,
               xc_ops[k].count == 0 ? "  MISSING" : "");
        missing += xc_ops[k].count == 0;
    }
    printf("%-18s %8ld %8ld\n", "total", vectors, mismatches + parse_errors);
    double secs = (double)(czk_time_ns() - t0) / 1e9;

    int ok = 1;
    if (vectors == 0) {
        printf("FAIL: %s holds no vectors\n", argv[1]);
        ok = 0;
    }
    if (missing) {
        printf("FAIL: %d op kinds have no vectors\n", missing);
        ok = 0;
    }
    if (end_count < 0) {
        printf("FAIL: no end line; the vector file is truncated\n");
        ok = 0;
    } else if (end_count != vectors) {
        printf("FAIL: the end line says %ld vectors, the file holds %ld\n", end_count, vectors);
        ok = 0;
    }
    if (mismatches || parse_errors) {
        printf("FAIL: %ld mismatching vectors, %ld parse errors\n", mismatches, parse_errors);
        ok = 0;
    }
    printf("%s: %ld vectors from %s in %.2f s\n", ok ? "PASS" : "FAIL", vectors, argv[1], secs);
    return ok ? 0 : 1;
}
