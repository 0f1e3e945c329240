/*
 * snarkjs Groth16 proving keys (.zkey v1, protocol 1), doc/FORMATS.md §7, BLS12-381 only.
 *
 * A zkey carries the proving key in snarkjs's conventions (czk_groth16_pk with h_basis
 * CZK_H_ODD_COSET and density CZK_DENSITY_DENSE) and, in section 4, the A and B matrices of
 * the QAP: the circuit's rows followed by one A row per public variable (ONE included) at
 * constraint index nConstraints + i, coefficient 1. Section 4 stores each coefficient c as
 * c·R² mod r (R = 2^256), little-endian, because snarkjs's prover multiplies it by the
 * normal-form witness with one Montgomery multiplication and wants a Montgomery result.
 *
 * Both functions keep no state and are thread-safe; they run in variable time (keys are
 * public).
 */
#ifndef CZK_FORMATS_ZKEY_H
#define CZK_FORMATS_ZKEY_H

#include "formats/key_check.h"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Reads a .zkey file.
 * Out: pk (owned by the caller: czk_groth16_pk_clear): every point range-, curve- and
 * subgroup-checked (this dominates the time for big keys); α, β, γ, δ must not be the point
 * at infinity. ab (may be NULL): A and B of the circuit from section 4, n_constraints rows
 * (the input rows are checked to be exactly the expected ones and dropped: the prover adds
 * them itself), columns ascending, Montgomery coefficients, c.row_ptr = NULL (C is not in a
 * zkey); czk_malloc'ed, free with czk_r1cs_clear. n_constraints is derived from section 4
 * (the input rows sit at nConstraints..nConstraints + nPublic).
 * Sections 3 and 5–9 must have exactly the sizes nPublic, nVars and domainSize imply;
 * section 10 (the MPC transcript) is not read. On error pk and ab are zeroed.
 * Returns CZK_OK, CZK_EIO, CZK_ENOMEM, CZK_EFORMAT, CZK_EUNSUPPORTED (not Groth16, not
 * BLS12-381, another version), or a point decoder's CZK_ERANGE / CZK_ENOTONCURVE /
 * CZK_ENOTINGROUP; the message names the file, the section and the index.
 */
int czk_zkey_read(czk_groth16_pk *pk, czk_r1cs *ab, const char *path, czk_err *err);

/* As czk_zkey_read, decoding the point vectors on `pool` (NULL: inline); the result and the
 * error message do not depend on the number of threads. */
int czk_zkey_read_pool(czk_groth16_pk *pk, czk_r1cs *ab, const char *path, czk_pool *pool,
                       czk_err *err);

/* As czk_zkey_read_pool, with `check` choosing how sections 5–9 (A, B1, B2, C, H) are
 * checked; IC and the header's points are always checked in full. */
int czk_zkey_read_ex(czk_groth16_pk *pk, czk_r1cs *ab, const char *path, czk_key_check check,
                     czk_pool *pool, czk_err *err);

/*
 * Writes pk (h_basis CZK_H_ODD_COSET, density CZK_DENSITY_DENSE, as from czk's dev setup
 * or czk_zkey_read) and the A and B matrices of cs as a .zkey that snarkjs reads (groth16
 * prove, zkey export verificationkey). Sections are written in order 1..10; section 4 lists
 * A then B terms constraint by constraint, then the input rows, as `snarkjs groth16 setup`
 * does; section 10 has an all-zero csHash and no contributions (the key did not come from a
 * ceremony, so `snarkjs zkey verify` cannot vouch for it).
 * In: cs with n_vars and n_public equal to pk's and n_constraints + n_public + 1 <=
 * pk->domain_size; its C matrix is not needed. The file is written atomically.
 * Returns CZK_OK, CZK_EINVAL (shapes that do not match, another basis or density, counts
 * that do not fit the format's u32 fields), CZK_EIO or CZK_ENOMEM.
 */
int czk_zkey_write(const char *path, const czk_groth16_pk *pk, const czk_r1cs *cs, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FORMATS_ZKEY_H */
