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
#include "gpu/device.h"
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
    "With --filecoin, the circuit is Filecoin's KIND (winning-post, window-post, porep, snap)\n"
    "at SIZE (2KiB, 8MiB, 512MiB, 32GiB, 64GiB), synthesized by czk, and the keys are written\n"
    "into DIR (created if missing) under Filecoin's v28 .params/.vk names (see `czk circuit "
    "info`).\n"
    "The key's points are multiplied on the GPU when there is one (--backend auto, the default,\n"
    "or cuda), else on the CPU; the 32/64 GiB WindowPoSt keys (57 GiB and more) need a host\n"
    "with some 90 GiB of memory, and take hours on the CPU alone. PoRep keys are for one\n"
    "partition (every partition shares them); the 2 KiB ones are 1.04 GiB. snap is the\n"
    "SnapDeals update circuit (one partition; the 2 KiB keys are some 0.6 GiB).\n"
    "\n"
    "options:\n"
    "  --threads N    worker threads (default: all CPUs)\n"
    "  --backend B    auto, cpu or cuda: where --filecoin's key points are multiplied\n"
    "  --seed S       toxic waste from S instead of the OS (reproducible; tests only)\n";

/* The device whose backend multiplies the key's points: CUDA device 0 for --backend cuda,
 * and for auto when one is there; else NULL (the CPU's tables). *d is closed by the caller.
 * Returns 0, or -1 after printing why (cuda asked for and not available). */
static int setup_device(const czk_cli_common *c, czk_device **d, const czk_backend **be) {
    *d = NULL;
    *be = NULL;
    const char *want = c->backend != NULL ? c->backend : "auto";
    if (strcmp(want, "cpu") == 0 || (strcmp(want, "auto") == 0 && czk_gpu_device_count() == 0))
        return 0;
    czk_err err = {0};
    int rc = czk_device_cuda_open(d, 0, NULL, &err);
    if (rc != CZK_OK && strcmp(want, "auto") == 0) {
        fprintf(stderr, "czk setup: the GPU did not open (%s); the CPU multiplies\n",
                czk_err_text(&err, rc));
        return 0;
    }
    if (rc != CZK_OK) {
        czk_cli_fail("setup", rc, &err);
        return -1;
    }
    if ((*d)->ops->backend != NULL)
        *be = (*d)->ops->backend(*d);
    return 0;
}

/* The generator of the toxic waste, and the warning that goes with keys made from it.
 * Returns 0, or -1 after printing why. */
static int setup_rng(const czk_cli_common *c, czk_rng *rng) {
    if (czk_cli_rng(rng, c, "setup") != 0)
        return -1;
    fprintf(stderr, "czk setup: DEVELOPMENT keys from random toxic waste, not a ceremony\n");
    return 0;
}

/* Host bytes the setup of (rep, its dims) holds at its peak: the key's points (G1 96 bytes,
 * G2 192, every variable at most once in A, B and L, H over the domain) and the setup's own
 * arrays (setup.h): for a refusal that names the figure before hours are lost to swapping. */
static uint64_t setup_host_bytes(const czk_r1cs *dims) {
    uint64_t n = (uint64_t)1 << czk_groth16_domain_lg(dims), v = dims->n_vars;
    return v * (3 * 96 + 192) + n * 96 + v * (96 + 64) + n * 32;
}

/* czk setup --filecoin KIND SIZE --out DIR: record, set up, write under the v28 names, check. */
static int setup_filecoin(const czk_cli_common *c, const char *kind, const char *size,
                          const char *dir) {
    czk_cli_filecoin fc;
    if (czk_cli_filecoin_parse(&fc, "setup", kind, size) != 0)
        return CZK_EXIT_ERROR;
    int is_snap = fc.snap;
    char params_path[4096], vk_path[4096];
    if ((size_t)snprintf(params_path, sizeof(params_path), "%s/%s", dir, fc.params_name) >=
            sizeof(params_path) ||
        (size_t)snprintf(vk_path, sizeof(vk_path), "%s/%s", dir, fc.vk_name) >= sizeof(vk_path)) {
        fprintf(stderr, "czk setup: output directory name too long: %s\n", dir);
        return CZK_EXIT_ERROR;
    }
    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_r1cs_rep rep = {0};
    czk_r1cs dims = {0};
    czk_cs_stats st;
    czk_groth16_pk pk = {0};
    czk_rng rng;
    czk_cli_progress prog;
    czk_device *dev = NULL;
    const czk_backend *be = NULL;
    int prog_on = 0, dir_failed = 0;
    czk_pool *pool = czk_cli_pool(c, "setup");
    if (pool == NULL)
        goto out;
    if (setup_device(c, &dev, &be) != 0)
        goto out;
    if (setup_rng(c, &rng) != 0)
        goto out;
    uint64_t t0 = czk_time_ns();
    czk_cli_progress_start(&prog, "setup", 4);
    prog_on = 1;
    czk_cli_progress_stage(&prog, "recording %s %s", fc.kind_name, fc.size_name);
    /* PoSt: one slot recorded, the rest its copies (circuit.h): a 32 GiB WindowPoSt
     * partition's 125 M rows are never stored. The counts serve the header check below. */
    if (is_snap) {
        /* One partition recorded whole, as PoRep's (81 M rows at 32 GiB). */
        rc = czk_circuit_snap_record(&rep.block, &st, &fc.snap_shape, pool, &err);
        rep.copies = 1;
    } else if (fc.porep) {
        /* A PoRep partition in its repeated form (circuit.h): the global part and one
         * challenge, 1.5 GB of rows at 32 GiB where the whole recording takes 26 GB; key
         * generation walks the 18 copies. Counted first, so that a host too small for setup
         * is refused before anything is recorded. */
        rc = czk_circuit_porep_count(&st, NULL, &fc.porep_shape, &err);
        if (rc == CZK_OK) {
            czk_r1cs hdr = {0};
            hdr.n_constraints = st.n_rows;
            hdr.n_public = st.n_inputs - 1;
            hdr.n_vars = st.n_inputs + st.n_aux;
            uint64_t nnz = st.nnz_a + st.nnz_b + st.nnz_c;
            uint64_t rows = nnz * 36 + st.n_rows * 24;
            /* Three challenges are recorded (czk_cs_record_parts_rep checks the block against
             * two others), one kept beside the keys. */
            uint64_t need = setup_host_bytes(&hdr) +
                            3 * (rows /
                                 (fc.porep_shape.challenges > 0 ? fc.porep_shape.challenges : 1)),
                     have = czk_cli_host_memory();
            if (have > 0 && need > have)
                rc = czk_err_set(&err, CZK_ENOMEM,
                                 "the %s %s keys need about %.1f GiB of memory while they are "
                                 "made; this host has %.1f GiB (nothing written)",
                                 fc.kind_name, fc.size_name, (double)need / (1u << 30),
                                 (double)have / (1u << 30));
        }
        if (rc == CZK_OK)
            rc = czk_circuit_porep_record_rep(&rep, &st, &fc.porep_shape, pool, &err);
    } else {
        rc = czk_circuit_post_record_rep(&rep, &st, &fc.shape, &err);
    }
    if (rc == CZK_OK && (rc = czk_r1cs_rep_dims(&rep, &dims, &err)) == CZK_OK) {
        uint64_t need = setup_host_bytes(&dims), have = czk_cli_host_memory();
        if (have > 0 && need > have) {
            rc = czk_err_set(&err, CZK_ENOMEM,
                             "the %s %s keys need about %.1f GiB of memory while they are made; "
                             "this host has %.1f GiB (nothing written)",
                             fc.kind_name, fc.size_name, (double)need / (1u << 30),
                             (double)have / (1u << 30));
        } else if (czk_cli_make_dir("setup", dir) != 0) {
            rc = CZK_EIO; /* czk_cli_make_dir said why */
            dir_failed = 1;
        } else {
            czk_cli_progress_stage(&prog, "computing the keys (%zu constraints, domain 2^%u, %s)",
                                   dims.n_constraints, czk_groth16_domain_lg(&dims),
                                   be != NULL ? be->name : "cpu");
            rc = czk_groth16_setup_dev_rep(&pk, &rep, CZK_H_MONOMIAL, &rng, be, pool, &err);
        }
    }
    uint64_t t1 = czk_time_ns();
    if (rc == CZK_OK) {
        czk_cli_progress_stage(&prog, "writing %s", dir);
        rc = czk_bellperson_params_write(params_path, &pk, pool, &err);
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
        exit_code = dir_failed ? CZK_EXIT_ERROR : czk_cli_fail("setup", rc, &err);
        goto out;
    }
    printf("%s\n%s\n", params_path, vk_path);
    fprintf(stderr,
            "czk setup: %s %s: %zu constraints, %zu variables, %zu public, domain 2^%u; keys "
            "in %.1f s, written and checked in %.1f s\n",
            fc.kind_name, fc.size_name, dims.n_constraints, dims.n_vars, dims.n_public,
            czk_groth16_domain_lg(&dims), (double)(t1 - t0) / 1e9,
            (double)(czk_time_ns() - t1) / 1e9);
    exit_code = CZK_EXIT_OK;
out:
    if (prog_on)
        czk_cli_progress_end(&prog);
    czk_memclear_explicit(&rng, sizeof(rng));
    czk_groth16_pk_clear(&pk);
    czk_r1cs_rep_clear(&rep);
    if (dev != NULL)
        dev->ops->close(dev);
    czk_pool_destroy(pool);
    return exit_code;
}

/* czk setup [--zkey] R1CS KEY VK: read the circuit, set up, write bellperson's or snarkjs's
 * files. */
static int setup_r1cs(const czk_cli_common *c, int zkey, const char *r1cs_path,
                      const char *key_path, const char *vk_path) {
    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_r1cs cs = {0};
    czk_groth16_pk pk = {0};
    czk_rng rng;
    czk_cli_progress prog;
    czk_pool *pool = czk_cli_pool(c, "setup");
    if (pool == NULL)
        goto out;
    if (setup_rng(c, &rng) != 0)
        goto out;
    uint64_t t0 = czk_time_ns();
    czk_cli_progress_start(&prog, "setup", 3);
    czk_cli_progress_stage(&prog, "reading %s", r1cs_path);
    if ((rc = czk_formats_r1cs_read(&cs, r1cs_path, pool, &err)) == CZK_OK) {
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
    czk_cli_progress_stage(&prog, "writing %s and %s", key_path, vk_path);
    if (zkey) {
        rc = czk_zkey_write(key_path, &pk, &cs, &err);
        if (rc == CZK_OK)
            rc = czk_snarkjs_vk_write(vk_path, &pk.vk, &err);
    } else {
        rc = czk_bellperson_params_write(key_path, &pk, pool, &err);
        if (rc == CZK_OK)
            rc = czk_bellperson_vk_write(vk_path, &pk.vk, &err);
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

int czk_cli_setup(int argc, char **argv) {
    czk_cli_common c = {0};
    int done = czk_cli_start(&c, "setup", USAGE, &argc, argv);
    if (done >= 0)
        return done;
    int zkey = 0, filecoin = 0;
    const char *pos[3], *out_dir = NULL;
    const czk_cli_opt opts[] = {
        {.name = "--zkey", .kind = CZK_CLI_OPT_FLAG, .dest = &zkey},
        {.name = "--filecoin", .kind = CZK_CLI_OPT_FLAG, .dest = &filecoin},
        {.name = "--out", .kind = CZK_CLI_OPT_STRING, .dest = &out_dir, .what = "a directory"},
    };
    const czk_cli_opts how = {"setup", USAGE, CZK_CLI_OPTS_BAD_ARGUMENT};
    int npos = czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), pos, 3, argc, argv);
    if (npos < 0)
        return CZK_EXIT_ERROR;
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
    return setup_r1cs(&c, zkey, pos[0], pos[1], pos[2]);
}
