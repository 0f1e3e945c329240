/*
 * Tests for the circom/snarkjs readers and writers (binfile, circom, zkey, snarkjs_json).
 *
 * The fixtures in tests/data/snarkjs were made once by circom2 and snarkjs (the README there
 * lists the commands); nothing here runs node. The checks are independent of the code under
 * test where it matters: the witness is checked against the R1CS row by row here, the
 * snarkjs proof is verified with a multi-pairing written here, the written JSON is compared
 * value for value with what snarkjs wrote, and a zkey we write is compared section by section
 * with snarkjs's bytes. Malformed inputs are made by editing the fixtures with a container
 * parser local to this file; every one must fail with a message naming the file, leak no
 * counted memory, and (under ASan) never touch memory it should not.
 */
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp12.h"
#include "field/fr.h"
#include "formats/binfile.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "pairing/pairing.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/status.h"

#include <dirent.h>
#include <json-c/json.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- fixtures and scratch files --------------------------------------------------------- */

static void data_path(char *out, size_t n, const char *name) {
    czk_test_data_path(out, n, "snarkjs", name);
}

static uint8_t *slurp_data(const char *name, size_t *len) {
    char p[512];
    data_path(p, sizeof(p), name);
    return czk_test_read_file(p, len);
}

/* ---- a container parser of our own, to edit fixtures ------------------------------------- */

typedef struct tsec {
    uint32_t type;
    uint8_t *data;
    size_t size;
} tsec;

typedef struct tbin {
    uint8_t head[8]; /* magic and version */
    size_t n;
    tsec s[24];
} tbin;

static uint32_t le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put32(uint8_t *p, uint32_t v) {
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

/* Parses a trusted fixture (no checks beyond not running off the end). */
static int tbin_load(tbin *b, const uint8_t *d, size_t len) {
    memset(b, 0, sizeof(*b));
    if (len < 12)
        return -1;
    memcpy(b->head, d, 8);
    size_t n = le32(d + 8), pos = 12;
    if (n > 24)
        return -1;
    for (size_t i = 0; i < n; i++) {
        if (len - pos < 12)
            return -1;
        uint64_t size = (uint64_t)le32(d + pos + 4) | (uint64_t)le32(d + pos + 8) << 32;
        b->s[i].type = le32(d + pos);
        pos += 12;
        if (size > len - pos)
            return -1;
        b->s[i].size = (size_t)size;
        b->s[i].data = malloc(size > 0 ? size : 1);
        memcpy(b->s[i].data, d + pos, size);
        pos += size;
        b->n++;
    }
    return 0;
}

static void tbin_free(tbin *b) {
    for (size_t i = 0; i < b->n; i++)
        free(b->s[i].data);
    memset(b, 0, sizeof(*b));
}

static tsec *tbin_find(tbin *b, uint32_t type) {
    for (size_t i = 0; i < b->n; i++)
        if (b->s[i].type == type)
            return &b->s[i];
    return NULL;
}

/* Replaces section `type`'s payload with a copy of data[0..size). */
static void tbin_set(tbin *b, uint32_t type, const uint8_t *data, size_t size) {
    tsec *s = tbin_find(b, type);
    if (s == NULL)
        return;
    uint8_t *copy = malloc(size > 0 ? size : 1);
    memcpy(copy, data, size);
    free(s->data);
    s->data = copy;
    s->size = size;
}

static void tbin_remove(tbin *b, uint32_t type) {
    for (size_t i = 0; i < b->n; i++) {
        if (b->s[i].type == type) {
            free(b->s[i].data);
            memmove(&b->s[i], &b->s[i + 1], (b->n - i - 1) * sizeof(tsec));
            b->n--;
            return;
        }
    }
}

/* Appends a copy of section `type` (a duplicate). */
static void tbin_dup(tbin *b, uint32_t type) {
    tsec *s = tbin_find(b, type);
    if (s == NULL || b->n >= 24)
        return;
    tsec *d = &b->s[b->n++];
    d->type = s->type;
    d->size = s->size;
    d->data = malloc(s->size > 0 ? s->size : 1);
    memcpy(d->data, s->data, s->size);
}

static int tbin_save(const tbin *b, const char *path) {
    size_t len = 12;
    for (size_t i = 0; i < b->n; i++)
        len += 12 + b->s[i].size;
    uint8_t *out = malloc(len), *p = out;
    memcpy(p, b->head, 8);
    put32(p + 8, (uint32_t)b->n);
    p += 12;
    for (size_t i = 0; i < b->n; i++) {
        put32(p, b->s[i].type);
        put64(p + 4, b->s[i].size);
        p += 12;
        memcpy(p, b->s[i].data, b->s[i].size);
        p += b->s[i].size;
    }
    int rc = czk_test_write_file(path, out, len);
    free(out);
    return rc;
}

/* ---- readers behind one signature, for the corruption loops ------------------------------ */

typedef int (*reader_fn)(const char *path, czk_err *err);

static int rd_r1cs(const char *path, czk_err *err) {
    czk_r1cs cs;
    int rc = czk_circom_r1cs_read(&cs, path, err);
    czk_r1cs_clear(&cs);
    return rc;
}

static int rd_wtns(const char *path, czk_err *err) {
    czk_fr *w;
    size_t n;
    int rc = czk_circom_wtns_read(&w, &n, path, err);
    czk_free(w);
    return rc;
}

static int rd_zkey(const char *path, czk_err *err) {
    czk_groth16_pk pk;
    czk_r1cs ab;
    int rc = czk_zkey_read(&pk, &ab, path, err);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&ab);
    return rc;
}

static int rd_proof(const char *path, czk_err *err) {
    czk_groth16_proof p;
    return czk_snarkjs_proof_read(&p, path, err);
}

static int rd_public(const char *path, czk_err *err) {
    czk_fr *x;
    size_t n;
    int rc = czk_snarkjs_public_read(&x, &n, path, err);
    czk_free(x);
    return rc;
}

static int rd_vk(const char *path, czk_err *err) {
    czk_groth16_vk vk;
    int rc = czk_snarkjs_vk_read(&vk, path, err);
    czk_groth16_vk_clear(&vk);
    return rc;
}

/* 1 if sub is NULL or occurs in msg (a function, so that literals compare without warnings). */
static int msg_has(const char *msg, const char *sub) {
    return sub == NULL || strstr(msg, sub) != NULL;
}

/*
 * The reader must fail (with `want` when it is not 0), name the file in its message and
 * release every counted byte it took. `substr`, when not NULL, must appear in the message.
 */
#define CHECK_FAILS(fn, path, want, substr)                                                        \
    do {                                                                                           \
        czk_err e_ = {0};                                                                          \
        size_t before_ = czk_alloc_in_use();                                                       \
        int rc_ = fn((path), &e_);                                                                 \
        CHECKF(rc_ < 0 && ((want) == 0 || rc_ == (want)), "%s(%s): rc %d (%s), expected %d", #fn,  \
               (path), rc_, e_.msg, (want));                                                       \
        CHECKF(e_.code == rc_, "%s: err.code %d != rc %d", #fn, e_.code, rc_);                     \
        CHECKF(strstr(e_.msg, (path)) != NULL, "%s: message does not name the file: %s", #fn,      \
               e_.msg);                                                                            \
        CHECKF(msg_has(e_.msg, (substr)), "%s: message lacks \"%s\": %s", #fn,                     \
               (substr) != NULL ? (const char *)(substr) : "", e_.msg);                            \
        CHECKF(czk_alloc_in_use() == before_, "%s leaked %zu counted bytes", #fn,                  \
               czk_alloc_in_use() - before_);                                                      \
    } while (0)

/* Reader either succeeds or fails naming the file; no counted leak either way. */
#define CHECK_NO_CRASH(fn, path)                                                                   \
    do {                                                                                           \
        czk_err e_ = {0};                                                                          \
        size_t before_ = czk_alloc_in_use();                                                       \
        int rc_ = fn((path), &e_);                                                                 \
        CHECKF(rc_ == CZK_OK || strstr(e_.msg, (path)) != NULL,                                    \
               "%s: rc %d, message does not name the file: %s", #fn, rc_, e_.msg);                 \
        CHECKF(czk_alloc_in_use() == before_, "%s leaked %zu counted bytes", #fn,                  \
               czk_alloc_in_use() - before_);                                                      \
    } while (0)

/* ---- small algebra helpers ---------------------------------------------------------------- */

static void row_dot(czk_fr *out, const czk_r1cs_matrix *m, size_t row, const czk_fr *w) {
    czk_fr_set_zero(out);
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        czk_fr t;
        czk_fr_mul(&t, &m->vals[k], &w[m->cols[k]]);
        czk_fr_add(out, out, &t);
    }
}

/* The first row where <A,w>·<B,w> != <C,w>, or n_constraints when all hold. */
static size_t first_unsatisfied(const czk_r1cs *cs, const czk_fr *w) {
    for (size_t i = 0; i < cs->n_constraints; i++) {
        czk_fr a, b, c, ab;
        row_dot(&a, &cs->a, i, w);
        row_dot(&b, &cs->b, i, w);
        row_dot(&c, &cs->c, i, w);
        czk_fr_mul(&ab, &a, &b);
        if (!czk_fr_equal(&ab, &c))
            return i;
    }
    return cs->n_constraints;
}

static int matrix_equal(const czk_r1cs_matrix *x, const czk_r1cs_matrix *y, size_t rows) {
    if (memcmp(x->row_ptr, y->row_ptr, (rows + 1) * sizeof(uint64_t)) != 0)
        return 0;
    uint64_t nnz = x->row_ptr[rows];
    return nnz == 0 || (memcmp(x->cols, y->cols, nnz * sizeof(uint32_t)) == 0 &&
                        memcmp(x->vals, y->vals, nnz * sizeof(czk_fr)) == 0);
}

static int pk_equal(const czk_groth16_pk *x, const czk_groth16_pk *y) {
    if (x->h_basis != y->h_basis || x->density != y->density || x->domain_size != y->domain_size ||
        x->n_vars != y->n_vars || x->n_public != y->n_public || x->n_h != y->n_h ||
        x->n_l != y->n_l || x->n_a != y->n_a || x->n_b_g1 != y->n_b_g1 || x->n_b_g2 != y->n_b_g2 ||
        x->vk.n_ic != y->vk.n_ic)
        return 0;
    const czk_groth16_vk *a = &x->vk, *b = &y->vk;
    return czk_g1_affine_equal(&a->alpha_g1, &b->alpha_g1) &&
           czk_g1_affine_equal(&a->beta_g1, &b->beta_g1) &&
           czk_g1_affine_equal(&a->delta_g1, &b->delta_g1) &&
           czk_g2_affine_equal(&a->beta_g2, &b->beta_g2) &&
           czk_g2_affine_equal(&a->gamma_g2, &b->gamma_g2) &&
           czk_g2_affine_equal(&a->delta_g2, &b->delta_g2) &&
           memcmp(a->ic, b->ic, a->n_ic * sizeof(czk_g1_affine)) == 0 &&
           memcmp(x->h, y->h, x->n_h * sizeof(czk_g1_affine)) == 0 &&
           (x->n_l == 0 || memcmp(x->l, y->l, x->n_l * sizeof(czk_g1_affine)) == 0) &&
           memcmp(x->a, y->a, x->n_a * sizeof(czk_g1_affine)) == 0 &&
           memcmp(x->b_g1, y->b_g1, x->n_b_g1 * sizeof(czk_g1_affine)) == 0 &&
           memcmp(x->b_g2, y->b_g2, x->n_b_g2 * sizeof(czk_g2_affine)) == 0;
}

/*
 * Groth16's equation, checked here directly rather than through groth16/verify:
 * e(A, B) = e(α, β)·e(Σ x_i IC_i, γ)·e(C, δ), as e(A,B)·e(−α,β)·e(−L,γ)·e(−C,δ) = 1.
 */
static int groth16_holds(const czk_groth16_vk *vk, const czk_groth16_proof *pr, const czk_fr *x,
                         size_t n) {
    if (n + 1 != vk->n_ic)
        return 0;
    czk_g1_jacobian acc, term;
    czk_g1_jacobian_from_affine(&acc, &vk->ic[0]);
    for (size_t i = 0; i < n; i++) {
        czk_g1_jacobian_from_affine(&term, &vk->ic[i + 1]);
        czk_g1_jacobian_mul_var(&term, &term, &x[i]);
        czk_g1_jacobian_add_var(&acc, &acc, &term);
    }
    czk_g1_affine ps[4];
    czk_g1_affine l;
    czk_g1_jacobian_to_affine(&l, &acc);
    ps[0] = pr->a;
    czk_g1_affine_neg(&ps[1], &vk->alpha_g1);
    czk_g1_affine_neg(&ps[2], &l);
    czk_g1_affine_neg(&ps[3], &pr->c);
    czk_pairing_g2_prepared *qs = malloc(4 * sizeof(*qs));
    if (qs == NULL)
        return 0;
    czk_pairing_g2_prepare(&qs[0], &pr->b);
    czk_pairing_g2_prepare(&qs[1], &vk->beta_g2);
    czk_pairing_g2_prepare(&qs[2], &vk->gamma_g2);
    czk_pairing_g2_prepare(&qs[3], &vk->delta_g2);
    int ok = czk_pairing_check(ps, qs, 4);
    free(qs);
    return ok;
}

static void fr_from_u64_signed(czk_fr *r, long long v) {
    czk_fr_set_u64(r, (uint64_t)(v < 0 ? -v : v));
    if (v < 0)
        czk_fr_neg(r, r);
}

/* ---- decimal conversion ----------------------------------------------------------------- */

CZK_TEST(snarkjs_decimal) {
    uint64_t l[6];
    char buf[6 * 20 + 1];
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 4, "0", 1), CZK_OK);
    CHECK(l[0] == 0 && l[1] == 0 && l[2] == 0 && l[3] == 0);
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 4, "00012", 5), CZK_OK);
    CHECK(l[0] == 12 && l[1] == 0);
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 1, "18446744073709551615", 20), CZK_OK);
    CHECK(l[0] == UINT64_MAX);
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 1, "18446744073709551616", 20), CZK_ERANGE);
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 2, "18446744073709551616", 20), CZK_OK);
    CHECK(l[0] == 0 && l[1] == 1);
    /* 2^256 does not fit four limbs; 2^256 - 1 does. */
    const char *p256 =
        "115792089237316195423570985008687907853269984665640564039457584007913129639936";
    const char *p256m1 =
        "115792089237316195423570985008687907853269984665640564039457584007913129639935";
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 4, p256, strlen(p256)), CZK_ERANGE);
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 4, p256m1, strlen(p256m1)), CZK_OK);
    CHECK(l[0] == UINT64_MAX && l[3] == UINT64_MAX);
    const char *bad[] = {"", "+1", "-1", " 1", "1 ", "1a", "0x10", "1e3", "1.0", "\xd9\xa1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        CHECKF(czk_snarkjs_dec_to_limbs(l, 4, bad[i], strlen(bad[i])) == CZK_EFORMAT, "\"%s\"",
               bad[i]);
    /* An embedded NUL is a non-digit, not an end of string. */
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 4, "12\0003", 4), CZK_EFORMAT);
    char longz[202];
    memset(longz, '0', 201);
    longz[201] = 0;
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 4, longz, 200), CZK_OK);
    CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(l, 4, longz, 201), CZK_EFORMAT);

    czk_snarkjs_limbs_to_dec(buf, l, 4); /* zero */
    CHECK(strcmp(buf, "0") == 0);
    uint64_t v[6] = {10000000000000000000ULL, 0, 0, 0, 0, 0};
    czk_snarkjs_limbs_to_dec(buf, v, 6);
    CHECK(strcmp(buf, "10000000000000000000") == 0);
    uint64_t q1[6];
    for (int i = 0; i < 6; i++)
        q1[i] = CZK_FP_MODULUS[i];
    czk_snarkjs_limbs_to_dec(buf, q1, 6);
    CHECK(strcmp(buf, "4002409555221667393417789825735904156556882819939007885332058136124031650490"
                      "837864442687629129015664037894272559787") == 0);
    /* Random round trips, including values with zero limbs in the middle. */
    long iters = czk_test_iters(t, 2000);
    for (long it = 0; it < iters; it++) {
        uint64_t x[6], y[6];
        for (int i = 0; i < 6; i++)
            x[i] = (czk_rng_u64(&t->rng) & 3) == 0 ? 0 : czk_rng_u64(&t->rng);
        size_t n = 1 + (size_t)(czk_rng_u64(&t->rng) % 6);
        czk_snarkjs_limbs_to_dec(buf, x, n);
        CHECK(buf[0] != '0' || buf[1] == 0);
        CHECK_EQ_INT(czk_snarkjs_dec_to_limbs(y, n, buf, strlen(buf)), CZK_OK);
        CHECK_MEM(x, y, n * sizeof(uint64_t));
    }
}

/* ---- the binfile container ------------------------------------------------------------------ */

CZK_TEST(snarkjs_binfile_container) {
    /* magic "test", version 3, sections 2 and 1 (out of order) and an unknown type 40. */
    uint8_t f[12 + 12 + 3 + 12 + 1 + 12 + 2];
    memcpy(f, "test", 4);
    put32(f + 4, 3);
    put32(f + 8, 3);
    put32(f + 12, 2);
    put64(f + 16, 3);
    memcpy(f + 24, "abc", 3);
    put32(f + 27, 1);
    put64(f + 31, 1);
    f[39] = 'x';
    put32(f + 40, 40);
    put64(f + 44, 2);
    f[52] = f[53] = 0;
    czk_binfile bf;
    czk_err e = {0};
    const czk_binfile_section *s;
    CHECK_EQ_INT(czk_binfile_parse(&bf, f, sizeof(f), "t.bin", "test", 3, 4, &e), CZK_OK);
    CHECK_EQ_INT(czk_binfile_section_get(&bf, 2, 3, "three", &s, &e), CZK_OK);
    CHECK(memcmp(s->data, "abc", 3) == 0 && s->offset == 24);
    CHECK_EQ_INT(czk_binfile_section_get(&bf, 1, UINT64_MAX, NULL, &s, &e), CZK_OK);
    CHECK(s->size == 1 && s->data[0] == 'x');
    CHECK_EQ_INT(czk_binfile_section_get(&bf, 2, 4, "four", &s, &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "t.bin: section 2 size 3 != four (4)") != NULL);
    CHECK_EQ_INT(czk_binfile_section_get(&bf, 3, UINT64_MAX, NULL, &s, &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "t.bin: section 3 missing") != NULL);
    CHECK_EQ_INT(czk_binfile_parse(&bf, f, sizeof(f), "t.bin", "tesT", 3, 4, &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "magic") != NULL);
    CHECK_EQ_INT(czk_binfile_parse(&bf, f, sizeof(f), "t.bin", "test", 2, 4, &e), CZK_EUNSUPPORTED);
    CHECK_EQ_INT(czk_binfile_parse(&bf, f, sizeof(f), "t.bin", "test", 3, 99, &e), CZK_EINVAL);
    /* Every truncation and a trailing byte fail. */
    for (size_t cut = 0; cut < sizeof(f); cut++) {
        CHECK_EQ_INT(czk_binfile_parse(&bf, f, cut, "t.bin", "test", 3, 4, &e), CZK_EFORMAT);
        CHECK(strncmp(strstr(e.msg, "t.bin"), "t.bin: ", 7) == 0);
    }
    uint8_t g[sizeof(f) + 1];
    memcpy(g, f, sizeof(f));
    g[sizeof(f)] = 0;
    CHECK_EQ_INT(czk_binfile_parse(&bf, g, sizeof(g), "t.bin", "test", 3, 4, &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "trailing") != NULL);
    /* Oversized sections, including sizes that would wrap a naive pos + size. */
    uint64_t sizes[] = {4, UINT64_MAX, UINT64_MAX - 20, (uint64_t)1 << 63};
    for (size_t i = 0; i < 4; i++) {
        memcpy(g, f, sizeof(f));
        put64(g + 16, sizes[i]);
        CHECK_EQ_INT(czk_binfile_parse(&bf, g, sizeof(f), "t.bin", "test", 3, 4, &e), CZK_EFORMAT);
    }
    /* A section count that cannot fit. */
    memcpy(g, f, sizeof(f));
    put32(g + 8, UINT32_MAX);
    CHECK_EQ_INT(czk_binfile_parse(&bf, g, sizeof(f), "t.bin", "test", 3, 4, &e), CZK_EFORMAT);
    /* A duplicate known section; a duplicate unknown one (type 40) would be skipped. */
    memcpy(g, f, sizeof(f));
    put32(g + 27, 2);
    CHECK_EQ_INT(czk_binfile_parse(&bf, g, sizeof(f), "t.bin", "test", 3, 4, &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "appears twice") != NULL);
}

/* ---- reading the fixtures ------------------------------------------------------------------ */

CZK_TEST(snarkjs_r1cs_wtns_satisfied) {
    char rp[512], wp[512];
    data_path(rp, sizeof(rp), "mul.r1cs");
    data_path(wp, sizeof(wp), "mul.wtns");
    czk_r1cs cs;
    czk_fr *w = NULL;
    size_t n = 0;
    czk_err e = {0};
    CHECKF(czk_circom_r1cs_read(&cs, rp, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_circom_wtns_read(&w, &n, wp, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(cs.n_constraints, 3);
    CHECK_EQ_INT(cs.n_vars, 7);
    CHECK_EQ_INT(cs.n_public, 2);
    CHECK(cs.mapping == NULL && cs.c.row_ptr != NULL);
    CHECK_EQ_INT(n, 7);
    /* input.json: a = 3, b = 11, c = 5; out = a·b·c + 5·(a + 2b)(c − 7) − 3 = −88. */
    long long want[7] = {1, -88, 3, 11, 5, 33, -50};
    for (int i = 0; i < 7; i++) {
        czk_fr v;
        fr_from_u64_signed(&v, want[i]);
        CHECKF(czk_fr_equal(&w[i], &v), "w[%d]", i);
    }
    /* Row 1 is (a + 2b)·(c − 7) = v: the coefficients came through as field elements. */
    czk_fr two, m7;
    fr_from_u64_signed(&two, -2); /* circom writes it as (−a − 2b)·(c − 7) = −v */
    fr_from_u64_signed(&m7, -7);
    CHECK_EQ_INT(cs.a.row_ptr[2] - cs.a.row_ptr[1], 2);
    CHECK(czk_fr_equal(&cs.a.vals[cs.a.row_ptr[1] + 1], &two));
    CHECK_EQ_INT(cs.b.cols[cs.b.row_ptr[1]], 0);
    CHECK(czk_fr_equal(&cs.b.vals[cs.b.row_ptr[1]], &m7));
    for (int mtx = 0; mtx < 3; mtx++) {
        const czk_r1cs_matrix *m = mtx == 0 ? &cs.a : mtx == 1 ? &cs.b : &cs.c;
        for (size_t r = 0; r < cs.n_constraints; r++)
            for (uint64_t k = m->row_ptr[r] + 1; k < m->row_ptr[r + 1]; k++)
                CHECK(m->cols[k] > m->cols[k - 1]);
    }
    CHECK_EQ_INT(first_unsatisfied(&cs, w), 3);
    /* The check can fail: change t and row 0 (a·b = t) breaks. */
    czk_fr one;
    czk_fr_set_one(&one);
    czk_fr_add(&w[5], &w[5], &one);
    CHECK_EQ_INT(first_unsatisfied(&cs, w), 0);
    czk_free(w);
    czk_r1cs_clear(&cs);
}

CZK_TEST(snarkjs_zkey_matches_r1cs) {
    char rp[512], zp[512], vp[512];
    data_path(rp, sizeof(rp), "mul.r1cs");
    data_path(vp, sizeof(vp), "verification_key.json");
    czk_r1cs cs;
    czk_groth16_vk vk;
    czk_err e = {0};
    CHECKF(czk_circom_r1cs_read(&cs, rp, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_vk_read(&vk, vp, &e) == CZK_OK, "%s", e.msg);
    /* mul_0000.zkey has setup's section order (1 2 4 3 9 8 5 6 7 10), mul_final.zkey the
     * rewritten 1..10 after a contribution: both must read the same way. */
    const char *names[2] = {"mul_0000.zkey", "mul_final.zkey"};
    for (int f = 0; f < 2; f++) {
        data_path(zp, sizeof(zp), names[f]);
        czk_groth16_pk pk;
        czk_r1cs ab;
        CHECKF(czk_zkey_read(&pk, &ab, zp, &e) == CZK_OK, "%s", e.msg);
        CHECK(pk.h_basis == CZK_H_ODD_COSET && pk.density == CZK_DENSITY_DENSE);
        CHECK_EQ_INT(pk.n_vars, 7);
        CHECK_EQ_INT(pk.n_public, 2);
        CHECK_EQ_INT(pk.domain_size, 8);
        CHECK_EQ_INT(pk.n_h, 8);
        CHECK_EQ_INT(pk.n_l, 4);
        CHECK_EQ_INT(pk.n_a, 7);
        CHECK_EQ_INT(pk.n_b_g1, 7);
        CHECK_EQ_INT(pk.n_b_g2, 7);
        CHECK_EQ_INT(pk.vk.n_ic, 3);
        CHECK_EQ_INT(ab.n_constraints, cs.n_constraints);
        CHECK_EQ_INT(ab.n_vars, cs.n_vars);
        CHECK_EQ_INT(ab.n_public, cs.n_public);
        CHECK(ab.c.row_ptr == NULL && ab.c.cols == NULL && ab.c.vals == NULL);
        CHECKF(matrix_equal(&ab.a, &cs.a, cs.n_constraints), "%s: A differs from mul.r1cs",
               names[f]);
        CHECKF(matrix_equal(&ab.b, &cs.b, cs.n_constraints), "%s: B differs from mul.r1cs",
               names[f]);
        /* The final key's verifying part is what snarkjs exported. */
        if (f == 1) {
            CHECK(czk_g1_affine_equal(&pk.vk.alpha_g1, &vk.alpha_g1));
            CHECK(czk_g2_affine_equal(&pk.vk.beta_g2, &vk.beta_g2));
            CHECK(czk_g2_affine_equal(&pk.vk.gamma_g2, &vk.gamma_g2));
            CHECK(czk_g2_affine_equal(&pk.vk.delta_g2, &vk.delta_g2));
            CHECK(memcmp(pk.vk.ic, vk.ic, 3 * sizeof(czk_g1_affine)) == 0);
        } else {
            /* Before any contribution snarkjs's δ is the generator. */
            CHECK(czk_g1_affine_equal(&pk.vk.delta_g1, &CZK_G1_GENERATOR));
        }
        /* ab = NULL reads the same key, and so does a read on a pool. */
        czk_groth16_pk pk2;
        CHECKF(czk_zkey_read(&pk2, NULL, zp, &e) == CZK_OK, "%s", e.msg);
        CHECK(pk_equal(&pk, &pk2));
        czk_groth16_pk_clear(&pk2);
        czk_pool *pool = NULL;
        CHECK_EQ_INT(czk_pool_create(&pool, 3), CZK_OK);
        int rc = czk_zkey_read_pool(&pk2, NULL, zp, pool, &e);
        czk_pool_destroy(pool);
        CHECKF(rc == CZK_OK, "%s", e.msg);
        CHECK(pk_equal(&pk, &pk2));
        czk_groth16_pk_clear(&pk2);
        czk_groth16_pk_clear(&pk);
        czk_r1cs_clear(&ab);
    }
    czk_groth16_vk_clear(&vk);
    czk_r1cs_clear(&cs);
}

CZK_TEST(snarkjs_proof_verifies) {
    char vp[512], pp[512], xp[512], wp[512];
    data_path(vp, sizeof(vp), "verification_key.json");
    data_path(pp, sizeof(pp), "proof.json");
    data_path(xp, sizeof(xp), "public.json");
    data_path(wp, sizeof(wp), "mul.wtns");
    czk_groth16_vk vk;
    czk_groth16_proof pr;
    czk_fr *x = NULL, *w = NULL;
    size_t n = 0, nw = 0;
    czk_err e = {0};
    CHECKF(czk_snarkjs_vk_read(&vk, vp, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_proof_read(&pr, pp, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_public_read(&x, &n, xp, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_circom_wtns_read(&w, &nw, wp, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(n, 2);
    CHECK_EQ_INT(vk.n_ic, 3);
    /* public.json is the witness's wires 1..nPublic: out (= −88), then a. */
    CHECK(czk_fr_equal(&x[0], &w[1]) && czk_fr_equal(&x[1], &w[2]));
    CHECK(czk_g1_affine_is_infinity(&vk.beta_g1) && czk_g1_affine_is_infinity(&vk.delta_g1));
    CHECK(groth16_holds(&vk, &pr, x, n));
    /* A tampered input, swapped inputs, a tampered proof: all fail. */
    czk_fr one, saved = x[1];
    czk_fr_set_one(&one);
    czk_fr_add(&x[1], &x[1], &one);
    CHECK(!groth16_holds(&vk, &pr, x, n));
    x[1] = x[0];
    x[0] = saved;
    CHECK(!groth16_holds(&vk, &pr, x, n));
    x[0] = x[1];
    x[1] = saved;
    CHECK(groth16_holds(&vk, &pr, x, n));
    czk_groth16_proof bad = pr;
    bad.c = pr.a;
    CHECK(!groth16_holds(&vk, &bad, x, n));
    czk_free(x);
    czk_free(w);
    czk_groth16_vk_clear(&vk);
}

/* ---- round trips ---------------------------------------------------------------------------- */

/* 1 if the JSON files at a and b hold equal values (key order aside). */
static int json_files_equal(const char *a, const char *b) {
    json_object *x = json_object_from_file(a), *y = json_object_from_file(b);
    int eq = x != NULL && y != NULL && json_object_equal(x, y);
    json_object_put(x);
    json_object_put(y);
    return eq;
}

static void vk_roundtrip_body(czk_test_ctx *t, const char *dir) {
    char vp[512], out[512];
    data_path(vp, sizeof(vp), "verification_key.json");
    snprintf(out, sizeof(out), "%s/vk.json", dir);
    czk_groth16_vk vk, back;
    czk_err e = {0};
    CHECKF(czk_snarkjs_vk_read(&vk, vp, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_vk_write(out, &vk, &e) == CZK_OK, "%s", e.msg);
    /* Value for value what snarkjs wrote, vk_alphabeta_12 included: every decimal string,
     * the point encodings, nPublic, protocol and curve. */
    CHECKF(json_files_equal(vp, out), "written vk differs from %s", vp);
    CHECKF(czk_snarkjs_vk_read(&back, out, &e) == CZK_OK, "%s", e.msg);
    CHECK(czk_g1_affine_equal(&vk.alpha_g1, &back.alpha_g1));
    CHECK(czk_g2_affine_equal(&vk.beta_g2, &back.beta_g2));
    CHECK(czk_g2_affine_equal(&vk.gamma_g2, &back.gamma_g2));
    CHECK(czk_g2_affine_equal(&vk.delta_g2, &back.delta_g2));
    CHECK(vk.n_ic == back.n_ic && memcmp(vk.ic, back.ic, vk.n_ic * sizeof(czk_g1_affine)) == 0);
    czk_groth16_vk_clear(&back);
    /* An IC point at infinity survives the trip as ["0", "1", "0"]. */
    memset(&vk.ic[1], 0, sizeof(czk_g1_affine));
    CHECKF(czk_snarkjs_vk_write(out, &vk, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_vk_read(&back, out, &e) == CZK_OK, "%s", e.msg);
    CHECK(czk_g1_affine_is_infinity(&back.ic[1]));
    czk_groth16_vk_clear(&back);
    /* A random key with many inputs. */
    czk_groth16_vk r;
    memset(&r, 0, sizeof(r));
    czk_g1_random(&r.alpha_g1, &t->rng);
    czk_g2_random(&r.beta_g2, &t->rng);
    czk_g2_random(&r.gamma_g2, &t->rng);
    czk_g2_random(&r.delta_g2, &t->rng);
    r.n_ic = 17;
    r.ic = czk_malloc(r.n_ic * sizeof(czk_g1_affine));
    CHECK(r.ic != NULL);
    for (size_t i = 0; i < r.n_ic; i++)
        czk_g1_random(&r.ic[i], &t->rng);
    CHECKF(czk_snarkjs_vk_write(out, &r, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_vk_read(&back, out, &e) == CZK_OK, "%s", e.msg);
    CHECK(back.n_ic == 17 && memcmp(r.ic, back.ic, 17 * sizeof(czk_g1_affine)) == 0);
    CHECK(czk_g2_affine_equal(&r.delta_g2, &back.delta_g2));
    czk_groth16_vk_clear(&back);
    czk_groth16_vk_clear(&r);
    /* Writing a key with no IC is refused. */
    czk_groth16_vk empty;
    memset(&empty, 0, sizeof(empty));
    CHECK_EQ_INT(czk_snarkjs_vk_write(out, &empty, &e), CZK_EINVAL);
    czk_groth16_vk_clear(&vk);
}

CZK_TEST(snarkjs_vk_json_roundtrip) {
    CZK_TEST_WITH_TMPDIR(vk_roundtrip_body);
}

static void proof_public_body(czk_test_ctx *t, const char *dir) {
    char pp[512], xp[512], out[512];
    data_path(pp, sizeof(pp), "proof.json");
    data_path(xp, sizeof(xp), "public.json");
    snprintf(out, sizeof(out), "%s/out.json", dir);
    czk_err e = {0};
    czk_groth16_proof pr, back;
    CHECKF(czk_snarkjs_proof_read(&pr, pp, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_proof_write(out, &pr, &e) == CZK_OK, "%s", e.msg);
    CHECKF(json_files_equal(pp, out), "written proof differs from %s", pp);
    CHECKF(czk_snarkjs_proof_read(&back, out, &e) == CZK_OK, "%s", e.msg);
    CHECK(memcmp(&pr, &back, sizeof(pr)) == 0);
    /* Random proofs, and the points at infinity. */
    for (int i = 0; i < 8; i++) {
        czk_g1_random(&pr.a, &t->rng);
        czk_g2_random(&pr.b, &t->rng);
        czk_g1_random(&pr.c, &t->rng);
        if (i == 1)
            memset(&pr.a, 0, sizeof(pr.a));
        if (i == 2)
            memset(&pr.b, 0, sizeof(pr.b));
        if (i == 3)
            memset(&pr.c, 0, sizeof(pr.c));
        CHECKF(czk_snarkjs_proof_write(out, &pr, &e) == CZK_OK, "%s", e.msg);
        CHECKF(czk_snarkjs_proof_read(&back, out, &e) == CZK_OK, "%s", e.msg);
        CHECK(memcmp(&pr, &back, sizeof(pr)) == 0);
    }

    czk_fr *x = NULL, *y = NULL;
    size_t n = 0, m = 0;
    CHECKF(czk_snarkjs_public_read(&x, &n, xp, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_public_write(out, x, n, &e) == CZK_OK, "%s", e.msg);
    CHECKF(json_files_equal(xp, out), "written public inputs differ from %s", xp);
    czk_free(x);
    /* 0, 1, r − 1 and random values; then the empty list. */
    czk_fr v[8];
    czk_fr_set_zero(&v[0]);
    czk_fr_set_one(&v[1]);
    czk_fr_neg(&v[2], &v[1]);
    for (int i = 3; i < 8; i++)
        czk_fr_random(&v[i], &t->rng);
    CHECKF(czk_snarkjs_public_write(out, v, 8, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_public_read(&y, &m, out, &e) == CZK_OK, "%s", e.msg);
    CHECK(m == 8 && memcmp(v, y, sizeof(v)) == 0);
    czk_free(y);
    CHECKF(czk_snarkjs_public_write(out, NULL, 0, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_snarkjs_public_read(&y, &m, out, &e) == CZK_OK, "%s", e.msg);
    CHECK(m == 0 && y == NULL);
}

CZK_TEST(snarkjs_proof_public_roundtrip) {
    CZK_TEST_WITH_TMPDIR(proof_public_body);
}

static void zkey_roundtrip_body(czk_test_ctx *t, const char *dir) {
    char out[512];
    snprintf(out, sizeof(out), "%s/k.zkey", dir);
    czk_err e = {0};
    const char *names[2] = {"mul_final.zkey", "mul_0000.zkey"};
    for (int f = 0; f < 2; f++) {
        char zp[512];
        data_path(zp, sizeof(zp), names[f]);
        czk_groth16_pk pk, back;
        czk_r1cs ab, ab2;
        CHECKF(czk_zkey_read(&pk, &ab, zp, &e) == CZK_OK, "%s", e.msg);
        CHECKF(czk_zkey_write(out, &pk, &ab, &e) == CZK_OK, "%s", e.msg);
        /* Sections 1-9 are snarkjs's bytes exactly (section 4's order included); only
         * section 10, the ceremony transcript, differs. */
        size_t la, lb;
        uint8_t *a = czk_test_read_file(zp, &la), *b = czk_test_read_file(out, &lb);
        tbin ta, tb;
        CHECK(a != NULL && b != NULL && tbin_load(&ta, a, la) == 0 && tbin_load(&tb, b, lb) == 0);
        free(a);
        free(b);
        CHECK(memcmp(ta.head, tb.head, 8) == 0 && ta.n == 10 && tb.n == 10);
        for (uint32_t s = 1; s <= 9; s++) {
            tsec *x = tbin_find(&ta, s), *y = tbin_find(&tb, s);
            CHECKF(x != NULL && y != NULL && x->size == y->size &&
                       memcmp(x->data, y->data, x->size) == 0,
                   "%s: section %u differs after czk_zkey_write", names[f], s);
        }
        tsec *s10 = tbin_find(&tb, 10);
        CHECK(s10 != NULL && s10->size == 68 && le32(s10->data + 64) == 0);
        tbin_free(&ta);
        tbin_free(&tb);
        CHECKF(czk_zkey_read(&back, &ab2, out, &e) == CZK_OK, "%s", e.msg);
        CHECK(pk_equal(&pk, &back));
        CHECK(ab2.n_constraints == ab.n_constraints && matrix_equal(&ab.a, &ab2.a, 3) &&
              matrix_equal(&ab.b, &ab2.b, 3));
        czk_groth16_pk_clear(&back);
        czk_r1cs_clear(&ab2);
        czk_groth16_pk_clear(&pk);
        czk_r1cs_clear(&ab);
    }

    /* A random key and system: 5 constraints, 9 variables, 3 public, domain 16 (larger than
     * the 9 rows need), points at infinity mixed in, an empty row and a zero coefficient. */
    czk_groth16_pk pk;
    memset(&pk, 0, sizeof(pk));
    pk.h_basis = CZK_H_ODD_COSET;
    pk.density = CZK_DENSITY_DENSE;
    pk.domain_size = pk.n_h = 16;
    pk.n_vars = pk.n_a = pk.n_b_g1 = pk.n_b_g2 = 9;
    pk.n_public = 3;
    pk.n_l = 5;
    pk.vk.n_ic = 4;
    pk.vk.ic = czk_malloc(4 * sizeof(czk_g1_affine));
    pk.h = czk_malloc(16 * sizeof(czk_g1_affine));
    pk.l = czk_malloc(5 * sizeof(czk_g1_affine));
    pk.a = czk_malloc(9 * sizeof(czk_g1_affine));
    pk.b_g1 = czk_malloc(9 * sizeof(czk_g1_affine));
    pk.b_g2 = czk_malloc(9 * sizeof(czk_g2_affine));
    CHECK(pk.vk.ic && pk.h && pk.l && pk.a && pk.b_g1 && pk.b_g2);
    czk_g1_random(&pk.vk.alpha_g1, &t->rng);
    czk_g1_random(&pk.vk.beta_g1, &t->rng);
    czk_g1_random(&pk.vk.delta_g1, &t->rng);
    czk_g2_random(&pk.vk.beta_g2, &t->rng);
    czk_g2_random(&pk.vk.gamma_g2, &t->rng);
    czk_g2_random(&pk.vk.delta_g2, &t->rng);
    for (size_t i = 0; i < 4; i++)
        czk_g1_random(&pk.vk.ic[i], &t->rng);
    for (size_t i = 0; i < 16; i++)
        czk_g1_random(&pk.h[i], &t->rng);
    for (size_t i = 0; i < 5; i++)
        czk_g1_random(&pk.l[i], &t->rng);
    for (size_t i = 0; i < 9; i++) {
        czk_g1_random(&pk.a[i], &t->rng);
        czk_g1_random(&pk.b_g1[i], &t->rng);
        czk_g2_random(&pk.b_g2[i], &t->rng);
    }
    memset(&pk.a[4], 0, sizeof(czk_g1_affine));
    memset(&pk.b_g2[6], 0, sizeof(czk_g2_affine));

    czk_r1cs cs;
    memset(&cs, 0, sizeof(cs));
    cs.n_constraints = 5;
    cs.n_vars = 9;
    cs.n_public = 3;
    /* A: rows {0,3}, {}, {1,2,8}, {5}, {7}; B: rows {2}, {0,4}, {6}, {}, {1,3}. */
    uint64_t arp[6] = {0, 2, 2, 5, 6, 7}, brp[6] = {0, 1, 3, 4, 4, 6};
    uint32_t acol[7] = {0, 3, 1, 2, 8, 5, 7}, bcol[6] = {2, 0, 4, 6, 1, 3};
    cs.a.row_ptr = czk_malloc(sizeof(arp));
    cs.a.cols = czk_malloc(sizeof(acol));
    cs.a.vals = czk_malloc(7 * sizeof(czk_fr));
    cs.b.row_ptr = czk_malloc(sizeof(brp));
    cs.b.cols = czk_malloc(sizeof(bcol));
    cs.b.vals = czk_malloc(6 * sizeof(czk_fr));
    CHECK(cs.a.row_ptr && cs.a.cols && cs.a.vals && cs.b.row_ptr && cs.b.cols && cs.b.vals);
    memcpy(cs.a.row_ptr, arp, sizeof(arp));
    memcpy(cs.a.cols, acol, sizeof(acol));
    memcpy(cs.b.row_ptr, brp, sizeof(brp));
    memcpy(cs.b.cols, bcol, sizeof(bcol));
    for (int i = 0; i < 7; i++)
        czk_fr_random(&cs.a.vals[i], &t->rng);
    for (int i = 0; i < 6; i++)
        czk_fr_random(&cs.b.vals[i], &t->rng);
    czk_fr_set_zero(&cs.b.vals[3]);
    czk_fr_neg(&cs.a.vals[0], &cs.a.vals[0]);

    CHECKF(czk_zkey_write(out, &pk, &cs, &e) == CZK_OK, "%s", e.msg);
    czk_groth16_pk back;
    czk_r1cs ab;
    CHECKF(czk_zkey_read(&back, &ab, out, &e) == CZK_OK, "%s", e.msg);
    CHECK(pk_equal(&pk, &back));
    CHECK_EQ_INT(ab.n_constraints, 5);
    CHECK(matrix_equal(&ab.a, &cs.a, 5) && matrix_equal(&ab.b, &cs.b, 5));
    czk_groth16_pk_clear(&back);
    czk_r1cs_clear(&ab);

    /* Shapes that do not fit are refused before anything is created. */
    char bad[512];
    snprintf(bad, sizeof(bad), "%s/bad.zkey", dir);
    pk.h_basis = CZK_H_MONOMIAL;
    CHECK_EQ_INT(czk_zkey_write(bad, &pk, &cs, &e), CZK_EINVAL);
    pk.h_basis = CZK_H_ODD_COSET;
    pk.density = CZK_DENSITY_FILTERED;
    CHECK_EQ_INT(czk_zkey_write(bad, &pk, &cs, &e), CZK_EINVAL);
    pk.density = CZK_DENSITY_DENSE;
    pk.n_l = 4;
    CHECK_EQ_INT(czk_zkey_write(bad, &pk, &cs, &e), CZK_EINVAL);
    pk.n_l = 5;
    cs.n_vars = 8;
    CHECK_EQ_INT(czk_zkey_write(bad, &pk, &cs, &e), CZK_EINVAL);
    cs.n_vars = 9;
    cs.n_constraints = 13; /* 13 + 3 + 1 > 16 */
    CHECK_EQ_INT(czk_zkey_write(bad, &pk, &cs, &e), CZK_EINVAL);
    cs.n_constraints = 5;
    cs.a.cols[2] = 9; /* column out of range */
    CHECK_EQ_INT(czk_zkey_write(bad, &pk, &cs, &e), CZK_EINVAL);
    CHECK(strstr(e.msg, bad) != NULL);
    cs.a.cols[2] = 1;
    struct stat st;
    CHECK(stat(bad, &st) != 0);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
}

CZK_TEST(snarkjs_zkey_write_roundtrip) {
    CZK_TEST_WITH_TMPDIR(zkey_roundtrip_body);
}

/* A key with a long H vector, decoded on a pool: a bad point is reported by its lowest index
 * whichever thread meets it, and the good key reads the same on any number of threads. */
static void zkey_pool_body(czk_test_ctx *t, const char *dir) {
    char zp[512], out[512];
    data_path(zp, sizeof(zp), "mul_final.zkey");
    snprintf(out, sizeof(out), "%s/long.zkey", dir);
    czk_err e = {0};
    czk_groth16_pk pk, back;
    czk_r1cs ab;
    CHECKF(czk_zkey_read(&pk, &ab, zp, &e) == CZK_OK, "%s", e.msg);
    size_t n = 2048; /* 8 chunks of the decoder's 256-point grain */
    czk_g1_affine *h = czk_malloc(n * sizeof(czk_g1_affine));
    CHECK(h != NULL);
    for (size_t i = 0; i < n; i++)
        h[i] = pk.h[i % pk.n_h];
    czk_free(pk.h);
    pk.h = h;
    pk.n_h = pk.domain_size = n;
    CHECKF(czk_zkey_write(out, &pk, &ab, &e) == CZK_OK, "%s", e.msg);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 4), CZK_OK);
    int rc = czk_zkey_read_pool(&back, NULL, out, pool, &e);
    int same = rc == CZK_OK && pk_equal(&pk, &back);
    czk_groth16_pk_clear(&back);
    /* Break H[1500] (off the curve) and H[600] (outside G1). */
    tbin b;
    size_t len;
    uint8_t *d = czk_test_read_file(out, &len);
    int loaded = d != NULL && tbin_load(&b, d, len) == 0;
    free(d);
    if (loaded) {
        tsec *s9 = tbin_find(&b, 9);
        czk_g1_affine off;
        czk_g1_random_on_curve(&off, &t->rng);
        s9->data[96 * 1500 + 60] ^= 1;
        czk_g1_affine_to_snarkjs(s9->data + 96 * 600, &off);
        loaded = tbin_save(&b, out) == 0;
        tbin_free(&b);
    }
    czk_err e1 = {0}, e2 = {0};
    int rc1 = loaded ? czk_zkey_read_pool(&back, NULL, out, pool, &e1) : CZK_OK;
    int rc2 = loaded ? czk_zkey_read(&back, NULL, out, &e2) : CZK_OK;
    czk_pool_destroy(pool);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&ab);
    CHECKF(same, "pool read differs: %s", e.msg);
    CHECK(loaded);
    CHECK_EQ_INT(rc1, CZK_ENOTINGROUP);
    CHECK_EQ_INT(rc2, CZK_ENOTINGROUP);
    CHECKF(strstr(e1.msg, "section 9 H[600]") != NULL, "%s", e1.msg);
    CHECKF(strstr(e2.msg, "section 9 H[600]") != NULL, "%s", e2.msg);
}

CZK_TEST(snarkjs_zkey_read_pool) {
    CZK_TEST_WITH_TMPDIR(zkey_pool_body);
}

/* ---- malformed inputs ------------------------------------------------------------------------ */

typedef struct fixture {
    const char *name;
    reader_fn fn;
    int json;
} fixture;

static const fixture FIXTURES[] = {
    {"mul.r1cs", rd_r1cs, 0},
    {"mul.wtns", rd_wtns, 0},
    {"mul_0000.zkey", rd_zkey, 0},
    {"mul_final.zkey", rd_zkey, 0},
    {"proof.json", rd_proof, 1},
    {"public.json", rd_public, 1},
    {"verification_key.json", rd_vk, 1},
};
#define N_FIXTURES (sizeof(FIXTURES) / sizeof(FIXTURES[0]))

static void truncated_body(czk_test_ctx *t, const char *dir) {
    char p[512];
    snprintf(p, sizeof(p), "%s/cut", dir);
    for (size_t f = 0; f < N_FIXTURES; f++) {
        size_t len;
        uint8_t *d = slurp_data(FIXTURES[f].name, &len);
        CHECKF(d != NULL, "missing fixture %s", FIXTURES[f].name);
        /* The untouched file reads. */
        CHECK(czk_test_write_file(p, d, len) == 0);
        czk_err e = {0};
        CHECKF(FIXTURES[f].fn(p, &e) == CZK_OK, "%s: %s", FIXTURES[f].name, e.msg);
        /* JSON may lose trailing whitespace and stay valid; nothing else may go. */
        size_t end = len;
        if (FIXTURES[f].json)
            while (end > 0 && (d[end - 1] == '\n' || d[end - 1] == ' ' || d[end - 1] == '\r'))
                end--;
        for (size_t cut = 0; cut < end; cut++) {
            CHECK(czk_test_write_file(p, d, cut) == 0);
            CHECK_FAILS(FIXTURES[f].fn, p, 0, NULL);
        }
        /* Binary files may not grow either; JSON may not gain non-space text. */
        uint8_t *g = malloc(len + 1);
        memcpy(g, d, len);
        g[len] = FIXTURES[f].json ? 'x' : 0;
        CHECK(czk_test_write_file(p, g, len + 1) == 0);
        CHECK_FAILS(FIXTURES[f].fn, p, CZK_EFORMAT,
                    FIXTURES[f].json ? "after the JSON" : "trailing");
        free(g);
        free(d);
    }
}

CZK_TEST(snarkjs_truncated_files) {
    CZK_TEST_WITH_TMPDIR(truncated_body);
}

/* Loads fixture `name` as a container, or fails the test. */
#define LOAD_TBIN(tb, name)                                                                        \
    do {                                                                                           \
        size_t l_;                                                                                 \
        uint8_t *d_ = slurp_data((name), &l_);                                                     \
        CHECKF(d_ != NULL && tbin_load(&(tb), d_, l_) == 0, "cannot load %s", (name));             \
        free(d_);                                                                                  \
    } while (0)

static const uint64_t BN128_R[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const uint64_t BN128_Q[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};

static void put_limbs(uint8_t *p, const uint64_t *l, size_t n) {
    for (size_t i = 0; i < n; i++)
        put64(p + 8 * i, l[i]);
}

static void corrupt_r1cs_wtns_body(czk_test_ctx *t, const char *dir) {
    char p[512];
    snprintf(p, sizeof(p), "%s/bad", dir);
    tbin b;
    tsec *s;

    /* r1cs header: a bn128 prime, another prime, a 48-byte field, short and long headers. */
    LOAD_TBIN(b, "mul.r1cs");
    s = tbin_find(&b, 1);
    CHECK(s != NULL && s->size == 64);
    uint8_t hdr[64];
    memcpy(hdr, s->data, 64);
    put_limbs(s->data + 4, BN128_R, 4);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EUNSUPPORTED, "bn128");
    s->data[4] ^= 2;
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EUNSUPPORTED, "not BLS12-381's r");
    memcpy(s->data, hdr, 64);
    put32(s->data, 48);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EUNSUPPORTED, NULL);
    put32(s->data, 0xffffffffu);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "prime");
    memcpy(s->data, hdr, 64);
    tbin_set(&b, 1, hdr, 63);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "section 1 size 63");
    tbin_set(&b, 1, hdr, 64);
    s = tbin_find(&b, 1);
    put32(s->data + 36, 3); /* nWires 3 < 1 + 1 + 1 + 2 */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "nWires");
    memcpy(s->data, hdr, 64);
    put32(s->data + 60, 0xffffffffu); /* 2^32 − 1 constraints in a 600-byte section */
    size_t peak_before = czk_alloc_peak();
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "section 2");
    CHECK(czk_alloc_peak() == peak_before); /* refused before allocating */
    put32(s->data + 60, 2);                 /* fewer constraints than the section holds */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "bytes after constraint");
    memcpy(s->data, hdr, 64);

    /* r1cs constraints: wire out of range, coefficient = r, a huge term count. */
    s = tbin_find(&b, 2);
    uint8_t *c2 = malloc(s->size);
    size_t c2n = s->size;
    memcpy(c2, s->data, c2n);
    put32(s->data + 4, 7); /* constraint 0, A, term 0: wire 7 of 7 */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "wire 7 >= nWires 7");
    memcpy(s->data, c2, c2n);
    put_limbs(s->data + 8, CZK_FR_MODULUS, 4);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "not below r");
    memcpy(s->data, c2, c2n);
    put32(s->data, 0x10000000u);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "terms but section 2");
    memcpy(s->data, c2, c2n);
    /* Custom gates and a missing constraints section. */
    tbin_dup(&b, 3);
    b.s[b.n - 1].type = 4;
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EUNSUPPORTED, "custom gates");
    tbin_remove(&b, 4);
    tbin_remove(&b, 2);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_r1cs, p, CZK_EFORMAT, "section 2 missing");
    tbin_free(&b);

    /* Unsorted terms and a repeated wire read as the sorted, merged row. Constraint 1's A is
     * (−1)·a + (−2)·b: swap the two terms, then make it a, a (same wire twice). */
    LOAD_TBIN(b, "mul.r1cs");
    czk_r1cs ref, got;
    czk_err e = {0};
    char rp[512];
    data_path(rp, sizeof(rp), "mul.r1cs");
    CHECKF(czk_circom_r1cs_read(&ref, rp, &e) == CZK_OK, "%s", e.msg);
    s = tbin_find(&b, 2);
    /* Constraint 0: A 1 term, B 1 term, C 1 term = 3·4 + 3·36 = 120 bytes; constraint 1's A
     * count is at 120, its terms at 124 and 160. */
    CHECK(le32(s->data + 120) == 2);
    uint8_t term[36];
    memcpy(term, s->data + 124, 36);
    memmove(s->data + 124, s->data + 160, 36);
    memcpy(s->data + 160, term, 36);
    CHECK(tbin_save(&b, p) == 0);
    CHECKF(czk_circom_r1cs_read(&got, p, &e) == CZK_OK, "%s", e.msg);
    CHECK(matrix_equal(&got.a, &ref.a, 3) && matrix_equal(&got.b, &ref.b, 3) &&
          matrix_equal(&got.c, &ref.c, 3));
    czk_r1cs_clear(&got);
    memcpy(s->data + 160, s->data + 124, 4); /* both terms on the same wire */
    uint32_t wire = le32(s->data + 124);
    CHECK(tbin_save(&b, p) == 0);
    CHECKF(czk_circom_r1cs_read(&got, p, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(got.a.row_ptr[2] - got.a.row_ptr[1], 1);
    CHECK_EQ_INT(got.a.cols[got.a.row_ptr[1]], wire);
    czk_fr m3;
    fr_from_u64_signed(&m3, -3); /* −1 + −2 */
    CHECK(czk_fr_equal(&got.a.vals[got.a.row_ptr[1]], &m3));
    czk_r1cs_clear(&got);
    czk_r1cs_clear(&ref);
    tbin_free(&b);
    free(c2);

    /* wtns: bn128, w[0] != 1, a value = r, counts that do not match, version 1. */
    LOAD_TBIN(b, "mul.wtns");
    s = tbin_find(&b, 1);
    CHECK(s != NULL && s->size == 40);
    uint8_t wh[40];
    memcpy(wh, s->data, 40);
    put_limbs(s->data + 4, BN128_R, 4);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_wtns, p, CZK_EUNSUPPORTED, "bn128");
    memcpy(s->data, wh, 40);
    put32(s->data + 36, 0xffffffffu);
    peak_before = czk_alloc_peak();
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_wtns, p, CZK_EFORMAT, "section 2 size 224 != nWitness*32");
    CHECK(czk_alloc_peak() == peak_before);
    put32(s->data + 36, 0);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_wtns, p, CZK_EFORMAT, "nWitness is 0");
    memcpy(s->data, wh, 40);
    s = tbin_find(&b, 2);
    s->data[0] = 2;
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_wtns, p, CZK_EFORMAT, "w[0] is not 1");
    s->data[0] = 1;
    put_limbs(s->data + 64, CZK_FR_MODULUS, 4);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_wtns, p, CZK_EFORMAT, "value 2 is not below r");
    tbin_free(&b);
    LOAD_TBIN(b, "mul.wtns");
    put32(b.head + 4, 1);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_wtns, p, CZK_EUNSUPPORTED, "version 1");
    memcpy(b.head, "wtnx", 4);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_wtns, p, CZK_EFORMAT, "magic");
    tbin_free(&b);
}

CZK_TEST(snarkjs_corrupt_r1cs_wtns) {
    CZK_TEST_WITH_TMPDIR(corrupt_r1cs_wtns_body);
}

/* Section 4 entry i of a zkey container. */
static uint8_t *coef_at(tbin *b, uint32_t i) {
    return tbin_find(b, 4)->data + 4 + 44 * (size_t)i;
}

static void corrupt_zkey_body(czk_test_ctx *t, const char *dir) {
    char p[512];
    snprintf(p, sizeof(p), "%s/bad.zkey", dir);
    tbin b;
    tsec *s;
    LOAD_TBIN(b, "mul_final.zkey");
    tbin orig;
    LOAD_TBIN(orig, "mul_final.zkey");
#define RESET()                                                                                    \
    do {                                                                                           \
        tbin_free(&b);                                                                             \
        LOAD_TBIN(b, "mul_final.zkey");                                                            \
    } while (0)

    /* Protocol: PLONK is named and refused. */
    put32(tbin_find(&b, 1)->data, 2);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EUNSUPPORTED, "PLONK");
    RESET();

    /* A bn128 header (n8q = 32 and bn128's q), as snarkjs writes for bn128. */
    s = tbin_find(&b, 2);
    uint8_t *h = malloc(s->size);
    size_t hn = s->size;
    memcpy(h, s->data, hn);
    {
        uint8_t bn[4 + 32 + 4 + 32];
        put32(bn, 32);
        put_limbs(bn + 4, BN128_Q, 4);
        put32(bn + 36, 32);
        put_limbs(bn + 40, BN128_R, 4);
        tbin_set(&b, 2, bn, sizeof(bn));
        CHECK(tbin_save(&b, p) == 0);
        CHECK_FAILS(rd_zkey, p, CZK_EUNSUPPORTED, "bn128");
    }
    RESET();
    /* r and q swapped places; n8r wrong; sizes in the header that disagree with sections. */
    s = tbin_find(&b, 2);
    put32(s->data + 52, 48);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "n8r 48");
    RESET();
    s = tbin_find(&b, 2);
    s->data[56] ^= 1; /* r */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EUNSUPPORTED, "section 2 r");
    RESET();
    s = tbin_find(&b, 2);
    uint8_t *cnt = s->data + 4 + 48 + 4 + 32; /* nVars, nPublic, domainSize */
    put32(cnt, 8);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "section 5 size 672 != nVars*96 (768)");
    put32(cnt, 0xffffffffu);
    size_t peak_before = czk_alloc_peak();
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "nVars*96");
    CHECK(czk_alloc_peak() == peak_before);
    put32(cnt, 7);
    put32(cnt + 4, 7);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "nVars 7 < nPublic 7 + 1");
    put32(cnt + 4, 2);
    put32(cnt + 8, 7);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "power of two");
    put32(cnt + 8, 16);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "section 9 size 768 != domainSize*96 (1536)");
    put32(cnt + 8, 0x80000000u);
    peak_before = czk_alloc_peak();
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "domainSize*96");
    CHECK(czk_alloc_peak() == peak_before);
    RESET();
    /* A fixed point at infinity; a point off the curve; a point outside G1. */
    s = tbin_find(&b, 2);
    memset(s->data + 4 + 48 + 4 + 32 + 12, 0, 96); /* alpha_1 */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "alpha_1 is the point at infinity");
    RESET();
    s = tbin_find(&b, 5);
    size_t k = 0;
    while (k < 7 && s->data[96 * k] == 0 && s->data[96 * k + 1] == 0)
        k++;
    CHECK(k < 7);
    s->data[96 * k + 50] ^= 1; /* y of A[k] */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_ENOTONCURVE, "section 5 A[");
    RESET();
    memset(tbin_find(&b, 7)->data + 192 * 2, 0xff, 48); /* B2[2].x.c0 >= q */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_ERANGE, "section 7 B2[2]");
    RESET();
    czk_g1_affine off;
    czk_g1_random_on_curve(&off, &t->rng);
    CHECK(!czk_g1_affine_is_in_group(&off));
    czk_g1_affine_to_snarkjs(tbin_find(&b, 9)->data + 96 * 5, &off);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_ENOTINGROUP, "section 9 H[5]");
    RESET();

    /* Section 4. The fixture's entries: the circuit's terms, then the input rows. */
    uint32_t n_coefs = le32(tbin_find(&b, 4)->data);
    CHECK(n_coefs > 3);
    uint32_t last = n_coefs - 1; /* input row 2: A[2] = 1 at constraint 5 */
    CHECK(le32(coef_at(&b, last)) == 0 && le32(coef_at(&b, last) + 4) == 5 &&
          le32(coef_at(&b, last) + 8) == 2);
    put32(coef_at(&b, 0), 2);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "matrix 2");
    RESET();
    put32(coef_at(&b, 0) + 8, 7);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "signal 7 >= nVars 7");
    RESET();
    put_limbs(coef_at(&b, 1) + 12, CZK_FR_MODULUS, 4);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "value not below r");
    RESET();
    coef_at(&b, last)[12] ^= 1; /* input row coefficient != 1 */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "input row 2");
    RESET();
    put32(coef_at(&b, last), 1); /* input row in B */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "input row 2");
    RESET();
    put32(coef_at(&b, last) + 8, 1); /* input row 2 on signal 1 */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "input row 2");
    RESET();
    memcpy(coef_at(&b, last - 1), coef_at(&b, last), 44); /* row 2 twice, row 1 missing */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "appears twice");
    RESET();
    put32(coef_at(&b, last) + 4, 9); /* row 2 far past the others: the count must catch it */
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, 0, NULL);
    RESET();
    put32(coef_at(&b, last) + 4, 0xffffffffu);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "exceed domainSize");
    RESET();
    {
        /* Drop the input rows entirely: nCoefs − 3 entries. */
        s = tbin_find(&b, 4);
        put32(s->data, n_coefs - 3);
        s->size -= 3 * 44;
        CHECK(tbin_save(&b, p) == 0);
        CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, NULL);
        put32(s->data, n_coefs);
        CHECK(tbin_save(&b, p) == 0);
        CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "4 + nCoefs*44");
        put32(s->data, 0);
        s->size = 4;
        CHECK(tbin_save(&b, p) == 0);
        CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "lacks the 3 input rows");
    }
    RESET();
    /* Input row 1 missing: remove that entry (it is the one before last). */
    {
        s = tbin_find(&b, 4);
        memmove(coef_at(&b, last - 1), coef_at(&b, last), 44);
        put32(s->data, n_coefs - 1);
        s->size -= 44;
        CHECK(tbin_save(&b, p) == 0);
        CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "lacks input row 1");
    }
    RESET();
    /* Entries in any order are fine: reverse section 4 and read the same matrices. */
    {
        s = tbin_find(&b, 4);
        for (uint32_t i = 0, j = n_coefs - 1; i < j; i++, j--) {
            uint8_t tmp[44];
            memcpy(tmp, coef_at(&b, i), 44);
            memcpy(coef_at(&b, i), coef_at(&b, j), 44);
            memcpy(coef_at(&b, j), tmp, 44);
        }
        CHECK(tbin_save(&b, p) == 0);
        czk_groth16_pk pk;
        czk_r1cs ab, ref;
        czk_err e = {0};
        char rp[512];
        data_path(rp, sizeof(rp), "mul.r1cs");
        CHECKF(czk_zkey_read(&pk, &ab, p, &e) == CZK_OK, "%s", e.msg);
        CHECKF(czk_circom_r1cs_read(&ref, rp, &e) == CZK_OK, "%s", e.msg);
        CHECK(matrix_equal(&ab.a, &ref.a, 3) && matrix_equal(&ab.b, &ref.b, 3));
        czk_groth16_pk_clear(&pk);
        czk_r1cs_clear(&ab);
        czk_r1cs_clear(&ref);
    }
    RESET();

    /* Container-level faults in a real zkey: each section's size and type fields. */
    tbin_remove(&b, 9);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "section 9 missing");
    RESET();
    tbin_dup(&b, 3);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, "section 3 appears twice");
    RESET();
    put32(b.head + 4, 2);
    CHECK(tbin_save(&b, p) == 0);
    CHECK_FAILS(rd_zkey, p, CZK_EUNSUPPORTED, "version 2");
    RESET();
    {
        size_t len;
        uint8_t *d = slurp_data("mul_final.zkey", &len);
        CHECK(d != NULL);
        size_t pos = 12;
        for (size_t i = 0; i < orig.n; i++) {
            uint8_t saved[12];
            memcpy(saved, d + pos, 12);
            /* The type flipped to another known type, to unknown ones, to 0. */
            uint32_t types[] = {orig.s[i].type % 10 + 1, 11, 0, 0x80000001u};
            for (size_t k2 = 0; k2 < 4; k2++) {
                put32(d + pos, types[k2]);
                CHECK(czk_test_write_file(p, d, len) == 0);
                if (orig.s[i].type == 10 && k2 > 0) {
                    /* Section 10 (the ceremony transcript) is not needed to prove. */
                    czk_err e = {0};
                    CHECKF(rd_zkey(p, &e) == CZK_OK, "%s", e.msg);
                } else {
                    CHECK_FAILS(rd_zkey, p, CZK_EFORMAT, NULL);
                }
            }
            memcpy(d + pos, saved, 12);
            /* The size one byte smaller or larger, huge, and each of its bytes flipped. */
            uint64_t sz = orig.s[i].size;
            uint64_t sizes[] = {sz - 1, sz + 1, UINT64_MAX, (uint64_t)1 << 40};
            for (size_t k2 = 0; k2 < 4; k2++) {
                put64(d + pos + 4, sizes[k2]);
                CHECK(czk_test_write_file(p, d, len) == 0);
                CHECK_FAILS(rd_zkey, p, 0, NULL);
            }
            for (int byte = 0; byte < 8; byte++) {
                memcpy(d + pos, saved, 12);
                d[pos + 4 + byte] ^= 0x80;
                CHECK(czk_test_write_file(p, d, len) == 0);
                CHECK_FAILS(rd_zkey, p, 0, NULL);
            }
            memcpy(d + pos, saved, 12);
            pos += 12 + (size_t)sz;
        }
        free(d);
    }
    free(h);
    tbin_free(&b);
    tbin_free(&orig);
#undef RESET
}

CZK_TEST(snarkjs_corrupt_zkey) {
    CZK_TEST_WITH_TMPDIR(corrupt_zkey_body);
}

/* Loads a fixture JSON document for editing. */
static json_object *load_fixture_json(const char *name) {
    char p[512];
    data_path(p, sizeof(p), name);
    return json_object_from_file(p);
}

/* Writes root to path (keeping root) and returns 0, or -1. */
static int save_json(json_object *root, const char *path) {
    return json_object_to_file_ext(path, root, JSON_C_TO_STRING_PLAIN) == 0 ? 0 : -1;
}

/* Replaces element i of array arr with the string s. */
static void set_idx(json_object *arr, size_t i, const char *s) {
    json_object_array_put_idx(arr, i, json_object_new_string(s));
}

static json_object *path2(json_object *root, const char *key, int i) {
    json_object *v = json_object_object_get(root, key);
    return i < 0 ? v : json_object_array_get_idx(v, (size_t)i);
}

static void fp_dec(char *out, const czk_fp *a) {
    uint64_t l[6];
    czk_fp_to_limbs(l, a);
    czk_snarkjs_limbs_to_dec(out, l, 6);
}

static void corrupt_json_body(czk_test_ctx *t, const char *dir) {
    char p[512];
    snprintf(p, sizeof(p), "%s/bad.json", dir);
    json_object *root;
    char q_dec[130], r_dec[130], big[140];
    czk_snarkjs_limbs_to_dec(q_dec, CZK_FP_MODULUS, 6);
    czk_snarkjs_limbs_to_dec(r_dec, CZK_FR_MODULUS, 4);
    snprintf(big, sizeof(big), "%s0", q_dec); /* 10·q, beyond 384 bits */

    /* Not JSON, or JSON of the wrong shape. */
    const char *texts[] = {"",         "{",   "nul",   "{\"pi_a\": [1,2,3]",
                           "[\"1\",]", "{}x", "\"1\"", "{\"a\":1}{\"b\":2}"};
    for (size_t i = 0; i < sizeof(texts) / sizeof(texts[0]); i++) {
        CHECK(czk_test_write_file(p, texts[i], strlen(texts[i])) == 0);
        CHECK_FAILS(rd_proof, p, CZK_EFORMAT, NULL);
        CHECK_FAILS(rd_public, p, CZK_EFORMAT, NULL);
        CHECK_FAILS(rd_vk, p, CZK_EFORMAT, NULL);
    }
    CHECK(czk_test_write_file(p, "[]", 2) == 0);
    CHECK_FAILS(rd_proof, p, CZK_EFORMAT, "top level");

    /* proof.json */
    const struct {
        const char *key;
        int i, j;
        const char *value;
        int want;
        const char *msg;
    } edits[] = {
        {"pi_a", 0, -1, "-1", CZK_EFORMAT, "pi_a[0]: \"-1\" is not"},
        {"pi_a", 0, -1, "+1", CZK_EFORMAT, "pi_a[0]"},
        {"pi_a", 1, -1, " 1", CZK_EFORMAT, "pi_a[1]"},
        {"pi_a", 1, -1, "1e3", CZK_EFORMAT, "pi_a[1]"},
        {"pi_a", 1, -1, "0x10", CZK_EFORMAT, "pi_a[1]"},
        {"pi_a", 1, -1, "", CZK_EFORMAT, "pi_a[1]"},
        {"pi_a", 0, -1, q_dec, CZK_ERANGE, "pi_a[0]: value not below q"},
        {"pi_a", 0, -1, big, CZK_ERANGE, "pi_a[0]: value not below q"},
        {"pi_a", 2, -1, "2", CZK_EFORMAT, "z must be"},
        {"pi_a", 2, -1, "0", CZK_EFORMAT, "point at infinity"},
        {"pi_c", 1, -1, "5", CZK_ENOTONCURVE, "pi_c"},
        {"pi_b", 0, 1, "7", CZK_ENOTONCURVE, "pi_b"},
        {"pi_b", 2, 1, "1", CZK_EFORMAT, "pi_b"},
        {"pi_b", 1, 0, r_dec, CZK_ENOTONCURVE, "pi_b"},
        {"pi_b", 1, 0, "-3", CZK_EFORMAT, "pi_b[1][0]"},
    };
    for (size_t i = 0; i < sizeof(edits) / sizeof(edits[0]); i++) {
        root = load_fixture_json("proof.json");
        CHECK(root != NULL);
        json_object *arr = path2(root, edits[i].key, edits[i].j < 0 ? -1 : edits[i].i);
        set_idx(arr, (size_t)(edits[i].j < 0 ? edits[i].i : edits[i].j), edits[i].value);
        CHECK(save_json(root, p) == 0);
        json_object_put(root);
        CHECK_FAILS(rd_proof, p, edits[i].want, edits[i].msg);
    }
    /* Numbers instead of strings, missing members, wrong lengths, wrong curve and protocol. */
    root = load_fixture_json("proof.json");
    json_object_array_put_idx(path2(root, "pi_a", -1), 0, json_object_new_int(1));
    CHECK(save_json(root, p) == 0);
    json_object_put(root);
    CHECK_FAILS(rd_proof, p, CZK_EFORMAT, "pi_a[0]: expected a decimal string");
    root = load_fixture_json("proof.json");
    json_object_object_del(root, "pi_c");
    CHECK(save_json(root, p) == 0);
    json_object_put(root);
    CHECK_FAILS(rd_proof, p, CZK_EFORMAT, "pi_c: expected an array");
    root = load_fixture_json("proof.json");
    json_object_array_del_idx(path2(root, "pi_b", -1), 2, 1);
    CHECK(save_json(root, p) == 0);
    json_object_put(root);
    CHECK_FAILS(rd_proof, p, CZK_EFORMAT, "pi_b: expected 3 elements, found 2");
    root = load_fixture_json("proof.json");
    json_object_object_add(root, "curve", json_object_new_string("bn128"));
    CHECK(save_json(root, p) == 0);
    json_object_put(root);
    CHECK_FAILS(rd_proof, p, CZK_EUNSUPPORTED, "bn128");
    root = load_fixture_json("proof.json");
    json_object_object_add(root, "protocol", json_object_new_string("plonk"));
    CHECK(save_json(root, p) == 0);
    json_object_put(root);
    CHECK_FAILS(rd_proof, p, CZK_EUNSUPPORTED, "plonk");
    /* A point on the curve but outside G1. */
    {
        czk_g1_affine off;
        char xs[130], ys[130];
        czk_g1_random_on_curve(&off, &t->rng);
        fp_dec(xs, &off.x);
        fp_dec(ys, &off.y);
        root = load_fixture_json("proof.json");
        set_idx(path2(root, "pi_a", -1), 0, xs);
        set_idx(path2(root, "pi_a", -1), 1, ys);
        CHECK(save_json(root, p) == 0);
        json_object_put(root);
        CHECK_FAILS(rd_proof, p, CZK_ENOTINGROUP, "pi_a");
        czk_g2_affine off2;
        czk_g2_random_on_curve(&off2, &t->rng);
        root = load_fixture_json("proof.json");
        json_object *pb = path2(root, "pi_b", -1);
        fp_dec(xs, &off2.x.c0);
        set_idx(json_object_array_get_idx(pb, 0), 0, xs);
        fp_dec(xs, &off2.x.c1);
        set_idx(json_object_array_get_idx(pb, 0), 1, xs);
        fp_dec(xs, &off2.y.c0);
        set_idx(json_object_array_get_idx(pb, 1), 0, xs);
        fp_dec(xs, &off2.y.c1);
        set_idx(json_object_array_get_idx(pb, 1), 1, xs);
        CHECK(save_json(root, p) == 0);
        json_object_put(root);
        CHECK_FAILS(rd_proof, p, CZK_ENOTINGROUP, "pi_b");
    }
    /* (0, 0) with z = 1 is not czk's infinity in disguise. */
    root = load_fixture_json("proof.json");
    set_idx(path2(root, "pi_c", -1), 0, "0");
    set_idx(path2(root, "pi_c", -1), 1, "0");
    CHECK(save_json(root, p) == 0);
    json_object_put(root);
    CHECK_FAILS(rd_proof, p, CZK_ENOTONCURVE, "pi_c");

    /* public.json: r, a negative, a number, an object, a nested array. */
    const char *pubs[] = {NULL,        "[\"-3\"]",      "[3]",          "{\"0\": \"3\"}",
                          "[[\"3\"]]", "[\"3\", null]", "[\"3\" \"4\"]"};
    char rbuf[200];
    snprintf(rbuf, sizeof(rbuf), "[\"1\", \"%s\"]", r_dec);
    pubs[0] = rbuf;
    for (size_t i = 0; i < sizeof(pubs) / sizeof(pubs[0]); i++) {
        CHECK(czk_test_write_file(p, pubs[i], strlen(pubs[i])) == 0);
        CHECK_FAILS(rd_public, p, i == 0 ? CZK_ERANGE : CZK_EFORMAT,
                    i == 0 ? "[1]: value not below r" : NULL);
    }
    /* A number of many digits is too large, not malformed; a non-digit in it still is. */
    char longnum[320];
    memset(longnum, 0, sizeof longnum);
    longnum[0] = '[';
    longnum[1] = '"';
    memset(longnum + 2, '9', 300);
    memcpy(longnum + 302, "\"]", 2);
    CHECK(czk_test_write_file(p, longnum, strlen(longnum)) == 0);
    CHECK_FAILS(rd_public, p, CZK_ERANGE, "[0]: a 300-digit number is too large");
    longnum[150] = 'x';
    CHECK(czk_test_write_file(p, longnum, strlen(longnum)) == 0);
    CHECK_FAILS(rd_public, p, CZK_EFORMAT, "is not a non-negative decimal integer");

    /* verification_key.json */
    root = load_fixture_json("verification_key.json");
    json_object *ab = json_object_object_get(root, "vk_alphabeta_12");
    json_object *ab00 = json_object_array_get_idx(json_object_array_get_idx(ab, 0), 0);
    char saved[130];
    snprintf(saved, sizeof(saved), "%s",
             json_object_get_string(json_object_array_get_idx(ab00, 0)));
    set_idx(ab00, 0, "12345");
    CHECK(save_json(root, p) == 0);
    CHECK_FAILS(rd_vk, p, CZK_EFORMAT, "vk_alphabeta_12 is not e(vk_alpha_1, vk_beta_2)");
    set_idx(ab00, 0, saved);
    json_object_object_add(root, "nPublic", json_object_new_int(3));
    CHECK(save_json(root, p) == 0);
    CHECK_FAILS(rd_vk, p, CZK_EFORMAT, "nPublic");
    json_object_object_add(root, "nPublic", json_object_new_int(2));
    json_object_object_add(root, "curve", json_object_new_string("BN254"));
    CHECK(save_json(root, p) == 0);
    CHECK_FAILS(rd_vk, p, CZK_EUNSUPPORTED, "bn128");
    json_object_object_add(root, "curve", json_object_new_string("BLS12-381"));
    CHECK(save_json(root, p) == 0);
    czk_err e = {0};
    CHECKF(rd_vk(p, &e) == CZK_OK, "%s", e.msg); /* snarkjs normalizes names the same way */
    json_object_object_del(root, "curve");
    CHECK(save_json(root, p) == 0);
    CHECK_FAILS(rd_vk, p, CZK_EFORMAT, "\"curve\" missing");
    json_object_object_add(root, "curve", json_object_new_string("bls12381"));
    set_idx(json_object_array_get_idx(path2(root, "IC", -1), 2), 1, "4");
    CHECK(save_json(root, p) == 0);
    CHECK_FAILS(rd_vk, p, CZK_ENOTONCURVE, "IC[2]");
    json_object_object_add(root, "IC", json_object_new_array());
    CHECK(save_json(root, p) == 0);
    CHECK_FAILS(rd_vk, p, CZK_EFORMAT, "IC");
    json_object_put(root);
    root = load_fixture_json("verification_key.json");
    json_object *d2 = path2(root, "vk_delta_2", -1);
    json_object_array_put_idx(d2, 0, json_object_new_array());
    json_object_array_add(json_object_array_get_idx(d2, 0), json_object_new_string("0"));
    json_object_array_add(json_object_array_get_idx(d2, 0), json_object_new_string("0"));
    json_object_array_put_idx(d2, 1, json_object_new_array());
    json_object_array_add(json_object_array_get_idx(d2, 1), json_object_new_string("1"));
    json_object_array_add(json_object_array_get_idx(d2, 1), json_object_new_string("0"));
    json_object_array_put_idx(d2, 2, json_object_new_array());
    json_object_array_add(json_object_array_get_idx(d2, 2), json_object_new_string("0"));
    json_object_array_add(json_object_array_get_idx(d2, 2), json_object_new_string("0"));
    CHECK(save_json(root, p) == 0);
    CHECK_FAILS(rd_vk, p, CZK_EFORMAT, "point at infinity");
    json_object_put(root);
}

CZK_TEST(snarkjs_corrupt_json) {
    CZK_TEST_WITH_TMPDIR(corrupt_json_body);
}

/* Random byte flips in every fixture: any outcome but a crash, a leak or a nameless error. */
static void random_flips_body(czk_test_ctx *t, const char *dir) {
    char p[512];
    snprintf(p, sizeof(p), "%s/flip", dir);
    long iters = czk_test_iters(t, 150);
    for (size_t f = 0; f < N_FIXTURES; f++) {
        size_t len;
        uint8_t *d = slurp_data(FIXTURES[f].name, &len);
        CHECK(d != NULL && len > 0);
        uint8_t *g = malloc(len);
        for (long it = 0; it < iters; it++) {
            memcpy(g, d, len);
            int flips = 1 + (int)(czk_rng_u64(&t->rng) % 4);
            for (int k = 0; k < flips; k++) {
                size_t at = (size_t)(czk_rng_u64(&t->rng) % len);
                /* Half the time aim at the first 64 bytes, where the headers are. */
                if (czk_rng_u64(&t->rng) & 1)
                    at %= len < 64 ? len : 64;
                g[at] ^= (uint8_t)(1u << (czk_rng_u64(&t->rng) % 8));
            }
            CHECK(czk_test_write_file(p, g, len) == 0);
            CHECK_NO_CRASH(FIXTURES[f].fn, p);
        }
        free(g);
        free(d);
    }
}

CZK_TEST(snarkjs_random_flips) {
    CZK_TEST_WITH_TMPDIR(random_flips_body);
}

CZK_TEST(snarkjs_wtns_write_roundtrip) {
    /* What czk writes, czk reads back; the snarkjs interop test checks snarkjs reads it. */
    char path[] = "/tmp/czk-wtns-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    close(fd);
    czk_fr w[37];
    czk_fr_set_one(&w[0]);
    for (size_t i = 1; i < 37; i++)
        czk_fr_random(&w[i], &t->rng);
    czk_fr_set_zero(&w[5]);
    czk_fr_neg(&w[6], &w[0]); /* r - 1 */
    CHECK_EQ_INT(czk_circom_wtns_write(path, w, 37, NULL), CZK_OK);
    czk_fr *back = NULL;
    size_t n = 0;
    CHECK_EQ_INT(czk_circom_wtns_read(&back, &n, path, NULL), CZK_OK);
    CHECK_EQ_INT(n, 37);
    CHECK_MEM(back, w, sizeof(w));
    czk_free(back);
    CHECK_EQ_INT(czk_circom_wtns_write(path, w, 0, NULL), CZK_EINVAL);
    unlink(path);
}

/* 1 when every one of the n values is zero (a witness cleared after a failed parse). */
static int all_zero(const czk_fr *w, size_t n) {
    int z = 1;
    for (size_t i = 0; i < n; i++)
        z &= czk_fr_is_zero(&w[i]);
    return z;
}

/*
 * The in-memory parser (what the engine parses a request's witness with) against the file
 * reader, and its refusals: the count checked against the circuit, the engine's junk image,
 * every header fault of the file tests, every truncation. A failure names the image and
 * leaves nothing of the witness in the caller's array.
 */
CZK_TEST(snarkjs_wtns_parse_image) {
    char wp[512];
    data_path(wp, sizeof(wp), "mul.wtns");
    size_t len = 0;
    uint8_t *img = czk_test_read_file(wp, &len);
    CHECK(img != NULL);
    czk_err e = {0};
    czk_fr *ref = NULL;
    size_t n_ref = 0;
    CHECKF(czk_circom_wtns_read(&ref, &n_ref, wp, &e) == CZK_OK, "%s", e.msg);
    size_t n = 0;
    CHECKF(czk_circom_wtns_count(&n, img, len, "mul.wtns", &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(n, n_ref);
    czk_fr w[64];
    CHECK(n + 1 <= sizeof(w) / sizeof(w[0]));
    CHECKF(czk_circom_wtns_parse(w, n, img, len, "mul.wtns", &e) == CZK_OK, "%s", e.msg);
    CHECK_MEM(w, ref, n * sizeof(czk_fr));
    CHECK(czk_fr_is_one(&w[0]));
    czk_free(ref);

    /* The count must be the circuit's. */
    CHECK_EQ_INT(czk_circom_wtns_parse(w, n + 1, img, len, "req r1 partition 0", &e), CZK_EINVAL);
    CHECK(strstr(e.msg, "req r1 partition 0") != NULL && strstr(e.msg, "witness values") != NULL);
    CHECK_EQ_INT(czk_circom_wtns_parse(w, n - 1, img, len, "req", &e), CZK_EINVAL);

    /* The engine's case: a wrong image is refused with a message; nothing is counted. */
    uint8_t junk[16] = "wtns";
    memset(&e, 0, sizeof(e));
    CHECK(czk_circom_wtns_parse(w, n, junk, sizeof junk, "junk", &e) != CZK_OK);
    CHECK(e.msg[0] != '\0' && strstr(e.msg, "junk") != NULL);
    size_t got = 99;
    CHECK(czk_circom_wtns_count(&got, junk, sizeof junk, "junk", &e) != CZK_OK);
    CHECK_EQ_INT(got, 0);

    uint8_t *bad = malloc(len);
    CHECK(bad != NULL);
    /* Header faults: one set of checks with the file reader (offsets: 12-byte container
     * header, section 1 header at 12, its payload at 24; section 2's payload at 76). */
    CHECK(le32(img + 12) == 1 && le32(img + 24) == 32 && le32(img + 64) == 2);
    struct {
        size_t at;
        uint32_t v;
        int want;
        const char *needle;
    } faults[] = {
        {4, 1, CZK_EUNSUPPORTED, "version 1"},      /* version */
        {24, 48, CZK_EFORMAT, NULL},                /* n8: no 48-byte prime fits */
        {24, 8, CZK_EUNSUPPORTED, "not BLS12-381"}, /* n8 8: another field */
        {28, 0x11, CZK_EUNSUPPORTED, "BLS12-381"},  /* the prime */
        {60, 0, CZK_EFORMAT, "nWitness is 0"},      /* nWitness */
        {60, 0xffffffffu, CZK_EFORMAT, "nWitness*32"},
    };
    for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
        memcpy(bad, img, len);
        put32(bad + faults[i].at, faults[i].v);
        for (size_t k = 0; k < n; k++)
            czk_fr_set_one(&w[k]);
        int rc = czk_circom_wtns_parse(w, n, bad, len, "bad.wtns", &e);
        CHECKF(rc == faults[i].want, "fault %zu: rc %d (%s), want %d", i, rc, e.msg,
               faults[i].want);
        CHECKF(strstr(e.msg, "bad.wtns") != NULL && msg_has(e.msg, faults[i].needle),
               "fault %zu: '%s'", i, e.msg);
        size_t c = 0;
        CHECK_EQ_INT(czk_circom_wtns_count(&c, bad, len, "bad.wtns", &e), faults[i].want);
    }
    /* The bn128 prime, named. */
    memcpy(bad, img, len);
    for (int l = 0; l < 4; l++)
        put64(bad + 28 + 8 * l, BN128_R[l]);
    CHECK_EQ_INT(czk_circom_wtns_parse(w, n, bad, len, "bn.wtns", &e), CZK_EUNSUPPORTED);
    CHECK(strstr(e.msg, "bn128") != NULL);
    /* Values: w[0] != 1, and one not below r: refused, and the array cleared. */
    memcpy(bad, img, len);
    bad[76] = 2;
    CHECK_EQ_INT(czk_circom_wtns_parse(w, n, bad, len, "bad.wtns", &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "w[0] is not 1") != NULL);
    CHECK(all_zero(w, n));
    memcpy(bad, img, len);
    for (int l = 0; l < 4; l++)
        put64(bad + 76 + 32 * 2 + 8 * l, CZK_FR_MODULUS[l]);
    CHECK_EQ_INT(czk_circom_wtns_parse(w, n, bad, len, "bad.wtns", &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "value 2 is not below r") != NULL);
    CHECK(all_zero(w, n));
    /* Every truncation fails (under ASan: without reading past the end). */
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *part = malloc(cut > 0 ? cut : 1);
        CHECK(part != NULL);
        memcpy(part, img, cut);
        int rc = czk_circom_wtns_parse(w, n, part, cut, "cut.wtns", &e);
        free(part);
        CHECKF(rc == CZK_EFORMAT, "cut at %zu: rc %d (%s)", cut, rc, e.msg);
    }
    free(bad);
    free(img);
}
