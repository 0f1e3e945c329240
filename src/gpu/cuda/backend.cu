/*
 * The czk_gpu context: device selection, the stream, counted device memory, the twiddle
 * table cache and event timing. The transforms live in ntt/ntt.cu and the MSM in
 * msm/msm.cu; src/gpu/README.md describes the stream and memory model.
 */
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include <atomic>

#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "util/alloc.h"
#include "util/status.h"

extern "C" int czk_gpu_device_count(void) {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
        (void)cudaGetLastError(); /* clear the sticky "no device" error */
        return 0;
    }
    return n;
}

extern "C" uint64_t czk_gpu_device_total_memory(int ordinal) {
    cudaDeviceProp prop;
    if (cudaGetDeviceProperties(&prop, ordinal) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return (uint64_t)prop.totalGlobalMem;
}

/* Per device ordinal: the lane contexts open on it and the lane proofs under way (internal.cuh,
 * "Giving way to the priority lane"). Process-wide: a lane and the contexts that give way to it
 * belong to different backends. Ordinals past the table never give way. */
#define CZK__GPU_ORDINALS 64
static std::atomic<int> g_lanes[CZK__GPU_ORDINALS], g_urgent[CZK__GPU_ORDINALS];

static bool ordinal_ok(int device) {
    return device >= 0 && device < CZK__GPU_ORDINALS;
}

void czk__gpu_urgent_begin(czk_gpu *g) {
    if (g->priority && ordinal_ok(g->device))
        g_urgent[g->device].fetch_add(1, std::memory_order_acq_rel);
}

void czk__gpu_urgent_end(czk_gpu *g) {
    if (g->priority && ordinal_ok(g->device))
        g_urgent[g->device].fetch_sub(1, std::memory_order_acq_rel);
}

bool czk__gpu_gives_way(const czk_gpu *g) {
    return !g->priority && ordinal_ok(g->device) &&
           g_lanes[g->device].load(std::memory_order_acquire) > 0;
}

/* The yield points' events and the second stream, made on first use. Blocking-sync events: a
 * worker that waits for its device sleeps instead of spinning on a core that synthesis needs. */
static int yield_setup(czk_gpu *g, czk_err *err) {
    int rc = CZK_OK;
    const unsigned flags = cudaEventDisableTiming | cudaEventBlockingSync;
    if (g->aux != NULL)
        return CZK_OK;
    for (int i = 0; i < 2; i++)
        if (g->ev_yield[i] == NULL)
            CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&g->ev_yield[i], flags));
    if (g->ev_fork == NULL)
        CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&g->ev_fork, flags));
    if (g->ev_join == NULL)
        CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&g->ev_join, flags));
    CZK_CUDA_TRY(err, cudaStreamCreateWithFlags(&g->aux, cudaStreamNonBlocking));
out:
    return rc;
}

int czk__gpu_yield_on(czk_gpu *g, cudaStream_t s, czk_err *err) {
    int rc = CZK_OK;
    if (!czk__gpu_gives_way(g))
        return CZK_OK;
    CZK_TRY(yield_setup(g, err));
    {
        /* The throttle: this step's end recorded, the previous step's awaited, so that at
         * most this step and the next are queued when urgent work comes. */
        const unsigned k = g->yields & 1u;
        CZK_CUDA_TRY(err, cudaEventRecord(g->ev_yield[k], s));
        if (g->yields > 0)
            CZK_CUDA_TRY(err, cudaEventSynchronize(g->ev_yield[k ^ 1u]));
        g->yields++;
    }
    if (g_urgent[g->device].load(std::memory_order_acquire) > 0) {
        CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
        CZK_CUDA_TRY(err, cudaStreamSynchronize(g->aux));
        /* The lane's proof is some 50 ms of kernels: a short sleep between looks costs it
         * nothing and this thread no core. */
        while (g_urgent[g->device].load(std::memory_order_acquire) > 0) {
            struct timespec ts = {0, 20 * 1000};
            nanosleep(&ts, NULL);
        }
    }
out:
    return rc;
}

int czk__gpu_yield(czk_gpu *g, czk_err *err) {
    return czk__gpu_yield_on(g, g->stream, err);
}

int czk__gpu_fork(czk_gpu *g, czk_err *err) {
    int rc = CZK_OK;
    CZK_TRY(yield_setup(g, err));
    CZK_CUDA_TRY(err, cudaEventRecord(g->ev_fork, g->stream));
    CZK_CUDA_TRY(err, cudaStreamWaitEvent(g->aux, g->ev_fork, 0));
out:
    return rc;
}

int czk__gpu_join(czk_gpu *g, czk_err *err) {
    int rc = CZK_OK;
    CZK_CUDA_TRY(err, cudaEventRecord(g->ev_join, g->aux));
    CZK_CUDA_TRY(err, cudaStreamWaitEvent(g->stream, g->ev_join, 0));
out:
    return rc;
}

int czk__gpu_enter(czk_gpu *g, czk_err *err) {
    int rc = CZK_OK;
    CZK_CUDA_TRY(err, cudaSetDevice(g->device));
out:
    return rc;
}

extern "C" int czk_gpu_create(czk_gpu **out, int device, czk_err *err) {
    int rc = CZK_OK;
    czk_gpu *g = NULL;
    int count = 0;
    if (out == NULL)
        return czk_err_set(err, CZK_EINVAL, "out is NULL");
    *out = NULL;
    CZK_CUDA_TRY(err, cudaGetDeviceCount(&count));
    if (device < 0 || device >= count) {
        rc = czk_err_set(err, CZK_EINVAL, "device %d out of range (%d devices)", device, count);
        goto out;
    }
    g = (czk_gpu *)czk_calloc(1, sizeof(*g));
    if (g == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "context");
        goto out;
    }
    g->device = device;
    CZK_CUDA_TRY(err, cudaSetDevice(device));
    CZK_CUDA_TRY(err, cudaDeviceGetAttribute(&g->sm_count, cudaDevAttrMultiProcessorCount, device));
    CZK_CUDA_TRY(err, cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    CZK_CUDA_TRY(err, cudaEventCreate(&g->ev_begin));
    CZK_CUDA_TRY(err, cudaEventCreate(&g->ev_end));
    *out = g;
    g = NULL;
out:
    czk_gpu_destroy(g);
    return rc;
}

int czk__gpu_stream_prioritize(czk_gpu *g, czk_err *err) {
    int rc = CZK_OK, least = 0, greatest = 0;
    cudaStream_t s = NULL;
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_CUDA_TRY(err, cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CZK_CUDA_TRY(err, cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
    CZK_CUDA_TRY(err, cudaStreamDestroy(g->stream));
    g->stream = s;
    s = NULL;
    if (!g->priority && ordinal_ok(g->device))
        g_lanes[g->device].fetch_add(1, std::memory_order_acq_rel);
    g->priority = 1;
out:
    if (s != NULL)
        (void)cudaStreamDestroy(s);
    return rc;
}

extern "C" void czk_gpu_destroy(czk_gpu *g) {
    if (g == NULL)
        return;
    (void)cudaSetDevice(g->device);
    for (unsigned i = 0; i < CZK__GPU_POW_CACHE; i++)
        czk__gpu_free(g, g->pow_cache[i].dev, CZK__GPU_POW_ENTRIES * sizeof(czk_fr));
    for (unsigned i = 0; i < CZK__GPU_FLAT_CACHE; i++)
        czk__gpu_free(g, g->flat_cache[i].dev, CZK__GPU_FLAT_ENTRIES * sizeof(czk_fr));
    if (g->priority && ordinal_ok(g->device))
        g_lanes[g->device].fetch_sub(1, std::memory_order_acq_rel);
    for (int i = 0; i < 2; i++)
        if (g->ev_yield[i])
            (void)cudaEventDestroy(g->ev_yield[i]);
    if (g->ev_fork)
        (void)cudaEventDestroy(g->ev_fork);
    if (g->ev_join)
        (void)cudaEventDestroy(g->ev_join);
    if (g->aux)
        (void)cudaStreamDestroy(g->aux);
    if (g->ev_begin)
        (void)cudaEventDestroy(g->ev_begin);
    if (g->ev_end)
        (void)cudaEventDestroy(g->ev_end);
    if (g->stream)
        (void)cudaStreamDestroy(g->stream);
    czk_free(g);
}

extern "C" void czk_gpu_describe(const czk_gpu *g, char *buf, size_t len) {
    cudaDeviceProp prop;
    if (len == 0)
        return;
    if (cudaGetDeviceProperties(&prop, g->device) != cudaSuccess) {
        snprintf(buf, len, "CUDA device %d (properties unavailable)", g->device);
        return;
    }
    snprintf(buf, len, "%s, %d SMs, cc %d.%d, %.1f GiB, L2 %d MiB", prop.name,
             prop.multiProcessorCount, prop.major, prop.minor,
             (double)prop.totalGlobalMem / (1024.0 * 1024.0 * 1024.0), prop.l2CacheSize >> 20);
}

extern "C" size_t czk_gpu_mem_in_use(const czk_gpu *g) {
    return g->mem_in_use;
}

extern "C" size_t czk_gpu_mem_peak(const czk_gpu *g) {
    return g->mem_peak;
}

extern "C" int czk_gpu_mem_info(czk_gpu *g, size_t *free_bytes, size_t *total_bytes, czk_err *err) {
    int rc = CZK_OK;
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_CUDA_TRY(err, cudaMemGetInfo(free_bytes, total_bytes));
out:
    return rc;
}

int czk__gpu_malloc(czk_gpu *g, void **p, size_t bytes, czk_err *err) {
    cudaError_t e;
    *p = NULL;
    if (bytes == 0)
        return czk_err_set(err, CZK_EINVAL, "device allocation of 0 bytes");
    e = cudaMalloc(p, bytes);
    if (e != cudaSuccess) {
        *p = NULL;
        (void)cudaGetLastError();
        return czk_err_set(err, e == cudaErrorMemoryAllocation ? CZK_ENOMEM : CZK_ECUDA,
                           "cudaMalloc(%zu bytes; %zu held by this context): %s", bytes,
                           g->mem_in_use, cudaGetErrorString(e));
    }
    g->mem_in_use += bytes;
    if (g->mem_in_use > g->mem_peak)
        g->mem_peak = g->mem_in_use;
    return CZK_OK;
}

void czk__gpu_free(czk_gpu *g, void *p, size_t bytes) {
    if (p == NULL)
        return;
    (void)cudaFree(p);
    g->mem_in_use -= bytes;
}

extern "C" int czk_gpu_alloc(czk_gpu *g, void **dptr, size_t bytes, czk_err *err) {
    int rc = CZK_OK;
    if (g == NULL || dptr == NULL)
        return czk_err_set(err, CZK_EINVAL, "NULL argument");
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_TRY(czk__gpu_malloc(g, dptr, bytes, err));
out:
    return rc;
}

extern "C" void czk_gpu_free(czk_gpu *g, void *dptr, size_t bytes) {
    if (g == NULL || dptr == NULL)
        return;
    (void)cudaSetDevice(g->device);
    czk__gpu_free(g, dptr, bytes);
}

extern "C" int czk_gpu_upload(czk_gpu *g, void *dst_dev, const void *src_host, size_t bytes,
                              czk_err *err) {
    int rc = CZK_OK;
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_CUDA_TRY(err, cudaMemcpyAsync(dst_dev, src_host, bytes, cudaMemcpyHostToDevice, g->stream));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
out:
    return rc;
}

extern "C" int czk_gpu_download(czk_gpu *g, void *dst_host, const void *src_dev, size_t bytes,
                                czk_err *err) {
    int rc = CZK_OK;
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_CUDA_TRY(err, cudaMemcpyAsync(dst_host, src_dev, bytes, cudaMemcpyDeviceToHost, g->stream));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
out:
    return rc;
}

extern "C" int czk_gpu_timer_start(czk_gpu *g, czk_err *err) {
    int rc = CZK_OK;
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_CUDA_TRY(err, cudaEventRecord(g->ev_begin, g->stream));
out:
    return rc;
}

extern "C" int czk_gpu_timer_stop(czk_gpu *g, double *ms, czk_err *err) {
    int rc = CZK_OK;
    float f = 0;
    CZK_TRY(czk__gpu_enter(g, err));
    CZK_CUDA_TRY(err, cudaEventRecord(g->ev_end, g->stream));
    CZK_CUDA_TRY(err, cudaEventSynchronize(g->ev_end));
    CZK_CUDA_TRY(err, cudaEventElapsedTime(&f, g->ev_begin, g->ev_end));
    *ms = f;
out:
    return rc;
}

/* A power table from `cache` (count entries of `entries` Fr each): flat (one level of
 * c·base^j) or two levels of CZK__GPU_POW_LEVEL (czk__gpu_pow_table). */
static int pow_table_in(czk_gpu *g, czk__gpu_pow_entry *cache, unsigned count, size_t entries,
                        bool flat, const void **table, const czk_fr *base, const czk_fr *c,
                        czk_err *err) {
    int rc = CZK_OK;
    czk_fr *host = NULL;
    czk__gpu_pow_entry *e;
    czk_fr step;
    *table = NULL;
    for (unsigned i = 0; i < count; i++) {
        e = &cache[i];
        if (e->dev != NULL && czk_fr_equal(&e->base, base) && czk_fr_equal(&e->c, c)) {
            e->last_use = ++g->pow_clock;
            *table = e->dev;
            return CZK_OK;
        }
    }
    host = (czk_fr *)czk_malloc(entries * sizeof(czk_fr));
    if (host == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "power table of %zu entries", entries);
        goto out;
    }
    if (flat) {
        host[0] = *c;
        for (size_t j = 1; j < entries; j++)
            czk_fr_mul(&host[j], &host[j - 1], base);
    } else {
        /*
         * Level l holds step_l^j for j < CZK__GPU_POW_LEVEL with step_l = base^(LEVEL^l);
         * level 0 times c.
         */
        step = *base;
        for (unsigned l = 0; l < entries / CZK__GPU_POW_LEVEL; l++) {
            czk_fr *t = host + l * CZK__GPU_POW_LEVEL;
            t[0] = l == 0 ? *c : CZK_FR_ONE;
            for (unsigned j = 1; j < CZK__GPU_POW_LEVEL; j++)
                czk_fr_mul(&t[j], &t[j - 1], &step);
            for (unsigned j = 1; j < CZK__GPU_POW_LEVEL; j <<= 1)
                czk_fr_sqr(&step, &step);
        }
    }
    /*
     * Replace the least recently used entry. A transform asks for up to five tables and
     * launches its kernels after the last lookup, so the tables of the current call must not
     * be replaced by its own later lookups: round-robin replacement did exactly that (a hit
     * in slot k, then two misses wrapping onto slot k), and an H200 run showed wrong
     * transforms. With LRU and more entries than a call asks for (of each kind), the current
     * call's tables are the most recent and survive.
     */
    e = &cache[0];
    for (unsigned i = 1; i < count && e->dev != NULL; i++) {
        czk__gpu_pow_entry *f = &cache[i];
        if (f->dev == NULL || f->last_use < e->last_use)
            e = f;
    }
    e->last_use = ++g->pow_clock;
    if (e->dev == NULL)
        CZK_TRY(czk__gpu_malloc(g, &e->dev, entries * sizeof(czk_fr), err));
    e->base = CZK_FR_ZERO; /* invalid until the upload has finished */
    e->c = CZK_FR_ZERO;
    CZK_CUDA_TRY(err, cudaMemcpyAsync(e->dev, host, entries * sizeof(czk_fr),
                                      cudaMemcpyHostToDevice, g->stream));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    e->base = *base;
    e->c = *c;
    *table = e->dev;
out:
    czk_free(host);
    return rc;
}

int czk__gpu_pow_table(czk_gpu *g, const void **table, const czk_fr *base, const czk_fr *c,
                       czk_err *err) {
    return pow_table_in(g, g->pow_cache, CZK__GPU_POW_CACHE, CZK__GPU_POW_ENTRIES, false, table,
                        base, c, err);
}

int czk__gpu_pow_table_flat(czk_gpu *g, const void **table, const czk_fr *base, const czk_fr *c,
                            czk_err *err) {
    return pow_table_in(g, g->flat_cache, CZK__GPU_FLAT_CACHE, CZK__GPU_FLAT_ENTRIES, true, table,
                        base, c, err);
}
