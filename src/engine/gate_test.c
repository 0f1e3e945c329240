/*
 * The device lock served by priority (gate.h): waiters queued behind a held gate enter
 * highest priority first, and in arrival order within a priority; DEFAULT counts as NORMAL.
 */
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "engine/gate.h"
#include "tests/test.h"

typedef struct waiter {
    czk__gate *g;
    czk_priority prio;
    char name;
    pthread_mutex_t *log_mu;
    char *log;
    size_t *n_log;
} waiter;

static void *waiter_main(void *arg) {
    waiter *w = arg;
    czk__gate_lock(w->g, w->prio);
    pthread_mutex_lock(w->log_mu);
    w->log[(*w->n_log)++] = w->name;
    pthread_mutex_unlock(w->log_mu);
    czk__gate_unlock(w->g);
    return NULL;
}

/* Waiters queued so far (every priority). */
static unsigned queued(czk__gate *g) {
    pthread_mutex_lock(&g->mu);
    unsigned n = 0;
    for (unsigned p = 0; p < CZK_PRIORITY_COUNT; p++)
        n += (unsigned)(g->tail[p] - g->head[p]);
    pthread_mutex_unlock(&g->mu);
    return n;
}

CZK_TEST(engine_gate_priority_order) {
    czk__gate g;
    czk__gate_init(&g);
    pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
    char log[16] = {0};
    size_t n_log = 0;
    /* Arrival order a..f; the expected entry order: CRITICAL, HIGH, the NORMALs (DEFAULT is
     * one) in arrival order, LOW. */
    const czk_priority prio[6] = {CZK_PRIORITY_NORMAL, CZK_PRIORITY_LOW,    CZK_PRIORITY_DEFAULT,
                                  CZK_PRIORITY_HIGH,   CZK_PRIORITY_NORMAL, CZK_PRIORITY_CRITICAL};
    waiter w[6];
    pthread_t th[6];
    czk__gate_lock(&g, CZK_PRIORITY_LOW); /* held: everyone queues */
    for (int i = 0; i < 6; i++) {
        w[i] = (waiter){&g, prio[i], (char)('a' + i), &log_mu, log, &n_log};
        CHECK(pthread_create(&th[i], NULL, waiter_main, &w[i]) == 0);
        while (queued(&g) < (unsigned)i + 1) {
            struct timespec ts = {0, 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    CHECK_EQ_INT(czk__gate_waiting_above(&g, CZK_PRIORITY_NORMAL), 2);
    CHECK_EQ_INT(czk__gate_waiting_above(&g, CZK_PRIORITY_CRITICAL), 0);
    czk__gate_unlock(&g);
    for (int i = 0; i < 6; i++)
        pthread_join(th[i], NULL);
    CHECK_EQ_INT(n_log, 6);
    CHECK(strcmp(log, "fdaceb") == 0);
    CHECK_EQ_INT(queued(&g), 0);
    /* Free again: a LOW waiter enters at once. */
    czk__gate_lock(&g, CZK_PRIORITY_LOW);
    czk__gate_unlock(&g);
    czk__gate_destroy(&g);
}
