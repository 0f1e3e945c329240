/*
 * Tests for Curio's PoSt public JSON (curio_post.h). The anchor is Curio's own file for the
 * real 32 GiB WindowPoSt proof in tests/data/filecoin: its sealed CID must decode to the comm_r
 * inside the vanilla proof (read by the independent bincode decoder) and encode back to the same
 * characters.
 */
#include "filecoin/io/curio_post.h"
#include "filecoin/io/vanilla.h"
#include "tests/test.h"
#include "util/alloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

CZK_TEST(post_public_reads_curio_json) {
    size_t jl, vl;
    uint8_t *js = czk_test_read_data("filecoin", "post-32g-window.pub.json", &jl);
    uint8_t *vp = czk_test_read_data("filecoin", "post-32g-window.vproof", &vl);
    CHECK(js != NULL && vp != NULL);
    czk_post_public p;
    czk_err e = {0};
    CHECKF(czk_post_public_parse(&p, (const char *)js, jl, "postpub.json", &e) == CZK_OK, "%s",
           e.msg);
    CHECK_EQ_INT(p.registered_proof, 8);
    CHECK_EQ_INT(p.prover, 1000);
    CHECK_EQ_INT(p.n_sectors, 1);
    CHECK_EQ_INT(p.sectors[0].sector_number, 1);
    CHECK_EQ_INT(p.sectors[0].seal_proof, 8);
    static const uint8_t zero[32];
    CHECK_MEM(p.randomness, zero, 32);
    czk_vanilla_post_type ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, p.registered_proof, NULL), CZK_OK);
    czk_vanilla_sector s;
    CHECK_EQ_INT(czk_vanilla_sector_decode(&s, &ty, vp, vl, 0, NULL), CZK_OK);
    CHECK(czk_fr_equal(&s.comm_r, &p.sectors[0].comm_r));
    CHECK_EQ_INT(s.sector_id, p.sectors[0].sector_number);
    char cid[CZK_SEALED_CID_CHARS];
    czk_post_sealed_cid_encode(cid, &s.comm_r);
    js[jl - 1] = 0; /* the file ends in '}' */
    CHECKF(strstr((const char *)js, cid) != NULL, "%s not in the file", cid);
    czk_vanilla_sector_clear(&s);
    czk_post_public_clear(&p);
    free(js);
    free(vp);
}

static void round_trip(czk_test_ctx *t, const char *dir) {
    czk_post_public p = {0}, q;
    p.registered_proof = 13;
    p.prover = 123456789;
    p.n_sectors = 3;
    p.sectors = czk_calloc(3, sizeof *p.sectors);
    CHECK(p.sectors != NULL);
    czk_fr r;
    czk_fr_random(&r, &t->rng);
    czk_fr_to_bytes_le(p.randomness, &r);
    for (size_t i = 0; i < 3; i++) {
        p.sectors[i].sector_number = (czk_rng_u64(&t->rng) >> 1) + i;
        p.sectors[i].seal_proof = 8 + 5 * (i % 2); /* V1_1 and synthetic PoRep, both 32 GiB */
        czk_fr_random(&p.sectors[i].comm_r, &t->rng);
    }
    char path[512];
    snprintf(path, sizeof path, "%s/pub.json", dir);
    czk_err e = {0};
    CHECKF(czk_post_public_write(path, &p, &e) == CZK_OK, "%s", e.msg);
    CHECKF(czk_post_public_read(&q, path, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(q.registered_proof, 13);
    CHECK_EQ_INT(q.prover, p.prover);
    CHECK_MEM(q.randomness, p.randomness, 32);
    CHECK_EQ_INT(q.n_sectors, 3);
    for (size_t i = 0; i < 3; i++) {
        CHECK_EQ_INT(q.sectors[i].sector_number, p.sectors[i].sector_number);
        CHECK_EQ_INT(q.sectors[i].seal_proof, p.sectors[i].seal_proof);
        CHECK(czk_fr_equal(&q.sectors[i].comm_r, &p.sectors[i].comm_r));
    }
    czk_post_public_clear(&q);
    czk_post_public_clear(&p);
    /* A file that is not there is named. */
    snprintf(path, sizeof path, "%s/absent.json", dir);
    CHECK(czk_post_public_read(&q, path, &e) != CZK_OK);
    CHECKF(strstr(e.msg, "absent.json") != NULL, "%s", e.msg);
}

CZK_TEST(post_public_round_trips) {
    CZK_TEST_WITH_TMPDIR(round_trip);
}

CZK_TEST(post_public_refuses_bad_fields) {
    static const char cid[] = "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl";
    static const char zero[] = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    static const struct {
        const char *rnd, *post, *seal, *num, *cid, *prover, *want;
    } cases[] = {
        {zero, "8", "8", "1", cid, "1000", NULL},
        {"AAAA", "8", "8", "1", cid, "1000", "Randomness is not the base64"},
        /* 2^255 + …: above r. */
        {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAID=", "8", "8", "1", cid, "1000",
         "not a field element"},
        {zero, "15", "8", "1", cid, "1000", "PoStProof 15 is not a PoSt proof"},
        {zero, "\"8\"", "8", "1", cid, "1000", "PoStProof is missing or not a int"},
        {zero, "8", "9", "1", cid, "1000", "seal proof 9 is not of the 34359738368-byte"},
        {zero, "8", "8", "-1", cid, "1000", "SectorNumber is negative"},
        {zero, "8", "8", "1", "bafy", "1000", "ChallengedSectors[0]: sealed CID"},
        {zero, "8", "8", "1", "bagboea4b5abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mt1",
         "1000", "not a base32 character"},
        /* Another multihash code: not a sealed commitment. */
        {zero, "8", "8", "1", "bagboea4b6abcbx3jccdohrttzfneleehcpkmle4oltwuh4q3rcf5tpdodaoj6mtl",
         "1000", "not a CIDv1 fil-commitment-sealed"},
        {zero, "8", "8", "1", cid, "null", "Prover is missing"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char js[1024];
        snprintf(js, sizeof js,
                 "{\"Randomness\":\"%s\",\"Proofs\":[{\"PoStProof\":%s,\"ProofBytes\":null}],"
                 "\"ChallengedSectors\":[{\"SealProof\":%s,\"SectorNumber\":%s,\"SealedCID\":"
                 "{\"/\":\"%s\"}}],\"Prover\":%s}",
                 cases[i].rnd, cases[i].post, cases[i].seal, cases[i].num, cases[i].cid,
                 cases[i].prover);
        czk_post_public p;
        czk_err e = {0};
        int rc = czk_post_public_parse(&p, js, strlen(js), "case.json", &e);
        if (cases[i].want == NULL) {
            CHECKF(rc == CZK_OK, "case %zu: %s", i, e.msg);
            czk_post_public_clear(&p);
            continue;
        }
        CHECKF(rc != CZK_OK, "case %zu accepted", i);
        CHECKF(strstr(e.msg, cases[i].want) != NULL && strstr(e.msg, "case.json") != NULL,
               "case %zu: %s", i, e.msg);
        CHECK(p.sectors == NULL);
    }
    /* Not JSON, trailing text, two PoSt proofs that disagree, 3 sectors for a 2-sector type. */
    czk_post_public p;
    czk_err e = {0};
    CHECK_EQ_INT(czk_post_public_parse(&p, "{\"Randomness\":", 14, "x.json", &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "not JSON") != NULL);
    CHECK_EQ_INT(czk_post_public_parse(&p, "{} x", 4, "x.json", &e), CZK_EFORMAT);
    CHECKF(strstr(e.msg, "at byte 3") != NULL, "%s", e.msg);
    char js[2048];
    snprintf(js, sizeof js,
             "{\"Randomness\":\"%s\",\"Proofs\":[{\"PoStProof\":8},{\"PoStProof\":13}],"
             "\"ChallengedSectors\":[],\"Prover\":1}",
             zero);
    CHECK_EQ_INT(czk_post_public_parse(&p, js, strlen(js), "x.json", &e), CZK_EFORMAT);
    CHECKF(strstr(e.msg, "Proofs[1].PoStProof is 13") != NULL, "%s", e.msg);
    snprintf(js, sizeof js,
             "{\"Randomness\":\"%s\",\"Proofs\":[{\"PoStProof\":5}],\"ChallengedSectors\":["
             "{\"SealProof\":5,\"SectorNumber\":1,\"SealedCID\":{\"/\":\"%s\"}},"
             "{\"SealProof\":5,\"SectorNumber\":2,\"SealedCID\":{\"/\":\"%s\"}},"
             "{\"SealProof\":5,\"SectorNumber\":3,\"SealedCID\":{\"/\":\"%s\"}}],\"Prover\":1}",
             zero, cid, cid, cid);
    CHECK_EQ_INT(czk_post_public_parse(&p, js, strlen(js), "x.json", &e), CZK_EFORMAT);
    CHECKF(strstr(e.msg, "3 ChallengedSectors") != NULL, "%s", e.msg);
}
