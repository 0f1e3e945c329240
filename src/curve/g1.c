/*
 * G1 of BLS12-381: the group law (instantiated from point_impl.inc), GLV scalar multiplication,
 * the endomorphism subgroup check and the zcash / snarkjs encodings (codec_impl.inc).
 *
 * Constants in Montgomery form (a R mod q, R = 2^384) were derived with a short Python
 * script from their defining equations, and each is pinned by a test: BETA is the cube root of
 * unity in Fp for which sigma(G) = [-x^2] G on the standard generator G.
 */
#include "curve/g1.h"

#include <string.h>

#include "field/fp.h"
#include "field/fr.h"
#include "util/status.h"

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define CZK__BLS_X_ABS 0xd201000000010000ULL
/* x^2 = 0xac45a4010001a402_0000000100000000, the GLV split point. */
#define CZK__BLS_X2_HI 0xac45a4010001a402ULL
#define CZK__BLS_X2_LO 0x0000000100000000ULL

const czk_g1_affine CZK_G1_GENERATOR = {
    {{0x5cb38790fd530c16ULL, 0x7817fc679976fff5ULL, 0x154f95c7143ba1c1ULL, 0xf0ae6acdf3d0e747ULL,
      0xedce6ecc21dbf440ULL, 0x120177419e0bfb75ULL}},
    {{0xbaac93d50ce72271ULL, 0x8c22631a7918fd8eULL, 0xdd595f13570725ceULL, 0x51ac582950405194ULL,
      0x0e1c8c3fad0059c0ULL, 0x0bbc3efc5008a26aULL}},
};

/* b = 4. */
static const czk_fp G1_B = {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL,
                             0xb1d37ebee6ba24d7ULL, 0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}};

/*
 * beta = 0x5f19672fdf76ce51ba69c6076a0f77eaddb3a93be6f89688de17d813620a00022e01fffffffefffe,
 * a primitive cube root of unity, chosen so that sigma(x, y) = (beta x, y) is [-x^2] on G1.
 */
static const czk_fp G1_BETA = {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL, 0x16a8ca3ac61577f7ULL,
                                0xc26a2ff874fd029bULL, 0x3636b76660701c6eULL,
                                0x051ba4ab241b6160ULL}};

#define FE czk_fp
#define FE_SET_ZERO czk_fp_set_zero
#define FE_SET_ONE czk_fp_set_one
#define FE_IS_ZERO czk_fp_is_zero
#define FE_EQUAL czk_fp_equal
#define FE_CMOV czk_fp_cmov
#define FE_ADD czk_fp_add
#define FE_SUB czk_fp_sub
#define FE_NEG czk_fp_neg
#define FE_DBL czk_fp_dbl
#define FE_MUL czk_fp_mul
#define FE_SQR czk_fp_sqr
#define FE_INV czk_fp_inv
#define AFF czk_g1_affine
#define JAC czk_g1_jacobian
#define XYZZ czk_g1_xyzz
#define EC(name) czk_g1_##name
#define ECS(name) czk_g1s_##name
#define EC_B G1_B
#include "curve/point_impl.inc"

#define FE_BYTES CZK_FP_BYTES
#define FE_TO_BYTES_BE czk_fp_to_bytes_be
#define FE_FROM_BYTES_BE czk_fp_from_bytes_be
#define FE_TO_MONT_LE czk_fp_to_mont_bytes_le
#define FE_FROM_MONT_LE czk_fp_from_mont_bytes_le
#define FE_SQRT czk_fp_sqrt
#define FE_IS_LEX_LARGEST czk_fp_is_lex_largest
#define ENC_UNCOMPRESSED CZK_G1_UNCOMPRESSED_BYTES
#define ENC_COMPRESSED CZK_G1_COMPRESSED_BYTES
#define ENC_SNARKJS CZK_G1_SNARKJS_BYTES
#include "curve/codec_impl.inc"

/* ---- endomorphism, subgroup check ------------------------------------------------------- */

int czk_g1_affine_is_in_group(const czk_g1_affine *p) {
    if (czk_g1_affine_is_infinity(p))
        return 1;
    if (!affine_on_curve_raw(p))
        return 0;
    /*
     * Scott (eprint 2021/1130): on BLS12 curves, P is in G1 iff sigma(P) = -[x^2]P, i.e.
     * [x^2]P = -sigma(P) = (beta x, -y). [x^2]P is two multiplications by the sparse |x|
     * (the signs cancel).
     */
    czk_g1_jacobian pj, t, s;
    czk_g1_jacobian_from_affine(&pj, p);
    jac_mul_u64_var(&t, &pj, CZK__BLS_X_ABS);
    jac_mul_u64_var(&t, &t, CZK__BLS_X_ABS);
    czk_fp_mul(&s.x, &p->x, &G1_BETA);
    czk_fp_neg(&s.y, &p->y);
    czk_fp_set_one(&s.z);
    return czk_g1_jacobian_equal(&t, &s);
}

int czk_g1_affine_is_in_group_slow(const czk_g1_affine *p) {
    if (czk_g1_affine_is_infinity(p))
        return 1;
    if (!affine_on_curve_raw(p))
        return 0;
    czk_g1_jacobian pj, t;
    czk_g1_jacobian_from_affine(&pj, p);
    czk_g1_jacobian_mul_limbs_var(&t, &pj, CZK_FR_MODULUS, CZK_FR_LIMBS);
    return czk_g1_jacobian_is_infinity(&t);
}

/* ---- scalar multiplication -------------------------------------------------------------- */

/*
 * Splits k < r as k = k1 x^2 + k0 with 0 <= k0 < x^2. Since r = x^4 - x^2 + 1, k1 <= x^2 - 1,
 * so both halves fit in 128 bits. Schoolbook binary division: k is public here.
 */
static void glv_split(uint64_t k0[2], uint64_t k1[2], const uint64_t k[CZK_FR_LIMBS]) {
    const unsigned __int128 d = ((unsigned __int128)CZK__BLS_X2_HI << 64) | CZK__BLS_X2_LO;
    unsigned __int128 rem = 0, quo = 0;
    for (int i = 64 * CZK_FR_LIMBS - 1; i >= 0; i--) {
        int carry = (int)(rem >> 127);
        rem = (rem << 1) | ((k[i / 64] >> (i % 64)) & 1);
        quo <<= 1;
        if (carry || rem >= d) {
            rem -= d;
            quo |= 1;
        }
    }
    k0[0] = (uint64_t)rem;
    k0[1] = (uint64_t)(rem >> 64);
    k1[0] = (uint64_t)quo;
    k1[1] = (uint64_t)(quo >> 64);
}

void czk_g1_jacobian_mul_var(czk_g1_jacobian *r, const czk_g1_jacobian *p, const czk_fr *k) {
    uint64_t kl[CZK_FR_LIMBS], halves[4];
    czk_fr_to_limbs(kl, k);
    glv_split(&halves[0], &halves[2], kl);
    /* [k]P = [k0]P + [k1]([x^2]P), and [x^2]P = -sigma(P) = (beta X, -Y, Z) in Jacobian. */
    czk_g1_jacobian tabs[2][WNAF_TABLE_SIZE];
    wnaf_table(tabs[0], p);
    for (int i = 0; i < WNAF_TABLE_SIZE; i++) {
        czk_fp_mul(&tabs[1][i].x, &tabs[0][i].x, &G1_BETA);
        czk_fp_neg(&tabs[1][i].y, &tabs[0][i].y);
        tabs[1][i].z = tabs[0][i].z;
    }
    wnaf_mul_var(r, (const czk_g1_jacobian(*)[WNAF_TABLE_SIZE])tabs, halves, 2, 2);
}

void czk_g1_jacobian_clear_cofactor_var(czk_g1_jacobian *r, const czk_g1_jacobian *p) {
    /* [1 - x]P = P + [|x|]P since x < 0. */
    czk_g1_jacobian t;
    jac_mul_u64_var(&t, p, CZK__BLS_X_ABS);
    czk_g1_jacobian_add_var(r, &t, p);
}

/* ---- random points ---------------------------------------------------------------------- */

void czk_g1_random(czk_g1_affine *r, czk_rng *rng) {
    czk_fr k;
    czk_g1_jacobian g, t;
    czk_fr_random(&k, rng);
    czk_g1_jacobian_from_affine(&g, &CZK_G1_GENERATOR);
    czk_g1_jacobian_mul_var(&t, &g, &k);
    czk_g1_jacobian_to_affine(r, &t);
}

void czk_g1_random_on_curve(czk_g1_affine *r, czk_rng *rng) {
    czk_fp x, rhs, y;
    for (;;) {
        czk_fp_random(&x, rng);
        curve_rhs(&rhs, &x);
        if (czk_fp_sqrt(&y, &rhs))
            break;
    }
    if (czk_rng_u64(rng) & 1)
        czk_fp_neg(&y, &y);
    r->x = x;
    r->y = y;
}
