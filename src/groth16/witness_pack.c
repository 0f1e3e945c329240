/*
 * Witness packs (contract in witness_pack.h).
 */
#include "groth16/witness_pack.h"

#include <string.h>

#include "util/alloc.h"
#include "util/memclear.h"

/* The low bit of each 2-bit class: 0x5555… */
#define LOW_BITS 0x5555555555555555ULL

/* Bit 2j set where lane j of the word x holds class 2 (other). */
static uint64_t others_mask(uint64_t x) {
    return (x >> 1) & ~x & LOW_BITS;
}

/* 0 zero, 1 one, 2 other. Variable time in the value, as the MSMs over it are. */
static uint64_t class_of(const czk_fr *v) {
    const uint64_t *o = CZK_FR_ONE.l;
    if ((v->l[0] | v->l[1] | v->l[2] | v->l[3]) == 0)
        return 0;
    return v->l[0] == o[0] && v->l[1] == o[1] && v->l[2] == o[2] && v->l[3] == o[3] ? 1 : 2;
}

size_t czk_witness_pack_words(size_t n) {
    return (n + 31) / 32;
}

size_t czk_witness_pack_classify(uint64_t *cls, uint32_t *rank, const czk_fr *w, size_t n) {
    size_t count = 0;
    for (size_t k = 0; k * 32 < n; k++) {
        size_t end = n - k * 32 < 32 ? n - k * 32 : 32;
        uint64_t word = 0;
        rank[k] = (uint32_t)count;
        for (size_t j = 0; j < end; j++) {
            uint64_t c = class_of(&w[k * 32 + j]);
            word |= c << (2 * j);
            count += c == 2;
        }
        cls[k] = word;
    }
    return count;
}

void czk_witness_pack_gather(czk_fr *others, const uint64_t *cls, const czk_fr *w, size_t n) {
    size_t o = 0;
    for (size_t k = 0; k * 32 < n; k++) {
        uint64_t m = others_mask(cls[k]);
        while (m != 0) {
            unsigned b = (unsigned)__builtin_ctzll(m);
            others[o++] = w[k * 32 + b / 2];
            m &= m - 1;
        }
    }
}

/*
 * The check's pass over words [0, words): sets *bad when some lane holds class 3 or some
 * rank is not rank[0] plus the running count; returns the count. Inlined into two callers, one
 * compiled for the popcnt instruction: the prover checks a pack inside the kernel region, and
 * without it (baseline x86-64) a 2^27-value pack took 40 ms on the development machine.
 */
static inline __attribute__((always_inline)) size_t
scan_words(const uint64_t *cls, const uint32_t *rank, size_t words, int *bad) {
    size_t count = 0;
    uint64_t threes = 0;
    uint32_t ranks = 0;
    const uint32_t r0 = words > 0 ? rank[0] : 0;
    for (size_t k = 0; k < words; k++) {
        const uint64_t x = cls[k];
        threes |= (x >> 1) & x & LOW_BITS;
        ranks |= rank[k] ^ (uint32_t)(r0 + count);
        count += (size_t)__builtin_popcountll(others_mask(x));
    }
    *bad = threes != 0 || ranks != 0;
    return count;
}

static size_t scan_generic(const uint64_t *cls, const uint32_t *rank, size_t words, int *bad) {
    return scan_words(cls, rank, words, bad);
}

#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("popcnt"))) static size_t
scan_popcnt(const uint64_t *cls, const uint32_t *rank, size_t words, int *bad) {
    return scan_words(cls, rank, words, bad);
}
#endif

static size_t scan(const uint64_t *cls, const uint32_t *rank, size_t words, int *bad) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (__builtin_cpu_supports("popcnt"))
        return scan_popcnt(cls, rank, words, bad);
#endif
    return scan_generic(cls, rank, words, bad);
}

/* Words a block of the parallel check covers (2^20 values). */
#define CHECK_BLOCK ((size_t)1 << 15)

typedef struct {
    const czk_witness_pack *p;
    size_t words;
    size_t *count; /* per block */
    int *bad;      /* per block */
} check_arg;

static void check_body(void *arg, size_t b, size_t e, unsigned worker) {
    const check_arg *ca = arg;
    (void)worker;
    for (size_t k = b; k < e; k++) {
        const size_t w0 = k * CHECK_BLOCK,
                     nw = ca->words - w0 < CHECK_BLOCK ? ca->words - w0 : CHECK_BLOCK;
        ca->count[k] = scan(ca->p->cls + w0, ca->p->rank + w0, nw, &ca->bad[k]);
    }
}

int czk_witness_pack_check(const czk_witness_pack *p, czk_err *err) {
    return czk_witness_pack_check_pool(p, NULL, err);
}

int czk_witness_pack_check_pool(const czk_witness_pack *p, czk_pool *pool, czk_err *err) {
    size_t count = 0;
    int bad = 0;
    if (p == NULL || (p->n > 0 && (p->cls == NULL || p->rank == NULL)) ||
        (p->n_others > 0 && p->others == NULL))
        return czk_err_set(err, CZK_EINVAL, "witness pack: NULL array");
    if (p->n > CZK_WITNESS_PACK_MAX)
        return czk_err_set(err, CZK_EINVAL,
                           "witness pack: %zu values, above the 2^32 - 1 a pack holds", p->n);
    const size_t words = czk_witness_pack_words(p->n), tail = p->n % 32;
    const size_t blocks = (words + CHECK_BLOCK - 1) / CHECK_BLOCK;
    if (blocks > 0) {
        /* Blocks in parallel, each against its own first rank; then the blocks' ranks
         * against each other (the first is 0, each the last plus its count). */
        size_t *counts = czk_malloc(blocks * sizeof(size_t));
        int *bads = czk_malloc(blocks * sizeof(int));
        if (counts == NULL || bads == NULL) {
            czk_free(counts);
            czk_free(bads);
            return czk_err_set(err, CZK_ENOMEM, "witness pack check: %zu blocks", blocks);
        }
        check_arg ca = {.p = p, .words = words, .count = counts, .bad = bads};
        czk_pool_run(pool, blocks, 1, check_body, &ca);
        bad = p->rank[0] != 0;
        for (size_t k = 0; k < blocks; k++) {
            bad |= bads[k];
            if (k + 1 < blocks &&
                p->rank[(k + 1) * CHECK_BLOCK] != (uint32_t)(p->rank[k * CHECK_BLOCK] + counts[k]))
                bad = 1;
            count += counts[k];
        }
        czk_free(counts);
        czk_free(bads);
    }
    /* Bits past the last value. */
    if (tail != 0 && (p->cls[words - 1] >> (2 * tail)) != 0)
        bad = 1;
    if (bad) {
        /* Again, slowly, for the first fault's place. */
        size_t c = 0;
        for (size_t k = 0; k < words; k++) {
            uint64_t x = p->cls[k];
            size_t end = k + 1 < words || tail == 0 ? 32 : tail;
            if (((x >> 1) & x & LOW_BITS) != 0 || (end < 32 && (x >> (2 * end)) != 0))
                return czk_err_set(err, CZK_EINVAL, "witness pack: bad class bits in word %zu", k);
            if (p->rank[k] != (uint32_t)c)
                return czk_err_set(err, CZK_EINVAL,
                                   "witness pack: rank of word %zu is %u, %zu others precede it", k,
                                   p->rank[k], c);
            c += (size_t)__builtin_popcountll(others_mask(x));
        }
        return czk_err_set(err, CZK_EINVAL, "witness pack: inconsistent class bits or ranks");
    }
    if (count != p->n_others)
        return czk_err_set(err, CZK_EINVAL, "witness pack: %zu others classified, %zu given", count,
                           p->n_others);
    return CZK_OK;
}

void czk_witness_pack_release(czk_witness_pack_mem *mem, czk_witness_pack_free_fn release,
                              void *ctx) {
    for (int i = 0; i < 2; i++) {
        if (mem->p[i] != NULL) {
            czk_memclear_explicit(mem->p[i], mem->bytes[i]);
            release(ctx, mem->p[i], mem->bytes[i]);
        }
        mem->p[i] = NULL;
        mem->bytes[i] = 0;
    }
}

/* Words a block of the parallel build covers (2^18 values, 8 MiB of witness): some 500
 * blocks at 2^27 values, enough for any pool to balance, few enough that the sequential
 * prefix over their counts costs nothing. */
#define PACK_BLOCK ((size_t)1 << 13)

/*
 * The build's blocks: pass 1 classifies each block with ranks counted from the block's start
 * and notes its count of others; the counts' prefix sums give each block's offset; pass 2 adds
 * the offset to the block's ranks and gathers its others from that offset on. The pack is the
 * sequential one bit for bit: ranks are the same running counts, others the same order.
 */
typedef struct {
    uint64_t *cls;
    uint32_t *rank;
    const czk_fr *w;
    size_t n, words, block;
    size_t *count; /* per block: pass 1 its others, pass 2 the others before it */
    czk_fr *others;
    int pass; /* 1 or 2 */
} build_arg;

/* Blocks [b, e) of pass ba->pass. */
static void build_body(void *arg, size_t b, size_t e, unsigned worker) {
    const build_arg *ba = arg;
    (void)worker;
    for (size_t k = b; k < e; k++) {
        const size_t w0 = k * ba->block, v0 = w0 * 32; /* the block's first word and value */
        const size_t nw = ba->words - w0 < ba->block ? ba->words - w0 : ba->block;
        const size_t nv = ba->n - v0 < nw * 32 ? ba->n - v0 : nw * 32;
        if (ba->pass == 1) {
            ba->count[k] = czk_witness_pack_classify(ba->cls + w0, ba->rank + w0, ba->w + v0, nv);
        } else {
            const uint32_t off = (uint32_t)ba->count[k];
            if (off != 0)
                for (size_t i = 0; i < nw; i++)
                    ba->rank[w0 + i] += off;
            czk_witness_pack_gather(ba->others + ba->count[k], ba->cls + w0, ba->w + v0, nv);
        }
    }
}

int czk_witness_pack_build(czk_witness_pack *p, czk_witness_pack_mem *mem, const czk_fr *w,
                           size_t n, size_t max_bytes, czk_witness_pack_alloc_fn alloc,
                           czk_witness_pack_free_fn release, void *ctx, czk_pool *pool) {
    const size_t words = czk_witness_pack_words(n);
    memset(mem, 0, sizeof(*mem));
    memset(p, 0, sizeof(*p));
    if (n > CZK_WITNESS_PACK_MAX)
        return CZK_EUNSUPPORTED;
    mem->bytes[0] = words * (sizeof(uint64_t) + sizeof(uint32_t));
    if (mem->bytes[0] > max_bytes) {
        mem->bytes[0] = 0;
        return CZK_EUNSUPPORTED;
    }
    /* Without a pool, or with one block, one block of everything: no counts to allocate. */
    const size_t block = czk_pool_ways(pool) > 1 && words > PACK_BLOCK ? PACK_BLOCK : words;
    const size_t blocks = block == 0 ? 0 : (words + block - 1) / block;
    size_t one_count = 0;
    size_t *count = blocks > 1 ? czk_malloc(blocks * sizeof(size_t)) : &one_count;
    if (count == NULL)
        return CZK_ENOMEM;
    if (words > 0 && (mem->p[0] = alloc(ctx, mem->bytes[0])) == NULL) {
        mem->bytes[0] = 0;
        if (blocks > 1)
            czk_free(count);
        return CZK_ENOMEM;
    }
    build_arg ba = {.cls = mem->p[0],
                    .rank = words > 0 ? (uint32_t *)((uint64_t *)mem->p[0] + words) : NULL,
                    .w = w,
                    .n = n,
                    .words = words,
                    .block = block,
                    .count = count,
                    .pass = 1};
    czk_pool_run(pool, blocks, 1, build_body, &ba);
    size_t n_others = 0;
    for (size_t k = 0; k < blocks; k++) {
        const size_t c = count[k];
        count[k] = n_others;
        n_others += c;
    }
    int rc = CZK_OK;
    if (n_others > (max_bytes - mem->bytes[0]) / sizeof(czk_fr)) {
        czk_witness_pack_release(mem, release, ctx);
        rc = CZK_EUNSUPPORTED;
    } else if (n_others > 0) {
        mem->bytes[1] = n_others * sizeof(czk_fr);
        if ((mem->p[1] = alloc(ctx, mem->bytes[1])) == NULL) {
            mem->bytes[1] = 0;
            czk_witness_pack_release(mem, release, ctx);
            rc = CZK_ENOMEM;
        } else {
            ba.others = mem->p[1];
            ba.pass = 2;
            czk_pool_run(pool, blocks, 1, build_body, &ba);
        }
    }
    if (blocks > 1)
        czk_free(count);
    if (rc == CZK_OK)
        *p = (czk_witness_pack){
            .n = n, .cls = ba.cls, .rank = ba.rank, .others = mem->p[1], .n_others = n_others};
    return rc;
}

void czk_witness_pack_expand(czk_fr *out, const czk_witness_pack *p) {
    for (size_t i = 0; i < p->n; i++) {
        uint64_t x = p->cls[i / 32];
        unsigned j = (unsigned)(i % 32);
        unsigned c = (unsigned)(x >> (2 * j)) & 3;
        if (c == 0) {
            memset(&out[i], 0, sizeof(out[i]));
        } else if (c == 1) {
            out[i] = CZK_FR_ONE;
        } else {
            uint64_t below = others_mask(x) & ((1ULL << (2 * j)) - 1);
            out[i] = p->others[p->rank[i / 32] + (size_t)__builtin_popcountll(below)];
        }
    }
}
