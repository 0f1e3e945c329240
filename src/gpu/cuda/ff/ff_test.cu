/*
 * The device's field arithmetic against the CPU's (module "field" of czk_gpu_test): Fp and Fr
 * Montgomery products (mul_wide, sqr_wide, operator*, sqr) on every pair of edge values, edges
 * against random elements, random pairs and random elements with all-ones 32-bit limbs, each
 * bit for bit czk_fp_mul / czk_fr_mul; inverses by the binary GCD and by Fermat of every edge
 * value (0 included) and 4,096 random elements against czk_fp_inv / czk_fr_inv.
 */
#include <stdint.h>
#include <string.h>

#include "field/fp.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/gpu_test.cuh"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"

using namespace czk_gpu_test;

namespace {

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
void limbs_sub(uint64_t *r, const uint64_t *x, const uint64_t *y, int n) {
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
template <class T> size_t field_edges(typename T::host *out) {
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
template <class T> void test_field_t(czk_gpu *gpu, czk_rng *rng) {
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
    czk_err err = {};
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

} // namespace

void czk_gpu_test::check_field(const test_env *e) {
    module("field");
    say("\n== field products (device mul_wide, sqr_wide, operator*, sqr) vs CPU ==\n");
    test_field_t<field_fp>(e->gpu, e->rng);
    test_field_t<field_fr>(e->gpu, e->rng);
}
