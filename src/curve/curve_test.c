/*
 * Tests for G1 and G2.
 *
 * curve_test_impl.inc holds the tests that are the same for both groups (group law through every
 * formula, scalar multiplication against a naive double-and-add, batch conversion, encoding
 * round trips, every malformed-encoding class, fast versus slow subgroup checks); it is
 * instantiated once per group below. The tests here pin group-specific facts: known-answer
 * encodings taken once from @noble/curves 2.4.0, the endomorphism eigenvalues, and the
 * boundaries of the GLV / GLS scalar splits.
 */
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/status.h"

#include <string.h>

/* CZK_TEST pastes its argument, so expand TN(...) first. */
#define CURVE_TEST(name) CURVE_TEST_(name)
#define CURVE_TEST_(name) CZK_TEST(name)

static int hex_to_bytes(uint8_t *out, size_t n, const char *hex) {
    if (strlen(hex) != 2 * n)
        return -1;
    for (size_t i = 0; i < 2 * n; i++) {
        char c = hex[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0)
            return -1;
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(v << 4);
        else
            out[i / 2] |= (uint8_t)v;
    }
    return 0;
}

/* k = 0x5a3c7e1f00d15ea5e0123456789abcdef0fedcba98765432100b5e55ed5eed for the known answers. */
static const uint64_t KAT_SCALAR[4] = {0x32100b5e55ed5eedULL, 0xdef0fedcba987654ULL,
                                       0xa5e0123456789abcULL, 0x005a3c7e1f00d15eULL};

/* ---- G1 instantiation ------------------------------------------------------------------ */

/* 4 in Montgomery form: G1's b, and both halves of G2's b = 4(1 + u). */
#define FOUR_MONT                                                                                  \
    0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,    \
        0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL

static const czk_fp G1_B_TEST = {{FOUR_MONT}};

#define FE czk_fp
#define FE_SET_ZERO czk_fp_set_zero
#define FE_SET_ONE czk_fp_set_one
#define FE_IS_ZERO czk_fp_is_zero
#define FE_ADD czk_fp_add
#define FE_MUL czk_fp_mul
#define FE_SQR czk_fp_sqr
#define FE_RANDOM czk_fp_random
#define FE_IS_SQUARE czk_fp_is_square
#define AFF czk_g1_affine
#define JAC czk_g1_jacobian
#define XYZZ czk_g1_xyzz
#define EC(name) czk_g1_##name
#define ECS(name) czk_g1s_##name
#define TN(name) g1_##name
#define GEN CZK_G1_GENERATOR
#define B_CONST G1_B_TEST
#define N_FP 1
#define COMP_BYTES CZK_G1_COMPRESSED_BYTES
#define UNCOMP_BYTES CZK_G1_UNCOMPRESSED_BYTES
#define SNARK_BYTES CZK_G1_SNARKJS_BYTES
#include "curve/curve_test_impl.inc"

/* ---- G2 instantiation ------------------------------------------------------------------ */

static const czk_fp2 G2_B_TEST = {{{FOUR_MONT}}, {{FOUR_MONT}}};

#define FE czk_fp2
#define FE_SET_ZERO czk_fp2_set_zero
#define FE_SET_ONE czk_fp2_set_one
#define FE_IS_ZERO czk_fp2_is_zero
#define FE_ADD czk_fp2_add
#define FE_MUL czk_fp2_mul
#define FE_SQR czk_fp2_sqr
#define FE_RANDOM czk_fp2_random
#define FE_IS_SQUARE czk_fp2_is_square
#define AFF czk_g2_affine
#define JAC czk_g2_jacobian
#define XYZZ czk_g2_xyzz
#define EC(name) czk_g2_##name
#define ECS(name) czk_g2s_##name
#define TN(name) g2_##name
#define GEN CZK_G2_GENERATOR
#define B_CONST G2_B_TEST
#define N_FP 2
#define COMP_BYTES CZK_G2_COMPRESSED_BYTES
#define UNCOMP_BYTES CZK_G2_UNCOMPRESSED_BYTES
#define SNARK_BYTES CZK_G2_SNARKJS_BYTES
#include "curve/curve_test_impl.inc"

/* ---- group-specific tests -------------------------------------------------------------- */

#define BLS_X_ABS 0xd201000000010000ULL

CZK_TEST(g1_known_encodings) {
    /* From @noble/curves 2.4.0: G, [2]G and [KAT_SCALAR]G. */
    g1_check_known_encodings(t,
                             "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c"
                             "55e83ff97a1aeffb3af00adb22c6bb",
                             "17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c"
                             "55e83ff97a1aeffb3af00adb22c6bb08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e0"
                             "95d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1",
                             "a572cbea904d67468808c8eb50a9450c9721db309128012543902d0ac358a62ae2"
                             "8f75bb8f1c7c42c39a8c5529bf0f4e",
                             "8a03352165d0bd57e8092ee945edb7b66d01a3252b94d3df96ca66c79ef1ab48a4"
                             "a6b07e754a53d0a3caccf6ac1cb99c");
}

CZK_TEST(g1_endomorphism) {
    /* sigma(G) = [lambda]G with lambda = -x^2 mod r, through the plain integer multiplier. */
    static const uint64_t lambda[4] = {0xfffffffe00000001ULL, 0xa7780001fffcb7fcULL,
                                       0x3339d80809a1d804ULL, 0x73eda753299d7d48ULL};
    czk_g1_jacobian g, r;
    czk_g1_affine a;
    czk_g1_jacobian_from_affine(&g, &CZK_G1_GENERATOR);
    CHECK_EQ_INT(czk_g1_jacobian_mul_limbs_var(&r, &g, lambda, 4), CZK_OK);
    czk_g1_jacobian_to_affine(&a, &r);
    /* The y coordinate is unchanged by sigma; x is multiplied by a cube root of unity. */
    CHECK(czk_fp_equal(&a.y, &CZK_G1_GENERATOR.y));
    czk_fp ratio, inv, cube;
    czk_fp_inv(&inv, &CZK_G1_GENERATOR.x);
    czk_fp_mul(&ratio, &a.x, &inv);
    czk_fp_sqr(&cube, &ratio);
    czk_fp_mul(&cube, &cube, &ratio);
    CHECK(czk_fp_is_one(&cube) && !czk_fp_is_one(&ratio));

    /* GLV split boundaries: x^2 - 1, x^2, x^2 + 1, 2x^2, 2^128 - 1, 2^128, against limbs. */
    static const uint64_t ks[][4] = {
        {0x00000000ffffffffULL, 0xac45a4010001a402ULL, 0, 0},
        {0x0000000100000000ULL, 0xac45a4010001a402ULL, 0, 0},
        {0x0000000100000001ULL, 0xac45a4010001a402ULL, 0, 0},
        {0x0000000200000000ULL, 0x588b480200034804ULL, 1, 0},
        {0xffffffffffffffffULL, 0xffffffffffffffffULL, 0, 0},
        {0, 0, 1, 0},
    };
    czk_g1_affine pa;
    czk_g1_random(&pa, &t->rng);
    czk_g1_jacobian p, r1, r2;
    czk_g1_jacobian_from_affine(&p, &pa);
    for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
        czk_fr k;
        CHECK_EQ_INT(czk_fr_from_limbs(&k, ks[i]), CZK_OK);
        czk_g1_jacobian_mul_var(&r1, &p, &k);
        CHECK_EQ_INT(czk_g1_jacobian_mul_limbs_var(&r2, &p, ks[i], 4), CZK_OK);
        CHECKF(czk_g1_jacobian_equal(&r1, &r2), "GLV boundary %zu", i);
    }

    /* The order-3 points (0, +-2): on the curve, outside G1, and decodable unchecked. */
    czk_g1_affine o3;
    czk_fp_set_zero(&o3.x);
    czk_fp_set_u64(&o3.y, 2);
    CHECK(czk_g1_affine_is_on_curve(&o3));
    CHECK(!czk_g1_affine_is_in_group(&o3) && !czk_g1_affine_is_in_group_slow(&o3));
    czk_g1_jacobian_from_affine(&g, &o3);
    czk_g1_jacobian_dbl(&r, &g);
    czk_g1_jacobian_add(&r, &r, &g);
    CHECK(czk_g1_jacobian_is_infinity(&r));
    uint8_t b[48] = {0x80};
    czk_g1_affine q;
    CHECK_EQ_INT(czk_g1_affine_uncompress(&q, b), CZK_ENOTINGROUP);
    CHECK_EQ_INT(czk_g1_affine_uncompress_unchecked(&q, b), CZK_OK);
    CHECK(czk_fp_is_zero(&q.x) && czk_g1_affine_is_on_curve(&q) && !czk_g1_affine_is_infinity(&q));
    b[0] = 0xa0;
    CHECK_EQ_INT(czk_g1_affine_uncompress_unchecked(&q, b), CZK_OK);
    CHECK(czk_fp_is_zero(&q.x) && czk_g1_affine_is_on_curve(&q));
}

CZK_TEST(g2_known_encodings) {
    g2_check_known_encodings(
        t,
        "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac"
        "7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326"
        "a805bbefd48056c8c121bdb8",
        "13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf11213945d57e5ac"
        "7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d1770bac0326"
        "a805bbefd48056c8c121bdb80606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e"
        "99ab3f370d275cec1da1aaa9075ff05f79be0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a7"
        "6d429a695160d12c923ac9cc3baca289e193548608b82801",
        "aa4edef9c1ed7f729f520e47730a124fd70662a904ba1074728114d1031e1572c6c886f6b57ec72a6178"
        "288c47c335771638533957d540a9d2370f17cc7ed5863bc0b995b8825e0ee1ea1e1e4d00dbae81f14b0b"
        "f3611b78c952aacab827a053",
        "82446ee354d807ae896b38dc014787b8f897b6f5f494d79e7745a11adf7f277d05346a6040c8ccdaa09f"
        "ca932764044b0046daffcebb003c71e921d13916f50ecfeaf374d01b3a3fb0e21747ff73c147868fba52"
        "61ac4b6109d816d135e2bc8d");
}

CZK_TEST(g2_endomorphism) {
    /* psi(G) = [x]G = -[|x|]G, through the plain integer multiplier. */
    const uint64_t xabs = BLS_X_ABS;
    czk_g2_jacobian g, r, pj;
    czk_g2_affine a, ps;
    czk_g2_jacobian_from_affine(&g, &CZK_G2_GENERATOR);
    CHECK_EQ_INT(czk_g2_jacobian_mul_limbs_var(&r, &g, &xabs, 1), CZK_OK);
    czk_g2_jacobian_neg(&r, &r);
    czk_g2_jacobian_to_affine(&a, &r);
    czk_g2_affine_psi(&ps, &CZK_G2_GENERATOR);
    CHECK(czk_g2_affine_equal(&a, &ps));

    /* psi on Jacobian coordinates agrees with psi on affine ones, also off the subgroup. */
    for (int i = 0; i < 4; i++) {
        czk_g2_affine c;
        czk_g2_random_on_curve(&c, &t->rng);
        czk_g2_jacobian_from_affine(&pj, &c);
        czk_g2_jacobian_dbl(&pj, &pj); /* a representative with Z != 1 */
        czk_g2_jacobian_psi(&r, &pj);
        czk_g2_jacobian_to_affine(&a, &r);
        czk_g2_jacobian_to_affine(&c, &pj);
        czk_g2_affine_psi(&ps, &c);
        CHECK(czk_g2_affine_equal(&a, &ps));
        CHECK(czk_g2_affine_is_on_curve(&ps));
    }

    /* GLS split boundaries: |x|^i - 1, |x|^i, |x|^i + 1 for i = 1..3, and r - 1. */
    czk_g2_affine pa;
    czk_g2_random(&pa, &t->rng);
    czk_g2_jacobian p, r1, r2;
    czk_g2_jacobian_from_affine(&p, &pa);
    uint64_t pw[4] = {1, 0, 0, 0};
    for (int i = 1; i <= 3; i++) {
        /* pw *= |x| */
        unsigned __int128 carry = 0;
        for (int j = 0; j < 4; j++) {
            carry += (unsigned __int128)pw[j] * xabs;
            pw[j] = (uint64_t)carry;
            carry >>= 64;
        }
        for (int d = -1; d <= 1; d++) {
            uint64_t k[4];
            memcpy(k, pw, sizeof(k));
            if (d < 0) {
                for (int j = 0; j < 4 && k[j]-- == 0; j++)
                    ;
            } else if (d > 0) {
                for (int j = 0; j < 4 && ++k[j] == 0; j++)
                    ;
            }
            czk_fr kf;
            CHECK_EQ_INT(czk_fr_from_limbs(&kf, k), CZK_OK);
            czk_g2_jacobian_mul_var(&r1, &p, &kf);
            CHECK_EQ_INT(czk_g2_jacobian_mul_limbs_var(&r2, &p, k, 4), CZK_OK);
            CHECKF(czk_g2_jacobian_equal(&r1, &r2), "GLS boundary |x|^%d %+d", i, d);
        }
    }
}
