/*
 * rust-fil-proofs' Merkle inclusion circuit, PoRCircuit (storage-proofs-core/src/gadgets/por.rs),
 * over Poseidon trees, constraint-exact: doc/FILECOIN.md §4.
 *
 * In order: the leaf (Root::Val allocates it, Root::Var reuses a variable); per level, leaf to
 * root, through the base levels, then the sub level, then the top level: log2(arity) index
 * bits (LSB first), the arity − 1 siblings, insert (gadgets.h) and the Poseidon hash of the arity
 * values (poseidon_gadget.h); then all index bits packed into one public input (the leaf
 * index); the root (Val: a new aux; Var: the given variable) and the row computed · ONE = root;
 * with a public root, the root inputized too. Per base level of arity 8 that is 530 rows.
 *
 * SHA-256 trees (PoRep's tree_d) are not covered here.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_GADGETS_POR_H
#define CZK_FILECOIN_GADGETS_POR_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/gadgets/poseidon_gadget.h"
#include "filecoin/spec/sector.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Levels a path may have, at most (a binary tree of 2^32 leaves). */
#define CZK_POR_MAX_LEVELS 32

/* A tree's shape: base_levels levels of base_arity, then one level of sub_arity and one of
 * top_arity where those are not 0. Arities are 2, 4 or 8. */
typedef struct czk_por_shape {
    uint32_t base_arity, base_levels;
    uint32_t sub_arity, top_arity;
} czk_por_shape;

/* rust-fil-proofs' Root: a value to allocate, or an already allocated variable. */
typedef enum czk_por_root_kind { CZK_POR_ROOT_VAL = 0, CZK_POR_ROOT_VAR = 1 } czk_por_root_kind;

typedef struct czk_por_root {
    czk_por_root_kind kind;
    czk_var var; /* VAR */
    czk_fr val;  /* VAL, when the system carries values */
} czk_por_root;

/* The levels of a shape (base + sub + top), or 0 when it is not valid. */
uint32_t czk_por_shape_levels(const czk_por_shape *shape);

/*
 * PoRCircuit::synthesize(value, path, root, private). `path` holds the shape's levels, leaf
 * upwards (each level's arity must match the shape; index < arity); it may be NULL when the
 * system carries no values. `computed` (may be NULL) receives the variable of the computed
 * root. Returns CZK_OK, CZK_EINVAL (bad shape or path, set on cs) or the system's sticky error.
 * Thread-safety: as the czk_cs.
 */
int czk_por_synthesize(czk_cs *cs, czk_var *computed, const czk_por_shape *shape,
                       const czk_por_root *value, const czk_vanilla_level *path,
                       const czk_por_root *root, int private_root);

/* As czk_por_synthesize, hashing through `memo` (poseidon_gadget.h; NULL: none), so that paths
 * of one system that meet (a PoSt slot's paths all end in the same root) hash their common
 * nodes once in WITNESS mode. */
int czk_por_synthesize_memo(czk_cs *cs, czk_var *computed, const czk_por_shape *shape,
                            const czk_por_root *value, const czk_vanilla_level *path,
                            const czk_por_root *root, int private_root, czk_poseidon_memo *memo);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_GADGETS_POR_H */
