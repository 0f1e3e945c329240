/*
 * NTT domains and transforms (contract in ntt.h).
 *
 * DESIGN
 * Iterative radix-2 transforms: Gentleman–Sande (DIF, natural -> bit-reversed) and
 * Cooley–Tukey (DIT, bit-reversed -> natural) butterflies, each one Fr multiplication by a
 * twiddle read from a table (Cooley and Tukey, Math. Comp. 19, 1965; Gentleman and Sande,
 * AFIPS 1966). The public natural-order transforms are a DIF pass plus one bit-reversal
 * permutation; quotient.c chains DIF (inverse) and DIT (forward) directly and never permutes
 * between them.
 *
 * Cache blocking. The stages whose butterflies span less than B = 2^CZK__NTT_BLOCK_LG elements
 * touch only one aligned block of B elements, so they run block by block, all of a block's
 * stages while it sits in L2 (one pool item per block); only the lg − log2(B) stages with a
 * wider span stream over the whole array, two stages per pass (radix 2²), split into twiddle
 * chunks × group ranges for the pool. This is the first half of Bailey's idea ("FFTs in external or
 * hierarchical memory", J. Supercomputing 4, 1990) without his transposes: the outer passes
 * stay strided, which the hardware prefetcher follows. Blocks use their own table of
 * ω_B^(±j), j < B/2, so their twiddle reads stay in cache too. When the pool has more ways
 * than blocks, the block size shrinks until there are 4 blocks a way.
 *
 * Twiddle memory. The outer stage of span 2m needs ω^(j·n/(2m)) for j < m, all of them
 * entries of the table ω^k, k < n/2. We keep that full table (16·n bytes) up to
 * CZK__NTT_FULL_TABLE_MAX_LG and read it directly (forward) or negated at mirrored indices
 * (inverse: ω^(−k) = −ω^(n/2 − k)). Above it the table would be gigabytes (4 GiB at 2^28),
 * so the domain keeps two tables of about sqrt(n) entries, hi[k] = ω^(k·2^s) and
 * lo[k] = ω^k for k < 2^s, with ω^k = hi[k >> s]·lo[k mod 2^s]. Each outer stage then builds
 * the twiddles of one chunk of j into a stack buffer and reuses them over every group of the
 * stage, so the extra multiplication is paid once per distinct twiddle, m per stage and
 * below n per transform (under 2/lg of the butterflies' multiplications).
 *
 * Butterflies with twiddle 1 (j = 0 of every group) skip the multiplication inside blocks;
 * at the narrow stages these are a large share (all of span 2, half of span 4, ...).
 *
 * Measurements (bench_ntt, forward, min of 5 or 7 runs, the 16-core Xeon host of the H200
 * machine, GCC -O3). That host's speed drifts between runs, so only figures of one run
 * are compared. With radix-2 outer passes: blocks of 2^10, 2^12, 2^14, 2^16 took 333, 290,
 * 295, 289 ms at 2^20 on one thread; the two-level table instead of the full one cost 13 %
 * at 2^20 (328 against 290 ms) and 5 % at 2^22 (1395 against 1320 ms). With the paired
 * passes: blocks of 2^12, 2^13, 2^14, 2^15 took 156, 146, 146, 143 ms at 2^22 on 16 threads,
 * and 2^12 against 2^14 took 345 against 340 ms at 2^20 on one. One butterfly costs about
 * 28 ns there: the 19.4 ns Fr multiplication plus two out-of-line Fr additions.
 */
#include "poly/ntt.h"

#include "poly/ntt_internal.h"
#include "util/alloc.h"
#include "util/status.h"

#include <stdint.h>
#include <string.h>

/* Twiddles built per chunk of an outer stage (a 4 KiB stack buffer). */
#define NTT_TW_CHUNK 128

/* Below this size a transform runs on the calling thread: a pool hand-off costs more. */
#define NTT_PAR_MIN_LG 10

/* Bit-reversal tiles are 2^BR_T × 2^BR_T elements (two 8 KiB tiles in L1). */
#define BR_T 4

/* Positions per chunk of a scaling pass: one small power table of this size per call. */
#define SCALE_CHUNK_LG 8

/*
 * The primitive 2^32-th roots of unity of the two conventions, canonical (not Montgomery),
 * little-endian limbs, both derived with python3 from r (and asserted: root^(2^31) = r − 1).
 *
 * bellperson: 7^((r−1)/2^32) =
 *   0x16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b.
 *   Its Montgomery form {0xb9b58d8c5f0e466a, 0x5b1b4c801819d7ec, 0x0af53ae352a31e64,
 *   0x5bf3adda19e9b27b} is blstrs' ROOT_OF_UNITY (and fr.c's Tonelli–Shanks root).
 * snarkjs: 5^((r−1)/2^32) =
 *   0x0212d79e5b416b6f0fd56dc8d168d6c0c4024ff270b3e0941b788f500b912f1f.
 *   It equals ffjavascript 0.3.1's Fr.w[32] after buildBls12381, printed with node through
 *   Fr.toString(Fr.w[32], 16): ffjavascript's WasmField1 and wasmcurves' build_fft both take
 *   the smallest quadratic non-residue, 5, to the power (r−1)/2^s.
 *
 * Squared down, the two agree up to order 4 and differ at every order from 8 up.
 */
static const uint64_t ROOT32_BELLPERSON[CZK_FR_LIMBS] = {
    0x3829971f439f0d2bULL, 0xb63683508c2280b9ULL, 0xd09b681922c813b4ULL, 0x16a2a19edfe81f20ULL};
static const uint64_t ROOT32_SNARKJS[CZK_FR_LIMBS] = {0x1b788f500b912f1fULL, 0xc4024ff270b3e094ULL,
                                                      0x0fd56dc8d168d6c0ULL, 0x0212d79e5b416b6fULL};

struct czk_ntt_domain {
    unsigned lg;
    size_t n;
    czk_ntt_root root;
    czk_fr omega, omega_2n, n_inv;
    unsigned blk_lg; /* B = 2^blk_lg = min(n, 2^CZK__NTT_BLOCK_LG) */
    czk_fr *blk_fwd; /* ω_B^j, j < max(1, B/2) */
    czk_fr *blk_inv; /* ω_B^(−j) */
    unsigned lo_lg;  /* s: 0 for the full table */
    czk_fr *hi;      /* ω^(k·2^s), k < max(1, n/2^(s+1)) */
    czk_fr *lo;      /* ω^k, k < 2^s */
    czk_fr *mem;     /* the one allocation holding the four tables */
    size_t bytes;
};

/* ---- domain ---- */

/* t[i] = x^i for i < cnt. */
static void powers(czk_fr *t, size_t cnt, const czk_fr *x) {
    t[0] = CZK_FR_ONE;
    for (size_t i = 1; i < cnt; i++)
        czk_fr_mul(&t[i], &t[i - 1], x);
}

int czk__ntt_domain_create_tuned(czk_ntt_domain **out, unsigned lg_n, czk_ntt_root root,
                                 unsigned block_lg, unsigned full_table_max_lg, czk_err *err) {
    int rc = CZK_OK;
    czk_ntt_domain *d = NULL;
    if (out == NULL)
        return czk_err_set(err, CZK_EINVAL, "czk_ntt_domain_create: out is NULL");
    *out = NULL;
    if (lg_n > CZK_NTT_MAX_LG)
        return czk_err_set(err, CZK_EINVAL, "NTT domain 2^%u is above the maximum 2^%d", lg_n,
                           CZK_NTT_MAX_LG);
    if (root != CZK_NTT_ROOT_BELLPERSON && root != CZK_NTT_ROOT_SNARKJS)
        return czk_err_set(err, CZK_EINVAL, "unknown NTT root convention %d", (int)root);
    d = czk_calloc(1, sizeof(*d));
    if (d == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "NTT domain");
        goto out;
    }
    d->lg = lg_n;
    d->n = (size_t)1 << lg_n;
    d->root = root;

    czk_fr r32, n_fr, w;
    rc = czk_fr_from_limbs(&r32,
                           root == CZK_NTT_ROOT_BELLPERSON ? ROOT32_BELLPERSON : ROOT32_SNARKJS);
    if (rc != CZK_OK) {
        rc = czk_err_set(err, CZK_EINTERNAL, "NTT root literal not below r");
        goto out;
    }
    d->omega_2n = r32;
    for (unsigned i = lg_n + 1; i < 32; i++)
        czk_fr_sqr(&d->omega_2n, &d->omega_2n);
    czk_fr_sqr(&d->omega, &d->omega_2n);
    czk_fr_set_u64(&n_fr, d->n);
    czk_fr_inv(&d->n_inv, &n_fr);

    d->blk_lg = lg_n < block_lg ? lg_n : block_lg;
    d->lo_lg = lg_n <= full_table_max_lg ? 0 : (lg_n - 1) / 2;
    size_t blk_cnt = d->blk_lg > 0 ? (size_t)1 << (d->blk_lg - 1) : 1;
    size_t hi_cnt = lg_n > d->lo_lg ? d->n >> (d->lo_lg + 1) : 1;
    size_t lo_cnt = (size_t)1 << d->lo_lg;
    size_t total = 2 * blk_cnt + hi_cnt + lo_cnt;
    d->bytes = sizeof(*d) + total * sizeof(czk_fr);
    d->mem = czk_malloc(total * sizeof(czk_fr));
    if (d->mem == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "NTT twiddles for 2^%u (%zu bytes)", lg_n,
                         total * sizeof(czk_fr));
        goto out;
    }
    d->blk_fwd = d->mem;
    d->blk_inv = d->blk_fwd + blk_cnt;
    d->hi = d->blk_inv + blk_cnt;
    d->lo = d->hi + hi_cnt;

    /* ω_B = ω^(n/B): square ω down lg − blk_lg times. */
    w = d->omega;
    for (unsigned i = d->blk_lg; i < lg_n; i++)
        czk_fr_sqr(&w, &w);
    powers(d->blk_fwd, blk_cnt, &w);
    czk_fr_inv(&w, &w);
    powers(d->blk_inv, blk_cnt, &w);
    powers(d->lo, lo_cnt, &d->omega);
    w = d->omega;
    for (unsigned i = 0; i < d->lo_lg; i++)
        czk_fr_sqr(&w, &w);
    powers(d->hi, hi_cnt, &w);
out:
    if (rc != CZK_OK) {
        czk_ntt_domain_destroy(d);
        return rc;
    }
    *out = d;
    return CZK_OK;
}

int czk_ntt_domain_create(czk_ntt_domain **out, unsigned lg_n, czk_ntt_root root, czk_err *err) {
    return czk__ntt_domain_create_tuned(out, lg_n, root, CZK__NTT_BLOCK_LG,
                                        CZK__NTT_FULL_TABLE_MAX_LG, err);
}

void czk_ntt_domain_destroy(czk_ntt_domain *d) {
    if (d == NULL)
        return;
    czk_free(d->mem);
    czk_free(d);
}

size_t czk_ntt_domain_size(const czk_ntt_domain *d) {
    return d->n;
}

unsigned czk_ntt_domain_lg(const czk_ntt_domain *d) {
    return d->lg;
}

const czk_fr *czk_ntt_domain_omega(const czk_ntt_domain *d) {
    return &d->omega;
}

const czk_fr *czk_ntt_domain_omega_2n(const czk_ntt_domain *d) {
    return &d->omega_2n;
}

size_t czk_ntt_domain_bytes(const czk_ntt_domain *d) {
    return d->bytes;
}

const czk_fr *czk__ntt_domain_n_inv(const czk_ntt_domain *d) {
    return &d->n_inv;
}

/* ---- butterflies ---- */

/* (x, y) <- (x + y, (x − y)·w) */
static inline void bfly_dif(czk_fr *x, czk_fr *y, const czk_fr *w) {
    czk_fr t;
    czk_fr_sub(&t, x, y);
    czk_fr_add(x, x, y);
    czk_fr_mul(y, &t, w);
}

/* (x, y) <- (x + y, x − y) */
static inline void bfly_1(czk_fr *x, czk_fr *y) {
    czk_fr t;
    czk_fr_sub(&t, x, y);
    czk_fr_add(x, x, y);
    *y = t;
}

/* (x, y) <- (x + w·y, x − w·y) */
static inline void bfly_dit(czk_fr *x, czk_fr *y, const czk_fr *w) {
    czk_fr t;
    czk_fr_mul(&t, y, w);
    czk_fr_sub(y, x, &t);
    czk_fr_add(x, x, &t);
}

/* ---- inner stages: whole blocks ---- */

/*
 * The stage of half-span m on one block of len elements (a power of two <= B), with DIT's
 * butterflies or DIF's. tbl holds ω_B^j (or ω_B^(−j)) for j < B/2, B = 2^tbl_lg, so the stage
 * reads every (B/2m)-th entry; j = 0's twiddle is 1.
 */
static inline void block_stage(czk_fr *a, size_t len, size_t m, const czk_fr *tbl, unsigned tbl_lg,
                               int dit) {
    size_t st = ((size_t)1 << tbl_lg) / (2 * m);
    for (size_t k = 0; k < len; k += 2 * m) {
        czk_fr *x = a + k, *y = a + k + m;
        bfly_1(&x[0], &y[0]);
        if (dit) {
            for (size_t j = 1; j < m; j++)
                bfly_dit(&x[j], &y[j], &tbl[j * st]);
        } else {
            for (size_t j = 1; j < m; j++)
                bfly_dif(&x[j], &y[j], &tbl[j * st]);
        }
    }
}

/* All stages of span < 2·(len/2) on one block, DIF order (wide to narrow). */
static void dif_block(czk_fr *a, size_t len, const czk_fr *tbl, unsigned tbl_lg) {
    for (size_t m = len / 2; m >= 1; m >>= 1)
        block_stage(a, len, m, tbl, tbl_lg, 0);
}

/* As dif_block in DIT order (narrow to wide). */
static void dit_block(czk_fr *a, size_t len, const czk_fr *tbl, unsigned tbl_lg) {
    for (size_t m = 1; m < len; m <<= 1)
        block_stage(a, len, m, tbl, tbl_lg, 1);
}

typedef struct {
    const czk_ntt_domain *d;
    czk_fr *a;
    size_t len; /* block size */
    const czk_fr *tbl;
    int dit;
} blocks_arg;

static void blocks_body(void *arg, size_t b, size_t e, unsigned worker) {
    const blocks_arg *ba = arg;
    (void)worker;
    for (size_t i = b; i < e; i++) {
        czk_fr *blk = ba->a + i * ba->len;
        if (ba->dit)
            dit_block(blk, ba->len, ba->tbl, ba->d->blk_lg);
        else
            dif_block(blk, ba->len, ba->tbl, ba->d->blk_lg);
    }
}

/* ---- outer stages: two per pass ---- */

/*
 * The twiddles ω^(±((j0 + u)·step + off)) for u < cnt, all exponents below n/2. Returns a
 * pointer to them and their stride: straight into the full table for forward twiddles, else
 * built in buf (cnt entries).
 */
static const czk_fr *stage_twiddles(const czk_ntt_domain *d, czk__ntt_dir dir, size_t j0,
                                    size_t cnt, size_t step, size_t off, czk_fr *buf,
                                    size_t *stride) {
    if (dir == CZK__NTT_FWD && d->lo_lg == 0) {
        *stride = step;
        return d->hi + off + j0 * step;
    }
    size_t half = d->n / 2, mask = ((size_t)1 << d->lo_lg) - 1;
    for (size_t u = 0; u < cnt; u++) {
        size_t k = (j0 + u) * step + off;
        if (dir == CZK__NTT_INV) {
            if (k == 0) {
                buf[u] = CZK_FR_ONE;
                continue;
            }
            k = half - k; /* ω^(−k) = −ω^(n/2 − k) */
        }
        if ((k & mask) == 0)
            buf[u] = d->hi[k >> d->lo_lg];
        else
            czk_fr_mul(&buf[u], &d->hi[k >> d->lo_lg], &d->lo[k & mask]);
        if (dir == CZK__NTT_INV)
            czk_fr_neg(&buf[u], &buf[u]);
    }
    *stride = 1;
    return buf;
}

/*
 * One pass over the array for the stages of half-span m and m/2 together (radix 2²: the
 * multiplications of two radix-2 stages for half the memory traffic, which counts once many
 * threads share the memory bus). For j < m/2 a group of span 2m holds x0..x3 at j, j + m/2,
 * j + m, j + 3m/2, and with d = n/2m the stage of half-span m pairs (x0, x2) with ω^(j·d)
 * and (x1, x3) with ω^((j + m/2)·d); the stage of half-span m/2 pairs (x0, x1) and (x2, x3)
 * with ω^(2j·d). DIF runs the wide stage first, DIT the narrow one. `quad` = 0 makes it a
 * single radix-2 stage of half-span m.
 */
typedef struct {
    const czk_ntt_domain *d;
    czk_fr *a;
    size_t m; /* the wider half-span */
    czk__ntt_dir dir;
    int dit, quad;
    size_t nch;    /* twiddle chunks: ceil(jmax / NTT_TW_CHUNK) */
    size_t gparts; /* group ranges per chunk */
} stage_arg;

static void stage_body(void *arg, size_t b, size_t e, unsigned worker) {
    const stage_arg *sa = arg;
    const size_t m = sa->m, ngroups = sa->d->n / (2 * m), jmax = sa->quad ? m / 2 : m;
    czk_fr buf[3][NTT_TW_CHUNK];
    (void)worker;
    for (size_t it = b; it < e; it++) {
        size_t c = it % sa->nch, gp = it / sa->nch;
        size_t j0 = c * NTT_TW_CHUNK;
        size_t cnt = jmax - j0 < NTT_TW_CHUNK ? jmax - j0 : NTT_TW_CHUNK;
        size_t g0 = gp * ngroups / sa->gparts, g1 = (gp + 1) * ngroups / sa->gparts;
        size_t s1, s2 = 0, s3 = 0;
        const czk_fr *w1 = stage_twiddles(sa->d, sa->dir, j0, cnt, ngroups, 0, buf[0], &s1);
        const czk_fr *w2 = NULL, *w3 = NULL;
        if (sa->quad) {
            w2 = stage_twiddles(sa->d, sa->dir, j0, cnt, ngroups, sa->d->n / 4, buf[1], &s2);
            w3 = stage_twiddles(sa->d, sa->dir, j0, cnt, 2 * ngroups, 0, buf[2], &s3);
        }
        for (size_t g = g0; g < g1; g++) {
            czk_fr *x0 = sa->a + g * 2 * m + j0;
            if (!sa->quad) {
                czk_fr *y = x0 + m;
                if (sa->dit) {
                    for (size_t u = 0; u < cnt; u++)
                        bfly_dit(&x0[u], &y[u], &w1[u * s1]);
                } else {
                    for (size_t u = 0; u < cnt; u++)
                        bfly_dif(&x0[u], &y[u], &w1[u * s1]);
                }
                continue;
            }
            czk_fr *x1 = x0 + m / 2, *x2 = x0 + m, *x3 = x2 + m / 2;
            if (sa->dit) {
                for (size_t u = 0; u < cnt; u++) {
                    bfly_dit(&x0[u], &x1[u], &w3[u * s3]);
                    bfly_dit(&x2[u], &x3[u], &w3[u * s3]);
                    bfly_dit(&x0[u], &x2[u], &w1[u * s1]);
                    bfly_dit(&x1[u], &x3[u], &w2[u * s2]);
                }
            } else {
                for (size_t u = 0; u < cnt; u++) {
                    bfly_dif(&x0[u], &x2[u], &w1[u * s1]);
                    bfly_dif(&x1[u], &x3[u], &w2[u * s2]);
                    bfly_dif(&x0[u], &x1[u], &w3[u * s3]);
                    bfly_dif(&x2[u], &x3[u], &w3[u * s3]);
                }
            }
        }
    }
}

static void run_stage(const czk_ntt_domain *d, czk_fr *a, size_t m, int quad, czk__ntt_dir dir,
                      int dit, czk_pool *pool) {
    stage_arg sa = {.d = d, .a = a, .m = m, .dir = dir, .dit = dit, .quad = quad};
    /* About 8 items a way, splitting the groups too when there are few twiddle chunks. */
    size_t ngroups = d->n / (2 * m), ways = czk_pool_ways(pool), want = ways > 1 ? 8 * ways : 1;
    size_t jmax = quad ? m / 2 : m;
    sa.nch = (jmax + NTT_TW_CHUNK - 1) / NTT_TW_CHUNK;
    sa.gparts = 1;
    if (sa.nch < want) {
        sa.gparts = (want + sa.nch - 1) / sa.nch;
        if (sa.gparts > ngroups)
            sa.gparts = ngroups;
    }
    czk_pool_run(pool, sa.nch * sa.gparts, 1, stage_body, &sa);
}

/* log2 of the block size for this call: B, or smaller so that each way gets ~4 blocks. */
static unsigned block_lg(const czk_ntt_domain *d, czk_pool *pool) {
    unsigned b = d->blk_lg, ways = czk_pool_ways(pool), want = 0;
    if (ways <= 1)
        return b;
    while (((size_t)1 << want) < 4 * (size_t)ways)
        want++;
    if (d->lg - b < want)
        b = d->lg > want ? d->lg - want : 0;
    return b;
}

static czk_pool *pool_for(const czk_ntt_domain *d, czk_pool *pool) {
    return d->lg < NTT_PAR_MIN_LG ? NULL : pool;
}

/* The inner stages (block_stage) of every block of 2^bl elements, DIT's or DIF's. */
static void run_blocks(const czk_ntt_domain *d, czk_fr *a, unsigned bl, czk__ntt_dir dir, int dit,
                       czk_pool *pool) {
    blocks_arg ba = {.d = d,
                     .a = a,
                     .len = (size_t)1 << bl,
                     .tbl = dir == CZK__NTT_FWD ? d->blk_fwd : d->blk_inv,
                     .dit = dit};
    if (ba.len >= 2)
        czk_pool_run(pool, d->n >> bl, 1, blocks_body, &ba);
}

void czk__ntt_dif(const czk_ntt_domain *d, czk_fr *a, czk__ntt_dir dir, czk_pool *pool) {
    if (d->n < 2)
        return;
    pool = pool_for(d, pool);
    unsigned bl = block_lg(d, pool);
    size_t len = (size_t)1 << bl;
    /* Outer stages: half-spans n/2 down to len, in pairs. */
    for (size_t m = d->n / 2; m >= len;) {
        int quad = m / 2 >= len;
        run_stage(d, a, m, quad, dir, 0, pool);
        m >>= quad ? 2 : 1;
    }
    run_blocks(d, a, bl, dir, 0, pool);
}

void czk__ntt_dit(const czk_ntt_domain *d, czk_fr *a, czk__ntt_dir dir, czk_pool *pool) {
    if (d->n < 2)
        return;
    pool = pool_for(d, pool);
    unsigned bl = block_lg(d, pool);
    run_blocks(d, a, bl, dir, 1, pool);
    /* Outer stages: half-spans 2^bl up to n/2, in pairs. */
    for (size_t m = (size_t)1 << bl; m < d->n;) {
        int quad = 2 * m < d->n;
        run_stage(d, a, quad ? 2 * m : m, quad, dir, 1, pool);
        m <<= quad ? 2 : 1;
    }
}

/* ---- bit reversal ---- */

/* x reversed over its low `bits` bits (bits <= 64). */
static inline size_t rev_bits(size_t x, unsigned bits) {
    uint64_t v = x;
    if (bits == 0)
        return 0;
    v = ((v >> 1) & 0x5555555555555555ULL) | ((v & 0x5555555555555555ULL) << 1);
    v = ((v >> 2) & 0x3333333333333333ULL) | ((v & 0x3333333333333333ULL) << 2);
    v = ((v >> 4) & 0x0f0f0f0f0f0f0f0fULL) | ((v & 0x0f0f0f0f0f0f0f0fULL) << 4);
    v = __builtin_bswap64(v);
    return (size_t)(v >> (64 - bits));
}

/* Swaps *x and *y, multiplying both by *c unless c is NULL. */
static inline void swap_scale(czk_fr *x, czk_fr *y, const czk_fr *c) {
    czk_fr t = *x;
    if (c != NULL) {
        czk_fr_mul(x, y, c);
        czk_fr_mul(y, &t, c);
    } else {
        *x = *y;
        *y = t;
    }
}

typedef struct {
    czk_fr *a;
    unsigned mid_bits; /* lg − 2·BR_T */
    const czk_fr *c;
} bitrev_arg;

/*
 * Index i = (hi, mid, lo) with BR_T-bit hi and lo: rev(i) = (rev lo, rev mid, rev hi), so the
 * 2^BR_T × 2^BR_T tile of fixed mid maps onto the tile of mid' = rev(mid), transposed and
 * bit-reversed along both axes. Swapping tile against tile keeps both in L1 instead of
 * missing the cache once per element (Carter and Gatlin, "Towards an optimal bit-reversal
 * permutation program", FOCS 1998, use the same split). Items are mid values; the smaller of
 * each pair {mid, mid'} does the work.
 */
static void bitrev_body(void *arg, size_t b, size_t e, unsigned worker) {
    const bitrev_arg *ba = arg;
    const size_t T = (size_t)1 << BR_T;
    const unsigned sh_hi = ba->mid_bits + BR_T;
    uint8_t rt[1 << BR_T];
    (void)worker;
    for (size_t t = 0; t < T; t++)
        rt[t] = (uint8_t)rev_bits(t, BR_T);
    for (size_t mid = b; mid < e; mid++) {
        size_t mid2 = rev_bits(mid, ba->mid_bits);
        if (mid2 < mid)
            continue;
        czk_fr *x = ba->a + (mid << BR_T), *y = ba->a + (mid2 << BR_T);
        for (size_t hi = 0; hi < T; hi++) {
            for (size_t lo = 0; lo < T; lo++) {
                size_t i = (hi << sh_hi) | lo, j = ((size_t)rt[lo] << sh_hi) | rt[hi];
                if (mid2 == mid) {
                    if (i > j)
                        continue;
                    if (i == j) {
                        if (ba->c != NULL)
                            czk_fr_mul(&x[i], &x[i], ba->c);
                        continue;
                    }
                }
                swap_scale(&x[i], &y[j], ba->c);
            }
        }
    }
}

void czk__ntt_bitrev(const czk_ntt_domain *d, czk_fr *a, const czk_fr *c, czk_pool *pool) {
    pool = pool_for(d, pool);
    if (d->lg < 2 * BR_T) {
        for (size_t i = 0; i < d->n; i++) {
            size_t j = rev_bits(i, d->lg);
            if (i < j)
                swap_scale(&a[i], &a[j], c);
            else if (i == j && c != NULL)
                czk_fr_mul(&a[i], &a[i], c);
        }
        return;
    }
    bitrev_arg ba = {.a = a, .mid_bits = d->lg - 2 * BR_T, .c = c};
    czk_pool_run(pool, (size_t)1 << ba.mid_bits, 1, bitrev_body, &ba);
}

/* ---- scaling by powers ---- */

typedef struct {
    czk_fr *const *v;
    unsigned nv;
    unsigned lg, t; /* chunks of 2^t positions */
    const czk_fr *tbl;
    czk_fr g, gstep, c; /* gstep = g^(2^t) (natural order) */
    czk__ntt_order order;
} scale_arg;

/*
 * Position p = chunk·2^t + u. Natural order: g^p = g^(chunk·2^t)·g^u. Bit-reversed order:
 * rev(p) = rev_{lg−t}(chunk) + rev_t(u)·2^(lg−t), so g^rev(p) = g^rev(chunk)·G^rev_t(u)
 * with G = g^(2^(lg−t)). Either way tbl[u] holds the second factor and each chunk needs one
 * base power.
 */
static void scale_body(void *arg, size_t b, size_t e, unsigned worker) {
    const scale_arg *sa = arg;
    const size_t J = (size_t)1 << sa->t;
    czk_fr base, f;
    (void)worker;
    for (size_t ch = b; ch < e; ch++) {
        if (sa->order == CZK__NTT_NATURAL && ch != b) {
            czk_fr_mul(&base, &base, &sa->gstep);
        } else {
            uint64_t ex = sa->order == CZK__NTT_NATURAL ? (uint64_t)ch
                                                        : (uint64_t)rev_bits(ch, sa->lg - sa->t);
            const czk_fr *gb = sa->order == CZK__NTT_NATURAL ? &sa->gstep : &sa->g;
            czk_fr_pow(&base, gb, &ex, 1);
            czk_fr_mul(&base, &base, &sa->c);
        }
        size_t p0 = ch * J;
        for (size_t u = 0; u < J; u++) {
            czk_fr_mul(&f, &base, &sa->tbl[u]);
            for (unsigned k = 0; k < sa->nv; k++)
                czk_fr_mul(&sa->v[k][p0 + u], &sa->v[k][p0 + u], &f);
        }
    }
}

void czk__ntt_scale_powers(const czk_ntt_domain *d, czk_fr *const *v, unsigned nv, const czk_fr *g,
                           const czk_fr *c, czk__ntt_order order, czk_pool *pool) {
    czk_fr tbl[1 << SCALE_CHUNK_LG], G;
    scale_arg sa = {.v = v, .nv = nv, .lg = d->lg, .tbl = tbl, .g = *g, .c = *c, .order = order};
    pool = pool_for(d, pool);
    sa.t = d->lg < SCALE_CHUNK_LG ? d->lg : SCALE_CHUNK_LG;
    size_t J = (size_t)1 << sa.t;
    if (order == CZK__NTT_NATURAL) {
        powers(tbl, J, g);
        sa.gstep = *g;
        for (unsigned i = 0; i < sa.t; i++)
            czk_fr_sqr(&sa.gstep, &sa.gstep);
    } else {
        czk_fr pw[1 << SCALE_CHUNK_LG];
        G = *g;
        for (unsigned i = sa.t; i < d->lg; i++)
            czk_fr_sqr(&G, &G);
        powers(pw, J, &G);
        for (size_t u = 0; u < J; u++)
            tbl[u] = pw[rev_bits(u, sa.t)];
    }
    czk_pool_run(pool, d->n >> sa.t, 1, scale_body, &sa);
}

/* ---- public transforms ---- */

void czk_ntt_forward(const czk_ntt_domain *d, czk_fr *a, czk_pool *pool) {
    czk__ntt_dif(d, a, CZK__NTT_FWD, pool);
    czk__ntt_bitrev(d, a, NULL, pool);
}

void czk_ntt_inverse(const czk_ntt_domain *d, czk_fr *a, czk_pool *pool) {
    czk__ntt_dif(d, a, CZK__NTT_INV, pool);
    czk__ntt_bitrev(d, a, &d->n_inv, pool);
}

void czk_ntt_coset_forward(const czk_ntt_domain *d, czk_fr *a, const czk_fr *g, czk_pool *pool) {
    czk_fr *v[1] = {a};
    czk__ntt_scale_powers(d, v, 1, g, &CZK_FR_ONE, CZK__NTT_NATURAL, pool);
    czk__ntt_dif(d, a, CZK__NTT_FWD, pool);
    czk__ntt_bitrev(d, a, NULL, pool);
}

void czk_ntt_coset_inverse(const czk_ntt_domain *d, czk_fr *a, const czk_fr *g, czk_pool *pool) {
    czk_fr *v[1] = {a}, ginv;
    czk_fr_inv_var(&ginv, g);
    czk__ntt_dif(d, a, CZK__NTT_INV, pool);
    czk__ntt_scale_powers(d, v, 1, &ginv, &d->n_inv, CZK__NTT_BITREV, pool);
    czk__ntt_bitrev(d, a, NULL, pool);
}
