/*
 * The Fallback PoSt circuit (contract in post.h): Sector::synthesize of
 * rust-fil-proofs' storage-proofs-post/src/fallback/circuit.rs for every slot in order.
 */
#include "filecoin/post.h"

#include "filecoin/gadgets.h"
#include "filecoin/poseidon_gadget.h"

int czk_post_shape_init(czk_post_shape *out, czk_vanilla_post_kind kind, uint64_t sector_size,
                        czk_err *err) {
    /* Registered proofs 0–4 are WinningPoSt and 5–9 WindowPoSt, one per sector size: find the
     * one with this kind and size rather than repeat vanilla.h's table. */
    for (uint64_t abi = 0; abi < 10; abi++) {
        czk_vanilla_post_type ty;
        if (czk_vanilla_post_type_from_abi(&ty, abi, NULL) != CZK_OK || ty.kind != kind ||
            ty.shape.sector_size != sector_size)
            continue;
        out->kind = kind;
        out->sector_size = sector_size;
        if (kind == CZK_VANILLA_POST_WINNING) {
            /* One sector's challenge_count inclusion proofs become as many one-challenge
             * slots (filecoin-proofs' api/winning_post.rs). */
            out->slots = (size_t)ty.challenge_count * ty.sector_count;
            out->challenges = 1;
        } else {
            out->slots = ty.sector_count;
            out->challenges = ty.challenge_count;
        }
        out->tree.base_arity = 8;
        out->tree.base_levels = ty.shape.base_levels;
        out->tree.sub_arity = ty.shape.sub_arity;
        out->tree.top_arity = ty.shape.top_arity;
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EUNSUPPORTED, "post: no %s PoSt for sector size %llu",
                       kind == CZK_VANILLA_POST_WINNING ? "Winning" : "Window",
                       (unsigned long long)sector_size);
}

/* Slot s's sector and its first inclusion proof. */
static void slot_source(const czk_post_shape *shape, const czk_vanilla_sector *sectors,
                        size_t n_sectors, size_t s, const czk_vanilla_sector **sec, size_t *first) {
    if (shape->kind == CZK_VANILLA_POST_WINNING) {
        *sec = &sectors[0];
        *first = s;
    } else {
        *sec = &sectors[s < n_sectors ? s : n_sectors - 1];
        *first = 0;
    }
}

int czk_post_synthesize(czk_cs *cs, const czk_post_shape *shape, const czk_vanilla_sector *sectors,
                        size_t n_sectors) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    int values = czk_cs_has_values(cs);
    uint32_t levels = czk_por_shape_levels(&shape->tree);
    if (levels == 0 || shape->slots == 0 || shape->challenges == 0)
        return czk_cs_set_error(cs, CZK_EINVAL, "post: invalid shape");
    if (sectors != NULL || values) {
        int bad =
            sectors == NULL || n_sectors == 0 ||
            (shape->kind == CZK_VANILLA_POST_WINNING ? n_sectors != 1 : n_sectors > shape->slots);
        for (size_t i = 0; !bad && i < n_sectors; i++) {
            size_t need =
                shape->kind == CZK_VANILLA_POST_WINNING ? shape->slots : shape->challenges;
            bad = sectors[i].n_inclusions != need;
            for (size_t k = 0; !bad && k < need; k++)
                bad = sectors[i].inclusion[k].n_levels != levels;
        }
        if (bad)
            return czk_cs_set_error(cs, CZK_EINVAL, "post: %zu vanilla proofs do not fit the shape",
                                    n_sectors);
    }
    const czk_poseidon_circuit *h2;
    czk_err e;
    if (czk_poseidon_circuit_get(&h2, 2, &e) != CZK_OK)
        return czk_cs_set_error(cs, CZK_EINTERNAL, "post: %s", e.msg);

    for (size_t s = 0; s < shape->slots; s++) {
        const czk_vanilla_sector *sec = NULL;
        size_t first = 0;
        if (sectors != NULL)
            slot_source(shape, sectors, n_sectors, s, &sec, &first);
        czk_var comm_r_last, comm_c, comm_r, pair[2], hash;
        if ((rc = czk_cs_alloc(cs, &comm_r_last, sec ? &sec->comm_r_last : NULL)) != CZK_OK ||
            (rc = czk_cs_alloc(cs, &comm_c, sec ? &sec->comm_c : NULL)) != CZK_OK ||
            (rc = czk_cs_alloc(cs, &comm_r, sec ? &sec->comm_r : NULL)) != CZK_OK ||
            (rc = czk_gadget_num_inputize(cs, NULL, comm_r)) != CZK_OK)
            return rc;
        /* comm_c is hash2's first argument, as in PoRep. */
        pair[0] = comm_c;
        pair[1] = comm_r_last;
        if ((rc = czk_poseidon_gadget_hash(cs, &hash, h2, pair, 2)) != CZK_OK ||
            (rc = czk_gadget_equal(cs, comm_r, hash)) != CZK_OK)
            return rc;
        czk_por_root root = {CZK_POR_ROOT_VAR, comm_r_last, CZK_FR_ZERO};
        for (size_t k = 0; k < shape->challenges; k++) {
            const czk_vanilla_inclusion *inc = sec ? &sec->inclusion[first + k] : NULL;
            czk_por_root leaf = {CZK_POR_ROOT_VAL, 0, inc ? inc->leaf : CZK_FR_ZERO};
            if ((rc = czk_por_synthesize(cs, NULL, &shape->tree, &leaf, inc ? inc->level : NULL,
                                         &root, 1)) != CZK_OK)
                return rc;
        }
    }
    return CZK_OK;
}
