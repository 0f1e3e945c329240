/*
 * Groth16 key generation for development and tests ONLY.
 *
 * czk_groth16_setup_dev draws the toxic waste (τ, α, β, γ, δ) from a caller's xoshiro rng
 * and forgets it afterwards. This is NOT a trusted setup and NOT a ceremony: whoever knows
 * the rng seed can forge proofs for the key. Real keys come from a ceremony (Filecoin's
 * .params, a snarkjs .zkey) through src/formats. The keys are exact otherwise: the same
 * shapes, layouts and H conventions as bellperson's generator and snarkjs's zkey_new, so the
 * prover runs the very code paths it runs on real keys.
 */
#ifndef CZK_GROTH16_SETUP_H
#define CZK_GROTH16_SETUP_H

#include "groth16/backend.h"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * DEV ONLY (see above): builds a proving key (with its verifying key in pk->vk) for `cs`.
 *
 * The QAP is cs plus the Groth16 input constraints (row n_constraints + i has A coefficient 1
 * at variable i, for i = 0..n_public, ONE included), over the domain of size
 * n = 2^ceil(log2(n_constraints + n_public + 1)).
 *   basis CZK_H_MONOMIAL: bellperson's layout and conventions: the bellperson root of unity,
 *     h[i] = τ^i·Z(τ)/δ for i < n − 1, density FILTERED (a: every public variable and the aux
 *     variables that occur in A; b_g1/b_g2: the variables, public or aux, that occur in B).
 *   basis CZK_H_ODD_COSET: snarkjs's: the snarkjs root of unity, n H points on the odd coset
 *     (setup.c derives them), density DENSE (infinity where a variable is unused).
 * l has one point per aux variable, (β·A_i(τ) + α·B_i(τ) + C_i(τ))/δ, and vk.ic one per
 * public variable, ONE first, (β·A_i(τ) + α·B_i(τ) + C_i(τ))/γ.
 *
 * In: cs (its C matrix must be present), rng (advanced), pool (NULL runs inline).
 * Out: pk, owned by the caller (czk_groth16_pk_clear); on error pk is left empty.
 * Returns CZK_OK, CZK_EINVAL (malformed cs, no C matrix, bad basis) or CZK_ENOMEM.
 * The toxic waste and every array derived from it are cleared before returning. Variable
 * time in the toxic waste (dev only). Not thread-safe for the same pk or rng.
 */
int czk_groth16_setup_dev(czk_groth16_pk *pk, const czk_r1cs *cs, czk_groth16_h_basis basis,
                          czk_rng *rng, czk_pool *pool, czk_err *err);

/*
 * DEV ONLY: czk_groth16_setup_dev for the system `rep` stands for (r1cs/rep.h) without
 * expanding it: the same key, bit for bit, as czk_groth16_setup_dev on
 * czk_r1cs_rep_expand(rep) with the same rng (a test checks it). So a circuit of 2,349 copies
 * of a 53,333-row block (Filecoin's 32 GiB WindowPoSt, 125 M rows) gets its ~57 GiB key
 * without its 41 GB recording.
 *
 * The passes over rows and variables run on pool: the Lagrange values and the H scalars in
 * chunks, A_i(τ), B_i(τ), C_i(τ) over the head's rows (inline, where there is a head) and then
 * copy by copy (one copy: serial). The variables the copies share (ONE and the head's gp
 * inputs and gq aux) are summed apart by each way of the pool and added up at the end. The
 * key's points come from be->fixed_base when be has one (a GPU backend; be may be NULL), else
 * from the CPU's fixed-base tables (about 0.7 M G1 points a second on 16 cores).
 *
 * Memory besides the key: 32 bytes per row (the Lagrange values, freed before the points),
 * 96 per variable (A, B, C at τ) and 64 per variable for the filtered scalars, 32 per H point,
 * a bit per variable for the density, and 96·(1 + gp + gq) bytes per way of the pool for the
 * shared variables' sums (tens of KB for a PoRep partition's few hundred). Returns as
 * czk_groth16_setup_dev, and CZK_EINVAL for a rep that czk_r1cs_rep_dims refuses or an entry
 * past its head's or block's variables; a backend's error as it gives it.
 */
int czk_groth16_setup_dev_rep(czk_groth16_pk *pk, const czk_r1cs_rep *rep,
                              czk_groth16_h_basis basis, czk_rng *rng, const czk_backend *be,
                              czk_pool *pool, czk_err *err);

/*
 * The domain size exponent for cs: the smallest lg with 2^lg ≥ n_constraints + n_public + 1
 * (bellperson's EvaluationDomain and snarkjs's zkey_new agree on it).
 */
unsigned czk_groth16_domain_lg(const czk_r1cs *cs);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GROTH16_SETUP_H */
