/*
 * Keys: the circuits an engine knows, their proving keys in host memory (tiers HOT, WARM,
 * COLD in status) and on devices.
 *
 * A circuit is registered COLD by its kind (czk__engine_add_circuit). It is loaded when a job
 * or a preload needs it: the estimate is reserved from the host budget, the kind loads key
 * and constraint system with no engine lock held (state LOADING; others wait for it), and the
 * reservation is corrected to what was loaded (plus what each device's attach will allocate on
 * the host). A loaded key is attached to a device by the first worker that proves a partition
 * of it there (czk__key_attach, under that device's lock), which keeps the device's handle.
 * Unloading (eviction under memory pressure, or on request once no job holds the key) detaches
 * the key from every device before its host arrays are freed.
 *
 * The host copy. A GPU that holds key and circuit whole proves from the witness alone, so
 * once every device that proves a circuit holds them, a second copy in host memory only
 * takes the budget (a 32 GiB PoRep key's points are 30+ GB, its recorded circuit as much
 * again). The first worker to see that (czk__key_drop_host, after a proof) frees the points
 * and lets the kind free its rows; the budget gets the bytes back. A proof that must read
 * the host copy after all (a retry on the CPU, a device that does not hold the circuit)
 * first has the kind read the file again (czk__key_restore_host), which takes the time of a
 * load: a fault path, where a partition is retried instead of lost.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"
#include "util/timer.h"

circuit *czk__find_circuit(czk_engine *e, const char *id) {
    for (circuit *c = e->circuits; c != NULL; c = c->next) {
        if (strcmp(c->id, id) == 0)
            return c;
    }
    return NULL;
}

/* The key's point arrays, which devices hold (the verifying key's are counted apart). */
static uint64_t points_bytes(const czk_groth16_pk *pk) {
    return (uint64_t)(pk->n_h + pk->n_l + pk->n_a + pk->n_b_g1) * sizeof(czk_g1_affine) +
           (uint64_t)pk->n_b_g2 * sizeof(czk_g2_affine);
}

static uint64_t pk_bytes(const czk_groth16_pk *pk) {
    return points_bytes(pk) + (uint64_t)(2 * pk->vk.n_ic) * sizeof(czk_g1_affine);
}

/* A partition's host working set: the CPU prover's (witness and scratch), or the witness
 * alone for a circuit whose rows only devices hold (the CPU cannot prove it). */
static uint64_t part_bytes_for(const circuit *c, uint64_t n, uint64_t n_vars) {
    uint64_t mx = n > n_vars ? n : n_vars;
    return c->device_rows ? n_vars * sizeof(czk_fr) : (n_vars + 3 * n + 2 * mx) * sizeof(czk_fr);
}

/* The key's host arrays and the kind's extras; the budget has been settled by the caller. */
static void drop_loaded(circuit *c) {
    if (c->kind->unload != NULL)
        c->kind->unload(c->kstate);
    czk_groth16_pk_clear(&c->pk);
    czk_r1cs_clear(&c->cs);
    czk_groth16_pvk_clear(&c->pvk);
}

void czk__unload_circuit(czk_engine *e, circuit *c) {
    /* The device copies go before the host arrays they mirror. The device lock serialises
     * this with that device's proofs (lock order e->mu, then a device's mu); no proof of c
     * runs now, since c has no references. */
    for (unsigned i = 0; i < e->n_devs; i++) {
        if (!(__atomic_load_n(&c->resident_devs, __ATOMIC_ACQUIRE) & (1ull << i)))
            continue;
        edevice *d = &e->devs[i];
        czk__gate_lock(&d->gate, CZK_PRIORITY_CRITICAL);
        if (d->dev->ops->detach != NULL)
            d->dev->ops->detach(d->dev, c->dev_key[i]);
        c->dev_key[i] = NULL;
        __atomic_fetch_and(&c->resident_devs, ~(1ull << i), __ATOMIC_ACQ_REL);
        __atomic_fetch_and(&c->circuit_devs, ~(1ull << i), __ATOMIC_ACQ_REL);
        __atomic_fetch_and(&c->whole_devs, ~(1ull << i), __ATOMIC_ACQ_REL);
        czk__gate_unlock(&d->gate);
        czk__elog(e, CZK_LOG_INFO, "key released circuit=%s device=%s", c->id, d->info.label);
    }
    drop_loaded(c);
    e->reserved -= c->bytes;
    c->bytes = 0;
    c->host = H_FULL;
    c->host_dropped = 0;
    c->state = C_COLD;
    c->evict_pending = 0;
    pthread_cond_broadcast(&e->synth_cv);
}

/* Host bytes every device's attach of cs may allocate (a share per device). Takes each
 * device's lock in turn: devices answer under it. Called with no engine lock. */
static uint64_t attach_host_bytes(czk_engine *e, const czk_groth16_pk *pk, const czk_r1cs *cs) {
    uint64_t sum = 0;
    const uint64_t dev_bytes = pk_bytes(pk) + czk_r1cs_bytes(cs);
    for (unsigned i = 0; i < e->n_devs; i++) {
        edevice *d = &e->devs[i];
        if (d->dev->ops->attach == NULL || (d->lane_of >= 0 && !czk__lane_fits(d, dev_bytes)))
            continue;
        czk_device_need dn;
        czk__gate_lock(&d->gate, CZK_PRIORITY_CRITICAL);
        if (d->dev->ops->need(d->dev, pk, cs, &dn, NULL) == CZK_OK)
            sum += dn.attach_host_bytes;
        czk__gate_unlock(&d->gate);
    }
    return sum;
}

/* Loads c outside the lock. Called with e->mu held and c->state == C_LOADING, the estimate
 * reserved in c->bytes; returns with e->mu held. */
static int load_unlocked(czk_engine *e, circuit *c, czk_err *err) {
    czk_groth16_pk pk;
    czk_r1cs cs;
    czk_groth16_pvk pvk;
    memset(&pk, 0, sizeof pk);
    memset(&cs, 0, sizeof cs);
    memset(&pvk, 0, sizeof pvk);
    uint64_t extra = 0, attach = 0;
    pthread_mutex_unlock(&e->mu);

    int rc = c->kind->load(c->kstate, &pk, &cs, &extra, e->pool, err);
    if (rc == CZK_OK)
        rc = czk_groth16_pvk_prepare(&pvk, &pk.vk, err);
    if (rc == CZK_OK)
        attach = attach_host_bytes(e, &pk, &cs);

    pthread_mutex_lock(&e->mu);
    if (rc != CZK_OK) {
        if (c->kind->unload != NULL)
            c->kind->unload(c->kstate);
        czk_groth16_pk_clear(&pk);
        czk_r1cs_clear(&cs);
        czk_groth16_pvk_clear(&pvk);
        czk__unreserve(e, c->bytes);
        c->bytes = 0;
        c->state = C_COLD;
        pthread_cond_broadcast(&e->synth_cv);
        return rc;
    }
    c->pk = pk;
    c->cs = cs;
    c->pvk = pvk;
    /* attach: what each device allocates on the host when it attaches the key (coded matrix
     * coefficients, 1.7 GB at 2^27), kept while a key too large for the device streams. */
    uint64_t actual = pk_bytes(&pk) + czk_r1cs_bytes(&cs) + extra + attach;
    e->reserved = e->reserved - c->bytes + actual;
    c->bytes = actual;
    c->attach_bytes = attach;
    c->est_bytes = actual;
    c->w_bytes = (uint64_t)pk.n_vars * sizeof(czk_fr);
    c->dev_bytes = pk_bytes(&pk) + czk_r1cs_bytes(&cs);
    c->part_bytes = part_bytes_for(c, pk.domain_size, pk.n_vars);
    c->state = C_HOT;
    c->last_used_ns = czk_time_ns();
    pthread_cond_broadcast(&e->synth_cv);
    return CZK_OK;
}

int czk__key_leaves_host(const czk_engine *e, const circuit *c) {
    if (!c->device_rows || c->kind->drop == NULL || c->kind->restore == NULL)
        return 0;
    for (unsigned i = 0; i < e->n_devs; i++)
        if (e->devs[i].dev->ops->attach != NULL && !e->devs[i].down)
            return 1;
    return 0;
}

static void place_on_devices(czk_engine *e, circuit *c);

/* With e->mu held: makes c HOT, waiting for a load (or its placement) in progress. Returns
 * CZK_OK, CZK_ENOMEM (the key cannot fit now even after evicting idle keys) or the loader's
 * error. */
int czk__ensure_loaded(czk_engine *e, circuit *c, int prio, uint64_t *load_ms, czk_err *err) {
    while (c->state == C_LOADING || c->placing)
        pthread_cond_wait(&e->synth_cv, &e->mu);
    if (c->state == C_HOT)
        return CZK_OK;
    uint64_t est = c->est_bytes;
    if (est > e->budget || !czk__reserve(e, est, prio))
        return czk_err_set(err, CZK_ENOMEM,
                           "circuit %s: key of about %" PRIu64 " bytes does not fit the host "
                           "budget (%" PRIu64 " of %" PRIu64 " bytes reserved)",
                           c->id, est, e->reserved, e->budget);
    c->bytes = est;
    c->state = C_LOADING;
    uint64_t t0 = czk_time_ns();
    int rc = load_unlocked(e, c, err);
    if (load_ms != NULL)
        *load_ms = CZK__MS(czk_time_ns() - t0);
    if (rc == CZK_OK) {
        czk__elog(e, CZK_LOG_INFO, "load circuit=%s kind=%s bytes=%" PRIu64 " ms=%" PRIu64, c->id,
                  c->kind->name, c->bytes, CZK__MS(czk_time_ns() - t0));
        place_on_devices(e, c);
    }
    return rc;
}

/*
 * With e->mu held (released while attaching), right after c's load: a circuit whose rows only
 * devices hold, whose kind can drop and restore its host copy, is attached to every device
 * that proves it now, and the host copy dropped once each holds it whole, before any of its
 * partitions reserves a witness (they wait on `placing`). Otherwise the key (a 32 GiB PoRep's
 * 46 GiB) shared the host budget with the witnesses until the first proof, and a budget that
 * holds either but not both (64 GiB) refused every job. A device that cannot hold it whole
 * leaves the copy on the host, where synthesis finds that key and witness do not fit, and
 * says so.
 */
static void place_on_devices(czk_engine *e, circuit *c) {
    uint64_t devs = 0;
    if (!czk__key_leaves_host(e, c))
        return;
    for (unsigned i = 0; i < e->n_devs; i++) {
        const edevice *d = &e->devs[i];
        if (d->dev->ops->attach != NULL && !d->down &&
            (d->lane_of < 0 || czk__lane_fits(d, c->dev_bytes)))
            devs |= 1ull << i;
    }
    c->placing = 1;
    c->refs++; /* kept loaded while e->mu is released */
    pthread_mutex_unlock(&e->mu);
    for (unsigned i = 0; i < e->n_devs; i++) {
        if (!((devs >> i) & 1))
            continue;
        edevice *d = &e->devs[i];
        czk__gate_lock(&d->gate, CZK_PRIORITY_CRITICAL);
        czk__key_attach(e, i, c);
        czk__gate_unlock(&d->gate);
    }
    pthread_mutex_lock(&e->mu);
    c->refs--;
    c->placing = 0;
    czk__key_drop_host(e, c);
    if (c->refs == 0 && c->evict_pending && c->state == C_HOT)
        czk__unload_circuit(e, c);
    pthread_cond_broadcast(&e->synth_cv);
}

/*
 * Attaches c's key to device di for this and later partitions (what fits: the device
 * decides). Called with the device's lock held and no engine lock (the order is e->mu before
 * a device's); c cannot be unloaded meanwhile: the partition's job holds a reference. The
 * device bytes are the device's own (its budget covers arena and keys); the engine keeps the
 * handle so that unloading detaches the key before freeing the host arrays.
 */
void czk__key_attach(czk_engine *e, unsigned di, circuit *c) {
    edevice *d = &e->devs[di];
    if (d->dev->ops->attach == NULL ||
        ((__atomic_load_n(&c->resident_devs, __ATOMIC_ACQUIRE) >> di) & 1))
        return;
    czk_err kerr = {0};
    czk_device_key *key = NULL;
    czk_device_attach mode = CZK_DEVICE_ATTACH_NONE;
    uint64_t t0 = czk_time_ns();
    /* A circuit kept in its repeated form goes to devices that expand it themselves. */
    const czk_r1cs_rep *rep = c->kind->rep != NULL ? c->kind->rep(c->kstate) : NULL;
    if (rep != NULL && d->dev->ops->attach_rep == NULL)
        return;
    int rc = rep != NULL ? d->dev->ops->attach_rep(d->dev, &c->pk, rep, &c->cs, &key, &mode, &kerr)
                         : d->dev->ops->attach(d->dev, &c->pk, &c->cs, &key, &mode, &kerr);
    if (rc != CZK_OK) {
        czk__elog(e, CZK_LOG_WARN, "key not resident circuit=%s device=%s: %s", c->id,
                  d->info.label, kerr.msg);
        return;
    }
    if (mode == CZK_DEVICE_ATTACH_NONE)
        return; /* asked again next time: memory may have been freed by then */
    c->dev_key[di] = key;
    __atomic_fetch_or(&c->resident_devs, 1ull << di, __ATOMIC_ACQ_REL);
    if (mode == CZK_DEVICE_ATTACH_WHOLE || mode == CZK_DEVICE_ATTACH_STREAMED)
        __atomic_fetch_or(&c->circuit_devs, 1ull << di, __ATOMIC_ACQ_REL);
    if (mode == CZK_DEVICE_ATTACH_WHOLE)
        __atomic_fetch_or(&c->whole_devs, 1ull << di, __ATOMIC_ACQ_REL);
    czk_device_info info;
    d->dev->ops->info(d->dev, &info);
    czk__elog(e, CZK_LOG_INFO,
              "key %s circuit=%s device=%s device_bytes=%" PRIu64 " upload_ms=%.1f",
              mode == CZK_DEVICE_ATTACH_STREAMED ? "streamed" : "resident", c->id, d->info.label,
              info.mem_keys, (double)(czk_time_ns() - t0) / 1e6);
}

int czk__key_needs_host(const czk_engine *e, const circuit *c, int di) {
    if (di < 0 || e->devs[di].dev->ops->attach == NULL)
        return 1;
    return !((__atomic_load_n(&c->whole_devs, __ATOMIC_ACQUIRE) >> di) & 1);
}

/* Under e->mu: whether every device that proves c holds it whole, and one does. A device out
 * of service takes no partition, and a lane too small for c none of c's. */
static int whole_everywhere(const czk_engine *e, const circuit *c) {
    const uint64_t whole = __atomic_load_n(&c->whole_devs, __ATOMIC_ACQUIRE);
    int any = 0;
    for (unsigned i = 0; i < e->n_devs; i++) {
        const edevice *d = &e->devs[i];
        if (d->dev->ops->attach == NULL || d->down ||
            (d->lane_of >= 0 && !czk__lane_fits(d, c->dev_bytes)))
            continue;
        if (!((whole >> i) & 1))
            return 0;
        any = 1;
    }
    return any;
}

/* Under e->mu: whether a proof of c that reads the host copy is running (on the fallback,
 * or on a device that does not hold c whole). */
static int host_reader(const czk_engine *e, const circuit *c) {
    for (const job *j = e->jobs; j != NULL; j = j->next) {
        if (j->c != c)
            continue;
        for (size_t i = 0; i < j->n_parts; i++)
            if (j->parts[i].state == P_PROVING && czk__key_needs_host(e, c, j->parts[i].on_dev))
                return 1;
    }
    return 0;
}

void czk__key_drop_host(czk_engine *e, circuit *c) {
    if (c->state != C_HOT || c->host != H_FULL || c->evict_pending || c->kind->drop == NULL ||
        c->kind->restore == NULL || !whole_everywhere(e, c) || host_reader(e, c))
        return;
    /* The reference keeps c loaded (unload would free what is being freed here); the state
     * keeps restore out until the points are gone. No other thread reads them now: every
     * device that proves c has attached it (attach is what reads them), and a proof that
     * reads them starts only after restoring them. */
    c->host = H_DROPPING;
    c->refs++;
    czk_groth16_pk pts = c->pk;
    c->pk.h = c->pk.l = c->pk.a = c->pk.b_g1 = NULL;
    c->pk.b_g2 = NULL;
    const uint64_t t0 = czk_time_ns();
    pthread_mutex_unlock(&e->mu);

    const uint64_t kind_bytes = c->kind->drop(c->kstate);
    czk_free(pts.h);
    czk_free(pts.l);
    czk_free(pts.a);
    czk_free(pts.b_g1);
    czk_free(pts.b_g2);

    pthread_mutex_lock(&e->mu);
    /* What attaching may allocate on the host goes too: every device has attached. */
    uint64_t freed = points_bytes(&pts) + kind_bytes + c->attach_bytes;
    if (freed > c->bytes)
        freed = c->bytes;
    c->bytes -= freed;
    c->host_dropped = freed;
    c->host = H_DROPPED;
    czk__unreserve(e, freed);
    czk__elog(e, CZK_LOG_INFO, "key host copy dropped circuit=%s bytes=%" PRIu64 " ms=%.1f", c->id,
              freed, (double)(czk_time_ns() - t0) / 1e6);
    if (--c->refs == 0 && c->evict_pending)
        czk__unload_circuit(e, c);
    pthread_cond_broadcast(&e->synth_cv);
}

/* Whether pk, read again, is the key loaded as c->pk: same sizes and verifying key. */
static int same_key(const czk_groth16_pk *a, const czk_groth16_pk *b) {
    const czk_groth16_vk *x = &a->vk, *y = &b->vk;
    return a->domain_size == b->domain_size && a->n_vars == b->n_vars &&
           a->n_public == b->n_public && a->h_basis == b->h_basis && a->density == b->density &&
           a->n_h == b->n_h && a->n_l == b->n_l && a->n_a == b->n_a && a->n_b_g1 == b->n_b_g1 &&
           a->n_b_g2 == b->n_b_g2 && x->n_ic == y->n_ic &&
           memcmp(&x->alpha_g1, &y->alpha_g1, sizeof x->alpha_g1) == 0 &&
           memcmp(&x->beta_g1, &y->beta_g1, sizeof x->beta_g1) == 0 &&
           memcmp(&x->delta_g1, &y->delta_g1, sizeof x->delta_g1) == 0 &&
           memcmp(&x->beta_g2, &y->beta_g2, sizeof x->beta_g2) == 0 &&
           memcmp(&x->gamma_g2, &y->gamma_g2, sizeof x->gamma_g2) == 0 &&
           memcmp(&x->delta_g2, &y->delta_g2, sizeof x->delta_g2) == 0 &&
           memcmp(x->ic, y->ic, x->n_ic * sizeof *x->ic) == 0;
}

int czk__key_restore_host(czk_engine *e, circuit *c, int prio, czk_err *err) {
    while (c->host == H_DROPPING || c->host == H_RESTORING)
        pthread_cond_wait(&e->synth_cv, &e->mu);
    if (c->host == H_FULL)
        return CZK_OK;
    const uint64_t need = c->host_dropped;
    if (!czk__reserve(e, need, prio))
        return czk_err_set(err, CZK_ENOMEM,
                           "circuit %s: reading its key again for a proof off the devices that "
                           "hold it needs %" PRIu64 " bytes; %" PRIu64 " of the %" PRIu64
                           " byte host budget are reserved",
                           c->id, need, e->reserved, e->budget);
    c->host = H_RESTORING;
    c->refs++;
    const uint64_t t0 = czk_time_ns();
    pthread_mutex_unlock(&e->mu);

    czk_groth16_pk pk;
    memset(&pk, 0, sizeof pk);
    int rc = c->kind->restore(c->kstate, &pk, e->pool, err);
    /* c->pk's sizes are read by running proofs: compared, never written, here. */
    if (rc == CZK_OK && !same_key(&pk, &c->pk))
        rc = czk_err_set(err, CZK_EINVAL,
                         "circuit %s: its key file no longer holds the key that was loaded "
                         "(sizes or verifying key differ)",
                         c->id);

    pthread_mutex_lock(&e->mu);
    if (rc == CZK_OK) {
        c->pk.h = pk.h;
        c->pk.l = pk.l;
        c->pk.a = pk.a;
        c->pk.b_g1 = pk.b_g1;
        c->pk.b_g2 = pk.b_g2;
        pk.h = pk.l = pk.a = pk.b_g1 = NULL;
        pk.b_g2 = NULL;
        c->bytes += need;
        c->host_dropped = 0;
        c->host = H_FULL;
        czk__elog(e, CZK_LOG_INFO, "key host copy restored circuit=%s bytes=%" PRIu64 " ms=%.1f",
                  c->id, need, (double)(czk_time_ns() - t0) / 1e6);
    } else {
        czk__unreserve(e, need);
        c->host = H_DROPPED;
    }
    czk_groth16_pk_clear(&pk);
    if (--c->refs == 0 && c->evict_pending)
        czk__unload_circuit(e, c);
    pthread_cond_broadcast(&e->synth_cv);
    return rc;
}

int czk__kind_restore_by_load(int (*load)(void *, czk_groth16_pk *, czk_r1cs *, uint64_t *,
                                          czk_pool *, czk_err *),
                              void *state, czk_groth16_pk *pk, czk_pool *pool, czk_err *err) {
    czk_r1cs cs;
    uint64_t extra = 0;
    memset(&cs, 0, sizeof cs);
    int rc = load(state, pk, &cs, &extra, pool, err);
    czk_r1cs_clear(&cs);
    return rc;
}

void czk__circuit_free(circuit *c) {
    drop_loaded(c);
    if (c->kind != NULL && c->kind->destroy != NULL)
        c->kind->destroy(c->kstate);
    czk_free(c->dev_key);
    czk_free(c);
}

int czk__engine_add_circuit(czk_engine *e, const char *circuit_id, const czk_circuit_kind *kind,
                            void *state, czk_err *err) {
    if (!czk_id_valid(circuit_id)) {
        kind->destroy(state);
        return czk_err_set(err, CZK_EINVAL,
                           "circuit id missing, longer than %d bytes or not printable ASCII",
                           CZK_ID_MAX);
    }
    circuit *c = czk_calloc(1, sizeof *c);
    czk_device_key **keys = czk_calloc(e->n_devs, sizeof *keys);
    if (c == NULL || keys == NULL) {
        czk_free(c);
        czk_free(keys);
        kind->destroy(state);
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    }
    snprintf(c->id, sizeof c->id, "%s", circuit_id);
    c->kind = kind;
    c->kstate = state;
    c->dev_key = keys;
    czk_kind_sizes sz;
    memset(&sz, 0, sizeof sz);
    kind->estimate(state, &sz);
    c->est_bytes = sz.key_bytes;
    c->device_rows = sz.device_rows;
    c->max_prio = sz.prio;
    if (sz.n_vars > 0 && sz.domain > 0) {
        c->w_bytes = (uint64_t)sz.n_vars * sizeof(czk_fr);
        c->part_bytes = part_bytes_for(c, sz.domain, sz.n_vars);
    }
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    if (czk__find_circuit(e, c->id) != NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "circuit %s is already registered", c->id);
    } else {
        c->next = e->circuits;
        e->circuits = c;
    }
    pthread_mutex_unlock(&e->mu);
    if (rc != CZK_OK)
        czk__circuit_free(c);
    return rc;
}

int czk_engine_preload(czk_engine *e, const char *circuit_id, int *already_loaded,
                       uint64_t *load_ms, czk_err *err) {
    if (already_loaded != NULL)
        *already_loaded = 0;
    if (load_ms != NULL)
        *load_ms = 0;
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    circuit *c = czk__find_circuit(e, circuit_id);
    if (c == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "unknown circuit %s", circuit_id);
        goto out;
    }
    if (c->state == C_HOT) {
        if (already_loaded != NULL)
            *already_loaded = 1;
        c->last_used_ns = czk_time_ns();
        goto out;
    }
    rc = czk__ensure_loaded(e, c, CZK_PRIORITY_CRITICAL, load_ms, err); /* an operator's ask */
out:
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int czk_engine_evict(czk_engine *e, const char *circuit_id, int *was_loaded, uint64_t *freed_bytes,
                     czk_err *err) {
    if (was_loaded != NULL)
        *was_loaded = 0;
    if (freed_bytes != NULL)
        *freed_bytes = 0;
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    circuit *c = czk__find_circuit(e, circuit_id);
    if (c == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "unknown circuit %s", circuit_id);
    } else if (c->state == C_HOT && !c->evict_pending) {
        /* A key already marked for release answers as not loaded: the earlier call reported
         * (and counted) those bytes, and this one changes nothing. */
        if (was_loaded != NULL)
            *was_loaded = 1;
        if (freed_bytes != NULL)
            *freed_bytes = c->bytes;
        if (c->refs == 0)
            czk__unload_circuit(e, c);
        else
            c->evict_pending = 1;
        czk__elog(e, CZK_LOG_INFO, "evict circuit=%s reason=request deferred=%d", c->id,
                  c->state == C_HOT);
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}

int czk__engine_circuit_vk(czk_engine *e, const char *circuit_id, czk_groth16_vk *vk) {
    memset(vk, 0, sizeof *vk);
    pthread_mutex_lock(&e->mu);
    int rc = CZK_OK;
    circuit *c = czk__find_circuit(e, circuit_id);
    if (c == NULL || c->state != C_HOT) {
        rc = CZK_EINVAL;
        goto out;
    }
    *vk = c->pk.vk;
    vk->ic = czk_malloc(c->pk.vk.n_ic * sizeof(czk_g1_affine));
    if (vk->ic == NULL) {
        memset(vk, 0, sizeof *vk);
        rc = CZK_ENOMEM;
        goto out;
    }
    memcpy(vk->ic, c->pk.vk.ic, c->pk.vk.n_ic * sizeof(czk_g1_affine));
out:
    pthread_mutex_unlock(&e->mu);
    return rc;
}
