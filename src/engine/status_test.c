/*
 * Status and metrics tests (status.c): the Prometheus text read back by a small parser that
 * holds it to the exposition conventions operators rely on (every family has HELP and TYPE,
 * seconds rather than milliseconds, cumulative histograms whose +Inf bucket equals _count,
 * job counters by circuit and proof kind, no device memory for the CPU), and the status JSON.
 */
#include "czk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tests/test.h"

static czk_engine *make_engine(void) {
    czk_engine_config cfg;
    czk_test_engine_config(&cfg, 1ULL << 30);
    czk_engine *e = NULL;
    if (czk_engine_create(&e, &cfg, NULL) != CZK_OK)
        return NULL;
    if (czk_engine_register_synthetic(e, "m8", 8, NULL) != CZK_OK) {
        czk_engine_destroy(e);
        return NULL;
    }
    return e;
}

static int run_job(czk_engine *e, const char *id, const char *kind, size_t parts,
                   czk_job_status *status) {
    czk_job_request req;
    memset(&req, 0, sizeof req);
    req.request_id = id;
    req.circuit_id = "m8";
    req.kind = kind;
    req.n_partitions = parts;
    req.synth_seed = 5;
    char job_id[CZK_REQUEST_ID_MAX + 1];
    int rc = czk_engine_submit(e, &req, job_id, NULL, NULL, NULL);
    if (rc != CZK_OK)
        return rc;
    czk_job_result res;
    rc = czk_engine_await(e, id, 0, &res, NULL);
    *status = res.status;
    czk_job_result_clear(&res);
    return rc;
}

/* A family seen in # HELP or # TYPE lines. */
typedef struct family {
    char name[96];
    char type[16];
    int help;
} family;

#define MAX_FAMILIES 64

typedef struct exposition {
    family f[MAX_FAMILIES];
    size_t n;
    char fault[256]; /* the first convention broken, "" when none */
} exposition;

static family *family_of(exposition *x, const char *name, size_t len) {
    for (size_t i = 0; i < x->n; i++)
        if (strlen(x->f[i].name) == len && strncmp(x->f[i].name, name, len) == 0)
            return &x->f[i];
    if (x->n == MAX_FAMILIES || len >= sizeof x->f[0].name)
        return NULL;
    family *f = &x->f[x->n++];
    memcpy(f->name, name, len);
    f->name[len] = '\0';
    return f;
}

static int ends_with(const char *s, size_t len, const char *suffix) {
    size_t n = strlen(suffix);
    return len >= n && strncmp(s + len - n, suffix, n) == 0;
}

/* Reads the text line by line into x; x->fault names the first line that breaks a rule. */
static void parse_exposition(exposition *x, const char *text) {
    memset(x, 0, sizeof *x);
    for (const char *line = text; *line != '\0';) {
        const char *end = strchr(line, '\n');
        if (end == NULL) {
            snprintf(x->fault, sizeof x->fault, "no newline at the end");
            return;
        }
        int n = (int)(end - line);
        if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
            const char *name = line + 7;
            size_t len = strcspn(name, " \n");
            family *f = family_of(x, name, len);
            if (f == NULL) {
                snprintf(x->fault, sizeof x->fault, "too many families at %.*s", n, line);
                return;
            }
            if (line[2] == 'H')
                f->help = 1;
            else
                snprintf(f->type, sizeof f->type, "%.*s", (int)(end - name - len - 1),
                         name + len + 1);
        } else if (line[0] != '#' && n > 0) {
            size_t len = strcspn(line, "{ ");
            /* The sample's family: histograms' series carry a suffix. */
            size_t flen = len;
            if (ends_with(line, len, "_bucket"))
                flen -= 7;
            else if (ends_with(line, len, "_count"))
                flen -= 6;
            else if (ends_with(line, len, "_sum"))
                flen -= 4;
            family *f = family_of(x, line, flen);
            if (f == NULL || (flen != len && strcmp(f->type, "histogram") != 0))
                f = family_of(x, line, len);
            if (f == NULL || !f->help || f->type[0] == '\0') {
                snprintf(x->fault, sizeof x->fault, "sample before its HELP and TYPE: %.*s", n,
                         line);
                return;
            }
            char name[128];
            snprintf(name, sizeof name, "%.*s", (int)len, line);
            if (ends_with(line, len, "_ms") || strstr(name, "_ms_") != NULL) {
                snprintf(x->fault, sizeof x->fault, "milliseconds: %.*s", n, line);
                return;
            }
            if (strcmp(f->type, "counter") == 0 && !ends_with(line, len, "_total")) {
                snprintf(x->fault, sizeof x->fault, "a counter without _total: %.*s", n, line);
                return;
            }
        }
        line = end + 1;
    }
    for (size_t i = 0; i < x->n; i++)
        if (!x->f[i].help || x->f[i].type[0] == '\0') {
            snprintf(x->fault, sizeof x->fault, "family %s lacks HELP or TYPE", x->f[i].name);
            return;
        }
}

/* The value of the sample whose line starts with `series` followed by a space; -1 if none. */
static double sample(const char *text, const char *series) {
    size_t n = strlen(series);
    for (const char *p = text; (p = strstr(p, series)) != NULL; p += n) {
        if ((p == text || p[-1] == '\n') && p[n] == ' ')
            return strtod(p + n + 1, NULL);
    }
    return -1;
}

/* Checks that a histogram's buckets (with `labels`, ending in a comma, or "") rise and end
 * in a +Inf bucket equal to _count. Returns 1 when they do. */
static int histogram_ok(const char *text, const char *name, const char *labels) {
    char prefix[256];
    snprintf(prefix, sizeof prefix, "%s_bucket{%s", name, labels);
    double last = 0;
    int buckets = 0;
    for (const char *p = text; (p = strstr(p, prefix)) != NULL; p++) {
        const char *le = p + strlen(prefix);
        if (strncmp(le, "le=\"", 4) != 0)
            continue;
        const char *sp = strchr(le, ' ');
        if (sp == NULL)
            return 0;
        double v = strtod(sp + 1, NULL);
        if (v < last)
            return 0;
        last = v;
        buckets++;
        if (strncmp(le, "le=\"+Inf\"}", 10) == 0) {
            char count[256];
            size_t ln = strlen(labels);
            if (ln > 0)
                snprintf(count, sizeof count, "%s_count{%.*s}", name, (int)ln - 1, labels);
            else
                snprintf(count, sizeof count, "%s_count", name);
            return buckets > 1 && sample(text, count) == v;
        }
    }
    return 0;
}

CZK_TEST(engine_metrics_prometheus) {
    czk_engine *e = make_engine();
    CHECK(e != NULL);
    czk_job_status st = CZK_JOB_UNKNOWN;
    CHECK_EQ_INT(run_job(e, "p1", "porep", 2, &st), CZK_OK);
    CHECK_EQ_INT(st, CZK_JOB_COMPLETED);
    CHECK_EQ_INT(run_job(e, "g1", NULL, 1, &st), CZK_OK);
    CHECK_EQ_INT(st, CZK_JOB_COMPLETED);
    czk_job_status prior;
    CHECK_EQ_INT(czk_engine_cancel(e, "g1", NULL, &prior, NULL), CZK_OK);
    char *text = NULL;
    CHECK(czk_engine_metrics(e, &text) == CZK_OK);
    exposition x;
    parse_exposition(&x, text);
    CHECKF(x.fault[0] == '\0', "%s\n%s", x.fault, text);
    /* Job counters by circuit and proof kind; a generic request's kind is "unspecified". */
    CHECKF(sample(text, "czk_jobs_completed_total{circuit=\"m8\",proof_kind=\"porep\"}") == 1, "%s",
           text);
    CHECK(sample(text, "czk_jobs_completed_total{circuit=\"m8\",proof_kind=\"unspecified\"}") == 1);
    /* Cancelling a finished job counts nothing. */
    CHECK(sample(text, "czk_jobs_cancelled_total{circuit=\"m8\",proof_kind=\"unspecified\"}") == 0);
    /* Histograms: whole proofs by circuit and kind, partitions by stage. */
    CHECK(histogram_ok(text, "czk_proof_seconds", "circuit=\"m8\",proof_kind=\"porep\","));
    CHECK(sample(text, "czk_proof_seconds_count{circuit=\"m8\",proof_kind=\"porep\"}") == 1);
    CHECK(sample(text, "czk_proof_seconds_sum{circuit=\"m8\",proof_kind=\"porep\"}") > 0);
    static const char *const stages[] = {"queue", "synthesis", "prove", "verify"};
    for (size_t i = 0; i < 4; i++) {
        char labels[64], count[96];
        snprintf(labels, sizeof labels, "stage=\"%s\",", stages[i]);
        snprintf(count, sizeof count, "czk_partition_stage_seconds_count{stage=\"%s\"}", stages[i]);
        CHECKF(histogram_ok(text, "czk_partition_stage_seconds", labels), "%s", stages[i]);
        CHECK(sample(text, count) == 3);
    }
    CHECK(sample(text, "czk_partition_stage_seconds_sum{stage=\"prove\"}") > 0);
    CHECK(sample(text, "czk_prove_step_seconds_total{step=\"msm_a\"}") > 0);
    CHECK(sample(text, "czk_partitions_proved_total") == 3);
    /* The CPU has no device memory to report. */
    CHECK(strstr(text, "vram") == NULL);
    czk_free(text);
    czk_engine_destroy(e);
}

/* The parser itself rejects what it should, so that the test above cannot pass vacuously. */
CZK_TEST(engine_metrics_checker_rejects) {
    static const struct {
        const char *text;
        const char *fault;
    } bad[] = {
        {"x_total 1\n", "before its HELP"},
        {"# TYPE x_total counter\nx_total 1\n", "before its HELP"},
        {"# HELP x_ms A.\n# TYPE x_ms gauge\nx_ms 1\n", "milliseconds"},
        {"# HELP x_ms_total A.\n# TYPE x_ms_total counter\nx_ms_total 1\n", "milliseconds"},
        {"# HELP x A.\n# TYPE x counter\nx 1\n", "without _total"},
        {"# HELP x A.\n# TYPE x gauge\nx_bucket{le=\"1\"} 1\n", "before its HELP"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        exposition x;
        parse_exposition(&x, bad[i].text);
        CHECKF(strstr(x.fault, bad[i].fault) != NULL, "case %zu: '%s'", i, x.fault);
    }
    const char *h = "# HELP h A.\n# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} "
                    "1\nh_sum 1\nh_count 1\n";
    CHECK(!histogram_ok(h, "h", "")); /* not cumulative */
    h = "# HELP h A.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum "
        "1\nh_count 3\n";
    CHECK(!histogram_ok(h, "h", "")); /* +Inf != _count */
    h = "# HELP h A.\n# TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum "
        "1\nh_count 2\n";
    exposition x;
    parse_exposition(&x, h);
    CHECKF(x.fault[0] == '\0' && histogram_ok(h, "h", ""), "%s", x.fault);
}

CZK_TEST(engine_status_json) {
    czk_engine *e = make_engine();
    CHECK(e != NULL);
    czk_job_status st = CZK_JOB_UNKNOWN;
    CHECK_EQ_INT(run_job(e, "s1", NULL, 1, &st), CZK_OK);
    czk_engine_status s;
    CHECK(czk_engine_get_status(e, &s) == CZK_OK);
    char *json = NULL;
    CHECK(czk_engine_status_json(&s, &json) == CZK_OK);
    czk_engine_status_clear(&s);
    static const char *const keys[] = {"\"uptime_seconds\": ",   "\"jobs\": {\"completed\": 1",
                                       "\"partitions\": {",      "\"priorities\": {\"LOW\": ",
                                       "\"queues\": [",          "\"circuits\": [",
                                       "\"circuit_id\": \"m8\"", "\"devices\": [",
                                       "\"memory\": {",          "\"pinned_used_bytes\": "};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        CHECKF(strstr(json, keys[i]) != NULL, "%s not in %s", keys[i], json);
    czk_free(json);
    czk_engine_destroy(e);
}
