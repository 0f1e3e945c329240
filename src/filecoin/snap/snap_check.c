/*
 * A SnapDeals partition proof checked against the public data outside any constraint system
 * (snap_vanilla.h czk_snap_partition_check), as storage-proofs-update vanilla.rs verify does:
 * the challenges, every path, the roots against the commitments, the apex leaves and the
 * encoding. What a prover checks at submit, so that a proof for other commitments, another
 * partition or with a flipped byte is refused naming the partition and the fault before any
 * synthesis.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#include <string.h>

#include "filecoin/hash/poseidon.h"
#include "filecoin/snap/snap_vanilla.h"

/* Hashes path p from its leaf up through its first `levels` levels (sha: binary SHA-256, else
 * Poseidon of each level's arity). Out: *node. */
static int path_up(czk_fr *node, const czk_snap_inclusion *p, uint32_t levels, int sha,
                   czk_err *err) {
    czk_fr cur = p->leaf, in[8];
    for (uint32_t l = 0; l < levels; l++) {
        const czk_vanilla_level *lv = &p->level[l];
        if (lv->arity < 2 || lv->arity > 8 || lv->index >= lv->arity)
            return czk_err_set(err, CZK_EINVAL, "level %u has arity %u and index %u", l, lv->arity,
                               lv->index);
        for (uint32_t i = 0, s = 0; i < lv->arity; i++)
            in[i] = i == lv->index ? cur : lv->sib[s++];
        int rc = sha ? czk_snap_tree_d_node(&cur, &in[0], &in[1])
                     : czk_poseidon_hash_arity(in, lv->arity, &cur, err);
        if (rc != CZK_OK)
            return czk_err_set(err, CZK_EINTERNAL, "hashing level %u failed", l);
    }
    *node = cur;
    return CZK_OK;
}

int czk_snap_partition_check(const czk_snap_shape *shape, const czk_snap_public *pub,
                             const czk_snap_partition_proof *vp, uint32_t k, czk_err *err) {
    const czk_snap_shape *sh = shape;
    if (!czk_snap_shape_valid(sh))
        return czk_err_set(err, CZK_EINVAL, "snap partition %u: invalid circuit shape", k);
    czk_fr pin[4];
    uint32_t ch[CZK_SNAP_MAX_CHALLENGES];
    czk_err e = {0};
    int rc = czk_snap_public_inputs(pin, sh, pub, k, &e);
    if (rc == CZK_OK)
        rc = czk_snap_challenges(ch, sh, &pin[3], k, &e);
    if (rc != CZK_OK)
        return czk_err_set(err, rc, "snap partition %u: %s", k, e.msg);
    if (vp->n_apex != sh->apex_leaves || vp->n_challenges != sh->challenges ||
        vp->challenge == NULL)
        return czk_err_set(err, CZK_EINVAL,
                           "snap partition %u: %u apex leaves and %u challenge proofs, the "
                           "sector needs %u and %u",
                           k, vp->n_apex, vp->n_challenges, sh->apex_leaves, sh->challenges);
    const czk_fr *comm_r_old = &pin[1], *comm_d_new = &pin[2], *comm_r_new = &pin[3];
    const uint32_t cbl = sh->challenge_bit_len, levels_r = czk_por_shape_levels(&sh->tree_r);
    const uint32_t start = cbl - sh->partition_bit_len - sh->apex_leaf_bit_len;
    czk_fr phi, t;
    if ((rc = czk_snap_hash_gen(&phi, comm_d_new, comm_r_old, err)) != CZK_OK)
        return rc;

    /* comm_r = H(comm_c ‖ root) for both replicas: one root each, shared by every challenge. */
    const czk_fr *roots[2] = {&vp->challenge[0].r_old.root, &vp->challenge[0].r_new.root};
    const czk_fr *comms[2] = {comm_r_old, comm_r_new};
    static const char *const tree_name[2] = {"TreeROld", "TreeRNew"};
    static const char *const comm_name[2] = {"comm_r_old", "comm_r_new"};
    for (int i = 0; i < 2; i++) {
        czk_fr in[2] = {vp->comm_c, *roots[i]};
        if (czk_poseidon_hash_arity(in, 2, &t, err) != CZK_OK)
            return czk_err_set(err, CZK_EINTERNAL, "snap partition %u: hashing failed", k);
        if (!czk_fr_equal(&t, comms[i]))
            return czk_err_set(err, CZK_EVERIFY,
                               "snap partition %u: H(comm_c, %s root) is not %s: the proof is "
                               "for another sector or update",
                               k, tree_name[i], comm_name[i]);
    }

    /* The apex leaves hash to the node challenge 0's TreeDNew path reaches at their height. */
    czk_fr row[CZK_SNAP_MAX_APEX], apex_root, node;
    memcpy(row, vp->apex, sizeof(czk_fr) * sh->apex_leaves);
    for (uint32_t n = sh->apex_leaves; n > 1; n /= 2)
        for (uint32_t i = 0; i < n / 2; i++)
            if (czk_snap_tree_d_node(&row[i], &row[2 * i], &row[2 * i + 1]) != CZK_OK)
                return czk_err_set(err, CZK_EINTERNAL, "snap partition %u: hashing failed", k);
    apex_root = row[0];

    for (uint32_t c = 0; c < sh->challenges; c++) {
        const czk_snap_challenge_proof *p = &vp->challenge[c];
        if (p->r_old.leaf_index != ch[c] || p->d_new.leaf_index != ch[c] ||
            p->r_new.leaf_index != ch[c])
            return czk_err_set(err, CZK_EVERIFY,
                               "snap partition %u: challenge %u is node %u (from comm_r_new), "
                               "but the paths prove nodes %llu, %llu and %llu",
                               k, c, ch[c], (unsigned long long)p->r_old.leaf_index,
                               (unsigned long long)p->d_new.leaf_index,
                               (unsigned long long)p->r_new.leaf_index);
        const czk_snap_inclusion *r[2] = {&p->r_old, &p->r_new};
        for (int i = 0; i < 2; i++) {
            int ok = r[i]->n_levels == levels_r;
            for (uint32_t l = 0; ok && l < levels_r; l++)
                ok = r[i]->level[l].arity == czk_snap_tree_r_arity(&sh->tree_r, l);
            if (!ok)
                return czk_err_set(err, CZK_EINVAL,
                                   "snap partition %u: challenge %u: the %s path does not fit "
                                   "the sector's TreeR",
                                   k, c, tree_name[i]);
            if ((rc = path_up(&node, r[i], levels_r, 0, &e)) != CZK_OK)
                return czk_err_set(err, rc, "snap partition %u: challenge %u: %s path: %s", k, c,
                                   tree_name[i], e.msg);
            if (!czk_fr_equal(&node, &r[i]->root) || !czk_fr_equal(&r[i]->root, roots[i]))
                return czk_err_set(err, CZK_EVERIFY,
                                   "snap partition %u: challenge %u: the %s path does not hash "
                                   "to the root behind %s",
                                   k, c, tree_name[i], comm_name[i]);
        }
        int ok = p->d_new.n_levels == cbl;
        for (uint32_t l = 0; ok && l < cbl; l++)
            ok = p->d_new.level[l].arity == 2;
        if (!ok)
            return czk_err_set(err, CZK_EINVAL,
                               "snap partition %u: challenge %u: the TreeDNew path does not "
                               "have %u binary levels",
                               k, c, cbl);
        /* Up to the apex leaves: the node must be the apex leaf the challenge names. */
        if ((rc = path_up(&node, &p->d_new, start, 1, &e)) != CZK_OK)
            return czk_err_set(err, rc, "snap partition %u: challenge %u: TreeDNew path: %s", k, c,
                               e.msg);
        uint32_t a = (ch[c] >> start) & (sh->apex_leaves - 1);
        if (!czk_fr_equal(&node, &vp->apex[a]))
            return czk_err_set(err, CZK_EVERIFY,
                               "snap partition %u: challenge %u: the TreeDNew path does not "
                               "reach apex leaf %u",
                               k, c, a);
        /* The whole path: to comm_d_new, through the apex root. */
        czk_snap_inclusion d = p->d_new;
        if ((rc = path_up(&node, &d, cbl, 1, &e)) != CZK_OK)
            return czk_err_set(err, rc, "snap partition %u: challenge %u: TreeDNew path: %s", k, c,
                               e.msg);
        if (!czk_fr_equal(&node, comm_d_new) || !czk_fr_equal(&p->d_new.root, comm_d_new))
            return czk_err_set(err, CZK_EVERIFY,
                               "snap partition %u: challenge %u: the TreeDNew path does not "
                               "hash to comm_d_new",
                               k, c);
        if (c == 0) {
            d.leaf = apex_root;
            memmove(d.level, d.level + start + sh->apex_leaf_bit_len,
                    sizeof(czk_vanilla_level) * sh->partition_bit_len);
            if ((rc = path_up(&node, &d, sh->partition_bit_len, 1, &e)) != CZK_OK)
                return czk_err_set(err, rc, "snap partition %u: apex path: %s", k, e.msg);
            if (!czk_fr_equal(&node, comm_d_new))
                return czk_err_set(err, CZK_EVERIFY,
                                   "snap partition %u: the apex leaves do not hash to "
                                   "comm_d_new",
                                   k);
        }
        /* The encoding: leaf_r_new = leaf_r_old + leaf_d_new · H(phi ‖ c's high h bits). */
        czk_fr high, rho;
        czk_fr_set_u64(&high, (uint64_t)ch[c] >> (cbl - pub->h));
        if ((rc = czk_snap_hash_gen(&rho, &phi, &high, err)) != CZK_OK)
            return rc;
        czk_fr_mul(&t, &p->d_new.leaf, &rho);
        czk_fr_add(&t, &t, &p->r_old.leaf);
        if (!czk_fr_equal(&t, &p->r_new.leaf))
            return czk_err_set(err, CZK_EVERIFY,
                               "snap partition %u: challenge %u: TreeRNew's leaf is not the "
                               "old replica's leaf plus the data leaf times rho",
                               k, c);
    }
    return CZK_OK;
}
