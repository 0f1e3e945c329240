/*
 * The engine's private structures and the functions its files share (not part of
 * include/czk.h). engine.c's DESIGN comment is the map: which file does what, the threads,
 * the budgets and the lock order. Everything here is guarded by e->mu unless its comment
 * says otherwise.
 */
#ifndef CZK_ENGINE_ENGINE_INTERNAL_H
#define CZK_ENGINE_ENGINE_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "czk.h"
#include "engine/gate.h"
#include "engine/kind.h"
#include "groth16/backend.h"
#include "groth16/device.h"
#include "groth16/keys.h"
#include "groth16/verify.h"
#include "groth16/witness_pack.h"
#include "r1cs/r1cs.h"
#include "util/parse.h"
#include "util/pool.h"
#include "util/status.h"

#define CZK__MS(ns) ((uint64_t)((ns) / 1000000ULL))
/* A device whose proofs fail to verify this many times in a row is taken out of service; a
 * device fault (CZK_ECUDA) takes it out at once. Other failures (memory, a circuit it cannot
 * take) send the partition elsewhere and leave the device in service. */
#define CZK__DEVICE_MAX_FAULTS 3
/* How often the finalizers prune expired results. */
#define CZK__PRUNE_PERIOD_NS (50ULL * 1000 * 1000)

enum czk__circuit_state { C_COLD = 0, C_LOADING = 1, C_HOT = 2 };

typedef struct circuit {
    struct circuit *next;
    char id[CZK_ID_MAX + 1];
    const czk_circuit_kind *kind;
    void *kstate; /* the kind's; owned */
    int state;    /* enum czk__circuit_state */
    czk_groth16_pk pk;
    czk_r1cs cs;
    czk_groth16_pvk pvk;
    uint64_t bytes;      /* reserved from the budget while LOADING or HOT */
    uint64_t est_bytes;  /* before the first load: an estimate; after: the loaded size */
    uint64_t part_bytes; /* a partition's working set on the CPU prover; 0 until known */
    uint64_t w_bytes;    /* of which its witness (n_vars Fr) */
    uint64_t dev_bytes;  /* once loaded: key and rows, what a device keeps of it at most */
    int device_rows;     /* the kind's estimate said so: rows only on devices, no CPU scratch */
    /* A witness of this circuit did not pack small (CZK_EUNSUPPORTED): its values are not
     * bit-heavy, so later witnesses are made straight in staging memory without trying.
     * Atomic: synthesis threads set and read it without a lock. */
    int no_pack;
    uint32_t refs; /* unfinished jobs on this circuit */
    int max_prio;  /* the highest priority a job on it was submitted with */
    uint64_t last_used_ns;
    int evict_pending;
    /* Per device: the key attached there (NULL: none), written under that device's lock by
     * the worker that attaches it and by unload (e->mu, then the device's lock). */
    czk_device_key **dev_key;
    /* Bit i: something of the key is attached to device i; circuit_devs: whole proofs run
     * there from the witness (attach mode WHOLE or STREAMED). Set under devs[i].mu, cleared by
     * unload under e->mu and devs[i].mu; atomic because readers hold only one of the two. */
    uint64_t resident_devs;
    uint64_t circuit_devs;
    /* Bit i: key and circuit whole on device i (attach mode WHOLE), where a proof reads
     * nothing of the host's copy. Set and cleared as resident_devs. */
    uint64_t whole_devs;
    /* The host copy of the key's points (keys.c, czk__key_drop_host): FULL while loaded;
     * DROPPED once every device that proves the circuit holds it whole (the kind's drop
     * freed its rows too), host_dropped bytes then released from the budget; DROPPING and
     * RESTORING while a thread frees or re-reads it with no lock held (others wait on
     * synth_cv). Guarded by e->mu. */
    int host;
    uint64_t host_dropped;
    uint64_t attach_bytes; /* of bytes: what the devices' attach may allocate on the host */
    /* 1 while the thread that loaded c places it on the devices (keys.c, place_on_devices):
     * its partitions wait as for a load. Guarded by e->mu. */
    int placing;
} circuit;

enum czk__host_copy { H_FULL = 0, H_DROPPING, H_DROPPED, H_RESTORING };

enum czk__part_state {
    P_QUEUED_SYNTH = 0,
    P_SYNTH,
    P_QUEUED_PROVE,
    P_PROVING,
    P_QUEUED_FIN,
    P_FIN,
    P_DONE,
};

typedef struct part {
    struct job *job;
    unsigned idx;
    int state; /* enum czk__part_state */
    unsigned attempts;
    /* Where attempts failed, so that a retry goes elsewhere: bit i, device i; fb_failed, the
     * fallback. on_dev: the latest attempt's device, -1 for the fallback. */
    uint64_t failed_devs;
    int fb_failed;
    int on_dev;
    czk_fr *w;
    uint64_t reserved;
    czk_groth16_proof proof;
    czk_groth16_timings tm; /* the latest attempt's step times */
    int prove_rc;
    char err[200];
    uint64_t t_ready_ns; /* entered its current queue */
    uint64_t queue_ns, synth_ns, lock_wait_ns, kernel_ns, finish_ns, verify_ns;
    uint64_t kernel_at_ns; /* the kernel region's start, from the engine's creation */
    czk_device *w_dev;     /* w came from this device's host_alloc (NULL: czk_malloc) */
    int w_borrowed;        /* w is the kind's shared witness: read only, not ours to free */
    /* w packed (groth16/witness_pack.h) in wp_dev's staging memory, for a device that moves
     * packs instead of witnesses; wp_dev NULL: none. */
    czk_witness_pack wp;
    czk_witness_pack_mem wp_mem;
    czk_device *wp_dev;
    const char *dev_label; /* the device of the latest attempt, for the log */
    /* For the timeline (trace.c): the threads that synthesized it, ran its latest attempt and
     * verified it, and when synthesis and verification started, from the engine's creation. */
    unsigned synth_thread, worker, finalizer;
    uint64_t synth_at_ns, verify_at_ns;
} part;

typedef struct job {
    struct job *next;
    char id[CZK_REQUEST_ID_MAX + 1];
    /* The id as log lines and messages show it: quoted when it has spaces or quotes
     * (czk_quote_value), so that a line's key=value fields still parse. */
    char qid[CZK_QUOTED_MAX(CZK_REQUEST_ID_MAX)];
    char kind[CZK_ID_MAX + 1];
    int kind_given; /* the request named a kind (else `kind` is the circuit id) */
    /* A digest of what defines the request (jobs.c: request_digest), so that the id re-sent
     * with another request is refused rather than answered with this job's proof. */
    uint64_t digest[2];
    char client[CZK_QUOTED_MAX(CZK_CLIENT_ID_MAX)]; /* quoted (czk_quote_value), for logs */
    circuit *c;
    void *kjob; /* the circuit kind's job (job_create) */
    int prio;
    uint64_t seq;
    size_t n_parts;
    part *parts;
    czk_job_status status; /* PENDING, RUNNING, then final */
    char error[512];
    size_t parts_done;
    unsigned inflight; /* partitions a thread is working on outside e->mu */
    unsigned waiters;
    int holds_ref;
    uint8_t *proof;
    uint8_t *pub;
    size_t pub_len;
    size_t n_public;
    uint64_t t_submit_ns, t_start_ns, t_done_ns;
    uint64_t srs_load_ms;
    uint64_t synth_ns, prove_ns, verify_ns;
    czk_step_times steps; /* summed over the partitions' proved attempts, in µs */
} job;

/* A latency histogram (status.c): counts per bucket of hist_bounds_s there (not cumulative),
 * the last one +Inf. */
#define CZK__HIST_BUCKETS 16
typedef struct czk__hist {
    uint64_t counts[CZK__HIST_BUCKETS + 1];
    uint64_t sum_ns;
    uint64_t count;
} czk__hist;

/* Finished jobs per (circuit, proof kind), the labels of the job counters. A fixed table: both
 * are few (registered circuits, the proto's kinds), and a full table counts the rest under
 * circuit and kind "_other" in its last entry. */
#define CZK__JOB_STATS_MAX 64
typedef struct czk__job_stats {
    const char *circuit;       /* a registered circuit's id (circuits live as long as e) */
    char kind[CZK_ID_MAX + 1]; /* the request's kind, "unspecified" when it named none */
    uint64_t completed, failed, cancelled;
    czk__hist proof; /* submit to COMPLETED */
} czk__job_stats;

/* The partition stages of the stage histograms, in the order of czk__stage_names. */
enum { CZK__STAGE_QUEUE, CZK__STAGE_SYNTH, CZK__STAGE_PROVE, CZK__STAGE_VERIFY, CZK__STAGES };

typedef struct logline {
    struct logline *next;
    int level;
    char text[1024]; /* a partition line with its timeline fields and a long quoted id fits */
} logline;

/* One device the engine proves on: a GPU, or the CPU. Set at create and constant afterwards,
 * except as noted. */
typedef struct edevice {
    czk_device *dev; /* guarded by e->mu (czk__engine_set_backends replaces it) */
    czk_device_info info;
    czk__gate gate; /* the device lock, granted by priority (gate.h) */
    /* guarded by e->mu */
    uint64_t mem_free; /* as of creation or the latest proof */
    uint64_t pinned_held;
    uint64_t vram_reserved;
    const circuit *need_c; /* the circuit need_bytes was asked for (NULL: none) */
    uint64_t need_bytes;
    uint64_t n_proved, n_failed; /* attempts that proved, that failed */
    unsigned faults_in_row;
    /* Out of service (GPU engines only; czk__device_down): takes no more partitions. Read
     * without e->mu by synthesis (which only prefers healthy devices for staging). */
    int down;
    char down_why[200];
    int inject_fault; /* czk__engine_inject_device_fault: the next attempt here is a fault */
    /* Priority lanes (czk_engine_config.priority_lane_bytes): a lane is a second device on
     * the same GPU that takes only the CRITICAL partitions whose key fits it, and its GPU's
     * main device leaves those to it. lane_of: the main device's index, or -1; lane: this
     * device's lane, or -1. */
    int lane_of, lane;
} edevice;

struct czk_engine {
    czk_engine_config cfg;
    char backend_name[32];
    czk_pool *pool;
    /* HIGH and CRITICAL synthesis's own loops: a pool runs one loop at a time, and a PoRep
     * witness holds e->pool for a quarter second (H200, BENCHMARKS.md run 96), which a 3 ms
     * WinningPoSt synthesis waited for. Its threads sleep while no urgent work runs. */
    czk_pool *urgent_pool;
    edevice *devs;
    unsigned n_devs;
    int gpu;                 /* the devices are GPUs (pinned staging set aside, keys attached) */
    int lean;                /* a device proves whole partitions: lean reservations (budget.c) */
    czk_device *fallback;    /* guarded by mu: a retry runs here, under *fb_lock */
    czk__gate *fb_lock;      /* &devs[0].gate on the CPU, else &cpu_gate */
    czk_device **owned_devs; /* every device opened (devices.c), closed at the end */
    size_t n_owned;
    czk__gate cpu_gate;
    pthread_cond_t vram_cv; /* with mu: a device's VRAM reservation shrank */

    pthread_mutex_t mu;
    pthread_cond_t synth_cv, prove_cv, fin_cv, done_cv;

    pthread_mutex_t log_mu; /* a leaf: guards the four fields below */
    pthread_cond_t log_cv;
    logline *log_head, *log_tail;
    int log_quit;
    pthread_t logger;
    int logger_started;

    /* guarded by mu */
    circuit *circuits;
    job *jobs, *jobs_tail;
    uint64_t seq;
    uint64_t budget, reserved;
    int stopping, quit, joined, stopped;
    uint64_t part_reserved; /* the part of `reserved` held by partitions */
    unsigned n_unfinished;
    uint64_t n_completed, n_failed, n_cancelled;
    uint64_t n_parts_proved, n_parts_retried, n_parts_failed;
    czk__hist stage_hist[CZK__STAGES]; /* proved partitions, per stage */
    czk_step_times steps_total;        /* proved partitions' proving steps, in µs */
    czk__job_stats job_stats[CZK__JOB_STATS_MAX];
    size_t n_job_stats;
    char **worker_job; /* per prove worker: its current job id ("" when idle) */
    uint64_t t_create_ns;

    atomic_uint inject; /* pending injected failures; fetch-sub pairs with the store */
    /* Proofs whose blinding came from cfg.blinding_seed so far (under mu): each proof's r, s
     * derive from the seed and this count, so that no two proofs share them. */
    uint64_t blind_count;

    pthread_t *threads;
    unsigned n_threads;
    unsigned n_workers;

    /* The span recorder (trace.c): trace_on is read without a lock where spans are made, so
     * that recording costs one load while off; trace_mu, a leaf, guards the four after it. */
    atomic_int trace_on;
    pthread_mutex_t trace_mu;
    czk_span *trace;
    size_t trace_n, trace_alloc, trace_cap;
    uint64_t trace_dropped;
    atomic_uint fin_next; /* the finalizers' indices, taken as they start */
};

extern const char *const czk__prio_names[CZK_PRIORITY_COUNT];

/* ---- log.c ---- */
void czk__elog(czk_engine *e, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int czk__log_start(czk_engine *e, czk_err *err);
void czk__log_stop(czk_engine *e);
/* snprintf; messages that embed other messages are cut, by design. */
void czk__set_msg(char *dst, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* ---- trace.c: the span recorder (czk_engine_trace_start) and the timeline's fields ---- */
void czk__trace_init(czk_engine *e);
void czk__trace_free(czk_engine *e);
/* Under e->mu, where each step's times are known (absolute czk_time_ns): note on p what the
 * partition line shows of it, and record its spans while tracing. Synthesis ran [t0, t1] on
 * synthesis thread `thread`; worker `worker` picked p at t0, took the device lock at t1 and
 * left it at t2 (t2 == t1: the kernel region did not run); finalizer `fin` verified it over
 * [t0, t1] (recorded when the attempt proved). */
void czk__trace_synth(czk_engine *e, part *p, unsigned thread, uint64_t t0, uint64_t t1);
void czk__trace_attempt(czk_engine *e, part *p, unsigned worker, uint64_t t0, uint64_t t1,
                        uint64_t t2);
void czk__trace_verify(czk_engine *e, part *p, unsigned fin, uint64_t t0, uint64_t t1);
/* A job's submit (done = 0) or final-status mark, at j->t_submit_ns or j->t_done_ns. */
void czk__trace_job(czk_engine *e, const job *j, int done);
/* Copies at most n - 1 bytes of src into dst, not cutting a UTF-8 character in two. */
void czk__copy_cut(char *dst, size_t n, const char *src);

/* ---- budget.c (under e->mu) ---- */
int czk__budget_defaults(czk_engine_config *cfg, czk_err *err);
int czk__reserve(czk_engine *e, uint64_t need, int prio);
void czk__unreserve(czk_engine *e, uint64_t bytes);
void czk__engine_set_lean(czk_engine *e); /* after the devices change */
uint64_t czk__part_need(const czk_engine *e, const circuit *c);
uint64_t czk__scratch_headroom(const czk_engine *e);
uint64_t czk__part_floor(const czk_engine *e, const circuit *c);
/* Bytes a partition below HIGH leaves free while others are in flight: one partition of the
 * largest loaded circuit that HIGH or CRITICAL jobs use, so that a WinningPoSt never waits for
 * a C2 partition to give memory back. */
uint64_t czk__urgent_room(const czk_engine *e);
/* Called without e->mu. */
int czk__scratch_reserve(czk_engine *e, part *p, unsigned di, int on_fallback, uint64_t *got,
                         czk_err *err);
int czk__vram_reserve(czk_engine *e, edevice *d, const circuit *c, uint64_t *got, czk_err *err);
void czk__vram_release(czk_engine *e, edevice *d, uint64_t bytes); /* under e->mu */

/* ---- keys.c ---- */
circuit *czk__find_circuit(czk_engine *e, const char *id);
void czk__unload_circuit(czk_engine *e, circuit *c);
int czk__ensure_loaded(czk_engine *e, circuit *c, int prio, uint64_t *load_ms, czk_err *err);
void czk__circuit_free(circuit *c);
/* With d's lock held, no engine lock: attaches c's key to device di if not yet. */
void czk__key_attach(czk_engine *e, unsigned di, circuit *c);
/* Under e->mu (released while freeing): frees the host copy of c's key when every device
 * that proves c holds it whole and no proof reads it (the kind must allow it). */
void czk__key_drop_host(czk_engine *e, circuit *c);
/* Under e->mu (released while reading): makes the host copy of c's key whole again, for a
 * proof that reads it (the CPU, a device that does not hold c whole). CZK_OK, CZK_ENOMEM
 * (it does not fit the host budget now) or the kind's error. c must be held by a job. */
int czk__key_restore_host(czk_engine *e, circuit *c, int prio, czk_err *err);
/* Under e->mu: does an attempt of c on device di (-1: the fallback) read the host copy? */
int czk__key_needs_host(const czk_engine *e, const circuit *c, int di);
/* Under e->mu: will c's key leave the host once loaded (keys.c, place_on_devices), so that
 * it need not fit the host budget beside a partition's witness? */
int czk__key_leaves_host(const czk_engine *e, const circuit *c);

/* ---- jobs.c (under e->mu) ---- */
int czk__job_final(const job *j);
/* Releases the witness and its pack (cleared first: it is witness data). Called without e->mu
 * by the thread that owns p (a 4 GB witness takes a good part of a second to clear), or under
 * it by czk__part_drop; the reservation stays for czk__part_drop to release. */
void czk__part_free_witness(part *p);
void czk__part_drop(czk_engine *e, part *p);
/* With e->mu held, by the thread that holds p after czk__part_return, once p's outcome is
 * final: czk__part_hold(j) before the job is finished, czk__part_release after (e->mu is
 * released meanwhile and held again on return). The release clears and frees p's witness
 * outside the lock, then drops p and the hold (jobs.c says why). */
void czk__part_hold(job *j);
void czk__part_release(czk_engine *e, job *j, part *p);
/* Drops the job's hold on its circuit and the kind's request data; once, when the job is final
 * (or the engine stopped) and no partition is in flight. */
void czk__job_release_circuit(czk_engine *e, job *j);
void czk__job_finish(czk_engine *e, job *j, czk_job_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
int czk__part_return(czk_engine *e, part *p);
void czk__job_free(job *j);
void czk__prune(czk_engine *e);
part *czk__pick(czk_engine *e, int state, int skip_loading, int min_prio);
/* A device's host_alloc/host_free with the device as a plain context (witness packs). */
void *czk__dev_alloc(void *ctx, size_t bytes);
void czk__dev_free(void *ctx, void *p, size_t bytes);
struct timespec;
/* *ts = now + ns on CLOCK_MONOTONIC (the engine's condition variables' clock). */
void czk__timespec_after(struct timespec *ts, uint64_t ns);

/* ---- status.c (under e->mu): metrics ---- */
/* Counts a proved partition's stage times (its steps go to e->steps_total in finalize.c). */
void czk__metrics_partition(czk_engine *e, const part *p);
/* Counts a job that reached its final status. */
void czk__metrics_job(czk_engine *e, const job *j);

/* ---- devices.c ---- */
/* Opens the CUDA devices `ordinals` lists (NULL: all) unless backend is "cpu", else the CPU. */
int czk__devices_open(czk_engine *e, const char *backend, const unsigned *ordinals,
                      size_t n_ordinals, czk_err *err);
/* As czk__devices_open, with the given devices standing in for GPUs (the test hook below). */
int czk__devices_adopt(czk_engine *e, czk_device **devs, unsigned n, czk_err *err);
/* Makes device `lane` (adopted by the test hook) the priority lane of device `main`. */
int czk__devices_make_lane(czk_engine *e, unsigned main, unsigned lane);
/* Prove workers of device di (one on a lane, else workers_per_device), and the device of
 * worker `index` (workers are numbered device by device). */
unsigned czk__device_workers(const czk_engine *e, unsigned di);
unsigned czk__worker_device(const czk_engine *e, unsigned index);
/* The pool of j's loops, synthesis and a proof's host steps alike: HIGH and CRITICAL jobs have
 * their own. One loop runs on a pool at a time, so an urgent proof's host steps on the shared
 * pool waited behind a C2 partition's synthesis loop (0.3-1.2 s): the kernel region of a
 * WinningPoSt-sized proof beside C2 took up to 3.4 s (BENCHMARKS.md run 112). */
static inline czk_pool *czk__job_pool(const czk_engine *e, const job *j) {
    return j->prio >= CZK_PRIORITY_HIGH ? e->urgent_pool : e->pool;
}

/* Whether a circuit whose key and rows take dev_bytes fits lane d: half of the lane for them,
 * half for a partition's arena and tables. */
static inline int czk__lane_fits(const edevice *d, uint64_t dev_bytes) {
    return dev_bytes > 0 && dev_bytes <= d->info.mem_budget / 2;
}
/* Whether lane device di takes p: a CRITICAL partition whose key fits the lane's memory. */
int czk__lane_takes(const czk_engine *e, unsigned di, const part *p);
void czk__devices_close(czk_engine *e);
/*
 * The CUDA ordinals to open: `want` (n_want of them; NULL = every one of the `present`), in
 * order, into out[] (room for max(n_want, present)). Returns CZK_OK, or CZK_EINVAL naming an
 * ordinal that is not present or listed twice.
 */
int czk__devices_select(const unsigned *want, size_t n_want, int present, unsigned *out,
                        size_t *n_out, czk_err *err);
/* Under e->mu: may device di (-1: the fallback) take p's next attempt? */
int czk__part_fits_device(const czk_engine *e, const part *p, int di);
/* Under e->mu: is there a device p has not failed on (or the fallback, not yet tried)? */
int czk__part_can_retry(const czk_engine *e, const part *p);
/* Under e->mu: counts p's latest attempt (rc, final: the input's fault) on its device, taking
 * the device out of service when it faulted (CZK_ECUDA) or failed too often in a row. */
void czk__device_count(czk_engine *e, part *p, int rc, int final);

/* ---- the threads: synth.c, workers.c, finalize.c ---- */
void *czk__synth_main(void *arg);
/* A synthesis thread's or a prove worker's start: its index among its kind, its device (a
 * worker's), and the lowest job priority it takes (the urgent synthesis thread's HIGH). */
typedef struct czk__worker_arg {
    czk_engine *e;
    unsigned index;
    unsigned dev;
    int min_prio;
} czk__worker_arg;
void *czk__worker_main(void *arg);
void *czk__fin_main(void *arg);

/* ---- hooks for tests and the CLI (not part of include/czk.h) ---- */

/*
 * Copies the verifying key of a loaded (HOT) circuit into *vk (caller clears it with
 * czk_groth16_vk_clear). Returns CZK_OK, CZK_EINVAL (unknown or not loaded) or CZK_ENOMEM.
 */
int czk__engine_circuit_vk(czk_engine *e, const char *circuit_id, czk_groth16_vk *vk);

/*
 * For tests: replaces the backend of the engine's first device (primary, the first attempt
 * of every partition) and the fallback backend (retries); NULL leaves one as it is. Only
 * for an engine whose device is the CPU (backend "cpu", or "auto" without a CUDA device),
 * before any job is submitted; both tables must outlive the engine and be thread-safe.
 * Returns CZK_OK, CZK_EINVAL on an engine with GPU devices, or CZK_ENOMEM.
 */
int czk__engine_set_backends(czk_engine *e, const czk_backend *primary,
                             const czk_backend *fallback);

/*
 * For tests: creates an engine (as czk_engine_create, cfg->backend ignored) whose devices are
 * devs[0..n-1], taken over (closed by the engine, also on failure), treated as GPUs: keys
 * attached to each, workers_per_device workers each, staging from them, the CPU as fallback.
 */
int czk__engine_create_on_devices(czk_engine **out, const czk_engine_config *cfg, czk_device **devs,
                                  unsigned n, czk_err *err);

/*
 * Testing hook: the next `n` proving-scratch reservations fail once each, as an allocation
 * failure would (exercises the retry path). Thread-safe.
 */
void czk__engine_inject_failures(czk_engine *e, unsigned n);

/*
 * Testing hook: the next attempt on device `dev` (an index into the engine's devices) fails
 * as a lost device does (CZK_ECUDA, before the device is touched), so the device goes out of
 * service and its partitions go elsewhere. For tests and bench_engine --fail-device, on fake
 * and on real GPUs. Returns CZK_OK, or CZK_EINVAL for no such device. Thread-safe.
 */
int czk__engine_inject_device_fault(czk_engine *e, unsigned dev);

#endif /* CZK_ENGINE_ENGINE_INTERNAL_H */
