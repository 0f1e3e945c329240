/*
 * Multi-scalar multiplication on the CPU (contract in msm.h).
 *
 * DESIGN
 * One call runs over the points in chunks (czk__msm_cfg.chunk, default MSM_DEFAULT_CHUNK), so
 * that scratch stays bounded however large n is. Per chunk:
 *
 * 1. Split by value, in one pass over the scalars (two cheap sweeps of the same ranges, in
 *    parallel: count, then write). Zero scalars and points at infinity are skipped; scalars
 *    equal to one set a bit of a bitmap; the rest are converted to canonical limbs, split with
 *    the endomorphism and packed ("rest": point index, two half scalars, the x of [x^2]P).
 * 2. Batch addition of the bitmap's points (sum_range in msm_impl.inc): blocks of up to BLOCK
 *    points are reduced by a pairwise tree of affine additions whose rounds share one
 *    inversion each (Montgomery's trick), about 6 multiplications per addition against the
 *    8M+2S of a mixed XYZZ addition.
 * 3. Pippenger's bucket method (Pippenger 1976; Bernstein, Doumen, Lange, Oosterwijk, "Faster
 *    batch forgery identification", eprint 2012/549, §4) on the rest, with:
 *    - GLV (Gallant, Lambert, Vanstone, CRYPTO 2001): k = k0 + k1 x^2 with 0 <= k0, k1 < x^2
 *      < 2^128, and [x^2]P is (beta x, -y) on G1 (the curve code's sigma, negated) and
 *      psi^2(P) = (n x, -y) with n in Fp on G2. Twice the points, half the windows: the
 *      accumulation work stays, the bucket reduction work halves.
 *    - Signed (Booth) digits: d_w = bits[s, s+c) + bit[s-1] - 2^c bit[s+c-1], in
 *      [-2^(c-1), 2^(c-1)], independent per window (no carry chain), so a window needs 2^(c-1)
 *      buckets instead of 2^c - 1; -P costs a field negation. The top window keeps its high
 *      bit (no subtraction), so its digits are non-negative and need no extra window.
 *      Windows have nearly equal widths (plan_windows), chosen by a cost model (plan_cost).
 *    - Batch-affine bucket accumulation (task_affine; the approach of gnark-crypto's
 *      batch-affine MSM): entries are taken in point order, the first one of a bucket is
 *      copied in and later ones go into a batch of distinct buckets that is added with one
 *      shared inversion; an entry whose bucket is already in the batch waits in a short queue,
 *      and when that is full it "spills". Spilled entries, and all entries of a task with few
 *      buckets (where most would spill), are sorted by bucket and summed by the same pairwise
 *      trees as in step 2, then added into the buckets (tree_merge): a skewed digit
 *      distribution (every scalar equal, say) costs log2(BLOCK) tree rounds, not one
 *      inversion per addition.
 *    - Batch-affine bucket reduction (reduce_affine): sum_b (b+1) S_b by running sums, with
 *      the buckets cut into segments that step together, so each step is two batches of
 *      independent affine additions rather than two XYZZ additions per bucket.
 *    - On CPUs with AVX-512 IFMA, the batch-affine additions run on eight lanes (msm_ifma.c:
 *      52-bit limbs, Montgomery radix 2^416), for G1 about 95 ns an addition against 350 ns
 *      for the scalar code's 5M+1S of 6-limb MULX multiplications. Its coordinates live in its
 *      own Montgomery domain: cls_write converts the packed points (and [x^2]P's x) once per
 *      chunk into rest.pv and rest.ex, the bucket sums stay in the domain, and only the
 *      reduction's few outputs come back (dom_from). Step 2 converts each block of points
 *      before its tree and the sum back.
 *    Tasks are (window, bucket range) pairs; a range [b0, b1) returns T = sum (b-b0+1) S_b and
 *    R = sum S_b and contributes T + [b0] R, so splitting a window for more threads costs one
 *    digit scan per task and no repeated bucket work.
 * 4. Windows are combined by Horner's rule in Jacobian coordinates.
 *
 * Measured (one thread, 2-core Xeon, random G1 points and scalars, against blst's Pippenger
 * in one run of bench/peer/compare_blst.sh; the machine shared with a test run, so ratios
 * only): 0.27x blst's time at 2^16 and 0.24x at 2^18 with IFMA, 0.69x and 0.61x without it.
 * bench_msm switches each technique off for comparison (--no-ifma for the scalar additions).
 *
 * Everything is variable time: MSM inputs in a prover are the proving key and the witness,
 * which are not secret from the prover.
 */
#include "msm/msm.h"

#include <stdatomic.h>
#include <string.h>

#include "field/fp.h"
#include "field/fp2.h"
#include "msm/msm_internal.h"
#include "util/alloc.h"
#include "util/carry.h"

/* ---- GLV split ---------------------------------------------------------------------------- */

/* x^2 for the BLS parameter x = -0xd201000000010000 (the curve code's GLV split point). */
static const uint64_t MSM_X2[2] = {0x0000000100000000ULL, 0xac45a4010001a402ULL};
/* floor(2^256 / x^2) (129 bits), for Barrett division; python3: (1 << 256) // x**2. */
static const uint64_t MSM_X2_MU[3] = {0x63f6e522f6cfee2eULL, 0x7c6becf1e01faaddULL,
                                      0x0000000000000001ULL};

/*
 * Barrett division by x^2: q = floor(k mu / 2^256) is at most 2 below floor(k / x^2) (k < 2^256
 * and mu = floor(2^256 / x^2); Menezes et al., Handbook of Applied Cryptography, 14.42), so at
 * most two corrections follow. About 20 64-bit multiplications against 255 iterations of the
 * curve code's binary division.
 */
void czk__msm_glv_split(uint64_t out[4], const uint64_t k[4]) {
    uint64_t t[7] = {0};
    for (int i = 0; i < 4; i++) {
        unsigned __int128 carry = 0;
        for (int j = 0; j < 3; j++) {
            unsigned __int128 cur = (unsigned __int128)k[i] * MSM_X2_MU[j] + t[i + j] + carry;
            t[i + j] = (uint64_t)cur;
            carry = cur >> 64;
        }
        t[i + 3] = (uint64_t)carry;
    }
    /* k < r < 2^255, so q < 2^128: t[6] is zero and q = (t[5], t[4]). */
    uint64_t q0 = t[4], q1 = t[5];
    /* rem = k - q x^2 mod 2^192; the true remainder is below 3 x^2 < 2^130, so this is exact. */
    unsigned __int128 p00 = (unsigned __int128)q0 * MSM_X2[0];
    unsigned __int128 p01 = (unsigned __int128)q0 * MSM_X2[1];
    unsigned __int128 p10 = (unsigned __int128)q1 * MSM_X2[0];
    unsigned __int128 mid = (p00 >> 64) + (uint64_t)p01 + (uint64_t)p10;
    uint64_t qx0 = (uint64_t)p00, qx1 = (uint64_t)mid;
    uint64_t qx2 =
        (uint64_t)(mid >> 64) + (uint64_t)(p01 >> 64) + (uint64_t)(p10 >> 64) + q1 * MSM_X2[1];
    unsigned __int128 d = (unsigned __int128)k[0] - qx0;
    uint64_t r0 = (uint64_t)d;
    d = (unsigned __int128)k[1] - qx1 - (uint64_t)((d >> 64) & 1);
    uint64_t r1 = (uint64_t)d;
    uint64_t r2 = k[2] - qx2 - (uint64_t)((d >> 64) & 1);
    while (r2 != 0 || r1 > MSM_X2[1] || (r1 == MSM_X2[1] && r0 >= MSM_X2[0])) {
        d = (unsigned __int128)r0 - MSM_X2[0];
        r0 = (uint64_t)d;
        d = (unsigned __int128)r1 - MSM_X2[1] - (uint64_t)((d >> 64) & 1);
        r1 = (uint64_t)d;
        r2 -= (uint64_t)((d >> 64) & 1);
        if (++q0 == 0)
            q1++;
    }
    out[0] = r0;
    out[1] = r1;
    out[2] = q0;
    out[3] = q1;
}

/* ---- plan: window size, digits, tasks ----------------------------------------------------- */

#define MSM_MAX_WINDOW 24
#define MSM_MAX_WINDOWS 256
/* Segments of the batch-affine bucket reduction (reduce_affine); at most BLOCK / 2. */
#define MSM_RED_SEGS 128
/*
 * Points per chunk. Each chunk repeats the bucket reduction (about 2^(c-1) buckets per
 * window), so a chunk should hold many points per bucket. Scratch: 84 bytes per non-0/1 point
 * of a chunk (G1; index, half scalars, x of [x^2]P; 96 more with IFMA, the point in its domain)
 * plus, per worker with a task, 16 bytes per such point (entry codes) and about 100 bytes per
 * bucket of its window.
 */
#define MSM_DEFAULT_CHUNK ((size_t)1 << 20)

/* Largest half scalar: x^2 - 1 with GLV (k0 < x^2 and k1 <= (r-1) / x^2 = x^2 - 1), else r - 1. */
static const uint64_t MSM_KMAX_GLV[4] = {0x00000000ffffffffULL, 0xac45a4010001a402ULL, 0, 0};
static const uint64_t MSM_KMAX_FULL[4] = {0xffffffff00000000ULL, 0x53bda402fffe5bfeULL,
                                          0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

typedef struct msm_plan {
    unsigned c;                     /* the widest window, in bits */
    unsigned windows;               /* number of windows */
    unsigned halves;                /* 2 with GLV, else 1 */
    unsigned limbs;                 /* limbs per half scalar: 2 with GLV, else 4 */
    unsigned booth;                 /* signed digits */
    unsigned splits;                /* bucket ranges per window */
    uint8_t width[MSM_MAX_WINDOWS]; /* bits of each window, low window first */
    uint16_t off[MSM_MAX_WINDOWS];  /* its lowest bit */
    uint32_t nb[MSM_MAX_WINDOWS];   /* its buckets: |digit| - 1 indexes them */
    uint32_t nb_max;
} msm_plan;

/* Bits [pos, pos + len) of the nl-limb little-endian k, len <= 32; bits past the end are 0. */
static inline uint32_t msm_bits(const uint64_t *k, unsigned nl, unsigned pos, unsigned len) {
    unsigned li = pos / 64, sh = pos % 64;
    if (li >= nl)
        return 0;
    uint64_t v = k[li] >> sh;
    if (sh + len > 64 && li + 1 < nl)
        v |= k[li + 1] << (64 - sh);
    return (uint32_t)(v & ((1ULL << len) - 1));
}

/* The digit of window w of the half scalar k (see DESIGN for the Booth form). */
static inline int32_t msm_digit(const uint64_t *k, const msm_plan *pl, unsigned w) {
    unsigned s = pl->off[w], c = pl->width[w];
    uint32_t raw = msm_bits(k, pl->limbs, s, c);
    if (!pl->booth)
        return (int32_t)raw;
    int32_t d = (int32_t)raw;
    if (s != 0)
        d += (int32_t)msm_bits(k, pl->limbs, s - 1, 1);
    if (w + 1 < pl->windows && (raw >> (c - 1)) != 0)
        d -= (int32_t)1 << c;
    return d;
}

/*
 * Cuts the scalar bits into `windows` windows of nearly equal width (the wider ones low):
 * for a given window count this minimises the widest window and so the bucket count, where
 * equal widths of ceil(bits / windows) would leave a narrow top window (13-bit windows over
 * 128 bits, say, leave 11 bits on top; 14-bit ones leave 2).
 */
static void plan_windows(msm_plan *pl, unsigned windows) {
    const uint64_t *kmax = pl->halves == 2 ? MSM_KMAX_GLV : MSM_KMAX_FULL;
    unsigned bits = pl->halves == 2 ? 128 : 255;
    unsigned narrow = bits / windows, wide = bits % windows, off = 0;
    pl->windows = windows;
    pl->c = narrow + (wide != 0);
    pl->nb_max = 0;
    for (unsigned w = 0; w < windows; w++) {
        unsigned c = narrow + (w < wide);
        uint32_t nb;
        pl->width[w] = (uint8_t)c;
        pl->off[w] = (uint16_t)off;
        if (w + 1 < windows) {
            nb = pl->booth ? (uint32_t)1 << (c - 1) : ((uint32_t)1 << c) - 1;
        } else {
            /* The top window: its largest digit is (kmax >> off) (+1 for the Booth low bit). */
            nb = msm_bits(kmax, 4, off, c) + (pl->booth ? 1 : 0);
        }
        pl->nb[w] = nb;
        if (nb > pl->nb_max)
            pl->nb_max = nb;
        off += c;
    }
}

/*
 * Cost model, in nanoseconds per operation for G1 (G2 costs about 3x more for each, so the
 * same choice is made), fitted to window sweeps at 2^16 and 2^18 (bench_msm --window) and perf
 * profiles on the 2-core Xeon (Sapphire Rapids, KVM) this was developed on; the chosen window
 * count was the fastest of the sweep at 2^16, 2^18 and 2^20 (within 1 %). The IFMA additions
 * (msm_ifma.c) scale add and bucket by about 0.4 alike, which picks the same windows at 2^12 to
 * 2^22, and sweeps with them agreed within the (shared machine's) noise:
 *   scan:   digit extraction per entry and task (one pass; two for the XYZZ path's sort)
 *   add:    one bucket accumulation: batch-affine (~6M plus a share of the inversion and the
 *           entry handling), or an XYZZ mixed addition (8M+2S)
 *   bucket: reduction per bucket: two batch-affine additions, or one XYZZ addition
 *   task:   fixed cost per task, plus the affine reduction's segment combination
 */
#define MSM_COST_SCAN 5.0
#define MSM_COST_ADD_AFFINE 250.0
#define MSM_COST_ADD_XYZZ 430.0
#define MSM_COST_BUCKET 550.0
#define MSM_COST_TASK 5000.0
#define MSM_COST_XYZZ_ADD 450.0

static double plan_cost(const msm_plan *pl, size_t nrest, unsigned ways, int affine) {
    double e = (double)nrest * pl->halves; /* entries per window */
    double add = affine ? MSM_COST_ADD_AFFINE : MSM_COST_ADD_XYZZ;
    double scan = affine ? MSM_COST_SCAN : 2 * MSM_COST_SCAN;
    double work = 0, task_max = 0;
    for (unsigned w = 0; w < pl->windows; w++) {
        double nb = (double)pl->nb[w] / pl->splits;
        double segs = nb / 16 < MSM_RED_SEGS ? nb / 16 : MSM_RED_SEGS;
        double task = MSM_COST_TASK + scan * e + add * e / pl->splits + MSM_COST_BUCKET * nb +
                      (affine && segs >= 2 ? 3 * segs * MSM_COST_XYZZ_ADD : 0);
        work += task * pl->splits;
        if (task > task_max)
            task_max = task;
    }
    /* Whole tasks go to the ways: the busiest way gets at least the mean and one task. */
    double rounds = (double)((pl->windows * pl->splits + ways - 1) / ways);
    double per_way = work / (double)(pl->windows * pl->splits) * rounds;
    return per_way > task_max ? per_way : task_max;
}

static void plan_choose(msm_plan *pl, size_t nrest, unsigned ways, const czk__msm_cfg *cfg) {
    pl->halves = cfg->glv ? 2 : 1;
    pl->limbs = cfg->glv ? 2 : 4;
    pl->booth = cfg->booth ? 1 : 0;
    unsigned bits = pl->halves == 2 ? 128 : 255;
    unsigned w_lo = (bits + MSM_MAX_WINDOW - 1) / MSM_MAX_WINDOW, w_hi = bits;
    if (cfg->window != 0)
        w_lo = w_hi = (bits + cfg->window - 1) / cfg->window;
    double best = 0;
    unsigned best_w = w_lo, best_s = 1;
    for (unsigned w = w_lo; w <= w_hi; w++) {
        plan_windows(pl, w);
        unsigned s_lo = 1, s_hi = 1;
        if (cfg->splits != 0) {
            s_lo = s_hi = cfg->splits;
        } else if (ways > 1) {
            /* Enough tasks to keep every way busy; more only cost scans. */
            s_hi = 2 * ways / pl->windows + 1;
        }
        for (unsigned s = s_lo; s <= s_hi; s++) {
            pl->splits = s;
            double cost = plan_cost(pl, nrest, ways, cfg->affine);
            if (best == 0 || cost < best) {
                best = cost;
                best_w = w;
                best_s = s;
            }
        }
    }
    plan_windows(pl, best_w);
    pl->splits = best_s;
    /* A split never has fewer than one bucket. */
    for (unsigned w = 0; w < pl->windows; w++)
        if (pl->nb[w] < pl->splits)
            pl->splits = pl->nb[w] ? pl->nb[w] : 1;
}

void czk__msm_cfg_default(czk__msm_cfg *cfg) {
    memset(cfg, 0, sizeof(*cfg));
    cfg->glv = 1;
    cfg->booth = 1;
    cfg->affine = 1;
    cfg->split01 = 1;
    cfg->ifma = 1;
}

unsigned czk__msm_pick_window(size_t nrest, unsigned ways, const czk__msm_cfg *cfg) {
    msm_plan pl;
    plan_choose(&pl, nrest, ways ? ways : 1, cfg);
    return pl.c;
}

static int cfg_check(const czk__msm_cfg *cfg, czk_err *err) {
    if (cfg->window > MSM_MAX_WINDOW)
        return czk_err_set(err, CZK_EINVAL, "msm: window %u above %d", cfg->window, MSM_MAX_WINDOW);
    if (cfg->splits > (1u << 16))
        return czk_err_set(err, CZK_EINVAL, "msm: %u splits per window", cfg->splits);
    return CZK_OK;
}

/*
 * Up to this many non-0/1 scalars (with the window left to the cost model) are multiplied one
 * by one: a Pippenger pass has a fixed cost (W windows of buckets) that a few points do not
 * repay. G1, one thread, 2-core Xeon: 4 points 416 us one by one against 457 us; 8 points
 * 831 us against 607 us.
 */
#define MSM_DIRECT_MAX 4

/*
 * Prefetch distances (entries ahead) for the scattered point reads of a window task: the point
 * index, then the point. 16/8, 48/16, 64/32 and 128/64 were within noise of each other at 2^16
 * on the 2-core Xeon (the block fill is short next to the tree's arithmetic).
 */
#define MSM_PF_IDX 32
#define MSM_PF_POINT 16

/*
 * Tasks whose bucket batch would be smaller than this (fewer than 4x as many buckets) sum
 * every entry by sorting and batch-affine trees instead.
 */
#define MSM_MIN_BATCH 128

/* Entries of the classification pass: scalars are classified in ranges of this many points
 * (a multiple of 64, so each range owns whole bitmap words). */
#define MSM_RANGE 4096

/* ---- inline Fp addition, subtraction, negation, comparisons ------------------------------ */

/*
 * The batch-affine addition does six subtractions and two comparisons per point next to its
 * six multiplications. These inline versions of czk_fp_sub etc. (same contracts: inputs and
 * outputs fully reduced) made a 2^16 and a 2^18 G1 MSM 2-3 % faster than the calls, one
 * thread, 2-core Xeon (3 interleaved runs each).
 */
static inline void msm_fp_sub(czk_fp *r, const czk_fp *a, const czk_fp *b) {
    uint64_t d[CZK_FP_LIMBS];
    uint64_t c = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        d[i] = czk__sbb(a->l[i], b->l[i], &c);
    uint64_t mask = 0 - c;
    c = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        r->l[i] = czk__adc(d[i], CZK_FP_MODULUS[i] & mask, &c);
}

/* q < 2^381, so a + b < 2^383 never carries out of six limbs. */
static inline void msm_fp_add(czk_fp *r, const czk_fp *a, const czk_fp *b) {
    uint64_t t[CZK_FP_LIMBS], d[CZK_FP_LIMBS];
    uint64_t c = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        t[i] = czk__adc(a->l[i], b->l[i], &c);
    c = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        d[i] = czk__sbb(t[i], CZK_FP_MODULUS[i], &c);
    uint64_t keep = 0 - c; /* t < q: keep t */
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        r->l[i] = (t[i] & keep) | (d[i] & ~keep);
}

static inline void msm_fp_dbl(czk_fp *r, const czk_fp *a) {
    msm_fp_add(r, a, a);
}

static inline int msm_fp_is_zero(const czk_fp *a) {
    uint64_t acc = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        acc |= a->l[i];
    return acc == 0;
}

static inline int msm_fp_equal(const czk_fp *a, const czk_fp *b) {
    uint64_t acc = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        acc |= a->l[i] ^ b->l[i];
    return acc == 0;
}

/* -a = q - a, and 0 for a = 0. */
static inline void msm_fp_neg(czk_fp *r, const czk_fp *a) {
    uint64_t d[CZK_FP_LIMBS];
    uint64_t c = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        d[i] = czk__sbb(CZK_FP_MODULUS[i], a->l[i], &c);
    uint64_t nz = msm_fp_is_zero(a) ? 0 : ~(uint64_t)0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        r->l[i] = d[i] & nz;
}

static inline void msm_fp2_sub(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
    msm_fp_sub(&r->c0, &a->c0, &b->c0);
    msm_fp_sub(&r->c1, &a->c1, &b->c1);
}

static inline void msm_fp2_add(czk_fp2 *r, const czk_fp2 *a, const czk_fp2 *b) {
    msm_fp_add(&r->c0, &a->c0, &b->c0);
    msm_fp_add(&r->c1, &a->c1, &b->c1);
}

static inline void msm_fp2_dbl(czk_fp2 *r, const czk_fp2 *a) {
    msm_fp2_add(r, a, a);
}

static inline void msm_fp2_neg(czk_fp2 *r, const czk_fp2 *a) {
    msm_fp_neg(&r->c0, &a->c0);
    msm_fp_neg(&r->c1, &a->c1);
}

static inline int msm_fp2_is_zero(const czk_fp2 *a) {
    return msm_fp_is_zero(&a->c0) && msm_fp_is_zero(&a->c1);
}

static inline int msm_fp2_equal(const czk_fp2 *a, const czk_fp2 *b) {
    return msm_fp_equal(&a->c0, &b->c0) && msm_fp_equal(&a->c1, &b->c1);
}

/* ---- G1 ----------------------------------------------------------------------------------- */

/* beta, as in g1.c: sigma(x, y) = (beta x, y) = [-x^2] on G1 (Montgomery form). */
static const czk_fp MSM_G1_BETA = {{0x30f1361b798a64e8ULL, 0xf3b8ddab7ece5a2aULL,
                                    0x16a8ca3ac61577f7ULL, 0xc26a2ff874fd029bULL,
                                    0x3636b76660701c6eULL, 0x051ba4ab241b6160ULL}};

static inline int msm_g1_aff_is_inf(const czk_g1_affine *p) {
    uint64_t acc = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        acc |= p->x.l[i] | p->y.l[i];
    return acc == 0;
}

static inline void msm_g1_endo_x(czk_fp *r, const czk_fp *x) {
    czk_fp_mul(r, x, &MSM_G1_BETA);
}

#define FE czk_fp
#define FE_ONE CZK_FP_ONE
#define FE_IS_ZERO msm_fp_is_zero
#define FE_EQUAL msm_fp_equal
#define FE_ADD msm_fp_add
#define FE_SUB msm_fp_sub
#define FE_NEG msm_fp_neg
#define FE_DBL msm_fp_dbl
#define FE_MUL czk_fp_mul
#define FE_SQR czk_fp_sqr
#define FE_INV_VAR czk_fp_inv_var
#define AFF czk_g1_affine
#define XYZZ czk_g1_xyzz
#define JAC czk_g1_jacobian
#define EC(name) czk_g1_##name
#define M(name) msm_g1_##name
#define AFF_IS_INF msm_g1_aff_is_inf
#define ENDO_X msm_g1_endo_x
/* 4096 beat 1024, 2048 and 8192 by 3-8 % at 2^16 (one thread, 2-core Xeon; 2 x 384 KiB of
 * tree buffers, within the 2 MiB L2). */
#define BLOCK 4096
/* Batch-affine additions on AVX-512 IFMA (msm_ifma.c) where the CPU has it. */
#define VEC_AVAILABLE czk__msm_ifma_available
#define VEC_ADD(pa, pb, po, np, s) czk__msm_ifma_add(pa, pb, po, np, (s)->kind, (s)->vbuf)
#define VEC_FROM czk__msm_ifma_domain_from
#define VEC_POINTS czk__msm_ifma_points
#define VEC_BUF CZK__MSM_IFMA_BUF(BLOCK)
#include "msm/msm_impl.inc"

/* ---- G2 ----------------------------------------------------------------------------------- */

/*
 * psi^2(x, y) = (n x, -y) = [x^2] on G2, where n = N(c_x) = c_x conj(c_x) for g2.c's psi
 * constant c_x (a cube root of unity in Fp) and N(c_y) = 2^(-(q-1)/2) = -1 since q = 3 mod 8.
 * n = 0x1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b409427eb4f49fffd8b
 *     fd00000000aaac, in Montgomery form below (python3: n * 2^384 mod q).
 */
static const czk_fp MSM_G2_PSI2_X = {{0xcd03c9e48671f071ULL, 0x5dab22461fcda5d2ULL,
                                      0x587042afd3851b95ULL, 0x8eb60ebe01bacb9eULL,
                                      0x03f97d6e83d050d2ULL, 0x18f0206554638741ULL}};

static inline int msm_g2_aff_is_inf(const czk_g2_affine *p) {
    uint64_t acc = 0;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        acc |= p->x.c0.l[i] | p->x.c1.l[i] | p->y.c0.l[i] | p->y.c1.l[i];
    return acc == 0;
}

static inline void msm_g2_endo_x(czk_fp2 *r, const czk_fp2 *x) {
    czk_fp_mul(&r->c0, &x->c0, &MSM_G2_PSI2_X);
    czk_fp_mul(&r->c1, &x->c1, &MSM_G2_PSI2_X);
}

static const czk_fp2 MSM_FP2_ONE = {
    {{0x760900000002fffdULL, 0xebf4000bc40c0002ULL, 0x5f48985753c758baULL, 0x77ce585370525745ULL,
      0x5c071a97a256ec6dULL, 0x15f65ec3fa80e493ULL}},
    {{0, 0, 0, 0, 0, 0}}};

#define FE czk_fp2
#define FE_ONE MSM_FP2_ONE
#define FE_IS_ZERO msm_fp2_is_zero
#define FE_EQUAL msm_fp2_equal
#define FE_ADD msm_fp2_add
#define FE_SUB msm_fp2_sub
#define FE_NEG msm_fp2_neg
#define FE_DBL msm_fp2_dbl
#define FE_MUL czk_fp2_mul
#define FE_SQR czk_fp2_sqr
#define FE_INV_VAR czk_fp2_inv_var
#define AFF czk_g2_affine
#define XYZZ czk_g2_xyzz
#define JAC czk_g2_jacobian
#define EC(name) czk_g2_##name
#define M(name) msm_g2_##name
#define AFF_IS_INF msm_g2_aff_is_inf
#define ENDO_X msm_g2_endo_x
/* Half G1's block: G2 points are twice the size. */
#define BLOCK 2048
/* The G2 batch-affine additions on AVX-512 IFMA (each Fp part in the IFMA domain). */
static inline void msm_g2_ifma_from(czk_fp2 *r, const czk_fp2 *a) {
    czk__msm_ifma_domain_from(&r->c0, &a->c0);
    czk__msm_ifma_domain_from(&r->c1, &a->c1);
}
#define VEC_AVAILABLE czk__msm_ifma_available
#define VEC_ADD(pa, pb, po, np, s) czk__msm_ifma_add_g2(pa, pb, po, np, (s)->kind, (s)->vbuf)
#define VEC_FROM msm_g2_ifma_from
#define VEC_POINTS czk__msm_ifma_points_g2
#define VEC_BUF CZK__MSM_IFMA_BUF_G2(BLOCK)
#include "msm/msm_impl.inc"

/* ---- public entry points ------------------------------------------------------------------ */

int czk__msm_g1_cfg(czk_g1_jacobian *out, const czk_g1_affine *points, const czk_fr *scalars,
                    size_t n, const czk__msm_cfg *cfg, czk_pool *pool, czk_err *err) {
    int rc = cfg_check(cfg, err);
    if (rc != CZK_OK)
        return rc;
    return msm_g1_msm(out, points, scalars, n, cfg, pool, err);
}

int czk__msm_g2_cfg(czk_g2_jacobian *out, const czk_g2_affine *points, const czk_fr *scalars,
                    size_t n, const czk__msm_cfg *cfg, czk_pool *pool, czk_err *err) {
    int rc = cfg_check(cfg, err);
    if (rc != CZK_OK)
        return rc;
    return msm_g2_msm(out, points, scalars, n, cfg, pool, err);
}

int czk_msm_g1(czk_g1_jacobian *out, const czk_g1_affine *points, const czk_fr *scalars, size_t n,
               czk_pool *pool, czk_err *err) {
    czk__msm_cfg cfg;
    czk__msm_cfg_default(&cfg);
    return msm_g1_msm(out, points, scalars, n, &cfg, pool, err);
}

int czk_msm_g2(czk_g2_jacobian *out, const czk_g2_affine *points, const czk_fr *scalars, size_t n,
               czk_pool *pool, czk_err *err) {
    czk__msm_cfg cfg;
    czk__msm_cfg_default(&cfg);
    return msm_g2_msm(out, points, scalars, n, &cfg, pool, err);
}

int czk_msm_g1_sum(czk_g1_jacobian *out, const czk_g1_affine *points, const uint64_t *bitmap,
                   size_t n, czk_pool *pool, czk_err *err) {
    return msm_g1_sum(out, points, bitmap, n, pool, err);
}

int czk_msm_g2_sum(czk_g2_jacobian *out, const czk_g2_affine *points, const uint64_t *bitmap,
                   size_t n, czk_pool *pool, czk_err *err) {
    return msm_g2_sum(out, points, bitmap, n, pool, err);
}
