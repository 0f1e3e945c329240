/*
 * Groth16 verification (Groth, "On the size of pairing-based non-interactive arguments",
 * EUROCRYPT 2016, §3.2).
 *
 * A proof (A, B, C) for public inputs x_1..x_l (ONE excluded) is valid when
 *
 *     e(A, B) = e(α, β) · e(Σ x_i·IC_i, γ) · e(C, δ)        (x_0 = 1),
 *
 * which we check as one multi-pairing, e(A, B)·e(ΣIC, −γ)·e(C, −δ)·e(−α, β) = 1: four Miller
 * loops sharing one chain of squarings and one final exponentiation. −γ, −δ and β are
 * prepared once per key (czk_groth16_pvk_prepare); only B is prepared per proof.
 */
#ifndef CZK_GROTH16_VERIFY_H
#define CZK_GROTH16_VERIFY_H

#include <stddef.h>

#include "curve/g1.h"
#include "field/fr.h"
#include "groth16/keys.h"
#include "pairing/pairing.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A verifying key prepared for many verifications (about 60 KiB plus the IC points). */
typedef struct czk_groth16_pvk {
    czk_g1_affine neg_alpha_g1;           /* −α */
    czk_pairing_g2_prepared beta_g2;      /* β */
    czk_pairing_g2_prepared neg_gamma_g2; /* −γ */
    czk_pairing_g2_prepared neg_delta_g2; /* −δ */
    czk_g1_affine *ic;                    /* a copy of vk->ic (czk_malloc'ed, owned) */
    size_t n_ic;                          /* ONE + public inputs */
} czk_groth16_pvk;

/*
 * Prepares `vk` for verification.
 * In: vk (at least one IC point; points are trusted to be in their groups: they come from a
 * key that was validated when it was built or loaded). Out: pvk, which owns a copy of IC;
 * release it with czk_groth16_pvk_clear. Returns CZK_OK, CZK_EINVAL (no IC points) or
 * CZK_ENOMEM; on error pvk is left empty. Thread-safe; variable time (a key is public).
 */
int czk_groth16_pvk_prepare(czk_groth16_pvk *pvk, const czk_groth16_vk *vk, czk_err *err);

/* Frees pvk's IC copy and zeroes it; NULL is a no-op. */
void czk_groth16_pvk_clear(czk_groth16_pvk *pvk);

/*
 * Verifies `proof` against the public inputs `inputs[0..n_inputs)` (ONE excluded: input i is
 * the value of variable 1 + i), Montgomery-form Fr elements.
 *
 * Returns CZK_OK when the proof is valid and CZK_EVERIFY when the pairing check fails.
 * Returns CZK_EINVAL, without running the pairing, when n_inputs != pvk->n_ic − 1 or when A,
 * B or C is not on the curve or not in its prime-order subgroup (untrusted proofs may carry
 * such points; the pairing would give meaningless values for them). A point at infinity is a
 * group element and goes to the pairing (bellperson's decoder rejects it earlier). Thread-safe;
 * variable time (proofs and inputs are public).
 */
int czk_groth16_verify(const czk_groth16_pvk *pvk, const czk_groth16_proof *proof,
                       const czk_fr *inputs, size_t n_inputs, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GROTH16_VERIFY_H */
