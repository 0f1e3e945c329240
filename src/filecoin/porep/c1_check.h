/*
 * The check of a C1 output against a PoRep C2 request's public data, before any proving (the
 * public inputs themselves are porep_inputs.h).
 *
 * Thread-safety: no global state; reentrant. Not constant-time (the values checked are public,
 * or the prover's own).
 */
#ifndef CZK_FILECOIN_POREP_C1_CHECK_H
#define CZK_FILECOIN_POREP_C1_CHECK_H

#include <stdint.h>

#include "filecoin/io/c1.h"
#include "filecoin/spec/porep_types.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the request says about the sector, when the caller knows it: the replica id is then
 * recomputed from it and must equal the C1 output's. */
typedef struct czk_porep_sector_ids {
    uint8_t prover_id[32]; /* czk_vanilla_prover_id of the miner */
    uint64_t sector_id;
} czk_porep_sector_ids;

/*
 * Checks a C1 output before proving, so that a wrong one is refused at once rather than after
 * minutes of proving a proof that fails: comm_d, comm_r and seed non-zero (as seal_commit_phase2
 * demands); the replica id (with ids); per challenge, the node is the derived challenge and
 * every path and column index agrees with it and with the SDR graph's parents; every path
 * hashes to its root (SHA-256 for tree_d, Poseidon for tree_c and tree_r_last) and the roots
 * are comm_d, one comm_c and one comm_r_last throughout; every column's leaf is the Poseidon
 * hash of its rows; the challenged column's rows are the labels recomputed from the parents'
 * rows; the labeling and encoding proofs hold those parents; the replica leaf is the last
 * label plus the data leaf; comm_r = Poseidon-2(comm_c, comm_r_last). A synthetic type's
 * challenges are those the seed selects from comm_r's synthetic set, so a proof of any other
 * node, of the set or not, is refused naming the synthetic challenge that was due. `what` names
 * the input in messages, which also name the partition, the challenge and the fault. Returns
 * CZK_OK, CZK_EVERIFY (a mismatch), CZK_EUNSUPPORTED (NI PoRep) or CZK_EINTERNAL.
 */
int czk_porep_c1_check(const czk_c1 *c1, const czk_porep_sector_ids *ids, const char *what,
                       czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_POREP_C1_CHECK_H */
