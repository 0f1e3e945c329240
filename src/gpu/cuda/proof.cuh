/*
 * Private to src/gpu/cuda: what the two whole-proof paths share, resident.cu (key and
 * circuit on the device, and the attach helpers) and streamed.cu (key and circuit streamed
 * from page-locked host memory); their SpMV kernels are spmv/spmv.cu's. Everything is in
 * namespace czk_whole.
 */
#ifndef CZK_GPU_CUDA_PROOF_CUH
#define CZK_GPU_CUDA_PROOF_CUH

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/prover.cuh"
#include "gpu/cuda/spmv/spmv.cuh"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/status.h"

namespace czk_whole {

using czk_cuda::fr_t;

inline unsigned domain_lg(size_t n) {
    unsigned lg = 0;
    while (lg < 63 && ((size_t)1 << lg) < n)
        lg++;
    return lg;
}

inline size_t max_sz(size_t a, size_t b) {
    return a > b ? a : b;
}

/* Codes m's nnz coefficients as 16-bit indices into a table of its distinct values (resident.cu,
 * "coded coefficients"): *ci and *dict (czk_malloc'ed, *n_dict values), both NULL when m has
 * too many. */
int coef_code(const czk_r1cs_matrix *m, size_t nnz, uint16_t **ci, czk_fr **dict, size_t *n_dict,
              czk_err *err);

/* The rows of m with more than LONG_ROW entries, ascending (czk_malloc'ed; NULL when none). */
int long_rows_of(const czk_r1cs_matrix *m, size_t n_rows, uint32_t **rows, size_t *count,
                 czk_err *err);

/* Page-locks [p, p + bytes) in place (counted, process-wide: a range locked by several backends
 * is locked once); false when CUDA refuses. host_unlock undoes one host_lock. */
bool host_lock(const void *p, size_t bytes);
void host_unlock(const void *p, size_t bytes);

/* *dev = a counted device copy of host[0 .. bytes). */
int upload(czk_gpu *g, void **dev, const void *host, size_t bytes, czk_err *err);

/* Whether (pk, a circuit of cs's sizes whose rows are rows's matrices) has a shape whole
 * proofs take: rows is cs itself, or the block of a repeated system whose sizes cs holds. */
bool shape_ok(const czk_groth16_pk *pk, const czk_r1cs *cs, const czk_r1cs *rows);

/* A filtered key's density bytes as the CPU prover gathers (*ta, *tb; NULL for a dense key)
 * for cs, or for rep when it is not NULL (cs: its sizes); *match = 0 when their counts
 * disagree with pk's. */
int density_take(const czk_groth16_pk *pk, const czk_r1cs *cs, const czk_r1cs_rep *rep,
                 uint8_t **ta, uint8_t **tb, int *match, czk_err *err);

/* The h step's two roots of pk's domain, into c. */
int h_roots(const czk_groth16_pk *pk, resident_circuit *c, czk_err *err);

/* Makes the arena at least `arena` bytes and at most `avail`. */
int arena_fit(czk__gpu_backend *b, size_t arena, size_t avail, czk_err *err);

/* The smallest arena the attached circuits' proofs need. */
size_t arena_min_of(const czk__gpu_backend *b);

/* The end of an attach: on failure what was placed of k's circuit goes; the host arrays the
 * attach made (ta, tb, ci, dict, lr) go either way. */
void attach_end(czk__gpu_backend *b, resident_key *k, int rc, uint8_t *ta, uint8_t *tb,
                uint16_t *const ci[3], czk_fr *const dict[3], uint32_t *const lr[3]);

/*
 * The witness (n_vars values) to d_w on g's stream: from wp when it is not NULL and its
 * arrays fit in [tmp, tmp + tmp_bytes), a region the proof writes only after this (the pack
 * crosses the bus and a kernel expands it: ~140 MB instead of 4.3 GB at 2^27), else w itself.
 */
int upload_witness(czk_gpu *g, void *d_w, const czk_fr *w, const czk_witness_pack *wp,
                   size_t n_vars, void *tmp, size_t tmp_bytes, czk_err *err);

/* A whole proof of a streamed key (streamed.cu). */
int stream_prove(czk__gpu_backend *b, const resident_key *k, const czk_groth16_pk *pk,
                 const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                 czk_backend_sums *out, czk_groth16_timings *tm, czk_err *err);

} // namespace czk_whole

#endif /* CZK_GPU_CUDA_PROOF_CUH */
