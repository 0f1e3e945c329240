/*
 * The sum of the ones of G1 (points over Fp): msm_ones.cuh's msm_ones and msm_ones_kernels
 * instantiated for the group, and with them its batch-affine and chunk-sum kernels of msm.cuh.
 * A unit of its own so that these kernels compile in parallel with the group's Pippenger ones
 * (msm_g1.cu, which calls msm_ones through the declaration in msm_host.cuh).
 */
#include "gpu/cuda/msm/msm_ones.cuh"

template int czk_msm::msm_ones<czk_cuda::g1_affine_t, czk_cuda::g1_xyzz_t>(
    czk_gpu *g, void *ones, const czk_cuda::g1_affine_t *d_pts, const uint32_t *idx_one,
    size_t n_one, czk_cuda::g1_xyzz_t *ones_a, czk_cuda::g1_xyzz_t *ones_b, char *buf, size_t bytes,
    size_t min_points, czk_err *err);

template size_t czk_msm::msm_ones_kernels<czk_cuda::g1_affine_t, czk_cuda::g1_xyzz_t>(
    const void *(&fns)[MSM_KERNELS], size_t k);
