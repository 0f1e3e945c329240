/*
 * Private to src/gpu/cuda: the CUDA prover backend's state, shared by backend_table.cu (the
 * step-by-step entries, pinned memory, resident keys), resident.cu and streamed.cu (whole
 * proofs from the witness, key and circuit resident or streamed) and stream_msm.cu (a
 * streamed proof's MSM schedule).
 */
#ifndef CZK_GPU_CUDA_PROVER_CUH
#define CZK_GPU_CUDA_PROVER_CUH

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "groth16/backend.h"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/status.h"

/* Domains below this run the quotient on the CPU. */
#define H_MIN_LG 10

/* Pinned host buffers kept for reuse: a proof takes at most five (prove.c), and the engine
 * stages each synthesized witness in one until its partition is proved. */
#define PINNED_SLOTS 32
/* Point arrays per key: A, B_G1, B_G2, L, H, at index czk_key_array − 1 (groth16/backend.h). */
#define KEY_ARRAYS 5

struct pinned_buf {
    void *p; /* cudaHostAlloc'ed, or NULL for an empty slot */
    size_t bytes;
    int busy; /* handed out by host_alloc and not yet given back */
};

/* Host arrays a streamed key may page-lock in place: its five point arrays and the row
 * pointers, columns and coefficients of its circuit's three matrices. */
#define REGISTERED_MAX (KEY_ARRAYS + 9)

/* The most point buffers a streamed proof's MSMs cycle through (stream_msm.cu). */
#define STREAM_SLOTS 4
/* One array of a resident key: host range [host, host + bytes) mirrored at dev. */
struct resident_range {
    const char *host;
    size_t bytes;
    char *dev;
};

/* A circuit on the device: A, B, C in CSR and, for a filtered key, which variables have an
 * A or a B point (one byte each), so that a proof needs only the witness (resident.cu). */
/* The batches of a streamed proof's MSMs in a region of `bytes` (stream_msm.cu): G1
 * batches of bs points (G2: bs/2), `slots` point buffers of `slot` bytes, the selected
 * scalars (`sel` bytes) and the MSM scratch. bs = 0: none fits. */
struct czk__gpu_stream_layout {
    size_t bs, slot, sel, scratch, bytes;
    int slots;
};

struct resident_circuit {
    const czk_r1cs *cs; /* NULL: not resident */
    uint64_t *row_ptr[3];
    uint32_t *cols[3];
    czk_fr *vals[3]; /* NULL when the matrix is coded (below) */
    /* Coded coefficients (resident.cu, coef_code): a 16-bit index per entry into the
     * matrix's table of distinct values (0 = +1, 1 = −1), 2 bytes instead of 32; ci is on
     * the device for a resident circuit, ci_host (page-locked, czk_malloc'ed) for a
     * streamed one. */
    uint16_t *ci[3], *ci_host[3];
    czk_fr *dict[3];
    size_t dict_bytes[3];
    size_t row_bytes[3], col_bytes[3], val_bytes[3]; /* val_bytes: of vals or of ci */
    /* The rows with more than LONG_ROW entries (resident.cu: a warp each), ascending: on
     * the device and, for the streamed path's chunks, on the host (czk_malloc'ed). */
    uint32_t *long_rows[3], *long_host[3];
    size_t n_long[3];
    /* A repeated circuit's matrices kept compact (spmv.cuh): rep_h head rows, then rep_r block
     * rows whose columns map by rep_map; rep_r 0 for a circuit held whole. */
    uint64_t rep_h, rep_r;
    czk_r1cs_rep_map rep_map;
    uint8_t *take_a, *take_b; /* NULL for a dense key (every variable has its points) */
    size_t take_bytes;
    size_t bytes;           /* device bytes of all of the above */
    size_t arena_bytes;     /* the arena a whole proof needs (resident.cu's layout) */
    size_t cap;             /* the most points one MSM batch of such a proof takes */
    czk_fr omega, omega_2n; /* the h step's roots (the CPU domain's, for the key's basis) */

    /* Streamed (resident.cu, "streamed proofs"): the key's points and the matrices stay in
     * host memory, page-locked in place where that succeeded, and a proof streams them
     * through the arena; only the density bytes live on the device. */
    int streamed;
    size_t slot_bytes;               /* one of the two CSR chunk buffers of the SpMV */
    czk__gpu_stream_layout layout;   /* its MSMs' batches (stream_msm.cu) */
    size_t *wb[3];                   /* batch bounds in the witness of A, B_G1, B_G2 */
    const void *reg[REGISTERED_MAX]; /* what host_lock locked for it (resident.cu) */
    size_t reg_bytes[REGISTERED_MAX];
    int n_reg;
};

/*
 * A key attached to a backend: the handle czk_gpu_backend_attach_key hands out
 * (groth16/backend.h's opaque czk_backend_key), which the prover passes back with every MSM
 * and whole proof of that key, so that the backend finds the device copies through it
 * instead of by the host addresses. One is allocated per attach and linked into its
 * backend's list (for the budget and for destroy) until detach frees it.
 */
struct czk__gpu_backend;
struct czk_backend_key {
    const czk__gpu_backend *owner; /* the backend that attached it */
    czk_backend_key *next;         /* the owner's list */
    const czk_groth16_pk *pk;
    resident_range r[KEY_ARRAYS]; /* dev NULL: that array is read from the host */
    size_t bytes;                 /* device bytes of the five arrays */
    resident_circuit circ;
};
typedef czk_backend_key resident_key;

struct czk__gpu_backend {
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

    resident_key *keys;    /* attached keys, linked by next */
    size_t resident_bytes; /* keys and circuits */
    size_t arena_min;      /* the arena is never smaller (resident circuits' proofs) */

    /* Streamed proofs: host bytes page-locked in place (at most register_limit), and a
     * second stream that copies the next chunk while the context's stream computes. */
    size_t register_limit, registered;
    int stream_keys; /* CZK_GPU_PLAN_STREAM_KEYS: never place a key's points on the device */
    cudaStream_t copy_stream;
    cudaEvent_t ready[STREAM_SLOTS], freed[STREAM_SLOTS];

    /* The last h step's output is still at the start of the arena, as the host array
     * h_host of h_n elements holds it: an MSM over those scalars (the prover's H MSM comes
     * next) reads them there. Cleared by any other use of the arena. */
    const czk_fr *h_host;
    size_t h_n;
};

/* What a device MSM driver needs to know of a group (backend_table.cu, resident.cu). */
struct czk__gpu_group_g1 {
    typedef czk_g1_affine affine;
    typedef czk_g1_jacobian jacobian;
    static constexpr int id = 1;
    static void set_infinity(jacobian *p) {
        czk_g1_jacobian_set_infinity(p);
    }
    static void add(jacobian *r, const jacobian *a, const jacobian *b) {
        czk_g1_jacobian_add_var(r, a, b);
    }
    static int run(czk_gpu *g, jacobian *out, const void *pts, const void *sc, size_t n,
                   void *scratch, size_t bytes, czk_err *err) {
        return czk__gpu_msm_g1_run(g, out, pts, sc, n, scratch, bytes, err);
    }
};

struct czk__gpu_group_g2 {
    typedef czk_g2_affine affine;
    typedef czk_g2_jacobian jacobian;
    static constexpr int id = 2;
    static void set_infinity(jacobian *p) {
        czk_g2_jacobian_set_infinity(p);
    }
    static void add(jacobian *r, const jacobian *a, const jacobian *b) {
        czk_g2_jacobian_add_var(r, a, b);
    }
    static int run(czk_gpu *g, jacobian *out, const void *pts, const void *sc, size_t n,
                   void *scratch, size_t bytes, czk_err *err) {
        return czk__gpu_msm_g2_run(g, out, pts, sc, n, scratch, bytes, err);
    }
};

/* Makes the arena hold a plan for h at 2^lg and MSMs of `points` (and all planned before),
 * and at least b->arena_min bytes. */
int czk__gpu_ensure_plan(czk__gpu_backend *b, unsigned lg, size_t points, czk_err *err);

/*
 * h on the device, one vector at a time, so that a caller with room for two vectors can
 * produce them in turn (streamed.cu). All three steps work on 2^lg elements (lg >= H_MIN_LG):
 *   i = 0: v holds a and becomes A at the coset (acc must be v);
 *   i = 1: v holds b; acc (A at the coset) becomes A·B there; v becomes scratch;
 *   i = 2: v holds c; acc becomes h in the form `basis` asks for (groth16/backend.h); v
 *          becomes scratch.
 * The monomial basis evaluates at the coset g·ω^i (g = 7). There A·B − C = h·Z with
 * Z = x^n − 1, and interpolating at the coset reduces modulo x^n − g^n, where Z is the
 * constant g^n − 1 and C (degree < n) is its own remainder: the coset inverse of A·B is
 * h·(g^n − 1) + C whatever a, b and c are. So c needs only its inverse transform, not the
 * coset pair (six transforms instead of seven), and h = (g^n − 1)^(−1)·(that − C), the
 * factor and the subtraction fused into the last transform's stores. The odd coset (shift
 * ω_2n) wants A·B − C there, so c takes the same pair as a and b. omega, omega_2n: the CPU
 * domain's roots. Each transform waits for the stream.
 */
int czk__gpu_h_step(czk_gpu *g, unsigned lg, czk_groth16_h_basis basis, const czk_fr *omega,
                    const czk_fr *omega_2n, int i, void *v, void *acc, czk_err *err);

/* h from a, b, c already in dv[0..2] (czk__gpu_h_step's three steps): h in dv[0]. */
int czk__gpu_h_device(czk__gpu_backend *b, unsigned lg, czk_groth16_h_basis basis,
                      const czk_fr *omega, const czk_fr *omega_2n, void *const dv[3], czk_err *err);

/* The backend's prove_sums entry (resident.cu). */
int czk__gpu_prove_sums(void *ctx, const czk_backend_key *key, const czk_groth16_pk *pk,
                        const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                        czk_backend_sums *out, czk_groth16_timings *tm, czk_pool *pool,
                        czk_err *err);

/* Places cs on the device beside its resident key k, when it fits the budget. Out:
 * *placed. Returns CZK_OK, or an error (nothing of cs kept then). */
int czk__gpu_circuit_attach(czk__gpu_backend *b, resident_key *k, const czk_r1cs *cs, int *placed,
                            czk_err *err);

/* czk__gpu_circuit_attach for copies of a block (czk_gpu_backend_attach_key_rep): the same
 * device arrays as for the expanded system, expanded on the device; dims: its sizes, kept
 * as the circuit's cs. */
int czk__gpu_circuit_attach_rep(czk__gpu_backend *b, resident_key *k, const czk_r1cs_rep *rep,
                                const czk_r1cs *dims, int *placed, czk_err *err);

/* Attaches pk (in k, a new key already in b's list) with cs for streamed proofs, when the
 * arena such a proof needs fits the budget (nothing of pk goes to the device). Out: *placed;
 * when it is 0, k holds nothing and k->pk is NULL. */
int czk__gpu_stream_attach(czk__gpu_backend *b, resident_key *k, const czk_groth16_pk *pk,
                           const czk_r1cs *cs, int *placed, czk_err *err);

/* One MSM of a streamed proof: n host points (G1 or G2), device scalars sc; or, when take
 * (device density bytes) is not NULL, the scalars are selected from the witness sc, batch j
 * from its range [wb[j], wb[j + 1]). heavy: dense scalars, compute-bound (the H MSM). The
 * sum goes to out (a czk_g1_jacobian or czk_g2_jacobian), its batches' time to *ns. */
struct czk__gpu_stream_msm {
    int group;
    const void *pts;
    size_t n;
    const char *sc;
    const uint8_t *take;
    const size_t *wb;
    int heavy;
    void *out;
    uint64_t *ns;
};

/* The scratch MSMs of these sizes need when they run in batches of at most bs points (a
 * full batch and each remainder: an MSM's scratch is not monotonic in its size, its window
 * and chunk length step with it). */
int czk__gpu_batch_scratch(czk_gpu *g, int group, const size_t *sizes, int count, size_t bs,
                           size_t *need, czk_err *err);

/* The layout for these MSMs (only group, n and take are read) in `region` bytes; selections
 * range over at most n_vars witness values. out->bs = 0 when nothing fits. */
int czk__gpu_stream_plan(czk_gpu *g, const czk__gpu_stream_msm *msms, int count, size_t n_vars,
                         size_t region, czk__gpu_stream_layout *out, czk_err *err);

/* *wb (czk_malloc'ed, *batches + 1 entries): where in the witness each batch of bs of the n
 * variables whose take byte is set starts, and n_vars at the end. */
int czk__gpu_stream_bounds(const uint8_t *take, size_t n_vars, size_t n, size_t bs, size_t **wb,
                           size_t *batches, czk_err *err);

/* Runs the MSMs through `region` as l lays it out (see stream_msm.cu); d_count: one device
 * int outside the region, for the selections' counts. */
int czk__gpu_stream_msms(czk__gpu_backend *b, const czk__gpu_stream_msm *msms, int count,
                         const czk__gpu_stream_layout *l, char *region, int *d_count, czk_err *err);

/* Frees k's resident circuit, if any. */
void czk__gpu_circuit_free(czk__gpu_backend *b, resident_key *k);

#endif /* CZK_GPU_CUDA_PROVER_CUH */
