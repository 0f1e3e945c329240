/*
 * bench_gpu_porep: one Filecoin PoRep C2 partition on one GPU, from a virtual C1 output, with
 * keys made on the spot.
 *
 *   bench_gpu_porep [--size 2KiB|8MiB|512MiB|32GiB|64GiB] [--runs N] [--threads N] [--seed S]
 *
 * Steps, each timed: the partition circuit recorded whole (filecoin/circuit.h; 130 M rows at
 * 32 GiB); a development key for it (czk_groth16_setup_dev_rep of the recording as one copy,
 * points multiplied by the GPU backend's fixed_base); the key and the circuit attached to the
 * device; a virtual C1 output of a committed-capacity sector (filecoin/testgen/seal.h: real
 * challenges and graph parents, sparse trees) checked as the daemon checks it at submit
 * (czk_porep_c1_check), and partition 0's public inputs derived from its public data. Then
 * --runs proofs (default 3), each with fresh blinding: the witness (czk_porep_witness) into
 * the backend's page-locked buffer, the proof with every heavy step on the device, and its
 * verification. Medians last, with the host's peak resident memory. Exit 0 when every proof
 * verified.
 */
#include "bench_util.h"
#include "field/fr.h"
#include "filecoin/circuit.h"
#include "filecoin/io/c1.h"
#include "filecoin/porep/c1_check.h"
#include "filecoin/porep/porep.h"
#include "filecoin/porep/porep_inputs.h"
#include "filecoin/testgen/seal.h"
#include "gpu/backend.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

#define MAX_RUNS 100

static int fail(const char *what, int rc, const czk_err *err) {
    fprintf(stderr, "bench_gpu_porep: %s: %s\n", what, czk_err_text(err, rc));
    return 1;
}

int main(int argc, char **argv) {
    const char *size = "32GiB";
    int runs = 3;
    unsigned threads = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i += 2) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (v == NULL) {
            fprintf(stderr, "bench_gpu_porep: %s needs a value\n", a);
            return 2;
        }
        if (strcmp(a, "--size") == 0)
            size = v;
        else if (strcmp(a, "--runs") == 0)
            runs = atoi(v);
        else if (strcmp(a, "--threads") == 0)
            threads = (unsigned)atoi(v);
        else if (strcmp(a, "--seed") == 0)
            seed = strtoull(v, NULL, 0);
        else {
            fprintf(stderr, "bench_gpu_porep: unknown option %s (see the top of the source)\n", a);
            return 2;
        }
    }
    int si = czk_vanilla_size_index_by_name(size);
    if (si < 0 || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "bench_gpu_porep: bad --size or --runs\n");
        return 2;
    }
    int rc, exit_code = 1;
    czk_err err = {0};
    czk_porep_shape shape;
    czk_r1cs_rep rep = {0};
    czk_r1cs dims = {0};
    czk_groth16_pk pk = {0};
    czk_groth16_pvk pvk = {0};
    czk_backend *be = NULL;
    czk_backend_key *key = NULL;
    czk_c1 c1 = {0};
    czk_fr *w = NULL, *pub = NULL;
    size_t w_bytes = 0;
    czk_pool *pool = NULL;
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    const czk_porep_type *ty = czk_porep_type_for_size(czk_vanilla_sizes[si], &err);
    if (ty == NULL || (rc = czk_porep_shape_init(&shape, ty->sector_size, &err)) != CZK_OK)
        return fail("shape", CZK_EUNSUPPORTED, &err);
    if ((rc = czk_pool_create(&pool, threads)) != CZK_OK)
        return fail("pool", rc, &err);
    printf("bench_gpu_porep %s: %s, %u threads\n", CZK_GIT_COMMIT, ty->name, czk_pool_ways(pool));

    uint64_t t0 = czk_time_ns();
    if ((rc = czk_circuit_porep_record(&rep.block, NULL, &shape, pool, &err)) != CZK_OK) {
        fail("record", rc, &err);
        goto out;
    }
    rep.copies = 1;
    if ((rc = czk_r1cs_rep_dims(&rep, &dims, &err)) != CZK_OK) {
        fail("dims", rc, &err);
        goto out;
    }
    printf("circuit: %zu rows, %zu variables, %zu public; nnz A/B/C %llu/%llu/%llu; recorded in "
           "%.1f s; host peak %.1f GiB\n",
           dims.n_constraints, dims.n_vars, dims.n_public,
           (unsigned long long)czk_r1cs_rep_nnz(&rep, 0),
           (unsigned long long)czk_r1cs_rep_nnz(&rep, 1),
           (unsigned long long)czk_r1cs_rep_nnz(&rep, 2), bench_secs(t0), bench_peak_rss_gib());
    fflush(stdout);

    if ((rc = czk_gpu_backend_create(&be, 0, NULL, &err)) != CZK_OK) {
        fail("gpu", rc, &err);
        goto out;
    }
    t0 = czk_time_ns();
    if ((rc = czk_groth16_setup_dev_rep(&pk, &rep, CZK_H_MONOMIAL, &rng, be, pool, &err)) !=
        CZK_OK) {
        fail("setup", rc, &err);
        goto out;
    }
    size_t key_bytes = (pk.n_a + pk.n_b_g1 + pk.n_l + pk.n_h) * sizeof(czk_g1_affine) +
                       pk.n_b_g2 * sizeof(czk_g2_affine);
    printf("setup (%s): domain 2^%u, A %zu, B %zu, L %zu, H %zu points, %.1f GiB, in %.1f s; "
           "host peak %.1f GiB\n",
           be->name, czk_groth16_domain_lg(&dims), pk.n_a, pk.n_b_g1, pk.n_l, pk.n_h,
           (double)key_bytes / (1u << 30), bench_secs(t0), bench_peak_rss_gib());
    fflush(stdout);
    if ((rc = czk_groth16_pvk_prepare(&pvk, &pk.vk, &err)) != CZK_OK) {
        fail("vk", rc, &err);
        goto out;
    }
    t0 = czk_time_ns();
    int resident = 0;
    if ((rc = czk_gpu_backend_attach_key(be, &pk, &rep.block, &key, &resident, &err)) != CZK_OK) {
        fail("attach", rc, &err);
        goto out;
    }
    char desc[256];
    czk_gpu_backend_describe_key(be, key, desc, sizeof desc);
    printf("attach: resident %d (%s), %.1f GiB on the device, in %.1f s\n", resident, desc,
           (double)czk_gpu_backend_resident_bytes(be) / (1u << 30), bench_secs(t0));
    if (resident != 2) {
        fprintf(stderr, "bench_gpu_porep: the circuit did not fit on the device\n");
        goto out;
    }
    /* The rows are on the device now: the host keeps the sizes only, in the same struct (the
     * attached key is bound to it: the proofs below pass it). */
    czk_r1cs_clear(&rep.block);
    rep.block = dims;

    uint8_t prover[32], ticket[32], cseed[32];
    czk_vanilla_prover_id(prover, 1000);
    czk_rng_bytes(&rng, ticket, 32);
    czk_rng_bytes(&rng, cseed, 32);
    t0 = czk_time_ns();
    if ((rc = czk_seal_virtual(&c1, ty, prover, 1, ticket, cseed, &rng, &err)) != CZK_OK) {
        fail("virtual C1", rc, &err);
        goto out;
    }
    double t_gen = bench_secs(t0);
    czk_porep_sector_ids ids;
    memcpy(ids.prover_id, prover, 32);
    ids.sector_id = 1;
    t0 = czk_time_ns();
    if ((rc = czk_porep_c1_check(&c1, &ids, "virtual C1", &err)) != CZK_OK) {
        fail("C1 check", rc, &err);
        goto out;
    }
    double t_check = bench_secs(t0);
    pub = malloc(dims.n_public * sizeof *pub);
    if (pub == NULL ||
        (rc = czk_porep_public_inputs(pub, dims.n_public, ty, c1.replica_id, c1.comm_d, c1.comm_r,
                                      c1.seed, 0, &err)) != CZK_OK) {
        fail("public inputs", pub == NULL ? CZK_ENOMEM : rc, &err);
        goto out;
    }
    printf("virtual C1: %u partition(s) x %u challenges made in %.2f s, checked in %.2f s\n",
           c1.n_partitions, c1.n_challenges, t_gen, t_check);
    w_bytes = dims.n_vars * sizeof(czk_fr);
    w = be->host_alloc(be->ctx, w_bytes);
    if (w == NULL) {
        fprintf(stderr, "bench_gpu_porep: no page-locked witness buffer of %zu bytes\n", w_bytes);
        goto out;
    }

    double t_w[MAX_RUNS], t_p[MAX_RUNS], t_v[MAX_RUNS], t_all[MAX_RUNS];
    int ok = 1;
    printf("run,witness_s,prove_s,verify_s,total_s,spmv_ms,h_ms,msm_a_ms,msm_b_g1_ms,msm_b_g2_ms,"
           "msm_l_ms,msm_h_ms\n");
    for (int i = 0; i < runs && ok; i++) {
        czk_fr r, s;
        czk_groth16_proof proof;
        czk_groth16_timings tm = {0};
        czk_fr_random(&r, &rng);
        czk_fr_random(&s, &rng);
        uint64_t a = czk_time_ns();
        rc = czk_porep_witness(&shape, &c1, 0, w, dims.n_public + 1,
                               dims.n_vars - dims.n_public - 1, pool, &err);
        uint64_t b = czk_time_ns();
        if (rc == CZK_OK)
            rc = czk_groth16_prove_ex(&proof, &pk, &rep.block, w, NULL, key, &r, &s, be, pool, &tm,
                                      &err);
        uint64_t c = czk_time_ns();
        if (rc == CZK_OK)
            rc = czk_groth16_verify(&pvk, &proof, pub, dims.n_public, &err);
        uint64_t d = czk_time_ns();
        czk_memclear_explicit(&r, sizeof r);
        czk_memclear_explicit(&s, sizeof s);
        if (rc != CZK_OK) {
            fail("proof", rc, &err);
            ok = 0;
            break;
        }
        t_w[i] = (double)(b - a) / 1e9;
        t_p[i] = (double)(c - b) / 1e9;
        t_v[i] = (double)(d - c) / 1e9;
        t_all[i] = (double)(d - a) / 1e9;
        printf("%d,%.3f,%.3f,%.3f,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f\n", i, t_w[i], t_p[i],
               t_v[i], t_all[i], tm.spmv_ns / 1e6, tm.h_ns / 1e6, tm.msm_a_ns / 1e6,
               tm.msm_b_g1_ns / 1e6, tm.msm_b_g2_ns / 1e6, tm.msm_l_ns / 1e6, tm.msm_h_ns / 1e6);
        fflush(stdout);
    }
    if (ok) {
        printf("median of %d: witness %.3f s, prove %.3f s, verify %.3f s, total %.3f s; key "
               "%.1f GiB; host peak %.1f GiB\n",
               runs, bench_median(t_w, runs), bench_median(t_p, runs), bench_median(t_v, runs),
               bench_median(t_all, runs), (double)key_bytes / (1u << 30), bench_peak_rss_gib());
        exit_code = 0;
    }
out:
    if (be != NULL) {
        czk_gpu_backend_detach_key(be, key);
        if (w != NULL) {
            czk_memclear_explicit(w, w_bytes);
            be->host_free(be->ctx, w, w_bytes);
        }
        czk_gpu_backend_destroy(be);
    }
    czk_c1_clear(&c1);
    free(pub);
    czk_groth16_pvk_clear(&pvk);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_rep_clear(&rep);
    czk_pool_destroy(pool);
    return exit_code;
}
