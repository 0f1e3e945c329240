/*
 * czk prove: one Groth16 proof from a snarkjs .zkey and a .wtns (rapidsnark's shape), or from
 * bellperson .params with an R1CS and a .wtns. Every proof is verified before it is written:
 * czk never writes a proof that does not verify.
 */
#include "cli/cli.h"

#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "groth16/prove.h"
#include "groth16/verify.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/timer.h"

#include <stdio.h>
#include <string.h>

static const char *USAGE =
    "usage: czk prove [options] <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n"
    "       czk prove [options] --params F --r1cs F --wtns F --out proof.bin --public F\n"
    "\n"
    "Proves with a snarkjs Groth16 .zkey (BLS12-381) and writes snarkjs proof.json and\n"
    "public.json; or with bellperson .params, the circuit's R1CS (circom .r1cs or czk R1CS)\n"
    "and a .wtns, writing the 192-byte proof (A||B||C compressed) and public.json.\n"
    "The proof is verified before it is written.\n"
    "\n"
    "options:\n"
    "  --threads N            worker threads (default: all CPUs)\n"
    "  --backend auto|cpu     where to compute (default auto)\n"
    "  --seed S               derive r and s from S instead of the OS (tests only: a\n"
    "                         seeded proof is not zero-knowledge against who knows S)\n"
    "  --check full|curve     proving-key point checks: on-curve + subgroup, or on-curve\n"
    "                         only (default curve, as bellperson: the proof is verified\n"
    "                         before it is written, so a bad key cannot pass a bad proof)\n"
    "  --timings              print the time of each step to stderr\n";

typedef struct {
    const char *zkey, *wtns, *proof, *pub, *params, *r1cs;
    int timings;
    czk_key_check check;
} prove_args;

static void print_timings(const czk_groth16_timings *t, uint64_t load_ns, uint64_t verify_ns) {
    fprintf(stderr,
            "czk prove: load %.1f ms, spmv %.1f ms, h (NTTs) %.1f ms, msm A %.1f ms, "
            "msm B_G1 %.1f ms, msm B_G2 %.1f ms, msm L %.1f ms, msm H %.1f ms, prove %.1f ms, "
            "verify %.1f ms\n",
            czk_cli_ms(load_ns), czk_cli_ms(t->spmv_ns), czk_cli_ms(t->h_ns),
            czk_cli_ms(t->msm_a_ns), czk_cli_ms(t->msm_b_g1_ns), czk_cli_ms(t->msm_b_g2_ns),
            czk_cli_ms(t->msm_l_ns), czk_cli_ms(t->msm_h_ns), czk_cli_ms(t->total_ns),
            czk_cli_ms(verify_ns));
}

int czk_cli_prove(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    czk_cli_common c = {0};
    prove_args a = {0};
    a.check = CZK_KEY_CHECK_CURVE;
    const char *pos[4];
    int npos = 0;
    for (int i = 0; i < argc; i++) {
        int k = czk_cli_common_option(&c, "prove", argc, argv, &i);
        if (k < 0)
            return CZK_EXIT_ERROR;
        if (k > 0)
            continue;
        const char **slot = NULL;
        if (strcmp(argv[i], "--params") == 0)
            slot = &a.params;
        else if (strcmp(argv[i], "--r1cs") == 0)
            slot = &a.r1cs;
        else if (strcmp(argv[i], "--wtns") == 0)
            slot = &a.wtns;
        else if (strcmp(argv[i], "--out") == 0)
            slot = &a.proof;
        else if (strcmp(argv[i], "--public") == 0)
            slot = &a.pub;
        if (slot != NULL) {
            if (i + 1 >= argc) {
                fprintf(stderr, "czk prove: %s needs a value\n%s", argv[i], USAGE);
                return CZK_EXIT_ERROR;
            }
            *slot = argv[++i];
        } else if (strcmp(argv[i], "--check") == 0 && i + 1 < argc) {
            const char *v = argv[++i];
            if (strcmp(v, "full") == 0) {
                a.check = CZK_KEY_CHECK_FULL;
            } else if (strcmp(v, "curve") == 0) {
                a.check = CZK_KEY_CHECK_CURVE;
            } else {
                fprintf(stderr, "czk prove: --check takes full or curve, not '%s'\n", v);
                return CZK_EXIT_ERROR;
            }
        } else if (strcmp(argv[i], "--timings") == 0) {
            a.timings = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "czk prove: unknown option '%s'\n%s", argv[i], USAGE);
            return CZK_EXIT_ERROR;
        } else if (npos < 4) {
            pos[npos++] = argv[i];
        } else {
            fprintf(stderr, "czk prove: too many arguments\n%s", USAGE);
            return CZK_EXIT_ERROR;
        }
    }
    int bellperson = a.params != NULL;
    if (bellperson ? (npos != 0 || !a.r1cs || !a.wtns || !a.proof || !a.pub)
                   : (npos != 4 || a.r1cs || a.wtns || a.proof || a.pub)) {
        fprintf(stderr, "czk prove: wrong arguments\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    if (!bellperson) {
        a.zkey = pos[0];
        a.wtns = pos[1];
        a.proof = pos[2];
        a.pub = pos[3];
    }

    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_groth16_pk pk = {0};
    czk_groth16_pvk pvk = {0};
    czk_r1cs cs = {0};
    czk_fr *w = NULL, r, s;
    size_t n_w = 0;
    czk_groth16_proof proof;
    czk_groth16_timings t = {0};
    const czk_backend *be = czk_cli_backend(&c, "prove");
    czk_pool *pool = czk_cli_pool(&c, "prove");
    if (be == NULL || pool == NULL)
        goto out;

    uint64_t t0 = czk_time_ns();
    if (bellperson) {
        rc = czk_bellperson_params_read(&pk, a.params, a.check, pool, &err);
        if (rc == CZK_OK)
            rc = czk_formats_r1cs_read(&cs, a.r1cs, pool, &err);
    } else {
        rc = czk_zkey_read_ex(&pk, &cs, a.zkey, a.check, pool, &err);
    }
    if (rc == CZK_OK)
        rc = czk_circom_wtns_read(&w, &n_w, a.wtns, &err);
    if (rc != CZK_OK) {
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    if (n_w != cs.n_vars) {
        fprintf(stderr, "czk prove: %s has %zu values but the circuit has %zu variables\n", a.wtns,
                n_w, cs.n_vars);
        goto out;
    }
    /* With C known, name the failing constraint instead of producing a proof that will not
     * verify; a .zkey carries no C and this check passes trivially. */
    size_t bad = 0;
    rc = czk_r1cs_check(&cs, w, &bad, pool, &err);
    if (rc != CZK_OK) {
        if (rc == CZK_EVERIFY)
            fprintf(stderr, "czk prove: %s does not satisfy the circuit: constraint %zu fails\n",
                    a.wtns, bad);
        else
            czk_cli_fail("prove", rc, &err);
        goto out;
    }
    uint64_t load_ns = czk_time_ns() - t0;

    if ((rc = czk_cli_blinding(&r, &s, &c, &err)) != CZK_OK ||
        (rc = czk_groth16_prove(&proof, &pk, &cs, w, &r, &s, be, pool, &t, &err)) != CZK_OK) {
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    uint64_t t1 = czk_time_ns();
    if ((rc = czk_groth16_pvk_prepare(&pvk, &pk.vk, &err)) != CZK_OK) {
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    rc = czk_groth16_verify(&pvk, &proof, w + 1, cs.n_public, &err);
    uint64_t verify_ns = czk_time_ns() - t1;
    if (rc != CZK_OK) {
        /* A satisfied witness always gives a valid proof, so this is a key that does not
         * match the circuit or a bug; never write such a proof. */
        fprintf(stderr,
                "czk prove: the proof does not verify against the key's own verifying key "
                "(%s); is the witness for this circuit? nothing written\n",
                err.msg[0] ? err.msg : czk_strerror(rc));
        goto out;
    }
    if (bellperson) {
        rc = czk_bellperson_proofs_write(a.proof, &proof, 1, &err);
    } else {
        rc = czk_snarkjs_proof_write(a.proof, &proof, &err);
    }
    if (rc == CZK_OK)
        rc = czk_snarkjs_public_write(a.pub, w + 1, cs.n_public, &err);
    if (rc != CZK_OK) {
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    if (a.timings)
        print_timings(&t, load_ns, verify_ns);
    exit_code = CZK_EXIT_OK;
out:
    czk_memclear_explicit(&r, sizeof(r));
    czk_memclear_explicit(&s, sizeof(s));
    if (w != NULL) {
        czk_memclear_explicit(w, n_w * sizeof(*w));
        czk_free(w);
    }
    czk_groth16_pvk_clear(&pvk);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_pool_destroy(pool);
    return exit_code;
}
