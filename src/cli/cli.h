/*
 * The czk command's subcommands and the helpers they share. Each subcommand takes the
 * arguments after its name and returns the process exit code: 0 ok, 1 an invalid proof (or a
 * failed check), 2 an error (usage, files, memory).
 *
 * Upstream code cited here was read at filecoin-ffi@de13e648, curio@e0294b0f (2026-08-20).
 */
#ifndef CZK_CLI_CLI_H
#define CZK_CLI_CLI_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "czk.h"
#include "czk_filecoin.h"
#include "field/fr.h"
#include "filecoin/io/curio_post.h"
#include "filecoin/io/params.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/porep/porep.h"
#include "filecoin/post/post.h"
#include "filecoin/snap/snap.h"
#include "groth16/backend.h"
#include "groth16/keys.h"
#include "groth16/verify.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"

#ifndef CZK_VERSION /* CMakeLists.txt sets it from project(czk VERSION ...) */
#define CZK_VERSION "unknown"
#endif

enum { CZK_EXIT_OK = 0, CZK_EXIT_INVALID = 1, CZK_EXIT_ERROR = 2 };

int czk_cli_self_check(int argc, char **argv);
int czk_cli_prove(int argc, char **argv);
int czk_cli_verify(int argc, char **argv);
int czk_cli_setup(int argc, char **argv);
int czk_cli_synth(int argc, char **argv);
int czk_cli_demo(int argc, char **argv);
int czk_cli_timeline(int argc, char **argv);
/* The daemon and its clients (daemon_cmds.c). */
int czk_cli_daemon(int argc, char **argv);
int czk_cli_submit(int argc, char **argv);
int czk_cli_await(int argc, char **argv);
int czk_cli_status(int argc, char **argv);
int czk_cli_cancel(int argc, char **argv);
int czk_cli_bench(int argc, char **argv);
int czk_cli_circuit(int argc, char **argv);
int czk_cli_post(int argc, char **argv);
int czk_cli_c2(int argc, char **argv);
int czk_cli_snap(int argc, char **argv);

/* A SnapDeals request's files (snap.c): DIR/public.json and DIR/vanilla_proofs.json, as `czk
 * snap gen` writes them and `czk snap prove` reads them. */
#define CZK_CLI_SNAP_MAX_PARTS 16
typedef struct czk_cli_snap_inputs {
    uint64_t registered_proof, sector_size, miner_id, sector_number;
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32];
    uint8_t *vproofs[CZK_CLI_SNAP_MAX_PARTS]; /* czk_malloc'ed */
    size_t lens[CZK_CLI_SNAP_MAX_PARTS];
    size_t n;
} czk_cli_snap_inputs;

/* Reads DIR's two files into *in (cleared first; czk_cli_snap_clear frees it). Returns 0, or -1
 * after printing why as `czk CMD: FILE: fault`. */
int czk_cli_snap_read(czk_cli_snap_inputs *in, const char *cmd, const char *dir);
void czk_cli_snap_clear(czk_cli_snap_inputs *in);

/* A Filecoin circuit named on the command line as KIND SIZE (circuit.c). */
typedef struct czk_cli_filecoin {
    const char *kind_name, *size_name; /* canonical spellings, static */
    int porep;                         /* 1: PoRep (porep_shape) */
    int snap;                          /* 1: SnapDeals (snap_shape); both 0: PoSt (shape) */
    czk_post_shape shape;              /* PoSt */
    czk_porep_shape porep_shape;       /* PoRep: one partition */
    czk_snap_shape snap_shape;         /* SnapDeals: one partition */
    czk_params_id id;
    char params_name[CZK_PARAMS_NAME_MAX], vk_name[CZK_PARAMS_NAME_MAX]; /* v28 file names */
} czk_cli_filecoin;

/* Parses KIND (winning-post, window-post, porep, snap) and SIZE (2KiB … 64GiB) for command cmd.
 * Returns 0, or -1 after printing why. */
int czk_cli_filecoin_parse(czk_cli_filecoin *out, const char *cmd, const char *kind,
                           const char *size);

/* mkdir -p dir for command cmd. Returns 0, or -1 after printing why. */
int czk_cli_make_dir(const char *cmd, const char *dir);

/* Options most subcommands share. */
typedef struct czk_cli_common {
    unsigned threads;     /* 0: all online CPUs */
    const char *backend;  /* "auto", "cpu" or "cuda": the engine opens its devices */
    unsigned devices[64]; /* --devices: the CUDA ordinals to use (n_devices 0: all) */
    size_t n_devices;
    uint64_t seed; /* used when have_seed */
    int have_seed;
} czk_cli_common;

/*
 * Parses a shared option at argv[*i] (advancing *i past its value). Returns 1 if it was one,
 * 0 if not, -1 on a bad value (after printing why).
 */
int czk_cli_common_option(czk_cli_common *c, const char *cmd, int argc, char **argv, int *i);

/*
 * A command's options as a table, parsed by one loop (options.c) so that every command spells
 * its errors alike. Each entry names an option, the kind of value it takes and where that goes;
 * the loop fills the destinations in argument order (a later option overrides an earlier one),
 * keeps the positional arguments in order and prints "czk CMD: ..." for what it cannot take.
 */
typedef enum czk_cli_opt_kind {
    CZK_CLI_OPT_FLAG,   /* no value: *(int *)dest = 1 */
    CZK_CLI_OPT_STRING, /* *(const char **)dest = the value (argv's own string) */
    CZK_CLI_OPT_U64,    /* a whole number, no sign: *(unsigned long long *)dest */
    CZK_CLI_OPT_LONG,   /* a whole number in lo..hi (czk_cli_parse_long): *(long *)dest */
    CZK_CLI_OPT_CHOICE, /* one of choices: *(int *)dest = its index ("--x takes a, b or c") */
    CZK_CLI_OPT_LIST,   /* repeatable: ((const char **)dest)[(*n)++] = the value, at most hi */
} czk_cli_opt_kind;

typedef struct czk_cli_opt {
    const char *name;  /* "--out" */
    const char *alias; /* another spelling ("-o"), or NULL */
    czk_cli_opt_kind kind;
    void *dest;
    int *given;  /* set to 1 when the option is given; NULL: not wanted */
    long lo, hi; /* LONG: the range; LIST: hi is the most values ("at most HI --x") */
    const char *const *choices; /* CHOICE: the values, NULL-terminated */
    size_t *n;                  /* LIST: how many values dest holds */
    const char *what; /* STRING: "--out needs WHAT" (NULL: "a value"); U64: "--x takes WHAT,
                       * not 'V'" (NULL: "a whole number") */
} czk_cli_opt;

/* How a command words what it does not take (the scripts and users match these texts). */
typedef enum czk_cli_opts_style {
    /* "unknown option --x" and "too many arguments", each with the usage; only "--x" is an
     * option, "-x" a positional. */
    CZK_CLI_OPTS_UNKNOWN_OPTION,
    /* "bad argument '-x'" with the usage, for an unknown option ("-x", "--x"), a positional
     * past max_pos and an option without its value alike (but for a value whose entry has
     * `what`: "--out needs WHAT"). */
    CZK_CLI_OPTS_BAD_ARGUMENT,
    /* As UNKNOWN_OPTION, but "-x" is an option too (refused if unknown), never a positional. */
    CZK_CLI_OPTS_UNKNOWN_OPTION_DASH,
} czk_cli_opts_style;

/* Who parses: messages start "czk CMD: " and, where the style says so, end with the usage. */
typedef struct czk_cli_opts {
    const char *cmd; /* "c2 gen" */
    const char *usage;
    czk_cli_opts_style style;
} czk_cli_opts;

/* Parses argv[0..argc) by the table opts[0..n_opts), the positionals into pos (room for
 * max_pos; pos may be NULL when max_pos is 0). Returns how many positionals there were, or -1
 * after printing why (an unknown option, a missing or bad value, too many positionals); the
 * destinations of what came before keep their values. */
int czk_cli_opts_parse(const czk_cli_opts *how, const czk_cli_opt *opts, size_t n_opts,
                       const char **pos, int max_pos, int argc, char **argv);

/* The entry count of an array (a table, or the room of a positionals array; not a pointer). */
#define CZK_CLI_OPTS_N(table) (sizeof(table) / sizeof((table)[0]))

/* Parses a whole number in lo..hi for option opt into *out; -1 (after printing why) if not. */
int czk_cli_parse_long(const char *cmd, const char *opt, const char *v, long lo, long hi,
                       long *out);

/* Seeds *rng from --seed, else from the operating system. Returns 0, or -1 after printing why.
 * The seed does not outlive the call. */
int czk_cli_rng(czk_rng *rng, const czk_cli_common *c, const char *cmd);

/* This host's physical memory in bytes; 0 when unknown. */
uint64_t czk_cli_host_memory(void);

/* Creates the pool for c->threads (NULL on failure, after printing why). */
czk_pool *czk_cli_pool(const czk_cli_common *c, const char *cmd);

/* 1 when argv holds --help or -h. */
int czk_cli_wants_help(int argc, char **argv);

/*
 * What every subcommand with the shared options starts with: on --help prints usage to stdout
 * and returns CZK_EXIT_OK; else takes the shared options out of argv (*argc shrinks, the
 * rest keep their order), so the command's own loop sees only its own arguments. Returns -1
 * to go on, or the exit code to return (CZK_EXIT_ERROR after printing why).
 */
int czk_cli_start(czk_cli_common *c, const char *cmd, const char *usage, int *argc, char **argv);

/* The in-process engine's configuration for a one-off proof (`czk prove`, `czk demo`): c's
 * backend and threads, one synthesis thread and one worker per device, since one job runs;
 * with --seed, blinding from the seed (reproducible proofs). */
void czk_cli_engine_config(czk_engine_config *cfg, const czk_cli_common *c);

/* Prints "czk <cmd>: <message>" (czk_err_text) for an error, and with CZK_LOG=debug the status
 * name and where it was raised; returns CZK_EXIT_ERROR. */
int czk_cli_fail(const char *cmd, int rc, const czk_err *err);

/*
 * A progress line on stderr for long commands (setup, prove, bench): "czk CMD: 12.3 s [2/4]
 * STAGE", redrawn in place (\r) while the stage runs, cut to the terminal's width. Only when stderr
 * is a terminal; otherwise every call is a no-op, so piped and logged output holds the final lines
 * only. One thread drives a progress (any thread may call _count, _lock and _unlock).
 */
typedef struct czk_cli_progress {
    const char *cmd;
    int on;          /* shown: stderr is a terminal and _end has not run; guarded by mu */
    int inited;      /* mu and cv exist (set before any other thread sees p) */
    int steps, step; /* stages: "[step/steps]"; 0 steps: no counter */
    uint64_t t0_ns;  /* elapsed time is from here */
    char text[160];  /* the stage or count shown; guarded by mu */
    int drawn;       /* the line is on the screen; guarded by mu */
    int quit;        /* the ticker stops; guarded by mu */
    int thread_started;
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
} czk_cli_progress;

/* Starts the display of `steps` stages (0: a count, no stage counter) for czk `cmd`. */
void czk_cli_progress_start(czk_cli_progress *p, const char *cmd, int steps);
/* Enters the next stage, described by fmt (printf), and shows it. */
void czk_cli_progress_stage(czk_cli_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Shows fmt (printf) in the current stage, as "12/100 proofs". */
void czk_cli_progress_count(czk_cli_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Around other output to a terminal: _lock takes the line off the screen, _unlock (after the
 * output) puts it back below. */
void czk_cli_progress_lock(czk_cli_progress *p);
void czk_cli_progress_unlock(czk_cli_progress *p);
/* Takes the line off the screen for good and stops the display; the final lines follow. */
void czk_cli_progress_end(czk_cli_progress *p);

/*
 * One PoSt partition's inputs as Curio hands them to a prover: its public JSON (the registered
 * proof, randomness, prover, the challenged sectors) and one bincode vanilla proof per
 * challenged sector. `czk post prove` proves them in process; `czk submit --post` and
 * `czk bench --post` send them to a daemon.
 */
typedef struct czk_cli_post_inputs {
    czk_post_public pub;
    czk_vanilla_post_type ty; /* the registered proof's: WinningPoSt or WindowPoSt, the size */
    uint8_t **vproofs;        /* pub.n_sectors of them, each czk_malloc'ed */
    size_t *lens;
} czk_cli_post_inputs;

/*
 * Reads the public JSON at pub_path and the vanilla proofs: the n_files `files` (in
 * ChallengedSectors order), or with none sector-<number>.vproof beside the JSON. Each proof is
 * decoded and must be the sector the JSON names in its place. Returns 0, or -1 after printing
 * why as "czk <cmd>: ..." (the file and the fault); *in is then cleared.
 */
int czk_cli_post_read(czk_cli_post_inputs *in, const char *cmd, const char *pub_path,
                      const char *const *files, int n_files);
void czk_cli_post_inputs_clear(czk_cli_post_inputs *in);

/* Reads the PoRep C1 output at path (filecoin-ffi's JSON, or Curio's wrapper around it) into
 * *buf (czk_malloc'ed, *len bytes) and parses it into *c1. Returns 0, or an exit code after
 * printing why as "czk <cmd>: ...". */
int czk_cli_c1_read(czk_c1 *c1, uint8_t **buf, size_t *len, const char *cmd, const char *path);

/* A Filecoin request proved by an in-process engine and its proof written (`czk c2`, `czk post
 * prove`, `czk snap prove`): what the three share. */
enum { CZK_CLI_INPROC_POREP, CZK_CLI_INPROC_POST, CZK_CLI_INPROC_SNAP };
typedef struct czk_cli_inproc {
    const char *cmd;    /* messages start "czk CMD: " */
    const char *input;  /* the request's file or directory, named when the job fails */
    const char *out;    /* where the proof goes, once it verified */
    const char *params; /* --params, else $FIL_PROOFS_PARAMETER_CACHE, else the default */
    const char *what;   /* the proof in "wrote OUT: N-byte WHAT, verified; ..." */
    int kind;           /* CZK_CLI_INPROC_*: the circuits registered */
} czk_cli_inproc;

/*
 * Creates *e from cfg, registers p's circuits (PoRep and SnapDeals: of sector_size; PoSt: all),
 * loads the key of the circuit, proves the job (n_partitions of the payload), writes its proof
 * to p->out and says so on stdout with the key's load time and the proof's (submit to
 * written). Returns 0, or CZK_EXIT_ERROR after printing why (nothing written). *e stays for
 * the caller to destroy (czk_engine_destroy takes NULL), so that it can still read the engine's
 * status.
 */
int czk_cli_inproc_prove(czk_engine **e, const czk_engine_config *cfg, const czk_cli_inproc *p,
                         uint64_t sector_size, const char *circuit, uint32_t n_partitions,
                         const uint8_t *payload, size_t payload_len, czk_job_result *res);

/*
 * What `czk c2 verify`, `czk post verify` and `czk snap verify` end with (proofs.c): the
 * concatenated 192-byte proofs at proof_path verified against `pub` (czk_filecoin_verify),
 * with the .vk found as the provers find keys (--params DIR, else $FIL_PROOFS_PARAMETER_CACHE,
 * else the default). Returns CZK_EXIT_OK after printing "OK: the proof is valid",
 * CZK_EXIT_INVALID after printing "INVALID: ..." (a partition's proof does not verify, its
 * bytes are no points, or a public value is no field element), or CZK_EXIT_ERROR after
 * printing why (a proof file of the wrong size, no .vk).
 */
int czk_cli_verify_filecoin(const char *cmd, const czk_filecoin_public *pub, const char *params,
                            const char *proof_path);

/* Milliseconds from nanoseconds, for timing lines. */
static inline double czk_cli_ms(uint64_t ns) {
    return (double)ns / 1e6;
}

#endif /* CZK_CLI_CLI_H */
