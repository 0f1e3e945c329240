/*
 * czk setup: DEVELOPMENT keys from random toxic waste, in bellperson's format (.params, .vk)
 * or snarkjs's (.zkey, verification_key.json). Not a ceremony: whoever ran this machine
 * could know the toxic waste, so such keys prove nothing to anyone else.
 */
#include "cli/cli.h"

#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "util/memclear.h"
#include "util/timer.h"

#include <stdio.h>
#include <string.h>

static const char *USAGE =
    "usage: czk setup [options] <circuit.r1cs> <out.params> <out.vk>\n"
    "       czk setup --zkey [options] <circuit.r1cs> <out.zkey> <verification_key.json>\n"
    "\n"
    "Makes DEVELOPMENT Groth16 keys for a circuit (circom .r1cs or czk R1CS) from random\n"
    "toxic waste: bellperson .params/.vk, or with --zkey a snarkjs .zkey and\n"
    "verification_key.json that snarkjs proves and verifies with. NOT A CEREMONY: use them\n"
    "for tests and benchmarks only.\n"
    "\n"
    "options:\n"
    "  --threads N    worker threads (default: all CPUs)\n"
    "  --seed S       toxic waste from S instead of the OS (reproducible; tests only)\n";

int czk_cli_setup(int argc, char **argv) {
    czk_cli_common c = {0};
    int done = czk_cli_start(&c, "setup", USAGE, &argc, argv);
    if (done >= 0)
        return done;
    int zkey = 0, npos = 0;
    const char *pos[3];
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--zkey") == 0) {
            zkey = 1;
        } else if ((argv[i][0] == '-' && argv[i][1] != '\0') || npos == 3) {
            fprintf(stderr, "czk setup: bad argument '%s'\n%s", argv[i], USAGE);
            return CZK_EXIT_ERROR;
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (npos != 3) {
        fprintf(stderr, "czk setup: wrong arguments\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_r1cs cs = {0};
    czk_groth16_pk pk = {0};
    czk_rng rng;
    czk_cli_progress prog;
    czk_pool *pool = czk_cli_pool(&c, "setup");
    if (pool == NULL)
        goto out;
    uint64_t seed = c.seed;
    if (!c.have_seed && czk_rng_os(&seed, sizeof(seed)) != CZK_OK) {
        fprintf(stderr, "czk setup: the OS random source failed\n");
        goto out;
    }
    /* xoshiro from a 64-bit seed: adequate for development keys, which is all this makes. */
    czk_rng_seed(&rng, seed);
    czk_memclear_explicit(&seed, sizeof(seed));
    fprintf(stderr, "czk setup: DEVELOPMENT keys from random toxic waste, not a ceremony\n");
    uint64_t t0 = czk_time_ns();
    czk_cli_progress_start(&prog, "setup", 3);
    czk_cli_progress_stage(&prog, "reading %s", pos[0]);
    if ((rc = czk_formats_r1cs_read(&cs, pos[0], pool, &err)) == CZK_OK) {
        czk_cli_progress_stage(&prog, "computing the keys (%zu constraints, domain 2^%u)",
                               cs.n_constraints, czk_groth16_domain_lg(&cs));
        rc = czk_groth16_setup_dev(&pk, &cs, zkey ? CZK_H_ODD_COSET : CZK_H_MONOMIAL, &rng, pool,
                                   &err);
    }
    if (rc != CZK_OK) {
        czk_cli_progress_end(&prog);
        exit_code = czk_cli_fail("setup", rc, &err);
        goto out;
    }
    czk_cli_progress_stage(&prog, "writing %s and %s", pos[1], pos[2]);
    if (zkey) {
        rc = czk_zkey_write(pos[1], &pk, &cs, &err);
        if (rc == CZK_OK)
            rc = czk_snarkjs_vk_write(pos[2], &pk.vk, &err);
    } else {
        rc = czk_bellperson_params_write(pos[1], &pk, &err);
        if (rc == CZK_OK)
            rc = czk_bellperson_vk_write(pos[2], &pk.vk, &err);
    }
    czk_cli_progress_end(&prog);
    if (rc != CZK_OK) {
        exit_code = czk_cli_fail("setup", rc, &err);
        goto out;
    }
    fprintf(stderr, "czk setup: %zu constraints, %zu variables, %zu public, domain 2^%u, %.1f s\n",
            cs.n_constraints, cs.n_vars, cs.n_public, czk_groth16_domain_lg(&cs),
            (double)(czk_time_ns() - t0) / 1e9);
    exit_code = CZK_EXIT_OK;
out:
    czk_memclear_explicit(&rng, sizeof(rng));
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_pool_destroy(pool);
    return exit_code;
}
