/*
 * The CUDA prover backend: the czk_backend table of groth16/backend.h on one device.
 *
 * DESIGN. h and the G1 MSMs run on the device; the G2 MSM runs on the CPU (czk_msm_g2), as
 * the backend's name says. Each call first makes sure the arena holds the call's plan
 * (plan.cu), then copies its host inputs into the arena, launches, and copies the result
 * back; nothing is allocated between the reservation and the return, so a step that cannot
 * fit fails with CZK_ENOMEM before a kernel runs.
 *
 * h follows poly/quotient.c step by step with the device transforms of ntt/ntt.cu: for the
 * monomial basis, an inverse NTT and a coset NTT (g = 7) of each of a, b and c, the fused
 * pointwise (a·b − c)·(g^n − 1)^(−1), and a coset inverse NTT; for the odd coset, an inverse
 * NTT and a coset NTT with shift ω_2n of each, then a·b − c. The roots are the CPU
 * domain's, and field arithmetic is exact, so the output is bit for bit the CPU's (a[n − 1]
 * included). Domains below 2^10 run on the CPU: too small to be worth a launch.
 *
 * The MSM keeps witness values 0 and 1 in its buckets (sum_g1 is NULL, so the prover does
 * not split them): a zero scalar has no non-zero digit and costs a sort entry per window; a
 * one costs a single mixed addition, what a batch addition would cost.
 */
#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/plan.cuh"
#include "groth16/backend.h"
#include "msm/msm.h"
#include "poly/ntt.h"
#include "poly/quotient.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/status.h"

using czk_cuda::fr_t;

/* Domains below this run the quotient on the CPU. */
#define H_MIN_LG 10

namespace {

/* Pinned host buffers kept for reuse; a proof takes at most five (prove.c). */
#define PINNED_SLOTS 8
/* Keys whose points may be resident at once, and arrays per key (A, B_G1, B_G2, L, H). */
#define RESIDENT_KEYS 4
#define KEY_ARRAYS 5

struct pinned_buf {
    void *p; /* cudaHostAlloc'ed, or NULL for an empty slot */
    size_t bytes;
    int busy; /* handed out by host_alloc and not yet given back */
};

/* One array of a resident key: host range [host, host + bytes) mirrored at dev. */
struct resident_range {
    const char *host;
    size_t bytes;
    char *dev;
};

struct resident_key {
    const czk_groth16_pk *pk; /* NULL: a free slot */
    resident_range r[KEY_ARRAYS];
    size_t bytes; /* device bytes of the five arrays */
};

struct gpu_backend {
    czk_backend be; /* be.ctx points back to this struct */
    czk_gpu *g;
    char name[48];
    size_t budget;     /* device bytes this backend may hold: arena + resident keys */
    czk_gpu_plan plan; /* what the arena is sized for */
    void *arena;       /* plan.arena_bytes or more, from czk__gpu_malloc */
    size_t arena_bytes;

    /* Pinned host memory (host_alloc): at most pinned_limit bytes in all, kept once made so
     * that no proof pays for cudaHostAlloc or cudaFreeHost (both synchronise the device). */
    pthread_mutex_t pin_mu;
    pinned_buf pinned[PINNED_SLOTS];
    size_t pinned_limit, pinned_bytes;

    resident_key keys[RESIDENT_KEYS];
    size_t resident_bytes;

    /* The last h step's output is still at the start of the arena, as the host array
     * h_host of h_n elements holds it: an MSM over those scalars (the prover's H MSM comes
     * next) reads them there. Cleared by any other use of the arena. */
    const czk_fr *h_host;
    size_t h_n;
};

/* The device copy of host points [pts, pts + bytes) when a resident key holds them. */
const void *resident_lookup(const gpu_backend *b, const void *pts, size_t bytes) {
    const char *p = (const char *)pts;
    for (int k = 0; k < RESIDENT_KEYS; k++) {
        if (b->keys[k].pk == NULL)
            continue;
        for (int i = 0; i < KEY_ARRAYS; i++) {
            const resident_range *r = &b->keys[k].r[i];
            if (r->dev != NULL && p >= r->host && bytes <= r->bytes &&
                (size_t)(p - r->host) <= r->bytes - bytes)
                return r->dev + (p - r->host);
        }
    }
    return NULL;
}

/* a[i] = (a[i]·b[i] − c[i])·z, or without the factor when scale is 0. */
__global__ void h_pointwise_kernel(fr_t *a, const fr_t *b, const fr_t *c, size_t n, fr_t z,
                                   int scale) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    fr_t x = fr_t::load(a + i) * fr_t::load(b + i) - fr_t::load(c + i);
    if (scale)
        x = x * z;
    x.store(a + i);
}

/* Makes the arena hold a plan for h at 2^lg and MSMs of `points` (and all planned before). */
int ensure_plan(gpu_backend *b, unsigned lg, size_t points, czk_err *err) {
    int rc = CZK_OK;
    czk_gpu_plan p;
    unsigned want_lg = lg > b->plan.lg ? lg : b->plan.lg;
    size_t want_pts = points > b->plan.msm_points ? points : b->plan.msm_points;
    if (b->arena != NULL && want_lg == b->plan.lg && want_pts == b->plan.msm_points)
        return CZK_OK;
    /* Resident keys stay; the arena gets what they leave of the budget. */
    CZK_TRY(czk_gpu_plan_make(b->g, &p, b->budget - b->resident_bytes, want_lg, want_pts, err));
    if (p.arena_bytes > b->arena_bytes || b->arena == NULL) {
        /* Growing: the old arena goes first, so that the new one fits the same budget. */
        b->h_host = NULL;
        czk__gpu_free(b->g, b->arena, b->arena_bytes);
        b->arena = NULL;
        b->arena_bytes = 0;
        CZK_TRY(czk__gpu_malloc(b->g, &b->arena, p.arena_bytes, err));
        b->arena_bytes = p.arena_bytes;
    }
    b->plan = p;
out:
    return rc;
}

int gpu_h(void *ctx, const czk_ntt_domain *d, czk_groth16_h_basis basis, czk_fr *a, czk_fr *b,
          czk_fr *c, czk_pool *pool, czk_err *err) {
    gpu_backend *be = (gpu_backend *)ctx;
    czk_gpu *g = be->g;
    int rc = CZK_OK;
    const unsigned lg = d != NULL ? czk_ntt_domain_lg(d) : 0;
    const size_t n = (size_t)1 << lg, bytes = n * sizeof(czk_fr);
    czk_fr shift, z;
    fr_t zd;
    fr_t *dv[3];
    czk_fr *hv[3] = {a, b, c};
    const czk_fr *omega;

    be->h_host = NULL; /* whatever happens below, the arena no longer holds an older h */
    if (d == NULL || a == NULL || b == NULL || c == NULL)
        return czk_err_set(err, CZK_EINVAL, "gpu h: NULL domain or vector");
    if (basis != CZK_H_MONOMIAL && basis != CZK_H_ODD_COSET)
        return czk_err_set(err, CZK_EINVAL, "gpu h: unknown H basis %d", (int)basis);
    if (lg < H_MIN_LG)
        return basis == CZK_H_MONOMIAL ? czk_poly_h_monomial(d, a, b, c, pool, err)
                                       : czk_poly_h_odd_coset(d, a, b, c, pool, err);
    if (lg > CZK_GPU_NTT_MAX_LG)
        return czk_err_set(err, CZK_EINVAL, "gpu h: domain 2^%u above 2^%d", lg,
                           CZK_GPU_NTT_MAX_LG);
    omega = czk_ntt_domain_omega(d);
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_TRY(ensure_plan(be, lg, 0, err));
    for (int k = 0; k < 3; k++)
        dv[k] = (fr_t *)((char *)be->arena + (size_t)k * czk__gpu_align(bytes));

    if (basis == CZK_H_MONOMIAL) {
        uint64_t e = n;
        czk_fr_set_u64(&shift, 7);
        /* Z(g·ω^i) = g^n − 1 for every i: one constant, as in quotient.c. */
        czk_fr_pow(&z, &shift, &e, 1);
        czk_fr_sub(&z, &z, &CZK_FR_ONE);
        czk_fr_inv(&z, &z);
    } else {
        shift = *czk_ntt_domain_omega_2n(d);
        z = CZK_FR_ONE;
    }
    memcpy(&zd, &z, sizeof(zd));

    for (int k = 0; k < 3; k++) {
        CZK_CUDA_TRY(err, cudaMemcpyAsync(dv[k], hv[k], bytes, cudaMemcpyHostToDevice, g->stream));
        CZK_TRY(czk_gpu_ntt_var(g, (czk_fr *)dv[k], CZK_GPU_MEM_DEVICE, lg, CZK_GPU_NTT_INVERSE,
                                omega, NULL, err));
        CZK_TRY(czk_gpu_ntt_var(g, (czk_fr *)dv[k], CZK_GPU_MEM_DEVICE, lg,
                                CZK_GPU_NTT_COSET_FORWARD, omega, &shift, err));
    }
    h_pointwise_kernel<<<(unsigned)((n + 255) / 256), 256, 0, g->stream>>>(
        dv[0], dv[1], dv[2], n, zd, basis == CZK_H_MONOMIAL ? 1 : 0);
    CZK_CUDA_TRY(err, cudaGetLastError());
    if (basis == CZK_H_MONOMIAL)
        CZK_TRY(czk_gpu_ntt_var(g, (czk_fr *)dv[0], CZK_GPU_MEM_DEVICE, lg,
                                CZK_GPU_NTT_COSET_INVERSE, omega, &shift, err));
    CZK_CUDA_TRY(err, cudaMemcpyAsync(a, dv[0], bytes, cudaMemcpyDeviceToHost, g->stream));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    be->h_host = a;
    be->h_n = n;
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    czk_memclear_explicit(&z, sizeof(z));
    return rc;
}

int gpu_msm_g1(void *ctx, czk_g1_jacobian *out, const czk_g1_affine *pts, const czk_fr *sc,
               size_t n, czk_pool *pool, czk_err *err) {
    gpu_backend *be = (gpu_backend *)ctx;
    czk_gpu *g = be->g;
    int rc = CZK_OK;
    size_t bs = 0, nb = 0, off = 0, pts_bytes, sc_bytes;
    char *d_pts, *d_sc, *scratch;
    const char *resident;
    bool h_on_device;
    czk_g1_jacobian acc, part;
    (void)pool;

    if (out == NULL || (n > 0 && (pts == NULL || sc == NULL)))
        return czk_err_set(err, CZK_EINVAL, "gpu msm_g1: NULL argument");
    czk_g1_jacobian_set_infinity(&acc);
    if (n == 0) {
        *out = acc;
        return CZK_OK;
    }
    CZK_TRY(czk__gpu_enter(g, err));
    /* h's output still in the arena (gpu_h), and the arena not about to be regrown. */
    h_on_device = sc == be->h_host && n <= be->h_n && be->arena != NULL && be->plan.msm_points >= n;
    be->h_host = NULL;
    CZK_TRY(ensure_plan(be, 0, n, err));
    CZK_TRY(czk__gpu_msm_pick_batch(g, n, be->arena_bytes, &bs, &nb, err));
    resident = (const char *)resident_lookup(be, pts, n * sizeof(czk_g1_affine));
    h_on_device = h_on_device && nb == 1;
    for (size_t k = 0; k < nb; k++) {
        size_t m = n / nb + (k < n % nb ? 1 : 0);
        /* The layout of a batch of m points is the one czk__gpu_msm_pick_batch checked; with
         * the key resident the points' part of it is left unused. */
        pts_bytes = czk__gpu_align(m * sizeof(czk_g1_affine));
        sc_bytes = czk__gpu_align(m * sizeof(czk_fr));
        d_pts = (char *)be->arena;
        d_sc = d_pts + pts_bytes;
        scratch = d_sc + sc_bytes;
        if (h_on_device && resident != NULL) {
            /* h sits at the arena's start, in the unused points' part: read it in place. */
            d_sc = (char *)be->arena;
        } else if (h_on_device) {
            /* Move h out of the way of the points (same stream: before they arrive). */
            CZK_CUDA_TRY(err, cudaMemcpyAsync(d_sc, be->arena, m * sizeof(czk_fr),
                                              cudaMemcpyDeviceToDevice, g->stream));
        } else {
            CZK_CUDA_TRY(err, cudaMemcpyAsync(d_sc, sc + off, m * sizeof(czk_fr),
                                              cudaMemcpyHostToDevice, g->stream));
        }
        if (resident != NULL)
            d_pts = (char *)resident + off * sizeof(czk_g1_affine);
        else
            CZK_CUDA_TRY(err, cudaMemcpyAsync(d_pts, pts + off, m * sizeof(czk_g1_affine),
                                              cudaMemcpyHostToDevice, g->stream));
        CZK_TRY(czk__gpu_msm_g1_run(g, &part, d_pts, d_sc, m, scratch,
                                    be->arena_bytes - pts_bytes - sc_bytes, err));
        czk_g1_jacobian_add_var(&acc, &acc, &part);
        off += m;
    }
    *out = acc;
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    return rc;
}

int gpu_msm_g2(void *ctx, czk_g2_jacobian *out, const czk_g2_affine *pts, const czk_fr *sc,
               size_t n, czk_pool *pool, czk_err *err) {
    (void)ctx;
    return czk_msm_g2(out, pts, sc, n, pool, err);
}

void *gpu_host_alloc(void *ctx, size_t bytes) {
    gpu_backend *b = (gpu_backend *)ctx;
    void *r = NULL;
    int best = -1, empty = -1;
    if (bytes == 0)
        return NULL;
    pthread_mutex_lock(&b->pin_mu);
    for (int i = 0; i < PINNED_SLOTS; i++) {
        pinned_buf *pb = &b->pinned[i];
        if (pb->p == NULL) {
            if (empty < 0)
                empty = i;
        } else if (!pb->busy && pb->bytes >= bytes &&
                   (best < 0 || pb->bytes < b->pinned[best].bytes)) {
            best = i;
        }
    }
    if (best < 0) {
        /* A new buffer: drop idle ones that are too small while the limit is in the way. */
        for (int i = 0; i < PINNED_SLOTS && b->pinned_bytes + bytes > b->pinned_limit; i++) {
            pinned_buf *pb = &b->pinned[i];
            if (pb->p != NULL && !pb->busy) {
                (void)cudaFreeHost(pb->p);
                b->pinned_bytes -= pb->bytes;
                pb->p = NULL;
                pb->bytes = 0;
                if (empty < 0)
                    empty = i;
            }
        }
        if (empty >= 0 && b->pinned_bytes + bytes <= b->pinned_limit) {
            void *p = NULL;
            /* Portable: usable from every context of the process, whichever is current. */
            if (cudaHostAlloc(&p, bytes, cudaHostAllocPortable) == cudaSuccess) {
                b->pinned[empty].p = p;
                b->pinned[empty].bytes = bytes;
                b->pinned_bytes += bytes;
                best = empty;
            } else {
                (void)cudaGetLastError(); /* the caller falls back to pageable memory */
            }
        }
    }
    if (best >= 0) {
        b->pinned[best].busy = 1;
        r = b->pinned[best].p;
    }
    pthread_mutex_unlock(&b->pin_mu);
    return r;
}

void gpu_host_free(void *ctx, void *p, size_t bytes) {
    gpu_backend *b = (gpu_backend *)ctx;
    (void)bytes; /* the slot knows its own size, which may be larger */
    pthread_mutex_lock(&b->pin_mu);
    for (int i = 0; i < PINNED_SLOTS; i++)
        if (b->pinned[i].p == p)
            b->pinned[i].busy = 0;
    pthread_mutex_unlock(&b->pin_mu);
}

void key_free(gpu_backend *b, resident_key *k) {
    for (int i = 0; i < KEY_ARRAYS; i++) {
        if (k->r[i].dev != NULL)
            czk__gpu_free(b->g, k->r[i].dev, k->r[i].bytes);
    }
    b->resident_bytes -= k->bytes;
    memset(k, 0, sizeof(*k));
}

/* Physical memory of the host, for the default pinned limit; 0 when unknown. */
size_t host_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

} // namespace

extern "C" int czk_gpu_backend_attach_key(czk_backend *be, const czk_groth16_pk *pk, int *resident,
                                          czk_err *err) {
    int rc = CZK_OK;
    gpu_backend *b;
    resident_key *slot = NULL;
    size_t total = 0, max_pts;
    unsigned lg = 0;
    struct {
        const void *p;
        size_t bytes;
    } arr[KEY_ARRAYS];
    if (be == NULL || pk == NULL || resident == NULL)
        return czk_err_set(err, CZK_EINVAL, "attach key: NULL argument");
    b = (gpu_backend *)be->ctx;
    *resident = 0;
    for (int k = 0; k < RESIDENT_KEYS; k++) {
        if (b->keys[k].pk == pk) {
            *resident = 1;
            return CZK_OK;
        }
        if (b->keys[k].pk == NULL && slot == NULL)
            slot = &b->keys[k];
    }
    if (slot == NULL)
        return CZK_OK; /* every slot taken: this key streams */
    arr[0] = {pk->a, pk->n_a * sizeof(czk_g1_affine)};
    arr[1] = {pk->b_g1, pk->n_b_g1 * sizeof(czk_g1_affine)};
    arr[2] = {pk->b_g2, pk->n_b_g2 * sizeof(czk_g2_affine)};
    arr[3] = {pk->l, pk->n_l * sizeof(czk_g1_affine)};
    arr[4] = {pk->h, pk->n_h * sizeof(czk_g1_affine)};
    for (int i = 0; i < KEY_ARRAYS; i++)
        total += czk__gpu_align(arr[i].bytes);
    while (lg < CZK_GPU_NTT_MAX_LG && ((size_t)1 << lg) < pk->domain_size)
        lg++;
    max_pts = pk->n_a > pk->n_b_g1 ? pk->n_a : pk->n_b_g1;
    max_pts = max_pts > pk->n_l ? max_pts : pk->n_l;
    max_pts = max_pts > pk->n_h ? max_pts : pk->n_h;
    CZK_TRY(czk__gpu_enter(b->g, err));
    /* The proofs' working set comes first: a key is resident only beside it. */
    CZK_TRY(ensure_plan(b, lg >= H_MIN_LG ? lg : 0, max_pts, err));
    if (b->arena_bytes + b->plan.tables_bytes + b->resident_bytes + total > b->budget)
        return CZK_OK;
    slot->pk = pk;
    slot->bytes = total;
    b->resident_bytes += total;
    for (int i = 0; i < KEY_ARRAYS; i++) {
        resident_range *r = &slot->r[i];
        if (arr[i].bytes == 0)
            continue;
        r->host = (const char *)arr[i].p;
        r->bytes = arr[i].bytes;
        CZK_TRY(czk__gpu_malloc(b->g, (void **)&r->dev, r->bytes, err));
        CZK_CUDA_TRY(err, cudaMemcpy(r->dev, r->host, r->bytes, cudaMemcpyHostToDevice));
    }
    *resident = 1;
out:
    if (rc != CZK_OK && slot != NULL && slot->pk == pk)
        key_free(b, slot);
    return rc;
}

extern "C" void czk_gpu_backend_detach_key(czk_backend *be, const czk_groth16_pk *pk) {
    gpu_backend *b;
    if (be == NULL || pk == NULL)
        return;
    b = (gpu_backend *)be->ctx;
    (void)cudaSetDevice(b->g->device);
    /* The stream may still read the points: let it drain first. */
    (void)cudaStreamSynchronize(b->g->stream);
    for (int k = 0; k < RESIDENT_KEYS; k++)
        if (b->keys[k].pk == pk)
            key_free(b, &b->keys[k]);
}

extern "C" size_t czk_gpu_backend_resident_bytes(const czk_backend *be) {
    return ((const gpu_backend *)be->ctx)->resident_bytes;
}

extern "C" void czk_gpu_backend_pinned(const czk_backend *be, size_t *held, size_t *limit) {
    gpu_backend *b = (gpu_backend *)be->ctx;
    pthread_mutex_lock(&b->pin_mu);
    *held = b->pinned_bytes;
    *limit = b->pinned_limit;
    pthread_mutex_unlock(&b->pin_mu);
}

extern "C" int czk_gpu_backend_create(czk_backend **out, int device, const czk_gpu_plan_opts *opts,
                                      czk_err *err) {
    int rc = CZK_OK;
    gpu_backend *b = NULL;
    size_t free_b = 0, total_b = 0, avail;
    if (out == NULL)
        return czk_err_set(err, CZK_EINVAL, "out is NULL");
    *out = NULL;
    b = (gpu_backend *)czk_calloc(1, sizeof(*b));
    if (b == NULL)
        return czk_err_set(err, CZK_ENOMEM, "gpu backend");
    b->be.ctx = b;
    pthread_mutex_init(&b->pin_mu, NULL);
    /* Default: a quarter of the host's memory may be pinned (five arrays of 32·n bytes for
     * n = 2^27 are 21.5 GB). */
    b->pinned_limit =
        opts != NULL && opts->pinned_limit_bytes > 0 ? opts->pinned_limit_bytes : host_memory() / 4;
    CZK_TRY(czk_gpu_create(&b->g, device, err));
    CZK_TRY(czk_gpu_mem_info(b->g, &free_b, &total_b, err));
    avail = free_b;
    if (opts != NULL && opts->vram_limit_bytes > 0 && opts->vram_limit_bytes < avail)
        avail = opts->vram_limit_bytes;
    /* Keep 1/32 and 64 MiB back for the driver, CUDA's own allocations and fragmentation. */
    b->budget = avail / 32 * 31;
    b->budget = b->budget > ((size_t)64 << 20) ? b->budget - ((size_t)64 << 20) : 0;
    snprintf(b->name, sizeof(b->name), "cuda:%d (G2 on CPU)", device);
    b->be.name = b->name;
    b->be.ctx = b;
    b->be.flags = 0;
    b->be.h = gpu_h;
    b->be.msm_g1 = gpu_msm_g1;
    b->be.msm_g2 = gpu_msm_g2;
    b->be.sum_g1 = NULL;
    b->be.sum_g2 = NULL;
    b->be.host_alloc = gpu_host_alloc;
    b->be.host_free = gpu_host_free;
    if (opts != NULL && opts->max_lg > 0) {
        size_t pts = (size_t)1 << (opts->max_lg < 40 ? opts->max_lg : 40);
        if (opts->max_points > pts)
            pts = opts->max_points;
        CZK_TRY(ensure_plan(b, opts->max_lg, pts, err));
    } else if (opts != NULL && opts->max_points > 0) {
        CZK_TRY(ensure_plan(b, 0, opts->max_points, err));
    }
    *out = &b->be;
    b = NULL;
out:
    if (b != NULL)
        czk_gpu_backend_destroy(&b->be);
    return rc;
}

extern "C" void czk_gpu_backend_destroy(czk_backend *be) {
    gpu_backend *b;
    if (be == NULL)
        return;
    b = (gpu_backend *)be->ctx;
    if (b->g != NULL) {
        (void)cudaSetDevice(b->g->device);
        (void)cudaStreamSynchronize(b->g->stream);
        for (int k = 0; k < RESIDENT_KEYS; k++)
            if (b->keys[k].pk != NULL)
                key_free(b, &b->keys[k]);
        czk__gpu_free(b->g, b->arena, b->arena_bytes);
        czk_gpu_destroy(b->g);
    }
    for (int i = 0; i < PINNED_SLOTS; i++)
        if (b->pinned[i].p != NULL)
            (void)cudaFreeHost(b->pinned[i].p);
    pthread_mutex_destroy(&b->pin_mu);
    czk_free(b);
}

extern "C" void czk_gpu_backend_plan(const czk_backend *be, czk_gpu_plan *plan) {
    *plan = ((const gpu_backend *)be->ctx)->plan;
}

extern "C" czk_gpu *czk_gpu_backend_context(const czk_backend *be) {
    return ((const gpu_backend *)be->ctx)->g;
}
