/*
 * The span recorder: where a run's threads spent their time (czk_engine_trace_start), for the
 * timeline (timeline.c draws it). Off by default. The places that know a step's times (synth.c,
 * workers.c, finalize.c, jobs.c) call in here once, under e->mu, whether tracing or not: the
 * partition's timeline fields (part.synth_thread and the rest) are noted for its log line, and
 * spans are made only when trace_on is set, so that recording off costs one relaxed load.
 *
 * The buffer is e->trace under e->trace_mu, a leaf lock taken under e->mu or under none (never
 * with the log lock). It grows by doubling up to the capacity asked for, so that a large
 * capacity costs memory only as spans come; a span that finds it full (or no memory to grow)
 * is counted in trace_dropped.
 */
#include <string.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"

/* More than this many spans is a mistake (2^26 spans are some 10 GB). */
#define TRACE_MAX (1ULL << 26)
/* What start allocates at first. */
#define TRACE_FIRST 1024

void czk__trace_init(czk_engine *e) {
    atomic_init(&e->trace_on, 0);
    atomic_init(&e->fin_next, 0);
    pthread_mutex_init(&e->trace_mu, NULL);
}

void czk__trace_free(czk_engine *e) {
    czk_free(e->trace);
    e->trace = NULL;
    pthread_mutex_destroy(&e->trace_mu);
}

static int tracing(czk_engine *e) {
    return atomic_load_explicit(&e->trace_on, memory_order_relaxed);
}

/* Appends *s, growing the buffer up to trace_cap; counts it as dropped when it cannot. */
static void put(czk_engine *e, const czk_span *s) {
    pthread_mutex_lock(&e->trace_mu);
    if (e->trace_n == e->trace_alloc && e->trace_alloc < e->trace_cap) {
        size_t grow = e->trace_alloc > 0 ? e->trace_alloc * 2 : TRACE_FIRST;
        grow = grow < e->trace_cap ? grow : e->trace_cap;
        czk_span *more = czk_malloc(grow * sizeof *more);
        if (more != NULL) {
            if (e->trace_n > 0)
                memcpy(more, e->trace, e->trace_n * sizeof *more);
            czk_free(e->trace);
            e->trace = more;
            e->trace_alloc = grow;
        }
    }
    if (e->trace_n < e->trace_alloc)
        e->trace[e->trace_n++] = *s;
    else
        e->trace_dropped++;
    pthread_mutex_unlock(&e->trace_mu);
}

/* Job ids are cut to a span's buffer; a cut through a character would leave bytes that are not
 * UTF-8, which an SVG may not hold. */
void czk__copy_cut(char *dst, size_t n, const char *src) {
    size_t len = strlen(src);
    if (len >= n) {
        len = n - 1;
        while (len > 0 && ((unsigned char)src[len] & 0xC0) == 0x80)
            len--; /* src[len] continues a character: cut before that character */
    }
    memcpy(dst, src, len);
    dst[len] = '\0';
}

/* A span of p's job at [t0, t1] (absolute), on lane (lk, lane). */
static void span_of(czk_span *s, czk_engine *e, const job *j, int kind, int lk, unsigned lane,
                    uint64_t t0, uint64_t t1) {
    memset(s, 0, sizeof *s);
    s->kind = kind;
    s->lane_kind = lk;
    s->lane = lane;
    s->t0_ns = t0 - e->t_create_ns;
    s->t1_ns = t1 - e->t_create_ns;
    s->priority = j->prio;
    czk__copy_cut(s->job_id, sizeof s->job_id, j->id);
}

void czk__trace_synth(czk_engine *e, part *p, unsigned thread, uint64_t t0, uint64_t t1) {
    p->synth_thread = thread;
    p->synth_at_ns = t0 - e->t_create_ns;
    if (!tracing(e))
        return;
    czk_span s;
    span_of(&s, e, p->job, CZK_SPAN_SYNTH, CZK_LANE_SYNTH, thread, t0, t1);
    s.part = p->idx;
    put(e, &s);
}

void czk__trace_attempt(czk_engine *e, part *p, unsigned worker, uint64_t t0, uint64_t t1,
                        uint64_t t2) {
    p->worker = worker;
    if (!tracing(e) || t2 <= t1)
        return;
    czk_span s;
    span_of(&s, e, p->job, CZK_SPAN_LOCK_WAIT, CZK_LANE_WORKER, worker, t0, t1);
    s.part = p->idx;
    s.attempt = p->attempts;
    czk__copy_cut(s.device, sizeof s.device, p->dev_label != NULL ? p->dev_label : "");
    put(e, &s);
    /* The steps in the order the prover runs them, each cut at the region's end; the MSMs
     * as one span (on a GPU some run beside each other: their sum may pass the region's end). */
    const czk_groth16_timings *tm = &p->tm;
    const uint64_t msm =
        tm->msm_a_ns + tm->msm_b_g1_ns + tm->msm_b_g2_ns + tm->msm_l_ns + tm->msm_h_ns;
    const uint64_t step[3] = {tm->spmv_ns, tm->h_ns, msm};
    const int kinds[3] = {CZK_SPAN_SPMV, CZK_SPAN_QUOTIENT, CZK_SPAN_MSM};
    uint64_t at = t1;
    for (int i = 0; i < 3; i++) {
        if (step[i] == 0 || at >= t2)
            continue;
        uint64_t end = step[i] < t2 - at ? at + step[i] : t2;
        s.kind = kinds[i];
        s.t0_ns = at - e->t_create_ns;
        s.t1_ns = end - e->t_create_ns;
        put(e, &s);
        at = end;
    }
    if (at < t2) {
        s.kind = CZK_SPAN_REGION_REST;
        s.t0_ns = at - e->t_create_ns;
        s.t1_ns = t2 - e->t_create_ns;
        put(e, &s);
    }
}

void czk__trace_verify(czk_engine *e, part *p, unsigned fin, uint64_t t0, uint64_t t1) {
    p->finalizer = fin;
    p->verify_at_ns = t0 - e->t_create_ns;
    if (!tracing(e) || p->prove_rc != CZK_OK)
        return;
    czk_span s;
    span_of(&s, e, p->job, CZK_SPAN_VERIFY, CZK_LANE_FINALIZER, fin, t0, t1);
    s.part = p->idx;
    s.attempt = p->attempts;
    put(e, &s);
}

void czk__trace_job(czk_engine *e, const job *j, int done) {
    if (!tracing(e))
        return;
    const uint64_t t = done ? j->t_done_ns : j->t_submit_ns;
    czk_span s;
    span_of(&s, e, j, done ? CZK_SPAN_DONE : CZK_SPAN_SUBMIT, CZK_LANE_JOBS, 0, t, t);
    s.part = (uint32_t)j->n_parts;
    s.status = done ? (int)j->status : 0;
    put(e, &s);
}

int czk_engine_trace_start(czk_engine *e, size_t capacity, czk_err *err) {
    if (capacity == 0 || capacity > TRACE_MAX)
        return czk_err_set(err, CZK_EINVAL, "trace capacity %zu: 1 to %llu spans", capacity,
                           (unsigned long long)TRACE_MAX);
    const size_t first = capacity < TRACE_FIRST ? capacity : TRACE_FIRST;
    czk_span *buf = czk_malloc(first * sizeof *buf);
    if (buf == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate %zu trace spans", first);
    pthread_mutex_lock(&e->trace_mu);
    czk_free(e->trace);
    e->trace = buf;
    e->trace_n = 0;
    e->trace_alloc = first;
    e->trace_cap = capacity;
    e->trace_dropped = 0;
    atomic_store_explicit(&e->trace_on, 1, memory_order_relaxed);
    pthread_mutex_unlock(&e->trace_mu);
    return CZK_OK;
}

int czk_engine_trace_take(czk_engine *e, czk_span **spans, size_t *n, uint64_t *dropped,
                          czk_err *err) {
    (void)err;
    /* The recorded buffer is handed over as it is; recording goes on in a new one, which put
     * allocates when the next span comes. */
    pthread_mutex_lock(&e->trace_mu);
    *spans = e->trace_n > 0 ? e->trace : NULL;
    *n = e->trace_n;
    if (dropped != NULL)
        *dropped = e->trace_dropped;
    if (e->trace_n > 0) {
        e->trace = NULL;
        e->trace_alloc = 0;
    }
    e->trace_n = 0;
    e->trace_dropped = 0;
    pthread_mutex_unlock(&e->trace_mu);
    return CZK_OK;
}

void czk_engine_trace_stop(czk_engine *e) {
    pthread_mutex_lock(&e->trace_mu);
    atomic_store_explicit(&e->trace_on, 0, memory_order_relaxed);
    czk_free(e->trace);
    e->trace = NULL;
    e->trace_n = 0;
    e->trace_alloc = 0;
    e->trace_cap = 0;
    e->trace_dropped = 0;
    pthread_mutex_unlock(&e->trace_mu);
}
