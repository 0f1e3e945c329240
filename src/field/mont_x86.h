/*
 * Private to src/field: Montgomery multiplication with the x86-64 BMI2 (MULX) and ADX
 * (ADCX/ADOX) instructions, for Fp (6 limbs) and Fr (4 limbs).
 *
 * These instructions are beyond the x86-64 baseline the library is compiled for, so callers
 * must check czk__cpu_has_mulx_adx() first (fp.c and fr.c do it once, at load time). The
 * inline assembly needs no compiler target flags: the assembler accepts MULX/ADCX/ADOX
 * regardless of -march.
 *
 * The algorithm is the same no-carry CIOS as czk__mont_mul in mont_impl.h. Each outer step
 * adds a·b[i] to the accumulator t with two independent carry chains (MULX leaves the flags
 * alone; ADCX carries through CF only and ADOX through OF only, so the low and high halves of
 * the n products go into two interleaved chains), then adds m·p for m = t0·n0 the same way.
 * That makes t0 zero, and rather than shifting the words down, the next step renames them:
 * the register that held t0 becomes the new top word. The text below is that schedule fully
 * unrolled; the t registers rotate by one per step, which is why the result comes out of
 * them in rotated order.
 *
 * Carries that the chains drop are provably zero: the top word t[n] is zero at the start of
 * each step and a high half is at most 2^64 - 2, so the ADOX into t[n] while adding a·b[i]
 * cannot overflow; and since p[n-1] < 2^63 - 1 the whole value t + m·p fits n + 1 words
 * (see mont_impl.h; this holds for a < 2p as well), so neither can the one while adding m·p.
 * One ADC then folds the last CF into t[n].
 *
 * Operands: pointers only, in registers, with the word offsets written into the template and
 * a "memory" clobber standing for the reads. Passing each limb as an "m" operand was as fast
 * at -O3 but left too few registers at -O0 with a frame pointer (the sanitizer build): the
 * routine already needs 13 of the 14 allocatable registers. The modulus and n0 come as one
 * array of n + 1 words (modulus, then n0) so that they cost a single register.
 *
 * Dependent-multiplication loop, 2.6 GHz Xeon, GCC 12 -O3: Fp 32 ns against 45 ns for the
 * portable code, Fr 19.4 ns against 21.5 ns.
 */
#ifndef CZK_FIELD_MONT_X86_H
#define CZK_FIELD_MONT_X86_H

#include "field/mont_impl.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define CZK__HAVE_MULX_ADX 1

#include <cpuid.h>

/* 1 when the CPU has both BMI2 (MULX) and ADX (ADCX/ADOX): CPUID leaf 7, EBX bits 8 and 19. */
static inline int czk__cpu_has_mulx_adx(void) {
    unsigned eax, ebx, ecx, edx;
    if (__get_cpuid_max(0, NULL) < 7)
        return 0;
    __cpuid_count(7, 0, eax, ebx, ecx, edx);
    return ((ebx >> 8) & 1) && ((ebx >> 19) & 1);
}

/*
 * r = a·b·2^(-384) mod p, fully reduced, for a, b < p, or for a, b < 2p when 8p < 2^384 (the
 * BLS12-381 base field; see czk_fp_mul). pn = {p[0..5], n0}.
 */
CZK__INLINE void czk__mont_mul_adx6(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                    const uint64_t *pn) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi;
    __asm__("xorl %k[t0], %k[t0]\n\t"
            "xorl %k[t1], %k[t1]\n\t"
            "xorl %k[t2], %k[t2]\n\t"
            "xorl %k[t3], %k[t3]\n\t"
            "xorl %k[t4], %k[t4]\n\t"
            "xorl %k[t5], %k[t5]\n\t"
            "xorl %k[t6], %k[t6]\n\t"
            /* t += a·b[0]: products low halves on the CF chain, high halves on OF. */
            "movq 0(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 32(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 40(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "adcq $0, %[t6]\n\t"
            /* t = (t + m·p)/2^64 with m = t0·n0; the register of t0 ends up 0 and becomes the new
               top word. */
            "movq %[t0], %%rdx\n\t"
            "imulq 48(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 32(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 40(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "adcq $0, %[t6]\n\t"
            /* t += a·b[1] */
            "movq 8(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 32(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 40(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "adcq $0, %[t0]\n\t"
            /* t = (t + m·p)/2^64 */
            "movq %[t1], %%rdx\n\t"
            "imulq 48(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 32(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 40(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "adcq $0, %[t0]\n\t"
            /* t += a·b[2] */
            "movq 16(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 32(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 40(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "adcq $0, %[t1]\n\t"
            /* t = (t + m·p)/2^64 */
            "movq %[t2], %%rdx\n\t"
            "imulq 48(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 32(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 40(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "adcq $0, %[t1]\n\t"
            /* t += a·b[3] */
            "movq 24(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 32(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 40(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "adcq $0, %[t2]\n\t"
            /* t = (t + m·p)/2^64 */
            "movq %[t3], %%rdx\n\t"
            "imulq 48(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 32(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 40(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "adcq $0, %[t2]\n\t"
            /* t += a·b[4] */
            "movq 32(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 32(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 40(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "adcq $0, %[t3]\n\t"
            /* t = (t + m·p)/2^64 */
            "movq %[t4], %%rdx\n\t"
            "imulq 48(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t5]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 32(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 40(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "adcq $0, %[t3]\n\t"
            /* t += a·b[5] */
            "movq 40(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 32(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 40(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "adcq $0, %[t4]\n\t"
            /* t = (t + m·p)/2^64 */
            "movq %[t5], %%rdx\n\t"
            "imulq 48(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t5]\n\t"
            "adoxq %[hi], %[t6]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t6]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 32(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 40(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "adcq $0, %[t4]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [t5] "=&r"(t5), [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), [p] "r"(pn)
            : "rdx", "cc", "memory");
    uint64_t t[6] = {t6, t0, t1, t2, t3, t4};
    czk__mont_reduce_once(r, t, pn, 6);
}

/* r = a·b·2^(-256) mod p for a, b < p; pn = {p[0..3], n0}. */
CZK__INLINE void czk__mont_mul_adx4(uint64_t *r, const uint64_t *a, const uint64_t *b,
                                    const uint64_t *pn) {
    uint64_t t0, t1, t2, t3, t4, lo, hi;
    __asm__("xorl %k[t0], %k[t0]\n\t"
            "xorl %k[t1], %k[t1]\n\t"
            "xorl %k[t2], %k[t2]\n\t"
            "xorl %k[t3], %k[t3]\n\t"
            "xorl %k[t4], %k[t4]\n\t"
            /* t += a·b[0]: products low halves on the CF chain, high halves on OF. */
            "movq 0(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "adcq $0, %[t4]\n\t"
            /* t = (t + m·p)/2^64 with m = t0·n0; the register of t0 ends up 0 and becomes the new
               top word. */
            "movq %[t0], %%rdx\n\t"
            "imulq 32(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "adcq $0, %[t4]\n\t"
            /* t += a·b[1] */
            "movq 8(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "adcq $0, %[t0]\n\t"
            /* t = (t + m·p)/2^64 */
            "movq %[t1], %%rdx\n\t"
            "imulq 32(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "adcq $0, %[t0]\n\t"
            /* t += a·b[2] */
            "movq 16(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "adcq $0, %[t1]\n\t"
            /* t = (t + m·p)/2^64 */
            "movq %[t2], %%rdx\n\t"
            "imulq 32(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t2]\n\t"
            "adoxq %[hi], %[t3]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "adcq $0, %[t1]\n\t"
            /* t += a·b[3] */
            "movq 24(%[b]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 8(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 16(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 24(%[a]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "adcq $0, %[t2]\n\t"
            /* t = (t + m·p)/2^64 */
            "movq %[t3], %%rdx\n\t"
            "imulq 32(%[p]), %%rdx\n\t"
            "xorl %k[lo], %k[lo]\n\t"
            "mulxq 0(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t3]\n\t"
            "adoxq %[hi], %[t4]\n\t"
            "mulxq 8(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t4]\n\t"
            "adoxq %[hi], %[t0]\n\t"
            "mulxq 16(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t0]\n\t"
            "adoxq %[hi], %[t1]\n\t"
            "mulxq 24(%[p]), %[lo], %[hi]\n\t"
            "adcxq %[lo], %[t1]\n\t"
            "adoxq %[hi], %[t2]\n\t"
            "adcq $0, %[t2]\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4),
              [lo] "=&r"(lo), [hi] "=&r"(hi)
            : [a] "r"(a), [b] "r"(b), [p] "r"(pn)
            : "rdx", "cc", "memory");
    uint64_t t[4] = {t4, t0, t1, t2};
    czk__mont_reduce_once(r, t, pn, 4);
}

#endif /* __x86_64__ && __GNUC__ */

#endif /* CZK_FIELD_MONT_X86_H */
