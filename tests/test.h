/*
 * The unit-test harness (libuv's test-list pattern).
 *
 * A test is `CZK_TEST(name) { ... }` in a `*_test.c` file next to the code it tests, and is
 * registered as `CZK_TEST_ENTRY(name, timeout_seconds)` in its module's `*_tests.h` list,
 * which tests/test_list.h includes. The runner (tests/runner.c) runs every test in its own
 * subprocess with a timeout; ctest gets one entry per test.
 *
 * Tests draw randomness from `t->rng`, seeded from the run's seed (printed, and taken from
 * CZK_TEST_SEED when set), and scale loops with czk_test_iters (CZK_TEST_ITERS overrides).
 */
#ifndef CZK_TESTS_TEST_H
#define CZK_TESTS_TEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/rng.h"

typedef struct czk_test_ctx {
    czk_rng rng;
    uint64_t seed;
    long iters_override; /* 0 when CZK_TEST_ITERS is unset */
    int failures;
} czk_test_ctx;

#define CZK_TEST(name) void czk_test_##name(czk_test_ctx *t)

/* Iteration count: `dflt`, or CZK_TEST_ITERS when set. */
long czk_test_iters(const czk_test_ctx *t, long dflt);

/*
 * 1 when the runner was told to leave out heavy tests (CZK_TEST_SKIP_HEAVY=1: the sanitizer
 * runs, where a 130 M-row count would take most of their time budget and finds nothing the
 * small cases of the same code do not), after saying so on stderr; the test then returns.
 * The plain Release run always runs them.
 */
int czk_test_skip_heavy(const char *name);

void czk_test_fail(czk_test_ctx *t, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Prints `n` bytes as hex to stderr with a label, for failure diagnostics. */
void czk_test_dump(const char *label, const void *p, size_t n);

/*
 * Makes a fresh scratch directory into out: in /dev/shm when it is usable, else TMPDIR, else
 * /tmp (tests that rewrite small files thousands of times were measured at ~7 ms a truncation
 * on a disk mounted with `discard`, 48 s for one test against 0.3 s on tmpfs). Returns 1, or
 * 0 when no directory could be made.
 */
int czk_test_tmpdir(char out[256]);

/* Removes `dir` and the plain files in it (not subdirectories). */
void czk_test_rmdir(const char *dir);

/* A whole file's bytes (malloc'ed, *n its length) followed by one NUL that *n does not count,
 * so that a text file is also a string; NULL when it cannot be read. Tests read back what they
 * wrote with it. */
uint8_t *czk_test_read_file(const char *path, size_t *n);

/* The path of tests/data/<dir>/<name> in the source tree the runner was built from. */
void czk_test_data_path(char *out, size_t n, const char *dir, const char *name);

/* czk_test_read_file of tests/data/<dir>/<name>. */
uint8_t *czk_test_read_data(const char *dir, const char *name, size_t *n);

/* Writes n bytes to path (created or truncated). Returns 0, or -1 on any failure. */
int czk_test_write_file(const char *path, const void *p, size_t n);

/* 2·n hex digits (an optional 0x in front) into out[0..n), in the order written. Returns 1 on
 * success, 0 for another length or a character that is not a hex digit. */
int czk_test_hex(uint8_t *out, size_t n, const char *hex);

/* The engine configuration the engine and kind tests share: the defaults, on the CPU, one
 * synthesis thread, two prove threads, one worker and one finalizer, and `host_budget` bytes
 * of host memory. */
struct czk_engine_config;
void czk_test_engine_config(struct czk_engine_config *cfg, uint64_t host_budget);

/* Fails the test and returns from it when `cond` is false. */
#define CHECK(cond)                                                                                \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            czk_test_fail(t, __FILE__, __LINE__, "CHECK(%s)", #cond);                              \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/*
 * For harnesses that run a Filecoin circuit through a constraint system `cs` (NULL once
 * destroyed) and keep a czk_err `err`: on failure, reports the condition with the system's
 * error (else err's) and jumps to the harness's `out` label, which frees what it made.
 */
#define CHECK_CS_OR_OUT(cond)                                                                      \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            czk_test_fail(t, __FILE__, __LINE__, "CHECK(%s) [%s]", #cond,                          \
                          cs ? czk_cs_error(cs)->msg : err.msg);                                   \
            goto out;                                                                              \
        }                                                                                          \
    } while (0)

/* As CHECK with a printf-style message. */
#define CHECKF(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            czk_test_fail(t, __FILE__, __LINE__, __VA_ARGS__);                                     \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_EQ_INT(a, b)                                                                         \
    do {                                                                                           \
        long long czk__a = (long long)(a), czk__b = (long long)(b);                                \
        if (czk__a != czk__b) {                                                                    \
            czk_test_fail(t, __FILE__, __LINE__, "%s == %s: %lld != %lld", #a, #b, czk__a,         \
                          czk__b);                                                                 \
            return;                                                                                \
        }                                                                                          \
    } while (0)

#define CHECK_MEM(a, b, n)                                                                         \
    do {                                                                                           \
        if (memcmp((a), (b), (n)) != 0) {                                                          \
            czk_test_dump(#a, (a), (n));                                                           \
            czk_test_dump(#b, (b), (n));                                                           \
            czk_test_fail(t, __FILE__, __LINE__, "memory differs: %s vs %s", #a, #b);              \
            return;                                                                                \
        }                                                                                          \
    } while (0)

/* Runs body(t, dir) with a fresh scratch directory, removed afterwards even if body fails. */
#define CZK_TEST_WITH_TMPDIR(body)                                                                 \
    do {                                                                                           \
        char czk__dir[256];                                                                        \
        CHECK(czk_test_tmpdir(czk__dir));                                                          \
        body(t, czk__dir);                                                                         \
        czk_test_rmdir(czk__dir);                                                                  \
    } while (0)

#endif /* CZK_TESTS_TEST_H */
