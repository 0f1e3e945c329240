/*
 * bellperson's SHA-256 circuit (gadgets/{sha256,uint32,multieq}.rs) and the rust-fil-proofs
 * gadgets PoRep builds on it, constraint-exact (doc/FILECOIN.md §2): the same allocations in
 * the same order, the same rows in the same order (MultiEq's packed rows deferred exactly as
 * bellperson defers them), the same linear combinations, the same constant folding.
 *
 * Bits are czk_bool (gadgets.h). A 32-bit word is 32 of them, LSB first (UInt32). SHA-256
 * consumes bits MSB first within each byte, bytes in order, as bellperson's sha256 does.
 *
 * Every function runs unchanged in COUNT, RECORD and WITNESS mode, computes witness values when
 * the system carries values, builds rows only when czk_cs_builds_rows() says so, and returns
 * CZK_OK or the system's sticky error; outputs are written only on success.
 * Thread-safety: as the czk_cs used.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb), bellpepper-core 0.2.1 (@4bde01b).
 */
#ifndef CZK_FILECOIN_GADGETS_SHA256_GADGET_H
#define CZK_FILECOIN_GADGETS_SHA256_GADGET_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/gadgets/cs.h"
#include "filecoin/gadgets/gadgets.h"
#include "filecoin/gadgets/por.h"
#include "filecoin/spec/sector.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * bellpepper Boolean::sha256_ch (a ∧ b) ⊕ (¬a ∧ c) and Boolean::sha256_maj (a ∧ b) ⊕ (a ∧ c) ⊕
 * (b ∧ c) on single bits, with bellpepper's arms and constant folding (doc/FILECOIN.md §12): a
 * constant arm emits nothing or one Boolean::and; the general ch allocates ch with the row
 * (b − c)·a = ch − c; the general maj allocates maj, then b ∧ c (its row first), then the row
 * (2·bc − b − c)·a = bc − maj. The SHA-256 gadgets below apply them bit by bit; these entry
 * points exist so that each arm can be tested on its own.
 */
int czk_gadget_bool_sha256_ch(czk_cs *cs, czk_bool *out, const czk_bool *a, const czk_bool *b,
                              const czk_bool *c);
int czk_gadget_bool_sha256_maj(czk_cs *cs, czk_bool *out, const czk_bool *a, const czk_bool *b,
                               const czk_bool *c);

/*
 * bellperson sha256(bits): n_bits (a multiple of 8) message bits, padded with constants, hashed
 * block by block from the IV. out[256] is the digest, byte 0 first, MSB first in each byte.
 * Returns CZK_EINVAL (set on cs) when n_bits is not a multiple of 8.
 */
int czk_sha256_gadget(czk_cs *cs, czk_bool out[256], const czk_bool *bits, size_t n_bits);

/*
 * sha256_compression_function(block, cur): one 512-bit block on the chaining value cur[8]
 * (words of 32 bits, LSB first), with its own MultiEq, flushed last. out[8] the new chaining
 * value.
 */
int czk_sha256_gadget_compress(czk_cs *cs, czk_bool out[8][32], const czk_bool block[512],
                               const czk_bool cur[8][32]);

/* rust-fil-proofs reverse_bit_numbering: pads n bits with Constant(false) to a multiple of 8
 * and reverses each group of 8. out holds ((n + 7) / 8) · 8 bits and must not overlap in. No
 * rows. */
void czk_gadget_reverse_bit_numbering(czk_bool *out, const czk_bool *in, size_t n);

/*
 * filecoin-hashers Sha256 hash_multi_leaf_circuit: for each leaf in order, to_bits_le (255
 * bits and 256 rows), padded to 256 with Constant(false), reverse_bit_numbering; concatenated;
 * sha256; reverse_bit_numbering of the digest; the first 254 bits pack_bits'ed into *out (the
 * digest read little-endian, top two bits dropped). A binary node: 45,379 rows, 45,331 aux.
 * Returns CZK_EINVAL (set on cs) for n = 0.
 */
int czk_sha256_gadget_hash_leaves(czk_cs *cs, czk_var *out, const czk_var *leaves, size_t n);

/*
 * storage-proofs-porep create_label_circuit: the label of `layer` (1-based) for the node whose
 * UInt64 bits (LSB first) are node_bits, over the 256 replica-id bits as SHA consumes them
 * (reverse_bit_numbering of its to_bits_le) and the 37 parents, each 256 bits likewise. The
 * SHA input is replica_id ‖ BE32(layer) as constants ‖ node MSB first ‖ 160 Constant(false) ‖
 * parents (39 × 256 bits, 20 blocks); the output the digest's first 254 bits in
 * reverse_bit_numbering order, pack_bits'ed into *out. 522,269 rows and 521,749 aux when the
 * replica and parent bits come from to_bits_le and the node bits are allocated. Returns
 * CZK_EINVAL (set on cs) for a NULL parent.
 */
int czk_sha256_gadget_label(czk_cs *cs, czk_var *out, const czk_bool replica_id[256],
                            uint32_t layer, const czk_bool node_bits[64],
                            const czk_bool *const parents[37]);

/*
 * PoRCircuit over a binary SHA-256 tree (PoRep's tree_d, storage-proofs-core por.rs with
 * Sha256Hasher): the leaf (Root::Val allocates it, Var reuses it); per level, leaf to root, one
 * index bit (AllocatedBit), one sibling (AllocatedNum), insert_2 and hash_leaves of the two;
 * then the n_levels index bits packed into one public input (the leaf index); the root (Val
 * allocates it) and the row computed · ONE = root; inputized when !private_root. 45,382 rows
 * per level. `path` holds n_levels levels of arity 2 (may be NULL without values);
 * `computed` (may be NULL) gets the computed root. Returns CZK_EINVAL (set on cs) for a bad
 * path or n_levels outside 1 … CZK_POR_MAX_LEVELS.
 */
int czk_sha256_gadget_por(czk_cs *cs, czk_var *computed, uint32_t n_levels,
                          const czk_por_root *value, const czk_vanilla_level *path,
                          const czk_por_root *root, int private_root);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_GADGETS_SHA256_GADGET_H */
