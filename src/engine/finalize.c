/*
 * The finalizers: finalizer_threads threads that verify each partition proof
 * (czk_groth16_verify, against the public inputs the kind gives or else the witness's) before
 * it counts, encode it (the kind's encoding, or bellperson's 192 bytes), retry a failed
 * partition on another device, else on the fallback (retries are for device faults and
 * allocation failures: a witness that does not satisfy the circuit fails at once), finish
 * jobs, and prune stored results after result_ttl_ms.
 */
#include <stdio.h>
#include <string.h>

#include "engine/engine_internal.h"
#include "formats/bellperson.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/timer.h"

#define US(ns) ((ns) / 1000ULL)

/* Adds a proved partition's step times to its job's (in µs). */
static void add_steps(czk_step_times *s, const czk_groth16_timings *t, uint64_t verify_ns) {
    s->spmv_us += US(t->spmv_ns);
    s->h_us += US(t->h_ns);
    s->msm_a_us += US(t->msm_a_ns);
    s->msm_b_g1_us += US(t->msm_b_g1_ns);
    s->msm_b_g2_us += US(t->msm_b_g2_ns);
    s->msm_l_us += US(t->msm_l_ns);
    s->msm_h_us += US(t->msm_h_ns);
    s->prove_us += US(t->total_ns);
    s->verify_us += US(verify_ns);
}

/*
 * Verifies p's proof. The public inputs are the kind's when it gives them (the witness's
 * must then agree), else the witness's own. Returns CZK_OK or the failure, with p->err set;
 * *final = 1 when the failure is the input's (public inputs that differ from the request's):
 * another attempt cannot succeed.
 */
static int verify_part(circuit *c, part *p, int *final) {
    const size_t n_pub = c->pk.n_public;
    const czk_fr *pub = p->w + 1;
    czk_fr *given = NULL;
    czk_err err = {0};
    int rc = CZK_OK;
    if (c->kind->public_inputs != NULL && n_pub > 0) {
        given = czk_malloc(n_pub * sizeof(czk_fr));
        if (given == NULL) {
            czk__set_msg(p->err, sizeof p->err, "out of memory for %zu public inputs", n_pub);
            return CZK_ENOMEM;
        }
        rc = c->kind->public_inputs(c->kstate, p->job->kjob, p->idx, given, n_pub, &err);
        if (rc != CZK_OK) {
            czk__set_msg(p->err, sizeof p->err, "public inputs: %s", err.msg);
            goto out;
        }
        for (size_t i = 0; i < n_pub; i++) {
            if (!czk_fr_equal(&given[i], &p->w[1 + i])) {
                rc = CZK_EVERIFY;
                *final = 1;
                czk__set_msg(p->err, sizeof p->err,
                             "the witness's public input %zu differs from the request's", i);
                goto out;
            }
        }
        pub = given;
    }
    rc = czk_groth16_verify(&c->pvk, &p->proof, pub, n_pub, &err);
    if (rc != CZK_OK)
        czk__set_msg(p->err, sizeof p->err, "proof did not verify: %s", err.msg);
out:
    czk_free(given);
    return rc;
}

/*
 * A proof that did not verify: is the witness at fault? One that does not satisfy the circuit
 * gives such a proof on any device, so the partition fails at once, naming the first failing
 * constraint, instead of being retried as a device fault would be. Costs a pass over the
 * matrices, on the failure path only; a key read from a .zkey carries no C matrix, and a
 * circuit kept in its repeated form no rows on the host: their partitions are then retried as
 * before.
 */
static int witness_at_fault(czk_engine *e, const circuit *c, part *p) {
    size_t bad = 0;
    if (czk_r1cs_check(&c->cs, p->w, &bad, e->pool, NULL) != CZK_EVERIFY)
        return 0;
    czk__set_msg(p->err, sizeof p->err,
                 "the witness does not satisfy the circuit: constraint %zu fails", bad);
    return 1;
}

void *czk__fin_main(void *arg) {
    czk_engine *e = arg;
    const unsigned me = atomic_fetch_add(&e->fin_next, 1); /* this finalizer's index */
    uint64_t last_prune = 0;
    pthread_mutex_lock(&e->mu);
    while (!e->quit) {
        uint64_t now = czk_time_ns();
        if (now - last_prune >= CZK__PRUNE_PERIOD_NS) {
            czk__prune(e);
            last_prune = now;
        }
        part *p = czk__pick(e, P_QUEUED_FIN, 0, 0);
        if (p == NULL) {
            struct timespec ts;
            czk__timespec_after(&ts, CZK__PRUNE_PERIOD_NS);
            pthread_cond_timedwait(&e->fin_cv, &e->mu, &ts);
            continue;
        }
        job *j = p->job;
        circuit *c = j->c;
        p->state = P_FIN;
        j->inflight++;
        uint64_t t0 = czk_time_ns();
        p->queue_ns += t0 - p->t_ready_ns;
        pthread_mutex_unlock(&e->mu);

        int rc = p->prove_rc;
        uint8_t enc[CZK_PROOF_BYTES];
        int final = 0;
        uint64_t tv0 = czk_time_ns();
        if (rc == CZK_OK) {
            rc = verify_part(c, p, &final);
            if (rc == CZK_EVERIFY && !final)
                final = witness_at_fault(e, c, p);
        }
        uint64_t tv1 = czk_time_ns();
        /* A proved partition's public inputs are copied out; its witness goes once the proof
         * is handed over (below). */
        uint8_t *pub = NULL;
        const size_t n_pub = c->pk.n_public;
        if (rc == CZK_OK) {
            if (c->kind->encode != NULL)
                c->kind->encode(c->kstate, &p->proof, enc);
            else
                czk_bellperson_proof_encode(enc, &p->proof);
            pub = n_pub > 0 ? czk_malloc(n_pub * CZK_FR_BYTES) : NULL;
            for (size_t i = 0; pub != NULL && i < n_pub; i++)
                czk_fr_to_bytes_le(pub + i * CZK_FR_BYTES, &p->w[1 + i]);
        }
        uint64_t t1 = czk_time_ns();

        pthread_mutex_lock(&e->mu);
        p->verify_ns = tv1 - tv0;
        czk__trace_verify(e, p, me, tv0, tv1);
        p->finish_ns = (t1 - t0) - p->verify_ns;
        j->verify_ns += p->verify_ns;
        /* The proof's own outcome counts for its device (a failed attempt was counted by the
         * worker). */
        if (p->prove_rc == CZK_OK)
            czk__device_count(e, p, rc, final);
        const int retry = rc != CZK_OK && !final && czk__part_can_retry(e, p);
        const char *result = rc == CZK_OK ? "ok" : retry ? "retry" : "failed";
        const uint64_t msm_ns = p->tm.msm_a_ns + p->tm.msm_b_g1_ns + p->tm.msm_b_g2_ns +
                                p->tm.msm_l_ns + p->tm.msm_h_ns;
        czk__elog(e, CZK_LOG_INFO,
                  "partition job=%s part=%u/%zu prio=%s circuit=%s backend=%s attempt=%u "
                  "queue_ms=%.3f synth_ms=%.3f lock_wait_ms=%.3f kernel_ms=%.3f finish_ms=%.3f "
                  "verify_ms=%.3f kernel_at_ms=%.3f synth_at_ms=%.3f synth_thread=%u worker=%u "
                  "spmv_ms=%.3f h_ms=%.3f msm_ms=%.3f verify_at_ms=%.3f finalizer=%u result=%s%s%s",
                  j->qid, p->idx, j->n_parts, czk__prio_names[j->prio], c->id, p->dev_label,
                  p->attempts, p->queue_ns / 1e6, p->synth_ns / 1e6, p->lock_wait_ns / 1e6,
                  p->kernel_ns / 1e6, p->finish_ns / 1e6, p->verify_ns / 1e6, p->kernel_at_ns / 1e6,
                  p->synth_at_ns / 1e6, p->synth_thread, p->worker, p->tm.spmv_ns / 1e6,
                  p->tm.h_ns / 1e6, msm_ns / 1e6, p->verify_at_ns / 1e6, p->finalizer, result,
                  rc == CZK_OK ? "" : " error=", rc == CZK_OK ? "" : p->err);
        if (!czk__part_return(e, p)) {
            czk_free(pub);
            continue;
        }
        if (rc != CZK_OK) {
            if (retry) {
                e->n_parts_retried++;
                p->state = P_QUEUED_PROVE;
                p->t_ready_ns = t1;
                p->queue_ns = 0;
                pthread_cond_broadcast(&e->prove_cv); /* workers pick by device */
            } else {
                e->n_parts_failed++;
                czk__part_hold(j);
                czk__job_finish(e, j, CZK_JOB_FAILED, "partition %u failed after %u attempt%s: %s",
                                p->idx, p->attempts, p->attempts == 1 ? "" : "s", p->err);
                czk__part_release(e, j, p);
            }
            continue;
        }
        memcpy(j->proof + (size_t)p->idx * CZK_PROOF_BYTES, enc, CZK_PROOF_BYTES);
        if (j->pub == NULL && c->pk.n_public > 0) {
            j->pub = czk_calloc(j->n_parts * c->pk.n_public, CZK_FR_BYTES);
            if (j->pub != NULL) {
                j->n_public = c->pk.n_public;
                j->pub_len = j->n_parts * j->n_public * CZK_FR_BYTES;
            }
        }
        for (size_t i = 0; i < j->n_public; i++) {
            if (pub != NULL)
                memcpy(j->pub + (p->idx * j->n_public + i) * CZK_FR_BYTES, pub + i * CZK_FR_BYTES,
                       CZK_FR_BYTES);
            else /* no memory for the copy: read from the witness, still here */
                czk_fr_to_bytes_le(j->pub + (p->idx * j->n_public + i) * CZK_FR_BYTES,
                                   &p->w[1 + i]);
        }
        czk_free(pub);
        add_steps(&j->steps, &p->tm, p->verify_ns);
        e->n_parts_proved++;
        add_steps(&e->steps_total, &p->tm, p->verify_ns);
        czk__metrics_partition(e, p);
        czk__part_hold(j);
        if (++j->parts_done == j->n_parts)
            czk__job_finish(e, j, CZK_JOB_COMPLETED, NULL);
        czk__part_release(e, j, p);
    }
    pthread_mutex_unlock(&e->mu);
    return NULL;
}
