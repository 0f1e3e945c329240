/*
 * The constraint system behind every Filecoin gadget (contract in cs.h).
 *
 * DESIGN. One enforce path serves all modes: canonicalise the three LCs (drop zero terms,
 * sort inputs-then-aux ascending, which is bellpepper's iteration order and therefore the
 * digest's term order), then optionally evaluate (CHECK), count (nnz and densities), hash
 * (DIGEST) and keep (RECORD). Counting keeps only O(aux) bits, so COUNT mode can walk the
 * 125 M-row WindowPoSt circuit. RECORD keeps rows in CSR with tagged variables because the
 * number of inputs, which decides where aux columns start, is known only at the end.
 *
 * Upstream code cited here was read at bellpepper-core 0.2.1 (@4bde01b).
 */
#include "filecoin/gadgets/cs.h"

#include <openssl/evp.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bytes.h"
#include "util/memclear.h"

/* A matrix being recorded: CSR with tagged variables (renumbered in czk_cs_finish_r1cs). */
typedef struct rec_matrix {
    uint64_t *row_ptr;
    size_t row_cap;
    uint32_t *cols;
    czk_fr *vals;
    size_t nnz, cap;
} rec_matrix;

/* The digest's byte stream (below, at its use). */
typedef struct digest_stream digest_stream;
static digest_stream *dg_new(void);
static void dg_free(digest_stream *d);

struct czk_cs {
    czk_cs_mode mode;
    unsigned flags;
    int status;
    czk_err err;
    size_t bad_row;
    int closed; /* digest finished or rows moved out: no more rows */

    uint64_t n_rows, n_inputs, n_aux;
    uint64_t nnz[3];

    /* Values (when flags & CZK_CS_VALUES). Bound (czk_cs_bind_values): aux_vals and aux_cap
     * are the caller's, and inputs after ONE go to in_ext (input k at in_ext[k - 1]) while
     * in_vals keeps ONE. */
    czk_fr *aux_vals, *in_vals;
    size_t aux_cap, in_cap;
    int bound;
    czk_fr *in_ext;
    size_t in_ext_cap;

    /* Density bitmaps (builder modes): one bit per aux, or per input. */
    uint64_t *a_aux_bits, *b_aux_bits, *b_in_bits;
    size_t aux_words, in_words;
    uint64_t a_aux_pop, b_aux_pop, b_in_pop;

    digest_stream *dg; /* DIGEST */

    rec_matrix rec[3]; /* RECORD */
};

/* Grows a czk_malloc'ed array to exactly `need` elements (none when it holds that many),
 * preserving its contents and zero-filling the new part (the bitmaps rely on it). alloc.h
 * has no realloc. */
static int grow_exact(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap)
        return CZK_OK;
    void *q = czk_calloc(need, elem);
    if (!q)
        return CZK_ENOMEM;
    if (*p) {
        memcpy(q, *p, *cap * elem);
        czk_free(*p);
    }
    *p = q;
    *cap = need;
    return CZK_OK;
}

/* As grow_exact, to at least `need` elements by doubling. */
static int grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap)
        return CZK_OK;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / elem)
            return CZK_ENOMEM;
        ncap *= 2;
    }
    return grow_exact(p, cap, ncap, elem);
}

/* As grow, for secret values: the old copy is cleared before it is freed. */
static int grow_values(czk_fr **p, size_t *cap, size_t need) {
    if (need <= *cap)
        return CZK_OK;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2 / sizeof(czk_fr))
            return CZK_ENOMEM;
        ncap *= 2;
    }
    czk_fr *q = czk_malloc(ncap * sizeof(czk_fr));
    if (!q)
        return CZK_ENOMEM;
    if (*p) {
        memcpy(q, *p, *cap * sizeof(czk_fr));
        czk_memclear_explicit(*p, *cap * sizeof(czk_fr));
        czk_free(*p);
    }
    *p = q;
    *cap = ncap;
    return CZK_OK;
}

static int fail(czk_cs *cs, int code) {
    if (cs->status == CZK_OK)
        cs->status = code;
    return cs->status;
}

int czk_cs_set_error(czk_cs *cs, int code, const char *fmt, ...) {
    if (cs->status != CZK_OK)
        return cs->status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cs->err.msg, sizeof(cs->err.msg), fmt, ap);
    va_end(ap);
    cs->err.code = code;
    cs->err.file = NULL;
    cs->err.line = 0;
    return fail(cs, code);
}

/* ---- linear combinations ---- */

void czk_lc_add(czk_lc *lc, czk_var v, const czk_fr *coeff) {
    if (czk_fr_is_zero(coeff))
        return;
    /* Linear search: Filecoin rows are short; the long ones (packs of up to 255 bits) add
     * distinct bits, each compared once against the others. */
    for (uint32_t i = lc->n; i-- > 0;) {
        if (lc->vars[i] == v) {
            czk_fr_add(&lc->coeffs[i], &lc->coeffs[i], coeff);
            return;
        }
    }
    if (lc->n >= lc->cap) {
        lc->overflow = 1;
        return;
    }
    lc->vars[lc->n] = v;
    lc->coeffs[lc->n] = *coeff;
    lc->n++;
}

void czk_lc_add_var(czk_lc *lc, czk_var v) {
    czk_lc_add(lc, v, &CZK_FR_ONE);
}

void czk_lc_sub_var(czk_lc *lc, czk_var v) {
    czk_fr m;
    czk_fr_neg(&m, &CZK_FR_ONE);
    czk_lc_add(lc, v, &m);
}

/* ---- create / destroy ---- */

int czk_cs_create(czk_cs **out, czk_cs_mode mode, unsigned flags, czk_err *err) {
    int rc = CZK_OK;
    czk_cs *cs = NULL;
    if (!out)
        return czk_err_set(err, CZK_EINVAL, "czk_cs_create: out is NULL");
    *out = NULL;
    if (mode != CZK_CS_COUNT && mode != CZK_CS_RECORD && mode != CZK_CS_WITNESS)
        return czk_err_set(err, CZK_EINVAL, "czk_cs_create: unknown mode %d", (int)mode);
    if (flags & ~(unsigned)(CZK_CS_VALUES | CZK_CS_CHECK | CZK_CS_DIGEST))
        return czk_err_set(err, CZK_EINVAL, "czk_cs_create: unknown flags 0x%x", flags);
    if (mode == CZK_CS_WITNESS && (flags & CZK_CS_DIGEST))
        return czk_err_set(err, CZK_EINVAL, "czk_cs_create: no digest in WITNESS mode");
    if (mode == CZK_CS_WITNESS || (flags & CZK_CS_CHECK))
        flags |= CZK_CS_VALUES;
    cs = czk_calloc(1, sizeof(*cs));
    if (!cs)
        return czk_err_set(err, CZK_ENOMEM, "czk_cs_create: out of memory");
    cs->mode = mode;
    cs->flags = flags;
    cs->bad_row = SIZE_MAX;
    if (flags & CZK_CS_DIGEST) {
        cs->dg = dg_new();
        if (!cs->dg) {
            rc = czk_err_set(err, CZK_ENOMEM, "czk_cs_create: cannot start SHA-256");
            goto out;
        }
    }
    if (mode == CZK_CS_RECORD) {
        /* row_ptr[0] = 0 must exist even for an empty system (NULL means "C not stored"). */
        for (int m = 0; m < 3; m++) {
            if (grow((void **)&cs->rec[m].row_ptr, &cs->rec[m].row_cap, 1, sizeof(uint64_t)) !=
                CZK_OK) {
                rc = czk_err_set(err, CZK_ENOMEM, "czk_cs_create: out of memory");
                goto out;
            }
        }
    }
    /* ONE is input 0 (the prover's first alloc_input, FILECOIN.md §1). */
    czk_var one;
    rc = czk_cs_alloc_input(cs, &one, &CZK_FR_ONE);
    if (rc != CZK_OK) {
        rc = czk_err_set(err, rc, "czk_cs_create: out of memory");
        goto out;
    }
    *out = cs;
    cs = NULL;
out:
    czk_cs_destroy(cs);
    return rc;
}

void czk_cs_destroy(czk_cs *cs) {
    if (!cs)
        return;
    if (cs->aux_vals && !cs->bound) {
        czk_memclear_explicit(cs->aux_vals, cs->aux_cap * sizeof(czk_fr));
        czk_free(cs->aux_vals);
    }
    if (cs->in_vals) {
        czk_memclear_explicit(cs->in_vals, cs->in_cap * sizeof(czk_fr));
        czk_free(cs->in_vals);
    }
    czk_free(cs->a_aux_bits);
    czk_free(cs->b_aux_bits);
    czk_free(cs->b_in_bits);
    dg_free(cs->dg);
    for (int m = 0; m < 3; m++) {
        czk_free(cs->rec[m].row_ptr);
        czk_free(cs->rec[m].cols);
        czk_free(cs->rec[m].vals);
    }
    czk_free(cs);
}

czk_cs_mode czk_cs_get_mode(const czk_cs *cs) {
    return cs->mode;
}

int czk_cs_builds_rows(const czk_cs *cs) {
    return cs->mode != CZK_CS_WITNESS || (cs->flags & CZK_CS_CHECK);
}

int czk_cs_has_values(const czk_cs *cs) {
    return (cs->flags & CZK_CS_VALUES) != 0;
}

int czk_cs_status(const czk_cs *cs) {
    return cs->status;
}
size_t czk_cs_bad_row(const czk_cs *cs) {
    return cs->bad_row;
}
const czk_err *czk_cs_error(const czk_cs *cs) {
    return &cs->err;
}

/* ---- allocation ---- */

/*
 * Allocates n consecutive inputs or aux (n >= 1) and returns the first index; with values,
 * *slots gets their value slots (valid until the next allocation), else NULL. One path for
 * single variables and blocks, so that both keep the same checks and growth.
 */
static int alloc_n(czk_cs *cs, size_t n, int input, size_t *first, czk_fr **slots) {
    uint64_t *count = input ? &cs->n_inputs : &cs->n_aux;
    if (n > (uint64_t)CZK_VAR_INDEX_MAX + 1 - *count)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL, "czk_cs_alloc: more than 2^31 %s",
                                    input ? "inputs" : "aux"));
    size_t idx = (size_t)*count;
    *slots = NULL;
    if (cs->flags & CZK_CS_VALUES) {
        if (cs->bound) {
            /* Input 0 (ONE) is allocated before binding, so a bound input has idx >= 1. */
            size_t cap = input ? cs->in_ext_cap + 1 : cs->aux_cap;
            if (idx > cap || n > cap - idx)
                return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                            "czk_cs_alloc: %s %zu is beyond the caller's %zu",
                                            input ? "input" : "aux", idx + n - 1, cap));
            *slots = input ? &cs->in_ext[idx - 1] : &cs->aux_vals[idx];
        } else {
            czk_fr **vals = input ? &cs->in_vals : &cs->aux_vals;
            size_t *cap = input ? &cs->in_cap : &cs->aux_cap;
            if (grow_values(vals, cap, idx + n) != CZK_OK)
                return fail(cs, czk_err_set(&cs->err, CZK_ENOMEM, "czk_cs_alloc: out of memory"));
            *slots = &(*vals)[idx];
        }
    }
    if (cs->mode != CZK_CS_WITNESS) {
        size_t words = (idx + n - 1) / 64 + 1;
        int rc = CZK_OK;
        if (input) {
            rc = grow((void **)&cs->b_in_bits, &cs->in_words, words, sizeof(uint64_t));
        } else {
            size_t a_cap = cs->aux_words, b_cap = cs->aux_words;
            rc = grow((void **)&cs->a_aux_bits, &a_cap, words, sizeof(uint64_t));
            if (rc == CZK_OK)
                rc = grow((void **)&cs->b_aux_bits, &b_cap, words, sizeof(uint64_t));
            if (rc == CZK_OK)
                cs->aux_words = a_cap;
        }
        if (rc != CZK_OK)
            return fail(cs, czk_err_set(&cs->err, CZK_ENOMEM, "czk_cs_alloc: out of memory"));
    }
    *count += n;
    *first = idx;
    return CZK_OK;
}

static int alloc_common(czk_cs *cs, czk_var *out, const czk_fr *value, int input) {
    if (cs->status != CZK_OK)
        return cs->status;
    if (!out)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL, "czk_cs_alloc: out is NULL"));
    int values = (cs->flags & CZK_CS_VALUES) != 0;
    if (values && !value)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                    "czk_cs_alloc: no value for %s %llu in a system with values",
                                    input ? "input" : "aux",
                                    (unsigned long long)(input ? cs->n_inputs : cs->n_aux)));
    /* Copy first: `value` may point into the array that growing frees (a gadget passing
     * czk_cs_value of another variable, as pick does). */
    czk_fr v = values ? *value : CZK_FR_ZERO;
    size_t idx = 0;
    czk_fr *slot = NULL;
    int rc = alloc_n(cs, 1, input, &idx, &slot);
    if (rc != CZK_OK)
        return rc;
    if (slot)
        *slot = v;
    *out = (czk_var)idx | (input ? CZK_VAR_INPUT : 0u);
    return CZK_OK;
}

int czk_cs_alloc_aux_block(czk_cs *cs, size_t n, czk_var *first, czk_fr **vals) {
    if (cs->status != CZK_OK)
        return cs->status;
    if (!first || !vals)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL, "czk_cs_alloc_aux_block: NULL output"));
    *vals = NULL;
    if (n == 0) {
        *first = (czk_var)cs->n_aux;
        return CZK_OK;
    }
    size_t idx = 0;
    int rc = alloc_n(cs, n, 0, &idx, vals);
    if (rc == CZK_OK)
        *first = (czk_var)idx;
    return rc;
}

int czk_cs_bind_values(czk_cs *cs, czk_fr *inputs, size_t n_inputs, czk_fr *aux, size_t n_aux) {
    if (cs->status != CZK_OK)
        return cs->status;
    if (cs->mode != CZK_CS_WITNESS || cs->bound || cs->n_inputs != 1 || cs->n_aux != 0 ||
        (!inputs && n_inputs) || (!aux && n_aux))
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                    "czk_cs_bind_values: not a fresh WITNESS-mode system, or "
                                    "NULL storage"));
    if (cs->aux_vals) {
        czk_memclear_explicit(cs->aux_vals, cs->aux_cap * sizeof(czk_fr));
        czk_free(cs->aux_vals);
    }
    cs->aux_vals = aux;
    cs->aux_cap = n_aux;
    cs->in_ext = inputs;
    cs->in_ext_cap = n_inputs;
    cs->bound = 1;
    return CZK_OK;
}

int czk_cs_witness_at(czk_cs *cs, size_t next_input, size_t next_aux) {
    if (cs->status != CZK_OK)
        return cs->status;
    /* Only the counters move: a WITNESS-mode system keeps no bitmaps, digest or rows that
     * would have to start at the new indices, and its values are the caller's. */
    if (!cs->bound || cs->n_inputs != 1 || cs->n_aux != 0 || cs->n_rows != 0)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                    "czk_cs_witness_at: not a freshly bound WITNESS-mode system"));
    if (next_input == 0 || next_input > cs->in_ext_cap + 1 || next_aux > cs->aux_cap)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                    "czk_cs_witness_at: input %zu or aux %zu is beyond the "
                                    "caller's %zu inputs and %zu aux",
                                    next_input, next_aux, cs->in_ext_cap + 1, cs->aux_cap));
    cs->n_inputs = next_input;
    cs->n_aux = next_aux;
    return CZK_OK;
}

int czk_cs_record_at(czk_cs *cs, size_t next_input, size_t next_aux) {
    if (cs->status != CZK_OK)
        return cs->status;
    if (cs->mode != CZK_CS_RECORD || (cs->flags & (CZK_CS_VALUES | CZK_CS_DIGEST)) ||
        cs->n_inputs != 1 || cs->n_aux != 0 || cs->n_rows != 0 || next_input == 0)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                    "czk_cs_record_at: not a fresh RECORD-mode system without "
                                    "values or digest, or input 0"));
    cs->n_inputs = next_input;
    cs->n_aux = next_aux;
    /* The bitmaps cover the earlier part's variables too: this part's rows may name them. */
    return czk_cs_reserve(cs, next_input, next_aux);
}

int czk_cs_record_reserve(czk_cs *cs, size_t n_rows, const uint64_t nnz[3]) {
    if (cs->status != CZK_OK)
        return cs->status;
    if (cs->mode != CZK_CS_RECORD || !cs->rec[0].row_ptr)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                    "czk_cs_record_reserve: not RECORD mode, or rows taken"));
    for (int m = 0; m < 3; m++) {
        rec_matrix *r = &cs->rec[m];
        size_t cc = r->cap, vc = r->cap;
        if (grow_exact((void **)&r->row_ptr, &r->row_cap, n_rows + 1, sizeof(uint64_t)) != CZK_OK ||
            grow_exact((void **)&r->cols, &cc, (size_t)nnz[m], sizeof(uint32_t)) != CZK_OK ||
            grow_exact((void **)&r->vals, &vc, (size_t)nnz[m], sizeof(czk_fr)) != CZK_OK)
            return fail(cs,
                        czk_err_set(&cs->err, CZK_ENOMEM, "czk_cs_record_reserve: out of memory"));
        r->cap = cc < vc ? cc : vc;
    }
    return CZK_OK;
}

void czk_cs_density_or(const czk_cs *cs, uint64_t *a_aux, uint64_t *b_aux, size_t aux_words,
                       uint64_t *b_in, size_t in_words) {
    const size_t na = cs->aux_words < aux_words ? cs->aux_words : aux_words;
    const size_t ni = cs->in_words < in_words ? cs->in_words : in_words;
    for (size_t i = 0; cs->a_aux_bits && i < na; i++) {
        a_aux[i] |= cs->a_aux_bits[i];
        b_aux[i] |= cs->b_aux_bits[i];
    }
    for (size_t i = 0; cs->b_in_bits && i < ni; i++)
        b_in[i] |= cs->b_in_bits[i];
}

int czk_cs_reserve(czk_cs *cs, size_t n_inputs, size_t n_aux) {
    int rc = CZK_OK;
    if (cs->status != CZK_OK)
        return cs->status;
    if ((cs->flags & CZK_CS_VALUES) && !cs->bound) {
        if (n_inputs > cs->in_cap)
            rc = grow_values(&cs->in_vals, &cs->in_cap, n_inputs);
        if (rc == CZK_OK && n_aux > cs->aux_cap)
            rc = grow_values(&cs->aux_vals, &cs->aux_cap, n_aux);
    }
    if (rc == CZK_OK && cs->mode != CZK_CS_WITNESS) {
        size_t a_cap = cs->aux_words, b_cap = cs->aux_words;
        rc = grow((void **)&cs->b_in_bits, &cs->in_words, n_inputs / 64 + 1, sizeof(uint64_t));
        if (rc == CZK_OK)
            rc = grow((void **)&cs->a_aux_bits, &a_cap, n_aux / 64 + 1, sizeof(uint64_t));
        if (rc == CZK_OK)
            rc = grow((void **)&cs->b_aux_bits, &b_cap, n_aux / 64 + 1, sizeof(uint64_t));
        if (rc == CZK_OK)
            cs->aux_words = a_cap;
    }
    if (rc != CZK_OK)
        return fail(cs, czk_err_set(&cs->err, rc, "czk_cs_reserve: out of memory"));
    return CZK_OK;
}

int czk_cs_alloc(czk_cs *cs, czk_var *out, const czk_fr *value) {
    return alloc_common(cs, out, value, 0);
}

int czk_cs_alloc_input(czk_cs *cs, czk_var *out, const czk_fr *value) {
    return alloc_common(cs, out, value, 1);
}

const czk_fr *czk_cs_value(const czk_cs *cs, czk_var v) {
    if (!(cs->flags & CZK_CS_VALUES))
        return NULL;
    uint32_t i = czk_var_index(v);
    if (czk_var_is_input(v)) {
        if (i >= cs->n_inputs)
            return NULL;
        return i != 0 && cs->bound ? &cs->in_ext[i - 1] : &cs->in_vals[i];
    }
    return i < cs->n_aux ? &cs->aux_vals[i] : NULL;
}

const czk_fr *czk_cs_aux_values(const czk_cs *cs, size_t *n) {
    if (n)
        *n = (size_t)cs->n_aux;
    return (cs->flags & CZK_CS_VALUES) && !cs->bound ? cs->aux_vals : NULL;
}

const czk_fr *czk_cs_input_values(const czk_cs *cs, size_t *n) {
    if (n)
        *n = (size_t)cs->n_inputs;
    return (cs->flags & CZK_CS_VALUES) && !cs->bound ? cs->in_vals : NULL;
}

/* ---- enforce ---- */

/* Sort key: inputs (tag set) before aux, each ascending, bellpepper's iteration order. */
static inline uint32_t var_key(czk_var v) {
    return v ^ CZK_VAR_INPUT;
}

/* Drops zero terms and sorts; checks that every variable exists. */
static int canonicalise(czk_cs *cs, czk_lc *lc, const char *side) {
    if (lc->overflow)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL, "row %llu: LC %s exceeds its capacity %u",
                                    (unsigned long long)cs->n_rows, side, lc->cap));
    uint32_t n = 0;
    for (uint32_t i = 0; i < lc->n; i++) {
        czk_var v = lc->vars[i];
        uint64_t lim = czk_var_is_input(v) ? cs->n_inputs : cs->n_aux;
        if (czk_var_index(v) >= lim)
            return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                        "row %llu: LC %s names %s %u, which does not exist",
                                        (unsigned long long)cs->n_rows, side,
                                        czk_var_is_input(v) ? "input" : "aux", czk_var_index(v)));
        if (czk_fr_is_zero(&lc->coeffs[i]))
            continue;
        lc->vars[n] = v;
        lc->coeffs[n] = lc->coeffs[i];
        n++;
    }
    lc->n = n;
    /* Insertion sort: rows are short, and long ones (packs) arrive nearly sorted. */
    for (uint32_t i = 1; i < n; i++) {
        czk_var v = lc->vars[i];
        czk_fr c = lc->coeffs[i];
        uint32_t k = var_key(v), j = i;
        while (j > 0 && var_key(lc->vars[j - 1]) > k) {
            lc->vars[j] = lc->vars[j - 1];
            lc->coeffs[j] = lc->coeffs[j - 1];
            j--;
        }
        lc->vars[j] = v;
        lc->coeffs[j] = c;
    }
    return CZK_OK;
}

static void lc_eval(const czk_cs *cs, const czk_lc *lc, czk_fr *r) {
    czk_fr t;
    czk_fr_set_zero(r);
    for (uint32_t i = 0; i < lc->n; i++) {
        czk_fr_mul(&t, &lc->coeffs[i], czk_cs_value(cs, lc->vars[i]));
        czk_fr_add(r, r, &t);
    }
}

/* Sets bit i of a bitmap, counting it in *pop when it was clear. */
static inline void set_bit(uint64_t *bits, uint64_t i, uint64_t *pop) {
    uint64_t m = 1ull << (i % 64);
    if (!(bits[i / 64] & m)) {
        bits[i / 64] |= m;
        *pop += 1;
    }
}

/* The digest's byte stream (FILECOIN.md §8), fed to SHA-256 in 64 KiB pieces: one update per
 * linear combination cost about as much as the hashing itself at 125 M rows. Coefficients'
 * canonical bytes are cached, direct-mapped on their limbs: a circuit has few distinct
 * coefficients (1, −1, powers of two, Poseidon's constants) and converting each term's out of
 * Montgomery form was a quarter of a 32 GiB WindowPoSt digest. */
#define DG_BUF 65536
#define DG_SLOTS 4096
struct digest_stream {
    EVP_MD_CTX *md;
    size_t len;
    uint8_t buf[DG_BUF];
    czk_fr key[DG_SLOTS];
    uint8_t bytes[DG_SLOTS][32];
    uint8_t used[DG_SLOTS];
};

static void dg_free(digest_stream *d) {
    if (d != NULL) {
        if (d->md != NULL)
            EVP_MD_CTX_free(d->md);
        czk_free(d);
    }
}

static digest_stream *dg_new(void) {
    digest_stream *d = czk_calloc(1, sizeof *d);
    if (d == NULL)
        return NULL;
    d->md = EVP_MD_CTX_new();
    if (d->md == NULL || EVP_DigestInit_ex(d->md, EVP_sha256(), NULL) != 1) {
        dg_free(d);
        return NULL;
    }
    return d;
}

static int dg_flush(digest_stream *d) {
    int ok = d->len == 0 || EVP_DigestUpdate(d->md, d->buf, d->len) == 1;
    d->len = 0;
    return ok ? CZK_OK : CZK_EINTERNAL;
}

/* Room for n more bytes in the buffer. */
static int dg_room(digest_stream *d, size_t n) {
    return d->len + n <= DG_BUF ? CZK_OK : dg_flush(d);
}

/* One term: var id as int64 LE (aux k -> k, input k -> -(k+1)), then the canonical coefficient
 * as 32 bytes LE. */
static int dg_term(digest_stream *d, int64_t id, const czk_fr *coeff) {
    if (dg_room(d, 40) != CZK_OK)
        return CZK_EINTERNAL;
    uint8_t *out = d->buf + d->len;
    czk_bytes_store_le64(out, (uint64_t)id);
    uint64_t h = (coeff->l[0] ^ (coeff->l[1] << 17) ^ (coeff->l[2] >> 5) ^ coeff->l[3]) *
                 0x9e3779b97f4a7c15ULL;
    size_t slot = (size_t)(h >> 52); /* 12 bits: DG_SLOTS */
    if (!d->used[slot] || memcmp(&d->key[slot], coeff, sizeof *coeff) != 0) {
        d->key[slot] = *coeff;
        czk_fr_to_bytes_le(d->bytes[slot], coeff);
        d->used[slot] = 1;
    }
    memcpy(out + 8, d->bytes[slot], 32);
    d->len += 40;
    return CZK_OK;
}

static int dg_byte(digest_stream *d, uint8_t b) {
    if (dg_room(d, 1) != CZK_OK)
        return CZK_EINTERNAL;
    d->buf[d->len++] = b;
    return CZK_OK;
}

static int64_t var_id(czk_var v) {
    return czk_var_is_input(v) ? -(int64_t)czk_var_index(v) - 1 : (int64_t)czk_var_index(v);
}

static int digest_lc(digest_stream *d, const czk_lc *lc) {
    for (uint32_t i = 0; i < lc->n; i++)
        if (dg_term(d, var_id(lc->vars[i]), &lc->coeffs[i]) != CZK_OK)
            return CZK_EINTERNAL;
    return dg_byte(d, '|');
}

/* The prover's input rows, A = {input_i: 1}, B = C = ∅, for i < n_inputs (FILECOIN.md §1),
 * then the digest. */
static int dg_finish(digest_stream *d, uint64_t n_inputs, uint8_t out[32]) {
    for (uint64_t i = 0; i < n_inputs; i++)
        if (dg_term(d, -(int64_t)i - 1, &CZK_FR_ONE) != CZK_OK || dg_byte(d, '|') != CZK_OK ||
            dg_byte(d, '|') != CZK_OK || dg_byte(d, '|') != CZK_OK)
            return CZK_EINTERNAL;
    unsigned len = 0;
    if (dg_flush(d) != CZK_OK || EVP_DigestFinal_ex(d->md, out, &len) != 1 || len != 32)
        return CZK_EINTERNAL;
    return CZK_OK;
}

static int record_lc(rec_matrix *m, const czk_lc *lc, uint64_t row) {
    if (grow((void **)&m->row_ptr, &m->row_cap, row + 2, sizeof(uint64_t)) != CZK_OK)
        return CZK_ENOMEM;
    if (m->nnz + lc->n > m->cap) {
        size_t cc = m->cap, vc = m->cap;
        if (grow((void **)&m->cols, &cc, m->nnz + lc->n, sizeof(uint32_t)) != CZK_OK ||
            grow((void **)&m->vals, &vc, m->nnz + lc->n, sizeof(czk_fr)) != CZK_OK)
            return CZK_ENOMEM;
        m->cap = cc < vc ? cc : vc;
    }
    /* An empty side before any term was recorded has no arrays yet, and memcpy to NULL is
     * undefined even for 0 bytes. */
    if (lc->n != 0) {
        memcpy(m->cols + m->nnz, lc->vars, lc->n * sizeof(uint32_t));
        memcpy(m->vals + m->nnz, lc->coeffs, lc->n * sizeof(czk_fr));
    }
    m->nnz += lc->n;
    m->row_ptr[row + 1] = m->nnz;
    return CZK_OK;
}

int czk_cs_enforce(czk_cs *cs, czk_lc *a, czk_lc *b, czk_lc *c) {
    if (cs->status != CZK_OK)
        return cs->status;
    if (cs->closed)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL, "czk_cs_enforce: system is finished"));
    if (!czk_cs_builds_rows(cs)) {
        cs->n_rows++;
        return CZK_OK;
    }
    if (!a || !b || !c)
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL, "czk_cs_enforce: NULL LC"));
    czk_lc *lcs[3] = {a, b, c};
    static const char *names[3] = {"A", "B", "C"};
    for (int m = 0; m < 3; m++) {
        int rc = canonicalise(cs, lcs[m], names[m]);
        if (rc != CZK_OK)
            return rc;
    }
    uint64_t row = cs->n_rows;
    if (cs->flags & CZK_CS_CHECK) {
        czk_fr va, vb, vc, ab;
        lc_eval(cs, a, &va);
        lc_eval(cs, b, &vb);
        lc_eval(cs, c, &vc);
        czk_fr_mul(&ab, &va, &vb);
        if (!czk_fr_equal(&ab, &vc)) {
            cs->bad_row = (size_t)row;
            return fail(cs, czk_err_set(&cs->err, CZK_EVERIFY, "row %llu is not satisfied",
                                        (unsigned long long)row));
        }
    }
    if (cs->mode != CZK_CS_WITNESS) {
        for (int m = 0; m < 3; m++)
            cs->nnz[m] += lcs[m]->n;
        for (uint32_t i = 0; i < a->n; i++)
            if (!czk_var_is_input(a->vars[i]))
                set_bit(cs->a_aux_bits, a->vars[i], &cs->a_aux_pop);
        for (uint32_t i = 0; i < b->n; i++) {
            czk_var v = b->vars[i];
            if (czk_var_is_input(v))
                set_bit(cs->b_in_bits, czk_var_index(v), &cs->b_in_pop);
            else
                set_bit(cs->b_aux_bits, v, &cs->b_aux_pop);
        }
    }
    if (cs->dg) {
        for (int m = 0; m < 3; m++)
            if (digest_lc(cs->dg, lcs[m]) != CZK_OK)
                return fail(cs, czk_err_set(&cs->err, CZK_EINTERNAL, "SHA-256 update failed"));
    }
    if (cs->mode == CZK_CS_RECORD) {
        for (int m = 0; m < 3; m++)
            if (record_lc(&cs->rec[m], lcs[m], row) != CZK_OK)
                return fail(cs, czk_err_set(&cs->err, CZK_ENOMEM, "row %llu: out of memory",
                                            (unsigned long long)row));
    }
    cs->n_rows++;
    return CZK_OK;
}

int czk_cs_count_rows(czk_cs *cs, size_t n) {
    if (cs->status != CZK_OK)
        return cs->status;
    if (cs->closed || czk_cs_builds_rows(cs))
        return fail(cs, czk_err_set(&cs->err, CZK_EINVAL,
                                    "czk_cs_count_rows: the system builds rows, or is finished"));
    cs->n_rows += n;
    return CZK_OK;
}

void czk_cs_get_stats(const czk_cs *cs, czk_cs_stats *out) {
    out->n_rows = cs->n_rows;
    out->n_inputs = cs->n_inputs;
    out->n_aux = cs->n_aux;
    out->nnz_a = cs->nnz[0];
    out->nnz_b = cs->nnz[1];
    out->nnz_c = cs->nnz[2];
    out->a_aux_density = cs->a_aux_pop;
    out->b_input_density = cs->b_in_pop;
    out->b_aux_density = cs->b_aux_pop;
}

int czk_cs_digest_finish(czk_cs *cs, uint8_t out[32], czk_err *err) {
    if (cs->status != CZK_OK)
        return czk_err_set(err, cs->status, "czk_cs_digest_finish: %s", cs->err.msg);
    if (!cs->dg || cs->closed)
        return czk_err_set(err, CZK_EINVAL,
                           "czk_cs_digest_finish: no DIGEST flag, or the system is finished");
    if (dg_finish(cs->dg, cs->n_inputs, out) != CZK_OK)
        return czk_err_set(err, CZK_EINTERNAL, "czk_cs_digest_finish: SHA-256 failed");
    cs->closed = 1;
    return CZK_OK;
}

int czk_cs_finish_r1cs(czk_cs *cs, czk_r1cs *out, czk_err *err) {
    return czk_cs_finish_part(cs, out, cs->n_inputs, err);
}

int czk_cs_finish_part(czk_cs *cs, czk_r1cs *out, uint64_t n_inputs, czk_err *err) {
    if (!out)
        return czk_err_set(err, CZK_EINVAL, "czk_cs_finish_r1cs: out is NULL");
    memset(out, 0, sizeof(*out));
    if (cs->status != CZK_OK)
        return czk_err_set(err, cs->status, "czk_cs_finish_r1cs: %s", cs->err.msg);
    if (cs->mode != CZK_CS_RECORD || !cs->rec[0].row_ptr)
        return czk_err_set(err, CZK_EINVAL,
                           "czk_cs_finish_r1cs: not RECORD mode, or rows already taken");
    if (n_inputs < cs->n_inputs || n_inputs + cs->n_aux > (1ull << 32))
        return czk_err_set(err, CZK_EINVAL,
                           "czk_cs_finish_r1cs: more than 2^32 variables, or fewer inputs than "
                           "the system made");
    /* Renumber in place: input k -> k, aux j -> n_inputs + j. Order within a row is kept
     * ascending because all inputs sort before all aux in both numberings. */
    uint32_t base = (uint32_t)n_inputs;
    czk_r1cs_matrix *dst[3] = {&out->a, &out->b, &out->c};
    for (int m = 0; m < 3; m++) {
        rec_matrix *r = &cs->rec[m];
        for (size_t i = 0; i < r->nnz; i++) {
            czk_var v = r->cols[i];
            r->cols[i] = czk_var_is_input(v) ? czk_var_index(v) : base + v;
        }
        /* The arrays grew by doubling into zero-filled, so resident, copies: up to half of
         * each is capacity that the rows do not use and the engine's budget (czk_r1cs_bytes)
         * does not count; some 18 GiB for a 32 GiB PoRep partition (BENCHMARKS.md run 90). */
        czk_shrink(r->row_ptr, ((size_t)cs->n_rows + 1) * sizeof(uint64_t));
        if (r->nnz > 0) {
            czk_shrink(r->cols, r->nnz * sizeof(uint32_t));
            czk_shrink(r->vals, r->nnz * sizeof(czk_fr));
        }
        dst[m]->row_ptr = r->row_ptr;
        dst[m]->cols = r->cols;
        dst[m]->vals = r->vals;
        memset(r, 0, sizeof(*r));
    }
    out->n_constraints = (size_t)cs->n_rows;
    out->n_vars = (size_t)(n_inputs + cs->n_aux);
    out->n_public = (size_t)n_inputs - 1;
    cs->closed = 1;
    return CZK_OK;
}

int czk_cs_witness(const czk_cs *cs, czk_fr **out, size_t *n, czk_err *err) {
    if (!out || !n)
        return czk_err_set(err, CZK_EINVAL, "czk_cs_witness: NULL output");
    *out = NULL;
    *n = 0;
    if (!(cs->flags & CZK_CS_VALUES))
        return czk_err_set(err, CZK_EINVAL, "czk_cs_witness: the system has no values");
    if (cs->bound)
        return czk_err_set(err, CZK_EINVAL, "czk_cs_witness: the values are in caller memory");
    size_t total = (size_t)(cs->n_inputs + cs->n_aux);
    czk_fr *w = czk_malloc(total * sizeof(czk_fr));
    if (!w)
        return czk_err_set(err, CZK_ENOMEM, "czk_cs_witness: out of memory (%zu values)", total);
    memcpy(w, cs->in_vals, (size_t)cs->n_inputs * sizeof(czk_fr));
    if (cs->n_aux)
        memcpy(w + cs->n_inputs, cs->aux_vals, (size_t)cs->n_aux * sizeof(czk_fr));
    *out = w;
    *n = total;
    return CZK_OK;
}

int czk_cs_r1cs_digest(const czk_r1cs *r, uint8_t out[32], czk_err *err) {
    int rc = CZK_OK;
    if (!r || !r->a.row_ptr || !r->b.row_ptr || !r->c.row_ptr)
        return czk_err_set(err, CZK_EINVAL, "czk_cs_r1cs_digest: a matrix is not stored");
    digest_stream *d = dg_new();
    if (!d)
        return czk_err_set(err, CZK_ENOMEM, "czk_cs_r1cs_digest: cannot start SHA-256");
    const czk_r1cs_matrix *ms[3] = {&r->a, &r->b, &r->c};
    uint64_t n_in = (uint64_t)r->n_public + 1;
    for (size_t row = 0; row < r->n_constraints && rc == CZK_OK; row++) {
        for (int m = 0; m < 3 && rc == CZK_OK; m++) {
            for (uint64_t k = ms[m]->row_ptr[row]; k < ms[m]->row_ptr[row + 1] && rc == CZK_OK;
                 k++) {
                if (czk_fr_is_zero(&ms[m]->vals[k]))
                    continue;
                uint64_t col = ms[m]->cols[k];
                int64_t id = col < n_in ? -(int64_t)col - 1 : (int64_t)(col - n_in);
                rc = dg_term(d, id, &ms[m]->vals[k]);
            }
            if (rc == CZK_OK)
                rc = dg_byte(d, '|');
        }
    }
    if (rc == CZK_OK)
        rc = dg_finish(d, n_in, out);
    if (rc != CZK_OK)
        rc = czk_err_set(err, CZK_EINTERNAL, "czk_cs_r1cs_digest: SHA-256 failed");
    dg_free(d);
    return rc;
}
