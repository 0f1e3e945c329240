/*
 * Test data for the SnapDeals circuit without a sealed sector: a consistent update of a small
 * sector built in memory, the way rust-fil-proofs' own circuit test builds one
 * (storage-proofs-update/tests/circuit.rs:64-154): random old replica labels and comm_c, random
 * new data, TreeDNew over the data, the new replica encoded as label_r_old + data·rho, TreeRNew
 * over it, and one partition's vanilla proof over the three trees.
 *
 * Test code only: production code must not include it. Thread-safety: none needed (no global
 * state); the rng is the caller's.
 */
#ifndef CZK_FILECOIN_TESTGEN_SNAP_GEN_H
#define CZK_FILECOIN_TESTGEN_SNAP_GEN_H

#include <stdint.h>

#include "filecoin/snap/snap.h"
#include "util/rng.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest sector the generator builds, in nodes (it keeps every tree in memory). */
#define CZK_SNAP_GEN_MAX_NODES (1u << 10)

/*
 * Builds an update of a sector of `shape` (at most CZK_SNAP_GEN_MAX_NODES nodes) with h = `h`
 * and partition k's vanilla proof of it. Out: *pub (the public data) and *vp
 * (czk_snap_partition_proof_clear; cleared on error). Returns CZK_OK, CZK_EINVAL (k, h, or a
 * shape too large), CZK_ENOMEM or CZK_EINTERNAL (a hash failed), with err filled.
 */
int czk_snap_gen(czk_snap_public *pub, czk_snap_partition_proof *vp, const czk_snap_shape *shape,
                 uint32_t k, uint32_t h, czk_rng *rng, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_TESTGEN_SNAP_GEN_H */
