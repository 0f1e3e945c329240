/*
 * Private to src/poly: the building blocks of the public transforms, for quotient.c, which
 * chains them so that no bit-reversal permutation is needed between an inverse and a forward
 * transform (a DIF pass leaves bit-reversed order, a DIT pass takes it).
 *
 * None of these scale by 1/n; callers fold it into a scaling pass they need anyway.
 */
#ifndef CZK_POLY_NTT_INTERNAL_H
#define CZK_POLY_NTT_INTERNAL_H

#include "field/fr.h"
#include "poly/ntt.h"
#include "util/pool.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Default tuning; the measurements are in ntt.c's DESIGN note. Blocks of 2^14 elements
 * (512 KiB, plus a 256 KiB twiddle table: within a 1 MiB L2). The full twiddle table
 * (16·n bytes, 16 MiB at 2^20) up to 2^20, the two-level table above.
 */
#define CZK__NTT_BLOCK_LG 14
#define CZK__NTT_FULL_TABLE_MAX_LG 20

/*
 * czk_ntt_domain_create with the tuning knobs exposed, so that tests can run every code path
 * on small domains and benchmarks can compare settings: blocks of 2^min(lg, block_lg)
 * elements, and the full twiddle table only when lg <= full_table_max_lg.
 */
int czk__ntt_domain_create_tuned(czk_ntt_domain **out, unsigned lg_n, czk_ntt_root root,
                                 unsigned block_lg, unsigned full_table_max_lg, czk_err *err);

/* Direction: forward uses ω^j as twiddles, inverse ω^(−j) (no 1/n). */
typedef enum czk__ntt_dir { CZK__NTT_FWD = 0, CZK__NTT_INV = 1 } czk__ntt_dir;

/* Gentleman–Sande (decimation in frequency): natural order in, bit-reversed order out. */
void czk__ntt_dif(const czk_ntt_domain *d, czk_fr *a, czk__ntt_dir dir, czk_pool *pool);

/* Cooley–Tukey (decimation in time): bit-reversed order in, natural order out. */
void czk__ntt_dit(const czk_ntt_domain *d, czk_fr *a, czk__ntt_dir dir, czk_pool *pool);

/* Swaps a[p] and a[rev(p)] for every p (rev over lg bits); then multiplies all by *c unless
 * c is NULL. */
void czk__ntt_bitrev(const czk_ntt_domain *d, czk_fr *a, const czk_fr *c, czk_pool *pool);

/* Index order for czk__ntt_scale_powers. */
typedef enum czk__ntt_order { CZK__NTT_NATURAL = 0, CZK__NTT_BITREV = 1 } czk__ntt_order;

/*
 * For k < nv and p < n: v[k][p] *= c·g^e(p), where e(p) = p (NATURAL) or rev(p) (BITREV, so
 * that coefficient i stored at position rev(i) is multiplied by c·g^i). One power is computed
 * per position and applied to all nv vectors.
 */
void czk__ntt_scale_powers(const czk_ntt_domain *d, czk_fr *const *v, unsigned nv, const czk_fr *g,
                           const czk_fr *c, czk__ntt_order order, czk_pool *pool);

/* 1/n in Fr. */
const czk_fr *czk__ntt_domain_n_inv(const czk_ntt_domain *d);

#ifdef __cplusplus
}
#endif

#endif /* CZK_POLY_NTT_INTERNAL_H */
