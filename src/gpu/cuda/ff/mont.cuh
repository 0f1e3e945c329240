/*
 * Montgomery arithmetic modulo the BLS12-381 primes on the device.
 *
 * DESIGN. An element is N little-endian 32-bit limbs in Montgomery form a·R mod p with
 * R = 2^(32·N), always fully reduced: Fr (N = 8, R = 2^256) and Fp (N = 12, R = 2^384) are
 * bit for bit the CPU's czk_fr and czk_fp (4 and 6 little-endian 64-bit limbs), so buffers
 * copy between host and device without conversion.
 *
 * Multiplication is CIOS Montgomery (Koç, Acar and Kaliski, "Analyzing and comparing
 * Montgomery multiplication algorithms", IEEE Micro 1996) on 32-bit limbs: per row of b, the
 * low halves of a·b_i go down one carry chain (mad.lo.cc/madc.lo.cc) and the high halves
 * down a second one shifted by a limb (mad.hi.cc/madc.hi.cc), then the same two chains add
 * m·p. The accumulator needs only N + 1 limbs: with t < 2p at the start of a row,
 * t + a·b_i + m·p < 2p·2^32 < 2^(32(N+1)) because 2p < 2^(32N) for both primes, so the
 * chains never carry out of the top limb. One conditional subtraction ends the product.
 *
 * mul_wide (what the curve formulas and the NTT use) runs the same rows on the same integers
 * in a layout made for sm_90's 64-bit multiply-add (IMAD.WIDE.U32 with carry in and out: one
 * instruction for a·b_j's low and high halves, on an aligned register pair). A row's products
 * come in two kinds, a_j·b_i for even j at limbs j, j + 1 and for odd j at limbs j, j + 1,
 * and each kind goes to its own accumulator: t = x + 2^32·y with x (limbs 0 .. N − 1 of t)
 * and y (limbs 1 .. N), so both get their pairs on aligned positions 2k, 2k + 1. Row i:
 *   x[0] += y[1]; y = y >> 64 plus the odd products, on the carry of that add (the shift
 *   keeps y aligned, see below); x += the even products; y[N − 1] += x's carry (limb N);
 *   m = x[0]·PINV; y += m·(p's odd limbs); x += m·(p's even limbs), x[0] becomes 0, its carry
 *   to y[N − 1] as before.
 * Then t/2^32 = y + x/2^32: y is the next row's x and x, whose limb 0 is zero, its y; the roles
 * swap every row and no limb moves. After the last row one chain adds the two (merge), and
 * the conditional subtraction follows. The old one-accumulator form (pairs at odd positions
 * of one array) cost a register move per product: 784 against 432 SASS per Fp product.
 *
 * No carry is lost in mul_wide: at every point of row i, x + 2^32·y is a partial sum of
 * t + a·b_i + m·p < 2^32·2p ≤ 2^(32(N+1)) (all terms non-negative, t < 2p as in CIOS), so
 * 2^32·y < 2^(32(N+1)) and y < 2^(32N): the chains that end at y[N − 1] carry out of nothing,
 * which is why their tops drop the flag, while x's chains, which end at limb N − 1 of t, pass
 * their carry to y[N − 1] (limb N). The result t = y + x/2^32 < 2p < 2^(32N) takes no carry
 * out of merge either. Same m every row (it depends on t mod 2^32 only), so the same t as
 * operator* after every row and the same fully reduced result, bit for bit; any Montgomery
 * reduction would give it too, as (a·b + M·p)/R with the unique M < R, M ≡ −a·b·p^-1 mod R.
 *
 * sqr_wide is mul_wide(a, a). A dedicated squaring (cross products once, doubled, plus the
 * squares, then N reduction rows on 2N limbs) saves N(N − 1)/2 of the N² products a·b_i, but
 * the doubling, the third term and the 2N-limb reduction in this pair layout need about as
 * many adds and carry fix-ups in SASS as the products it saves (one instruction each).
 *
 * The carry flag lives between separate asm statements; they are volatile, so the compiler
 * keeps their order, and nothing else in between writes the flag.
 *
 * Everything here is branch-free in the values except where a name ends in _var.
 */
#ifndef CZK_GPU_CUDA_FF_MONT_CUH
#define CZK_GPU_CUDA_FF_MONT_CUH

#include <cstdint>

#include "gpu/cuda/ff/bingcd.cuh"

namespace czk_cuda {

/* ---- carry-chain primitives ---------------------------------------------------------- */

__device__ __forceinline__ uint32_t add_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("add.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t addc_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("addc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t addc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("addc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t sub_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("sub.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t subc_cc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("subc.cc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t subc(uint32_t a, uint32_t b) {
    uint32_t r;
    asm volatile("subc.u32 %0, %1, %2;" : "=r"(r) : "r"(a), "r"(b));
    return r;
}
__device__ __forceinline__ uint32_t mad_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("mad.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t madc_lo_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.lo.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t mad_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("mad.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t madc_hi_cc(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.hi.cc.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}
__device__ __forceinline__ uint32_t madc_hi(uint32_t a, uint32_t b, uint32_t c) {
    uint32_t r;
    asm volatile("madc.hi.u32 %0, %1, %2, %3;" : "=r"(r) : "r"(a), "r"(b), "r"(c));
    return r;
}

/* ---- the two fields -------------------------------------------------------------------- */

/*
 * Fr's −r^-1 mod 2^32 = 2^32 − 1 as mul_wide reads it: from constant memory (a uniform
 * register, loaded once per kernel), not as an immediate. Knowing m = t[0]·PINV = −t[0],
 * ptxas rewrites the low halves of m·r_j as t[0]·(−r_j) and so splits every 64-bit
 * multiply-add of the reduction into IMAD and IMAD.HI: 288 SASS for one Fr mul_wide against
 * 240 with the value hidden (sm_90, bench/gpu/sass_count.sh).
 */
static __constant__ uint32_t fr_pinv_opaque = 0xffffffffu;

/* r = 0x73eda753...ffffffff00000001. Limbs fold to immediates once loops are unrolled. */
struct fr_params {
    static constexpr int N = 8;
    static constexpr int BITS = 255;
    static constexpr uint32_t PINV = 0xffffffffu;  /* -r^-1 mod 2^32 */
    static constexpr bool LOW_1_MINUS_2_32 = true; /* r mod 2^64 = 2^64 − 2^32 + 1 */
    __device__ __forceinline__ static uint32_t pinv() {
        return fr_pinv_opaque; /* = PINV */
    }
    __device__ __forceinline__ static constexpr uint32_t mod(int i) {
        constexpr uint32_t m[8] = {0x00000001, 0xffffffff, 0xfffe5bfe, 0x53bda402,
                                   0x09a1d805, 0x3339d808, 0x299d7d48, 0x73eda753};
        return m[i];
    }
    /* R mod r: the Montgomery form of 1. */
    __device__ __forceinline__ static constexpr uint32_t one(int i) {
        constexpr uint32_t m[8] = {0xfffffffe, 0x00000001, 0x00034802, 0x5884b7fa,
                                   0xecbc4ff5, 0x998c4fef, 0xacc5056f, 0x1824b159};
        return m[i];
    }
    /* bingcd.cuh's final correction. */
    __device__ __forceinline__ static constexpr uint32_t inv_corr(int i) {
        return bingcd_corr_fr(i);
    }
};

/* p = 0x1a0111ea...b9feffffffffaaab. */
struct fp_params {
    static constexpr int N = 12;
    static constexpr int BITS = 381;
    static constexpr uint32_t PINV = 0xfffcfffdu; /* -p^-1 mod 2^32 */
    static constexpr bool LOW_1_MINUS_2_32 = false;
    __device__ __forceinline__ static uint32_t pinv() {
        return PINV;
    }
    __device__ __forceinline__ static constexpr uint32_t mod(int i) {
        constexpr uint32_t m[12] = {0xffffaaab, 0xb9feffff, 0xb153ffff, 0x1eabfffe,
                                    0xf6b0f624, 0x6730d2a0, 0xf38512bf, 0x64774b84,
                                    0x434bacd7, 0x4b1ba7b6, 0x397fe69a, 0x1a0111ea};
        return m[i];
    }
    __device__ __forceinline__ static constexpr uint32_t one(int i) {
        constexpr uint32_t m[12] = {0x0002fffd, 0x76090000, 0xc40c0002, 0xebf4000b,
                                    0x53c758ba, 0x5f489857, 0x70525745, 0x77ce5853,
                                    0xa256ec6d, 0x5c071a97, 0xfa80e493, 0x15f65ec3};
        return m[i];
    }
    /* bingcd.cuh's final correction. */
    __device__ __forceinline__ static constexpr uint32_t inv_corr(int i) {
        return bingcd_corr_fp(i);
    }
};

template <class P> struct __align__(16) mont_t {
    static constexpr int N = P::N;
    uint32_t l[N];

    __device__ __forceinline__ static mont_t zero() {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.l[i] = 0;
        return r;
    }
    __device__ __forceinline__ static mont_t one() {
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.l[i] = P::one(i);
        return r;
    }

    /* Vectorised global/shared loads and stores (16-byte aligned addresses). */
    __device__ __forceinline__ static mont_t load(const mont_t *p) {
        mont_t r;
        const uint4 *q = reinterpret_cast<const uint4 *>(p);
#pragma unroll
        for (int i = 0; i < N / 4; i++) {
            uint4 v = q[i];
            r.l[4 * i] = v.x;
            r.l[4 * i + 1] = v.y;
            r.l[4 * i + 2] = v.z;
            r.l[4 * i + 3] = v.w;
        }
        return r;
    }
    /* As load, through the read-only (non-coherent) cache: for data no thread writes. */
    __device__ __forceinline__ static mont_t load_ro(const mont_t *p) {
        mont_t r;
        const uint4 *q = reinterpret_cast<const uint4 *>(p);
#pragma unroll
        for (int i = 0; i < N / 4; i++) {
            uint4 v = __ldg(q + i);
            r.l[4 * i] = v.x;
            r.l[4 * i + 1] = v.y;
            r.l[4 * i + 2] = v.z;
            r.l[4 * i + 3] = v.w;
        }
        return r;
    }
    __device__ __forceinline__ void store(mont_t * p) const {
        uint4 *q = reinterpret_cast<uint4 *>(p);
#pragma unroll
        for (int i = 0; i < N / 4; i++)
            q[i] = make_uint4(l[4 * i], l[4 * i + 1], l[4 * i + 2], l[4 * i + 3]);
    }

    __device__ __forceinline__ bool is_zero() const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= l[i];
        return acc == 0;
    }
    __device__ __forceinline__ bool equal(const mont_t &b) const {
        uint32_t acc = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            acc |= l[i] ^ b.l[i];
        return acc == 0;
    }

    /* r = t - p if that does not borrow, else t (t < 2p). */
    __device__ __forceinline__ static mont_t reduce_once(const uint32_t t[N]) {
        mont_t s, r;
        s.l[0] = sub_cc(t[0], P::mod(0));
#pragma unroll
        for (int i = 1; i < N; i++)
            s.l[i] = subc_cc(t[i], P::mod(i));
        uint32_t borrow = subc(0, 0); /* 0 or 0xffffffff */
#pragma unroll
        for (int i = 0; i < N; i++)
            r.l[i] = (t[i] & borrow) | (s.l[i] & ~borrow);
        return r;
    }

    __device__ __forceinline__ friend mont_t operator+(const mont_t &a, const mont_t &b) {
        uint32_t t[N];
        t[0] = add_cc(a.l[0], b.l[0]);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            t[i] = addc_cc(a.l[i], b.l[i]);
        t[N - 1] = addc(a.l[N - 1], b.l[N - 1]); /* 2p < 2^(32N): no carry out */
        return reduce_once(t);
    }

    __device__ __forceinline__ friend mont_t operator-(const mont_t &a, const mont_t &b) {
        uint32_t t[N];
        t[0] = sub_cc(a.l[0], b.l[0]);
#pragma unroll
        for (int i = 1; i < N; i++)
            t[i] = subc_cc(a.l[i], b.l[i]);
        uint32_t borrow = subc(0, 0);
        mont_t r;
        r.l[0] = add_cc(t[0], P::mod(0) & borrow);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            r.l[i] = addc_cc(t[i], P::mod(i) & borrow);
        r.l[N - 1] = addc(t[N - 1], P::mod(N - 1) & borrow);
        return r;
    }

    __device__ __forceinline__ mont_t dbl() const {
        return *this + *this;
    }

    __device__ __forceinline__ mont_t neg() const {
        mont_t r;
        r.l[0] = sub_cc(P::mod(0), l[0]);
#pragma unroll
        for (int i = 1; i < N - 1; i++)
            r.l[i] = subc_cc(P::mod(i), l[i]);
        r.l[N - 1] = subc(P::mod(N - 1), l[N - 1]);
        uint32_t mask = is_zero() ? 0u : 0xffffffffu;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.l[i] &= mask;
        return r;
    }

    /* neg() when flag, else itself. */
    __device__ __forceinline__ mont_t cneg(bool flag) const {
        mont_t n = neg();
        uint32_t mask = flag ? 0xffffffffu : 0u;
        mont_t r;
#pragma unroll
        for (int i = 0; i < N; i++)
            r.l[i] = (n.l[i] & mask) | (l[i] & ~mask);
        return r;
    }

    /*
     * One CIOS reduction row: t += m·p with m = t[0]·PINV, then t >>= 32. When the modulus is
     * 1 − 2^32 modulo 2^64 (P::LOW_1_MINUS_2_32, Fr), PINV = −1 and m = −t[0], and the products
     * with limbs 0 and 1 need no multiplier: lo(m·1) = m, hi(m·1) = 0, lo(m·(2^32 − 1)) = −m =
     * t[0] and hi(m·(2^32 − 1)) = m − [m ≠ 0]. Same sums, four multiplications fewer a row.
     */
    __device__ __forceinline__ static void reduce_row(uint32_t t[N + 1]) {
        uint32_t m = t[0] * P::PINV;
        if constexpr (P::LOW_1_MINUS_2_32) {
            const uint32_t mhi1 = m - (m != 0 ? 1u : 0u);
            (void)add_cc(m, t[0]);
            t[1] = addc_cc(t[1], t[0]);
#pragma unroll
            for (int j = 2; j < N; j++)
                t[j] = madc_lo_cc(m, P::mod(j), t[j]);
            t[N] = addc(t[N], 0);
            /* The high chain starts at limb 2: hi(m·p_0) = 0 adds nothing to t[1]. */
            t[2] = add_cc(t[2], mhi1);
        } else {
            (void)mad_lo_cc(m, P::mod(0), t[0]);
#pragma unroll
            for (int j = 1; j < N; j++)
                t[j] = madc_lo_cc(m, P::mod(j), t[j]);
            t[N] = addc(t[N], 0);
            t[1] = mad_hi_cc(m, P::mod(0), t[1]);
            t[2] = madc_hi_cc(m, P::mod(1), t[2]);
        }
#pragma unroll
        for (int j = 2; j < N - 1; j++)
            t[j + 1] = madc_hi_cc(m, P::mod(j), t[j + 1]);
        t[N] = madc_hi(m, P::mod(N - 1), t[N]);
#pragma unroll
        for (int j = 0; j < N; j++)
            t[j] = t[j + 1];
        t[N] = 0;
    }

    __device__ __forceinline__ friend mont_t operator*(const mont_t &a, const mont_t &b) {
        uint32_t t[N + 1];
        /* Row 0: t = a·b_0. */
#pragma unroll
        for (int j = 0; j < N; j++)
            t[j] = a.l[j] * b.l[0];
        t[1] = mad_hi_cc(a.l[0], b.l[0], t[1]);
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            t[j + 1] = madc_hi_cc(a.l[j], b.l[0], t[j + 1]);
        t[N] = madc_hi(a.l[N - 1], b.l[0], 0);
        reduce_row(t);
#pragma unroll
        for (int i = 1; i < N; i++) {
            uint32_t bi = b.l[i];
            t[0] = mad_lo_cc(a.l[0], bi, t[0]);
#pragma unroll
            for (int j = 1; j < N; j++)
                t[j] = madc_lo_cc(a.l[j], bi, t[j]);
            t[N] = addc(0, 0);
            t[1] = mad_hi_cc(a.l[0], bi, t[1]);
#pragma unroll
            for (int j = 1; j < N - 1; j++)
                t[j + 1] = madc_hi_cc(a.l[j], bi, t[j + 1]);
            t[N] = madc_hi(a.l[N - 1], bi, t[N]);
            reduce_row(t);
        }
        return reduce_once(t);
    }

    __device__ __forceinline__ mont_t sqr() const {
        return *this * *this;
    }

    /*
     * The pair primitives of mul_wide (see the DESIGN block). x(j) is a limb of the
     * multiplicand (a lambda: a's limbs, or p's as immediates), y one 32-bit multiplier,
     * and the products x(S)·y, x(S + 2)·y, ... land as 64-bit (low, high) pairs on adjacent
     * limbs 2k, 2k + 1 of one accumulator, the pattern ptxas turns into one IMAD.WIDE.U32(.X)
     * per product on a register pair that needs no moves.
     *
     * mul_pairs: acc[0 .. 2K) = the K products, starting at x(S). No carry flag used.
     */
    template <int S, int K, class X>
    __device__ __forceinline__ static void mul_pairs(uint32_t * acc, X x, uint32_t y) {
#pragma unroll
        for (int k = 0; k < K; k++) {
            const uint64_t w = (uint64_t)x(S + 2 * k) * y; /* one IMAD.WIDE.U32 */
            acc[2 * k] = (uint32_t)w;
            acc[2 * k + 1] = (uint32_t)(w >> 32);
        }
    }
    /* mad_pairs: acc[0 .. 2K) += the K products as one carry chain, which starts afresh
     * (CIN false) or takes the flag (CIN true); its carry out of acc[2K − 1] is left in the
     * flag (COUT true) or known to be zero and dropped (COUT false). */
    template <int S, int K, bool CIN, bool COUT, class X>
    __device__ __forceinline__ static void mad_pairs(uint32_t * acc, X x, uint32_t y) {
        acc[0] = CIN ? madc_lo_cc(x(S), y, acc[0]) : mad_lo_cc(x(S), y, acc[0]);
#pragma unroll
        for (int k = 0; k < K; k++) {
            if (k > 0)
                acc[2 * k] = madc_lo_cc(x(S + 2 * k), y, acc[2 * k]);
            acc[2 * k + 1] = (COUT || k < K - 1) ? madc_hi_cc(x(S + 2 * k), y, acc[2 * k + 1])
                                                 : madc_hi(x(S + 2 * k), y, acc[2 * k + 1]);
        }
    }
    /* mad_pairs_shr: acc = (acc >> 64) + the N/2 products x(S)·y, ..., taking the flag at
     * acc[0] (the carry of the add before it); the chain's carry out is known to be zero.
     * acc[0] is zero and acc[1] was added elsewhere (mul_row). In place: acc[2k + 2] and
     * acc[2k + 3] are read before they are written. */
    template <int S, class X>
    __device__ __forceinline__ static void mad_pairs_shr(uint32_t * acc, X x, uint32_t y) {
#pragma unroll
        for (int k = 0; k < N / 2; k++) {
            const uint32_t lo = k < N / 2 - 1 ? acc[2 * k + 2] : 0u;
            const uint32_t hi = k < N / 2 - 1 ? acc[2 * k + 3] : 0u;
            acc[2 * k] = madc_lo_cc(x(S + 2 * k), y, lo);
            acc[2 * k + 1] =
                k < N / 2 - 1 ? madc_hi_cc(x(S + 2 * k), y, hi) : madc_hi(x(S + 2 * k), y, hi);
        }
    }

    /*
     * One row of mul_wide (the DESIGN block): t += a·b_i, then t += m·p with m = t[0]·PINV,
     * then t /= 2^32. On entry t = x + y/2^32 (y[0] = 0, the limb the previous row cleared);
     * the sum is x + 2^32·y, and the next row's t is y + x/2^32 (x[0] = 0), so the caller
     * swaps x and y each row. FIRST: t = 0 on entry, x and y are written, not read.
     */
    template <bool FIRST, class A>
    __device__ __forceinline__ static void mul_row(uint32_t x[N], uint32_t y[N], A al,
                                                   uint32_t bi) {
        auto pl = [](int j) { return P::mod(j); };
        if (FIRST) {
            mul_pairs<0, N / 2>(x, al, bi); /* limbs 0 .. N − 1 of t */
            mul_pairs<1, N / 2>(y, al, bi); /* limbs 1 .. N */
        } else {
            x[0] = add_cc(x[0], y[1]);   /* limb 0 of y >> 32 joins x; carry to limb 1 */
            mad_pairs_shr<1>(y, al, bi); /* y: limbs 1 .. N, the odd products added */
            mad_pairs<0, N / 2, false, true>(x, al, bi);
            y[N - 1] = addc(y[N - 1], 0); /* x's carry out, limb N */
        }
        const uint32_t m = x[0] * P::pinv();
        mad_pairs<1, N / 2, false, false>(y, pl, m);
        mad_pairs<0, N / 2, false, true>(x, pl, m); /* x[0] becomes 0 */
        y[N - 1] = addc(y[N - 1], 0);
    }

    /*
     * a·b·R^-1 mod p, fully reduced, bit for bit operator* (see the DESIGN block: the same rows
     * on the same integers, in two accumulators merged once at the end). N even (both fields).
     */
    __device__ __forceinline__ static mont_t mul_wide(const mont_t &a, const mont_t &b) {
        static_assert(N % 2 == 0, "mul_wide pairs limbs");
        uint32_t e[N], o[N];
        auto al = [&a](int j) { return a.l[j]; };
        mul_row<true>(e, o, al, b.l[0]);
#pragma unroll
        for (int i = 1; i < N; i += 2) {
            mul_row<false>(o, e, al, b.l[i]);
            if (i + 1 < N)
                mul_row<false>(e, o, al, b.l[i + 1]);
        }
        return merge(e, o);
    }

    /* t = e + (o >> 32) (o[0] = 0), then reduce_once: t < 2p < 2^(32N), no carry out. */
    __device__ __forceinline__ static mont_t merge(uint32_t e[N], const uint32_t o[N]) {
        e[0] = add_cc(e[0], o[1]);
#pragma unroll
        for (int j = 1; j < N - 1; j++)
            e[j] = addc_cc(e[j], o[j + 1]);
        e[N - 1] = addc(e[N - 1], 0);
        return reduce_once(e);
    }

    __device__ __forceinline__ mont_t sqr_wide() const {
        return mul_wide(*this, *this);
    }

    __device__ __forceinline__ mont_t &operator*=(const mont_t &b) {
        return *this = *this * b;
    }
    __device__ __forceinline__ mont_t &operator+=(const mont_t &b) {
        return *this = *this + b;
    }
    __device__ __forceinline__ mont_t &operator-=(const mont_t &b) {
        return *this = *this - b;
    }

    /*
     * this^(−1) = this^(p − 2) (Fermat; 0 for 0), in Montgomery form like this: left-to-right
     * square and multiply, about 32·N squarings and 16·N products. No table: an array here
     * would live in local memory, which the driver reserves for every resident thread of the
     * device (czk__gpu_msm_local_bytes); this is inv()'s fallback and the tests' reference,
     * so its speed does not matter. The exponent is fixed, so the time does not depend on the
     * value.
     */
    __device__ __forceinline__ mont_t inv_fermat() const {
        uint32_t e[N], borrow = 2;
#pragma unroll
        for (int i = 0; i < N; i++) {
            const uint32_t m = P::mod(i);
            e[i] = m - borrow;
            borrow = m < borrow ? 1u : 0u;
        }
        mont_t r = one();
#pragma unroll 1
        for (int bit = 32 * N - 1; bit >= 0; bit--) {
            uint32_t w = 0;
#pragma unroll
            for (int i = 0; i < N; i++)
                w = i == bit / 32 ? e[i] : w;
            r = r.sqr_wide();
            if ((w >> (bit % 32)) & 1)
                r = mul_wide(r, *this);
        }
        return r;
    }

    /*
     * this^(−1) in Montgomery form (0 for 0), by bingcd.cuh's binary GCD: a tenth of
     * inv_fermat's time on the H200, ~63 Fp products (Fp: 26 rounds of 30 steps on 64-bit
     * approximations and four 13-limb combinations), then one product with the field's correction
     * constant. The result is checked (one product: this·r = 1) and taken from inv_fermat if the
     * check fails, which the step bound says never happens; the check guards the implementation,
     * not the algorithm. Inlined although the batch additions call it once per batch
     * (msm.cuh): a call would put its saved registers in local memory, which the driver
     * reserves for every resident thread of the device (czk__gpu_msm_local_bytes).
     */
    __device__ __forceinline__ mont_t inv() const {
        uint32_t p[N], v[N];
#pragma unroll
        for (int i = 0; i < N; i++)
            p[i] = P::mod(i);
        bingcd_inverse<N, bingcd_rounds(P::BITS)>(v, l, p, P::PINV);
        mont_t x, c;
#pragma unroll
        for (int i = 0; i < N; i++) {
            x.l[i] = v[i];
            c.l[i] = P::inv_corr(i);
        }
        mont_t r = mul_wide(x, c);
        if (!is_zero() && !mul_wide(*this, r).equal(one()))
            r = inv_fermat();
        return r;
    }

    /* a·R^-1: Montgomery form to the plain integer (limbs of the canonical value). */
    __device__ __forceinline__ mont_t from_mont() const {
        uint32_t t[N + 1];
#pragma unroll
        for (int j = 0; j < N; j++)
            t[j] = l[j];
        t[N] = 0;
#pragma unroll
        for (int i = 0; i < N; i++)
            reduce_row(t);
        return reduce_once(t);
    }
};

typedef mont_t<fr_params> fr_t;
typedef mont_t<fp_params> fp_t;

} // namespace czk_cuda

#endif /* CZK_GPU_CUDA_FF_MONT_CUH */
