/*
 * The Groth16 prover driver (Groth, EUROCRYPT 2016, §3.2; the bellperson/snarkjs variant with
 * the input constraints appended to A).
 *
 * One proof: a, b, c = A·w, B·w, C·w (with the input rows a[n_c + i] = w[i]), h through the
 * backend's quotient step in the key's H basis, five MSMs through the backend, then
 *     A = α + Σ w_i·A_i + r·δ
 *     B = β + Σ w_i·B_i + s·δ                  (in G2, and in G1 for C)
 *     C = Σ_aux w_i·L_i + Σ h_i·H_i + s·A + r·B_G1 − r·s·δ.
 */
#ifndef CZK_GROTH16_PROVE_H
#define CZK_GROTH16_PROVE_H

#include <stdint.h>

#include "field/fr.h"
#include "groth16/backend.h"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* czk_groth16_timings: in groth16/backend.h (backends fill it too). */

/*
 * Proves that `w` satisfies `cs` under the key `pk`.
 *
 * In: pk (any basis and density; its shape must match cs: n_vars, n_public, domain size,
 * |h|, |l|, |ic|, and |a|, |b_g1|, |b_g2| either n_vars (dense) or the counts cs's density
 * gives (filtered)); w, the full witness of cs->n_vars values with w[0] = 1 (Montgomery form);
 * r, s, the proof's blinding scalars (secret: the CLI draws them from czk_rng_os; any values,
 * zero included, give a valid proof); be, the backend (czk_backend_cpu() or a GPU one);
 * pool (NULL: inline), handed to the backend.
 * Out: proof; timings (may be NULL).
 * Returns CZK_OK, CZK_EINVAL (shape mismatch, w[0] != 1, incomplete backend; err names the
 * fault), CZK_ENOMEM, or a backend's error. A witness that does not satisfy cs still yields
 * a "proof"; it does not verify (the engine verifies every proof).
 *
 * Memory: 3·n + (at most) 2·max(n, n_vars) Fr of scratch, n the domain size, besides the
 * key and the witness, the 5 large arrays from be->host_alloc when the backend has one (a GPU
 * backend's pinned buffers); no copy of the key. Everything witness-, r- or s-derived is cleared
 * before it is freed. Thread-safe for distinct proofs (pk, cs, w are only read).
 * r and s are used in constant-time scalar multiplications; the MSMs are variable time in
 * the witness (as in every Groth16 prover; see backend.h).
 */
int czk_groth16_prove(czk_groth16_proof *proof, const czk_groth16_pk *pk, const czk_r1cs *cs,
                      const czk_fr *w, const czk_fr *r, const czk_fr *s, const czk_backend *be,
                      czk_pool *pool, czk_groth16_timings *timings, czk_err *err);

/*
 * As czk_groth16_prove, for a backend that keeps keys (the CUDA backend: key from
 * czk_gpu_backend_attach_key(be, pk, ...), or NULL for none) and may read the witness
 * packed. key is handed to every backend entry that reads pk's points (with the array each
 * MSM's points are, groth16/backend.h) and to prove_sums, which runs the whole proof on the
 * backend when key holds pk with cs. wp (groth16/witness_pack.h; may be NULL): the witness
 * packed, for a backend whose prove_sums moves the pack instead of w; w is still required:
 * every other path reads it. CZK_EINVAL when wp is malformed or packs another number of
 * values, or when the backend finds key attached for another pk or cs. cs may be a header
 * of sizes only (matrices NULL: czk_r1cs_rep_dims) when key holds its rows on the backend
 * (czk_gpu_backend_attach_key_rep); a proof that must go step by step then fails with
 * CZK_EINVAL ("the circuit's rows are not on the host").
 */
int czk_groth16_prove_ex(czk_groth16_proof *proof, const czk_groth16_pk *pk, const czk_r1cs *cs,
                         const czk_fr *w, const czk_witness_pack *wp, const czk_backend_key *key,
                         const czk_fr *r, const czk_fr *s, const czk_backend *be, czk_pool *pool,
                         czk_groth16_timings *timings, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GROTH16_PROVE_H */
