/*
 * The CUDA prover backend: the czk_backend table of groth16/backend.h on one device.
 *
 * DESIGN. h and every MSM run on the device. Each call first makes sure the arena holds the
 * call's plan (plan.cu), then copies its host inputs into the arena, launches, and copies
 * the result back; nothing is allocated between the reservation and the return, so a step
 * that cannot fit fails with CZK_ENOMEM before a kernel runs. With a key (and its circuit)
 * resident, MSMs read its points in place and a whole proof can run from the witness alone
 * (resident.cu). A key is found through the handle its attach returned (czk_backend_key,
 * prover.cuh), which the prover passes with every MSM together with the array the points
 * are: nothing is looked up by host address.
 *
 * h computes what poly/quotient.c computes with the device transforms of ntt/ntt.cu, one
 * transform fewer for the monomial basis (czk__gpu_h_step: c needs no coset pair), the
 * coset shifts and pointwise steps fused into the transforms. The roots are the CPU
 * domain's, and field arithmetic is exact, so the output is bit for bit the CPU's (a[n − 1]
 * included). Domains below 2^10 run on the CPU: too small to be worth a launch.
 *
 * The device MSM splits witness values 0 and 1 off itself (msm.cuh: zeros dropped, ones
 * summed directly, Pippenger over the rest), so the prover hands it raw scalars.
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
#include "gpu/cuda/prover.cuh"
#include "gpu/cuda/setup/fixed_base.cuh"
#include "groth16/backend.h"
#include "poly/ntt.h"
#include "poly/quotient.h"
#include "util/alloc.h"
#include "util/status.h"

using czk_cuda::fr_t;

namespace {

int gpu_h(void *ctx, const czk_ntt_domain *d, czk_groth16_h_basis basis, czk_fr *a, czk_fr *b,
          czk_fr *c, czk_pool *pool, czk_err *err) {
    czk__gpu_backend *be = (czk__gpu_backend *)ctx;
    czk_gpu *g = be->g;
    int rc = CZK_OK;
    const unsigned lg = d != NULL ? czk_ntt_domain_lg(d) : 0;
    const size_t n = (size_t)1 << lg, bytes = n * sizeof(czk_fr);
    void *dv[3];
    czk_fr *hv[3] = {a, b, c};

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
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_TRY(czk__gpu_ensure_plan(be, lg, 0, err));
    for (int k = 0; k < 3; k++) {
        dv[k] = (char *)be->arena + (size_t)k * czk__gpu_align(bytes);
        CZK_CUDA_TRY(err, cudaMemcpyAsync(dv[k], hv[k], bytes, cudaMemcpyHostToDevice, g->stream));
    }
    CZK_TRY(czk__gpu_h_device(be, lg, basis, czk_ntt_domain_omega(d), czk_ntt_domain_omega_2n(d),
                              dv, err));
    CZK_CUDA_TRY(err, cudaMemcpyAsync(a, dv[0], bytes, cudaMemcpyDeviceToHost, g->stream));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    be->h_host = a;
    be->h_n = n;
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    return rc;
}

/*
 * The device copy of key's array `which` when the key holds it there, for an MSM of the
 * first n points of pts (G::id's group); NULL when there is none (no key or array, or a
 * streamed key: its points stay on the host). CZK_EINVAL when key is another backend's or
 * pts is not that array.
 */
template <class G>
int key_points(const czk__gpu_backend *be, const czk_backend_key *key, czk_key_array which,
               const typename G::affine *pts, size_t n, const char **dev, czk_err *err) {
    *dev = NULL;
    if (key == NULL || which == CZK_KEY_ARRAY_NONE)
        return CZK_OK;
    if (key->owner != be)
        return czk_err_set(err, CZK_EINVAL, "gpu msm_g%d: a key attached to another backend",
                           G::id);
    if (which < CZK_KEY_ARRAY_A || which > CZK_KEY_ARRAY_H ||
        (which == CZK_KEY_ARRAY_B_G2) != (G::id == 2))
        return czk_err_set(err, CZK_EINVAL, "gpu msm_g%d: key array %d is not of this group", G::id,
                           (int)which);
    const resident_range *r = &key->r[which - CZK_KEY_ARRAY_A];
    if (r->dev == NULL)
        return CZK_OK;
    if ((const char *)pts != r->host || n > r->bytes / sizeof(typename G::affine))
        return czk_err_set(err, CZK_EINVAL,
                           "gpu msm_g%d: %zu points that are not the key's array %d", G::id, n,
                           (int)which);
    *dev = r->dev;
    return CZK_OK;
}

/*
 * One MSM of G's points on the device: the points read where the key holds them on the
 * device or streamed in batches that fit the arena, the scalars from the host or, for the
 * H MSM right after h, from where h left them.
 */
template <class G>
int gpu_msm(czk__gpu_backend *be, typename G::jacobian *out, const czk_backend_key *key,
            czk_key_array which, const typename G::affine *pts, const czk_fr *sc, size_t n,
            czk_err *err) {
    czk_gpu *g = be->g;
    int rc = CZK_OK;
    size_t bs = 0, nb = 0, off = 0, pts_bytes, sc_bytes;
    char *d_pts, *d_sc, *scratch;
    const char *resident;
    bool h_on_device;
    typename G::jacobian acc, part;

    if (out == NULL || (n > 0 && (pts == NULL || sc == NULL)))
        return czk_err_set(err, CZK_EINVAL, "gpu msm_g%d: NULL argument", G::id);
    G::set_infinity(&acc);
    if (n == 0) {
        *out = acc;
        return CZK_OK;
    }
    CZK_TRY(czk__gpu_enter(g, err));
    /* h's output still in the arena (gpu_h), and the arena not about to be regrown. */
    h_on_device = G::id == 1 && sc == be->h_host && n <= be->h_n && be->arena != NULL &&
                  be->plan.msm_points >= n;
    be->h_host = NULL;
    CZK_TRY(czk__gpu_ensure_plan(be, 0, G::id == 1 ? n : 0, err));
    if (G::id != 1) {
        /* Plans are sized for G1. A G2 MSM whose single batch the arena cannot hold grows
         * the arena when the budget allows (a G2 point is twice a G1 point), else streams. */
        size_t need = 0;
        CZK_TRY(czk__gpu_msm_batch_bytes(g, G::id, n, &need, NULL, NULL, NULL, err));
        if (need > be->arena_bytes &&
            need + be->plan.tables_bytes + be->resident_bytes <= be->budget) {
            be->arena_min = need > be->arena_min ? need : be->arena_min;
            CZK_TRY(czk__gpu_ensure_plan(be, 0, 0, err));
        }
    }
    CZK_TRY(czk__gpu_msm_pick_batch(g, G::id, n, be->arena_bytes, &bs, &nb, err));
    CZK_TRY(key_points<G>(be, key, which, pts, n, &resident, err));
    h_on_device = h_on_device && nb == 1;
    for (size_t k = 0; k < nb; k++) {
        size_t m = n / nb + (k < n % nb ? 1 : 0);
        /* The layout of a batch of m points is the one czk__gpu_msm_pick_batch checked; with
         * the key resident the points' part of it is left unused. */
        pts_bytes = czk__gpu_align(m * sizeof(typename G::affine));
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
            d_pts = (char *)resident + off * sizeof(typename G::affine);
        else
            CZK_CUDA_TRY(err, cudaMemcpyAsync(d_pts, pts + off, m * sizeof(typename G::affine),
                                              cudaMemcpyHostToDevice, g->stream));
        CZK_TRY(
            G::run(g, &part, d_pts, d_sc, m, scratch, be->arena_bytes - pts_bytes - sc_bytes, err));
        G::add(&acc, &acc, &part);
        off += m;
    }
    *out = acc;
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    return rc;
}

int gpu_msm_g1(void *ctx, czk_g1_jacobian *out, const czk_backend_key *key, czk_key_array which,
               const czk_g1_affine *pts, const czk_fr *sc, size_t n, czk_pool *pool, czk_err *err) {
    (void)pool;
    return gpu_msm<czk__gpu_group_g1>((czk__gpu_backend *)ctx, out, key, which, pts, sc, n, err);
}

int gpu_msm_g2(void *ctx, czk_g2_jacobian *out, const czk_backend_key *key, czk_key_array which,
               const czk_g2_affine *pts, const czk_fr *sc, size_t n, czk_pool *pool, czk_err *err) {
    (void)pool;
    return gpu_msm<czk__gpu_group_g2>((czk__gpu_backend *)ctx, out, key, which, pts, sc, n, err);
}

void *gpu_host_alloc(void *ctx, size_t bytes) {
    czk__gpu_backend *b = (czk__gpu_backend *)ctx;
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
    czk__gpu_backend *b = (czk__gpu_backend *)ctx;
    (void)bytes; /* the slot knows its own size, which may be larger */
    pthread_mutex_lock(&b->pin_mu);
    for (int i = 0; i < PINNED_SLOTS; i++)
        if (b->pinned[i].p == p)
            b->pinned[i].busy = 0;
    pthread_mutex_unlock(&b->pin_mu);
}

/* Frees what k holds, takes it out of b's list and frees it. */
void key_free(czk__gpu_backend *b, resident_key *k) {
    czk__gpu_circuit_free(b, k);
    for (int i = 0; i < KEY_ARRAYS; i++) {
        if (k->r[i].dev != NULL)
            czk__gpu_free(b->g, k->r[i].dev, k->r[i].bytes);
    }
    b->resident_bytes -= k->bytes;
    for (resident_key **p = &b->keys; *p != NULL; p = &(*p)->next) {
        if (*p == k) {
            *p = k->next;
            break;
        }
    }
    czk_free(k);
}

/* Physical memory of the host, for the default pinned limit; 0 when unknown. */
size_t host_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (size_t)pages * (size_t)page : 0;
}

} // namespace

int czk__gpu_h_step(czk_gpu *g, unsigned lg, czk_groth16_h_basis basis, const czk_fr *omega,
                    const czk_fr *omega_2n, int i, void *v, void *acc, czk_err *err) {
    int rc = CZK_OK;
    const bool mono = basis == CZK_H_MONOMIAL;
    czk_fr shift, z, c;
    if (mono) {
        czk_poly_h_coset((size_t)1 << lg, &shift, &z);
    } else {
        shift = *omega_2n;
        z = CZK_FR_ONE; /* no division at the odd coset */
    }
    if (i < 2) {
        /* To the coset: coefficients times shift^j (free in the inverse's 1/n step), then a
         * plain forward transform; b's stores multiply by A. */
        CZK_TRY(czk__gpu_ntt_fused(g, v, lg, true, omega, &shift, NULL, NULL, NULL, NULL, err));
        CZK_TRY(czk__gpu_ntt_fused(g, v, lg, false, omega, NULL, NULL, i == 1 ? acc : NULL, NULL,
                                   i == 1 ? acc : NULL, err));
    } else if (mono) {
        /* z = (g^n − 1)^(−1); v = −z·C (coefficients), then acc = z·(coset inverse of A·B) + v. */
        czk_fr ginv, negz;
        czk_fr_neg(&negz, &z);
        czk_fr_inv_var(&ginv, &shift);
        CZK_TRY(czk__gpu_ntt_fused(g, v, lg, true, omega, NULL, &negz, NULL, NULL, NULL, err));
        CZK_TRY(czk__gpu_ntt_fused(g, acc, lg, true, omega, &ginv, &z, NULL, v, NULL, err));
    } else {
        /* acc = A·B − C at the odd coset: C's coefficients negated with the shift. */
        czk_fr_neg(&c, &CZK_FR_ONE);
        CZK_TRY(czk__gpu_ntt_fused(g, v, lg, true, omega, &shift, &c, NULL, NULL, NULL, err));
        CZK_TRY(czk__gpu_ntt_fused(g, v, lg, false, omega, NULL, NULL, NULL, acc, acc, err));
    }
out:
    return rc;
}

int czk__gpu_h_device(czk__gpu_backend *b, unsigned lg, czk_groth16_h_basis basis,
                      const czk_fr *omega, const czk_fr *omega_2n, void *const dv[3],
                      czk_err *err) {
    int rc = CZK_OK;
    for (int i = 0; i < 3; i++)
        CZK_TRY(czk__gpu_h_step(b->g, lg, basis, omega, omega_2n, i, dv[i], dv[0], err));
out:
    return rc;
}

/* The plan for h at 2^lg and MSMs of `points` and of all planned before, in what the
 * resident keys and `reserve` more bytes (a key about to be placed) leave of the budget, and
 * the arena bytes it needs (at least arena_min). Allocates nothing. */
static int plan_want(czk__gpu_backend *b, unsigned lg, size_t points, size_t reserve,
                     czk_gpu_plan *p, size_t *bytes, czk_err *err) {
    int rc = CZK_OK;
    const unsigned want_lg = lg > b->plan.lg ? lg : b->plan.lg;
    const size_t want_pts = points > b->plan.msm_points ? points : b->plan.msm_points;
    *bytes = 0;
    if (b->resident_bytes + reserve > b->budget)
        return czk_err_set(err, CZK_ENOMEM,
                           "plan: %zu resident and %zu more bytes pass the %zu budget",
                           b->resident_bytes, reserve, b->budget);
    CZK_TRY(czk_gpu_plan_make(b->g, p, b->budget - b->resident_bytes - reserve, want_lg, want_pts,
                              err));
    *bytes = p->arena_bytes > b->arena_min ? p->arena_bytes : b->arena_min;
out:
    return rc;
}

/* czk__gpu_ensure_plan, the plan made for what the budget leaves once `reserve` more bytes
 * are resident. */
static int ensure_plan_in(czk__gpu_backend *b, unsigned lg, size_t points, size_t reserve,
                          czk_err *err) {
    int rc = CZK_OK;
    czk_gpu_plan p;
    unsigned want_lg = lg > b->plan.lg ? lg : b->plan.lg;
    size_t want_pts = points > b->plan.msm_points ? points : b->plan.msm_points;
    size_t want_bytes;
    if (b->arena != NULL && want_lg == b->plan.lg && want_pts == b->plan.msm_points &&
        b->arena_bytes >= b->arena_min)
        return CZK_OK;
    CZK_TRY(plan_want(b, lg, points, reserve, &p, &want_bytes, err));
    if (want_bytes > b->arena_bytes || b->arena == NULL) {
        /* Growing: the old arena goes first, so that the new one fits the same budget. */
        b->h_host = NULL;
        czk__gpu_free(b->g, b->arena, b->arena_bytes);
        b->arena = NULL;
        b->arena_bytes = 0;
        CZK_TRY(czk__gpu_malloc(b->g, &b->arena, want_bytes, err));
        b->arena_bytes = want_bytes;
    }
    b->plan = p;
out:
    return rc;
}

/* Makes the arena hold a plan for h at 2^lg and MSMs of `points` (and all planned before). */
int czk__gpu_ensure_plan(czk__gpu_backend *b, unsigned lg, size_t points, czk_err *err) {
    return ensure_plan_in(b, lg, points, 0, err);
}

extern "C" int czk_gpu_backend_attach_key(czk_backend *be, const czk_groth16_pk *pk,
                                          const czk_r1cs *cs, czk_backend_key **key, int *resident,
                                          czk_err *err) {
    int rc = CZK_OK;
    czk__gpu_backend *b;
    resident_key *k = NULL;
    size_t total = 0, max_pts;
    unsigned lg = 0;
    struct {
        const void *p;
        size_t bytes;
    } arr[KEY_ARRAYS];
    if (key != NULL)
        *key = NULL;
    if (resident != NULL)
        *resident = 0;
    if (be == NULL || pk == NULL || key == NULL || resident == NULL)
        return czk_err_set(err, CZK_EINVAL, "attach key: NULL argument");
    b = (czk__gpu_backend *)be->ctx;
    /* In czk_key_array order (index which − CZK_KEY_ARRAY_A): the MSMs find them so. */
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
    /* A new key, in the backend's list from the start: what it places counts in the
     * budget's sums (arena_min_of) as soon as it is there, and destroy finds it. */
    k = (resident_key *)czk_calloc(1, sizeof(*k));
    if (k == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "attach key: its record");
        goto out;
    }
    k->owner = b;
    k->next = b->keys;
    b->keys = k;
    /* The proofs' working set comes first: a key is resident only beside it. Sized before
     * anything is allocated, for what the budget leaves once the points are placed (so that
     * a key which fits beside smaller MSM batches is resident rather than streamed: a
     * 32 GiB PoRep key on an 80 GB card); a key that streams makes its own arena
     * (stream_attach), and the step-by-step one is made by the first proof that needs it. */
    {
        czk_gpu_plan p = {};
        size_t arena = 0;
        czk_err perr = {};
        const int planned = !b->stream_keys && plan_want(b, lg >= H_MIN_LG ? lg : 0, max_pts, total,
                                                         &p, &arena, &perr) == CZK_OK;
        arena = arena > b->arena_bytes ? arena : b->arena_bytes; /* it never shrinks */
        if (!planned || arena + p.tables_bytes + b->resident_bytes + total > b->budget) {
            /* The points do not fit beside the working set: whole proofs can still stream
             * them with the circuit's matrices. */
            int placed = 0;
            if (cs != NULL)
                CZK_TRY(czk__gpu_stream_attach(b, k, pk, cs, &placed, err));
            if (placed) {
                *key = k;
                *resident = 3;
                k = NULL;
            }
            goto out; /* not placed: k holds nothing and goes */
        }
    }
    CZK_TRY(ensure_plan_in(b, lg >= H_MIN_LG ? lg : 0, max_pts, total, err));
    k->pk = pk;
    k->bytes = total;
    b->resident_bytes += total;
    for (int i = 0; i < KEY_ARRAYS; i++) {
        resident_range *r = &k->r[i];
        if (arr[i].bytes == 0)
            continue;
        r->host = (const char *)arr[i].p;
        r->bytes = arr[i].bytes;
        CZK_TRY(czk__gpu_malloc(b->g, (void **)&r->dev, r->bytes, err));
        CZK_CUDA_TRY(err, cudaMemcpy(r->dev, r->host, r->bytes, cudaMemcpyHostToDevice));
    }
    *resident = 1;
    if (cs != NULL) {
        int placed = 0;
        CZK_TRY(czk__gpu_circuit_attach(b, k, cs, &placed, err));
        *resident = placed ? 2 : 1;
    }
    *key = k;
    k = NULL;
out:
    if (k != NULL)
        key_free(b, k);
    if (rc != CZK_OK) {
        *key = NULL;
        *resident = 0;
    }
    return rc;
}

extern "C" void czk_gpu_backend_detach_key(czk_backend *be, czk_backend_key *key) {
    czk__gpu_backend *b;
    if (be == NULL || key == NULL)
        return;
    b = (czk__gpu_backend *)be->ctx;
    if (key->owner != b)
        return; /* another backend's key: not this one's to free */
    (void)cudaSetDevice(b->g->device);
    /* The streams may still read the points (or a streamed key's host arrays): let them
     * drain first. */
    (void)cudaStreamSynchronize(b->g->stream);
    if (b->copy_stream != NULL)
        (void)cudaStreamSynchronize(b->copy_stream);
    key_free(b, key);
}

extern "C" size_t czk_gpu_backend_resident_bytes(const czk_backend *be) {
    return ((const czk__gpu_backend *)be->ctx)->resident_bytes;
}

extern "C" void czk_gpu_backend_describe_key(const czk_backend *be, const czk_backend_key *key,
                                             char *buf, size_t len) {
    const czk__gpu_backend *b = (const czk__gpu_backend *)be->ctx;
    const double mib = 1.0 / (double)(1u << 20);
    if (key == NULL || key->owner != b) {
        snprintf(buf, len, "not attached");
        return;
    }
    const resident_circuit *c = &key->circ;
    if (!c->streamed) {
        snprintf(buf, len, "resident: key %.1f MiB, circuit %.1f MiB on the device",
                 (double)key->bytes * mib, (double)c->bytes * mib);
        return;
    }
    snprintf(buf, len,
             "streamed: MSM batches of %zu G1 / %zu G2 points in %d slots of %.1f MiB, "
             "selection %.1f MiB, scratch %.1f MiB; SpMV chunks 2 x %.1f MiB; arena %.1f MiB",
             c->layout.bs, c->layout.bs / 2, c->layout.slots, (double)c->layout.slot * mib,
             (double)c->layout.sel * mib, (double)c->layout.scratch * mib,
             (double)c->slot_bytes * mib, (double)c->arena_bytes * mib);
}

extern "C" void czk_gpu_backend_pinned(const czk_backend *be, size_t *held, size_t *limit) {
    czk__gpu_backend *b = (czk__gpu_backend *)be->ctx;
    pthread_mutex_lock(&b->pin_mu);
    *held = b->pinned_bytes;
    *limit = b->pinned_limit;
    pthread_mutex_unlock(&b->pin_mu);
}

extern "C" int czk_gpu_backend_create(czk_backend **out, int device, const czk_gpu_plan_opts *opts,
                                      czk_err *err) {
    int rc = CZK_OK;
    czk__gpu_backend *b = NULL;
    size_t free_b = 0, total_b = 0, avail, local_b = 0, held;
    if (out == NULL)
        return czk_err_set(err, CZK_EINVAL, "out is NULL");
    *out = NULL;
    b = (czk__gpu_backend *)czk_calloc(1, sizeof(*b));
    if (b == NULL)
        return czk_err_set(err, CZK_ENOMEM, "gpu backend");
    b->be.ctx = b;
    pthread_mutex_init(&b->pin_mu, NULL);
    /* Default: a quarter of the host's memory may be pinned (five arrays of 32·n bytes for
     * n = 2^27 are 21.5 GB). */
    b->pinned_limit =
        opts != NULL && opts->pinned_limit_bytes > 0 ? opts->pinned_limit_bytes : host_memory() / 4;
    /* Locking a streamed key in place takes no memory (it is already loaded); half of the
     * host keeps the kernel room to move the rest. */
    b->register_limit = opts != NULL && opts->register_limit_bytes == CZK_GPU_REGISTER_NONE ? 0
                        : opts != NULL && opts->register_limit_bytes > 0
                            ? opts->register_limit_bytes
                            : host_memory() / 2;
    b->stream_keys = opts != NULL && (opts->flags & CZK_GPU_PLAN_STREAM_KEYS) != 0;
    CZK_TRY(czk_gpu_create(&b->g, device, err));
    if (opts != NULL && (opts->flags & CZK_GPU_PLAN_PRIORITY_STREAM) != 0)
        CZK_TRY(czk__gpu_stream_prioritize(b->g, err));
    CZK_TRY(czk_gpu_mem_info(b->g, &free_b, &total_b, err));
    avail = free_b;
    if (opts != NULL && opts->vram_reserve_bytes > 0)
        avail = opts->vram_reserve_bytes < avail ? avail - opts->vram_reserve_bytes : 0;
    if (opts != NULL && opts->vram_limit_bytes > 0 && opts->vram_limit_bytes < avail)
        avail = opts->vram_limit_bytes;
    /* Keep 1/32 and 64 MiB back for the driver, CUDA's own allocations and fragmentation,
     * and the local memory the driver reserves for the MSM kernels on their first launch. */
    CZK_TRY(czk__gpu_msm_local_bytes(b->g, &local_b, err));
    b->budget = avail / 32 * 31;
    held = ((size_t)64 << 20) + local_b;
    b->budget = b->budget > held ? b->budget - held : 0;
    snprintf(b->name, sizeof(b->name), "cuda:%d", device);
    b->be.name = b->name;
    b->be.ctx = b;
    b->be.flags = CZK_BACKEND_WITNESS_PACK;
    b->be.h = gpu_h;
    b->be.msm_g1 = gpu_msm_g1;
    b->be.msm_g2 = gpu_msm_g2;
    b->be.host_alloc = gpu_host_alloc;
    b->be.host_free = gpu_host_free;
    b->be.prove_sums = czk__gpu_prove_sums;
    b->be.fixed_base = czk__gpu_fixed_base;
    if (opts != NULL && opts->max_lg > 0) {
        size_t pts = (size_t)1 << (opts->max_lg < 40 ? opts->max_lg : 40);
        if (opts->max_points > pts)
            pts = opts->max_points;
        CZK_TRY(czk__gpu_ensure_plan(b, opts->max_lg, pts, err));
    } else if (opts != NULL && opts->max_points > 0) {
        CZK_TRY(czk__gpu_ensure_plan(b, 0, opts->max_points, err));
    }
    *out = &b->be;
    b = NULL;
out:
    if (b != NULL)
        czk_gpu_backend_destroy(&b->be);
    return rc;
}

extern "C" void czk_gpu_backend_destroy(czk_backend *be) {
    czk__gpu_backend *b;
    if (be == NULL)
        return;
    b = (czk__gpu_backend *)be->ctx;
    if (b->g != NULL) {
        (void)cudaSetDevice(b->g->device);
        (void)cudaStreamSynchronize(b->g->stream);
        if (b->copy_stream != NULL)
            (void)cudaStreamSynchronize(b->copy_stream);
        while (b->keys != NULL)
            key_free(b, b->keys);
        czk__gpu_free(b->g, b->arena, b->arena_bytes);
        for (int i = 0; i < STREAM_SLOTS; i++) {
            if (b->ready[i] != NULL)
                (void)cudaEventDestroy(b->ready[i]);
            if (b->freed[i] != NULL)
                (void)cudaEventDestroy(b->freed[i]);
        }
        if (b->copy_stream != NULL)
            (void)cudaStreamDestroy(b->copy_stream);
        czk_gpu_destroy(b->g);
    }
    for (int i = 0; i < PINNED_SLOTS; i++)
        if (b->pinned[i].p != NULL)
            (void)cudaFreeHost(b->pinned[i].p);
    pthread_mutex_destroy(&b->pin_mu);
    czk_free(b);
}

extern "C" void czk_gpu_backend_plan(const czk_backend *be, czk_gpu_plan *plan) {
    const czk__gpu_backend *b = (const czk__gpu_backend *)be->ctx;
    *plan = b->plan;
    /* The arena as it is: a resident circuit's proofs may have resized it (resident.cu). */
    plan->arena_bytes = b->arena_bytes;
}

extern "C" czk_gpu *czk_gpu_backend_context(const czk_backend *be) {
    return ((const czk__gpu_backend *)be->ctx)->g;
}
