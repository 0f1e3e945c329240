/*
 * Proving keys for BENCHMARKS ONLY.
 *
 * A real key of PoRep size (2^27 domain, ~4·10^8 G1 and ~3·10^7 G2 points) takes a ceremony
 * or hours of setup; benchmarking the prover only needs a key of the right shape whose
 * points are valid, distinct group elements (so that MSMs do honest work: no infinity, no
 * repeated bases). czk_groth16_benchkey makes one quickly. Its points are NOT derived from
 * any toxic waste, so proofs made with it do not verify; never use one for anything else.
 */
#ifndef CZK_GROTH16_BENCHKEY_H
#define CZK_GROTH16_BENCHKEY_H

#include <stdint.h>

#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * BENCHMARK ONLY (see above): fills pk with a key of exactly the shape czk_groth16_setup_dev
 * gives for (cs, basis) (domain, |h|, |l|, |ic|, density layout with the same counts, and
 * infinity for unused variables of a dense layout), made of pseudo-random points of G1 and
 * G2 determined by `seed`.
 *
 * Each vector is P_i = P_0 + i·Q for its own random P_0 and Q; the points are distinct since
 * Q has order r. Chains of consecutive points advance together by batch-affine additions
 * (one shared inversion per step: about 5M + 1S per point), in parallel on `pool`.
 *
 * Out: pk, owned by the caller (czk_groth16_pk_clear); empty on error. Returns CZK_OK,
 * CZK_EINVAL (malformed cs, bad basis) or CZK_ENOMEM. Not thread-safe for the same pk.
 */
int czk_groth16_benchkey(czk_groth16_pk *pk, const czk_r1cs *cs, czk_groth16_h_basis basis,
                         uint64_t seed, czk_pool *pool, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GROTH16_BENCHKEY_H */
