/*
 * czk prove: one Groth16 proof from a snarkjs .zkey and a .wtns (rapidsnark's shape), or from
 * bellperson .params with an R1CS and a .wtns. The proof is made by an in-process engine, the
 * same path the daemon takes: the engine picks the device, blinds, checks the witness against
 * the circuit and verifies the proof before it is handed back, so czk never writes a proof
 * that does not verify.
 */
#include "cli/cli.h"

#include "czk.h"
#include "formats/bellperson.h"
#include "formats/snarkjs_json.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/file.h"
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
    "The witness is checked against the circuit and the proof verified before it is written.\n"
    "\n"
    "options:\n"
    "  --threads N            worker threads (default: all CPUs)\n"
    "  --backend auto|cpu|cuda  where to compute (default auto: a GPU when there is one)\n"
    "  --devices 0,1          the CUDA devices to use (default: all)\n"
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

static void print_timings(const czk_job_result *res, uint64_t load_ms) {
    const czk_step_times *t = &res->steps;
    fprintf(stderr,
            "czk prove: load %llu ms, spmv %.1f ms, h (NTTs) %.1f ms, msm A %.1f ms, "
            "msm B_G1 %.1f ms, msm B_G2 %.1f ms, msm L %.1f ms, msm H %.1f ms, prove %.1f ms, "
            "verify %.1f ms\n",
            (unsigned long long)load_ms, t->spmv_us / 1e3, t->h_us / 1e3, t->msm_a_us / 1e3,
            t->msm_b_g1_us / 1e3, t->msm_b_g2_us / 1e3, t->msm_l_us / 1e3, t->msm_h_us / 1e3,
            t->prove_us / 1e3, t->verify_us / 1e3);
}

/* Engine log lines worth a user's attention (a GPU that could not be used, say); a failed
 * job's line is left out: its error is printed once, below. */
static void log_line(void *arg, int level, const char *line) {
    czk_cli_progress *prog = arg;
    if (level <= CZK_LOG_WARN && strncmp(line, "job ", 4) != 0) {
        czk_cli_progress_lock(prog);
        fprintf(stderr, "czk prove: %s\n", line);
        czk_cli_progress_unlock(prog);
    }
}

int czk_cli_prove(int argc, char **argv) {
    czk_cli_common c = {0};
    int done = czk_cli_start(&c, "prove", USAGE, &argc, argv);
    if (done >= 0)
        return done;
    prove_args a = {0};
    static const char *const checks[] = {"full", "curve", NULL}; /* --check, by index */
    int check = 1;
    const char *pos[4];
    const czk_cli_opt table[] = {
        {.name = "--params", .kind = CZK_CLI_OPT_STRING, .dest = &a.params},
        {.name = "--r1cs", .kind = CZK_CLI_OPT_STRING, .dest = &a.r1cs},
        {.name = "--wtns", .kind = CZK_CLI_OPT_STRING, .dest = &a.wtns},
        {.name = "--out", .kind = CZK_CLI_OPT_STRING, .dest = &a.proof},
        {.name = "--public", .kind = CZK_CLI_OPT_STRING, .dest = &a.pub},
        {.name = "--check", .kind = CZK_CLI_OPT_CHOICE, .dest = &check, .choices = checks},
        {.name = "--timings", .kind = CZK_CLI_OPT_FLAG, .dest = &a.timings},
    };
    const czk_cli_opts how = {"prove", USAGE, CZK_CLI_OPTS_UNKNOWN_OPTION_DASH};
    int npos = czk_cli_opts_parse(&how, table, CZK_CLI_OPTS_N(table), pos, 4, argc, argv);
    if (npos < 0)
        return CZK_EXIT_ERROR;
    a.check = check == 0 ? CZK_KEY_CHECK_FULL : CZK_KEY_CHECK_CURVE;
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
    czk_engine *e = NULL;
    uint8_t *img = NULL;
    size_t img_len = 0;
    czk_fr *pub = NULL;
    czk_job_result res;
    memset(&res, 0, sizeof res);
    czk_cli_progress prog;
    memset(&prog, 0, sizeof prog);

    czk_engine_config cfg;
    czk_cli_engine_config(&cfg, &c);
    cfg.log = log_line;
    cfg.log_arg = &prog;
    cfg.log_level = CZK_LOG_WARN;
    czk_generic_opts opts = {.key_check_set = 1, .key_check = a.check, .check_witness = 1};
    czk_cli_progress_start(&prog, "prove", 4);
    czk_cli_progress_stage(&prog, "reading %s", a.wtns);
    if ((rc = czk_file_read_all(&img, &img_len, a.wtns, &err)) != CZK_OK ||
        (rc = czk_engine_create(&e, &cfg, &err)) != CZK_OK ||
        (rc = czk_kinds_register_generic(e, "prove", bellperson ? a.params : a.zkey, a.r1cs, &opts,
                                         &err)) != CZK_OK) {
        czk_cli_progress_end(&prog);
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    uint64_t load_ms = 0;
    czk_cli_progress_stage(&prog, "loading and checking the key %s",
                           bellperson ? a.params : a.zkey);
    if ((rc = czk_engine_preload(e, "prove", NULL, &load_ms, &err)) != CZK_OK) {
        czk_cli_progress_end(&prog);
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    const uint8_t *wtns[1] = {img};
    size_t wtns_len[1] = {img_len};
    czk_job_request req = {.request_id = "prove",
                           .circuit_id = "prove",
                           .n_partitions = 1,
                           .wtns = wtns,
                           .wtns_len = wtns_len};
    char job_id[CZK_REQUEST_ID_MAX + 1];
    czk_cli_progress_stage(&prog, "checking the witness, proving, verifying the proof");
    if ((rc = czk_engine_submit(e, &req, job_id, NULL, NULL, &err)) != CZK_OK ||
        (rc = czk_engine_await(e, job_id, 0, &res, &err)) != CZK_OK) {
        czk_cli_progress_end(&prog);
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    if (res.status != CZK_JOB_COMPLETED) {
        /* The engine names the partition's fault: a witness that does not fit or satisfy the
         * circuit, or a proof that did not verify (a key that does not match the circuit). */
        czk_cli_progress_end(&prog);
        fprintf(stderr, "czk prove: %s: %s; nothing written\n", a.wtns, res.error);
        goto out;
    }
    czk_groth16_proof proof;
    size_t n_pub = res.public_len / CZK_FR_BYTES;
    pub = n_pub > 0 ? czk_malloc(n_pub * sizeof(czk_fr)) : NULL;
    if (n_pub > 0 && pub == NULL) {
        czk_cli_progress_end(&prog);
        exit_code = czk_cli_fail("prove", CZK_ENOMEM, NULL);
        goto out;
    }
    for (size_t i = 0; i < n_pub; i++) {
        if ((rc = czk_fr_from_bytes_le(&pub[i], res.public_inputs + i * CZK_FR_BYTES)) != CZK_OK) {
            czk_cli_progress_end(&prog);
            exit_code = czk_cli_fail("prove", rc, NULL);
            goto out;
        }
    }
    if ((rc = czk_bellperson_proof_decode(&proof, res.proof, &err)) != CZK_OK) {
        czk_cli_progress_end(&prog);
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    czk_cli_progress_stage(&prog, "writing %s and %s", a.proof, a.pub);
    if (bellperson)
        rc = czk_bellperson_proofs_write(a.proof, &proof, 1, &err);
    else
        rc = czk_snarkjs_proof_write(a.proof, &proof, &err);
    if (rc == CZK_OK && (rc = czk_snarkjs_public_write(a.pub, pub, n_pub, &err)) != CZK_OK)
        (void)remove(a.proof); /* a proof without its public inputs is only half a result */
    if (rc != CZK_OK) {
        czk_cli_progress_end(&prog);
        exit_code = czk_cli_fail("prove", rc, &err);
        goto out;
    }
    czk_cli_progress_end(&prog);
    if (a.timings)
        print_timings(&res, load_ms);
    exit_code = CZK_EXIT_OK;
out:
    czk_cli_progress_end(&prog);
    czk_engine_destroy(e);
    czk_job_result_clear(&res);
    czk_free(pub);
    if (img != NULL) {
        czk_memclear_explicit(img, img_len);
        czk_free(img);
    }
    return exit_code;
}
