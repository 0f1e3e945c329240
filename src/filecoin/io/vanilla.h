/*
 * Filecoin Fallback PoSt (WinningPoSt, WindowPoSt) vanilla proofs as Curio sends them: the
 * bincode decoder and encoder of czk_vanilla_sector (spec/sector.h, with the shapes, the
 * proof types and the challenges).
 *
 * A request carries one bincode `FallbackPoStSectorProof` per challenged sector (rust-fil-proofs
 * `filecoin-proofs/src/types/mod.rs`, serialised by `bincode::serialize`, bincode 1.x: every
 * integer little-endian, `usize` as u64, enum tags as u32, a `Vec` as a u64 count then its
 * items, a Poseidon domain as 32 bytes, a little-endian field element):
 *
 *   FallbackPoStSectorProof = sector_id u64 · comm_r [32] · Proof
 *   Proof                   = u64 n (always 1) · SectorProof
 *   SectorProof             = u64 m (the challenge count) · m × MerkleProof · comm_c · comm_r_last
 *   MerkleProof             = u32 tag, then Single (0): root · leaf · base path
 *                                           Sub (1): base path · sub path · root · leaf
 *                                           Top (2): base · sub · top paths · root · leaf
 *   path                    = u64 k · k × (u64 h · h × [32] siblings · u64 index)
 *
 * The decoder is strict: the tag, every count and every index must be the one the sector
 * size's tree shape dictates, every 32-byte value must be a canonical field element (< r), and
 * the input must end exactly where the proof ends. Counts are compared with the shape before
 * anything is allocated, so a hostile length cannot make it allocate more than the shape
 * allows (at most 66 inclusion proofs of 11 levels, about 170 KiB per sector).
 *
 * Thread-safety: no global state; any number of threads may call anything here at once on
 * distinct outputs. Nothing here is constant-time (all inputs are public).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), curio@e0294b0f
 * (2026-08-20).
 */
#ifndef CZK_FILECOIN_IO_VANILLA_H
#define CZK_FILECOIN_IO_VANILLA_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/spec/sector.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Decodes one bincode FallbackPoStSectorProof of `len` bytes, strictly (see the top of this
 * file). `ordinal` is the proof's position in the request, used only in error messages, which
 * name it, the sector id once read, the field and the byte offset.
 * Out: *out, which the caller frees with czk_vanilla_sector_clear; on error *out is left
 * cleared (nothing to free). Returns CZK_OK; CZK_ELENGTH on truncation or trailing bytes;
 * CZK_EFORMAT on a tag, count or index the shape does not allow; CZK_ERANGE on a field
 * element ≥ r; CZK_ENOMEM.
 */
int czk_vanilla_sector_decode(czk_vanilla_sector *out, const czk_vanilla_post_type *type,
                              const uint8_t *buf, size_t len, size_t ordinal, czk_err *err);

/*
 * Decodes the `n` vanilla proofs of one request, in request order (which is slot order).
 * WinningPoSt needs exactly 1; WindowPoSt 1 to the type's sector_count.
 * Out: out[0..n−1], each to be freed with czk_vanilla_sector_clear; when a proof fails to
 * decode, all of them are left cleared (for CZK_EINVAL, out is not touched). Returns as
 * czk_vanilla_sector_decode, or CZK_EINVAL for a bad n or a NULL array.
 */
int czk_vanilla_sectors_decode(czk_vanilla_sector *out, const czk_vanilla_post_type *type,
                               const uint8_t *const *bufs, const size_t *lens, size_t n,
                               czk_err *err);

/* The bincode size of one sector proof of `type`: fixed by the tree shape and the challenge
 * count (32 GiB WindowPoSt: 24,960 bytes; WinningPoSt: 164,064). */
size_t czk_vanilla_sector_encoded_size(const czk_vanilla_post_type *type);

/*
 * Encodes `s` as one bincode FallbackPoStSectorProof, the inverse of czk_vanilla_sector_decode,
 * into out[0..cap). Out: *len, the bytes written (czk_vanilla_sector_encoded_size). Returns
 * CZK_OK; CZK_EINVAL when s does not have the type's inclusion count or path shape (nothing is
 * written); CZK_ELENGTH when cap is too small.
 */
int czk_vanilla_sector_encode(uint8_t *out, size_t cap, size_t *len, const czk_vanilla_sector *s,
                              const czk_vanilla_post_type *type, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_IO_VANILLA_H */
