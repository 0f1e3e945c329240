/*
 * Filecoin's sectors as the proofs see them, shared by every Filecoin module: the sector sizes
 * and their tree_r_last shapes, the registered PoSt proof types, the decoded form of a PoSt
 * vanilla proof (czk_vanilla_sector: what io/vanilla.h decodes, testgen/vanilla_gen.h makes
 * and the PoSt circuit consumes), the PoSt challenges, and the prover id of a miner.
 * No parsing here (io/vanilla.h reads and writes the bincode) and no circuits.
 *
 * Challenges (rust-fil-proofs `storage-proofs-post/src/fallback/vanilla.rs`, `utils.rs`): the
 * n-th challenge of a sector is leaf `LE64(SHA256(randomness ‖ LE64(sector_id) ‖ LE64(idx))[0..8])
 * mod (sector_size / 32)`, where idx = sector_index · challenge_count + n under API 1.0/1.1 and
 * idx = n under API 1.2. WinningPoSt picks its sector with `LE64(SHA256(prover_id ‖ randomness
 * ‖ LE64(k))[0..8]) mod sector_set_len`.
 *
 * Thread-safety: no global state; any number of threads may call anything here at once on
 * distinct outputs. Nothing here is constant-time (all inputs are public).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * rust-filecoin-proofs-api@0e64ce8d, filecoin-ffi@de13e648, curio@e0294b0f (2026-08-20).
 */
#ifndef CZK_FILECOIN_SPEC_SECTOR_H
#define CZK_FILECOIN_SPEC_SECTOR_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Levels of the deepest tree (64 GiB: 9 base levels of arity 8, one sub of 8, one top of 2). */
#define CZK_VANILLA_MAX_LEVELS 11
/* Siblings per level of the widest arity (8). */
#define CZK_VANILLA_MAX_SIBLINGS 7
/* WinningPoSt's challenge count, the largest a sector proof may carry. */
#define CZK_VANILLA_MAX_CHALLENGES 66

/* Which PoSt, as rust-fil-proofs' PoStType. */
typedef enum czk_vanilla_post_kind {
    CZK_VANILLA_POST_WINNING = 1,
    CZK_VANILLA_POST_WINDOW = 2,
} czk_vanilla_post_kind;

/* Proofs API version, which only changes how the challenge index is formed. */
typedef enum czk_vanilla_api {
    CZK_VANILLA_API_V1_0 = 0,
    CZK_VANILLA_API_V1_1 = 1,
    CZK_VANILLA_API_V1_2 = 2,
} czk_vanilla_api;

/* The MerkleProof variant a tree shape serialises as (the bincode tag). */
typedef enum czk_vanilla_variant {
    CZK_VANILLA_SINGLE = 0,
    CZK_VANILLA_SUB = 1,
    CZK_VANILLA_TOP = 2,
} czk_vanilla_variant;

/* The variant of a tree whose sub and top levels have these arities (0: no such level). */
static inline czk_vanilla_variant czk_vanilla_variant_of(uint32_t sub_arity, uint32_t top_arity) {
    return top_arity != 0 ? CZK_VANILLA_TOP : sub_arity != 0 ? CZK_VANILLA_SUB : CZK_VANILLA_SINGLE;
}

/* The tree_r_last shape of one sector size. */
typedef struct czk_vanilla_shape {
    uint64_t sector_size; /* bytes */
    uint64_t nodes;       /* leaves: sector_size / 32 */
    uint32_t base_levels; /* levels of arity 8 in each base tree */
    uint32_t sub_arity;   /* 8, or 0 when there is no sub level */
    uint32_t top_arity;   /* 2, or 0 when there is no top level */
    uint32_t levels;      /* base_levels + (sub_arity != 0) + (top_arity != 0) */
    czk_vanilla_variant variant;
} czk_vanilla_shape;

/* A registered PoSt proof type, everything the decoder and the challenges need from it. */
typedef struct czk_vanilla_post_type {
    uint32_t abi_id; /* Go abi.RegisteredPoStProof number, as in a cuzk ProveRequest */
    czk_vanilla_post_kind kind;
    czk_vanilla_api api;
    czk_vanilla_shape shape;
    uint32_t challenge_count; /* inclusion proofs per sector proof: 66 winning, 10 window */
    uint32_t sector_count;    /* sectors per partition: 1 winning; window 2, 2349 or 2300 */
} czk_vanilla_post_type;

/* One Merkle path level: the arity−1 siblings in order and the position of the path's own
 * node among the arity children. */
typedef struct czk_vanilla_level {
    czk_fr sib[CZK_VANILLA_MAX_SIBLINGS]; /* the first arity−1 are used */
    uint32_t arity;                       /* 8 or 2 */
    uint32_t index;                       /* < arity */
} czk_vanilla_level;

/* One inclusion proof into tree_r_last. Levels run from the leaf up: the base levels, then the
 * sub level, then the top level. */
typedef struct czk_vanilla_inclusion {
    czk_fr leaf;
    czk_fr root;
    uint64_t leaf_index; /* the challenged leaf the path proves, from its indices */
    uint32_t n_levels;
    czk_vanilla_level level[CZK_VANILLA_MAX_LEVELS];
} czk_vanilla_inclusion;

/* One decoded FallbackPoStSectorProof. */
typedef struct czk_vanilla_sector {
    uint64_t sector_id;
    czk_fr comm_r;
    czk_fr comm_c;
    czk_fr comm_r_last;
    size_t n_inclusions;              /* = the post type's challenge_count */
    czk_vanilla_inclusion *inclusion; /* owned, czk_malloc'ed; freed by czk_vanilla_sector_clear */
} czk_vanilla_sector;

/* The sector sizes Filecoin's proofs come in, ascending, and their names as commands and
 * circuit ids spell them ("2KiB", "8MiB", "512MiB", "32GiB", "64GiB"). */
#define CZK_VANILLA_N_SIZES 5
extern const uint64_t czk_vanilla_sizes[CZK_VANILLA_N_SIZES];
extern const char *const czk_vanilla_size_names[CZK_VANILLA_N_SIZES];

/* The index of a size in those tables, by bytes or by name (case-insensitive); −1 when it
 * is none of them. */
int czk_vanilla_size_index(uint64_t sector_size);
int czk_vanilla_size_index_by_name(const char *name);

/*
 * The tree shape of a sector size (2 KiB, 8 MiB, 512 MiB, 32 GiB or 64 GiB).
 * Out: *out. Returns CZK_OK, or CZK_EUNSUPPORTED for any other size.
 */
int czk_vanilla_shape_for_size(czk_vanilla_shape *out, uint64_t sector_size, czk_err *err);

/*
 * The PoSt type of a Go abi.RegisteredPoStProof number: 0–4 WinningPoSt V1 (API 1.0), 5–9
 * WindowPoSt V1 (API 1.0), 10–14 WindowPoSt "V1_1" in Go, which proofs-api runs as V1_2 (API
 * 1.2); each group in the order 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB.
 * Returns CZK_OK, or CZK_EUNSUPPORTED for any other number.
 */
int czk_vanilla_post_type_from_abi(czk_vanilla_post_type *out, uint64_t abi_id, czk_err *err);

/* Frees what czk_vanilla_sector_decode (io/vanilla.h) allocated and zeroes *s; NULL is a no-op. */
void czk_vanilla_sector_clear(czk_vanilla_sector *s);

/*
 * The challenge index fed to the leaf derivation for challenge `n` of the sector at
 * `sector_index` (its position among all sectors proved together: partition_index ·
 * sector_count + i for WindowPoSt): sector_index · challenge_count + n under API 1.0 and 1.1,
 * n under 1.2. Returns CZK_OK, CZK_EINVAL for n ≥ challenge_count or an unknown api, or
 * CZK_ERANGE when the index overflows 64 bits.
 */
int czk_vanilla_challenge_index(uint64_t *out, czk_vanilla_api api, uint64_t sector_index,
                                uint64_t challenge_count, uint64_t n, czk_err *err);

/*
 * The challenged leaf: LE64(SHA256(randomness ‖ LE64(sector_id) ‖ LE64(challenge_index))[0..8])
 * mod nodes. `randomness` is 32 bytes, a little-endian field element that must be < r (as
 * rust-fil-proofs' as_safe_commitment demands). Returns CZK_OK, CZK_ERANGE for randomness ≥ r,
 * CZK_EINVAL for nodes = 0, CZK_EINTERNAL if SHA-256 fails.
 */
int czk_vanilla_leaf_challenge(uint64_t *out, const uint8_t randomness[32], uint64_t sector_id,
                               uint64_t challenge_index, uint64_t nodes, czk_err *err);

/*
 * WinningPoSt's k-th challenged sector: LE64(SHA256(prover_id ‖ randomness ‖ LE64(k))[0..8]) mod
 * sector_set_len, an index into the sorted sector set. Both 32-byte values must be < r.
 * Returns as czk_vanilla_leaf_challenge (CZK_EINVAL for sector_set_len = 0).
 */
int czk_vanilla_sector_challenge(uint64_t *out, const uint8_t randomness[32],
                                 const uint8_t prover_id[32], uint64_t k, uint64_t sector_set_len,
                                 czk_err *err);

/* The prover id of a miner actor id as filecoin-ffi forms it: the unsigned LEB128 of the id,
 * left-aligned in 32 zero bytes (always < r). */
void czk_vanilla_prover_id(uint8_t out[32], uint64_t miner_id);

/*
 * Checks a decoded sector proof against the public data: every inclusion proof's root is
 * comm_r_last, and the n-th one proves the n-th challenged leaf for `randomness` and
 * `sector_index` (see czk_vanilla_challenge_index). It does not hash the paths (that needs
 * Poseidon). Returns CZK_OK, CZK_EVERIFY naming the first mismatch, or as
 * czk_vanilla_leaf_challenge.
 */
int czk_vanilla_sector_check(const czk_vanilla_sector *s, const czk_vanilla_post_type *type,
                             const uint8_t randomness[32], uint64_t sector_index, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_SPEC_SECTOR_H */
