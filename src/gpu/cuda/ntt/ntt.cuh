/*
 * NTT kernels over Fr: radix-2^k decimation-in-frequency passes in shared memory and a tiled
 * bit-reversal permutation.
 *
 * DESIGN. A transform of n = 2^L elements runs ceil(L/10) passes of k <= 10 bits each, top
 * bits first, then one bit-reversal pass; lg 27 is three passes of 9 bits plus the
 * permutation, each one read and one write of the array.
 *
 * A pass on bits [s−k, s) treats the array as independent sub-transforms of size N = 2^s
 * and splits each as N = 2^k·M (Gentleman and Sande, "Fast Fourier transforms: for fun and
 * profit", AFIPS 1966; the four-step form of Bailey, "FFTs in external or hierarchical
 * memory", 1990). For every "column" lo < M the 2^k elements x[lo + M·j] go through a plain
 * size-2^k DIF transform whose twiddles are powers of ω_(2^k) only (a table of 512 entries),
 * and output k1 (stored at bit-reversed position j = rev_k(k1)) is then twisted by
 * ω_N^(lo·k1). That is exactly what k radix-2 DIF stages with their full twiddles compute,
 * at one multiplication per element for the twist instead of one extra per butterfly, and
 * the last stage of each small transform multiplies by nothing. Twists are ω_n^e for
 * e < 2^28, read as at most two entries of a cached power table (internal.cuh). Products
 * use mont.cuh's mul_wide (the same result as operator*, in fewer instructions: 64-bit
 * multiply-adds).
 *
 * A block loads T columns of one group (T consecutive lo, so each of the 2^k rows is T
 * contiguous elements) or, in the last pass where M = 1, T consecutive whole groups. Coset
 * scaling by g^i is fused into the first pass's loads; the inverse's 1/n and g^−i into the
 * permutation's stores.
 */
#ifndef CZK_GPU_CUDA_NTT_NTT_CUH
#define CZK_GPU_CUDA_NTT_NTT_CUH

#include <cstdint>

#include "gpu/cuda/ff/mont.cuh"

namespace czk_cuda {

/* Entries per level of a power table (internal.cuh's CZK__GPU_POW_LEVEL; ntt.cu checks). */
#define NTT_POW_LEVEL_LG 14

/* c·b^e from a power table (internal.cuh) for e < 2^(14·levels), levels 1 or 2: one
 * multiplication of two entries at most. */
__device__ __forceinline__ fr_t pow_lookup(const fr_t *tab, uint32_t e, unsigned levels) {
    const uint32_t mask = (1u << NTT_POW_LEVEL_LG) - 1;
    fr_t r = fr_t::load_ro(tab + (e & mask));
    if (levels > 1)
        r = fr_t::mul_wide(
            r, fr_t::load_ro(tab + (1u << NTT_POW_LEVEL_LG) + ((e >> NTT_POW_LEVEL_LG) & mask)));
    return r;
}

/*
 * One DIF pass over bits [s−k, s) of a 2^lg-element array; see the DESIGN block. roots[i] =
 * ω_(2^k0)^i for i < 2^(k0−1), k >= 1, k0 >= k. twist: power table of ω_n (NULL in the last
 * pass); pre: power table of c·g (NULL unless this is a coset's first pass). levels: table
 * levels for exponents below 2^lg. Dynamic shared memory: 32·2^(k+lgT) bytes.
 */
__global__ void __launch_bounds__(256)
    ntt_dif_pass_kernel(fr_t *a, unsigned lg, unsigned s, unsigned k, unsigned lgT,
                        const fr_t *roots, unsigned k0, const fr_t *twist, const fr_t *pre,
                        unsigned levels) {
    extern __shared__ uint4 ntt_smem[];
    fr_t *sm = reinterpret_cast<fr_t *>(ntt_smem);
    const unsigned lgM = s - k;
    const uint32_t T = 1u << lgT, M = 1u << lgM, E = 1u << (k + lgT);
    const uint32_t gamma0 = blockIdx.x << lgT;

    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        uint32_t t, mid;
        if (lgM == 0) {
            t = e >> k;
            mid = e & ((1u << k) - 1);
        } else {
            t = e & (T - 1);
            mid = e >> lgT;
        }
        uint32_t gamma = gamma0 + t;
        uint32_t addr = ((gamma >> lgM) << s) | (mid << lgM) | (gamma & (M - 1));
        fr_t x = fr_t::load(a + addr);
        if (pre != nullptr)
            x = fr_t::mul_wide(x, pow_lookup(pre, addr, levels));
        x.store(sm + ((mid << lgT) | t));
    }
    __syncthreads();

    for (unsigned st = 0; st < k; st++) {
        const unsigned lgh = k - 1 - st;
        const uint32_t h = 1u << lgh;
        for (uint32_t b = threadIdx.x; b < E / 2; b += blockDim.x) {
            uint32_t t = b & (T - 1), q = b >> lgT;
            uint32_t j = q & (h - 1);
            uint32_t mid0 = ((q >> lgh) << (lgh + 1)) | j;
            fr_t *p0 = sm + ((mid0 << lgT) | t);
            fr_t *p1 = sm + (((mid0 + h) << lgT) | t);
            fr_t u = fr_t::load(p0), v = fr_t::load(p1);
            fr_t sum = u + v, dif = u - v;
            if (lgh > 0) /* ω_(2h)^j; the last stage's twiddle is 1 */
                dif = fr_t::mul_wide(dif, fr_t::load_ro(roots + (j << (k0 - 1 - lgh))));
            sum.store(p0);
            dif.store(p1);
        }
        __syncthreads();
    }

    for (uint32_t e = threadIdx.x; e < E; e += blockDim.x) {
        uint32_t t, mid;
        if (lgM == 0) {
            t = e >> k;
            mid = e & ((1u << k) - 1);
        } else {
            t = e & (T - 1);
            mid = e >> lgT;
        }
        uint32_t gamma = gamma0 + t;
        uint32_t lo = gamma & (M - 1);
        uint32_t addr = ((gamma >> lgM) << s) | (mid << lgM) | lo;
        fr_t x = fr_t::load(sm + ((mid << lgT) | t));
        if (twist != nullptr) {
            uint32_t k1 = __brev(mid) >> (32 - k);
            x = fr_t::mul_wide(x, pow_lookup(twist, (lo * k1) << (lg - s), levels));
        }
        x.store(a + addr);
    }
}

/* Offset (in uint4) of element (row, col) of a 32×32 tile, swizzled against bank conflicts. */
__device__ __forceinline__ uint32_t tile_off(uint32_t row, uint32_t col) {
    return row * 64 + ((col ^ ((row >> 3) & 3)) << 1);
}

/*
 * In-place bit-reversal permutation of 2^lg elements, lg >= 10, optionally times c·g^i at
 * the destination index i (post: power table, NULL for none; levels as above). Block b
 * swaps the tiles {(r, b, c)} and {(r, rev b, c)} (r: top 5 bits, c: low 5 bits), so reads
 * and writes are runs of 32 elements. Dynamic shared memory: 64 KiB.
 */
__global__ void __launch_bounds__(256)
    ntt_bitrev_kernel(fr_t *a, unsigned lg, const fr_t *post, unsigned levels) {
    extern __shared__ uint4 ntt_smem[];
    uint4 *tile0 = ntt_smem, *tile1 = ntt_smem + 32 * 64;
    const unsigned mbits = lg - 10;
    const uint32_t b = blockIdx.x;
    const uint32_t br = mbits ? __brev(b) >> (32 - mbits) : 0;
    if (b > br)
        return;
    const bool same = b == br;
    for (uint32_t e = threadIdx.x; e < 1024; e += blockDim.x) {
        uint32_t r = e >> 5, c = e & 31;
        fr_t x = fr_t::load(a + ((r << (lg - 5)) | (b << 5) | c));
        x.store(reinterpret_cast<fr_t *>(tile0 + tile_off(r, c)));
        if (!same) {
            fr_t y = fr_t::load(a + ((r << (lg - 5)) | (br << 5) | c));
            y.store(reinterpret_cast<fr_t *>(tile1 + tile_off(r, c)));
        }
    }
    __syncthreads();
    uint4 *src_b = same ? tile0 : tile1; /* holds the elements of middle br */
    for (uint32_t e = threadIdx.x; e < 1024; e += blockDim.x) {
        uint32_t r = e >> 5, c = e & 31;
        uint32_t rr = __brev(r) >> 27, rc = __brev(c) >> 27;
        uint32_t addr = (r << (lg - 5)) | (b << 5) | c;
        fr_t x = fr_t::load(reinterpret_cast<const fr_t *>(src_b + tile_off(rc, rr)));
        if (post != nullptr)
            x = fr_t::mul_wide(x, pow_lookup(post, addr, levels));
        x.store(a + addr);
        if (!same) {
            addr = (r << (lg - 5)) | (br << 5) | c;
            fr_t y = fr_t::load(reinterpret_cast<const fr_t *>(tile0 + tile_off(rc, rr)));
            if (post != nullptr)
                y = fr_t::mul_wide(y, pow_lookup(post, addr, levels));
            y.store(a + addr);
        }
    }
}

/* As ntt_bitrev_kernel for lg < 10: one block of 2^lg threads. */
__global__ void ntt_bitrev_small_kernel(fr_t *a, unsigned lg, const fr_t *post, unsigned levels) {
    __shared__ fr_t sm[512];
    uint32_t i = threadIdx.x;
    sm[i] = fr_t::load(a + i);
    __syncthreads();
    fr_t x = sm[lg ? __brev(i) >> (32 - lg) : 0];
    if (post != nullptr)
        x = fr_t::mul_wide(x, pow_lookup(post, i, levels));
    x.store(a + i);
}

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_NTT_NTT_CUH */
