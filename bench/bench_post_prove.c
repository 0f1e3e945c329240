/*
 * bench_post_prove: Filecoin PoSt end to end through the engine, as the daemon runs it —
 * vanilla bytes in (the request payload), verified 192-byte proof out.
 *
 *   bench_post_prove [--kind winning|window] [--size 2KiB|8MiB|512MiB|32GiB|64GiB]
 *                    [--sectors N] [--runs N] [--keys DIR] [--backend auto|cpu|cuda]
 *                    [--threads N] [--seed S] [--repeated]
 *
 * --repeated registers the circuit in its repeated form (kinds.h: what WindowPoSt 32/64 GiB
 * always are), so that the engine attaches one recorded slot and the GPU expands it.
 * Defaults: WinningPoSt 32 GiB, 7 runs, keys in ./post-keys, backend auto. Development keys
 * are made (recorded circuit, random toxic waste) and written under their v28 names when the
 * directory has none; vanilla proofs come from the generator (filecoin/testgen/vanilla_gen.h),
 * fresh randomness per run so that no run repeats another's witness. The key is loaded before the
 * clock starts. Per run: submit → await wall time, with the engine's split (synthesis = the
 * native witness; prove = the device lock's hold: upload, kernels, G2 MSM) and its verification
 * of the proof; the medians are printed last. Exit 0 when every proof completed (the engine
 * verifies each before returning it), 1 otherwise.
 */
#include "czk.h"
#include "filecoin/circuit.h"
#include "filecoin/io/params.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/testgen/vanilla_gen.h"
#include "formats/bellperson.h"
#include "groth16/setup.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Records the circuit, makes a development key and writes .params/.vk into dir. */
static int make_keys(const char *dir, const czk_post_shape *shape, czk_params_id *id,
                     unsigned threads, uint64_t seed) {
    czk_r1cs cs = {0};
    czk_cs_stats st;
    czk_groth16_pk pk = {0};
    czk_err err = {0};
    czk_pool *pool = NULL;
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    char name[CZK_PARAMS_NAME_MAX], path[4096];
    uint64_t t0 = czk_time_ns();
    int rc = czk_pool_create(&pool, threads);
    if (rc == CZK_OK)
        rc = czk_circuit_post_record(&cs, &st, shape, &err);
    if (rc == CZK_OK)
        rc = czk_groth16_setup_dev(&pk, &cs, CZK_H_MONOMIAL, &rng, pool, &err);
    if (rc == CZK_OK)
        rc = czk_params_file_name(name, sizeof name, id, CZK_PARAMS_EXT_PARAMS, &err);
    if (rc == CZK_OK) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        rc = czk_bellperson_params_write(path, &pk, pool, &err);
    }
    if (rc == CZK_OK)
        rc = czk_params_file_name(name, sizeof name, id, CZK_PARAMS_EXT_VK, &err);
    if (rc == CZK_OK) {
        snprintf(path, sizeof path, "%s/%s", dir, name);
        rc = czk_bellperson_vk_write(path, &pk.vk, &err);
    }
    if (rc != CZK_OK)
        fprintf(stderr, "bench_post_prove: keys: %s\n", czk_err_text(&err, rc));
    else
        printf("keys: %zu constraints, domain 2^%u, made and written in %.1f s\n", cs.n_constraints,
               czk_groth16_domain_lg(&cs), (double)(czk_time_ns() - t0) / 1e9);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_pool_destroy(pool);
    return rc;
}

/* A request payload of n generated sectors (partition 0) for fresh randomness. */
static uint8_t *make_payload(const czk_vanilla_post_type *ty, size_t n, czk_rng *rng, size_t *len) {
    czk_fr r;
    czk_fr_random(&r, rng);
    uint8_t rnd[32];
    czk_fr_to_bytes_le(rnd, &r);
    size_t one = czk_vanilla_sector_encoded_size(ty);
    uint8_t *bytes = malloc(n * one), *p = NULL;
    const uint8_t **bufs = malloc(n * sizeof *bufs);
    size_t *lens = malloc(n * sizeof *lens);
    int ok = bytes != NULL && bufs != NULL && lens != NULL;
    for (size_t i = 0; ok && i < n; i++) {
        czk_vanilla_sector s;
        uint64_t index = ty->kind == CZK_VANILLA_POST_WINNING ? 0 : i;
        ok = czk_vanilla_sector_generate(&s, ty, rnd, 1 + i, index, rng, NULL) == CZK_OK &&
             czk_vanilla_sector_encode(bytes + i * one, one, &lens[i], &s, ty, NULL) == CZK_OK;
        czk_vanilla_sector_clear(&s);
        bufs[i] = bytes + i * one;
    }
    if (ok) {
        *len = czk_kinds_filecoin_payload_size(lens, n);
        p = malloc(*len);
        if (p != NULL &&
            czk_kinds_filecoin_payload_encode(p, ty->abi_id, 0, 1000, rnd, bufs, lens, n) != *len) {
            free(p);
            p = NULL;
        }
    }
    free(bytes);
    free(bufs);
    free(lens);
    return p;
}

int main(int argc, char **argv) {
    const char *kind = "winning", *size = "32GiB", *keys = "post-keys", *backend = "auto";
    int runs = 7, repeated = 0;
    long sectors = -1;
    unsigned threads = 0;
    uint64_t seed = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--repeated") == 0) {
            repeated = 1;
            continue;
        }
        if (v == NULL) {
            fprintf(stderr, "bench_post_prove: %s needs a value\n", a);
            return 2;
        }
        if (strcmp(a, "--kind") == 0)
            kind = v;
        else if (strcmp(a, "--size") == 0)
            size = v;
        else if (strcmp(a, "--keys") == 0)
            keys = v;
        else if (strcmp(a, "--backend") == 0)
            backend = v;
        else if (strcmp(a, "--runs") == 0)
            runs = atoi(v);
        else if (strcmp(a, "--sectors") == 0)
            sectors = atol(v);
        else if (strcmp(a, "--threads") == 0)
            threads = (unsigned)atoi(v);
        else if (strcmp(a, "--seed") == 0)
            seed = strtoull(v, NULL, 0);
        else {
            fprintf(stderr, "bench_post_prove: unknown option %s (see the top of the source)\n", a);
            return 2;
        }
        i++;
    }
    int si = czk_vanilla_size_index_by_name(size);
    int win = strcmp(kind, "winning") == 0;
    if (si < 0 || (!win && strcmp(kind, "window") != 0) || runs < 1 || runs > 1000) {
        fprintf(stderr, "bench_post_prove: bad --kind, --size or --runs\n");
        return 2;
    }
    czk_vanilla_post_type ty;
    czk_post_shape shape;
    czk_params_id pid;
    czk_err err = {0};
    uint64_t reg = win ? (uint64_t)si : 10 + (uint64_t)si;
    if (czk_vanilla_post_type_from_abi(&ty, reg, &err) != CZK_OK ||
        czk_post_shape_init(&shape, ty.kind, ty.shape.sector_size, &err) != CZK_OK ||
        czk_params_id_get(&pid, win ? CZK_PARAMS_WINNING_POST : CZK_PARAMS_WINDOW_POST,
                          ty.shape.sector_size, &err) != CZK_OK) {
        fprintf(stderr, "bench_post_prove: %s\n", err.msg);
        return 2;
    }
    size_t n = win ? 1 : (sectors > 0 ? (size_t)sectors : ty.sector_count);
    if (n > ty.sector_count) {
        fprintf(stderr, "bench_post_prove: at most %u sectors\n", ty.sector_count);
        return 2;
    }
    printf("bench_post_prove %s: %s-post %s, %zu sector(s), registered proof %llu, backend %s\n",
           CZK_GIT_COMMIT, kind, czk_vanilla_size_names[si], n, (unsigned long long)reg, backend);
    char path[4096];
    (void)mkdir(keys, 0777);
    if (czk_params_find(path, sizeof path, &pid, CZK_PARAMS_EXT_PARAMS, keys, NULL, NULL) !=
            CZK_OK &&
        make_keys(keys, &shape, &pid, threads, seed) != CZK_OK)
        return 2;

    czk_engine_config cfg;
    czk_engine_config_default(&cfg);
    cfg.backend = backend;
    cfg.prove_threads = threads;
    cfg.synth_threads = threads;
    cfg.workers_per_device = 1;
    czk_engine *e = NULL;
    char circuit[64];
    uint64_t load_ms = 0;
    int rc = czk_engine_create(&e, &cfg, &err);
    if (rc == CZK_OK)
        rc = czk_kinds_register_filecoin_post(e, (int)ty.kind, ty.shape.sector_size, keys, NULL,
                                              repeated ? CZK_KINDS_POST_REPEATED : 0, &err);
    if (rc == CZK_OK)
        rc = czk_kinds_filecoin_circuit_id(circuit, sizeof circuit, reg, &err);
    if (rc == CZK_OK)
        rc = czk_engine_preload(e, circuit, NULL, &load_ms, &err);
    if (rc != CZK_OK) {
        fprintf(stderr, "bench_post_prove: %s\n", czk_err_text(&err, rc));
        czk_engine_destroy(e);
        return 2;
    }
    printf("key and circuit loaded in %.2f s\n", (double)load_ms / 1e3);
    czk_rng rng;
    czk_rng_seed(&rng, seed + 1);
    double *wall = calloc((size_t)runs, sizeof *wall), *syn = calloc((size_t)runs, sizeof *syn),
           *gpu = calloc((size_t)runs, sizeof *gpu);
    int failed = 0;
    printf("%4s %10s %10s %10s   steps (ms)\n", "run", "wall_ms", "witness_ms", "prove_ms");
    for (int r = 0; r < runs && wall != NULL && syn != NULL && gpu != NULL; r++) {
        size_t len = 0;
        uint8_t *payload = make_payload(&ty, n, &rng, &len);
        if (payload == NULL) {
            fprintf(stderr, "bench_post_prove: cannot make the vanilla proofs\n");
            failed = 1;
            break;
        }
        char id[32], job[CZK_REQUEST_ID_MAX + 1];
        snprintf(id, sizeof id, "run-%d", r);
        czk_job_request req = {.request_id = id,
                               .circuit_id = circuit,
                               .n_partitions = 1,
                               .payload = payload,
                               .payload_len = len};
        czk_job_result res;
        memset(&res, 0, sizeof res);
        uint64_t t0 = czk_time_ns();
        rc = czk_engine_submit(e, &req, job, NULL, NULL, &err);
        if (rc == CZK_OK)
            rc = czk_engine_await(e, job, 0, &res, &err);
        wall[r] = (double)(czk_time_ns() - t0) / 1e6;
        free(payload);
        if (rc != CZK_OK || res.status != CZK_JOB_COMPLETED) {
            fprintf(stderr, "bench_post_prove: run %d: %s\n", r,
                    rc != CZK_OK ? czk_err_text(&err, rc) : res.error);
            failed = 1;
            czk_job_result_clear(&res);
            break;
        }
        syn[r] = (double)res.synthesis_ms;
        gpu[r] = (double)res.gpu_compute_ms;
        const czk_step_times *st = &res.steps;
        printf("%4d %10.1f %10.0f %10.0f   spmv %.0f h %.0f msm a %.0f b1 %.0f b2 %.0f l %.0f "
               "h %.0f verify %.0f\n",
               r, wall[r], syn[r], gpu[r], st->spmv_us / 1e3, st->h_us / 1e3, st->msm_a_us / 1e3,
               st->msm_b_g1_us / 1e3, st->msm_b_g2_us / 1e3, st->msm_l_us / 1e3, st->msm_h_us / 1e3,
               st->verify_us / 1e3);
        czk_job_result_clear(&res);
    }
    if (!failed && wall != NULL) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        printf("median of %d: %.1f ms per verified proof (witness %.0f ms, prove %.0f ms); host "
               "peak %.1f GiB\n",
               runs, median(wall, runs), median(syn, runs), median(gpu, runs),
               (double)ru.ru_maxrss * 1024.0 / (double)(1u << 30));
    }
    free(wall);
    free(syn);
    free(gpu);
    czk_engine_destroy(e);
    return failed;
}
