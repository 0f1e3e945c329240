/*
 * Repeated-block systems (rep.h): sizes, expansion into CSR, density, and the walk over the
 * copies that key generation uses. The head, where there is one, is walked inline: it is a
 * few hundred rows beside millions.
 */
#include "r1cs/rep.h"

#include "util/alloc.h"

#include <string.h>

void czk_r1cs_rep_clear(czk_r1cs_rep *rep) {
    if (rep == NULL)
        return;
    czk_r1cs_clear(&rep->block);
    czk_r1cs_clear(&rep->head);
    rep->copies = 0;
}

static const czk_r1cs_matrix *matrix_of(const czk_r1cs *cs, int m) {
    return m == 0 ? &cs->a : m == 1 ? &cs->b : &cs->c;
}

int czk_r1cs_rep_dims(const czk_r1cs_rep *rep, czk_r1cs *dims, czk_err *err) {
    memset(dims, 0, sizeof(*dims));
    if (rep == NULL || rep->copies == 0)
        return czk_err_set(err, CZK_EINVAL, "repeated system: no copies");
    const czk_r1cs *b = &rep->block, *h = &rep->head;
    if (b->n_vars < b->n_public + 1)
        return czk_err_set(err, CZK_EINVAL,
                           "repeated system: a block of %zu variables cannot hold ONE and %zu "
                           "inputs",
                           b->n_vars, b->n_public);
    if (h->n_vars > 0 && h->n_vars < h->n_public + 1)
        return czk_err_set(err, CZK_EINVAL,
                           "repeated system: a head of %zu variables cannot hold ONE and %zu "
                           "inputs",
                           h->n_vars, h->n_public);
    const uint64_t gp = czk_r1cs_rep_gp(rep), gq = czk_r1cs_rep_gq(rep);
    if (b->n_public < gp || b->n_vars - 1 - b->n_public < gq)
        return czk_err_set(err, CZK_EINVAL,
                           "repeated system: a block of %zu inputs and %zu aux cannot read the "
                           "head's %llu inputs and %llu aux",
                           b->n_public, b->n_vars - 1 - b->n_public, (unsigned long long)gp,
                           (unsigned long long)gq);
    for (int m = 0; m < 3 && h->n_constraints > 0; m++)
        if ((matrix_of(h, m)->row_ptr == NULL) != (matrix_of(b, m)->row_ptr == NULL))
            return czk_err_set(err, CZK_EINVAL,
                               "repeated system: matrix %c is stored in the %s only", "ABC"[m],
                               matrix_of(h, m) -> row_ptr == NULL ? "block" : "head");
    const uint64_t s = rep->copies, per = b->n_vars - 1 - gp - gq;
    if (per != 0 && s > (((uint64_t)1 << 32) - 1 - gp - gq) / per)
        return czk_err_set(err, CZK_EINVAL,
                           "repeated system: %zu copies of %zu variables pass 2^32 variables",
                           rep->copies, b->n_vars);
    if (b->n_constraints != 0 && s > (SIZE_MAX - h->n_constraints) / b->n_constraints)
        return czk_err_set(err, CZK_EINVAL, "repeated system: %zu copies of %zu rows overflow",
                           rep->copies, b->n_constraints);
    dims->n_constraints = h->n_constraints + b->n_constraints * rep->copies;
    dims->n_public = (size_t)(gp + (b->n_public - gp) * rep->copies);
    dims->n_vars = (size_t)(1 + gp + gq + per * s);
    return CZK_OK;
}

/* Entries of matrix m of the head: 0 without one. */
static uint64_t head_nnz(const czk_r1cs_rep *rep, int m) {
    const czk_r1cs_matrix *hm = matrix_of(&rep->head, m);
    return hm->row_ptr != NULL ? czk_r1cs_nnz(hm, rep->head.n_constraints) : 0;
}

uint64_t czk_r1cs_rep_nnz(const czk_r1cs_rep *rep, int m) {
    if (matrix_of(&rep->block, m)->row_ptr == NULL)
        return 0;
    return head_nnz(rep, m) +
           czk_r1cs_nnz(matrix_of(&rep->block, m), rep->block.n_constraints) * rep->copies;
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

/* Rows [row0, row0 + src's) and entries from nnz0 of dst: src's, columns mapped by map in
 * copy s. */
static void expand_rows(czk_r1cs_matrix *dst, const czk_r1cs_matrix *src, size_t R, size_t row0,
                        uint64_t nnz0, const czk_r1cs_rep_map *map, size_t s) {
    const uint64_t nnz = src->row_ptr[R];
    for (size_t r = 0; r < R; r++)
        dst->row_ptr[row0 + r] = nnz0 + src->row_ptr[r];
    for (uint64_t k = 0; k < nnz; k++)
        dst->cols[nnz0 + k] = (uint32_t)czk_r1cs_rep_map_col(map, s, src->cols[k]);
    if (nnz > 0)
        memcpy(dst->vals + nnz0, src->vals, nnz * sizeof(czk_fr));
}

static void expand_copy(void *arg, size_t s, unsigned worker) {
    (void)worker;
    expand_job *j = arg;
    const czk_r1cs *b = &j->rep->block;
    const czk_r1cs_rep_map map = czk_r1cs_rep_map_of(j->rep, 0);
    const size_t R = b->n_constraints, H = j->rep->head.n_constraints;
    for (int m = 0; m < 3; m++) {
        const czk_r1cs_matrix *src = matrix_of(b, m);
        if (src->row_ptr == NULL)
            continue;
        expand_rows((czk_r1cs_matrix *)matrix_of(j->out, m), src, R, H + s * R,
                    head_nnz(j->rep, m) + src->row_ptr[R] * s, &map, s);
    }
}

int czk_r1cs_rep_expand(const czk_r1cs_rep *rep, czk_r1cs *out, czk_pool *pool, czk_err *err) {
    int rc = czk_r1cs_rep_dims(rep, out, err);
    if (rc != CZK_OK)
        return rc;
    const czk_r1cs *b = &rep->block;
    const czk_r1cs_rep_map hmap = czk_r1cs_rep_map_of(rep, 1);
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
        if (rep->head.n_constraints > 0)
            expand_rows(dst, matrix_of(&rep->head, m), rep->head.n_constraints, 0, 0, &hmap, 0);
    }
    expand_job j = {rep, out};
    czk_r1cs_rep_for_copies(rep, pool, expand_copy, &j);
    return CZK_OK;
}

/* ---- density -------------------------------------------------------------------------- */

/* Sets in out, for each variable of `sys` that m's rows name (bm: sys's bitmap, scratch), the
 * whole system's bit of it in every copy of map (copies 1 for the head). */
static void density_map(uint64_t *out, uint64_t *bm, const czk_r1cs *sys, int m,
                        const czk_r1cs_rep_map *map, size_t copies) {
    (void)czk_r1cs_density(sys, m == 0 ? bm : NULL, m == 1 ? bm : NULL);
    for (uint32_t c = 0; c < sys->n_vars; c++) {
        if (!((bm[c / 64] >> (c % 64)) & 1))
            continue;
        for (size_t s = 0; s < copies; s++) {
            uint64_t v = czk_r1cs_rep_map_col(map, s, c);
            out[v / 64] |= 1ULL << (v % 64);
        }
    }
}

int czk_r1cs_rep_density(const czk_r1cs_rep *rep, uint64_t *a_bits, uint64_t *b_bits,
                         czk_err *err) {
    czk_r1cs dims;
    int rc = czk_r1cs_rep_dims(rep, &dims, err);
    if (rc != CZK_OK)
        return rc;
    const czk_r1cs *b = &rep->block, *h = &rep->head;
    const size_t bw = (b->n_vars + 63) / 64, words = (dims.n_vars + 63) / 64;
    const czk_r1cs_rep_map map = czk_r1cs_rep_map_of(rep, 0), hmap = czk_r1cs_rep_map_of(rep, 1);
    /* The block's variables include the head's, so its bitmap is the larger. */
    uint64_t *bb = czk_malloc(bw * sizeof(uint64_t));
    if (bb == NULL)
        return czk_err_set(err, CZK_ENOMEM, "repeated system: density of the block");
    uint64_t *outs[2] = {a_bits, b_bits};
    for (int m = 0; m < 2; m++) {
        if (outs[m] == NULL)
            continue;
        memset(outs[m], 0, words * sizeof(uint64_t));
        if (h->n_vars > 0)
            density_map(outs[m], bb, h, m, &hmap, 1);
        density_map(outs[m], bb, b, m, &map, rep->copies);
    }
    czk_free(bb);
    return CZK_OK;
}
