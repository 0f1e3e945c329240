/*
 * czk_tests: runs the unit tests of tests/test_list.h, each in its own subprocess with its
 * own timeout, so that a crash or a hang fails one test and not the run.
 *
 *   czk_tests [--only NAME]... [--skip PREFIX]... [-j N] [--list]
 *
 * --skip leaves out the tests whose names start with PREFIX: the ThreadSanitizer run uses it
 * for single-threaded arithmetic, gadget and parsing tests, which have no threads to check and
 * which the plain and AddressSanitizer runs cover (CMakeLists.txt, tsan_unit).
 *
 * The seed is printed first; CZK_TEST_SEED=<n> reproduces a run and CZK_TEST_ITERS=<n>
 * overrides every test's iteration count.
 */
#include "czk.h"
#include "tests/test.h"
#include "util/timer.h"

#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CZK_TEST_ENTRY(name, timeout) CZK_TEST(name);
#include "tests/test_list.h"
#undef CZK_TEST_ENTRY

typedef struct {
    const char *name;
    void (*fn)(czk_test_ctx *);
    unsigned timeout;
} test_entry;

static const test_entry tests[] = {
#define CZK_TEST_ENTRY(name, timeout) {#name, czk_test_##name, timeout},
#include "tests/test_list.h"
#undef CZK_TEST_ENTRY
};
#define NTESTS (sizeof(tests) / sizeof(tests[0]))

long czk_test_iters(const czk_test_ctx *t, long dflt) {
    return t->iters_override > 0 ? t->iters_override : dflt;
}

int czk_test_skip_heavy(const char *name) {
    const char *env = getenv("CZK_TEST_SKIP_HEAVY");
    if (env == NULL || strcmp(env, "1") != 0)
        return 0;
    fprintf(stderr, "  %s: heavy, left out (CZK_TEST_SKIP_HEAVY=1)\n", name);
    return 1;
}

void czk_test_fail(czk_test_ctx *t, const char *file, int line, const char *fmt, ...) {
    va_list ap;
    fprintf(stderr, "  FAIL %s:%d: ", file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (seed %llu)\n", (unsigned long long)t->seed);
    t->failures++;
}

void czk_test_dump(const char *label, const void *p, size_t n) {
    const unsigned char *b = p;
    fprintf(stderr, "  %s = ", label);
    for (size_t i = 0; i < n; i++)
        fprintf(stderr, "%02x", b[i]);
    fprintf(stderr, "\n");
}

int czk_test_tmpdir(char out[256]) {
    const char *bases[3] = {"/dev/shm", getenv("TMPDIR"), "/tmp"};
    for (int i = 0; i < 3; i++) {
        if (bases[i] == NULL || bases[i][0] == '\0' || access(bases[i], W_OK | X_OK) != 0)
            continue;
        char path[256];
        snprintf(path, sizeof(path), "%s/czk_test_XXXXXX", bases[i]);
        if (mkdtemp(path) != NULL) {
            memcpy(out, path, sizeof(path));
            return 1;
        }
    }
    return 0;
}

/* CMake gives the runner the source tree's path, so that fixtures are found wherever the
 * build tree is. */
void czk_test_data_path(char *out, size_t n, const char *dir, const char *name) {
    snprintf(out, n, "%s/tests/data/%s/%s", CZK_SOURCE_DIR, dir, name);
}

int czk_test_hex(uint8_t *out, size_t n, const char *hex) {
    if (hex[0] == '0' && hex[1] == 'x')
        hex += 2;
    if (strlen(hex) != 2 * n)
        return 0;
    for (size_t i = 0; i < 2 * n; i++) {
        char ch = hex[i];
        int v = ch >= '0' && ch <= '9'   ? ch - '0'
                : ch >= 'a' && ch <= 'f' ? ch - 'a' + 10
                : ch >= 'A' && ch <= 'F' ? ch - 'A' + 10
                                         : -1;
        if (v < 0)
            return 0;
        if (i % 2 == 0)
            out[i / 2] = (uint8_t)(v << 4);
        else
            out[i / 2] |= (uint8_t)v;
    }
    return 1;
}

void czk_test_engine_config(struct czk_engine_config *cfg, uint64_t host_budget) {
    czk_engine_config_default(cfg);
    cfg->synth_threads = 1;
    cfg->prove_threads = 2;
    cfg->workers_per_device = 1;
    cfg->finalizer_threads = 1;
    cfg->host_budget_bytes = host_budget;
    cfg->backend = "cpu";
}

uint8_t *czk_test_read_data(const char *dir, const char *name, size_t *n) {
    char p[1024];
    czk_test_data_path(p, sizeof(p), dir, name);
    return czk_test_read_file(p, n);
}

uint8_t *czk_test_read_file(const char *path, size_t *n) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    /* One byte more, a NUL, so that text files can be read as strings. */
    uint8_t *b = len >= 0 ? malloc((size_t)len + 1) : NULL;
    if (b != NULL && fread(b, 1, (size_t)len, f) != (size_t)len) {
        free(b);
        b = NULL;
    }
    if (b != NULL)
        b[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return b;
}

int czk_test_write_file(const char *path, const void *p, size_t n) {
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return -1;
    size_t w = n > 0 ? fwrite(p, 1, n, f) : 0;
    return fclose(f) == 0 && w == n ? 0 : -1;
}

void czk_test_rmdir(const char *dir) {
    DIR *d = opendir(dir);
    if (d == NULL)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(dir);
}

/* CZK_TEST_TIMEOUT_SCALE multiplies every timeout (sanitizer builds run several times slower). */
static unsigned timeout_scale = 1;

static int run_child(const test_entry *te, uint64_t seed, long iters) {
    czk_test_ctx t;
    memset(&t, 0, sizeof(t));
    t.seed = seed;
    t.iters_override = iters;
    /* Each test gets its own stream so that running one test alone reproduces it. */
    uint64_t h = seed;
    for (const char *c = te->name; *c; c++)
        h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
    czk_rng_seed(&t.rng, h);
    alarm(te->timeout * timeout_scale);
    te->fn(&t);
    fflush(stdout);
    fflush(stderr);
    return t.failures == 0 ? 0 : 1;
}

typedef struct {
    pid_t pid;
    size_t idx;
    uint64_t start;
} running;

int main(int argc, char **argv) {
    const char *only[64], *skip[64];
    size_t nonly = 0, nskip = 0;
    int jobs = 1, list = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--only") == 0 && i + 1 < argc && nonly < 64) {
            only[nonly++] = argv[++i];
        } else if (strcmp(argv[i], "--skip") == 0 && i + 1 < argc && nskip < 64) {
            skip[nskip++] = argv[++i];
        } else if (strcmp(argv[i], "-j") == 0 && i + 1 < argc) {
            jobs = atoi(argv[++i]);
            if (jobs < 1)
                jobs = 1;
        } else if (strcmp(argv[i], "--list") == 0) {
            list = 1;
        } else {
            fprintf(stderr, "usage: %s [--only NAME]... [--skip PREFIX]... [-j N] [--list]\n",
                    argv[0]);
            return 2;
        }
    }
    if (list) {
        for (size_t i = 0; i < NTESTS; i++)
            printf("%s\n", tests[i].name);
        return 0;
    }
    uint64_t seed;
    const char *env = getenv("CZK_TEST_SEED");
    if (env != NULL) {
        seed = strtoull(env, NULL, 0);
    } else if (czk_rng_os(&seed, sizeof(seed)) != 0) {
        seed = czk_time_ns();
    }
    env = getenv("CZK_TEST_TIMEOUT_SCALE");
    if (env != NULL && atoi(env) > 0 && atoi(env) <= 100)
        timeout_scale = (unsigned)atoi(env);
    long iters = 0;
    env = getenv("CZK_TEST_ITERS");
    if (env != NULL)
        iters = atol(env);
    printf("czk_tests: seed %llu (CZK_TEST_SEED=%llu reproduces this run)\n",
           (unsigned long long)seed, (unsigned long long)seed);
    fflush(stdout);

    size_t selected[NTESTS], nsel = 0;
    for (size_t i = 0; i < NTESTS; i++) {
        int take = nonly == 0;
        for (size_t k = 0; k < nonly; k++)
            take |= strcmp(only[k], tests[i].name) == 0;
        for (size_t k = 0; k < nskip; k++)
            take &= strncmp(skip[k], tests[i].name, strlen(skip[k])) != 0;
        if (take)
            selected[nsel++] = i;
    }
    if (nsel == 0) {
        fprintf(stderr, "czk_tests: no test matches\n");
        return 2;
    }

    running run[64];
    int nrun = 0;
    if (jobs > 64)
        jobs = 64;
    size_t next = 0, failed = 0, done = 0;
    while (done < nsel) {
        while (nrun < jobs && next < nsel) {
            size_t idx = selected[next++];
            fflush(stdout);
            fflush(stderr);
            pid_t pid = fork();
            if (pid < 0) {
                perror("fork");
                return 2;
            }
            if (pid == 0)
                _exit(run_child(&tests[idx], seed, iters));
            run[nrun].pid = pid;
            run[nrun].idx = idx;
            run[nrun].start = czk_time_ns();
            nrun++;
        }
        int status;
        pid_t pid = wait(&status);
        if (pid < 0) {
            perror("wait");
            return 2;
        }
        for (int k = 0; k < nrun; k++) {
            if (run[k].pid != pid)
                continue;
            const test_entry *te = &tests[run[k].idx];
            double secs = (double)(czk_time_ns() - run[k].start) / 1e9;
            if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
                printf("ok     %-40s %8.2f s\n", te->name, secs);
            } else {
                failed++;
                if (WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM)
                    printf("FAILED %-40s timeout after %u s\n", te->name,
                           te->timeout * timeout_scale);
                else if (WIFSIGNALED(status))
                    printf("FAILED %-40s killed by signal %d\n", te->name, WTERMSIG(status));
                else
                    printf("FAILED %-40s %8.2f s\n", te->name, secs);
            }
            fflush(stdout);
            run[k] = run[--nrun];
            done++;
            break;
        }
    }
    printf("czk_tests: %zu passed, %zu failed (seed %llu)\n", nsel - failed, failed,
           (unsigned long long)seed);
    return failed == 0 ? 0 : 1;
}
