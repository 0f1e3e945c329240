/*
 * The device NTT against the CPU's (module "ntt" of czk_gpu_test): forward, inverse, coset
 * forward and coset inverse at every pass shape from lg 1 to 23 (with --big also 25, 27 and
 * 28), each equal to the CPU transform of src/poly, right at three spot values by Horner's
 * rule, and the forward kinds back through the inverse on a device buffer. Without a device:
 * which sizes read flat twist tables (czk__gpu_ntt_flat_tables) against the pass split.
 */
#include <stdint.h>
#include <string.h>

#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/gpu_test.cuh"
#include "poly/ntt.h"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"

using namespace czk_gpu_test;

namespace {

/* Σ_j a[j]·x^j. */
void horner(czk_fr *r, const czk_fr *a, size_t n, const czk_fr *x) {
    czk_fr acc = CZK_FR_ZERO;
    for (size_t j = n; j-- > 0;) {
        czk_fr_mul(&acc, &acc, x);
        czk_fr_add(&acc, &acc, &a[j]);
    }
    *r = acc;
}

void fr_pow_u64(czk_fr *r, const czk_fr *a, uint64_t e) {
    czk_fr_pow(r, a, &e, 1);
}

/*
 * Checks out = kind(in) at spot indices: forward kinds evaluate `in` at x_k, inverse kinds
 * evaluate `out` at x_k and compare with in[k]; x_k = ω^k, times g for the cosets.
 */
int ntt_spot_ok(const czk_fr *in, const czk_fr *out, size_t n, czk_gpu_ntt_kind kind,
                const czk_fr *w, const czk_fr *g, czk_rng *rng) {
    size_t idx[3] = {0, n - 1, (size_t)(czk_rng_u64(rng) % n)};
    int inverse = kind == CZK_GPU_NTT_INVERSE || kind == CZK_GPU_NTT_COSET_INVERSE;
    int coset = kind == CZK_GPU_NTT_COSET_FORWARD || kind == CZK_GPU_NTT_COSET_INVERSE;
    for (int t = 0; t < 3; t++) {
        czk_fr x, v;
        fr_pow_u64(&x, w, idx[t]);
        if (coset)
            czk_fr_mul(&x, &x, g);
        horner(&v, inverse ? out : in, n, &x);
        if (!czk_fr_equal(&v, inverse ? &in[idx[t]] : &out[idx[t]]))
            return 0;
    }
    return 1;
}

/* The CPU transform of `kind` on a in place. */
void cpu_ntt(const czk_ntt_domain *d, czk_fr *a, czk_gpu_ntt_kind kind, const czk_fr *g,
             czk_pool *pool) {
    if (kind == CZK_GPU_NTT_FORWARD)
        czk_ntt_forward(d, a, pool);
    else if (kind == CZK_GPU_NTT_INVERSE)
        czk_ntt_inverse(d, a, pool);
    else if (kind == CZK_GPU_NTT_COSET_FORWARD)
        czk_ntt_coset_forward(d, a, g, pool);
    else
        czk_ntt_coset_inverse(d, a, g, pool);
}

/* Back through the inverse kind on a device buffer: in = inverse(out)? */
void round_trip(czk_gpu *gpu, const czk_fr *in, const czk_fr *out, czk_fr *back, unsigned lg,
                czk_gpu_ntt_kind kind, const czk_fr *w, const czk_fr *g) {
    const size_t n = (size_t)1 << lg;
    const czk_gpu_ntt_kind inv =
        kind == CZK_GPU_NTT_FORWARD ? CZK_GPU_NTT_INVERSE : CZK_GPU_NTT_COSET_INVERSE;
    czk_err err = {};
    void *d = NULL;
    int rc = czk_gpu_alloc(gpu, &d, n * sizeof(czk_fr), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_upload(gpu, d, out, n * sizeof(czk_fr), &err);
    if (rc == CZK_OK)
        rc = czk_gpu_ntt_var(gpu, (czk_fr *)d, CZK_GPU_MEM_DEVICE, lg, inv, w, g, &err);
    if (rc == CZK_OK)
        rc = czk_gpu_download(gpu, back, d, n * sizeof(czk_fr), &err);
    czk_gpu_free(gpu, d, n * sizeof(czk_fr));
    if (rc != CZK_OK)
        fail("device round trip", rc, &err);
    else
        check(memcmp(back, in, n * sizeof(czk_fr)) == 0,
              "ntt lg %2u %-9s round trip (device buffer)", lg, ntt_kind_name(kind));
}

} // namespace

void czk_gpu_test::check_ntt_host(czk_rng *rng) {
    int flat_ok = 1;
    (void)rng;
    module("ntt");
    for (unsigned lg = 1; lg <= CZK_GPU_NTT_MAX_LG; lg++) {
        /* Three or more passes of ceil-split bits; the second pass twists over 2^s. */
        const unsigned passes = (lg + 9) / 10;
        const unsigned s = lg - (lg / passes + (lg % passes != 0 ? 1 : 0));
        flat_ok &= czk__gpu_ntt_flat_tables(lg) == (passes >= 3 && s > 14);
    }
    check(flat_ok, "flat twist tables exactly where a later pass twists over more than 2^14");
}

void czk_gpu_test::check_ntt(const test_env *e) {
    /* Every pass shape: 1-2 (direct DFT), 3-10 (one pass), 11-20 (two), 21-22 (three, the
     * second pass's twists from a table of ω_N), 23 (the same from a flat table); with --big
     * also 25, 27 and 28 (CZK_GPU_NTT_MAX_LG: a first pass of 10 bits whose twists need both
     * levels of the power table). */
    static const unsigned lgs[] = {1,  2,  3,  5,  9,  10, 11, 13, 14,
                                   17, 18, 20, 21, 22, 23, 25, 27, 28};
    const size_t n_lgs = sizeof(lgs) / sizeof(lgs[0]) - (e->big ? 0 : 3);
    static const czk_gpu_ntt_kind kinds[] = {CZK_GPU_NTT_FORWARD, CZK_GPU_NTT_INVERSE,
                                             CZK_GPU_NTT_COSET_FORWARD, CZK_GPU_NTT_COSET_INVERSE};
    czk_fr g;
    czk_fr_set_u64(&g, 7); /* the coset shift bellperson uses */
    module("ntt");
    say("\n== NTT vs CPU ==\n");
    for (size_t li = 0; li < n_lgs; li++) {
        const unsigned lg = lgs[li];
        const size_t n = (size_t)1 << lg;
        czk_fr w;
        czk_fr *in = (czk_fr *)czk_malloc(n * sizeof(czk_fr));
        czk_fr *out = (czk_fr *)czk_malloc(n * sizeof(czk_fr));
        czk_fr *back = (czk_fr *)czk_malloc(n * sizeof(czk_fr));
        czk_ntt_domain *d = NULL;
        czk_err derr = {};
        int rc = CZK_ENOMEM;
        if (in != NULL && out != NULL && back != NULL)
            rc = czk_ntt_domain_create(&d, lg, CZK_NTT_ROOT_BELLPERSON, &derr);
        if (rc != CZK_OK) {
            fail("NTT inputs", rc, &derr);
            goto next;
        }
        w = *czk_ntt_domain_omega(d);
        fill_fr(e->pool, in, n, czk_rng_u64(e->rng), FILL_UNIFORM);
        for (size_t ki = 0; ki < 4; ki++) {
            const czk_gpu_ntt_kind kind = kinds[ki];
            czk_err err = {};
            memcpy(out, in, n * sizeof(czk_fr));
            rc = czk_gpu_ntt_var(e->gpu, out, CZK_GPU_MEM_HOST, lg, kind, &w, &g, &err);
            if (rc != CZK_OK) {
                fail("czk_gpu_ntt_var", rc, &err);
                continue;
            }
            check(ntt_spot_ok(in, out, n, kind, &w, &g, e->rng), "ntt lg %2u %-9s spot values", lg,
                  ntt_kind_name(kind));
            memcpy(back, in, n * sizeof(czk_fr));
            cpu_ntt(d, back, kind, &g, e->pool);
            check(memcmp(back, out, n * sizeof(czk_fr)) == 0,
                  "ntt lg %2u %-9s equals the CPU transform", lg, ntt_kind_name(kind));
            if (kind == CZK_GPU_NTT_FORWARD || kind == CZK_GPU_NTT_COSET_FORWARD)
                round_trip(e->gpu, in, out, back, lg, kind, &w, &g);
        }
    next:
        czk_ntt_domain_destroy(d);
        czk_free(in);
        czk_free(out);
        czk_free(back);
    }
}
