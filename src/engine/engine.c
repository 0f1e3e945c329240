/*
 * The proving engine (contract in include/czk.h; doc/DESIGN.md tells the whole story).
 *
 * DESIGN
 * Map. The engine schedules partitions of jobs onto devices under memory budgets and verifies
 * every proof; it knows nothing of file formats or how witnesses are made (a circuit kind
 * does: kind.h, src/kinds/) nor of how a device computes (a device does: groth16/device.h).
 *   engine.c     create, shutdown, destroy: configuration, threads, teardown (this file)
 *   devices.c    the devices proofs run on, opened from the backend name; the test hook
 *   jobs.c       jobs and their queues: submit, await, cancel, finish, prune, pick
 *   budget.c     the host budget, pinned staging, lean reservations, device-memory reservations
 *   keys.c       circuits and their keys: register, load, evict, attach to devices
 *   synth.c      the synthesis pool (witnesses through the circuit's kind, staging for devices)
 *   workers.c    the prove workers (one device lock around each kernel region)
 *   finalize.c   the finalizers (verify, encode, retry, finish, prune)
 *   status.c     status and Prometheus metrics
 *   log.c        the logger thread
 *   trace.c      the span recorder (czk_engine_trace_start), off by default
 *   timeline.c   the timeline: spans as SVG, spans rebuilt from the log lines
 *   engine_internal.h  the structures they share, and the hooks for tests and the CLI
 * Threads. The engine owns every thread it runs: synth_threads synthesis threads,
 * workers_per_device prove workers for each device, finalizer_threads finalizers, and a
 * logger when a log callback is set. A partition moves synthesis queue → P_SYNTH → prove
 * queue → P_PROVING → finalize queue → P_FIN → done; its first attempt runs on its worker's
 * device, a retry on a device it has not failed on, else on the fallback device (the CPU).
 * Budget. Every big host allocation is reserved from e->budget before it is made (budget.c):
 * keys, partitions' witnesses and the CPU prover's scratch; so the number of partitions in
 * flight follows from the budget. Device memory is each device's to plan; the engine reserves
 * what the device says a partition needs from the device's budget.
 *
 * Locks, in order (a thread holding one may take only those below it):
 *   1. e->mu: every field of the engine, its circuits, jobs and partitions, except as noted;
 *      or one device lock (devs[i].gate, or e->cpu_gate for retries on the CPU fallback of
 *      a GPU engine; granted by priority, gate.h), held only around a device's calls
 *      (attach, need, prove). e->mu and a device lock are never held together, nor two device
 *      locks, except in unload, which takes a device lock under e->mu to detach a key no proof
 *      is using.
 *   2. e->log_mu: a leaf guarding the queue of log lines (taken under either of the above);
 *      or e->trace_mu: a leaf guarding the span recorder's buffer (trace.c), likewise. The two
 *      are never held together.
 * Circuit keys (pk, cs, pvk) are read outside e->mu by threads whose job holds a reference
 * (circuit.refs), which keeps the circuit loaded. Partition witnesses are touched outside
 * e->mu only by the one thread whose partition state says it owns them (P_SYNTH, P_PROVING,
 * P_FIN). The kind's state is read by synthesis threads without a lock (kinds keep it
 * immutable after load, or guard it themselves). The log callback is called with no lock held.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "czk.h"
#include "engine/engine_internal.h"
#include "gpu/device.h"
#include "util/alloc.h"
#include "util/timer.h"

#define DEFAULT_TTL_MS (10ULL * 60 * 1000)

void czk_engine_config_default(czk_engine_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    cfg->backend = "auto";
    cfg->log_level = CZK_LOG_INFO;
}

static void engine_free(czk_engine *e) {
    if (e == NULL)
        return;
    czk__log_stop(e);
    e->cfg.log = NULL; /* nothing more is logged: the logger is gone */
    while (e->jobs != NULL) {
        job *j = e->jobs;
        e->jobs = j->next;
        czk__job_free(j);
    }
    /* Keys detach from the devices before the devices close. */
    for (circuit *c = e->circuits; c != NULL; c = c->next)
        if (c->state == C_HOT)
            czk__unload_circuit(e, c);
    while (e->circuits != NULL) {
        circuit *c = e->circuits;
        e->circuits = c->next;
        czk__circuit_free(c);
    }
    if (e->worker_job != NULL) {
        for (unsigned i = 0; i < e->n_workers; i++)
            czk_free(e->worker_job[i]);
        czk_free(e->worker_job);
    }
    czk__devices_close(e);
    czk_pool_destroy(e->pool);
    czk_pool_destroy(e->urgent_pool);
    czk_free(e->threads);
    pthread_mutex_destroy(&e->mu);
    czk__trace_free(e);
    czk__gate_destroy(&e->cpu_gate);
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

/* Fills the automatic values of cfg; CZK_EINVAL for values out of range. */
static int config_complete(czk_engine_config *cfg, czk_err *err) {
    long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
    if (ncpu < 1)
        ncpu = 1;
    if (cfg->synth_threads == 0)
        cfg->synth_threads = ncpu >= 8 ? (unsigned)ncpu / 4 : 1;
    if (cfg->prove_threads == 0)
        cfg->prove_threads = (unsigned)ncpu;
    if (cfg->workers_per_device == 0)
        cfg->workers_per_device = 2;
    /* Two: a finalizer also clears and frees the witness of each partition it hands over, half
     * a second for a 32 GiB PoRep's 4.3 GB, and with one a WinningPoSt beside C2 waited 400-500
     * ms behind that every other time (BENCHMARKS.md run 103). */
    if (cfg->finalizer_threads == 0)
        cfg->finalizer_threads = 2;
    if (cfg->result_ttl_ms == 0)
        cfg->result_ttl_ms = DEFAULT_TTL_MS;
    if (cfg->max_queued_jobs == 0)
        cfg->max_queued_jobs = 1024;
    int rc = czk__budget_defaults(cfg, err);
    if (rc != CZK_OK)
        return rc;
    if (cfg->synth_threads > 1024 || cfg->workers_per_device > 64 || cfg->finalizer_threads > 64 ||
        cfg->prove_threads > 4096)
        return czk_err_set(err, CZK_EINVAL, "thread counts out of range");
    return CZK_OK;
}

/* Stops and joins the threads started so far (a failed create). */
static void abort_threads(czk_engine *e) {
    pthread_mutex_lock(&e->mu);
    e->quit = 1;
    pthread_cond_broadcast(&e->synth_cv);
    pthread_cond_broadcast(&e->prove_cv);
    pthread_cond_broadcast(&e->fin_cv);
    pthread_mutex_unlock(&e->mu);
    join_threads(e);
}

static int start_threads(czk_engine *e, czk_err *err) {
    const czk_engine_config *cfg = &e->cfg;
    e->n_workers = 0;
    for (unsigned di = 0; di < e->n_devs; di++)
        e->n_workers += czk__device_workers(e, di);
    e->worker_job = czk_calloc(e->n_workers, sizeof(char *));
    /* The synthesis threads, one more that takes only HIGH and CRITICAL partitions (so that a
     * WinningPoSt never waits for a PoRep partition's seconds of synthesis to end: issue 29),
     * the workers, the finalizers. */
    const unsigned n_synth = cfg->synth_threads + 1;
    unsigned want = n_synth + e->n_workers + cfg->finalizer_threads;
    e->threads = czk_calloc(want, sizeof(pthread_t));
    if (e->worker_job == NULL || e->threads == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate thread tables");
    for (unsigned i = 0; i < e->n_workers; i++) {
        e->worker_job[i] = czk_calloc(1, CZK_REQUEST_ID_MAX + 1);
        if (e->worker_job[i] == NULL)
            return czk_err_set(err, CZK_ENOMEM, "cannot allocate thread tables");
    }
    for (unsigned i = 0; i < want; i++) {
        int prc;
        if (i < n_synth + e->n_workers) {
            czk__worker_arg *wa = czk_malloc(sizeof *wa);
            if (wa == NULL) {
                prc = ENOMEM;
            } else {
                const int synth = i < n_synth;
                wa->e = e;
                wa->index = synth ? i : i - n_synth;
                wa->dev = synth ? 0 : czk__worker_device(e, wa->index);
                wa->min_prio = synth && i == cfg->synth_threads ? CZK_PRIORITY_HIGH : 0;
                prc = pthread_create(&e->threads[i], NULL,
                                     synth ? czk__synth_main : czk__worker_main, wa);
                if (prc != 0)
                    czk_free(wa);
            }
        } else {
            prc = pthread_create(&e->threads[i], NULL, czk__fin_main, e);
        }
        if (prc != 0) {
            abort_threads(e);
            return czk_err_set(err, CZK_EINTERNAL, "cannot start engine thread %u: %s", i,
                               strerror(prc));
        }
        e->n_threads++;
    }
    return CZK_OK;
}

/* czk_engine_create, on the devices found (devs NULL) or on the given ones (the test hook). */
static int create(czk_engine **out, const czk_engine_config *cfg_in, czk_device **devs,
                  unsigned n_devs, czk_err *err) {
    *out = NULL;
    czk_engine_config cfg;
    if (cfg_in != NULL)
        cfg = *cfg_in;
    else
        czk_engine_config_default(&cfg);
    const char *backend = cfg.backend != NULL ? cfg.backend : "auto";
    int rc = CZK_OK;
    if (devs != NULL)
        backend = "test";
    else if (strcmp(backend, "auto") != 0 && strcmp(backend, "cpu") != 0 &&
             strcmp(backend, "cuda") != 0)
        rc = czk_err_set(err, CZK_EINVAL, "unknown backend \"%s\" (auto, cpu, cuda)", backend);
    else if (strcmp(backend, "cuda") == 0 && !czk_gpu_built())
        rc = czk_err_set(err, CZK_EINVAL,
                         "backend \"cuda\": this czk was built without CUDA (nvcc was not "
                         "found); use \"cpu\" or \"auto\"");
    if (rc == CZK_OK)
        rc = config_complete(&cfg, err);
    czk_engine *e = rc == CZK_OK ? czk_calloc(1, sizeof *e) : NULL;
    if (e == NULL) {
        for (unsigned i = 0; i < n_devs; i++)
            czk_device_close(devs[i]);
        return rc != CZK_OK ? rc : czk_err_set(err, CZK_ENOMEM, "cannot allocate the engine");
    }
    /* Neither pointer is the engine's to keep (devices_open reads the ordinals first). */
    const unsigned *ordinals = cfg.gpu_ordinals;
    const size_t n_ordinals = cfg.n_gpu_ordinals;
    cfg.backend = NULL;
    cfg.gpu_ordinals = NULL;
    cfg.n_gpu_ordinals = 0;
    e->cfg = cfg;
    e->budget = cfg.host_budget_bytes;
    e->t_create_ns = czk_time_ns();
    atomic_init(&e->inject, 0);
    pthread_mutex_init(&e->mu, NULL);
    czk__trace_init(e);
    czk__gate_init(&e->cpu_gate);
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

    if ((rc = czk__log_start(e, err)) == CZK_OK &&
        ((rc = czk_pool_create(&e->pool, cfg.prove_threads)) != CZK_OK ||
         (rc = czk_pool_create(&e->urgent_pool, cfg.prove_threads)) != CZK_OK))
        czk_err_set(err, rc, "cannot create the prover pool of %u threads", cfg.prove_threads);
    if (rc != CZK_OK) {
        for (unsigned i = 0; i < n_devs; i++)
            czk_device_close(devs[i]);
        goto fail;
    }
    rc = devs != NULL ? czk__devices_adopt(e, devs, n_devs, err)
                      : czk__devices_open(e, backend, ordinals, n_ordinals, err);
    if (rc != CZK_OK)
        goto fail;
    /* Pinned staging is set aside from the host budget on a GPU engine (budget.c). */
    if (e->gpu)
        e->budget -= cfg.pinned_budget_bytes;
    else
        e->cfg.pinned_budget_bytes = 0;
    if ((rc = start_threads(e, err)) != CZK_OK)
        goto fail;
    czk__elog(e, CZK_LOG_INFO,
              "engine started backend=%s synth_threads=%u prove_threads=%u workers=%u "
              "finalizers=%u host_budget=%" PRIu64,
              e->backend_name, cfg.synth_threads, cfg.prove_threads, e->n_workers,
              cfg.finalizer_threads, e->budget);
    *out = e;
    return CZK_OK;
fail:
    engine_free(e);
    return rc;
}

int czk_engine_create(czk_engine **out, const czk_engine_config *cfg, czk_err *err) {
    return create(out, cfg, NULL, 0, err);
}

int czk__engine_create_on_devices(czk_engine **out, const czk_engine_config *cfg, czk_device **devs,
                                  unsigned n, czk_err *err) {
    return create(out, cfg, devs, n, err);
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
    czk__timespec_after(&ts, grace_ms * 1000000ULL);
    while (e->n_unfinished > 0 && grace_ms > 0) {
        if (pthread_cond_timedwait(&e->done_cv, &e->mu, &ts) == ETIMEDOUT)
            break;
    }
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (!czk__job_final(j))
            czk__job_finish(e, j, CZK_JOB_CANCELLED, "engine shut down before the job finished");
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
                czk__part_drop(e, &j->parts[i]);
        }
        if (j->inflight == 0)
            czk__job_release_circuit(e, j);
    }
    e->stopped = 1;
    pthread_cond_broadcast(&e->done_cv);
    pthread_mutex_unlock(&e->mu);
    czk__elog(e, CZK_LOG_INFO, "engine stopped");
    return CZK_OK;
}

void czk_engine_destroy(czk_engine *e) {
    if (e == NULL)
        return;
    czk_engine_shutdown(e, 0);
    engine_free(e);
}

void czk__engine_inject_failures(czk_engine *e, unsigned n) {
    /* Pairs with the compare-exchange in workers.c's take_injected. */
    atomic_fetch_add_explicit(&e->inject, n, memory_order_acq_rel);
}

int czk__engine_inject_device_fault(czk_engine *e, unsigned dev) {
    pthread_mutex_lock(&e->mu);
    int ok = dev < e->n_devs && e->gpu;
    if (ok)
        e->devs[dev].inject_fault = 1;
    pthread_mutex_unlock(&e->mu);
    return ok ? CZK_OK : CZK_EINVAL;
}
