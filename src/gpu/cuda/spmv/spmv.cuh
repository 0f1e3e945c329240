/*
 * Private to src/gpu/cuda: a, b, c = A·W, B·W, C·W on the device, for whole proofs
 * (resident.cu with the matrices on the device, streamed.cu with them streamed in chunks of
 * rows). The kernels are in spmv.cu, launched by the functions below on the caller's stream;
 * each returns cudaGetLastError() of its launch. In namespace czk_whole, with the rest of the
 * whole-proof code (proof.cuh).
 *
 * A matrix is CSR (row pointers, columns, coefficients); its coefficients are either values
 * or, coded, 16-bit indices into a table of its distinct values (resident.cu, "coded
 * coefficients"; index 0 = +1, 1 = −1). ±1 coefficients, most of a PoRep circuit's, cost an
 * addition instead of a product.
 *
 * Long rows. A thread per row leaves a warp as slow as its longest row: a PoRep circuit packs
 * bits into numbers in rows of ~59 entries with 2^e coefficients (a product each) among rows
 * of 2-3, and with one such row in most warps of 32 rows the SpMV took 140 ms at 2^27 on the
 * H200 where its bytes need ~15. Rows with more than LONG_ROW entries therefore get a warp
 * each (spmv_long: lanes stride the entries, then a shuffle tree adds the 32 partial sums),
 * launched ahead of the thread-per-row kernels, which then read their results.
 *
 * Repeated circuits (r1cs/rep.h) stay compact on the device: a matrix holds the head's rows
 * (columns already in the whole system's numbering) and then the block's R rows once
 * (columns in the block's numbering), and whole row H + s·R + j is the block's row j with
 * its columns mapped into copy s as the kernel reads them (row_of, rep_col). A 32 GiB PoRep
 * partition's matrices take 0.4 GB so instead of 7.2 GB, and a WindowPoSt's 18 MB instead of
 * some 10 GB; the map costs a division a row and a few comparisons an entry.
 */
#ifndef CZK_GPU_CUDA_SPMV_SPMV_CUH
#define CZK_GPU_CUDA_SPMV_SPMV_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "gpu/cuda/ff/mont.cuh"
#include "r1cs/rep.h"

namespace czk_whole {

using czk_cuda::fr_t;

/* One matrix as a kernel sees it: coefficients as values, or coded (ci into dict: 0 = +1,
 * 1 = −1) when ci is not NULL; R > 0 for a compact repeated matrix (see the top): H head
 * rows, then R block rows whose columns map by `map`. */
struct csr1 {
    const uint64_t *rp;
    const uint32_t *cols;
    const fr_t *vals;
    const uint16_t *ci;
    const fr_t *dict;
    uint64_t H, R;
    czk_r1cs_rep_map map;
};

/* rep.h's column map on the device: czk_r1cs_rep_map_col. */
__device__ __forceinline__ uint32_t rep_col(const czk_r1cs_rep_map &m, uint64_t s, uint32_t c) {
    if (c <= m.gp)
        return c; /* ONE and the shared inputs */
    if (c <= m.gp + m.p)
        return (uint32_t)(c + s * m.p);
    if (c <= m.gp + m.p + m.gq)
        return (uint32_t)(m.aux0 + (c - 1 - m.gp - m.p));
    return (uint32_t)(m.aux0 + m.gq + s * m.q + (c - 1 - m.gp - m.p - m.gq));
}

/* Whole row i of m: the row that holds its entries (*r), and whether its columns map into a
 * copy (*s): a compact repeated matrix's rows past the head. Rows number below 2^32. */
__device__ __forceinline__ bool row_of(const csr1 &m, size_t i, size_t *r, uint64_t *s) {
    if (m.R == 0 || i < m.H) {
        *r = i;
        *s = 0;
        return false;
    }
    const uint32_t t = (uint32_t)(i - m.H), R = (uint32_t)m.R, q = t / R;
    *r = (size_t)(m.H + (t - q * R));
    *s = q;
    return true;
}

/* A circuit's three matrices; m[2].rp NULL when C is not stored (c = a·b row by row). */
struct csr3 {
    csr1 m[3];
};

/* Σ_e coef[e]·w[cols[e]] over row i, entries e counted from `base` (the first entry held
 * when the matrix streams in chunks); ±1 coefficients add or subtract. */
__device__ __forceinline__ fr_t row_dot(const csr1 &m, const fr_t *w, size_t i, const fr_t &one,
                                        const fr_t &mone, uint64_t base = 0) {
    fr_t acc = fr_t::zero();
    size_t r;
    uint64_t s;
    const bool mapped = row_of(m, i, &r, &s);
    const uint64_t e1 = m.rp[r + 1] - base;
    for (uint64_t e = m.rp[r] - base; e < e1; e++) {
        const uint32_t col = mapped ? rep_col(m.map, s, m.cols[e]) : m.cols[e];
        fr_t x = fr_t::load_ro(w + col);
        if (m.ci != nullptr) {
            const uint16_t k = m.ci[e];
            if (k == 0)
                acc += x;
            else if (k == 1)
                acc -= x;
            else
                acc += fr_t::load_ro(m.dict + k) * x;
            continue;
        }
        fr_t v = fr_t::load_ro(m.vals + e);
        if (v.equal(one))
            acc += x;
        else if (v.equal(mone))
            acc -= x;
        else
            acc += v * x;
    }
    return acc;
}

/* Rows with more than LONG_ROW entries get a warp each (see the top). */
#define LONG_ROW 16

__device__ __forceinline__ bool row_long(const csr1 &m, size_t i) {
    size_t r;
    uint64_t s;
    (void)row_of(m, i, &r, &s);
    return m.rp[r + 1] - m.rp[r] > LONG_ROW;
}

/* The warp-per-row kernel over rows[0 .. count) of m (row pointers from row r0: the first
 * row of a streamed chunk, 0 for a resident matrix): out[row] = the row's dot with w.
 * Nothing when count is 0. */
cudaError_t spmv_long(cudaStream_t s, fr_t *out, const csr1 &m, const fr_t *w, const uint32_t *rows,
                      size_t count, size_t r0, const fr_t &one, const fr_t &mone);

/*
 * a, b, c over the whole domain of n rows with the matrices on the device, a thread a row:
 * rows below n_c from the matrices (a long row's value read back from what spmv_long
 * stored there; c = a·b when m.m[2].rp is NULL), rows [n_c, n_c + n_pub1) of a from the
 * inputs w[0 .. n_pub1) (b and c zero), zeros above.
 */
cudaError_t spmv_rows(cudaStream_t s, fr_t *a, fr_t *b, fr_t *c, const csr3 &m, const fr_t *w,
                      size_t n_c, size_t n_pub1, size_t n, const fr_t &one, const fr_t &mone);

/* Rows [r0, r0 + rows) of one streamed matrix, a thread a row, long rows left to spmv_long:
 * m.rp holds the rows + 1 row pointers from r0, m.cols and the coefficients the entries
 * from m.rp[0] on. */
cudaError_t spmv_chunk(cudaStream_t s, fr_t *out, const csr1 &m, const fr_t *w, size_t r0,
                       size_t rows, const fr_t &one, const fr_t &mone);

/* Rows [n_c, n) of a streamed matrix's product: the inputs' rows w[0 .. n_in) (A only:
 * n_in = 0 for B and C), then zeros. Nothing when n <= n_c. */
cudaError_t spmv_tail(cudaStream_t s, fr_t *out, const fr_t *w, size_t n_c, size_t n_in, size_t n);

} // namespace czk_whole

#endif /* CZK_GPU_CUDA_SPMV_SPMV_CUH */
