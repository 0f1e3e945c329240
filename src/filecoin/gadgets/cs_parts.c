/*
 * czk_cs_record_parts (cs_parts.h): the global part in one RECORD system, part 0 counted in a
 * COUNT system (global part and part 0, the difference being one part) to size the whole
 * system's arrays once, then every part in a RECORD system of its own over the pool, its rows
 * renumbered for the whole system's inputs and copied into place, its density bitmaps ORed
 * into the whole system's.
 */
#include "filecoin/gadgets/cs_parts.h"

#include <pthread.h>
#include <string.h>

#include "util/alloc.h"

/*
 * The whole system being filled: the global part's rows, then part i's at rows
 * g_rows + i·per_rows and entries g_nnz[m] + i·per_nnz[m], its variables at inputs
 * g_in + i·per_in and aux g_aux + i·per_aux. The density bitmaps are ORed under mu.
 */
typedef struct record_job {
    const czk_cs_parts *def;
    const void *globals;
    czk_r1cs *out;
    uint64_t n_inputs; /* the whole system's */
    uint64_t g_in, g_aux, g_rows, g_nnz[3];
    uint64_t per_in, per_aux, per_rows, per_nnz[3];
    uint64_t *a_aux, *b_aux, *b_in;
    size_t aux_words, in_words;
    pthread_mutex_t mu;
    int *rc;
    czk_err *err;
} record_job;

/* Copies a finished, renumbered part into the whole system at (row0, nnz0). */
static void place_part(czk_r1cs *out, const czk_r1cs *part, uint64_t row0, const uint64_t nnz0[3]) {
    czk_r1cs_matrix *dst[3] = {&out->a, &out->b, &out->c};
    const czk_r1cs_matrix *src[3] = {&part->a, &part->b, &part->c};
    for (int m = 0; m < 3; m++) {
        const uint64_t n = src[m]->row_ptr[part->n_constraints];
        for (size_t r = 1; r <= part->n_constraints; r++)
            dst[m]->row_ptr[row0 + r] = nnz0[m] + src[m]->row_ptr[r];
        if (n > 0) {
            memcpy(dst[m]->cols + nnz0[m], src[m]->cols, n * sizeof(uint32_t));
            memcpy(dst[m]->vals + nnz0[m], src[m]->vals, n * sizeof(czk_fr));
        }
    }
}

/* Records part i into a system of its own, checks that it made part 0's counts, and places
 * its rows. */
static int record_part(record_job *j, uint32_t i, czk_err *err) {
    const czk_cs_parts *def = j->def;
    czk_cs *cs = NULL;
    czk_r1cs part;
    memset(&part, 0, sizeof part);
    int rc = czk_cs_create(&cs, CZK_CS_RECORD, 0, err);
    if (rc != CZK_OK)
        return rc;
    const uint64_t in_b = j->g_in + i * j->per_in, aux_b = j->g_aux + i * j->per_aux;
    if ((rc = czk_cs_record_at(cs, in_b, aux_b)) == CZK_OK)
        rc = czk_cs_record_reserve(cs, j->per_rows, j->per_nnz);
    if (rc == CZK_OK)
        rc = def->part(cs, def->arg, j->globals, i);
    czk_cs_stats st;
    czk_cs_get_stats(cs, &st);
    if (rc != CZK_OK) {
        czk_err_set(err, rc, "%s: recording part %u: %s", def->what, i, czk_cs_error(cs)->msg);
    } else if (st.n_inputs != in_b + j->per_in || st.n_aux != aux_b + j->per_aux ||
               st.n_rows != j->per_rows || st.nnz_a != j->per_nnz[0] || st.nnz_b != j->per_nnz[1] ||
               st.nnz_c != j->per_nnz[2]) {
        rc = czk_err_set(err, CZK_EINVAL,
                         "%s: part %u recorded %llu rows and %llu aux, part 0 %llu and %llu: the "
                         "parts are not alike",
                         def->what, i, (unsigned long long)st.n_rows,
                         (unsigned long long)(st.n_aux - aux_b), (unsigned long long)j->per_rows,
                         (unsigned long long)j->per_aux);
    } else {
        pthread_mutex_lock(&j->mu);
        czk_cs_density_or(cs, j->a_aux, j->b_aux, j->aux_words, j->b_in, j->in_words);
        pthread_mutex_unlock(&j->mu);
        rc = czk_cs_finish_part(cs, &part, j->n_inputs, err);
    }
    czk_cs_destroy(cs);
    if (rc == CZK_OK) {
        uint64_t nnz0[3];
        for (int m = 0; m < 3; m++)
            nnz0[m] = j->g_nnz[m] + i * j->per_nnz[m];
        place_part(j->out, &part, j->g_rows + i * j->per_rows, nnz0);
    }
    czk_r1cs_clear(&part);
    return rc;
}

static void record_body(void *arg, size_t begin, size_t end, unsigned worker) {
    record_job *j = arg;
    (void)worker;
    for (size_t k = begin; k < end; k++)
        j->rc[k] = record_part(j, (uint32_t)k, &j->err[k]);
}

/* Popcount of n words. */
static uint64_t popcount_words(const uint64_t *w, size_t n) {
    uint64_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += (uint64_t)__builtin_popcountll(w[i]);
    return c;
}

/* The whole system's arrays, exactly: row_ptr[0] = 0, the rest written by the parts. */
static int alloc_whole(czk_r1cs *out, uint64_t rows, const uint64_t nnz[3]) {
    czk_r1cs_matrix *m[3] = {&out->a, &out->b, &out->c};
    for (int i = 0; i < 3; i++) {
        m[i]->row_ptr = czk_calloc(rows + 1, sizeof(uint64_t));
        m[i]->cols = czk_malloc((nnz[i] > 0 ? nnz[i] : 1) * sizeof(uint32_t));
        m[i]->vals = czk_malloc((nnz[i] > 0 ? nnz[i] : 1) * sizeof(czk_fr));
        if (m[i]->row_ptr == NULL || m[i]->cols == NULL || m[i]->vals == NULL)
            return CZK_ENOMEM;
    }
    return CZK_OK;
}

/* Part 0's counts (global part and part 0 in a COUNT system, less the global part's), into
 * j->per_*. The globals it writes are scratch: the recording's own come from its system. */
static int count_part0(record_job *j, void *scratch, czk_err *err) {
    const czk_cs_parts *def = j->def;
    czk_cs *cnt = NULL;
    czk_cs_stats before, s0;
    int rc = czk_cs_create(&cnt, CZK_CS_COUNT, 0, err);
    if (rc != CZK_OK)
        return rc;
    rc = def->global(cnt, def->arg, scratch);
    czk_cs_get_stats(cnt, &before);
    if (rc == CZK_OK)
        rc = def->part(cnt, def->arg, scratch, 0);
    czk_cs_get_stats(cnt, &s0);
    if (rc != CZK_OK)
        czk_err_set(err, rc, "%s: counting part 0: %s", def->what, czk_cs_error(cnt)->msg);
    czk_cs_destroy(cnt);
    j->per_in = s0.n_inputs - before.n_inputs;
    j->per_aux = s0.n_aux - before.n_aux;
    j->per_rows = s0.n_rows - before.n_rows;
    j->per_nnz[0] = s0.nnz_a - before.nnz_a;
    j->per_nnz[1] = s0.nnz_b - before.nnz_b;
    j->per_nnz[2] = s0.nnz_c - before.nnz_c;
    return rc;
}

/* The global part recorded into a RECORD system of its own (*gcs, destroyed by the caller
 * whatever the result), what it hands the parts into globals, its counts into *gs. */
static int record_global_part(const czk_cs_parts *def, void *globals, czk_cs **gcs,
                              czk_cs_stats *gs, czk_err *err) {
    int rc = czk_cs_create(gcs, CZK_CS_RECORD, 0, err);
    if (rc != CZK_OK)
        return rc;
    if ((rc = def->global(*gcs, def->arg, globals)) != CZK_OK)
        return czk_err_set(err, rc, "%s: recording the global part: %s", def->what,
                           czk_cs_error(*gcs)->msg);
    czk_cs_get_stats(*gcs, gs);
    return CZK_OK;
}

int czk_cs_record_parts(czk_r1cs *out, czk_cs_stats *stats, const czk_cs_parts *def, czk_pool *pool,
                        czk_err *err) {
    memset(out, 0, sizeof *out);
    const uint32_t C = def->n_parts;
    czk_cs *gcs = NULL;
    record_job *j = czk_calloc(1, sizeof *j);
    void *globals = czk_calloc(2, def->globals_size > 0 ? def->globals_size : 1);
    int *rcs = czk_calloc(C > 0 ? C : 1, sizeof *rcs);
    czk_err *errs = czk_calloc(C > 0 ? C : 1, sizeof *errs);
    int rc = CZK_OK, mu_init = 0;
    if (j == NULL || globals == NULL || rcs == NULL || errs == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: out of memory", def->what);
        goto out;
    }
    czk_cs_stats gs;
    if ((rc = record_global_part(def, globals, &gcs, &gs, err)) != CZK_OK)
        goto out;
    *j = (record_job){.def = def,
                      .globals = globals,
                      .out = out,
                      .g_in = gs.n_inputs,
                      .g_aux = gs.n_aux,
                      .g_rows = gs.n_rows,
                      .g_nnz = {gs.nnz_a, gs.nnz_b, gs.nnz_c},
                      .rc = rcs,
                      .err = errs};
    pthread_mutex_init(&j->mu, NULL);
    mu_init = 1;
    if (C > 0 && (rc = count_part0(j, (char *)globals + def->globals_size, err)) != CZK_OK)
        goto out;
    j->n_inputs = j->g_in + C * j->per_in;
    const uint64_t n_aux = j->g_aux + C * j->per_aux, rows = j->g_rows + C * j->per_rows;
    uint64_t nnz[3];
    for (int m = 0; m < 3; m++)
        nnz[m] = j->g_nnz[m] + C * j->per_nnz[m];
    j->aux_words = (size_t)(n_aux / 64 + 1);
    j->in_words = (size_t)(j->n_inputs / 64 + 1);
    j->a_aux = czk_calloc(j->aux_words, sizeof(uint64_t));
    j->b_aux = czk_calloc(j->aux_words, sizeof(uint64_t));
    j->b_in = czk_calloc(j->in_words, sizeof(uint64_t));
    if (j->a_aux == NULL || j->b_aux == NULL || j->b_in == NULL ||
        alloc_whole(out, rows, nnz) != CZK_OK) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: out of memory for %llu rows", def->what,
                         (unsigned long long)rows);
        goto out;
    }
    /* The global part's rows, renumbered for the whole system's inputs. */
    {
        czk_r1cs part;
        czk_cs_density_or(gcs, j->a_aux, j->b_aux, j->aux_words, j->b_in, j->in_words);
        if ((rc = czk_cs_finish_part(gcs, &part, j->n_inputs, err)) != CZK_OK)
            goto out;
        const uint64_t zero[3] = {0, 0, 0};
        place_part(out, &part, 0, zero);
        czk_r1cs_clear(&part);
    }
    czk_pool_run(pool, C, 1, record_body, j);
    for (uint32_t i = 0; i < C; i++)
        if (rcs[i] != CZK_OK) {
            rc = rcs[i];
            if (err != NULL)
                *err = errs[i];
            goto out;
        }
    out->n_constraints = (size_t)rows;
    out->n_vars = (size_t)(j->n_inputs + n_aux);
    out->n_public = (size_t)j->n_inputs - 1;
    if (stats != NULL)
        *stats = (czk_cs_stats){.n_rows = rows,
                                .n_inputs = j->n_inputs,
                                .n_aux = n_aux,
                                .nnz_a = nnz[0],
                                .nnz_b = nnz[1],
                                .nnz_c = nnz[2],
                                .a_aux_density = popcount_words(j->a_aux, j->aux_words),
                                .b_input_density = popcount_words(j->b_in, j->in_words),
                                .b_aux_density = popcount_words(j->b_aux, j->aux_words)};
out:
    if (rc != CZK_OK)
        czk_r1cs_clear(out);
    if (j != NULL) {
        czk_free(j->a_aux);
        czk_free(j->b_aux);
        czk_free(j->b_in);
        if (mu_init)
            pthread_mutex_destroy(&j->mu);
    }
    czk_free(j);
    czk_free(globals);
    czk_free(rcs);
    czk_free(errs);
    czk_cs_destroy(gcs);
    return rc;
}

/* ---- the repeated form (czk_cs_record_parts_rep) ------------------------------------------ */

/* Parts recorded at part 0's place: which[k] into sys[k]. */
typedef struct rep_job {
    const czk_cs_parts *def;
    const void *globals;
    uint64_t g_in, g_aux;
    uint32_t which[3];
    czk_r1cs sys[3];
    int rc[3];
    czk_err err[3];
} rep_job;

static int record_at_part0(rep_job *j, size_t k) {
    const czk_cs_parts *def = j->def;
    czk_cs *cs = NULL;
    int rc = czk_cs_create(&cs, CZK_CS_RECORD, 0, &j->err[k]);
    if (rc != CZK_OK)
        return rc;
    if ((rc = czk_cs_record_at(cs, j->g_in, j->g_aux)) == CZK_OK)
        rc = def->part(cs, def->arg, j->globals, j->which[k]);
    if (rc != CZK_OK) {
        czk_err_set(&j->err[k], rc, "%s: recording part %u: %s", def->what, j->which[k],
                    czk_cs_error(cs)->msg);
    } else {
        czk_cs_stats st;
        czk_cs_get_stats(cs, &st);
        /* The block's inputs end with the part's own: its aux follow them (rep.h). */
        rc = czk_cs_finish_part(cs, &j->sys[k], st.n_inputs, &j->err[k]);
    }
    czk_cs_destroy(cs);
    return rc;
}

static void rep_body(void *arg, size_t begin, size_t end, unsigned worker) {
    rep_job *j = arg;
    (void)worker;
    for (size_t k = begin; k < end; k++)
        j->rc[k] = record_at_part0(j, k);
}

/* Popcount of bits [lo, hi) of a bitmap, a word at a time (a 32 GiB partition has 130 M). */
static uint64_t popcount_range(const uint64_t *w, uint64_t lo, uint64_t hi) {
    uint64_t c = 0;
    for (uint64_t v = lo; v < hi;) {
        const uint64_t k = v / 64, off = v % 64, end = hi - v < 64 - off ? off + (hi - v) : 64;
        const uint64_t mask = (end == 64 ? ~0ULL : (1ULL << end) - 1) & ~((1ULL << off) - 1);
        c += (uint64_t)__builtin_popcountll(w[k] & mask);
        v += end - off;
    }
    return c;
}

/* The whole circuit's counts from its repeated form. */
static int rep_stats(czk_cs_stats *st, const czk_r1cs_rep *rep, czk_err *err) {
    czk_r1cs dims;
    int rc = czk_r1cs_rep_dims(rep, &dims, err);
    if (rc != CZK_OK)
        return rc;
    const size_t words = dims.n_vars / 64 + 1;
    uint64_t *a = czk_calloc(words, sizeof(uint64_t)), *b = czk_calloc(words, sizeof(uint64_t));
    if (a == NULL || b == NULL)
        rc = czk_err_set(err, CZK_ENOMEM, "repeated system: density of %zu variables", dims.n_vars);
    else
        rc = czk_r1cs_rep_density(rep, a, b, err);
    if (rc == CZK_OK) {
        const uint64_t n_in = dims.n_public + 1;
        *st = (czk_cs_stats){.n_rows = dims.n_constraints,
                             .n_inputs = n_in,
                             .n_aux = dims.n_vars - n_in,
                             .nnz_a = czk_r1cs_rep_nnz(rep, 0),
                             .nnz_b = czk_r1cs_rep_nnz(rep, 1),
                             .nnz_c = czk_r1cs_rep_nnz(rep, 2),
                             .a_aux_density = popcount_range(a, n_in, dims.n_vars),
                             .b_input_density = popcount_range(b, 0, n_in),
                             .b_aux_density = popcount_range(b, n_in, dims.n_vars)};
    }
    czk_free(a);
    czk_free(b);
    return rc;
}

int czk_cs_record_parts_rep(czk_r1cs_rep *out, czk_cs_stats *stats, const czk_cs_parts *def,
                            czk_pool *pool, czk_err *err) {
    memset(out, 0, sizeof *out);
    const uint32_t C = def->n_parts;
    czk_cs *gcs = NULL;
    rep_job *j = czk_calloc(1, sizeof *j);
    void *globals = czk_calloc(1, def->globals_size > 0 ? def->globals_size : 1);
    int rc = CZK_OK;
    size_t n = 0;
    if (j == NULL || globals == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: out of memory", def->what);
        goto out;
    }
    if (C == 0) {
        rc = czk_err_set(err, CZK_EINVAL, "%s: a repeated form needs a part", def->what);
        goto out;
    }
    czk_cs_stats gs;
    if ((rc = record_global_part(def, globals, &gcs, &gs, err)) != CZK_OK)
        goto out;
    j->def = def;
    j->globals = globals;
    j->g_in = gs.n_inputs;
    j->g_aux = gs.n_aux;
    /* Part 0, and the parts that check it: the next and the last. */
    j->which[n++] = 0;
    if (C > 1)
        j->which[n++] = 1;
    if (C > 2)
        j->which[n++] = C - 1;
    czk_pool_run(pool, n, 1, rep_body, j);
    for (size_t k = 0; k < n; k++)
        if (j->rc[k] != CZK_OK) {
            rc = j->rc[k];
            if (err != NULL)
                *err = j->err[k];
            goto out;
        }
    for (size_t k = 1; k < n; k++)
        if (!czk_r1cs_same(&j->sys[0], &j->sys[k])) {
            rc = czk_err_set(err, CZK_EINVAL,
                             "%s: part %u's rows are not part 0's: the circuit has no repeated "
                             "form",
                             def->what, j->which[k]);
            goto out;
        }
    if ((rc = czk_cs_finish_part(gcs, &out->head, gs.n_inputs, err)) != CZK_OK)
        goto out;
    out->block = j->sys[0];
    memset(&j->sys[0], 0, sizeof(j->sys[0]));
    out->copies = C;
    if (stats != NULL)
        rc = rep_stats(stats, out, err);
    else
        rc = czk_r1cs_rep_dims(out, &(czk_r1cs){0}, err);
out:
    if (rc != CZK_OK)
        czk_r1cs_rep_clear(out);
    if (j != NULL)
        for (size_t k = 0; k < 3; k++)
            czk_r1cs_clear(&j->sys[k]);
    czk_free(j);
    czk_free(globals);
    czk_cs_destroy(gcs);
    return rc;
}
