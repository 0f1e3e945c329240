/*
 * The MSMs of a streamed proof (resident.cu, "streamed proofs"): all five sums of a proof
 * whose key stays in host memory, with their points crossing the bus in batches.
 *
 * DESIGN. On a 16 GB card a 2^27 PoRep partition streams 47 GB of points a proof: 13 GB for
 * the H MSM, which is compute-bound (about 1 s of accumulation), and 35 GB for A, B and L,
 * which are bus-bound (their scalars are 98 % zeros and ones: 0.2 s of work against 0.7 s
 * of transfer). Run one after the other, the bus idles through H and the device idles
 * through A, B and L. Here every MSM is cut into batches of one size in bytes (bs G1 points
 * or bs/2 G2 points) that cycle through S slots (2 to STREAM_SLOTS) on the copy stream,
 * and the H batches are spread evenly among the others: while an H batch computes, the
 * copy stream fills the other slots with the next batches, which then compute in a few
 * milliseconds each. Modelled on the H200's measured rates (2^24 H batches, 50 GB/s): the
 * MSM phase of such a proof takes 1.7 s with three slots against 2.0 s one MSM after the
 * other; four slots 1.55 s.
 *
 * A slot is refilled only after the batch that used it has returned (each batch's MSM
 * reads its sum back and waits for its stream), so the copy of batch k + S − 1 is queued
 * just before batch k runs; batch k's MSM waits for its copy by an event.
 *
 * Scalars: a batch of H or L reads them where they lie; A and B (a filtered key) select
 * theirs from the witness by the density bytes, one batch at a time (CUB DeviceSelect over
 * the witness range [wb[j], wb[j + 1]) holding exactly the batch's count of set bytes,
 * ranges the attach computed on the host), so that no full selection (4 GiB at 2^27) has
 * to stay beside the witness and h.
 *
 * Region layout: [S slots of align(96·bs)][the selection: align(32·bs), when any MSM
 * selects][scratch: the largest of every batch's MSM scratch and CUB's select storage].
 */
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/plan.cuh"
#include "gpu/cuda/prover.cuh"
#include "util/alloc.h"
#include "util/timer.h"

using czk_cuda::fr_t;

namespace {

size_t smax(size_t a, size_t b) {
    return a > b ? a : b;
}

/* Points of msm's batches for a G1 batch of bs points (the same bytes). */
size_t batch_points(const czk__gpu_stream_msm *m, size_t bs) {
    return m->group == 2 ? bs / 2 : bs;
}

/* One batch of the schedule: msm index, first point, points. */
struct stream_batch {
    int msm;
    size_t j, off, n;
};

template <class G>
int run_batch(czk__gpu_backend *b, const czk__gpu_stream_msm *m, const stream_batch *e,
              const char *pts, const char *sc, char *scratch, size_t scratch_bytes, czk_err *err) {
    int rc = CZK_OK;
    typename G::jacobian part;
    CZK_TRY(G::run(b->g, &part, pts, sc, e->n, scratch, scratch_bytes, err));
    G::add((typename G::jacobian *)m->out, (const typename G::jacobian *)m->out, &part);
out:
    return rc;
}

} // namespace

int czk__gpu_batch_scratch(czk_gpu *g, int group, const size_t *sizes, int count, size_t bs,
                           size_t *need, czk_err *err) {
    int rc = CZK_OK;
    size_t s = 0;
    *need = 0;
    for (int i = 0; i < count; i++) {
        const size_t runs[2] = {sizes[i] < bs ? sizes[i] : bs, sizes[i] > bs ? sizes[i] % bs : 0};
        for (int j = 0; j < 2; j++) {
            if (runs[j] == 0)
                continue;
            if (group == 1)
                CZK_TRY(czk__gpu_msm_g1_scratch(g, runs[j], &s, err));
            else
                CZK_TRY(czk__gpu_msm_g2_scratch(g, runs[j], &s, err));
            *need = smax(*need, s);
        }
    }
out:
    return rc;
}

/* The region's bytes for batches of bs with `slots` slots (0 in *l on failure to ask). */
static int stream_layout(czk_gpu *g, const czk__gpu_stream_msm *msms, int count, size_t sel_tmp,
                         size_t bs, czk__gpu_stream_layout *l, czk_err *err) {
    int rc = CZK_OK;
    size_t need = 0, s;
    int selects = 0;
    memset(l, 0, sizeof(*l));
    for (int i = 0; i < count; i++) {
        CZK_TRY(czk__gpu_batch_scratch(g, msms[i].group, &msms[i].n, 1, batch_points(&msms[i], bs),
                                       &s, err));
        need = smax(need, s);
        selects |= msms[i].take != NULL;
    }
    if (selects)
        need = smax(need, sel_tmp);
    l->bs = bs;
    l->slot = czk__gpu_align(bs * sizeof(czk_g1_affine));
    l->sel = selects ? czk__gpu_align(bs * sizeof(czk_fr)) : 0;
    l->scratch = czk__gpu_align(need);
out:
    return rc;
}

int czk__gpu_stream_plan(czk_gpu *g, const czk__gpu_stream_msm *msms, int count, size_t n_vars,
                         size_t region, czk__gpu_stream_layout *out, czk_err *err) {
    int rc = CZK_OK;
    size_t most = 0, top = (size_t)1 << 11, sel_tmp = 0;
    czk__gpu_stream_layout l, two;
    memset(out, 0, sizeof(*out));
    memset(&two, 0, sizeof(two));
    for (int i = 0; i < count; i++)
        most = smax(most, msms[i].group == 2 ? 2 * msms[i].n : msms[i].n);
    while (top < most)
        top *= 2;
    CZK_CUDA_TRY(err, cub::DeviceSelect::Flagged(nullptr, sel_tmp, (const fr_t *)nullptr,
                                                 (const uint8_t *)nullptr, (fr_t *)nullptr,
                                                 (int *)nullptr, (int)n_vars));
    /* Halving from one batch per MSM: the first size with three slots, unless a size twice
     * as large (or more) had two (the H200 model above: 2^24 with three slots 1.71 s, 2^25
     * with two 1.88 s, 2^23 with three 1.86 s). */
    for (size_t bs = top;; bs /= 2) {
        CZK_TRY(stream_layout(g, msms, count, sel_tmp, bs, &l, err));
        const size_t fixed = l.sel + l.scratch;
        size_t slots = region > fixed ? (region - fixed) / l.slot : 0;
        if (slots > STREAM_SLOTS)
            slots = STREAM_SLOTS;
        l.slots = (int)slots;
        l.bytes = slots * l.slot + fixed;
        if (slots >= 3) {
            *out = two.slots != 0 && two.bs > 2 * bs ? two : l;
            break;
        }
        if (slots == 2 && two.slots == 0)
            two = l;
        if (bs <= ((size_t)1 << 11)) {
            *out = two;
            break;
        }
    }
out:
    return rc;
}

int czk__gpu_stream_bounds(const uint8_t *take, size_t n_vars, size_t n, size_t bs, size_t **wb,
                           size_t *batches, czk_err *err) {
    const size_t k = bs == 0 ? 0 : (n + bs - 1) / bs;
    size_t seen = 0, j = 1;
    *wb = (size_t *)czk_malloc((k + 1) * sizeof(size_t));
    *batches = 0;
    if (*wb == NULL)
        return czk_err_set(err, CZK_ENOMEM, "gpu: %zu batch bounds", k + 1);
    (*wb)[0] = 0;
    for (size_t v = 0; v < n_vars && j < k; v++) {
        seen += take[v] != 0;
        if (seen == j * bs)
            (*wb)[j++] = v + 1;
    }
    for (; j <= k; j++)
        (*wb)[j] = n_vars;
    *batches = k;
    return CZK_OK;
}

int czk__gpu_stream_msms(czk__gpu_backend *b, const czk__gpu_stream_msm *msms, int count,
                         const czk__gpu_stream_layout *l, char *region, int *d_count,
                         czk_err *err) {
    czk_gpu *g = b->g;
    int rc = CZK_OK;
    const int S = l->slots;
    char *sel = region + (size_t)S * l->slot, *scratch = sel + l->sel;
    stream_batch *order = NULL;
    size_t heavy = 0, light = 0, total = 0, issued = 0;

    if (S < 2 || S > STREAM_SLOTS || l->bs == 0)
        return czk_err_set(err, CZK_EINTERNAL, "gpu: stream layout of %d slots", S);
    for (int i = 0; i < count; i++) {
        const size_t k =
            (msms[i].n + batch_points(&msms[i], l->bs) - 1) / batch_points(&msms[i], l->bs);
        *(msms[i].heavy ? &heavy : &light) += k;
        if (msms[i].group == 1)
            czk_g1_jacobian_set_infinity((czk_g1_jacobian *)msms[i].out);
        else
            czk_g2_jacobian_set_infinity((czk_g2_jacobian *)msms[i].out);
    }
    total = heavy + light;
    if (total == 0)
        return CZK_OK;
    order = (stream_batch *)czk_malloc(total * sizeof(stream_batch));
    if (order == NULL)
        return czk_err_set(err, CZK_ENOMEM, "gpu: a schedule of %zu batches", total);
    {
        /* The heavy batches spread evenly: after the i-th, the light ones up to
         * round((i + 1)·light/heavy). */
        stream_batch *hv = order + light, *lt = order; /* filled, then merged below */
        size_t nh = 0, nl = 0;
        for (int i = 0; i < count; i++) {
            const size_t bp = batch_points(&msms[i], l->bs);
            for (size_t off = 0, j = 0; off < msms[i].n; off += bp, j++) {
                stream_batch e = {i, j, off, msms[i].n - off < bp ? msms[i].n - off : bp};
                if (msms[i].heavy)
                    hv[nh++] = e;
                else
                    lt[nl++] = e;
            }
        }
        if (heavy > 0 && light > 0) {
            stream_batch *merged = (stream_batch *)czk_malloc(total * sizeof(stream_batch));
            size_t o = 0, li = 0;
            if (merged == NULL) {
                rc = czk_err_set(err, CZK_ENOMEM, "gpu: a schedule of %zu batches", total);
                goto out;
            }
            for (size_t h = 0; h < heavy; h++) {
                merged[o++] = hv[h];
                for (const size_t upto = ((h + 1) * light + heavy / 2) / heavy; li < upto;)
                    merged[o++] = lt[li++];
            }
            while (li < light)
                merged[o++] = lt[li++];
            czk_free(order);
            order = merged;
        }
    }

    /* The slots may still be read by earlier work on the context's stream. */
    CZK_CUDA_TRY(err, cudaEventRecord(b->freed[0], g->stream));
    CZK_CUDA_TRY(err, cudaStreamWaitEvent(b->copy_stream, b->freed[0], 0));
    for (size_t k = 0; k < total; k++) {
        /* Batch k − 1 has returned: its slot takes batch k + S − 1. */
        for (; issued < total && issued < k + (size_t)S; issued++) {
            const stream_batch *e = &order[issued];
            const czk__gpu_stream_msm *m = &msms[e->msm];
            const size_t ps = m->group == 2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
            const int s = (int)(issued % (size_t)S);
            CZK_CUDA_TRY(err, cudaMemcpyAsync(region + (size_t)s * l->slot,
                                              (const char *)m->pts + e->off * ps, e->n * ps,
                                              cudaMemcpyHostToDevice, b->copy_stream));
            CZK_CUDA_TRY(err, cudaEventRecord(b->ready[s], b->copy_stream));
        }
        const stream_batch *e = &order[k];
        const czk__gpu_stream_msm *m = &msms[e->msm];
        const int s = (int)(k % (size_t)S);
        const char *sc = m->sc + e->off * sizeof(czk_fr);
        const uint64_t t0 = czk_time_ns();
        CZK_CUDA_TRY(err, cudaStreamWaitEvent(g->stream, b->ready[s], 0));
        if (m->take != NULL) {
            const size_t w0 = m->wb[e->j], w1 = m->wb[e->j + 1];
            size_t bytes = l->scratch;
            CZK_CUDA_TRY(err, cub::DeviceSelect::Flagged(scratch, bytes, (const fr_t *)m->sc + w0,
                                                         m->take + w0, (fr_t *)sel, d_count,
                                                         (int)(w1 - w0), g->stream));
            sc = sel;
        }
        if (m->group == 1)
            CZK_TRY(run_batch<czk__gpu_group_g1>(b, m, e, region + (size_t)s * l->slot, sc, scratch,
                                                 l->scratch, err));
        else
            CZK_TRY(run_batch<czk__gpu_group_g2>(b, m, e, region + (size_t)s * l->slot, sc, scratch,
                                                 l->scratch, err));
        if (m->take != NULL) {
            /* The bounds promised exactly e->n selected scalars (the batch has returned: the
             * count is final). */
            int got = -1;
            CZK_CUDA_TRY(err, cudaMemcpy(&got, d_count, sizeof(got), cudaMemcpyDeviceToHost));
            if (got < 0 || (size_t)got != e->n) {
                rc = czk_err_set(err, CZK_EINTERNAL,
                                 "gpu: batch %zu of a streamed MSM selected %d scalars, not %zu",
                                 e->j, got, e->n);
                goto out;
            }
        }
        if (m->ns != NULL)
            *m->ns += czk_time_ns() - t0;
    }
out:
    czk_free(order);
    return rc;
}
