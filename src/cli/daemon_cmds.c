/*
 * The daemon and its clients: `czk daemon` (server/daemon.c), and `czk submit | await |
 * status | cancel | bench`, which talk to a daemon over gRPC (server/grpc/client.h).
 *
 * Upstream code cited here was read at curio@e0294b0f (2026-08-20).
 */
#include "cli/cli.h"

#include "server/daemon.h"
#include "server/grpc/client.h"
#include "util/file.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_ADDR "127.0.0.1:9820"
/* czk await's exit codes beyond cli.h's 0 (COMPLETED), 1 (FAILED or CANCELLED: the job ended
 * without a proof) and 2 (an error): a script must tell a wait that ran out, after which the
 * job goes on and may be awaited again, from a job that will never give a proof. */
#define EXIT_TIMEOUT 3
#define EXIT_NOT_FOUND 4
#define MAX_WTNS 1024

int czk_cli_daemon(int argc, char **argv) {
    return czk_server_daemon_main(argc, argv);
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Options of the client commands. */
typedef struct client_opts {
    const char *addr;
    czk_grpc_client_tls tls; /* --tls-ca, --tls-cert, --tls-key (every command takes them) */
    const char *circuit;
    const char *request_id;
    const char *out;
    const char *wtns_paths[MAX_WTNS];
    size_t n_wtns;
    uint32_t partitions;
    int priority;
    unsigned long long seed, timeout_ms;
    unsigned long count, inflight;
    int wait, metrics;
    const char *positional;
    /* Filecoin requests as Curio sends them: --post PUBLIC.json [--vproof F]...
     * [--partition-index P], --c1 FILE [--miner-id M --sector-id S], or --snap DIR. */
    const char *post, *c1, *snap;
    const char *vproof_paths[MAX_WTNS];
    size_t n_vproofs;
    uint32_t partition_index;
    unsigned long long miner_id, sector_id;
    int have_miner, have_sector;
} client_opts;

/* What a request is made of: one of --circuit, --post and --c1, and only the options that
 * go with it. Returns 0, or -1 after printing why. */
static int check_request_opts(const client_opts *o, const char *cmd) {
    int kinds = (o->circuit != NULL) + (o->post != NULL) + (o->c1 != NULL) + (o->snap != NULL);
    const char *bad = NULL;
    if (kinds > 1)
        bad = "--circuit, --post, --c1 and --snap each make a whole request: give one";
    else if (o->post == NULL && (o->n_vproofs != 0 || o->partition_index != 0))
        bad = "--vproof and --partition-index go with --post";
    else if (o->c1 == NULL && (o->have_miner || o->have_sector))
        bad = "--miner-id and --sector-id go with --c1";
    else if (o->have_miner != o->have_sector)
        bad = "--miner-id and --sector-id go together";
    else if (kinds == 1 && o->circuit == NULL && (o->n_wtns != 0 || o->partitions != 0))
        bad = "--wtns and --partitions are for --circuit (a Filecoin request's vanilla proofs "
              "say what is proved)";
    if (bad == NULL)
        return 0;
    fprintf(stderr, "czk %s: %s\n", cmd, bad);
    return -1;
}

/* One client option: `letter` names it in a command's `allowed` set (parse_client); 0 for the
 * ones every command takes. */
typedef struct client_opt {
    char letter;
    czk_cli_opt opt;
} client_opt;

/* Parses the options every client command shares; `allowed` lists the ones this command
 * takes (flag letters: c circuit, r request-id, w wtns, p partitions, P priority, s seed,
 * t timeout, o out, W wait, C count, J inflight, M metrics, 1 one positional, F post,
 * v vproof, i partition-index, E c1, m miner-id, n sector-id, S snap); --addr and --tls-*
 * go with every command. */
static int parse_client(client_opts *o, const char *cmd, const char *usage, const char *allowed,
                        int argc, char **argv) {
    /* --priority's values, by the proto's numbers */
    static const char *const priorities[] = {"default", "low", "normal", "high", "critical", NULL};
    memset(o, 0, sizeof *o);
    o->addr = DEFAULT_ADDR;
    /* Counts from 1: 0 would run nothing, so it is refused with the range, as any bad value. */
    long partitions = 0, partition_index = 0, count = 1, inflight = 1;
    const client_opt all[] = {
        {0, {.name = "--addr", .kind = CZK_CLI_OPT_STRING, .dest = &o->addr}},
        {0, {.name = "--tls-ca", .kind = CZK_CLI_OPT_STRING, .dest = &o->tls.ca}},
        {0, {.name = "--tls-cert", .kind = CZK_CLI_OPT_STRING, .dest = &o->tls.cert}},
        {0, {.name = "--tls-key", .kind = CZK_CLI_OPT_STRING, .dest = &o->tls.key}},
        {'c', {.name = "--circuit", .kind = CZK_CLI_OPT_STRING, .dest = &o->circuit}},
        {'r', {.name = "--request-id", .kind = CZK_CLI_OPT_STRING, .dest = &o->request_id}},
        {'w',
         {.name = "--wtns",
          .kind = CZK_CLI_OPT_LIST,
          .dest = o->wtns_paths,
          .n = &o->n_wtns,
          .hi = MAX_WTNS}},
        {'p', {.name = "--partitions", .kind = CZK_CLI_OPT_LONG, .dest = &partitions, .hi = 1024}},
        {'P',
         {.name = "--priority",
          .kind = CZK_CLI_OPT_CHOICE,
          .dest = &o->priority,
          .choices = priorities}},
        {'s', {.name = "--seed", .kind = CZK_CLI_OPT_U64, .dest = &o->seed}},
        {'t', {.name = "--timeout-ms", .kind = CZK_CLI_OPT_U64, .dest = &o->timeout_ms}},
        {'o', {.name = "--out", .kind = CZK_CLI_OPT_STRING, .dest = &o->out}},
        {'W', {.name = "--wait", .kind = CZK_CLI_OPT_FLAG, .dest = &o->wait}},
        {'C',
         {.name = "--count",
          .alias = "-c",
          .kind = CZK_CLI_OPT_LONG,
          .dest = &count,
          .lo = 1,
          .hi = 10000000}},
        {'J',
         {.name = "--inflight",
          .alias = "-j",
          .kind = CZK_CLI_OPT_LONG,
          .dest = &inflight,
          .lo = 1,
          .hi = 4096}},
        {'M', {.name = "--metrics", .kind = CZK_CLI_OPT_FLAG, .dest = &o->metrics}},
        {'F', {.name = "--post", .kind = CZK_CLI_OPT_STRING, .dest = &o->post}},
        {'v',
         {.name = "--vproof",
          .kind = CZK_CLI_OPT_LIST,
          .dest = o->vproof_paths,
          .n = &o->n_vproofs,
          .hi = MAX_WTNS}},
        {'i',
         {.name = "--partition-index",
          .kind = CZK_CLI_OPT_LONG,
          .dest = &partition_index,
          .hi = UINT32_MAX}},
        {'E', {.name = "--c1", .kind = CZK_CLI_OPT_STRING, .dest = &o->c1}},
        {'m',
         {.name = "--miner-id",
          .kind = CZK_CLI_OPT_U64,
          .dest = &o->miner_id,
          .given = &o->have_miner}},
        {'n',
         {.name = "--sector-id",
          .kind = CZK_CLI_OPT_U64,
          .dest = &o->sector_id,
          .given = &o->have_sector}},
        {'S', {.name = "--snap", .kind = CZK_CLI_OPT_STRING, .dest = &o->snap}},
    };
    czk_cli_opt opts[CZK_CLI_OPTS_N(all)];
    size_t n = 0;
    for (size_t k = 0; k < CZK_CLI_OPTS_N(all); k++)
        if (all[k].letter == 0 || strchr(allowed, all[k].letter) != NULL)
            opts[n++] = all[k].opt;
    const czk_cli_opts how = {cmd, usage, CZK_CLI_OPTS_UNKNOWN_OPTION_DASH};
    const char *pos[1] = {NULL};
    if (czk_cli_opts_parse(&how, opts, n, pos, strchr(allowed, '1') != NULL, argc, argv) < 0)
        return -1;
    o->positional = pos[0];
    o->partitions = (uint32_t)partitions;
    o->partition_index = (uint32_t)partition_index;
    o->count = (unsigned long)count;
    o->inflight = (unsigned long)inflight;
    return check_request_opts(o, cmd);
}

/* What a request carries, read from files: the --wtns witnesses, or a Filecoin request's
 * inputs (--post, --c1). */
typedef struct req_inputs {
    uint8_t *data[MAX_WTNS];
    size_t len[MAX_WTNS];
    size_t n;
    int have_post;
    czk_cli_post_inputs post;
    uint8_t *c1; /* the C1 file's bytes, sent as they are */
    size_t c1_len;
    const czk_porep_type *c1_type;
    int have_snap;
    czk_cli_snap_inputs snap;
} req_inputs;

static void inputs_clear(req_inputs *w) {
    for (size_t i = 0; i < w->n; i++)
        czk_free(w->data[i]);
    if (w->have_post)
        czk_cli_post_inputs_clear(&w->post);
    czk_free(w->c1);
    if (w->have_snap)
        czk_cli_snap_clear(&w->snap);
    memset(w, 0, sizeof *w);
}

/* Reads every file the options name; a PoSt or C1 input is checked as `czk post prove` and
 * `czk c2` check it, so that a bad file is named here rather than refused by the daemon. */
static int inputs_read(req_inputs *w, const client_opts *o, const char *cmd) {
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < o->n_wtns; i++) {
        czk_err err = {0};
        int rc = czk_file_read_all(&w->data[i], &w->len[i], o->wtns_paths[i], &err);
        if (rc != CZK_OK) {
            inputs_clear(w);
            return czk_cli_fail(cmd, rc, &err), -1;
        }
        w->n = i + 1;
    }
    if (o->post != NULL) {
        if (czk_cli_post_read(&w->post, cmd, o->post, o->vproof_paths, (int)o->n_vproofs) != 0)
            return inputs_clear(w), -1;
        w->have_post = 1;
    }
    if (o->c1 != NULL) {
        czk_c1 c1;
        if (czk_cli_c1_read(&c1, &w->c1, &w->c1_len, cmd, o->c1) != 0)
            return inputs_clear(w), -1;
        w->c1_type = c1.type;
        czk_c1_clear(&c1);
    }
    if (o->snap != NULL) {
        if (czk_cli_snap_read(&w->snap, cmd, o->snap) != 0)
            return inputs_clear(w), -1;
        w->have_snap = 1;
    }
    return 0;
}

/* The proto's ProofKind numbers (proving.proto). */
enum { KIND_POREP = 1, KIND_SNAP = 2, KIND_WINDOW_POST = 3, KIND_WINNING_POST = 4 };

static void fill_request(czk_rpc_request *r, const client_opts *o, const req_inputs *w) {
    memset(r, 0, sizeof *r);
    r->request_id = o->request_id;
    r->circuit_id = o->circuit;
    r->priority = o->priority;
    r->n_partitions = o->partitions;
    r->wtns = (const uint8_t *const *)w->data;
    r->wtns_len = w->len;
    r->n_wtns = w->n;
    r->synth_seed = o->seed;
    r->client_id = "czk-cli";
    if (w->have_post) {
        const czk_cli_post_inputs *p = &w->post;
        r->proof_kind =
            p->ty.kind == CZK_VANILLA_POST_WINNING ? KIND_WINNING_POST : KIND_WINDOW_POST;
        r->registered_proof = p->pub.registered_proof;
        r->sector_size = p->ty.shape.sector_size;
        r->vanilla_proofs = (const uint8_t *const *)p->vproofs;
        r->vanilla_proofs_len = p->lens;
        r->n_vanilla_proofs = p->pub.n_sectors;
        r->randomness = p->pub.randomness;
        r->miner_id = p->pub.prover;
        r->partition_index = o->partition_index;
    }
    if (w->c1 != NULL) {
        r->proof_kind = KIND_POREP;
        r->registered_proof = w->c1_type->abi_id;
        r->sector_size = w->c1_type->sector_size;
        r->vanilla_proof = w->c1;
        r->vanilla_proof_len = w->c1_len;
        r->sector_number = o->sector_id;
        r->miner_id = o->miner_id;
    }
    if (w->have_snap) {
        const czk_cli_snap_inputs *sn = &w->snap;
        r->proof_kind = KIND_SNAP;
        r->registered_proof = sn->registered_proof;
        r->sector_size = sn->sector_size;
        r->vanilla_proofs = (const uint8_t *const *)sn->vproofs;
        r->vanilla_proofs_len = sn->lens;
        r->n_vanilla_proofs = sn->n;
        r->sector_number = sn->sector_number;
        r->miner_id = sn->miner_id;
        r->comm_r_old = sn->comm_r_old;
        r->comm_r_new = sn->comm_r_new;
        r->comm_d_new = sn->comm_d_new;
    }
}

/* Writes paths[i] = texts[i] (n of them) all or none: each goes to a temporary file first, and
 * the renames happen only once every one is written; a rename that still fails removes those
 * already renamed, so no proof.json is left without its public.json. */
static int write_all_or_none(char *const *paths, char *const *texts, size_t n, czk_err *err) {
    czk_file_writer *w = calloc(n, sizeof *w);
    if (w == NULL)
        return czk_err_set(err, CZK_ENOMEM, "no memory for %zu files", n);
    size_t opened = 0, committed = 0;
    int rc = CZK_OK;
    while (rc == CZK_OK && opened < n) {
        if ((rc = czk_file_writer_open(&w[opened], paths[opened], err)) != CZK_OK)
            break;
        opened++;
        rc = czk_file_writer_write(&w[opened - 1], texts[opened - 1], strlen(texts[opened - 1]),
                                   err);
    }
    while (rc == CZK_OK && committed < n)
        if ((rc = czk_file_writer_commit(&w[committed], err)) == CZK_OK)
            committed++;
    if (rc != CZK_OK) {
        for (size_t i = 0; i < committed; i++)
            (void)remove(paths[i]);
        for (size_t i = committed; i < opened; i++)
            czk_file_writer_abort(&w[i]);
    }
    free(w);
    return rc;
}

/* 1 when --out names a directory (one that exists, or a path ending in '/'): the proof then
 * goes there as snarkjs JSON; otherwise --out is a file for the raw 192-byte proofs. */
static int out_is_dir(const char *out) {
    struct stat st;
    size_t len = strlen(out);
    return (len > 0 && out[len - 1] == '/') || (stat(out, &st) == 0 && S_ISDIR(st.st_mode));
}

/*
 * Writes a COMPLETED result's proof and public inputs as snarkjs JSON into dir: proof.json and
 * public.json for one partition; proof_I.json and public_I.json (I = 0, 1, ...) for several,
 * each pair verifiable on its own (czk verify, snarkjs groth16 verify). All files or none.
 */
static int write_json_dir(const char *cmd, const char *dir, const czk_rpc_result *r) {
    if (r->n_json == 0) {
        fprintf(stderr,
                "czk %s: the daemon sent no snarkjs JSON for this proof (it has no public "
                "inputs, or the daemon is older); give --out a file name for the raw proof\n",
                cmd);
        return CZK_EXIT_ERROR;
    }
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "czk %s: cannot make the directory %s: %s\n", cmd, dir, strerror(errno));
        return CZK_EXIT_ERROR;
    }
    size_t n = 2 * r->n_json, len = strlen(dir) + 48;
    char **paths = calloc(n, sizeof *paths), **texts = calloc(n, sizeof *texts);
    int code = CZK_EXIT_ERROR;
    czk_err err = {0};
    int rc = paths != NULL && texts != NULL ? CZK_OK : CZK_ENOMEM;
    const char *sep = dir[strlen(dir) - 1] == '/' ? "" : "/";
    for (size_t i = 0; rc == CZK_OK && i < r->n_json; i++) {
        char idx[32] = "";
        if (r->n_json > 1)
            snprintf(idx, sizeof idx, "_%zu", i);
        paths[2 * i] = malloc(len);
        paths[2 * i + 1] = malloc(len);
        if (paths[2 * i] == NULL || paths[2 * i + 1] == NULL) {
            rc = CZK_ENOMEM;
            break;
        }
        snprintf(paths[2 * i], len, "%s%sproof%s.json", dir, sep, idx);
        snprintf(paths[2 * i + 1], len, "%s%spublic%s.json", dir, sep, idx);
        texts[2 * i] = r->proof_json[i];
        texts[2 * i + 1] = r->public_json[i];
    }
    if (rc == CZK_OK)
        rc = write_all_or_none(paths, texts, n, &err);
    if (rc != CZK_OK) {
        code = czk_cli_fail(cmd, rc, &err);
    } else {
        if (r->n_json == 1)
            printf("wrote %s and %s\n", paths[0], paths[1]);
        else
            printf("wrote %s and %s ... %s and %s (one pair per partition)\n", paths[0], paths[1],
                   paths[n - 2], paths[n - 1]);
        code = CZK_EXIT_OK;
    }
    for (size_t i = 0; paths != NULL && i < n; i++)
        free(paths[i]);
    free(paths);
    free(texts);
    return code;
}

/* Prints a result; writes the proof to o->out when COMPLETED (out_is_dir says how). Exit
 * code: 0 COMPLETED, EXIT_TIMEOUT (3) for TIMEOUT, 1 otherwise (FAILED, CANCELLED, UNKNOWN),
 * 2 when the proof cannot be written. */
static int report(const char *cmd, const client_opts *o, const czk_rpc_result *r) {
    printf("job %s: %s", r->job_id, czk_rpc_status_name(r->status));
    if (r->status == 1)
        printf(" proof_bytes=%zu partitions=%zu", r->proof_len, r->proof_len / 192);
    printf(" total_ms=%llu queue_ms=%llu srs_load_ms=%llu synthesis_ms=%llu gpu_ms=%llu\n",
           (unsigned long long)r->total_ms, (unsigned long long)r->queue_wait_ms,
           (unsigned long long)r->srs_load_ms, (unsigned long long)r->synthesis_ms,
           (unsigned long long)r->gpu_compute_ms);
    if (r->error[0] != '\0')
        printf("  %s\n", r->error);
    if (r->status == 4)
        return EXIT_TIMEOUT;
    if (r->status != 1)
        return CZK_EXIT_INVALID;
    if (o->out != NULL && out_is_dir(o->out))
        return write_json_dir(cmd, o->out, r);
    if (o->out != NULL) {
        /* Atomic (FORMATS.md §10): a crash or a full disk leaves the old file or none, never
         * part of a proof that a later reader would take for a whole one. */
        czk_err err = {0};
        int rc = czk_file_write_atomic(o->out, r->proof, r->proof_len, &err);
        if (rc != CZK_OK)
            return czk_cli_fail(cmd, rc, &err);
    }
    return CZK_EXIT_OK;
}

/*
 * What every client command starts with: --help prints usage (exit 0), then its options
 * (`allowed`, as parse_client takes them), then the one it cannot go without: 'c' --circuit,
 * '1' the job id, 0 none. Returns -1 to go on, else the exit code to return.
 */
static int client_start(client_opts *o, const char *cmd, const char *usage, const char *allowed,
                        char need, int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(usage, stdout);
        fputs("TLS: --tls-ca F (the daemon's CA), --tls-cert F --tls-key F (for mutual TLS).\n",
              stdout);
        return CZK_EXIT_OK;
    }
    if (parse_client(o, cmd, usage, allowed, argc, argv) != 0)
        return CZK_EXIT_ERROR;
    if (need == 'c' && o->circuit == NULL && o->post == NULL && o->c1 == NULL && o->snap == NULL) {
        fprintf(stderr, "czk %s: --circuit, --post, --c1 or --snap is required\n", cmd);
        return CZK_EXIT_ERROR;
    }
    if (need == '1' && o->positional == NULL) {
        fprintf(stderr, "czk %s: which job? (czk %s JOB_ID)\n", cmd, cmd);
        return CZK_EXIT_ERROR;
    }
    return -1;
}

/* One command's calls over a connected client: returns a CZK_ status and, when CZK_OK, sets
 * *code to the exit code. */
typedef int (*client_call)(czk_grpc_client *c, const char *cmd, const client_opts *o,
                           const req_inputs *w, int *code, czk_err *err);

/* Connects to o->addr and runs call; a failure to connect or a failed call is printed once,
 * here, and exits CZK_EXIT_ERROR. */
static int with_client(const char *cmd, const client_opts *o, const req_inputs *w,
                       client_call call) {
    czk_grpc_client *c = NULL;
    czk_err err = {0};
    int code = CZK_EXIT_OK;
    int rc = czk_grpc_client_create_tls(&c, o->addr, &o->tls, &err);
    if (rc == CZK_OK)
        rc = call(c, cmd, o, w, &code, &err);
    if (rc != CZK_OK)
        code = czk_cli_fail(cmd, rc, &err);
    czk_grpc_client_destroy(c);
    return code;
}

/*
 * The id Curio gives a Filecoin request (lib/ffi/cuzk_funcs.go at curio@e0294b0f), for `czk
 * submit` without --request-id: porep-MINER-SECTOR, snap-MINER-SECTOR, winpost-MINER-%x of
 * randomness[:8], and wdpost-MINER-PARTITION-[b0 b1 ... b7], Go's %d of a byte slice. Returns 1
 * when out holds one, 0 for other requests (the daemon then makes an id).
 */
static int curio_request_id(char *out, size_t cap, const client_opts *o, const req_inputs *w) {
    if (w->have_post) {
        const uint8_t *r = w->post.pub.randomness;
        unsigned long long miner = (unsigned long long)w->post.pub.prover;
        if (w->post.ty.kind == CZK_VANILLA_POST_WINNING)
            snprintf(out, cap, "winpost-%llu-%02x%02x%02x%02x%02x%02x%02x%02x", miner, r[0], r[1],
                     r[2], r[3], r[4], r[5], r[6], r[7]);
        else
            snprintf(out, cap, "wdpost-%llu-%u-[%u %u %u %u %u %u %u %u]", miner,
                     o->partition_index, r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7]);
        return 1;
    }
    if (w->c1 != NULL && o->miner_id != 0) {
        snprintf(out, cap, "porep-%llu-%llu", o->miner_id, o->sector_id);
        return 1;
    }
    if (w->have_snap && w->snap.miner_id != 0) {
        snprintf(out, cap, "snap-%llu-%llu", (unsigned long long)w->snap.miner_id,
                 (unsigned long long)w->snap.sector_number);
        return 1;
    }
    return 0;
}

static int submit_call(czk_grpc_client *c, const char *cmd, const client_opts *o,
                       const req_inputs *w, int *code, czk_err *err) {
    czk_rpc_request req;
    fill_request(&req, o, w);
    char curio_id[CZK_REQUEST_ID_MAX + 1];
    if (req.request_id == NULL && curio_request_id(curio_id, sizeof curio_id, o, w))
        req.request_id = curio_id;
    char job_id[CZK_REQUEST_ID_MAX + 1];
    uint32_t pos = 0;
    int attached = 0;
    int rc = czk_grpc_client_submit(c, &req, job_id, &pos, &attached, err);
    if (rc != CZK_OK)
        return rc;
    printf("job %s queue_position=%u%s\n", job_id, pos, attached ? " attached" : "");
    *code = CZK_EXIT_OK;
    if (o->wait) {
        czk_rpc_result res;
        rc = czk_grpc_client_await(c, job_id, 0, &res, err);
        if (rc == CZK_OK)
            *code = report(cmd, o, &res);
        czk_rpc_result_clear(&res);
    }
    return rc;
}

int czk_cli_submit(int argc, char **argv) {
    client_opts o;
    int done = client_start(
        &o, "submit",
        "usage: czk submit [--addr ADDR] REQUEST [--request-id ID] [--priority P]\n"
        "                  [--wait [--out DIR|F]]\n"
        "REQUEST is one of:\n"
        "  --circuit ID [--wtns F]... [--partitions P] [--seed S]   a registered circuit\n"
        "  --post PUBLIC.json [--vproof F]... [--partition-index P]  Filecoin PoSt, as Curio\n"
        "      sends it: its public JSON and one vanilla proof per challenged sector\n"
        "      (default: sector-<number>.vproof beside the JSON; czk post gen writes both)\n"
        "  --c1 FILE [--miner-id M --sector-id S]   Filecoin PoRep C2 from a C1 output\n"
        "  --snap DIR   Filecoin SnapDeals: DIR/public.json and DIR/vanilla_proofs.json\n"
        "      (czk snap gen writes both)\n"
        "Submits a proof to a czk daemon (default " DEFAULT_ADDR ") and prints its job id;\n"
        "--wait also awaits it (exit 0 only when COMPLETED). Without --request-id a Filecoin\n"
        "request gets the id Curio gives it (porep-/snap-MINER-SECTOR, winpost-MINER-RAND8HEX,\n"
        "wdpost-MINER-PARTITION-[RAND8 AS GO PRINTS A BYTE SLICE]); others get the daemon's.\n"
        "--out DIR (an existing directory, or a path ending in /) writes the proof as snarkjs\n"
        "JSON: proof.json and public.json, or proof_I.json and public_I.json per partition I\n"
        "when there are several (all files or none); --out F writes the raw proofs (192 bytes\n"
        "per partition, bellperson's encoding).\n",
        "crwpPsoWFviEmnS", 'c', argc, argv);
    if (done >= 0)
        return done;
    req_inputs w;
    if (inputs_read(&w, &o, "submit") != 0)
        return CZK_EXIT_ERROR;
    int code = with_client("submit", &o, &w, submit_call);
    inputs_clear(&w);
    return code;
}

static int await_call(czk_grpc_client *c, const char *cmd, const client_opts *o,
                      const req_inputs *w, int *code, czk_err *err) {
    (void)w;
    czk_rpc_result res;
    int rc = czk_grpc_client_await(c, o->positional, o->timeout_ms, &res, err);
    if (rc == CZK_OK)
        *code = report(cmd, o, &res);
    czk_rpc_result_clear(&res);
    if (rc == CZK_ENOTFOUND) {
        /* Not a failure of the command: the answer is that the daemon has no such job. */
        printf("job %s: NOT_FOUND (never submitted, or its result has expired)\n", o->positional);
        *code = EXIT_NOT_FOUND;
        return CZK_OK;
    }
    return rc;
}

int czk_cli_await(int argc, char **argv) {
    client_opts o;
    int done =
        client_start(&o, "await",
                     "usage: czk await [--addr ADDR] JOB_ID [--timeout-ms T] [--out DIR|F]\n"
                     "Waits for a job (T = 0: forever) and prints its status and timings. --out\n"
                     "as for czk submit: a directory gets snarkjs proof.json and public.json.\n"
                     "Exit codes:\n"
                     "  0  COMPLETED (the proof is written when --out is given)\n"
                     "  1  FAILED or CANCELLED: the job ended without a proof\n"
                     "  2  error: bad usage, no daemon, a refused call, --out not written\n"
                     "  3  TIMEOUT: no result within T ms; the job goes on, await it again\n"
                     "  4  NOT_FOUND: no such job (never submitted, or its result expired)\n",
                     "to1", '1', argc, argv);
    return done >= 0 ? done : with_client("await", &o, NULL, await_call);
}

static int status_call(czk_grpc_client *c, const char *cmd, const client_opts *o,
                       const req_inputs *w, int *code, czk_err *err) {
    (void)cmd, (void)w, (void)code;
    char *text = NULL;
    int rc = o->metrics ? czk_grpc_client_metrics(c, &text, err)
                        : czk_grpc_client_status_json(c, &text, err);
    if (rc == CZK_OK)
        fputs(text, stdout);
    free(text);
    return rc;
}

int czk_cli_status(int argc, char **argv) {
    client_opts o;
    int done =
        client_start(&o, "status",
                     "usage: czk status [--addr ADDR] [--metrics]\n"
                     "Prints a daemon's status as JSON, the same object as its HTTP GET /status\n"
                     "(doc/API.md §3; a cuzk daemon's GetStatus in protobuf's JSON instead), or\n"
                     "with --metrics its GetMetrics (Prometheus text, as GET /metrics).\n",
                     "M", 0, argc, argv);
    return done >= 0 ? done : with_client("status", &o, NULL, status_call);
}

static int cancel_call(czk_grpc_client *c, const char *cmd, const client_opts *o,
                       const req_inputs *w, int *code, czk_err *err) {
    (void)cmd, (void)w, (void)code;
    int was_running = 0, finished = 0;
    int rc = czk_grpc_client_cancel(c, o->positional, &was_running, &finished, err);
    if (rc == CZK_OK && finished != 0)
        printf("job %s had already finished (%s): nothing to cancel\n", o->positional,
               czk_rpc_status_name(finished));
    else if (rc == CZK_OK)
        printf("job %s cancelled%s\n", o->positional, was_running ? " (was running)" : "");
    return rc;
}

int czk_cli_cancel(int argc, char **argv) {
    client_opts o;
    int done =
        client_start(&o, "cancel",
                     "usage: czk cancel [--addr ADDR] JOB_ID\n"
                     "Cancels a job: queued partitions are dropped, its waiters get CANCELLED.\n",
                     "1", '1', argc, argv);
    return done >= 0 ? done : with_client("cancel", &o, NULL, cancel_call);
}

/* ---- bench: cuzk-bench batch mode over Prove ----------------------------------------- */

typedef struct bench {
    const client_opts *o;
    const req_inputs *w;
    czk_grpc_client *client;
    char prefix[64];
    atomic_ulong next;  /* the next proof index to start; relaxed: only a counter */
    pthread_mutex_t mu; /* guards the fields below and stdout */
    unsigned long done, completed, failed;
    double t0;
    czk_cli_progress prog; /* its own lock; taken inside mu */
    double sum_wall_ms, sum_gpu_ms, sum_queue_ms;
    double *walls_ms; /* each completed proof's wall time, for the median; NULL: none kept */
} bench;

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void *bench_worker(void *arg) {
    bench *b = arg;
    for (;;) {
        unsigned long i = atomic_fetch_add_explicit(&b->next, 1, memory_order_relaxed);
        if (i >= b->o->count)
            return NULL;
        char rid[128];
        snprintf(rid, sizeof rid, "%s-%lu", b->prefix, i);
        client_opts o = *b->o;
        o.request_id = rid;
        o.seed = b->o->seed + i;
        czk_rpc_request req;
        fill_request(&req, &o, b->w);
        czk_rpc_result res;
        czk_err err = {0};
        double t = now_s();
        int rc = czk_grpc_client_prove(b->client, &req, &res, &err);
        double wall_ms = (now_s() - t) * 1e3;
        pthread_mutex_lock(&b->mu);
        czk_cli_progress_lock(&b->prog); /* the proof's line goes above the progress line */
        b->done++;
        int ok = rc == CZK_OK && res.status == 1;
        if (ok) {
            if (b->walls_ms != NULL)
                b->walls_ms[b->completed] = wall_ms;
            b->completed++;
            b->sum_wall_ms += wall_ms;
            b->sum_gpu_ms += (double)res.gpu_compute_ms;
            b->sum_queue_ms += (double)res.queue_wait_ms;
        } else {
            b->failed++;
        }
        if (rc == CZK_OK) {
            printf("proof %lu/%lu %s: %s wall_ms=%.1f gpu_ms=%llu queue_ms=%llu "
                   "synthesis_ms=%llu engine_total_ms=%llu bytes=%zu%s%s\n",
                   b->done, b->o->count, rid, czk_rpc_status_name(res.status), wall_ms,
                   (unsigned long long)res.gpu_compute_ms, (unsigned long long)res.queue_wait_ms,
                   (unsigned long long)res.synthesis_ms, (unsigned long long)res.total_ms,
                   res.proof_len, res.error[0] != '\0' ? " error=" : "", res.error);
        } else {
            printf("proof %lu/%lu %s: ERROR %s\n", b->done, b->o->count, rid,
                   czk_err_text(&err, rc));
        }
        fflush(stdout);
        czk_cli_progress_unlock(&b->prog);
        /* On a terminal only (czk_cli_progress): the count so far, below the proof lines. */
        double el = now_s() - b->t0;
        czk_cli_progress_count(&b->prog, "%lu/%lu proofs done, %lu failed, %.3f s/proof so far",
                               b->done, b->o->count, b->failed,
                               b->completed > 0 ? el / (double)b->completed : 0.0);
        pthread_mutex_unlock(&b->mu);
        czk_rpc_result_clear(&res);
    }
}

int czk_cli_bench(int argc, char **argv) {
    const char *cmd = "bench";
    client_opts o;
    int done = client_start(
        &o, cmd,
        "usage: czk bench [--addr ADDR] -c COUNT -j INFLIGHT REQUEST [--priority P]\n"
        "COUNT proofs through Prove, at most INFLIGHT at once (cuzk-bench batch mode):\n"
        "one line per proof, then throughput as wall time / completed proofs (s/proof) and\n"
        "the median of the proofs' wall times (request sent to proof back). REQUEST as for\n"
        "czk submit: --circuit ID [--partitions P] [--wtns F]... [--seed S], --post\n"
        "PUBLIC.json [--vproof F]... [--partition-index P], --c1 FILE [--miner-id M\n"
        "--sector-id S], or --snap DIR. A synthetic circuit's proof i uses seed S + i. Exit 0 when "
        "all\n"
        "completed.\n",
        "cwpPsCJFviEmnS", 'c', argc, argv);
    if (done >= 0)
        return done;
    req_inputs w;
    if (inputs_read(&w, &o, cmd) != 0)
        return CZK_EXIT_ERROR;
    bench b;
    memset(&b, 0, sizeof b);
    b.o = &o;
    b.w = &w;
    atomic_init(&b.next, 0);
    pthread_mutex_init(&b.mu, NULL);
    /* Request ids unique per run: a re-used id would attach to an old job's result. */
    snprintf(b.prefix, sizeof b.prefix, "bench-%ld-%ld", (long)getpid(), (long)time(NULL));
    czk_err err = {0};
    int rc = czk_grpc_client_create_tls(&b.client, o.addr, &o.tls, &err);
    if (rc != CZK_OK) {
        inputs_clear(&w);
        return czk_cli_fail(cmd, rc, &err);
    }
    unsigned long n = o.inflight < o.count ? o.inflight : o.count;
    pthread_t *threads = calloc(n, sizeof *threads);
    b.walls_ms = calloc(o.count, sizeof *b.walls_ms);
    unsigned long started = 0;
    const char *what = o.circuit != NULL ? o.circuit : o.post != NULL ? o.post : o.c1;
    printf("czk bench: %lu proofs of %s, %lu in flight, against %s\n", o.count, what, n, o.addr);
    fflush(stdout);
    b.t0 = now_s();
    czk_cli_progress_start(&b.prog, cmd, 0);
    czk_cli_progress_count(&b.prog, "0/%lu proofs done", o.count);
    for (; threads != NULL && started < n; started++)
        if (pthread_create(&threads[started], NULL, bench_worker, &b) != 0)
            break;
    if (started == 0)
        bench_worker(&b);
    for (unsigned long i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    czk_cli_progress_end(&b.prog);
    double wall = now_s() - b.t0;
    printf("czk bench: c=%lu j=%lu completed=%lu failed=%lu wall=%.3f s throughput=%.4f "
           "s/proof (%.2f proofs/s)",
           o.count, n, b.completed, b.failed, wall,
           b.completed > 0 ? wall / (double)b.completed : 0.0,
           wall > 0 ? (double)b.completed / wall : 0.0);
    if (b.completed > 0)
        printf(" mean_wall_ms=%.1f mean_gpu_ms=%.1f mean_queue_ms=%.1f",
               b.sum_wall_ms / (double)b.completed, b.sum_gpu_ms / (double)b.completed,
               b.sum_queue_ms / (double)b.completed);
    if (b.completed > 0 && b.walls_ms != NULL) {
        qsort(b.walls_ms, b.completed, sizeof *b.walls_ms, cmp_double);
        size_t m = b.completed / 2;
        printf(" median_wall_ms=%.1f",
               b.completed % 2 != 0 ? b.walls_ms[m] : (b.walls_ms[m - 1] + b.walls_ms[m]) / 2);
    }
    printf("\n");
    free(b.walls_ms);
    free(threads);
    czk_grpc_client_destroy(b.client);
    pthread_mutex_destroy(&b.mu);
    inputs_clear(&w);
    return b.failed == 0 ? CZK_EXIT_OK : CZK_EXIT_INVALID;
}
