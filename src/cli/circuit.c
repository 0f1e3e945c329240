/*
 * czk circuit info: a Filecoin circuit's size, densities and R1CS digest from a COUNT pass
 * (doc/FILECOIN.md §5, §8), and the v28 parameter files it proves with (§7). Also the parsing
 * of KIND and SIZE that `czk setup --filecoin` shares.
 */
#include "cli/cli.h"

#include "filecoin/circuit.h"
#include "filecoin/snap/snap.h"
#include "util/timer.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static const char *USAGE =
    "usage: czk circuit info KIND SIZE [--json]\n"
    "\n"
    "Synthesizes a Filecoin circuit without values (COUNT mode) and prints its size: rows,\n"
    "inputs, aux, nonzero entries, densities, its R1CS digest (doc/FILECOIN.md §8) and the v28\n"
    "parameter files it proves with. The 32/64 GiB WindowPoSt, PoRep and snap circuits take a\n"
    "minute or more (the digest hashes every row).\n"
    "\n"
    "  KIND    winning-post, window-post, porep (one partition) or snap (one partition of the\n"
    "          SnapDeals update proof)\n"
    "  SIZE    2KiB, 8MiB, 512MiB, 32GiB or 64GiB\n"
    "  --json  one JSON object: constraints (rows + input rows), inputs (ONE included), aux,\n"
    "          nnz_a (input rows' entries included), nnz_b, nnz_c, a_aux_density,\n"
    "          b_input_density, b_aux_density, digest (hex)\n";

int czk_cli_filecoin_parse(czk_cli_filecoin *out, const char *cmd, const char *kind,
                           const char *size) {
    memset(out, 0, sizeof(*out));
    czk_vanilla_post_kind k = CZK_VANILLA_POST_WINNING;
    czk_params_circuit pc;
    if (strcasecmp(kind, "winning-post") == 0) {
        k = CZK_VANILLA_POST_WINNING;
        pc = CZK_PARAMS_WINNING_POST;
        out->kind_name = "winning-post";
    } else if (strcasecmp(kind, "window-post") == 0) {
        k = CZK_VANILLA_POST_WINDOW;
        pc = CZK_PARAMS_WINDOW_POST;
        out->kind_name = "window-post";
    } else if (strcasecmp(kind, "porep") == 0) {
        pc = CZK_PARAMS_POREP;
        out->kind_name = "porep";
        out->porep = 1;
    } else if (strcasecmp(kind, "snap") == 0) {
        pc = CZK_PARAMS_SNAP;
        out->kind_name = "snap";
        out->snap = 1;
    } else {
        fprintf(stderr,
                "czk %s: unknown circuit kind '%s' (winning-post, window-post, porep or snap)\n",
                cmd, kind);
        return -1;
    }
    int i = czk_vanilla_size_index_by_name(size);
    if (i < 0) {
        fprintf(stderr, "czk %s: unknown sector size '%s' (2KiB, 8MiB, 512MiB, 32GiB or 64GiB)\n",
                cmd, size);
        return -1;
    }
    out->size_name = czk_vanilla_size_names[i];
    czk_err err = {0};
    int rc = out->porep  ? czk_porep_shape_init(&out->porep_shape, czk_vanilla_sizes[i], &err)
             : out->snap ? czk_snap_shape_init(&out->snap_shape, czk_vanilla_sizes[i], &err)
                         : czk_post_shape_init(&out->shape, k, czk_vanilla_sizes[i], &err);
    if (rc == CZK_OK)
        rc = czk_params_id_get(&out->id, pc, czk_vanilla_sizes[i], &err);
    if (rc == CZK_OK)
        rc = czk_params_file_name(out->params_name, sizeof(out->params_name), &out->id,
                                  CZK_PARAMS_EXT_PARAMS, &err);
    if (rc == CZK_OK)
        rc = czk_params_file_name(out->vk_name, sizeof(out->vk_name), &out->id, CZK_PARAMS_EXT_VK,
                                  &err);
    if (rc != CZK_OK) {
        czk_cli_fail(cmd, rc, &err);
        return -1;
    }
    return 0;
}

/* n with thousands separators ("125,279,217") into buf. */
static const char *grouped(char *buf, size_t cap, uint64_t n) {
    char digits[32];
    int len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
    size_t o = 0;
    for (int i = 0; i < len && o + 2 < cap; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            buf[o++] = ',';
        buf[o++] = digits[i];
    }
    buf[o] = '\0';
    return buf;
}

static int circuit_info(int argc, char **argv) {
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    int json = 0;
    const char *pos[2];
    const czk_cli_opt opts[] = {
        {.name = "--json", .kind = CZK_CLI_OPT_FLAG, .dest = &json},
    };
    const czk_cli_opts how = {"circuit", USAGE, CZK_CLI_OPTS_BAD_ARGUMENT};
    int npos = czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), pos, 2, argc, argv);
    if (npos < 0)
        return CZK_EXIT_ERROR;
    if (npos != 2) {
        fprintf(stderr, "czk circuit: info needs KIND and SIZE\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    czk_cli_filecoin fc;
    if (czk_cli_filecoin_parse(&fc, "circuit", pos[0], pos[1]) != 0)
        return CZK_EXIT_ERROR;
    const czk_snap_shape *snap = &fc.snap_shape;
    int is_snap = fc.snap;
    czk_err err = {0};
    czk_cs_stats st;
    uint8_t digest[32];
    uint64_t t0 = czk_time_ns();
    int rc = is_snap    ? czk_circuit_snap_count(&st, digest, snap, &err)
             : fc.porep ? czk_circuit_porep_count(&st, digest, &fc.porep_shape, &err)
                        : czk_circuit_post_count(&st, digest, &fc.shape, &err);
    if (rc != CZK_OK)
        return czk_cli_fail("circuit", rc, &err);
    double secs = (double)(czk_time_ns() - t0) / 1e9;
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    czk_params_expect expect;
    czk_params_lengths len;
    uint64_t params_size, vk_size;
    czk_params_expect_from_stats(&expect, &st);
    if ((rc = czk_params_expected(&len, &params_size, &vk_size, &expect, &err)) != CZK_OK)
        return czk_cli_fail("circuit", rc, &err);
    /* The prover's input rows: one row each, one entry of A each. */
    uint64_t constraints = st.n_rows + st.n_inputs, nnz_a = st.nnz_a + st.n_inputs;
    if (json) {
        printf("{\"constraints\": %llu, \"inputs\": %llu, \"aux\": %llu, \"nnz_a\": %llu, "
               "\"nnz_b\": %llu, \"nnz_c\": %llu, \"a_aux_density\": %llu, "
               "\"b_input_density\": %llu, \"b_aux_density\": %llu, \"digest\": \"%s\"}\n",
               (unsigned long long)constraints, (unsigned long long)st.n_inputs,
               (unsigned long long)st.n_aux, (unsigned long long)nnz_a,
               (unsigned long long)st.nnz_b, (unsigned long long)st.nnz_c,
               (unsigned long long)st.a_aux_density, (unsigned long long)st.b_input_density,
               (unsigned long long)st.b_aux_density, hex);
        return CZK_EXIT_OK;
    }
    char g[6][32];
    unsigned lg = 0;
    while ((1ull << lg) < constraints)
        lg++;
    if (is_snap)
        printf("%s %s: one partition of %u (%u challenge(s)), counted in %.1f s\n", fc.kind_name,
               fc.size_name, snap->partitions, snap->challenges, secs);
    else if (fc.porep)
        printf("%s %s: one partition of %u challenge(s), %u layer(s), counted in %.1f s\n",
               fc.kind_name, fc.size_name, fc.porep_shape.challenges, fc.porep_shape.layers, secs);
    else
        printf("%s %s: %zu slot(s) x %zu challenge(s), counted in %.1f s\n", fc.kind_name,
               fc.size_name, fc.shape.slots, fc.shape.challenges, secs);
    printf("constraints      %s (%s rows + %s input rows), domain 2^%u\n",
           grouped(g[0], 32, constraints), grouped(g[1], 32, st.n_rows),
           grouped(g[2], 32, st.n_inputs), lg);
    printf("inputs           %s (ONE included)\n", grouped(g[0], 32, st.n_inputs));
    printf("aux              %s\n", grouped(g[0], 32, st.n_aux));
    printf("nnz A / B / C    %s / %s / %s (A with the input rows)\n", grouped(g[0], 32, nnz_a),
           grouped(g[1], 32, st.nnz_b), grouped(g[2], 32, st.nnz_c));
    printf("density          a_aux %s, b_input %s, b_aux %s\n", grouped(g[0], 32, st.a_aux_density),
           grouped(g[1], 32, st.b_input_density), grouped(g[2], 32, st.b_aux_density));
    printf("digest           %s\n", hex);
    printf("params           %s (%s bytes)\n", fc.params_name, grouped(g[0], 32, params_size));
    printf("vk               %s (%s bytes)\n", fc.vk_name, grouped(g[0], 32, vk_size));
    return CZK_EXIT_OK;
}

int czk_cli_circuit(int argc, char **argv) {
    if (argc >= 1 && strcmp(argv[0], "info") == 0)
        return circuit_info(argc - 1, argv + 1);
    if (czk_cli_wants_help(argc, argv)) {
        fputs(USAGE, stdout);
        return CZK_EXIT_OK;
    }
    if (argc == 0)
        fprintf(stderr, "czk circuit: which subcommand? (info)\n%s", USAGE);
    else
        fprintf(stderr, "czk circuit: unknown subcommand '%s' (info)\n%s", argv[0], USAGE);
    return CZK_EXIT_ERROR;
}
