/*
 * Batch-affine G1 and G2 additions on eight lanes with AVX-512 IFMA (contract in
 * msm_internal.h).
 *
 * DESIGN
 * The scalar batch-affine addition (msm_impl.inc's batch_add) spends about two thirds of a
 * G1 MSM in 6-limb Montgomery multiplications, each a chain of dependent MULX/ADX steps
 * (about 50 ns). VPMADD52LUQ/VPMADD52HUQ multiply eight 52-bit lanes at once, so eight
 * independent additions of a batch run side by side: lane l of group g is addition 8g + l.
 * A 2048-addition G1 batch costs about 95 ns an addition against 350 ns (2-core Xeon,
 * Sapphire Rapids, loaded); G2 about 2.9x less time per MSM than the scalar code.
 *
 * Representation: an Fp element of the eight lanes is eight vectors of 52-bit limbs (416 bits;
 * vector i holds limb i of every lane), and the Montgomery radix is 2^416 (eight reduction
 * steps of 52 bits), not the 2^384 of czk_fp. An Fp2 element is two of them (c0, c1), and its
 * product is Karatsuba's three. Points given to czk__msm_ifma_add(_g2) are czk_g1_affine /
 * czk_g2_affine whose Fp parts hold x 2^416 mod p (the "IFMA domain"; czk__msm_ifma_points
 * (_g2) convert the MSM's points eight at a time, czk__msm_ifma_domain_to/from one Fp element
 * with a czk_fp_mul by a constant), fully reduced, so that equal coordinates have equal
 * limbs. Sums, differences and opposites need no conversion, and neither does a product with
 * a constant in czk_fp form (the endomorphisms' beta and n).
 *
 * Bounds: the multiplication (vmul) takes limbs below 2^52 and returns limbs below 2^52 for a
 * value below a b / 2^416 + p, below 2p since every operand here is below 2^385 (at most 12p:
 * the sum of an Fp2 doubling numerator's parts); the Fp2 product's parts are brought below 2p
 * by conditional subtractions. Differences add p, 2p or 4p first so
 * that they stay non-negative; both outputs (x3, y3) are brought below p by conditional
 * subtractions. Inside vmul each accumulator limb takes at most 4 products of 52 bits per
 * step over 8 steps plus carries, below 2^58.
 *
 * Per batch: x1 = x2 classifies an addition as a doubling (y1 = y2; lambda = 3 x1^2 / 2 y1) or
 * a sum at infinity (y1 = -y2), in scalar code on the canonical limbs. Each lane keeps its own
 * prefix product; the eight lane products are inverted together in scalar code (Montgomery's
 * trick over the lanes, one czk_fp_inv_var or czk_fp2_inv_var), then each lane unwinds its
 * chain, groups from the last to the first. The code is compiled for AVX512F and AVX512IFMA
 * by function attributes; callers check czk__msm_ifma_available() (CPUID and XCR0) first.
 */
#include "msm/msm_internal.h"

#include <string.h>

#include "field/fp.h"
#include "field/fp2.h"

#if defined(__x86_64__) && defined(__GNUC__)

#include <cpuid.h>
#include <immintrin.h>

#define IFMA_TARGET __attribute__((target("avx512f,avx512ifma")))

typedef __m512i V;

/* p in 52-bit limbs, 2p, -p^(-1) mod 2^52, and 2^416 mod p (one in the IFMA domain). */
static const uint64_t IFMA_P[8] = {0xeffffffffaaabULL, 0xfeb153ffffb9fULL, 0x6b0f6241eabffULL,
                                   0x12bf6730d2a0fULL, 0x764774b84f385ULL, 0x1ba7b6434bacdULL,
                                   0x1ea397fe69a4bULL, 0x000000001a011ULL};
static const uint64_t IFMA_2P[8] = {0xdffffffff5556ULL, 0xfd62a7ffff73fULL, 0xd61ec483d57ffULL,
                                    0x257ece61a541eULL, 0xec8ee9709e70aULL, 0x374f6c869759aULL,
                                    0x3d472ffcd3496ULL, 0x0000000034022ULL};
static const uint64_t IFMA_N0 = 0x3fffcfffcfffdULL;
static const uint64_t IFMA_ONE[8] = {0x6480ea8e9b9afULL, 0x65766c8fe444fULL, 0x8b540fea96f7dULL,
                                     0x3b2ee82efd422ULL, 0xa6723e5f0ade5ULL, 0xff6eb6fdd4230ULL,
                                     0xe06ef23c24a25ULL, 0x0000000014c8eULL};
/* 2^448 mod p and beta 2^448 mod p (beta as in msm.c's MSM_G1_BETA, a plain integer here):
 * vmul by them takes x 2^384 (czk_fp) to x 2^416 and to beta x 2^416. */
static const uint64_t IFMA_K448[8] = {0x7fde37dba9366ULL, 0x4e27525bc342bULL, 0x1f5b1e9778489ULL,
                                      0xb872b2b91b9dcULL, 0xb206f497dfcafULL, 0x4137cc89a9b0bULL,
                                      0xd9d20d7e39959ULL, 0x000000000411cULL};
static const uint64_t IFMA_KBETA[8] = {0x75f1fdc3b0a04ULL, 0x38f87e0cb6992ULL, 0xe7da216924697ULL,
                                       0xdb587df89511fULL, 0x4ede26cce5757ULL, 0x8b4766f8145f5ULL,
                                       0xc09330de179e2ULL, 0x000000000e59dULL};
/* 4p; n 2^448 mod p for psi^2's n (msm.c's MSM_G2_PSI2_X as a plain integer). */
static const uint64_t IFMA_4P[8] = {0xbfffffffeaaacULL, 0xfac54ffffee7fULL, 0xac3d8907aafffULL,
                                    0x4afd9cc34a83dULL, 0xd91dd2e13ce14ULL, 0x6e9ed90d2eb35ULL,
                                    0x7a8e5ff9a692cULL, 0x0000000068044ULL};
static const uint64_t IFMA_KPSI2[8] = {0xfa2fca60a0d41ULL, 0x7791839785de1ULL, 0x63da22414e0dfULL,
                                       0x7ef4367f21f13ULL, 0x7562595389f7dULL, 0x4f2882c18d9ccULL,
                                       0x843e59a21870fULL, 0x0000000007956ULL};
#define M52 0xfffffffffffffULL

/* czk_fp forms (R = 2^384) of 2^64, 2^32 and 2^-32 (python3: pow(2, e + 384, p)). */
static const czk_fp IFMA_K64 = {{0x42b7fde37dba9366ULL, 0x7784894e27525bc3ULL,
                                 0xb2b91b9dc1f5b1e9ULL, 0x206f497dfcafb872ULL,
                                 0x594137cc89a9b0bbULL, 0x0411cd9d20d7e399ULL}};
static const czk_fp IFMA_C32 = {{0x44f6480ea8e9b9afULL, 0xa96f7d65766c8fe4ULL,
                                 0xe82efd4228b540feULL, 0x6723e5f0ade53b2eULL,
                                 0x25ff6eb6fdd4230aULL, 0x14c8ee06ef23c24aULL}};
static const czk_fp IFMA_CM32 = {{0, 0, 0, 0, 0, 0x0000000100000000ULL}};

int czk__msm_ifma_available(void) {
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid(1, eax, ebx, ecx, edx);
    if (!((ecx >> 27) & 1)) /* OSXSAVE */
        return 0;
    /* XCR0: SSE, AVX, opmask, ZMM0-15 upper halves and ZMM16-31 enabled by the OS. */
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 0xe6) != 0xe6)
        return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return ((ebx >> 16) & 1) && ((ebx >> 21) & 1); /* AVX512F, AVX512IFMA */
}

/* r = a b / 2^416 mod p, below a b / 2^416 + p (see DESIGN), eight lanes. */
IFMA_TARGET static inline void vmul(V r[8], const V a[8], const V b[8]) {
    const V zero = _mm512_setzero_si512();
    const V n0 = _mm512_set1_epi64((long long)IFMA_N0);
    V t[9];
    for (int j = 0; j < 9; j++)
        t[j] = zero;
#pragma GCC unroll 8
    for (int i = 0; i < 8; i++) {
        const V bi = b[i];
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            t[j] = _mm512_madd52lo_epu64(t[j], a[j], bi);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], a[j], bi);
        }
        const V m = _mm512_madd52lo_epu64(zero, t[0], n0);
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++) {
            const V pj = _mm512_set1_epi64((long long)IFMA_P[j]);
            t[j] = _mm512_madd52lo_epu64(t[j], m, pj);
            t[j + 1] = _mm512_madd52hi_epu64(t[j + 1], m, pj);
        }
        /* t[0] is now 0 mod 2^52: carry its high bits and shift down one limb. */
        t[1] = _mm512_add_epi64(t[1], _mm512_srli_epi64(t[0], 52));
#pragma GCC unroll 8
        for (int j = 0; j < 8; j++)
            t[j] = t[j + 1];
        t[8] = zero;
    }
    const V mask = _mm512_set1_epi64((long long)M52);
#pragma GCC unroll 7
    for (int j = 0; j < 7; j++) {
        t[j + 1] = _mm512_add_epi64(t[j + 1], _mm512_srli_epi64(t[j], 52));
        r[j] = _mm512_and_si512(t[j], mask);
    }
    r[7] = t[7];
}

/* Signed limbs to 52-bit limbs (the value must be non-negative and below 2^416). */
IFMA_TARGET static inline void vnorm(V r[8], V s[8]) {
    const V mask = _mm512_set1_epi64((long long)M52);
#pragma GCC unroll 7
    for (int j = 0; j < 7; j++) {
        s[j + 1] = _mm512_add_epi64(s[j + 1], _mm512_srai_epi64(s[j], 52));
        r[j] = _mm512_and_si512(s[j], mask);
    }
    r[7] = s[7];
}

/* r = a - b + k (k a constant multiple of p, at least b). */
IFMA_TARGET static inline void vsub(V r[8], const V a[8], const V b[8], const uint64_t k[8]) {
    V s[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        s[j] = _mm512_add_epi64(_mm512_sub_epi64(a[j], b[j]), _mm512_set1_epi64((long long)k[j]));
    vnorm(r, s);
}

/* r = a + b. */
IFMA_TARGET static inline void vadd(V r[8], const V a[8], const V b[8]) {
    V s[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        s[j] = _mm512_add_epi64(a[j], b[j]);
    vnorm(r, s);
}

/* r = a - k where a >= k, else a (lane by lane). */
IFMA_TARGET static inline void vcsub(V r[8], const V a[8], const uint64_t k[8]) {
    V s[8];
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        s[j] = _mm512_sub_epi64(a[j], _mm512_set1_epi64((long long)k[j]));
    vnorm(s, s);
    __mmask8 neg = _mm512_cmplt_epi64_mask(s[7], _mm512_setzero_si512());
#pragma GCC unroll 8
    for (int j = 0; j < 8; j++)
        r[j] = _mm512_mask_blend_epi64(neg, s[j], a[j]);
}

/*
 * Six 64-bit words at base + off[l] + byte (lane l) to eight 52-bit limbs. The offsets are
 * address differences taken as integers (the lanes' points may lie in different arrays); the
 * gather adds them modulo 2^64.
 */
IFMA_TARGET static inline void vload(V r[8], const char *base, V off, size_t byte) {
    V w[6];
    const char *b = base + byte;
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++)
        w[k] = _mm512_i64gather_epi64(off, (const void *)(b + 8 * k), 1);
    const V mask = _mm512_set1_epi64((long long)M52);
    r[0] = _mm512_and_si512(w[0], mask);
    r[1] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[0], 52), _mm512_slli_epi64(w[1], 12)), mask);
    r[2] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[1], 40), _mm512_slli_epi64(w[2], 24)), mask);
    r[3] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[2], 28), _mm512_slli_epi64(w[3], 36)), mask);
    r[4] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[3], 16), _mm512_slli_epi64(w[4], 48)), mask);
    r[5] = _mm512_and_si512(_mm512_srli_epi64(w[4], 4), mask);
    r[6] = _mm512_and_si512(
        _mm512_or_si512(_mm512_srli_epi64(w[4], 56), _mm512_slli_epi64(w[5], 8)), mask);
    r[7] = _mm512_srli_epi64(w[5], 44);
}

/* The inverse of vload for a value below 2^384, to the lanes of `keep`. */
IFMA_TARGET static inline void vstore(char *base, V off, size_t byte, __mmask8 keep, const V a[8]) {
    V w[6];
    char *b = base + byte;
    w[0] = _mm512_or_si512(a[0], _mm512_slli_epi64(a[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(a[1], 12), _mm512_slli_epi64(a[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(a[2], 24), _mm512_slli_epi64(a[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(a[3], 36), _mm512_slli_epi64(a[4], 16));
    w[4] = _mm512_or_si512(_mm512_or_si512(_mm512_srli_epi64(a[4], 48), _mm512_slli_epi64(a[5], 4)),
                           _mm512_slli_epi64(a[6], 56));
    w[5] = _mm512_or_si512(_mm512_srli_epi64(a[6], 8), _mm512_slli_epi64(a[7], 44));
#pragma GCC unroll 6
    for (int k = 0; k < 6; k++)
        _mm512_mask_i64scatter_epi64((void *)(b + 8 * k), keep, off, w[k], 1);
}

/* Lane l of the eight-lane element a, as six 64-bit words (a below 2^384). */
IFMA_TARGET static void vextract(czk_fp *r, const V a[8], unsigned l) {
    uint64_t x[8];
    for (int j = 0; j < 8; j++) {
        uint64_t lanes[8];
        _mm512_storeu_si512((void *)lanes, a[j]);
        x[j] = lanes[l];
    }
    r->l[0] = x[0] | x[1] << 52;
    r->l[1] = x[1] >> 12 | x[2] << 40;
    r->l[2] = x[2] >> 24 | x[3] << 28;
    r->l[3] = x[3] >> 36 | x[4] << 16;
    r->l[4] = x[4] >> 48 | x[5] << 4 | x[6] << 56;
    r->l[5] = x[6] >> 8 | x[7] << 44;
}

IFMA_TARGET static void vinsert(V a[8], const czk_fp *v[8]) {
    for (int j = 0; j < 8; j++) {
        uint64_t lanes[8];
        for (int l = 0; l < 8; l++) {
            const uint64_t *x = v[l]->l;
            uint64_t w;
            switch (j) {
            case 0:
                w = x[0];
                break;
            case 1:
                w = x[0] >> 52 | x[1] << 12;
                break;
            case 2:
                w = x[1] >> 40 | x[2] << 24;
                break;
            case 3:
                w = x[2] >> 28 | x[3] << 36;
                break;
            case 4:
                w = x[3] >> 16 | x[4] << 48;
                break;
            case 5:
                w = x[4] >> 4;
                break;
            case 6:
                w = x[4] >> 56 | x[5] << 8;
                break;
            default:
                w = x[5] >> 44;
                break;
            }
            lanes[l] = w & M52;
        }
        a[j] = _mm512_loadu_si512((const void *)lanes);
    }
}

IFMA_TARGET static inline void vconst(V r[8], const uint64_t k[8]) {
    for (int j = 0; j < 8; j++)
        r[j] = _mm512_set1_epi64((long long)k[j]);
}

/* The batch addition and point conversion, for G1 (Fp) and G2 (Fp2 = two Fp lanes' elements). */
#define K 1
#define FE czk_fp
#define AFF czk_g1_affine
#define FE_MUL czk_fp_mul
#define FE_INV_VAR czk_fp_inv_var
#define ENDO_K IFMA_KBETA
#define NAME(n) czk__msm_ifma_##n
#define LOCAL(n) ifma_g1_##n
#include "msm/msm_ifma_impl.inc"

#define K 2
#define FE czk_fp2
#define AFF czk_g2_affine
#define FE_MUL czk_fp2_mul
#define FE_INV_VAR czk_fp2_inv_var
#define ENDO_K IFMA_KPSI2
#define NAME(n) czk__msm_ifma_##n##_g2
#define LOCAL(n) ifma_g2_##n
#include "msm/msm_ifma_impl.inc"

void czk__msm_ifma_domain_to(czk_fp *r, const czk_fp *a) {
    czk_fp_mul(r, a, &IFMA_C32);
}

void czk__msm_ifma_domain_from(czk_fp *r, const czk_fp *a) {
    czk_fp_mul(r, a, &IFMA_CM32);
}

#else /* no AVX-512 IFMA code on this target */

int czk__msm_ifma_available(void) {
    return 0;
}

size_t czk__msm_ifma_add(const czk_g1_affine *const *pa, const czk_g1_affine *const *pb,
                         czk_g1_affine *const *po, size_t np, uint8_t *kind, void *vbuf) {
    (void)pa, (void)pb, (void)po, (void)np, (void)kind, (void)vbuf;
    return 0;
}

void czk__msm_ifma_points(czk_g1_affine *pv, czk_fp *ex, const czk_g1_affine *pts,
                          const uint32_t *idx, size_t n) {
    (void)pv, (void)ex, (void)pts, (void)idx, (void)n;
}

size_t czk__msm_ifma_add_g2(const czk_g2_affine *const *pa, const czk_g2_affine *const *pb,
                            czk_g2_affine *const *po, size_t np, uint8_t *kind, void *vbuf) {
    (void)pa, (void)pb, (void)po, (void)np, (void)kind, (void)vbuf;
    return 0;
}

void czk__msm_ifma_points_g2(czk_g2_affine *pv, czk_fp2 *ex, const czk_g2_affine *pts,
                             const uint32_t *idx, size_t n) {
    (void)pv, (void)ex, (void)pts, (void)idx, (void)n;
}

void czk__msm_ifma_domain_to(czk_fp *r, const czk_fp *a) {
    *r = *a;
}

void czk__msm_ifma_domain_from(czk_fp *r, const czk_fp *a) {
    *r = *a;
}

#endif

void czk__msm_ifma_g1_to(czk_g1_affine *a) {
    czk__msm_ifma_domain_to(&a->x, &a->x);
    czk__msm_ifma_domain_to(&a->y, &a->y);
}

void czk__msm_ifma_g1_from(czk_g1_affine *a) {
    czk__msm_ifma_domain_from(&a->x, &a->x);
    czk__msm_ifma_domain_from(&a->y, &a->y);
}

void czk__msm_ifma_g2_to(czk_g2_affine *a) {
    czk__msm_ifma_domain_to(&a->x.c0, &a->x.c0);
    czk__msm_ifma_domain_to(&a->x.c1, &a->x.c1);
    czk__msm_ifma_domain_to(&a->y.c0, &a->y.c0);
    czk__msm_ifma_domain_to(&a->y.c1, &a->y.c1);
}

void czk__msm_ifma_g2_from(czk_g2_affine *a) {
    czk__msm_ifma_domain_from(&a->x.c0, &a->x.c0);
    czk__msm_ifma_domain_from(&a->x.c1, &a->x.c1);
    czk__msm_ifma_domain_from(&a->y.c0, &a->y.c0);
    czk__msm_ifma_domain_from(&a->y.c1, &a->y.c1);
}
