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
 *    the endomorphism and packed ("rest" arrays: point index, half scalars, phi(P).x).
 * 2. Batch addition of the bitmap's points (msm_impl.inc, sum_range): blocks of up to BLOCK
 *    points are reduced by a pairwise tree of affine additions that share one inversion per
 *    round (Montgomery's trick), so an addition costs about 6 multiplications instead of the
 *    11 of a mixed XYZZ addition.
 * 3. Pippenger's bucket method (Pippenger 1976; Bernstein et al., "Faster batch forgery
 *    identification", eprint 2012/549, §4) on the rest, with three refinements:
 *    - GLV (Gallant, Lambert, Vanstone, CRYPTO 2001): k = k0 + k1 x^2 with 0 <= k0, k1 < x^2
 *      < 2^128, and [x^2]P is (beta x, -y) on G1 (the curve code's sigma, negated) and
 *      psi^2(P) = (n x, -y) with n in Fp on G2. Twice the points, half the windows: the
 *      accumulation work is unchanged, the bucket reduction work halves.
 *    - Signed (Booth) digits: d_w = bits[cw, cw+c) + bit[cw-1] - 2^c bit[cw+c-1], in
 *      [-2^(c-1), 2^(c-1)], independent per window (no carry chain), so a window needs 2^(c-1)
 *      buckets instead of 2^c - 1; -P costs a field negation. The top window keeps its high
 *      bit (no subtraction), so its digits are non-negative and need no extra window.
 *    - Bucket sums by batch-affine additions: a task (window, bucket range) sorts its entries
 *      by bucket with a counting sort, then reduces blocks of them by the same pairwise tree
 *      as in step 2, where a pair is added only if both entries belong to the same bucket.
 *      Sorting first means no bucket is ever the target of two additions of one batch, so
 *      there are no collisions to defer, and a skewed digit distribution (every scalar equal,
 *      say) costs log2(block) rounds rather than one inversion per addition. The buckets come
 *      out in descending order, so the running-sum reduction (sum_b (b+1) S_b as a sum of
 *      suffix sums, 2 XYZZ additions per bucket) consumes them directly: no bucket array.
 *    Tasks are (window, bucket range) pairs; a range [b0, b1) returns T = sum (b-b0+1) S_b and
 *    R = sum S_b, and contributes T + [b0] R, so splitting a window costs one digit scan per
 *    task and no repeated bucket work. The window size c and the number of splits come from a
 *    cost model (plan_choose) with measured per-operation costs.
 * 4. Windows are combined by Horner's rule in Jacobian coordinates (c doublings per window).
 *
 * Everything is variable time: MSM inputs in a prover are the proving key and the witness,
 * which are not secret from the prover.
 */
#include "msm/msm.h"

#include <string.h>

#include "field/fp.h"
#include "field/fp2.h"
#include "msm/msm_internal.h"
#include "util/alloc.h"

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
/*
 * Points per chunk. Each chunk repeats the bucket reduction (2^(c-1) buckets x windows), so a
 * chunk should hold many points per bucket; scratch is about 84 bytes per non-0/1 point plus
 * 4 bytes per half scalar and worker.
 */
#define MSM_DEFAULT_CHUNK ((size_t)1 << 20)

/* Largest half scalar: x^2 - 1 with GLV (k0 < x^2 and k1 <= (r-1) / x^2 = x^2 - 1), else r - 1. */
static const uint64_t MSM_KMAX_GLV[4] = {0x00000000ffffffffULL, 0xac45a4010001a402ULL, 0, 0};
static const uint64_t MSM_KMAX_FULL[4] = {0xffffffff00000000ULL, 0x53bda402fffe5bfeULL,
                                          0x3339d80809a1d805ULL, 0x73eda753299d7d48ULL};

typedef struct msm_plan {
    unsigned c;                   /* window bits */
    unsigned windows;             /* ceil(bits / c) */
    unsigned halves;              /* 2 with GLV, else 1 */
    unsigned limbs;               /* limbs per half scalar: 2 with GLV, else 4 */
    unsigned booth;               /* signed digits */
    unsigned splits;              /* bucket ranges per window */
    uint32_t nb[MSM_MAX_WINDOWS]; /* buckets of each window: |digit| - 1 indexes them */
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
    unsigned s = w * pl->c;
    uint32_t raw = msm_bits(k, pl->limbs, s, pl->c);
    if (!pl->booth)
        return (int32_t)raw;
    int32_t d = (int32_t)raw;
    if (s != 0)
        d += (int32_t)msm_bits(k, pl->limbs, s - 1, 1);
    if (w + 1 < pl->windows && (raw >> (pl->c - 1)) != 0)
        d -= (int32_t)1 << pl->c;
    return d;
}

/* Fills windows and bucket counts for window size c. */
static void plan_windows(msm_plan *pl, unsigned c) {
    const uint64_t *kmax = pl->halves == 2 ? MSM_KMAX_GLV : MSM_KMAX_FULL;
    unsigned bits = pl->halves == 2 ? 128 : 255;
    pl->c = c;
    pl->windows = (bits + c - 1) / c;
    pl->nb_max = 0;
    for (unsigned w = 0; w < pl->windows; w++) {
        uint32_t nb;
        if (w + 1 < pl->windows) {
            nb = pl->booth ? (uint32_t)1 << (c - 1) : ((uint32_t)1 << c) - 1;
        } else {
            /* The top window: its largest digit is (kmax >> s) (+1 for the Booth low bit). */
            uint32_t top = msm_bits(kmax, 4, w * c, c);
            nb = top + (pl->booth ? 1 : 0);
        }
        pl->nb[w] = nb;
        if (nb > pl->nb_max)
            pl->nb_max = nb;
    }
}

/*
 * Cost model, in nanoseconds per operation for G1 (G2 costs about 3x more for each, so the
 * same choice is made). Measured with bench_msm on the 2-core Xeon (Sapphire Rapids, KVM)
 * this was developed on; see MSM_COST_* below.
 *   scan:   digit extraction and counting-sort placement, per entry and task (two passes)
 *   add:    one bucket accumulation addition (batch-affine tree, or XYZZ mixed)
 *   bucket: the running-sum reduction per bucket (an XYZZ addition, plus a mixed one for
 *           non-empty buckets in the affine mode)
 *   task:   fixed cost per task (scratch setup, the final rounds of small batches)
 */
#define MSM_COST_SCAN 6.0
#define MSM_COST_ADD_AFFINE 270.0
#define MSM_COST_ADD_XYZZ 450.0
#define MSM_COST_BUCKET 1000.0
#define MSM_COST_TASK 20000.0

static double plan_cost(const msm_plan *pl, size_t nrest, unsigned ways, int affine) {
    double e = (double)nrest * pl->halves; /* entries per window */
    double add = affine ? MSM_COST_ADD_AFFINE : MSM_COST_ADD_XYZZ;
    double tasks = (double)pl->windows * pl->splits;
    double rounds = (double)((pl->windows * pl->splits + ways - 1) / ways);
    double per_task = MSM_COST_TASK + MSM_COST_SCAN * e + add * e / pl->splits +
                      MSM_COST_BUCKET * (double)pl->nb_max / pl->splits;
    (void)tasks;
    return rounds * per_task;
}

static void plan_choose(msm_plan *pl, size_t nrest, unsigned ways, const czk__msm_cfg *cfg) {
    pl->halves = cfg->glv ? 2 : 1;
    pl->limbs = cfg->glv ? 2 : 4;
    pl->booth = cfg->booth ? 1 : 0;
    unsigned c_lo = 1, c_hi = MSM_MAX_WINDOW;
    if (cfg->window != 0)
        c_lo = c_hi = cfg->window;
    double best = 0;
    unsigned best_c = c_lo, best_s = 1;
    for (unsigned c = c_lo; c <= c_hi; c++) {
        plan_windows(pl, c);
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
                best_c = c;
                best_s = s;
            }
        }
    }
    plan_windows(pl, best_c);
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
 * by one: a Pippenger pass has a fixed cost of ~W tasks x buckets that a few points do not
 * repay.
 */
#define MSM_DIRECT_MAX 8

/*
 * Prefetch distances (entries ahead) for the scattered point reads of a window task: the point
 * index, then the point. 16/8, 48/16, 64/32 and 128/64 were within noise of each other at 2^16
 * on the 2-core Xeon (the block fill is short next to the tree's arithmetic).
 */
#define MSM_PF_IDX 32
#define MSM_PF_POINT 16

/* Entries of the classification pass: scalars are classified in ranges of this many points
 * (a multiple of 64, so each range owns whole bitmap words). */
#define MSM_RANGE 4096

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
#define FE_IS_ZERO czk_fp_is_zero
#define FE_EQUAL czk_fp_equal
#define FE_ADD czk_fp_add
#define FE_SUB czk_fp_sub
#define FE_NEG czk_fp_neg
#define FE_DBL czk_fp_dbl
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
#define BLOCK 4096
#include "msm/msm_impl.inc"
#undef FE
#undef FE_ONE
#undef FE_IS_ZERO
#undef FE_EQUAL
#undef FE_ADD
#undef FE_SUB
#undef FE_NEG
#undef FE_DBL
#undef FE_MUL
#undef FE_SQR
#undef FE_INV_VAR
#undef AFF
#undef XYZZ
#undef JAC
#undef EC
#undef M
#undef AFF_IS_INF
#undef ENDO_X
#undef BLOCK

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
#define FE_IS_ZERO czk_fp2_is_zero
#define FE_EQUAL czk_fp2_equal
#define FE_ADD czk_fp2_add
#define FE_SUB czk_fp2_sub
#define FE_NEG czk_fp2_neg
#define FE_DBL czk_fp2_dbl
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
#include "msm/msm_impl.inc"
#undef FE
#undef FE_ONE
#undef FE_IS_ZERO
#undef FE_EQUAL
#undef FE_ADD
#undef FE_SUB
#undef FE_NEG
#undef FE_DBL
#undef FE_MUL
#undef FE_SQR
#undef FE_INV_VAR
#undef AFF
#undef XYZZ
#undef JAC
#undef EC
#undef M
#undef AFF_IS_INF
#undef ENDO_X
#undef BLOCK

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
