/*
 * bench_gpu_setup: the CUDA backend's fixed_base entry (the generator multiples of a
 * development key, groth16/setup.c) in G1 and G2, points a second.
 *
 *   bench_gpu_setup [--lg N]... [--seed N] [--threads N] [--log FILE]
 *
 *   (no --lg)   2^24 and 2^26 scalars in each group
 *   --lg N      2^N scalars (10..27, repeatable)
 * Uniform scalars from host memory, into a fresh malloc'ed array as the key generator's: the
 * first call pays for the output's first touch (page faults), the second writes the same
 * array again. Each row: wall ms and points a second of both calls, and the device's kernel
 * time (table and chunks, CUDA events) with its rate. 64 random outputs of the last call are
 * compared with the CPU's; a difference fails the run. Exit status: 0, 1 on an error or a
 * difference, 77 without a CUDA device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/setup/fixed_base.cuh"
#include "gpu/gpu_test.cuh"
#include "groth16/backend.h"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

using namespace czk_gpu_test;

namespace {

/* 1 when out[i] is the CPU's [k[i]]G for 64 random i < n (g2: G2), else 0. */
int spot_check(int g2, const czk_fr *k, const void *out, size_t n, czk_rng *rng) {
    for (int s = 0; s < 64; s++) {
        const size_t i = (size_t)(czk_rng_u64(rng) % n);
        if (g2) {
            czk_g2_jacobian g, r;
            czk_g2_affine a;
            czk_g2_jacobian_from_affine(&g, &CZK_G2_GENERATOR);
            czk_g2_jacobian_mul_var(&r, &g, &k[i]);
            czk_g2_jacobian_to_affine(&a, &r);
            if (memcmp(&a, (const czk_g2_affine *)out + i, sizeof(a)) != 0)
                return 0;
        } else {
            czk_g1_jacobian g, r;
            czk_g1_affine a;
            czk_g1_jacobian_from_affine(&g, &CZK_G1_GENERATOR);
            czk_g1_jacobian_mul_var(&r, &g, &k[i]);
            czk_g1_jacobian_to_affine(&a, &r);
            if (memcmp(&a, (const czk_g1_affine *)out + i, sizeof(a)) != 0)
                return 0;
        }
    }
    return 1;
}

void bench_fixed_base(czk_backend *be, czk_pool *pool, czk_rng *rng, const unsigned *lgs,
                      unsigned n_lgs) {
    size_t nmax = 0;
    czk_fr *k = NULL;
    say("\n== fixed_base (wall ms incl. copies from and to pageable memory; Mpt/s) ==\n");
    say("%-5s %-4s %11s %9s %11s %9s %11s %9s\n", "group", "lg", "cold ms", "Mpt/s", "warm ms",
        "Mpt/s", "kernel ms", "Mpt/s");
    for (unsigned i = 0; i < n_lgs; i++)
        nmax = ((size_t)1 << lgs[i]) > nmax ? (size_t)1 << lgs[i] : nmax;
    k = (czk_fr *)czk_malloc(nmax * sizeof(czk_fr));
    if (k == NULL) {
        fail("scalars", CZK_ENOMEM, NULL);
        return;
    }
    fill_fr(pool, k, nmax, czk_rng_u64(rng), FILL_UNIFORM);
    for (int g2 = 0; g2 < 2; g2++) {
        const size_t pt = g2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
        for (unsigned i = 0; i < n_lgs; i++) {
            const size_t n = (size_t)1 << lgs[i];
            double ms[2] = {0, 0}, kern = 0;
            czk__gpu_fixed_base_opts o;
            czk_err err = {};
            int rc = CZK_OK;
            void *out = czk_malloc(n * pt);
            memset(&o, 0, sizeof(o));
            o.gpu_ms = &kern;
            if (out == NULL) {
                fail("output array", CZK_ENOMEM, NULL);
                continue;
            }
            for (int r = 0; r < 2 && rc == CZK_OK; r++) {
                const uint64_t t0 = czk_time_ns();
                rc = czk__gpu_fixed_base_opts_run(be->ctx, g2, k, n, out, &o, pool, &err);
                ms[r] = ms_since(t0);
            }
            if (rc != CZK_OK) {
                fail("fixed_base", rc, &err);
            } else {
                say("%-5s %-4u %11.1f %9.1f %11.1f %9.1f %11.1f %9.1f\n", g2 ? "G2" : "G1", lgs[i],
                    ms[0], (double)n / ms[0] * 1e-3, ms[1], (double)n / ms[1] * 1e-3, kern,
                    (double)n / kern * 1e-3);
                check(spot_check(g2, k, out, n, rng), "G%d 2^%u: 64 random outputs equal the CPU's",
                      g2 + 1, lgs[i]);
            }
            czk_free(out);
        }
    }
    czk_free(k);
}

} // namespace

int main(int argc, char **argv) {
    common_flags cf;
    unsigned lgs[8], n_lgs = 0;
    czk_gpu *gpu = NULL;
    czk_pool *pool = NULL;
    czk_backend *be = NULL;
    czk_err err = {};
    czk_rng rng;
    int rc;

    common_defaults(&cf);
    for (int i = 1; i < argc; i++) {
        unsigned long long v = 0;
        const int c = common_flag(argc, argv, &i, &cf);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (strcmp(argv[i], "--lg") == 0 && n_lgs < 8) {
            if (flag_value(argc, argv, &i, &v) != 0)
                return 2;
            if (v < 10 || v > 27) {
                fprintf(stderr, "--lg: N in 10..27\n");
                return 2;
            }
            lgs[n_lgs++] = (unsigned)v;
        } else {
            fprintf(stderr, "usage: bench_gpu_setup [--lg N]... [--seed N] [--threads N] "
                            "[--log FILE]\n");
            return 2;
        }
    }
    if (n_lgs == 0) {
        lgs[n_lgs++] = 24;
        lgs[n_lgs++] = 26;
    }
    rc = open_device(&gpu, &pool, &cf);
    if (rc != 0) {
        close_device(gpu, pool);
        return rc;
    }
    module("setup");
    say("bench_gpu_setup, commit %s\n", CZK_GIT_COMMIT);
    czk_rng_seed(&rng, cf.seed);
    rc = czk_gpu_backend_create(&be, 0, NULL, &err);
    if (rc != CZK_OK) {
        fail("czk_gpu_backend_create", rc, &err);
    } else {
        bench_fixed_base(be, pool, &rng, lgs, n_lgs);
        czk_gpu_backend_destroy(be);
    }
    close_device(gpu, pool);
    return summary("bench_gpu_setup");
}
