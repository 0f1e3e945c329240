/*
 * bench_gpu_prove: the CUDA prover backend's step times. Every proof is compared with the
 * first one made from the same inputs (the CPU's when it runs): a difference fails the run.
 *
 *   bench_gpu_prove [--h] [--h-max-lg N] [--partition K]... [--big]
 *                   [--seed N] [--threads N] [--log FILE]
 *
 *   (no step flag)   the h table and a 2^24 partition (with --big also a 2^27 one)
 *   --h              the h step alone at lg 20 .. N (--h-max-lg, default 27): wall clock,
 *                    copies from pageable memory included, best of 2 after a warm-up
 *   --partition K    a PoRep-shaped partition of 2^K constraints (10..27) with a benchmark
 *                    key (bellperson layout), repeatable. One backend at a time: all memory,
 *                    step by step and then with key and circuit attached (the witness copied
 *                    to pinned memory, then packed), two proofs each; then a 16 GiB limit,
 *                    step by step, attached when the key fits (the key then streamed too,
 *                    as a 16 GB card runs it). The CPU proves it too below 2^25.
 * Rows: the step times of each proof (spmv, h, the five MSMs, total; ms) and under each the
 * backend's plan and peak VRAM. Exit status: 0, 1 on an error or a proof that differs, 77
 * without a CUDA device.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/gpu_test.cuh"
#include "gpu/prover_test.cuh"
#include "groth16/backend.h"
#include "groth16/benchkey.h"
#include "groth16/keys.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"
#include "r1cs/synth.h"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

using namespace czk_gpu_test;

namespace {

/* h at lg 20 .. maxlg on a backend with all memory: wall clock, best of 2 after a warm-up. */
void bench_h(czk_pool *pool, czk_rng *rng, unsigned maxlg) {
    const size_t nmax = (size_t)1 << maxlg;
    czk_backend *be = make_backend(0, 0, 0, "czk_gpu_backend_create");
    czk_fr *v = (czk_fr *)czk_malloc(3 * nmax * sizeof(czk_fr));
    say("\n== h on the GPU (ms, wall clock incl. H2D/D2H from pageable memory, best of 2) ==\n");
    if (be == NULL || v == NULL) {
        fail("h bench inputs", CZK_ENOMEM, NULL);
        goto out;
    }
    fill_fr(pool, v, 3 * nmax, czk_rng_u64(rng), FILL_UNIFORM);
    say("%-4s %10s %10s\n", "lg", "monomial", "odd coset");
    for (unsigned lg = 20; lg <= maxlg; lg++) {
        const size_t n = (size_t)1 << lg;
        double best[2] = {1e30, 1e30};
        for (int basis = 0; basis < 2; basis++) {
            czk_ntt_domain *d = NULL;
            czk_err err = {};
            int rc = czk_ntt_domain_create(
                &d, lg, basis == 0 ? CZK_NTT_ROOT_BELLPERSON : CZK_NTT_ROOT_SNARKJS, &err);
            for (int k = 0; k < 3 && rc == CZK_OK; k++) {
                uint64_t t0 = czk_time_ns();
                rc = be->h(be->ctx, d, basis == 0 ? CZK_H_MONOMIAL : CZK_H_ODD_COSET, v, v + n,
                           v + 2 * n, pool, &err);
                if (k > 0 && ms_since(t0) < best[basis])
                    best[basis] = ms_since(t0);
            }
            if (rc != CZK_OK)
                fail("h bench", rc, &err);
            czk_ntt_domain_destroy(d);
        }
        say("%-4u %10.2f %10.2f\n", lg, best[0], best[1]);
    }
out:
    czk_free(v);
    czk_gpu_backend_destroy(be);
}

/*
 * Two proofs each (first and second) on be with key attached, from the witness as the engine
 * stages it: copied into be's pinned memory (names), then packed there (pnames: the pack
 * crosses the bus instead of the witness).
 */
void prove_staged(czk_backend *be, czk_backend_key *key, const char *label,
                  const czk_groth16_pk *pk, const czk_r1cs *cs, const czk_fr *w, const czk_fr *r,
                  const czk_fr *s, const char *const *names, const char *const *pnames,
                  czk_pool *pool, proof_ref *ref) {
    czk_backend *two[2] = {be, be};
    czk_backend_key *keys[2] = {key, key};
    const size_t wb = cs->n_vars * sizeof(czk_fr);
    czk_fr *pw = (czk_fr *)be->host_alloc(be->ctx, wb);
    czk_witness_pack wp;
    czk_witness_pack_mem pmem;
    if (pw != NULL)
        memcpy(pw, w, wb);
    prove_compare(label, pk, cs, pw != NULL ? pw : w, r, s, gpu_runs{two, keys, names, 2}, 0, 0,
                  pool, ref);
    if (pw != NULL)
        be->host_free(be->ctx, pw, wb);
    if (pack_make(&wp, &pmem, be, w, cs->n_vars) == CZK_OK) {
        say("(witness pack: %zu others of %zu values, %.1f MiB)\n", wp.n_others, wp.n,
            (double)(pmem.bytes[0] + pmem.bytes[1]) / (double)(1u << 20));
        prove_compare(label, pk, cs, w, r, s, gpu_runs{two, keys, pnames, 2}, 0, 0, pool, ref, &wp);
        pack_release(be, &pmem);
    }
}

/* A PoRep-shaped partition of 2^k with a benchmark key: GPU (all memory, 16 GiB), CPU. */
void bench_partition(unsigned k, int with_cpu, czk_pool *pool, czk_rng *rng) {
    czk_r1cs cs;
    czk_groth16_pk pk;
    czk_fr *w = NULL, r, s;
    czk_err err = {};
    uint64_t t0 = czk_time_ns();
    czk_backend *full = NULL, *b16 = NULL;
    czk_backend_key *key = NULL;
    proof_ref ref = {};
    char label[32];
    say("\n== PoRep-shaped partition 2^%u, benchmark key, bellperson layout ==\n", k);
    memset(&cs, 0, sizeof(cs));
    memset(&pk, 0, sizeof(pk));
    snprintf(label, sizeof(label), "2^%u", k);
    int rc = czk_synth_porep_shaped(&cs, &w, k, czk_rng_u64(rng), pool, &err);
    if (rc == CZK_OK) {
        say("(synthesis %.0f ms)\n", ms_since(t0));
        t0 = czk_time_ns();
        rc = czk_groth16_benchkey(&pk, &cs, CZK_H_MONOMIAL, czk_rng_u64(rng), pool, &err);
        say("(benchmark key %.0f ms)\n", ms_since(t0));
    }
    if (rc != CZK_OK) {
        fail("partition inputs", rc, &err);
        goto out;
    }
    czk_fr_random(&r, rng);
    czk_fr_random(&s, rng);
    say_timings_header();
    /* One backend at a time, so that each has the device (and the host its pinned arrays)
     * to itself: all memory step by step, then with key and circuit attached (the "keys
     * resident" figure); then a 16 GiB limit, step by step, and attached when the key fits
     * (a 2^27 key cannot, beside its working set: it streams). */
    {
        czk_backend *two[2];
        const char *n1[2] = {"gpu (1st)", "gpu (2nd)"};
        full = make_backend(0, k, 0, "backend, all memory");
        if (full == NULL)
            goto out;
        two[0] = two[1] = full;
        prove_compare(label, &pk, &cs, w, &r, &s, gpu_runs{two, NULL, n1, 2}, with_cpu, 0, pool,
                      &ref);
    }
    if (attach_key(full, &pk, &cs, &key, "all memory") > 0) {
        const char *n2[2] = {"gpu-res (1st)", "gpu-res (2nd)"},
                   *n2p[2] = {"gpu-res-pack (1st)", "gpu-res-pack (2nd)"};
        prove_staged(full, key, label, &pk, &cs, w, &r, &s, n2, n2p, pool, &ref);
    }
    czk_gpu_backend_detach_key(full, key);
    key = NULL;
    czk_gpu_backend_destroy(full);
    full = NULL;

    b16 = make_backend((size_t)16 << 30, k, 0, "backend with 16 GiB");
    if (b16 == NULL)
        goto out;
    {
        const char *n5[2] = {"gpu-16GiB-str (1st)", "gpu-16GiB-str (2nd)"},
                   *n5p[2] = {"gpu-16GiB-str-pack (1st)", "gpu-16GiB-str-pack (2nd)"};
        prove_one(label, &pk, &cs, w, &r, &s, b16, NULL, "gpu-16GiB", pool, &ref);
        int res16 = attach_key(b16, &pk, &cs, &key, "16 GiB");
        if (res16 > 0 && res16 != 3) {
            prove_one(label, &pk, &cs, w, &r, &s, b16, key, "gpu-16GiB-res", pool, &ref);
            /* The key fits 16 GiB: time the streamed proof too, as a smaller card runs it. */
            czk_gpu_backend_detach_key(b16, key);
            key = NULL;
            czk_gpu_backend_destroy(b16);
            b16 = make_backend((size_t)16 << 30, k, CZK_GPU_PLAN_STREAM_KEYS,
                               "streaming backend with 16 GiB");
            if (b16 == NULL)
                goto out;
            res16 = attach_key(b16, &pk, &cs, &key, "16 GiB, keys streamed");
        }
        if (res16 == 3)
            prove_staged(b16, key, label, &pk, &cs, w, &r, &s, n5, n5p, pool, &ref);
        czk_gpu_backend_detach_key(b16, key);
        key = NULL;
    }
out:
    czk_gpu_backend_destroy(full);
    czk_gpu_backend_destroy(b16);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_free(w);
}

} // namespace

int main(int argc, char **argv) {
    common_flags cf;
    unsigned long long hmax = 27, parts[8];
    unsigned n_parts = 0;
    bool big = false, h = false;
    czk_gpu *gpu = NULL;
    czk_pool *pool = NULL;
    czk_rng rng;
    int rc;

    common_defaults(&cf);
    for (int i = 1; i < argc; i++) {
        const int c = common_flag(argc, argv, &i, &cf);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (strcmp(argv[i], "--h") == 0) {
            h = true;
        } else if (strcmp(argv[i], "--h-max-lg") == 0) {
            if (flag_value(argc, argv, &i, &hmax) != 0)
                return 2;
        } else if (strcmp(argv[i], "--partition") == 0 && n_parts < 8) {
            if (flag_value(argc, argv, &i, &parts[n_parts]) != 0)
                return 2;
            if (parts[n_parts] < 10 || parts[n_parts] > 27) {
                fprintf(stderr, "--partition: K in 10..27\n");
                return 2;
            }
            n_parts++;
        } else if (strcmp(argv[i], "--big") == 0) {
            big = true;
        } else {
            fprintf(stderr, "usage: bench_gpu_prove [--h] [--h-max-lg N] [--partition K]... "
                            "[--big] [--seed N] [--threads N] [--log FILE]\n");
            return 2;
        }
    }
    if (!h && n_parts == 0) {
        h = true;
        parts[n_parts++] = 24;
        if (big)
            parts[n_parts++] = 27;
    }
    if (hmax < 20)
        hmax = 20;
    if (hmax > CZK_GPU_NTT_MAX_LG)
        hmax = CZK_GPU_NTT_MAX_LG;
    /* The backends make their own contexts; this one opens the device and names it. */
    rc = open_device(&gpu, &pool, &cf);
    if (rc != 0) {
        close_device(gpu, pool);
        return rc;
    }
    module("prove");
    say("bench_gpu_prove, commit %s\n", CZK_GIT_COMMIT);
    czk_rng_seed(&rng, cf.seed);
    if (h)
        bench_h(pool, &rng, (unsigned)hmax);
    for (unsigned i = 0; i < n_parts; i++)
        bench_partition((unsigned)parts[i], parts[i] < 25, pool, &rng);
    close_device(gpu, pool);
    return summary("bench_gpu_prove");
}
