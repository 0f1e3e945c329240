/*
 * Recording a circuit in parts, over a pool: czk_cs_record_parts.
 *
 * Filecoin's large circuits are a global part followed by challenges that are the same gadgets
 * on the same shape (a 32 GiB PoRep partition: 18 challenges of 7 M rows each after 571 global
 * rows; a SnapDeals partition: up to 86). Recorded in one system they take one thread and grow
 * their arrays by doubling; recorded in parts, each challenge goes to a system of its own on a
 * thread of the pool, starting after the earlier parts' variables (czk_cs_record_at), and its
 * rows are copied into arrays sized once. The rows are byte for byte those one system makes
 * (the challenges' variables and rows are numbered as they would have been), which the tests
 * check against a plain recording.
 *
 * The parts must make equal counts (rows, entries of each matrix, inputs, aux); part 0 is
 * counted first and sizes the others. A part that makes other counts is refused (CZK_EINVAL).
 * Their rows may differ (a SnapDeals challenge's do, so SnapDeals has no repeated form).
 * PoRep's do not, and czk_cs_record_parts_rep keeps such a circuit as its global part and one
 * part (r1cs/rep.h).
 *
 * Thread-safety: the callbacks run on the pool's threads at once, each on its own system,
 * reading the global part's state and the argument; they must not write shared state.
 */
#ifndef CZK_FILECOIN_GADGETS_CS_PARTS_H
#define CZK_FILECOIN_GADGETS_CS_PARTS_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/gadgets/cs.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_cs_parts {
    const char *what; /* the circuit, for messages ("porep") */
    uint32_t n_parts;
    size_t globals_size; /* bytes of what the global part hands the parts */
    const void *arg;     /* the circuit's shape, passed to both callbacks */
    /* Synthesises the global part into cs (no values) and writes into globals what the parts
     * read of it (their variables). May run twice, into two systems: it must give the same. */
    int (*global)(czk_cs *cs, const void *arg, void *globals);
    /* Synthesises part i into cs, whose variables start after the earlier parts'. */
    int (*part)(czk_cs *cs, const void *arg, const void *globals, uint32_t i);
} czk_cs_parts;

/*
 * Records def's circuit (global part, then parts 0 … n_parts − 1) into *out, its counts into
 * *stats (may be NULL), exactly as one RECORD-mode system running them in order does, the parts
 * over pool (NULL: inline). Memory: the rows at their final size plus one part's per thread.
 * Returns CZK_OK, CZK_EINVAL (a part unlike part 0, or a callback's error) or CZK_ENOMEM, with
 * err filled (naming the part); *out is zeroed on failure.
 */
int czk_cs_record_parts(czk_r1cs *out, czk_cs_stats *stats, const czk_cs_parts *def, czk_pool *pool,
                        czk_err *err);

/*
 * The same circuit in its repeated form (r1cs/rep.h): the global part as the head, part 0 as
 * the block, n_parts copies of it (≥ 1). Expanded, it is czk_cs_record_parts's system entry for
 * entry (the tests check it). Parts 1 and n_parts − 1 are recorded too, numbered as part 0,
 * beside it on the pool, and must give the very same rows: a circuit whose parts differ (a
 * constant that depends on the part) is refused with CZK_EINVAL rather than proved wrong.
 * Memory: up to three parts' rows. *stats (may be NULL): the whole circuit's counts, as
 * czk_cs_record_parts gives them. *out is zeroed on failure (czk_r1cs_rep_clear it after use).
 */
int czk_cs_record_parts_rep(czk_r1cs_rep *out, czk_cs_stats *stats, const czk_cs_parts *def,
                            czk_pool *pool, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_GADGETS_CS_PARTS_H */
