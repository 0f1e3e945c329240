/*
 * circom's binary outputs: the constraint system (.r1cs, v1) and the witness (.wtns, v2),
 * doc/FORMATS.md §5–6. Only BLS12-381 files are accepted (`circom --prime bls12381`): the
 * prime in the header must be r, and a bn128 file is rejected with a message saying so.
 *
 * Readers map the file, check every count against the bytes actually present before they
 * allocate, and fail with CZK_EFORMAT / CZK_EUNSUPPORTED and a message that names the file
 * and the fault. Nothing is retained from the file after a call returns. The functions keep
 * no state and are thread-safe; they run in variable time (files are public, except the
 * witness, whose values are only converted, in constant time, and copied).
 */
#ifndef CZK_FORMATS_CIRCOM_H
#define CZK_FORMATS_CIRCOM_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Reads a circom .r1cs file.
 * Out: cs with A, B and C as CSR (czk_malloc'ed, mapping = NULL; free with czk_r1cs_clear),
 * coefficients converted from circom's normal form to Montgomery form, columns ascending in
 * each row (circom already writes them so; other writers' rows are sorted and repeated
 * columns summed). n_vars = nWires, n_public = nPubOut + nPubIn (outputs first, as circom
 * numbers them). On error cs is zeroed.
 * Returns CZK_OK, CZK_EIO, CZK_ENOMEM, CZK_EFORMAT (malformed or truncated) or
 * CZK_EUNSUPPORTED (another prime or version; custom gates).
 */
int czk_circom_r1cs_read(czk_r1cs *cs, const char *path, czk_err *err);

/*
 * Reads a circom .wtns file.
 * Out: *w, n = nWitness Montgomery-form values (czk_malloc'ed, owned by the caller, who
 * should clear it with czk_memclear_explicit before czk_free: it is the secret witness);
 * w[0] is checked to be 1. On error *w = NULL, *n = 0.
 * Returns CZK_OK, CZK_EIO, CZK_ENOMEM, CZK_EFORMAT or CZK_EUNSUPPORTED.
 */
int czk_circom_wtns_read(czk_fr **w, size_t *n, const char *path, czk_err *err);

/*
 * Parses a .wtns image img[0..len) (version 2, BLS12-381; a file's bytes, or a request's) into
 * the caller's array w of exactly n_vars values, in Montgomery form; w[0] is checked to be 1.
 * `name` labels the messages (a path, or a request and partition). The header is checked as
 * czk_circom_wtns_read checks it (both are this function). On failure w holds no value of
 * the witness (it is cleared: the witness is secret).
 * Returns CZK_OK, CZK_EINVAL (the image has another number of values than n_vars),
 * CZK_EFORMAT or CZK_EUNSUPPORTED (another prime or version), with a message naming `name`
 * and the fault.
 */
int czk_circom_wtns_parse(czk_fr *w, size_t n_vars, const uint8_t *img, size_t len,
                          const char *name, czk_err *err);

/*
 * Reads only the header of a .wtns image: *n, its number of values (nWitness, at least 1), so
 * that a caller can size the array for czk_circom_wtns_parse. The header is checked as the
 * parser checks it. Returns CZK_OK, CZK_EFORMAT or CZK_EUNSUPPORTED (*n = 0 on failure).
 */
int czk_circom_wtns_count(size_t *n, const uint8_t *img, size_t len, const char *name,
                          czk_err *err);

/*
 * Reads an R1CS from a circom `.r1cs` or a czk R1CS file (r1cs/r1cs.h's format), told apart by
 * their magic bytes; czk files are mapped and checked on `pool` (NULL: inline). Returns what
 * the chosen reader returns, CZK_EIO when the file cannot be opened, or CZK_EFORMAT naming the
 * path when it is neither.
 */
int czk_formats_r1cs_read(czk_r1cs *cs, const char *path, czk_pool *pool, czk_err *err);

/*
 * Writes w[0..n) (Montgomery czk_fr, w[0] = 1) as a circom/snarkjs `.wtns` (version 2:
 * section 1 = n8, r, n; section 2 = values, normal form, little-endian), atomically
 * (temporary file, fsync, rename). snarkjs reads what this writes. Returns CZK_OK,
 * CZK_EINVAL (n = 0 or n ≥ 2^32) or CZK_EIO, with a message naming the path.
 */
int czk_circom_wtns_write(const char *path, const czk_fr *w, size_t n, czk_err *err);

/*
 * Internal (formats): puts every row of `m` (n_rows rows, entries already in place) in
 * ascending column order and sums entries that repeat a column, compacting the arrays and
 * row_ptr in place. Returns CZK_OK or CZK_ENOMEM (scratch for the longest unsorted row).
 */
int czk__r1cs_matrix_normalize(czk_r1cs_matrix *m, size_t n_rows);

/* Which prime czk__circom_check_prime expects. */
typedef enum czk__circom_prime {
    CZK__PRIME_R = 0, /* the scalar field r (r1cs, wtns, zkey n8r) */
    CZK__PRIME_Q = 1, /* the base field q (zkey n8q) */
} czk__circom_prime;

/*
 * Internal (formats): checks that the n8-byte little-endian prime `p`, read from file `name`
 * where `what` says which field it is, is BLS12-381's r or q. A bn128 prime and any other
 * value fail with CZK_EUNSUPPORTED and a message naming the curve; p must hold n8 bytes.
 */
int czk__circom_check_prime(const char *name, const char *what, const uint8_t *p, uint32_t n8,
                            czk__circom_prime which, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FORMATS_CIRCOM_H */
