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
 */
#include "filecoin/snap/snap_vanilla.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bytes.h"

/* ---- the bounds-checked reader ------------------------------------------------------------ */

typedef struct reader {
    const uint8_t *p;
    size_t len, off;
    uint32_t partition;
    czk_err *err;
} reader;

static int rd_fail(reader *r, int code, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Fails with "snap partition proof K: <what> at byte OFF". */
static int rd_fail(reader *r, int code, size_t off, const char *fmt, ...) {
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return czk_err_set(r->err, code, "snap partition proof %u: %s at byte %zu", r->partition, what,
                       off);
}

static int rd_need(reader *r, size_t n, const char *field) {
    if (r->len - r->off >= n)
        return CZK_OK;
    return rd_fail(r, CZK_ELENGTH, r->off, "truncated: %s needs %zu bytes, %zu left", field, n,
                   r->len - r->off);
}

static int rd_u64(reader *r, uint64_t *v, const char *field) {
    int rc = rd_need(r, 8, field);
    if (rc != CZK_OK)
        return rc;
    *v = czk_bytes_load_le64(r->p + r->off);
    r->off += 8;
    return CZK_OK;
}

/* A count, tag or usize that must equal `want`. `bytes` is 8 (u64) or 4 (a u32 enum tag). */
static int rd_expect(reader *r, uint64_t want, int bytes, const char *field) {
    size_t at = r->off;
    int rc = rd_need(r, (size_t)bytes, field);
    if (rc != CZK_OK)
        return rc;
    const uint8_t *p = r->p + r->off;
    uint64_t v = bytes == 8 ? czk_bytes_load_le64(p) : czk_bytes_load_le32(p);
    r->off += (size_t)bytes;
    if (v != want)
        return rd_fail(r, CZK_EFORMAT, at, "%s is %llu, expected %llu", field,
                       (unsigned long long)v, (unsigned long long)want);
    return CZK_OK;
}

/* A 32-byte little-endian field element, which must be canonical (< r). */
static int rd_fr(reader *r, czk_fr *out, const char *field) {
    int rc = rd_need(r, 32, field);
    if (rc != CZK_OK)
        return rc;
    if (czk_fr_from_bytes_le(out, r->p + r->off) != CZK_OK)
        return rd_fail(r, CZK_ERANGE, r->off, "%s is not below the field modulus r", field);
    r->off += 32;
    return CZK_OK;
}

/* ---- Merkle proofs ------------------------------------------------------------------------ */

/* The MerkleProof shape a tree has: base levels of base_arity, optional sub and top levels. */
typedef struct tree_shape {
    uint32_t base_arity, base_levels, sub_arity, top_arity;
    czk_vanilla_variant variant;
} tree_shape;

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

/* One InclusionPath of `levels` PathElements of `arity` into lv[0 … levels). */
static int rd_path(reader *r, czk_vanilla_level *lv, uint32_t levels, uint32_t arity,
                   const char *name) {
    char field[192];
    snprintf(field, sizeof(field), "%s length", name);
    int rc = rd_expect(r, levels, 8, field);
    for (uint32_t l = 0; rc == CZK_OK && l < levels; l++) {
        lv[l].arity = arity;
        snprintf(field, sizeof(field), "%s level %u sibling count", name, l);
        rc = rd_expect(r, arity - 1, 8, field);
        for (uint32_t s = 0; rc == CZK_OK && s + 1 < arity; s++) {
            snprintf(field, sizeof(field), "%s level %u sibling %u", name, l, s);
            rc = rd_fr(r, &lv[l].sib[s], field);
        }
        if (rc != CZK_OK)
            break;
        size_t at = r->off;
        uint64_t index = 0;
        snprintf(field, sizeof(field), "%s level %u index", name, l);
        rc = rd_u64(r, &index, field);
        if (rc == CZK_OK && index >= arity)
            rc = rd_fail(r, CZK_EFORMAT, at, "%s is %llu, not below the arity %u", field,
                         (unsigned long long)index, arity);
        lv[l].index = (uint32_t)index;
    }
    return rc;
}

/* The leaf a path proves: its indices as mixed-radix digits, the leaf's level least
 * significant (MerkleProof::path_index). */
static uint64_t path_leaf_index(const czk_snap_inclusion *inc) {
    uint64_t v = 0;
    for (uint32_t l = inc->n_levels; l-- > 0;)
        v = v * inc->level[l].arity + inc->level[l].index;
    return v;
}

/* One MerkleProof of shape t; `name` says which ("challenge 3 proof_r_old"). */
static int rd_merkle(reader *r, czk_snap_inclusion *inc, const tree_shape *t, const char *name) {
    char f[160], root_f[160], leaf_f[160];
    snprintf(f, sizeof(f), "%s variant tag", name);
    int rc = rd_expect(r, (uint64_t)t->variant, 4, f);
    if (rc != CZK_OK)
        return rc;
    inc->n_levels = t->base_levels + (t->sub_arity != 0) + (t->top_arity != 0);
    czk_vanilla_level *sub = &inc->level[t->base_levels];
    czk_vanilla_level *top = sub + (t->sub_arity != 0);
    snprintf(root_f, sizeof(root_f), "%s root", name);
    snprintf(leaf_f, sizeof(leaf_f), "%s leaf", name);
    snprintf(f, sizeof(f), "%s base path", name);
    if (t->variant == CZK_VANILLA_SINGLE) { /* SingleProof { root, leaf, path } */
        if ((rc = rd_fr(r, &inc->root, root_f)) == CZK_OK &&
            (rc = rd_fr(r, &inc->leaf, leaf_f)) == CZK_OK)
            rc = rd_path(r, inc->level, t->base_levels, t->base_arity, f);
    } else { /* SubProof { base, sub, root, leaf }; TopProof { base, sub, top, root, leaf } */
        rc = rd_path(r, inc->level, t->base_levels, t->base_arity, f);
        if (rc == CZK_OK) {
            snprintf(f, sizeof(f), "%s sub path", name);
            rc = rd_path(r, sub, 1, t->sub_arity, f);
        }
        if (rc == CZK_OK && t->variant == CZK_VANILLA_TOP) {
            snprintf(f, sizeof(f), "%s top path", name);
            rc = rd_path(r, top, 1, t->top_arity, f);
        }
        if (rc == CZK_OK && (rc = rd_fr(r, &inc->root, root_f)) == CZK_OK)
            rc = rd_fr(r, &inc->leaf, leaf_f);
    }
    if (rc == CZK_OK)
        inc->leaf_index = path_leaf_index(inc);
    return rc;
}

/* ---- the partition proof ------------------------------------------------------------------ */

int czk_snap_partition_proof_decode(czk_snap_partition_proof *out, const czk_snap_shape *shape,
                                    const uint8_t *buf, size_t len, uint32_t partition,
                                    czk_err *err) {
    memset(out, 0, sizeof(*out));
    reader r = {buf, buf != NULL ? len : 0, 0, partition, err};
    int rc;
    if (!czk_snap_shape_valid(shape))
        return czk_err_set(err, CZK_EINVAL, "snap partition proof %u: invalid shape", partition);
    tree_shape tr = shape_r(shape), td = shape_d(shape);
    if ((rc = rd_fr(&r, &out->comm_c, "comm_c")) != CZK_OK ||
        (rc = rd_expect(&r, shape->apex_leaves, 8, "apex leaf count")) != CZK_OK)
        goto out;
    out->n_apex = shape->apex_leaves;
    for (uint32_t i = 0; rc == CZK_OK && i < out->n_apex; i++) {
        char f[48];
        snprintf(f, sizeof(f), "apex leaf %u", i);
        rc = rd_fr(&r, &out->apex[i], f);
    }
    if (rc != CZK_OK ||
        (rc = rd_expect(&r, shape->challenges, 8, "challenge proof count")) != CZK_OK)
        goto out;
    /* The count was checked against the shape: at most 86 entries. */
    out->challenge = czk_calloc(shape->challenges, sizeof(*out->challenge));
    if (out->challenge == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM,
                         "snap partition proof %u: no memory for %u challenge "
                         "proofs",
                         partition, shape->challenges);
        goto out;
    }
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
    if (rc == CZK_OK && r.off != r.len)
        rc = rd_fail(&r, CZK_ELENGTH, r.off, "%zu trailing bytes after the proof", r.len - r.off);
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
