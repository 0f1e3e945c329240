/*
 * bench_post: the Fallback PoSt witness, and optionally the COUNT passes of every circuit.
 *
 *   bench_post [--proof FILE.vproof] [--abi N] [--threads N] [--runs N] [--slots N]
 *              [--sectors N] [--seq] [--check] [--counts]
 *
 * It decodes a real vanilla proof (default: Curio's 32 GiB WindowPoSt proof in
 * tests/data/filecoin, registered proof id 8) and times czk_post_witness, the witness the
 * prover takes, of the full partition circuit built from it: --slots slots (default: the
 * circuit's, 2,349 for 32 GiB WindowPoSt) over --sectors sectors (default: one per slot, each
 * the decoded sector, so every slot is synthesised as in a full partition; fewer make a
 * partition whose last sector is repeated, and the repeats are copied), on a pool of
 * --threads ways (default 0: every online CPU), into one buffer allocated once. The first run
 * is reported apart ("cold": it also faults the buffer's pages in, which a prover's pinned
 * buffer has done already); then --runs runs (default 5) and their median. --seq also times
 * the sequential path (czk_post_synthesize into a WITNESS-mode system of its own, one thread),
 * --check evaluates every row there (slow). --counts first times a COUNT pass of every PoSt
 * circuit (the 32 and 64 GiB WindowPoSt ones take seconds each). Output is CSV (header lines
 * start with '#').
 */
#include "field/fr.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/post/post.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/pool.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

static double seconds_since(uint64_t t0) {
    return (double)(czk_time_ns() - t0) / 1e9;
}

/* A COUNT pass over `shape`'s circuit; prints its line and returns its stats. */
static int count_pass(const czk_post_shape *shape, const char *name, czk_cs_stats *st) {
    czk_cs *cs = NULL;
    czk_err err = {0};
    if (czk_cs_create(&cs, CZK_CS_COUNT, 0, &err) != CZK_OK) {
        fprintf(stderr, "bench_post: %s\n", err.msg);
        return 1;
    }
    uint64_t t0 = czk_time_ns();
    int rc = czk_post_synthesize(cs, shape, NULL, 0);
    double s = seconds_since(t0);
    if (rc != CZK_OK) {
        fprintf(stderr, "bench_post: %s: %s\n", name, czk_cs_error(cs)->msg);
        czk_cs_destroy(cs);
        return 1;
    }
    czk_cs_get_stats(cs, st);
    czk_cs_destroy(cs);
    printf("count,%s,%llu,%llu,%llu,%.3f\n", name, (unsigned long long)st->n_rows,
           (unsigned long long)st->n_inputs, (unsigned long long)st->n_aux, s);
    return 0;
}

static int count_all(void) {
    printf("# count,circuit,rows,inputs,aux,seconds\n");
    for (int kind = 0; kind < 2; kind++)
        for (size_t z = 0; z < CZK_VANILLA_N_SIZES; z++) {
            czk_post_shape shape;
            czk_cs_stats st;
            char name[64];
            snprintf(name, sizeof name, "%s-%s", kind == 0 ? "winning" : "window",
                     czk_vanilla_size_names[z]);
            if (czk_post_shape_init(&shape,
                                    kind == 0 ? CZK_VANILLA_POST_WINNING : CZK_VANILLA_POST_WINDOW,
                                    czk_vanilla_sizes[z], NULL) != CZK_OK ||
                count_pass(&shape, name, &st) != 0)
                return 1;
        }
    return 0;
}

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    uint8_t *buf = NULL;
    if (fseek(f, 0, SEEK_END) == 0) {
        long n = ftell(f);
        if (n > 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n)) != NULL &&
            fread(buf, 1, (size_t)n, f) != (size_t)n) {
            free(buf);
            buf = NULL;
        }
        *len = n > 0 ? (size_t)n : 0;
    }
    fclose(f);
    return buf;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The sequential path: czk_post_synthesize into a system of its own, sized first. */
static int witness_seq(const czk_post_shape *shape, const czk_vanilla_sector *sectors, size_t n,
                       size_t n_inputs, size_t n_aux, int check) {
    czk_cs *cs = NULL;
    czk_err err = {0};
    int rc = czk_cs_create(&cs, CZK_CS_WITNESS, check ? CZK_CS_CHECK : 0, &err);
    if (rc == CZK_OK)
        rc = czk_cs_reserve(cs, n_inputs, n_aux);
    uint64_t t0 = czk_time_ns();
    if (rc == CZK_OK)
        rc = czk_post_synthesize(cs, shape, sectors, n);
    double s = seconds_since(t0);
    printf("# sequential,slots,sectors,check,seconds,ms_per_slot\n");
    if (rc != CZK_OK)
        fprintf(stderr, "bench_post: sequential witness: %s\n",
                cs != NULL ? czk_cs_error(cs)->msg : err.msg);
    else
        printf("sequential,%zu,%zu,%d,%.3f,%.3f\n", shape->slots, n, check, s,
               1e3 * s / (double)shape->slots);
    czk_cs_destroy(cs);
    return rc;
}

int main(int argc, char **argv) {
    const char *proof = CZK_SOURCE_DIR "/tests/data/filecoin/post-32g-window.vproof";
    uint64_t abi = 8;
    int check = 0, seq = 0, counts = 0;
    long threads = 0, runs = 5, slots = 0, n_sectors = 0;
    int bad = 0;
    for (int i = 1; i < argc && !bad; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(opt, "--seq") == 0)
            seq = 1;
        else if (strcmp(opt, "--check") == 0)
            seq = check = 1;
        else if (strcmp(opt, "--counts") == 0)
            counts = 1;
        else if (val == NULL)
            bad = 1;
        else if (strcmp(opt, "--proof") == 0)
            proof = val, i++;
        else if (strcmp(opt, "--abi") == 0)
            abi = strtoull(val, NULL, 10), i++;
        else if (strcmp(opt, "--threads") == 0)
            threads = strtol(val, NULL, 10), i++;
        else if (strcmp(opt, "--runs") == 0)
            runs = strtol(val, NULL, 10), i++;
        else if (strcmp(opt, "--slots") == 0)
            slots = strtol(val, NULL, 10), i++;
        else if (strcmp(opt, "--sectors") == 0)
            n_sectors = strtol(val, NULL, 10), i++;
        else
            bad = 1;
    }
    if (bad || threads < 0 || threads > 1024 || runs < 1 || runs > 1000 || slots < 0 ||
        n_sectors < 0) {
        fprintf(stderr, "usage: bench_post [--proof FILE.vproof] [--abi N] [--threads N] "
                        "[--runs N] [--slots N] [--sectors N] [--seq] [--check] [--counts]\n");
        return 2;
    }
    printf("# bench_post commit %s, Fr arithmetic %s\n", CZK_GIT_COMMIT,
           czk__fr_uses_adx() ? "MULX/ADX" : "portable");
    if (counts && count_all() != 0)
        return 1;

    czk_vanilla_post_type ty;
    czk_vanilla_sector sector;
    czk_err err = {0};
    size_t len = 0;
    uint8_t *buf = slurp(proof, &len);
    if (buf == NULL) {
        fprintf(stderr, "bench_post: cannot read %s\n", proof);
        return 1;
    }
    int rc = czk_vanilla_post_type_from_abi(&ty, abi, &err);
    if (rc == CZK_OK)
        rc = czk_vanilla_sector_decode(&sector, &ty, buf, len, 0, &err);
    free(buf);
    if (rc != CZK_OK) {
        fprintf(stderr, "bench_post: %s: %s\n", proof, err.msg);
        return 1;
    }
    czk_post_shape shape;
    size_t n_inputs = 0, n_aux = 0;
    rc = czk_post_shape_init(&shape, ty.kind, ty.shape.sector_size, &err);
    if (rc == CZK_OK && slots > 0)
        shape.slots = (size_t)slots;
    /* WinningPoSt takes its one sector's inclusions, one per slot: exactly one sector. */
    size_t n_sec = ty.kind == CZK_VANILLA_POST_WINNING                ? 1
                   : n_sectors > 0 && (size_t)n_sectors < shape.slots ? (size_t)n_sectors
                                                                      : shape.slots;
    if (rc == CZK_OK && ty.kind == CZK_VANILLA_POST_WINNING && sector.n_inclusions != shape.slots)
        rc = czk_err_set(&err, CZK_EINVAL, "a WinningPoSt proof of %zu inclusions for %zu slots",
                         sector.n_inclusions, shape.slots);
    if (rc == CZK_OK)
        rc = czk_post_witness_dims(&shape, &n_inputs, &n_aux, &err);
    /* Shallow copies: every one shares the decoded sector's inclusion proofs. */
    czk_vanilla_sector *sectors = rc == CZK_OK ? malloc(n_sec * sizeof *sectors) : NULL;
    czk_fr *w = rc == CZK_OK ? czk_malloc((n_inputs + n_aux) * sizeof *w) : NULL;
    czk_pool *pool = NULL;
    if (rc == CZK_OK && (sectors == NULL || w == NULL))
        rc = czk_err_set(&err, CZK_ENOMEM, "cannot allocate a witness of %zu values",
                         n_inputs + n_aux);
    if (rc == CZK_OK && czk_pool_create(&pool, (unsigned)threads) != CZK_OK)
        rc = czk_err_set(&err, CZK_ENOMEM, "cannot create a pool of %ld threads", threads);
    if (rc != CZK_OK) {
        fprintf(stderr, "bench_post: %s\n", err.msg);
        free(sectors);
        czk_free(w);
        czk_vanilla_sector_clear(&sector);
        return 1;
    }
    for (size_t i = 0; i < n_sec; i++)
        sectors[i] = sector;
    unsigned ways = czk_pool_ways(pool);
    printf("# witness,slots,sectors,challenges,ways,values,run,seconds\n");
    double *t = calloc((size_t)runs, sizeof *t);
    for (long r = -1; rc == CZK_OK && r < runs; r++) {
        uint64_t t0 = czk_time_ns();
        rc = czk_post_witness(&shape, sectors, n_sec, w, n_inputs, n_aux, pool, &err);
        double s = seconds_since(t0);
        if (rc != CZK_OK)
            break;
        if (r >= 0 && t != NULL)
            t[r] = s;
        char run[24];
        if (r < 0)
            snprintf(run, sizeof run, "cold");
        else
            snprintf(run, sizeof run, "%ld", r);
        printf("witness,%zu,%zu,%zu,%u,%zu,%s,%.3f\n", shape.slots, n_sec, shape.challenges, ways,
               n_inputs + n_aux, run, s);
    }
    if (rc != CZK_OK) {
        fprintf(stderr, "bench_post: witness: %s\n", err.msg);
    } else if (t != NULL) {
        qsort(t, (size_t)runs, sizeof *t, cmp_double);
        double med = runs % 2 ? t[runs / 2] : (t[runs / 2 - 1] + t[runs / 2]) / 2;
        printf("# median,slots,ways,seconds,ms_per_slot_per_way\n");
        printf("median,%zu,%u,%.3f,%.3f\n", shape.slots, ways, med,
               1e3 * med * ways / (double)shape.slots);
    }
    free(t);
    czk_pool_destroy(pool);
    czk_memclear_explicit(w, (n_inputs + n_aux) * sizeof *w);
    czk_free(w);
    if (rc == CZK_OK && seq)
        rc = witness_seq(&shape, sectors, n_sec, n_inputs, n_aux, check);
    free(sectors);
    czk_vanilla_sector_clear(&sector);
    return rc == CZK_OK ? 0 : 1;
}
