/*
 * bench_post: Fallback PoSt circuits, synthesised by czk's constraint system on one thread.
 *
 *   bench_post [--proof FILE.vproof] [--abi N] [--check]
 *
 * For every PoSt circuit of every sector size it times a COUNT pass (rows, nonzeros, densities:
 * what sizing a key needs). Then it decodes a real vanilla proof (default: Curio's 32 GiB
 * WindowPoSt proof in tests/data/filecoin, registered proof id 8) and times the witness of the
 * full partition circuit built from it (the sector repeated as Filecoin pads a partition), with
 * the value arrays sized from the COUNT pass; --check evaluates every row as well and fails
 * if one is not satisfied. Output is CSV (header lines start with '#').
 */
#include "filecoin/cs.h"
#include "filecoin/post.h"
#include "filecoin/vanilla.h"
#include "util/alloc.h"
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

int main(int argc, char **argv) {
    const char *proof = CZK_SOURCE_DIR "/tests/data/filecoin/post-32g-window.vproof";
    uint64_t abi = 8;
    int check = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--proof") == 0 && i + 1 < argc)
            proof = argv[++i];
        else if (strcmp(argv[i], "--abi") == 0 && i + 1 < argc)
            abi = strtoull(argv[++i], NULL, 10);
        else if (strcmp(argv[i], "--check") == 0)
            check = 1;
        else {
            fprintf(stderr, "usage: bench_post [--proof FILE.vproof] [--abi N] [--check]\n");
            return 2;
        }
    }
    printf("# bench_post commit %s\n# count,circuit,rows,inputs,aux,seconds\n", CZK_GIT_COMMIT);
    static const char *const size_names[] = {"2KiB", "8MiB", "512MiB", "32GiB", "64GiB"};
    static const uint64_t sizes[] = {2048, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    for (int kind = 0; kind < 2; kind++)
        for (size_t z = 0; z < 5; z++) {
            czk_post_shape shape;
            czk_cs_stats st;
            char name[64];
            snprintf(name, sizeof name, "%s-%s", kind == 0 ? "winning" : "window", size_names[z]);
            if (czk_post_shape_init(&shape,
                                    kind == 0 ? CZK_VANILLA_POST_WINNING : CZK_VANILLA_POST_WINDOW,
                                    sizes[z], NULL) != CZK_OK ||
                count_pass(&shape, name, &st) != 0)
                return 1;
        }

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
    czk_cs_stats st;
    if (czk_post_shape_init(&shape, ty.kind, ty.shape.sector_size, &err) != CZK_OK ||
        count_pass(&shape, "this-proof", &st) != 0) {
        czk_vanilla_sector_clear(&sector);
        return 1;
    }
    czk_cs *cs = NULL;
    rc = czk_cs_create(&cs, CZK_CS_WITNESS, check ? CZK_CS_CHECK : 0, &err);
    if (rc == CZK_OK)
        rc = czk_cs_reserve(cs, st.n_inputs, st.n_aux);
    uint64_t t0 = czk_time_ns();
    if (rc == CZK_OK)
        rc = czk_post_synthesize(cs, &shape, &sector, 1);
    double s = seconds_since(t0);
    printf("# witness,slots,challenges,check,seconds\n");
    if (rc != CZK_OK)
        fprintf(stderr, "bench_post: witness: %s\n", cs != NULL ? czk_cs_error(cs)->msg : err.msg);
    else
        printf("witness,%zu,%zu,%d,%.3f\n", shape.slots, shape.challenges, check, s);
    czk_cs_destroy(cs);
    czk_vanilla_sector_clear(&sector);
    return rc == CZK_OK ? 0 : 1;
}
