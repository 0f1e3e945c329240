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

#include <openssl/sha.h>
#include <string.h>

#include "filecoin/poseidon.h"
#include "util/alloc.h"

typedef struct tree {
    uint32_t n_levels;                     /* hashing levels */
    uint32_t arity[CZK_SNAP_MAX_LEVELS];   /* of each hashing level */
    czk_fr *row[CZK_SNAP_MAX_LEVELS + 1];  /* row[0] = leaves, row[n_levels] = {root} */
    size_t width[CZK_SNAP_MAX_LEVELS + 1]; /* nodes per row */
    czk_fr *mem;
} tree;

/* filecoin-hashers sha256.rs:153-159 hash2: SHA-256 of the two 32-byte LE values, its top
 * two bits cleared (trim_to_fr32). */
static int sha_node(czk_fr *out, const czk_fr *a, const czk_fr *b) {
    uint8_t buf[64], d[32];
    czk_fr_to_bytes_le(buf, a);
    czk_fr_to_bytes_le(buf + 32, b);
    if (SHA256(buf, 64, d) == NULL)
        return CZK_EINTERNAL;
    d[31] &= 0x3f;
    return czk_fr_from_bytes_le(out, d) == CZK_OK ? CZK_OK : CZK_EINTERNAL;
}

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
            int rc = sha ? sha_node(&t->row[l + 1][i], &in[0], &in[1])
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

int czk_snap_gen(czk_snap_public *pub, czk_snap_partition_proof *vp, const czk_snap_shape *shape,
                 uint32_t k, uint32_t h, czk_rng *rng, czk_err *err) {
    memset(pub, 0, sizeof(*pub));
    memset(vp, 0, sizeof(*vp));
    const czk_snap_shape *sh = shape;
    if (!czk_snap_shape_valid(sh) || sh->nodes > CZK_SNAP_GEN_MAX_NODES || k >= sh->partitions)
        return czk_err_set(err, CZK_EINVAL, "snap gen: a sector of %llu nodes, partition %u",
                           (unsigned long long)sh->nodes, k);
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
        ar[l] = l < sh->tree_r.base_levels                            ? sh->tree_r.base_arity
                : l == sh->tree_r.base_levels && sh->tree_r.sub_arity ? sh->tree_r.sub_arity
                                                                      : sh->tree_r.top_arity;
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
    /* The old replica and comm_c (random, as the Rust test's), comm_r_old = H(comm_c ‖ root). */
    for (size_t i = 0; i < n; i++)
        czk_fr_random(&old[i], rng);
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
    for (size_t i = 0; i < n; i++) {
        czk_fr high, rho, t;
        czk_fr_set_u64(&high, (uint64_t)i >> (sh->challenge_bit_len - h));
        if ((rc = czk_snap_hash_gen(&rho, &phi, &high, err)) != CZK_OK)
            goto out;
        czk_fr_mul(&t, &data[i], &rho);
        czk_fr_add(&enc[i], &old[i], &t);
    }
    if ((rc = tree_build(&r_new, enc, n, ar, nr, 0, err)) != CZK_OK)
        goto out;
    pair[1] = *tree_root(&r_new);
    if ((rc = czk_poseidon_hash_arity(pair, 2, &comm_r_new, err)) != CZK_OK)
        goto out;
    czk_fr_to_bytes_le(pub->comm_r_old, &comm_r_old);
    czk_fr_to_bytes_le(pub->comm_d_new, &comm_d_new);
    czk_fr_to_bytes_le(pub->comm_r_new, &comm_r_new);
    pub->h = h;

    /* Partition k's proof (vanilla.rs prove_inner): its apex leaves, TreeD's row
     * log2(nodes / (partitions · apex)) above the leaves, and the three paths per challenge. */
    if ((rc = czk_snap_challenges(challenges, sh, &comm_r_new, k, err)) != CZK_OK)
        goto out;
    vp->challenge = czk_calloc(sh->challenges, sizeof(*vp->challenge));
    if (vp->challenge == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "snap gen: no memory for the challenge proofs");
        goto out;
    }
    vp->n_challenges = sh->challenges;
    vp->comm_c = comm_c;
    vp->n_apex = sh->apex_leaves;
    uint32_t apex_row = sh->challenge_bit_len - sh->partition_bit_len - sh->apex_leaf_bit_len;
    memcpy(vp->apex, d_new.row[apex_row] + (size_t)k * sh->apex_leaves,
           sh->apex_leaves * sizeof(czk_fr));
    for (uint32_t c = 0; c < sh->challenges; c++) {
        tree_proof(&vp->challenge[c].r_old, &r_old, challenges[c]);
        tree_proof(&vp->challenge[c].d_new, &d_new, challenges[c]);
        tree_proof(&vp->challenge[c].r_new, &r_new, challenges[c]);
    }
out:
    if (rc != CZK_OK)
        czk_snap_partition_proof_clear(vp);
    tree_clear(&r_old);
    tree_clear(&d_new);
    tree_clear(&r_new);
    czk_free(old);
    czk_free(data);
    czk_free(enc);
    return rc;
}
