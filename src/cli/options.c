/*
 * The options loop every table-driven command shares (cli.h, czk_cli_opts): one place that
 * decides what is an option, what takes a value and how a bad one is reported.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const czk_cli_opt *find(const czk_cli_opt *opts, size_t n_opts, const char *a) {
    for (size_t k = 0; k < n_opts; k++)
        if (strcmp(a, opts[k].name) == 0 ||
            (opts[k].alias != NULL && strcmp(a, opts[k].alias) == 0))
            return &opts[k];
    return NULL;
}

/* 1 when a is spelled as an option, so that an unknown one is refused and not taken for a
 * positional: "--x", and in every style but UNKNOWN_OPTION "-x" as well ("-" alone is a
 * positional, as it names stdin in some commands). */
static int looks_like_option(const czk_cli_opts *how, const char *a) {
    if (how->style != CZK_CLI_OPTS_UNKNOWN_OPTION)
        return a[0] == '-' && a[1] != '\0';
    return a[0] == '-' && a[1] == '-';
}

static int bad_argument(const czk_cli_opts *how, const char *a, int extra) {
    if (how->style == CZK_CLI_OPTS_BAD_ARGUMENT)
        fprintf(stderr, "czk %s: bad argument '%s'\n%s", how->cmd, a, how->usage);
    else if (extra)
        fprintf(stderr, "czk %s: too many arguments\n%s", how->cmd, how->usage);
    else
        fprintf(stderr, "czk %s: unknown option %s\n%s", how->cmd, a, how->usage);
    return -1;
}

/* Stores value v of option o (its name as given: a). Returns 0, or -1 after printing why. */
static int store(const czk_cli_opts *how, const czk_cli_opt *o, const char *a, const char *v) {
    switch (o->kind) {
    case CZK_CLI_OPT_FLAG:
        *(int *)o->dest = 1;
        break;
    case CZK_CLI_OPT_STRING:
        *(const char **)o->dest = v;
        break;
    case CZK_CLI_OPT_U64: {
        /* strtoull takes "-1" as 2^64 - 1: a sign is refused, as an id or count has none; and
         * past 2^64 - 1 it gives that with ERANGE, refused too. */
        char *end = NULL;
        errno = 0;
        unsigned long long x = strtoull(v, &end, 10);
        if (end == v || *end != '\0' || v[0] == '-' || errno != 0) {
            fprintf(stderr, "czk %s: %s takes %s, not '%s'\n", how->cmd, a,
                    o->what != NULL ? o->what : "a whole number", v);
            return -1;
        }
        *(unsigned long long *)o->dest = x;
        break;
    }
    case CZK_CLI_OPT_LONG:
        if (czk_cli_parse_long(how->cmd, a, v, o->lo, o->hi, (long *)o->dest) != 0)
            return -1;
        break;
    case CZK_CLI_OPT_CHOICE: {
        int k = 0;
        while (o->choices[k] != NULL && strcmp(v, o->choices[k]) != 0)
            k++;
        if (o->choices[k] == NULL) {
            /* "--x takes a, b or c, not 'v'" */
            fprintf(stderr, "czk %s: %s takes ", how->cmd, a);
            for (k = 0; o->choices[k] != NULL; k++)
                fprintf(stderr, "%s%s",
                        k == 0                      ? ""
                        : o->choices[k + 1] != NULL ? ", "
                                                    : " or ",
                        o->choices[k]);
            fprintf(stderr, ", not '%s'\n", v);
            return -1;
        }
        *(int *)o->dest = k;
        break;
    }
    case CZK_CLI_OPT_LIST:
        if (*o->n >= (size_t)o->hi) {
            fprintf(stderr, "czk %s: at most %ld %s\n", how->cmd, o->hi, a);
            return -1;
        }
        ((const char **)o->dest)[(*o->n)++] = v;
        break;
    }
    if (o->given != NULL)
        *o->given = 1;
    return 0;
}

int czk_cli_opts_parse(const czk_cli_opts *how, const czk_cli_opt *opts, size_t n_opts,
                       const char **pos, int max_pos, int argc, char **argv) {
    int npos = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        const czk_cli_opt *o = find(opts, n_opts, a);
        if (o == NULL) {
            if (looks_like_option(how, a))
                return bad_argument(how, a, 0);
            if (npos >= max_pos)
                return bad_argument(how, a, 1);
            pos[npos++] = a;
            continue;
        }
        const char *v = NULL;
        if (o->kind != CZK_CLI_OPT_FLAG) {
            if (i + 1 >= argc) {
                const char *what = o->kind == CZK_CLI_OPT_STRING ? o->what : NULL;
                if (what == NULL && how->style == CZK_CLI_OPTS_BAD_ARGUMENT)
                    return bad_argument(how, a, 0);
                fprintf(stderr, "czk %s: %s needs %s\n", how->cmd, a,
                        what != NULL ? what : "a value");
                return -1;
            }
            v = argv[++i];
        }
        if (store(how, o, a, v) != 0)
            return -1;
    }
    return npos;
}
