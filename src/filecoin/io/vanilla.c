/*
 * DESIGN: the bincode of Fallback PoSt vanilla proofs (contract in vanilla.h; the shapes and
 * challenges it checks against are in spec/sector.c).
 *
 * The bytes come from the network (Curio's ProveRequest), so the decoder treats them as
 * hostile: it walks them with a bounds-checked cursor, compares every count with the one the
 * tree shape fixes before reading or allocating anything it sizes, and reports the first fault
 * with the proof's position, its sector id (once read), the field and the byte offset. The one
 * allocation is the inclusion-proof array, sized by the post type's challenge count (≤ 66),
 * never by a count read from the input.
 *
 * The layout follows rust-fil-proofs' serde derives (storage-proofs-core/src/merkle/proof.rs,
 * storage-proofs-post/src/fallback/vanilla.rs, filecoin-proofs/src/types) as bincode 1.x
 * writes them; Curio's Go decoder (lib/proof/post_vproof_bin_decode.go) reads the same.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), curio@e0294b0f
 * (2026-08-20).
 */
#include "filecoin/io/vanilla.h"

#include "filecoin/io/bincode.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bytes.h"

/* ---- the proof ------------------------------------------------------------------------- */

static int rd_inclusion(czk_bincode_reader *r, czk_vanilla_inclusion *inc,
                        const czk_vanilla_shape *sh, size_t k) {
    char name[96], field[128];
    size_t at = r->off;
    uint32_t tag;
    snprintf(name, sizeof(name), "inclusion proof %zu", k);
    snprintf(field, sizeof(field), "%s variant tag", name);
    int rc = czk_bincode_u32(r, &tag, field);
    if (rc != CZK_OK)
        return rc;
    if (tag != (uint32_t)sh->variant)
        return czk_bincode_fail(r, CZK_EFORMAT, at, "%s is %u, a %llu-byte sector needs %u", field,
                                tag, (unsigned long long)sh->sector_size, (unsigned)sh->variant);
    inc->n_levels = sh->levels;
    const czk_bincode_tree t = {8, sh->base_levels, sh->sub_arity, sh->top_arity, sh->variant};
    return czk_bincode_merkle(r, &inc->root, &inc->leaf, inc->level, &t, name);
}

int czk_vanilla_sector_decode(czk_vanilla_sector *out, const czk_vanilla_post_type *type,
                              const uint8_t *buf, size_t len, size_t ordinal, czk_err *err) {
    memset(out, 0, sizeof(*out));
    czk_bincode_reader r;
    czk_bincode_init(&r, buf, len, err, "vanilla proof %zu", ordinal);
    const czk_vanilla_shape *sh = &type->shape;
    int rc;
    if (sh->levels == 0 || sh->levels > CZK_VANILLA_MAX_LEVELS || type->challenge_count == 0 ||
        type->challenge_count > CZK_VANILLA_MAX_CHALLENGES) {
        rc = czk_err_set(err, CZK_EINVAL, "vanilla proof %zu: post type is not initialised",
                         ordinal);
        goto out;
    }
    rc = czk_bincode_u64(&r, &out->sector_id, "sector id");
    if (rc != CZK_OK)
        goto out;
    czk_bincode_rename(&r, "vanilla proof %zu (sector %llu)", ordinal,
                       (unsigned long long)out->sector_id);
    rc = czk_bincode_fr(&r, &out->comm_r, "comm_r");
    if (rc == CZK_OK) /* Proof.sectors: one SectorProof per FallbackPoStSectorProof */
        rc = czk_bincode_expect(&r, 1, 8, "sector proof count");
    if (rc == CZK_OK)
        rc = czk_bincode_expect(&r, type->challenge_count, 8, "inclusion proof count");
    if (rc != CZK_OK)
        goto out;
    /* The count was checked against the type above, so this is at most 66 entries. */
    out->inclusion = czk_bincode_calloc(&r, type->challenge_count, sizeof(*out->inclusion),
                                        "inclusion proofs", &rc);
    if (out->inclusion == NULL)
        goto out;
    out->n_inclusions = type->challenge_count;
    for (size_t k = 0; rc == CZK_OK && k < out->n_inclusions; k++) {
        rc = rd_inclusion(&r, &out->inclusion[k], sh, k);
        if (rc == CZK_OK)
            out->inclusion[k].leaf_index =
                czk_bincode_leaf_index(out->inclusion[k].level, out->inclusion[k].n_levels);
    }
    if (rc == CZK_OK)
        rc = czk_bincode_fr(&r, &out->comm_c, "comm_c");
    if (rc == CZK_OK)
        rc = czk_bincode_fr(&r, &out->comm_r_last, "comm_r_last");
    if (rc == CZK_OK)
        rc = czk_bincode_end(&r);
out:
    if (rc != CZK_OK)
        czk_vanilla_sector_clear(out);
    return rc;
}

int czk_vanilla_sectors_decode(czk_vanilla_sector *out, const czk_vanilla_post_type *type,
                               const uint8_t *const *bufs, const size_t *lens, size_t n,
                               czk_err *err) {
    if (n == 0 || n > type->sector_count || out == NULL || bufs == NULL || lens == NULL)
        return czk_err_set(err, CZK_EINVAL,
                           "%zu vanilla proofs: registered PoSt proof %u takes 1 to %u", n,
                           type->abi_id, type->sector_count);
    for (size_t i = 0; i < n; i++)
        memset(&out[i], 0, sizeof(out[i]));
    for (size_t i = 0; i < n; i++) {
        int rc = czk_vanilla_sector_decode(&out[i], type, bufs[i], lens[i], i, err);
        if (rc != CZK_OK) {
            for (size_t j = 0; j < i; j++)
                czk_vanilla_sector_clear(&out[j]);
            return rc;
        }
    }
    return CZK_OK;
}

/* ---- encoding ------------------------------------------------------------------------- */

/* Bytes of one InclusionPath of `levels` elements of `arity`. */
static size_t path_size(uint32_t levels, uint32_t arity) {
    return 8 + (size_t)levels * (8 + (size_t)(arity - 1) * 32 + 8);
}

size_t czk_vanilla_sector_encoded_size(const czk_vanilla_post_type *type) {
    const czk_vanilla_shape *sh = &type->shape;
    size_t inc = 4 + 64 + path_size(sh->base_levels, 8);
    if (sh->sub_arity != 0)
        inc += path_size(1, sh->sub_arity);
    if (sh->top_arity != 0)
        inc += path_size(1, sh->top_arity);
    return 8 + 32 + 8 + 8 + (size_t)type->challenge_count * inc + 64;
}

typedef struct writer {
    uint8_t *p;
    size_t off;
} writer;

static void wr_u64(writer *w, uint64_t v) {
    czk_bytes_store_le64(w->p + w->off, v);
    w->off += 8;
}

static void wr_fr(writer *w, const czk_fr *a) {
    czk_fr_to_bytes_le(w->p + w->off, a);
    w->off += 32;
}

static void wr_path(writer *w, const czk_vanilla_level *lv, uint32_t levels) {
    wr_u64(w, levels);
    for (uint32_t l = 0; l < levels; l++) {
        wr_u64(w, lv[l].arity - 1);
        for (uint32_t s = 0; s + 1 < lv[l].arity; s++)
            wr_fr(w, &lv[l].sib[s]);
        wr_u64(w, lv[l].index);
    }
}

int czk_vanilla_sector_encode(uint8_t *out, size_t cap, size_t *len, const czk_vanilla_sector *s,
                              const czk_vanilla_post_type *type, czk_err *err) {
    const czk_vanilla_shape *sh = &type->shape;
    size_t need = czk_vanilla_sector_encoded_size(type);
    if (s->n_inclusions != type->challenge_count || s->inclusion == NULL)
        return czk_err_set(err, CZK_EINVAL, "sector %llu: %zu inclusion proofs, the type needs %u",
                           (unsigned long long)s->sector_id, s->n_inclusions,
                           type->challenge_count);
    /* Every path must have the shape the decoder will demand, or the bytes would not read
     * back; checked before anything is written. */
    for (size_t k = 0; k < s->n_inclusions; k++) {
        const czk_vanilla_inclusion *inc = &s->inclusion[k];
        int ok = inc->n_levels == sh->levels;
        for (uint32_t l = 0; ok && l < sh->levels; l++) {
            uint32_t want = l < sh->base_levels    ? 8
                            : l == sh->base_levels ? (sh->sub_arity ? sh->sub_arity : sh->top_arity)
                                                   : sh->top_arity;
            ok = inc->level[l].arity == want && inc->level[l].index < want;
        }
        if (!ok)
            return czk_err_set(err, CZK_EINVAL,
                               "sector %llu: inclusion proof %zu does not have the %u-level "
                               "path of a %llu-byte sector",
                               (unsigned long long)s->sector_id, k, sh->levels,
                               (unsigned long long)sh->sector_size);
    }
    if (cap < need)
        return czk_err_set(err, CZK_ELENGTH, "sector %llu: %zu bytes needed, %zu given",
                           (unsigned long long)s->sector_id, need, cap);
    writer w = {.p = out};
    wr_u64(&w, s->sector_id);
    wr_fr(&w, &s->comm_r);
    wr_u64(&w, 1);
    wr_u64(&w, s->n_inclusions);
    for (size_t k = 0; k < s->n_inclusions; k++) {
        const czk_vanilla_inclusion *inc = &s->inclusion[k];
        czk_bytes_store_le32(w.p + w.off, (uint32_t)sh->variant); /* the variant tag, a u32 */
        w.off += 4;
        if (sh->variant == CZK_VANILLA_SINGLE) {
            wr_fr(&w, &inc->root);
            wr_fr(&w, &inc->leaf);
            wr_path(&w, inc->level, sh->base_levels);
            continue;
        }
        wr_path(&w, inc->level, sh->base_levels);
        wr_path(&w, &inc->level[sh->base_levels], 1);
        if (sh->variant == CZK_VANILLA_TOP)
            wr_path(&w, &inc->level[sh->base_levels + 1], 1);
        wr_fr(&w, &inc->root);
        wr_fr(&w, &inc->leaf);
    }
    wr_fr(&w, &s->comm_c);
    wr_fr(&w, &s->comm_r_last);
    *len = w.off;
    return CZK_OK;
}
