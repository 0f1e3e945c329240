/*
 * A PoRep C2 request's public side: the public inputs of each partition as Filecoin's verifier
 * forms them (rust-fil-proofs storage-proofs-porep/src/stacked/circuit/proof.rs
 * generate_public_inputs), and the checks of a C1 output against them before any proving.
 *
 * Public inputs of partition k, ONE excluded (it is ic[0] of the key): replica_id, comm_d,
 * comm_r, then per challenge i (challenge j = k·C + i of the proof, czk_porep_challenges:
 * interactive or synthetic): the challenge (comm_d path), its 6 DRG parents and 8 expander parents
 * (their tree_c paths, from the SDR graph: sdr.h), the challenge (UInt64), the challenge
 * (tree_r_last path), the challenge (its own tree_c path). 3 + 18·C values: 39 or 327.
 *
 * Thread-safety: no global state; reentrant. Not constant-time (the values checked are public,
 * or the prover's own).
 */
#ifndef CZK_FILECOIN_POREP_PUBLIC_H
#define CZK_FILECOIN_POREP_PUBLIC_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/c1.h"
#include "filecoin/porep_types.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Public inputs of one partition, ONE excluded. */
static inline size_t czk_porep_public_count(const czk_porep_type *type) {
    return 3 + 18 * (size_t)type->challenges;
}

/*
 * The public inputs of partition k from the public data alone. The three 32-byte values are
 * little-endian field elements (< r). Interactive and synthetic types (the latter's challenges
 * depend on comm_r too). Out: out[0 .. czk_porep_public_count(type)). Returns CZK_OK,
 * CZK_EINVAL (out_len or k wrong), CZK_ERANGE (a value ≥ r), CZK_EUNSUPPORTED (non-interactive
 * PoRep, czk_porep_type_supported) or CZK_EINTERNAL.
 */
int czk_porep_public_inputs(czk_fr *out, size_t out_len, const czk_porep_type *type,
                            const uint8_t replica_id[32], const uint8_t comm_d[32],
                            const uint8_t comm_r[32], const uint8_t seed[32], uint32_t k,
                            czk_err *err);

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

#endif /* CZK_FILECOIN_POREP_PUBLIC_H */
