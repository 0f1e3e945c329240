/*
 * bellperson (Filecoin) Groth16 files: `.params`, `.vk` and the 192-byte proof.
 *
 * Layouts are doc/FORMATS.md §3.1 (.vk), §3.2 (.params) and §3.3 (proof); points use the zcash
 * encodings of §2.1 (uncompressed in keys, compressed in proofs). In memory a .params file is
 * a czk_groth16_pk with h_basis = CZK_H_MONOMIAL and density = CZK_DENSITY_FILTERED.
 *
 * Files are untrusted. Every reader checks each length against the bytes left in the file
 * before it allocates, so a truncated, corrupted or hostile file costs at most about its own
 * size in memory, and every failure comes back as a negative status with a `czk_err`
 * message that names the file, the field or vector, the point index and the byte offset.
 *
 * Points at infinity, as bellperson (doc/FORMATS.md §3.1–3.3): rejected in the IC vector,
 * in all five .params vectors and in A, B and C of a proof, with CZK_EBADENC. The six fixed
 * VK points (alpha_g1 … delta_g2) are decoded with the full checks and, as in bellperson,
 * infinity is not refused there; a key that degenerate is for key validation to refuse.
 *
 * Thread-safety: every function is reentrant; they share no state.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb).
 */
#ifndef CZK_FORMATS_BELLPERSON_H
#define CZK_FORMATS_BELLPERSON_H

#include <stddef.h>
#include <stdint.h>

#include "formats/key_check.h"
#include "groth16/keys.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Reads a bellperson `.params` file into `pk` (which must not hold arrays: they would leak;
 * pass a zeroed or cleared key). The file is mapped, its whole structure is walked and checked
 * (lengths, trailing bytes, the shape below) before anything is allocated, and then the
 * points are decoded, the big vectors in parallel on `pool` (NULL: on the calling thread).
 * `check` says how much of each point of the five big vectors is checked: CZK_KEY_CHECK_FULL
 * (on the curve and in the subgroup) or CZK_KEY_CHECK_CURVE (on the curve only, as
 * rust-fil-proofs opens its parameters: bellperson's `checked = false`; the subgroup check is
 * most of a G1 decode's cost). The VK points (IC included) always get the full checks.
 *
 * Shape (true of every file bellperson's generator writes; the prover relies on it): at
 * least one IC point; |h| + 1 a power of two; |b_g1| = |b_g2|; |ic| ≤ |a| ≤ |ic| + |l| and
 * |b_g1| ≤ |ic| + |l|. The key gets domain_size = |h| + 1, n_public = |ic| − 1 and
 * n_vars = |ic| + |l|.
 *
 * Returns CZK_OK; CZK_EIO (cannot open, stat or map the file, or it is not a regular file);
 * CZK_EFORMAT (truncated, a length larger than what is left, trailing bytes, bad shape);
 * the point decoder's code (CZK_EFLAGS, CZK_ERANGE, CZK_ENOTONCURVE, CZK_ENOTINGROUP) for a
 * bad point; CZK_EBADENC for a point at infinity where none is allowed; CZK_ENOMEM. On
 * failure `pk` is left zeroed. The lowest-indexed bad point of a vector is the one reported,
 * whatever the number of threads. Variable time.
 */
int czk_bellperson_params_read(czk_groth16_pk *pk, const char *path, czk_key_check check,
                               czk_pool *pool, czk_err *err);

/*
 * Writes `pk` as a bellperson `.params` file, atomically (a temporary file beside `path`,
 * fsync, rename). `pk` must be CZK_H_MONOMIAL + CZK_DENSITY_FILTERED, have the shape that
 * czk_bellperson_params_read accepts (with domain_size, n_public and n_vars as it would set
 * them), vectors of fewer than 2^32 points, and no point at infinity where the reader refuses
 * one. The points are serialised over `pool` (NULL: inline), a chunk at a time. Returns
 * CZK_OK, CZK_EINVAL (a key that does not fit the format; nothing is written), CZK_ENOMEM or
 * CZK_EIO (the file could not be written; `path` is then untouched).
 */
int czk_bellperson_params_write(const char *path, const czk_groth16_pk *pk, czk_pool *pool,
                                czk_err *err);

/*
 * Reads a bellperson `.vk` file (doc/FORMATS.md §3.1) into `vk` (zeroed or cleared, as for
 * params_read). Every point gets the full checks. Returns as czk_bellperson_params_read; on
 * failure `vk` is left zeroed.
 */
int czk_bellperson_vk_read(czk_groth16_vk *vk, const char *path, czk_err *err);

/* Writes `vk` as a `.vk` file, atomically. Returns CZK_OK, CZK_EINVAL (no IC point, more than
 * 2^32 − 1, or an IC point at infinity) or CZK_EIO. */
int czk_bellperson_vk_write(const char *path, const czk_groth16_vk *vk, czk_err *err);

/* ---- the header alone ------------------------------------------------------------------ */

/*
 * The vectors of a .params file in file order (doc/FORMATS.md §3.1-3.2): the .vk part's ic
 * (after 864 bytes of fixed points), then h, l, a, b_g1 and b_g2, each a u32 big-endian point
 * count followed by its points (G1 96 bytes, b_g2 G2 192 bytes, uncompressed). A .vk file is
 * the same up to the end of ic.
 */
enum {
    CZK_BELLPERSON_IC,
    CZK_BELLPERSON_H,
    CZK_BELLPERSON_L,
    CZK_BELLPERSON_A,
    CZK_BELLPERSON_B_G1,
    CZK_BELLPERSON_B_G2,
    CZK_BELLPERSON_N_VECTORS,
};

/* The size of a .params file (n_vectors 6) or .vk file (n_vectors 1) whose first n_vectors
 * vectors have len[0 .. n_vectors) points. Lengths must be below 2^32 (no overflow then). */
uint64_t czk_bellperson_file_size(const uint64_t *len, int n_vectors);

/*
 * Reads the length prefixes of the first n_vectors vectors of the file `path` (6: a .params,
 * 1: a .vk; `kind` names it in messages, e.g. ".params") with pread, reading no point: cheap
 * even for a 100 GB file. Each length is compared, in file order, with want[v] when want is
 * not NULL; each vector must end within the file, and the file must end right after the last.
 * Out: len[0 .. n_vectors) and *size (the file's size), either may be NULL. Returns CZK_OK;
 * CZK_EIO (cannot open, stat or read; not a regular file); CZK_ELENGTH for the first vector
 * whose length is not want's ("vector l has N points, the circuit needs M"); CZK_EFORMAT for
 * a prefix or vector beyond the end of the file or trailing bytes, naming the vector, the
 * offset and the file's size. Every message names the file.
 */
int czk_bellperson_header_read(uint64_t *len, uint64_t *size, const char *path, int n_vectors,
                               const uint64_t *want, const char *kind, czk_err *err);

#define CZK_BELLPERSON_PROOF_BYTES 192

/* out = A ‖ B ‖ C, each zcash-compressed (48 + 96 + 48 bytes). Infinity is encoded as such
 * (czk_bellperson_proof_decode refuses it). Variable time. */
void czk_bellperson_proof_encode(uint8_t out[CZK_BELLPERSON_PROOF_BYTES],
                                 const czk_groth16_proof *proof);

/*
 * Decodes 192 proof bytes with the full checks (on the curve, in the subgroup) and refuses a
 * point at infinity (CZK_EBADENC), as bellperson's Proof::read. Returns CZK_OK or the
 * decoder's code for the first bad point; the message names A, B or C. Variable time.
 */
int czk_bellperson_proof_decode(czk_groth16_proof *proof,
                                const uint8_t in[CZK_BELLPERSON_PROOF_BYTES], czk_err *err);

/*
 * Reads a file of k ≥ 1 concatenated 192-byte proofs (partition proofs in order). On success
 * *proofs is a czk_malloc'ed array of *n proofs that the caller frees with czk_free. Returns
 * CZK_OK, CZK_EIO, CZK_EFORMAT (empty, or a size that is not a multiple of 192), a decode
 * code (as czk_bellperson_proof_decode, naming the proof index), or CZK_ENOMEM. On failure
 * *proofs = NULL and *n = 0.
 */
int czk_bellperson_proofs_read(czk_groth16_proof **proofs, size_t *n, const char *path,
                               czk_err *err);

/* Writes n ≥ 1 proofs as n·192 bytes, atomically. Returns CZK_OK, CZK_EINVAL (n = 0, or a
 * point at infinity, which the reader would refuse) or CZK_EIO. */
int czk_bellperson_proofs_write(const char *path, const czk_groth16_proof *proofs, size_t n,
                                czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FORMATS_BELLPERSON_H */
