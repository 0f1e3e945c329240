/*
 * Multi-scalar multiplication on the CPU: sum_i [k_i] P_i over G1 and G2, and "batch
 * addition", the sum of the points selected by a bitmap.
 *
 * Groth16 witnesses are mostly 0 and 1 (doc/DESIGN.md §1), so czk_msm_g1/g2 first split the
 * scalars in one pass: zero scalars (and points at infinity) are skipped, scalars equal to one
 * go to batch addition, and only the rest go through Pippenger's bucket method. The Pippenger
 * part uses the GLV/GLS endomorphism (128-bit half scalars), signed (Booth) window digits and
 * bucket sums formed with batch-affine additions (Montgomery's trick), eight at a time with
 * AVX-512 IFMA where the CPU has it; msm.c says how.
 *
 * Conventions for every function below: inputs are borrowed for the call only; points must be
 * in the prime-order subgroup (the endomorphism acts as a scalar multiplication only there) or
 * at infinity, which affine points represent as (0, 0); `pool` may be NULL (the call then runs
 * on the calling thread) and must not be running another loop; `err` may be NULL. Scratch is
 * allocated internally through czk_malloc (counted), and freed before return. The result does
 * not depend on the pool size (as a point; its Jacobian coordinates may differ). Variable time:
 * for public data only. Thread-safe (no globals).
 */
#ifndef CZK_MSM_MSM_H
#define CZK_MSM_MSM_H

#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * out = sum_{i < n} [scalars[i]] points[i]. scalars are Montgomery-form czk_fr; points may be
 * at infinity. n = 0 gives infinity. Zero scalars are skipped; scalars equal to one are summed
 * by batch addition; the rest go through Pippenger with signed window digits, the window size
 * chosen from n and the pool size. Variable time.
 * Returns CZK_OK, or CZK_ENOMEM (out is then unspecified).
 */
int czk_msm_g1(czk_g1_jacobian *out, const czk_g1_affine *points, const czk_fr *scalars, size_t n,
               czk_pool *pool, czk_err *err);
int czk_msm_g2(czk_g2_jacobian *out, const czk_g2_affine *points, const czk_fr *scalars, size_t n,
               czk_pool *pool, czk_err *err);

/*
 * Batch addition: out = sum of points[i] over the i < n whose bit i of `bitmap` is set (bit i
 * is bit i % 64 of word i / 64; bits at n and above are ignored). The bitmap has
 * ceil(n / 64) words. Points may be at infinity. Variable time.
 * Returns CZK_OK, or CZK_ENOMEM.
 */
int czk_msm_g1_sum(czk_g1_jacobian *out, const czk_g1_affine *points, const uint64_t *bitmap,
                   size_t n, czk_pool *pool, czk_err *err);
int czk_msm_g2_sum(czk_g2_jacobian *out, const czk_g2_affine *points, const uint64_t *bitmap,
                   size_t n, czk_pool *pool, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_MSM_MSM_H */
