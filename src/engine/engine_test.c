/*
 * Engine tests: small PoRep-shaped circuits (2^8..2^10) with dev keys, every proof decoded and
 * verified against the circuit's verifying key, and every failure the engine must survive
 * (doc/DESIGN.md: cancel, timeouts, budgets, device faults and retries) exercised one by one.
 */
#include "czk.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "curve/g1.h"
#include "engine/engine_internal.h"
#include "engine/engine_test_util.h"
#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/zkey.h"
#include "groth16/backend.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/solve.h"
#include "r1cs/synth.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/timer.h"

/* ---- helpers ---------------------------------------------------------------------------- */

void czk_etest_cap_log(void *arg, int level, const char *line) {
    (void)level;
    czk_etest_logcap *c = arg;
    pthread_mutex_lock(&c->mu);
    if (c->n < CZK_ETEST_MAX_LINES)
        c->lines[c->n++] = strdup(line);
    pthread_mutex_unlock(&c->mu);
}

void czk_etest_cap_init(czk_etest_logcap *c) {
    memset(c, 0, sizeof *c);
    pthread_mutex_init(&c->mu, NULL);
}

void czk_etest_cap_free(czk_etest_logcap *c) {
    for (size_t i = 0; i < c->n; i++)
        free(c->lines[i]);
    pthread_mutex_destroy(&c->mu);
}

/* Index of the first "job id=<id> status=COMPLETED" line, or -1. */
static long cap_job_index(czk_etest_logcap *c, const char *id) {
    char pat[200];
    snprintf(pat, sizeof pat, "job id=%s status=", id);
    long r = -1;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n; i++) {
        if (strncmp(c->lines[i], pat, strlen(pat)) == 0) {
            r = (long)i;
            break;
        }
    }
    pthread_mutex_unlock(&c->mu);
    return r;
}

void czk_etest_sleep_ms(unsigned ms) {
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

czk_engine_config czk_etest_config(void) {
    czk_engine_config cfg;
    czk_test_engine_config(&cfg, 1ULL << 30);
    return cfg;
}

int czk_etest_submit_synth(czk_engine *e, const char *id, const char *circuit, czk_priority prio,
                           size_t parts, uint64_t seed, int *attached) {
    czk_job_request req;
    memset(&req, 0, sizeof req);
    req.request_id = id;
    req.circuit_id = circuit;
    req.priority = prio;
    req.client_id = "test";
    req.n_partitions = parts;
    req.synth_seed = seed;
    char job_id[CZK_REQUEST_ID_MAX + 1];
    uint32_t pos;
    czk_err err = {0};
    int rc = czk_engine_submit(e, &req, job_id, &pos, attached, &err);
    if (rc != CZK_OK)
        fprintf(stderr, "submit %s: %s\n", id, err.msg);
    else if (strcmp(job_id, id) != 0)
        return CZK_EINTERNAL;
    return rc;
}

/* Decodes and verifies every partition proof of a COMPLETED result. */
static int check_result(const czk_groth16_vk *vk, const czk_job_result *res, size_t parts) {
    if (res->status != CZK_JOB_COMPLETED || res->proof_len != parts * CZK_PROOF_BYTES)
        return CZK_EINVAL;
    size_t n_pub = vk->n_ic - 1;
    if (res->public_len != parts * n_pub * 32)
        return CZK_EINVAL;
    czk_groth16_pvk pvk;
    int rc = czk_groth16_pvk_prepare(&pvk, vk, NULL);
    if (rc != CZK_OK)
        return rc;
    czk_fr *in = czk_calloc(n_pub + 1, sizeof(czk_fr));
    for (size_t p = 0; p < parts && rc == CZK_OK; p++) {
        czk_groth16_proof proof;
        rc = czk_bellperson_proof_decode(&proof, res->proof + p * CZK_PROOF_BYTES, NULL);
        for (size_t i = 0; i < n_pub && rc == CZK_OK; i++)
            rc = czk_fr_from_bytes_le(&in[i], res->public_inputs + (p * n_pub + i) * 32);
        if (rc == CZK_OK)
            rc = czk_groth16_verify(&pvk, &proof, in, n_pub, NULL);
    }
    czk_free(in);
    czk_groth16_pvk_clear(&pvk);
    return rc;
}

int czk_etest_await_verify(czk_engine *e, const char *id, const czk_groth16_vk *vk, size_t parts) {
    czk_job_result res;
    czk_engine_await(e, id, 0, &res, NULL);
    int rc = check_result(vk, &res, parts);
    if (rc != CZK_OK)
        fprintf(stderr, "job %s: status %s (%s), check %d\n", id, czk_job_status_name(res.status),
                res.error, rc);
    czk_job_result_clear(&res);
    return rc;
}

int czk_etest_prove(czk_engine *e, const char *id, const char *circuit, czk_priority prio,
                    size_t parts, uint64_t seed, const czk_groth16_vk *vk) {
    int rc = czk_etest_submit_synth(e, id, circuit, prio, parts, seed, NULL);
    return rc == CZK_OK ? czk_etest_await_verify(e, id, vk, parts) : rc;
}

int czk_etest_await_status(czk_engine *e, const char *id, uint64_t timeout_ms) {
    czk_job_result res;
    czk_engine_await(e, id, timeout_ms, &res, NULL);
    int status = (int)res.status;
    czk_job_result_clear(&res);
    return status;
}

int czk_etest_run(czk_engine *e, const char *id, const char *circuit, czk_priority prio,
                  size_t parts, uint64_t seed) {
    if (czk_etest_submit_synth(e, id, circuit, prio, parts, seed, NULL) != CZK_OK)
        return CZK_ETEST_REFUSED;
    return czk_etest_await_status(e, id, 0);
}

int czk_etest_engine(czk_engine **e, czk_engine_config *cfg, const char *circuit, unsigned k,
                     const czk_etest_setup *s) {
    static const czk_etest_setup none;
    czk_engine_config dflt = czk_etest_config();
    if (cfg == NULL)
        cfg = &dflt;
    if (s == NULL)
        s = &none;
    if (s->cap != NULL) {
        czk_etest_cap_init(s->cap);
        cfg->log = czk_etest_cap_log;
        cfg->log_arg = s->cap;
    }
    if (s->vk != NULL)
        memset(s->vk, 0, sizeof *s->vk);
    *e = NULL;
    czk_err err = {0};
    const char *step = "create";
    int rc = s->n_devs > 0 ? czk__engine_create_on_devices(e, cfg, s->devs, s->n_devs, &err)
                           : czk_engine_create(e, cfg, &err);
    if (rc == CZK_OK && (s->primary != NULL || s->fallback != NULL)) {
        step = "set backends";
        rc = czk__engine_set_backends(*e, s->primary, s->fallback);
    }
    if (rc == CZK_OK) {
        step = "register";
        rc = czk_engine_register_synthetic(*e, circuit, k, &err);
    }
    if (rc == CZK_OK && (s->preload || s->vk != NULL)) {
        step = "preload";
        rc = czk_engine_preload(*e, circuit, NULL, NULL, &err);
    }
    if (rc == CZK_OK && s->vk != NULL) {
        step = "verifying key";
        rc = czk__engine_circuit_vk(*e, circuit, s->vk);
    }
    if (rc != CZK_OK)
        fprintf(stderr, "engine with %s: %s: %d %s\n", circuit, step, rc, err.msg);
    return rc;
}

/* Bytes of the budget one partition of the 2^k synthetic circuit reserves. */
static uint64_t synth_part_bytes(unsigned k) {
    czk_synth_shape sh;
    czk_synth_porep_shape(&sh, k, NULL);
    uint64_t n = 1ULL << k, mx = n > sh.n_vars ? n : sh.n_vars;
    return (sh.n_vars + 3 * n + 2 * mx) * 32;
}

/* ---- tests ------------------------------------------------------------------------------ */

/* The synthetic kind's witnesses: solved per seed, satisfying, and distinct across seeds; a
 * wrong witness image for a generic circuit is refused with a message. */
CZK_TEST(engine_witness_solver) {
    czk_r1cs cs;
    czk_fr *w0 = NULL;
    CHECK(czk_synth_porep_shaped(&cs, &w0, 8, 42, NULL, NULL) == CZK_OK);
    czk_fr *w1 = czk_malloc(cs.n_vars * sizeof(czk_fr));
    czk_fr *w2 = czk_malloc(cs.n_vars * sizeof(czk_fr));
    CHECK(w1 != NULL && w2 != NULL);
    CHECK(czk_r1cs_solve(w1, &cs, 1, NULL) == CZK_OK);
    CHECK(czk_r1cs_solve(w2, &cs, 2, NULL) == CZK_OK);
    CHECK(czk_r1cs_check(&cs, w1, NULL, NULL, NULL) == CZK_OK);
    CHECK(czk_r1cs_check(&cs, w2, NULL, NULL, NULL) == CZK_OK);
    CHECK(memcmp(w1, w2, cs.n_vars * sizeof(czk_fr)) != 0); /* seeds give other witnesses */
    uint8_t junk[16] = "wtns";
    czk_err err = {0};
    CHECK(czk_circom_wtns_parse(w1, cs.n_vars, junk, sizeof junk, "junk", &err) != CZK_OK);
    CHECK(err.msg[0] != '\0');
    czk_free(w0);
    czk_free(w1);
    czk_free(w2);
    czk_r1cs_clear(&cs);
}

typedef struct submitter {
    czk_engine *e;
    const czk_groth16_vk *vk;
    int index;
    int failures;
} submitter;

static void *submitter_main(void *arg) {
    submitter *s = arg;
    for (int i = 0; i < 2; i++) {
        char id[64];
        snprintf(id, sizeof id, "t%d-job%d", s->index, i);
        if (czk_etest_prove(s->e, id, "porep8", CZK_PRIORITY_NORMAL, 2,
                            (uint64_t)(s->index * 10 + i), s->vk) != CZK_OK)
            s->failures++;
    }
    return NULL;
}

CZK_TEST(engine_concurrent_submitters) {
    czk_engine_config cfg = czk_etest_config();
    cfg.workers_per_device = 2;
    czk_engine *e;
    czk_groth16_vk vk;
    CHECK(czk_etest_engine(&e, &cfg, "porep8", 8, &(czk_etest_setup){.vk = &vk}) == CZK_OK);
    pthread_t th[4];
    submitter s[4];
    for (int i = 0; i < 4; i++) {
        s[i] = (submitter){e, &vk, i, 0};
        pthread_create(&th[i], NULL, submitter_main, &s[i]);
    }
    int failures = 0;
    for (int i = 0; i < 4; i++) {
        pthread_join(th[i], NULL);
        failures += s[i].failures;
    }
    czk_engine_status st;
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    uint64_t completed = st.jobs_completed, proved = st.partitions_proved;
    czk_engine_status_clear(&st);
    czk_groth16_vk_clear(&vk);
    czk_engine_destroy(e);
    CHECK_EQ_INT(failures, 0);
    CHECK_EQ_INT(completed, 8);
    CHECK_EQ_INT(proved, 16);
}

CZK_TEST(engine_priority_order) {
    czk_etest_logcap cap;
    czk_engine *e;
    CHECK(czk_etest_engine(&e, NULL, "porep9", 9, &(czk_etest_setup){.cap = &cap, .preload = 1}) ==
          CZK_OK);
    const char *normal[4] = {"n1", "n2", "n3", "n4"};
    for (int i = 0; i < 4; i++)
        CHECK(czk_etest_submit_synth(e, normal[i], "porep9", CZK_PRIORITY_NORMAL, 3, (uint64_t)i,
                                     NULL) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "crit", "porep9", CZK_PRIORITY_CRITICAL, 1, 99, NULL) ==
          CZK_OK);
    czk_job_result res;
    const char *all[5] = {"n1", "n2", "n3", "n4", "crit"};
    for (int i = 0; i < 5; i++) {
        czk_engine_await(e, all[i], 0, &res, NULL);
        CHECKF(res.status == CZK_JOB_COMPLETED, "%s: %s", all[i], res.error);
        czk_job_result_clear(&res);
    }
    czk_engine_destroy(e); /* flushes the log */
    long ic = cap_job_index(&cap, "crit");
    long i2 = cap_job_index(&cap, "n2"), i3 = cap_job_index(&cap, "n3"),
         i4 = cap_job_index(&cap, "n4");
    czk_etest_cap_free(&cap);
    CHECK(ic >= 0 && i2 >= 0 && i3 >= 0 && i4 >= 0);
    /* n1 may have been running when crit arrived; every other NORMAL job finishes after it. */
    CHECKF(ic < i2 && ic < i3 && ic < i4, "crit at %ld, n2 %ld n3 %ld n4 %ld", ic, i2, i3, i4);
}

CZK_TEST(engine_duplicate_id_attaches) {
    czk_engine *e;
    CHECK(czk_etest_engine(&e, NULL, "porep8", 8, NULL) == CZK_OK);
    CHECK(czk_engine_register_synthetic(e, "other8", 8, NULL) == CZK_OK);
    int attached = -1;
    CHECK(czk_etest_submit_synth(e, "dup", "porep8", CZK_PRIORITY_NORMAL, 2, 1, &attached) ==
          CZK_OK);
    CHECK_EQ_INT(attached, 0);
    /* The same request again (another priority: a retry may change it) attaches. */
    CHECK(czk_etest_submit_synth(e, "dup", "porep8", CZK_PRIORITY_HIGH, 2, 1, &attached) == CZK_OK);
    CHECK_EQ_INT(attached, 1);
    /* Another request under the id is refused while the job runs, whatever differs. */
    attached = -1;
    CHECK_EQ_INT(czk_etest_submit_synth(e, "dup", "porep8", CZK_PRIORITY_NORMAL, 2, 2, &attached),
                 CZK_EEXIST);
    CHECK_EQ_INT(attached, 0);
    CHECK_EQ_INT(czk_etest_submit_synth(e, "dup", "porep8", CZK_PRIORITY_NORMAL, 3, 1, NULL),
                 CZK_EEXIST);
    CHECK_EQ_INT(czk_etest_submit_synth(e, "dup", "other8", CZK_PRIORITY_NORMAL, 2, 1, NULL),
                 CZK_EEXIST);
    czk_job_request kreq;
    memset(&kreq, 0, sizeof kreq);
    kreq.request_id = "dup";
    kreq.circuit_id = "porep8";
    kreq.kind = "porep";
    kreq.n_partitions = 2;
    kreq.synth_seed = 1;
    char kid[CZK_REQUEST_ID_MAX + 1];
    czk_err kerr = {0};
    CHECK_EQ_INT(czk_engine_submit(e, &kreq, kid, NULL, NULL, &kerr), CZK_EEXIST);
    CHECKF(strstr(kerr.msg, "proof kind") != NULL, "%s", kerr.msg);
    czk_job_result r1, r2;
    czk_engine_await(e, "dup", 0, &r1, NULL);
    /* The result names the circuit's kind (the daemon shapes its answer by it). */
    CHECK(r1.circuit_kind != NULL && strcmp(r1.circuit_kind, "synthetic") == 0);
    /* After it finished: the same request attaches to the stored proof, another is refused. */
    CHECK(czk_etest_submit_synth(e, "dup", "porep8", CZK_PRIORITY_NORMAL, 2, 1, &attached) ==
          CZK_OK);
    CHECK_EQ_INT(attached, 1);
    CHECK_EQ_INT(czk_etest_submit_synth(e, "dup", "porep8", CZK_PRIORITY_NORMAL, 2, 3, NULL),
                 CZK_EEXIST);
    czk_engine_await(e, "dup", 0, &r2, NULL);
    CHECK(r1.status == CZK_JOB_COMPLETED && r2.status == CZK_JOB_COMPLETED);
    CHECK(r1.proof_len == r2.proof_len && memcmp(r1.proof, r2.proof, r1.proof_len) == 0);
    czk_groth16_vk vk;
    CHECK(czk__engine_circuit_vk(e, "porep8", &vk) == CZK_OK);
    CHECK(check_result(&vk, &r1, 2) == CZK_OK);
    czk_groth16_vk_clear(&vk);
    czk_engine_status st;
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    CHECK_EQ_INT(st.jobs_completed, 1);
    CHECK_EQ_INT(st.partitions_proved, 2);
    czk_engine_status_clear(&st);
    czk_job_result_clear(&r1);
    czk_job_result_clear(&r2);
    czk_engine_destroy(e);
}

/* Polls status until `pred` holds or ~10 s pass. */
static int wait_status(czk_engine *e, int (*pred)(const czk_engine_status *, uint64_t),
                       uint64_t arg) {
    for (int i = 0; i < 1000; i++) {
        czk_engine_status st;
        if (czk_engine_get_status(e, &st) != CZK_OK)
            return 0;
        int ok = pred(&st, arg);
        czk_engine_status_clear(&st);
        if (ok)
            return 1;
        czk_etest_sleep_ms(10);
    }
    return 0;
}

static int some_in_progress(const czk_engine_status *st, uint64_t arg) {
    (void)arg;
    return st->in_progress_by_priority[CZK_PRIORITY_NORMAL] > 0;
}

static int reserved_is(const czk_engine_status *st, uint64_t bytes) {
    return st->host_reserved_bytes == bytes;
}

/* Nothing but loaded keys is reserved: every finished partition's witness has been released
 * (a job is COMPLETED before its last witness is freed: jobs.c, czk__part_release). */
static int reserved_keys_only(const czk_engine_status *st, uint64_t unused) {
    (void)unused;
    uint64_t keys = 0;
    for (size_t i = 0; i < st->n_circuits; i++)
        if (st->circuits[i].tier != 2)
            keys += st->circuits[i].size_bytes;
    return st->host_reserved_bytes == keys;
}

/*
 * Request ids as clients really send them: Curio's four formats (its WindowPoSt id has spaces
 * and brackets), quotes and UTF-8. Each is submitted, listed by status (its JSON escaped),
 * named in the log with the id quoted, awaited and cancelled by its id; ids with control
 * characters, broken UTF-8 or past CZK_REQUEST_ID_MAX bytes are refused.
 */
CZK_TEST(engine_request_ids_as_clients_send_them) {
    czk_etest_logcap cap;
    czk_engine_config cfg = czk_etest_config();
    cfg.log_level = CZK_LOG_DEBUG;
    czk_engine *e;
    CHECK(czk_etest_engine(&e, &cfg, "porep9", 9, &(czk_etest_setup){.cap = &cap}) == CZK_OK);
    /* fmt.Sprintf("wdpost-%d-%d-%d", minerID, partitionIdx, randomness[:8]) prints the byte
     * slice as [b0 b1 ...]; "winpost-%d-%x" prints it as hex. */
    static const char *const ids[] = {"porep-1000-7",
                                      "snap-1000-7",
                                      "wdpost-1000-0-[12 200 3 4 5 6 7 8]",
                                      "winpost-1000-0cc8030405060708",
                                      "a \"quoted\" \\ id=1",
                                      "caf\xc3\xa9-\xe2\x82\xac"};
    static const char *const json[] = {"\"job_id\": \"porep-1000-7\"",
                                       "\"job_id\": \"snap-1000-7\"",
                                       "\"job_id\": \"wdpost-1000-0-[12 200 3 4 5 6 7 8]\"",
                                       "\"job_id\": \"winpost-1000-0cc8030405060708\"",
                                       "\"job_id\": \"a \\\"quoted\\\" \\\\ id=1\"",
                                       "\"job_id\": \"caf\xc3\xa9-\xe2\x82\xac\""};
    static const char *const logged[] = {"job=porep-1000-7 ",
                                         "job=snap-1000-7 ",
                                         "job=\"wdpost-1000-0-[12 200 3 4 5 6 7 8]\" ",
                                         "job=winpost-1000-0cc8030405060708 ",
                                         "job=\"a \\\"quoted\\\" \\\\ id=1\" ",
                                         "job=caf\xc3\xa9-\xe2\x82\xac "};
    const size_t n = sizeof ids / sizeof ids[0];
    for (size_t i = 0; i < n; i++)
        CHECKF(czk_etest_submit_synth(e, ids[i], "porep9", CZK_PRIORITY_NORMAL, 2, i + 1, NULL) ==
                   CZK_OK,
               "id %zu", i);
    /* Every unfinished job is listed by its id, in submit order, and the JSON escapes it. */
    czk_engine_status st;
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    char *js = NULL;
    CHECK(czk_engine_status_json(&st, &js) == CZK_OK);
    size_t listed = 0;
    for (size_t i = 0; i < st.n_jobs; i++)
        for (size_t k = 0; k < n; k++)
            if (strcmp(st.jobs[i].job_id, ids[k]) == 0) {
                listed++;
                CHECKF(strstr(js, json[k]) != NULL, "no %s in %s", json[k], js);
            }
    /* The last job cannot have finished yet: six jobs of two partitions queue behind one
     * another. */
    CHECKF(listed == st.n_jobs && st.n_jobs > 0, "%zu of %zu listed jobs known", listed, st.n_jobs);
    czk_free(js);
    czk_engine_status_clear(&st);
    /* Cancelled by its id: the WindowPoSt one, then awaited by its id. */
    czk_job_status prior = CZK_JOB_UNKNOWN;
    CHECK(czk_engine_cancel(e, ids[2], NULL, &prior, NULL) == CZK_OK);
    czk_job_result res;
    CHECK(czk_engine_await(e, ids[2], 0, &res, NULL) == CZK_OK);
    CHECK(res.status == CZK_JOB_CANCELLED ||
          (prior == CZK_JOB_COMPLETED && res.status == CZK_JOB_COMPLETED));
    czk_job_result_clear(&res);
    for (size_t i = 0; i < n; i++) {
        if (i == 2)
            continue;
        CHECKF(czk_engine_await(e, ids[i], 0, &res, NULL) == CZK_OK &&
                   res.status == CZK_JOB_COMPLETED && res.proof_len == 2 * CZK_PROOF_BYTES,
               "id %zu: %s", i, res.error);
        czk_job_result_clear(&res);
    }
    czk_engine_destroy(e);
    for (size_t i = 0; i < n; i++) {
        if (i == 2)
            continue;
        CHECKF(czk_etest_cap_has(&cap, logged[i], "status=COMPLETED") ||
                   czk_etest_cap_has(&cap, logged[i], "result=ok"),
               "no log line with %s", logged[i]);
    }
    CHECK(czk_etest_cap_has(&cap, "id=\"wdpost-1000-0-[12 200 3 4 5 6 7 8]\" ", "CANCELLED") ||
          czk_etest_cap_has(&cap, "id=\"wdpost-1000-0-[12 200 3 4 5 6 7 8]\" ", "COMPLETED"));
    czk_etest_cap_free(&cap);

    /* The limits: CZK_REQUEST_ID_MAX bytes pass, one more does not; nothing unprintable. The
     * log capture is gone: this engine logs nowhere. */
    cfg.log = NULL;
    cfg.log_arg = NULL;
    CHECK(czk_etest_engine(&e, &cfg, "porep9", 9, NULL) == CZK_OK);
    char longest[CZK_REQUEST_ID_MAX + 2];
    memset(longest, 'x', CZK_REQUEST_ID_MAX);
    longest[CZK_REQUEST_ID_MAX] = '\0';
    CHECK(czk_etest_submit_synth(e, longest, "porep9", CZK_PRIORITY_NORMAL, 1, 1, NULL) == CZK_OK);
    CHECK(czk_engine_await(e, longest, 0, &res, NULL) == CZK_OK && res.status == CZK_JOB_COMPLETED);
    czk_job_result_clear(&res);
    longest[CZK_REQUEST_ID_MAX] = 'x';
    longest[CZK_REQUEST_ID_MAX + 1] = '\0';
    static const char *const bad[] = {"", "a\nb", "tab\there", "\x7f", "bad\xc3", "\xed\xa0\x80"};
    CHECK(czk_etest_submit_synth(e, longest, "porep9", CZK_PRIORITY_NORMAL, 1, 1, NULL) ==
          CZK_EINVAL);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        CHECKF(czk_etest_submit_synth(e, bad[i], "porep9", CZK_PRIORITY_NORMAL, 1, 1, NULL) ==
                   CZK_EINVAL,
               "bad id %zu", i);
    czk_engine_destroy(e);
}

CZK_TEST(engine_cancel_queued_and_running) {
    /* Budget for the key and two partitions: the second job cannot start while the first
     * runs, so it is cancelled while queued. */
    czk_engine_config cfg = czk_etest_config();
    const czk_etest_setup preload = {.preload = 1};
    czk_engine *e;
    CHECK(czk_etest_engine(&e, &cfg, "porep10", 10, &preload) == CZK_OK);
    czk_engine_status st;
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    uint64_t key = st.circuits[0].size_bytes;
    czk_engine_status_clear(&st);
    czk_engine_destroy(e);

    cfg.host_budget_bytes = key + 2 * synth_part_bytes(10) + 1000;
    CHECK(czk_etest_engine(&e, &cfg, "porep10", 10, &preload) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "A", "porep10", CZK_PRIORITY_NORMAL, 6, 1, NULL) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "B", "porep10", CZK_PRIORITY_NORMAL, 2, 2, NULL) == CZK_OK);
    CHECK(wait_status(e, some_in_progress, 0));
    int was_running = -1;
    czk_job_status prior = CZK_JOB_UNKNOWN;
    CHECK(czk_engine_cancel(e, "B", &was_running, &prior, NULL) == CZK_OK);
    CHECK_EQ_INT(was_running, 0);
    CHECK_EQ_INT(prior, CZK_JOB_PENDING);
    CHECK_EQ_INT(czk_etest_await_status(e, "B", 0), CZK_JOB_CANCELLED);
    CHECK(czk_engine_cancel(e, "A", &was_running, &prior, NULL) == CZK_OK);
    CHECK_EQ_INT(was_running, 1);
    CHECK_EQ_INT(prior, CZK_JOB_RUNNING);
    czk_job_result res;
    czk_engine_await(e, "A", 1000, &res, NULL);
    CHECK_EQ_INT(res.status, CZK_JOB_CANCELLED);
    CHECK(res.proof == NULL);
    czk_job_result_clear(&res);
    /* Running partitions finish and are discarded: only the key stays reserved. */
    CHECK(wait_status(e, reserved_is, key));
    /* Cancelling it again changes nothing and says it had ended; an unknown id is not found. */
    was_running = -1;
    CHECK(czk_engine_cancel(e, "A", &was_running, &prior, NULL) == CZK_OK);
    CHECK_EQ_INT(was_running, 0);
    CHECK_EQ_INT(prior, CZK_JOB_CANCELLED);
    czk_err cerr = {0};
    CHECK_EQ_INT(czk_engine_cancel(e, "nope", NULL, NULL, &cerr), CZK_ENOTFOUND);
    CHECKF(strstr(cerr.msg, "nope") != NULL, "%s", cerr.msg);
    CHECK_EQ_INT(czk_engine_cancel(e, NULL, NULL, NULL, NULL), CZK_EINVAL);
    /* The engine goes on proving. */
    czk_groth16_vk vk;
    CHECK(czk__engine_circuit_vk(e, "porep10", &vk) == CZK_OK);
    int rc = czk_etest_prove(e, "C", "porep10", CZK_PRIORITY_NORMAL, 1, 3, &vk);
    czk_groth16_vk_clear(&vk);
    /* A finished job: was_running is 0 and prior says it completed; it stays COMPLETED. */
    was_running = -1;
    CHECK(czk_engine_cancel(e, "C", &was_running, &prior, NULL) == CZK_OK);
    CHECK_EQ_INT(was_running, 0);
    CHECK_EQ_INT(prior, CZK_JOB_COMPLETED);
    CHECK_EQ_INT(czk_etest_await_status(e, "C", 0), CZK_JOB_COMPLETED);
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    uint64_t cancelled = st.jobs_cancelled;
    czk_engine_status_clear(&st);
    czk_engine_destroy(e);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK_EQ_INT(cancelled, 2);
}

CZK_TEST(engine_await_timeout) {
    czk_engine *e;
    CHECK(czk_etest_engine(&e, NULL, "porep10", 10, NULL) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "slow", "porep10", CZK_PRIORITY_NORMAL, 4, 1, NULL) == CZK_OK);
    czk_job_result res;
    uint64_t t0 = czk_time_ns();
    czk_engine_await(e, "slow", 20, &res, NULL);
    uint64_t waited = (czk_time_ns() - t0) / 1000000;
    CHECK_EQ_INT(res.status, CZK_JOB_TIMEOUT);
    CHECKF(waited >= 19 && waited < 2000, "waited %llu ms", (unsigned long long)waited);
    czk_job_result_clear(&res);
    czk_engine_await(e, "slow", 0, &res, NULL);
    CHECK_EQ_INT(res.status, CZK_JOB_COMPLETED);
    CHECK(res.total_ms >= res.gpu_compute_ms);
    czk_job_result_clear(&res);
    czk_err aerr = {0};
    CHECK_EQ_INT(czk_engine_await(e, "never-submitted", 10, &res, &aerr), CZK_ENOTFOUND);
    CHECK_EQ_INT(res.status, CZK_JOB_UNKNOWN);
    CHECKF(strstr(aerr.msg, "never-submitted") != NULL, "%s", aerr.msg);
    czk_job_result_clear(&res);
    czk_engine_destroy(e);
}

CZK_TEST(engine_job_larger_than_budget) {
    czk_engine_config cfg = czk_etest_config();
    cfg.host_budget_bytes = 64 * 1024;
    czk_engine *e;
    CHECK(czk_etest_engine(&e, &cfg, "porep10", 10, NULL) == CZK_OK);
    uint64_t t0 = czk_time_ns();
    CHECK(czk_etest_submit_synth(e, "huge", "porep10", CZK_PRIORITY_NORMAL, 2, 1, NULL) == CZK_OK);
    czk_job_result res;
    czk_engine_await(e, "huge", 5000, &res, NULL);
    uint64_t ms = (czk_time_ns() - t0) / 1000000;
    CHECK_EQ_INT(res.status, CZK_JOB_FAILED);
    CHECKF(strstr(res.error, "budget") != NULL, "message: %s", res.error);
    CHECKF(ms < 1000, "took %llu ms", (unsigned long long)ms);
    czk_job_result_clear(&res);
    int loaded = -1;
    czk_err err = {0};
    CHECK(czk_engine_preload(e, "porep10", &loaded, NULL, &err) == CZK_ENOMEM);
    czk_engine_destroy(e);
}

/* What became of a job meant to fail, and the engine's partition counters after it. */
typedef struct failed_job {
    czk_job_status status;
    int names_part;  /* its error names partition 0 */
    int says_verify; /* and says a proof did not verify */
    uint64_t retried, failed;
} failed_job;

/* Submits job `id` (one partition of porep8), awaits it, reads the counters and destroys e:
 * CZK_OK, or the code of the submit or status query that failed (e then left as it is). */
static int run_to_failure(czk_engine *e, const char *id, uint64_t seed, failed_job *out) {
    int rc = czk_etest_submit_synth(e, id, "porep8", CZK_PRIORITY_NORMAL, 1, seed, NULL);
    if (rc != CZK_OK)
        return rc;
    czk_job_result res;
    czk_engine_await(e, id, 0, &res, NULL);
    out->status = res.status;
    out->names_part = strstr(res.error, "partition 0") != NULL;
    out->says_verify = strstr(res.error, "did not verify") != NULL;
    czk_job_result_clear(&res);
    czk_engine_status st;
    if ((rc = czk_engine_get_status(e, &st)) != CZK_OK)
        return rc;
    out->retried = st.partitions_retried;
    out->failed = st.partitions_failed;
    czk_engine_status_clear(&st);
    czk_engine_destroy(e);
    return CZK_OK;
}

CZK_TEST(engine_injected_failure_retried) {
    czk_etest_logcap cap;
    czk_engine *e;
    czk_groth16_vk vk;
    CHECK(czk_etest_engine(&e, NULL, "porep8", 8, &(czk_etest_setup){.cap = &cap, .vk = &vk}) ==
          CZK_OK);
    czk__engine_inject_failures(e, 1);
    int rc = czk_etest_prove(e, "retry", "porep8", CZK_PRIORITY_NORMAL, 2, 5, &vk);
    czk_groth16_vk_clear(&vk);
    /* Two failures of one single-partition job: retried once, then FAILED naming it. */
    czk__engine_inject_failures(e, 2);
    failed_job doomed;
    CHECK(run_to_failure(e, "doomed", 6, &doomed) == CZK_OK);
    int saw_retry_line = czk_etest_cap_has(&cap, "result=retry", NULL);
    czk_etest_cap_free(&cap);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK_EQ_INT(doomed.status, CZK_JOB_FAILED);
    CHECK(doomed.names_part);
    CHECK_EQ_INT(doomed.retried, 2);
    CHECK_EQ_INT(doomed.failed, 1);
    CHECK(saw_retry_line);
}

typedef struct waiter {
    czk_engine *e;
    char id[32];
    czk_job_status status;
} waiter;

static void *waiter_main(void *arg) {
    waiter *w = arg;
    czk_job_result res;
    czk_engine_await(w->e, w->id, 0, &res, NULL);
    w->status = res.status;
    czk_job_result_clear(&res);
    return NULL;
}

CZK_TEST(engine_shutdown_answers_waiters) {
    for (int grace = 0; grace < 2; grace++) {
        czk_engine *e;
        CHECK(czk_etest_engine(&e, NULL, "porep9", 9, NULL) == CZK_OK);
        waiter w[4];
        pthread_t th[4];
        for (int i = 0; i < 4; i++) {
            w[i].e = e;
            snprintf(w[i].id, sizeof w[i].id, "s%d", i);
            w[i].status = CZK_JOB_UNKNOWN;
            CHECK(czk_etest_submit_synth(e, w[i].id, "porep9", CZK_PRIORITY_NORMAL, 2, (uint64_t)i,
                                         NULL) == CZK_OK);
            pthread_create(&th[i], NULL, waiter_main, &w[i]);
        }
        czk_etest_sleep_ms(5);
        czk_engine_shutdown(e, grace ? 60000 : 0);
        for (int i = 0; i < 4; i++)
            pthread_join(th[i], NULL);
        CHECK(czk_etest_submit_synth(e, "late", "porep9", CZK_PRIORITY_NORMAL, 1, 9, NULL) ==
              CZK_ECANCELED);
        for (int i = 0; i < 4; i++) {
            /* Every accepted job has an answer: done, or (no grace) cancelled. */
            if (grace)
                CHECKF(w[i].status == CZK_JOB_COMPLETED, "%s: %d", w[i].id, w[i].status);
            else
                CHECKF(w[i].status == CZK_JOB_COMPLETED || w[i].status == CZK_JOB_CANCELLED,
                       "%s: %d", w[i].id, w[i].status);
            CHECK(czk_etest_await_status(e, w[i].id, 100) == (int)w[i].status);
        }
        czk_engine_status st;
        CHECK(czk_engine_get_status(e, &st) == CZK_OK);
        CHECK_EQ_INT(st.jobs_completed + st.jobs_cancelled, 4);
        CHECK(st.shutting_down);
        czk_engine_status_clear(&st);
        czk_engine_destroy(e);
    }
}

CZK_TEST(engine_results_pruned_after_ttl) {
    czk_engine_config cfg = czk_etest_config();
    cfg.result_ttl_ms = 2000; /* long enough for a slow sanitized run to await twice */
    czk_engine *e;
    CHECK(czk_etest_engine(&e, &cfg, "porep8", 8, NULL) == CZK_OK);
    CHECK_EQ_INT(czk_etest_run(e, "ttl", "porep8", CZK_PRIORITY_NORMAL, 1, 1), CZK_JOB_COMPLETED);
    CHECK_EQ_INT(czk_etest_await_status(e, "ttl", 0), CZK_JOB_COMPLETED); /* still stored */
    czk_etest_sleep_ms(4500);
    czk_engine_status st;
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    CHECK_EQ_INT(st.jobs_known, 0);
    czk_engine_status_clear(&st);
    czk_job_result res;
    CHECK_EQ_INT(czk_engine_await(e, "ttl", 10, &res, NULL), CZK_ENOTFOUND);
    CHECK_EQ_INT(res.status, CZK_JOB_UNKNOWN);
    czk_job_result_clear(&res);
    czk_engine_destroy(e);
}

CZK_TEST(engine_status_metrics_preload_evict) {
    czk_engine *e;
    CHECK(czk_etest_engine(&e, NULL, "a8", 8, NULL) == CZK_OK);
    CHECK(czk_engine_register_synthetic(e, "b8", 8, NULL) == CZK_OK);
    CHECK(czk_engine_register_synthetic(e, "a8", 8, NULL) == CZK_EINVAL);
    int loaded = -1;
    uint64_t ms = 99;
    CHECK(czk_engine_preload(e, "a8", &loaded, &ms, NULL) == CZK_OK);
    CHECK_EQ_INT(loaded, 0);
    CHECK(czk_engine_preload(e, "a8", &loaded, &ms, NULL) == CZK_OK);
    CHECK_EQ_INT(loaded, 1);
    CHECK(czk_engine_preload(e, "zz", &loaded, &ms, NULL) == CZK_EINVAL);
    CHECK_EQ_INT(czk_etest_run(e, "j1", "a8", CZK_PRIORITY_HIGH, 2, 1), CZK_JOB_COMPLETED);
    czk_engine_status st;
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    CHECK_EQ_INT(st.n_circuits, 2);
    CHECK_EQ_INT(st.n_devices, 1);
    int hot_a = -1, tier_b = -1;
    uint64_t a_bytes = 0;
    for (size_t i = 0; i < st.n_circuits; i++) {
        if (strcmp(st.circuits[i].circuit_id, "a8") == 0) {
            hot_a = st.circuits[i].tier;
            a_bytes = st.circuits[i].size_bytes;
        } else {
            tier_b = st.circuits[i].tier;
        }
    }
    CHECK_EQ_INT(hot_a, 0);
    CHECK_EQ_INT(tier_b, 2);
    /* The last partition's witness is released just after its proof is handed over. */
    CHECK(a_bytes > 0 && wait_status(e, reserved_is, a_bytes));
    CHECK_EQ_INT(st.jobs_completed, 1);
    czk_engine_status_clear(&st);
    char *text = NULL;
    CHECK(czk_engine_metrics(e, &text) == CZK_OK);
    const char *done = "czk_jobs_completed_total{circuit=\"a8\",proof_kind=\"unspecified\"} 1\n";
    CHECKF(strstr(text, done) != NULL, "%s", text);
    CHECK(strstr(text, "czk_partitions_proved_total 2\n") != NULL);
    CHECK(strstr(text, "czk_circuit_bytes{circuit=\"a8\",tier=\"hot\"}") != NULL);
    czk_free(text);
    int was = -1;
    uint64_t freed = 0;
    CHECK(czk_engine_evict(e, "a8", &was, &freed, NULL) == CZK_OK);
    CHECK(was == 1 && freed == a_bytes);
    CHECK(czk_engine_evict(e, "a8", &was, &freed, NULL) == CZK_OK);
    CHECK(was == 0 && freed == 0);
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    CHECK_EQ_INT(st.host_reserved_bytes, 0);
    czk_engine_status_clear(&st);
    /* An evicted circuit loads again for the next job. */
    CHECK_EQ_INT(czk_etest_run(e, "j2", "a8", CZK_PRIORITY_LOW, 1, 2), CZK_JOB_COMPLETED);
    czk_engine_destroy(e);
}

/* Evicting a key that a running job holds: released when the job ends, and a second ask
 * meanwhile (or after) reports nothing loaded; whichever way the race with the job goes, the
 * answers are the same. */
static int tier_of(const czk_engine_status *st, uint64_t want) {
    return st->n_circuits == 1 && (uint64_t)st->circuits[0].tier == want;
}

CZK_TEST(engine_evict_while_running) {
    czk_engine *e;
    CHECK(czk_etest_engine(&e, NULL, "r10", 10, NULL) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "run", "r10", CZK_PRIORITY_NORMAL, 6, 3, NULL) == CZK_OK);
    CHECK(wait_status(e, some_in_progress, 0));
    int was = -1;
    uint64_t freed = 0;
    CHECK(czk_engine_evict(e, "r10", &was, &freed, NULL) == CZK_OK);
    CHECK(was == 1 && freed > 0);
    CHECK(czk_engine_evict(e, "r10", &was, &freed, NULL) == CZK_OK);
    CHECK(was == 0 && freed == 0);
    CHECK_EQ_INT(czk_etest_await_status(e, "run", 0), CZK_JOB_COMPLETED);
    CHECK(wait_status(e, tier_of, 2)); /* COLD once the last partition let go */
    CHECK(wait_status(e, reserved_is, 0));
    CHECK(czk_engine_evict(e, "r10", &was, &freed, NULL) == CZK_OK);
    CHECK(was == 0 && freed == 0);
    czk_engine_destroy(e);
}

static int read_file(const char *path, uint8_t **data, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    *data = malloc((size_t)n);
    *len = fread(*data, 1, (size_t)n, f);
    fclose(f);
    return *len == (size_t)n ? 0 : -1;
}

/* Submits job `id` of `parts` partitions of registered circuit `circuit` with the witnesses
 * wtns[0..parts) of wtns_len bytes (NULL: none); the job's id in job_id. */
static int submit_wtns(czk_engine *e, const char *id, const char *circuit, size_t parts,
                       const uint8_t *const *wtns, const size_t *wtns_len,
                       char job_id[CZK_REQUEST_ID_MAX + 1], czk_err *err) {
    const czk_job_request req = {.request_id = id,
                                 .circuit_id = circuit,
                                 .n_partitions = parts,
                                 .wtns = wtns,
                                 .wtns_len = wtns_len};
    return czk_engine_submit(e, &req, job_id, NULL, NULL, err);
}

/* A .zkey circuit and a bellperson .params + czk R1CS circuit, witnesses as .wtns images. */
CZK_TEST(engine_registered_circuits) {
    char dir[] = "/tmp/czk_engine_testXXXXXX";
    CHECK(mkdtemp(dir) != NULL);
    char zkey[128], params[128], r1cs[128], wtns[128];
    snprintf(zkey, sizeof zkey, "%s/c.zkey", dir);
    snprintf(params, sizeof params, "%s/c.params", dir);
    snprintf(r1cs, sizeof r1cs, "%s/c.czkr1cs", dir);
    snprintf(wtns, sizeof wtns, "%s/w.wtns", dir);
    czk_r1cs cs;
    czk_fr *w = NULL;
    CHECK(czk_synth_porep_shaped(&cs, &w, 8, 7, NULL, NULL) == CZK_OK);
    czk_rng rng;
    czk_rng_seed(&rng, t->seed);
    czk_groth16_pk pk_z, pk_p;
    CHECK(czk_groth16_setup_dev(&pk_z, &cs, CZK_H_ODD_COSET, &rng, NULL, NULL) == CZK_OK);
    CHECK(czk_groth16_setup_dev(&pk_p, &cs, CZK_H_MONOMIAL, &rng, NULL, NULL) == CZK_OK);
    CHECK(czk_zkey_write(zkey, &pk_z, &cs, NULL) == CZK_OK);
    CHECK(czk_bellperson_params_write(params, &pk_p, NULL, NULL) == CZK_OK);
    CHECK(czk_r1cs_save(&cs, r1cs, NULL) == CZK_OK);
    CHECK(czk_circom_wtns_write(wtns, w, cs.n_vars, NULL) == CZK_OK);
    uint8_t *img = NULL;
    size_t img_len = 0;
    CHECK(read_file(wtns, &img, &img_len) == 0);

    czk_engine_config cfg = czk_etest_config();
    czk_engine *e;
    CHECK(czk_engine_create(&e, &cfg, NULL) == CZK_OK);
    CHECK(czk_engine_register_circuit(e, "zk", zkey, NULL, NULL) == CZK_OK);
    CHECK(czk_engine_register_circuit(e, "bp", params, r1cs, NULL) == CZK_OK);
    /* Wrong paths are found at registration, each message naming the file. */
    czk_err rerr = {0};
    CHECK(czk_engine_register_circuit(e, "x1", "/nope.zkey", NULL, &rerr) == CZK_EIO);
    CHECKF(strstr(rerr.msg, "/nope.zkey") != NULL, "%s", rerr.msg);
    CHECK(czk_engine_register_circuit(e, "x2", dir, NULL, &rerr) == CZK_EINVAL);
    CHECK(czk_engine_register_circuit(e, "x3", params, NULL, &rerr) == CZK_EINVAL);
    CHECK(czk_engine_register_circuit(e, "x4", params, wtns, &rerr) == CZK_EFORMAT);
    CHECKF(strstr(rerr.msg, wtns) != NULL, "%s", rerr.msg);
    const uint8_t *imgs[2] = {img, img};
    size_t lens[2] = {img_len, img_len};
    const char *circuits[2] = {"zk", "bp"};
    const czk_groth16_vk *vks[2] = {&pk_z.vk, &pk_p.vk};
    char id[CZK_REQUEST_ID_MAX + 1];
    for (int c = 0; c < 2; c++) {
        czk_err err = {0};
        CHECKF(submit_wtns(e, circuits[c], circuits[c], 2, imgs, lens, id, &err) == CZK_OK, "%s",
               err.msg);
        czk_job_result res;
        czk_engine_await(e, id, 0, &res, NULL);
        CHECKF(res.status == CZK_JOB_COMPLETED, "%s: %s", circuits[c], res.error);
        CHECK(check_result(vks[c], &res, 2) == CZK_OK);
        czk_job_result_clear(&res);
    }
    /* A truncated witness fails the job, naming the partition, and what its partitions held
     * is released. */
    czk_engine_status st_before;
    CHECK(wait_status(e, reserved_keys_only, 0));
    CHECK(czk_engine_get_status(e, &st_before) == CZK_OK);
    const uint64_t reserved_before = st_before.host_reserved_bytes;
    czk_engine_status_clear(&st_before);
    lens[1] = img_len - 32;
    CHECK(submit_wtns(e, "bad", "zk", 2, imgs, lens, id, NULL) == CZK_OK);
    czk_job_result res;
    czk_engine_await(e, id, 0, &res, NULL);
    CHECK_EQ_INT(res.status, CZK_JOB_FAILED);
    CHECKF(strstr(res.error, "partition 1") != NULL, "%s", res.error);
    czk_job_result_clear(&res);
    CHECKF(wait_status(e, reserved_is, reserved_before),
           "host reservation back to %llu bytes after the failed synthesis",
           (unsigned long long)reserved_before);
    /* A synthetic-style request (no witness) on a registered circuit is refused. */
    CHECK(submit_wtns(e, "nowtns", "zk", 2, NULL, lens, id, NULL) == CZK_EINVAL);
    /* A witness that does not satisfy the circuit (its last variable changed) is its own
     * fault, not the device's: the partition fails at once, naming the constraint, with no
     * retry. The .params circuit carries C, so the engine can tell. */
    czk_fr one;
    czk_fr_set_one(&one);
    czk_fr_add(&w[cs.n_vars - 1], &w[cs.n_vars - 1], &one);
    CHECK(czk_circom_wtns_write(wtns, w, cs.n_vars, NULL) == CZK_OK);
    uint8_t *bad_img = NULL;
    size_t bad_len = 0;
    CHECK(read_file(wtns, &bad_img, &bad_len) == 0);
    const uint8_t *bad_imgs[1] = {bad_img};
    size_t bad_lens[1] = {bad_len};
    czk_engine_status st0, st1;
    CHECK(czk_engine_get_status(e, &st0) == CZK_OK);
    CHECK(submit_wtns(e, "unsatisfied", "bp", 1, bad_imgs, bad_lens, id, NULL) == CZK_OK);
    czk_engine_await(e, id, 0, &res, NULL);
    CHECK_EQ_INT(res.status, CZK_JOB_FAILED);
    CHECKF(strstr(res.error, "does not satisfy the circuit: constraint") != NULL &&
               strstr(res.error, "after 1 attempt:") != NULL,
           "%s", res.error);
    CHECK(czk_engine_get_status(e, &st1) == CZK_OK);
    CHECK(st1.partitions_retried == st0.partitions_retried);
    /* The failed partition's witness and its reservation are released (once they stayed
     * until the engine stopped: 4 GB of a daemon's budget per failed WindowPoSt). */
    CHECKF(wait_status(e, reserved_is, st0.host_reserved_bytes),
           "host reservation back to %llu bytes after the failed job",
           (unsigned long long)st0.host_reserved_bytes);
    czk_engine_status_clear(&st0);
    czk_engine_status_clear(&st1);
    czk_job_result_clear(&res);
    free(bad_img);
    czk_engine_destroy(e);

    free(img);
    czk_free(w);
    czk_r1cs_clear(&cs);
    czk_groth16_pk_clear(&pk_z);
    czk_groth16_pk_clear(&pk_p);
    unlink(zkey);
    unlink(params);
    unlink(r1cs);
    unlink(wtns);
    rmdir(dir);
}

/* Engine overhead per partition: submit → complete minus synthesis, proving and verifying,
 * from the job lines, for sequential single-partition jobs on a tiny circuit. */
CZK_TEST(engine_overhead) {
    czk_etest_logcap cap;
    czk_engine *e;
    CHECK(czk_etest_engine(&e, NULL, "porep8", 8, &(czk_etest_setup){.cap = &cap, .preload = 1}) ==
          CZK_OK);
    enum { N = 10 };
    for (int i = 0; i < N; i++) {
        char id[32];
        snprintf(id, sizeof id, "o%d", i);
        CHECK_EQ_INT(czk_etest_run(e, id, "porep8", CZK_PRIORITY_NORMAL, 1, (uint64_t)i),
                     CZK_JOB_COMPLETED);
    }
    czk_engine_destroy(e);
    unsigned long long total = 0, synth = 0, prove = 0, verify = 0, over = 0, omin = ~0ULL,
                       omax = 0;
    int jobs = 0;
    for (size_t i = 0; i < cap.n; i++) {
        const char *p = strstr(cap.lines[i], "total_us=");
        if (strncmp(cap.lines[i], "job id=", 7) != 0 || p == NULL)
            continue;
        unsigned long long a, b, c, d, o;
        if (sscanf(p, "total_us=%llu synth_us=%llu prove_us=%llu verify_us=%llu overhead_us=%llu",
                   &a, &b, &c, &d, &o) != 5)
            continue;
        total += a;
        synth += b;
        prove += c;
        verify += d;
        over += o - 0;
        omin = o < omin ? o : omin;
        omax = o > omax ? o : omax;
        jobs++;
    }
    czk_etest_cap_free(&cap);
    CHECK_EQ_INT(jobs, N);
    fprintf(stderr,
            "engine overhead, 2^8 partitions, %d sequential jobs: mean total %llu us = synth %llu "
            "+ prove %llu + verify %llu + engine %llu us (min %llu, max %llu)\n",
            jobs, total / N, synth / N, prove / N, verify / N, over / N, omin, omax);
    CHECK(over / N < 50000); /* hand-offs, not milliseconds of waiting */
}

/* ---- backends: selection, and the retry on the CPU fallback ------------------------------- */

/* A stand-in for a GPU backend: the CPU backend, with every G1 MSM failing as a device fault
 * would (FAKE_FAIL) or returning a wrong sum (FAKE_CORRUPT, so that the proof does not
 * verify). */
enum { FAKE_FAIL = 1, FAKE_CORRUPT = 2 };

static int fake_h(void *ctx, const czk_ntt_domain *d, czk_groth16_h_basis basis, czk_fr *a,
                  czk_fr *b, czk_fr *c, czk_pool *pool, czk_err *err) {
    (void)ctx;
    const czk_backend *cpu = czk_backend_cpu();
    return cpu->h(cpu->ctx, d, basis, a, b, c, pool, err);
}

static int fake_msm_g1(void *ctx, czk_g1_jacobian *out, const czk_backend_key *key,
                       czk_key_array which, const czk_g1_affine *pts, const czk_fr *sc, size_t n,
                       czk_pool *pool, czk_err *err) {
    const czk_backend *cpu = czk_backend_cpu();
    if (*(const int *)ctx == FAKE_FAIL)
        return czk_err_set(err, CZK_ECUDA, "fake device fault in msm_g1");
    int rc = cpu->msm_g1(cpu->ctx, out, key, which, pts, sc, n, pool, err);
    if (rc == CZK_OK)
        czk_g1_jacobian_add_affine_var(out, out, &CZK_G1_GENERATOR);
    return rc;
}

static int fake_msm_g2(void *ctx, czk_g2_jacobian *out, const czk_backend_key *key,
                       czk_key_array which, const czk_g2_affine *pts, const czk_fr *sc, size_t n,
                       czk_pool *pool, czk_err *err) {
    (void)ctx;
    const czk_backend *cpu = czk_backend_cpu();
    return cpu->msm_g2(cpu->ctx, out, key, which, pts, sc, n, pool, err);
}

static czk_backend fake_backend(const char *name, int *mode) {
    const czk_backend *cpu = czk_backend_cpu();
    czk_backend b;
    memset(&b, 0, sizeof b);
    b.name = name;
    b.ctx = mode;
    b.flags = cpu->flags;
    b.h = fake_h;
    b.msm_g1 = fake_msm_g1;
    b.msm_g2 = fake_msm_g2;
    return b;
}

int czk_etest_cap_has(czk_etest_logcap *c, const char *a, const char *b) {
    int found = 0;
    pthread_mutex_lock(&c->mu);
    for (size_t i = 0; i < c->n && !found; i++)
        found = strstr(c->lines[i], a) != NULL && (b == NULL || strstr(c->lines[i], b) != NULL);
    pthread_mutex_unlock(&c->mu);
    return found;
}

/* A backend that could prove whole partitions (prove_sums) but never can for these keys:
 * it puts the engine in lean mode (witness-only reservations, scratch per proof). */
static int lean_calls;

static int lean_packs_ok, lean_packs_bad;

/* "Pinned" buffers for the fake device: plain counted allocations. */
static void *fake_host_alloc(void *ctx, size_t bytes) {
    (void)ctx;
    return czk_malloc(bytes);
}

static void fake_host_free(void *ctx, void *p, size_t bytes) {
    (void)ctx, (void)bytes;
    czk_free(p);
}

static int fake_prove_sums(void *ctx, const czk_backend_key *key, const czk_groth16_pk *pk,
                           const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                           czk_backend_sums *out, czk_groth16_timings *tm, czk_pool *pool,
                           czk_err *err) {
    (void)ctx, (void)key, (void)pk, (void)out, (void)tm, (void)pool;
    __atomic_fetch_add(&lean_calls, 1, __ATOMIC_RELAXED);
    if (wp != NULL) {
        /* The engine's pack must be the witness it proves. */
        czk_fr *x = czk_malloc(cs->n_vars * sizeof(czk_fr));
        int same = 0;
        if (x != NULL && wp->n == cs->n_vars) {
            czk_witness_pack_expand(x, wp);
            same = memcmp(x, w, cs->n_vars * sizeof(czk_fr)) == 0;
        }
        czk_free(x);
        __atomic_fetch_add(same ? &lean_packs_ok : &lean_packs_bad, 1, __ATOMIC_RELAXED);
    }
    return czk_err_set(err, CZK_EUNSUPPORTED, "not resident");
}

/* Lean reservations: partitions hold only their witness between synthesis and the end,
 * each proof reserves the prover's scratch around itself and gives it back, so the engine's
 * reservation returns to the key alone; a budget that holds key + one full partition but
 * not key + witness + a scratch per prover lock is refused at submit. */
CZK_TEST(engine_lean_reservations) {
    static int ok_mode = 0;
    czk_backend fake = fake_backend("fakegpu-lean", &ok_mode);
    fake.prove_sums = fake_prove_sums;
    /* and every GPU attempt gets the witness packed, in the device's host buffers */
    fake.flags |= CZK_BACKEND_WITNESS_PACK;
    fake.host_alloc = fake_host_alloc;
    fake.host_free = fake_host_free;
    czk_engine_config cfg = czk_etest_config();
    cfg.workers_per_device = 2;
    czk_engine *e;
    czk_groth16_vk vk;
    czk_etest_setup setup = {.primary = &fake, .fallback = czk_backend_cpu(), .vk = &vk};
    CHECK(czk_etest_engine(&e, &cfg, "porep8", 8, &setup) == CZK_OK);
    czk_engine_status st;
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    uint64_t key_reserved = st.host_reserved_bytes, key_bytes = st.circuits[0].size_bytes;
    czk_engine_status_clear(&st);
    __atomic_store_n(&lean_calls, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&lean_packs_ok, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&lean_packs_bad, 0, __ATOMIC_RELAXED);
    CHECK(czk_etest_submit_synth(e, "lean1", "porep8", CZK_PRIORITY_NORMAL, 3, 21, NULL) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "lean2", "porep8", CZK_PRIORITY_NORMAL, 2, 22, NULL) == CZK_OK);
    /* synth_seed 0: packed straight from the circuit's template witness. */
    CHECK(czk_etest_submit_synth(e, "lean3", "porep8", CZK_PRIORITY_NORMAL, 2, 0, NULL) == CZK_OK);
    int rc1 = czk_etest_await_verify(e, "lean1", &vk, 3);
    int rc2 = czk_etest_await_verify(e, "lean2", &vk, 2);
    int rc3 = czk_etest_await_verify(e, "lean3", &vk, 2);
    /* Witnesses are released just after their proofs are handed over: wait for that. */
    int released = wait_status(e, reserved_is, key_reserved);
    czk_groth16_vk_clear(&vk);
    czk_engine_destroy(e);
    CHECK_EQ_INT(rc1, CZK_OK);
    CHECK_EQ_INT(rc2, CZK_OK);
    CHECK_EQ_INT(rc3, CZK_OK);
    CHECK_EQ_INT(__atomic_load_n(&lean_calls, __ATOMIC_RELAXED), 7);
    CHECK_EQ_INT(__atomic_load_n(&lean_packs_ok, __ATOMIC_RELAXED), 7);
    CHECK_EQ_INT(__atomic_load_n(&lean_packs_bad, __ATOMIC_RELAXED), 0);
    CHECK(released);

    /* k = 8: witness 256 Fr, scratch 5·256 Fr; one device and the CPU fallback lock. */
    uint64_t w = 256 * 32, scratch = 5 * 256 * 32;
    cfg.host_budget_bytes = key_bytes + w + scratch + scratch / 2;
    cfg.pinned_budget_bytes = 1;
    setup.vk = NULL;
    CHECK(czk_etest_engine(&e, &cfg, "porep8", 8, &setup) == CZK_OK);
    CHECK(czk_etest_submit_synth(e, "toobig", "porep8", CZK_PRIORITY_NORMAL, 1, 23, NULL) ==
          CZK_OK);
    czk_job_result res;
    czk_engine_await(e, "toobig", 0, &res, NULL);
    czk_engine_destroy(e);
    CHECK_EQ_INT(res.status, CZK_JOB_FAILED);
    CHECKF(strstr(res.error, "host budget") != NULL, "%s", res.error);
    czk_job_result_clear(&res);
}

/* A partition whose "GPU" attempt fails, or whose proof does not verify, completes on the
 * CPU fallback; the retries are counted in status and metrics. */
CZK_TEST(engine_gpu_failure_falls_back_to_cpu) {
    static int modes[2] = {FAKE_FAIL, FAKE_CORRUPT};
    for (int m = 0; m < 2; m++) {
        czk_backend fake = fake_backend(m == 0 ? "fakegpu-fail" : "fakegpu-corrupt", &modes[m]);
        czk_etest_logcap cap;
        czk_engine_config cfg = czk_etest_config();
        cfg.workers_per_device = 2;
        czk_engine *e;
        czk_groth16_vk vk;
        czk_etest_setup setup = {
            .cap = &cap, .primary = &fake, .fallback = czk_backend_cpu(), .vk = &vk};
        CHECK(czk_etest_engine(&e, &cfg, "porep8", 8, &setup) == CZK_OK);
        int rc = czk_etest_prove(e, "fallback", "porep8", CZK_PRIORITY_NORMAL, 2, 11, &vk);
        czk_groth16_vk_clear(&vk);
        czk_engine_status st;
        CHECK(czk_engine_get_status(e, &st) == CZK_OK);
        uint64_t retried = st.partitions_retried, proved = st.partitions_proved,
                 failed = st.partitions_failed;
        size_t ndev = st.n_devices;
        uint32_t workers = ndev ? st.devices[0].workers : 0;
        czk_engine_status_clear(&st);
        char *text = NULL;
        CHECK(czk_engine_metrics(e, &text) == CZK_OK);
        int metric = strstr(text, "czk_partitions_retried_total 2\n") != NULL;
        czk_free(text);
        czk_engine_destroy(e);
        int saw_gpu_retry = czk_etest_cap_has(&cap, fake.name, "result=retry");
        int saw_cpu_ok = czk_etest_cap_has(&cap, "backend=cpu attempt=2", "result=ok");
        czk_etest_cap_free(&cap);
        CHECK_EQ_INT(rc, CZK_OK);
        CHECK_EQ_INT(retried, 2);
        CHECK_EQ_INT(proved, 2);
        CHECK_EQ_INT(failed, 0);
        CHECK_EQ_INT(ndev, 1);
        CHECK_EQ_INT(workers, 2);
        CHECK(metric);
        CHECK(saw_gpu_retry);
        CHECK(saw_cpu_ok);
    }
}

/* When the fallback fails too, the job is FAILED naming the partition. */
CZK_TEST(engine_gpu_and_fallback_fail) {
    static int fail_mode = FAKE_FAIL, corrupt_mode = FAKE_CORRUPT;
    czk_backend primary = fake_backend("fakegpu", &fail_mode);
    czk_backend fallback = fake_backend("fakecpu", &corrupt_mode);
    czk_engine *e;
    CHECK(czk_etest_engine(&e, NULL, "porep8", 8,
                           &(czk_etest_setup){.primary = &primary, .fallback = &fallback}) ==
          CZK_OK);
    failed_job doomed;
    CHECK(run_to_failure(e, "doomed", 12, &doomed) == CZK_OK);
    CHECK_EQ_INT(doomed.status, CZK_JOB_FAILED);
    CHECK(doomed.names_part);
    CHECK(doomed.says_verify); /* the second attempt ran on the fallback */
    CHECK_EQ_INT(doomed.retried, 1);
    CHECK_EQ_INT(doomed.failed, 1);
}

/* Backend names: cpu never touches CUDA; auto always starts (on the CPU when there is no
 * usable device); cuda fails at create with a message unless a device is usable. */
CZK_TEST(engine_backend_selection) {
    czk_engine_config cfg = czk_etest_config();
    czk_engine *e = NULL;
    czk_err err = {0};
    cfg.backend = "gpu";
    CHECK_EQ_INT(czk_engine_create(&e, &cfg, &err), CZK_EINVAL);
    CHECK(e == NULL && strstr(err.msg, "unknown backend") != NULL);

    cfg.backend = "cpu";
    CHECK(czk_engine_create(&e, &cfg, NULL) == CZK_OK);
    czk_engine_status st;
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    CHECK_EQ_INT(st.n_devices, 1);
    CHECK(strncmp(st.devices[0].name, "cpu", 3) == 0);
    CHECK(st.devices[0].vram_total_bytes == 0);
    czk_engine_status_clear(&st);
    czk_engine_destroy(e);

    cfg.backend = "auto";
    CHECK(czk_engine_create(&e, &cfg, NULL) == CZK_OK);
    CHECK(czk_engine_get_status(e, &st) == CZK_OK);
    CHECK(st.n_devices >= 1);
    int cpu_only = st.devices[0].vram_total_bytes == 0;
    if (cpu_only)
        CHECK(strncmp(st.devices[0].name, "cpu", 3) == 0);
    czk_engine_status_clear(&st);
    czk_engine_destroy(e);

    cfg.backend = "cuda";
    e = NULL;
    int rc = czk_engine_create(&e, &cfg, &err);
    if (cpu_only) {
        /* No usable device (or no CUDA in the build): a clear refusal. */
        CHECK_EQ_INT(rc, CZK_EINVAL);
        CHECK(e == NULL);
        CHECK(strstr(err.msg, "cuda") != NULL);
    } else {
        CHECK_EQ_INT(rc, CZK_OK);
        czk_engine_destroy(e);
    }
}
