/*
 * The SpMV kernels of whole proofs and their launchers (spmv.cuh says what each computes).
 */
#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/spmv/spmv.cuh"

namespace czk_whole {

namespace {

unsigned grid(size_t n) {
    return (unsigned)((n + 255) / 256);
}

/* One warp per row rows[k] (k < count) of m, whose row pointers start at row r0 (the first
 * row of a streamed chunk; 0 for a resident matrix): out[row] = the row's dot with w. */
__global__ void __launch_bounds__(256)
    spmv_long_kernel(fr_t *out, csr1 m, const fr_t *w, const uint32_t *rows, size_t count,
                     size_t r0, fr_t one, fr_t mone) {
    const size_t k = ((size_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const unsigned lane = threadIdx.x % 32;
    if (k >= count) /* a whole warp leaves together: count is per warp */
        return;
    size_t i;
    uint64_t s;
    const bool mapped = row_of(m, rows[k] - r0, &i, &s);
    const uint64_t base = m.rp[0], e1 = m.rp[i + 1] - base;
    fr_t acc = fr_t::zero();
    for (uint64_t e = m.rp[i] - base + lane; e < e1; e += 32) {
        const fr_t x = fr_t::load_ro(w + (mapped ? rep_col(m.map, s, m.cols[e]) : m.cols[e]));
        const fr_t v =
            m.ci != nullptr ? fr_t::load_ro(m.dict + m.ci[e]) : fr_t::load_ro(m.vals + e);
        acc += v.equal(one) ? x : v.equal(mone) ? x.neg() : v * x;
    }
#pragma unroll
    for (int off = 16; off > 0; off /= 2) {
        fr_t o;
#pragma unroll
        for (int j = 0; j < fr_t::N; j++)
            o.l[j] = __shfl_down_sync(0xffffffffu, acc.l[j], off);
        acc += o;
    }
    if (lane == 0)
        acc.store(out + rows[k]);
}

/* a, b, c over the whole domain of n rows (spmv_rows). */
__global__ void __launch_bounds__(256)
    spmv_kernel(fr_t *a, fr_t *b, fr_t *c, csr3 m, const fr_t *w, size_t n_c, size_t n_pub1,
                size_t n, fr_t one, fr_t mone) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t av = fr_t::zero(), bv = fr_t::zero(), cv = fr_t::zero();
    if (i < n_c) {
        /* A long row's value is there already (spmv_long_kernel ran first). */
        av = row_long(m.m[0], i) ? fr_t::load(a + i) : row_dot(m.m[0], w, i, one, mone);
        bv = row_long(m.m[1], i) ? fr_t::load(b + i) : row_dot(m.m[1], w, i, one, mone);
        cv = m.m[2].rp == nullptr  ? av * bv
             : row_long(m.m[2], i) ? fr_t::load(c + i)
                                   : row_dot(m.m[2], w, i, one, mone);
    } else if (i < n_c + n_pub1) {
        av = fr_t::load_ro(w + (i - n_c));
    }
    av.store(a + i);
    bv.store(b + i);
    cv.store(c + i);
}

/* Rows [r0, r0 + rows) of one streamed matrix: m.rp holds the rows + 1 row pointers from
 * r0, m.cols and the coefficients the entries from m.rp[0] on. */
__global__ void __launch_bounds__(256)
    spmv_chunk_kernel(fr_t *out, csr1 m, const fr_t *w, size_t r0, size_t rows, fr_t one,
                      fr_t mone) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= rows || row_long(m, i)) /* a long row: spmv_long_kernel's */
        return;
    row_dot(m, w, i, one, mone, m.rp[0]).store(out + r0 + i);
}

/* Rows [n_c, n): the inputs' rows w[0..n_in) (A only: n_in = 0 for B and C), then zeros. */
__global__ void spmv_tail_kernel(fr_t *out, const fr_t *w, size_t n_c, size_t n_in, size_t n) {
    size_t i = n_c + (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    (i - n_c < n_in ? fr_t::load_ro(w + (i - n_c)) : fr_t::zero()).store(out + i);
}

} // namespace

cudaError_t spmv_long(cudaStream_t s, fr_t *out, const csr1 &m, const fr_t *w, const uint32_t *rows,
                      size_t count, size_t r0, const fr_t &one, const fr_t &mone) {
    if (count == 0)
        return cudaSuccess;
    spmv_long_kernel<<<(unsigned)((count * 32 + 255) / 256), 256, 0, s>>>(out, m, w, rows, count,
                                                                          r0, one, mone);
    return cudaGetLastError();
}

cudaError_t spmv_rows(cudaStream_t s, fr_t *a, fr_t *b, fr_t *c, const csr3 &m, const fr_t *w,
                      size_t n_c, size_t n_pub1, size_t n, const fr_t &one, const fr_t &mone) {
    spmv_kernel<<<grid(n), 256, 0, s>>>(a, b, c, m, w, n_c, n_pub1, n, one, mone);
    return cudaGetLastError();
}

cudaError_t spmv_chunk(cudaStream_t s, fr_t *out, const csr1 &m, const fr_t *w, size_t r0,
                       size_t rows, const fr_t &one, const fr_t &mone) {
    spmv_chunk_kernel<<<grid(rows), 256, 0, s>>>(out, m, w, r0, rows, one, mone);
    return cudaGetLastError();
}

cudaError_t spmv_tail(cudaStream_t s, fr_t *out, const fr_t *w, size_t n_c, size_t n_in, size_t n) {
    if (n <= n_c)
        return cudaSuccess;
    spmv_tail_kernel<<<grid(n - n_c), 256, 0, s>>>(out, w, n_c, n_in, n);
    return cudaGetLastError();
}

} // namespace czk_whole
