/*
 * Status and metrics: a snapshot of the engine under its lock (czk_engine_get_status), that
 * snapshot as JSON (czk_engine_status_json: the one shape of GET /status and `czk status`), and
 * the same figures plus latency histograms in Prometheus' text exposition (czk_engine_metrics).
 *
 * Metrics follow Prometheus' conventions (prometheus.io/docs/practices/naming): every family
 * has # HELP and # TYPE, times are seconds, counters end in _total, histograms are cumulative
 * _bucket{le} series with _sum and _count. Histograms are counted under e->mu by the threads
 * that finish partitions and jobs (czk__metrics_partition, czk__metrics_job), in fixed buckets.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"
#include "util/text.h"
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
    st->jobs = nj ? czk_calloc(nj, sizeof *st->jobs) : NULL;
    st->circuits = nc ? czk_calloc(nc, sizeof *st->circuits) : NULL;
    st->devices = czk_calloc(e->n_devs, sizeof *st->devices);
    if ((nj && (st->queues == NULL || st->jobs == NULL)) || (nc && st->circuits == NULL) ||
        st->devices == NULL) {
        rc = CZK_ENOMEM;
        goto out;
    }
    uint64_t now = czk_time_ns();
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (czk__job_final(j))
            continue;
        int running = j->status == CZK_JOB_RUNNING;
        czk_job_brief *b = &st->jobs[st->n_jobs++];
        snprintf(b->job_id, sizeof b->job_id, "%s", j->id);
        snprintf(b->kind, sizeof b->kind, "%s", j->kind);
        snprintf(b->circuit_id, sizeof b->circuit_id, "%s", j->c->id);
        b->priority = (czk_priority)j->prio;
        b->status = j->status;
        b->partitions = (uint32_t)j->n_parts;
        b->partitions_done = (uint32_t)j->parts_done;
        b->age_ms = (now - j->t_submit_ns) / 1000000ULL;
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
        cs->priority = c->max_prio;
        cs->device_only = c->state == C_HOT && c->host == H_DROPPED;
    }
    for (unsigned k = 0, w0 = 0; k < e->n_devs; w0 += czk__device_workers(e, k), k++) {
        const edevice *dv = &e->devs[k];
        czk_device_status *d = &st->devices[st->n_devices++];
        d->ordinal = dv->info.ordinal >= 0 ? (uint32_t)dv->info.ordinal : 0;
        snprintf(d->name, sizeof d->name, "%.100s%s", dv->info.name,
                 dv->lane_of >= 0 ? " (priority lane)" : "");
        d->vram_total_bytes = dv->info.mem_total;
        d->vram_free_bytes = dv->mem_free;
        d->workers = czk__device_workers(e, k);
        d->partitions_proved = dv->n_proved;
        d->partitions_failed = dv->n_failed;
        d->failed = dv->down;
        snprintf(d->failure, sizeof d->failure, "%s", dv->down ? dv->down_why : "");
        for (unsigned i = w0; i < w0 + d->workers; i++) {
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
    czk_free(st->jobs);
    czk_free(st->circuits);
    czk_free(st->devices);
    memset(st, 0, sizeof *st);
}

/* ---- JSON ------------------------------------------------------------------------------ */

/* A JSON string literal of s (ids are client-chosen: escape everything JSON requires). */
static void put_json_string(czk_text *t, const char *s) {
    czk_text_put(t, "\"");
    for (const unsigned char *p = (const unsigned char *)s; *p != '\0'; p++) {
        if (*p == '"' || *p == '\\')
            czk_text_put(t, "\\%c", *p);
        else if (*p < 0x20 || *p == 0x7f)
            czk_text_put(t, "\\u%04x", *p);
        else
            czk_text_put(t, "%c", *p);
    }
    czk_text_put(t, "\"");
}

static const char *const tier_names[] = {"HOT", "WARM", "COLD"};

int czk_engine_status_json(const czk_engine_status *st, char **json) {
    *json = NULL;
    czk_text t = {0};
    czk_text_put(&t,
                 "{\"uptime_seconds\": %" PRIu64 ", \"shutting_down\": %s,\n"
                 " \"jobs\": {\"completed\": %" PRIu64 ", \"failed\": %" PRIu64
                 ", \"cancelled\": %" PRIu64 ", \"known\": %u},\n"
                 " \"partitions\": {\"proved\": %" PRIu64 ", \"retried\": %" PRIu64
                 ", \"failed\": %" PRIu64 "},\n",
                 st->uptime_s, st->shutting_down ? "true" : "false", st->jobs_completed,
                 st->jobs_failed, st->jobs_cancelled, st->jobs_known, st->partitions_proved,
                 st->partitions_retried, st->partitions_failed);
    czk_text_put(&t, " \"priorities\": {");
    for (int p = 1; p < CZK_PRIORITY_COUNT; p++)
        czk_text_put(&t, "%s\"%s\": {\"pending\": %u, \"in_progress\": %u}", p > 1 ? ", " : "",
                     czk__prio_names[p], st->pending_by_priority[p],
                     st->in_progress_by_priority[p]);
    czk_text_put(&t, "},\n \"queues\": [");
    for (size_t i = 0; i < st->n_queues; i++) {
        czk_text_put(&t, "%s{\"proof_kind\": ", i > 0 ? ", " : "");
        put_json_string(&t, st->queues[i].kind);
        czk_text_put(&t, ", \"pending\": %u, \"in_progress\": %u}", st->queues[i].pending,
                     st->queues[i].in_progress);
    }
    czk_text_put(&t, "],\n \"circuits\": [");
    for (size_t i = 0; i < st->n_circuits; i++) {
        const czk_circuit_status *c = &st->circuits[i];
        czk_text_put(&t, "%s\n  {\"circuit_id\": ", i > 0 ? "," : "");
        put_json_string(&t, c->circuit_id);
        czk_text_put(&t,
                     ", \"tier\": \"%s\", \"size_bytes\": %" PRIu64 ", \"ref_count\": %u, "
                     "\"synthetic\": %s, \"device_only\": %s}",
                     c->tier >= 0 && c->tier <= 2 ? tier_names[c->tier] : "COLD", c->size_bytes,
                     c->ref_count, c->synthetic ? "true" : "false",
                     c->device_only ? "true" : "false");
    }
    czk_text_put(&t, "],\n \"devices\": [");
    for (size_t i = 0; i < st->n_devices; i++) {
        const czk_device_status *d = &st->devices[i];
        czk_text_put(&t, "%s\n  {\"ordinal\": %u, \"name\": ", i > 0 ? "," : "", d->ordinal);
        put_json_string(&t, d->name);
        czk_text_put(&t,
                     ", \"vram_total_bytes\": %" PRIu64 ", \"vram_free_bytes\": %" PRIu64
                     ", \"workers\": %u, \"busy_workers\": %u, \"current_job_id\": ",
                     d->vram_total_bytes, d->vram_free_bytes, d->workers, d->busy_workers);
        put_json_string(&t, d->current_job_id);
        czk_text_put(&t,
                     ", \"partitions_proved\": %" PRIu64 ", \"partitions_failed\": %" PRIu64
                     ", \"failed\": %s, \"failure\": ",
                     d->partitions_proved, d->partitions_failed, d->failed ? "true" : "false");
        put_json_string(&t, d->failure);
        czk_text_put(&t, "}");
    }
    /* Request ids are the client's (Curio's WindowPoSt ids have spaces and brackets):
     * put_json_string escapes them. */
    czk_text_put(&t, "],\n \"active_jobs\": [");
    for (size_t i = 0; i < st->n_jobs; i++) {
        const czk_job_brief *b = &st->jobs[i];
        czk_text_put(&t, "%s\n  {\"job_id\": ", i > 0 ? "," : "");
        put_json_string(&t, b->job_id);
        czk_text_put(&t, ", \"proof_kind\": ");
        put_json_string(&t, b->kind);
        czk_text_put(&t, ", \"circuit_id\": ");
        put_json_string(&t, b->circuit_id);
        czk_text_put(&t,
                     ", \"priority\": \"%s\", \"status\": \"%s\", \"partitions\": %u"
                     ", \"partitions_done\": %u, \"age_ms\": %" PRIu64 "}",
                     czk_priority_name(b->priority), czk_job_status_name(b->status), b->partitions,
                     b->partitions_done, b->age_ms);
    }
    czk_text_put(&t,
                 "],\n \"memory\": {\"host_budget_bytes\": %" PRIu64
                 ", \"host_reserved_bytes\": %" PRIu64 ", \"host_allocated_bytes\": %" PRIu64
                 ", \"pinned_budget_bytes\": %" PRIu64 ", \"pinned_used_bytes\": %" PRIu64 "}}\n",
                 st->host_budget_bytes, st->host_reserved_bytes, st->host_allocated_bytes,
                 st->pinned_budget_bytes, st->pinned_used_bytes);
    if (t.failed) {
        czk_free(t.p);
        return CZK_ENOMEM;
    }
    *json = t.p;
    return CZK_OK;
}

/* ---- metrics --------------------------------------------------------------------------- */

/* Bucket bounds in seconds, shared by every histogram: a 2^8 partition on a CPU takes
 * milliseconds, a 2^27 PoRep partition about a second on an H200 and minutes on a CPU, a
 * whole 10-partition PoRep job tens of seconds; 1-2.5-5 steps cover that span in 16 buckets. */
static const double hist_bounds_s[CZK__HIST_BUCKETS] = {
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 25, 60, 300};

/* Stage label values (enum CZK__STAGE_*). */
static const char *const stage_names[CZK__STAGES] = {"queue", "synthesis", "prove", "verify"};

static void hist_observe(czk__hist *h, uint64_t ns) {
    double s = (double)ns / 1e9;
    size_t b = 0;
    while (b < CZK__HIST_BUCKETS && s > hist_bounds_s[b])
        b++;
    h->counts[b]++;
    h->sum_ns += ns;
    h->count++;
}

void czk__metrics_partition(czk_engine *e, const part *p) {
    hist_observe(&e->stage_hist[CZK__STAGE_QUEUE], p->queue_ns);
    hist_observe(&e->stage_hist[CZK__STAGE_SYNTH], p->synth_ns);
    hist_observe(&e->stage_hist[CZK__STAGE_PROVE], p->kernel_ns);
    hist_observe(&e->stage_hist[CZK__STAGE_VERIFY], p->verify_ns);
}

void czk__metrics_job(czk_engine *e, const job *j) {
    const char *kind = j->kind_given ? j->kind : "unspecified";
    czk__job_stats *s = NULL;
    for (size_t i = 0; i < e->n_job_stats && s == NULL; i++) {
        czk__job_stats *o = &e->job_stats[i];
        if (strcmp(o->circuit, j->c->id) == 0 && strcmp(o->kind, kind) == 0)
            s = o;
    }
    if (s == NULL && e->n_job_stats < CZK__JOB_STATS_MAX - 1) {
        s = &e->job_stats[e->n_job_stats++];
        s->circuit = j->c->id;
        snprintf(s->kind, sizeof s->kind, "%s", kind);
    } else if (s == NULL) {
        s = &e->job_stats[CZK__JOB_STATS_MAX - 1];
        s->circuit = "_other";
        snprintf(s->kind, sizeof s->kind, "_other");
        e->n_job_stats = CZK__JOB_STATS_MAX;
    }
    if (j->status == CZK_JOB_COMPLETED) {
        s->completed++;
        hist_observe(&s->proof, j->t_done_ns - j->t_submit_ns);
    } else if (j->status == CZK_JOB_FAILED) {
        s->failed++;
    } else {
        s->cancelled++;
    }
}

/* A Prometheus label value: backslash, quote and newline escaped (ids are client-chosen). */
static void put_label(czk_text *t, const char *s) {
    for (; *s != '\0'; s++) {
        if (*s == '\\' || *s == '"')
            czk_text_put(t, "\\%c", *s);
        else if (*s == '\n')
            czk_text_put(t, "\\n");
        else
            czk_text_put(t, "%c", *s);
    }
}

static void put_family(czk_text *t, const char *name, const char *type, const char *help) {
    czk_text_put(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A family of one unlabelled sample. */
static void put_single(czk_text *t, const char *name, const char *type, const char *help,
                       uint64_t v) {
    put_family(t, name, type, help);
    czk_text_put(t, "%s %" PRIu64 "\n", name, v);
}

/* A device's sample up to its labels' end: `name{device="N",name="LABEL"`; the caller adds any
 * further label and the value. */
static void put_device(czk_text *t, const char *name, const czk_device_status *d) {
    czk_text_put(t, "%s{device=\"%u\",name=\"", name, d->ordinal);
    put_label(t, d->name);
    czk_text_put(t, "\"");
}

/* A gauge family with one sample per priority (the unspecified priority 0 left out). */
static void put_by_priority(czk_text *t, const char *name, const char *help,
                            const uint32_t *counts) {
    put_family(t, name, "gauge", help);
    for (int p = 1; p < CZK_PRIORITY_COUNT; p++)
        czk_text_put(t, "%s{priority=\"%s\"} %u\n", name, czk__prio_names[p], counts[p]);
}

/* One histogram's series; `labels` is "" or `key="value",` pairs ending in a comma. */
static void put_hist(czk_text *t, const char *name, const char *labels, const czk__hist *h) {
    uint64_t cum = 0;
    for (size_t b = 0; b <= CZK__HIST_BUCKETS; b++) {
        cum += h->counts[b];
        if (b < CZK__HIST_BUCKETS)
            czk_text_put(t, "%s_bucket{%sle=\"%g\"} %" PRIu64 "\n", name, labels, hist_bounds_s[b],
                         cum);
        else
            czk_text_put(t, "%s_bucket{%sle=\"+Inf\"} %" PRIu64 "\n", name, labels, cum);
    }
    size_t n = strlen(labels);
    czk_text_put(t, "%s_sum%s%.*s%s %.9f\n", name, n ? "{" : "", n ? (int)n - 1 : 0, labels,
                 n ? "}" : "", (double)h->sum_ns / 1e9);
    czk_text_put(t, "%s_count%s%.*s%s %" PRIu64 "\n", name, n ? "{" : "", n ? (int)n - 1 : 0,
                 labels, n ? "}" : "", h->count);
}

static const char *const step_names[] = {"spmv",     "quotient", "msm_a", "msm_b_g1",
                                         "msm_b_g2", "msm_l",    "msm_h"};

int czk_engine_metrics(czk_engine *e, char **out) {
    *out = NULL;
    czk_engine_status st;
    int rc = czk_engine_get_status(e, &st);
    if (rc != CZK_OK)
        return rc;
    /* Copied under the lock, rendered outside it (the table is ~20 KiB: heap, not stack). */
    czk__hist stages[CZK__STAGES];
    czk_step_times steps;
    czk__job_stats *js = czk_malloc(sizeof e->job_stats);
    if (js == NULL) {
        czk_engine_status_clear(&st);
        return CZK_ENOMEM;
    }
    pthread_mutex_lock(&e->mu);
    memcpy(stages, e->stage_hist, sizeof stages);
    steps = e->steps_total;
    size_t n_js = e->n_job_stats;
    memcpy(js, e->job_stats, n_js * sizeof *js);
    int gpu = e->gpu;
    pthread_mutex_unlock(&e->mu);

    czk_text t = {0};
    char labels[64];
    static const char *const fin[3] = {"completed", "failed", "cancelled"};
    for (int f = 0; f < 3; f++) {
        char name[64], help[128];
        snprintf(name, sizeof name, "czk_jobs_%s_total", fin[f]);
        snprintf(help, sizeof help, "Jobs that ended %s, by circuit and proof kind.", fin[f]);
        put_family(&t, name, "counter", help);
        for (size_t i = 0; i < n_js; i++) {
            uint64_t v = f == 0 ? js[i].completed : f == 1 ? js[i].failed : js[i].cancelled;
            czk_text_put(&t, "%s{circuit=\"", name);
            put_label(&t, js[i].circuit);
            czk_text_put(&t, "\",proof_kind=\"");
            put_label(&t, js[i].kind);
            czk_text_put(&t, "\"} %" PRIu64 "\n", v);
        }
    }
    put_family(&t, "czk_proof_seconds", "histogram",
               "Completed jobs' time from submit to their last partition's proof, by circuit and "
               "proof kind.");
    for (size_t i = 0; i < n_js; i++) {
        czk_text l = {0};
        czk_text_put(&l, "circuit=\"");
        put_label(&l, js[i].circuit);
        czk_text_put(&l, "\",proof_kind=\"");
        put_label(&l, js[i].kind);
        czk_text_put(&l, "\",");
        if (l.failed)
            t.failed = 1;
        else
            put_hist(&t, "czk_proof_seconds", l.p, &js[i].proof);
        czk_free(l.p);
    }
    put_single(&t, "czk_partitions_proved_total", "counter", "Partitions proved and verified.",
               st.partitions_proved);
    put_single(&t, "czk_partitions_retried_total", "counter",
               "Partition attempts that failed and were tried again.", st.partitions_retried);
    put_single(&t, "czk_partitions_failed_total", "counter",
               "Partitions that failed for good (their job failed).", st.partitions_failed);
    put_family(&t, "czk_partition_stage_seconds", "histogram",
               "Proved partitions' time per stage: queue (waiting, all queues), synthesis "
               "(witness), prove (the device's proof), verify.");
    for (int s = 0; s < CZK__STAGES; s++) {
        snprintf(labels, sizeof labels, "stage=\"%s\",", stage_names[s]);
        put_hist(&t, "czk_partition_stage_seconds", labels, &stages[s]);
    }
    put_family(&t, "czk_prove_step_seconds_total", "counter",
               "Proved partitions' proving time per step of the Groth16 prover.");
    const uint64_t step_us[] = {steps.spmv_us,     steps.h_us,        steps.msm_a_us,
                                steps.msm_b_g1_us, steps.msm_b_g2_us, steps.msm_l_us,
                                steps.msm_h_us};
    for (size_t s = 0; s < sizeof step_us / sizeof step_us[0]; s++)
        czk_text_put(&t, "czk_prove_step_seconds_total{step=\"%s\"} %.6f\n", step_names[s],
                     (double)step_us[s] / 1e6);
    put_by_priority(&t, "czk_jobs_pending", "Unfinished jobs not started, by priority.",
                    st.pending_by_priority);
    put_by_priority(&t, "czk_jobs_in_progress", "Unfinished jobs started, by priority.",
                    st.in_progress_by_priority);
    put_single(&t, "czk_host_budget_bytes", "gauge", "Host memory the engine may use.",
               st.host_budget_bytes);
    put_single(&t, "czk_host_reserved_bytes", "gauge",
               "Host memory reserved from the budget by keys and partitions.",
               st.host_reserved_bytes);
    put_single(&t, "czk_host_allocated_bytes", "gauge",
               "Host memory allocated through czk's counted allocator (whole process).",
               st.host_allocated_bytes);
    put_family(&t, "czk_circuit_bytes", "gauge",
               "Each registered circuit's key and constraint bytes (an estimate when cold).");
    for (size_t i = 0; i < st.n_circuits; i++) {
        czk_text_put(&t, "czk_circuit_bytes{circuit=\"");
        put_label(&t, st.circuits[i].circuit_id);
        czk_text_put(&t, "\",tier=\"%s\"} %" PRIu64 "\n",
                     st.circuits[i].tier == 0   ? "hot"
                     : st.circuits[i].tier == 1 ? "warm"
                                                : "cold",
                     st.circuits[i].size_bytes);
    }
    uint32_t busy = 0;
    for (size_t i = 0; i < st.n_devices; i++)
        busy += st.devices[i].busy_workers;
    put_single(&t, "czk_workers_busy", "gauge", "Prove workers proving a partition now.", busy);
    put_family(&t, "czk_device_up", "gauge",
               "1 while the device takes partitions, 0 once a fault took it out of service.");
    for (size_t i = 0; i < st.n_devices; i++) {
        put_device(&t, "czk_device_up", &st.devices[i]);
        czk_text_put(&t, "} %d\n", !st.devices[i].failed);
    }
    put_family(&t, "czk_device_partitions_total", "counter",
               "Partition attempts on the device (retries on the CPU fallback not included), by "
               "result.");
    for (size_t i = 0; i < st.n_devices; i++) {
        for (int ok = 1; ok >= 0; ok--) {
            put_device(&t, "czk_device_partitions_total", &st.devices[i]);
            czk_text_put(&t, ",result=\"%s\"} %" PRIu64 "\n", ok ? "proved" : "failed",
                         ok ? st.devices[i].partitions_proved : st.devices[i].partitions_failed);
        }
    }
    /* Device memory only where there is some: the CPU has none to report. */
    if (gpu) {
        put_family(&t, "czk_device_vram_free_bytes", "gauge",
                   "Free device memory, as of the latest proof there.");
        for (size_t i = 0; i < st.n_devices; i++) {
            put_device(&t, "czk_device_vram_free_bytes", &st.devices[i]);
            czk_text_put(&t, "} %" PRIu64 "\n", st.devices[i].vram_free_bytes);
        }
        put_family(&t, "czk_device_vram_total_bytes", "gauge", "Device memory.");
        for (size_t i = 0; i < st.n_devices; i++) {
            put_device(&t, "czk_device_vram_total_bytes", &st.devices[i]);
            czk_text_put(&t, "} %" PRIu64 "\n", st.devices[i].vram_total_bytes);
        }
    }
    put_single(&t, "czk_uptime_seconds", "gauge", "Seconds since the engine was created.",
               st.uptime_s);
    czk_free(js);
    czk_engine_status_clear(&st);
    if (t.failed) {
        czk_free(t.p);
        return CZK_ENOMEM;
    }
    *out = t.p;
    return CZK_OK;
}
