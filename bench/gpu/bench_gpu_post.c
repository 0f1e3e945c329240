/*
 * bench_gpu_post: a Filecoin PoSt partition on one GPU from its repeated-block circuit, with
 * keys made on the spot — the path for the circuits too large to record whole (32 and 64 GiB
 * WindowPoSt: 125 M and 130 M rows, 57 GiB of key).
 *
 *   bench_gpu_post [--kind window|winning] [--size 2KiB|8MiB|512MiB|32GiB|64GiB]
 *                  [--runs N] [--threads N] [--seed S] [--cpu-setup] [--check-csr]
 *
 * Steps, each timed: the circuit as one recorded slot and its copy count (filecoin/circuit.h);
 * a development key for it (czk_groth16_setup_dev_rep, points multiplied by the GPU backend's
 * fixed_base unless --cpu-setup); the key's points and the circuit attached to the device
 * (czk_gpu_backend_attach_key_rep: the copies expanded there, never on the host); generated
 * vanilla proofs of every sector of one partition (filecoin/testgen/vanilla_gen.h). Then --runs
 * proofs (default 5), each with fresh blinding: the native witness (czk_post_witness) into the
 * backend's page-locked buffer, the proof (czk_groth16_prove_ex with the circuit's sizes only:
 * every heavy step runs on the device), and its verification against the public inputs the
 * vanilla proofs give. Medians are printed last, with the host's peak resident memory.
 * --check-csr (small sizes only) also records the whole circuit, attaches it the ordinary way
 * and checks that the same r, s give the same proof. Exit 0 when every proof verified.
 */
#include "bench_util.h"
#include "field/fr.h"
#include "filecoin/circuit.h"
#include "filecoin/post/post.h"
#include "filecoin/post/post_inputs.h"
#include "filecoin/spec/sector.h"
#include "filecoin/testgen/vanilla_gen.h"
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

/* The partition's sectors, generated in parallel (one rng per sector, from the seed). */
typedef struct gen_job {
    const czk_vanilla_post_type *ty;
    const uint8_t *rnd;
    czk_vanilla_sector *out;
    uint64_t seed;
    int failed;
} gen_job;

static void gen_body(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    gen_job *j = arg;
    for (size_t i = b; i < e; i++) {
        czk_rng rng;
        czk_rng_seed(&rng, j->seed * 1000003u + i);
        uint64_t index = j->ty->kind == CZK_VANILLA_POST_WINNING ? 0 : i;
        if (czk_vanilla_sector_generate(&j->out[i], j->ty, j->rnd, 1 + i, index, &rng, NULL) !=
            CZK_OK)
            j->failed = 1;
    }
}

static int fail(const char *what, int rc, const czk_err *err) {
    fprintf(stderr, "bench_gpu_post: %s: %s\n", what, czk_err_text(err, rc));
    return 1;
}

int main(int argc, char **argv) {
    const char *kind = "window", *size = "32GiB";
    int runs = 5, cpu_setup = 0, check_csr = 0;
    unsigned threads = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--cpu-setup") == 0) {
            cpu_setup = 1;
            continue;
        }
        if (strcmp(a, "--check-csr") == 0) {
            check_csr = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "bench_gpu_post: %s needs a value\n", a);
            return 2;
        }
        if (strcmp(a, "--kind") == 0)
            kind = v;
        else if (strcmp(a, "--size") == 0)
            size = v;
        else if (strcmp(a, "--runs") == 0)
            runs = atoi(v);
        else if (strcmp(a, "--threads") == 0)
            threads = (unsigned)atoi(v);
        else if (strcmp(a, "--seed") == 0)
            seed = strtoull(v, NULL, 0);
        else {
            fprintf(stderr, "bench_gpu_post: unknown option %s (see the top of the source)\n", a);
            return 2;
        }
        i++;
    }
    int si = czk_vanilla_size_index_by_name(size);
    int win = strcmp(kind, "winning") == 0;
    if (si < 0 || (!win && strcmp(kind, "window") != 0) || runs < 1 || runs > MAX_RUNS) {
        fprintf(stderr, "bench_gpu_post: bad --kind, --size or --runs\n");
        return 2;
    }
    int rc, exit_code = 1;
    czk_err err = {0};
    czk_vanilla_post_type ty;
    czk_post_shape shape;
    czk_r1cs_rep rep = {0};
    czk_r1cs dims = {0}, full = {0};
    czk_groth16_pk pk = {0};
    czk_groth16_pvk pvk = {0};
    czk_backend *be = NULL;
    czk_backend_key *key = NULL, *key_csr = NULL;
    czk_vanilla_sector *sec = NULL;
    czk_fr *w = NULL, *pub = NULL;
    size_t n_sec = 0, w_bytes = 0;
    czk_pool *pool = NULL;
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    uint64_t reg = win ? (uint64_t)si : 10 + (uint64_t)si;
    if ((rc = czk_vanilla_post_type_from_abi(&ty, reg, &err)) != CZK_OK ||
        (rc = czk_post_shape_init(&shape, ty.kind, ty.shape.sector_size, &err)) != CZK_OK)
        return fail("shape", rc, &err);
    if ((rc = czk_pool_create(&pool, threads)) != CZK_OK)
        return fail("pool", rc, &err);
    printf("bench_gpu_post %s: %s-post %s, registered proof %llu, %u threads\n", CZK_GIT_COMMIT,
           kind, czk_vanilla_size_names[si], (unsigned long long)reg, czk_pool_ways(pool));

    uint64_t t0 = czk_time_ns();
    if ((rc = czk_circuit_post_record_rep(&rep, NULL, &shape, &err)) != CZK_OK ||
        (rc = czk_r1cs_rep_dims(&rep, &dims, &err)) != CZK_OK) {
        fail("record", rc, &err);
        goto out;
    }
    printf("circuit: %zu rows (%zu copies of %zu), %zu variables, %zu public; nnz A/B/C "
           "%llu/%llu/%llu; recorded in %.3f s\n",
           dims.n_constraints, rep.copies, rep.block.n_constraints, dims.n_vars, dims.n_public,
           (unsigned long long)czk_r1cs_rep_nnz(&rep, 0),
           (unsigned long long)czk_r1cs_rep_nnz(&rep, 1),
           (unsigned long long)czk_r1cs_rep_nnz(&rep, 2), bench_secs(t0));

    if ((rc = czk_gpu_backend_create(&be, 0, NULL, &err)) != CZK_OK) {
        fail("gpu", rc, &err);
        goto out;
    }
    t0 = czk_time_ns();
    rc = czk_groth16_setup_dev_rep(&pk, &rep, CZK_H_MONOMIAL, &rng, cpu_setup ? NULL : be, pool,
                                   &err);
    if (rc != CZK_OK) {
        fail("setup", rc, &err);
        goto out;
    }
    size_t key_bytes = (pk.n_a + pk.n_b_g1 + pk.n_l + pk.n_h) * sizeof(czk_g1_affine) +
                       pk.n_b_g2 * sizeof(czk_g2_affine);
    printf("setup (%s): domain 2^%u, A %zu, B %zu, L %zu, H %zu points, %.1f GiB, in %.1f s; "
           "host peak %.1f GiB\n",
           cpu_setup ? "cpu" : be->name, czk_groth16_domain_lg(&dims), pk.n_a, pk.n_b_g1, pk.n_l,
           pk.n_h, (double)key_bytes / (1u << 30), bench_secs(t0), bench_peak_rss_gib());
    if ((rc = czk_groth16_pvk_prepare(&pvk, &pk.vk, &err)) != CZK_OK) {
        fail("vk", rc, &err);
        goto out;
    }

    t0 = czk_time_ns();
    int resident = 0;
    rc = czk_gpu_backend_attach_key_rep(be, &pk, &rep, &dims, &key, &resident, &err);
    if (rc != CZK_OK) {
        fail("attach", rc, &err);
        goto out;
    }
    char desc[256];
    czk_gpu_backend_describe_key(be, key, desc, sizeof desc);
    printf("attach: resident %d (%s), %.1f GiB on the device, in %.1f s\n", resident, desc,
           (double)czk_gpu_backend_resident_bytes(be) / (1u << 30), bench_secs(t0));
    if (resident != 2) {
        fprintf(stderr, "bench_gpu_post: the circuit did not fit on the device\n");
        goto out;
    }

    /* One partition's sectors: WinningPoSt one (its 66 challenges), WindowPoSt every slot. */
    n_sec = win ? 1 : shape.slots;
    sec = calloc(n_sec, sizeof *sec);
    uint8_t rnd[32];
    {
        czk_fr r;
        czk_fr_random(&r, &rng);
        czk_fr_to_bytes_le(rnd, &r);
    }
    t0 = czk_time_ns();
    gen_job gj = {&ty, rnd, sec, seed, sec == NULL};
    if (sec != NULL)
        czk_pool_run(pool, n_sec, 1, gen_body, &gj);
    if (gj.failed) {
        fprintf(stderr, "bench_gpu_post: generating %zu sectors failed\n", n_sec);
        goto out;
    }
    printf("vanilla proofs: %zu sector(s) generated in %.1f s\n", n_sec, bench_secs(t0));
    pub = malloc(dims.n_public * sizeof *pub);
    if (pub == NULL || (rc = czk_public_inputs_post_from_vanilla(pub, dims.n_public, &ty, sec,
                                                                 n_sec, &err)) != CZK_OK) {
        fail("public inputs", pub == NULL ? CZK_ENOMEM : rc, &err);
        goto out;
    }
    w_bytes = dims.n_vars * sizeof(czk_fr);
    w = be->host_alloc(be->ctx, w_bytes);
    if (w == NULL) {
        fprintf(stderr, "bench_gpu_post: no page-locked witness buffer of %zu bytes\n", w_bytes);
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
        rc = czk_post_witness(&shape, sec, n_sec, w, dims.n_public + 1,
                              dims.n_vars - dims.n_public - 1, pool, &err);
        uint64_t b = czk_time_ns();
        if (rc == CZK_OK)
            rc =
                czk_groth16_prove_ex(&proof, &pk, &dims, w, NULL, key, &r, &s, be, pool, &tm, &err);
        uint64_t c = czk_time_ns();
        if (rc == CZK_OK)
            rc = czk_groth16_verify(&pvk, &proof, pub, dims.n_public, &err);
        uint64_t d = czk_time_ns();
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
        if (check_csr && i == 0) {
            /* The same proof from the whole recording attached the ordinary way. */
            czk_groth16_proof p2;
            int res2 = 0;
            if ((rc = czk_circuit_post_record(&full, NULL, &shape, &err)) == CZK_OK &&
                (rc = czk_gpu_backend_attach_key(be, &pk, &full, &key_csr, &res2, &err)) == CZK_OK)
                rc = czk_groth16_prove_ex(&p2, &pk, &full, w, NULL, key_csr, &r, &s, be, pool, NULL,
                                          &err);
            if (rc != CZK_OK) {
                fail("check-csr", rc, &err);
                ok = 0;
            } else {
                int same = memcmp(&p2, &proof, sizeof proof) == 0;
                printf("check-csr: whole recording attached (resident %d): proof %s\n", res2,
                       same ? "identical" : "DIFFERS");
                ok = same;
            }
        }
        czk_memclear_explicit(&r, sizeof r);
        czk_memclear_explicit(&s, sizeof s);
    }
    if (ok) {
        printf("median of %d: witness %.3f s, prove %.3f s, verify %.3f s, total %.3f s; host "
               "now %.1f GiB with the key's %.1f GiB (peak %.1f GiB, during the setup)\n",
               runs, bench_median(t_w, runs), bench_median(t_p, runs), bench_median(t_v, runs),
               bench_median(t_all, runs), bench_rss_gib(), (double)key_bytes / (1u << 30),
               bench_peak_rss_gib());
        exit_code = 0;
    }
out:
    if (be != NULL) {
        czk_gpu_backend_detach_key(be, key);
        czk_gpu_backend_detach_key(be, key_csr);
        if (w != NULL) {
            czk_memclear_explicit(w, w_bytes);
            be->host_free(be->ctx, w, w_bytes);
        }
        czk_gpu_backend_destroy(be);
    }
    for (size_t i = 0; sec != NULL && i < n_sec; i++)
        czk_vanilla_sector_clear(&sec[i]);
    free(sec);
    free(pub);
    czk_groth16_pvk_clear(&pvk);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_rep_clear(&rep);
    czk_r1cs_clear(&full);
    czk_pool_destroy(pool);
    return exit_code;
}
