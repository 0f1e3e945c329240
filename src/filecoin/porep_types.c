#include "filecoin/porep_types.h"

#include <openssl/sha.h>
#include <string.h>

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
    ROWS(10, "V1_1_Feat_SyntheticPoRep", CZK_POREP_SYNTHETIC, CZK_VANILLA_API_V1_1, 1, 10),
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

static void put_le64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

void czk_porep_id(uint8_t out[32], const czk_porep_type *type) {
    memset(out, 0, 32);
    put_le64(out, type->abi_id);
    /* bytes 8..16: the nonce, always 0 in filecoin-proofs-api */
}

int czk_porep_replica_id(uint8_t out[32], const uint8_t prover_id[32], uint64_t sector_id,
                         const uint8_t ticket[32], const uint8_t comm_d[32],
                         const uint8_t porep_id[32], czk_err *err) {
    uint8_t msg[32 + 8 + 32 + 32 + 32];
    memcpy(msg, prover_id, 32);
    for (int i = 0; i < 8; i++)
        msg[32 + i] = (uint8_t)(sector_id >> (56 - 8 * i)); /* big-endian, unlike the rest */
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
        for (int b = 0; b < 4; b++)
            msg[64 + b] = (uint8_t)(j >> (8 * b));
        if (SHA256(msg, sizeof(msg), md) == NULL)
            return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
        out[i] = le256_mod(md, type->nodes - 1) + 1;
    }
    return CZK_OK;
}
