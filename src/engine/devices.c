/*
 * The devices an engine proves on, opened once at creation: every GPU the build and the
 * machine offer (backend "auto" or "cuda"; those of gpu_ordinals when it lists some), else
 * the CPU as the one device. On a GPU engine the CPU is also the fallback device, under its
 * own lock, for partitions no GPU may take any more. This is the one place that turns a
 * backend name into devices (the daemon, `czk prove` and the benchmarks all go through an
 * engine), and the one that decides where a partition's next attempt may run and when a
 * device is taken out of service (doc/DESIGN.md §4, retries and device faults).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "gpu/device.h"
#include "util/alloc.h"

/* Every device the engine opens is kept here and closed at the end (the test hook replaces
 * devices while workers may still hold the old one). */
static int own(czk_engine *e, czk_device *d, czk_err *err) {
    czk_device **n = czk_malloc((e->n_owned + 1) * sizeof *n);
    if (n == NULL) {
        czk_device_close(d);
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate the device table");
    }
    if (e->n_owned > 0)
        memcpy(n, e->owned_devs, e->n_owned * sizeof *n);
    czk_free(e->owned_devs);
    e->owned_devs = n;
    e->owned_devs[e->n_owned++] = d;
    return CZK_OK;
}

static int add_device(czk_engine *e, czk_device *dev, czk_err *err) {
    int rc = own(e, dev, err);
    if (rc != CZK_OK)
        return rc;
    edevice *d = &e->devs[e->n_devs];
    memset(d, 0, sizeof *d);
    d->dev = dev;
    dev->ops->info(dev, &d->info);
    d->mem_free = d->info.mem_free;
    d->pinned_held = d->info.pinned_held;
    czk__gate_init(&d->gate);
    d->lane_of = d->lane = -1;
    e->n_devs++;
    return CZK_OK;
}

/* The CPU as the engine's one device. */
static int open_cpu(czk_engine *e, czk_err *err) {
    char name[128];
    snprintf(name, sizeof name, "cpu (%u prover threads)", e->cfg.prove_threads);
    czk_device *dev = NULL;
    int rc = czk_device_cpu_open(&dev, NULL, name, err);
    if (rc == CZK_OK)
        rc = add_device(e, dev, err);
    if (rc != CZK_OK)
        return rc;
    e->fallback = dev;
    e->fb_lock = &e->devs[0].gate;
    snprintf(e->backend_name, sizeof e->backend_name, "cpu");
    return CZK_OK;
}

int czk__devices_select(const unsigned *want, size_t n_want, int present, unsigned *out,
                        size_t *n_out, czk_err *err) {
    *n_out = 0;
    if (want == NULL) {
        for (int i = 0; i < present; i++)
            out[(*n_out)++] = (unsigned)i;
        return CZK_OK;
    }
    for (size_t i = 0; i < n_want; i++) {
        if ((int64_t)want[i] >= present)
            return czk_err_set(err, CZK_EINVAL,
                               "CUDA device %u is listed, but %d CUDA device%s present", want[i],
                               present, present == 1 ? " is" : "s are");
        for (size_t k = 0; k < i; k++)
            if (want[k] == want[i])
                return czk_err_set(err, CZK_EINVAL, "CUDA device %u is listed twice", want[i]);
        out[(*n_out)++] = want[i];
    }
    return CZK_OK;
}

/* The bytes of GPU `ordinal` for its priority lane: the configured figure, or by default
 * 2 GiB on a GPU of 40 GB or more (a 32 or 64 GiB WinningPoSt's key and rows take 0.3 GB,
 * its arena less), none on smaller cards, where every byte goes to the main device. */
static uint64_t lane_bytes(const czk_engine *e, int ordinal) {
    const uint64_t want = e->cfg.priority_lane_bytes;
    if (want == 1)
        return 0;
    if (want != 0)
        return want;
    return czk_gpu_device_total_memory(ordinal) >= 40000000000ull ? 2ull << 30 : 0;
}

/* Opens GPU `ordinal`'s priority lane (its main device was added last) with `bytes` of device
 * memory. A lane that cannot open leaves the GPU without one, with a warning. */
static int open_lane(czk_engine *e, int ordinal, uint64_t bytes, czk_err *err) {
    czk_device_cuda_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.vram_limit_bytes = bytes;
    opts.register_limit_bytes = UINT64_MAX; /* its keys are small: nothing to stream */
    opts.pinned_limit_bytes = 1;            /* its witnesses are staged by the main device */
    opts.priority_lane = 1;
    czk_err gerr = {0};
    czk_device *dev = NULL;
    int rc = czk_device_cuda_open(&dev, ordinal, &opts, &gerr);
    if (rc != CZK_OK) {
        czk__elog(e, CZK_LOG_WARN, "device cuda:%d: no priority lane: %s", ordinal, gerr.msg);
        return CZK_OK;
    }
    if ((rc = add_device(e, dev, err)) != CZK_OK)
        return rc;
    czk__devices_make_lane(e, e->n_devs - 2, e->n_devs - 1);
    czk__elog(e, CZK_LOG_INFO, "device %s priority lane vram_budget=%" PRIu64,
              e->devs[e->n_devs - 1].info.label, e->devs[e->n_devs - 1].info.mem_budget);
    return CZK_OK;
}

int czk__devices_make_lane(czk_engine *e, unsigned main, unsigned lane) {
    if (main >= e->n_devs || lane >= e->n_devs || main == lane || e->devs[main].lane_of >= 0 ||
        e->devs[lane].lane >= 0 || e->devs[lane].lane_of >= 0)
        return CZK_EINVAL;
    e->devs[main].lane = (int)lane;
    e->devs[lane].lane_of = (int)main;
    return CZK_OK;
}

unsigned czk__device_workers(const czk_engine *e, unsigned di) {
    return e->devs[di].lane_of >= 0 ? 1 : e->cfg.workers_per_device;
}

unsigned czk__worker_device(const czk_engine *e, unsigned index) {
    for (unsigned di = 0; di < e->n_devs; di++) {
        const unsigned n = czk__device_workers(e, di);
        if (index < n)
            return di;
        index -= n;
    }
    return 0;
}

int czk__lane_takes(const czk_engine *e, unsigned di, const part *p) {
    const edevice *d = &e->devs[di];
    return d->lane_of >= 0 && p->job->prio >= CZK_PRIORITY_CRITICAL && !d->down &&
           !((p->failed_devs >> di) & 1) && czk__lane_fits(d, p->job->c->dev_bytes);
}

/* The CPU as the fallback of an engine whose devices are GPUs (or stand in for them). */
static int open_fallback(czk_engine *e, czk_err *err) {
    czk_device *cpu = NULL;
    int rc = czk_device_cpu_open(&cpu, NULL, "cpu", err);
    if (rc == CZK_OK)
        rc = own(e, cpu, err);
    if (rc != CZK_OK)
        return rc;
    e->gpu = 1;
    e->fallback = cpu;
    czk__engine_set_lean(e);
    e->fb_lock = &e->cpu_gate;
    return CZK_OK;
}

int czk__devices_open(czk_engine *e, const char *backend, const unsigned *ordinals,
                      size_t n_ordinals, czk_err *err) {
    int ndev = strcmp(backend, "cpu") != 0 ? czk_gpu_device_count() : 0;
    char why[200] = "no CUDA device is present";
    if (ndev < 0)
        ndev = 0;
    const size_t room = ndev > 0 ? 2 * (size_t)ndev : 1; /* a lane beside each GPU */
    unsigned *sel = czk_calloc(room + n_ordinals, sizeof *sel);
    e->devs = czk_calloc(room, sizeof *e->devs);
    if (e->devs == NULL || sel == NULL) {
        czk_free(sel);
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate the device table");
    }
    size_t nsel = 0;
    if (strcmp(backend, "cpu") != 0) {
        int rc = czk__devices_select(ordinals, n_ordinals, ndev, sel, &nsel, err);
        if (rc != CZK_OK) {
            czk_free(sel);
            return rc;
        }
    }
    for (size_t k = 0; k < nsel; k++) {
        const int i = (int)sel[k];
        const uint64_t lane = lane_bytes(e, i);
        czk_device_cuda_opts opts;
        memset(&opts, 0, sizeof opts);
        opts.vram_limit_bytes = e->cfg.vram_budget_bytes;
        opts.vram_reserve_bytes = lane;
        opts.register_limit_bytes = e->cfg.lock_budget_bytes;
        /* The pinned budget is shared by the devices (czk_engine_create sets it aside). */
        opts.pinned_limit_bytes = e->cfg.pinned_budget_bytes / (uint64_t)nsel;
        if (opts.pinned_limit_bytes == 0)
            opts.pinned_limit_bytes = 1; /* 0 would mean the device's own default */
        czk_err gerr = {0};
        czk_device *dev = NULL;
        int rc = czk_device_cuda_open(&dev, i, &opts, &gerr);
        if (rc != CZK_OK) {
            snprintf(why, sizeof why, "cuda:%d: %.180s", i, gerr.msg);
            czk__elog(e, CZK_LOG_WARN, "device cuda:%d unavailable: %s", i, gerr.msg);
            continue;
        }
        if ((rc = add_device(e, dev, err)) != CZK_OK) {
            czk_free(sel);
            return rc;
        }
        const czk_device_info *in = &e->devs[e->n_devs - 1].info;
        czk__elog(e, CZK_LOG_INFO,
                  "device %s %s vram_total=%" PRIu64 " vram_free=%" PRIu64 " vram_budget=%" PRIu64,
                  in->label, in->name, in->mem_total, in->mem_free, in->mem_budget);
        if (lane > 0 && (rc = open_lane(e, i, lane, err)) != CZK_OK) {
            czk_free(sel);
            return rc;
        }
    }
    czk_free(sel);
    if (e->n_devs > 0) {
        int rc = open_fallback(e, err);
        snprintf(e->backend_name, sizeof e->backend_name, "cuda x%u", e->n_devs);
        return rc;
    }
    if (strcmp(backend, "cuda") == 0)
        return czk_err_set(err, CZK_EINVAL, "backend \"cuda\": no usable CUDA device (%s)", why);
    if (strcmp(backend, "auto") == 0 && czk_gpu_built())
        czk__elog(e, CZK_LOG_INFO, "backend auto: %s; proving on the CPU", why);
    int rc = open_cpu(e, err);
    czk__engine_set_lean(e);
    return rc;
}

int czk__devices_adopt(czk_engine *e, czk_device **devs, unsigned n, czk_err *err) {
    int rc = CZK_OK;
    e->devs = czk_calloc(n > 0 ? n : 1, sizeof *e->devs);
    if (e->devs == NULL)
        rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate the device table");
    else if (n == 0 || n > 64)
        rc = czk_err_set(err, CZK_EINVAL, "%u devices (1 to 64)", n);
    unsigned i = 0;
    for (; i < n && rc == CZK_OK; i++)
        rc = add_device(e, devs[i], err); /* closes devs[i] itself on failure */
    for (; i < n; i++)
        czk_device_close(devs[i]);
    if (rc != CZK_OK)
        return rc;
    /* A device labelled as CUDA labels a lane ("…/lane") is the lane of the one before it. */
    for (unsigned k = 1; k < e->n_devs && rc == CZK_OK; k++) {
        const char *l = e->devs[k].info.label;
        const size_t len = strlen(l);
        if (len > 5 && strcmp(l + len - 5, "/lane") == 0 &&
            czk__devices_make_lane(e, k - 1, k) != CZK_OK)
            rc = czk_err_set(err, CZK_EINVAL, "device %s cannot be a lane of %s", l,
                             e->devs[k - 1].info.label);
    }
    if (rc != CZK_OK)
        return rc;
    rc = open_fallback(e, err);
    snprintf(e->backend_name, sizeof e->backend_name, "test x%u", e->n_devs);
    return rc;
}

int czk__part_fits_device(const czk_engine *e, const part *p, int di) {
    if (di >= 0 && e->devs[di].lane_of >= 0)
        return czk__lane_takes(e, (unsigned)di, p);
    if (di >= 0)
        return !e->devs[di].down && !((p->failed_devs >> di) & 1);
    /* The fallback proves on the host, where such a circuit keeps no rows. */
    if (p->job->c->device_rows)
        return 0;
    for (unsigned k = 0; k < e->n_devs; k++)
        if (czk__part_fits_device(e, p, (int)k))
            return 0; /* a device can still take it: not the fallback's yet */
    return !p->fb_failed;
}

int czk__part_can_retry(const czk_engine *e, const part *p) {
    for (unsigned k = 0; k < e->n_devs; k++)
        if (czk__part_fits_device(e, p, (int)k))
            return 1;
    /* Exactly what a worker will take (pick_for), so that a retry is never left queued. */
    return czk__part_fits_device(e, p, -1);
}

void czk__device_count(czk_engine *e, part *p, int rc, int final) {
    if (p->on_dev < 0) {
        if (rc != CZK_OK && !final)
            p->fb_failed = 1;
        return;
    }
    edevice *d = &e->devs[p->on_dev];
    if (rc == CZK_OK) {
        d->n_proved++;
        d->faults_in_row = 0;
        return;
    }
    if (final)
        return; /* the input's fault, not the device's */
    d->n_failed++;
    p->failed_devs |= 1ull << p->on_dev;
    /* Only a fault of the device counts against it: an error of its own (CZK_ECUDA) or a
     * proof that does not verify. Memory it cannot give this circuit, or a circuit it cannot
     * take, sends the partition elsewhere but leaves the device in service for others. */
    if (rc != CZK_ECUDA && rc != CZK_EVERIFY)
        return;
    d->faults_in_row++;
    /* The CPU engine's one device stays: its retries run on the fallback anyway. */
    if (!e->gpu || d->down || (rc != CZK_ECUDA && d->faults_in_row < CZK__DEVICE_MAX_FAULTS))
        return;
    __atomic_store_n(&d->down, 1, __ATOMIC_RELAXED); /* synthesis reads it without e->mu */
    czk__set_msg(d->down_why, sizeof d->down_why, "%s (partition %u of job %s)", p->err, p->idx,
                 p->job->id);
    /* A GPU's main device and its lane are one card: a fault of either takes both. */
    const int twin = d->lane >= 0 ? d->lane : d->lane_of;
    if (twin >= 0 && !e->devs[twin].down) {
        __atomic_store_n(&e->devs[twin].down, 1, __ATOMIC_RELAXED);
        czk__set_msg(e->devs[twin].down_why, sizeof e->devs[twin].down_why, "%s: %s", d->info.label,
                     d->down_why);
    }
    czk__elog(e, CZK_LOG_WARN,
              "device %s out of service after %u failed attempt%s in a row: %s; its partitions "
              "go to the other devices%s",
              d->info.label, d->faults_in_row, d->faults_in_row == 1 ? "" : "s", d->down_why,
              e->n_devs > 1 ? ", else the CPU" : ", the CPU");
    pthread_cond_broadcast(&e->prove_cv);
}

void czk__devices_close(czk_engine *e) {
    for (unsigned i = 0; i < e->n_devs; i++)
        czk__gate_destroy(&e->devs[i].gate);
    czk_free(e->devs);
    e->devs = NULL;
    e->n_devs = 0;
    for (size_t i = 0; i < e->n_owned; i++)
        czk_device_close(e->owned_devs[i]);
    czk_free(e->owned_devs);
    e->owned_devs = NULL;
    e->n_owned = 0;
}

int czk__engine_set_backends(czk_engine *e, const czk_backend *primary,
                             const czk_backend *fallback) {
    int rc = CZK_OK;
    czk_device *p = NULL, *f = NULL;
    pthread_mutex_lock(&e->mu);
    if (e->gpu) {
        rc = CZK_EINVAL;
        goto out;
    }
    if (primary != NULL) {
        rc = czk_device_cpu_open(&p, primary, e->devs[0].info.name, NULL);
        if (rc == CZK_OK)
            rc = own(e, p, NULL);
        if (rc != CZK_OK)
            goto out;
    }
    if (fallback != NULL) {
        rc = czk_device_cpu_open(&f, fallback, "cpu", NULL);
        if (rc == CZK_OK)
            rc = own(e, f, NULL);
        if (rc != CZK_OK)
            goto out;
    }
    /* The CPU engine's one device was primary and fallback at once. */
    if (f == NULL)
        f = e->devs[0].dev;
    if (p != NULL) {
        e->devs[0].dev = p;
        p->ops->info(p, &e->devs[0].info);
    }
    e->fallback = f;
    czk__engine_set_lean(e);
out:
    pthread_mutex_unlock(&e->mu);
    return rc;
}
