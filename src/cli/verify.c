/*
 * czk verify: snarkjs's shape (verification_key.json, public.json, proof.json) or bellperson's
 * (--vk F --proof proof.bin --public public.json). Exit 0 when the proof is valid, 1 when it
 * is not, 2 when the files cannot be read.
 */
#include "cli/cli.h"

#include "formats/bellperson.h"
#include "formats/snarkjs_json.h"
#include "groth16/verify.h"
#include "util/alloc.h"

#include <stdio.h>
#include <string.h>

static const char *USAGE =
    "usage: czk verify <verification_key.json> <public.json> <proof.json>\n"
    "       czk verify --vk F --proof proof.bin [--partition I] --public public.json\n"
    "\n"
    "Verifies a Groth16 proof on BLS12-381: snarkjs's JSON files, or a bellperson .vk with\n"
    "a 192-byte proof (A||B||C compressed) and public inputs as snarkjs writes them\n"
    "(decimal strings). A file of several partitions' proofs (a daemon's result) is\n"
    "verified one partition at a time: --partition I picks proof I (from 0) for public.json.\n"
    "A daemon's result written with `czk submit --out DIR` has one proof_I.json and\n"
    "public_I.json per partition, for the first form. Exit 0: valid; 1: invalid; 2: error.\n";

/* A proof whose points are off the curve or out of the group is an invalid proof (exit 1),
 * as snarkjs reports it, not an unreadable file. */
/* The INVALID line for a proof that cannot even be decoded: the fault. */
static void print_invalid(int rc, const czk_err *err) {
    printf("INVALID: %s\n", czk_err_text(err, rc));
}

static int bad_point(int rc) {
    return rc == CZK_EFLAGS || rc == CZK_ERANGE || rc == CZK_ENOTONCURVE || rc == CZK_ENOTINGROUP ||
           rc == CZK_ENOSQRT || rc == CZK_EBADENC;
}

int czk_cli_verify(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    const char *vk_path = NULL, *proof_path = NULL, *pub_path = NULL, *part_arg = NULL, *pos[3];
    const czk_cli_opt opts[] = {
        {.name = "--vk", .kind = CZK_CLI_OPT_STRING, .dest = &vk_path},
        {.name = "--proof", .kind = CZK_CLI_OPT_STRING, .dest = &proof_path},
        {.name = "--public", .kind = CZK_CLI_OPT_STRING, .dest = &pub_path},
        {.name = "--partition", .kind = CZK_CLI_OPT_STRING, .dest = &part_arg},
    };
    const czk_cli_opts how = {"verify", USAGE, CZK_CLI_OPTS_BAD_ARGUMENT};
    int npos = czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), pos, 3, argc, argv);
    if (npos < 0)
        return CZK_EXIT_ERROR;
    int bellperson = vk_path != NULL;
    long part = -1;
    if (part_arg != NULL &&
        czk_cli_parse_long("verify", "--partition", part_arg, 0, 1 << 20, &part) != 0)
        return CZK_EXIT_ERROR;
    if (bellperson ? (npos != 0 || !proof_path || !pub_path)
                   : (npos != 3 || proof_path || pub_path || part_arg)) {
        fprintf(stderr, "czk verify: wrong arguments\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    if (!bellperson) {
        vk_path = pos[0];
        pub_path = pos[1];
        proof_path = pos[2];
    }

    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_groth16_vk vk = {0};
    czk_groth16_pvk pvk = {0};
    czk_groth16_proof proof, *proofs = NULL;
    czk_fr *inputs = NULL;
    size_t n_inputs = 0, n_proofs = 0;
    if (bellperson) {
        rc = czk_bellperson_vk_read(&vk, vk_path, &err);
        if (rc == CZK_OK &&
            (rc = czk_bellperson_proofs_read(&proofs, &n_proofs, proof_path, &err)) != CZK_OK &&
            bad_point(rc)) {
            print_invalid(rc, &err);
            exit_code = CZK_EXIT_INVALID;
            goto out;
        }
        if (rc == CZK_OK && part < 0 && n_proofs != 1) {
            fprintf(stderr,
                    "czk verify: %s holds %zu partitions' proofs; pick one with --partition I "
                    "(0..%zu) and give that partition's public.json\n",
                    proof_path, n_proofs, n_proofs - 1);
            goto out;
        }
        if (rc == CZK_OK && part >= 0 && (size_t)part >= n_proofs) {
            fprintf(stderr, "czk verify: %s holds %zu proofs: no partition %ld\n", proof_path,
                    n_proofs, part);
            goto out;
        }
        if (rc == CZK_OK)
            proof = proofs[part < 0 ? 0 : part];
    } else {
        rc = czk_snarkjs_vk_read(&vk, vk_path, &err);
        if (rc == CZK_OK && (rc = czk_snarkjs_proof_read(&proof, proof_path, &err)) != CZK_OK &&
            bad_point(rc)) {
            print_invalid(rc, &err);
            exit_code = CZK_EXIT_INVALID;
            goto out;
        }
    }
    if (rc == CZK_OK)
        rc = czk_snarkjs_public_read(&inputs, &n_inputs, pub_path, &err);
    if (rc == CZK_OK)
        rc = czk_groth16_pvk_prepare(&pvk, &vk, &err);
    if (rc != CZK_OK) {
        exit_code = czk_cli_fail("verify", rc, &err);
        goto out;
    }
    if (n_inputs + 1 != vk.n_ic) {
        fprintf(stderr, "czk verify: %s has %zu public inputs, the key expects %zu\n", pub_path,
                n_inputs, vk.n_ic - 1);
        goto out;
    }
    rc = czk_groth16_verify(&pvk, &proof, inputs, n_inputs, &err);
    if (rc == CZK_OK) {
        printf("OK: the proof is valid\n");
        exit_code = CZK_EXIT_OK;
    } else if (rc == CZK_EVERIFY) {
        printf("INVALID: the proof does not verify\n");
        exit_code = CZK_EXIT_INVALID;
    } else {
        exit_code = czk_cli_fail("verify", rc, &err);
    }
out:
    czk_free(inputs);
    czk_free(proofs);
    czk_groth16_pvk_clear(&pvk);
    czk_groth16_vk_clear(&vk);
    return exit_code;
}
