/*
 * czk_gpu_test: the CUDA backend against the CPU on random inputs, then timings.
 *
 * Checks: NTT forward, inverse, coset forward and coset inverse at lg 10, 14, 18, 20, 22
 * (against the CPU transforms of src/poly when they are built in, else a naive O(n^2) DFT at
 * lg 10; always: spot values by Horner's rule at 3 points, and round trips); MSM G1 at 2^10,
 * 2^14, 2^18, 2^20, 2^22 with uniform scalars and with 0/1-heavy witness-like scalars
 * (against czk_msm_g1 when built in, else a naive sum at small n; always: linearity
 * MSM(s) + MSM(t) = MSM(s + t)), plus edge cases. Timings: median of 5 CUDA-event runs with
 * inputs already on the device, NTT lg 20..27 and MSM 2^20..2^26 (2^27 when memory allows).
 *
 * Exit status: 0 all good, 1 a mismatch or error, 77 no CUDA device (ctest's skip).
 * Environment: CZK_TEST_SEED (default: time), OUT (also write $OUT/gpu_test.log),
 * CZK_GPU_TEST_QUICK=1 (skip timings), CZK_GPU_TEST_MAX_NTT / CZK_GPU_TEST_MAX_MSM (largest lg
 * timed), CZK_GPU_TEST_THREADS (CPU threads, default all).
 *
 * Host C++ compiled by nvcc only because every .c under src/ belongs to the CPU library; it
 * uses nothing but gpu/backend.h from the backend.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/g1.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"
#ifdef CZK_GPU_TEST_CPU_NTT
#include "poly/ntt.h"
#endif
#ifdef CZK_GPU_TEST_CPU_MSM
#include "msm/msm.h"
#endif

static FILE *g_log;
static int g_fail;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    fflush(stdout);
    if (g_log != NULL) {
        va_start(ap, fmt);
        vfprintf(g_log, fmt, ap);
        va_end(ap);
        fflush(g_log);
    }
}

static void fail(const char *what, int rc, const czk_err *err) {
    g_fail = 1;
    say("FAIL %s: %s (%s)\n", what, czk_status_name(rc), err != NULL ? err->msg : "");
}

static void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (!ok)
        g_fail = 1;
    say("%-4s %s\n", ok ? "ok" : "FAIL", buf);
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* ---- random inputs, in parallel --------------------------------------------------------- */

typedef struct fill_arg {
    czk_fr *fr;
    uint64_t seed;
    int kind; /* 0 uniform, 1 witness-like */
} fill_arg;

static void fill_fr_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    fill_arg *a = (fill_arg *)arg;
    czk_rng rng;
    (void)worker;
    czk_rng_seed(&rng, a->seed ^ (begin * 0x9e3779b97f4a7c15ULL));
    for (size_t i = begin; i < end; i++) {
        if (a->kind == 0) {
            czk_fr_random(&a->fr[i], &rng);
        } else {
            /* 45% zero, 40% one, 5% small, 10% uniform: a Groth16 witness's shape. */
            uint64_t r = czk_rng_u64(&rng) % 100;
            if (r < 45)
                a->fr[i] = CZK_FR_ZERO;
            else if (r < 85)
                a->fr[i] = CZK_FR_ONE;
            else if (r < 90)
                czk_fr_set_u64(&a->fr[i], czk_rng_u64(&rng) & 0xffff);
            else
                czk_fr_random(&a->fr[i], &rng);
        }
    }
}

static void fill_fr(czk_pool *pool, czk_fr *out, size_t n, uint64_t seed, int kind) {
    fill_arg a = {out, seed, kind};
    czk_pool_run(pool, n, 1 << 14, fill_fr_fn, &a);
}

/* Points B[i & 1023] + C[i >> 10] (random B, C in arithmetic progression): distinct with
 * overwhelming probability, cheap, batch-converted to affine. */
typedef struct points_arg {
    czk_g1_affine *out;
    const czk_g1_affine *b, *c;
    int rc;
} points_arg;

static void points_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    points_arg *a = (points_arg *)arg;
    const size_t chunk = 4096;
    czk_g1_jacobian *jac = (czk_g1_jacobian *)czk_malloc(chunk * sizeof(*jac));
    (void)worker;
    if (jac == NULL) {
        a->rc = CZK_ENOMEM;
        return;
    }
    for (size_t s = begin; s < end; s += chunk) {
        size_t m = end - s < chunk ? end - s : chunk;
        for (size_t j = 0; j < m; j++) {
            size_t i = s + j;
            czk_g1_jacobian_from_affine(&jac[j], &a->c[i >> 10]);
            czk_g1_jacobian_add_affine_var(&jac[j], &jac[j], &a->b[i & 1023]);
        }
        if (czk_g1s_to_affine(a->out + s, jac, m) != CZK_OK)
            a->rc = CZK_ENOMEM;
    }
    czk_free(jac);
}

static int make_points(czk_pool *pool, czk_g1_affine *out, size_t n, czk_rng *rng) {
    size_t nc = (n + 1023) >> 10;
    czk_g1_affine *b = (czk_g1_affine *)czk_malloc(1024 * sizeof(*b));
    czk_g1_affine *c = (czk_g1_affine *)czk_malloc(nc * sizeof(*c));
    points_arg a = {out, b, c, CZK_OK};
    int rc = CZK_ENOMEM;
    if (b == NULL || c == NULL)
        goto out;
    for (size_t i = 0; i < 1024; i++)
        czk_g1_random(&b[i], rng);
    /* C[j] = C0 + j·D: one addition each instead of a scalar multiplication. */
    {
        czk_g1_jacobian *cj = (czk_g1_jacobian *)czk_malloc(nc * sizeof(*cj));
        czk_g1_affine d;
        if (cj == NULL)
            goto out;
        czk_g1_random(&d, rng);
        czk_g1_random(&c[0], rng);
        czk_g1_jacobian_from_affine(&cj[0], &c[0]);
        for (size_t i = 1; i < nc; i++)
            czk_g1_jacobian_add_affine_var(&cj[i], &cj[i - 1], &d);
        rc = czk_g1s_to_affine(c, cj, nc);
        czk_free(cj);
        if (rc != CZK_OK)
            goto out;
    }
    czk_pool_run(pool, n, 1 << 14, points_fn, &a);
    rc = a.rc;
out:
    czk_free(b);
    czk_free(c);
    return rc;
}

/* ---- NTT -------------------------------------------------------------------------------- */

static const char *kind_name(czk_gpu_ntt_kind k) {
    switch (k) {
    case CZK_GPU_NTT_FORWARD:
        return "fwd";
    case CZK_GPU_NTT_INVERSE:
        return "inv";
    case CZK_GPU_NTT_COSET_FORWARD:
        return "coset fwd";
    default:
        return "coset inv";
    }
}

/* A primitive 2^lg-th root: bellperson's 7^((r-1)/2^32) squared down (CPU domain if built). */
static void root_of_unity(czk_fr *w, unsigned lg) {
#ifdef CZK_GPU_TEST_CPU_NTT
    czk_ntt_domain *d = NULL;
    if (czk_ntt_domain_create(&d, lg, CZK_NTT_ROOT_BELLPERSON, NULL) == CZK_OK) {
        *w = *czk_ntt_domain_omega(d);
        czk_ntt_domain_destroy(d);
        return;
    }
#endif
    static const uint64_t e[4] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL,
                                  0x299d7d483339d808ULL, 0x0000000073eda753ULL};
    czk_fr seven;
    czk_fr_set_u64(&seven, 7);
    czk_fr_pow(w, &seven, e, 4);
    for (unsigned i = lg; i < 32; i++)
        czk_fr_sqr(w, w);
}

/* Σ_j a[j]·x^j. */
static void horner(czk_fr *r, const czk_fr *a, size_t n, const czk_fr *x) {
    czk_fr acc = CZK_FR_ZERO;
    for (size_t j = n; j-- > 0;) {
        czk_fr_mul(&acc, &acc, x);
        czk_fr_add(&acc, &acc, &a[j]);
    }
    *r = acc;
}

static void fr_pow_u64(czk_fr *r, const czk_fr *a, uint64_t e) {
    czk_fr_pow(r, a, &e, 1);
}

/*
 * Checks out = kind(in) at spot indices: forward kinds evaluate `in` at x_k, inverse kinds
 * evaluate `out` at x_k and compare with in[k]; x_k = ω^k, times g for the cosets.
 */
static int ntt_spot_ok(const czk_fr *in, const czk_fr *out, size_t n, czk_gpu_ntt_kind kind,
                       const czk_fr *w, const czk_fr *g, czk_rng *rng) {
    size_t idx[3] = {0, n - 1, (size_t)(czk_rng_u64(rng) % n)};
    int inverse = kind == CZK_GPU_NTT_INVERSE || kind == CZK_GPU_NTT_COSET_INVERSE;
    int coset = kind == CZK_GPU_NTT_COSET_FORWARD || kind == CZK_GPU_NTT_COSET_INVERSE;
    for (int t = 0; t < 3; t++) {
        czk_fr x, v;
        fr_pow_u64(&x, w, idx[t]);
        if (coset)
            czk_fr_mul(&x, &x, g);
        horner(&v, inverse ? out : in, n, &x);
        if (!czk_fr_equal(&v, inverse ? &in[idx[t]] : &out[idx[t]]))
            return 0;
    }
    return 1;
}

static void test_ntt(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    const unsigned lgs[] = {10, 14, 18, 20, 22};
    const czk_gpu_ntt_kind kinds[] = {CZK_GPU_NTT_FORWARD, CZK_GPU_NTT_INVERSE,
                                      CZK_GPU_NTT_COSET_FORWARD, CZK_GPU_NTT_COSET_INVERSE};
    czk_fr g;
    czk_fr_set_u64(&g, 7); /* the coset shift bellperson uses */
    say("\n== NTT vs CPU ==\n");
    for (size_t li = 0; li < sizeof(lgs) / sizeof(lgs[0]); li++) {
        unsigned lg = lgs[li];
        size_t n = (size_t)1 << lg;
        czk_fr w;
        czk_fr *in = (czk_fr *)czk_malloc(n * sizeof(czk_fr));
        czk_fr *out = (czk_fr *)czk_malloc(n * sizeof(czk_fr));
        czk_fr *back = (czk_fr *)czk_malloc(n * sizeof(czk_fr));
        if (in == NULL || out == NULL || back == NULL) {
            fail("host allocation", CZK_ENOMEM, NULL);
            goto next;
        }
        root_of_unity(&w, lg);
        fill_fr(pool, in, n, czk_rng_u64(rng), 0);
        for (size_t ki = 0; ki < 4; ki++) {
            czk_gpu_ntt_kind kind = kinds[ki];
            czk_err err = {0, {0}};
            int rc;
            memcpy(out, in, n * sizeof(czk_fr));
            rc = czk_gpu_ntt_var(gpu, out, CZK_GPU_MEM_HOST, lg, kind, &w, &g, &err);
            if (rc != CZK_OK) {
                fail("czk_gpu_ntt_var", rc, &err);
                continue;
            }
            check(ntt_spot_ok(in, out, n, kind, &w, &g, rng), "ntt lg %2u %-9s spot values", lg,
                  kind_name(kind));
#ifdef CZK_GPU_TEST_CPU_NTT
            {
                czk_ntt_domain *d = NULL;
                if (czk_ntt_domain_create(&d, lg, CZK_NTT_ROOT_BELLPERSON, NULL) == CZK_OK) {
                    memcpy(back, in, n * sizeof(czk_fr));
                    if (kind == CZK_GPU_NTT_FORWARD)
                        czk_ntt_forward(d, back, pool);
                    else if (kind == CZK_GPU_NTT_INVERSE)
                        czk_ntt_inverse(d, back, pool);
                    else if (kind == CZK_GPU_NTT_COSET_FORWARD)
                        czk_ntt_coset_forward(d, back, &g, pool);
                    else
                        czk_ntt_coset_inverse(d, back, &g, pool);
                    check(memcmp(back, out, n * sizeof(czk_fr)) == 0,
                          "ntt lg %2u %-9s equals the CPU transform", lg, kind_name(kind));
                    czk_ntt_domain_destroy(d);
                }
            }
#else
            if (lg <= 10 && (kind == CZK_GPU_NTT_FORWARD || kind == CZK_GPU_NTT_COSET_FORWARD)) {
                int ok = 1;
                for (size_t k = 0; k < n && ok; k++) {
                    czk_fr x, v;
                    fr_pow_u64(&x, &w, k);
                    if (kind == CZK_GPU_NTT_COSET_FORWARD)
                        czk_fr_mul(&x, &x, &g);
                    horner(&v, in, n, &x);
                    ok = czk_fr_equal(&v, &out[k]);
                }
                check(ok, "ntt lg %2u %-9s equals the naive DFT", lg, kind_name(kind));
            }
#endif
            /* Round trip through the device-buffer path. */
            if (kind == CZK_GPU_NTT_FORWARD || kind == CZK_GPU_NTT_COSET_FORWARD) {
                void *d = NULL;
                czk_gpu_ntt_kind inv =
                    kind == CZK_GPU_NTT_FORWARD ? CZK_GPU_NTT_INVERSE : CZK_GPU_NTT_COSET_INVERSE;
                rc = czk_gpu_alloc(gpu, &d, n * sizeof(czk_fr), &err);
                if (rc == CZK_OK)
                    rc = czk_gpu_upload(gpu, d, out, n * sizeof(czk_fr), &err);
                if (rc == CZK_OK)
                    rc = czk_gpu_ntt_var(gpu, (czk_fr *)d, CZK_GPU_MEM_DEVICE, lg, inv, &w, &g,
                                         &err);
                if (rc == CZK_OK)
                    rc = czk_gpu_download(gpu, back, d, n * sizeof(czk_fr), &err);
                czk_gpu_free(gpu, d, n * sizeof(czk_fr));
                if (rc != CZK_OK)
                    fail("device round trip", rc, &err);
                else
                    check(memcmp(back, in, n * sizeof(czk_fr)) == 0,
                          "ntt lg %2u %-9s round trip (device buffer)", lg, kind_name(kind));
            }
        }
    next:
        czk_free(in);
        czk_free(out);
        czk_free(back);
    }
}

/* ---- MSM -------------------------------------------------------------------------------- */

static void naive_msm(czk_g1_jacobian *r, const czk_g1_affine *p, const czk_fr *s, size_t n) {
    czk_g1_jacobian_set_infinity(r);
    for (size_t i = 0; i < n; i++) {
        czk_g1_jacobian pj, t;
        czk_g1_jacobian_from_affine(&pj, &p[i]);
        czk_g1_jacobian_mul_var(&t, &pj, &s[i]);
        czk_g1_jacobian_add_var(r, r, &t);
    }
}

static int gpu_msm(czk_gpu *gpu, czk_g1_jacobian *r, const czk_g1_affine *p, const czk_fr *s,
                   size_t n) {
    czk_err err = {0, {0}};
    int rc = czk_gpu_msm_g1_var(gpu, r, p, s, n, CZK_GPU_MEM_HOST, &err);
    if (rc != CZK_OK)
        fail("czk_gpu_msm_g1_var", rc, &err);
    return rc;
}

/* The CPU reference: czk_msm_g1 when built in, else the naive sum (small n only). */
static int cpu_msm(czk_g1_jacobian *r, const czk_g1_affine *p, const czk_fr *s, size_t n,
                   czk_pool *pool) {
#ifdef CZK_GPU_TEST_CPU_MSM
    czk_err err = {0, {0}};
    int rc = czk_msm_g1(r, p, s, n, pool, &err);
    if (rc != CZK_OK)
        fail("czk_msm_g1", rc, &err);
    return rc;
#else
    (void)pool;
    if (n > ((size_t)1 << 14))
        return CZK_EUNSUPPORTED;
    naive_msm(r, p, s, n);
    return CZK_OK;
#endif
}

static void test_msm_edges(czk_gpu *gpu, czk_rng *rng) {
    const size_t n = 1025;
    czk_g1_affine *p = (czk_g1_affine *)czk_malloc(n * sizeof(*p));
    czk_fr *s = (czk_fr *)czk_malloc(n * sizeof(*s));
    czk_g1_jacobian a, b;
    const size_t sizes[] = {1, 2, 3, 31, 1023, 1024, 1025};
    if (p == NULL || s == NULL) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("\n== MSM edge cases ==\n");
    for (size_t i = 0; i < n; i++) {
        czk_g1_random(&p[i], rng);
        czk_fr_random(&s[i], rng);
    }
    /* Infinity points, duplicates, P and -P, zero and r - 1 scalars. */
    memset(&p[3], 0, sizeof(p[3]));
    p[5] = p[4];
    czk_g1_affine_neg(&p[7], &p[6]);
    s[7] = s[6];
    s[8] = CZK_FR_ZERO;
    czk_fr_neg(&s[9], &CZK_FR_ONE);
    s[10] = CZK_FR_ONE;
    for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        if (gpu_msm(gpu, &a, p, s, sizes[k]) != CZK_OK)
            continue;
        naive_msm(&b, p, s, sizes[k]);
        check(czk_g1_jacobian_equal(&a, &b), "msm n = %zu with special points and scalars",
              sizes[k]);
    }
    if (gpu_msm(gpu, &a, p, s, 0) == CZK_OK)
        check(czk_g1_jacobian_is_infinity(&a), "msm n = 0 is infinity");
    for (size_t i = 0; i < 64; i++)
        s[i] = CZK_FR_ZERO;
    if (gpu_msm(gpu, &a, p, s, 64) == CZK_OK)
        check(czk_g1_jacobian_is_infinity(&a), "msm with all-zero scalars is infinity");
    for (size_t i = 0; i < 64; i++) {
        memset(&p[i], 0, sizeof(p[i]));
        s[i] = CZK_FR_ONE;
    }
    if (gpu_msm(gpu, &a, p, s, 64) == CZK_OK)
        check(czk_g1_jacobian_is_infinity(&a), "msm over points at infinity is infinity");
    /* Every scalar 1 on one point: one bucket holds everything. */
    for (size_t i = 0; i < n; i++) {
        p[i] = p[n - 1];
        s[i] = CZK_FR_ONE;
    }
    if (gpu_msm(gpu, &a, p, s, n) == CZK_OK) {
        czk_fr k;
        czk_g1_jacobian pj;
        czk_fr_set_u64(&k, n);
        czk_g1_jacobian_from_affine(&pj, &p[0]);
        czk_g1_jacobian_mul_var(&b, &pj, &k);
        check(czk_g1_jacobian_equal(&a, &b), "msm of %zu equal points with scalar 1", n);
    }
out:
    czk_free(p);
    czk_free(s);
}

static void test_msm(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    const unsigned lgs[] = {10, 14, 18, 20, 22};
    const size_t nmax = (size_t)1 << 22;
    czk_g1_affine *p = (czk_g1_affine *)czk_malloc(nmax * sizeof(*p));
    czk_fr *s = (czk_fr *)czk_malloc(nmax * sizeof(*s));
    czk_fr *t = (czk_fr *)czk_malloc(nmax * sizeof(*t));
    if (p == NULL || s == NULL || t == NULL || make_points(pool, p, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("\n== MSM G1 vs CPU ==\n");
    for (size_t li = 0; li < sizeof(lgs) / sizeof(lgs[0]); li++) {
        size_t n = (size_t)1 << lgs[li];
        for (int kind = 0; kind < 2; kind++) {
            const char *kn = kind == 0 ? "uniform" : "0/1-heavy";
            czk_g1_jacobian a, b, c;
            int rc;
            fill_fr(pool, s, n, czk_rng_u64(rng), kind);
            if (gpu_msm(gpu, &a, p, s, n) != CZK_OK)
                continue;
            rc = cpu_msm(&b, p, s, n, pool);
            if (rc == CZK_OK)
                check(czk_g1_jacobian_equal(&a, &b), "msm 2^%-2u %-9s equals the CPU", lgs[li], kn);
            /* Linearity: MSM(s) + MSM(t) = MSM(s + t). */
            if (n <= ((size_t)1 << 20) || kind == 0) {
                fill_fr(pool, t, n, czk_rng_u64(rng), kind);
                if (gpu_msm(gpu, &b, p, t, n) != CZK_OK)
                    continue;
                for (size_t i = 0; i < n; i++)
                    czk_fr_add(&t[i], &t[i], &s[i]);
                if (gpu_msm(gpu, &c, p, t, n) != CZK_OK)
                    continue;
                czk_g1_jacobian_add_var(&a, &a, &b);
                check(czk_g1_jacobian_equal(&a, &c), "msm 2^%-2u %-9s linearity", lgs[li], kn);
            }
        }
    }
out:
    czk_free(p);
    czk_free(s);
    czk_free(t);
}

/* ---- timings ---------------------------------------------------------------------------- */

static unsigned env_unsigned(const char *name, unsigned dflt) {
    const char *v = getenv(name);
    return v != NULL && *v ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

static void bench_ntt(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    unsigned maxlg = env_unsigned("CZK_GPU_TEST_MAX_NTT", 27);
    const size_t tile = (size_t)1 << 20;
    czk_fr *h = (czk_fr *)czk_malloc(tile * sizeof(czk_fr));
    czk_fr g;
    czk_fr_set_u64(&g, 7);
    if (h == NULL) {
        fail("host allocation", CZK_ENOMEM, NULL);
        return;
    }
    fill_fr(pool, h, tile, czk_rng_u64(rng), 0);
    say("\n== NTT timings (ms, median of 5, CUDA events, data on the device) ==\n");
    say("%-4s %10s %10s %10s %10s\n", "lg", "fwd", "inv", "coset fwd", "coset inv");
    for (unsigned lg = 20; lg <= maxlg; lg++) {
        size_t n = (size_t)1 << lg, bytes = n * sizeof(czk_fr);
        void *d = NULL;
        czk_err err = {0, {0}};
        czk_fr w;
        double med[4];
        int rc = czk_gpu_alloc(gpu, &d, bytes, &err);
        if (rc != CZK_OK) {
            say("lg %u: %s\n", lg, err.msg);
            break;
        }
        for (size_t off = 0; off < n && rc == CZK_OK; off += tile)
            rc = czk_gpu_upload(gpu, (czk_fr *)d + off, h, tile * sizeof(czk_fr), &err);
        root_of_unity(&w, lg);
        for (int k = 0; k < 4 && rc == CZK_OK; k++) {
            double ms[5];
            /* Warm-up (builds the twiddle tables), then 5 timed runs. */
            rc = czk_gpu_ntt_var(gpu, (czk_fr *)d, CZK_GPU_MEM_DEVICE, lg, (czk_gpu_ntt_kind)k, &w,
                                 &g, &err);
            for (int r = 0; r < 5 && rc == CZK_OK; r++) {
                rc = czk_gpu_timer_start(gpu, &err);
                if (rc == CZK_OK)
                    rc = czk_gpu_ntt_var(gpu, (czk_fr *)d, CZK_GPU_MEM_DEVICE, lg,
                                         (czk_gpu_ntt_kind)k, &w, &g, &err);
                if (rc == CZK_OK)
                    rc = czk_gpu_timer_stop(gpu, &ms[r], &err);
            }
            qsort(ms, 5, sizeof(double), cmp_double);
            med[k] = ms[2];
        }
        czk_gpu_free(gpu, d, bytes);
        if (rc != CZK_OK) {
            fail("ntt timing", rc, &err);
            break;
        }
        say("%-4u %10.3f %10.3f %10.3f %10.3f\n", lg, med[0], med[1], med[2], med[3]);
    }
    czk_free(h);
}

static void bench_msm(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    unsigned maxlg = env_unsigned("CZK_GPU_TEST_MAX_MSM", 27);
    size_t free_b = 0, total_b = 0, nmax;
    czk_err err = {0, {0}};
    czk_g1_affine *p = NULL;
    czk_fr *s = NULL;
    void *dp = NULL, *ds = NULL;
    int rc;
    uint64_t t0;
    /* The largest size whose inputs and scratch fit in 90% of free memory. */
    rc = czk_gpu_mem_info(gpu, &free_b, &total_b, &err);
    while (rc == CZK_OK && maxlg > 20) {
        size_t n = (size_t)1 << maxlg;
        if (n * 128 + czk_gpu_msm_g1_scratch_bytes(n) < free_b / 10 * 9)
            break;
        maxlg--;
    }
    nmax = (size_t)1 << maxlg;
    say("\n== MSM G1 timings (ms, median of 5, CUDA events, inputs on the device) ==\n");
    t0 = czk_time_ns();
    p = (czk_g1_affine *)czk_malloc(nmax * sizeof(*p));
    s = (czk_fr *)czk_malloc(nmax * sizeof(*s));
    if (p == NULL || s == NULL || make_points(pool, p, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    fill_fr(pool, s, nmax, czk_rng_u64(rng), 0);
    say("(2^%u points and scalars generated in %.1f s)\n", maxlg, (czk_time_ns() - t0) * 1e-9);
    rc = czk_gpu_alloc(gpu, &dp, nmax * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &ds, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dp, p, nmax * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, ds, s, nmax * sizeof(*s), &err);
    if (rc != CZK_OK) {
        fail("msm inputs", rc, &err);
        goto out;
    }
    say("%-6s %10s %10s %12s  %s\n", "n", "ms", "min", "Mpoints/s", "runs agree");
    for (unsigned lg = 20; lg <= maxlg; lg++) {
        size_t n = (size_t)1 << lg;
        double ms[5];
        czk_g1_jacobian first, r;
        int same = 1;
        rc = czk_gpu_msm_g1_var(gpu, &first, (const czk_g1_affine *)dp, (const czk_fr *)ds, n,
                                CZK_GPU_MEM_DEVICE, &err);
        for (int k = 0; k < 5 && rc == CZK_OK; k++) {
            rc = czk_gpu_timer_start(gpu, &err);
            if (rc == CZK_OK)
                rc = czk_gpu_msm_g1_var(gpu, &r, (const czk_g1_affine *)dp, (const czk_fr *)ds, n,
                                        CZK_GPU_MEM_DEVICE, &err);
            if (rc == CZK_OK)
                rc = czk_gpu_timer_stop(gpu, &ms[k], &err);
            same &= czk_g1_jacobian_equal(&first, &r);
        }
        if (rc != CZK_OK) {
            fail("msm timing", rc, &err);
            break;
        }
        qsort(ms, 5, sizeof(double), cmp_double);
        say("2^%-4u %10.2f %10.2f %12.1f  %s\n", lg, ms[2], ms[0], n / ms[2] / 1e3,
            same ? "yes" : "NO");
        if (!same)
            g_fail = 1;
    }
out:
    czk_gpu_free(gpu, dp, nmax * sizeof(czk_g1_affine));
    czk_gpu_free(gpu, ds, nmax * sizeof(czk_fr));
    czk_free(p);
    czk_free(s);
}

int main(void) {
    czk_gpu *gpu = NULL;
    czk_pool *pool = NULL;
    czk_err err = {0, {0}};
    czk_rng rng;
    char desc[256];
    const char *out = getenv("OUT");
    const char *seed_s = getenv("CZK_TEST_SEED");
    uint64_t seed = seed_s != NULL && *seed_s ? strtoull(seed_s, NULL, 0) : (uint64_t)time(NULL);
    int rc;

    if (czk_gpu_device_count() <= 0) {
        printf("no CUDA device present\n");
        return 77;
    }
    if (out != NULL && *out) {
        char path[4096];
        snprintf(path, sizeof(path), "%s/gpu_test.log", out);
        g_log = fopen(path, "w");
    }
    rc = czk_gpu_create(&gpu, 0, &err);
    if (rc != CZK_OK) {
        fail("czk_gpu_create", rc, &err);
        return 1;
    }
    rc = czk_pool_create(&pool, env_unsigned("CZK_GPU_TEST_THREADS", 0));
    if (rc != CZK_OK) {
        fail("czk_pool_create", rc, NULL);
        return 1;
    }
    czk_gpu_describe(gpu, desc, sizeof(desc));
    say("czk_gpu_test: %s; seed %llu; CPU threads %u; CPU NTT %s, CPU MSM %s\n", desc,
        (unsigned long long)seed, czk_pool_ways(pool),
#ifdef CZK_GPU_TEST_CPU_NTT
        "yes",
#else
        "no (naive DFT)",
#endif
#ifdef CZK_GPU_TEST_CPU_MSM
        "yes"
#else
        "no (naive sums)"
#endif
    );
    czk_rng_seed(&rng, seed);

    test_ntt(gpu, pool, &rng);
    test_msm_edges(gpu, &rng);
    test_msm(gpu, pool, &rng);
    if (env_unsigned("CZK_GPU_TEST_QUICK", 0) == 0) {
        bench_ntt(gpu, pool, &rng);
        bench_msm(gpu, pool, &rng);
    }
    say("\ndevice memory: %zu bytes held at exit, peak %zu\n", czk_gpu_mem_in_use(gpu),
        czk_gpu_mem_peak(gpu));
    say("%s\n", g_fail ? "czk_gpu_test: FAILED" : "czk_gpu_test: all checks passed");
    czk_gpu_destroy(gpu);
    czk_pool_destroy(pool);
    if (g_log != NULL)
        fclose(g_log);
    return g_fail ? 1 : 0;
}
