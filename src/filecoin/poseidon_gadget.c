/*
 * neptune's legacy Poseidon circuit (contract in poseidon_gadget.h). The symbolic builder
 * follows neptune's src/circuit.rs (hash, full_round, partial_round, product_mds, quintic_s_box,
 * square_sum, mul_sum, ensure_allocated) call for call; the hash walks the same rounds to give
 * each aux its value, and takes the rows from the template.
 */
#include "filecoin/poseidon_gadget.h"

#include <pthread.h>
#include <string.h>

/* ---- symbolic linear combinations ---- */

/* A state element as neptune's Elt::Num: terms on references, merged as bellpepper's LC maps. */
typedef struct sym {
    uint32_t n;
    uint32_t ref[CZK_POSEIDON_CIRCUIT_MAX_LC];
    czk_fr c[CZK_POSEIDON_CIRCUIT_MAX_LC];
} sym;

typedef struct builder {
    czk_poseidon_circuit *pc;
    uint32_t n_terms;
    uint32_t n_local; /* aux allocated so far = rows emitted so far */
    int overflow;
} builder;

static void sym_set(sym *s, uint32_t ref, const czk_fr *c) {
    s->n = 1;
    s->ref[0] = ref;
    s->c[0] = *c;
}

/* s += k·ref, merging with an existing term on ref (LinearCombination's add). */
static void sym_add(builder *b, sym *s, uint32_t ref, const czk_fr *k) {
    for (uint32_t i = 0; i < s->n; i++) {
        if (s->ref[i] == ref) {
            czk_fr_add(&s->c[i], &s->c[i], k);
            return;
        }
    }
    if (s->n == CZK_POSEIDON_CIRCUIT_MAX_LC) {
        b->overflow = 1;
        return;
    }
    s->ref[s->n] = ref;
    s->c[s->n] = *k;
    s->n++;
}

/* acc += k·s (Num::scale then Num::add). */
static void sym_add_scaled(builder *b, sym *acc, const sym *s, const czk_fr *k) {
    for (uint32_t i = 0; i < s->n; i++) {
        czk_fr m;
        czk_fr_mul(&m, &s->c[i], k);
        sym_add(b, acc, s->ref[i], &m);
    }
}

/* Appends one side of the current row, dropping zero terms (the prover ignores them). */
static void emit_side(builder *b, const sym *s) {
    czk_poseidon_circuit *pc = b->pc;
    for (uint32_t i = 0; i < s->n; i++) {
        if (czk_fr_is_zero(&s->c[i]))
            continue;
        if (b->n_terms == CZK_POSEIDON_CIRCUIT_MAX_TERMS) {
            b->overflow = 1;
            return;
        }
        pc->ref[b->n_terms] = s->ref[i];
        pc->coeff[b->n_terms] = s->c[i];
        b->n_terms++;
    }
}

/* alloc (the next local aux) and its row A·B = C; C may mention the new aux. */
static void emit_row(builder *b, const sym *a, const sym *bb, const sym *c) {
    czk_poseidon_circuit *pc = b->pc;
    uint32_t k = b->n_local;
    if (k == CZK_POSEIDON_CIRCUIT_MAX_ROWS) {
        b->overflow = 1;
        return;
    }
    pc->start[3 * k] = b->n_terms;
    emit_side(b, a);
    pc->start[3 * k + 1] = b->n_terms;
    emit_side(b, bb);
    pc->start[3 * k + 2] = b->n_terms;
    emit_side(b, c);
    pc->start[3 * k + 3] = b->n_terms;
    b->n_local++;
}

/* The S-box rows after the input v is allocated (or is an input in round 0):
 * y2 = v² (square, or square_sum with the pre-key), y4 = y2², y5 = v·y4 + q (mul_sum: A is
 * `b` = v, plus the pre-key; B is `a` = y4; C = y5 − q·ONE). Returns y5's reference. */
static uint32_t sbox_rows(builder *b, const sym *v_lc, const czk_fr *q) {
    sym a, bb, c;
    uint32_t y2 = b->n_local, y4 = y2 + 1, y5 = y2 + 2;
    /* y2 */
    sym_set(&c, y2, &CZK_FR_ONE);
    emit_row(b, v_lc, v_lc, &c);
    /* y4 = y2·y2 */
    sym_set(&a, y2, &CZK_FR_ONE);
    sym_set(&c, y4, &CZK_FR_ONE);
    emit_row(b, &a, &a, &c);
    /* y5 */
    sym_set(&bb, y4, &CZK_FR_ONE);
    sym_set(&c, y5, &CZK_FR_ONE);
    if (q != NULL) {
        czk_fr nq;
        czk_fr_neg(&nq, q);
        sym_add(b, &c, CZK_POSEIDON_REF_ONE, &nq);
    }
    emit_row(b, v_lc, &bb, &c);
    return y5;
}

/* ensure_allocated: alloc v; row L·ONE = v. Returns v's reference. */
static uint32_t ensure_allocated(builder *b, const sym *l) {
    sym one, c;
    uint32_t v = b->n_local;
    sym_set(&one, CZK_POSEIDON_REF_ONE, &CZK_FR_ONE);
    sym_set(&c, v, &CZK_FR_ONE);
    emit_row(b, l, &one, &c);
    return v;
}

/* product_mds after round r: the state times M, pre_sparse or a sparse M″. */
static void mix(builder *b, const czk_poseidon_constants *c, sym *s, sym *tmp, size_t r) {
    size_t t = c->width, k;
    czk_poseidon_mix kind = czk_poseidon_round_mix(c, r, &k);
    if (kind == CZK_POSEIDON_MIX_SPARSE) {
        const czk_poseidon_sparse *m = &c->sparse[k];
        tmp[0].n = 0;
        for (size_t i = 0; i < t; i++)
            sym_add_scaled(b, &tmp[0], &s[i], &m->w_hat[i]);
        for (size_t j = 1; j < t; j++) {
            tmp[j] = s[j];
            sym_add_scaled(b, &tmp[j], &s[0], &m->v_rest[j - 1]);
        }
    } else {
        const czk_fr(*mat)[CZK_POSEIDON_MAX_WIDTH] =
            kind == CZK_POSEIDON_MIX_PRE_SPARSE ? c->pre_sparse : c->mds;
        for (size_t j = 0; j < t; j++) {
            tmp[j].n = 0;
            for (size_t i = 0; i < t; i++)
                sym_add_scaled(b, &tmp[j], &s[i], &mat[i][j]);
        }
    }
    for (size_t j = 0; j < t; j++)
        s[j] = tmp[j];
}

/* Rounds of the permutation: is round r full, and is it the terminal one. */
static int round_is_full(const czk_poseidon_constants *c, size_t r) {
    return r < c->half_full_rounds || r >= c->half_full_rounds + c->partial_rounds;
}

int czk_poseidon_circuit_init(czk_poseidon_circuit *pc, const czk_poseidon_constants *c,
                              czk_err *err) {
    /* Two states of up to 12 elements of about 2.9 KB each: 70 KB of stack, used once. */
    sym s[CZK_POSEIDON_MAX_WIDTH], tmp[CZK_POSEIDON_MAX_WIDTH];
    size_t t = c->width, a = c->arity, rounds = c->full_rounds + c->partial_rounds;
    const czk_fr *crc = c->compressed_round_constants;
    builder b = {pc, 0, 0, 0};
    memset(pc->start, 0, sizeof(pc->start));
    pc->constants = c;
    pc->arity = a;
    pc->n_rows = 0;

    /* Round 0 (first full round): the tag element is a constant, ((tag + pre)^5 + post)·ONE,
     * with no rows (constant_quintic_s_box_pre_add_tag); each input x_i is already allocated
     * and gets square_sum, square, mul_sum with the pre- and post-keys. */
    {
        czk_fr x, x2, x4;
        czk_fr_add(&x, &c->domain_tag, &crc[0]);
        czk_fr_sqr(&x2, &x);
        czk_fr_sqr(&x4, &x2);
        czk_fr_mul(&x, &x4, &x);
        czk_fr_add(&x, &x, &crc[t]);
        sym_set(&s[0], CZK_POSEIDON_REF_ONE, &x);
    }
    for (size_t i = 1; i < t; i++) {
        sym in;
        sym_set(&in, CZK_POSEIDON_REF_INPUT | (uint32_t)(i - 1), &CZK_FR_ONE);
        sym_add(&b, &in, CZK_POSEIDON_REF_ONE, &crc[i]);
        uint32_t y5 = sbox_rows(&b, &in, &crc[t + i]);
        sym_set(&s[i], y5, &CZK_FR_ONE);
    }
    mix(&b, c, s, tmp, 0);
    size_t off = 2 * t;

    for (size_t r = 1; r < rounds; r++) {
        int full = round_is_full(c, r), terminal = r == rounds - 1;
        size_t n = full ? t : 1;
        for (size_t i = 0; i < n; i++) {
            sym v;
            sym_set(&v, ensure_allocated(&b, &s[i]), &CZK_FR_ONE);
            uint32_t y5 = sbox_rows(&b, &v, terminal ? NULL : &crc[off + i]);
            sym_set(&s[i], y5, &CZK_FR_ONE);
        }
        if (!terminal)
            off += n;
        mix(&b, c, s, tmp, r);
    }
    /* The digest: ensure_allocated(elements[1]). */
    (void)ensure_allocated(&b, &s[1]);

    if (b.overflow || off != c->n_compressed)
        return czk_err_set(err, CZK_EINTERNAL,
                           "poseidon circuit: arity %zu exceeds the template's bounds", a);
    pc->n_rows = b.n_local;
    return CZK_OK;
}

/* ---- shared templates ---- */

static const size_t shared_arities[] = {2, 4, 8, 11};
#define N_SHARED (sizeof(shared_arities) / sizeof(shared_arities[0]))
/* Written once under `once`, read-only afterwards (pthread_once orders the writes before the
 * readers). */
static czk_poseidon_circuit shared[N_SHARED];
static int shared_status;
static czk_err shared_err;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void shared_init(void) {
    for (size_t k = 0; k < N_SHARED; k++) {
        const czk_poseidon_constants *c;
        shared_status = czk_poseidon_constants_get(&c, shared_arities[k], &shared_err);
        if (shared_status == CZK_OK)
            shared_status = czk_poseidon_circuit_init(&shared[k], c, &shared_err);
        if (shared_status != CZK_OK)
            return;
    }
}

int czk_poseidon_circuit_get(const czk_poseidon_circuit **out, size_t arity, czk_err *err) {
    size_t k = 0;
    while (k < N_SHARED && shared_arities[k] != arity)
        k++;
    if (k == N_SHARED)
        return czk_err_set(err, CZK_EUNSUPPORTED, "poseidon circuit: arity %zu is not Filecoin's",
                           arity);
    if (pthread_once(&once, shared_init) != 0)
        return czk_err_set(err, CZK_EINTERNAL, "poseidon circuit: pthread_once failed");
    if (shared_status != CZK_OK) {
        if (err)
            *err = shared_err;
        return shared_status;
    }
    *out = &shared[k];
    return CZK_OK;
}

/* ---- synthesis ---- */

typedef struct hasher {
    czk_cs *cs;
    const czk_poseidon_circuit *pc;
    const czk_var *in;
    czk_var base; /* the hash's first aux */
    uint32_t k;   /* rows (= aux) so far */
    int builds, values;
} hasher;

/* Copies template side [lo, hi) into lc, substituting variables. The template's terms are
 * distinct references, and distinct references are distinct variables within a row (an input
 * appears only in round 0's rows, with ONE and locals), so no merging is needed. */
static void fill_side(const hasher *h, czk_lc *lc, uint32_t lo, uint32_t hi) {
    const czk_poseidon_circuit *pc = h->pc;
    for (uint32_t i = lo; i < hi; i++) {
        uint32_t ref = pc->ref[i];
        czk_var v;
        if (ref == CZK_POSEIDON_REF_ONE)
            v = CZK_VAR_ONE;
        else if (ref & CZK_POSEIDON_REF_INPUT)
            v = h->in[ref & ~CZK_POSEIDON_REF_INPUT];
        else
            v = h->base + ref;
        lc->vars[lc->n] = v;
        lc->coeffs[lc->n] = pc->coeff[i];
        lc->n++;
    }
}

/* The next aux (value `val`, ignored without values) and its template row. */
static int step(hasher *h, const czk_fr *val) {
    czk_var v;
    int rc = czk_cs_alloc(h->cs, &v, val);
    if (rc != CZK_OK)
        return rc;
    if (h->k == 0)
        h->base = v;
    else if (v != h->base + h->k)
        return czk_cs_set_error(h->cs, CZK_EINTERNAL, "poseidon gadget: aux not consecutive");
    CZK_LC_DECL(A, CZK_POSEIDON_CIRCUIT_MAX_LC);
    CZK_LC_DECL(B, CZK_POSEIDON_CIRCUIT_MAX_LC);
    CZK_LC_DECL(C, CZK_POSEIDON_CIRCUIT_MAX_LC);
    if (h->builds) {
        const uint32_t *st = &h->pc->start[3 * h->k];
        fill_side(h, &A, st[0], st[1]);
        fill_side(h, &B, st[1], st[2]);
        fill_side(h, &C, st[2], st[3]);
    }
    h->k++;
    return czk_cs_enforce(h->cs, &A, &B, &C);
}

/* y2 = v², y4 = y2², y5 = v·y4 + q (q NULL: none), each an aux and a row. */
static int sbox_step(hasher *h, const czk_fr *v, const czk_fr *q) {
    czk_fr y2, y4, y5;
    if (h->values) {
        czk_fr_sqr(&y2, v);
        czk_fr_sqr(&y4, &y2);
        czk_fr_mul(&y5, v, &y4);
        if (q != NULL)
            czk_fr_add(&y5, &y5, q);
    }
    int rc;
    if ((rc = step(h, &y2)) != CZK_OK || (rc = step(h, &y4)) != CZK_OK)
        return rc;
    return step(h, &y5);
}

int czk_poseidon_gadget_hash(czk_cs *cs, czk_var *out, const czk_poseidon_circuit *pc,
                             const czk_var *in, size_t arity) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    if (arity != pc->arity || pc->n_rows == 0)
        return czk_cs_set_error(cs, CZK_EINVAL, "poseidon gadget: arity %zu, template %zu", arity,
                                pc->arity);
    const czk_poseidon_constants *c = pc->constants;
    size_t t = c->width, rounds = c->full_rounds + c->partial_rounds;
    const czk_fr *crc = c->compressed_round_constants;
    /* The optimised permutation's S-box inputs, round by round: 65·12 entries at most. */
    czk_fr trace[CZK_POSEIDON_MAX_ROUNDS * CZK_POSEIDON_MAX_WIDTH], digest = CZK_FR_ZERO;
    hasher h = {cs, pc, in, 0, 0, czk_cs_builds_rows(cs), czk_cs_has_values(cs)};
    if (h.values) {
        czk_fr x[CZK_POSEIDON_MAX_ARITY];
        for (size_t i = 0; i < arity; i++) {
            const czk_fr *v = czk_cs_value(cs, in[i]);
            if (v == NULL)
                return czk_cs_set_error(cs, CZK_EINVAL, "poseidon gadget: input %zu has no value",
                                        i);
            x[i] = *v;
        }
        if (czk_poseidon_hash_trace(c, x, arity, &digest, trace,
                                    sizeof(trace) / sizeof(trace[0])) != CZK_OK)
            return czk_cs_set_error(cs, CZK_EINTERNAL, "poseidon gadget: trace failed");
    }
    /* Round 0: three rows per input; trace[i] = x_i + pre-key. */
    for (size_t i = 1; i < t; i++)
        if ((rc = sbox_step(&h, &trace[i], &crc[t + i])) != CZK_OK)
            return rc;
    size_t off = 2 * t;
    for (size_t r = 1; r < rounds; r++) {
        int terminal = r == rounds - 1;
        size_t n = round_is_full(c, r) ? t : 1;
        for (size_t i = 0; i < n; i++) {
            const czk_fr *v = &trace[r * t + i];
            if ((rc = step(&h, v)) != CZK_OK ||
                (rc = sbox_step(&h, v, terminal ? NULL : &crc[off + i])) != CZK_OK)
                return rc;
        }
        if (!terminal)
            off += n;
    }
    if ((rc = step(&h, &digest)) != CZK_OK)
        return rc;
    if (h.k != pc->n_rows)
        return czk_cs_set_error(cs, CZK_EINTERNAL, "poseidon gadget: %u rows, template %zu", h.k,
                                pc->n_rows);
    *out = h.base + h.k - 1;
    return CZK_OK;
}
