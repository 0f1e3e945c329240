/*
 * DESIGN: the optimal ate pairing on BLS12-381.
 *
 * e(P, Q) = f_{x,Q}(P)^(3·(q^12 - 1)/r), x = -0xd201000000010000 (Vercauteren, "Optimal
 * pairings", IEEE Trans. IT 2010: for BLS12 the loop length is x itself).
 *
 * Miller loop. Q lives on the M-type sextic twist E': y^2 = x^3 + 4ξ and maps into E(Fp12) by
 * (x, y) -> (x/w^2, y/w^3). Its multiples are tracked in homogeneous projective coordinates
 * (X : Y : Z), x = X/Z, y = Y/Z, which makes the doubling and addition steps inversion-free
 * and their lines cheap: Costello, Lange and Naehrig, "Faster pairing computations on curves
 * with high-degree twists" (PKC 2010, eprint 2009/615), and the refinement in Aranha, Karabina,
 * Longa, Gebotys and López, "Faster explicit formulas for computing pairings over ordinary
 * curves" (Eurocrypt 2011, eprint 2010/526). Multiplied through by w^3 and by factors in
 * Fp2 (which the final exponentiation removes, since Fp2* has order dividing q^6 - 1), a line
 * evaluated at P = (xP, yP) becomes
 *     c0 + (c1·xP)·v + (c2·yP)·v·w
 * with c0, c1, c2 in Fp2 depending on Q only. czk_pairing_g2_prepare computes them once per Q
 * (68 lines: the 63 doublings and 5 additions of the binary expansion of |x|, whose weight is
 * 6), and the loop multiplies them in with czk_fp12_mul_by_014. Several pairs share the Fp12
 * squarings. Since x < 0 the loop computes f_{|x|,Q} and conjugates it at the end:
 * f_{-|x|,Q} = 1/(f_{|x|,Q}·v_{[|x|]Q}), the vertical line lies in Fp6 and dies in the final
 * exponentiation, and 1/f = conj(f) there.
 *
 * Final exponentiation. (q^12 - 1)/r = (q^6 - 1)(q^2 + 1)·Λ with Λ = (q^4 - q^2 + 1)/r. The
 * easy part costs an inversion and two Frobenius maps and lands in the cyclotomic subgroup,
 * where inversion is conjugation and squaring has the Granger–Scott shortcut. For the hard
 * part we use the addition chain of Hayashida, Hayasaka and Teruya, "Efficient final
 * exponentiation via cyclotomic structure for pairings over families of elliptic curves"
 * (eprint 2020/875, BLS12 case), which raises to
 *     3Λ = (x - 1)^2·(x + q)·(x^2 + q^2 - 1) + 3
 * with five exponentiations by x. The factor 3 is harmless (gcd(3, r) = 1) and it is the power
 * @noble/curves raises to, so our e(P, Q) equals its bls12_381.pairing(P, Q) bit for bit.
 */
#include "pairing/pairing.h"

/* |x| for BLS12-381; x itself is negative. */
#define BLS_X_ABS UINT64_C(0xd201000000010000)

static int g1_is_infinity(const czk_g1_affine *p) {
    return czk_fp_is_zero(&p->x) & czk_fp_is_zero(&p->y);
}

static int g2_is_infinity(const czk_g2_affine *q) {
    return czk_fp2_is_zero(&q->x) & czk_fp2_is_zero(&q->y);
}

static void fp2_half(czk_fp2 *r, const czk_fp2 *a) {
    czk_fp_half(&r->c0, &a->c0);
    czk_fp_half(&r->c1, &a->c1);
}

/* r = 3·b'·a with b' = 4ξ the twist's constant: 12·ξ·a, by additions. */
static void fp2_mul_by_3b(czk_fp2 *r, const czk_fp2 *a) {
    czk_fp2 t;
    czk_fp2_mul_by_nonresidue(&t, a);
    czk_fp2_dbl(&t, &t);
    czk_fp2_dbl(&t, &t);
    czk_fp2_dbl(r, &t);
    czk_fp2_add(r, r, &t);
}

/*
 * R = 2R and the tangent line at R (Aranha et al., eprint 2010/526, with b' = 4ξ for the M-type
 * twist):
 *   A = XY/2, B = Y^2, C = Z^2, E = 3b'·C, F = 3E, G = (B + F)/2, H = (Y + Z)^2 - (B + C),
 *   X3 = A·(B - F), Y3 = G^2 - 3E^2, Z3 = B·H,
 *   line: c0 = E - B, c1 = 3X^2, c2 = -H.
 */
static void doubling_step(czk_g2_jacobian *r, czk_pairing_line *l) {
    czk_fp2 a, b, c, e, f, g, h, t;
    czk_fp2_mul(&a, &r->x, &r->y);
    fp2_half(&a, &a);
    czk_fp2_sqr(&b, &r->y);
    czk_fp2_sqr(&c, &r->z);
    fp2_mul_by_3b(&e, &c);
    czk_fp2_dbl(&f, &e);
    czk_fp2_add(&f, &f, &e);
    czk_fp2_add(&g, &b, &f);
    fp2_half(&g, &g);
    czk_fp2_add(&h, &r->y, &r->z);
    czk_fp2_sqr(&h, &h);
    czk_fp2_add(&t, &b, &c);
    czk_fp2_sub(&h, &h, &t);

    czk_fp2_sub(&l->c0, &e, &b);
    czk_fp2_sqr(&t, &r->x);
    czk_fp2_dbl(&l->c1, &t);
    czk_fp2_add(&l->c1, &l->c1, &t);
    czk_fp2_neg(&l->c2, &h);

    czk_fp2_sub(&t, &b, &f);
    czk_fp2_mul(&r->x, &a, &t);
    czk_fp2_sqr(&g, &g);
    czk_fp2_sqr(&t, &e);
    czk_fp2_sub(&g, &g, &t);
    czk_fp2_dbl(&t, &t);
    czk_fp2_sub(&r->y, &g, &t);
    czk_fp2_mul(&r->z, &b, &h);
}

/*
 * R = R + Q for affine Q and the line through R and Q (Aranha et al., eprint 2010/526):
 *   θ = Y - yQ·Z, λ = X - xQ·Z, C = θ^2, D = λ^2, E = λ·D, F = Z·C, G = X·D,
 *   H = E + F - 2G, X3 = λ·H, Y3 = θ·(G - H) - E·Y, Z3 = Z·E,
 *   line: c0 = θ·xQ - λ·yQ, c1 = -θ, c2 = λ.
 */
static void addition_step(czk_g2_jacobian *r, const czk_g2_affine *q, czk_pairing_line *l) {
    czk_fp2 theta, lambda, c, d, e, f, g, h, t;
    czk_fp2_mul(&t, &q->y, &r->z);
    czk_fp2_sub(&theta, &r->y, &t);
    czk_fp2_mul(&t, &q->x, &r->z);
    czk_fp2_sub(&lambda, &r->x, &t);
    czk_fp2_sqr(&c, &theta);
    czk_fp2_sqr(&d, &lambda);
    czk_fp2_mul(&e, &lambda, &d);
    czk_fp2_mul(&f, &r->z, &c);
    czk_fp2_mul(&g, &r->x, &d);
    czk_fp2_add(&h, &e, &f);
    czk_fp2_sub(&h, &h, &g);
    czk_fp2_sub(&h, &h, &g);

    czk_fp2_mul(&r->x, &lambda, &h);
    czk_fp2_sub(&t, &g, &h);
    czk_fp2_mul(&t, &t, &theta);
    czk_fp2_mul(&r->y, &e, &r->y);
    czk_fp2_sub(&r->y, &t, &r->y);
    czk_fp2_mul(&r->z, &r->z, &e);

    czk_fp2_mul(&l->c0, &theta, &q->x);
    czk_fp2_mul(&t, &lambda, &q->y);
    czk_fp2_sub(&l->c0, &l->c0, &t);
    czk_fp2_neg(&l->c1, &theta);
    l->c2 = lambda;
}

void czk_pairing_g2_prepare(czk_pairing_g2_prepared *out, const czk_g2_affine *q) {
    /* The projective coordinates are (X : Y : Z), not Jacobian; the struct is only storage. */
    czk_g2_jacobian r;
    size_t k = 0;
    out->infinity = g2_is_infinity(q);
    r.x = q->x;
    r.y = q->y;
    czk_fp2_set_one(&r.z);
    for (int i = 62; i >= 0; i--) {
        doubling_step(&r, &out->lines[k++]);
        if ((BLS_X_ABS >> i) & 1)
            addition_step(&r, q, &out->lines[k++]);
    }
}

/* f = f·l(P) given xP, yP. */
static void mul_by_line(czk_fp12 *f, const czk_pairing_line *l, const czk_g1_affine *p) {
    czk_fp2 b1, b4;
    czk_fp2_mul_fp(&b1, &l->c1, &p->x);
    czk_fp2_mul_fp(&b4, &l->c2, &p->y);
    czk_fp12_mul_by_014(f, f, &l->c0, &b1, &b4);
}

void czk_pairing_miller_loop(czk_fp12 *out, const czk_g1_affine *ps,
                             const czk_pairing_g2_prepared *qs, size_t n) {
    czk_fp12 f;
    size_t k = 0;
    czk_fp12_set_one(&f);
    for (int i = 62; i >= 0; i--) {
        /* f = 1 before the first step, so its squaring is skipped. */
        if (i != 62)
            czk_fp12_sqr(&f, &f);
        for (size_t j = 0; j < n; j++) {
            if (qs[j].infinity || g1_is_infinity(&ps[j]))
                continue;
            mul_by_line(&f, &qs[j].lines[k], &ps[j]);
        }
        k++;
        if ((BLS_X_ABS >> i) & 1) {
            for (size_t j = 0; j < n; j++) {
                if (qs[j].infinity || g1_is_infinity(&ps[j]))
                    continue;
                mul_by_line(&f, &qs[j].lines[k], &ps[j]);
            }
            k++;
        }
    }
    czk_fp12_conj(out, &f);
}

/*
 * r = a^x = conj(a^|x|) for a in the cyclotomic subgroup (x < 0): 63 Granger–Scott squarings
 * and 5 multiplications.
 *
 * Karabina's compressed squaring (eprint 2010/542: 6 Fp2 squarings instead of 9, with the
 * squares at the set bits of |x| decompressed together at the cost of one Fp2 inversion) was
 * measured and lost: 71.7 us against 66.0 us per exponentiation on the 2-core KVM Xeon
 * (2.6 GHz) this was developed on, GCC 12 -O3, because the constant-time Fp inversion
 * (Fermat) costs about 16 us. It would win again with an inversion below about 10 us.
 */
static void cyclotomic_pow_x(czk_fp12 *r, const czk_fp12 *a) {
    czk_fp12 acc = *a;
    for (int i = 62; i >= 0; i--) {
        czk_fp12_cyclotomic_sqr(&acc, &acc);
        if ((BLS_X_ABS >> i) & 1)
            czk_fp12_mul(&acc, &acc, a);
    }
    czk_fp12_conj(r, &acc);
}

void czk_pairing_final_exp(czk_fp12 *out, const czk_fp12 *f) {
    czk_fp12 a, b, t1, t2, t3, t4, t5, t6, t7;

    /* Easy part: t1 = f^((q^6 - 1)(q^2 + 1)). */
    czk_fp12_inv(&a, f);
    czk_fp12_conj(&b, f);
    czk_fp12_mul(&a, &a, &b);
    czk_fp12_frobenius(&b, &a, 2);
    czk_fp12_mul(&t1, &a, &b);

    /*
     * Hard part, t1^(3Λ) (Hayashida–Hayasaka–Teruya, eprint 2020/875), exponents in terms of
     * t1:
     *   t2 = x, t3 = x - 2, t4 = x^2 - 2x, t5 = x^3 - 2x^2, t6 = x^4 - 2x^3 + 2x,
     *   t7 = x^5 - 2x^4 + 2x^2,
     *   result = (t2·t5)^(q^2) · (t4·t1)^(q^3) · (t6/t1)^q · t7/t3·t1
     * i.e. x(x-1)^2·q^2 + (x-1)^2·q^3 + (x-1)^2(x^2-1)·q + (x-1)^2(x^3-x) + 3 = 3Λ.
     */
    cyclotomic_pow_x(&t2, &t1);
    czk_fp12_cyclotomic_sqr(&a, &t1);
    czk_fp12_conj(&a, &a);
    czk_fp12_mul(&t3, &a, &t2);
    cyclotomic_pow_x(&t4, &t3);
    cyclotomic_pow_x(&t5, &t4);
    cyclotomic_pow_x(&t6, &t5);
    czk_fp12_cyclotomic_sqr(&a, &t2);
    czk_fp12_mul(&t6, &t6, &a);
    cyclotomic_pow_x(&t7, &t6);

    czk_fp12_mul(&a, &t2, &t5);
    czk_fp12_frobenius(&a, &a, 2);
    czk_fp12_mul(&b, &t4, &t1);
    czk_fp12_frobenius(&b, &b, 3);
    czk_fp12_mul(&a, &a, &b);
    czk_fp12_conj(&b, &t1);
    czk_fp12_mul(&b, &b, &t6);
    czk_fp12_frobenius(&b, &b, 1);
    czk_fp12_mul(&a, &a, &b);
    czk_fp12_conj(&b, &t3);
    czk_fp12_mul(&b, &b, &t7);
    czk_fp12_mul(&b, &b, &t1);
    czk_fp12_mul(out, &a, &b);
}

void czk_pairing(czk_fp12 *out, const czk_g1_affine *p, const czk_g2_affine *q) {
    czk_pairing_g2_prepared prep;
    czk_fp12 f;
    czk_pairing_g2_prepare(&prep, q);
    czk_pairing_miller_loop(&f, p, &prep, 1);
    czk_pairing_final_exp(out, &f);
}

int czk_pairing_check(const czk_g1_affine *ps, const czk_pairing_g2_prepared *qs, size_t n) {
    czk_fp12 f;
    czk_pairing_miller_loop(&f, ps, qs, n);
    czk_pairing_final_exp(&f, &f);
    return czk_fp12_is_one(&f);
}
