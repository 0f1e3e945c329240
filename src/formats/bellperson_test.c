/*
 * Tests of the bellperson .params / .vk / proof codecs.
 *
 * Files are checked against an image built here independently of the writer (a plain walk of
 * doc/FORMATS.md §3.1–3.2 with the point serializers), against literal bytes from @noble/curves
 * 2.4.0, and against every class of damage a reader must survive: truncation, hostile length
 * prefixes, bad points in each vector, trailing bytes and a wrong shape.
 *
 * Upstream code cited here was read at bellperson 0.27.0 (@d1fa22cb).
 */
#include "formats/bellperson.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "groth16/backend.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/synth.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/pool.h"
#include "util/status.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- helpers ----------------------------------------------------------------------------- */

static int hex_decode(uint8_t *out, size_t n, const char *hex) {
    if (strlen(hex) != 2 * n)
        return -1;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* A fresh directory under /tmp for one test's files. */
static int tmp_dir(char dir[64]) {
    strcpy(dir, "/tmp/czk-bp-XXXXXX");
    return mkdtemp(dir) != NULL ? 0 : -1;
}

static void tmp_file(char out[128], const char *dir, const char *name) {
    snprintf(out, 128, "%s/%s", dir, name);
}

/* A fresh directory (tmp_dir) and the path of `name` in it. */
static int tmp_path(char dir[64], char path[128], const char *name) {
    if (tmp_dir(dir) != 0)
        return -1;
    tmp_file(path, dir, name);
    return 0;
}

static void tmp_remove(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char p[512];
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* The end of a test that leaves nothing allocated: removes `dir` and checks that. */
static void tmp_remove_leak_free(czk_test_ctx *t, const char *dir) {
    tmp_remove(dir);
    CHECK_EQ_INT(czk_alloc_in_use(), 0);
}

static off_t file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : -1;
}

/* n distinct points of group g (g1 or g2), start + i·step, with one batch inversion (random
 * points are slow). */
#define RANDOM_POINTS(g)                                                                           \
    static int random_##g##s(czk_##g##_affine *out, size_t n, czk_rng *rng) {                      \
        if (n == 0)                                                                                \
            return 0;                                                                              \
        czk_##g##_jacobian *j = malloc(n * sizeof(*j));                                            \
        if (j == NULL)                                                                             \
            return -1;                                                                             \
        czk_##g##_affine start, step;                                                              \
        czk_##g##_random(&start, rng);                                                             \
        czk_##g##_random(&step, rng);                                                              \
        czk_##g##_jacobian_from_affine(&j[0], &start);                                             \
        for (size_t i = 1; i < n; i++)                                                             \
            czk_##g##_jacobian_add_affine_var(&j[i], &j[i - 1], &step);                            \
        int rc = czk_##g##s_to_affine(out, j, n);                                                  \
        free(j);                                                                                   \
        return rc == CZK_OK ? 0 : -1;                                                              \
    }
RANDOM_POINTS(g1)
RANDOM_POINTS(g2)
#undef RANDOM_POINTS

/* Vector sizes of a test key, in file order: ic, then h, l, a, b_g1 (= b_g2). */
typedef struct key_shape {
    size_t n_ic, n_h, n_l, n_a, n_b;
} key_shape;

static const key_shape SMALL = {.n_ic = 3, .n_h = 7, .n_l = 5, .n_a = 6, .n_b = 4};

static int make_vk(czk_groth16_vk *vk, size_t n_ic, czk_rng *rng) {
    memset(vk, 0, sizeof(*vk));
    czk_g1_random(&vk->alpha_g1, rng);
    czk_g1_random(&vk->beta_g1, rng);
    czk_g1_random(&vk->delta_g1, rng);
    czk_g2_random(&vk->beta_g2, rng);
    czk_g2_random(&vk->gamma_g2, rng);
    czk_g2_random(&vk->delta_g2, rng);
    vk->ic = czk_malloc(n_ic * sizeof(czk_g1_affine));
    vk->n_ic = n_ic;
    return vk->ic != NULL && random_g1s(vk->ic, n_ic, rng) == 0 ? 0 : -1;
}

/* A bellperson-shaped key of random valid points (MONOMIAL, FILTERED, consistent sizes). */
static int make_pk(czk_groth16_pk *pk, const key_shape *s, czk_rng *rng) {
    memset(pk, 0, sizeof(*pk));
    if (make_vk(&pk->vk, s->n_ic, rng) != 0)
        return -1;
    pk->h_basis = CZK_H_MONOMIAL;
    pk->density = CZK_DENSITY_FILTERED;
    pk->domain_size = s->n_h + 1;
    pk->n_public = s->n_ic - 1;
    pk->n_vars = s->n_ic + s->n_l;
    pk->n_h = s->n_h;
    pk->n_l = s->n_l;
    pk->n_a = s->n_a;
    pk->n_b_g1 = pk->n_b_g2 = s->n_b;
    pk->h = czk_malloc(s->n_h * sizeof(czk_g1_affine));
    pk->l = czk_malloc(s->n_l * sizeof(czk_g1_affine));
    pk->a = czk_malloc(s->n_a * sizeof(czk_g1_affine));
    pk->b_g1 = czk_malloc(s->n_b * sizeof(czk_g1_affine));
    pk->b_g2 = czk_malloc(s->n_b * sizeof(czk_g2_affine));
    if ((s->n_h && !pk->h) || (s->n_l && !pk->l) || (s->n_a && !pk->a) ||
        (s->n_b && (!pk->b_g1 || !pk->b_g2)))
        return -1;
    return random_g1s(pk->h, s->n_h, rng) | random_g1s(pk->l, s->n_l, rng) |
           random_g1s(pk->a, s->n_a, rng) | random_g1s(pk->b_g1, s->n_b, rng) |
           random_g2s(pk->b_g2, s->n_b, rng);
}

static int g1s_equal(const czk_g1_affine *a, const czk_g1_affine *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!czk_g1_affine_equal(&a[i], &b[i]))
            return 0;
    return 1;
}

static int vk_equal(const czk_groth16_vk *a, const czk_groth16_vk *b) {
    return czk_g1_affine_equal(&a->alpha_g1, &b->alpha_g1) &&
           czk_g1_affine_equal(&a->beta_g1, &b->beta_g1) &&
           czk_g1_affine_equal(&a->delta_g1, &b->delta_g1) &&
           czk_g2_affine_equal(&a->beta_g2, &b->beta_g2) &&
           czk_g2_affine_equal(&a->gamma_g2, &b->gamma_g2) &&
           czk_g2_affine_equal(&a->delta_g2, &b->delta_g2) && a->n_ic == b->n_ic &&
           g1s_equal(a->ic, b->ic, a->n_ic);
}

static int pk_equal(const czk_groth16_pk *a, const czk_groth16_pk *b) {
    if (!vk_equal(&a->vk, &b->vk) || a->h_basis != b->h_basis || a->density != b->density ||
        a->domain_size != b->domain_size || a->n_vars != b->n_vars || a->n_public != b->n_public ||
        a->n_h != b->n_h || a->n_l != b->n_l || a->n_a != b->n_a || a->n_b_g1 != b->n_b_g1 ||
        a->n_b_g2 != b->n_b_g2)
        return 0;
    if (!g1s_equal(a->h, b->h, a->n_h) || !g1s_equal(a->l, b->l, a->n_l) ||
        !g1s_equal(a->a, b->a, a->n_a) || !g1s_equal(a->b_g1, b->b_g1, a->n_b_g1))
        return 0;
    for (size_t i = 0; i < a->n_b_g2; i++)
        if (!czk_g2_affine_equal(&a->b_g2[i], &b->b_g2[i]))
            return 0;
    return 1;
}

static int pk_is_zero(const czk_groth16_pk *pk) {
    static const czk_groth16_pk zero;
    return memcmp(pk, &zero, sizeof(zero)) == 0;
}

/*
 * The file image of a key with the given vector lengths, written here without the library's
 * writer (doc/FORMATS.md §3.1–3.2 directly), so that lengths that break the shape can be built.
 * vec[v] holds len[v] points (G2 for v = 4). Returns a malloc'ed buffer.
 */
static uint8_t *image(const czk_groth16_vk *vk, const size_t len[5], const void *const vec[5],
                      int with_vectors, size_t *out_len) {
    size_t n = 868 + 96 * vk->n_ic;
    if (with_vectors)
        n += 20 + 96 * (len[0] + len[1] + len[2] + len[3]) + 192 * len[4];
    uint8_t *b = malloc(n), *p = b;
    if (b == NULL)
        return NULL;
    czk_g1_affine_serialize(p, &vk->alpha_g1), p += 96;
    czk_g1_affine_serialize(p, &vk->beta_g1), p += 96;
    czk_g2_affine_serialize(p, &vk->beta_g2), p += 192;
    czk_g2_affine_serialize(p, &vk->gamma_g2), p += 192;
    czk_g1_affine_serialize(p, &vk->delta_g1), p += 96;
    czk_g2_affine_serialize(p, &vk->delta_g2), p += 192;
    for (int s = 24; s >= 0; s -= 8)
        *p++ = (uint8_t)(vk->n_ic >> s);
    for (size_t i = 0; i < vk->n_ic; i++, p += 96)
        czk_g1_affine_serialize(p, &vk->ic[i]);
    for (int v = 0; with_vectors && v < 5; v++) {
        for (int s = 24; s >= 0; s -= 8)
            *p++ = (uint8_t)(len[v] >> s);
        for (size_t i = 0; i < len[v]; i++) {
            if (v == 4) {
                czk_g2_affine_serialize(p, (const czk_g2_affine *)vec[v] + i);
                p += 192;
            } else {
                czk_g1_affine_serialize(p, (const czk_g1_affine *)vec[v] + i);
                p += 96;
            }
        }
    }
    *out_len = n;
    return b;
}

static uint8_t *pk_image(const czk_groth16_pk *pk, size_t *out_len) {
    const size_t len[5] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2};
    const void *const vec[5] = {pk->h, pk->l, pk->a, pk->b_g1, pk->b_g2};
    return image(&pk->vk, len, vec, 1, out_len);
}

/* The damage tests' start: a SMALL key of random points, its file image b[0..n), and a fresh
 * directory with `path` naming the file to write the damaged images to. */
typedef struct small_file {
    char dir[64], path[128];
    czk_groth16_pk pk;
    uint8_t *b, *c; /* c: room for a damaged copy of b and 192 bytes more */
    size_t n;
} small_file;

static int small_file_make(small_file *f, const char *name, czk_rng *rng) {
    memset(f, 0, sizeof(*f));
    if (make_pk(&f->pk, &SMALL, rng) != 0 || (f->b = pk_image(&f->pk, &f->n)) == NULL ||
        (f->c = malloc(f->n + 192)) == NULL)
        return -1;
    return tmp_path(f->dir, f->path, name);
}

static void small_file_free(small_file *f) {
    free(f->c);
    free(f->b);
    czk_groth16_pk_clear(&f->pk);
    tmp_remove(f->dir);
}

/* Whether the file at `path` is img[0..len) byte for byte (img NULL: no); frees img. Both
 * are dumped when they differ. */
static int file_holds(const char *path, uint8_t *img, size_t len) {
    size_t n = 0;
    uint8_t *b = czk_test_read_file(path, &n);
    int ok = b != NULL && img != NULL && n == len && memcmp(b, img, n) == 0;
    if (!ok && b != NULL && img != NULL && n == len) {
        czk_test_dump("file", b, n);
        czk_test_dump("image", img, n);
    }
    free(b);
    free(img);
    return ok;
}

/* Offset of vector v's length prefix (v = 5: the end of the file). */
static size_t vec_offset(const czk_groth16_pk *pk, int v) {
    const size_t len[5] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2};
    size_t off = 868 + 96 * pk->vk.n_ic;
    for (int i = 0; i < v; i++)
        off += 4 + (i == 4 ? 192 : 96) * len[i];
    return off;
}

/* The classes of damage to one uncompressed point, and the code each must produce. */
enum { BAD_FLAGS, BAD_RANGE, BAD_CURVE, BAD_GROUP, BAD_INFINITY, BAD_COUNT };
static const char *const BAD_NAME[BAD_COUNT] = {"flags", "x >= q", "off curve", "off subgroup",
                                                "infinity"};
static const int BAD_CODE[BAD_COUNT] = {CZK_EFLAGS, CZK_ERANGE, CZK_ENOTONCURVE, CZK_ENOTINGROUP,
                                        CZK_EBADENC};

static void q_bytes(uint8_t out[48]) {
    for (int i = 0; i < 48; i++)
        out[47 - i] = (uint8_t)(CZK_FP_MODULUS[i / 8] >> (8 * (i % 8)));
}

static void damage_point(uint8_t *p, int g2, int cls, czk_rng *rng) {
    size_t size = g2 ? 192 : 96;
    switch (cls) {
    case BAD_FLAGS:
        p[0] |= 0x80; /* the compression bit, in an uncompressed encoding */
        break;
    case BAD_RANGE:
        q_bytes(p); /* x (x.c1 for G2) = q; q's top three bits are clear */
        break;
    case BAD_CURVE:
        p[size - 1] ^= 1;
        break;
    case BAD_GROUP:
        if (g2) {
            czk_g2_affine r;
            czk_g2_random_on_curve(&r, rng);
            czk_g2_affine_serialize(p, &r);
        } else {
            czk_g1_affine r;
            czk_g1_random_on_curve(&r, rng);
            czk_g1_affine_serialize(p, &r);
        }
        break;
    case BAD_INFINITY:
        memset(p, 0, size);
        p[0] = 0x40;
        break;
    }
}

/* Reads `bytes` as a .params file; returns the code, the message in *err, pk cleared. */
static int read_params_bytes(const char *path, const uint8_t *b, size_t n, czk_key_check check,
                             czk_pool *pool, czk_err *err) {
    if (czk_test_write_file(path, b, n) != 0)
        return 1;
    czk_groth16_pk pk;
    int rc = czk_bellperson_params_read(&pk, path, check, pool, err);
    if (rc != CZK_OK && !pk_is_zero(&pk))
        return 2;
    czk_groth16_pk_clear(&pk);
    return rc;
}

/* ---- known bytes ------------------------------------------------------------------------- */

/* From @noble/curves 2.4.0 (tests/noble): G1, G2 and [2]G1, zcash encodings. */
static const char G1_U[] =
    "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb"
    "22c6bb08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa"
    "232946c5e7e1";
static const char G1_C[] = "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e8"
                           "3ff97a1aeffb3af00adb22c6bb";
static const char G1X2_U[] =
    "0572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f75bb8f1c7c42c39a8c5529"
    "bf0f4e166a9d8cabc673a322fda673779d8e3822ba3ecb8670e461f73bb9021d5fd76a4c56d9d4cd16bd1bba86"
    "881979749d28";
static const char G1X2_C[] = "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae28f"
                             "75bb8f1c7c42c39a8c5529bf0f4e";
static const char G2_U[] =
    "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d"
    "042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd480"
    "56c8c121bdb80606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab3f370d275cec1d"
    "a1aaa9075ff05f79be0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c923ac9cc"
    "3baca289e193548608b82801";
static const char G2_C[] =
    "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac7d055d"
    "042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326a805bbefd480"
    "56c8c121bdb8";

static void g1_double(czk_g1_affine *r, const czk_g1_affine *p) {
    czk_g1_jacobian j;
    czk_g1_jacobian_from_affine(&j, p);
    czk_g1_jacobian_dbl(&j, &j);
    czk_g1_jacobian_to_affine(r, &j);
}

CZK_TEST(bp_known_encodings) {
    uint8_t g1u[96], g1x2u[96], g2u[192], g1c[48], g1x2c[48], g2c[96];
    CHECK(hex_decode(g1u, 96, G1_U) == 0 && hex_decode(g1x2u, 96, G1X2_U) == 0);
    CHECK(hex_decode(g2u, 192, G2_U) == 0 && hex_decode(g1c, 48, G1_C) == 0);
    CHECK(hex_decode(g1x2c, 48, G1X2_C) == 0 && hex_decode(g2c, 96, G2_C) == 0);
    char dir[64], path[128];
    CHECK(tmp_dir(dir) == 0);

    /* A .vk of generators: alpha = beta_g1 = delta_g1 = G1, the G2 points = G2, ic = {[2]G1}. */
    czk_g1_affine g1x2;
    g1_double(&g1x2, &CZK_G1_GENERATOR);
    czk_groth16_vk vk = {.alpha_g1 = CZK_G1_GENERATOR,
                         .beta_g1 = CZK_G1_GENERATOR,
                         .delta_g1 = CZK_G1_GENERATOR,
                         .beta_g2 = CZK_G2_GENERATOR,
                         .gamma_g2 = CZK_G2_GENERATOR,
                         .delta_g2 = CZK_G2_GENERATOR,
                         .ic = &g1x2,
                         .n_ic = 1};
    tmp_file(path, dir, "gen.vk");
    CHECK_EQ_INT(czk_bellperson_vk_write(path, &vk, NULL), CZK_OK);
    size_t n = 0;
    uint8_t *b = czk_test_read_file(path, &n);
    CHECK(b != NULL);
    CHECK_EQ_INT(n, 868 + 96);
    static const size_t g1_at[] = {0, 96, 576}, g2_at[] = {192, 384, 672};
    for (int i = 0; i < 3; i++) {
        CHECK_MEM(b + g1_at[i], g1u, 96);
        CHECK_MEM(b + g2_at[i], g2u, 192);
    }
    static const uint8_t one_be[4] = {0, 0, 0, 1};
    CHECK_MEM(b + 864, one_be, 4);
    CHECK_MEM(b + 868, g1x2u, 96);
    free(b);
    czk_groth16_vk back;
    CHECK_EQ_INT(czk_bellperson_vk_read(&back, path, NULL), CZK_OK);
    CHECK(vk_equal(&back, &vk));
    czk_groth16_vk_clear(&back);

    /* The proof (G1, G2, [2]G1) is the three compressed encodings back to back. */
    czk_groth16_proof pr = {.a = CZK_G1_GENERATOR, .b = CZK_G2_GENERATOR, .c = g1x2}, pr2;
    uint8_t enc[192];
    czk_bellperson_proof_encode(enc, &pr);
    CHECK_MEM(enc, g1c, 48);
    CHECK_MEM(enc + 48, g2c, 96);
    CHECK_MEM(enc + 144, g1x2c, 48);
    CHECK_EQ_INT(czk_bellperson_proof_decode(&pr2, enc, NULL), CZK_OK);
    CHECK(czk_g1_affine_equal(&pr2.a, &pr.a) && czk_g2_affine_equal(&pr2.b, &pr.b) &&
          czk_g1_affine_equal(&pr2.c, &pr.c));
    tmp_remove(dir);
}

/* ---- round trips ------------------------------------------------------------------------- */

CZK_TEST(bp_vk_roundtrip) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "k.vk") == 0);
    static const size_t n_ics[] = {1, 2, 40};
    for (size_t k = 0; k < sizeof(n_ics) / sizeof(n_ics[0]); k++) {
        czk_groth16_vk vk, back;
        CHECK(make_vk(&vk, n_ics[k], &t->rng) == 0);
        size_t before = czk_alloc_in_use();
        CHECK_EQ_INT(czk_bellperson_vk_write(path, &vk, NULL), CZK_OK);
        CHECK_EQ_INT(czk_alloc_in_use(), before);
        CHECK_EQ_INT(file_size(path), 868 + 96 * n_ics[k]);
        size_t ni = 0;
        static const size_t zero[5];
        static const void *const none[5];
        uint8_t *img = image(&vk, zero, none, 0, &ni);
        CHECK(file_holds(path, img, ni));
        czk_err err = {0};
        CHECK_EQ_INT(czk_bellperson_vk_read(&back, path, &err), CZK_OK);
        CHECK(vk_equal(&back, &vk));
        czk_groth16_vk_clear(&back);
        czk_groth16_vk_clear(&vk);
    }
    tmp_remove(dir);
}

CZK_TEST(bp_params_roundtrip) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "k.params") == 0);
    /* Small, edge (empty l, a = ic only, no B, a domain of 1) and a few hundred points. */
    const key_shape shapes[] = {SMALL,
                                {.n_ic = 1, .n_h = 0, .n_l = 0, .n_a = 1, .n_b = 0},
                                {.n_ic = 2, .n_h = 1, .n_l = 3, .n_a = 5, .n_b = 5},
                                {.n_ic = 40, .n_h = 255, .n_l = 200, .n_a = 230, .n_b = 60}};
    for (size_t k = 0; k < sizeof(shapes) / sizeof(shapes[0]); k++) {
        const key_shape *s = &shapes[k];
        czk_groth16_pk pk, back;
        CHECK(make_pk(&pk, s, &t->rng) == 0);
        czk_err err = {0};
        CHECKF(czk_bellperson_params_write(path, &pk, NULL, &err) == CZK_OK, "%s", err.msg);
        /* doc/FORMATS.md §3.4. */
        off_t want = 868 + 96 * (off_t)s->n_ic + 5 * 4 +
                     96 * (off_t)(s->n_h + s->n_l + s->n_a + s->n_b) + 192 * (off_t)s->n_b;
        CHECK_EQ_INT(file_size(path), want);
        size_t ni = 0;
        uint8_t *img = pk_image(&pk, &ni);
        CHECK(file_holds(path, img, ni));
        for (int check = CZK_KEY_CHECK_FULL; check <= CZK_KEY_CHECK_CURVE; check++) {
            CHECKF(czk_bellperson_params_read(&back, path, check, NULL, &err) == CZK_OK, "%s",
                   err.msg);
            CHECK(pk_equal(&back, &pk));
            czk_groth16_pk_clear(&back);
        }
        czk_groth16_pk_clear(&pk);
    }
    tmp_remove_leak_free(t, dir);
}

CZK_TEST(bp_params_mt_equals_st) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "k.params") == 0);
    const key_shape s = {.n_ic = 5, .n_h = 2047, .n_l = 1500, .n_a = 1400, .n_b = 300};
    czk_groth16_pk pk, st, mt;
    CHECK(make_pk(&pk, &s, &t->rng) == 0);
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, NULL), CZK_OK);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 4), CZK_OK);
    CHECK_EQ_INT(czk_bellperson_params_read(&st, path, CZK_KEY_CHECK_FULL, NULL, NULL), CZK_OK);
    CHECK_EQ_INT(czk_bellperson_params_read(&mt, path, CZK_KEY_CHECK_FULL, pool, NULL), CZK_OK);
    CHECK(pk_equal(&st, &pk) && pk_equal(&mt, &pk));
    czk_groth16_pk_clear(&mt);
    CHECK_EQ_INT(czk_bellperson_params_read(&mt, path, CZK_KEY_CHECK_CURVE, pool, NULL), CZK_OK);
    CHECK(pk_equal(&mt, &pk));
    czk_groth16_pk_clear(&mt);
    czk_groth16_pk_clear(&st);

    /* Two bad points in h, in different pool chunks, and one in b_g2: one thread and four
     * report the lowest-indexed one, with the same text. */
    size_t n = 0;
    uint8_t *b = pk_image(&pk, &n);
    CHECK(b != NULL);
    size_t h0 = vec_offset(&pk, 0) + 4;
    damage_point(b + h0 + 96 * 1900, 0, BAD_CURVE, &t->rng);
    damage_point(b + h0 + 96 * 700, 0, BAD_GROUP, &t->rng);
    damage_point(b + vec_offset(&pk, 4) + 4 + 192 * 3, 1, BAD_FLAGS, &t->rng);
    czk_err e1 = {0}, e2 = {0};
    CHECK_EQ_INT(read_params_bytes(path, b, n, CZK_KEY_CHECK_FULL, NULL, &e1), CZK_ENOTINGROUP);
    CHECK_EQ_INT(read_params_bytes(path, b, n, CZK_KEY_CHECK_FULL, pool, &e2), CZK_ENOTINGROUP);
    CHECKF(strcmp(e1.msg, e2.msg) == 0, "'%s' vs '%s'", e1.msg, e2.msg);
    CHECKF(strstr(e1.msg, "vector h: point 700 of 2047") != NULL, "%s", e1.msg);
    /* Without the subgroup check the first fault is the off-curve point. */
    CHECK_EQ_INT(read_params_bytes(path, b, n, CZK_KEY_CHECK_CURVE, NULL, &e1), CZK_ENOTONCURVE);
    CHECK_EQ_INT(read_params_bytes(path, b, n, CZK_KEY_CHECK_CURVE, pool, &e2), CZK_ENOTONCURVE);
    CHECKF(strcmp(e1.msg, e2.msg) == 0, "'%s' vs '%s'", e1.msg, e2.msg);
    CHECKF(strstr(e1.msg, "vector h: point 1900 of 2047") != NULL, "%s", e1.msg);
    free(b);
    czk_pool_destroy(pool);
    czk_groth16_pk_clear(&pk);
    tmp_remove(dir);
}

/* Written over a pool, a key whose vectors span several of the writer's chunks (16,384 points)
 * is the image the format gives, byte for byte; a point at infinity in a later chunk is named
 * by its index in its vector, and no file is left. */
CZK_TEST(bp_params_write_pooled) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "k.params") == 0);
    const key_shape s = {.n_ic = 3, .n_h = 65535, .n_l = 16390, .n_a = 300, .n_b = 16390};
    czk_groth16_pk pk, back;
    CHECK(make_pk(&pk, &s, &t->rng) == 0);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 4), CZK_OK);
    czk_err err = {0};
    CHECKF(czk_bellperson_params_write(path, &pk, pool, &err) == CZK_OK, "%s", err.msg);
    size_t ni = 0;
    uint8_t *img = pk_image(&pk, &ni);
    CHECK(img != NULL && file_holds(path, img, ni)); /* file_holds frees img */
    CHECKF(czk_bellperson_params_read(&back, path, CZK_KEY_CHECK_CURVE, pool, &err) == CZK_OK, "%s",
           err.msg);
    CHECK(pk_equal(&back, &pk));
    czk_groth16_pk_clear(&back);
    CHECK(unlink(path) == 0);
    memset(&pk.h[33000], 0, sizeof pk.h[0]); /* infinity, as the writer sees it */
    memset(&pk.h[65000], 0, sizeof pk.h[0]);
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, pool, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "vector h: point 33000 is at infinity") != NULL, "%s", err.msg);
    CHECK(file_size(path) < 0);
    czk_pool_destroy(pool);
    czk_groth16_pk_clear(&pk);
    tmp_remove(dir);
}

/* ---- proofs ------------------------------------------------------------------------------ */

static void random_proof(czk_groth16_proof *p, czk_rng *rng) {
    czk_g1_random(&p->a, rng);
    czk_g2_random(&p->b, rng);
    czk_g1_random(&p->c, rng);
}

static int proof_equal(const czk_groth16_proof *a, const czk_groth16_proof *b) {
    return czk_g1_affine_equal(&a->a, &b->a) && czk_g2_affine_equal(&a->b, &b->b) &&
           czk_g1_affine_equal(&a->c, &b->c);
}

CZK_TEST(bp_proof_roundtrip) {
    long iters = czk_test_iters(t, 20);
    for (long i = 0; i < iters; i++) {
        czk_groth16_proof p, q;
        random_proof(&p, &t->rng);
        uint8_t enc[CZK_BELLPERSON_PROOF_BYTES], enc2[CZK_BELLPERSON_PROOF_BYTES];
        czk_bellperson_proof_encode(enc, &p);
        CHECK_EQ_INT(czk_bellperson_proof_decode(&q, enc, NULL), CZK_OK);
        CHECK(proof_equal(&p, &q));
        czk_bellperson_proof_encode(enc2, &q);
        CHECK_MEM(enc, enc2, sizeof(enc));
    }
}

CZK_TEST(bp_proof_corrupt) {
    czk_groth16_proof p, q;
    random_proof(&p, &t->rng);
    uint8_t good[192];
    czk_bellperson_proof_encode(good, &p);
    /* An x with x^3 + 4 a non-square, for the "not on the curve" case of a compressed G1
     * point; for G2 the same integer as x.c0 with x.c1 = 0 is tried until one fails. */
    uint8_t g1_nosqrt[48], g2_nosqrt[96];
    int found1 = 0, found2 = 0;
    for (unsigned x = 1; x < 1000 && !(found1 && found2); x++) {
        uint8_t c1[48] = {0x80}, c2[96] = {0x80};
        c1[47] = (uint8_t)x;
        c1[46] = (uint8_t)(x >> 8);
        c2[95] = (uint8_t)x;
        c2[94] = (uint8_t)(x >> 8);
        czk_g1_affine a;
        czk_g2_affine b;
        if (!found1 && czk_g1_affine_uncompress_unchecked(&a, c1) == CZK_ENOSQRT) {
            memcpy(g1_nosqrt, c1, 48);
            found1 = 1;
        }
        if (!found2 && czk_g2_affine_uncompress_unchecked(&b, c2) == CZK_ENOSQRT) {
            memcpy(g2_nosqrt, c2, 96);
            found2 = 1;
        }
    }
    CHECK(found1 && found2);
    static const char *const names[3] = {"A", "B", "C"};
    static const size_t at[3] = {0, 48, 144}, size[3] = {48, 96, 48};
    enum { P_FLAGS, P_RANGE, P_NOSQRT, P_GROUP, P_INFINITY, P_COUNT };
    static const int want[P_COUNT] = {CZK_EFLAGS, CZK_ERANGE, CZK_ENOSQRT, CZK_ENOTINGROUP,
                                      CZK_EBADENC};
    for (int w = 0; w < 3; w++)
        for (int c = 0; c < P_COUNT; c++) {
            uint8_t bad[192];
            memcpy(bad, good, 192);
            uint8_t *pt = bad + at[w];
            switch (c) {
            case P_FLAGS:
                pt[0] &= 0x7f; /* an uncompressed flag byte in a compressed slot */
                break;
            case P_RANGE:
                q_bytes(pt);
                pt[0] |= 0x80;
                break;
            case P_NOSQRT:
                memcpy(pt, w == 1 ? g2_nosqrt : g1_nosqrt, size[w]);
                break;
            case P_GROUP:
                if (w == 1) {
                    czk_g2_affine r;
                    czk_g2_random_on_curve(&r, &t->rng);
                    czk_g2_affine_compress(pt, &r);
                } else {
                    czk_g1_affine r;
                    czk_g1_random_on_curve(&r, &t->rng);
                    czk_g1_affine_compress(pt, &r);
                }
                break;
            case P_INFINITY:
                memset(pt, 0, size[w]);
                pt[0] = 0xc0;
                break;
            }
            czk_err err = {0};
            int rc = czk_bellperson_proof_decode(&q, bad, &err);
            CHECKF(rc == want[c], "%s case %d: %s, want %s", names[w], c, czk_status_name(rc),
                   czk_status_name(want[c]));
            char tag[16];
            snprintf(tag, sizeof(tag), "proof %s ", names[w]);
            CHECKF(strstr(err.msg, tag) != NULL, "%s", err.msg);
        }
}

CZK_TEST(bp_proofs_file) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "p.proof") == 0);
    czk_groth16_proof ps[10];
    for (int i = 0; i < 10; i++)
        random_proof(&ps[i], &t->rng);
    CHECK_EQ_INT(czk_bellperson_proofs_write(path, ps, 10, NULL), CZK_OK);
    CHECK_EQ_INT(file_size(path), 1920);
    size_t n = 0, len = 0;
    czk_groth16_proof *back = NULL;
    CHECK_EQ_INT(czk_bellperson_proofs_read(&back, &n, path, NULL), CZK_OK);
    CHECK_EQ_INT(n, 10);
    for (int i = 0; i < 10; i++)
        CHECK(proof_equal(&back[i], &ps[i]));
    czk_free(back);
    uint8_t *b = czk_test_read_file(path, &len);
    CHECK(b != NULL && len == 1920);
    for (int i = 0; i < 10; i++) {
        uint8_t enc[192];
        czk_bellperson_proof_encode(enc, &ps[i]);
        CHECK_MEM(b + 192 * i, enc, 192);
    }

    /* Wrong sizes: 0, 191, 193, 1919. */
    static const size_t sizes[] = {0, 191, 193, 1919};
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        CHECK(czk_test_write_file(path, b, sizes[k]) == 0);
        czk_err err = {0};
        static czk_groth16_proof sentinel;
        back = &sentinel; /* must be reset to NULL */
        n = 7;
        CHECK_EQ_INT(czk_bellperson_proofs_read(&back, &n, path, &err), CZK_EFORMAT);
        CHECK(back == NULL && n == 0);
        CHECKF(strstr(err.msg, "p.proof") != NULL, "%s", err.msg);
    }
    /* A bad C in proof 6 is reported with its index. */
    b[192 * 6 + 144] &= 0x7f;
    CHECK(czk_test_write_file(path, b, 1920) == 0);
    czk_err err = {0};
    CHECK_EQ_INT(czk_bellperson_proofs_read(&back, &n, path, &err), CZK_EFLAGS);
    CHECKF(strstr(err.msg, "p.proof: proof 6 of 10: C at offset 1296") != NULL, "%s", err.msg);
    free(b);
    /* A proof with a point at infinity is refused by the writer too. */
    memset(&ps[3].b, 0, sizeof(ps[3].b));
    CHECK_EQ_INT(czk_bellperson_proofs_write(path, ps, 10, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "proof 3: B") != NULL, "%s", err.msg);
    CHECK_EQ_INT(czk_bellperson_proofs_write(path, ps, 0, NULL), CZK_EINVAL);
    tmp_remove_leak_free(t, dir);
}

/* ---- damaged .params --------------------------------------------------------------------- */

CZK_TEST(bp_params_truncated) {
    small_file fx;
    CHECK(small_file_make(&fx, "t.params", &t->rng) == 0);
    czk_groth16_pk_clear(&fx.pk);
    /* Every 7th length, and every length in the last 200 bytes (the b_g2 prefix and points). */
    for (size_t len = 0; len < fx.n; len += len + 200 < fx.n ? 7 : 1) {
        czk_err err = {0};
        int rc = read_params_bytes(fx.path, fx.b, len, CZK_KEY_CHECK_FULL, NULL, &err);
        CHECKF(rc == CZK_EFORMAT, "length %zu: %s (%s)", len, czk_status_name(rc), err.msg);
        CHECKF(strstr(err.msg, "t.params: ") != NULL, "%s", err.msg);
        CHECKF(strstr(err.msg, "offset") != NULL, "%s", err.msg);
        CHECK_EQ_INT(czk_alloc_in_use(), 0);
    }
    small_file_free(&fx);
}

CZK_TEST(bp_params_bad_lengths) {
    small_file fx;
    CHECK(small_file_make(&fx, "l.params", &t->rng) == 0);
    /* Prefix offsets: n_ic at 864, then the five vectors. */
    size_t at[6] = {864};
    for (int v = 0; v < 5; v++)
        at[v + 1] = vec_offset(&fx.pk, v);
    static const char *const what[6] = {"vk ic",    "vector h",    "vector l",
                                        "vector a", "vector b_g1", "vector b_g2"};
    czk_groth16_pk_clear(&fx.pk);
    size_t peak_limit = czk_alloc_in_use() + 2 * fx.n; /* what the file could justify */
    for (int f = 0; f < 6; f++) {
        size_t left = fx.n - at[f] - 4, elem = f == 5 ? 192 : 96;
        /* 0xFFFFFFFF; one more than what is left; what is left divided with rounding up. */
        const uint32_t lens[] = {0xFFFFFFFFu, (uint32_t)(left / elem + 1),
                                 (uint32_t)(left / elem) + 1000, 0x80000000u};
        for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
            memcpy(fx.c, fx.b, fx.n);
            czk_bytes_store_be32(fx.c + at[f], lens[k]);
            czk_err err = {0};
            int rc = read_params_bytes(fx.path, fx.c, fx.n, CZK_KEY_CHECK_FULL, NULL, &err);
            CHECKF(rc == CZK_EFORMAT, "%s length %u: %s (%s)", what[f], lens[k],
                   czk_status_name(rc), err.msg);
            char want[64];
            snprintf(want, sizeof(want), "l.params: %s: length %u needs", what[f], lens[k]);
            CHECKF(strstr(err.msg, want) != NULL, "%s", err.msg);
            CHECKF(czk_alloc_peak() <= peak_limit, "peak %zu", czk_alloc_peak());
        }
    }
    /* n_ic = 0. */
    memset(fx.b + 864, 0, 4);
    czk_err err = {0};
    CHECK_EQ_INT(read_params_bytes(fx.path, fx.b, fx.n, CZK_KEY_CHECK_FULL, NULL, &err),
                 CZK_EFORMAT);
    CHECKF(strstr(err.msg, "l.params: vk ic: length 0") != NULL, "%s", err.msg);
    small_file_free(&fx);
}

CZK_TEST(bp_params_bad_points) {
    small_file fx;
    CHECK(small_file_make(&fx, "p.params", &t->rng) == 0);
    size_t in_use = czk_alloc_in_use();
    /* Targets: the six fixed VK points, ic[1], and the last point of each vector (point 2 of
     * the a vector, to see the index in the text). */
    typedef struct {
        const char *what;
        size_t off;
        int g2;
        size_t index; /* SIZE_MAX: a fixed VK point */
        int vk;       /* always fully checked */
    } target;
    target tg[12] = {
        {"vk alpha_g1 at offset 0", 0, 0, SIZE_MAX, 1},
        {"vk beta_g1 at offset 96", 96, 0, SIZE_MAX, 1},
        {"vk beta_g2 at offset 192", 192, 1, SIZE_MAX, 1},
        {"vk gamma_g2 at offset 384", 384, 1, SIZE_MAX, 1},
        {"vk delta_g1 at offset 576", 576, 0, SIZE_MAX, 1},
        {"vk delta_g2 at offset 672", 672, 1, SIZE_MAX, 1},
        {"vk ic: point 1 of 3", 868 + 96, 0, 1, 1},
        {"vector h: point 6 of 7", vec_offset(&fx.pk, 0) + 4 + 6 * 96, 0, 6, 0},
        {"vector l: point 4 of 5", vec_offset(&fx.pk, 1) + 4 + 4 * 96, 0, 4, 0},
        {"vector a: point 2 of 6", vec_offset(&fx.pk, 2) + 4 + 2 * 96, 0, 2, 0},
        {"vector b_g1: point 3 of 4", vec_offset(&fx.pk, 3) + 4 + 3 * 96, 0, 3, 0},
        {"vector b_g2: point 3 of 4", vec_offset(&fx.pk, 4) + 4 + 3 * 192, 1, 3, 0},
    };
    for (int k = 0; k < 12; k++)
        for (int cls = 0; cls < BAD_COUNT; cls++)
            for (int check = CZK_KEY_CHECK_FULL; check <= CZK_KEY_CHECK_CURVE; check++) {
                memcpy(fx.c, fx.b, fx.n);
                damage_point(fx.c + tg[k].off, tg[k].g2, cls, &t->rng);
                int want = BAD_CODE[cls];
                /* Fixed VK points may be infinity (bellperson's VerifyingKey::read); the big
                 * vectors skip the subgroup check in CURVE mode. */
                if (cls == BAD_INFINITY && tg[k].index == SIZE_MAX)
                    want = CZK_OK;
                if (cls == BAD_GROUP && check == CZK_KEY_CHECK_CURVE && !tg[k].vk)
                    want = CZK_OK;
                czk_err err = {0};
                int rc = read_params_bytes(fx.path, fx.c, fx.n, check, NULL, &err);
                CHECKF(rc == want, "%s, %s, check %d: %s, want %s (%s)", tg[k].what, BAD_NAME[cls],
                       check, czk_status_name(rc), czk_status_name(want), err.msg);
                if (want == CZK_OK)
                    continue;
                char tag[96];
                snprintf(tag, sizeof(tag), "p.params: %s", tg[k].what);
                CHECKF(strstr(err.msg, tag) != NULL, "%s", err.msg);
                CHECKF(strstr(err.msg, czk_strerror(want)) != NULL ||
                           (want == CZK_EBADENC && strstr(err.msg, "infinity") != NULL),
                       "%s", err.msg);
                CHECK_EQ_INT(czk_alloc_in_use(), in_use);
            }
    /* ic[0] at infinity too (doc/FORMATS.md §3.1). */
    memcpy(fx.c, fx.b, fx.n);
    damage_point(fx.c + 868, 0, BAD_INFINITY, &t->rng);
    czk_err err = {0};
    CHECK_EQ_INT(read_params_bytes(fx.path, fx.c, fx.n, CZK_KEY_CHECK_CURVE, NULL, &err),
                 CZK_EBADENC);
    CHECKF(strstr(err.msg, "vk ic: point 0 of 3 at offset 868") != NULL, "%s", err.msg);
    small_file_free(&fx);
}

CZK_TEST(bp_params_trailing) {
    small_file fx;
    CHECK(small_file_make(&fx, "g.params", &t->rng) == 0);
    czk_groth16_pk_clear(&fx.pk);
    memcpy(fx.c, fx.b, fx.n);
    memset(fx.c + fx.n, 0, 192);
    static const size_t extra[] = {1, 4, 96, 192};
    for (size_t k = 0; k < sizeof(extra) / sizeof(extra[0]); k++) {
        czk_err err = {0};
        CHECK_EQ_INT(
            read_params_bytes(fx.path, fx.c, fx.n + extra[k], CZK_KEY_CHECK_FULL, NULL, &err),
            CZK_EFORMAT);
        char want[96];
        snprintf(want, sizeof(want), "g.params: %zu trailing bytes after vector b_g2", extra[k]);
        CHECKF(strstr(err.msg, want) != NULL, "%s", err.msg);
    }
    small_file_free(&fx);
}

CZK_TEST(bp_params_bad_shape) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "s.params") == 0);
    czk_groth16_pk pk;
    const key_shape s = {.n_ic = 3, .n_h = 8, .n_l = 4, .n_a = 7, .n_b = 8};
    CHECK(make_pk(&pk, &s, &t->rng) == 0);
    const void *const vec[5] = {pk.h, pk.l, pk.a, pk.b_g1, pk.b_g2};
    /* Each row: |h|, |l|, |a|, |b_g1|, |b_g2| and the fault named. The full arrays hold at
     * least as many points as every row asks for. */
    static const struct {
        size_t len[5];
        const char *why;
    } rows[] = {
        {{6, 4, 7, 3, 3}, "|h| + 1 = 7 is not a power of two"},
        {{7, 4, 7, 3, 4}, "|b_g1| = 3 differs from |b_g2| = 4"},
        {{7, 4, 2, 3, 3}, "|a| = 2 is below |ic| = 3"},
        {{7, 3, 7, 3, 3}, "|a| = 7 exceeds the 6 variables"},
        {{7, 2, 5, 6, 6}, "|b_g1| = 6 exceeds the 5 variables"},
    };
    for (size_t k = 0; k < sizeof(rows) / sizeof(rows[0]); k++) {
        size_t n = 0;
        uint8_t *b = image(&pk.vk, rows[k].len, vec, 1, &n);
        CHECK(b != NULL);
        czk_err err = {0};
        int rc = read_params_bytes(path, b, n, CZK_KEY_CHECK_FULL, NULL, &err);
        free(b);
        CHECKF(rc == CZK_EFORMAT, "row %zu: %s (%s)", k, czk_status_name(rc), err.msg);
        CHECKF(strstr(err.msg, "s.params: not a bellperson key") != NULL, "%s", err.msg);
        CHECKF(strstr(err.msg, rows[k].why) != NULL, "%s", err.msg);
    }
    czk_groth16_pk_clear(&pk);
    tmp_remove(dir);
}

/* ---- damaged .vk ------------------------------------------------------------------------- */

CZK_TEST(bp_vk_corrupt) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "c.vk") == 0);
    czk_groth16_vk vk, back;
    CHECK(make_vk(&vk, 4, &t->rng) == 0);
    CHECK_EQ_INT(czk_bellperson_vk_write(path, &vk, NULL), CZK_OK);
    size_t n = 0;
    uint8_t *b = czk_test_read_file(path, &n);
    CHECK(b != NULL && n == 868 + 4 * 96);
    czk_groth16_vk_clear(&vk);
    uint8_t *c = malloc(n + 96);
    CHECK(c != NULL);
    czk_err err = {0};
#define READ_VK(bytes, len)                                                                        \
    (czk_test_write_file(path, (bytes), (len)) != 0 ? 1 : czk_bellperson_vk_read(&back, path, &err))

    /* Truncation at every 7th byte and in the last 100. */
    for (size_t len = 0; len < n; len += len + 100 < n ? 7 : 1) {
        int rc = READ_VK(b, len);
        CHECKF(rc == CZK_EFORMAT, "length %zu: %s", len, err.msg);
        CHECKF(strstr(err.msg, "c.vk: ") != NULL && strstr(err.msg, "offset") != NULL, "%s",
               err.msg);
        CHECK(back.ic == NULL && back.n_ic == 0);
    }
    /* Trailing bytes. */
    memcpy(c, b, n);
    memset(c + n, 0, 96);
    CHECK_EQ_INT(READ_VK(c, n + 1), CZK_EFORMAT);
    CHECKF(strstr(err.msg, "c.vk: 1 trailing bytes after vk ic") != NULL, "%s", err.msg);
    CHECK_EQ_INT(READ_VK(c, n + 96), CZK_EFORMAT);
    /* Hostile n_ic. */
    static const uint32_t lens[] = {0, 5, 0xFFFFFFFFu};
    for (int k = 0; k < 3; k++) {
        memcpy(c, b, n);
        czk_bytes_store_be32(c + 864, lens[k]);
        CHECK_EQ_INT(READ_VK(c, n), CZK_EFORMAT);
        CHECKF(strstr(err.msg, "c.vk: vk ic: length") != NULL, "%s", err.msg);
    }
    /* n_ic = 3 with 4 points present: the last one is trailing. */
    memcpy(c, b, n);
    c[867] = 3;
    CHECK_EQ_INT(READ_VK(c, n), CZK_EFORMAT);
    CHECKF(strstr(err.msg, "96 trailing bytes") != NULL, "%s", err.msg);
    /* Bad points, including off-subgroup (the .vk is always fully checked) and an IC point at
     * infinity. */
    static const size_t at[] = {0, 192, 576, 672, 868, 868 + 3 * 96};
    static const int g2[] = {0, 1, 0, 1, 0, 0};
    for (int k = 0; k < 6; k++)
        for (int cls = 0; cls < BAD_COUNT; cls++) {
            memcpy(c, b, n);
            damage_point(c + at[k], g2[k], cls, &t->rng);
            int want = cls == BAD_INFINITY && at[k] < 868 ? CZK_OK : BAD_CODE[cls];
            int rc = READ_VK(c, n);
            CHECKF(rc == want, "offset %zu class %s: %s (%s)", at[k], BAD_NAME[cls],
                   czk_status_name(rc), err.msg);
            if (rc == CZK_OK) {
                czk_groth16_vk_clear(&back);
                continue;
            }
            char tag[32];
            snprintf(tag, sizeof(tag), "offset %zu", at[k]);
            CHECKF(strstr(err.msg, "c.vk: vk ") != NULL && strstr(err.msg, tag) != NULL, "%s",
                   err.msg);
            CHECK(back.ic == NULL);
        }
#undef READ_VK
    CHECK_EQ_INT(czk_alloc_in_use(), 0);
    free(c);
    free(b);
    tmp_remove(dir);
}

/* ---- the writer's refusals, and files that cannot be opened ------------------------------- */

CZK_TEST(bp_write_rejects) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "w.params") == 0);
    czk_groth16_pk pk;
    CHECK(make_pk(&pk, &SMALL, &t->rng) == 0);
    czk_err err = {0};
    pk.h_basis = CZK_H_ODD_COSET;
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &err), CZK_EINVAL);
    pk.h_basis = CZK_H_MONOMIAL;
    pk.density = CZK_DENSITY_DENSE;
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &err), CZK_EINVAL);
    pk.density = CZK_DENSITY_FILTERED;
    pk.domain_size = 16;
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "sizes disagree") != NULL, "%s", err.msg);
    pk.domain_size = 8;
    pk.n_b_g2--;
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "|b_g1| = 4 differs") != NULL, "%s", err.msg);
    pk.n_b_g2++;
    czk_g1_affine keep = pk.l[2];
    memset(&pk.l[2], 0, sizeof(pk.l[2]));
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "vector l: point 2 is at infinity") != NULL, "%s", err.msg);
    pk.l[2] = keep;
    memset(&pk.vk.ic[0], 0, sizeof(pk.vk.ic[0]));
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &err), CZK_EINVAL);
    CHECK_EQ_INT(czk_bellperson_vk_write(path, &pk.vk, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "ic point 0 is at infinity") != NULL, "%s", err.msg);
    CHECK(file_size(path) < 0); /* nothing was written */
    /* A directory that does not exist: CZK_EIO, and no temporary file left behind. */
    czk_g1_random(&pk.vk.ic[0], &t->rng);
    CHECK_EQ_INT(czk_bellperson_params_write("/nonexistent-czk/x.params", &pk, NULL, &err),
                 CZK_EIO);
    CHECKF(strstr(err.msg, "/nonexistent-czk/x.params") != NULL, "%s", err.msg);
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &err), CZK_OK);
    /* Overwriting an existing file replaces it whole. */
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &err), CZK_OK);
    DIR *d = opendir(dir);
    CHECK(d != NULL);
    int entries = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        entries += e->d_name[0] != '.';
    closedir(d);
    CHECK_EQ_INT(entries, 1);
    czk_groth16_pk_clear(&pk);
    tmp_remove_leak_free(t, dir);
}

CZK_TEST(bp_open_errors) {
    char dir[64], path[128];
    CHECK(tmp_path(dir, path, "missing.params") == 0);
    czk_groth16_pk pk;
    czk_groth16_vk vk;
    czk_groth16_proof *ps = NULL;
    size_t n = 0;
    czk_err err = {0};
    CHECK_EQ_INT(czk_bellperson_params_read(&pk, path, CZK_KEY_CHECK_FULL, NULL, &err), CZK_EIO);
    CHECKF(strstr(err.msg, "missing.params: cannot open") != NULL, "%s", err.msg);
    CHECK_EQ_INT(czk_bellperson_vk_read(&vk, dir, &err), CZK_EIO);
    CHECKF(strstr(err.msg, "not a regular file") != NULL, "%s", err.msg);
    CHECK_EQ_INT(czk_bellperson_proofs_read(&ps, &n, path, &err), CZK_EIO);
    CHECK_EQ_INT(czk_bellperson_params_read(&pk, path, (czk_key_check)7, NULL, &err), CZK_EINVAL);
    tmp_remove(dir);
}

/* Random byte damage anywhere in a small file: any status may come back, but never a crash
 * (ASan builds check the bounds), a leak, or a half-filled key. */
CZK_TEST(bp_params_random_damage) {
    small_file fx;
    CHECK(small_file_make(&fx, "r.params", &t->rng) == 0);
    size_t in_use = czk_alloc_in_use();
    long iters = czk_test_iters(t, 300);
    for (long it = 0; it < iters; it++) {
        memcpy(fx.c, fx.b, fx.n);
        int flips = 1 + (int)(czk_rng_u64(&t->rng) % 4);
        for (int f = 0; f < flips; f++)
            fx.c[czk_rng_u64(&t->rng) % fx.n] ^= (uint8_t)(1 + czk_rng_u64(&t->rng) % 255);
        size_t len = czk_rng_u64(&t->rng) % 8 == 0 ? czk_rng_u64(&t->rng) % (fx.n + 1) : fx.n;
        czk_err err = {0};
        int rc = read_params_bytes(fx.path, fx.c, len, CZK_KEY_CHECK_FULL, NULL, &err);
        CHECKF(rc <= 0, "iteration %ld: harness failure %d", it, rc);
        CHECKF(rc == CZK_OK || strstr(err.msg, "r.params: ") != NULL, "%s", err.msg);
        CHECK_EQ_INT(czk_alloc_in_use(), in_use);
    }
    small_file_free(&fx);
}

/*
 * End to end with a real (dev) key: czk_groth16_setup_dev's bellperson-shaped key survives
 * the .params and .vk files point for point, and a proof made with the key read back, sent
 * through a proof file, verifies against the .vk read back (and fails for other inputs).
 */
CZK_TEST(bp_setup_dev_files) {
    char dir[64], params[128], vkp[128], proofp[128];
    CHECK(tmp_dir(dir) == 0);
    tmp_file(params, dir, "dev.params");
    tmp_file(vkp, dir, "dev.vk");
    tmp_file(proofp, dir, "dev.proof");
    czk_err err = {0};
    czk_r1cs cs;
    czk_fr *w = NULL;
    const size_t n_public = 3;
    CHECKF(czk_synth_squaring_chain(&cs, &w, 40, n_public, czk_rng_u64(&t->rng), &err) == CZK_OK,
           "%s", err.msg);
    czk_groth16_pk pk, back;
    czk_groth16_vk vk;
    CHECKF(czk_groth16_setup_dev(&pk, &cs, CZK_H_MONOMIAL, &t->rng, NULL, &err) == CZK_OK, "%s",
           err.msg);
    CHECKF(czk_bellperson_params_write(params, &pk, NULL, &err) == CZK_OK, "%s", err.msg);
    CHECKF(czk_bellperson_vk_write(vkp, &pk.vk, &err) == CZK_OK, "%s", err.msg);
    CHECKF(czk_bellperson_params_read(&back, params, CZK_KEY_CHECK_FULL, NULL, &err) == CZK_OK,
           "%s", err.msg);
    CHECK(pk_equal(&back, &pk));
    CHECKF(czk_bellperson_vk_read(&vk, vkp, &err) == CZK_OK, "%s", err.msg);
    CHECK(vk_equal(&vk, &pk.vk));

    czk_groth16_proof proof, *proofs = NULL;
    czk_fr r, s;
    czk_fr_random(&r, &t->rng);
    czk_fr_random(&s, &t->rng);
    CHECKF(czk_groth16_prove(&proof, &back, &cs, w, &r, &s, czk_backend_cpu(), NULL, NULL, &err) ==
               CZK_OK,
           "%s", err.msg);
    CHECKF(czk_bellperson_proofs_write(proofp, &proof, 1, &err) == CZK_OK, "%s", err.msg);
    CHECK_EQ_INT(file_size(proofp), CZK_BELLPERSON_PROOF_BYTES);
    size_t n = 0;
    CHECKF(czk_bellperson_proofs_read(&proofs, &n, proofp, &err) == CZK_OK, "%s", err.msg);
    CHECK_EQ_INT(n, 1);
    czk_groth16_pvk pvk;
    CHECKF(czk_groth16_pvk_prepare(&pvk, &vk, &err) == CZK_OK, "%s", err.msg);
    CHECKF(czk_groth16_verify(&pvk, &proofs[0], w + 1, n_public, &err) == CZK_OK, "%s", err.msg);
    czk_fr_set_u64(&w[2], 12345);
    CHECK_EQ_INT(czk_groth16_verify(&pvk, &proofs[0], w + 1, n_public, NULL), CZK_EVERIFY);
    czk_groth16_pvk_clear(&pvk);
    czk_free(proofs);
    czk_groth16_vk_clear(&vk);
    czk_groth16_pk_clear(&back);
    czk_groth16_pk_clear(&pk);
    czk_free(w);
    czk_r1cs_clear(&cs);
    tmp_remove(dir);
}
