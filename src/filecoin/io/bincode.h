/*
 * A bounds-checked reader of the bincode that rust-fil-proofs serialises vanilla proofs with
 * (PoSt sector proofs, io/vanilla.c; SnapDeals partition proofs, snap/snap_vanilla.c):
 * little-endian u32/u64, canonical 32-byte field elements, and Merkle InclusionPaths. One
 * reader so that both formats check lengths, fields and indices the same way.
 *
 * Every failure is a status plus a message "<who>: <what> at byte OFF", where `who` names the
 * proof being read ("vanilla proof 3 (sector 7)") and `what` the field and the fault.
 *
 * Thread-safety: a reader is used by one thread; no global state.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_IO_BINCODE_H
#define CZK_FILECOIN_IO_BINCODE_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/spec/sector.h"
#include "util/status.h"

typedef struct czk_bincode_reader {
    const uint8_t *p;
    size_t len, off;
    char who[96]; /* what messages name first */
    czk_err *err;
} czk_bincode_reader;

/* Starts reading buf[0 .. len) (buf NULL: nothing to read); `who` as printf. */
void czk_bincode_init(czk_bincode_reader *r, const uint8_t *buf, size_t len, czk_err *err,
                      const char *who, ...) __attribute__((format(printf, 5, 6)));

/* Renames the proof being read (once its sector id is known, say); as printf. */
void czk_bincode_rename(czk_bincode_reader *r, const char *who, ...)
    __attribute__((format(printf, 2, 3)));

/* Fails with `code` and "<who>: <what> at byte OFF"; returns code. */
int czk_bincode_fail(czk_bincode_reader *r, int code, size_t off, const char *what, ...)
    __attribute__((format(printf, 4, 5)));

/* The end of the proof: CZK_OK when every byte was read, else CZK_ELENGTH ("N trailing bytes
 * after the proof"). */
int czk_bincode_end(czk_bincode_reader *r);

/* czk_calloc(n, size) for n items the input declared (a count already checked against the
 * shape); NULL with CZK_ENOMEM in *rc and "<who>: no memory for N <what>" when it fails. */
void *czk_bincode_calloc(czk_bincode_reader *r, size_t n, size_t size, const char *what, int *rc);

/* Reads a u64 / u32; CZK_ELENGTH when the input ends first. `field` names it. */
int czk_bincode_u64(czk_bincode_reader *r, uint64_t *v, const char *field);
int czk_bincode_u32(czk_bincode_reader *r, uint32_t *v, const char *field);

/* A count, tag or usize that must equal `want`: `bytes` is 8 (u64: bincode's Vec length and
 * usize) or 4 (a u32 enum tag). CZK_EFORMAT when it differs. */
int czk_bincode_expect(czk_bincode_reader *r, uint64_t want, int bytes, const char *field);

/* A 32-byte little-endian field element, which must be canonical (< r): CZK_ERANGE if not. */
int czk_bincode_fr(czk_bincode_reader *r, czk_fr *out, const char *field);

/* One InclusionPath of `levels` PathElements of `arity` into lv[0 … levels): per level the
 * arity − 1 siblings and an index below the arity. `name` says which path ("inclusion proof 3
 * base path"). */
int czk_bincode_path(czk_bincode_reader *r, czk_vanilla_level *lv, uint32_t levels, uint32_t arity,
                     const char *name);

/* The shape of a MerkleProof: base levels of base_arity, then an optional sub and top level
 * (arity 0: none), serialised as `variant`. */
typedef struct czk_bincode_tree {
    uint32_t base_arity, base_levels, sub_arity, top_arity;
    czk_vanilla_variant variant;
} czk_bincode_tree;

/*
 * A MerkleProof of shape t after its variant tag (the caller reads and checks the tag, whose
 * fault it names in its own terms): SingleProof { root, leaf, path }, SubProof { base, sub,
 * root, leaf } or TopProof { base, sub, top, root, leaf }. The paths go to level[0 …
 * base_levels + (sub ≠ 0) + (top ≠ 0)), base levels first. `name` says which proof.
 */
int czk_bincode_merkle(czk_bincode_reader *r, czk_fr *root, czk_fr *leaf, czk_vanilla_level *level,
                       const czk_bincode_tree *t, const char *name);

/* The leaf a path of n levels proves: its indices as mixed-radix digits, the leaf's level least
 * significant (MerkleProof::path_index). */
static inline uint64_t czk_bincode_leaf_index(const czk_vanilla_level *level, uint32_t n) {
    uint64_t v = 0;
    for (uint32_t l = n; l-- > 0;)
        v = v * level[l].arity + level[l].index;
    return v;
}

#endif
