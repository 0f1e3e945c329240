/*
 * Fp12 = Fp6[w]/(w^2 - v).
 *
 * Multiplication is Karatsuba over Fp6 and squaring the complex method (Devegili et al.,
 * eprint 2006/471). Elements of the cyclotomic subgroup, where the final exponentiation
 * spends its time, square faster with Granger–Scott (czk_fp12_cyclotomic_sqr).
 */
#include "field/fp12.h"

/*
 * Frobenius constants, k = 0..11, in Montgomery form (R = 2^384), computed as those of fp6.c;
 * the frobenius tests check them against a^q by exponentiation.
 */
/* w^(q^k) = w·FROB12_C1[k], FROB12_C1[k] = ξ^((q^k - 1)/6) */
static const czk_fp2 FROB12_C1[12] = {
    /* k = 0 */
    {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745,
       0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 1 */
    {{{0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f, 0xa35baecab2dc29ee,
       0x1ce393ea5daace4d, 0x08f2220fb0fb66eb}},
     {{0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394, 0xc11b9cba40a8e8d0,
       0x2e3813cbe5a0de89, 0x110eefda88847faf}}},
    /* k = 2 */
    {{{0xecfb361b798dba3a, 0xc100ddb891865a2c, 0x0ec08ff1232bda8e, 0xd5c13cc6f1ca4721,
       0x47222a47bf7b5c04, 0x0110f184e51c5f59}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 3 */
    {{{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18,
       0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8}},
     {{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7,
       0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2}}},
    /* k = 4 */
    {{{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b,
       0x3636b76660701c6e, 0x051ba4ab241b6160}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 5 */
    {{{0x3726c30af242c66c, 0x7c2ac1aad1b6fe70, 0xa04007fbba4b14a2, 0xef517c3266341429,
       0x0095ba654ed2226b, 0x02e370eccc86f7dd}},
     {{0x82d83cf50dbce43f, 0xa2813e53df9d018f, 0xc6f0caa53c65e181, 0x7525cf528d50fe95,
       0x4a85ed50f4798a6b, 0x171da0fd6cf8eebd}}},
    /* k = 6 */
    {{{0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69, 0xeca8f3318332bb7a,
       0xef148d1ea0f4c069, 0x040ab3263eff0206}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 7 */
    {{{0xb2f66aad4ce5d646, 0x5842a06bfc497cec, 0xcf4895d42599d394, 0xc11b9cba40a8e8d0,
       0x2e3813cbe5a0de89, 0x110eefda88847faf}},
     {{0x07089552b319d465, 0xc6695f92b50a8313, 0x97e83cccd117228f, 0xa35baecab2dc29ee,
       0x1ce393ea5daace4d, 0x08f2220fb0fb66eb}}},
    /* k = 8 */
    {{{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e,
       0x03f97d6e83d050d2, 0x18f0206554638741}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 9 */
    {{{0x7bcfa7a25aa30fda, 0xdc17dec12a927e7c, 0x2f088dd86b4ebef1, 0xd1ca2087da74d4a7,
       0x2da2596696cebc1d, 0x0e2b7eedbbfd87d2}},
     {{0x3e2f585da55c9ad1, 0x4294213d86c18183, 0x382844c88b623732, 0x92ad2afd19103e18,
       0x1d794e4fac7cf0b9, 0x0bd592fc7d825ec8}}},
    /* k = 10 */
    {{{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, 0xa20d1b8c7e881024,
       0x14e4f04fe2db9068, 0x14e56d3f1564853a}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 11 */
    {{{0x82d83cf50dbce43f, 0xa2813e53df9d018f, 0xc6f0caa53c65e181, 0x7525cf528d50fe95,
       0x4a85ed50f4798a6b, 0x171da0fd6cf8eebd}},
     {{0x3726c30af242c66c, 0x7c2ac1aad1b6fe70, 0xa04007fbba4b14a2, 0xef517c3266341429,
       0x0095ba654ed2226b, 0x02e370eccc86f7dd}}},
};

/* r = a·g for a Frobenius constant g; those with even k lie in Fp and cost two Fp products. */
static void mul_by_frob_const(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *g) {
    if (czk_fp_is_zero(&g->c1))
        czk_fp2_mul_fp(r, a, &g->c0);
    else
        czk_fp2_mul(r, a, g);
}

void czk_fp12_set_zero(czk_fp12 *r) {
    czk_fp6_set_zero(&r->c0);
    czk_fp6_set_zero(&r->c1);
}

void czk_fp12_set_one(czk_fp12 *r) {
    czk_fp6_set_one(&r->c0);
    czk_fp6_set_zero(&r->c1);
}

int czk_fp12_is_zero(const czk_fp12 *a) {
    return czk_fp6_is_zero(&a->c0) & czk_fp6_is_zero(&a->c1);
}

int czk_fp12_is_one(const czk_fp12 *a) {
    return czk_fp6_is_one(&a->c0) & czk_fp6_is_zero(&a->c1);
}

int czk_fp12_equal(const czk_fp12 *a, const czk_fp12 *b) {
    return czk_fp6_equal(&a->c0, &b->c0) & czk_fp6_equal(&a->c1, &b->c1);
}

void czk_fp12_cmov(czk_fp12 *r, const czk_fp12 *a, int flag) {
    czk_fp6_cmov(&r->c0, &a->c0, flag);
    czk_fp6_cmov(&r->c1, &a->c1, flag);
}

void czk_fp12_add(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b) {
    czk_fp6_add(&r->c0, &a->c0, &b->c0);
    czk_fp6_add(&r->c1, &a->c1, &b->c1);
}

void czk_fp12_sub(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b) {
    czk_fp6_sub(&r->c0, &a->c0, &b->c0);
    czk_fp6_sub(&r->c1, &a->c1, &b->c1);
}

void czk_fp12_neg(czk_fp12 *r, const czk_fp12 *a) {
    czk_fp6_neg(&r->c0, &a->c0);
    czk_fp6_neg(&r->c1, &a->c1);
}

void czk_fp12_mul(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b) {
    /* t0 = a0·b0, t1 = a1·b1; r0 = t0 + v·t1, r1 = (a0 + a1)(b0 + b1) - t0 - t1. */
    czk_fp6 t0, t1, sa, sb;
    czk_fp6_mul(&t0, &a->c0, &b->c0);
    czk_fp6_mul(&t1, &a->c1, &b->c1);
    czk_fp6_add(&sa, &a->c0, &a->c1);
    czk_fp6_add(&sb, &b->c0, &b->c1);
    czk_fp6_mul(&sa, &sa, &sb);
    czk_fp6_sub(&sa, &sa, &t0);
    czk_fp6_sub(&r->c1, &sa, &t1);
    czk_fp6_mul_by_nonresidue(&t1, &t1);
    czk_fp6_add(&r->c0, &t0, &t1);
}

void czk_fp12_sqr(czk_fp12 *r, const czk_fp12 *a) {
    /* c = a0·a1; r0 = (a0 + a1)(a0 + v·a1) - c - v·c, r1 = 2c. */
    czk_fp6 c, s, t;
    czk_fp6_mul(&c, &a->c0, &a->c1);
    czk_fp6_add(&s, &a->c0, &a->c1);
    czk_fp6_mul_by_nonresidue(&t, &a->c1);
    czk_fp6_add(&t, &t, &a->c0);
    czk_fp6_mul(&s, &s, &t);
    czk_fp6_sub(&s, &s, &c);
    czk_fp6_mul_by_nonresidue(&t, &c);
    czk_fp6_sub(&r->c0, &s, &t);
    czk_fp6_dbl(&r->c1, &c);
}

void czk_fp12_conj(czk_fp12 *r, const czk_fp12 *a) {
    r->c0 = a->c0;
    czk_fp6_neg(&r->c1, &a->c1);
}

void czk_fp12_inv(czk_fp12 *r, const czk_fp12 *a) {
    /* (a0 + a1·w)^-1 = (a0 - a1·w) / (a0^2 - v·a1^2), the norm to Fp6 being a0^2 - v·a1^2. */
    czk_fp6 t0, t1;
    czk_fp6_sqr(&t0, &a->c0);
    czk_fp6_sqr(&t1, &a->c1);
    czk_fp6_mul_by_nonresidue(&t1, &t1);
    czk_fp6_sub(&t0, &t0, &t1);
    czk_fp6_inv(&t0, &t0);
    czk_fp6_mul(&r->c0, &a->c0, &t0);
    czk_fp6_mul(&r->c1, &a->c1, &t0);
    czk_fp6_neg(&r->c1, &r->c1);
}

void czk_fp12_frobenius(czk_fp12 *r, const czk_fp12 *a, unsigned power) {
    unsigned k = power % 12;
    czk_fp6_frobenius(&r->c0, &a->c0, k);
    czk_fp6_frobenius(&r->c1, &a->c1, k);
    mul_by_frob_const(&r->c1.c0, &r->c1.c0, &FROB12_C1[k]);
    mul_by_frob_const(&r->c1.c1, &r->c1.c1, &FROB12_C1[k]);
    mul_by_frob_const(&r->c1.c2, &r->c1.c2, &FROB12_C1[k]);
}

void czk_fp12_mul_by_014(czk_fp12 *r, const czk_fp12 *a, const czk_fp2 *b0, const czk_fp2 *b1,
                         const czk_fp2 *b4) {
    /*
     * Karatsuba over Fp6 with b = (b0 + b1·v) + (b4·v)·w: the three Fp6 products become two
     * sparse products by (x0 + x1·v) (5 Fp2 multiplications each) and one by x1·v (3).
     */
    czk_fp6 t0, t1, s;
    czk_fp2 b14;
    czk_fp2_add(&b14, b1, b4);
    czk_fp6_mul_by_01(&t0, &a->c0, b0, b1);
    czk_fp6_mul_by_1(&t1, &a->c1, b4);
    czk_fp6_add(&s, &a->c0, &a->c1);
    czk_fp6_mul_by_01(&s, &s, b0, &b14);
    czk_fp6_sub(&s, &s, &t0);
    czk_fp6_sub(&r->c1, &s, &t1);
    czk_fp6_mul_by_nonresidue(&t1, &t1);
    czk_fp6_add(&r->c0, &t0, &t1);
}

/* (x, y) = (a + b·s)^2 in Fp4 = Fp2[s]/(s^2 - ξ): x = a^2 + ξ·b^2, y = 2ab. 3 squarings. */
static void fp4_sqr(czk_fp2 *x, czk_fp2 *y, const czk_fp2 *a, const czk_fp2 *b) {
    czk_fp2 a2, b2;
    czk_fp2_sqr(&a2, a);
    czk_fp2_sqr(&b2, b);
    czk_fp2_add(y, a, b);
    czk_fp2_sqr(y, y);
    czk_fp2_sub(y, y, &a2);
    czk_fp2_sub(y, y, &b2);
    czk_fp2_mul_by_nonresidue(&b2, &b2);
    czk_fp2_add(x, &a2, &b2);
}

/* r = 3t - 2c (sign -1) or 3t + 2c (sign +1), as 2(t ∓ c) + t. */
static void three_t_two_c(czk_fp2 *r, const czk_fp2 *t, const czk_fp2 *c, int plus) {
    czk_fp2 x;
    if (plus)
        czk_fp2_add(&x, t, c);
    else
        czk_fp2_sub(&x, t, c);
    czk_fp2_dbl(&x, &x);
    czk_fp2_add(r, &x, t);
}

void czk_fp12_cyclotomic_sqr(czk_fp12 *r, const czk_fp12 *a) {
    /*
     * Granger and Scott, "Faster squaring in the cyclotomic subgroup of sixth degree
     * extensions" (PKC 2010, eprint 2009/565). Write Fp12 = Fp4[t]/(t^3 - s) with t = w
     * and s = w^3, so a = A0 + A1·t + A2·t^2 with
     *   A0 = c0.c0 + c1.c1·s, A1 = c1.c0 + c0.c2·s, A2 = c0.c1 + c1.c2·s.
     * For a in the cyclotomic subgroup,
     *   a^2 = (3·A0^2 - 2·conj(A0)) + (3·s·A2^2 + 2·conj(A1))·t + (3·A1^2 - 2·conj(A2))·t^2,
     * where conj negates the s part.
     */
    czk_fp2 t3, t4, t5, t6, t7, t8;
    fp4_sqr(&t3, &t4, &a->c0.c0, &a->c1.c1);
    fp4_sqr(&t5, &t6, &a->c1.c0, &a->c0.c2);
    fp4_sqr(&t7, &t8, &a->c0.c1, &a->c1.c2);
    czk_fp2_mul_by_nonresidue(&t8, &t8);

    three_t_two_c(&r->c0.c0, &t3, &a->c0.c0, 0);
    three_t_two_c(&r->c1.c1, &t4, &a->c1.c1, 1);
    three_t_two_c(&r->c1.c0, &t8, &a->c1.c0, 1);
    three_t_two_c(&r->c0.c2, &t7, &a->c0.c2, 0);
    three_t_two_c(&r->c0.c1, &t5, &a->c0.c1, 0);
    three_t_two_c(&r->c1.c2, &t6, &a->c1.c2, 1);
}

void czk_fp12_pow_var(czk_fp12 *r, const czk_fp12 *a, const uint64_t *e, size_t n) {
    czk_fp12 base = *a, acc;
    int started = 0;
    czk_fp12_set_one(&acc);
    for (size_t i = n; i-- > 0;) {
        for (int b = 63; b >= 0; b--) {
            if (started)
                czk_fp12_sqr(&acc, &acc);
            if ((e[i] >> b) & 1) {
                if (started)
                    czk_fp12_mul(&acc, &acc, &base);
                else
                    acc = base;
                started = 1;
            }
        }
    }
    *r = acc;
}

void czk_fp12_random(czk_fp12 *r, czk_rng *rng) {
    czk_fp6_random(&r->c0, rng);
    czk_fp6_random(&r->c1, rng);
}
