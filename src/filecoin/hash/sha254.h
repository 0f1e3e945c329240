/*
 * SHA-254, the hash of tree_d (the data tree whose root is comm_d): SHA-256 with the top two
 * bits of the digest's last byte cleared, so that every node is a field element below r
 * (rust-fil-proofs' Sha256Hasher, storage-proofs-core/src/hasher/sha256.rs).
 *
 * Used by PoRep's C1 check (porep/porep_inputs.c, which rebuilds tree_d paths) and by the
 * test sealer (testgen/seal.c, which builds whole trees).
 *
 * Thread-safety: no state; any number of threads may call it at once.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_HASH_SHA254_H
#define CZK_FILECOIN_HASH_SHA254_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One inner node of tree_d: SHA256(left ‖ right) with byte 31 &= 0x3f. */
void czk_sha254_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_HASH_SHA254_H */
