/*
 * Tests of the Fp6/Fp12 tower (field/fp6.h, field/fp12.h) and of the pairing (pairing.h).
 *
 * The tower is checked against naive references written here (schoolbook products in the
 * power basis of w over Fp2, exponentiation by q for the Frobenius maps); the pairing against
 * a known answer from @noble/curves and against its algebraic laws, with points from curve/.
 */
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp12.h"
#include "field/fp6.h"
#include "field/fr.h"
#include "pairing/pairing.h"
#include "tests/test.h"

#include <string.h>

/* ---- Helpers ---------------------------------------------------------------------------- */

/*
 * e(G1, G2) as canonical little-endian limbs in the order c0.c0.c0, c0.c0.c1, c0.c1.c0, ...,
 * c1.c2.c1. From @noble/curves 2.4.0 (tests/noble): bls12_381.pairing(G1.Point.BASE,
 * G2.Point.BASE), printed coefficient by coefficient.
 */
static const uint64_t E_G1_G2[12][6] = {
    {UINT64_C(0xa84305aaca1789b6), UINT64_C(0xb6d194f60839c508), UINT64_C(0x3dd8e90ce98db3e7),
     UINT64_C(0x272d441befa15c50), UINT64_C(0xa7b2d83168d0d727), UINT64_C(0x1250ebd871fc0a92)},
    {UINT64_C(0x59882a98eaa0170f), UINT64_C(0xf1a8943e50439f1d), UINT64_C(0xaf5af689452eafab),
     UINT64_C(0x68a84045483c92b7), UINT64_C(0x86750ec6a5323488), UINT64_C(0x089a1c5b46e5110b)},
    {UINT64_C(0x881c4c849ec23e87), UINT64_C(0xddff57309396b38c), UINT64_C(0x16da0e22a5031b54),
     UINT64_C(0x0378a68e72a6b3b2), UINT64_C(0x9703f239689ce34c), UINT64_C(0x1368bb445c7c2d20)},
    {UINT64_C(0x315021ec3c19934f), UINT64_C(0xffe51d7a579973b1), UINT64_C(0x7c90d8bd66065b1f),
     UINT64_C(0x37e0794e1e65a761), UINT64_C(0xc273fa075a505129), UINT64_C(0x193502b86edb8857)},
    {UINT64_C(0x1dad1c1fb597aaa5), UINT64_C(0x19c34dffbbaad843), UINT64_C(0x185203fcca589ac7),
     UINT64_C(0xfbf2f8da752f7c74), UINT64_C(0x91125ba84dc4007c), UINT64_C(0x01b2f522473d1713)},
    {UINT64_C(0x8beae9624045b4b6), UINT64_C(0x23f7dacaa35c8ca7), UINT64_C(0x8061e55cceba478b),
     UINT64_C(0x46da634b8f6be14a), UINT64_C(0xbd3c79937a45b845), UINT64_C(0x018107154f25a764)},
    {UINT64_C(0x0f948226e47ee89d), UINT64_C(0xbb12d58386a8703e), UINT64_C(0xdea54d43b2b73f2c),
     UINT64_C(0xc88784fbb3d0b2db), UINT64_C(0x9cd6bd15c3d5a04d), UINT64_C(0x19f26337d205fb46)},
    {UINT64_C(0x102ae1c2d5d5ab1a), UINT64_C(0x1bfd1b68ff02f0b8), UINT64_C(0xa7d2809d61bfe02e),
     UINT64_C(0xd5857baaf222eb95), UINT64_C(0x9f80940ca771b6ff), UINT64_C(0x06fba23eb7c5af0d)},
    {UINT64_C(0x1b93b47333e2ba57), UINT64_C(0x78ef48881e32fac9), UINT64_C(0x7d0d15ff7b984e89),
     UINT64_C(0xc81a93b330ee1a67), UINT64_C(0xfcef68083b0b0ec5), UINT64_C(0x11b8b424cd48bf38)},
    {UINT64_C(0xbe2291a0c25a99a2), UINT64_C(0x7ba810c5a09ffdd9), UINT64_C(0x20c806ad36082910),
     UINT64_C(0xc6a0e9786ab59733), UINT64_C(0xc31b4fcb6ce5771c), UINT64_C(0x03350f55a7aefcd3)},
    {UINT64_C(0x9108f0242d0fe3ef), UINT64_C(0xa4fafc05066245cb), UINT64_C(0x1c7cdba7b3872629),
     UINT64_C(0xa189e87935a95405), UINT64_C(0x02249b64728ffd21), UINT64_C(0x04c581234d086a99)},
    {UINT64_C(0xfde449383b676631), UINT64_C(0xd48eaa24afe47e1e), UINT64_C(0xdeff686bfd6df543),
     UINT64_C(0x3baca4d72ca93544), UINT64_C(0x068672cbd01a7ec7), UINT64_C(0x0f41e58663bf08cf)},
};

static void fp_lit(czk_fp *r, const uint64_t l[6]) {
    (void)czk_fp_from_limbs(r, l);
}

/* The 12 Fp coefficients of a, in the tower order c0.c0.c0 ... c1.c2.c1. */
static czk_fp *fp12_coeff(czk_fp12 *a, int i) {
    czk_fp6 *c6 = i < 6 ? &a->c0 : &a->c1;
    czk_fp2 *c2 = (i % 6) < 2 ? &c6->c0 : (i % 6) < 4 ? &c6->c1 : &c6->c2;
    return (i & 1) ? &c2->c1 : &c2->c0;
}

/* r = [k]p and r = [k]q through curve/. */
static void g1_mul(czk_g1_affine *r, const czk_g1_affine *p, const czk_fr *k) {
    czk_g1_jacobian j;
    czk_g1_jacobian_from_affine(&j, p);
    czk_g1_jacobian_mul_var(&j, &j, k);
    czk_g1_jacobian_to_affine(r, &j);
}

static void g2_mul(czk_g2_affine *r, const czk_g2_affine *q, const czk_fr *k) {
    czk_g2_jacobian j;
    czk_g2_jacobian_from_affine(&j, q);
    czk_g2_jacobian_mul_var(&j, &j, k);
    czk_g2_jacobian_to_affine(r, &j);
}

static void fp12_pow_fr(czk_fp12 *r, const czk_fp12 *a, const czk_fr *k) {
    uint64_t e[CZK_FR_LIMBS];
    czk_fr_to_limbs(e, k);
    czk_fp12_pow_var(r, a, e, CZK_FR_LIMBS);
}

/* Fp12 as g0 + g1·w + ... + g5·w^5 over Fp2 (the mapping documented in fp12.h): g_i sits in
 * the tower at v^(i/2) w^(i%2), since v = w^2. */
static czk_fp2 *fp12_w_coeff(czk_fp12 *a, int i) {
    czk_fp6 *h = i % 2 == 0 ? &a->c0 : &a->c1;
    czk_fp2 *c[3] = {&h->c0, &h->c1, &h->c2};
    return c[i / 2];
}

static void fp12_to_w(czk_fp2 g[6], const czk_fp12 *a) {
    czk_fp12 copy = *a;
    for (int i = 0; i < 6; i++)
        g[i] = *fp12_w_coeff(&copy, i);
}

static void fp12_from_w(czk_fp12 *a, const czk_fp2 g[6]) {
    for (int i = 0; i < 6; i++)
        *fp12_w_coeff(a, i) = g[i];
}

/* Schoolbook product in Fp2[w]/(w^6 - ξ): 36 Fp2 products, independent of the tower code. */
static void fp12_mul_ref(czk_fp12 *r, const czk_fp12 *a, const czk_fp12 *b) {
    czk_fp2 x[6], y[6], h[11], t;
    fp12_to_w(x, a);
    fp12_to_w(y, b);
    for (int k = 0; k < 11; k++)
        czk_fp2_set_zero(&h[k]);
    for (int i = 0; i < 6; i++) {
        for (int j = 0; j < 6; j++) {
            czk_fp2_mul(&t, &x[i], &y[j]);
            czk_fp2_add(&h[i + j], &h[i + j], &t);
        }
    }
    for (int k = 0; k < 5; k++) {
        czk_fp2_mul_by_nonresidue(&t, &h[k + 6]);
        czk_fp2_add(&h[k], &h[k], &t);
    }
    fp12_from_w(r, h);
}

/* Schoolbook product in Fp2[v]/(v^3 - ξ). */
static void fp6_mul_ref(czk_fp6 *r, const czk_fp6 *a, const czk_fp6 *b) {
    const czk_fp2 *x[3] = {&a->c0, &a->c1, &a->c2}, *y[3] = {&b->c0, &b->c1, &b->c2};
    czk_fp2 h[5], t;
    for (int k = 0; k < 5; k++)
        czk_fp2_set_zero(&h[k]);
    for (int i = 0; i < 3; i++) {
        for (int j = 0; j < 3; j++) {
            czk_fp2_mul(&t, x[i], y[j]);
            czk_fp2_add(&h[i + j], &h[i + j], &t);
        }
    }
    czk_fp2_mul_by_nonresidue(&t, &h[3]);
    czk_fp2_add(&r->c0, &h[0], &t);
    czk_fp2_mul_by_nonresidue(&t, &h[4]);
    czk_fp2_add(&r->c1, &h[1], &t);
    r->c2 = h[2];
}

/* f^((q^6 - 1)(q^2 + 1)) for a random non-zero f: a random element of the cyclotomic subgroup. */
static void random_cyclotomic(czk_fp12 *r, czk_rng *rng) {
    czk_fp12 f, a, b;
    czk_fp12_random(&f, rng);
    czk_fp12_inv(&a, &f);
    czk_fp12_conj(&b, &f);
    czk_fp12_mul(&a, &a, &b);
    czk_fp12_frobenius(&b, &a, 2);
    czk_fp12_mul(r, &a, &b);
}

#define CHECK_FP12_EQ(a, b) CHECK_MEM((a), (b), sizeof(czk_fp12))

/* ---- Tower ------------------------------------------------------------------------------ */

CZK_TEST(fp6_mul_schoolbook) {
    long iters = czk_test_iters(t, 1000);
    for (long it = 0; it < iters; it++) {
        czk_fp6 a, b, r, ref, x;
        czk_fp2 z;
        czk_fp6_random(&a, &t->rng);
        czk_fp6_random(&b, &t->rng);
        czk_fp6_mul(&r, &a, &b);
        fp6_mul_ref(&ref, &a, &b);
        CHECK(czk_fp6_equal(&r, &ref));
        /* Aliased output. */
        x = a;
        czk_fp6_mul(&x, &x, &b);
        CHECK(czk_fp6_equal(&x, &ref));
        czk_fp6_sqr(&r, &a);
        fp6_mul_ref(&ref, &a, &a);
        CHECK(czk_fp6_equal(&r, &ref));
        /* Sparse and special products against the full one. */
        czk_fp2_set_zero(&z);
        x = b;
        x.c2 = z;
        czk_fp6_mul_by_01(&r, &a, &x.c0, &x.c1);
        fp6_mul_ref(&ref, &a, &x);
        CHECK(czk_fp6_equal(&r, &ref));
        x.c0 = z;
        czk_fp6_mul_by_1(&r, &a, &x.c1);
        fp6_mul_ref(&ref, &a, &x);
        CHECK(czk_fp6_equal(&r, &ref));
        czk_fp6_set_zero(&x);
        czk_fp2_set_one(&x.c1);
        czk_fp6_mul_by_nonresidue(&r, &a);
        fp6_mul_ref(&ref, &a, &x);
        CHECK(czk_fp6_equal(&r, &ref));
        czk_fp6_set_zero(&x);
        x.c0 = b.c0;
        czk_fp6_mul_by_fp2(&r, &a, &b.c0);
        fp6_mul_ref(&ref, &a, &x);
        CHECK(czk_fp6_equal(&r, &ref));
        /* Inverse. */
        czk_fp6_inv(&r, &a);
        czk_fp6_mul(&r, &r, &a);
        CHECK(czk_fp6_is_one(&r));
    }
    czk_fp6 zero, r;
    czk_fp6_set_zero(&zero);
    czk_fp6_inv(&r, &zero);
    CHECK(czk_fp6_is_zero(&r));
}

CZK_TEST(fp12_mul_schoolbook) {
    long iters = czk_test_iters(t, 1000);
    for (long it = 0; it < iters; it++) {
        czk_fp12 a, b, r, ref, x;
        czk_fp12_random(&a, &t->rng);
        czk_fp12_random(&b, &t->rng);
        czk_fp12_mul(&r, &a, &b);
        fp12_mul_ref(&ref, &a, &b);
        CHECK(czk_fp12_equal(&r, &ref));
        x = b;
        czk_fp12_mul(&x, &a, &x);
        CHECK(czk_fp12_equal(&x, &ref));
        /* Squaring against multiplication, aliased. */
        czk_fp12_mul(&ref, &a, &a);
        x = a;
        czk_fp12_sqr(&x, &x);
        CHECK(czk_fp12_equal(&x, &ref));
        /* The sparse line product against a full product by the same sparse element. */
        czk_fp12_set_zero(&x);
        x.c0.c0 = b.c0.c0;
        x.c0.c1 = b.c0.c1;
        x.c1.c1 = b.c1.c1;
        czk_fp12_mul_by_014(&r, &a, &b.c0.c0, &b.c0.c1, &b.c1.c1);
        fp12_mul_ref(&ref, &a, &x);
        CHECK(czk_fp12_equal(&r, &ref));
        /* Inverse; conj(a) = a^(q^6). */
        czk_fp12_inv(&r, &a);
        czk_fp12_mul(&r, &r, &a);
        CHECK(czk_fp12_is_one(&r));
        czk_fp12_conj(&r, &a);
        czk_fp12_frobenius(&x, &a, 6);
        CHECK(czk_fp12_equal(&r, &x));
        /* Ring laws for add/sub/neg. */
        czk_fp12_add(&r, &a, &b);
        czk_fp12_sub(&r, &r, &b);
        CHECK(czk_fp12_equal(&r, &a));
        czk_fp12_neg(&r, &a);
        czk_fp12_add(&r, &r, &a);
        CHECK(czk_fp12_is_zero(&r));
    }
    czk_fp12 zero, one, r;
    czk_fp12_set_zero(&zero);
    czk_fp12_set_one(&one);
    czk_fp12_inv(&r, &zero);
    CHECK(czk_fp12_is_zero(&r));
    CHECK(czk_fp12_is_one(&one) && !czk_fp12_is_one(&zero) && !czk_fp12_is_zero(&one));
}

CZK_TEST(fp12_frobenius_vs_pow) {
    long iters = czk_test_iters(t, 16);
    for (long it = 0; it < iters; it++) {
        czk_fp12 a, p, f, x;
        czk_fp12_random(&a, &t->rng);
        p = a;
        for (unsigned k = 1; k <= 3; k++) {
            czk_fp12_pow_var(&p, &p, CZK_FP_MODULUS, CZK_FP_LIMBS); /* p = a^(q^k) */
            czk_fp12_frobenius(&f, &a, k);
            CHECKF(czk_fp12_equal(&f, &p), "frobenius power %u", k);
            /* Fp6 Frobenius through the embedding Fp6 ⊂ Fp12. */
            x = a;
            czk_fp6_set_zero(&x.c1);
            czk_fp12_frobenius(&f, &x, k);
            czk_fp6_frobenius(&x.c0, &a.c0, k);
            CHECK(czk_fp6_is_zero(&f.c1) && czk_fp6_equal(&f.c0, &x.c0));
        }
        /* Composition, and order 12. */
        for (unsigned k = 0; k <= 12; k++) {
            czk_fp12_frobenius(&f, &a, k);
            czk_fp12_frobenius(&p, &f, 1);
            czk_fp12_frobenius(&x, &a, k + 1);
            CHECKF(czk_fp12_equal(&p, &x), "frobenius %u+1", k);
        }
        czk_fp12_frobenius(&f, &a, 12);
        CHECK(czk_fp12_equal(&f, &a));
        f = a;
        for (int k = 0; k < 12; k++)
            czk_fp12_frobenius(&f, &f, 1);
        CHECK(czk_fp12_equal(&f, &a));
        czk_fp6_frobenius(&f.c0, &a.c0, 6);
        CHECK(czk_fp6_equal(&f.c0, &a.c0));
    }
}

CZK_TEST(fp12_pow_var) {
    czk_fp12 a, r, x;
    czk_fp12_random(&a, &t->rng);
    czk_fp12_pow_var(&r, &a, NULL, 0);
    CHECK(czk_fp12_is_one(&r));
    uint64_t e[2] = {0, 0};
    czk_fp12_pow_var(&r, &a, e, 2);
    CHECK(czk_fp12_is_one(&r));
    e[0] = 1;
    czk_fp12_pow_var(&r, &a, e, 2);
    CHECK(czk_fp12_equal(&r, &a));
    /* a^(2^64 + 5) = (a^(2^64))·a^5. */
    e[0] = 5;
    e[1] = 1;
    czk_fp12_pow_var(&r, &a, e, 2);
    x = a;
    for (int i = 0; i < 64; i++)
        czk_fp12_sqr(&x, &x);
    for (int i = 0; i < 5; i++)
        czk_fp12_mul(&x, &x, &a);
    CHECK(czk_fp12_equal(&r, &x));
}

CZK_TEST(fp12_cyclotomic_sqr) {
    long iters = czk_test_iters(t, 1000);
    for (long it = 0; it < iters; it++) {
        czk_fp12 g, s, c, x, y;
        random_cyclotomic(&g, &t->rng);
        /* Membership: g^(q^4 - q^2 + 1) = 1. */
        czk_fp12_frobenius(&x, &g, 4);
        czk_fp12_mul(&x, &x, &g);
        czk_fp12_frobenius(&y, &g, 2);
        czk_fp12_inv(&y, &y);
        czk_fp12_mul(&x, &x, &y);
        CHECK(czk_fp12_is_one(&x));
        /* Inversion is conjugation there. */
        czk_fp12_conj(&x, &g);
        czk_fp12_mul(&x, &x, &g);
        CHECK(czk_fp12_is_one(&x));
        s = g;
        c = g;
        for (int k = 0; k < 8; k++) {
            czk_fp12_sqr(&s, &s);
            czk_fp12_cyclotomic_sqr(&c, &c);
            CHECKF(czk_fp12_equal(&s, &c), "squaring %d", k);
        }
    }
    czk_fp12 one, r;
    czk_fp12_set_one(&one);
    czk_fp12_cyclotomic_sqr(&r, &one);
    CHECK(czk_fp12_is_one(&r));
}

/* ---- Pairing ---------------------------------------------------------------------------- */

CZK_TEST(pairing_known_answer) {
    czk_g1_affine p;
    czk_g2_affine q;
    czk_fp12 e, want;
    p = CZK_G1_GENERATOR;
    q = CZK_G2_GENERATOR;
    for (int i = 0; i < 12; i++)
        fp_lit(fp12_coeff(&want, i), E_G1_G2[i]);
    czk_pairing(&e, &p, &q);
    CHECK_FP12_EQ(&e, &want);
    /* The same through a prepared Q and czk_pairing_final_exp. */
    czk_pairing_g2_prepared prep;
    czk_pairing_g2_prepare(&prep, &q);
    czk_pairing_miller_loop(&e, &p, &prep, 1);
    czk_pairing_final_exp(&e, &e);
    CHECK_FP12_EQ(&e, &want);
}

CZK_TEST(pairing_order_and_nondegenerate) {
    czk_g1_affine p;
    czk_g2_affine q;
    czk_fp12 e, x;
    p = CZK_G1_GENERATOR;
    q = CZK_G2_GENERATOR;
    czk_pairing(&e, &p, &q);
    CHECK(!czk_fp12_is_one(&e));
    /* e != 1 and e^r = 1 with r prime: e generates GT. */
    czk_fp12_pow_var(&x, &e, CZK_FR_MODULUS, CZK_FR_LIMBS);
    CHECK(czk_fp12_is_one(&x));
}

CZK_TEST(pairing_bilinear) {
    long iters = czk_test_iters(t, 8);
    czk_g1_affine g1, p;
    czk_g2_affine g2, q;
    czk_fp12 e, e_ab, x;
    g1 = CZK_G1_GENERATOR;
    g2 = CZK_G2_GENERATOR;
    czk_pairing(&e, &g1, &g2);
    for (long it = 0; it < iters; it++) {
        czk_fr a, b, ab;
        czk_fr_random(&a, &t->rng);
        czk_fr_random(&b, &t->rng);
        czk_fr_mul(&ab, &a, &b);
        g1_mul(&p, &g1, &a);
        g2_mul(&q, &g2, &b);
        czk_pairing(&e_ab, &p, &q);
        fp12_pow_fr(&x, &e, &ab);
        CHECK_FP12_EQ(&e_ab, &x);
        /* Linearity in each slot separately: e(aP, Q) = e(P, aQ). */
        czk_fp12 y;
        czk_g1_affine pa;
        czk_g2_affine qa;
        g1_mul(&pa, &g1, &a);
        g2_mul(&qa, &g2, &a);
        czk_pairing(&x, &pa, &g2);
        czk_pairing(&y, &g1, &qa);
        CHECK_FP12_EQ(&x, &y);
    }
}

CZK_TEST(pairing_check_inverse) {
    czk_g1_affine p, pneg;
    czk_g2_affine q, qneg;
    czk_fr k;
    czk_g1_affine ps[2];
    czk_pairing_g2_prepared qs[2];
    p = CZK_G1_GENERATOR;
    q = CZK_G2_GENERATOR;
    czk_fr_random(&k, &t->rng);
    g1_mul(&p, &p, &k);
    czk_fr_random(&k, &t->rng);
    g2_mul(&q, &q, &k);
    czk_g2_affine_neg(&qneg, &q);
    czk_g1_affine_neg(&pneg, &p);

    /* e(P, -Q)·e(P, Q) = 1 */
    ps[0] = p;
    ps[1] = p;
    czk_pairing_g2_prepare(&qs[0], &qneg);
    czk_pairing_g2_prepare(&qs[1], &q);
    CHECK_EQ_INT(czk_pairing_check(ps, qs, 2), 1);
    /* e(-P, Q)·e(P, Q) = 1 */
    ps[0] = pneg;
    czk_pairing_g2_prepare(&qs[0], &q);
    CHECK_EQ_INT(czk_pairing_check(ps, qs, 2), 1);
    /* e(P, Q)·e(P, Q) != 1 */
    ps[0] = p;
    CHECK_EQ_INT(czk_pairing_check(ps, qs, 2), 0);
    CHECK_EQ_INT(czk_pairing_check(ps, qs, 1), 0);
    /* e(P, -Q) = e(P, Q)^-1 = conj(e(P, Q)). */
    czk_fp12 a, b;
    czk_pairing(&a, &p, &q);
    czk_pairing(&b, &p, &qneg);
    czk_fp12_conj(&b, &b);
    CHECK_FP12_EQ(&a, &b);
}

CZK_TEST(pairing_infinity) {
    czk_g1_affine p, o1 = {0};
    czk_g2_affine q, o2 = {0};
    czk_fp12 e;
    p = CZK_G1_GENERATOR;
    q = CZK_G2_GENERATOR;
    czk_pairing(&e, &o1, &q);
    CHECK(czk_fp12_is_one(&e));
    czk_pairing(&e, &p, &o2);
    CHECK(czk_fp12_is_one(&e));
    czk_pairing(&e, &o1, &o2);
    CHECK(czk_fp12_is_one(&e));
    czk_pairing_miller_loop(&e, NULL, NULL, 0);
    CHECK(czk_fp12_is_one(&e));
    CHECK_EQ_INT(czk_pairing_check(NULL, NULL, 0), 1);

    /* Infinity pairs are skipped inside a product: e(O, Q)·e(P, O)·e(P, Q) = e(P, Q). */
    czk_g1_affine ps[3] = {o1, p, p};
    czk_pairing_g2_prepared qs[3];
    czk_fp12 want;
    czk_pairing_g2_prepare(&qs[0], &q);
    czk_pairing_g2_prepare(&qs[1], &o2);
    czk_pairing_g2_prepare(&qs[2], &q);
    CHECK_EQ_INT(qs[1].infinity, 1);
    CHECK_EQ_INT(qs[0].infinity, 0);
    czk_pairing_miller_loop(&e, ps, qs, 3);
    czk_pairing_final_exp(&e, &e);
    czk_pairing(&want, &p, &q);
    CHECK_FP12_EQ(&e, &want);
    CHECK_EQ_INT(czk_pairing_check(ps, qs, 2), 1);
    CHECK_EQ_INT(czk_pairing_check(ps, qs, 3), 0);
}

CZK_TEST(pairing_product_of_three) {
    czk_g1_affine g1, ps[3];
    czk_g2_affine g2, q0, q1;
    czk_pairing_g2_prepared qs[3];
    czk_fr a, b, c, d, s, x;
    g1 = CZK_G1_GENERATOR;
    g2 = CZK_G2_GENERATOR;
    czk_fr_random(&a, &t->rng);
    czk_fr_random(&b, &t->rng);
    czk_fr_random(&c, &t->rng);
    czk_fr_random(&d, &t->rng);
    /* e(aG1, bG2)·e(cG1, dG2)·e(-(ab + cd)G1, G2) = 1 */
    czk_fr_mul(&s, &a, &b);
    czk_fr_mul(&x, &c, &d);
    czk_fr_add(&s, &s, &x);
    czk_fr_neg(&s, &s);
    g1_mul(&ps[0], &g1, &a);
    g1_mul(&ps[1], &g1, &c);
    g1_mul(&ps[2], &g1, &s);
    g2_mul(&q0, &g2, &b);
    g2_mul(&q1, &g2, &d);
    czk_pairing_g2_prepare(&qs[0], &q0);
    czk_pairing_g2_prepare(&qs[1], &q1);
    czk_pairing_g2_prepare(&qs[2], &g2);
    CHECK_EQ_INT(czk_pairing_check(ps, qs, 3), 1);

    /* The shared Miller loop equals the product of three separate pairings. */
    czk_fp12 f, e, prod;
    czk_pairing_miller_loop(&f, ps, qs, 3);
    czk_pairing_final_exp(&f, &f);
    CHECK(czk_fp12_is_one(&f));
    czk_pairing(&prod, &ps[0], &q0);
    czk_pairing(&e, &ps[1], &q1);
    czk_fp12_mul(&prod, &prod, &e);
    czk_pairing(&e, &ps[2], &g2);
    czk_fp12_mul(&prod, &prod, &e);
    CHECK(czk_fp12_is_one(&prod));

    /* Off by one in the third scalar: the product is e(G1, G2)^-1, not 1. */
    czk_fr_set_one(&x);
    czk_fr_sub(&s, &s, &x);
    g1_mul(&ps[2], &g1, &s);
    CHECK_EQ_INT(czk_pairing_check(ps, qs, 3), 0);
    czk_pairing_miller_loop(&f, ps, qs, 3);
    czk_pairing_final_exp(&f, &f);
    czk_pairing(&e, &g1, &g2);
    czk_fp12_mul(&f, &f, &e);
    CHECK(czk_fp12_is_one(&f));
}
