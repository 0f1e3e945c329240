/*
 * DESIGN: the test-data sealer (contract in seal.h).
 *
 * Both sealers end in one routine that fills a C1 output from a `sector`: something that can
 * answer "label of node v in layer ℓ", "data node v" and "path of v" in tree_d, tree_c and
 * tree_r_last. A real sealed sector answers from its whole labels and trees; a virtual one
 * from the few columns its challenges touch and from sparse trees. Sharing the filler means
 * that the virtual output has the real one's shape by construction, and one checker
 * (czk_porep_c1_check, porep/c1_check.h) covers both.
 *
 * Poseidon trees are held as sparse levels: per level, a sorted list of (index, value) of the
 * nodes that are known. Building one level groups the known nodes by parent, completes each
 * group to `arity` children (from the caller's rng; a whole tree never needs to), and hashes
 * the group into the next level. A whole tree is the case where every group is complete: one
 * code path, whose dense levels are found by a direct index instead of a binary search.
 *
 * In the virtual sector the labels of the challenged nodes depend on their parents' rows, and a
 * challenge may be another challenge's parent (DRG parents in the same layer, expander parents
 * from the layer below, possibly the node itself). Computing layer by layer, and within a
 * layer by ascending node, reads only rows that are already final, because DRG parents are
 * always below their node.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#include "filecoin/testgen/seal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/hash/poseidon.h"
#include "filecoin/hash/sha254.h"
#include "filecoin/porep/sdr.h"
#include "util/alloc.h"

/* ---- fr32 ------------------------------------------------------------------------------- */

/* Bit offsets of the 4 nodes of a 127-byte quad: 0, 254, 508, 762 = (byte, shift) (0, 0),
 * (31, 6), (63, 4), (95, 2). */
int czk_seal_fr32_pad(uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len,
                      czk_err *err) {
    if (in_len % 127 != 0 || out_len != in_len / 127 * 128)
        return czk_err_set(err, CZK_EINVAL,
                           "fr32 padding: %zu bytes in (a multiple of 127 needed), %zu out", in_len,
                           out_len);
    for (size_t q = 0; q < in_len / 127; q++) {
        uint8_t quad[128];
        memcpy(quad, in + 127 * q, 127);
        quad[127] = 0;
        for (unsigned j = 0; j < 4; j++) {
            unsigned bit = 254 * j, b = bit / 8, s = bit % 8;
            uint8_t *node = out + 128 * q + 32 * j;
            for (unsigned i = 0; i < 32; i++) {
                unsigned hi = b + i + 1 < 128 ? quad[b + i + 1] : 0;
                node[i] = (uint8_t)(s == 0 ? quad[b + i] : (quad[b + i] >> s) | (hi << (8 - s)));
            }
            node[31] &= 0x3f;
        }
    }
    return CZK_OK;
}

int czk_seal_fr32_unpad(uint8_t *out, size_t out_len, const uint8_t *in, size_t in_len,
                        czk_err *err) {
    if (in_len % 128 != 0 || out_len != in_len / 128 * 127)
        return czk_err_set(err, CZK_EINVAL,
                           "fr32 unpadding: %zu bytes in (a multiple of 128 needed), %zu out",
                           in_len, out_len);
    for (size_t q = 0; q < in_len / 128; q++) {
        uint8_t quad[129] = {0};
        for (unsigned j = 0; j < 4; j++) {
            const uint8_t *node = in + 128 * q + 32 * j;
            if (node[31] & 0xc0)
                return czk_err_set(err, CZK_ERANGE,
                                   "fr32 unpadding: node %zu has its top bits set (not padded)",
                                   4 * q + j);
            unsigned bit = 254 * j, b = bit / 8, s = bit % 8;
            for (unsigned i = 0; i < 32; i++) {
                quad[b + i] |= (uint8_t)(node[i] << s);
                if (s != 0)
                    quad[b + i + 1] |= (uint8_t)(node[i] >> (8 - s));
            }
        }
        memcpy(out + 127 * q, quad, 127);
    }
    return CZK_OK;
}

/* ---- tree_d ----------------------------------------------------------------------------- */

static int is_pow2(uint64_t n) {
    return n != 0 && (n & (n - 1)) == 0;
}

int czk_seal_tree_d(uint8_t *tree, const uint8_t *data, uint64_t leaves, czk_err *err) {
    if (leaves < 2 || !is_pow2(leaves))
        return czk_err_set(err, CZK_EINVAL, "tree_d of %llu leaves (a power of two >= 2)",
                           (unsigned long long)leaves);
    memcpy(tree, data, (size_t)leaves * 32);
    const uint8_t *in = tree;
    uint8_t *out = tree + (size_t)leaves * 32;
    for (uint64_t n = leaves; n > 1; n /= 2) {
        for (uint64_t i = 0; i < n / 2; i++)
            czk_sha254_node(out + 32 * i, in + 64 * i, in + 64 * i + 32);
        in = out;
        out += (size_t)n / 2 * 32;
    }
    return CZK_OK;
}

int czk_seal_comm_d(uint8_t out[32], const uint8_t *data, size_t len, czk_err *err) {
    if (len < 64 || len % 32 != 0 || !is_pow2(len / 32))
        return czk_err_set(err, CZK_EINVAL, "comm_d of %zu bytes (a power of two >= 64)", len);
    size_t n = len / 64;
    uint8_t *lvl = czk_malloc(n * 32);
    if (lvl == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate %zu bytes for tree_d", n * 32);
    for (size_t i = 0; i < n; i++)
        czk_sha254_node(lvl + 32 * i, data + 64 * i, data + 64 * i + 32);
    /* In place: node i reads 2i and 2i+1 ≥ i, and the hash copies its inputs first. */
    for (; n > 1; n /= 2)
        for (size_t i = 0; i < n / 2; i++)
            czk_sha254_node(lvl + 32 * i, lvl + 64 * i, lvl + 64 * i + 32);
    memcpy(out, lvl, 32);
    czk_free(lvl);
    return CZK_OK;
}

void czk_seal_zero_tree_d(uint8_t out[][32], uint32_t levels) {
    memset(out[0], 0, 32);
    for (uint32_t l = 0; l < levels; l++)
        czk_sha254_node(out[l + 1], out[l], out[l]);
}

/* ---- Poseidon --------------------------------------------------------------------------- */

int czk_seal_column_hash(czk_fr *out, const czk_fr *rows, uint32_t layers, czk_err *err) {
    if (layers != 2 && layers != 11)
        return czk_err_set(err, CZK_EUNSUPPORTED, "column hash of %u layers (2 or 11)", layers);
    return czk_poseidon_hash_arity(rows, layers, out, err);
}

/* Canonical little-endian bytes to Fr, for values this file made (labels, SHA-254 nodes:
 * always < 2^254 < r). */
static czk_fr fr_of(const uint8_t b[32]) {
    czk_fr f;
    if (czk_fr_from_bytes_le(&f, b) != CZK_OK)
        czk_fr_set_zero(&f); /* unreachable for 254-bit inputs; the checker would see it */
    return f;
}

/* ---- sparse Poseidon trees -------------------------------------------------------------- */

typedef struct stree_level {
    uint64_t *idx; /* ascending */
    czk_fr *val;
    size_t n;
} stree_level;

typedef struct stree {
    czk_vanilla_shape shape;
    uint32_t n_levels;                          /* hashing levels */
    uint32_t arity[CZK_VANILLA_MAX_LEVELS];     /* of level l's groups (l = 0: the leaves') */
    stree_level lv[CZK_VANILLA_MAX_LEVELS + 1]; /* lv[0] leaves … lv[n_levels] the root */
} stree;

static void stree_free(stree *t) {
    for (uint32_t l = 0; l <= CZK_VANILLA_MAX_LEVELS; l++) {
        czk_free(t->lv[l].idx);
        czk_free(t->lv[l].val);
    }
    memset(t, 0, sizeof *t);
}

/*
 * Builds the tree of `shape` over the known leaves (idx ascending and distinct, val), completing
 * every group with values from rng; rng NULL demands complete groups (a whole tree). The
 * arrays are copied. On error *t is left freed. Returns CZK_OK, CZK_ENOMEM or CZK_EINTERNAL.
 */
static int stree_build(stree *t, const czk_vanilla_shape *shape, const uint64_t *idx,
                       const czk_fr *val, size_t n, czk_rng *rng, czk_err *err) {
    memset(t, 0, sizeof *t);
    t->shape = *shape;
    for (uint32_t l = 0; l < shape->base_levels; l++)
        t->arity[t->n_levels++] = 8;
    if (shape->sub_arity != 0)
        t->arity[t->n_levels++] = shape->sub_arity;
    if (shape->top_arity != 0)
        t->arity[t->n_levels++] = shape->top_arity;
    int rc = CZK_OK;
    /* cur: the known nodes of the level being completed, owned here until stored in t. */
    uint64_t *cur_idx = czk_malloc(n * sizeof *cur_idx);
    czk_fr *cur_val = czk_malloc(n * sizeof *cur_val);
    if (n == 0 || cur_idx == NULL || cur_val == NULL) {
        rc = czk_err_set(err, n == 0 ? CZK_EINTERNAL : CZK_ENOMEM,
                         "cannot make a tree of %zu known leaves", n);
        goto fail;
    }
    memcpy(cur_idx, idx, n * sizeof *idx);
    memcpy(cur_val, val, n * sizeof *val);
    for (uint32_t l = 0; l < t->n_levels; l++) {
        uint32_t a = t->arity[l];
        size_t groups = 0;
        for (size_t j = 0; j < n; j++)
            if (j == 0 || cur_idx[j] / a != cur_idx[j - 1] / a)
                groups++;
        stree_level *full = &t->lv[l];
        full->idx = czk_malloc(groups * a * sizeof *full->idx);
        full->val = czk_malloc(groups * a * sizeof *full->val);
        uint64_t *up_idx = czk_malloc(groups * sizeof *up_idx);
        czk_fr *up_val = czk_malloc(groups * sizeof *up_val);
        if (full->idx == NULL || full->val == NULL || up_idx == NULL || up_val == NULL) {
            czk_free(up_idx);
            czk_free(up_val);
            rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate level %u of a tree (%zu groups)", l,
                             groups);
            goto fail;
        }
        size_t g = 0;
        for (size_t j = 0; j < n && rc == CZK_OK; g++) {
            uint64_t p = cur_idx[j] / a;
            czk_fr row[8];
            unsigned known = 0;
            for (; j < n && cur_idx[j] / a == p; j++) {
                row[cur_idx[j] % a] = cur_val[j];
                known |= 1u << (cur_idx[j] % a);
            }
            for (uint32_t i = 0; i < a; i++) {
                if (!(known & (1u << i))) {
                    if (rng == NULL) {
                        rc = czk_err_set(err, CZK_EINTERNAL,
                                         "tree level %u: node %llu of a whole tree is missing", l,
                                         (unsigned long long)(p * a + i));
                        break;
                    }
                    czk_fr_random(&row[i], rng);
                }
                full->idx[g * a + i] = p * a + i;
                full->val[g * a + i] = row[i];
            }
            up_idx[g] = p;
            if (rc == CZK_OK)
                rc = czk_poseidon_hash_arity(row, a, &up_val[g], err);
        }
        full->n = groups * a;
        czk_free(cur_idx);
        czk_free(cur_val);
        cur_idx = up_idx;
        cur_val = up_val;
        n = groups;
        if (rc != CZK_OK)
            goto fail;
    }
    t->lv[t->n_levels].idx = cur_idx;
    t->lv[t->n_levels].val = cur_val;
    t->lv[t->n_levels].n = n;
    if (n != 1) {
        stree_free(t);
        return czk_err_set(err, CZK_EINTERNAL, "tree of %llu leaves has %zu roots",
                           (unsigned long long)shape->nodes, n);
    }
    return CZK_OK;
fail:
    czk_free(cur_idx);
    czk_free(cur_val);
    stree_free(t);
    return rc;
}

static const czk_fr *stree_get(const stree *t, uint32_t level, uint64_t index) {
    const stree_level *lv = &t->lv[level];
    if (index < lv->n && lv->idx[index] == index) /* a dense level */
        return &lv->val[index];
    size_t lo = 0, hi = lv->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (lv->idx[mid] < index)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < lv->n && lv->idx[lo] == index ? &lv->val[lo] : NULL;
}

static const czk_fr *stree_root(const stree *t) {
    return &t->lv[t->n_levels].val[0];
}

/* The MerkleProof of leaf `leaf`: levels leaf to root, the variant of the tree's shape. */
static int stree_path(czk_c1_merkle *m, const stree *t, uint64_t leaf, czk_err *err) {
    const czk_vanilla_shape *sh = &t->shape;
    memset(m, 0, sizeof *m);
    m->variant = sh->variant;
    m->n_base = sh->base_levels;
    m->n_sub = sh->sub_arity != 0;
    m->n_top = sh->top_arity != 0;
    m->n_levels = t->n_levels;
    m->root = *stree_root(t);
    const czk_fr *v = stree_get(t, 0, leaf);
    if (v == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "tree leaf %llu was never opened",
                           (unsigned long long)leaf);
    m->leaf = *v;
    uint64_t x = leaf;
    for (uint32_t l = 0; l < t->n_levels; l++) {
        uint32_t a = t->arity[l], pos = (uint32_t)(x % a);
        czk_vanilla_level *lv = &m->level[l];
        lv->arity = a;
        lv->index = pos;
        for (uint32_t i = 0, j = 0; i < a; i++) {
            if (i == pos)
                continue;
            const czk_fr *s = stree_get(t, l, x - pos + i);
            if (s == NULL)
                return czk_err_set(err, CZK_EINTERNAL, "tree level %u node %llu is missing", l,
                                   (unsigned long long)(x - pos + i));
            lv->sib[j++] = *s;
        }
        x /= a;
    }
    return CZK_OK;
}

/* ---- a sector, real or virtual, and the C1 filler ----------------------------------------- */

/* Challenges per partition: 2 or 18 for interactive proofs. */
#define MAX_CHALLENGES 32

/* One column of a virtual sector: the node's labels in layers 1 … L. */
typedef struct column {
    uint32_t node;
    int challenged; /* its labels are computed from its parents; else drawn at random */
    uint8_t rows[CZK_POREP_MAX_LAYERS][32];
} column;

typedef struct sector {
    const czk_porep_type *type;
    czk_sdr_graph graph;
    uint32_t layers;
    uint8_t replica_id[32], comm_d[32];
    const uint8_t *labels; /* real: layers · nodes · 32 bytes; NULL when virtual */
    column *cols;          /* virtual: the opened columns, ascending by node */
    size_t n_cols;
    const uint8_t *tree_d; /* real: the whole tree_d; NULL for all-zero data */
    uint8_t zero[CZK_POREP_MAX_COMM_D_LEVELS + 1][32];
    stree tree_c, tree_r;
} sector;

static column *find_col(const sector *s, uint64_t node) {
    size_t lo = 0, hi = s->n_cols;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->cols[mid].node < node)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->n_cols && s->cols[lo].node == node ? &s->cols[lo] : NULL;
}

/* The label of `node` in `layer` (1-based), or NULL for a column a virtual sector lacks. */
static const uint8_t *label_at(const sector *s, uint32_t layer, uint64_t node) {
    if (s->labels != NULL)
        return s->labels + ((size_t)(layer - 1) * s->type->nodes + node) * 32;
    const column *c = find_col(s, node);
    return c != NULL ? c->rows[layer - 1] : NULL;
}

/* The 37 parent labels a node with parents `par` hashes in `layer`, the labeler's order (sdr.h). */
static int gather(const sector *s, uint8_t out[32 * CZK_POREP_PARENTS], uint32_t layer,
                  const uint32_t par[CZK_SDR_PARENTS], czk_err *err) {
    unsigned n = layer == 1 ? CZK_POREP_DRG_PARENTS : CZK_SDR_PARENTS;
    for (unsigned k = 0; k < CZK_POREP_PARENTS; k++) {
        unsigned i = k % n;
        uint32_t from = i < CZK_POREP_DRG_PARENTS ? layer : layer - 1;
        const uint8_t *src = label_at(s, from, par[i]);
        if (src == NULL)
            return czk_err_set(err, CZK_EINTERNAL, "the column of node %u was never drawn", par[i]);
        memcpy(out + 32 * k, src, 32);
    }
    return CZK_OK;
}

static const uint8_t *tree_d_node(const sector *s, uint32_t level, uint64_t index) {
    if (s->tree_d == NULL)
        return s->zero[level];
    size_t off = 0;
    for (uint32_t l = 0; l < level; l++)
        off += (size_t)(s->type->nodes >> l);
    return s->tree_d + (off + index) * 32;
}

static void comm_d_path(czk_c1_merkle *m, const sector *s, uint64_t node) {
    uint32_t levels = s->type->comm_d_levels;
    memset(m, 0, sizeof *m);
    m->variant = CZK_VANILLA_SINGLE;
    m->n_base = m->n_levels = levels;
    m->root = fr_of(s->comm_d);
    m->leaf = fr_of(tree_d_node(s, 0, node));
    for (uint32_t l = 0; l < levels; l++, node /= 2) {
        m->level[l].arity = 2;
        m->level[l].index = (uint32_t)(node & 1);
        m->level[l].sib[0] = fr_of(tree_d_node(s, l, node ^ 1));
    }
}

static int fill_column(czk_c1_column *col, const sector *s, uint32_t node, czk_err *err) {
    col->index = node;
    col->n_rows = s->layers;
    for (uint32_t l = 1; l <= s->layers; l++) {
        const uint8_t *b = label_at(s, l, node);
        if (b == NULL)
            return czk_err_set(err, CZK_EINTERNAL, "the column of node %u was never drawn", node);
        col->rows[l - 1] = fr_of(b);
    }
    return stree_path(&col->inclusion, &s->tree_c, node, err);
}

/* The vanilla proof of challenge c (proof.rs prove_layers_generate). */
static int fill_proof(czk_c1_proof *p, const sector *s, uint64_t c, czk_err *err) {
    uint32_t par[CZK_SDR_PARENTS];
    if (czk_sdr_parents(&s->graph, c, par) != CZK_OK)
        return czk_err_set(err, CZK_EINTERNAL, "challenge %llu out of the graph",
                           (unsigned long long)c);
    comm_d_path(&p->comm_d_proof, s, c);
    int rc = stree_path(&p->comm_r_last_proof, &s->tree_r, c, err);
    if (rc == CZK_OK)
        rc = fill_column(&p->c_x, s, (uint32_t)c, err);
    for (int i = 0; i < CZK_POREP_DRG_PARENTS && rc == CZK_OK; i++)
        rc = fill_column(&p->drg_parents[i], s, par[i], err);
    for (int i = 0; i < CZK_POREP_EXP_PARENTS && rc == CZK_OK; i++)
        rc = fill_column(&p->exp_parents[i], s, par[CZK_POREP_DRG_PARENTS + i], err);
    p->n_labeling = s->layers;
    for (uint32_t l = 1; l <= s->layers && rc == CZK_OK; l++) {
        uint8_t in[32 * CZK_POREP_PARENTS];
        rc = gather(s, in, l, par, err);
        czk_c1_labeling *lp = &p->labeling[l - 1];
        for (int k = 0; k < CZK_POREP_PARENTS; k++)
            lp->parents[k] = fr_of(in + 32 * k);
        lp->layer_index = l;
        lp->node = c;
    }
    if (rc == CZK_OK)
        p->encoding = p->labeling[s->layers - 1];
    return rc;
}

/* Fills *out (initialised here) from a sealed sector. */
static int fill_c1(czk_c1 *out, const sector *s, const uint8_t ticket[32], const uint8_t seed[32],
                   czk_err *err) {
    int rc = czk_c1_init(out, s->type, err);
    if (rc != CZK_OK)
        return rc;
    czk_fr comm_r, pair[2] = {*stree_root(&s->tree_c), *stree_root(&s->tree_r)};
    rc = czk_poseidon_hash_arity(pair, 2, &comm_r, err);
    czk_fr_to_bytes_le(out->comm_r, &comm_r);
    memcpy(out->comm_d, s->comm_d, 32);
    memcpy(out->replica_id, s->replica_id, 32);
    memcpy(out->seed, seed, 32);
    memcpy(out->ticket, ticket, 32);
    /* Interactive challenges come from the seed alone; synthetic ones from comm_r as well, which
     * is why a synthetic sector must be whole before any challenge is known (seal.h). */
    uint64_t ch[MAX_CHALLENGES];
    for (uint32_t k = 0; k < s->type->partitions && rc == CZK_OK; k++) {
        rc = czk_porep_challenges(ch, s->type, s->replica_id, out->comm_r, seed, k, err);
        for (uint32_t i = 0; i < s->type->challenges && rc == CZK_OK; i++)
            rc = fill_proof(czk_c1_at(out, k, i), s, ch[i], err);
    }
    if (rc != CZK_OK)
        czk_c1_clear(out);
    return rc;
}

static void sector_free(sector *s) {
    stree_free(&s->tree_c);
    stree_free(&s->tree_r);
    czk_free(s->cols);
    s->cols = NULL;
}

/* Checks what both sealers take from the caller, and starts the sector. */
static int sector_start(sector *s, const czk_porep_type *type, czk_err *err) {
    memset(s, 0, sizeof *s);
    if (type == NULL)
        return czk_err_set(err, CZK_EUNSUPPORTED, "sealing: no registered seal proof");
    czk_err why = {0};
    if (czk_porep_type_supported(type, &why) != CZK_OK)
        return czk_err_set(err, CZK_EUNSUPPORTED, "sealing %s", why.msg);
    if (type->challenges > MAX_CHALLENGES || type->layers > CZK_POREP_MAX_LAYERS ||
        type->comm_d_levels > CZK_POREP_MAX_COMM_D_LEVELS)
        return czk_err_set(err, CZK_EINTERNAL, "%s: shape beyond this build's limits", type->name);
    /* The ticket and the seed are raw randomness: rust-fil-proofs hashes them (replica_id, the
     * challenges) and never reads them as field elements, so any 32 bytes are valid. */
    s->type = type;
    s->layers = type->layers;
    czk_seal_zero_tree_d(s->zero, type->comm_d_levels);
    return czk_sdr_graph_init(&s->graph, type, err);
}

/* ---- the sealers -------------------------------------------------------------------------- */

void czk_seal_replica_clear(czk_seal_replica *rep) {
    if (rep == NULL)
        return;
    czk_free(rep->nodes);
    memset(rep, 0, sizeof *rep);
}

int czk_seal_small(czk_c1 *out, const czk_porep_type *type, const uint8_t *data,
                   const uint8_t prover_id[32], uint64_t sector_id, const uint8_t ticket[32],
                   const uint8_t seed[32], czk_err *err) {
    return czk_seal_small_replica(out, NULL, type, data, prover_id, sector_id, ticket, seed, err);
}

int czk_seal_small_replica(czk_c1 *out, czk_seal_replica *rep, const czk_porep_type *type,
                           const uint8_t *data, const uint8_t prover_id[32], uint64_t sector_id,
                           const uint8_t ticket[32], const uint8_t seed[32], czk_err *err) {
    memset(out, 0, sizeof *out);
    if (rep != NULL)
        memset(rep, 0, sizeof *rep);
    sector s;
    uint8_t *tree_d = NULL, *labels = NULL, porep_id[32];
    uint64_t *idx = NULL;
    czk_fr *val = NULL;
    int rc = sector_start(&s, type, err);
    if (rc != CZK_OK)
        goto out;
    if (type->nodes > CZK_SEAL_SMALL_MAX_NODES) {
        rc = czk_err_set(err, CZK_EUNSUPPORTED,
                         "%s is too big to seal in memory; czk_seal_virtual makes its C1 output",
                         type->name);
        goto out;
    }
    size_t n = (size_t)type->nodes, layers = type->layers;
    if (data != NULL) {
        for (size_t v = 0; v < n; v++)
            if (data[32 * v + 31] & 0xc0) {
                rc =
                    czk_err_set(err, CZK_ERANGE,
                                "sealing: data node %zu has its top bits set (not fr32-padded)", v);
                goto out;
            }
        tree_d = czk_malloc((2 * n - 1) * 32);
        if (tree_d == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate tree_d of %zu nodes", n);
            goto out;
        }
        if ((rc = czk_seal_tree_d(tree_d, data, n, err)) != CZK_OK)
            goto out;
        memcpy(s.comm_d, tree_d + (2 * n - 2) * 32, 32);
        s.tree_d = tree_d;
    } else {
        memcpy(s.comm_d, s.zero[type->comm_d_levels], 32);
    }
    czk_porep_id(porep_id, type);
    rc = czk_porep_replica_id(s.replica_id, prover_id, sector_id, ticket, s.comm_d, porep_id, err);
    if (rc != CZK_OK)
        goto out;
    labels = czk_malloc(layers * n * 32);
    idx = czk_malloc(n * sizeof *idx);
    val = czk_malloc(n * sizeof *val);
    if (labels == NULL || idx == NULL || val == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate the labels of %zu nodes", n);
        goto out;
    }
    if ((rc = czk_sdr_labels(&s.graph, labels, s.replica_id, (uint32_t)layers, err)) != CZK_OK)
        goto out;
    s.labels = labels;
    for (size_t v = 0; v < n && rc == CZK_OK; v++) {
        czk_fr rows[CZK_POREP_MAX_LAYERS];
        for (uint32_t l = 1; l <= layers; l++)
            rows[l - 1] = fr_of(label_at(&s, l, v));
        idx[v] = v;
        rc = czk_seal_column_hash(&val[v], rows, (uint32_t)layers, err);
    }
    if (rc != CZK_OK ||
        (rc = stree_build(&s.tree_c, &type->tree, idx, val, n, NULL, err)) != CZK_OK)
        goto out;
    /* encode.rs: replica = key + data in Fr. */
    for (size_t v = 0; v < n; v++) {
        czk_fr d = fr_of(tree_d_node(&s, 0, v)), key = fr_of(label_at(&s, (uint32_t)layers, v));
        czk_fr_add(&val[v], &key, &d);
    }
    if ((rc = stree_build(&s.tree_r, &type->tree, idx, val, n, NULL, err)) != CZK_OK)
        goto out;
    rc = fill_c1(out, &s, ticket, seed, err);
    if (rc == CZK_OK && rep != NULL) {
        rep->nodes = val; /* the replica: handed over rather than copied */
        rep->n = n;
        rep->comm_c = *stree_root(&s.tree_c);
        val = NULL;
    }
out:
    czk_free(tree_d);
    czk_free(labels);
    czk_free(idx);
    czk_free(val);
    sector_free(&s);
    return rc;
}

static int cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

int czk_seal_virtual(czk_c1 *out, const czk_porep_type *type, const uint8_t prover_id[32],
                     uint64_t sector_id, const uint8_t ticket[32], const uint8_t seed[32],
                     czk_rng *rng, czk_err *err) {
    memset(out, 0, sizeof *out);
    sector s;
    uint8_t porep_id[32];
    uint64_t *chal = NULL, *idx = NULL;
    uint32_t *list = NULL;
    czk_fr *val = NULL;
    int rc = sector_start(&s, type, err);
    if (rc != CZK_OK)
        goto out;
    if (type->variant == CZK_POREP_SYNTHETIC) {
        /* See seal.h: the synthetic set is drawn from comm_r, which commits to every column, so
         * the columns to compute are only known once all of them are. */
        rc = czk_err_set(err, CZK_EUNSUPPORTED,
                         "%s: a virtual synthetic C1 output cannot exist: its challenges are "
                         "drawn from comm_r, which commits to every node's labels; seal the sector "
                         "(czk_seal_small, up to 512 MiB) instead",
                         type->name);
        goto out;
    }
    uint32_t layers = type->layers, per = type->challenges;
    size_t total = (size_t)type->partitions * per;
    /* A committed-capacity sector: all data zero, so comm_d and its paths are the zero tree's
     * and need no challenge (the challenges depend on comm_d through replica_id). */
    memcpy(s.comm_d, s.zero[type->comm_d_levels], 32);
    czk_porep_id(porep_id, type);
    rc = czk_porep_replica_id(s.replica_id, prover_id, sector_id, ticket, s.comm_d, porep_id, err);
    if (rc != CZK_OK)
        goto out;
    chal = czk_malloc(total * sizeof *chal);
    list = czk_malloc(total * (1 + CZK_SDR_PARENTS) * sizeof *list);
    if (chal == NULL || list == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate %zu challenges", total);
        goto out;
    }
    for (uint32_t k = 0; k < type->partitions && rc == CZK_OK; k++)
        rc = czk_porep_interactive_challenges(chal + (size_t)k * per, type, s.replica_id, seed, k,
                                              err);
    if (rc != CZK_OK)
        goto out;
    /* Every node whose column a proof opens, once. */
    size_t n_list = 0;
    for (size_t j = 0; j < total; j++) {
        list[n_list++] = (uint32_t)chal[j];
        czk_sdr_parents(&s.graph, chal[j], list + n_list);
        n_list += CZK_SDR_PARENTS;
    }
    qsort(list, n_list, sizeof *list, cmp_u32);
    size_t n_cols = 0;
    for (size_t j = 0; j < n_list; j++)
        if (j == 0 || list[j] != list[j - 1])
            list[n_cols++] = list[j];
    s.cols = czk_calloc(n_cols, sizeof *s.cols);
    idx = czk_malloc(n_cols * sizeof *idx);
    val = czk_malloc(n_cols * sizeof *val);
    if (s.cols == NULL || idx == NULL || val == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate %zu columns", n_cols);
        goto out;
    }
    s.n_cols = n_cols;
    for (size_t j = 0; j < n_cols; j++)
        s.cols[j].node = list[j];
    for (size_t j = 0; j < total; j++)
        find_col(&s, chal[j])->challenged = 1;
    for (size_t j = 0; j < n_cols; j++) {
        if (s.cols[j].challenged)
            continue;
        for (uint32_t l = 0; l < layers; l++) {
            czk_rng_bytes(rng, s.cols[j].rows[l], 32);
            s.cols[j].rows[l][31] &= 0x3f; /* a label: 254 bits */
        }
    }
    /* Layer by layer, ascending: see the DESIGN note. */
    for (uint32_t l = 1; l <= layers && rc == CZK_OK; l++)
        for (size_t j = 0; j < n_cols && rc == CZK_OK; j++) {
            if (!s.cols[j].challenged)
                continue;
            uint32_t par[CZK_SDR_PARENTS];
            uint8_t in[32 * CZK_POREP_PARENTS];
            czk_sdr_parents(&s.graph, s.cols[j].node, par);
            rc = gather(&s, in, l, par, err);
            if (rc == CZK_OK)
                rc = czk_sdr_label(s.cols[j].rows[l - 1], s.replica_id, l, s.cols[j].node, in, err);
        }
    for (size_t j = 0; j < n_cols && rc == CZK_OK; j++) {
        czk_fr rows[CZK_POREP_MAX_LAYERS];
        for (uint32_t l = 0; l < layers; l++)
            rows[l] = fr_of(s.cols[j].rows[l]);
        idx[j] = s.cols[j].node;
        rc = czk_seal_column_hash(&val[j], rows, layers, err);
    }
    if (rc != CZK_OK ||
        (rc = stree_build(&s.tree_c, &type->tree, idx, val, n_cols, rng, err)) != CZK_OK)
        goto out;
    /* The replica of a zero sector is its last layer. */
    size_t n_r = 0;
    for (size_t j = 0; j < n_cols; j++)
        if (s.cols[j].challenged) {
            idx[n_r] = s.cols[j].node;
            val[n_r++] = fr_of(s.cols[j].rows[layers - 1]);
        }
    if ((rc = stree_build(&s.tree_r, &type->tree, idx, val, n_r, rng, err)) != CZK_OK)
        goto out;
    rc = fill_c1(out, &s, ticket, seed, err);
out:
    czk_free(chal);
    czk_free(list);
    czk_free(idx);
    czk_free(val);
    sector_free(&s);
    return rc;
}
