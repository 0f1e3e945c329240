/*
 * The device MSM against the CPU's (module "msm" of czk_gpu_test):
 *  - G1 edge cases (n = 0 .. 1025 with points at infinity, duplicates, P and −P, scalars 0,
 *    1 and r − 1; all-zero scalars; all points at infinity; one point n times) against the
 *    naive sum;
 *  - G1 at 2^10, 2^14, 2^18, 2^20, 2^22 with uniform, 0/1-heavy and PoRep-mix scalars equal
 *    to czk_msm_g1, and linearity MSM(s) + MSM(t) = MSM(s + t);
 *  - the device's split into scalars 0, 1 and other in G1 and G2 (each class alone and mixed,
 *    n = 1, infinity, duplicates, P and −P), three times: as the product runs it, with the
 *    ones' batch-affine levels down to 2^10 points (by default only from 2^21, which these
 *    sizes never reach), and with none (XYZZ chains alone), through czk__gpu_msm_opts;
 *  - G2 at 2^10 .. 2^20 (--max-msm-lg bounds it) with the three scalar kinds equal to
 *    czk_msm_g2, and to the naive sum at 2^10;
 *  - giving way to a priority lane (internal.cuh): with a lane context open on the device,
 *    G1 and G2 MSMs whose accumulation is cut into pieces of 8 blocks on two streams equal
 *    the CPU's, and an MSM started while the lane's proof is urgent waits for its end.
 */
#include <stdint.h>
#include <string.h>
#include <time.h>

#include <atomic>
#include <thread>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm_test.cuh"
#include "gpu/gpu_test.cuh"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"

using namespace czk_gpu_test;

namespace {

/*
 * The device MSM of host inputs: the public call when opts is NULL (as before these options
 * existed), else the prover's form with opts: points and scalars copied to the device, its
 * scratch allocated for the call. A failure is reported (a failed check).
 */
template <class T>
int gpu_msm_t(czk_gpu *gpu, typename T::jac *r, const typename T::aff *p, const czk_fr *s, size_t n,
              const czk__gpu_msm_opts *opts = NULL) {
    czk_err err = {};
    void *dp = NULL, *ds = NULL, *scratch = NULL;
    size_t bytes = 0;
    int rc;
    if (opts == NULL || n == 0) {
        rc = T::gpu(gpu, r, p, s, n, CZK_GPU_MEM_HOST, &err);
    } else {
        rc = T::scratch_opts(gpu, n, opts, &bytes, &err);
        if (rc == CZK_OK)
            rc = czk_gpu_alloc(gpu, &dp, n * sizeof(*p), &err);
        if (rc == CZK_OK)
            rc = czk_gpu_alloc(gpu, &ds, n * sizeof(*s), &err);
        if (rc == CZK_OK)
            rc = czk_gpu_alloc(gpu, &scratch, bytes, &err);
        if (rc == CZK_OK)
            rc = czk_gpu_upload(gpu, dp, p, n * sizeof(*p), &err);
        if (rc == CZK_OK)
            rc = czk_gpu_upload(gpu, ds, s, n * sizeof(*s), &err);
        if (rc == CZK_OK)
            rc = T::run_opts(gpu, r, dp, ds, n, scratch, bytes, opts, &err);
        czk_gpu_free(gpu, scratch, bytes);
        czk_gpu_free(gpu, ds, n * sizeof(*s));
        czk_gpu_free(gpu, dp, n * sizeof(*p));
    }
    if (rc != CZK_OK)
        fail(T::name(), rc, &err);
    return rc;
}

/* The CPU's Pippenger as the reference; a failure is reported. */
template <class T>
int cpu_msm_t(typename T::jac *r, const typename T::aff *p, const czk_fr *s, size_t n,
              czk_pool *pool) {
    czk_err err = {};
    int rc = T::cpu(r, p, s, n, pool, &err);
    if (rc != CZK_OK)
        fail(T::name(), rc, &err);
    return rc;
}

void test_msm_edges(czk_gpu *gpu, czk_rng *rng) {
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
        if (gpu_msm_t<tg1>(gpu, &a, p, s, sizes[k]) != CZK_OK)
            continue;
        naive_msm(&b, p, s, sizes[k]);
        check(czk_g1_jacobian_equal(&a, &b), "msm n = %zu with special points and scalars",
              sizes[k]);
    }
    if (gpu_msm_t<tg1>(gpu, &a, p, s, 0) == CZK_OK)
        check(czk_g1_jacobian_is_infinity(&a), "msm n = 0 is infinity");
    for (size_t i = 0; i < 64; i++)
        s[i] = CZK_FR_ZERO;
    if (gpu_msm_t<tg1>(gpu, &a, p, s, 64) == CZK_OK)
        check(czk_g1_jacobian_is_infinity(&a), "msm with all-zero scalars is infinity");
    for (size_t i = 0; i < 64; i++) {
        memset(&p[i], 0, sizeof(p[i]));
        s[i] = CZK_FR_ONE;
    }
    if (gpu_msm_t<tg1>(gpu, &a, p, s, 64) == CZK_OK)
        check(czk_g1_jacobian_is_infinity(&a), "msm over points at infinity is infinity");
    /* Every scalar 1 on one point: one bucket holds everything. */
    for (size_t i = 0; i < n; i++) {
        p[i] = p[n - 1];
        s[i] = CZK_FR_ONE;
    }
    if (gpu_msm_t<tg1>(gpu, &a, p, s, n) == CZK_OK) {
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

void test_msm_g1(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    static const unsigned lgs[] = {10, 14, 18, 20, 22};
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
        const size_t n = (size_t)1 << lgs[li];
        for (int kind = 0; kind < 3; kind++) {
            const char *kn = fill_name(kind);
            czk_g1_jacobian a, b, c;
            fill_fr(pool, s, n, czk_rng_u64(rng), kind);
            if (gpu_msm_t<tg1>(gpu, &a, p, s, n) != CZK_OK)
                continue;
            if (cpu_msm_t<tg1>(&b, p, s, n, pool) == CZK_OK)
                check(czk_g1_jacobian_equal(&a, &b), "msm 2^%-2u %-9s equals the CPU", lgs[li], kn);
            /* Linearity: MSM(s) + MSM(t) = MSM(s + t). */
            if (n <= ((size_t)1 << 20) || kind == 0) {
                fill_fr(pool, t, n, czk_rng_u64(rng), kind);
                if (gpu_msm_t<tg1>(gpu, &b, p, t, n) != CZK_OK)
                    continue;
                for (size_t i = 0; i < n; i++)
                    czk_fr_add(&t[i], &t[i], &s[i]);
                if (gpu_msm_t<tg1>(gpu, &c, p, t, n) != CZK_OK)
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

/* Σ p[i] over i < n except `skip` (n: none), by additions alone: the reference for ones. */
template <class T>
void sum_points(typename T::jac *r, const typename T::aff *p, size_t n, size_t skip) {
    T::set_inf(r);
    for (size_t i = 0; i < n; i++)
        if (i != skip)
            T::add_aff(r, r, &p[i]);
}

/*
 * The device's split of scalars into 0, 1 and others: each class alone, all three mixed,
 * with points at infinity, duplicates and P, −P in every class, and enough ones for the
 * tree that adds their chunk sums to take two rounds. opts: as gpu_msm_t.
 */
template <class T>
void test_msm_split(czk_gpu *gpu, czk_pool *pool, czk_rng *rng, const czk__gpu_msm_opts *opts) {
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
        if (gpu_msm_t<T>(gpu, &a, p, s, 1, opts) != CZK_OK)
            continue;
        T::naive(&b, p, s, 1);
        check(T::equal(&a, &b), "%s n = 1, scalar %s", T::name(), kn[k]);
    }
    /* All zeros. */
    for (size_t i = 0; i < n; i++)
        s[i] = CZK_FR_ZERO;
    if (gpu_msm_t<T>(gpu, &a, p, s, n, opts) == CZK_OK)
        check(T::is_inf(&a), "%s n = %zu all zero is infinity", T::name(), n);
    /* All ones: Pippenger has nothing to do. */
    for (size_t i = 0; i < n; i++)
        s[i] = CZK_FR_ONE;
    if (gpu_msm_t<T>(gpu, &a, p, s, n, opts) == CZK_OK) {
        sum_points<T>(&b, p, n, n);
        check(T::equal(&a, &b), "%s n = %zu all one equals the sum of the points", T::name(), n);
    }
    /* All ones and a single other: Pippenger over one point. */
    czk_fr_random(&s[17], rng);
    if (gpu_msm_t<T>(gpu, &a, p, s, n, opts) == CZK_OK) {
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
    if (gpu_msm_t<T>(gpu, &a, p, s, n, opts) == CZK_OK) {
        sum_points<T>(&b, p, n, n);
        check(T::equal(&a, &b), "%s n = %zu all one with infinity, duplicates, P and -P", T::name(),
              n);
    }
    /* A point at infinity alone, scalar one. */
    if (gpu_msm_t<T>(gpu, &a, p + 3, s, 1, opts) == CZK_OK)
        check(T::is_inf(&a), "%s a point at infinity with scalar 1 is infinity", T::name());
    /* All others over the same special points (n small: the naive sum is the reference). */
    {
        const size_t m = 1025;
        for (size_t i = 0; i < m; i++)
            czk_fr_random(&s[i], rng);
        s[7] = s[6]; /* P and −P with equal scalars cancel */
        s[5] = s[4]; /* a duplicate with the same scalar doubles */
        s[11] = minus_one;
        if (gpu_msm_t<T>(gpu, &a, p, s, m, opts) == CZK_OK) {
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
        if (gpu_msm_t<T>(gpu, &a, p, s, m, opts) == CZK_OK) {
            T::naive(&b, p, s, m);
            check(T::equal(&a, &b), "%s n = %zu mixed 0 / 1 / other with special points", T::name(),
                  m);
        }
    }
out:
    czk_free(p);
    czk_free(s);
}

/* G2 against the CPU at 2^10 .. 2^maxlg (maxlg 10..20), three scalar kinds. */
void test_msm_g2(czk_gpu *gpu, czk_pool *pool, czk_rng *rng, unsigned maxlg) {
    static const unsigned lgs[] = {10, 14, 18, 20};
    const size_t nmax = (size_t)1 << (maxlg < 20 ? (maxlg < 10 ? 10 : maxlg) : 20);
    czk_g2_affine *p = (czk_g2_affine *)czk_malloc(nmax * sizeof(*p));
    czk_fr *s = (czk_fr *)czk_malloc(nmax * sizeof(*s));
    if (p == NULL || s == NULL || make_points_g2(pool, p, nmax, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("\n== MSM G2 vs CPU ==\n");
    for (size_t li = 0; li < sizeof(lgs) / sizeof(lgs[0]); li++) {
        const size_t n = (size_t)1 << lgs[li];
        if (n > nmax)
            break;
        for (int kind = 0; kind < 3; kind++) {
            const char *kn = fill_name(kind);
            czk_g2_jacobian a, b;
            fill_fr(pool, s, n, czk_rng_u64(rng), kind);
            if (gpu_msm_t<tg2>(gpu, &a, p, s, n) != CZK_OK)
                continue;
            if (cpu_msm_t<tg2>(&b, p, s, n, pool) == CZK_OK)
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

/* One MSM of each kind (uniform, PoRep mix) in group T at 2^lg on gpu with opts, against the
 * CPU. */
template <class T>
void lane_pieces(czk_gpu *gpu, czk_pool *pool, czk_rng *rng, unsigned lg,
                 const czk__gpu_msm_opts *opts) {
    const size_t n = (size_t)1 << lg;
    typename T::aff *p = (typename T::aff *)czk_malloc(n * sizeof(*p));
    czk_fr *s = (czk_fr *)czk_malloc(n * sizeof(*s));
    if (p == NULL || s == NULL || T::make(pool, p, n, rng) != CZK_OK) {
        fail("host allocation", CZK_ENOMEM, NULL);
    } else {
        for (int kind = 0; kind < 3; kind += 2) {
            typename T::jac a, b;
            fill_fr(pool, s, n, czk_rng_u64(rng), kind);
            if (gpu_msm_t<T>(gpu, &a, p, s, n, opts) == CZK_OK &&
                cpu_msm_t<T>(&b, p, s, n, pool) == CZK_OK)
                check(T::equal(&a, &b), "%s 2^%u %-9s in pieces beside a lane equals the CPU",
                      T::name(), lg, fill_name(kind));
        }
    }
    czk_free(p);
    czk_free(s);
}

void test_msm_lane(czk_gpu *gpu, czk_pool *pool, czk_rng *rng) {
    czk_gpu *lane = NULL;
    czk_err err = {};
    czk__gpu_msm_opts opts;
    memset(&opts, 0, sizeof(opts));
    opts.piece_blocks = 8;
    opts.ones_levels_lg = 10;
    say("\n== MSM giving way to a priority lane ==\n");
    check(!czk__gpu_gives_way(gpu), "no lane on the device: the context does not give way");
    int rc = czk_gpu_create(&lane, gpu->device, &err);
    if (rc == CZK_OK)
        rc = czk__gpu_stream_prioritize(lane, &err);
    if (rc != CZK_OK) {
        fail("lane context", rc, &err);
        czk_gpu_destroy(lane);
        return;
    }
    check(czk__gpu_gives_way(gpu) && !czk__gpu_gives_way(lane),
          "with a lane open, the context gives way and the lane does not");
    lane_pieces<tg1>(gpu, pool, rng, 16, &opts);
    lane_pieces<tg2>(gpu, pool, rng, 13, &opts);
    {
        /* An MSM started while the lane's proof is urgent stops at its first yield point
         * until the proof ends; then it completes, correct. */
        const size_t n = (size_t)1 << 14;
        czk_g1_affine *p = (czk_g1_affine *)czk_malloc(n * sizeof(*p));
        czk_fr *s = (czk_fr *)czk_malloc(n * sizeof(*s));
        if (p == NULL || s == NULL || make_points(pool, p, n, rng) != CZK_OK) {
            fail("host allocation", CZK_ENOMEM, NULL);
        } else {
            czk_g1_jacobian a, b;
            std::atomic<int> done(0);
            int mrc = CZK_ENOMEM;
            fill_fr(pool, s, n, czk_rng_u64(rng), 2);
            czk__gpu_urgent_begin(lane);
            std::thread t([&] {
                mrc = gpu_msm_t<tg1>(gpu, &a, p, s, n, &opts);
                done.store(1);
            });
            struct timespec ts = {0, 300 * 1000 * 1000};
            nanosleep(&ts, NULL);
            check(done.load() == 0, "an MSM waits while the lane's proof is urgent");
            czk__gpu_urgent_end(lane);
            t.join();
            if (mrc == CZK_OK && cpu_msm_t<tg1>(&b, p, s, n, pool) == CZK_OK)
                check(czk_g1_jacobian_equal(&a, &b), "the MSM that waited equals the CPU");
        }
        czk_free(p);
        czk_free(s);
    }
    czk_gpu_destroy(lane);
    check(!czk__gpu_gives_way(gpu), "the lane closed: the context no longer gives way");
}

} // namespace

void czk_gpu_test::check_msm(const test_env *e) {
    /* The ones' batch-affine levels from 2^10 points (every split check's 20,001 ones take
     * them), and none at all. */
    czk__gpu_msm_opts levels_10, levels_none;
    memset(&levels_10, 0, sizeof(levels_10));
    memset(&levels_none, 0, sizeof(levels_none));
    levels_10.ones_levels_lg = 10;
    levels_none.ones_levels_lg = 32;
    module("msm");
    test_msm_edges(e->gpu, e->rng);
    test_msm_g1(e->gpu, e->pool, e->rng);
    test_msm_split<tg1>(e->gpu, e->pool, e->rng, NULL);
    test_msm_split<tg2>(e->gpu, e->pool, e->rng, NULL);
    say("\n(the same with batch-affine levels for the ones down to 2^10)\n");
    test_msm_split<tg1>(e->gpu, e->pool, e->rng, &levels_10);
    test_msm_split<tg2>(e->gpu, e->pool, e->rng, &levels_10);
    say("\n(the same with no batch-affine level)\n");
    test_msm_split<tg1>(e->gpu, e->pool, e->rng, &levels_none);
    test_msm_split<tg2>(e->gpu, e->pool, e->rng, &levels_none);
    test_msm_g2(e->gpu, e->pool, e->rng, e->max_msm_lg);
    test_msm_lane(e->gpu, e->pool, e->rng);
}
