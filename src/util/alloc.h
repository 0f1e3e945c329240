/*
 * Counted allocation.
 *
 * Every big host allocation in czk goes through czk_malloc/czk_free so that the engine's
 * budgets can read what is in use (doc/DESIGN.md §3). The counters are atomics; the functions
 * are thread-safe. czk_malloc returns NULL on failure (and on size 0) and never aborts.
 */
#ifndef CZK_UTIL_ALLOC_H
#define CZK_UTIL_ALLOC_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Allocates `size` bytes, 64-byte aligned, counted. NULL on failure or size 0. */
void *czk_malloc(size_t size);

/* As czk_malloc, zero-filled; NULL also when n * size overflows. */
void *czk_calloc(size_t n, size_t size);

/* Frees memory from czk_malloc/czk_calloc; NULL is a no-op. */
void czk_free(void *p);

/*
 * Shrinks a czk_malloc'ed block in place to its first `size` bytes (0 < size <= its size; a
 * larger size is ignored): the whole pages past them go back to the kernel and the counters
 * drop by the difference. The block keeps its address and is still freed with czk_free. For
 * arrays grown by doubling whose final length is known only at the end (recorded rows), so
 * that their unused capacity is neither resident nor counted.
 */
void czk_shrink(void *p, size_t size);

/* A czk_malloc'ed copy of the string `s` (czk_free it); NULL when s is NULL or on failure. */
char *czk_strdup(const char *s);

/* Bytes currently allocated through czk_malloc, and the peak since start. */
size_t czk_alloc_in_use(void);
size_t czk_alloc_peak(void);

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_ALLOC_H */
