#include "cli/cli.h"

#include "util/memclear.h"
#include "util/parse.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int czk_cli_common_option(czk_cli_common *c, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (strcmp(a, "--threads") != 0 && strcmp(a, "--backend") != 0 && strcmp(a, "--seed") != 0 &&
        strcmp(a, "--devices") != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "czk %s: %s needs a value\n", cmd, a);
        return -1;
    }
    const char *v = argv[++*i];
    char *end = NULL;
    errno = 0;
    if (strcmp(a, "--threads") == 0) {
        unsigned long n = strtoul(v, &end, 10);
        if (errno != 0 || end == v || *end != '\0' || n > 1024) {
            fprintf(stderr, "czk %s: --threads takes 0..1024 (0: all CPUs), not '%s'\n", cmd, v);
            return -1;
        }
        c->threads = (unsigned)n;
    } else if (strcmp(a, "--devices") == 0) {
        /* "0,1": CUDA ordinals, each once (the engine checks they are present). */
        if (czk_parse_uint_list(v, 63, c->devices, sizeof c->devices / sizeof c->devices[0],
                                &c->n_devices) != 0) {
            fprintf(stderr, "czk %s: --devices takes CUDA device numbers 0..63, as 0,1; not '%s'\n",
                    cmd, v);
            return -1;
        }
    } else if (strcmp(a, "--backend") == 0) {
        if (strcmp(v, "auto") != 0 && strcmp(v, "cpu") != 0 && strcmp(v, "cuda") != 0) {
            fprintf(stderr, "czk %s: --backend takes auto, cpu or cuda, not '%s'\n", cmd, v);
            return -1;
        }
        c->backend = v;
    } else {
        unsigned long long s = strtoull(v, &end, 0);
        if (errno != 0 || end == v || *end != '\0') {
            fprintf(stderr, "czk %s: --seed takes an integer, not '%s'\n", cmd, v);
            return -1;
        }
        c->seed = s;
        c->have_seed = 1;
    }
    return 1;
}

int czk_cli_parse_long(const char *cmd, const char *opt, const char *v, long lo, long hi,
                       long *out) {
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno != 0 || end == v || *end != '\0' || n < lo || n > hi) {
        fprintf(stderr, "czk %s: %s takes %ld..%ld, not '%s'\n", cmd, opt, lo, hi, v);
        return -1;
    }
    *out = n;
    return 0;
}

int czk_cli_rng(czk_rng *rng, const czk_cli_common *c, const char *cmd) {
    uint64_t seed = c->seed;
    if (!c->have_seed && czk_rng_os(&seed, sizeof(seed)) != CZK_OK) {
        fprintf(stderr, "czk %s: the operating system gave no random seed; pass --seed\n", cmd);
        return -1;
    }
    /* xoshiro from a 64-bit seed: adequate for development keys and test data, which is all
     * the commands make with it. */
    czk_rng_seed(rng, seed);
    czk_memclear_explicit(&seed, sizeof(seed));
    return 0;
}

czk_pool *czk_cli_pool(const czk_cli_common *c, const char *cmd) {
    czk_pool *pool = NULL;
    int rc = czk_pool_create(&pool, c->threads);
    if (rc != CZK_OK) {
        fprintf(stderr, "czk %s: cannot start %u threads: %s\n", cmd, c->threads, czk_strerror(rc));
        return NULL;
    }
    return pool;
}

int czk_cli_fail(const char *cmd, int rc, const czk_err *err) {
    fprintf(stderr, "czk %s: %s\n", cmd, czk_err_text(err, rc));
    /* The status name and where the error was raised help whoever reads the code, not whoever
     * runs the command: only with CZK_LOG=debug. */
    const char *log = getenv("CZK_LOG");
    if (log != NULL && strcmp(log, "debug") == 0) {
        if (err != NULL && err->code == rc && err->file != NULL)
            fprintf(stderr, "czk %s: debug: %s raised at %s:%d\n", cmd, czk_status_name(rc),
                    err->file, err->line);
        else
            fprintf(stderr, "czk %s: debug: %s\n", cmd, czk_status_name(rc));
    }
    return CZK_EXIT_ERROR;
}

int czk_cli_wants_help(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}

int czk_cli_start(czk_cli_common *c, const char *cmd, const char *usage, int *argc, char **argv) {
    if (czk_cli_wants_help(*argc, argv)) {
        fputs(usage, stdout);
        return CZK_EXIT_OK;
    }
    int kept = 0;
    for (int i = 0; i < *argc; i++) {
        int k = czk_cli_common_option(c, cmd, *argc, argv, &i);
        if (k < 0)
            return CZK_EXIT_ERROR;
        if (k == 0)
            argv[kept++] = argv[i];
    }
    *argc = kept;
    return -1;
}

void czk_cli_engine_config(czk_engine_config *cfg, const czk_cli_common *c) {
    czk_engine_config_default(cfg);
    cfg->backend = c->backend;
    cfg->gpu_ordinals = c->n_devices > 0 ? c->devices : NULL;
    cfg->n_gpu_ordinals = c->n_devices;
    cfg->prove_threads = c->threads;
    cfg->synth_threads = 1;
    cfg->workers_per_device = 1;
    /* --seed makes the proofs reproducible, blinding included (the usage says such a proof is
     * not zero-knowledge against whoever knows the seed). */
    cfg->blinding_seeded = c->have_seed;
    cfg->blinding_seed = c->seed;
}

int czk_cli_make_dir(const char *cmd, const char *dir) {
    char path[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof(path)) {
        fprintf(stderr, "czk %s: bad output directory '%s'\n", cmd, dir);
        return -1;
    }
    memcpy(path, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        char saved = path[i];
        path[i] = '\0';
        struct stat sb;
        if (mkdir(path, 0777) != 0 && errno != EEXIST) {
            fprintf(stderr, "czk %s: cannot create %s: %s\n", cmd, path, strerror(errno));
            return -1;
        }
        if (saved == '\0' && (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode))) {
            fprintf(stderr, "czk %s: %s is not a directory\n", cmd, path);
            return -1;
        }
        path[i] = saved;
    }
    return 0;
}

uint64_t czk_cli_host_memory(void) {
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : 0;
}
