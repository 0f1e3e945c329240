/*
 * Private to the MSM units: the host side of czk_gpu_msm_g1_var / czk_gpu_msm_g2_var. Its
 * tuning constants, the plan and scratch layout, the declarations of the group-independent
 * parts that msm.cu defines (plan, layout, CUB's sort and select, the scalar kernels' launches),
 * and the templates over the group that plan the window, carve the scratch and launch the
 * kernels of msm.cuh on the context's stream; the last few point additions run on the host.
 * The instantiations are split into units that compile in parallel, by group and, within a
 * group, the sum of the ones apart from Pippenger (G2's kernels over Fp2 take most of the
 * time: in one unit they were the critical path of the CUDA build):
 *   msm.cu          the group-independent part (no point kernels);
 *   msm_g1.cu       msm_run and the rest of the templates for G1, and G1's entry points;
 *   msm_g1_ones.cu  msm_ones (msm_ones.cuh) for G1, which msm_run calls across units;
 *   msm_g2.cu, msm_g2_ones.cu  the same for G2.
 * Only host functions cross units: every kernel (and mont.cuh's per-unit __constant__) is
 * defined in the unit that launches it, so no relocatable device code is needed.
 *
 * Scratch layout, in this order, each part aligned to MSM_ALIGN bytes. The split part is
 * sized by n; the Pippenger part by the plan of n points that are all "other", the worst
 * case, so that the sizes the planner asks for stay upper bounds:
 *   split:     cls (n bytes), idx_other (4n), idx_one (4n), the two counts, CUB's select
 *              storage, the chunk sums of the ones (two ping-pong arrays of XYZZ);
 *   Pippenger: key/value pairs and their sorted copies (16·W·n, CUB sorts between the two
 *              copies), CUB's sort storage (histograms only), the
 *              W·2^(c−1) buckets, partial keys and sums of the accumulation levels, and the
 *              window-sum area: per level of step 5 its T and R arrays and the reduction
 *              buffer of T, then the W window sums (offsets in msm_plan).
 * A call reads the number m of others back to the host (one small copy and a stream sync)
 * and plans Pippenger for m points: the window c comes from m, and the smaller plan is laid
 * into the worst-case parts (checked part by part; if a smaller c would not fit, the call
 * keeps the worst case's c, which always fits).
 */
#ifndef CZK_GPU_CUDA_MSM_MSM_HOST_CUH
#define CZK_GPU_CUDA_MSM_MSM_HOST_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm.cuh"
#include "util/status.h"

/* Sorted entries per thread in the first accumulation level (msm_l0 picks between the two
 * bounds), and in the later ones (MSM_L1). The range, and the threads to keep: H200 run 13,
 * 2^24 uniform G1 (2.2·10^8 entries): L0 = 32, 64, 128, 256 gave 160, 152, 147, 144 ms of
 * accumulation with 158 registers, 144, 138, 134, 134 ms with 128 (4 blocks per SM). */
#define MSM_L0_MIN 32
#define MSM_L0_MAX 256
#define MSM_L0_THREADS ((size_t)1 << 17)
#define MSM_L1 16
/* Points per thread when summing the points whose scalar is one. */
#define MSM_L_ONES 32
/* Buckets per thread when turning buckets into window sums (2^5), and entries per thread
 * in the levels above (msm.cuh, step 5). The upper levels are small (1/32 of the work before
 * them), so their time is latency (a full addition is ~20 µs of dependent carry chains):
 * short segments there mean short chains per thread, at the cost of more levels. Level 0
 * takes the short segments too when even its threads would not fill the device
 * (MSM_SEGMENT_THREADS: about 4 blocks of 128 per SM on 132 SMs), as at c = 14..16. H200
 * run 13: segments of 32 at every level cost 7.2 ms at c = 16 (a 2^20 MSM of 22 ms). */
#define MSM_LG_SEGMENT 5
#define MSM_LG_SEGMENT_UP 3
#define MSM_SEGMENT_THREADS ((size_t)1 << 16)
static_assert(MSM_LG_SEGMENT >= 1 && MSM_LG_SEGMENT_UP >= 2 &&
                  1 + (21 + MSM_LG_SEGMENT_UP - 1) / MSM_LG_SEGMENT_UP <= MSM_MAX_LEVELS,
              "step 5 needs at most MSM_MAX_LEVELS levels for c <= 22");
/* Entries one block adds up when reducing the segment sums (and the chunk sums of ones). */
#define MSM_REDUCE 128
/* Steps 1-4 run over groups of windows with at most 2^MSM_GROUP_LG sort entries each: the
 * pairs, 16 bytes an entry, are most of an MSM's scratch, and sorting all W windows at once made a
 * 2^27 MSM's 27 GiB. The work is the same (each group sorts and accumulates only its windows'
 * entries into the global buckets; step 5 runs once over all windows) but each group has its launch
 * tails: on the H200 (run 3 of this slice) groups of 2^26 entries made 2^26 uniform 441 ms against
 * 421 in one group, and a PoRep mix at 2^24 16.0 against 12.2 ms (a window-count cap, since
 * replaced by an entry cap). 2^28 keeps 2^24 and below in one group and the pairs of any
 * size up to 2^26 under 4 GiB. Above that the cap is four windows' entries (msm_group_entries):
 * a group recodes its scalars again, and with keys counted from a group's first window four
 * windows of c = 22 still sort in three radix passes. H200 run 36, 2^27 uniform: 777 ms in 3
 * groups of 2^29 against 793 in 6 of 2^28 (8 GiB of pairs instead of 4); at 2^26 a group of
 * 2^29 (eight windows, 25-bit keys: four passes) was slower, 425 against 418. */
#define MSM_GROUP_LG 28
/* Sub-buffers of the scratch are aligned to this many bytes. */
#define MSM_ALIGN ((size_t)256)

/*
 * Batch-affine levels for the ones (msm_ones_levels) run while at least 2^MSM_TREE_MIN_LG
 * points are left (czk__gpu_msm_opts.ones_levels_lg moves the bound, for the tests that keep
 * both paths checked at small sizes). With Fermat's inversion (~490 products a thread, over K = 64
 * pairs) they measured slower than the chains of mixed XYZZ additions (run 39, ones of a PoRep mix
 * at 2^26: 21.8 against 12.4 ms); with the binary GCD (~70 products, bingcd.cuh) faster (run 42:
 * 10.7 against 12.4 ms), the levels with K = 16 excepted, which lost (2^24: 3.9 against 3.3).
 * So levels take K = 64 pairs a thread, or 32 once the pairs are too few to fill the device
 * with 64, and stop below 2^21 points, where even K = 32 leaves it half idle.
 */
#define MSM_TREE_MIN_LG 21

/* Room for one group's kernels in msm_kernels' list (czk__gpu_msm_local_bytes checks it). */
#define MSM_KERNELS 16

namespace czk_msm {

using czk_cuda::fr_t;

inline size_t div_up(size_t a, size_t b) {
    return (a + b - 1) / b;
}

inline size_t align_up(size_t x) {
    return (x + MSM_ALIGN - 1) & ~(MSM_ALIGN - 1);
}

/*
 * Window c minimising W·(n + 3·2^(c−1)) mixed-addition equivalents: one per non-zero digit
 * plus about three per bucket for the running sums (a full addition costs about 1.4 mixed
 * ones). The H200's window sweep at 2^24 (BENCHMARKS.md run 2) found the fastest c where
 * this model puts it (20 for uniform G1, 14 for a PoRep mix's others); bench_gpu_msm --sweep
 * repeats it through czk__gpu_msm_opts.c.
 */
unsigned msm_pick_c(size_t n);

/* The window of an MSM of n points: opts->c when set (checked by msm_opts_check), else the
 * cost model's. */
unsigned msm_c_for(size_t n, const czk__gpu_msm_opts *opts);

/*
 * The sizes of Pippenger over n points with window c, first-level chunks of L0 entries and
 * XYZZ points of xs bytes, steps 1-4 over groups of gw windows with at most `entries` sort
 * entries (0: msm_group_entries(n); a smaller plan laid into a larger one's parts passes the
 * larger one's m0, which its pairs hold). Step 5's levels (msm.cuh):
 * level k cuts each window's entries into 2^lv_lgG[k] segments of 2^lv_lgs[k]; its arrays lie in
 * the window-sum area at the offsets lv_t (T sums), lv_d (the reduction buffer of T, when it has
 * more than one segment) and lv_r (R sums, none for the last level), in XYZZ entries; the W window
 * sums at seg_out.
 */
struct msm_plan {
    unsigned c, nwin, end_bit, L0, nlev;
    unsigned gw;          /* windows per group (steps 1-4) */
    size_t n, m0, m1, m2; /* points; sort entries, partials of one group */
    size_t half;
    unsigned lv_lgs[MSM_MAX_LEVELS], lv_lgG[MSM_MAX_LEVELS];
    size_t lv_t[MSM_MAX_LEVELS], lv_d[MSM_MAX_LEVELS], lv_r[MSM_MAX_LEVELS], seg_out;
    size_t bytes_pairs, bytes_buckets, bytes_pkeys, bytes_pvals, bytes_segments;
    size_t bytes_sort; /* CUB's sort storage (msm_plan_sort) */
    size_t piece;      /* accumulation blocks a piece (msm_acc_launch; 0: the default) */
};

/* Fills p for n points (see msm_plan); L0 = 0: msm_l0's, else the given one. */
void msm_plan_make(msm_plan *p, size_t n, unsigned c, size_t xs, unsigned L0, size_t entries = 0);

/* CUB's temporary storage for the sort of a plan (a host-side query on the current device). */
int msm_plan_sort(msm_plan *p, czk_err *err);

/* CUB's temporary storage for selecting among n indices (host-side query). */
int msm_select_temp(size_t n, size_t *bytes, czk_err *err);

/* The scratch parts (each already aligned), in layout order. */
struct msm_layout {
    size_t cls, idx_other, idx_one, counts, select, ones;
    size_t pairs, sort, buckets, pkeys, pvals, segments;
    size_t total() const {
        return cls + idx_other + idx_one + counts + select + ones + pairs + sort + buckets + pkeys +
               pvals + segments;
    }
};

/* The layout for n points, given CUB's select storage and the worst-case plan (sort set). */
void msm_layout_make(msm_layout *l, size_t n, size_t select_bytes, const msm_plan *pw, size_t xs);

/* Whether plan p fits the Pippenger parts of layout l. */
bool msm_plan_fits(const msm_plan *p, const msm_layout *l);

/* CZK_OK when one call can take n points (internal.cuh, czk__gpu_msm_g1_check_n). */
int msm_check_n(size_t n, czk_err *err);

/* CUDA events of one profiled call (czk__gpu_msm_opts.profile); all NULL otherwise. */
enum { EV_BEGIN, EV_SPLIT, EV_ONES, EV_DIGITS, EV_SORT, EV_ACC, EV_WINDOWS, EV_COUNT };

struct msm_events {
    cudaEvent_t ev[EV_COUNT];
};

/* Records event k of a profiled call on g's stream (nothing when not profiled). */
int msm_mark(czk_gpu *g, msm_events *e, int k, czk_err *err);

/* Milliseconds between two recorded events (0 when the call is not profiled). */
float msm_elapsed(const msm_events *e, int a, int b);

/* CZK_OK when opts (NULL: the defaults) holds values an MSM takes. */
int msm_opts_check(const czk__gpu_msm_opts *opts, czk_err *err);

/* The fewest points the ones' levels run on (SIZE_MAX: none). */
size_t msm_tree_min(const czk__gpu_msm_opts *opts);

/*
 * Step 0 on the stream (msm.cu's kernels and CUB): classifies the n scalars into cls and lists
 * the indices of the others in idx_other and of the ones in idx_one, their counts at d_counts[0]
 * and d_counts[1], with CUB's select storage sel_temp of select_bytes. Not waited for.
 */
int msm_split(czk_gpu *g, uint8_t *cls, const fr_t *d_sc, size_t n, void *sel_temp,
              size_t select_bytes, uint32_t *idx_other, uint32_t *idx_one, int64_t *d_counts,
              czk_err *err);

/* Step 1 on the stream for the windows w0 .. w0 + nw − 1 of plan p over the p->n scalars listed
 * in idx (msm.cuh's msm_digits_kernel, defined in msm.cu). */
int msm_digits(czk_gpu *g, const msm_plan *p, uint32_t *keys, uint32_t *vals, const fr_t *d_sc,
               const uint32_t *idx, unsigned w0, unsigned nw, czk_err *err);

/*
 * Step 2 on the stream: CUB's radix sort of a group's q->m0 pairs (keys, vals; keys2 and vals2
 * the other copies of the double buffer), with the plan p's storage d_temp; *sk and *sv: the
 * copies that hold the sorted pairs.
 */
int msm_sort(czk_gpu *g, const msm_plan *p, const msm_plan *q, void *d_temp, uint32_t *keys,
             uint32_t *vals, uint32_t *keys2, uint32_t *vals2, uint32_t **sk, uint32_t **sv,
             czk_err *err);

/*
 * The plan of Pippenger over the m others of a call whose worst case is pw, laid out in l: their
 * own window and chunk length first (fewer entries may want shorter chunks), else the worst
 * case's chunk length, whose partial sums the layout holds, else its window too, which always
 * fits; never more sort entries a group than the worst case's pairs hold. msm_run plans with it,
 * and bench_gpu_msm's cost model (--roofline) reads the same plan. Queries CUB on the current
 * device; CZK_EINVAL when no plan fits.
 */
inline int msm_plan_others(msm_plan *pr, const msm_plan *pw, const msm_layout *l, size_t m,
                           size_t xs, const czk__gpu_msm_opts *opts, czk_err *err) {
    int rc = CZK_OK;
    const unsigned c_other = msm_c_for(m, opts);
    const unsigned tries[3][2] = {{c_other, 0}, {c_other, pw->L0}, {pw->c, pw->L0}};
    bool fits = false;
    for (int t = 0; t < 3 && !fits; t++) {
        msm_plan_make(pr, m, tries[t][0], xs, tries[t][1], pw->m0);
        CZK_TRY(msm_plan_sort(pr, err));
        fits = msm_plan_fits(pr, l);
    }
    pr->piece = opts != NULL ? opts->piece_blocks : 0;
    if (!fits)
        rc = czk_err_set(err, CZK_EINVAL, "MSM of %zu others does not fit its scratch", m);
out:
    return rc;
}

/* The worst-case layout of an MSM of n > 0 points (queries CUB on the current device). */
template <class GR>
int msm_layout_for(msm_layout *l, msm_plan *pw, size_t n, const czk__gpu_msm_opts *opts,
                   czk_err *err) {
    int rc = CZK_OK;
    size_t sel = 0;
    msm_plan_make(pw, n, msm_c_for(n, opts), sizeof(typename GR::X), 0);
    CZK_TRY(msm_plan_sort(pw, err));
    CZK_TRY(msm_select_temp(n, &sel, err));
    msm_layout_make(l, n, sel, pw, sizeof(typename GR::X));
out:
    return rc;
}

/* Sums partial buckets level by level until one chunk is left (msm.cuh, step 4). */
template <class X>
int msm_reduce_partials(czk_gpu *g, const msm_plan *p, X *buckets, uint32_t *ka, X *va,
                        uint32_t *kb, X *vb, uint32_t empty, czk_err *err) {
    int rc = CZK_OK;
    size_t m = p->m1;
    for (;;) {
        size_t chunks = div_up(m, MSM_L1);
        czk_cuda::msm_acc_partials_kernel<X><<<(unsigned)div_up(chunks, 128), 128, 0, g->stream>>>(
            buckets, kb, vb, ka, va, m, MSM_L1, empty);
        CZK_CUDA_TRY(err, cudaGetLastError());
        if (m <= MSM_L1)
            break;
        m = 2 * chunks;
        uint32_t *tk = ka;
        ka = kb;
        kb = tk;
        X *tv = va;
        va = vb;
        vb = tv;
    }
out:
    return rc;
}

/*
 * dst <- Σ of the G entries of each of nwin groups in src, by rounds of
 * msm_window_reduce_kernel ping-ponging between src and dst. Out: *res, the array holding
 * the nwin sums (src itself when G = 1).
 */
template <class X>
int msm_reduce_groups(czk_gpu *g, X **res, X *src, X *dst, size_t nwin, size_t G, czk_err *err) {
    int rc = CZK_OK;
    while (G > 1) {
        size_t G2 = div_up(G, MSM_REDUCE);
        czk_cuda::msm_window_reduce_kernel<X><<<(unsigned)(nwin * G2), MSM_REDUCE, 0, g->stream>>>(
            dst, src, (uint32_t)G, (uint32_t)G2);
        CZK_CUDA_TRY(err, cudaGetLastError());
        G = G2;
        X *t = src;
        src = dst;
        dst = t;
    }
out:
    *res = src;
    return rc;
}

/*
 * Launches step 3 (msm_acc_points_kernel) over the plan's m0 sorted entries in chunks of
 * p->L0, in blocks of MSM_ACC_G1_BLOCK threads for G1 and MSM_ACC_G2_BLOCK for G2 (msm.cuh).
 *
 * When g gives way to a priority lane (internal.cuh), the grid is cut into pieces of
 * MSM_ACC_PIECE_WAVES blocks per SM with a yield point after each: one launch is ~235 ms at
 * 2^27 (three per MSM), pieces ~15 ms. They alternate between g's two streams so that a piece
 * fills the SMs as the one before it drains; in one stream each piece's last wave would leave
 * the device half idle for half a block's time (~2 ms of ~4 a block at 2^27, G1).
 */
#define MSM_ACC_PIECE_WAVES 4
template <class A, class X>
int msm_acc_launch(czk_gpu *g, const msm_plan *p, X *buckets, uint32_t *pk, X *pv,
                   const uint32_t *keys, const uint32_t *vals, const A *pts, uint32_t empty,
                   czk_err *err) {
    constexpr unsigned block = sizeof(A) == 96 ? MSM_ACC_G1_BLOCK : MSM_ACC_G2_BLOCK;
    int rc = CZK_OK;
    const size_t grid = div_up(div_up(p->m0, p->L0), block);
    const size_t piece =
        p->piece > 0 ? p->piece : (size_t)MSM_ACC_PIECE_WAVES * (size_t)g->sm_count;
    if (!czk__gpu_gives_way(g) || grid <= 2 * piece) {
        czk_cuda::msm_acc_points_kernel<A, X, block, 1><<<(unsigned)grid, block, 0, g->stream>>>(
            buckets, pk, pv, keys, vals, pts, p->m0, p->L0, empty, 0);
        CZK_CUDA_TRY(err, cudaGetLastError());
        return CZK_OK;
    }
    CZK_TRY(czk__gpu_fork(g, err));
    for (size_t b0 = 0, i = 0; b0 < grid; b0 += piece, i++) {
        cudaStream_t s = i % 2 == 0 ? g->stream : g->aux;
        const size_t nb = grid - b0 < piece ? grid - b0 : piece;
        czk_cuda::msm_acc_points_kernel<A, X, block, 1><<<(unsigned)nb, block, 0, s>>>(
            buckets, pk, pv, keys, vals, pts, p->m0, p->L0, empty, b0 * block);
        CZK_CUDA_TRY(err, cudaGetLastError());
        CZK_TRY(czk__gpu_yield_on(g, s, err));
    }
    CZK_TRY(czk__gpu_join(g, err));
out:
    /* A failed call leaves no piece running on the second stream: the caller waits for its
     * own stream only before the next call reuses the scratch. */
    if (rc != CZK_OK && g->aux != NULL)
        (void)cudaStreamSynchronize(g->aux);
    return rc;
}

/*
 * Pippenger over the m = p->n points listed in idx (steps 1-5 of msm.cuh); the W window sums
 * are copied to win (host) on the stream, not waited for.
 */
template <class GR>
int msm_pippenger(czk_gpu *g, typename GR::xyzz *win, const msm_plan *p, const msm_layout *l,
                  char *base, const typename GR::A *d_pts, const fr_t *d_sc, const uint32_t *idx,
                  msm_events *ev, czk_err *err) {
    typedef typename GR::X X;
    int rc = CZK_OK;
    char *cur = base;
    uint32_t *keys, *vals, *keys2, *vals2, *pk, *pk2;
    void *d_temp;
    X *buckets, *area, *pv, *pv2, *res;
    const X *in;
    czk_cuda::msm_levels<X> lv;

    keys = (uint32_t *)cur;
    cur += l->pairs;
    vals = keys + p->m0;
    keys2 = vals + p->m0;
    vals2 = keys2 + p->m0;
    d_temp = cur;
    cur += l->sort;
    buckets = (X *)cur;
    cur += l->buckets;
    pk = (uint32_t *)cur;
    cur += l->pkeys;
    pk2 = pk + p->m1;
    pv = (X *)cur;
    cur += l->pvals;
    pv2 = pv + p->m1;
    area = (X *)cur;

    /* 1-4 per group of windows: digits, one sort of the group's (bucket, point) pairs,
     * balanced accumulation into the (global) buckets. With several groups the profile's
     * digits and sort marks are the first group's; "accumulate" holds the rest. */
    CZK_CUDA_TRY(err, cudaMemsetAsync(buckets, 0, p->bytes_buckets, g->stream));
    for (unsigned w0 = 0; w0 < p->nwin; w0 += p->gw) {
        const unsigned nw = p->nwin - w0 < p->gw ? p->nwin - w0 : p->gw;
        msm_plan q = *p;
        uint32_t *sk, *sv;
        /* The group's keys and buckets count from its first window. */
        const uint32_t empty = (uint32_t)(nw * p->half);
        X *gb = buckets + (size_t)w0 * p->half;
        q.m0 = (size_t)nw * p->n;
        q.m1 = 2 * div_up(q.m0, q.L0);
        q.m2 = 2 * div_up(q.m1, MSM_L1);
        CZK_TRY(msm_digits(g, p, keys, vals, d_sc, idx, w0, nw, err));
        if (w0 == 0)
            CZK_TRY(msm_mark(g, ev, EV_DIGITS, err));
        CZK_TRY(msm_sort(g, p, &q, d_temp, keys, vals, keys2, vals2, &sk, &sv, err));
        if (w0 == 0)
            CZK_TRY(msm_mark(g, ev, EV_SORT, err));
        CZK_TRY(czk__gpu_yield(g, err));
        CZK_TRY((msm_acc_launch<typename GR::A, X>(g, &q, gb, pk, pv, sk, sv, d_pts, empty, err)));
        CZK_TRY(msm_reduce_partials<X>(g, &q, gb, pk, pv, pk2, pv2, empty, err));
        CZK_TRY(czk__gpu_yield(g, err));
    }
    CZK_TRY(msm_mark(g, ev, EV_ACC, err));

    /* 5: window sums, level by level (T and R of each segment), each level's T reduced per
     * window, then Horner over the levels. */
    in = buckets;
    lv.count = p->nlev;
    for (unsigned k = 0; k < p->nlev; k++) {
        const size_t G = (size_t)1 << p->lv_lgG[k], count = (size_t)p->nwin * G;
        X *t = area + p->lv_t[k], *r = G > 1 ? area + p->lv_r[k] : nullptr;
        czk_cuda::msm_window_segments_kernel<X>
            <<<(unsigned)div_up(count, 128), 128, 0, g->stream>>>(t, r, in, (uint32_t)count,
                                                                  p->lv_lgs[k], k == 0 ? 1u : 0u);
        CZK_CUDA_TRY(err, cudaGetLastError());
        CZK_TRY(msm_reduce_groups<X>(g, &res, t, area + p->lv_d[k], p->nwin, G, err));
        lv.sum[k] = res;
        lv.lgs[k] = p->lv_lgs[k];
        in = r;
    }
    res = area + p->seg_out;
    czk_cuda::msm_window_combine_kernel<X>
        <<<(unsigned)div_up(p->nwin, 128), 128, 0, g->stream>>>(res, lv, p->nwin);
    CZK_CUDA_TRY(err, cudaGetLastError());
    CZK_TRY(msm_mark(g, ev, EV_WINDOWS, err));
    CZK_CUDA_TRY(err,
                 cudaMemcpyAsync(win, res, p->nwin * sizeof(X), cudaMemcpyDeviceToHost, g->stream));
out:
    return rc;
}

template <class GR>
int msm_scratch(czk_gpu *g, size_t n, const czk__gpu_msm_opts *opts, size_t *bytes, czk_err *err) {
    int rc = CZK_OK;
    msm_plan pw;
    msm_layout l;
    *bytes = 0;
    if (n == 0)
        return CZK_OK;
    CZK_TRY(msm_opts_check(opts, err));
    CZK_TRY(msm_check_n(n, err));
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_TRY(msm_layout_for<GR>(&l, &pw, n, opts, err));
    *bytes = l.total();
out:
    return rc;
}

/*
 * The sum of the n_one points of d_pts listed in idx_one, copied to *ones (the host's XYZZ of the
 * group) on the stream, not waited for: the levels of msm_ones_levels in [buf, buf + bytes) while
 * at least min_points are left, then chunks of MSM_L_ONES mixed additions into ones_a and a tree
 * ping-ponging with ones_b. Defined in msm_ones.cuh and instantiated in the group's ones unit
 * (msm_g1_ones.cu, msm_g2_ones.cu), so that its kernels compile apart from the Pippenger ones.
 */
template <class A, class X>
int msm_ones(czk_gpu *g, void *ones, const A *d_pts, const uint32_t *idx_one, size_t n_one,
             X *ones_a, X *ones_b, char *buf, size_t bytes, size_t min_points, czk_err *err);

/* msm_kernels' part for msm_ones' kernels: puts them into fns from index k on (those past
 * MSM_KERNELS dropped) and returns k plus their number. Beside msm_ones. */
template <class A, class X> size_t msm_ones_kernels(const void *(&fns)[MSM_KERNELS], size_t k);

template <class GR>
int msm_run(czk_gpu *g, typename GR::jacobian *out, const void *pts_dev, const void *sc_dev,
            size_t n, void *scratch, size_t scratch_bytes, const czk__gpu_msm_opts *opts,
            czk_err *err) {
    typedef typename GR::X X;
    int rc = CZK_OK;
    msm_plan pw, pr;
    msm_layout l;
    msm_events ev;
    const typename GR::A *d_pts = (const typename GR::A *)pts_dev;
    const fr_t *d_sc = (const fr_t *)sc_dev;
    char *cur = (char *)scratch;
    uint8_t *cls;
    uint32_t *idx_other, *idx_one;
    int64_t *d_counts, counts[2] = {0, 0};
    void *sel_temp;
    X *ones_a, *ones_b;
    size_t n_other = 0, n_one = 0;
    typename GR::xyzz win[64], acc, ones;

    memset(&ev, 0, sizeof(ev));
    if (n == 0) {
        GR::jacobian_inf(out);
        return CZK_OK;
    }
    CZK_TRY(msm_opts_check(opts, err));
    CZK_TRY(msm_check_n(n, err));
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_TRY(msm_layout_for<GR>(&l, &pw, n, opts, err));
    if (scratch == NULL || l.total() > scratch_bytes) {
        rc = czk_err_set(err, CZK_EINVAL, "MSM of %zu points needs %zu scratch bytes, got %zu", n,
                         l.total(), scratch_bytes);
        goto out;
    }
    if (opts != NULL && opts->profile != NULL) {
        for (int k = 0; k < EV_COUNT; k++)
            CZK_CUDA_TRY(err, cudaEventCreate(&ev.ev[k]));
    }
    GR::set_inf(&acc);
    GR::set_inf(&ones);

    cls = (uint8_t *)cur;
    cur += l.cls;
    idx_other = (uint32_t *)cur;
    cur += l.idx_other;
    idx_one = (uint32_t *)cur;
    cur += l.idx_one;
    d_counts = (int64_t *)cur;
    cur += l.counts;
    sel_temp = cur;
    cur += l.select;
    ones_a = (X *)cur;
    cur += l.ones;
    ones_b = ones_a + div_up(n, MSM_L_ONES);

    /* 0: the split; the counts come back to size the rest. */
    CZK_TRY(msm_mark(g, &ev, EV_BEGIN, err));
    CZK_TRY(msm_split(g, cls, d_sc, n, sel_temp, l.select, idx_other, idx_one, d_counts, err));
    CZK_CUDA_TRY(
        err, cudaMemcpyAsync(counts, d_counts, sizeof(counts), cudaMemcpyDeviceToHost, g->stream));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    CZK_TRY(msm_mark(g, &ev, EV_SPLIT, err));
    if (counts[0] < 0 || counts[1] < 0 || (size_t)counts[0] + (size_t)counts[1] > n) {
        rc = czk_err_set(err, CZK_ECUDA, "MSM split counts %lld + %lld exceed n = %zu",
                         (long long)counts[0], (long long)counts[1], n);
        goto out;
    }
    n_other = (size_t)counts[0];
    n_one = (size_t)counts[1];

    /* The ones: halved level by level in affine coordinates while they are many
     * (msm_ones_levels, in the space the others' Pippenger uses after), then equal chunks of
     * mixed additions, then a tree (msm_ones, in the group's ones unit). */
    if (n_one > 0)
        CZK_TRY(msm_ones(g, &ones, d_pts, idx_one, n_one, ones_a, ones_b, cur,
                         scratch_bytes - (size_t)(cur - (char *)scratch), msm_tree_min(opts), err));
    CZK_TRY(msm_mark(g, &ev, EV_ONES, err));
    CZK_TRY(czk__gpu_yield(g, err));

    /* 1-5 over the others, with the window their number calls for when it fits. */
    if (n_other > 0) {
        CZK_TRY(msm_plan_others(&pr, &pw, &l, n_other, sizeof(X), opts, err));
        CZK_TRY(msm_pippenger<GR>(g, win, &pr, &l, cur, d_pts, d_sc, idx_other, &ev, err));
    } else {
        /* Nothing timed: the later marks equal the ones mark. */
        CZK_TRY(msm_mark(g, &ev, EV_DIGITS, err));
        CZK_TRY(msm_mark(g, &ev, EV_SORT, err));
        CZK_TRY(msm_mark(g, &ev, EV_ACC, err));
        CZK_TRY(msm_mark(g, &ev, EV_WINDOWS, err));
    }
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));

    /* 6: Σ 2^(c·w)·S_w by Horner on the host, plus the ones. */
    if (n_other > 0) {
        acc = win[pr.nwin - 1];
        for (int w = (int)pr.nwin - 2; w >= 0; w--) {
            for (unsigned i = 0; i < pr.c; i++)
                GR::dbl(&acc, &acc);
            GR::add(&acc, &acc, &win[w]);
        }
    }
    GR::add(&acc, &acc, &ones);
    GR::to_jacobian(out, &acc);

    if (ev.ev[0] != NULL) {
        czk__gpu_msm_profile *pf = opts->profile;
        memset(pf, 0, sizeof(*pf));
        pf->group = GR::group;
        pf->n = n;
        pf->n_one = n_one;
        pf->n_other = n_other;
        pf->c = n_other > 0 ? pr.c : 0;
        pf->groups = n_other > 0 ? (pr.nwin + pr.gw - 1) / pr.gw : 0;
        pf->split_ms = msm_elapsed(&ev, EV_BEGIN, EV_SPLIT);
        pf->ones_ms = msm_elapsed(&ev, EV_SPLIT, EV_ONES);
        pf->digits_ms = msm_elapsed(&ev, EV_ONES, EV_DIGITS);
        pf->sort_ms = msm_elapsed(&ev, EV_DIGITS, EV_SORT);
        pf->acc_ms = msm_elapsed(&ev, EV_SORT, EV_ACC);
        pf->windows_ms = msm_elapsed(&ev, EV_ACC, EV_WINDOWS);
        pf->total_ms = msm_elapsed(&ev, EV_BEGIN, EV_WINDOWS);
    }
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    for (int k = 0; k < EV_COUNT; k++)
        if (ev.ev[k] != NULL)
            (void)cudaEventDestroy(ev.ev[k]);
    return rc;
}

/* Worst-case scratch without a device: CUB's storage estimated generously. */
template <class GR> size_t msm_scratch_estimate(size_t n) {
    msm_plan pw;
    msm_layout l;
    if (n == 0)
        return 0;
    msm_plan_make(&pw, n, msm_pick_c(n), sizeof(typename GR::X), 0);
    /* CUB's double-buffer radix sort needs only its histograms (a few MiB); its select a
     * few bytes per item. The exact figures need a device (czk__gpu_msm_g1_scratch /
     * _g2_scratch). */
    pw.bytes_sort = (size_t)64 << 20;
    msm_layout_make(&l, n, n + ((size_t)16 << 20), &pw, sizeof(typename GR::X));
    return l.total();
}

template <class GR>
int msm_var(czk_gpu *g, typename GR::jacobian *out, const typename GR::affine *pts,
            const czk_fr *sc, size_t n, czk_gpu_mem where, czk_err *err) {
    int rc = CZK_OK;
    void *d_pts = NULL, *d_sc = NULL, *scratch = NULL;
    size_t scratch_bytes = 0;

    if (g == NULL || out == NULL || (n > 0 && (pts == NULL || sc == NULL)))
        return czk_err_set(err, CZK_EINVAL, "NULL argument");
    if ((unsigned)where > CZK_GPU_MEM_DEVICE)
        return czk_err_set(err, CZK_EINVAL, "unknown memory kind");
    if (n == 0) {
        GR::jacobian_inf(out);
        return CZK_OK;
    }
    CZK_TRY(msm_check_n(n, err));
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_TRY(msm_scratch<GR>(g, n, NULL, &scratch_bytes, err));
    if (where == CZK_GPU_MEM_HOST) {
        CZK_TRY(czk__gpu_malloc(g, &d_pts, n * sizeof(*pts), err));
        CZK_TRY(czk__gpu_malloc(g, &d_sc, n * sizeof(czk_fr), err));
        CZK_CUDA_TRY(
            err, cudaMemcpyAsync(d_pts, pts, n * sizeof(*pts), cudaMemcpyHostToDevice, g->stream));
        CZK_CUDA_TRY(
            err, cudaMemcpyAsync(d_sc, sc, n * sizeof(czk_fr), cudaMemcpyHostToDevice, g->stream));
    } else {
        d_pts = (void *)pts;
        d_sc = (void *)sc;
    }
    CZK_TRY(czk__gpu_malloc(g, &scratch, scratch_bytes, err));
    CZK_TRY(msm_run<GR>(g, out, d_pts, d_sc, n, scratch, scratch_bytes, NULL, err));
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    czk__gpu_free(g, scratch, scratch_bytes);
    if (where == CZK_GPU_MEM_HOST) {
        czk__gpu_free(g, d_sc, n * sizeof(czk_fr));
        czk__gpu_free(g, d_pts, n * sizeof(*pts));
    }
    return rc;
}

/* Every MSM kernel of group GR, as cudaFuncGetAttributes takes, into fns (the first
 * MSM_KERNELS of them); returns how many there are. */
template <class GR> size_t msm_kernels(const void *(&fns)[MSM_KERNELS]) {
    typedef typename GR::A A;
    typedef typename GR::X X;
    constexpr unsigned acc_block = sizeof(A) == 96 ? MSM_ACC_G1_BLOCK : MSM_ACC_G2_BLOCK;
    size_t k = msm_ones_kernels<A, X>(fns, 0);
    auto put = [&](const void *f) {
        if (k < MSM_KERNELS)
            fns[k] = f;
        k++;
    };
    put((const void *)czk_cuda::msm_acc_points_kernel<A, X, acc_block, 1>);
    put((const void *)czk_cuda::msm_acc_partials_kernel<X>);
    put((const void *)czk_cuda::msm_window_segments_kernel<X>);
    put((const void *)czk_cuda::msm_window_reduce_kernel<X>);
    put((const void *)czk_cuda::msm_window_combine_kernel<X>);
    return k;
}

/* msm_kernels of each group, from its unit (a kernel's address is its unit's host stub). */
size_t msm_kernels_g1(const void *(&fns)[MSM_KERNELS]);
size_t msm_kernels_g2(const void *(&fns)[MSM_KERNELS]);

} // namespace czk_msm

#endif /* CZK_GPU_CUDA_MSM_MSM_HOST_CUH */
