/*
 * The public side of a PoSt as Curio writes it to JSON (its Go WindowPoStVerifyInfo /
 * WinningPoStVerifyInfo, field names as Go's encoding/json writes them):
 *
 *   { "Randomness": base64 of 32 bytes (a field element, little-endian, < r),
 *     "Proofs": [ { "PoStProof": registered PoSt proof (0–14), "ProofBytes": base64 or null } ],
 *     "ChallengedSectors": [ { "SealProof": registered seal proof, "SectorNumber": u64,
 *                              "SealedCID": { "/": CID } } ],
 *     "Prover": miner actor id }
 *
 * The sealed CID is CIDv1, codec fil-commitment-sealed (0xf102), multihash
 * poseidon-bls12_381-a2-fc1 (0xb401) of 32 bytes, the digest being comm_r's little-endian
 * bytes, written in multibase base32 ('b', lower case). This is what `czk post` reads and
 * writes beside the vanilla proofs, so the files of Curio's own tests work unchanged.
 *
 * Thread-safety: no global state.
 */
#ifndef CZK_FILECOIN_IO_CURIO_POST_H
#define CZK_FILECOIN_IO_CURIO_POST_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Characters of a sealed CID in base32, with the 'b' prefix and the terminating NUL. */
#define CZK_SEALED_CID_CHARS 66

typedef struct czk_post_public_sector {
    uint64_t sector_number;
    uint64_t seal_proof; /* registered seal proof; its sector size matches the PoSt proof's */
    czk_fr comm_r;
} czk_post_public_sector;

typedef struct czk_post_public {
    uint64_t registered_proof; /* Proofs[0].PoStProof (every entry must agree) */
    uint8_t randomness[32];
    uint64_t prover;                 /* the miner's actor id */
    size_t n_sectors;                /* ≥ 1 */
    czk_post_public_sector *sectors; /* owned, czk_malloc'ed */
} czk_post_public;

/*
 * Parses the JSON text json[0..len). `name` (a path) starts every error message, which also
 * names the field. Checks: every field present with the right type; the randomness 32 bytes
 * and < r; every PoStProof equal and 0–14; every seal proof one of 0–19 with the PoSt proof's
 * sector size; every CID of the layout above. Out: *out, freed with czk_post_public_clear
 * (cleared on error). Returns CZK_OK, CZK_EFORMAT, CZK_ERANGE or CZK_ENOMEM.
 */
int czk_post_public_parse(czk_post_public *out, const char *json, size_t len, const char *name,
                          czk_err *err);

/* czk_post_public_parse of a file's contents (CZK_EIO when it cannot be read). */
int czk_post_public_read(czk_post_public *out, const char *path, czk_err *err);

/* Writes p as JSON to path (atomically, ProofBytes null). Returns CZK_OK, CZK_EIO, CZK_ENOMEM. */
int czk_post_public_write(const char *path, const czk_post_public *p, czk_err *err);

/* Frees what a parse allocated and zeroes *p; NULL is a no-op. */
void czk_post_public_clear(czk_post_public *p);

/* The sealed CID of comm_r, NUL-terminated. */
void czk_post_sealed_cid_encode(char out[CZK_SEALED_CID_CHARS], const czk_fr *comm_r);

/* comm_r from a sealed CID string. Returns CZK_OK, CZK_EFORMAT (not such a CID), CZK_ERANGE
 * (the digest is not below r). */
int czk_post_sealed_cid_decode(czk_fr *comm_r, const char *cid, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_IO_CURIO_POST_H */
