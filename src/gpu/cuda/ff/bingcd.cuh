/*
 * Modular inversion by an optimised binary GCD, for batch-affine additions on the device.
 *
 * DESIGN. Fermat (x^(p − 2)) costs ~490 Fp products, so a thread that shares one inversion
 * over K additions pays 490/K products an addition on top of the ~6 that batch-affine
 * arithmetic needs, where an XYZZ addition costs ~10: only K in the hundreds pays, and a
 * thread cannot hold hundreds of pending additions. The binary GCD below takes a tenth of
 * Fermat's time on the H200 (~63 Fp products; BENCHMARKS.md run 45).
 *
 * The algorithm is Pornin's ("Optimized Binary GCD for Modular Inversion", IACR ePrint
 * 2020/972, algorithm 2), written here for 32-bit limbs. The binary extended GCD keeps
 * a ≡ y·U·2^−s and b ≡ y·V·2^−s (mod p) while it halves a (a even) or replaces a by
 * (a − b)/2 after swapping so that a >= b (a odd); after 2·len(p) − 1 steps a = 0 and
 * b = gcd(y, p) = 1, so y^−1 = V·2^−s. Each step needs only the low bit of a and the
 * comparison a < b, so W = 30 steps run on 64-bit approximations: the low W bits of a and b
 * (exact, and all that W steps read of them) under their top 34 bits, both taken at the
 * larger one's length. The W steps' effect is a matrix (f0 g0; f1 g1) with entries of at most
 * 2^W in magnitude, applied once to the full a, b (then divided by 2^W, exactly) and to U, V.
 * When the comparison is wrong because the approximations tie, a or b comes out negative
 * and is negated with its row; Pornin shows the step count bound still holds.
 *
 * U and V are kept modulo p and divided by 2^32 at every round (one Montgomery reduction
 * step), so that a round's signed combination needs no division: after T rounds
 * y^−1 = v·2^(32T − W·T). The caller's y is a Montgomery form x·R, and it wants x^−1·R =
 * R²·y^−1: one Montgomery product of v with the constant R³·2^((32 − W)·T) mod p (the
 * field's correction, bingcd_corr_fr / bingcd_corr_fp).
 *
 * Plain C++ on 32-bit limbs and 64-bit products (no inline PTX), __host__ __device__, so the
 * CPU test (bingcd_test.cpp, beside this file) runs the very same code against the CPU field's
 * inverse. Every value takes the same number of rounds and steps; the steps select by masks and
 * conditional moves, so the threads of a warp stay together (only a round's choice between the
 * exact and the approximated form of a and b may differ between them).
 */
#ifndef CZK_GPU_CUDA_FF_BINGCD_CUH
#define CZK_GPU_CUDA_FF_BINGCD_CUH

#include <cstdint>

#ifdef __CUDACC__
#define CZK_BINGCD_FN __host__ __device__ __forceinline__
#define CZK_BINGCD_CONST __host__ __device__ constexpr
#else
#define CZK_BINGCD_FN inline
#define CZK_BINGCD_CONST constexpr
#endif
/* Unrolling hints for the device compiler only: the host compiler warns on the pragma. */
#ifdef __CUDA_ARCH__
#define CZK_BINGCD_UNROLL _Pragma("unroll")
#define CZK_BINGCD_UNROLL_NOT _Pragma("unroll 1")
#else
#define CZK_BINGCD_UNROLL
#define CZK_BINGCD_UNROLL_NOT
#endif

namespace czk_cuda {

/* Steps a round: the coefficients stay within ±2^30, so a round's products fit int64. */
#define CZK_BINGCD_W 30

/* Rounds for a modulus of `bits` bits: ceil((2·bits − 1) / W). */
CZK_BINGCD_CONST int bingcd_rounds(int bits) {
    return (2 * bits - 1 + CZK_BINGCD_W - 1) / CZK_BINGCD_W;
}

/*
 * The final corrections R³·2^((32 − W)·T) mod p, plain limbs (the DESIGN block): Fr (R =
 * 2^256, T = 17 rounds) 2^802 mod r; Fp (R = 2^384, T = 26) 2^1204 mod p. bingcd_test.cpp
 * derives both again from the CPU field.
 */
CZK_BINGCD_CONST uint32_t bingcd_corr_fr(int i) {
    constexpr uint32_t m[8] = {0x32e758ee, 0xdb8675ca, 0x57e28f32, 0xd32c658d,
                               0xabe3e83a, 0xfb7c584e, 0xfc0061c5, 0x2f984fb7};
    return m[i];
}
CZK_BINGCD_CONST uint32_t bingcd_corr_fp(int i) {
    constexpr uint32_t m[12] = {0x8c5d1a2e, 0x42957fa8, 0x24cc85b1, 0xa6507a62,
                                0x39990a58, 0xd8ca1b85, 0xac2f63fc, 0xe65a054f,
                                0xe1f35417, 0x4ca0897a, 0xa0365c54, 0x032748cb};
    return m[i];
}

CZK_BINGCD_FN uint32_t bingcd_mask(bool c) {
    return 0u - (uint32_t)c;
}

/*
 * r = (x·f + y·g) as N + 1 limbs of two's complement (x, y < 2^(32N) unsigned, |f| + |g| <=
 * 2^30): |x·f + y·g| < 2^(32N + 30), so the top limb holds the sign and the high bits.
 */
template <int N>
CZK_BINGCD_FN void bingcd_comb(uint32_t r[N + 1], const uint32_t x[N], const uint32_t y[N],
                               int32_t f, int32_t g) {
    int64_t carry = 0;
    CZK_BINGCD_UNROLL
    for (int i = 0; i < N; i++) {
        /* |x_i·f| + |y_i·g| < 2^63 − 2^33, so the carry (< 2^32 in magnitude) fits too. */
        const int64_t t = (int64_t)x[i] * f + (int64_t)y[i] * g + carry;
        r[i] = (uint32_t)t;
        carry = t >> 32; /* arithmetic: floor division by 2^32 */
    }
    r[N] = (uint32_t)carry;
}

/* r = −r (two's complement over N + 1 limbs) when neg. */
template <int N> CZK_BINGCD_FN void bingcd_cneg(uint32_t r[N + 1], bool neg) {
    const uint32_t m = bingcd_mask(neg);
    uint64_t c = neg ? 1u : 0u;
    CZK_BINGCD_UNROLL
    for (int i = 0; i <= N; i++) {
        c += (uint64_t)(r[i] ^ m);
        r[i] = (uint32_t)c;
        c >>= 32;
    }
}

/*
 * a = |x·f + y·g| / 2^W (exact division), and the sign of x·f + y·g in *neg: the new a (or b)
 * of a round: |x·f + y·g| < 2^(32N + 30), so the quotient fits N limbs.
 */
template <int N>
CZK_BINGCD_FN bool bingcd_update_ab(uint32_t out[N], const uint32_t x[N], const uint32_t y[N],
                                    int32_t f, int32_t g) {
    uint32_t r[N + 1];
    bingcd_comb<N>(r, x, y, f, g);
    const bool neg = (int32_t)r[N] < 0;
    bingcd_cneg<N>(r, neg);
    CZK_BINGCD_UNROLL
    for (int i = 0; i < N; i++)
        out[i] = (r[i] >> CZK_BINGCD_W) | (r[i + 1] << (32 - CZK_BINGCD_W));
    return neg;
}

/*
 * out = (u·f + v·g)·2^−32 mod p, in [0, p), for u, v in [0, p) and |f| + |g| <= 2^30: one
 * Montgomery step (q = −t·p^−1 mod 2^32 makes t + q·p divisible by 2^32), whose result lies
 * in (−p/4, 5p/4), then one conditional addition or subtraction of p. For Fr, 5r/4 exceeds
 * 2^255, so the result carries a signed limb above its N.
 */
template <int N>
CZK_BINGCD_FN void bingcd_update_uv(uint32_t out[N], const uint32_t u[N], const uint32_t v[N],
                                    int32_t f, int32_t g, const uint32_t p[N], uint32_t pinv) {
    uint32_t r[N + 1];
    bingcd_comb<N>(r, u, v, f, g);
    const uint32_t q = r[0] * pinv;
    /* s = t + q·p: N unsigned limbs (s[0] = 0) under a signed top limb. */
    uint32_t s[N];
    int64_t c = 0;
    CZK_BINGCD_UNROLL
    for (int i = 0; i < N; i++) {
        const uint64_t t = (uint64_t)q * p[i] + r[i]; /* < 2^64 */
        const uint64_t lo = (uint64_t)(uint32_t)t + (uint64_t)(uint32_t)c;
        s[i] = (uint32_t)lo;
        c = (c >> 32) + (int64_t)(t >> 32) + (int64_t)(lo >> 32);
    }
    const int64_t top = (int64_t)(int32_t)r[N] + c;
    /* w = s / 2^32: limbs s[1 .. N − 1], then top (its low limb, and its sign above). */
    uint32_t w[N];
    CZK_BINGCD_UNROLL
    for (int i = 0; i < N - 1; i++)
        w[i] = s[i + 1];
    w[N - 1] = (uint32_t)top;
    const int64_t whi = top >> 32;
    const bool negw = top < 0;
    /* w + p when negative, else w − p when that does not borrow, else w */
    uint32_t a[N], d[N];
    uint64_t ca = 0;
    int64_t cd = 0;
    CZK_BINGCD_UNROLL
    for (int i = 0; i < N; i++) {
        ca += (uint64_t)w[i] + p[i];
        a[i] = (uint32_t)ca;
        ca >>= 32;
        cd += (int64_t)w[i] - (int64_t)p[i];
        d[i] = (uint32_t)cd;
        cd >>= 32;
    }
    const bool ge = !negw && cd + whi >= 0;
    const uint32_t ma = bingcd_mask(negw), md = bingcd_mask(ge);
    CZK_BINGCD_UNROLL
    for (int i = 0; i < N; i++)
        out[i] = (a[i] & ma) | (d[i] & md) | (w[i] & ~(ma | md));
}

/* The 64-bit approximation of x: its low W bits under bits [n − 34, n) of x (n = 32·hi + t,
 * t in [1, 32], hi >= 2: the larger value's length when that exceeds 64 bits). */
template <int N> CZK_BINGCD_FN uint64_t bingcd_approx(const uint32_t x[N], int hi, unsigned t) {
    uint32_t x2 = 0, x1 = 0, x0 = 0;
    CZK_BINGCD_UNROLL
    for (int i = 2; i < N; i++) {
        const uint32_t m = bingcd_mask(i == hi);
        x2 |= x[i] & m;
        x1 |= x[i - 1] & m;
        x0 |= x[i - 2] & m;
    }
    const uint64_t w = ((uint64_t)x2 << 32) | x1;
    /* bits from position t + 30 of the 96-bit x2:x1:x0 */
    const uint64_t top = t >= 2 ? w >> (t - 2) : (w << 1) | (x0 >> 31);
    return ((top & ((1ull << 34) - 1)) << CZK_BINGCD_W) | (x[0] & ((1u << CZK_BINGCD_W) - 1));
}

/*
 * v = y^−1 · 2^((32 − W)·ROUNDS) mod p for y < p (0 for y = 0; see the DESIGN block), as the
 * DESIGN block's v before its final correction. p: the N limbs of an odd modulus below
 * 2^(32N − 1); pinv = −p^−1 mod 2^32; ROUNDS >= bingcd_rounds(len(p)).
 */
template <int N, int ROUNDS>
CZK_BINGCD_FN void bingcd_inverse(uint32_t v[N], const uint32_t y[N], const uint32_t p[N],
                                  uint32_t pinv) {
    uint32_t a[N], b[N], u[N];
    CZK_BINGCD_UNROLL
    for (int i = 0; i < N; i++) {
        a[i] = y[i];
        b[i] = p[i];
        u[i] = i == 0 ? 1u : 0u;
        v[i] = 0;
    }
    CZK_BINGCD_UNROLL_NOT
    for (int round = 0; round < ROUNDS; round++) {
        /* The larger length: top non-zero limb of a | b. */
        int hi = 0;
        uint32_t top = 0;
        CZK_BINGCD_UNROLL
        for (int i = 0; i < N; i++) {
            const uint32_t c = a[i] | b[i];
            if (c != 0) {
                hi = i;
                top = c;
            }
        }
        uint64_t aa, bb;
        if (hi < 2) { /* both below 2^64: exact */
            aa = ((uint64_t)a[1] << 32) | a[0];
            bb = ((uint64_t)b[1] << 32) | b[0];
        } else {
#ifdef __CUDA_ARCH__
            const unsigned t = 32 - __clz(top);
#else
            const unsigned t = 32 - __builtin_clz(top);
#endif
            aa = bingcd_approx<N>(a, hi, t);
            bb = bingcd_approx<N>(b, hi, t);
        }
        int32_t f0 = 1, g0 = 0, f1 = 0, g1 = 1;
        CZK_BINGCD_UNROLL
        for (int j = 0; j < CZK_BINGCD_W; j++) {
            const bool odd = (aa & 1) != 0;
            const bool swap = odd && aa < bb;
            const uint64_t sa = swap ? bb : aa, sb = swap ? aa : bb;
            const int32_t sf0 = swap ? f1 : f0, sg0 = swap ? g1 : g0;
            const int32_t sf1 = swap ? f0 : f1, sg1 = swap ? g0 : g1;
            aa = (odd ? sa - sb : sa) >> 1;
            bb = sb;
            f0 = odd ? sf0 - sf1 : sf0;
            g0 = odd ? sg0 - sg1 : sg0;
            f1 = sf1 * 2;
            g1 = sg1 * 2;
        }
        uint32_t na[N], nb[N], nu[N], nv[N];
        if (bingcd_update_ab<N>(na, a, b, f0, g0)) {
            f0 = -f0;
            g0 = -g0;
        }
        if (bingcd_update_ab<N>(nb, a, b, f1, g1)) {
            f1 = -f1;
            g1 = -g1;
        }
        bingcd_update_uv<N>(nu, u, v, f0, g0, p, pinv);
        bingcd_update_uv<N>(nv, u, v, f1, g1, p, pinv);
        CZK_BINGCD_UNROLL
        for (int i = 0; i < N; i++) {
            a[i] = na[i];
            b[i] = nb[i];
            u[i] = nu[i];
            v[i] = nv[i];
        }
    }
}

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_FF_BINGCD_CUH */
