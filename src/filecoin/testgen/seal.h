/*
 * A PoRep sealer for test data: the C1 output (c1.h) of a sector, as filecoin-ffi's
 * seal_pre_commit_phase1/2 and seal_commit_phase1 would make it, for sectors small enough to
 * seal in memory, and a "virtual" C1 output of any size whose challenged paths are exactly
 * those of a real one.
 *
 * The steps (rust-fil-proofs; doc/FILECOIN.md §14):
 *  - fr32: every 127 bytes of piece data become 4 field elements of 254 bits (the input read as
 *    a little-endian bit stream, 254 bits per 32-byte node, 2 zero bits on top).
 *  - tree_d: a binary SHA-256 tree whose leaves are the 32-byte data nodes; an inner node is
 *    SHA256(left ‖ right) with byte 31 &= 0x3f. comm_d is its root.
 *  - replica_id (porep_types.h) from prover_id, sector_id, ticket, comm_d and porep_id; then
 *    the SDR labels of every layer (sdr.h).
 *  - tree_c: leaf v = Poseidon-L(label of v in layers 1 … L) (arity L = the layer count, 2 or
 *    11), then a Poseidon tree of the type's shape: base levels of arity 8, then a sub level of
 *    8 and a top level of 2 where the shape has them (32 GiB, 64 GiB). comm_c is its root.
 *  - encoding: replica node v = last-layer label of v + data node v (Fr addition).
 *  - tree_r_last: the same tree shape over the replica nodes; comm_r_last its root.
 *  - comm_r = Poseidon-2(comm_c, comm_r_last).
 *  - per partition k and challenge i, the challenge c (porep_types.h: interactive from the
 *    seed; synthetic from comm_r and the seed, as seal_commit_phase1 reads them out of the
 *    synthetic proofs it stored at precommit) and its vanilla proof: the data node's path into
 * tree_d, the replica node's path into tree_r_last, the columns (all L labels) of c, of its 6 DRG
 * parents and of its 8 expander parents with their paths into tree_c, the 37 parent labels each
 * layer's label hashed (labeling proofs), and a copy of the last one (the encoding proof)
 *    (storage-proofs-porep stacked/vanilla/proof.rs prove_layers).
 * A path's levels run leaf to root; level l's index is the node's position in its group, so
 * the indices spell the node in mixed radix (8, …, 8[, 8][, 2]).
 *
 * Thread-safety: no global state except Poseidon's constants (poseidon.h, thread-safe);
 * distinct outputs may be built from distinct threads. Nothing here is constant-time: sealing
 * is public computation.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * filecoin-ffi@de13e648.
 */
#ifndef CZK_FILECOIN_TESTGEN_SEAL_H
#define CZK_FILECOIN_TESTGEN_SEAL_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/io/c1.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/spec/sector.h"
#include "util/rng.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest sector czk_seal_small accepts: 512 MiB (2^24 nodes). It keeps the labels, the
 * parents and all three trees in memory, about 7 times the sector size. */
#define CZK_SEAL_SMALL_MAX_NODES (1ull << 24)

/*
 * fr32 padding: in[0 .. in_len) (a multiple of 127) into out[0 .. in_len / 127 · 128).
 * Returns CZK_OK, or CZK_EINVAL when in_len is not a multiple of 127 or out_len is not the
 * padded length.
 */
int czk_seal_fr32_pad(uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len, czk_err *err);

/*
 * The inverse of czk_seal_fr32_pad: in_len a multiple of 128, out_len = in_len / 128 · 127.
 * Returns CZK_OK, CZK_EINVAL for bad lengths, or CZK_ERANGE when a node has either of its top
 * two bits set (not padded data).
 */
int czk_seal_fr32_unpad(uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len,
                        czk_err *err);

/*
 * The whole tree_d over `leaves` data nodes (a power of two ≥ 2): tree[0 .. leaves) are the
 * leaves (copied from data), then each level up, the root last; tree holds (2·leaves − 1)·32
 * bytes (the caller allocates it). The data nodes are hashed as they are (fr32 padding is the
 * caller's: padded data keeps every node below 2^254). Returns CZK_OK or CZK_EINVAL.
 */
int czk_seal_tree_d(uint8_t *tree, const uint8_t *data, uint64_t leaves, czk_err *err);

/* comm_d of `len` bytes of data (a power of two ≥ 64, a multiple of 32), without building the
 * whole tree at once beyond O(len) scratch. Returns CZK_OK, CZK_EINVAL or CZK_ENOMEM. */
int czk_seal_comm_d(uint8_t out[32], const uint8_t *data, size_t len, czk_err *err);

/*
 * The nodes of an all-zero tree_d: out[l] is the value of every node of level l (out[0] the zero
 * leaf, out[levels] the root: the comm_d of an empty sector of 2^levels nodes). out holds
 * levels + 1 entries; levels ≤ CZK_POREP_MAX_COMM_D_LEVELS.
 */
void czk_seal_zero_tree_d(uint8_t out[][32], uint32_t levels);

/* The column hash of tree_c: Poseidon-L of rows[0 .. layers), layers 2 or 11 (the arities
 * poseidon.h offers: 2, 4, 8, 11). Returns CZK_OK or CZK_EUNSUPPORTED. */
int czk_seal_column_hash(czk_fr *out, const czk_fr *rows, uint32_t layers, czk_err *err);

/*
 * Seals one sector of a registered interactive or synthetic seal proof (V1, V1_1,
 * V1_1_Feat_SyntheticPoRep; CZK_EUNSUPPORTED for NI types) of at most CZK_SEAL_SMALL_MAX_NODES
 * nodes, and fills *out as seal_commit_phase1 would: every partition's challenges and their
 * vanilla proofs, comm_r, comm_d, replica_id, seed and ticket. A synthetic C1 output holds the
 * proofs of the challenges the seed selects from the synthetic set only, as Rust's does
 * (rust-fil-proofs@87348a74:storage-proofs-porep/src/stacked/vanilla/proof.rs:187).
 * In: `data`: the sector's padded data, type->sector_size bytes, every 32-byte node < 2^254
 * (the output of czk_seal_fr32_pad), or NULL for an all-zero (committed-capacity) sector;
 * `prover_id` (32 bytes, < r; czk_vanilla_prover_id forms it from a miner id), `sector_id`,
 * `ticket` and `seed` (any 32 bytes: rust-fil-proofs only hashes them).
 * Out: *out, initialised here with czk_c1_init (the caller frees it with czk_c1_clear); on error
 * *out is cleared. Cost, measured on the loaded 2-core build machine (sdr_test.c prints it):
 * 2 KiB 7 ms; 8 MiB 13 s: 4 s of parents and labels, 9 s of Poseidon (2^18 column hashes
 * and two Poseidon-8 trees).
 * Returns CZK_OK, CZK_EUNSUPPORTED, CZK_ERANGE (a data node with its top bits set), CZK_ENOMEM
 * or CZK_EINTERNAL.
 */
int czk_seal_small(czk_c1 *out, const czk_porep_type *type, const uint8_t *data,
                   const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                   const uint8_t seed[32], czk_err *err);

/* What a SnapDeals update of a sealed sector starts from: the replica (tree_r_last's leaves,
 * label + data of every node) and comm_c; comm_r = Poseidon-2(comm_c, tree_r_last's root). */
typedef struct czk_seal_replica {
    czk_fr *nodes; /* czk_malloc'ed, n of them */
    size_t n;
    czk_fr comm_c;
} czk_seal_replica;

/* czk_seal_small, keeping the sealed replica in *rep as well (czk_seal_replica_clear; zeroed
 * on error). */
int czk_seal_small_replica(czk_c1 *out, czk_seal_replica *rep, const czk_porep_type *type,
                           const uint8_t *data, const uint8_t prover_id[32], uint64_t sector_id,
                           const uint8_t ticket[32], const uint8_t seed[32], czk_err *err);

/* Frees the replica's nodes and zeroes it; NULL is a no-op. */
void czk_seal_replica_clear(czk_seal_replica *rep);

/*
 * A virtual C1 output for a committed-capacity sector of any interactive type, 2 KiB to 64 GiB,
 * in seconds: comm_d is the all-zero tree's root (and every comm_d path the zero tree's
 * nodes), replica_id and the challenges are the real ones, each challenge's parents are the
 * real graph's, every parent column that is not itself challenged holds random labels
 * (< 2^254), and each challenged node's labels are computed from its parents' rows by the
 * label rule, layer by layer, so every labeling proof recomputes. tree_c and tree_r_last are
 * sparse: only the nodes on the opened paths are computed, every other node is drawn from
 * `rng` once, so two paths that meet see the same nodes. One node has one column everywhere in
 * the output. Everything the circuit checks holds, but the sector behind it does not exist.
 * In/Out as czk_seal_small, plus `rng` for the random labels and tree nodes.
 * Cost: one Poseidon-L per opened column and one Poseidon-8 per opened tree node: 32 GiB
 * (180 challenges, ~2,700 columns) in 1.2 s on the build machine, 64 GiB in 1.5 s.
 * Synthetic types are refused (CZK_EUNSUPPORTED): their challenges are drawn from comm_r, so
 * the few columns a virtual sector computes would have to be chosen after comm_r, which commits
 * to them. A sector that passes is one whose every label is right, which is sealing (and what
 * synthetic PoRep's soundness rests on).
 * Returns CZK_OK, CZK_EUNSUPPORTED, CZK_ENOMEM or CZK_EINTERNAL.
 */
int czk_seal_virtual(czk_c1 *out, const czk_porep_type *type, const uint8_t prover_id[32],
                     uint64_t sector_id, const uint8_t ticket[32], const uint8_t seed[32],
                     czk_rng *rng, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_TESTGEN_SEAL_H */
