/*
 * Private to src/gpu/cuda: the prover backend's fixed_base entry (groth16/backend.h), the
 * scalar multiples of the G1 or G2 generator a development key is made of, and the form
 * with options the checks (fixed_base_test.cu) and bench_gpu_setup call.
 */
#ifndef CZK_GPU_CUDA_SETUP_FIXED_BASE_CUH
#define CZK_GPU_CUDA_SETUP_FIXED_BASE_CUH

#include <stddef.h>

#include "field/fr.h"
#include "util/pool.h"
#include "util/status.h"

/*
 * The backend's fixed_base entry: out[i] = [k[i]]·G for the generator G of G1 (g2 = 0, out is
 * czk_g1_affine[n]) or of G2 (g2 = 1, czk_g2_affine[n]), affine with (0, 0) for infinity, bit
 * for bit the CPU's. k and out are host arrays (pageable or pinned) of any length; ctx is the
 * backend (czk__gpu_backend). One thread at a time per backend, as every entry. Returns CZK_OK,
 * CZK_EINVAL, CZK_ENOMEM (not even the table and a minimal chunk fit the device budget) or
 * CZK_ECUDA, with err filled; out is then partly written.
 */
int czk__gpu_fixed_base(void *ctx, int g2, const czk_fr *k, size_t n, void *out, czk_pool *pool,
                        czk_err *err);

/* What a check or a benchmark varies in one fixed_base call (all zero: what the entry runs). */
typedef struct czk__gpu_fixed_base_opts {
    size_t max_chunk; /* > 0: at most this many scalars a chunk (rounded up to 256) */
    int no_pinned;    /* copy from and to the caller's arrays directly, without staging */
    double *gpu_ms;   /* not NULL: the table's and the chunks' kernel time (CUDA events) */
} czk__gpu_fixed_base_opts;

/* czk__gpu_fixed_base with options (NULL: the same as without). */
int czk__gpu_fixed_base_opts_run(void *ctx, int g2, const czk_fr *k, size_t n, void *out,
                                 const czk__gpu_fixed_base_opts *opts, czk_pool *pool,
                                 czk_err *err);

#endif /* CZK_GPU_CUDA_SETUP_FIXED_BASE_CUH */
