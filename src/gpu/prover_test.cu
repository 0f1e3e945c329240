/*
 * The CUDA prover backend against the CPU (module "prover" of czk_gpu_test):
 *  (a) h on the device against czk_poly_h_monomial / czk_poly_h_odd_coset, all n outputs bit
 *      for bit, at lg 10, 16, 20;
 *  (b) whole proofs of PoRep-shaped circuits at k = 10, 14, 18 with development keys of both
 *      bases, GPU and CPU proofs from the same r and s identical and valid: the step-by-step
 *      backend with all memory and within 128 MiB, the key's points attached, key and circuit
 *      attached (witness plain and packed), and key and circuit streamed within 128 MiB
 *      (twice, and packed); attach and detach counted;
 *  (c) a 2^20 benchmark key under 256 MiB, whose MSMs must stream in batches, then streamed
 *      whole proofs within 256, 320, 384 and 448 MiB: proofs identical to the CPU's.
 * Without a device: the witness ranges of a streamed proof's batches (czk__gpu_stream_bounds).
 */
#include <stdint.h>
#include <string.h>

#include "gpu/backend.h"
#include "gpu/cuda/prover.cuh"
#include "gpu/gpu_test.cuh"
#include "gpu/prover_test.cuh"
#include "groth16/backend.h"
#include "groth16/benchkey.h"
#include "groth16/keys.h"
#include "groth16/setup.h"
#include "poly/ntt.h"
#include "poly/quotient.h"
#include "r1cs/r1cs.h"
#include "r1cs/synth.h"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"

using namespace czk_gpu_test;

namespace {

/*
 * The device bytes the driver reserves for the MSM kernels' local memory (~0.3 GiB on an
 * H200, mostly G2's window kernels), which a backend's budget holds out of its VRAM limit.
 * The small limits of the streaming checks (128 .. 448 MiB) are for our own allocations, so
 * they get it on top: vram_for(128) leaves the plans ~50 MiB, as on a card with that much
 * free beside the driver's share.
 */
size_t vram_for(const test_env *e, size_t mib) {
    return (mib << 20) + e->local_bytes;
}

/* (a) h on the device against czk_poly_h_monomial / czk_poly_h_odd_coset, bit for bit. */
void test_h(const czk_backend *be, czk_pool *pool, czk_rng *rng) {
    static const unsigned lgs[] = {10, 16, 20};
    say("\n== h on the GPU against the CPU quotient (bit-exact) ==\n");
    for (unsigned li = 0; li < sizeof(lgs) / sizeof(lgs[0]); li++) {
        const unsigned lg = lgs[li];
        const size_t n = (size_t)1 << lg;
        for (int basis = 0; basis < 2; basis++) {
            czk_err err = {};
            czk_ntt_domain *d = NULL;
            czk_fr *v = (czk_fr *)czk_malloc(6 * n * sizeof(czk_fr));
            int rc;
            if (v == NULL) {
                fail("h inputs", CZK_ENOMEM, NULL);
                return;
            }
            fill_fr(pool, v, 3 * n, czk_rng_u64(rng), FILL_UNIFORM);
            memcpy(v + 3 * n, v, 3 * n * sizeof(czk_fr));
            rc = czk_ntt_domain_create(
                &d, lg, basis == 0 ? CZK_NTT_ROOT_BELLPERSON : CZK_NTT_ROOT_SNARKJS, &err);
            if (rc == CZK_OK)
                rc = basis == 0
                         ? czk_poly_h_monomial(d, v + 3 * n, v + 4 * n, v + 5 * n, pool, &err)
                         : czk_poly_h_odd_coset(d, v + 3 * n, v + 4 * n, v + 5 * n, pool, &err);
            if (rc == CZK_OK)
                rc = be->h(be->ctx, d, basis == 0 ? CZK_H_MONOMIAL : CZK_H_ODD_COSET, v, v + n,
                           v + 2 * n, pool, &err);
            if (rc != CZK_OK)
                fail("h", rc, &err);
            else
                check(memcmp(v, v + 3 * n, n * sizeof(czk_fr)) == 0,
                      "h %-9s lg %-2u GPU == CPU (all n outputs)",
                      basis == 0 ? "monomial" : "odd coset", lg);
            czk_ntt_domain_destroy(d);
            czk_free(v);
        }
    }
}

/*
 * (b) for one circuit and key: the step-by-step backends (be with all memory, small within
 * 128 MiB) with the CPU as the reference, then be with the key's points attached, with key
 * and circuit attached (witness plain and packed), and streamed with its circuit.
 */
void proofs_of_key(const char *label, const czk_groth16_pk *pk, const czk_r1cs *cs, const czk_fr *w,
                   czk_backend *be, czk_backend *small, czk_backend *streamed, czk_pool *pool,
                   czk_rng *rng) {
    czk_backend *gpus[2] = {be, small};
    const char *names[2] = {"gpu", "gpu-128MiB"};
    proof_ref ref = {};
    czk_backend_key *key = NULL;
    czk_witness_pack wp;
    czk_witness_pack_mem pmem;
    czk_fr r, s;
    czk_fr_random(&r, rng);
    czk_fr_random(&s, rng);
    prove_compare(label, pk, cs, w, &r, &s, gpu_runs{gpus, NULL, names, small != NULL ? 2 : 1}, 1,
                  1, pool, &ref);
    /* The same proof with the key's points on the device, then with the circuit too (the
     * whole proof from the witness: prove_sums). */
    if (attach_key(be, pk, NULL, &key, label) == 1) {
        prove_one(label, pk, cs, w, &r, &s, be, key, "gpu-res-points", pool, &ref);
        check(czk_gpu_backend_resident_bytes(be) > 0, "%s: key bytes counted", label);
    } else {
        check(0, "%s: a small key's points fit on the device", label);
    }
    czk_gpu_backend_detach_key(be, key);
    const int packed = pack_make(&wp, &pmem, NULL, w, cs->n_vars) == CZK_OK;
    check(packed, "%s: witness packed", label);
    if (attach_key(be, pk, cs, &key, label) == 2) {
        prove_one(label, pk, cs, w, &r, &s, be, key, "gpu-res-circuit", pool, &ref);
        /* The witness moved as a pack and expanded on the device. */
        if (packed)
            prove_one(label, pk, cs, w, &r, &s, be, key, "gpu-res-packed", pool, &ref, &wp);
    } else {
        check(0, "%s: a small circuit fits on the device", label);
    }
    czk_gpu_backend_detach_key(be, key);
    check(czk_gpu_backend_resident_bytes(be) == 0, "%s: detach frees the key", label);
    key = NULL;
    if (streamed != NULL && attach_key(streamed, pk, cs, &key, label) == 3) {
        prove_one(label, pk, cs, w, &r, &s, streamed, key, "gpu-streamed", pool, &ref);
        /* Again: the chunk and batch buffers are reused, the events re-recorded. */
        prove_one(label, pk, cs, w, &r, &s, streamed, key, "gpu-streamed", pool, &ref);
        if (packed)
            prove_one(label, pk, cs, w, &r, &s, streamed, key, "gpu-streamed-packed", pool, &ref,
                      &wp);
    } else {
        check(0, "%s: a key streams with its circuit within 128 MiB", label);
    }
    if (streamed != NULL) {
        czk_gpu_backend_detach_key(streamed, key);
        check(czk_gpu_backend_resident_bytes(streamed) == 0,
              "%s: detach of a streamed key frees its density bytes", label);
    }
    if (packed)
        pack_release(NULL, &pmem);
}

/* (b): PoRep-shaped circuits at 2^10, 2^14, 2^18 with development keys of both bases. */
void test_proofs(const test_env *e, czk_backend *be) {
    static const unsigned ks[] = {10, 14, 18};
    czk_backend *small = make_backend(vram_for(e, 128), 0, 0, "backend with 128 MiB");
    /* Keys never on the device: whole proofs stream key and circuit (in several chunks and
     * batches at 2^18 within 128 MiB). */
    czk_backend *streamed = make_backend(vram_for(e, 128), 0, CZK_GPU_PLAN_STREAM_KEYS,
                                         "streaming backend with 128 MiB");
    say("\n== whole proofs: GPU backend against the CPU backend (same r, s) ==\n");
    say_timings_header();
    for (unsigned ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ki++) {
        const unsigned k = ks[ki];
        czk_r1cs cs;
        czk_fr *w = NULL;
        czk_err err = {};
        memset(&cs, 0, sizeof(cs));
        int rc = czk_synth_porep_shaped(&cs, &w, k, czk_rng_u64(e->rng), e->pool, &err);
        if (rc != CZK_OK) {
            fail("synth", rc, &err);
            continue;
        }
        for (int basis = 0; basis < 2; basis++) {
            czk_groth16_pk pk;
            char label[64];
            memset(&pk, 0, sizeof(pk));
            uint64_t t0 = czk_time_ns();
            rc = czk_groth16_setup_dev(&pk, &cs, basis == 0 ? CZK_H_MONOMIAL : CZK_H_ODD_COSET,
                                       e->rng, e->pool, &err);
            if (rc != CZK_OK) {
                fail("setup_dev", rc, &err);
                continue;
            }
            say("(2^%u %s dev setup: %.0f ms)\n", k, basis == 0 ? "bellperson" : "snarkjs",
                ms_since(t0));
            snprintf(label, sizeof(label), "2^%u %s", k, basis == 0 ? "monomial" : "odd-coset");
            proofs_of_key(label, &pk, &cs, w, be, small, streamed, e->pool, e->rng);
            czk_groth16_pk_clear(&pk);
        }
        czk_r1cs_clear(&cs);
        czk_free(w);
    }
    czk_gpu_backend_destroy(small);
    czk_gpu_backend_destroy(streamed);
}

/* (c) 2^20 with a benchmark key and 256 MiB: every MSM streams its points in batches. */
void test_batches(const test_env *e) {
    czk_backend *b256 = make_backend(vram_for(e, 256), 0, 0, "backend with 256 MiB");
    czk_r1cs cs;
    czk_groth16_pk pk;
    czk_fr *w = NULL, r, s;
    czk_err err = {};
    memset(&cs, 0, sizeof(cs));
    memset(&pk, 0, sizeof(pk));
    int rc = czk_synth_porep_shaped(&cs, &w, 20, czk_rng_u64(e->rng), e->pool, &err);
    if (rc == CZK_OK)
        rc = czk_groth16_benchkey(&pk, &cs, CZK_H_MONOMIAL, czk_rng_u64(e->rng), e->pool, &err);
    if (rc != CZK_OK || b256 == NULL) {
        fail("2^20 benchmark key", rc, &err);
    } else {
        czk_gpu_plan plan;
        proof_ref ref = {};
        czk_backend *g2[1] = {b256};
        const char *n2[1] = {"gpu-256MiB"};
        czk_fr_random(&r, e->rng);
        czk_fr_random(&s, e->rng);
        prove_compare("2^20 benchkey", &pk, &cs, w, &r, &s, gpu_runs{g2, NULL, n2, 1}, 1, 0,
                      e->pool, &ref);
        czk_gpu_backend_plan(b256, &plan);
        check(plan.msm_batches > 1, "256 MiB plan streams the 2^20 MSMs in %zu batches",
              plan.msm_batches);
        /* Whole proofs streamed within budgets that cut the MSMs into batches of several
         * sizes (full ones and remainders, each with its own window and chunk length: H200
         * run 23 failed such a batch whose scratch outgrew the full batch's). */
        for (size_t mib = 256; mib <= 448; mib += 64) { /* the witness and h take 96 */
            char label[64];
            czk_backend_key *key = NULL;
            snprintf(label, sizeof(label), "streaming backend with %zu MiB", mib);
            czk_backend *sb = make_backend(vram_for(e, mib), 0, CZK_GPU_PLAN_STREAM_KEYS, label);
            if (sb != NULL && attach_key(sb, &pk, &cs, &key, label) == 3)
                prove_one("2^20 benchkey", &pk, &cs, w, &r, &s, sb, key, label, e->pool, &ref);
            else
                check(0, "2^20 benchkey: %s attaches the key to stream", label);
            czk_gpu_backend_detach_key(sb, key);
            czk_gpu_backend_destroy(sb);
        }
    }
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&cs);
    czk_free(w);
    czk_gpu_backend_destroy(b256);
}

} // namespace

void czk_gpu_test::check_prover_host(czk_rng *rng) {
    int bounds_ok = 1;
    module("prover");
    for (int t = 0; t < 200 && bounds_ok; t++) {
        const size_t n_vars = 1 + czk_rng_u64(rng) % 5000;
        const unsigned density = (unsigned)(czk_rng_u64(rng) % 101); /* percent set */
        uint8_t *take = (uint8_t *)czk_malloc(n_vars);
        size_t n = 0, *wb = NULL, batches = 0;
        czk_err err = {};
        if (take == NULL) {
            fail("host allocation", CZK_ENOMEM, NULL);
            return;
        }
        for (size_t v = 0; v < n_vars; v++)
            n += take[v] = (uint8_t)(czk_rng_u64(rng) % 100 < density);
        const size_t bs = 1 + czk_rng_u64(rng) % (n + 3);
        if (czk__gpu_stream_bounds(take, n_vars, n, bs, &wb, &batches, &err) != CZK_OK) {
            fail("czk__gpu_stream_bounds", CZK_ENOMEM, &err);
            czk_free(take);
            return;
        }
        bounds_ok =
            batches == (n + bs - 1) / bs && wb[0] == 0 && (batches == 0 || wb[batches] == n_vars);
        for (size_t j = 0; j < batches && bounds_ok; j++) {
            size_t got = 0;
            for (size_t v = wb[j]; v < wb[j + 1] && v < n_vars; v++)
                got += take[v];
            bounds_ok = wb[j] <= wb[j + 1] && got == (n - j * bs < bs ? n - j * bs : bs);
        }
        if (!bounds_ok)
            say("(stream bounds: %zu variables, %zu set, batches of %zu)\n", n_vars, n, bs);
        czk_free(wb);
        czk_free(take);
    }
    check(bounds_ok, "streamed batch bounds select exactly each batch's scalars (200 random)");
}

void czk_gpu_test::check_prover(const test_env *e) {
    module("prover");
    czk_backend *be = make_backend(0, 0, 0, "czk_gpu_backend_create");
    if (be == NULL)
        return;
    say("\nprover backend: %s\n", be->name);
    test_h(be, e->pool, e->rng);
    test_proofs(e, be);
    test_batches(e);
    czk_gpu_backend_destroy(be);
}
