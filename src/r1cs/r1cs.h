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

#ifdef __cplusplus
}
#endif

#endif /* CZK_R1CS_R1CS_H */
