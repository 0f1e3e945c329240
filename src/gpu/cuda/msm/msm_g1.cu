/*
 * The MSM over G1 (points over Fp): msm_host.cuh's templates instantiated for the group, and with
 * them its Pippenger kernels of msm.cuh (msm_g1_ones.cu has those of the sum of the ones), and
 * its entry points (czk_gpu_msm_g1_var, czk_gpu_msm_g1_scratch_bytes, internal.cuh's
 * czk__gpu_msm_g1_scratch / _run and their _opts forms). One of the five MSM units that compile
 * in parallel (msm_host.cuh).
 */
#include <cuda_runtime.h>

#include "curve/g1.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/msm/msm.cuh"
#include "gpu/cuda/msm/msm_host.cuh"
#include "util/status.h"

static_assert(sizeof(czk_cuda::g1_xyzz_t) == sizeof(czk_g1_xyzz), "G1 XYZZ layouts differ");
static_assert(sizeof(czk_cuda::g1_affine_t) == sizeof(czk_g1_affine), "G1 affine layouts differ");

namespace czk_msm {

namespace {

/* The group: device point types and the host functions of the last combination. */
struct msm_g1 {
    typedef czk_cuda::g1_affine_t A;
    typedef czk_cuda::g1_xyzz_t X;
    typedef czk_g1_affine affine;
    typedef czk_g1_jacobian jacobian;
    typedef czk_g1_xyzz xyzz;
    static const unsigned group = 1;
    static void set_inf(xyzz *r) {
        czk_g1_xyzz_set_infinity(r);
    }
    static void dbl(xyzz *r, const xyzz *a) {
        czk_g1_xyzz_dbl(r, a);
    }
    static void add(xyzz *r, const xyzz *a, const xyzz *b) {
        czk_g1_xyzz_add_var(r, a, b);
    }
    static void to_jacobian(jacobian *r, const xyzz *a) {
        affine aff;
        czk_g1_xyzz_to_affine(&aff, a);
        czk_g1_jacobian_from_affine(r, &aff);
    }
    static void jacobian_inf(jacobian *r) {
        czk_g1_jacobian_set_infinity(r);
    }
};

} // namespace

size_t msm_kernels_g1(const void *(&fns)[MSM_KERNELS]) {
    return msm_kernels<msm_g1>(fns);
}

} // namespace czk_msm

using czk_msm::msm_g1;
using czk_msm::msm_run;
using czk_msm::msm_scratch;
using czk_msm::msm_scratch_estimate;
using czk_msm::msm_var;

int czk__gpu_msm_g1_scratch(czk_gpu *g, size_t n, size_t *bytes, czk_err *err) {
    return msm_scratch<msm_g1>(g, n, NULL, bytes, err);
}

int czk__gpu_msm_g1_run(czk_gpu *g, czk_g1_jacobian *out, const void *pts_dev, const void *sc_dev,
                        size_t n, void *scratch, size_t scratch_bytes, czk_err *err) {
    return msm_run<msm_g1>(g, out, pts_dev, sc_dev, n, scratch, scratch_bytes, NULL, err);
}

int czk__gpu_msm_g1_scratch_opts(czk_gpu *g, size_t n, const czk__gpu_msm_opts *opts, size_t *bytes,
                                 czk_err *err) {
    return msm_scratch<msm_g1>(g, n, opts, bytes, err);
}

int czk__gpu_msm_g1_run_opts(czk_gpu *g, czk_g1_jacobian *out, const void *pts_dev,
                             const void *sc_dev, size_t n, void *scratch, size_t scratch_bytes,
                             const czk__gpu_msm_opts *opts, czk_err *err) {
    return msm_run<msm_g1>(g, out, pts_dev, sc_dev, n, scratch, scratch_bytes, opts, err);
}

extern "C" size_t czk_gpu_msm_g1_scratch_bytes(size_t n) {
    return msm_scratch_estimate<msm_g1>(n);
}

extern "C" int czk_gpu_msm_g1_var(czk_gpu *g, czk_g1_jacobian *out, const czk_g1_affine *pts,
                                  const czk_fr *sc, size_t n, czk_gpu_mem where, czk_err *err) {
    return msm_var<msm_g1>(g, out, pts, sc, n, where, err);
}
