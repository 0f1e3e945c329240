/*
 * neptune's legacy Poseidon circuit (`neptune::circuit::poseidon_hash`, the one rust-fil-proofs
 * uses for tree_r_last nodes, comm_r and column hashes), constraint-exact: doc/FILECOIN.md §3.
 *
 * Per hash of arity a (width t = a + 1), in order: round 0 gives each input x_i three rows
 * ((x+p)² = y2, y2² = y4, (x+p)·y4 = y5 − q; the tag element is a constant and costs nothing);
 * rounds 1–3 and the final full rounds give each of the t elements four rows (L·ONE = v, v² =
 * y2, y2² = y4, v·y4 = y5 − q; the terminal round has no q); each partial round does the same
 * for element 0 only; the output is one more L·ONE = h. 3a + 28t + 4R_P + 1 rows and as many
 * aux: 311, 377, 505, 598 for arities 2, 4, 8, 11.
 *
 * Why a template: the linear combinations L are the state of neptune's optimised permutation
 * kept symbolic, and their coefficients depend only on the constants, never on the inputs. The
 * partial rounds let them grow to t + R_P terms, and each partial round's mixing scales and
 * merges all of them: rebuilding them for every hash would cost some 20,000 multiplications
 * (and quadratic merging) per arity-8 hash, ten times the hash itself, and the 32 GiB
 * WindowPoSt has 235,000 hashes. czk_poseidon_circuit_init therefore runs the symbolic
 * permutation once per arity and keeps every row's terms as references (ONE, input i, or the
 * hash's j-th own aux, which a hash allocates consecutively); a hash then only copies the
 * terms, substituting variables. Witness values come from the optimised permutation run round
 * by round, each S-box writing its input and powers as aux values (the S-box inputs are
 * czk_poseidon_hash_trace's); in WITNESS mode a hash takes its aux as one block
 * (czk_cs_alloc_aux_block), fills it in place and only counts its rows.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), neptune 11.0.0
 * (@ef8a821).
 */
#ifndef CZK_FILECOIN_GADGETS_POSEIDON_GADGET_H
#define CZK_FILECOIN_GADGETS_POSEIDON_GADGET_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/hash/poseidon.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rows of one hash, at most (arity 11: 33 + 336 + 228 + 1). */
#define CZK_POSEIDON_CIRCUIT_MAX_ROWS 598
/* Terms of all rows of one hash, at most (2,818, 3,421, 4,735 and 5,809 for arity 2, 4, 8 and
 * 11; checked at init). */
#define CZK_POSEIDON_CIRCUIT_MAX_TERMS 8192
/* Terms of one linear combination, at most (t + R_P: 58, 61, 66 and 69 for arity 2, 4, 8 and
 * 11, in the first final full round; checked at init). */
#define CZK_POSEIDON_CIRCUIT_MAX_LC 80

/*
 * The row template of one arity. About 310 KB: the caller provides the storage (or uses the
 * shared ones of czk_poseidon_circuit_get). Read-only after init; any number of threads may
 * hash with it at once (on distinct czk_cs).
 */
typedef struct czk_poseidon_circuit {
    const czk_poseidon_constants *constants; /* borrowed: must outlive the template */
    size_t arity, n_rows;                    /* n_rows = aux per hash */
    /* Row k's A, B, C terms are [start[3k], start[3k+1]), [start[3k+1], start[3k+2]),
     * [start[3k+2], start[3k+3]). A reference is CZK_POSEIDON_REF_ONE, CZK_POSEIDON_REF_INPUT|i,
     * or j for the hash's j-th aux. Zero coefficients are never stored. */
    uint32_t start[3 * CZK_POSEIDON_CIRCUIT_MAX_ROWS + 1];
    uint32_t ref[CZK_POSEIDON_CIRCUIT_MAX_TERMS];
    czk_fr coeff[CZK_POSEIDON_CIRCUIT_MAX_TERMS]; /* Montgomery form */
    /* Witness values at width 9 (arity 8: every tree_r_last level). M[i][j] = 1/(i + j + 9)
     * depends on i + j only (a Hankel matrix), so s·M splits into 3×3 blocks that are Hankel
     * too, and the transposed 3-way Karatsuba multiplies it with six block products of six
     * multiplications each: 36 instead of 81, for six of a hash's nine dense mixings. mds_fast
     * says whether init found M so; mds_kara[k] holds block product k's six constants. */
    int mds_fast;
    czk_fr mds_kara[6][6];
} czk_poseidon_circuit;

#define CZK_POSEIDON_REF_ONE 0xffffffffu
#define CZK_POSEIDON_REF_INPUT 0x80000000u

/*
 * Builds the template of constants c's arity into *pc by running neptune's circuit
 * symbolically (no constraint system involved). *pc borrows c. Returns CZK_OK, or
 * CZK_EINTERNAL (err filled) should a bound above be exceeded (it is not for arities ≤ 11).
 * Takes about a millisecond. Thread-safe on distinct *pc.
 */
int czk_poseidon_circuit_init(czk_poseidon_circuit *pc, const czk_poseidon_constants *c,
                              czk_err *err);

/*
 * The process-wide template of one of Filecoin's arities (2, 4, 8, 11) over
 * czk_poseidon_constants_get's constants, built on first use (all four at once, under
 * pthread_once; static storage, never freed). Returns CZK_OK, or CZK_EUNSUPPORTED for another
 * arity. Thread-safe.
 */
int czk_poseidon_circuit_get(const czk_poseidon_circuit **out, size_t arity, czk_err *err);

/*
 * Synthesises neptune's poseidon_hash over the allocated variables in[0 … arity) into cs
 * (arity must equal pc->arity) and sets *out to the digest variable (the last aux allocated).
 * With values, every aux gets its value from the permutation; rows are built only when
 * czk_cs_builds_rows(cs). Returns CZK_OK or the system's sticky error (CZK_EINVAL, set on cs,
 * for a wrong arity or missing input values).
 */
int czk_poseidon_gadget_hash(czk_cs *cs, czk_var *out, const czk_poseidon_circuit *pc,
                             const czk_var *in, size_t arity);

/* Hashes a memo remembers, at most: a 32 GiB WindowPoSt slot makes 101. */
#define CZK_POSEIDON_MEMO_MAX 128

/*
 * The hashes made so far in one WITNESS-mode system (their template, input values and first
 * aux), so that a hash of the same inputs copies their aux instead of running the
 * permutation again. The values of a hash depend on its inputs alone, so the copy is what
 * synthesis would compute. It pays where paths meet: the ten inclusion paths of a PoSt slot all
 * hash the same children of their root, and often those of a sub-tree's root. About 50 KB;
 * start it with czk_poseidon_memo_reset, and clear it (czk_memclear_explicit) before freeing:
 * it holds witness values.
 */
typedef struct czk_poseidon_memo {
    size_t n;
    struct czk_poseidon_memo_entry {
        const czk_poseidon_circuit *pc;
        czk_var first;
        czk_fr in[CZK_POSEIDON_MAX_ARITY];
    } entry[CZK_POSEIDON_MEMO_MAX];
} czk_poseidon_memo;

static inline void czk_poseidon_memo_reset(czk_poseidon_memo *memo) {
    memo->n = 0;
}

/*
 * czk_poseidon_gadget_hash, looking the inputs up in `memo` first (NULL: none) and adding the
 * hash to it when new and there is room. The memo must have been used with this system only
 * (its entries name this system's variables). It is used in WITNESS mode without CHECK only:
 * elsewhere rows are built, and it is neither read nor written.
 */
int czk_poseidon_gadget_hash_memo(czk_cs *cs, czk_var *out, const czk_poseidon_circuit *pc,
                                  const czk_var *in, size_t arity, czk_poseidon_memo *memo);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_GADGETS_POSEIDON_GADGET_H */
