/*
 * The CUDA backend, as plain C: the only header of src/gpu that the rest of czk sees.
 *
 * A czk_gpu is a context on one device: a CUDA stream, two timing events, a cache of twiddle
 * tables and a counter of the device bytes it holds. Every entry below runs its kernels on
 * that stream and returns after the stream has drained, so results are ready and any kernel
 * fault is reported by the call that caused it. A context is used by one thread at a time
 * (the engine's worker for that device); distinct contexts, on one device or several, may
 * be used concurrently.
 *
 * Buffers may live on the host or on the device (czk_gpu_mem says which). Host buffers are
 * copied to a device buffer allocated for the call and freed before it returns; device
 * buffers come from czk_gpu_alloc and are transformed in place. Elements use the CPU's
 * layouts bit for bit: czk_fr, czk_fp and czk_fp2 in Montgomery form, czk_g1_affine and
 * czk_g2_affine with (0, 0) for infinity.
 *
 * Errors: CZK_ECUDA with CUDA's message in `err` for any CUDA failure (including "no
 * device"), CZK_EINVAL for bad arguments, CZK_ENOMEM when device memory runs out. Nothing
 * here aborts or prints. All transforms and MSMs are variable time (_var): their run time
 * and memory traffic depend on the values (MSM bucket choice leaks scalar bits), which is
 * acceptable for the witness-derived, non-secret-key inputs of a Groth16 proof.
 */
#ifndef CZK_GPU_BACKEND_H
#define CZK_GPU_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/device.h"
#include "groth16/backend.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* czk_gpu_device_count (CUDA devices present) is in gpu/device.h. */

/* Opaque device context. */
typedef struct czk_gpu czk_gpu;

/*
 * Creates a context on device `device` (0-based). Out: *out, owned by the caller
 * (czk_gpu_destroy). Returns CZK_OK, CZK_EINVAL or CZK_ECUDA (*out is then NULL).
 */
int czk_gpu_create(czk_gpu **out, int device, czk_err *err);

/* Frees the context and everything it caches; NULL is a no-op. */
void czk_gpu_destroy(czk_gpu *g);

/*
 * Writes a one-line description of the device ("NVIDIA H200, 132 SMs, cc 9.0, 139.8 GiB")
 * into buf (always NUL-terminated when len > 0).
 */
void czk_gpu_describe(const czk_gpu *g, char *buf, size_t len);

/* Device bytes the context holds now (buffers, caches) and the peak since creation. */
size_t czk_gpu_mem_in_use(const czk_gpu *g);
size_t czk_gpu_mem_peak(const czk_gpu *g);

/* Free and total device memory as the driver reports them (cudaMemGetInfo). */
int czk_gpu_mem_info(czk_gpu *g, size_t *free_bytes, size_t *total_bytes, czk_err *err);

/* ---- device buffers -------------------------------------------------------------------- */

/*
 * Allocates `bytes` of device memory (cudaMalloc), counted in the context. Out: *dptr, freed
 * with czk_gpu_free. Returns CZK_OK, CZK_EINVAL (bytes = 0), CZK_ENOMEM or CZK_ECUDA.
 */
int czk_gpu_alloc(czk_gpu *g, void **dptr, size_t bytes, czk_err *err);

/* Frees a czk_gpu_alloc buffer of `bytes` bytes; NULL is a no-op. */
void czk_gpu_free(czk_gpu *g, void *dptr, size_t bytes);

/* Synchronous copies between host memory and a device buffer. */
int czk_gpu_upload(czk_gpu *g, void *dst_dev, const void *src_host, size_t bytes, czk_err *err);
int czk_gpu_download(czk_gpu *g, void *dst_host, const void *src_dev, size_t bytes, czk_err *err);

/* Where a buffer argument lives. */
typedef enum czk_gpu_mem {
    CZK_GPU_MEM_HOST = 0,   /* ordinary (pageable or pinned) host memory */
    CZK_GPU_MEM_DEVICE = 1, /* a czk_gpu_alloc buffer of the same context */
} czk_gpu_mem;

/* ---- NTT ------------------------------------------------------------------------------- */

typedef enum czk_gpu_ntt_kind {
    CZK_GPU_NTT_FORWARD = 0,       /* a[i] <- Σ_j a[j]·ω^(ij) */
    CZK_GPU_NTT_INVERSE = 1,       /* the inverse of FORWARD, 1/n included */
    CZK_GPU_NTT_COSET_FORWARD = 2, /* coefficients -> values at g·ω^i */
    CZK_GPU_NTT_COSET_INVERSE = 3, /* values at g·ω^i -> coefficients */
} czk_gpu_ntt_kind;

/* Smallest and largest lg n the transforms take. */
#define CZK_GPU_NTT_MIN_LG 1
#define CZK_GPU_NTT_MAX_LG 28

/*
 * Transforms the n = 2^lg elements of `a` in place, natural order in and out.
 * In: omega, a primitive n-th root of unity (czk_ntt_domain_omega of the CPU domain, so GPU
 * and CPU agree); shift, the coset shift g (non-zero; only read by the COSET kinds, may be
 * NULL otherwise). `a` is a host array or a device buffer as `where` says.
 * Returns CZK_OK, CZK_EINVAL (lg outside [CZK_GPU_NTT_MIN_LG, CZK_GPU_NTT_MAX_LG], a NULL
 * pointer, unknown kind) or CZK_ECUDA/CZK_ENOMEM. Variable time (see the top of this file).
 * Memory: a host array costs a device buffer of 32·n bytes for the call.
 */
int czk_gpu_ntt_var(czk_gpu *g, czk_fr *a, czk_gpu_mem where, unsigned lg, czk_gpu_ntt_kind kind,
                    const czk_fr *omega, const czk_fr *shift, czk_err *err);

/* ---- MSM ------------------------------------------------------------------------------- */

/*
 * out = Σ_{i<n} sc[i]·pts[i]. In: pts, n affine points (Montgomery, (0, 0) = infinity), and
 * sc, n Montgomery scalars, both host arrays or both device buffers as `where` says.
 * n = 0 gives infinity. Points must be on the curve (in G1 for the result to be meaningful).
 * Scalars equal to 0 or 1 are split off on the device: zeros cost nothing, ones one mixed
 * addition each, and only the rest go through Pippenger (witness vectors are mostly 0 and 1).
 * Returns CZK_OK, CZK_EINVAL, CZK_ENOMEM or CZK_ECUDA. Variable time.
 * Memory: device scratch of about czk_gpu_msm_g1_scratch_bytes(n) bytes for the call (plus
 * the inputs' 128·n bytes when they are on the host).
 */
int czk_gpu_msm_g1_var(czk_gpu *g, czk_g1_jacobian *out, const czk_g1_affine *pts, const czk_fr *sc,
                       size_t n, czk_gpu_mem where, czk_err *err);

/*
 * Device scratch bytes czk_gpu_msm_g1_var allocates for n points (inputs not included): an
 * upper bound, for scalars none of which is 0 or 1.
 */
size_t czk_gpu_msm_g1_scratch_bytes(size_t n);

/*
 * As czk_gpu_msm_g1_var in G2: pts are n affine points of the twist (czk_g2_affine, each
 * coordinate c0 then c1 in Montgomery form, (0, 0) = infinity), in G2 for the result to be
 * meaningful. Memory: about czk_gpu_msm_g2_scratch_bytes(n) bytes of device scratch (plus
 * the inputs' 224·n bytes when they are on the host).
 */
int czk_gpu_msm_g2_var(czk_gpu *g, czk_g2_jacobian *out, const czk_g2_affine *pts, const czk_fr *sc,
                       size_t n, czk_gpu_mem where, czk_err *err);

/* Device scratch bytes czk_gpu_msm_g2_var allocates for n points (an upper bound, as G1). */
size_t czk_gpu_msm_g2_scratch_bytes(size_t n);

/* ---- timing ---------------------------------------------------------------------------- */

/*
 * Records a CUDA event on the context's stream; czk_gpu_timer_stop records a second one,
 * waits for it and returns the milliseconds of GPU time between the two in *ms. For
 * benchmarks: brackets calls whose inputs are already on the device.
 */
int czk_gpu_timer_start(czk_gpu *g, czk_err *err);
int czk_gpu_timer_stop(czk_gpu *g, double *ms, czk_err *err);

/* ---- device-memory plans ------------------------------------------------------------------ */

/* How a prover backend sizes its device memory. All zero (or a NULL pointer) = defaults. */
typedef struct czk_gpu_plan_opts {
    /* The most device bytes the backend may hold: 0 = what cudaMemGetInfo reports free at
     * creation; otherwise the smaller of the two (16ull << 30 behaves like a 16 GB card). */
    size_t vram_limit_bytes;
    /* > 0: size the arena at creation for the h step of domains up to 2^max_lg and MSMs of
     * up to max(2^max_lg, max_points) points, so that no call grows it. 0: the arena is
     * allocated by the first call and grown when a later call needs more. */
    unsigned max_lg;
    size_t max_points;
    /* The most page-locked host bytes the backend keeps for the prover's arrays
     * (host_alloc): 0 = a quarter of the host's physical memory. */
    size_t pinned_limit_bytes;
    /* The most host bytes of keys and circuits the backend page-locks in place
     * (cudaHostRegister) when they are streamed, so that they cross the bus at full speed:
     * 0 = half of the host's physical memory; CZK_GPU_REGISTER_NONE = none (they then
     * stream from pageable memory, several times slower). They are already in host memory:
     * locking them takes no more of it. */
    size_t register_limit_bytes;
    /* Device bytes of the free memory at creation left to another backend on the same device
     * (the engine's priority lane): the budget is planned from what remains. */
    size_t vram_reserve_bytes;
    /* CZK_GPU_PLAN_* bits. */
    unsigned flags;
} czk_gpu_plan_opts;

#define CZK_GPU_REGISTER_NONE ((size_t)-1)
/* Never place a key's points on the device: attach keys for streamed proofs only (to leave
 * the device's memory to other work; tests use it to reach the streamed path). */
#define CZK_GPU_PLAN_STREAM_KEYS 1u
/* Run on a stream of the device's greatest priority: the GPU's block scheduler then starts
 * this backend's blocks before those of other streams that wait for an SM, so its proofs run
 * beside a long kernel region of another backend instead of after it (the priority lane). */
#define CZK_GPU_PLAN_PRIORITY_STREAM 2u

/*
 * A device-memory plan (doc/DESIGN.md §3): the working sets of the h step and of the largest
 * MSM, and how that MSM is cut into point batches so that it fits the budget. Every buffer
 * of a call is carved from one arena of arena_bytes; only the power tables live outside it.
 */
typedef struct czk_gpu_plan {
    size_t budget_bytes;      /* device bytes the plan may use, tables included */
    unsigned lg;              /* the h step's domain is 2^lg (0: no h planned) */
    size_t h_bytes;           /* a, b and c on the device: 3·32·2^lg */
    size_t msm_points;        /* the largest MSM planned (0: none) */
    size_t msm_batch;         /* points per batch (msm_points when it fits in one) */
    size_t msm_batches;       /* ceil(msm_points / msm_batch) */
    size_t msm_points_bytes;  /* one batch of affine points, streamed from the host */
    size_t msm_scalars_bytes; /* one batch of scalars */
    size_t msm_scratch_bytes; /* 0/1 split, digits, sort, buckets, partial and window sums */
    size_t tables_bytes;      /* twiddle and power tables (cached per context) */
    size_t arena_bytes;       /* max(h_bytes, points + scalars + scratch) */
} czk_gpu_plan;

/*
 * Plans h on a domain of 2^lg (lg = 0: none) and MSMs of up to max_points points within
 * budget_bytes on g's device. Out: *plan. Returns CZK_OK; CZK_ENOMEM with a message naming
 * the step and the bytes when even the smallest plan (h needs its 3 vectors; an MSM at
 * least 2^10 points a batch) exceeds the budget; CZK_EINVAL or CZK_ECUDA. Launches nothing.
 */
int czk_gpu_plan_make(czk_gpu *g, czk_gpu_plan *plan, size_t budget_bytes, unsigned lg,
                      size_t max_points, czk_err *err);

/* One line, bytes per buffer, into buf (always NUL-terminated when len > 0). */
void czk_gpu_plan_describe(const czk_gpu_plan *plan, char *buf, size_t len);

/* ---- the prover backend (groth16/backend.h) ----------------------------------------------- */

/*
 * Creates a czk_backend ("cuda:N") whose h, msm_g1 and msm_g2 run on device `device`, and
 * whose prove_sums runs a whole proof there when the key and circuit are attached
 * (czk_gpu_backend_attach_key; the prover hands the key's handle to every entry). The
 * device MSM splits off witness values equal to 0 and 1 itself (czk_gpu_msm_g1_var), so
 * the prover hands it raw scalars.
 *
 * Memory: one device arena, sized by czk_gpu_plan_make from opts (NULL: defaults) and the
 * device's free memory at creation; it is reserved before a call launches anything, grown
 * (freed and allocated again, a device-wide synchronisation) only when a call needs a larger
 * plan, and never otherwise. Keys may be kept resident beside it
 * (czk_gpu_backend_attach_key). The prover's large host arrays come from the backend's
 * pinned buffers (host_alloc: allocated once, reused by later proofs, at most
 * opts->pinned_limit_bytes), so copies run at bus speed; other host inputs are copied from
 * pageable memory. MSM points that are neither resident nor fit stream from the host in
 * batches whose partial sums are added.
 * A step that cannot fit even the smallest plan fails with CZK_ENOMEM before launching.
 *
 * Threads: the entries of one backend must be called from one thread at a time (they share
 * the arena and the context's stream); distinct backends may run concurrently.
 * Out: *out, owned by the caller (czk_gpu_backend_destroy). Returns CZK_OK, CZK_EINVAL,
 * CZK_ENOMEM or CZK_ECUDA (no device, or the device failed); *out is then NULL.
 */
int czk_gpu_backend_create(czk_backend **out, int device, const czk_gpu_plan_opts *opts,
                           czk_err *err);

/* Frees the backend, its arena, attached keys (their handles are invalid afterwards), pinned
 * buffers and context; NULL: no-op. */
void czk_gpu_backend_destroy(czk_backend *be);

/*
 * Keeps pk's point arrays (A, B_G1, B_G2, L, H) in device memory, so that the MSMs of every
 * later proof with pk read them there instead of copying them from the host; with cs (may
 * be NULL), also cs's matrices and pk's density, so that a proof of cs with pk sends only
 * the witness to the device and runs every heavy step there (the backend's prove_sums:
 * SpMV, h, MSMs). The arena is first sized for pk's proofs (h at pk's domain, MSMs of its
 * largest array); the points are placed only if they fit in what the budget leaves beside
 * that and the keys already attached, and the circuit only if it fits beside those with the
 * arena a whole proof needs.
 *
 * Out: *key, the handle of what was kept (groth16/backend.h's czk_backend_key), to pass to
 * czk_groth16_prove_ex with this backend, which hands it to the MSMs (with the array each
 * reads) and to prove_sums: the backend finds its copies through it, never by address.
 * *key is NULL when nothing was kept (*resident = 0). *resident = 2 when pk's points and cs
 * are on the device now, 1 for the points only, 3 when they do not fit but a whole proof of
 * cs can stream them (the key's points and the matrices stay on the host, page-locked in
 * place within register_limit_bytes, and flow through the arena in chunks while the device
 * computes: only the witness and the density bytes are sent whole), 0 otherwise (its MSMs
 * then stream the points from the host step by step, as for any key).
 *
 * Every call makes a new attachment (attaching one key twice holds two copies); pk's and
 * cs's arrays must stay where they are, unchanged, until czk_gpu_backend_detach_key(key)
 * (the engine holds a reference meanwhile). Synchronous (one copy of each array). Returns
 * CZK_OK, CZK_EINVAL, CZK_ENOMEM or CZK_ECUDA (*key = NULL, *resident = 0, nothing kept).
 */
int czk_gpu_backend_attach_key(czk_backend *be, const czk_groth16_pk *pk, const czk_r1cs *cs,
                               czk_backend_key **key, int *resident, czk_err *err);

/*
 * czk_gpu_backend_attach_key for a circuit made of copies of one block (r1cs/rep.h): the
 * same points, and on the device the very arrays an attach of czk_r1cs_rep_expand(rep)
 * would place (row pointers, columns, coded coefficients and their table, long rows,
 * density bytes, the arena), made without the whole CSR on the host: the block's
 * coefficients are coded there (its table is the whole system's), its arrays go up, and
 * kernels write every copy straight into the resident arrays (the block's device copies
 * are freed after). dims is czk_r1cs_rep_dims(rep)'s header (sizes, matrices NULL): the
 * caller keeps it where it is and passes it as `cs` to czk_groth16_prove_ex with the key.
 *
 * Out: *key as attach_key; *resident = 2 when pk's points and the circuit are on the
 * device, 1 when the circuit did not fit beside the points (nothing of it is kept), 0 when
 * the points did not fit either (nothing kept, *key NULL). The streamed mode (3) is not
 * offered. With *resident < 2 a proof of the rep circuit cannot run on this backend: its
 * rows are nowhere on the host, and czk_groth16_prove_ex refuses it (CZK_EINVAL).
 *
 * Memory: on the host the block's codes (2 bytes a block entry), the density bitmaps and
 * bytes (about 2.25 bytes a variable) and the long-row lists (4 bytes a long row of the
 * whole system), never a whole matrix; on the device what attach_key places for the
 * expanded system plus the block's arrays during the expansion. pk, rep and dims must stay
 * where they are, unchanged, until czk_gpu_backend_detach_key(key). Synchronous. Returns
 * CZK_OK, CZK_EINVAL (a NULL argument, a rep czk_r1cs_rep_dims refuses, or dims not its
 * sizes), CZK_ENOMEM or CZK_ECUDA (*key = NULL, *resident = 0, nothing kept).
 */
int czk_gpu_backend_attach_key_rep(czk_backend *be, const czk_groth16_pk *pk,
                                   const czk_r1cs_rep *rep, const czk_r1cs *dims,
                                   czk_backend_key **key, int *resident, czk_err *err);

/* Frees what attach kept for key (waiting for the backend's streams first) and unlocks what a
 * streamed attach page-locked; key is invalid afterwards. NULL, or a key of another backend:
 * a no-op. Call it before the key's or circuit's arrays are freed or moved. */
void czk_gpu_backend_detach_key(czk_backend *be, czk_backend_key *key);

/* Device bytes the attached keys and circuits hold. */
size_t czk_gpu_backend_resident_bytes(const czk_backend *be);

/* Host bytes one backend's czk_gpu_backend_attach_key(pk, cs) may allocate for cs at most,
 * beyond pk and cs themselves: coded matrix coefficients (2 bytes an entry: kept while a
 * streamed key is attached, freed after the upload of a resident one), density bytes and
 * the lists of long rows. For a caller's host budget; one such share per backend. */
size_t czk_gpu_attach_host_bytes(const czk_r1cs *cs);

/* How key is attached, in one line for logs and benchmarks (its MSM batches and buffers when
 * streamed); "not attached" for NULL or another backend's key. */
void czk_gpu_backend_describe_key(const czk_backend *be, const czk_backend_key *key, char *buf,
                                  size_t len);

/* Pinned host bytes the backend holds (in use or kept for reuse) and its limit. */
void czk_gpu_backend_pinned(const czk_backend *be, size_t *held, size_t *limit);

/* The plan the backend's arena was last sized for, with arena_bytes the arena it holds now
 * (a resident circuit resizes it; zeroed before the first call). */
void czk_gpu_backend_plan(const czk_backend *be, czk_gpu_plan *plan);

/* The backend's device context (for czk_gpu_describe, czk_gpu_mem_peak); owned by be. */
czk_gpu *czk_gpu_backend_context(const czk_backend *be);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GPU_BACKEND_H */
