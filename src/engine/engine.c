/*
 * The proving engine (contract in include/czk.h; DESIGN.md §1, §3, §4).
 *
 * DESIGN
 * Threads. The engine owns every thread it runs:
 *   - synth_threads synthesis threads: pick the best queued partition, make sure its key is
 *     loaded (loading it themselves if not), reserve the partition's working set from the
 *     host budget, and build its witness (parse the .wtns image, or derive it for a
 *     synthetic circuit);
 *   - workers_per_device prove workers for each device: each CUDA device the build and the
 *     machine offer (backend auto or cuda), else one "device", the CPU. A worker picks the
 *     best synthesized partition, on a CUDA device reserves the partition's device working
 *     set from that device's VRAM budget (the planner's arena plus tables for the circuit's
 *     domain and largest MSM), takes the device lock only around the kernel region (the
 *     czk_groth16_prove call), releases the reservation, and hands a pending proof to the
 *     finalizers. A partition's first attempt runs on the worker's device; its retry runs on
 *     the fallback backend, the CPU (DESIGN.md §1), under the CPU lock;
 *   - finalizer_threads finalizers: verify each proof (czk_groth16_verify) before it
 *     counts, encode it, retry a failed partition once, finish jobs, and prune stored
 *     results after result_ttl_ms.
 * Orders. Both the synthesis and the prove queue are ordered by priority (higher first),
 * then job age (submit sequence), then partition index. The queues are not separate
 * structures: a partition's `state` says which queue it is in, and picking scans the job
 * list (kept in submit order). That is O(queued partitions) per pick, cheap next to a proof;
 * a heap is the upgrade once thousands of jobs queue.
 * Budget. Every big host allocation is reserved from e->budget before it is made: a key
 * (an estimate before loading, corrected to the loaded size), and per partition its working
 * set: the witness (n_vars Fr) plus the prover's scratch (3n + 2·max(n, n_vars) Fr, as
 * prove.h documents), reserved when synthesis starts and released when the partition is
 * finished or dropped. So the number of partitions in flight follows from the budget. When
 * the best partition cannot reserve, idle keys (no job holds them) are evicted, least
 * recently used first; if it still cannot, synthesis waits for memory rather than letting a
 * lower-priority partition take it, so a CRITICAL job reserves ahead of waiting NORMAL ones.
 * A job whose key plus one partition exceeds the whole budget fails at once.
 * Jobs. A job lives in e->jobs from submit until it is pruned; its id is the client's
 * request id (resubmitting attaches). Cancel, failure and shutdown set the final status at
 * once and wake waiters; partitions running in a thread at that moment finish there and are
 * discarded (`inflight` counts them; a job is freed only when it is 0 and no thread waits
 * on it).
 *
 * Locks, in order (a thread holding one may take only those below it):
 *   1. e->mu: every field of the engine, its circuits, jobs and partitions, except as noted;
 *      or one device lock (devs[i].mu, or e->cpu_mu for retries on the CPU fallback of a
 *      CUDA engine), held only around the kernel region and the planner's call. e->mu and a
 *      device lock are never held together, nor two device locks.
 *   2. e->log_mu: a leaf guarding the queue of log lines (taken under either of the above).
 * Circuit keys (pk, cs, pvk) are read outside e->mu by threads whose job holds a reference
 * (circuit.refs), which keeps the circuit loaded. Witness images and partition witnesses are
 * touched outside e->mu only by the one thread whose partition state says it owns them
 * (P_SYNTH, P_PROVING, P_FIN). The log callback is called with no lock held.
 */
#include "czk.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "engine/engine_internal.h"
#include "engine/witness.h"
#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/zkey.h"
#include "groth16/backend.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#ifdef CZK_HAVE_CUDA
#include "gpu/backend.h"
#endif
#include "r1cs/r1cs.h"
#include "r1cs/synth.h"
#include "util/memclear.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/timer.h"

#define MS(ns) ((uint64_t)((ns) / 1000000ULL))
#define GIB (1024ULL * 1024 * 1024)
#define DEFAULT_TTL_MS (10ULL * 60 * 1000)
#define PRUNE_PERIOD_NS (50ULL * 1000 * 1000)
#define MAX_ATTEMPTS 2

enum circuit_state { C_COLD = 0, C_LOADING = 1, C_HOT = 2 };

typedef struct circuit {
    struct circuit *next;
    char id[CZK_ID_MAX + 1];
    int synthetic;
    unsigned k;
    char *key_path, *r1cs_path;
    int state; /* enum circuit_state */
    czk_groth16_pk pk;
    czk_r1cs cs;
    czk_groth16_pvk pvk;
    uint64_t bytes;      /* reserved from the budget while LOADING or HOT */
    uint64_t est_bytes;  /* before the first load: an estimate; after: the loaded size */
    uint64_t part_bytes; /* a partition's working set on the CPU prover; 0 until known */
    uint64_t w_bytes;    /* of which its witness (n_vars Fr) */
    uint32_t refs;       /* unfinished jobs on this circuit */
    uint64_t last_used_ns;
    int evict_pending;
    /* Bit i: the key's points are resident on devs[i]. Set under devs[i].mu by the worker
     * proving a partition of this circuit, cleared by unload_circuit (e->mu, then devs[i].mu)
     * when no job holds the circuit; atomic because the two hold different locks. */
    uint64_t resident_devs;
    uint64_t circuit_devs; /* as resident_devs, for the circuit too (whole proofs there) */
    czk_fr *template_w;    /* synthetic circuits: the witness made with the circuit (n_vars) */
} circuit;

enum part_state {
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
    int state; /* enum part_state */
    unsigned attempts;
    czk_fr *w;
    uint64_t reserved;
    czk_groth16_proof proof;
    int prove_rc;
    char err[200];
    uint64_t t_ready_ns; /* entered its current queue */
    uint64_t queue_ns, synth_ns, lock_wait_ns, kernel_ns, finish_ns, verify_ns;
    uint64_t kernel_at_ns;       /* the kernel region's start, from the engine's creation */
    const czk_backend *w_pinned; /* w came from this backend's host_alloc (NULL: czk_malloc) */
    int w_borrowed; /* w is the circuit's template witness: read only, not ours to free */
    /* w packed (groth16/witness_pack.h) in wp_be's host_alloc memory, for a device that
     * moves packs instead of witnesses; wp_be NULL: none. */
    czk_witness_pack wp;
    czk_witness_pack_mem wp_mem;
    const czk_backend *wp_be;
    const char *be_name; /* the backend of the latest attempt, for the log */
} part;

typedef struct job {
    struct job *next;
    char id[CZK_ID_MAX + 1];
    char kind[CZK_ID_MAX + 1];
    char client[64];
    circuit *c;
    int prio;
    uint64_t seq;
    size_t n_parts;
    part *parts;
    uint8_t **wtns;
    size_t *wtns_len;
    uint64_t seed;
    czk_job_status status; /* PENDING, RUNNING, then final */
    char error[256];
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
} job;

typedef struct logline {
    struct logline *next;
    int level;
    char text[512];
} logline;

/* A device: one CUDA device, or the CPU. Set at create and constant afterwards, except as
 * noted. */
typedef struct device {
    const czk_backend *be; /* guarded by e->mu (czk__engine_set_backends replaces it) */
    czk_backend *gpu_be;   /* owned: the CUDA backend; NULL for the CPU */
    int ordinal;           /* the CUDA device, -1 for the CPU */
    char name[128];
    pthread_mutex_t mu; /* the device lock */
    uint64_t vram_total, vram_budget;
    /* guarded by e->mu */
    uint64_t vram_free; /* as of creation or the latest proof */
    uint64_t vram_reserved;
    const circuit *plan_c; /* the circuit plan_need was computed for (NULL: none) */
    uint64_t plan_need;
} device;

struct czk_engine {
    czk_engine_config cfg;
    char backend_name[32];
    czk_pool *pool;
    device *devs;
    unsigned n_devs;
    const czk_backend *fallback; /* guarded by mu: a retry runs here, under *fb_lock */
    pthread_mutex_t *fb_lock;    /* &devs[0].mu on the CPU, else &cpu_mu */
    pthread_mutex_t cpu_mu;
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
    uint64_t sum_queue_ms, sum_synth_ms, sum_prove_ms, sum_verify_ms;
    char **worker_job; /* per prove worker: its current job id ("" when idle) */
    uint64_t t_create_ns;

    atomic_uint inject; /* pending injected failures; fetch-sub pairs with the store */

    pthread_t *threads;
    unsigned n_threads;
    unsigned n_workers;
};

/* ---- small helpers -------------------------------------------------------------------- */

static const char *const prio_names[CZK_PRIORITY_COUNT] = {"DEFAULT", "LOW", "NORMAL", "HIGH",
                                                           "CRITICAL"};

const char *czk_priority_name(czk_priority p) {
    return (unsigned)p < CZK_PRIORITY_COUNT ? prio_names[p] : "INVALID";
}

const char *czk_job_status_name(czk_job_status s) {
    static const char *const n[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED",
                                    "TIMEOUT", "PENDING",   "RUNNING"};
    return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "INVALID";
}

static int job_final(const job *j) {
    return j->status != CZK_JOB_PENDING && j->status != CZK_JOB_RUNNING;
}

static char *dup_str(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = czk_malloc(n);
    if (d != NULL)
        memcpy(d, s, n);
    return d;
}

/* snprintf through a va_list: messages that embed other messages are cut, by design. */
static void set_msg(char *dst, size_t n, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_msg(char *dst, size_t n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(dst, n, fmt, ap);
    va_end(ap);
}

static int valid_id(const char *s) {
    return s != NULL && s[0] != '\0' && strlen(s) <= CZK_ID_MAX;
}

/*
 * Log lines are queued (under log_mu, a leaf lock) and handed to the callback by the logger
 * thread, so that the callback never runs with an engine lock held and a slow sink never
 * stalls a worker. Lines keep the order in which they were queued.
 */
static void elog(czk_engine *e, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void elog(czk_engine *e, int level, const char *fmt, ...) {
    if (e->cfg.log == NULL || level > e->cfg.log_level)
        return;
    logline *l = czk_malloc(sizeof *l);
    if (l == NULL)
        return; /* a log line is not worth failing work for */
    l->next = NULL;
    l->level = level;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->text, sizeof l->text, fmt, ap);
    va_end(ap);
    pthread_mutex_lock(&e->log_mu);
    if (e->log_tail != NULL)
        e->log_tail->next = l;
    else
        e->log_head = l;
    e->log_tail = l;
    pthread_cond_signal(&e->log_cv);
    pthread_mutex_unlock(&e->log_mu);
}

static void *logger_main(void *arg) {
    czk_engine *e = arg;
    pthread_mutex_lock(&e->log_mu);
    for (;;) {
        while (e->log_head == NULL && !e->log_quit)
            pthread_cond_wait(&e->log_cv, &e->log_mu);
        logline *l = e->log_head;
        if (l == NULL)
            break; /* log_quit and drained */
        e->log_head = NULL;
        e->log_tail = NULL;
        pthread_mutex_unlock(&e->log_mu);
        while (l != NULL) {
            logline *next = l->next;
            e->cfg.log(e->cfg.log_arg, l->level, l->text);
            czk_free(l);
            l = next;
        }
        pthread_mutex_lock(&e->log_mu);
    }
    pthread_mutex_unlock(&e->log_mu);
    return NULL;
}

static void timespec_after(struct timespec *ts, uint64_t ns) {
    clock_gettime(CLOCK_MONOTONIC, ts);
    uint64_t t = (uint64_t)ts->tv_nsec + ns % 1000000000ULL;
    ts->tv_sec += (time_t)(ns / 1000000000ULL + t / 1000000000ULL);
    ts->tv_nsec = (long)(t % 1000000000ULL);
}

static uint64_t mem_total_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            break;
    }
    fclose(f);
    return (uint64_t)kb * 1024;
}

static uint64_t file_size(const char *path) {
    struct stat st;
    if (path == NULL || stat(path, &st) != 0)
        return 0;
    return (uint64_t)st.st_size;
}

/* ---- budget (under e->mu) -------------------------------------------------------------- */

static void unload_circuit(czk_engine *e, circuit *c) {
#ifdef CZK_HAVE_CUDA
    /* The device copies go before the host arrays they mirror. The device lock serialises
     * this with that device's proofs (lock order e->mu, then a device's mu, as in
     * vram_reserve's callers); no proof of c runs now, since c has no references. */
    for (unsigned i = 0; i < e->n_devs; i++) {
        if (!(__atomic_load_n(&c->resident_devs, __ATOMIC_ACQUIRE) & (1ull << i)))
            continue;
        pthread_mutex_lock(&e->devs[i].mu);
        czk_gpu_backend_detach_key(e->devs[i].gpu_be, &c->pk);
        __atomic_fetch_and(&c->resident_devs, ~(1ull << i), __ATOMIC_ACQ_REL);
        __atomic_fetch_and(&c->circuit_devs, ~(1ull << i), __ATOMIC_ACQ_REL);
        pthread_mutex_unlock(&e->devs[i].mu);
        elog(e, CZK_LOG_INFO, "key released circuit=%s device=cuda:%d", c->id, e->devs[i].ordinal);
    }
#endif
    if (c->template_w != NULL) {
        czk_memclear_explicit(c->template_w, c->cs.n_vars * sizeof(czk_fr));
        czk_free(c->template_w);
        c->template_w = NULL;
    }
    czk_groth16_pk_clear(&c->pk);
    czk_r1cs_clear(&c->cs);
    czk_groth16_pvk_clear(&c->pvk);
    e->reserved -= c->bytes;
    c->bytes = 0;
    c->state = C_COLD;
    c->evict_pending = 0;
    pthread_cond_broadcast(&e->synth_cv);
}

/* Evicts idle HOT keys, least recently used first, until `need` more bytes fit. */
static int reserve(czk_engine *e, uint64_t need) {
    while (e->budget - e->reserved < need) {
        circuit *lru = NULL;
        for (circuit *c = e->circuits; c != NULL; c = c->next) {
            if (c->state == C_HOT && c->refs == 0 &&
                (lru == NULL || c->last_used_ns < lru->last_used_ns))
                lru = c;
        }
        if (lru == NULL)
            return 0;
        elog(e, CZK_LOG_INFO, "evict circuit=%s bytes=%" PRIu64 " reason=memory-pressure", lru->id,
             lru->bytes);
        unload_circuit(e, lru);
    }
    e->reserved += need;
    return 1;
}

static void unreserve(czk_engine *e, uint64_t bytes) {
    e->reserved -= bytes;
    pthread_cond_broadcast(&e->synth_cv);
}

/* ---- circuits -------------------------------------------------------------------------- */

static circuit *find_circuit(czk_engine *e, const char *id) {
    for (circuit *c = e->circuits; c != NULL; c = c->next) {
        if (strcmp(c->id, id) == 0)
            return c;
    }
    return NULL;
}

static uint64_t pk_bytes(const czk_groth16_pk *pk) {
    return (uint64_t)(pk->n_h + pk->n_l + pk->n_a + pk->n_b_g1 + 2 * pk->vk.n_ic) *
               sizeof(czk_g1_affine) +
           (uint64_t)pk->n_b_g2 * sizeof(czk_g2_affine);
}

static uint64_t part_bytes_for(uint64_t n, uint64_t n_vars) {
    uint64_t mx = n > n_vars ? n : n_vars;
    return (n_vars + 3 * n + 2 * mx) * sizeof(czk_fr);
}

/* Sizes of a synthetic circuit before it is built. */
static void synthetic_estimate(circuit *c) {
    czk_synth_shape sh;
    if (czk_synth_porep_shape(&sh, c->k, NULL) != CZK_OK)
        return;
    uint64_t n = 1ULL << c->k;
    c->est_bytes = (n + 3 * (uint64_t)sh.n_vars + 2 * (sh.n_public + 1)) * sizeof(czk_g1_affine) +
                   (uint64_t)sh.n_vars * sizeof(czk_g2_affine) + sh.matrix_bytes;
    c->part_bytes = part_bytes_for(n, sh.n_vars);
    c->w_bytes = (uint64_t)sh.n_vars * sizeof(czk_fr);
}

/* Loads c outside the lock. Called with e->mu held and c->state == C_LOADING, the estimate
 * reserved in c->bytes; returns with e->mu held. */
static int load_circuit_unlocked(czk_engine *e, circuit *c, czk_err *err) {
    int rc = CZK_OK;
    czk_groth16_pk pk;
    czk_r1cs cs;
    czk_groth16_pvk pvk;
    memset(&pk, 0, sizeof pk);
    memset(&cs, 0, sizeof cs);
    memset(&pvk, 0, sizeof pvk);
    int synthetic = c->synthetic;
    unsigned k = c->k;
    const char *key_path = c->key_path, *r1cs_path = c->r1cs_path;
    uint64_t seed = 0x637a6b2d636972ULL; /* fixed: a synthetic circuit's shape never changes */
    for (const char *p = c->id; *p; p++)
        seed = seed * 1099511628211ULL ^ (uint8_t)*p;
    pthread_mutex_unlock(&e->mu);

    czk_fr *template_w = NULL;
    if (synthetic) {
        /* The witness made with the circuit is kept: jobs with synth_seed 0 copy it instead
         * of solving one (czk.h). */
        rc = czk_synth_porep_shaped(&cs, &template_w, k, seed, e->pool, err);
        if (rc == CZK_OK) {
            czk_rng rng;
            czk_rng_seed(&rng, seed ^ 0x5eed);
            rc = czk_groth16_setup_dev(&pk, &cs, CZK_H_MONOMIAL, &rng, e->pool, err);
        }
    } else {
        uint8_t magic[4] = {0};
        FILE *f = fopen(key_path, "rb");
        if (f == NULL) {
            rc = czk_err_set(err, CZK_EIO, "%s: cannot open: %s", key_path, strerror(errno));
            goto loaded;
        }
        size_t got = fread(magic, 1, 4, f);
        fclose(f);
        if (got == 4 && memcmp(magic, "zkey", 4) == 0) {
            rc = czk_zkey_read_pool(&pk, &cs, key_path, e->pool, err);
        } else {
            if (r1cs_path == NULL) {
                rc = czk_err_set(err, CZK_EINVAL, "%s: a .params key needs an R1CS file", key_path);
                goto loaded;
            }
            rc = czk_bellperson_params_read(&pk, key_path, CZK_KEY_CHECK_CURVE, e->pool, err);
            if (rc != CZK_OK)
                goto loaded;
            rc = czk_formats_r1cs_read(&cs, r1cs_path, e->pool, err);
        }
        if (rc == CZK_OK && (cs.n_vars != pk.n_vars || cs.n_public != pk.n_public ||
                             cs.n_constraints + cs.n_public + 1 > pk.domain_size))
            rc = czk_err_set(err, CZK_EINVAL,
                             "circuit %s: the R1CS (%zu vars, %zu public) does not match the key "
                             "(%zu vars, %zu public, domain %zu)",
                             c->id, cs.n_vars, cs.n_public, pk.n_vars, pk.n_public, pk.domain_size);
    }
loaded:
    if (rc == CZK_OK)
        rc = czk_groth16_pvk_prepare(&pvk, &pk.vk, err);

    pthread_mutex_lock(&e->mu);
    if (rc != CZK_OK) {
        if (template_w != NULL) {
            czk_memclear_explicit(template_w, cs.n_vars * sizeof(czk_fr));
            czk_free(template_w);
        }
        czk_groth16_pk_clear(&pk);
        czk_r1cs_clear(&cs);
        czk_groth16_pvk_clear(&pvk);
        unreserve(e, c->bytes);
        c->bytes = 0;
        c->state = C_COLD;
        pthread_cond_broadcast(&e->synth_cv);
        return rc;
    }
    c->pk = pk;
    c->cs = cs;
    c->pvk = pvk;
    c->template_w = template_w;
    uint64_t actual =
        pk_bytes(&pk) + czk_r1cs_bytes(&cs) + (template_w != NULL ? cs.n_vars * sizeof(czk_fr) : 0);
#ifdef CZK_HAVE_CUDA
    /* What each device's backend allocates on the host when it attaches the key: coded
     * coefficients (1.7 GB at 2^27), kept while a key too large for the device streams. */
    if (e->n_devs > 0 && e->devs[0].gpu_be != NULL)
        actual += (uint64_t)e->n_devs * czk_gpu_attach_host_bytes(&cs);
#endif
    e->reserved = e->reserved - c->bytes + actual;
    c->bytes = actual;
    c->est_bytes = actual;
    c->part_bytes = part_bytes_for(pk.domain_size, pk.n_vars);
    c->w_bytes = (uint64_t)pk.n_vars * sizeof(czk_fr);
    c->state = C_HOT;
    c->last_used_ns = czk_time_ns();
    pthread_cond_broadcast(&e->synth_cv);
    return CZK_OK;
}

/* With e->mu held: makes c HOT, waiting for a load in progress. Returns CZK_OK, CZK_ENOMEM
 * (the key cannot fit now even after evicting idle keys) or the loader's error. */
static int ensure_loaded(czk_engine *e, circuit *c, uint64_t *load_ms, czk_err *err) {
    while (c->state == C_LOADING)
        pthread_cond_wait(&e->synth_cv, &e->mu);
    if (c->state == C_HOT)
        return CZK_OK;
    uint64_t est = c->est_bytes;
    if (est > e->budget || !reserve(e, est))
        return czk_err_set(err, CZK_ENOMEM,
                           "circuit %s: key of about %" PRIu64 " bytes does not fit the host "
                           "budget (%" PRIu64 " of %" PRIu64 " bytes reserved)",
                           c->id, est, e->reserved, e->budget);
    c->bytes = est;
    c->state = C_LOADING;
    uint64_t t0 = czk_time_ns();
    int rc = load_circuit_unlocked(e, c, err);
    if (load_ms != NULL)
        *load_ms = MS(czk_time_ns() - t0);
    if (rc == CZK_OK)
        elog(e, CZK_LOG_INFO, "load circuit=%s bytes=%" PRIu64 " ms=%" PRIu64, c->id, c->bytes,
             MS(czk_time_ns() - t0));
    return rc;
}

/* ---- jobs (under e->mu) ---------------------------------------------------------------- */

static job *find_job(czk_engine *e, const char *id) {
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (strcmp(j->id, id) == 0)
            return j;
    }
    return NULL;
}

/* Frees p's witness pack, cleared first (it is witness data). */
static void pack_free(part *p) {
    if (p->wp_be != NULL)
        czk_witness_pack_release(&p->wp_mem, p->wp_be->host_free, p->wp_be->ctx);
    p->wp_be = NULL;
    memset(&p->wp, 0, sizeof(p->wp));
}

static void part_drop(czk_engine *e, part *p) {
    pack_free(p);
    if (p->w_borrowed) {
        p->w = NULL;
        p->w_borrowed = 0;
    }
    if (p->w != NULL) {
        size_t bytes = p->job->c->cs.n_vars * sizeof(czk_fr);
        czk_memclear_explicit(p->w, bytes);
        if (p->w_pinned != NULL)
            p->w_pinned->host_free(p->w_pinned->ctx, p->w, bytes);
        else
            czk_free(p->w);
        p->w = NULL;
        p->w_pinned = NULL;
    }
    if (p->reserved) {
        e->part_reserved -= p->reserved;
        unreserve(e, p->reserved);
        p->reserved = 0;
    }
    p->state = P_DONE;
}

static void job_release_circuit(czk_engine *e, job *j) {
    if (!j->holds_ref)
        return;
    circuit *c = j->c;
    j->holds_ref = 0;
    c->refs--;
    c->last_used_ns = czk_time_ns();
    if (c->refs == 0 && c->evict_pending && c->state == C_HOT)
        unload_circuit(e, c);
}

/* Sets a final status, drops every partition no thread is working on, wakes waiters. */
static void job_finish(czk_engine *e, job *j, czk_job_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void job_finish(czk_engine *e, job *j, czk_job_status st, const char *fmt, ...) {
    if (job_final(j))
        return;
    j->status = st;
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->error, sizeof j->error, fmt, ap);
        va_end(ap);
    }
    j->t_done_ns = czk_time_ns();
    for (size_t i = 0; i < j->n_parts; i++) {
        part *p = &j->parts[i];
        if (p->state == P_QUEUED_SYNTH || p->state == P_QUEUED_PROVE || p->state == P_QUEUED_FIN ||
            p->state == P_DONE)
            part_drop(e, p);
    }
    if (j->inflight == 0)
        job_release_circuit(e, j);
    e->n_unfinished--;
    if (st == CZK_JOB_COMPLETED)
        e->n_completed++;
    else if (st == CZK_JOB_FAILED)
        e->n_failed++;
    else
        e->n_cancelled++;
    uint64_t total = j->t_done_ns - j->t_submit_ns;
    uint64_t work = j->synth_ns + j->prove_ns + j->verify_ns;
    elog(e, st == CZK_JOB_FAILED ? CZK_LOG_WARN : CZK_LOG_INFO,
         "job id=%s status=%s circuit=%s prio=%s client=%s parts=%zu total_us=%" PRIu64
         " synth_us=%" PRIu64 " prove_us=%" PRIu64 " verify_us=%" PRIu64 " overhead_us=%" PRIu64
         "%s%s",
         j->id, czk_job_status_name(st), j->c->id, prio_names[j->prio], j->client, j->n_parts,
         total / 1000, j->synth_ns / 1000, j->prove_ns / 1000, j->verify_ns / 1000,
         total > work ? (total - work) / 1000 : 0, j->error[0] ? " error=" : "", j->error);
    pthread_cond_broadcast(&e->done_cv);
}

/* A thread returns a partition it worked on outside the lock; if the job ended meanwhile
 * the partition is discarded. Returns 1 when the job is still live. */
static int part_return(czk_engine *e, part *p) {
    job *j = p->job;
    j->inflight--;
    if (!job_final(j))
        return 1;
    part_drop(e, p);
    if (j->inflight == 0)
        job_release_circuit(e, j);
    pthread_cond_broadcast(&e->done_cv);
    return 0;
}

static void job_free(job *j) {
    for (size_t i = 0; i < j->n_parts; i++) {
        if (j->wtns != NULL && j->wtns[i] != NULL) {
            czk_memclear_explicit(j->wtns[i], j->wtns_len[i]);
            czk_free(j->wtns[i]);
        }
    }
    czk_free(j->wtns);
    czk_free(j->wtns_len);
    czk_free(j->parts);
    czk_free(j->proof);
    czk_free(j->pub);
    czk_free(j);
}

static void prune(czk_engine *e) {
    uint64_t now = czk_time_ns();
    uint64_t ttl = e->cfg.result_ttl_ms * 1000000ULL;
    job **pp = &e->jobs;
    job *prev = NULL;
    while (*pp != NULL) {
        job *j = *pp;
        if (job_final(j) && j->inflight == 0 && j->waiters == 0 && now - j->t_done_ns >= ttl) {
            *pp = j->next;
            if (e->jobs_tail == j)
                e->jobs_tail = prev;
            job_free(j);
            continue;
        }
        prev = j;
        pp = &j->next;
    }
}

/* The best partition in `state`: highest priority, then oldest job, then lowest index.
 * With `skip_loading`, partitions whose circuit is being loaded are passed over. */
static part *pick(czk_engine *e, int state, int skip_loading) {
    part *best = NULL;
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (job_final(j) || (best != NULL && j->prio <= best->job->prio))
            continue;
        if (skip_loading && j->c->state == C_LOADING)
            continue;
        for (size_t i = 0; i < j->n_parts; i++) {
            if (j->parts[i].state == state) {
                best = &j->parts[i];
                break;
            }
        }
    }
    return best;
}

/* ---- synthesis ------------------------------------------------------------------------- */

/* A pinned buffer for p's witness from a device's backend (host_alloc) on a GPU engine, or
 * NULL (CPU engine, or the pinned budget is spent). Sets p->w_pinned when it gives one. */
static czk_fr *pinned_witness(czk_engine *e, part *p, size_t bytes) {
    if (e->n_devs == 0 || e->devs[0].gpu_be == NULL)
        return NULL;
    const czk_backend *be = e->devs[p->idx % e->n_devs].gpu_be;
    if (be->host_alloc == NULL || be->host_free == NULL)
        return NULL;
    czk_fr *pw = be->host_alloc(be->ctx, bytes);
    if (pw != NULL)
        p->w_pinned = be;
    return pw;
}

/* The backend of p's device when it moves witness packs (CZK_BACKEND_WITNESS_PACK) and has
 * pinned buffers to hold them; NULL otherwise. */
static const czk_backend *pack_backend(const czk_engine *e, const part *p) {
    if (e->n_devs == 0 || e->devs[p->idx % e->n_devs].be == NULL)
        return NULL;
    const czk_backend *be = e->devs[p->idx % e->n_devs].be;
    if (!(be->flags & CZK_BACKEND_WITNESS_PACK) || be->host_alloc == NULL || be->host_free == NULL)
        return NULL;
    return be;
}

/*
 * Packs p's witness into pinned buffers when its device moves packs and the pack is at most
 * a quarter of the witness (a bit-heavy circuit: a PoRep partition's is ~1/30). Returns
 * whether it did; otherwise nothing is kept.
 */
static int stage_pack(czk_engine *e, part *p) {
    const czk_backend *be = pack_backend(e, p);
    const size_t n = p->job->c->cs.n_vars;
    if (be == NULL || n == 0 ||
        czk_witness_pack_build(&p->wp, &p->wp_mem, p->w, n, n * sizeof(czk_fr) / 4, be->host_alloc,
                               be->host_free, be->ctx) != CZK_OK)
        return 0;
    p->wp_be = be;
    return 1;
}

/*
 * On a GPU engine, readies p's witness for the device outside every lock (the synthesis
 * thread does it): packed (stage_pack) when the device moves packs, the witness itself left
 * where it is for any CPU attempt; or else moved into a pinned buffer (pinned_witness), so
 * that the upload inside the kernel region runs at the bus's speed. Keeps the pageable
 * witness when the backends' pinned budget is spent, and does nothing more when synthesis
 * wrote it pinned already. Called without e->mu; the device table is constant.
 */
static void stage_pinned(czk_engine *e, part *p) {
    if (p->w == NULL || stage_pack(e, p) || p->w_pinned != NULL)
        return;
    size_t bytes = p->job->c->cs.n_vars * sizeof(czk_fr);
    czk_fr *pw = pinned_witness(e, p, bytes);
    if (pw == NULL)
        return;
    memcpy(pw, p->w, bytes);
    if (!p->w_borrowed) {
        czk_memclear_explicit(p->w, bytes);
        czk_free(p->w);
    }
    p->w = pw;
    p->w_borrowed = 0;
}

static int synthesize(czk_engine *e, part *p, czk_err *err) {
    job *j = p->job;
    circuit *c = j->c;
    if (c->synthetic && j->seed == 0 && c->template_w != NULL) {
        /* The circuit's own witness (czk.h: synth_seed 0), copied: synthesis at memory
         * speed, for runs that measure the proving pipeline rather than the solver. A device
         * that takes packs gets one made from the template itself (stage_pinned), which any
         * CPU attempt then reads in place: no copy at all (at 2^26, eight threads copying
         * 2.1 GB witnesses into fresh pages could not feed two H200s, run 38). */
        size_t bytes = c->cs.n_vars * sizeof(czk_fr);
        if (pack_backend(e, p) != NULL) {
            p->w = c->template_w;
            p->w_borrowed = 1;
            return CZK_OK;
        }
        p->w = pinned_witness(e, p, bytes); /* straight to pinned memory when there is some */
        if (p->w == NULL)
            p->w = czk_malloc(bytes);
        if (p->w == NULL)
            return czk_err_set(err, CZK_ENOMEM, "partition %u witness (%zu bytes)", p->idx, bytes);
        memcpy(p->w, c->template_w, bytes);
        return CZK_OK;
    }
    if (c->synthetic)
        return czk__witness_solve(&p->w, &c->cs,
                                  j->seed ^ ((uint64_t)(p->idx + 1) * 0x9E3779B97F4A7C15ULL), err);
    char name[64];
    snprintf(name, sizeof name, "partition %u witness", p->idx);
    return czk__wtns_parse(&p->w, j->wtns[p->idx], j->wtns_len[p->idx], c->cs.n_vars, name, err);
}

/*
 * Lean reservations (under e->mu). When a device's backend can prove a whole partition from
 * the witness alone (prove_sums: a GPU with the key and circuit resident), an in-flight
 * partition holds only its witness; the CPU prover's scratch (a, b, c and the gathered
 * scalars, 5·32·n bytes at most) is reserved by a worker just before a proof that may need
 * it (a CPU retry, or a device where the circuit is not resident) and released after. So
 * that such a worker can always get it, synthesis admits a partition only while the budget
 * keeps one scratch free per prover lock (each device's and the CPU fallback's) beside it.
 * Without such a backend, the partition reserves witness and scratch at synthesis, as the
 * CPU engine always does.
 */
static int engine_lean(const czk_engine *e) {
    for (unsigned i = 0; i < e->n_devs; i++)
        if (e->devs[i].be != NULL && e->devs[i].be->prove_sums != NULL)
            return 1;
    return 0;
}

/* Bytes a partition of c reserves from synthesis until it is finished. */
static uint64_t part_need(const czk_engine *e, const circuit *c) {
    return engine_lean(e) ? c->w_bytes : c->part_bytes;
}

/* Bytes synthesis must leave free for the workers' scratch (see engine_lean). */
static uint64_t scratch_headroom(const czk_engine *e) {
    uint64_t mx = 0;
    if (!engine_lean(e))
        return 0;
    for (const circuit *c = e->circuits; c != NULL; c = c->next)
        if ((c->state == C_HOT || c->state == C_LOADING) && c->part_bytes - c->w_bytes > mx)
            mx = c->part_bytes - c->w_bytes;
    return mx * (e->n_devs + 1);
}

/* The least budget beside the key that one partition of c can ever run in. */
static uint64_t part_floor(const czk_engine *e, const circuit *c) {
    return engine_lean(e) ? c->w_bytes + (c->part_bytes - c->w_bytes) * (e->n_devs + 1)
                          : c->part_bytes;
}

/* Starts synthesis of p if its working set can be reserved: 1 started (e->mu is then
 * released and re-taken around the work), 0 no memory now. */
static int synth_try(czk_engine *e, part *p) {
    job *j = p->job;
    circuit *c = j->c;
    uint64_t need = part_need(e, c), room = scratch_headroom(e);
    /* Evict idle keys until need and the headroom fit; keep only need reserved. */
    if (!reserve(e, need + room))
        return 0;
    unreserve(e, room);
    p->reserved = need;
    e->part_reserved += p->reserved;
    p->state = P_SYNTH;
    j->inflight++;
    uint64_t t0 = czk_time_ns();
    p->queue_ns = t0 - p->t_ready_ns;
    if (j->status == CZK_JOB_PENDING) {
        j->status = CZK_JOB_RUNNING;
        j->t_start_ns = t0;
    }
    pthread_mutex_unlock(&e->mu);

    czk_err err = {0, ""};
    int rc = synthesize(e, p, &err);
    if (rc == CZK_OK)
        stage_pinned(e, p);
    uint64_t t1 = czk_time_ns();

    pthread_mutex_lock(&e->mu);
    p->synth_ns = t1 - t0;
    j->synth_ns += p->synth_ns;
    if (!part_return(e, p))
        return 1;
    if (rc != CZK_OK) {
        e->n_parts_failed++;
        job_finish(e, j, CZK_JOB_FAILED, "partition %u: synthesis failed: %s", p->idx, err.msg);
        return 1;
    }
    p->state = P_QUEUED_PROVE;
    p->t_ready_ns = t1;
    pthread_cond_signal(&e->prove_cv);
    return 1;
}

/* Nothing in flight will release memory: the best queued partition of a loaded circuit that
 * fits now, or NULL. */
static part *pick_fitting(czk_engine *e) {
    part *best = NULL;
    const uint64_t room = scratch_headroom(e); /* the same for every job: a walk of circuits */
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (job_final(j) || j->c->state != C_HOT ||
            e->budget - e->reserved < part_need(e, j->c) + room ||
            (best != NULL && j->prio <= best->job->prio))
            continue;
        for (size_t i = 0; i < j->n_parts; i++) {
            if (j->parts[i].state == P_QUEUED_SYNTH) {
                best = &j->parts[i];
                break;
            }
        }
    }
    return best;
}

static int any_loading(czk_engine *e) {
    for (circuit *c = e->circuits; c != NULL; c = c->next) {
        if (c->state == C_LOADING)
            return 1;
    }
    return 0;
}

/*
 * The best partition cannot get memory. Normally it waits (head of line: lower-priority
 * partitions do not take the memory it waits for). When nothing in flight will release any
 * (no partition holds a reservation, no key is loading), the memory is held by keys that
 * queued jobs pin; a partition of such a key that fits runs instead, and if there is none
 * the job cannot run at all and fails rather than hang.
 */
static void synth_starved(czk_engine *e, part *p, const char *what) {
    if (e->part_reserved > 0 || any_loading(e)) {
        pthread_cond_wait(&e->synth_cv, &e->mu);
        return;
    }
    part *alt = pick_fitting(e);
    if (alt != NULL && synth_try(e, alt))
        return;
    job_finish(e, p->job, CZK_JOB_FAILED,
               "%s: %" PRIu64 " of the %" PRIu64 " budget bytes are held by keys of other "
               "queued jobs and nothing else can run",
               what, e->reserved, e->budget);
}

static void *synth_main(void *arg) {
    czk_engine *e = arg;
    pthread_mutex_lock(&e->mu);
    while (!e->quit) {
        part *p = pick(e, P_QUEUED_SYNTH, 1);
        if (p == NULL) {
            pthread_cond_wait(&e->synth_cv, &e->mu);
            continue;
        }
        job *j = p->job;
        circuit *c = j->c;
        if (c->state != C_HOT) {
            czk_err err = {0, ""};
            uint64_t t0 = czk_time_ns();
            int rc = ensure_loaded(e, c, NULL, &err);
            uint64_t ms = MS(czk_time_ns() - t0);
            if (rc == CZK_ENOMEM && c->est_bytes <= e->budget) {
                synth_starved(e, p, err.msg);
                continue;
            }
            if (rc != CZK_OK) {
                for (job *o = e->jobs; o != NULL; o = o->next) {
                    if (o->c == c && !job_final(o))
                        job_finish(e, o, CZK_JOB_FAILED, "loading circuit %s: %s", c->id, err.msg);
                }
                continue;
            }
            for (job *o = e->jobs; o != NULL; o = o->next) {
                if (o->c == c && !job_final(o) && o->status == CZK_JOB_PENDING)
                    o->srs_load_ms += ms;
            }
            continue; /* re-pick: the queue may have changed while loading */
        }
        if (c->bytes + part_floor(e, c) > e->budget) {
            job_finish(e, j, CZK_JOB_FAILED,
                       "circuit %s: one partition needs %" PRIu64
                       " bytes besides the key's %" PRIu64
                       ", more than the host budget of %" PRIu64,
                       c->id, part_floor(e, c), c->bytes, e->budget);
            continue;
        }
        if (!synth_try(e, p)) {
            char what[200];
            snprintf(what, sizeof what, "partition %u of circuit %s needs %" PRIu64 " bytes",
                     p->idx, c->id, part_need(e, c));
            synth_starved(e, p, what);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- proving --------------------------------------------------------------------------- */

typedef struct worker_arg {
    czk_engine *e;
    unsigned index;
    unsigned dev;
} worker_arg;

/* A uniform secret scalar: 255 bits from the OS, rejected until below r (about half are). */
static int random_fr(czk_fr *out) {
    uint8_t b[CZK_FR_BYTES];
    int rc;
    do {
        rc = czk_rng_os(b, sizeof b);
        if (rc != CZK_OK)
            break;
        b[CZK_FR_BYTES - 1] &= 0x7f;
    } while (czk_fr_from_bytes_le(out, b) != CZK_OK);
    czk_memclear_explicit(b, sizeof b);
    return rc;
}

#ifdef CZK_HAVE_CUDA
/*
 * The device bytes a partition of c needs on d: the arena plus the tables of the plan that
 * czk_gpu_plan_make makes for c's domain and largest MSM within d's budget (the backend's
 * arena follows the same plan). The planner reads the context, so it runs under the device
 * lock; the result is cached per device for the last circuit planned. Called with no lock
 * held; the job holds a reference on c. Returns CZK_OK, or CZK_ENOMEM when even the
 * smallest plan exceeds the budget: the partition can never fit this device.
 */
static int vram_need(czk_engine *e, device *d, const circuit *c, uint64_t *need, czk_err *err) {
    pthread_mutex_lock(&e->mu);
    int hit = d->plan_c == c;
    *need = d->plan_need;
    pthread_mutex_unlock(&e->mu);
    if (hit)
        return CZK_OK;
    const czk_groth16_pk *pk = &c->pk;
    unsigned lg = 0;
    while (lg < 63 && ((size_t)1 << lg) < pk->domain_size)
        lg++;
    size_t pts = pk->n_h;
    pts = pk->n_l > pts ? pk->n_l : pts;
    pts = pk->n_a > pts ? pk->n_a : pts;
    pts = pk->n_b_g1 > pts ? pk->n_b_g1 : pts;
    czk_gpu_plan plan;
    czk_err perr = {0, ""};
    pthread_mutex_lock(&d->mu);
    int rc = czk_gpu_plan_make(czk_gpu_backend_context(d->gpu_be), &plan, d->vram_budget, lg, pts,
                               &perr);
    pthread_mutex_unlock(&d->mu);
    if (rc != CZK_OK)
        return czk_err_set(err, rc,
                           "circuit %s cannot be planned within the %" PRIu64
                           " byte VRAM budget of cuda:%d: %s",
                           c->id, d->vram_budget, d->ordinal, perr.msg);
    *need = (uint64_t)plan.arena_bytes + plan.tables_bytes;
    pthread_mutex_lock(&e->mu);
    d->plan_c = c;
    d->plan_need = *need;
    pthread_mutex_unlock(&e->mu);
    return CZK_OK;
}

/* Reserves a partition's working set from d's VRAM budget, waiting while other partitions
 * hold it (each releases after its kernel region, so the wait ends). Out: *got, the bytes
 * reserved (0 on failure). Called with no lock held. */
static int vram_reserve(czk_engine *e, device *d, const circuit *c, uint64_t *got, czk_err *err) {
    uint64_t need = 0;
    *got = 0;
    int rc = vram_need(e, d, c, &need, err);
    if (rc != CZK_OK)
        return rc;
    if (need > d->vram_budget)
        return czk_err_set(err, CZK_ENOMEM,
                           "a partition of circuit %s needs %" PRIu64
                           " device bytes, more than the %" PRIu64 " byte VRAM budget of cuda:%d",
                           c->id, need, d->vram_budget, d->ordinal);
    pthread_mutex_lock(&e->mu);
    while (d->vram_reserved + need > d->vram_budget)
        pthread_cond_wait(&e->vram_cv, &e->mu);
    d->vram_reserved += need;
    pthread_mutex_unlock(&e->mu);
    *got = need;
    return CZK_OK;
}
#endif

#ifdef CZK_HAVE_CUDA
/*
 * Keeps c's proving key resident on device d (index di) for this and later partitions, when
 * it fits beside the partition's working set (czk_gpu_backend_attach_key); otherwise its
 * MSMs stream the points. Called with d's lock held; takes no engine lock (the order is
 * e->mu before a device's, see unload_circuit), and c cannot be unloaded meanwhile: the
 * partition's job holds a reference. The device bytes
 * are the backend's own (its budget covers arena and keys); the engine only records where
 * the key is, so that unloading it frees the device copies first.
 */
static void key_attach(czk_engine *e, device *d, unsigned di, circuit *c) {
    if ((__atomic_load_n(&c->resident_devs, __ATOMIC_ACQUIRE) >> di) & 1)
        return;
    czk_err kerr = {0, ""};
    int resident = 0;
    uint64_t t0 = czk_time_ns();
    int rc = czk_gpu_backend_attach_key(d->gpu_be, &c->pk, &c->cs, &resident, &kerr);
    if (rc != CZK_OK) {
        elog(e, CZK_LOG_WARN, "key not resident circuit=%s device=cuda:%d: %s", c->id, d->ordinal,
             kerr.msg);
        return;
    }
    if (!resident)
        return; /* asked again next time: memory may have been freed by then */
    /* 3: too large for the device, attached to stream (page-locked on the host) with whole
     * proofs from the witness; detached like a resident key. */
    __atomic_fetch_or(&c->resident_devs, 1ull << di, __ATOMIC_ACQ_REL);
    if (resident == 2 || resident == 3)
        __atomic_fetch_or(&c->circuit_devs, 1ull << di, __ATOMIC_ACQ_REL);
    elog(e, CZK_LOG_INFO, "key %s circuit=%s device=cuda:%d device_bytes=%zu upload_ms=%.1f",
         resident == 3 ? "streamed" : "resident", c->id, d->ordinal,
         czk_gpu_backend_resident_bytes(d->gpu_be), (double)(czk_time_ns() - t0) / 1e6);
}
#endif

/*
 * In lean mode (engine_lean), reserves the CPU prover's scratch for p before a proof that may
 * need it: on a backend without prove_sums, a retry, or a device where p's circuit is not
 * resident with its matrices. Waits for memory (synthesis leaves room for it); counts it in
 * p->reserved so that a dropped partition releases it. Out: *got, the bytes reserved (0: not
 * needed). Returns CZK_OK or CZK_ECANCELED (the engine is stopping). Takes e->mu.
 */
static int scratch_reserve(czk_engine *e, part *p, unsigned di, int on_fallback,
                           const czk_backend *be, uint64_t *got, czk_err *err) {
    const circuit *c = p->job->c;
    int rc = CZK_OK;
    *got = 0;
    pthread_mutex_lock(&e->mu);
    uint64_t need = c->part_bytes - c->w_bytes;
    int whole = !on_fallback && be->prove_sums != NULL &&
                ((__atomic_load_n(&c->circuit_devs, __ATOMIC_ACQUIRE) >> di) & 1);
    if (engine_lean(e) && !whole && need > 0) {
        while (!e->quit && !reserve(e, need))
            pthread_cond_wait(&e->synth_cv, &e->mu);
        if (e->quit) {
            rc = czk_err_set(err, CZK_ECANCELED,
                             "engine stopping while partition %u waited "
                             "for %" PRIu64 " bytes of prover scratch",
                             p->idx, need);
        } else {
            p->reserved += need;
            e->part_reserved += need;
            *got = need;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

static void *worker_main(void *arg) {
    worker_arg *wa = arg;
    czk_engine *e = wa->e;
    unsigned me = wa->index;
    device *d = &e->devs[wa->dev];
    const unsigned wa_dev = wa->dev;
    (void)wa_dev; /* read only by the CUDA build */
    czk_free(wa);
    pthread_mutex_lock(&e->mu);
    while (!e->quit) {
        part *p = pick(e, P_QUEUED_PROVE, 0);
        if (p == NULL) {
            pthread_cond_wait(&e->prove_cv, &e->mu);
            continue;
        }
        job *j = p->job;
        circuit *c = j->c;
        /* The first attempt runs on this worker's device, the retry on the fallback. */
        int on_fallback = p->attempts > 0;
        const czk_backend *be = on_fallback ? e->fallback : d->be;
        pthread_mutex_t *lock = on_fallback ? e->fb_lock : &d->mu;
        int on_gpu = !on_fallback && d->gpu_be != NULL && be == d->gpu_be;
        (void)on_gpu; /* read only by the CUDA build */
        p->be_name = be->name;
        p->state = P_PROVING;
        p->attempts++;
        j->inflight++;
        snprintf(e->worker_job[me], CZK_ID_MAX + 1, "%s", j->id);
        uint64_t t0 = czk_time_ns();
        pthread_mutex_unlock(&e->mu);

        czk_err err = {0, ""};
        int rc = CZK_OK;
        unsigned pending = atomic_load_explicit(&e->inject, memory_order_relaxed);
        int injected = 0;
        while (pending > 0) {
            /* Pairs with the store in czk_engine_inject_failures. */
            if (atomic_compare_exchange_weak_explicit(&e->inject, &pending, pending - 1,
                                                      memory_order_acq_rel, memory_order_relaxed)) {
                injected = 1;
                break;
            }
        }
        uint64_t t1 = t0, t2 = t0;
        uint64_t vram = 0;
        size_t vram_free = 0;
        int sampled = 0;
        if (injected)
            rc = czk_err_set(&err, CZK_ENOMEM, "injected allocation failure of prover scratch");
        uint64_t scratch = 0;
        if (rc == CZK_OK)
            rc = scratch_reserve(e, p, wa_dev, on_fallback, be, &scratch, &err);
#ifdef CZK_HAVE_CUDA
        if (rc == CZK_OK && on_gpu)
            rc = vram_reserve(e, d, c, &vram, &err);
#endif
        if (rc == CZK_OK) {
            czk_fr r, s;
            rc = random_fr(&r);
            if (rc == CZK_OK)
                rc = random_fr(&s);
            if (rc != CZK_OK) {
                czk_err_set(&err, rc, "cannot draw blinding scalars");
            } else {
                pthread_mutex_lock(lock);
#ifdef CZK_HAVE_CUDA
                if (on_gpu)
                    key_attach(e, d, wa_dev, c);
#endif
                t1 = czk_time_ns();
                rc = czk_groth16_prove_packed(&p->proof, &c->pk, &c->cs, p->w,
                                              p->wp_be != NULL ? &p->wp : NULL, &r, &s, be, e->pool,
                                              NULL, &err);
                t2 = czk_time_ns();
#ifdef CZK_HAVE_CUDA
                size_t total = 0;
                if (on_gpu && czk_gpu_mem_info(czk_gpu_backend_context(d->gpu_be), &vram_free,
                                               &total, NULL) == CZK_OK)
                    sampled = 1;
#endif
                pthread_mutex_unlock(lock);
            }
            czk_memclear_explicit(&r, sizeof r);
            czk_memclear_explicit(&s, sizeof s);
        }
        uint64_t t3 = czk_time_ns();

        pthread_mutex_lock(&e->mu);
        if (scratch > 0) {
            p->reserved -= scratch;
            e->part_reserved -= scratch;
            unreserve(e, scratch);
        }
        if (vram > 0) {
            d->vram_reserved -= vram;
            pthread_cond_broadcast(&e->vram_cv);
        }
        if (sampled)
            d->vram_free = vram_free;
        e->worker_job[me][0] = '\0';
        p->queue_ns += t0 - p->t_ready_ns;
        p->lock_wait_ns = t1 - t0;
        p->kernel_ns = t2 - t1;
        p->kernel_at_ns = t1 - e->t_create_ns;
        j->prove_ns += t2 - t1;
        p->prove_rc = rc;
        set_msg(p->err, sizeof p->err, "%s", rc == CZK_OK ? "" : err.msg);
        if (!part_return(e, p))
            continue;
        p->state = P_QUEUED_FIN;
        p->t_ready_ns = t3;
        pthread_cond_signal(&e->fin_cv);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- finalizing ------------------------------------------------------------------------ */

static void *fin_main(void *arg) {
    czk_engine *e = arg;
    uint64_t last_prune = 0;
    pthread_mutex_lock(&e->mu);
    while (!e->quit) {
        uint64_t now = czk_time_ns();
        if (now - last_prune >= PRUNE_PERIOD_NS) {
            prune(e);
            last_prune = now;
        }
        part *p = pick(e, P_QUEUED_FIN, 0);
        if (p == NULL) {
            struct timespec ts;
            timespec_after(&ts, PRUNE_PERIOD_NS);
            pthread_cond_timedwait(&e->fin_cv, &e->mu, &ts);
            continue;
        }
        job *j = p->job;
        circuit *c = j->c;
        p->state = P_FIN;
        j->inflight++;
        uint64_t t0 = czk_time_ns();
        p->queue_ns += t0 - p->t_ready_ns;
        pthread_mutex_unlock(&e->mu);

        int rc = p->prove_rc;
        czk_err err = {0, ""};
        uint8_t enc[CZK_PROOF_BYTES];
        uint64_t tv0 = czk_time_ns();
        if (rc == CZK_OK) {
            rc = czk_groth16_verify(&c->pvk, &p->proof, p->w + 1, c->pk.n_public, &err);
            if (rc != CZK_OK)
                set_msg(p->err, sizeof p->err, "proof did not verify: %s", err.msg);
        }
        uint64_t tv1 = czk_time_ns();
        if (rc == CZK_OK)
            czk_bellperson_proof_encode(enc, &p->proof);
        uint64_t t1 = czk_time_ns();

        pthread_mutex_lock(&e->mu);
        p->verify_ns = tv1 - tv0;
        p->finish_ns = (t1 - t0) - p->verify_ns;
        j->verify_ns += p->verify_ns;
        const char *result = rc == CZK_OK ? "ok" : p->attempts < MAX_ATTEMPTS ? "retry" : "failed";
        elog(e, CZK_LOG_INFO,
             "partition job=%s part=%u/%zu prio=%s circuit=%s backend=%s attempt=%u queue_ms=%.3f "
             "synth_ms=%.3f lock_wait_ms=%.3f kernel_ms=%.3f finish_ms=%.3f verify_ms=%.3f "
             "kernel_at_ms=%.3f result=%s%s%s",
             j->id, p->idx, j->n_parts, prio_names[j->prio], c->id, p->be_name, p->attempts,
             p->queue_ns / 1e6, p->synth_ns / 1e6, p->lock_wait_ns / 1e6, p->kernel_ns / 1e6,
             p->finish_ns / 1e6, p->verify_ns / 1e6, p->kernel_at_ns / 1e6, result,
             rc == CZK_OK ? "" : " error=", rc == CZK_OK ? "" : p->err);
        if (!part_return(e, p))
            continue;
        if (rc != CZK_OK) {
            if (p->attempts < MAX_ATTEMPTS) {
                e->n_parts_retried++;
                p->state = P_QUEUED_PROVE;
                p->t_ready_ns = t1;
                p->queue_ns = 0;
                pthread_cond_signal(&e->prove_cv);
            } else {
                e->n_parts_failed++;
                job_finish(e, j, CZK_JOB_FAILED, "partition %u failed after %u attempts: %s",
                           p->idx, p->attempts, p->err);
            }
            continue;
        }
        memcpy(j->proof + (size_t)p->idx * CZK_PROOF_BYTES, enc, CZK_PROOF_BYTES);
        if (j->pub == NULL && c->pk.n_public > 0) {
            j->pub = czk_calloc(j->n_parts * c->pk.n_public, CZK_FR_BYTES);
            if (j->pub != NULL) {
                j->n_public = c->pk.n_public;
                j->pub_len = j->n_parts * j->n_public * CZK_FR_BYTES;
            }
        }
        for (size_t i = 0; i < j->n_public; i++)
            czk_fr_to_bytes_le(j->pub + (p->idx * j->n_public + i) * CZK_FR_BYTES, &p->w[1 + i]);
        part_drop(e, p);
        e->n_parts_proved++;
        e->sum_queue_ms += MS(p->queue_ns);
        e->sum_synth_ms += MS(p->synth_ns);
        e->sum_prove_ms += MS(p->kernel_ns);
        e->sum_verify_ms += MS(p->verify_ns);
        if (++j->parts_done == j->n_parts)
            job_finish(e, j, CZK_JOB_COMPLETED, NULL);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}

/* ---- public API ------------------------------------------------------------------------ */

void czk_engine_config_default(czk_engine_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = "auto";
    cfg->log_level = CZK_LOG_INFO;
}

static void engine_free(czk_engine *e) {
    if (e == NULL)
        return;
    if (e->logger_started) {
        pthread_mutex_lock(&e->log_mu);
        e->log_quit = 1;
        pthread_cond_signal(&e->log_cv);
        pthread_mutex_unlock(&e->log_mu);
        pthread_join(e->logger, NULL);
    }
    while (e->jobs != NULL) {
        job *j = e->jobs;
        e->jobs = j->next;
        job_free(j);
    }
    while (e->circuits != NULL) {
        circuit *c = e->circuits;
        e->circuits = c->next;
        if (c->template_w != NULL) {
            czk_memclear_explicit(c->template_w, c->cs.n_vars * sizeof(czk_fr));
            czk_free(c->template_w);
        }
        czk_groth16_pk_clear(&c->pk);
        czk_r1cs_clear(&c->cs);
        czk_groth16_pvk_clear(&c->pvk);
        czk_free(c->key_path);
        czk_free(c->r1cs_path);
        czk_free(c);
    }
    if (e->worker_job != NULL) {
        for (unsigned i = 0; i < e->n_workers; i++)
            czk_free(e->worker_job[i]);
        czk_free(e->worker_job);
    }
    for (unsigned i = 0; i < e->n_devs; i++) {
#ifdef CZK_HAVE_CUDA
        czk_gpu_backend_destroy(e->devs[i].gpu_be);
#endif
        pthread_mutex_destroy(&e->devs[i].mu);
    }
    czk_free(e->devs);
    czk_pool_destroy(e->pool);
    czk_free(e->threads);
    pthread_mutex_destroy(&e->mu);
    pthread_mutex_destroy(&e->cpu_mu);
    pthread_cond_destroy(&e->vram_cv);
    pthread_mutex_destroy(&e->log_mu);
    pthread_cond_destroy(&e->log_cv);
    pthread_cond_destroy(&e->synth_cv);
    pthread_cond_destroy(&e->prove_cv);
    pthread_cond_destroy(&e->fin_cv);
    pthread_cond_destroy(&e->done_cv);
    czk_free(e);
}

static void join_threads(czk_engine *e) {
    for (unsigned i = 0; i < e->n_threads; i++)
        pthread_join(e->threads[i], NULL);
    e->n_threads = 0;
}

/* The CPU as the engine's one device; e->devs holds at least one entry. */
static void open_cpu_device(czk_engine *e) {
    device *d = &e->devs[0];
    memset(d, 0, sizeof *d);
    d->be = czk_backend_cpu();
    d->ordinal = -1;
    snprintf(d->name, sizeof d->name, "cpu (%u prover threads)", e->cfg.prove_threads);
    pthread_mutex_init(&d->mu, NULL);
    e->n_devs = 1;
    e->fallback = d->be;
    e->fb_lock = &d->mu;
    snprintf(e->backend_name, sizeof e->backend_name, "cpu");
}

/*
 * Opens the devices `backend` asks for: "cpu" the CPU; "auto" a CUDA backend per device
 * found, or the CPU when there is none or none opens (logged); "cuda" a CUDA backend per
 * device, failing when none opens. With CUDA devices, retries run on the CPU backend under
 * e->cpu_mu. Returns CZK_OK, CZK_EINVAL or CZK_ENOMEM.
 */
static int open_devices(czk_engine *e, const char *backend, czk_err *err) {
    int ndev = 0;
#ifdef CZK_HAVE_CUDA
    char why[200] = "no CUDA device is present";
    if (strcmp(backend, "cpu") != 0) {
        ndev = czk_gpu_device_count();
        if (ndev < 0)
            ndev = 0;
    }
    if (ndev > 0) {
        e->devs = czk_calloc((size_t)ndev, sizeof *e->devs);
        if (e->devs == NULL)
            return czk_err_set(err, CZK_ENOMEM, "cannot allocate the device table");
    }
    for (int i = 0; i < ndev; i++) {
        device *d = &e->devs[e->n_devs];
        czk_gpu_plan_opts opts;
        memset(&opts, 0, sizeof opts);
        opts.vram_limit_bytes = (size_t)e->cfg.vram_budget_bytes;
        opts.register_limit_bytes = (size_t)e->cfg.lock_budget_bytes;
        /* The pinned budget is shared by the devices (czk_engine_create sets it aside). */
        opts.pinned_limit_bytes = (size_t)(e->cfg.pinned_budget_bytes / (uint64_t)ndev);
        if (opts.pinned_limit_bytes == 0)
            opts.pinned_limit_bytes = 1; /* 0 would mean the backend's own default */
        czk_err gerr = {0, ""};
        size_t free_b = 0, total_b = 0;
        int rc = czk_gpu_backend_create(&d->gpu_be, i, &opts, &gerr);
        if (rc == CZK_OK)
            rc = czk_gpu_mem_info(czk_gpu_backend_context(d->gpu_be), &free_b, &total_b, &gerr);
        if (rc != CZK_OK) {
            czk_gpu_backend_destroy(d->gpu_be);
            d->gpu_be = NULL;
            snprintf(why, sizeof why, "cuda:%d: %.180s", i, gerr.msg);
            elog(e, CZK_LOG_WARN, "device cuda:%d unavailable: %s", i, gerr.msg);
            continue;
        }
        d->be = d->gpu_be;
        d->ordinal = i;
        czk_gpu_describe(czk_gpu_backend_context(d->gpu_be), d->name, sizeof d->name);
        d->vram_total = total_b;
        d->vram_free = free_b;
        d->vram_budget = free_b;
        if (e->cfg.vram_budget_bytes != 0 && e->cfg.vram_budget_bytes < d->vram_budget)
            d->vram_budget = e->cfg.vram_budget_bytes;
        pthread_mutex_init(&d->mu, NULL);
        e->n_devs++;
        elog(e, CZK_LOG_INFO,
             "device cuda:%d %s vram_total=%" PRIu64 " vram_free=%" PRIu64 " vram_budget=%" PRIu64,
             i, d->name, d->vram_total, d->vram_free, d->vram_budget);
    }
    if (e->n_devs > 0) {
        e->fallback = czk_backend_cpu();
        e->fb_lock = &e->cpu_mu;
        snprintf(e->backend_name, sizeof e->backend_name, "cuda x%u", e->n_devs);
        return CZK_OK;
    }
    if (strcmp(backend, "cuda") == 0)
        return czk_err_set(err, CZK_EINVAL, "backend \"cuda\": no usable CUDA device (%s)", why);
    if (strcmp(backend, "auto") == 0)
        elog(e, CZK_LOG_INFO, "backend auto: %s; proving on the CPU", why);
#else
    (void)backend;
#endif
    if (e->devs == NULL) {
        e->devs = czk_calloc(1, sizeof *e->devs);
        if (e->devs == NULL)
            return czk_err_set(err, CZK_ENOMEM, "cannot allocate the device table");
    }
    (void)ndev;
    open_cpu_device(e);
    return CZK_OK;
}

int czk_engine_create(czk_engine **out, const czk_engine_config *cfg_in, czk_err *err) {
    *out = NULL;
    czk_engine_config cfg;
    if (cfg_in != NULL)
        cfg = *cfg_in;
    else
        czk_engine_config_default(&cfg);
    const char *backend = cfg.backend != NULL ? cfg.backend : "auto";
    if (strcmp(backend, "auto") != 0 && strcmp(backend, "cpu") != 0 && strcmp(backend, "cuda") != 0)
        return czk_err_set(err, CZK_EINVAL, "unknown backend \"%s\" (auto, cpu, cuda)", backend);
#ifndef CZK_HAVE_CUDA
    if (strcmp(backend, "cuda") == 0)
        return czk_err_set(err, CZK_EINVAL,
                           "backend \"cuda\": this czk was built without CUDA (nvcc was not "
                           "found); use \"cpu\" or \"auto\"");
#endif
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1)
        ncpu = 1;
    if (cfg.synth_threads == 0)
        cfg.synth_threads = ncpu >= 8 ? (unsigned)ncpu / 4 : 1;
    if (cfg.prove_threads == 0)
        cfg.prove_threads = (unsigned)ncpu;
    if (cfg.workers_per_device == 0)
        cfg.workers_per_device = 2;
    if (cfg.finalizer_threads == 0)
        cfg.finalizer_threads = 1;
    if (cfg.result_ttl_ms == 0)
        cfg.result_ttl_ms = DEFAULT_TTL_MS;
    if (cfg.max_queued_jobs == 0)
        cfg.max_queued_jobs = 1024;
    if (cfg.host_budget_bytes == 0) {
        uint64_t total = mem_total_bytes();
        if (total == 0)
            total = 8 * GIB;
        cfg.host_budget_bytes = total > 10 * GIB ? total - 5 * GIB : total / 2;
    }
    /* Pinned staging (GPU backends only): auto = a quarter of the host budget. It is set
     * aside from the host budget once devices are open (the backends keep their pinned
     * buffers between partitions, so partition reservations cannot cover them). */
    if (cfg.pinned_budget_bytes == 0)
        cfg.pinned_budget_bytes = cfg.host_budget_bytes / 4;
    if (cfg.pinned_budget_bytes > cfg.host_budget_bytes / 2)
        return czk_err_set(err, CZK_EINVAL,
                           "pinned budget of %" PRIu64 " bytes is more than half the host "
                           "budget (%" PRIu64 ")",
                           cfg.pinned_budget_bytes, cfg.host_budget_bytes);
    if (cfg.synth_threads > 1024 || cfg.workers_per_device > 64 || cfg.finalizer_threads > 64 ||
        cfg.prove_threads > 4096)
        return czk_err_set(err, CZK_EINVAL, "thread counts out of range");
    cfg.backend = NULL;

    czk_engine *e = czk_calloc(1, sizeof *e);
    if (e == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate the engine");
    e->cfg = cfg;
    e->budget = cfg.host_budget_bytes;
    e->t_create_ns = czk_time_ns();
    atomic_init(&e->inject, 0);
    pthread_mutex_init(&e->mu, NULL);
    pthread_mutex_init(&e->cpu_mu, NULL);
    pthread_mutex_init(&e->log_mu, NULL);
    pthread_cond_init(&e->log_cv, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&e->synth_cv, &ca);
    pthread_cond_init(&e->prove_cv, &ca);
    pthread_cond_init(&e->fin_cv, &ca);
    pthread_cond_init(&e->done_cv, &ca);
    pthread_cond_init(&e->vram_cv, &ca);
    pthread_condattr_destroy(&ca);

    if (cfg.log != NULL) {
        if (pthread_create(&e->logger, NULL, logger_main, e) != 0) {
            engine_free(e);
            return czk_err_set(err, CZK_EINTERNAL, "cannot start the logger thread");
        }
        e->logger_started = 1;
    }
    int rc = czk_pool_create(&e->pool, cfg.prove_threads);
    if (rc != CZK_OK) {
        engine_free(e);
        return czk_err_set(err, rc, "cannot create the prover pool of %u threads",
                           cfg.prove_threads);
    }
    rc = open_devices(e, backend, err);
    if (rc != CZK_OK) {
        engine_free(e);
        return rc;
    }
    if (e->n_devs > 0 && e->devs[0].gpu_be != NULL)
        e->budget -= cfg.pinned_budget_bytes;
    else
        e->cfg.pinned_budget_bytes = 0; /* no pinned staging on the CPU backend */
    e->n_workers = e->n_devs * cfg.workers_per_device;
    e->worker_job = czk_calloc(e->n_workers, sizeof(char *));
    unsigned want = cfg.synth_threads + e->n_workers + cfg.finalizer_threads;
    e->threads = czk_calloc(want, sizeof(pthread_t));
    if (e->worker_job == NULL || e->threads == NULL) {
        engine_free(e);
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate thread tables");
    }
    for (unsigned i = 0; i < e->n_workers; i++) {
        e->worker_job[i] = czk_calloc(1, CZK_ID_MAX + 1);
        if (e->worker_job[i] == NULL) {
            engine_free(e);
            return czk_err_set(err, CZK_ENOMEM, "cannot allocate thread tables");
        }
    }
    for (unsigned i = 0; i < want; i++) {
        int prc;
        if (i < cfg.synth_threads) {
            prc = pthread_create(&e->threads[i], NULL, synth_main, e);
        } else if (i < cfg.synth_threads + e->n_workers) {
            worker_arg *wa = czk_malloc(sizeof *wa);
            if (wa == NULL) {
                prc = ENOMEM;
            } else {
                wa->e = e;
                wa->index = i - cfg.synth_threads;
                wa->dev = wa->index / cfg.workers_per_device;
                prc = pthread_create(&e->threads[i], NULL, worker_main, wa);
                if (prc != 0)
                    czk_free(wa);
            }
        } else {
            prc = pthread_create(&e->threads[i], NULL, fin_main, e);
        }
        if (prc != 0) {
            pthread_mutex_lock(&e->mu);
            e->quit = 1;
            pthread_cond_broadcast(&e->synth_cv);
            pthread_cond_broadcast(&e->prove_cv);
            pthread_cond_broadcast(&e->fin_cv);
            pthread_mutex_unlock(&e->mu);
            join_threads(e);
            engine_free(e);
            return czk_err_set(err, CZK_EINTERNAL, "cannot start engine thread %u: %s", i,
                               strerror(prc));
        }
        e->n_threads++;
    }
    elog(e, CZK_LOG_INFO,
         "engine started backend=%s synth_threads=%u prove_threads=%u workers=%u finalizers=%u "
         "host_budget=%" PRIu64,
         e->backend_name, cfg.synth_threads, cfg.prove_threads, e->n_workers, cfg.finalizer_threads,
         e->budget);
    *out = e;
    return CZK_OK;
}

int czk_engine_shutdown(czk_engine *e, uint64_t grace_ms) {
    pthread_mutex_lock(&e->mu);
    if (e->stopping) {
        /* Another caller is shutting down: wait until it is done. */
        while (!e->stopped)
            pthread_cond_wait(&e->done_cv, &e->mu);
        pthread_mutex_unlock(&e->mu);
        return CZK_OK;
    }
    e->stopping = 1;
    struct timespec ts;
    timespec_after(&ts, grace_ms * 1000000ULL);
    while (e->n_unfinished > 0 && grace_ms > 0) {
        if (pthread_cond_timedwait(&e->done_cv, &e->mu, &ts) == ETIMEDOUT)
            break;
    }
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (!job_final(j))
            job_finish(e, j, CZK_JOB_CANCELLED, "engine shut down before the job finished");
    }
    e->quit = 1;
    e->joined = 1;
    pthread_cond_broadcast(&e->synth_cv);
    pthread_cond_broadcast(&e->prove_cv);
    pthread_cond_broadcast(&e->fin_cv);
    pthread_cond_broadcast(&e->done_cv);
    pthread_mutex_unlock(&e->mu);
    join_threads(e);
    /* Threads have returned the partitions they held; release what they left. */
    pthread_mutex_lock(&e->mu);
    for (job *j = e->jobs; j != NULL; j = j->next) {
        for (size_t i = 0; i < j->n_parts; i++) {
            if (j->parts[i].state != P_DONE)
                part_drop(e, &j->parts[i]);
        }
        if (j->inflight == 0)
            job_release_circuit(e, j);
    }
    e->stopped = 1;
    pthread_cond_broadcast(&e->done_cv);
    pthread_mutex_unlock(&e->mu);
    elog(e, CZK_LOG_INFO, "engine stopped");
    return CZK_OK;
}

void czk_engine_destroy(czk_engine *e) {
    if (e == NULL)
        return;
    czk_engine_shutdown(e, 0);
    engine_free(e);
}

static int add_circuit(czk_engine *e, circuit *c, czk_err *err) {
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    if (find_circuit(e, c->id) != NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "circuit %s is already registered", c->id);
    } else {
        c->next = e->circuits;
        e->circuits = c;
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int czk_engine_register_circuit(czk_engine *e, const char *circuit_id, const char *key_path,
                                const char *r1cs_path, czk_err *err) {
    if (!valid_id(circuit_id))
        return czk_err_set(err, CZK_EINVAL, "circuit id missing or longer than %d bytes",
                           CZK_ID_MAX);
    circuit *c = czk_calloc(1, sizeof *c);
    if (c == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    snprintf(c->id, sizeof c->id, "%s", circuit_id);
    c->key_path = dup_str(key_path);
    c->r1cs_path = r1cs_path != NULL ? dup_str(r1cs_path) : NULL;
    if (c->key_path == NULL || (r1cs_path != NULL && c->r1cs_path == NULL)) {
        czk_free(c->key_path);
        czk_free(c->r1cs_path);
        czk_free(c);
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    }
    /* In memory, points take about what they take in the files (uncompressed), R1CS a bit
     * more than circom's compact terms; the estimate is corrected at load. */
    c->est_bytes = file_size(key_path) + 2 * file_size(r1cs_path);
    int rc = add_circuit(e, c, err);
    if (rc != CZK_OK) {
        czk_free(c->key_path);
        czk_free(c->r1cs_path);
        czk_free(c);
    }
    return rc;
}

int czk_engine_register_synthetic(czk_engine *e, const char *circuit_id, unsigned k, czk_err *err) {
    if (!valid_id(circuit_id))
        return czk_err_set(err, CZK_EINVAL, "circuit id missing or longer than %d bytes",
                           CZK_ID_MAX);
    if (k < 4 || k > 26)
        return czk_err_set(err, CZK_EINVAL, "synthetic circuit %s: k = %u not in [4, 26]",
                           circuit_id, k);
    circuit *c = czk_calloc(1, sizeof *c);
    if (c == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    snprintf(c->id, sizeof c->id, "%s", circuit_id);
    c->synthetic = 1;
    c->k = k;
    synthetic_estimate(c);
    int rc = add_circuit(e, c, err);
    if (rc != CZK_OK)
        czk_free(c);
    return rc;
}

int czk_engine_preload(czk_engine *e, const char *circuit_id, int *already_loaded,
                       uint64_t *load_ms, czk_err *err) {
    if (already_loaded != NULL)
        *already_loaded = 0;
    if (load_ms != NULL)
        *load_ms = 0;
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    circuit *c = find_circuit(e, circuit_id);
    if (c == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "unknown circuit %s", circuit_id);
        goto out;
    }
    if (c->state == C_HOT) {
        if (already_loaded != NULL)
            *already_loaded = 1;
        c->last_used_ns = czk_time_ns();
        goto out;
    }
    rc = ensure_loaded(e, c, load_ms, err);
out:
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int czk_engine_evict(czk_engine *e, const char *circuit_id, int *was_loaded, uint64_t *freed_bytes,
                     czk_err *err) {
    if (was_loaded != NULL)
        *was_loaded = 0;
    if (freed_bytes != NULL)
        *freed_bytes = 0;
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    circuit *c = find_circuit(e, circuit_id);
    if (c == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "unknown circuit %s", circuit_id);
    } else if (c->state == C_HOT) {
        if (was_loaded != NULL)
            *was_loaded = 1;
        if (freed_bytes != NULL)
            *freed_bytes = c->bytes;
        if (c->refs == 0)
            unload_circuit(e, c);
        else
            c->evict_pending = 1;
        elog(e, CZK_LOG_INFO, "evict circuit=%s reason=request deferred=%d", c->id,
             c->state == C_HOT);
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

static job *job_alloc(const czk_job_request *req, circuit *c, czk_err *err) {
    job *j = czk_calloc(1, sizeof *j);
    if (j == NULL)
        goto nomem;
    snprintf(j->id, sizeof j->id, "%s", req->request_id);
    snprintf(j->kind, sizeof j->kind, "%s", req->kind != NULL ? req->kind : c->id);
    snprintf(j->client, sizeof j->client, "%s", req->client_id != NULL ? req->client_id : "-");
    j->c = c;
    j->prio = req->priority == CZK_PRIORITY_DEFAULT ? CZK_PRIORITY_NORMAL : (int)req->priority;
    j->n_parts = req->n_partitions;
    j->seed = req->synth_seed;
    j->parts = czk_calloc(j->n_parts, sizeof(part));
    if (j->parts == NULL)
        goto nomem;
    if (!c->synthetic) {
        j->wtns = czk_calloc(j->n_parts, sizeof(uint8_t *));
        j->wtns_len = czk_calloc(j->n_parts, sizeof(size_t));
        if (j->wtns == NULL || j->wtns_len == NULL)
            goto nomem;
        for (size_t i = 0; i < j->n_parts; i++) {
            j->wtns[i] = czk_malloc(req->wtns_len[i]);
            if (j->wtns[i] == NULL)
                goto nomem;
            memcpy(j->wtns[i], req->wtns[i], req->wtns_len[i]);
            j->wtns_len[i] = req->wtns_len[i];
        }
    }
    for (size_t i = 0; i < j->n_parts; i++) {
        j->parts[i].job = j;
        j->parts[i].idx = (unsigned)i;
        j->parts[i].state = P_QUEUED_SYNTH;
    }
    j->status = CZK_JOB_PENDING;
    return j;
nomem:
    if (j != NULL)
        job_free(j);
    czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", req->request_id);
    return NULL;
}

int czk_engine_submit(czk_engine *e, const czk_job_request *req, char job_id[128],
                      uint32_t *queue_position, int *attached, czk_err *err) {
    job_id[0] = '\0';
    if (queue_position != NULL)
        *queue_position = 0;
    if (attached != NULL)
        *attached = 0;
    if (!valid_id(req->request_id))
        return czk_err_set(err, CZK_EINVAL, "request id missing or longer than %d bytes",
                           CZK_ID_MAX);
    if (req->circuit_id == NULL)
        return czk_err_set(err, CZK_EINVAL, "request %s: no circuit id", req->request_id);
    if ((unsigned)req->priority >= CZK_PRIORITY_COUNT)
        return czk_err_set(err, CZK_EINVAL, "request %s: priority %d out of range", req->request_id,
                           (int)req->priority);
    if (req->n_partitions == 0 || req->n_partitions > 1u << 20)
        return czk_err_set(err, CZK_EINVAL, "request %s: %zu partitions", req->request_id,
                           req->n_partitions);

    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    job *j = find_job(e, req->request_id);
    if (j != NULL) {
        snprintf(job_id, 128, "%s", j->id);
        if (attached != NULL)
            *attached = 1;
        goto position;
    }
    if (e->stopping) {
        rc = czk_err_set(err, CZK_ECANCELED, "request %s: the engine is shutting down",
                         req->request_id);
        goto out;
    }
    circuit *c = find_circuit(e, req->circuit_id);
    if (c == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "request %s: unknown circuit %s", req->request_id,
                         req->circuit_id);
        goto out;
    }
    if (c->synthetic && req->wtns != NULL) {
        rc = czk_err_set(err, CZK_EINVAL,
                         "request %s: circuit %s is synthetic and takes no witness files",
                         req->request_id, c->id);
        goto out;
    }
    if (!c->synthetic) {
        if (req->wtns == NULL || req->wtns_len == NULL) {
            rc = czk_err_set(err, CZK_EINVAL,
                             "request %s: circuit %s needs one witness per "
                             "partition",
                             req->request_id, c->id);
            goto out;
        }
        for (size_t i = 0; i < req->n_partitions; i++) {
            if (req->wtns[i] == NULL || req->wtns_len[i] == 0) {
                rc = czk_err_set(err, CZK_EINVAL, "request %s: partition %zu has no witness",
                                 req->request_id, i);
                goto out;
            }
        }
    }
    if (e->n_unfinished >= e->cfg.max_queued_jobs) {
        rc = czk_err_set(err, CZK_ENOMEM, "request %s: %u jobs queued, the limit", req->request_id,
                         e->n_unfinished);
        goto out;
    }
    j = job_alloc(req, c, err);
    if (j == NULL) {
        rc = CZK_ENOMEM;
        goto out;
    }
    j->seq = ++e->seq;
    j->t_submit_ns = czk_time_ns();
    for (size_t i = 0; i < j->n_parts; i++)
        j->parts[i].t_ready_ns = j->t_submit_ns;
    j->holds_ref = 1;
    c->refs++;
    e->n_unfinished++;
    if (e->jobs_tail != NULL)
        e->jobs_tail->next = j;
    else
        e->jobs = j;
    e->jobs_tail = j;
    snprintf(job_id, 128, "%s", j->id);
    uint64_t key = c->state == C_HOT ? c->bytes : c->est_bytes;
    if (key + part_floor(e, c) > e->budget) {
        job_finish(e, j, CZK_JOB_FAILED,
                   "circuit %s needs %" PRIu64 " bytes (key %" PRIu64 " + one partition %" PRIu64
                   "), more than the whole host budget of %" PRIu64 " bytes",
                   c->id, key + part_floor(e, c), key, part_floor(e, c), e->budget);
        goto out;
    }
    j->proof = czk_calloc(j->n_parts, CZK_PROOF_BYTES);
    if (j->proof == NULL) {
        job_finish(e, j, CZK_JOB_FAILED, "cannot allocate the job's proof buffer");
        goto out;
    }
    pthread_cond_broadcast(&e->synth_cv);
    elog(e, CZK_LOG_DEBUG, "submit job=%s circuit=%s prio=%s parts=%zu client=%s", j->id, c->id,
         prio_names[j->prio], j->n_parts, j->client);
position:
    if (queue_position != NULL && !job_final(j)) {
        uint32_t ahead = 0;
        for (job *o = e->jobs; o != NULL; o = o->next) {
            if (o != j && !job_final(o) &&
                (o->prio > j->prio || (o->prio == j->prio && o->seq < j->seq)))
                ahead++;
        }
        *queue_position = ahead;
    }
out:
    pthread_mutex_unlock(&e->mu);
    return rc;
}

static void fill_result(const job *j, czk_job_result *res) {
    res->status = j->status;
    snprintf(res->error, sizeof res->error, "%s", j->error);
    uint64_t start = j->t_start_ns ? j->t_start_ns : j->t_done_ns;
    res->queue_wait_ms = start > j->t_submit_ns ? MS(start - j->t_submit_ns) : 0;
    res->srs_load_ms = j->srs_load_ms;
    res->synthesis_ms = MS(j->synth_ns);
    res->gpu_compute_ms = MS(j->prove_ns);
    res->total_ms = MS(j->t_done_ns - j->t_submit_ns);
    if (j->status != CZK_JOB_COMPLETED)
        return;
    res->proof = czk_malloc(j->n_parts * CZK_PROOF_BYTES);
    if (res->proof == NULL) {
        res->status = CZK_JOB_FAILED;
        snprintf(res->error, sizeof res->error, "out of memory copying the proof");
        return;
    }
    memcpy(res->proof, j->proof, j->n_parts * CZK_PROOF_BYTES);
    res->proof_len = j->n_parts * CZK_PROOF_BYTES;
    if (j->pub_len > 0) {
        res->public_inputs = czk_malloc(j->pub_len);
        if (res->public_inputs != NULL) {
            memcpy(res->public_inputs, j->pub, j->pub_len);
            res->public_len = j->pub_len;
        }
    }
}

int czk_engine_await(czk_engine *e, const char *job_id, uint64_t timeout_ms, czk_job_result *res,
                     czk_err *err) {
    memset(res, 0, sizeof *res);
    res->status = CZK_JOB_UNKNOWN;
    if (job_id == NULL) {
        snprintf(res->error, sizeof res->error, "no job id");
        return czk_err_set(err, CZK_EINVAL, "no job id");
    }
    pthread_mutex_lock(&e->mu);
    prune(e);
    job *j = find_job(e, job_id);
    if (j == NULL) {
        snprintf(res->error, sizeof res->error, "unknown job %.200s", job_id);
        pthread_mutex_unlock(&e->mu);
        return CZK_OK;
    }
    struct timespec ts;
    if (timeout_ms > 0)
        timespec_after(&ts, timeout_ms * 1000000ULL);
    j->waiters++;
    int timed_out = 0;
    while (!job_final(j)) {
        if (timeout_ms == 0) {
            pthread_cond_wait(&e->done_cv, &e->mu);
        } else if (pthread_cond_timedwait(&e->done_cv, &e->mu, &ts) == ETIMEDOUT) {
            timed_out = !job_final(j);
            break;
        }
    }
    j->waiters--;
    if (timed_out) {
        res->status = CZK_JOB_TIMEOUT;
        snprintf(res->error, sizeof res->error, "job %.200s still running after %" PRIu64 " ms",
                 job_id, timeout_ms);
    } else {
        fill_result(j, res);
    }
    pthread_mutex_unlock(&e->mu);
    return CZK_OK;
}

void czk_job_result_clear(czk_job_result *res) {
    if (res == NULL)
        return;
    czk_free(res->proof);
    czk_free(res->public_inputs);
    memset(res, 0, sizeof *res);
}

int czk_engine_cancel(czk_engine *e, const char *job_id, int *was_running, czk_err *err) {
    if (was_running != NULL)
        *was_running = 0;
    if (job_id == NULL)
        return czk_err_set(err, CZK_EINVAL, "no job id");
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    job *j = find_job(e, job_id);
    if (j == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "unknown job %s", job_id);
    } else if (!job_final(j)) {
        if (was_running != NULL)
            *was_running = j->status == CZK_JOB_RUNNING;
        job_finish(e, j, CZK_JOB_CANCELLED, "cancelled by request");
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int czk_engine_get_status(czk_engine *e, czk_engine_status *st) {
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&e->mu);
    prune(e);
    int rc = CZK_OK;
    st->uptime_s = (czk_time_ns() - e->t_create_ns) / 1000000000ULL;
    st->jobs_completed = e->n_completed;
    st->jobs_failed = e->n_failed;
    st->jobs_cancelled = e->n_cancelled;
    st->partitions_proved = e->n_parts_proved;
    st->partitions_retried = e->n_parts_retried;
    st->partitions_failed = e->n_parts_failed;
    st->host_budget_bytes = e->budget;
    st->host_reserved_bytes = e->reserved;
    st->host_allocated_bytes = czk_alloc_in_use();
    st->pinned_budget_bytes = e->cfg.pinned_budget_bytes;
    st->pinned_used_bytes = 0;
#ifdef CZK_HAVE_CUDA
    for (unsigned i = 0; i < e->n_devs; i++) {
        size_t held = 0, limit = 0;
        if (e->devs[i].gpu_be != NULL) {
            czk_gpu_backend_pinned(e->devs[i].gpu_be, &held, &limit);
            st->pinned_used_bytes += held;
        }
    }
#endif
    st->shutting_down = e->stopping;
    size_t nj = 0, nc = 0;
    for (job *j = e->jobs; j != NULL; j = j->next)
        nj++;
    for (circuit *c = e->circuits; c != NULL; c = c->next)
        nc++;
    st->jobs_known = (uint32_t)nj;
    st->queues = nj ? czk_calloc(nj, sizeof *st->queues) : NULL;
    st->circuits = nc ? czk_calloc(nc, sizeof *st->circuits) : NULL;
    st->devices = czk_calloc(e->n_devs, sizeof *st->devices);
    if ((nj && st->queues == NULL) || (nc && st->circuits == NULL) || st->devices == NULL) {
        rc = CZK_ENOMEM;
        goto out;
    }
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (job_final(j))
            continue;
        int running = j->status == CZK_JOB_RUNNING;
        if (running)
            st->in_progress_by_priority[j->prio]++;
        else
            st->pending_by_priority[j->prio]++;
        size_t q = 0;
        while (q < st->n_queues && strcmp(st->queues[q].kind, j->kind) != 0)
            q++;
        if (q == st->n_queues) {
            snprintf(st->queues[q].kind, sizeof st->queues[q].kind, "%s", j->kind);
            st->n_queues++;
        }
        if (running)
            st->queues[q].in_progress++;
        else
            st->queues[q].pending++;
    }
    for (circuit *c = e->circuits; c != NULL; c = c->next) {
        czk_circuit_status *cs = &st->circuits[st->n_circuits++];
        snprintf(cs->circuit_id, sizeof cs->circuit_id, "%s", c->id);
        /* HOT: ready where proofs run (on a CUDA engine, resident on a device; on the CPU,
         * in memory); WARM: in host memory, placed on a device at its next partition; COLD:
         * not loaded. */
        int on_gpu = e->n_devs > 0 && e->devs[0].gpu_be != NULL;
        if (c->state != C_HOT)
            cs->tier = 2;
        else if (on_gpu && __atomic_load_n(&c->resident_devs, __ATOMIC_ACQUIRE) == 0)
            cs->tier = 1;
        else
            cs->tier = 0;
        cs->size_bytes = c->state == C_COLD ? c->est_bytes : c->bytes;
        cs->ref_count = c->refs;
        cs->synthetic = c->synthetic;
    }
    for (unsigned k = 0; k < e->n_devs; k++) {
        const device *dv = &e->devs[k];
        czk_device_status *d = &st->devices[st->n_devices++];
        d->ordinal = dv->ordinal >= 0 ? (uint32_t)dv->ordinal : 0;
        snprintf(d->name, sizeof d->name, "%s", dv->name);
        d->vram_total_bytes = dv->vram_total;
        d->vram_free_bytes = dv->vram_free;
        d->workers = e->cfg.workers_per_device;
        for (unsigned i = k * d->workers; i < (k + 1) * d->workers; i++) {
            if (e->worker_job[i][0] == '\0')
                continue;
            if (d->busy_workers++ == 0)
                snprintf(d->current_job_id, sizeof d->current_job_id, "%s", e->worker_job[i]);
        }
    }
out:
    pthread_mutex_unlock(&e->mu);
    if (rc != CZK_OK)
        czk_engine_status_clear(st);
    return rc;
}

void czk_engine_status_clear(czk_engine_status *st) {
    if (st == NULL)
        return;
    czk_free(st->queues);
    czk_free(st->circuits);
    czk_free(st->devices);
    memset(st, 0, sizeof *st);
}

/* Appends to buf[*n..cap), truncating (cap is sized for the worst case). */
static void emit(char *buf, size_t cap, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void emit(char *buf, size_t cap, size_t *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    if (w > 0)
        *n += (size_t)w < cap - *n ? (size_t)w : cap - *n - 1;
}

int czk_engine_metrics(czk_engine *e, char **text) {
    *text = NULL;
    czk_engine_status st;
    int rc = czk_engine_get_status(e, &st);
    if (rc != CZK_OK)
        return rc;
    uint64_t sums[4];
    pthread_mutex_lock(&e->mu);
    sums[0] = e->sum_queue_ms;
    sums[1] = e->sum_synth_ms;
    sums[2] = e->sum_prove_ms;
    sums[3] = e->sum_verify_ms;
    pthread_mutex_unlock(&e->mu);
    size_t cap = 4096 + st.n_circuits * 512 + st.n_queues * 512 + st.n_devices * 512;
    char *buf = czk_malloc(cap);
    if (buf == NULL) {
        czk_engine_status_clear(&st);
        return CZK_ENOMEM;
    }
    size_t n = 0;
#define EMIT(...) emit(buf, cap, &n, __VA_ARGS__)
    EMIT("# TYPE czk_jobs_completed_total counter\nczk_jobs_completed_total %" PRIu64 "\n",
         st.jobs_completed);
    EMIT("# TYPE czk_jobs_failed_total counter\nczk_jobs_failed_total %" PRIu64 "\n",
         st.jobs_failed);
    EMIT("# TYPE czk_jobs_cancelled_total counter\nczk_jobs_cancelled_total %" PRIu64 "\n",
         st.jobs_cancelled);
    EMIT("# TYPE czk_partitions_proved_total counter\nczk_partitions_proved_total %" PRIu64 "\n",
         st.partitions_proved);
    EMIT("# TYPE czk_partitions_retried_total counter\nczk_partitions_retried_total %" PRIu64 "\n",
         st.partitions_retried);
    EMIT("# TYPE czk_partitions_failed_total counter\nczk_partitions_failed_total %" PRIu64 "\n",
         st.partitions_failed);
    static const char *const stage[4] = {"queue", "synthesis", "prove", "verify"};
    EMIT("# TYPE czk_partition_stage_ms_total counter\n");
    for (int i = 0; i < 4; i++)
        EMIT("czk_partition_stage_ms_total{stage=\"%s\"} %" PRIu64 "\n", stage[i], sums[i]);
    EMIT("# TYPE czk_jobs_pending gauge\n");
    for (int p = 1; p < CZK_PRIORITY_COUNT; p++)
        EMIT("czk_jobs_pending{priority=\"%s\"} %u\n", prio_names[p], st.pending_by_priority[p]);
    EMIT("# TYPE czk_jobs_in_progress gauge\n");
    for (int p = 1; p < CZK_PRIORITY_COUNT; p++)
        EMIT("czk_jobs_in_progress{priority=\"%s\"} %u\n", prio_names[p],
             st.in_progress_by_priority[p]);
    EMIT("# TYPE czk_host_budget_bytes gauge\nczk_host_budget_bytes %" PRIu64 "\n",
         st.host_budget_bytes);
    EMIT("# TYPE czk_host_reserved_bytes gauge\nczk_host_reserved_bytes %" PRIu64 "\n",
         st.host_reserved_bytes);
    EMIT("# TYPE czk_host_allocated_bytes gauge\nczk_host_allocated_bytes %" PRIu64 "\n",
         st.host_allocated_bytes);
    EMIT("# TYPE czk_circuit_bytes gauge\n");
    for (size_t i = 0; i < st.n_circuits; i++)
        EMIT("czk_circuit_bytes{circuit=\"%s\",tier=\"%s\"} %" PRIu64 "\n",
             st.circuits[i].circuit_id,
             st.circuits[i].tier == 0   ? "hot"
             : st.circuits[i].tier == 1 ? "warm"
                                        : "cold",
             st.circuits[i].size_bytes);
    uint32_t busy = 0;
    for (size_t i = 0; i < st.n_devices; i++)
        busy += st.devices[i].busy_workers;
    EMIT("# TYPE czk_workers_busy gauge\nczk_workers_busy %u\n", busy);
    EMIT("# TYPE czk_device_vram_free_bytes gauge\n");
    for (size_t i = 0; i < st.n_devices; i++)
        EMIT("czk_device_vram_free_bytes{device=\"%u\",name=\"%s\"} %" PRIu64 "\n",
             st.devices[i].ordinal, st.devices[i].name, st.devices[i].vram_free_bytes);
    EMIT("# TYPE czk_uptime_seconds gauge\nczk_uptime_seconds %" PRIu64 "\n", st.uptime_s);
#undef EMIT
    czk_engine_status_clear(&st);
    *text = buf;
    return CZK_OK;
}

void czk_engine_inject_failures(czk_engine *e, unsigned n) {
    /* Pairs with the compare-exchange in worker_main. */
    atomic_fetch_add_explicit(&e->inject, n, memory_order_acq_rel);
}

int czk__engine_circuit_vk(czk_engine *e, const char *circuit_id, czk_groth16_vk *vk) {
    memset(vk, 0, sizeof *vk);
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    circuit *c = find_circuit(e, circuit_id);
    if (c == NULL || c->state != C_HOT) {
        rc = CZK_EINVAL;
        goto out;
    }
    *vk = c->pk.vk;
    vk->ic = czk_malloc(c->pk.vk.n_ic * sizeof(czk_g1_affine));
    if (vk->ic == NULL) {
        memset(vk, 0, sizeof *vk);
        rc = CZK_ENOMEM;
        goto out;
    }
    memcpy(vk->ic, c->pk.vk.ic, c->pk.vk.n_ic * sizeof(czk_g1_affine));
out:
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int czk__engine_set_backends(czk_engine *e, const czk_backend *primary,
                             const czk_backend *fallback) {
    int rc = CZK_OK;
    pthread_mutex_lock(&e->mu);
    if (e->devs[0].gpu_be != NULL) {
        rc = CZK_EINVAL;
    } else {
        if (primary != NULL)
            e->devs[0].be = primary;
        if (fallback != NULL)
            e->fallback = fallback;
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}
