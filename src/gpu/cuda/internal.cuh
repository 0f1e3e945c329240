/*
 * Private to src/gpu/cuda: the device context behind czk_gpu and the helpers every host-side
 * .cu file shares (error checking, counted device allocation, twiddle-table cache).
 */
#ifndef CZK_GPU_CUDA_INTERNAL_CUH
#define CZK_GPU_CUDA_INTERNAL_CUH

#include <cuda_runtime.h>
#include <stddef.h>

#include "curve/g1.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "util/status.h"

/*
 * Runs a CUDA runtime call; on failure sets `rc` to CZK_ECUDA, fills `err` with the call and
 * CUDA's message, and jumps to `out`. Every function that uses it declares `int rc` and has
 * an `out:` label (one exit, doc/DESIGN.md §2).
 */
#define CZK_CUDA_TRY(err, expr)                                                                    \
    do {                                                                                           \
        cudaError_t czk__cu = (expr);                                                              \
        if (czk__cu != cudaSuccess) {                                                              \
            rc = czk_err_set((err), CZK_ECUDA, "%s: %s (%s)", #expr, cudaGetErrorString(czk__cu),  \
                             cudaGetErrorName(czk__cu));                                           \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* As CZK_CUDA_TRY for czk status codes. */
#define CZK_TRY(expr)                                                                              \
    do {                                                                                           \
        rc = (expr);                                                                               \
        if (rc != CZK_OK)                                                                          \
            goto out;                                                                              \
    } while (0)

/*
 * Entries of one power table: two levels of 2^14 (1 MiB a table), so that a power below 2^28
 * (CZK_GPU_NTT_MAX_LG) costs one multiplication of two entries (see ntt.cuh).
 */
#define CZK__GPU_POW_LEVEL 16384
#define CZK__GPU_POW_ENTRIES (2 * CZK__GPU_POW_LEVEL)
#define CZK__GPU_POW_CACHE 16
/* Flat tables: c·base^j for j < 2^18 in one level (8 MiB a table), so that a power below
 * 2^18 costs no multiplication: the twists of an NTT's later passes (ntt.cu). */
#define CZK__GPU_FLAT_LG 18
#define CZK__GPU_FLAT_ENTRIES ((size_t)1 << CZK__GPU_FLAT_LG)
#define CZK__GPU_FLAT_CACHE 4

typedef struct czk__gpu_pow_entry {
    czk_fr base, c;
    void *dev;         /* CZK__GPU_POW_ENTRIES Fr elements on the device, or NULL when unused */
    uint64_t last_use; /* g->pow_clock at the last lookup that returned this entry */
} czk__gpu_pow_entry;

struct czk_gpu {
    int device;
    cudaStream_t stream;
    cudaEvent_t ev_begin, ev_end;
    int sm_count;
    size_t mem_in_use, mem_peak; /* bytes from czk__gpu_malloc */
    czk__gpu_pow_entry pow_cache[CZK__GPU_POW_CACHE];
    czk__gpu_pow_entry flat_cache[CZK__GPU_FLAT_CACHE];
    uint64_t pow_clock; /* least-recently-used replacement (both caches) */
    /* Giving way to the device's priority lane (czk__gpu_yield): 1 for a lane's own context
     * (czk__gpu_stream_prioritize), which never waits; the throttle's two events, recorded
     * at alternate yield points, and their count; a second stream and two events for the
     * accumulation's pieces (created on first use, with the events). */
    int priority;
    cudaEvent_t ev_yield[2];
    unsigned yields;
    cudaStream_t aux;
    cudaEvent_t ev_fork, ev_join;
};

/* cudaMalloc on g's device, counted in g->mem_in_use. *p is NULL on failure. */
int czk__gpu_malloc(czk_gpu *g, void **p, size_t bytes, czk_err *err);
/* Frees what czk__gpu_malloc returned (NULL is a no-op) and uncounts `bytes`. */
void czk__gpu_free(czk_gpu *g, void *p, size_t bytes);

/*
 * A device table of c·base^j and base^(2^14·j) (j < 2^14), so that c·base^e for any
 * e < 2^28 is at most two entries multiplied. Cached in g; the pointer
 * stays valid until the context is destroyed or CZK__GPU_POW_CACHE other tables are asked
 * for. Synchronous.
 */
int czk__gpu_pow_table(czk_gpu *g, const void **table, const czk_fr *base, const czk_fr *c,
                       czk_err *err);

/* As czk__gpu_pow_table, a flat table (CZK__GPU_FLAT_LG above), from its own cache of
 * CZK__GPU_FLAT_CACHE entries. */
int czk__gpu_pow_table_flat(czk_gpu *g, const void **table, const czk_fr *base, const czk_fr *c,
                            czk_err *err);

/* Whether a transform of 2^lg elements reads flat tables (ntt.cu: a later pass's twists
 * with 2^14 < N <= 2^18). */
bool czk__gpu_ntt_flat_tables(unsigned lg);

/*
 * A transform of 2^lg elements in device memory d with its pointwise neighbours fused in
 * (ntt.cu, ntt.cuh's epilogue): forward, or inverse with 1/n included; the outputs times
 * c·post_base^i (either NULL: 1), then out[i] = x·mul[i] + add[i] (mul, add NULL: none; out
 * NULL: in place; they may be one array). Waits for the stream.
 */
int czk__gpu_ntt_fused(czk_gpu *g, void *d, unsigned lg, bool inverse, const czk_fr *omega,
                       const czk_fr *post_base, const czk_fr *post_c, const void *mul,
                       const void *add, void *out, czk_err *err);

/* Replaces g's stream (idle: called right after czk_gpu_create) by one of the device's
 * greatest priority (CZK_GPU_PLAN_PRIORITY_STREAM). */
int czk__gpu_stream_prioritize(czk_gpu *g, czk_err *err);

/*
 * Giving way to the priority lane (doc/DESIGN.md §4, "Priority lanes"). A C2 region keeps the
 * device busy for over a second, in launches whose blocks run for milliseconds each; the lane's
 * stream of greatest priority gets an SM only as one of those blocks ends, so each of a small
 * proof's ~60 launches waited behind them (a WinningPoSt's 50 ms of kernels took 290-610 ms beside
 * C2, BENCHMARKS.md run 96). So, while a lane context exists on the device:
 *  - a lane marks its proof as urgent (czk__gpu_urgent_begin/_end), device-wide;
 *  - every other context calls czk__gpu_yield between its steps: it keeps at most two steps
 *    queued (it waits for the step before the last one), and while the device has urgent
 *    work it lets its queue drain and waits until the lane is done, so the lane runs on an
 *    idle device;
 *  - long launches are cut into pieces with a yield point between them (the MSM's bucket
 *    accumulation in msm_acc_launch: ~235 ms a launch at 2^27).
 * Without a lane on the device, czk__gpu_yield returns at once and nothing is cut: the
 * kernels and their order are those of a device alone.
 */
void czk__gpu_urgent_begin(czk_gpu *g);
void czk__gpu_urgent_end(czk_gpu *g);
/* A yield point of g's stream (no-op for a lane's context or without a lane on the device).
 * CZK_ECUDA when waiting fails. */
int czk__gpu_yield(czk_gpu *g, czk_err *err);
/* As czk__gpu_yield for a step queued on s (g->stream or g->aux). */
int czk__gpu_yield_on(czk_gpu *g, cudaStream_t s, czk_err *err);
/* Whether g gives way to a lane (cut long launches into pieces): a lane is open on the device
 * and g is not one. */
bool czk__gpu_gives_way(const czk_gpu *g);
/* The second stream and events for pieces, created on first use. After it, g->aux waits for
 * everything queued on g->stream so far (the fork). */
int czk__gpu_fork(czk_gpu *g, czk_err *err);
/* g->stream waits for everything queued on g->aux (the join). */
int czk__gpu_join(czk_gpu *g, czk_err *err);

/* Makes g's device current for the calling thread. */
int czk__gpu_enter(czk_gpu *g, czk_err *err);

/* ---- MSM internals (msm/msm.cu, msm_g1.cu, msm_g2.cu), for the prover backend's planner --- */

/*
 * CZK_OK when one MSM call can take n points (n < 2^31 and W·n sort entries < 2^31, W the
 * windows of the worst case: every scalar neither 0 nor 1). The same bound for both groups.
 */
int czk__gpu_msm_g1_check_n(size_t n, czk_err *err);
int czk__gpu_msm_g2_check_n(size_t n, czk_err *err);

/*
 * Exact device scratch bytes of czk__gpu_msm_g1_run / _g2_run for n points (inputs not
 * included), for the worst case (no scalar 0 or 1), so an upper bound for any scalars; asks
 * CUB for its sort and select storage on g's device (host-side, launches nothing).
 */
int czk__gpu_msm_g1_scratch(czk_gpu *g, size_t n, size_t *bytes, czk_err *err);
int czk__gpu_msm_g2_scratch(czk_gpu *g, size_t n, size_t *bytes, czk_err *err);

/*
 * out = Σ sc[i]·pts[i] for n points and scalars already on the device, with every
 * temporary carved from `scratch` (scratch_bytes >= czk__gpu_msm_g1_scratch(n), resp.
 * _g2_scratch): allocates nothing. Scalars 0 and 1 are split off on the device (the ones
 * summed directly), the rest go through Pippenger; one small read-back of their number.
 * Synchronous on g's stream.
 */
int czk__gpu_msm_g1_run(czk_gpu *g, czk_g1_jacobian *out, const void *pts_dev, const void *sc_dev,
                        size_t n, void *scratch, size_t scratch_bytes, czk_err *err);
int czk__gpu_msm_g2_run(czk_gpu *g, czk_g2_jacobian *out, const void *pts_dev, const void *sc_dev,
                        size_t n, void *scratch, size_t scratch_bytes, czk_err *err);

/* Per-step GPU times of one MSM call (CUDA events), for benchmarks (czk__gpu_msm_opts). */
typedef struct czk__gpu_msm_profile {
    unsigned group;           /* 1 or 2 */
    unsigned c;               /* window bits of the Pippenger part (0: none ran) */
    unsigned groups;          /* window groups of its steps 1-4 (digits, sort: the first's) */
    size_t n, n_one, n_other; /* points; scalars equal to 1; neither 0 nor 1 */
    float split_ms;           /* classify, two compactions, the count read-back */
    float ones_ms;            /* sum of the points whose scalar is 1 */
    float digits_ms, sort_ms; /* Pippenger steps 1 and 2 */
    float acc_ms;             /* bucket accumulation (steps 3-4) */
    float windows_ms;         /* window sums (step 5) */
    float total_ms;           /* all of the above (the host's Horner step excluded) */
} czk__gpu_msm_profile;

/*
 * What a benchmark or a test varies in one MSM call, passed to it explicitly (nothing is kept
 * between calls, nothing read from the environment). Zeros, or no options at all (NULL), are
 * what the prover runs: the window from msm.cu's cost model, the ones' batch-affine levels
 * from 2^21 points up (msm_host.cuh, MSM_TREE_MIN_LG), no events.
 */
typedef struct czk__gpu_msm_opts {
    unsigned c; /* window bits, 8..22 (bench_gpu_msm's window sweep); 0: the cost model's */
    /* The ones' batch-affine levels run while 2^ones_levels_lg points or more are left,
     * 10..31, or 32 for none: the tests check both ways of summing them at small sizes. */
    unsigned ones_levels_lg;
    czk__gpu_msm_profile *profile; /* not NULL: this call's step times, by CUDA events */
    /* Blocks a piece of the bucket accumulation when the context gives way to a lane
     * (msm_acc_launch); 0: the prover's, several waves of the device. The tests cut MSMs far
     * below 2^27 into pieces with it. */
    unsigned piece_blocks;
} czk__gpu_msm_opts;

/*
 * czk__gpu_msm_g1_scratch / _run and the G2 ones with options (NULL: the same as without).
 * A window in opts changes the scratch: ask for it with the same opts. CZK_EINVAL for
 * values outside the ranges above.
 */
int czk__gpu_msm_g1_scratch_opts(czk_gpu *g, size_t n, const czk__gpu_msm_opts *opts, size_t *bytes,
                                 czk_err *err);
int czk__gpu_msm_g2_scratch_opts(czk_gpu *g, size_t n, const czk__gpu_msm_opts *opts, size_t *bytes,
                                 czk_err *err);
int czk__gpu_msm_g1_run_opts(czk_gpu *g, czk_g1_jacobian *out, const void *pts_dev,
                             const void *sc_dev, size_t n, void *scratch, size_t scratch_bytes,
                             const czk__gpu_msm_opts *opts, czk_err *err);
int czk__gpu_msm_g2_run_opts(czk_gpu *g, czk_g2_jacobian *out, const void *pts_dev,
                             const void *sc_dev, size_t n, void *scratch, size_t scratch_bytes,
                             const czk__gpu_msm_opts *opts, czk_err *err);

/*
 * Device bytes the driver may reserve for the MSM kernels' local memory: it sizes that per
 * resident thread (the largest kernel's local bytes times the device's resident threads),
 * outside any allocation of ours, so the planner's budget must leave it out. Every MSM kernel
 * of both groups counts: ~305 MiB
 * on an H200, set by G2's window sums (1,184 bytes a thread of stack: two Fp2 XYZZ points and
 * the addition's frame do not fit in registers). The batch-affine levels (msm.cuh,
 * msm_affine_pairs_kernel) keep their running products in the MSM scratch, not in local
 * memory, where 6 KB a thread would make it 1.8 GB.
 */
int czk__gpu_msm_local_bytes(const czk_gpu *g, size_t *bytes, czk_err *err);

#endif /* CZK_GPU_CUDA_INTERNAL_CUH */
