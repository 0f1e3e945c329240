/*
 * The circuit kinds czk ships (engine/kind.h says what a kind is). Each kind's registration
 * function is public API (include/czk.h: czk_engine_register_circuit for generic circuits,
 * czk_engine_register_synthetic); this header adds the options that only in-tree callers set.
 */
#ifndef CZK_KINDS_KINDS_H
#define CZK_KINDS_KINDS_H

#include "czk.h"
#include "formats/key_check.h"
#include "util/status.h"

/* Options of a generic circuit (a .zkey, or a .params with an R1CS, and .wtns witnesses). */
typedef struct czk_generic_opts {
    /* Point checks when the key is read, when key_check_set: CZK_KEY_CHECK_CURVE (on the
     * curve, as bellperson: every proof is verified, so a bad key cannot pass a bad proof) or
     * CZK_KEY_CHECK_FULL (also in the subgroup). Unset: a .zkey is checked in full (it is
     * small next to what it costs to make one) and a .params on the curve only. */
    int key_check_set;
    czk_key_check key_check;
    /* 1: synthesis checks that each witness satisfies the R1CS and fails the partition naming
     * the first failing constraint, before any proving (costs one pass over the matrices; a
     * .zkey carries no C matrix, so only A and B rows are checked there). */
    int check_witness;
} czk_generic_opts;

/*
 * As czk_engine_register_circuit, with options (NULL: the defaults above, as the public
 * function uses).
 */
int czk_kinds_register_generic(czk_engine *e, const char *circuit_id, const char *key_path,
                               const char *r1cs_path, const czk_generic_opts *opts, czk_err *err);

#endif /* CZK_KINDS_KINDS_H */
