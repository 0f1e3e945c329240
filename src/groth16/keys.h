/*
 * Groth16 keys and proofs in memory.
 *
 * One in-memory shape holds both key families (doc/FORMATS.md §7.3): bellperson `.params` (H in the
 * monomial basis, n − 1 points τ^i·Z(τ)/δ; A, B_G1 and B_G2 density-filtered) and snarkjs
 * `.zkey` (H as Lagrange points on the odd coset, n points; A, B_G1, B_G2 dense over all
 * variables, with the point at infinity where a variable is unused).
 *
 * All points are affine, Montgomery-form coordinates, validated (on curve, in subgroup) by
 * whoever built the key. Arrays are czk_malloc'ed and owned by the key; czk_groth16_pk_clear
 * and czk_groth16_vk_clear free them and zero the struct (a zeroed struct is a valid empty key).
 */
#ifndef CZK_GROTH16_KEYS_H
#define CZK_GROTH16_KEYS_H

#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_groth16_vk {
    czk_g1_affine alpha_g1, beta_g1, delta_g1; /* beta_g1, delta_g1: not in snarkjs vk JSON */
    czk_g2_affine beta_g2, gamma_g2, delta_g2;
    czk_g1_affine *ic; /* n_public + 1 points: ic[0] for ONE, ic[1 + i] for public input i */
    size_t n_ic;
} czk_groth16_vk;

/* How the key's H points are expressed, which fixes how the prover computes h. */
typedef enum czk_groth16_h_basis {
    /* bellperson: h[i] = τ^i·Z(τ)/δ for i < n − 1; h are the coefficients of (ab − c)/Z,
     * computed with a coset of generator 7. */
    CZK_H_MONOMIAL = 0,
    /* snarkjs: h[i] = L_i(τ) on the odd coset ω_{2n}·ω^i, over δ; h are the evaluations of
     * ab − c on that coset (no division by Z: Z is constant, −2, on the odd coset and the
     * setup folded it into the points). */
    CZK_H_ODD_COSET = 1,
} czk_groth16_h_basis;

/* How A, B_G1 and B_G2 are indexed. */
typedef enum czk_groth16_density {
    CZK_DENSITY_DENSE = 0,    /* one point per variable (snarkjs), infinity where unused */
    CZK_DENSITY_FILTERED = 1, /* bellperson: only variables whose density bit is set, in
                                 order; every public variable (ONE included) is present in A;
                                 B keeps public variables whose B-density bit is set */
} czk_groth16_density;

typedef struct czk_groth16_pk {
    czk_groth16_vk vk;
    czk_groth16_h_basis h_basis;
    czk_groth16_density density;
    size_t domain_size; /* n, a power of two ≥ n_constraints + n_public + 1 */
    size_t n_vars;      /* ONE + public + aux */
    size_t n_public;    /* ONE excluded */
    czk_g1_affine *h;   /* n − 1 (monomial) or n (odd coset) points */
    size_t n_h;
    czk_g1_affine *l; /* one per aux variable: (β·A_i(τ) + α·B_i(τ) + C_i(τ))/δ */
    size_t n_l;
    czk_g1_affine *a;
    size_t n_a;
    czk_g1_affine *b_g1;
    size_t n_b_g1;
    czk_g2_affine *b_g2;
    size_t n_b_g2;
} czk_groth16_pk;

typedef struct czk_groth16_proof {
    czk_g1_affine a;
    czk_g2_affine b;
    czk_g1_affine c;
} czk_groth16_proof;

/* Frees the key's arrays and zeroes it; NULL is a no-op. */
void czk_groth16_vk_clear(czk_groth16_vk *vk);
void czk_groth16_pk_clear(czk_groth16_pk *pk);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GROTH16_KEYS_H */
