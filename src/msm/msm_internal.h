/*
 * Internal MSM entry points for tests and benchmarks: the same code as czk_msm_g1/g2 with each
 * technique switchable, so that tests can force small windows, tiny chunks and every code path,
 * and bench_msm can measure what each technique buys. Not part of the API.
 */
#ifndef CZK_MSM_MSM_INTERNAL_H
#define CZK_MSM_MSM_INTERNAL_H

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

typedef struct czk__msm_cfg {
    unsigned window; /* widest window c, 1..24: ceil(bits / c) windows of nearly equal width
                        (bits = 128 with GLV, else 255); 0 lets the cost model choose */
    unsigned splits; /* bucket ranges per window (tasks = windows x splits); 0 = choose */
    size_t chunk;    /* points per chunk (bounds scratch memory); 0 = the default */
    int glv;         /* 1: split scalars with the endomorphism into two 128-bit halves */
    int booth;       /* 1: signed (Booth) digits, half the buckets; 0: unsigned digits */
    int affine;      /* 1: batch-affine bucket additions and reduction; 0: XYZZ additions */
    int split01;     /* 1: scalars equal to one go to batch addition; 0: to Pippenger */
    int ifma;        /* 1: G1 batch-affine additions on AVX-512 IFMA where the CPU has it */
} czk__msm_cfg;

/* The configuration czk_msm_g1/g2 use: everything on, window and splits chosen. */
void czk__msm_cfg_default(czk__msm_cfg *cfg);

/* As czk_msm_g1/g2 with `cfg` (fields out of range return CZK_EINVAL). */
int czk__msm_g1_cfg(czk_g1_jacobian *out, const czk_g1_affine *points, const czk_fr *scalars,
                    size_t n, const czk__msm_cfg *cfg, czk_pool *pool, czk_err *err);
int czk__msm_g2_cfg(czk_g2_jacobian *out, const czk_g2_affine *points, const czk_fr *scalars,
                    size_t n, const czk__msm_cfg *cfg, czk_pool *pool, czk_err *err);

/*
 * The GLV split of a canonical scalar k < r (4 little-endian limbs): k = k1 x^2 + k0 with
 * 0 <= k0 < x^2, where x is the BLS parameter; out = {k0 lo, k0 hi, k1 lo, k1 hi}.
 */
void czk__msm_glv_split(uint64_t out[4], const uint64_t k[4]);

/* The widest window the cost model picks for `nrest` non-0/1 scalars on `ways` ways. */
unsigned czk__msm_pick_window(size_t nrest, unsigned ways, const czk__msm_cfg *cfg);

/*
 * G1 batch-affine additions on eight lanes with AVX-512 IFMA (msm_ifma.c). Coordinates are in
 * the "IFMA domain" (x 2^416 mod p, fully reduced; domain_to/from convert a czk_fp), points
 * are not infinity. *po[p] = *pa[p] + *pb[p] for p < np, as msm_impl.inc's batch_add: equal
 * points are doubled and opposite ones give (0, 0); po[p] may be pa[p] or pb[p], the
 * outputs are distinct, and the output of addition q may be an input of an addition p > q
 * (which reads the value from before the call: groups of eight complete from the last).
 * kind: np bytes of scratch; vbuf: CZK__MSM_IFMA_BUF(np) bytes.
 * Returns the number of sums at infinity. Call only where czk__msm_ifma_available() is 1.
 */
#define CZK__MSM_IFMA_BUF(np) ((((np) + 7) / 8) * 1024 + 64)
#define CZK__MSM_IFMA_BUF_G2(np) ((((np) + 7) / 8) * 2048 + 64)
int czk__msm_ifma_available(void);
size_t czk__msm_ifma_add(const czk_g1_affine *const *pa, const czk_g1_affine *const *pb,
                         czk_g1_affine *const *po, size_t np, uint8_t *kind, void *vbuf);
/* pv[j] = points[idx[j]] (points[j] with idx NULL; pv may then be points) and, with ex
 * non-NULL, ex[j] = the x of [x^2] of that point (beta x), in the IFMA domain, for j < n. */
void czk__msm_ifma_points(czk_g1_affine *pv, czk_fp *ex, const czk_g1_affine *points,
                          const uint32_t *idx, size_t n);
/* The same for G2 (coordinates in Fp2, each part in the IFMA domain; vbuf:
 * CZK__MSM_IFMA_BUF_G2(np) bytes; ex: psi^2's x, n x). */
size_t czk__msm_ifma_add_g2(const czk_g2_affine *const *pa, const czk_g2_affine *const *pb,
                            czk_g2_affine *const *po, size_t np, uint8_t *kind, void *vbuf);
void czk__msm_ifma_points_g2(czk_g2_affine *pv, czk_fp2 *ex, const czk_g2_affine *points,
                             const uint32_t *idx, size_t n);
void czk__msm_ifma_domain_to(czk_fp *r, const czk_fp *a);
void czk__msm_ifma_domain_from(czk_fp *r, const czk_fp *a);
/* An affine point's coordinates into and out of the IFMA domain, in place (tables kept in it:
 * the development setup's fixed-base windows). */
void czk__msm_ifma_g1_to(czk_g1_affine *a);
void czk__msm_ifma_g1_from(czk_g1_affine *a);
void czk__msm_ifma_g2_to(czk_g2_affine *a);
void czk__msm_ifma_g2_from(czk_g2_affine *a);

#ifdef __cplusplus
}
#endif

#endif /* CZK_MSM_MSM_INTERNAL_H */
