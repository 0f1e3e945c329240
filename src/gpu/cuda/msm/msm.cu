/*
 * czk_gpu_msm_g1_var: plans the window, allocates the scratch once per call and runs the
 * kernels of msm.cuh on the context's stream; the last few point additions run on the host.
 */
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>
#include <string.h>

#include "curve/g1.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm.cuh"
#include "util/status.h"

using czk_cuda::fp_t;
using czk_cuda::fr_t;
using czk_cuda::g1_affine_t;
using czk_cuda::g1_xyzz_t;

/* Sorted entries per thread in the first accumulation level, and in the later ones. */
#define MSM_L0 64
#define MSM_L1 16
/* Buckets per thread when turning buckets into window sums (2^5). */
#define MSM_LG_SEGMENT 5
/* Entries one block adds up when reducing the segment sums. */
#define MSM_REDUCE 128

static_assert(sizeof(g1_xyzz_t) == sizeof(czk_g1_xyzz), "XYZZ layouts differ");
static_assert(sizeof(g1_affine_t) == sizeof(czk_g1_affine), "affine layouts differ");
static_assert(sizeof(fr_t) == sizeof(czk_fr), "Fr layouts differ");

namespace {

/* Every size the call needs, from n alone. */
struct msm_plan {
    unsigned c, nwin, lgG, end_bit;
    size_t n, m0, m1, m2, half, G;
    size_t bytes_pairs, bytes_buckets, bytes_partials, bytes_segments;
};

size_t div_up(size_t a, size_t b) {
    return (a + b - 1) / b;
}

/*
 * Window c minimising W·(n + 3·2^(c−1)) mixed-addition equivalents: one per non-zero digit
 * plus about three per bucket for the running sums (a full addition costs about 1.4 mixed
 * ones). Measured tuning is still to be done on the H200.
 */
void msm_plan_make(msm_plan *p, size_t n) {
    double best = 0;
    p->c = 8;
    for (unsigned c = 8; c <= 22; c++) {
        unsigned w = (256 + c - 1) / c;
        double cost = (double)w * ((double)n + 3.0 * (double)((size_t)1 << (c - 1)));
        if (c == 8 || cost < best) {
            best = cost;
            p->c = c;
        }
    }
    p->n = n;
    p->nwin = (256 + p->c - 1) / p->c;
    p->half = (size_t)1 << (p->c - 1);
    p->lgG = p->c - 1 > MSM_LG_SEGMENT ? p->c - 1 - MSM_LG_SEGMENT : 0;
    p->G = (size_t)1 << p->lgG;
    p->m0 = (size_t)p->nwin * n;
    p->m1 = 2 * div_up(p->m0, MSM_L0);
    p->m2 = 2 * div_up(p->m1, MSM_L1);
    size_t empty = (size_t)p->nwin * p->half;
    p->end_bit = 1;
    while (((size_t)1 << p->end_bit) <= empty)
        p->end_bit++;
    p->bytes_pairs = 4 * p->m0 * sizeof(uint32_t); /* keys, values, and sorted copies */
    p->bytes_buckets = (size_t)p->nwin * p->half * sizeof(g1_xyzz_t);
    p->bytes_partials = (p->m1 + p->m2) * (sizeof(uint32_t) + sizeof(g1_xyzz_t));
    p->bytes_segments = 2 * (size_t)p->nwin * p->G * sizeof(g1_xyzz_t);
}

/* Sums partial buckets level by level until one chunk is left (msm.cuh, step 4). */
int msm_reduce_partials(czk_gpu *g, const msm_plan *p, g1_xyzz_t *buckets, uint32_t *ka,
                        g1_xyzz_t *va, uint32_t *kb, g1_xyzz_t *vb, czk_err *err) {
    int rc = CZK_OK;
    size_t m = p->m1;
    const uint32_t empty = (uint32_t)(p->nwin * p->half);
    for (;;) {
        size_t chunks = div_up(m, MSM_L1);
        czk_cuda::msm_acc_partials_kernel<<<(unsigned)div_up(chunks, 128), 128, 0, g->stream>>>(
            buckets, kb, vb, ka, va, m, MSM_L1, empty);
        CZK_CUDA_TRY(err, cudaGetLastError());
        if (m <= MSM_L1)
            break;
        m = 2 * chunks;
        uint32_t *tk = ka;
        ka = kb;
        kb = tk;
        g1_xyzz_t *tv = va;
        va = vb;
        vb = tv;
    }
out:
    return rc;
}

} // namespace

/* Sub-buffers of the scratch are aligned to this many bytes. */
#define MSM_ALIGN ((size_t)256)

static size_t align_up(size_t x) {
    return (x + MSM_ALIGN - 1) & ~(MSM_ALIGN - 1);
}

/* CUB's temporary storage for the sort of a plan (a host-side query on the current device). */
static int msm_sort_temp(const msm_plan *p, size_t *bytes, czk_err *err) {
    int rc = CZK_OK;
    *bytes = 0;
    CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(
                          nullptr, *bytes, (const uint32_t *)nullptr, (uint32_t *)nullptr,
                          (const uint32_t *)nullptr, (uint32_t *)nullptr, (int)p->m0, 0,
                          (int)p->end_bit, (cudaStream_t)0));
out:
    return rc;
}

static size_t msm_scratch_total(const msm_plan *p, size_t temp_bytes) {
    return align_up(p->bytes_pairs) + align_up(temp_bytes) + align_up(p->bytes_buckets) +
           align_up((p->m1 + p->m2) * sizeof(uint32_t)) +
           align_up((p->m1 + p->m2) * sizeof(g1_xyzz_t)) + align_up(p->bytes_segments);
}

int czk__gpu_msm_g1_check_n(size_t n, czk_err *err) {
    msm_plan p;
    if (n > ((size_t)1 << 31) - 1)
        return czk_err_set(err, CZK_EINVAL, "n = %zu above 2^31 - 1", n);
    if (n == 0)
        return CZK_OK;
    msm_plan_make(&p, n);
    if (p.m0 > (size_t)0x7fffffff)
        return czk_err_set(err, CZK_EINVAL, "n = %zu too large for one sort", n);
    return CZK_OK;
}

int czk__gpu_msm_g1_scratch(czk_gpu *g, size_t n, size_t *bytes, czk_err *err) {
    int rc = CZK_OK;
    msm_plan p;
    size_t temp = 0;
    *bytes = 0;
    if (n == 0)
        return CZK_OK;
    CZK_TRY(czk__gpu_msm_g1_check_n(n, err));
    CZK_TRY(czk__gpu_enter(g, err));
    msm_plan_make(&p, n);
    CZK_TRY(msm_sort_temp(&p, &temp, err));
    *bytes = msm_scratch_total(&p, temp);
out:
    return rc;
}

int czk__gpu_msm_g1_run(czk_gpu *g, czk_g1_jacobian *out, const void *pts_dev, const void *sc_dev,
                        size_t n, void *scratch, size_t scratch_bytes, czk_err *err) {
    int rc = CZK_OK;
    msm_plan p;
    const g1_affine_t *d_pts = (const g1_affine_t *)pts_dev;
    const fr_t *d_sc = (const fr_t *)sc_dev;
    uint32_t *keys, *vals, *keys2, *vals2;
    void *d_temp;
    size_t temp_bytes = 0;
    g1_xyzz_t *buckets, *seg, *seg2;
    uint32_t *pk, *pk2;
    g1_xyzz_t *pv, *pv2;
    czk_g1_xyzz win[64], acc;
    czk_g1_affine aff;
    uint32_t empty;
    char *cur = (char *)scratch;

    if (n == 0) {
        czk_g1_jacobian_set_infinity(out);
        return CZK_OK;
    }
    CZK_TRY(czk__gpu_msm_g1_check_n(n, err));
    msm_plan_make(&p, n);
    empty = (uint32_t)(p.nwin * p.half);
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_TRY(msm_sort_temp(&p, &temp_bytes, err));
    if (scratch == NULL || msm_scratch_total(&p, temp_bytes) > scratch_bytes) {
        rc = czk_err_set(err, CZK_EINVAL, "MSM of %zu points needs %zu scratch bytes, got %zu", n,
                         msm_scratch_total(&p, temp_bytes), scratch_bytes);
        goto out;
    }

    keys = (uint32_t *)cur;
    cur += align_up(p.bytes_pairs);
    vals = keys + p.m0;
    keys2 = vals + p.m0;
    vals2 = keys2 + p.m0;
    d_temp = cur;
    cur += align_up(temp_bytes);
    buckets = (g1_xyzz_t *)cur;
    cur += align_up(p.bytes_buckets);
    pk = (uint32_t *)cur;
    cur += align_up((p.m1 + p.m2) * sizeof(uint32_t));
    pk2 = pk + p.m1;
    pv = (g1_xyzz_t *)cur;
    cur += align_up((p.m1 + p.m2) * sizeof(g1_xyzz_t));
    pv2 = pv + p.m1;
    seg = (g1_xyzz_t *)cur;
    seg2 = seg + (size_t)p.nwin * p.G;

    /* 1-2: digits, then one sort of every window's (bucket, point) pairs. */
    czk_cuda::msm_digits_kernel<<<(unsigned)div_up(n, 256), 256, 0, g->stream>>>(
        keys, vals, d_sc, (uint32_t)n, p.c, p.nwin);
    CZK_CUDA_TRY(err, cudaGetLastError());
    CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(d_temp, temp_bytes, keys, keys2, vals, vals2,
                                                      (int)p.m0, 0, (int)p.end_bit, g->stream));

    /* 3-4: balanced bucket accumulation. */
    CZK_CUDA_TRY(err, cudaMemsetAsync(buckets, 0, p.bytes_buckets, g->stream));
    {
        size_t chunks = div_up(p.m0, MSM_L0);
        czk_cuda::msm_acc_points_kernel<<<(unsigned)div_up(chunks, 128), 128, 0, g->stream>>>(
            buckets, pk, pv, keys2, vals2, d_pts, p.m0, MSM_L0, empty);
        CZK_CUDA_TRY(err, cudaGetLastError());
    }
    CZK_TRY(msm_reduce_partials(g, &p, buckets, pk, pv, pk2, pv2, err));

    /* 5: window sums. */
    {
        size_t threads = (size_t)p.nwin * p.G;
        czk_cuda::msm_window_segments_kernel<<<(unsigned)div_up(threads, 128), 128, 0, g->stream>>>(
            seg, buckets, p.c, p.nwin, p.lgG);
        CZK_CUDA_TRY(err, cudaGetLastError());
        size_t G = p.G;
        g1_xyzz_t *src = seg, *dst = seg2;
        while (G > 1) {
            size_t G2 = div_up(G, MSM_REDUCE);
            czk_cuda::
                msm_window_reduce_kernel<<<(unsigned)(p.nwin * G2), MSM_REDUCE, 0, g->stream>>>(
                    dst, src, (uint32_t)G, (uint32_t)G2);
            CZK_CUDA_TRY(err, cudaGetLastError());
            G = G2;
            g1_xyzz_t *t = src;
            src = dst;
            dst = t;
        }
        CZK_CUDA_TRY(err, cudaMemcpyAsync(win, src, p.nwin * sizeof(g1_xyzz_t),
                                          cudaMemcpyDeviceToHost, g->stream));
    }
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));

    /* 6: Σ 2^(c·w)·S_w by Horner on the host. */
    acc = win[p.nwin - 1];
    for (int w = (int)p.nwin - 2; w >= 0; w--) {
        for (unsigned i = 0; i < p.c; i++)
            czk_g1_xyzz_dbl(&acc, &acc);
        czk_g1_xyzz_add_var(&acc, &acc, &win[w]);
    }
    czk_g1_xyzz_to_affine(&aff, &acc);
    czk_g1_jacobian_from_affine(out, &aff);
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    return rc;
}

extern "C" size_t czk_gpu_msm_g1_scratch_bytes(size_t n) {
    msm_plan p;
    if (n == 0)
        return 0;
    msm_plan_make(&p, n);
    /* CUB's radix sort adds alternate key/value buffers (8 bytes an entry) and a few MiB;
     * the exact figure needs a device (czk__gpu_msm_g1_scratch). */
    return msm_scratch_total(&p, 8 * p.m0 + ((size_t)64 << 20));
}

extern "C" int czk_gpu_msm_g1_var(czk_gpu *g, czk_g1_jacobian *out, const czk_g1_affine *pts,
                                  const czk_fr *sc, size_t n, czk_gpu_mem where, czk_err *err) {
    int rc = CZK_OK;
    void *d_pts = NULL, *d_sc = NULL, *scratch = NULL;
    size_t scratch_bytes = 0;

    if (g == NULL || out == NULL || (n > 0 && (pts == NULL || sc == NULL)))
        return czk_err_set(err, CZK_EINVAL, "NULL argument");
    if ((unsigned)where > CZK_GPU_MEM_DEVICE)
        return czk_err_set(err, CZK_EINVAL, "unknown memory kind");
    if (n == 0) {
        czk_g1_jacobian_set_infinity(out);
        return CZK_OK;
    }
    CZK_TRY(czk__gpu_msm_g1_check_n(n, err));
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_TRY(czk__gpu_msm_g1_scratch(g, n, &scratch_bytes, err));
    if (where == CZK_GPU_MEM_HOST) {
        CZK_TRY(czk__gpu_malloc(g, &d_pts, n * sizeof(czk_g1_affine), err));
        CZK_TRY(czk__gpu_malloc(g, &d_sc, n * sizeof(czk_fr), err));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d_pts, pts, n * sizeof(czk_g1_affine),
                                          cudaMemcpyHostToDevice, g->stream));
        CZK_CUDA_TRY(
            err, cudaMemcpyAsync(d_sc, sc, n * sizeof(czk_fr), cudaMemcpyHostToDevice, g->stream));
    } else {
        d_pts = (void *)pts;
        d_sc = (void *)sc;
    }
    CZK_TRY(czk__gpu_malloc(g, &scratch, scratch_bytes, err));
    CZK_TRY(czk__gpu_msm_g1_run(g, out, d_pts, d_sc, n, scratch, scratch_bytes, err));
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    czk__gpu_free(g, scratch, scratch_bytes);
    if (where == CZK_GPU_MEM_HOST) {
        czk__gpu_free(g, d_sc, n * sizeof(czk_fr));
        czk__gpu_free(g, d_pts, n * sizeof(czk_g1_affine));
    }
    return rc;
}
