/*
 * czk self-check: known answers and algebraic identities of the BLS12-381 arithmetic on
 * random inputs (reproducible with --seed), in well under a second.
 */
#include "cli/cli.h"
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp12.h"
#include "field/fr.h"
#include "pairing/pairing.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void report(const char *what, int ok, uint64_t t0) {
    printf("  %-58s %s  %8.2f ms\n", what, ok ? "ok  " : "FAIL",
           (double)(czk_time_ns() - t0) / 1e6);
    if (!ok)
        failures++;
}

static int hex_equal(const uint8_t *b, size_t n, const char *hex) {
    if (strlen(hex) != 2 * n)
        return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || v != b[i])
            return 0;
    }
    return 1;
}

static void check_fields(czk_rng *rng) {
    uint64_t t0 = czk_time_ns();
    int ok = 1;
    for (int i = 0; i < 1000 && ok; i++) {
        czk_fp a, b, s, d, l, r, t;
        czk_fp_random(&a, rng);
        czk_fp_random(&b, rng);
        czk_fp_add(&s, &a, &b);
        czk_fp_sub(&d, &a, &b);
        czk_fp_mul(&l, &s, &d); /* (a+b)(a-b) = a^2 - b^2 */
        czk_fp_sqr(&r, &a);
        czk_fp_sqr(&t, &b);
        czk_fp_sub(&r, &r, &t);
        ok &= czk_fp_equal(&l, &r);
        czk_fp_inv(&t, &a);
        czk_fp_mul(&t, &t, &a);
        ok &= czk_fp_is_one(&t);
        czk_fp_sqr(&t, &a);
        ok &= czk_fp_sqrt(&r, &t) &&
              (czk_fp_equal(&r, &a) || (czk_fp_neg(&r, &r), czk_fp_equal(&r, &a)));
    }
    report("Fp: (a+b)(a-b) = a^2-b^2, a/a = 1, sqrt(a^2) = ±a", ok, t0);

    t0 = czk_time_ns();
    ok = 1;
    for (int i = 0; i < 1000 && ok; i++) {
        czk_fr a, b, c;
        czk_fr_random(&a, rng);
        czk_fr_inv_var(&b, &a);
        czk_fr_mul(&c, &a, &b);
        ok &= czk_fr_is_one(&c) || czk_fr_is_zero(&a);
    }
    /* r - 1 = -1: (r-1)^2 = 1. */
    uint8_t rm1[32];
    memset(rm1, 0, sizeof(rm1));
    czk_fr m1, one;
    czk_fr_set_one(&one);
    czk_fr_neg(&m1, &one);
    czk_fr_to_bytes_be(rm1, &m1);
    ok &= hex_equal(rm1, 32, "73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000000");
    report("Fr: a/a = 1, -1 encodes as r-1", ok, t0);
}

static void check_curves(czk_rng *rng) {
    uint64_t t0 = czk_time_ns();
    uint8_t c1[CZK_G1_COMPRESSED_BYTES], c2[CZK_G2_COMPRESSED_BYTES];
    czk_g1_affine_compress(c1, &CZK_G1_GENERATOR);
    czk_g2_affine_compress(c2, &CZK_G2_GENERATOR);
    int ok = hex_equal(c1, sizeof(c1),
                       "97f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83f"
                       "f97a1aeffb3af00adb22c6bb") &&
             hex_equal(c2, sizeof(c2),
                       "93e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049334cf112"
                       "13945d57e5ac7d055d042b7e024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02"
                       "b4510b647ae3d1770bac0326a805bbefd48056c8c121bdb8");
    report("G1/G2 generators: known zcash compressed encodings", ok, t0);

    t0 = czk_time_ns();
    ok = 1;
    for (int i = 0; i < 20 && ok; i++) {
        czk_g1_affine p, q;
        czk_g2_affine p2, q2;
        uint8_t b1[CZK_G1_UNCOMPRESSED_BYTES], b2[CZK_G2_COMPRESSED_BYTES];
        czk_g1_random(&p, rng);
        czk_g2_random(&p2, rng);
        czk_g1_affine_serialize(b1, &p);
        ok &= czk_g1_affine_deserialize(&q, b1) == CZK_OK && czk_g1_affine_equal(&p, &q);
        czk_g2_affine_compress(b2, &p2);
        ok &= czk_g2_affine_uncompress(&q2, b2) == CZK_OK && czk_g2_affine_equal(&p2, &q2);
        ok &= czk_g1_affine_is_in_group(&p) && czk_g2_affine_is_in_group(&p2);
    }
    report("G1/G2: encode/decode round trips, subgroup membership", ok, t0);
}

static void check_pairing(czk_rng *rng) {
    uint64_t t0 = czk_time_ns();
    /* e(aP, bQ) · e(-abP, Q) = 1 holds only for a bilinear, non-degenerate map. */
    czk_fr a, b, ab;
    czk_fr_random(&a, rng);
    czk_fr_random(&b, rng);
    czk_fr_mul(&ab, &a, &b);
    czk_fr_neg(&ab, &ab);
    czk_g1_jacobian j;
    czk_g2_jacobian j2;
    czk_g1_affine ps[2];
    czk_g2_affine qs[2];
    czk_g1_jacobian_from_affine(&j, &CZK_G1_GENERATOR);
    czk_g1_jacobian_mul_var(&j, &j, &a);
    czk_g1_jacobian_to_affine(&ps[0], &j);
    czk_g2_jacobian_from_affine(&j2, &CZK_G2_GENERATOR);
    czk_g2_jacobian_mul_var(&j2, &j2, &b);
    czk_g2_jacobian_to_affine(&qs[0], &j2);
    czk_g1_jacobian_from_affine(&j, &CZK_G1_GENERATOR);
    czk_g1_jacobian_mul_var(&j, &j, &ab);
    czk_g1_jacobian_to_affine(&ps[1], &j);
    qs[1] = CZK_G2_GENERATOR;
    czk_pairing_g2_prepared prep[2];
    czk_pairing_g2_prepare(&prep[0], &qs[0]);
    czk_pairing_g2_prepare(&prep[1], &qs[1]);
    int ok = czk_pairing_check(ps, prep, 2);
    /* And a wrong exponent must fail. */
    czk_g1_affine bad[2] = {ps[0], CZK_G1_GENERATOR};
    ok &= !czk_pairing_check(bad, prep, 2);
    czk_fp12 e;
    czk_pairing(&e, &CZK_G1_GENERATOR, &CZK_G2_GENERATOR);
    ok &= !czk_fp12_is_one(&e);
    report("pairing: e(aP,bQ)·e(-abP,Q) = 1, non-degenerate", ok, t0);
}

int czk_cli_self_check(int argc, char **argv) {
    uint64_t seed = 0;
    if (czk_cli_wants_help(argc, argv)) {
        printf("usage: czk self-check [--seed N]\n\n"
               "Checks field, curve and pairing arithmetic against known answers and\n"
               "algebraic identities on random inputs (reproducible with --seed).\n"
               "Exit 0 when every check passes, 1 otherwise.\n");
        return 0;
    }
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--seed") == 0 && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else {
            fprintf(stderr, "usage: czk self-check [--seed N]\n");
            return 2;
        }
    }
    if (seed == 0 && czk_rng_os(&seed, sizeof(seed)) != CZK_OK)
        seed = czk_time_ns();
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    printf("czk %s self-check (seed %llu)\n", CZK_VERSION, (unsigned long long)seed);
    uint64_t t0 = czk_time_ns();
    check_fields(&rng);
    check_curves(&rng);
    check_pairing(&rng);
    printf("self-check: %s in %.1f ms\n", failures ? "FAILED" : "all passed",
           (double)(czk_time_ns() - t0) / 1e6);
    return failures ? 1 : 0;
}
