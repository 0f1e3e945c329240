/*
 * czk synth: a synthetic circuit shaped like a Filecoin PoRep partition (src/r1cs/synth.h),
 * its witness and keys, written to a folder, so that the prover, the engine and benchmarks
 * can run at real scale before Filecoin's own circuits exist.
 */
#include "cli/cli.h"

#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "groth16/benchkey.h"
#include "groth16/setup.h"
#include "r1cs/synth.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/timer.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *USAGE =
    "usage: czk synth --porep-shaped K --out DIR [options]\n"
    "\n"
    "Writes a satisfiable circuit of 2^K constraints (input rows included) shaped like a\n"
    "Filecoin PoRep partition, into DIR: circuit.czkr1cs (czk R1CS), witness.wtns,\n"
    "public.json, and keys in bellperson format:\n"
    "  --keys dev     dev.params + dev.vk from random toxic waste (NOT a ceremony); proofs\n"
    "                 made with them verify (default for K <= 16)\n"
    "  --keys bench   bench.params: valid, distinct curve points of the right shape, fast to\n"
    "                 make at any K; proofs made with them do NOT verify, so use them with\n"
    "                 benchmarks, not with `czk prove` (default for K > 16)\n"
    "  --keys none    no keys\n"
    "options:\n"
    "  --threads N    worker threads (default: all CPUs)\n"
    "  --seed S       the circuit's and witness's seed (default 1)\n";

/* --keys, as the index of its value */
enum { KEYS_DEV, KEYS_BENCH, KEYS_NONE };

static int join(char *out, size_t cap, const char *dir, const char *name) {
    int n = snprintf(out, cap, "%s/%s", dir, name);
    return n > 0 && (size_t)n < cap;
}

int czk_cli_synth(int argc, char **argv) {
    czk_cli_common c = {.seed = 1};
    int done = czk_cli_start(&c, "synth", USAGE, &argc, argv);
    if (done >= 0)
        return done;
    static const char *const keys_names[] = {"dev", "bench", "none", NULL}; /* KEYS_ order */
    const char *dir = NULL;
    long k = -1;
    int keys = -1;
    const czk_cli_opt opts[] = {
        {.name = "--porep-shaped", .kind = CZK_CLI_OPT_LONG, .dest = &k, .lo = 4, .hi = 28},
        {.name = "--out", .kind = CZK_CLI_OPT_STRING, .dest = &dir},
        {.name = "--keys", .kind = CZK_CLI_OPT_CHOICE, .dest = &keys, .choices = keys_names},
    };
    const czk_cli_opts how = {"synth", USAGE, CZK_CLI_OPTS_BAD_ARGUMENT};
    if (czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), NULL, 0, argc, argv) < 0)
        return CZK_EXIT_ERROR;
    if (k < 0 || dir == NULL) {
        fprintf(stderr, "czk synth: --porep-shaped K and --out DIR are required\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    if (keys < 0)
        keys = k <= 16 ? KEYS_DEV : KEYS_BENCH;
    if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "czk synth: cannot create %s: %s\n", dir, strerror(errno));
        return CZK_EXIT_ERROR;
    }

    int exit_code = CZK_EXIT_ERROR, rc = CZK_OK;
    czk_err err = {0};
    czk_r1cs cs = {0};
    czk_fr *w = NULL;
    czk_groth16_pk pk = {0};
    char p1[4096], p2[4096];
    czk_pool *pool = czk_cli_pool(&c, "synth");
    if (pool == NULL)
        goto out;
    uint64_t t0 = czk_time_ns();
    rc = czk_synth_porep_shaped(&cs, &w, (unsigned)k, c.seed, pool, &err);
    if (rc != CZK_OK)
        goto fail;
    fprintf(stderr, "czk synth: 2^%ld: %zu constraints, %zu variables, %zu public (%.1f s)\n", k,
            cs.n_constraints, cs.n_vars, cs.n_public, (double)(czk_time_ns() - t0) / 1e9);
    if (!join(p1, sizeof(p1), dir, "circuit.czkr1cs") ||
        !join(p2, sizeof(p2), dir, "witness.wtns")) {
        fprintf(stderr, "czk synth: path too long: %s\n", dir);
        goto out;
    }
    if ((rc = czk_r1cs_save(&cs, p1, &err)) != CZK_OK ||
        (rc = czk_circom_wtns_write(p2, w, cs.n_vars, &err)) != CZK_OK)
        goto fail;
    if (!join(p1, sizeof(p1), dir, "public.json"))
        goto out;
    if ((rc = czk_snarkjs_public_write(p1, w + 1, cs.n_public, &err)) != CZK_OK)
        goto fail;
    t0 = czk_time_ns();
    if (keys == KEYS_DEV) {
        czk_rng rng;
        uint64_t seed;
        if (czk_rng_os(&seed, sizeof(seed)) != CZK_OK) {
            fprintf(stderr, "czk synth: the OS random source failed\n");
            goto out;
        }
        czk_rng_seed(&rng, seed);
        fprintf(stderr, "czk synth: DEVELOPMENT keys from random toxic waste, not a ceremony\n");
        rc = czk_groth16_setup_dev(&pk, &cs, CZK_H_MONOMIAL, &rng, pool, &err);
        czk_memclear_explicit(&rng, sizeof(rng));
        if (rc != CZK_OK || !join(p1, sizeof(p1), dir, "dev.params") ||
            !join(p2, sizeof(p2), dir, "dev.vk"))
            goto fail;
        if ((rc = czk_bellperson_params_write(p1, &pk, pool, &err)) != CZK_OK ||
            (rc = czk_bellperson_vk_write(p2, &pk.vk, &err)) != CZK_OK)
            goto fail;
    } else if (keys == KEYS_BENCH) {
        rc = czk_groth16_benchkey(&pk, &cs, CZK_H_MONOMIAL, c.seed, pool, &err);
        if (rc != CZK_OK || !join(p1, sizeof(p1), dir, "bench.params"))
            goto fail;
        if ((rc = czk_bellperson_params_write(p1, &pk, pool, &err)) != CZK_OK)
            goto fail;
        fprintf(stderr,
                "czk synth: %s holds BENCHMARK keys: for timing the prover only; "
                "`czk prove` refuses them (--keys dev makes keys it proves with)\n",
                p1);
    }
    if (keys != KEYS_NONE)
        fprintf(stderr, "czk synth: %s keys in %.1f s\n", keys_names[keys],
                (double)(czk_time_ns() - t0) / 1e9);
    exit_code = CZK_EXIT_OK;
    goto out;
fail:
    exit_code = rc != CZK_OK ? czk_cli_fail("synth", rc, &err) : CZK_EXIT_ERROR;
out:
    if (w != NULL) {
        czk_memclear_explicit(w, cs.n_vars * sizeof(*w));
        czk_free(w);
    }
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_pool_destroy(pool);
    return exit_code;
}
