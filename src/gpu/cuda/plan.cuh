/*
 * Private to src/gpu/cuda: the planner's helpers that the prover backend shares with
 * plan.cu (czk_gpu_plan_make is the public entry, in gpu/backend.h).
 */
#ifndef CZK_GPU_CUDA_PLAN_CUH
#define CZK_GPU_CUDA_PLAN_CUH

#include <stddef.h>

#include "gpu/backend.h"
#include "util/status.h"

/* Sub-buffers of the arena start at multiples of this. */
#define CZK__GPU_ARENA_ALIGN ((size_t)256)

/* Smallest MSM batch a plan accepts: below it, per-batch fixed costs dominate. */
#define CZK__GPU_MIN_BATCH ((size_t)1 << 10)

static inline size_t czk__gpu_align(size_t x) {
    return (x + CZK__GPU_ARENA_ALIGN - 1) & ~(CZK__GPU_ARENA_ALIGN - 1);
}

/*
 * Arena bytes of one MSM batch of n points (group 1: G1, 2: G2) streamed from the host: points,
 * scalars and scratch (each part aligned). Out: *total and, when not NULL, the three parts.
 */
int czk__gpu_msm_batch_bytes(czk_gpu *g, int group, size_t n, size_t *total, size_t *pts_bytes,
                             size_t *sc_bytes, size_t *scratch_bytes, czk_err *err);

/*
 * Batches for an MSM of n points of G`group` within `arena` bytes: n split into the fewest batches
 * that fit, batch k holding n / nb points plus one when k < n % nb (so every batch has *batch or
 * *batch − 1 points, and both sizes are checked). Out: *batch (the larger size), *nb.
 * Returns CZK_OK or CZK_ENOMEM (not even CZK__GPU_MIN_BATCH points, or n itself when
 * smaller, fit).
 */
int czk__gpu_msm_pick_batch(czk_gpu *g, int group, size_t n, size_t arena, size_t *batch,
                            size_t *nb, czk_err *err);

/* Device bytes the context's power-table cache may reach with transforms up to 2^lg: the
 * flat tables only where an NTT's later pass needs them (ntt.cu, lg >= 23). */
size_t czk__gpu_tables_bytes(unsigned lg);

#endif /* CZK_GPU_CUDA_PLAN_CUH */
