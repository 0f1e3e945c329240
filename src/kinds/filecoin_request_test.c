/*
 * czk_filecoin_job_from_request: Curio-shaped requests of each Filecoin kind (2 KiB data from the
 * generators) become the circuit, partition count and payload the kind's own encoder gives,
 * and an engine with the Filecoin kinds registered (no keys) accepts each payload as far as
 * the missing key; bad requests are refused naming the field.
 */
#include <string.h>

#include "czk.h"
#include "filecoin/io/c1.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_vanilla.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/spec/sector.h"
#include "filecoin/testgen/seal.h"
#include "filecoin/testgen/snap_gen.h"
#include "filecoin/testgen/vanilla_gen.h"
#include "kinds/kinds.h"
#include "tests/test.h"
#include "util/alloc.h"

#define MINER 1000
#define SECTOR 7

/* The bincode FallbackPoStSectorProof of a generated sector at `index` for `rnd`; czk_free it
 * (NULL on error). */
static uint8_t *post_proof(czk_rng *rng, const czk_vanilla_post_type *ty, const uint8_t rnd[32],
                           uint64_t sector_id, uint64_t index, size_t *len) {
    czk_vanilla_sector s;
    if (czk_vanilla_sector_generate(&s, ty, rnd, sector_id, index, rng, NULL) != CZK_OK)
        return NULL;
    size_t cap = czk_vanilla_sector_encoded_size(ty);
    uint8_t *p = czk_malloc(cap);
    if (p != NULL && czk_vanilla_sector_encode(p, cap, len, &s, ty, NULL) != CZK_OK) {
        czk_free(p);
        p = NULL;
    }
    czk_vanilla_sector_clear(&s);
    return p;
}

/* Submits a mapped job under `id` to an engine holding no keys: a payload the kind accepts is
 * refused only for the missing key (err names `dir`). */
static int submit_job(czk_engine *e, const char *id, const czk_filecoin_job *job, czk_err *err) {
    czk_job_request req;
    memset(&req, 0, sizeof req);
    req.request_id = id;
    req.circuit_id = job->circuit_id;
    req.n_partitions = job->n_partitions;
    req.payload = job->payload;
    req.payload_len = job->payload_len;
    char out[CZK_REQUEST_ID_MAX + 1];
    return czk_engine_submit(e, &req, out, NULL, NULL, err);
}

/* The mapped job's payload is want[0..want_len) (freed here); submitted under `id` to the
 * engine, which holds no keys, it passes every check but the key's, refused naming the
 * request, `dir` and the key file's `stem`. The job is cleared. */
static void keyless(czk_test_ctx *t, czk_engine *e, const char *dir, czk_filecoin_job *job,
                    const char *id, uint8_t *want, size_t want_len, const char *stem) {
    CHECK(want != NULL);
    CHECK_EQ_INT(job->payload_len, want_len);
    if (want != NULL && job->payload_len == want_len)
        CHECK_MEM(job->payload, want, want_len);
    czk_free(want);
    czk_err err = {0};
    char req[64];
    snprintf(req, sizeof req, "request %s", id);
    int rc = submit_job(e, id, job, &err);
    CHECKF(rc == CZK_EINVAL && strstr(err.msg, req) != NULL && strstr(err.msg, dir) != NULL &&
               strstr(err.msg, stem) != NULL,
           "%d %s", rc, err.msg);
    czk_filecoin_job_clear(job);
    CHECK(job->payload == NULL);
}

/* Maps `r`, expecting CZK_EINVAL and a message holding `want`; the job is left empty. */
static void refused(czk_test_ctx *t, const czk_filecoin_request *r, const char *want) {
    czk_filecoin_job job;
    czk_err err = {0};
    int rc = czk_filecoin_job_from_request(&job, r, &err);
    CHECKF(rc == CZK_EINVAL && strstr(err.msg, want) != NULL, "%d %s (wanted %s)", rc, err.msg,
           want);
    czk_filecoin_job_clear(&job);
}

/* Maps `r` into *job, expecting circuit `circuit` in `n_partitions` partitions. */
static void maps_to(czk_test_ctx *t, czk_filecoin_job *job, const czk_filecoin_request *r,
                    const char *circuit, size_t n_partitions) {
    czk_err err = {0};
    CHECKF(czk_filecoin_job_from_request(job, r, &err) == CZK_OK, "%s", err.msg);
    CHECKF(strcmp(job->circuit_id, circuit) == 0, "%s", job->circuit_id);
    CHECK_EQ_INT(job->n_partitions, n_partitions);
}

/* maps_to into `job`, returning from the caller when it failed. */
#define MAPS_TO(r, circuit, n_partitions)                                                          \
    do {                                                                                           \
        int failures_ = t->failures;                                                               \
        maps_to(t, &job, (r), (circuit), (n_partitions));                                          \
        if (t->failures != failures_)                                                              \
            return;                                                                                \
    } while (0)

/* `base` with `edit` applied (an expression on b_) is refused naming `want`. */
#define REFUSED(base, edit, want)                                                                  \
    do {                                                                                           \
        czk_filecoin_request b_ = (base);                                                          \
        (void)(edit);                                                                              \
        refused(t, &b_, want);                                                                     \
    } while (0)

static void map_kinds(czk_test_ctx *t, const char *dir) {
    czk_engine_config cfg;
    czk_test_engine_config(&cfg, 2ULL << 30);
    czk_engine *e = NULL;
    czk_err err = {0};
    CHECK(czk_engine_create(&e, &cfg, NULL) == CZK_OK);
    CHECKF(czk_kinds_register_filecoin_posts(e, dir, NULL, &err) == CZK_OK &&
               czk_kinds_register_filecoin_poreps(e, dir, NULL, &err) == CZK_OK &&
               czk_kinds_register_filecoin_snaps(e, dir, NULL, &err) == CZK_OK,
           "%s", err.msg);
    czk_filecoin_job job;

    /* WindowPoSt, API 1.2 (RegisteredPoStProof 10, 2 KiB: two sectors a partition), as Curio
     * sends one partition. */
    czk_vanilla_post_type ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 10, NULL), CZK_OK);
    uint8_t rnd[32];
    czk_fr fr;
    czk_fr_random(&fr, &t->rng);
    czk_fr_to_bytes_le(rnd, &fr);
    size_t lens[2] = {0, 0};
    uint8_t *vp[2];
    for (int i = 0; i < 2; i++)
        vp[i] = post_proof(&t->rng, &ty, rnd, 2000 + i, (uint64_t)i, &lens[i]);
    CHECK(vp[0] != NULL && vp[1] != NULL);
    const uint8_t *const proofs[2] = {vp[0], vp[1]};
    czk_filecoin_request w = {.kind = CZK_FILECOIN_WINDOW_POST,
                              .registered_proof = 10,
                              .miner_id = MINER,
                              .partition_index = 0,
                              .vanilla_proofs = proofs,
                              .vanilla_proofs_len = lens,
                              .n_vanilla_proofs = 2,
                              .randomness = rnd,
                              .randomness_len = 32};
    MAPS_TO(&w, "window-post-2KiB", 1);
    size_t want_len = czk_kinds_filecoin_payload_size(lens, 2);
    uint8_t *want = czk_malloc(want_len);
    if (want != NULL)
        CHECK_EQ_INT(czk_kinds_filecoin_payload_encode(want, 10, 0, MINER, rnd, proofs, lens, 2),
                     want_len);
    keyless(t, e, dir, &job, "wpost", want, want_len, "v28-proof-of-spacetime-fallback");

    /* Refusals of PoSt requests, each naming the field. */
    REFUSED(w, (b_.registered_proof = 15), "registered_proof 15 is not a PoSt proof (0-14)");
    REFUSED(w, (b_.kind = CZK_FILECOIN_WINNING_POST),
            "registered_proof 10 is a WindowPoSt proof, the request WINNING_POST");
    REFUSED(w, (b_.registered_proof = 0),
            "registered_proof 0 is a WinningPoSt proof, the request WINDOW_POST_PARTITION");
    REFUSED(w, (b_.n_vanilla_proofs = 0), "WINDOW_POST_PARTITION request without vanilla_proof(s)");
    REFUSED(w, (b_.vanilla_proof = vp[0], b_.vanilla_proof_len = lens[0]),
            "one vanilla proof per sector in vanilla_proofs, not vanilla_proof");
    REFUSED(w, (b_.randomness_len = 31), "randomness is 31 bytes, not 32");
    REFUSED(w, (b_.num_partitions = 2), "a PoSt request proves one partition, not 2");
    REFUSED(w, (b_.n_witness = 1), "a PoSt request carries vanilla proofs, not witnesses");
    REFUSED(w, (b_.kind = 0), "proof_kind 0 is not a Filecoin proof kind");
    for (int i = 0; i < 2; i++)
        czk_free(vp[i]);

    /* WinningPoSt (RegisteredPoStProof 0, 2 KiB): one challenged sector. */
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 0, NULL), CZK_OK);
    vp[0] = post_proof(&t->rng, &ty, rnd, 3000, 0, &lens[0]);
    CHECK(vp[0] != NULL);
    const uint8_t *const one[1] = {vp[0]};
    czk_filecoin_request win = w;
    win.kind = CZK_FILECOIN_WINNING_POST;
    win.registered_proof = 0;
    win.vanilla_proofs = one;
    win.n_vanilla_proofs = 1;
    MAPS_TO(&win, "winning-post-2KiB", 1);
    want_len = czk_kinds_filecoin_payload_size(lens, 1);
    if ((want = czk_malloc(want_len)) != NULL)
        CHECK_EQ_INT(czk_kinds_filecoin_payload_encode(want, 0, 0, MINER, rnd, one, lens, 1),
                     want_len);
    keyless(t, e, dir, &job, "winning", want, want_len, "v28-proof-of-spacetime-fallback");
    czk_free(vp[0]);

    /* PoRep C2 (RegisteredSealProof 5, 2 KiB V1_1): Curio's wrapped C1 output of sector 7 of
     * miner 1000. */
    const czk_porep_type *pty = czk_porep_type_from_abi(5, NULL);
    uint8_t prover[32], ticket[32], seed[32];
    czk_vanilla_prover_id(prover, MINER);
    czk_rng_bytes(&t->rng, ticket, 32);
    czk_rng_bytes(&t->rng, seed, 32);
    czk_c1 c1 = {0};
    char *json = NULL;
    size_t json_len = 0;
    CHECK(pty != NULL);
    CHECK(czk_seal_small(&c1, pty, NULL, prover, SECTOR, ticket, seed, NULL) == CZK_OK &&
          czk_c1_write(&json, &json_len, &c1, 1, SECTOR, NULL) == CZK_OK);
    czk_c1_clear(&c1);
    czk_filecoin_request p = {.kind = CZK_FILECOIN_POREP,
                              .registered_proof = 5,
                              .sector_size = 2048,
                              .sector_number = SECTOR,
                              .miner_id = MINER,
                              .vanilla_proof = (const uint8_t *)json,
                              .vanilla_proof_len = json_len};
    MAPS_TO(&p, "porep-2KiB", 1);
    want = czk_malloc(CZK_POREP_PAYLOAD_HEADER + json_len);
    want_len = want == NULL
                   ? 0
                   : czk_kinds_porep_payload_encode(want, 5, CZK_POREP_PAYLOAD_IDS, MINER, SECTOR,
                                                    (const uint8_t *)json, json_len);
    keyless(t, e, dir, &job, "porep", want, want_len, "v28-stacked-proof-of-replication");
    /* Without a miner id (0, the system actor) the replica id check is off. */
    czk_filecoin_request b = p;
    b.miner_id = 0;
    CHECKF(czk_filecoin_job_from_request(&job, &b, &err) == CZK_OK, "%s", err.msg);
    CHECK_EQ_INT(job.payload[12], 0);
    czk_filecoin_job_clear(&job);
    b = p;
    b.num_partitions = 10;
    MAPS_TO(&b, "porep-2KiB", 10);
    czk_filecoin_job_clear(&job);
    REFUSED(p, (b_.registered_proof = 99), "registered_proof 99: ");
    REFUSED(p, (b_.vanilla_proof_len = 0), "POREP_SEAL_COMMIT request without vanilla_proof(s)");
    REFUSED(p, (b_.vanilla_proofs = one, b_.n_vanilla_proofs = 1),
            "carries its C1 output in vanilla_proof, and nothing in vanilla_proofs");
    REFUSED(p, (b_.sector_size = 8 << 20),
            "sector_size 8388608 is not registered_proof 5's (2048)");
    REFUSED(p, (b_.n_witness = 1), "a PoRep request carries a C1 output, not witnesses");
    czk_free(json);

    /* SnapDeals (RegisteredUpdateProof 0, 2 KiB: one partition). */
    czk_snap_shape sh;
    czk_snap_public pub;
    czk_snap_partition_proof spp = {0};
    size_t slen = 0;
    uint8_t *sp = NULL;
    CHECK(czk_snap_shape_init(&sh, 2048, NULL) == CZK_OK &&
          czk_snap_gen(&pub, &spp, &sh, 0, sh.hs[3], &t->rng, NULL) == CZK_OK &&
          (sp = czk_malloc(czk_snap_partition_proof_encoded_size(&sh))) != NULL &&
          czk_snap_partition_proof_encode(sp, czk_snap_partition_proof_encoded_size(&sh), &slen,
                                          &spp, &sh, NULL) == CZK_OK);
    czk_snap_partition_proof_clear(&spp);
    const uint8_t *const sproofs[1] = {sp};
    czk_filecoin_request s = {.kind = CZK_FILECOIN_SNAP,
                              .registered_proof = 0,
                              .sector_size = 2048,
                              .sector_number = SECTOR,
                              .miner_id = MINER,
                              .vanilla_proofs = sproofs,
                              .vanilla_proofs_len = &slen,
                              .n_vanilla_proofs = 1,
                              .comm_r_old = pub.comm_r_old,
                              .comm_r_new = pub.comm_r_new,
                              .comm_d_new = pub.comm_d_new,
                              .comm_r_old_len = 32,
                              .comm_r_new_len = 32,
                              .comm_d_new_len = 32};
    MAPS_TO(&s, "snap-2KiB", 1);
    want_len = czk_kinds_snap_payload_size(&slen, 1);
    if ((want = czk_malloc(want_len)) != NULL)
        CHECK_EQ_INT(czk_kinds_snap_payload_encode(want, 0, MINER, SECTOR, pub.comm_r_old,
                                                   pub.comm_r_new, pub.comm_d_new, sproofs, &slen,
                                                   1),
                     want_len);
    keyless(t, e, dir, &job, "snap", want, want_len, "v28-empty-sector-update");
    REFUSED(s, (b_.registered_proof = 5),
            "registered_proof 5 is not an update proof (abi RegisteredUpdateProof 0-4)");
    REFUSED(s, (b_.sector_size = 4096), "sector_size 4096 is not registered_proof 0's (2048)");
    REFUSED(s, (b_.n_vanilla_proofs = 0), "SNAP_DEALS_UPDATE request without vanilla_proof(s)");
    REFUSED(s, (b_.vanilla_proof = sp, b_.vanilla_proof_len = slen),
            "one vanilla proof per partition in vanilla_proofs, not vanilla_proof");
    REFUSED(s, (b_.comm_d_new_len = 0), "comm_d_new is 0 bytes, not 32 (missing)");
    REFUSED(s, (b_.comm_r_old_len = 31), "comm_r_old is 31 bytes, not 32");
    const uint8_t *const two[2] = {sp, sp};
    const size_t two_len[2] = {slen, slen};
    REFUSED(s, (b_.vanilla_proofs = two, b_.vanilla_proofs_len = two_len, b_.n_vanilla_proofs = 2),
            "2 vanilla_proofs; a 2048-byte sector's update takes 1 (one per partition");
    REFUSED(s, (b_.num_partitions = 4), "num_partitions 4, but a 2048-byte update has 1");
    REFUSED(s, (b_.n_witness = 2), "a SnapDeals request carries vanilla proofs, not witnesses");
    czk_free(sp);
    czk_engine_destroy(e);
}

CZK_TEST(kinds_filecoin_request_map) {
    CZK_TEST_WITH_TMPDIR(map_kinds);
}
