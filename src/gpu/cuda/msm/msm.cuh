/*
 * Multi-scalar multiplication kernels (Pippenger's bucket method with sorted buckets), one
 * set of templates over the point types of ec/xyzz.cuh: A affine, X XYZZ (G1 or G2).
 *
 * DESIGN. For a window of c bits the scalars are cut into W = ceil(256/c) signed digits in
 * [−2^(c−1), 2^(c−1)] (Booth recoding: a digit above 2^(c−1) becomes digit − 2^c with a
 * carry into the next window), so each window has 2^(c−1) buckets and a negative digit adds
 * −P (y negated on the fly). Steps, all on the context's stream:
 *
 *  0. The split. Groth16 witnesses are mostly 0 and 1, and a one would cost W sort entries
 *     for a single addition. msm_classify_kernel marks each scalar zero, one or other; two
 *     stable compactions (CUB DeviceSelect) list the indices of the ones and of the others.
 *     Zeros drop out. msm_sum_ones_kernel adds the points of the ones in equal chunks (then
 *     a tree of msm_window_reduce_kernel), and only the m others go through steps 1-5.
 *  1. msm_digits_kernel: one thread per other scalar converts it out of Montgomery form and
 *     writes, for every window w, the pair (key, value) = (w·2^(c−1) + |d| − 1, i | sign << 31)
 *     (i the point index), or the key EMPTY (= W·2^(c−1)) for a zero digit. Keys of window w
 *     sit at [w·m, (w+1)·m). (With groups of windows, below, w counts from the group's first
 *     window and W is the group's: the keys of a group of two windows at c = 22 fit 23 bits,
 *     three radix passes of CUB's sort instead of the four that all twelve windows' 25 bits
 *     would take; the group's buckets are addressed from its first window's.)
 *  2. One radix sort of all W·m pairs by key (CUB): every bucket of every window becomes one
 *     contiguous run, the zero digits gather at the end. (Steps 1-4 run per group of
 *     windows when W·m would make the pairs large: msm_host.cuh, MSM_GROUP_LG.)
 *  3. msm_acc_points_kernel: the sorted array is cut into chunks of L0 entries, one thread
 *     each, so every thread does the same number of mixed additions whatever the bucket
 *     sizes (a scalar set full of small values crowds a few buckets: a thread per bucket
 *     would serialise them). A run of equal keys that lies wholly inside a chunk
 *     is a finished bucket and is stored; the first and last runs of a chunk, when they may
 *     continue into the neighbour, are written as partial sums (two slots per chunk).
 *  4. msm_acc_partials_kernel repeats step 3 on the partial sums (XYZZ additions, chunks of
 *     L1) until one chunk holds them all; each level shrinks the array L1/2 times. Slots
 *     with nothing to carry hold infinity under a neighbouring key, which keeps the array
 *     sorted; a run that sums to infinity is never stored, so such fillers never overwrite
 *     a finished bucket (and a bucket whose true sum is infinity stays at its initial
 *     infinity).
 *  5. The window sums Σ_j j·B_j (j = 1 .. 2^(c−1)), without a scalar multiplication per
 *     segment. msm_window_segments_kernel cuts each window's buckets into G segments of
 *     S = 2^5; segment g covers j = gS + i, i = 1 .. S, and one thread stores
 *     T_g = Σ_i i·B_{gS+i} (the running-sum trick) and R_g = Σ_i B_{gS+i}. Since
 *     Σ_j j·B_j = Σ_g T_g + S·Σ_g g·R_g, and Σ_g g·R_g is again a bucket sum (weights
 *     0 .. G−1), the same kernel runs on the R array, level after level, until a level is a
 *     single segment (its R is then not needed: its weight is 0).
 *     msm_window_reduce_kernel adds each level's T array per window, and
 *     msm_window_combine_kernel forms Σ_k S_0···S_(k−1)·(Σ T of level k) by Horner (S_k the
 *     segment size of level k, a power of two: doublings). The earlier form,
 *     T + (lo − 1)·R per segment by double-and-add, cost up to ~19 doublings and ~10
 *     additions on top of a segment's 64 additions; each level above is 1/32 of the work
 *     of the one below (their time is mostly latency: few threads, 64-addition chains).
 *  6. The host combines the W window sums, Σ_w 2^(c·w)·S_w, and adds the sum of the ones.
 *
 * msm_classify_kernel, msm_class_is and msm_digits_kernel (steps 0 and 1, over the scalars
 * alone) are defined in msm.cu, the one unit that launches them: the other MSM units include
 * this header too, and a kernel that is not a template would be defined again in each. The
 * templates here are instantiated by the launches in msm_host.cuh and msm_ones.cuh, each group's
 * in its own units (msm_host.cuh lists them).
 *
 * References: Pippenger (1976) through Bernstein et al., "Faster batch forgery
 * identification" (INDOCRYPT 2012, §4) for the bucket method; sorted buckets and balanced
 * accumulation as in the ZPrize 2022 MSM entries (Yrrid, Matter Labs).
 */
#ifndef CZK_GPU_CUDA_MSM_MSM_CUH
#define CZK_GPU_CUDA_MSM_MSM_CUH

#include <cstdint>

#include "gpu/cuda/ec/prefetch.cuh"
#include "gpu/cuda/ec/xyzz.cuh"
#include "gpu/cuda/ff/fp2.cuh"
#include "gpu/cuda/ff/mont.cuh"

namespace czk_cuda {

/*
 * The scalars equal to one: chunk t of the m indices in idx ([t·L, (t+1)·L)) is summed by
 * one thread with mixed additions into out[t]; msm_window_reduce_kernel (one window) then
 * adds the chunk sums. Every thread does the same work whatever the points. idx NULL: the
 * points themselves, points[0 .. m − 1] (what msm_affine_pairs_kernel's levels leave).
 */
template <class A, class X>
__global__ void __launch_bounds__(128)
    msm_sum_ones_kernel(X *out, const uint32_t *idx, const A *points, size_t m, unsigned L) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t begin = t * L;
    if (begin >= m)
        return;
    size_t end = begin + L < m ? begin + L : m;
    X acc = X::inf();
    for (size_t e = begin; e < end; e++) {
        A p = A::load_ro(points + (idx != nullptr ? idx[e] : e));
        if (p.is_inf())
            continue;
        acc.add_affine(p);
    }
    acc.store(out + t);
}

/*
 * Batch-affine additions. The denominator of P + Q in affine coordinates, and how the sum
 * is formed once its inverse is known: ADD λ = (y_Q − y_P)/(x_Q − x_P); DBL (P = Q)
 * λ = 3x²/2y; COPY (an input at infinity: the other one); INF (P = −Q). The last two need no
 * inverse: their denominator is 1, so they ride in the batch unchanged.
 */
enum { AFF_ADD, AFF_DBL, AFF_COPY, AFF_INF };

template <class A>
__device__ __forceinline__ decltype(A::x) affine_denominator(const A &a, const A &b, int *mode) {
    typedef decltype(A::x) F;
    if (a.is_inf() || b.is_inf()) {
        *mode = AFF_COPY;
        return F::one();
    }
    if (!a.x.equal(b.x)) {
        *mode = AFF_ADD;
        return b.x - a.x;
    }
    if (a.y.equal(b.y) && !a.y.is_zero()) {
        *mode = AFF_DBL;
        return a.y.dbl();
    }
    *mode = AFF_INF;
    return F::one();
}

/* P + Q from the inverse of its denominator (affine_denominator's mode). */
template <class A>
__device__ __forceinline__ A affine_finish(const A &a, const A &b, int mode,
                                           const decltype(A::x) &dinv) {
    typedef decltype(A::x) F;
    A r;
    if (mode == AFF_COPY)
        return a.is_inf() ? b : a;
    if (mode == AFF_INF) {
        r.x = F::zero();
        r.y = F::zero();
        return r;
    }
    F num;
    if (mode == AFF_ADD) {
        num = b.y - a.y;
    } else {
        F xx = fsqr(a.x);
        num = xx.dbl() + xx;
    }
    const F lam = fmul(num, dinv);
    r.x = fsqr(lam) - a.x - b.x;
    r.y = fmul(lam, a.x - r.x) - a.y;
    return r;
}

/*
 * One level of a pairwise sum in affine coordinates, its additions batched by Montgomery's
 * trick: out[i] = in[2i] + in[2i + 1] for i < m/2, and out[m/2] = in[m − 1] when m is odd;
 * with idx, in[j] is points[idx[j]] (the first level of the ones' sum). Thread t adds pairs
 * t·K .. t·K + K − 1 with one inversion: the running products of the denominators go to
 * `pref` on the way up, the inverse of their product comes back down, two products a pair. A pair
 * costs 6 products (1 up, 2 down, λ, λ², y) and 1/K of an inversion (~70 Fp products by the binary
 * GCD, bingcd.cuh; Fermat's ~490 made this slower than XYZZ chains): a thread's lanes cannot share
 * one (each lane pays the whole inversion's time), so only a large K pays, which a
 * flat sum of millions of points allows and a bucket of a few dozen does not. The K running
 * products go to `pref` (K·T entries for T threads, from the MSM's scratch): a local array would be
 * local memory, which the driver reserves for every resident thread of the device (K·96 bytes × 270
 * K threads on an H200 for G2), outside the planner's arena.
 */
template <class A, unsigned K>
__global__ void __launch_bounds__(128)
    msm_affine_pairs_kernel(A *out, const A *in, const uint32_t *idx, size_t m,
                            decltype(A::x) *pref) {
    typedef decltype(A::x) F;
    const size_t half = m / 2, T = (size_t)gridDim.x * blockDim.x;
    const size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x, i0 = t * K;
    if (i0 > half)
        return;
    const size_t i1 = i0 + K < half ? i0 + K : half;
    auto load = [&](size_t j) { return A::load_ro(idx != nullptr ? in + idx[j] : in + j); };
    /* Running product j of thread t at pref[j·T + t]: a warp's stores are contiguous. */
    F *const my = pref + t;
    if (i0 < i1) {
        F acc = F::one();
        for (size_t i = i0; i < i1; i++) {
            int mode;
            const F d = affine_denominator(load(2 * i), load(2 * i + 1), &mode);
            acc.store(my + (i - i0) * T);
            acc = fmul(acc, d);
        }
        F inv = acc.inv();
        for (size_t i = i1; i-- > i0;) {
            int mode;
            const A a = load(2 * i), b = load(2 * i + 1);
            const F d = affine_denominator(a, b, &mode);
            const F dinv = fmul(inv, F::load(my + (i - i0) * T));
            inv = fmul(inv, d);
            const A r = affine_finish(a, b, mode, dinv);
            r.x.store(&out[i].x);
            r.y.store(&out[i].y);
        }
    }
    if ((m & 1) != 0 && i1 == half && (i0 < half || half == 0)) {
        const A r = load(m - 1);
        r.x.store(&out[half].x);
        r.y.store(&out[half].y);
    }
}

/* Stores a finished run, or writes it to a partial slot; see the DESIGN block. */
template <class X>
__device__ __forceinline__ void msm_store_bucket(X *buckets, uint32_t key, uint32_t empty,
                                                 const X &acc) {
    if (key != empty && !acc.is_inf())
        acc.store(buckets + key);
}

/*
 * Threads a block of the accumulation kernel, launched with bounds of one block an SM: 256
 * for G1, 128 for G2 (a G2 point is 48 registers). H200, 2^24 uniform, accumulation step
 * (BENCHMARKS.md, fourth slice): run 13, 144 ms with 128 threads and 158 registers (3 blocks
 * an SM), 134 ms with 128 registers (4); run 20, 124-125 ms with 256 threads and 182
 * registers (one block, 8 warps: the arithmetic benchmark's fastest shape too) against
 * 128-129 ms for 4 blocks of 128. The other shapes were removed after run 67.
 */
#define MSM_ACC_G1_BLOCK 256
#define MSM_ACC_G2_BLOCK 128

/* The points are staged in shared memory one ahead (ec/prefetch.cuh). */

/*
 * Level 0 of the bucket accumulation: chunk t covers sorted entries [t·L, (t+1)·L) of m.
 * Writes finished buckets to `buckets` and two partial slots per chunk to pkeys/pvals. Thread
 * i of the grid takes chunk t0 + i: a launch may cover a piece of the chunks (msm_acc_launch).
 *
 * The loads are software-pipelined: while entry e's mixed addition runs, entry e + 1's key and
 * value are already in registers and its point is on its way into this thread's shared slot
 * (cp.async, double-buffered by the parity of e). A point is two dependent loads away from
 * the sorted arrays (value, then a random 96- or 192-byte read); without the pipeline every
 * addition waited for both. Staging in shared memory rather than registers keeps the
 * register count (and so the occupancy) as it was: a G2 point is 48 registers. The run logic
 * is unchanged: the same entries are added in the same order.
 */
template <class A, class X, unsigned BLOCK, unsigned MINB>
__global__ void __launch_bounds__(BLOCK, MINB)
    msm_acc_points_kernel(X *buckets, uint32_t *pkeys, X *pvals, const uint32_t *keys,
                          const uint32_t *vals, const A *points, size_t m, unsigned L,
                          uint32_t empty, size_t t0) {
    typedef decltype(A::x) F;
    __shared__ A stage[2][BLOCK];
    size_t t = t0 + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t begin = t * L;
    if (begin >= m)
        return;
    size_t end = begin + L < m ? begin + L : m;
    uint32_t first_key = keys[begin];
    bool open_front = begin > 0 && keys[begin - 1] == first_key;
    bool open_back = end < m && keys[end] == keys[end - 1];
    uint32_t cur = first_key;
    bool first_run = true, front_done = false, back_done = false;
    X acc = X::inf();
    if (first_key != empty) {
        /* vals NULL: entry e is points[e]. msm_host.cuh always passes vals since the pairing
         * levels that left such arrays were removed, but without this branch ptxas gives the
         * G1 kernel 194 registers instead of 180 and G2 more spills: kept, so that the
         * kernel stays the one BENCHMARKS.md measured. */
        uint32_t k = first_key, v = vals != nullptr ? vals[begin] : (uint32_t)begin;
        prefetch_point(&stage[0][threadIdx.x], points + (v & 0x7fffffffu));
        for (size_t e = begin; e < end; e++) {
            /* Entry e + 1's indices; a key of `empty` past the end starts no copy. */
            uint32_t kn = empty, vn = 0;
            if (e + 1 < end) {
                kn = keys[e + 1];
                vn = vals != nullptr ? vals[e + 1] : (uint32_t)(e + 1);
            }
            if (k != cur) {
                if (first_run && open_front) {
                    acc.store(pvals + 2 * t);
                    front_done = true;
                } else {
                    msm_store_bucket(buckets, cur, empty, acc);
                }
                first_run = false;
                acc = X::inf();
                cur = k;
            }
            if (k == empty)
                break; /* no copy was started for an empty key: none is left pending */
            cp_async_wait_all();
            const A *slot = &stage[(e - begin) & 1][threadIdx.x];
            A p;
            p.x = F::load(&slot->x);
            p.y = F::load(&slot->y);
            /* The other slot was last read for entry e − 1, whose addition is done. */
            if (kn != empty)
                prefetch_point(&stage[(e + 1 - begin) & 1][threadIdx.x],
                               points + (vn & 0x7fffffffu));
            const uint32_t ve = v;
            k = kn;
            v = vn;
            if (p.is_inf())
                continue;
            if (ve >> 31)
                p.y = p.y.neg();
            acc.add_affine(p);
        }
    }
    /* The last run: partial if it may continue, or if it is also the open first run. */
    if (cur != empty) {
        if (first_run && (open_front || open_back)) {
            acc.store(pvals + 2 * t); /* one run spans the chunk: carry it once */
            front_done = true;
        } else if (open_back) {
            acc.store(pvals + 2 * t + 1);
            back_done = true;
        } else {
            msm_store_bucket(buckets, cur, empty, acc);
        }
    }
    pkeys[2 * t] = first_key;
    pkeys[2 * t + 1] = cur;
    if (!front_done)
        X::inf().store(pvals + 2 * t);
    if (!back_done)
        X::inf().store(pvals + 2 * t + 1);
}

/* Levels >= 1: as msm_acc_points_kernel over partial sums (m entries, chunks of L). */
template <class X>
__global__ void __launch_bounds__(128)
    msm_acc_partials_kernel(X *buckets, uint32_t *okeys, X *ovals, const uint32_t *keys,
                            const X *vals, size_t m, unsigned L, uint32_t empty) {
    size_t t = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    size_t begin = t * L;
    if (begin >= m)
        return;
    size_t end = begin + L < m ? begin + L : m;
    uint32_t first_key = keys[begin];
    bool open_front = begin > 0 && keys[begin - 1] == first_key;
    bool open_back = end < m && keys[end] == keys[end - 1];
    uint32_t cur = first_key;
    bool first_run = true, front_done = false, back_done = false;
    X acc = X::inf();
    for (size_t e = begin; e < end; e++) {
        uint32_t k = keys[e];
        if (k != cur) {
            if (first_run && open_front) {
                acc.store(ovals + 2 * t);
                front_done = true;
            } else {
                msm_store_bucket(buckets, cur, empty, acc);
            }
            first_run = false;
            acc = X::inf();
            cur = k;
        }
        acc.add(X::load(vals + e));
    }
    if (first_run && (open_front || open_back)) {
        acc.store(ovals + 2 * t);
        front_done = true;
    } else if (open_back) {
        acc.store(ovals + 2 * t + 1);
        back_done = true;
    } else {
        msm_store_bucket(buckets, cur, empty, acc);
    }
    okeys[2 * t] = first_key;
    okeys[2 * t + 1] = cur;
    if (!front_done)
        X::inf().store(ovals + 2 * t);
    if (!back_done)
        X::inf().store(ovals + 2 * t + 1);
}

/*
 * One level of step 5. `in` holds `count` segments of s = 2^lgs entries, back to back (level
 * 0: the buckets, window after window, entry i of a window the bucket of digit i + 1; level
 * k > 0: level k − 1's R array, s entries of one window per segment since every level's
 * entries per window are a power of two). Thread `id` sums its segment e_0 .. e_(s−1):
 *   tsum[id] = Σ_i (i + base)·e_i,   rsum[id] = Σ_i e_i   (rsum NULL: not stored)
 * base = 1 at level 0 (bucket i is digit gS + i + 1, the gS part left to the levels above),
 * 0 above (the segment index g weighs R_g, from 0). The running sums: after adding e_i,
 * run = Σ_{k >= i} e_k, and Σ_{i >= 1} run_i = Σ_k k·e_k; base 1 adds run_0 once more.
 */
template <class X>
__global__ void __launch_bounds__(128)
    msm_window_segments_kernel(X *tsum, X *rsum, const X *in, uint32_t count, unsigned lgs,
                               unsigned base) {
    uint32_t id = blockIdx.x * blockDim.x + threadIdx.x;
    if (id >= count)
        return;
    const X *b = in + ((size_t)id << lgs);
    X run = X::inf(), tot = X::inf();
    for (int j = (1 << lgs) - 1; j > 0; j--) {
        run.add(X::load(b + j));
        tot.add(run);
    }
    run.add(X::load(b));
    if (base)
        tot.add(run);
    tot.store(tsum + id);
    if (rsum != nullptr)
        run.store(rsum + id);
}

/* Levels of step 5 at most: 1 + ceil(21/2) for c <= 22 and segments of at least 4 above
 * level 0 (msm_host.cuh checks its segment sizes against it). */
#define MSM_MAX_LEVELS 12

/* Step 5's levels, by value as a kernel argument: sum[k] holds level k's Σ T per window. */
template <class X> struct msm_levels {
    const X *sum[MSM_MAX_LEVELS];
    unsigned lgs[MSM_MAX_LEVELS]; /* level k's segments have 2^lgs[k] entries */
    unsigned count;
};

/*
 * out[w] = Σ_k (Π_{i<k} 2^lgs[i])·sum[k][w], the window sum (see step 5), by Horner from the
 * top level down: lgs[k] doublings between levels. One thread per window.
 */
template <class X>
__global__ void __launch_bounds__(128)
    msm_window_combine_kernel(X *out, msm_levels<X> lv, uint32_t nwin) {
    uint32_t w = blockIdx.x * blockDim.x + threadIdx.x;
    if (w >= nwin)
        return;
    X acc = X::load(lv.sum[lv.count - 1] + w);
    for (int k = (int)lv.count - 2; k >= 0; k--) {
        for (unsigned i = 0; i < lv.lgs[k]; i++)
            acc.dbl();
        acc.add(X::load(lv.sum[k] + w));
    }
    acc.store(out + w);
}

/*
 * dst[w·G2 + b] = Σ of src[w·G + 128·b + t] over t < 128 (and below G): one block of 128
 * threads per (window, group of 128), a shared-memory tree. Repeated until G = 1.
 */
template <class X>
__global__ void __launch_bounds__(128)
    msm_window_reduce_kernel(X *dst, const X *src, uint32_t G, uint32_t G2) {
    __shared__ X sm[128];
    const uint32_t w = blockIdx.x / G2, b = blockIdx.x % G2;
    const uint32_t idx = b * 128 + threadIdx.x;
    X acc = idx < G ? X::load(src + (size_t)w * G + idx) : X::inf();
    acc.store(sm + threadIdx.x);
    __syncthreads();
    for (unsigned s = 64; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            acc.add(X::load(sm + threadIdx.x + s));
            acc.store(sm + threadIdx.x);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0)
        acc.store(dst + (size_t)w * G2 + b);
}

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_MSM_MSM_CUH */
