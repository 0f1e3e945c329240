/*
 * A bellperson-compatible constraint system, so that each Filecoin gadget is written once and
 * drives counting, recording and witness generation.
 *
 * Semantics follow doc/FILECOIN.md §1 (bellperson's ProvingAssignment / KeypairAssembly):
 * two index spaces, inputs and aux, each allocated in call order; input 0 is ONE and is
 * allocated by czk_cs_create; `enforce` appends one row at call time; namespaces do not exist
 * (they change nothing). The Groth16 input rows (A = {input_i: 1}) are NOT stored, as in
 * czk_r1cs; they are counted in the digest (doc/FILECOIN.md §8) and their number is n_inputs.
 *
 * Modes, fixed at creation:
 *  - CZK_CS_COUNT: counts rows, inputs, aux, nonzero entries of A/B/C and the three densities
 *    of doc/FILECOIN.md §1, and (with CZK_CS_DIGEST) streams the digest of §8. Memory is O(aux)
 * bits (two growable bitmaps), never the matrices: it is meant for the 125 M-row circuits.
 *  - CZK_CS_RECORD: as COUNT, and also keeps every row; czk_cs_finish_r1cs turns them into a
 *    czk_r1cs in czk's numbering (bellperson input k -> column k, aux j -> column n_inputs + j;
 *    n_inputs is known only at the end, so rows hold tagged references until then).
 *  - CZK_CS_WITNESS: values only. Allocation stores values; enforce is never needed, and
 *    gadgets skip building linear combinations when czk_cs_builds_rows() is 0. The values
 *    may live in caller memory (czk_cs_bind_values), so that a witness is written where the
 *    prover wants it instead of being copied there afterwards.
 * Flags: CZK_CS_VALUES makes COUNT/RECORD keep values too (WITNESS always does); CZK_CS_CHECK
 * (implies VALUES) evaluates every row as it is enforced and fails with CZK_EVERIFY at the
 * first unsatisfied row (czk_cs_bad_row names it). In WITNESS mode CHECK also makes gadgets
 * build rows, which are then evaluated but not kept. CZK_CS_DIGEST streams the digest.
 *
 * Variables are czk_var: aux j is j, input k is CZK_VAR_INPUT | k (so ONE = CZK_VAR_ONE).
 * Aux and input indices are below 2^31.
 *
 * Errors are sticky: after a failure every later call returns the same code, so a gadget may
 * run to the end and the caller checks once; gadgets still return the code at each step.
 *
 * Thread-safety: a czk_cs is used by one thread at a time. No global state.
 */
#ifndef CZK_FILECOIN_GADGETS_CS_H
#define CZK_FILECOIN_GADGETS_CS_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t czk_var;

#define CZK_VAR_INPUT 0x80000000u
#define CZK_VAR_ONE CZK_VAR_INPUT
#define CZK_VAR_INDEX_MAX 0x7fffffffu

static inline int czk_var_is_input(czk_var v) {
    return (v & CZK_VAR_INPUT) != 0;
}
static inline uint32_t czk_var_index(czk_var v) {
    return v & ~CZK_VAR_INPUT;
}

/* ---- linear combinations ---- */

/*
 * A linear combination over caller-provided storage of fixed capacity (declare it with
 * CZK_LC_DECL on the stack). Adding a term on a variable already present adds the
 * coefficients (bellperson's LC maps); a coefficient that sums to zero stays until enforce,
 * which drops zero terms (FILECOIN.md §1: they contribute nothing, the prover ignores them).
 * Exceeding the capacity sets `overflow`, and enforce then fails with CZK_EINVAL.
 */
typedef struct czk_lc {
    uint32_t n, cap;
    int overflow;
    czk_var *vars;
    czk_fr *coeffs; /* Montgomery form */
} czk_lc;

#define CZK_LC_DECL(name, capacity)                                                                \
    czk_var name##_vars_[(capacity)];                                                              \
    czk_fr name##_coeffs_[(capacity)];                                                             \
    czk_lc name = {0, (capacity), 0, name##_vars_, name##_coeffs_}

static inline void czk_lc_reset(czk_lc *lc) {
    lc->n = 0;
    lc->overflow = 0;
}

/* lc += coeff·v (merging with an existing term on v). A zero coeff adds nothing. */
void czk_lc_add(czk_lc *lc, czk_var v, const czk_fr *coeff);
/* lc += v, lc -= v: coefficient ±1. */
void czk_lc_add_var(czk_lc *lc, czk_var v);
void czk_lc_sub_var(czk_lc *lc, czk_var v);

/* ---- the constraint system ---- */

typedef enum czk_cs_mode { CZK_CS_COUNT = 0, CZK_CS_RECORD = 1, CZK_CS_WITNESS = 2 } czk_cs_mode;

enum {
    CZK_CS_VALUES = 1u << 0, /* keep values in COUNT/RECORD (implied in WITNESS) */
    CZK_CS_CHECK = 1u << 1,  /* evaluate each row at enforce; implies VALUES */
    CZK_CS_DIGEST = 1u << 2, /* stream the FILECOIN.md §8 digest (not in WITNESS mode) */
};

typedef struct czk_cs czk_cs;

/* Counts of what was synthesised. Rows and nnz exclude the prover's input rows (which add
 * n_inputs rows and n_inputs entries of A). Densities are popcounts as in FILECOIN.md §1. */
typedef struct czk_cs_stats {
    uint64_t n_rows, n_inputs, n_aux; /* n_inputs counts ONE */
    uint64_t nnz_a, nnz_b, nnz_c;
    uint64_t a_aux_density, b_input_density, b_aux_density;
} czk_cs_stats;

/*
 * Creates a constraint system in `mode` with CZK_CS_* `flags`, and allocates ONE (input 0,
 * value 1). Returns CZK_OK, CZK_EINVAL (bad mode or flags: DIGEST in WITNESS mode) or
 * CZK_ENOMEM. Destroy with czk_cs_destroy.
 */
int czk_cs_create(czk_cs **out, czk_cs_mode mode, unsigned flags, czk_err *err);

/* Frees everything (witness values are cleared first); NULL is a no-op. */
void czk_cs_destroy(czk_cs *cs);

czk_cs_mode czk_cs_get_mode(const czk_cs *cs);

/* 1 when gadgets must build rows (COUNT, RECORD, or any mode with CHECK), else 0. Gadgets
 * test this before building linear combinations so that WITNESS mode does no LC work. */
int czk_cs_builds_rows(const czk_cs *cs);

/* 1 when the system carries values (WITNESS, or the VALUES/CHECK flags). */
int czk_cs_has_values(const czk_cs *cs);

/*
 * Reserves room for n_inputs inputs (ONE included) and n_aux aux in total, so that a
 * synthesis whose size is known (from a COUNT pass) allocates its value arrays and bitmaps
 * once instead of growing them by doubling (each growth copies, and page-faults a new block).
 * Optional. Returns CZK_OK, CZK_ENOMEM or the sticky error.
 */
int czk_cs_reserve(czk_cs *cs, size_t n_inputs, size_t n_aux);

/*
 * Allocates the next aux (resp. input) variable into *out. `value` is stored when the system
 * has values, and must then be non-NULL; otherwise it is ignored (may be NULL). Returns
 * CZK_OK, CZK_EINVAL, CZK_ENOMEM, or the sticky error.
 */
int czk_cs_alloc(czk_cs *cs, czk_var *out, const czk_fr *value);
int czk_cs_alloc_input(czk_cs *cs, czk_var *out, const czk_fr *value);

/*
 * WITNESS mode: stores the values in caller memory instead of arrays of the system's own.
 * Inputs after ONE go to inputs[0 … n_inputs) (input k at inputs[k − 1]; ONE's value stays
 * with the system), aux to aux[0 … n_aux). Call it right after czk_cs_create, before anything
 * but ONE is allocated. An allocation beyond either bound fails with CZK_EINVAL (sticky), so a
 * synthesis that makes more variables than the caller laid out cannot write past them. The
 * memory must outlive the system, which neither frees nor clears it; czk_cs_input_values and
 * czk_cs_aux_values then give NULL and czk_cs_witness CZK_EINVAL, and czk_cs_reserve reserves
 * nothing. Returns CZK_OK, or CZK_EINVAL (not WITNESS mode, variables already allocated,
 * already bound, or a NULL array with a nonzero bound).
 */
int czk_cs_bind_values(czk_cs *cs, czk_fr *inputs, size_t n_inputs, czk_fr *aux, size_t n_aux);

/*
 * WITNESS mode, values bound: makes the next input `next_input` and the next aux `next_aux`,
 * so that this system synthesises a later part of a circuit (one PoRep challenge, on a thread
 * of its own) after another system made the earlier part into the same caller memory. The
 * variables below the two indices then exist: gadgets may name them, and czk_cs_value reads
 * their values from the bound arrays, as the earlier part wrote them (the caller orders those
 * writes before this system's reads, as a pool's loop does). Nothing below is ever written.
 * Bind the arrays up to where this part must end, not beyond: an allocation past them then
 * fails (sticky) instead of writing into a neighbouring part's range. Counts are absolute
 * (czk_cs_get_stats gives next_input + the inputs made, next_aux + the aux made), except
 * n_rows, which counts this system's rows alone (so does a CHECK failure's row). Call it right
 * after czk_cs_bind_values, before anything is allocated. Returns CZK_OK, or CZK_EINVAL (not
 * bound, variables already allocated, next_input = 0 (ONE is input 0), or an index beyond the
 * bound arrays).
 */
int czk_cs_witness_at(czk_cs *cs, size_t next_input, size_t next_aux);

/*
 * RECORD mode without values or digest: as czk_cs_witness_at, the next input is `next_input`
 * and the next aux `next_aux`, so that this system records a later part of a circuit (one
 * PoRep challenge, on a thread of its own) whose earlier variables another system made; its
 * rows may name those. Counts are absolute except n_rows and nnz (this system's rows alone);
 * densities are over every variable its rows name. Finish it with czk_cs_finish_part. Call it
 * right after czk_cs_create. Returns CZK_OK, CZK_EINVAL (another mode, values or digest,
 * something allocated or recorded already, or next_input 0) or CZK_ENOMEM.
 */
int czk_cs_record_at(czk_cs *cs, size_t next_input, size_t next_aux);

/*
 * RECORD mode: room for n_rows rows and nnz[m] entries of matrix m (A, B, C) in all, made at
 * once and exactly, where the rows would otherwise grow by doubling (a 32 GiB PoRep partition's
 * 26 GB of rows took twice that while recorded). Optional. Returns CZK_OK, CZK_EINVAL or
 * CZK_ENOMEM (sticky).
 */
int czk_cs_record_reserve(czk_cs *cs, size_t n_rows, const uint64_t nnz[3]);

/*
 * ORs the system's density bitmaps (which variables its A and B rows name: FILECOIN.md §1)
 * into the caller's, of aux_words and in_words 64-bit words (bit v of word v/64), the
 * system's bits beyond them left out: the densities of a circuit recorded in parts.
 */
void czk_cs_density_or(const czk_cs *cs, uint64_t *a_aux, uint64_t *b_aux, size_t aux_words,
                       uint64_t *b_in, size_t in_words);

/*
 * Allocates n consecutive aux at once, for gadgets that compute a block of values together (a
 * Poseidon hash's 505 aux): *first gets the first variable, and *vals (with values) the n
 * value slots, which the caller fills before the next allocation (the pointer is valid until
 * then); without values *vals is NULL. n = 0 allocates nothing (*first is then the next aux).
 * Returns CZK_OK, CZK_EINVAL, CZK_ENOMEM, or the sticky error.
 */
int czk_cs_alloc_aux_block(czk_cs *cs, size_t n, czk_var *first, czk_fr **vals);

/*
 * Counts n rows without building them, as n calls of czk_cs_enforce do in a system that
 * builds none (czk_cs_builds_rows() = 0: WITNESS without CHECK), where a gadget that knows its
 * row count may skip the calls. Returns CZK_OK, CZK_EINVAL (the system builds rows, or is
 * finished) or the sticky error.
 */
int czk_cs_count_rows(czk_cs *cs, size_t n);

/*
 * Appends the row a·b = c (bellperson's enforce). Terms are merged already (czk_lc_add);
 * zero terms are dropped here. Every variable must exist. In WITNESS mode without CHECK it
 * only counts the row. With CHECK, an unsatisfied row returns CZK_EVERIFY (sticky) with a
 * message naming the row, and czk_cs_bad_row returns its index. The LCs' storage is
 * reordered (terms sorted: inputs ascending, then aux ascending) but keeps its meaning.
 * Returns CZK_OK, CZK_EINVAL, CZK_ENOMEM, CZK_EVERIFY or the sticky error.
 */
int czk_cs_enforce(czk_cs *cs, czk_lc *a, czk_lc *b, czk_lc *c);

/*
 * The value of `v` (ONE is 1), or NULL when the system has no values or v does not exist.
 * The pointer is valid until the next allocation.
 */
const czk_fr *czk_cs_value(const czk_cs *cs, czk_var v);

/* The sticky status (CZK_OK when nothing failed) and, after CZK_EVERIFY, the failing row
 * (SIZE_MAX otherwise). */
int czk_cs_status(const czk_cs *cs);
size_t czk_cs_bad_row(const czk_cs *cs);

/* Makes `code` the sticky error with a printf-style message (for gadgets rejecting their
 * arguments); the first error wins. Returns the sticky code. */
int czk_cs_set_error(czk_cs *cs, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The detail of the sticky error (its message names the row for CZK_EVERIFY); never NULL. */
const czk_err *czk_cs_error(const czk_cs *cs);

/* Counts so far (rows are complete at any time; densities are over the variables so far). */
void czk_cs_get_stats(const czk_cs *cs, czk_cs_stats *out);

/*
 * Finishes the streaming digest (CZK_CS_DIGEST): adds the n_inputs input rows and writes the
 * 32-byte SHA-256 to out. Call once, at the end of synthesis; afterwards no more rows can be
 * added (CZK_EINVAL). Returns CZK_OK, CZK_EINVAL (no DIGEST flag, or called twice) or the
 * sticky error.
 */
int czk_cs_digest_finish(czk_cs *cs, uint8_t out[32], czk_err *err);

/*
 * RECORD mode: moves the recorded rows into *out (overwritten) as a czk_r1cs with n_public =
 * n_inputs - 1 and n_vars = n_inputs + n_aux, columns renumbered (input k -> k, aux j ->
 * n_inputs + j). The system keeps its counts and values but no rows; no rows may be added
 * afterwards. Returns CZK_OK, CZK_EINVAL (wrong mode, called twice) or CZK_ENOMEM (*out zeroed).
 */
int czk_cs_finish_r1cs(czk_cs *cs, czk_r1cs *out, czk_err *err);

/*
 * As czk_cs_finish_r1cs for a part of a larger circuit (czk_cs_record_at) whose inputs number
 * n_inputs in all (≥ the system's): aux j becomes column n_inputs + j; n_public = n_inputs − 1,
 * n_vars = n_inputs + the system's aux count, n_constraints its own rows.
 */
int czk_cs_finish_part(czk_cs *cs, czk_r1cs *out, uint64_t n_inputs, czk_err *err);

/*
 * With values: the full witness vector in czk's numbering, [ONE, inputs 1.., aux ...]
 * (n_inputs + n_aux entries), czk_malloc'ed into *out (the caller czk_frees it, after
 * czk_memclear_explicit: it is secret). Returns CZK_OK, CZK_EINVAL (no values, or values bound
 * to caller memory) or CZK_ENOMEM.
 */
int czk_cs_witness(const czk_cs *cs, czk_fr **out, size_t *n, czk_err *err);

/* Read-only views of the stored values: aux (n_aux entries) and inputs (n_inputs, ONE first);
 * NULL without values or when they are bound to caller memory. Valid until the next
 * allocation. */
const czk_fr *czk_cs_aux_values(const czk_cs *cs, size_t *n);
const czk_fr *czk_cs_input_values(const czk_cs *cs, size_t *n);

/*
 * The FILECOIN.md §8 digest of a recorded system whose input rows are not stored (czk's form, as
 * czk_cs_finish_r1cs makes it): rows in order, then the 1 + n_public input rows. Columns
 * below 1 + n_public are inputs (var id -(k+1)); the rest are aux (id = column - 1 - n_public).
 * Entries with a zero coefficient are skipped. Returns CZK_OK, CZK_EINVAL (C not stored) or
 * CZK_ENOMEM.
 */
int czk_cs_r1cs_digest(const czk_r1cs *r, uint8_t out[32], czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_GADGETS_CS_H */
