/*
 * czk_gpu_msm_g1_var / czk_gpu_msm_g2_var: plan the window, carve the scratch and run the
 * kernels of msm.cuh on the context's stream; the last few point additions run on the host.
 * One implementation, a template over the group (msm_g1 / msm_g2 below).
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
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <string.h>
#include <thrust/iterator/counting_iterator.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm.cuh"
#include "util/status.h"

using czk_cuda::fr_t;

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

static_assert(sizeof(czk_cuda::g1_xyzz_t) == sizeof(czk_g1_xyzz), "G1 XYZZ layouts differ");
static_assert(sizeof(czk_cuda::g1_affine_t) == sizeof(czk_g1_affine), "G1 affine layouts differ");
static_assert(sizeof(czk_cuda::fp2_t) == sizeof(czk_fp2), "Fp2 layouts differ");
static_assert(sizeof(czk_cuda::g2_xyzz_t) == sizeof(czk_g2_xyzz), "G2 XYZZ layouts differ");
static_assert(sizeof(czk_cuda::g2_affine_t) == sizeof(czk_g2_affine), "G2 affine layouts differ");
static_assert(sizeof(fr_t) == sizeof(czk_fr), "Fr layouts differ");

namespace {

/* The two groups: device point types and the host functions of the last combination. */
struct msm_g1 {
    typedef czk_cuda::g1_affine_t A;
    typedef czk_cuda::g1_xyzz_t X;
    typedef czk_g1_affine affine;
    typedef czk_g1_jacobian jacobian;
    typedef czk_g1_xyzz xyzz;
    static const unsigned group = 1;
    static void set_inf(xyzz *r) {
        czk_g1_xyzz_set_infinity(r);
    }
    static void dbl(xyzz *r, const xyzz *a) {
        czk_g1_xyzz_dbl(r, a);
    }
    static void add(xyzz *r, const xyzz *a, const xyzz *b) {
        czk_g1_xyzz_add_var(r, a, b);
    }
    static void to_jacobian(jacobian *r, const xyzz *a) {
        affine aff;
        czk_g1_xyzz_to_affine(&aff, a);
        czk_g1_jacobian_from_affine(r, &aff);
    }
    static void jacobian_inf(jacobian *r) {
        czk_g1_jacobian_set_infinity(r);
    }
};

struct msm_g2 {
    typedef czk_cuda::g2_affine_t A;
    typedef czk_cuda::g2_xyzz_t X;
    typedef czk_g2_affine affine;
    typedef czk_g2_jacobian jacobian;
    typedef czk_g2_xyzz xyzz;
    static const unsigned group = 2;
    static void set_inf(xyzz *r) {
        czk_g2_xyzz_set_infinity(r);
    }
    static void dbl(xyzz *r, const xyzz *a) {
        czk_g2_xyzz_dbl(r, a);
    }
    static void add(xyzz *r, const xyzz *a, const xyzz *b) {
        czk_g2_xyzz_add_var(r, a, b);
    }
    static void to_jacobian(jacobian *r, const xyzz *a) {
        affine aff;
        czk_g2_xyzz_to_affine(&aff, a);
        czk_g2_jacobian_from_affine(r, &aff);
    }
    static void jacobian_inf(jacobian *r) {
        czk_g2_jacobian_set_infinity(r);
    }
};

size_t div_up(size_t a, size_t b) {
    return (a + b - 1) / b;
}

size_t align_up(size_t x) {
    return (x + MSM_ALIGN - 1) & ~(MSM_ALIGN - 1);
}

bool msm_c_valid(unsigned long x) {
    return x >= 8 && x <= 22;
}

/* The most sort entries of one window group for an MSM of n points (MSM_GROUP_LG). */
size_t msm_group_entries(size_t n) {
    const size_t cap = (size_t)1 << MSM_GROUP_LG;
    return 4 * n > cap ? 4 * n : cap;
}

/*
 * L0 for a new plan of m0 sorted entries (plans keep theirs: sizes and launches must agree):
 * the longest chunk that still gives MSM_L0_THREADS threads (longer chunks leave fewer runs
 * cut in two, hence fewer partial sums, but the device must stay full: a split-off handful of
 * "others" gets short chunks).
 */
unsigned msm_l0(size_t m0) {
    unsigned l;
    for (l = MSM_L0_MAX; l > MSM_L0_MIN && m0 / l < MSM_L0_THREADS; l /= 2) {
    }
    return l;
}

/*
 * Window c minimising W·(n + 3·2^(c−1)) mixed-addition equivalents: one per non-zero digit
 * plus about three per bucket for the running sums (a full addition costs about 1.4 mixed
 * ones). The H200's window sweep at 2^24 (BENCHMARKS.md run 2) found the fastest c where
 * this model puts it (20 for uniform G1, 14 for a PoRep mix's others); bench_gpu_msm --sweep
 * repeats it through czk__gpu_msm_opts.c.
 */
unsigned msm_pick_c(size_t n) {
    unsigned best_c = 8;
    double best = 0;
    for (unsigned c = 8; c <= 22; c++) {
        unsigned w = (256 + c - 1) / c;
        double cost = (double)w * ((double)n + 3.0 * (double)((size_t)1 << (c - 1)));
        if (c == 8 || cost < best) {
            best = cost;
            best_c = c;
        }
    }
    return best_c;
}

/* The window of an MSM of n points: opts->c when set (checked by msm_opts_check), else the
 * cost model's. */
unsigned msm_c_for(size_t n, const czk__gpu_msm_opts *opts) {
    return opts != NULL && opts->c != 0 ? opts->c : msm_pick_c(n);
}

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
};

void msm_plan_make(msm_plan *p, size_t n, unsigned c, size_t xs, unsigned L0, size_t entries = 0) {
    unsigned lgn = c - 1, k = 0;
    size_t off = 0, gw;
    p->c = c;
    p->n = n;
    p->nwin = (256 + c - 1) / c;
    gw = n > 0 ? (entries != 0 ? entries : msm_group_entries(n)) / n : p->nwin;
    gw = gw < 1 ? 1 : gw > p->nwin ? p->nwin : gw;
    p->gw = (unsigned)gw;
    p->L0 = L0 != 0 ? L0 : msm_l0(gw * n);
    p->half = (size_t)1 << (c - 1);
    /* Step 5: levels until one segment per window; lgn = lg of a window's entries. */
    for (;;) {
        unsigned lgs =
            k == 0 && ((size_t)p->nwin << (lgn > MSM_LG_SEGMENT ? lgn - MSM_LG_SEGMENT : 0)) >=
                          MSM_SEGMENT_THREADS
                ? MSM_LG_SEGMENT
                : MSM_LG_SEGMENT_UP;
        if (lgs > lgn)
            lgs = lgn;
        const unsigned lgG = lgn - lgs;
        const size_t G = (size_t)1 << lgG;
        p->lv_lgs[k] = lgs;
        p->lv_lgG[k] = lgG;
        p->lv_t[k] = off;
        off += (size_t)p->nwin * G;
        p->lv_d[k] = off;
        off += G > 1 ? (size_t)p->nwin * div_up(G, MSM_REDUCE) : 0;
        p->lv_r[k] = off;
        k++;
        if (lgG == 0)
            break;
        off += (size_t)p->nwin * G;
        lgn = lgG;
    }
    p->nlev = k;
    p->seg_out = off;
    off += p->nwin;
    p->m0 = (size_t)p->gw * n;
    p->m1 = 2 * div_up(p->m0, p->L0);
    p->m2 = 2 * div_up(p->m1, MSM_L1);
    /* Keys count from a group's first window (msm.cuh, step 1): the largest group's EMPTY. */
    size_t empty = (size_t)p->gw * p->half;
    p->end_bit = 1;
    while (((size_t)1 << p->end_bit) <= empty)
        p->end_bit++;
    p->bytes_pairs = 4 * p->m0 * sizeof(uint32_t); /* keys, values, and sorted copies */
    p->bytes_buckets = (size_t)p->nwin * p->half * xs;
    p->bytes_pkeys = (p->m1 + p->m2) * sizeof(uint32_t);
    p->bytes_pvals = (p->m1 + p->m2) * xs;
    p->bytes_segments = off * xs;
    p->bytes_sort = 0;
}

/* CUB's temporary storage for the sort of a plan (a host-side query on the current device). */
int msm_plan_sort(msm_plan *p, czk_err *err) {
    int rc = CZK_OK;
    size_t bytes = 0;
    cub::DoubleBuffer<uint32_t> keys(nullptr, nullptr), vals(nullptr, nullptr);
    CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(nullptr, bytes, keys, vals, (int)p->m0, 0,
                                                      (int)p->end_bit, (cudaStream_t)0));
    p->bytes_sort = bytes;
out:
    return rc;
}

/* CUB's temporary storage for selecting among n indices (host-side query). */
int msm_select_temp(size_t n, size_t *bytes, czk_err *err) {
    int rc = CZK_OK;
    *bytes = 0;
    CZK_CUDA_TRY(err, cub::DeviceSelect::If(nullptr, *bytes, thrust::counting_iterator<uint32_t>(0),
                                            (uint32_t *)nullptr, (int64_t *)nullptr, (int64_t)n,
                                            czk_cuda::msm_class_is{nullptr, 0}, (cudaStream_t)0));
out:
    return rc;
}

/* Chunk sums of the ones: level 0 has ceil(n / MSM_L_ONES); the first reduction 1/128 of it. */
size_t msm_ones_slots(size_t n) {
    size_t c0 = div_up(n, MSM_L_ONES);
    return c0 + div_up(c0, MSM_REDUCE);
}

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
void msm_layout_make(msm_layout *l, size_t n, size_t select_bytes, const msm_plan *pw, size_t xs) {
    l->cls = align_up(n);
    l->idx_other = align_up(n * sizeof(uint32_t));
    l->idx_one = align_up(n * sizeof(uint32_t));
    l->counts = align_up(2 * sizeof(int64_t));
    l->select = align_up(select_bytes);
    l->ones = align_up(msm_ones_slots(n) * xs);
    l->pairs = align_up(pw->bytes_pairs);
    l->sort = align_up(pw->bytes_sort);
    l->buckets = align_up(pw->bytes_buckets);
    l->pkeys = align_up(pw->bytes_pkeys);
    l->pvals = align_up(pw->bytes_pvals);
    l->segments = align_up(pw->bytes_segments);
}

/* Whether plan p fits the Pippenger parts of layout l. */
bool msm_plan_fits(const msm_plan *p, const msm_layout *l) {
    return p->bytes_pairs <= l->pairs && p->bytes_sort <= l->sort &&
           p->bytes_buckets <= l->buckets && p->bytes_pkeys <= l->pkeys &&
           p->bytes_pvals <= l->pvals && p->bytes_segments <= l->segments;
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

int msm_check_n(size_t n, czk_err *err) {
    msm_plan p;
    if (n > ((size_t)1 << 31) - 1)
        return czk_err_set(err, CZK_EINVAL, "n = %zu above 2^31 - 1", n);
    if (n == 0)
        return CZK_OK;
    /* The worst case (every scalar "other") must fit one sort; the point size is irrelevant. */
    msm_plan_make(&p, n, msm_pick_c(n), 1, MSM_L0_MIN);
    if (p.m0 > (size_t)0x7fffffff)
        return czk_err_set(err, CZK_EINVAL, "n = %zu too large for one sort", n);
    return CZK_OK;
}

/* CUDA events of one profiled call (czk__gpu_msm_opts.profile); all NULL otherwise. */
enum { EV_BEGIN, EV_SPLIT, EV_ONES, EV_DIGITS, EV_SORT, EV_ACC, EV_WINDOWS, EV_COUNT };

struct msm_events {
    cudaEvent_t ev[EV_COUNT];
};

int msm_mark(czk_gpu *g, msm_events *e, int k, czk_err *err) {
    int rc = CZK_OK;
    if (e->ev[k] != NULL)
        CZK_CUDA_TRY(err, cudaEventRecord(e->ev[k], g->stream));
out:
    return rc;
}

/* Milliseconds between two recorded events (0 when the call is not profiled). */
float msm_elapsed(const msm_events *e, int a, int b) {
    float ms = 0;
    if (e->ev[a] == NULL || cudaEventElapsedTime(&ms, e->ev[a], e->ev[b]) != cudaSuccess)
        return 0;
    return ms;
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
 * The caller checks cudaGetLastError.
 */
template <class A, class X>
void msm_acc_launch(czk_gpu *g, const msm_plan *p, X *buckets, uint32_t *pk, X *pv,
                    const uint32_t *keys, const uint32_t *vals, const A *pts, uint32_t empty) {
    constexpr unsigned block = sizeof(A) == 96 ? MSM_ACC_G1_BLOCK : MSM_ACC_G2_BLOCK;
    const unsigned grid = (unsigned)div_up(div_up(p->m0, p->L0), block);
    czk_cuda::msm_acc_points_kernel<A, X, block, 1>
        <<<grid, block, 0, g->stream>>>(buckets, pk, pv, keys, vals, pts, p->m0, p->L0, empty);
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
    size_t temp_bytes = p->bytes_sort;
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
        czk_cuda::msm_digits_kernel<<<(unsigned)div_up(p->n, 256), 256, 0, g->stream>>>(
            keys, vals, d_sc, idx, (uint32_t)p->n, p->c, w0, nw);
        CZK_CUDA_TRY(err, cudaGetLastError());
        if (w0 == 0)
            CZK_TRY(msm_mark(g, ev, EV_DIGITS, err));
        {
            /* The double-buffer form: the sorted pairs end in either copy, and CUB needs no
             * alternate buffers of its own (8 bytes an entry less scratch than the plain
             * form). */
            cub::DoubleBuffer<uint32_t> dk(keys, keys2), dv(vals, vals2);
            temp_bytes = p->bytes_sort;
            CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, dk, dv, (int)q.m0,
                                                              0, (int)p->end_bit, g->stream));
            sk = dk.Current();
            sv = dv.Current();
        }
        if (w0 == 0)
            CZK_TRY(msm_mark(g, ev, EV_SORT, err));
        msm_acc_launch<typename GR::A, X>(g, &q, gb, pk, pv, sk, sv, d_pts, empty);
        CZK_CUDA_TRY(err, cudaGetLastError());
        CZK_TRY(msm_reduce_partials<X>(g, &q, gb, pk, pv, pk2, pv2, empty, err));
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

/* CZK_OK when opts (NULL: the defaults) holds values an MSM takes. */
int msm_opts_check(const czk__gpu_msm_opts *opts, czk_err *err) {
    if (opts == NULL)
        return CZK_OK;
    if (opts->c != 0 && !msm_c_valid(opts->c))
        return czk_err_set(err, CZK_EINVAL, "MSM window %u outside [8, 22]", opts->c);
    if (opts->ones_levels_lg != 0 && (opts->ones_levels_lg < 10 || opts->ones_levels_lg > 32))
        return czk_err_set(err, CZK_EINVAL, "MSM ones' levels from 2^%u: outside [10, 32]",
                           opts->ones_levels_lg);
    return CZK_OK;
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

/* The fewest points the ones' levels run on (SIZE_MAX: none). */
size_t msm_tree_min(const czk__gpu_msm_opts *opts) {
    const unsigned lg =
        opts != NULL && opts->ones_levels_lg != 0 ? opts->ones_levels_lg : MSM_TREE_MIN_LG;
    return lg >= 32 ? SIZE_MAX : (size_t)1 << lg;
}

/* Pairs a thread of the ones' levels: MSM_ONES_K while that still gives 2^15 threads, else
 * MSM_ONES_K / 2 (a thread's pairs share one inversion, ~70 products). */
#define MSM_ONES_K 64

/* One batch-affine level, K pairs a thread; pref holds at least m/2 + 128·K field elements
 * (the threads' running products, K each, for a grid rounded up to blocks of 128). */
template <class A, unsigned K>
void msm_pairs_launch(czk_gpu *g, A *dst, const A *src, const uint32_t *idx, size_t m,
                      decltype(A::x) *pref) {
    const size_t threads = m / 2 / K + 1;
    czk_cuda::msm_affine_pairs_kernel<A, K>
        <<<(unsigned)div_up(threads, 128), 128, 0, g->stream>>>(dst, src, idx, m, pref);
}

/*
 * The sum of the ones, level by level in affine coordinates (msm.cuh, msm_affine_pairs_kernel)
 * while at least min_points are left (msm_tree_min) and the two ping-pong arrays and the running
 * products fit in [buf, buf + bytes): in, *src[*idx[j]] for j < *m; out, the points left (*idx
 * NULL, *m of them). Leaves the inputs as they are when it runs no level.
 */
template <class A>
int msm_ones_levels(czk_gpu *g, const A **src, const uint32_t **idx, size_t *m, char *buf,
                    size_t bytes, size_t min_points, czk_err *err) {
    typedef decltype(A::x) F;
    int rc = CZK_OK;
    const size_t half0 = div_up(*m, 2), quarter0 = div_up(half0, 2);
    const size_t need = (half0 + quarter0) * sizeof(A) + (*m / 2 + 128 * MSM_ONES_K) * sizeof(F);
    A *ping = (A *)buf, *pong = ping + half0;
    F *pref = (F *)(pong + quarter0);
    if (*m < min_points || need > bytes)
        return CZK_OK;
    while (*m >= min_points) {
        A *dst = *src == ping ? pong : ping;
        if (*m / 2 >= ((size_t)MSM_ONES_K << 15))
            msm_pairs_launch<A, MSM_ONES_K>(g, dst, *src, *idx, *m, pref);
        else
            msm_pairs_launch<A, MSM_ONES_K / 2>(g, dst, *src, *idx, *m, pref);
        CZK_CUDA_TRY(err, cudaGetLastError());
        *src = dst;
        *idx = nullptr;
        *m = div_up(*m, 2);
    }
out:
    return rc;
}

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
    X *ones_a, *ones_b, *ones_res;
    size_t sel_bytes, n_other = 0, n_one = 0;
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
    czk_cuda::msm_classify_kernel<<<(unsigned)div_up(n, 256), 256, 0, g->stream>>>(cls, d_sc,
                                                                                   (uint32_t)n);
    CZK_CUDA_TRY(err, cudaGetLastError());
    sel_bytes = l.select;
    CZK_CUDA_TRY(err, cub::DeviceSelect::If(
                          sel_temp, sel_bytes, thrust::counting_iterator<uint32_t>(0), idx_other,
                          d_counts, (int64_t)n, czk_cuda::msm_class_is{cls, 2}, g->stream));
    sel_bytes = l.select;
    CZK_CUDA_TRY(err, cub::DeviceSelect::If(
                          sel_temp, sel_bytes, thrust::counting_iterator<uint32_t>(0), idx_one,
                          d_counts + 1, (int64_t)n, czk_cuda::msm_class_is{cls, 1}, g->stream));
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
     * mixed additions, then a tree. */
    if (n_one > 0) {
        const typename GR::A *src = d_pts;
        const uint32_t *src_idx = idx_one;
        size_t m = n_one;
        CZK_TRY(msm_ones_levels<typename GR::A>(g, &src, &src_idx, &m, cur,
                                                scratch_bytes - (size_t)(cur - (char *)scratch),
                                                msm_tree_min(opts), err));
        size_t chunks = div_up(m, MSM_L_ONES);
        czk_cuda::msm_sum_ones_kernel<typename GR::A, X>
            <<<(unsigned)div_up(chunks, 128), 128, 0, g->stream>>>(ones_a, src_idx, src, m,
                                                                   MSM_L_ONES);
        CZK_CUDA_TRY(err, cudaGetLastError());
        CZK_TRY(msm_reduce_groups<X>(g, &ones_res, ones_a, ones_b, 1, chunks, err));
        CZK_CUDA_TRY(
            err, cudaMemcpyAsync(&ones, ones_res, sizeof(X), cudaMemcpyDeviceToHost, g->stream));
    }
    CZK_TRY(msm_mark(g, &ev, EV_ONES, err));

    /* 1-5 over the others, with the window their number calls for when it fits. */
    if (n_other > 0) {
        /* Their own window and chunk length first (fewer entries may want shorter chunks),
         * else the worst case's chunk length, whose partial sums the layout holds, else its
         * window too, which always fits; never more sort entries a group than the worst
         * case's pairs hold. */
        const unsigned c_other = msm_c_for(n_other, opts);
        const unsigned tries[3][2] = {{c_other, 0}, {c_other, pw.L0}, {pw.c, pw.L0}};
        bool fits = false;
        for (int t = 0; t < 3 && !fits; t++) {
            msm_plan_make(&pr, n_other, tries[t][0], sizeof(X), tries[t][1], pw.m0);
            CZK_TRY(msm_plan_sort(&pr, err));
            fits = msm_plan_fits(&pr, &l);
        }
        if (!fits) {
            rc =
                czk_err_set(err, CZK_EINVAL, "MSM of %zu others does not fit its scratch", n_other);
            goto out;
        }
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

} // namespace

int czk__gpu_msm_g1_check_n(size_t n, czk_err *err) {
    return msm_check_n(n, err);
}

int czk__gpu_msm_g2_check_n(size_t n, czk_err *err) {
    return msm_check_n(n, err);
}

int czk__gpu_msm_g1_scratch(czk_gpu *g, size_t n, size_t *bytes, czk_err *err) {
    return msm_scratch<msm_g1>(g, n, NULL, bytes, err);
}

int czk__gpu_msm_g2_scratch(czk_gpu *g, size_t n, size_t *bytes, czk_err *err) {
    return msm_scratch<msm_g2>(g, n, NULL, bytes, err);
}

int czk__gpu_msm_g1_run(czk_gpu *g, czk_g1_jacobian *out, const void *pts_dev, const void *sc_dev,
                        size_t n, void *scratch, size_t scratch_bytes, czk_err *err) {
    return msm_run<msm_g1>(g, out, pts_dev, sc_dev, n, scratch, scratch_bytes, NULL, err);
}

int czk__gpu_msm_g2_run(czk_gpu *g, czk_g2_jacobian *out, const void *pts_dev, const void *sc_dev,
                        size_t n, void *scratch, size_t scratch_bytes, czk_err *err) {
    return msm_run<msm_g2>(g, out, pts_dev, sc_dev, n, scratch, scratch_bytes, NULL, err);
}

int czk__gpu_msm_g1_scratch_opts(czk_gpu *g, size_t n, const czk__gpu_msm_opts *opts, size_t *bytes,
                                 czk_err *err) {
    return msm_scratch<msm_g1>(g, n, opts, bytes, err);
}

int czk__gpu_msm_g2_scratch_opts(czk_gpu *g, size_t n, const czk__gpu_msm_opts *opts, size_t *bytes,
                                 czk_err *err) {
    return msm_scratch<msm_g2>(g, n, opts, bytes, err);
}

int czk__gpu_msm_g1_run_opts(czk_gpu *g, czk_g1_jacobian *out, const void *pts_dev,
                             const void *sc_dev, size_t n, void *scratch, size_t scratch_bytes,
                             const czk__gpu_msm_opts *opts, czk_err *err) {
    return msm_run<msm_g1>(g, out, pts_dev, sc_dev, n, scratch, scratch_bytes, opts, err);
}

int czk__gpu_msm_g2_run_opts(czk_gpu *g, czk_g2_jacobian *out, const void *pts_dev,
                             const void *sc_dev, size_t n, void *scratch, size_t scratch_bytes,
                             const czk__gpu_msm_opts *opts, czk_err *err) {
    return msm_run<msm_g2>(g, out, pts_dev, sc_dev, n, scratch, scratch_bytes, opts, err);
}

/* Every MSM kernel of group GR, as cudaFuncGetAttributes takes, into fns (the first
 * MSM_KERNELS of them); returns how many there are. */
#define MSM_KERNELS 16
template <class GR> static size_t msm_kernels(const void *(&fns)[MSM_KERNELS]) {
    typedef typename GR::A A;
    typedef typename GR::X X;
    constexpr unsigned acc_block = sizeof(A) == 96 ? MSM_ACC_G1_BLOCK : MSM_ACC_G2_BLOCK;
    size_t k = 0;
    auto put = [&](const void *f) {
        if (k < MSM_KERNELS)
            fns[k] = f;
        k++;
    };
    put((const void *)czk_cuda::msm_affine_pairs_kernel<A, MSM_ONES_K>);
    put((const void *)czk_cuda::msm_affine_pairs_kernel<A, MSM_ONES_K / 2>);
    put((const void *)czk_cuda::msm_sum_ones_kernel<A, X>);
    put((const void *)czk_cuda::msm_acc_points_kernel<A, X, acc_block, 1>);
    put((const void *)czk_cuda::msm_acc_partials_kernel<X>);
    put((const void *)czk_cuda::msm_window_segments_kernel<X>);
    put((const void *)czk_cuda::msm_window_reduce_kernel<X>);
    put((const void *)czk_cuda::msm_window_combine_kernel<X>);
    return k;
}

int czk__gpu_msm_local_bytes(const czk_gpu *g, size_t *bytes, czk_err *err) {
    int rc = CZK_OK, threads = 0;
    size_t most = 0;
    const void *fns[2][MSM_KERNELS];
    const size_t n[2] = {msm_kernels<msm_g1>(fns[0]), msm_kernels<msm_g2>(fns[1])};
    *bytes = 0;
    if (n[0] > MSM_KERNELS || n[1] > MSM_KERNELS)
        return czk_err_set(err, CZK_EINTERNAL, "MSM kernel list longer than MSM_KERNELS (%d)",
                           MSM_KERNELS);
    for (size_t grp = 0; grp < 2; grp++) {
        for (size_t i = 0; i < n[grp]; i++) {
            cudaFuncAttributes fa;
            CZK_CUDA_TRY(err, cudaFuncGetAttributes(&fa, fns[grp][i]));
            most = fa.localSizeBytes > most ? fa.localSizeBytes : most;
        }
    }
    CZK_CUDA_TRY(
        err, cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, g->device));
    *bytes = most * (size_t)threads * (size_t)g->sm_count;
out:
    return rc;
}

extern "C" size_t czk_gpu_msm_g1_scratch_bytes(size_t n) {
    return msm_scratch_estimate<msm_g1>(n);
}

extern "C" size_t czk_gpu_msm_g2_scratch_bytes(size_t n) {
    return msm_scratch_estimate<msm_g2>(n);
}

extern "C" int czk_gpu_msm_g1_var(czk_gpu *g, czk_g1_jacobian *out, const czk_g1_affine *pts,
                                  const czk_fr *sc, size_t n, czk_gpu_mem where, czk_err *err) {
    return msm_var<msm_g1>(g, out, pts, sc, n, where, err);
}

extern "C" int czk_gpu_msm_g2_var(czk_gpu *g, czk_g2_jacobian *out, const czk_g2_affine *pts,
                                  const czk_fr *sc, size_t n, czk_gpu_mem where, czk_err *err) {
    return msm_var<msm_g2>(g, out, pts, sc, n, where, err);
}
