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
 *      whole proofs within 256, 320, 384 and 448 MiB: proofs identical to the CPU's;
 *  (d) circuits of copies of one block (r1cs/rep.h: a PoRep-shaped 2^10 block in 3 and 5
 *      copies, a block of random coefficients, its A uncoded, in 2, and a 2^8 head before a
 *      2^10 block that reads its variables (czk_synth_rep_headed) in 3 copies and in 1):
 *      attached expanded and as head and block (czk_gpu_backend_attach_key_rep) on one
 *      backend, the rep's arrays compact (head and block once: the CSR's first rows and
 *      entries, the block's columns its own); proofs from the rep's key with the header of
 *      sizes as cs (the SpMV mapping each copy's columns) identical to the CPU's and the CSR
 *      key's, and valid.
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
#include "r1cs/rep.h"
#include "r1cs/solve.h"
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

/* ---- (d) circuits of copies of one block ------------------------------------------------ */

/*
 * A block whose A holds more distinct coefficients than a coded matrix can (CODE_MAX,
 * 65,536): 9,000 rows (A·w)·y = u, A with ONE and 8 of 66 free variables (2 of them public)
 * under random coefficients, 20 of them every 50th row (long rows), B a free variable, C a
 * new one; czk_r1cs_solve solves it. Its A stays uncoded on the device.
 */
int wide_block(czk_r1cs *out, czk_rng *rng, czk_err *err) {
    const size_t n_free = 66;
    czk_r1cs_builder *b = NULL;
    uint32_t cols[21], bcol, ccol, v;
    czk_fr vals[21], one = CZK_FR_ONE;
    int rc = czk_r1cs_builder_create(&b, 2, err);
    for (size_t i = 0; i + 2 < n_free && rc == CZK_OK; i++)
        rc = czk_r1cs_builder_add_var(b, &v);
    for (size_t i = 0; i < 9000 && rc == CZK_OK; i++) {
        const size_t len = i % 50 == 0 ? 20 : 8;
        cols[0] = 0;
        czk_fr_random(&vals[0], rng);
        for (size_t k = 0; k < len; k++) {
            cols[1 + k] = (uint32_t)(1 + (i * 8 + k) % n_free);
            czk_fr_random(&vals[1 + k], rng);
        }
        bcol = (uint32_t)(1 + (i * 7 + 3) % n_free);
        rc = czk_r1cs_builder_add_var(b, &ccol);
        if (rc == CZK_OK)
            rc = czk_r1cs_builder_add_constraint(b, cols, vals, len + 1, &bcol, &one, 1, &ccol,
                                                 &one, 1, err);
    }
    if (rc == CZK_OK)
        rc = czk_r1cs_builder_finish(b, out, err);
    czk_r1cs_builder_destroy(b);
    return rc;
}

/* The whole system's witness (n_vars values, czk_free it) of a rep without a head: copy s
 * gets the block's witness solved from seed + s, placed by czk_r1cs_rep_col. NULL on failure
 * (err says why). A headed rep's copies share the head's values: its generator's witness
 * serves instead. */
czk_fr *rep_witness(const czk_r1cs_rep *rep, size_t n_vars, uint64_t seed, czk_err *err) {
    const czk_r1cs *blk = &rep->block;
    czk_fr *w = (czk_fr *)czk_calloc(n_vars, sizeof(czk_fr));
    czk_fr *wb = (czk_fr *)czk_malloc(blk->n_vars * sizeof(czk_fr));
    int rc = w != NULL && wb != NULL ? CZK_OK : czk_err_set(err, CZK_ENOMEM, "rep witness");
    for (size_t s = 0; s < rep->copies && rc == CZK_OK; s++) {
        rc = czk_r1cs_solve(wb, blk, seed + s, err);
        for (uint32_t c = 0; c < blk->n_vars && rc == CZK_OK; c++)
            w[czk_r1cs_rep_col(rep, s, c)] = wb[c];
    }
    czk_free(wb);
    if (rc != CZK_OK) {
        czk_free(w);
        w = NULL;
    }
    return w;
}

/* Whether bytes at two device addresses are equal (NULL equals only NULL). */
int device_same(czk_gpu *g, const void *x, const void *y, size_t bytes) {
    czk_err err = {};
    if (x == NULL || y == NULL)
        return x == y;
    if (bytes == 0)
        return 1;
    char *hx = (char *)czk_malloc(bytes), *hy = (char *)czk_malloc(bytes);
    int same = hx != NULL && hy != NULL && czk_gpu_download(g, hx, x, bytes, &err) == CZK_OK &&
               czk_gpu_download(g, hy, y, bytes, &err) == CZK_OK && memcmp(hx, hy, bytes) == 0;
    czk_free(hx);
    czk_free(hy);
    return same;
}

/* Whether n bytes at a device address equal host memory h. */
int device_host_same(czk_gpu *g, const void *d, const void *h, size_t n) {
    czk_err err = {};
    if (n == 0)
        return 1;
    char *x = (char *)czk_malloc(n);
    int same = x != NULL && d != NULL && czk_gpu_download(g, x, d, n, &err) == CZK_OK &&
               memcmp(x, h, n) == 0;
    czk_free(x);
    return same;
}

/*
 * The rep-attached circuit y (compact: spmv.cuh) against the CSR-attached x of its
 * expansion: the row pointers, codes or values and the head's columns are the first of the
 * CSR's (the head's rows, then copy 0's, whose entries are the block's), the block's columns
 * are its own, unmapped; tables, long-row lists and density bytes equal the CSR's.
 */
void circuits_same(const char *label, czk_backend *be, const czk_backend_key *x,
                   const czk_backend_key *y, const czk_r1cs_rep *rep, int uncoded_a) {
    czk_gpu *g = czk_gpu_backend_context(be);
    const resident_circuit *a = &x->circ, *b = &y->circ;
    const size_t H = rep->head.n_constraints, R = rep->block.n_constraints;
    const czk_r1cs_matrix *hm[3] = {&rep->head.a, &rep->head.b, &rep->head.c},
                          *bm[3] = {&rep->block.a, &rep->block.b, &rep->block.c};
    int sizes = 1, rows = 1, cols = 1, vals = 1, dicts = 1, longs = 1;
    for (int i = 0; i < 3; i++) {
        const size_t hn = H > 0 ? (size_t)hm[i]->row_ptr[H] : 0, bn = (size_t)bm[i]->row_ptr[R];
        const size_t per = b->ci[i] != NULL ? sizeof(uint16_t) : sizeof(czk_fr);
        sizes &= b->row_bytes[i] == (H + R + 1) * sizeof(uint64_t) &&
                 b->col_bytes[i] == (hn + bn) * sizeof(uint32_t) &&
                 b->val_bytes[i] == (hn + bn) * per && a->dict_bytes[i] == b->dict_bytes[i] &&
                 a->n_long[i] == b->n_long[i];
        if (!sizes)
            break;
        rows &= device_same(g, a->row_ptr[i], b->row_ptr[i], b->row_bytes[i]);
        cols &= device_same(g, a->cols[i], b->cols[i], hn * sizeof(uint32_t)) &&
                device_host_same(g, b->cols[i] + hn, bm[i]->cols, bn * sizeof(uint32_t));
        vals &= device_same(g, a->ci[i], b->ci[i], b->ci[i] != NULL ? b->val_bytes[i] : 0) &&
                device_same(g, a->vals[i], b->vals[i], b->vals[i] != NULL ? b->val_bytes[i] : 0);
        dicts &= device_same(g, a->dict[i], b->dict[i], a->dict_bytes[i]);
        longs &= device_same(g, a->long_rows[i], b->long_rows[i], a->n_long[i] * sizeof(uint32_t));
    }
    sizes &= a->take_bytes == b->take_bytes && b->bytes <= a->bytes && b->cap >= a->cap &&
             b->rep_h == H && b->rep_r == R && a->rep_r == 0 &&
             memcmp(&a->omega, &b->omega, sizeof(a->omega)) == 0 &&
             memcmp(&a->omega_2n, &b->omega_2n, sizeof(a->omega_2n)) == 0;
    check(sizes, "%s: rep circuit's sizes compact (head and block once), roots the CSR's", label);
    if (!sizes)
        return;
    say("(%s: A %s, B %s, C %s; long rows %zu, %zu, %zu; circuit %.2f MiB, expanded %.2f)\n", label,
        b->ci[0] != NULL ? "coded" : "values", b->ci[1] != NULL ? "coded" : "values",
        b->ci[2] != NULL ? "coded" : "values", b->n_long[0], b->n_long[1], b->n_long[2],
        (double)b->bytes / (1024.0 * 1024.0), (double)a->bytes / (1024.0 * 1024.0));
    check(rows && cols, "%s: rep circuit's row pointers and columns: head and block once", label);
    check(vals && dicts, "%s: rep circuit's coefficients (coded and values) and tables equal",
          label);
    check(longs, "%s: rep circuit's long-row lists equal the CSR's", label);
    check(device_same(g, a->take_a, b->take_a, a->take_bytes) &&
              device_same(g, a->take_b, b->take_b, a->take_bytes),
          "%s: rep circuit's density bytes equal the CSR's", label);
    check(uncoded_a ? b->vals[0] != NULL && b->ci[0] == NULL : b->ci[0] != NULL,
          "%s: A %s, as the block's coefficients ask", label, uncoded_a ? "uncoded" : "coded");
}

/*
 * One rep (owned by the caller): its expansion and witness (wit, the whole system's, or
 * rep_witness's when wit is NULL), a filtered development key of the expansion; the CSR and
 * the rep attached to be, their circuits compared; proofs from the rep's key (cs = the
 * header of sizes) identical to the CPU's and the CSR key's, and valid; the keys refuse the
 * other's cs; detach frees both.
 */
void rep_case(const char *label, const test_env *e, czk_backend *be, const czk_r1cs_rep *rep,
              int uncoded_a, const czk_fr *wit) {
    czk_r1cs ex, dims, bad;
    czk_groth16_pk pk;
    czk_groth16_proof p;
    czk_backend_key *kc = NULL, *kr = NULL;
    czk_fr *own = NULL, r, s;
    const czk_fr *w = wit;
    czk_err err = {};
    int res = 0;
    memset(&ex, 0, sizeof(ex));
    memset(&pk, 0, sizeof(pk));
    int rc = czk_r1cs_rep_expand(rep, &ex, e->pool, &err);
    if (rc == CZK_OK)
        rc = czk_r1cs_rep_dims(rep, &dims, &err);
    if (rc == CZK_OK && w == NULL &&
        (w = own = rep_witness(rep, ex.n_vars, czk_rng_u64(e->rng), &err)) == NULL)
        rc = CZK_EINVAL;
    if (rc == CZK_OK)
        rc = czk_r1cs_check(&ex, w, NULL, e->pool, &err);
    if (rc == CZK_OK)
        rc = czk_groth16_setup_dev(&pk, &ex, CZK_H_MONOMIAL, e->rng, e->pool, &err);
    if (rc != CZK_OK) {
        fail(label, rc, &err);
        goto out;
    }
    say("(%s: %zu head rows, %zu copies of %zu rows, %zu variables; domain %zu)\n", label,
        rep->head.n_constraints, rep->copies, rep->block.n_constraints, ex.n_vars, pk.domain_size);
    if (attach_key(be, &pk, &ex, &kc, label) != 2) {
        check(0, "%s: the expanded circuit is resident", label);
        goto out;
    }
    rc = czk_gpu_backend_attach_key_rep(be, &pk, rep, &dims, &kr, &res, &err);
    if (rc != CZK_OK || res != 2) {
        if (rc != CZK_OK)
            fail("czk_gpu_backend_attach_key_rep", rc, &err);
        check(0, "%s: the rep circuit is resident (resident = %d)", label, res);
        goto out;
    }
    check(kr->circ.cs == &dims, "%s: the rep circuit's cs is the header of sizes", label);
    circuits_same(label, be, kc, kr, rep, uncoded_a);
    czk_fr_random(&r, e->rng);
    czk_fr_random(&s, e->rng);
    {
        proof_ref ref = {};
        czk_backend *b1[1] = {be};
        czk_backend_key *k1[1] = {kc};
        const char *n1[1] = {"gpu-csr"};
        czk_witness_pack wp;
        czk_witness_pack_mem pmem;
        prove_compare(label, &pk, &ex, w, &r, &s, gpu_runs{b1, k1, n1, 1}, 1, 1, e->pool, &ref);
        prove_one(label, &pk, &dims, w, &r, &s, be, kr, "gpu-rep", e->pool, &ref);
        if (pack_make(&wp, &pmem, NULL, w, ex.n_vars) == CZK_OK) {
            prove_one(label, &pk, &dims, w, &r, &s, be, kr, "gpu-rep-packed", e->pool, &ref, &wp);
            pack_release(NULL, &pmem);
        } else {
            check(0, "%s: witness packed", label);
        }
    }
    /* Each key knows its cs: the header with the CSR's key, or the CSR with the rep's. */
    rc = czk_groth16_prove_ex(&p, &pk, &dims, w, NULL, kc, &r, &s, be, e->pool, NULL, &err);
    check(rc == CZK_EINVAL, "%s: the CSR's key refuses the header (%s)", label,
          czk_status_name(rc));
    rc = czk_groth16_prove_ex(&p, &pk, &ex, w, NULL, kr, &r, &s, be, e->pool, NULL, &err);
    check(rc == CZK_EINVAL, "%s: the rep's key refuses the CSR (%s)", label, czk_status_name(rc));
    /* Sizes that are not the rep's. */
    {
        czk_backend_key *kb = NULL;
        int rb = 1;
        bad = dims;
        bad.n_vars++;
        rc = czk_gpu_backend_attach_key_rep(be, &pk, rep, &bad, &kb, &rb, &err);
        check(rc == CZK_EINVAL && kb == NULL && rb == 0,
              "%s: attach_key_rep refuses sizes that are not the rep's (%s)", label,
              czk_status_name(rc));
    }
out:
    czk_gpu_backend_detach_key(be, kr);
    czk_gpu_backend_detach_key(be, kc);
    check(czk_gpu_backend_resident_bytes(be) == 0, "%s: detach frees both circuits", label);
    czk_groth16_pk_clear(&pk);
    czk_r1cs_clear(&ex);
    czk_free(own);
}

/* (d): a PoRep-shaped 2^10 block in 3 and 5 copies, a block of random coefficients (A
 * uncoded) in 2, and a 2^8 head before a 2^10 block with its tie rows in 3 copies and in 1
 * (the head's rows, entries, codes and long rows first, then the copies'). */
void test_rep(const test_env *e, czk_backend *be) {
    static const size_t copies[] = {3, 5}, headed[] = {3, 1};
    czk_r1cs_rep rep;
    czk_fr *w0 = NULL;
    czk_err err = {};
    char label[64];
    say("\n== repeated circuits: the block expanded on the device against the CSR attached ==\n");
    say_timings_header();
    memset(&rep, 0, sizeof(rep));
    int rc = czk_synth_porep_shaped(&rep.block, &w0, 10, czk_rng_u64(e->rng), e->pool, &err);
    czk_free(w0);
    if (rc != CZK_OK) {
        fail("synth block", rc, &err);
    } else {
        for (size_t i = 0; i < sizeof(copies) / sizeof(copies[0]); i++) {
            rep.copies = copies[i];
            snprintf(label, sizeof(label), "rep 2^10 x %zu", copies[i]);
            rep_case(label, e, be, &rep, 0, NULL);
        }
    }
    czk_r1cs_rep_clear(&rep);
    rc = wide_block(&rep.block, e->rng, &err);
    if (rc != CZK_OK) {
        fail("wide block", rc, &err);
    } else {
        rep.copies = 2;
        rep_case("rep wide x 2", e, be, &rep, 1, NULL);
    }
    czk_r1cs_rep_clear(&rep);
    for (size_t i = 0; i < sizeof(headed) / sizeof(headed[0]); i++) {
        size_t n_vars = 0;
        rc = czk_synth_rep_headed(&rep, &w0, &n_vars, 10, 8, headed[i], czk_rng_u64(e->rng),
                                  e->pool, &err);
        if (rc != CZK_OK) {
            fail("synth headed rep", rc, &err);
        } else {
            snprintf(label, sizeof(label), "rep 2^8 + 2^10 x %zu", headed[i]);
            rep_case(label, e, be, &rep, 0, w0);
        }
        czk_free(w0);
        w0 = NULL;
        czk_r1cs_rep_clear(&rep);
    }
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
    test_rep(e, be);
    test_batches(e);
    czk_gpu_backend_destroy(be);
}
