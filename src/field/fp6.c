/*
 * Fp6 = Fp2[v]/(v^3 - ξ), ξ = u + 1.
 *
 * Multiplication is Karatsuba over three coefficients and squaring is Chung–Hasan SQR2, the
 * choices that Devegili, Ó hÉigeartaigh, Scott and Dahab, "Multiplication and squaring on
 * pairing-friendly fields" (eprint 2006/471) find cheapest for cubic extensions when a
 * squaring costs less than a multiplication.
 */
#include "field/fp6.h"

/*
 * Frobenius constants, k = 0..5, in Montgomery form (R = 2^384). Computed with Python integers:
 * pow(ξ, e) by square-and-multiply in Fp2, then each coordinate x printed as x·2^384 mod q in
 * little-endian limbs. The frobenius tests check them against a^q computed by exponentiation.
 */
/* v^(q^k) = v·FROB6_C1[k], FROB6_C1[k] = ξ^((q^k - 1)/3) */
static const czk_fp2 FROB6_C1[6] = {
    /* k = 0 */
    {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745,
       0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 1 */
    {{{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}},
     {{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e,
       0x03f97d6e83d050d2, 0x18f0206554638741}}},
    /* k = 2 */
    {{{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b,
       0x3636b76660701c6e, 0x051ba4ab241b6160}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 3 */
    {{{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}},
     {{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745,
       0x5c071a97a256ec6d, 0x15f65ec3fa80e493}}},
    /* k = 4 */
    {{{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e,
       0x03f97d6e83d050d2, 0x18f0206554638741}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 5 */
    {{{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}},
     {{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b,
       0x3636b76660701c6e, 0x051ba4ab241b6160}}},
};

/* (v^2)^(q^k) = v^2·FROB6_C2[k], FROB6_C2[k] = ξ^(2(q^k - 1)/3) */
static const czk_fp2 FROB6_C2[6] = {
    /* k = 0 */
    {{{0x760900000002fffd, 0xebf4000bc40c0002, 0x5f48985753c758ba, 0x77ce585370525745,
       0x5c071a97a256ec6d, 0x15f65ec3fa80e493}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 1 */
    {{{0x890dc9e4867545c3, 0x2af322533285a5d5, 0x50880866309b7e2c, 0xa20d1b8c7e881024,
       0x14e4f04fe2db9068, 0x14e56d3f1564853a}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 2 */
    {{{0xcd03c9e48671f071, 0x5dab22461fcda5d2, 0x587042afd3851b95, 0x8eb60ebe01bacb9e,
       0x03f97d6e83d050d2, 0x18f0206554638741}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 3 */
    {{{0x43f5fffffffcaaae, 0x32b7fff2ed47fffd, 0x07e83a49a2e99d69, 0xeca8f3318332bb7a,
       0xef148d1ea0f4c069, 0x040ab3263eff0206}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 4 */
    {{{0x30f1361b798a64e8, 0xf3b8ddab7ece5a2a, 0x16a8ca3ac61577f7, 0xc26a2ff874fd029b,
       0x3636b76660701c6e, 0x051ba4ab241b6160}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
    /* k = 5 */
    {{{0xecfb361b798dba3a, 0xc100ddb891865a2c, 0x0ec08ff1232bda8e, 0xd5c13cc6f1ca4721,
       0x47222a47bf7b5c04, 0x0110f184e51c5f59}},
     {{0x0000000000000000, 0x0000000000000000, 0x0000000000000000, 0x0000000000000000,
       0x0000000000000000, 0x0000000000000000}}},
};

/*
 * r = a·g for a Frobenius constant g. Each constant lies in Fp or in Fp·u, and a product by
 * those costs two Fp multiplications instead of three; the branch is on public table data.
 */
static void mul_by_frob_const(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *g) {
    if (czk_fp_is_zero(&g->c1)) {
        czk_fp2_mul_fp(r, a, &g->c0);
    } else if (czk_fp_is_zero(&g->c0)) {
        /* (a0 + a1·u)·(g1·u) = -a1·g1 + a0·g1·u */
        czk_fp t;
        czk_fp_mul(&t, &a->c1, &g->c1);
        czk_fp_mul(&r->c1, &a->c0, &g->c1);
        czk_fp_neg(&r->c0, &t);
    } else {
        czk_fp2_mul(r, a, g);
    }
}

void czk_fp6_set_zero(czk_fp6 *r) {
    czk_fp2_set_zero(&r->c0);
    czk_fp2_set_zero(&r->c1);
    czk_fp2_set_zero(&r->c2);
}

void czk_fp6_set_one(czk_fp6 *r) {
    czk_fp2_set_one(&r->c0);
    czk_fp2_set_zero(&r->c1);
    czk_fp2_set_zero(&r->c2);
}

int czk_fp6_is_zero(const czk_fp6 *a) {
    return czk_fp2_is_zero(&a->c0) & czk_fp2_is_zero(&a->c1) & czk_fp2_is_zero(&a->c2);
}

int czk_fp6_is_one(const czk_fp6 *a) {
    return czk_fp2_is_one(&a->c0) & czk_fp2_is_zero(&a->c1) & czk_fp2_is_zero(&a->c2);
}

int czk_fp6_equal(const czk_fp6 *a, const czk_fp6 *b) {
    return czk_fp2_equal(&a->c0, &b->c0) & czk_fp2_equal(&a->c1, &b->c1) &
           czk_fp2_equal(&a->c2, &b->c2);
}

void czk_fp6_cmov(czk_fp6 *r, const czk_fp6 *a, int flag) {
    czk_fp2_cmov(&r->c0, &a->c0, flag);
    czk_fp2_cmov(&r->c1, &a->c1, flag);
    czk_fp2_cmov(&r->c2, &a->c2, flag);
}

void czk_fp6_add(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
    czk_fp2_add(&r->c0, &a->c0, &b->c0);
    czk_fp2_add(&r->c1, &a->c1, &b->c1);
    czk_fp2_add(&r->c2, &a->c2, &b->c2);
}

void czk_fp6_sub(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
    czk_fp2_sub(&r->c0, &a->c0, &b->c0);
    czk_fp2_sub(&r->c1, &a->c1, &b->c1);
    czk_fp2_sub(&r->c2, &a->c2, &b->c2);
}

void czk_fp6_neg(czk_fp6 *r, const czk_fp6 *a) {
    czk_fp2_neg(&r->c0, &a->c0);
    czk_fp2_neg(&r->c1, &a->c1);
    czk_fp2_neg(&r->c2, &a->c2);
}

void czk_fp6_dbl(czk_fp6 *r, const czk_fp6 *a) {
    czk_fp2_dbl(&r->c0, &a->c0);
    czk_fp2_dbl(&r->c1, &a->c1);
    czk_fp2_dbl(&r->c2, &a->c2);
}

void czk_fp6_mul(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
    /*
     * Karatsuba (Devegili et al., eprint 2006/471): with t_i = a_i·b_i,
     *   r0 = t0 + ξ·((a1 + a2)(b1 + b2) - t1 - t2)
     *   r1 = (a0 + a1)(b0 + b1) - t0 - t1 + ξ·t2
     *   r2 = (a0 + a2)(b0 + b2) - t0 - t2 + t1
     */
    czk_fp2 t0, t1, t2, sa, sb, x0, x1, x2;
    czk_fp2_mul(&t0, &a->c0, &b->c0);
    czk_fp2_mul(&t1, &a->c1, &b->c1);
    czk_fp2_mul(&t2, &a->c2, &b->c2);

    czk_fp2_add(&sa, &a->c1, &a->c2);
    czk_fp2_add(&sb, &b->c1, &b->c2);
    czk_fp2_mul(&x0, &sa, &sb);
    czk_fp2_sub(&x0, &x0, &t1);
    czk_fp2_sub(&x0, &x0, &t2);
    czk_fp2_mul_by_nonresidue(&x0, &x0);
    czk_fp2_add(&x0, &x0, &t0);

    czk_fp2_add(&sa, &a->c0, &a->c1);
    czk_fp2_add(&sb, &b->c0, &b->c1);
    czk_fp2_mul(&x1, &sa, &sb);
    czk_fp2_sub(&x1, &x1, &t0);
    czk_fp2_sub(&x1, &x1, &t1);

    czk_fp2_add(&sa, &a->c0, &a->c2);
    czk_fp2_add(&sb, &b->c0, &b->c2);
    czk_fp2_mul(&x2, &sa, &sb);
    czk_fp2_sub(&x2, &x2, &t0);
    czk_fp2_sub(&x2, &x2, &t2);
    czk_fp2_add(&r->c2, &x2, &t1);

    czk_fp2_mul_by_nonresidue(&t2, &t2);
    czk_fp2_add(&r->c1, &x1, &t2);
    r->c0 = x0;
}

void czk_fp6_sqr(czk_fp6 *r, const czk_fp6 *a) {
    /*
     * Chung and Hasan, "Asymmetric squaring formulae" (ARITH 2007), SQR2:
     *   s0 = a0^2, s1 = 2·a0·a1, s2 = (a0 - a1 + a2)^2, s3 = 2·a1·a2, s4 = a2^2
     *   r0 = s0 + ξ·s3, r1 = s1 + ξ·s4, r2 = s1 + s2 + s3 - s0 - s4
     */
    czk_fp2 s0, s1, s2, s3, s4;
    czk_fp2_sqr(&s0, &a->c0);
    czk_fp2_mul(&s1, &a->c0, &a->c1);
    czk_fp2_dbl(&s1, &s1);
    czk_fp2_sub(&s2, &a->c0, &a->c1);
    czk_fp2_add(&s2, &s2, &a->c2);
    czk_fp2_sqr(&s2, &s2);
    czk_fp2_mul(&s3, &a->c1, &a->c2);
    czk_fp2_dbl(&s3, &s3);
    czk_fp2_sqr(&s4, &a->c2);

    czk_fp2_add(&r->c2, &s1, &s2);
    czk_fp2_add(&r->c2, &r->c2, &s3);
    czk_fp2_sub(&r->c2, &r->c2, &s0);
    czk_fp2_sub(&r->c2, &r->c2, &s4);
    czk_fp2_mul_by_nonresidue(&s3, &s3);
    czk_fp2_add(&r->c0, &s0, &s3);
    czk_fp2_mul_by_nonresidue(&s4, &s4);
    czk_fp2_add(&r->c1, &s1, &s4);
}

void czk_fp6_mul_by_nonresidue(czk_fp6 *r, const czk_fp6 *a) {
    czk_fp2 t;
    czk_fp2_mul_by_nonresidue(&t, &a->c2);
    r->c2 = a->c1;
    r->c1 = a->c0;
    r->c0 = t;
}

void czk_fp6_mul_by_fp2(czk_fp6 *r, const czk_fp6 *a, const czk_fp2 *b) {
    czk_fp2 t = *b; /* b may alias a coefficient of r */
    czk_fp2_mul(&r->c0, &a->c0, &t);
    czk_fp2_mul(&r->c1, &a->c1, &t);
    czk_fp2_mul(&r->c2, &a->c2, &t);
}

void czk_fp6_mul_by_01(czk_fp6 *r, const czk_fp6 *a, const czk_fp2 *b0, const czk_fp2 *b1) {
    /* Karatsuba with b2 = 0, so t2 and the products that only feed it vanish. */
    czk_fp2 t0, t1, x0, x1, x2, s;
    czk_fp2_mul(&t0, &a->c0, b0);
    czk_fp2_mul(&t1, &a->c1, b1);

    czk_fp2_add(&s, &a->c1, &a->c2);
    czk_fp2_mul(&x0, &s, b1);
    czk_fp2_sub(&x0, &x0, &t1);
    czk_fp2_mul_by_nonresidue(&x0, &x0);
    czk_fp2_add(&x0, &x0, &t0);

    czk_fp2_add(&s, &a->c0, &a->c1);
    czk_fp2_add(&x1, b0, b1);
    czk_fp2_mul(&x1, &x1, &s);
    czk_fp2_sub(&x1, &x1, &t0);
    czk_fp2_sub(&x1, &x1, &t1);

    czk_fp2_add(&s, &a->c0, &a->c2);
    czk_fp2_mul(&x2, &s, b0);
    czk_fp2_sub(&x2, &x2, &t0);
    czk_fp2_add(&x2, &x2, &t1);

    r->c0 = x0;
    r->c1 = x1;
    r->c2 = x2;
}

void czk_fp6_mul_by_1(czk_fp6 *r, const czk_fp6 *a, const czk_fp2 *b1) {
    czk_fp2 x0, x1, x2;
    czk_fp2_mul(&x0, &a->c2, b1);
    czk_fp2_mul_by_nonresidue(&x0, &x0);
    czk_fp2_mul(&x1, &a->c0, b1);
    czk_fp2_mul(&x2, &a->c1, b1);
    r->c0 = x0;
    r->c1 = x1;
    r->c2 = x2;
}

void czk_fp6_inv(czk_fp6 *r, const czk_fp6 *a) {
    /*
     * The adjugate of multiplication by a, as in Scott, "Implementing cryptographic pairings"
     * (Pairing 2007): with
     *   t0 = a0^2 - ξ·a1·a2, t1 = ξ·a2^2 - a0·a1, t2 = a1^2 - a0·a2,
     * a·(t0 + t1·v + t2·v^2) = a0·t0 + ξ·(a2·t1 + a1·t2), an element of Fp2. When a = 0 the
     * Fp2 inversion yields 0 and so does r.
     */
    czk_fp2 t0, t1, t2, x, d;
    czk_fp2_sqr(&t0, &a->c0);
    czk_fp2_mul(&x, &a->c1, &a->c2);
    czk_fp2_mul_by_nonresidue(&x, &x);
    czk_fp2_sub(&t0, &t0, &x);

    czk_fp2_sqr(&t1, &a->c2);
    czk_fp2_mul_by_nonresidue(&t1, &t1);
    czk_fp2_mul(&x, &a->c0, &a->c1);
    czk_fp2_sub(&t1, &t1, &x);

    czk_fp2_sqr(&t2, &a->c1);
    czk_fp2_mul(&x, &a->c0, &a->c2);
    czk_fp2_sub(&t2, &t2, &x);

    czk_fp2_mul(&d, &a->c2, &t1);
    czk_fp2_mul(&x, &a->c1, &t2);
    czk_fp2_add(&d, &d, &x);
    czk_fp2_mul_by_nonresidue(&d, &d);
    czk_fp2_mul(&x, &a->c0, &t0);
    czk_fp2_add(&d, &d, &x);
    czk_fp2_inv(&d, &d);

    czk_fp2_mul(&r->c0, &t0, &d);
    czk_fp2_mul(&r->c1, &t1, &d);
    czk_fp2_mul(&r->c2, &t2, &d);
}

void czk_fp6_frobenius(czk_fp6 *r, const czk_fp6 *a, unsigned power) {
    unsigned k = power % 6;
    czk_fp2_frobenius(&r->c0, &a->c0, k);
    czk_fp2_frobenius(&r->c1, &a->c1, k);
    czk_fp2_frobenius(&r->c2, &a->c2, k);
    mul_by_frob_const(&r->c1, &r->c1, &FROB6_C1[k]);
    mul_by_frob_const(&r->c2, &r->c2, &FROB6_C2[k]);
}

void czk_fp6_random(czk_fp6 *r, czk_rng *rng) {
    czk_fp2_random(&r->c0, rng);
    czk_fp2_random(&r->c1, rng);
    czk_fp2_random(&r->c2, rng);
}
