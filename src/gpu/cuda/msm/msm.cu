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

extern "C" size_t czk_gpu_msm_g1_scratch_bytes(size_t n) {
    msm_plan p;
    if (n == 0)
        return 0;
    msm_plan_make(&p, n);
    /* CUB's radix sort adds a few MiB of temporary storage; 64 MiB is a safe bound. */
    return p.bytes_pairs + p.bytes_buckets + p.bytes_partials + p.bytes_segments +
           ((size_t)64 << 20);
}

extern "C" int czk_gpu_msm_g1_var(czk_gpu *g, czk_g1_jacobian *out, const czk_g1_affine *pts,
                                  const czk_fr *sc, size_t n, czk_gpu_mem where, czk_err *err) {
    int rc = CZK_OK;
    msm_plan p;
    g1_affine_t *d_pts = NULL;
    fr_t *d_sc = NULL;
    uint32_t *keys = NULL, *vals = NULL, *keys2, *vals2;
    void *d_temp = NULL;
    size_t temp_bytes = 0;
    g1_xyzz_t *buckets = NULL, *seg = NULL, *seg2;
    uint32_t *pk = NULL, *pk2;
    g1_xyzz_t *pv = NULL, *pv2 = NULL;
    czk_g1_xyzz win[64], acc;
    czk_g1_affine aff;
    uint32_t empty;

    if (g == NULL || out == NULL || (n > 0 && (pts == NULL || sc == NULL)))
        return czk_err_set(err, CZK_EINVAL, "NULL argument");
    if ((unsigned)where > CZK_GPU_MEM_DEVICE)
        return czk_err_set(err, CZK_EINVAL, "unknown memory kind");
    if (n == 0) {
        czk_g1_jacobian_set_infinity(out);
        return CZK_OK;
    }
    if (n > ((size_t)1 << 31) - 1)
        return czk_err_set(err, CZK_EINVAL, "n = %zu above 2^31 - 1", n);
    msm_plan_make(&p, n);
    if (p.m0 > (size_t)0x7fffffff)
        return czk_err_set(err, CZK_EINVAL, "n = %zu too large for one sort", n);
    empty = (uint32_t)(p.nwin * p.half);
    CZK_TRY(czk__gpu_enter(g, err));

    if (where == CZK_GPU_MEM_HOST) {
        CZK_TRY(czk__gpu_malloc(g, (void **)&d_pts, n * sizeof(*d_pts), err));
        CZK_TRY(czk__gpu_malloc(g, (void **)&d_sc, n * sizeof(*d_sc), err));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d_pts, pts, n * sizeof(*d_pts), cudaMemcpyHostToDevice,
                                          g->stream));
        CZK_CUDA_TRY(
            err, cudaMemcpyAsync(d_sc, sc, n * sizeof(*d_sc), cudaMemcpyHostToDevice, g->stream));
    } else {
        d_pts = (g1_affine_t *)pts;
        d_sc = (fr_t *)sc;
    }

    CZK_TRY(czk__gpu_malloc(g, (void **)&keys, p.bytes_pairs, err));
    vals = keys + p.m0;
    keys2 = vals + p.m0;
    vals2 = keys2 + p.m0;
    CZK_CUDA_TRY(err, cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys, keys2, vals, vals2,
                                                      (int)p.m0, 0, (int)p.end_bit, g->stream));
    CZK_TRY(czk__gpu_malloc(g, &d_temp, temp_bytes, err));
    CZK_TRY(czk__gpu_malloc(g, (void **)&buckets, p.bytes_buckets, err));
    CZK_TRY(czk__gpu_malloc(g, (void **)&pk, (p.m1 + p.m2) * sizeof(uint32_t), err));
    pk2 = pk + p.m1;
    CZK_TRY(czk__gpu_malloc(g, (void **)&pv, (p.m1 + p.m2) * sizeof(g1_xyzz_t), err));
    pv2 = pv + p.m1;
    CZK_TRY(czk__gpu_malloc(g, (void **)&seg, p.bytes_segments, err));
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
    czk__gpu_free(g, seg, p.bytes_segments);
    czk__gpu_free(g, pv, (p.m1 + p.m2) * sizeof(g1_xyzz_t));
    czk__gpu_free(g, pk, (p.m1 + p.m2) * sizeof(uint32_t));
    czk__gpu_free(g, buckets, p.bytes_buckets);
    czk__gpu_free(g, d_temp, temp_bytes);
    czk__gpu_free(g, keys, p.bytes_pairs);
    if (where == CZK_GPU_MEM_HOST) {
        czk__gpu_free(g, d_sc, n * sizeof(*d_sc));
        czk__gpu_free(g, d_pts, n * sizeof(*d_pts));
    }
    return rc;
}
