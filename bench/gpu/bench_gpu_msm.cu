/*
 * bench_gpu_msm: milliseconds per device MSM, inputs on the device.
 *
 *   bench_gpu_msm [--min-lg N] [--max-lg N] [--big] [--profile] [--sweep] [--roofline]
 *                 [--seed N] [--threads N] [--log FILE]
 *
 * Rows: G1 with uniform scalars at 2^min .. 2^max (defaults 20 and 24; --big: 27), G1 with
 * the PoRep witness mix (60 % zero, 38 % one) at 2^24 and 2^26 (a given --max-lg bounds
 * these too), G2 with uniform scalars at 2^min .. 2^min(max, 24); sizes shrink to what fits
 * in 90 % of the device's free memory. Columns: the public call (czk_gpu_msm_g1_var, which
 * allocates and frees its scratch each time), median and minimum of 5; "arena", the call as
 * the prover makes it (scratch allocated beforehand), median of 5; points a microsecond; and
 * whether every run gave the same sum (a disagreement fails the run).
 *   --profile  under each row, the steps of its last arena run (CUDA events: split, ones,
 *              digits, sort, accumulation, window sums; the window and the number of others)
 *   --sweep    G1 at 2^24 over windows c = 12 .. 22, uniform and PoRep mix (the cost model's
 *              check, BENCHMARKS.md run 2)
 *   --roofline how far each row is from the arithmetic limit (issue 31): first the card's Fp
 *              product, Fp inversion and G1 mixed-addition rates, measured in this process by
 *              bench_gpu_rates' kernels (rates.cuh); then, after the rows, a table of the Fp
 *              Montgomery products each MSM performs as implemented (msm_cost_model below: the
 *              product's own plan, the per-operation counts read from ec/xyzz.cuh and msm.cuh by
 *              a counting field on the device), the time those take at the measured rate (the
 *              limit), the arena median, and the limit as a percentage of it; under the table,
 *              each row's count step by step (accumulation, window sums, ones, the host's
 *              Horner) with the limit and the measured time of each step, to check by hand.
 * The tables run between cudaProfilerStart and cudaProfilerStop (for `ncu --profile-from-start
 * off`). Correctness is czk_gpu_test's (module msm). Exit status: 0, 1 on an error or a
 * disagreement (or, with --roofline, a model whose plan is not the one the call ran), 77
 * without a CUDA device.
 */
#include <cuda_profiler_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/ec/xyzz.cuh"
#include "gpu/cuda/ff/fp2.cuh"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm.cuh"
#include "gpu/cuda/msm/msm_host.cuh"
#include "gpu/cuda/msm/msm_ones.cuh"
#include "gpu/cuda/msm/msm_test.cuh"
#include "gpu/gpu_test.cuh"
#include "rates.cuh"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

using namespace czk_gpu_test;

/* ---- --roofline: the per-operation counts, read from the curve code itself ----------------- */

/*
 * A stand-in for the coordinate field that counts the Montgomery products (F::mul_wide, which
 * ec/xyzz.cuh's fmul calls) and squarings (sqr_wide, fsqr's) of the MSM's point formulas, so
 * that the cost model's per-operation figures come from the code rather than from a copy of
 * it. Every value is generic (is_zero and equal are false), so each formula takes its general
 * branch, the one random points take. One thread runs it: plain counters.
 */
__device__ unsigned long long g_cost_mul, g_cost_sqr;

struct cost_f {
    uint32_t v;
    __device__ static cost_f of(uint32_t v) {
        cost_f r;
        r.v = v;
        return r;
    }
    __device__ static cost_f one() {
        return of(1);
    }
    __device__ static cost_f zero() {
        return of(0);
    }
    __device__ bool is_zero() const {
        return false;
    }
    __device__ bool equal(const cost_f &) const {
        return false;
    }
    __device__ cost_f dbl() const {
        return of(v + v);
    }
    __device__ cost_f neg() const {
        return of(0u - v);
    }
    __device__ friend cost_f operator+(const cost_f &a, const cost_f &b) {
        return of(a.v + b.v);
    }
    __device__ friend cost_f operator-(const cost_f &a, const cost_f &b) {
        return of(a.v - b.v);
    }
    __device__ static cost_f mul_wide(const cost_f &a, const cost_f &b) {
        g_cost_mul++;
        return of(a.v * b.v + 0x5bd1e995u);
    }
    __device__ cost_f sqr_wide() const {
        g_cost_sqr++;
        return of(v * v + 0x5bd1e995u);
    }
};

/* The operations cost_count_kernel counts, in this order (a product and a squaring count each). */
enum { COST_MADD, COST_ADD, COST_DBL, COST_FINISH, COST_OPS };

__device__ void cost_take(unsigned long long *out, int op) {
    out[2 * op] = g_cost_mul;
    out[2 * op + 1] = g_cost_sqr;
    g_cost_mul = 0;
    g_cost_sqr = 0;
}

/* out[2·op], out[2·op + 1]: the products and squarings of operation op; out[2·COST_OPS]: a
 * checksum of the results (kept, so that nothing is dropped). */
__global__ void cost_count_kernel(unsigned long long *out, uint32_t seed) {
    typedef czk_cuda::affine_t<cost_f> A;
    typedef czk_cuda::xyzz_t<cost_f> X;
    A a, b;
    a.x = cost_f::of(seed);
    a.y = cost_f::of(3 * seed + 1);
    b.x = cost_f::of(5 * seed + 2);
    b.y = cost_f::of(7 * seed + 3);
    X p = X::inf(), q = X::inf();
    g_cost_mul = 0;
    g_cost_sqr = 0;
    p.add_affine(a); /* madd-2008-s: the accumulation's and the ones' chains */
    cost_take(out, COST_MADD);
    q.add_affine(b);
    cost_take(out, COST_ADD); /* q's setup: overwritten below */
    p.add(q);                 /* add-2008-s: partial sums, window sums, reductions */
    cost_take(out, COST_ADD);
    p.dbl(); /* dbl-2008-s-1: the window combine's Horner */
    cost_take(out, COST_DBL);
    /* A batch-affine pair once its inverse is known (λ, λ², y). */
    const A r = czk_cuda::affine_finish(a, b, czk_cuda::AFF_ADD, cost_f::of(seed + 9));
    cost_take(out, COST_FINISH);
    out[2 * COST_OPS] = p.x.v ^ p.y.v ^ p.zz.v ^ p.zzz.v ^ r.x.v ^ r.y.v;
}

namespace {

bool g_profile;

/* ---- --roofline: the cost model ------------------------------------------------------------ */

bool g_roofline;

/* The products and squarings of each operation in its coordinate field, as cost_count_kernel
 * counted them (ec/xyzz.cuh: madd 8 + 2, add 12 + 2, dbl 6 + 3; msm.cuh affine_finish: 2 + 1). */
struct cost_ops {
    unsigned mul[COST_OPS], sqr[COST_OPS];
};

/*
 * What the model needs of a group: its device types (the planner's sizes) and what its
 * coordinate field's operations cost in Fp products. G1's field is Fp, and a squaring is a
 * product (ff/mont.cuh: sqr_wide is mul_wide(a, a)). G2's is Fp2 (ff/fp2.cuh): a product is 3 Fp
 * products (fp2_t::mul_t, Karatsuba), a squaring 2 (fp2_t::sqr_t: (c0 + c1)(c0 − c1) and
 * 2·c0·c1). An inversion: G1's is one Fp inversion (mont.cuh, fp_t::inv: the binary GCD with
 * its correction product and check, timed as a whole by rates_fp_inv), G2's one Fp inversion
 * and 4 Fp products (fp2_t::inv: c0² + c1², then c0·t and c1·t).
 */
template <class T> struct cost_group;
template <> struct cost_group<tg1> {
    typedef czk_cuda::g1_affine_t A;
    typedef czk_cuda::g1_xyzz_t X;
    static constexpr unsigned fp_mul = 1, fp_sqr = 1, fp_inv_products = 0;
};
template <> struct cost_group<tg2> {
    typedef czk_cuda::g2_affine_t A;
    typedef czk_cuda::g2_xyzz_t X;
    static constexpr unsigned fp_mul = 3, fp_sqr = 2, fp_inv_products = 4;
};

/* One MSM call as msm_cost_model counts it: its plan, operations by step, Fp products. */
struct msm_cost {
    size_t n, n_one, n_other;
    unsigned c, nwin, groups, L0, nlev; /* the others' plan (c = 0: no others) */
    size_t top_buckets;                 /* buckets the top window's digits can reach */
    /* Fp products of one operation: mixed and full XYZZ additions, a doubling, a batch-affine
     * pair; Fp products of one inversion besides its Fp inversion (G2) */
    double p_madd, p_add, p_dbl, p_pair, p_inv;
    double acc_madd, acc_add;                  /* steps 3-4 */
    double win_seg, win_red, win_dbl, win_add; /* step 5 */
    double ones_pairs, ones_inv, ones_madd, ones_add;
    double host_dbl, host_add; /* step 6, on the CPU: not in the limit */
    double acc, win, ones;     /* Fp products of the device steps */
    double inv;                /* Fp inversions (the ones' levels) */
    double products() const {
        return acc + win + ones;
    }
};

/*
 * THE COST MODEL: the Fp Montgomery products (squarings counted as products) and Fp inversions
 * that the device performs for one MSM call of n points of group T, n_one of whose scalars are
 * one and n_other neither zero nor one (the rest zero, dropped by the split), with the options
 * opts (as the call got them). Inputs the model takes from the code rather than re-deriving:
 * the plan (msm_host.cuh: msm_layout_for, the worst-case plan and layout; msm_plan_others, the
 * window c, chunk length L0, window groups and step-5 levels the call runs the others with) and
 * the per-operation counts (ops, counted on the device by cost_count_kernel through
 * ec/xyzz.cuh and msm.cuh; turned into Fp products by cost_group).
 *
 * With m = n_other, W windows, h = 2^(c−1) buckets a window, uniform "other" scalars below r:
 *
 *  Steps 3-4, accumulation (msm.cuh msm_acc_points_kernel, msm_acc_partials_kernel):
 *    E  = m·(W − 1) + m·(1 − p0) entries with a non-zero digit: one mixed addition each
 *         (zero digits are empty keys, never added; in a full window they have probability
 *         ~2^−c, not subtracted; the top window's digit is zero when its bits are, probability
 *         2^s/r with s = c·(W − 1), and no carry comes in, ~1/2: p0 = min(1, 2^s/r)/2);
 *    B  = (W − 1)·h·(1 − (1 − 1/h)^m) + D·(1 − (1 − 1/D)^m) run starts at buckets, the
 *         expected number of buckets hit (digits uniform over a window's buckets): each
 *         bucket's first point lands on infinity, a copy (xyzz_t::add_affine's first branch),
 *         not an addition; the top window's digits reach only D = min(h, (r >> s) + 1) buckets;
 *    S  = Σ over window groups (⌈entries / L0⌉ − 1), times (1 − B/E): chunk boundaries that cut
 *         a bucket's run (one falling between two buckets, ~B/E of them, cuts nothing). Each
 *         cut starts one more run in the next chunk and costs one full addition when the
 *         partial sums are merged (msm_acc_partials_kernel, all levels together);
 *    mixed additions E − B − S, full additions S.
 *  Step 5, window sums (msm_window_segments_kernel, msm_reduce_groups,
 *    msm_window_combine_kernel), per window over its o non-empty entries: h, or D for the top
 *    window (every bucket its digits reach is taken to hold a point: all but a fraction
 *    e^(−m/h) do when m/h >= 8, as the planner's windows give from m = 2^10 up), and ⌈o/s⌉
 *    at level k + 1. A segment of s = 2^lgs entries, e of which hold points, adds 2e − 3 + base
 *    (e >= 2; e = 1 is a copy), base 1 at level 0 and 0 above: the running sums run and tot
 *    take 2(s − 1) additions, the last entry and the base one more each, and the first of each
 *    is a copy onto infinity. The T sums of a level with more than one segment are reduced per
 *    window in t − 1 additions (t of them hold points). Horner adds each level's sum to the
 *    one above after lgs doublings: nlev − 1 additions and Σ_{k < nlev−1} lgs_k doublings.
 *  The ones (msm_ones.cuh), m1 = n_one: while at least 2^21 (msm_tree_min) are left and the
 *    levels' buffers fit the Pippenger part of the scratch, a batch-affine level adds ⌊m1/2⌋
 *    pairs, each 3 running products (msm_affine_pairs_kernel: one on the way up, two on the
 *    way down) and affine_finish's, with one inversion for each K = 64 pairs (32 when fewer
 *    than 2^21 pairs), ⌈pairs/K⌉ in all, and leaves ⌈m1/2⌉ points; then chunks of 32
 *    (MSM_L_ONES) of mixed additions, m1 − ⌈m1/32⌉ of them (a chunk's first point is a copy),
 *    and a tree over the chunk sums, ⌈m1/32⌉ − 1 full additions.
 *  Step 6 runs on the CPU: (W − 1)·c doublings and W − 1 additions (+1 for the ones); counted
 *    for the record, not in the device's products.
 *  Not counted: the split and the digits (Fr work, no Fp products: classification, CUB's
 *    compactions, one Montgomery reduction a scalar), the sort, and the additions and
 *    subtractions of the formulas (the limit is the products alone).
 */
template <class T>
int msm_cost_model(msm_cost *mc, czk_gpu *gpu, size_t n, size_t n_one, size_t n_other,
                   const czk__gpu_msm_opts *opts, const cost_ops *ops, czk_err *err) {
    typedef cost_group<T> GR;
    typedef typename GR::A A;
    typedef decltype(A::x) F;
    int rc = CZK_OK;
    czk_msm::msm_plan pw, pr;
    czk_msm::msm_layout l;
    auto fp = [&](int op) {
        return (double)ops->mul[op] * GR::fp_mul + (double)ops->sqr[op] * GR::fp_sqr;
    };

    memset(mc, 0, sizeof(*mc));
    mc->n = n;
    mc->n_one = n_one;
    mc->n_other = n_other;
    mc->p_madd = fp(COST_MADD);
    mc->p_add = fp(COST_ADD);
    mc->p_dbl = fp(COST_DBL);
    mc->p_pair = 3.0 * GR::fp_mul + fp(COST_FINISH);
    mc->p_inv = GR::fp_inv_products;
    CZK_TRY(czk__gpu_enter(gpu, err));
    CZK_TRY(czk_msm::msm_layout_for<GR>(&l, &pw, n, opts, err));

    if (n_other > 0) {
        CZK_TRY(czk_msm::msm_plan_others(&pr, &pw, &l, n_other, sizeof(typename GR::X), opts, err));
        const double m = (double)n_other, h = (double)pr.half, W = pr.nwin;
        const unsigned s = pr.c * (pr.nwin - 1); /* the top window's first bit: 240 .. 255 */
        const double r = ldexp((double)CZK_FR_MODULUS[3], 192);
        const uint64_t top = s >= 192 && s < 256 ? CZK_FR_MODULUS[3] >> (s - 192) : pr.half;
        mc->c = pr.c;
        mc->nwin = pr.nwin;
        mc->groups = (pr.nwin + pr.gw - 1) / pr.gw;
        mc->L0 = pr.L0;
        mc->nlev = pr.nlev;
        mc->top_buckets = top + 1 < pr.half ? (size_t)top + 1 : pr.half;

        /* Steps 3-4. */
        const double p0 = fmin(1.0, ldexp(1.0, (int)s) / r) / 2;
        const double E = m * (W - 1) + m * (1 - p0);
        const double D = (double)mc->top_buckets;
        const double B = (W - 1) * h * -expm1(m * log1p(-1 / h)) + D * -expm1(m * log1p(-1 / D));
        double bounds = 0;
        for (unsigned w0 = 0; w0 < pr.nwin; w0 += pr.gw) {
            const size_t nw = pr.nwin - w0 < pr.gw ? pr.nwin - w0 : pr.gw;
            bounds += (double)(czk_msm::div_up(nw * n_other, pr.L0) - 1);
        }
        const double S = bounds * (1 - B / E);
        mc->acc_madd = E - B - S;
        mc->acc_add = S;

        /* Step 5, one window of o non-empty entries at level 0 (msm_window_segments_kernel,
         * msm_reduce_groups, msm_window_combine_kernel). */
        auto window = [&](size_t o, double k_windows) {
            bool any[MSM_MAX_LEVELS] = {};
            for (unsigned k = 0; k < pr.nlev; k++) {
                const size_t sz = (size_t)1 << pr.lv_lgs[k], G = (size_t)1 << pr.lv_lgG[k];
                const size_t base = k == 0 ? 1 : 0, f = o / sz, e = o % sz;
                const size_t t = f + (e >= 2 - base ? 1 : 0); /* T sums holding points */
                mc->win_seg +=
                    k_windows * (double)(f * (2 * sz - 3 + base) + (e >= 2 ? 2 * e - 3 + base : 0));
                if (G > 1 && t > 1)
                    mc->win_red += k_windows * (double)(t - 1);
                any[k] = t > 0;
                o = czk_msm::div_up(o, sz);
            }
            /* Horner from the top level down; doubling infinity and adding it are free. */
            bool inf = !any[pr.nlev - 1];
            for (int k = (int)pr.nlev - 2; k >= 0; k--) {
                if (!inf)
                    mc->win_dbl += k_windows * pr.lv_lgs[k];
                if (any[k]) {
                    if (!inf)
                        mc->win_add += k_windows;
                    inf = false;
                }
            }
        };
        window(pr.half, W - 1);
        window(mc->top_buckets, 1);
        mc->host_dbl = (W - 1) * pr.c;
        mc->host_add = W - 1;
    }

    if (n_one > 0) {
        /* msm_ones_levels, then msm_ones. */
        const size_t min_points = czk_msm::msm_tree_min(opts);
        const size_t bytes = l.pairs + l.sort + l.buckets + l.pkeys + l.pvals + l.segments;
        const size_t half0 = czk_msm::div_up(n_one, 2), quarter0 = czk_msm::div_up(half0, 2);
        const size_t need =
            (half0 + quarter0) * sizeof(A) + (n_one / 2 + 128 * MSM_ONES_K) * sizeof(F);
        size_t m1 = n_one;
        if (m1 >= min_points && need <= bytes) {
            while (m1 >= min_points) {
                const size_t pairs = m1 / 2;
                const size_t K = pairs >= ((size_t)MSM_ONES_K << 15) ? MSM_ONES_K : MSM_ONES_K / 2;
                mc->ones_pairs += (double)pairs;
                mc->ones_inv += (double)czk_msm::div_up(pairs, K);
                m1 = czk_msm::div_up(m1, 2);
            }
        }
        const size_t chunks = czk_msm::div_up(m1, MSM_L_ONES);
        mc->ones_madd = (double)(m1 - chunks);
        mc->ones_add = (double)(chunks - 1);
        mc->host_add += 1;
    }

    mc->acc = mc->acc_madd * mc->p_madd + mc->acc_add * mc->p_add;
    mc->win = (mc->win_seg + mc->win_red + mc->win_add) * mc->p_add + mc->win_dbl * mc->p_dbl;
    mc->ones = mc->ones_pairs * mc->p_pair + mc->ones_inv * mc->p_inv + mc->ones_madd * mc->p_madd +
               mc->ones_add * mc->p_add;
    mc->inv = mc->ones_inv;
out:
    return rc;
}

/* The card's rates for the roofline (operations a second, rates.cuh), and the counts. */
struct roof_rates {
    double mul, inv, madd; /* Fp products (the better of 1 and 4 chains), inversions, G1 madd */
    bool ok;
};

roof_rates g_rates;
cost_ops g_ops;

/* Milliseconds that `products` Fp products and `inv` Fp inversions take at the rates. */
double limit_ms(double products, double inv) {
    return (products / g_rates.mul + inv / g_rates.inv) * 1e3;
}

/*
 * Measures the rates with bench_gpu_rates' kernels (printed as it prints them) and counts the
 * per-operation products on the device; sets g_rates.ok when both worked. Its own rng, so the
 * MSM inputs stay the ones a run without --roofline gets.
 */
void roofline_rates(czk_gpu *gpu, czk_pool *pool, uint64_t seed) {
    const addrate_variant *vs[] = {&rates_fp_mul_1, &rates_fp_mul_4, &rates_fp_inv, &rates_madd_l2};
    /* What the comments of cost_ops and msm_cost_model say the formulas cost. */
    static const unsigned doc_mul[COST_OPS] = {8, 12, 6, 2}, doc_sqr[COST_OPS] = {2, 2, 3, 1};
    rates_result r[4] = {};
    rates_table t;
    unsigned long long counts[2 * COST_OPS + 1] = {};
    void *dc = NULL;
    czk_rng rng;
    czk_err err = {};
    int rc;

    memset(&g_rates, 0, sizeof(g_rates));
    czk_rng_seed(&rng, seed ^ 0x726f6f666c696e65ULL);
    say("\n== roofline rates: bench_gpu_rates' kernels (rates.cuh; one full wave, median of 3, "
        "CUDA events) ==\n");
    rc = rates_table_make(&t, gpu, pool, &rng);
    if (rc != CZK_OK)
        return;
    rates_say_header();
    for (int i = 0; i < 4 && rc == CZK_OK; i++) {
        rc = rates_measure(gpu, vs[i], &t, &r[i], &err);
        if (rc == CZK_OK)
            rates_say_row(vs[i], &r[i]);
    }
    rates_table_free(&t, gpu);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &dc, sizeof(counts), &err);
    if (rc == CZK_OK) {
        cost_count_kernel<<<1, 1, 0, gpu->stream>>>((unsigned long long *)dc,
                                                    (uint32_t)czk_rng_u64(&rng) | 1u);
        if (cudaGetLastError() != cudaSuccess)
            rc = czk_err_set(&err, CZK_ECUDA, "launch of cost_count_kernel failed");
    }
    if (rc == CZK_OK)
        rc = czk_gpu_download(gpu, counts, dc, sizeof(counts), &err);
    czk_gpu_free(gpu, dc, sizeof(counts));
    if (rc != CZK_OK) {
        fail("roofline rates", rc, &err);
        return;
    }
    for (int k = 0; k < COST_OPS; k++) {
        g_ops.mul[k] = (unsigned)counts[2 * k];
        g_ops.sqr[k] = (unsigned)counts[2 * k + 1];
        if (g_ops.mul[k] != doc_mul[k] || g_ops.sqr[k] != doc_sqr[k])
            check(0,
                  "roofline: operation %d costs %u products + %u squarings (counted), the "
                  "model's comments say %u + %u: update them",
                  k, g_ops.mul[k], g_ops.sqr[k], doc_mul[k], doc_sqr[k]);
    }
    g_rates.mul = r[0].ops_per_s > r[1].ops_per_s ? r[0].ops_per_s : r[1].ops_per_s;
    g_rates.inv = r[2].ops_per_s;
    g_rates.madd = r[3].ops_per_s;
    g_rates.ok = true;
    say("Fp products %.4g/s (the better chain count); an Fp inversion takes %.1f products' time, a "
        "G1 mixed addition %.2f (%u products + %u squarings counted in ec/xyzz.cuh); full "
        "addition %u + %u, doubling %u + %u, affine pair 3 + %u + %u (msm.cuh)\n",
        g_rates.mul, g_rates.mul / g_rates.inv, g_rates.mul / g_rates.madd, g_ops.mul[COST_MADD],
        g_ops.sqr[COST_MADD], g_ops.mul[COST_ADD], g_ops.sqr[COST_ADD], g_ops.mul[COST_DBL],
        g_ops.sqr[COST_DBL], g_ops.mul[COST_FINISH], g_ops.sqr[COST_FINISH]);
}

/* A row of the roofline table: the model of one timed MSM, and what was measured. */
struct roof_row {
    const char *group;
    unsigned lg;
    int kind;
    msm_cost mc;
    czk__gpu_msm_profile pf;
    double arena_ms;
};

#define ROOF_ROWS 64
roof_row g_roof[ROOF_ROWS];
unsigned g_nroof;

/* Models the row's last arena run (its profile: the split's counts, the window it ran) and
 * keeps it for the table; a model whose window or window groups differ from the run's fails. */
template <class T>
void roofline_add(czk_gpu *gpu, unsigned lg, int kind, const czk__gpu_msm_opts *opts,
                  const czk__gpu_msm_profile *pf, double arena_ms) {
    roof_row *row = &g_roof[g_nroof];
    czk_err err = {};
    if (!g_rates.ok || g_nroof >= ROOF_ROWS)
        return;
    int rc = msm_cost_model<T>(&row->mc, gpu, pf->n, pf->n_one, pf->n_other, opts, &g_ops, &err);
    if (rc != CZK_OK) {
        fail("roofline model", rc, &err);
        return;
    }
    if (row->mc.c != pf->c || row->mc.groups != pf->groups)
        check(0, "%s 2^%u %s: the model's plan (c %u, %u window groups) is the run's (c %u, %u)",
              T::name(), lg, fill_name(kind), row->mc.c, row->mc.groups, pf->c, pf->groups);
    row->group = T::name();
    row->lg = lg;
    row->kind = kind;
    row->pf = *pf;
    row->arena_ms = arena_ms;
    g_nroof++;
}

/* A step's limit, its measured time and the percentage, "(limit L ms, step M ms: P %)". */
void say_step(double products, double inv, double step_ms) {
    const double lim = limit_ms(products, inv);
    say("= %.4g products: limit %.3f ms, step %.3f ms", products, lim, step_ms);
    if (step_ms > 0)
        say(": %.1f %%", lim / step_ms * 100);
    say("\n");
}

/* The table, its legend, then each row's model step by step. */
void roofline_table() {
    if (!g_rates.ok || g_nroof == 0)
        return;
    say("\n== MSM roofline: Fp products each MSM performs (msm_cost_model) at the card's product "
        "rate ==\n");
    say("%-4s %-3s %-6s %-10s %3s %3s %10s %10s %11s %6s %9s %9s %7s\n", "", "", "n", "scalars",
        "c", "W", "others", "ones", "Fp products", "Fp inv", "limit ms", "arena ms", "% limit");
    for (unsigned i = 0; i < g_nroof; i++) {
        const roof_row *w = &g_roof[i];
        const double lim = limit_ms(w->mc.products(), w->mc.inv);
        say("roof %-3s 2^%-4u %-10s %3u %3u %10zu %10zu %11.4g %6.0f %9.2f %9.2f %7.1f\n", w->group,
            w->lg, fill_name(w->kind), w->mc.c, w->mc.nwin, w->mc.n_other, w->mc.n_one,
            w->mc.products(), w->mc.inv, lim, w->arena_ms, lim / w->arena_ms * 100);
    }
    say("legend: Fp products = Montgomery products (squarings counted as products; G2's Fp2 "
        "product 3, squaring 2) the device performs as msm_cost_model counts them; limit = "
        "products / %.4g/s + inversions / %.4g/s (rates above); %% limit = limit / arena "
        "median x 100 (100: nothing but products, at the peak rate)\n",
        g_rates.mul, g_rates.inv);
    for (unsigned i = 0; i < g_nroof; i++) {
        const roof_row *w = &g_roof[i];
        const msm_cost *m = &w->mc;
        say("model %s 2^%u %s: others %zu, ones %zu; c %u, W %u, window groups %u, L0 %u, "
            "step-5 levels %u, top-window buckets %zu; Fp products a madd %.0f, add %.0f, dbl "
            "%.0f, affine pair %.0f, inversion 1 Fp inversion + %.0f\n",
            w->group, w->lg, fill_name(w->kind), m->n_other, m->n_one, m->c, m->nwin, m->groups,
            m->L0, m->nlev, m->top_buckets, m->p_madd, m->p_add, m->p_dbl, m->p_pair, m->p_inv);
        if (m->n_other > 0) {
            say("  acc     madd %.0f + add %.0f ", m->acc_madd, m->acc_add);
            say_step(m->acc, 0, w->pf.acc_ms);
            say("  windows add %.0f (segments) + %.0f (reductions) + %.0f (Horner) + dbl %.0f ",
                m->win_seg, m->win_red, m->win_add, m->win_dbl);
            say_step(m->win, 0, w->pf.windows_ms);
        }
        if (m->n_one > 0) {
            say("  ones    pairs %.0f + inversions %.0f + madd %.0f + add %.0f ", m->ones_pairs,
                m->ones_inv, m->ones_madd, m->ones_add);
            say_step(m->ones, m->inv, w->pf.ones_ms);
        }
        say("  host    dbl %.0f + add %.0f (step 6, on the CPU: not in the limit); split, digits "
            "and sort (no Fp products) %.3f ms\n",
            m->host_dbl, m->host_add, w->pf.split_ms + w->pf.digits_ms + w->pf.sort_ms);
    }
}

/*
 * Median and minimum of `runs` (1..5) CUDA-event runs of call(&r) after an untimed warm-up;
 * *same &= every result equals *want (or, with want NULL, the warm-up's, left in *first when
 * that is not NULL).
 */
template <class T, class Call>
int time_runs(czk_gpu *gpu, Call call, int runs, const typename T::jac *want,
              typename T::jac *first, double *med, double *mn, int *same, czk_err *err) {
    typename T::jac w, r;
    double ms[5];
    int rc = call(&w);
    runs = runs < 1 ? 1 : runs > 5 ? 5 : runs;
    if (want == NULL)
        want = &w;
    *same &= rc == CZK_OK && T::equal(want, &w);
    if (first != NULL)
        *first = w;
    for (int k = 0; k < runs && rc == CZK_OK; k++) {
        rc = czk_gpu_timer_start(gpu, err);
        if (rc == CZK_OK)
            rc = call(&r);
        if (rc == CZK_OK)
            rc = czk_gpu_timer_stop(gpu, &ms[k], err);
        *same &= rc == CZK_OK && T::equal(want, &r);
    }
    if (rc == CZK_OK) {
        qsort(ms, (size_t)runs, sizeof(double), cmp_double);
        *med = ms[runs / 2];
        *mn = ms[0];
    }
    return rc;
}

/* The public call (device inputs; it allocates and frees its scratch each time), timed as
 * time_runs says; *same is set, not accumulated; *result: the warm-up's. */
template <class T>
int time_public(czk_gpu *gpu, const void *dp, const void *ds, size_t n, double *med, double *mn,
                int *same, typename T::jac *result, czk_err *err) {
    auto call = [&](typename T::jac *r) {
        return T::gpu(gpu, r, (const typename T::aff *)dp, (const czk_fr *)ds, n,
                      CZK_GPU_MEM_DEVICE, err);
    };
    *same = 1;
    return time_runs<T>(gpu, call, 5, NULL, result, med, mn, same, err);
}

/*
 * Median of 5 CUDA-event runs of the MSM as the prover runs it: scratch allocated once
 * beforehand (the prover carves it from its arena), so the call allocates nothing; with
 * opts (NULL: the product's settings). want NULL: the runs must agree among themselves.
 */
template <class T>
int time_arena(czk_gpu *gpu, const void *dp, const void *ds, size_t n,
               const czk__gpu_msm_opts *opts, double *med, const typename T::jac *want, int *same,
               czk_err *err) {
    void *scratch = NULL;
    size_t bytes = 0;
    double mn;
    int rc = T::scratch_opts(gpu, n, opts, &bytes, err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &scratch, bytes, err);
    if (rc == CZK_OK) {
        auto call = [&](typename T::jac *r) {
            return T::run_opts(gpu, r, dp, ds, n, scratch, bytes, opts, err);
        };
        rc = time_runs<T>(gpu, call, 5, want, NULL, med, &mn, same, err);
    }
    czk_gpu_free(gpu, scratch, bytes);
    return rc;
}

/* One row of the table, and under it the steps of the last arena run with --profile. */
template <class T>
int msm_row(czk_gpu *gpu, const void *dp, const void *ds, unsigned lg, int kind) {
    czk_err err = {};
    czk__gpu_msm_profile pf;
    czk__gpu_msm_opts opts;
    const size_t n = (size_t)1 << lg;
    double med = 0, mn = 0, arena = 0;
    int same = 0;
    typename T::jac first;
    memset(&pf, 0, sizeof(pf));
    memset(&opts, 0, sizeof(opts));
    opts.profile = g_profile || g_roofline ? &pf : NULL;
    int rc = time_public<T>(gpu, dp, ds, n, &med, &mn, &same, &first, &err);
    if (rc == CZK_OK)
        rc = time_arena<T>(gpu, dp, ds, n, &opts, &arena, &first, &same, &err);
    if (rc != CZK_OK) {
        fail("msm timing", rc, &err);
        return rc;
    }
    say("%-3s 2^%-3u %-10s %10.2f %10.2f %10.2f %10.1f  %s\n", T::name(), lg, fill_name(kind), med,
        mn, arena, (double)n / arena / 1e3, same ? "yes" : "NO");
    if (!same)
        check(0, "%s 2^%u %s: every run gives the same sum", T::name(), lg, fill_name(kind));
    if (g_profile)
        say("      steps: split %.2f, ones %.2f, digits %.2f, sort %.2f, acc %.2f, windows %.2f "
            "ms (others %zu, ones %zu, c %u, window groups %u)\n",
            pf.split_ms, pf.ones_ms, pf.digits_ms, pf.sort_ms, pf.acc_ms, pf.windows_ms, pf.n_other,
            pf.n_one, pf.c, pf.groups);
    if (g_roofline)
        roofline_add<T>(gpu, lg, kind, &opts, &pf, arena);
    return CZK_OK;
}

/* The largest lg <= maxlg whose points, scalars (`vectors` arrays) and scratch fit in 90 % of
 * free device memory (at least 20). */
template <class T> unsigned fit_lg(czk_gpu *gpu, unsigned maxlg, unsigned vectors) {
    size_t free_b = 0, total_b = 0;
    czk_err err = {};
    if (czk_gpu_mem_info(gpu, &free_b, &total_b, &err) != CZK_OK)
        return 20;
    while (maxlg > 20) {
        const size_t n = (size_t)1 << maxlg;
        if (n * (sizeof(typename T::aff) + 32 * vectors) + T::scratch_bytes(n) < free_b / 10 * 9)
            break;
        maxlg--;
    }
    return maxlg;
}

/* G1 at 2^24 over windows c = 12 .. 22 (opts.c), arena form, uniform (ds) and PoRep mix (dm). */
int window_sweep(czk_gpu *gpu, const void *dp, const void *ds, const void *dm) {
    const size_t n = (size_t)1 << 24;
    int rc = CZK_OK;
    say("\n== MSM G1 window sweep at 2^24 (ms, median of 5, arena) ==\n%-4s %10s %10s\n", "c",
        "uniform", "PoRep-mix");
    for (unsigned c = 12; c <= 22 && rc == CZK_OK; c++) {
        czk__gpu_msm_opts opts;
        czk_err err = {};
        double mu = 0, mm = 0;
        int same_u = 1, same_m = 1;
        memset(&opts, 0, sizeof(opts));
        opts.c = c;
        rc = time_arena<tg1>(gpu, dp, ds, n, &opts, &mu, NULL, &same_u, &err);
        if (rc == CZK_OK)
            rc = time_arena<tg1>(gpu, dp, dm, n, &opts, &mm, NULL, &same_m, &err);
        if (rc != CZK_OK) {
            fail("msm sweep", rc, &err);
            break;
        }
        say("%-4u %10.2f %10.2f\n", c, mu, mm);
        if (!same_u || !same_m)
            check(0, "sweep c = %u: every run gives the same sum", c);
    }
    return rc;
}

/* The G1 rows (and the sweep), then the G2 rows. */
void bench_msm(czk_gpu *gpu, czk_pool *pool, czk_rng *rng, unsigned minlg, unsigned maxlg,
               bool max_given, bool sweep) {
    unsigned mixlg = max_given ? maxlg : (maxlg > 26 ? maxlg : 26), toplg, g2lg;
    size_t nmax;
    czk_err err = {};
    czk_g1_affine *p = NULL;
    czk_g2_affine *p2 = NULL;
    czk_fr *s = NULL;
    void *dp = NULL, *ds = NULL, *dm = NULL;
    int rc;
    uint64_t t0;

    mixlg = fit_lg<tg1>(gpu, mixlg, 2);
    maxlg = maxlg < mixlg ? maxlg : mixlg;
    toplg = maxlg > mixlg ? maxlg : mixlg;
    if (sweep && toplg < 24)
        sweep = false;
    nmax = (size_t)1 << toplg;
    say("\n== MSM timings (ms, median and min of 5, CUDA events, inputs on the device; arena: "
        "scratch allocated beforehand, as the prover holds it) ==\n");
    t0 = czk_time_ns();
    p = (czk_g1_affine *)czk_malloc(nmax * sizeof(*p));
    s = (czk_fr *)czk_malloc(nmax * sizeof(*s));
    if (p == NULL || s == NULL || make_points(pool, p, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("(2^%u G1 points and scalars generated in %.1f s)\n", toplg, (czk_time_ns() - t0) * 1e-9);
    /* Uniform scalars in ds, the PoRep mix in dm. */
    rc = czk_gpu_alloc(gpu, &dp, nmax * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &ds, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &dm, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dp, p, nmax * sizeof(*p), &err);
    if (rc == CZK_OK) {
        fill_fr(pool, s, nmax, czk_rng_u64(rng), FILL_UNIFORM);
        rc = czk_gpu_upload(gpu, ds, s, nmax * sizeof(*s), &err);
    }
    if (rc == CZK_OK) {
        fill_fr(pool, s, nmax, czk_rng_u64(rng), FILL_POREP);
        rc = czk_gpu_upload(gpu, dm, s, nmax * sizeof(*s), &err);
    }
    if (rc != CZK_OK) {
        fail("msm inputs", rc, &err);
        goto out;
    }
    say("%-3s %-6s %-10s %10s %10s %10s %10s  %s\n", "", "n", "scalars", "ms", "min", "arena",
        "Mpts/s", "runs agree");
    for (unsigned lg = minlg; lg <= maxlg && rc == CZK_OK; lg++)
        rc = msm_row<tg1>(gpu, dp, ds, lg, FILL_UNIFORM);
    for (unsigned lg = minlg > 24 ? 26 : 24; lg <= mixlg && rc == CZK_OK; lg += 2)
        rc = msm_row<tg1>(gpu, dp, dm, lg, FILL_POREP);
    if (sweep && rc == CZK_OK)
        rc = window_sweep(gpu, dp, ds, dm);
    czk_gpu_free(gpu, dp, nmax * sizeof(czk_g1_affine));
    czk_gpu_free(gpu, ds, nmax * sizeof(czk_fr));
    czk_gpu_free(gpu, dm, nmax * sizeof(czk_fr));
    dp = ds = dm = NULL;
    czk_free(p);
    p = NULL;

    /* G2, uniform scalars (the first 2^g2lg of s). */
    g2lg = fit_lg<tg2>(gpu, maxlg < 24 ? maxlg : 24, 1);
    nmax = (size_t)1 << g2lg;
    t0 = czk_time_ns();
    p2 = (czk_g2_affine *)czk_malloc(nmax * sizeof(*p2));
    if (p2 == NULL || make_points_g2(pool, p2, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("(2^%u G2 points generated in %.1f s)\n", g2lg, (czk_time_ns() - t0) * 1e-9);
    fill_fr(pool, s, nmax, czk_rng_u64(rng), FILL_UNIFORM);
    rc = czk_gpu_alloc(gpu, &dp, nmax * sizeof(*p2), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &ds, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dp, p2, nmax * sizeof(*p2), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, ds, s, nmax * sizeof(*s), &err);
    if (rc != CZK_OK) {
        fail("msm G2 inputs", rc, &err);
        goto out;
    }
    for (unsigned lg = minlg; lg <= g2lg && rc == CZK_OK; lg++)
        rc = msm_row<tg2>(gpu, dp, ds, lg, FILL_UNIFORM);
out:
    czk_gpu_free(gpu, dp, nmax * (p2 != NULL ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine)));
    czk_gpu_free(gpu, ds, nmax * sizeof(czk_fr));
    czk_gpu_free(gpu, dm, nmax * sizeof(czk_fr));
    czk_free(p);
    czk_free(p2);
    czk_free(s);
}

} // namespace

int main(int argc, char **argv) {
    common_flags cf;
    unsigned long long minlg = 20, maxlg = 0;
    bool big = false, sweep = false;
    czk_gpu *gpu = NULL;
    czk_pool *pool = NULL;
    czk_rng rng;
    int rc;

    common_defaults(&cf);
    for (int i = 1; i < argc; i++) {
        const int c = common_flag(argc, argv, &i, &cf);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (strcmp(argv[i], "--min-lg") == 0) {
            if (flag_value(argc, argv, &i, &minlg) != 0)
                return 2;
        } else if (strcmp(argv[i], "--max-lg") == 0) {
            if (flag_value(argc, argv, &i, &maxlg) != 0)
                return 2;
        } else if (strcmp(argv[i], "--big") == 0) {
            big = true;
        } else if (strcmp(argv[i], "--profile") == 0) {
            g_profile = true;
        } else if (strcmp(argv[i], "--sweep") == 0) {
            sweep = true;
        } else if (strcmp(argv[i], "--roofline") == 0) {
            g_roofline = true;
        } else {
            fprintf(stderr, "usage: bench_gpu_msm [--min-lg N] [--max-lg N] [--big] [--profile] "
                            "[--sweep] [--roofline] [--seed N] [--threads N] [--log FILE]\n");
            return 2;
        }
    }
    const bool max_given = maxlg != 0;
    if (!max_given)
        maxlg = big ? 27 : 24;
    if (maxlg > 31)
        maxlg = 31;
    if (minlg < 1)
        minlg = 1;
    rc = open_device(&gpu, &pool, &cf);
    if (rc != 0) {
        close_device(gpu, pool);
        return rc;
    }
    module("msm");
    say("bench_gpu_msm, commit %s\n", CZK_GIT_COMMIT);
    czk_rng_seed(&rng, cf.seed);
    if (g_roofline)
        roofline_rates(gpu, pool, cf.seed);
    if (cudaProfilerStart() != cudaSuccess)
        say("cudaProfilerStart failed (ignored)\n");
    bench_msm(gpu, pool, &rng, (unsigned)minlg, (unsigned)maxlg, max_given, sweep);
    if (cudaProfilerStop() != cudaSuccess)
        say("cudaProfilerStop failed (ignored)\n");
    if (g_roofline)
        roofline_table();
    say_memory(gpu);
    close_device(gpu, pool);
    return failures() > 0 ? 1 : 0;
}
