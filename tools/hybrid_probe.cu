/*
 * hybrid_probe: an Fp Montgomery product with a·b on the FP64 pipe and the reduction on the
 * integer multiply-adds, against mont.cuh's CIOS (fp_t::mul_wide), bit for bit and in rate.
 *
 * Why: the MSM and the NTT are bound by the FMA-heavy pipe that issues IMAD.WIDE
 * (BENCHMARKS.md runs 50, 53), while the FP64 pipe sits idle. Result (runs 55-58): exact, and
 * no faster in any variant (2.60-2.64 against CIOS's 2.71·10^10/s), because on sm_90 DFMA and
 * IMAD.WIDE share one capacity. Kept as the record of that. Here a and b go to eight 48-bit limbs
 * held in doubles; each of the 64 limb products is split exactly by two FMA (rounding toward zero
 * against 2^100 leaves floor(a_i·b_j / 2^48)·2^48; a second FMA gives the remainder below 2^48),
 * and the halves are summed per 48-bit column in doubles, exactly: a column gets at most 16 terms
 * below 2^48. The 16 columns become 24 32-bit limbs of T = a·b by integer shifts and adds, and
 * CIOS's reduction rows (m·p only, mont.cuh's pair layout) reduce T: (T_lo + M·p)/R + T_hi < 2p,
 * then one conditional subtraction, the same fully reduced result as any Montgomery product.
 *
 * A research probe, not used by the library. Build (the GPU machine runs it as built here):
 *   nvcc -O3 -arch=sm_90 -std=c++17 -Isrc -o hybrid_probe tools/hybrid_probe.cu
 * Exit status: 0 when every hybrid product equals CIOS's, 1 otherwise or on a CUDA error, 77
 * without a device.
 */
#include <stdint.h>
#include <stdio.h>

#include "gpu/cuda/ff/mont.cuh"
#include "probe.cuh"

using czk_cuda::fp_t;

#define MAGIC52 0x4330000000000000ULL /* the bits of 2^52 */

/* Eight 48-bit limbs of a 384-bit value (12 32-bit limbs), each exact in a double. */
__device__ __forceinline__ void to48(const uint32_t l[12], double d[8]) {
#pragma unroll
    for (int m = 0; m < 4; m++) {
        const uint64_t c0 = (uint64_t)l[3 * m] | ((uint64_t)(l[3 * m + 1] & 0xffffu) << 32);
        const uint64_t c1 = (uint64_t)(l[3 * m + 1] >> 16) | ((uint64_t)l[3 * m + 2] << 16);
        d[2 * m] = __longlong_as_double((long long)(c0 | MAGIC52)) - 4503599627370496.0;
        d[2 * m + 1] = __longlong_as_double((long long)(c1 | MAGIC52)) - 4503599627370496.0;
    }
}

/* Row i of a·b by DFMA (see the top): the eight limb products A_i·B_j into the columns. */
__device__ __forceinline__ void fp64_row(int i, const double A[8], const double B[8],
                                         double col[16]) {
    const double c100 = 1267650600228229401496703205376.0; /* 2^100 */
    const double inv48 = 3.552713678800501e-15;            /* 2^-48 */
#pragma unroll
    for (int j = 0; j < 8; j++) {
        const double h = __fma_rz(A[i], B[j], c100); /* 2^100 + floor(ab/2^48)·2^48 */
        const double nh = c100 - h;                  /* −floor(ab/2^48)·2^48, exact */
        const double lo = __fma_rn(A[i], B[j], nh);  /* ab mod 2^48, exact */
        col[i + j] += lo;
        col[i + j + 1] = __fma_rn(nh, -inv48, col[i + j + 1]); /* + floor(ab/2^48) */
    }
}

/* The columns (each < 2^52, at bit 48k) as t[0 .. 24). Even columns at limb 3m (k = 2m) and
 * odd ones at bit 16 of limb 3m + 1 (k = 2m + 1) never overlap among themselves, so T =
 * (even columns) + (odd columns) in one carry chain, each read from its double's mantissa. */
__device__ __forceinline__ void fp64_limbs(const double col[16], uint32_t t[24]) {
    uint64_t c[16];
#pragma unroll
    for (int k = 0; k < 16; k++)
        c[k] = (uint64_t)__double_as_longlong(col[k] + 4503599627370496.0) & 0xfffffffffffffULL;
    t[0] = (uint32_t)c[0];
    t[1] = czk_cuda::add_cc((uint32_t)(c[0] >> 32), (uint32_t)c[1] << 16);
    t[2] = czk_cuda::addc_cc((uint32_t)(c[1] >> 16), 0);
#pragma unroll
    for (int m = 1; m < 8; m++) {
        t[3 * m] = czk_cuda::addc_cc((uint32_t)c[2 * m], (uint32_t)(c[2 * m - 1] >> 48));
        t[3 * m + 1] = czk_cuda::addc_cc((uint32_t)(c[2 * m] >> 32), (uint32_t)c[2 * m + 1] << 16);
        t[3 * m + 2] = m < 7 ? czk_cuda::addc_cc((uint32_t)(c[2 * m + 1] >> 16), 0)
                             : czk_cuda::addc((uint32_t)(c[2 * m + 1] >> 16), 0);
    }
}

/* The DFMA half's start: a and b as 48-bit limbs, the columns cleared. */
__device__ __forceinline__ void fp64_begin(const fp_t &a, const fp_t &b, double A[8], double B[8],
                                           double col[16]) {
    to48(a.l, A);
    to48(b.l, B);
#pragma unroll
    for (int k = 0; k < 16; k++)
        col[k] = 0.0;
}

/* t[0 .. 24) = a·b by DFMA. */
__device__ __forceinline__ void prod_fp64(const fp_t &a, const fp_t &b, uint32_t t[24]) {
    double A[8], B[8], col[16];
    fp64_begin(a, b, A, B, col);
#pragma unroll
    for (int i = 0; i < 8; i++)
        fp64_row(i, A, B, col);
    fp64_limbs(col, t);
}

/* One reduction row of CIOS in mont.cuh's pair layout (t += m·p, m = t[0]·PINV, t /= 2^32). */
template <bool FIRST> __device__ __forceinline__ void redc_row(uint32_t x[12], uint32_t y[12]) {
    auto pl = [](int j) { return czk_cuda::fp_params::mod(j); };
    if (FIRST) {
        const uint32_t m = x[0] * czk_cuda::fp_params::pinv();
        fp_t::mul_pairs<1, 6>(y, pl, m);
        fp_t::mad_pairs<0, 6, false, true>(x, pl, m);
    } else {
        x[0] = czk_cuda::add_cc(x[0], y[1]);
        const uint32_t m = x[0] * czk_cuda::fp_params::pinv(); /* leaves the carry flag */
        fp_t::mad_pairs_shr<1>(y, pl, m);
        fp_t::mad_pairs<0, 6, false, true>(x, pl, m);
    }
    y[11] = czk_cuda::addc(y[11], 0);
}

/* Reduction row r of 12 (x and y swap roles each row, as in mont.cuh's mul_wide). */
__device__ __forceinline__ void redc_step(int r, uint32_t e[12], uint32_t o[12]) {
    if (r == 0)
        redc_row<true>(e, o);
    else if (r & 1)
        redc_row<false>(o, e);
    else
        redc_row<false>(e, o);
}

/* After the 12 rows: U = e + (o >> 32) <= p, then U + T_hi < 2p, then reduce once. */
__device__ __forceinline__ fp_t redc_finish(uint32_t e[12], const uint32_t o[12],
                                            const uint32_t t[24]) {
    e[0] = czk_cuda::add_cc(e[0], o[1]);
#pragma unroll
    for (int j = 1; j < 11; j++)
        e[j] = czk_cuda::addc_cc(e[j], o[j + 1]);
    e[11] = czk_cuda::addc(e[11], 0);
    e[0] = czk_cuda::add_cc(e[0], t[12]);
#pragma unroll
    for (int j = 1; j < 11; j++)
        e[j] = czk_cuda::addc_cc(e[j], t[12 + j]);
    e[11] = czk_cuda::addc(e[11], t[23]);
    return fp_t::reduce_once(e);
}

/* The Montgomery reduction of a full product t, row after row. */
__device__ __forceinline__ fp_t redc_all(const uint32_t t[24]) {
    uint32_t e[12], o[12];
#pragma unroll
    for (int j = 0; j < 12; j++)
        e[j] = t[j];
#pragma unroll
    for (int r = 0; r < 12; r++)
        redc_step(r, e, o);
    return redc_finish(e, o, t);
}

__device__ __forceinline__ fp_t mul_hybrid(const fp_t &a, const fp_t &b) {
    uint32_t t[24];
    prod_fp64(a, b, t);
    return redc_all(t);
}

/*
 * Software-pipelined pair: the DFMA half of a·b (into tn) interleaved, in source order, with
 * the IMAD reduction of an earlier product tp (whose result goes to *done): eight DFMA rows
 * against twelve reduction rows, two rows after an even DFMA row and one after an odd one.
 */
__device__ __forceinline__ void mul_hybrid_step(const fp_t &a, const fp_t &b, uint32_t tn[24],
                                                const uint32_t tp[24], fp_t *done) {
    double A[8], B[8], col[16];
    uint32_t e[12], o[12];
    fp64_begin(a, b, A, B, col);
#pragma unroll
    for (int j = 0; j < 12; j++)
        e[j] = tp[j];
    int r = 0;
#pragma unroll
    for (int i = 0; i < 8; i++) {
        fp64_row(i, A, B, col);
        redc_step(r++, e, o);
        if ((i & 1) == 0)
            redc_step(r++, e, o);
    }
    *done = redc_finish(e, o, tp);
    fp64_limbs(col, tn);
}

/* out[3i] = hybrid(a_i, b_i), out[3i + 1] = CIOS(a_i, b_i), out[3i + 2] = a_i·b_i as the
 * pipelined step completes it (beside the DFMA half of b_i·a_i). */
__global__ void check_kernel(fp_t *out, const fp_t *a, const fp_t *b, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        uint32_t tp[24], tn[24];
        out[3 * i] = mul_hybrid(a[i], b[i]);
        out[3 * i + 1] = fp_t::mul_wide(a[i], b[i]);
        prod_fp64(a[i], b[i], tp);
        mul_hybrid_step(b[i], a[i], tn, tp, &out[3 * i + 2]);
    }
}

/*
 * NC chains a_j <- a_j·b per thread, k steps; at least MINB blocks an SM. MODE 0 CIOS, 1 the
 * hybrid, 2 the hybrid pipelined over pairs of chains (NC even): chain 2q's DFMA half runs
 * beside the reduction of chain 2q + 1's previous product, and the other way round.
 */
template <int MODE, int NC, int MINB = 1>
__global__ void __launch_bounds__(256, MINB)
    rate_kernel(uint32_t *sink, const fp_t *in, unsigned n, unsigned k) {
    const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
    fp_t a[NC];
    const fp_t b = in[(tid * 7u + 3u) % n];
#pragma unroll
    for (int j = 0; j < NC; j++)
        a[j] = in[(tid + 977u * j) % n];
    if constexpr (MODE == 2) {
        static_assert(NC % 2 == 0, "pipelined chains come in pairs");
        uint32_t tx[NC / 2][24], ty[NC / 2][24];
#pragma unroll
        for (int q = 0; q < NC / 2; q++)
            prod_fp64(a[2 * q + 1], b, ty[q]);
        for (unsigned s = 0; s < k; s++) {
#pragma unroll
            for (int q = 0; q < NC / 2; q++) {
                mul_hybrid_step(a[2 * q], b, tx[q], ty[q], &a[2 * q + 1]);
                mul_hybrid_step(a[2 * q + 1], b, ty[q], tx[q], &a[2 * q]);
            }
        }
#pragma unroll
        for (int q = 0; q < NC / 2; q++) /* the last pending products */
            a[2 * q + 1] = redc_all(ty[q]);
    } else {
        for (unsigned s = 0; s < k; s++) {
#pragma unroll
            for (int j = 0; j < NC; j++)
                a[j] = MODE == 1 ? mul_hybrid(a[j], b) : fp_t::mul_wide(a[j], b);
        }
    }
    uint32_t h = 0;
#pragma unroll
    for (int j = 0; j < NC; j++)
        for (int i = 0; i < 12; i++)
            h ^= a[j].l[i];
    atomicXor(sink, h);
}

static uint64_t rng_state = 0x243f6a8885a308d3ULL;
static uint32_t rng32(void) {
    return (uint32_t)(probe_rng(&rng_state) >> 16);
}

/* Random x < p: the top limb below p's (0x1a0111ea). */
static void random_fp(fp_t *x, int edge) {
    for (int i = 0; i < 12; i++)
        x->l[i] = edge == 1 ? 0xffffffffu : edge == 2 ? 0u : rng32();
    x->l[11] = edge == 1 ? 0x1a0111e9u : x->l[11] % 0x1a0111eau;
}

template <int MODE, int NC, int MINB = 1>
static int time_rate(const fp_t *d_in, unsigned n, uint32_t *d_sink, int sms, double *rate,
                     int *regs) {
    cudaFuncAttributes fa;
    int per_sm = 0;
    CHECK(cudaFuncGetAttributes(&fa, rate_kernel<MODE, NC, MINB>));
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rate_kernel<MODE, NC, MINB>, 256,
                                                        0));
    *regs = fa.numRegs;
    const unsigned grid = (unsigned)(per_sm * sms), steps = 2048;
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    rate_kernel<MODE, NC, MINB><<<grid, 256>>>(d_sink, d_in, n, 16);
    CHECK(cudaGetLastError());
    float best = 1e30f;
    for (int r = 0; r < 3; r++) {
        float t;
        CHECK(cudaEventRecord(e0));
        rate_kernel<MODE, NC, MINB><<<grid, 256>>>(d_sink, d_in, n, steps);
        CHECK(cudaEventRecord(e1));
        CHECK(cudaEventSynchronize(e1));
        CHECK(cudaEventElapsedTime(&t, e0, e1));
        best = t < best ? t : best;
    }
    *rate = (double)grid * 256 * steps * NC / (best * 1e-3);
    return 0;
}

int main(void) {
    const int sms = probe_sms("hybrid_probe");
    if (sms == 0)
        return 77;
    const unsigned n = 1u << 18;
    static fp_t a[1u << 18], b[1u << 18], out[3u << 18];
    for (unsigned i = 0; i < n; i++) {
        random_fp(&a[i], i < 3 ? (int)i : 0);
        random_fp(&b[i], i < 9 ? (int)(i / 3) : 0);
    }
    fp_t *da, *db, *dout;
    uint32_t *sink;
    CHECK(cudaMalloc(&da, sizeof(a)));
    CHECK(cudaMalloc(&db, sizeof(b)));
    CHECK(cudaMalloc(&dout, sizeof(out)));
    CHECK(cudaMalloc(&sink, 4));
    CHECK(cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice));
    check_kernel<<<n / 256, 256>>>(dout, da, db, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    unsigned bad = 0, first = 0;
    for (unsigned i = 0; i < n; i++) {
        int same = 1;
        for (int j = 0; j < 12; j++)
            same &= out[3 * i].l[j] == out[3 * i + 1].l[j] &&
                    out[3 * i + 2].l[j] == out[3 * i + 1].l[j];
        if (!same && bad++ == 0)
            first = i;
    }
    printf("hybrid products (plain and pipelined): %u of %u differ from CIOS's%s\n", bad, n,
           bad ? " (first below)" : "");
    for (int w = 0; bad && w < 3; w++) {
        for (int j = 11; j >= 0; j--)
            printf("%08x", out[3 * first + w].l[j]);
        printf(" %s\n", w == 0 ? "hybrid" : w == 1 ? "CIOS" : "pipelined");
    }
    double r;
    int regs;
    struct {
        int (*fn)(const fp_t *, unsigned, uint32_t *, int, double *, int *);
        const char *what;
    } rows[] = {
        {time_rate<0, 4>, "CIOS (mul_wide), 4 chains"},
        {time_rate<1, 4>, "hybrid FP64+IMAD, 4 chains"},
        {time_rate<0, 1>, "CIOS (mul_wide), 1 chain"},
        {time_rate<1, 1>, "hybrid FP64+IMAD, 1 chain"},
        {time_rate<0, 2>, "CIOS, 2 chains"},
        {time_rate<1, 2>, "hybrid, 2 chains"},
        {time_rate<2, 2>, "hybrid pipelined, 2 chains"},
        {time_rate<2, 2, 2>, "hybrid pipelined, 2 chains, 2/SM"},
        {time_rate<1, 1, 3>, "hybrid, 1 chain, 3 blocks/SM"},
    };
    for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
        if (rows[i].fn(da, n, sink, sms, &r, &regs) == 0)
            printf("%-32s %3d registers  %.3e products/s\n", rows[i].what, regs, r);
    return bad == 0 ? 0 : 1;
}
