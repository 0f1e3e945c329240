/*
 * czk_gpu_ntt_var: plans the passes of ntt.cuh and runs them on the context's stream.
 */
#include <cuda_runtime.h>

#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/ntt/ntt.cuh"
#include "util/status.h"

using czk_cuda::fr_t;

static_assert((1u << NTT_POW_LEVEL_LG) == CZK__GPU_POW_LEVEL, "power-table levels differ");

static void fr_pow2k(czk_fr *r, const czk_fr *a, unsigned k) {
    *r = *a;
    for (unsigned i = 0; i < k; i++)
        czk_fr_sqr(r, r);
}

/* The passes of a transform of 2^lg elements: ceil(lg/10), the first ones a bit longer. */
static unsigned ntt_passes(unsigned lg) {
    return (lg + 9) / 10;
}
static unsigned ntt_pass_bits(unsigned lg, unsigned p) {
    return lg / ntt_passes(lg) + (p < lg % ntt_passes(lg) ? 1 : 0);
}

bool czk__gpu_ntt_flat_tables(unsigned lg) {
    /* Passes 1 .. P − 2 twist (the last does not) over N = 2^s, s what the passes before
     * left; flat above 2^14 (czk_gpu_ntt_var). */
    const unsigned P = ntt_passes(lg);
    unsigned s = lg;
    for (unsigned p = 1; p + 1 < P; p++) {
        s -= ntt_pass_bits(lg, p - 1);
        if (s > NTT_POW_LEVEL_LG)
            return true;
    }
    return false;
}

/*
 * The transform of 2^lg elements at d (device memory), forward or inverse (1/n included):
 * the inputs times pre^i first when pre is not NULL, the outputs times c·post^i (post NULL:
 * base 1; c NULL: 1), then the epilogue (ntt.cuh). Queued on the context's stream.
 */
static int ntt_run(czk_gpu *g, fr_t *d, unsigned lg, bool inverse, const czk_fr *omega,
                   const czk_fr *pre_base, const czk_fr *post_base, const czk_fr *post_c,
                   czk_cuda::ntt_epilogue ep, czk_err *err) {
    int rc = CZK_OK;
    const size_t n = (size_t)1 << lg;
    const unsigned levels = lg > NTT_POW_LEVEL_LG ? 2 : 1, k0 = lg < 10 ? lg : 10;
    const void *twist = NULL, *roots = NULL, *pre = NULL, *post = NULL;
    /* A table of base 1 holds c in every entry: one lookup, one multiplication. */
    const unsigned post_levels = post_base != NULL ? levels : 1;
    czk_fr w, wk0, c;
    unsigned passes, s;

    /* Twiddles: ω (or ω^-1) for the twists, ω_(2^k0) for the small transforms. */
    w = *omega;
    if (inverse)
        czk_fr_inv_var(&w, omega);
    fr_pow2k(&wk0, &w, lg - k0);
    CZK_TRY(czk__gpu_pow_table(g, &twist, &w, &CZK_FR_ONE, err));
    CZK_TRY(czk__gpu_pow_table(g, &roots, &wk0, &CZK_FR_ONE, err));
    if (pre_base != NULL)
        CZK_TRY(czk__gpu_pow_table(g, &pre, pre_base, &CZK_FR_ONE, err));
    c = post_c != NULL ? *post_c : CZK_FR_ONE;
    if (inverse) {
        czk_fr n_inv;
        czk_fr_set_u64(&n_inv, (uint64_t)n);
        czk_fr_inv_var(&n_inv, &n_inv);
        czk_fr_mul(&c, &c, &n_inv);
    }
    if (inverse || post_base != NULL || post_c != NULL)
        CZK_TRY(czk__gpu_pow_table(g, &post, post_base != NULL ? post_base : &CZK_FR_ONE, &c, err));

    passes = ntt_passes(lg);
    s = lg;
    for (unsigned p = 0; p < passes; p++) {
        unsigned k = ntt_pass_bits(lg, p);
        unsigned lgM = s - k;
        unsigned lgT = k >= NTT_PASS_LG_TILE ? 0 : NTT_PASS_LG_TILE - k;
        unsigned groups_lg = lg - k; /* lg of the number of columns over all groups */
        if (lgM > 0 && lgT > lgM)
            lgT = lgM;
        if (lgT > groups_lg)
            lgT = groups_lg;
        size_t smem = sizeof(fr_t) << (k + lgT);
        unsigned blocks = (unsigned)(n >> (k + lgT));
        /* This pass's twist table: ω_n's in the first pass, ω_N's (N = 2^s) after it. */
        const void *tw = lgM ? twist : nullptr;
        unsigned tw_shift = lg - s, tw_levels = levels;
        bool tw_flat = false;
        if (lgM > 0 && p > 0 && s <= CZK__GPU_FLAT_LG) {
            czk_fr wn;
            fr_pow2k(&wn, &w, lg - s);
            tw_shift = 0;
            tw_levels = 1;
            tw_flat = s > NTT_POW_LEVEL_LG;
            if (tw_flat)
                CZK_TRY(czk__gpu_pow_table_flat(g, &tw, &wn, &CZK_FR_ONE, err));
            else
                CZK_TRY(czk__gpu_pow_table(g, &tw, &wn, &CZK_FR_ONE, err));
        }
        CZK_CUDA_TRY(err,
                     cudaFuncSetAttribute(czk_cuda::ntt_dif_pass_kernel,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        czk_cuda::ntt_dif_pass_kernel<<<blocks, NTT_PASS_THREADS, smem, g->stream>>>(
            d, lg, s, k, lgT, (const fr_t *)roots, k0, (const fr_t *)tw,
            p == 0 ? (const fr_t *)pre : nullptr, levels, tw_shift, tw_levels, tw_flat);
        CZK_CUDA_TRY(err, cudaGetLastError());
        CZK_TRY(czk__gpu_yield(g, err));
        s -= k;
    }
    if (lg >= 10) {
        size_t smem = 2 * 32 * 64 * sizeof(uint4);
        CZK_CUDA_TRY(err,
                     cudaFuncSetAttribute(czk_cuda::ntt_bitrev_kernel,
                                          cudaFuncAttributeMaxDynamicSharedMemorySize, (int)smem));
        czk_cuda::ntt_bitrev_kernel<<<(unsigned)(n >> 10), 256, smem, g->stream>>>(
            d, lg, (const fr_t *)post, post_levels, ep);
    } else {
        czk_cuda::ntt_bitrev_small_kernel<<<1, (unsigned)n, 0, g->stream>>>(
            d, lg, (const fr_t *)post, post_levels, ep);
    }
    CZK_CUDA_TRY(err, cudaGetLastError());
out:
    return rc;
}

/* The checks every entry makes before a transform, then g's device made current. */
static int ntt_begin(czk_gpu *g, const void *a, const czk_fr *omega, unsigned lg, czk_err *err) {
    if (g == NULL || a == NULL || omega == NULL)
        return czk_err_set(err, CZK_EINVAL, "NULL argument");
    if (lg < CZK_GPU_NTT_MIN_LG || lg > CZK_GPU_NTT_MAX_LG)
        return czk_err_set(err, CZK_EINVAL, "lg %u outside [%d, %d]", lg, CZK_GPU_NTT_MIN_LG,
                           CZK_GPU_NTT_MAX_LG);
    return czk__gpu_enter(g, err);
}

extern "C" int czk_gpu_ntt_var(czk_gpu *g, czk_fr *a, czk_gpu_mem where, unsigned lg,
                               czk_gpu_ntt_kind kind, const czk_fr *omega, const czk_fr *shift,
                               czk_err *err) {
    int rc = CZK_OK;
    fr_t *d = NULL;
    const size_t n = (size_t)1 << lg, bytes = n * sizeof(czk_fr);
    const bool inverse = kind == CZK_GPU_NTT_INVERSE || kind == CZK_GPU_NTT_COSET_INVERSE;
    const bool coset = kind == CZK_GPU_NTT_COSET_FORWARD || kind == CZK_GPU_NTT_COSET_INVERSE;
    czk_fr ginv;

    if (coset && shift == NULL)
        return czk_err_set(err, CZK_EINVAL, "NULL argument");
    if ((unsigned)kind > CZK_GPU_NTT_COSET_INVERSE || (unsigned)where > CZK_GPU_MEM_DEVICE)
        return czk_err_set(err, CZK_EINVAL, "unknown NTT kind or memory kind");
    if (coset && czk_fr_is_zero(shift))
        return czk_err_set(err, CZK_EINVAL, "coset shift is zero");
    CZK_TRY(ntt_begin(g, a, omega, lg, err));
    if (kind == CZK_GPU_NTT_COSET_INVERSE)
        czk_fr_inv_var(&ginv, shift);

    if (where == CZK_GPU_MEM_HOST) {
        CZK_TRY(czk__gpu_malloc(g, (void **)&d, bytes, err));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d, a, bytes, cudaMemcpyHostToDevice, g->stream));
    } else {
        d = (fr_t *)a;
    }
    CZK_TRY(ntt_run(g, d, lg, inverse, omega, kind == CZK_GPU_NTT_COSET_FORWARD ? shift : NULL,
                    kind == CZK_GPU_NTT_COSET_INVERSE ? &ginv : NULL, NULL,
                    czk_cuda::ntt_epilogue{nullptr, nullptr, nullptr}, err));
    if (where == CZK_GPU_MEM_HOST)
        CZK_CUDA_TRY(err, cudaMemcpyAsync(a, d, bytes, cudaMemcpyDeviceToHost, g->stream));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
out:
    if (where == CZK_GPU_MEM_HOST && d != NULL) {
        (void)cudaStreamSynchronize(g->stream);
        czk__gpu_free(g, d, bytes);
    }
    return rc;
}

int czk__gpu_ntt_fused(czk_gpu *g, void *d, unsigned lg, bool inverse, const czk_fr *omega,
                       const czk_fr *post_base, const czk_fr *post_c, const void *mul,
                       const void *add, void *out, czk_err *err) {
    int rc = CZK_OK;
    CZK_TRY(ntt_begin(g, d, omega, lg, err));
    CZK_TRY(ntt_run(g, (fr_t *)d, lg, inverse, omega, NULL, post_base, post_c,
                    czk_cuda::ntt_epilogue{(const fr_t *)mul, (const fr_t *)add, (fr_t *)out},
                    err));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
out:
    return rc;
}
