/*
 * R1CS in memory: release, validation, the incremental builder, SpMV, the satisfaction
 * check and density bitmaps (contract in r1cs.h; the file format is r1cs_file.c).
 *
 * DESIGN
 * SpMV is the synthesis step of the prover (doc/DESIGN.md §1: a = A·w, b = B·w, c = C·w), so it
 * is built for the shape of real circuits: PoRep witnesses are ~98 % zeros and ones and
 * coefficients are mostly ±1 and small powers of two. A term whose witness value is 0 or 1
 * costs a masked add of the coefficient, with no multiplication and no data-dependent branch
 * (random bits would mispredict half the time); a general value with coefficient ±1 costs an
 * add; only the remaining terms pay a Montgomery multiplication. Sums are unreduced, limb by
 * limb with carry counts, and reduced once per row without branches. Rows are independent,
 * so threads split the rows and write disjoint outputs.
 *
 * Measured with bench_spmv on PoRep-shaped circuits (H200 host, 16 cores): 2.1–2.2 ns per
 * nonzero on 16 threads at every size from 2^16 to 2^27 (a = A·w, b = B·w and c = C·w of a
 * PoRep-sized partition, 748 M nonzeros, in 1.6 s), 18–29 ns on one thread (k = 20: 158 ms
 * on 1 thread, 81 ms on 2). The stream is ~65 bytes per nonzero, 32 of them the coefficient,
 * which is why storing coefficients as indices into a small table is the next step.
 */
#include "r1cs/r1cs.h"

#include "util/alloc.h"
#include "util/carry.h"
#include "util/file.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "czk's R1CS code assumes a little-endian host"
#endif

/* Rows per pool chunk: a few microseconds of work, enough to amortize the atomic claim. */
#define ROW_GRAIN 2048

/* ---- small helpers shared by this file ---- */

/* 1 when the four limbs of x are a fully reduced value (x < r). */
static int fr_limbs_reduced(const uint64_t x[4]) {
    for (int i = 3; i >= 0; i--) {
        if (x[i] != CZK_FR_MODULUS[i])
            return x[i] < CZK_FR_MODULUS[i];
    }
    return 0;
}

/* Lowers *slot to `row` if `row` is smaller (a lock-free min over the faulty rows). */
static void atomic_min_u64(_Atomic uint64_t *slot, uint64_t row) {
    /* Relaxed: the slot is read after czk_pool_run returns, which orders every write. */
    uint64_t cur = atomic_load_explicit(slot, memory_order_relaxed);
    while (row < cur && !atomic_compare_exchange_weak_explicit(
                            slot, &cur, row, memory_order_relaxed, memory_order_relaxed)) {
    }
}

void czk_r1cs_clear(czk_r1cs *cs) {
    if (cs == NULL)
        return;
    if (cs->mapping != NULL) {
        /* czk_r1cs_load_ex's czk_file_map, handed over as these two fields. */
        czk_file_mapping map = {.base = cs->mapping, .map_len = cs->mapping_len};
        czk_file_unmap(&map);
    } else {
        czk_r1cs_matrix *ms[3] = {&cs->a, &cs->b, &cs->c};
        for (int i = 0; i < 3; i++) {
            czk_free(ms[i]->row_ptr);
            czk_free(ms[i]->cols);
            czk_free(ms[i]->vals);
        }
    }
    memset(cs, 0, sizeof(*cs));
}

uint64_t czk_r1cs_nnz(const czk_r1cs_matrix *m, size_t n_rows) {
    if (m == NULL || m->row_ptr == NULL)
        return 0;
    return m->row_ptr[n_rows];
}

int czk_r1cs_same(const czk_r1cs *x, const czk_r1cs *y) {
    if (x->n_constraints != y->n_constraints || x->n_vars != y->n_vars ||
        x->n_public != y->n_public)
        return 0;
    const czk_r1cs_matrix *mx[3] = {&x->a, &x->b, &x->c}, *my[3] = {&y->a, &y->b, &y->c};
    for (int m = 0; m < 3; m++) {
        if ((mx[m]->row_ptr == NULL) != (my[m]->row_ptr == NULL))
            return 0;
        if (mx[m]->row_ptr == NULL)
            continue;
        const size_t n = (size_t)mx[m]->row_ptr[x->n_constraints];
        if (memcmp(mx[m]->row_ptr, my[m]->row_ptr, (x->n_constraints + 1) * sizeof(uint64_t)) ||
            (n > 0 && (memcmp(mx[m]->cols, my[m]->cols, n * sizeof(uint32_t)) ||
                       memcmp(mx[m]->vals, my[m]->vals, n * sizeof(czk_fr)))))
            return 0;
    }
    return 1;
}

size_t czk_r1cs_bytes(const czk_r1cs *cs) {
    if (cs == NULL)
        return 0;
    size_t total = 0;
    const czk_r1cs_matrix *ms[3] = {&cs->a, &cs->b, &cs->c};
    for (int i = 0; i < 3; i++) {
        if (ms[i]->row_ptr == NULL)
            continue;
        uint64_t nnz = ms[i]->row_ptr[cs->n_constraints];
        total += (cs->n_constraints + 1) * sizeof(uint64_t) +
                 (size_t)nnz * (sizeof(uint32_t) + sizeof(czk_fr));
    }
    return total;
}

/* ---- validation ---- */

static const char *const MATRIX_NAME[3] = {"A", "B", "C"};

/*
 * Validation runs two passes over a matrix: row_ptr first (so that a bad offset is reported
 * as such, not as the damage it does to the entries it misplaces), then the entries, which
 * the first pass has proved in bounds.
 */
enum { PASS_ROW_PTR, PASS_ENTRIES };

/*
 * Checks row `i` of `m` in `pass`; returns NULL when it is sound, else a description of the
 * fault, with the offending entry's index in *entry.
 */
static const char *row_fault(const czk_r1cs_matrix *m, int pass, size_t i, uint64_t nnz,
                             size_t n_vars, uint64_t *entry) {
    uint64_t b = m->row_ptr[i], e = m->row_ptr[i + 1];
    *entry = b;
    if (pass == PASS_ROW_PTR) {
        if (b > e)
            return "row_ptr decreases";
        if (e > nnz)
            return "row_ptr runs past nnz";
        return NULL;
    }
    for (uint64_t k = b; k < e; k++) {
        *entry = k;
        if (m->cols[k] >= n_vars)
            return "column not below n_vars";
        if (k > b && m->cols[k] <= m->cols[k - 1])
            return "columns not strictly ascending";
        if (!fr_limbs_reduced(m->vals[k].l))
            return "coefficient not below r";
    }
    return NULL;
}

typedef struct {
    const czk_r1cs_matrix *m;
    int pass;
    uint64_t nnz;
    size_t n_vars;
    _Atomic uint64_t bad; /* lowest faulty row, UINT64_MAX when none */
} validate_ctx;

static void validate_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    validate_ctx *v = arg;
    uint64_t entry;
    for (size_t i = begin; i < end; i++) {
        if (row_fault(v->m, v->pass, i, v->nnz, v->n_vars, &entry) != NULL) {
            atomic_min_u64(&v->bad, i);
            return; /* later rows of this chunk cannot be lower */
        }
    }
}

/*
 * Validates one matrix of `cs`. `what` prefixes the message (a file path for the loader,
 * "r1cs" otherwise); the code returned on a fault is `code`.
 */
static int validate_matrix(const czk_r1cs *cs, int which, czk_pool *pool, int code,
                           const char *what, czk_err *err) {
    const czk_r1cs_matrix *m = which == 0 ? &cs->a : which == 1 ? &cs->b : &cs->c;
    const char *name = MATRIX_NAME[which];
    size_t n = cs->n_constraints;
    if (m->row_ptr == NULL)
        return czk_err_set(err, code, "%s: matrix %s has no row_ptr", what, name);
    if (m->row_ptr[0] != 0)
        return czk_err_set(err, code, "%s: matrix %s: row_ptr[0] = %llu, not 0", what, name,
                           (unsigned long long)m->row_ptr[0]);
    uint64_t nnz = m->row_ptr[n];
    if (nnz > 0 && (m->cols == NULL || m->vals == NULL))
        return czk_err_set(err, code, "%s: matrix %s: %llu entries but no cols/vals", what, name,
                           (unsigned long long)nnz);
    for (int pass = PASS_ROW_PTR; pass <= PASS_ENTRIES; pass++) {
        validate_ctx v = {.m = m, .pass = pass, .nnz = nnz, .n_vars = cs->n_vars};
        atomic_init(&v.bad, UINT64_MAX);
        /* The row_ptr pass reads 8 bytes a row: bigger chunks. */
        czk_pool_run(pool, n, pass == PASS_ROW_PTR ? 16 * ROW_GRAIN : ROW_GRAIN, validate_body, &v);
        uint64_t bad = atomic_load_explicit(&v.bad, memory_order_relaxed);
        if (bad == UINT64_MAX)
            continue;
        uint64_t entry = 0;
        const char *fault = row_fault(m, pass, (size_t)bad, nnz, cs->n_vars, &entry);
        return czk_err_set(err, code, "%s: matrix %s, row %llu, entry %llu: %s", what, name,
                           (unsigned long long)bad, (unsigned long long)entry,
                           fault ? fault : "fault");
    }
    return CZK_OK;
}

/* Shared with r1cs_file.c: the loader runs the same checks on a mapped file. */
int czk__r1cs_validate_as(const czk_r1cs *cs, czk_pool *pool, int code, const char *what,
                          czk_err *err) {
    if (cs->n_vars < 1 || cs->n_public > cs->n_vars - 1)
        return czk_err_set(err, code, "%s: n_public %zu needs n_vars >= %zu, have %zu", what,
                           cs->n_public, cs->n_public + 1, cs->n_vars);
    if ((uint64_t)cs->n_vars > (uint64_t)UINT32_MAX + 1)
        return czk_err_set(err, code, "%s: n_vars %zu exceeds 2^32 (32-bit columns)", what,
                           cs->n_vars);
    for (int which = 0; which < 3; which++) {
        if (which == 2 && cs->c.row_ptr == NULL)
            break; /* C not stored */
        int rc = validate_matrix(cs, which, pool, code, what, err);
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}

int czk_r1cs_validate(const czk_r1cs *cs, czk_pool *pool, czk_err *err) {
    if (cs == NULL)
        return czk_err_set(err, CZK_EINVAL, "r1cs: validate: cs is NULL");
    return czk__r1cs_validate_as(cs, pool, CZK_EINVAL, "r1cs", err);
}

/* ---- builder ---- */

typedef struct {
    uint64_t *row_ptr; /* cap_rows + 1 */
    uint32_t *cols;
    czk_fr *vals;
    size_t nnz, cap_cols, cap_vals;
} bmat;

typedef struct {
    uint32_t col;
    czk_fr val;
} term;

struct czk_r1cs_builder {
    size_t n_public;
    uint64_t n_vars; /* <= 2^32 */
    size_t n_rows, cap_rows;
    bmat m[3];
    term *scratch;
    size_t scratch_cap;
};

/* Grows *p (elements of `elem` bytes, `*cap` of them, `used` in use) to hold `need`. */
static int grow(void **p, size_t *cap, size_t used, size_t need, size_t elem) {
    if (need <= *cap)
        return CZK_OK;
    size_t ncap = *cap < 8 ? 16 : *cap;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2)
            return CZK_ENOMEM;
        ncap *= 2;
    }
    if (ncap > SIZE_MAX / elem)
        return CZK_ENOMEM;
    void *np = czk_malloc(ncap * elem);
    if (np == NULL)
        return CZK_ENOMEM;
    if (used > 0)
        memcpy(np, *p, used * elem);
    czk_free(*p);
    *p = np;
    *cap = ncap;
    return CZK_OK;
}

/* Gives the builder fresh, empty row arrays (row_ptr[0] = 0). */
static int builder_reset_rows(czk_r1cs_builder *b) {
    uint64_t *rp[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++) {
        rp[i] = czk_malloc(17 * sizeof(uint64_t));
        if (rp[i] == NULL) {
            for (int j = 0; j < i; j++)
                czk_free(rp[j]);
            return CZK_ENOMEM;
        }
        rp[i][0] = 0;
    }
    for (int i = 0; i < 3; i++) {
        b->m[i].row_ptr = rp[i];
        b->m[i].cols = NULL;
        b->m[i].vals = NULL;
        b->m[i].nnz = b->m[i].cap_cols = b->m[i].cap_vals = 0;
    }
    b->n_rows = 0;
    b->cap_rows = 16;
    b->n_vars = 1 + (uint64_t)b->n_public;
    return CZK_OK;
}

int czk_r1cs_builder_create(czk_r1cs_builder **out, size_t n_public, czk_err *err) {
    if (out == NULL)
        return czk_err_set(err, CZK_EINVAL, "r1cs builder: out is NULL");
    *out = NULL;
    if ((uint64_t)n_public >= (uint64_t)UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "r1cs builder: %zu public inputs exceed 2^32 - 1",
                           n_public);
    czk_r1cs_builder *b = czk_calloc(1, sizeof(*b));
    if (b == NULL)
        return czk_err_set(err, CZK_ENOMEM, "r1cs builder: out of memory");
    b->n_public = n_public;
    if (builder_reset_rows(b) != CZK_OK) {
        czk_free(b);
        return czk_err_set(err, CZK_ENOMEM, "r1cs builder: out of memory");
    }
    *out = b;
    return CZK_OK;
}

void czk_r1cs_builder_destroy(czk_r1cs_builder *b) {
    if (b == NULL)
        return;
    for (int i = 0; i < 3; i++) {
        czk_free(b->m[i].row_ptr);
        czk_free(b->m[i].cols);
        czk_free(b->m[i].vals);
    }
    czk_free(b->scratch);
    czk_free(b);
}

int czk_r1cs_builder_add_var(czk_r1cs_builder *b, uint32_t *var) {
    if (b == NULL || var == NULL || b->n_vars > UINT32_MAX)
        return CZK_EINVAL;
    *var = (uint32_t)b->n_vars++;
    return CZK_OK;
}

size_t czk_r1cs_builder_n_vars(const czk_r1cs_builder *b) {
    return b == NULL ? 0 : (size_t)b->n_vars;
}

size_t czk_r1cs_builder_n_constraints(const czk_r1cs_builder *b) {
    return b == NULL ? 0 : b->n_rows;
}

static int term_cmp(const void *x, const void *y) {
    uint32_t a = ((const term *)x)->col, b = ((const term *)y)->col;
    return (a > b) - (a < b);
}

/* Sorts, merges and appends one side (capacity already ensured). */
static void append_side(czk_r1cs_builder *b, bmat *m, const uint32_t *cols, const czk_fr *vals,
                        size_t n) {
    term *s = b->scratch;
    for (size_t i = 0; i < n; i++) {
        s[i].col = cols[i];
        s[i].val = vals[i];
    }
    if (n > 1)
        qsort(s, n, sizeof(term), term_cmp);
    size_t i = 0;
    while (i < n) {
        czk_fr sum = s[i].val;
        size_t j = i + 1;
        for (; j < n && s[j].col == s[i].col; j++)
            czk_fr_add(&sum, &sum, &s[j].val);
        if (!czk_fr_is_zero(&sum)) {
            m->cols[m->nnz] = s[i].col;
            m->vals[m->nnz] = sum;
            m->nnz++;
        }
        i = j;
    }
    m->row_ptr[b->n_rows + 1] = m->nnz;
}

int czk_r1cs_builder_add_constraint(czk_r1cs_builder *b, const uint32_t *a_cols,
                                    const czk_fr *a_vals, size_t a_n, const uint32_t *b_cols,
                                    const czk_fr *b_vals, size_t b_n, const uint32_t *c_cols,
                                    const czk_fr *c_vals, size_t c_n, czk_err *err) {
    if (b == NULL)
        return czk_err_set(err, CZK_EINVAL, "r1cs builder: builder is NULL");
    const uint32_t *cols[3] = {a_cols, b_cols, c_cols};
    const czk_fr *vals[3] = {a_vals, b_vals, c_vals};
    size_t ns[3] = {a_n, b_n, c_n};
    size_t maxn = 0;
    /* Check everything before touching the builder, so that a refused row leaves no trace. */
    for (int s = 0; s < 3; s++) {
        if (ns[s] > 0 && (cols[s] == NULL || vals[s] == NULL))
            return czk_err_set(err, CZK_EINVAL,
                               "r1cs builder: row %zu, side %s: %zu terms "
                               "but NULL arrays",
                               b->n_rows, MATRIX_NAME[s], ns[s]);
        for (size_t i = 0; i < ns[s]; i++) {
            if (cols[s][i] >= b->n_vars)
                return czk_err_set(err, CZK_EINVAL,
                                   "r1cs builder: row %zu, side %s, term %zu: variable %u not "
                                   "allocated (%llu exist)",
                                   b->n_rows, MATRIX_NAME[s], i, cols[s][i],
                                   (unsigned long long)b->n_vars);
            if (!fr_limbs_reduced(vals[s][i].l))
                return czk_err_set(err, CZK_EINVAL,
                                   "r1cs builder: row %zu, side %s, term %zu: coefficient not "
                                   "reduced",
                                   b->n_rows, MATRIX_NAME[s], i);
        }
        if (ns[s] > maxn)
            maxn = ns[s];
    }
    if (grow((void **)&b->scratch, &b->scratch_cap, 0, maxn, sizeof(term)) != CZK_OK)
        goto nomem;
    if (b->n_rows >= b->cap_rows) {
        /* row_ptr holds cap_rows + 1 entries; each matrix grows to the same new capacity. If
         * one fails, those already grown are merely larger than cap_rows says. */
        size_t ncap = 0;
        for (int s = 0; s < 3; s++) {
            size_t c = b->cap_rows + 1;
            if (grow((void **)&b->m[s].row_ptr, &c, b->n_rows + 1, 2 * b->cap_rows + 1,
                     sizeof(uint64_t)) != CZK_OK)
                goto nomem;
            ncap = c - 1;
        }
        b->cap_rows = ncap;
    }
    for (int s = 0; s < 3; s++) {
        bmat *m = &b->m[s];
        if (ns[s] > SIZE_MAX - m->nnz)
            goto nomem;
        if (grow((void **)&m->cols, &m->cap_cols, m->nnz, m->nnz + ns[s], sizeof(uint32_t)) !=
                CZK_OK ||
            grow((void **)&m->vals, &m->cap_vals, m->nnz, m->nnz + ns[s], sizeof(czk_fr)) != CZK_OK)
            goto nomem;
    }
    for (int s = 0; s < 3; s++)
        append_side(b, &b->m[s], cols[s], vals[s], ns[s]);
    b->n_rows++;
    return CZK_OK;
nomem:
    return czk_err_set(err, CZK_ENOMEM, "r1cs builder: out of memory at row %zu", b->n_rows);
}

int czk_r1cs_builder_finish(czk_r1cs_builder *b, czk_r1cs *out, czk_err *err) {
    if (out == NULL)
        return czk_err_set(err, CZK_EINVAL, "r1cs builder: out is NULL");
    memset(out, 0, sizeof(*out));
    if (b == NULL)
        return czk_err_set(err, CZK_EINVAL, "r1cs builder: builder is NULL");
    czk_r1cs built = {
        .n_constraints = b->n_rows, .n_vars = (size_t)b->n_vars, .n_public = b->n_public};
    czk_r1cs_matrix *ms[3] = {&built.a, &built.b, &built.c};
    for (int s = 0; s < 3; s++) {
        ms[s]->row_ptr = b->m[s].row_ptr;
        ms[s]->cols = b->m[s].cols;
        ms[s]->vals = b->m[s].vals;
    }
    bmat saved[3];
    memcpy(saved, b->m, sizeof(saved));
    size_t saved_rows = b->n_rows, saved_cap = b->cap_rows;
    uint64_t saved_vars = b->n_vars;
    if (builder_reset_rows(b) != CZK_OK) {
        memcpy(b->m, saved, sizeof(saved));
        b->n_rows = saved_rows;
        b->cap_rows = saved_cap;
        b->n_vars = saved_vars;
        return czk_err_set(err, CZK_ENOMEM, "r1cs builder: out of memory in finish");
    }
    *out = built;
    return CZK_OK;
}

/* ---- SpMV ---- */

/*
 * A row is summed limb by limb without propagating carries: each 64-bit limb i has its own
 * sum s_i and carry count c_i (add, then adc $0), so the four limbs are independent chains
 * and a term costs ~8 instructions. The true sum is Σ (s_i + c_i·2^64)·2^(64i), combined
 * once per row (row_finish). Counts cannot overflow: a row would need 2^64 terms.
 */
#define ACC_ADD(x0, x1, x2, x3)                                                                    \
    do {                                                                                           \
        uint64_t a0_ = (x0), a1_ = (x1), a2_ = (x2), a3_ = (x3);                                   \
        s0 += a0_;                                                                                 \
        c0 += s0 < a0_;                                                                            \
        s1 += a1_;                                                                                 \
        c1 += s1 < a1_;                                                                            \
        s2 += a2_;                                                                                 \
        c2 += s2 < a2_;                                                                            \
        s3 += a3_;                                                                                 \
        c3 += s3 < a3_;                                                                            \
    } while (0)

typedef struct {
    const czk_r1cs *cs;
    const czk_fr *w;
    czk_fr *out[3];
    czk_fr minus_one;
    uint64_t r2[4]; /* 2r (< 2^256) */
    czk_fr hi[64];  /* hi[h] = h·2^256 mod r (Montgomery form of h), for the row reduction */
    _Atomic uint64_t bad;
} spmv_ctx;

static void spmv_ctx_init(spmv_ctx *x, const czk_r1cs *cs, const czk_fr *w) {
    x->cs = cs;
    x->w = w;
    czk_fr_neg(&x->minus_one, &CZK_FR_ONE);
    for (int i = 3; i >= 0; i--)
        x->r2[i] = (CZK_FR_MODULUS[i] << 1) | (i > 0 ? CZK_FR_MODULUS[i - 1] >> 63 : 0);
    for (uint64_t h = 0; h < 64; h++)
        czk_fr_set_u64(&x->hi[h], h);
    atomic_init(&x->bad, UINT64_MAX);
}

/* (t0..t4) −= c when (t0..t4) >= c, without a branch. */
#define CSUB5(c)                                                                                   \
    do {                                                                                           \
        uint64_t b_ = 0;                                                                           \
        uint64_t d0_ = czk__sbb(t0, (c)[0], &b_);                                                  \
        uint64_t d1_ = czk__sbb(t1, (c)[1], &b_);                                                  \
        uint64_t d2_ = czk__sbb(t2, (c)[2], &b_);                                                  \
        uint64_t d3_ = czk__sbb(t3, (c)[3], &b_);                                                  \
        uint64_t d4_ = czk__sbb(t4, 0, &b_);                                                       \
        uint64_t keep_ = (uint64_t)0 - b_; /* all ones when t < c */                               \
        t0 = (t0 & keep_) | (d0_ & ~keep_);                                                        \
        t1 = (t1 & keep_) | (d1_ & ~keep_);                                                        \
        t2 = (t2 & keep_) | (d2_ & ~keep_);                                                        \
        t3 = (t3 & keep_) | (d3_ & ~keep_);                                                        \
        t4 = (t4 & keep_) | (d4_ & ~keep_);                                                        \
    } while (0)

/*
 * out = S mod r for S = t0 + t1·2^64 + t2·2^128 + t3·2^192 + t4·2^256, branch-free in the
 * common case (about half the rows need a subtraction, and
 * which half depends on the data: a loop of compares mispredicted and cost a quarter of
 * SpMV). The high limb folds in as hi·2^256 mod r from a table, leaving T = lo + fold <
 * 2^256 + r < 3.3r, which two conditional subtractions (2r, then r) reduce.
 */
static inline void acc_reduce(czk_fr *out, uint64_t t0, uint64_t t1, uint64_t t2, uint64_t t3,
                              uint64_t t4, const spmv_ctx *x) {
    czk_fr h;
    if (__builtin_expect(t4 < 64, 1))
        h = x->hi[t4];
    else
        czk_fr_set_u64(&h, t4); /* only rows of more than ~128 terms get here */
    uint64_t c = 0;
    t0 = czk__adc(t0, h.l[0], &c);
    t1 = czk__adc(t1, h.l[1], &c);
    t2 = czk__adc(t2, h.l[2], &c);
    t3 = czk__adc(t3, h.l[3], &c);
    t4 = c;
    CSUB5(x->r2);
    CSUB5(CZK_FR_MODULUS);
    out->l[0] = t0;
    out->l[1] = t1;
    out->l[2] = t2;
    out->l[3] = t3;
}

/* <M_i, w> for row i of m. */
static inline void row_dot(czk_fr *out, const czk_r1cs_matrix *m, size_t i, const spmv_ctx *x) {
    const uint64_t o0 = CZK_FR_ONE.l[0], o1 = CZK_FR_ONE.l[1], o2 = CZK_FR_ONE.l[2],
                   o3 = CZK_FR_ONE.l[3];
    const czk_fr *w = x->w;
    uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (uint64_t k = m->row_ptr[i], e = m->row_ptr[i + 1]; k < e; k++) {
        const uint64_t *v = m->vals[k].l;
        const uint64_t *wv = w[m->cols[k]].l;
        uint64_t w0 = wv[0], w1 = wv[1], w2 = wv[2], w3 = wv[3];
        uint64_t nz = w0 | w1 | w2 | w3;
        uint64_t d1 = (w0 ^ o0) | (w1 ^ o1) | (w2 ^ o2) | (w3 ^ o3);
        /* One branch, rarely taken, on "neither 0 nor 1", computed without branches ((x | −x)
         * has its top bit set iff x != 0): branching on w = 0 itself would be a coin flip. */
        uint64_t general = ((nz | (0 - nz)) & (d1 | (0 - d1))) >> 63;
        if (__builtin_expect(general, 0)) {
            /* A general witness value. */
            if (((v[0] ^ o0) | (v[1] ^ o1) | (v[2] ^ o2) | (v[3] ^ o3)) == 0) {
                ACC_ADD(w0, w1, w2, w3);
            } else if (czk_fr_equal(&m->vals[k], &x->minus_one)) {
                /* add r − w, i.e. −w modulo r, keeping the sum non-negative */
                uint64_t bw = 0;
                uint64_t n0 = czk__sbb(CZK_FR_MODULUS[0], w0, &bw);
                uint64_t n1 = czk__sbb(CZK_FR_MODULUS[1], w1, &bw);
                uint64_t n2 = czk__sbb(CZK_FR_MODULUS[2], w2, &bw);
                uint64_t n3 = czk__sbb(CZK_FR_MODULUS[3], w3, &bw);
                ACC_ADD(n0, n1, n2, n3);
            } else {
                czk_fr p;
                czk_fr_mul(&p, &m->vals[k], &w[m->cols[k]]);
                ACC_ADD(p.l[0], p.l[1], p.l[2], p.l[3]);
            }
        } else {
            /* w is 0 (add nothing) or 1 (add the coefficient): no branch on which. */
            uint64_t mask = (uint64_t)0 - (uint64_t)(d1 == 0);
            ACC_ADD(v[0] & mask, v[1] & mask, v[2] & mask, v[3] & mask);
        }
    }
    /* Fold the carry counts in: S = s0 + (s1 + c0)·2^64 + (s2 + c1)·2^128 + ... */
    uint64_t c = 0;
    s1 = czk__adc(s1, c0, &c);
    s2 = czk__adc(s2, c1, &c);
    s3 = czk__adc(s3, c2, &c);
    acc_reduce(out, s0, s1, s2, s3, c3 + c, x);
}

static void spmv_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    spmv_ctx *x = arg;
    const czk_r1cs *cs = x->cs;
    int c_stored = cs->c.row_ptr != NULL;
    int need_ab = x->out[2] != NULL && !c_stored;
    for (size_t i = begin; i < end; i++) {
        czk_fr av, bv;
        if (x->out[0] != NULL || need_ab) {
            row_dot(&av, &cs->a, i, x);
            if (x->out[0] != NULL)
                x->out[0][i] = av;
        }
        if (x->out[1] != NULL || need_ab) {
            row_dot(&bv, &cs->b, i, x);
            if (x->out[1] != NULL)
                x->out[1][i] = bv;
        }
        if (x->out[2] != NULL) {
            if (c_stored)
                row_dot(&x->out[2][i], &cs->c, i, x);
            else
                czk_fr_mul(&x->out[2][i], &av, &bv);
        }
    }
}

int czk_r1cs_spmv(const czk_r1cs *cs, const czk_fr *w, czk_fr *a, czk_fr *b, czk_fr *c,
                  czk_pool *pool) {
    if (cs == NULL)
        return CZK_EINVAL;
    if (cs->n_constraints == 0 || (a == NULL && b == NULL && c == NULL))
        return CZK_OK;
    if (w == NULL || cs->a.row_ptr == NULL || cs->b.row_ptr == NULL)
        return CZK_EINVAL;
    spmv_ctx x;
    spmv_ctx_init(&x, cs, w);
    x.out[0] = a;
    x.out[1] = b;
    x.out[2] = c;
    czk_pool_run(pool, cs->n_constraints, ROW_GRAIN, spmv_body, &x);
    return CZK_OK;
}

/* ---- satisfaction check ---- */

static int row_holds(const spmv_ctx *x, size_t i) {
    const czk_r1cs *cs = x->cs;
    czk_fr av, bv, cv, ab;
    row_dot(&av, &cs->a, i, x);
    row_dot(&bv, &cs->b, i, x);
    row_dot(&cv, &cs->c, i, x);
    czk_fr_mul(&ab, &av, &bv);
    return czk_fr_equal(&ab, &cv);
}

static void check_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    spmv_ctx *x = arg;
    /* Relaxed: only a hint to skip rows above a failure already found. */
    if (begin > atomic_load_explicit(&x->bad, memory_order_relaxed))
        return;
    for (size_t i = begin; i < end; i++) {
        if (!row_holds(x, i)) {
            atomic_min_u64(&x->bad, i);
            return;
        }
    }
}

int czk_r1cs_check(const czk_r1cs *cs, const czk_fr *w, size_t *bad_row, czk_pool *pool,
                   czk_err *err) {
    if (cs == NULL || w == NULL || cs->n_vars == 0)
        return czk_err_set(err, CZK_EINVAL, "r1cs: check: cs or w is NULL, or no variables");
    if (!czk_fr_is_one(&w[0]))
        return czk_err_set(err, CZK_EINVAL, "r1cs: check: w[0] (the ONE variable) is not 1");
    if (cs->c.row_ptr == NULL || cs->n_constraints == 0)
        return CZK_OK; /* C not stored: every row holds by definition (c = a∘b) */
    if (cs->a.row_ptr == NULL || cs->b.row_ptr == NULL)
        return czk_err_set(err, CZK_EINVAL, "r1cs: check: A or B has no row_ptr");
    spmv_ctx x;
    spmv_ctx_init(&x, cs, w);
    czk_pool_run(pool, cs->n_constraints, ROW_GRAIN, check_body, &x);
    uint64_t bad = atomic_load_explicit(&x.bad, memory_order_relaxed);
    if (bad == UINT64_MAX)
        return CZK_OK;
    if (bad_row != NULL)
        *bad_row = (size_t)bad;
    return czk_err_set(err, CZK_EVERIFY,
                       "r1cs: constraint %llu of %zu not satisfied: <A,w>·<B,w> != <C,w>",
                       (unsigned long long)bad, cs->n_constraints);
}

/* ---- density ---- */

static void density_one(const czk_r1cs *cs, const czk_r1cs_matrix *m, uint64_t *bits) {
    memset(bits, 0, ((cs->n_vars + 63) / 64) * sizeof(uint64_t));
    if (m->row_ptr == NULL)
        return;
    uint64_t nnz = m->row_ptr[cs->n_constraints];
    for (uint64_t k = 0; k < nnz; k++) {
        if (czk_fr_is_zero(&m->vals[k]))
            continue;
        uint32_t v = m->cols[k];
        bits[v / 64] |= 1ULL << (v % 64);
    }
}

int czk_r1cs_density(const czk_r1cs *cs, uint64_t *a_bits, uint64_t *b_bits) {
    if (cs == NULL)
        return CZK_EINVAL;
    if (a_bits != NULL)
        density_one(cs, &cs->a, a_bits);
    if (b_bits != NULL)
        density_one(cs, &cs->b, b_bits);
    return CZK_OK;
}
