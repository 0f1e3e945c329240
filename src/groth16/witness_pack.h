/*
 * A witness in transport form: each value's class in two bits (zero, one, other) and the
 * other values alone, in index order.
 *
 * Groth16 witnesses of bit-heavy circuits are mostly 0 and 1 (a PoRep partition: ~60 % zero,
 * ~38 % one, ~2 % other), so a 2^27-value witness packs into ~140 MB instead of 4.3 GB. A GPU
 * backend uploads the pack and expands it on the device (prove_sums, groth16/backend.h), which
 * takes the 78 ms upload of the full witness at 2^27 out of the kernel region; the engine
 * builds the pack where it used to copy the witness into pinned memory.
 *
 * Layout: value i is in word i / 32 of cls, bits 2·(i % 32) and up: 0 zero, 1 one (the
 * Montgomery form of 1), 2 other (3 unused). rank[k] counts the others in words before k, so
 * the other value i is others[rank[i / 32] + the others below it in its word].
 */
#ifndef CZK_GROTH16_WITNESS_PACK_H
#define CZK_GROTH16_WITNESS_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_witness_pack {
    size_t n;             /* values */
    const uint64_t *cls;  /* czk_witness_pack_words(n) words */
    const uint32_t *rank; /* czk_witness_pack_words(n) entries */
    const czk_fr *others; /* n_others values */
    size_t n_others;
} czk_witness_pack;

/* Largest n a pack holds (rank is 32-bit). */
#define CZK_WITNESS_PACK_MAX ((size_t)UINT32_MAX)

/* A pack's own memory: cls and rank in buffer 0, the others in buffer 1 (none when there
 * are none), from an allocator such as a GPU backend's host_alloc / host_free. */
typedef struct czk_witness_pack_mem {
    void *p[2];
    size_t bytes[2];
} czk_witness_pack_mem;

typedef void *(*czk_witness_pack_alloc_fn)(void *ctx, size_t bytes);
typedef void (*czk_witness_pack_free_fn)(void *ctx, void *p, size_t bytes);

/*
 * Packs w[0 .. n − 1] into memory from alloc (classify, then gather): fills *p and *mem. Both
 * passes run in blocks of 2^18 values over pool (NULL: on this thread), and the pack is the
 * same bit for bit whatever the pool; alloc and release are called on this thread only.
 * Returns CZK_OK; CZK_EUNSUPPORTED when the pack would take more than max_bytes (nothing kept:
 * not worth moving) or n is above CZK_WITNESS_PACK_MAX; CZK_ENOMEM when alloc refuses (or the
 * blocks' counts cannot be allocated). On failure *mem holds nothing.
 */
int czk_witness_pack_build(czk_witness_pack *p, czk_witness_pack_mem *mem, const czk_fr *w,
                           size_t n, size_t max_bytes, czk_witness_pack_alloc_fn alloc,
                           czk_witness_pack_free_fn release, void *ctx, czk_pool *pool);

/* Clears (it is witness data) and frees what czk_witness_pack_build allocated; *mem empty
 * after. Safe on an empty *mem. */
void czk_witness_pack_release(czk_witness_pack_mem *mem, czk_witness_pack_free_fn release,
                              void *ctx);

/* Words of cls (and entries of rank) for n values. */
size_t czk_witness_pack_words(size_t n);

/* Pass 1: writes cls and rank for w[0 .. n − 1] (n <= CZK_WITNESS_PACK_MAX); returns the
 * number of others. */
size_t czk_witness_pack_classify(uint64_t *cls, uint32_t *rank, const czk_fr *w, size_t n);

/* Pass 2: copies the others of w, as classified into cls, to others (in index order). */
void czk_witness_pack_gather(czk_fr *others, const uint64_t *cls, const czk_fr *w, size_t n);

/*
 * Checks that p is a well-formed pack: every class below 3, rank the running count of the
 * others, n_others their total. Returns CZK_OK or CZK_EINVAL with the first fault.
 */
int czk_witness_pack_check(const czk_witness_pack *p, czk_err *err);

/* As czk_witness_pack_check, its pass over the words spread over pool (NULL: this thread);
 * also CZK_ENOMEM. */
int czk_witness_pack_check_pool(const czk_witness_pack *p, czk_pool *pool, czk_err *err);

/* out[0 .. p->n − 1] = the witness p packs (after czk_witness_pack_check). */
void czk_witness_pack_expand(czk_fr *out, const czk_witness_pack *p);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GROTH16_WITNESS_PACK_H */
