/*
 * A constraint system made of copies of one block after a head: czk_r1cs_rep.
 *
 * Filecoin's PoSt circuits are S copies of one sector slot (S = 2,349 at 32 GiB WindowPoSt):
 * the same rows, each copy on its own variables. A PoRep partition is a global part (the
 * replica id's bits, comm_r's hash: 571 rows) followed by 18 challenges that are the same
 * gadgets on the same shape, each reading the global part's variables. Stored whole in CSR
 * form such circuits take 26 to 41 GB; stored as head and block they take one challenge's or
 * one slot's rows (1.5 GB, 18 MB), and the consumers that need every row (key generation,
 * the GPU's resident circuit, the density pass) walk the copies themselves.
 *
 * The head (optional: head.n_vars = 0 means none) is a czk_r1cs over the shared variables:
 * ONE, gp = head.n_public public inputs and gq = head.n_vars − 1 − gp aux. The block is a
 * czk_r1cs over the shared variables and a copy's own, numbered [ONE, the gp shared inputs,
 * p own inputs, the gq shared aux, q own aux]: block.n_public = gp + p and block.n_vars =
 * 1 + gp + p + gq + q. Without a head gp = gq = 0 and the block is a plain system.
 *
 * The whole system has H + copies·R rows (H = head.n_constraints, R = block.n_constraints),
 * gp + copies·p public inputs and 1 + gp + gq + copies·(p + q) variables, numbered as czk
 * numbers any system, in the order a synthesis that runs the head and then the copies
 * allocates them: ONE, the shared inputs, the inputs copy by copy, the shared aux, the aux
 * copy by copy. Rows 0 … H − 1 are the head's; row j of copy s is row H + s·R + j and holds
 * the block's row j with each column c mapped by czk_r1cs_rep_col (aux0 = 1 + gp + copies·p):
 *     c = 0 (ONE)                     → 0, shared;
 *     1 ≤ c ≤ gp (shared input)       → c;
 *     gp < c ≤ gp + p (own input)     → c + s·p;
 *     gp + p < c ≤ gp + p + gq        → aux0 + (c − 1 − gp − p), shared;
 *     c > gp + p + gq (own aux)       → aux0 + gq + s·q + (c − 1 − gp − p − gq).
 * The head's columns map the same way with p = q = 0 (czk_r1cs_rep_head_col). Both maps are
 * increasing in c, so every row's columns stay strictly ascending. With copies = 1 and no
 * head the system is the block itself.
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
    czk_r1cs head;  /* owned; zeroed (n_vars 0) when there is none */
} czk_r1cs_rep;

/* Clears the head and the block and zeroes *rep; NULL and a zeroed struct are no-ops. */
void czk_r1cs_rep_clear(czk_r1cs_rep *rep);

/*
 * The whole system's sizes, in *dims: n_constraints, n_vars and n_public set, matrices NULL
 * (a header for code that needs only the sizes, such as the prover's shape checks when the
 * rows live on a device). Returns CZK_OK, or CZK_EINVAL when copies is 0, the head or the
 * block has fewer than 1 + n_public variables, the block has fewer inputs or aux than the
 * head shares, the head stores a matrix the block does not (or the reverse), or a size
 * overflows (n_vars must stay ≤ 2^32).
 */
int czk_r1cs_rep_dims(const czk_r1cs_rep *rep, czk_r1cs *dims, czk_err *err);

/* The shared inputs and aux (gp, gq above): the head's, 0 without one. */
static inline uint64_t czk_r1cs_rep_gp(const czk_r1cs_rep *rep) {
    return rep->head.n_vars > 0 ? rep->head.n_public : 0;
}
static inline uint64_t czk_r1cs_rep_gq(const czk_r1cs_rep *rep) {
    return rep->head.n_vars > 0 ? rep->head.n_vars - 1 - rep->head.n_public : 0;
}

/* The map above with its constants: gp, p, gq, q and aux0 (what the GPU's kernels take by
 * value). */
typedef struct czk_r1cs_rep_map {
    uint64_t gp, p, gq, q, aux0;
} czk_r1cs_rep_map;

/* The block's map (head 0: its copies) or the head's (head 1: p = q = 0). */
static inline czk_r1cs_rep_map czk_r1cs_rep_map_of(const czk_r1cs_rep *rep, int head) {
    const uint64_t gp = czk_r1cs_rep_gp(rep), gq = czk_r1cs_rep_gq(rep);
    const uint64_t p = rep->block.n_public - gp, q = rep->block.n_vars - 1 - gp - p - gq;
    const czk_r1cs_rep_map m = {gp, head ? 0 : p, gq, head ? 0 : q, 1 + gp + rep->copies * p};
    return m;
}

/* Column c in copy s by map m. */
static inline uint64_t czk_r1cs_rep_map_col(const czk_r1cs_rep_map *m, uint64_t s, uint64_t c) {
    if (c <= m->gp)
        return c; /* ONE and the shared inputs */
    if (c <= m->gp + m->p)
        return c + s * m->p;
    if (c <= m->gp + m->p + m->gq)
        return m->aux0 + (c - 1 - m->gp - m->p);
    return m->aux0 + m->gq + s * m->q + (c - 1 - m->gp - m->p - m->gq);
}

/* Column c of the block in copy s, as the map above says (c < block.n_vars, s < copies). For
 * loops, czk_r1cs_rep_map_of once and czk_r1cs_rep_map_col per entry. */
static inline uint64_t czk_r1cs_rep_col(const czk_r1cs_rep *rep, size_t s, uint32_t c) {
    const czk_r1cs_rep_map m = czk_r1cs_rep_map_of(rep, 0);
    return czk_r1cs_rep_map_col(&m, s, c);
}

/* Column c of the head (c < head.n_vars). */
static inline uint64_t czk_r1cs_rep_head_col(const czk_r1cs_rep *rep, uint32_t c) {
    const czk_r1cs_rep_map m = czk_r1cs_rep_map_of(rep, 1);
    return czk_r1cs_rep_map_col(&m, 0, c);
}

/*
 * Nonzero entries of matrix m (0 = A, 1 = B, 2 = C) over the whole system: the head's plus
 * the block's times the copies. 0 for a matrix the block does not store.
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
 * For each copy s in [0, copies), in parallel on pool (the head is not a copy: the caller
 * walks it), calls fn(arg, s, worker) — worker <
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
