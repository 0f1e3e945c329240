/*
 * snarkjs's proof.json and public.json as text, from a proof in bellperson's 192-byte encoding
 * and its public inputs in the engine's encoding: what the daemon (C++, server/grpc) sends a
 * client in AwaitProofResponse, so that a circom user gets files snarkjs verifies. Plain C
 * types only, so that C++ can include it without the field headers.
 */
#ifndef CZK_FORMATS_SNARKJS_TEXT_H
#define CZK_FORMATS_SNARKJS_TEXT_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Decodes one 192-byte bellperson proof (A ‖ B ‖ C compressed; fully checked, as
 * czk_bellperson_proof_decode) and n_public inputs of 32 bytes each (little-endian, normal
 * form; NULL when n_public is 0), and renders them as snarkjs writes proof.json and
 * public.json. Out: *proof_json and *public_json, NUL-terminated, czk_malloc'ed (czk_free
 * both); both NULL on error. Returns CZK_OK, a decoder's code (a bad point, an input not below
 * r) or CZK_ENOMEM. Thread-safe. Variable time (proofs are public).
 */
int czk_snarkjs_texts_from_bellperson(char **proof_json, char **public_json, const uint8_t *proof,
                                      const uint8_t *public_le, size_t n_public, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FORMATS_SNARKJS_TEXT_H */
