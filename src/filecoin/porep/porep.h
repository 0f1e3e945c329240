/*
 * The StackedDRG PoRep partition circuit of rust-fil-proofs
 * (storage-proofs-porep/src/stacked/circuit/{proof,params}.rs), constraint-exact: doc/FILECOIN.md
 * §12.
 *
 * Global part: alloc replica_id, inputize, to_bits_le in SHA order (reverse_bit_numbering);
 * alloc comm_d, inputize; alloc comm_r, inputize; alloc comm_r_last, comm_c; Poseidon-2(comm_c,
 * comm_r_last) and comm_r · ONE = hash. Then per challenge, in order:
 *   1. alloc data_leaf; its SHA-256 inclusion into comm_d (sha256_gadget.h);
 *   2. 6 DRG then 8 expander parent columns: alloc the L rows, Poseidon-L of them, inclusion of
 *      that hash into comm_c (por.h);
 *   3. the challenge as a UInt64 (64 bits) packed into one input;
 *   4. for each layer 1 … L: the parents' bits (layer 1: the 6 DRG parents' row 1; layer ℓ:
 *      the DRG parents' row ℓ, then the expander parents' row ℓ − 1), each to_bits_le in SHA
 *      order, repeated to 37, and the label circuit;
 *   5. encode: data_leaf + last label; its inclusion into comm_r_last;
 *   6. Poseidon-L of the L labels, its inclusion into comm_c.
 * Every inclusion is private and packs its path into one public input.
 *
 * Thread-safety: as the czk_cs used; nothing global. czk_porep_witness makes its own systems.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_POREP_POREP_H
#define CZK_FILECOIN_POREP_POREP_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/gadgets/cs.h"
#include "filecoin/gadgets/por.h"
#include "filecoin/io/c1.h"
#include "filecoin/spec/porep_types.h"
#include "r1cs/rep.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The circuit of one sector size: every registered seal proof of a size shares it. */
typedef struct czk_porep_shape {
    uint64_t sector_size;
    uint32_t layers;        /* L: 2 or 11 */
    uint32_t challenges;    /* C: per partition, 2 or 18 */
    uint32_t comm_d_levels; /* binary SHA-256 levels of tree_d */
    czk_por_shape tree;     /* tree_c and tree_r_last (arity 8 base) */
} czk_porep_shape;

/* The shape of `sector_size`. Returns CZK_OK or CZK_EUNSUPPORTED (err filled). */
int czk_porep_shape_init(czk_porep_shape *out, uint64_t sector_size, czk_err *err);

/* Public inputs of one partition, ONE included: 4 + 18·C. */
static inline size_t czk_porep_n_inputs(const czk_porep_shape *shape) {
    return 4 + 18 * (size_t)shape->challenges;
}

/*
 * Synthesises partition `partition` of the circuit into cs (a shape of 0 challenges gives the
 * global part alone, for sizing). `c1` (may be NULL when the system
 * carries no values) gives the witness: replica_id, comm_d and comm_r from its top level,
 * comm_r_last and comm_c from the partition's first challenge proof, the paths and columns from
 * each challenge's proof. Its sector size must be the shape's. The caller checks the C1 output
 * against the public data first (czk_porep_c1_check); here only its shape is checked. Returns
 * CZK_OK, CZK_EINVAL (set on cs) for a missing or ill-shaped C1, or the system's sticky error
 * (CZK_EVERIFY with CZK_CS_CHECK when the values do not satisfy the rows).
 */
int czk_porep_synthesize(czk_cs *cs, const czk_porep_shape *shape, const czk_c1 *c1,
                         uint32_t partition);

/*
 * Records the circuit (the rows of czk_porep_synthesize without values) into *out, and its
 * counts into *stats (may be NULL), exactly as one RECORD-mode system does, with the
 * challenges over the pool: the global part first, then challenge 0, whose counts size the
 * whole system's arrays at once (every challenge makes the same rows, entries and variables;
 * one that does not is refused, CZK_EINVAL), then the others each in a system of its own
 * (czk_cs_record_at) that copies its rows into place and frees them. So the rows take their
 * final size plus one challenge's a thread, not twice the final size, and a 32 GiB partition's
 * 130 M rows are recorded on every core instead of one. pool NULL: inline. Returns CZK_OK,
 * CZK_EINVAL or CZK_ENOMEM, with err filled; *out is zeroed on failure.
 */
int czk_porep_record(czk_r1cs *out, czk_cs_stats *stats, const czk_porep_shape *shape,
                     czk_pool *pool, czk_err *err);

/*
 * The same circuit in its repeated form (r1cs/rep.h, czk_cs_record_parts_rep): the global part
 * as the head and one challenge as the block, copied shape->challenges times. The 32 GiB
 * partition's 26 GB of rows become one challenge's 1.5 GB; expanded, they are
 * czk_porep_record's system entry for entry (a test checks it). Returns CZK_OK, CZK_EINVAL or
 * CZK_ENOMEM, with err filled; *out is zeroed on failure.
 */
int czk_porep_record_rep(czk_r1cs_rep *out, czk_cs_stats *stats, const czk_porep_shape *shape,
                         czk_pool *pool, czk_err *err);

/*
 * Writes partition `partition`'s full witness into w, as czk_porep_synthesize in WITNESS mode
 * makes it, in czk's numbering: w[0] = ONE, the n_inputs − 1 inputs, then the n_aux aux (a
 * prover has them from its recorded system). The system's values are bound to w (nothing is
 * copied); a synthesis that makes more or fewer variables than the layout fails (CZK_EINVAL)
 * without writing outside w.
 *
 * pool NULL: sequential, on the calling thread. With a pool, the global part runs on the
 * calling thread, then the challenges over the pool, each in a system of its own
 * (czk_cs_witness_at) writing its own range of w, so the witness is bit for bit the sequential
 * one. The ranges come from the layout: every challenge makes the same numbers of inputs and
 * aux, so the layout less the global part must split evenly into the challenges, and each
 * challenge must end exactly where its range does; a layout that does not is refused
 * (CZK_EINVAL) and no challenge writes outside its range. Of several failing challenges the
 * lowest one's error is returned. The pool's loop is one czk_pool_run (it waits for a loop
 * running on the pool, and runs inline when called from inside one).
 *
 * Returns CZK_OK, CZK_EINVAL (a C1 that does not fit, a layout that does not match) or
 * CZK_ENOMEM, with err filled; on failure w holds partial values, which the caller clears.
 */
int czk_porep_witness(const czk_porep_shape *shape, const czk_c1 *c1, uint32_t partition, czk_fr *w,
                      size_t n_inputs, size_t n_aux, czk_pool *pool, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_POREP_POREP_H */
