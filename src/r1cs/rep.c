/*
 * Repeated-block systems (rep.h): sizes, expansion into CSR, density, and the walk over the
 * copies that key generation uses.
 */
#include "r1cs/rep.h"

#include "util/alloc.h"

#include <string.h>

void czk_r1cs_rep_clear(czk_r1cs_rep *rep) {
    if (rep == NULL)
        return;
    czk_r1cs_clear(&rep->block);
    rep->copies = 0;
}

int czk_r1cs_rep_dims(const czk_r1cs_rep *rep, czk_r1cs *dims, czk_err *err) {
    memset(dims, 0, sizeof(*dims));
    if (rep == NULL || rep->copies == 0)
        return czk_err_set(err, CZK_EINVAL, "repeated system: no copies");
    const czk_r1cs *b = &rep->block;
    if (b->n_vars < b->n_public + 1)
        return czk_err_set(err, CZK_EINVAL,
                           "repeated system: a block of %zu variables cannot hold ONE and %zu "
                           "inputs",
                           b->n_vars, b->n_public);
    const uint64_t s = rep->copies, per = b->n_vars - 1;
    if (per != 0 && s > (((uint64_t)1 << 32) - 1) / per)
        return czk_err_set(err, CZK_EINVAL,
                           "repeated system: %zu copies of %zu variables pass 2^32 variables",
                           rep->copies, b->n_vars);
    if (b->n_constraints != 0 && s > SIZE_MAX / b->n_constraints)
        return czk_err_set(err, CZK_EINVAL, "repeated system: %zu copies of %zu rows overflow",
                           rep->copies, b->n_constraints);
    dims->n_constraints = b->n_constraints * rep->copies;
    dims->n_public = b->n_public * rep->copies;
    dims->n_vars = 1 + (size_t)(per * s);
    return CZK_OK;
}

static const czk_r1cs_matrix *matrix_of(const czk_r1cs *cs, int m) {
    return m == 0 ? &cs->a : m == 1 ? &cs->b : &cs->c;
}

uint64_t czk_r1cs_rep_nnz(const czk_r1cs_rep *rep, int m) {
    return czk_r1cs_nnz(matrix_of(&rep->block, m), rep->block.n_constraints) * rep->copies;
}

/* ---- walking the copies -------------------------------------------------------------- */

typedef struct copies_job {
    void (*fn)(void *arg, size_t s, unsigned worker);
    void *arg;
} copies_job;

static void copies_body(void *arg, size_t begin, size_t end, unsigned worker) {
    copies_job *j = arg;
    for (size_t s = begin; s < end; s++)
        j->fn(j->arg, s, worker);
}

void czk_r1cs_rep_for_copies(const czk_r1cs_rep *rep, czk_pool *pool,
                             void (*fn)(void *arg, size_t s, unsigned worker), void *arg) {
    copies_job j = {fn, arg};
    /* A block is tens of thousands of rows: one copy is already a worthwhile chunk. */
    czk_pool_run(pool, rep->copies, 1, copies_body, &j);
}

/* ---- expansion ------------------------------------------------------------------------ */

typedef struct expand_job {
    const czk_r1cs_rep *rep;
    czk_r1cs *out;
} expand_job;

static void expand_copy(void *arg, size_t s, unsigned worker) {
    (void)worker;
    expand_job *j = arg;
    const czk_r1cs *b = &j->rep->block;
    const size_t R = b->n_constraints;
    for (int m = 0; m < 3; m++) {
        const czk_r1cs_matrix *src = matrix_of(b, m);
        czk_r1cs_matrix *dst = (czk_r1cs_matrix *)matrix_of(j->out, m);
        if (src->row_ptr == NULL)
            continue;
        const uint64_t nnz = src->row_ptr[R], base = nnz * s;
        for (size_t r = 0; r < R; r++)
            dst->row_ptr[s * R + r] = base + src->row_ptr[r];
        for (uint64_t k = 0; k < nnz; k++)
            dst->cols[base + k] = (uint32_t)czk_r1cs_rep_col(j->rep, s, src->cols[k]);
        if (nnz > 0)
            memcpy(dst->vals + base, src->vals, nnz * sizeof(czk_fr));
    }
}

int czk_r1cs_rep_expand(const czk_r1cs_rep *rep, czk_r1cs *out, czk_pool *pool, czk_err *err) {
    int rc = czk_r1cs_rep_dims(rep, out, err);
    if (rc != CZK_OK)
        return rc;
    const czk_r1cs *b = &rep->block;
    for (int m = 0; m < 3; m++) {
        const czk_r1cs_matrix *src = matrix_of(b, m);
        czk_r1cs_matrix *dst = (czk_r1cs_matrix *)matrix_of(out, m);
        if (src->row_ptr == NULL)
            continue;
        const uint64_t nnz = czk_r1cs_rep_nnz(rep, m);
        dst->row_ptr = czk_malloc((out->n_constraints + 1) * sizeof(uint64_t));
        dst->cols = czk_malloc((nnz > 0 ? nnz : 1) * sizeof(uint32_t));
        dst->vals = czk_malloc((nnz > 0 ? nnz : 1) * sizeof(czk_fr));
        if (dst->row_ptr == NULL || dst->cols == NULL || dst->vals == NULL) {
            czk_r1cs_clear(out);
            return czk_err_set(err, CZK_ENOMEM, "repeated system: %llu entries of matrix %c",
                               (unsigned long long)nnz, "ABC"[m]);
        }
        dst->row_ptr[out->n_constraints] = nnz;
    }
    expand_job j = {rep, out};
    czk_r1cs_rep_for_copies(rep, pool, expand_copy, &j);
    return CZK_OK;
}

/* ---- density -------------------------------------------------------------------------- */

int czk_r1cs_rep_density(const czk_r1cs_rep *rep, uint64_t *a_bits, uint64_t *b_bits,
                         czk_err *err) {
    czk_r1cs dims;
    int rc = czk_r1cs_rep_dims(rep, &dims, err);
    if (rc != CZK_OK)
        return rc;
    const czk_r1cs *b = &rep->block;
    const size_t bw = (b->n_vars + 63) / 64, words = (dims.n_vars + 63) / 64;
    uint64_t *bb = czk_malloc(bw * sizeof(uint64_t));
    if (bb == NULL)
        return czk_err_set(err, CZK_ENOMEM, "repeated system: density of the block");
    uint64_t *outs[2] = {a_bits, b_bits};
    for (int m = 0; m < 2; m++) {
        if (outs[m] == NULL)
            continue;
        memset(outs[m], 0, words * sizeof(uint64_t));
        /* The block's own bitmap, then each of its set bits in every copy. */
        (void)czk_r1cs_density(b, m == 0 ? bb : NULL, m == 1 ? bb : NULL);
        for (uint32_t c = 0; c < b->n_vars; c++) {
            if (!((bb[c / 64] >> (c % 64)) & 1))
                continue;
            for (size_t s = 0; s < rep->copies; s++) {
                uint64_t v = czk_r1cs_rep_col(rep, s, c);
                outs[m][v / 64] |= 1ULL << (v % 64);
            }
        }
    }
    czk_free(bb);
    return CZK_OK;
}
