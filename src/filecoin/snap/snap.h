/*
 * Filecoin's SnapDeals proof: the EmptySectorUpdate partition circuit of rust-fil-proofs
 * (storage-proofs-update/src/circuit.rs, the variant whose TreeD is a binary SHA-256 tree, which
 * filecoin-proofs' update API proves for the registered update proofs StackedDrg{2KiB, 8MiB,
 * 512MiB, 32GiB, 64GiB}V1), constraint-exact: the same inputs and aux in the same order, the
 * same rows in the same order, the same linear combinations (doc/FILECOIN.md §1).
 *
 * A SnapDeals update re-encodes a sealed sector's replica with new data: every node c of the new
 * replica is label_r_old(c) + data(c)·rho(c), with phi = H(comm_d_new ‖ comm_r_old) and
 * rho(c) = H(phi ‖ c >> (log2 nodes − h)), H being Poseidon-2 with the "gen randomness" domain
 * tag 2^40 (neptune's HashType::Custom(Arbitrary(1))). Partition k proves that for the
 * challenges Poseidon-2(comm_r_new ‖ digest index) derives (all inside the k-th 1/partitions of
 * the sector): the three Merkle paths (TreeROld, TreeDNew up to this partition's apex leaves,
 * TreeRNew) and the encoding hold, comm_r = H(comm_c ‖ root) for both replicas, and the apex
 * leaves hash up to comm_d_new.
 *
 * Public inputs, after ONE: k_and_h_select = k | h_select << log2(partitions) (h_select = 2^i
 * for h = hs[i]), comm_r_old, comm_d_new, comm_r_new (circuit.rs PublicInputs::to_vec).
 *
 * Thread-safety: no global state but the process-wide Poseidon constants (built once under
 * pthread_once); a czk_cs is used by one thread at a time.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), neptune 11.0.0
 * (@ef8a821).
 */
#ifndef CZK_FILECOIN_SNAP_SNAP_H
#define CZK_FILECOIN_SNAP_SNAP_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/gadgets/por.h"
#include "filecoin/spec/sector.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The number of allowed h values (constants.rs hs()). */
#define CZK_SNAP_N_HS 6
/* Levels of a Merkle path, at most: TreeD of 64 GiB has 2^31 leaves. */
#define CZK_SNAP_MAX_LEVELS 31
/* Apex leaves per partition and challenges per partition, at most. */
#define CZK_SNAP_MAX_APEX 128
#define CZK_SNAP_MAX_CHALLENGES 86
/* Public inputs of a partition, ONE included. */
#define CZK_SNAP_N_INPUTS 5

/* The circuit of one sector size (vanilla.rs PublicParams and the TreeR shape). */
typedef struct czk_snap_shape {
    uint64_t sector_size;       /* bytes */
    uint64_t nodes;             /* sector_size / 32 */
    uint32_t challenge_bit_len; /* log2(nodes): TreeD's height */
    uint32_t challenges;        /* per partition: 10, or 86 above 16 MiB */
    uint32_t partitions;        /* 1, 4 (≤ 16 MiB) or 16 */
    uint32_t partition_bit_len; /* log2(partitions) */
    uint32_t apex_leaves;       /* per partition: 8 (≤ 8 KiB) or 128 */
    uint32_t apex_leaf_bit_len; /* log2(apex_leaves) */
    uint32_t hs[CZK_SNAP_N_HS]; /* the allowed h: all 1 (≤ 32 KiB) or 7 … 12 */
    czk_por_shape tree_r;       /* TreeROld and TreeRNew: arity-8 base, sub and top levels */
    czk_vanilla_variant tree_r_variant; /* how its MerkleProofs serialise */
} czk_snap_shape;

/* One Merkle inclusion proof (storage-proofs-core MerkleProof), levels from the leaf up. */
typedef struct czk_snap_inclusion {
    czk_fr leaf;
    czk_fr root;
    uint64_t leaf_index; /* the leaf the path's indices name (MerkleProof::path_index) */
    uint32_t n_levels;
    czk_vanilla_level level[CZK_SNAP_MAX_LEVELS];
} czk_snap_inclusion;

/* One challenge's proofs (vanilla.rs ChallengeProof). */
typedef struct czk_snap_challenge_proof {
    czk_snap_inclusion r_old; /* TreeROld */
    czk_snap_inclusion d_new; /* TreeDNew: binary SHA-256, up to comm_d_new */
    czk_snap_inclusion r_new; /* TreeRNew */
} czk_snap_challenge_proof;

/* One decoded vanilla PartitionProof<TreeR> (vanilla.rs). */
typedef struct czk_snap_partition_proof {
    czk_fr comm_c;
    uint32_t n_apex;
    czk_fr apex[CZK_SNAP_MAX_APEX]; /* this partition's apex leaves of TreeDNew */
    uint32_t n_challenges;
    czk_snap_challenge_proof *challenge; /* owned, czk_malloc'ed; czk_snap_partition_proof_clear */
} czk_snap_partition_proof;

/* The public data of an update proof (vanilla.rs PublicInputs without k): the commitments as
 * 32-byte little-endian field elements, and h. */
typedef struct czk_snap_public {
    uint8_t comm_r_old[32];
    uint8_t comm_d_new[32];
    uint8_t comm_r_new[32];
    uint32_t h; /* one of shape->hs; 10 (h_default) in production */
} czk_snap_public;

/* The shape of `sector_size`: 2 KiB, 8 MiB, 512 MiB, 32 GiB or 64 GiB (the registered update
 * proofs), or one of the sizes rust-fil-proofs keeps for its tests (1, 4, 8, 16 and 32 KiB, 16
 * MiB), which have no parameter files but fix constraint counts its tests assert. Returns
 * CZK_OK or CZK_EUNSUPPORTED (err filled). */
int czk_snap_shape_init(czk_snap_shape *out, uint64_t sector_size, czk_err *err);

/* 1 when the shape is one czk_snap_shape_init makes or one of the same form (paths that use
 * exactly the challenge's bits, within this header's bounds), else 0. */
int czk_snap_shape_valid(const czk_snap_shape *shape);

/* The arity of TreeR's level l: base levels, then the sub level, then the top level. */
uint32_t czk_snap_tree_r_arity(const czk_por_shape *tree_r, uint32_t l);

/* A TreeD node (filecoin-hashers sha256.rs hash2): SHA-256 of the two 32-byte little-endian
 * values, its top two bits cleared. Returns CZK_OK or CZK_EINTERNAL. */
int czk_snap_tree_d_node(czk_fr *out, const czk_fr *a, const czk_fr *b);

/* Frees what a partition proof owns and zeroes it; NULL is a no-op. */
void czk_snap_partition_proof_clear(czk_snap_partition_proof *p);

/*
 * Poseidon-2 with the "gen randomness" constants (arity 2, domain tag 2^40), the hash of phi,
 * rho and the challenge digests: *out = H(a ‖ b). Returns CZK_OK or CZK_EINTERNAL should the
 * constants fail to build (err filled).
 */
int czk_snap_hash_gen(czk_fr *out, const czk_fr *a, const czk_fr *b, czk_err *err);

/*
 * Partition k's public inputs as compound.rs generate_public_inputs makes them: out[0 … 3] =
 * k_and_h_select, comm_r_old, comm_d_new, comm_r_new (ONE not included). Returns CZK_OK;
 * CZK_EINVAL for k ≥ partitions or an h not in shape->hs; CZK_ERANGE for a commitment ≥ r.
 */
int czk_snap_public_inputs(czk_fr out[4], const czk_snap_shape *shape, const czk_snap_public *pub,
                           uint32_t k, czk_err *err);

/*
 * Partition k's challenges (challenges.rs Challenges::new), shape->challenges of them into out:
 * node indices within the k-th 1/partitions of the sector. Returns CZK_OK, CZK_EINVAL (k) or
 * CZK_EINTERNAL.
 */
int czk_snap_challenges(uint32_t *out, const czk_snap_shape *shape, const czk_fr *comm_r_new,
                        uint32_t k, czk_err *err);

/*
 * Synthesises partition k of the circuit into cs (circuit.rs EmptySectorUpdateCircuit::
 * synthesize). Without values (COUNT, RECORD) pub and vp may be NULL; with values both are
 * needed, and everything the Rust code asserts is checked (the partition paths agree, the
 * encoded leaf equals the proof's TreeRNew leaf), as are the proof's shape and that each path
 * proves its derived challenge. Returns CZK_OK, CZK_EINVAL (set on cs) for a missing, ill-shaped
 * or inconsistent proof or public data, CZK_ERANGE (set on cs) for a commitment ≥ r, or the
 * system's sticky error (CZK_EVERIFY with CZK_CS_CHECK when a row does not hold).
 */
int czk_snap_synthesize(czk_cs *cs, const czk_snap_shape *shape, const czk_snap_public *pub,
                        const czk_snap_partition_proof *vp, uint32_t k);

/*
 * Records partition circuit `shape` (the rows of czk_snap_synthesize without values) into *out
 * and its counts into *stats (may be NULL), as one RECORD-mode system does, with the
 * challenges over pool (NULL: inline; filecoin/gadgets/cs_parts.h): the rows at their final
 * size plus one challenge's a thread. Returns CZK_OK, CZK_EINVAL or CZK_ENOMEM, err filled.
 */
int czk_snap_record(czk_r1cs *out, czk_cs_stats *stats, const czk_snap_shape *shape, czk_pool *pool,
                    czk_err *err);

/*
 * The name of the v28 parameter file of the shape's circuit (params.h's naming, cache prefix
 * "empty-sector-update-merkletree-poseidon_hasher-8-S-T", identifier
 * "empty_sector_update::PublicParams{ sector_nodes: N }", compound.rs:24-32 and vanilla.rs:77-
 * 83) with `ext` (".params", ".vk") appended, into out[0 … cap). Returns CZK_OK, CZK_ELENGTH
 * (cap too small) or CZK_EINTERNAL (SHA-256 failed).
 */
int czk_snap_params_file_name(char *out, size_t cap, const czk_snap_shape *shape, const char *ext,
                              czk_err *err);

/*
 * A partition's rows (input rows excluded) from its shape alone; COUNT gives the same:
 * 12 + log2(partitions) + 3·311 + 2 + 45,379·(apex − 1) + 45,381·log2(partitions) + 1
 * + D·568 + C·(13 + 311 + 2 + 2·(527·octree levels + 313·binary levels + 1) + apex − 1
 * + 45,381·(log2 nodes − log2 partitions − log2 apex) + 1), D the challenge digests.
 */
uint64_t czk_snap_rows(const czk_snap_shape *shape);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_SNAP_SNAP_H */
