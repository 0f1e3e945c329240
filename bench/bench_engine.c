/*
 * bench_engine: a steady run of the proving engine on the synthetic PoRep-shaped circuit,
 * and the device timeline rebuilt from its per-partition timing lines (issue 5, item 8).
 *
 *   bench_engine [--k K] [--jobs N] [--partitions P] [--inflight J] [--workers W]
 *                [--synth T] [--backend auto|cpu|cuda] [--solve 0|1] [--log FILE]
 *                [--devices 0,1] [--compare] [--porep C1FILE --params DIR [--repeated]]
 *                [--fail-device D] [--vram GIB] [--host GIB]
 *                [--svg FILE] [--urgent K [--urgent-every MS] [--urgent-from J]]
 *
 * Defaults: K 16, 8 jobs of 4 partitions, 2 in flight, 2 workers per device, backend auto.
 * --vram, --host: the engine's device budget per GPU and its host budget (memory.total_budget),
 * in GiB (default: the engine's own).
 * --devices: the CUDA devices the engine opens (default all). --compare: two passes in one
 * call, the first on the first of those devices alone, the second on all of them, and the
 * ratio of their s/proof (the multi-GPU scaling; the peak resident set is reset between the
 * passes). --porep: the job is a Filecoin PoRep C2 of that C1 output (filecoin-ffi's JSON,
 * `czk c2 gen SIZE --virtual` makes one) on the real partition circuit, keys from DIR
 * (`czk setup --filecoin porep SIZE --out DIR`); --k, --partitions and --solve do not apply.
 * --repeated: the PoRep circuit is kept in its repeated form (global part and one challenge,
 * expanded on the device) whatever its size, as 32 and 64 GiB always are.
 * From the key's load on, a sampler reads the resident set by kind (anonymous, file, shared)
 * every 100 ms and reports its peaks while the jobs ran and the peak of what lies outside the
 * engine's host reservation and staging (the memory the budget does not see: BENCHMARKS.md run
 * 86), by phase: load (the key), steady (jobs being submitted), drain (all submitted).
 * --fail-device D: once the first job has completed, the engine's device D (its index among
 * the devices opened) faults at its next attempt, as a lost GPU does (czk__engine_inject_device_
 * fault); its partitions must go to the other devices or the CPU and every job still complete.
 * With --compare, only in the pass on all devices.
 * --svg FILE: records the run's spans (czk_engine_trace_start) and writes them as an SVG
 * timeline (czk_timeline_svg_write): a lane per synthesis thread, worker and finalizer, the
 * kernel regions' steps, busy shares. With --compare, the first pass's goes to FILE.one.svg.
 * --urgent K: while the jobs run, a CRITICAL job of one partition of a second synthetic circuit
 * of 2^K constraints (K = 19 is a 32 GiB WinningPoSt's domain) is sent every MS ms (default
 * 500) after the previous one came back, as a WinningPoSt beside C2 (issue 29, item 6); its
 * submit-to-proof times (median, p90, p99, max), and its partitions' kernel regions, are
 * printed apart from the jobs'. --urgent-from J: the first urgent job goes once J jobs have
 * completed, and the jobs' throughput is printed for the two phases, without and with the
 * urgent ones (the cost of giving way). Their witness is the one made with the circuit (synthesis
 * is a copy): the run measures what the device makes them wait. Their circuit is loaded before the
 * clock starts and one urgent job runs before it (not counted), so on a GPU with a priority
 * lane they prove there and their key is one that CRITICAL jobs use. Witnesses: --solve 1 solves a
 * distinct witness per partition (the engine's generic solver, single-threaded per partition:
 * slower than a GPU proves); 0, the default, copies the witness made with the circuit (synth_seed
 * 0), so that the run measures proving. The circuit (and its development key) is loaded before the
 * clock starts. Jobs are submitted so that J are always in flight; each is awaited and must
 * COMPLETE (the engine verifies every proof). Then, per device, from the lines' kernel_at_ms and
 * kernel_ms: the window from the first kernel region's start to the last one's end, the union of
 * the kernel regions inside it, and busy = union / window; plus medians of each step, the
 * throughput in s/proof (a proof = one job, as cuzk-bench counts), and the process's peak
 * resident memory. "Kernel region" is the device lock's hold (czk.h): on a GPU backend
 * with the key and circuit resident it is the witness upload, the kernels and the G2 MSM;
 * a profiler's view of kernel time is the nvidia-smi sample the GPU script takes beside it.
 * Exit status: 0 when every job completed, 1 otherwise.
 */
#include "czk.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "engine/engine_internal.h"
#include "filecoin/io/c1.h"
#include "filecoin/io/params.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/parse.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

#define MAX_LINES 100000

typedef struct pline {
    double queue, synth, lock_wait, kernel, finish, verify, at;
    char backend[32];
    int ok;
    int urgent; /* a partition of --urgent's circuit */
} pline;

/* --urgent's circuit id. */
#define URGENT_ID "urgent"
#define URGENT_MAX 20000

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static pline *g_lines;
static size_t g_n;
static FILE *g_log;

static double field(const char *line, const char *key) {
    const char *p = strstr(line, key);
    return p != NULL ? strtod(p + strlen(key), NULL) : -1;
}

static void on_log(void *arg, int level, const char *line) {
    (void)arg;
    pthread_mutex_lock(&g_mu);
    if (g_log != NULL)
        fprintf(g_log, "%d %s\n", level, line);
    if (strncmp(line, "partition ", 10) == 0 && g_n < MAX_LINES) {
        pline *l = &g_lines[g_n++];
        l->queue = field(line, " queue_ms=");
        l->synth = field(line, " synth_ms=");
        l->lock_wait = field(line, " lock_wait_ms=");
        l->kernel = field(line, " kernel_ms=");
        l->finish = field(line, " finish_ms=");
        l->verify = field(line, " verify_ms=");
        l->at = field(line, " kernel_at_ms=");
        l->ok = strstr(line, " result=ok") != NULL;
        l->urgent = strstr(line, " circuit=" URGENT_ID " ") != NULL;
        const char *b = strstr(line, " backend=");
        l->backend[0] = '\0';
        if (b != NULL)
            sscanf(b + 9, "%31s", l->backend);
    }
    pthread_mutex_unlock(&g_mu);
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median_of(double *v, size_t n) {
    if (n == 0)
        return 0;
    qsort(v, n, sizeof(*v), cmp_d);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Peak resident set of this process in bytes (VmHWM), 0 when unknown. */
static unsigned long long peak_rss(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char buf[256];
    unsigned long long kb = 0;
    if (f == NULL)
        return 0;
    while (fgets(buf, sizeof(buf), f) != NULL)
        if (sscanf(buf, "VmHWM: %llu kB", &kb) == 1)
            break;
    fclose(f);
    return kb * 1024;
}

/*
 * The memory sampler: every 100 ms, the process's resident anonymous, file and shared memory
 * (/proc/self/status; page-locked staging counts as anonymous or shared, by driver) against
 * the engine's host reservation and the staging it holds, so that a run shows how much of
 * what the process holds lies outside the budget ("unbudgeted": anonymous + shared − reserved
 * − staging held), at its peak.
 */
enum { PH_LOAD, PH_STEADY, PH_DRAIN, PH_N }; /* the run's phases, for the sampler */
static const char *const ph_names[PH_N] = {"load", "steady", "drain"};

typedef struct memwatch {
    czk_engine *e;
    pthread_mutex_t mu;
    int quit;
    int phase;                            /* PH_*: key loading, jobs submitted, the last ones */
    double anon, file, shmem, unbudgeted; /* peaks while jobs ran (steady and drain), GiB */
    double unb[PH_N];                     /* the unbudgeted peak of each phase, GiB */
} memwatch;

static void rss_parts(double *anon, double *file, double *shmem) {
    FILE *f = fopen("/proc/self/status", "r");
    char buf[256];
    unsigned long long kb;
    *anon = *file = *shmem = 0;
    if (f == NULL)
        return;
    while (fgets(buf, sizeof(buf), f) != NULL) {
        if (sscanf(buf, "RssAnon: %llu kB", &kb) == 1)
            *anon = (double)kb / (1 << 20);
        else if (sscanf(buf, "RssFile: %llu kB", &kb) == 1)
            *file = (double)kb / (1 << 20);
        else if (sscanf(buf, "RssShmem: %llu kB", &kb) == 1)
            *shmem = (double)kb / (1 << 20);
    }
    fclose(f);
}

/* The resident set by kind and what the engine holds of it (reservation and staging), GiB. */
static void sample_memory(czk_engine *e, double *anon, double *file, double *shmem, double *held) {
    rss_parts(anon, file, shmem);
    czk_engine_status st;
    *held = 0;
    if (czk_engine_get_status(e, &st) == CZK_OK) {
        *held = (double)(st.host_reserved_bytes + st.pinned_used_bytes) / (1 << 30);
        czk_engine_status_clear(&st);
    }
}

static void *memwatch_main(void *arg) {
    memwatch *m = arg;
    for (;;) {
        pthread_mutex_lock(&m->mu);
        int quit = m->quit;
        pthread_mutex_unlock(&m->mu);
        if (quit)
            return NULL;
        double anon, file, shmem, held;
        sample_memory(m->e, &anon, &file, &shmem, &held);
        pthread_mutex_lock(&m->mu);
        const double out = anon + shmem - held;
        if (m->phase != PH_LOAD) {
            m->anon = anon > m->anon ? anon : m->anon;
            m->file = file > m->file ? file : m->file;
            m->shmem = shmem > m->shmem ? shmem : m->shmem;
            m->unbudgeted = out > m->unbudgeted ? out : m->unbudgeted;
        }
        m->unb[m->phase] = out > m->unb[m->phase] ? out : m->unb[m->phase];
        pthread_mutex_unlock(&m->mu);
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
}

static void memwatch_phase(memwatch *m, int phase) {
    pthread_mutex_lock(&m->mu);
    m->phase = phase;
    pthread_mutex_unlock(&m->mu);
}

/* Stops the sampler (started: its thread runs) before the engine it reads goes. */
static void memwatch_stop(memwatch *m, pthread_t th, int started) {
    if (started) {
        pthread_mutex_lock(&m->mu);
        m->quit = 1;
        pthread_mutex_unlock(&m->mu);
        pthread_join(th, NULL);
    }
}

typedef struct span {
    double a, b;
} span;

static int cmp_span(const void *x, const void *y) {
    const span *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

/* Device timeline of one backend name: window, union of kernel regions, count. */
static void timeline(const char *backend, double *window, double *busy, size_t *count) {
    span *s = calloc(g_n ? g_n : 1, sizeof(*s));
    size_t m = 0;
    *window = *busy = 0;
    for (size_t i = 0; s != NULL && i < g_n; i++)
        if (strcmp(g_lines[i].backend, backend) == 0 && g_lines[i].at >= 0)
            s[m++] = (span){g_lines[i].at, g_lines[i].at + g_lines[i].kernel};
    *count = m;
    if (m > 0) {
        qsort(s, m, sizeof(*s), cmp_span);
        double lo = s[0].a, hi = s[0].b, end = s[0].a;
        for (size_t i = 0; i < m; i++) {
            double a = s[i].a > end ? s[i].a : end;
            if (s[i].b > a)
                *busy += s[i].b - a;
            if (s[i].b > end)
                end = s[i].b;
            if (s[i].b > hi)
                hi = s[i].b;
        }
        *window = hi - lo;
    }
    free(s);
}

/* --urgent's sender: one CRITICAL job at a time, every_ms after the previous one came back;
 * n, ms and failed are its own until it is joined. */
typedef struct urgent {
    czk_engine *e;
    unsigned every_ms;
    pthread_mutex_t mu;
    int quit;
    double *ms; /* submit to verified proof, per completed job */
    size_t n;
    unsigned failed;
} urgent;

/* One urgent job `rid`, submitted and awaited: 1 when it completed (*ms its submit-to-proof
 * time), 0 after a message on stderr. */
static int urgent_job(czk_engine *e, const char *rid, double *ms) {
    czk_job_request req;
    char id[CZK_REQUEST_ID_MAX + 1];
    czk_job_result res;
    czk_err err = {0};
    memset(&req, 0, sizeof req);
    memset(&res, 0, sizeof res);
    req.request_id = rid;
    req.circuit_id = URGENT_ID;
    req.priority = CZK_PRIORITY_CRITICAL;
    req.n_partitions = 1;
    const double t = now_ms();
    if (czk_engine_submit(e, &req, id, NULL, NULL, &err) != CZK_OK) {
        fprintf(stderr, "bench_engine: %s: %s\n", rid, err.msg);
        return 0;
    }
    (void)czk_engine_await(e, id, 0, &res, &err);
    *ms = now_ms() - t;
    const int ok = res.status == CZK_JOB_COMPLETED;
    if (!ok)
        fprintf(stderr, "bench_engine: %s: status %d: %s\n", rid, (int)res.status, res.error);
    czk_job_result_clear(&res);
    return ok;
}

static void *urgent_main(void *arg) {
    urgent *u = arg;
    for (unsigned i = 0; u->n < URGENT_MAX; i++) {
        pthread_mutex_lock(&u->mu);
        const int quit = u->quit;
        pthread_mutex_unlock(&u->mu);
        if (quit)
            break;
        char rid[64];
        snprintf(rid, sizeof rid, "urgent-%u", i);
        if (urgent_job(u->e, rid, &u->ms[u->n]))
            u->n++;
        else
            u->failed++;
        struct timespec ts = {(time_t)(u->every_ms / 1000), (long)(u->every_ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
    return NULL;
}

/* The q-quantile (0..1) of v[0..n) sorted ascending, nearest rank; 0 when empty. */
static double quantile(const double *v, size_t n, double q) {
    if (n == 0)
        return 0;
    size_t k = (size_t)(q * (double)n + 0.999999);
    return v[k == 0 ? 0 : k > n ? n - 1 : k - 1];
}

static void usage(void) {
    fprintf(stderr, "usage: bench_engine [--k K] [--jobs N] [--partitions P] [--inflight J] "
                    "[--workers W] [--synth T] [--backend auto|cpu|cuda] [--solve 0|1] "
                    "[--vram GIB] [--host GIB] [--log FILE] [--devices 0,1] [--compare] "
                    "[--porep C1FILE --params DIR [--repeated]] [--fail-device D] [--svg FILE] "
                    "[--urgent K [--urgent-every MS] [--urgent-from J]]\n");
}

/* What the passes share: the options, and the PoRep job's payload when there is one. */
typedef struct opts {
    unsigned k, jobs, parts, inflight, workers, synth, solve;
    const char *backend;
    double vram_gib, host_gib; /* --vram, --host: the engine's device and host budgets */
    unsigned devices[64];
    size_t n_devices;
    int fail_dev; /* --fail-device, or -1 */
    const char *porep, *params;
    int repeated;                 /* --repeated */
    unsigned urgent_k, urgent_ms; /* --urgent, --urgent-every (0: no urgent jobs) */
    unsigned urgent_from;         /* --urgent-from */
    uint8_t *payload;             /* --porep: the request payload (header + C1 JSON) */
    size_t payload_len;
    uint64_t sector_size;
    char circuit[64];
} opts;

/* Resets the peak resident set (VmHWM) so that a pass reports its own. */
static void reset_peak_rss(void) {
    FILE *f = fopen("/proc/self/clear_refs", "w");
    if (f != NULL) {
        fputs("5", f);
        fclose(f);
    }
}

/* --porep: reads the C1 output and makes the request payload. */
static int porep_prepare(opts *o) {
    czk_err err = {0};
    uint8_t *buf = NULL;
    size_t len = 0;
    czk_c1 c1;
    memset(&c1, 0, sizeof c1);
    int rc = czk_file_read_all(&buf, &len, o->porep, &err);
    if (rc == CZK_OK)
        rc = czk_c1_parse(&c1, buf, len, o->porep, &err);
    if (rc == CZK_OK)
        rc = czk_kinds_porep_circuit_id(o->circuit, sizeof o->circuit, c1.type->abi_id, &err);
    if (rc == CZK_OK) {
        o->payload = czk_malloc(CZK_POREP_PAYLOAD_HEADER + len);
        if (o->payload == NULL)
            rc = czk_err_set(&err, CZK_ENOMEM, "payload of %zu bytes", len);
    }
    if (rc == CZK_OK) {
        o->payload_len =
            czk_kinds_porep_payload_encode(o->payload, c1.type->abi_id, 0, 0, 0, buf, len);
        o->parts = c1.n_partitions;
        o->sector_size = c1.type->sector_size;
    } else {
        fprintf(stderr, "bench_engine: %s\n", err.msg);
    }
    czk_c1_clear(&c1);
    czk_free(buf);
    return rc;
}

static int run_pass(const opts *o, const unsigned *devices, size_t n_devices, const char *log_path,
                    int fail_dev, const char *svg_path, double *s_per_proof);

int main(int argc, char **argv) {
    opts o;
    memset(&o, 0, sizeof o);
    o.k = 16, o.jobs = 8, o.parts = 4, o.inflight = 2, o.workers = 2;
    o.backend = "auto";
    o.fail_dev = -1;
    o.urgent_ms = 500;
    const char *log_path = NULL, *svg_path = NULL;
    int compare = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--compare") == 0) {
            compare = 1;
            continue;
        }
        if (strcmp(a, "--repeated") == 0) {
            o.repeated = 1;
            continue;
        }
        if (i + 1 >= argc) {
            usage();
            return 2;
        }
        const char *v = argv[++i];
        if (strcmp(a, "--k") == 0)
            o.k = (unsigned)atoi(v);
        else if (strcmp(a, "--jobs") == 0)
            o.jobs = (unsigned)atoi(v);
        else if (strcmp(a, "--partitions") == 0)
            o.parts = (unsigned)atoi(v);
        else if (strcmp(a, "--inflight") == 0)
            o.inflight = (unsigned)atoi(v);
        else if (strcmp(a, "--workers") == 0)
            o.workers = (unsigned)atoi(v);
        else if (strcmp(a, "--synth") == 0)
            o.synth = (unsigned)atoi(v);
        else if (strcmp(a, "--solve") == 0)
            o.solve = (unsigned)atoi(v);
        else if (strcmp(a, "--backend") == 0)
            o.backend = v;
        else if (strcmp(a, "--log") == 0)
            log_path = v;
        else if (strcmp(a, "--svg") == 0)
            svg_path = v;
        else if (strcmp(a, "--vram") == 0)
            o.vram_gib = atof(v);
        else if (strcmp(a, "--host") == 0)
            o.host_gib = atof(v);
        else if (strcmp(a, "--porep") == 0)
            o.porep = v;
        else if (strcmp(a, "--params") == 0)
            o.params = v;
        else if (strcmp(a, "--fail-device") == 0)
            o.fail_dev = atoi(v);
        else if (strcmp(a, "--urgent") == 0)
            o.urgent_k = (unsigned)atoi(v);
        else if (strcmp(a, "--urgent-every") == 0)
            o.urgent_ms = (unsigned)atoi(v);
        else if (strcmp(a, "--urgent-from") == 0)
            o.urgent_from = (unsigned)atoi(v);
        else if (strcmp(a, "--devices") == 0) {
            if (czk_parse_uint_list(v, 63, o.devices, 64, &o.n_devices) != 0) {
                usage();
                return 2;
            }
        } else {
            usage();
            return 2;
        }
    }
    if (o.jobs == 0 || o.parts == 0 || o.inflight == 0 || o.jobs > 10000 || o.parts > 64 ||
        (o.porep != NULL) != (o.params != NULL) || (o.urgent_k != 0 && o.urgent_k < 4) ||
        o.urgent_from >= o.jobs) {
        usage();
        return 2;
    }
    if (o.porep != NULL && porep_prepare(&o) != CZK_OK)
        return 1;
    g_lines = calloc(MAX_LINES, sizeof(*g_lines));
    if (g_lines == NULL)
        return 1;
    int rc = 0;
    double one = 0, all = 0;
    if (compare) {
        /* The first device alone: the listed one, else CUDA device 0. */
        unsigned first = o.n_devices > 0 ? o.devices[0] : 0;
        printf("## pass 1: device %u alone\n", first);
        char one_svg[4096];
        if (svg_path != NULL)
            snprintf(one_svg, sizeof one_svg, "%s.one.svg", svg_path);
        rc |= run_pass(&o, &first, 1, log_path, -1, svg_path != NULL ? one_svg : NULL, &one);
        printf("## pass 2: %s\n", o.n_devices > 0 ? "the devices listed" : "every device");
        reset_peak_rss();
    }
    rc |= run_pass(&o, o.n_devices > 0 ? o.devices : NULL, o.n_devices, log_path, o.fail_dev,
                   svg_path, &all);
    if (compare && all > 0)
        printf("scaling: %.4f s/proof on one device, %.4f on all: %.2fx\n", one, all, one / all);
    free(g_lines);
    czk_free(o.payload);
    return rc;
}

/* One steady run on an engine of its own: prints its summary, *s_per_proof its throughput.
 * Returns 0 when every job completed, 1 otherwise. */
static int run_pass(const opts *o, const unsigned *devices, size_t n_devices, const char *log_path,
                    int fail_dev, const char *svg_path, double *s_per_proof) {
    const unsigned k = o->k, jobs = o->jobs, parts = o->parts, inflight = o->inflight,
                   workers = o->workers, solve = o->solve;
    const char *backend = o->backend;
    pthread_mutex_lock(&g_mu);
    g_n = 0;
    if (log_path != NULL)
        g_log = fopen(log_path, "a");
    pthread_mutex_unlock(&g_mu);

    czk_engine_config cfg;
    czk_engine_config_default(&cfg);
    cfg.backend = backend;
    cfg.gpu_ordinals = devices;
    cfg.n_gpu_ordinals = n_devices;
    cfg.workers_per_device = workers;
    cfg.synth_threads = o->synth;
    cfg.log = on_log;
    cfg.log_level = CZK_LOG_INFO;
    if (o->vram_gib > 0)
        cfg.vram_budget_bytes = (uint64_t)(o->vram_gib * (double)(1ull << 30));
    if (o->host_gib > 0)
        cfg.host_budget_bytes = (uint64_t)(o->host_gib * (double)(1ull << 30));
    czk_engine *e = NULL;
    czk_err err = {0};
    if (czk_engine_create(&e, &cfg, &err) != CZK_OK) {
        fprintf(stderr, "bench_engine: %s\n", err.msg);
        return 1;
    }
    /* The sampler runs from the key's load on: its unbudgeted peaks are kept by phase. */
    memwatch mw;
    memset(&mw, 0, sizeof mw);
    mw.e = e;
    mw.phase = PH_LOAD;
    pthread_mutex_init(&mw.mu, NULL);
    pthread_t mw_thread;
    int mw_started = pthread_create(&mw_thread, NULL, memwatch_main, &mw) == 0;
    uint64_t load_ms = 0;
    const char *circuit = o->porep != NULL ? o->circuit : "bench";
    int rc = o->porep != NULL ? czk_kinds_register_filecoin_porep_flags(
                                    e, o->sector_size, o->params, NULL,
                                    o->repeated ? CZK_KINDS_POREP_REPEATED : 0, &err)
                              : czk_engine_register_synthetic(e, "bench", k, &err);
    if (rc != CZK_OK || czk_engine_preload(e, circuit, NULL, &load_ms, &err) != CZK_OK) {
        fprintf(stderr, "bench_engine: circuit %s: %s\n", circuit, err.msg);
        memwatch_stop(&mw, mw_thread, mw_started);
        czk_engine_destroy(e);
        return 1;
    }
    if (o->urgent_k != 0 &&
        (czk_engine_register_synthetic(e, URGENT_ID, o->urgent_k, &err) != CZK_OK ||
         czk_engine_preload(e, URGENT_ID, NULL, NULL, &err) != CZK_OK)) {
        fprintf(stderr, "bench_engine: --urgent %u: %s\n", o->urgent_k, err.msg);
        memwatch_stop(&mw, mw_thread, mw_started);
        czk_engine_destroy(e);
        return 1;
    }
    if (o->urgent_k != 0) {
        /* One urgent job before the clock: the circuit is then one that CRITICAL jobs use,
         * whose idle key the jobs' reservations do not evict (a WinningPoSt key in service);
         * preloaded but never used, it was evicted by the first jobs and reloaded (run 103). */
        double ms;
        const int ok = urgent_job(e, "urgent-warm-up", &ms);
        if (!ok) {
            fprintf(stderr, "bench_engine: --urgent %u: the warm-up job did not complete\n",
                    o->urgent_k);
            memwatch_stop(&mw, mw_thread, mw_started);
            czk_engine_destroy(e);
            return 1;
        }
    }
    {
        czk_engine_status ds;
        if (czk_engine_get_status(e, &ds) == CZK_OK) {
            for (size_t i = 0; i < ds.n_devices; i++)
                printf("# device %u: %s\n", ds.devices[i].ordinal, ds.devices[i].name);
            czk_engine_status_clear(&ds);
        }
    }
    if (o->porep != NULL)
        printf("# bench_engine commit %s: %s (%s), %u jobs x %u partitions, %u in flight, %u "
               "workers per device, backend %s; key loaded in %llu ms\n",
               CZK_GIT_COMMIT, circuit, o->porep, jobs, parts, inflight, workers, backend,
               (unsigned long long)load_ms);
    else
        printf("# bench_engine commit %s: k %u, %u jobs x %u partitions, %u in flight, %u "
               "workers per device, backend %s; key loaded in %llu ms\n",
               CZK_GIT_COMMIT, k, jobs, parts, inflight, workers, backend,
               (unsigned long long)load_ms);

    {
        /* The same figures once, loaded and idle: what lies outside the budget before any
         * job tells the circuit's own footprint (static) from the jobs' (run 90's question). */
        double anon, file, shmem, held;
        sample_memory(e, &anon, &file, &shmem, &held);
        printf("# loaded, before the jobs: anonymous %.2f GiB, file %.2f GiB, shared %.2f GiB; "
               "reserved and staging %.2f GiB; outside them %.2f GiB\n",
               anon, file, shmem, held, anon + shmem - held);
    }
    /* The timeline: every partition makes some 7 spans (more when retried), every job 2. */
    if (svg_path != NULL &&
        czk_engine_trace_start(e, (size_t)jobs * (parts * 16 + 2) + 1024, &err) != CZK_OK) {
        fprintf(stderr, "bench_engine: --svg: %s\n", err.msg);
        memwatch_stop(&mw, mw_thread, mw_started);
        czk_engine_destroy(e);
        return 1;
    }
    memwatch_phase(&mw, PH_STEADY);
    char(*ids)[CZK_REQUEST_ID_MAX + 1] = calloc(jobs, CZK_REQUEST_ID_MAX + 1);
    double *job_ms = calloc(jobs, sizeof(double)), *t_sub = calloc(jobs, sizeof(double));
    unsigned submitted = 0, done = 0, failed = 0;
    uint64_t max_reserved = 0, key_bytes = 0; /* the engine's host reservation, sampled */
    urgent ug;
    memset(&ug, 0, sizeof ug);
    ug.e = e;
    ug.every_ms = o->urgent_ms;
    pthread_mutex_init(&ug.mu, NULL);
    ug.ms = o->urgent_k != 0 ? calloc(URGENT_MAX, sizeof(double)) : NULL;
    pthread_t ug_thread;
    int ug_started = 0, ug_tried = o->urgent_k == 0;
    double t0 = now_ms(), t_from = t0;
    unsigned done_from = 0; /* jobs completed when the urgent ones began */
    while (done < jobs && ids != NULL && job_ms != NULL && t_sub != NULL) {
        if (!ug_tried && done >= o->urgent_from) {
            ug_tried = 1;
            t_from = now_ms();
            done_from = done;
            ug_started = ug.ms != NULL && pthread_create(&ug_thread, NULL, urgent_main, &ug) == 0;
            if (!ug_started) {
                fprintf(stderr, "bench_engine: cannot start the urgent jobs' thread\n");
                failed++;
            }
        }
        while (submitted < jobs && submitted - done < inflight) {
            char rid[64];
            snprintf(rid, sizeof(rid), "bench-%u", submitted);
            czk_job_request req;
            memset(&req, 0, sizeof(req));
            req.request_id = rid;
            req.circuit_id = circuit;
            req.n_partitions = parts;
            req.synth_seed = solve ? 1000 + submitted : 0;
            if (o->porep != NULL) {
                req.synth_seed = 0;
                req.payload = o->payload;
                req.payload_len = o->payload_len;
            }
            t_sub[submitted] = now_ms();
            if (czk_engine_submit(e, &req, ids[submitted], NULL, NULL, &err) != CZK_OK) {
                fprintf(stderr, "bench_engine: submit %u: %s\n", submitted, err.msg);
                failed++;
                ids[submitted][0] = '\0';
            }
            submitted++;
            if (submitted == jobs)
                memwatch_phase(&mw, PH_DRAIN);
        }
        czk_job_result res;
        memset(&res, 0, sizeof(res));
        if (ids[done][0] != '\0') {
            (void)czk_engine_await(e, ids[done], 0, &res, &err);
            job_ms[done] = now_ms() - t_sub[done];
            if (res.status != CZK_JOB_COMPLETED) {
                fprintf(stderr, "bench_engine: job %u: status %d: %s\n", done, (int)res.status,
                        res.error);
                failed++;
            }
            czk_job_result_clear(&res);
        }
        done++;
        if (done == 1 && fail_dev >= 0) {
            int irc = czk__engine_inject_device_fault(e, (unsigned)fail_dev);
            printf("# after job 1: injected a fault on device %d%s\n", fail_dev,
                   irc == CZK_OK ? "" : " -- refused: no such GPU device");
            if (irc != CZK_OK)
                failed++;
        }
        {
            czk_engine_status ms;
            if (czk_engine_get_status(e, &ms) == CZK_OK) {
                if (ms.host_reserved_bytes > max_reserved)
                    max_reserved = ms.host_reserved_bytes;
                if (ms.n_circuits > 0)
                    key_bytes = ms.circuits[0].size_bytes;
                czk_engine_status_clear(&ms);
            }
        }
        if (done % 10 == 0 || done == jobs) {
            fprintf(stderr, "\rbench_engine: %u/%u jobs, %.1f s", done, jobs,
                    (now_ms() - t0) / 1e3);
            fflush(stderr);
        }
    }
    double wall = now_ms() - t0;
    fprintf(stderr, "\n");
    if (ug_started) {
        pthread_mutex_lock(&ug.mu);
        ug.quit = 1;
        pthread_mutex_unlock(&ug.mu);
        pthread_join(ug_thread, NULL);
        failed += ug.failed;
    }
    pthread_mutex_destroy(&ug.mu);
    memwatch_stop(&mw, mw_thread, mw_started);
    pthread_mutex_destroy(&mw.mu);
    czk_engine_shutdown(e, 10000);
    czk_span *spans = NULL;
    size_t n_spans = 0;
    uint64_t dropped = 0;
    if (svg_path != NULL)
        czk_engine_trace_take(e, &spans, &n_spans, &dropped, NULL);

    czk_engine_status st;
    if (czk_engine_get_status(e, &st) == CZK_OK) {
        printf("# host budget %.2f GiB, pinned budget %.2f GiB (held %.2f GiB)\n",
               (double)st.host_budget_bytes / (1 << 30), (double)st.pinned_budget_bytes / (1 << 30),
               (double)st.pinned_used_bytes / (1 << 30));
        czk_engine_status_clear(&st);
    }
    czk_engine_destroy(e); /* joins the logger: every line is in */

    /* Medians over the successful partitions. */
    size_t n = g_n, okn = 0, urgn = 0;
    double *v[7];
    for (int i = 0; i < 7; i++)
        v[i] = calloc(n ? n : 1, sizeof(double));
    for (size_t i = 0; i < n; i++) {
        if (!g_lines[i].ok)
            continue;
        if (g_lines[i].urgent) {
            v[6][urgn++] = g_lines[i].kernel;
            continue;
        }
        v[0][okn] = g_lines[i].queue;
        v[1][okn] = g_lines[i].synth;
        v[2][okn] = g_lines[i].lock_wait;
        v[3][okn] = g_lines[i].kernel;
        v[4][okn] = g_lines[i].finish;
        v[5][okn] = g_lines[i].verify;
        okn++;
    }
    printf("partitions %zu (ok %zu), jobs %u, failed %u\n", n, okn, jobs, failed);
    printf("median ms: queue %.2f synth %.2f lock_wait %.2f kernel %.2f finish %.2f verify %.2f\n",
           median_of(v[0], okn), median_of(v[1], okn), median_of(v[2], okn), median_of(v[3], okn),
           median_of(v[4], okn), median_of(v[5], okn));
    printf("job ms: median %.1f\n", median_of(job_ms, jobs));
    if (o->urgent_k != 0) {
        qsort(ug.ms, ug.n, sizeof(double), cmp_d);
        printf("urgent 2^%u jobs every %u ms: %zu completed, %u failed; submit to proof ms: "
               "median %.1f p90 %.1f p99 %.1f max %.1f; kernel region median %.1f ms\n",
               o->urgent_k, o->urgent_ms, ug.n, ug.failed, quantile(ug.ms, ug.n, 0.5),
               quantile(ug.ms, ug.n, 0.9), quantile(ug.ms, ug.n, 0.99),
               ug.n > 0 ? ug.ms[ug.n - 1] : 0, median_of(v[6], urgn));
        if (done_from > 0)
            printf("jobs without urgent ones: %u in %.3f s, %.4f s/proof; with them: %u in %.3f "
                   "s, %.4f s/proof\n",
                   done_from, (t_from - t0) / 1e3, (t_from - t0) / 1e3 / done_from,
                   jobs - done_from, (t0 + wall - t_from) / 1e3,
                   (t0 + wall - t_from) / 1e3 / (jobs - done_from));
    }
    printf("wall %.3f s, %.4f s/proof (%.2f proofs/s), %.4f s/partition\n", wall / 1e3,
           wall / 1e3 / jobs, jobs / (wall / 1e3), wall / 1e3 / (jobs * parts));
    *s_per_proof = wall / 1e3 / jobs;
    /* One timeline per backend name seen (cuda:0, cpu, ...). */
    char seen[8][32];
    int n_seen = 0;
    for (size_t i = 0; i < n && n_seen < 8; i++) {
        int known = 0;
        for (int j = 0; j < n_seen; j++)
            known |= strcmp(seen[j], g_lines[i].backend) == 0;
        if (!known)
            snprintf(seen[n_seen++], sizeof(seen[0]), "%s", g_lines[i].backend);
    }
    for (int j = 0; j < n_seen; j++) {
        double window, busy;
        size_t cnt;
        timeline(seen[j], &window, &busy, &cnt);
        printf("device %s: %zu kernel regions, window %.3f s, busy %.3f s = %.1f %%\n", seen[j],
               cnt, window / 1e3, busy / 1e3, window > 0 ? 100.0 * busy / window : 0);
    }
    printf("peak RSS %.2f GiB; engine host reservation: key %.2f GiB, sampled peak %.2f GiB "
           "(%u x %u partitions in flight at most)\n",
           (double)peak_rss() / (1 << 30), (double)key_bytes / (1 << 30),
           (double)max_reserved / (1 << 30), inflight, parts);
    if (mw_started)
        printf("resident while jobs ran (peaks, sampled every 100 ms): anonymous %.2f GiB, file "
               "%.2f GiB, shared %.2f GiB; outside the engine's reservation and staging %.2f "
               "GiB\n",
               mw.anon, mw.file, mw.shmem, mw.unbudgeted);
    if (mw_started)
        printf("outside the reservation and staging, peak by phase: %s %.2f GiB, %s %.2f GiB, %s "
               "%.2f GiB\n",
               ph_names[PH_LOAD], mw.unb[PH_LOAD], ph_names[PH_STEADY], mw.unb[PH_STEADY],
               ph_names[PH_DRAIN], mw.unb[PH_DRAIN]);
    if (svg_path != NULL) {
        char title[200];
        snprintf(title, sizeof title, "bench_engine %s: %s, %u jobs x %u partitions, %u in flight",
                 CZK_GIT_COMMIT, circuit, jobs, parts, inflight);
        if (czk_timeline_svg_write(svg_path, spans, n_spans, title, &err) == CZK_OK)
            printf("timeline: %s (%zu spans, %llu dropped)\n", svg_path, n_spans,
                   (unsigned long long)dropped);
        else
            fprintf(stderr, "bench_engine: --svg: %s\n", err.msg);
    }
    czk_free(spans);
    for (int i = 0; i < 7; i++)
        free(v[i]);
    free(ids);
    free(job_ms);
    free(t_sub);
    free(ug.ms);
    pthread_mutex_lock(&g_mu);
    if (g_log != NULL)
        fclose(g_log);
    g_log = NULL;
    pthread_mutex_unlock(&g_mu);
    return failed == 0 && okn == (size_t)jobs * parts && (o->urgent_k == 0 || ug.n > 0) ? 0 : 1;
}
