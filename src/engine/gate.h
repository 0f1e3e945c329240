/*
 * The device lock: a mutex whose waiters are served by priority, highest first, and in arrival
 * order within a priority. A plain mutex hands a device that a C2 partition releases to
 * whichever waiter the scheduler wakes, so a WinningPoSt could wait behind any number of
 * PoRep partitions queued at the same lock (issue 29's 1.5-5.7 s); with the gate it waits for
 * at most the region that holds the device when it arrives.
 *
 * Private to src/engine. A leaf lock: nothing else is taken while waiting on it, and a holder
 * takes e->mu only briefly (lock order e->mu, then a gate, never the reverse while waiting).
 */
#ifndef CZK_ENGINE_GATE_H
#define CZK_ENGINE_GATE_H

#include <pthread.h>
#include <stdint.h>

#include "czk.h"

typedef struct czk__gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int held;
    /* Tickets per priority: waiter k of priority p holds ticket tail[p] at arrival and enters
     * when head[p] reaches it and no higher priority has a waiter. */
    uint64_t head[CZK_PRIORITY_COUNT], tail[CZK_PRIORITY_COUNT];
} czk__gate;

void czk__gate_init(czk__gate *g);
void czk__gate_destroy(czk__gate *g);
/* Waits until the gate is free and no waiter of a higher priority, nor an earlier one of the
 * same priority, is left; then holds it. DEFAULT counts as NORMAL. */
void czk__gate_lock(czk__gate *g, czk_priority prio);
void czk__gate_unlock(czk__gate *g);
/* Waiters of a priority above `prio` (a snapshot, for status and tests). */
unsigned czk__gate_waiting_above(czk__gate *g, czk_priority prio);

#endif /* CZK_ENGINE_GATE_H */
