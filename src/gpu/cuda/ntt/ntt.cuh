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
 * the last stage of each small transform multiplies by nothing. The first pass's twists are
 * ω_n^e for e < 2^lg, read as at most two entries of a cached power table (internal.cuh:
 * one more multiplication); a later pass's exponent lo·k1 is below N <= 2^18, so its twist is
 * one entry of a table of ω_N (a flat one above 2^14), with no multiplication: at lg 27 that
 * is 14.25 products an element instead of 15.25. Products
 * use mont.cuh's mul_wide (the same result as operator*, in fewer instructions: 64-bit
 * multiply-adds).
 *
 * A block loads T columns of one group (T consecutive lo, so each of the 2^k rows is T
 * contiguous elements) or, in the last pass where M = 1, T consecutive whole groups. Coset
 * scaling by g^i is fused into the first pass's loads; the inverse's 1/n and g^−i into the
 * permutation's stores.
 *
 * Within a block the k stages run in rounds of two (radix 4: a thread holds the 4 elements
 * of two stages' butterflies in registers) and, for odd k, one round of one; a barrier and a
 * shared-memory round trip separate rounds, not stages. The first round reads the array and
 * the last one twists and writes it, so k = 9 is 4 barriers and 4 shared round trips where
 * one stage per round cost 10 of each. The last round is stages (1, 0), whose twiddles are
 * all 1 but one ω_4: 1/4 multiplication per element instead of the 1/2 of a radix-2 stage 1.
 * Shared memory is two planes (limbs 0–3, limbs 4–7) with swizzled rows (ntt_slot), so every
 * 16-byte access of a round is free of bank conflicts.
 */
#ifndef CZK_GPU_CUDA_NTT_NTT_CUH
#define CZK_GPU_CUDA_NTT_NTT_CUH

#include <cstdint>

#include "gpu/cuda/ff/mont.cuh"

namespace czk_cuda {

/* Entries per level of a power table (internal.cuh's CZK__GPU_POW_LEVEL; ntt.cu checks). */
#define NTT_POW_LEVEL_LG 14

/*
 * The pass kernel's launch shape: 128 threads a block on 2^10 elements (32 KiB of shared
 * memory), launch bounds of 6 blocks an SM, which leave 80 registers a thread (the 4 elements
 * of a radix-4 butterfly are 32 of them; unbounded, ptxas takes 116 and 16 warps an SM fit
 * instead of 24) at a cost of 12 bytes of spills a thread. Measured on the H200
 * (BENCHMARKS.md runs 62-63, ninth slice): lg 27 forward 41.7 ms against 43.7 for 256 threads
 * on 2^11 elements and 3 blocks an SM (the earlier default; the same warps an SM, but a
 * barrier waits for 8 of them instead of 4); 64 threads on 2^9 (42.8 ms) and more registers
 * for fewer warps (42.3-49.9 ms) were slower. The other shapes were removed after run 67.
 */
#define NTT_PASS_THREADS 128
#define NTT_PASS_BLOCKS_PER_SM 6
#define NTT_PASS_LG_TILE 10

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

/* x with its low `bits` bits reversed (bits >= 1, x < 2^bits); host code too, for tests. */
__host__ __device__ __forceinline__ uint32_t ntt_rev(uint32_t x, unsigned bits) {
#ifdef __CUDA_ARCH__
    return __brev(x) >> (32 - bits);
#else
    uint32_t r = 0;
    for (unsigned i = 0; i < bits; i++)
        r |= ((x >> i) & 1u) << (bits - 1 - i);
    return r;
#endif
}

/*
 * Stages done by the round whose top stage is L (the stage of half-span 2^L; a size-2^k DIF
 * runs L = k−1 down to 0): two, except stage 2 alone when three are left and stage 0 alone
 * when k = 1. So the last round is (1, 0) whenever k >= 2, the round whose twiddles are all 1
 * but one ω_4, and the odd stage of an odd k costs a shared round trip of its own.
 */
__host__ __device__ __forceinline__ unsigned ntt_round_stages(unsigned L) {
    return L == 0 || L == 2 ? 1u : 2u;
}

/*
 * Row mid of element i < 2^r of butterfly q in a round of r stages whose smallest stride is
 * 2^lgs: q with i inserted at bit lgs, so the 2^r elements are 2^lgs apart.
 */
__host__ __device__ __forceinline__ uint32_t ntt_mid(uint32_t q, uint32_t i, unsigned lgs,
                                                     unsigned r) {
    return ((q >> lgs) << (lgs + r)) | (i << lgs) | (q & ((1u << lgs) - 1));
}

/*
 * Column t and butterfly q of work item b in a round of r stages. Consecutive items take
 * consecutive columns when a block holds T columns (lgM > 0: a row of T columns is contiguous
 * in memory) and consecutive butterflies when it holds T whole groups (lgM = 0: rows are).
 */
__host__ __device__ __forceinline__ void ntt_item(uint32_t b, unsigned k, unsigned r, unsigned lgT,
                                                  bool by_group, uint32_t *t, uint32_t *q) {
    if (by_group) {
        *t = b >> (k - r);
        *q = b & ((1u << (k - r)) - 1);
    } else {
        *t = b & ((1u << lgT) - 1);
        *q = b >> lgT;
    }
}

/* Global index of row mid of column gamma (over all groups) in a pass on bits [s−k, s). */
__host__ __device__ __forceinline__ uint32_t ntt_addr(uint32_t gamma, uint32_t mid, unsigned s,
                                                      unsigned lgM) {
    return ((gamma >> lgM) << s) | (mid << lgM) | (gamma & ((1u << lgM) - 1));
}

/*
 * Shared-memory slot of row mid of local column t: row-major (lgM > 0) or group-major
 * (lgM = 0), like the items, with mid's low c bits XORed with a function of its bits c and
 * c + 1, where c is how many row bits the 8 threads of one quarter warp span (a 16-byte
 * access of 32 threads is served a quarter warp at a time, and a quarter is conflict-free
 * when its 8 slots differ modulo 8). Consecutive butterflies then land on distinct slots
 * modulo 8 in every round, including those whose stride is below 2^c, which the plain layout
 * would serve in 2 to 8 times the wavefronts. The XOR touches only bits below c and reads
 * only bits from c up, so it permutes each column's rows.
 */
__host__ __device__ __forceinline__ uint32_t ntt_slot(uint32_t mid, uint32_t t, unsigned k,
                                                      unsigned lgT, bool by_group) {
    const unsigned c = by_group ? 3 : lgT >= 3 ? 0 : 3 - lgT;
    const uint32_t a = (mid >> c) & 1, b = (mid >> (c + 1)) & 1;
    mid ^= (((0x6200u >> (4 * c)) & 15) & (0u - a)) ^ (((0x5310u >> (4 * c)) & 15) & (0u - b));
    return by_group ? (t << k) | mid : (mid << lgT) | t;
}

/* Shared memory holds element limbs 0–3 and 4–7 in two planes of E slots: consecutive slots
 * are then 16 bytes apart, where whole 32-byte elements would put two threads of a quarter
 * warp on the same banks. */
__device__ __forceinline__ fr_t ntt_sm_load(const uint4 *sm, uint32_t E, uint32_t slot) {
    uint4 lo = sm[slot], hi = sm[E + slot];
    fr_t r;
    r.l[0] = lo.x, r.l[1] = lo.y, r.l[2] = lo.z, r.l[3] = lo.w;
    r.l[4] = hi.x, r.l[5] = hi.y, r.l[6] = hi.z, r.l[7] = hi.w;
    return r;
}
__device__ __forceinline__ void ntt_sm_store(uint4 *sm, uint32_t E, uint32_t slot, const fr_t &x) {
    sm[slot] = make_uint4(x.l[0], x.l[1], x.l[2], x.l[3]);
    sm[E + slot] = make_uint4(x.l[4], x.l[5], x.l[6], x.l[7]);
}

/*
 * One DIF pass over bits [s−k, s) of a 2^lg-element array; see the DESIGN block. roots[i] =
 * ω_(2^k0)^i for i < 2^(k0−1), k >= 1, k0 >= k. twist (NULL in the last pass): the twist
 * ω_N^(lo·k1) (N = 2^s) from a flat table of ω_N at lo·k1 (tw_flat), or from a power table
 * at (lo·k1) << tw_shift with tw_levels levels (ω_n itself and shift lg − s in the first
 * pass; ω_N and 0 in later ones, where N <= 2^14 makes it one level). pre: power table of c·g
 * (NULL unless this is a coset's first pass). levels: table levels for exponents below 2^lg.
 * Dynamic shared memory: 32·2^(k+lgT) bytes.
 * Rounds as in the DESIGN block. Launched with NTT_PASS_THREADS threads a block, bounds of
 * NTT_PASS_BLOCKS_PER_SM blocks an SM (below), 2^NTT_PASS_LG_TILE elements a block.
 */
__global__ void __launch_bounds__(NTT_PASS_THREADS, NTT_PASS_BLOCKS_PER_SM)
    ntt_dif_pass_kernel(fr_t *a, unsigned lg, unsigned s, unsigned k, unsigned lgT,
                        const fr_t *roots, unsigned k0, const fr_t *twist, const fr_t *pre,
                        unsigned levels, unsigned tw_shift, unsigned tw_levels, bool tw_flat) {
    extern __shared__ uint4 ntt_smem[];
    const unsigned lgM = s - k;
    const bool by_group = lgM == 0;
    const uint32_t E = 1u << (k + lgT), M = 1u << lgM;
    const uint32_t gamma0 = blockIdx.x << lgT;

    for (unsigned L = k - 1, r;; L -= r) {
        r = ntt_round_stages(L);
        const unsigned lgs = L + 1 - r;
        const bool first = L == k - 1, last = L + 1 == r;
        /* ω_(2^(L+1))^j = roots[j << sh] */
        const unsigned sh = k0 - 1 - L;
        for (uint32_t b = threadIdx.x; b < (E >> r); b += blockDim.x) {
            uint32_t t, q;
            ntt_item(b, k, r, lgT, by_group, &t, &q);
            const uint32_t gamma = gamma0 + t, j = q & ((1u << lgs) - 1);
            fr_t x[4];
#pragma unroll
            for (uint32_t i = 0; i < 4; i++) {
                if (i >= (1u << r))
                    break;
                uint32_t mid = ntt_mid(q, i, lgs, r);
                if (first) {
                    uint32_t addr = ntt_addr(gamma, mid, s, lgM);
                    x[i] = fr_t::load(a + addr);
                    if (pre != nullptr)
                        x[i] = fr_t::mul_wide(x[i], pow_lookup(pre, addr, levels));
                } else {
                    x[i] = ntt_sm_load(ntt_smem, E, ntt_slot(mid, t, k, lgT, by_group));
                }
            }
            if (r == 1) {
                fr_t u = x[0];
                x[0] = u + x[1];
                x[1] = u - x[1];
                if (L > 0) /* ω_(2^(L+1))^j; stage 0's twiddle is 1 */
                    x[1] = fr_t::mul_wide(x[1], fr_t::load_ro(roots + (j << sh)));
            } else {
                /* Stage L pairs (0, 2) and (1, 3) with twiddles ω_(2^(L+1))^j and
                 * ω_(2^(L+1))^(j + 2^(L−1)); stage L−1 pairs (0, 1) and (2, 3), both with
                 * ω_(2^L)^j. For L = 1 (j = 0) only the second is not 1: ω_4, the same
                 * index formula. */
                fr_t s0 = x[0] + x[2], d0 = x[0] - x[2], s1 = x[1] + x[3], d1 = x[1] - x[3];
                if (L > 1)
                    d0 = fr_t::mul_wide(d0, fr_t::load_ro(roots + (j << sh)));
                d1 = fr_t::mul_wide(d1, fr_t::load_ro(roots + ((j + (1u << lgs)) << sh)));
                x[0] = s0 + s1;
                x[1] = s0 - s1;
                x[2] = d0 + d1;
                x[3] = d0 - d1;
                if (L > 1) {
                    fr_t w = fr_t::load_ro(roots + (j << (sh + 1)));
                    x[1] = fr_t::mul_wide(x[1], w);
                    x[3] = fr_t::mul_wide(x[3], w);
                }
            }
            if (last) {
                /* Not unrolled: one copy of the twist's two multiplications keeps the code
                 * that every round runs small. */
#pragma unroll 1
                for (uint32_t i = 0; i < (1u << r); i++) {
                    fr_t y = i == 0 ? x[0] : i == 1 ? x[1] : i == 2 ? x[2] : x[3];
                    uint32_t mid = ntt_mid(q, i, lgs, r);
                    if (twist != nullptr) {
                        const uint32_t lo = gamma & (M - 1), e = lo * ntt_rev(mid, k);
                        y = fr_t::mul_wide(y, tw_flat
                                                  ? fr_t::load_ro(twist + e)
                                                  : pow_lookup(twist, e << tw_shift, tw_levels));
                    }
                    y.store(a + ntt_addr(gamma, mid, s, lgM));
                }
            } else {
#pragma unroll
                for (uint32_t i = 0; i < 4; i++) {
                    if (i >= (1u << r))
                        break;
                    ntt_sm_store(ntt_smem, E, ntt_slot(ntt_mid(q, i, lgs, r), t, k, lgT, by_group),
                                 x[i]);
                }
            }
        }
        if (last)
            break;
        __syncthreads();
    }
}

/* Offset (in uint4) of element (row, col) of a 32×32 tile, swizzled against bank conflicts. */
__device__ __forceinline__ uint32_t tile_off(uint32_t row, uint32_t col) {
    return row * 64 + ((col ^ ((row >> 3) & 3)) << 1);
}

/*
 * A pointwise step fused into the permutation's stores, so that it costs no pass of its
 * own: the element x bound for index i becomes x·mul[i] + add[i] (either NULL for none) and
 * is stored to out[i] (NULL: in place). mul, add and out may be the same array: index i is
 * read and written by one thread only. The h step uses it for a·b and for (…) − c.
 */
struct ntt_epilogue {
    const fr_t *mul;
    const fr_t *add;
    fr_t *out;
};

__device__ __forceinline__ void ntt_epilogue_store(fr_t x, fr_t *a, uint32_t i,
                                                   const ntt_epilogue &ep) {
    if (ep.mul != nullptr)
        x = fr_t::mul_wide(x, fr_t::load(ep.mul + i));
    if (ep.add != nullptr)
        x = x + fr_t::load(ep.add + i);
    x.store((ep.out != nullptr ? ep.out : a) + i);
}

/*
 * Bit-reversal permutation of 2^lg elements, lg >= 10, optionally times c·g^i at the
 * destination index i (post: power table, NULL for none; levels as above), then the
 * epilogue. Block b swaps the tiles {(r, b, c)} and {(r, rev b, c)} (r: top 5 bits, c: low
 * 5 bits), so reads and writes are runs of 32 elements. Dynamic shared memory: 64 KiB.
 */
__global__ void __launch_bounds__(256)
    ntt_bitrev_kernel(fr_t *a, unsigned lg, const fr_t *post, unsigned levels, ntt_epilogue ep) {
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
        ntt_epilogue_store(x, a, addr, ep);
        if (!same) {
            addr = (r << (lg - 5)) | (br << 5) | c;
            fr_t y = fr_t::load(reinterpret_cast<const fr_t *>(tile0 + tile_off(rc, rr)));
            if (post != nullptr)
                y = fr_t::mul_wide(y, pow_lookup(post, addr, levels));
            ntt_epilogue_store(y, a, addr, ep);
        }
    }
}

/* As ntt_bitrev_kernel for lg < 10: one block of 2^lg threads. */
__global__ void ntt_bitrev_small_kernel(fr_t *a, unsigned lg, const fr_t *post, unsigned levels,
                                        ntt_epilogue ep) {
    __shared__ fr_t sm[512];
    uint32_t i = threadIdx.x;
    sm[i] = fr_t::load(a + i);
    __syncthreads();
    fr_t x = sm[lg ? __brev(i) >> (32 - lg) : 0];
    if (post != nullptr)
        x = fr_t::mul_wide(x, pow_lookup(post, i, levels));
    ntt_epilogue_store(x, a, i, ep);
}

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_NTT_NTT_CUH */
