/*
 * The StackedDRG PoRep partition circuit (contract in porep.h): StackedCircuit::synthesize and
 * Proof::synthesize of rust-fil-proofs' storage-proofs-porep/src/stacked/circuit.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#include "filecoin/porep/porep.h"

#include <stdatomic.h>
#include <string.h>

#include "filecoin/gadgets/cs_parts.h"
#include "filecoin/gadgets/gadgets.h"
#include "filecoin/gadgets/poseidon_gadget.h"
#include "filecoin/gadgets/sha256_gadget.h"
#include "util/alloc.h"

int czk_porep_shape_init(czk_porep_shape *out, uint64_t sector_size, czk_err *err) {
    memset(out, 0, sizeof(*out));
    const czk_porep_type *ty = czk_porep_type_for_size(sector_size, err);
    if (ty == NULL)
        return CZK_EUNSUPPORTED;
    out->sector_size = sector_size;
    out->layers = ty->layers;
    out->challenges = ty->challenges;
    out->comm_d_levels = ty->comm_d_levels;
    out->tree.base_arity = 8;
    out->tree.base_levels = ty->tree.base_levels;
    out->tree.sub_arity = ty->tree.sub_arity;
    out->tree.top_arity = ty->tree.top_arity;
    return CZK_OK;
}

/* Bits of the parents hashed into one label: 14 distinct parents per layer at most, each 256
 * bits in SHA order. Kept off the stack (43 KB). */
typedef struct label_scratch {
    czk_bool raw[255];
    czk_bool bits[CZK_POREP_DRG_PARENTS + CZK_POREP_EXP_PARENTS][256];
    const czk_bool *parents[CZK_POREP_PARENTS];
} label_scratch;

/* to_bits_le of x, in the SHA byte order create_label consumes (reverse_bit_numbering). */
static int sha_bits(czk_cs *cs, czk_bool out[256], czk_bool raw[255], czk_var x) {
    int rc = czk_gadget_num_to_bits_le(cs, raw, x);
    if (rc == CZK_OK)
        czk_gadget_reverse_bit_numbering(out, raw, 255);
    return rc;
}

/* Whether the C1 output fits the shape (czk_porep_synthesize checks it before using it). */
static int c1_fits(const czk_porep_shape *shape, const czk_c1 *c1, uint32_t partition) {
    if (c1->type == NULL || c1->type->sector_size != shape->sector_size ||
        c1->n_challenges != shape->challenges || partition >= c1->n_partitions ||
        c1->proofs == NULL)
        return 0;
    uint32_t levels = czk_por_shape_levels(&shape->tree);
    for (uint32_t i = 0; i < shape->challenges; i++) {
        const czk_c1_proof *p = czk_c1_at(c1, partition, i);
        if (p->comm_d_proof.n_levels != shape->comm_d_levels ||
            p->comm_r_last_proof.n_levels != levels || p->c_x.inclusion.n_levels != levels ||
            p->n_labeling != shape->layers)
            return 0;
        for (int j = 0; j < CZK_POREP_DRG_PARENTS + CZK_POREP_EXP_PARENTS; j++) {
            const czk_c1_column *col = j < CZK_POREP_DRG_PARENTS
                                           ? &p->drg_parents[j]
                                           : &p->exp_parents[j - CZK_POREP_DRG_PARENTS];
            if (col->n_rows != shape->layers || col->inclusion.n_levels != levels)
                return 0;
        }
    }
    return 1;
}

/* Proof::synthesize for one challenge. `p` is NULL without values. */
static int challenge_synthesize(czk_cs *cs, const czk_porep_shape *shape, const czk_c1_proof *p,
                                czk_var comm_d, czk_var comm_c, czk_var comm_r_last,
                                const czk_bool replica_bits[256], const czk_poseidon_circuit *col_h,
                                label_scratch *ls) {
    enum { NP = CZK_POREP_DRG_PARENTS + CZK_POREP_EXP_PARENTS };
    const uint32_t L = shape->layers;
    czk_var data_leaf, hash, cols[NP][CZK_POREP_MAX_LAYERS], labels[CZK_POREP_MAX_LAYERS];
    int rc;
    czk_por_root root_d = {CZK_POR_ROOT_VAR, comm_d, CZK_FR_ZERO};
    czk_por_root root_c = {CZK_POR_ROOT_VAR, comm_c, CZK_FR_ZERO};
    czk_por_root root_r = {CZK_POR_ROOT_VAR, comm_r_last, CZK_FR_ZERO};

    /* 1. the data leaf and its inclusion in tree_d */
    if ((rc = czk_gadget_num_alloc(cs, &data_leaf, p ? &p->comm_d_proof.leaf : NULL)) != CZK_OK)
        return rc;
    czk_por_root leaf = {CZK_POR_ROOT_VAR, data_leaf, CZK_FR_ZERO};
    if ((rc = czk_sha256_gadget_por(cs, NULL, shape->comm_d_levels, &leaf,
                                    p ? p->comm_d_proof.level : NULL, &root_d, 1)) != CZK_OK)
        return rc;

    /* 2. the parents' columns and their inclusion in tree_c */
    for (int j = 0; j < NP; j++) {
        const czk_c1_column *col = NULL;
        if (p != NULL)
            col = j < CZK_POREP_DRG_PARENTS ? &p->drg_parents[j]
                                            : &p->exp_parents[j - CZK_POREP_DRG_PARENTS];
        for (uint32_t l = 0; l < L; l++)
            if ((rc = czk_gadget_num_alloc(cs, &cols[j][l], col ? &col->rows[l] : NULL)) != CZK_OK)
                return rc;
        if ((rc = czk_poseidon_gadget_hash(cs, &hash, col_h, cols[j], L)) != CZK_OK)
            return rc;
        czk_por_root v = {CZK_POR_ROOT_VAR, hash, CZK_FR_ZERO};
        if ((rc = czk_por_synthesize(cs, NULL, &shape->tree, &v, col ? col->inclusion.level : NULL,
                                     &root_c, 1)) != CZK_OK)
            return rc;
    }

    /* 3. the challenge */
    czk_bool node_bits[64];
    if ((rc = czk_gadget_uint64_alloc(cs, node_bits, p ? p->labeling[0].node : 0)) != CZK_OK ||
        (rc = czk_gadget_uint64_pack_into_input(cs, node_bits)) != CZK_OK)
        return rc;

    /* 4. the labels, layer by layer */
    for (uint32_t layer = 1; layer <= L; layer++) {
        int n = 0;
        for (int j = 0; j < CZK_POREP_DRG_PARENTS; j++, n++)
            if ((rc = sha_bits(cs, ls->bits[n], ls->raw, cols[j][layer - 1])) != CZK_OK)
                return rc;
        if (layer > 1)
            for (int j = CZK_POREP_DRG_PARENTS; j < NP; j++, n++)
                if ((rc = sha_bits(cs, ls->bits[n], ls->raw, cols[j][layer - 2])) != CZK_OK)
                    return rc;
        /* The hashing order of graph.rs: the n parents repeated, cut at 37 (layer 1: 6 × 6
         * and the first again; later layers: 14, 14 and the first 9). */
        for (int k = 0; k < CZK_POREP_PARENTS; k++)
            ls->parents[k] = ls->bits[k % n];
        if ((rc = czk_sha256_gadget_label(cs, &labels[layer - 1], replica_bits, layer, node_bits,
                                          ls->parents)) != CZK_OK)
            return rc;
    }

    /* 5. encoding, and the replica node's inclusion in tree_r_last */
    czk_var encoded;
    if ((rc = czk_gadget_add(cs, &encoded, labels[L - 1], data_leaf)) != CZK_OK)
        return rc;
    czk_por_root enc = {CZK_POR_ROOT_VAR, encoded, CZK_FR_ZERO};
    if ((rc = czk_por_synthesize(cs, NULL, &shape->tree, &enc,
                                 p ? p->comm_r_last_proof.level : NULL, &root_r, 1)) != CZK_OK)
        return rc;

    /* 6. the challenged column, from the labels, and its inclusion in tree_c */
    if ((rc = czk_poseidon_gadget_hash(cs, &hash, col_h, labels, L)) != CZK_OK)
        return rc;
    czk_por_root cx = {CZK_POR_ROOT_VAR, hash, CZK_FR_ZERO};
    return czk_por_synthesize(cs, NULL, &shape->tree, &cx, p ? p->c_x.inclusion.level : NULL,
                              &root_c, 1);
}

/* What every challenge reads of the global part: its variables (their values are in the
 * system, or in the caller memory it is bound to) and the column hash's circuit. */
typedef struct porep_globals {
    czk_var comm_d, comm_c, comm_r_last;
    czk_bool replica_bits[256];
    const czk_poseidon_circuit *col_h;
} porep_globals;

/* Checks the shape and the C1 output, and synthesises the global part
 * (StackedCircuit::synthesize up to the challenges) into cs. */
static int global_synthesize(czk_cs *cs, const czk_porep_shape *shape, const czk_c1 *c1,
                             uint32_t partition, porep_globals *g) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    if (shape->layers == 0 || shape->layers > CZK_POREP_MAX_LAYERS ||
        shape->challenges > CZK_POREP_MAX_CHALLENGES || shape->comm_d_levels == 0 ||
        czk_por_shape_levels(&shape->tree) == 0)
        return czk_cs_set_error(cs, CZK_EINVAL, "porep: invalid circuit shape");
    if (czk_cs_has_values(cs) && c1 == NULL)
        return czk_cs_set_error(cs, CZK_EINVAL, "porep: the system needs values and has no C1");
    if (c1 != NULL && !c1_fits(shape, c1, partition))
        return czk_cs_set_error(cs, CZK_EINVAL,
                                "porep: the C1 output does not fit the %llu-byte circuit's "
                                "shape (partition %u)",
                                (unsigned long long)shape->sector_size, partition);
    const czk_poseidon_circuit *h2 = NULL;
    czk_err perr = {0};
    if (czk_poseidon_circuit_get(&h2, 2, &perr) != CZK_OK ||
        czk_poseidon_circuit_get(&g->col_h, shape->layers, &perr) != CZK_OK)
        return czk_cs_set_error(cs, CZK_EINTERNAL, "porep: %s", perr.msg);

    const czk_c1_proof *first = c1 ? czk_c1_at(c1, partition, 0) : NULL;
    czk_fr v_replica, v_comm_d, v_comm_r;
    if (c1 != NULL && (czk_fr_from_bytes_le(&v_replica, c1->replica_id) != CZK_OK ||
                       czk_fr_from_bytes_le(&v_comm_d, c1->comm_d) != CZK_OK ||
                       czk_fr_from_bytes_le(&v_comm_r, c1->comm_r) != CZK_OK))
        return czk_cs_set_error(cs, CZK_EINVAL,
                                "porep: replica_id, comm_d or comm_r is not a field element");

    czk_var replica_id, comm_r, pair[2], hash;
    czk_bool replica_raw[255];
    if ((rc = czk_gadget_num_alloc(cs, &replica_id, c1 ? &v_replica : NULL)) != CZK_OK ||
        (rc = czk_gadget_num_inputize(cs, NULL, replica_id)) != CZK_OK ||
        (rc = sha_bits(cs, g->replica_bits, replica_raw, replica_id)) != CZK_OK ||
        (rc = czk_gadget_num_alloc(cs, &g->comm_d, c1 ? &v_comm_d : NULL)) != CZK_OK ||
        (rc = czk_gadget_num_inputize(cs, NULL, g->comm_d)) != CZK_OK ||
        (rc = czk_gadget_num_alloc(cs, &comm_r, c1 ? &v_comm_r : NULL)) != CZK_OK ||
        (rc = czk_gadget_num_inputize(cs, NULL, comm_r)) != CZK_OK ||
        (rc = czk_gadget_num_alloc(cs, &g->comm_r_last,
                                   first ? &first->comm_r_last_proof.root : NULL)) != CZK_OK ||
        (rc = czk_gadget_num_alloc(cs, &g->comm_c, first ? &first->c_x.inclusion.root : NULL)) !=
            CZK_OK)
        return rc;
    pair[0] = g->comm_c; /* comm_c first: H(comm_c ‖ comm_r_last) */
    pair[1] = g->comm_r_last;
    if ((rc = czk_poseidon_gadget_hash(cs, &hash, h2, pair, 2)) != CZK_OK ||
        (rc = czk_gadget_equal(cs, comm_r, hash)) != CZK_OK)
        return rc;
    return CZK_OK;
}

/* Challenges [begin, end) of the partition into cs, in order, with one label scratch. */
static int challenges_synthesize(czk_cs *cs, const czk_porep_shape *shape, const czk_c1 *c1,
                                 uint32_t partition, const porep_globals *g, uint32_t begin,
                                 uint32_t end) {
    int rc = CZK_OK;
    label_scratch *ls = czk_malloc(sizeof *ls);
    if (ls == NULL)
        return czk_cs_set_error(cs, CZK_ENOMEM, "porep: out of memory");
    for (uint32_t i = begin; i < end && rc == CZK_OK; i++)
        rc = challenge_synthesize(cs, shape, c1 ? czk_c1_at(c1, partition, i) : NULL, g->comm_d,
                                  g->comm_c, g->comm_r_last, g->replica_bits, g->col_h, ls);
    czk_free(ls);
    return rc;
}

int czk_porep_synthesize(czk_cs *cs, const czk_porep_shape *shape, const czk_c1 *c1,
                         uint32_t partition) {
    porep_globals g;
    int rc = global_synthesize(cs, shape, c1, partition, &g);
    if (rc == CZK_OK)
        rc = challenges_synthesize(cs, shape, c1, partition, &g, 0, shape->challenges);
    return rc;
}

/*
 * The challenges of a pooled witness. Challenge i owns inputs [in0 + i·per_in, … + per_in) and
 * aux [aux0 + i·per_aux, … + per_aux) of w: its own system is bound up to the end of that range
 * and starts at its beginning (czk_cs_witness_at), so the ranges are written disjointly and an
 * overrun fails in place of writing into the next challenge's. Each challenge's status and
 * error are kept, and the lowest failing challenge's is reported, so the error does not depend
 * on the threads' timing; challenges above a failed one are skipped.
 */
typedef struct witness_job {
    const czk_porep_shape *shape;
    const czk_c1 *c1;
    uint32_t partition;
    const porep_globals *g;
    czk_fr *w;
    size_t n_inputs; /* the layout's, ONE included: aux j is w[n_inputs + j] */
    size_t in0, aux0, per_in, per_aux;
    int rc[CZK_POREP_MAX_CHALLENGES];
    czk_err err[CZK_POREP_MAX_CHALLENGES];
    _Atomic uint32_t failed; /* the lowest failed challenge so far, or UINT32_MAX */
} witness_job;

static int one_challenge(witness_job *j, uint32_t i, czk_err *err) {
    const size_t in_b = j->in0 + i * j->per_in, in_e = in_b + j->per_in;
    const size_t aux_b = j->aux0 + i * j->per_aux, aux_e = aux_b + j->per_aux;
    czk_cs *cs = NULL;
    int rc = czk_cs_create(&cs, CZK_CS_WITNESS, 0, err);
    if (rc != CZK_OK)
        return rc;
    if ((rc = czk_cs_bind_values(cs, j->w + 1, in_e - 1, j->w + j->n_inputs, aux_e)) == CZK_OK &&
        (rc = czk_cs_witness_at(cs, in_b, aux_b)) == CZK_OK)
        rc = challenges_synthesize(cs, j->shape, j->c1, j->partition, j->g, i, i + 1);
    if (rc != CZK_OK) {
        czk_err_set(err, rc, "porep: partition %u challenge %u: %s", j->partition, i,
                    czk_cs_error(cs)->msg);
    } else {
        czk_cs_stats st;
        czk_cs_get_stats(cs, &st);
        if (st.n_inputs != in_e || st.n_aux != aux_e)
            rc = czk_err_set(err, CZK_EINVAL,
                             "porep: partition %u challenge %u ends at input %llu and aux %llu, "
                             "the layout at %zu and %zu",
                             j->partition, i, (unsigned long long)st.n_inputs,
                             (unsigned long long)st.n_aux, in_e, aux_e);
    }
    czk_cs_destroy(cs);
    return rc;
}

static void witness_body(void *arg, size_t begin, size_t end, unsigned worker) {
    witness_job *j = arg;
    (void)worker;
    for (size_t k = begin; k < end; k++) {
        const uint32_t i = (uint32_t)k;
        if (atomic_load_explicit(&j->failed, memory_order_relaxed) < i)
            continue;
        j->rc[i] = one_challenge(j, i, &j->err[i]);
        if (j->rc[i] != CZK_OK) {
            uint32_t cur = atomic_load_explicit(&j->failed, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak_explicit(
                                  &j->failed, &cur, i, memory_order_relaxed, memory_order_relaxed))
                ;
        }
    }
}

/* The challenges of a witness whose global part is in w, over pool (see witness_job). */
static int pooled_challenges(const czk_porep_shape *shape, const czk_c1 *c1, uint32_t partition,
                             const porep_globals *g, czk_fr *w, size_t n_inputs, size_t n_aux,
                             size_t g_in, size_t g_aux, czk_pool *pool, czk_err *err) {
    const uint32_t C = shape->challenges;
    /* Every challenge makes as many inputs and aux as any other (the same gadgets on the same
     * shape), so the layout's rest splits evenly; where it does not, the layout is wrong. */
    if ((n_inputs - g_in) % C != 0 || (n_aux - g_aux) % C != 0)
        return czk_err_set(err, CZK_EINVAL,
                           "porep: partition %u: the layout's %zu inputs and %zu aux leave %zu "
                           "and %zu after the global part, not a multiple of %u challenges",
                           partition, n_inputs, n_aux, n_inputs - g_in, n_aux - g_aux, C);
    witness_job *j = czk_malloc(sizeof *j);
    if (j == NULL)
        return czk_err_set(err, CZK_ENOMEM, "porep: out of memory");
    *j = (witness_job){.shape = shape,
                       .c1 = c1,
                       .partition = partition,
                       .g = g,
                       .w = w,
                       .n_inputs = n_inputs,
                       .in0 = g_in,
                       .aux0 = g_aux,
                       .per_in = (n_inputs - g_in) / C,
                       .per_aux = (n_aux - g_aux) / C};
    atomic_init(&j->failed, UINT32_MAX);
    czk_pool_run(pool, C, 1, witness_body, j);
    const uint32_t f = atomic_load_explicit(&j->failed, memory_order_relaxed);
    int rc = CZK_OK;
    if (f != UINT32_MAX) {
        rc = j->rc[f];
        if (err != NULL)
            *err = j->err[f];
    }
    czk_free(j);
    return rc;
}

int czk_porep_witness(const czk_porep_shape *shape, const czk_c1 *c1, uint32_t partition, czk_fr *w,
                      size_t n_inputs, size_t n_aux, czk_pool *pool, czk_err *err) {
    if (c1 == NULL || n_inputs == 0)
        return czk_err_set(err, CZK_EINVAL, "porep: a witness needs a C1 output and a layout");
    czk_cs *cs = NULL;
    porep_globals g;
    czk_cs_stats st;
    int rc = czk_cs_create(&cs, CZK_CS_WITNESS, 0, err);
    if (rc != CZK_OK)
        return rc;
    czk_fr_set_one(&w[0]);
    rc = czk_cs_bind_values(cs, w + 1, n_inputs - 1, w + n_inputs, n_aux);
    if (rc == CZK_OK)
        rc = global_synthesize(cs, shape, c1, partition, &g);
    /* Sequential, as czk_porep_synthesize, without a pool or with nothing to split. */
    const int split = rc == CZK_OK && pool != NULL && shape->challenges > 0;
    if (rc == CZK_OK && !split)
        rc = challenges_synthesize(cs, shape, c1, partition, &g, 0, shape->challenges);
    if (rc != CZK_OK) {
        if (err != NULL)
            *err = *czk_cs_error(cs);
        goto out;
    }
    czk_cs_get_stats(cs, &st);
    if (split) {
        rc = pooled_challenges(shape, c1, partition, &g, w, n_inputs, n_aux, (size_t)st.n_inputs,
                               (size_t)st.n_aux, pool, err);
    } else if (st.n_inputs != n_inputs || st.n_aux != n_aux) {
        rc = czk_err_set(err, CZK_EINVAL,
                         "porep: partition %u made %llu inputs and %llu aux, the layout %zu and "
                         "%zu",
                         partition, (unsigned long long)st.n_inputs, (unsigned long long)st.n_aux,
                         n_inputs, n_aux);
    }
out:
    czk_cs_destroy(cs);
    return rc;
}

/* ---- recording over a pool (czk_porep_record) ---------------------------------------------- */

static int record_global(czk_cs *cs, const void *shape, void *g) {
    return global_synthesize(cs, shape, NULL, 0, g);
}

static int record_challenge(czk_cs *cs, const void *shape, const void *g, uint32_t i) {
    return challenges_synthesize(cs, shape, NULL, 0, g, i, i + 1);
}

/* The partition circuit in parts: the global part, then the challenges. */
static czk_cs_parts porep_parts(const czk_porep_shape *shape) {
    const czk_cs_parts def = {.what = "porep",
                              .n_parts = shape->challenges,
                              .globals_size = sizeof(porep_globals),
                              .arg = shape,
                              .global = record_global,
                              .part = record_challenge};
    return def;
}

int czk_porep_record(czk_r1cs *out, czk_cs_stats *stats, const czk_porep_shape *shape,
                     czk_pool *pool, czk_err *err) {
    const czk_cs_parts def = porep_parts(shape);
    return czk_cs_record_parts(out, stats, &def, pool, err);
}

int czk_porep_record_rep(czk_r1cs_rep *out, czk_cs_stats *stats, const czk_porep_shape *shape,
                         czk_pool *pool, czk_err *err) {
    const czk_cs_parts def = porep_parts(shape);
    return czk_cs_record_parts_rep(out, stats, &def, pool, err);
}
