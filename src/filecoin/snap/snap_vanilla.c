/*
 * DESIGN: SnapDeals vanilla partition proofs (contract in snap_vanilla.h).
 *
 * The bytes come from a client, so the decoder treats them as hostile, as vanilla.c does for
 * PoSt: a bounds-checked cursor, every count compared with the shape before it sizes anything,
 * and the first fault reported with the partition, the field and the byte offset.
 *
 * The layout follows the serde derives of rust-fil-proofs@87348a74:
 * storage-proofs-update/src/vanilla.rs:160-239 (ChallengeProof, PartitionProof) and
 * storage-proofs-core/src/merkle/proof.rs:166-452 (MerkleProof, ProofData, SingleProof,
 * SubProof, TopProof, InclusionPath, PathElement), as bincode 1.x writes them.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#include "filecoin/snap/snap_vanilla.h"

#include "filecoin/io/bincode.h"

#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bytes.h"

/* ---- Merkle proofs ------------------------------------------------------------------------ */

/* The MerkleProof shape a tree has: base levels of base_arity, optional sub and top levels. */
typedef czk_bincode_tree tree_shape;

static tree_shape shape_r(const czk_snap_shape *sh) {
    tree_shape t = {sh->tree_r.base_arity, sh->tree_r.base_levels, sh->tree_r.sub_arity,
                    sh->tree_r.top_arity, sh->tree_r_variant};
    return t;
}

/* TreeD: BinaryMerkleTree<Sha256Hasher>, a Single proof of log2(nodes) binary levels. */
static tree_shape shape_d(const czk_snap_shape *sh) {
    tree_shape t = {2, sh->challenge_bit_len, 0, 0, CZK_VANILLA_SINGLE};
    return t;
}

/* One MerkleProof of shape t; `name` says which ("challenge 3 proof_r_old"). */
static int rd_merkle(czk_bincode_reader *r, czk_snap_inclusion *inc, const tree_shape *t,
                     const char *name) {
    char f[160];
    snprintf(f, sizeof(f), "%s variant tag", name);
    int rc = czk_bincode_expect(r, (uint64_t)t->variant, 4, f);
    if (rc != CZK_OK)
        return rc;
    inc->n_levels = t->base_levels + (t->sub_arity != 0) + (t->top_arity != 0);
    rc = czk_bincode_merkle(r, &inc->root, &inc->leaf, inc->level, t, name);
    if (rc == CZK_OK)
        inc->leaf_index = czk_bincode_leaf_index(inc->level, inc->n_levels);
    return rc;
}

/* ---- the partition proof ------------------------------------------------------------------ */

int czk_snap_partition_proof_decode(czk_snap_partition_proof *out, const czk_snap_shape *shape,
                                    const uint8_t *buf, size_t len, uint32_t partition,
                                    czk_err *err) {
    memset(out, 0, sizeof(*out));
    czk_bincode_reader r;
    czk_bincode_init(&r, buf, len, err, "snap partition proof %u", partition);
    int rc;
    if (!czk_snap_shape_valid(shape))
        return czk_err_set(err, CZK_EINVAL, "snap partition proof %u: invalid shape", partition);
    tree_shape tr = shape_r(shape), td = shape_d(shape);
    if ((rc = czk_bincode_fr(&r, &out->comm_c, "comm_c")) != CZK_OK ||
        (rc = czk_bincode_expect(&r, shape->apex_leaves, 8, "apex leaf count")) != CZK_OK)
        goto out;
    out->n_apex = shape->apex_leaves;
    for (uint32_t i = 0; rc == CZK_OK && i < out->n_apex; i++) {
        char f[48];
        snprintf(f, sizeof(f), "apex leaf %u", i);
        rc = czk_bincode_fr(&r, &out->apex[i], f);
    }
    if (rc != CZK_OK ||
        (rc = czk_bincode_expect(&r, shape->challenges, 8, "challenge proof count")) != CZK_OK)
        goto out;
    /* The count was checked against the shape: at most 86 entries. */
    out->challenge =
        czk_bincode_calloc(&r, shape->challenges, sizeof(*out->challenge), "challenge proofs", &rc);
    if (out->challenge == NULL)
        goto out;
    out->n_challenges = shape->challenges;
    for (uint32_t c = 0; rc == CZK_OK && c < out->n_challenges; c++) {
        char name[64];
        czk_snap_challenge_proof *p = &out->challenge[c];
        snprintf(name, sizeof(name), "challenge %u proof_r_old", c);
        rc = rd_merkle(&r, &p->r_old, &tr, name);
        if (rc == CZK_OK) {
            snprintf(name, sizeof(name), "challenge %u proof_d_new", c);
            rc = rd_merkle(&r, &p->d_new, &td, name);
        }
        if (rc == CZK_OK) {
            snprintf(name, sizeof(name), "challenge %u proof_r_new", c);
            rc = rd_merkle(&r, &p->r_new, &tr, name);
        }
    }
    if (rc == CZK_OK)
        rc = czk_bincode_end(&r);
out:
    if (rc != CZK_OK)
        czk_snap_partition_proof_clear(out);
    return rc;
}

/* ---- encoding ----------------------------------------------------------------------------- */

static size_t path_size(uint32_t levels, uint32_t arity) {
    return 8 + (size_t)levels * (8 + 32 * (size_t)(arity - 1) + 8);
}

static size_t merkle_size(const tree_shape *t) {
    size_t n = 4 + 64 + path_size(t->base_levels, t->base_arity);
    if (t->sub_arity != 0)
        n += path_size(1, t->sub_arity);
    if (t->top_arity != 0)
        n += path_size(1, t->top_arity);
    return n;
}

size_t czk_snap_partition_proof_encoded_size(const czk_snap_shape *shape) {
    if (!czk_snap_shape_valid(shape))
        return 0;
    tree_shape tr = shape_r(shape), td = shape_d(shape);
    return 32 + 8 + 32 * (size_t)shape->apex_leaves + 8 +
           (size_t)shape->challenges * (2 * merkle_size(&tr) + merkle_size(&td));
}

typedef struct writer {
    uint8_t *p;
    size_t off;
} writer;

/* `bytes` is 8 (u64) or 4 (a u32 enum tag). */
static void wr_le(writer *w, uint64_t v, int bytes) {
    if (bytes == 8)
        czk_bytes_store_le64(w->p + w->off, v);
    else
        czk_bytes_store_le32(w->p + w->off, (uint32_t)v);
    w->off += (size_t)bytes;
}

static void wr_fr(writer *w, const czk_fr *a) {
    czk_fr_to_bytes_le(w->p + w->off, a);
    w->off += 32;
}

static void wr_path(writer *w, const czk_vanilla_level *lv, uint32_t levels) {
    wr_le(w, levels, 8);
    for (uint32_t l = 0; l < levels; l++) {
        wr_le(w, lv[l].arity - 1, 8);
        for (uint32_t s = 0; s + 1 < lv[l].arity; s++)
            wr_fr(w, &lv[l].sib[s]);
        wr_le(w, lv[l].index, 8);
    }
}

static void wr_merkle(writer *w, const czk_snap_inclusion *inc, const tree_shape *t) {
    const czk_vanilla_level *sub = &inc->level[t->base_levels];
    wr_le(w, (uint64_t)t->variant, 4);
    if (t->variant == CZK_VANILLA_SINGLE) {
        wr_fr(w, &inc->root);
        wr_fr(w, &inc->leaf);
        wr_path(w, inc->level, t->base_levels);
        return;
    }
    wr_path(w, inc->level, t->base_levels);
    wr_path(w, sub, 1);
    if (t->variant == CZK_VANILLA_TOP)
        wr_path(w, sub + 1, 1);
    wr_fr(w, &inc->root);
    wr_fr(w, &inc->leaf);
}

/* Whether inc has shape t: its level count, arities and indices. */
static int merkle_fits(const czk_snap_inclusion *inc, const tree_shape *t) {
    uint32_t levels = t->base_levels + (t->sub_arity != 0) + (t->top_arity != 0);
    if (inc->n_levels != levels)
        return 0;
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t a = l < t->base_levels                         ? t->base_arity
                     : l == t->base_levels && t->sub_arity != 0 ? t->sub_arity
                                                                : t->top_arity;
        if (inc->level[l].arity != a || inc->level[l].index >= a)
            return 0;
    }
    return 1;
}

int czk_snap_partition_proof_encode(uint8_t *out, size_t cap, size_t *len,
                                    const czk_snap_partition_proof *p, const czk_snap_shape *shape,
                                    czk_err *err) {
    size_t need = czk_snap_partition_proof_encoded_size(shape);
    if (need == 0 || p->n_apex != shape->apex_leaves || p->n_challenges != shape->challenges ||
        p->challenge == NULL)
        return czk_err_set(err, CZK_EINVAL, "snap: the partition proof does not fit the shape");
    tree_shape tr = shape_r(shape), td = shape_d(shape);
    for (uint32_t c = 0; c < p->n_challenges; c++)
        if (!merkle_fits(&p->challenge[c].r_old, &tr) ||
            !merkle_fits(&p->challenge[c].d_new, &td) || !merkle_fits(&p->challenge[c].r_new, &tr))
            return czk_err_set(err, CZK_EINVAL, "snap: challenge %u's paths do not fit the shape",
                               c);
    if (cap < need)
        return czk_err_set(err, CZK_ELENGTH, "snap: a partition proof needs %zu bytes, %zu given",
                           need, cap);
    writer w = {out, 0};
    wr_fr(&w, &p->comm_c);
    wr_le(&w, p->n_apex, 8);
    for (uint32_t i = 0; i < p->n_apex; i++)
        wr_fr(&w, &p->apex[i]);
    wr_le(&w, p->n_challenges, 8);
    for (uint32_t c = 0; c < p->n_challenges; c++) {
        wr_merkle(&w, &p->challenge[c].r_old, &tr);
        wr_merkle(&w, &p->challenge[c].d_new, &td);
        wr_merkle(&w, &p->challenge[c].r_new, &tr);
    }
    *len = w.off;
    return CZK_OK;
}
