/*
 * The prover backend's fixed_base entry (groth16/backend.h): out[i] = [k[i]]·G for the G1 or
 * G2 generator G, for the development key generator (groth16/setup.c), which needs some 450 M
 * G1 and 92 M G2 such points for a 2^27-row circuit.
 *
 * DESIGN. A fixed base allows a comb without doublings. With windows of W = 16 bits, a scalar
 * (canonical, < r < 2^255) is 16 signed digits d_w in [−2^15, 2^15] (each 16-bit piece plus
 * the carry of the one below; a sum above 2^15 becomes sum − 2^16 and carries one; the top
 * piece is at most 0x73ed, so it never carries out), and
 *     [k]G = Σ_w [d_w]·(2^(16w)·G) = Σ_w ±T[w][|d_w| − 1],  T[w][j] = [(j + 1)·2^(16w)]G,
 * at most 16 table points (15 mixed XYZZ additions, ec/xyzz.cuh's add_affine) a scalar, about
 * 150 Fp products. T has 16 × 2^15 affine points (48 MiB in G1, 96 MiB in G2), built on the
 * device at every call (fb_table_kernel: each entry by double-and-add from 2^(16w)·G, the 16
 * bases doubled on the CPU, then one inversion each; a few ms) and freed at its end. All
 * threads of a launch walk the windows in step, so the part of T they read at a time is one
 * window's 3 MiB (G1) or 6 MiB (G2), held in L2. Smaller windows (13 bits: 20 windows, T in
 * L2 whole) cost 19 additions instead of 15; larger ones (20 bits: 13 windows) save 3 but
 * make each window's part of T 16 times larger (48 MiB in G1, past L2) and T's build 13 times
 * longer.
 *
 * Per chunk of m scalars, two kernels on the context's stream:
 *  - fb_mul_kernel, a thread a scalar: from Montgomery form, recoding, the sum in XYZZ with
 *    each table point copied into shared memory (cp.async) while the addition before it runs
 *    (as the MSM's accumulation does); then it writes a = X·ZZZ, b = Y·ZZ in the output's x
 *    and y and d = ZZ·ZZZ in scratch (infinity: a = b = 0, d = 1). Since ZZ³ = ZZZ², with
 *    t = 1/d: x = X/ZZ = a·t and y = Y/ZZZ = b·t.
 *  - fb_affine_kernel: Montgomery's trick over FB_BATCH points a thread (points t, t + T,
 *    t + 2T, ..., so that a warp's loads are adjacent): prefix products of d into scratch, one
 *    inversion (ff/bingcd.cuh, ~63 products), then back down, t_i and the running inverse two
 *    products a point, x and y two more. Infinity comes out (0, 0). Affine coordinates are
 *    unique and the arithmetic exact, so the bytes are the CPU's.
 *
 * Chunks (2^22 G1 / 2^21 G2 scalars at most, 384 MiB of output either way, or what the budget
 * leaves) go through two sets of device buffers and, for large calls, two pinned staging
 * buffers each way (the backend's host_alloc, kept for reuse): for chunk c the CPU copies the
 * scalars into pinned memory (on the pool), a copy stream moves them to the device, the
 * context's stream computes, a third stream copies the points back, and the CPU copies chunk
 * c − 1's points from pinned memory into the caller's array while the device works on chunk c.
 * Events order the reuse of each buffer two chunks later. Small calls (or without pinned
 * memory) copy from and to the caller's arrays directly.
 *
 * Memory: everything is allocated for the call (counted, czk__gpu_malloc) in what the budget
 * leaves beside the backend's arena and keys, and freed before it returns; when the arena is
 * larger than that, the call works inside the arena instead (a later MSM re-reads its scalars,
 * as after any other use). The kernels' local memory stays within the MSM kernels' (which the
 * budget already holds back); should it not, the difference is held back too.
 *
 * One thread at a time per backend, like every entry. Variable time in k.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/cuda/ec/prefetch.cuh"
#include "gpu/cuda/ec/xyzz.cuh"
#include "gpu/cuda/ff/fp2.cuh"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/plan.cuh"
#include "gpu/cuda/prover.cuh"
#include "gpu/cuda/setup/fixed_base.cuh"
#include "util/pool.h"
#include "util/status.h"

/* Window bits, windows (16·16 = 256 bits: 255 and the top carry's room) and table entries a
 * window (|d| = 1 .. 2^15). */
#define FB_W 16
#define FB_WINDOWS 16
#define FB_DIGITS (1u << (FB_W - 1))
#define FB_TABLE (FB_WINDOWS * FB_DIGITS)
/* Points a thread of fb_affine_kernel shares one inversion among: ~2 products a point. */
#define FB_BATCH 32
/* Threads a block of the table and affine kernels. */
#define FB_AUX_BLOCK 128
/* The smallest chunk a call accepts when it must cut its input (a multiple of 256). */
#define FB_MIN_CHUNK ((size_t)1 << 12)
/* Calls below this many scalars copy from and to the caller's arrays directly. */
#define FB_STAGE_MIN ((size_t)1 << 16)

namespace {

using czk_cuda::fmul;
using czk_cuda::fr_t;

/* ---- device code --------------------------------------------------------------------- */

/* The next table point is staged in shared memory (ec/prefetch.cuh). */

/*
 * Recodes the canonical scalar l (< r) in place into signed digits: 16-bit piece w becomes
 * v = (piece + carry) mod 2^16, carry = [piece + carry > 2^15]; v encodes d_w = v for
 * v <= 2^15 and v − 2^16 above.
 */
__device__ __forceinline__ void fb_recode(uint32_t l[8]) {
    uint32_t carry = 0;
#pragma unroll
    for (int w = 0; w < FB_WINDOWS; w++) {
        const uint32_t limb = l[w / 2], sh = (uint32_t)(w & 1) * 16u;
        const uint32_t v = ((limb >> sh) & 0xffffu) + carry;
        carry = v > FB_DIGITS ? 1u : 0u;
        l[w / 2] = (limb & ~(0xffffu << sh)) | ((v & 0xffffu) << sh);
    }
}

/* Shifts the recoded scalar down by one piece: l[0]'s low 16 bits become the next piece (0
 * past the last). Static indices only, so that l stays in registers. */
__device__ __forceinline__ void fb_shift(uint32_t l[8]) {
#pragma unroll
    for (int j = 0; j < 7; j++)
        l[j] = __funnelshift_r(l[j], l[j + 1], 16);
    l[7] >>= 16;
}

/* The table entry of nonzero piece v of window w: |d| − 1 within the window's 2^15. */
__device__ __forceinline__ uint32_t fb_entry(unsigned w, uint32_t v) {
    const uint32_t mag = v > FB_DIGITS ? 0x10000u - v : v;
    return w * FB_DIGITS + mag - 1u;
}

/*
 * T[e] = [(e mod 2^15 + 1)·2^(16·(e / 2^15))]G from bases[w] = 2^(16w)·G: double-and-add over
 * the bits of the multiple, then one inversion. Never infinity (the multiple is below r
 * times a power of two, r prime).
 */
template <class A, class X>
__global__ void __launch_bounds__(FB_AUX_BLOCK) fb_table_kernel(A *table, const A *bases) {
    typedef decltype(A::x) F;
    const uint32_t e = blockIdx.x * FB_AUX_BLOCK + threadIdx.x;
    if (e >= FB_TABLE)
        return;
    const A b = A::load_ro(bases + e / FB_DIGITS);
    const uint32_t d = e % FB_DIGITS + 1u;
    X acc = X::inf();
#pragma unroll 1
    for (int bit = FB_W - 1; bit >= 0; bit--) {
        acc.dbl();
        if ((d >> bit) & 1u)
            acc.add_affine(b);
    }
    const F t = fmul(acc.zz, acc.zzz).inv();
    A r;
    r.x = fmul(fmul(acc.x, acc.zzz), t);
    r.y = fmul(fmul(acc.y, acc.zz), t);
    r.x.store(&table[e].x);
    r.y.store(&table[e].y);
}

/*
 * Scalar i < m of k (Montgomery form) times G, in XYZZ from the table, written as a = X·ZZZ,
 * b = Y·ZZ to ab[i] (affine's place) and d = ZZ·ZZZ to dz[i]; infinity as a = b = 0, d = 1.
 * Table points are staged in shared memory one window ahead (cp.async, two slots a thread).
 */
template <class A, class X, unsigned BLOCK>
__global__ void __launch_bounds__(BLOCK, 1)
    fb_mul_kernel(A *ab, decltype(A::x) *dz, const fr_t *k, const A *table, uint32_t m) {
    typedef decltype(A::x) F;
    __shared__ A stage[2][BLOCK];
    const uint32_t i = blockIdx.x * BLOCK + threadIdx.x;
    if (i >= m)
        return;
    fr_t s = fr_t::load(k + i).from_mont();
    fb_recode(s.l);
    X acc = X::inf();
    uint32_t cur = s.l[0] & 0xffffu;
    if (cur != 0)
        czk_cuda::prefetch_point(&stage[0][threadIdx.x], table + fb_entry(0, cur));
#pragma unroll 1
    for (unsigned w = 0; w < FB_WINDOWS; w++) {
        fb_shift(s.l);
        const uint32_t nxt = s.l[0] & 0xffffu; /* piece w + 1; 0 after the last */
        if (cur != 0) {
            czk_cuda::cp_async_wait_all();
            const A *slot = &stage[w & 1][threadIdx.x];
            A p;
            p.x = F::load(&slot->x);
            p.y = F::load(&slot->y);
            /* The other slot was last read for window w − 1, whose addition is done. */
            if (nxt != 0)
                czk_cuda::prefetch_point(&stage[(w + 1) & 1][threadIdx.x],
                                         table + fb_entry(w + 1, nxt));
            if (cur > FB_DIGITS)
                p.y = p.y.neg();
            acc.add_affine(p);
        } else if (nxt != 0) {
            czk_cuda::prefetch_point(&stage[(w + 1) & 1][threadIdx.x],
                                     table + fb_entry(w + 1, nxt));
        }
        cur = nxt;
    }
    F a, b, d;
    if (acc.is_inf()) {
        a = F::zero();
        b = F::zero();
        d = F::one();
    } else {
        a = fmul(acc.x, acc.zzz);
        b = fmul(acc.y, acc.zz);
        d = fmul(acc.zz, acc.zzz);
    }
    a.store(&ab[i].x);
    b.store(&ab[i].y);
    d.store(dz + i);
}

/*
 * ab[i] = (a·t, b·t) with t = 1/dz[i] for i < m: thread t < T takes points t, t + T, ...
 * (T·FB_BATCH >= m) and shares one inversion among them (Montgomery's trick, prefix
 * products in pre).
 */
template <class A>
__global__ void __launch_bounds__(FB_AUX_BLOCK)
    fb_affine_kernel(A *ab, const decltype(A::x) *dz, decltype(A::x) *pre, uint32_t m, uint32_t T) {
    typedef decltype(A::x) F;
    const uint32_t t = blockIdx.x * FB_AUX_BLOCK + threadIdx.x;
    if (t >= T)
        return;
    F acc = F::one();
    uint32_t cnt = 0;
    for (uint32_t i = t; i < m; i += T, cnt++) {
        acc.store(pre + i);
        acc = fmul(acc, F::load(dz + i));
    }
    F inv = acc.inv();
    while (cnt-- > 0) {
        const uint32_t i = t + cnt * T;
        const F ti = fmul(inv, F::load(pre + i));
        inv = fmul(inv, F::load(dz + i));
        const F x = fmul(F::load(&ab[i].x), ti);
        const F y = fmul(F::load(&ab[i].y), ti);
        x.store(&ab[i].x);
        y.store(&ab[i].y);
    }
}

/* ---- the two groups ---------------------------------------------------------------------- */

struct fb_g1 {
    typedef czk_cuda::fp_t F;
    typedef czk_cuda::g1_affine_t A;
    typedef czk_cuda::g1_xyzz_t X;
    typedef czk_g1_affine host_affine;
    static constexpr int id = 1;
    /* One block of 256 an SM, as the MSM's G1 accumulation (msm.cuh, MSM_ACC_G1_BLOCK). */
    static constexpr unsigned BLOCK = 256;
    static constexpr unsigned CHUNK_LG = 22;
    /* bases[w] = 2^(16w)·G. */
    static int bases(host_affine *out) {
        czk_g1_jacobian j[FB_WINDOWS];
        czk_g1_jacobian_from_affine(&j[0], &CZK_G1_GENERATOR);
        for (int w = 1; w < FB_WINDOWS; w++) {
            j[w] = j[w - 1];
            for (int b = 0; b < FB_W; b++)
                czk_g1_jacobian_dbl(&j[w], &j[w]);
        }
        return czk_g1s_to_affine(out, j, FB_WINDOWS);
    }
};

struct fb_g2 {
    typedef czk_cuda::fp2_t F;
    typedef czk_cuda::g2_affine_t A;
    typedef czk_cuda::g2_xyzz_t X;
    typedef czk_g2_affine host_affine;
    static constexpr int id = 2;
    /* 128, as the MSM's G2 accumulation (MSM_ACC_G2_BLOCK). */
    static constexpr unsigned BLOCK = 128;
    static constexpr unsigned CHUNK_LG = 21;
    static int bases(host_affine *out) {
        czk_g2_jacobian j[FB_WINDOWS];
        czk_g2_jacobian_from_affine(&j[0], &CZK_G2_GENERATOR);
        for (int w = 1; w < FB_WINDOWS; w++) {
            j[w] = j[w - 1];
            for (int b = 0; b < FB_W; b++)
                czk_g2_jacobian_dbl(&j[w], &j[w]);
        }
        return czk_g2s_to_affine(out, j, FB_WINDOWS);
    }
};

static_assert(sizeof(fb_g1::A) == sizeof(czk_g1_affine), "G1 affine layouts differ");
static_assert(sizeof(fb_g2::A) == sizeof(czk_g2_affine), "G2 affine layouts differ");
static_assert(sizeof(fr_t) == sizeof(czk_fr), "Fr layouts differ");

/* ---- host side --------------------------------------------------------------------------- */

struct fb_copy_arg {
    char *dst;
    const char *src;
};

void fb_copy_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    const fb_copy_arg *a = (const fb_copy_arg *)arg;
    (void)worker;
    memcpy(a->dst + begin, a->src + begin, end - begin);
}

/* memcpy on the pool's threads, in pieces of 1 MiB or more. */
void fb_host_copy(czk_pool *pool, void *dst, const void *src, size_t bytes) {
    fb_copy_arg a = {(char *)dst, (const char *)src};
    czk_pool_run(pool, bytes, (size_t)1 << 20, fb_copy_fn, &a);
}

/* Device bytes of a call's layout: the table and its bases, nb buffers of c scalars and of c
 * output points, the scratch of c points (d and the prefix products). */
template <class GR> size_t fb_bytes(size_t c, size_t nb) {
    typedef typename GR::A A;
    typedef typename GR::F F;
    return czk__gpu_align(FB_TABLE * sizeof(A)) + czk__gpu_align(FB_WINDOWS * sizeof(A)) +
           nb * (czk__gpu_align(c * sizeof(fr_t)) + czk__gpu_align(c * sizeof(A))) +
           2 * czk__gpu_align(c * sizeof(F));
}

/* The chunk for n scalars in `room` device bytes, at most cap (a multiple of 256): all of n
 * with one set of buffers when that fits, else the largest multiple of 256 with two
 * (*nb = 2); 0 when not even FB_MIN_CHUNK (or cap, when smaller) fits. */
template <class GR> size_t fb_pick(size_t room, size_t n, size_t cap, size_t *nb) {
    const size_t per = 2 * sizeof(fr_t) + 2 * sizeof(typename GR::A) + 2 * sizeof(typename GR::F);
    const size_t fixed = fb_bytes<GR>(0, 2) + 6 * CZK__GPU_ARENA_ALIGN;
    size_t c;
    *nb = 1;
    if (n <= cap && fb_bytes<GR>(n, 1) <= room)
        return n;
    *nb = 2;
    if (room <= fixed)
        return 0;
    c = (room - fixed) / per;
    c = (c < cap ? c : cap) & ~(size_t)255;
    return c >= (cap < FB_MIN_CHUNK ? cap : FB_MIN_CHUNK) ? c : 0;
}

/* Local bytes the driver would reserve for these kernels beyond what it holds for the MSM's
 * (czk__gpu_msm_local_bytes, already out of the budget); usually 0. */
template <class GR> int fb_extra_local(czk_gpu *g, size_t *extra, czk_err *err) {
    int rc = CZK_OK, threads = 0;
    size_t most = 0, msm = 0, mine;
    const void *fns[3] = {(const void *)fb_table_kernel<typename GR::A, typename GR::X>,
                          (const void *)fb_mul_kernel<typename GR::A, typename GR::X, GR::BLOCK>,
                          (const void *)fb_affine_kernel<typename GR::A>};
    *extra = 0;
    for (int i = 0; i < 3; i++) {
        cudaFuncAttributes fa;
        CZK_CUDA_TRY(err, cudaFuncGetAttributes(&fa, fns[i]));
        most = fa.localSizeBytes > most ? fa.localSizeBytes : most;
    }
    CZK_CUDA_TRY(
        err, cudaDeviceGetAttribute(&threads, cudaDevAttrMaxThreadsPerMultiProcessor, g->device));
    CZK_TRY(czk__gpu_msm_local_bytes(g, &msm, err));
    mine = most * (size_t)threads * (size_t)g->sm_count;
    *extra = mine > msm ? mine - msm : 0;
out:
    return rc;
}

/* Streams and events of one call (created and destroyed by it). */
struct fb_sync {
    cudaStream_t in, out;
    cudaEvent_t copied_in[2], consumed[2], computed[2], copied_out[2];
    cudaEvent_t k0[2], k1[2], t0, t1; /* timing (opts->gpu_ms), else NULL */
};

void fb_sync_destroy(fb_sync *s) {
    cudaEvent_t *evs[6] = {s->copied_in, s->consumed, s->computed, s->copied_out, s->k0, s->k1};
    if (s->in != NULL)
        (void)cudaStreamSynchronize(s->in);
    if (s->out != NULL)
        (void)cudaStreamSynchronize(s->out);
    for (int a = 0; a < 6; a++)
        for (int j = 0; j < 2; j++)
            if (evs[a][j] != NULL)
                (void)cudaEventDestroy(evs[a][j]);
    if (s->t0 != NULL)
        (void)cudaEventDestroy(s->t0);
    if (s->t1 != NULL)
        (void)cudaEventDestroy(s->t1);
    if (s->in != NULL)
        (void)cudaStreamDestroy(s->in);
    if (s->out != NULL)
        (void)cudaStreamDestroy(s->out);
    memset(s, 0, sizeof(*s));
}

int fb_sync_create(fb_sync *s, bool timing, czk_err *err) {
    int rc = CZK_OK;
    memset(s, 0, sizeof(*s));
    CZK_CUDA_TRY(err, cudaStreamCreateWithFlags(&s->in, cudaStreamNonBlocking));
    CZK_CUDA_TRY(err, cudaStreamCreateWithFlags(&s->out, cudaStreamNonBlocking));
    for (int j = 0; j < 2; j++) {
        CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&s->copied_in[j], cudaEventDisableTiming));
        CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&s->consumed[j], cudaEventDisableTiming));
        CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&s->computed[j], cudaEventDisableTiming));
        CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&s->copied_out[j], cudaEventDisableTiming));
        if (timing) {
            CZK_CUDA_TRY(err, cudaEventCreate(&s->k0[j]));
            CZK_CUDA_TRY(err, cudaEventCreate(&s->k1[j]));
        }
    }
    if (timing) {
        CZK_CUDA_TRY(err, cudaEventCreate(&s->t0));
        CZK_CUDA_TRY(err, cudaEventCreate(&s->t1));
    }
out:
    return rc;
}

template <class GR>
int fb_run(czk__gpu_backend *b, const czk_fr *k, size_t n, void *out_v,
           const czk__gpu_fixed_base_opts *opts, czk_pool *pool, czk_err *err) {
    typedef typename GR::A A;
    typedef typename GR::F F;
    typedef typename GR::X X;
    czk_gpu *g = b->g;
    int rc = CZK_OK;
    char *out = (char *)out_v;
    const size_t aff = sizeof(A);
    const bool timing = opts != NULL && opts->gpu_ms != NULL;
    size_t cap = (size_t)1 << GR::CHUNK_LG, used, avail = 0, extra = 0, chunk = 0, nb = 0;
    size_t chunk_arena = 0, nb_arena = 0, region_bytes = 0, nchunks = 0;
    char *region = NULL, *cur = NULL;
    bool own = false, staged = false;
    A *d_table = NULL, *d_bases = NULL, *d_out[2] = {NULL, NULL};
    fr_t *d_k[2] = {NULL, NULL};
    F *d_dz = NULL, *d_pre = NULL;
    void *pin_in[2] = {NULL, NULL}, *pin_out[2] = {NULL, NULL};
    fb_sync sy;
    float ms = 0.0f;
    double gpu_ms = 0.0;
    typename GR::host_affine bases[FB_WINDOWS];

    memset(&sy, 0, sizeof(sy));
    if (opts != NULL && opts->max_chunk > 0) {
        const size_t mc = (opts->max_chunk + 255) & ~(size_t)255;
        cap = mc < cap ? mc : cap;
    }
    CZK_TRY(czk__gpu_enter(g, err));

    /* Room: what the budget leaves beside the backend's arena, keys and tables, or the arena
     * itself when that is larger. */
    CZK_TRY(fb_extra_local<GR>(g, &extra, err));
    used = g->mem_in_use + extra;
    avail = b->budget > used ? b->budget - used : 0;
    chunk = fb_pick<GR>(avail, n, cap, &nb);
    if (b->arena != NULL && b->arena_bytes > avail && b->budget >= used)
        chunk_arena = fb_pick<GR>(b->arena_bytes, n, cap, &nb_arena);
    if (chunk_arena > chunk) {
        b->h_host = NULL; /* the arena no longer holds h */
        chunk = chunk_arena;
        nb = nb_arena;
        region = (char *)b->arena;
    } else if (chunk > 0) {
        region_bytes = fb_bytes<GR>(chunk, nb);
        CZK_TRY(czk__gpu_malloc(g, (void **)&region, region_bytes, err));
        own = true;
    } else {
        rc = czk_err_set(err, CZK_ENOMEM,
                         "gpu fixed_base G%d: the table (%zu bytes) and a chunk of %zu scalars "
                         "do not fit: %zu bytes of the budget free, arena %zu",
                         GR::id, fb_bytes<GR>(0, 1), n < FB_MIN_CHUNK ? n : FB_MIN_CHUNK, avail,
                         b->arena_bytes);
        goto out;
    }
    nchunks = (n + chunk - 1) / chunk;

    /* The layout (fb_bytes's order). */
    cur = region;
    d_table = (A *)cur;
    cur += czk__gpu_align(FB_TABLE * sizeof(A));
    d_bases = (A *)cur;
    cur += czk__gpu_align(FB_WINDOWS * sizeof(A));
    for (size_t s = 0; s < nb; s++) {
        d_k[s] = (fr_t *)cur;
        cur += czk__gpu_align(chunk * sizeof(fr_t));
        d_out[s] = (A *)cur;
        cur += czk__gpu_align(chunk * aff);
    }
    d_dz = (F *)cur;
    cur += czk__gpu_align(chunk * sizeof(F));
    d_pre = (F *)cur;

    /* Pinned staging for large calls; without it (the limit reached), direct copies. */
    if (n >= FB_STAGE_MIN && (opts == NULL || !opts->no_pinned) && b->be.host_alloc != NULL) {
        staged = true;
        for (size_t s = 0; s < nb; s++) {
            pin_in[s] = b->be.host_alloc(b, chunk * sizeof(czk_fr));
            pin_out[s] = b->be.host_alloc(b, chunk * aff);
            staged = staged && pin_in[s] != NULL && pin_out[s] != NULL;
        }
        if (!staged) {
            for (size_t s = 0; s < nb; s++) {
                if (pin_in[s] != NULL)
                    b->be.host_free(b, pin_in[s], chunk * sizeof(czk_fr));
                if (pin_out[s] != NULL)
                    b->be.host_free(b, pin_out[s], chunk * aff);
                pin_in[s] = pin_out[s] = NULL;
            }
        }
    }
    CZK_TRY(fb_sync_create(&sy, timing, err));

    /* The table. */
    if (GR::bases(bases) != CZK_OK) {
        rc = czk_err_set(err, CZK_ENOMEM, "gpu fixed_base: the table's bases");
        goto out;
    }
    if (timing)
        CZK_CUDA_TRY(err, cudaEventRecord(sy.t0, g->stream));
    CZK_CUDA_TRY(err,
                 cudaMemcpyAsync(d_bases, bases, sizeof(bases), cudaMemcpyHostToDevice, g->stream));
    fb_table_kernel<A, X>
        <<<(FB_TABLE + FB_AUX_BLOCK - 1) / FB_AUX_BLOCK, FB_AUX_BLOCK, 0, g->stream>>>(d_table,
                                                                                       d_bases);
    CZK_CUDA_TRY(err, cudaGetLastError());
    if (timing)
        CZK_CUDA_TRY(err, cudaEventRecord(sy.t1, g->stream));

    /* Chunk c goes in and is computed while chunk c − 1's points go out (see DESIGN). */
    for (size_t c = 0; c <= nchunks; c++) {
        if (c < nchunks) {
            const size_t s = nb == 2 ? c & 1 : 0, off = c * chunk;
            const size_t m = n - off < chunk ? n - off : chunk;
            const uint32_t T = (uint32_t)((m + FB_BATCH - 1) / FB_BATCH);
            const void *src = k + off;
            if (staged) {
                /* Its last copy (chunk c − 2's) has long finished: chunk c − 2's points are
                 * out. The event says so explicitly. */
                if (c >= 2)
                    CZK_CUDA_TRY(err, cudaEventSynchronize(sy.copied_in[s]));
                fb_host_copy(pool, pin_in[s], k + off, m * sizeof(czk_fr));
                src = pin_in[s];
            }
            if (c >= 2) /* d_k[s] read by chunk c − 2's multiplication */
                CZK_CUDA_TRY(err, cudaStreamWaitEvent(sy.in, sy.consumed[s], 0));
            CZK_CUDA_TRY(err, cudaMemcpyAsync(d_k[s], src, m * sizeof(czk_fr),
                                              cudaMemcpyHostToDevice, sy.in));
            CZK_CUDA_TRY(err, cudaEventRecord(sy.copied_in[s], sy.in));
            CZK_CUDA_TRY(err, cudaStreamWaitEvent(g->stream, sy.copied_in[s], 0));
            if (c >= 2) /* d_out[s] copied out for chunk c − 2 */
                CZK_CUDA_TRY(err, cudaStreamWaitEvent(g->stream, sy.copied_out[s], 0));
            if (timing)
                CZK_CUDA_TRY(err, cudaEventRecord(sy.k0[s], g->stream));
            fb_mul_kernel<A, X, GR::BLOCK>
                <<<(unsigned)((m + GR::BLOCK - 1) / GR::BLOCK), GR::BLOCK, 0, g->stream>>>(
                    d_out[s], d_dz, d_k[s], d_table, (uint32_t)m);
            CZK_CUDA_TRY(err, cudaGetLastError());
            CZK_CUDA_TRY(err, cudaEventRecord(sy.consumed[s], g->stream));
            fb_affine_kernel<A>
                <<<(T + FB_AUX_BLOCK - 1) / FB_AUX_BLOCK, FB_AUX_BLOCK, 0, g->stream>>>(
                    d_out[s], d_dz, d_pre, (uint32_t)m, T);
            CZK_CUDA_TRY(err, cudaGetLastError());
            if (timing)
                CZK_CUDA_TRY(err, cudaEventRecord(sy.k1[s], g->stream));
            CZK_CUDA_TRY(err, cudaEventRecord(sy.computed[s], g->stream));
            CZK_CUDA_TRY(err, cudaStreamWaitEvent(sy.out, sy.computed[s], 0));
            CZK_CUDA_TRY(err, cudaMemcpyAsync(staged ? pin_out[s] : (void *)(out + off * aff),
                                              d_out[s], m * aff, cudaMemcpyDeviceToHost, sy.out));
            CZK_CUDA_TRY(err, cudaEventRecord(sy.copied_out[s], sy.out));
        }
        if (c >= 1) {
            /* Chunk c − 1 is done once its points are out. */
            const size_t p = nb == 2 ? (c - 1) & 1 : 0, off = (c - 1) * chunk;
            const size_t m = n - off < chunk ? n - off : chunk;
            CZK_CUDA_TRY(err, cudaEventSynchronize(sy.copied_out[p]));
            if (timing) {
                CZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, sy.k0[p], sy.k1[p]));
                gpu_ms += ms;
            }
            if (staged)
                fb_host_copy(pool, out + off * aff, pin_out[p], m * aff);
        }
    }
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    if (timing) {
        CZK_CUDA_TRY(err, cudaEventElapsedTime(&ms, sy.t0, sy.t1));
        *opts->gpu_ms = gpu_ms + ms;
    }
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    fb_sync_destroy(&sy); /* waits for the copy streams */
    for (size_t s = 0; s < 2; s++) {
        if (pin_in[s] != NULL)
            b->be.host_free(b, pin_in[s], chunk * sizeof(czk_fr));
        if (pin_out[s] != NULL)
            b->be.host_free(b, pin_out[s], chunk * aff);
    }
    if (own)
        czk__gpu_free(g, region, region_bytes);
    return rc;
}

} // namespace

int czk__gpu_fixed_base_opts_run(void *ctx, int g2, const czk_fr *k, size_t n, void *out,
                                 const czk__gpu_fixed_base_opts *opts, czk_pool *pool,
                                 czk_err *err) {
    czk__gpu_backend *b = (czk__gpu_backend *)ctx;
    if (b == NULL || (n > 0 && (k == NULL || out == NULL)))
        return czk_err_set(err, CZK_EINVAL, "gpu fixed_base: NULL argument");
    if (g2 != 0 && g2 != 1)
        return czk_err_set(err, CZK_EINVAL, "gpu fixed_base: group flag %d is neither 0 nor 1", g2);
    if (n == 0)
        return CZK_OK;
    return g2 ? fb_run<fb_g2>(b, k, n, out, opts, pool, err)
              : fb_run<fb_g1>(b, k, n, out, opts, pool, err);
}

int czk__gpu_fixed_base(void *ctx, int g2, const czk_fr *k, size_t n, void *out, czk_pool *pool,
                        czk_err *err) {
    return czk__gpu_fixed_base_opts_run(ctx, g2, k, n, out, NULL, pool, err);
}
