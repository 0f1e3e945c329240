/*
 * Jobs and their queues: submit, await, cancel, finish, prune, and picking the next partition.
 *
 * A job lives in e->jobs (kept in submit order) from submit until it is pruned; its id is the
 * client's request id. Resubmitting the same request attaches; another request under a known id
 * is refused (CZK_EEXIST), so that a client that re-uses an id by mistake never gets the old
 * job's proof for its new witness. Requests are compared by a digest of what defines them
 * (request_digest), computed before the lock is taken. Its circuit's kind makes the kind's own job
 * from the request (czk_circuit_kind.job_create): the engine keeps only partitions. Cancel,
 * failure and shutdown set the final status at once and wake waiters; partitions running in a
 * thread at that moment finish there and are discarded (`inflight` counts them; a job is
 * freed only when it is 0 and no thread waits on it).
 *
 * The queues are not separate structures: a partition's `state` says which queue it is in
 * (synthesis, proving, finalizing), and picking scans the job list. Order: priority (higher
 * first), then job age, then partition index. That is O(queued partitions) per pick, cheap
 * next to a proof; a heap is the upgrade once thousands of jobs queue.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "engine/engine_internal.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/parse.h"
#include "util/timer.h"

const char *const czk__prio_names[CZK_PRIORITY_COUNT] = {"DEFAULT", "LOW", "NORMAL", "HIGH",
                                                         "CRITICAL"};

const char *czk_priority_name(czk_priority p) {
    return (unsigned)p < CZK_PRIORITY_COUNT ? czk__prio_names[p] : "INVALID";
}

const char *czk_job_status_name(czk_job_status s) {
    static const char *const n[] = {"UNKNOWN", "COMPLETED", "FAILED", "CANCELLED",
                                    "TIMEOUT", "PENDING",   "RUNNING"};
    return (unsigned)s < sizeof(n) / sizeof(n[0]) ? n[s] : "INVALID";
}

int czk_id_valid(const char *id) {
    if (id == NULL || id[0] == '\0')
        return 0;
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)id; *p != '\0'; p++, n++)
        if (*p < 0x21 || *p > 0x7e || n >= CZK_ID_MAX)
            return 0;
    return 1;
}

int czk_request_id_valid(const char *id) {
    if (id == NULL || id[0] == '\0')
        return 0;
    size_t n = strnlen(id, CZK_REQUEST_ID_MAX + 1);
    return n <= CZK_REQUEST_ID_MAX && czk_utf8_printable(id, n);
}

int czk__job_final(const job *j) {
    return j->status != CZK_JOB_PENDING && j->status != CZK_JOB_RUNNING;
}

/*
 * A 128-bit digest of what defines a request's proofs: circuit, kind, partition count,
 * witness images, seed and payload (not priority or client id, which a retry may change).
 * It tells an id re-used by mistake from a retry; it is not a MAC (a client that wants
 * another's proof needs only its request id). Four lanes of xxHash64's round (Collet,
 * xxhash.com) over 8-byte words, each field closed by its length so that fields cannot run
 * into each other, and murmur3's fmix64 to finish. One pass over the witnesses, outside e->mu:
 * it reads them at memory speed, beside a copy the kind makes anyway.
 */
typedef struct digest {
    uint64_t lane[4];
    uint64_t words;
} digest;

#define DG_P1 0x9E3779B185EBCA87ULL
#define DG_P2 0xC2B2AE3D27D4EB4FULL

static uint64_t dg_round(uint64_t acc, uint64_t w) {
    acc += w * DG_P2;
    acc = (acc << 31) | (acc >> 33);
    return acc * DG_P1;
}

static uint64_t dg_fmix(uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdULL;
    k ^= k >> 33;
    k *= 0xc4ceb93fe53ef63bULL;
    k ^= k >> 33;
    return k;
}

static void dg_word(digest *d, uint64_t w) {
    d->lane[d->words & 3] = dg_round(d->lane[d->words & 3], w);
    d->words++;
}

/* Absorbs n bytes and then n itself (a NULL p with n = 0 is an absent field). */
static void dg_bytes(digest *d, const void *p, size_t n) {
    const uint8_t *b = p;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        dg_word(d, w);
    }
    if (i < n) {
        uint64_t w = 0;
        memcpy(&w, b + i, n - i);
        dg_word(d, w);
    }
    dg_word(d, (uint64_t)n ^ 0x8000000000000000ULL);
}

static void dg_str(digest *d, const char *s) {
    dg_bytes(d, s, s != NULL ? strlen(s) : 0);
}

static void request_digest(const czk_job_request *req, uint64_t out[2]) {
    digest d = {{DG_P1 + DG_P2, DG_P2, 0, (uint64_t)0 - DG_P1}, 0};
    dg_str(&d, req->circuit_id);
    dg_word(&d, req->kind != NULL);
    dg_str(&d, req->kind);
    dg_word(&d, req->n_partitions);
    dg_word(&d, req->synth_seed);
    dg_word(&d, req->wtns != NULL);
    for (size_t i = 0; req->wtns != NULL && i < req->n_partitions; i++)
        dg_bytes(&d, req->wtns[i],
                 req->wtns[i] != NULL && req->wtns_len != NULL ? req->wtns_len[i] : 0);
    dg_bytes(&d, req->payload, req->payload != NULL ? req->payload_len : 0);
    uint64_t a = dg_fmix(d.lane[0] ^ ((d.lane[2] << 17) | (d.lane[2] >> 47)) ^ d.words);
    uint64_t b = dg_fmix(d.lane[1] ^ ((d.lane[3] << 29) | (d.lane[3] >> 35)) ^ a);
    out[0] = a;
    out[1] = b;
}

/* Which part of req differs from job j's request, for the CZK_EEXIST message. */
static const char *request_difference(const job *j, const czk_job_request *req) {
    if (strcmp(j->c->id, req->circuit_id) != 0)
        return "circuit";
    if (j->kind_given != (req->kind != NULL) || (req->kind != NULL && strcmp(j->kind, req->kind)))
        return "proof kind";
    if (j->n_parts != req->n_partitions)
        return "partition count";
    return "witness, seed or payload";
}

static job *find_job(czk_engine *e, const char *id) {
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (strcmp(j->id, id) == 0)
            return j;
    }
    return NULL;
}

void *czk__dev_alloc(void *ctx, size_t bytes) {
    czk_device *d = ctx;
    return d->ops->host_alloc(d, bytes);
}

void czk__dev_free(void *ctx, void *p, size_t bytes) {
    czk_device *d = ctx;
    d->ops->host_free(d, p, bytes);
}

/* Frees p's witness pack, cleared first (it is witness data). */
static void pack_free(part *p) {
    if (p->wp_dev != NULL)
        czk_witness_pack_release(&p->wp_mem, czk__dev_free, p->wp_dev);
    p->wp_dev = NULL;
    memset(&p->wp, 0, sizeof(p->wp));
}

void czk__part_free_witness(part *p) {
    pack_free(p);
    if (p->w_borrowed) {
        p->w = NULL;
        p->w_borrowed = 0;
    }
    if (p->w != NULL) {
        size_t bytes = p->job->c->cs.n_vars * sizeof(czk_fr);
        czk_memclear_explicit(p->w, bytes);
        if (p->w_dev != NULL)
            p->w_dev->ops->host_free(p->w_dev, p->w, bytes);
        else
            czk_free(p->w);
        p->w = NULL;
        p->w_dev = NULL;
    }
}

void czk__part_drop(czk_engine *e, part *p) {
    czk__part_free_witness(p);
    if (p->reserved) {
        e->part_reserved -= p->reserved;
        czk__unreserve(e, p->reserved);
        p->reserved = 0;
    }
    p->state = P_DONE;
}

/*
 * A partition whose outcome is final: its proof handed over, or its job failed while the
 * calling thread held it (a finished job drops only the partitions no thread holds). The
 * witness is cleared and freed outside the lock: a 4 GB one takes about half a second, which a
 * WindowPoSt or the last PoRep partition would otherwise wait for before its waiters wake, and
 * which under the lock would hold every thread of the engine back. The caller's hold on the job
 * (czk__part_hold, taken before the job was finished) keeps it in flight meanwhile: the job is
 * not pruned and keeps its circuit, whose size the release reads and which an eviction would
 * otherwise unload under it; the partition keeps its reservation, which still counts that
 * memory, until czk__part_drop.
 */
void czk__part_hold(job *j) {
    j->inflight++;
}

void czk__part_release(czk_engine *e, job *j, part *p) {
    pthread_mutex_unlock(&e->mu);
    czk__part_free_witness(p);
    pthread_mutex_lock(&e->mu);
    czk__part_drop(e, p);
    if (--j->inflight == 0 && czk__job_final(j))
        czk__job_release_circuit(e, j);
    pthread_cond_broadcast(&e->done_cv);
}

void czk__job_release_circuit(czk_engine *e, job *j) {
    if (!j->holds_ref)
        return;
    circuit *c = j->c;
    j->holds_ref = 0;
    /* No partition is in flight and none will start: nothing reads the kind's request data
     * again, so it goes now rather than when the result expires (a WindowPoSt job's decoded
     * vanilla proofs are some 60 MB; the result itself is a few hundred bytes). */
    if (j->kjob != NULL) {
        c->kind->job_destroy(c->kstate, j->kjob);
        j->kjob = NULL;
    }
    c->refs--;
    c->last_used_ns = czk_time_ns();
    if (c->refs == 0 && c->evict_pending && c->state == C_HOT)
        czk__unload_circuit(e, c);
}

/* Sets a final status, drops every partition no thread is working on, wakes waiters. */
void czk__job_finish(czk_engine *e, job *j, czk_job_status st, const char *fmt, ...) {
    if (czk__job_final(j))
        return;
    j->status = st;
    if (fmt != NULL) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(j->error, sizeof j->error, fmt, ap);
        va_end(ap);
    }
    j->t_done_ns = czk_time_ns();
    czk__trace_job(e, j, 1);
    for (size_t i = 0; i < j->n_parts; i++) {
        part *p = &j->parts[i];
        if (p->state == P_QUEUED_SYNTH || p->state == P_QUEUED_PROVE || p->state == P_QUEUED_FIN ||
            p->state == P_DONE)
            czk__part_drop(e, p);
    }
    if (j->inflight == 0)
        czk__job_release_circuit(e, j);
    e->n_unfinished--;
    if (st == CZK_JOB_COMPLETED)
        e->n_completed++;
    else if (st == CZK_JOB_FAILED)
        e->n_failed++;
    else
        e->n_cancelled++;
    czk__metrics_job(e, j);
    uint64_t total = j->t_done_ns - j->t_submit_ns;
    uint64_t work = j->synth_ns + j->prove_ns + j->verify_ns;
    czk__elog(e, st == CZK_JOB_FAILED ? CZK_LOG_WARN : CZK_LOG_INFO,
              "job id=%s status=%s circuit=%s prio=%s client=%s parts=%zu total_us=%" PRIu64
              " synth_us=%" PRIu64 " prove_us=%" PRIu64 " verify_us=%" PRIu64
              " overhead_us=%" PRIu64 " submit_at_ms=%.3f done_at_ms=%.3f%s%s",
              j->qid, czk_job_status_name(st), j->c->id, czk__prio_names[j->prio], j->client,
              j->n_parts, total / 1000, j->synth_ns / 1000, j->prove_ns / 1000, j->verify_ns / 1000,
              total > work ? (total - work) / 1000 : 0, (j->t_submit_ns - e->t_create_ns) / 1e6,
              (j->t_done_ns - e->t_create_ns) / 1e6, j->error[0] ? " error=" : "", j->error);
    pthread_cond_broadcast(&e->done_cv);
}

/* A thread returns a partition it worked on outside the lock; if the job ended meanwhile
 * the partition is discarded. Returns 1 when the job is still live. */
int czk__part_return(czk_engine *e, part *p) {
    job *j = p->job;
    j->inflight--;
    if (!czk__job_final(j))
        return 1;
    czk__part_drop(e, p);
    if (j->inflight == 0)
        czk__job_release_circuit(e, j);
    pthread_cond_broadcast(&e->done_cv);
    return 0;
}

void czk__job_free(job *j) {
    if (j->kjob != NULL)
        j->c->kind->job_destroy(j->c->kstate, j->kjob);
    czk_free(j->parts);
    czk_free(j->proof);
    czk_free(j->pub);
    czk_free(j);
}

void czk__prune(czk_engine *e) {
    uint64_t now = czk_time_ns();
    uint64_t ttl = e->cfg.result_ttl_ms * 1000000ULL;
    job **pp = &e->jobs;
    job *prev = NULL;
    while (*pp != NULL) {
        job *j = *pp;
        if (czk__job_final(j) && j->inflight == 0 && j->waiters == 0 && now - j->t_done_ns >= ttl) {
            *pp = j->next;
            if (e->jobs_tail == j)
                e->jobs_tail = prev;
            czk__job_free(j);
            continue;
        }
        prev = j;
        pp = &j->next;
    }
}

/* The best partition in `state`: highest priority, then oldest job, then lowest index.
 * With `skip_loading`, partitions whose circuit is being loaded are passed over. */
part *czk__pick(czk_engine *e, int state, int skip_loading, int min_prio) {
    part *best = NULL;
    for (job *j = e->jobs; j != NULL; j = j->next) {
        if (czk__job_final(j) || j->prio < min_prio || (best != NULL && j->prio <= best->job->prio))
            continue;
        if (skip_loading && j->c->state == C_LOADING)
            continue;
        for (size_t i = 0; i < j->n_parts; i++) {
            if (j->parts[i].state == state) {
                best = &j->parts[i];
                break;
            }
        }
    }
    return best;
}

/* Makes the job of `req` on c (without e->mu: the kind's job_create copies and checks the
 * request, which may take a while; kinds allow concurrent job_create calls). */
static job *job_alloc(const czk_job_request *req, const char *qid, circuit *c, int *rc,
                      czk_err *err) {
    job *j = czk_calloc(1, sizeof *j);
    if (j == NULL) {
        *rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", qid);
        return NULL;
    }
    j->c = c;
    *rc = c->kind->job_create(c->kstate, req, &j->kjob, &j->n_parts, err);
    if (*rc == CZK_OK && (j->n_parts == 0 || j->n_parts > 1u << 20))
        *rc = czk_err_set(err, CZK_EINVAL, "request %s: %zu partitions", qid, j->n_parts);
    if (*rc == CZK_OK) {
        j->parts = czk_calloc(j->n_parts, sizeof(part));
        if (j->parts == NULL)
            *rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate job %s", qid);
    }
    if (*rc != CZK_OK) {
        czk__job_free(j);
        return NULL;
    }
    snprintf(j->id, sizeof j->id, "%s", req->request_id);
    snprintf(j->qid, sizeof j->qid, "%s", qid);
    snprintf(j->kind, sizeof j->kind, "%s", req->kind != NULL ? req->kind : c->id);
    j->kind_given = req->kind != NULL;
    czk_quote_value(j->client, sizeof j->client, req->client_id != NULL ? req->client_id : "-");
    j->prio = req->priority == CZK_PRIORITY_DEFAULT ? CZK_PRIORITY_NORMAL : (int)req->priority;
    for (size_t i = 0; i < j->n_parts; i++) {
        j->parts[i].job = j;
        j->parts[i].idx = (unsigned)i;
        j->parts[i].state = P_QUEUED_SYNTH;
    }
    j->status = CZK_JOB_PENDING;
    return j;
}

int czk_engine_submit(czk_engine *e, const czk_job_request *req,
                      char job_id[CZK_REQUEST_ID_MAX + 1], uint32_t *queue_position, int *attached,
                      czk_err *err) {
    job_id[0] = '\0';
    if (queue_position != NULL)
        *queue_position = 0;
    if (attached != NULL)
        *attached = 0;
    if (!czk_request_id_valid(req->request_id))
        return czk_err_set(err, CZK_EINVAL,
                           "request id missing, longer than %d bytes, or not printable UTF-8",
                           CZK_REQUEST_ID_MAX);
    /* Messages and log lines show the id quoted when it has spaces (Curio's WindowPoSt ids). */
    char qid[CZK_QUOTED_MAX(CZK_REQUEST_ID_MAX)];
    czk_quote_value(qid, sizeof qid, req->request_id);
    if (req->client_id != NULL &&
        (strlen(req->client_id) > CZK_CLIENT_ID_MAX || !czk_request_id_valid(req->client_id)))
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: client id longer than %d bytes or not printable UTF-8", qid,
                           CZK_CLIENT_ID_MAX);
    if (req->circuit_id == NULL)
        return czk_err_set(err, CZK_EINVAL, "request %s: no circuit id", qid);
    if ((unsigned)req->priority >= CZK_PRIORITY_COUNT)
        return czk_err_set(err, CZK_EINVAL, "request %s: priority %d out of range", qid,
                           (int)req->priority);
    if (req->n_partitions > 1u << 20)
        return czk_err_set(err, CZK_EINVAL, "request %s: %zu partitions", qid, req->n_partitions);

    uint64_t dg[2];
    request_digest(req, dg);

    pthread_mutex_lock(&e->mu);
    czk__prune(e); /* an expired result no longer holds its id */
    int rc = CZK_OK;
    circuit *c = NULL;
    job *fresh = NULL; /* made outside the lock, not yet in the engine's list */
    job *j;
again:
    j = find_job(e, req->request_id);
    if (j != NULL) {
        if (fresh != NULL) /* another submit of this id got in while ours was being made */
            czk__job_free(fresh);
        fresh = NULL;
        if (j->digest[0] != dg[0] || j->digest[1] != dg[1]) {
            rc = czk_err_set(err, CZK_EEXIST,
                             "request id %s names a job of another request (its %s differs); "
                             "a new request needs a new id",
                             qid, request_difference(j, req));
            j = NULL;
            goto out;
        }
        snprintf(job_id, CZK_REQUEST_ID_MAX + 1, "%s", j->id);
        if (attached != NULL)
            *attached = 1;
        goto position;
    }
    if (e->stopping) {
        rc = czk_err_set(err, CZK_ECANCELED, "request %s: the engine is shutting down", qid);
        goto out;
    }
    c = czk__find_circuit(e, req->circuit_id);
    if (c == NULL) {
        rc = czk_err_set(err, CZK_EINVAL, "request %s: unknown circuit %s", qid, req->circuit_id);
        goto out;
    }
    if (e->n_unfinished >= e->cfg.max_queued_jobs) {
        rc = czk_err_set(err, CZK_ENOMEM, "request %s: %u jobs queued, the limit", qid,
                         e->n_unfinished);
        goto out;
    }
    if (fresh == NULL) {
        /* The kind decodes and checks the request (a 2,349-sector WindowPoSt partition is
         * some 60 MB of vanilla proofs) without the engine's lock, so that other submits,
         * awaits and the workers are not held up; registered circuits never go away while the
         * engine lives. The id is looked up again afterwards. */
        pthread_mutex_unlock(&e->mu);
        fresh = job_alloc(req, qid, c, &rc, err);
        pthread_mutex_lock(&e->mu);
        if (fresh == NULL)
            goto out;
        goto again;
    }
    j = fresh;
    fresh = NULL;
    j->digest[0] = dg[0];
    j->digest[1] = dg[1];
    j->seq = ++e->seq;
    j->t_submit_ns = czk_time_ns();
    for (size_t i = 0; i < j->n_parts; i++)
        j->parts[i].t_ready_ns = j->t_submit_ns;
    j->holds_ref = 1;
    c->refs++;
    if (j->prio > c->max_prio)
        c->max_prio = j->prio;
    e->n_unfinished++;
    if (e->jobs_tail != NULL)
        e->jobs_tail->next = j;
    else
        e->jobs = j;
    e->jobs_tail = j;
    czk__trace_job(e, j, 0);
    snprintf(job_id, CZK_REQUEST_ID_MAX + 1, "%s", j->id);
    /* A key that leaves the host once placed on the devices (keys.c) need fit only beside
     * nothing: its partitions' witnesses come after it has gone. */
    uint64_t key = c->state == C_HOT ? c->bytes : c->est_bytes, floor = czk__part_floor(e, c);
    const int apart = c->state != C_HOT && czk__key_leaves_host(e, c);
    if (apart && (key > e->budget || floor > e->budget)) {
        czk__job_finish(e, j, CZK_JOB_FAILED,
                        "circuit %s needs %" PRIu64 " bytes for its key while it loads and %" PRIu64
                        " for one partition once the devices hold the key, more than the whole "
                        "host budget of %" PRIu64 " bytes",
                        c->id, key, floor, e->budget);
        goto out;
    }
    if (!apart && key + floor > e->budget) {
        czk__job_finish(e, j, CZK_JOB_FAILED,
                        "circuit %s needs %" PRIu64 " bytes (key %" PRIu64
                        " + one partition %" PRIu64 "), more than the whole host budget of %" PRIu64
                        " bytes",
                        c->id, key + floor, key, floor, e->budget);
        goto out;
    }
    j->proof = czk_calloc(j->n_parts, CZK_PROOF_BYTES);
    if (j->proof == NULL) {
        czk__job_finish(e, j, CZK_JOB_FAILED, "cannot allocate the job's proof buffer");
        goto out;
    }
    pthread_cond_broadcast(&e->synth_cv);
    czk__elog(e, CZK_LOG_DEBUG, "submit job=%s circuit=%s prio=%s parts=%zu client=%s", j->qid,
              c->id, czk__prio_names[j->prio], j->n_parts, j->client);
position:
    if (queue_position != NULL && !czk__job_final(j)) {
        uint32_t ahead = 0;
        for (job *o = e->jobs; o != NULL; o = o->next) {
            if (o != j && !czk__job_final(o) &&
                (o->prio > j->prio || (o->prio == j->prio && o->seq < j->seq)))
                ahead++;
        }
        *queue_position = ahead;
    }
out:
    pthread_mutex_unlock(&e->mu);
    if (fresh != NULL) /* made, then refused (stopping, queue full) */
        czk__job_free(fresh);
    return rc;
}

static void fill_result(const job *j, czk_job_result *res) {
    res->status = j->status;
    res->circuit_kind = j->c->kind->name;
    snprintf(res->error, sizeof res->error, "%s", j->error);
    uint64_t start = j->t_start_ns ? j->t_start_ns : j->t_done_ns;
    res->queue_wait_ms = start > j->t_submit_ns ? CZK__MS(start - j->t_submit_ns) : 0;
    res->srs_load_ms = j->srs_load_ms;
    res->synthesis_ms = CZK__MS(j->synth_ns);
    res->gpu_compute_ms = CZK__MS(j->prove_ns);
    res->total_ms = CZK__MS(j->t_done_ns - j->t_submit_ns);
    if (j->status != CZK_JOB_COMPLETED)
        return;
    res->steps = j->steps;
    res->proof = czk_malloc(j->n_parts * CZK_PROOF_BYTES);
    if (res->proof == NULL) {
        res->status = CZK_JOB_FAILED;
        snprintf(res->error, sizeof res->error, "out of memory copying the proof");
        return;
    }
    memcpy(res->proof, j->proof, j->n_parts * CZK_PROOF_BYTES);
    res->proof_len = j->n_parts * CZK_PROOF_BYTES;
    if (j->pub_len > 0) {
        res->public_inputs = czk_malloc(j->pub_len);
        if (res->public_inputs != NULL) {
            memcpy(res->public_inputs, j->pub, j->pub_len);
            res->public_len = j->pub_len;
        }
    }
}

void czk__timespec_after(struct timespec *ts, uint64_t ns) {
    clock_gettime(CLOCK_MONOTONIC, ts);
    uint64_t t = (uint64_t)ts->tv_nsec + ns % 1000000000ULL;
    ts->tv_sec += (time_t)(ns / 1000000000ULL + t / 1000000000ULL);
    ts->tv_nsec = (long)(t % 1000000000ULL);
}

int czk_engine_await(czk_engine *e, const char *job_id, uint64_t timeout_ms, czk_job_result *res,
                     czk_err *err) {
    memset(res, 0, sizeof *res);
    res->status = CZK_JOB_UNKNOWN;
    if (job_id == NULL) {
        snprintf(res->error, sizeof res->error, "no job id");
        return czk_err_set(err, CZK_EINVAL, "no job id");
    }
    pthread_mutex_lock(&e->mu);
    czk__prune(e);
    job *j = find_job(e, job_id);
    if (j == NULL) {
        snprintf(res->error, sizeof res->error, "unknown job %.200s", job_id);
        pthread_mutex_unlock(&e->mu);
        return czk_err_set(err, CZK_ENOTFOUND,
                           "no job %.200s: never submitted, or its result was pruned", job_id);
    }
    struct timespec ts;
    if (timeout_ms > 0)
        czk__timespec_after(&ts, timeout_ms * 1000000ULL);
    j->waiters++;
    int timed_out = 0;
    while (!czk__job_final(j)) {
        if (timeout_ms == 0) {
            pthread_cond_wait(&e->done_cv, &e->mu);
        } else if (pthread_cond_timedwait(&e->done_cv, &e->mu, &ts) == ETIMEDOUT) {
            timed_out = !czk__job_final(j);
            break;
        }
    }
    j->waiters--;
    if (timed_out) {
        res->status = CZK_JOB_TIMEOUT;
        snprintf(res->error, sizeof res->error, "job %.200s still running after %" PRIu64 " ms",
                 job_id, timeout_ms);
    } else {
        fill_result(j, res);
    }
    pthread_mutex_unlock(&e->mu);
    return CZK_OK;
}

void czk_job_result_clear(czk_job_result *res) {
    if (res == NULL)
        return;
    czk_free(res->proof);
    czk_free(res->public_inputs);
    memset(res, 0, sizeof *res);
}

int czk_engine_cancel(czk_engine *e, const char *job_id, int *was_running, czk_job_status *prior,
                      czk_err *err) {
    if (was_running != NULL)
        *was_running = 0;
    if (prior != NULL)
        *prior = CZK_JOB_UNKNOWN;
    if (job_id == NULL)
        return czk_err_set(err, CZK_EINVAL, "no job id");
    pthread_mutex_lock(&e->mu);
    czk__prune(e);
    int rc = CZK_OK;
    job *j = find_job(e, job_id);
    if (j == NULL) {
        rc = czk_err_set(err, CZK_ENOTFOUND,
                         "no job %.200s: never submitted, or its result was pruned", job_id);
    } else {
        if (prior != NULL)
            *prior = j->status;
        if (!czk__job_final(j)) {
            if (was_running != NULL)
                *was_running = j->status == CZK_JOB_RUNNING;
            czk__job_finish(e, j, CZK_JOB_CANCELLED, "cancelled by request");
        }
    }
    pthread_mutex_unlock(&e->mu);
    return rc;
}
