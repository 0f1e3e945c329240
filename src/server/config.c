/*
 * DESIGN
 *
 * The daemon's configuration is one table of keys (valkey's config.c): each row names its
 * TOML key, its type, where it lands in czk_server_config, its default (as text, parsed by the
 * same code as the file's values, so the default is always a valid value) and its bounds. The
 * TOML file is read through toml++ (server/grpc/toml.h) and every value found goes through
 * czk_server_config_set, as command-line overrides do.
 *
 * Key names are cuzk's where the meaning is the same (doc/API.md §4). Keys
 * cuzk has and czk does not use yet are in the table as CZK_CFG_UNUSED: accepted (so a cuzk
 * config file loads) and noted on the log.
 *
 * Upstream code cited here was read at curio@e0294b0f (2026-08-20).
 */
#include "server/config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "server/grpc/toml.h"
#include "util/alloc.h"
#include "util/parse.h"

typedef enum cfg_type {
    CFG_STRING, /* char * */
    CFG_LIST,   /* char ** plus size_t count right after it */
    CFG_UINTS,  /* unsigned * plus size_t count right after it, each in [min, max] */
    CFG_UINT,   /* uint64_t in [min, max] */
    CFG_BYTES,  /* uint64_t, czk_server_parse_bytes; "auto" = 0 */
    CFG_ENUM,   /* char *, one of choices */
    CFG_BOOL,   /* int, "true" or "false" (a TOML boolean in the file) */
    CFG_UNUSED, /* accepted and ignored */
} cfg_type;

typedef struct cfg_key {
    const char *name;
    cfg_type type;
    size_t offset;
    const char *def; /* NULL: empty (lists, strings) */
    uint64_t min, max;
    const char *const *choices; /* CFG_ENUM: NULL-terminated */
    const char *help;
} cfg_key;

#define OFF(field) offsetof(czk_server_config, field)
/* A list is its array followed by its count. */
_Static_assert(offsetof(czk_server_config, n_listen) ==
                   offsetof(czk_server_config, listen) + sizeof(char **),
               "list layout");
_Static_assert(offsetof(czk_server_config, n_circuits) ==
                   offsetof(czk_server_config, circuits) + sizeof(char **),
               "list layout");
_Static_assert(offsetof(czk_server_config, n_synthetic) ==
                   offsetof(czk_server_config, synthetic) + sizeof(char **),
               "list layout");
_Static_assert(offsetof(czk_server_config, n_gpu_devices) ==
                   offsetof(czk_server_config, gpu_devices) + sizeof(unsigned *),
               "list layout");

static const char *const backends[] = {"auto", "cpu", "cuda", NULL};
static const char *const levels[] = {"error", "warn", "info", "debug", NULL};

static const cfg_key keys[] = {
    {"daemon.listen", CFG_LIST, OFF(listen), "127.0.0.1:9820", 0, 0, NULL,
     "gRPC addresses: host:port or unix:///path (a list: several at once); a unix socket is "
     "made with mode 0660, a live one is never taken over; an address beyond loopback needs "
     "TLS (daemon.tls_cert) or daemon.insecure"},
    {"daemon.tls_cert", CFG_STRING, OFF(tls_cert), "", 0, 0, NULL,
     "PEM certificate chain: serve every TCP address with TLS (with daemon.tls_key)"},
    {"daemon.tls_key", CFG_STRING, OFF(tls_key), "", 0, 0, NULL,
     "PEM private key of daemon.tls_cert"},
    {"daemon.tls_client_ca", CFG_STRING, OFF(tls_client_ca), "", 0, 0, NULL,
     "PEM CA certificates: mutual TLS, every client must show a certificate they signed"},
    {"daemon.insecure", CFG_BOOL, OFF(insecure), "false", 0, 0, NULL,
     "true: serve plaintext gRPC on addresses beyond loopback (anyone who reaches the port may "
     "submit proofs); without it such an address needs TLS"},
    {"daemon.max_jobs_per_client", CFG_UINT, OFF(max_jobs_per_client), "64", 0, 1000000, NULL,
     "unfinished jobs one client (peer address without port; all of a unix socket) may hold; "
     "more get RESOURCE_EXHAUSTED; 0 = no limit"},
    {"daemon.status_listen", CFG_STRING, OFF(status_listen), "127.0.0.1:9821", 0, 0, NULL,
     "HTTP GET /status (JSON) and /metrics (Prometheus) on host:port; \"\" turns it off"},
    {"daemon.max_message_size", CFG_BYTES, OFF(max_message_bytes), "128MiB", 1 << 20,
     (uint64_t)2047 << 20, NULL,
     "largest gRPC request or response; a larger request is refused (RESOURCE_EXHAUSTED)"},
    {"daemon.shutdown_grace_ms", CFG_UINT, OFF(shutdown_grace_ms), "60000", 0, 86400000, NULL,
     "on SIGTERM/SIGINT: how long queued and running jobs may finish before they are cancelled "
     "(SIGHUP is logged and ignored)"},
    {"daemon.result_ttl_ms", CFG_UINT, OFF(result_ttl_ms), "600000", 1000, 604800000, NULL,
     "how long a finished job's result stays available to AwaitProof"},
    {"memory.total_budget", CFG_BYTES, OFF(total_budget), "auto", 0, UINT64_MAX, NULL,
     "host RAM the engine may use; auto = MemTotal - memory.safety_margin"},
    {"memory.safety_margin", CFG_BYTES, OFF(safety_margin), "5GiB", 0, UINT64_MAX, NULL,
     "what auto leaves to the rest of the machine"},
    {"memory.pinned_budget", CFG_BYTES, OFF(pinned_budget), "auto", 0, UINT64_MAX, NULL,
     "pinned host staging memory for GPU uploads"},
    {"memory.lock_budget", CFG_BYTES, OFF(lock_budget), "auto", 0, UINT64_MAX, NULL,
     "host bytes of keys too large for a GPU that each GPU's backend may page-lock in place "
     "to stream them at bus speed (no extra memory); auto = half the host's memory, 1 = none"},
    {"memory.eviction_min_idle", CFG_UNUSED, 0, NULL, 0, 0, NULL, "(cuzk; not used by czk yet)"},
    {"gpus.devices", CFG_UINTS, OFF(gpu_devices), NULL, 0, 63, NULL,
     "CUDA devices to prove on, by ordinal: [0, 1] (or \"0,1\"); empty = every device found; "
     "a device listed but not present stops the daemon at start"},
    {"gpus.vram_budget", CFG_BYTES, OFF(vram_budget), "auto", 0, UINT64_MAX, NULL,
     "device memory each GPU may use (keys, circuits, working sets); auto = what is free at "
     "start; 16GiB makes an H200 plan as a 16 GB card would"},
    {"gpus.priority_lane", CFG_BYTES, OFF(priority_lane), "auto", 0, UINT64_MAX, NULL,
     "device memory of each GPU set aside for a second, high-priority stream that proves "
     "CRITICAL jobs (WinningPoSt) beside running C2 kernels; auto = 2GiB on a GPU of 40 GB or "
     "more, 1 = none"},
    {"gpus.workers_per_device", CFG_UINT, OFF(workers_per_device), "2", 1, 64, NULL,
     "prove workers per device: two hide one's CPU work behind the other's kernels"},
    {"gpus.gpu_workers_per_device", CFG_UINT, OFF(workers_per_device), NULL, 1, 64, NULL,
     "cuzk's name of gpus.workers_per_device"},
    {"gpus.gpu_threads", CFG_UINT, OFF(prove_threads), "0", 0, 1024, NULL,
     "CPU threads of the prover's parallel loops; 0 = automatic"},
    {"gpus.backend", CFG_ENUM, OFF(backend), "auto", 0, 0, backends,
     "where partitions are proved: auto (a GPU when present), cpu or cuda"},
    {"synthesis.threads", CFG_UINT, OFF(synth_threads), "0", 0, 1024, NULL,
     "partitions synthesized at once at most; 0 = automatic (from the memory budget)"},
    {"pipeline.max_parallel_synthesis", CFG_UINT, OFF(synth_threads), NULL, 0, 1024, NULL,
     "cuzk's name of synthesis.threads"},
    {"synthesis.finalizer_threads", CFG_UINT, OFF(finalizer_threads), "0", 0, 256, NULL,
     "threads that verify proofs before they leave; 0 = 1"},
    {"pipeline.max_queued_jobs", CFG_UINT, OFF(max_queued_jobs), "1024", 1, 1000000, NULL,
     "unfinished jobs accepted at most; more get RESOURCE_EXHAUSTED"},
    {"pipeline.max_gpu_queue_depth", CFG_UNUSED, 0, NULL, 0, 0, NULL,
     "(cuzk; czk queues by priority, see pipeline.max_queued_jobs)"},
    {"scheduler.max_batch_size", CFG_UNUSED, 0, NULL, 0, 0, NULL, "(cuzk; not used by czk yet)"},
    {"scheduler.max_batch_wait_ms", CFG_UNUSED, 0, NULL, 0, 0, NULL, "(cuzk; not used by czk yet)"},
    {"srs.param_cache", CFG_STRING, OFF(param_cache), "", 0, 0, NULL,
     "directory of Filecoin's v28 .params/.vk files (WinningPoSt, WindowPoSt); \"\" = "
     "$FIL_PROOFS_PARAMETER_CACHE, else /var/tmp/filecoin-proof-parameters; read at first "
     "use of a circuit"},
    {"filecoin.param_cache", CFG_STRING, OFF(param_cache), NULL, 0, 0, NULL,
     "czk's name of srs.param_cache"},
    {"logging.level", CFG_ENUM, OFF(log_level), "info", 0, 0, levels,
     "engine log lines up to this level go to stderr (info: one line per partition)"},
    {"circuits.register", CFG_LIST, OFF(circuits), NULL, 0, 0, NULL,
     "circuits to serve: \"id=key.zkey\" or \"id=key.params,circuit.r1cs\" (a list)"},
    {"circuits.synthetic", CFG_LIST, OFF(synthetic), NULL, 0, 0, NULL,
     "synthetic PoRep-shaped circuits with DEV keys: \"id=K\" for 2^K constraints (a list)"},
};

#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

static const cfg_key *find_key(const char *name) {
    for (size_t i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

int czk_server_parse_bytes(uint64_t *out, const char *text) {
    *out = 0;
    if (strcmp(text, "auto") == 0)
        return CZK_OK;
    char *end = NULL;
    errno = 0;
    if (text[0] < '0' || text[0] > '9')
        return CZK_EINVAL;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno != 0 || end == text)
        return CZK_EINVAL;
    while (*end == ' ')
        end++;
    unsigned shift = 0;
    switch (*end) {
    case '\0':
        break;
    case 'k':
    case 'K':
        shift = 10;
        break;
    case 'm':
    case 'M':
        shift = 20;
        break;
    case 'g':
    case 'G':
        shift = 30;
        break;
    case 't':
    case 'T':
        shift = 40;
        break;
    default:
        return CZK_EINVAL;
    }
    if (shift != 0) {
        end++;
        if (strcmp(end, "") != 0 && strcmp(end, "B") != 0 && strcmp(end, "iB") != 0 &&
            strcmp(end, "b") != 0)
            return CZK_EINVAL;
        if (v > (UINT64_MAX >> shift))
            return CZK_EINVAL;
    }
    *out = (uint64_t)v << shift;
    return CZK_OK;
}

/* The strings are czk_strdup'ed (czk_free); the list arrays grow by realloc (free). */
static void list_clear(char ***list, size_t *n) {
    for (size_t i = 0; i < *n; i++)
        czk_free((*list)[i]);
    free(*list);
    *list = NULL;
    *n = 0;
}

static int set_value(czk_server_config *cfg, const cfg_key *k, const char *value, int replace_list,
                     czk_err *err) {
    char *base = (char *)cfg;
    switch (k->type) {
    case CFG_UNUSED:
        return CZK_OK;
    case CFG_BOOL:
        if (value == NULL || (strcmp(value, "true") != 0 && strcmp(value, "false") != 0))
            return czk_err_set(err, CZK_EINVAL, "%s: '%s' is not true or false", k->name,
                               value != NULL ? value : "");
        *(int *)(base + k->offset) = strcmp(value, "true") == 0;
        return CZK_OK;
    case CFG_STRING:
    case CFG_ENUM: {
        if (value == NULL)
            return czk_err_set(err, CZK_EINVAL, "%s: an empty list is not a value", k->name);
        if (k->type == CFG_ENUM) {
            size_t i = 0;
            while (k->choices[i] != NULL && strcmp(k->choices[i], value) != 0)
                i++;
            if (k->choices[i] == NULL) {
                char all[128] = "";
                for (size_t j = 0; k->choices[j] != NULL; j++) {
                    strncat(all, j > 0 ? ", " : "", sizeof all - strlen(all) - 1);
                    strncat(all, k->choices[j], sizeof all - strlen(all) - 1);
                }
                return czk_err_set(err, CZK_EINVAL, "%s: '%s' is not one of %s", k->name, value,
                                   all);
            }
        }
        char *copy = czk_strdup(value);
        if (copy == NULL)
            return czk_err_set(err, CZK_ENOMEM, "no memory");
        char **slot = (char **)(base + k->offset);
        czk_free(*slot);
        *slot = copy;
        return CZK_OK;
    }
    case CFG_LIST: {
        char ***list = (char ***)(base + k->offset);
        size_t *n = (size_t *)(base + k->offset + sizeof(char **));
        if (replace_list)
            list_clear(list, n);
        if (value == NULL) /* an empty TOML array */
            return CZK_OK;
        if (value[0] == '\0')
            return czk_err_set(err, CZK_EINVAL, "%s: an empty entry", k->name);
        char **grown = realloc(*list, (*n + 1) * sizeof(char *));
        if (grown == NULL)
            return czk_err_set(err, CZK_ENOMEM, "no memory");
        *list = grown;
        if ((grown[*n] = czk_strdup(value)) == NULL)
            return czk_err_set(err, CZK_ENOMEM, "no memory");
        (*n)++;
        return CZK_OK;
    }
    case CFG_UINTS: {
        unsigned **list = (unsigned **)(base + k->offset);
        size_t *n = (size_t *)(base + k->offset + sizeof(unsigned *));
        if (replace_list) {
            free(*list);
            *list = NULL;
            *n = 0;
        }
        /* NULL: an empty TOML array; else one number or several separated by commas. */
        if (value == NULL)
            return CZK_OK;
        unsigned got[64];
        size_t m = 0;
        int ok = czk_parse_uint_list(value, (unsigned)k->max, got, 64, &m) == 0;
        for (size_t i = 0; ok && i < m; i++)
            ok = got[i] >= k->min;
        if (!ok)
            return czk_err_set(err, CZK_EINVAL, "%s: '%s' is not a list of numbers in %llu..%llu",
                               k->name, value, (unsigned long long)k->min,
                               (unsigned long long)k->max);
        unsigned *grown = realloc(*list, (*n + m) * sizeof(unsigned));
        if (grown == NULL)
            return czk_err_set(err, CZK_ENOMEM, "no memory");
        *list = grown;
        for (size_t i = 0; i < m; i++)
            grown[(*n)++] = got[i];
        return CZK_OK;
    }
    case CFG_UINT:
    case CFG_BYTES: {
        if (value == NULL)
            return czk_err_set(err, CZK_EINVAL, "%s: an empty list is not a value", k->name);
        uint64_t v = 0;
        if (k->type == CFG_BYTES) {
            if (czk_server_parse_bytes(&v, value) != CZK_OK)
                return czk_err_set(err, CZK_EINVAL,
                                   "%s: '%s' is not a size (bytes, 512MiB, 64GiB or auto)", k->name,
                                   value);
            if (v == 0 && strcmp(value, "auto") == 0 && k->min > 0)
                return czk_err_set(err, CZK_EINVAL, "%s: auto is not allowed", k->name);
        } else {
            char *end = NULL;
            errno = 0;
            unsigned long long u = strtoull(value, &end, 10);
            if (value[0] < '0' || value[0] > '9' || errno != 0 || *end != '\0')
                return czk_err_set(err, CZK_EINVAL, "%s: '%s' is not a whole number", k->name,
                                   value);
            v = u;
        }
        if (v < k->min || v > k->max)
            return czk_err_set(err, CZK_EINVAL, "%s: %s is outside %llu..%llu", k->name, value,
                               (unsigned long long)k->min, (unsigned long long)k->max);
        *(uint64_t *)(base + k->offset) = v;
        return CZK_OK;
    }
    }
    return czk_err_set(err, CZK_EINTERNAL, "%s: bad table row", k->name);
}

int czk_server_config_init(czk_server_config *cfg) {
    memset(cfg, 0, sizeof *cfg);
    for (size_t i = 0; i < N_KEYS; i++) {
        const char *def = keys[i].def;
        if (keys[i].type == CFG_STRING && def == NULL)
            def = "";
        if (def == NULL)
            continue;
        int rc = set_value(cfg, &keys[i], def, 1, NULL);
        if (rc != CZK_OK) {
            czk_server_config_clear(cfg);
            return rc;
        }
    }
    return CZK_OK;
}

void czk_server_config_clear(czk_server_config *cfg) {
    if (cfg == NULL)
        return;
    list_clear(&cfg->listen, &cfg->n_listen);
    list_clear(&cfg->circuits, &cfg->n_circuits);
    list_clear(&cfg->synthetic, &cfg->n_synthetic);
    free(cfg->gpu_devices);
    czk_free(cfg->status_listen);
    czk_free(cfg->tls_cert);
    czk_free(cfg->tls_key);
    czk_free(cfg->tls_client_ca);
    czk_free(cfg->backend);
    czk_free(cfg->log_level);
    czk_free(cfg->param_cache);
    memset(cfg, 0, sizeof *cfg);
}

int czk_server_config_set(czk_server_config *cfg, const char *key, const char *value,
                          int replace_list, czk_err *err) {
    const cfg_key *k = find_key(key);
    if (k == NULL)
        return czk_err_set(err, CZK_EINVAL, "unknown config key '%s'", key);
    return set_value(cfg, k, value, replace_list, err);
}

/* The TOML reader's callback state: which list keys the file has already started (a list in
 * the file replaces the default; its later elements append). */
typedef struct load_state {
    czk_server_config *cfg;
    FILE *log;
    const cfg_key *started[N_KEYS];
    size_t n_started;
} load_state;

static int on_value(void *arg, const char *key, czk_toml_type type, const char *text, int in_array,
                    czk_err *err) {
    load_state *s = arg;
    const cfg_key *k = find_key(key);
    if (k == NULL)
        return czk_err_set(err, CZK_EINVAL, "unknown config key '%s'", key);
    if (k->type == CFG_UNUSED) {
        if (s->log != NULL)
            fprintf(s->log, "czk daemon: config key %s is accepted and ignored %s\n", key, k->help);
        return CZK_OK;
    }
    int numeric = k->type == CFG_UINT || k->type == CFG_BYTES || k->type == CFG_UINTS;
    if (k->type == CFG_BOOL ? type != CZK_TOML_BOOL
                            : type != CZK_TOML_STRING && !(numeric && type == CZK_TOML_INTEGER))
        return czk_err_set(err, CZK_EINVAL, "%s: wrong type (%s expected)", key,
                           k->type == CFG_BOOL ? "true or false"
                           : numeric           ? "a number"
                                               : "a string");
    if (in_array && k->type != CFG_LIST && k->type != CFG_UINTS)
        return czk_err_set(err, CZK_EINVAL, "%s: takes one value, not a list", key);
    int replace = 1;
    for (size_t i = 0; i < s->n_started; i++)
        if (s->started[i] == k)
            replace = 0;
    if (replace && s->n_started < N_KEYS)
        s->started[s->n_started++] = k;
    return set_value(s->cfg, k, text, replace, err);
}

int czk_server_config_load(czk_server_config *cfg, const char *path, FILE *log, czk_err *err) {
    /* A directory or a device would reach the TOML reader as an empty or endless file; say
     * what it is instead. */
    struct stat st;
    if (stat(path, &st) != 0)
        return czk_err_set(err, CZK_EIO, "%s: cannot read the config file: %s", path,
                           strerror(errno));
    if (!S_ISREG(st.st_mode))
        return czk_err_set(err, CZK_EINVAL, "%s: the config file is %s, not a regular file", path,
                           S_ISDIR(st.st_mode) ? "a directory" : "a special file");
    load_state s;
    memset(&s, 0, sizeof s);
    s.cfg = cfg;
    s.log = log;
    return czk_toml_read(path, on_value, &s, err);
}

void czk_server_config_print_help(FILE *f) {
    fprintf(f, "config keys (TOML sections and keys; --set KEY=VALUE overrides one):\n");
    for (size_t i = 0; i < N_KEYS; i++) {
        const cfg_key *k = &keys[i];
        fprintf(f, "  %-32s default %s\n      %s\n", k->name,
                k->def == NULL ? (k->type == CFG_UNUSED ? "-" : "(none)")
                               : (k->def[0] == '\0' ? "\"\"" : k->def),
                k->help);
    }
}
