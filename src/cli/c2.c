/*
 * czk c2: Filecoin PoRep C2 without a daemon, shaped like lotus-bench's C2 step: a C1 output
 * in, the proof out (every partition's 192 bytes, concatenated, verified before they are
 * written). `gen` makes C1 outputs to try it with: a sealed sector of 2 KiB or 8 MiB (the SDR
 * sealer of filecoin/testgen/seal.h; interactive, or with --synthetic synthetic PoRep), or a
 * virtual interactive one of any size; `verify` checks a proof against the public data a C1 output
 * carries. doc/FILECOIN.md §15 shows a session.
 */
#include "cli/cli.h"

#include "filecoin/io/c1.h"
#include "filecoin/io/params.h"
#include "filecoin/porep/porep_inputs.h"
#include "filecoin/testgen/seal.h"
#include "formats/bellperson.h"
#include "groth16/verify.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/memclear.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE =
    "usage: czk c2 --c1 FILE --out PROOF [--miner-id M --sector-id S] [--params DIR]\n"
    "              [--backend auto|cpu|cuda] [--devices 0,1] [--threads N] [--verbose]\n"
    "       czk c2 verify --c1 FILE PROOF [--miner-id M --sector-id S] [--params DIR]\n"
    "       czk c2 gen SIZE --out FILE [--virtual | --synthetic] [--wrap] [--miner-id M]\n"
    "                  [--sector-id S] [--registered-proof N] [--seed S]\n"
    "\n"
    "Filecoin PoRep C2. FILE is filecoin-ffi's C1 output (SealCommitPhase1Output JSON) or\n"
    "Curio's wrapper of it ({\"SectorNum\", \"Phase1Out\": base64, \"SectorSize\"}).\n"
    "\n"
    "  (prove) checks the C1 output (its paths, labels and challenges, and with --miner-id\n"
    "          and --sector-id its replica id), proves every partition and writes the\n"
    "          partitions' 192-byte proofs, concatenated, once they verify.\n"
    "  verify  exit 0 when PROOF is valid for the C1 output's public data (replica id,\n"
    "          comm_d, comm_r, seed), 1 when not.\n"
    "  gen     writes a C1 output: a sealed sector (2KiB or 8MiB; random data) or with\n"
    "          --virtual a committed-capacity sector of any size whose challenged paths\n"
    "          are consistent (sparse trees); --wrap writes Curio's wrapper. The registered\n"
    "          proof is StackedDrg<SIZE>V1_1 unless given (0-14), or with --synthetic\n"
    "          StackedDrg<SIZE>V1_1_Feat_SyntheticPoRep: the challenges the seed selects\n"
    "          from the synthetic set that comm_r draws. A synthetic sector is always\n"
    "          sealed (its challenges depend on every label through comm_r, so it cannot\n"
    "          be virtual). Defaults: miner 1000, sector 1.\n"
    "\n"
    "The partitions are proved on every CUDA device (--devices: those listed), each with its\n"
    "own copy of the key, else on the CPU; --verbose prints the engine's line per partition\n"
    "and what each device proved.\n"
    "\n"
    "Keys are the v28 files in --params DIR, else $FIL_PROOFS_PARAMETER_CACHE, else\n"
    "/var/tmp/filecoin-proof-parameters (`czk setup --filecoin porep SIZE` makes development\n"
    "keys).\n";

typedef struct c2_args {
    const char *pos[4];
    int npos;
    const char *c1, *out, *params;
    int virt, synthetic, wrap, have_miner, have_sector, verbose;
    unsigned long long miner_id, sector_id;
    long reg;
} c2_args;

static int parse(c2_args *a, const char *cmd, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->reg = -1;
    a->miner_id = 1000;
    a->sector_id = 1;
    const czk_cli_opt opts[] = {
        {.name = "--virtual", .kind = CZK_CLI_OPT_FLAG, .dest = &a->virt},
        {.name = "--wrap", .kind = CZK_CLI_OPT_FLAG, .dest = &a->wrap},
        {.name = "--synthetic", .kind = CZK_CLI_OPT_FLAG, .dest = &a->synthetic},
        {.name = "--verbose", .kind = CZK_CLI_OPT_FLAG, .dest = &a->verbose},
        {.name = "--c1", .kind = CZK_CLI_OPT_STRING, .dest = &a->c1},
        {.name = "--out", .kind = CZK_CLI_OPT_STRING, .dest = &a->out},
        {.name = "--params", .kind = CZK_CLI_OPT_STRING, .dest = &a->params},
        {.name = "--miner-id",
         .kind = CZK_CLI_OPT_U64,
         .dest = &a->miner_id,
         .given = &a->have_miner},
        {.name = "--sector-id",
         .kind = CZK_CLI_OPT_U64,
         .dest = &a->sector_id,
         .given = &a->have_sector},
        {.name = "--registered-proof", .kind = CZK_CLI_OPT_LONG, .dest = &a->reg, .hi = 14},
    };
    const czk_cli_opts how = {cmd, USAGE, CZK_CLI_OPTS_UNKNOWN_OPTION};
    if ((a->npos = czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), a->pos,
                                      (int)CZK_CLI_OPTS_N(a->pos), argc, argv)) < 0)
        return -1;
    if (a->have_miner != a->have_sector && strcmp(cmd, "c2 gen") != 0) {
        fprintf(stderr, "czk %s: --miner-id and --sector-id go together\n", cmd);
        return -1;
    }
    return 0;
}

int czk_cli_c1_read(czk_c1 *c1, uint8_t **buf, size_t *len, const char *cmd, const char *path) {
    czk_err err = {0};
    int rc = czk_file_read_all(buf, len, path, &err);
    if (rc == CZK_OK)
        rc = czk_c1_parse(c1, *buf, *len, czk_file_msg_path(path), &err);
    return rc == CZK_OK ? 0 : czk_cli_fail(cmd, rc, &err);
}

/* ---- prove ---------------------------------------------------------------------------------- */

/* --verbose: the engine's lines (one per partition, devices, keys) on stderr. */
static void log_line(void *arg, int level, const char *line) {
    (void)arg, (void)level;
    fprintf(stderr, "czk c2: %s\n", line);
}

/* --verbose: what each device proved. */
static void print_devices(czk_engine *e) {
    czk_engine_status st;
    if (czk_engine_get_status(e, &st) != CZK_OK)
        return;
    for (size_t i = 0; i < st.n_devices; i++)
        fprintf(stderr, "czk c2: device %s: %llu partitions proved, %llu failed%s%s\n",
                st.devices[i].name, (unsigned long long)st.devices[i].partitions_proved,
                (unsigned long long)st.devices[i].partitions_failed,
                st.devices[i].failed ? "; out of service: " : "", st.devices[i].failure);
    czk_engine_status_clear(&st);
}

static int c2_prove(czk_cli_common *c, const c2_args *a) {
    const char *cmd = "c2";
    if (a->c1 == NULL || a->out == NULL || a->npos != 0) {
        fprintf(stderr, "czk c2: wants --c1 FILE --out PROOF\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    int exit_code = CZK_EXIT_ERROR, rc;
    uint8_t *buf = NULL, *payload = NULL;
    size_t len = 0;
    czk_c1 c1 = {0};
    czk_engine *e = NULL;
    czk_job_result res;
    memset(&res, 0, sizeof res);
    czk_err err = {0};
    if ((exit_code = czk_cli_c1_read(&c1, &buf, &len, cmd, a->c1)) != 0)
        goto out;
    exit_code = CZK_EXIT_ERROR;
    char circuit[64];
    if ((rc = czk_kinds_porep_circuit_id(circuit, sizeof circuit, c1.type->abi_id, &err)) !=
        CZK_OK) {
        exit_code = czk_cli_fail(cmd, rc, &err);
        goto out;
    }
    payload = czk_malloc(CZK_POREP_PAYLOAD_HEADER + len);
    if (payload == NULL) {
        exit_code = czk_cli_fail(cmd, CZK_ENOMEM, NULL);
        goto out;
    }
    size_t plen = czk_kinds_porep_payload_encode(payload, c1.type->abi_id,
                                                 a->have_miner ? CZK_POREP_PAYLOAD_IDS : 0,
                                                 a->miner_id, a->sector_id, buf, len);
    czk_engine_config cfg;
    czk_cli_engine_config(&cfg, c);
    /* A C2 is several partitions: synthesis threads as the engine sizes them (partition
     * witnesses are one thread each), two workers per device so that one's upload and
     * finishing overlap the other's kernels. The host budget bounds what is in flight. */
    cfg.synth_threads = 0;
    cfg.workers_per_device = 2;
    if (a->verbose) {
        cfg.log = log_line;
        cfg.log_level = CZK_LOG_INFO;
    }
    char what[128];
    snprintf(what, sizeof what, "%s proof (%u partition(s))", c1.type->name, c1.n_partitions);
    const czk_cli_inproc p = {cmd, a->c1, a->out, a->params, what, CZK_CLI_INPROC_POREP};
    if ((exit_code = czk_cli_inproc_prove(&e, &cfg, &p, c1.type->sector_size, circuit,
                                          c1.n_partitions, payload, plen, &res)) != 0)
        goto out;
    if (a->verbose) {
        fprintf(stderr,
                "czk c2: summed over partitions: synthesis %.2f s, proving %.2f s (kernel "
                "regions); job %.2f s\n",
                (double)res.synthesis_ms / 1e3, (double)res.gpu_compute_ms / 1e3,
                (double)res.total_ms / 1e3);
        print_devices(e);
    }
    exit_code = CZK_EXIT_OK;
out:
    czk_engine_destroy(e);
    czk_job_result_clear(&res);
    czk_c1_clear(&c1);
    czk_free(buf);
    czk_free(payload);
    return exit_code;
}

/* ---- verify --------------------------------------------------------------------------------- */

static int c2_verify(const c2_args *a) {
    const char *cmd = "c2 verify";
    if (a->c1 == NULL || a->npos != 1 || a->out != NULL) {
        fprintf(stderr, "czk c2 verify: wants --c1 FILE PROOF\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    uint8_t *buf = NULL;
    size_t len = 0;
    czk_c1 c1 = {0};
    int exit_code = czk_cli_c1_read(&c1, &buf, &len, cmd, a->c1);
    if (exit_code != 0)
        goto out;
    /* With the sector's ids the replica id is the chain's, made from them (filecoin-ffi's
     * verify_seal); without them, the one the C1 output carries. */
    czk_filecoin_public fp = {.kind = CZK_FILECOIN_POREP,
                              .registered_proof = c1.type->abi_id,
                              .miner_id = a->miner_id,
                              .sector_number = a->sector_id,
                              .replica_id = a->have_miner ? NULL : c1.replica_id};
    memcpy(fp.comm_r, c1.comm_r, 32);
    memcpy(fp.comm_d, c1.comm_d, 32);
    memcpy(fp.ticket, c1.ticket, 32);
    memcpy(fp.seed, c1.seed, 32);
    exit_code = czk_cli_verify_filecoin(cmd, &fp, a->params, a->pos[0]);
out:
    czk_c1_clear(&c1);
    czk_free(buf);
    return exit_code;
}

/* ---- gen ------------------------------------------------------------------------------------ */

static int c2_gen(const czk_cli_common *c, const c2_args *a) {
    const char *cmd = "c2 gen";
    if (a->npos != 1 || a->out == NULL || a->c1 != NULL) {
        fprintf(stderr, "czk c2 gen: wants SIZE --out FILE\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    int si = czk_vanilla_size_index_by_name(a->pos[0]);
    if (si < 0) {
        fprintf(stderr, "czk c2 gen: unknown sector size '%s' (2KiB, 8MiB, 512MiB, 32GiB, 64GiB)\n",
                a->pos[0]);
        return CZK_EXIT_ERROR;
    }
    czk_err err = {0};
    const czk_porep_type *ty = a->reg >= 0 ? czk_porep_type_from_abi((uint64_t)a->reg, &err)
                                           : czk_porep_type_for_size(czk_vanilla_sizes[si], &err);
    /* The synthetic type of a size is its V1_1 type's abi id + 5 (porep_types.h). */
    if (ty != NULL && a->synthetic && a->reg < 0)
        ty = czk_porep_type_from_abi(ty->abi_id + 5, &err);
    if (ty == NULL)
        return czk_cli_fail(cmd, CZK_EUNSUPPORTED, &err);
    if (ty->sector_size != czk_vanilla_sizes[si]) {
        fprintf(stderr, "czk c2 gen: registered proof %ld (%s) is not of %s sectors\n", a->reg,
                ty->name, a->pos[0]);
        return CZK_EXIT_ERROR;
    }
    if (a->synthetic && ty->variant != CZK_POREP_SYNTHETIC) {
        fprintf(stderr, "czk c2 gen: --synthetic, but registered proof %ld is %s\n", a->reg,
                ty->name);
        return CZK_EXIT_ERROR;
    }
    if (a->virt && ty->variant == CZK_POREP_SYNTHETIC) {
        fprintf(stderr,
                "czk c2 gen: %s cannot be virtual: its challenges are drawn from comm_r, which "
                "commits to every label, so only a sealed sector passes (2KiB, 8MiB)\n",
                ty->name);
        return CZK_EXIT_ERROR;
    }
    if (!a->virt && ty->nodes > (1ull << 18)) {
        fprintf(stderr, "czk c2 gen: sealing %s takes too long here; %s\n", a->pos[0],
                ty->variant == CZK_POREP_SYNTHETIC
                    ? "a synthetic C1 output cannot be virtual (2KiB and 8MiB seal)"
                    : "use --virtual");
        return CZK_EXIT_ERROR;
    }
    czk_rng rng;
    if (czk_cli_rng(&rng, c, cmd) != 0)
        return CZK_EXIT_ERROR;
    uint8_t prover[32], ticket[32], seed[32];
    czk_vanilla_prover_id(prover, a->miner_id);
    czk_rng_bytes(&rng, ticket, 32);
    czk_rng_bytes(&rng, seed, 32); /* chain randomness: raw bytes, only ever hashed */
    int rc = CZK_OK, exit_code = CZK_EXIT_ERROR;
    uint8_t *data = NULL;
    char *json = NULL;
    size_t json_len = 0;
    czk_c1 c1 = {0};
    uint64_t t0 = czk_time_ns();
    if (a->virt) {
        rc = czk_seal_virtual(&c1, ty, prover, a->sector_id, ticket, seed, &rng, &err);
    } else {
        /* Random piece data, fr32-padded as a sealed sector holds it. */
        size_t padded = (size_t)ty->sector_size, raw = padded / 128 * 127;
        uint8_t *piece = czk_malloc(raw);
        data = czk_malloc(padded);
        if (piece == NULL || data == NULL) {
            rc = czk_err_set(&err, CZK_ENOMEM, "cannot allocate the sector's data");
        } else {
            czk_rng_bytes(&rng, piece, raw);
            rc = czk_seal_fr32_pad(data, padded, piece, raw, &err);
        }
        czk_free(piece);
        if (rc == CZK_OK)
            rc = czk_seal_small(&c1, ty, data, prover, a->sector_id, ticket, seed, &err);
    }
    double secs = (double)(czk_time_ns() - t0) / 1e9;
    if (rc == CZK_OK)
        rc = czk_c1_write(&json, &json_len, &c1, a->wrap, a->sector_id, &err);
    if (rc == CZK_OK)
        rc = czk_file_write_atomic(a->out, json, json_len, &err);
    if (rc != CZK_OK) {
        exit_code = czk_cli_fail(cmd, rc, &err);
        goto out;
    }
    printf("wrote %s: %s C1 output (%s) of miner %llu sector %llu, %zu bytes; %s in %.2f s\n",
           a->out, ty->name, a->wrap ? "Curio's wrapper" : "filecoin-ffi JSON", a->miner_id,
           a->sector_id, json_len, a->virt ? "virtual" : "sealed", secs);
    exit_code = CZK_EXIT_OK;
out:
    czk_memclear_explicit(&rng, sizeof rng);
    czk_free(json);
    czk_free(data);
    czk_c1_clear(&c1);
    return exit_code;
}

int czk_cli_c2(int argc, char **argv) {
    czk_cli_common c = {0};
    const char *sub = argc > 0 && (strcmp(argv[0], "verify") == 0 || strcmp(argv[0], "gen") == 0)
                          ? argv[0]
                          : NULL;
    if (sub != NULL) {
        argc--;
        argv++;
    }
    char cmd[16];
    snprintf(cmd, sizeof cmd, "c2%s%s", sub ? " " : "", sub ? sub : "");
    int r = czk_cli_start(&c, cmd, USAGE, &argc, argv);
    if (r >= 0)
        return r;
    c2_args a;
    if (parse(&a, cmd, argc, argv) != 0)
        return CZK_EXIT_ERROR;
    if (sub == NULL)
        return c2_prove(&c, &a);
    return strcmp(sub, "verify") == 0 ? c2_verify(&a) : c2_gen(&c, &a);
}
