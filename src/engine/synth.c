/*
 * The synthesis pool: synth_threads threads that pick the best queued partition, make sure
 * its key is loaded (loading it themselves if not), reserve the partition's working set from
 * the host budget, and have the circuit's kind write its witness into memory the engine
 * gives (page-locked staging of the partition's device where there is some), or borrow the
 * kind's shared witness. On a GPU engine the witness is then readied for the device outside
 * every lock: packed when the device moves packs, or in staging memory.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/timer.h"

/* The device whose staging memory holds p's witness (workers of any device may pick p, but
 * staging comes from one: spread by index over the devices in service; never a priority lane,
 * which keeps none: its GPU's main device stages for it, in memory both can read). */
static czk_device *part_device(const czk_engine *e, const part *p) {
    const unsigned n = e->n_devs;
    for (unsigned k = 0, i = p->idx % n; k < n; k++, i = (i + 1) % n)
        if (!__atomic_load_n(&e->devs[i].down, __ATOMIC_RELAXED) && e->devs[i].lane_of < 0)
            return e->devs[i].dev;
    return e->devs[p->idx % n].dev;
}

/* Staging memory for p's witness from its device when the device has page-locked staging,
 * or NULL (CPU engine, or the staging budget is spent). Sets p->w_dev when it gives some. */
static czk_fr *pinned_witness(czk_engine *e, part *p, size_t bytes) {
    czk_device *d = part_device(e, p);
    if (!(d->flags & CZK_DEVICE_PINNED) || d->ops->host_alloc == NULL || d->ops->host_free == NULL)
        return NULL;
    czk_fr *pw = d->ops->host_alloc(d, bytes);
    if (pw != NULL)
        p->w_dev = d;
    return pw;
}

/* p's device when it moves witness packs and has staging memory to hold them; else NULL. */
static czk_device *pack_device(const czk_engine *e, const part *p) {
    czk_device *d = part_device(e, p);
    if (!(d->flags & CZK_DEVICE_WITNESS_PACK) || d->ops->host_alloc == NULL ||
        d->ops->host_free == NULL)
        return NULL;
    return d;
}

/*
 * Packs p's witness into staging memory when its device moves packs and the pack is at most a
 * quarter of the witness (a bit-heavy circuit: a PoRep partition's is ~1/30). Returns whether
 * it did; otherwise nothing is kept.
 */
static int stage_pack(czk_engine *e, part *p) {
    czk_device *d = pack_device(e, p);
    circuit *c = p->job->c;
    const size_t n = c->cs.n_vars;
    if (d == NULL || n == 0 || __atomic_load_n(&c->no_pack, __ATOMIC_RELAXED))
        return 0;
    int rc = czk_witness_pack_build(&p->wp, &p->wp_mem, p->w, n, n * sizeof(czk_fr) / 4,
                                    czk__dev_alloc, czk__dev_free, d, czk__job_pool(e, p->job));
    if (rc == CZK_EUNSUPPORTED)
        __atomic_store_n(&c->no_pack, 1, __ATOMIC_RELAXED);
    if (rc != CZK_OK)
        return 0;
    p->wp_dev = d;
    return 1;
}

/*
 * Readies p's witness for its device: packed (stage_pack) when the device moves packs, the
 * witness itself left where it is for any CPU attempt and the verifier; or else moved into
 * staging memory, so that the upload inside the kernel region runs at the bus's speed. Keeps
 * the pageable witness when the staging budget is spent, and does nothing more when the
 * witness is in staging memory already. Called without e->mu; the device table is constant.
 */
static void stage(czk_engine *e, part *p) {
    if (p->w == NULL || stage_pack(e, p) || p->w_dev != NULL)
        return;
    size_t bytes = p->job->c->cs.n_vars * sizeof(czk_fr);
    czk_fr *pw = pinned_witness(e, p, bytes);
    if (pw == NULL)
        return;
    memcpy(pw, p->w, bytes);
    if (!p->w_borrowed) {
        czk_memclear_explicit(p->w, bytes);
        czk_free(p->w);
    }
    p->w = pw;
    p->w_borrowed = 0;
}

static int synthesize(czk_engine *e, part *p, czk_err *err) {
    job *j = p->job;
    circuit *c = j->c;
    const size_t bytes = c->cs.n_vars * sizeof(czk_fr);
    const czk_fr *shared = c->kind->shared_witness != NULL
                               ? c->kind->shared_witness(c->kstate, j->kjob, p->idx)
                               : NULL;
    if (shared != NULL) {
        /* The kind's own witness: no synthesis at all. A device that takes packs gets one
         * made from it in place (stage), which any CPU attempt then reads in place too: no
         * copy (at 2^26, eight threads copying 2.1 GB witnesses into fresh pages could not
         * feed two H200s, BENCHMARKS.md run 38). Otherwise it is copied, straight into
         * staging memory when there is some. */
        if (pack_device(e, p) != NULL) {
            p->w = (czk_fr *)shared;
            p->w_borrowed = 1;
            return CZK_OK;
        }
        p->w = pinned_witness(e, p, bytes);
        if (p->w == NULL)
            p->w = czk_malloc(bytes);
        if (p->w == NULL)
            return czk_err_set(err, CZK_ENOMEM, "partition %u witness (%zu bytes)", p->idx, bytes);
        memcpy(p->w, shared, bytes);
        return CZK_OK;
    }
    /* A device that takes packs stages the pack, not the witness: the witness stays in
     * pageable memory for CPU attempts and the verifier. Unless the circuit's witnesses do not
     * pack (a PoSt partition's are Poseidon states, not bits): then straight into staging
     * memory, which saves a pass to classify and a copy (4 GB at 32 GiB WindowPoSt).
     * Witnesses that pack are not put in staging memory to save their first touch: with the
     * partitions that freed (the pinned set-aside carrying them) a 128 GiB host ran out of
     * memory (BENCHMARKS.md run 86). */
    if (pack_device(e, p) == NULL || __atomic_load_n(&c->no_pack, __ATOMIC_RELAXED))
        p->w = pinned_witness(e, p, bytes);
    if (p->w == NULL)
        p->w = czk_malloc(bytes);
    if (p->w == NULL)
        return czk_err_set(err, CZK_ENOMEM, "partition %u witness (%zu bytes)", p->idx, bytes);
    return c->kind->synthesize(c->kstate, j->kjob, p->idx, &c->cs, p->w, czk__job_pool(e, j), err);
}

static int any_loading(czk_engine *e);

/* Whose keys j's reservations may evict (czk__reserve): j's priority's, or any idle key when
 * nothing in flight will give memory back (else a job could wait for ever). */
static int evict_prio(czk_engine *e, const job *j) {
    return e->part_reserved > 0 || any_loading(e) ? j->prio : CZK_PRIORITY_CRITICAL;
}

/* Starts synthesis of p on synthesis thread `me` if its working set can be reserved: 1 started
 * (e->mu is then released and re-taken around the work), 0 no memory now. */
static int synth_try(czk_engine *e, part *p, unsigned me) {
    job *j = p->job;
    circuit *c = j->c;
    uint64_t need = czk__part_need(e, c), room = czk__scratch_headroom(e);
    /* Below HIGH, while partitions in flight will give memory back, leave room for an urgent
     * one too (a WinningPoSt's). */
    if (j->prio < CZK_PRIORITY_HIGH && e->part_reserved > 0)
        room += czk__urgent_room(e);
    /* Evict idle keys until need and the headroom fit; keep only need reserved. */
    if (!czk__reserve(e, need + room, evict_prio(e, j)))
        return 0;
    czk__unreserve(e, room);
    p->reserved = need;
    e->part_reserved += p->reserved;
    p->state = P_SYNTH;
    j->inflight++;
    uint64_t t0 = czk_time_ns();
    p->queue_ns = t0 - p->t_ready_ns;
    if (j->status == CZK_JOB_PENDING) {
        j->status = CZK_JOB_RUNNING;
        j->t_start_ns = t0;
    }
    pthread_mutex_unlock(&e->mu);

    czk_err err = {0};
    int rc = synthesize(e, p, &err);
    if (rc == CZK_OK)
        stage(e, p);
    uint64_t t1 = czk_time_ns();

    pthread_mutex_lock(&e->mu);
    p->synth_ns = t1 - t0;
    czk__trace_synth(e, p, me, t0, t1);
    j->synth_ns += p->synth_ns;
    if (!czk__part_return(e, p))
        return 1;
    if (rc != CZK_OK) {
        e->n_parts_failed++;
        czk__part_hold(j);
        czk__job_finish(e, j, CZK_JOB_FAILED, "partition %u: synthesis failed: %s", p->idx,
                        err.msg);
        czk__part_release(e, j, p);
        return 1;
    }
    p->state = P_QUEUED_PROVE;
    p->t_ready_ns = t1;
    pthread_cond_broadcast(&e->prove_cv); /* workers pick by device: wake them all */
    return 1;
}

/* Nothing in flight will release memory: the best queued partition of a loaded circuit that
 * fits now, or NULL. */
static part *pick_fitting(czk_engine *e) {
    part *best = NULL;
    const uint64_t room = czk__scratch_headroom(e); /* the same for every job */
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (czk__job_final(j) || j->c->state != C_HOT ||
            e->budget - e->reserved < czk__part_need(e, j->c) + room ||
            (best != NULL && j->prio <= best->job->prio))
            continue;
        for (size_t i = 0; i < j->n_parts; i++) {
            if (j->parts[i].state == P_QUEUED_SYNTH) {
                best = &j->parts[i];
                break;
            }
        }
    }
    return best;
}

static int any_loading(czk_engine *e) {
    for (circuit *c = e->circuits; c != NULL; c = c->next) {
        if (c->state == C_LOADING)
            return 1;
    }
    return 0;
}

/*
 * The best partition cannot get memory. Normally it waits (head of line: lower-priority
 * partitions do not take the memory it waits for). When nothing in flight will release any
 * (no partition holds a reservation, no key is loading), the memory is held by keys that
 * queued jobs pin; a partition of such a key that fits runs instead, and if there is none
 * the job cannot run at all and fails rather than hang.
 */
static void synth_starved(czk_engine *e, part *p, const char *what, unsigned me) {
    if (e->part_reserved > 0 || any_loading(e)) {
        pthread_cond_wait(&e->synth_cv, &e->mu);
        return;
    }
    part *alt = pick_fitting(e);
    if (alt != NULL && synth_try(e, alt, me))
        return;
    czk__job_finish(e, p->job, CZK_JOB_FAILED,
                    "%s: %" PRIu64 " of the %" PRIu64 " budget bytes are held by keys of other "
                    "queued jobs and nothing else can run",
                    what, e->reserved, e->budget);
}

void *czk__synth_main(void *arg) {
    czk__worker_arg *sa = arg;
    czk_engine *e = sa->e;
    const int min_prio = sa->min_prio;
    const unsigned me = sa->index;
    czk_free(sa);
    pthread_mutex_lock(&e->mu);
    while (!e->quit) {
        part *p = czk__pick(e, P_QUEUED_SYNTH, 1, min_prio);
        if (p == NULL) {
            pthread_cond_wait(&e->synth_cv, &e->mu);
            continue;
        }
        job *j = p->job;
        circuit *c = j->c;
        if (c->state != C_HOT || c->placing) {
            czk_err err = {0};
            uint64_t t0 = czk_time_ns();
            int rc = czk__ensure_loaded(e, c, evict_prio(e, j), NULL, &err);
            uint64_t ms = CZK__MS(czk_time_ns() - t0);
            if (rc == CZK_ENOMEM && c->est_bytes <= e->budget) {
                synth_starved(e, p, err.msg, me);
                continue;
            }
            if (rc != CZK_OK) {
                for (job *o = e->jobs; o != NULL; o = o->next) {
                    if (o->c == c && !czk__job_final(o))
                        czk__job_finish(e, o, CZK_JOB_FAILED, "loading circuit %s: %s", c->id,
                                        err.msg);
                }
                continue;
            }
            for (job *o = e->jobs; o != NULL; o = o->next) {
                if (o->c == c && !czk__job_final(o) && o->status == CZK_JOB_PENDING)
                    o->srs_load_ms += ms;
            }
            continue; /* re-pick: the queue may have changed while loading */
        }
        if (c->bytes + czk__part_floor(e, c) > e->budget) {
            czk__job_finish(e, j, CZK_JOB_FAILED,
                            "circuit %s: one partition needs %" PRIu64
                            " bytes besides the key's %" PRIu64
                            ", more than the host budget of %" PRIu64,
                            c->id, czk__part_floor(e, c), c->bytes, e->budget);
            continue;
        }
        if (!synth_try(e, p, me)) {
            char what[200];
            snprintf(what, sizeof what, "partition %u of circuit %s needs %" PRIu64 " bytes",
                     p->idx, c->id, czk__part_need(e, c));
            synth_starved(e, p, what, me);
        }
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
