/*
 * DESIGN: sparse tree_r_last paths for generated vanilla proofs (contract in vanilla_gen.h).
 *
 * A sector proof opens at most 66 leaves, so the tree behind it is held as the nodes of those
 * paths alone, level by level: at each level the challenges whose nodes share a parent share
 * one row of `arity` children (the path nodes computed below it, the rest drawn at random),
 * and the parent is the Poseidon hash of that row. Two challenges of the same leaf, or of
 * leaves under one parent, therefore see the same siblings, as in a real tree. The work is
 * challenges × levels hashes (660 Poseidon-8 for a WinningPoSt 32 GiB proof, ~35 ms).
 */
#include "filecoin/testgen/vanilla_gen.h"

#include <string.h>

#include "filecoin/hash/poseidon.h"
#include "util/alloc.h"

/* The arity of level l (0: the leaves' parents) of a tree of shape sh. */
static uint32_t level_arity(const czk_vanilla_shape *sh, uint32_t l) {
    if (l < sh->base_levels)
        return 8;
    if (l == sh->base_levels && sh->sub_arity != 0)
        return sh->sub_arity;
    return sh->top_arity;
}

int czk_vanilla_sector_generate(czk_vanilla_sector *out, const czk_vanilla_post_type *type,
                                const uint8_t randomness[32], uint64_t sector_id,
                                uint64_t sector_index, czk_rng *rng, czk_err *err) {
    const czk_vanilla_shape *sh = &type->shape;
    size_t m = type->challenge_count;
    memset(out, 0, sizeof *out);
    if (m == 0 || m > CZK_VANILLA_MAX_CHALLENGES || sh->levels == 0 ||
        sh->levels > CZK_VANILLA_MAX_LEVELS)
        return czk_err_set(err, CZK_EINVAL, "vanilla proof generator: post type not initialised");
    out->inclusion = czk_calloc(m, sizeof *out->inclusion);
    if (out->inclusion == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate %zu inclusion proofs", m);
    out->n_inclusions = m;
    out->sector_id = sector_id;
    /* node[n]: challenge n's node at the current level, pos[n] its index in that level. */
    czk_fr node[CZK_VANILLA_MAX_CHALLENGES];
    uint64_t pos[CZK_VANILLA_MAX_CHALLENGES];
    int rc = CZK_OK;
    for (size_t n = 0; n < m && rc == CZK_OK; n++) {
        uint64_t idx;
        rc = czk_vanilla_challenge_index(&idx, type->api, sector_index, m, n, err);
        if (rc == CZK_OK)
            rc = czk_vanilla_leaf_challenge(&pos[n], randomness, sector_id, idx, sh->nodes, err);
        if (rc != CZK_OK)
            break;
        out->inclusion[n].leaf_index = pos[n];
        out->inclusion[n].n_levels = sh->levels;
        /* A leaf challenged twice is one leaf. */
        size_t same = 0;
        while (same < n && pos[same] != pos[n])
            same++;
        if (same < n)
            node[n] = node[same];
        else
            czk_fr_random(&node[n], rng);
        out->inclusion[n].leaf = node[n];
    }
    for (uint32_t l = 0; l < sh->levels && rc == CZK_OK; l++) {
        uint32_t a = level_arity(sh, l);
        int done[CZK_VANILLA_MAX_CHALLENGES] = {0};
        for (size_t n = 0; n < m && rc == CZK_OK; n++) {
            if (done[n])
                continue;
            uint64_t parent = pos[n] / a;
            czk_fr row[8];
            for (uint32_t i = 0; i < a; i++)
                czk_fr_random(&row[i], rng);
            /* Every challenge under this parent puts its node in the row and takes the row
             * as its level's siblings. */
            for (size_t k = n; k < m; k++)
                if (!done[k] && pos[k] / a == parent)
                    row[pos[k] % a] = node[k];
            czk_fr up;
            rc = czk_poseidon_hash_arity(row, a, &up, err);
            for (size_t k = n; k < m && rc == CZK_OK; k++) {
                if (done[k] || pos[k] / a != parent)
                    continue;
                czk_vanilla_level *lv = &out->inclusion[k].level[l];
                lv->arity = a;
                lv->index = (uint32_t)(pos[k] % a);
                for (uint32_t i = 0, j = 0; i < a; i++)
                    if (i != lv->index)
                        lv->sib[j++] = row[i];
                node[k] = up;
                pos[k] = parent;
                done[k] = 1;
            }
        }
    }
    if (rc == CZK_OK) {
        out->comm_r_last = node[0];
        for (size_t n = 0; n < m; n++)
            out->inclusion[n].root = out->comm_r_last;
        czk_fr_random(&out->comm_c, rng);
        czk_fr pair[2] = {out->comm_c, out->comm_r_last};
        rc = czk_poseidon_hash_arity(pair, 2, &out->comm_r, err);
    }
    if (rc != CZK_OK)
        czk_vanilla_sector_clear(out);
    return rc;
}

int czk_vanilla_sector_verify_paths(const czk_vanilla_sector *s, czk_err *err) {
    for (size_t k = 0; k < s->n_inclusions; k++) {
        const czk_vanilla_inclusion *inc = &s->inclusion[k];
        czk_fr cur = inc->leaf;
        for (uint32_t l = 0; l < inc->n_levels; l++) {
            const czk_vanilla_level *lv = &inc->level[l];
            if (lv->arity < 2 || lv->arity > 8 || lv->index >= lv->arity)
                return czk_err_set(err, CZK_EINVAL,
                                   "sector %llu: inclusion proof %zu level %u is malformed",
                                   (unsigned long long)s->sector_id, k, l);
            czk_fr in[8];
            for (uint32_t i = 0, j = 0; i < lv->arity; i++)
                in[i] = i == lv->index ? cur : lv->sib[j++];
            int rc = czk_poseidon_hash_arity(in, lv->arity, &cur, err);
            if (rc != CZK_OK)
                return rc;
        }
        if (!czk_fr_equal(&cur, &s->comm_r_last))
            return czk_err_set(err, CZK_EVERIFY,
                               "sector %llu: inclusion proof %zu (leaf %llu) does not hash to "
                               "comm_r_last",
                               (unsigned long long)s->sector_id, k,
                               (unsigned long long)inc->leaf_index);
    }
    czk_fr pair[2] = {s->comm_c, s->comm_r_last}, comm_r;
    int rc = czk_poseidon_hash_arity(pair, 2, &comm_r, err);
    if (rc == CZK_OK && !czk_fr_equal(&comm_r, &s->comm_r))
        rc = czk_err_set(err, CZK_EVERIFY,
                         "sector %llu: comm_r is not Poseidon-2(comm_c, comm_r_last)",
                         (unsigned long long)s->sector_id);
    return rc;
}
