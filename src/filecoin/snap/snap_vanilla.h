/*
 * SnapDeals vanilla partition proofs as filecoin-proofs' update API produces them
 * (generate_partition_proofs, generate_single_partition_proof: one bincode-serialised
 * storage-proofs-update `PartitionProof<TreeR>` per partition), decoded into snap.h's
 * czk_snap_partition_proof, and encoded back.
 *
 * bincode 1.x as vanilla.h describes it (integers little-endian, usize as u64, enum tags u32, a
 * Vec as a u64 count then its items, a domain element as 32 bytes, a little-endian field
 * element):
 *
 *   PartitionProof = comm_c · u64 a · a × apex leaf · u64 c · c × ChallengeProof
 *   ChallengeProof = proof_r_old · proof_d_new · proof_r_new (each a MerkleProof)
 *   MerkleProof    = u32 tag, then Single (0): root · leaf · base path
 *                                   Sub (1): base path · sub path · root · leaf
 *                                   Top (2): base · sub · top paths · root · leaf
 *   path           = u64 k · k × (u64 h · h × [32] siblings · u64 index)
 *
 * proof_r_old and proof_r_new have TreeR's shape (the sector size's tag, arity-8 base levels, a
 * sub and a top level where it has them); proof_d_new is a Single proof over TreeD, log2(nodes)
 * binary levels.
 *
 * The decoder is strict: every tag, count and index must be the one the shape dictates, every
 * 32-byte value a canonical field element (< r; rust-fil-proofs' Sha256Domain → Fr conversion
 * panics otherwise), and the input must end where the proof ends. Counts are compared with the
 * shape before anything is allocated, so the one allocation (the challenge proofs, about 22 KB
 * each) is bounded by the shape's challenge count (at most 86), never by the input.
 *
 * Thread-safety: no global state. Nothing here is constant-time (the proofs are not secret).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_SNAP_SNAP_VANILLA_H
#define CZK_FILECOIN_SNAP_SNAP_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/snap/snap.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Decodes one bincode PartitionProof of `len` bytes for `shape`, strictly (see the top of this
 * file). `partition` is used only in error messages, which name it, the field and the byte
 * offset. Out: *out (czk_snap_partition_proof_clear; on error it is left cleared). Returns
 * CZK_OK; CZK_ELENGTH on truncation or trailing bytes; CZK_EFORMAT on a tag, count or index the
 * shape does not allow; CZK_ERANGE on a field element ≥ r; CZK_EINVAL on a bad shape;
 * CZK_ENOMEM.
 */
int czk_snap_partition_proof_decode(czk_snap_partition_proof *out, const czk_snap_shape *shape,
                                    const uint8_t *buf, size_t len, uint32_t partition,
                                    czk_err *err);

/* The bincode size of one partition proof of `shape` (fixed by the shape), or 0 for a shape
 * that is not valid. 2 KiB: 15,064 bytes. */
size_t czk_snap_partition_proof_encoded_size(const czk_snap_shape *shape);

/*
 * Encodes p as one bincode PartitionProof, the inverse of czk_snap_partition_proof_decode,
 * into out[0 … cap). Out: *len, the bytes written. Returns CZK_OK; CZK_EINVAL when p does not
 * have the shape's counts and path shapes (nothing written); CZK_ELENGTH when cap is too small.
 */
int czk_snap_partition_proof_encode(uint8_t *out, size_t cap, size_t *len,
                                    const czk_snap_partition_proof *p, const czk_snap_shape *shape,
                                    czk_err *err);

/*
 * Checks partition k's decoded proof against the public data natively, as vanilla.rs verify
 * does (snap_check.c): k, h and the commitments (czk_snap_public_inputs), every path's leaf
 * index against the challenges comm_r_new derives, every path hashed to its root, comm_r_old
 * and comm_r_new = H(comm_c ‖ root), TreeDNew's paths to comm_d_new through the apex leaves,
 * and the encoding of every challenged node. Returns CZK_OK; CZK_EINVAL (public data, or a
 * proof of another shape); CZK_ERANGE (a commitment ≥ r); CZK_EVERIFY naming the partition,
 * the challenge and the check that failed; CZK_EINTERNAL. Thread-safety: as snap.h.
 */
int czk_snap_partition_check(const czk_snap_shape *shape, const czk_snap_public *pub,
                             const czk_snap_partition_proof *vp, uint32_t k, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_SNAP_SNAP_VANILLA_H */
