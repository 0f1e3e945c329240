/*
 * Whole PoSt, PoRep and SnapDeals circuits without values (contract in circuit.h).
 */
#include "filecoin/circuit.h"

#include <string.h>

/* A circuit's synthesis without values: the shape is the circuit's (post.h, porep.h or
 * snap/snap.h). */
typedef int (*synth_fn)(czk_cs *cs, const void *shape);

static int synth_post(czk_cs *cs, const void *shape) {
    return czk_post_synthesize(cs, shape, NULL, 0);
}

/* PoRep: partition 0 (every partition is the same circuit). */
static int synth_porep(czk_cs *cs, const void *shape) {
    return czk_porep_synthesize(cs, shape, NULL, 0);
}

/* SnapDeals: partition 0 (every partition is the same circuit). */
static int synth_snap(czk_cs *cs, const void *shape) {
    return czk_snap_synthesize(cs, shape, NULL, NULL, 0);
}

/* Runs the synthesis on cs and copies its sticky error into err on failure. */
static int synthesize(czk_cs *cs, synth_fn fn, const void *shape, czk_err *err) {
    int rc = fn(cs, shape);
    if (rc != CZK_OK && err != NULL)
        *err = *czk_cs_error(cs);
    return rc;
}

static int count(czk_cs_stats *stats, uint8_t *digest, synth_fn fn, const void *shape,
                 czk_err *err) {
    czk_cs *cs = NULL;
    int rc = czk_cs_create(&cs, CZK_CS_COUNT, digest != NULL ? CZK_CS_DIGEST : 0, err);
    if (rc != CZK_OK)
        goto out;
    if ((rc = synthesize(cs, fn, shape, err)) != CZK_OK)
        goto out;
    czk_cs_get_stats(cs, stats);
    if (digest != NULL)
        rc = czk_cs_digest_finish(cs, digest, err);
out:
    czk_cs_destroy(cs);
    return rc;
}

static int record(czk_r1cs *r1cs, czk_cs_stats *stats, synth_fn fn, const void *shape,
                  czk_err *err) {
    memset(r1cs, 0, sizeof(*r1cs));
    czk_cs *cs = NULL;
    int rc = czk_cs_create(&cs, CZK_CS_RECORD, 0, err);
    if (rc != CZK_OK)
        goto out;
    if ((rc = synthesize(cs, fn, shape, err)) != CZK_OK)
        goto out;
    if (stats != NULL)
        czk_cs_get_stats(cs, stats);
    rc = czk_cs_finish_r1cs(cs, r1cs, err);
out:
    czk_cs_destroy(cs);
    return rc;
}

int czk_circuit_post_count(czk_cs_stats *stats, uint8_t *digest, const czk_post_shape *shape,
                           czk_err *err) {
    return count(stats, digest, synth_post, shape, err);
}

int czk_circuit_post_record(czk_r1cs *r1cs, czk_cs_stats *stats, const czk_post_shape *shape,
                            czk_err *err) {
    return record(r1cs, stats, synth_post, shape, err);
}

void czk_circuit_post_stats_scale(czk_cs_stats *out, const czk_cs_stats *one, size_t slots) {
    out->n_rows = one->n_rows * slots;
    out->n_inputs = 1 + (one->n_inputs - 1) * slots;
    out->n_aux = one->n_aux * slots;
    out->nnz_a = one->nnz_a * slots;
    out->nnz_b = one->nnz_b * slots;
    out->nnz_c = one->nnz_c * slots;
    out->a_aux_density = one->a_aux_density * slots;
    out->b_input_density = one->b_input_density;
    out->b_aux_density = one->b_aux_density * slots;
}

int czk_circuit_post_record_rep(czk_r1cs_rep *rep, czk_cs_stats *stats, const czk_post_shape *shape,
                                czk_err *err) {
    memset(rep, 0, sizeof(*rep));
    if (shape->slots == 0)
        return czk_err_set(err, CZK_EINVAL, "post: invalid shape");
    /* Slots do not depend on their neighbours or their number (post.h): the one-slot circuit
     * is the block, its public inputs comm_r and the leaf indices. */
    czk_post_shape one = *shape;
    one.slots = 1;
    czk_cs_stats st;
    int rc = czk_circuit_post_record(&rep->block, &st, &one, err);
    if (rc != CZK_OK)
        return rc;
    if (stats != NULL)
        czk_circuit_post_stats_scale(stats, &st, shape->slots);
    rep->copies = shape->slots;
    czk_r1cs dims;
    if ((rc = czk_r1cs_rep_dims(rep, &dims, err)) != CZK_OK)
        czk_r1cs_rep_clear(rep);
    return rc;
}

uint64_t czk_circuit_post_rows(const czk_post_shape *shape) {
    const czk_por_shape *t = &shape->tree;
    uint64_t octree = (uint64_t)t->base_levels * (t->base_arity == 8) + (t->sub_arity == 8);
    uint64_t binary = (uint64_t)(t->top_arity == 2);
    uint64_t per_challenge = 2 + 530 * octree + 314 * binary;
    return (uint64_t)shape->slots * (313 + (uint64_t)shape->challenges * per_challenge);
}

/* ---- PoRep ---- */

int czk_circuit_porep_count(czk_cs_stats *stats, uint8_t *digest, const czk_porep_shape *shape,
                            czk_err *err) {
    return count(stats, digest, synth_porep, shape, err);
}

int czk_circuit_porep_record(czk_r1cs *r1cs, czk_cs_stats *stats, const czk_porep_shape *shape,
                             czk_pool *pool, czk_err *err) {
    return czk_porep_record(r1cs, stats, shape, pool, err);
}

int czk_circuit_porep_record_rep(czk_r1cs_rep *rep, czk_cs_stats *stats,
                                 const czk_porep_shape *shape, czk_pool *pool, czk_err *err) {
    return czk_porep_record_rep(rep, stats, shape, pool, err);
}

uint64_t czk_circuit_porep_rows(const czk_porep_shape *shape) {
    const czk_por_shape *t = &shape->tree;
    uint64_t octree = 530 * ((uint64_t)t->base_levels + (t->sub_arity == 8)) +
                      314 * (uint64_t)(t->top_arity == 2);
    uint64_t column = shape->layers == 2 ? 311 : 598;                   /* Poseidon of the L rows */
    uint64_t per_challenge = 45382ull * shape->comm_d_levels + 2        /* tree_d */
                             + 14 * (column + octree + 2)               /* parent columns */
                             + 65                                       /* challenge */
                             + 523805 + 525853ull * (shape->layers - 1) /* labels */
                             + 1 + (octree + 2) + column + (octree + 2); /* replica, c_x */
    return 571 + (uint64_t)shape->challenges * per_challenge;
}

/* ---- SnapDeals ---- */

int czk_circuit_snap_count(czk_cs_stats *stats, uint8_t *digest, const czk_snap_shape *shape,
                           czk_err *err) {
    return count(stats, digest, synth_snap, shape, err);
}

int czk_circuit_snap_record(czk_r1cs *r1cs, czk_cs_stats *stats, const czk_snap_shape *shape,
                            czk_pool *pool, czk_err *err) {
    return czk_snap_record(r1cs, stats, shape, pool, err);
}
