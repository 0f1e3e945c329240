/*
 * The group-independent part of the MSM (msm_host.cuh lists the units): the kernels over the
 * scalars alone (step 0's classification, step 1's digits), CUB's select and radix sort (their
 * storage queries and launches), the plan and the scratch layout, the checks of n and of the
 * options, the profile's events, and czk__gpu_msm_local_bytes over both groups' kernels.
 */
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <string.h>
#include <thrust/iterator/counting_iterator.h>

#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm.cuh"
#include "gpu/cuda/msm/msm_host.cuh"
#include "util/status.h"

static_assert(sizeof(czk_cuda::fr_t) == sizeof(czk_fr), "Fr layouts differ");

/* Steps 0 and 1 of msm.cuh, defined here: not templates, so a definition in msm.cuh, which
 * every MSM unit includes, would give each unit a copy and the library duplicate host stubs
 * (those of kernels that are not templates are external symbols). */
namespace czk_cuda {

/* Bits c·w .. c·w + c − 1 (c <= 24) of the 256-bit little-endian integer s. */
__device__ __forceinline__ uint32_t scalar_bits(const uint32_t s[8], unsigned pos, unsigned c) {
    unsigned limb = pos >> 5, sh = pos & 31;
    uint64_t v = s[limb];
    if (limb + 1 < 8)
        v |= (uint64_t)s[limb + 1] << 32;
    return (uint32_t)(v >> sh) & ((1u << c) - 1);
}

/*
 * Step 0 (the split): cls[i] = 0 for a zero scalar, 1 for a scalar equal to one (its
 * Montgomery form is R mod r), 2 for any other.
 */
__global__ void __launch_bounds__(256)
    msm_classify_kernel(uint8_t *cls, const fr_t *scalars, uint32_t n) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t s = fr_t::load_ro(scalars + i);
    cls[i] = s.is_zero() ? 0 : s.equal(fr_t::one()) ? 1 : 2;
}

/* Selects the indices i whose class is `want` (for cub::DeviceSelect::If). */
struct msm_class_is {
    const uint8_t *cls;
    uint8_t want;
    __host__ __device__ __forceinline__ bool operator()(uint32_t i) const {
        return cls[i] == want;
    }
};

/*
 * Step 1 over the m "other" scalars, for the windows w0 .. w0 + nw − 1: thread j reads scalar
 * idx[j]; its pairs for window w sit at (w − w0)·m + j, keyed from the group's first window
 * ((w − w0)·2^(c−1) + |d| − 1, EMPTY = nw·2^(c−1)), and the value keeps the point index idx[j].
 * The windows below w0 are recoded too, for their carries.
 */
__global__ void __launch_bounds__(256)
    msm_digits_kernel(uint32_t *keys, uint32_t *vals, const fr_t *scalars, const uint32_t *idx,
                      uint32_t m, unsigned c, unsigned w0, unsigned nw) {
    uint32_t j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= m)
        return;
    const uint32_t i = idx[j];
    fr_t s = fr_t::load_ro(scalars + i).from_mont();
    const uint32_t half = 1u << (c - 1), empty = nw * half;
    uint32_t carry = 0;
    for (unsigned w = 0; w < w0 + nw; w++) {
        uint32_t d = (w * c < 256 ? scalar_bits(s.l, w * c, c) : 0) + carry;
        uint32_t neg = 0;
        carry = 0;
        if (d > half) {
            d = (1u << c) - d;
            neg = 1;
            carry = 1;
        }
        if (w < w0)
            continue;
        size_t o = (size_t)(w - w0) * m + j;
        keys[o] = d == 0 ? empty : (w - w0) * half + d - 1;
        vals[o] = i | (neg << 31);
    }
}

} // namespace czk_cuda

namespace {

using czk_msm::div_up;

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

/* Chunk sums of the ones: level 0 has ceil(n / MSM_L_ONES); the first reduction 1/128 of it. */
size_t msm_ones_slots(size_t n) {
    size_t c0 = div_up(n, MSM_L_ONES);
    return c0 + div_up(c0, MSM_REDUCE);
}

} // namespace

namespace czk_msm {

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

unsigned msm_c_for(size_t n, const czk__gpu_msm_opts *opts) {
    return opts != NULL && opts->c != 0 ? opts->c : msm_pick_c(n);
}

void msm_plan_make(msm_plan *p, size_t n, unsigned c, size_t xs, unsigned L0, size_t entries) {
    unsigned lgn = c - 1, k = 0;
    size_t off = 0, gw;
    p->c = c;
    p->n = n;
    p->piece = 0;
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

int msm_select_temp(size_t n, size_t *bytes, czk_err *err) {
    int rc = CZK_OK;
    *bytes = 0;
    CZK_CUDA_TRY(err, cub::DeviceSelect::If(nullptr, *bytes, thrust::counting_iterator<uint32_t>(0),
                                            (uint32_t *)nullptr, (int64_t *)nullptr, (int64_t)n,
                                            czk_cuda::msm_class_is{nullptr, 0}, (cudaStream_t)0));
out:
    return rc;
}

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

bool msm_plan_fits(const msm_plan *p, const msm_layout *l) {
    return p->bytes_pairs <= l->pairs && p->bytes_sort <= l->sort &&
           p->bytes_buckets <= l->buckets && p->bytes_pkeys <= l->pkeys &&
           p->bytes_pvals <= l->pvals && p->bytes_segments <= l->segments;
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

int msm_mark(czk_gpu *g, msm_events *e, int k, czk_err *err) {
    int rc = CZK_OK;
    if (e->ev[k] != NULL)
        CZK_CUDA_TRY(err, cudaEventRecord(e->ev[k], g->stream));
out:
    return rc;
}

float msm_elapsed(const msm_events *e, int a, int b) {
    float ms = 0;
    if (e->ev[a] == NULL || cudaEventElapsedTime(&ms, e->ev[a], e->ev[b]) != cudaSuccess)
        return 0;
    return ms;
}

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

size_t msm_tree_min(const czk__gpu_msm_opts *opts) {
    const unsigned lg =
        opts != NULL && opts->ones_levels_lg != 0 ? opts->ones_levels_lg : MSM_TREE_MIN_LG;
    return lg >= 32 ? SIZE_MAX : (size_t)1 << lg;
}

int msm_split(czk_gpu *g, uint8_t *cls, const fr_t *d_sc, size_t n, void *sel_temp,
              size_t select_bytes, uint32_t *idx_other, uint32_t *idx_one, int64_t *d_counts,
              czk_err *err) {
    int rc = CZK_OK;
    size_t sel_bytes;

    czk_cuda::msm_classify_kernel<<<(unsigned)div_up(n, 256), 256, 0, g->stream>>>(cls, d_sc,
                                                                                   (uint32_t)n);
    CZK_CUDA_TRY(err, cudaGetLastError());
    sel_bytes = select_bytes;
    CZK_CUDA_TRY(err, cub::DeviceSelect::If(
                          sel_temp, sel_bytes, thrust::counting_iterator<uint32_t>(0), idx_other,
                          d_counts, (int64_t)n, czk_cuda::msm_class_is{cls, 2}, g->stream));
    sel_bytes = select_bytes;
    CZK_CUDA_TRY(err, cub::DeviceSelect::If(
                          sel_temp, sel_bytes, thrust::counting_iterator<uint32_t>(0), idx_one,
                          d_counts + 1, (int64_t)n, czk_cuda::msm_class_is{cls, 1}, g->stream));
out:
    return rc;
}

int msm_digits(czk_gpu *g, const msm_plan *p, uint32_t *keys, uint32_t *vals, const fr_t *d_sc,
               const uint32_t *idx, unsigned w0, unsigned nw, czk_err *err) {
    int rc = CZK_OK;
    czk_cuda::msm_digits_kernel<<<(unsigned)div_up(p->n, 256), 256, 0, g->stream>>>(
        keys, vals, d_sc, idx, (uint32_t)p->n, p->c, w0, nw);
    CZK_CUDA_TRY(err, cudaGetLastError());
out:
    return rc;
}

int msm_sort(czk_gpu *g, const msm_plan *p, const msm_plan *q, void *d_temp, uint32_t *keys,
             uint32_t *vals, uint32_t *keys2, uint32_t *vals2, uint32_t **sk, uint32_t **sv,
             czk_err *err) {
    int rc = CZK_OK;
    size_t temp_bytes = p->bytes_sort;
    /* The double-buffer form: the sorted pairs end in either copy, and CUB needs no
     * alternate buffers of its own (8 bytes an entry less scratch than the plain
     * form). */
    cub::DoubleBuffer<uint32_t> dk(keys, keys2), dv(vals, vals2);
    CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, dk, dv, (int)q->m0, 0,
                                                      (int)p->end_bit, g->stream));
    *sk = dk.Current();
    *sv = dv.Current();
out:
    return rc;
}

} // namespace czk_msm

using czk_msm::msm_check_n;

int czk__gpu_msm_g1_check_n(size_t n, czk_err *err) {
    return msm_check_n(n, err);
}

int czk__gpu_msm_g2_check_n(size_t n, czk_err *err) {
    return msm_check_n(n, err);
}

int czk__gpu_msm_local_bytes(const czk_gpu *g, size_t *bytes, czk_err *err) {
    int rc = CZK_OK, threads = 0;
    size_t most = 0;
    const void *fns[2][MSM_KERNELS];
    const size_t n[2] = {czk_msm::msm_kernels_g1(fns[0]), czk_msm::msm_kernels_g2(fns[1])};
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
