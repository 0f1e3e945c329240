/*
 * czk timeline: a daemon's run as a picture. Reads the engine's log lines (a daemon's stderr,
 * `journalctl -u czk`, bench_engine --log), rebuilds the run's spans from the per-partition and
 * per-job lines (czk_timeline_from_log) and writes them as an SVG timeline
 * (czk_timeline_svg_write): a lane per synthesis thread, prove worker and finalizer, the
 * kernel regions split into their steps, CRITICAL jobs' arrivals and completions, busy shares.
 * The daemon runs in another process, so its log is what it leaves to draw from; an in-process
 * engine records the same spans directly (czk_engine_trace_start).
 */
#include "cli/cli.h"

#include "util/alloc.h"
#include "util/file.h"

#include <stdio.h>
#include <string.h>

static const char *USAGE =
    "usage: czk timeline --log FILE -o OUT.svg [--title TEXT]\n"
    "\n"
    "Draws a run of the engine from its log (FILE, or - for stdin: a daemon's stderr,\n"
    "`journalctl -u czk`, or bench_engine --log) as an SVG timeline: one lane per synthesis\n"
    "thread, prove worker and finalizer; synthesis, lock waits, the kernel regions' steps\n"
    "(upload+SpMV, quotient, MSMs) and verification as coloured spans; the arrivals and\n"
    "completions of CRITICAL jobs as ticks; each lane's and each device's busy share. The\n"
    "log must be at level info (the per-partition lines). When it holds several runs, the\n"
    "last one is drawn. Open OUT.svg in a browser; hover a span for its job and times.\n";

/* Reads all of stdin into *buf (czk_malloc'ed, NUL-terminated). Returns 0 or -1. */
static int read_stdin(char **buf, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *b = czk_malloc(cap);
    while (b != NULL) {
        n += fread(b + n, 1, cap - 1 - n, stdin);
        if (n < cap - 1)
            break;
        char *more = czk_malloc(cap * 2);
        if (more != NULL)
            memcpy(more, b, n);
        czk_free(b);
        b = more;
        cap *= 2;
    }
    if (b == NULL || ferror(stdin)) {
        czk_free(b);
        return -1;
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    return 0;
}

int czk_cli_timeline(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    const char *log_path = NULL, *out = NULL, *title = NULL;
    const czk_cli_opt opts[] = {
        {.name = "--log", .kind = CZK_CLI_OPT_STRING, .dest = &log_path},
        {.name = "--out", .alias = "-o", .kind = CZK_CLI_OPT_STRING, .dest = &out},
        {.name = "--title", .kind = CZK_CLI_OPT_STRING, .dest = &title},
    };
    const czk_cli_opts how = {"timeline", USAGE, CZK_CLI_OPTS_BAD_ARGUMENT};
    if (czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), NULL, 0, argc, argv) < 0)
        return CZK_EXIT_ERROR;
    if (log_path == NULL || out == NULL) {
        fprintf(stderr, "czk timeline: --log and -o are required\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    czk_err err = {0};
    char *text = NULL;
    size_t len = 0;
    int rc = CZK_OK;
    if (strcmp(log_path, "-") == 0) {
        if (read_stdin(&text, &len) != 0) {
            fprintf(stderr, "czk timeline: cannot read the log from stdin\n");
            return CZK_EXIT_ERROR;
        }
    } else if ((rc = czk_file_read_all((uint8_t **)&text, &len, log_path, &err)) != CZK_OK) {
        return czk_cli_fail("timeline", rc, &err);
    }
    czk_span *spans = NULL;
    size_t n = 0;
    rc = czk_timeline_from_log(text, len, &spans, &n, &err);
    czk_free(text);
    if (rc != CZK_OK)
        return czk_cli_fail("timeline", rc, &err);
    size_t parts = 0, jobs = 0, drawn = 0;
    uint64_t t0 = UINT64_MAX, t1 = 0;
    for (size_t i = 0; i < n; i++) {
        parts += spans[i].kind == CZK_SPAN_SYNTH;
        drawn += spans[i].kind != CZK_SPAN_SUBMIT && spans[i].kind != CZK_SPAN_DONE;
        jobs += spans[i].kind == CZK_SPAN_DONE;
        t0 = spans[i].t0_ns < t0 ? spans[i].t0_ns : t0;
        t1 = spans[i].t1_ns > t1 ? spans[i].t1_ns : t1;
    }
    if (drawn == 0) {
        czk_free(spans);
        fprintf(stderr,
                "czk timeline: %s: no partition lines of a czk engine (is the log at level "
                "info?)\n",
                strcmp(log_path, "-") == 0 ? "stdin" : log_path);
        return CZK_EXIT_ERROR;
    }
    char head[200];
    if (title == NULL) {
        const char *base = strrchr(log_path, '/');
        snprintf(head, sizeof head, "czk timeline: %s", base != NULL ? base + 1 : log_path);
        title = head;
    }
    rc = czk_timeline_svg_write(out, spans, n, title, &err);
    czk_free(spans);
    if (rc != CZK_OK)
        return czk_cli_fail("timeline", rc, &err);
    printf("czk timeline: wrote %s: %zu partitions, %zu jobs, %.3f s to %.3f s\n", out, parts, jobs,
           (double)t0 / 1e9, (double)t1 / 1e9);
    return CZK_EXIT_OK;
}
