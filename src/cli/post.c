/*
 * czk post: Filecoin PoSt without a daemon. `gen` writes test inputs as Curio would send them
 * (its public JSON and one bincode vanilla proof per sector, vanilla_gen.h), `prove` proves one
 * partition from such files with an in-process engine (the daemon's path: inputs checked,
 * proof verified before it is written), `verify` checks a 192-byte proof against the public
 * JSON and the .vk found under its v28 name. doc/FILECOIN.md §10 shows a session.
 */
#include "cli/cli.h"

#include "filecoin/io/curio_post.h"
#include "filecoin/io/params.h"
#include "filecoin/post/post_inputs.h"
#include "filecoin/testgen/vanilla_gen.h"
#include "formats/bellperson.h"
#include "groth16/verify.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/timer.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE =
    "usage: czk post gen KIND SIZE --out DIR [--sectors N] [--partition P]\n"
    "                    [--registered-proof N] [--miner-id M] [--seed S] [--threads N]\n"
    "       czk post prove PUBLIC.json [VPROOF...] --out PROOF [--partition P]\n"
    "                      [--params DIR] [--backend auto|cpu|cuda] [--devices 0,1] [--threads N]\n"
    "       czk post verify PUBLIC.json PROOF [--partition P] [--params DIR]\n"
    "\n"
    "Filecoin WinningPoSt and WindowPoSt from files, as Curio hands them to a prover.\n"
    "PUBLIC.json is Curio's public data (Randomness, Proofs[].PoStProof, ChallengedSectors\n"
    "with SealedCID, Prover); a VPROOF is one sector's bincode vanilla proof.\n"
    "\n"
    "  gen     writes DIR/post.pub.json and DIR/sector-<number>.vproof for a partition of N\n"
    "          sectors (default: WinningPoSt 1, WindowPoSt the partition's full count) of\n"
    "          a sparse random tree, valid for the public data. KIND is winning-post or\n"
    "          window-post, SIZE 2KiB, 8MiB, 512MiB, 32GiB or 64GiB; the registered proof\n"
    "          is WinningPoSt V1 or WindowPoSt V1_1 of that size unless given.\n"
    "  prove   proves partition P (default 0). Without VPROOF files it reads\n"
    "          sector-<number>.vproof beside PUBLIC.json, in ChallengedSectors order. Writes\n"
    "          the 192-byte proof only once it verifies.\n"
    "  verify  exit 0 when PROOF is valid for the public data, 1 when not.\n"
    "\n"
    "Keys are the v28 files in --params DIR, else $FIL_PROOFS_PARAMETER_CACHE, else\n"
    "/var/tmp/filecoin-proof-parameters (`czk setup --filecoin` makes development keys).\n";

typedef struct post_args {
    const char **pos; /* the positional arguments, in order; argv's own strings */
    int npos;
    const char *out, *params, *reg_arg;
    long sectors, partition;
    unsigned long long miner_id;
} post_args;

/* Options into *a, positionals into pos (room for max_pos). Returns 0, or -1 after printing
 * why. */
static int parse(post_args *a, const char **pos, int max_pos, const char *cmd, int argc,
                 char **argv) {
    memset(a, 0, sizeof *a);
    a->pos = pos;
    a->sectors = -1;
    a->miner_id = 1000;
    const czk_cli_opt opts[] = {
        {.name = "--out", .kind = CZK_CLI_OPT_STRING, .dest = &a->out},
        {.name = "--params", .kind = CZK_CLI_OPT_STRING, .dest = &a->params},
        {.name = "--registered-proof", .kind = CZK_CLI_OPT_STRING, .dest = &a->reg_arg},
        {.name = "--sectors",
         .kind = CZK_CLI_OPT_LONG,
         .dest = &a->sectors,
         .lo = 1,
         .hi = 1 << 20},
        {.name = "--partition", .kind = CZK_CLI_OPT_LONG, .dest = &a->partition, .hi = 1 << 20},
        {.name = "--miner-id",
         .kind = CZK_CLI_OPT_U64,
         .dest = &a->miner_id,
         .what = "an actor id"},
    };
    const czk_cli_opts how = {cmd, USAGE, CZK_CLI_OPTS_UNKNOWN_OPTION};
    a->npos = czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), pos, max_pos, argc, argv);
    return a->npos < 0 ? -1 : 0;
}

/* ---- gen ------------------------------------------------------------------------------------ */

typedef struct gen_job {
    const czk_vanilla_post_type *ty;
    czk_post_public *pub; /* each worker sets its sectors' comm_r */
    uint64_t partition, seed;
    const char *dir;
    int failed;
    czk_err err; /* the first failure's */
    pthread_mutex_t mu;
} gen_job;

/* Sectors [b, e): each from its own rng (seed, index), so the files do not depend on the
 * thread count. */
static void gen_range(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    gen_job *g = arg;
    size_t cap = czk_vanilla_sector_encoded_size(g->ty);
    uint8_t *buf = czk_malloc(cap);
    for (size_t i = b; i < e; i++) {
        czk_err err = {0};
        czk_vanilla_sector s;
        czk_rng rng;
        czk_rng_seed(&rng, g->seed ^ (0x9e3779b97f4a7c15ULL * (i + 1)));
        uint64_t index =
            g->ty->kind == CZK_VANILLA_POST_WINNING ? 0 : g->partition * g->ty->sector_count + i;
        czk_post_public_sector *ps = &g->pub->sectors[i];
        int rc = buf == NULL ? czk_err_set(&err, CZK_ENOMEM, "cannot allocate %zu bytes", cap)
                             : czk_vanilla_sector_generate(&s, g->ty, g->pub->randomness,
                                                           ps->sector_number, index, &rng, &err);
        if (rc == CZK_OK) {
            /* comm_r is the public data's: the JSON is written after all sectors. */
            ps->comm_r = s.comm_r;
            size_t len = 0;
            char path[4096];
            snprintf(path, sizeof path, "%s/sector-%llu.vproof", g->dir,
                     (unsigned long long)ps->sector_number);
            rc = czk_vanilla_sector_encode(buf, cap, &len, &s, g->ty, &err);
            if (rc == CZK_OK)
                rc = czk_file_write_atomic(path, buf, len, &err);
            czk_vanilla_sector_clear(&s);
        }
        if (rc != CZK_OK) {
            pthread_mutex_lock(&g->mu);
            if (!g->failed)
                g->err = err;
            g->failed = 1;
            pthread_mutex_unlock(&g->mu);
            break;
        }
    }
    czk_free(buf);
}

static int post_gen(int argc, char **argv) {
    czk_cli_common c = {0};
    int r = czk_cli_start(&c, "post gen", USAGE, &argc, argv);
    if (r >= 0)
        return r;
    post_args a;
    const char *pos[8];
    if (argc > 8 || parse(&a, pos, 8, "post gen", argc, argv) != 0)
        return argc > 8 ? (fprintf(stderr, "czk post gen: too many arguments\n%s", USAGE),
                           CZK_EXIT_ERROR)
                        : CZK_EXIT_ERROR;
    if (a.npos != 2 || a.out == NULL) {
        fprintf(stderr, "czk post gen: wants KIND SIZE --out DIR\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    czk_cli_filecoin fc;
    if (czk_cli_filecoin_parse(&fc, "post gen", a.pos[0], a.pos[1]) != 0)
        return CZK_EXIT_ERROR;
    /* The size's position among the five, which numbers every registered proof. */
    static const uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    unsigned si = 0;
    while (sizes[si] != fc.shape.sector_size)
        si++;
    long reg = fc.shape.kind == CZK_VANILLA_POST_WINNING ? (long)si : 10 + (long)si;
    if (a.reg_arg != NULL &&
        czk_cli_parse_long("post gen", "--registered-proof", a.reg_arg, 0, 14, &reg) != 0)
        return CZK_EXIT_ERROR;
    czk_vanilla_post_type ty;
    czk_err err = {0};
    int rc = czk_vanilla_post_type_from_abi(&ty, (uint64_t)reg, &err);
    if (rc != CZK_OK)
        return czk_cli_fail("post gen", rc, &err);
    if (ty.kind != fc.shape.kind || ty.shape.sector_size != fc.shape.sector_size) {
        fprintf(stderr, "czk post gen: registered proof %ld is not %s %s\n", reg, fc.kind_name,
                fc.size_name);
        return CZK_EXIT_ERROR;
    }
    long n = a.sectors < 0 ? (long)ty.sector_count : a.sectors;
    if (n > (long)ty.sector_count || (ty.kind == CZK_VANILLA_POST_WINNING && a.partition != 0)) {
        if (ty.kind == CZK_VANILLA_POST_WINNING)
            fprintf(stderr, "czk post gen: winning-post proves 1 sector, at partition 0 only\n");
        else
            fprintf(stderr, "czk post gen: window-post takes 1 to %u sectors per partition\n",
                    ty.sector_count);
        return CZK_EXIT_ERROR;
    }
    czk_rng rng;
    if (czk_cli_rng(&rng, &c, "post gen") != 0)
        return CZK_EXIT_ERROR;
    if (czk_cli_make_dir("post gen", a.out) != 0)
        return CZK_EXIT_ERROR;

    czk_post_public pub = {0};
    pub.registered_proof = (uint64_t)reg;
    pub.prover = a.miner_id;
    pub.n_sectors = (size_t)n;
    pub.sectors = czk_calloc((size_t)n, sizeof *pub.sectors);
    if (pub.sectors == NULL)
        return czk_cli_fail("post gen", CZK_ENOMEM, NULL);
    czk_fr rnd;
    czk_fr_random(&rnd, &rng);
    czk_fr_to_bytes_le(pub.randomness, &rnd);
    for (long i = 0; i < n; i++) {
        /* Sector numbers as a miner's partition would list them: ascending, distinct across
         * partitions. Seal proof: the size's StackedDrg V1_1. */
        pub.sectors[i].sector_number = 1 + (uint64_t)a.partition * ty.sector_count + (uint64_t)i;
        pub.sectors[i].seal_proof = 5 + si;
    }
    czk_pool *pool = czk_cli_pool(&c, "post gen");
    if (pool == NULL) {
        czk_post_public_clear(&pub);
        return CZK_EXIT_ERROR;
    }
    gen_job g = {.ty = &ty,
                 .pub = &pub,
                 .partition = (uint64_t)a.partition,
                 .seed = czk_rng_u64(&rng),
                 .dir = a.out};
    pthread_mutex_init(&g.mu, NULL);
    uint64_t t0 = czk_time_ns();
    czk_pool_run(pool, (size_t)n, 1, gen_range, &g);
    pthread_mutex_destroy(&g.mu);
    czk_pool_destroy(pool);
    char path[4096];
    snprintf(path, sizeof path, "%s/post.pub.json", a.out);
    int exit_code = CZK_EXIT_OK;
    if (g.failed)
        exit_code = czk_cli_fail("post gen", g.err.code, &g.err);
    else if ((rc = czk_post_public_write(path, &pub, &err)) != CZK_OK)
        exit_code = czk_cli_fail("post gen", rc, &err);
    else
        printf("wrote %s and %ld vanilla proofs (sector-%llu.vproof ...): registered proof %ld "
               "(%s %s), partition %ld, miner %llu; %.1f s\n",
               path, n, (unsigned long long)pub.sectors[0].sector_number, reg, fc.kind_name,
               fc.size_name, a.partition, a.miner_id, (double)(czk_time_ns() - t0) / 1e9);
    czk_post_public_clear(&pub);
    return exit_code;
}

/* ---- prove ---------------------------------------------------------------------------------- */

/* The directory part of path ("." when none) into out. */
static void dir_of(char *out, size_t cap, const char *path) {
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(out, cap, ".");
    else
        snprintf(out, cap, "%.*s", (int)(slash - path == 0 ? 1 : slash - path), path);
}

/* Reads the vanilla proofs and checks that each is the sector the public data names, in the
 * same place. */
static int read_vproofs(uint8_t **bufs, size_t *lens, const czk_post_public *pub,
                        const czk_vanilla_post_type *ty, const char *cmd, const char *pub_path,
                        const char *const *files, int n_files) {
    char dir[4096], path[4096 + 64];
    dir_of(dir, sizeof dir, pub_path);
    if (n_files != 0 && (size_t)n_files != pub->n_sectors) {
        fprintf(stderr, "czk %s: %d vanilla proofs for the %zu ChallengedSectors of %s\n", cmd,
                n_files, pub->n_sectors, pub_path);
        return -1;
    }
    for (size_t i = 0; i < pub->n_sectors; i++) {
        const char *f = n_files != 0 ? files[i] : NULL;
        if (f == NULL) {
            snprintf(path, sizeof path, "%s/sector-%llu.vproof", dir,
                     (unsigned long long)pub->sectors[i].sector_number);
            f = path;
        }
        czk_err err = {0};
        int rc = czk_file_read_all(&bufs[i], &lens[i], f, &err);
        if (rc != CZK_OK)
            return czk_cli_fail(cmd, rc, &err), -1;
        czk_vanilla_sector s;
        rc = czk_vanilla_sector_decode(&s, ty, bufs[i], lens[i], i, &err);
        if (rc != CZK_OK) {
            fprintf(stderr, "czk %s: %s: %s\n", cmd, f, czk_err_text(&err, rc));
            return -1;
        }
        int same = s.sector_id == pub->sectors[i].sector_number &&
                   czk_fr_equal(&s.comm_r, &pub->sectors[i].comm_r);
        czk_vanilla_sector_clear(&s);
        if (!same) {
            fprintf(stderr,
                    "czk %s: %s is not a proof of ChallengedSectors[%zu] (sector %llu and its "
                    "sealed CID) of %s\n",
                    cmd, f, i, (unsigned long long)pub->sectors[i].sector_number, pub_path);
            return -1;
        }
    }
    return 0;
}

void czk_cli_post_inputs_clear(czk_cli_post_inputs *in) {
    if (in->vproofs != NULL)
        for (size_t i = 0; i < in->pub.n_sectors; i++)
            czk_free(in->vproofs[i]);
    czk_free(in->vproofs);
    czk_free(in->lens);
    czk_post_public_clear(&in->pub);
    memset(in, 0, sizeof *in);
}

int czk_cli_post_read(czk_cli_post_inputs *in, const char *cmd, const char *pub_path,
                      const char *const *files, int n_files) {
    memset(in, 0, sizeof *in);
    czk_err err = {0};
    int rc = czk_post_public_read(&in->pub, pub_path, &err);
    if (rc == CZK_OK)
        rc = czk_vanilla_post_type_from_abi(&in->ty, in->pub.registered_proof, &err);
    if (rc != CZK_OK) {
        czk_cli_post_inputs_clear(in);
        return czk_cli_fail(cmd, rc, &err), -1;
    }
    in->vproofs = czk_calloc(in->pub.n_sectors, sizeof *in->vproofs);
    in->lens = czk_calloc(in->pub.n_sectors, sizeof *in->lens);
    if (in->vproofs == NULL || in->lens == NULL) {
        czk_cli_post_inputs_clear(in);
        return czk_cli_fail(cmd, CZK_ENOMEM, NULL), -1;
    }
    if (read_vproofs(in->vproofs, in->lens, &in->pub, &in->ty, cmd, pub_path, files, n_files) !=
        0) {
        czk_cli_post_inputs_clear(in);
        return -1;
    }
    return 0;
}

static int post_prove(int argc, char **argv) {
    czk_cli_common c = {0};
    int r = czk_cli_start(&c, "post prove", USAGE, &argc, argv);
    if (r >= 0)
        return r;
    post_args a;
    const char **pos = czk_calloc((size_t)argc + 1, sizeof *pos);
    if (pos == NULL)
        return czk_cli_fail("post prove", CZK_ENOMEM, NULL);
    int exit_code = CZK_EXIT_ERROR, rc;
    czk_cli_post_inputs in = {0};
    uint8_t *payload = NULL;
    czk_engine *e = NULL;
    czk_job_result res;
    memset(&res, 0, sizeof res);
    czk_err err = {0};
    /* The first positional is PUBLIC.json; every later one a VPROOF. */
    if (parse(&a, pos, argc, "post prove", argc, argv) != 0)
        goto out;
    if (a.npos < 1 || a.out == NULL) {
        fprintf(stderr, "czk post prove: wants PUBLIC.json [VPROOF...] --out PROOF\n%s", USAGE);
        goto out;
    }
    if (czk_cli_post_read(&in, "post prove", a.pos[0], pos + 1, a.npos - 1) != 0)
        goto out;
    char circuit[64];
    if ((rc = czk_kinds_filecoin_circuit_id(circuit, sizeof circuit, in.pub.registered_proof,
                                            &err)) != CZK_OK) {
        exit_code = czk_cli_fail("post prove", rc, &err);
        goto out;
    }
    size_t plen = czk_kinds_filecoin_payload_size(in.lens, in.pub.n_sectors);
    payload = plen == 0 ? NULL : czk_malloc(plen);
    if (payload == NULL || czk_kinds_filecoin_payload_encode(
                               payload, (uint32_t)in.pub.registered_proof, (uint32_t)a.partition,
                               in.pub.prover, in.pub.randomness, (const uint8_t *const *)in.vproofs,
                               in.lens, in.pub.n_sectors) != plen) {
        exit_code = czk_cli_fail("post prove", CZK_ENOMEM, NULL);
        goto out;
    }
    czk_engine_config cfg;
    czk_cli_engine_config(&cfg, &c);
    char what[128];
    snprintf(what, sizeof what, "%s proof of partition %ld", circuit, a.partition);
    const czk_cli_inproc p = {"post prove", a.pos[0], a.out, a.params, what, CZK_CLI_INPROC_POST};
    if ((exit_code = czk_cli_inproc_prove(&e, &cfg, &p, 0, circuit, 1, payload, plen, &res)) != 0)
        goto out;
    exit_code = CZK_EXIT_OK;
out:
    czk_engine_destroy(e);
    czk_job_result_clear(&res);
    czk_free(payload);
    czk_cli_post_inputs_clear(&in);
    czk_free(pos);
    return exit_code;
}

/* ---- verify --------------------------------------------------------------------------------- */

static int post_verify(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    post_args a;
    const char *pos[8];
    if (argc > 8) {
        fprintf(stderr, "czk post verify: too many arguments\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    if (parse(&a, pos, 8, "post verify", argc, argv) != 0)
        return CZK_EXIT_ERROR;
    if (a.npos != 2 || a.out != NULL) {
        fprintf(stderr, "czk post verify: wants PUBLIC.json PROOF\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    czk_err err = {0};
    czk_post_public pub = {0};
    czk_filecoin_sector *sectors = NULL;
    int exit_code, rc = czk_post_public_read(&pub, a.pos[0], &err);
    if (rc == CZK_OK && (sectors = czk_malloc(pub.n_sectors * sizeof *sectors)) == NULL)
        rc = czk_err_set(&err, CZK_ENOMEM, "no memory for %zu sectors", pub.n_sectors);
    if (rc != CZK_OK) {
        exit_code = czk_cli_fail("post verify", rc, &err);
        goto out;
    }
    for (size_t i = 0; i < pub.n_sectors; i++) {
        sectors[i].sector_number = pub.sectors[i].sector_number;
        czk_fr_to_bytes_le(sectors[i].comm_r, &pub.sectors[i].comm_r);
    }
    czk_vanilla_post_type ty;
    czk_filecoin_public fp = {.registered_proof = pub.registered_proof,
                              .sectors = sectors,
                              .n_sectors = pub.n_sectors,
                              .partition_index = (uint32_t)a.partition};
    fp.kind = czk_vanilla_post_type_from_abi(&ty, pub.registered_proof, NULL) == CZK_OK &&
                      ty.kind == CZK_VANILLA_POST_WINNING
                  ? CZK_FILECOIN_WINNING_POST
                  : CZK_FILECOIN_WINDOW_POST;
    memcpy(fp.randomness, pub.randomness, 32);
    exit_code = czk_cli_verify_filecoin("post verify", &fp, a.params, a.pos[1]);
out:
    czk_free(sectors);
    czk_post_public_clear(&pub);
    return exit_code;
}

int czk_cli_post(int argc, char **argv) {
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        fputs(USAGE, argc < 1 ? stderr : stdout);
        return argc < 1 ? CZK_EXIT_ERROR : CZK_EXIT_OK;
    }
    if (strcmp(argv[0], "gen") == 0)
        return post_gen(argc - 1, argv + 1);
    if (strcmp(argv[0], "prove") == 0)
        return post_prove(argc - 1, argv + 1);
    if (strcmp(argv[0], "verify") == 0)
        return post_verify(argc - 1, argv + 1);
    fprintf(stderr, "czk post: unknown subcommand '%s' (gen, prove or verify)\n%s", argv[0], USAGE);
    return CZK_EXIT_ERROR;
}
