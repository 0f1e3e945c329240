/*
 * A PoRep C2 request's public side: the public inputs of each partition as Filecoin's verifier
 * forms them (rust-fil-proofs storage-proofs-porep/src/stacked/circuit/proof.rs
 * generate_public_inputs). The check of a C1 output against them is c1_check.h.
 *
 * Public inputs of partition k, ONE excluded (it is ic[0] of the key): replica_id, comm_d,
 * comm_r, then per challenge i (challenge j = k·C + i of the proof, czk_porep_challenges:
 * interactive or synthetic): the challenge (comm_d path), its 6 DRG parents and 8 expander parents
 * (their tree_c paths, from the SDR graph: sdr.h), the challenge (UInt64), the challenge
 * (tree_r_last path), the challenge (its own tree_c path). 3 + 18·C values: 39 or 327.
 *
 * Thread-safety: no global state; reentrant. Not constant-time (the values checked are public,
 * or the prover's own).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_POREP_POREP_INPUTS_H
#define CZK_FILECOIN_POREP_POREP_INPUTS_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/spec/porep_types.h"
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

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_POREP_POREP_INPUTS_H */
