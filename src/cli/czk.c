/*
 * czk: the command-line front end. Subcommands live in src/cli/<name>.c; every one takes
 * --help. Exit codes: 0 ok, 1 an invalid proof or a failed check, 2 usage or error.
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

static const struct {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} commands[] = {
    {"prove", czk_cli_prove, "prove with a .zkey (snarkjs) or .params (bellperson)"},
    {"verify", czk_cli_verify, "verify a proof (snarkjs JSON or bellperson .vk + 192 B)"},
    {"setup", czk_cli_setup, "DEVELOPMENT keys for a circuit (.params/.vk or --zkey)"},
    {"circuit", czk_cli_circuit, "a Filecoin circuit's size, densities, digest, v28 files"},
    {"post", czk_cli_post, "Filecoin PoSt: test vanilla proofs; prove and verify from files"},
    {"c2", czk_cli_c2, "Filecoin PoRep C2: prove and verify from a C1 output; test C1 outputs"},
    {"snap", czk_cli_snap, "Filecoin SnapDeals: prove and verify sector updates; test updates"},
    {"synth", czk_cli_synth, "a PoRep-shaped synthetic circuit, witness and keys"},
    {"demo", czk_cli_demo, "synthesize, set up, prove and verify; time every step"},
    {"timeline", czk_cli_timeline, "draw an engine's run from its log as an SVG timeline"},
    {"self-check", czk_cli_self_check, "check the BLS12-381 arithmetic against known answers"},
#ifdef CZK_HAVE_DAEMON /* built with CZK_DAEMON (CMakeLists.txt) */
    {"daemon", czk_cli_daemon, "serve cuzk.v1.ProvingEngine (gRPC) and HTTP /status, /metrics"},
    {"submit", czk_cli_submit, "submit a proof to a daemon (--wait: and await it)"},
    {"await", czk_cli_await, "await a daemon's job and print its result"},
    {"status", czk_cli_status, "a daemon's status (JSON) or metrics"},
    {"cancel", czk_cli_cancel, "cancel a daemon's job"},
    {"bench", czk_cli_bench, "COUNT proofs against a daemon, INFLIGHT at once; s/proof"},
#endif
};

static void usage(FILE *f) {
    fprintf(f, "usage: czk <command> [options]\n\ncommands:\n");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
    fprintf(f, "  %-12s %s\n", "version", "print the version");
    fprintf(f, "\nRun `czk <command> --help` for a command's options. Exit codes: 0 ok,\n"
               "1 invalid proof or failed check, 2 error.\n");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return CZK_EXIT_ERROR;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
        usage(stdout);
        return CZK_EXIT_OK;
    }
    if (strcmp(cmd, "version") == 0 || strcmp(cmd, "--version") == 0) {
        printf("czk %s\n", CZK_VERSION);
        return CZK_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(cmd, commands[i].name) == 0)
            return commands[i].run(argc - 2, argv + 2);
    fprintf(stderr, "czk: unknown command '%s'\n", cmd);
    usage(stderr);
    return CZK_EXIT_ERROR;
}
