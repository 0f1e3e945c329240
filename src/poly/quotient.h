/*
 * The Groth16 quotient: from a = A·w, b = B·w, c = C·w over the constraint domain (length n,
 * zero-padded past the constraints) to the vector the prover's H MSM takes, in either key
 * family's convention (doc/FORMATS.md §7.3).
 *
 * Both functions overwrite a with the result and destroy b and c (used as scratch). They use
 * the domain's root convention for ω; the coset shift is fixed by the convention of the key,
 * not of the domain. Multi-threaded through `pool` (NULL: inline). Constant-time in the
 * values (control flow and memory accesses depend only on n).
 */
#ifndef CZK_POLY_QUOTIENT_H
#define CZK_POLY_QUOTIENT_H

#include "field/fr.h"
#include "poly/ntt.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * bellperson convention: on return a[0..n) are the coefficients of h = (A·B − C)/Z, where A,
 * B and C are the interpolants (degree < n) of a, b and c on the domain and Z = x^n − 1.
 * The same output as bellperson's way (inverse NTT of each, coset NTT with g = 7, Fr's
 * multiplicative generator, pointwise (a·b − c)·(g^n − 1)^(−1), coset inverse NTT), with one
 * transform fewer: c needs no coset pair (quotient.c). For a satisfied system (a∘b = c on the
 * domain) h has degree <= n − 2 and a[n − 1] = 0; the prover uses a[0..n−1).
 * Returns CZK_OK or CZK_EINVAL (a NULL argument).
 */
int czk_poly_h_monomial(const czk_ntt_domain *d, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool,
                        czk_err *err);

/* The monomial basis's coset shift g = 7 and Z's inverse on that coset, (g^n − 1)^(−1) (the
 * same at every g·ω^i), for a domain of n; for the device's h as well. */
void czk_poly_h_coset(size_t n, czk_fr *g, czk_fr *z_inv);

/*
 * snarkjs/rapidsnark convention: on return a[i] = A(x)·B(x) − C(x) at x = ω_2n·ω^i, the odd
 * 2n-th roots of unity (ω_2n = czk_ntt_domain_omega_2n), for i < n. No division by Z (it is
 * the constant −2 there, folded into the zkey's H points).
 * Returns CZK_OK or CZK_EINVAL (a NULL argument).
 */
int czk_poly_h_odd_coset(const czk_ntt_domain *d, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool,
                         czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_POLY_QUOTIENT_H */
