/*
 * Tests for the parameter-file names, lookup and header check (params.h) and for the PoSt
 * public inputs (post_inputs.h).
 *
 * Names are compared with the literal file names of rust-fil-proofs' parameters.json (commit
 * 87348a74), which nothing in czk generated. Expected vector lengths are compared with the
 * .params sizes of the model counts (doc/FILECOIN.md §5) and the public `ls -l` sizes of the
 * official files.
 * Header checks run on small keys written by czk's bellperson writer and on a sparse file laid
 * out like the official 32 GiB WinningPoSt file (only its six length prefixes are written).
 * Public inputs are checked on Curio's real 32 GiB WindowPoSt vanilla proof
 * (tests/data/filecoin, see vanilla_test.c).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb), curio@e0294b0f (2026-08-20).
 */
#include "field/fr.h"
#include "filecoin/io/params.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/post/post_inputs.h"
#include "formats/bellperson.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/status.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- names ------------------------------------------------------------------------------ */

static const uint64_t SIZES[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};

/* rust-fil-proofs parameters.json, the .params keys, by circuit (winning, window, porep) and
 * sector size in SIZES order. */
static const char *const OFFICIAL[3][5] = {
    {
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
        "3ea05428c9d11689f23529cde32fd30aabd50f7d2c93657c1d3650bca3e8ea9e.params",
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
        "50c7368dea9593ed0989e70974d28024efa9d156d585b7eea1be22b2e753f331.params",
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
        "7d739b8cf60f1b0709eeebee7730e297683552e4b69cab6984ec0285663c5781.params",
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
        "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params",
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
        "b62098629d07946e9028127e70295ed996fe3ed25b0f9f88eb610a0ab4385a3c.params",
    },
    {
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
        "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params",
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
        "5294475db5237a2e83c3e52fd6c2b03859a1831d45ed08c4f35dbf9a803165a9.params",
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-0-0-"
        "0cfb4f178bbb71cf2ecfcd42accce558b27199ab4fb59cb78f2483fe21ef36d9.params",
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
        "0377ded656c6f524f1618760bffe4e0a1c51d5a70c4509eedae8a27555733edc.params",
        "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-2-"
        "2627e4006b67f99cef990c0a47d5426cb7ab0a0ad58fc1061547bf2d28b09def.params",
    },
    {
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
        "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params",
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
        "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params",
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
        "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params",
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
        "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params",
        "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
        "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params",
    },
};

static const czk_params_circuit CIRCUITS[3] = {CZK_PARAMS_WINNING_POST, CZK_PARAMS_WINDOW_POST,
                                               CZK_PARAMS_POREP};

CZK_TEST(params_names_match_parameters_json) {
    for (int c = 0; c < 3; c++) {
        for (int s = 0; s < 5; s++) {
            czk_params_id id;
            czk_err e = {0};
            CHECK_EQ_INT(czk_params_id_get(&id, CIRCUITS[c], SIZES[s], &e), CZK_OK);
            char name[CZK_PARAMS_NAME_MAX];
            CHECK_EQ_INT(czk_params_file_name(name, sizeof(name), &id, CZK_PARAMS_EXT_PARAMS, &e),
                         CZK_OK);
            CHECKF(strcmp(name, OFFICIAL[c][s]) == 0, "circuit %d size %d: %s", c, s, name);
            /* .vk and .meta differ from .params only in the extension. */
            size_t stem = strlen(name) - strlen("params");
            CHECK_EQ_INT(czk_params_file_name(name, sizeof(name), &id, CZK_PARAMS_EXT_VK, &e),
                         CZK_OK);
            CHECK(strncmp(name, OFFICIAL[c][s], stem) == 0 && strcmp(name + stem, "vk") == 0);
            CHECK_EQ_INT(czk_params_file_name(name, sizeof(name), &id, CZK_PARAMS_EXT_META, &e),
                         CZK_OK);
            CHECK(strncmp(name, OFFICIAL[c][s], stem) == 0 && strcmp(name + stem, "meta") == 0);
            CHECK(strlen(id.identifier) < CZK_PARAMS_IDENTIFIER_MAX);
        }
    }
    /* The identifier strings themselves, as rust-fil-proofs formats them. */
    czk_params_id id;
    CHECK_EQ_INT(czk_params_id_get(&id, CZK_PARAMS_WINDOW_POST, 2048, NULL), CZK_OK);
    CHECK(strcmp(id.identifier, "FallbackPoSt::PublicParams{sector_size: 2048, challenge_count: "
                                "10, sector_count: 2}") == 0);
    CHECK_EQ_INT(id.digest[0], 0x01);
    CHECK_EQ_INT(czk_params_id_get(&id, CZK_PARAMS_WINNING_POST, 32ull << 30, NULL), CZK_OK);
    CHECK(strcmp(id.identifier, "FallbackPoSt::PublicParams{sector_size: 34359738368, "
                                "challenge_count: 1, sector_count: 66}") == 0);
    CHECK_EQ_INT(czk_params_id_get(&id, CZK_PARAMS_POREP, 2048, NULL), CZK_OK);
    CHECK(strcmp(id.identifier,
                 "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                 "expansion_degree: 8 base_graph: drgraph::BucketGraph{size: 64; degree: 6; "
                 "hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: 2, max_count: "
                 "2 }, tree: merkletree-poseidon_hasher-8-0-0 }") == 0);
    /* Refusals. */
    czk_err e = {0};
    CHECK_EQ_INT(czk_params_id_get(&id, CZK_PARAMS_WINDOW_POST, 4096, &e), CZK_EUNSUPPORTED);
    CHECK(strstr(e.msg, "4096") != NULL);
    CHECK_EQ_INT(czk_params_id_get(&id, (czk_params_circuit)9, 2048, NULL), CZK_EINVAL);
    CHECK_EQ_INT(czk_params_id_get(&id, CZK_PARAMS_POREP, 2048, NULL), CZK_OK);
    char small[40];
    CHECK_EQ_INT(czk_params_file_name(small, sizeof(small), &id, CZK_PARAMS_EXT_VK, NULL),
                 CZK_EINVAL);
    CHECK_EQ_INT(small[0], '\0');
    CHECK_EQ_INT(czk_params_file_name(small, sizeof(small), &id, (czk_params_ext)3, NULL),
                 CZK_EINVAL);
}

CZK_TEST(params_id_for_post_types) {
    /* Go abi ids 0-4 WinningPoSt, 5-9 and 10-14 WindowPoSt (one key for both API versions). */
    for (uint64_t abi = 0; abi < 15; abi++) {
        czk_vanilla_post_type ty;
        CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, abi, NULL), CZK_OK);
        czk_params_id id;
        CHECK_EQ_INT(czk_params_id_for_post(&id, &ty, NULL), CZK_OK);
        char name[CZK_PARAMS_NAME_MAX];
        CHECK_EQ_INT(czk_params_file_name(name, sizeof(name), &id, CZK_PARAMS_EXT_PARAMS, NULL),
                     CZK_OK);
        CHECKF(strcmp(name, OFFICIAL[abi < 5 ? 0 : 1][abi % 5]) == 0, "abi %u: %s", (unsigned)abi,
               name);
    }
}

/* ---- lookup ----------------------------------------------------------------------------- */

CZK_TEST(params_find_directories) {
    CHECK(strcmp(czk_params_cache_dir(NULL, NULL), "/var/tmp/filecoin-proof-parameters") == 0);
    CHECK(strcmp(czk_params_cache_dir("", ""), CZK_PARAMS_DEFAULT_DIR) == 0);
    CHECK(strcmp(czk_params_cache_dir(NULL, "/e"), "/e") == 0);
    CHECK(strcmp(czk_params_cache_dir("/o", "/e"), "/o") == 0);

    char dir[256], dir2[256];
    CHECK(czk_test_tmpdir(dir));
    CHECK(czk_test_tmpdir(dir2));
    czk_params_id id;
    CHECK_EQ_INT(czk_params_id_get(&id, CZK_PARAMS_WINDOW_POST, 2048, NULL), CZK_OK);
    char name[CZK_PARAMS_NAME_MAX], want[512], got[512];
    CHECK_EQ_INT(czk_params_file_name(name, sizeof(name), &id, CZK_PARAMS_EXT_VK, NULL), CZK_OK);
    snprintf(want, sizeof(want), "%s/%s", dir, name);
    CHECK(czk_test_write_file(want, "x", 1) == 0);

    /* Found through the environment value, with or without a trailing slash. */
    czk_err e = {0};
    CHECK_EQ_INT(czk_params_find(got, sizeof(got), &id, CZK_PARAMS_EXT_VK, NULL, dir, &e), CZK_OK);
    CHECK(strcmp(got, want) == 0);
    char slash[300];
    snprintf(slash, sizeof(slash), "%s/", dir);
    CHECK_EQ_INT(czk_params_find(got, sizeof(got), &id, CZK_PARAMS_EXT_VK, slash, NULL, &e),
                 CZK_OK);
    CHECK(strcmp(got, want) == 0);

    /* The override wins over the environment, and only that directory is searched. */
    CHECK_EQ_INT(czk_params_find(got, sizeof(got), &id, CZK_PARAMS_EXT_VK, dir2, dir, &e),
                 CZK_ENOTFOUND);
    CHECK_EQ_INT(got[0], '\0');
    CHECK(strstr(e.msg, name) != NULL && strstr(e.msg, dir2) != NULL &&
          strstr(e.msg, "override") != NULL);
    /* The .params file is not there: the message names the file expected and the variable. */
    CHECK_EQ_INT(czk_params_find(got, sizeof(got), &id, CZK_PARAMS_EXT_PARAMS, NULL, dir, &e),
                 CZK_ENOTFOUND);
    CHECK(
        strstr(e.msg, "0170db1f394b35d995252228ee359194b13199d259380541dc529fb0099096b0.params") !=
        NULL);
    CHECK(strstr(e.msg, CZK_PARAMS_ENV_VAR) != NULL);
    /* A directory where the file should be. */
    czk_params_id id2;
    CHECK_EQ_INT(czk_params_id_get(&id2, CZK_PARAMS_WINNING_POST, 2048, NULL), CZK_OK);
    CHECK_EQ_INT(czk_params_file_name(name, sizeof(name), &id2, CZK_PARAMS_EXT_META, NULL), CZK_OK);
    snprintf(want, sizeof(want), "%s/%s", dir2, name);
    CHECK(mkdir(want, 0700) == 0);
    CHECK_EQ_INT(czk_params_find(got, sizeof(got), &id2, CZK_PARAMS_EXT_META, dir2, NULL, &e),
                 CZK_EIO);
    rmdir(want);
    /* A buffer too small for the path. */
    CHECK_EQ_INT(czk_params_find(got, 20, &id, CZK_PARAMS_EXT_VK, NULL, dir, NULL), CZK_EINVAL);
    czk_test_rmdir(dir);
    czk_test_rmdir(dir2);
}

/* ---- expected lengths ------------------------------------------------------------------- */

/* doc/FILECOIN.md §5: rows, inputs, aux, a_aux and b_aux densities, .params bytes. */
typedef struct table_row {
    uint64_t rows, inputs, aux, a_aux, b_aux, params_bytes;
} table_row;

static const table_row TABLE[] = {
    {90750, 133, 91674, 69300, 66792, 47299128},                       /* Winning 2 KiB */
    {230670, 133, 233442, 176748, 169488, 113383224},                  /* Winning 8 MiB */
    {300630, 133, 304326, 230472, 220836, 165299640},                  /* Winning 512 MiB */
    {370590, 133, 375210, 284196, 272184, 192050232},                  /* Winning 32 GiB */
    {391314, 133, 396000, 299838, 287694, 200014584},                  /* Winning 64 GiB */
    {21866, 23, 22128, 16770, 16028, 11501496},                        /* Window 2 KiB */
    {64266, 23, 65088, 49330, 47148, 30859704},                        /* Window 8 MiB */
    {85466, 23, 86568, 65610, 62708, 45257400},                        /* Window 512 MiB */
    {125279217, 25840, 126902376, 96179805, 91925766, 60780374232ull}, /* Window 32 GiB */
    {129887900, 25301, 131500200, 99624500, 95413200, 62556733560ull}, /* Window 64 GiB */
    {130278541, 328, 130169893, 129753292, 33112281, 47373928632ull},  /* PoRep 32 GiB */
};

static czk_params_expect expect_of(const table_row *r) {
    czk_params_expect e = {.n_rows = r->rows,
                           .n_inputs = r->inputs,
                           .n_aux = r->aux,
                           .a_aux_density = r->a_aux,
                           .b_input_density = 1,
                           .b_aux_density = r->b_aux};
    return e;
}

CZK_TEST(params_expected_sizes) {
    for (size_t i = 0; i < sizeof(TABLE) / sizeof(TABLE[0]); i++) {
        czk_params_expect e = expect_of(&TABLE[i]);
        czk_params_lengths L;
        uint64_t ps, vs;
        CHECK_EQ_INT(czk_params_expected(&L, &ps, &vs, &e, NULL), CZK_OK);
        CHECKF(ps == TABLE[i].params_bytes, "row %zu: %llu", i, (unsigned long long)ps);
        CHECK_EQ_INT(vs, 868 + 96 * TABLE[i].inputs);
        CHECK_EQ_INT(L.ic, TABLE[i].inputs);
        CHECK_EQ_INT(L.l, TABLE[i].aux);
        CHECK_EQ_INT(L.b_g1, L.b_g2);
    }
    /* The public ls sizes of the .vk files and the 32 GiB PoRep vectors. */
    czk_params_lengths L;
    uint64_t ps, vs;
    czk_params_expect e = expect_of(&TABLE[8]);
    CHECK_EQ_INT(czk_params_expected(&L, &ps, &vs, &e, NULL), CZK_OK);
    CHECK_EQ_INT(vs, 2481508);
    CHECK_EQ_INT(L.h, (1u << 27) - 1);
    e = expect_of(&TABLE[3]);
    CHECK_EQ_INT(czk_params_expected(&L, &ps, &vs, &e, NULL), CZK_OK);
    CHECK_EQ_INT(vs, 13636);
    CHECK_EQ_INT(L.h, (1u << 19) - 1);
    e = expect_of(&TABLE[10]);
    CHECK_EQ_INT(czk_params_expected(&L, &ps, &vs, &e, NULL), CZK_OK);
    CHECK_EQ_INT(vs, 32356);
    CHECK_EQ_INT(L.h, 134217727);
    CHECK_EQ_INT(L.a, 129753620);
    CHECK_EQ_INT(L.b_g1, 33112282);
    /* Counts come from the constraint system's statistics (nnz does not matter). */
    czk_cs_stats st = {.n_rows = 370590,
                       .n_inputs = 133,
                       .n_aux = 375210,
                       .nnz_a = 1,
                       .a_aux_density = 284196,
                       .b_input_density = 1,
                       .b_aux_density = 272184};
    czk_params_expect fs;
    czk_params_expect_from_stats(&fs, &st);
    CHECK_EQ_INT(czk_params_expected(NULL, &ps, NULL, &fs, NULL), CZK_OK);
    CHECK_EQ_INT(ps, 192050232);
    /* The domain is the smallest power of two ≥ rows + inputs, edges included. */
    czk_params_expect edge = {.n_rows = 5, .n_inputs = 3, .n_aux = 1};
    CHECK_EQ_INT(czk_params_expected(&L, NULL, NULL, &edge, NULL), CZK_OK);
    CHECK_EQ_INT(L.h, 7);
    edge.n_rows = 6;
    CHECK_EQ_INT(czk_params_expected(&L, NULL, NULL, &edge, NULL), CZK_OK);
    CHECK_EQ_INT(L.h, 15);
    edge.n_rows = 0;
    edge.n_inputs = 1;
    CHECK_EQ_INT(czk_params_expected(&L, NULL, NULL, &edge, NULL), CZK_OK);
    CHECK_EQ_INT(L.h, 0);
    /* Impossible counts. */
    edge.n_inputs = 0;
    CHECK_EQ_INT(czk_params_expected(&L, NULL, NULL, &edge, NULL), CZK_EINVAL);
    edge.n_inputs = 1;
    edge.a_aux_density = 2;
    CHECK_EQ_INT(czk_params_expected(&L, NULL, NULL, &edge, NULL), CZK_EINVAL);
    edge.a_aux_density = 0;
    edge.n_rows = 1ull << 32;
    CHECK_EQ_INT(czk_params_expected(&L, NULL, NULL, &edge, NULL), CZK_EINVAL);
    edge.n_rows = (1ull << 32) - 1; /* a domain of 2^32: |h| = 2^32 − 1 still fits */
    CHECK_EQ_INT(czk_params_expected(&L, NULL, NULL, &edge, NULL), CZK_OK);
    edge.n_inputs = 2; /* 2^32 + 1 rows need a domain of 2^33 */
    CHECK_EQ_INT(czk_params_expected(&L, NULL, NULL, &edge, NULL), CZK_EINVAL);
}

/* ---- header check on small synthetic files ----------------------------------------------- */

/* A made-up circuit: 5 rows, 3 inputs, 5 aux, A uses 3 aux, B uses ONE and 3 aux; n = 8. */
static const czk_params_expect SMALL = {.n_rows = 5,
                                        .n_inputs = 3,
                                        .n_aux = 5,
                                        .a_aux_density = 3,
                                        .b_input_density = 1,
                                        .b_aux_density = 3};

/* A bellperson-shaped key with the lengths of `L`, every point the generator (the header check
 * never looks at points). */
static int make_pk(czk_groth16_pk *pk, const czk_params_lengths *L) {
    memset(pk, 0, sizeof(*pk));
    pk->h_basis = CZK_H_MONOMIAL;
    pk->density = CZK_DENSITY_FILTERED;
    pk->vk.alpha_g1 = pk->vk.beta_g1 = pk->vk.delta_g1 = CZK_G1_GENERATOR;
    pk->vk.beta_g2 = pk->vk.gamma_g2 = pk->vk.delta_g2 = CZK_G2_GENERATOR;
    pk->vk.n_ic = L->ic;
    pk->n_h = L->h;
    pk->n_l = L->l;
    pk->n_a = L->a;
    pk->n_b_g1 = L->b_g1;
    pk->n_b_g2 = L->b_g2;
    pk->domain_size = L->h + 1;
    pk->n_public = L->ic - 1;
    pk->n_vars = L->ic + L->l;
    pk->vk.ic = czk_malloc(L->ic * sizeof(czk_g1_affine));
    pk->h = czk_malloc(L->h * sizeof(czk_g1_affine));
    pk->l = czk_malloc(L->l * sizeof(czk_g1_affine));
    pk->a = czk_malloc(L->a * sizeof(czk_g1_affine));
    pk->b_g1 = czk_malloc(L->b_g1 * sizeof(czk_g1_affine));
    pk->b_g2 = czk_malloc(L->b_g2 * sizeof(czk_g2_affine));
    if (!pk->vk.ic || !pk->h || !pk->l || !pk->a || !pk->b_g1 || !pk->b_g2)
        return -1;
    for (size_t i = 0; i < L->ic; i++)
        pk->vk.ic[i] = CZK_G1_GENERATOR;
    for (size_t i = 0; i < L->h; i++)
        pk->h[i] = CZK_G1_GENERATOR;
    for (size_t i = 0; i < L->l; i++)
        pk->l[i] = CZK_G1_GENERATOR;
    for (size_t i = 0; i < L->a; i++)
        pk->a[i] = CZK_G1_GENERATOR;
    for (size_t i = 0; i < L->b_g1; i++) {
        pk->b_g1[i] = CZK_G1_GENERATOR;
        pk->b_g2[i] = CZK_G2_GENERATOR;
    }
    return 0;
}

CZK_TEST(params_header_accept_refuse) {
    char dir[256], path[512], vkpath[512];
    CHECK(czk_test_tmpdir(dir));
    snprintf(path, sizeof(path), "%s/small.params", dir);
    snprintf(vkpath, sizeof(vkpath), "%s/small.vk", dir);
    czk_params_lengths L;
    uint64_t psize, vsize;
    CHECK_EQ_INT(czk_params_expected(&L, &psize, &vsize, &SMALL, NULL), CZK_OK);
    CHECK(L.ic == 3 && L.h == 7 && L.l == 5 && L.a == 6 && L.b_g1 == 4 && L.b_g2 == 4);
    czk_groth16_pk pk;
    CHECK(make_pk(&pk, &L) == 0);
    czk_err e = {0};
    CHECK_EQ_INT(czk_bellperson_params_write(path, &pk, NULL, &e), CZK_OK);
    CHECK_EQ_INT(czk_bellperson_vk_write(vkpath, &pk.vk, &e), CZK_OK);
    czk_groth16_pk_clear(&pk);

    /* Accepted, and the lengths read back are the written ones. */
    CHECK_EQ_INT(czk_params_header_check(path, &SMALL, &e), CZK_OK);
    CHECK_EQ_INT(czk_params_vk_check(vkpath, &SMALL, &e), CZK_OK);
    czk_params_lengths got;
    uint64_t size;
    CHECK_EQ_INT(czk_params_header_read(&got, &size, path, &e), CZK_OK);
    CHECK(memcmp(&got, &L, sizeof(L)) == 0);
    CHECK_EQ_INT(size, psize);

    /* Each count off by one is refused, naming the vector, the expected and the found length. */
    static const struct {
        size_t field; /* offset into czk_params_expect */
        const char *vec;
        const char *needs, *has;
    } cases[] = {
        {offsetof(czk_params_expect, n_inputs), "ic", "needs 4", "has 3"},
        {offsetof(czk_params_expect, n_rows), "h", "needs 15", "has 7"},
        {offsetof(czk_params_expect, n_aux), "l", "needs 6", "has 5"},
        {offsetof(czk_params_expect, a_aux_density), "a", "needs 7", "has 6"},
        {offsetof(czk_params_expect, b_aux_density), "b_g1", "needs 5", "has 4"},
        {offsetof(czk_params_expect, b_input_density), "b_g1", "needs 5", "has 4"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        czk_params_expect x = SMALL;
        *(uint64_t *)((char *)&x + cases[i].field) += 1;
        czk_err e2 = {0};
        CHECK_EQ_INT(czk_params_header_check(path, &x, &e2), CZK_ELENGTH);
        char needle[32];
        snprintf(needle, sizeof(needle), "vector %s ", cases[i].vec);
        CHECKF(strstr(e2.msg, needle) && strstr(e2.msg, cases[i].needs) &&
                   strstr(e2.msg, cases[i].has) && strstr(e2.msg, "small.params"),
               "case %zu: %s", i, e2.msg);
    }
    czk_params_expect x = SMALL;
    x.n_inputs = 4;
    CHECK_EQ_INT(czk_params_vk_check(vkpath, &x, &e), CZK_ELENGTH);
    CHECK(strstr(e.msg, "small.vk") && strstr(e.msg, "vector ic"));
    /* A .vk is not a .params: its lengths end early. */
    CHECK_EQ_INT(czk_params_header_check(vkpath, &SMALL, &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "truncated") && strstr(e.msg, "length of h"));

    /* Cut inside b_g2: the message names the vector, where it ends and the file's size. */
    size_t n;
    uint8_t *img = czk_test_read_file(path, &n);
    CHECK(img != NULL && n == psize);
    char cut[512];
    snprintf(cut, sizeof(cut), "%s/cut.params", dir);
    CHECK(czk_test_write_file(cut, img, n - 1) == 0);
    CHECK_EQ_INT(czk_params_header_check(cut, &SMALL, &e), CZK_EFORMAT);
    CHECKF(strstr(e.msg, "vector b_g2 (4 points) ends at byte 4056, the file has 4055 bytes"), "%s",
           e.msg);
    /* Truncated at every length: refused as truncated, never accepted. */
    for (size_t len = 0; len < n; len++) {
        CHECK(czk_test_write_file(cut, img, len) == 0);
        czk_err e3 = {0};
        CHECKF(czk_params_header_check(cut, &SMALL, &e3) == CZK_EFORMAT, "len %zu: %s", len,
               e3.msg);
        CHECKF(strstr(e3.msg, "truncated") && strstr(e3.msg, "cut.params"), "len %zu: %s", len,
               e3.msg);
    }
    /* Trailing bytes. */
    uint8_t *longer = malloc(n + 1);
    CHECK(longer != NULL);
    memcpy(longer, img, n);
    longer[n] = 0;
    CHECK(czk_test_write_file(cut, longer, n + 1) == 0);
    free(longer);
    CHECK_EQ_INT(czk_params_header_check(cut, &SMALL, &e), CZK_EFORMAT);
    CHECK(strstr(e.msg, "trailing"));
    CHECK(czk_test_write_file(cut, img, n) == 0);
    /* A corrupted prefix: the l length of the image changed from 5 to 2^24 + 5. */
    size_t l_off = 868 + 96 * 3 + 4 + 96 * 7;
    CHECK_EQ_INT(img[l_off + 3], 5);
    img[l_off] = 1;
    CHECK(czk_test_write_file(cut, img, n) == 0);
    CHECK_EQ_INT(czk_params_header_check(cut, &SMALL, &e), CZK_ELENGTH);
    CHECK(strstr(e.msg, "vector l") && strstr(e.msg, "has 16777221"));
    CHECK_EQ_INT(czk_params_header_read(&got, &size, cut, &e), CZK_EFORMAT);
    free(img);
    /* Not there. */
    snprintf(cut, sizeof(cut), "%s/none.params", dir);
    CHECK_EQ_INT(czk_params_header_check(cut, &SMALL, &e), CZK_EIO);
    CHECK(strstr(e.msg, "none.params"));
    czk_test_rmdir(dir);
}

/* A sparse file laid out like the official 32 GiB WinningPoSt .params (192,050,232 bytes):
 * only its six length prefixes are written, at the offsets the lengths give. */
CZK_TEST(params_header_official_layout) {
    char dir[256], path[512];
    CHECK(czk_test_tmpdir(dir));
    snprintf(path, sizeof(path), "%s/%s", dir,
             "v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-"
             "559e581f022bb4e4ec6e719e563bf0e026ad6de42e56c18714a2c692b1b88d7e.params");
    czk_params_expect ex = expect_of(&TABLE[3]);
    czk_params_lengths L;
    uint64_t psize;
    CHECK_EQ_INT(czk_params_expected(&L, &psize, NULL, &ex, NULL), CZK_OK);
    int fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0600);
    CHECK(fd >= 0);
    CHECK(ftruncate(fd, (off_t)psize) == 0);
    const uint64_t len[6] = {L.ic, L.h, L.l, L.a, L.b_g1, L.b_g2};
    const uint64_t pt[6] = {96, 96, 96, 96, 96, 192};
    uint64_t off = 864;
    for (int v = 0; v < 6; v++) {
        uint8_t b[4] = {(uint8_t)(len[v] >> 24), (uint8_t)(len[v] >> 16), (uint8_t)(len[v] >> 8),
                        (uint8_t)len[v]};
        CHECK(pwrite(fd, b, 4, (off_t)off) == 4);
        off += 4 + len[v] * pt[v];
    }
    close(fd);
    CHECK_EQ_INT(off, 192050232);
    czk_err e = {0};
    CHECK_EQ_INT(czk_params_header_check(path, &ex, &e), CZK_OK);
    /* The 64 GiB WinningPoSt counts do not fit this file: l is the first vector to differ. */
    czk_params_expect other = expect_of(&TABLE[4]);
    CHECK_EQ_INT(czk_params_header_check(path, &other, &e), CZK_ELENGTH);
    CHECK(strstr(e.msg, "vector l has 375210 points, the circuit needs 396000"));
    unlink(path);
    czk_test_rmdir(dir);
}

/* ---- public inputs ---------------------------------------------------------------------- */

static uint8_t *slurp_data(const char *name, size_t *len) {
    return czk_test_read_data("filecoin", name, len);
}

/* The randomness and sector number of Curio's postpub.json. Its randomness is
 * "AAAA…A=" (base64 of 32 zero bytes); the test insists on that rather than decoding base64. */
static int load_pub(uint8_t randomness[32], uint64_t *sector) {
    size_t n;
    uint8_t *raw = slurp_data("post-32g-window.pub.json", &n);
    if (raw == NULL)
        return 0;
    char *js = calloc(1, n + 1);
    if (js == NULL) {
        free(raw);
        return 0;
    }
    memcpy(js, raw, n);
    free(raw);
    int ok = strstr(js, "\"Randomness\":\"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\"") != NULL;
    const char *p = strstr(js, "\"SectorNumber\":");
    ok = ok && p != NULL;
    if (ok)
        *sector = strtoull(p + strlen("\"SectorNumber\":"), NULL, 10);
    memset(randomness, 0, 32);
    free(js);
    return ok;
}

CZK_TEST(public_inputs_real_32g_window) {
    uint8_t rnd[32];
    uint64_t sector;
    CHECK(load_pub(rnd, &sector));
    size_t len;
    uint8_t *buf = slurp_data("post-32g-window.vproof", &len);
    CHECK(buf != NULL);
    czk_vanilla_post_type ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 8, NULL), CZK_OK); /* Window 32 GiB V1 */
    czk_vanilla_sector s;
    CHECK_EQ_INT(czk_vanilla_sector_decode(&s, &ty, buf, len, 0, NULL), CZK_OK);
    CHECK_EQ_INT(s.sector_id, sector);

    size_t slots, k;
    size_t count = czk_public_inputs_post_dims(&slots, &k, &ty);
    CHECK_EQ_INT(slots, 2349);
    CHECK_EQ_INT(k, 10);
    CHECK_EQ_INT(count, 25839);
    CHECK_EQ_INT(count + 1, 25840); /* n_ic of the official .vk */

    czk_fr *a = czk_malloc(count * sizeof(czk_fr));
    czk_fr *b = czk_malloc(count * sizeof(czk_fr));
    CHECK(a != NULL && b != NULL);
    czk_err e = {0};
    CHECK_EQ_INT(czk_public_inputs_post_from_vanilla(a, count, &ty, &s, 1, &e), CZK_OK);
    czk_public_inputs_sector pub = {.sector_id = sector, .comm_r = s.comm_r};
    CHECK_EQ_INT(czk_public_inputs_post_derive(b, count, &ty, rnd, 0, &pub, 1, &e), CZK_OK);
    CHECK(memcmp(a, b, count * sizeof(czk_fr)) == 0);

    /* Slot 0: comm_r as the proof carries it (bytes 8..40, LE hex df691086e3c6…),
     * then the ten challenged leaves. */
    uint8_t bytes[32];
    czk_fr_to_bytes_le(bytes, &a[0]);
    CHECK_MEM(bytes, buf + 8, 32);
    CHECK(bytes[0] == 0xdf && bytes[1] == 0x69 && bytes[2] == 0x10 && bytes[31] == 0x6b);
    for (size_t n = 0; n < 10; n++) {
        czk_fr want;
        czk_fr_set_u64(&want, s.inclusion[n].leaf_index);
        CHECK(czk_fr_equal(&a[1 + n], &want));
    }
    czk_fr w;
    czk_fr_set_u64(&w, 707914199); /* the first and last challenged leaves */
    CHECK(czk_fr_equal(&a[1], &w));
    czk_fr_set_u64(&w, 600088878);
    CHECK(czk_fr_equal(&a[10], &w));
    /* Every padded slot repeats slot 0. */
    for (size_t sl = 1; sl < slots; sl++)
        CHECKF(memcmp(&a[sl * 11], &a[0], 11 * sizeof(czk_fr)) == 0, "slot %zu", sl);

    /* Under API 1.0 the partition index enters the challenges: partition 1 asks other leaves
     * (and the real proof does not answer them). API 1.2 (abi 13) ignores it. */
    CHECK_EQ_INT(czk_public_inputs_post_derive(b, count, &ty, rnd, 1, &pub, 1, &e), CZK_OK);
    CHECK(czk_fr_equal(&a[0], &b[0]) && !czk_fr_equal(&a[1], &b[1]));
    uint64_t idx, leaf;
    CHECK_EQ_INT(czk_vanilla_challenge_index(&idx, CZK_VANILLA_API_V1_0, 2349, 10, 3, NULL),
                 CZK_OK);
    CHECK_EQ_INT(idx, 23493);
    CHECK_EQ_INT(czk_vanilla_leaf_challenge(&leaf, rnd, sector, idx, ty.shape.nodes, NULL), CZK_OK);
    czk_fr_set_u64(&w, leaf);
    CHECK(czk_fr_equal(&b[4], &w));
    czk_vanilla_post_type ty12;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty12, 13, NULL), CZK_OK);
    CHECK_EQ_INT(czk_public_inputs_post_derive(b, count, &ty12, rnd, 5, &pub, 1, &e), CZK_OK);
    CHECK(memcmp(a, b, count * sizeof(czk_fr)) == 0);

    /* Refusals: wrong out_len, no sectors, too many, randomness ≥ r. */
    CHECK_EQ_INT(czk_public_inputs_post_from_vanilla(a, count - 1, &ty, &s, 1, &e), CZK_EINVAL);
    CHECK_EQ_INT(czk_public_inputs_post_from_vanilla(a, count, &ty, &s, 0, &e), CZK_EINVAL);
    CHECK_EQ_INT(czk_public_inputs_post_derive(a, count, &ty, rnd, 0, &pub, 2350, &e), CZK_EINVAL);
    uint8_t big[32];
    memset(big, 0xff, 32);
    CHECK_EQ_INT(czk_public_inputs_post_derive(a, count, &ty, big, 0, &pub, 1, &e), CZK_ERANGE);
    czk_free(a);
    czk_free(b);
    czk_vanilla_sector_clear(&s);
    free(buf);
}

CZK_TEST(public_inputs_small_and_winning) {
    uint8_t rnd[32];
    for (int i = 0; i < 32; i++)
        rnd[i] = (uint8_t)(i * 7 + 1);
    rnd[31] &= 0x3f;

    /* 2 KiB WindowPoSt: 2 slots of 10; one sector is padded, two fill it, three are refused. */
    czk_vanilla_post_type win2k, ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 5, NULL), CZK_OK);
    size_t slots, k, count = czk_public_inputs_post_dims(&slots, &k, &ty);
    CHECK(slots == 2 && k == 10 && count == 22);
    czk_public_inputs_sector sec[3] = {{.sector_id = 11}, {.sector_id = 12}, {.sector_id = 13}};
    czk_fr_set_u64(&sec[0].comm_r, 1001);
    czk_fr_set_u64(&sec[1].comm_r, 1002);
    czk_fr out[22];
    CHECK_EQ_INT(czk_public_inputs_post_derive(out, 22, &ty, rnd, 0, sec, 1, NULL), CZK_OK);
    CHECK(memcmp(&out[11], &out[0], 11 * sizeof(czk_fr)) == 0);
    CHECK_EQ_INT(czk_public_inputs_post_derive(out, 22, &ty, rnd, 0, sec, 2, NULL), CZK_OK);
    CHECK(czk_fr_equal(&out[11], &sec[1].comm_r));
    for (size_t i = 0; i < 2; i++)
        for (size_t n = 0; n < 10; n++) {
            uint64_t leaf;
            /* API 1.0: sector i of partition 0 uses index i·10 + n; 2 KiB has 64 leaves. */
            CHECK_EQ_INT(
                czk_vanilla_leaf_challenge(&leaf, rnd, sec[i].sector_id, i * 10 + n, 64, NULL),
                CZK_OK);
            czk_fr w;
            czk_fr_set_u64(&w, leaf);
            CHECK(czk_fr_equal(&out[i * 11 + 1 + n], &w));
        }
    CHECK_EQ_INT(czk_public_inputs_post_derive(out, 22, &ty, rnd, 0, sec, 3, NULL), CZK_EINVAL);

    /* WinningPoSt 32 GiB: 66 slots of one challenge, slot i challenge index i. */
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&win2k, 3, NULL), CZK_OK);
    count = czk_public_inputs_post_dims(&slots, &k, &win2k);
    CHECK(slots == 66 && k == 1 && count == 132);
    czk_fr a[132], b[132];
    czk_err e = {0};
    CHECK_EQ_INT(czk_public_inputs_post_derive(a, 132, &win2k, rnd, 0, sec, 1, &e), CZK_OK);
    czk_vanilla_sector vs = {.sector_id = 11, .comm_r = sec[0].comm_r, .n_inclusions = 66};
    vs.inclusion = czk_malloc(66 * sizeof(czk_vanilla_inclusion));
    CHECK(vs.inclusion != NULL);
    memset(vs.inclusion, 0, 66 * sizeof(czk_vanilla_inclusion));
    for (size_t i = 0; i < 66; i++) {
        uint64_t leaf;
        CHECK_EQ_INT(czk_vanilla_leaf_challenge(&leaf, rnd, 11, i, win2k.shape.nodes, NULL),
                     CZK_OK);
        vs.inclusion[i].leaf_index = leaf;
        CHECK(czk_fr_equal(&a[2 * i], &sec[0].comm_r));
    }
    CHECK_EQ_INT(czk_public_inputs_post_from_vanilla(b, 132, &win2k, &vs, 1, &e), CZK_OK);
    CHECK(memcmp(a, b, sizeof(a)) == 0);
    CHECK_EQ_INT(czk_public_inputs_post_derive(a, 132, &win2k, rnd, 1, sec, 1, NULL), CZK_EINVAL);
    CHECK_EQ_INT(czk_public_inputs_post_derive(a, 132, &win2k, rnd, 0, sec, 2, NULL), CZK_EINVAL);
    vs.n_inclusions = 65;
    CHECK_EQ_INT(czk_public_inputs_post_from_vanilla(b, 132, &win2k, &vs, 1, &e), CZK_EINVAL);
    CHECK(strstr(e.msg, "65 inclusion proofs"));
    czk_free(vs.inclusion);
}
