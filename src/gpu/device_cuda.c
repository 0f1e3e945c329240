/*
 * A CUDA device as a prover device (gpu/device.h): groth16/device.h's czk_device_ops over one
 * CUDA prover backend (gpu/backend.h). Plain C: everything CUDA is behind the backend's C API.
 *
 * It does what the engine did with the backend itself before the device interface, so that
 * proofs and their costs do not change: the budget is the free memory at open (after the
 * backend's context exists) or the caller's limit when smaller; a partition needs the arena
 * and tables of the plan for its key's domain and largest G1 array within that budget; free
 * memory is sampled after every proof (one cudaMemGetInfo, as before), never by info, which
 * other threads call while a proof runs.
 */
#include "gpu/device.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gpu/backend.h"
#include "groth16/prove.h"
#include "util/alloc.h"

typedef struct cuda_device {
    czk_device base; /* first: the engine sees only this */
    czk_backend *be; /* owned */
    int ordinal;
    char name[128];
    char label[32];
    uint64_t mem_total, mem_budget; /* constant after open */
    /* Written by prove and attach/detach (under the engine's lock of this device), read by
     * info from any thread: atomics. */
    uint64_t mem_free, mem_keys;
    /* need's last answer and what it was for: the planner sizes CUB's sorts for each batch it
     * tries, and the engine asks before every partition. The budget is constant, so the
     * plan depends on (lg, points) alone. */
    int need_valid;
    unsigned need_lg;
    size_t need_points;
    uint64_t need_bytes;
} cuda_device;

/*
 * The device key is the backend's key handle itself (czk_gpu_backend_attach_key), converted:
 * the engine only stores it and hands it back, so a record of its own would add nothing.
 */
static czk_backend_key *backend_key(czk_device_key *key) {
    return (czk_backend_key *)key;
}

static void cuda_close(czk_device *d) {
    cuda_device *c = (cuda_device *)d;
    czk_gpu_backend_destroy(c->be);
    czk_free(c);
}

static void cuda_info(czk_device *d, czk_device_info *out) {
    cuda_device *c = (cuda_device *)d;
    size_t held = 0, limit = 0;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", c->name);
    snprintf(out->label, sizeof out->label, "%s", c->label);
    out->ordinal = c->ordinal;
    out->mem_total = c->mem_total;
    out->mem_free = __atomic_load_n(&c->mem_free, __ATOMIC_RELAXED);
    out->mem_budget = c->mem_budget;
    out->mem_keys = __atomic_load_n(&c->mem_keys, __ATOMIC_RELAXED);
    czk_gpu_backend_pinned(c->be, &held, &limit); /* under the backend's pinned-memory lock */
    out->pinned_held = held;
}

static int cuda_need(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs *cs,
                     czk_device_need *out, czk_err *err) {
    cuda_device *c = (cuda_device *)d;
    memset(out, 0, sizeof *out);
    unsigned lg = 0;
    while (lg < 63 && ((size_t)1 << lg) < pk->domain_size)
        lg++;
    /* The largest MSM of a step-by-step proof: the plan's batches are sized for it. */
    size_t pts = pk->n_h;
    pts = pk->n_l > pts ? pk->n_l : pts;
    pts = pk->n_a > pts ? pk->n_a : pts;
    pts = pk->n_b_g1 > pts ? pk->n_b_g1 : pts;
    if (!c->need_valid || c->need_lg != lg || c->need_points != pts) {
        czk_gpu_plan plan;
        czk_err perr = {0};
        int rc = czk_gpu_plan_make(czk_gpu_backend_context(c->be), &plan, (size_t)c->mem_budget, lg,
                                   pts, &perr);
        if (rc != CZK_OK)
            return czk_err_set(err, rc,
                               "a partition cannot be planned within the %" PRIu64
                               " byte VRAM budget of %s: %s",
                               c->mem_budget, c->label, perr.msg);
        c->need_bytes = (uint64_t)plan.arena_bytes + plan.tables_bytes;
        c->need_lg = lg;
        c->need_points = pts;
        c->need_valid = 1;
    }
    if (c->need_bytes > c->mem_budget)
        return czk_err_set(err, CZK_ENOMEM,
                           "a partition needs %" PRIu64 " device bytes, more than the %" PRIu64
                           " byte VRAM budget of %s",
                           c->need_bytes, c->mem_budget, c->label);
    out->partition_bytes = c->need_bytes;
    out->attach_host_bytes = czk_gpu_attach_host_bytes(cs);
    return CZK_OK;
}

/* The device's view of what the backend kept (resident: czk_gpu_backend_attach_key's). */
static void attach_done(cuda_device *c, czk_backend_key *bk, int resident, czk_device_key **key,
                        czk_device_attach *mode) {
    *key = (czk_device_key *)bk;
    switch (resident) {
    case 1:
        *mode = CZK_DEVICE_ATTACH_POINTS;
        break;
    case 2:
        *mode = CZK_DEVICE_ATTACH_WHOLE;
        break;
    case 3:
        *mode = CZK_DEVICE_ATTACH_STREAMED;
        break;
    default:
        *mode = CZK_DEVICE_ATTACH_NONE;
    }
    __atomic_store_n(&c->mem_keys, (uint64_t)czk_gpu_backend_resident_bytes(c->be),
                     __ATOMIC_RELAXED);
}

static int cuda_attach(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs *cs,
                       czk_device_key **key, czk_device_attach *mode, czk_err *err) {
    cuda_device *c = (cuda_device *)d;
    czk_backend_key *bk = NULL;
    int resident = 0;
    int rc = czk_gpu_backend_attach_key(c->be, pk, cs, &bk, &resident, err);
    attach_done(c, bk, resident, key, mode);
    return rc;
}

static int cuda_attach_rep(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs_rep *rep,
                           const czk_r1cs *cs, czk_device_key **key, czk_device_attach *mode,
                           czk_err *err) {
    cuda_device *c = (cuda_device *)d;
    czk_backend_key *bk = NULL;
    int resident = 0;
    int rc = czk_gpu_backend_attach_key_rep(c->be, pk, rep, cs, &bk, &resident, err);
    attach_done(c, bk, resident, key, mode);
    return rc;
}

static void cuda_detach(czk_device *d, czk_device_key *key) {
    cuda_device *c = (cuda_device *)d;
    czk_gpu_backend_detach_key(c->be, backend_key(key));
    __atomic_store_n(&c->mem_keys, (uint64_t)czk_gpu_backend_resident_bytes(c->be),
                     __ATOMIC_RELAXED);
}

static void *cuda_host_alloc(czk_device *d, size_t bytes) {
    const cuda_device *c = (const cuda_device *)d;
    return c->be->host_alloc(c->be->ctx, bytes);
}

static void cuda_host_free(czk_device *d, void *p, size_t bytes) {
    const cuda_device *c = (const cuda_device *)d;
    c->be->host_free(c->be->ctx, p, bytes);
}

static int cuda_prove(czk_device *d, czk_device_key *key, const czk_groth16_pk *pk,
                      const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                      const czk_fr *r, const czk_fr *s, czk_groth16_proof *proof,
                      czk_groth16_timings *tm, czk_pool *pool, czk_err *err) {
    cuda_device *c = (cuda_device *)d;
    size_t free_b = 0, total_b = 0;
    int rc =
        czk_groth16_prove_ex(proof, pk, cs, w, wp, backend_key(key), r, s, c->be, pool, tm, err);
    /* Whatever the proof did, what it left free is news for status. */
    if (czk_gpu_mem_info(czk_gpu_backend_context(c->be), &free_b, &total_b, NULL) == CZK_OK)
        __atomic_store_n(&c->mem_free, (uint64_t)free_b, __ATOMIC_RELAXED);
    return rc;
}

static const czk_backend *cuda_backend(czk_device *d) {
    return ((cuda_device *)d)->be;
}

static const czk_device_ops cuda_ops = {
    .close = cuda_close,
    .info = cuda_info,
    .need = cuda_need,
    .attach = cuda_attach,
    .attach_rep = cuda_attach_rep,
    .detach = cuda_detach,
    .host_alloc = cuda_host_alloc,
    .host_free = cuda_host_free,
    .prove = cuda_prove,
    .backend = cuda_backend,
};

int czk_gpu_built(void) {
    return 1;
}

int czk_device_cuda_open(czk_device **out, int ordinal, const czk_device_cuda_opts *opts,
                         czk_err *err) {
    czk_gpu_plan_opts po;
    size_t free_b = 0, total_b = 0;
    int rc;
    if (out == NULL)
        return czk_err_set(err, CZK_EINVAL, "cuda device: out is NULL");
    *out = NULL;
    cuda_device *c = czk_calloc(1, sizeof *c);
    if (c == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate the CUDA device");
    memset(&po, 0, sizeof po);
    if (opts != NULL) {
        po.vram_limit_bytes = (size_t)opts->vram_limit_bytes;
        po.pinned_limit_bytes = (size_t)opts->pinned_limit_bytes;
        po.register_limit_bytes = opts->register_limit_bytes == UINT64_MAX
                                      ? CZK_GPU_REGISTER_NONE
                                      : (size_t)opts->register_limit_bytes;
        po.vram_reserve_bytes = (size_t)opts->vram_reserve_bytes;
        if (opts->priority_lane)
            po.flags |= CZK_GPU_PLAN_PRIORITY_STREAM;
    }
    rc = czk_gpu_backend_create(&c->be, ordinal, &po, err);
    /* Free memory once the backend's context exists (its stream, events and the driver's
     * context take some), as the budget the backend planned with saw it. */
    if (rc == CZK_OK)
        rc = czk_gpu_mem_info(czk_gpu_backend_context(c->be), &free_b, &total_b, err);
    if (rc != CZK_OK) {
        czk_gpu_backend_destroy(c->be);
        czk_free(c);
        return rc;
    }
    c->base.ops = &cuda_ops;
    if (c->be->prove_sums != NULL)
        c->base.flags |= CZK_DEVICE_WHOLE_PROOFS;
    if (c->be->flags & CZK_BACKEND_WITNESS_PACK)
        c->base.flags |= CZK_DEVICE_WITNESS_PACK;
    if (c->be->host_alloc != NULL && c->be->host_free != NULL)
        c->base.flags |= CZK_DEVICE_PINNED;
    c->ordinal = ordinal;
    czk_gpu_describe(czk_gpu_backend_context(c->be), c->name, sizeof c->name);
    snprintf(c->label, sizeof c->label, "cuda:%d%s", ordinal,
             opts != NULL && opts->priority_lane ? "/lane" : "");
    c->mem_total = total_b;
    c->mem_free = free_b;
    c->mem_budget = free_b;
    if (opts != NULL && opts->vram_reserve_bytes > 0)
        c->mem_budget = opts->vram_reserve_bytes < free_b ? free_b - opts->vram_reserve_bytes : 0;
    if (opts != NULL && opts->vram_limit_bytes != 0 && opts->vram_limit_bytes < c->mem_budget)
        c->mem_budget = opts->vram_limit_bytes;
    *out = &c->base;
    return CZK_OK;
}
