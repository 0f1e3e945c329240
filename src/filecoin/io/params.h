/*
 * Filecoin's official Groth16 parameter files (v28): their names, where they are looked up, and
 * a cheap check that a file's vector lengths are the ones a circuit needs.
 *
 * Names (rust-fil-proofs storage-proofs-core/src/parameter_cache.rs): a file is
 *   v28-<cache_prefix>-<hex(SHA256(identifier))>.params | .vk | .meta
 * where the identifier is the public-parameter set's `identifier()` string:
 *   PoSt  (storage-proofs-post/src/fallback/vanilla.rs)
 *     "FallbackPoSt::PublicParams{sector_size: S, challenge_count: C, sector_count: N}"
 *     with (C, N) = (1, 66) for WinningPoSt (filecoin-proofs/src/parameters.rs turns its 66
 *     challenges of one sector into 66 one-challenge slots) and (10, 2 | 2349 | 2300) for
 *     WindowPoSt (constants.rs WINDOW_POST_SECTOR_COUNT);
 *   PoRep (storage-proofs-porep/src/stacked/vanilla/{params,graph}.rs, core drgraph.rs)
 *     "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8
 *     base_graph: drgraph::BucketGraph{size: NODES; degree: 6; hasher: poseidon_hasher} },
 *     challenges: LayerChallenges { layers: L, max_count: K }, tree: TREE }" (one line), with
 *     L = 2, K = 2 below 32 GiB and L = 11, K = 18 (176 challenges over 10 partitions) at 32 and
 *     64 GiB. Synthetic PoRep has the same challenge count per partition and so the same file;
 *     non-interactive PoRep is not covered here.
 *   SnapDeals (storage-proofs-update/src/vanilla.rs:77-83)
 *     "empty_sector_update::PublicParams{ sector_nodes: NODES }"
 * and the cache prefix is "proof-of-spacetime-fallback-TREE",
 * "stacked-proof-of-replication-TREE-sha256_hasher" or "empty-sector-update-TREE"
 * (compound.rs:24-32), TREE = "merkletree-poseidon_hasher-8-S-T"
 * (sub and top arities of the sector size's tree_r_last: 8-0-0, 8-8-0 at 32 GiB, 8-8-2 at 64
 * GiB). All fifteen PoSt and PoRep names this builds equal the names in rust-fil-proofs'
 * parameters.json (params_test.c holds them).
 *
 * Directory: rust-fil-proofs reads FIL_PROOFS_PARAMETER_CACHE and defaults to
 * /var/tmp/filecoin-proof-parameters. Library code reads no environment: the caller passes the
 * variable's value (or NULL) in.
 *
 * Header check (doc/FILECOIN.md §7): a .params file is the .vk (864 bytes of fixed
 * points, u32-BE n_ic, n_ic G1 points) followed by five vectors h, l, a, b_g1 (G1, 96 bytes)
 * and b_g2 (G2, 192 bytes), each behind a u32-BE length (doc/FORMATS.md §3.2). Reading only the six
 * length prefixes and the file size tells whether the official setup was made for the circuit
 * czk synthesises (its row count, aux count and the three densities) without reading a point.
 *
 * Thread-safety: no global state; everything is reentrant. Nothing here is secret.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb).
 */
#ifndef CZK_FILECOIN_IO_PARAMS_H
#define CZK_FILECOIN_IO_PARAMS_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/gadgets/cs.h"
#include "filecoin/spec/sector.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* parameter_cache.rs VERSION: bumped upstream whenever the circuits change. */
#define CZK_PARAMS_VERSION 28
/* The directory used when neither an override nor FIL_PROOFS_PARAMETER_CACHE is given. */
#define CZK_PARAMS_DEFAULT_DIR "/var/tmp/filecoin-proof-parameters"
/* The environment variable a caller (CLI, daemon) reads and passes to czk_params_cache_dir. */
#define CZK_PARAMS_ENV_VAR "FIL_PROOFS_PARAMETER_CACHE"

#define CZK_PARAMS_IDENTIFIER_MAX 320 /* the longest identifier (64 GiB PoRep) is 276 bytes */
#define CZK_PARAMS_NAME_MAX 192       /* the longest file name is 151 bytes */

/* Which circuit a parameter file is for. */
typedef enum czk_params_circuit {
    CZK_PARAMS_WINNING_POST = 1,
    CZK_PARAMS_WINDOW_POST = 2,
    CZK_PARAMS_POREP = 3, /* interactive (and synthetic) StackedDRG, one partition */
    CZK_PARAMS_SNAP = 4,  /* SnapDeals EmptySectorUpdate (TreeD SHA-256), one partition */
} czk_params_circuit;

/* The three files of one parameter set. */
typedef enum czk_params_ext {
    CZK_PARAMS_EXT_PARAMS = 0, /* the proving key (VK + five vectors) */
    CZK_PARAMS_EXT_VK = 1,     /* the verifying key */
    CZK_PARAMS_EXT_META = 2,   /* JSON {"sector_size": N} */
} czk_params_ext;

/* The identity of one parameter set. */
typedef struct czk_params_id {
    czk_params_circuit circuit;
    uint64_t sector_size;
    char identifier[CZK_PARAMS_IDENTIFIER_MAX]; /* the string that is hashed */
    uint8_t digest[32];                         /* SHA256(identifier) */
    char cache_id[CZK_PARAMS_NAME_MAX];         /* <cache_prefix>-<hex digest> */
} czk_params_id;

/*
 * The parameter set of `circuit` at `sector_size` (2 KiB, 8 MiB, 512 MiB, 32 GiB or 64 GiB).
 * Out: *out (zeroed on error). Returns CZK_OK, CZK_EINVAL for an unknown circuit,
 * CZK_EUNSUPPORTED for another size, CZK_EINTERNAL if SHA-256 fails.
 */
int czk_params_id_get(czk_params_id *out, czk_params_circuit circuit, uint64_t sector_size,
                      czk_err *err);

/*
 * The parameter set a registered PoSt type proves with (WindowPoSt API 1.0 and 1.2 share one).
 * Returns as czk_params_id_get.
 */
int czk_params_id_for_post(czk_params_id *out, const czk_vanilla_post_type *type, czk_err *err);

/*
 * The file name "v28-<cache_id>.<ext>" into out[0..cap). Returns CZK_OK, or CZK_EINVAL for an
 * unknown ext or when it does not fit (out is then "").
 */
int czk_params_file_name(char *out, size_t cap, const czk_params_id *id, czk_params_ext ext,
                         czk_err *err);

/*
 * The directory to search, as rust-fil-proofs picks it: `override_dir` when non-NULL and
 * non-empty, else `env_value` (the caller's getenv(CZK_PARAMS_ENV_VAR)) when non-NULL and
 * non-empty, else CZK_PARAMS_DEFAULT_DIR. Returns one of the three pointers (never NULL).
 * An empty value counts as unset: upstream would then look in the working directory, which is
 * never what an operator meant.
 */
const char *czk_params_cache_dir(const char *override_dir, const char *env_value);

/*
 * The path of one file of `id` in the directory czk_params_cache_dir picks, into
 * out[0..cap); the file must exist and be a regular file. Only that one directory is searched
 * (as upstream: a wrong cache directory should fail loudly rather than find a stale copy).
 * Returns CZK_OK; CZK_ENOTFOUND with a message naming the path searched, the file name
 * expected and where the directory came from; CZK_EIO when it exists but is not a regular
 * file or cannot be examined; CZK_EINVAL when the path does not fit in cap.
 */
int czk_params_find(char *out, size_t cap, const czk_params_id *id, czk_params_ext ext,
                    const char *override_dir, const char *env_value, czk_err *err);

/* ---- header check -------------------------------------------------------------------- */

/* What a circuit needs from its parameters: the synthesised counts (czk_cs_get_stats). */
typedef struct czk_params_expect {
    uint64_t n_rows;   /* the circuit's rows, without the prover's per-input rows */
    uint64_t n_inputs; /* public inputs, ONE included */
    uint64_t n_aux;
    uint64_t a_aux_density;   /* aux variables that occur in A */
    uint64_t b_input_density; /* inputs that occur in B (1 in every Filecoin circuit) */
    uint64_t b_aux_density;   /* aux variables that occur in B */
} czk_params_expect;

/* The six vector lengths of a .params file (ic is the .vk's n_ic). */
typedef struct czk_params_lengths {
    uint64_t ic, h, l, a, b_g1, b_g2;
} czk_params_lengths;

/* Takes the counts of a synthesised circuit. */
void czk_params_expect_from_stats(czk_params_expect *out, const czk_cs_stats *stats);

/*
 * The lengths and byte sizes bellperson's generator gives a circuit with these counts:
 * ic = inputs, h = n − 1 with n the smallest power of two ≥ rows + inputs (the domain covers the
 * prover's per-input rows), l = aux, a = inputs + a_aux_density, b_g1 = b_g2 = b_input_density +
 * b_aux_density; params_size = 868 + 96·ic + 5·4 + 96·(h + l + a + b_g1) + 192·b_g2 and
 * vk_size = 868 + 96·ic. Any output may be NULL. Returns CZK_OK, or CZK_EINVAL for counts no
 * file can hold (no input, a density above its count, a length ≥ 2^32).
 */
int czk_params_expected(czk_params_lengths *lengths, uint64_t *params_size, uint64_t *vk_size,
                        const czk_params_expect *expect, czk_err *err);

/*
 * Reads the six length prefixes of the .params file `path` (pread at the offsets the previous
 * lengths give; no point is read). Out: *lengths, *size (the file's size). Returns CZK_OK;
 * CZK_EIO (cannot open or stat, not a regular file); CZK_EFORMAT when a prefix lies beyond the
 * end of the file or the file's size is not what the lengths say (truncated, or trailing
 * bytes), naming the file, the vector and the sizes.
 */
int czk_params_header_read(czk_params_lengths *lengths, uint64_t *size, const char *path,
                           czk_err *err);

/*
 * Checks that the .params file `path` was made for a circuit with the counts `expect`: each
 * length prefix, walked in file order, must equal the expected one, and the file must be
 * exactly the expected size. Returns CZK_OK; CZK_ELENGTH for the first vector whose length
 * differs (the message names the file, the vector, the expected and the found length);
 * CZK_EFORMAT for a truncated file or trailing bytes (naming the offset and both sizes);
 * CZK_EIO; CZK_EINVAL for impossible counts.
 */
int czk_params_header_check(const char *path, const czk_params_expect *expect, czk_err *err);

/*
 * The same for a .vk file: n_ic must be the number of inputs (ONE included) and the file
 * 868 + 96·n_ic bytes. Returns as czk_params_header_check.
 */
int czk_params_vk_check(const char *path, const czk_params_expect *expect, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_IO_PARAMS_H */
