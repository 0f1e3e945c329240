/*
 * DESIGN: the pool keeps its threads parked on a condition variable. czk_pool_run publishes a
 * loop (fn, arg, n, chunk) under `mu` with a new generation number and wakes everyone; each
 * thread, the caller included, claims chunks from an atomic counter until none are left, and
 * the last thread to finish a chunk signals `finished`. The caller returns only when every
 * chunk is done AND every helper has left the loop (`active` = 0), so the next loop never
 * races with a straggler of the previous one. Claiming through one atomic keeps uneven
 * chunks (sparse rows, MSM windows) balanced without a queue.
 */
#include "util/pool.h"

#include "util/alloc.h"
#include "util/status.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <unistd.h>

struct czk_pool {
    pthread_mutex_t mu;      /* guards everything below that is not atomic */
    pthread_cond_t wake;     /* a new loop or shutdown */
    pthread_cond_t finished; /* the running loop's last chunk is done */
    pthread_mutex_t run_mu;  /* serializes czk_pool_run callers */
    unsigned ways;
    pthread_t *threads;
    unsigned nthreads;
    uint64_t generation;
    unsigned active; /* helper threads inside work() for the current loop */
    int shutdown;
    /* the running loop */
    czk_pool_fn fn;
    void *arg;
    size_t n, chunk;
    _Atomic size_t next;    /* next unclaimed index */
    _Atomic size_t pending; /* indices not yet finished */
};

/* Set while a thread runs a loop body, so that nested loops run inline. */
static _Thread_local int in_pool_body;

/* Claims and runs chunks until none are left. */
static void work(czk_pool *p, unsigned worker) {
    in_pool_body = 1;
    for (;;) {
        /* Relaxed: the chunk bounds are the only data; fn/arg were published under mu. */
        size_t b = atomic_fetch_add_explicit(&p->next, p->chunk, memory_order_relaxed);
        if (b >= p->n)
            break;
        size_t e = b + p->chunk < p->n ? b + p->chunk : p->n;
        p->fn(p->arg, b, e, worker);
        /* acq_rel: pairs with the caller's load of pending, publishing this chunk's writes. */
        if (atomic_fetch_sub_explicit(&p->pending, e - b, memory_order_acq_rel) == e - b) {
            pthread_mutex_lock(&p->mu);
            pthread_cond_broadcast(&p->finished);
            pthread_mutex_unlock(&p->mu);
        }
    }
    in_pool_body = 0;
}

typedef struct {
    czk_pool *pool;
    unsigned worker;
} thread_arg;

static void *thread_main(void *v) {
    thread_arg ta = *(thread_arg *)v;
    czk_free(v);
    czk_pool *p = ta.pool;
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->shutdown && p->generation == seen)
            pthread_cond_wait(&p->wake, &p->mu);
        if (p->shutdown)
            break;
        seen = p->generation;
        /* Counted under mu: czk_pool_run returns only when no helper is left inside work(),
         * so a slow helper can never claim a chunk of the next loop while that loop is being
         * set up (it would read half-written fields and could lose a `pending` decrement). */
        p->active++;
        pthread_mutex_unlock(&p->mu);
        work(p, ta.worker);
        pthread_mutex_lock(&p->mu);
        if (--p->active == 0)
            pthread_cond_broadcast(&p->finished);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int czk_pool_create(czk_pool **out, unsigned ways) {
    int rc = CZK_OK;
    if (out == NULL)
        return CZK_EINVAL;
    *out = NULL;
    if (ways == 0) {
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        ways = n > 0 ? (unsigned)n : 1;
    }
    if (ways > 1024)
        return CZK_EINVAL;
    czk_pool *p = czk_calloc(1, sizeof(*p));
    if (p == NULL)
        return CZK_ENOMEM;
    pthread_mutex_init(&p->mu, NULL);
    pthread_mutex_init(&p->run_mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->finished, NULL);
    p->ways = ways;
    if (ways > 1) {
        p->threads = czk_calloc(ways - 1, sizeof(pthread_t));
        if (p->threads == NULL) {
            rc = CZK_ENOMEM;
            goto out;
        }
    }
    for (unsigned i = 0; i + 1 < ways; i++) {
        thread_arg *ta = czk_malloc(sizeof(*ta));
        if (ta == NULL) {
            rc = CZK_ENOMEM;
            goto out;
        }
        ta->pool = p;
        ta->worker = i + 1; /* the caller is worker 0 */
        if (pthread_create(&p->threads[i], NULL, thread_main, ta) != 0) {
            czk_free(ta);
            rc = CZK_ENOMEM;
            goto out;
        }
        p->nthreads++;
    }
out:
    if (rc != CZK_OK) {
        czk_pool_destroy(p);
        return rc;
    }
    *out = p;
    return CZK_OK;
}

void czk_pool_destroy(czk_pool *pool) {
    if (pool == NULL)
        return;
    pthread_mutex_lock(&pool->mu);
    pool->shutdown = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
    for (unsigned i = 0; i < pool->nthreads; i++)
        pthread_join(pool->threads[i], NULL);
    czk_free(pool->threads);
    pthread_mutex_destroy(&pool->mu);
    pthread_mutex_destroy(&pool->run_mu);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->finished);
    czk_free(pool);
}

unsigned czk_pool_ways(const czk_pool *pool) {
    return pool == NULL ? 1 : pool->ways;
}

void czk_pool_run(czk_pool *pool, size_t n, size_t grain, czk_pool_fn fn, void *arg) {
    if (n == 0)
        return;
    if (pool == NULL || pool->ways == 1 || in_pool_body) {
        fn(arg, 0, n, 0);
        return;
    }
    /* About 4 chunks a way balances uneven chunks without much claiming traffic. */
    size_t chunk = n / ((size_t)pool->ways * 4);
    if (chunk < grain)
        chunk = grain;
    if (chunk == 0)
        chunk = 1;
    pthread_mutex_lock(&pool->run_mu);
    pthread_mutex_lock(&pool->mu);
    /* A helper that woke for the previous loop only after it was done may still be inside
     * work() (finding nothing to claim); let it leave before the fields change under it. */
    while (pool->active != 0)
        pthread_cond_wait(&pool->finished, &pool->mu);
    pool->fn = fn;
    pool->arg = arg;
    pool->n = n;
    pool->chunk = chunk;
    atomic_store_explicit(&pool->next, 0, memory_order_relaxed);
    atomic_store_explicit(&pool->pending, n, memory_order_relaxed);
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->mu);
    work(pool, 0);
    pthread_mutex_lock(&pool->mu);
    /* acquire: pairs with the workers' acq_rel decrements, so their writes are visible. */
    while (atomic_load_explicit(&pool->pending, memory_order_acquire) != 0 || pool->active != 0)
        pthread_cond_wait(&pool->finished, &pool->mu);
    pthread_mutex_unlock(&pool->mu);
    pthread_mutex_unlock(&pool->run_mu);
}
