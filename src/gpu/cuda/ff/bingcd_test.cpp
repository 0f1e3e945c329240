/*
 * bingcd.cuh on the CPU: the device inversion's very code, compiled for the host, against the
 * CPU field's inverses (czk_fp_inv, czk_fr_inv: Fermat, an independent implementation), so
 * CI, which has no GPU, checks the algorithm, its bounds and its correction constants. The
 * device build of the same code is checked by czk_gpu_test ("inv (binary GCD)").
 *
 * Inputs: every power of two below the modulus and each p − 2^k, 2^k − 1, the values around
 * 0, 1, p/2, 2^32, 2^64 (the exact-approximation edge), then random elements and random
 * short ones (few limbs: the rounds that start exact). Exit status 0 when every inverse
 * matches, 1 otherwise (the first mismatch printed).
 */
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "field/fp.h"
#include "field/fr.h"
#include "gpu/cuda/ff/bingcd.cuh"
#include "util/rng.h"

namespace {

using czk_cuda::bingcd_inverse;
using czk_cuda::bingcd_rounds;

/* The CPU side of one field for the checks. */
struct fp_side {
    typedef czk_fp elem;
    static constexpr int N = 12, BITS = 381;
    static constexpr uint32_t PINV = 0xfffcfffdu;
    static const char *name() {
        return "Fp";
    }
    static const uint64_t *mod() {
        return CZK_FP_MODULUS;
    }
    static void inv(elem *r, const elem *a) {
        czk_fp_inv(r, a);
    }
    static void mul(elem *r, const elem *a, const elem *b) {
        czk_fp_mul(r, a, b);
    }
    static void add(elem *r, const elem *a, const elem *b) {
        czk_fp_add(r, a, b);
    }
    static const elem &one() {
        return CZK_FP_ONE;
    }
    static uint32_t corr(int i) {
        return czk_cuda::bingcd_corr_fp(i);
    }
};

struct fr_side {
    typedef czk_fr elem;
    static constexpr int N = 8, BITS = 255;
    static constexpr uint32_t PINV = 0xffffffffu;
    static const char *name() {
        return "Fr";
    }
    static const uint64_t *mod() {
        return CZK_FR_MODULUS;
    }
    static void inv(elem *r, const elem *a) {
        czk_fr_inv(r, a);
    }
    static void mul(elem *r, const elem *a, const elem *b) {
        czk_fr_mul(r, a, b);
    }
    static void add(elem *r, const elem *a, const elem *b) {
        czk_fr_add(r, a, b);
    }
    static const elem &one() {
        return CZK_FR_ONE;
    }
    static uint32_t corr(int i) {
        return czk_cuda::bingcd_corr_fr(i);
    }
};

/* 64-bit limbs (the CPU's layout) to 32-bit ones and back: the same little-endian bytes. */
template <int N> void to32(uint32_t out[N], const uint64_t *in) {
    for (int i = 0; i < N; i++)
        out[i] = (uint32_t)(in[i / 2] >> (32 * (i % 2)));
}
template <int N> void to64(uint64_t *out, const uint32_t in[N]) {
    for (int i = 0; i < N / 2; i++)
        out[i] = (uint64_t)in[2 * i] | ((uint64_t)in[2 * i + 1] << 32);
}

/* a − b over N 32-bit limbs (no borrow out expected); a + b likewise. */
template <int N> void sub32(uint32_t r[N], const uint32_t a[N], const uint32_t b[N]) {
    int64_t c = 0;
    for (int i = 0; i < N; i++) {
        c += (int64_t)a[i] - b[i];
        r[i] = (uint32_t)c;
        c >>= 32;
    }
}

/* The element whose Montgomery limbs are the integer v (v < p): the CPU's inverse works on it. */
template <class S> typename S::elem elem_of(const uint32_t v[S::N]) {
    typename S::elem e;
    to64<S::N>(e.l, v);
    return e;
}

/*
 * The device's inverse of Montgomery form y, on the host: the binary GCD, then the product with
 * the correction constant (a Montgomery product, as mont_t::mul_wide).
 */
template <class S> typename S::elem gcd_inverse(const uint32_t y[S::N]) {
    uint32_t p[S::N], v[S::N], c[S::N];
    to32<S::N>(p, S::mod());
    bingcd_inverse<S::N, bingcd_rounds(S::BITS)>(v, y, p, S::PINV);
    for (int i = 0; i < S::N; i++)
        c[i] = S::corr(i);
    typename S::elem ve = elem_of<S>(v), ce = elem_of<S>(c), r;
    S::mul(&r, &ve, &ce);
    return r;
}

/*
 * The correction constant again, from the CPU field: its plain limbs R³·2^(2T) are the
 * Montgomery form of 2^(2·32N + 2T), which doubling one (R mod p) produces.
 */
template <class S> bool check_corr() {
    const int T = bingcd_rounds(S::BITS), e = 2 * 32 * S::N + 2 * T;
    typename S::elem x = S::one();
    for (int i = 0; i < e; i++)
        S::add(&x, &x, &x);
    uint32_t got[S::N];
    to32<S::N>(got, x.l);
    for (int i = 0; i < S::N; i++)
        if (got[i] != S::corr(i)) {
            printf("FAIL %s: correction constant limb %d is %08x, the CPU field gives %08x\n",
                   S::name(), i, S::corr(i), got[i]);
            return false;
        }
    printf("ok   %s: correction constant R^3*2^%d equals the CPU field's\n", S::name(), 2 * T);
    return true;
}

template <class S> bool check_one(const uint32_t y[S::N], size_t *count) {
    typename S::elem ye = elem_of<S>(y), want;
    S::inv(&want, &ye);
    const typename S::elem got = gcd_inverse<S>(y);
    (*count)++;
    if (memcmp(&got, &want, sizeof(want)) == 0)
        return true;
    printf("FAIL %s: inverse of ", S::name());
    for (int i = S::N - 1; i >= 0; i--)
        printf("%08x", y[i]);
    printf(" differs from the CPU's\n");
    return false;
}

template <class S> bool check_field(czk_rng *rng, size_t nrandom) {
    const int N = S::N;
    uint32_t p[N], y[N];
    size_t count = 0;
    bool ok = check_corr<S>();
    to32<N>(p, S::mod());
    /* 2^k, p − 2^k and 2^k − 1 for every k below the modulus's length. */
    for (int k = 0; k < S::BITS && ok; k++) {
        uint32_t pk[N];
        memset(pk, 0, sizeof(pk));
        pk[k / 32] = 1u << (k % 32);
        ok = check_one<S>(pk, &count);
        sub32<N>(y, p, pk);
        ok = ok && check_one<S>(y, &count);
        uint32_t one[N] = {1};
        sub32<N>(y, pk, one);
        ok = ok && check_one<S>(y, &count);
    }
    /* 0 .. 3, p − 1 .. p − 3, (p ± 1)/2, and 2^32, 2^64 with their neighbours. */
    const uint32_t small[] = {0, 1, 2, 3};
    for (uint32_t s : small) {
        if (!ok)
            break;
        memset(y, 0, sizeof(y));
        y[0] = s;
        ok = check_one<S>(y, &count);
        uint32_t d[N] = {s + 1};
        sub32<N>(y, p, d);
        ok = ok && check_one<S>(y, &count);
    }
    for (int half = 0; half < 2 && ok; half++) {
        for (int i = 0; i < N; i++)
            y[i] = (p[i] >> 1) | (i + 1 < N ? p[i + 1] << 31 : 0);
        y[0] += (uint32_t)half; /* (p − 1)/2 and (p + 1)/2: no carry, p's low limb is odd */
        ok = check_one<S>(y, &count);
    }
    for (int limb = 1; limb <= 2 && ok; limb++)
        for (int delta = -1; delta <= 1 && ok; delta++) {
            memset(y, 0, sizeof(y));
            y[limb] = 1;
            if (delta < 0) {
                uint32_t one[N] = {1};
                sub32<N>(y, y, one);
            } else {
                y[0] = (uint32_t)delta;
            }
            ok = check_one<S>(y, &count);
        }
    /* Random elements, then random ones of 1 .. N limbs. */
    for (size_t r = 0; r < 2 * nrandom && ok; r++) {
        typename S::elem e;
        memset(&e, 0, sizeof(e));
        for (int i = 0; i < N / 2; i++)
            e.l[i] = czk_rng_u64(rng);
        to32<N>(y, e.l);
        const int limbs = r < nrandom ? N : 1 + (int)(czk_rng_u64(rng) % N);
        for (int i = limbs; i < N; i++)
            y[i] = 0;
        y[N - 1] &= p[N - 1] >> 1; /* below p: the top limb under half of p's */
        ok = check_one<S>(y, &count);
    }
    if (ok)
        printf("ok   %s: %zu binary-GCD inverses equal the CPU's\n", S::name(), count);
    return ok;
}

} // namespace

int main() {
    czk_rng rng;
    czk_rng_seed(&rng, 0x62696e676364ull);
    const bool ok = check_field<fr_side>(&rng, 20000) && check_field<fp_side>(&rng, 20000);
    return ok ? 0 : 1;
}
