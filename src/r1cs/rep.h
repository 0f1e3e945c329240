/*
 * A constraint system made of copies of one block: czk_r1cs_rep.
 *
 * Filecoin's PoSt circuits are S copies of one sector slot (S = 2,349 at 32 GiB WindowPoSt):
 * the same rows, each copy on its own variables. Stored whole in CSR form such a circuit
 * takes some 41 GB (1.15 G entries at 36 bytes); stored as its block it takes 18 MB, and the
 * consumers that need every row (key generation, the GPU's resident circuit, the density
 * pass) walk the copies themselves.
 *
 * The block is a czk_r1cs with p = block.n_public public inputs and q = block.n_vars − 1 − p
 * aux variables. The whole system has copies·R rows (R = block.n_constraints), copies·p
 * public inputs and 1 + copies·(p + q) variables, numbered as czk numbers any system: ONE,
 * the public inputs copy by copy, then the aux copy by copy. Row j of copy s is row s·R + j
 * and holds the block's row j with each column c mapped by czk_r1cs_rep_col:
 *     c = 0 (ONE)         → 0, shared by every copy;
 *     1 ≤ c ≤ p (public)  → c + s·p;
 *     c > p (aux)         → 1 + copies·p + s·q + (c − 1 − p).
 * The map is increasing in c, so every row's columns stay strictly ascending. With copies =
 * 1 the system is the block itself.
 *
 * Thread-safety: no global state; any number of threads may read one system.
 */
#ifndef CZK_R1CS_REP_H
#define CZK_R1CS_REP_H

#include <stddef.h>
#include <stdint.h>

#include "r1cs/r1cs.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_r1cs_rep {
    czk_r1cs block; /* owned: czk_r1cs_rep_clear clears it */
    size_t copies;  /* ≥ 1 */
} czk_r1cs_rep;

/* Clears the block and zeroes *rep; NULL and a zeroed struct are no-ops. */
void czk_r1cs_rep_clear(czk_r1cs_rep *rep);

/*
 * The whole system's sizes, in *dims: n_constraints, n_vars and n_public set, matrices NULL
 * (a header for code that needs only the sizes, such as the prover's shape checks when the
 * rows live on a device). Returns CZK_OK, or CZK_EINVAL when copies is 0, the block has fewer
 * than 1 + n_public variables, or a size overflows (n_vars must stay ≤ 2^32).
 */
int czk_r1cs_rep_dims(const czk_r1cs_rep *rep, czk_r1cs *dims, czk_err *err);

/* Column c of the block in copy s, as the map above says (c < block.n_vars, s < copies). */
static inline uint64_t czk_r1cs_rep_col(const czk_r1cs_rep *rep, size_t s, uint32_t c) {
    const uint64_t p = rep->block.n_public, q = rep->block.n_vars - 1 - p;
    if (c == 0)
        return 0;
    if (c <= p)
        return c + s * p;
    return 1 + rep->copies * p + s * q + (c - 1 - p);
}

/*
 * Nonzero entries of matrix m (0 = A, 1 = B, 2 = C) over the whole system: the block's times
 * the copies. 0 for a matrix the block does not store.
 */
uint64_t czk_r1cs_rep_nnz(const czk_r1cs_rep *rep, int m);

/*
 * Writes the whole system into *out in CSR form (czk_r1cs_clear it; zeroed on error), the
 * copies in parallel on pool (NULL: inline). For circuits that fit in memory whole; the
 * checks compare it with a direct recording. Returns CZK_OK, CZK_EINVAL or CZK_ENOMEM.
 */
int czk_r1cs_rep_expand(const czk_r1cs_rep *rep, czk_r1cs *out, czk_pool *pool, czk_err *err);

/*
 * czk_r1cs_density of the whole system without expanding it: bitmaps of
 * ceil(n_vars/64) words over the whole system's variables; either may be NULL. Returns
 * CZK_OK, CZK_EINVAL or CZK_ENOMEM.
 */
int czk_r1cs_rep_density(const czk_r1cs_rep *rep, uint64_t *a_bits, uint64_t *b_bits, czk_err *err);

/*
 * For each copy s in [0, copies), in parallel on pool, calls fn(arg, s, worker) — worker <
 * czk_pool_ways(pool) says which of the calling ways runs it, for
 * per-way scratch. A helper for the consumers that walk the copies (key generation). The
 * copies are handed out a few at a time, in no fixed order.
 */
void czk_r1cs_rep_for_copies(const czk_r1cs_rep *rep, czk_pool *pool,
                             void (*fn)(void *arg, size_t s, unsigned worker), void *arg);

#ifdef __cplusplus
}
#endif

#endif /* CZK_R1CS_REP_H */
