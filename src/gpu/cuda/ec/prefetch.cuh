/*
 * Staging an affine point in shared memory while the thread still works on the previous one:
 * the MSM's bucket accumulation (msm/msm.cuh) and the fixed-base multiplication
 * (setup/fixed_base.cu) read points once each, at random, so the copies bypass L1.
 */
#ifndef CZK_GPU_CUDA_EC_PREFETCH_CUH
#define CZK_GPU_CUDA_EC_PREFETCH_CUH

#include <stdint.h>

namespace czk_cuda {

/* 16-byte asynchronous copy global -> shared (sm_80+), cached in L2 only. */
__device__ __forceinline__ void cp_async16(void *smem, const void *gmem) {
    uint32_t s = (uint32_t)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
    asm volatile("cp.async.commit_group;" ::: "memory");
}
__device__ __forceinline__ void cp_async_wait_all() {
    asm volatile("cp.async.wait_group 0;" ::: "memory");
}

/* Starts copying affine point *src to *dst (shared), as one commit group. */
template <class A> __device__ __forceinline__ void prefetch_point(A *dst, const A *src) {
    static_assert(sizeof(A) % 16 == 0, "points copy in 16-byte pieces");
    const char *g = reinterpret_cast<const char *>(src);
    char *d = reinterpret_cast<char *>(dst);
#pragma unroll
    for (unsigned o = 0; o < sizeof(A); o += 16)
        cp_async16(d + o, g + o);
    cp_async_commit();
}

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_EC_PREFETCH_CUH */
