/*
 * The Fallback PoSt circuit (WinningPoSt and WindowPoSt) of rust-fil-proofs
 * (storage-proofs-post/src/fallback/circuit.rs), constraint-exact: doc/FILECOIN.md §5.
 *
 * S sector slots, each in order: alloc comm_r_last, comm_c, comm_r; inputize comm_r;
 * Poseidon-2(comm_c, comm_r_last) and the row comm_r · ONE = hash; then K inclusion proofs
 * (por.h) of a leaf (Root::Val) into comm_r_last (Root::Var), private, each packing its leaf
 * index into one public input. WinningPoSt is 66 slots of 1 challenge, the one challenged
 * sector's 66 inclusion proofs one per slot; WindowPoSt is sector_count slots of 10 challenges,
 * one sector per slot, the last sector repeated when a partition has fewer.
 *
 * Synthesis is sequential; rust-fil-proofs' parallel `extend` gives the same system:
 * it concatenates the groups' rows and variables in order.
 */
#ifndef CZK_FILECOIN_POST_H
#define CZK_FILECOIN_POST_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/cs.h"
#include "filecoin/por.h"
#include "filecoin/vanilla.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The circuit of one PoSt kind and sector size. */
typedef struct czk_post_shape {
    czk_vanilla_post_kind kind;
    uint64_t sector_size;
    size_t slots;       /* S: sector slots */
    size_t challenges;  /* K: inclusion proofs per slot */
    czk_por_shape tree; /* tree_r_last */
} czk_post_shape;

/*
 * The shape for `kind` and `sector_size` (2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB), derived from
 * the registered proof types of vanilla.h. Returns CZK_OK, or CZK_EUNSUPPORTED (err filled).
 */
int czk_post_shape_init(czk_post_shape *out, czk_vanilla_post_kind kind, uint64_t sector_size,
                        czk_err *err);

/*
 * Synthesises the circuit into cs. `sectors` holds n_sectors decoded vanilla proofs in slot
 * order (WinningPoSt: exactly 1 with S inclusions; WindowPoSt: 1 … S, the last repeated to
 * fill S slots); it may be NULL (n_sectors 0) when the system carries no values (counting,
 * recording). The caller checks the proofs against the public data first
 * (czk_vanilla_sector_check); here only their shape is checked. Returns CZK_OK, CZK_EINVAL
 * (set on cs) for missing or ill-shaped proofs, or the system's sticky error (CZK_EVERIFY with
 * CZK_CS_CHECK when a proof does not satisfy the rows).
 */
int czk_post_synthesize(czk_cs *cs, const czk_post_shape *shape, const czk_vanilla_sector *sectors,
                        size_t n_sectors);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_POST_H */
