/*
 * bench_blst: the same operations as bench_field, timed on blst (supranational/blst, the
 * assembly-tuned library Filecoin's provers use), so that czk and its peer are compared in
 * one run on one machine. Built and run by bench/peer/compare_blst.sh, which takes blst's
 * sources from the npm registry (@chainsafe/blst 0.2.11 bundles them); never part of the
 * czk build or its tests.
 *
 * Output: CSV "op,ops,min_ns,median_ns,max_ns" with the op names bench_field uses.
 */
#include "blst.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static volatile uint64_t sink;
static blst_fp fa, fb;
static blst_fr ra, rb;
static blst_p1 j1a, j1b;
static blst_p1_affine p1a, p1b;
static blst_p2 j2a, j2b;
static blst_p2_affine p2a, p2b;
static byte scalar[32];

static void run_fp_mul(long n) {
    blst_fp x = fa;
    for (long i = 0; i < n; i++)
        blst_fp_mul(&x, &x, &fb);
    sink ^= x.l[0];
}
static void run_fp_sqr(long n) {
    blst_fp x = fa;
    for (long i = 0; i < n; i++)
        blst_fp_sqr(&x, &x);
    sink ^= x.l[0];
}
static void run_fr_mul(long n) {
    blst_fr x = ra;
    for (long i = 0; i < n; i++)
        blst_fr_mul(&x, &x, &rb);
    sink ^= x.l[0];
}
static void run_fp_inv(long n) {
    blst_fp x = fa;
    for (long i = 0; i < n; i++)
        blst_fp_inverse(&x, &x);
    sink ^= x.l[0];
}
static void run_g1_add_jacobian(long n) {
    blst_p1 acc = j1a;
    for (long i = 0; i < n; i++)
        blst_p1_add(&acc, &acc, &j1b);
    sink ^= acc.x.l[0];
}
static void run_g1_add_mixed(long n) {
    blst_p1 acc = j1a;
    for (long i = 0; i < n; i++)
        blst_p1_add_or_double_affine(&acc, &acc, &p1b);
    sink ^= acc.x.l[0];
}
static void run_g1_dbl(long n) {
    blst_p1 acc = j1a;
    for (long i = 0; i < n; i++)
        blst_p1_double(&acc, &acc);
    sink ^= acc.x.l[0];
}
static void run_g2_add_jacobian(long n) {
    blst_p2 acc = j2a;
    for (long i = 0; i < n; i++)
        blst_p2_add(&acc, &acc, &j2b);
    sink ^= acc.x.fp[0].l[0];
}
static void run_g2_add_mixed(long n) {
    blst_p2 acc = j2a;
    for (long i = 0; i < n; i++)
        blst_p2_add_or_double_affine(&acc, &acc, &p2b);
    sink ^= acc.x.fp[0].l[0];
}
static void run_g1_mul_ct(long n) {
    blst_p1 r;
    for (long i = 0; i < n; i++) {
        blst_p1_mult(&r, &j1a, scalar, 255);
        sink ^= r.x.l[0];
    }
}
static void run_g2_mul_ct(long n) {
    blst_p2 r;
    for (long i = 0; i < n; i++) {
        blst_p2_mult(&r, &j2a, scalar, 255);
        sink ^= r.x.fp[0].l[0];
    }
}
static void run_pairing(long n) {
    blst_fp12 f;
    for (long i = 0; i < n; i++) {
        blst_miller_loop(&f, &p2a, &p1a);
        blst_final_exp(&f, &f);
        sink ^= f.fp6[0].fp2[0].fp[0].l[0];
    }
}

static int cmp_double(const void *a, const void *b);

/*
 * G1 MSM of 2^lg random-looking points and scalars with blst's Pippenger (one thread), the
 * peer of `bench_msm g1 LG`. Points are P_i = P_{i-1} + Q, scalars hashes of i.
 */
static int run_msm(unsigned lg, int runs) {
    size_t n = (size_t)1 << lg;
    blst_p1_affine *pts = malloc(n * sizeof(*pts));
    blst_p1 *jac = malloc(n * sizeof(*jac));
    byte *sc = malloc(n * 32);
    void *scratch = malloc(blst_p1s_mult_pippenger_scratch_sizeof(n));
    if (pts == NULL || jac == NULL || sc == NULL || scratch == NULL)
        return 1;
    jac[0] = j1a;
    for (size_t i = 1; i < n; i++)
        blst_p1_add_or_double_affine(&jac[i], &jac[i - 1], &p1b);
    const blst_p1 *jp[2] = {jac, NULL};
    blst_p1s_to_affine(pts, jp, n);
    for (size_t i = 0; i < n; i++) {
        uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ULL;
        for (int b = 0; b < 32; b++) {
            x ^= x >> 29;
            x *= 0xbf58476d1ce4e5b9ULL;
            sc[32 * i + b] = (byte)(x >> 56);
        }
        sc[32 * i + 31] &= 0x3f; /* below r */
    }
    const blst_p1_affine *pp[2] = {pts, NULL};
    const byte *sp[2] = {sc, NULL};
    double t[101];
    for (int r = 0; r < runs; r++) {
        blst_p1 out;
        uint64_t t0 = now_ns();
        blst_p1s_mult_pippenger(&out, pp, n, sp, 255, scratch);
        t[r] = (double)(now_ns() - t0) / 1e6;
        sink ^= out.x.l[0];
    }
    qsort(t, (size_t)runs, sizeof(double), cmp_double);
    printf("msm_g1_%u,%10zu,%12.1f,%12.1f,%12.1f  (ms per MSM, 1 thread)\n", lg, n, t[0],
           t[runs / 2], t[runs - 1]);
    free(pts);
    free(jac);
    free(sc);
    free(scratch);
    return 0;
}

typedef struct {
    const char *name;
    long iters;
    void (*run)(long);
} bench;

static const bench benches[] = {
    {"fp_mul", 2000000, run_fp_mul},
    {"fp_sqr", 2000000, run_fp_sqr},
    {"fr_mul", 4000000, run_fr_mul},
    {"fp_inv", 20000, run_fp_inv},
    {"g1_add_jacobian", 200000, run_g1_add_jacobian},
    {"g1_add_mixed", 200000, run_g1_add_mixed},
    {"g1_dbl", 200000, run_g1_dbl},
    {"g2_add_jacobian", 50000, run_g2_add_jacobian},
    {"g2_add_mixed", 50000, run_g2_add_mixed},
    {"g1_mul_ct", 300, run_g1_mul_ct},
    {"g2_mul_ct", 200, run_g2_mul_ct},
    {"pairing", 50, run_pairing},
};

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    int runs = 7;
    int msm_lg = 0;
    const char *env = getenv("CZK_BENCH_RUNS");
    if (env != NULL && atoi(env) > 0 && atoi(env) <= 101)
        runs = atoi(env);
    /* Inputs: hashes of fixed strings, so that they are valid and fixed between runs. */
    byte msg[48];
    for (int i = 0; i < 48; i++)
        msg[i] = (byte)(i * 7 + 1);
    msg[47] = 0; /* below q */
    blst_scalar s;
    blst_scalar_from_le_bytes(&s, msg, 32);
    blst_lendian_from_scalar(scalar, &s);
    blst_fr_from_scalar(&ra, &s);
    blst_fr_sqr(&rb, &ra);
    blst_fp_from_lendian(&fa, msg);
    blst_fp_sqr(&fb, &fa);
    blst_hash_to_g1(&j1a, msg, 32, (const byte *)"A", 1, NULL, 0);
    blst_hash_to_g1(&j1b, msg, 32, (const byte *)"B", 1, NULL, 0);
    blst_p1_to_affine(&p1a, &j1a);
    blst_p1_to_affine(&p1b, &j1b);
    blst_p1_double(&j1b, &j1b); /* a non-trivial Z for the general add */
    blst_hash_to_g2(&j2a, msg, 32, (const byte *)"A", 1, NULL, 0);
    blst_hash_to_g2(&j2b, msg, 32, (const byte *)"B", 1, NULL, 0);
    blst_p2_to_affine(&p2a, &j2a);
    blst_p2_to_affine(&p2b, &j2b);
    blst_p2_double(&j2b, &j2b);

    if (argc == 3 && strcmp(argv[1], "msm") == 0) {
        msm_lg = atoi(argv[2]);
        if (msm_lg < 1 || msm_lg > 24)
            return 2;
        return run_msm((unsigned)msm_lg, runs > 5 ? 5 : runs);
    }
    printf("# bench_blst (blst from @chainsafe/blst 0.2.11), %d runs per op, median reported\n",
           runs);
    printf("%-20s,%10s,%12s,%12s,%12s\n", "op", "ops", "min_ns", "median_ns", "max_ns");
    for (size_t b = 0; b < sizeof(benches) / sizeof(benches[0]); b++) {
        const bench *bm = &benches[b];
        int take = argc == 1;
        for (int i = 1; i < argc; i++)
            take |= strcmp(argv[i], bm->name) == 0;
        if (!take)
            continue;
        bm->run(bm->iters / 10 + 1);
        double t[101];
        for (int r = 0; r < runs; r++) {
            uint64_t t0 = now_ns();
            bm->run(bm->iters);
            t[r] = (double)(now_ns() - t0) / (double)bm->iters;
        }
        qsort(t, (size_t)runs, sizeof(double), cmp_double);
        printf("%-20s,%10ld,%12.1f,%12.1f,%12.1f\n", bm->name, bm->iters, t[0], t[runs / 2],
               t[runs - 1]);
        fflush(stdout);
    }
    return 0;
}
