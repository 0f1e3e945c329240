/*
 * Test data for the SnapDeals circuit without a sealed sector: a consistent update of a small
 * sector built in memory, the way rust-fil-proofs' own circuit test builds one
 * (storage-proofs-update/tests/circuit.rs:64-154): random old replica labels and comm_c, random
 * new data, TreeDNew over the data, the new replica encoded as label_r_old + data·rho, TreeRNew
 * over it, and one partition's vanilla proof over the three trees.
 *
 * Test code only: production code must not include it. Thread-safety: none needed (no global
 * state); the rng is the caller's.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_TESTGEN_SNAP_GEN_H
#define CZK_FILECOIN_TESTGEN_SNAP_GEN_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/snap/snap.h"
#include "util/rng.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest sector the generator builds, in nodes (it keeps every tree in memory: 8 MiB,
 * some 60 MB). */
#define CZK_SNAP_GEN_MAX_NODES (1u << 18)

/*
 * Builds an update of a sector of `shape` (at most CZK_SNAP_GEN_MAX_NODES nodes) with h = `h`
 * and partition k's vanilla proof of it. Out: *pub (the public data) and *vp
 * (czk_snap_partition_proof_clear; cleared on error). Returns CZK_OK, CZK_EINVAL (k, h, or a
 * shape too large), CZK_ENOMEM or CZK_EINTERNAL (a hash failed), with err filled.
 */
int czk_snap_gen(czk_snap_public *pub, czk_snap_partition_proof *vp, const czk_snap_shape *shape,
                 uint32_t k, uint32_t h, czk_rng *rng, czk_err *err);

/*
 * An update of a sealed sector (seal.h czk_seal_small_replica): its replica (shape->nodes of
 * them) and comm_c are the old ones, so comm_r_old is the sector's comm_r; the new data are
 * random. Every partition's proof into vps[0 … shape->partitions). At most
 * CZK_SNAP_GEN_MAX_NODES nodes (2 KiB and 8 MiB). Returns as czk_snap_gen.
 */
int czk_snap_gen_sealed(czk_snap_public *pub, czk_snap_partition_proof *vps,
                        const czk_snap_shape *shape, uint32_t h, const czk_fr *replica,
                        size_t n_replica, const czk_fr *comm_c, czk_rng *rng, czk_err *err);

/*
 * A virtual update of a sector of any size: every partition's vanilla proof, consistent with
 * the public data it returns, without the sector in memory. The old replica and the new data
 * repeat with a period of 2^log2_period nodes (a power of 8, at most one rho bin: nodes >> h),
 * and rho changes from bin to bin as in a real update; so each tree has one distinct subtree
 * per period (per bin for TreeRNew) below the period's level and a few distinct nodes per level
 * above, and its root costs (nodes >> h) · 2^log2_period leaves to hash instead of nodes. The
 * circuit cannot tell: its paths, roots, encoding and challenges are those of a real update
 * whose data happens to repeat. For benchmarks at 32 and 64 GiB (period 2^12, h = h_default:
 * 1,024 bins, some 600,000 Poseidon hashes) and tests at small sizes.
 *
 * Out: *pub and vps[0 … shape->partitions) (czk_snap_partition_proof_clear each; cleared on
 * error). Returns CZK_OK, CZK_EINVAL (h, or a period the shape does not allow), CZK_ENOMEM or
 * CZK_EINTERNAL (a hash failed), with err filled.
 */
int czk_snap_gen_virtual(czk_snap_public *pub, czk_snap_partition_proof *vps,
                         const czk_snap_shape *shape, uint32_t h, uint32_t log2_period,
                         czk_rng *rng, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_TESTGEN_SNAP_GEN_H */
