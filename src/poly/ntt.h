/*
 * Number-theoretic transforms over Fr on power-of-two domains.
 *
 * A domain of size n = 2^lg fixes a primitive n-th root of unity ω and caches the twiddle
 * factors every transform on it needs. Two root conventions exist and proofs verify only when
 * the prover uses exactly its ecosystem's ω:
 *
 *   CZK_NTT_ROOT_BELLPERSON: ω = g^((r−1)/2^lg) for g = 7, Fr's multiplicative generator
 *     (blstrs' ROOT_OF_UNITY = 7^((r−1)/2^32), squared down 32 − lg times).
 *   CZK_NTT_ROOT_SNARKJS: ω = 5^((r−1)/2^lg), ffjavascript's Fr.w[lg], where 5 is the
 *     smallest quadratic non-residue of Fr (ffjavascript and wasmcurves search 2, 3, ...).
 *
 * The two agree for lg <= 2 and differ for every lg >= 3 (poly_test.c checks both literals).
 *
 * Control flow and memory accesses depend only on n and the pool, never on the values, and
 * the field arithmetic is constant-time, so the transforms need no _var. Transforms on one
 * domain may run concurrently: a domain is immutable after czk_ntt_domain_create. `pool` may
 * be NULL (inline); the calling thread takes part in the loops.
 */
#ifndef CZK_POLY_NTT_H
#define CZK_POLY_NTT_H

#include <stddef.h>

#include "field/fr.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest domain: 2^28 (Fr's two-adicity is 32; 28 leaves ω_2n and the coset room). */
#define CZK_NTT_MAX_LG 28

typedef enum czk_ntt_root {
    CZK_NTT_ROOT_BELLPERSON = 0, /* 7^((r−1)/2^lg): bellperson, blstrs, ec-gpu */
    CZK_NTT_ROOT_SNARKJS = 1,    /* 5^((r−1)/2^lg): snarkjs, ffjavascript, rapidsnark */
} czk_ntt_root;

/* Opaque: size, roots and the cached twiddle tables. */
typedef struct czk_ntt_domain czk_ntt_domain;

/*
 * Creates the domain of size 2^lg_n with the root convention `root`.
 * In: lg_n in [0, CZK_NTT_MAX_LG]. Out: *out, owned by the caller (czk_ntt_domain_destroy).
 * Returns CZK_OK, CZK_EINVAL (bad lg_n, root or out; *out is then NULL) or CZK_ENOMEM.
 * Memory: 16·n bytes of twiddles for lg_n <= 20, O(sqrt n) above (czk_ntt_domain_bytes).
 */
int czk_ntt_domain_create(czk_ntt_domain **out, unsigned lg_n, czk_ntt_root root, czk_err *err);

/* Frees the domain; NULL is a no-op. */
void czk_ntt_domain_destroy(czk_ntt_domain *d);

/* n = 2^lg. */
size_t czk_ntt_domain_size(const czk_ntt_domain *d);
unsigned czk_ntt_domain_lg(const czk_ntt_domain *d);

/* The primitive n-th root of unity ω of the domain (Montgomery form, like every czk_fr). */
const czk_fr *czk_ntt_domain_omega(const czk_ntt_domain *d);

/*
 * ω_2n, the primitive 2n-th root of the same convention with ω_2n² = ω: the shift of the odd
 * coset ω_2n·ω^i (snarkjs's Fr.w[lg + 1]).
 */
const czk_fr *czk_ntt_domain_omega_2n(const czk_ntt_domain *d);

/* Bytes the domain holds (counted through czk_malloc), for memory budgets. */
size_t czk_ntt_domain_bytes(const czk_ntt_domain *d);

/*
 * Forward transform in place, natural order in and out: a[i] becomes Σ_j a[j]·ω^(i·j), the
 * polynomial with coefficients a evaluated at ω^i. `a` holds n elements.
 */
void czk_ntt_forward(const czk_ntt_domain *d, czk_fr *a, czk_pool *pool);

/* Inverse of czk_ntt_forward (evaluations at ω^i -> coefficients), including the 1/n. */
void czk_ntt_inverse(const czk_ntt_domain *d, czk_fr *a, czk_pool *pool);

/*
 * Coset transforms with shift g (any non-zero element): forward turns coefficients into the
 * evaluations at g·ω^i; inverse turns those evaluations back into coefficients.
 */
void czk_ntt_coset_forward(const czk_ntt_domain *d, czk_fr *a, const czk_fr *g, czk_pool *pool);
void czk_ntt_coset_inverse(const czk_ntt_domain *d, czk_fr *a, const czk_fr *g, czk_pool *pool);

#ifdef __cplusplus
}
#endif

#endif /* CZK_POLY_NTT_H */
