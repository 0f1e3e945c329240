/*
 * An engine on several devices, with stand-in GPUs: each fake device proves through the CPU
 * prover but keeps a key of its own (attach hands out a handle that prove checks is its own),
 * takes a while per proof so that both devices are busy at once, and fails on command — a
 * device fault (CZK_ECUDA) from its Nth proof on, as a GPU that falls off the bus would, or
 * proofs that do not verify. What is checked: the partitions of one job spread over both
 * devices, each device's key attached once and detached at the end, a device that fails
 * mid-job costs no job (its partitions go to the other device, else to the CPU), and status
 * and metrics say which device is out of service and why.
 */
#include "czk.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "curve/g1.h"
#include "engine/engine_internal.h"
#include "engine/engine_test_util.h"
#include "groth16/device.h"
#include "r1cs/rep.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/timer.h"

typedef struct fake_dev {
    czk_device base;
    czk_device *cpu;
    unsigned index;
    int fail_mode;
    int fail_after; /* proofs before the failures start */
    unsigned delay_ms;
    int lane; /* labelled as a priority lane ("fake:N/lane") */
    /* Holds key and circuit as a GPU that proves whole partitions does: attach copies the
     * key's points, and proofs read the copy, never the engine's (which may then go). */
    int whole;
    int takes_rep; /* attach_rep expands a repeated circuit (whole devices only) */
    czk_etest_fake_stats *st;
} fake_dev;

typedef struct fake_key {
    fake_dev *owner;
    const czk_groth16_pk *pk;
    czk_groth16_pk copy; /* a whole device's: its own points, the engine's verifying key */
    czk_r1cs rows;       /* a repeated circuit's rows, expanded as a GPU does on the device */
} fake_key;

/* A copy of n bytes at p, NULL when p is (or n is 0). */
static void *dup_bytes(const void *p, size_t n) {
    void *q = p != NULL && n > 0 ? czk_malloc(n) : NULL;
    if (q != NULL)
        memcpy(q, p, n);
    return q;
}

static void fake_copy_free(czk_groth16_pk *k) {
    czk_free(k->h);
    czk_free(k->l);
    czk_free(k->a);
    czk_free(k->b_g1);
    czk_free(k->b_g2);
    memset(k, 0, sizeof *k);
}

static void fake_close(czk_device *d) {
    fake_dev *f = (fake_dev *)d;
    czk_device_close(f->cpu);
    czk_free(f);
}

static void fake_info(czk_device *d, czk_device_info *out) {
    fake_dev *f = (fake_dev *)d;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "fake device %u", f->index);
    snprintf(out->label, sizeof out->label, "fake:%u%s", f->index, f->lane ? "/lane" : "");
    out->ordinal = (int)f->index;
    out->mem_total = out->mem_free = out->mem_budget = 64u << 20;
}

static int fake_need(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs *cs,
                     czk_device_need *out, czk_err *err) {
    (void)d, (void)pk, (void)cs, (void)err;
    out->partition_bytes = 1u << 20; /* reserved from mem_budget while a partition proves */
    out->attach_host_bytes = 0;
    return CZK_OK;
}

static int fake_attach(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs *cs,
                       czk_device_key **key, czk_device_attach *mode, czk_err *err) {
    (void)cs;
    *key = NULL;
    *mode = CZK_DEVICE_ATTACH_NONE;
    fake_key *k = czk_malloc(sizeof *k);
    if (k == NULL)
        return czk_err_set(err, CZK_ENOMEM, "fake attach");
    memset(k, 0, sizeof *k);
    k->owner = (fake_dev *)d;
    k->pk = pk;
    if (k->owner->whole) {
        k->copy = *pk;
        k->copy.h = dup_bytes(pk->h, pk->n_h * sizeof(czk_g1_affine));
        k->copy.l = dup_bytes(pk->l, pk->n_l * sizeof(czk_g1_affine));
        k->copy.a = dup_bytes(pk->a, pk->n_a * sizeof(czk_g1_affine));
        k->copy.b_g1 = dup_bytes(pk->b_g1, pk->n_b_g1 * sizeof(czk_g1_affine));
        k->copy.b_g2 = dup_bytes(pk->b_g2, pk->n_b_g2 * sizeof(czk_g2_affine));
        if ((pk->n_h > 0 && k->copy.h == NULL) || (pk->n_l > 0 && k->copy.l == NULL) ||
            (pk->n_a > 0 && k->copy.a == NULL) || (pk->n_b_g1 > 0 && k->copy.b_g1 == NULL) ||
            (pk->n_b_g2 > 0 && k->copy.b_g2 == NULL)) {
            fake_copy_free(&k->copy);
            czk_free(k);
            return czk_err_set(err, CZK_ENOMEM, "fake attach: the key's copy");
        }
    }
    __atomic_fetch_add(&k->owner->st->attaches, 1, __ATOMIC_RELAXED);
    *key = (czk_device_key *)k;
    *mode = k->owner->whole ? CZK_DEVICE_ATTACH_WHOLE : CZK_DEVICE_ATTACH_POINTS;
    return CZK_OK;
}

static void fake_detach(czk_device *d, czk_device_key *key) {
    fake_key *k = (fake_key *)key;
    if (k == NULL)
        return;
    if (k->owner == (fake_dev *)d)
        __atomic_fetch_add(&k->owner->st->detaches, 1, __ATOMIC_RELAXED);
    fake_copy_free(&k->copy);
    czk_r1cs_clear(&k->rows);
    czk_free(k);
}

/* A repeated circuit (r1cs/rep.h): a whole device that takes them keeps the key's copy and the
 * rows expanded (a GPU expands them in its own memory); another cannot (NONE). */
static int fake_attach_rep(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs_rep *rep,
                           const czk_r1cs *cs, czk_device_key **key, czk_device_attach *mode,
                           czk_err *err) {
    *key = NULL;
    *mode = CZK_DEVICE_ATTACH_NONE;
    if (!((fake_dev *)d)->whole || !((fake_dev *)d)->takes_rep)
        return CZK_OK;
    int rc = fake_attach(d, pk, cs, key, mode, err);
    if (rc != CZK_OK)
        return rc;
    fake_key *k = (fake_key *)*key;
    if ((rc = czk_r1cs_rep_expand(rep, &k->rows, NULL, err)) != CZK_OK) {
        fake_detach(d, *key);
        *key = NULL;
        *mode = CZK_DEVICE_ATTACH_NONE;
    }
    return rc;
}

static int fake_prove(czk_device *d, czk_device_key *key, const czk_groth16_pk *pk,
                      const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                      const czk_fr *r, const czk_fr *s, czk_groth16_proof *proof,
                      czk_groth16_timings *tm, czk_pool *pool, czk_err *err) {
    fake_dev *f = (fake_dev *)d;
    const fake_key *k = (const fake_key *)key;
    if (k == NULL || k->owner != f || k->pk != pk) {
        __atomic_fetch_add(&f->st->foreign_keys, 1, __ATOMIC_RELAXED);
        return czk_err_set(err, CZK_EINTERNAL, "fake:%u: asked to prove with another key",
                           f->index);
    }
    __atomic_store_n(&f->st->pool, (const void *)pool, __ATOMIC_RELAXED);
    struct timespec ts = {(time_t)(f->delay_ms / 1000), (long)(f->delay_ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
    int done = __atomic_load_n(&f->st->proofs, __ATOMIC_RELAXED);
    if (f->fail_mode == CZK_ETEST_FAIL_FAULT && done >= f->fail_after) {
        __atomic_fetch_add(&f->st->faults, 1, __ATOMIC_RELAXED);
        return czk_err_set(err, CZK_ECUDA, "fake:%u: injected device loss", f->index);
    }
    if (f->fail_mode == CZK_ETEST_FAIL_NOMEM && done >= f->fail_after) {
        __atomic_fetch_add(&f->st->faults, 1, __ATOMIC_RELAXED);
        return czk_err_set(err, CZK_ENOMEM, "fake:%u: no device memory for this circuit", f->index);
    }
    int rc =
        f->cpu->ops->prove(f->cpu, NULL, f->whole ? &k->copy : pk,
                           k->rows.n_vars > 0 ? &k->rows : cs, w, wp, r, s, proof, tm, pool, err);
    if (rc == CZK_OK && f->fail_mode == CZK_ETEST_FAIL_CORRUPT && done >= f->fail_after) {
        czk_g1_jacobian a; /* A + G: a proof that cannot verify */
        czk_g1_jacobian_from_affine(&a, &proof->a);
        czk_g1_jacobian_add_affine_var(&a, &a, &CZK_G1_GENERATOR);
        czk_g1_jacobian_to_affine(&proof->a, &a);
    }
    if (rc == CZK_OK)
        __atomic_fetch_add(&f->st->proofs, 1, __ATOMIC_RELAXED);
    return rc;
}

static const czk_device_ops fake_ops = {
    .close = fake_close,
    .info = fake_info,
    .need = fake_need,
    .attach = fake_attach,
    .attach_rep = fake_attach_rep,
    .detach = fake_detach,
    .prove = fake_prove,
};

czk_device *czk_etest_fake_open(unsigned index, int fail_mode, int fail_after, unsigned delay_ms,
                                czk_etest_fake_stats *st) {
    fake_dev *f = czk_calloc(1, sizeof *f);
    if (f == NULL)
        return NULL;
    if (czk_device_cpu_open(&f->cpu, NULL, "cpu", NULL) != CZK_OK) {
        czk_free(f);
        return NULL;
    }
    f->base.ops = &fake_ops;
    f->index = index;
    f->fail_mode = fail_mode;
    f->fail_after = fail_after;
    f->delay_ms = delay_ms;
    f->st = st;
    memset(st, 0, sizeof *st);
    return &f->base;
}

void czk_etest_fake_takes_rep(czk_device *d, int on) {
    ((fake_dev *)d)->takes_rep = on;
}

void czk_etest_fake_mode(czk_device *d, int lane, int whole) {
    fake_dev *f = (fake_dev *)d;
    f->lane = lane;
    f->whole = whole;
    if (whole)
        d->flags |= CZK_DEVICE_WHOLE_PROOFS;
}

/* An engine on two fake devices (one worker each) logging into cap, porep8 loaded. */
typedef struct two_devs {
    czk_etest_fake_stats st[2];
    czk_etest_logcap cap;
    czk_engine *e;
    czk_groth16_vk vk;   /* porep8's */
    czk_engine_status s; /* two_devices_status's */
} two_devs;

/* Starts d, device i failing as mode_i (device 1 from its after1-th proof on). */
static int two_device_engine(two_devs *d, int mode0, int mode1, int after1) {
    memset(&d->s, 0, sizeof d->s);
    czk_engine_config cfg = czk_etest_config();
    cfg.workers_per_device = 1;
    cfg.synth_threads = 2;
    czk_device *devs[2] = {czk_etest_fake_open(0, mode0, 0, 40, &d->st[0]),
                           czk_etest_fake_open(1, mode1, after1, 40, &d->st[1])};
    if (devs[0] == NULL || devs[1] == NULL)
        return CZK_ENOMEM;
    czk_etest_setup setup = {.cap = &d->cap, .devs = devs, .n_devs = 2, .vk = &d->vk};
    return czk_etest_engine(&d->e, &cfg, "porep8", 8, &setup);
}

/* The engine's status now, into d->s. */
static int two_devices_status(two_devs *d) {
    czk_engine_status_clear(&d->s);
    return czk_engine_get_status(d->e, &d->s);
}

/* Ends d's engine; its log stays in d->cap (the caller frees it). */
static void two_devices_stop(two_devs *d) {
    czk_engine_status_clear(&d->s);
    czk_groth16_vk_clear(&d->vk);
    czk_engine_destroy(d->e);
}

/* Submits job `id` of `parts` partitions of porep8 and awaits it: CZK_OK when it completed
 * and every proof verifies under porep8's vk. */
static int job_ok(two_devs *d, const char *id, size_t parts, uint64_t seed) {
    return czk_etest_prove(d->e, id, "porep8", CZK_PRIORITY_NORMAL, parts, seed, &d->vk);
}

/* Submits job `id`, one partition of `circuit` at priority CRITICAL, and awaits it: CZK_OK
 * when its proof verifies under vk; *ms the milliseconds that took. */
static int critical_job(czk_engine *e, const char *id, const char *circuit, uint64_t seed,
                        const czk_groth16_vk *vk, uint64_t *ms) {
    uint64_t t0 = czk_time_ns();
    int rc = czk_etest_prove(e, id, circuit, CZK_PRIORITY_CRITICAL, 1, seed, vk);
    *ms = (czk_time_ns() - t0) / 1000000u;
    return rc;
}

/* The partitions of one job spread over both devices; each device proves with its own copy
 * of the key, attached once and detached when the engine ends. */
CZK_TEST(engine_two_devices_share_a_job) {
    two_devs d;
    CHECK(two_device_engine(&d, CZK_ETEST_FAIL_NEVER, CZK_ETEST_FAIL_NEVER, 0) == CZK_OK);
    int rc = job_ok(&d, "spread", 10, 31);
    CHECK(two_devices_status(&d) == CZK_OK);
    size_t ndev = d.s.n_devices;
    uint64_t proved0 = ndev == 2 ? d.s.devices[0].partitions_proved : 0;
    uint64_t proved1 = ndev == 2 ? d.s.devices[1].partitions_proved : 0;
    int any_failed = ndev == 2 && (d.s.devices[0].failed || d.s.devices[1].failed);
    uint64_t retried = d.s.partitions_retried;
    int tier = d.s.n_circuits == 1 ? d.s.circuits[0].tier : -1;
    two_devices_stop(&d);
    int attached_both =
        czk_etest_cap_has(&d.cap, "key resident circuit=porep8 device=fake:0", NULL) &&
        czk_etest_cap_has(&d.cap, "key resident circuit=porep8 device=fake:1", NULL);
    czk_etest_cap_free(&d.cap);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK_EQ_INT(ndev, 2);
    CHECKF(d.st[0].proofs >= 1 && d.st[1].proofs >= 1, "proofs per device: %d, %d", d.st[0].proofs,
           d.st[1].proofs);
    CHECK_EQ_INT(d.st[0].proofs + d.st[1].proofs, 10);
    CHECK_EQ_INT(proved0, d.st[0].proofs);
    CHECK_EQ_INT(proved1, d.st[1].proofs);
    CHECK_EQ_INT(retried, 0);
    CHECK(!any_failed);
    CHECK_EQ_INT(tier, 0); /* HOT: resident on a device */
    CHECK(attached_both);
    for (int i = 0; i < 2; i++) {
        CHECK_EQ_INT(d.st[i].attaches, 1);
        CHECK_EQ_INT(d.st[i].detaches, 1);
        CHECK_EQ_INT(d.st[i].foreign_keys, 0);
        CHECK_EQ_INT(d.st[i].faults, 0);
    }
}

/* Device 1 is lost after its first proof: the attempt it failed is proved on device 0 (not
 * the CPU), the device is out of service from then on — no later partition of this job or the
 * next is sent to it — and status and metrics say so. */
CZK_TEST(engine_device_lost_mid_job) {
    two_devs d;
    CHECK(two_device_engine(&d, CZK_ETEST_FAIL_NEVER, CZK_ETEST_FAIL_FAULT, 1) == CZK_OK);
    int rc1 = job_ok(&d, "lost1", 10, 41);
    int rc2 = job_ok(&d, "lost2", 4, 42);
    CHECK(two_devices_status(&d) == CZK_OK);
    uint64_t retried = d.s.partitions_retried, pfailed = d.s.partitions_failed;
    int failed0 = d.s.devices[0].failed, failed1 = d.s.devices[1].failed;
    uint64_t dev1_failed = d.s.devices[1].partitions_failed;
    int says = strstr(d.s.devices[1].failure, "injected device loss") != NULL;
    char *json = NULL;
    CHECK(czk_engine_status_json(&d.s, &json) == CZK_OK);
    int json_says = strstr(json, "\"failed\": true, \"failure\": \"fake:1: injected") != NULL;
    czk_free(json);
    char *text = NULL;
    CHECK(czk_engine_metrics(d.e, &text) == CZK_OK);
    int up0 = strstr(text, "czk_device_up{device=\"0\",name=\"fake device 0\"} 1\n") != NULL;
    int up1 = strstr(text, "czk_device_up{device=\"1\",name=\"fake device 1\"} 0\n") != NULL;
    czk_free(text);
    two_devices_stop(&d);
    int retried_on_0 = czk_etest_cap_has(&d.cap, "backend=fake:0 attempt=2", "result=ok");
    int on_cpu = czk_etest_cap_has(&d.cap, "backend=cpu", NULL);
    int warned = czk_etest_cap_has(&d.cap, "device fake:1 out of service", "injected device loss");
    czk_etest_cap_free(&d.cap);
    CHECK_EQ_INT(rc1, CZK_OK);
    CHECK_EQ_INT(rc2, CZK_OK);
    CHECK_EQ_INT(d.st[1].proofs, 1);
    CHECK_EQ_INT(d.st[1].faults, 1); /* taken out at its first fault */
    CHECK_EQ_INT(d.st[0].proofs, 13);
    CHECK_EQ_INT(retried, 1);
    CHECK_EQ_INT(pfailed, 0);
    CHECK(!failed0);
    CHECK(failed1);
    CHECK_EQ_INT(dev1_failed, 1);
    CHECK(says);
    CHECK(json_says);
    CHECK(up0);
    CHECK(up1);
    CHECK(retried_on_0);
    CHECK(!on_cpu);
    CHECK(warned);
}

/* The testing hook bench_engine --fail-device uses on real GPUs: device 0's next attempt
 * is a fault, so device 0 goes out of service before it proves anything, and the job is
 * proved on device 1, none of it on the CPU. An index past the devices is refused. */
CZK_TEST(engine_injected_device_fault) {
    two_devs d;
    CHECK(two_device_engine(&d, CZK_ETEST_FAIL_NEVER, CZK_ETEST_FAIL_NEVER, 0) == CZK_OK);
    CHECK(czk__engine_inject_device_fault(d.e, 2) == CZK_EINVAL);
    CHECK(czk__engine_inject_device_fault(d.e, 0) == CZK_OK);
    int rc = job_ok(&d, "inj", 6, 51);
    CHECK(two_devices_status(&d) == CZK_OK);
    int down0 = d.s.devices[0].failed, down1 = d.s.devices[1].failed;
    int says = strstr(d.s.devices[0].failure, "fake:0: injected device fault") != NULL;
    uint64_t proved1 = d.s.devices[1].partitions_proved;
    two_devices_stop(&d);
    int on_cpu = czk_etest_cap_has(&d.cap, "backend=cpu", NULL);
    czk_etest_cap_free(&d.cap);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK(down0 && !down1);
    CHECK(says);
    CHECK_EQ_INT(d.st[0].proofs, 0);
    CHECK_EQ_INT(d.st[1].proofs, 6);
    CHECK_EQ_INT(proved1, 6);
    CHECK(!on_cpu);
}

/* Both devices fail: one is lost at once, the other returns proofs that do not verify and is
 * taken out after CZK__DEVICE_MAX_FAULTS of them in a row (its worker may have made one or two
 * more while the finalizer verified: proofs are checked after the device lock is released);
 * every partition is proved on the CPU fallback and the job completes. */
CZK_TEST(engine_all_devices_fail_cpu_proves) {
    two_devs d;
    CHECK(two_device_engine(&d, CZK_ETEST_FAIL_FAULT, CZK_ETEST_FAIL_CORRUPT, 0) == CZK_OK);
    int rc = job_ok(&d, "allfail", 12, 51);
    CHECK(two_devices_status(&d) == CZK_OK);
    int failed0 = d.s.devices[0].failed, failed1 = d.s.devices[1].failed;
    int why1 = strstr(d.s.devices[1].failure, "did not verify") != NULL;
    uint64_t proved = d.s.devices[0].partitions_proved + d.s.devices[1].partitions_proved;
    two_devices_stop(&d);
    size_t ok_lines = 0, ok_cpu = 0;
    for (size_t i = 0; i < d.cap.n; i++) {
        if (strstr(d.cap.lines[i], "result=ok") == NULL)
            continue;
        ok_lines++;
        ok_cpu += strstr(d.cap.lines[i], "backend=cpu") != NULL;
    }
    czk_etest_cap_free(&d.cap);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK(failed0);
    CHECK(failed1);
    CHECK(why1);
    CHECK_EQ_INT(proved, 0);
    CHECK_EQ_INT(d.st[0].faults, 1);
    CHECKF(d.st[1].proofs >= CZK__DEVICE_MAX_FAULTS && d.st[1].proofs <= CZK__DEVICE_MAX_FAULTS + 2,
           "device 1 made %d proofs", d.st[1].proofs);
    CHECK_EQ_INT(ok_lines, 12);
    CHECK_EQ_INT(ok_cpu, 12);
}

/* A device that cannot give a circuit the memory it needs is no faulty device: the partitions
 * it fails are proved on the other one, and it stays in service, failing no job. */
CZK_TEST(engine_device_without_memory_stays) {
    two_devs d;
    CHECK(two_device_engine(&d, CZK_ETEST_FAIL_NEVER, CZK_ETEST_FAIL_NOMEM, 0) == CZK_OK);
    int rc = job_ok(&d, "nomem", 8, 61);
    CHECK(two_devices_status(&d) == CZK_OK);
    int failed1 = d.s.devices[1].failed;
    uint64_t tried1 = d.s.devices[1].partitions_failed, retried = d.s.partitions_retried;
    two_devices_stop(&d);
    int on_cpu = czk_etest_cap_has(&d.cap, "backend=cpu", NULL);
    czk_etest_cap_free(&d.cap);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK(!failed1);
    CHECKF(tried1 >= 1 && (int)tried1 == d.st[1].faults, "device 1 failed %d attempts (%d)",
           (int)tried1, d.st[1].faults);
    CHECK_EQ_INT(retried, tried1);
    CHECK_EQ_INT(d.st[0].proofs, 8);
    CHECK(!on_cpu);
}

/* Waits up to 5 s for circuit id's host copy to reach state `want` (enum czk__host_copy). */
static int wait_host(czk_engine *e, const char *id, int want) {
    for (int i = 0; i < 500; i++) {
        pthread_mutex_lock(&e->mu);
        const circuit *c = czk__find_circuit(e, id);
        int at = c != NULL && c->host == want;
        pthread_mutex_unlock(&e->mu);
        if (at)
            return 1;
        czk_etest_sleep_ms(10);
    }
    return 0;
}

/* The circuit's status line, from a status taken now (zeroed when absent). */
static czk_circuit_status circuit_now(czk_engine *e) {
    czk_circuit_status out;
    czk_engine_status s;
    memset(&out, 0, sizeof out);
    memset(&s, 0, sizeof s);
    if (czk_engine_get_status(e, &s) == CZK_OK && s.n_circuits == 1)
        out = s.circuits[0];
    czk_engine_status_clear(&s);
    return out;
}

/*
 * Keys on devices only (keys.c): a device that holds key and circuit whole proves from the
 * witness alone, so after its first proof the host frees its copy of the key's points, the
 * budget gets those bytes back and status says device_only. An eviction of such a key and the
 * next job's load work as for any other. When the device is lost, the retries on the CPU read
 * the key again first (the restored key is checked against the loaded one), and every proof
 * verifies.
 */
CZK_TEST(engine_key_on_device_only) {
    czk_etest_fake_stats st;
    czk_etest_logcap cap;
    czk_groth16_vk vk;
    czk_engine_config cfg = czk_etest_config();
    cfg.workers_per_device = 1;
    cfg.synth_threads = 1;
    czk_device *dev = czk_etest_fake_open(0, CZK_ETEST_FAIL_NEVER, 0, 5, &st);
    CHECK(dev != NULL);
    czk_etest_fake_mode(dev, 0, 1);
    czk_engine *e = NULL;
    czk_etest_setup setup = {.cap = &cap, .devs = &dev, .n_devs = 1, .vk = &vk};
    CHECK(czk_etest_engine(&e, &cfg, "porep8", 8, &setup) == CZK_OK);
    const czk_circuit_status s0 = circuit_now(e);

    int rc1 = czk_etest_prove(e, "only1", "porep8", CZK_PRIORITY_NORMAL, 3, 71, &vk);
    int dropped = wait_host(e, "porep8", H_DROPPED);
    pthread_mutex_lock(&e->mu);
    const circuit *c = czk__find_circuit(e, "porep8");
    const uint64_t points =
        (c->pk.n_h + c->pk.n_l + c->pk.n_a + c->pk.n_b_g1) * (uint64_t)sizeof(czk_g1_affine) +
        c->pk.n_b_g2 * (uint64_t)sizeof(czk_g2_affine);
    const int no_points = c->pk.h == NULL && c->pk.l == NULL && c->pk.a == NULL &&
                          c->pk.b_g1 == NULL && c->pk.b_g2 == NULL;
    const uint64_t reserved1 = e->reserved;
    pthread_mutex_unlock(&e->mu);
    const czk_circuit_status s1 = circuit_now(e);

    /* Evicted while on the device only, then loaded, attached and dropped again. */
    int was = 0;
    uint64_t freed = 0;
    czk_err err = {0};
    int rc_ev = czk_engine_evict(e, "porep8", &was, &freed, &err);
    pthread_mutex_lock(&e->mu);
    const uint64_t reserved_ev = e->reserved;
    pthread_mutex_unlock(&e->mu);
    int rc2 = czk_etest_prove(e, "only2", "porep8", CZK_PRIORITY_NORMAL, 2, 72, &vk);
    int dropped2 = wait_host(e, "porep8", H_DROPPED);

    /* The device is lost: both partitions go to the CPU, which needs the host copy. */
    CHECK(czk__engine_inject_device_fault(e, 0) == CZK_OK);
    int rc3 = czk_etest_prove(e, "only3", "porep8", CZK_PRIORITY_NORMAL, 2, 73, &vk);
    pthread_mutex_lock(&e->mu);
    const int restored = c->host == H_FULL && c->pk.h != NULL && c->pk.b_g2 != NULL;
    pthread_mutex_unlock(&e->mu);
    const czk_circuit_status s3 = circuit_now(e);

    czk_groth16_vk_clear(&vk);
    czk_engine_destroy(e);
    size_t n_dropped = 0;
    for (size_t i = 0; i < cap.n; i++)
        n_dropped += strstr(cap.lines[i], "key host copy dropped circuit=porep8") != NULL;
    int said_restored = czk_etest_cap_has(&cap, "key host copy restored circuit=porep8", NULL);
    int on_cpu = czk_etest_cap_has(&cap, "backend=cpu", "result=ok");
    czk_etest_cap_free(&cap);

    CHECK_EQ_INT(rc1, CZK_OK);
    CHECK(dropped);
    CHECK(no_points);
    CHECK(points > 0);
    CHECK_EQ_INT(s0.device_only, 0);
    CHECK_EQ_INT(s1.device_only, 1);
    CHECKF(s0.size_bytes >= s1.size_bytes + points, "loaded %llu, then %llu (points %llu)",
           (unsigned long long)s0.size_bytes, (unsigned long long)s1.size_bytes,
           (unsigned long long)points);
    CHECK_EQ_INT(rc_ev, CZK_OK);
    CHECK(was);
    CHECK_EQ_INT(freed, s1.size_bytes);
    CHECK_EQ_INT(reserved_ev, reserved1 - s1.size_bytes);
    CHECK_EQ_INT(rc2, CZK_OK);
    CHECK(dropped2);
    CHECK_EQ_INT(n_dropped, 2);
    CHECK_EQ_INT(st.attaches, 2);
    CHECK_EQ_INT(st.foreign_keys, 0);
    CHECK_EQ_INT(rc3, CZK_OK);
    CHECK(restored);
    CHECK(said_restored);
    CHECK(on_cpu);
    CHECK_EQ_INT(s3.device_only, 0);
    CHECK_EQ_INT(s3.size_bytes, s0.size_bytes);
}

/* gpus.devices: which CUDA ordinals an engine opens, and the refusals. */
CZK_TEST(engine_devices_select) {
    unsigned out[8];
    size_t n = 0;
    czk_err err = {0};
    CHECK(czk__devices_select(NULL, 0, 3, out, &n, &err) == CZK_OK);
    CHECK(n == 3 && out[0] == 0 && out[1] == 1 && out[2] == 2);
    const unsigned pick[2] = {2, 0};
    CHECK(czk__devices_select(pick, 2, 3, out, &n, &err) == CZK_OK);
    CHECK(n == 2 && out[0] == 2 && out[1] == 0);
    CHECK(czk__devices_select(pick, 2, 2, out, &n, &err) == CZK_EINVAL);
    CHECKF(strcmp(err.msg, "CUDA device 2 is listed, but 2 CUDA devices are present") == 0, "%s",
           err.msg);
    const unsigned twice[2] = {1, 1};
    CHECK(czk__devices_select(twice, 2, 2, out, &n, &err) == CZK_EINVAL);
    CHECKF(strstr(err.msg, "listed twice") != NULL, "%s", err.msg);
    CHECK(czk__devices_select(pick + 1, 1, 0, out, &n, &err) == CZK_EINVAL);
    CHECKF(strstr(err.msg, "0 CUDA devices are present") != NULL, "%s", err.msg);
    /* An engine asked for a device that is not there does not start. */
    czk_engine_config cfg = czk_etest_config();
    cfg.backend = "auto";
    const unsigned absent = 63;
    cfg.gpu_ordinals = &absent;
    cfg.n_gpu_ordinals = 1;
    czk_engine *e = NULL;
    CHECK(czk_engine_create(&e, &cfg, &err) == CZK_EINVAL && e == NULL);
    CHECKF(strstr(err.msg, "CUDA device 63 is listed") != NULL, "%s", err.msg);
    /* "cpu" ignores the list. */
    cfg.backend = "cpu";
    CHECK(czk_engine_create(&e, &cfg, &err) == CZK_OK);
    czk_engine_destroy(e);
}

/* A priority lane (a second device on one GPU, as czk__devices_open opens beside each large
 * GPU): a CRITICAL job proves there while the main device is in a long kernel region of a
 * NORMAL job, instead of after it; the NORMAL job's partitions never go to the lane; and the
 * CRITICAL proof's host steps get a pool of their own, not the one the NORMAL job's loops
 * hold (one loop runs on a pool at a time). */
CZK_TEST(engine_priority_lane_beside_long_proofs) {
    czk_etest_fake_stats st[2];
    czk_etest_logcap cap;
    czk_groth16_vk vk;
    czk_engine_config cfg = czk_etest_config();
    cfg.workers_per_device = 1;
    cfg.synth_threads = 1;
    czk_device *devs[2] = {czk_etest_fake_open(0, CZK_ETEST_FAIL_NEVER, 0, 4000, &st[0]),
                           czk_etest_fake_open(1, CZK_ETEST_FAIL_NEVER, 0, 10, &st[1])};
    CHECK(devs[0] != NULL && devs[1] != NULL);
    czk_etest_fake_mode(devs[1], 1, 0);
    czk_engine *e = NULL;
    czk_etest_setup setup = {.cap = &cap, .devs = devs, .n_devs = 2, .vk = &vk};
    CHECK_EQ_INT(czk_etest_engine(&e, &cfg, "porep8", 8, &setup), CZK_OK);
    CHECK_EQ_INT(czk_etest_submit_synth(e, "c2", "porep8", CZK_PRIORITY_NORMAL, 2, 51, NULL),
                 CZK_OK);
    /* Wait for the main device's first long region to begin. */
    for (int i = 0; i < 500 && !czk_etest_cap_has(&cap, "job=c2", "synth_ms"); i++)
        czk_etest_sleep_ms(10);
    czk_etest_sleep_ms(200);
    uint64_t win_ms;
    int rc_win = critical_job(e, "win", "porep8", 52, &vk, &win_ms);
    int rc_c2 = czk_etest_await_verify(e, "c2", &vk, 2);
    czk_engine_status s;
    CHECK(czk_engine_get_status(e, &s) == CZK_OK);
    const unsigned n_devs = s.n_devices;
    const int lane_label = n_devs == 2 && s.devices[1].workers == 1 &&
                           strcmp(s.devices[1].name, "fake device 1 (priority lane)") == 0;
    czk_engine_status_clear(&s);
    czk_groth16_vk_clear(&vk);
    czk_engine_destroy(e);
    int win_on_lane = czk_etest_cap_has(&cap, "job=win", "backend=fake:1/lane");
    int c2_on_lane = czk_etest_cap_has(&cap, "job=c2", "backend=fake:1/lane");
    czk_etest_cap_free(&cap);
    CHECK_EQ_INT(rc_win, CZK_OK);
    CHECK_EQ_INT(rc_c2, CZK_OK);
    CHECK(lane_label);
    CHECK(win_on_lane);
    CHECK(!c2_on_lane);
    CHECK_EQ_INT(st[1].proofs, 1);
    CHECK_EQ_INT(st[0].proofs, 2);
    CHECK(st[0].pool != NULL && st[1].pool != NULL && st[0].pool != st[1].pool);
    /* The main device's region had at least 3.8 s left when "win" arrived; "win" alone takes
     * 50 ms here and some 1.3 s under TSan. */
    CHECKF(win_ms < 3000, "win took %llu ms", (unsigned long long)win_ms);
}

/* An engine on two fake devices (device 1 out of memory for every partition when nomem) with
 * a host budget of `budget` bytes (0: the tests' 1 GiB), porep8 loaded; its vk in *vk when vk
 * is not NULL. */
static int budget_engine(czk_engine **e, czk_etest_fake_stats st[2], uint64_t budget, int nomem,
                         czk_groth16_vk *vk) {
    czk_engine_config cfg = czk_etest_config();
    cfg.workers_per_device = 1;
    cfg.synth_threads = 2;
    cfg.pinned_budget_bytes = 1; /* a GPU engine sets pinned memory aside: as good as none */
    if (budget != 0)
        cfg.host_budget_bytes = budget + 1;
    czk_device *devs[2] = {
        czk_etest_fake_open(0, CZK_ETEST_FAIL_NEVER, 0, 20, &st[0]),
        czk_etest_fake_open(1, nomem ? CZK_ETEST_FAIL_NOMEM : CZK_ETEST_FAIL_NEVER, 0, 20, &st[1])};
    if (devs[0] == NULL || devs[1] == NULL)
        return CZK_ENOMEM;
    czk_etest_setup setup = {.devs = devs, .n_devs = 2, .preload = 1, .vk = vk};
    return czk_etest_engine(e, &cfg, "porep8", 8, &setup);
}

static int reserved_at_most(czk_engine *e, uint64_t limit, uint64_t *peak) {
    czk_engine_status s;
    if (czk_engine_get_status(e, &s) != CZK_OK)
        return 0;
    if (s.host_reserved_bytes > *peak)
        *peak = s.host_reserved_bytes;
    czk_engine_status_clear(&s);
    return *peak <= limit;
}

/*
 * Never killed, only refused or queued (issue 29): with a host budget below the key and one
 * partition a job is refused at submit, the message naming the figures; with room for the key
 * and one partition but not two, a job of six partitions is queued through, one partition's
 * working set at a time, and completes; a device that runs out of memory mid-proof has its
 * partitions retried on the other device, none lost.
 */
CZK_TEST(engine_memory_budgets_refuse_queue_retry) {
    czk_etest_fake_stats st[2];
    czk_engine *e = NULL;
    /* The figures, from an engine with room. */
    CHECK_EQ_INT(budget_engine(&e, st, 0, 0, NULL), CZK_OK);
    pthread_mutex_lock(&e->mu);
    const circuit *c = czk__find_circuit(e, "porep8");
    const uint64_t key = c->bytes, need = czk__part_need(e, c), floor = czk__part_floor(e, c);
    const uint64_t room = czk__scratch_headroom(e);
    pthread_mutex_unlock(&e->mu);
    czk_engine_destroy(e);
    CHECK(key > 0 && need > 0 && floor > 0 && floor <= need + room);

    /* Below the key and one partition: refused at submit (the job is FAILED before any of it
     * runs, the message naming the figures). */
    CHECK_EQ_INT(budget_engine(&e, st, key + floor - 1, 0, NULL), CZK_OK);
    uint64_t t0 = czk_time_ns();
    int rc = czk_etest_submit_synth(e, "small", "porep8", CZK_PRIORITY_NORMAL, 1, 71, NULL);
    czk_job_result res;
    czk_engine_await(e, "small", 0, &res, NULL);
    uint64_t ms = (czk_time_ns() - t0) / 1000000u;
    czk_job_status small = res.status;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", res.error);
    czk_job_result_clear(&res);
    czk_engine_status s;
    CHECK(czk_engine_get_status(e, &s) == CZK_OK);
    uint64_t started = s.partitions_proved + s.partitions_failed;
    czk_engine_status_clear(&s);
    czk_engine_destroy(e);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK_EQ_INT(small, CZK_JOB_FAILED);
    CHECK_EQ_INT(started, 0);
    CHECK(ms < 1000);
    char fig[160];
    snprintf(fig, sizeof fig, "needs %llu bytes (key %llu + one partition %llu)",
             (unsigned long long)(key + floor), (unsigned long long)key, (unsigned long long)floor);
    CHECKF(strstr(msg, fig) != NULL && strstr(msg, "host budget of") != NULL, "%s", msg);

    /* Room for one partition in flight, not two: queued through, within the budget. */
    const uint64_t one = key + need + room + need / 2;
    czk_groth16_vk vk;
    CHECK_EQ_INT(budget_engine(&e, st, one, 0, &vk), CZK_OK);
    CHECK_EQ_INT(czk_etest_submit_synth(e, "queued", "porep8", CZK_PRIORITY_NORMAL, 6, 73, NULL),
                 CZK_OK);
    uint64_t peak = 0;
    int within = 1;
    for (int i = 0; i < 200; i++) {
        within &= reserved_at_most(e, one, &peak);
        czk_etest_sleep_ms(2);
    }
    int rc_q = czk_etest_await_verify(e, "queued", &vk, 6);
    czk_groth16_vk_clear(&vk);
    czk_engine_destroy(e);
    CHECK_EQ_INT(rc_q, CZK_OK);
    CHECKF(within, "reserved %llu of a %llu budget", (unsigned long long)peak,
           (unsigned long long)one);
    CHECK(peak > key); /* partitions did hold memory */
    CHECK_EQ_INT(st[0].proofs + st[1].proofs, 6);

    /* Device 1 out of memory mid-proof: every partition it took is proved on device 0. */
    CHECK_EQ_INT(budget_engine(&e, st, 0, 1, &vk), CZK_OK);
    int rc_o = czk_etest_prove(e, "oom", "porep8", CZK_PRIORITY_NORMAL, 6, 74, &vk);
    CHECK(czk_engine_get_status(e, &s) == CZK_OK);
    uint64_t retried = s.partitions_retried, failed = s.partitions_failed;
    czk_engine_status_clear(&s);
    czk_groth16_vk_clear(&vk);
    czk_engine_destroy(e);
    CHECK_EQ_INT(rc_o, CZK_OK);
    CHECK_EQ_INT(st[0].proofs, 6);
    CHECK_EQ_INT((int)retried, st[1].faults);
    CHECK_EQ_INT(failed, 0);
}

/* Whether the engine has started a NORMAL job (status: in progress). */
static int normal_started(czk_engine *e) {
    czk_engine_status s;
    if (czk_engine_get_status(e, &s) != CZK_OK)
        return 0;
    int n = (int)s.in_progress_by_priority[CZK_PRIORITY_NORMAL];
    czk_engine_status_clear(&s);
    return n > 0;
}

/*
 * Host memory is no queue a WinningPoSt waits in: with a budget that two C2-like partitions
 * (porep10, NORMAL) would fill to one byte short of a WinningPoSt-like one (porep8, CRITICAL,
 * proved once before so the engine knows it is urgent), the NORMAL job keeps room for it, and
 * the CRITICAL job submitted while the main device is in a 3 s region is proved on the lane
 * at once instead of after that region gives memory back. "At once" is measured against the
 * same job on the idle engine (sanitizers make that alone take a second): a job that waited
 * for the region would take at least 2.7 s more.
 */
CZK_TEST(engine_urgent_room_for_post) {
    czk_etest_fake_stats st[2];
    czk_err err = {0};
    uint64_t key = 0, need8 = 0, need10 = 0, room = 0;
    for (int pass = 0; pass < 2; pass++) {
        czk_engine_config cfg = czk_etest_config();
        cfg.workers_per_device = 1;
        cfg.synth_threads = 2;
        cfg.pinned_budget_bytes = 1;
        if (pass == 1)
            cfg.host_budget_bytes = key + room + 2 * need10 + need8 - 1 + 1;
        czk_device *devs[2] = {czk_etest_fake_open(0, CZK_ETEST_FAIL_NEVER, 0, 3000, &st[0]),
                               czk_etest_fake_open(1, CZK_ETEST_FAIL_NEVER, 0, 10, &st[1])};
        CHECK(devs[0] != NULL && devs[1] != NULL);
        czk_etest_fake_mode(devs[1], 1, 0);
        czk_engine *e = NULL;
        czk_etest_setup setup = {.devs = devs, .n_devs = 2, .preload = 1};
        CHECK_EQ_INT(czk_etest_engine(&e, &cfg, "porep8", 8, &setup), CZK_OK);
        CHECK_EQ_INT(czk_engine_register_synthetic(e, "porep10", 10, &err), CZK_OK);
        CHECK_EQ_INT(czk_engine_preload(e, "porep10", NULL, NULL, &err), CZK_OK);
        if (pass == 0) {
            pthread_mutex_lock(&e->mu);
            const circuit *c8 = czk__find_circuit(e, "porep8"),
                          *c10 = czk__find_circuit(e, "porep10");
            key = c8->bytes + c10->bytes;
            need8 = czk__part_need(e, c8);
            need10 = czk__part_need(e, c10);
            room = czk__scratch_headroom(e);
            pthread_mutex_unlock(&e->mu);
            czk_engine_destroy(e);
            CHECK(need8 > 0 && need10 > need8);
            continue;
        }
        czk_groth16_vk vk8, vk10;
        CHECK(czk__engine_circuit_vk(e, "porep8", &vk8) == CZK_OK);
        CHECK(czk__engine_circuit_vk(e, "porep10", &vk10) == CZK_OK);
        uint64_t warm_ms, win_ms;
        int rc_warm = critical_job(e, "warm", "porep8", 81, &vk8, &warm_ms);
        CHECK_EQ_INT(czk_etest_submit_synth(e, "c2", "porep10", CZK_PRIORITY_NORMAL, 3, 82, NULL),
                     CZK_OK);
        for (int i = 0; i < 500 && !normal_started(e); i++)
            czk_etest_sleep_ms(5);
        czk_etest_sleep_ms(300);
        int rc_win = critical_job(e, "win", "porep8", 83, &vk8, &win_ms);
        int rc_c2 = czk_etest_await_verify(e, "c2", &vk10, 3);
        czk_groth16_vk_clear(&vk8);
        czk_groth16_vk_clear(&vk10);
        czk_engine_destroy(e);
        CHECK_EQ_INT(rc_warm, CZK_OK);
        CHECK_EQ_INT(rc_win, CZK_OK);
        CHECK_EQ_INT(rc_c2, CZK_OK);
        CHECK_EQ_INT(st[1].proofs, 2);
        CHECK_EQ_INT(st[0].proofs, 3);
        CHECKF(win_ms < warm_ms + 1500,
               "the CRITICAL job took %llu ms beside the region, %llu ms "
               "on the idle engine",
               (unsigned long long)win_ms, (unsigned long long)warm_ms);
    }
}
