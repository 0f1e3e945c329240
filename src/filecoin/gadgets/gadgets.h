/*
 * The basic gadgets of bellpepper/bellperson/rust-fil-proofs, constraint-exact
 * (doc/FILECOIN.md §2): the same allocations in the same order, the same rows in the
 * same order, the same linear combinations. Each is a plain function over a czk_cs and runs
 * unchanged in COUNT, RECORD and WITNESS mode; it computes its witness values when
 * the system carries values, and builds rows only when czk_cs_builds_rows() says so.
 *
 * Every function returns CZK_OK or the system's (sticky) error code; outputs are written only
 * on success. Thread-safety: as the czk_cs used.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb), bellpepper-core 0.2.1 (@4bde01b).
 */
#ifndef CZK_FILECOIN_GADGETS_GADGETS_H
#define CZK_FILECOIN_GADGETS_GADGETS_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/gadgets/cs.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- Boolean (bellpepper gadgets/boolean.rs) ---- */

typedef enum czk_bool_kind {
    CZK_BOOL_CONST = 0, /* Constant(value) */
    CZK_BOOL_IS = 1,    /* Is(var) */
    CZK_BOOL_NOT = 2,   /* Not(var) */
} czk_bool_kind;

typedef struct czk_bool {
    czk_bool_kind kind;
    int value;   /* CONST only: 0 or 1 */
    czk_var var; /* IS and NOT only: an AllocatedBit */
} czk_bool;

static inline czk_bool czk_bool_constant(int value) {
    czk_bool b = {CZK_BOOL_CONST, value != 0, 0};
    return b;
}
static inline czk_bool czk_bool_is(czk_var v) {
    czk_bool b = {CZK_BOOL_IS, 0, v};
    return b;
}
/* Boolean::not: free, Is <-> Not, Constant(b) -> Constant(!b). */
static inline czk_bool czk_bool_not(czk_bool b) {
    if (b.kind == CZK_BOOL_CONST)
        b.value = !b.value;
    else
        b.kind = b.kind == CZK_BOOL_IS ? CZK_BOOL_NOT : CZK_BOOL_IS;
    return b;
}

/* The bit's value (0 without values). */
int czk_bool_get_value(const czk_cs *cs, const czk_bool *b);

/* lc += coeff·lc(b): Is v -> coeff·v, Not v -> coeff·ONE - coeff·v, Constant 1 -> coeff·ONE,
 * Constant 0 -> nothing (Boolean::lc). */
void czk_lc_add_bool(czk_lc *lc, const czk_bool *b, const czk_fr *coeff);

/* AllocatedBit::alloc: alloc b (= value); row (ONE - b)·b = 0. */
int czk_gadget_bit_alloc(czk_cs *cs, czk_var *out, int value);
/* AllocatedBit::xor: alloc r; row (2a)·b = a + b - r. */
int czk_gadget_bit_xor(czk_cs *cs, czk_var *out, czk_var a, czk_var b);
/* AllocatedBit::and: alloc r; row a·b = r. */
int czk_gadget_bit_and(czk_cs *cs, czk_var *out, czk_var a, czk_var b);
/* AllocatedBit::and_not (a ∧ ¬b): alloc r; row a·(ONE - b) = r. */
int czk_gadget_bit_and_not(czk_cs *cs, czk_var *out, czk_var a, czk_var b);
/* AllocatedBit::nor: alloc r; row (ONE - a)·(ONE - b) = r. */
int czk_gadget_bit_nor(czk_cs *cs, czk_var *out, czk_var a, czk_var b);

/* Boolean::xor and Boolean::and with bellpepper's arm order and constant folding (FILECOIN.md §2):
 * constants emit no rows; the arm decides which operand is `a`. */
int czk_gadget_bool_xor(czk_cs *cs, czk_bool *out, const czk_bool *a, const czk_bool *b);
int czk_gadget_bool_and(czk_cs *cs, czk_bool *out, const czk_bool *a, const czk_bool *b);

/* ---- AllocatedNum (bellpepper gadgets/num.rs) ---- */

/* AllocatedNum::alloc: alloc x (no row). `value` may be NULL when the system has no values. */
int czk_gadget_num_alloc(czk_cs *cs, czk_var *out, const czk_fr *value);
/* AllocatedNum::inputize: alloc_input i (= x); row i·ONE = x. `out` may be NULL. */
int czk_gadget_num_inputize(czk_cs *cs, czk_var *out, czk_var x);
/* AllocatedNum::to_bits_le (non-strict): 255 × bit_alloc (LSB first), then row
 * 0·0 = Σ 2^i·b_i - x. out[255] gets Is(b_i). */
int czk_gadget_num_to_bits_le(czk_cs *cs, czk_bool out[255], czk_var x);
/* AllocatedNum::square: alloc y = x²; row x·x = y. */
int czk_gadget_num_square(czk_cs *cs, czk_var *out, czk_var x);

/* ---- multipack (bellperson gadgets/multipack.rs) ---- */

/* Bits per packed chunk: Fr::CAPACITY. */
#define CZK_MULTIPACK_CHUNK 254

/* pack_into_inputs: per chunk of ≤ 254 bits, alloc_input p (= Σ 2^i·bit_i); row
 * (Σ 2^i·lc(bit_i))·ONE = p. */
int czk_gadget_pack_into_inputs(czk_cs *cs, const czk_bool *bits, size_t n);
/* pack_bits: of the first ≤ 254 bits, alloc v; row (Σ 2^i·lc(bit_i))·ONE = v. */
int czk_gadget_pack_bits(czk_cs *cs, czk_var *out, const czk_bool *bits, size_t n);

/* ---- rust-fil-proofs helpers (storage-proofs-core/src/gadgets) ---- */

/* UInt64::alloc: 64 × bit_alloc, bit 0 first (value bit i = (value >> i) & 1). */
int czk_gadget_uint64_alloc(czk_cs *cs, czk_bool out[64], uint64_t value);
/* UInt64::pack_into_input = pack_into_inputs(bits LE): 1 input, 1 row. */
int czk_gadget_uint64_pack_into_input(czk_cs *cs, const czk_bool bits[64]);

/* constraint::equal: row a·ONE = b. */
int czk_gadget_equal(czk_cs *cs, czk_var a, czk_var b);

/* The row a·b = c over single variables (the form of AND, squaring, mul and equal). */
int czk_gadget_enforce_product(czk_cs *cs, czk_var a, czk_var b, czk_var c);
/* constraint::add: alloc r = a + b; row (a + b)·ONE = r. */
int czk_gadget_add(czk_cs *cs, czk_var *out, czk_var a, czk_var b);

/* insertion::pick (= a if cond else b): alloc c; row (b - a)·lc(cond) = b - c. */
int czk_gadget_pick(czk_cs *cs, czk_var *out, const czk_bool *cond, czk_var a, czk_var b);

/*
 * insertion::insert: out[0..arity) is the preimage with `element` at position index(bits),
 * the `n_siblings` siblings filling the rest in order; arity = n_siblings + 1 ∈ {2, 4, 8} and
 * n_bits = log2(arity). insert_2/4/8 pick orders of FILECOIN.md §2: 2, 8 and 22 rows. insert_8
 * needs bits 0 and 1 to be Is (RFP panics otherwise; here CZK_EINVAL).
 */
int czk_gadget_insert(czk_cs *cs, czk_var *out, czk_var element, const czk_bool *bits,
                      size_t n_bits, const czk_var *siblings, size_t n_siblings);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_GADGETS_GADGETS_H */
