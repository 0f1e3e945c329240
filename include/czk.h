/*
 * czk: the public C API of the proving engine (doc/DESIGN.md describes the engine).
 *
 * An engine owns every thread it uses: a synthesis pool (witness generation), N prove
 * workers per device (on the CPU backend the "device" is the CPU itself), and a finalizer
 * pool that verifies every partition proof before it counts. Clients register circuits
 * (a proving key plus its constraint system) under an id, submit jobs of one or more
 * partitions against a circuit, and await, cancel or inspect them by job id. The job id is
 * the client's request id: submitting the same request under an id again attaches to the job
 * (running or finished) instead of starting a second one; another request under a known id
 * is refused (CZK_EEXIST).
 *
 * Every public function may be called from any thread at any time between
 * czk_engine_create and czk_engine_destroy (czk_engine_destroy itself excepted: no call may
 * run concurrently with it or follow it). Functions that fail return a negative czk status
 * (czk_status.h) and, where they take one, fill `err` (NULL allowed). The library never
 * prints: log lines go to the config's `log` callback. Memory the engine hands out (proofs,
 * status arrays, metrics text) is czk_malloc'ed; release it with the matching _clear
 * function or czk_free.
 */
#ifndef CZK_H
#define CZK_H

#include <stddef.h>
#include <stdint.h>

#include "czk_status.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CZK_API
#define CZK_API __attribute__((visibility("default")))
#endif
#ifndef CZK_WARN_UNUSED_RESULT
#define CZK_WARN_UNUSED_RESULT __attribute__((warn_unused_result))
#endif
#ifndef CZK_NONNULL
#define CZK_NONNULL(...) __attribute__((nonnull(__VA_ARGS__)))
#endif

/* Frees memory the engine handed out (czk_malloc'ed); NULL is a no-op. The same function as
 * the library's util/alloc.h declares. */
CZK_API void czk_free(void *p);

/* Bytes of one partition proof: bellperson's A ‖ B ‖ C, zcash-compressed (48 + 96 + 48). */
#define CZK_PROOF_BYTES 192
/* Longest circuit id, NUL excluded. Longer ids are refused with CZK_EINVAL. */
#define CZK_ID_MAX 127
/* Longest request (job) id, NUL excluded. Generous: Curio's longest id, a WindowPoSt's
 * "wdpost-MINER-PARTITION-[b0 b1 ... b7]", is under 80 bytes; a client's own ids may be longer. */
#define CZK_REQUEST_ID_MAX 255
/* Longest client id (czk_job_request.client_id), NUL excluded; the same characters as a
 * request id. */
#define CZK_CLIENT_ID_MAX 255

typedef struct czk_engine czk_engine;

/* Job priority; the values are the proto's Priority. DEFAULT is treated as NORMAL. */
typedef enum czk_priority {
    CZK_PRIORITY_DEFAULT = 0,
    CZK_PRIORITY_LOW = 1,
    CZK_PRIORITY_NORMAL = 2,
    CZK_PRIORITY_HIGH = 3,
    CZK_PRIORITY_CRITICAL = 4,
} czk_priority;
#define CZK_PRIORITY_COUNT 5

/* A job's state. 0..4 are the proto's AwaitProofResponse.Status; PENDING and RUNNING are
 * reported only by status queries, never by czk_engine_await. */
typedef enum czk_job_status {
    CZK_JOB_UNKNOWN = 0,
    CZK_JOB_COMPLETED = 1,
    CZK_JOB_FAILED = 2,
    CZK_JOB_CANCELLED = 3,
    CZK_JOB_TIMEOUT = 4,
    CZK_JOB_PENDING = 5,
    CZK_JOB_RUNNING = 6,
} czk_job_status;

/* Log levels passed to czk_engine_config.log. */
typedef enum czk_log_level {
    CZK_LOG_ERROR = 0,
    CZK_LOG_WARN = 1,
    CZK_LOG_INFO = 2,
    CZK_LOG_DEBUG = 3,
} czk_log_level;

/*
 * Log sink: one complete line (no trailing newline) per call. Called from engine threads,
 * never with an engine lock held; it must be thread-safe and must not call back into the
 * engine's destroy. Per-partition timing lines are level INFO and look like
 *   partition job=ID part=P/N prio=NORMAL circuit=C backend=cpu attempt=1 queue_ms=..
 *   synth_ms=.. lock_wait_ms=.. kernel_ms=.. finish_ms=.. verify_ms=.. kernel_at_ms=..
 *   synth_at_ms=.. synth_thread=S worker=W spmv_ms=.. h_ms=.. msm_ms=.. verify_at_ms=..
 *   finalizer=F result=ok
 * (kernel_at_ms, synth_at_ms, verify_at_ms: when the kernel region, the synthesis and the
 * verification started, in ms since the engine was created; synth_thread, worker, finalizer:
 * the threads' indices; spmv_ms, h_ms, msm_ms: the proof's steps, msm_ms the five sums
 * together; so that a run's timeline can be rebuilt from the lines: czk_timeline_from_log.
 * A retry's line repeats its partition's synthesis fields.) Each job's final line,
 *   job id=ID status=COMPLETED circuit=C prio=.. client=.. parts=N total_us=.. synth_us=..
 *   prove_us=.. verify_us=.. overhead_us=.. submit_at_ms=.. done_at_ms=..
 * carries when it was submitted and finished, on the same clock.
 */
typedef void (*czk_log_fn)(void *arg, int level, const char *line);

typedef struct czk_engine_config {
    unsigned synth_threads;       /* partitions synthesized at once at most; 0 = auto */
    unsigned prove_threads;       /* CPU threads of the prover's parallel loops; 0 = auto */
    unsigned workers_per_device;  /* prove workers per device; 0 = 2 */
    unsigned finalizer_threads;   /* verifying threads; 0 = 2 */
    uint64_t host_budget_bytes;   /* 0 = auto: MemTotal minus a 5 GiB margin (half if small) */
    uint64_t pinned_budget_bytes; /* pinned staging memory (GPU backend); 0 = auto */
    uint64_t vram_budget_bytes;   /* device bytes per GPU for partitions; 0 = free at create */
    /* Host bytes of keys too large for a GPU that its backend may page-lock in place to stream
     * them at bus speed (they are loaded anyway: locking takes no more memory); 0 = auto (half
     * of the host's memory), 1 = lock nothing (stream from pageable memory, slower). */
    uint64_t lock_budget_bytes;
    /* Device bytes of each GPU set aside for its priority lane: a second context on a stream
     * of the GPU's greatest priority, with one worker, that proves the CRITICAL partitions
     * whose key fits it (a WinningPoSt's) beside the other work's kernel regions instead of
     * after them. 0 = auto (2 GiB on a GPU of 40 GB or more, else no lane); 1 = no lane. */
    uint64_t priority_lane_bytes;
    uint64_t result_ttl_ms;   /* finished results kept this long; 0 = 10 minutes */
    unsigned max_queued_jobs; /* unfinished jobs accepted at most; 0 = 1024 */
    /* "auto" (every CUDA device found, else the CPU) | "cpu" | "cuda" (CUDA devices only;
     * create fails without one); NULL = "auto". A failed GPU attempt is retried on another
     * GPU, else on the CPU; a GPU that faults is taken out of service (czk_device_status). */
    const char *backend;
    /* The CUDA devices to prove on, by ordinal (the daemon's gpus.devices); NULL = every
     * device found. Each must be present and listed once, else create fails. */
    const unsigned *gpu_ordinals;
    size_t n_gpu_ordinals;
    czk_log_fn log; /* may be NULL: no logging */
    void *log_arg;
    int log_level; /* lines above this czk_log_level are not produced */
    /* For tests and reproducible runs only (`czk prove --seed`), never in production: when
     * blinding_seeded is nonzero, each proof's blinding scalars r and s are derived from
     * blinding_seed and a per-engine proof counter instead of the operating system's random
     * numbers. A fixed seed makes proofs linkable, and they are not zero-knowledge against
     * whoever knows it. 0 (the default): r and s come from the operating system. */
    int blinding_seeded;
    uint64_t blinding_seed;
} czk_engine_config;

/* Fills `cfg` with the defaults (all automatic, backend "auto", no log). */
CZK_API void czk_engine_config_default(czk_engine_config *cfg) CZK_NONNULL(1);

/*
 * Creates an engine and starts its threads. `cfg` is copied (NULL = defaults).
 * Returns CZK_OK, CZK_EINVAL (bad config, or backend "cuda" without a usable device),
 * CZK_ENOMEM or CZK_EINTERNAL (a thread could not be started); *out is NULL on failure.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_create(czk_engine **out, const czk_engine_config *cfg,
                                                     czk_err *err) CZK_NONNULL(1);

/*
 * Stops intake (later submits fail with CZK_ECANCELED), waits up to `grace_ms` for queued
 * and running work to finish, cancels what is left (its waiters get CANCELLED), and stops
 * every thread. Every waiter blocked in czk_engine_await returns. Idempotent; await, status
 * and metrics keep working afterwards (on the stored results). Returns CZK_OK.
 */
CZK_API int czk_engine_shutdown(czk_engine *e, uint64_t grace_ms) CZK_NONNULL(1);

/* Shuts down with grace 0 if not done yet, then frees everything. NULL is a no-op. */
CZK_API void czk_engine_destroy(czk_engine *e);

/* ---- circuits ------------------------------------------------------------------------ */

/*
 * Registers a circuit under `circuit_id` (COLD: nothing is loaded until a job or preload
 * needs it). key_path: a snarkjs .zkey (the zkey carries the constraint system; r1cs_path
 * may then be NULL) or a bellperson .params (r1cs_path required: a circom .r1cs or a czk
 * R1CS file, told apart by their magic). Paths are copied. The files are checked now as far
 * as that is cheap (they open, are regular files, and start with their format's magic), so
 * that a wrong path is found at startup rather than at the first job. Returns CZK_OK,
 * CZK_EINVAL (bad id, id already registered, missing r1cs for a .params, not a regular
 * file), CZK_EIO (a file cannot be opened) or CZK_EFORMAT (too short, bad magic); the message
 * names the file.
 */
CZK_API CZK_WARN_UNUSED_RESULT int
czk_engine_register_circuit(czk_engine *e, const char *circuit_id, const char *key_path,
                            const char *r1cs_path, czk_err *err) CZK_NONNULL(1, 2, 3);

/*
 * Registers the PoRep-shaped synthetic circuit of 2^k constraints (r1cs/synth.h), 4 <= k
 * <= 26. Its DEV key (NOT from a ceremony: development and tests only) is made at first
 * load. Jobs on it carry no witness files: partition p's witness is derived from
 * (synth_seed, p). Returns CZK_OK or CZK_EINVAL.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_register_synthetic(czk_engine *e,
                                                                 const char *circuit_id, unsigned k,
                                                                 czk_err *err) CZK_NONNULL(1, 2);

/*
 * Loads a circuit now (HOT) so that the first job does not pay for it. Out (may be NULL):
 * *already_loaded, *load_ms (0 when already loaded). Blocks until loaded. Returns CZK_OK,
 * CZK_EINVAL (unknown id), CZK_ENOMEM (does not fit the host budget even after evicting
 * idle keys) or the loader's error.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_preload(czk_engine *e, const char *circuit_id,
                                                      int *already_loaded, uint64_t *load_ms,
                                                      czk_err *err) CZK_NONNULL(1, 2);

/*
 * Drops a circuit's key and constraint system from memory (back to COLD). A key in use by
 * running jobs is released when the last of them finishes; asking again meanwhile reports it
 * as not loaded. Out (may be NULL): *was_loaded, *freed_bytes (the budgeted bytes released, or
 * to be released). Returns CZK_OK or
 * CZK_EINVAL (unknown id).
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_evict(czk_engine *e, const char *circuit_id,
                                                    int *was_loaded, uint64_t *freed_bytes,
                                                    czk_err *err) CZK_NONNULL(1, 2);

/* ---- jobs ---------------------------------------------------------------------------- */

typedef struct czk_job_request {
    const char *request_id;     /* the client's idempotency key (czk_request_id_valid) */
    const char *circuit_id;     /* a registered circuit */
    czk_priority priority;      /* DEFAULT = NORMAL */
    const char *client_id;      /* for logs (<= CZK_CLIENT_ID_MAX); may be NULL */
    const char *kind;           /* queue name in status (the proto's proof kind); NULL = circuit */
    size_t n_partitions;        /* >= 1 */
    const uint8_t *const *wtns; /* per partition: a circom .wtns image, or NULL (synthetic) */
    const size_t *wtns_len;
    /* Synthetic circuits: partition p's witness solved from (synth_seed, p); 0 = every
     * partition takes a copy of the witness made with the circuit (no solving: for runs
     * that measure proving, not synthesis). */
    uint64_t synth_seed;
    /* Kind-specific request data (a Filecoin kind's vanilla proofs, say), copied at submit;
     * the generic and synthetic kinds take none and refuse a payload. */
    const uint8_t *payload;
    size_t payload_len;
} czk_job_request;

/* Per-step proving times of a job, summed over its partitions (each partition's attempt that
 * produced its proof), in microseconds. */
typedef struct czk_step_times {
    uint64_t spmv_us;     /* A·w, B·w, C·w (and a filtered key's density pass) */
    uint64_t h_us;        /* the quotient (NTTs) */
    uint64_t msm_a_us;    /* Σ w_i·A_i */
    uint64_t msm_b_g1_us; /* Σ w_i·B_i in G1 */
    uint64_t msm_b_g2_us; /* Σ w_i·B_i in G2 */
    uint64_t msm_l_us;    /* Σ_aux w_i·L_i */
    uint64_t msm_h_us;    /* Σ h_i·H_i */
    uint64_t prove_us;    /* whole proofs (the kernel regions), steps and assembly included */
    uint64_t verify_us;   /* verifying every proof before it counts */
} czk_step_times;

typedef struct czk_job_result {
    czk_job_status status;
    uint8_t *proof; /* COMPLETED: n_partitions × CZK_PROOF_BYTES, czk_malloc'ed */
    size_t proof_len;
    uint8_t *public_inputs; /* COMPLETED: per partition, n_public × 32 bytes, each input
                               little-endian in normal form; czk_malloc'ed; may be NULL */
    size_t public_len;
    char error[512];        /* FAILED/CANCELLED/UNKNOWN/TIMEOUT: why (FAILED names the partition) */
    uint64_t queue_wait_ms; /* submit → first partition started synthesis */
    uint64_t srs_load_ms;   /* time this job waited for its key to load (0 if HOT) */
    uint64_t synthesis_ms;  /* summed over partitions */
    uint64_t gpu_compute_ms; /* proving (kernel region), summed over partitions */
    uint64_t total_ms;       /* submit → finished */
    czk_step_times steps;    /* COMPLETED: where the proving time went */
    /* The job's circuit kind: "generic" (a key and R1CS from files), "synthetic",
     * "filecoin-post", "filecoin-porep" or "filecoin-snap". A static string, not freed; NULL
     * only when the job is unknown. A front end uses it to shape the answer (the daemon adds
     * snarkjs JSON for all but the Filecoin kinds, whose clients read the 192-byte proofs). */
    const char *circuit_kind;
} czk_job_result;

/*
 * Submits a job. The request and the witness images are copied before this returns.
 * Out: job_id (= request_id, NUL-terminated), *queue_position (jobs ahead of it in the
 * queue, 0 when it starts at once; may be NULL), *attached (1 when request_id named a job
 * already known: nothing new was started and the other fields describe that job; may be
 * NULL). "The same request" means the same circuit, kind, partition count, witness images,
 * seed and payload (compared by a digest kept on the job; priority and client id may differ).
 * Returns CZK_OK; CZK_EEXIST (request_id names a job made from another request: the message
 * says which part differs); CZK_EINVAL (missing/too long ids, unknown circuit, zero
 * partitions, wrong witness count or a witness image for a synthetic circuit or none for
 * a registered one); CZK_ENOMEM (the queue is full: max_queued_jobs, or no memory);
 * CZK_ECANCELED (the engine is shutting down). A job that can never fit the host budget is
 * accepted and fails at once (await gives FAILED with the sizes in the message).
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_submit(czk_engine *e, const czk_job_request *req,
                                                     char job_id[CZK_REQUEST_ID_MAX + 1],
                                                     uint32_t *queue_position, int *attached,
                                                     czk_err *err) CZK_NONNULL(1, 2, 3);

/*
 * Waits for a job to finish, at most `timeout_ms` (0 = forever). Out: *res (clear it with
 * czk_job_result_clear; the caller's struct is overwritten): COMPLETED with the proof,
 * FAILED or CANCELLED with a message, TIMEOUT when the wait expired (the job goes on and may
 * be awaited again). Any number of threads may await one job. Returns CZK_OK whenever the job
 * was found (TIMEOUT included); CZK_ENOTFOUND for an id never submitted or already pruned, or
 * CZK_EINVAL when job_id is NULL (in both, *res is UNKNOWN with a message and needs no clear).
 */
CZK_API int czk_engine_await(czk_engine *e, const char *job_id, uint64_t timeout_ms,
                             czk_job_result *res, czk_err *err) CZK_NONNULL(1, 4);

/* Frees a result's proof and public inputs and zeroes it; NULL is a no-op. */
CZK_API void czk_job_result_clear(czk_job_result *res);

/*
 * Cancels a job: its queued partitions are dropped, running ones finish and are discarded,
 * its memory is released, and its waiters get CANCELLED. Cancelling a finished job changes
 * nothing. Out (each may be NULL): *was_running, 1 when this call cancelled a job that had
 * started (a partition had begun synthesis), else 0 (also for a finished job); *prior, the
 * job's state when the call came: PENDING or RUNNING (this call cancelled it), or COMPLETED,
 * FAILED or CANCELLED (it had already finished; nothing changed). Returns CZK_OK,
 * CZK_ENOTFOUND (an id never submitted or already pruned) or CZK_EINVAL (job_id NULL).
 */
CZK_API int czk_engine_cancel(czk_engine *e, const char *job_id, int *was_running,
                              czk_job_status *prior, czk_err *err) CZK_NONNULL(1);

/* ---- status and metrics -------------------------------------------------------------- */

typedef struct czk_queue_status {
    char kind[128];       /* the request's kind (or circuit id) */
    uint32_t pending;     /* unfinished jobs with no partition running */
    uint32_t in_progress; /* unfinished jobs with a partition synthesizing or proving */
} czk_queue_status;

typedef struct czk_circuit_status {
    char circuit_id[128];
    /* proto's SRSStatus.Tier: 0 HOT (ready where proofs run: resident on a device of a CUDA
     * engine, in memory on a CPU one), 1 WARM (in host memory; a CUDA engine places it on a
     * device at its next partition), 2 COLD (not loaded) */
    int tier;
    uint64_t size_bytes; /* budgeted bytes when loaded; the estimate when COLD (0 if unknown) */
    uint32_t ref_count;  /* jobs holding the key */
    int synthetic;       /* 1 for czk_engine_register_synthetic circuits */
    /* The highest czk_priority its jobs came with, from registration on the one its kind's
     * requests come with (Filecoin: WinningPoSt CRITICAL, WindowPoSt HIGH; else 0): at HIGH
     * and above its idle key is kept from lower work, and synthesis leaves room for it. */
    int priority;
    /* 1: the key is on devices only. Every GPU that proves the circuit holds key and circuit
     * whole, so the host freed its copy (size_bytes is what remains: the verifying key and
     * what the kind keeps); a proof that needs it elsewhere reads the file again. */
    int device_only;
} czk_circuit_status;

typedef struct czk_device_status {
    uint32_t ordinal;
    char name[128];
    uint64_t vram_total_bytes; /* 0 for the CPU */
    uint64_t vram_free_bytes;
    char current_job_id[CZK_REQUEST_ID_MAX + 1]; /* a job one of its workers proves, "" if idle */
    uint32_t workers;
    uint32_t busy_workers;
    uint64_t partitions_proved; /* first attempts and retries that proved here */
    uint64_t partitions_failed; /* attempts that failed here (retried elsewhere or not) */
    /* 1: the device is out of service (a device fault, or three proofs in a row that did not
     * verify) and takes no more partitions; `failure` says why. */
    int failed;
    char failure[200];
} czk_device_status;

/* An unfinished job, as status lists it. */
typedef struct czk_job_brief {
    char job_id[CZK_REQUEST_ID_MAX + 1];
    char kind[128]; /* the request's kind (or circuit id) */
    char circuit_id[CZK_ID_MAX + 1];
    czk_priority priority;    /* as submitted (DEFAULT shown as NORMAL) */
    czk_job_status status;    /* PENDING or RUNNING */
    uint32_t partitions;      /* the job's partition count */
    uint32_t partitions_done; /* proved and verified so far */
    uint64_t age_ms;          /* since submit */
} czk_job_brief;

typedef struct czk_engine_status {
    uint64_t uptime_s;
    uint64_t jobs_completed, jobs_failed, jobs_cancelled; /* since create */
    uint64_t partitions_proved, partitions_retried, partitions_failed;
    uint32_t jobs_known;                                  /* unfinished plus stored results */
    uint32_t pending_by_priority[CZK_PRIORITY_COUNT];     /* unfinished jobs not started */
    uint32_t in_progress_by_priority[CZK_PRIORITY_COUNT]; /* unfinished jobs started */
    czk_queue_status *queues;                             /* czk_malloc'ed, n_queues entries */
    size_t n_queues;
    czk_circuit_status *circuits; /* every registered circuit */
    size_t n_circuits;
    czk_device_status *devices;
    size_t n_devices;
    czk_job_brief *jobs; /* the unfinished jobs, in submit order */
    size_t n_jobs;
    uint64_t host_budget_bytes, host_reserved_bytes; /* engine budget and what is reserved */
    uint64_t host_allocated_bytes;                   /* czk_alloc_in_use (whole process) */
    uint64_t pinned_budget_bytes, pinned_used_bytes;
    int shutting_down;
} czk_engine_status;

/* Fills *st (overwritten; clear it with czk_engine_status_clear). Returns CZK_OK or
 * CZK_ENOMEM (then *st is zeroed). */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_get_status(czk_engine *e, czk_engine_status *st)
    CZK_NONNULL(1, 2);

/* Frees the status arrays and zeroes *st; NULL is a no-op. */
CZK_API void czk_engine_status_clear(czk_engine_status *st);

/*
 * Renders a status snapshot as the JSON object of the daemon's GET /status and `czk status`
 * (doc/API.md §3), so that both show one shape. Out: *json, NUL-terminated, czk_malloc'ed
 * (czk_free). Returns CZK_OK or CZK_ENOMEM (*json NULL). Thread-safe (reads *st only).
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_status_json(const czk_engine_status *st, char **json)
    CZK_NONNULL(1, 2);

/* Prometheus text exposition (czk_* metrics) in *text, czk_malloc'ed (czk_free). Returns
 * CZK_OK or CZK_ENOMEM (*text NULL). */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_metrics(czk_engine *e, char **text) CZK_NONNULL(1, 2);

/* 1 when `id` is a valid circuit id: 1..CZK_ID_MAX bytes of printable ASCII without spaces
 * (0x21..0x7e), else 0. Circuit ids name keys in configs, metric labels and file names, so
 * they stay plain. The engine, the daemon and the CLI all check circuit ids with this. */
CZK_API int czk_id_valid(const char *id);

/* 1 when `id` is a valid request (job) id: 1..CZK_REQUEST_ID_MAX bytes of well-formed UTF-8
 * with no control character (C0, DEL, C1) or line separator, else 0. Spaces, brackets and quotes
 * are allowed: Curio names a WindowPoSt job "wdpost-1000-0-[12 200 3 4 5 6 7 8]". Where an id
 * reaches a log line it is quoted (czk_quote_value); in JSON it is escaped. */
CZK_API int czk_request_id_valid(const char *id);

/* The name of a job status ("COMPLETED") and of a priority ("CRITICAL"); static strings. */
CZK_API const char *czk_job_status_name(czk_job_status s);
CZK_API const char *czk_priority_name(czk_priority p);

/* ---- timeline: where the engine's threads spent a run ---------------------------------- */

/* What a span shows. The kernel region (the device lock's hold) is split into its steps from
 * the proof's own step times, laid out in order from the lock's grant: SPMV, QUOTIENT, MSM
 * (the five sums as one span, cut at the region's end), then REGION_REST for what is left of
 * the region (checks, the proof's assembly; the whole region when the device gives no step
 * times). SUBMIT and DONE are marks (t0 == t1) of a job's arrival and of its final status. */
typedef enum czk_span_kind {
    CZK_SPAN_SYNTH = 0,       /* a partition's witness: synthesis and staging */
    CZK_SPAN_LOCK_WAIT = 1,   /* a worker from its pick to the device lock: reservations,
                                 blinding scalars, waiting for the lock */
    CZK_SPAN_SPMV = 2,        /* the witness's upload and A·w, B·w, C·w */
    CZK_SPAN_QUOTIENT = 3,    /* the quotient (NTTs) */
    CZK_SPAN_MSM = 4,         /* the multi-scalar sums */
    CZK_SPAN_REGION_REST = 5, /* the rest of the kernel region */
    CZK_SPAN_VERIFY = 6,      /* the finalizer verifying the proof */
    CZK_SPAN_SUBMIT = 7,      /* mark: the job was submitted */
    CZK_SPAN_DONE = 8,        /* mark: the job reached its final status */
} czk_span_kind;
#define CZK_SPAN_KINDS 9

/* The thread a span ran on; SUBMIT and DONE marks are on the one JOBS lane. */
typedef enum czk_lane_kind {
    CZK_LANE_SYNTH = 0,     /* synthesis thread `lane` (the last one takes HIGH and CRITICAL) */
    CZK_LANE_WORKER = 1,    /* prove worker `lane` (numbered device by device) */
    CZK_LANE_FINALIZER = 2, /* finalizer `lane` */
    CZK_LANE_JOBS = 3,
} czk_lane_kind;

/* Longest job id a span keeps (cut at a UTF-8 character's boundary), NUL excluded. */
#define CZK_SPAN_JOB_MAX 63

typedef struct czk_span {
    uint64_t t0_ns, t1_ns; /* start and end, in ns since the engine was created */
    int kind;              /* czk_span_kind */
    int lane_kind;         /* czk_lane_kind */
    uint32_t lane;         /* the thread's index among its kind */
    uint32_t part;         /* the partition's index; marks: the job's partition count */
    uint32_t attempt;      /* worker and verify spans: the partition's attempt (1 = first) */
    int priority;          /* the job's czk_priority (DEFAULT shown as NORMAL) */
    int status;            /* DONE marks: the job's final czk_job_status; else 0 */
    char device[32];       /* worker spans: the device the attempt ran on ("cuda:0",
                              "cuda:0/lane" for a priority lane, "cpu"); else "" */
    char job_id[CZK_SPAN_JOB_MAX + 1];
} czk_span;

/*
 * Starts recording spans (or starts over: spans not yet taken are dropped): every partition's
 * synthesis, lock wait, kernel-region steps and verification, and every job's submit and done
 * marks, at most `capacity` of them until the next czk_engine_trace_take; past that each span
 * is counted as dropped. Off by default; while off, recording costs one relaxed atomic load at
 * each place a span would be recorded. Returns CZK_OK, CZK_EINVAL (capacity 0 or past 2^26)
 * or CZK_ENOMEM.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_engine_trace_start(czk_engine *e, size_t capacity,
                                                          czk_err *err) CZK_NONNULL(1);

/*
 * Hands over the spans recorded since the start or the last take, in the order they were
 * recorded (a span is recorded when it ends; marks when they happen), and empties the buffer;
 * recording goes on until czk_engine_trace_stop. Out: *spans (czk_malloc'ed, czk_free; NULL
 * when *n is 0), *n, and *dropped (may be NULL): the spans that did not fit since the last
 * take. Returns CZK_OK.
 */
CZK_API int czk_engine_trace_take(czk_engine *e, czk_span **spans, size_t *n, uint64_t *dropped,
                                  czk_err *err) CZK_NONNULL(1, 2, 3);

/* Stops recording and drops the spans not taken. Idempotent. */
CZK_API void czk_engine_trace_stop(czk_engine *e) CZK_NONNULL(1);

/*
 * Writes spans[0..n) as an SVG 1.1 timeline (no script, no external resource): one lane per
 * synthesis thread, prove worker and finalizer that has spans, each span a rect coloured by
 * kind with a tooltip (synthesis blue, lock wait grey, upload+SpMV orange, quotient purple,
 * MSMs red, rest of the kernel region pink, verification green); the submit and done marks of
 * CRITICAL jobs as black ticks across the lanes, labelled with the job id (submit dashed);
 * a time axis in seconds since the engine's creation; a legend; and per lane its busy share:
 * the union of its spans (lock waits left out) over the window from the first span's start to
 * the last one's end; and per device the union of its workers' kernel regions. `title` (may be
 * NULL) heads it. The file is written atomically (a temporary file renamed over `path`).
 * Returns CZK_OK, CZK_EINVAL (no span), CZK_ENOMEM or CZK_EIO (the message names the path).
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_timeline_svg_write(const char *path, const czk_span *spans,
                                                          size_t n, const char *title, czk_err *err)
    CZK_NONNULL(1);

/*
 * Rebuilds a run's spans from the engine's log lines (text[0..len), as the log callback gave
 * them, one a line, each with any prefix such as a daemon's timestamp and level): the
 * partition lines (see czk_log_fn) give synthesis, lock wait, kernel-region steps and
 * verification, the job lines the submit and done marks. When the text holds several engines'
 * runs ("engine started" lines), only the last one's. Lines that lack a field a span needs
 * (an older czk's) give the spans they can (without worker=, the kernel region goes on one
 * lane per device); a line cut short (no result=) gives none. Out: *spans (czk_malloc'ed,
 * czk_free; NULL when *n is 0), *n. Returns CZK_OK (*n may be 0) or CZK_ENOMEM.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_timeline_from_log(const char *text, size_t len,
                                                         czk_span **spans, size_t *n, czk_err *err)
    CZK_NONNULL(3, 4);

#ifdef __cplusplus
}
#endif

#endif /* CZK_H */
