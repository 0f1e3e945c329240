/*
 * A fixed pool of worker threads for data-parallel loops.
 *
 * Layers up to groth16 own no threads: a parallel loop takes a `czk_pool *` from its caller
 * (the engine, the CLI, a test), and NULL means "run inline on the calling thread", as blst
 * leaves threading to its embedder. The calling thread takes part in the loop, so a pool of
 * n threads runs n + 1 ways. One loop runs on a pool at a time; a loop started from inside a
 * loop body (nested) runs inline.
 */
#ifndef CZK_UTIL_POOL_H
#define CZK_UTIL_POOL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_pool czk_pool;

/*
 * Body of a parallel loop: handles indices [begin, end). `worker` is in [0, ways) where ways
 * is czk_pool_ways(pool), so bodies can keep per-worker scratch.
 */
typedef void (*czk_pool_fn)(void *arg, size_t begin, size_t end, unsigned worker);

/*
 * Creates a pool whose loops run `ways` ways (ways - 1 helper threads plus the caller);
 * ways = 0 means the number of online CPUs. Returns CZK_OK, CZK_EINVAL, or CZK_ENOMEM.
 */
int czk_pool_create(czk_pool **out, unsigned ways);

/* Joins the threads and frees the pool; NULL is a no-op. Not while a loop runs. */
void czk_pool_destroy(czk_pool *pool);

/* How many ways a loop on `pool` runs; 1 for NULL. */
unsigned czk_pool_ways(const czk_pool *pool);

/*
 * Runs fn over [0, n) in chunks of at least `grain` indices (0 picks one), on the pool's
 * threads and the caller's, and returns when every chunk is done. Thread-safe: concurrent
 * callers are serialized.
 */
void czk_pool_run(czk_pool *pool, size_t n, size_t grain, czk_pool_fn fn, void *arg);

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_POOL_H */
