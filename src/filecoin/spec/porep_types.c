/*
 * The registered seal proofs, porep_id, replica_id and the interactive and synthetic PoRep
 * challenges (porep_types.h says what each is).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * rust-filecoin-proofs-api@0e64ce8d.
 */
#include "filecoin/spec/porep_types.h"

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/sha.h>
#include <string.h>

#include "util/bytes.h"

/* The tree_r_last shapes (vanilla.h): 2 KiB/8 MiB/512 MiB are LCTree<U8, U0, U0>, 32 GiB
 * <U8, U8, U0>, 64 GiB <U8, U8, U2>. */
#define SHAPE_SINGLE(size, base)                                                                   \
    { (size), (size) / 32, (base), 0, 0, (base), CZK_VANILLA_SINGLE }
#define SHAPE_32G                                                                                  \
    { 32ull << 30, 1ull << 30, 9, 8, 0, 10, CZK_VANILLA_SUB }
#define SHAPE_64G                                                                                  \
    { 64ull << 30, 1ull << 31, 9, 8, 2, 11, CZK_VANILLA_TOP }

/* One row per size and variant. Partitions and challenges per partition: filecoin-proofs
 * constants.rs (POREP_PARTITIONS, minimum challenges 2 / 176 interactive, 26 / 2253
 * non-interactive) and parameters.rs (ceil(minimum / partitions)). */
#define ROWS(first, suffix, variant, api, small_parts, big_parts)                                  \
    {(first) + 0,                                                                                  \
     "StackedDrg2KiB" suffix,                                                                      \
     (variant),                                                                                    \
     (api),                                                                                        \
     2048ull,                                                                                      \
     64,                                                                                           \
     2,                                                                                            \
     (small_parts),                                                                                \
     2,                                                                                            \
     6,                                                                                            \
     SHAPE_SINGLE(2048ull, 2),                                                                     \
     "StackedDrg2KiBV1"},                                                                          \
        {(first) + 1,                                                                              \
         "StackedDrg8MiB" suffix,                                                                  \
         (variant),                                                                                \
         (api),                                                                                    \
         8ull << 20,                                                                               \
         1ull << 18,                                                                               \
         2,                                                                                        \
         (small_parts),                                                                            \
         2,                                                                                        \
         18,                                                                                       \
         SHAPE_SINGLE(8ull << 20, 6),                                                              \
         "StackedDrg8MiBV1"},                                                                      \
        {(first) + 2,                                                                              \
         "StackedDrg512MiB" suffix,                                                                \
         (variant),                                                                                \
         (api),                                                                                    \
         512ull << 20,                                                                             \
         1ull << 24,                                                                               \
         2,                                                                                        \
         (small_parts),                                                                            \
         2,                                                                                        \
         24,                                                                                       \
         SHAPE_SINGLE(512ull << 20, 8),                                                            \
         "StackedDrg512MiBV1"},                                                                    \
        {(first) + 3, "StackedDrg32GiB" suffix,                                                    \
         (variant),   (api),                                                                       \
         32ull << 30, 1ull << 30,                                                                  \
         11,          (big_parts),                                                                 \
         18,          30,                                                                          \
         SHAPE_32G,   "StackedDrg32GiBV1"},                                                        \
    {                                                                                              \
        (first) + 4, "StackedDrg64GiB" suffix, (variant), (api), 64ull << 30, 1ull << 31, 11,      \
            (big_parts), 18, 31, SHAPE_64G, "StackedDrg64GiBV1"                                    \
    }

static const czk_porep_type types[CZK_POREP_N_TYPES] = {
    ROWS(0, "V1", CZK_POREP_INTERACTIVE, CZK_VANILLA_API_V1_0, 1, 10),
    ROWS(5, "V1_1", CZK_POREP_INTERACTIVE, CZK_VANILLA_API_V1_1, 1, 10),
    /* API 1.2, not the 1.1 of the name (filecoin-proofs-api@0e64ce8d:src/registry.rs:141). */
    ROWS(10, "V1_1_Feat_SyntheticPoRep", CZK_POREP_SYNTHETIC, CZK_VANILLA_API_V1_2, 1, 10),
    ROWS(15, "V1_2_Feat_NonInteractivePoRep", CZK_POREP_NI, CZK_VANILLA_API_V1_2, 13, 126),
};

const czk_porep_type *czk_porep_type_from_abi(uint64_t abi_id, czk_err *err) {
    if (abi_id >= CZK_POREP_N_TYPES) {
        czk_err_set(err, CZK_EUNSUPPORTED,
                    "registered seal proof %llu is not one of 0-19 (StackedDrg V1, V1_1, "
                    "V1_1_Feat_SyntheticPoRep, V1_2_Feat_NonInteractivePoRep)",
                    (unsigned long long)abi_id);
        return NULL;
    }
    return &types[abi_id];
}

const czk_porep_type *czk_porep_type_from_name(const char *name, czk_err *err) {
    for (size_t i = 0; name != NULL && i < CZK_POREP_N_TYPES; i++)
        if (strcmp(types[i].name, name) == 0)
            return &types[i];
    czk_err_set(err, CZK_EUNSUPPORTED, "unknown registered seal proof \"%.64s\"",
                name != NULL ? name : "(null)");
    return NULL;
}

const czk_porep_type *czk_porep_type_for_size(uint64_t sector_size, czk_err *err) {
    for (size_t i = 5; i < 10; i++)
        if (types[i].sector_size == sector_size)
            return &types[i];
    czk_err_set(err, CZK_EUNSUPPORTED,
                "sector size %llu is not a PoRep sector size (2 KiB, 8 MiB, 512 MiB, 32 GiB, "
                "64 GiB)",
                (unsigned long long)sector_size);
    return NULL;
}

void czk_porep_id(uint8_t out[32], const czk_porep_type *type) {
    memset(out, 0, 32);
    czk_bytes_store_le64(out, type->abi_id);
    /* bytes 8..16: the nonce, always 0 in filecoin-proofs-api */
}

int czk_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                         const uint8_t ticket[32], const uint8_t comm_d[32],
                         const uint8_t porep_id[32], czk_err *err) {
    uint8_t msg[32 + 8 + 32 + 32 + 32];
    memcpy(msg, prover_id, 32);
    czk_bytes_store_be64(msg + 32, sector_id); /* big-endian, unlike the rest */
    memcpy(msg + 40, ticket, 32);
    memcpy(msg + 72, comm_d, 32);
    memcpy(msg + 104, porep_id, 32);
    if (SHA256(msg, sizeof(msg), out) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
    out[31] &= 0x3f;
    return CZK_OK;
}

/* The 256-bit little-endian integer of `d` modulo m (m < 2^32 · 2^32), by Horner from the top
 * byte down with 128-bit intermediates. */
static uint64_t le256_mod(const uint8_t d[32], uint64_t m) {
    unsigned __int128 acc = 0;
    for (int i = 31; i >= 0; i--)
        acc = ((acc << 8) | d[i]) % m;
    return (uint64_t)acc;
}

int czk_porep_interactive_challenges(uint64_t *out, const czk_porep_type *type,
                                     const uint8_t replica_id[32], const uint8_t seed[32],
                                     uint32_t k, czk_err *err) {
    if (type->variant != CZK_POREP_INTERACTIVE)
        return czk_err_set(err, CZK_EINVAL, "%s does not use interactive challenges", type->name);
    if (k >= type->partitions)
        return czk_err_set(err, CZK_EINVAL, "partition %u of %s, which has %u", k, type->name,
                           type->partitions);
    uint8_t msg[68], md[32];
    memcpy(msg, replica_id, 32);
    memcpy(msg + 32, seed, 32);
    for (uint32_t i = 0; i < type->challenges; i++) {
        uint32_t j = k * type->challenges + i;
        czk_bytes_store_le32(msg + 64, j);
        if (SHA256(msg, sizeof(msg), md) == NULL)
            return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
        out[i] = le256_mod(md, type->nodes - 1) + 1;
    }
    return CZK_OK;
}

/* ---- synthetic PoRep ------------------------------------------------------------------- */

/* rust-fil-proofs@87348a74:storage-proofs-porep/src/stacked/vanilla/challenges.rs:216-246. The
 * primitives come from OpenSSL: unlike the SDR graph's per-node ChaCha8 and BLAKE2b (sdr.c),
 * they run once per partition, where an EVP call costs nothing that matters. */
#define SYNTH_GEN_TAG "filecoin.io|PoRep|1|Synthetic|1|Generation"
#define SYNTH_SEL_TAG "filecoin.io|PoRep|1|Synthetic|1|Selection"
static const uint8_t synth_nonce[12] = "synth-porep"; /* with its terminating zero: 12 bytes */

/* BLAKE2b-256 keyed with `tag` of a ‖ b: the key of one ChaCha20 stream (chacha20_gen and
 * chacha20_select). */
static int synth_key(uint8_t out[32], const char *tag, const uint8_t a[32], const uint8_t b[32],
                     czk_err *err) {
    int ok = 0;
    size_t outlen = 32, got = 0;
    EVP_MAC *mac = EVP_MAC_fetch(NULL, "BLAKE2BMAC", NULL);
    EVP_MAC_CTX *ctx = mac != NULL ? EVP_MAC_CTX_new(mac) : NULL;
    OSSL_PARAM params[2] = {OSSL_PARAM_construct_size_t(OSSL_MAC_PARAM_SIZE, &outlen),
                            OSSL_PARAM_construct_end()};
    if (ctx != NULL && EVP_MAC_init(ctx, (const unsigned char *)tag, strlen(tag), params) == 1 &&
        EVP_MAC_update(ctx, a, 32) == 1 && EVP_MAC_update(ctx, b, 32) == 1 &&
        EVP_MAC_final(ctx, out, &got, 32) == 1 && got == 32)
        ok = 1;
    EVP_MAC_CTX_free(ctx);
    EVP_MAC_free(mac);
    return ok ? CZK_OK : czk_err_set(err, CZK_EINTERNAL, "OpenSSL BLAKE2BMAC failed");
}

/* Bytes [offset, offset + len) of the ChaCha20 keystream of `key` with the synthetic nonce, as
 * the chacha20 crate's try_seek(offset) then apply_keystream over zeros gives them. OpenSSL's
 * 16-byte IV is the LE32 block counter, then the nonce. */
static int synth_keystream(uint8_t *out, size_t len, const uint8_t key[32], uint64_t offset,
                           czk_err *err) {
    uint8_t iv[16], skip[64] = {0};
    uint32_t block = (uint32_t)(offset / 64);
    int skip_len = (int)(offset % 64), n = 0, ok = 0;
    czk_bytes_store_le32(iv, block);
    memcpy(iv + 4, synth_nonce, 12);
    memset(out, 0, len);
    EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
    if (ctx != NULL && EVP_EncryptInit_ex(ctx, EVP_chacha20(), NULL, key, iv) == 1 &&
        (skip_len == 0 || EVP_EncryptUpdate(ctx, skip, &n, skip, skip_len) == 1) &&
        EVP_EncryptUpdate(ctx, out, &n, out, (int)len) == 1 && n == (int)len)
        ok = 1;
    EVP_CIPHER_CTX_free(ctx);
    return ok ? CZK_OK : czk_err_set(err, CZK_EINTERNAL, "OpenSSL ChaCha20 failed");
}

/* The synthetic challenge of 32 keystream bytes (challenges.rs:9, bigint_to_challenge). */
static uint64_t synth_challenge(const uint8_t rand[32], uint64_t nodes) {
    return le256_mod(rand, nodes - 1) + 1;
}

/* Synthetic challenges first … first + count − 1 from the generation key. */
static int synth_set_keyed(uint64_t *out, uint64_t nodes, const uint8_t key[32], uint32_t first,
                           uint32_t count, czk_err *err) {
    uint8_t rand[32 * 64];
    int rc = CZK_OK;
    for (uint32_t done = 0; rc == CZK_OK && done < count;) {
        uint32_t n = count - done < 64 ? count - done : 64;
        rc = synth_keystream(rand, 32 * (size_t)n, key, 32 * ((uint64_t)first + done), err);
        for (uint32_t i = 0; rc == CZK_OK && i < n; i++)
            out[done + i] = synth_challenge(rand + 32 * i, nodes);
        done += n;
    }
    return rc;
}

int czk_porep_synth_set(uint64_t *out, uint64_t nodes, const uint8_t replica_id[32],
                        const uint8_t comm_r[32], uint32_t first, uint32_t count, czk_err *err) {
    if (nodes < 2 || nodes >= 1ull << 32)
        return czk_err_set(err, CZK_EINVAL, "synthetic challenges of %llu nodes (2 … 2^32 − 1)",
                           (unsigned long long)nodes);
    /* Rust seeks to byte 32·s as a u32 (challenges.rs:324). */
    if ((uint64_t)first + count > 1ull << 27)
        return czk_err_set(err, CZK_EINVAL, "synthetic challenges %u … %llu: beyond 2^27", first,
                           (unsigned long long)first + count);
    uint8_t key[32];
    int rc = synth_key(key, SYNTH_GEN_TAG, replica_id, comm_r, err);
    if (rc == CZK_OK)
        rc = synth_set_keyed(out, nodes, key, first, count, err);
    return rc;
}

int czk_porep_synth_select(uint32_t *out, uint32_t n_synth, const uint8_t replica_id[32],
                           const uint8_t seed[32], uint32_t first, uint32_t count, czk_err *err) {
    if (n_synth == 0)
        return czk_err_set(err, CZK_EINVAL, "selecting from no synthetic challenges");
    /* Rust seeks to byte 4·j as a u32 (challenges.rs:348). */
    if ((uint64_t)first + count > 1ull << 30)
        return czk_err_set(err, CZK_EINVAL, "PoRep challenges %u … %llu: beyond 2^30", first,
                           (unsigned long long)first + count);
    uint8_t key[32], rand[4 * 64];
    int rc = synth_key(key, SYNTH_SEL_TAG, replica_id, seed, err);
    for (uint32_t done = 0; rc == CZK_OK && done < count;) {
        uint32_t n = count - done < 64 ? count - done : 64;
        rc = synth_keystream(rand, 4 * (size_t)n, key, 4 * ((uint64_t)first + done), err);
        for (uint32_t i = 0; rc == CZK_OK && i < n; i++)
            out[done + i] = czk_bytes_load_le32(rand + 4 * i) % n_synth;
        done += n;
    }
    return rc;
}

int czk_porep_synthetic_challenges(uint64_t *out, uint32_t *synth_index, const czk_porep_type *type,
                                   const uint8_t replica_id[32], const uint8_t comm_r[32],
                                   const uint8_t seed[32], uint32_t k, czk_err *err) {
    if (type->variant != CZK_POREP_SYNTHETIC)
        return czk_err_set(err, CZK_EINVAL, "%s does not use synthetic challenges", type->name);
    if (k >= type->partitions)
        return czk_err_set(err, CZK_EINVAL, "partition %u of %s, which has %u", k, type->name,
                           type->partitions);
    if (type->challenges > CZK_POREP_MAX_CHALLENGES)
        return czk_err_set(err, CZK_EINTERNAL, "%s: %u challenges per partition", type->name,
                           type->challenges);
    /* gen_porep_partition_challenges (challenges.rs:368): the partition's synthetic indexes,
     * then the synthetic challenge at each. */
    uint32_t idx[CZK_POREP_MAX_CHALLENGES];
    uint8_t key[32];
    int rc = czk_porep_synth_select(idx, czk_porep_synth_count(type->nodes), replica_id, seed,
                                    k * type->challenges, type->challenges, err);
    if (rc == CZK_OK)
        rc = synth_key(key, SYNTH_GEN_TAG, replica_id, comm_r, err);
    for (uint32_t i = 0; rc == CZK_OK && i < type->challenges; i++) {
        rc = synth_set_keyed(&out[i], type->nodes, key, idx[i], 1, err);
        if (synth_index != NULL)
            synth_index[i] = idx[i];
    }
    return rc;
}

int czk_porep_type_supported(const czk_porep_type *type, czk_err *err) {
    if (type->variant == CZK_POREP_INTERACTIVE || type->variant == CZK_POREP_SYNTHETIC)
        return CZK_OK;
    /* seal_commit_phase2 aggregates NI's partition proofs
     * (rust-fil-proofs@87348a74:filecoin-proofs/src/api/seal.rs:610). */
    return czk_err_set(err, CZK_EUNSUPPORTED,
                       "%s: non-interactive PoRep is not supported: Curio does not seal it (and "
                       "its C2 output is a SnarkPack aggregate of %u partition proofs)",
                       type->name, type->partitions);
}

int czk_porep_challenges(uint64_t *out, const czk_porep_type *type, const uint8_t replica_id[32],
                         const uint8_t comm_r[32], const uint8_t seed[32], uint32_t k,
                         czk_err *err) {
    int rc = czk_porep_type_supported(type, err);
    if (rc != CZK_OK)
        return rc;
    if (type->variant == CZK_POREP_SYNTHETIC)
        return czk_porep_synthetic_challenges(out, NULL, type, replica_id, comm_r, seed, k, err);
    return czk_porep_interactive_challenges(out, type, replica_id, seed, k, err);
}
