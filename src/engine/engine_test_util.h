/*
 * Helpers the engine's test files share (engine_test.c defines them): a log capture, a small
 * engine configuration, setting an engine up, and submitting and checking synthetic jobs.
 */
#ifndef CZK_ENGINE_ENGINE_TEST_UTIL_H
#define CZK_ENGINE_ENGINE_TEST_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "czk.h"
#include "groth16/keys.h"

#define CZK_ETEST_MAX_LINES 512

struct czk_backend;
struct czk_device;

/* The engine's log lines, kept (the first CZK_ETEST_MAX_LINES). */
typedef struct czk_etest_logcap {
    pthread_mutex_t mu;
    char *lines[CZK_ETEST_MAX_LINES];
    size_t n;
} czk_etest_logcap;

void czk_etest_cap_init(czk_etest_logcap *c);
void czk_etest_cap_free(czk_etest_logcap *c);
/* A czk_log_fn: arg is the czk_etest_logcap. */
void czk_etest_cap_log(void *arg, int level, const char *line);
/* 1 when a kept line holds `a` and (b NULL or) `b`. */
int czk_etest_cap_has(czk_etest_logcap *c, const char *a, const char *b);

/* A CPU engine's configuration with a 1 GiB host budget. */
czk_engine_config czk_etest_config(void);

/* How czk_etest_engine sets an engine up beyond its configuration; zero fields do nothing. */
typedef struct czk_etest_setup {
    czk_etest_logcap *cap;                        /* initialized, and the engine logs into it */
    const struct czk_backend *primary, *fallback; /* czk__engine_set_backends, when either */
    struct czk_device **devs; /* czk__engine_create_on_devices on devs[0..n_devs) */
    unsigned n_devs;
    int preload;        /* preload the circuit */
    czk_groth16_vk *vk; /* preload it and copy its verifying key here (caller clears it) */
} czk_etest_setup;

/*
 * Creates *e from cfg (NULL: czk_etest_config(); cfg's log is set when s->cap is) and registers
 * the synthetic 2^k circuit `circuit`, then does what s (NULL: nothing) asks. CZK_OK, or the
 * first failing step's code, said on stderr.
 */
int czk_etest_engine(czk_engine **e, czk_engine_config *cfg, const char *circuit, unsigned k,
                     const czk_etest_setup *s);

/* Submits a job of `parts` partitions of a synthetic circuit; CZK_OK or the engine's error. */
int czk_etest_submit_synth(czk_engine *e, const char *id, const char *circuit, czk_priority prio,
                           size_t parts, uint64_t seed, int *attached);
/* Awaits job `id` and verifies each of its `parts` proofs under vk: CZK_OK or the fault. */
int czk_etest_await_verify(czk_engine *e, const char *id, const czk_groth16_vk *vk, size_t parts);
/* Submits a synthetic job, awaits it and verifies its proofs under vk: CZK_OK or the fault. */
int czk_etest_prove(czk_engine *e, const char *id, const char *circuit, czk_priority prio,
                    size_t parts, uint64_t seed, const czk_groth16_vk *vk);

/* Not a job status: what czk_etest_run returns when the submit was refused. */
#define CZK_ETEST_REFUSED (-1)
/* Awaits job `id` (timeout_ms as czk_engine_await) and returns its status. */
int czk_etest_await_status(czk_engine *e, const char *id, uint64_t timeout_ms);
/* Submits a synthetic job and awaits its end: its status, or CZK_ETEST_REFUSED. */
int czk_etest_run(czk_engine *e, const char *id, const char *circuit, czk_priority prio,
                  size_t parts, uint64_t seed);

/*
 * Stand-in GPUs (devices_test.c): each proves through the CPU prover but keeps a key of its
 * own (attach hands out a handle that prove checks is its own), sleeps delay_ms per proof, and
 * fails on command from its fail_after-th proof on: a device fault (CZK_ECUDA) as a GPU that
 * falls off the bus, a proof that does not verify, or no memory for the circuit.
 */
typedef struct czk_etest_fake_stats {
    int proofs; /* proofs returned (good or corrupt) */
    int faults; /* attempts answered with a fault */
    int attaches, detaches;
    int foreign_keys; /* proofs asked with a key that is not this device's */
    const void *pool; /* the pool the latest proof was given for its host steps */
} czk_etest_fake_stats;

enum {
    CZK_ETEST_FAIL_NEVER = 0,
    CZK_ETEST_FAIL_FAULT = 1,
    CZK_ETEST_FAIL_CORRUPT = 2,
    CZK_ETEST_FAIL_NOMEM = 3
};

/* A fake device (NULL when it cannot be made); *st outlives it (the engine closes it). */
struct czk_device *czk_etest_fake_open(unsigned index, int fail_mode, int fail_after,
                                       unsigned delay_ms, czk_etest_fake_stats *st);
/* lane: labelled as a priority lane ("fake:N/lane"); whole: holds key and circuit as a GPU
 * that proves whole partitions (attach copies the key's points, mode WHOLE, and proofs read
 * the copy, never the engine's). */
void czk_etest_fake_mode(struct czk_device *d, int lane, int whole);
/* on: a whole stand-in also takes repeated circuits (attach_rep), expanding their rows as a
 * GPU does; off (the default): it cannot hold them. */
void czk_etest_fake_takes_rep(struct czk_device *d, int on);

/* Sleeps `ms` milliseconds. */
void czk_etest_sleep_ms(unsigned ms);

#endif /* CZK_ENGINE_ENGINE_TEST_UTIL_H */
