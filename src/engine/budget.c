/*
 * Budgets: the host budget every big host allocation is reserved from, and each device's
 * memory budget that in-flight partitions reserve their working set from.
 *
 * Host. A key reserves an estimate before loading, corrected to the loaded size; a partition
 * reserves its working set (the witness, plus the CPU prover's scratch of 3n + 2·max(n, n_vars)
 * Fr) from synthesis until it is finished or dropped. When a reservation does not fit, idle
 * keys (no job holds them) are evicted, least recently used first. Pinned staging (GPU
 * engines) is set aside from the host budget at creation: the devices keep their page-locked
 * buffers between partitions, so partition reservations could not cover them.
 *
 * Lean reservations. When a device proves a whole partition from the witness alone
 * (CZK_DEVICE_WHOLE_PROOFS: a GPU with the key and circuit attached), an in-flight partition
 * holds only its witness; the CPU prover's scratch (a, b, c and the gathered scalars, 5·32·n
 * bytes at most) is reserved by a worker just before a proof that may need it (a CPU retry, or
 * a device where the circuit is not attached whole) and released after. So that such a worker
 * can always get it, synthesis admits a partition only while the budget keeps one scratch free
 * per prover lock (each device's and the CPU fallback's) beside it. Without such a device, the
 * partition reserves witness and scratch at synthesis, as a CPU engine always does.
 *
 * Device memory. What a partition needs on a device is the device's own answer
 * (czk_device_ops.need: its planner's arena and tables for the key's domain and largest
 * MSM); the engine only counts reservations against the device's budget, so that workers of
 * one device never plan more than it has.
 */
#include <inttypes.h>
#include <stdio.h>
#include <unistd.h>

#include "engine/engine_internal.h"

#define GIB (1024ULL * 1024 * 1024)

static uint64_t mem_total_bytes(void) {
    FILE *f = fopen("/proc/meminfo", "r");
    if (f == NULL)
        return 0;
    char line[256];
    unsigned long long kb = 0;
    while (fgets(line, sizeof line, f) != NULL) {
        if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
            break;
    }
    fclose(f);
    return (uint64_t)kb * 1024;
}

int czk__budget_defaults(czk_engine_config *cfg, czk_err *err) {
    if (cfg->host_budget_bytes == 0) {
        uint64_t total = mem_total_bytes();
        if (total == 0)
            total = 8 * GIB;
        cfg->host_budget_bytes = total > 10 * GIB ? total - 5 * GIB : total / 2;
    }
    /* Pinned staging (GPU engines only): auto = a quarter of the host budget. */
    if (cfg->pinned_budget_bytes == 0)
        cfg->pinned_budget_bytes = cfg->host_budget_bytes / 4;
    if (cfg->pinned_budget_bytes > cfg->host_budget_bytes / 2)
        return czk_err_set(err, CZK_EINVAL,
                           "pinned budget of %" PRIu64 " bytes is more than half the host "
                           "budget (%" PRIu64 ")",
                           cfg->pinned_budget_bytes, cfg->host_budget_bytes);
    return CZK_OK;
}

/* Evicts idle HOT keys, least recently used first, until `need` more bytes fit. Work below
 * HIGH never evicts the key of a circuit that HIGH or CRITICAL jobs use: C2's memory pressure
 * would otherwise unload an idle WinningPoSt key, whose next proof then waits for a reload
 * and for C2 to give the memory back. */
int czk__reserve(czk_engine *e, uint64_t need, int prio) {
    while (e->budget - e->reserved < need) {
        circuit *lru = NULL;
        for (circuit *c = e->circuits; c != NULL; c = c->next) {
            if (c->state == C_HOT && c->refs == 0 &&
                (prio >= CZK_PRIORITY_HIGH || c->max_prio < CZK_PRIORITY_HIGH) &&
                (lru == NULL || c->last_used_ns < lru->last_used_ns))
                lru = c;
        }
        if (lru == NULL)
            return 0;
        czk__elog(e, CZK_LOG_INFO, "evict circuit=%s bytes=%" PRIu64 " reason=memory-pressure",
                  lru->id, lru->bytes);
        czk__unload_circuit(e, lru);
    }
    e->reserved += need;
    return 1;
}

void czk__unreserve(czk_engine *e, uint64_t bytes) {
    e->reserved -= bytes;
    pthread_cond_broadcast(&e->synth_cv);
}

/* Whether some device proves whole partitions from the witness: fixed when the devices are
 * set (devices.c), so computed there once rather than at every reservation. */
void czk__engine_set_lean(czk_engine *e) {
    e->lean = 0;
    for (unsigned i = 0; i < e->n_devs; i++)
        if (e->devs[i].dev != NULL && (e->devs[i].dev->flags & CZK_DEVICE_WHOLE_PROOFS))
            e->lean = 1;
}

/* Bytes a partition of c reserves from synthesis until it is finished. */
uint64_t czk__part_need(const czk_engine *e, const circuit *c) {
    return e->lean ? c->w_bytes : c->part_bytes;
}

/* Bytes synthesis must leave free for the workers' scratch (lean mode). */
uint64_t czk__scratch_headroom(const czk_engine *e) {
    uint64_t mx = 0;
    if (!e->lean)
        return 0;
    for (const circuit *c = e->circuits; c != NULL; c = c->next)
        if ((c->state == C_HOT || c->state == C_LOADING) && c->part_bytes - c->w_bytes > mx)
            mx = c->part_bytes - c->w_bytes;
    return mx * (e->n_devs + 1);
}

uint64_t czk__urgent_room(const czk_engine *e) {
    uint64_t mx = 0;
    for (const circuit *c = e->circuits; c != NULL; c = c->next)
        if (c->state == C_HOT && c->max_prio >= CZK_PRIORITY_HIGH && czk__part_need(e, c) > mx)
            mx = czk__part_need(e, c);
    return mx;
}

/* The least budget beside the key that one partition of c can ever run in. */
uint64_t czk__part_floor(const czk_engine *e, const circuit *c) {
    return e->lean ? c->w_bytes + (c->part_bytes - c->w_bytes) * (e->n_devs + 1) : c->part_bytes;
}

/*
 * In lean mode, reserves the CPU prover's scratch for p before a proof that may need it: on a
 * device without whole proofs, a retry, or a device where p's circuit is not attached whole.
 * Waits for memory (synthesis leaves room for it); counts it in p->reserved so that a dropped
 * partition releases it. Out: *got, the bytes reserved (0: not needed). Returns CZK_OK or
 * CZK_ECANCELED (the engine is stopping). Takes e->mu.
 */
int czk__scratch_reserve(czk_engine *e, part *p, unsigned di, int on_fallback, uint64_t *got,
                         czk_err *err) {
    const circuit *c = p->job->c;
    int rc = CZK_OK;
    *got = 0;
    pthread_mutex_lock(&e->mu);
    uint64_t need = c->part_bytes - c->w_bytes;
    int whole = !on_fallback && (e->devs[di].dev->flags & CZK_DEVICE_WHOLE_PROOFS) &&
                ((__atomic_load_n(&c->circuit_devs, __ATOMIC_ACQUIRE) >> di) & 1);
    if (e->lean && !whole && need > 0) {
        while (!e->quit && !czk__reserve(e, need, p->job->prio))
            pthread_cond_wait(&e->synth_cv, &e->mu);
        if (e->quit) {
            rc = czk_err_set(err, CZK_ECANCELED,
                             "engine stopping while partition %u waited "
                             "for %" PRIu64 " bytes of prover scratch",
                             p->idx, need);
        } else {
            p->reserved += need;
            e->part_reserved += need;
            *got = need;
        }
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

/*
 * The device bytes a partition of c needs on d, as the device answers (cached per device for
 * the last circuit asked). The device is asked under its lock; called with no lock held, the
 * job holding a reference on c. CZK_ENOMEM when the partition can never fit the device.
 */
static int device_need(czk_engine *e, edevice *d, const circuit *c, uint64_t *need, czk_err *err) {
    pthread_mutex_lock(&e->mu);
    int hit = d->need_c == c;
    *need = d->need_bytes;
    pthread_mutex_unlock(&e->mu);
    if (hit)
        return CZK_OK;
    czk_device_need dn;
    czk_err nerr = {0};
    czk__gate_lock(&d->gate, CZK_PRIORITY_CRITICAL); /* a short query */
    int rc = d->dev->ops->need(d->dev, &c->pk, &c->cs, &dn, &nerr);
    czk__gate_unlock(&d->gate);
    if (rc != CZK_OK)
        return czk_err_set(err, rc,
                           "circuit %s cannot be planned within the %" PRIu64
                           " byte memory budget of %s: %s",
                           c->id, d->info.mem_budget, d->info.label, nerr.msg);
    *need = dn.partition_bytes;
    pthread_mutex_lock(&e->mu);
    d->need_c = c;
    d->need_bytes = *need;
    pthread_mutex_unlock(&e->mu);
    return CZK_OK;
}

/* Reserves a partition's working set from d's memory budget, waiting while other partitions
 * hold it (each releases after its kernel region, so the wait ends). Out: *got, the bytes
 * reserved (0 on failure or when the device needs none). Called with no lock held. */
int czk__vram_reserve(czk_engine *e, edevice *d, const circuit *c, uint64_t *got, czk_err *err) {
    uint64_t need = 0;
    *got = 0;
    int rc = device_need(e, d, c, &need, err);
    if (rc != CZK_OK || need == 0)
        return rc;
    if (need > d->info.mem_budget)
        return czk_err_set(err, CZK_ENOMEM,
                           "a partition of circuit %s needs %" PRIu64
                           " device bytes, more than the %" PRIu64 " byte memory budget of %s",
                           c->id, need, d->info.mem_budget, d->info.label);
    pthread_mutex_lock(&e->mu);
    while (d->vram_reserved + need > d->info.mem_budget)
        pthread_cond_wait(&e->vram_cv, &e->mu);
    d->vram_reserved += need;
    pthread_mutex_unlock(&e->mu);
    *got = need;
    return CZK_OK;
}

void czk__vram_release(czk_engine *e, edevice *d, uint64_t bytes) {
    if (bytes == 0)
        return;
    d->vram_reserved -= bytes;
    pthread_cond_broadcast(&e->vram_cv);
}
