/*
 * czk setup: DEVELOPMENT keys from random toxic waste, in bellperson's format (.params, .vk)
 * or snarkjs's (.zkey, verification_key.json). Not a ceremony: whoever ran this machine
 * could know the toxic waste, so such keys prove nothing to anyone else.
 */
#include "cli/cli.h"

#include "filecoin/circuit.h"
#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/setup.h"
#include "util/memclear.h"
#include "util/timer.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *USAGE =
    "usage: czk setup [options] <circuit.r1cs> <out.params> <out.vk>\n"
    "       czk setup --zkey [options] <circuit.r1cs> <out.zkey> <verification_key.json>\n"
    "       czk setup --filecoin KIND SIZE --out DIR [options]\n"
    "\n"
    "Makes DEVELOPMENT Groth16 keys for a circuit (circom .r1cs or czk R1CS) from random\n"
    "toxic waste: bellperson .params/.vk, or with --zkey a snarkjs .zkey and\n"
    "verification_key.json that snarkjs proves and verifies with. NOT A CEREMONY: use them\n"
    "for tests and benchmarks only.\n"
    "\n"
    "With --filecoin, the circuit is Filecoin's KIND (winning-post, window-post) at SIZE (2KiB,\n"
    "8MiB, 512MiB, 32GiB, 64GiB), synthesized by czk, and the keys are written into DIR\n"
    "(created if missing) under Filecoin's v28 .params/.vk names (see `czk circuit info`).\n"
    "The 32/64 GiB WindowPoSt circuits (125 M rows and more) need the GPU setup: refused.\n"
    "\n"
    "options:\n"
    "  --threads N    worker threads (default: all CPUs)\n"
    "  --seed S       toxic waste from S instead of the OS (reproducible; tests only)\n";

/* The largest circuit (rows) `--filecoin` records on the host: RECORD and the dev setup take
 * about 1.5 KB per row, so 2^24 rows is some 25 GB. WinningPoSt (≤ 391 K rows) and WindowPoSt
 * up to 512 MiB (85 K) fit; WindowPoSt 32/64 GiB (125 M, 130 M) do not. */
#define SETUP_FILECOIN_MAX_ROWS (1ull << 24)

/* czk setup --filecoin KIND SIZE --out DIR: record, set up, write under the v28 names, check. */
static int setup_filecoin(const czk_cli_common *c, const char *kind, const char *size,
                          const char *dir) {
    czk_cli_filecoin fc;
    if (czk_cli_filecoin_parse(&fc, "setup", kind, size) != 0)
        return CZK_EXIT_ERROR;
    uint64_t rows = czk_circuit_post_rows(&fc.shape);
    if (rows > SETUP_FILECOIN_MAX_ROWS) {
        fprintf(stderr,
                "czk setup: the %s %s circuit has %llu rows; recording it and making its keys "
                "on the host would take about %llu GB (the limit is %llu rows). It needs the "
                "GPU setup, which czk setup does not do.\n",
                fc.kind_name, fc.size_name, (unsigned long long)rows,
                (unsigned long long)(rows * 1500 / 1000000000), SETUP_FILECOIN_MAX_ROWS);
        return CZK_EXIT_ERROR;
    }
    if (czk_cli_make_dir("setup", dir) != 0)
        return CZK_EXIT_ERROR;
    char params_path[4096], vk_path[4096];
    if ((size_t)snprintf(params_path, sizeof(params_path), "%s/%s", dir, fc.params_name) >=
            sizeof(params_path) ||
        (size_t)snprintf(vk_path, sizeof(vk_path), "%s/%s", dir, fc.vk_name) >= sizeof(vk_path)) {
        fprintf(stderr, "czk setup: output directory name too long: %s\n", dir);
        return CZK_EXIT_ERROR;
    }
    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_r1cs cs = {0};
    czk_cs_stats st;
    czk_groth16_pk pk = {0};
    czk_rng rng;
    czk_cli_progress prog;
    int prog_on = 0;
    czk_pool *pool = czk_cli_pool(c, "setup");
    if (pool == NULL)
        goto out;
    if (czk_cli_rng(&rng, c, "setup") != 0)
        goto out;
    fprintf(stderr, "czk setup: DEVELOPMENT keys from random toxic waste, not a ceremony\n");
    uint64_t t0 = czk_time_ns();
    czk_cli_progress_start(&prog, "setup", 4);
    prog_on = 1;
    czk_cli_progress_stage(&prog, "recording %s %s", fc.kind_name, fc.size_name);
    if ((rc = czk_circuit_post_record(&cs, &st, &fc.shape, &err)) == CZK_OK) {
        czk_cli_progress_stage(&prog, "computing the keys (%zu constraints, domain 2^%u)",
                               cs.n_constraints, czk_groth16_domain_lg(&cs));
        rc = czk_groth16_setup_dev(&pk, &cs, CZK_H_MONOMIAL, &rng, pool, &err);
    }
    uint64_t t1 = czk_time_ns();
    if (rc == CZK_OK) {
        czk_cli_progress_stage(&prog, "writing %s", dir);
        rc = czk_bellperson_params_write(params_path, &pk, &err);
        if (rc == CZK_OK)
            rc = czk_bellperson_vk_write(vk_path, &pk.vk, &err);
    }
    if (rc == CZK_OK) {
        /* Self-check: what was written has the lengths the circuit's counts call for. */
        czk_cli_progress_stage(&prog, "checking the headers");
        czk_params_expect expect;
        czk_params_expect_from_stats(&expect, &st);
        rc = czk_params_header_check(params_path, &expect, &err);
        if (rc == CZK_OK)
            rc = czk_params_vk_check(vk_path, &expect, &err);
    }
    czk_cli_progress_end(&prog);
    prog_on = 0;
    if (rc != CZK_OK) {
        exit_code = czk_cli_fail("setup", rc, &err);
        goto out;
    }
    printf("%s\n%s\n", params_path, vk_path);
    fprintf(stderr,
            "czk setup: %s %s: %zu constraints, %zu variables, %zu public, domain 2^%u; keys "
            "in %.1f s, written and checked in %.1f s\n",
            fc.kind_name, fc.size_name, cs.n_constraints, cs.n_vars, cs.n_public,
            czk_groth16_domain_lg(&cs), (double)(t1 - t0) / 1e9,
            (double)(czk_time_ns() - t1) / 1e9);
    exit_code = CZK_EXIT_OK;
out:
    if (prog_on)
        czk_cli_progress_end(&prog);
    czk_memclear_explicit(&rng, sizeof(rng));
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_pool_destroy(pool);
    return exit_code;
}

int czk_cli_setup(int argc, char **argv) {
    czk_cli_common c = {0};
    int done = czk_cli_start(&c, "setup", USAGE, &argc, argv);
    if (done >= 0)
        return done;
    int zkey = 0, filecoin = 0, npos = 0;
    const char *pos[3], *out_dir = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--zkey") == 0) {
            zkey = 1;
        } else if (strcmp(argv[i], "--filecoin") == 0) {
            filecoin = 1;
        } else if (strcmp(argv[i], "--out") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "czk setup: --out needs a directory\n");
                return CZK_EXIT_ERROR;
            }
            out_dir = argv[++i];
        } else if ((argv[i][0] == '-' && argv[i][1] != '\0') || npos == 3) {
            fprintf(stderr, "czk setup: bad argument '%s'\n%s", argv[i], USAGE);
            return CZK_EXIT_ERROR;
        } else {
            pos[npos++] = argv[i];
        }
    }
    if (filecoin) {
        if (zkey || npos != 2 || out_dir == NULL) {
            fprintf(stderr, "czk setup: --filecoin takes KIND SIZE --out DIR (no --zkey)\n%s",
                    USAGE);
            return CZK_EXIT_ERROR;
        }
        return setup_filecoin(&c, pos[0], pos[1], out_dir);
    }
    if (npos != 3 || out_dir != NULL) {
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
    if (czk_cli_rng(&rng, &c, "setup") != 0)
        goto out;
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
