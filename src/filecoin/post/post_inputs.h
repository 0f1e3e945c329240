/*
 * The public inputs of a Fallback PoSt partition proof, as the verifier forms them
 * (rust-fil-proofs storage-proofs-post/src/fallback/compound.rs generate_public_inputs;
 * doc/FILECOIN.md §5, §6).
 *
 * The circuit is `slots` sector slots of `k` challenges each: WindowPoSt has the type's
 * sector_count slots (2, 2349 or 2300) of 10 challenges; WinningPoSt is set up as 66 slots of
 * one challenge (filecoin-proofs parameters.rs), each slot the one challenged sector again.
 * Per slot, in order: comm_r, then for each challenge the challenged leaf's index as a field
 * element (the PoR gadget packs the path's position bits into one input, and a private PoR
 * exposes nothing else). Slots follow the order of the request's vanilla proofs; a WindowPoSt
 * partition with fewer sectors than slots repeats the last sector's block. ONE is not part of
 * the arrays here (it is ic[0] of the key), so a key for these inputs has n_ic = count + 1:
 * 25,840 for a 32 GiB WindowPoSt partition, 133 for WinningPoSt.
 *
 * The leaf of challenge n of the slot at position i is czk_vanilla_leaf_challenge with the
 * index czk_vanilla_challenge_index(api, partition_index · slots + i, k, n): WinningPoSt slot i
 * thus uses index i, WindowPoSt API 1.0 (partition_index · 2349 + i) · 10 + n and API 1.2 n.
 *
 * Thread-safety: no global state; reentrant. Not constant-time (all values are public).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_POST_POST_INPUTS_H
#define CZK_FILECOIN_POST_POST_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/spec/sector.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The public data of one proved sector. */
typedef struct czk_public_inputs_sector {
    uint64_t sector_id;
    czk_fr comm_r;
} czk_public_inputs_sector;

/*
 * The circuit's slot layout for a PoSt type. Out: *slots, *challenges (per slot).
 * Returns the number of public inputs, ONE excluded: slots · (1 + challenges).
 */
size_t czk_public_inputs_post_dims(size_t *slots, size_t *challenges,
                                   const czk_vanilla_post_type *type);

/*
 * Derives the public inputs from the public data alone, as the verifier does.
 * In: `randomness` (32 bytes, a little-endian field element < r), `partition_index`, the
 * partition's sectors in request order: exactly 1 for WinningPoSt (the challenged sector, as
 * chosen by czk_vanilla_sector_challenge), 1 to sector_count for WindowPoSt.
 * Out: out[0..out_len), out_len = czk_public_inputs_post_dims(...).
 * Returns CZK_OK; CZK_EINVAL for a bad sector count, out_len or a WinningPoSt partition index
 * other than 0; CZK_ERANGE for randomness ≥ r or an index that overflows; as
 * czk_vanilla_leaf_challenge otherwise.
 */
int czk_public_inputs_post_derive(czk_fr *out, size_t out_len, const czk_vanilla_post_type *type,
                                  const uint8_t randomness[32], uint64_t partition_index,
                                  const czk_public_inputs_sector *sectors, size_t n_sectors,
                                  czk_err *err);

/*
 * The same inputs read off decoded vanilla proofs (request order): comm_r and the leaf index
 * each inclusion proof opens. This trusts the proofs to answer the right challenges; a prover
 * that wants to refuse a request whose proofs do not match its public data runs
 * czk_vanilla_sector_check (or compares with czk_public_inputs_post_derive) first.
 * Returns CZK_OK, or CZK_EINVAL for a bad sector count, out_len or inclusion count.
 */
int czk_public_inputs_post_from_vanilla(czk_fr *out, size_t out_len,
                                        const czk_vanilla_post_type *type,
                                        const czk_vanilla_sector *sectors, size_t n_sectors,
                                        czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_POST_POST_INPUTS_H */
