/*
 * czk_synth_rep_headed (synth.h): a head and a block of PoRep-shaped rows, the block
 * renumbered into rep.h's block numbering, with rows that tie it to the head's variables.
 */
#include "r1cs/solve.h"
#include "r1cs/synth.h"

#include "util/alloc.h"
#include "util/rng.h"

#include <string.h>

/* The block's own system's column c (ONE, bp inputs, aux) in the block numbering of rep.h:
 * [ONE, gp shared inputs, bp own, gq shared aux, own aux]. */
static uint32_t own_col(uint32_t c, uint64_t gp, uint64_t bp, uint64_t gq) {
    if (c == 0)
        return 0;
    if (c <= bp)
        return (uint32_t)(gp + c);
    return (uint32_t)(1 + gp + bp + gq + (c - 1 - bp));
}

/* The block: base's rows renumbered, then the tie rows. */
static int build_block(czk_r1cs *out, const czk_r1cs *base, uint64_t gp, uint64_t gq, uint64_t seed,
                       czk_err *err) {
    const uint64_t bp = base->n_public, bq = base->n_vars - 1 - bp;
    czk_r1cs_builder *bld = NULL;
    uint32_t *cols = NULL;
    int rc = czk_r1cs_builder_create(&bld, (size_t)(gp + bp), err);
    for (uint64_t i = 0; i < gq + bq && rc == CZK_OK; i++) {
        uint32_t v;
        rc = czk_r1cs_builder_add_var(bld, &v);
    }
    /* Room for the longest row of any matrix. */
    uint64_t longest = 4;
    const czk_r1cs_matrix *mats[3] = {&base->a, &base->b, &base->c};
    for (int m = 0; m < 3; m++)
        for (size_t r = 0; r < base->n_constraints; r++)
            if (mats[m]->row_ptr[r + 1] - mats[m]->row_ptr[r] > longest)
                longest = mats[m]->row_ptr[r + 1] - mats[m]->row_ptr[r];
    if (rc == CZK_OK && (cols = czk_malloc(3 * longest * sizeof(uint32_t))) == NULL)
        rc = czk_err_set(err, CZK_ENOMEM, "synth rep: a row of %llu entries",
                         (unsigned long long)longest);
    for (size_t r = 0; r < base->n_constraints && rc == CZK_OK; r++) {
        uint64_t off[3], n[3];
        for (int m = 0; m < 3; m++) {
            off[m] = mats[m]->row_ptr[r];
            n[m] = mats[m]->row_ptr[r + 1] - off[m];
            for (uint64_t k = 0; k < n[m]; k++)
                cols[m * longest + k] = own_col(mats[m]->cols[off[m] + k], gp, bp, gq);
        }
        rc = czk_r1cs_builder_add_constraint(bld, cols, mats[0]->vals + off[0], n[0],
                                             cols + longest, mats[1]->vals + off[1], n[1],
                                             cols + 2 * longest, mats[2]->vals + off[2], n[2], err);
    }
    /* The ties: (g + x)·ONE = g + x and ONE·(g + x) = g + x, g a shared input or aux, x an
     * own input or aux, with random coefficients. */
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    for (int t = 0; t < 8 && rc == CZK_OK; t++) {
        const int shared_aux = (t & 1) || gp == 0, own_aux = (t & 2) || bp == 0;
        if ((shared_aux ? gq : gp) == 0)
            continue;
        const uint64_t g =
            shared_aux ? 1 + gp + bp + czk_rng_u64(&rng) % gq : 1 + czk_rng_u64(&rng) % gp;
        const uint64_t x =
            own_aux ? 1 + gp + bp + gq + czk_rng_u64(&rng) % bq : 1 + gp + czk_rng_u64(&rng) % bp;
        const uint32_t lc[2] = {(uint32_t)g, (uint32_t)x}, one = 0;
        czk_fr v[2], f1;
        czk_fr_random(&v[0], &rng);
        czk_fr_random(&v[1], &rng);
        czk_fr_set_one(&f1);
        if (t & 4)
            rc = czk_r1cs_builder_add_constraint(bld, &one, &f1, 1, lc, v, 2, lc, v, 2, err);
        else
            rc = czk_r1cs_builder_add_constraint(bld, lc, v, 2, &one, &f1, 1, lc, v, 2, err);
    }
    if (rc == CZK_OK)
        rc = czk_r1cs_builder_finish(bld, out, err);
    czk_r1cs_builder_destroy(bld);
    czk_free(cols);
    return rc;
}

int czk_synth_rep_headed(czk_r1cs_rep *rep, czk_fr **witness, size_t *n_vars, unsigned k,
                         unsigned k_head, size_t copies, uint64_t seed, czk_pool *pool,
                         czk_err *err) {
    czk_r1cs base;
    czk_fr *wh = NULL, *wb = NULL, *w = NULL;
    czk_r1cs dims;
    memset(rep, 0, sizeof(*rep));
    memset(&base, 0, sizeof(base));
    *witness = NULL;
    *n_vars = 0;
    if (k < 4 || k > 20 || k_head < 4 || k_head > 20 || copies == 0)
        return czk_err_set(err, CZK_EINVAL, "synth rep: k %u, k_head %u, %zu copies", k, k_head,
                           copies);
    int rc = czk_synth_porep_shaped(&rep->head, &wh, k_head, seed, pool, err);
    if (rc == CZK_OK)
        rc = czk_synth_porep_shaped(&base, &wb, k, seed + 1, pool, err);
    const uint64_t gp = rep->head.n_public, gq = rep->head.n_vars - 1 - gp;
    if (rc == CZK_OK)
        rc = build_block(&rep->block, &base, gp, gq, seed ^ 0x7e57, err);
    rep->copies = copies;
    if (rc == CZK_OK)
        rc = czk_r1cs_rep_dims(rep, &dims, err);
    if (rc == CZK_OK && (w = czk_calloc(dims.n_vars, sizeof(czk_fr))) == NULL)
        rc = czk_err_set(err, CZK_ENOMEM, "synth rep: a witness of %zu values", dims.n_vars);
    for (uint32_t c = 0; rc == CZK_OK && c < rep->head.n_vars; c++)
        w[czk_r1cs_rep_head_col(rep, c)] = wh[c];
    const uint64_t bp = base.n_public;
    for (size_t s = 0; s < copies && rc == CZK_OK; s++) {
        if ((rc = czk_r1cs_solve(wb, &base, seed + 1 + s, err)) != CZK_OK)
            break;
        /* Base column c is block column own_col(c); ONE is shared. */
        for (uint32_t c = 1; c < base.n_vars; c++)
            w[czk_r1cs_rep_col(rep, s, own_col(c, gp, bp, gq))] = wb[c];
    }
    czk_free(wh);
    czk_free(wb);
    czk_r1cs_clear(&base);
    if (rc != CZK_OK) {
        czk_free(w);
        czk_r1cs_rep_clear(rep);
        return rc;
    }
    *witness = w;
    *n_vars = dims.n_vars;
    return CZK_OK;
}
