/*
 * DESIGN
 *
 * The daemon's main thread owns start-up and shutdown and nothing else. It checks every listen
 * address first (free, and served as the TLS rules allow), so that a second daemon on an address
 * in use is refused before it loads a key, and before it could touch the first one's socket.
 * It blocks SIGTERM, SIGINT and SIGHUP before any thread exists (so every thread inherits the
 * mask and the signals stay pending for the main thread), starts the engine, the gRPC server
 * and the HTTP endpoint, tells systemd READY=1, and waits in sigwait. SIGHUP is logged and
 * ignored: nothing the daemon holds can be reloaded in place (the engine's circuits and
 * budgets are fixed at start, TLS files are read once, the log is stderr), and a hang-up
 * must not drop the jobs in flight, as its default action would. On SIGTERM or SIGINT it
 * drains: STOPPING=1 to systemd, the gRPC server stops taking new proofs (UNAVAILABLE), the
 * engine finishes what it holds within the grace period and cancels the rest, which answers
 * every waiting AwaitProof/Prove call, then the servers stop. A second SIGTERM or SIGINT
 * during the drain ends the process at once (exit 1).
 */
#include "server/daemon.h"

#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifdef CZK_HAVE_SYSTEMD
#include <systemd/sd-daemon.h>
#endif

#include "czk.h"
#include "czk_filecoin.h"
#include "server/config.h"
#include "server/grpc/server.h"
#include "server/http.h"
#include "util/status.h"

static const char *const level_names[] = {"error", "warn", "info", "debug"};

/* The engine's log sink: one line to stderr, with a UTC timestamp. One fprintf per line keeps
 * lines whole (stdio locks the stream per call). */
static void log_line(void *arg, int level, const char *line) {
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    struct tm tm;
    gmtime_r(&ts.tv_sec, &tm);
    fprintf(stderr, "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s %s\n", tm.tm_year + 1900,
            tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
            level >= 0 && level <= 3 ? level_names[level] : "info", line);
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void say(const char *fmt, ...) {
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    log_line(NULL, CZK_LOG_INFO, msg);
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: czk daemon [--config FILE] [--listen ADDR]... [--status-listen ADDR]\n"
            "                  [--circuit ID=KEY[,R1CS]]... [--synthetic ID=K]...\n"
            "                  [--backend auto|cpu|cuda] [--threads N]\n"
            "                  [--tls-cert F --tls-key F [--tls-client-ca F]] [--insecure]\n"
            "                  [--set KEY=VALUE]... [--help-config]\n"
            "\n"
            "Serves cuzk.v1.ProvingEngine over gRPC (default %s; ADDR is host:port or\n"
            "unix:///path, --listen may repeat) and GET /status, /metrics over HTTP on\n"
            "--status-listen (\"\" turns it off). --circuit registers a snarkjs .zkey, or a\n"
            "bellperson .params with its .r1cs; --synthetic a PoRep-shaped circuit of 2^K\n"
            "constraints with DEV keys. --backend and --threads are gpus.backend and\n"
            "gpus.gpu_threads (the prover's CPU threads). Command-line values override the\n"
            "config file (czk daemon --help-config lists every key).\n"
            "Security: plaintext is served on unix sockets (mode 0660) and loopback addresses;\n"
            "other TCP addresses need TLS (--tls-cert/--tls-key; --tls-client-ca requires and\n"
            "verifies client certificates) or an explicit --insecure. An address another\n"
            "daemon listens on is refused (\"address in use\").\n"
            "SIGTERM/SIGINT: stop intake, drain (daemon.shutdown_grace_ms), exit 0.\n"
            "SIGHUP: logged and ignored (nothing to reload). systemd: READY=1 once serving,\n"
            "STOPPING=1 when the drain begins (Type=notify).\n",
            CZK_GRPC_DEFAULT_LISTEN);
}

/* The value of option argv[*i], advancing *i; NULL (after saying so) when missing. */
static const char *value_of(int argc, char **argv, int *i) {
    if (*i + 1 >= argc) {
        fprintf(stderr, "czk daemon: %s needs a value\n", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

/* The options that set one config key each (command-line values override the file's). */
static const struct {
    const char *flag, *key;
} key_flags[] = {
    {"--listen", "daemon.listen"},
    {"--status-listen", "daemon.status_listen"},
    {"--circuit", "circuits.register"},
    {"--synthetic", "circuits.synthetic"},
    {"--backend", "gpus.backend"},
    {"--threads", "gpus.gpu_threads"},
    {"--tls-cert", "daemon.tls_cert"},
    {"--tls-key", "daemon.tls_key"},
    {"--tls-client-ca", "daemon.tls_client_ca"},
};

/* Applies the command line over cfg (which already holds the file's values). */
static int parse_args(czk_server_config *cfg, int argc, char **argv, czk_err *err) {
    int listen_seen = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--insecure") == 0) { /* the one option without a value */
            int rc = czk_server_config_set(cfg, "daemon.insecure", "true", 0, err);
            if (rc != CZK_OK)
                return rc;
            continue;
        }
        size_t f = 0;
        while (f < sizeof key_flags / sizeof key_flags[0] && strcmp(a, key_flags[f].flag) != 0)
            f++;
        int known = f < sizeof key_flags / sizeof key_flags[0];
        if (!known && strcmp(a, "--config") != 0 && strcmp(a, "--set") != 0)
            return czk_err_set(err, CZK_EINVAL, "unknown option '%s' (see czk daemon --help)", a);
        const char *v = value_of(argc, argv, &i);
        if (v == NULL)
            return CZK_EINVAL;
        int rc = CZK_OK;
        if (known) {
            /* The first --listen replaces the file's list; later ones add to it. */
            int replace = strcmp(a, "--listen") == 0 && !listen_seen;
            listen_seen |= strcmp(a, "--listen") == 0;
            rc = czk_server_config_set(cfg, key_flags[f].key, v, replace, err);
        } else if (strcmp(a, "--set") == 0) {
            const char *eq = strchr(v, '=');
            char key[128];
            if (eq == NULL || (size_t)(eq - v) >= sizeof key)
                return czk_err_set(err, CZK_EINVAL, "--set takes KEY=VALUE, not '%s'", v);
            memcpy(key, v, (size_t)(eq - v));
            key[eq - v] = '\0';
            rc = czk_server_config_set(cfg, key, eq + 1, 0, err);
        }
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}

/* Registers "id=key[,r1cs]" and "id=K" entries. */
static int register_circuits(czk_engine *e, const czk_server_config *cfg, czk_err *err) {
    for (size_t i = 0; i < cfg->n_circuits; i++) {
        char spec[4096];
        snprintf(spec, sizeof spec, "%s", cfg->circuits[i]);
        char *eq = strchr(spec, '=');
        if (eq == NULL || eq == spec || eq[1] == '\0')
            return czk_err_set(err, CZK_EINVAL, "circuit '%s' is not ID=KEY[,R1CS]",
                               cfg->circuits[i]);
        *eq = '\0';
        char *key = eq + 1;
        char *r1cs = strchr(key, ',');
        if (r1cs != NULL)
            *r1cs++ = '\0';
        int rc = czk_engine_register_circuit(e, spec, key, r1cs, err);
        if (rc != CZK_OK)
            return rc;
        say("czk daemon: circuit %s: %s%s%s", spec, key, r1cs != NULL ? " + " : "",
            r1cs != NULL ? r1cs : "");
    }
    for (size_t i = 0; i < cfg->n_synthetic; i++) {
        char spec[256];
        snprintf(spec, sizeof spec, "%s", cfg->synthetic[i]);
        char *eq = strchr(spec, '=');
        char *end = NULL;
        unsigned long k = eq != NULL ? strtoul(eq + 1, &end, 10) : 0;
        if (eq == NULL || eq == spec || end == eq + 1 || *end != '\0')
            return czk_err_set(err, CZK_EINVAL, "synthetic circuit '%s' is not ID=K",
                               cfg->synthetic[i]);
        *eq = '\0';
        int rc = czk_engine_register_synthetic(e, spec, (unsigned)k, err);
        if (rc != CZK_OK)
            return rc;
        say("czk daemon: circuit %s: synthetic, 2^%lu constraints, DEV keys", spec, k);
    }
    /* Every Filecoin circuit: PoSt registration counts one sector slot each (milliseconds),
     * PoRep's and SnapDeals' counts come from tables; keys are only looked for when a job
     * first needs one. */
    const char *env = getenv(CZK_FILECOIN_PARAMS_ENV);
    int rc = czk_filecoin_register(e, cfg->param_cache, env, err);
    if (rc != CZK_OK)
        return rc;
    say("czk daemon: circuits winning-post-*, window-post-*, porep-* and snap-* (2KiB .. "
        "64GiB): keys in %s",
        czk_filecoin_params_dir(cfg->param_cache, env));
    return CZK_OK;
}

/* MemTotal minus the margin (the engine's own auto uses a fixed 5 GiB). */
static uint64_t auto_budget(uint64_t margin) {
    FILE *f = fopen("/proc/meminfo", "r");
    unsigned long long kib = 0;
    if (f != NULL) {
        char line[256];
        while (fgets(line, sizeof line, f) != NULL)
            if (sscanf(line, "MemTotal: %llu kB", &kib) == 1)
                break;
        fclose(f);
    }
    uint64_t total = (uint64_t)kib << 10;
    return total > margin ? total - margin : total / 2;
}

/* The failure line operators see: what failed (czk_err_text), without status names. */
static void print_failure(const czk_err *err, int rc) {
    fprintf(stderr, "czk daemon: %s\n", czk_err_text(err, rc));
}

/* systemd's readiness protocol; a no-op outside a Type=notify unit or without libsystemd. */
static void notify(const char *state) {
#ifdef CZK_HAVE_SYSTEMD
    sd_notify(0, state);
#else
    (void)state;
#endif
}

/* Waits for a signal of `set` other than SIGHUP, which is logged and ignored (the DESIGN block
 * says why). Returns the signal. */
static int wait_signal(const sigset_t *set) {
    for (;;) {
        int sig = 0;
        if (sigwait(set, &sig) != 0)
            continue;
        if (sig != SIGHUP)
            return sig;
        log_line(NULL, CZK_LOG_WARN, "czk daemon: SIGHUP: nothing to reload; ignored");
    }
}

/* Checks every address before the engine starts (free, and allowed by the TLS rules): a
 * refusal costs no key load, and gRPC never sees a live daemon's socket path (it would unlink
 * it). */
static int check_addresses(const czk_server_config *cfg, const czk_grpc_server_opts *opts,
                           czk_err *err) {
    for (size_t i = 0; i < cfg->n_listen; i++) {
        czk_grpc_security sec;
        int rc = czk_grpc_listen_security(&sec, cfg->listen[i], opts, err);
        if (rc == CZK_OK)
            rc = czk_grpc_listen_check(cfg->listen[i], err);
        if (rc != CZK_OK)
            return rc;
    }
    /* The HTTP address is host:port too; http.c parses it for itself. */
    if (cfg->status_listen[0] != '\0' && strncmp(cfg->status_listen, "unix:", 5) != 0) {
        int rc = czk_grpc_listen_check(cfg->status_listen, err);
        if (rc != CZK_OK) {
            /* A copy: formatting err->msg into itself garbles it. */
            char why[sizeof err->msg];
            snprintf(why, sizeof why, "%s", err != NULL ? err->msg : "");
            return czk_err_set(err, rc, "daemon.status_listen: %s", why);
        }
    }
    return CZK_OK;
}

static void *second_signal(void *arg) {
    sigset_t *set = arg;
    int sig = wait_signal(set);
    char line[96];
    snprintf(line, sizeof line, "czk daemon: second signal %d during the drain: exiting now", sig);
    log_line(NULL, CZK_LOG_WARN, line);
    _exit(1);
    return NULL;
}

int czk_server_daemon_main(int argc, char **argv) {
    int code = 2;
    czk_err err = {0};
    czk_server_config cfg;
    czk_engine *engine = NULL;
    czk_grpc_server *grpc = NULL;
    czk_http *http = NULL;
    int rc = czk_server_config_init(&cfg);
    if (rc != CZK_OK) {
        print_failure(NULL, rc);
        return 2;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            usage(stdout);
            code = 0;
            goto out;
        }
        if (strcmp(argv[i], "--help-config") == 0) {
            czk_server_config_print_help(stdout);
            code = 0;
            goto out;
        }
    }
    for (int i = 0; i + 1 < argc; i++) {
        if (strcmp(argv[i], "--config") != 0)
            continue;
        /* The loader's notes (keys accepted and ignored) go through log_line like every other
         * line, so that each carries its timestamp and level. */
        char *notes = NULL;
        size_t notes_len = 0;
        FILE *nf = open_memstream(&notes, &notes_len);
        rc = czk_server_config_load(&cfg, argv[i + 1], nf != NULL ? nf : stderr, &err);
        if (nf != NULL && fclose(nf) == 0 && notes != NULL)
            for (char *save = NULL, *l = strtok_r(notes, "\n", &save); l != NULL;
                 l = strtok_r(NULL, "\n", &save))
                log_line(NULL, CZK_LOG_WARN, l);
        free(notes);
        if (rc != CZK_OK)
            goto fail;
    }
    if ((rc = parse_args(&cfg, argc, argv, &err)) != CZK_OK)
        goto fail;
    czk_grpc_server_opts gopts = {
        .tls_cert = cfg.tls_cert,
        .tls_key = cfg.tls_key,
        .tls_client_ca = cfg.tls_client_ca,
        .insecure = cfg.insecure,
        .max_msg_bytes = cfg.max_message_bytes,
        .max_jobs_per_client = (uint32_t)cfg.max_jobs_per_client,
    };
    if ((rc = check_addresses(&cfg, &gopts, &err)) != CZK_OK)
        goto fail;

    /* Before any thread: every thread inherits the mask, so the signals wait for sigwait. */
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    signal(SIGPIPE, SIG_IGN);

    czk_engine_config ec;
    czk_engine_config_default(&ec);
    ec.synth_threads = (unsigned)cfg.synth_threads;
    ec.prove_threads = (unsigned)cfg.prove_threads;
    ec.workers_per_device = (unsigned)cfg.workers_per_device;
    ec.finalizer_threads = (unsigned)cfg.finalizer_threads;
    ec.host_budget_bytes =
        cfg.total_budget != 0 ? cfg.total_budget : auto_budget(cfg.safety_margin);
    ec.pinned_budget_bytes = cfg.pinned_budget;
    ec.vram_budget_bytes = cfg.vram_budget;
    ec.priority_lane_bytes = cfg.priority_lane;
    ec.lock_budget_bytes = cfg.lock_budget;
    ec.result_ttl_ms = cfg.result_ttl_ms;
    ec.max_queued_jobs = (unsigned)cfg.max_queued_jobs;
    ec.backend = cfg.backend;
    ec.gpu_ordinals = cfg.n_gpu_devices > 0 ? cfg.gpu_devices : NULL;
    ec.n_gpu_ordinals = cfg.n_gpu_devices;
    ec.log = log_line;
    ec.log_arg = NULL;
    ec.log_level = CZK_LOG_INFO;
    for (int l = 0; l < 4; l++)
        if (strcmp(cfg.log_level, level_names[l]) == 0)
            ec.log_level = l;
    if ((rc = czk_engine_create(&engine, &ec, &err)) != CZK_OK)
        goto fail;
    if ((rc = register_circuits(engine, &cfg, &err)) != CZK_OK)
        goto fail;
    int port = 0;
    if ((rc = czk_grpc_server_start(&grpc, &port, engine, (const char *const *)cfg.listen,
                                    cfg.n_listen, &gopts, &err)) != CZK_OK)
        goto fail;
    for (size_t i = 0; i < cfg.n_listen; i++) {
        czk_grpc_security sec = CZK_GRPC_SEC_REFUSED;
        (void)czk_grpc_listen_security(&sec, cfg.listen[i], &gopts, NULL);
        char line[512];
        snprintf(line, sizeof line, "czk daemon: gRPC cuzk.v1.ProvingEngine on %s: %s",
                 cfg.listen[i], czk_grpc_security_name(sec));
        log_line(NULL, sec == CZK_GRPC_SEC_INSECURE_PUBLIC ? CZK_LOG_WARN : CZK_LOG_INFO, line);
    }
    if (cfg.max_jobs_per_client != 0)
        say("czk daemon: at most %llu unfinished jobs per client, requests up to %llu MiB",
            (unsigned long long)cfg.max_jobs_per_client,
            (unsigned long long)(cfg.max_message_bytes >> 20));
    if (port != 0)
        say("czk daemon: gRPC port %d", port);
    if (cfg.status_listen[0] != '\0') {
        int hport = 0;
        if ((rc = czk_http_start(&http, &hport, cfg.status_listen, engine, grpc, &err)) != CZK_OK)
            goto fail;
        say("czk daemon: HTTP /status and /metrics on %s (port %d)", cfg.status_listen, hport);
        /* Read-only, but it names circuits, jobs and budgets: beyond loopback, say so. */
        czk_grpc_security hsec = CZK_GRPC_SEC_REFUSED;
        (void)czk_grpc_listen_security(&hsec, cfg.status_listen, NULL, NULL);
        if (hsec != CZK_GRPC_SEC_LOOPBACK)
            log_line(NULL, CZK_LOG_WARN,
                     "czk daemon: HTTP /status and /metrics are plaintext and open to anyone "
                     "who reaches a non-loopback address");
    }
    say("czk daemon: ready (budget %llu MiB, backend %s)",
        (unsigned long long)(ec.host_budget_bytes >> 20), cfg.backend);
    notify("READY=1");

    int sig = wait_signal(&set);
    notify("STOPPING=1");
    say("czk daemon: signal %d: intake stopped, draining (grace %llu ms)", sig,
        (unsigned long long)cfg.shutdown_grace_ms);
    pthread_t t;
    if (pthread_create(&t, NULL, second_signal, &set) == 0)
        pthread_detach(t);
    czk_grpc_server_stop_intake(grpc);
    czk_engine_shutdown(engine, cfg.shutdown_grace_ms);
    /* Every waiter now has its answer; give the calls time to send it. */
    czk_grpc_server_shutdown(grpc, 5000);
    grpc = NULL;
    say("czk daemon: stopped");
    code = 0;
    goto out;
fail:
    print_failure(&err, rc);
    code = 2;
out:
    czk_http_stop(http);
    czk_grpc_server_shutdown(grpc, 0);
    if (engine != NULL)
        czk_engine_shutdown(engine, 0);
    czk_engine_destroy(engine);
    czk_server_config_clear(&cfg);
    return code;
}
