/*
 * The Filecoin PoSt kind end to end at 2 KiB: development keys made here and written under
 * their v28 names, vanilla proofs from the generator (filecoin/testgen/vanilla_gen.h: a sparse tree
 * hashed with native Poseidon), submitted through the engine's public API as the payload
 * kinds.h defines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "czk.h"
#include "czk_filecoin.h"
#include "engine/engine_test_util.h"
#include "filecoin/circuit.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/hash/poseidon.h"
#include "filecoin/io/c1.h"
#include "filecoin/io/params.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/post/post.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_vanilla.h"
#include "filecoin/testgen/seal.h"
#include "filecoin/testgen/snap_gen.h"
#include "filecoin/testgen/vanilla_gen.h"
#include "formats/bellperson.h"
#include "groth16/setup.h"
#include "kinds/filecoin_internal.h"
#include "kinds/kinds.h"
#include "tests/test.h"
#include "util/alloc.h"

#define KIB 1024ULL

/* ---- keys ------------------------------------------------------------------------------- */

/* Records the 2 KiB circuit of `kind`, makes a DEV key for it and writes its .params and .vk
 * into dir under the names czk_params_find looks for. Returns 1 on success. */
static int make_keys(const char *dir, czk_vanilla_post_kind kind, czk_rng *rng) {
    czk_post_shape shape;
    czk_cs *cs = NULL;
    czk_r1cs r1cs;
    czk_groth16_pk pk;
    memset(&r1cs, 0, sizeof r1cs);
    memset(&pk, 0, sizeof pk);
    int ok = 0;
    if (czk_post_shape_init(&shape, kind, 2 * KIB, NULL) != CZK_OK ||
        czk_cs_create(&cs, CZK_CS_RECORD, 0, NULL) != CZK_OK)
        return 0;
    czk_params_id id;
    char name[CZK_PARAMS_NAME_MAX], path[512];
    if (czk_post_synthesize(cs, &shape, NULL, 0) == CZK_OK &&
        czk_cs_finish_r1cs(cs, &r1cs, NULL) == CZK_OK &&
        czk_groth16_setup_dev(&pk, &r1cs, CZK_H_MONOMIAL, rng, NULL, NULL) == CZK_OK &&
        czk_params_id_get(&id,
                          kind == CZK_VANILLA_POST_WINNING ? CZK_PARAMS_WINNING_POST
                                                           : CZK_PARAMS_WINDOW_POST,
                          2 * KIB, NULL) == CZK_OK) {
        ok = czk_params_file_name(name, sizeof name, &id, CZK_PARAMS_EXT_PARAMS, NULL) == 0;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        ok = ok && czk_bellperson_params_write(path, &pk, NULL, NULL) == CZK_OK;
        ok = ok && czk_params_file_name(name, sizeof name, &id, CZK_PARAMS_EXT_VK, NULL) == 0;
        snprintf(path, sizeof path, "%s/%s", dir, name);
        ok = ok && czk_bellperson_vk_write(path, &pk.vk, NULL) == CZK_OK;
    }
    czk_cs_destroy(cs);
    czk_r1cs_clear(&r1cs);
    czk_groth16_pk_clear(&pk);
    return ok;
}

/* ---- vanilla proofs ------------------------------------------------------------------------ */

typedef struct wbuf {
    uint8_t *p;
    size_t n;
} wbuf;

/* The bincode FallbackPoStSectorProof of a generated sector (vanilla_gen.h) opening the
 * challenges of `rnd` for the sector at `sector_index`. The caller frees w.p (NULL on error). */
static wbuf sector_proof(czk_rng *rng, const czk_vanilla_post_type *ty, const uint8_t rnd[32],
                         uint64_t sector_id, uint64_t sector_index) {
    wbuf w = {0};
    czk_vanilla_sector s;
    if (czk_vanilla_sector_generate(&s, ty, rnd, sector_id, sector_index, rng, NULL) != CZK_OK)
        return w;
    size_t cap = czk_vanilla_sector_encoded_size(ty);
    w.p = malloc(cap);
    if (w.p != NULL && czk_vanilla_sector_encode(w.p, cap, &w.n, &s, ty, NULL) != CZK_OK) {
        free(w.p);
        w.p = NULL;
    }
    czk_vanilla_sector_clear(&s);
    return w;
}

/* The payload of a request of registered proof `reg` with n fresh sectors at `partition`;
 * the caller frees it. The first proof's first leaf is at byte 92 of that proof. */
static uint8_t *make_payload(czk_rng *rng, uint32_t reg, uint32_t partition, size_t n,
                             uint8_t rnd[32], size_t *len) {
    czk_vanilla_post_type ty;
    if (czk_vanilla_post_type_from_abi(&ty, reg, NULL) != CZK_OK || n > 4)
        return NULL;
    czk_fr r;
    czk_fr_random(&r, rng);
    czk_fr_to_bytes_le(rnd, &r);
    wbuf w[4];
    const uint8_t *bufs[4];
    size_t lens[4];
    for (size_t i = 0; i < n; i++) {
        uint64_t index = ty.kind == CZK_VANILLA_POST_WINNING ? 0 : partition * ty.sector_count + i;
        w[i] = sector_proof(rng, &ty, rnd, 1000 + i, index);
        bufs[i] = w[i].p;
        lens[i] = w[i].n;
    }
    *len = czk_kinds_filecoin_payload_size(lens, n);
    uint8_t *p = malloc(*len);
    if (p != NULL &&
        czk_kinds_filecoin_payload_encode(p, reg, partition, 1234, rnd, bufs, lens, n) != *len) {
        free(p);
        p = NULL;
    }
    for (size_t i = 0; i < n; i++)
        free(w[i].p);
    return p;
}

/* ---- engine ------------------------------------------------------------------------------- */

/* A CPU engine with a 2 GiB host budget and no circuits; NULL when it does not start. */
static czk_engine *cpu_engine(void) {
    czk_engine_config cfg;
    czk_test_engine_config(&cfg, 2ULL << 30);
    czk_engine *e = NULL;
    return czk_engine_create(&e, &cfg, NULL) == CZK_OK ? e : NULL;
}

/* cpu_engine with the PoSt circuits registered, their keys in dir. */
static czk_engine *make_engine(const char *dir) {
    czk_engine *e = cpu_engine();
    if (e == NULL)
        return NULL;
    if (czk_kinds_register_filecoin_posts(e, dir, NULL, NULL) != CZK_OK) {
        czk_engine_destroy(e);
        return NULL;
    }
    return e;
}

/* Submits job `id` of `parts` partitions of `circuit` with the payload p[0..len). */
static int submit_parts(czk_engine *e, const char *id, const char *circuit, size_t parts,
                        const uint8_t *payload, size_t len, czk_err *err) {
    const czk_job_request req = {.request_id = id,
                                 .circuit_id = circuit,
                                 .n_partitions = parts,
                                 .payload = payload,
                                 .payload_len = len};
    char job[CZK_REQUEST_ID_MAX + 1];
    return czk_engine_submit(e, &req, job, NULL, NULL, err);
}

static int submit(czk_engine *e, const char *id, const char *circuit, const uint8_t *payload,
                  size_t len, czk_err *err) {
    return submit_parts(e, id, circuit, 1, payload, len, err);
}

/* WindowPoSt (2 sectors, API 1.0 and a 1-sector API 1.2 partition) and WinningPoSt prove and
 * verify; a tampered leaf is accepted at submit (its path is not hashed there) and fails the
 * job; a tampered randomness is refused at submit, naming the proof. */
/* czk_alloc_in_use once it has not changed for 50 ms (at most 5 s): the engine's threads
 * free a finished job's memory a moment after its waiters wake. */
static size_t settled_in_use(void) {
    size_t last = czk_alloc_in_use();
    for (int i = 0, same = 0; i < 500 && same < 5; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
        size_t now = czk_alloc_in_use();
        same = now == last ? same + 1 : 0;
        last = now;
    }
    return last;
}

static void prove_2k(czk_test_ctx *t, const char *dir) {
    CHECK(make_keys(dir, CZK_VANILLA_POST_WINDOW, &t->rng));
    CHECK(make_keys(dir, CZK_VANILLA_POST_WINNING, &t->rng));
    czk_engine *e = make_engine(dir);
    CHECK(e != NULL);
    struct {
        const char *circuit;
        uint32_t reg, partition;
        size_t n;
    } cases[] = {{"window-post-2KiB", 5, 0, 2},
                 {"window-post-2KiB", 10, 3, 1},
                 {"winning-post-2KiB", 0, 0, 1}};
    for (size_t c = 0; c < 3; c++) {
        uint8_t rnd[32];
        size_t len;
        uint8_t *p = make_payload(&t->rng, cases[c].reg, cases[c].partition, cases[c].n, rnd, &len);
        CHECK(p != NULL);
        char id[32], bad[32];
        snprintf(id, sizeof id, "ok-%zu", c);
        snprintf(bad, sizeof bad, "leaf-%zu", c);
        czk_err err = {0};
        int rc = submit(e, id, cases[c].circuit, p, len, &err);
        CHECKF(rc == CZK_OK, "case %zu: %s", c, err.msg);
        /* The first leaf of the first proof replaced by another field element. */
        size_t leaf_off = CZK_FILECOIN_PAYLOAD_HEADER + 4 + 92;
        p[leaf_off] ^= 1;
        rc = submit(e, bad, cases[c].circuit, p, len, &err);
        CHECKF(rc == CZK_OK, "case %zu tampered leaf: %s", c, err.msg);
        p[leaf_off] ^= 1;
        /* Another randomness: the challenged leaves no longer match. */
        p[24] ^= 1;
        rc = submit(e, "rnd", cases[c].circuit, p, len, &err);
        CHECKF(rc == CZK_EINVAL, "case %zu randomness: rc %d", c, rc);
        CHECKF(strstr(err.msg, "vanilla proof 0") != NULL, "%s", err.msg);
        p[24] ^= 1;
        /* The wrong circuit for the registered proof. */
        rc = submit(e, "wrong", c == 2 ? "window-post-2KiB" : "winning-post-2KiB", p, len, &err);
        CHECK_EQ_INT(rc, CZK_EINVAL);
        CHECKF(strstr(err.msg, "registered_proof") != NULL, "%s", err.msg);
        free(p);

        czk_job_result res;
        CHECK_EQ_INT(czk_engine_await(e, id, 600000, &res, &err), CZK_OK);
        CHECKF(res.status == CZK_JOB_COMPLETED, "case %zu: %s", c, res.error);
        CHECK_EQ_INT(res.proof_len, CZK_PROOF_BYTES);
        czk_job_result_clear(&res);
        CHECK_EQ_INT(czk_engine_await(e, bad, 600000, &res, &err), CZK_OK);
        CHECKF(res.status == CZK_JOB_FAILED, "case %zu tampered leaf: status %d", c,
               (int)res.status);
        czk_job_result_clear(&res);
    }
    /* A finished job keeps its result, not its decoded vanilla proofs (2 sectors × 10
     * inclusion proofs, some 52 KB): memory in use grows by far less than that per job. The
     * workers release a job's witness and inputs just after its result is handed over (DESIGN:
     * when a witness is released), so both readings wait for the counter to settle: a loaded
     * machine once read 61,632 bytes at await, and the earlier jobs' releases can land after
     * `before` was read as well. */
    size_t before = settled_in_use();
    for (int k = 0; k < 2; k++) {
        uint8_t rnd[32];
        size_t len;
        uint8_t *p = make_payload(&t->rng, 5, 0, 2, rnd, &len);
        CHECK(p != NULL);
        char id[32];
        snprintf(id, sizeof id, "mem-%d", k);
        czk_err err = {0};
        int rc = submit(e, id, "window-post-2KiB", p, len, &err);
        free(p);
        CHECKF(rc == CZK_OK, "%s", err.msg);
        czk_job_result res;
        CHECK_EQ_INT(czk_engine_await(e, id, 600000, &res, &err), CZK_OK);
        CHECK_EQ_INT(res.status, CZK_JOB_COMPLETED);
        czk_job_result_clear(&res);
    }
    size_t after = settled_in_use();
    fprintf(stderr, "two finished jobs: %lld bytes more in use\n",
            (long long)after - (long long)before);
    CHECKF(after < before + 2 * 26000, "%zu bytes more after two finished jobs", after - before);
    czk_engine_destroy(e);
}

CZK_TEST(filecoin_post_2k_prove) {
    CZK_TEST_WITH_TMPDIR(prove_2k);
}

/* Without a key file, loading names the directory and the file expected. */
static void missing_key(czk_test_ctx *t, const char *dir) {
    czk_engine *e = make_engine(dir);
    CHECK(e != NULL);
    czk_err err = {0};
    int rc = czk_engine_preload(e, "window-post-2KiB", NULL, NULL, &err);
    CHECK_EQ_INT(rc, CZK_ENOTFOUND);
    CHECKF(strstr(err.msg, dir) != NULL && strstr(err.msg, "v28-proof-of-spacetime-fallback") &&
               strstr(err.msg, ".params"),
           "%s", err.msg);
    /* A valid request is refused at submit, with the same names. */
    uint8_t rnd[32];
    size_t len;
    uint8_t *p = make_payload(&t->rng, 5, 0, 2, rnd, &len);
    rc = p == NULL ? -1 : submit(e, "nokey", "window-post-2KiB", p, len, &err);
    free(p);
    czk_engine_destroy(e);
    CHECK_EQ_INT(rc, CZK_EINVAL);
    CHECKF(strstr(err.msg, "request nokey") != NULL && strstr(err.msg, dir) != NULL &&
               strstr(err.msg, "v28-proof-of-spacetime-fallback") && strstr(err.msg, ".params"),
           "%s", err.msg);
}

CZK_TEST(filecoin_post_missing_key) {
    CZK_TEST_WITH_TMPDIR(missing_key);
}

/* Malformed payloads are refused at submit with the fault named. */
static void bad_payloads(czk_test_ctx *t, const char *dir) {
    czk_engine *e = make_engine(dir);
    CHECK(e != NULL);
    uint8_t rnd[32];
    size_t len;
    uint8_t *p = make_payload(&t->rng, 5, 0, 1, rnd, &len);
    CHECK(p != NULL);
    czk_err err = {0};
    const char *c = "window-post-2KiB";
    int rc1 = submit(e, "short", c, p, len - 1, &err);
    int ok1 = rc1 == CZK_EINVAL && strstr(err.msg, "remain") != NULL;
    uint8_t *q = malloc(len + 1);
    memcpy(q, p, len);
    q[len] = 0;
    int rc2 = submit(e, "trail", c, q, len + 1, &err);
    int ok2 = rc2 == CZK_EINVAL && strstr(err.msg, "trailing") != NULL;
    memset(p + 24, 0xff, 32); /* randomness >= r */
    int rc3 = submit(e, "range", c, p, len, &err);
    int ok3 = rc3 == CZK_EINVAL && strstr(err.msg, "randomness") != NULL;
    free(p);
    free(q);
    czk_engine_destroy(e);
    CHECKF(ok1, "short: rc %d", rc1);
    CHECKF(ok2, "trailing: rc %d", rc2);
    CHECKF(ok3, "randomness: rc %d", rc3);
}

CZK_TEST(filecoin_post_bad_payloads) {
    CZK_TEST_WITH_TMPDIR(bad_payloads);
}

/* The PoSt circuits count as used at Curio's priorities from registration (WinningPoSt
 * CRITICAL, WindowPoSt HIGH), so that once loaded their idle keys are kept from lower work
 * before their first job too; the PoRep circuits at none. */
static void post_priorities(czk_test_ctx *t, const char *dir) {
    (void)t;
    czk_engine *e = make_engine(dir);
    CHECK(e != NULL);
    CHECK_EQ_INT(czk_kinds_register_filecoin_porep(e, 2048, dir, NULL, NULL), CZK_OK);
    czk_engine_status st;
    CHECK_EQ_INT(czk_engine_get_status(e, &st), CZK_OK);
    int pw = -1, pd = -1, pp = -1;
    for (size_t i = 0; i < st.n_circuits; i++) {
        const czk_circuit_status *c = &st.circuits[i];
        if (strcmp(c->circuit_id, "winning-post-32GiB") == 0)
            pw = c->priority;
        else if (strcmp(c->circuit_id, "window-post-2KiB") == 0)
            pd = c->priority;
        else if (strcmp(c->circuit_id, "porep-2KiB") == 0)
            pp = c->priority;
    }
    czk_engine_status_clear(&st);
    czk_engine_destroy(e);
    CHECK_EQ_INT(pw, CZK_PRIORITY_CRITICAL);
    CHECK_EQ_INT(pd, CZK_PRIORITY_HIGH);
    CHECK_EQ_INT(pp, 0);
}

CZK_TEST(filecoin_post_priorities) {
    CZK_TEST_WITH_TMPDIR(post_priorities);
}

/* Submits WindowPoSt 2 KiB job `id` (a partition of 2 sectors) and awaits it: its status, or
 * -1 when it was refused or could not be awaited; its error into why (cap bytes). */
static int window_job(czk_test_ctx *t, czk_engine *e, const char *id, char *why, size_t cap) {
    uint8_t rnd[32];
    size_t len;
    czk_err err = {0};
    why[0] = '\0';
    uint8_t *p = make_payload(&t->rng, 5, 0, 2, rnd, &len);
    int rc = p == NULL ? -1 : submit(e, id, "window-post-2KiB", p, len, &err);
    free(p);
    if (rc != CZK_OK) {
        snprintf(why, cap, "submit: %s", err.msg);
        return -1;
    }
    czk_job_result res;
    if (czk_engine_await(e, id, 600000, &res, &err) != CZK_OK) {
        snprintf(why, cap, "await: %s", err.msg);
        return -1;
    }
    const int st = (int)res.status;
    snprintf(why, cap, "%s", res.error);
    czk_job_result_clear(&res);
    return st;
}

/* A PoSt circuit kept in its repeated form (CZK_KINDS_POST_REPEATED; what WindowPoSt 32/64 GiB
 * always are) loads its key with one slot recorded, and on an engine without a device that
 * expands it the job fails with the reason named instead of proving or crashing. */
static void repeated_on_cpu(czk_test_ctx *t, const char *dir) {
    CHECK(make_keys(dir, CZK_VANILLA_POST_WINDOW, &t->rng));
    czk_engine *e = cpu_engine();
    CHECK(e != NULL);
    czk_err err = {0};
    CHECK_EQ_INT(czk_kinds_register_filecoin_post(e, CZK_VANILLA_POST_WINDOW, 2048, dir, NULL,
                                                  CZK_KINDS_POST_REPEATED, &err),
                 CZK_OK);
    CHECKF(czk_engine_preload(e, "window-post-2KiB", NULL, NULL, &err) == CZK_OK, "%s", err.msg);
    char why[640];
    CHECKF(window_job(t, e, "rep", why, sizeof why) == CZK_JOB_FAILED, "%s", why);
    CHECKF(strstr(why, "rows are not on the host") != NULL, "%s", why);
    czk_engine_destroy(e);
}

CZK_TEST(filecoin_post_repeated_on_cpu) {
    CZK_TEST_WITH_TMPDIR(repeated_on_cpu);
}

/* Waits up to 10 s for a log line holding `a` (and b). */
static int wait_line(czk_etest_logcap *cap, const char *a, const char *b) {
    for (int i = 0; i < 1000; i++) {
        if (czk_etest_cap_has(cap, a, b))
            return 1;
        czk_etest_sleep_ms(10);
    }
    return 0;
}

/* An engine on one stand-in GPU that holds keys whole (failing as fail_mode from its second
 * proof on; taking repeated circuits when takes_rep), logging into *cap, with WindowPoSt 2 KiB
 * registered (flags) and its keys in dir (made there unless `keep`: an earlier call made
 * them), its host budget `budget` (0: the tests' default); NULL (said on stderr) when a step
 * fails. */
static czk_engine *fake_gpu_engine_ex(czk_test_ctx *t, const char *dir, int fail_mode,
                                      unsigned flags, int takes_rep, int keep, uint64_t budget,
                                      czk_etest_fake_stats *st, czk_etest_logcap *cap) {
    if (!keep && !make_keys(dir, CZK_VANILLA_POST_WINDOW, &t->rng))
        return NULL;
    struct czk_device *dev = czk_etest_fake_open(0, fail_mode, 1, 0, st);
    if (dev == NULL)
        return NULL;
    czk_etest_fake_mode(dev, 0, 1);
    czk_etest_fake_takes_rep(dev, takes_rep);
    czk_engine_config cfg = czk_etest_config();
    cfg.workers_per_device = 1;
    if (budget > 0) { /* the host's part: the pinned staging (unused here) is set apart */
        cfg.pinned_budget_bytes = 1u << 20;
        cfg.host_budget_bytes = budget + cfg.pinned_budget_bytes;
    }
    czk_engine *e = NULL;
    czk_etest_setup setup = {.cap = cap, .devs = &dev, .n_devs = 1};
    if (czk_etest_engine(&e, &cfg, "unused8", 8, &setup) != CZK_OK)
        return NULL;
    czk_err err = {0};
    if (czk_kinds_register_filecoin_post(e, CZK_VANILLA_POST_WINDOW, 2048, dir, NULL, flags,
                                         &err) != CZK_OK) {
        fprintf(stderr, "register: %s\n", err.msg);
        czk_engine_destroy(e);
        czk_etest_cap_free(cap);
        return NULL;
    }
    return e;
}

static czk_engine *fake_gpu_engine(czk_test_ctx *t, const char *dir, int fail_mode, unsigned flags,
                                   czk_etest_fake_stats *st, czk_etest_logcap *cap) {
    return fake_gpu_engine_ex(t, dir, fail_mode, flags, 0, 0, 0, st, cap);
}

/*
 * The key on devices only (DESIGN.md §3) with a Filecoin kind's own drop and restore: on a
 * stand-in GPU that holds key and circuit whole, the WindowPoSt key's host copy goes after the
 * first proof; the device then faults, and the retry on the CPU has the kind read the .params
 * again (checked against the key loaded) before it proves, so the job completes verified.
 */
static void post_device_only(czk_test_ctx *t, const char *dir) {
    czk_etest_fake_stats st;
    czk_etest_logcap cap;
    czk_engine *e = fake_gpu_engine(t, dir, CZK_ETEST_FAIL_FAULT, 0, &st, &cap);
    CHECK(e != NULL);
    int got[2], dropped = 0;
    char why[2][640];
    for (int k = 0; k < 2; k++) {
        char id[16];
        snprintf(id, sizeof id, "only-%d", k);
        got[k] = window_job(t, e, id, why[k], sizeof why[k]);
        if (k == 0)
            dropped = wait_line(&cap, "key host copy dropped circuit=window-post-2KiB", NULL);
    }
    czk_engine_destroy(e);
    int restored = czk_etest_cap_has(&cap, "key host copy restored circuit=window-post-2KiB", NULL);
    int on_cpu = czk_etest_cap_has(&cap, "backend=cpu", "result=ok");
    czk_etest_cap_free(&cap);
    CHECKF(got[0] == CZK_JOB_COMPLETED, "%s", why[0]);
    CHECK(dropped);
    CHECK_EQ_INT(st.proofs, 1);
    CHECK_EQ_INT(st.faults, 1);
    CHECKF(got[1] == CZK_JOB_COMPLETED, "%s", why[1]);
    CHECK(restored);
    CHECK(on_cpu);
}

/* A circuit kept in its repeated form proves on devices only: on a GPU engine whose device
 * cannot hold its rows (this stand-in takes no repeated form), the job fails at its first
 * partition naming the circuit, the device and the figures, and no attempt goes to the CPU,
 * which has no rows for it either. */
static void rows_fit_no_device(czk_test_ctx *t, const char *dir) {
    czk_etest_fake_stats st;
    czk_etest_logcap cap;
    czk_engine *e =
        fake_gpu_engine(t, dir, CZK_ETEST_FAIL_NEVER, CZK_KINDS_POST_REPEATED, &st, &cap);
    CHECK(e != NULL);
    char why[640];
    CHECKF(window_job(t, e, "norows", why, sizeof why) == CZK_JOB_FAILED, "%s", why);
    CHECKF(strstr(why, "circuit window-post-2KiB is proved on devices only") != NULL &&
               strstr(why, "fake:0 cannot hold its key") != NULL,
           "%s", why);
    czk_engine_destroy(e);
    int on_cpu = czk_etest_cap_has(&cap, "backend=cpu", NULL);
    czk_etest_cap_free(&cap);
    CHECK(!on_cpu);
    CHECK_EQ_INT(st.proofs, 0);
}

CZK_TEST(filecoin_post_rows_fit_no_device) {
    CZK_TEST_WITH_TMPDIR(rows_fit_no_device);
}

/*
 * A circuit whose rows only devices hold is placed on them as it loads, and the host copy of
 * its key dropped, before any partition reserves a witness (keys.c, place_on_devices): within
 * a host budget that holds the key or a partition but not both (the estimate plus 256 KiB, a
 * witness being larger), a job completes on a stand-in GPU that expands the repeated form,
 * and the drop comes before the partition's proof. Without the placement the job was refused
 * at submit ("key + one partition"). On a stand-in that cannot hold the rows the copy stays,
 * and the job fails naming the figures instead of waiting forever.
 */
static void rep_placed_at_load(czk_test_ctx *t, const char *dir) {
    czk_etest_fake_stats st;
    czk_etest_logcap cap;
    uint64_t est = 0;
    czk_engine *e = fake_gpu_engine_ex(t, dir, CZK_ETEST_FAIL_NEVER, CZK_KINDS_POST_REPEATED, 1, 0,
                                       0, &st, &cap);
    CHECK(e != NULL);
    czk_engine_status es;
    if (e != NULL && czk_engine_get_status(e, &es) == CZK_OK) {
        for (size_t i = 0; i < es.n_circuits; i++)
            if (strcmp(es.circuits[i].circuit_id, "window-post-2KiB") == 0)
                est = es.circuits[i].size_bytes;
        czk_engine_status_clear(&es);
    }
    czk_engine_destroy(e);
    czk_etest_cap_free(&cap);
    CHECK(est > 0);
    for (int takes = 1; takes >= 0; takes--) {
        e = fake_gpu_engine_ex(t, dir, CZK_ETEST_FAIL_NEVER, CZK_KINDS_POST_REPEATED, takes, 1,
                               est + (256u << 10), &st, &cap);
        CHECK(e != NULL);
        if (e == NULL)
            return;
        char why[640];
        const int got = window_job(t, e, "placed", why, sizeof why);
        czk_engine_destroy(e);
        const int dropped = czk_etest_cap_has(&cap, "key host copy dropped", NULL);
        czk_etest_cap_free(&cap);
        if (takes) {
            CHECKF(got == CZK_JOB_COMPLETED, "%s", why);
            CHECK(dropped);
            CHECK_EQ_INT(st.proofs, 1);
        } else {
            CHECKF(got == CZK_JOB_FAILED && strstr(why, "besides the key") != NULL, "%d: %s", got,
                   why);
            CHECK(!dropped);
            CHECK_EQ_INT(st.proofs, 0);
        }
    }
}

CZK_TEST(filecoin_post_rep_placed_at_load) {
    CZK_TEST_WITH_TMPDIR(rep_placed_at_load);
}

CZK_TEST(filecoin_post_device_only) {
    CZK_TEST_WITH_TMPDIR(post_device_only);
}

/* ---- the public entry (include/czk_filecoin.h) ------------------------------------------ */

/* A request built from Curio's fields proves through czk_filecoin_job_from_request, and
 * czk_filecoin_verify accepts the proof from the public data alone (keys found through the
 * directory argument and through the environment's value) and refuses it for any other public
 * data, a cut or altered proof, the other kind and a missing .vk. */
static void api_post(czk_test_ctx *t, const char *dir) {
    CHECK(make_keys(dir, CZK_VANILLA_POST_WINDOW, &t->rng));
    CHECK(make_keys(dir, CZK_VANILLA_POST_WINNING, &t->rng));
    czk_engine *e = cpu_engine();
    CHECK(e != NULL);
    czk_err err = {0};
    CHECK_EQ_INT(czk_filecoin_register(e, NULL, dir, &err), CZK_OK);
    CHECK_EQ_INT(czk_filecoin_register(e, NULL, dir, &err), CZK_EINVAL); /* ids taken */
    char empty[600];
    snprintf(empty, sizeof empty, "%s/empty", dir);
    CHECK(mkdir(empty, 0700) == 0);
    const struct {
        int kind;
        uint32_t reg, partition;
        size_t n;
    } cases[] = {{CZK_FILECOIN_WINDOW_POST, 5, 0, 2}, {CZK_FILECOIN_WINNING_POST, 0, 0, 1}};
    for (size_t c = 0; c < 2; c++) {
        czk_vanilla_post_type ty;
        CHECK(czk_vanilla_post_type_from_abi(&ty, cases[c].reg, NULL) == CZK_OK);
        czk_fr r;
        czk_fr_random(&r, &t->rng);
        uint8_t rnd[32];
        czk_fr_to_bytes_le(rnd, &r);
        wbuf w[2];
        const uint8_t *bufs[2];
        size_t lens[2];
        czk_filecoin_sector sectors[3];
        for (size_t i = 0; i < cases[c].n; i++) {
            w[i] = sector_proof(&t->rng, &ty, rnd, 1000 + i, i);
            CHECK(w[i].p != NULL && w[i].n > 40);
            bufs[i] = w[i].p;
            lens[i] = w[i].n;
            /* FallbackPoStSectorProof: sector_id u64, then comm_r (io/vanilla.h). */
            sectors[i].sector_number = 1000 + i;
            memcpy(sectors[i].comm_r, w[i].p + 8, 32);
        }
        czk_filecoin_request req = {.kind = cases[c].kind,
                                    .registered_proof = cases[c].reg,
                                    .miner_id = 1234,
                                    .partition_index = cases[c].partition,
                                    .vanilla_proofs = bufs,
                                    .vanilla_proofs_len = lens,
                                    .n_vanilla_proofs = cases[c].n,
                                    .randomness = rnd,
                                    .randomness_len = 32};
        czk_filecoin_job job;
        CHECKF(czk_filecoin_job_from_request(&job, &req, &err) == CZK_OK, "%s", err.msg);
        char id[32], job_id[CZK_REQUEST_ID_MAX + 1];
        snprintf(id, sizeof id, "api-%zu", c);
        czk_job_request q = {.request_id = id,
                             .circuit_id = job.circuit_id,
                             .n_partitions = job.n_partitions,
                             .payload = job.payload,
                             .payload_len = job.payload_len};
        CHECKF(czk_engine_submit(e, &q, job_id, NULL, NULL, &err) == CZK_OK, "%s", err.msg);
        czk_filecoin_job_clear(&job);
        for (size_t i = 0; i < cases[c].n; i++)
            free(w[i].p);
        czk_job_result res;
        CHECK_EQ_INT(czk_engine_await(e, job_id, 600000, &res, &err), CZK_OK);
        CHECKF(res.status == CZK_JOB_COMPLETED, "case %zu: %s", c, res.error);
        if (res.status != CZK_JOB_COMPLETED) {
            czk_job_result_clear(&res);
            continue;
        }
        czk_filecoin_public pub = {.kind = cases[c].kind,
                                   .registered_proof = cases[c].reg,
                                   .sectors = sectors,
                                   .n_sectors = cases[c].n,
                                   .partition_index = cases[c].partition};
        memcpy(pub.randomness, rnd, 32);
        const uint8_t *pf = res.proof;
        size_t pl = res.proof_len;
        int rc = czk_filecoin_verify(&pub, pf, pl, dir, NULL, &err);
        CHECKF(rc == CZK_OK, "case %zu: %d %s", c, rc, err.msg);
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl, NULL, dir, &err), CZK_OK);
        /* Other public data: each fails as invalid, naming why. */
        pub.randomness[0] ^= 1;
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl, dir, NULL, &err), CZK_EVERIFY);
        CHECKF(strstr(err.msg, "does not verify") != NULL, "%s", err.msg);
        pub.randomness[0] ^= 1;
        sectors[0].sector_number++;
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl, dir, NULL, &err), CZK_EVERIFY);
        sectors[0].sector_number--;
        uint8_t comm_r[32];
        memcpy(comm_r, sectors[0].comm_r, 32);
        memset(sectors[0].comm_r, 0xff, 32);
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl, dir, NULL, &err), CZK_EVERIFY);
        CHECKF(strstr(err.msg, "comm_r is not a field element") != NULL, "%s", err.msg);
        memcpy(sectors[0].comm_r, comm_r, 32);
        memset(pub.randomness, 0xff, 32);
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl, dir, NULL, &err), CZK_EVERIFY);
        CHECKF(strstr(err.msg, "randomness") != NULL, "%s", err.msg);
        memcpy(pub.randomness, rnd, 32);
        /* The proof altered (C's x coordinate: no longer a point, or another point). */
        uint8_t bad[CZK_PROOF_BYTES];
        memcpy(bad, pf, sizeof bad);
        bad[CZK_PROOF_BYTES - 1] ^= 1;
        CHECK_EQ_INT(czk_filecoin_verify(&pub, bad, sizeof bad, dir, NULL, &err), CZK_EVERIFY);
        CHECKF(strstr(err.msg, "partition 0") != NULL, "%s", err.msg);
        /* What cannot be checked: a cut proof, the other kind, too many sectors, no .vk. */
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl - 1, dir, NULL, &err), CZK_EINVAL);
        CHECKF(strstr(err.msg, "short") != NULL, "%s", err.msg);
        CHECK_EQ_INT(czk_filecoin_verify(&pub, NULL, 0, dir, NULL, &err), CZK_EINVAL);
        pub.kind = c == 0 ? CZK_FILECOIN_WINNING_POST : CZK_FILECOIN_WINDOW_POST;
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl, dir, NULL, &err), CZK_EINVAL);
        CHECKF(strstr(err.msg, "registered_proof") != NULL, "%s", err.msg);
        pub.kind = cases[c].kind;
        sectors[cases[c].n] = sectors[0];
        pub.n_sectors = cases[c].n + 1;
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl, dir, NULL, &err), CZK_EINVAL);
        pub.n_sectors = cases[c].n;
        CHECK_EQ_INT(czk_filecoin_verify(&pub, pf, pl, empty, NULL, &err), CZK_ENOTFOUND);
        CHECKF(strstr(err.msg, empty) != NULL && strstr(err.msg, ".vk") != NULL, "%s", err.msg);
        czk_job_result_clear(&res);
    }
    czk_engine_destroy(e);
}

CZK_TEST(filecoin_api_post_verify) {
    CZK_TEST_WITH_TMPDIR(api_post);
}

/* Names and ids through the public header, against rust-fil-proofs' parameters.json. */
CZK_TEST(filecoin_api_names) {
    const struct {
        int kind;
        uint64_t reg;
        czk_filecoin_file file;
        const char *name, *circuit;
    } ok[] = {
        {CZK_FILECOIN_WINNING_POST, 0, CZK_FILECOIN_FILE_PARAMS,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
         "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params",
         "winning-post-2KiB"},
        /* WindowPoSt API 1.0 (8) and 1.2 (13) of 32 GiB share one set. */
        {CZK_FILECOIN_WINDOW_POST, 8, CZK_FILECOIN_FILE_VK,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
         "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.vk",
         "window-post-32GiB"},
        {CZK_FILECOIN_WINDOW_POST, 13, CZK_FILECOIN_FILE_PARAMS,
         "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
         "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params",
         "window-post-32GiB"},
        /* PoRep 32 GiB V1_1 (8) and its synthetic twin (13). */
        {CZK_FILECOIN_POREP, 8, CZK_FILECOIN_FILE_PARAMS,
         "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
         "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params",
         "porep-32GiB"},
        {CZK_FILECOIN_POREP, 13, CZK_FILECOIN_FILE_META,
         "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
         "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.meta",
         "porep-32GiB"},
        {CZK_FILECOIN_POREP, 5, CZK_FILECOIN_FILE_PARAMS,
         "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
         "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params",
         "porep-2KiB"},
    };
    char name[CZK_FILECOIN_PARAMS_NAME_MAX], circuit[CZK_ID_MAX + 1];
    czk_err err = {0};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        CHECKF(czk_filecoin_params_name(name, sizeof name, ok[i].kind, ok[i].reg, ok[i].file,
                                        &err) == CZK_OK &&
                   strcmp(name, ok[i].name) == 0,
               "%zu: %s %s", i, name, err.msg);
        CHECKF(czk_filecoin_circuit_id(circuit, sizeof circuit, ok[i].kind, ok[i].reg, &err) ==
                       CZK_OK &&
                   strcmp(circuit, ok[i].circuit) == 0,
               "%zu: %s %s", i, circuit, err.msg);
    }
    /* SnapDeals: the update's set (its names are not in parameters.json's PoSt/PoRep list). */
    CHECK_EQ_INT(czk_filecoin_params_name(name, sizeof name, CZK_FILECOIN_SNAP, 3,
                                          CZK_FILECOIN_FILE_PARAMS, &err),
                 CZK_OK);
    CHECKF(strncmp(name, "v28-empty-sector-update-merkletree-poseidon_hasher-8-8-0-", 57) == 0,
           "%s", name);
    CHECK_EQ_INT(czk_filecoin_circuit_id(circuit, sizeof circuit, CZK_FILECOIN_SNAP, 0, &err),
                 CZK_OK);
    CHECK(strcmp(circuit, "snap-2KiB") == 0);
    /* Refusals, each naming the fault. */
    const struct {
        int kind;
        uint64_t reg;
        const char *why;
    } bad[] = {{CZK_FILECOIN_WINNING_POST, 5, "WindowPoSt"},
               {CZK_FILECOIN_WINDOW_POST, 0, "WinningPoSt"},
               {CZK_FILECOIN_WINDOW_POST, 15, "not a PoSt proof"},
               {CZK_FILECOIN_POREP, 17, "registered_proof 17"},
               {CZK_FILECOIN_POREP, 20, "registered_proof 20"},
               {CZK_FILECOIN_SNAP, 5, "not an update proof"},
               {7, 0, "not a Filecoin proof kind"}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err.msg[0] = '\0';
        CHECK_EQ_INT(
            czk_filecoin_circuit_id(circuit, sizeof circuit, bad[i].kind, bad[i].reg, &err),
            CZK_EINVAL);
        CHECKF(strstr(err.msg, bad[i].why) != NULL, "%zu: %s", i, err.msg);
        CHECK_EQ_INT(czk_filecoin_params_name(name, sizeof name, bad[i].kind, bad[i].reg,
                                              CZK_FILECOIN_FILE_VK, &err),
                     CZK_EINVAL);
        CHECK(name[0] == '\0');
    }
    CHECK_EQ_INT(
        czk_filecoin_params_name(name, 20, CZK_FILECOIN_POREP, 8, CZK_FILECOIN_FILE_PARAMS, &err),
        CZK_EINVAL);
    CHECK_EQ_INT(czk_filecoin_params_name(name, sizeof name, CZK_FILECOIN_POREP, 8,
                                          (czk_filecoin_file)3, &err),
                 CZK_EINVAL);
    /* The directory, as rust-fil-proofs picks it; the environment variable's name. */
    CHECK(strcmp(czk_filecoin_params_dir(NULL, NULL), CZK_FILECOIN_PARAMS_DEFAULT_DIR) == 0);
    CHECK(strcmp(czk_filecoin_params_dir("", "/e"), "/e") == 0);
    CHECK(strcmp(czk_filecoin_params_dir("/d", "/e"), "/d") == 0);
    CHECK(strcmp(czk_filecoin_params_dir(NULL, ""), CZK_FILECOIN_PARAMS_DEFAULT_DIR) == 0);
    CHECK(strcmp(CZK_FILECOIN_PARAMS_ENV, CZK_PARAMS_ENV_VAR) == 0);
    CHECK(strcmp(CZK_FILECOIN_PARAMS_DEFAULT_DIR, CZK_PARAMS_DEFAULT_DIR) == 0);
}

/* ---- PoRep C2 ------------------------------------------------------------------------------ */

/* A sealed 2 KiB V1_1 sector's C1 output as JSON (wrapped in Curio's wrapper when `wrap`) in a
 * PoRep payload for miner 1000, sector 7, with the ids flag; *len its size. NULL on failure. */
static uint8_t *porep_payload(czk_rng *rng, int wrap, uint32_t reg, uint64_t sector, size_t *len) {
    const czk_porep_type *ty = czk_porep_type_from_abi(5, NULL);
    uint8_t prover[32], ticket[32], seed[32];
    czk_vanilla_prover_id(prover, 1000);
    czk_rng_bytes(rng, ticket, 32);
    czk_rng_bytes(rng, seed, 32);
    czk_c1 c1 = {0};
    char *json = NULL;
    size_t n = 0;
    uint8_t *p = NULL;
    if (czk_seal_small(&c1, ty, NULL, prover, 7, ticket, seed, NULL) == CZK_OK &&
        czk_c1_write(&json, &n, &c1, wrap, 7, NULL) == CZK_OK &&
        (p = malloc(CZK_POREP_PAYLOAD_HEADER + n)) != NULL)
        *len = czk_kinds_porep_payload_encode(p, reg, CZK_POREP_PAYLOAD_IDS, 1000, sector,
                                              (const uint8_t *)json, n);
    czk_free(json);
    czk_c1_clear(&c1);
    return p;
}

/* At submit, without any key: a valid C1 output (plain or wrapped) passes every check and is
 * refused only for the missing .params, named; another sector's, a registered proof that is
 * not the C1's and a broken JSON are each refused naming the fault; a 32 GiB C2 too large for
 * the host fails at once, naming the figures. */
static void porep_submit(czk_test_ctx *t, const char *dir) {
    czk_engine *e = cpu_engine();
    CHECK(e != NULL);
    czk_err err = {0};
    int rc = czk_kinds_register_filecoin_poreps(e, dir, NULL, &err);
    CHECKF(rc == CZK_OK, "%s", err.msg);
    for (int wrap = 0; wrap < 2 && rc == CZK_OK; wrap++) {
        size_t len = 0;
        uint8_t *p = porep_payload(&t->rng, wrap, 5, 7, &len);
        CHECK(p != NULL);
        rc = submit(e, "porep-1000-7", "porep-2KiB", p, len, &err);
        CHECKF(rc == CZK_EINVAL && strstr(err.msg, dir) != NULL &&
                   strstr(err.msg, "v28-stacked-proof-of-replication") != NULL,
               "wrap %d: %s", wrap, err.msg);
        /* Sector 8's request with sector 7's C1 output: the replica id differs. */
        czk_kinds_porep_payload_encode(p, 5, CZK_POREP_PAYLOAD_IDS, 1000, 8,
                                       p + CZK_POREP_PAYLOAD_HEADER,
                                       len - CZK_POREP_PAYLOAD_HEADER);
        CHECK_EQ_INT(submit(e, "other", "porep-2KiB", p, len, &err), CZK_EINVAL);
        CHECKF(strstr(err.msg, "replica id") != NULL, "%s", err.msg);
        /* Registered proof V1 (0) for a V1_1 C1 output. */
        czk_kinds_porep_payload_encode(p, 0, CZK_POREP_PAYLOAD_IDS, 1000, 7,
                                       p + CZK_POREP_PAYLOAD_HEADER,
                                       len - CZK_POREP_PAYLOAD_HEADER);
        CHECK_EQ_INT(submit(e, "reg", "porep-2KiB", p, len, &err), CZK_EINVAL);
        CHECKF(strstr(err.msg, "registered_proof 0") != NULL, "%s", err.msg);
        /* The JSON cut short. */
        CHECK_EQ_INT(submit(e, "cut", "porep-2KiB", p, len - 10, &err), CZK_EINVAL);
        CHECKF(strstr(err.msg, "request cut: vanilla_proof") != NULL, "%s", err.msg);
        free(p);
    }
    /* A 32 GiB C1 output (virtual) passes every check; the 70 GB its key and rows take do not
     * fit this engine's 2 GiB, which fails the job at once, naming the figures (before the
     * key file, here an empty stand-in, is ever read). */
    {
        czk_params_id pid;
        char name[CZK_PARAMS_NAME_MAX], path[512];
        CHECK(czk_params_id_get(&pid, CZK_PARAMS_POREP, 32ull << 30, NULL) == CZK_OK &&
              czk_params_file_name(name, sizeof name, &pid, CZK_PARAMS_EXT_PARAMS, NULL) == CZK_OK);
        snprintf(path, sizeof path, "%s/%s", dir, name);
        CHECK(czk_test_write_file(path, "", 0) == 0);
    }
    const czk_porep_type *ty = czk_porep_type_from_abi(8, NULL);
    uint8_t prover[32], ticket[32], seed[32];
    czk_vanilla_prover_id(prover, 1000);
    czk_rng_bytes(&t->rng, ticket, 32);
    czk_rng_bytes(&t->rng, seed, 32);
    czk_c1 c1 = {0};
    char *json = NULL;
    size_t n = 0, len = 0;
    uint8_t *p = NULL;
    CHECK(czk_seal_virtual(&c1, ty, prover, 7, ticket, seed, &t->rng, NULL) == CZK_OK &&
          czk_c1_write(&json, &n, &c1, 1, 7, NULL) == CZK_OK &&
          (p = malloc(CZK_POREP_PAYLOAD_HEADER + n)) != NULL);
    len = czk_kinds_porep_payload_encode(p, 8, CZK_POREP_PAYLOAD_IDS, 1000, 7,
                                         (const uint8_t *)json, n);
    czk_free(json);
    czk_c1_clear(&c1);
    rc = submit_parts(e, "big", "porep-32GiB", 10, p, len, &err);
    free(p);
    CHECKF(rc == CZK_OK, "%s", err.msg);
    czk_job_result res;
    memset(&res, 0, sizeof res);
    CHECK_EQ_INT(czk_engine_await(e, "big", 0, &res, &err), CZK_OK);
    CHECKF(res.status == CZK_JOB_FAILED && strstr(res.error, "porep-32GiB needs") != NULL &&
               strstr(res.error, "host budget") != NULL,
           "%d: %s", res.status, res.error);
    czk_job_result_clear(&res);
    czk_engine_destroy(e);
}

CZK_TEST(filecoin_porep_submit_checks) {
    CZK_TEST_WITH_TMPDIR(porep_submit);
}

/* ---- SnapDeals ------------------------------------------------------------------------- */

/* A generated 2 KiB update (filecoin/testgen/snap_gen.h) as the SnapDeals payload: *pub and the
 * payload (czk_free) of *len bytes; its one vanilla proof starts at CZK_SNAP_PAYLOAD_HEADER + 4.
 */
static uint8_t *snap_payload(czk_test_ctx *t, czk_snap_shape *sh, czk_snap_public *pub,
                             size_t *len) {
    czk_snap_partition_proof vp = {0};
    uint8_t *bin = NULL, *p = NULL;
    size_t n = 0;
    if (czk_snap_shape_init(sh, 2 * KIB, NULL) == CZK_OK &&
        czk_snap_gen(pub, &vp, sh, 0, sh->hs[3], &t->rng, NULL) == CZK_OK &&
        (bin = czk_malloc(czk_snap_partition_proof_encoded_size(sh))) != NULL &&
        czk_snap_partition_proof_encode(bin, czk_snap_partition_proof_encoded_size(sh), &n, &vp, sh,
                                        NULL) == CZK_OK) {
        const uint8_t *proofs[1] = {bin};
        *len = czk_kinds_snap_payload_size(&n, 1);
        p = czk_malloc(*len);
        if (p != NULL &&
            czk_kinds_snap_payload_encode(p, 0, 1000, 7, pub->comm_r_old, pub->comm_r_new,
                                          pub->comm_d_new, proofs, &n, 1) != *len) {
            czk_free(p);
            p = NULL;
        }
    }
    czk_snap_partition_proof_clear(&vp);
    czk_free(bin);
    return p;
}

/* Checks the payload as job_create does; the decoded proof is cleared. */
static int snap_check(const czk_snap_shape *sh, const uint8_t *p, size_t len, czk_err *err) {
    czk_snap_public pub;
    czk_snap_partition_proof part;
    czk_fr in[4];
    memset(&part, 0, sizeof part);
    int rc = czk__kinds_snap_job_check(&pub, &part, in, sh, p, len, "r", err);
    czk_snap_partition_proof_clear(&part);
    return rc;
}

/* The payload's layout, and what the check gives back: the commitments, h_default and the
 * public inputs of czk_snap_public_inputs. */
CZK_TEST(kinds_snap_payload_roundtrip) {
    czk_snap_shape sh;
    czk_snap_public pub, back;
    size_t len = 0;
    uint8_t *p = snap_payload(t, &sh, &pub, &len);
    CHECK(p != NULL);
    CHECK_EQ_INT(len, CZK_SNAP_PAYLOAD_HEADER + 4 + 15064);
    CHECK(memcmp(p, "CZKS", 4) == 0);
    CHECK_EQ_INT(p[4], CZK_SNAP_PAYLOAD_VERSION);
    CHECK_EQ_INT(p[16] | p[17] << 8, 1000);
    CHECK_EQ_INT(p[24], 7);
    CHECK_MEM(p + 32, pub.comm_r_old, 32);
    CHECK_MEM(p + 64, pub.comm_r_new, 32);
    CHECK_MEM(p + 96, pub.comm_d_new, 32);
    CHECK_EQ_INT(p[128], 1);
    czk_snap_partition_proof part;
    memset(&part, 0, sizeof part);
    czk_fr in[4], want[4];
    czk_err err = {0};
    CHECKF(czk__kinds_snap_job_check(&back, &part, in, &sh, p, len, "r", &err) == CZK_OK, "%s",
           err.msg);
    CHECK_MEM(back.comm_r_old, pub.comm_r_old, 32);
    CHECK_MEM(back.comm_d_new, pub.comm_d_new, 32);
    CHECK_EQ_INT(back.h, 1);
    CHECK_EQ_INT(czk_snap_public_inputs(want, &sh, &pub, 0, NULL), CZK_OK);
    for (int i = 0; i < 4; i++)
        CHECK(czk_fr_equal(&in[i], &want[i]));
    /* The decoded proof encodes back to the payload's bytes. */
    uint8_t *again = czk_malloc(15064);
    size_t n = 0;
    CHECK(again != NULL);
    CHECK_EQ_INT(czk_snap_partition_proof_encode(again, 15064, &n, &part, &sh, NULL), CZK_OK);
    CHECK_MEM(again, p + CZK_SNAP_PAYLOAD_HEADER + 4, 15064);
    czk_free(again);
    czk_snap_partition_proof_clear(&part);
    /* Circuit ids and sizes of the abi's update proofs; the v28 names agree with snap.h's. */
    static const char *const ids[5] = {"snap-2KiB", "snap-8MiB", "snap-512MiB", "snap-32GiB",
                                       "snap-64GiB"};
    for (uint64_t r = 0; r < 5; r++) {
        char id[32], a[CZK_PARAMS_NAME_MAX], b[CZK_PARAMS_NAME_MAX];
        uint64_t size = 0;
        czk_params_id pid;
        czk_snap_shape s2;
        CHECK_EQ_INT(czk_kinds_snap_circuit_id(id, sizeof id, r, NULL), CZK_OK);
        CHECKF(strcmp(id, ids[r]) == 0, "%s", id);
        CHECK_EQ_INT(czk_kinds_snap_sector_size(&size, r, NULL), CZK_OK);
        CHECK(czk_snap_shape_init(&s2, size, NULL) == CZK_OK &&
              czk_params_id_get(&pid, CZK_PARAMS_SNAP, size, NULL) == CZK_OK &&
              czk_params_file_name(a, sizeof a, &pid, CZK_PARAMS_EXT_VK, NULL) == CZK_OK &&
              czk_snap_params_file_name(b, sizeof b, &s2, ".vk", NULL) == CZK_OK);
        CHECKF(strcmp(a, b) == 0, "%s != %s", a, b);
    }
    char id[32];
    CHECK_EQ_INT(czk_kinds_snap_circuit_id(id, sizeof id, 5, NULL), CZK_EUNSUPPORTED);
    czk_free(p);
}

/* Flips bit `bit` of byte `off` and expects the check to refuse with code and a message
 * holding `want`; restores the byte. */
static void snap_refused(czk_test_ctx *t, const czk_snap_shape *sh, uint8_t *p, size_t len,
                         size_t off, int code, const char *want) {
    czk_err err = {0};
    p[off] ^= 1;
    int rc = snap_check(sh, p, len, &err);
    p[off] ^= 1;
    CHECKF(rc == code && strstr(err.msg, want) != NULL, "byte %zu: %d %s (wanted %s)", off, rc,
           err.msg, want);
}

/* Refusals at submit, each naming the fault: framing, counts, commitments (≥ r, or another
 * update's), and bytes of the vanilla proof (comm_c, an apex leaf, a TreeROld sibling, a
 * TreeDNew leaf), then the same through the engine, where a valid payload is refused only for
 * the missing key, named. */
static void snap_submit(czk_test_ctx *t, const char *dir) {
    czk_snap_shape sh;
    czk_snap_public pub;
    size_t len = 0;
    uint8_t *p = snap_payload(t, &sh, &pub, &len);
    CHECK(p != NULL);
    czk_err err = {0};
    const size_t v = CZK_SNAP_PAYLOAD_HEADER + 4; /* the vanilla proof */
    CHECKF(snap_check(&sh, p, len, &err) == CZK_OK, "%s", err.msg);
    CHECK_EQ_INT(snap_check(&sh, p, len - 1, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "vanilla proof 0 at payload offset 136 says 15064 bytes") != NULL, "%s",
           err.msg);
    p[v - 4] = (15063 & 0xff); /* the proof cut by a byte, its length saying so */
    CHECK_EQ_INT(snap_check(&sh, p, len - 1, &err), CZK_ELENGTH);
    CHECKF(strstr(err.msg, "request r: vanilla proof 0: snap partition proof 0") != NULL, "%s",
           err.msg);
    p[v - 4] = (15064 & 0xff);
    CHECK_EQ_INT(snap_check(&sh, p, 100, &err), CZK_EINVAL);
    p[128] = 2;
    CHECK_EQ_INT(snap_check(&sh, p, len, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "2 vanilla proofs") != NULL, "%s", err.msg);
    p[128] = 1;
    memset(p + 64, 0xff, 32);
    CHECK_EQ_INT(snap_check(&sh, p, len, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "comm_r_new is not a field element") != NULL, "%s", err.msg);
    memcpy(p + 64, pub.comm_r_new, 32);
    /* Another comm_r_old or comm_r_new: H(comm_c, root) differs. Another comm_d_new: the data
     * paths lead elsewhere (and rho changes). */
    snap_refused(t, &sh, p, len, 32, CZK_EVERIFY, "is not comm_r_old");
    snap_refused(t, &sh, p, len, 64, CZK_EVERIFY, "is not comm_r_new");
    snap_refused(t, &sh, p, len, 96, CZK_EVERIFY, "comm_d_new");
    /* The proof: comm_c (0), apex leaf 1 (40 + 32), challenge 0's TreeROld root (304 + 4), a
     * sibling of its first level (388), its TreeDNew leaf (304 + 556 + 4 + 32). */
    snap_refused(t, &sh, p, len, v + 0, CZK_EVERIFY, "partition 0: H(comm_c");
    snap_refused(t, &sh, p, len, v + 72, CZK_EVERIFY, "apex");
    snap_refused(t, &sh, p, len, v + 308, CZK_EVERIFY, "partition 0");
    snap_refused(t, &sh, p, len, v + 388, CZK_EVERIFY, "TreeROld path does not hash");
    snap_refused(t, &sh, p, len, v + 304 + 556 + 4 + 32, CZK_EVERIFY, "TreeDNew");
    /* The check through the engine: the kind's job_create. */
    czk_engine *e = cpu_engine();
    CHECK(e != NULL);
    int rc = czk_kinds_register_filecoin_snaps(e, dir, NULL, &err);
    CHECKF(rc == CZK_OK, "%s", err.msg);
    rc = submit(e, "snap-1000-7", "snap-2KiB", p, len, &err);
    CHECKF(rc == CZK_EINVAL && strstr(err.msg, dir) != NULL &&
               strstr(err.msg, "v28-empty-sector-update") != NULL,
           "%s", err.msg);
    p[v + 388] ^= 1;
    CHECK_EQ_INT(submit(e, "snap-bad", "snap-2KiB", p, len, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "request snap-bad: vanilla proof 0") != NULL, "%s", err.msg);
    p[v + 388] ^= 1;
    p[8] = 1; /* 8 MiB's registered proof for the 2 KiB circuit */
    CHECK_EQ_INT(submit(e, "snap-reg", "snap-2KiB", p, len, &err), CZK_EINVAL);
    CHECKF(strstr(err.msg, "registered_proof 1") != NULL, "%s", err.msg);
    czk_engine_destroy(e);
    czk_free(p);
}

CZK_TEST(kinds_snap_submit_checks) {
    CZK_TEST_WITH_TMPDIR(snap_submit);
}

/* The table of counts of filecoin_snap.c (snap) or filecoin_porep.c equals the COUNT pass's
 * for a sector of `size` bytes. */
static void stats_equal(czk_test_ctx *t, int snap, uint64_t size) {
    czk_porep_shape ps = {0};
    czk_snap_shape ss = {0};
    czk_cs_stats want, got;
    czk_err err = {0};
    CHECK(snap ? czk__kinds_snap_stats(&got, size) : czk__kinds_porep_stats(&got, size));
    CHECK_EQ_INT(snap ? czk_snap_shape_init(&ss, size, &err)
                      : czk_porep_shape_init(&ps, size, &err),
                 CZK_OK);
    int rc = snap ? czk_circuit_snap_count(&want, NULL, &ss, &err)
                  : czk__kinds_porep_count_stats(&want, &ps, &err);
    CHECKF(rc == CZK_OK, "%s", err.msg);
    CHECKF(memcmp(&want, &got, sizeof want) == 0, "sector size %llu", (unsigned long long)size);
}

/* stats_equal at 2 KiB and 8 MiB, and no row for 4 KiB; or (large) at 512 MiB, 32 and 64 GiB. */
static void stats_table(czk_test_ctx *t, int snap, int large) {
    static const uint64_t small_sizes[] = {2 * KIB, 8ULL << 20};
    static const uint64_t large_sizes[] = {512ULL << 20, 32ULL << 30, 64ULL << 30};
    for (size_t i = 0; i < (large ? 3 : 2); i++)
        stats_equal(t, snap, large ? large_sizes[i] : small_sizes[i]);
    czk_cs_stats st;
    if (!large)
        CHECK(!(snap ? czk__kinds_snap_stats(&st, 4 * KIB) : czk__kinds_porep_stats(&st, 4 * KIB)));
}

CZK_TEST(kinds_porep_stats_table) {
    stats_table(t, 0, 0);
}

CZK_TEST(kinds_porep_stats_table_large) {
    if (czk_test_skip_heavy("kinds_porep_stats_table_large"))
        return; /* 4-7 M-row counts, single-threaded: nothing a thread could race on */
    stats_table(t, 0, 1);
}

CZK_TEST(kinds_snap_stats_table) {
    stats_table(t, 1, 0);
}

CZK_TEST(kinds_snap_stats_table_large) {
    if (czk_test_skip_heavy("kinds_snap_stats_table_large"))
        return; /* 57-85 M-row counts: 660 s under TSan, nothing a thread could race on */
    stats_table(t, 1, 1);
}

/* The native check on the test sizes with partitions (16 and 32 KiB: 2, partition 1) and an
 * arity-4 sub level (1 KiB): what the 2 KiB update, one partition, cannot exercise. The
 * proof passes for its partition and is refused for the other, and with a partition path or
 * apex leaf changed. */
CZK_TEST(kinds_snap_check_partitions) {
    static const struct {
        uint64_t size;
        uint32_t k;
    } cases[] = {{1 * KIB, 0}, {16 * KIB, 1}, {32 * KIB, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        czk_snap_shape sh;
        czk_snap_public pub;
        czk_snap_partition_proof vp;
        czk_err err = {0};
        uint32_t k = cases[i].k;
        memset(&vp, 0, sizeof vp);
        CHECK_EQ_INT(czk_snap_shape_init(&sh, cases[i].size, &err), CZK_OK);
        CHECKF(czk_snap_gen(&pub, &vp, &sh, k, sh.hs[3], &t->rng, &err) == CZK_OK, "%s", err.msg);
        CHECKF(czk_snap_partition_check(&sh, &pub, &vp, k, &err) == CZK_OK, "%llu: %s",
               (unsigned long long)cases[i].size, err.msg);
        if (sh.partitions > 1) {
            CHECK_EQ_INT(czk_snap_partition_check(&sh, &pub, &vp, k ^ 1, &err), CZK_EVERIFY);
            CHECKF(strstr(err.msg, "paths prove nodes") != NULL, "%s", err.msg);
            /* The top TreeDNew level: the partition path every challenge shares. */
            czk_fr one, keep;
            czk_fr_set_one(&one);
            uint32_t top = sh.challenge_bit_len - 1;
            keep = vp.challenge[0].d_new.level[top].sib[0];
            czk_fr_add(&vp.challenge[0].d_new.level[top].sib[0], &keep, &one);
            CHECK_EQ_INT(czk_snap_partition_check(&sh, &pub, &vp, k, &err), CZK_EVERIFY);
            CHECKF(strstr(err.msg, "comm_d_new") != NULL, "%s", err.msg);
            vp.challenge[0].d_new.level[top].sib[0] = keep;
        }
        czk_fr one, keep;
        czk_fr_set_one(&one);
        keep = vp.apex[sh.apex_leaves - 1];
        czk_fr_add(&vp.apex[sh.apex_leaves - 1], &keep, &one);
        CHECK_EQ_INT(czk_snap_partition_check(&sh, &pub, &vp, k, &err), CZK_EVERIFY);
        CHECKF(strstr(err.msg, "apex") != NULL, "%s", err.msg);
        vp.apex[sh.apex_leaves - 1] = keep;
        CHECKF(czk_snap_partition_check(&sh, &pub, &vp, k, &err) == CZK_OK, "%s", err.msg);
        czk_snap_partition_proof_clear(&vp);
    }
}
