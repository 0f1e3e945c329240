/*
 * DESIGN: sector sizes, tree shapes, PoSt proof types and challenges (contract in sector.h).
 *
 * Split out of the bincode decoder (io/vanilla.c) so that the circuits and PoRep's public
 * inputs use the shapes, the challenges and the prover id without depending on a parser.
 * The rules follow rust-fil-proofs (storage-proofs-post/src/fallback/vanilla.rs, utils.rs,
 * filecoin-proofs/src/constants.rs) and filecoin-ffi (to_prover_id).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * rust-filecoin-proofs-api@0e64ce8d, filecoin-ffi@de13e648, curio@e0294b0f (2026-08-20).
 */
#include "filecoin/spec/sector.h"

#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/bytes.h"

/* ---- shapes and proof types ------------------------------------------------------------ */

const uint64_t czk_vanilla_sizes[CZK_VANILLA_N_SIZES] = {2ull << 10, 8ull << 20, 512ull << 20,
                                                         32ull << 30, 64ull << 30};
const char *const czk_vanilla_size_names[CZK_VANILLA_N_SIZES] = {"2KiB", "8MiB", "512MiB", "32GiB",
                                                                 "64GiB"};

int czk_vanilla_size_index(uint64_t sector_size) {
    for (int i = 0; i < CZK_VANILLA_N_SIZES; i++)
        if (czk_vanilla_sizes[i] == sector_size)
            return i;
    return -1;
}

int czk_vanilla_size_index_by_name(const char *name) {
    for (int i = 0; i < CZK_VANILLA_N_SIZES; i++)
        if (strcasecmp(czk_vanilla_size_names[i], name) == 0)
            return i;
    return -1;
}

int czk_vanilla_shape_for_size(czk_vanilla_shape *out, uint64_t sector_size, czk_err *err) {
    /* filecoin-proofs/src/constants.rs: SectorShape2KiB/8MiB/512MiB are LCTree<U8, U0, U0>,
     * 32GiB is <U8, U8, U0>, 64GiB is <U8, U8, U2>. */
    static const struct {
        uint64_t size;
        uint32_t base, sub, top;
    } table[] = {
        {2048ull, 2, 0, 0},     {8ull << 20, 6, 0, 0},  {512ull << 20, 8, 0, 0},
        {32ull << 30, 9, 8, 0}, {64ull << 30, 9, 8, 2},
    };
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (table[i].size != sector_size)
            continue;
        out->sector_size = sector_size;
        out->nodes = sector_size / 32;
        out->base_levels = table[i].base;
        out->sub_arity = table[i].sub;
        out->top_arity = table[i].top;
        out->levels = table[i].base + (table[i].sub != 0) + (table[i].top != 0);
        out->variant = czk_vanilla_variant_of(table[i].sub, table[i].top);
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EUNSUPPORTED,
                       "sector size %llu is not a PoSt sector size (2 KiB, 8 MiB, 512 MiB, "
                       "32 GiB, 64 GiB)",
                       (unsigned long long)sector_size);
}

int czk_vanilla_post_type_from_abi(czk_vanilla_post_type *out, uint64_t abi_id, czk_err *err) {
    static const uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    /* filecoin-proofs/src/constants.rs WINDOW_POST_SECTOR_COUNT. */
    static const uint32_t window_sectors[5] = {2, 2, 2, 2349, 2300};
    memset(out, 0, sizeof(*out));
    if (abi_id > 14)
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "registered PoSt proof %llu is not one of 0-14 (WinningPoSt V1, "
                           "WindowPoSt V1, WindowPoSt V1_1)",
                           (unsigned long long)abi_id);
    unsigned s = (unsigned)(abi_id % 5);
    out->abi_id = (uint32_t)abi_id;
    if (abi_id < 5) {
        out->kind = CZK_VANILLA_POST_WINNING;
        out->api = CZK_VANILLA_API_V1_0;
        out->challenge_count = 66;
        out->sector_count = 1;
    } else {
        out->kind = CZK_VANILLA_POST_WINDOW;
        /* Go's WindowPoSt "V1_1" ids map to proofs-api's V1_2 types (cuzk prover.rs:463-485);
         * only the challenge index differs, the circuit and keys are shared. */
        out->api = abi_id < 10 ? CZK_VANILLA_API_V1_0 : CZK_VANILLA_API_V1_2;
        out->challenge_count = 10;
        out->sector_count = window_sectors[s];
    }
    return czk_vanilla_shape_for_size(&out->shape, sizes[s], err);
}

/* ---- the decoded proof ------------------------------------------------------------------ */

void czk_vanilla_sector_clear(czk_vanilla_sector *s) {
    if (s == NULL)
        return;
    czk_free(s->inclusion);
    memset(s, 0, sizeof(*s));
}

/* ---- challenges ------------------------------------------------------------------------ */

static int check_fr_bytes(const uint8_t b[32], const char *what, czk_err *err) {
    czk_fr tmp;
    if (czk_fr_from_bytes_le(&tmp, b) != CZK_OK)
        return czk_err_set(err, CZK_ERANGE, "%s is not below the field modulus r", what);
    return CZK_OK;
}

int czk_vanilla_challenge_index(uint64_t *out, czk_vanilla_api api, uint64_t sector_index,
                                uint64_t challenge_count, uint64_t n, czk_err *err) {
    *out = 0;
    if (n >= challenge_count)
        return czk_err_set(err, CZK_EINVAL, "challenge %llu of a sector with %llu challenges",
                           (unsigned long long)n, (unsigned long long)challenge_count);
    switch (api) {
    case CZK_VANILLA_API_V1_0:
    case CZK_VANILLA_API_V1_1: {
        uint64_t base;
        if (__builtin_mul_overflow(sector_index, challenge_count, &base) ||
            __builtin_add_overflow(base, n, out))
            return czk_err_set(err, CZK_ERANGE,
                               "challenge index of sector index %llu overflows 64 bits",
                               (unsigned long long)sector_index);
        return CZK_OK;
    }
    case CZK_VANILLA_API_V1_2:
        *out = n;
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EINVAL, "unknown proofs API version %d", (int)api);
}

int czk_vanilla_leaf_challenge(uint64_t *out, const uint8_t randomness[32], uint64_t sector_id,
                               uint64_t challenge_index, uint64_t nodes, czk_err *err) {
    *out = 0;
    if (nodes == 0)
        return czk_err_set(err, CZK_EINVAL, "leaf challenge into a tree of 0 leaves");
    int rc = check_fr_bytes(randomness, "PoSt randomness", err);
    if (rc != CZK_OK)
        return rc;
    uint8_t msg[48], md[SHA256_DIGEST_LENGTH];
    memcpy(msg, randomness, 32);
    czk_bytes_store_le64(msg + 32, sector_id);
    czk_bytes_store_le64(msg + 40, challenge_index);
    if (SHA256(msg, sizeof(msg), md) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
    *out = czk_bytes_load_le64(md) % nodes;
    return CZK_OK;
}

int czk_vanilla_sector_challenge(uint64_t *out, const uint8_t randomness[32],
                                 const uint8_t prover_id[32], uint64_t k, uint64_t sector_set_len,
                                 czk_err *err) {
    *out = 0;
    if (sector_set_len == 0)
        return czk_err_set(err, CZK_EINVAL, "sector challenge into an empty sector set");
    int rc = check_fr_bytes(randomness, "PoSt randomness", err);
    if (rc == CZK_OK)
        rc = check_fr_bytes(prover_id, "prover id", err);
    if (rc != CZK_OK)
        return rc;
    uint8_t msg[72], md[SHA256_DIGEST_LENGTH];
    memcpy(msg, prover_id, 32);
    memcpy(msg + 32, randomness, 32);
    czk_bytes_store_le64(msg + 64, k);
    if (SHA256(msg, sizeof(msg), md) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
    *out = czk_bytes_load_le64(md) % sector_set_len;
    return CZK_OK;
}

void czk_vanilla_prover_id(uint8_t out[32], uint64_t miner_id) {
    /* filecoin-ffi's to_prover_id: the actor id's unsigned varint, zero-padded on the right. */
    memset(out, 0, 32);
    size_t i = 0;
    do {
        uint8_t b = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        out[i++] = miner_id != 0 ? (uint8_t)(b | 0x80) : b;
    } while (miner_id != 0);
}

int czk_vanilla_sector_check(const czk_vanilla_sector *s, const czk_vanilla_post_type *type,
                             const uint8_t randomness[32], uint64_t sector_index, czk_err *err) {
    if (s->n_inclusions != type->challenge_count || s->inclusion == NULL)
        return czk_err_set(err, CZK_EINVAL, "sector %llu: %zu inclusion proofs, the type needs %u",
                           (unsigned long long)s->sector_id, s->n_inclusions,
                           type->challenge_count);
    for (size_t n = 0; n < s->n_inclusions; n++) {
        const czk_vanilla_inclusion *inc = &s->inclusion[n];
        if (!czk_fr_equal(&inc->root, &s->comm_r_last))
            return czk_err_set(err, CZK_EVERIFY,
                               "sector %llu: inclusion proof %zu has a root other than comm_r_last",
                               (unsigned long long)s->sector_id, n);
        uint64_t idx, leaf;
        int rc = czk_vanilla_challenge_index(&idx, type->api, sector_index, type->challenge_count,
                                             n, err);
        if (rc == CZK_OK)
            rc = czk_vanilla_leaf_challenge(&leaf, randomness, s->sector_id, idx, type->shape.nodes,
                                            err);
        if (rc != CZK_OK)
            return rc;
        if (leaf != inc->leaf_index)
            return czk_err_set(err, CZK_EVERIFY,
                               "sector %llu: inclusion proof %zu opens leaf %llu, challenge %zu is "
                               "leaf %llu",
                               (unsigned long long)s->sector_id, n,
                               (unsigned long long)inc->leaf_index, n, (unsigned long long)leaf);
    }
    return CZK_OK;
}
