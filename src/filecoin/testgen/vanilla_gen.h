/*
 * Vanilla PoSt proofs without a sealed sector, and the native check of a proof's paths.
 *
 * A PoSt circuit needs only the challenged paths of tree_r_last, never the sector's data, so a
 * valid FallbackPoStSectorProof of any sector size can be made from a sparse tree: the
 * challenged leaves random, every node off the challenged paths random, the nodes on them
 * hashed up with Poseidon, comm_c random and comm_r = Poseidon-2(comm_c, comm_r_last), the
 * challenges derived from the randomness exactly as for a real sector (vanilla.h). Such a proof
 * passes everything a real one passes: the decoder, czk_vanilla_sector_check, the path hashes
 * and the circuit's rows. doc/FILECOIN.md §10 says how the tests and `czk post gen` use it.
 *
 * Thread-safety: no global state beyond the process-wide Poseidon constants (poseidon.h);
 * threads may call anything here at once on distinct outputs and rngs.
 */
#ifndef CZK_FILECOIN_TESTGEN_VANILLA_GEN_H
#define CZK_FILECOIN_TESTGEN_VANILLA_GEN_H

#include <stdint.h>

#include "filecoin/spec/sector.h"
#include "util/rng.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Generates one sector's proof of `type` for `randomness` (32 bytes, a field element < r):
 * its n-th inclusion proof opens challenge n of the sector with id `sector_id` at
 * `sector_index` (czk_vanilla_challenge_index: 0 for WinningPoSt, partition · sector_count + i
 * for WindowPoSt). All random values come from rng.
 * Out: *out, freed by czk_vanilla_sector_clear (cleared on error). Returns CZK_OK, CZK_ERANGE
 * for randomness ≥ r, CZK_EINVAL for an uninitialised type, CZK_ENOMEM.
 */
int czk_vanilla_sector_generate(czk_vanilla_sector *out, const czk_vanilla_post_type *type,
                                const uint8_t randomness[32], uint64_t sector_id,
                                uint64_t sector_index, czk_rng *rng, czk_err *err);

/*
 * Hashes every inclusion proof of s from its leaf up (the node goes in at its index among the
 * siblings) and compares the result with comm_r_last, then Poseidon-2(comm_c, comm_r_last) with
 * comm_r. Returns CZK_OK, or CZK_EVERIFY naming the sector and the first inclusion proof (or
 * comm_r) that does not hash to its root.
 */
int czk_vanilla_sector_verify_paths(const czk_vanilla_sector *s, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_TESTGEN_VANILLA_GEN_H */
