/*
 * The output of Filecoin's SealCommitPhase1 (C1), the input of the C2 proof: filecoin-ffi's
 * serde JSON of filecoin-proofs-api `SealCommitPhase1Output`, alone or inside Curio's wrapper
 * {"SectorNum": u64, "Phase1Out": base64(that JSON), "SectorSize": u64}.
 *
 *   SealCommitPhase1Output { registered_proof: "StackedDrg2KiBV1_1" (porep_types.h names),
 *     vanilla_proofs: { "<size variant>": [[Proof × challenges] × partitions] },
 *     comm_r, comm_d, replica_id, seed, ticket }          every 32-byte value: 32 integers
 *   Proof { comm_d_proofs: MerkleProof (SHA-256, binary), comm_r_last_proof: MerkleProof
 *     (Poseidon, the sector's tree), replica_column_proofs: { c_x: ColumnProof,
 *     drg_parents: [ColumnProof × 6], exp_parents: [ColumnProof × 8] },
 *     labeling_proofs: [LabelingProof × layers], encoding_proof: EncodingProof }
 *   ColumnProof { column: { index: u32, rows: [Domain × layers], _h: null },
 *     inclusion_proof: MerkleProof }
 *   LabelingProof { parents: [Domain × 37], layer_index: u32 (1-based), node: u64 }
 *   EncodingProof { parents: [Domain × 37], layer_index: u32, node: u64 }
 *   MerkleProof { data: { Single: { root, leaf, path } } | { Sub: { base_proof, sub_proof,
 *     root, leaf } } | { Top: { base_proof, sub_proof, top_proof, root, leaf } } }
 *   InclusionPath { path: [ { hashes: [Domain × (arity − 1)], index: usize } ], leaf to root }
 *
 * Rust writes keys in declaration order; Curio's Go re-encoding writes them in another order;
 * the parser depends on no order. It is strict: a missing or unknown key, a wrong type, a
 * count that is not the one the registered proof's shape dictates, an index ≥ arity or a
 * 32-byte value that is not a canonical field element (≥ r) is an error whose message names
 * the JSON path of the fault ("vanilla_proofs.StackedDrg2KiBV1[0][1].comm_d_proofs.data.Single
 * .path.path[3].index"). Counts are checked against the shape before anything is allocated.
 *
 * Values are kept as czk_fr (Montgomery form; the JSON holds canonical little-endian bytes);
 * the top-level commitments also as their 32 bytes. seed and ticket are chain randomness, not
 * field elements (rust-fil-proofs only hashes them), so they are kept as any 32 bytes.
 *
 * Thread-safety: no global state; distinct objects may be used from distinct threads.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * rust-filecoin-proofs-api@0e64ce8d, filecoin-ffi@de13e648, curio@e0294b0f (2026-08-20).
 */
#ifndef CZK_FILECOIN_IO_C1_H
#define CZK_FILECOIN_IO_C1_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/spec/sector.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The most levels any C1 Merkle proof has (the 64 GiB comm_d tree). */
#define CZK_C1_MAX_LEVELS CZK_POREP_MAX_COMM_D_LEVELS

/* One MerkleProof: Single (path only), Sub (base ‖ sub) or Top (base ‖ sub ‖ top). Levels run
 * leaf to root; level[i].arity is 2 for every comm_d level and for a Top proof's last level,
 * else 8. */
typedef struct czk_c1_merkle {
    czk_vanilla_variant variant;
    uint32_t n_base, n_sub, n_top; /* elements of base_proof (Single: path), sub, top */
    uint32_t n_levels;             /* n_base + n_sub + n_top */
    czk_fr root, leaf;
    czk_vanilla_level level[CZK_C1_MAX_LEVELS];
} czk_c1_merkle;

/* The node a proof's path indices lead to: Σ index_l · Π_{m<l} arity_m. */
uint64_t czk_c1_merkle_node(const czk_c1_merkle *m);

typedef struct czk_c1_column {
    uint32_t index;                    /* the node */
    uint32_t n_rows;                   /* = layers */
    czk_fr rows[CZK_POREP_MAX_LAYERS]; /* the node's label in layer 1 … layers */
    czk_c1_merkle inclusion;           /* into tree_c (root comm_c) */
} czk_c1_column;

/* LabelingProof and EncodingProof (same fields). */
typedef struct czk_c1_labeling {
    czk_fr parents[CZK_POREP_PARENTS];
    uint32_t layer_index; /* 1-based */
    uint64_t node;
} czk_c1_labeling;

/* One challenge's vanilla proof (storage-proofs-porep stacked::vanilla::Proof). */
typedef struct czk_c1_proof {
    czk_c1_merkle comm_d_proof;      /* data leaf into tree_d (root comm_d) */
    czk_c1_merkle comm_r_last_proof; /* replica leaf into tree_r_last (root comm_r_last) */
    czk_c1_column c_x;
    czk_c1_column drg_parents[CZK_POREP_DRG_PARENTS];
    czk_c1_column exp_parents[CZK_POREP_EXP_PARENTS];
    uint32_t n_labeling; /* = layers */
    czk_c1_labeling labeling[CZK_POREP_MAX_LAYERS];
    czk_c1_labeling encoding;
} czk_c1_proof;

typedef struct czk_c1 {
    const czk_porep_type *type;
    uint32_t n_partitions, n_challenges; /* = type->partitions, type->challenges */
    czk_c1_proof *proofs;                /* n_partitions · n_challenges, partition-major; owned */
    uint8_t comm_r[32], comm_d[32], replica_id[32], seed[32], ticket[32];
    /* Curio's wrapper, when the input had one */
    int wrapped;
    uint64_t sector_num, wrapper_sector_size;
} czk_c1;

/* The proof of challenge i of partition k. */
static inline czk_c1_proof *czk_c1_at(const czk_c1 *c1, uint32_t k, uint32_t i) {
    return &c1->proofs[(size_t)k * c1->n_challenges + i];
}

/*
 * Allocates c1->proofs for `type` (zeroed), sets the type and counts, and zeroes the rest.
 * For builders (the sealer). Returns CZK_OK or CZK_ENOMEM.
 */
int czk_c1_init(czk_c1 *c1, const czk_porep_type *type, czk_err *err);

/*
 * Sets the structural fields of one challenge proof for `type`: every Merkle proof's variant,
 * level counts and arities, n_rows, n_labeling and the layer indices (labeling l + 1,
 * encoding = layers). Values, path indices, column indices and nodes are left as they are.
 * For builders, after czk_c1_init.
 */
void czk_c1_proof_set_shape(czk_c1_proof *p, const czk_porep_type *type);

/* Frees what a czk_c1 owns and zeroes it; NULL is a no-op. */
void czk_c1_clear(czk_c1 *c1);

/*
 * Parses `len` bytes: the C1 JSON, or Curio's wrapper around it (recognised by its keys).
 * `what` names the input in messages (a file name, "request porep-1-2"). Out: *out, freed
 * with czk_c1_clear; on error *out is cleared. Returns CZK_OK, CZK_EFORMAT (not JSON, a bad
 * key, type, count, integer or base64, or an input too large for its type, with the JSON
 * path), CZK_ERANGE (a value ≥ r, with the path), CZK_EUNSUPPORTED (an unknown registered
 * proof, a vanilla_proofs key other than the proof's size variant, or a registered proof
 * whose sector size is not the wrapper's SectorSize) or CZK_ENOMEM.
 */
int czk_c1_parse(czk_c1 *out, const uint8_t *buf, size_t len, const char *what, czk_err *err);

/*
 * Writes c1 as filecoin-ffi's JSON (compact, keys in Rust's declaration order), wrapped in
 * Curio's wrapper when `wrap` (SectorNum = sector_num, SectorSize = the type's). Out: *out
 * (czk_malloc'ed, NUL-terminated, the caller czk_frees it) and *out_len (without the NUL).
 * Returns CZK_OK, CZK_EINVAL (counts, variants, arities, path indices or layer indices
 * that do not fit the type, or a commitment or replica_id ≥ r: anything czk_c1_parse would
 * refuse) or CZK_ENOMEM.
 */
int czk_c1_write(char **out, size_t *out_len, const czk_c1 *c1, int wrap, uint64_t sector_num,
                 czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_IO_C1_H */
