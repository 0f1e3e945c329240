/*
 * czk_gpu_test: the CUDA backend against the CPU on random inputs, then timings.
 *
 * Checks: NTT forward, inverse, coset forward and coset inverse at lg 10, 14, 18, 20, 22, 23
 * (against the CPU transforms of src/poly when they are built in, else a naive O(n^2) DFT at
 * lg 10; always: spot values by Horner's rule at 3 points, and round trips); MSM G1 at 2^10,
 * 2^14, 2^18, 2^20, 2^22 with uniform scalars, 0/1-heavy witness-like scalars and the PoRep
 * mix (60% zero, 38% one) (against czk_msm_g1 when built in, else a naive sum at small n;
 * always: linearity MSM(s) + MSM(t) = MSM(s + t)), plus edge cases; the device's 0/1/other
 * split in G1 and G2 (each class alone and mixed, n = 1, infinity, duplicates, P and −P);
 * MSM G2 at 2^10 .. 2^20 with the three scalar kinds (against czk_msm_g2, and a naive sum
 * at 2^10). Then the prover backend
 * (czk_gpu_backend_create): (a) h against czk_poly_h_monomial / czk_poly_h_odd_coset, all n
 * outputs bit for bit, at lg 10, 16, 20; (b) whole proofs of PoRep-shaped circuits at
 * k = 10, 14, 18 with dev keys of both bases: GPU and CPU proofs with the same r, s must be
 * identical and verify, also with a backend limited to 128 MiB; (c) a 2^20 benchmark key
 * under a 256 MiB limit, whose MSMs must stream in batches: proofs identical to the CPU's.
 * Timings (not with CZK_GPU_TEST_QUICK=1): h at lg 20..27 (wall clock, pageable copies
 * included); a 2^24 PoRep-shaped partition with a benchmark key, per step, on the GPU with
 * all memory and with a 16 GiB limit (plans and peak VRAM printed) and on the CPU, proofs
 * compared; CZK_GPU_TEST_BIG=1 adds a 2^27 partition (GPU only); then the kernel timings,
 * median of 5 CUDA-event runs with inputs on the device, NTT lg 20..27 and MSM: G1 2^20..2^24
 * (2^27 with CZK_GPU_TEST_BIG=1), G1 with the PoRep mix at 2^24 and 2^26, G2 2^20..2^24.
 *
 * Exit status: 0 all good, 1 a mismatch or error, 77 no CUDA device (ctest's skip).
 * Environment: CZK_TEST_SEED (default: time), OUT (also write $OUT/gpu_test.log),
 * CZK_GPU_TEST_QUICK=1 (skip timings), CZK_GPU_TEST_MAX_NTT / CZK_GPU_TEST_MAX_MSM /
 * CZK_GPU_TEST_MAX_H (largest lg timed; MAX_MSM also bounds the G2 checks, 2^20 at most),
 * CZK_GPU_TEST_MIN_NTT / CZK_GPU_TEST_MIN_MSM (smallest lg timed, 20 by default: one size
 * alone, for a profiler; the NTT and MSM tables run between cudaProfilerStart and
 * cudaProfilerStop, so `ncu --profile-from-start off` sees only them),
 * CZK_GPU_TEST_BIG=1 (also NTT checks at lg 25, 27, 28), CZK_GPU_TEST_CHECKS=0 (no checks) or
 * 2 (the field and NTT checks only), CZK_GPU_TEST_THREADS (CPU threads, default all),
 * CZK_GPU_MSM_PROFILE=1 (the MSM steps of every timed row), CZK_GPU_TEST_SWEEP=1 (G1 at
 * 2^24 over windows c = 12..22), CZK_GPU_MSM_C (a fixed window for every MSM),
 * CZK_GPU_MSM_ACC_MINB / CZK_GPU_MSM_L0 (the accumulation variant and chunk, msm.cu),
 * CZK_GPU_NTT_SHAPE (the NTT passes' launch shape, ntt.cu).
 * Tuning benchmarks, also with CZK_GPU_TEST_QUICK=1: CZK_GPU_TEST_ADDRATE=1 (mixed additions
 * and Fp products per second, several launch shapes), CZK_GPU_TEST_ACC_SWEEP=1 (G1 at 2^24
 * over accumulation variants 1..4 blocks per SM and L0 = 32..256).
 *
 * Host C++ compiled by nvcc only because every .c under src/ belongs to the CPU library; of
 * the backend it uses gpu/backend.h and, for the MSM profile and the window sweep, two
 * benchmark hooks of gpu/cuda/internal.cuh (the CPU library is the reference).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_profiler_api.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fp.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/ec/xyzz.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/prover.cuh"
#include "groth16/backend.h"
#include "groth16/benchkey.h"
#include "groth16/keys.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "groth16/verify.h"
#include "poly/ntt.h"
#include "poly/quotient.h"
#include "r1cs/r1cs.h"
#include "r1cs/synth.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"
#include "util/timer.h"
#ifdef CZK_GPU_TEST_CPU_MSM
#include "msm/msm.h"
#endif

static FILE *g_log;
static int g_fail;

static unsigned env_unsigned(const char *name, unsigned dflt);

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
    int kind; /* 0 uniform, 1 witness-like, 2 PoRep witness mix */
} fill_arg;

static void fill_fr_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    fill_arg *a = (fill_arg *)arg;
    czk_rng rng;
    (void)worker;
    czk_rng_seed(&rng, a->seed ^ (begin * 0x9e3779b97f4a7c15ULL));
    for (size_t i = begin; i < end; i++) {
        if (a->kind == 0) {
            czk_fr_random(&a->fr[i], &rng);
        } else if (a->kind == 2) {
            /* 60% zero, 38% one, 2% uniform: the mix of a Filecoin PoRep witness. */
            uint64_t r = czk_rng_u64(&rng) % 100;
            if (r < 60)
                a->fr[i] = CZK_FR_ZERO;
            else if (r < 98)
                a->fr[i] = CZK_FR_ONE;
            else
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

template <class P> static void points_fn(void *arg, size_t begin, size_t end, unsigned worker) {
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

template <class P>
static int make_points_t(czk_pool *pool, typename P::aff *out, size_t n, czk_rng *rng) {
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

static int make_points(czk_pool *pool, czk_g1_affine *out, size_t n, czk_rng *rng) {
    return make_points_t<pg1>(pool, out, n, rng);
}

static int make_points_g2(czk_pool *pool, czk_g2_affine *out, size_t n, czk_rng *rng) {
    return make_points_t<pg2>(pool, out, n, rng);
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

/* ---- field products against the CPU ------------------------------------------------------ */

/*
 * out[4i .. 4i + 3] = mul_wide(a_i, b_i), a_i.sqr_wide(), a_i·b_i (operator*), a_i.sqr(): the
 * device's Montgomery products, each against czk_fp_mul / czk_fr_mul in test_field.
 */
template <class F> __global__ void field_check_kernel(F *out, const F *a, const F *b, unsigned n) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const F x = a[i], y = b[i];
    out[4 * i] = F::mul_wide(x, y);
    out[4 * i + 1] = x.sqr_wide();
    out[4 * i + 2] = x * y;
    out[4 * i + 3] = x.sqr();
}

/* out[i] = a[i]^(−1) (0 for 0): the binary GCD (inv) or Fermat (inv_fermat, its fallback). */
template <class F> __global__ void field_inv_kernel(F *out, const F *a, unsigned n, bool fermat) {
    const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = fermat ? a[i].inv_fermat() : a[i].inv();
}

/* The CPU side of one field: its element, modulus, one (R mod p) and product. */
struct field_fp {
    typedef czk_fp host;
    typedef czk_cuda::fp_t dev;
    static constexpr int LIMBS = CZK_FP_LIMBS;
    static constexpr uint64_t TOP_CLEAR = 0x0fffffffffffffffULL; /* below 2^380 < p */
    static const char *name() {
        return "Fp";
    }
    static const uint64_t *mod() {
        return CZK_FP_MODULUS;
    }
    static const host &one() {
        return CZK_FP_ONE;
    }
    static void mul(host *r, const host *a, const host *b) {
        czk_fp_mul(r, a, b);
    }
    static void inv(host *r, const host *a) {
        czk_fp_inv(r, a);
    }
    static void random(host *r, czk_rng *rng) {
        czk_fp_random(r, rng);
    }
};
struct field_fr {
    typedef czk_fr host;
    typedef czk_cuda::fr_t dev;
    static constexpr int LIMBS = CZK_FR_LIMBS;
    static constexpr uint64_t TOP_CLEAR = 0x3fffffffffffffffULL; /* below 2^254 < r */
    static const char *name() {
        return "Fr";
    }
    static const uint64_t *mod() {
        return CZK_FR_MODULUS;
    }
    static const host &one() {
        return CZK_FR_ONE;
    }
    static void mul(host *r, const host *a, const host *b) {
        czk_fr_mul(r, a, b);
    }
    static void inv(host *r, const host *a) {
        czk_fr_inv(r, a);
    }
    static void random(host *r, czk_rng *rng) {
        czk_fr_random(r, rng);
    }
};

/* r = x − y over n 64-bit limbs (no borrow out: the callers keep x ≥ y). */
static void limbs_sub(uint64_t *r, const uint64_t *x, const uint64_t *y, int n) {
    uint64_t borrow = 0;
    for (int i = 0; i < n; i++) {
        const uint64_t d = x[i] - y[i] - borrow;
        borrow = (x[i] < y[i] || (x[i] == y[i] && borrow)) ? 1 : 0;
        r[i] = d;
    }
}

/*
 * Raw limb values below p (element limbs as stored, Montgomery form or not does not matter to
 * a product): 0, 1, 2, p − 1, p − 2, R mod p (one), p − (R mod p) (minus one), (p − 1)/2,
 * (p + 1)/2, 2^(32k) − 1 and p − 2^(32k) for every 32-bit limb k, p's top 32-bit limb less
 * one over all-ones limbs, and p's top limb over zeros less one. Returns the count.
 */
template <class T> static size_t field_edges(typename T::host *out) {
    const int n = T::LIMBS;
    const uint64_t *p = T::mod();
    uint64_t v[8], w[8];
    size_t k = 0;
    auto put = [&](const uint64_t *x) { memcpy(out[k++].l, x, sizeof(uint64_t) * n); };
    auto small = [&](uint64_t s) {
        memset(v, 0, sizeof(v));
        v[0] = s;
    };
    small(0);
    put(v);
    small(1);
    put(v);
    small(2);
    put(v);
    small(1);
    limbs_sub(w, p, v, n);
    put(w); /* p − 1 */
    small(2);
    limbs_sub(w, p, v, n);
    put(w); /* p − 2 */
    put(T::one().l);
    limbs_sub(w, p, T::one().l, n);
    put(w); /* −1 */
    small(1);
    limbs_sub(w, p, v, n);
    for (int i = 0; i < n; i++) /* (p − 1)/2 */
        w[i] = (w[i] >> 1) | (i + 1 < n ? w[i + 1] << 63 : 0);
    put(w);
    w[0] += 1; /* (p + 1)/2: the low limb of (p − 1)/2 is not all ones for either prime */
    put(w);
    for (int b = 32; b < 64 * n; b += 32) {
        memset(v, 0, sizeof(v));
        for (int i = 0; i < n; i++) /* 2^b − 1: all-ones limbs below bit b */
            v[i] = b >= 64 * (i + 1) ? ~0ULL : b > 64 * i ? (1ULL << (b - 64 * i)) - 1 : 0;
        put(v);
        memset(v, 0, sizeof(v));
        v[b / 64] = 1ULL << (b % 64);
        limbs_sub(w, p, v, n);
        put(w); /* p − 2^b */
    }
    memset(v, 0xff, sizeof(v));
    v[n - 1] = ((p[n - 1] >> 32) - 1) << 32 | 0xffffffffULL;
    put(v);
    small(1);
    memset(w, 0, sizeof(w));
    w[n - 1] = p[n - 1] & 0xffffffff00000000ULL;
    limbs_sub(w, w, v, n);
    put(w);
    return k;
}

/*
 * The device's products against the CPU's on every pair of edge values (field_edges), the
 * edges against random elements, random pairs, and random elements whose 32-bit limbs are
 * all ones at random places: mul_wide, sqr_wide, operator* and sqr, each bit for bit equal to
 * czk_fp_mul / czk_fr_mul (of a and b, and of a and a).
 */
template <class T> static void test_field_t(czk_gpu *gpu, czk_rng *rng) {
    typedef typename T::host H;
    typedef typename T::dev D;
    static_assert(sizeof(H) == sizeof(D), "device and host elements must match bit for bit");
    const size_t ne_max = 64, nr = (size_t)1 << 16, nones = (size_t)1 << 14;
    H edges[ne_max];
    const size_t ne = field_edges<T>(edges);
    const size_t n = ne * ne + 2 * ne * 64 + nr + nones;
    H *a = (H *)czk_malloc(n * sizeof(H)), *b = (H *)czk_malloc(n * sizeof(H));
    H *got = (H *)czk_malloc(4 * n * sizeof(H));
    void *da = NULL, *db = NULL, *dout = NULL;
    czk_err err = {0, {0}};
    size_t k = 0, bad[4] = {0, 0, 0, 0}, first[4] = {0, 0, 0, 0};
    int rc = CZK_ENOMEM;
    static const char *const what[4] = {"mul_wide", "sqr_wide", "operator*", "sqr"};

    if (a == NULL || b == NULL || got == NULL || ne > ne_max) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < ne; j++, k++) {
            a[k] = edges[i];
            b[k] = edges[j];
        }
    for (size_t i = 0; i < ne; i++)
        for (size_t j = 0; j < 64; j++, k += 2) {
            a[k] = b[k + 1] = edges[i];
            T::random(&b[k], rng);
            T::random(&a[k + 1], rng);
        }
    for (size_t i = 0; i < nr; i++, k++) {
        T::random(&a[k], rng);
        T::random(&b[k], rng);
    }
    for (size_t i = 0; i < nones; i++, k++) {
        T::random(&a[k], rng);
        T::random(&b[k], rng);
        const uint64_t m = czk_rng_u64(rng);
        for (int j = 0; j < 2 * T::LIMBS; j++) {
            const uint64_t ones = 0xffffffffULL << (32 * (j & 1));
            if ((m >> j) & 1)
                a[k].l[j / 2] |= ones;
            if ((m >> (j + 2 * T::LIMBS)) & 1)
                b[k].l[j / 2] |= ones;
        }
        a[k].l[T::LIMBS - 1] &= T::TOP_CLEAR;
        b[k].l[T::LIMBS - 1] &= T::TOP_CLEAR;
    }
    rc = czk_gpu_alloc(gpu, &da, n * sizeof(H), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &db, n * sizeof(H), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &dout, 4 * n * sizeof(H), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, da, a, n * sizeof(H), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, db, b, n * sizeof(H), &err);
    if (rc == CZK_OK) {
        field_check_kernel<D><<<(unsigned)((n + 127) / 128), 128, 0, gpu->stream>>>(
            (D *)dout, (const D *)da, (const D *)db, (unsigned)n);
        if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(gpu->stream) != cudaSuccess)
            rc = czk_err_set(&err, CZK_ECUDA, "field check kernel failed");
    }
    if (rc == CZK_OK)
        rc = czk_gpu_download(gpu, got, dout, 4 * n * sizeof(H), &err);
    if (rc != CZK_OK) {
        fail("field check", rc, &err);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        H ab, aa;
        T::mul(&ab, &a[i], &b[i]);
        T::mul(&aa, &a[i], &a[i]);
        const H *want[4] = {&ab, &aa, &ab, &aa};
        for (int c = 0; c < 4; c++)
            if (memcmp(&got[4 * i + c], want[c], sizeof(H)) != 0 && bad[c]++ == 0)
                first[c] = i;
    }
    for (int c = 0; c < 4; c++) {
        if (bad[c] == 0) {
            check(1, "%s %s: %zu products (%zu edge pairs) equal the CPU's", T::name(), what[c], n,
                  ne * ne);
            continue;
        }
        check(0, "%s %s: %zu of %zu products differ from the CPU's, first at %zu", T::name(),
              what[c], bad[c], n, first[c]);
        for (int j = T::LIMBS - 1; j >= 0; j--)
            say("%016llx%s", (unsigned long long)a[first[c]].l[j], j > 0 ? "" : " (a)\n");
        for (int j = T::LIMBS - 1; j >= 0; j--)
            say("%016llx%s", (unsigned long long)b[first[c]].l[j], j > 0 ? "" : " (b)\n");
    }
    for (int fermat = 0; fermat < 2; fermat++) {
        /* Inverses of every edge value (a[i·ne] = edges[i]) and of the random elements. */
        const size_t ni = ne * ne + 4096 < n ? ne * ne + 4096 : n;
        size_t ibad = 0, ifirst = 0;
        field_inv_kernel<D><<<(unsigned)((ni + 127) / 128), 128, 0, gpu->stream>>>(
            (D *)dout, (const D *)da, (unsigned)ni, fermat != 0);
        if (cudaGetLastError() != cudaSuccess || cudaStreamSynchronize(gpu->stream) != cudaSuccess)
            rc = czk_err_set(&err, CZK_ECUDA, "field inverse kernel failed");
        if (rc == CZK_OK)
            rc = czk_gpu_download(gpu, got, dout, ni * sizeof(H), &err);
        if (rc != CZK_OK) {
            fail("field inverse check", rc, &err);
            goto out;
        }
        for (size_t i = 0; i < ni; i++) {
            H want;
            T::inv(&want, &a[i]);
            if (memcmp(&got[i], &want, sizeof(H)) != 0 && ibad++ == 0)
                ifirst = i;
        }
        if (ibad == 0)
            check(1, "%s %s: %zu inverses (every edge value, 0 included) equal the CPU's",
                  T::name(), fermat ? "inv_fermat" : "inv (binary GCD)", ni);
        else
            check(0, "%s %s: %zu of %zu inverses differ from the CPU's, first at %zu", T::name(),
                  fermat ? "inv_fermat" : "inv (binary GCD)", ibad, ni, ifirst);
    }
out:
    czk_gpu_free(gpu, da, n * sizeof(H));
    czk_gpu_free(gpu, db, n * sizeof(H));
    czk_gpu_free(gpu, dout, 4 * n * sizeof(H));
    czk_free(a);
    czk_free(b);
    czk_free(got);
}

static void test_field(czk_gpu *gpu, czk_rng *rng) {
    say("\n== field products (device mul_wide, sqr_wide, operator*, sqr) vs CPU ==\n");
    test_field_t<field_fp>(gpu, rng);
    test_field_t<field_fr>(gpu, rng);
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
    /* Every pass shape: 1-2 (direct DFT), 3-10 (one pass), 11-20 (two), 21-22 (three, the
     * second pass's twists from a table of ω_N), 23 (the same from a flat table); with
     * CZK_GPU_TEST_BIG=1 also 25, 27 and 28 (CZK_GPU_NTT_MAX_LG: a first pass of 10 bits
     * whose twists need both levels of the power table). */
    const unsigned lgs[] = {1, 2, 3, 5, 9, 10, 11, 13, 14, 17, 18, 20, 21, 22, 23, 25, 27, 28};
    const size_t n_lgs =
        sizeof(lgs) / sizeof(lgs[0]) - (env_unsigned("CZK_GPU_TEST_BIG", 0) ? 0 : 3);
    const czk_gpu_ntt_kind kinds[] = {CZK_GPU_NTT_FORWARD, CZK_GPU_NTT_INVERSE,
                                      CZK_GPU_NTT_COSET_FORWARD, CZK_GPU_NTT_COSET_INVERSE};
    czk_fr g;
    czk_fr_set_u64(&g, 7); /* the coset shift bellperson uses */
    say("\n== NTT vs CPU ==\n");
    for (size_t li = 0; li < n_lgs; li++) {
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
        for (int kind = 0; kind < 3; kind++) {
            const char *kn = kind == 0 ? "uniform" : kind == 1 ? "0/1-heavy" : "PoRep-mix";
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

/* ---- MSM G2, and the 0/1/other split in both groups ------------------------------------- */

static void naive_msm_g2(czk_g2_jacobian *r, const czk_g2_affine *p, const czk_fr *s, size_t n) {
    czk_g2_jacobian_set_infinity(r);
    for (size_t i = 0; i < n; i++) {
        czk_g2_jacobian pj, t;
        czk_g2_jacobian_from_affine(&pj, &p[i]);
        czk_g2_jacobian_mul_var(&t, &pj, &s[i]);
        czk_g2_jacobian_add_var(r, r, &t);
    }
}

/* As cpu_msm, in G2. */
static int cpu_msm_g2(czk_g2_jacobian *r, const czk_g2_affine *p, const czk_fr *s, size_t n,
                      czk_pool *pool) {
#ifdef CZK_GPU_TEST_CPU_MSM
    czk_err err = {0, {0}};
    int rc = czk_msm_g2(r, p, s, n, pool, &err);
    if (rc != CZK_OK)
        fail("czk_msm_g2", rc, &err);
    return rc;
#else
    (void)pool;
    if (n > ((size_t)1 << 14))
        return CZK_EUNSUPPORTED;
    naive_msm_g2(r, p, s, n);
    return CZK_OK;
#endif
}

/* The two groups, for the tests that run in both. */
struct tg1 {
    typedef czk_g1_affine aff;
    typedef czk_g1_jacobian jac;
    static const char *name() {
        return "G1";
    }
    static int make(czk_pool *pool, aff *p, size_t n, czk_rng *rng) {
        return make_points(pool, p, n, rng);
    }
    static void neg(aff *r, const aff *p) {
        czk_g1_affine_neg(r, p);
    }
    static void set_inf(jac *r) {
        czk_g1_jacobian_set_infinity(r);
    }
    static void add_aff(jac *r, const jac *a, const aff *b) {
        czk_g1_jacobian_add_affine_var(r, a, b);
    }
    static void add(jac *r, const jac *a, const jac *b) {
        czk_g1_jacobian_add_var(r, a, b);
    }
    static void mul(jac *r, const aff *p, const czk_fr *k) {
        jac pj;
        czk_g1_jacobian_from_affine(&pj, p);
        czk_g1_jacobian_mul_var(r, &pj, k);
    }
    static int equal(const jac *a, const jac *b) {
        return czk_g1_jacobian_equal(a, b);
    }
    static int is_inf(const jac *a) {
        return czk_g1_jacobian_is_infinity(a);
    }
    static void naive(jac *r, const aff *p, const czk_fr *s, size_t n) {
        naive_msm(r, p, s, n);
    }
    static int cpu(jac *r, const aff *p, const czk_fr *s, size_t n, czk_pool *pool) {
        return cpu_msm(r, p, s, n, pool);
    }
    static int gpu(czk_gpu *g, jac *r, const aff *p, const czk_fr *s, size_t n, czk_gpu_mem where,
                   czk_err *err) {
        return czk_gpu_msm_g1_var(g, r, p, s, n, where, err);
    }
    static size_t scratch_bytes(size_t n) {
        return czk_gpu_msm_g1_scratch_bytes(n);
    }
    /* The prover's form: scratch the caller holds (its arena), no allocation in the call. */
    static int scratch_exact(czk_gpu *g, size_t n, size_t *bytes, czk_err *err) {
        return czk__gpu_msm_g1_scratch(g, n, bytes, err);
    }
    static int run(czk_gpu *g, jac *r, const void *p, const void *s, size_t n, void *scratch,
                   size_t bytes, czk_err *err) {
        return czk__gpu_msm_g1_run(g, r, p, s, n, scratch, bytes, err);
    }
};

struct tg2 {
    typedef czk_g2_affine aff;
    typedef czk_g2_jacobian jac;
    static const char *name() {
        return "G2";
    }
    static int make(czk_pool *pool, aff *p, size_t n, czk_rng *rng) {
        return make_points_g2(pool, p, n, rng);
    }
    static void neg(aff *r, const aff *p) {
        czk_g2_affine_neg(r, p);
    }
    static void set_inf(jac *r) {
        czk_g2_jacobian_set_infinity(r);
    }
    static void add_aff(jac *r, const jac *a, const aff *b) {
        czk_g2_jacobian_add_affine_var(r, a, b);
    }
    static void add(jac *r, const jac *a, const jac *b) {
        czk_g2_jacobian_add_var(r, a, b);
    }
    static void mul(jac *r, const aff *p, const czk_fr *k) {
        jac pj;
        czk_g2_jacobian_from_affine(&pj, p);
        czk_g2_jacobian_mul_var(r, &pj, k);
    }
    static int equal(const jac *a, const jac *b) {
        return czk_g2_jacobian_equal(a, b);
    }
    static int is_inf(const jac *a) {
        return czk_g2_jacobian_is_infinity(a);
    }
    static void naive(jac *r, const aff *p, const czk_fr *s, size_t n) {
        naive_msm_g2(r, p, s, n);
    }
    static int cpu(jac *r, const aff *p, const czk_fr *s, size_t n, czk_pool *pool) {
        return cpu_msm_g2(r, p, s, n, pool);
    }
    static int gpu(czk_gpu *g, jac *r, const aff *p, const czk_fr *s, size_t n, czk_gpu_mem where,
                   czk_err *err) {
        return czk_gpu_msm_g2_var(g, r, p, s, n, where, err);
    }
    static size_t scratch_bytes(size_t n) {
        return czk_gpu_msm_g2_scratch_bytes(n);
    }
    /* The prover's form: scratch the caller holds (its arena), no allocation in the call. */
    static int scratch_exact(czk_gpu *g, size_t n, size_t *bytes, czk_err *err) {
        return czk__gpu_msm_g2_scratch(g, n, bytes, err);
    }
    static int run(czk_gpu *g, jac *r, const void *p, const void *s, size_t n, void *scratch,
                   size_t bytes, czk_err *err) {
        return czk__gpu_msm_g2_run(g, r, p, s, n, scratch, bytes, err);
    }
};

template <class T>
static int gpu_msm_t(czk_gpu *gpu, typename T::jac *r, const typename T::aff *p, const czk_fr *s,
                     size_t n) {
    czk_err err = {0, {0}};
    int rc = T::gpu(gpu, r, p, s, n, CZK_GPU_MEM_HOST, &err);
    if (rc != CZK_OK)
        fail(T::name(), rc, &err);
    return rc;
}

/* Σ p[i] over i < n except `skip` (n: none), by additions alone: the reference for ones. */
template <class T>
static void sum_points(typename T::jac *r, const typename T::aff *p, size_t n, size_t skip) {
    T::set_inf(r);
    for (size_t i = 0; i < n; i++)
        if (i != skip)
            T::add_aff(r, r, &p[i]);
}

/*
 * The device's split of scalars into 0, 1 and others: each class alone, all three mixed,
 * with points at infinity, duplicates and P, −P in every class, and enough ones for the
 * tree that adds their chunk sums to take two rounds.
 */
template <class T> static void test_msm_split(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    const size_t n = 20001; /* 626 chunks of ones: two rounds of 128 */
    typename T::aff *p = (typename T::aff *)czk_malloc(n * sizeof(*p));
    czk_fr *s = (czk_fr *)czk_malloc(n * sizeof(*s));
    typename T::jac a, b, t;
    czk_fr minus_one;
    if (p == NULL || s == NULL || T::make(pool, p, n, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("\n== MSM %s split of 0 / 1 / other scalars ==\n", T::name());
    czk_fr_neg(&minus_one, &CZK_FR_ONE);
    /* n = 1 in each class, and r − 1. */
    for (int k = 0; k < 4; k++) {
        const char *kn[4] = {"zero", "one", "r - 1", "random"};
        if (k == 0)
            s[0] = CZK_FR_ZERO;
        else if (k == 1)
            s[0] = CZK_FR_ONE;
        else if (k == 2)
            s[0] = minus_one;
        else
            czk_fr_random(&s[0], rng);
        if (gpu_msm_t<T>(gpu, &a, p, s, 1) != CZK_OK)
            continue;
        T::naive(&b, p, s, 1);
        check(T::equal(&a, &b), "%s n = 1, scalar %s", T::name(), kn[k]);
    }
    /* All zeros. */
    for (size_t i = 0; i < n; i++)
        s[i] = CZK_FR_ZERO;
    if (gpu_msm_t<T>(gpu, &a, p, s, n) == CZK_OK)
        check(T::is_inf(&a), "%s n = %zu all zero is infinity", T::name(), n);
    /* All ones: Pippenger has nothing to do. */
    for (size_t i = 0; i < n; i++)
        s[i] = CZK_FR_ONE;
    if (gpu_msm_t<T>(gpu, &a, p, s, n) == CZK_OK) {
        sum_points<T>(&b, p, n, n);
        check(T::equal(&a, &b), "%s n = %zu all one equals the sum of the points", T::name(), n);
    }
    /* All ones and a single other: Pippenger over one point. */
    czk_fr_random(&s[17], rng);
    if (gpu_msm_t<T>(gpu, &a, p, s, n) == CZK_OK) {
        sum_points<T>(&b, p, n, 17);
        T::mul(&t, &p[17], &s[17]);
        T::add(&b, &b, &t);
        check(T::equal(&a, &b), "%s n = %zu all one but one other", T::name(), n);
    }
    s[17] = CZK_FR_ONE;
    /* Ones over special points: infinity, a duplicate (doubling), P and −P (cancelling). */
    memset(&p[3], 0, sizeof(p[3]));
    p[5] = p[4];
    T::neg(&p[7], &p[6]);
    p[40] = p[39]; /* a duplicate in another chunk of 32 */
    T::neg(&p[100], &p[39]);
    if (gpu_msm_t<T>(gpu, &a, p, s, n) == CZK_OK) {
        sum_points<T>(&b, p, n, n);
        check(T::equal(&a, &b), "%s n = %zu all one with infinity, duplicates, P and -P", T::name(),
              n);
    }
    /* A point at infinity alone, scalar one. */
    if (gpu_msm_t<T>(gpu, &a, p + 3, s, 1) == CZK_OK)
        check(T::is_inf(&a), "%s a point at infinity with scalar 1 is infinity", T::name());
    /* All others over the same special points (n small: the naive sum is the reference). */
    {
        const size_t m = 1025;
        for (size_t i = 0; i < m; i++)
            czk_fr_random(&s[i], rng);
        s[7] = s[6]; /* P and −P with equal scalars cancel */
        s[5] = s[4]; /* a duplicate with the same scalar doubles */
        s[11] = minus_one;
        if (gpu_msm_t<T>(gpu, &a, p, s, m) == CZK_OK) {
            T::naive(&b, p, s, m);
            check(T::equal(&a, &b), "%s n = %zu all other with special points", T::name(), m);
        }
        /* Mixed: a third each, the special points falling in every class. */
        for (size_t i = 0; i < m; i++) {
            uint64_t r = czk_rng_u64(rng) % 3;
            if (r == 0)
                s[i] = CZK_FR_ZERO;
            else if (r == 1)
                s[i] = CZK_FR_ONE;
            else
                czk_fr_random(&s[i], rng);
        }
        s[4] = s[5] = CZK_FR_ONE;
        s[6] = s[7] = CZK_FR_ONE;
        s[3] = CZK_FR_ONE;
        s[39] = s[40] = minus_one;
        if (gpu_msm_t<T>(gpu, &a, p, s, m) == CZK_OK) {
            T::naive(&b, p, s, m);
            check(T::equal(&a, &b), "%s n = %zu mixed 0 / 1 / other with special points", T::name(),
                  m);
        }
    }
out:
    czk_free(p);
    czk_free(s);
}

/* G2 against the CPU at 2^10 .. 2^20 (bounded by CZK_GPU_TEST_MAX_MSM), three scalar kinds. */
static void test_msm_g2(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    const unsigned lgs[] = {10, 14, 18, 20};
    unsigned maxlg = env_unsigned("CZK_GPU_TEST_MAX_MSM", 20);
    const size_t nmax = (size_t)1 << (maxlg < 20 ? (maxlg < 10 ? 10 : maxlg) : 20);
    czk_g2_affine *p = (czk_g2_affine *)czk_malloc(nmax * sizeof(*p));
    czk_fr *s = (czk_fr *)czk_malloc(nmax * sizeof(*s));
    if (p == NULL || s == NULL || make_points_g2(pool, p, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("\n== MSM G2 vs CPU ==\n");
    for (size_t li = 0; li < sizeof(lgs) / sizeof(lgs[0]); li++) {
        size_t n = (size_t)1 << lgs[li];
        if (n > nmax)
            break;
        for (int kind = 0; kind < 3; kind++) {
            const char *kn = kind == 0 ? "uniform" : kind == 1 ? "0/1-heavy" : "PoRep-mix";
            czk_g2_jacobian a, b;
            int rc;
            fill_fr(pool, s, n, czk_rng_u64(rng), kind);
            if (gpu_msm_t<tg2>(gpu, &a, p, s, n) != CZK_OK)
                continue;
            rc = cpu_msm_g2(&b, p, s, n, pool);
            if (rc == CZK_OK)
                check(czk_g2_jacobian_equal(&a, &b), "msm G2 2^%-2u %-9s equals the CPU", lgs[li],
                      kn);
            if (n <= 1024) {
                naive_msm_g2(&b, p, s, n);
                check(czk_g2_jacobian_equal(&a, &b), "msm G2 2^%-2u %-9s equals the naive sum",
                      lgs[li], kn);
            }
        }
    }
out:
    czk_free(p);
    czk_free(s);
}

/* ---- timings ---------------------------------------------------------------------------- */

static unsigned env_unsigned(const char *name, unsigned dflt) {
    const char *v = getenv(name);
    return v != NULL && *v ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

static void bench_ntt(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    unsigned maxlg = env_unsigned("CZK_GPU_TEST_MAX_NTT", 27);
    unsigned minlg = env_unsigned("CZK_GPU_TEST_MIN_NTT", 20);
    if (maxlg > CZK_GPU_NTT_MAX_LG)
        maxlg = CZK_GPU_NTT_MAX_LG;
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
    for (unsigned lg = minlg < 20 ? 20 : minlg; lg <= maxlg; lg++) {
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

/*
 * Median and minimum of `runs` (1..5) CUDA-event runs of call(&r) after an untimed warm-up;
 * *same &= every result equals *want (or, with want NULL, the warm-up's, left in *first when
 * that is not NULL).
 */
template <class T, class Call>
static int time_runs(czk_gpu *gpu, Call call, int runs, const typename T::jac *want,
                     typename T::jac *first, double *med, double *mn, int *same, czk_err *err) {
    typename T::jac w, r;
    double ms[5];
    int rc = call(&w);
    runs = runs < 1 ? 1 : runs > 5 ? 5 : runs;
    if (want == NULL)
        want = &w;
    *same &= rc == CZK_OK && T::equal(want, &w);
    if (first != NULL)
        *first = w;
    for (int k = 0; k < runs && rc == CZK_OK; k++) {
        rc = czk_gpu_timer_start(gpu, err);
        if (rc == CZK_OK)
            rc = call(&r);
        if (rc == CZK_OK)
            rc = czk_gpu_timer_stop(gpu, &ms[k], err);
        *same &= rc == CZK_OK && T::equal(want, &r);
    }
    if (rc == CZK_OK) {
        qsort(ms, (size_t)runs, sizeof(double), cmp_double);
        *med = ms[runs / 2];
        *mn = ms[0];
    }
    return rc;
}

/* The public call (device inputs; it allocates and frees its scratch each time), timed as
 * time_runs says; *same is set, not accumulated; *result: the warm-up's (when not NULL). */
template <class T>
static int time_msm(czk_gpu *gpu, const void *dp, const void *ds, size_t n, double *med, double *mn,
                    int *same, czk_err *err, int runs = 5, typename T::jac *result = NULL) {
    auto call = [&](typename T::jac *r) {
        return T::gpu(gpu, r, (const typename T::aff *)dp, (const czk_fr *)ds, n,
                      CZK_GPU_MEM_DEVICE, err);
    };
    *same = 1;
    return time_runs<T>(gpu, call, runs, NULL, result, med, mn, same, err);
}

/*
 * Median of 5 CUDA-event runs of the MSM as the prover runs it: scratch allocated once
 * beforehand (the prover carves it from its arena), so the call allocates nothing. The
 * table's first column times the public call, which allocates and frees its scratch each time.
 */
template <class T>
static int time_msm_arena(czk_gpu *gpu, const void *dp, const void *ds, size_t n, double *med,
                          const typename T::jac *want, int *same, czk_err *err) {
    void *scratch = NULL;
    size_t bytes = 0;
    double mn;
    int rc = T::scratch_exact(gpu, n, &bytes, err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &scratch, bytes, err);
    if (rc == CZK_OK) {
        auto call = [&](typename T::jac *r) {
            return T::run(gpu, r, dp, ds, n, scratch, bytes, err);
        };
        rc = time_runs<T>(gpu, call, 5, want, NULL, med, &mn, same, err);
    }
    czk_gpu_free(gpu, scratch, bytes);
    return rc;
}

/* One row of the MSM table, and under it the steps of the last run when profiling is on. */
template <class T>
static int bench_row(czk_gpu *gpu, const void *dp, const void *ds, unsigned lg, const char *kind) {
    czk_err err = {0, {0}};
    czk__gpu_msm_profile pf;
    size_t n = (size_t)1 << lg;
    double med = 0, mn = 0, arena = 0;
    int same = 0;
    typename T::jac first;
    int rc = time_msm<T>(gpu, dp, ds, n, &med, &mn, &same, &err, 5, &first);
    if (rc == CZK_OK)
        rc = time_msm_arena<T>(gpu, dp, ds, n, &arena, &first, &same, &err);
    if (rc != CZK_OK) {
        fail("msm timing", rc, &err);
        return rc;
    }
    say("%-3s 2^%-3u %-10s %10.2f %10.2f %10.2f %10.1f  %s\n", T::name(), lg, kind, med, mn, arena,
        (double)n / arena / 1e3, same ? "yes" : "NO");
    if (!same)
        g_fail = 1;
    if (czk__gpu_msm_last_profile(gpu, &pf))
        say("      steps: split %.2f, ones %.2f, digits %.2f, sort %.2f, acc %.2f, windows %.2f "
            "ms (others %zu, ones %zu, c %u, window groups %u)\n",
            pf.split_ms, pf.ones_ms, pf.digits_ms, pf.sort_ms, pf.acc_ms, pf.windows_ms, pf.n_other,
            pf.n_one, pf.c, pf.groups);
    return CZK_OK;
}

/* The largest lg <= maxlg whose points, scalars (`vectors` arrays) and scratch fit in 90% of
 * free device memory (at least 20). */
template <class T> static unsigned fit_lg(czk_gpu *gpu, unsigned maxlg, unsigned vectors) {
    size_t free_b = 0, total_b = 0;
    czk_err err = {0, {0}};
    if (czk_gpu_mem_info(gpu, &free_b, &total_b, &err) != CZK_OK)
        return 20;
    while (maxlg > 20) {
        size_t n = (size_t)1 << maxlg;
        if (n * (sizeof(typename T::aff) + 32 * vectors) + T::scratch_bytes(n) < free_b / 10 * 9)
            break;
        maxlg--;
    }
    return maxlg;
}

/*
 * MSM timings with inputs on the device: G1 with uniform scalars at 2^20 .. 2^max (max from
 * CZK_GPU_TEST_MAX_MSM, 24 by default), G1 with the PoRep witness mix (60% zero, 38% one)
 * at 2^24 and 2^26, G2 with uniform scalars at 2^20 .. 2^min(max, 24); with
 * CZK_GPU_TEST_SWEEP=1 a sweep of the window over c = 12 .. 22 at 2^24 (G1).
 */
static void bench_msm(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    unsigned maxlg =
        env_unsigned("CZK_GPU_TEST_MAX_MSM", env_unsigned("CZK_GPU_TEST_BIG", 0) ? 27 : 24);
    unsigned mixlg = maxlg > 26 ? maxlg : 26, toplg, g2lg;
    unsigned minlg = env_unsigned("CZK_GPU_TEST_MIN_MSM", 20);
    int sweep = env_unsigned("CZK_GPU_TEST_SWEEP", 0) == 1;
    size_t nmax;
    czk_err err = {0, {0}};
    czk_g1_affine *p = NULL;
    czk_g2_affine *p2 = NULL;
    czk_fr *s = NULL;
    void *dp = NULL, *ds = NULL, *dm = NULL;
    int rc;
    uint64_t t0;

    if (env_unsigned("CZK_GPU_TEST_MAX_MSM", 0) != 0)
        mixlg = maxlg; /* an explicit bound holds for every row */
    mixlg = fit_lg<tg1>(gpu, mixlg, 2);
    maxlg = maxlg < mixlg ? maxlg : mixlg;
    toplg = maxlg > mixlg ? maxlg : mixlg;
    if (sweep && toplg < 24)
        sweep = 0;
    nmax = (size_t)1 << toplg;
    say("\n== MSM timings (ms, median and min of 5, CUDA events, inputs on the device; arena: "
        "scratch allocated beforehand, as the prover holds it) ==\n");
    t0 = czk_time_ns();
    p = (czk_g1_affine *)czk_malloc(nmax * sizeof(*p));
    s = (czk_fr *)czk_malloc(nmax * sizeof(*s));
    if (p == NULL || s == NULL || make_points(pool, p, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("(2^%u G1 points and scalars generated in %.1f s)\n", toplg, (czk_time_ns() - t0) * 1e-9);
    /* Uniform scalars in ds, the PoRep mix in dm. */
    rc = czk_gpu_alloc(gpu, &dp, nmax * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &ds, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &dm, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dp, p, nmax * sizeof(*p), &err);
    if (rc == CZK_OK) {
        fill_fr(pool, s, nmax, czk_rng_u64(rng), 0);
        rc = czk_gpu_upload(gpu, ds, s, nmax * sizeof(*s), &err);
    }
    if (rc == CZK_OK) {
        fill_fr(pool, s, nmax, czk_rng_u64(rng), 2);
        rc = czk_gpu_upload(gpu, dm, s, nmax * sizeof(*s), &err);
    }
    if (rc != CZK_OK) {
        fail("msm inputs", rc, &err);
        goto out;
    }
    say("%-3s %-6s %-10s %10s %10s %10s %10s  %s\n", "", "n", "scalars", "ms", "min", "arena",
        "Mpts/s", "runs agree");
    for (unsigned lg = minlg; lg <= maxlg && rc == CZK_OK; lg++)
        rc = bench_row<tg1>(gpu, dp, ds, lg, "uniform");
    for (unsigned lg = minlg > 24 ? 26 : 24; lg <= mixlg && rc == CZK_OK; lg += 2)
        rc = bench_row<tg1>(gpu, dp, dm, lg, "PoRep-mix");
    if (sweep && rc == CZK_OK) {
        say("\n== MSM G1 window sweep at 2^24 (ms, median of 5) ==\n%-4s %10s %10s\n", "c",
            "uniform", "PoRep-mix");
        for (unsigned c = 12; c <= 22 && rc == CZK_OK; c++) {
            double mu = 0, mm = 0, mn;
            int same;
            czk__gpu_msm_force_window(c);
            rc = time_msm<tg1>(gpu, dp, ds, (size_t)1 << 24, &mu, &mn, &same, &err);
            if (rc == CZK_OK)
                rc = time_msm<tg1>(gpu, dp, dm, (size_t)1 << 24, &mm, &mn, &same, &err);
            if (rc != CZK_OK)
                fail("msm sweep", rc, &err);
            else
                say("%-4u %10.2f %10.2f\n", c, mu, mm);
        }
        czk__gpu_msm_force_window(0);
    }
    czk_gpu_free(gpu, dp, nmax * sizeof(czk_g1_affine));
    czk_gpu_free(gpu, ds, nmax * sizeof(czk_fr));
    czk_gpu_free(gpu, dm, nmax * sizeof(czk_fr));
    dp = ds = dm = NULL;
    czk_free(p);
    p = NULL;

    /* G2, uniform scalars (the first nmax2 of s). */
    g2lg = fit_lg<tg2>(gpu, maxlg < 24 ? maxlg : 24, 1);
    nmax = (size_t)1 << g2lg;
    t0 = czk_time_ns();
    p2 = (czk_g2_affine *)czk_malloc(nmax * sizeof(*p2));
    if (p2 == NULL || make_points_g2(pool, p2, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("(2^%u G2 points generated in %.1f s)\n", g2lg, (czk_time_ns() - t0) * 1e-9);
    fill_fr(pool, s, nmax, czk_rng_u64(rng), 0);
    rc = czk_gpu_alloc(gpu, &dp, nmax * sizeof(*p2), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &ds, nmax * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dp, p2, nmax * sizeof(*p2), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, ds, s, nmax * sizeof(*s), &err);
    if (rc != CZK_OK) {
        fail("msm G2 inputs", rc, &err);
        goto out;
    }
    for (unsigned lg = minlg; lg <= g2lg && rc == CZK_OK; lg++)
        rc = bench_row<tg2>(gpu, dp, ds, lg, "uniform");
out:
    czk_gpu_free(gpu, dp, nmax * (p2 != NULL ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine)));
    czk_gpu_free(gpu, ds, nmax * sizeof(czk_fr));
    czk_gpu_free(gpu, dm, nmax * sizeof(czk_fr));
    czk_free(p);
    czk_free(p2);
    czk_free(s);
}

/* ---- MSM tuning benchmarks (each only when its environment variable is set) -------------- */

/* Entries of the point table of the arithmetic benchmarks: 2^14 G1 points are 1.5 MiB, L2
 * resident, so the loads cost what the MSM's random point reads cost at best. */
#define ADDRATE_LG 14

/* One xorshift32 step: a table index the compiler cannot foresee, as the sorted digits are. */
__device__ __forceinline__ uint32_t addrate_next(uint32_t s) {
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    return s;
}

/* Folds the limbs of an Fp element into h (the checksum that keeps the work alive). */
template <class F> __device__ __forceinline__ uint32_t addrate_fold(uint32_t h, const F &a) {
    for (int i = 0; i < F::N; i++)
        h ^= a.l[i] * (2u * (uint32_t)i + 1u);
    return h;
}

/*
 * k mixed XYZZ additions per thread (add_affine, the accumulation's operation) of table points
 * at pseudo-random indices (LOAD), or of one point held in registers (!LOAD: the arithmetic
 * alone); the result's checksum goes to *sink.
 */
template <unsigned BLOCK, unsigned MINB, bool LOAD>
__global__ void __launch_bounds__(BLOCK, MINB)
    addrate_kernel(uint32_t *sink, const czk_cuda::g1_affine_t *table, unsigned k) {
    const uint32_t mask = (1u << ADDRATE_LG) - 1, tid = blockIdx.x * blockDim.x + threadIdx.x;
    uint32_t s = tid * 0x9e3779b9u + 0x7f4a7c15u, h = 0;
    czk_cuda::g1_xyzz_t acc = czk_cuda::g1_xyzz_t::inf();
    czk_cuda::g1_affine_t q = czk_cuda::g1_affine_t::load_ro(table + (tid & mask));
    s = s != 0 ? s : 1;
    for (unsigned i = 0; i < k; i++) {
        if (LOAD) {
            s = addrate_next(s);
            q = czk_cuda::g1_affine_t::load_ro(table + (s & mask));
        }
        acc.add_affine(q);
    }
    h = addrate_fold(addrate_fold(addrate_fold(addrate_fold(h, acc.x), acc.y), acc.zz), acc.zzz);
    atomicXor(sink, h);
}

/* Table entry i's x-coordinate as an element of F: Fp itself, or for Fr its low 8 limbs with
 * the top bits cleared (below r, as Montgomery products assume; the values do not matter). */
template <class F> __device__ __forceinline__ F fpmul_input(const czk_cuda::g1_affine_t *p) {
    czk_cuda::fp_t x = czk_cuda::fp_t::load_ro(&p->x);
    F r;
#pragma unroll
    for (int i = 0; i < F::N; i++)
        r.l[i] = x.l[i];
    if (F::N == 8)
        r.l[7] &= 0x3fffffffu;
    return r;
}

/*
 * k rounds of NC independent dependent chains a_j <- a_j·b per thread (Montgomery, F = Fp or
 * Fr): mul_wide (WIDE, what the curve formulas and the NTT use) or operator*. Inputs come
 * from the table's x-coordinates.
 */
template <class F, unsigned BLOCK, unsigned MINB, unsigned NC, bool WIDE>
__global__ void __launch_bounds__(BLOCK, MINB)
    fpmul_kernel(uint32_t *sink, const czk_cuda::g1_affine_t *table, unsigned k) {
    const uint32_t mask = (1u << ADDRATE_LG) - 1, tid = blockIdx.x * blockDim.x + threadIdx.x;
    F a[NC];
    const F b = fpmul_input<F>(&table[(tid * 7u + 3u) & mask]);
    uint32_t h = 0;
#pragma unroll
    for (unsigned j = 0; j < NC; j++)
        a[j] = fpmul_input<F>(&table[(tid + 977u * j) & mask]);
    for (unsigned i = 0; i < k; i++) {
#pragma unroll
        for (unsigned j = 0; j < NC; j++)
            a[j] = WIDE ? F::mul_wide(a[j], b) : a[j] * b;
    }
#pragma unroll
    for (unsigned j = 0; j < NC; j++)
        h = addrate_fold(h, a[j]);
    atomicXor(sink, h);
}

/* k dependent inversions per thread, a <- a^(−1) + b: the binary GCD or Fermat. */
template <class F, bool FERMAT>
__global__ void __launch_bounds__(128)
    fpinv_kernel(uint32_t *sink, const czk_cuda::g1_affine_t *table, unsigned k) {
    const uint32_t mask = (1u << ADDRATE_LG) - 1, tid = blockIdx.x * blockDim.x + threadIdx.x;
    F a = fpmul_input<F>(&table[tid & mask]);
    const F b = fpmul_input<F>(&table[(tid * 7u + 3u) & mask]);
    for (unsigned i = 0; i < k; i++)
        a = (FERMAT ? a.inv_fermat() : a.inv()) + b;
    atomicXor(sink, addrate_fold(0u, a));
}

typedef void (*addrate_fn)(uint32_t *, const czk_cuda::g1_affine_t *, unsigned);

/* One benchmark kernel: its launch shape, what one thread does per step, and the label. */
struct addrate_variant {
    addrate_fn fn;
    unsigned block, minb, ops_per_step; /* operations counted per loop step of a thread */
    unsigned steps;                     /* loop steps per thread */
    const char *what;
};

/*
 * CZK_GPU_TEST_ADDRATE=1: the arithmetic ceiling. Each kernel runs one full wave (the
 * occupancy calculator's blocks per SM times the SMs), median of 3 after a warm-up; prints
 * operations per second, registers, local memory and blocks per SM. The mixed addition alone
 * fits 128 registers (ptxas, sm_90), so min blocks 1..4 give one binary; 5 and 6 force
 * fewer registers (spills) for more warps, to see which side of that trade wins.
 */
static void bench_addrate(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    static const addrate_variant vs[] = {
        {addrate_kernel<128, 1, true>, 128, 1, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 2, true>, 128, 2, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 3, true>, 128, 3, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 4, true>, 128, 4, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 5, true>, 128, 5, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 6, true>, 128, 6, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<256, 1, true>, 256, 1, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<256, 2, true>, 256, 2, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<512, 1, true>, 512, 1, 1, 512, "mixed add, L2 table"},
        {addrate_kernel<128, 1, false>, 128, 1, 1, 512, "mixed add, registers"},
        {addrate_kernel<128, 4, false>, 128, 4, 1, 512, "mixed add, registers"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 1, true>, 256, 1, 1, 8192, "Fp mul_wide, 1 chain"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 4, true>, 256, 1, 4, 2048, "Fp mul_wide, 4 chains"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 1, false>, 256, 1, 1, 8192, "Fp operator*, 1 chain"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 1, 4, false>, 256, 1, 4, 2048, "Fp operator*, 4 chains"},
        {fpmul_kernel<czk_cuda::fp_t, 256, 2, 4, false>, 256, 2, 4, 2048, "Fp operator*, 4 chains"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 1, true>, 256, 1, 1, 8192, "Fr mul_wide, 1 chain"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 4, true>, 256, 1, 4, 2048, "Fr mul_wide, 4 chains"},
        {fpmul_kernel<czk_cuda::fr_t, 256, 1, 1, false>, 256, 1, 1, 8192, "Fr operator*, 1 chain"},
        {fpinv_kernel<czk_cuda::fp_t, false>, 128, 1, 1, 32, "Fp inv (binary GCD)"},
        {fpinv_kernel<czk_cuda::fp_t, true>, 128, 1, 1, 8, "Fp inv_fermat"},
    };
    const size_t n = (size_t)1 << ADDRATE_LG;
    czk_g1_affine *p = (czk_g1_affine *)czk_malloc(n * sizeof(*p));
    void *dt = NULL, *dsink = NULL;
    uint32_t sink = 0;
    czk_err err = {0, {0}};
    int rc = CZK_ENOMEM;

    say("\n== arithmetic rates (one full wave, median of 3, CUDA events) ==\n");
    if (p == NULL || make_points(pool, p, n, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    rc = czk_gpu_alloc(gpu, &dt, n * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &dsink, sizeof(uint32_t), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dt, p, n * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dsink, &sink, sizeof(sink), &err);
    if (rc != CZK_OK) {
        fail("addrate inputs", rc, &err);
        goto out;
    }
    say("%-24s %5s %4s %5s %6s %7s %8s %10s %14s\n", "kernel", "block", "minb", "regs", "local",
        "blk/SM", "threads", "ms", "ops/s");
    for (size_t v = 0; v < sizeof(vs) / sizeof(vs[0]) && rc == CZK_OK; v++) {
        cudaFuncAttributes fa;
        int nb = 0;
        double ms[3];
        unsigned grid;
        if (cudaFuncGetAttributes(&fa, vs[v].fn) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&nb, vs[v].fn, (int)vs[v].block, 0) !=
                cudaSuccess ||
            nb <= 0) {
            rc = czk_err_set(&err, CZK_ECUDA, "no occupancy for %s", vs[v].what);
            break;
        }
        grid = (unsigned)nb * (unsigned)gpu->sm_count;
        for (int r = -1; r < 3 && rc == CZK_OK; r++) {
            if (r >= 0)
                rc = czk_gpu_timer_start(gpu, &err);
            vs[v].fn<<<grid, vs[v].block, 0, gpu->stream>>>(
                (uint32_t *)dsink, (const czk_cuda::g1_affine_t *)dt, vs[v].steps);
            if (rc == CZK_OK && cudaGetLastError() != cudaSuccess)
                rc = czk_err_set(&err, CZK_ECUDA, "launch of %s failed", vs[v].what);
            if (rc == CZK_OK && r >= 0)
                rc = czk_gpu_timer_stop(gpu, &ms[r], &err);
        }
        if (rc != CZK_OK)
            break;
        qsort(ms, 3, sizeof(double), cmp_double);
        {
            double ops = (double)grid * vs[v].block * vs[v].steps * vs[v].ops_per_step;
            say("%-24s %5u %4u %5d %6zu %7d %8u %10.3f %14.4g\n", vs[v].what, vs[v].block,
                vs[v].minb, fa.numRegs, (size_t)fa.localSizeBytes, nb, grid * vs[v].block, ms[1],
                ops / (ms[1] * 1e-3));
        }
    }
    if (rc == CZK_OK)
        rc = czk_gpu_download(gpu, &sink, dsink, sizeof(sink), &err);
    if (rc != CZK_OK)
        fail("addrate", rc, &err);
    else
        say("(checksum of all results %08x)\n", sink);
out:
    czk_gpu_free(gpu, dt, n * sizeof(*p));
    czk_gpu_free(gpu, dsink, sizeof(uint32_t));
    czk_free(p);
}

/*
 * CZK_GPU_TEST_ACC_SWEEP=1: a 2^24 G1 MSM with uniform scalars (inputs on the device, median
 * of 3) for every accumulation variant (blocks per SM 1..4) and first-level chunk L0 (32 ..
 * 256), with the steps when CZK_GPU_MSM_PROFILE=1. Every result must equal the first one's
 * (printed, not a check: the checks above cover correctness).
 */
static void bench_acc_sweep(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    static const unsigned l0s[] = {32, 64, 128, 256};
    const size_t n = (size_t)1 << 24;
    czk_g1_affine *p = (czk_g1_affine *)czk_malloc(n * sizeof(*p));
    czk_fr *s = (czk_fr *)czk_malloc(n * sizeof(*s));
    void *dp = NULL, *ds = NULL;
    czk_err err = {0, {0}};
    czk_g1_jacobian ref, r;
    int rc = CZK_ENOMEM, have_ref = 0;

    say("\n== MSM G1 2^24 uniform: accumulation variants (ms, median and min of 3) ==\n");
    if (p == NULL || s == NULL || make_points(pool, p, n, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    fill_fr(pool, s, n, czk_rng_u64(rng), 0);
    rc = czk_gpu_alloc(gpu, &dp, n * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_alloc(gpu, &ds, n * sizeof(*s), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, dp, p, n * sizeof(*p), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, ds, s, n * sizeof(*s), &err);
    if (rc != CZK_OK) {
        fail("sweep inputs", rc, &err);
        goto out;
    }
    say("%-4s %-4s %9s %9s %6s  %s\n", "minb", "L0", "ms", "min", "agree",
        "steps (ms): digits sort acc windows");
    for (unsigned minb = 1; minb <= 6 && rc == CZK_OK; minb++) { /* msm.cu's variants */
        for (size_t li = 0; li < sizeof(l0s) / sizeof(l0s[0]) && rc == CZK_OK; li++) {
            czk__gpu_msm_profile pf;
            double med = 0, mn = 0;
            int same = 0, agree;
            czk__gpu_msm_force_acc(minb, l0s[li]);
            rc = time_msm<tg1>(gpu, dp, ds, n, &med, &mn, &same, &err, 3, &r);
            if (rc != CZK_OK)
                break;
            if (!have_ref) {
                ref = r;
                have_ref = 1;
            }
            agree = same && czk_g1_jacobian_equal(&ref, &r);
            if (czk__gpu_msm_last_profile(gpu, &pf))
                say("%-4u %-4u %9.2f %9.2f %6s  %.2f %.2f %.2f %.2f (c %u)\n", minb, l0s[li], med,
                    mn, agree ? "yes" : "NO", pf.digits_ms, pf.sort_ms, pf.acc_ms, pf.windows_ms,
                    pf.c);
            else
                say("%-4u %-4u %9.2f %9.2f %6s  (CZK_GPU_MSM_PROFILE=1 for the steps)\n", minb,
                    l0s[li], med, mn, agree ? "yes" : "NO");
        }
    }
    czk__gpu_msm_force_acc(0, 0);
    if (rc != CZK_OK)
        fail("msm accumulation sweep", rc, &err);
out:
    czk_gpu_free(gpu, dp, n * sizeof(czk_g1_affine));
    czk_gpu_free(gpu, ds, n * sizeof(czk_fr));
    czk_free(p);
    czk_free(s);
}

/* The tuning benchmarks, each when its variable is 1 (with or without CZK_GPU_TEST_QUICK). */
static void bench_msm_tuning(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    if (env_unsigned("CZK_GPU_TEST_ADDRATE", 0) == 1)
        bench_addrate(gpu, pool, rng);
    if (env_unsigned("CZK_GPU_TEST_ACC_SWEEP", 0) == 1)
        bench_acc_sweep(gpu, pool, rng);
}

/* ---- the prover backend ----------------------------------------------------------------- */

static double ms_since(uint64_t t0) {
    return (double)(czk_time_ns() - t0) * 1e-6;
}

/* Creates a prover backend on device 0 (vram_limit 0: all free memory; flags:
 * CZK_GPU_PLAN_*). */
static czk_backend *make_backend_flags(size_t vram_limit, unsigned max_lg, unsigned flags,
                                       const char *label) {
    czk_backend *be = NULL;
    czk_err err = {0, {0}};
    czk_gpu_plan_opts opts;
    memset(&opts, 0, sizeof(opts));
    opts.vram_limit_bytes = vram_limit;
    opts.max_lg = max_lg;
    opts.flags = flags;
    int rc = czk_gpu_backend_create(&be, 0, &opts, &err);
    if (rc != CZK_OK) {
        fail(label, rc, &err);
        return NULL;
    }
    return be;
}

static czk_backend *make_backend(size_t vram_limit, unsigned max_lg, const char *label) {
    return make_backend_flags(vram_limit, max_lg, 0, label);
}

/*
 * The device bytes the driver reserves for the MSM kernels' local memory (measured at start:
 * ~0.3 GiB on an H200, mostly G2's window kernels), which a backend's budget holds out of
 * its VRAM limit. The small limits of the streaming checks (128 .. 448 MiB) are for our own
 * allocations, so they get it on top: vram_for(128) leaves the plans ~50 MiB, as on a card
 * with that much free beside the driver's share.
 */
static size_t g_local_bytes;
static size_t vram_for(size_t mib) {
    return (mib << 20) + g_local_bytes;
}

static void say_plan(const czk_backend *be, const char *label) {
    czk_gpu_plan plan;
    char buf[512];
    czk_gpu_backend_plan(be, &plan);
    czk_gpu_plan_describe(&plan, buf, sizeof(buf));
    say("     plan %s: %s; peak VRAM %.1f MiB\n", label, buf,
        (double)czk_gpu_mem_peak(czk_gpu_backend_context(be)) / (1024.0 * 1024.0));
}

/* (a) h on the device against czk_poly_h_monomial / czk_poly_h_odd_coset, bit for bit. */
static void test_h(const czk_backend *be, czk_pool *pool, czk_rng *rng) {
    static const unsigned lgs[] = {10, 16, 20};
    say("\n== h on the GPU against the CPU quotient (bit-exact) ==\n");
    for (unsigned li = 0; li < sizeof(lgs) / sizeof(lgs[0]); li++) {
        unsigned lg = lgs[li];
        size_t n = (size_t)1 << lg;
        for (int basis = 0; basis < 2; basis++) {
            czk_err err = {0, {0}};
            czk_ntt_domain *d = NULL;
            czk_fr *v = (czk_fr *)czk_malloc(6 * n * sizeof(czk_fr));
            int rc;
            if (v == NULL) {
                fail("h inputs", CZK_ENOMEM, NULL);
                return;
            }
            fill_fr(pool, v, 3 * n, czk_rng_u64(rng), 0);
            memcpy(v + 3 * n, v, 3 * n * sizeof(czk_fr));
            rc = czk_ntt_domain_create(
                &d, lg, basis == 0 ? CZK_NTT_ROOT_BELLPERSON : CZK_NTT_ROOT_SNARKJS, &err);
            if (rc == CZK_OK)
                rc = basis == 0
                         ? czk_poly_h_monomial(d, v + 3 * n, v + 4 * n, v + 5 * n, pool, &err)
                         : czk_poly_h_odd_coset(d, v + 3 * n, v + 4 * n, v + 5 * n, pool, &err);
            if (rc == CZK_OK)
                rc = be->h(be->ctx, d, basis == 0 ? CZK_H_MONOMIAL : CZK_H_ODD_COSET, v, v + n,
                           v + 2 * n, pool, &err);
            if (rc != CZK_OK)
                fail("h", rc, &err);
            else
                check(memcmp(v, v + 3 * n, n * sizeof(czk_fr)) == 0,
                      "h %-9s lg %-2u GPU == CPU (all n outputs)",
                      basis == 0 ? "monomial" : "odd coset", lg);
            czk_ntt_domain_destroy(d);
            czk_free(v);
        }
    }
}

static void say_timings(const char *label, const czk_groth16_timings *t) {
    say("%-30s %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %8.1f\n", label, t->spmv_ns * 1e-6,
        t->h_ns * 1e-6, t->msm_h_ns * 1e-6, t->msm_a_ns * 1e-6, t->msm_b_g1_ns * 1e-6,
        t->msm_b_g2_ns * 1e-6, t->msm_l_ns * 1e-6, t->total_ns * 1e-6);
}

static void say_timings_header(void) {
    say("%-30s %7s %7s %7s %7s %7s %7s %7s %8s  (ms)\n", "proof", "spmv", "h", "msm H", "A", "B1",
        "B2(CPU)", "L", "total");
}

static int proofs_equal(const czk_groth16_proof *x, const czk_groth16_proof *y) {
    return czk_g1_affine_equal(&x->a, &y->a) && czk_g2_affine_equal(&x->b, &y->b) &&
           czk_g1_affine_equal(&x->c, &y->c);
}

/*
 * Proves with the CPU backend (unless *ref is already set: then it is the reference) and
 * with each GPU backend, same r and s; the proofs must be identical and, when `verify`, valid.
 */
static void prove_compare(const char *label, const czk_groth16_pk *pk, const czk_r1cs *cs,
                          const czk_fr *w, const czk_fr *r, const czk_fr *s,
                          czk_backend *const *gpus, const char *const *gpu_names, int n_gpus,
                          int cpu, int verify, czk_pool *pool, czk_groth16_proof *ref_io = NULL,
                          int *have_ref_io = NULL, const czk_witness_pack *wp = NULL) {
    czk_groth16_proof ref, p;
    czk_groth16_timings tm;
    czk_err err = {0, {0}};
    char buf[128];
    int have_ref = 0, rc;
    const char *ref_name = cpu ? "CPU" : "reference";
    /* A reference from an earlier call (ref_io, *have_ref_io set): later proofs must match. */
    if (ref_io != NULL && have_ref_io != NULL && *have_ref_io) {
        ref = *ref_io;
        have_ref = 1;
    }
    if (cpu) {
        rc = czk_groth16_prove(&ref, pk, cs, w, r, s, czk_backend_cpu(), pool, &tm, &err);
        if (rc != CZK_OK) {
            fail("CPU prove", rc, &err);
            return;
        }
        snprintf(buf, sizeof(buf), "%s cpu", label);
        say_timings(buf, &tm);
        have_ref = 1;
    }
    for (int i = 0; i < n_gpus; i++) {
        rc = czk_groth16_prove_packed(&p, pk, cs, w, wp, r, s, gpus[i], pool, &tm, &err);
        if (rc != CZK_OK) {
            fail("GPU prove", rc, &err);
            continue;
        }
        snprintf(buf, sizeof(buf), "%s %s", label, gpu_names[i]);
        say_timings(buf, &tm);
        if (!have_ref) {
            ref = p;
            have_ref = 1;
        } else {
            check(proofs_equal(&p, &ref), "%s: %s proof identical to the %s one", label,
                  gpu_names[i], ref_name);
        }
        say_plan(gpus[i], gpu_names[i]);
    }
    if (verify && have_ref) {
        czk_groth16_pvk pvk;
        rc = czk_groth16_pvk_prepare(&pvk, &pk->vk, &err);
        if (rc == CZK_OK) {
            rc = czk_groth16_verify(&pvk, &ref, w + 1, cs->n_public, &err);
            czk_groth16_pvk_clear(&pvk);
        }
        check(rc == CZK_OK, "%s: proof verifies (%s)", label, czk_status_name(rc));
    }
    if (ref_io != NULL && have_ref_io != NULL && have_ref) {
        *ref_io = ref;
        *have_ref_io = 1;
    }
}

/* czk_malloc for packs made without a backend. */
static void *test_alloc(void *ctx, size_t bytes) {
    (void)ctx;
    return czk_malloc(bytes);
}
static void test_free(void *ctx, void *p, size_t bytes) {
    (void)ctx, (void)bytes;
    czk_free(p);
}

/* A witness pack of w (groth16/witness_pack.h) in be's pinned memory, as the engine stages
 * it (be NULL: czk_malloc); pack_release frees it. */
static int pack_make(czk_witness_pack *wp, czk_witness_pack_mem *mem, czk_backend *be,
                     const czk_fr *w, size_t n) {
    return be != NULL
               ? czk_witness_pack_build(wp, mem, w, n, SIZE_MAX, be->host_alloc, be->host_free,
                                        be->ctx)
               : czk_witness_pack_build(wp, mem, w, n, SIZE_MAX, test_alloc, test_free, NULL);
}

static void pack_release(czk_backend *be, czk_witness_pack_mem *mem) {
    if (be != NULL)
        czk_witness_pack_release(mem, be->host_free, be->ctx);
    else
        czk_witness_pack_release(mem, test_free, NULL);
}

/* Makes pk (and cs when not NULL) resident on be (czk_gpu_backend_attach_key) and says how
 * far it got: 2 key and circuit, 1 key points only, 3 streamed with its circuit, 0 neither. */
static int attach_key(czk_backend *be, const czk_groth16_pk *pk, const czk_r1cs *cs,
                      const char *label) {
    czk_err err = {0, {0}};
    int resident = 0;
    uint64_t t0 = czk_time_ns();
    int rc = czk_gpu_backend_attach_key(be, pk, cs, &resident, &err);
    if (rc != CZK_OK) {
        fail(label, rc, &err);
        return 0;
    }
    say("(%s: %s, %.2f GiB resident on the device, %.0f ms)\n", label,
        resident == 2   ? "key and circuit resident"
        : resident == 1 ? "key points resident"
        : resident == 3 ? "key and circuit stream, page-locked on the host"
                        : "key does not fit, streams",
        (double)czk_gpu_backend_resident_bytes(be) / (double)(1ull << 30), ms_since(t0));
    if (resident == 3) {
        char desc[256];
        czk_gpu_backend_describe_key(be, pk, desc, sizeof(desc));
        say("     %s\n", desc);
    }
    return resident;
}

/* (b) and (c): whole proofs, GPU (all memory, and a small VRAM limit) against the CPU. */
static void test_proofs(czk_backend *be, czk_pool *pool, czk_rng *rng) {
    static const unsigned ks[] = {10, 14, 18};
    czk_backend *small = make_backend(vram_for(128), 0, "backend with 128 MiB");
    /* Keys never on the device: whole proofs stream key and circuit (in several chunks and
     * batches at 2^18 within 128 MiB). */
    czk_backend *streamed = make_backend_flags(vram_for(128), 0, CZK_GPU_PLAN_STREAM_KEYS,
                                               "streaming backend with 128 MiB");
    czk_backend *gpus[2] = {be, small};
    const char *names[2] = {"gpu", "gpu-128MiB"};
    say("\n== whole proofs: GPU backend against the CPU backend (same r, s) ==\n");
    say_timings_header();
    for (unsigned ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
        unsigned k = ks[ki];
        czk_r1cs cs;
        czk_fr *w = NULL;
        czk_err err = {0, {0}};
        memset(&cs, 0, sizeof(cs));
        int rc = czk_synth_porep_shaped(&cs, &w, k, czk_rng_u64(rng), pool, &err);
        if (rc != CZK_OK) {
            fail("synth", rc, &err);
            continue;
        }
        for (int basis = 0; basis < 2; basis++) {
            czk_groth16_pk pk;
            czk_fr r, s;
            char label[64];
            memset(&pk, 0, sizeof(pk));
            uint64_t t0 = czk_time_ns();
            rc = czk_groth16_setup_dev(&pk, &cs, basis == 0 ? CZK_H_MONOMIAL : CZK_H_ODD_COSET, rng,
                                       pool, &err);
            if (rc != CZK_OK) {
                fail("setup_dev", rc, &err);
                continue;
            }
            say("(2^%u %s dev setup: %.0f ms)\n", k, basis == 0 ? "bellperson" : "snarkjs",
                ms_since(t0));
            czk_fr_random(&r, rng);
            czk_fr_random(&s, rng);
            snprintf(label, sizeof(label), "2^%u %s", k, basis == 0 ? "monomial" : "odd-coset");
            czk_groth16_proof ref;
            int have_ref = 0;
            prove_compare(label, &pk, &cs, w, &r, &s, gpus, names, small != NULL ? 2 : 1, 1, 1,
                          pool, &ref, &have_ref);
            /* The same proof with the key's points resident on the device, then with the
             * circuit too (the whole proof from the witness: prove_sums). */
            if (attach_key(be, &pk, NULL, label) == 1) {
                const char *rn[1] = {"gpu-res-points"};
                prove_compare(label, &pk, &cs, w, &r, &s, gpus, rn, 1, 0, 0, pool, &ref, &have_ref);
                check(czk_gpu_backend_resident_bytes(be) > 0, "%s: key bytes counted", label);
            } else {
                check(0, "%s: a small key's points fit on the device", label);
            }
            czk_witness_pack wp;
            czk_witness_pack_mem pmem;
            const int packed = pack_make(&wp, &pmem, NULL, w, cs.n_vars) == CZK_OK;
            check(packed, "%s: witness packed", label);
            if (attach_key(be, &pk, &cs, label) == 2) {
                const char *rn[1] = {"gpu-res-circuit"}, *rp[1] = {"gpu-res-packed"};
                prove_compare(label, &pk, &cs, w, &r, &s, gpus, rn, 1, 0, 0, pool, &ref, &have_ref);
                /* The witness moved as a pack and expanded on the device. */
                if (packed)
                    prove_compare(label, &pk, &cs, w, &r, &s, gpus, rp, 1, 0, 0, pool, &ref,
                                  &have_ref, &wp);
            } else {
                check(0, "%s: a small circuit fits on the device", label);
            }
            czk_gpu_backend_detach_key(be, &pk);
            check(czk_gpu_backend_resident_bytes(be) == 0, "%s: detach frees the key", label);
            if (streamed != NULL && attach_key(streamed, &pk, &cs, label) == 3) {
                czk_backend *sb[1] = {streamed};
                const char *sn[1] = {"gpu-streamed"};
                prove_compare(label, &pk, &cs, w, &r, &s, sb, sn, 1, 0, 0, pool, &ref, &have_ref);
                /* Again: the chunk and batch buffers are reused, the events re-recorded. */
                prove_compare(label, &pk, &cs, w, &r, &s, sb, sn, 1, 0, 0, pool, &ref, &have_ref);
                const char *sp[1] = {"gpu-streamed-packed"};
                if (packed)
                    prove_compare(label, &pk, &cs, w, &r, &s, sb, sp, 1, 0, 0, pool, &ref,
                                  &have_ref, &wp);
            } else {
                check(0, "%s: a key streams with its circuit within 128 MiB", label);
            }
            czk_gpu_backend_detach_key(streamed, &pk);
            check(streamed == NULL || czk_gpu_backend_resident_bytes(streamed) == 0,
                  "%s: detach of a streamed key frees its density bytes", label);
            pack_release(NULL, &pmem);
            czk_groth16_pk_clear(&pk);
        }
        czk_r1cs_clear(&cs);
        czk_free(w);
    }

    /* (c) 2^20 with a benchmark key and 256 MiB: every MSM streams its points in batches. */
    {
        czk_backend *b256 = make_backend(vram_for(256), 0, "backend with 256 MiB");
        czk_backend *g2[1] = {b256};
        const char *n2[1] = {"gpu-256MiB"};
        czk_r1cs cs;
        czk_groth16_pk pk;
        czk_fr *w = NULL, r, s;
        czk_err err = {0, {0}};
        memset(&cs, 0, sizeof(cs));
        memset(&pk, 0, sizeof(pk));
        int rc = czk_synth_porep_shaped(&cs, &w, 20, czk_rng_u64(rng), pool, &err);
        if (rc == CZK_OK)
            rc = czk_groth16_benchkey(&pk, &cs, CZK_H_MONOMIAL, czk_rng_u64(rng), pool, &err);
        if (rc != CZK_OK || b256 == NULL) {
            fail("2^20 benchmark key", rc, &err);
        } else {
            czk_gpu_plan plan;
            czk_fr_random(&r, rng);
            czk_fr_random(&s, rng);
            czk_groth16_proof ref;
            int have_ref = 0;
            prove_compare("2^20 benchkey", &pk, &cs, w, &r, &s, g2, n2, 1, 1, 0, pool, &ref,
                          &have_ref);
            czk_gpu_backend_plan(b256, &plan);
            check(plan.msm_batches > 1, "256 MiB plan streams the 2^20 MSMs in %zu batches",
                  plan.msm_batches);
            /* Whole proofs streamed within budgets that cut the MSMs into batches of several
             * sizes (full ones and remainders, each with its own window and chunk length:
             * H200 run 23 failed such a batch whose scratch outgrew the full batch's). */
            for (size_t mib = 256; mib <= 448; mib += 64) { /* the witness and h take 96 */
                char label[64];
                snprintf(label, sizeof(label), "streaming backend with %zu MiB", mib);
                czk_backend *sb =
                    make_backend_flags(vram_for(mib), 0, CZK_GPU_PLAN_STREAM_KEYS, label);
                const char *sn[1] = {label};
                if (sb != NULL && attach_key(sb, &pk, &cs, label) == 3)
                    prove_compare("2^20 benchkey", &pk, &cs, w, &r, &s, &sb, sn, 1, 0, 0, pool,
                                  &ref, &have_ref);
                else
                    check(0, "2^20 benchkey: %s attaches the key to stream", label);
                czk_gpu_backend_detach_key(sb, &pk);
                czk_gpu_backend_destroy(sb);
            }
        }
        czk_groth16_pk_clear(&pk);
        czk_r1cs_clear(&cs);
        czk_free(w);
        czk_gpu_backend_destroy(b256);
    }
    czk_gpu_backend_destroy(small);
    czk_gpu_backend_destroy(streamed);
}

/* (d) h timings, wall clock (transfers from pageable memory included), best of 2. */
static void bench_h(const czk_backend *be, czk_pool *pool, czk_rng *rng) {
    unsigned maxlg = env_unsigned("CZK_GPU_TEST_MAX_H", 27);
    size_t nmax = (size_t)1 << maxlg;
    czk_fr *v = (czk_fr *)czk_malloc(3 * nmax * sizeof(czk_fr));
    say("\n== h on the GPU (ms, wall clock incl. H2D/D2H from pageable memory, best of 2) ==\n");
    if (v == NULL) {
        fail("h bench inputs", CZK_ENOMEM, NULL);
        return;
    }
    fill_fr(pool, v, 3 * nmax, czk_rng_u64(rng), 0);
    say("%-4s %10s %10s\n", "lg", "monomial", "odd coset");
    for (unsigned lg = 20; lg <= maxlg; lg++) {
        size_t n = (size_t)1 << lg;
        double best[2] = {1e30, 1e30};
        for (int basis = 0; basis < 2; basis++) {
            czk_ntt_domain *d = NULL;
            czk_err err = {0, {0}};
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
    czk_free(v);
}

/* (d) a PoRep-shaped partition of 2^k with a benchmark key: GPU (all memory, 16 GiB), CPU. */
/*
 * Two proofs each (first and second) on be with its key attached, from the witness as the
 * engine stages it: copied into be's pinned memory (names), then packed there (pnames: the
 * pack crosses the bus instead of the witness).
 */
static void prove_staged(czk_backend *be, const char *label, const czk_groth16_pk *pk,
                         const czk_r1cs *cs, const czk_fr *w, const czk_fr *r, const czk_fr *s,
                         const char *const *names, const char *const *pnames, czk_pool *pool,
                         czk_groth16_proof *ref, int *have_ref) {
    czk_backend *two[2] = {be, be};
    const size_t wb = cs->n_vars * sizeof(czk_fr);
    czk_fr *pw = (czk_fr *)be->host_alloc(be->ctx, wb);
    czk_witness_pack wp;
    czk_witness_pack_mem pmem;
    if (pw != NULL)
        memcpy(pw, w, wb);
    prove_compare(label, pk, cs, pw != NULL ? pw : w, r, s, two, names, 2, 0, 0, pool, ref,
                  have_ref);
    if (pw != NULL)
        be->host_free(be->ctx, pw, wb);
    if (pack_make(&wp, &pmem, be, w, cs->n_vars) == CZK_OK) {
        say("(witness pack: %zu others of %zu values, %.1f MiB)\n", wp.n_others, wp.n,
            (double)(pmem.bytes[0] + pmem.bytes[1]) / (double)(1u << 20));
        prove_compare(label, pk, cs, w, r, s, two, pnames, 2, 0, 0, pool, ref, have_ref, &wp);
        pack_release(be, &pmem);
    }
}

static void bench_partition(unsigned k, int with_cpu, czk_pool *pool, czk_rng *rng) {
    czk_r1cs cs;
    czk_groth16_pk pk;
    czk_fr *w = NULL, r, s;
    czk_err err = {0, {0}};
    uint64_t t0 = czk_time_ns();
    czk_backend *full = NULL, *b16 = NULL;
    say("\n== PoRep-shaped partition 2^%u, benchmark key, bellperson layout ==\n", k);
    memset(&cs, 0, sizeof(cs));
    memset(&pk, 0, sizeof(pk));
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
     * to itself: all memory streaming, then with key and circuit resident (the issue's
     * "keys resident" figure); then a 16 GiB limit, streaming and resident when it fits (a
     * 2^27 key cannot, beside its working set). */
    {
        char label[32];
        snprintf(label, sizeof(label), "2^%u", k);
        czk_groth16_proof ref;
        int have_ref = 0;
        full = make_backend(0, k, "backend, all memory");
        if (full == NULL)
            goto out;
        czk_backend *two[2] = {full, full};
        const char *n1[2] = {"gpu (1st)", "gpu (2nd)"};
        prove_compare(label, &pk, &cs, w, &r, &s, two, n1, 2, with_cpu, 0, pool, &ref, &have_ref);
        if (attach_key(full, &pk, &cs, "all memory") > 0) {
            const char *n2[2] = {"gpu-res (1st)", "gpu-res (2nd)"},
                       *n2p[2] = {"gpu-res-pack (1st)", "gpu-res-pack (2nd)"};
            prove_staged(full, label, &pk, &cs, w, &r, &s, n2, n2p, pool, &ref, &have_ref);
        }
        czk_gpu_backend_detach_key(full, &pk);
        czk_gpu_backend_destroy(full);
        full = NULL;

        b16 = make_backend((size_t)16 << 30, k, "backend with 16 GiB");
        if (b16 == NULL)
            goto out;
        czk_backend *one[1] = {b16};
        const char *n3[1] = {"gpu-16GiB"}, *n4[1] = {"gpu-16GiB-res"},
                   *n5[2] = {"gpu-16GiB-str (1st)", "gpu-16GiB-str (2nd)"};
        prove_compare(label, &pk, &cs, w, &r, &s, one, n3, 1, 0, 0, pool, &ref, &have_ref);
        int res16 = attach_key(b16, &pk, &cs, "16 GiB");
        if (res16 > 0 && res16 != 3) {
            prove_compare(label, &pk, &cs, w, &r, &s, one, n4, 1, 0, 0, pool, &ref, &have_ref);
            /* The key fits 16 GiB: time the streamed proof too, as a smaller card runs it. */
            czk_gpu_backend_detach_key(b16, &pk);
            czk_gpu_backend_destroy(b16);
            b16 = make_backend_flags((size_t)16 << 30, k, CZK_GPU_PLAN_STREAM_KEYS,
                                     "streaming backend with 16 GiB");
            if (b16 == NULL)
                goto out;
            res16 = attach_key(b16, &pk, &cs, "16 GiB, keys streamed");
        }
        if (res16 == 3) {
            const char *n5p[2] = {"gpu-16GiB-str-pack (1st)", "gpu-16GiB-str-pack (2nd)"};
            prove_staged(b16, label, &pk, &cs, w, &r, &s, n5, n5p, pool, &ref, &have_ref);
        }
        czk_gpu_backend_detach_key(b16, &pk);
    }
out:
    czk_gpu_backend_destroy(full);
    czk_gpu_backend_destroy(b16);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_free(w);
}

/*
 * Host logic of the backend, run with or without a device (CI has none): the witness ranges
 * of a streamed proof's selected batches (czk__gpu_stream_bounds) against a count, and which
 * transform sizes read flat twist tables (czk__gpu_ntt_flat_tables) against the pass split.
 */
static void test_host_logic(czk_rng *rng) {
    int bounds_ok = 1;
    for (int t = 0; t < 200 && bounds_ok; t++) {
        const size_t n_vars = 1 + czk_rng_u64(rng) % 5000;
        const unsigned density = (unsigned)(czk_rng_u64(rng) % 101); /* percent set */
        uint8_t *take = (uint8_t *)czk_malloc(n_vars);
        size_t n = 0, *wb = NULL, batches = 0;
        czk_err err = {0, {0}};
        if (take == NULL) {
            fail("host allocation", CZK_ENOMEM, NULL);
            return;
        }
        for (size_t v = 0; v < n_vars; v++)
            n += take[v] = (uint8_t)(czk_rng_u64(rng) % 100 < density);
        const size_t bs = 1 + czk_rng_u64(rng) % (n + 3);
        if (czk__gpu_stream_bounds(take, n_vars, n, bs, &wb, &batches, &err) != CZK_OK) {
            fail("czk__gpu_stream_bounds", CZK_ENOMEM, &err);
            czk_free(take);
            return;
        }
        bounds_ok =
            batches == (n + bs - 1) / bs && wb[0] == 0 && (batches == 0 || wb[batches] == n_vars);
        for (size_t j = 0; j < batches && bounds_ok; j++) {
            size_t got = 0;
            for (size_t v = wb[j]; v < wb[j + 1] && v < n_vars; v++)
                got += take[v];
            bounds_ok = wb[j] <= wb[j + 1] && got == (n - j * bs < bs ? n - j * bs : bs);
        }
        if (!bounds_ok)
            say("(stream bounds: %zu variables, %zu set, batches of %zu)\n", n_vars, n, bs);
        czk_free(wb);
        czk_free(take);
    }
    check(bounds_ok, "streamed batch bounds select exactly each batch's scalars (200 random)");
    int flat_ok = 1;
    for (unsigned lg = 1; lg <= CZK_GPU_NTT_MAX_LG; lg++) {
        /* Three or more passes of ceil-split bits; the second pass twists over 2^s. */
        const unsigned passes = (lg + 9) / 10;
        const unsigned s = lg - (lg / passes + (lg % passes != 0 ? 1 : 0));
        flat_ok &= czk__gpu_ntt_flat_tables(lg) == (passes >= 3 && s > 14);
    }
    check(flat_ok, "flat twist tables exactly where a later pass twists over more than 2^14");
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

    {
        /* The host logic first: a failure there fails the run even without a device. */
        czk_rng hrng;
        czk_rng_seed(&hrng, seed);
        test_host_logic(&hrng);
    }
    if (czk_gpu_device_count() <= 0) {
        printf("no CUDA device present%s\n", g_fail ? " (and a host check failed)" : "");
        return g_fail ? 1 : 77;
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
    rc = czk__gpu_msm_local_bytes(gpu, &g_local_bytes, &err);
    if (rc != CZK_OK) {
        fail("czk__gpu_msm_local_bytes", rc, &err);
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
    say("MSM kernels' local memory (the driver's reservation, held out of every budget): "
        "%.1f MiB\n",
        (double)g_local_bytes / (1024.0 * 1024.0));
    czk_rng_seed(&rng, seed);

    /* CZK_GPU_TEST_CHECKS=0 skips the GPU-against-CPU checks (for a timing-only run; the
     * exit status then says nothing about correctness). */
    const unsigned checks = env_unsigned("CZK_GPU_TEST_CHECKS", 1);
    if (checks != 0) {
        test_field(gpu, &rng);
        test_ntt(gpu, pool, &rng);
    }
    /* CZK_GPU_TEST_CHECKS=2: the field and NTT checks alone (with CZK_GPU_TEST_BIG=1: up to
     * lg 28). */
    if (checks != 0 && checks != 2) {
        test_msm_edges(gpu, &rng);
        test_msm(gpu, pool, &rng);
        test_msm_split<tg1>(gpu, pool, &rng);
        test_msm_split<tg2>(gpu, pool, &rng);
        /* Again with the ones summed by batch-affine levels down to 2^10 points (by default
         * only from 2^21 up), then by XYZZ chains alone. */
        say("\n(the same with batch-affine levels for the ones down to 2^10)\n");
        czk__gpu_msm_force_tree(10);
        test_msm_split<tg1>(gpu, pool, &rng);
        test_msm_split<tg2>(gpu, pool, &rng);
        say("\n(the same with no batch-affine level)\n");
        czk__gpu_msm_force_tree(32);
        test_msm_split<tg1>(gpu, pool, &rng);
        test_msm_split<tg2>(gpu, pool, &rng);
        czk__gpu_msm_force_tree(0);
        /* The MSM checks again with two batch-affine pairing levels over the sorted buckets. */
        say("\n(MSMs again with two pairing levels over the sorted buckets)\n");
        czk__gpu_msm_force_pair(2);
        test_msm_edges(gpu, &rng);
        test_msm(gpu, pool, &rng);
        test_msm_split<tg1>(gpu, pool, &rng);
        test_msm_split<tg2>(gpu, pool, &rng);
        czk__gpu_msm_force_pair(0);
        test_msm_g2(gpu, pool, &rng);
        czk_backend *be = make_backend(0, 0, "czk_gpu_backend_create");
        if (be != NULL) {
            say("\nprover backend: %s\n", be->name);
            test_h(be, pool, &rng);
            test_proofs(be, pool, &rng);
            if (env_unsigned("CZK_GPU_TEST_QUICK", 0) == 0)
                bench_h(be, pool, &rng);
            czk_gpu_backend_destroy(be);
        }
    }
    if (env_unsigned("CZK_GPU_TEST_QUICK", 0) == 0) {
        /* CZK_GPU_TEST_PARTITION=K: the partition benchmark at 2^K only (CPU column below
         * 2^25); default 2^24, plus 2^27 with CZK_GPU_TEST_BIG=1. */
        unsigned pk = env_unsigned("CZK_GPU_TEST_PARTITION", 0);
        if (pk >= 10 && pk <= 27) {
            bench_partition(pk, pk < 25, pool, &rng);
        } else {
            bench_partition(24, 1, pool, &rng);
            if (env_unsigned("CZK_GPU_TEST_BIG", 0))
                bench_partition(27, 0, pool, &rng);
        }
        /* The tables alone for `ncu --profile-from-start off` (no-ops without a profiler). */
        if (cudaProfilerStart() != cudaSuccess)
            say("cudaProfilerStart failed (ignored)\n");
        bench_ntt(gpu, pool, &rng);
        bench_msm(gpu, pool, &rng);
        if (cudaProfilerStop() != cudaSuccess)
            say("cudaProfilerStop failed (ignored)\n");
    }
    bench_msm_tuning(gpu, pool, &rng);
    say("\ndevice memory: %zu bytes held at exit, peak %zu\n", czk_gpu_mem_in_use(gpu),
        czk_gpu_mem_peak(gpu));
    say("%s\n", g_fail ? "czk_gpu_test: FAILED" : "czk_gpu_test: all checks passed");
    czk_gpu_destroy(gpu);
    czk_pool_destroy(pool);
    if (g_log != NULL)
        fclose(g_log);
    return g_fail ? 1 : 0;
}
