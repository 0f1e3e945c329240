/*
 * The MSM over G2 (points over Fp2, whose kernels take the longest to compile): msm_host.cuh's
 * templates instantiated for the group, and with them its Pippenger kernels of msm.cuh
 * (msm_g2_ones.cu has those of the sum of the ones), and its entry points (czk_gpu_msm_g2_var,
 * czk_gpu_msm_g2_scratch_bytes, internal.cuh's czk__gpu_msm_g2_scratch / _run and their _opts
 * forms). One of the five MSM units that compile in parallel (msm_host.cuh).
 */
#include <cuda_runtime.h>

#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm.cuh"
#include "gpu/cuda/msm/msm_host.cuh"
#include "util/status.h"

static_assert(sizeof(czk_cuda::fp2_t) == sizeof(czk_fp2), "Fp2 layouts differ");
static_assert(sizeof(czk_cuda::g2_xyzz_t) == sizeof(czk_g2_xyzz), "G2 XYZZ layouts differ");
static_assert(sizeof(czk_cuda::g2_affine_t) == sizeof(czk_g2_affine), "G2 affine layouts differ");

namespace czk_msm {

namespace {

/* The group: device point types and the host functions of the last combination. */
struct msm_g2 {
    typedef czk_cuda::g2_affine_t A;
    typedef czk_cuda::g2_xyzz_t X;
    typedef czk_g2_affine affine;
    typedef czk_g2_jacobian jacobian;
    typedef czk_g2_xyzz xyzz;
    static const unsigned group = 2;
    static void set_inf(xyzz *r) {
        czk_g2_xyzz_set_infinity(r);
    }
    static void dbl(xyzz *r, const xyzz *a) {
        czk_g2_xyzz_dbl(r, a);
    }
    static void add(xyzz *r, const xyzz *a, const xyzz *b) {
        czk_g2_xyzz_add_var(r, a, b);
    }
    static void to_jacobian(jacobian *r, const xyzz *a) {
        affine aff;
        czk_g2_xyzz_to_affine(&aff, a);
        czk_g2_jacobian_from_affine(r, &aff);
    }
    static void jacobian_inf(jacobian *r) {
        czk_g2_jacobian_set_infinity(r);
    }
};

} // namespace

size_t msm_kernels_g2(const void *(&fns)[MSM_KERNELS]) {
    return msm_kernels<msm_g2>(fns);
}

} // namespace czk_msm

using czk_msm::msm_g2;
using czk_msm::msm_run;
using czk_msm::msm_scratch;
using czk_msm::msm_scratch_estimate;
using czk_msm::msm_var;

int czk__gpu_msm_g2_scratch(czk_gpu *g, size_t n, size_t *bytes, czk_err *err) {
    return msm_scratch<msm_g2>(g, n, NULL, bytes, err);
}

int czk__gpu_msm_g2_run(czk_gpu *g, czk_g2_jacobian *out, const void *pts_dev, const void *sc_dev,
                        size_t n, void *scratch, size_t scratch_bytes, czk_err *err) {
    return msm_run<msm_g2>(g, out, pts_dev, sc_dev, n, scratch, scratch_bytes, NULL, err);
}

int czk__gpu_msm_g2_scratch_opts(czk_gpu *g, size_t n, const czk__gpu_msm_opts *opts, size_t *bytes,
                                 czk_err *err) {
    return msm_scratch<msm_g2>(g, n, opts, bytes, err);
}

int czk__gpu_msm_g2_run_opts(czk_gpu *g, czk_g2_jacobian *out, const void *pts_dev,
                             const void *sc_dev, size_t n, void *scratch, size_t scratch_bytes,
                             const czk__gpu_msm_opts *opts, czk_err *err) {
    return msm_run<msm_g2>(g, out, pts_dev, sc_dev, n, scratch, scratch_bytes, opts, err);
}

extern "C" size_t czk_gpu_msm_g2_scratch_bytes(size_t n) {
    return msm_scratch_estimate<msm_g2>(n);
}

extern "C" int czk_gpu_msm_g2_var(czk_gpu *g, czk_g2_jacobian *out, const czk_g2_affine *pts,
                                  const czk_fr *sc, size_t n, czk_gpu_mem where, czk_err *err) {
    return msm_var<msm_g2>(g, out, pts, sc, n, where, err);
}
