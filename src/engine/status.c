/*
 * Status and metrics: a snapshot of the engine under its lock (czk_engine_get_status), and the
 * same figures in Prometheus' text exposition (czk_engine_metrics).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"
#include "util/timer.h"

int czk_engine_get_status(czk_engine *e, czk_engine_status *st) {
    memset(st, 0, sizeof *st);
    pthread_mutex_lock(&e->mu);
    czk__prune(e);
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
    for (unsigned i = 0; i < e->n_devs; i++)
        st->pinned_used_bytes += e->devs[i].pinned_held;
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
        if (czk__job_final(j))
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
        if (c->state != C_HOT)
            cs->tier = 2;
        else if (e->gpu && __atomic_load_n(&c->resident_devs, __ATOMIC_ACQUIRE) == 0)
            cs->tier = 1;
        else
            cs->tier = 0;
        cs->size_bytes = c->state == C_COLD ? c->est_bytes : c->bytes;
        cs->ref_count = c->refs;
        cs->synthetic = strcmp(c->kind->name, "synthetic") == 0;
    }
    for (unsigned k = 0; k < e->n_devs; k++) {
        const edevice *dv = &e->devs[k];
        czk_device_status *d = &st->devices[st->n_devices++];
        d->ordinal = dv->info.ordinal >= 0 ? (uint32_t)dv->info.ordinal : 0;
        snprintf(d->name, sizeof d->name, "%s", dv->info.name);
        d->vram_total_bytes = dv->info.mem_total;
        d->vram_free_bytes = dv->mem_free;
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
        EMIT("czk_jobs_pending{priority=\"%s\"} %u\n", czk__prio_names[p],
             st.pending_by_priority[p]);
    EMIT("# TYPE czk_jobs_in_progress gauge\n");
    for (int p = 1; p < CZK_PRIORITY_COUNT; p++)
        EMIT("czk_jobs_in_progress{priority=\"%s\"} %u\n", czk__prio_names[p],
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
