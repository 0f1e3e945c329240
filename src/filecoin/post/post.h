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
 * czk_post_synthesize is sequential; rust-fil-proofs' parallel `extend` gives the same system:
 * it concatenates the groups' rows and variables in order. That is also why the witness alone
 * parallelises (czk_post_witness): every slot adds the same number of inputs and aux, so slot
 * s's values have a known place in the witness vector, and ranges of slots are synthesised
 * at once, each straight into its place.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_POST_POST_H
#define CZK_FILECOIN_POST_POST_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/gadgets/cs.h"
#include "filecoin/gadgets/por.h"
#include "filecoin/spec/sector.h"
#include "util/pool.h"
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

/*
 * The witness's size: *n_inputs (ONE included) and *n_aux of the whole circuit, from a
 * COUNT pass of one slot (about 3 ms for 32 GiB on a 2-core x86-64 VM) scaled by the slots.
 * Returns CZK_OK or CZK_EINVAL (invalid shape, or a size beyond size_t).
 */
int czk_post_witness_dims(const czk_post_shape *shape, size_t *n_inputs, size_t *n_aux,
                          czk_err *err);

/*
 * Writes the circuit's full witness into w, as czk_post_synthesize in WITNESS mode would make
 * it and in czk's numbering: w[0] = ONE, then the n_inputs − 1 inputs (slot by slot: comm_r,
 * then one leaf index per challenge), then the n_aux aux (slot by slot). n_inputs and n_aux
 * are czk_post_witness_dims's (a prover has them from its recorded system: n_public + 1 and
 * n_vars − n_public − 1). `sectors` as for czk_post_synthesize (required here).
 *
 * The slots run in parallel on `pool` (NULL: on the calling thread), each way claiming one
 * slot at a time and synthesising it in a WITNESS-mode system bound to the slot's place in w
 * (czk_cs_bind_values): nothing is copied, and the only memory besides w is that small system
 * and a hash memo per way (poseidon_gadget.h, 50 KB, counted by czk_malloc). WindowPoSt slots
 * that repeat the last sector are copied from its slot rather than synthesised again. A slot
 * that makes more or fewer variables than the layout gives it fails (CZK_EINVAL) without
 * writing outside its place. Rows are not evaluated: proving checks them (or see
 * czk_post_synthesize with CZK_CS_CHECK). Returns CZK_OK, CZK_EINVAL (invalid shape, proofs
 * that do not fit, a layout that does not split into the slots or does not match them) or
 * CZK_ENOMEM, with err filled; on failure w holds partial values, which the caller clears.
 * Thread-safe for distinct w.
 */
int czk_post_witness(const czk_post_shape *shape, const czk_vanilla_sector *sectors,
                     size_t n_sectors, czk_fr *w, size_t n_inputs, size_t n_aux, czk_pool *pool,
                     czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_POST_POST_H */
