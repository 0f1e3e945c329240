/* The device lock served by priority (gate.h). */
#include "engine/gate.h"

static unsigned level(czk_priority p) {
    if (p == CZK_PRIORITY_DEFAULT)
        return CZK_PRIORITY_NORMAL;
    return (unsigned)p < CZK_PRIORITY_COUNT ? (unsigned)p : CZK_PRIORITY_COUNT - 1;
}

void czk__gate_init(czk__gate *g) {
    pthread_mutex_init(&g->mu, NULL);
    pthread_cond_init(&g->cv, NULL);
    g->held = 0;
    for (unsigned p = 0; p < CZK_PRIORITY_COUNT; p++)
        g->head[p] = g->tail[p] = 0;
}

void czk__gate_destroy(czk__gate *g) {
    pthread_cond_destroy(&g->cv);
    pthread_mutex_destroy(&g->mu);
}

/* Under g->mu. */
static int higher_waiting(const czk__gate *g, unsigned p) {
    for (unsigned q = p + 1; q < CZK_PRIORITY_COUNT; q++)
        if (g->head[q] != g->tail[q])
            return 1;
    return 0;
}

void czk__gate_lock(czk__gate *g, czk_priority prio) {
    const unsigned p = level(prio);
    pthread_mutex_lock(&g->mu);
    const uint64_t ticket = g->tail[p]++;
    /* One condition for every waiter: a release wakes them all and the one whose turn it is
     * enters. Waiters are a few workers per device, so the broadcast costs nothing. */
    while (g->held || g->head[p] != ticket || higher_waiting(g, p))
        pthread_cond_wait(&g->cv, &g->mu);
    g->held = 1;
    g->head[p]++;
    pthread_mutex_unlock(&g->mu);
}

void czk__gate_unlock(czk__gate *g) {
    pthread_mutex_lock(&g->mu);
    g->held = 0;
    pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

unsigned czk__gate_waiting_above(czk__gate *g, czk_priority prio) {
    unsigned n = 0;
    pthread_mutex_lock(&g->mu);
    for (unsigned q = level(prio) + 1; q < CZK_PRIORITY_COUNT; q++)
        n += (unsigned)(g->tail[q] - g->head[q]);
    pthread_mutex_unlock(&g->mu);
    return n;
}
