/*
 * The device-memory planner (doc/DESIGN.md §3): from a budget, the working sets of the h step
 * and of the MSMs, and the batch size that makes an MSM fit.
 *
 * DESIGN. The prover runs its steps one after another on one stream, so a backend needs
 * the largest working set of any step, not their sum: one arena of max(h, MSM batch) bytes.
 * h holds a, b and c (3·32·n bytes) and transforms them in place. An MSM whose points,
 * scalars and scratch do not fit is cut into equal batches of points streamed from the host,
 * each a complete MSM whose result is added on the host; the window c of each batch comes
 * from the batch's size, so smaller batches also need fewer buckets. Sizes are exact: the
 * MSM scratch includes what CUB's sort asks for on this device.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/plan.cuh"
#include "util/status.h"

size_t czk__gpu_tables_bytes(unsigned lg) {
    return ((size_t)CZK__GPU_POW_CACHE * CZK__GPU_POW_ENTRIES +
            (czk__gpu_ntt_flat_tables(lg) ? (size_t)CZK__GPU_FLAT_CACHE * CZK__GPU_FLAT_ENTRIES
                                          : 0)) *
           sizeof(czk_fr);
}

int czk__gpu_msm_batch_bytes(czk_gpu *g, int group, size_t n, size_t *total, size_t *pts_bytes,
                             size_t *sc_bytes, size_t *scratch_bytes, czk_err *err) {
    int rc = CZK_OK;
    size_t scratch = 0,
           p = czk__gpu_align(n * (group == 2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine))),
           s = czk__gpu_align(n * sizeof(czk_fr));
    *total = 0;
    if (group == 2)
        CZK_TRY(czk__gpu_msm_g2_scratch(g, n, &scratch, err));
    else
        CZK_TRY(czk__gpu_msm_g1_scratch(g, n, &scratch, err));
    *total = p + s + czk__gpu_align(scratch);
    if (pts_bytes != NULL)
        *pts_bytes = p;
    if (sc_bytes != NULL)
        *sc_bytes = s;
    if (scratch_bytes != NULL)
        *scratch_bytes = czk__gpu_align(scratch);
out:
    return rc;
}

/* Whether a batch of n points fits in `arena` bytes and one sort. */
static int batch_fits(czk_gpu *g, int group, size_t n, size_t arena, int *fits, czk_err *err) {
    int rc = CZK_OK;
    size_t total = 0;
    *fits = 0;
    if (czk__gpu_msm_g1_check_n(n, NULL) != CZK_OK)
        return CZK_OK;
    CZK_TRY(czk__gpu_msm_batch_bytes(g, group, n, &total, NULL, NULL, NULL, err));
    *fits = total <= arena;
out:
    return rc;
}

int czk__gpu_msm_pick_batch(czk_gpu *g, int group, size_t n, size_t arena, size_t *batch,
                            size_t *nbatches, czk_err *err) {
    int rc = CZK_OK, fits = 0;
    size_t nb = 1, bs = n, floor_bs = n < CZK__GPU_MIN_BATCH ? n : CZK__GPU_MIN_BATCH;
    *batch = 0;
    *nbatches = 0;
    if (n == 0)
        return CZK_OK;
    /* Fewest batches: one more at a time while they are few, then doubling. */
    for (;;) {
        bs = (n + nb - 1) / nb;
        if (bs < floor_bs)
            break;
        CZK_TRY(batch_fits(g, group, bs, arena, &fits, err));
        /* The window, and with it the scratch, may change between bs − 1 and bs. */
        if (fits && n % nb != 0)
            CZK_TRY(batch_fits(g, group, bs - 1, arena, &fits, err));
        if (fits)
            break;
        nb = nb < 16 ? nb + 1 : nb * 2;
    }
    if (!fits) {
        size_t need = 0;
        CZK_TRY(czk__gpu_msm_batch_bytes(g, group, floor_bs, &need, NULL, NULL, NULL, err));
        rc = czk_err_set(
            err, CZK_ENOMEM,
            "G%d MSM of %zu points: even a batch of %zu needs %zu device bytes, the plan "
            "has %zu",
            group, n, floor_bs, need, arena);
        goto out;
    }
    *batch = bs;
    *nbatches = nb;
out:
    return rc;
}

extern "C" int czk_gpu_plan_make(czk_gpu *g, czk_gpu_plan *plan, size_t budget_bytes, unsigned lg,
                                 size_t max_points, czk_err *err) {
    int rc = CZK_OK;
    size_t avail;
    if (g == NULL || plan == NULL)
        return czk_err_set(err, CZK_EINVAL, "NULL argument");
    memset(plan, 0, sizeof(*plan));
    if (lg > CZK_GPU_NTT_MAX_LG)
        return czk_err_set(err, CZK_EINVAL, "plan: lg %u above %d", lg, CZK_GPU_NTT_MAX_LG);
    plan->budget_bytes = budget_bytes;
    plan->tables_bytes = czk__gpu_tables_bytes(lg);
    avail = budget_bytes > plan->tables_bytes ? budget_bytes - plan->tables_bytes : 0;
    plan->lg = lg;
    plan->h_bytes = lg == 0 ? 0 : 3 * (czk__gpu_align(((size_t)1 << lg) * sizeof(czk_fr)));
    if (plan->h_bytes > avail) {
        rc = czk_err_set(err, CZK_ENOMEM,
                         "plan: the h step at 2^%u needs %zu device bytes (a, b, c) and the "
                         "budget leaves %zu",
                         lg, plan->h_bytes, avail);
        goto out;
    }
    plan->arena_bytes = plan->h_bytes;
    plan->msm_points = max_points;
    if (max_points > 0) {
        size_t total = 0;
        CZK_TRY(czk__gpu_msm_pick_batch(g, 1, max_points, avail, &plan->msm_batch,
                                        &plan->msm_batches, err));
        CZK_TRY(czk__gpu_msm_batch_bytes(g, 1, plan->msm_batch, &total, &plan->msm_points_bytes,
                                         &plan->msm_scalars_bytes, &plan->msm_scratch_bytes, err));
        if (total > plan->arena_bytes)
            plan->arena_bytes = total;
    }
out:
    if (rc != CZK_OK)
        memset(plan, 0, sizeof(*plan));
    return rc;
}

static double mib(size_t b) {
    return (double)b / (1024.0 * 1024.0);
}

extern "C" void czk_gpu_plan_describe(const czk_gpu_plan *p, char *buf, size_t len) {
    if (len == 0)
        return;
    snprintf(buf, len,
             "budget %.1f MiB; arena %.1f MiB = max(h 2^%u: %.1f MiB, MSM %zu pts in %zu "
             "batch(es) of %zu: points %.1f + scalars %.1f + scratch %.1f MiB); tables %.1f MiB",
             mib(p->budget_bytes), mib(p->arena_bytes), p->lg, mib(p->h_bytes), p->msm_points,
             p->msm_batches, p->msm_batch, mib(p->msm_points_bytes), mib(p->msm_scalars_bytes),
             mib(p->msm_scratch_bytes), mib(p->tables_bytes));
}
