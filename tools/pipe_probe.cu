/*
 * pipe_probe: can sm_90's FP64 pipe multiply beside the integer multiply-adds?
 *
 * The MSM accumulation and the NTT are bound by the FMA-heavy pipe that issues the 32×32 →
 * 64-bit multiply-adds (BENCHMARKS.md, runs 50 and 53), while the FP64 pipe sits idle. A
 * 52×52 → 104-bit product takes two DFMA (Emmart, Zheng and Weems, ARITH 2018): hi = the
 * product plus 2^104 rounded toward zero (its low mantissa bits are floor(a·b / 2^52)), lo =
 * the exact a·b − hi·2^52 by a second FMA. This probe times, per thread, NC independent chains
 * of (a) IMAD.WIDE products, (b) such DFMA split products (five FP64 operations each: the two
 * FMA, the subtraction of 2^104 and the chain's two additions), (c) both interleaved, and
 * prints products per second for each. Read (c) against each pipe's peak (IMAD.WIDE 31 a
 * cycle an SM, FP64 64): on the H200 the two shares add to ~95 %, so the pipes share one
 * capacity (BENCHMARKS.md runs 54 and 58); the ratio to (a) and (b) alone misleads when (a)
 * is below its peak, as it is here (61 %). It checks split products of edge
 * and random operands against the integer product on the host. Links only libc, libstdc++
 * and static cudart (runs on the GPU machine as built here: nvcc -O3 -arch=sm_90 -o
 * pipe_probe tools/pipe_probe.cu). BENCHMARKS.md run 54 has its figures on the H200.
 *
 * Exit status: 0 when the split products are exact, 1 otherwise or on a CUDA error, 77
 * without a device.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "probe.cuh"

#define NC 8
#define STEPS 4096

/* a·b for a, b < 2^52 as (hs, lo), a·b = hs + lo with hs a multiple of 2^52 and lo < 2^52:
 * two DFMA and one DADD. */
__device__ __forceinline__ void split_mul(double a, double b, double *hs, double *lo) {
    const double c104 = 20282409603651670423947251286016.0; /* 2^104 */
    const double h = __fma_rz(a, b, c104);                  /* 2^104 + floor(ab/2^52)·2^52 */
    *hs = h - c104;                                         /* exact */
    *lo = __fma_rn(a, b, -*hs);                             /* exact: ab − hs < 2^52 */
}

/* MODE 0: IMAD.WIDE chains; 1: DFMA split chains; 2: both, interleaved. */
template <int MODE> __global__ void __launch_bounds__(256) probe(uint64_t *sink, unsigned steps) {
    const uint32_t tid = blockIdx.x * blockDim.x + threadIdx.x;
    uint64_t acc[NC];
    uint32_t m[NC];
    double da[NC], sh[NC], db = (double)((tid * 2654435761u) | 1u) * 1048576.0 + 3.0;
    for (int j = 0; j < NC; j++) {
        acc[j] = tid + j;
        m[j] = tid * 40503u + j * 977u + 1u;
        da[j] = (double)(tid + 7u * j + 1u) * 1073741824.0;
        sh[j] = 0.0;
    }
    for (unsigned s = 0; s < steps; s++) {
#pragma unroll
        for (int j = 0; j < NC; j++) {
            if (MODE != 1)
                acc[j] = (uint64_t)(uint32_t)acc[j] * m[j] + (acc[j] >> 32); /* IMAD.WIDE */
            if (MODE != 0) {
                double hs, lo;
                split_mul(da[j], db, &hs, &lo);
                /* The chain stays below 2^52 through lo; hs is kept live in a sum. Five FP64
                 * operations a product in all. */
                da[j] = lo + 1.0;
                sh[j] += hs;
            }
        }
    }
    uint64_t h = 0;
    for (int j = 0; j < NC; j++)
        h ^= acc[j] ^ (uint64_t)da[j] ^ (uint64_t)(sh[j] * 1e-60);
    atomicXor((unsigned long long *)sink, (unsigned long long)h);
}

/* out[2i], out[2i + 1] = split_mul(a[i], b[i]). */
__global__ void split_check(double *out, const double *a, const double *b, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        split_mul(a[i], b[i], &out[2 * i], &out[2 * i + 1]);
}

static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;
static uint64_t rng(void) {
    return probe_rng(&rng_state);
}

int main(void) {
    const int sms = probe_sms("pipe_probe");
    if (sms == 0)
        return 77;

    /* Exactness of the split on edge and random 52-bit operands. */
    const unsigned n = 1u << 16;
    static double a[1u << 16], b[1u << 16], out[2u << 16];
    for (unsigned i = 0; i < n; i++) {
        uint64_t x = rng() >> 12, y = rng() >> 12;
        if (i < 64) {
            x = (i & 1) ? (1ULL << 52) - 1 : (1ULL << (i % 52));
            y = (i & 2) ? (1ULL << 52) - 1 : (1ULL << ((i * 7) % 52));
        }
        a[i] = (double)x;
        b[i] = (double)y;
    }
    double *da, *db, *dout;
    CHECK(cudaMalloc(&da, sizeof(a)));
    CHECK(cudaMalloc(&db, sizeof(b)));
    CHECK(cudaMalloc(&dout, sizeof(out)));
    CHECK(cudaMemcpy(da, a, sizeof(a), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b, sizeof(b), cudaMemcpyHostToDevice));
    split_check<<<n / 256, 256>>>(dout, da, db, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpy(out, dout, sizeof(out), cudaMemcpyDeviceToHost));
    unsigned bad = 0;
    for (unsigned i = 0; i < n; i++) {
        const unsigned __int128 p = (unsigned __int128)(uint64_t)a[i] * (uint64_t)b[i];
        const uint64_t hi = (uint64_t)(p >> 52), lo = (uint64_t)p & ((1ULL << 52) - 1);
        const double hs = out[2 * i] * 2.220446049250313e-16; /* exact: · 2^−52 */
        if (hs < 0 || out[2 * i + 1] < 0 || (uint64_t)hs != hi || (uint64_t)out[2 * i + 1] != lo)
            bad++;
    }
    printf("split products: %u of %u differ from the integer product\n", bad, n);

    uint64_t *sink;
    CHECK(cudaMalloc(&sink, 8));
    cudaEvent_t e0, e1;
    CHECK(cudaEventCreate(&e0));
    CHECK(cudaEventCreate(&e1));
    const char *names[3] = {"IMAD.WIDE chains", "DFMA split chains", "both interleaved"};
    float ms[3];
    for (int mode = 0; mode < 3; mode++) {
        int per_sm = 0;
        void (*fn)(uint64_t *, unsigned) = mode == 0 ? probe<0> : mode == 1 ? probe<1> : probe<2>;
        CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, 256, 0));
        const unsigned grid = (unsigned)(per_sm * sms);
        fn<<<grid, 256>>>(sink, 64); /* warm-up */
        CHECK(cudaGetLastError());
        float best = 1e30f;
        for (int r = 0; r < 3; r++) {
            CHECK(cudaEventRecord(e0));
            fn<<<grid, 256>>>(sink, STEPS);
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float t;
            CHECK(cudaEventElapsedTime(&t, e0, e1));
            best = t < best ? t : best;
        }
        ms[mode] = best;
        const double prods = (double)grid * 256 * STEPS * NC;
        printf("%-20s blocks/SM %d  %8.3f ms  %.3e products/s of each kind\n", names[mode], per_sm,
               best, prods / (best * 1e-3));
    }
    printf("interleaved / max(separate) = %.2f, interleaved / sum = %.2f (compare each kind's "
           "rate with its pipe's peak: IMAD.WIDE 31, FP64 64 a cycle an SM)\n",
           ms[2] / (ms[0] > ms[1] ? ms[0] : ms[1]), ms[2] / (ms[0] + ms[1]));
    return bad == 0 ? 0 : 1;
}
