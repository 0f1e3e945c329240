#include "util/alloc.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * Each block carries a 64-byte header holding its size, so that czk_free can uncount it and
 * the payload stays 64-byte aligned (a cache line, and enough for AVX-512 loads).
 */
#define CZK__ALLOC_HDR 64

/*
 * Blocks from this size on are asked to be backed by transparent huge pages (where the kernel
 * leaves that to the program: THP "madvise", Debian's and Ubuntu's default). Such blocks are
 * witnesses, prover scratch and key arrays of hundreds of MB to tens of GB, written once
 * right after allocation: with 4 KiB pages the kernel's faults and zeroing cost more than
 * writing the data (a 32 GiB PoRep partition's 4.2 GB witness: BENCHMARKS.md run 83).
 */
#define CZK__HUGE_FROM (4u << 20)
#define CZK__HUGE_PAGE (2u << 20)

static void advise_huge(void *base, size_t len) {
#ifdef MADV_HUGEPAGE
    uintptr_t a = ((uintptr_t)base + CZK__HUGE_PAGE - 1) & ~(uintptr_t)(CZK__HUGE_PAGE - 1);
    uintptr_t b = ((uintptr_t)base + len) & ~(uintptr_t)(CZK__HUGE_PAGE - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_HUGEPAGE); /* advice: its failure changes nothing */
#else
    (void)base, (void)len;
#endif
}

static _Atomic size_t in_use;
static _Atomic size_t peak;

void *czk_malloc(size_t size) {
    if (size == 0 || size > SIZE_MAX - CZK__ALLOC_HDR)
        return NULL;
    void *base = NULL;
    if (posix_memalign(&base, 64, size + CZK__ALLOC_HDR) != 0)
        return NULL;
    if (size >= CZK__HUGE_FROM)
        advise_huge(base, size + CZK__ALLOC_HDR);
    memcpy(base, &size, sizeof(size));
    /* Relaxed: the counters are statistics; no other memory is published through them. */
    size_t now = atomic_fetch_add_explicit(&in_use, size, memory_order_relaxed) + size;
    size_t p = atomic_load_explicit(&peak, memory_order_relaxed);
    while (now > p && !atomic_compare_exchange_weak_explicit(&peak, &p, now, memory_order_relaxed,
                                                             memory_order_relaxed)) {
    }
    return (unsigned char *)base + CZK__ALLOC_HDR;
}

void *czk_calloc(size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size)
        return NULL;
    void *p = czk_malloc(n * size);
    if (p != NULL)
        memset(p, 0, n * size);
    return p;
}

void czk_free(void *p) {
    if (p == NULL)
        return;
    unsigned char *base = (unsigned char *)p - CZK__ALLOC_HDR;
    size_t size;
    memcpy(&size, base, sizeof(size));
    atomic_fetch_sub_explicit(&in_use, size, memory_order_relaxed);
    free(base);
}

void czk_shrink(void *p, size_t size) {
    if (p == NULL || size == 0)
        return;
    unsigned char *base = (unsigned char *)p - CZK__ALLOC_HDR;
    size_t old;
    memcpy(&old, base, sizeof(old));
    if (size >= old)
        return;
    /* Only whole pages strictly inside the block's tail: the allocator keeps nothing of its
     * own there while the block is allocated, and a page given back reads as zeros if it is
     * ever touched again (after czk_free, by whoever gets the memory next). */
    long pg = sysconf(_SC_PAGESIZE);
    uintptr_t page = pg > 0 ? (uintptr_t)pg : 4096;
    uintptr_t a = ((uintptr_t)p + size + page - 1) & ~(page - 1);
    uintptr_t b = ((uintptr_t)p + old) & ~(page - 1);
    if (b > a)
        (void)madvise((void *)a, b - a, MADV_DONTNEED); /* advice: on failure the pages stay */
    memcpy(base, &size, sizeof(size));
    atomic_fetch_sub_explicit(&in_use, old - size, memory_order_relaxed);
}

char *czk_strdup(const char *s) {
    if (s == NULL)
        return NULL;
    size_t n = strlen(s) + 1;
    char *d = czk_malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

size_t czk_alloc_in_use(void) {
    return atomic_load_explicit(&in_use, memory_order_relaxed);
}

size_t czk_alloc_peak(void) {
    return atomic_load_explicit(&peak, memory_order_relaxed);
}
