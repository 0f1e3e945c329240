/*
 * The C1 check (contract in c1_check.h).
 */
#include "filecoin/porep/c1_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "filecoin/hash/poseidon.h"
#include "filecoin/hash/sha254.h"
#include "filecoin/porep/sdr.h"

static int fr_of(czk_fr *out, const uint8_t b[32], const char *name, czk_err *err) {
    if (czk_fr_from_bytes_le(out, b) != CZK_OK)
        return czk_err_set(err, CZK_ERANGE, "%s is not a field element (≥ r)", name);
    return CZK_OK;
}

typedef struct checker {
    const czk_c1 *c1;
    const char *what;
    uint32_t k, i; /* the partition and challenge being checked */
    czk_err *err;
} checker;

__attribute__((format(printf, 2, 3))) static int fail(checker *c, const char *fmt, ...) {
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return czk_err_set(c->err, CZK_EVERIFY, "%s: partition %u challenge %u: %s", c->what, c->k,
                       c->i, msg);
}

/* tree_d's node (czk_sha254_node) over two field elements. */
static void sha254(czk_fr *out, const czk_fr *l, const czk_fr *r) {
    uint8_t lb[32], rb[32], md[32];
    czk_fr_to_bytes_le(lb, l);
    czk_fr_to_bytes_le(rb, r);
    czk_sha254_node(md, lb, rb);
    (void)czk_fr_from_bytes_le(out, md); /* < 2^254 < r */
}

/* Hashes m's path from its leaf (SHA-256 or Poseidon); compares with m's root and `root`, and
 * its node with `node`. */
static int check_path(checker *c, const czk_c1_merkle *m, int sha, const czk_fr *root,
                      uint64_t node, const char *name) {
    czk_fr cur = m->leaf;
    for (uint32_t l = 0; l < m->n_levels; l++) {
        const czk_vanilla_level *lv = &m->level[l];
        if (lv->arity < 2 || lv->arity > 8 || lv->index >= lv->arity || (sha && lv->arity != 2))
            return fail(c, "%s level %u is malformed", name, l);
        czk_fr in[8];
        for (uint32_t a = 0, s = 0; a < lv->arity; a++)
            in[a] = a == lv->index ? cur : lv->sib[s++];
        if (sha) {
            sha254(&cur, &in[0], &in[1]);
        } else {
            int rc = czk_poseidon_hash_arity(in, lv->arity, &cur, c->err);
            if (rc != CZK_OK)
                return rc;
        }
    }
    if (!czk_fr_equal(&cur, &m->root))
        return fail(c, "%s does not hash to its root", name);
    if (!czk_fr_equal(&m->root, root))
        return fail(c, "%s leads to another root than the sector's", name);
    if (czk_c1_merkle_node(m) != node)
        return fail(c, "%s opens node %llu, not %llu", name,
                    (unsigned long long)czk_c1_merkle_node(m), (unsigned long long)node);
    return CZK_OK;
}

/* A column: its index, its leaf (the Poseidon hash of its rows) and its path into comm_c. */
static int check_column(checker *c, const czk_c1_column *col, uint64_t node, const czk_fr *comm_c,
                        const char *name) {
    uint32_t layers = c->c1->type->layers;
    if (col->index != node)
        return fail(c, "%s is the column of node %u, not %llu", name, col->index,
                    (unsigned long long)node);
    if (col->n_rows != layers)
        return fail(c, "%s has %u rows, not %u", name, col->n_rows, layers);
    czk_fr h;
    int rc = czk_poseidon_hash_arity(col->rows, layers, &h, c->err);
    if (rc != CZK_OK)
        return rc;
    if (!czk_fr_equal(&h, &col->inclusion.leaf))
        return fail(c, "%s's leaf is not the hash of its rows", name);
    return check_path(c, &col->inclusion, 0, comm_c, node, name);
}

/* The challenge's labels: recomputed from its parents' rows, they must be its own column's
 * rows, and its labeling proofs (and the encoding proof) must hold those parents. */
static int check_labels(checker *c, const czk_c1_proof *p, uint64_t node,
                        const uint8_t replica_id[32]) {
    uint32_t layers = c->c1->type->layers;
    uint8_t parents[CZK_POREP_PARENTS * 32], label[32], want[32];
    czk_fr vals[CZK_SDR_PARENTS];
    for (uint32_t layer = 1; layer <= layers; layer++) {
        int n = 0;
        for (int j = 0; j < CZK_POREP_DRG_PARENTS; j++)
            vals[n++] = p->drg_parents[j].rows[layer - 1];
        if (layer > 1)
            for (int j = 0; j < CZK_POREP_EXP_PARENTS; j++)
                vals[n++] = p->exp_parents[j].rows[layer - 2];
        const czk_c1_labeling *lp = &p->labeling[layer - 1];
        if (lp->layer_index != layer || lp->node != node)
            return fail(c, "labeling proof %u is for layer %u node %llu", layer - 1,
                        lp->layer_index, (unsigned long long)lp->node);
        for (int q = 0; q < CZK_POREP_PARENTS; q++) {
            czk_fr_to_bytes_le(parents + 32 * q, &vals[q % n]);
            if (!czk_fr_equal(&lp->parents[q], &vals[q % n]))
                return fail(c, "labeling proof of layer %u: parent %d is not its column's row",
                            layer, q);
        }
        int rc = czk_sdr_label(label, replica_id, layer, node, parents, c->err);
        if (rc != CZK_OK)
            return rc;
        czk_fr_to_bytes_le(want, &p->c_x.rows[layer - 1]);
        if (memcmp(label, want, 32) != 0)
            return fail(c, "the label of layer %u is not the hash of its parents", layer);
    }
    const czk_c1_labeling *e = &p->encoding, *last = &p->labeling[layers - 1];
    if (e->layer_index != layers || e->node != node ||
        memcmp(e->parents, last->parents, sizeof e->parents) != 0)
        return fail(c, "the encoding proof is not the last labeling proof's");
    return CZK_OK;
}

int czk_porep_c1_check(const czk_c1 *c1, const czk_porep_sector_ids *ids, const char *what,
                       czk_err *err) {
    const czk_porep_type *ty = c1->type;
    checker c = {c1, what, 0, 0, err};
    static const uint8_t zero[32] = {0};
    if (memcmp(c1->comm_d, zero, 32) == 0 || memcmp(c1->comm_r, zero, 32) == 0 ||
        memcmp(c1->seed, zero, 32) == 0)
        return czk_err_set(err, CZK_EVERIFY, "%s: comm_d, comm_r and seed must not be zero", what);
    czk_err why = {0};
    if (czk_porep_type_supported(ty, &why) != CZK_OK)
        return czk_err_set(err, CZK_EUNSUPPORTED, "%s: %s", what, why.msg);
    if (ids != NULL) {
        uint8_t porep_id[32], rid[32];
        czk_porep_id(porep_id, ty);
        int rc = czk_porep_replica_id(rid, ids->prover_id, ids->sector_id, c1->ticket, c1->comm_d,
                                      porep_id, err);
        if (rc != CZK_OK)
            return rc;
        if (memcmp(rid, c1->replica_id, 32) != 0)
            return czk_err_set(err, CZK_EVERIFY,
                               "%s: the replica id is not sector %llu's of this miner (a C1 "
                               "output of another sector, ticket or registered proof)",
                               what, (unsigned long long)ids->sector_id);
    }
    czk_fr comm_d, comm_r, comm_c, comm_r_last;
    int rc;
    if ((rc = fr_of(&comm_d, c1->comm_d, "comm_d", err)) != CZK_OK ||
        (rc = fr_of(&comm_r, c1->comm_r, "comm_r", err)) != CZK_OK)
        return rc;
    comm_c = c1->proofs[0].c_x.inclusion.root;
    comm_r_last = c1->proofs[0].comm_r_last_proof.root;
    czk_fr pair[2] = {comm_c, comm_r_last}, h;
    if ((rc = czk_poseidon_hash_arity(pair, 2, &h, err)) != CZK_OK)
        return rc;
    if (!czk_fr_equal(&h, &comm_r))
        return czk_err_set(err, CZK_EVERIFY, "%s: comm_r is not Poseidon-2(comm_c, comm_r_last)",
                           what);
    czk_sdr_graph g;
    if ((rc = czk_sdr_graph_init(&g, ty, err)) != CZK_OK)
        return rc;
    for (c.k = 0; c.k < c1->n_partitions; c.k++) {
        uint64_t ch[CZK_POREP_MAX_CHALLENGES];
        uint32_t synth[CZK_POREP_MAX_CHALLENGES];
        int synthetic = ty->variant == CZK_POREP_SYNTHETIC;
        rc = synthetic
                 ? czk_porep_synthetic_challenges(ch, synth, ty, c1->replica_id, c1->comm_r,
                                                  c1->seed, c.k, err)
                 : czk_porep_interactive_challenges(ch, ty, c1->replica_id, c1->seed, c.k, err);
        if (rc != CZK_OK)
            return rc;
        for (c.i = 0; c.i < c1->n_challenges; c.i++) {
            const czk_c1_proof *p = czk_c1_at(c1, c.k, c.i);
            uint64_t node = ch[c.i];
            if (p->n_labeling != ty->layers || p->labeling[0].node != node) {
                if (synthetic)
                    return fail(&c,
                                "the proof is for node %llu, but the seed selects synthetic "
                                "challenge %u of %u, node %llu (of this comm_r's synthetic set)",
                                (unsigned long long)p->labeling[0].node, synth[c.i],
                                czk_porep_synth_count(ty->nodes), (unsigned long long)node);
                return fail(&c, "the proof is for node %llu, the challenge is node %llu",
                            (unsigned long long)p->labeling[0].node, (unsigned long long)node);
            }
            if ((rc = check_path(&c, &p->comm_d_proof, 1, &comm_d, node, "the comm_d path")) !=
                CZK_OK)
                return rc;
            uint32_t parents[CZK_SDR_PARENTS];
            if (czk_sdr_parents(&g, node, parents) != CZK_OK)
                return fail(&c, "node %llu is outside the graph", (unsigned long long)node);
            char name[48];
            for (int j = 0; j < CZK_SDR_PARENTS; j++) {
                const czk_c1_column *col = j < CZK_POREP_DRG_PARENTS
                                               ? &p->drg_parents[j]
                                               : &p->exp_parents[j - CZK_POREP_DRG_PARENTS];
                snprintf(name, sizeof name, "%s parent %d",
                         j < CZK_POREP_DRG_PARENTS ? "DRG" : "expander",
                         j < CZK_POREP_DRG_PARENTS ? j : j - CZK_POREP_DRG_PARENTS);
                if ((rc = check_column(&c, col, parents[j], &comm_c, name)) != CZK_OK)
                    return rc;
            }
            if ((rc = check_column(&c, &p->c_x, node, &comm_c, "the challenged column")) !=
                    CZK_OK ||
                (rc = check_labels(&c, p, node, c1->replica_id)) != CZK_OK)
                return rc;
            czk_fr enc;
            czk_fr_add(&enc, &p->c_x.rows[ty->layers - 1], &p->comm_d_proof.leaf);
            if (!czk_fr_equal(&enc, &p->comm_r_last_proof.leaf))
                return fail(&c, "the replica leaf is not the last label plus the data leaf");
            if ((rc = check_path(&c, &p->comm_r_last_proof, 0, &comm_r_last, node,
                                 "the comm_r_last path")) != CZK_OK)
                return rc;
        }
    }
    return CZK_OK;
}
