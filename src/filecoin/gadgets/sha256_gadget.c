/*
 * bellperson's SHA-256 circuit and the rust-fil-proofs gadgets built on it (contract in
 * sha256_gadget.h; the rules in doc/FILECOIN.md §2 and §12).
 *
 * DESIGN. One walk of bellperson's compression function serves every mode. A word is a
 * UInt32 (32 czk_bool, LSB first) that also carries its integer value, so witness values come
 * from plain uint32 arithmetic instead of being read back from the system bit by bit. Under
 * the bit operations sit two ways of allocating:
 *  - the row path (COUNT, RECORD, and any mode with CHECK): every bit goes through gadgets.h
 *    (Boolean xor/and, AllocatedBit) or the ch/maj rows here, one allocation and one row at a
 *    time in bellperson's order. MultiEq's packed rows collect their terms in a list that is
 *    sorted and merged once per flush (czk_lc_add's linear merge would be quadratic in the
 *    ~1,800 terms of a packed row).
 *  - the fast path (WITNESS without CHECK, ~80 % of a PoRep witness): the same dispatch on the
 *    bits' kinds decides what is allocated, but an allocation only takes the next aux index and
 *    records the variable's value in a byte. At the end of each compression its aux are
 *    allocated in one block (czk_cs_alloc_aux_block), filled with 0/1, and its rows counted
 *    (czk_cs_count_rows). Nothing inside a compression reads those values back from the
 *    system, so deferring them is invisible outside it.
 * The fast path repeats gadgets.c's xor/and dispatch; the tests hold it to the row path by
 * checking the fast WITNESS vector against the rows recorded in RECORD mode.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb), bellpepper-core 0.2.1 (@4bde01b).
 */
#include "filecoin/gadgets/sha256_gadget.h"

#include <stdlib.h>
#include <string.h>

#include "filecoin/gadgets/gadget_internal.h"
#include "util/alloc.h"

/* FIPS 180-4 §4.2.2 and §5.3.3. */
static const uint32_t sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t sha_iv[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

/* A UInt32: bits LSB first, and the value. The value is exact wherever the bits' values are
 * known (always for constant bits); without values the unknown bits count as 0, and the value
 * then only matters where every bit is constant. */
typedef struct sha_word {
    czk_bool bit[32];
    uint32_t val;
} sha_word;

/*
 * Room for the aux of one compression. The most it allocates is 26,166, when no input bit is
 * constant (constants only remove allocations): 13,712 xor, 2,048 ch, 4,096 maj and b∧c, and
 * 48·34 + 128·35 + 6·33 = 6,310 addmany bits (doc/FILECOIN.md §12).
 */
#define SHA_MAX_AUX 32768
/* A MultiEq window holds fewer than 254 bits, so at most 7 equalities (each of 33 bits or
 * more) of at most 8 operands of 32 bits; each bit gives a variable term and, for a Not bit, a
 * ONE term. */
#define SHA_MAX_TERMS (7 * 8 * 32 * 2)
#define SHA_MAX_RHS CZK_MULTIPACK_CHUNK

typedef struct sha_term {
    czk_var var;
    czk_fr coeff;
} sha_term;

/* The row path's MultiEq buffers: the pending lhs terms (unmerged), the rhs (result bits,
 * distinct and ascending), the merged lhs of a flush, and 2^0 … 2^255. */
typedef struct sha_rows {
    uint32_t n_lhs, n_rhs;
    sha_term lhs[SHA_MAX_TERMS];
    czk_var rhs_var[SHA_MAX_RHS];
    czk_fr rhs_coeff[SHA_MAX_RHS];
    czk_var lc_var[SHA_MAX_TERMS];
    czk_fr lc_coeff[SHA_MAX_TERMS];
    czk_fr pow2[256];
} sha_rows;

/* The words of one compression and the fast path's values, heap-allocated once per hash
 * (about 110 KiB). The per-round temporaries alternate between two slots because round i's
 * deferred additions read round i − 1's. */
typedef struct sha_mem {
    sha_word w[64], e[64], a[64];
    sha_word s1[2], ch[2], s0[2], maj[2], k[2], t1, t2;
    uint8_t vals[SHA_MAX_AUX]; /* the fast path's variable values (not the Booleans', which
                                * may be Not) */
} sha_mem;

/* One hash's state. Small: the Boolean entry points keep one on the stack, with no buffers. */
typedef struct sha_ctx {
    czk_cs *cs;
    int fast; /* WITNESS without CHECK */
    /* fast path: aux handed out in the current compression, from `base` on */
    czk_var base;
    uint32_t n_new;
    int overflow;
    uint64_t n_rows;
    /* MultiEq: bits in the current window */
    uint32_t bits_used;
    sha_mem *mem;   /* NULL in the Boolean entry points */
    sha_rows *rows; /* row path only (about 290 KiB) */
} sha_ctx;

/* ---- context ---- */

static void ctx_clear(sha_ctx *x) {
    czk_free(x->rows);
    czk_free(x->mem);
    x->rows = NULL;
    x->mem = NULL;
}

/* Sets up x for a hash on cs. Returns CZK_OK, or CZK_ENOMEM (set on cs). */
static int ctx_init(sha_ctx *x, czk_cs *cs) {
    memset(x, 0, sizeof *x);
    x->cs = cs;
    x->fast = !czk_cs_builds_rows(cs);
    x->mem = czk_malloc(sizeof *x->mem);
    if (x->mem == NULL)
        goto oom;
    if (!x->fast) {
        x->rows = czk_malloc(sizeof *x->rows);
        if (x->rows == NULL)
            goto oom;
        x->rows->n_lhs = 0;
        x->rows->n_rhs = 0;
        x->rows->pow2[0] = CZK_FR_ONE;
        for (int i = 1; i < 256; i++)
            czk_fr_dbl(&x->rows->pow2[i], &x->rows->pow2[i - 1]);
    }
    return CZK_OK;
oom:
    ctx_clear(x);
    return czk_cs_set_error(cs, CZK_ENOMEM, "sha256 gadget: out of memory");
}

/* Fast path: the next aux of this compression, whose value is `v`. */
static inline czk_var fast_new(sha_ctx *x, int v) {
    uint32_t k = x->n_new;
    if (k >= SHA_MAX_AUX) {
        x->overflow = 1; /* reported at commit; the bound above makes this unreachable */
        k = SHA_MAX_AUX - 1;
    } else {
        x->n_new++;
    }
    x->mem->vals[k] = (uint8_t)v;
    return x->base + k;
}

/* Fast path, at the start of a compression: its aux begin at the system's next one. */
static int fast_begin(sha_ctx *x) {
    czk_fr *unused;
    x->n_new = 0;
    x->n_rows = 0;
    x->overflow = 0;
    return czk_cs_alloc_aux_block(x->cs, 0, &x->base, &unused);
}

/* Fast path, at the end of a compression: allocates the aux handed out, in order, with their
 * values, and counts the rows they stand for. */
static int fast_commit(sha_ctx *x) {
    czk_var first;
    czk_fr *v;
    if (x->overflow)
        return czk_cs_set_error(x->cs, CZK_EINTERNAL, "sha256 gadget: aux bound exceeded");
    TRY(czk_cs_alloc_aux_block(x->cs, x->n_new, &first, &v));
    if (first != x->base)
        return czk_cs_set_error(x->cs, CZK_EINTERNAL, "sha256 gadget: aux moved under it");
    for (uint32_t k = 0; k < x->n_new; k++)
        v[k] = x->mem->vals[k] ? CZK_FR_ONE : CZK_FR_ZERO;
    return czk_cs_count_rows(x->cs, x->n_rows);
}

/* ---- Boolean operations (bellpepper boolean.rs), on either path ---- */

static inline int is_const(const czk_bool *b, int v) {
    return b->kind == CZK_BOOL_CONST && b->value == v;
}

/* Boolean::xor. va and vb are the operands' values. The fast arms mirror
 * czk_gadget_bool_xor: the allocated r is p ⊕ q of the variables, and the result is Not(r)
 * when the kinds differ, so r's value is va ⊕ vb ⊕ (kinds differ). */
static inline int bit_xor(sha_ctx *x, czk_bool *out, const czk_bool *a, const czk_bool *b, int va,
                          int vb) {
    if (!x->fast)
        return czk_gadget_bool_xor(x->cs, out, a, b);
    if (is_const(a, 0)) {
        *out = *b;
    } else if (is_const(b, 0)) {
        *out = *a;
    } else if (is_const(a, 1)) {
        *out = czk_bool_not(*b);
    } else if (is_const(b, 1)) {
        *out = czk_bool_not(*a);
    } else {
        int neg = a->kind != b->kind;
        out->kind = neg ? CZK_BOOL_NOT : CZK_BOOL_IS;
        out->value = 0;
        out->var = fast_new(x, va ^ vb ^ neg);
        x->n_rows++;
    }
    return CZK_OK;
}

/* Boolean::and. and, and_not and nor all allocate Is(r) with r the result's value. */
static inline int bit_and(sha_ctx *x, czk_bool *out, const czk_bool *a, const czk_bool *b, int va,
                          int vb) {
    if (!x->fast)
        return czk_gadget_bool_and(x->cs, out, a, b);
    if (is_const(a, 0) || is_const(b, 0)) {
        *out = czk_bool_constant(0);
    } else if (is_const(a, 1)) {
        *out = *b;
    } else if (is_const(b, 1)) {
        *out = *a;
    } else {
        *out = czk_bool_is(fast_new(x, va & vb));
        x->n_rows++;
    }
    return CZK_OK;
}

/* The row path's allocation of a ch or maj result of value v. */
static int alloc_value(czk_cs *cs, czk_var *out, int v) {
    return czk_cs_alloc(cs, out, v ? &CZK_FR_ONE : &CZK_FR_ZERO);
}

/* Boolean::sha256_ch = (a ∧ b) ⊕ (¬a ∧ c), arms in bellpepper's order (doc/FILECOIN.md §12). */
static int bit_ch(sha_ctx *x, czk_bool *out, const czk_bool *a, const czk_bool *b,
                  const czk_bool *c, int va, int vb, int vc) {
    int v = (va & vb) ^ ((!va) & vc);
    czk_bool na = czk_bool_not(*a), nb = czk_bool_not(*b), nc = czk_bool_not(*c), t;
    if (a->kind == CZK_BOOL_CONST && b->kind == CZK_BOOL_CONST && c->kind == CZK_BOOL_CONST) {
        *out = czk_bool_constant(v);
        return CZK_OK;
    }
    if (is_const(a, 0)) {
        *out = *c;
        return CZK_OK;
    }
    if (is_const(b, 0))
        return bit_and(x, out, &na, c, !va, vc);
    if (is_const(c, 0))
        return bit_and(x, out, a, b, va, vb);
    if (is_const(c, 1)) {
        TRY(bit_and(x, &t, a, &nb, va, !vb));
        *out = czk_bool_not(t);
        return CZK_OK;
    }
    if (is_const(b, 1)) {
        TRY(bit_and(x, &t, &na, &nc, !va, !vc));
        *out = czk_bool_not(t);
        return CZK_OK;
    }
    /* a is Constant(true) or nothing is constant: alloc ch; row (b − c)·a = ch − c. */
    if (x->fast) {
        *out = czk_bool_is(fast_new(x, v));
        x->n_rows++;
        return CZK_OK;
    }
    czk_var r;
    czk_fr m1;
    czk_fr_neg(&m1, &CZK_FR_ONE);
    TRY(alloc_value(x->cs, &r, v));
    CZK_LC_DECL(A, 4);
    CZK_LC_DECL(B, 2);
    CZK_LC_DECL(C, 3);
    if (czk_cs_builds_rows(x->cs)) {
        czk_lc_add_bool(&A, b, &CZK_FR_ONE);
        czk_lc_add_bool(&A, c, &m1);
        czk_lc_add_bool(&B, a, &CZK_FR_ONE);
        czk_lc_add_var(&C, r);
        czk_lc_add_bool(&C, c, &m1);
    }
    TRY(czk_cs_enforce(x->cs, &A, &B, &C));
    *out = czk_bool_is(r);
    return CZK_OK;
}

/* Boolean::sha256_maj = (a ∧ b) ⊕ (a ∧ c) ⊕ (b ∧ c), arms in bellpepper's order. */
static int bit_maj(sha_ctx *x, czk_bool *out, const czk_bool *a, const czk_bool *b,
                   const czk_bool *c, int va, int vb, int vc) {
    int v = (va & vb) ^ (va & vc) ^ (vb & vc);
    czk_bool na = czk_bool_not(*a), nb = czk_bool_not(*b), nc = czk_bool_not(*c), t, bc;
    if (a->kind == CZK_BOOL_CONST && b->kind == CZK_BOOL_CONST && c->kind == CZK_BOOL_CONST) {
        *out = czk_bool_constant(v);
        return CZK_OK;
    }
    if (is_const(a, 0))
        return bit_and(x, out, b, c, vb, vc);
    if (is_const(b, 0))
        return bit_and(x, out, a, c, va, vc);
    if (is_const(c, 0))
        return bit_and(x, out, a, b, va, vb);
    if (is_const(c, 1) || is_const(b, 1) || is_const(a, 1)) {
        /* ¬(¬a ∧ ¬b), ¬(¬a ∧ ¬c), ¬(¬b ∧ ¬c): the pair without the constant */
        if (is_const(c, 1))
            TRY(bit_and(x, &t, &na, &nb, !va, !vb));
        else if (is_const(b, 1))
            TRY(bit_and(x, &t, &na, &nc, !va, !vc));
        else
            TRY(bit_and(x, &t, &nb, &nc, !vb, !vc));
        *out = czk_bool_not(t);
        return CZK_OK;
    }
    /* No constants: maj is allocated before b∧c, but b∧c's row comes first; then
     * (2·bc − b − c)·a = bc − maj. */
    czk_var m;
    if (x->fast) {
        m = fast_new(x, v);
        TRY(bit_and(x, &bc, b, c, vb, vc));
        x->n_rows++;
        *out = czk_bool_is(m);
        return CZK_OK;
    }
    czk_fr m1, two;
    czk_fr_neg(&m1, &CZK_FR_ONE);
    czk_fr_dbl(&two, &CZK_FR_ONE);
    TRY(alloc_value(x->cs, &m, v));
    TRY(bit_and(x, &bc, b, c, vb, vc));
    CZK_LC_DECL(A, 4);
    CZK_LC_DECL(B, 2);
    CZK_LC_DECL(C, 3);
    if (czk_cs_builds_rows(x->cs)) {
        czk_lc_add_bool(&A, &bc, &two);
        czk_lc_add_bool(&A, b, &m1);
        czk_lc_add_bool(&A, c, &m1);
        czk_lc_add_bool(&B, a, &CZK_FR_ONE);
        czk_lc_add_bool(&C, &bc, &CZK_FR_ONE);
        czk_lc_sub_var(&C, m);
    }
    TRY(czk_cs_enforce(x->cs, &A, &B, &C));
    *out = czk_bool_is(m);
    return CZK_OK;
}

int czk_gadget_bool_sha256_ch(czk_cs *cs, czk_bool *out, const czk_bool *a, const czk_bool *b,
                              const czk_bool *c) {
    sha_ctx x = {.cs = cs}; /* the row path, whatever the mode: nothing is deferred */
    czk_bool r;
    TRY(czk_cs_status(cs));
    TRY(bit_ch(&x, &r, a, b, c, czk_bool_get_value(cs, a), czk_bool_get_value(cs, b),
               czk_bool_get_value(cs, c)));
    *out = r;
    return CZK_OK;
}

int czk_gadget_bool_sha256_maj(czk_cs *cs, czk_bool *out, const czk_bool *a, const czk_bool *b,
                               const czk_bool *c) {
    sha_ctx x = {.cs = cs};
    czk_bool r;
    TRY(czk_cs_status(cs));
    TRY(bit_maj(&x, &r, a, b, c, czk_bool_get_value(cs, a), czk_bool_get_value(cs, b),
                czk_bool_get_value(cs, c)));
    *out = r;
    return CZK_OK;
}

/* ---- UInt32 (bellperson uint32.rs) ---- */

static void word_const(sha_word *w, uint32_t v) {
    for (int i = 0; i < 32; i++)
        w->bit[i] = czk_bool_constant((int)((v >> i) & 1));
    w->val = v;
}

/* from_bits_be: be[0] is the most significant bit. */
static void word_from_bits_be(const czk_cs *cs, sha_word *w, const czk_bool *be) {
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) {
        w->bit[i] = be[31 - i];
        v |= (uint32_t)czk_bool_get_value(cs, &be[31 - i]) << i;
    }
    w->val = v;
}

/* From 32 bits LSB first (a UInt32's own bits). */
static void word_from_bits(const czk_cs *cs, sha_word *w, const czk_bool *le) {
    uint32_t v = 0;
    for (int i = 0; i < 32; i++) {
        w->bit[i] = le[i];
        v |= (uint32_t)czk_bool_get_value(cs, &le[i]) << i;
    }
    w->val = v;
}

static void word_rotr(sha_word *out, const sha_word *in, unsigned k) {
    for (unsigned i = 0; i < 32; i++)
        out->bit[i] = in->bit[(i + k) & 31];
    out->val = (in->val >> k) | (in->val << ((32 - k) & 31));
}

static void word_shr(sha_word *out, const sha_word *in, unsigned k) {
    for (unsigned i = 0; i < 32; i++)
        out->bit[i] = i + k < 32 ? in->bit[i + k] : czk_bool_constant(0);
    out->val = in->val >> k;
}

/* UInt32::xor, bit 0 first. out may be a or b. */
static int word_xor(sha_ctx *x, sha_word *out, const sha_word *a, const sha_word *b) {
    uint32_t av = a->val, bv = b->val;
    for (int i = 0; i < 32; i++)
        TRY(bit_xor(x, &out->bit[i], &a->bit[i], &b->bit[i], (int)((av >> i) & 1),
                    (int)((bv >> i) & 1)));
    out->val = av ^ bv;
    return CZK_OK;
}

static int word_ch(sha_ctx *x, sha_word *out, const sha_word *a, const sha_word *b,
                   const sha_word *c) {
    uint32_t av = a->val, bv = b->val, cv = c->val;
    for (int i = 0; i < 32; i++)
        TRY(bit_ch(x, &out->bit[i], &a->bit[i], &b->bit[i], &c->bit[i], (int)((av >> i) & 1),
                   (int)((bv >> i) & 1), (int)((cv >> i) & 1)));
    out->val = (av & bv) ^ (~av & cv);
    return CZK_OK;
}

static int word_maj(sha_ctx *x, sha_word *out, const sha_word *a, const sha_word *b,
                    const sha_word *c) {
    uint32_t av = a->val, bv = b->val, cv = c->val;
    for (int i = 0; i < 32; i++)
        TRY(bit_maj(x, &out->bit[i], &a->bit[i], &b->bit[i], &c->bit[i], (int)((av >> i) & 1),
                    (int)((bv >> i) & 1), (int)((cv >> i) & 1)));
    out->val = (av & bv) ^ (av & cv) ^ (bv & cv);
    return CZK_OK;
}

/* The S0/S1 pattern: xor(xor(rotr(w, r0), rotr(w, r1)), rotr(w, r2)), or with shr(w, r2) when
 * `shift` (the message schedule's σ). */
static int word_sigma(sha_ctx *x, sha_word *out, const sha_word *w, unsigned r0, unsigned r1,
                      unsigned r2, int shift) {
    word_rotr(&x->mem->t1, w, r0);
    word_rotr(&x->mem->t2, w, r1);
    TRY(word_xor(x, out, &x->mem->t1, &x->mem->t2));
    if (shift)
        word_shr(&x->mem->t1, w, r2);
    else
        word_rotr(&x->mem->t1, w, r2);
    return word_xor(x, out, out, &x->mem->t1);
}

/* ---- MultiEq (bellperson multieq.rs) ---- */

static int term_cmp(const void *p, const void *q) {
    /* inputs (ONE) before aux, each ascending: the order enforce would sort them into */
    uint32_t a = ((const sha_term *)p)->var ^ CZK_VAR_INPUT;
    uint32_t b = ((const sha_term *)q)->var ^ CZK_VAR_INPUT;
    return (a > b) - (a < b);
}

/* accumulate(): the row lhs·ONE = rhs, and an empty window. */
static int multieq_flush(sha_ctx *x) {
    x->bits_used = 0;
    if (x->fast) {
        x->n_rows++;
        return CZK_OK;
    }
    sha_rows *r = x->rows;
    /* Merge equal variables (LinearCombination's add); zero sums stay and enforce drops them. */
    qsort(r->lhs, r->n_lhs, sizeof r->lhs[0], term_cmp);
    uint32_t n = 0;
    for (uint32_t i = 0; i < r->n_lhs; i++) {
        if (n > 0 && r->lc_var[n - 1] == r->lhs[i].var) {
            czk_fr_add(&r->lc_coeff[n - 1], &r->lc_coeff[n - 1], &r->lhs[i].coeff);
        } else {
            r->lc_var[n] = r->lhs[i].var;
            r->lc_coeff[n] = r->lhs[i].coeff;
            n++;
        }
    }
    czk_lc A = {n, SHA_MAX_TERMS, 0, r->lc_var, r->lc_coeff};
    czk_lc C = {r->n_rhs, SHA_MAX_RHS, 0, r->rhs_var, r->rhs_coeff};
    CZK_LC_DECL(B, 1);
    czk_lc_add_var(&B, CZK_VAR_ONE);
    r->n_lhs = 0;
    r->n_rhs = 0;
    return czk_cs_enforce(x->cs, &A, &B, &C);
}

static inline void lhs_push(sha_rows *r, czk_var v, const czk_fr *coeff) {
    r->lhs[r->n_lhs].var = v;
    r->lhs[r->n_lhs].coeff = *coeff;
    r->n_lhs++;
}

/* enforce_equal(m, Σ_op Σ_i 2^i·lc(op_i), Σ_j 2^j·r_j): flush first when the window would
 * reach 254 bits, then add both sides scaled by 2^bits_used. */
static int multieq_enforce(sha_ctx *x, unsigned m, const sha_word *const *ops, size_t n,
                           const czk_var *res) {
    if (CZK_MULTIPACK_CHUNK <= x->bits_used + m)
        TRY(multieq_flush(x));
    if (!x->fast) {
        sha_rows *r = x->rows;
        const czk_fr *p2 = &r->pow2[x->bits_used];
        czk_fr neg;
        if (r->n_lhs + n * 64 > SHA_MAX_TERMS || r->n_rhs + m > SHA_MAX_RHS)
            return czk_cs_set_error(x->cs, CZK_EINTERNAL, "sha256 gadget: MultiEq bound");
        for (size_t k = 0; k < n; k++) {
            for (int i = 0; i < 32; i++) {
                const czk_bool *b = &ops[k]->bit[i];
                switch (b->kind) {
                case CZK_BOOL_CONST:
                    if (b->value)
                        lhs_push(r, CZK_VAR_ONE, &p2[i]);
                    break;
                case CZK_BOOL_IS:
                    lhs_push(r, b->var, &p2[i]);
                    break;
                default:
                    lhs_push(r, CZK_VAR_ONE, &p2[i]);
                    czk_fr_neg(&neg, &p2[i]);
                    lhs_push(r, b->var, &neg);
                    break;
                }
            }
        }
        for (unsigned j = 0; j < m; j++) {
            r->rhs_var[r->n_rhs] = res[j];
            r->rhs_coeff[r->n_rhs] = p2[j];
            r->n_rhs++;
        }
    }
    x->bits_used += m;
    return CZK_OK;
}

/* UInt32::addmany (2 … 10 operands): a constant when every bit is constant; otherwise the
 * bitlen(n·(2^32 − 1)) bits of the integer sum, allocated bit 0 first, tied to the operands
 * through the MultiEq, of which the low 32 are the result. */
static int word_addmany(sha_ctx *x, sha_word *out, const sha_word *const *ops, size_t n) {
    uint64_t sum = 0, max = (uint64_t)n * 0xffffffffu;
    int all_const = 1;
    czk_var res[40];
    unsigned m = 0;
    for (size_t k = 0; k < n; k++) {
        sum += ops[k]->val;
        for (int i = 0; i < 32 && all_const; i++)
            all_const = ops[k]->bit[i].kind == CZK_BOOL_CONST;
    }
    if (all_const) {
        word_const(out, (uint32_t)sum);
        return CZK_OK;
    }
    for (; max != 0; max >>= 1, m++) {
        int v = (int)((sum >> m) & 1);
        if (x->fast) {
            res[m] = fast_new(x, v);
            x->n_rows++;
        } else {
            TRY(czk_gadget_bit_alloc(x->cs, &res[m], v));
        }
    }
    TRY(multieq_enforce(x, m, ops, n, res));
    for (int i = 0; i < 32; i++)
        out->bit[i] = czk_bool_is(res[i]);
    out->val = (uint32_t)sum;
    return CZK_OK;
}

/* ---- the compression function (bellperson sha256.rs, doc/FILECOIN.md §12) ---- */

/* Maybe: Concrete(word) or Deferred(list of operands to add when needed). */
typedef struct sha_maybe {
    const sha_word *concrete; /* NULL when deferred */
    const sha_word *ops[8];
    size_t n;
} sha_maybe;

/* Maybe::compute(extra): a concrete word is returned as it is (extra ignored, as in Rust);
 * a deferred list gets `extra` appended and is added into *slot. */
static int maybe_compute(sha_ctx *x, const sha_word **out, sha_maybe *mb, const sha_word *extra,
                         sha_word *slot) {
    if (mb->concrete != NULL) {
        *out = mb->concrete;
        return CZK_OK;
    }
    if (extra != NULL)
        mb->ops[mb->n++] = extra;
    TRY(word_addmany(x, slot, mb->ops, mb->n));
    *out = slot;
    return CZK_OK;
}

/* One block on the chaining value cur; out (not aliasing cur) gets the new one. */
static int compress(sha_ctx *x, sha_word out[8], const czk_bool *block, const sha_word cur[8]) {
    const sha_word *ne, *na, *b, *c, *d, *f, *g, *h, *ops[4];
    sha_maybe a = {&cur[0], {0}, 0}, e = {&cur[4], {0}, 0};
    sha_mem *m = x->mem;
    sha_word *w = m->w;
    TRY(czk_cs_status(x->cs));
    if (x->fast)
        TRY(fast_begin(x));
    x->bits_used = 0;
    if (x->rows != NULL) {
        x->rows->n_lhs = 0;
        x->rows->n_rhs = 0;
    }
    for (int t = 0; t < 16; t++)
        word_from_bits_be(x->cs, &w[t], block + 32 * t);
    for (int i = 16; i < 64; i++) {
        sha_word *s0 = &m->s0[0], *s1 = &m->s1[0];
        TRY(word_sigma(x, s0, &w[i - 15], 7, 18, 3, 1));
        TRY(word_sigma(x, s1, &w[i - 2], 17, 19, 10, 1));
        ops[0] = &w[i - 16];
        ops[1] = s0;
        ops[2] = &w[i - 7];
        ops[3] = s1;
        TRY(word_addmany(x, &w[i], ops, 4));
    }
    b = &cur[1];
    c = &cur[2];
    d = &cur[3];
    f = &cur[5];
    g = &cur[6];
    h = &cur[7];
    for (int i = 0; i < 64; i++) {
        int p = i & 1;
        TRY(maybe_compute(x, &ne, &e, NULL, &m->e[i]));
        TRY(word_sigma(x, &m->s1[p], ne, 6, 11, 25, 0));
        TRY(word_ch(x, &m->ch[p], ne, f, g));
        word_const(&m->k[p], sha_k[i]);
        TRY(maybe_compute(x, &na, &a, NULL, &m->a[i]));
        TRY(word_sigma(x, &m->s0[p], na, 2, 13, 22, 0));
        TRY(word_maj(x, &m->maj[p], na, b, c));
        /* temp1 = [h, S1, ch, K, w]; e = temp1 ‖ [d]; a = temp1 ‖ [S0, maj] */
        const sha_word *temp1[5] = {h, &m->s1[p], &m->ch[p], &m->k[p], &w[i]};
        e.concrete = NULL;
        a.concrete = NULL;
        memcpy(e.ops, temp1, sizeof temp1);
        memcpy(a.ops, temp1, sizeof temp1);
        e.ops[5] = d;
        e.n = 6;
        a.ops[5] = &m->s0[p];
        a.ops[6] = &m->maj[p];
        a.n = 7;
        h = g;
        g = f;
        f = ne;
        d = c;
        c = b;
        b = na;
    }
    const sha_word *hk;
    TRY(maybe_compute(x, &hk, &a, &cur[0], &out[0]));
    if (hk != &out[0])
        out[0] = *hk;
    const sha_word *pairs[6][2] = {{&cur[1], b}, {&cur[2], c}, {&cur[3], d},
                                   {&cur[5], f}, {&cur[6], g}, {&cur[7], h}};
    for (int k = 0; k < 3; k++)
        TRY(word_addmany(x, &out[1 + k], pairs[k], 2));
    TRY(maybe_compute(x, &hk, &e, &cur[4], &out[4]));
    if (hk != &out[4])
        out[4] = *hk;
    for (int k = 3; k < 6; k++)
        TRY(word_addmany(x, &out[2 + k], pairs[k], 2));
    /* MultiEq's drop: the block's last row */
    if (x->bits_used > 0)
        TRY(multieq_flush(x));
    if (x->fast)
        TRY(fast_commit(x));
    return CZK_OK;
}

/* sha256(bits): pads with constants, hashes from the IV; out[256] is the digest, MSB first. */
static int hash_bits(czk_cs *cs, czk_bool out[256], const czk_bool *bits, size_t n_bits) {
    TRY(czk_cs_status(cs));
    if (n_bits % 8 != 0)
        return czk_cs_set_error(cs, CZK_EINVAL, "sha256 gadget: %zu bits, not whole bytes", n_bits);
    if (n_bits > SIZE_MAX / 2)
        return czk_cs_set_error(cs, CZK_EINVAL, "sha256 gadget: %zu bits is too long", n_bits);
    /* 1, zeros, then the 64-bit length: the smallest multiple of 512 holding n_bits + 65 */
    size_t total = (n_bits + 65 + 511) / 512 * 512;
    uint64_t len = (uint64_t)n_bits;
    sha_word hv[2][8];
    czk_bool blk[512];
    int cur = 0;
    sha_ctx x;
    int rc = ctx_init(&x, cs);
    for (int i = 0; i < 8; i++)
        word_const(&hv[0][i], sha_iv[i]);
    for (size_t off = 0; off < total && rc == CZK_OK; off += 512) {
        for (size_t j = 0; j < 512; j++) {
            size_t p = off + j;
            if (p < n_bits)
                blk[j] = bits[p];
            else if (p == n_bits)
                blk[j] = czk_bool_constant(1);
            else if (p < total - 64)
                blk[j] = czk_bool_constant(0);
            else
                blk[j] = czk_bool_constant((int)((len >> (63 - (p - (total - 64)))) & 1));
        }
        rc = compress(&x, hv[cur ^ 1], blk, hv[cur]);
        cur ^= 1;
    }
    if (rc == CZK_OK) {
        for (int i = 0; i < 8; i++)
            for (int j = 0; j < 32; j++)
                out[32 * i + j] = hv[cur][i].bit[31 - j]; /* into_bits_be */
    }
    ctx_clear(&x);
    return rc;
}

int czk_sha256_gadget(czk_cs *cs, czk_bool out[256], const czk_bool *bits, size_t n_bits) {
    czk_bool r[256];
    TRY(hash_bits(cs, r, bits, n_bits));
    memcpy(out, r, sizeof r);
    return CZK_OK;
}

int czk_sha256_gadget_compress(czk_cs *cs, czk_bool out[8][32], const czk_bool block[512],
                               const czk_bool cur[8][32]) {
    sha_word in[8], res[8];
    sha_ctx x;
    TRY(czk_cs_status(cs));
    TRY(ctx_init(&x, cs));
    for (int i = 0; i < 8; i++)
        word_from_bits(cs, &in[i], cur[i]);
    int rc = compress(&x, res, block, in);
    ctx_clear(&x);
    if (rc != CZK_OK)
        return rc;
    for (int i = 0; i < 8; i++)
        memcpy(out[i], res[i].bit, sizeof res[i].bit);
    return CZK_OK;
}

/* ---- rust-fil-proofs gadgets ---- */

void czk_gadget_reverse_bit_numbering(czk_bool *out, const czk_bool *in, size_t n) {
    for (size_t g = 0; g < (n + 7) / 8; g++) {
        for (size_t j = 0; j < 8; j++) {
            size_t src = 8 * g + 7 - j;
            out[8 * g + j] = src < n ? in[src] : czk_bool_constant(0);
        }
    }
}

/* hash_circuit: sha256, reverse_bit_numbering of the digest, pack_bits of its first 254
 * bits (the digest read little-endian, top two bits dropped). */
static int hash_circuit(czk_cs *cs, czk_var *out, const czk_bool *bits, size_t n_bits) {
    czk_bool digest[256], le[256];
    TRY(hash_bits(cs, digest, bits, n_bits));
    czk_gadget_reverse_bit_numbering(le, digest, 256);
    return czk_gadget_pack_bits(cs, out, le, CZK_MULTIPACK_CHUNK);
}

int czk_sha256_gadget_hash_leaves(czk_cs *cs, czk_var *out, const czk_var *leaves, size_t n) {
    czk_bool *msg = NULL, le[256];
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    if (n == 0 || n > SIZE_MAX / (256 * sizeof *msg) || leaves == NULL)
        return czk_cs_set_error(cs, CZK_EINVAL, "sha256 hash_leaves: %zu leaves", n);
    msg = czk_malloc(n * 256 * sizeof *msg);
    if (msg == NULL)
        return czk_cs_set_error(cs, CZK_ENOMEM, "sha256 hash_leaves: out of memory");
    for (size_t i = 0; i < n && rc == CZK_OK; i++) {
        rc = czk_gadget_num_to_bits_le(cs, le, leaves[i]);
        le[255] = czk_bool_constant(0);
        czk_gadget_reverse_bit_numbering(msg + 256 * i, le, 256);
    }
    czk_var r = 0;
    if (rc == CZK_OK)
        rc = hash_circuit(cs, &r, msg, 256 * n);
    czk_free(msg);
    if (rc == CZK_OK)
        *out = r;
    return rc;
}

/* The label's SHA input: 39 × 256 bits (1,248 bytes, 20 blocks with padding). */
#define LABEL_BITS (39 * 256)

int czk_sha256_gadget_label(czk_cs *cs, czk_var *out, const czk_bool replica_id[256],
                            uint32_t layer, const czk_bool node_bits[64],
                            const czk_bool *const parents[37]) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    for (int p = 0; p < 37; p++)
        if (parents[p] == NULL)
            return czk_cs_set_error(cs, CZK_EINVAL, "sha256 label: parent %d is NULL", p);
    czk_bool *msg = czk_malloc(LABEL_BITS * sizeof *msg);
    if (msg == NULL)
        return czk_cs_set_error(cs, CZK_ENOMEM, "sha256 label: out of memory");
    memcpy(msg, replica_id, 256 * sizeof *msg);
    for (int j = 0; j < 32; j++) /* UInt32::constant(layer).into_bits_be() */
        msg[256 + j] = czk_bool_constant((int)((layer >> (31 - j)) & 1));
    for (int j = 0; j < 64; j++) /* UInt64::to_bits_be() */
        msg[288 + j] = node_bits[63 - j];
    for (int j = 352; j < 512; j++)
        msg[j] = czk_bool_constant(0);
    for (int p = 0; p < 37; p++)
        memcpy(msg + 512 + 256 * p, parents[p], 256 * sizeof *msg);
    czk_var r = 0;
    rc = hash_circuit(cs, &r, msg, LABEL_BITS);
    czk_free(msg);
    if (rc == CZK_OK)
        *out = r;
    return rc;
}

int czk_sha256_gadget_por(czk_cs *cs, czk_var *computed, uint32_t n_levels,
                          const czk_por_root *value, const czk_vanilla_level *path,
                          const czk_por_root *root, int private_root) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    if (n_levels == 0 || n_levels > CZK_POR_MAX_LEVELS)
        return czk_cs_set_error(cs, CZK_EINVAL, "sha256 por: %u levels", n_levels);
    if (czk_cs_has_values(cs) && path == NULL)
        return czk_cs_set_error(cs, CZK_EINVAL, "sha256 por: values need a path");
    for (uint32_t l = 0; path != NULL && l < n_levels; l++)
        if (path[l].arity != 2 || path[l].index >= 2)
            return czk_cs_set_error(cs, CZK_EINVAL, "sha256 por: level %u has arity %u index %u", l,
                                    path[l].arity, path[l].index);
    czk_bool bits[CZK_POR_MAX_LEVELS];
    czk_var cur, rt;
    if (value->kind == CZK_POR_ROOT_VAR)
        cur = value->var;
    else
        TRY(czk_gadget_num_alloc(cs, &cur, &value->val));
    for (uint32_t l = 0; l < n_levels; l++) {
        czk_var b, sib, ins[2];
        TRY(czk_gadget_bit_alloc(cs, &b, path ? (int)(path[l].index & 1) : 0));
        bits[l] = czk_bool_is(b);
        TRY(czk_gadget_num_alloc(cs, &sib, path ? &path[l].sib[0] : NULL));
        TRY(czk_gadget_insert(cs, ins, cur, &bits[l], 1, &sib, 1));
        TRY(czk_sha256_gadget_hash_leaves(cs, &cur, ins, 2));
    }
    TRY(czk_gadget_pack_into_inputs(cs, bits, n_levels));
    if (root->kind == CZK_POR_ROOT_VAR)
        rt = root->var;
    else
        TRY(czk_gadget_num_alloc(cs, &rt, &root->val));
    TRY(czk_gadget_equal(cs, cur, rt));
    if (!private_root)
        TRY(czk_gadget_num_inputize(cs, NULL, rt));
    if (computed != NULL)
        *computed = cur;
    return CZK_OK;
}
