/*
 * The timeline of a run (issue 29, item 7): spans (czk_span, from the recorder in trace.c or
 * rebuilt from the engine's log lines here) drawn as one SVG, so that an operator sees at a
 * glance where a device idles and what a CRITICAL job waited for.
 *
 * The picture: a title and a line of kernel-busy shares per device; a legend; a band of
 * CRITICAL jobs' marks, whose ticks run down across every lane; one lane per synthesis thread,
 * prove worker and finalizer that has spans (grouped in that order), each span a rect
 * coloured by kind with a <title> tooltip, the lane's busy share at its right; a time axis in
 * seconds since the engine's creation. Plain SVG 1.1 (one <style> of classes, no script, no
 * external resource), so that any browser shows it and it can be mailed as a file.
 *
 * Busy shares are over the window from the first span's start to the last one's end: a lane's
 * is the union of its spans, lock waits left out (a worker waiting for the device lock is not
 * using it); a device's is the union of its workers' kernel regions, the figure bench_engine
 * prints per device.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/parse.h"
#include "util/text.h"

/* s as XML character data or an attribute value: markup characters escaped, and every byte
 * that is not printable ASCII or part of a well-formed UTF-8 character shown as '?' (spans
 * rebuilt from a log may hold anything), so that the file always parses. */
static void put_xml(czk_text *t, const char *s) {
    const unsigned char *p = (const unsigned char *)s;
    while (*p != '\0') {
        unsigned char c = *p;
        if (c == '&')
            czk_text_put(t, "&amp;");
        else if (c == '<')
            czk_text_put(t, "&lt;");
        else if (c == '>')
            czk_text_put(t, "&gt;");
        else if (c == '"')
            czk_text_put(t, "&quot;");
        else if (c == '\'')
            czk_text_put(t, "&apos;");
        else if (c >= 0x20 && c < 0x7f)
            czk_text_put(t, "%c", c);
        else if (c >= 0x80) {
            size_t k = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
            if (k > 1 && strnlen((const char *)p, k) == k &&
                czk_utf8_printable((const char *)p, k)) {
                czk_text_put(t, "%.*s", (int)k, (const char *)p);
                p += k;
                continue;
            }
            czk_text_put(t, "?");
        } else {
            czk_text_put(t, "?");
        }
        p++;
    }
}

/* ---- what is drawn how ------------------------------------------------------------------ */

static const char *const kind_color[CZK_SPAN_KINDS] = {
    "#1f77b4", /* synthesis: blue */
    "#b4b4b4", /* lock wait: grey */
    "#ff7f0e", /* upload + SpMV: orange */
    "#9467bd", /* quotient: purple */
    "#d62728", /* MSMs: red */
    "#f2a7a7", /* rest of the kernel region: pink */
    "#2ca02c", /* verify: green */
    "#000000", /* submit mark */
    "#000000", /* done mark */
};

static const char *const kind_name[CZK_SPAN_KINDS] = {
    "synthesis", "lock wait", "upload+SpMV", "quotient", "MSMs", "rest of kernel region",
    "verify",    "submitted", "done",
};

static int is_mark(int kind) {
    return kind == CZK_SPAN_SUBMIT || kind == CZK_SPAN_DONE;
}

static int in_region(int kind) {
    return kind == CZK_SPAN_SPMV || kind == CZK_SPAN_QUOTIENT || kind == CZK_SPAN_MSM ||
           kind == CZK_SPAN_REGION_REST;
}

/* A span the picture shows: a rect on a thread's lane, or a CRITICAL job's mark. */
static int shown(const czk_span *s) {
    if ((unsigned)s->kind >= CZK_SPAN_KINDS || s->t1_ns < s->t0_ns)
        return 0;
    if (is_mark(s->kind))
        return s->priority == CZK_PRIORITY_CRITICAL;
    return (unsigned)s->lane_kind <= CZK_LANE_FINALIZER;
}

/* ---- lanes, devices and unions ---------------------------------------------------------- */

#define DEVS_MAX 64
#define LANE_DEVS 4

typedef struct lane {
    int kind;
    uint32_t index;
    uint64_t busy_ns;
    int devs[LANE_DEVS]; /* workers: the devices its attempts ran on, first seen first */
    int n_devs, more_devs;
} lane;

typedef struct layout {
    lane *lanes;
    size_t n_lanes;
    char devs[DEVS_MAX][32];
    uint64_t dev_busy[DEVS_MAX];
    int n_devs;
    uint64_t t_min, t_max;
} layout;

static int lane_cmp(const void *a, const void *b) {
    const lane *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* The lane of s in the sorted lanes (present: every shown span's lane was collected). */
static lane *lane_of(layout *l, const czk_span *s) {
    lane key = {.kind = s->lane_kind, .index = s->lane};
    return bsearch(&key, l->lanes, l->n_lanes, sizeof key, lane_cmp);
}

static int dev_of(layout *l, const char *label) {
    for (int i = 0; i < l->n_devs; i++)
        if (strcmp(l->devs[i], label) == 0)
            return i;
    if (l->n_devs == DEVS_MAX)
        return -1;
    snprintf(l->devs[l->n_devs], sizeof l->devs[0], "%s", label);
    return l->n_devs++;
}

typedef struct interval {
    size_t group; /* a lane's or a device's index */
    uint64_t a, b;
} interval;

static int interval_cmp(const void *x, const void *y) {
    const interval *p = x, *q = y;
    if (p->group != q->group)
        return p->group < q->group ? -1 : 1;
    return (p->a > q->a) - (p->a < q->a);
}

/* Adds the length of the union of each group's intervals to busy[group]. */
static void union_by_group(interval *iv, size_t n, uint64_t *busy) {
    qsort(iv, n, sizeof *iv, interval_cmp);
    for (size_t i = 0; i < n;) {
        size_t g = iv[i].group;
        uint64_t a = iv[i].a, b = iv[i].b;
        for (i++; i < n && iv[i].group == g; i++) {
            if (iv[i].a > b) {
                busy[g] += b - a;
                a = iv[i].a;
                b = iv[i].b;
            } else if (iv[i].b > b) {
                b = iv[i].b;
            }
        }
        busy[g] += b - a;
    }
}

/* Collects the lanes, the devices, the window and the busy times. */
static int lay_out(layout *l, const czk_span *spans, size_t n) {
    size_t n_shown = 0, n_rects = 0;
    l->t_min = UINT64_MAX;
    l->t_max = 0;
    for (size_t i = 0; i < n; i++) {
        if (!shown(&spans[i]))
            continue;
        n_shown++;
        n_rects += !is_mark(spans[i].kind);
        l->t_min = spans[i].t0_ns < l->t_min ? spans[i].t0_ns : l->t_min;
        l->t_max = spans[i].t1_ns > l->t_max ? spans[i].t1_ns : l->t_max;
    }
    if (n_shown == 0)
        return CZK_EINVAL;
    if (l->t_max <= l->t_min)
        l->t_max = l->t_min + 1000000; /* a lone mark: a millisecond's window */
    l->lanes = czk_calloc(n_rects > 0 ? n_rects : 1, sizeof *l->lanes);
    interval *iv = czk_calloc(n_rects > 0 ? n_rects : 1, sizeof *iv);
    uint64_t *busy = czk_calloc(n_rects > 0 ? n_rects : 1, sizeof *busy);
    if (l->lanes == NULL || iv == NULL || busy == NULL) {
        czk_free(iv);
        czk_free(busy);
        return CZK_ENOMEM;
    }
    /* Distinct lanes: sorted, then deduplicated. */
    for (size_t i = 0; i < n; i++) {
        if (shown(&spans[i]) && !is_mark(spans[i].kind)) {
            lane *ln = &l->lanes[l->n_lanes++];
            ln->kind = spans[i].lane_kind;
            ln->index = spans[i].lane;
        }
    }
    qsort(l->lanes, l->n_lanes, sizeof *l->lanes, lane_cmp);
    size_t m = 0;
    for (size_t i = 0; i < l->n_lanes; i++)
        if (m == 0 || lane_cmp(&l->lanes[m - 1], &l->lanes[i]) != 0)
            l->lanes[m++] = l->lanes[i];
    l->n_lanes = m;
    /* Lanes' busy time, and the devices each worker's attempts ran on. */
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        const czk_span *s = &spans[i];
        if (!shown(s) || is_mark(s->kind))
            continue;
        lane *ln = lane_of(l, s);
        if (s->kind != CZK_SPAN_LOCK_WAIT)
            iv[k++] = (interval){(size_t)(ln - l->lanes), s->t0_ns, s->t1_ns};
        if (s->lane_kind == CZK_LANE_WORKER && s->device[0] != '\0') {
            int d = dev_of(l, s->device), seen = 0;
            for (int j = 0; j < ln->n_devs; j++)
                seen |= ln->devs[j] == d;
            if (d >= 0 && !seen && ln->n_devs < LANE_DEVS)
                ln->devs[ln->n_devs++] = d;
            else if (d >= 0 && !seen)
                ln->more_devs = 1;
        }
    }
    union_by_group(iv, k, busy);
    for (size_t i = 0; i < l->n_lanes; i++)
        l->lanes[i].busy_ns = busy[i];
    /* Devices' busy time: the union of their kernel regions. */
    k = 0;
    for (size_t i = 0; i < n; i++) {
        const czk_span *s = &spans[i];
        int d = shown(s) && in_region(s->kind) && s->device[0] != '\0' ? dev_of(l, s->device) : -1;
        if (d >= 0)
            iv[k++] = (interval){(size_t)d, s->t0_ns, s->t1_ns};
    }
    memset(busy, 0, (n_rects > 0 ? n_rects : 1) * sizeof *busy);
    union_by_group(iv, k, busy);
    for (int d = 0; d < l->n_devs; d++) /* each device came with a rect: n_devs <= n_rects */
        l->dev_busy[d] = busy[d];
    czk_free(iv);
    czk_free(busy);
    return CZK_OK;
}

/* ---- the SVG ---------------------------------------------------------------------------- */

#define W 1400.0
#define LEFT 200.0  /* lane labels */
#define RIGHT 70.0  /* busy shares */
#define LANE_H 16.0 /* a lane's height */
#define LANE_GAP 3.0
#define GROUP_GAP 8.0
#define MARK_BAND 90.0   /* CRITICAL jobs' labels */
#define MARK_RIGHT 110.0 /* their slanted labels past the plot */
#define CHAR_W 6.2       /* a legend character's width, roughly */

/* A tick step of 1, 2 or 5 × 10^k ns giving at most 12 ticks over `window`, and the decimals
 * its labels in seconds need. */
static uint64_t tick_step(uint64_t window, int *decimals) {
    uint64_t p = 1000; /* 1 µs */
    int dec = 6;
    for (;;) {
        static const uint64_t mult[3] = {1, 2, 5};
        for (int i = 0; i < 3; i++)
            if (window / (p * mult[i]) <= 12) {
                *decimals = dec > 0 ? dec : 0;
                return p * mult[i];
            }
        p *= 10;
        dec--;
    }
}

static double sec(uint64_t ns) {
    return (double)ns / 1e9;
}

static void put_lane_label(czk_text *t, const layout *l, const lane *ln) {
    static const char *const names[] = {"synth", "worker", "finalizer"};
    czk_text_put(t, "%s %" PRIu32, names[ln->kind], ln->index);
    for (int j = 0; j < ln->n_devs; j++) {
        czk_text_put(t, "%s", j == 0 ? " \xc2\xb7 " : ", ");
        put_xml(t, l->devs[ln->devs[j]]);
    }
    if (ln->more_devs)
        czk_text_put(t, ", \xe2\x80\xa6");
}

static void put_tooltip(czk_text *t, const czk_span *s) {
    czk_text_put(t, "<title>");
    if (is_mark(s->kind)) {
        czk_text_put(t, "CRITICAL job ");
        put_xml(t, s->job_id);
        czk_text_put(t, " (%" PRIu32 " partition%s) %s", s->part, s->part == 1 ? "" : "s",
                     s->kind == CZK_SPAN_SUBMIT ? "submitted" : "done: ");
        if (s->kind == CZK_SPAN_DONE)
            czk_text_put(t, "%s", czk_job_status_name((czk_job_status)s->status));
        czk_text_put(t, " at %.3f s", sec(s->t0_ns));
    } else {
        czk_text_put(t, "%s: job ", kind_name[s->kind]);
        put_xml(t, s->job_id);
        czk_text_put(t, " part %" PRIu32 " (%s)", s->part,
                     czk_priority_name((czk_priority)s->priority));
        if (s->attempt > 1)
            czk_text_put(t, " attempt %" PRIu32, s->attempt);
        if (s->device[0] != '\0') {
            czk_text_put(t, " on ");
            put_xml(t, s->device);
        }
        czk_text_put(t, ", %.3f s to %.3f s (%.3f ms)", sec(s->t0_ns), sec(s->t1_ns),
                     (double)(s->t1_ns - s->t0_ns) / 1e6);
    }
    czk_text_put(t, "</title>");
}

/* The x of time `ns` on a plot `pw` wide. */
static double xpos(const layout *l, double pw, uint64_t ns) {
    return LEFT + (double)(ns - l->t_min) * pw / (double)(l->t_max - l->t_min);
}

static void draw(czk_text *t, const layout *l, const czk_span *spans, size_t n, const char *title) {
    const double pw = W - LEFT - RIGHT;
    const uint64_t window = l->t_max - l->t_min;
    int any_marks = 0;
    for (size_t i = 0; i < n; i++)
        any_marks |= shown(&spans[i]) && is_mark(spans[i].kind);
    /* Room on the right for the slanted labels of marks near the window's end. */
    const double cw = W + (any_marks ? MARK_RIGHT : 0);
    /* Vertical layout: the header, the marks' band, the lanes, the axis. */
    const double y_band = 84, y_lanes = y_band + (any_marks ? MARK_BAND : 6);
    double *lane_y = czk_calloc(l->n_lanes > 0 ? l->n_lanes : 1, sizeof *lane_y);
    if (lane_y == NULL) {
        t->failed = 1;
        return;
    }
    double y = y_lanes;
    for (size_t i = 0; i < l->n_lanes; i++) {
        if (i > 0)
            y += l->lanes[i].kind != l->lanes[i - 1].kind ? GROUP_GAP : 0;
        lane_y[i] = y;
        y += LANE_H + LANE_GAP;
    }
    const double y_axis = y + 2, h = y_axis + 40;

    czk_text_put(t, "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n");
    czk_text_put(
        t,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" "
        "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" font-family=\"sans-serif\" font-size=\"11\">\n",
        cw, h, cw, h);
    czk_text_put(t, "<style type=\"text/css\">");
    for (int k = 0; k < CZK_SPAN_KINDS; k++)
        czk_text_put(t, ".k%d{fill:%s}", k, kind_color[k]);
    czk_text_put(t, ".lane{fill:#f4f4f4}.grid{stroke:#dddddd;stroke-width:1}"
                    ".mark{stroke:#000000;stroke-width:1}.sub{stroke-dasharray:4,3}"
                    ".c{stroke:#000000;stroke-width:0.8}</style>\n");
    czk_text_put(t, "<rect x=\"0\" y=\"0\" width=\"%.0f\" height=\"%.0f\" fill=\"#ffffff\"/>\n", cw,
                 h);

    /* Title and the devices' busy shares. */
    czk_text_put(t, "<text x=\"10\" y=\"20\" font-size=\"15\" font-weight=\"bold\">");
    put_xml(t, title != NULL ? title : "czk timeline");
    czk_text_put(t, "</text>\n<text x=\"10\" y=\"38\">window %.3f s to %.3f s (%.3f s)",
                 sec(l->t_min), sec(l->t_max), sec(window));
    for (int d = 0; d < l->n_devs; d++) {
        czk_text_put(t, "%s", d == 0 ? "; kernel regions busy: " : ", ");
        put_xml(t, l->devs[d]);
        czk_text_put(t, " %.1f %%", 100.0 * (double)l->dev_busy[d] / (double)window);
    }
    czk_text_put(t, "</text>\n");

    /* Legend. */
    double lx = 10;
    for (int k = 0; k < CZK_SPAN_SUBMIT; k++) {
        czk_text_put(t, "<rect class=\"k%d\" x=\"%.0f\" y=\"50\" width=\"14\" height=\"10\"/>", k,
                     lx);
        czk_text_put(t, "<text x=\"%.0f\" y=\"59\">%s</text>\n", lx + 18, kind_name[k]);
        lx += 18 + CHAR_W * (double)strlen(kind_name[k]) + 16;
    }
    czk_text_put(t,
                 "<line class=\"mark sub\" x1=\"%.0f\" y1=\"49\" x2=\"%.0f\" y2=\"61\"/>"
                 "<text x=\"%.0f\" y=\"59\">CRITICAL job submitted</text>\n",
                 lx + 4, lx + 4, lx + 10);
    lx += 10 + CHAR_W * 22 + 16;
    czk_text_put(t,
                 "<line class=\"mark\" x1=\"%.0f\" y1=\"49\" x2=\"%.0f\" y2=\"61\"/>"
                 "<text x=\"%.0f\" y=\"59\">CRITICAL job done</text>\n",
                 lx + 4, lx + 4, lx + 10);
    czk_text_put(
        t, "<text x=\"10\" y=\"75\" fill=\"#555555\">outlined: a CRITICAL job's spans; busy: a "
           "lane's spans (lock waits left out) over the window</text>\n");

    /* The lanes: background, label, busy share. */
    for (size_t i = 0; i < l->n_lanes; i++) {
        const lane *ln = &l->lanes[i];
        czk_text_put(t,
                     "<rect class=\"lane\" x=\"%.0f\" y=\"%.1f\" width=\"%.1f\" height=\"%.0f\"/>",
                     LEFT, lane_y[i], pw, LANE_H);
        czk_text_put(t, "<text x=\"%.0f\" y=\"%.1f\" text-anchor=\"end\">", LEFT - 6,
                     lane_y[i] + LANE_H - 4);
        put_lane_label(t, l, ln);
        czk_text_put(t, "</text><text x=\"%.0f\" y=\"%.1f\">%.1f %%</text>\n", LEFT + pw + 6,
                     lane_y[i] + LANE_H - 4, 100.0 * (double)ln->busy_ns / (double)window);
    }

    /* The time axis and its grid. */
    int dec = 0;
    const uint64_t step = tick_step(window, &dec);
    for (uint64_t tk = (l->t_min + step - 1) / step * step; tk <= l->t_max; tk += step) {
        double x = xpos(l, pw, tk);
        czk_text_put(t,
                     "<line class=\"grid\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>"
                     "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%.*f</text>\n",
                     x, y_lanes, x, y_axis + 4, x, y_axis + 16, dec, sec(tk));
    }
    czk_text_put(t,
                 "<line x1=\"%.0f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#000000\"/>"
                 "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">time (s) since the engine "
                 "started</text>\n",
                 LEFT, y_axis, LEFT + pw, y_axis, LEFT + pw / 2, y_axis + 32);

    /* The spans, then the marks on top. */
    for (size_t i = 0; i < n; i++) {
        const czk_span *s = &spans[i];
        if (!shown(s) || is_mark(s->kind))
            continue;
        const lane *ln = lane_of((layout *)l, s);
        const double x = xpos(l, pw, s->t0_ns), wd = xpos(l, pw, s->t1_ns) - x;
        /* Lock waits are drawn thinner: the worker is waiting, not working. */
        const double inset = s->kind == CZK_SPAN_LOCK_WAIT ? 5 : 1;
        czk_text_put(t,
                     "<rect class=\"k%d%s\" x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\">",
                     s->kind, s->priority == CZK_PRIORITY_CRITICAL ? " c" : "", x,
                     lane_y[ln - l->lanes] + inset, wd > 0.5 ? wd : 0.5, LANE_H - 2 * inset);
        put_tooltip(t, s);
        czk_text_put(t, "</rect>\n");
    }
    for (size_t i = 0; i < n; i++) {
        const czk_span *s = &spans[i];
        if (!shown(s) || !is_mark(s->kind))
            continue;
        const double x = xpos(l, pw, s->t0_ns);
        czk_text_put(t,
                     "<g><line class=\"mark%s\" x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\"/>",
                     s->kind == CZK_SPAN_SUBMIT ? " sub" : "", x, y_lanes - 8, x, y_axis);
        /* The label slants up from the tick's top, so that close marks stay readable. */
        czk_text_put(
            t, "<text x=\"%.2f\" y=\"%.1f\" font-size=\"9\" transform=\"rotate(-40 %.2f %.1f)\">%s",
            x + 2, y_lanes - 10, x + 2, y_lanes - 10,
            s->kind == CZK_SPAN_SUBMIT ? "\xe2\x96\xb8" : "\xe2\x96\xa0");
        czk_text_put(t, " ");
        put_xml(t, s->job_id);
        czk_text_put(t, "</text>");
        put_tooltip(t, s);
        czk_text_put(t, "</g>\n");
    }
    czk_text_put(t, "</svg>\n");
    czk_free(lane_y);
}

int czk_timeline_svg_write(const char *path, const czk_span *spans, size_t n, const char *title,
                           czk_err *err) {
    if (spans == NULL && n > 0)
        return czk_err_set(err, CZK_EINVAL, "%s: no spans given", czk_file_msg_path(path));
    layout l;
    memset(&l, 0, sizeof l);
    int rc = lay_out(&l, spans, n);
    if (rc == CZK_EINVAL) {
        czk_free(l.lanes);
        return czk_err_set(err, rc, "%s: no span to draw (of %zu)", czk_file_msg_path(path), n);
    }
    czk_text t = {0};
    if (rc == CZK_OK)
        draw(&t, &l, spans, n, title);
    czk_free(l.lanes);
    if (rc == CZK_OK && t.failed)
        rc = CZK_ENOMEM;
    if (rc != CZK_OK) {
        czk_free(t.p);
        return czk_err_set(err, rc, "%s: out of memory drawing %zu spans", czk_file_msg_path(path),
                           n);
    }
    rc = czk_file_write_atomic(path, t.p, t.len, err);
    czk_free(t.p);
    return rc;
}

/* ---- spans from the log lines ----------------------------------------------------------- */

/* One line's key=value fields (logfmt: a value is a bare word or a double-quoted string with
 * backslash escapes), up to the free-text `error=` that ends a line. */
#define FIELDS_MAX 40
typedef struct fields {
    char key[FIELDS_MAX][24];
    char val[FIELDS_MAX][CZK_REQUEST_ID_MAX + 1];
    int n;
} fields;

static void split_fields(fields *f, const char *p, const char *end) {
    f->n = 0;
    while (p < end && f->n < FIELDS_MAX) {
        while (p < end && *p == ' ')
            p++;
        const char *k = p;
        while (p < end && *p != '=' && *p != ' ')
            p++;
        if (p >= end || *p != '=') { /* a word without a value ("partition") */
            continue;
        }
        size_t kn = (size_t)(p - k);
        p++;
        if (kn == 5 && memcmp(k, "error", 5) == 0)
            return;
        char *v = f->val[f->n];
        size_t vn = 0, vmax = sizeof f->val[0] - 1;
        if (p < end && *p == '"') {
            for (p++; p < end && *p != '"'; p++) {
                if (*p == '\\' && p + 1 < end)
                    p++;
                if (vn < vmax)
                    v[vn++] = *p;
            }
            p += p < end; /* the closing quote */
        } else {
            for (; p < end && *p != ' '; p++)
                if (vn < vmax)
                    v[vn++] = *p;
        }
        v[vn] = '\0';
        if (kn < sizeof f->key[0]) {
            memcpy(f->key[f->n], k, kn);
            f->key[f->n][kn] = '\0';
            f->n++;
        }
    }
}

static const char *field(const fields *f, const char *key) {
    for (int i = 0; i < f->n; i++)
        if (strcmp(f->key[i], key) == 0)
            return f->val[i];
    return NULL;
}

/* A field as a number of milliseconds in ns, or -1 when it is absent or not a number. */
static int64_t field_ms(const fields *f, const char *key) {
    const char *v = field(f, key);
    if (v == NULL || v[0] == '\0')
        return -1;
    char *end = NULL;
    double ms = strtod(v, &end);
    if (*end != '\0' || !(ms >= 0) || ms > 1e12)
        return -1;
    return (int64_t)(ms * 1e6 + 0.5);
}

/* A field as an unsigned number, or -1. */
static long field_uint(const fields *f, const char *key) {
    const char *v = field(f, key);
    if (v == NULL || v[0] < '0' || v[0] > '9')
        return -1;
    char *end = NULL;
    unsigned long x = strtoul(v, &end, 10);
    return (*end == '\0' || *end == '/') && x <= 0x7fffffff ? (long)x : -1;
}

static int prio_of(const char *name) {
    for (int p = 0; name != NULL && p < CZK_PRIORITY_COUNT; p++)
        if (strcmp(name, czk_priority_name((czk_priority)p)) == 0)
            return p;
    return CZK_PRIORITY_NORMAL;
}

typedef struct spanbuf {
    czk_span *s;
    size_t n, cap;
    int failed;
} spanbuf;

static czk_span *span_add(spanbuf *b, int kind, int lane_kind, uint32_t lane, uint64_t t0,
                          uint64_t t1, const czk_span *like) {
    if (b->n == b->cap) {
        size_t cap = b->cap > 0 ? b->cap * 2 : 256;
        czk_span *more = czk_malloc(cap * sizeof *more);
        if (more == NULL) {
            b->failed = 1;
            return NULL;
        }
        if (b->n > 0)
            memcpy(more, b->s, b->n * sizeof *more);
        czk_free(b->s);
        b->s = more;
        b->cap = cap;
    }
    czk_span *s = &b->s[b->n++];
    *s = *like;
    s->kind = kind;
    s->lane_kind = lane_kind;
    s->lane = lane;
    s->t0_ns = t0;
    s->t1_ns = t1;
    return s;
}

/* Devices seen in lines without worker= (an older czk's): one lane each. */
typedef struct oldlanes {
    char dev[DEVS_MAX][32];
    int n;
} oldlanes;

static void partition_line(spanbuf *b, const fields *f, oldlanes *old) {
    czk_span like;
    memset(&like, 0, sizeof like);
    const char *id = field(f, "job"), *dev = field(f, "backend");
    const long part = field_uint(f, "part"), attempt = field_uint(f, "attempt");
    if (id == NULL || part < 0 || field(f, "result") == NULL)
        return; /* not a partition line, or one cut short */
    czk__copy_cut(like.job_id, sizeof like.job_id, id);
    like.part = (uint32_t)part;
    like.priority = prio_of(field(f, "prio"));
    const long st = field_uint(f, "synth_thread");
    const int64_t s_at = field_ms(f, "synth_at_ms"), s_ms = field_ms(f, "synth_ms");
    if (attempt == 1 && st >= 0 && s_at >= 0 && s_ms >= 0)
        span_add(b, CZK_SPAN_SYNTH, CZK_LANE_SYNTH, (uint32_t)st, (uint64_t)s_at,
                 (uint64_t)(s_at + s_ms), &like);
    like.attempt = attempt > 0 ? (uint32_t)attempt : 0;
    const long fin = field_uint(f, "finalizer");
    const int64_t v_at = field_ms(f, "verify_at_ms"), v_ms = field_ms(f, "verify_ms");
    if (fin >= 0 && v_at >= 0 && v_ms > 0)
        span_add(b, CZK_SPAN_VERIFY, CZK_LANE_FINALIZER, (uint32_t)fin, (uint64_t)v_at,
                 (uint64_t)(v_at + v_ms), &like);
    const int64_t k_at = field_ms(f, "kernel_at_ms"), k_ms = field_ms(f, "kernel_ms"),
                  wait = field_ms(f, "lock_wait_ms");
    long worker = field_uint(f, "worker");
    if (k_at < 0 || k_ms <= 0)
        return;
    czk__copy_cut(like.device, sizeof like.device, dev != NULL ? dev : "");
    if (worker < 0) { /* an older line: the region on its device's lane */
        for (worker = 0; worker < old->n && strcmp(old->dev[worker], like.device) != 0; worker++)
            ;
        if (worker == old->n && old->n < DEVS_MAX)
            snprintf(old->dev[old->n++], sizeof old->dev[0], "%s", like.device);
    }
    const uint64_t t1 = (uint64_t)k_at, t2 = (uint64_t)(k_at + k_ms);
    if (wait > 0 && wait <= k_at)
        span_add(b, CZK_SPAN_LOCK_WAIT, CZK_LANE_WORKER, (uint32_t)worker, t1 - (uint64_t)wait, t1,
                 &like);
    /* The steps as the recorder lays them out (trace.c). */
    const char *const keys[3] = {"spmv_ms", "h_ms", "msm_ms"};
    const int kinds[3] = {CZK_SPAN_SPMV, CZK_SPAN_QUOTIENT, CZK_SPAN_MSM};
    uint64_t at = t1;
    for (int i = 0; i < 3; i++) {
        const int64_t d = field_ms(f, keys[i]);
        if (d <= 0 || at >= t2)
            continue;
        uint64_t end = (uint64_t)d < t2 - at ? at + (uint64_t)d : t2;
        span_add(b, kinds[i], CZK_LANE_WORKER, (uint32_t)worker, at, end, &like);
        at = end;
    }
    if (at < t2)
        span_add(b, CZK_SPAN_REGION_REST, CZK_LANE_WORKER, (uint32_t)worker, at, t2, &like);
}

static void job_line(spanbuf *b, const fields *f) {
    czk_span like;
    memset(&like, 0, sizeof like);
    const char *id = field(f, "id"), *status = field(f, "status");
    const int64_t sub = field_ms(f, "submit_at_ms"), done = field_ms(f, "done_at_ms");
    const long parts = field_uint(f, "parts");
    if (id == NULL || status == NULL)
        return;
    czk__copy_cut(like.job_id, sizeof like.job_id, id);
    like.priority = prio_of(field(f, "prio"));
    like.part = parts > 0 ? (uint32_t)parts : 0;
    if (sub >= 0)
        span_add(b, CZK_SPAN_SUBMIT, CZK_LANE_JOBS, 0, (uint64_t)sub, (uint64_t)sub, &like);
    for (int s = CZK_JOB_COMPLETED; s <= CZK_JOB_CANCELLED; s++)
        if (strcmp(status, czk_job_status_name((czk_job_status)s)) == 0)
            like.status = s;
    if (done >= 0)
        span_add(b, CZK_SPAN_DONE, CZK_LANE_JOBS, 0, (uint64_t)done, (uint64_t)done, &like);
}

/* Where `word` starts a field in [p, end): at the line's start or after a space; else NULL. */
static const char *find_word(const char *p, const char *end, const char *word) {
    const size_t n = strlen(word);
    for (const char *q = p; q + n <= end; q++) {
        q = memchr(q, word[0], (size_t)(end - q));
        if (q == NULL || q + n > end)
            return NULL;
        if ((q == p || q[-1] == ' ') && memcmp(q, word, n) == 0)
            return q;
    }
    return NULL;
}

int czk_timeline_from_log(const char *text, size_t len, czk_span **spans, size_t *n, czk_err *err) {
    *spans = NULL;
    *n = 0;
    spanbuf b = {0};
    oldlanes old = {.n = 0};
    fields *f = czk_malloc(sizeof *f);
    if (f == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot parse the log: out of memory");
    const char *p = text, *end = text != NULL ? text + len : NULL;
    while (p != NULL && p < end && !b.failed) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *le = eol != NULL ? eol : end;
        /* The engine's text starts with one of these words; a later match is inside a value
         * (a request id may hold spaces), so the first one found tells the line's kind. */
        const char *ps = find_word(p, le, "partition job="), *js = find_word(p, le, "job id="),
                   *es = find_word(p, le, "engine started backend=");
        const char *first = ps;
        first = js != NULL && (first == NULL || js < first) ? js : first;
        first = es != NULL && (first == NULL || es < first) ? es : first;
        if (first != NULL && first == es) {
            b.n = 0; /* a new engine: its clock starts again */
            old.n = 0;
        } else if (first != NULL && first == ps) {
            split_fields(f, ps, le);
            partition_line(&b, f, &old);
        } else if (first != NULL) {
            split_fields(f, js, le);
            job_line(&b, f);
        }
        p = le + (eol != NULL);
    }
    czk_free(f);
    if (b.failed) {
        czk_free(b.s);
        return czk_err_set(err, CZK_ENOMEM, "cannot parse the log: out of memory");
    }
    if (b.n == 0) {
        czk_free(b.s);
        b.s = NULL;
    }
    *spans = b.s;
    *n = b.n;
    return CZK_OK;
}
