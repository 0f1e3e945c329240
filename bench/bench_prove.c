/*
 * bench_prove: the CPU Groth16 prover, step by step, on PoRep-shaped circuits.
 *
 *   bench_prove [--threads N] [--basis monomial|odd-coset] [--key dev|bench|auto] [K...]
 *
 * For each K (default 10 12 14 16) it builds czk_synth_porep_shaped(K) (domain exactly 2^K),
 * a key (dev: czk_groth16_setup_dev, a real key whose proofs verify; bench: the benchmark-only
 * czk_groth16_benchkey, whose proofs do not; auto: dev up to K = 18), proves once to warm up
 * and CZK_BENCH_RUNS times (default 3) timed, and prints one CSV line per K with the median
 * of each step: SpMV, H (NTTs), the five MSMs, the whole proof, and one verification. With a
 * dev key the proof is verified once outside the timed region; a failed check exits
 * non-zero. --threads N runs the prover on a pool of N ways (default: every online CPU;
 * 1 runs inline). Setup time and, for bench keys, key points per second go to '#' lines.
 */
#include "groth16/backend.h"
#include "groth16/benchkey.h"
#include "groth16/keys.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "r1cs/r1cs.h"
#include "r1cs/synth.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

#define MAX_RUNS 64
#define DEV_KEY_MAX_K 18 /* auto: setup_dev above this takes minutes */

static int cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static double median_ms(uint64_t *v, int n) {
    qsort(v, (size_t)n, sizeof(*v), cmp_u64);
    return (n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2) / 1e6;
}

static void usage(void) {
    fprintf(stderr, "usage: bench_prove [--threads N] [--basis monomial|odd-coset] "
                    "[--key dev|bench|auto] [K...]\n");
}

/* Runs one K; returns 0, or 1 when something failed (a message is printed). */
static int bench_k(unsigned k, czk_groth16_h_basis basis, const char *key_mode, czk_pool *pool,
                   unsigned ways, int runs) {
    czk_r1cs cs;
    czk_fr *w = NULL;
    czk_groth16_pk pk;
    czk_err err;
    int fail = 1, dev = 0;
    memset(&cs, 0, sizeof(cs));
    memset(&pk, 0, sizeof(pk));

    uint64_t t0 = czk_time_ns();
    if (czk_synth_porep_shaped(&cs, &w, k, 20261129 + k, pool, &err) != CZK_OK) {
        fprintf(stderr, "bench_prove: k=%u: synth: %s\n", k, err.msg);
        goto out;
    }
    uint64_t t_synth = czk_time_ns() - t0;

    dev = strcmp(key_mode, "dev") == 0 || (strcmp(key_mode, "auto") == 0 && k <= DEV_KEY_MAX_K);
    t0 = czk_time_ns();
    if (dev) {
        czk_rng rng;
        czk_rng_seed(&rng, 7 + k);
        if (czk_groth16_setup_dev(&pk, &cs, basis, &rng, pool, &err) != CZK_OK) {
            fprintf(stderr, "bench_prove: k=%u: setup: %s\n", k, err.msg);
            goto out;
        }
    } else if (czk_groth16_benchkey(&pk, &cs, basis, 7 + k, pool, &err) != CZK_OK) {
        fprintf(stderr, "bench_prove: k=%u: benchkey: %s\n", k, err.msg);
        goto out;
    }
    uint64_t t_key = czk_time_ns() - t0;
    size_t g1 = pk.n_h + pk.n_l + pk.n_a + pk.n_b_g1 + pk.vk.n_ic, g2 = pk.n_b_g2;
    printf("# k=%u: %zu constraints, %zu vars, %zu public; synth %.3f s; %s key %.3f s "
           "(%zu G1 + %zu G2 points, %.3g points/s)\n",
           k, cs.n_constraints, cs.n_vars, cs.n_public, (double)t_synth / 1e9,
           dev ? "dev" : "bench", (double)t_key / 1e9, g1, g2,
           (double)(g1 + g2) / ((double)t_key / 1e9));

    czk_rng rng;
    czk_rng_seed(&rng, 99 + k);
    czk_fr r, s;
    czk_groth16_proof proof;
    czk_groth16_timings tm;
    uint64_t st[9][MAX_RUNS];
    czk_groth16_pvk pvk;
    if (czk_groth16_pvk_prepare(&pvk, &pk.vk, &err) != CZK_OK) {
        fprintf(stderr, "bench_prove: k=%u: pvk: %s\n", k, err.msg);
        goto out;
    }
    for (int run = -1; run < runs; run++) { /* run -1 warms up */
        czk_fr_random(&r, &rng);
        czk_fr_random(&s, &rng);
        if (czk_groth16_prove(&proof, &pk, &cs, w, &r, &s, czk_backend_cpu(), pool, &tm, &err) !=
            CZK_OK) {
            fprintf(stderr, "bench_prove: k=%u: prove: %s\n", k, err.msg);
            czk_groth16_pvk_clear(&pvk);
            goto out;
        }
        t0 = czk_time_ns();
        int vr = czk_groth16_verify(&pvk, &proof, w + 1, cs.n_public, &err);
        uint64_t t_verify = czk_time_ns() - t0;
        if (run < 0) {
            /* The check, outside the timed runs. */
            if (dev && vr != CZK_OK) {
                printf("k=%u, CHECK FAILED: the proof does not verify (%s)\n", k,
                       czk_status_name(vr));
                czk_groth16_pvk_clear(&pvk);
                goto out;
            }
            if (!dev && vr != CZK_EVERIFY) {
                printf("k=%u, CHECK FAILED: a benchmark-key proof %s\n", k,
                       vr == CZK_OK ? "verified" : czk_status_name(vr));
                czk_groth16_pvk_clear(&pvk);
                goto out;
            }
            continue;
        }
        uint64_t v[9] = {tm.spmv_ns,  tm.h_ns,     tm.msm_a_ns, tm.msm_b_g1_ns, tm.msm_b_g2_ns,
                         tm.msm_l_ns, tm.msm_h_ns, tm.total_ns, t_verify};
        for (int i = 0; i < 9; i++)
            st[i][run] = v[i];
    }
    czk_groth16_pvk_clear(&pvk);
    printf("%2u,%9zu,%3u,%-5s,%-9s", k, cs.n_constraints, ways, dev ? "dev" : "bench",
           basis == CZK_H_MONOMIAL ? "monomial" : "odd-coset");
    for (int i = 0; i < 9; i++)
        printf(",%10.3f", median_ms(st[i], runs));
    printf("\n");
    fflush(stdout);
    fail = 0;

out:
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_free(w);
    return fail;
}

int main(int argc, char **argv) {
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    czk_groth16_h_basis basis = CZK_H_MONOMIAL;
    const char *key_mode = "auto";
    unsigned ks[32];
    int nk = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = strtol(argv[++i], NULL, 10);
        } else if (strcmp(argv[i], "--basis") == 0 && i + 1 < argc) {
            i++;
            if (strcmp(argv[i], "monomial") == 0) {
                basis = CZK_H_MONOMIAL;
            } else if (strcmp(argv[i], "odd-coset") == 0) {
                basis = CZK_H_ODD_COSET;
            } else {
                usage();
                return 2;
            }
        } else if (strcmp(argv[i], "--key") == 0 && i + 1 < argc) {
            key_mode = argv[++i];
            if (strcmp(key_mode, "dev") && strcmp(key_mode, "bench") && strcmp(key_mode, "auto")) {
                usage();
                return 2;
            }
        } else {
            char *end;
            long k = strtol(argv[i], &end, 10);
            if (*end != 0 || k < 4 || k > 28 || nk == 32) {
                usage();
                return 2;
            }
            ks[nk++] = (unsigned)k;
        }
    }
    if (nk == 0) {
        unsigned dflt[] = {10, 12, 14, 16};
        memcpy(ks, dflt, sizeof(dflt));
        nk = 4;
    }
    if (threads < 1)
        threads = 1;
    int runs = 3;
    const char *env = getenv("CZK_BENCH_RUNS");
    if (env != NULL && atoi(env) > 0)
        runs = atoi(env) < MAX_RUNS ? atoi(env) : MAX_RUNS;

    czk_pool *pool = NULL;
    if (threads > 1 && czk_pool_create(&pool, (unsigned)threads) != CZK_OK) {
        fprintf(stderr, "bench_prove: cannot create a pool of %ld threads\n", threads);
        return 1;
    }
    printf("# bench_prove commit %s, %ld thread(s), %d timed runs after a warm-up, median ms\n",
           CZK_GIT_COMMIT, threads, runs);
    printf("%2s,%9s,%3s,%-5s,%-9s,%10s,%10s,%10s,%10s,%10s,%10s,%10s,%10s,%10s\n", "k", "rows",
           "thr", "key", "basis", "spmv", "h_ntt", "msm_a", "msm_b_g1", "msm_b_g2", "msm_l",
           "msm_h", "prove", "verify");
    int fail = 0;
    for (int i = 0; i < nk; i++)
        fail |= bench_k(ks[i], basis, key_mode, pool, (unsigned)threads, runs);
    czk_pool_destroy(pool);
    return fail;
}
