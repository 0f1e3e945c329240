/*
 * The timeline: the span recorder on a small CPU engine's run (every partition's synthesis,
 * kernel-region steps and verification in order; a CRITICAL job's marks), the same spans
 * rebuilt from the run's log lines, the SVG (well-formed, a rect per span, a label per lane),
 * the capacity limit, and the log parser on lines as a daemon writes them.
 */
#include "czk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "engine/engine_test_util.h"
#include "tests/test.h"
#include "util/alloc.h"

/* ---- helpers ---------------------------------------------------------------------------- */

/* Occurrences of `needle` in s. */
static size_t count_of(const char *s, const char *needle) {
    size_t n = 0, k = strlen(needle);
    for (const char *p = strstr(s, needle); p != NULL; p = strstr(p + k, needle))
        n++;
    return n;
}

/*
 * 1 when `s` is well-formed as far as its tags go: an XML declaration first, then elements that
 * nest and close (<a ...>...</a> or <a .../>) under one root, no '<' or '&' outside markup and
 * entities, and quoted attribute values. Enough to catch what a writer gets wrong (an
 * unescaped id, an element left open) without an XML library, which czk does not link.
 */
static int xml_well_formed(const char *s, char *why, size_t why_n) {
    const char *stack[64];
    size_t depth = 0, roots = 0;
    const char *p = s;
    if (strncmp(p, "<?xml ", 6) != 0)
        return snprintf(why, why_n, "no XML declaration"), 0;
    p = strstr(p, "?>");
    if (p == NULL)
        return snprintf(why, why_n, "declaration not closed"), 0;
    for (p += 2; *p != '\0';) {
        if (*p == '&') {
            const char *semi = strchr(p, ';');
            if (semi == NULL || semi - p > 6)
                return snprintf(why, why_n, "a bare '&' at %zu", (size_t)(p - s)), 0;
            p = semi + 1;
            continue;
        }
        if (*p != '<') {
            if (*p == '>')
                return snprintf(why, why_n, "a bare '>' at %zu", (size_t)(p - s)), 0;
            p++;
            continue;
        }
        const int closing = p[1] == '/';
        const char *name = p + 1 + closing;
        size_t nl = strcspn(name, " />\n");
        if (nl == 0)
            return snprintf(why, why_n, "a tag without a name at %zu", (size_t)(p - s)), 0;
        const char *q = name + nl;
        int quote = 0;
        for (; *q != '\0' && (quote || *q != '>'); q++) {
            if (*q == '"')
                quote = !quote;
            else if (*q == '<' && !quote)
                return snprintf(why, why_n, "'<' inside a tag at %zu", (size_t)(q - s)), 0;
        }
        if (*q != '>')
            return snprintf(why, why_n, "a tag not closed at %zu", (size_t)(p - s)), 0;
        const int empty = q[-1] == '/';
        if (closing) {
            if (depth == 0 || strncmp(stack[depth - 1], name, nl) != 0 ||
                strcspn(stack[depth - 1], " />\n") != nl)
                return snprintf(why, why_n, "</%.*s> closes nothing open at %zu", (int)nl, name,
                                (size_t)(p - s)),
                       0;
            depth--;
        } else if (!empty) {
            if (depth == 0 && roots++ > 0)
                return snprintf(why, why_n, "a second root at %zu", (size_t)(p - s)), 0;
            if (depth == 64)
                return snprintf(why, why_n, "nested too deep"), 0;
            stack[depth++] = name;
        } else if (depth == 0) {
            return snprintf(why, why_n, "an empty element outside the root"), 0;
        }
        p = q + 1;
    }
    if (depth != 0 || roots != 1)
        return snprintf(why, why_n, "%zu elements left open, %zu roots", depth, roots), 0;
    return 1;
}

/* The log lines captured, one a line, as a daemon's log file holds them. */
static char *cap_text(czk_etest_logcap *c, size_t *len) {
    size_t n = 1;
    for (size_t i = 0; i < c->n; i++)
        n += strlen(c->lines[i]) + 1;
    char *s = malloc(n);
    size_t at = 0;
    for (size_t i = 0; s != NULL && i < c->n; i++)
        at += (size_t)sprintf(s + at, "%s\n", c->lines[i]);
    if (s != NULL)
        s[at] = '\0';
    *len = at;
    return s;
}

static int is_step(int kind) {
    return kind >= CZK_SPAN_SPMV && kind <= CZK_SPAN_REGION_REST;
}

/* The spans of job `id`'s partition `part` of `kind` (count, and the first in *out). */
static size_t find_spans(const czk_span *s, size_t n, const char *id, uint32_t part, int kind,
                         const czk_span **out) {
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind == kind && strcmp(s[i].job_id, id) == 0 &&
            (kind == CZK_SPAN_SUBMIT || kind == CZK_SPAN_DONE || s[i].part == part)) {
            if (k++ == 0 && out != NULL)
                *out = &s[i];
        }
    }
    return k;
}

static uint64_t absdiff(uint64_t a, uint64_t b) {
    return a > b ? a - b : b - a;
}

/* 1 when a span like *a (its fields, its times within 5 µs) is in b[0..n), or *a is shorter
 * than 10 µs (which the log's rounding to the µs may leave out or keep). */
static int matched(const czk_span *a, const czk_span *b, size_t n) {
    if (a->t1_ns - a->t0_ns < 10000 && a->kind != CZK_SPAN_SUBMIT && a->kind != CZK_SPAN_DONE)
        return 1;
    for (size_t k = 0; k < n; k++) {
        if (b[k].kind == a->kind && b[k].lane_kind == a->lane_kind && b[k].lane == a->lane &&
            b[k].part == a->part && b[k].priority == a->priority && b[k].status == a->status &&
            strcmp(b[k].job_id, a->job_id) == 0 && strcmp(b[k].device, a->device) == 0 &&
            absdiff(b[k].t0_ns, a->t0_ns) <= 5000 && absdiff(b[k].t1_ns, a->t1_ns) <= 5000)
            return 1;
    }
    return 0;
}

/*
 * Checks one job's spans: per partition one synthesis, one lock wait, the kernel region's steps
 * on the lock wait's worker from its end, back to back, then one verification after them; the
 * job's submit mark before every synthesis and its done mark after every verification.
 * Returns NULL, or what is wrong.
 */
static const char *check_job(const czk_span *s, size_t n, const char *id, size_t parts, int prio) {
    static char why[200];
    const czk_span *sub = NULL, *done = NULL;
    if (find_spans(s, n, id, 0, CZK_SPAN_SUBMIT, &sub) != 1 ||
        find_spans(s, n, id, 0, CZK_SPAN_DONE, &done) != 1)
        return "not one submit and one done mark";
    if (sub->part != parts || done->part != parts || sub->priority != prio ||
        done->status != CZK_JOB_COMPLETED || sub->lane_kind != CZK_LANE_JOBS)
        return "a mark's fields";
    for (uint32_t p = 0; p < parts; p++) {
        const czk_span *syn = NULL, *wait = NULL, *ver = NULL;
        if (find_spans(s, n, id, p, CZK_SPAN_SYNTH, &syn) != 1 ||
            find_spans(s, n, id, p, CZK_SPAN_LOCK_WAIT, &wait) != 1 ||
            find_spans(s, n, id, p, CZK_SPAN_VERIFY, &ver) != 1) {
            snprintf(why, sizeof why, "part %u: not one synthesis, lock wait and verify", p);
            return why;
        }
        if (syn->lane_kind != CZK_LANE_SYNTH || wait->lane_kind != CZK_LANE_WORKER ||
            ver->lane_kind != CZK_LANE_FINALIZER || strcmp(wait->device, "cpu") != 0 ||
            syn->priority != prio || wait->attempt != 1)
            return "a span's lane, device, priority or attempt";
        if (!(sub->t0_ns <= syn->t0_ns && syn->t0_ns <= syn->t1_ns && syn->t1_ns <= wait->t0_ns &&
              wait->t0_ns <= wait->t1_ns)) {
            snprintf(why, sizeof why, "part %u: submit, synthesis and lock wait out of order", p);
            return why;
        }
        /* The steps, in the order they were recorded, back to back from the lock's grant. */
        uint64_t at = wait->t1_ns;
        int steps = 0, last_kind = -1;
        for (size_t i = 0; i < n; i++) {
            const czk_span *x = &s[i];
            if (!is_step(x->kind) || strcmp(x->job_id, id) != 0 || x->part != p)
                continue;
            if (x->lane_kind != CZK_LANE_WORKER || x->lane != wait->lane || x->t0_ns != at ||
                x->t1_ns < x->t0_ns || x->kind <= last_kind) {
                snprintf(why, sizeof why, "part %u: step %d not where the last one ended", p,
                         x->kind);
                return why;
            }
            at = x->t1_ns;
            last_kind = x->kind;
            steps |= 1 << x->kind;
        }
        /* The CPU prover times each step. */
        const int want = 1 << CZK_SPAN_SPMV | 1 << CZK_SPAN_QUOTIENT | 1 << CZK_SPAN_MSM;
        if ((steps & want) != want) {
            snprintf(why, sizeof why, "part %u: steps %#x lack SpMV, quotient or MSM", p, steps);
            return why;
        }
        if (!(at <= ver->t0_ns && ver->t0_ns < ver->t1_ns && ver->t1_ns <= done->t0_ns)) {
            snprintf(why, sizeof why, "part %u: region end, verification, done out of order", p);
            return why;
        }
    }
    return NULL;
}

/* ---- tests ------------------------------------------------------------------------------ */

static void trace_run(czk_test_ctx *t, const char *dir) {
    czk_etest_logcap cap;
    czk_engine_config cfg = czk_etest_config();
    cfg.workers_per_device = 2; /* two workers record at once */
    czk_engine *e = NULL;
    czk_span *spans = NULL, *from_log = NULL;
    size_t n = 0, n_log = 0, len = 0;
    uint64_t dropped = 1;
    char *log = NULL, *svg = NULL, path[300], why[200] = "";
    const char *bad = NULL;
    CHECK(czk_etest_engine(&e, &cfg, "porep8", 8, &(czk_etest_setup){.cap = &cap, .preload = 1}) ==
          CZK_OK);
    CHECK(czk_engine_trace_start(e, 4096, NULL) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "n1", "porep8", CZK_PRIORITY_NORMAL, 3, 1, NULL) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "crit", "porep8", CZK_PRIORITY_CRITICAL, 1, 2, NULL) == CZK_OK);
    int ok = czk_etest_await_status(e, "n1", 0) == CZK_JOB_COMPLETED;
    ok &= czk_etest_await_status(e, "crit", 0) == CZK_JOB_COMPLETED;
    CHECK(czk_engine_trace_take(e, &spans, &n, &dropped, NULL) == CZK_OK);
    czk_engine_destroy(e); /* flushes the log */
    if (!ok || dropped != 0) {
        czk_test_fail(t, __FILE__, __LINE__, "jobs completed %d, dropped %llu", ok,
                      (unsigned long long)dropped);
        goto out;
    }
    /* 4 partitions: synthesis, lock wait, 3 or 4 steps, verify; 2 marks per job. */
    if (n < 4 * 6 + 4 || (bad = check_job(spans, n, "n1", 3, CZK_PRIORITY_NORMAL)) != NULL ||
        (bad = check_job(spans, n, "crit", 1, CZK_PRIORITY_CRITICAL)) != NULL) {
        czk_test_fail(t, __FILE__, __LINE__, "%zu spans: %s", n, bad != NULL ? bad : "too few");
        goto out;
    }

    /* The log lines give the same spans, to their microseconds (the log's resolution: a span
     * under a few of them may be in one and not the other). */
    log = cap_text(&cap, &len);
    if (log == NULL || czk_timeline_from_log(log, len, &from_log, &n_log, NULL) != CZK_OK) {
        czk_test_fail(t, __FILE__, __LINE__, "the log did not parse");
        goto out;
    }
    for (int dir_ = 0; dir_ < 2; dir_++) {
        const czk_span *x = dir_ ? from_log : spans, *y = dir_ ? spans : from_log;
        const size_t nx = dir_ ? n_log : n, ny = dir_ ? n : n_log;
        for (size_t i = 0; i < nx; i++) {
            if (!matched(&x[i], y, ny)) {
                czk_test_fail(t, __FILE__, __LINE__, "%s span %zu (kind %d, %s part %u) not in %s",
                              dir_ ? "log" : "recorded", i, x[i].kind, x[i].job_id, x[i].part,
                              dir_ ? "the recorded" : "the log's");
                goto out;
            }
        }
    }

    /* The SVG: well formed, a rect per span, a label per lane, the CRITICAL job's two ticks. */
    snprintf(path, sizeof path, "%s/run.svg", dir);
    if (czk_timeline_svg_write(path, spans, n, "engine <test> & run", NULL) != CZK_OK ||
        (svg = (char *)czk_test_read_file(path, &len)) == NULL) {
        czk_test_fail(t, __FILE__, __LINE__, "the SVG was not written");
        goto out;
    }
    /* Lanes: one finalizer; one or both synthesis threads (the second takes HIGH and
     * CRITICAL partitions, and may take crit's); one or both workers. */
    size_t rects = 0, synth_lanes = 0, worker_lanes = 0;
    int synth_seen[2] = {0, 0}, worker_seen[2] = {0, 0};
    for (size_t i = 0; i < n; i++) {
        rects += spans[i].kind != CZK_SPAN_SUBMIT && spans[i].kind != CZK_SPAN_DONE;
        if (spans[i].kind == CZK_SPAN_SYNTH && spans[i].lane < 2 && !synth_seen[spans[i].lane]++)
            synth_lanes++;
        if (spans[i].lane_kind == CZK_LANE_WORKER && spans[i].lane < 2 &&
            !worker_seen[spans[i].lane]++)
            worker_lanes++;
    }
    if (!xml_well_formed(svg, why, sizeof why) || strstr(svg, "<svg xmlns=") == NULL ||
        count_of(svg, "<rect class=\"k") != rects + CZK_SPAN_SUBMIT /* the legend's */ ||
        count_of(svg, "<rect class=\"lane\"") != 1 + synth_lanes + worker_lanes ||
        count_of(svg, "\">synth 0</text>") + count_of(svg, "\">synth 1</text>") != synth_lanes ||
        count_of(svg, "\">worker 0 \xc2\xb7 cpu</text>") +
                count_of(svg, "\">worker 1 \xc2\xb7 cpu</text>") !=
            worker_lanes ||
        count_of(svg, "\">finalizer 0</text>") != 1 ||
        count_of(svg, "<g><line class=\"mark") != 2 ||
        count_of(svg, "<g><line class=\"mark sub\"") != 1 ||
        strstr(svg, "engine &lt;test&gt; &amp; run") == NULL || strstr(svg, " %</text>") == NULL ||
        strstr(svg, "kernel regions busy: cpu ") == NULL) {
        czk_test_fail(t, __FILE__, __LINE__, "SVG: %s", why[0] ? why : "lanes, rects or marks");
        fprintf(stderr, "%s\n", svg);
        goto out;
    }
out:
    free(svg);
    free(log);
    czk_free(spans);
    czk_free(from_log);
    czk_etest_cap_free(&cap);
}

CZK_TEST(engine_trace_records_a_run) {
    CZK_TEST_WITH_TMPDIR(trace_run);
}

/* Off by default; at most `capacity` spans, the rest counted; take empties; stop ends it. */
CZK_TEST(engine_trace_capacity_drops) {
    czk_engine *e;
    CHECK(czk_etest_engine(&e, NULL, "porep8", 8, NULL) == CZK_OK);
    czk_span *s = NULL;
    size_t n = 1;
    uint64_t dropped = 1;
    czk_err err = {0};
    CHECK(czk_engine_trace_start(e, 0, &err) == CZK_EINVAL);
    CHECK(strstr(err.msg, "capacity") != NULL);
    CHECK(czk_etest_run(e, "off", "porep8", CZK_PRIORITY_NORMAL, 1, 1) != CZK_ETEST_REFUSED);
    CHECK(czk_engine_trace_take(e, &s, &n, &dropped, NULL) == CZK_OK);
    CHECK(s == NULL && n == 0 && dropped == 0); /* never started */

    CHECK(czk_engine_trace_start(e, 3, NULL) == CZK_OK);
    CHECK(czk_etest_run(e, "two", "porep8", CZK_PRIORITY_HIGH, 2, 2) == CZK_JOB_COMPLETED);
    CHECK(czk_engine_trace_take(e, &s, &n, &dropped, NULL) == CZK_OK);
    const int first_is_submit = n > 0 && s[0].kind == CZK_SPAN_SUBMIT;
    czk_free(s);
    /* Two partitions make two submit/done marks and 2 × (synthesis, lock wait, steps, verify). */
    CHECKF(n == 3 && dropped >= 2 * 5 + 2 - 3, "n %zu dropped %llu", n,
           (unsigned long long)dropped);
    CHECK(first_is_submit);
    CHECK(czk_engine_trace_take(e, &s, &n, &dropped, NULL) == CZK_OK);
    CHECK(s == NULL && n == 0 && dropped == 0); /* emptied */

    /* Recording goes on after a take, into a new buffer; and stops at stop. */
    CHECK(czk_etest_run(e, "three", "porep8", CZK_PRIORITY_LOW, 1, 3) != CZK_ETEST_REFUSED);
    CHECK(czk_engine_trace_take(e, &s, &n, &dropped, NULL) == CZK_OK);
    czk_free(s);
    CHECKF(n == 3 && dropped > 0, "after a take: n %zu dropped %llu", n,
           (unsigned long long)dropped);
    czk_engine_trace_stop(e);
    czk_engine_trace_stop(e);
    CHECK(czk_etest_run(e, "four", "porep8", CZK_PRIORITY_LOW, 1, 4) != CZK_ETEST_REFUSED);
    CHECK(czk_engine_trace_take(e, &s, &n, &dropped, NULL) == CZK_OK);
    CHECK(s == NULL && n == 0 && dropped == 0);
    czk_engine_destroy(e);
}

/* Lines as a daemon's log holds them: a timestamp and level in front, an earlier engine's run
 * (left out), a quoted id with spaces and markup, a line of an older czk (no worker=: its
 * region goes on its device's lane), a line cut short (skipped), an error text that looks
 * like fields (ignored), a retry (no second synthesis), other lines. */
CZK_TEST(engine_timeline_from_log) {
    static const char log[] =
        "2026-01-01T00:00:00.000Z info engine started backend=cpu synth_threads=1\n"
        "2026-01-01T00:00:01.000Z info partition job=old part=0/1 prio=NORMAL circuit=c "
        "backend=cpu attempt=1 queue_ms=0 synth_ms=1 lock_wait_ms=1 kernel_ms=5 finish_ms=0 "
        "verify_ms=1 kernel_at_ms=10 synth_at_ms=5 synth_thread=0 worker=0 spmv_ms=1 h_ms=1 "
        "msm_ms=1 verify_at_ms=16 finalizer=0 result=ok\n"
        "2026-01-01T00:01:00.000Z info engine started backend=cuda synth_threads=4\n"
        "2026-01-01T00:01:00.100Z info czk daemon: listening\n"
        "2026-01-01T00:01:02.000Z info partition job=\"wd <1> & \\\"x\\\" [1 2]\" part=1/2 "
        "prio=CRITICAL circuit=c backend=cuda:0/lane attempt=1 queue_ms=0.5 synth_ms=100.000 "
        "lock_wait_ms=2.000 kernel_ms=50.000 finish_ms=0.1 verify_ms=3.000 kernel_at_ms=1200.000 "
        "synth_at_ms=1000.000 synth_thread=4 worker=2 spmv_ms=10.000 h_ms=20.000 msm_ms=15.000 "
        "verify_at_ms=1251.000 finalizer=1 result=ok\n"
        "2026-01-01T00:01:03.000Z warn partition job=r part=0/1 prio=NORMAL circuit=c "
        "backend=cuda:1 attempt=2 queue_ms=0 synth_ms=7 lock_wait_ms=0 kernel_ms=4.000 "
        "finish_ms=0 verify_ms=0 kernel_at_ms=1300 synth_at_ms=900 synth_thread=0 worker=3 "
        "spmv_ms=0 h_ms=0 msm_ms=0 verify_at_ms=1305 finalizer=0 result=failed error=boom "
        "synth_at_ms=1 worker=9\n"
        "2026-01-01T00:01:04.000Z info partition job=v1 part=0/1 prio=HIGH circuit=c "
        "backend=cuda:1 attempt=1 queue_ms=0 synth_ms=1 lock_wait_ms=0.5 kernel_ms=2 finish_ms=0 "
        "verify_ms=1 kernel_at_ms=1400\n" /* cut short */
        "2 partition job=older part=0/1 prio=LOW circuit=c backend=cuda:1 attempt=1 queue_ms=0 "
        "synth_ms=1 lock_wait_ms=0.5 kernel_ms=2 finish_ms=0 verify_ms=1 kernel_at_ms=1500 "
        "result=ok\n"
        "2026-01-01T00:01:05.000Z info job id=\"wd <1> & \\\"x\\\" [1 2]\" status=COMPLETED "
        "circuit=c prio=CRITICAL client=- parts=2 total_us=1 synth_us=1 prove_us=1 verify_us=1 "
        "overhead_us=0 submit_at_ms=990.500 done_at_ms=1254.250";
    czk_span *s = NULL;
    size_t n = 0;
    CHECK(czk_timeline_from_log(log, sizeof log - 1, &s, &n, NULL) == CZK_OK);
    /* wd: synth, lock wait, 3 steps, rest, verify, 2 marks; r: its region (rest only);
     * older: lock wait, region. */
    int kinds[CZK_SPAN_KINDS] = {0};
    for (size_t i = 0; i < n; i++)
        kinds[s[i].kind]++;
    const czk_span *syn = NULL, *rest = NULL, *sub = NULL, *done = NULL, *old = NULL;
    for (size_t i = 0; i < n; i++) {
        if (s[i].kind == CZK_SPAN_SYNTH)
            syn = &s[i];
        if (s[i].kind == CZK_SPAN_REGION_REST && strcmp(s[i].job_id, "r") == 0)
            rest = &s[i];
        if (s[i].kind == CZK_SPAN_SUBMIT)
            sub = &s[i];
        if (s[i].kind == CZK_SPAN_DONE)
            done = &s[i];
        if (strcmp(s[i].job_id, "older") == 0)
            old = &s[i];
    }
    const char *id = "wd <1> & \"x\" [1 2]";
    int good = n == 12 && kinds[CZK_SPAN_SYNTH] == 1 && kinds[CZK_SPAN_LOCK_WAIT] == 2 &&
               kinds[CZK_SPAN_SPMV] == 1 && kinds[CZK_SPAN_QUOTIENT] == 1 &&
               kinds[CZK_SPAN_MSM] == 1 && kinds[CZK_SPAN_REGION_REST] == 3 &&
               kinds[CZK_SPAN_VERIFY] == 1 && kinds[CZK_SPAN_SUBMIT] == 1 &&
               kinds[CZK_SPAN_DONE] == 1;
    good = good && syn != NULL && strcmp(syn->job_id, id) == 0 && syn->lane == 4 &&
           syn->part == 1 && syn->priority == CZK_PRIORITY_CRITICAL && syn->t0_ns == 1000000000 &&
           syn->t1_ns == 1100000000;
    good = good && rest != NULL && rest->lane == 3 && rest->attempt == 2 &&
           rest->t0_ns == 1300000000 && rest->t1_ns == 1304000000 &&
           strcmp(rest->device, "cuda:1") == 0;
    good = good && sub != NULL && done != NULL && sub->t0_ns == 990500000 &&
           done->t0_ns == 1254250000 && done->status == CZK_JOB_COMPLETED && done->part == 2;
    good = good && old != NULL && old->lane_kind == CZK_LANE_WORKER && old->lane == 0;
    for (size_t i = 0; good && i < n; i++) {
        const czk_span *x = &s[i];
        if (strcmp(x->job_id, id) != 0 || !is_step(x->kind))
            continue;
        /* Region [1200, 1250] ms: SpMV 10, quotient 20, MSM 15, then the rest, 5. */
        static const uint64_t from[4] = {1200, 1210, 1230, 1245}, to[4] = {1210, 1230, 1245, 1250};
        const int k = x->kind - CZK_SPAN_SPMV;
        good = x->lane == 2 && strcmp(x->device, "cuda:0/lane") == 0 &&
               x->t0_ns == from[k] * 1000000 && x->t1_ns == to[k] * 1000000;
    }
    if (!good) {
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "span kind %d lane %d/%u job %s part %u [%llu, %llu] dev %s\n",
                    s[i].kind, s[i].lane_kind, s[i].lane, s[i].job_id, s[i].part,
                    (unsigned long long)s[i].t0_ns, (unsigned long long)s[i].t1_ns, s[i].device);
    }
    char dir[256], path[300];
    int wrote = 0, empty_refused = 0;
    char *svg = NULL;
    size_t len = 0;
    if (good && czk_test_tmpdir(dir)) {
        snprintf(path, sizeof path, "%s/log.svg", dir);
        czk_err err = {0};
        empty_refused = czk_timeline_svg_write(path, s, 0, NULL, &err) == CZK_EINVAL;
        wrote = czk_timeline_svg_write(path, s, n, NULL, NULL) == CZK_OK;
        svg = wrote ? (char *)czk_test_read_file(path, &len) : NULL;
        czk_test_rmdir(dir);
    }
    char why[200] = "";
    const int svg_ok = svg != NULL && xml_well_formed(svg, why, sizeof why) &&
                       strstr(svg, "wd &lt;1&gt; &amp; &quot;x&quot; [1 2]") != NULL &&
                       strstr(svg, "worker 2 \xc2\xb7 cuda:0/lane") != NULL &&
                       count_of(svg, "<g><line class=\"mark") == 2;
    if (!svg_ok && svg != NULL)
        fprintf(stderr, "%s\n%s\n", why, svg);
    free(svg);
    czk_free(s);
    CHECK(good);
    CHECK(empty_refused && wrote);
    CHECK(svg_ok);
    /* Nothing to draw: no spans at all. */
    CHECK(czk_timeline_from_log("nothing here\n", 13, &s, &n, NULL) == CZK_OK);
    CHECK(s == NULL && n == 0);
    CHECK(czk_timeline_from_log(NULL, 0, &s, &n, NULL) == CZK_OK && n == 0);
}
