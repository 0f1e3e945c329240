/*
 * czk demo: the main job on an embedded default (`make run`): build a PoRep-shaped circuit,
 * make development keys, prove, verify, and print the time of each step; through an
 * in-process engine, as the daemon and `czk prove` do (it picks the device and verifies).
 */
#include "cli/cli.h"

#include "czk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *USAGE =
    "usage: czk demo [--k K] [--threads N] [--backend auto|cpu|cuda] [--seed S]\n"
    "\n"
    "Builds a satisfiable PoRep-shaped circuit of 2^K constraints (default K = 16), makes\n"
    "DEVELOPMENT keys (random toxic waste, not a ceremony), proves, verifies, and prints the\n"
    "time of each step.\n";

int czk_cli_demo(int argc, char **argv) {
    czk_cli_common c = {0};
    int done = czk_cli_start(&c, "demo", USAGE, &argc, argv);
    if (done >= 0)
        return done;
    long k = 16;
    const czk_cli_opt opts[] = {
        {.name = "--k", .kind = CZK_CLI_OPT_LONG, .dest = &k, .lo = 4, .hi = 24},
    };
    const czk_cli_opts how = {"demo", USAGE, CZK_CLI_OPTS_BAD_ARGUMENT};
    if (czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), NULL, 0, argc, argv) < 0)
        return CZK_EXIT_ERROR;
    /* Line by line even into a pipe or a log (`make run | tee`), so that each step's line
     * shows when the step starts rather than when the demo ends. */
    setvbuf(stdout, NULL, _IOLBF, 0);
    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_engine *e = NULL;
    czk_job_result res;
    czk_engine_status st;
    memset(&res, 0, sizeof res);
    memset(&st, 0, sizeof st);
    czk_engine_config cfg;
    czk_cli_engine_config(&cfg, &c);
    if ((rc = czk_engine_create(&e, &cfg, &err)) != CZK_OK ||
        (rc = czk_engine_register_synthetic(e, "demo", (unsigned)k, &err)) != CZK_OK ||
        (rc = czk_engine_get_status(e, &st)) != CZK_OK)
        goto fail;
    printf("czk %s demo: PoRep-shaped circuit of 2^%ld constraints, %u threads, on %s\n",
           CZK_VERSION, k,
           cfg.prove_threads ? cfg.prove_threads : (unsigned)sysconf(_SC_NPROCESSORS_ONLN),
           st.n_devices > 0 ? st.devices[0].name : "?");
    uint64_t load_ms = 0;
    printf("demo: building the circuit and making DEV keys...\n");
    if ((rc = czk_engine_preload(e, "demo", NULL, &load_ms, &err)) != CZK_OK)
        goto fail;
    printf("demo: solving the witness, proving, verifying...\n");
    /* A seed other than 0: the partition's witness is solved, so synthesis is timed too. */
    czk_job_request req = {.request_id = "demo",
                           .circuit_id = "demo",
                           .n_partitions = 1,
                           .synth_seed = c.have_seed ? c.seed | 1 : 1};
    char job_id[CZK_REQUEST_ID_MAX + 1];
    if ((rc = czk_engine_submit(e, &req, job_id, NULL, NULL, &err)) != CZK_OK ||
        (rc = czk_engine_await(e, job_id, 0, &res, &err)) != CZK_OK)
        goto fail;
    const czk_step_times *t = &res.steps;
    printf("  %-34s %10llu ms\n", "circuit, DEV keys (not a ceremony)",
           (unsigned long long)load_ms);
    printf("  %-34s %10llu ms\n", "witness (synthesis)", (unsigned long long)res.synthesis_ms);
    printf("  %-34s %10.1f ms\n", "prove: witness SpMV (a, b, c)", t->spmv_us / 1e3);
    printf("  %-34s %10.1f ms\n", "prove: H (NTTs)", t->h_us / 1e3);
    printf("  %-34s %10.1f ms\n", "prove: MSM A (G1)", t->msm_a_us / 1e3);
    printf("  %-34s %10.1f ms\n", "prove: MSM B (G1)", t->msm_b_g1_us / 1e3);
    printf("  %-34s %10.1f ms\n", "prove: MSM B (G2)", t->msm_b_g2_us / 1e3);
    printf("  %-34s %10.1f ms\n", "prove: MSM L (G1)", t->msm_l_us / 1e3);
    printf("  %-34s %10.1f ms\n", "prove: MSM H (G1)", t->msm_h_us / 1e3);
    printf("  %-34s %10.1f ms\n", "prove: total", t->prove_us / 1e3);
    printf("  %-34s %10.1f ms\n", "verify (pairings)", t->verify_us / 1e3);
    if (res.status != CZK_JOB_COMPLETED) {
        /* The engine verifies every proof before it counts: a job that fails here failed
         * that check (or synthesis), and says which. */
        printf("demo: no verified proof: %s\n", res.error);
        goto out;
    }
    printf("demo: proof verified\n");
    exit_code = CZK_EXIT_OK;
    goto out;
fail:
    exit_code = czk_cli_fail("demo", rc, &err);
out:
    czk_job_result_clear(&res);
    czk_engine_status_clear(&st);
    czk_engine_destroy(e);
    return exit_code;
}
