/*
 * Streamed whole proofs (the backend's prove_sums for a key attached with *resident = 3):
 * czk__gpu_stream_attach and the proof itself. The pieces both whole-proof paths share are in
 * proof.cuh (defined in resident.cu); the MSM schedule is stream_msm.cu's.
 *
 * Streamed proofs: a key that does not fit on the device beside a proof's working set (a
 * 2^27 PoRep partition on a 16 GB card: 45 GiB of points, 8 GiB of coded matrices) proves
 * from the witness alone. The key's points and the circuit's matrices stay in host memory,
 * page-locked in place (cudaHostRegister: they cross the bus at full speed, and locking
 * memory that is already loaded takes none), and flow through the arena in chunks on a
 * second stream while the context's stream computes on the chunk before.
 *
 * Arena: [V1: 32·n][W: 32·n_vars][V2: 32·n][R: the rest]. First h, which must never hold W
 * and three vectors (17 GB at 2^27), so it keeps two: a = A·W goes to V1 and through its
 * two transforms; b = B·W to V2 and through its two, the second one's stores multiplying
 * into V1 (A·B at the coset); c = C·W to V2, and V1 becomes h (czk__gpu_h_step). Each SpMV
 * streams its matrix's rows in chunks through two buffers in R. Then the five MSMs
 * (stream_msm.cu),
 * their points streamed in batches through V2 + R, the H batches (compute-bound) spread
 * among those of A, B and L (bus-bound), whose scalars W supplies, so that each kind's
 * transfers hide behind the other's work.
 */
#include <cuda_runtime.h>
#include <string.h>

#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/plan.cuh"
#include "gpu/cuda/proof.cuh"
#include "gpu/cuda/prover.cuh"
#include "util/alloc.h"
#include "util/timer.h"

using czk_cuda::fr_t;
using namespace czk_whole;

namespace czk_whole {

/* Bytes of one CSR chunk of rows [r0, r1) in a buffer: row pointers, columns, coefficients
 * of cb bytes each (2 coded, 32 not). */
size_t chunk_bytes(const uint64_t *rp, size_t r0, size_t r1, size_t cb) {
    size_t nnz = (size_t)(rp[r1] - rp[r0]);
    return czk__gpu_align((r1 - r0 + 1) * sizeof(uint64_t)) +
           czk__gpu_align(nnz * sizeof(uint32_t)) + nnz * cb;
}

/* The most rows from r0 (at least one) whose chunk fits `cap` bytes; bytes grow with rows. */
size_t chunk_end(const uint64_t *rp, size_t r0, size_t n_rows, size_t cap, size_t cb) {
    size_t lo = r0 + 1, hi = n_rows;
    while (lo < hi) {
        size_t mid = lo + (hi - lo + 1) / 2;
        if (chunk_bytes(rp, r0, mid, cb) <= cap)
            lo = mid;
        else
            hi = mid - 1;
    }
    return lo;
}

/* The number of entries of the ascending list rows[0 .. n) below r. */
size_t rows_below(const uint32_t *rows, size_t n, size_t r) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (rows[mid] < r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* out (n rows) = M·W for a streamed matrix M (coded when ci, its host indices, is not NULL:
 * dict on the device); see the block above. Queued, not waited for. */
int spmv_streamed(czk__gpu_backend *b, const czk_r1cs_matrix *mat, const uint16_t *ci,
                  const czk_fr *dict, const uint32_t *lr_host, const uint32_t *lr_dev, size_t n_lr,
                  size_t n_c, size_t n_in, size_t n, fr_t *out, const fr_t *d_w, char *slots,
                  size_t slot_bytes, czk_err *err) {
    czk_gpu *g = b->g;
    int rc = CZK_OK;
    czk_fr mone;
    fr_t one_d, mone_d;
    czk_fr_neg(&mone, &CZK_FR_ONE);
    memcpy(&one_d, &CZK_FR_ONE, sizeof(one_d));
    memcpy(&mone_d, &mone, sizeof(mone_d));
    /* The buffers may still be read by the context's stream (the last proof's MSM). */
    CZK_CUDA_TRY(err, cudaEventRecord(b->freed[0], g->stream));
    CZK_CUDA_TRY(err, cudaEventRecord(b->freed[1], g->stream));
    for (size_t r0 = 0, k = 0; r0 < n_c; k++) {
        const size_t cb = ci != NULL ? sizeof(uint16_t) : sizeof(czk_fr);
        const size_t r1 = chunk_end(mat->row_ptr, r0, n_c, slot_bytes, cb), rows = r1 - r0;
        const uint64_t e0 = mat->row_ptr[r0], nnz = mat->row_ptr[r1] - e0;
        char *sl = slots + (k & 1) * slot_bytes;
        uint64_t *d_rp = (uint64_t *)sl;
        uint32_t *d_cols = (uint32_t *)(sl + czk__gpu_align((rows + 1) * sizeof(uint64_t)));
        char *d_coef = (char *)d_cols + czk__gpu_align(nnz * sizeof(uint32_t));
        csr1 m = {d_rp,
                  d_cols,
                  ci != NULL ? nullptr : (const fr_t *)d_coef,
                  ci != NULL ? (const uint16_t *)d_coef : nullptr,
                  (const fr_t *)dict,
                  0,
                  0,
                  czk_r1cs_rep_map{}};
        if (chunk_bytes(mat->row_ptr, r0, r1, cb) > slot_bytes) {
            rc = czk_err_set(err, CZK_EINTERNAL, "gpu: row %zu of %llu entries exceeds a chunk", r0,
                             (unsigned long long)nnz);
            goto out;
        }
        /* The copy waits until the kernel that read this buffer two chunks ago is done. */
        CZK_CUDA_TRY(err, cudaStreamWaitEvent(b->copy_stream, b->freed[k & 1], 0));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d_rp, mat->row_ptr + r0, (rows + 1) * sizeof(uint64_t),
                                          cudaMemcpyHostToDevice, b->copy_stream));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d_cols, mat->cols + e0, nnz * sizeof(uint32_t),
                                          cudaMemcpyHostToDevice, b->copy_stream));
        CZK_CUDA_TRY(err, cudaMemcpyAsync(d_coef,
                                          ci != NULL ? (const void *)(ci + e0)
                                                     : (const void *)(mat->vals + e0),
                                          nnz * cb, cudaMemcpyHostToDevice, b->copy_stream));
        CZK_CUDA_TRY(err, cudaEventRecord(b->ready[k & 1], b->copy_stream));
        CZK_CUDA_TRY(err, cudaStreamWaitEvent(g->stream, b->ready[k & 1], 0));
        {
            /* The chunk's long rows, a warp each: [lo, hi) of the ascending list. */
            const size_t lo = rows_below(lr_host, n_lr, r0), hi = rows_below(lr_host, n_lr, r1);
            CZK_CUDA_TRY(
                err, spmv_long(g->stream, out, m, d_w, lr_dev + lo, hi - lo, r0, one_d, mone_d));
        }
        CZK_CUDA_TRY(err, spmv_chunk(g->stream, out, m, d_w, r0, rows, one_d, mone_d));
        CZK_CUDA_TRY(err, cudaEventRecord(b->freed[k & 1], g->stream));
        r0 = r1;
    }
    CZK_CUDA_TRY(err, spmv_tail(g->stream, out, d_w, n_c, n_in, n));
out:
    return rc;
}

/*
 * A streamed proof's five MSMs for stream_msm.cu: H over h, A and B selected from the
 * witness w by take_a / take_b with the bounds wb (unselected for a dense key), L over w past
 * the inputs; sums to out, times to ns (ns[i] may be NULL). The attach's plan passes NULL
 * arrays: only the sizes and whether an MSM selects count there.
 */
void stream_msm_list(const czk_groth16_pk *pk, const czk_r1cs *cs, const uint8_t *take_a,
                     const uint8_t *take_b, size_t *const wb[3], const char *h, const char *w,
                     czk_backend_sums *out, uint64_t *const ns[5], czk__gpu_stream_msm m[5]) {
    const size_t n_pub1 = cs->n_public + 1;
    const char *w_l = w != NULL ? w + n_pub1 * sizeof(czk_fr) : NULL;
    m[0] = {1, pk->h, pk->n_h, h, NULL, NULL, 1, out != NULL ? &out->h : NULL, ns[0]};
    m[1] = {1, pk->a, pk->n_a, w, take_a, wb[0], 0, out != NULL ? &out->a : NULL, ns[1]};
    m[2] = {1, pk->b_g1, pk->n_b_g1, w, take_b, wb[1], 0, out != NULL ? &out->b_g1 : NULL, ns[2]};
    m[3] = {2, pk->b_g2, pk->n_b_g2, w, take_b, wb[2], 0, out != NULL ? &out->b_g2 : NULL, ns[3]};
    m[4] = {1, pk->l, cs->n_vars - n_pub1, w_l, NULL, NULL, 0, out != NULL ? &out->l : NULL, ns[4]};
}

/* Page-locks [p, p + bytes) in place within the backend's limit, recording it in c. */
void stream_register(czk__gpu_backend *b, resident_circuit *c, const void *p, size_t bytes) {
    if (p == NULL || bytes == 0 || b->registered + bytes > b->register_limit ||
        c->n_reg >= REGISTERED_MAX)
        return;
    if (!host_lock(p, bytes))
        return;
    c->reg[c->n_reg] = p;
    c->reg_bytes[c->n_reg++] = bytes;
    b->registered += bytes;
}

int stream_prove(czk__gpu_backend *b, const resident_key *k, const czk_groth16_pk *pk,
                 const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                 czk_backend_sums *out, czk_groth16_timings *tm, czk_err *err) {
    czk_gpu *g = b->g;
    int rc = CZK_OK;
    const resident_circuit *c = &k->circ;
    const size_t n = pk->domain_size, n_vars = cs->n_vars, n_pub1 = cs->n_public + 1;
    const size_t n_c = cs->n_constraints;
    const unsigned lg = domain_lg(n);
    const size_t a_w = czk__gpu_align(n_vars * sizeof(czk_fr)),
                 a_v = czk__gpu_align(n * sizeof(czk_fr));
    char *base = (char *)b->arena, *v1 = base, *d_w = v1 + a_v, *v2 = d_w + a_w, *r = v2 + a_v;
    const czk_r1cs_matrix *mats[3] = {&cs->a, &cs->b, &cs->c};
    /* The last aligned unit of the arena holds a select's count. */
    int *d_count = (int *)(base + b->arena_bytes - CZK__GPU_ARENA_ALIGN);
    uint64_t *ns[5] = {NULL, NULL, NULL, NULL, NULL};
    uint64_t t0, t1;

    if (b->arena == NULL || b->arena_bytes < c->arena_bytes)
        return czk_err_set(err, CZK_EINTERNAL, "gpu: arena of %zu bytes below the %zu planned",
                           b->arena_bytes, c->arena_bytes);
    t0 = czk_time_ns();
    /* V2 is free until b's SpMV (R is not: the first chunks go there on the copy stream). */
    CZK_TRY(upload_witness(g, d_w, w, wp, n_vars, v2, a_v, err));

    /* 1: a, b, c and h in V1 (see the block above). */
    for (int i = 0; i < 3; i++) {
        fr_t *v = (fr_t *)(i == 0 ? v1 : v2);
        CZK_TRY(spmv_streamed(b, mats[i], c->ci_host[i], c->dict[i], c->long_host[i],
                              c->long_rows[i], c->n_long[i], n_c, i == 0 ? n_pub1 : 0, n, v,
                              (const fr_t *)d_w, r, c->slot_bytes, err));
        CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
        t1 = czk_time_ns();
        if (tm != NULL)
            tm->spmv_ns += t1 - t0;
        /* a to A at the coset in V1, then A·B, then h, in V1 (czk__gpu_h_step). */
        CZK_TRY(czk__gpu_h_step(g, lg, pk->h_basis, &c->omega, &c->omega_2n, i, v, v1, err));
        CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
        t0 = czk_time_ns();
        if (tm != NULL)
            tm->h_ns += t0 - t1;
    }

    /* 2: the five MSMs, their batches interleaved in V2 + R (stream_msm.cu): H over V1, A and
     * B over W's density selections, L over W past the inputs. */
    if (tm != NULL) {
        ns[0] = &tm->msm_h_ns;
        ns[1] = &tm->msm_a_ns;
        ns[2] = &tm->msm_b_g1_ns;
        ns[3] = &tm->msm_b_g2_ns;
        ns[4] = &tm->msm_l_ns;
    }
    {
        czk__gpu_stream_msm msms[5];
        stream_msm_list(pk, cs, c->take_a, c->take_b, c->wb, v1, d_w, out, ns, msms);
        CZK_TRY(czk__gpu_stream_msms(b, msms, 5, &c->layout, v2, d_count, err));
    }
out:
    return rc;
}

} // namespace czk_whole

int czk__gpu_stream_attach(czk__gpu_backend *b, resident_key *k, const czk_groth16_pk *pk,
                           const czk_r1cs *cs, int *placed, czk_err *err) {
    int rc = CZK_OK;
    resident_circuit *c = &k->circ;
    const czk_r1cs_matrix *mats[3] = {&cs->a, &cs->b, &cs->c};
    const size_t n = pk->domain_size;
    const size_t a_w = czk__gpu_align(cs->n_vars * sizeof(czk_fr)),
                 a_v = czk__gpu_align(n * sizeof(czk_fr));
    size_t take = 0, used, avail, region, slot_min = 0, slot_max = 0, arena, nb;
    uint8_t *ta = NULL, *tb = NULL;
    uint16_t *ci[3] = {NULL, NULL, NULL};
    czk_fr *dict[3] = {NULL, NULL, NULL};
    uint32_t *lr[3] = {NULL, NULL, NULL};
    size_t nd[3] = {0, 0, 0}, nl[3] = {0, 0, 0};
    int match = 0;
    *placed = 0;
    memset(c, 0, sizeof(*c));
    if (!shape_ok(pk, cs, cs) || cs->c.row_ptr == NULL)
        return CZK_OK; /* (without C, c = a·b row by row needs a third vector) */
    if (pk->density == CZK_DENSITY_FILTERED)
        take = 2 * czk__gpu_align(cs->n_vars);
    used = czk__gpu_tables_bytes(domain_lg(pk->domain_size)) + b->resident_bytes + take;
    avail = b->budget > used ? b->budget - used : 0;
    if (avail < a_w + 2 * a_v + CZK__GPU_ARENA_ALIGN)
        return CZK_OK;
    /* Coded coefficients cross the bus in 2 bytes instead of 32; their tables stay on the
     * device (counted with the density bytes). */
    for (int i = 0; i < 3; i++) {
        CZK_TRY(coef_code(mats[i], (size_t)mats[i]->row_ptr[cs->n_constraints], &ci[i], &dict[i],
                          &nd[i], err));
        CZK_TRY(long_rows_of(mats[i], cs->n_constraints, &lr[i], &nl[i], err));
        take += czk__gpu_align(nd[i] * sizeof(czk_fr)) + czk__gpu_align(nl[i] * sizeof(uint32_t));
    }
    used = czk__gpu_tables_bytes(domain_lg(pk->domain_size)) + b->resident_bytes + take;
    avail = b->budget > used ? b->budget - used : 0;
    if (avail < a_w + 2 * a_v + CZK__GPU_ARENA_ALIGN)
        goto out;
    region = avail - a_w - a_v - CZK__GPU_ARENA_ALIGN; /* V2 and R */
    /* The SpMV's two chunk buffers in R: a chunk holds at least its largest row and at
     * most its whole matrix. */
    for (int i = 0; i < 3; i++) {
        const uint64_t *rp = mats[i]->row_ptr;
        const size_t cb = ci[i] != NULL ? sizeof(uint16_t) : sizeof(czk_fr);
        size_t most = 0;
        for (size_t r = 0; r < cs->n_constraints; r++)
            most = max_sz(most, (size_t)(rp[r + 1] - rp[r]));
        slot_min = max_sz(slot_min, czk__gpu_align(2 * sizeof(uint64_t)) +
                                        czk__gpu_align(most * sizeof(uint32_t)) + most * cb);
        slot_max = max_sz(slot_max, chunk_bytes(rp, 0, cs->n_constraints, cb));
    }
    if (region < a_v + 2 * slot_min)
        goto out;
    c->slot_bytes = ((region - a_v) / 2) & ~(CZK__GPU_ARENA_ALIGN - 1);
    c->slot_bytes =
        c->slot_bytes < czk__gpu_align(slot_max) ? c->slot_bytes : czk__gpu_align(slot_max);
    /* The MSMs' batches in V2 + R, beside W and h (stream_msm.cu; the plan reads only
     * whether an MSM selects, not the density bytes). */
    {
        const uint8_t selects = 1, *tk = pk->density == CZK_DENSITY_FILTERED ? &selects : NULL;
        size_t *const no_wb[3] = {NULL, NULL, NULL};
        uint64_t *const no_ns[5] = {NULL, NULL, NULL, NULL, NULL};
        czk__gpu_stream_msm msms[5];
        stream_msm_list(pk, cs, tk, tk, no_wb, NULL, NULL, NULL, no_ns, msms);
        CZK_TRY(czk__gpu_stream_plan(b->g, msms, 5, cs->n_vars, region, &c->layout, err));
        if (c->layout.bs == 0) {
            memset(c, 0, sizeof(*c));
            goto out;
        }
    }
    /* The arena: no more of the budget than the chosen buffers use. */
    arena = a_w + a_v + max_sz(a_v + 2 * c->slot_bytes, c->layout.bytes) + CZK__GPU_ARENA_ALIGN;

    CZK_TRY(density_take(pk, cs, NULL, &ta, &tb, &match, err));
    if (!match) {
        memset(c, 0, sizeof(*c));
        goto out;
    }
    if (ta != NULL) {
        /* Where each batch of A, B_G1 and B_G2 starts in the witness (stream_msm.cu). */
        const uint8_t *t[3] = {ta, tb, tb};
        const size_t cnt[3] = {pk->n_a, pk->n_b_g1, pk->n_b_g2};
        for (int i = 0; i < 3; i++)
            CZK_TRY(czk__gpu_stream_bounds(t[i], cs->n_vars, cnt[i],
                                           i == 2 ? c->layout.bs / 2 : c->layout.bs, &c->wb[i], &nb,
                                           err));
    }
    if (b->copy_stream == NULL) {
        CZK_CUDA_TRY(err, cudaStreamCreateWithFlags(&b->copy_stream, cudaStreamNonBlocking));
        for (int i = 0; i < STREAM_SLOTS; i++) {
            CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&b->ready[i], cudaEventDisableTiming));
            CZK_CUDA_TRY(err, cudaEventCreateWithFlags(&b->freed[i], cudaEventDisableTiming));
        }
    }
    CZK_TRY(arena_fit(b, arena, avail, err));
    CZK_TRY(h_roots(pk, c, err));
    k->pk = pk;
    c->cs = cs;
    c->streamed = 1;
    c->bytes = take;
    c->arena_bytes = arena;
    b->resident_bytes += take;
    if (ta != NULL) {
        c->take_bytes = cs->n_vars;
        CZK_TRY(upload(b->g, (void **)&c->take_a, ta, c->take_bytes, err));
        CZK_TRY(upload(b->g, (void **)&c->take_b, tb, c->take_bytes, err));
    }
    for (int i = 0; i < 3; i++) {
        if (ci[i] == NULL)
            continue;
        c->val_bytes[i] = (size_t)mats[i]->row_ptr[cs->n_constraints] * sizeof(uint16_t);
        c->dict_bytes[i] = nd[i] * sizeof(czk_fr);
        CZK_TRY(upload(b->g, (void **)&c->dict[i], dict[i], c->dict_bytes[i], err));
        c->ci_host[i] = ci[i]; /* the circuit's now: freed with it */
        ci[i] = NULL;
    }
    for (int i = 0; i < 3; i++) {
        if (nl[i] == 0)
            continue;
        CZK_TRY(upload(b->g, (void **)&c->long_rows[i], lr[i], nl[i] * sizeof(uint32_t), err));
        c->n_long[i] = nl[i];
        c->long_host[i] = lr[i]; /* kept for the chunks; freed with the circuit */
        lr[i] = NULL;
    }
    /* Largest first: when the limit cannot cover them all, the most traffic goes locked. */
    {
        const void *p[REGISTERED_MAX] = {pk->h, pk->l, pk->a, pk->b_g2, pk->b_g1};
        size_t sz[REGISTERED_MAX] = {
            pk->n_h * sizeof(czk_g1_affine), pk->n_l * sizeof(czk_g1_affine),
            pk->n_a * sizeof(czk_g1_affine), pk->n_b_g2 * sizeof(czk_g2_affine),
            pk->n_b_g1 * sizeof(czk_g1_affine)};
        for (int i = 0; i < 3; i++) {
            uint64_t nnz = mats[i]->row_ptr[cs->n_constraints];
            p[KEY_ARRAYS + 3 * i] =
                c->ci_host[i] != NULL ? (const void *)c->ci_host[i] : (const void *)mats[i]->vals;
            sz[KEY_ARRAYS + 3 * i] =
                (size_t)nnz * (c->ci_host[i] != NULL ? sizeof(uint16_t) : sizeof(czk_fr));
            p[KEY_ARRAYS + 3 * i + 1] = mats[i]->cols;
            sz[KEY_ARRAYS + 3 * i + 1] = (size_t)nnz * sizeof(uint32_t);
            p[KEY_ARRAYS + 3 * i + 2] = mats[i]->row_ptr;
            sz[KEY_ARRAYS + 3 * i + 2] = (cs->n_constraints + 1) * sizeof(uint64_t);
        }
        for (int i = 0; i < REGISTERED_MAX; i++)
            stream_register(b, c, p[i], sz[i]);
    }
    b->arena_min = arena_min_of(b);
    *placed = 1;
out:
    attach_end(b, k, rc, ta, tb, ci, dict, lr);
    if (rc != CZK_OK || !*placed)
        k->pk = NULL; /* k holds nothing: the caller frees it */
    return rc;
}
