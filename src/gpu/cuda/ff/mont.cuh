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
 * The carry flag lives between separate asm statements; they are volatile, so the compiler
 * keeps their order, and nothing else in between writes the flag.
 *
 * Everything here is branch-free in the values except where a name ends in _var.
 */
#ifndef CZK_GPU_CUDA_FF_MONT_CUH
#define CZK_GPU_CUDA_FF_MONT_CUH

#include <cstdint>

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

/* r = 0x73eda753...ffffffff00000001. Limbs fold to immediates once loops are unrolled. */
struct fr_params {
    static constexpr int N = 8;
    static constexpr uint32_t PINV = 0xffffffffu;  /* -r^-1 mod 2^32 */
    static constexpr bool LOW_1_MINUS_2_32 = true; /* r mod 2^64 = 2^64 − 2^32 + 1 */
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
};

/* p = 0x1a0111ea...b9feffffffffaaab. */
struct fp_params {
    static constexpr int N = 12;
    static constexpr uint32_t PINV = 0xfffcfffdu; /* -p^-1 mod 2^32 */
    static constexpr bool LOW_1_MINUS_2_32 = false;
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
     * t[0..N] += x·y over the limbs x(S), x(S + 2), ... (S = 0: even limbs, 1: odd ones).
     * Each product's low and high halves go to adjacent limbs of one carry chain, the pattern
     * ptxas turns into one 64-bit multiply-add with carry (IMAD.WIDE.U32.X on sm_90) per
     * product, where operator*'s separate low and high chains cost a multiply and an add
     * each. The caller keeps t + x·y below 2^(32(N+1)): the odd chain, which ends at t[N],
     * then carries out of nothing, and the even one's carry fits in t[N].
     */
    template <int S, class X>
    __device__ __forceinline__ static void mac_pairs(uint32_t t[N + 1], X x, uint32_t y) {
        t[S] = mad_lo_cc(x(S), y, t[S]);
        t[S + 1] = madc_hi_cc(x(S), y, t[S + 1]);
#pragma unroll
        for (int j = S + 2; j < N - 1 + S; j += 2) {
            t[j] = madc_lo_cc(x(j), y, t[j]);
            t[j + 1] = madc_hi_cc(x(j), y, t[j + 1]);
        }
        if constexpr (S == 0)
            t[N] = addc(t[N], 0);
    }

    /*
     * a·b·R^-1 mod p, bit for bit operator*: the same CIOS rows (t += a·b_i, then
     * t += m·p with m = t[0]·PINV, then t >>= 32) on the same integers, so the same m, the same
     * t < 2p after every row and the same fully reduced result; only the order of the partial
     * products differs (even limbs, then odd ones, each as 64-bit pairs; see mac_pairs). Every
     * sum stays below 2p·2^32 < 2^(32(N+1)), as in operator*. N even (both fields).
     */
    __device__ __forceinline__ static mont_t mul_wide(const mont_t &a, const mont_t &b) {
        static_assert(N % 2 == 0, "mul_wide pairs limbs");
        uint32_t t[N + 1];
#pragma unroll
        for (int j = 0; j <= N; j++)
            t[j] = 0;
        auto al = [&a](int j) { return a.l[j]; };
        auto pl = [](int j) { return P::mod(j); };
#pragma unroll
        for (int i = 0; i < N; i++) {
            mac_pairs<0>(t, al, b.l[i]);
            mac_pairs<1>(t, al, b.l[i]);
            uint32_t m = t[0] * P::PINV;
            mac_pairs<0>(t, pl, m);
            mac_pairs<1>(t, pl, m);
#pragma unroll
            for (int j = 0; j < N; j++)
                t[j] = t[j + 1];
            t[N] = 0;
        }
        return reduce_once(t);
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
