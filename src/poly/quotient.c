/*
 * The Groth16 quotient (contract in quotient.h).
 *
 * DESIGN
 * Both conventions start the same way: each of a, b, c goes through an inverse transform to
 * coefficients and a forward transform onto a coset s·ω^i. We run the inverse as a DIF pass
 * (natural in, bit-reversed out) and the forward as a DIT pass (bit-reversed in, natural
 * out), so no permutation is needed between them; the coset shift and the 1/n of the inverse
 * become one scaling pass in bit-reversed order over all three vectors at once (one power of
 * s per position, three multiplications by it).
 *
 * bellperson (groth16/prover: ifft, coset_fft, mul, sub, divide_by_z_on_coset, icoset_fft)
 * wants h = (A·B − C)/Z in coefficients, through the coset g·ω^i where Z(g·ω^i) = g^n − 1.
 * Interpolating at the coset reduces modulo x^n − g^n; there A·B − C = h·Z leaves
 * h·(g^n − 1), and C (degree < n) is its own remainder, so the coset inverse of A·B alone is
 * h·(g^n − 1) + C, whatever a, b and c are. c therefore needs only its inverse transform:
 * six transforms instead of seven (a and b's pairs and the coset inverse of a·b, plus c's
 * inverse). The coset inverse is DIF (inverse) and a scaling by (g^n − 1)^(−1)·g^(−i)/n in
 * bit-reversed order, where c's coefficients (bit-reversed out of its DIF, times n) are
 * subtracted before the one bit reversal. snarkjs (groth16_prove.js: ifft, batchApplyKey
 * with Fr.w[lg + 1], fft) stops at a·b − c on the odd coset s = ω_2n.
 */
#include "poly/quotient.h"

#include "poly/ntt_internal.h"

typedef struct {
    czk_fr *a;
    const czk_fr *b, *c; /* c NULL: none */
    const czk_fr *s;
} pointwise_arg;

/* a[i] = a[i]·b[i] − c[i], or a[i]·b[i] without c */
static void mul_sub_body(void *arg, size_t b, size_t e, unsigned worker) {
    const pointwise_arg *pa = arg;
    (void)worker;
    for (size_t i = b; i < e; i++) {
        czk_fr_mul(&pa->a[i], &pa->a[i], &pa->b[i]);
        if (pa->c != NULL)
            czk_fr_sub(&pa->a[i], &pa->a[i], &pa->c[i]);
    }
}

/* a[i] = a[i] − c[i]·s */
static void sub_scaled_body(void *arg, size_t b, size_t e, unsigned worker) {
    const pointwise_arg *pa = arg;
    (void)worker;
    for (size_t i = b; i < e; i++) {
        czk_fr t;
        czk_fr_mul(&t, &pa->c[i], pa->s);
        czk_fr_sub(&pa->a[i], &pa->a[i], &t);
    }
}

/* v[0 .. nv − 1] <- their evaluations at shift·ω^i, natural order, from evaluations at ω^i. */
static void to_coset(const czk_ntt_domain *d, czk_fr *const *v, unsigned nv, const czk_fr *shift,
                     czk_pool *pool) {
    for (unsigned k = 0; k < nv; k++)
        czk__ntt_dif(d, v[k], CZK__NTT_INV, pool);
    czk__ntt_scale_powers(d, v, nv, shift, czk__ntt_domain_n_inv(d), CZK__NTT_BITREV, pool);
    for (unsigned k = 0; k < nv; k++)
        czk__ntt_dit(d, v[k], CZK__NTT_FWD, pool);
}

void czk_poly_h_coset(size_t n, czk_fr *g, czk_fr *z_inv) {
    uint64_t e = n;
    czk_fr_set_u64(g, 7);
    /* Z(g·ω^i) = g^n·ω^(i·n) − 1 = g^n − 1, non-zero since 7 has order r − 1 > n. */
    czk_fr_pow(z_inv, g, &e, 1);
    czk_fr_sub(z_inv, z_inv, &CZK_FR_ONE);
    czk_fr_inv(z_inv, z_inv);
}

static int check_args(const czk_ntt_domain *d, const czk_fr *a, const czk_fr *b, const czk_fr *c,
                      czk_err *err) {
    if (d == NULL || a == NULL || b == NULL || c == NULL)
        return czk_err_set(err, CZK_EINVAL, "quotient: NULL domain or vector");
    return CZK_OK;
}

int czk_poly_h_monomial(const czk_ntt_domain *d, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool,
                        czk_err *err) {
    int rc = check_args(d, a, b, c, err);
    if (rc != CZK_OK)
        return rc;
    size_t n = czk_ntt_domain_size(d);
    czk_fr g, g_inv, z_inv;
    czk_poly_h_coset(n, &g, &z_inv);
    czk_fr_inv(&g_inv, &g);

    czk_fr *ab[2] = {a, b}, s;
    to_coset(d, ab, 2, &g, pool);
    pointwise_arg pa = {.a = a, .b = b, .c = NULL, .s = NULL};
    czk_pool_run(pool, n, 4096, mul_sub_body, &pa);
    czk__ntt_dif(d, a, CZK__NTT_INV, pool);
    czk__ntt_dif(d, c, CZK__NTT_INV, pool); /* n·C's coefficients, bit-reversed */
    czk_fr_mul(&s, &z_inv, czk__ntt_domain_n_inv(d));
    czk__ntt_scale_powers(d, ab, 1, &g_inv, &s, CZK__NTT_BITREV, pool);
    pa = (pointwise_arg){.a = a, .b = NULL, .c = c, .s = &s};
    czk_pool_run(pool, n, 4096, sub_scaled_body, &pa);
    czk__ntt_bitrev(d, a, NULL, pool);
    return CZK_OK;
}

int czk_poly_h_odd_coset(const czk_ntt_domain *d, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool,
                         czk_err *err) {
    int rc = check_args(d, a, b, c, err);
    if (rc != CZK_OK)
        return rc;
    czk_fr *abc[3] = {a, b, c};
    to_coset(d, abc, 3, czk_ntt_domain_omega_2n(d), pool);
    pointwise_arg pa = {.a = a, .b = b, .c = c, .s = NULL};
    czk_pool_run(pool, czk_ntt_domain_size(d), 4096, mul_sub_body, &pa);
    return CZK_OK;
}
