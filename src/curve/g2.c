/*
 * G2 of BLS12-381: the group law (instantiated from point_impl.inc), GLS scalar multiplication
 * with psi, the psi subgroup check, cofactor clearing and the zcash / snarkjs encodings
 * (codec_impl.inc).
 *
 * Constants in Montgomery form (a R mod q, R = 2^384) were derived with a short Python
 * script from their defining equations; tests pin psi(G) = [x]G on the generator.
 */
#include "curve/g2.h"

#include <string.h>

#include "field/fp.h"
#include "field/fp2.h"
#include "field/fr.h"
#include "util/status.h"

/* |x| for the BLS parameter x = -0xd201000000010000. */
#define CZK__BLS_X_ABS 0xd201000000010000ULL

const czk_g2_affine CZK_G2_GENERATOR = {
    {{{0xf5f28fa202940a10ULL, 0xb3f5fb2687b4961aULL, 0xa1a893b53e2ae580ULL, 0x9894999d1a3caee9ULL,
       0x6f67b7631863366bULL, 0x058191924350bcd7ULL}},
     {{0xa5a9c0759e23f606ULL, 0xaaa0c59dbccd60c3ULL, 0x3bb17e18e2867806ULL, 0x1b1ab6cc8541b367ULL,
       0xc2b6ed0ef2158547ULL, 0x11922a097360edf3ULL}}},
    {{{0x4c730af860494c4aULL, 0x597cfa1f5e369c5aULL, 0xe7e6856caa0a635aULL, 0xbbefb5e96e0d495fULL,
       0x07d3a975f0ef25a2ULL, 0x0083fd8e7e80dae5ULL}},
     {{0xadc0fc92df64b05dULL, 0x18aa270a2b1461dcULL, 0x86adac6a3be4eba0ULL, 0x79495c4ec93da33aULL,
       0xe7175850a43ccaedULL, 0x0b2bc2a163de1bf2ULL}}},
};

/* b' = 4(u + 1). */
static const czk_fp2 G2_B = {
    {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,
      0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}},
    {{0xaa270000000cfff3ULL, 0x53cc0032fc34000aULL, 0x478fe97a6b0a807fULL, 0xb1d37ebee6ba24d7ULL,
      0x8ec9733bbf78ab2fULL, 0x09d645513d83de7eULL}},
};

/*
 * psi = twist^-1 . Frobenius . twist, for the M-type twist with non-residue u + 1:
 * psi(x, y) = (conj(x) c_x, conj(y) c_y), c_x = (u+1)^-((q-1)/3), c_y = (u+1)^-((q-1)/2)
 * (the constants of RFC 9380 Appendix G.3). c_x is purely imaginary:
 * c_x =
 * 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8bfd00000000aaad
 * u.
 */
static const czk_fp2 G2_PSI_CX = {
    {{0, 0, 0, 0, 0, 0}},
    {{0x890dc9e4867545c3ULL, 0x2af322533285a5d5ULL, 0x50880866309b7e2cULL, 0xa20d1b8c7e881024ULL,
      0x14e4f04fe2db9068ULL, 0x14e56d3f1564853aULL}},
};
static const czk_fp2 G2_PSI_CY = {
    {{0x3e2f585da55c9ad1ULL, 0x4294213d86c18183ULL, 0x382844c88b623732ULL, 0x92ad2afd19103e18ULL,
      0x1d794e4fac7cf0b9ULL, 0x0bd592fc7d825ec8ULL}},
    {{0x7bcfa7a25aa30fdaULL, 0xdc17dec12a927e7cULL, 0x2f088dd86b4ebef1ULL, 0xd1ca2087da74d4a7ULL,
      0x2da2596696cebc1dULL, 0x0e2b7eedbbfd87d2ULL}},
};

#define FE czk_fp2
#define FE_SET_ZERO czk_fp2_set_zero
#define FE_SET_ONE czk_fp2_set_one
#define FE_IS_ZERO czk_fp2_is_zero
#define FE_EQUAL czk_fp2_equal
#define FE_CMOV czk_fp2_cmov
#define FE_ADD czk_fp2_add
#define FE_SUB czk_fp2_sub
#define FE_NEG czk_fp2_neg
#define FE_DBL czk_fp2_dbl
#define FE_MUL czk_fp2_mul
#define FE_SQR czk_fp2_sqr
#define FE_INV czk_fp2_inv
#define AFF czk_g2_affine
#define JAC czk_g2_jacobian
#define XYZZ czk_g2_xyzz
#define EC(name) czk_g2_##name
#define ECS(name) czk_g2s_##name
#define EC_B G2_B
#include "curve/point_impl.inc"

/* zcash's order: c1 then c0, each big-endian. */
static void fp2_to_bytes_be(uint8_t out[2 * CZK_FP_BYTES], const czk_fp2 *a) {
    czk_fp_to_bytes_be(out, &a->c1);
    czk_fp_to_bytes_be(out + CZK_FP_BYTES, &a->c0);
}

static int fp2_from_bytes_be(czk_fp2 *r, const uint8_t in[2 * CZK_FP_BYTES]) {
    if (czk_fp_from_bytes_be(&r->c1, in) != CZK_OK ||
        czk_fp_from_bytes_be(&r->c0, in + CZK_FP_BYTES) != CZK_OK)
        return CZK_ERANGE;
    return CZK_OK;
}

/* snarkjs's order: c0 then c1, each little-endian Montgomery. */
static void fp2_to_mont_bytes_le(uint8_t out[2 * CZK_FP_BYTES], const czk_fp2 *a) {
    czk_fp_to_mont_bytes_le(out, &a->c0);
    czk_fp_to_mont_bytes_le(out + CZK_FP_BYTES, &a->c1);
}

static int fp2_from_mont_bytes_le(czk_fp2 *r, const uint8_t in[2 * CZK_FP_BYTES]) {
    if (czk_fp_from_mont_bytes_le(&r->c0, in) != CZK_OK ||
        czk_fp_from_mont_bytes_le(&r->c1, in + CZK_FP_BYTES) != CZK_OK)
        return CZK_ERANGE;
    return CZK_OK;
}

#define FE_BYTES (2 * CZK_FP_BYTES)
#define FE_TO_BYTES_BE fp2_to_bytes_be
#define FE_FROM_BYTES_BE fp2_from_bytes_be
#define FE_TO_MONT_LE fp2_to_mont_bytes_le
#define FE_FROM_MONT_LE fp2_from_mont_bytes_le
#define FE_SQRT czk_fp2_sqrt
#define FE_IS_LEX_LARGEST czk_fp2_is_lex_largest
#define ENC_UNCOMPRESSED CZK_G2_UNCOMPRESSED_BYTES
#define ENC_COMPRESSED CZK_G2_COMPRESSED_BYTES
#define ENC_SNARKJS CZK_G2_SNARKJS_BYTES
#include "curve/codec_impl.inc"

/* ---- psi, subgroup check ---------------------------------------------------------------- */

/* c_x is c1 u, so multiplying by it is two Fp multiplications rather than an Fp2 product. */
static void mul_by_psi_cx(czk_fp2 *r, const czk_fp2 *a) {
    /* (a0 + a1 u) c1 u = -a1 c1 + a0 c1 u */
    czk_fp t0, t1;
    czk_fp_mul(&t0, &a->c1, &G2_PSI_CX.c1);
    czk_fp_mul(&t1, &a->c0, &G2_PSI_CX.c1);
    czk_fp_neg(&r->c0, &t0);
    r->c1 = t1;
}

void czk_g2_affine_psi(czk_g2_affine *r, const czk_g2_affine *p) {
    czk_g2_affine o;
    czk_fp2_conj(&o.x, &p->x);
    mul_by_psi_cx(&o.x, &o.x);
    czk_fp2_conj(&o.y, &p->y);
    czk_fp2_mul(&o.y, &o.y, &G2_PSI_CY);
    *r = o;
}

void czk_g2_jacobian_psi(czk_g2_jacobian *r, const czk_g2_jacobian *p) {
    /* Conjugation is multiplicative, so X/Z^2 maps to conj(X)/conj(Z)^2. */
    czk_g2_jacobian o;
    czk_fp2_conj(&o.x, &p->x);
    mul_by_psi_cx(&o.x, &o.x);
    czk_fp2_conj(&o.y, &p->y);
    czk_fp2_mul(&o.y, &o.y, &G2_PSI_CY);
    czk_fp2_conj(&o.z, &p->z);
    *r = o;
}

int czk_g2_affine_is_in_group(const czk_g2_affine *p) {
    if (czk_g2_affine_is_infinity(p))
        return 1;
    if (!affine_on_curve_raw(p))
        return 0;
    /* Scott (eprint 2021/1130): P is in G2 iff psi(P) = [x]P = -[|x|]P. */
    czk_g2_jacobian pj, t, s;
    czk_g2_affine ps;
    czk_g2_jacobian_from_affine(&pj, p);
    jac_mul_u64_var(&t, &pj, CZK__BLS_X_ABS);
    czk_g2_affine_psi(&ps, p);
    czk_g2_affine_neg(&ps, &ps);
    czk_g2_jacobian_from_affine(&s, &ps);
    return czk_g2_jacobian_equal(&t, &s);
}

int czk_g2_affine_is_in_group_slow(const czk_g2_affine *p) {
    if (czk_g2_affine_is_infinity(p))
        return 1;
    if (!affine_on_curve_raw(p))
        return 0;
    czk_g2_jacobian pj, t;
    czk_g2_jacobian_from_affine(&pj, p);
    czk_g2_jacobian_mul_limbs_var(&t, &pj, CZK_FR_MODULUS, CZK_FR_LIMBS);
    return czk_g2_jacobian_is_infinity(&t);
}

/* ---- scalar multiplication -------------------------------------------------------------- */

/*
 * Writes k < r in base |x|: k = d0 + d1 |x| + d2 |x|^2 + d3 |x|^3 with 64-bit digits, which
 * suffices because r = x^4 - x^2 + 1 < |x|^4.
 */
static void gls_split(uint64_t d[4], const uint64_t k[CZK_FR_LIMBS]) {
    uint64_t v[CZK_FR_LIMBS];
    memcpy(v, k, sizeof(v));
    for (int i = 0; i < 4; i++) {
        unsigned __int128 rem = 0;
        for (int j = CZK_FR_LIMBS - 1; j >= 0; j--) {
            unsigned __int128 cur = (rem << 64) | v[j];
            v[j] = (uint64_t)(cur / CZK__BLS_X_ABS);
            rem = cur % CZK__BLS_X_ABS;
        }
        d[i] = (uint64_t)rem;
    }
}

void czk_g2_jacobian_mul_var(czk_g2_jacobian *r, const czk_g2_jacobian *p, const czk_fr *k) {
    uint64_t kl[CZK_FR_LIMBS], digits[4];
    czk_fr_to_limbs(kl, k);
    gls_split(digits, kl);
    /* [|x|^i]P = (-psi)^i(P) on G2, so each table is -psi of the one before. */
    czk_g2_jacobian tabs[4][WNAF_TABLE_SIZE];
    wnaf_table(tabs[0], p);
    for (int j = 1; j < 4; j++) {
        for (int i = 0; i < WNAF_TABLE_SIZE; i++) {
            czk_g2_jacobian_psi(&tabs[j][i], &tabs[j - 1][i]);
            czk_g2_jacobian_neg(&tabs[j][i], &tabs[j][i]);
        }
    }
    wnaf_mul_var(r, (const czk_g2_jacobian(*)[WNAF_TABLE_SIZE])tabs, digits, 1, 4);
}

void czk_g2_jacobian_clear_cofactor_var(czk_g2_jacobian *r, const czk_g2_jacobian *p) {
    /* RFC 9380 Appendix G.3, clear_cofactor_bls12381_g2, with [x]Q = -[|x|]Q. */
    czk_g2_jacobian t1, t2, t3;
    jac_mul_u64_var(&t1, p, CZK__BLS_X_ABS);
    czk_g2_jacobian_neg(&t1, &t1); /* t1 = [x]P */
    czk_g2_jacobian_psi(&t2, p);   /* t2 = psi(P) */
    czk_g2_jacobian_dbl(&t3, p);
    czk_g2_jacobian_psi(&t3, &t3);
    czk_g2_jacobian_psi(&t3, &t3); /* t3 = psi^2(2P) */
    czk_g2_jacobian_neg(&t2, &t2);
    czk_g2_jacobian_add_var(&t3, &t3, &t2); /* t3 = psi^2(2P) - psi(P) */
    czk_g2_jacobian_neg(&t2, &t2);
    czk_g2_jacobian_add_var(&t2, &t1, &t2); /* t2 = [x]P + psi(P) */
    jac_mul_u64_var(&t2, &t2, CZK__BLS_X_ABS);
    czk_g2_jacobian_neg(&t2, &t2); /* t2 = [x^2]P + [x]psi(P) */
    czk_g2_jacobian_add_var(&t3, &t3, &t2);
    czk_g2_jacobian_neg(&t1, &t1);
    czk_g2_jacobian_add_var(&t3, &t3, &t1); /* - [x]P */
    czk_g2_jacobian_neg(&t1, p);
    czk_g2_jacobian_add_var(r, &t3, &t1); /* - P */
}

/* ---- random points ---------------------------------------------------------------------- */

void czk_g2_random(czk_g2_affine *r, czk_rng *rng) {
    czk_fr k;
    czk_g2_jacobian g, t;
    czk_fr_random(&k, rng);
    czk_g2_jacobian_from_affine(&g, &CZK_G2_GENERATOR);
    czk_g2_jacobian_mul_var(&t, &g, &k);
    czk_g2_jacobian_to_affine(r, &t);
}

void czk_g2_random_on_curve(czk_g2_affine *r, czk_rng *rng) {
    czk_fp2 x, rhs, y;
    for (;;) {
        czk_fp2_random(&x, rng);
        curve_rhs(&rhs, &x);
        if (czk_fp2_sqrt(&y, &rhs))
            break;
    }
    if (czk_rng_u64(rng) & 1)
        czk_fp2_neg(&y, &y);
    r->x = x;
    r->y = y;
}
