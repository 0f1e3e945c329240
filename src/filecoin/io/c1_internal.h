/*
 * What the C1 parser (c1.c) and writer (c1_write.c) share: the shape of each Merkle proof a
 * registered proof dictates, and the bound on the compact JSON.
 */
#ifndef CZK_FILECOIN_IO_C1_INTERNAL_H
#define CZK_FILECOIN_IO_C1_INTERNAL_H

#include <stdint.h>

#include "filecoin/spec/porep_types.h"
#include "filecoin/spec/sector.h"

/* The levels and arities of one Merkle proof: base, sub and top paths. */
typedef struct mshape {
    czk_vanilla_variant variant;
    uint32_t n[3];
    uint32_t arity[3];
} mshape;

/* The comm_d proof (Single, comm_d_levels binary levels) and the tree_c / tree_r_last proofs
 * (the type's tree shape). */
mshape czk__c1_comm_d_shape(const czk_porep_type *t);
mshape czk__c1_tree_shape(const czk_porep_type *t);

/* An upper bound on the compact JSON of one C1 output of `t` (c1.c says how it is reached). */
uint64_t czk__c1_compact_bound(const czk_porep_type *t);

/* The MerkleProof variants' serde names, by czk_vanilla_variant. */
extern const char *const czk__c1_variant_names[3];

#endif /* CZK_FILECOIN_IO_C1_INTERNAL_H */
