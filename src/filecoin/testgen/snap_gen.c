/*
 * A consistent SnapDeals update of a small sector, in memory (contract in snap_gen.h).
 *
 * Every tree is stored level by level in one array. A level of arity a groups a consecutive
 * nodes of the level below: that is TreeD (binary), and also TreeR, whose sub and top trees
 * each cover a consecutive run of base trees (LCTree), so one builder and one path extractor
 * serve both. A path's index at each level is the node's position in its group, which makes
 * MerkleProof::path_index the node's index.
 */
#include "filecoin/testgen/snap_gen.h"

#include <string.h>

#include "filecoin/hash/poseidon.h"
#include "util/alloc.h"

typedef struct tree {
    uint32_t n_levels;                     /* hashing levels */
    uint32_t arity[CZK_SNAP_MAX_LEVELS];   /* of each hashing level */
    czk_fr *row[CZK_SNAP_MAX_LEVELS + 1];  /* row[0] = leaves, row[n_levels] = {root} */
    size_t width[CZK_SNAP_MAX_LEVELS + 1]; /* nodes per row */
    czk_fr *mem;
} tree;

/* Builds the tree over leaves[0 … n) (copied) with the given level arities; sha selects TreeD's
 * hash, else Poseidon of the level's arity. */
static int tree_build(tree *t, const czk_fr *leaves, size_t n, const uint32_t *arity,
                      uint32_t n_levels, int sha, czk_err *err) {
    memset(t, 0, sizeof(*t));
    size_t total = 0, w = n;
    for (uint32_t l = 0; l <= n_levels; l++) {
        total += w;
        if (l < n_levels)
            w /= arity[l];
    }
    t->mem = czk_malloc(total * sizeof(czk_fr));
    if (t->mem == NULL)
        return czk_err_set(err, CZK_ENOMEM, "snap gen: no memory for a tree of %zu nodes", n);
    t->n_levels = n_levels;
    t->row[0] = t->mem;
    t->width[0] = n;
    memcpy(t->row[0], leaves, n * sizeof(czk_fr));
    for (uint32_t l = 0; l < n_levels; l++) {
        uint32_t a = t->arity[l] = arity[l];
        t->row[l + 1] = t->row[l] + t->width[l];
        t->width[l + 1] = t->width[l] / a;
        for (size_t i = 0; i < t->width[l + 1]; i++) {
            const czk_fr *in = t->row[l] + i * a;
            int rc = sha ? czk_snap_tree_d_node(&t->row[l + 1][i], &in[0], &in[1])
                         : czk_poseidon_hash_arity(in, a, &t->row[l + 1][i], err);
            if (rc != CZK_OK)
                return czk_err_set(err, CZK_EINTERNAL, "snap gen: hashing a tree node failed");
        }
    }
    return CZK_OK;
}

static void tree_clear(tree *t) {
    czk_free(t->mem);
    memset(t, 0, sizeof(*t));
}

static const czk_fr *tree_root(const tree *t) {
    return &t->row[t->n_levels][0];
}

/* The inclusion proof of leaf i. */
static void tree_proof(czk_snap_inclusion *p, const tree *t, size_t i) {
    memset(p, 0, sizeof(*p));
    p->leaf = t->row[0][i];
    p->root = *tree_root(t);
    p->leaf_index = i;
    p->n_levels = t->n_levels;
    for (uint32_t l = 0; l < t->n_levels; l++) {
        uint32_t a = t->arity[l], pos = (uint32_t)(i % a), s = 0;
        const czk_fr *group = t->row[l] + (i - pos);
        p->level[l].arity = a;
        p->level[l].index = pos;
        for (uint32_t j = 0; j < a; j++)
            if (j != pos)
                p->level[l].sib[s++] = group[j];
        i /= a;
    }
}

/* Partition k's proof before its paths: its challenges into out, the challenge proofs
 * allocated, comm_c and the apex count set. */
static int proof_start(czk_snap_partition_proof *vp, uint32_t *challenges, const czk_snap_shape *sh,
                       const czk_fr *comm_r_new, const czk_fr *comm_c, uint32_t k, czk_err *err) {
    int rc = czk_snap_challenges(challenges, sh, comm_r_new, k, err);
    if (rc != CZK_OK)
        return rc;
    vp->challenge = czk_calloc(sh->challenges, sizeof(*vp->challenge));
    if (vp->challenge == NULL)
        return czk_err_set(err, CZK_ENOMEM, "snap gen: no memory for the challenge proofs");
    vp->n_challenges = sh->challenges;
    vp->comm_c = *comm_c;
    vp->n_apex = sh->apex_leaves;
    return CZK_OK;
}

/* comm_r_new = Poseidon-2(comm_c, root of the new TreeR) (pair), then the public inputs. */
static int publish(czk_snap_public *pub, czk_fr *comm_r_new, const czk_fr pair[2],
                   const czk_fr *comm_r_old, const czk_fr *comm_d_new, uint32_t h, czk_err *err) {
    int rc = czk_poseidon_hash_arity(pair, 2, comm_r_new, err);
    if (rc != CZK_OK)
        return rc;
    czk_fr_to_bytes_le(pub->comm_r_old, comm_r_old);
    czk_fr_to_bytes_le(pub->comm_d_new, comm_d_new);
    czk_fr_to_bytes_le(pub->comm_r_new, comm_r_new);
    pub->h = h;
    return CZK_OK;
}

/* Partitions k0 … k0 + nk − 1 into vps[0 … nk) of an update of the old replica `given` with
 * `given_comm_c` (both NULL: random ones, as the Rust test's). */
static int gen(czk_snap_public *pub, czk_snap_partition_proof *vps, uint32_t k0, uint32_t nk,
               const czk_snap_shape *shape, uint32_t h, const czk_fr *given,
               const czk_fr *given_comm_c, czk_rng *rng, czk_err *err) {
    memset(pub, 0, sizeof(*pub));
    memset(vps, 0, nk * sizeof(*vps));
    const czk_snap_shape *sh = shape;
    if (!czk_snap_shape_valid(sh) || sh->nodes > CZK_SNAP_GEN_MAX_NODES || nk == 0 ||
        k0 + nk > sh->partitions)
        return czk_err_set(err, CZK_EINVAL, "snap gen: a sector of %llu nodes, partition %u",
                           (unsigned long long)sh->nodes, k0 + nk - 1);
    int hi = -1;
    for (int i = 0; i < CZK_SNAP_N_HS; i++)
        if (sh->hs[i] == h && hi < 0)
            hi = i;
    if (hi < 0)
        return czk_err_set(err, CZK_EINVAL, "snap gen: h = %u is not allowed", h);
    size_t n = (size_t)sh->nodes;
    uint32_t ar[CZK_SNAP_MAX_LEVELS], nr = czk_por_shape_levels(&sh->tree_r),
                                      ad[CZK_SNAP_MAX_LEVELS];
    for (uint32_t l = 0; l < nr; l++)
        ar[l] = czk_snap_tree_r_arity(&sh->tree_r, l);
    for (uint32_t l = 0; l < sh->challenge_bit_len; l++)
        ad[l] = 2;
    tree r_old = {0}, d_new = {0}, r_new = {0};
    czk_fr *old = czk_malloc(n * sizeof(czk_fr)), *data = czk_malloc(n * sizeof(czk_fr));
    czk_fr *enc = czk_malloc(n * sizeof(czk_fr));
    czk_fr comm_c, pair[2], comm_r_old, comm_r_new, comm_d_new, phi;
    uint32_t challenges[CZK_SNAP_MAX_CHALLENGES];
    int rc = CZK_OK;
    if (old == NULL || data == NULL || enc == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "snap gen: no memory for %zu nodes", n);
        goto out;
    }
    /* The old replica and comm_c (given, or random as the Rust test's), comm_r_old =
     * H(comm_c ‖ root). */
    for (size_t i = 0; i < n; i++) {
        if (given != NULL)
            old[i] = given[i];
        else
            czk_fr_random(&old[i], rng);
    }
    if (given_comm_c != NULL)
        comm_c = *given_comm_c;
    else
        czk_fr_random(&comm_c, rng);
    if ((rc = tree_build(&r_old, old, n, ar, nr, 0, err)) != CZK_OK)
        goto out;
    pair[0] = comm_c;
    pair[1] = *tree_root(&r_old);
    if ((rc = czk_poseidon_hash_arity(pair, 2, &comm_r_old, err)) != CZK_OK)
        goto out;
    /* The new data and TreeDNew. */
    for (size_t i = 0; i < n; i++)
        czk_fr_random(&data[i], rng);
    if ((rc = tree_build(&d_new, data, n, ad, sh->challenge_bit_len, 1, err)) != CZK_OK)
        goto out;
    comm_d_new = *tree_root(&d_new);
    /* vanilla.rs:629-647 phi and rho; the encoding of tests/common/mod.rs encode_new_replica:
     * node i gets old_i + data_i · rho(phi, i >> (log2 nodes − h)). */
    if ((rc = czk_snap_hash_gen(&phi, &comm_d_new, &comm_r_old, err)) != CZK_OK)
        goto out;
    czk_fr rho;
    for (size_t i = 0; i < n; i++) {
        czk_fr high, t;
        uint64_t bin = (uint64_t)i >> (sh->challenge_bit_len - h);
        czk_fr_set_u64(&high, bin);
        /* rho changes once a bin (nodes >> h of them): hashed at each bin's first node. */
        if (i == 0 || bin != ((uint64_t)i - 1) >> (sh->challenge_bit_len - h))
            if ((rc = czk_snap_hash_gen(&rho, &phi, &high, err)) != CZK_OK)
                goto out;
        czk_fr_mul(&t, &data[i], &rho);
        czk_fr_add(&enc[i], &old[i], &t);
    }
    if ((rc = tree_build(&r_new, enc, n, ar, nr, 0, err)) != CZK_OK)
        goto out;
    pair[1] = *tree_root(&r_new);
    if ((rc = publish(pub, &comm_r_new, pair, &comm_r_old, &comm_d_new, h, err)) != CZK_OK)
        goto out;

    /* Each partition's proof (vanilla.rs prove_inner): its apex leaves, TreeD's row
     * log2(nodes / (partitions · apex)) above the leaves, and the three paths per challenge. */
    uint32_t apex_row = sh->challenge_bit_len - sh->partition_bit_len - sh->apex_leaf_bit_len;
    for (uint32_t j = 0; j < nk; j++) {
        uint32_t k = k0 + j;
        czk_snap_partition_proof *vp = &vps[j];
        if ((rc = proof_start(vp, challenges, sh, &comm_r_new, &comm_c, k, err)) != CZK_OK)
            goto out;
        memcpy(vp->apex, d_new.row[apex_row] + (size_t)k * sh->apex_leaves,
               sh->apex_leaves * sizeof(czk_fr));
        for (uint32_t c = 0; c < sh->challenges; c++) {
            tree_proof(&vp->challenge[c].r_old, &r_old, challenges[c]);
            tree_proof(&vp->challenge[c].d_new, &d_new, challenges[c]);
            tree_proof(&vp->challenge[c].r_new, &r_new, challenges[c]);
        }
    }
out:
    if (rc != CZK_OK)
        for (uint32_t j = 0; j < nk; j++)
            czk_snap_partition_proof_clear(&vps[j]);
    tree_clear(&r_old);
    tree_clear(&d_new);
    tree_clear(&r_new);
    czk_free(old);
    czk_free(data);
    czk_free(enc);
    return rc;
}

int czk_snap_gen(czk_snap_public *pub, czk_snap_partition_proof *vp, const czk_snap_shape *shape,
                 uint32_t k, uint32_t h, czk_rng *rng, czk_err *err) {
    return gen(pub, vp, k, 1, shape, h, NULL, NULL, rng, err);
}

int czk_snap_gen_sealed(czk_snap_public *pub, czk_snap_partition_proof *vps,
                        const czk_snap_shape *shape, uint32_t h, const czk_fr *replica,
                        size_t n_replica, const czk_fr *comm_c, czk_rng *rng, czk_err *err) {
    if (n_replica != shape->nodes) {
        memset(pub, 0, sizeof(*pub));
        return czk_err_set(err, CZK_EINVAL,
                           "snap gen: a replica of %zu nodes for a %llu-node update", n_replica,
                           (unsigned long long)shape->nodes);
    }
    return gen(pub, vps, 0, shape->partitions, shape, h, replica, comm_c, rng, err);
}

/* ---- virtual updates: trees of a periodic sector ---------------------------------------- */

/*
 * A tree over `nodes` leaves whose leaf j is leaf(bin, j mod period) for bin = j / binsize:
 * the same block of `period` leaves repeated within each bin. Levels whose span (leaves under
 * one node) is at most the period are kept per bin as the block's own tree; levels whose span
 * is at most a bin keep one value per bin (every node of a bin is equal there); the levels
 * above are kept whole, and are narrow (nodes / span).
 */
typedef struct vtree {
    uint32_t n_levels;
    uint32_t arity[CZK_SNAP_MAX_LEVELS];
    uint64_t span[CZK_SNAP_MAX_LEVELS + 1]; /* leaves under one node of each row */
    uint64_t nodes, period, binsize;
    uint32_t nbins, blk_rows; /* rows 0 … blk_rows − 1 lie inside a block */
    size_t blk_off[CZK_SNAP_MAX_LEVELS + 1], blk_nodes;
    czk_fr *blk;                          /* nbins × blk_nodes: each bin's block tree */
    czk_fr *row[CZK_SNAP_MAX_LEVELS + 1]; /* the other rows: per bin, or whole */
    int sha;
} vtree;

static void vtree_clear(vtree *t) {
    czk_free(t->blk);
    for (uint32_t l = 0; l <= t->n_levels; l++)
        czk_free(t->row[l]);
    memset(t, 0, sizeof(*t));
}

static int vhash(const vtree *t, czk_fr *out, const czk_fr *in, uint32_t a, czk_err *err) {
    int rc = t->sha ? czk_snap_tree_d_node(out, &in[0], &in[1])
                    : czk_poseidon_hash_arity(in, a, out, err);
    return rc == CZK_OK ? CZK_OK : czk_err_set(err, CZK_EINTERNAL, "snap gen: a hash failed");
}

/* Node idx of row l. */
static const czk_fr *vtree_node(const vtree *t, uint32_t l, uint64_t idx) {
    uint64_t first = idx * t->span[l]; /* its first leaf */
    uint32_t bin = (uint32_t)(first / t->binsize);
    if (l < t->blk_rows)
        return &t->blk[bin * t->blk_nodes + t->blk_off[l] + (first % t->period) / t->span[l]];
    if (t->span[l] <= t->binsize)
        return &t->row[l][bin];
    return &t->row[l][idx];
}

/* Builds the tree; leaves(arg, bin, j, out) gives leaf j of a bin's block. */
typedef void (*vleaf_fn)(const void *arg, uint32_t bin, uint64_t j, czk_fr *out);

static int vtree_build(vtree *t, const uint32_t *arity, uint32_t n_levels, uint64_t nodes,
                       uint64_t period, uint64_t binsize, int sha, vleaf_fn leaf, const void *arg,
                       czk_err *err) {
    memset(t, 0, sizeof(*t));
    t->n_levels = n_levels;
    t->nodes = nodes;
    t->period = period;
    t->binsize = binsize;
    t->nbins = (uint32_t)(nodes / binsize);
    t->sha = sha;
    t->span[0] = 1;
    for (uint32_t l = 0; l < n_levels; l++) {
        t->arity[l] = arity[l];
        t->span[l + 1] = t->span[l] * arity[l];
    }
    while (t->blk_rows <= n_levels && t->span[t->blk_rows] <= period) {
        t->blk_off[t->blk_rows] = t->blk_nodes;
        t->blk_nodes += period / t->span[t->blk_rows];
        t->blk_rows++;
    }
    if (t->span[t->blk_rows - 1] != period || binsize % period != 0 || nodes % binsize != 0)
        return czk_err_set(err, CZK_EINVAL,
                           "snap gen: a period of %llu nodes does not fit this tree's levels",
                           (unsigned long long)period);
    t->blk = czk_malloc((size_t)t->nbins * t->blk_nodes * sizeof(czk_fr));
    if (t->blk == NULL)
        return czk_err_set(err, CZK_ENOMEM, "snap gen: no memory for %u blocks", t->nbins);
    for (uint32_t b = 0; b < t->nbins; b++) {
        czk_fr *blk = t->blk + (size_t)b * t->blk_nodes;
        for (uint64_t j = 0; j < period; j++)
            leaf(arg, b, j, &blk[j]);
        for (uint32_t l = 1; l < t->blk_rows; l++) {
            uint32_t a = arity[l - 1];
            for (uint64_t i = 0; i < period / t->span[l]; i++) {
                int rc = vhash(t, &blk[t->blk_off[l] + i], &blk[t->blk_off[l - 1] + i * a], a, err);
                if (rc != CZK_OK)
                    return rc;
            }
        }
    }
    for (uint32_t l = t->blk_rows; l <= n_levels; l++) {
        uint32_t a = arity[l - 1];
        uint64_t width = t->span[l] <= binsize ? t->nbins : nodes / t->span[l];
        t->row[l] = czk_malloc(width * sizeof(czk_fr));
        if (t->row[l] == NULL)
            return czk_err_set(err, CZK_ENOMEM, "snap gen: no memory for a row");
        for (uint64_t i = 0; i < width; i++) {
            /* Node i of the row (or the nodes of bin i, all equal): its children. */
            uint64_t idx = t->span[l] <= binsize ? i * (binsize / t->span[l]) : i;
            czk_fr in[8];
            for (uint32_t c = 0; c < a; c++)
                in[c] = *vtree_node(t, l - 1, idx * a + c);
            int rc = vhash(t, &t->row[l][i], in, a, err);
            if (rc != CZK_OK)
                return rc;
        }
    }
    return CZK_OK;
}

static void vtree_proof(czk_snap_inclusion *p, const vtree *t, uint64_t i) {
    memset(p, 0, sizeof(*p));
    p->leaf = *vtree_node(t, 0, i);
    p->root = *vtree_node(t, t->n_levels, 0);
    p->leaf_index = i;
    p->n_levels = t->n_levels;
    for (uint32_t l = 0; l < t->n_levels; l++) {
        uint32_t a = t->arity[l], pos = (uint32_t)(i % a), s = 0;
        p->level[l].arity = a;
        p->level[l].index = pos;
        for (uint32_t j = 0; j < a; j++)
            if (j != pos)
                p->level[l].sib[s++] = *vtree_node(t, l, i - pos + j);
        i /= a;
    }
}

typedef struct vsector {
    const czk_fr *old, *data, *rho; /* old and data: one period; rho: one per bin */
} vsector;

static void leaf_old(const void *arg, uint32_t bin, uint64_t j, czk_fr *out) {
    (void)bin;
    *out = ((const vsector *)arg)->old[j];
}

static void leaf_data(const void *arg, uint32_t bin, uint64_t j, czk_fr *out) {
    (void)bin;
    *out = ((const vsector *)arg)->data[j];
}

/* tests/common/mod.rs encode_new_replica: old + data · rho(bin). */
static void leaf_new(const void *arg, uint32_t bin, uint64_t j, czk_fr *out) {
    const vsector *v = arg;
    czk_fr t;
    czk_fr_mul(&t, &v->data[j], &v->rho[bin]);
    czk_fr_add(out, &v->old[j], &t);
}

int czk_snap_gen_virtual(czk_snap_public *pub, czk_snap_partition_proof *vps,
                         const czk_snap_shape *shape, uint32_t h, uint32_t log2_period,
                         czk_rng *rng, czk_err *err) {
    const czk_snap_shape *sh = shape;
    memset(pub, 0, sizeof(*pub));
    if (czk_snap_shape_valid(sh))
        memset(vps, 0, sh->partitions * sizeof(*vps));
    int hi = -1;
    for (int i = 0; i < CZK_SNAP_N_HS && czk_snap_shape_valid(sh); i++)
        if (sh->hs[i] == h && hi < 0)
            hi = i;
    if (hi < 0)
        return czk_err_set(err, CZK_EINVAL, "snap gen: h = %u is not allowed", h);
    uint32_t lg = sh->challenge_bit_len;
    uint64_t period = 1ull << log2_period, binsize = 1ull << (lg - h);
    if (log2_period % 3 != 0 || log2_period == 0 || period > binsize)
        return czk_err_set(err, CZK_EINVAL,
                           "snap gen: a period of 2^%u nodes must be a power of 8 within one rho "
                           "bin (2^%u nodes)",
                           log2_period, lg - h);
    uint32_t ar[CZK_SNAP_MAX_LEVELS], ad[CZK_SNAP_MAX_LEVELS];
    uint32_t nr = czk_por_shape_levels(&sh->tree_r);
    for (uint32_t l = 0; l < nr; l++)
        ar[l] = czk_snap_tree_r_arity(&sh->tree_r, l);
    for (uint32_t l = 0; l < lg; l++)
        ad[l] = 2;
    uint32_t nbins = 1u << h;
    vtree r_old = {0}, d_new = {0}, r_new = {0};
    czk_fr *old = czk_malloc(period * sizeof(czk_fr)), *data = czk_malloc(period * sizeof(czk_fr));
    czk_fr *rho = czk_malloc(nbins * sizeof(czk_fr));
    czk_fr comm_c, pair[2], comm_r_old, comm_r_new, comm_d_new, phi;
    uint32_t challenges[CZK_SNAP_MAX_CHALLENGES];
    vsector v = {old, data, rho};
    int rc = CZK_OK;
    if (old == NULL || data == NULL || rho == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "snap gen: no memory for a period");
        goto out;
    }
    for (uint64_t i = 0; i < period; i++) {
        czk_fr_random(&old[i], rng);
        czk_fr_random(&data[i], rng);
    }
    czk_fr_random(&comm_c, rng);
    if ((rc = vtree_build(&r_old, ar, nr, sh->nodes, period, sh->nodes, 0, leaf_old, &v, err)) !=
        CZK_OK)
        goto out;
    pair[0] = comm_c;
    pair[1] = *vtree_node(&r_old, nr, 0);
    if ((rc = czk_poseidon_hash_arity(pair, 2, &comm_r_old, err)) != CZK_OK)
        goto out;
    if ((rc = vtree_build(&d_new, ad, lg, sh->nodes, period, sh->nodes, 1, leaf_data, &v, err)) !=
        CZK_OK)
        goto out;
    comm_d_new = *vtree_node(&d_new, lg, 0);
    /* vanilla.rs:629-647: phi = H(comm_d_new ‖ comm_r_old), rho(bin) = H(phi ‖ bin). */
    if ((rc = czk_snap_hash_gen(&phi, &comm_d_new, &comm_r_old, err)) != CZK_OK)
        goto out;
    for (uint32_t b = 0; b < nbins; b++) {
        czk_fr high;
        czk_fr_set_u64(&high, b);
        if ((rc = czk_snap_hash_gen(&rho[b], &phi, &high, err)) != CZK_OK)
            goto out;
    }
    if ((rc = vtree_build(&r_new, ar, nr, sh->nodes, period, binsize, 0, leaf_new, &v, err)) !=
        CZK_OK)
        goto out;
    pair[1] = *vtree_node(&r_new, nr, 0);
    if ((rc = publish(pub, &comm_r_new, pair, &comm_r_old, &comm_d_new, h, err)) != CZK_OK)
        goto out;
    uint32_t apex_row = lg - sh->partition_bit_len - sh->apex_leaf_bit_len;
    for (uint32_t k = 0; k < sh->partitions; k++) {
        czk_snap_partition_proof *vp = &vps[k];
        if ((rc = proof_start(vp, challenges, sh, &comm_r_new, &comm_c, k, err)) != CZK_OK)
            goto out;
        for (uint32_t j = 0; j < sh->apex_leaves; j++)
            vp->apex[j] = *vtree_node(&d_new, apex_row, (uint64_t)k * sh->apex_leaves + j);
        for (uint32_t c = 0; c < sh->challenges; c++) {
            vtree_proof(&vp->challenge[c].r_old, &r_old, challenges[c]);
            vtree_proof(&vp->challenge[c].d_new, &d_new, challenges[c]);
            vtree_proof(&vp->challenge[c].r_new, &r_new, challenges[c]);
        }
    }
out:
    if (rc != CZK_OK && czk_snap_shape_valid(sh))
        for (uint32_t k = 0; k < sh->partitions; k++)
            czk_snap_partition_proof_clear(&vps[k]);
    vtree_clear(&r_old);
    vtree_clear(&d_new);
    vtree_clear(&r_new);
    czk_free(old);
    czk_free(data);
    czk_free(rho);
    return rc;
}
