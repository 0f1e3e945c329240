/*
 * Filecoin's registered seal proofs (PoRep) and the public values a C2 proof is made against:
 * the porep_id, the replica id and the interactive challenges.
 *
 * Registered seal proofs (Go abi.RegisteredSealProof, filecoin-proofs-api RegisteredSealProof):
 *   0–4   StackedDrg{2KiB,8MiB,512MiB,32GiB,64GiB}V1                      API 1.0
 *   5–9   StackedDrg…V1_1                                                  API 1.1
 *   10–14 StackedDrg…V1_1_Feat_SyntheticPoRep                              API 1.2, synthetic
 *   15–19 StackedDrg…V1_2_Feat_NonInteractivePoRep                         API 1.2, NI
 * The JSON of a C1 output names them by these enum names.
 *
 * Every sector size has one circuit for all of them: what differs is how many partitions a
 * proof has and how the challenges are derived. Per size (rust-fil-proofs constants.rs):
 *   size    nodes  layers  partitions (NI)  challenges/partition  tree_r_last
 *   2 KiB   2^6    2       1 (13)           2                     8-0-0, 2 base levels
 *   8 MiB   2^18   2       1 (13)           2                     8-0-0, 6
 *   512 MiB 2^24   2       1 (13)           2                     8-0-0, 8
 *   32 GiB  2^30   11      10 (126)         18                    8-8-0, 9 + sub
 *   64 GiB  2^31   11      10 (126)         18                    8-8-2, 9 + sub + top
 *
 * porep_id = LE64(abi id) ‖ LE64(nonce 0) ‖ 0^16 (filecoin-proofs-api registry.rs).
 * replica_id = SHA256(prover_id ‖ BE64(sector_id) ‖ ticket ‖ comm_d ‖ porep_id), byte 31 & 0x3f.
 * Interactive challenge j of the whole proof (j = k·C + i for partition k, challenge i):
 *   LE256(SHA256(replica_id ‖ seed ‖ LE32(j))) mod (nodes − 1) + 1  (never node 0).
 *
 * Synthetic PoRep (rust-fil-proofs@87348a74:storage-proofs-porep/src/stacked/vanilla/
 * challenges.rs, module `synthetic`) commits to a set of N = min(nodes, 2^18) synthetic
 * challenges before the seed exists, and proves the ones the seed selects from it:
 *   gen_key = BLAKE2b-256, keyed "filecoin.io|PoRep|1|Synthetic|1|Generation", of
 *             replica_id ‖ comm_r (both 32-byte field element reprs);
 *   sel_key = the same with key "…|Selection" over replica_id ‖ seed;
 *   ChaCha20 is RFC 8439's (32-bit block counter from 0, 96-bit nonce "synth-porep\0");
 *   synthetic challenge s < N = LE256(bytes [32·s, 32·s + 32) of gen_key's keystream)
 *             mod (nodes − 1) + 1;
 *   challenge j = k·C + i of the proof is synthetic challenge LE32(bytes [4·j, 4·j + 4) of
 *             sel_key's keystream) mod N.
 * Synthetic types have their own porep_id (their abi id, 10-14) and API version 1.2
 * (filecoin-proofs-api registry.rs: the "V1_1" in their names is a historical misnomer),
 * which draws the graph as 1.1 does. Non-interactive PoRep (15-19) is refused.
 *
 * Thread-safety: constant tables and pure functions.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * rust-filecoin-proofs-api@0e64ce8d.
 */
#ifndef CZK_FILECOIN_SPEC_POREP_TYPES_H
#define CZK_FILECOIN_SPEC_POREP_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/spec/sector.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a registered seal proof derives its challenges. */
typedef enum czk_porep_variant {
    CZK_POREP_INTERACTIVE = 0, /* V1, V1_1 */
    CZK_POREP_SYNTHETIC = 1,   /* V1_1_Feat_SyntheticPoRep (API 1.2) */
    CZK_POREP_NI = 2,          /* V1_2_Feat_NonInteractivePoRep */
} czk_porep_variant;

#define CZK_POREP_N_TYPES 20
#define CZK_POREP_MAX_LAYERS 11
#define CZK_POREP_DRG_PARENTS 6
#define CZK_POREP_EXP_PARENTS 8
#define CZK_POREP_PARENTS 37 /* parents hashed into a label: 6 + 8, repeated (graph.rs) */
/* Challenges per partition, at most (32/64 GiB). */
#define CZK_POREP_MAX_CHALLENGES 18
/* Levels of the deepest comm_d tree (64 GiB: 2^31 leaves). */
#define CZK_POREP_MAX_COMM_D_LEVELS 31

/* One registered seal proof. */
typedef struct czk_porep_type {
    uint32_t abi_id;
    const char *name; /* "StackedDrg2KiBV1_1" */
    czk_porep_variant variant;
    czk_vanilla_api api;
    uint64_t sector_size;
    uint64_t nodes;           /* sector_size / 32 */
    uint32_t layers;          /* 2 or 11 */
    uint32_t partitions;      /* partitions of one proof (NI: 13 or 126) */
    uint32_t challenges;      /* challenges per partition: 2 or 18 */
    uint32_t comm_d_levels;   /* log2(nodes) */
    czk_vanilla_shape tree;   /* tree_r_last and tree_c, arity 8 base */
    const char *size_variant; /* the C1 JSON's vanilla_proofs key: "StackedDrg2KiBV1" */
} czk_porep_type;

/* The type of an abi id, or NULL (with err) when there is none. */
const czk_porep_type *czk_porep_type_from_abi(uint64_t abi_id, czk_err *err);
/* The type of an enum name (exact, case-sensitive as serde writes it), or NULL (with err). */
const czk_porep_type *czk_porep_type_from_name(const char *name, czk_err *err);
/* The interactive (V1_1) type of a sector size, or NULL (with err) for an unknown size. */
const czk_porep_type *czk_porep_type_for_size(uint64_t sector_size, czk_err *err);

/* porep_id of a type (see the top of this file). */
void czk_porep_id(uint8_t out[32], const czk_porep_type *type);

/* replica_id (see the top of this file); always < r. Returns CZK_OK or CZK_EINTERNAL. */
int czk_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                         const uint8_t ticket[32], const uint8_t comm_d[32],
                         const uint8_t porep_id[32], czk_err *err);

/*
 * The interactive challenges of partition `k`: out[i] for i < type->challenges is challenge
 * j = k·challenges + i. Returns CZK_OK, CZK_EINVAL (k ≥ partitions, or a type whose challenges
 * are not interactive) or CZK_EINTERNAL.
 */
int czk_porep_interactive_challenges(uint64_t *out, const czk_porep_type *type,
                                     const uint8_t replica_id[32], const uint8_t seed[32],
                                     uint32_t k, czk_err *err);

/* Synthetic challenges a synthetic PoRep commits to, for the largest sectors
 * (rust-fil-proofs@87348a74:storage-proofs-porep/src/stacked/vanilla/challenges.rs:216). */
#define CZK_POREP_SYNTH_DEFAULT_COUNT (1u << 18)

/* N, the synthetic challenges of a sector of `nodes` nodes: min(nodes, 2^18). */
static inline uint32_t czk_porep_synth_count(uint64_t nodes) {
    return nodes < CZK_POREP_SYNTH_DEFAULT_COUNT ? (uint32_t)nodes : CZK_POREP_SYNTH_DEFAULT_COUNT;
}

/*
 * Synthetic challenges s = first … first + count − 1 of a sector of `nodes` nodes (2 … 2^32 −
 * 1) for replica_id and comm_r (see the top): out[i] is synthetic challenge first + i. Any
 * N the caller has in mind bounds s; this does not (rust-fil-proofs' tests use N = 21). Cost:
 * one keyed BLAKE2b and 32·count bytes of ChaCha20. Returns CZK_OK, CZK_EINVAL (nodes out of
 * range, or first + count beyond the 2^27 challenges a u32 byte offset reaches) or
 * CZK_EINTERNAL (OpenSSL failed).
 */
int czk_porep_synth_set(uint64_t *out, uint64_t nodes, const uint8_t replica_id[32],
                        const uint8_t comm_r[32], uint32_t first, uint32_t count, czk_err *err);

/*
 * The synthetic indexes (each < n_synth) that the seed selects for PoRep challenges j =
 * first … first + count − 1 of a proof: out[i] is challenge first + i's. Returns CZK_OK,
 * CZK_EINVAL (n_synth = 0, or first + count beyond 2^30) or CZK_EINTERNAL.
 */
int czk_porep_synth_select(uint32_t *out, uint32_t n_synth, const uint8_t replica_id[32],
                           const uint8_t seed[32], uint32_t first, uint32_t count, czk_err *err);

/*
 * The synthetic challenges of partition `k` of a synthetic type: out[i] for i < type->challenges
 * is the node of challenge j = k·challenges + i, and synth_index[i] (unless synth_index is NULL)
 * the synthetic challenge it was selected as. Returns CZK_OK, CZK_EINVAL (k ≥ partitions, or a
 * type that is not synthetic) or CZK_EINTERNAL.
 */
int czk_porep_synthetic_challenges(uint64_t *out, uint32_t *synth_index, const czk_porep_type *type,
                                   const uint8_t replica_id[32], const uint8_t comm_r[32],
                                   const uint8_t seed[32], uint32_t k, czk_err *err);

/* CZK_OK for the types whose challenges czk derives (interactive and synthetic); else
 * CZK_EUNSUPPORTED with a message that says why (non-interactive PoRep). */
int czk_porep_type_supported(const czk_porep_type *type, czk_err *err);

/*
 * The challenges of partition `k` as the type derives them: interactive (V1, V1_1) from
 * replica_id and seed, synthetic from replica_id, comm_r and seed. Non-interactive PoRep is
 * refused with CZK_EUNSUPPORTED, saying why. Returns CZK_OK, CZK_EINVAL (k ≥ partitions),
 * CZK_EUNSUPPORTED or CZK_EINTERNAL.
 */
int czk_porep_challenges(uint64_t *out, const czk_porep_type *type, const uint8_t replica_id[32],
                         const uint8_t comm_r[32], const uint8_t seed[32], uint32_t k,
                         czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_SPEC_POREP_TYPES_H */
