/*
 * Basic gadgets (contract in gadgets.h). Each follows its bellpepper/RFP source line for line
 * in what it allocates and enforces; the comments name the source and say where an order or
 * an LC shape is load-bearing. Rows are built only when czk_cs_builds_rows() is set, so the
 * WITNESS mode does no LC work; values are computed only when the system carries them.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb), bellpepper-core 0.2.1 (@4bde01b).
 */
#include "filecoin/gadgets/gadgets.h"

#include <string.h>

#include "filecoin/gadgets/gadget_internal.h"

/* Value of an allocated bit (0 without values). */
static int bit_value(const czk_cs *cs, czk_var v) {
    const czk_fr *x = czk_cs_value(cs, v);
    return x ? czk_fr_is_one(x) : 0;
}

static void fr_from_bit(czk_fr *r, int bit) {
    if (bit)
        czk_fr_set_one(r);
    else
        czk_fr_set_zero(r);
}

/* Allocates an aux holding a bit value (the value is ignored without values). */
static int alloc_bit_value(czk_cs *cs, czk_var *out, int bit) {
    czk_fr v;
    fr_from_bit(&v, bit);
    return czk_cs_alloc(cs, out, &v);
}

int czk_bool_get_value(const czk_cs *cs, const czk_bool *b) {
    switch (b->kind) {
    case CZK_BOOL_CONST:
        return b->value;
    case CZK_BOOL_IS:
        return bit_value(cs, b->var);
    default:
        return !bit_value(cs, b->var);
    }
}

void czk_lc_add_bool(czk_lc *lc, const czk_bool *b, const czk_fr *coeff) {
    czk_fr m;
    switch (b->kind) {
    case CZK_BOOL_CONST:
        if (b->value)
            czk_lc_add(lc, CZK_VAR_ONE, coeff);
        break;
    case CZK_BOOL_IS:
        czk_lc_add(lc, b->var, coeff);
        break;
    default:
        czk_lc_add(lc, CZK_VAR_ONE, coeff);
        czk_fr_neg(&m, coeff);
        czk_lc_add(lc, b->var, &m);
        break;
    }
}

/* ---- AllocatedBit (bellpepper's boolean.rs) ---- */

int czk_gadget_enforce_product(czk_cs *cs, czk_var a, czk_var b, czk_var c) {
    CZK_LC_DECL(A, 1);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        czk_lc_add_var(&A, a);
        czk_lc_add_var(&B, b);
        czk_lc_add_var(&C, c);
    }
    return czk_cs_enforce(cs, &A, &B, &C);
}

int czk_gadget_bit_alloc(czk_cs *cs, czk_var *out, int value) {
    czk_var b;
    TRY(alloc_bit_value(cs, &b, value != 0));
    CZK_LC_DECL(A, 2);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        /* (ONE - b)·b = 0 */
        czk_lc_add_var(&A, CZK_VAR_ONE);
        czk_lc_sub_var(&A, b);
        czk_lc_add_var(&B, b);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    *out = b;
    return CZK_OK;
}

int czk_gadget_bit_xor(czk_cs *cs, czk_var *out, czk_var a, czk_var b) {
    czk_var r;
    TRY(alloc_bit_value(cs, &r, bit_value(cs, a) ^ bit_value(cs, b)));
    CZK_LC_DECL(A, 1);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 3);
    if (czk_cs_builds_rows(cs)) {
        /* (a + a)·b = a + b - r: A merges into the single term 2·a. */
        czk_lc_add_var(&A, a);
        czk_lc_add_var(&A, a);
        czk_lc_add_var(&B, b);
        czk_lc_add_var(&C, a);
        czk_lc_add_var(&C, b);
        czk_lc_sub_var(&C, r);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    *out = r;
    return CZK_OK;
}

int czk_gadget_bit_and(czk_cs *cs, czk_var *out, czk_var a, czk_var b) {
    czk_var r;
    TRY(alloc_bit_value(cs, &r, bit_value(cs, a) & bit_value(cs, b)));
    TRY(czk_gadget_enforce_product(cs, a, b, r));
    *out = r;
    return CZK_OK;
}

int czk_gadget_bit_and_not(czk_cs *cs, czk_var *out, czk_var a, czk_var b) {
    czk_var r;
    TRY(alloc_bit_value(cs, &r, bit_value(cs, a) & !bit_value(cs, b)));
    CZK_LC_DECL(A, 1);
    CZK_LC_DECL(B, 2);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        czk_lc_add_var(&A, a);
        czk_lc_add_var(&B, CZK_VAR_ONE);
        czk_lc_sub_var(&B, b);
        czk_lc_add_var(&C, r);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    *out = r;
    return CZK_OK;
}

int czk_gadget_bit_nor(czk_cs *cs, czk_var *out, czk_var a, czk_var b) {
    czk_var r;
    TRY(alloc_bit_value(cs, &r, !bit_value(cs, a) && !bit_value(cs, b)));
    CZK_LC_DECL(A, 2);
    CZK_LC_DECL(B, 2);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        czk_lc_add_var(&A, CZK_VAR_ONE);
        czk_lc_sub_var(&A, a);
        czk_lc_add_var(&B, CZK_VAR_ONE);
        czk_lc_sub_var(&B, b);
        czk_lc_add_var(&C, r);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    *out = r;
    return CZK_OK;
}

/* ---- Boolean dispatch arms in bellpepper's order ---- */

static int is_const(const czk_bool *b, int v) {
    return b->kind == CZK_BOOL_CONST && b->value == v;
}

int czk_gadget_bool_xor(czk_cs *cs, czk_bool *out, const czk_bool *a, const czk_bool *b) {
    czk_var r;
    if (czk_cs_status(cs) != CZK_OK)
        return czk_cs_status(cs);
    if (is_const(a, 0)) {
        *out = *b;
    } else if (is_const(b, 0)) {
        *out = *a;
    } else if (is_const(a, 1)) {
        *out = czk_bool_not(*b);
    } else if (is_const(b, 1)) {
        *out = czk_bool_not(*a);
    } else if (a->kind != b->kind) {
        /* (Is p, Not q) | (Not q, Is p) => ¬xor(p, q): the Is operand is always `a`. */
        czk_var p = a->kind == CZK_BOOL_IS ? a->var : b->var;
        czk_var q = a->kind == CZK_BOOL_IS ? b->var : a->var;
        TRY(czk_gadget_bit_xor(cs, &r, p, q));
        out->kind = CZK_BOOL_NOT;
        out->value = 0;
        out->var = r;
    } else {
        /* (Is p, Is q) | (Not p, Not q) => Is(xor(p, q)) in argument order. */
        TRY(czk_gadget_bit_xor(cs, &r, a->var, b->var));
        *out = czk_bool_is(r);
    }
    return CZK_OK;
}

int czk_gadget_bool_and(czk_cs *cs, czk_bool *out, const czk_bool *a, const czk_bool *b) {
    czk_var r;
    if (czk_cs_status(cs) != CZK_OK)
        return czk_cs_status(cs);
    if (is_const(a, 0) || is_const(b, 0)) {
        *out = czk_bool_constant(0);
        return CZK_OK;
    }
    if (is_const(a, 1)) {
        *out = *b;
        return CZK_OK;
    }
    if (is_const(b, 1)) {
        *out = *a;
        return CZK_OK;
    }
    if (a->kind == CZK_BOOL_IS && b->kind == CZK_BOOL_NOT)
        TRY(czk_gadget_bit_and_not(cs, &r, a->var, b->var));
    else if (a->kind == CZK_BOOL_NOT && b->kind == CZK_BOOL_IS)
        TRY(czk_gadget_bit_and_not(cs, &r, b->var, a->var)); /* (Not q, Is p) => and_not(p, q) */
    else if (a->kind == CZK_BOOL_NOT)
        TRY(czk_gadget_bit_nor(cs, &r, a->var, b->var));
    else
        TRY(czk_gadget_bit_and(cs, &r, a->var, b->var));
    *out = czk_bool_is(r);
    return CZK_OK;
}

/* ---- AllocatedNum (bellpepper's num.rs) ---- */

int czk_gadget_num_alloc(czk_cs *cs, czk_var *out, const czk_fr *value) {
    return czk_cs_alloc(cs, out, value);
}

int czk_gadget_num_inputize(czk_cs *cs, czk_var *out, czk_var x) {
    czk_var i;
    TRY(czk_cs_alloc_input(cs, &i, czk_cs_value(cs, x)));
    CZK_LC_DECL(A, 1);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        czk_lc_add_var(&A, i);
        czk_lc_add_var(&B, CZK_VAR_ONE);
        czk_lc_add_var(&C, x);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    if (out)
        *out = i;
    return CZK_OK;
}

int czk_gadget_num_to_bits_le(czk_cs *cs, czk_bool out[255], czk_var x) {
    uint64_t limbs[CZK_FR_LIMBS] = {0};
    const czk_fr *xv = czk_cs_value(cs, x);
    if (xv)
        czk_fr_to_limbs(limbs, xv); /* the canonical integer, < r < 2^255 */
    czk_var bits[255];
    for (int i = 0; i < 255; i++)
        TRY(czk_gadget_bit_alloc(cs, &bits[i], (int)((limbs[i / 64] >> (i % 64)) & 1)));
    CZK_LC_DECL(A, 1);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 256);
    if (czk_cs_builds_rows(cs)) {
        /* 0·0 = Σ 2^i·b_i - x (field_into_allocated_bits_le's unpacking row). */
        czk_fr coeff = CZK_FR_ONE;
        for (int i = 0; i < 255; i++) {
            czk_lc_add(&C, bits[i], &coeff);
            czk_fr_dbl(&coeff, &coeff);
        }
        czk_lc_sub_var(&C, x);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    for (int i = 0; i < 255; i++)
        out[i] = czk_bool_is(bits[i]);
    return CZK_OK;
}

int czk_gadget_num_square(czk_cs *cs, czk_var *out, czk_var x) {
    czk_var y;
    czk_fr yv;
    const czk_fr *xv = czk_cs_value(cs, x);
    if (xv)
        czk_fr_sqr(&yv, xv);
    TRY(czk_cs_alloc(cs, &y, xv ? &yv : NULL));
    TRY(czk_gadget_enforce_product(cs, x, x, y));
    *out = y;
    return CZK_OK;
}

/* ---- multipack (bellperson's multipack) ---- */

/* Σ 2^i·bit_i over n ≤ 254 bits, as a field element. */
static void pack_value(const czk_cs *cs, czk_fr *r, const czk_bool *bits, size_t n) {
    czk_fr coeff = CZK_FR_ONE;
    czk_fr_set_zero(r);
    for (size_t i = 0; i < n; i++) {
        if (czk_bool_get_value(cs, &bits[i]))
            czk_fr_add(r, r, &coeff);
        czk_fr_dbl(&coeff, &coeff);
    }
}

/* (Σ 2^i·lc(bit_i))·ONE = v over n ≤ 254 bits. Not bits put ONE in A; the terms merge. */
static int pack_row(czk_cs *cs, const czk_bool *bits, size_t n, czk_var v) {
    CZK_LC_DECL(A, CZK_MULTIPACK_CHUNK + 1);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        czk_fr coeff = CZK_FR_ONE;
        for (size_t i = 0; i < n; i++) {
            czk_lc_add_bool(&A, &bits[i], &coeff);
            czk_fr_dbl(&coeff, &coeff);
        }
        czk_lc_add_var(&B, CZK_VAR_ONE);
        czk_lc_add_var(&C, v);
    }
    return czk_cs_enforce(cs, &A, &B, &C);
}

int czk_gadget_pack_into_inputs(czk_cs *cs, const czk_bool *bits, size_t n) {
    for (size_t off = 0; off < n; off += CZK_MULTIPACK_CHUNK) {
        size_t len = n - off < CZK_MULTIPACK_CHUNK ? n - off : CZK_MULTIPACK_CHUNK;
        czk_fr v;
        czk_var p;
        pack_value(cs, &v, bits + off, len);
        TRY(czk_cs_alloc_input(cs, &p, &v));
        TRY(pack_row(cs, bits + off, len, p));
    }
    return czk_cs_status(cs);
}

int czk_gadget_pack_bits(czk_cs *cs, czk_var *out, const czk_bool *bits, size_t n) {
    size_t len = n < CZK_MULTIPACK_CHUNK ? n : CZK_MULTIPACK_CHUNK;
    czk_fr v;
    czk_var p;
    pack_value(cs, &v, bits, len);
    TRY(czk_cs_alloc(cs, &p, &v));
    TRY(pack_row(cs, bits, len, p));
    *out = p;
    return CZK_OK;
}

/* ---- RFP helpers ---- */

int czk_gadget_uint64_alloc(czk_cs *cs, czk_bool out[64], uint64_t value) {
    czk_var bits[64];
    for (int i = 0; i < 64; i++)
        TRY(czk_gadget_bit_alloc(cs, &bits[i], (int)((value >> i) & 1)));
    for (int i = 0; i < 64; i++)
        out[i] = czk_bool_is(bits[i]);
    return CZK_OK;
}

int czk_gadget_uint64_pack_into_input(czk_cs *cs, const czk_bool bits[64]) {
    return czk_gadget_pack_into_inputs(cs, bits, 64);
}

int czk_gadget_equal(czk_cs *cs, czk_var a, czk_var b) {
    return czk_gadget_enforce_product(cs, a, CZK_VAR_ONE, b);
}

int czk_gadget_add(czk_cs *cs, czk_var *out, czk_var a, czk_var b) {
    czk_var r;
    czk_fr rv;
    const czk_fr *av = czk_cs_value(cs, a), *bv = czk_cs_value(cs, b);
    if (av && bv)
        czk_fr_add(&rv, av, bv);
    TRY(czk_cs_alloc(cs, &r, av && bv ? &rv : NULL));
    CZK_LC_DECL(A, 2);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        czk_lc_add_var(&A, a);
        czk_lc_add_var(&A, b);
        czk_lc_add_var(&B, CZK_VAR_ONE);
        czk_lc_add_var(&C, r);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    *out = r;
    return CZK_OK;
}

int czk_gadget_pick(czk_cs *cs, czk_var *out, const czk_bool *cond, czk_var a, czk_var b) {
    czk_var c;
    const czk_fr *cv = NULL;
    if (czk_cs_has_values(cs))
        cv = czk_cs_value(cs, czk_bool_get_value(cs, cond) ? a : b);
    TRY(czk_cs_alloc(cs, &c, cv));
    CZK_LC_DECL(A, 2);
    CZK_LC_DECL(B, 2);
    CZK_LC_DECL(C, 2);
    if (czk_cs_builds_rows(cs)) {
        /* (b - a)·lc(cond) = b - c */
        czk_lc_add_var(&A, b);
        czk_lc_sub_var(&A, a);
        czk_lc_add_bool(&B, cond, &CZK_FR_ONE);
        czk_lc_add_var(&C, b);
        czk_lc_sub_var(&C, c);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    *out = c;
    return CZK_OK;
}

/* ---- insertion (rust-fil-proofs' insertion gadget) ---- */

static int insert_2(czk_cs *cs, czk_var *out, czk_var x, const czk_bool *bits, const czk_var *s) {
    TRY(czk_gadget_pick(cs, &out[0], &bits[0], s[0], x));
    TRY(czk_gadget_pick(cs, &out[1], &bits[0], x, s[0]));
    return CZK_OK;
}

static int insert_4(czk_cs *cs, czk_var *out, czk_var a, const czk_bool *bits, const czk_var *s) {
    const czk_bool *b0 = &bits[0], *b1 = &bits[1];
    czk_var b = s[0], c = s[1], d = s[2], t;
    TRY(czk_gadget_pick(cs, &t, b0, b, a)); /* p0_x0 */
    TRY(czk_gadget_pick(cs, &out[0], b1, b, t));
    TRY(czk_gadget_pick(cs, &t, b0, a, b)); /* p1_x0 */
    TRY(czk_gadget_pick(cs, &out[1], b1, c, t));
    TRY(czk_gadget_pick(cs, &t, b0, d, a)); /* p2_x1 */
    TRY(czk_gadget_pick(cs, &out[2], b1, t, c));
    TRY(czk_gadget_pick(cs, &t, b0, a, d)); /* p3_x1 */
    TRY(czk_gadget_pick(cs, &out[3], b1, t, d));
    return CZK_OK;
}

static int insert_8(czk_cs *cs, czk_var *out, czk_var a, const czk_bool *bits, const czk_var *s) {
    const czk_bool *b0 = &bits[0], *b1 = &bits[1], *b2 = &bits[2];
    czk_var b = s[0], c = s[1], d = s[2], e = s[3], f = s[4], g = s[5], h = s[6], t, u, nv, av;
    if (b0->kind != CZK_BOOL_IS || b1->kind != CZK_BOOL_IS)
        return czk_cs_set_error(cs, CZK_EINVAL,
                                "insert_8: bits 0 and 1 must be allocated and unnegated");
    TRY(czk_gadget_bit_nor(cs, &nv, b0->var, b1->var));
    TRY(czk_gadget_bit_and(cs, &av, b0->var, b1->var));
    czk_bool nor = czk_bool_is(nv), and = czk_bool_is(av);
    TRY(czk_gadget_pick(cs, &t, &nor, a, b)); /* p0_xx0 */
    TRY(czk_gadget_pick(cs, &out[0], b2, b, t));
    TRY(czk_gadget_pick(cs, &t, b0, a, b)); /* p1_x00 */
    TRY(czk_gadget_pick(cs, &u, b1, c, t)); /* p1_xx0 */
    TRY(czk_gadget_pick(cs, &out[1], b2, c, u));
    TRY(czk_gadget_pick(cs, &t, b0, d, a)); /* p2_x10 */
    TRY(czk_gadget_pick(cs, &u, b1, t, c)); /* p2_xx0 */
    TRY(czk_gadget_pick(cs, &out[2], b2, d, u));
    TRY(czk_gadget_pick(cs, &t, &and, a, d)); /* p3_xx0 */
    TRY(czk_gadget_pick(cs, &out[3], b2, e, t));
    TRY(czk_gadget_pick(cs, &t, &nor, a, f)); /* p4_xx1 */
    TRY(czk_gadget_pick(cs, &out[4], b2, t, e));
    TRY(czk_gadget_pick(cs, &t, b0, a, f)); /* p5_x01 */
    TRY(czk_gadget_pick(cs, &u, b1, g, t)); /* p5_xx1 */
    TRY(czk_gadget_pick(cs, &out[5], b2, u, f));
    TRY(czk_gadget_pick(cs, &t, b0, h, a)); /* p6_x11 */
    TRY(czk_gadget_pick(cs, &u, b1, t, g)); /* p6_xx1 */
    TRY(czk_gadget_pick(cs, &out[6], b2, u, g));
    TRY(czk_gadget_pick(cs, &t, &and, a, h)); /* p7_xx1 */
    TRY(czk_gadget_pick(cs, &out[7], b2, t, h));
    return CZK_OK;
}

int czk_gadget_insert(czk_cs *cs, czk_var *out, czk_var element, const czk_bool *bits,
                      size_t n_bits, const czk_var *siblings, size_t n_siblings) {
    size_t arity = n_siblings + 1;
    size_t want = arity == 2 ? 1 : arity == 4 ? 2 : arity == 8 ? 3 : 0;
    if (czk_cs_status(cs) != CZK_OK)
        return czk_cs_status(cs);
    if (!want || n_bits != want)
        return czk_cs_set_error(cs, CZK_EINVAL, "insert: arity %zu with %zu bits is unsupported",
                                arity, n_bits);
    if (arity == 2)
        return insert_2(cs, out, element, bits, siblings);
    if (arity == 4)
        return insert_4(cs, out, element, bits, siblings);
    return insert_8(cs, out, element, bits, siblings);
}
