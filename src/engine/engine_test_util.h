/*
 * Helpers the engine's test files share (engine_test.c defines them): a log capture, a small
 * engine configuration, and submitting and checking synthetic jobs.
 */
#ifndef CZK_ENGINE_ENGINE_TEST_UTIL_H
#define CZK_ENGINE_ENGINE_TEST_UTIL_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "czk.h"
#include "groth16/keys.h"

#define CZK_ETEST_MAX_LINES 512

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
/* Submits a job of `parts` partitions of a synthetic circuit; CZK_OK or the engine's error. */
int czk_etest_submit_synth(czk_engine *e, const char *id, const char *circuit, czk_priority prio,
                           size_t parts, uint64_t seed, int *attached);
/* Awaits job `id` and verifies each of its `parts` proofs under vk: CZK_OK or the fault. */
int czk_etest_await_verify(czk_engine *e, const char *id, const czk_groth16_vk *vk, size_t parts);

#endif /* CZK_ENGINE_ENGINE_TEST_UTIL_H */
