/*
 * snarkjs's JSON files for Groth16 on BLS12-381 (doc/FORMATS.md §8): proof.json, public.json
 * and verification_key.json.
 *
 * Field elements are decimal strings of the normal (non-Montgomery) value. Readers accept
 * only strings of ASCII digits (no sign, no spaces, no exponent, no JSON numbers) below the
 * modulus, and points written the way snarkjs writes them: G1 [x, y, "1"], G2
 * [[x.c0, x.c1], [y.c0, y.c1], ["1", "0"]], and the point at infinity as ["0", "1", "0"] /
 * [["0","0"], ["1","0"], ["0","0"]]. Every point is checked to be on the curve and in its
 * prime-order subgroup. Writers produce the same shapes, and write files atomically.
 *
 * Errors: CZK_EIO, CZK_ENOMEM; CZK_EFORMAT (not JSON, wrong shape, bad decimal);
 * CZK_ERANGE (a value not below its modulus); CZK_ENOTONCURVE / CZK_ENOTINGROUP (points);
 * CZK_EUNSUPPORTED (another curve or protocol). Messages name the file and the JSON path
 * ("proof.json: pi_b[1][0]: ..."). Functions are thread-safe for distinct arguments.
 */
#ifndef CZK_FORMATS_SNARKJS_JSON_H
#define CZK_FORMATS_SNARKJS_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "groth16/keys.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Writes proof.json ({pi_a, pi_b, pi_c, protocol: "groth16", curve: "bls12381"}). */
int czk_snarkjs_proof_write(const char *path, const czk_groth16_proof *proof, czk_err *err);

/*
 * Reads proof.json. "protocol" and "curve", when present, must be "groth16" and bls12381.
 * Out: proof (points validated; A or C may be the point at infinity, as in snarkjs).
 */
int czk_snarkjs_proof_read(czk_groth16_proof *proof, const char *path, czk_err *err);

/* Writes public.json: the n inputs (Montgomery form) as an array of decimal strings. */
int czk_snarkjs_public_write(const char *path, const czk_fr *inputs, size_t n, czk_err *err);

/*
 * Reads public.json, an array of decimal strings < r (wire order: outputs, then public
 * inputs). Out: *inputs, *n Montgomery-form values, czk_malloc'ed and owned by the caller
 * (NULL when n = 0 or on error).
 */
int czk_snarkjs_public_read(czk_fr **inputs, size_t *n, const char *path, czk_err *err);

/*
 * Writes verification_key.json: protocol, curve, nPublic, vk_alpha_1, vk_beta_2,
 * vk_gamma_2, vk_delta_2, vk_alphabeta_12 (e(α, β), computed here with czk_pairing, which
 * computes the same power as snarkjs) and IC. vk needs n_ic >= 1. beta_g1 and delta_g1 are
 * not part of the file.
 */
int czk_snarkjs_vk_write(const char *path, const czk_groth16_vk *vk, czk_err *err);

/*
 * The text of proof.json and public.json, as the writers above would write them (pretty
 * printed, a final newline), for a caller that sends them rather than writes them (the
 * daemon's AwaitProofResponse). Out: *text, NUL-terminated and czk_malloc'ed (czk_free it),
 * and *len, its length without the NUL. Returns CZK_OK or CZK_ENOMEM (*text is then NULL).
 */
int czk_snarkjs_proof_json(char **text, size_t *len, const czk_groth16_proof *proof, czk_err *err);
int czk_snarkjs_public_json(char **text, size_t *len, const czk_fr *inputs, size_t n, czk_err *err);

/*
 * Reads verification_key.json. "curve" must be bls12381; "protocol", when present, groth16;
 * "nPublic", when present, must equal the number of IC points minus one; vk_alphabeta_12,
 * when present, must equal e(vk_alpha_1, vk_beta_2). α, β, γ, δ must not be the point at
 * infinity. Out: vk (owned by the caller: czk_groth16_vk_clear), with beta_g1 and
 * delta_g1 left at infinity since the file has no such points.
 */
int czk_snarkjs_vk_read(czk_groth16_vk *vk, const char *path, czk_err *err);

/*
 * Decimal conversion used by the readers and writers, exposed for tests and the CLI.
 * czk_snarkjs_dec_to_limbs parses s[0..len) (ASCII digits only, non-empty, at most 200
 * characters) into n little-endian limbs; returns CZK_OK, CZK_EFORMAT (empty, too long, a
 * non-digit) or CZK_ERANGE (the value needs more than n limbs).
 * czk_snarkjs_limbs_to_dec writes the n-limb value (n <= 6) as a NUL-terminated decimal
 * string without leading zeros into out, which needs room for 20·n + 1 bytes.
 */
int czk_snarkjs_dec_to_limbs(uint64_t *out, size_t n, const char *s, size_t len);
void czk_snarkjs_limbs_to_dec(char *out, const uint64_t *in, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FORMATS_SNARKJS_JSON_H */
