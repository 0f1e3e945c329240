/*
 * Step 3 of msm.cuh (the bucket accumulation) in affine coordinates, with one inversion
 * shared by K additions (Montgomery's trick): the lanes.
 *
 * WHY. An affine addition whose denominator's inverse is known costs 5 products and a
 * squaring; the mixed XYZZ addition of the chains (msm_acc_points_kernel) costs 8 and 2.
 * Sharing one inversion (~63 products by the binary GCD, ff/bingcd.cuh) over K additions
 * adds 63/K and the batch's own 3 products an addition, so K = 32 gives ~8 products against
 * 10. The earlier attempts (BENCHMARKS.md runs 39-48) summed pairs level by level: each
 * level gathered its points twice and wrote a new array, and lost on the sorted buckets.
 * Here nothing is rewritten level by level: each sorted entry is added once, into a running
 * sum, as in the chains.
 *
 * DESIGN. Thread t takes K·Ll sorted entries and cuts them into K lanes of Ll consecutive
 * entries. Each lane is a chain, as a chunk of msm_acc_points_kernel is: its running sum
 * A_j (affine) takes the lane's entries one after the other, and a change of key ends a
 * run. The K lanes advance in lockstep, one entry a step, so a step has K independent
 * additions A_j + P_j: an up pass over the lanes forms their denominators and the running
 * products, one inversion, and a down pass forms the sums. A step's lane may have no
 * addition: a run starts (A_j = P_j), the lane is done, P_j is at infinity, or P_j = −A_j
 * (A_j becomes infinity); its denominator is then 1, left out of the product.
 *
 * The lanes' state is too large for registers (K running sums) and an array indexed by the
 * lane would be local memory, which the driver reserves for every resident thread of the
 * device (czk__gpu_msm_local_bytes). It lives in the MSM scratch, lane j of launch thread i
 * at j·T + i (a warp's accesses contiguous): the part of the pairs' double buffer that the
 * sort left unused, free until the next window group's digits (msm_host.cuh).
 *
 * A run that a lane finishes whole is a bucket, stored at once. A lane's first run, when the
 * entry before the lane has its key, and its last run, when the entry after it has, are the
 * lane's front and back slots, as a chunk's two partial sums are in the chains. At the end
 * the thread adds its 2K slots in order (mixed XYZZ additions, one a lane), storing the runs
 * that end inside the thread and leaving its own two partial sums, so that the thread is one
 * chunk of K·Ll entries for step 4 (msm_acc_partials_kernel), exactly as a chain's chunk is.
 *
 * Exceptional cases: a point at infinity (0, 0) adds nothing; A_j = P_j doubles
 * (λ = 3x²/2y); A_j = −P_j gives infinity. A point of the subgroup never has x = 0, so
 * y is read only when x is.
 */
#ifndef CZK_GPU_CUDA_MSM_MSM_LANES_CUH
#define CZK_GPU_CUDA_MSM_MSM_LANES_CUH

#include <cstdint>

#include "gpu/cuda/ec/xyzz.cuh"
#include "gpu/cuda/msm/msm.cuh"

namespace czk_cuda {

/* The lanes' state: arrays of K·T entries, lane j of launch thread i at j·T + i. */
template <class F> struct msm_lanes {
    F *ax, *ay;     /* the lane's running sum, affine ((0, 0): infinity) */
    F *pre;         /* the product of the step's denominators of lanes before this one */
    F *fx, *fy;     /* the lane's front slot */
    F *sx, *sy;     /* the point the lane adds in the coming down pass (sign applied) */
    uint32_t *cur;  /* the key of the run the lane is in (EMPTY once done) */
    uint32_t *flag; /* LF_* bits and this step's mode */
    size_t T;       /* threads of the launch */
};

/* A step's mode for one lane (bits 0-2 of its flag). */
enum { LM_NONE, LM_SET, LM_ADD, LM_DBL, LM_ZERO };
#define MSM_LF_MODE 7u
#define MSM_LF_FIRST 8u  /* the lane is still in its first run */
#define MSM_LF_FRONT 16u /* the front slot holds the lane's first run */
#define MSM_LF_DONE 32u  /* no entry left (its end, or the EMPTY keys) */

/* The point of entry value v, negated for a negative digit. */
template <class A> __device__ __forceinline__ A lane_point(const A *points, uint32_t v) {
    A p = A::load_ro(points + (v & 0x7fffffffu));
    if (v >> 31)
        p.y = p.y.neg();
    return p;
}

/* Whether the affine point (x, y at *y) is infinity: x = 0 (read y only then). */
template <class F> __device__ __forceinline__ bool lane_inf(const F &x, const F *y) {
    return x.is_zero() && F::load(y).is_zero();
}

/* Stores a finished affine run as bucket `key` (none for EMPTY or infinity). */
template <class A, class X>
__device__ __forceinline__ void lane_store_bucket(X *buckets, uint32_t key, uint32_t empty,
                                                  const A &a) {
    typedef decltype(A::x) F;
    if (key == empty || a.is_inf())
        return;
    X r;
    r.x = a.x;
    r.y = a.y;
    r.zz = F::one();
    r.zzz = F::one();
    r.store(buckets + key);
}

/* Whether the run starting at sorted entry b continues the one before it. */
__device__ __forceinline__ bool lane_open_front(const uint32_t *keys, size_t b) {
    return b > 0 && keys[b - 1] == keys[b];
}

/* One lane's inputs for a step, staged in shared memory one lane ahead (cp.async). */
template <class A> struct lane_stage {
    decltype(A::x) ax, ay, pre, sx, sy;
    A p; /* the lane's next point (the step after), gathered */
};

/* Starts copying one field element global -> shared (16-byte pieces, no commit). */
template <class F> __device__ __forceinline__ void lane_copy(F *dst, const F *src) {
    static_assert(sizeof(F) % 16 == 0, "field elements copy in 16-byte pieces");
    const char *g = reinterpret_cast<const char *>(src);
    char *d = reinterpret_cast<char *>(dst);
#pragma unroll
    for (unsigned o = 0; o < sizeof(F); o += 16)
        cp_async16(d + o, g + o);
}

/* Bytes of dynamic shared memory a block of msm_acc_lanes_kernel takes. */
template <class A> constexpr size_t msm_lanes_smem(unsigned block) {
    return 2 * (size_t)block * sizeof(lane_stage<A>);
}

/*
 * Thread t0 + i of the grid takes sorted entries [t·K·Ll, (t+1)·K·Ll) of m and writes what
 * msm_acc_points_kernel writes for a chunk of that length: finished buckets, and the two
 * partial slots 2t, 2t + 1 (keys in pkeys, sums in pvals). ln.T is the number of threads
 * of this launch that have entries (the others return at once).
 *
 * One loop a step s over the K lanes does, lane by lane, the down pass of step s (the sum
 * A_j + P_j from the inverse) and at once, with A_j still in registers, the up pass of step
 * s + 1 (the next entry's key, mode and denominator). The down pass must take the lanes in
 * the reverse order of their up pass, so the loops alternate: forward for even s, backward
 * for odd. A lane's inputs (A_j, its running product, the point of this step, kept by the
 * up pass before, and the gathered point of the next step) are copied into shared memory
 * while the lane before it computes (cp.async, as msm_acc_points_kernel stages its points):
 * without that, every lane waited for two or three dependent trips to memory (BENCHMARKS.md).
 */
template <class A, class X, unsigned K>
__global__ void __launch_bounds__(128)
    msm_acc_lanes_kernel(X *buckets, uint32_t *pkeys, X *pvals, const uint32_t *keys,
                         const uint32_t *vals, const A *points, size_t m, unsigned Ll,
                         uint32_t empty, size_t t0, msm_lanes<decltype(A::x)> ln) {
    typedef decltype(A::x) F;
    extern __shared__ __align__(16) unsigned char lanes_smem[];
    lane_stage<A> *const stage = reinterpret_cast<lane_stage<A> *>(lanes_smem);
    const size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x, T = ln.T;
    const size_t t = t0 + i, B = t * K * Ll;
    if (i >= T || B >= m)
        return;
    /* This thread's two stage buffers. */
    auto my = [&](unsigned buf) { return stage + (buf != 0 ? blockDim.x : 0) + threadIdx.x; };

    /* Step 0: every lane starts a run with its first entry (no addition). */
#pragma unroll 1
    for (unsigned j = 0; j < K; j++) {
        const size_t idx = (size_t)j * T + i, b = B + (size_t)j * Ll;
        uint32_t fl = MSM_LF_DONE, cur = empty;
        if (b < m) {
            cur = keys[b];
            fl = MSM_LF_FIRST;
            if (cur == empty) {
                fl |= MSM_LF_DONE;
            } else {
                fl |= LM_SET;
                const A p = lane_point(points, vals[b]);
                p.x.store(ln.sx + idx);
                p.y.store(ln.sy + idx);
            }
        }
        ln.flag[idx] = fl;
        ln.cur[idx] = cur;
    }

    F inv = F::one();
#pragma unroll 1
    for (unsigned s = 0; s < Ll; s++) {
        const bool fwd = (s & 1) == 0, next = s + 1 < Ll;
        F acc = F::one();
        bool any = false;
        /* The lane at position q of this loop's order. */
        auto lane_at = [&](unsigned q) { return fwd ? q : K - 1 - q; };
        /* Its flag and key, and the next step's entry (key, value; EMPTY/0 when none). */
        struct small {
            uint32_t fl, cur, k1, v1;
        };
        auto load_small = [&](unsigned q) {
            small r;
            const unsigned j = lane_at(q);
            const size_t idx = (size_t)j * T + i, b = B + (size_t)j * Ll, e1 = b + s + 1;
            const size_t end = b + Ll < m ? b + Ll : m;
            r.fl = ln.flag[idx];
            r.cur = ln.cur[idx];
            r.k1 = empty;
            r.v1 = 0;
            if (next && (r.fl & MSM_LF_DONE) == 0 && e1 < end) {
                r.k1 = keys[e1];
                r.v1 = vals[e1];
            } else if (next) {
                r.fl |= MSM_LF_DONE; /* the lane's end: no entry for step s + 1 */
            }
            return r;
        };
        /* Starts the copies of lane q's inputs into stage buffer `buf` (one commit group). */
        auto prefetch = [&](unsigned q, const small &sm, unsigned buf) {
            const unsigned j = lane_at(q);
            const size_t idx = (size_t)j * T + i;
            const uint32_t mode = sm.fl & MSM_LF_MODE;
            lane_stage<A> *st = my(buf);
            lane_copy(&st->ax, ln.ax + idx);
            lane_copy(&st->ay, ln.ay + idx);
            if (mode == LM_ADD || mode == LM_DBL)
                lane_copy(&st->pre, ln.pre + idx);
            if (mode == LM_SET || mode == LM_ADD || mode == LM_DBL) {
                lane_copy(&st->sx, ln.sx + idx);
                lane_copy(&st->sy, ln.sy + idx);
            }
            if (sm.k1 != empty) {
                const A *src = points + (sm.v1 & 0x7fffffffu);
                lane_copy(&st->p.x, &src->x);
                lane_copy(&st->p.y, &src->y);
            }
            cp_async_commit();
        };

        small cur_sm = load_small(0);
        small nxt_sm = K > 1 ? load_small(1) : cur_sm;
        prefetch(0, cur_sm, 0);
#pragma unroll 1
        for (unsigned q = 0; q < K; q++) {
            const unsigned j = lane_at(q);
            const size_t idx = (size_t)j * T + i, b = B + (size_t)j * Ll;
            const small sm = cur_sm;
            cp_async_wait_all();
            const lane_stage<A> *st = my(q & 1);
            /* The next lane's copies start now, into the other buffer (last read for lane
             * q − 1, whose work is done), and its successor's small items load. */
            if (q + 1 < K) {
                cur_sm = nxt_sm;
                prefetch(q + 1, cur_sm, (q + 1) & 1);
                if (q + 2 < K)
                    nxt_sm = load_small(q + 2);
            }

            /* Down, step s: A_j. */
            const uint32_t mode = sm.fl & MSM_LF_MODE;
            A a;
            a.x = F::load(&st->ax);
            a.y = F::load(&st->ay);
            if (mode == LM_ZERO) {
                a.x = F::zero();
                a.y = F::zero();
            } else if (mode == LM_SET) {
                a.x = F::load(&st->sx);
                a.y = F::load(&st->sy);
            } else if (mode == LM_ADD || mode == LM_DBL) {
                const F px = F::load(&st->sx), py = F::load(&st->sy);
                F d, num;
                if (mode == LM_ADD) {
                    d = px - a.x;
                    num = py - a.y;
                } else {
                    d = a.y.dbl();
                    const F xx = fsqr(a.x);
                    num = xx.dbl() + xx;
                }
                const F dinv = fmul(inv, F::load(&st->pre));
                inv = fmul(inv, d);
                const F lam = fmul(num, dinv);
                const F x3 = fsqr(lam) - a.x - px;
                a.y = fmul(lam, a.x - x3) - a.y;
                a.x = x3;
            }

            /* Up, step s + 1: the next entry's mode against A_j. */
            uint32_t fl = sm.fl & ~MSM_LF_MODE, cur = sm.cur, mode1 = LM_NONE;
            if (next && (fl & MSM_LF_DONE) == 0) {
                const uint32_t k = sm.k1;
                if (k != cur) {
                    /* The run in A ends: the front slot, or a finished bucket. */
                    if ((fl & MSM_LF_FIRST) != 0 && lane_open_front(keys, b)) {
                        a.x.store(ln.fx + idx);
                        a.y.store(ln.fy + idx);
                        fl |= MSM_LF_FRONT;
                    } else {
                        lane_store_bucket<A, X>(buckets, cur, empty, a);
                    }
                    fl &= ~MSM_LF_FIRST;
                    cur = k;
                    if (k == empty)
                        fl |= MSM_LF_DONE;
                    else
                        mode1 = LM_SET;
                } else if (a.is_inf()) {
                    mode1 = LM_SET;
                } else {
                    A p;
                    p.x = F::load(&st->p.x);
                    p.y = F::load(&st->p.y);
                    if (sm.v1 >> 31)
                        p.y = p.y.neg();
                    F d;
                    if (p.is_inf()) {
                        mode1 = LM_NONE;
                    } else if (!p.x.equal(a.x)) {
                        mode1 = LM_ADD;
                        d = p.x - a.x;
                    } else if (p.y.equal(a.y) && !a.y.is_zero()) {
                        mode1 = LM_DBL;
                        d = a.y.dbl();
                    } else {
                        mode1 = LM_ZERO;
                    }
                    if (mode1 == LM_ADD || mode1 == LM_DBL) {
                        acc.store(ln.pre + idx);
                        acc = fmul(acc, d);
                        any = true;
                    }
                }
                if (mode1 == LM_SET || mode1 == LM_ADD || mode1 == LM_DBL) {
                    A p;
                    p.x = F::load(&st->p.x);
                    p.y = F::load(&st->p.y);
                    if (sm.v1 >> 31)
                        p.y = p.y.neg();
                    p.x.store(ln.sx + idx);
                    p.y.store(ln.sy + idx);
                }
            }
            a.x.store(ln.ax + idx);
            a.y.store(ln.ay + idx);
            ln.flag[idx] = fl | mode1;
            ln.cur[idx] = cur;
        }
        inv = any ? acc.inv() : F::one();
    }

    /* The lanes' last runs, then the thread's 2K slots in order (msm_acc_partials_kernel's
     * logic over them): runs that end inside the thread are buckets, its first and last runs
     * partial sums when the entries beside the thread continue them. */
    const size_t E = B + (size_t)K * Ll < m ? B + (size_t)K * Ll : m;
    const uint32_t first_key = keys[B];
    const bool open_front = lane_open_front(keys, B);
    const bool open_back = E < m && keys[E] == keys[E - 1];
    uint32_t cur = first_key;
    bool first_run = true, front_done = false, back_done = false;
    X sum = X::inf();
#pragma unroll 1
    for (unsigned j = 0; j < K; j++) {
        const size_t idx = (size_t)j * T + i, b = B + (size_t)j * Ll;
        if (b >= m)
            break;
        const size_t end = b + Ll < m ? b + Ll : m;
        const uint32_t fl = ln.flag[idx], lcur = ln.cur[idx];
        /* Where the lane's two slots are: 0 nowhere (infinity), 1 the front slot's arrays,
         * 2 the running sum's (loaded only when added, to keep registers down). */
        unsigned src[2] = {(fl & MSM_LF_FRONT) != 0 ? 1u : 0u, 0u};
        if (lcur != empty) {
            const bool lback = end < m && keys[end] == lcur;
            if ((fl & MSM_LF_FIRST) != 0 && (lane_open_front(keys, b) || lback)) {
                src[0] = 2;
            } else if (lback) {
                src[1] = 2;
            } else {
                A a;
                a.x = F::load(ln.ax + idx);
                a.y = F::load(ln.ay + idx);
                lane_store_bucket<A, X>(buckets, lcur, empty, a);
            }
        }
        const uint32_t sk[2] = {keys[b], lcur};
#pragma unroll 1
        for (int q = 0; q < 2; q++) {
            if (sk[q] != cur) {
                if (first_run && open_front) {
                    sum.store(pvals + 2 * t);
                    front_done = true;
                } else {
                    msm_store_bucket(buckets, cur, empty, sum);
                }
                first_run = false;
                sum = X::inf();
                cur = sk[q];
            }
            if (src[q] != 0) {
                A pt;
                pt.x = F::load(src[q] == 1 ? ln.fx + idx : ln.ax + idx);
                pt.y = F::load(src[q] == 1 ? ln.fy + idx : ln.ay + idx);
                if (!pt.is_inf())
                    sum.add_affine(pt);
            }
        }
    }
    if (first_run && (open_front || open_back)) {
        sum.store(pvals + 2 * t);
        front_done = true;
    } else if (open_back) {
        sum.store(pvals + 2 * t + 1);
        back_done = true;
    } else {
        msm_store_bucket(buckets, cur, empty, sum);
    }
    pkeys[2 * t] = first_key;
    pkeys[2 * t + 1] = cur;
    if (!front_done)
        X::inf().store(pvals + 2 * t);
    if (!back_done)
        X::inf().store(pvals + 2 * t + 1);
}

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_MSM_MSM_LANES_CUH */
