/*
 * The Filecoin PoSt kind end to end at 2 KiB: development keys made here and written under
 * their v28 names, vanilla proofs from the generator (filecoin/vanilla_gen.h: a sparse tree
 * hashed with native Poseidon), submitted through the engine's public API as the payload
 * kinds.h defines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "czk.h"
#include "filecoin/c1.h"
#include "filecoin/cs.h"
#include "filecoin/params.h"
#include "filecoin/poseidon.h"
#include "filecoin/post.h"
#include "filecoin/seal.h"
#include "filecoin/vanilla.h"
#include "filecoin/vanilla_gen.h"
#include "formats/bellperson.h"
#include "groth16/setup.h"
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
        ok = ok && czk_bellperson_params_write(path, &pk, NULL) == CZK_OK;
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

static czk_engine *make_engine(const char *dir) {
    czk_engine_config cfg;
    czk_test_engine_config(&cfg, 2ULL << 30);
    czk_engine *e;
    if (czk_engine_create(&e, &cfg, NULL) != CZK_OK)
        return NULL;
    if (czk_kinds_register_filecoin_posts(e, dir, NULL, NULL) != CZK_OK) {
        czk_engine_destroy(e);
        return NULL;
    }
    return e;
}

static int submit(czk_engine *e, const char *id, const char *circuit, const uint8_t *payload,
                  size_t len, czk_err *err) {
    czk_job_request req;
    memset(&req, 0, sizeof req);
    req.request_id = id;
    req.circuit_id = circuit;
    req.n_partitions = 1;
    req.payload = payload;
    req.payload_len = len;
    char job[CZK_REQUEST_ID_MAX + 1];
    return czk_engine_submit(e, &req, job, NULL, NULL, err);
}

/* WindowPoSt (2 sectors, API 1.0 and a 1-sector API 1.2 partition) and WinningPoSt prove and
 * verify; a tampered leaf is accepted at submit (its path is not hashed there) and fails the
 * job; a tampered randomness is refused at submit, naming the proof. */
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
     * inclusion proofs, some 52 KB): memory in use grows by far less than that per job. */
    size_t before = czk_alloc_in_use();
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
    size_t after = czk_alloc_in_use();
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

/* A PoSt circuit kept in its repeated form (CZK_KINDS_POST_REPEATED; what WindowPoSt 32/64 GiB
 * always are) loads its key with one slot recorded, and on an engine without a device that
 * expands it the job fails with the reason named instead of proving or crashing. */
static void repeated_on_cpu(czk_test_ctx *t, const char *dir) {
    CHECK(make_keys(dir, CZK_VANILLA_POST_WINDOW, &t->rng));
    czk_engine_config cfg;
    czk_test_engine_config(&cfg, 2ULL << 30);
    czk_engine *e = NULL;
    czk_err err = {0};
    CHECK_EQ_INT(czk_engine_create(&e, &cfg, &err), CZK_OK);
    if (e == NULL)
        return;
    CHECK_EQ_INT(czk_kinds_register_filecoin_post(e, CZK_VANILLA_POST_WINDOW, 2048, dir, NULL,
                                                  CZK_KINDS_POST_REPEATED, &err),
                 CZK_OK);
    CHECKF(czk_engine_preload(e, "window-post-2KiB", NULL, NULL, &err) == CZK_OK, "%s", err.msg);
    uint8_t rnd[32];
    size_t len;
    uint8_t *p = make_payload(&t->rng, 5, 0, 2, rnd, &len);
    CHECK(p != NULL);
    int rc = p == NULL ? -1 : submit(e, "rep", "window-post-2KiB", p, len, &err);
    free(p);
    CHECKF(rc == CZK_OK, "%s", err.msg);
    czk_job_result res;
    if (rc == CZK_OK && czk_engine_await(e, "rep", 600000, &res, &err) == CZK_OK) {
        CHECK_EQ_INT(res.status, CZK_JOB_FAILED);
        CHECKF(strstr(res.error, "rows are not on the host") != NULL, "%s", res.error);
        czk_job_result_clear(&res);
    }
    czk_engine_destroy(e);
}

CZK_TEST(filecoin_post_repeated_on_cpu) {
    CZK_TEST_WITH_TMPDIR(repeated_on_cpu);
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
    czk_engine_config cfg;
    czk_test_engine_config(&cfg, 2ULL << 30);
    czk_engine *e = NULL;
    czk_err err = {0};
    CHECK(czk_engine_create(&e, &cfg, NULL) == CZK_OK);
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
    czk_job_request req;
    memset(&req, 0, sizeof req);
    req.request_id = "big";
    req.circuit_id = "porep-32GiB";
    req.n_partitions = 10;
    req.payload = p;
    req.payload_len = len;
    char job[CZK_REQUEST_ID_MAX + 1];
    rc = czk_engine_submit(e, &req, job, NULL, NULL, &err);
    free(p);
    CHECKF(rc == CZK_OK, "%s", err.msg);
    czk_job_result res;
    memset(&res, 0, sizeof res);
    CHECK_EQ_INT(czk_engine_await(e, job, 0, &res, &err), CZK_OK);
    CHECKF(res.status == CZK_JOB_FAILED && strstr(res.error, "porep-32GiB needs") != NULL &&
               strstr(res.error, "host budget") != NULL,
           "%d: %s", res.status, res.error);
    czk_job_result_clear(&res);
    czk_engine_destroy(e);
}

CZK_TEST(filecoin_porep_submit_checks) {
    CZK_TEST_WITH_TMPDIR(porep_submit);
}
