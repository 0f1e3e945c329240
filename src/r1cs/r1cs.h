/*
 * R1CS constraint systems as CSR matrices over Fr.
 *
 * Variables are numbered as circom and bellperson number them: 0 is the constant ONE,
 * 1..n_public are the public inputs (circom: outputs first, then public inputs), the rest are
 * private (aux). A witness `w` has n_vars entries with w[0] = 1. Row i of A, B and C is
 * constraint i: <A_i, w> · <B_i, w> = <C_i, w>.
 *
 * The Groth16 input constraints (one A row per public variable, ONE included) are NOT stored
 * here; the prover appends them (see groth16/prove.h).
 *
 * C may be absent: a snarkjs .zkey carries only A and B (snarkjs computes c = a∘b), so
 * `cs->c.row_ptr == NULL` means "C not stored". Then czk_r1cs_spmv fills c with a∘b and
 * czk_r1cs_check treats every row as satisfied (there is nothing to check it against).
 *
 * Invariants of a valid system (czk_r1cs_validate checks them; czk_r1cs_load checks them on
 * every file before trusting it; the builder and the synthetic generators produce them):
 * row_ptr[0] = 0, row_ptr non-decreasing, row_ptr[n_constraints] = nnz; cols strictly
 * ascending within a row and < n_vars; vals fully reduced (< r); 1 + n_public <= n_vars
 * <= 2^32. Explicit zero coefficients are allowed (a zkey may carry them); the builder drops
 * them. When nnz = 0, `cols` and `vals` may be NULL. SpMV, check and density assume a valid
 * system and do not re-check it (column indices are used as array indices).
 *
 * Thread-safety: nothing here has global state; any number of threads may read one system
 * (spmv, check, density, validate, save) at once.
 */
#ifndef CZK_R1CS_R1CS_H
#define CZK_R1CS_R1CS_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Variable 0 is the constant ONE; public input i (0-based) is variable 1 + i. */
#define CZK_R1CS_VAR_ONE 0u

/* One sparse matrix, CSR: row i's entries are [row_ptr[i], row_ptr[i+1]). */
typedef struct czk_r1cs_matrix {
    uint64_t *row_ptr; /* n_rows + 1 entries */
    uint32_t *cols;    /* variable index of each entry, ascending within a row */
    czk_fr *vals;      /* coefficient of each entry, Montgomery form */
} czk_r1cs_matrix;

typedef struct czk_r1cs {
    size_t n_constraints; /* rows of A, B and C */
    size_t n_vars;        /* columns, ONE included */
    size_t n_public;      /* public inputs, ONE excluded */
    czk_r1cs_matrix a, b, c;
    /* Ownership: the arrays are czk_malloc'ed unless `mapping` is set (a file mapped by
     * czk_r1cs_load), in which case they point into it. czk_r1cs_clear releases either. */
    void *mapping;
    size_t mapping_len;
} czk_r1cs;

/*
 * Frees (czk_free) or unmaps the system's arrays and zeroes *cs. NULL and a zeroed struct
 * are no-ops. A mapped system's arrays are read-only (PROT_READ): do not write through them.
 */
void czk_r1cs_clear(czk_r1cs *cs);

/* Entries stored in `m` over `n_rows` rows: row_ptr[n_rows], or 0 when row_ptr is NULL. */
uint64_t czk_r1cs_nnz(const czk_r1cs_matrix *m, size_t n_rows);

/*
 * Bytes held by the system's arrays (row_ptr, cols and vals of A, B and C as stored), for
 * memory budgets. A mapped system reports the same figure (its pages come from the file).
 */
size_t czk_r1cs_bytes(const czk_r1cs *cs);

/* 1 when x and y are the same system entry for entry (sizes, and every stored matrix's row
 * pointers, columns and coefficients; a matrix stored in one only differs), else 0. */
int czk_r1cs_same(const czk_r1cs *x, const czk_r1cs *y);

/*
 * Checks every invariant listed at the top of this file. Returns CZK_OK, or CZK_EINVAL with
 * a message naming the matrix, the row and the fault (the lowest faulty row of the first
 * faulty matrix). Multi-threaded over rows on `pool` (NULL: inline). Thread-safe for
 * concurrent readers of `cs`.
 */
int czk_r1cs_validate(const czk_r1cs *cs, czk_pool *pool, czk_err *err);

/* ---- building ---- */

/*
 * An incremental builder: variables are allocated one by one and constraints appended row by
 * row. Not thread-safe (one builder per thread). For small and medium circuits (tests,
 * examples, imports): arrays grow by doubling, so it may hold up to twice the final bytes.
 */
typedef struct czk_r1cs_builder czk_r1cs_builder;

/*
 * Creates an empty builder for a system with `n_public` public inputs: variables 0 (ONE) and
 * 1..n_public exist from the start. Returns CZK_OK, CZK_EINVAL (out NULL or n_public too
 * large for 32-bit variable indices) or CZK_ENOMEM.
 */
int czk_r1cs_builder_create(czk_r1cs_builder **out, size_t n_public, czk_err *err);

/* Frees the builder and anything it still holds; NULL is a no-op. */
void czk_r1cs_builder_destroy(czk_r1cs_builder *b);

/*
 * Adds one private (aux) variable and returns its index through *var. Returns CZK_OK, or
 * CZK_EINVAL when the 2^32 variable indices are exhausted or an argument is NULL.
 */
int czk_r1cs_builder_add_var(czk_r1cs_builder *b, uint32_t *var);

/*
 * Appends the constraint <A, w>·<B, w> = <C, w>, each side a linear combination given as
 * `x_n` (column, coefficient) pairs; a side with x_n = 0 is the zero combination (its arrays
 * may then be NULL). Columns may come in any order and repeat: the builder sorts them and
 * sums repeated columns, and drops coefficients that are (or sum to) zero. Every column must
 * be a variable that exists already (< the variables allocated so far) and every coefficient
 * fully reduced. Returns CZK_OK, CZK_EINVAL (with a message naming the side, the entry and
 * the fault; the builder is unchanged) or CZK_ENOMEM.
 */
int czk_r1cs_builder_add_constraint(czk_r1cs_builder *b, const uint32_t *a_cols,
                                    const czk_fr *a_vals, size_t a_n, const uint32_t *b_cols,
                                    const czk_fr *b_vals, size_t b_n, const uint32_t *c_cols,
                                    const czk_fr *c_vals, size_t c_n, czk_err *err);

/* Variables (ONE and publics included) and constraints added so far. */
size_t czk_r1cs_builder_n_vars(const czk_r1cs_builder *b);
size_t czk_r1cs_builder_n_constraints(const czk_r1cs_builder *b);

/*
 * Moves what was built into *out (which is overwritten: clear it first if it held a
 * system); the builder is left empty (no constraints, the same public inputs) and must still
 * be destroyed. Returns CZK_OK, CZK_EINVAL or CZK_ENOMEM (then *out is zeroed and the builder
 * keeps its contents).
 */
int czk_r1cs_builder_finish(czk_r1cs_builder *b, czk_r1cs *out, czk_err *err);

/* ---- evaluating ---- */

/*
 * a = A·w, b = B·w, c = C·w over the n_constraints rows; any output may be NULL (skipped).
 * When C is not stored, c = a∘b. `w` has n_vars entries (w[0] = 1 by convention; not
 * checked here). Outputs must not alias `w` or each other. Multi-threaded over rows on
 * `pool` (NULL: inline).
 *
 * Variable time in the witness: entries whose witness value is 0 or 1, and coefficients
 * ±1, take shortcuts (in PoRep-shaped circuits nearly every product is one of these), the
 * same data-dependent timing as the prover's batch addition over 0/1 witness bits.
 *
 * Returns CZK_OK, or CZK_EINVAL (cs NULL, or w NULL with rows to evaluate).
 */
int czk_r1cs_spmv(const czk_r1cs *cs, const czk_fr *w, czk_fr *a, czk_fr *b, czk_fr *c,
                  czk_pool *pool);

/*
 * Returns CZK_OK if every constraint holds for witness `w` (n_vars entries), else
 * CZK_EVERIFY with *bad_row (if not NULL) = the first (lowest) failing constraint and a
 * message naming it. With C not stored every row counts as satisfied. Returns CZK_EINVAL
 * when w[0] is not ONE (such a vector is not a witness: the zero vector would satisfy every
 * system). Multi-threaded over rows on `pool` (NULL: inline). Variable time, as spmv.
 */
int czk_r1cs_check(const czk_r1cs *cs, const czk_fr *w, size_t *bad_row, czk_pool *pool,
                   czk_err *err);

/*
 * Density bitmaps over variables: ceil(n_vars/64) little-endian words each; bit v (word
 * v/64, bit v%64) is set iff variable v has an entry with a nonzero coefficient in A (resp.
 * B). The bitmaps are overwritten entirely; either may be NULL. Returns CZK_OK or
 * CZK_EINVAL. Single-threaded (one pass over A and B).
 */
int czk_r1cs_density(const czk_r1cs *cs, uint64_t *a_bits, uint64_t *b_bits);

/* ---- our binary file (r1cs_file.c; layout in its DESIGN comment) ---- */

/*
 * Writes `cs` to `path` in czk's own R1CS format (little-endian, versioned, checksummed,
 * sections 64-byte aligned so that czk_r1cs_load maps it without copying). The system is
 * validated first (a file we write always loads). The file is written under a temporary
 * name beside `path`, synced, renamed and its directory synced (util/file.h's writer), so
 * readers never see a partial file. Returns CZK_OK, CZK_EINVAL (invalid system), CZK_ENOMEM
 * or CZK_EIO, with a message naming the path.
 */
int czk_r1cs_save(const czk_r1cs *cs, const char *path, czk_err *err);

/* Flags for czk_r1cs_load_ex. */
enum {
    /* Skip the whole-payload checksum (the header checksum and every structural and range
     * check still run). For trusted files on trusted storage when load time matters. */
    CZK_R1CS_LOAD_SKIP_CHECKSUM = 1u << 0,
};

/*
 * Maps the file at `path` read-only (zero copy) and fills *cs, after checking every field:
 * magic, version, flags, header checksum, sizes against the file size (overflow-safe),
 * payload checksum, row_ptr monotone and ending at nnz, columns strictly ascending and
 * < n_vars, values < r. A truncated, corrupted or hostile file returns CZK_EFORMAT with a
 * message naming the path and the fault; nothing is allocated in proportion to sizes the
 * file claims. Other failures: CZK_EINVAL, CZK_EIO (cannot open, stat or map). *cs is
 * overwritten (clear it first if it held a system) and left zeroed on failure.
 *
 * The file must not be truncated or rewritten while mapped (the kernel would fault the
 * reader); czk_r1cs_save replaces files by rename, which is safe.
 */
int czk_r1cs_load(czk_r1cs *cs, const char *path, czk_err *err);

/* As czk_r1cs_load, with CZK_R1CS_LOAD_* `flags`, checks multi-threaded on `pool`. */
int czk_r1cs_load_ex(czk_r1cs *cs, const char *path, unsigned flags, czk_pool *pool, czk_err *err);

/*
 * Internal, for tests: the checksum the file format uses, over `len` bytes (any length; the
 * payload checksum is this hash over 16 MiB chunks, combined). Exposed so that tests can
 * forge files whose checksums are right but whose contents are hostile.
 */
uint64_t czk__r1cs_hash(const void *p, size_t len, uint64_t seed);
/* Internal, for tests: recomputes and rewrites both checksums of the file image in place. */
int czk__r1cs_file_reseal(void *image, size_t len);
/* Internal (r1cs.c, used by the loader): czk_r1cs_validate reporting `code` and prefixing its
 * message with `what` (the file's path). */
int czk__r1cs_validate_as(const czk_r1cs *cs, czk_pool *pool, int code, const char *what,
                          czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_R1CS_R1CS_H */
