/*
 * Whole proofs on the CUDA prover backend against the CPU's, as the prover checks
 * (prover_test.cu) and the proof benchmark (bench/gpu/bench_gpu_prove.cu) run them: backends
 * with a VRAM limit, attached keys (czk_gpu_backend_attach_key's handles), witness packs, and
 * prove_compare, which proves with the CPU and each GPU backend from the same r and s and
 * checks that the proofs are identical (and valid). Test code: header-only, in namespace
 * czk_gpu_test.
 */
#ifndef CZK_GPU_PROVER_TEST_CUH
#define CZK_GPU_PROVER_TEST_CUH

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "gpu/backend.h"
#include "gpu/gpu_test.cuh"
#include "groth16/backend.h"
#include "groth16/keys.h"
#include "groth16/prove.h"
#include "groth16/verify.h"
#include "groth16/witness_pack.h"
#include "r1cs/r1cs.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/status.h"
#include "util/timer.h"

namespace czk_gpu_test {

/* A prover backend on device 0 made with opts, or NULL after reporting the failure under
 * `label`. */
inline czk_backend *make_backend_opts(const czk_gpu_plan_opts *opts, const char *label) {
    czk_backend *be = NULL;
    czk_err err = {};
    int rc = czk_gpu_backend_create(&be, 0, opts, &err);
    if (rc != CZK_OK) {
        fail(label, rc, &err);
        return NULL;
    }
    return be;
}

/* A prover backend on device 0 (vram_limit 0: all free memory; flags: CZK_GPU_PLAN_*), or
 * NULL after reporting the failure under `label`. */
inline czk_backend *make_backend(size_t vram_limit, unsigned max_lg, unsigned flags,
                                 const char *label) {
    czk_gpu_plan_opts opts;
    memset(&opts, 0, sizeof(opts));
    opts.vram_limit_bytes = vram_limit;
    opts.max_lg = max_lg;
    opts.flags = flags;
    return make_backend_opts(&opts, label);
}

inline void say_plan(const czk_backend *be, const char *label) {
    czk_gpu_plan plan;
    char buf[512];
    czk_gpu_backend_plan(be, &plan);
    czk_gpu_plan_describe(&plan, buf, sizeof(buf));
    say("     plan %s: %s; peak VRAM %.1f MiB\n", label, buf,
        (double)czk_gpu_mem_peak(czk_gpu_backend_context(be)) / (1024.0 * 1024.0));
}

inline void say_timings(const char *label, const czk_groth16_timings *t) {
    say("%-30s %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %7.1f %8.1f\n", label, t->spmv_ns * 1e-6,
        t->h_ns * 1e-6, t->msm_h_ns * 1e-6, t->msm_a_ns * 1e-6, t->msm_b_g1_ns * 1e-6,
        t->msm_b_g2_ns * 1e-6, t->msm_l_ns * 1e-6, t->total_ns * 1e-6);
}

inline void say_timings_header(void) {
    say("%-30s %7s %7s %7s %7s %7s %7s %7s %8s  (ms)\n", "proof", "spmv", "h", "msm H", "A", "B1",
        "B2(CPU)", "L", "total");
}

inline int proofs_equal(const czk_groth16_proof *x, const czk_groth16_proof *y) {
    return czk_g1_affine_equal(&x->a, &y->a) && czk_g2_affine_equal(&x->b, &y->b) &&
           czk_g1_affine_equal(&x->c, &y->c);
}

/* The GPU side of prove_compare: backends, their attached keys (NULL: none) and labels. */
struct gpu_runs {
    czk_backend *const *be;
    czk_backend_key *const *key; /* NULL: no key for any */
    const char *const *name;
    int n;
};

/* A proof's reference: set by the first proof made (the CPU's when it runs), then the one
 * every later proof must equal. */
struct proof_ref {
    czk_groth16_proof proof;
    int set;
};

/*
 * Proves with the CPU backend (when `cpu`; it becomes the reference unless ref is set
 * already) and with each GPU backend of runs, same r and s (wp: the witness packed, may be
 * NULL); every GPU proof must equal the reference, and with `verify` the reference must
 * verify. Prints each proof's step times and each backend's plan.
 */
inline void prove_compare(const char *label, const czk_groth16_pk *pk, const czk_r1cs *cs,
                          const czk_fr *w, const czk_fr *r, const czk_fr *s, const gpu_runs &runs,
                          int cpu, int verify, czk_pool *pool, proof_ref *ref,
                          const czk_witness_pack *wp = NULL) {
    czk_groth16_proof p;
    czk_groth16_timings tm;
    czk_err err = {};
    char buf[128];
    int rc;
    const char *ref_name = cpu ? "CPU" : "reference";
    if (cpu) {
        rc = czk_groth16_prove(&p, pk, cs, w, r, s, czk_backend_cpu(), pool, &tm, &err);
        if (rc != CZK_OK) {
            fail("CPU prove", rc, &err);
            return;
        }
        snprintf(buf, sizeof(buf), "%s cpu", label);
        say_timings(buf, &tm);
        if (ref->set)
            check(proofs_equal(&p, &ref->proof), "%s: CPU proof identical to the reference", label);
        else
            ref->proof = p, ref->set = 1;
    }
    for (int i = 0; i < runs.n; i++) {
        const czk_backend_key *key = runs.key != NULL ? runs.key[i] : NULL;
        rc = czk_groth16_prove_ex(&p, pk, cs, w, wp, key, r, s, runs.be[i], pool, &tm, &err);
        if (rc != CZK_OK) {
            fail("GPU prove", rc, &err);
            continue;
        }
        snprintf(buf, sizeof(buf), "%s %s", label, runs.name[i]);
        say_timings(buf, &tm);
        if (!ref->set)
            ref->proof = p, ref->set = 1;
        else
            check(proofs_equal(&p, &ref->proof), "%s: %s proof identical to the %s one", label,
                  runs.name[i], ref_name);
        say_plan(runs.be[i], runs.name[i]);
    }
    if (verify && ref->set) {
        czk_groth16_pvk pvk;
        rc = czk_groth16_pvk_prepare(&pvk, &pk->vk, &err);
        if (rc == CZK_OK) {
            rc = czk_groth16_verify(&pvk, &ref->proof, w + 1, cs->n_public, &err);
            czk_groth16_pvk_clear(&pvk);
        }
        check(rc == CZK_OK, "%s: proof verifies (%s)", label, czk_status_name(rc));
    }
}

/* One backend, with or without a key, as prove_compare's GPU side. */
inline void prove_one(const char *label, const czk_groth16_pk *pk, const czk_r1cs *cs,
                      const czk_fr *w, const czk_fr *r, const czk_fr *s, czk_backend *be,
                      czk_backend_key *key, const char *name, czk_pool *pool, proof_ref *ref,
                      const czk_witness_pack *wp = NULL) {
    czk_backend *b[1] = {be};
    czk_backend_key *k[1] = {key};
    const char *n[1] = {name};
    prove_compare(label, pk, cs, w, r, s, gpu_runs{b, k, n, 1}, 0, 0, pool, ref, wp);
}

/* czk_malloc for packs made without a backend. */
inline void *test_alloc(void *ctx, size_t bytes) {
    (void)ctx;
    return czk_malloc(bytes);
}
inline void test_free(void *ctx, void *p, size_t bytes) {
    (void)ctx, (void)bytes;
    czk_free(p);
}

/* A witness pack of w (groth16/witness_pack.h) in be's pinned memory, as the engine stages
 * it (be NULL: czk_malloc); pack_release frees it. */
inline int pack_make(czk_witness_pack *wp, czk_witness_pack_mem *mem, czk_backend *be,
                     const czk_fr *w, size_t n) {
    return be != NULL
               ? czk_witness_pack_build(wp, mem, w, n, SIZE_MAX, be->host_alloc, be->host_free,
                                        be->ctx, NULL)
               : czk_witness_pack_build(wp, mem, w, n, SIZE_MAX, test_alloc, test_free, NULL, NULL);
}

inline void pack_release(czk_backend *be, czk_witness_pack_mem *mem) {
    if (be != NULL)
        czk_witness_pack_release(mem, be->host_free, be->ctx);
    else
        czk_witness_pack_release(mem, test_free, NULL);
}

/*
 * Attaches pk (and cs when not NULL) to be (czk_gpu_backend_attach_key) and says how far it
 * got: returns *resident (2 key and circuit on the device, 1 key points only, 3 streamed with
 * its circuit, 0 nothing kept), *key the handle (NULL when nothing was kept or on failure,
 * which is reported under `label`).
 */
inline int attach_key(czk_backend *be, const czk_groth16_pk *pk, const czk_r1cs *cs,
                      czk_backend_key **key, const char *label) {
    czk_err err = {};
    int resident = 0;
    uint64_t t0 = czk_time_ns();
    *key = NULL;
    int rc = czk_gpu_backend_attach_key(be, pk, cs, key, &resident, &err);
    if (rc != CZK_OK) {
        fail(label, rc, &err);
        return 0;
    }
    say("(%s: %s, %.2f GiB resident on the device, %.0f ms)\n", label,
        resident == 2   ? "key and circuit resident"
        : resident == 1 ? "key points resident"
        : resident == 3 ? "key and circuit stream, page-locked on the host"
                        : "key does not fit, streams",
        (double)czk_gpu_backend_resident_bytes(be) / (double)(1ull << 30), ms_since(t0));
    if (resident == 3) {
        char desc[256];
        czk_gpu_backend_describe_key(be, *key, desc, sizeof(desc));
        say("     %s\n", desc);
    }
    return resident;
}

} // namespace czk_gpu_test

#endif /* CZK_GPU_PROVER_TEST_CUH */
