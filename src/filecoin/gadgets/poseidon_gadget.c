/*
 * neptune's legacy Poseidon circuit (contract in poseidon_gadget.h). The symbolic builder
 * follows neptune's src/circuit.rs (hash, full_round, partial_round, product_mds, quintic_s_box,
 * square_sum, mul_sum, ensure_allocated) call for call; the hash walks the same rounds to give
 * each aux its value, and takes the rows from the template.
 *
 * Upstream code cited here was read at bellpepper-core 0.2.1 (@4bde01b), neptune 11.0.0
 * (@ef8a821).
 */
#include "filecoin/gadgets/poseidon_gadget.h"

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

/*
 * The constants of the width-9 mixing by Hankel blocks (czk_poseidon_circuit's mds_kara), or 0
 * when the width is not 9 or M is not Hankel. With h[i + j] = M[i][j], (s·M)_l =
 * Σ_d h[l + d]·s_d. Three-way Karatsuba multiplies polynomials of three coefficients with six
 * products, (a0, a1, a2, a0+a1, a0+a2, a1+a2) times (b0, b1, b2, b0+b1, b0+b2, b1+b2); its
 * transpose computes a 3×3 Hankel product x_l = Σ_d g[l + d]·a_d (g of five entries) as
 * x0 = q0 + q3 + q4, x1 = q1 + q3 + q5, x2 = q2 + q4 + q5 with q_k = (a0, a1, a2, a0+a1,
 * a0+a2, a1+a2)_k · k_k, where k = (g0 − g1 − g2, g2 − g1 − g3, g4 − g2 − g3, g1, g2, g3). The
 * 9×9 matrix is that pattern over 3×3 blocks, block (L, D) being the Hankel block of h[3(L+D)
 * + m], so the same formula applies with blocks for entries: its six block products are
 * Hankel blocks of G = (H0 − H1 − H2, H2 − H1 − H3, H4 − H2 − H3, H1, H2, H3), each made with
 * the formula again.
 */
static int mds_kara_init(czk_fr kara[6][6], const czk_poseidon_constants *c) {
    if (c->width != 9)
        return 0;
    czk_fr h[17], blk[5][5], g[5];
    for (size_t k = 0; k < 17; k++)
        h[k] = c->mds[k < 9 ? 0 : k - 8][k < 9 ? k : 8];
    for (size_t i = 0; i < 9; i++)
        for (size_t j = 0; j < 9; j++)
            if (!czk_fr_equal(&c->mds[i][j], &h[i + j]))
                return 0;
    for (size_t b = 0; b < 5; b++)
        for (size_t m = 0; m < 5; m++)
            blk[b][m] = h[3 * b + m];
    for (size_t k = 0; k < 6; k++) {
        for (size_t m = 0; m < 5; m++) {
            /* G_k's entry m, per the list above. */
            switch (k) {
            case 0:
                czk_fr_sub(&g[m], &blk[0][m], &blk[1][m]);
                czk_fr_sub(&g[m], &g[m], &blk[2][m]);
                break;
            case 1:
                czk_fr_sub(&g[m], &blk[2][m], &blk[1][m]);
                czk_fr_sub(&g[m], &g[m], &blk[3][m]);
                break;
            case 2:
                czk_fr_sub(&g[m], &blk[4][m], &blk[2][m]);
                czk_fr_sub(&g[m], &g[m], &blk[3][m]);
                break;
            default:
                g[m] = blk[k - 2][m];
                break;
            }
        }
        czk_fr_sub(&kara[k][0], &g[0], &g[1]);
        czk_fr_sub(&kara[k][0], &kara[k][0], &g[2]);
        czk_fr_sub(&kara[k][1], &g[2], &g[1]);
        czk_fr_sub(&kara[k][1], &kara[k][1], &g[3]);
        czk_fr_sub(&kara[k][2], &g[4], &g[2]);
        czk_fr_sub(&kara[k][2], &kara[k][2], &g[3]);
        kara[k][3] = g[1];
        kara[k][4] = g[2];
        kara[k][5] = g[3];
    }
    return 1;
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
    pc->mds_fast = mds_kara_init(pc->mds_kara, c);
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

/* Aux (= rows) per hash: 3 per input in round 0, 4 per S-box in every later round, and the
 * digest; czk_poseidon_circuit_init counts the same from the symbolic run. */
static size_t hash_aux(const czk_poseidon_constants *c) {
    return 3 * c->arity + 4 * ((c->full_rounds - 1) * c->width + c->partial_rounds) + 1;
}

/* s ← s·m over the leading t×t block (MDS or pre-sparse), as poseidon.c's vec_mat. */
static void mix_dense(czk_fr *s, const czk_fr (*m)[CZK_POSEIDON_MAX_WIDTH], size_t t) {
    czk_fr r[CZK_POSEIDON_MAX_WIDTH], p;
    for (size_t j = 0; j < t; j++) {
        czk_fr_mul(&r[j], &m[0][j], &s[0]);
        for (size_t i = 1; i < t; i++) {
            czk_fr_mul(&p, &m[i][j], &s[i]);
            czk_fr_add(&r[j], &r[j], &p);
        }
    }
    memcpy(s, r, t * sizeof *s);
}

/* x = the 3×3 Hankel block with constants k (mds_kara_init) times a: six multiplications. */
static void kara3(czk_fr *x, const czk_fr *a, const czk_fr *k) {
    czk_fr q[6], u;
    czk_fr_mul(&q[0], &a[0], &k[0]);
    czk_fr_mul(&q[1], &a[1], &k[1]);
    czk_fr_mul(&q[2], &a[2], &k[2]);
    czk_fr_add(&u, &a[0], &a[1]);
    czk_fr_mul(&q[3], &u, &k[3]);
    czk_fr_add(&u, &a[0], &a[2]);
    czk_fr_mul(&q[4], &u, &k[4]);
    czk_fr_add(&u, &a[1], &a[2]);
    czk_fr_mul(&q[5], &u, &k[5]);
    czk_fr_add(&x[0], &q[0], &q[3]);
    czk_fr_add(&x[0], &x[0], &q[4]);
    czk_fr_add(&x[1], &q[1], &q[3]);
    czk_fr_add(&x[1], &x[1], &q[5]);
    czk_fr_add(&x[2], &q[2], &q[4]);
    czk_fr_add(&x[2], &x[2], &q[5]);
}

/* s ← s·M at width 9 by Hankel blocks (mds_kara_init): 36 multiplications. */
static void mix_mds9(czk_fr *s, const czk_fr (*kara)[6]) {
    czk_fr a[3][3], p[6][3];
    for (size_t i = 0; i < 3; i++) {
        czk_fr_add(&a[0][i], &s[i], &s[3 + i]);
        czk_fr_add(&a[1][i], &s[i], &s[6 + i]);
        czk_fr_add(&a[2][i], &s[3 + i], &s[6 + i]);
    }
    kara3(p[0], &s[0], kara[0]);
    kara3(p[1], &s[3], kara[1]);
    kara3(p[2], &s[6], kara[2]);
    kara3(p[3], a[0], kara[3]);
    kara3(p[4], a[1], kara[4]);
    kara3(p[5], a[2], kara[5]);
    for (size_t i = 0; i < 3; i++) {
        czk_fr_add(&s[i], &p[0][i], &p[3][i]);
        czk_fr_add(&s[i], &s[i], &p[4][i]);
        czk_fr_add(&s[3 + i], &p[1][i], &p[3][i]);
        czk_fr_add(&s[3 + i], &s[3 + i], &p[5][i]);
        czk_fr_add(&s[6 + i], &p[2][i], &p[4][i]);
        czk_fr_add(&s[6 + i], &s[6 + i], &p[5][i]);
    }
}

/*
 * The hash's aux values in allocation order (hash_aux(c) of them) from its inputs x: neptune's
 * optimised permutation (poseidon.h) round by round, writing each S-box's input v (rounds 1
 * on: ensure_allocated's value), y2 = v², y4 = y2² and y5 = v·y4 + q as it computes them, then
 * the digest s[1]. These are the values czk_poseidon_hash_trace's S-box inputs give, computed
 * once: deriving them from a trace squared every S-box input again and copied the state every
 * round, a fifth on top of the hash for arity 8. Writing straight into the caller's slots is
 * what lets WITNESS mode fill a hash's 505 aux in one block.
 */
static void hash_values(const czk_poseidon_circuit *pc, const czk_fr *x, czk_fr *out) {
    const czk_poseidon_constants *c = pc->constants;
    size_t t = c->width, half = c->half_full_rounds, rounds = c->full_rounds + c->partial_rounds;
    const czk_fr *key = c->compressed_round_constants;
    czk_fr s[CZK_POSEIDON_MAX_WIDTH], p;
    s[0] = c->domain_tag;
    memcpy(&s[1], x, c->arity * sizeof *x);
    for (size_t i = 0; i < t; i++)
        czk_fr_add(&s[i], &s[i], key++);
    for (size_t r = 0; r < rounds; r++) {
        int full = r < half || r >= half + c->partial_rounds, last = r + 1 == rounds;
        for (size_t i = 0; i < (full ? t : 1); i++) {
            czk_fr local[3], *y;
            if (r == 0 && i == 0) {
                y = local; /* the tag element: a constant in the circuit, no aux */
            } else {
                if (r > 0)
                    *out++ = s[i];
                y = out;
                out += 3;
            }
            czk_fr_sqr(&y[0], &s[i]);
            czk_fr_sqr(&y[1], &y[0]);
            czk_fr_mul(&y[2], &s[i], &y[1]);
            if (!last) /* the last round has no key */
                czk_fr_add(&y[2], &y[2], key++);
            s[i] = y[2];
        }
        size_t k;
        czk_poseidon_mix kind = czk_poseidon_round_mix(c, r, &k);
        if (last && kind == CZK_POSEIDON_MIX_MDS) {
            /* Only the digest s[1] of the last mixing is used: one column of M, not t. */
            czk_fr_mul(out, &c->mds[0][1], &s[0]);
            for (size_t i = 1; i < t; i++) {
                czk_fr_mul(&p, &c->mds[i][1], &s[i]);
                czk_fr_add(out, out, &p);
            }
            return;
        }
        switch (kind) {
        case CZK_POSEIDON_MIX_PRE_SPARSE:
            mix_dense(s, c->pre_sparse, t);
            break;
        case CZK_POSEIDON_MIX_SPARSE:
            czk_poseidon_mix_sparse(&c->sparse[k], s, t);
            break;
        case CZK_POSEIDON_MIX_MDS:
            if (pc->mds_fast)
                mix_mds9(s, pc->mds_kara);
            else
                mix_dense(s, c->mds, t);
            break;
        }
    }
    *out = s[1]; /* where the last mixing is not M (it is M at every width poseidon.h makes) */
}

typedef struct hasher {
    czk_cs *cs;
    const czk_poseidon_circuit *pc;
    const czk_var *in;
    czk_var base; /* the hash's first aux */
    uint32_t k;   /* rows (= aux) so far */
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
    const uint32_t *st = &h->pc->start[3 * h->k];
    fill_side(h, &A, st[0], st[1]);
    fill_side(h, &B, st[1], st[2]);
    fill_side(h, &C, st[2], st[3]);
    h->k++;
    return czk_cs_enforce(h->cs, &A, &B, &C);
}

int czk_poseidon_gadget_hash(czk_cs *cs, czk_var *out, const czk_poseidon_circuit *pc,
                             const czk_var *in, size_t arity) {
    return czk_poseidon_gadget_hash_memo(cs, out, pc, in, arity, NULL);
}

/* The memo's entry for these inputs, or NULL. Values are canonical, so equal bytes are equal
 * values. */
static const struct czk_poseidon_memo_entry *
memo_find(const czk_poseidon_memo *memo, const czk_poseidon_circuit *pc, const czk_fr *x) {
    for (size_t i = 0; i < memo->n; i++) {
        const struct czk_poseidon_memo_entry *e = &memo->entry[i];
        if (e->pc == pc && memcmp(e->in, x, pc->arity * sizeof *x) == 0)
            return e;
    }
    return NULL;
}

int czk_poseidon_gadget_hash_memo(czk_cs *cs, czk_var *out, const czk_poseidon_circuit *pc,
                                  const czk_var *in, size_t arity, czk_poseidon_memo *memo) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    if (arity != pc->arity || pc->n_rows == 0)
        return czk_cs_set_error(cs, CZK_EINVAL, "poseidon gadget: arity %zu, template %zu", arity,
                                pc->arity);
    const czk_poseidon_constants *c = pc->constants;
    size_t n = pc->n_rows;
    if (hash_aux(c) != n)
        return czk_cs_set_error(cs, CZK_EINTERNAL, "poseidon gadget: %zu values, template %zu",
                                hash_aux(c), n);
    int values = czk_cs_has_values(cs);
    /* The inputs' values, copied: allocating the hash's aux may move the value arrays. */
    czk_fr x[CZK_POSEIDON_MAX_ARITY];
    for (size_t i = 0; values && i < arity; i++) {
        const czk_fr *v = czk_cs_value(cs, in[i]);
        if (v == NULL)
            return czk_cs_set_error(cs, CZK_EINVAL, "poseidon gadget: input %zu has no value", i);
        x[i] = *v;
    }
    if (!czk_cs_builds_rows(cs)) {
        /* WITNESS mode (which has values): one block of aux filled in place and the rows
         * counted, instead of n allocations and n enforce calls. */
        const struct czk_poseidon_memo_entry *seen = memo ? memo_find(memo, pc, x) : NULL;
        czk_var first;
        czk_fr *vals;
        if ((rc = czk_cs_alloc_aux_block(cs, n, &first, &vals)) != CZK_OK ||
            (rc = czk_cs_count_rows(cs, n)) != CZK_OK)
            return rc;
        if (seen != NULL) {
            /* Read after the allocation, which may have moved the values. */
            memcpy(vals, czk_cs_value(cs, seen->first), n * sizeof *vals);
        } else {
            hash_values(pc, x, vals);
            if (memo != NULL && memo->n < CZK_POSEIDON_MEMO_MAX) {
                struct czk_poseidon_memo_entry *e = &memo->entry[memo->n++];
                e->pc = pc;
                e->first = first;
                memcpy(e->in, x, arity * sizeof *x);
            }
        }
        *out = first + (czk_var)(n - 1);
        return CZK_OK;
    }
    /* Builder modes: each aux and its template row, in order. */
    czk_fr vals[CZK_POSEIDON_CIRCUIT_MAX_ROWS];
    if (values)
        hash_values(pc, x, vals);
    hasher h = {cs, pc, in, 0, 0};
    for (size_t k = 0; k < n; k++)
        if ((rc = step(&h, &vals[k])) != CZK_OK)
            return rc;
    *out = h.base + h.k - 1;
    return CZK_OK;
}
