/*
 * bench_porep_synth: where the engine's synthesis of one PoRep partition goes (issue 19: the
 * engine fed one H200 at 2.3 s per 32 GiB partition while the GPU needs 1.2 s, its synthesis
 * taking 4.1-4.8 s against the 1.3 s witness of bench_gpu_porep).
 *
 *   bench_porep_synth [--size 32GiB] [--runs N] [--seed S] [--threads N]
 *
 * A virtual C1 output (czk_seal_virtual), the partition's sizes from a COUNT pass, then per
 * run, one thread as an engine synthesis thread has: the witness into a fresh buffer
 * (czk_malloc: its pages are faulted in by the writes), the same into a buffer written
 * before (warm), the buffer's first touch alone (a memset of a fresh buffer), and the witness
 * pack the engine builds for a GPU (czk_witness_pack_build into plain memory). Then the
 * witness (fresh and warm) and the pack again over a pool of --threads ways (default: the
 * online CPUs), as the engine runs them on its prover pool when no proof holds it. Medians.
 */
#include "czk.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filecoin/circuit.h"
#include "filecoin/io/c1.h"
#include "filecoin/porep/porep.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/spec/sector.h"
#include "filecoin/testgen/seal.h"
#include "groth16/witness_pack.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/timer.h"

#include "gpu/bench_util.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

#define MAX_RUNS 32

static void *pack_alloc(void *ctx, size_t bytes) {
    (void)ctx;
    return czk_malloc(bytes);
}

static void pack_free(void *ctx, void *p, size_t bytes) {
    (void)ctx, (void)bytes;
    czk_free(p);
}

int main(int argc, char **argv) {
    const char *size = "32GiB";
    int runs = 3;
    uint64_t seed = 1;
    long threads = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--size") == 0)
            size = argv[i + 1];
        else if (strcmp(argv[i], "--runs") == 0)
            runs = atoi(argv[i + 1]);
        else if (strcmp(argv[i], "--seed") == 0)
            seed = strtoull(argv[i + 1], NULL, 10);
        else if (strcmp(argv[i], "--threads") == 0)
            threads = atol(argv[i + 1]);
        else
            argc = 0;
    }
    if (argc == 0 || runs < 1 || runs > MAX_RUNS || threads < 0 || threads > 1024 ||
        (argc > 1 && argc % 2 == 0)) {
        fprintf(stderr, "usage: bench_porep_synth [--size 32GiB] [--runs N] [--seed S] "
                        "[--threads N]\n");
        return 2;
    }
    czk_err err = {0};
    uint64_t sector = 0;
    for (size_t i = 0; i < CZK_VANILLA_N_SIZES; i++)
        if (strcmp(size, czk_vanilla_size_names[i]) == 0)
            sector = czk_vanilla_sizes[i];
    const czk_porep_type *ty = sector ? czk_porep_type_for_size(sector, &err) : NULL;
    czk_porep_shape shape;
    if (ty == NULL || czk_porep_shape_init(&shape, sector, &err) != CZK_OK) {
        fprintf(stderr, "bench_porep_synth: size %s: %s\n", size, err.msg);
        return 2;
    }
    czk_cs_stats st;
    uint64_t t0 = czk_time_ns();
    if (czk_circuit_porep_count(&st, NULL, &shape, &err) != CZK_OK) {
        fprintf(stderr, "bench_porep_synth: count: %s\n", err.msg);
        return 1;
    }
    const size_t n_in = (size_t)st.n_inputs, n_aux = (size_t)st.n_aux, n = n_in + n_aux;
    const size_t bytes = n * sizeof(czk_fr);
    printf("bench_porep_synth %s: %s, %zu variables (%.2f GiB witness), counted in %.1f s\n",
           CZK_GIT_COMMIT, ty->name, n, (double)bytes / (1 << 30), bench_secs(t0));
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    uint8_t prover[32], ticket[32], cseed[32];
    czk_vanilla_prover_id(prover, 1000);
    czk_rng_bytes(&rng, ticket, 32);
    czk_rng_bytes(&rng, cseed, 32);
    czk_c1 c1;
    memset(&c1, 0, sizeof c1);
    if (czk_seal_virtual(&c1, ty, prover, 1, ticket, cseed, &rng, &err) != CZK_OK) {
        fprintf(stderr, "bench_porep_synth: virtual C1: %s\n", err.msg);
        return 1;
    }
    czk_pool *pool = NULL;
    if (czk_pool_create(&pool, (unsigned)threads) != CZK_OK) {
        fprintf(stderr, "bench_porep_synth: cannot start a pool of %ld threads\n", threads);
        czk_c1_clear(&c1);
        return 1;
    }
    double fresh[MAX_RUNS], warm[MAX_RUNS], touch[MAX_RUNS], pack[MAX_RUNS];
    double pfresh[MAX_RUNS], pwarm[MAX_RUNS], ppack[MAX_RUNS];
    size_t pack_bytes = 0, ppack_bytes = 0;
    czk_fr *w = czk_malloc(bytes);
    int rc = w != NULL ? CZK_OK : CZK_ENOMEM;
    if (rc == CZK_OK)
        memset(w, 0, bytes); /* the warm buffer: faulted in once */
    for (int r = 0; r < runs && rc == CZK_OK; r++) {
        t0 = czk_time_ns();
        czk_fr *f = czk_malloc(bytes);
        if (f == NULL) {
            rc = CZK_ENOMEM;
            break;
        }
        rc = czk_porep_witness(&shape, &c1, 0, f, n_in, n_aux, NULL, &err);
        fresh[r] = bench_secs(t0);
        czk_free(f);
        if (rc != CZK_OK)
            break;
        t0 = czk_time_ns();
        rc = czk_porep_witness(&shape, &c1, 0, w, n_in, n_aux, NULL, &err);
        warm[r] = bench_secs(t0);
        t0 = czk_time_ns();
        f = czk_malloc(bytes);
        if (f != NULL)
            memset(f, 0, bytes);
        touch[r] = bench_secs(t0);
        czk_free(f);
        czk_witness_pack wp;
        czk_witness_pack_mem mem;
        memset(&mem, 0, sizeof mem);
        t0 = czk_time_ns();
        if (rc == CZK_OK)
            rc = czk_witness_pack_build(&wp, &mem, w, n, bytes / 4, pack_alloc, pack_free, NULL,
                                        NULL);
        pack[r] = bench_secs(t0);
        pack_bytes = mem.bytes[0] + mem.bytes[1];
        czk_witness_pack_release(&mem, pack_free, NULL);
        /* The same over the pool. */
        if (rc != CZK_OK)
            break;
        t0 = czk_time_ns();
        f = czk_malloc(bytes);
        if (f == NULL) {
            rc = CZK_ENOMEM;
            break;
        }
        rc = czk_porep_witness(&shape, &c1, 0, f, n_in, n_aux, pool, &err);
        pfresh[r] = bench_secs(t0);
        czk_free(f);
        if (rc != CZK_OK)
            break;
        t0 = czk_time_ns();
        rc = czk_porep_witness(&shape, &c1, 0, w, n_in, n_aux, pool, &err);
        pwarm[r] = bench_secs(t0);
        t0 = czk_time_ns();
        if (rc == CZK_OK)
            rc = czk_witness_pack_build(&wp, &mem, w, n, bytes / 4, pack_alloc, pack_free, NULL,
                                        pool);
        ppack[r] = bench_secs(t0);
        ppack_bytes = mem.bytes[0] + mem.bytes[1];
        czk_witness_pack_release(&mem, pack_free, NULL);
    }
    czk_free(w);
    const unsigned ways = czk_pool_ways(pool);
    czk_pool_destroy(pool);
    czk_c1_clear(&c1);
    if (rc != CZK_OK) {
        fprintf(stderr, "bench_porep_synth: %s\n", err.msg[0] ? err.msg : czk_strerror(rc));
        return 1;
    }
    printf("one thread, median of %d: witness into a fresh buffer %.3f s, into a warm one "
           "%.3f s; first touch of a fresh buffer %.3f s; pack %.3f s (%.1f MiB)\n",
           runs, bench_median(fresh, runs), bench_median(warm, runs), bench_median(touch, runs),
           bench_median(pack, runs), (double)pack_bytes / (1 << 20));
    printf("pool of %u ways, median of %d: witness into a fresh buffer %.3f s, into a warm one "
           "%.3f s; pack %.3f s (%.1f MiB)\n",
           ways, runs, bench_median(pfresh, runs), bench_median(pwarm, runs),
           bench_median(ppack, runs), (double)ppack_bytes / (1 << 20));
    printf("speedup over one thread: witness fresh %.2fx, warm %.2fx; pack %.2fx\n",
           bench_median(fresh, runs) / bench_median(pfresh, runs),
           bench_median(warm, runs) / bench_median(pwarm, runs),
           bench_median(pack, runs) / bench_median(ppack, runs));
    return 0;
}
