/*
 * The sum of the points whose scalar is one, for the ones units (msm_g1_ones.cu,
 * msm_g2_ones.cu), which instantiate msm_ones and msm_ones_kernels (declared in msm_host.cuh)
 * for their group: the batch-affine levels (msm.cuh, msm_affine_pairs_kernel) and the chunk
 * sums (msm_sum_ones_kernel), compiled apart from the group's Pippenger kernels.
 */
#ifndef CZK_GPU_CUDA_MSM_MSM_ONES_CUH
#define CZK_GPU_CUDA_MSM_MSM_ONES_CUH

#include <cuda_runtime.h>
#include <stdint.h>

#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm.cuh"
#include "gpu/cuda/msm/msm_host.cuh"
#include "util/status.h"

/* Pairs a thread of the ones' levels: MSM_ONES_K while that still gives 2^15 threads, else
 * MSM_ONES_K / 2 (a thread's pairs share one inversion, ~70 products). */
#define MSM_ONES_K 64

namespace czk_msm {

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
        CZK_TRY(czk__gpu_yield(g, err));
    }
out:
    return rc;
}

template <class A, class X>
int msm_ones(czk_gpu *g, void *ones, const A *d_pts, const uint32_t *idx_one, size_t n_one,
             X *ones_a, X *ones_b, char *buf, size_t bytes, size_t min_points, czk_err *err) {
    int rc = CZK_OK;
    const A *src = d_pts;
    const uint32_t *src_idx = idx_one;
    size_t m = n_one, chunks;
    X *ones_res;
    CZK_TRY(msm_ones_levels<A>(g, &src, &src_idx, &m, buf, bytes, min_points, err));
    chunks = div_up(m, MSM_L_ONES);
    czk_cuda::msm_sum_ones_kernel<A, X>
        <<<(unsigned)div_up(chunks, 128), 128, 0, g->stream>>>(ones_a, src_idx, src, m, MSM_L_ONES);
    CZK_CUDA_TRY(err, cudaGetLastError());
    CZK_TRY(msm_reduce_groups<X>(g, &ones_res, ones_a, ones_b, 1, chunks, err));
    CZK_CUDA_TRY(err,
                 cudaMemcpyAsync(ones, ones_res, sizeof(X), cudaMemcpyDeviceToHost, g->stream));
out:
    return rc;
}

template <class A, class X> size_t msm_ones_kernels(const void *(&fns)[MSM_KERNELS], size_t k) {
    auto put = [&](const void *f) {
        if (k < MSM_KERNELS)
            fns[k] = f;
        k++;
    };
    put((const void *)czk_cuda::msm_affine_pairs_kernel<A, MSM_ONES_K>);
    put((const void *)czk_cuda::msm_affine_pairs_kernel<A, MSM_ONES_K / 2>);
    put((const void *)czk_cuda::msm_sum_ones_kernel<A, X>);
    return k;
}

} // namespace czk_msm

#endif /* CZK_GPU_CUDA_MSM_MSM_ONES_CUH */
