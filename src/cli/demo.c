/*
 * czk demo: the main job on an embedded default (`make run`): build a PoRep-shaped circuit,
 * make development keys, prove, verify, and print the time of each step.
 */
#include "cli/cli.h"

#include "groth16/prove.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/synth.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE =
    "usage: czk demo [--k K] [--threads N] [--seed S]\n"
    "\n"
    "Builds a satisfiable PoRep-shaped circuit of 2^K constraints (default K = 16), makes\n"
    "DEVELOPMENT keys (random toxic waste, not a ceremony), proves, verifies, and prints the\n"
    "time of each step.\n";

int czk_cli_demo(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    czk_cli_common c = {0};
    long k = 16;
    for (int i = 0; i < argc; i++) {
        int o = czk_cli_common_option(&c, "demo", argc, argv, &i);
        if (o < 0)
            return CZK_EXIT_ERROR;
        if (o > 0)
            continue;
        if (strcmp(argv[i], "--k") == 0 && i + 1 < argc) {
            char *end;
            k = strtol(argv[++i], &end, 10);
            if (*end != '\0' || k < 4 || k > 24) {
                fprintf(stderr, "czk demo: --k takes 4..24\n");
                return CZK_EXIT_ERROR;
            }
        } else {
            fprintf(stderr, "czk demo: bad argument '%s'\n%s", argv[i], USAGE);
            return CZK_EXIT_ERROR;
        }
    }
    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_r1cs cs = {0};
    czk_fr *w = NULL, r, s;
    czk_groth16_pk pk = {0};
    czk_groth16_pvk pvk = {0};
    czk_groth16_proof proof;
    czk_groth16_timings t = {0};
    czk_rng rng;
    const czk_backend *be = czk_cli_backend(&c, "demo");
    czk_pool *pool = czk_cli_pool(&c, "demo");
    if (be == NULL || pool == NULL)
        goto out;
    uint64_t seed = c.have_seed ? c.seed : 1;
    czk_rng_seed(&rng, seed ^ 0x6b65797365656421ULL);

    printf("czk %s demo: PoRep-shaped circuit of 2^%ld constraints, %u threads, backend %s\n",
           CZK_VERSION, k, czk_pool_ways(pool), be->name);
    uint64_t t0 = czk_time_ns();
    if ((rc = czk_synth_porep_shaped(&cs, &w, (unsigned)k, seed, pool, &err)) != CZK_OK)
        goto fail;
    uint64_t synth_ns = czk_time_ns() - t0;
    t0 = czk_time_ns();
    if ((rc = czk_groth16_setup_dev(&pk, &cs, CZK_H_MONOMIAL, &rng, pool, &err)) != CZK_OK)
        goto fail;
    uint64_t setup_ns = czk_time_ns() - t0;
    if ((rc = czk_cli_blinding(&r, &s, &c, &err)) != CZK_OK ||
        (rc = czk_groth16_prove(&proof, &pk, &cs, w, &r, &s, be, pool, &t, &err)) != CZK_OK)
        goto fail;
    t0 = czk_time_ns();
    if ((rc = czk_groth16_pvk_prepare(&pvk, &pk.vk, &err)) != CZK_OK)
        goto fail;
    rc = czk_groth16_verify(&pvk, &proof, w + 1, cs.n_public, &err);
    uint64_t verify_ns = czk_time_ns() - t0;

    printf("  %zu constraints, %zu variables, %zu public inputs, domain 2^%u\n", cs.n_constraints,
           cs.n_vars, cs.n_public, czk_groth16_domain_lg(&cs));
    printf("  %-34s %10.1f ms\n", "circuit + witness (synthesis)", czk_cli_ms(synth_ns));
    printf("  %-34s %10.1f ms\n", "dev setup (not a ceremony)", czk_cli_ms(setup_ns));
    printf("  %-34s %10.1f ms\n", "prove: witness SpMV (a, b, c)", czk_cli_ms(t.spmv_ns));
    printf("  %-34s %10.1f ms\n", "prove: H (NTTs)", czk_cli_ms(t.h_ns));
    printf("  %-34s %10.1f ms\n", "prove: MSM A (G1)", czk_cli_ms(t.msm_a_ns));
    printf("  %-34s %10.1f ms\n", "prove: MSM B (G1)", czk_cli_ms(t.msm_b_g1_ns));
    printf("  %-34s %10.1f ms\n", "prove: MSM B (G2)", czk_cli_ms(t.msm_b_g2_ns));
    printf("  %-34s %10.1f ms\n", "prove: MSM L (G1)", czk_cli_ms(t.msm_l_ns));
    printf("  %-34s %10.1f ms\n", "prove: MSM H (G1)", czk_cli_ms(t.msm_h_ns));
    printf("  %-34s %10.1f ms\n", "prove: total", czk_cli_ms(t.total_ns));
    printf("  %-34s %10.1f ms\n", "verify (prepare + pairings)", czk_cli_ms(verify_ns));
    if (rc != CZK_OK) {
        printf("demo: the proof does NOT verify (%s)\n", czk_cli_user_message(err.msg));
        goto out;
    }
    printf("demo: proof verified\n");
    exit_code = CZK_EXIT_OK;
    goto out;
fail:
    exit_code = czk_cli_fail("demo", rc, &err);
out:
    czk_memclear_explicit(&r, sizeof(r));
    czk_memclear_explicit(&s, sizeof(s));
    if (w != NULL) {
        czk_memclear_explicit(w, cs.n_vars * sizeof(*w));
        czk_free(w);
    }
    czk_groth16_pvk_clear(&pvk);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_pool_destroy(pool);
    return exit_code;
}
