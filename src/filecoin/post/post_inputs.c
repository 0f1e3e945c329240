/*
 * PoSt public inputs (post_inputs.h).
 *
 * DESIGN: both entry points fill the real sectors' blocks and then share one padding step, so
 * that the inputs derived from public data and the ones read off vanilla proofs cannot differ in
 * layout; params_test.c compares the two on Curio's real 32 GiB proof.
 *
 * Upstream code cited here was read at curio@e0294b0f (2026-08-20).
 */
#include "filecoin/post/post_inputs.h"

#include <string.h>

size_t czk_public_inputs_post_dims(size_t *slots, size_t *challenges,
                                   const czk_vanilla_post_type *type) {
    /* filecoin-proofs parameters.rs: WinningPoSt's 66 challenges of one sector become 66
     * one-challenge slots. */
    size_t s = type->kind == CZK_VANILLA_POST_WINNING ? type->challenge_count : type->sector_count;
    size_t k = type->kind == CZK_VANILLA_POST_WINNING ? 1 : type->challenge_count;
    if (slots != NULL)
        *slots = s;
    if (challenges != NULL)
        *challenges = k;
    return s * (1 + k);
}

/* Checks the sector count and out_len. Out: *slots and *k (czk_public_inputs_post_dims), *real
 * = how many slots the sectors fill themselves. */
static int check_shape(size_t *real, size_t *slots_out, size_t *k,
                       const czk_vanilla_post_type *type, size_t out_len, size_t n_sectors,
                       czk_err *err) {
    size_t slots;
    size_t count = czk_public_inputs_post_dims(&slots, k, type);
    *slots_out = slots;
    if (out_len != count)
        return czk_err_set(err, CZK_EINVAL,
                           "PoSt type %u has %zu public inputs (ONE excluded), %zu given",
                           type->abi_id, count, out_len);
    if (type->kind == CZK_VANILLA_POST_WINNING) {
        if (n_sectors != 1)
            return czk_err_set(err, CZK_EINVAL, "WinningPoSt proves exactly 1 sector, %zu given",
                               n_sectors);
        *real = slots; /* the one sector fills every slot, each with its own challenge */
    } else {
        if (n_sectors == 0 || n_sectors > slots)
            return czk_err_set(err, CZK_EINVAL,
                               "a WindowPoSt partition of type %u holds 1 to %zu sectors, %zu "
                               "given",
                               type->abi_id, slots, n_sectors);
        *real = n_sectors;
    }
    return CZK_OK;
}

/* compound.rs: "duplicate last one if too little sectors available". */
static void pad(czk_fr *out, size_t real, size_t slots, size_t per_slot) {
    const czk_fr *last = out + (real - 1) * per_slot;
    for (size_t s = real; s < slots; s++)
        memcpy(out + s * per_slot, last, per_slot * sizeof(*out));
}

int czk_public_inputs_post_derive(czk_fr *out, size_t out_len, const czk_vanilla_post_type *type,
                                  const uint8_t randomness[32], uint64_t partition_index,
                                  const czk_public_inputs_sector *sectors, size_t n_sectors,
                                  czk_err *err) {
    size_t real, slots, k;
    int rc = check_shape(&real, &slots, &k, type, out_len, n_sectors, err);
    if (rc != CZK_OK)
        return rc;
    if (type->kind == CZK_VANILLA_POST_WINNING && partition_index != 0)
        return czk_err_set(err, CZK_EINVAL, "WinningPoSt has one partition, index %llu given",
                           (unsigned long long)partition_index);
    uint64_t first, end;
    if (__builtin_mul_overflow(partition_index, (uint64_t)slots, &first) ||
        __builtin_add_overflow(first, (uint64_t)real, &end))
        return czk_err_set(err, CZK_ERANGE, "partition index %llu overflows the sector index",
                           (unsigned long long)partition_index);
    for (size_t i = 0; i < real; i++) {
        const czk_public_inputs_sector *sec =
            &sectors[type->kind == CZK_VANILLA_POST_WINNING ? 0 : i];
        czk_fr *slot = out + i * (1 + k);
        slot[0] = sec->comm_r;
        for (size_t n = 0; n < k; n++) {
            uint64_t idx, leaf;
            rc = czk_vanilla_challenge_index(&idx, type->api, first + i, k, n, err);
            if (rc == CZK_OK)
                rc = czk_vanilla_leaf_challenge(&leaf, randomness, sec->sector_id, idx,
                                                type->shape.nodes, err);
            if (rc != CZK_OK)
                return rc;
            czk_fr_set_u64(&slot[1 + n], leaf);
        }
    }
    pad(out, real, slots, 1 + k);
    return CZK_OK;
}

int czk_public_inputs_post_from_vanilla(czk_fr *out, size_t out_len,
                                        const czk_vanilla_post_type *type,
                                        const czk_vanilla_sector *sectors, size_t n_sectors,
                                        czk_err *err) {
    size_t real, slots, k;
    int rc = check_shape(&real, &slots, &k, type, out_len, n_sectors, err);
    if (rc != CZK_OK)
        return rc;
    for (size_t i = 0; i < n_sectors; i++)
        if (sectors[i].n_inclusions != type->challenge_count)
            return czk_err_set(err, CZK_EINVAL,
                               "vanilla proof %zu (sector %llu) has %zu inclusion proofs, type %u "
                               "needs %u",
                               i, (unsigned long long)sectors[i].sector_id, sectors[i].n_inclusions,
                               type->abi_id, type->challenge_count);
    for (size_t i = 0; i < real; i++) {
        /* WinningPoSt slot i is the one sector's i-th inclusion proof. */
        int win = type->kind == CZK_VANILLA_POST_WINNING;
        const czk_vanilla_sector *sec = &sectors[win ? 0 : i];
        czk_fr *slot = out + i * (1 + k);
        slot[0] = sec->comm_r;
        for (size_t n = 0; n < k; n++)
            czk_fr_set_u64(&slot[1 + n], sec->inclusion[win ? i : n].leaf_index);
    }
    pad(out, real, slots, 1 + k);
    return CZK_OK;
}
