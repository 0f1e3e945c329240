/*
 * The prove workers: workers_per_device threads for each device. A worker picks the best
 * synthesized partition; reserves the CPU prover's scratch when the proof may need it (lean
 * mode, budget.c) and the partition's device memory when the device needs some; takes the
 * device lock only around the kernel region (attaching the key on the first partition, then
 * the proof); releases what it reserved; and hands the unverified proof to the finalizers.
 * A partition's first attempt runs on any device in service; a retry runs on a device it has
 * not failed on, and only when none is left on the fallback, the CPU, under the CPU lock. A
 * device that faults (CZK_ECUDA) or makes CZK__DEVICE_MAX_FAULTS proofs in a row that do not
 * verify is taken out of service (devices.c: czk__device_count); its workers then run only
 * fallback attempts.
 */
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/rng.h"
#include "util/timer.h"

/* The proof's blinding scalars: from the OS, or (tests, `czk prove --seed`: the config's
 * blinding_seeded) from the seed and a per-proof counter. */
static int draw_blinding(czk_engine *e, czk_fr *r, czk_fr *s) {
    /* e->cfg does not change after create: only the counter needs the lock. */
    if (e->cfg.blinding_seeded) {
        pthread_mutex_lock(&e->mu);
        uint64_t k = e->blind_count++;
        pthread_mutex_unlock(&e->mu);
        czk_rng rng;
        czk_rng_seed(&rng, e->cfg.blinding_seed + k * 0x9E3779B97F4A7C15ULL);
        czk_fr_random(r, &rng);
        czk_fr_random(s, &rng);
        czk_memclear_explicit(&rng, sizeof rng);
        return CZK_OK;
    }
    int rc = czk_fr_random_os(r);
    if (rc == CZK_OK)
        rc = czk_fr_random_os(s);
    return rc;
}

/* Takes one injected failure if any is pending (czk__engine_inject_failures). */
static int take_injected(czk_engine *e) {
    unsigned pending = atomic_load_explicit(&e->inject, memory_order_relaxed);
    while (pending > 0) {
        /* Pairs with the fetch-add in czk__engine_inject_failures. */
        if (atomic_compare_exchange_weak_explicit(&e->inject, &pending, pending - 1,
                                                  memory_order_acq_rel, memory_order_relaxed))
            return 1;
    }
    return 0;
}

/*
 * The best queued partition this worker may prove, highest priority first, then the oldest
 * job: on the worker's device when the device is in service and the partition has not failed
 * there; on the fallback when no device can take it any more (*on_fallback = 1).
 */
static part *pick_for(czk_engine *e, unsigned di, int *on_fallback) {
    part *best = NULL;
    const int lane = e->devs[di].lane;
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (czk__job_final(j) || (best != NULL && j->prio <= best->job->prio))
            continue;
        for (size_t i = 0; i < j->n_parts; i++) {
            part *p = &j->parts[i];
            if (p->state != P_QUEUED_PROVE)
                continue;
            /* The lane of this device's GPU proves it beside this device's kernels. */
            if (lane >= 0 && czk__lane_takes(e, (unsigned)lane, p))
                continue;
            if (czk__part_fits_device(e, p, (int)di) || czk__part_fits_device(e, p, -1)) {
                best = p;
                *on_fallback = !czk__part_fits_device(e, p, (int)di);
                break;
            }
        }
    }
    return best;
}

void *czk__worker_main(void *arg) {
    czk__worker_arg *wa = arg;
    czk_engine *e = wa->e;
    const unsigned me = wa->index, di = wa->dev;
    edevice *d = &e->devs[di];
    czk_free(wa);
    pthread_mutex_lock(&e->mu);
    while (!e->quit) {
        int on_fallback = 0;
        part *p = pick_for(e, di, &on_fallback);
        if (p == NULL) {
            pthread_cond_wait(&e->prove_cv, &e->mu);
            continue;
        }
        job *j = p->job;
        circuit *c = j->c;
        czk_device *dev = on_fallback ? e->fallback : d->dev;
        p->on_dev = on_fallback ? -1 : (int)di;
        czk__gate *lock = on_fallback ? e->fb_lock : &d->gate;
        const czk_priority prio = j->prio;
        p->dev_label = on_fallback ? "cpu" : d->info.label;
        p->state = P_PROVING;
        p->attempts++;
        j->inflight++;
        const int fault = !on_fallback && d->inject_fault;
        if (fault)
            d->inject_fault = 0;
        snprintf(e->worker_job[me], CZK_REQUEST_ID_MAX + 1, "%s", j->id);
        uint64_t t0 = czk_time_ns();
        czk_err err = {0};
        int rc = CZK_OK;
        /* A proof that reads the key's host copy, which devices made redundant, reads the
         * file first (keys.c); a failure fails this attempt only. */
        if (c->host != H_FULL && czk__key_needs_host(e, c, p->on_dev))
            rc = czk__key_restore_host(e, c, prio, &err);
        pthread_mutex_unlock(&e->mu);

        uint64_t t1 = t0, t2 = t0, vram = 0, scratch = 0;
        czk_device_info info;
        int sampled = 0;
        memset(&p->tm, 0, sizeof p->tm);
        if (rc == CZK_OK && fault)
            rc = czk_err_set(&err, CZK_ECUDA, "%s: injected device fault", d->info.label);
        else if (rc == CZK_OK && take_injected(e))
            rc = czk_err_set(&err, CZK_ENOMEM, "injected allocation failure of prover scratch");
        if (rc == CZK_OK)
            rc = czk__scratch_reserve(e, p, di, on_fallback, &scratch, &err);
        if (rc == CZK_OK && !on_fallback && e->gpu)
            rc = czk__vram_reserve(e, d, c, &vram, &err);
        if (rc == CZK_OK) {
            czk_fr r, s;
            rc = draw_blinding(e, &r, &s);
            if (rc != CZK_OK) {
                czk_err_set(&err, rc, "cannot draw blinding scalars");
            } else {
                czk__gate_lock(lock, prio);
                if (!on_fallback)
                    czk__key_attach(e, di, c);
                czk_device_key *key = on_fallback ? NULL : c->dev_key[di];
                t1 = czk_time_ns();
                if (!on_fallback && c->device_rows && dev->ops->attach != NULL &&
                    !((__atomic_load_n(&c->circuit_devs, __ATOMIC_ACQUIRE) >> di) & 1))
                    rc = czk_err_set(&err, CZK_ENOMEM,
                                     "circuit %s is proved on devices only (its rows stay off "
                                     "the host), and %s cannot hold its key of %.1f GiB, its "
                                     "rows and a partition's working set in its %.1f GiB budget",
                                     c->id, d->info.label, (double)c->dev_bytes / (1u << 30),
                                     (double)d->info.mem_budget / (1u << 30));
                else
                    rc = dev->ops->prove(dev, key, &c->pk, &c->cs, p->w,
                                         p->wp_dev != NULL ? &p->wp : NULL, &r, &s, &p->proof,
                                         &p->tm, czk__job_pool(e, p->job), &err);
                t2 = czk_time_ns();
                if (!on_fallback && e->gpu) {
                    dev->ops->info(dev, &info);
                    sampled = 1;
                }
                czk__gate_unlock(lock);
            }
            czk_memclear_explicit(&r, sizeof r);
            czk_memclear_explicit(&s, sizeof s);
        }
        uint64_t t3 = czk_time_ns();

        pthread_mutex_lock(&e->mu);
        if (scratch > 0) {
            p->reserved -= scratch;
            e->part_reserved -= scratch;
            czk__unreserve(e, scratch);
        }
        czk__vram_release(e, d, vram);
        if (sampled) {
            d->mem_free = info.mem_free;
            d->pinned_held = info.pinned_held;
        }
        e->worker_job[me][0] = '\0';
        p->queue_ns += t0 - p->t_ready_ns;
        p->lock_wait_ns = t1 - t0;
        p->kernel_ns = t2 - t1;
        p->kernel_at_ns = t1 - e->t_create_ns;
        czk__trace_attempt(e, p, me, t0, t1, t2);
        j->prove_ns += t2 - t1;
        p->prove_rc = rc;
        czk__set_msg(p->err, sizeof p->err, "%s", rc == CZK_OK ? "" : err.msg);
        /* A failed attempt counts against its device now, so that a device that faulted
         * takes no more partitions while this one waits for the finalizers. */
        if (rc != CZK_OK && rc != CZK_ECANCELED)
            czk__device_count(e, p, rc, 0);
        if (!czk__part_return(e, p))
            continue;
        p->state = P_QUEUED_FIN;
        p->t_ready_ns = t3;
        pthread_cond_signal(&e->fin_cv);
        /* The proof ran from what the device holds: the host copy may go (keys.c). */
        if (rc == CZK_OK && !czk__key_needs_host(e, c, p->on_dev))
            czk__key_drop_host(e, c);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
