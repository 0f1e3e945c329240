/*
 * The devices an engine proves on, opened once at creation: every GPU the build and the
 * machine offer (backend "auto" or "cuda"), else the CPU as the one device. On a GPU engine
 * the CPU is also the fallback device that retries run on, under its own lock. This is the
 * one place that turns a backend name into devices (the daemon, `czk prove` and the
 * benchmarks all go through an engine).
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
    pthread_mutex_init(&d->mu, NULL);
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
    e->fb_lock = &e->devs[0].mu;
    snprintf(e->backend_name, sizeof e->backend_name, "cpu");
    return CZK_OK;
}

int czk__devices_open(czk_engine *e, const char *backend, czk_err *err) {
    int ndev = strcmp(backend, "cpu") != 0 ? czk_gpu_device_count() : 0;
    char why[200] = "no CUDA device is present";
    if (ndev < 0)
        ndev = 0;
    e->devs = czk_calloc(ndev > 0 ? (size_t)ndev : 1, sizeof *e->devs);
    if (e->devs == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate the device table");
    for (int i = 0; i < ndev; i++) {
        czk_device_cuda_opts opts;
        memset(&opts, 0, sizeof opts);
        opts.vram_limit_bytes = e->cfg.vram_budget_bytes;
        opts.register_limit_bytes = e->cfg.lock_budget_bytes;
        /* The pinned budget is shared by the devices (czk_engine_create sets it aside). */
        opts.pinned_limit_bytes = e->cfg.pinned_budget_bytes / (uint64_t)ndev;
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
        if ((rc = add_device(e, dev, err)) != CZK_OK)
            return rc;
        const czk_device_info *in = &e->devs[e->n_devs - 1].info;
        czk__elog(e, CZK_LOG_INFO,
                  "device %s %s vram_total=%" PRIu64 " vram_free=%" PRIu64 " vram_budget=%" PRIu64,
                  in->label, in->name, in->mem_total, in->mem_free, in->mem_budget);
    }
    if (e->n_devs > 0) {
        czk_device *cpu = NULL;
        int rc = czk_device_cpu_open(&cpu, NULL, "cpu", err);
        if (rc == CZK_OK)
            rc = own(e, cpu, err);
        if (rc != CZK_OK)
            return rc;
        e->gpu = 1;
        e->fallback = cpu;
        czk__engine_set_lean(e);
        e->fb_lock = &e->cpu_mu;
        snprintf(e->backend_name, sizeof e->backend_name, "cuda x%u", e->n_devs);
        return CZK_OK;
    }
    if (strcmp(backend, "cuda") == 0)
        return czk_err_set(err, CZK_EINVAL, "backend \"cuda\": no usable CUDA device (%s)", why);
    if (strcmp(backend, "auto") == 0 && czk_gpu_built())
        czk__elog(e, CZK_LOG_INFO, "backend auto: %s; proving on the CPU", why);
    int rc = open_cpu(e, err);
    czk__engine_set_lean(e);
    return rc;
}

void czk__devices_close(czk_engine *e) {
    for (unsigned i = 0; i < e->n_devs; i++)
        pthread_mutex_destroy(&e->devs[i].mu);
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
