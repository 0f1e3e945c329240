/*
 * bench_field: ns per operation of the BLS12-381 arithmetic (fields, curves, pairing).
 *
 *   bench_field [NAME...]        run the named benchmarks (default: all)
 *   CZK_BENCH_ITERS=<scale>      multiply every iteration count (default 1)
 *   CZK_BENCH_RUNS=<n>           timed runs per benchmark, median reported (default 7)
 *
 * Output is CSV (header lines start with '#'): op, ops per run, min/median/max ns per op, and
 * where the issue gives one, blst's figure on this kind of machine and our ratio to it. Each
 * benchmark is warmed up first and its result is checked once, outside the timed region,
 * against an independent computation of the same value; a failed check exits non-zero.
 */
#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fp12.h"
#include "field/fr.h"
#include "pairing/pairing.h"
#include "util/rng.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

/* State shared by the benchmark bodies: inputs made once, outside the timed region. */
static struct {
    czk_fp fa, fb;
    czk_fr ra, rb;
    czk_g1_affine p1a, p1b, p1c, p1d;
    czk_g2_affine p2a, p2b;
    czk_g1_jacobian j1a, j1b;
    czk_g1_xyzz x1a, x1b;
    czk_g2_jacobian j2a, j2b;
    czk_fr k;
    czk_fp12 gt;
    int ok;
} S;

static volatile uint64_t sink;

typedef struct {
    const char *name;
    long iters;          /* operations per timed run, before CZK_BENCH_ITERS scaling */
    double blst_ns;      /* blst's figure from the issue, 0 when none */
    void (*run)(long n); /* performs n operations */
    int (*check)(void);  /* 1 when an independent computation agrees */
} bench;

/* ---- fields ---- */

static void run_fp_mul(long n) {
    czk_fp x = S.fa;
    for (long i = 0; i < n; i++)
        czk_fp_mul(&x, &x, &S.fb);
    sink ^= x.l[0];
}
static int check_fp_mul(void) {
    /* fa·fb^5 by the chain equals fa·pow(fb, 5). */
    czk_fp x = S.fa, y;
    for (int i = 0; i < 5; i++)
        czk_fp_mul(&x, &x, &S.fb);
    uint64_t e = 5;
    czk_fp_pow(&y, &S.fb, &e, 1);
    czk_fp_mul(&y, &y, &S.fa);
    return czk_fp_equal(&x, &y);
}

static void run_fp_sqr(long n) {
    czk_fp x = S.fa;
    for (long i = 0; i < n; i++)
        czk_fp_sqr(&x, &x);
    sink ^= x.l[0];
}
static int check_fp_sqr(void) {
    czk_fp x, y;
    czk_fp_sqr(&x, &S.fa);
    czk_fp_mul(&y, &S.fa, &S.fa);
    return czk_fp_equal(&x, &y);
}

static void run_fr_mul(long n) {
    czk_fr x = S.ra;
    for (long i = 0; i < n; i++)
        czk_fr_mul(&x, &x, &S.rb);
    sink ^= x.l[0];
}
static int check_fr_mul(void) {
    czk_fr x = S.ra, y;
    for (int i = 0; i < 5; i++)
        czk_fr_mul(&x, &x, &S.rb);
    uint64_t e = 5;
    czk_fr_pow(&y, &S.rb, &e, 1);
    czk_fr_mul(&y, &y, &S.ra);
    return czk_fr_equal(&x, &y);
}

static void run_fp_inv(long n) {
    czk_fp x = S.fa;
    for (long i = 0; i < n; i++)
        czk_fp_inv(&x, &x);
    sink ^= x.l[0];
}
static void run_fp_inv_var(long n) {
    czk_fp x = S.fa;
    for (long i = 0; i < n; i++)
        czk_fp_inv_var(&x, &x);
    sink ^= x.l[0];
}
static int check_fp_inv(void) {
    czk_fp x, y, one;
    czk_fp_inv(&x, &S.fa);
    czk_fp_inv_var(&y, &S.fa);
    czk_fp_mul(&one, &x, &S.fa);
    return czk_fp_equal(&x, &y) && czk_fp_is_one(&one);
}

/* ---- curves ---- */

static void run_g1_add_jacobian(long n) {
    czk_g1_jacobian acc = S.j1a;
    for (long i = 0; i < n; i++)
        czk_g1_jacobian_add(&acc, &acc, &S.j1b);
    sink ^= acc.x.l[0];
}
static void run_g1_add_xyzz(long n) {
    czk_g1_xyzz acc = S.x1a;
    for (long i = 0; i < n; i++)
        czk_g1_xyzz_add(&acc, &acc, &S.x1b);
    sink ^= acc.x.l[0];
}
static void run_g1_add_mixed(long n) {
    czk_g1_jacobian acc = S.j1a;
    for (long i = 0; i < n; i++)
        czk_g1_jacobian_add_affine(&acc, &acc, &S.p1b);
    sink ^= acc.x.l[0];
}
static void run_g1_add_mixed_xyzz(long n) {
    czk_g1_xyzz acc = S.x1a;
    for (long i = 0; i < n; i++)
        czk_g1_xyzz_add_affine(&acc, &acc, &S.p1b);
    sink ^= acc.x.l[0];
}
static void run_g1_dbl(long n) {
    czk_g1_jacobian acc = S.j1a;
    for (long i = 0; i < n; i++)
        czk_g1_jacobian_dbl(&acc, &acc);
    sink ^= acc.x.l[0];
}
static int check_g1_add(void) {
    /*
     * A + 3B by the general adds (B = j1b) and A + 3C by the mixed adds (C = p1b) must equal
     * A + [3]B and A + [3]C by scalar multiplication.
     */
    czk_g1_jacobian j = S.j1a, m = S.j1a, sj, sm, c;
    czk_g1_xyzz x = S.x1a, xm = S.x1a;
    for (int i = 0; i < 3; i++) {
        czk_g1_jacobian_add(&j, &j, &S.j1b);
        czk_g1_jacobian_add_affine(&m, &m, &S.p1b);
        czk_g1_xyzz_add(&x, &x, &S.x1b);
        czk_g1_xyzz_add_affine(&xm, &xm, &S.p1b);
    }
    czk_fr three;
    czk_fr_set_u64(&three, 3);
    czk_g1_jacobian_mul_var(&sj, &S.j1b, &three);
    czk_g1_jacobian_add(&sj, &sj, &S.j1a);
    czk_g1_jacobian_from_affine(&c, &S.p1b);
    czk_g1_jacobian_mul_var(&sm, &c, &three);
    czk_g1_jacobian_add(&sm, &sm, &S.j1a);
    czk_g1_affine aj, am, ax, axm, asj, asm_;
    czk_g1_jacobian_to_affine(&aj, &j);
    czk_g1_jacobian_to_affine(&am, &m);
    czk_g1_xyzz_to_affine(&ax, &x);
    czk_g1_xyzz_to_affine(&axm, &xm);
    czk_g1_jacobian_to_affine(&asj, &sj);
    czk_g1_jacobian_to_affine(&asm_, &sm);
    return czk_g1_affine_equal(&aj, &asj) && czk_g1_affine_equal(&ax, &asj) &&
           czk_g1_affine_equal(&am, &asm_) && czk_g1_affine_equal(&axm, &asm_);
}

static void run_g2_add_jacobian(long n) {
    czk_g2_jacobian acc = S.j2a;
    for (long i = 0; i < n; i++)
        czk_g2_jacobian_add(&acc, &acc, &S.j2b);
    sink ^= acc.x.c0.l[0];
}
static void run_g2_add_mixed(long n) {
    czk_g2_jacobian acc = S.j2a;
    for (long i = 0; i < n; i++)
        czk_g2_jacobian_add_affine(&acc, &acc, &S.p2b);
    sink ^= acc.x.c0.l[0];
}
static int check_g2_add(void) {
    czk_g2_jacobian j = S.j2a, m = S.j2a, sj, sm, c;
    for (int i = 0; i < 3; i++) {
        czk_g2_jacobian_add(&j, &j, &S.j2b);
        czk_g2_jacobian_add_affine(&m, &m, &S.p2b);
    }
    czk_fr three;
    czk_fr_set_u64(&three, 3);
    czk_g2_jacobian_mul_var(&sj, &S.j2b, &three);
    czk_g2_jacobian_add(&sj, &sj, &S.j2a);
    czk_g2_jacobian_from_affine(&c, &S.p2b);
    czk_g2_jacobian_mul_var(&sm, &c, &three);
    czk_g2_jacobian_add(&sm, &sm, &S.j2a);
    return czk_g2_jacobian_equal(&j, &sj) && czk_g2_jacobian_equal(&m, &sm);
}

static void run_g1_mul_var(long n) {
    czk_g1_jacobian r;
    for (long i = 0; i < n; i++) {
        czk_g1_jacobian_mul_var(&r, &S.j1a, &S.k);
        sink ^= r.x.l[0];
    }
}
static void run_g1_mul(long n) {
    czk_g1_jacobian r;
    for (long i = 0; i < n; i++) {
        czk_g1_jacobian_mul(&r, &S.j1a, &S.k);
        sink ^= r.x.l[0];
    }
}
static int check_g1_mul(void) {
    czk_g1_jacobian a, b;
    czk_g1_jacobian_mul_var(&a, &S.j1a, &S.k);
    czk_g1_jacobian_mul(&b, &S.j1a, &S.k);
    return czk_g1_jacobian_equal(&a, &b) && !czk_g1_jacobian_is_infinity(&a);
}
static void run_g2_mul_var(long n) {
    czk_g2_jacobian r;
    for (long i = 0; i < n; i++) {
        czk_g2_jacobian_mul_var(&r, &S.j2a, &S.k);
        sink ^= r.x.c0.l[0];
    }
}
static int check_g2_mul(void) {
    czk_g2_jacobian a, b;
    czk_g2_jacobian_mul_var(&a, &S.j2a, &S.k);
    czk_g2_jacobian_mul(&b, &S.j2a, &S.k);
    return czk_g2_jacobian_equal(&a, &b) && !czk_g2_jacobian_is_infinity(&a);
}

/* ---- pairing ---- */

static void run_pairing(long n) {
    czk_fp12 f;
    for (long i = 0; i < n; i++) {
        czk_pairing(&f, &S.p1a, &S.p2a);
        sink ^= f.c0.c0.c0.l[0];
    }
}
static int check_pairing(void) {
    /* Bilinearity: e([k]P, Q) = e(P, [k]Q). */
    czk_g1_jacobian kp;
    czk_g2_jacobian kq;
    czk_g1_affine akp;
    czk_g2_affine akq;
    czk_fp12 l, r;
    czk_g1_jacobian_from_affine(&kp, &S.p1a);
    czk_g1_jacobian_mul_var(&kp, &kp, &S.k);
    czk_g1_jacobian_to_affine(&akp, &kp);
    czk_g2_jacobian_from_affine(&kq, &S.p2a);
    czk_g2_jacobian_mul_var(&kq, &kq, &S.k);
    czk_g2_jacobian_to_affine(&akq, &kq);
    czk_pairing(&l, &akp, &S.p2a);
    czk_pairing(&r, &S.p1a, &akq);
    return czk_fp12_equal(&l, &r) && !czk_fp12_is_one(&l);
}

/* Three pairs whose product is 1: e(P, Q)·e(R, Q)·e(−(P+R), Q). */
static czk_g1_affine prod_ps[3];
static czk_pairing_g2_prepared prod_qs[3];

static void run_pairing_product3(long n) {
    for (long i = 0; i < n; i++)
        sink ^= (uint64_t)czk_pairing_check(prod_ps, prod_qs, 3);
}
static int check_pairing_product3(void) {
    if (!czk_pairing_check(prod_ps, prod_qs, 3))
        return 0;
    czk_g1_affine bad[3] = {prod_ps[0], prod_ps[1], prod_ps[0]};
    return !czk_pairing_check(bad, prod_qs, 3);
}

static const bench benches[] = {
    {"fp_mul", 2000000, 51, run_fp_mul, check_fp_mul},
    {"fp_sqr", 2000000, 0, run_fp_sqr, check_fp_sqr},
    {"fr_mul", 4000000, 29, run_fr_mul, check_fr_mul},
    {"fp_inv", 2000, 0, run_fp_inv, check_fp_inv},
    {"fp_inv_var", 20000, 0, run_fp_inv_var, check_fp_inv},
    {"g1_add_jacobian", 200000, 0, run_g1_add_jacobian, check_g1_add},
    {"g1_add_xyzz", 200000, 0, run_g1_add_xyzz, check_g1_add},
    {"g1_add_mixed", 200000, 710, run_g1_add_mixed, check_g1_add},
    {"g1_add_mixed_xyzz", 200000, 0, run_g1_add_mixed_xyzz, check_g1_add},
    {"g1_dbl", 200000, 0, run_g1_dbl, check_g1_add},
    {"g2_add_jacobian", 50000, 0, run_g2_add_jacobian, check_g2_add},
    {"g2_add_mixed", 50000, 1800, run_g2_add_mixed, check_g2_add},
    {"g1_mul_var", 500, 0, run_g1_mul_var, check_g1_mul},
    {"g1_mul_ct", 300, 0, run_g1_mul, check_g1_mul},
    {"g2_mul_var", 200, 0, run_g2_mul_var, check_g2_mul},
    {"pairing", 50, 710000, run_pairing, check_pairing},
    {"pairing_product3", 30, 0, run_pairing_product3, check_pairing_product3},
};
#define NBENCH (sizeof(benches) / sizeof(benches[0]))

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void setup(void) {
    czk_rng rng;
    czk_rng_seed(&rng, 20261129);
    czk_fp_random(&S.fa, &rng);
    czk_fp_random(&S.fb, &rng);
    czk_fr_random(&S.ra, &rng);
    czk_fr_random(&S.rb, &rng);
    czk_fr_random(&S.k, &rng);
    czk_g1_random(&S.p1a, &rng);
    czk_g1_random(&S.p1b, &rng);
    czk_g1_random(&S.p1c, &rng);
    czk_g2_random(&S.p2a, &rng);
    czk_g2_random(&S.p2b, &rng);
    czk_g1_jacobian_from_affine(&S.j1a, &S.p1a);
    /* Make the second operand's Z non-trivial so that the general add is measured. */
    czk_g1_jacobian_from_affine(&S.j1b, &S.p1c);
    czk_g1_jacobian_dbl(&S.j1b, &S.j1b);
    czk_g1_xyzz_from_affine(&S.x1a, &S.p1a);
    czk_g1_xyzz_from_affine(&S.x1b, &S.p1c);
    czk_g1_xyzz_dbl(&S.x1b, &S.x1b);
    czk_g2_jacobian_from_affine(&S.j2a, &S.p2a);
    czk_g2_jacobian_from_affine(&S.j2b, &S.p2b);
    czk_g2_jacobian_dbl(&S.j2b, &S.j2b);

    czk_g1_jacobian sum;
    czk_g1_jacobian_from_affine(&sum, &S.p1a);
    czk_g1_jacobian_add_affine(&sum, &sum, &S.p1c);
    czk_g1_jacobian_neg(&sum, &sum);
    prod_ps[0] = S.p1a;
    prod_ps[1] = S.p1c;
    czk_g1_jacobian_to_affine(&prod_ps[2], &sum);
    for (int i = 0; i < 3; i++)
        czk_pairing_g2_prepare(&prod_qs[i], &S.p2a);
}

int main(int argc, char **argv) {
    double scale = 1.0;
    int runs = 7;
    const char *env = getenv("CZK_BENCH_ITERS");
    if (env != NULL && atof(env) > 0)
        scale = atof(env);
    env = getenv("CZK_BENCH_RUNS");
    if (env != NULL && atoi(env) > 0)
        runs = atoi(env);
    if (runs > 101)
        runs = 101;
    for (int i = 1; i < argc; i++) {
        int known = 0;
        for (size_t b = 0; b < NBENCH; b++)
            known |= strcmp(argv[i], benches[b].name) == 0;
        if (!known) {
            fprintf(stderr, "bench_field: unknown benchmark '%s'; known:", argv[i]);
            for (size_t b = 0; b < NBENCH; b++)
                fprintf(stderr, " %s", benches[b].name);
            fprintf(stderr, "\n");
            return 2;
        }
    }
    setup();
    printf("# bench_field commit %s, %d runs per op, median reported\n", CZK_GIT_COMMIT, runs);
    printf("%-20s,%10s,%12s,%12s,%12s,%10s,%8s\n", "op", "ops", "min_ns", "median_ns", "max_ns",
           "blst_ns", "ratio");
    int failed = 0;
    for (size_t b = 0; b < NBENCH; b++) {
        const bench *bm = &benches[b];
        int take = argc == 1;
        for (int i = 1; i < argc; i++)
            take |= strcmp(argv[i], bm->name) == 0;
        if (!take)
            continue;
        if (!bm->check()) {
            printf("%-20s, CHECK FAILED: result disagrees with an independent computation\n",
                   bm->name);
            failed = 1;
            continue;
        }
        long n = (long)((double)bm->iters * scale);
        if (n < 1)
            n = 1;
        bm->run(n / 10 + 1); /* warm-up */
        double t[101];
        for (int r = 0; r < runs; r++) {
            uint64_t t0 = czk_time_ns();
            bm->run(n);
            t[r] = (double)(czk_time_ns() - t0) / (double)n;
        }
        qsort(t, (size_t)runs, sizeof(double), cmp_double);
        double med = t[runs / 2];
        if (bm->blst_ns > 0)
            printf("%-20s,%10ld,%12.1f,%12.1f,%12.1f,%10.0f,%8.2f\n", bm->name, n, t[0], med,
                   t[runs - 1], bm->blst_ns, med / bm->blst_ns);
        else
            printf("%-20s,%10ld,%12.1f,%12.1f,%12.1f,%10s,%8s\n", bm->name, n, t[0], med,
                   t[runs - 1], "", "");
        fflush(stdout);
    }
    return failed;
}
