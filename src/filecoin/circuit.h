/*
 * Whole Filecoin circuits without values, for the tools that size them or make keys for them
 * (`czk circuit info`, `czk setup --filecoin`): a PoSt (post.h), PoRep (porep.h) or SnapDeals
 * (snap/snap.h) circuit
 * counted in COUNT mode with its digest (doc/FILECOIN.md §8), or recorded in RECORD mode as a
 * czk_r1cs.
 *
 * Thread-safety: no global state; each call uses its own constraint system.
 */
#ifndef CZK_FILECOIN_CIRCUIT_H
#define CZK_FILECOIN_CIRCUIT_H

#include <stdint.h>

#include "filecoin/gadgets/cs.h"
#include "filecoin/porep/porep.h"
#include "filecoin/post/post.h"
#include "filecoin/snap/snap.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Synthesises the PoSt circuit `shape` in COUNT mode. Out: *stats (cs.h: rows and nnz without
 * the prover's input rows) and, when digest is non-NULL, the FILECOIN.md §8 digest (input rows
 * included). Memory is O(aux) bits. Returns CZK_OK, CZK_ENOMEM or the synthesis error (err
 * filled).
 */
int czk_circuit_post_count(czk_cs_stats *stats, uint8_t *digest, const czk_post_shape *shape,
                           czk_err *err);

/*
 * Synthesises the PoSt circuit `shape` in RECORD mode. Out: *r1cs (czk_r1cs_clear; zeroed on
 * error; input rows not stored, as cs.h says) and *stats (may be NULL). Memory is about 40
 * bytes per nonzero entry, held twice while the rows are renumbered. Returns CZK_OK,
 * CZK_ENOMEM or the synthesis error (err filled).
 */
int czk_circuit_post_record(czk_r1cs *r1cs, czk_cs_stats *stats, const czk_post_shape *shape,
                            czk_err *err);

/*
 * The same circuit as a repeated block (r1cs/rep.h): one slot recorded, copied shape->slots
 * times. Expanded, it is czk_circuit_post_record's system entry for entry (a test checks it);
 * it takes one slot's memory (18 MB for 32 GiB WindowPoSt, where the whole system is 41 GB).
 * Out: *rep (czk_r1cs_rep_clear; zeroed on error) and *stats (may be NULL: the whole
 * circuit's counts, czk_circuit_post_stats_scale of the slot's). Returns CZK_OK, CZK_EINVAL,
 * CZK_ENOMEM or the synthesis error (err filled).
 */
int czk_circuit_post_record_rep(czk_r1cs_rep *rep, czk_cs_stats *stats, const czk_post_shape *shape,
                                czk_err *err);

/*
 * The whole circuit's counts from one slot's (what COUNT gives for it, without S slots of
 * synthesis): every slot is the same block of rows and aux, and ONE is the only input B uses
 * (params.h: 1 in every Filecoin circuit).
 */
void czk_circuit_post_stats_scale(czk_cs_stats *out, const czk_cs_stats *one, size_t slots);

/*
 * The circuit's rows (input rows excluded) from its shape alone, by doc/FILECOIN.md §5's
 * formula S·(313 + K·(2 + 530·levels of arity 8 + 314·levels of arity 2)); COUNT gives the
 * same figure. For sizing a job before running it.
 */
uint64_t czk_circuit_post_rows(const czk_post_shape *shape);

/*
 * As czk_circuit_post_count and czk_circuit_post_record, for one partition of the PoRep circuit
 * `shape` (every partition is the same circuit). Counting the 130 M-row 32 GiB partition takes
 * memory for its aux bitmaps only (about 50 MB). Recording takes the rows' size plus a
 * challenge's a thread, the challenges recorded over `pool` (NULL: inline; czk_porep_record).
 */
int czk_circuit_porep_count(czk_cs_stats *stats, uint8_t *digest, const czk_porep_shape *shape,
                            czk_err *err);
int czk_circuit_porep_record(czk_r1cs *r1cs, czk_cs_stats *stats, const czk_porep_shape *shape,
                             czk_pool *pool, czk_err *err);

/* The partition in its repeated form (r1cs/rep.h): the global part as the head, one challenge
 * as the block (czk_porep_record_rep). Out: *rep (czk_r1cs_rep_clear; zeroed on error) and
 * *stats (may be NULL: the whole partition's counts). */
int czk_circuit_porep_record_rep(czk_r1cs_rep *rep, czk_cs_stats *stats,
                                 const czk_porep_shape *shape, czk_pool *pool, czk_err *err);

/*
 * A PoRep partition's rows (input rows excluded) from its shape alone, by doc/FILECOIN.md
 * §12's sum: 571 + C·(45,382·comm_d levels + 2 + 14·(column + octree + 2) + 65 + 523,805 +
 * 525,853·(L − 1) + 5 + 2·octree + column), column = 311 (L = 2) or 598 (L = 11), octree =
 * 530 per arity-8 level + 314 per arity-2 level. COUNT gives the same figure.
 */
uint64_t czk_circuit_porep_rows(const czk_porep_shape *shape);

/*
 * As czk_circuit_porep_count and czk_circuit_porep_record, for one partition (partition 0:
 * every partition is the same circuit) of the SnapDeals update circuit `shape`. The 32 GiB
 * partition has 81 M rows.
 */
int czk_circuit_snap_count(czk_cs_stats *stats, uint8_t *digest, const czk_snap_shape *shape,
                           czk_err *err);
int czk_circuit_snap_record(czk_r1cs *r1cs, czk_cs_stats *stats, const czk_snap_shape *shape,
                            czk_pool *pool, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_CIRCUIT_H */
