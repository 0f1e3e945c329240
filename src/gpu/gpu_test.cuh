/*
 * What the GPU checks (the *_test.cu files under src/gpu, linked into czk_gpu_test) and the
 * GPU benchmarks (bench/gpu/bench_gpu_*.cu) share: output to stdout and an optional log file,
 * checks counted per module with a table at the end, random inputs made in parallel on the
 * CPU, the common command-line flags, and opening the device. Header-only (C++17 inline
 * functions and variables), so that every program takes only what it uses.
 *
 * Test and benchmark code, not the library: it prints, and it may read the environment
 * (CZK_TEST_SEED, as the CPU test runner does).
 */
#ifndef CZK_GPU_GPU_TEST_CUH
#define CZK_GPU_GPU_TEST_CUH

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "poly/ntt.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"

namespace czk_gpu_test {

/* ---- output and checks ------------------------------------------------------------------ */

/* One module's tally (the table at the end of czk_gpu_test). */
struct tally {
    const char *name;
    unsigned passed, failed;
};

#define CZK_GPU_TEST_MODULES 8
inline FILE *g_log;
inline tally g_tally[CZK_GPU_TEST_MODULES];
inline unsigned g_modules, g_current;

inline void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
inline void say(const char *fmt, ...) {
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

/* Later checks and failures count for module `name` (a row of the table; at most
 * CZK_GPU_TEST_MODULES, the last one takes any beyond). */
inline void module(const char *name) {
    for (unsigned i = 0; i < g_modules; i++)
        if (strcmp(g_tally[i].name, name) == 0) {
            g_current = i;
            return;
        }
    if (g_modules < CZK_GPU_TEST_MODULES)
        g_tally[g_modules++] = tally{name, 0, 0};
    g_current = g_modules - 1;
}

inline tally *current() {
    if (g_modules == 0)
        module("other");
    return &g_tally[g_current];
}

/* A call that should have succeeded did not: counts as a failed check. */
inline void fail(const char *what, int rc, const czk_err *err) {
    current()->failed++;
    say("FAIL %s: %s (%s)\n", what, czk_status_name(rc), err != NULL ? err->msg : "");
}

inline void check(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
inline void check(int ok, const char *fmt, ...) {
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof(buf), fmt, ap);
    va_end(ap);
    if (ok)
        current()->passed++;
    else
        current()->failed++;
    say("%-4s %s\n", ok ? "ok" : "FAIL", buf);
}

/* Failed checks so far, over every module. */
inline unsigned failures() {
    unsigned f = 0;
    for (unsigned i = 0; i < g_modules; i++)
        f += g_tally[i].failed;
    return f;
}

/* Prints the table of checks passed and failed per module; returns the exit status (0 when
 * none failed, else 1). */
inline int summary(const char *prog) {
    unsigned p = 0, f = 0;
    say("\n%-10s %8s %8s\n", "module", "passed", "failed");
    for (unsigned i = 0; i < g_modules; i++) {
        say("%-10s %8u %8u\n", g_tally[i].name, g_tally[i].passed, g_tally[i].failed);
        p += g_tally[i].passed;
        f += g_tally[i].failed;
    }
    say("%-10s %8u %8u\n", "total", p, f);
    say("%s: %s\n", prog, f == 0 ? "all checks passed" : "FAILED");
    return f == 0 ? 0 : 1;
}

inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

inline double ms_since(uint64_t t0) {
    return (double)(czk_time_ns() - t0) * 1e-6;
}

/* ---- command line and device ------------------------------------------------------------ */

/* The flags every GPU test and benchmark program takes. */
struct common_flags {
    uint64_t seed;    /* --seed N; else CZK_TEST_SEED; else the time */
    unsigned threads; /* --threads N: CPU threads for inputs and references (0: all) */
    const char *log;  /* --log FILE: a copy of the output */
};

inline void common_defaults(common_flags *f) {
    const char *s = getenv("CZK_TEST_SEED");
    f->seed = s != NULL && *s ? strtoull(s, NULL, 0) : (uint64_t)time(NULL);
    f->threads = 0;
    f->log = NULL;
}

/* The unsigned value after flag argv[*i] (advancing *i), or -1 after saying what is wrong. */
inline int flag_value(int argc, char **argv, int *i, unsigned long long *v) {
    char *end = NULL;
    if (*i + 1 >= argc) {
        fprintf(stderr, "%s needs a value\n", argv[*i]);
        return -1;
    }
    *v = strtoull(argv[*i + 1], &end, 0);
    if (end == argv[*i + 1] || *end != '\0') {
        fprintf(stderr, "%s: not a number: %s\n", argv[*i], argv[*i + 1]);
        return -1;
    }
    (*i)++;
    return 0;
}

/* Takes argv[*i] when it is a common flag: 1 taken, 0 not one of them, -1 malformed. */
inline int common_flag(int argc, char **argv, int *i, common_flags *f) {
    unsigned long long v = 0;
    if (strcmp(argv[*i], "--seed") == 0) {
        if (flag_value(argc, argv, i, &v) != 0)
            return -1;
        f->seed = v;
        return 1;
    }
    if (strcmp(argv[*i], "--threads") == 0) {
        if (flag_value(argc, argv, i, &v) != 0)
            return -1;
        f->threads = (unsigned)v;
        return 1;
    }
    if (strcmp(argv[*i], "--log") == 0) {
        if (*i + 1 >= argc) {
            fprintf(stderr, "--log needs a file\n");
            return -1;
        }
        f->log = argv[++*i];
        return 1;
    }
    return 0;
}

/*
 * Opens the log, the context on device 0 and the CPU pool. Returns 0 with both made, 77
 * (after saying so) when there is no CUDA device, 1 on any other failure.
 */
inline int open_device(czk_gpu **gpu, czk_pool **pool, const common_flags *f) {
    czk_err err = {};
    char desc[256];
    int rc;
    *gpu = NULL;
    *pool = NULL;
    if (f->log != NULL && (g_log = fopen(f->log, "w")) == NULL)
        fprintf(stderr, "cannot write %s (no log)\n", f->log);
    if (czk_gpu_device_count() <= 0) {
        say("no CUDA device present\n");
        return 77;
    }
    rc = czk_gpu_create(gpu, 0, &err);
    if (rc != CZK_OK) {
        fail("czk_gpu_create", rc, &err);
        return 1;
    }
    rc = czk_pool_create(pool, f->threads);
    if (rc != CZK_OK) {
        fail("czk_pool_create", rc, NULL);
        czk_gpu_destroy(*gpu);
        *gpu = NULL;
        return 1;
    }
    czk_gpu_describe(*gpu, desc, sizeof(desc));
    say("%s; seed %llu; CPU threads %u\n", desc, (unsigned long long)f->seed, czk_pool_ways(*pool));
    return 0;
}

/* The context's device memory: what it still holds (0 when every buffer was freed) and
 * its peak. */
inline void say_memory(const czk_gpu *gpu) {
    if (gpu != NULL)
        say("device memory: %zu bytes held at exit, peak %zu\n", czk_gpu_mem_in_use(gpu),
            czk_gpu_mem_peak(gpu));
}

inline void close_device(czk_gpu *gpu, czk_pool *pool) {
    czk_gpu_destroy(gpu);
    czk_pool_destroy(pool);
    if (g_log != NULL)
        fclose(g_log);
    g_log = NULL;
}

/* ---- random inputs, in parallel --------------------------------------------------------- */

/* Scalar kinds: uniform; witness-like (45 % zero, 40 % one, 5 % small, 10 % uniform); the
 * mix of a Filecoin PoRep witness (60 % zero, 38 % one, 2 % uniform). */
enum { FILL_UNIFORM = 0, FILL_WITNESS = 1, FILL_POREP = 2 };

inline const char *fill_name(int kind) {
    return kind == FILL_UNIFORM ? "uniform" : kind == FILL_WITNESS ? "0/1-heavy" : "PoRep-mix";
}

struct fill_arg {
    czk_fr *fr;
    uint64_t seed;
    int kind;
};

inline void fill_fr_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    fill_arg *a = (fill_arg *)arg;
    czk_rng rng;
    (void)worker;
    czk_rng_seed(&rng, a->seed ^ (begin * 0x9e3779b97f4a7c15ULL));
    for (size_t i = begin; i < end; i++) {
        if (a->kind == FILL_UNIFORM) {
            czk_fr_random(&a->fr[i], &rng);
        } else if (a->kind == FILL_POREP) {
            uint64_t r = czk_rng_u64(&rng) % 100;
            if (r < 60)
                a->fr[i] = CZK_FR_ZERO;
            else if (r < 98)
                a->fr[i] = CZK_FR_ONE;
            else
                czk_fr_random(&a->fr[i], &rng);
        } else {
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

/* out[0 .. n) of the given kind, from seed (the same seed, the same values). */
inline void fill_fr(czk_pool *pool, czk_fr *out, size_t n, uint64_t seed, int kind) {
    fill_arg a = {out, seed, kind};
    czk_pool_run(pool, n, 1 << 14, fill_fr_fn, &a);
}

/* The group operations the point generator below needs. */
struct pg1 {
    typedef czk_g1_affine aff;
    typedef czk_g1_jacobian jac;
    static void random(aff *p, czk_rng *rng) {
        czk_g1_random(p, rng);
    }
    static void from_aff(jac *r, const aff *p) {
        czk_g1_jacobian_from_affine(r, p);
    }
    static void add_aff(jac *r, const jac *a, const aff *b) {
        czk_g1_jacobian_add_affine_var(r, a, b);
    }
    static int to_aff(aff *r, const jac *p, size_t n) {
        return czk_g1s_to_affine(r, p, n);
    }
};

struct pg2 {
    typedef czk_g2_affine aff;
    typedef czk_g2_jacobian jac;
    static void random(aff *p, czk_rng *rng) {
        czk_g2_random(p, rng);
    }
    static void from_aff(jac *r, const aff *p) {
        czk_g2_jacobian_from_affine(r, p);
    }
    static void add_aff(jac *r, const jac *a, const aff *b) {
        czk_g2_jacobian_add_affine_var(r, a, b);
    }
    static int to_aff(aff *r, const jac *p, size_t n) {
        return czk_g2s_to_affine(r, p, n);
    }
};

/* Points B[i & 1023] + C[i >> 10] (random B, C in arithmetic progression): distinct with
 * overwhelming probability, cheap, batch-converted to affine. */
template <class P> struct points_arg {
    typename P::aff *out;
    const typename P::aff *b, *c;
    int rc;
};

template <class P> void points_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    points_arg<P> *a = (points_arg<P> *)arg;
    const size_t chunk = 4096;
    typename P::jac *jac = (typename P::jac *)czk_malloc(chunk * sizeof(*jac));
    (void)worker;
    if (jac == NULL) {
        a->rc = CZK_ENOMEM;
        return;
    }
    for (size_t s = begin; s < end; s += chunk) {
        size_t m = end - s < chunk ? end - s : chunk;
        for (size_t j = 0; j < m; j++) {
            size_t i = s + j;
            P::from_aff(&jac[j], &a->c[i >> 10]);
            P::add_aff(&jac[j], &jac[j], &a->b[i & 1023]);
        }
        if (P::to_aff(a->out + s, jac, m) != CZK_OK)
            a->rc = CZK_ENOMEM;
    }
    czk_free(jac);
}

template <class P> int make_points_t(czk_pool *pool, typename P::aff *out, size_t n, czk_rng *rng) {
    size_t nc = (n + 1023) >> 10;
    typename P::aff *b = (typename P::aff *)czk_malloc(1024 * sizeof(*b));
    typename P::aff *c = (typename P::aff *)czk_malloc(nc * sizeof(*c));
    points_arg<P> a = {out, b, c, CZK_OK};
    int rc = CZK_ENOMEM;
    if (b == NULL || c == NULL)
        goto out;
    for (size_t i = 0; i < 1024; i++)
        P::random(&b[i], rng);
    /* C[j] = C0 + j·D: one addition each instead of a scalar multiplication. */
    {
        typename P::jac *cj = (typename P::jac *)czk_malloc(nc * sizeof(*cj));
        typename P::aff d;
        if (cj == NULL)
            goto out;
        P::random(&d, rng);
        P::random(&c[0], rng);
        P::from_aff(&cj[0], &c[0]);
        for (size_t i = 1; i < nc; i++)
            P::add_aff(&cj[i], &cj[i - 1], &d);
        rc = P::to_aff(c, cj, nc);
        czk_free(cj);
        if (rc != CZK_OK)
            goto out;
    }
    czk_pool_run(pool, n, 1 << 14, points_fn<P>, &a);
    rc = a.rc;
out:
    czk_free(b);
    czk_free(c);
    return rc;
}

inline int make_points(czk_pool *pool, czk_g1_affine *out, size_t n, czk_rng *rng) {
    return make_points_t<pg1>(pool, out, n, rng);
}

inline int make_points_g2(czk_pool *pool, czk_g2_affine *out, size_t n, czk_rng *rng) {
    return make_points_t<pg2>(pool, out, n, rng);
}

/* A primitive 2^lg-th root of unity: the CPU domain's (bellperson's 7^((r−1)/2^32) squared
 * down), else that value computed here. */
inline void root_of_unity(czk_fr *w, unsigned lg) {
    czk_ntt_domain *d = NULL;
    if (czk_ntt_domain_create(&d, lg, CZK_NTT_ROOT_BELLPERSON, NULL) == CZK_OK) {
        *w = *czk_ntt_domain_omega(d);
        czk_ntt_domain_destroy(d);
        return;
    }
    static const uint64_t e[4] = {0xfffe5bfeffffffffULL, 0x09a1d80553bda402ULL,
                                  0x299d7d483339d808ULL, 0x0000000073eda753ULL};
    czk_fr seven;
    czk_fr_set_u64(&seven, 7);
    czk_fr_pow(w, &seven, e, 4);
    for (unsigned i = lg; i < 32; i++)
        czk_fr_sqr(w, w);
}

inline const char *ntt_kind_name(czk_gpu_ntt_kind k) {
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

/* ---- the modules of czk_gpu_test -------------------------------------------------------- */

/* What czk_gpu_test (gpu_test.cu) hands every module's checks. */
struct test_env {
    czk_gpu *gpu;
    czk_pool *pool;
    czk_rng *rng;
    bool big;            /* --big: the NTT checks at lg 25, 27 and 28 too */
    unsigned max_msm_lg; /* --max-msm-lg: the G2 MSM checks up to 2^this (10..20) */
    size_t local_bytes;  /* the driver's local-memory reservation for the MSM kernels */
};

/* Checks that need no device (run first, also where there is none). */
void check_ntt_host(czk_rng *rng);    /* cuda/ntt/ntt_test.cu */
void check_prover_host(czk_rng *rng); /* prover_test.cu */

/* GPU against CPU, one function a module. */
void check_field(const test_env *e);  /* cuda/ff/ff_test.cu */
void check_ntt(const test_env *e);    /* cuda/ntt/ntt_test.cu */
void check_msm(const test_env *e);    /* cuda/msm/msm_test.cu */
void check_prover(const test_env *e); /* prover_test.cu */
void check_setup(const test_env *e);  /* cuda/setup/fixed_base_test.cu */

} // namespace czk_gpu_test

#endif /* CZK_GPU_GPU_TEST_CUH */
