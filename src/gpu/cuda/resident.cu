/*
 * Whole proofs from the witness when the key and the circuit are resident on the device:
 * the backend's prove_sums entry (groth16/backend.h), so that only the witness crosses the
 * bus (issue 4, item 4).
 *
 * DESIGN. czk_gpu_backend_attach_key(pk, cs) keeps pk's points and cs's three CSR matrices
 * on the device, with, for a filtered (bellperson) key, one byte per variable saying
 * whether it has an A point and a B point (the density the CPU prover recomputes every
 * proof). A proof then runs, on the context's stream:
 *
 *   1. the witness W (n_vars Fr) up, from the caller's memory (pinned when the engine got
 *      it from the backend's host_alloc);
 *   2. a, b, c = A·W, B·W, C·W, one thread per row, with the input rows a[n_c + i] = w[i]
 *      and zero padding (or c = a·b row by row when C is not stored, as r1cs.c does);
 *      coefficients ±1 (most of a PoRep circuit's) cost an addition, not a product;
 *   3. h in place (czk__gpu_h_device), bit for bit the CPU's quotient;
 *   4. the H MSM over h where it lies; A, B_G1 and B_G2 over W compacted by the density
 *      bytes (CUB DeviceSelect: the same order as the CPU's gather); L over W past the
 *      inputs;
 * and the CPU assembles the proof from the five sums (prove.c).
 *
 * Arena layout (bytes, each part aligned): [W: 32·n_vars][S: 32·max(n_a, n_b)][a/h: 32·n]
 * [R: max(b and c = 2·32·n, the largest MSM's scratch)]. b and c are dead once h is made,
 * so the MSMs' scratch reuses them.
 *
 * Repeated circuits (r1cs/rep.h, czk_gpu_backend_attach_key_rep): a PoSt circuit is copies
 * of one block, 41 GB in CSR at 32 GiB WindowPoSt; a PoRep partition is a head of 571 rows
 * and 18 copies of a challenge. They stay compact on the device (spmv.cuh): the head's rows,
 * their columns mapped into the whole system's numbering, then the block's rows once, which
 * the SpMV maps into each copy as it reads them (rep_place). The coefficients of head and
 * block are coded on the host as one sequence, head first, so that the table is the one the
 * whole system's coding gives (it lists the values in the order they first occur, and the
 * copies repeat the block's). The long-row lists are whole rows (the head's, then the
 * block's offset per copy); the density bytes are czk_r1cs_rep_density's. The circuit's cs
 * is the header of sizes (czk_r1cs_rep_dims): a proof reads only its sizes, never its
 * matrices. Expanded on the device instead, a 32 GiB PoRep partition took 7.2 GB there and
 * did not fit an 80 GB card beside its key and working set (BENCHMARKS.md run 105).
 */
#include <cub/device/device_select.cuh>
#include <cuda_runtime.h>
#include <pthread.h>
#include <string.h>
#include <thread>
#include <vector>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/ff/mont.cuh"
#include "gpu/cuda/internal.cuh"
#include "gpu/cuda/plan.cuh"
#include "gpu/cuda/proof.cuh"
#include "gpu/cuda/prover.cuh"
#include "poly/ntt.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/timer.h"

using czk_cuda::fr_t;
using namespace czk_whole;

namespace czk_whole {

/*
 * Coded coefficients. A circuit's matrices hold 32-byte coefficients, but a PoRep circuit
 * has a few hundred distinct ones (±1, powers of two, small constants) among ~840 M entries
 * at 2^27: stored as 16-bit indices into a table of the distinct values, the matrices take
 * 6 bytes an entry on the device or the bus instead of 36 (28 GiB become 5). A matrix with
 * more than CODE_MAX distinct values keeps its values.
 */
#define CODE_MAX 65536

/* A set of Fr values by open addressing, each with its index (the order of insertion). */
struct coef_set {
    std::vector<czk_fr> vals;
    std::vector<int32_t> slot; /* index into vals, −1 empty; a power of two, over 2·CODE_MAX */
    coef_set() : slot((size_t)1 << 18, -1) {
    }
    static size_t hash(const czk_fr &v) {
        uint64_t l[4];
        memcpy(l, &v, sizeof(l));
        uint64_t h = l[0] ^ (l[1] * 0x9e3779b97f4a7c15ull) ^ (l[2] * 0xc2b2ae3d27d4eb4full) ^
                     (l[3] * 0x165667b19e3779f9ull);
        return (size_t)((h * 0xff51afd7ed558ccdull) >> 46); /* 18 bits */
    }
    /* The index of v, inserting it when absent and `add`; −1 when absent and not added. */
    int32_t find(const czk_fr &v, bool add) {
        for (size_t s = hash(v);; s = (s + 1) & (slot.size() - 1)) {
            if (slot[s] < 0) {
                if (!add)
                    return -1;
                slot[s] = (int32_t)vals.size();
                vals.push_back(v);
                return slot[s];
            }
            if (memcmp(&vals[(size_t)slot[s]], &v, sizeof(v)) == 0)
                return slot[s];
        }
    }
};

/* The coefficients a table codes: head[0 .. n_head) and then vals, as one sequence (a
 * repeated system's head and block; n_head 0 for one matrix). */
struct coef_seq {
    const czk_fr *head;
    size_t n_head;
    const czk_fr *vals;
    const czk_fr &operator[](size_t e) const {
        return e < n_head ? head[e] : vals[e - n_head];
    }
};

/*
 * Codes the nnz coefficients of v (see above): *ci (czk_malloc'ed, nnz indices) and *dict
 * (czk_malloc'ed, *n_dict values, dict[0] = 1, dict[1] = −1, then the others in the order
 * they first occur in v); both NULL when v has more than CODE_MAX distinct values with ±1.
 * Threads over ranges of entries: a table per range, merged in range order (so the table is
 * that order whatever the threads), then the indices.
 */
int coef_code_seq(const coef_seq &v, size_t nnz, uint16_t **ci, czk_fr **dict, size_t *n_dict,
                  czk_err *err) {
    int rc = CZK_OK;
    czk_fr mone;
    unsigned T = std::thread::hardware_concurrency();
    *ci = NULL;
    *dict = NULL;
    *n_dict = 0;
    if (nnz == 0)
        return CZK_OK;
    T = T == 0 ? 1 : T > 16 ? 16 : T;
    if ((size_t)T > nnz / 4096 + 1)
        T = (unsigned)(nnz / 4096 + 1);
    czk_fr_neg(&mone, &CZK_FR_ONE);
    auto is_pm1 = [&](const czk_fr &x) {
        return memcmp(&x, &CZK_FR_ONE, sizeof(x)) == 0 || memcmp(&x, &mone, sizeof(x)) == 0;
    };
    std::vector<coef_set> local(T);
    std::vector<int> over(T, 0);
    std::vector<std::thread> th;
    coef_set all;
    all.find(CZK_FR_ONE, true);
    all.find(mone, true);
    for (unsigned t = 0; t < T; t++)
        th.emplace_back([&, t] {
            size_t e0 = nnz * t / T, e1 = nnz * (t + 1) / T;
            const czk_fr *last = NULL;
            for (size_t e = e0; e < e1; e++) {
                if (is_pm1(v[e]) || (last != NULL && memcmp(last, &v[e], sizeof(czk_fr)) == 0))
                    continue;
                last = &v[e];
                local[t].find(v[e], true);
                if (local[t].vals.size() >= CODE_MAX) {
                    over[t] = 1;
                    return;
                }
            }
        });
    for (auto &x : th)
        x.join();
    th.clear();
    for (unsigned t = 0; t < T; t++) {
        if (over[t])
            return CZK_OK;
        for (const czk_fr &x : local[t].vals) {
            all.find(x, true);
            if (all.vals.size() > CODE_MAX)
                return CZK_OK;
        }
    }
    *ci = (uint16_t *)czk_malloc(nnz * sizeof(uint16_t));
    *dict = (czk_fr *)czk_malloc(all.vals.size() * sizeof(czk_fr));
    if (*ci == NULL || *dict == NULL) {
        czk_free(*ci);
        czk_free(*dict);
        *ci = NULL;
        *dict = NULL;
        return czk_err_set(err, CZK_ENOMEM, "gpu: coded coefficients of %zu entries", nnz);
    }
    memcpy(*dict, all.vals.data(), all.vals.size() * sizeof(czk_fr));
    *n_dict = all.vals.size();
    for (unsigned t = 0; t < T; t++)
        th.emplace_back([&, t] {
            size_t e0 = nnz * t / T, e1 = nnz * (t + 1) / T;
            uint16_t last_k = 0;
            const czk_fr *last = &CZK_FR_ONE;
            for (size_t e = e0; e < e1; e++) {
                if (memcmp(last, &v[e], sizeof(czk_fr)) != 0) {
                    last = &v[e];
                    last_k = (uint16_t)all.find(v[e], false);
                }
                (*ci)[e] = last_k;
            }
        });
    for (auto &x : th)
        x.join();
    return rc;
}

int coef_code(const czk_r1cs_matrix *m, size_t nnz, uint16_t **ci, czk_fr **dict, size_t *n_dict,
              czk_err *err) {
    return coef_code_seq(coef_seq{NULL, 0, m->vals}, nnz, ci, dict, n_dict, err);
}

/* The arena a whole proof of (pk, cs) needs when no MSM batch exceeds `cap` points; see the
 * layout in the DESIGN block. */
int sums_arena_bytes(czk_gpu *g, const czk_groth16_pk *pk, const czk_r1cs *cs, size_t cap,
                     size_t *bytes, czk_err *err) {
    int rc = CZK_OK;
    const size_t n = pk->domain_size;
    const size_t m = max_sz(pk->n_a, pk->n_b_g1);
    size_t scratch = 0, s = 0;
    const size_t sizes[4] = {pk->n_h, pk->n_a, pk->n_b_g1, pk->n_l};
    size_t sel = 0;
    /* msm_capped runs batches of cap points and a remainder. */
    CZK_TRY(czk__gpu_batch_scratch(g, 1, sizes, 4, cap, &scratch, err));
    CZK_TRY(czk__gpu_batch_scratch(g, 2, &pk->n_b_g2, 1, cap, &s, err));
    scratch = max_sz(scratch, s);
    /* CUB's select storage also lives in R (before the MSM that follows it). */
    CZK_CUDA_TRY(err, cub::DeviceSelect::Flagged(nullptr, sel, (const fr_t *)nullptr,
                                                 (const uint8_t *)nullptr, (fr_t *)nullptr,
                                                 (int *)nullptr, (int)cs->n_vars));
    scratch = max_sz(scratch, sel);
    /* The last aligned unit of R holds the select's count (czk__gpu_prove_sums). */
    *bytes = czk__gpu_align(cs->n_vars * sizeof(czk_fr)) + czk__gpu_align(m * sizeof(czk_fr)) +
             czk__gpu_align(n * sizeof(czk_fr)) +
             max_sz(2 * czk__gpu_align(n * sizeof(czk_fr)), czk__gpu_align(scratch)) +
             CZK__GPU_ARENA_ALIGN;
out:
    return rc;
}

/* One MSM of n device points and scalars in batches of at most cap points (each a complete
 * device MSM with its own 0/1 split), the partial sums added on the host. */
template <class G>
int msm_capped(czk_gpu *g, typename G::jacobian *out, const void *pts, const void *sc, size_t n,
               size_t cap, void *scratch, size_t scratch_bytes, czk_err *err) {
    int rc = CZK_OK;
    typename G::jacobian part;
    G::set_infinity(out);
    for (size_t off = 0; off < n; off += cap) {
        size_t m = n - off < cap ? n - off : cap;
        CZK_TRY(G::run(g, &part, (const char *)pts + off * sizeof(typename G::affine),
                       (const char *)sc + off * sizeof(czk_fr), m, scratch, scratch_bytes, err));
        G::add(out, out, &part);
    }
out:
    return rc;
}

/* The largest arena any resident circuit needs. */
size_t arena_min_of(const czk__gpu_backend *b) {
    size_t m = 0;
    for (const resident_key *k = b->keys; k != NULL; k = k->next)
        if (k->pk != NULL && k->circ.cs != NULL)
            m = max_sz(m, k->circ.arena_bytes);
    return m;
}

/*
 * Page-locked host ranges are the process's, not a device's (cudaHostRegister with the
 * portable flag serves every device), while keys are attached per backend: when several
 * devices stream one key they share one registration, counted here, and the last detach
 * unlocks it. (cudaHostRegister refuses a range already registered, which would otherwise
 * leave the second device streaming from pageable memory.)
 */
#define HOST_LOCKS 256
struct host_lock_entry {
    const void *p;
    size_t bytes;
    int refs;
};
pthread_mutex_t host_lock_mu = PTHREAD_MUTEX_INITIALIZER;
host_lock_entry host_locks[HOST_LOCKS];

/* Locks [p, p + bytes) or adds a reference to its lock; false when it cannot be locked. */
bool host_lock(const void *p, size_t bytes) {
    bool ok = false;
    int free_slot = -1;
    pthread_mutex_lock(&host_lock_mu);
    for (int i = 0; i < HOST_LOCKS && !ok; i++) {
        if (host_locks[i].refs > 0 && host_locks[i].p == p && host_locks[i].bytes == bytes) {
            host_locks[i].refs++;
            ok = true;
        } else if (host_locks[i].refs == 0 && free_slot < 0) {
            free_slot = i;
        }
    }
    if (!ok && free_slot >= 0) {
        if (cudaHostRegister((void *)p, bytes, cudaHostRegisterPortable) == cudaSuccess) {
            host_locks[free_slot] = host_lock_entry{p, bytes, 1};
            ok = true;
        } else {
            /* Not lockable (a read-only file mapping, the locked-memory limit, a range that
             * overlaps one locked elsewhere): streamed from pageable memory, slower. */
            (void)cudaGetLastError();
        }
    }
    pthread_mutex_unlock(&host_lock_mu);
    return ok;
}

/* Drops a reference that host_lock(p, bytes) gave; the last one unlocks the range. */
void host_unlock(const void *p, size_t bytes) {
    pthread_mutex_lock(&host_lock_mu);
    for (int i = 0; i < HOST_LOCKS; i++) {
        if (host_locks[i].refs > 0 && host_locks[i].p == p && host_locks[i].bytes == bytes) {
            if (--host_locks[i].refs == 0)
                (void)cudaHostUnregister((void *)p);
            break;
        }
    }
    pthread_mutex_unlock(&host_lock_mu);
}

/* One device copy of `bytes` host bytes, counted in the context; done when it returns. On
 * g's stream, which the kernels that read it use (a cudaMemcpy from pageable memory may
 * return before its copy has landed, and the stream does not wait for the legacy one). */
int upload(czk_gpu *g, void **dev, const void *host, size_t bytes, czk_err *err) {
    int rc = CZK_OK;
    *dev = NULL;
    if (bytes == 0)
        return CZK_OK;
    CZK_TRY(czk__gpu_malloc(g, dev, bytes, err));
    CZK_CUDA_TRY(err, cudaMemcpyAsync(*dev, host, bytes, cudaMemcpyHostToDevice, g->stream));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
out:
    return rc;
}

} // namespace czk_whole

void czk__gpu_circuit_free(czk__gpu_backend *b, resident_key *k) {
    resident_circuit *c = &k->circ;
    if (c->cs == NULL)
        return;
    for (int i = 0; i < 3; i++) {
        czk__gpu_free(b->g, c->row_ptr[i], c->row_bytes[i]);
        czk__gpu_free(b->g, c->cols[i], c->col_bytes[i]);
        czk__gpu_free(b->g, c->vals[i], c->val_bytes[i]);
        czk__gpu_free(b->g, c->ci[i], c->val_bytes[i]);
        czk__gpu_free(b->g, c->dict[i], c->dict_bytes[i]);
        czk__gpu_free(b->g, c->long_rows[i], c->n_long[i] * sizeof(uint32_t));
    }
    czk__gpu_free(b->g, c->take_a, c->take_bytes);
    czk__gpu_free(b->g, c->take_b, c->take_bytes);
    for (int i = 0; i < c->n_reg; i++) {
        host_unlock(c->reg[i], c->reg_bytes[i]);
        b->registered -= c->reg_bytes[i];
    }
    for (int i = 0; i < 3; i++) {
        czk_free(c->ci_host[i]); /* after its unregistration above */
        czk_free(c->wb[i]);
        czk_free(c->long_host[i]);
    }
    b->resident_bytes -= c->bytes;
    memset(c, 0, sizeof(*c));
    /* The arena keeps its size (shrinking would cost a device-wide synchronisation); later
     * plans only stop asking for it. */
    b->arena_min = arena_min_of(b);
}

namespace czk_whole {

/* Whether (pk, cs with rows's matrices) has a shape whole proofs take; others go step by
 * step. */
bool shape_ok(const czk_groth16_pk *pk, const czk_r1cs *cs, const czk_r1cs *rows) {
    return cs->n_vars == pk->n_vars && cs->n_public == pk->n_public &&
           cs->n_constraints + cs->n_public + 1 <= pk->domain_size && rows->a.row_ptr != NULL &&
           rows->b.row_ptr != NULL && cs->n_vars <= 0x7fffffffu &&
           domain_lg(pk->domain_size) >= H_MIN_LG &&
           domain_lg(pk->domain_size) <= CZK_GPU_NTT_MAX_LG;
}

/*
 * For a filtered key, the density bytes as the CPU prover's gather selects (prove.c), on
 * the host: *ta, *tb (czk_free them), left NULL for a dense key. *match = 0 when their counts
 * disagree with pk's (the prover then reports the mismatch on the step-by-step path). The
 * bitmaps are cs's, or rep's (czk_r1cs_rep_density, the same bits) when rep is not NULL.
 */
int density_take(const czk_groth16_pk *pk, const czk_r1cs *cs, const czk_r1cs_rep *rep,
                 uint8_t **ta, uint8_t **tb, int *match, czk_err *err) {
    int rc = CZK_OK;
    uint64_t *a_bits = NULL, *b_bits = NULL;
    size_t words = (cs->n_vars + 63) / 64, na = 0, nb = 0;
    *ta = *tb = NULL;
    *match = 1;
    if (pk->density != CZK_DENSITY_FILTERED)
        return CZK_OK;
    a_bits = (uint64_t *)czk_calloc(words, sizeof(uint64_t));
    b_bits = (uint64_t *)czk_calloc(words, sizeof(uint64_t));
    *ta = (uint8_t *)czk_malloc(cs->n_vars);
    *tb = (uint8_t *)czk_malloc(cs->n_vars);
    if (a_bits == NULL || b_bits == NULL || *ta == NULL || *tb == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "resident circuit: density of %zu variables", cs->n_vars);
        goto out;
    }
    if (rep != NULL)
        CZK_TRY(czk_r1cs_rep_density(rep, a_bits, b_bits, err));
    else
        CZK_TRY(czk_r1cs_density(cs, a_bits, b_bits));
    for (size_t v = 0; v < cs->n_vars; v++) {
        (*ta)[v] = (uint8_t)(v < cs->n_public + 1 || ((a_bits[v / 64] >> (v % 64)) & 1));
        (*tb)[v] = (uint8_t)((b_bits[v / 64] >> (v % 64)) & 1);
        na += (*ta)[v];
        nb += (*tb)[v];
    }
    *match = na == pk->n_a && nb == pk->n_b_g1;
out:
    czk_free(a_bits);
    czk_free(b_bits);
    return rc;
}

/* The h step's roots, once: a proof needs only these two of its domain. */
int h_roots(const czk_groth16_pk *pk, resident_circuit *c, czk_err *err) {
    int rc = CZK_OK;
    czk_ntt_domain *dom = NULL;
    CZK_TRY(czk_ntt_domain_create(
        &dom, domain_lg(pk->domain_size),
        pk->h_basis == CZK_H_MONOMIAL ? CZK_NTT_ROOT_BELLPERSON : CZK_NTT_ROOT_SNARKJS, err));
    c->omega = *czk_ntt_domain_omega(dom);
    c->omega_2n = *czk_ntt_domain_omega_2n(dom);
    czk_ntt_domain_destroy(dom);
out:
    return rc;
}

/* Makes the arena at least `arena` bytes and at most `avail` (what the budget leaves it):
 * reallocated when it is smaller, or larger than avail (a device-wide synchronisation, at
 * attach time only; the old arena goes first so that the new one fits). */
int arena_fit(czk__gpu_backend *b, size_t arena, size_t avail, czk_err *err) {
    int rc = CZK_OK;
    if (b->arena != NULL && b->arena_bytes >= arena && b->arena_bytes <= avail)
        return CZK_OK;
    b->h_host = NULL;
    czk__gpu_free(b->g, b->arena, b->arena_bytes);
    b->arena = NULL;
    b->arena_bytes = 0;
    CZK_TRY(czk__gpu_malloc(b->g, &b->arena, arena, err));
    b->arena_bytes = arena;
out:
    return rc;
}

/* The end of an attach: on failure, what was placed of k's circuit goes; the host arrays
 * the attach made go either way. */
void attach_end(czk__gpu_backend *b, resident_key *k, int rc, uint8_t *ta, uint8_t *tb,
                uint16_t *const ci[3], czk_fr *const dict[3], uint32_t *const lr[3]) {
    resident_circuit *c = &k->circ;
    if (rc != CZK_OK && c->cs != NULL) {
        czk__gpu_circuit_free(b, k);
    } else if (rc != CZK_OK) {
        for (int i = 0; i < 3; i++)
            czk_free(c->wb[i]);
        memset(c, 0, sizeof(*c));
    }
    czk_free(ta);
    czk_free(tb);
    for (int i = 0; i < 3; i++) {
        czk_free(ci[i]);
        czk_free(dict[i]);
        czk_free(lr[i]);
    }
}

/* The rows of m (n_rows of them) with more than LONG_ROW entries, ascending: *rows
 * (czk_malloc'ed; NULL and *count 0 when there are none). */
int long_rows_of(const czk_r1cs_matrix *m, size_t n_rows, uint32_t **rows, size_t *count,
                 czk_err *err) {
    const uint64_t *rp = m->row_ptr;
    size_t k = 0;
    *rows = NULL;
    *count = 0;
    if (rp == NULL)
        return CZK_OK;
    for (size_t r = 0; r < n_rows; r++)
        k += rp[r + 1] - rp[r] > LONG_ROW;
    if (k == 0)
        return CZK_OK;
    *rows = (uint32_t *)czk_malloc(k * sizeof(uint32_t));
    if (*rows == NULL)
        return czk_err_set(err, CZK_ENOMEM, "gpu: a list of %zu long rows", k);
    k = 0;
    for (size_t r = 0; r < n_rows; r++)
        if (rp[r + 1] - rp[r] > LONG_ROW)
            (*rows)[k++] = (uint32_t)r;
    *count = k;
    return CZK_OK;
}

} // namespace czk_whole

extern "C" size_t czk_gpu_attach_host_bytes(const czk_r1cs *cs) {
    const czk_r1cs_matrix *mats[3] = {&cs->a, &cs->b, &cs->c};
    size_t bytes = 2 * cs->n_vars + ((size_t)64 << 10); /* density bytes, batch bounds */
    for (int i = 0; i < 3; i++) {
        if (mats[i]->row_ptr == NULL)
            continue;
        const size_t nnz = (size_t)mats[i]->row_ptr[cs->n_constraints];
        /* A coded index an entry and its value table (≤ CODE_MAX values); a long row has
         * more than LONG_ROW entries. */
        bytes += nnz * sizeof(uint16_t) + CODE_MAX * sizeof(czk_fr) +
                 nnz / (LONG_ROW + 1) * sizeof(uint32_t);
    }
    return bytes;
}

namespace czk_whole {

/* Matrix i (0 = A, 1 = B, 2 = C) of cs. */
inline const czk_r1cs_matrix *matrix_at(const czk_r1cs *cs, int i) {
    return i == 0 ? &cs->a : i == 1 ? &cs->b : &cs->c;
}

/* Where an attach reads a circuit: cs's own matrices (rep NULL), or rep's head and block and
 * the block's copies, cs then holding the whole system's sizes (czk_r1cs_rep_dims). */
struct circuit_src {
    const czk_r1cs *cs;
    const czk_r1cs_rep *rep;
    /* The system whose matrices are stored: cs, or the block. */
    const czk_r1cs *rows() const {
        return rep != NULL ? &rep->block : cs;
    }
    size_t copies() const {
        return rep != NULL ? rep->copies : 1;
    }
    /* The head's rows before the copies: 0 for cs or a rep without a head. */
    size_t head_rows() const {
        return rep != NULL ? rep->head.n_constraints : 0;
    }
    /* Matrix i of the head, NULL without head rows (czk_r1cs_rep_dims has checked that a
     * head with rows stores the matrices the block does). */
    const czk_r1cs_matrix *head(int i) const {
        return head_rows() > 0 ? matrix_at(&rep->head, i) : NULL;
    }
    /* The head's entries of matrix i. */
    uint64_t head_nnz(int i) const {
        return head(i) != NULL ? head(i)->row_ptr[head_rows()] : 0;
    }
};

/* A coefficient as the kernels copy it when the matrix is not coded. */
struct coef32 {
    uint4 lo, hi;
};

/* A part's row pointers from its first row on (rp): rp[j] = nnz0 + brp[j] for j <= R (nnz0:
 * the entries before the part). */
__global__ void part_rows_kernel(uint64_t *rp, const uint64_t *brp, uint64_t R, uint64_t nnz0) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t j = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; j <= R; j += stride)
        rp[j] = nnz0 + brp[j];
}

/* A part's entries from its first entry on: its columns mapped by m (as copy 0), its
 * coefficients (codes or values) as they are. */
template <class V>
__global__ void part_entries_kernel(uint32_t *cols, V *vals, const uint32_t *bcols, const V *bvals,
                                    uint64_t nnz, czk_r1cs_rep_map m) {
    const uint64_t stride = (uint64_t)gridDim.x * blockDim.x;
    for (uint64_t t = (uint64_t)blockIdx.x * blockDim.x + threadIdx.x; t < nnz; t += stride) {
        cols[t] = rep_col(m, 0, bcols[t]);
        vals[t] = bvals[t];
    }
}

/* A grid for `per` items: up to 4,096 blocks of 256. */
unsigned part_grid(uint64_t per) {
    const uint64_t x = (per + 255) / 256;
    return (unsigned)(x < 1 ? 1 : x > 4096 ? 4096 : x);
}

/* One part of a repeated system (the head or the block) in c's matrix i (its arrays
 * allocated): m's R rows from row row0 and entry nnz0 on, columns mapped by map, coefficients
 * ci's codes (c's matrix coded) or m's values. The part's arrays go up, kernels write them
 * into the resident arrays, and the part's arrays go. */
int rep_part(czk_gpu *g, resident_circuit *c, int i, const czk_r1cs_matrix *m, const uint16_t *ci,
             uint64_t R, uint64_t row0, uint64_t nnz0, const czk_r1cs_rep_map &map, czk_err *err) {
    int rc = CZK_OK;
    const bool coded = c->ci[i] != NULL;
    const uint64_t nnz = m->row_ptr[R];
    const size_t b_rows = (R + 1) * sizeof(uint64_t), b_cols = nnz * sizeof(uint32_t),
                 b_vals = nnz * (coded ? sizeof(uint16_t) : sizeof(czk_fr));
    void *d_rp = NULL, *d_cols = NULL, *d_vals = NULL;
    CZK_TRY(upload(g, &d_rp, m->row_ptr, b_rows, err));
    part_rows_kernel<<<part_grid(R + 1), 256, 0, g->stream>>>(c->row_ptr[i] + row0,
                                                              (const uint64_t *)d_rp, R, nnz0);
    CZK_CUDA_TRY(err, cudaGetLastError());
    if (nnz > 0) {
        const unsigned grid = part_grid(nnz);
        CZK_TRY(upload(g, &d_cols, m->cols, b_cols, err));
        CZK_TRY(upload(g, &d_vals, coded ? (const void *)ci : (const void *)m->vals, b_vals, err));
        if (coded)
            part_entries_kernel<uint16_t><<<grid, 256, 0, g->stream>>>(
                c->cols[i] + nnz0, c->ci[i] + nnz0, (const uint32_t *)d_cols,
                (const uint16_t *)d_vals, nnz, map);
        else
            part_entries_kernel<coef32><<<grid, 256, 0, g->stream>>>(
                c->cols[i] + nnz0, (coef32 *)c->vals[i] + nnz0, (const uint32_t *)d_cols,
                (const coef32 *)d_vals, nnz, map);
        CZK_CUDA_TRY(err, cudaGetLastError());
    }
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream); /* nothing may still read the part's arrays */
    czk__gpu_free(g, d_rp, b_rows);
    czk__gpu_free(g, d_cols, b_cols);
    czk__gpu_free(g, d_vals, b_vals);
    return rc;
}

/* A column map that leaves every column as it is (rep_col: c ≤ gp). */
const czk_r1cs_rep_map REP_MAP_SAME = {UINT64_MAX, 0, 0, 0, 0};

/*
 * Matrix i of a repeated system into c's arrays (their sizes set), compact (spmv.cuh): the
 * head's rows with their columns mapped into the whole system's numbering, then the block's
 * rows once with the block's columns as they are, rep_part each; ci: the head's codes and
 * then the block's (coef_code_seq), NULL when the matrix is not coded.
 */
int rep_place(czk_gpu *g, resident_circuit *c, int i, const circuit_src &src, const uint16_t *ci,
              czk_err *err) {
    int rc = CZK_OK;
    const czk_r1cs_rep *rep = src.rep;
    const uint64_t H = src.head_rows(), h_nnz = src.head_nnz(i);
    CZK_TRY(czk__gpu_malloc(g, (void **)&c->row_ptr[i], c->row_bytes[i], err));
    if (c->col_bytes[i] > 0) {
        CZK_TRY(czk__gpu_malloc(g, (void **)&c->cols[i], c->col_bytes[i], err));
        CZK_TRY(czk__gpu_malloc(g, ci != NULL ? (void **)&c->ci[i] : (void **)&c->vals[i],
                                c->val_bytes[i], err));
    }
    /* The head's last row pointer is the block's first: both parts write h_nnz there. */
    if (H > 0)
        CZK_TRY(rep_part(g, c, i, src.head(i), ci, H, 0, 0, czk_r1cs_rep_map_of(rep, 1), err));
    CZK_TRY(rep_part(g, c, i, matrix_at(&rep->block, i), ci != NULL ? ci + h_nnz : NULL,
                     rep->block.n_constraints, H, h_nnz, REP_MAP_SAME, err));
out:
    return rc;
}

/* The long rows of matrix i of a repeated system, ascending: the head's as they are, then
 * the block's offset by H + s·R in copy s, copy by copy. *rows (czk_malloc'ed; NULL and
 * *count 0 when there are none). */
int long_rows_rep(const circuit_src &src, int i, uint32_t **rows, size_t *count, czk_err *err) {
    int rc = CZK_OK;
    const size_t H = src.head_rows(), R = src.rep->block.n_constraints, copies = src.copies();
    uint32_t *hl = NULL, *bl = NULL;
    size_t nh = 0, nb = 0;
    *rows = NULL;
    *count = 0;
    if (H > 0)
        CZK_TRY(long_rows_of(src.head(i), H, &hl, &nh, err));
    CZK_TRY(long_rows_of(matrix_at(&src.rep->block, i), R, &bl, &nb, err));
    if (nh + nb == 0)
        goto out;
    *rows = (uint32_t *)czk_malloc((nh + nb * copies) * sizeof(uint32_t));
    if (*rows == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "gpu: a list of %zu long rows", nh + nb * copies);
        goto out;
    }
    if (nh > 0)
        memcpy(*rows, hl, nh * sizeof(uint32_t));
    for (size_t s = 0; s < copies; s++)
        for (size_t j = 0; j < nb; j++)
            (*rows)[nh + s * nb + j] = (uint32_t)(H + s * R + bl[j]);
    *count = nh + nb * copies;
out:
    czk_free(hl);
    czk_free(bl);
    return rc;
}

/*
 * czk__gpu_circuit_attach for either source: the coefficients are coded (a repeated
 * system's head and block as one sequence, head first: their codes and table are the whole
 * system's, since coef_code_seq's table lists the values in the order they first occur and
 * the copies repeat the block's entries, so they add none; and the matrix stays uncoded
 * exactly when the whole system's would), sizes and the arena planned, then the arrays
 * placed: uploaded whole, or expanded from the head and the block.
 */
int circuit_attach(czk__gpu_backend *b, resident_key *k, const circuit_src &src, int *placed,
                   czk_err *err) {
    int rc = CZK_OK;
    const czk_groth16_pk *pk = k->pk;
    const czk_r1cs *cs = src.cs, *rows = src.rows();
    resident_circuit *c = &k->circ;
    const czk_r1cs_matrix *mats[3] = {&rows->a, &rows->b, &rows->c};
    uint8_t *ta = NULL, *tb = NULL;
    uint16_t *ci[3] = {NULL, NULL, NULL};
    czk_fr *dict[3] = {NULL, NULL, NULL};
    uint32_t *lr[3] = {NULL, NULL, NULL};
    size_t nl[3] = {0, 0, 0};
    size_t arena = 0, total = 0, avail;
    int match = 0;
    *placed = 0;
    if (!shape_ok(pk, cs, rows))
        return CZK_OK; /* not a shape the resident path takes: proofs go step by step */
    for (int i = 0; i < 3; i++) {
        if (mats[i]->row_ptr == NULL)
            continue;
        const czk_r1cs_matrix *hm = src.head(i);
        const uint64_t nnz = mats[i]->row_ptr[rows->n_constraints], h_nnz = src.head_nnz(i);
        /* The entries held: the whole system's, or a repeated one's head and block once. */
        const uint64_t held = h_nnz + nnz;
        size_t nd = 0;
        CZK_TRY(coef_code_seq(coef_seq{hm != NULL ? hm->vals : NULL, (size_t)h_nnz, mats[i]->vals},
                              (size_t)(h_nnz + nnz), &ci[i], &dict[i], &nd, err));
        c->row_bytes[i] = (src.head_rows() + rows->n_constraints + 1) * sizeof(uint64_t);
        c->col_bytes[i] = (size_t)held * sizeof(uint32_t);
        c->val_bytes[i] = (size_t)held * (ci[i] != NULL ? sizeof(uint16_t) : sizeof(czk_fr));
        c->dict_bytes[i] = nd * sizeof(czk_fr);
        if (src.rep != NULL)
            CZK_TRY(long_rows_rep(src, i, &lr[i], &nl[i], err));
        else
            CZK_TRY(long_rows_of(mats[i], rows->n_constraints, &lr[i], &nl[i], err));
        total += czk__gpu_align(c->row_bytes[i]) + czk__gpu_align(c->col_bytes[i]) +
                 czk__gpu_align(c->val_bytes[i]) + czk__gpu_align(c->dict_bytes[i]) +
                 czk__gpu_align(nl[i] * sizeof(uint32_t));
    }
    if (pk->density == CZK_DENSITY_FILTERED) {
        c->take_bytes = cs->n_vars;
        total += 2 * czk__gpu_align(c->take_bytes);
    }
    /* The largest MSM batch (halving from the largest MSM, down to 2^20 points) whose whole
     * proof's arena fits beside the resident key and this circuit; the arena is reallocated
     * to exactly that when it is larger (its MSM-streaming plan is no longer needed). */
    {
        size_t cap = max_sz(max_sz(pk->n_a, pk->n_b_g1), max_sz(pk->n_l, pk->n_h));
        size_t used = czk__gpu_tables_bytes(domain_lg(pk->domain_size)) + b->resident_bytes + total;
        avail = b->budget > used ? b->budget - used : 0;
        for (;;) {
            CZK_TRY(sums_arena_bytes(b->g, pk, cs, cap, &arena, err));
            if (arena <= avail || cap <= ((size_t)1 << 20))
                break;
            cap = (cap + 1) / 2;
        }
        if (arena > avail) {
            memset(c, 0, sizeof(*c));
            goto out; /* does not fit: the key's points stay resident, proofs go step by step */
        }
        c->cap = cap;
    }
    CZK_TRY(density_take(pk, cs, src.rep, &ta, &tb, &match, err));
    if (!match) {
        memset(c, 0, sizeof(*c));
        goto out;
    }
    CZK_TRY(arena_fit(b, arena, avail, err));
    CZK_TRY(h_roots(pk, c, err));
    c->cs = cs;
    c->bytes = total;
    c->arena_bytes = arena;
    if (src.rep != NULL && (src.copies() > 1 || src.head_rows() > 0)) {
        c->rep_h = src.head_rows();
        c->rep_r = rows->n_constraints;
        c->rep_map = czk_r1cs_rep_map_of(src.rep, 0);
    }
    b->resident_bytes += total;
    for (int i = 0; i < 3; i++) {
        if (mats[i]->row_ptr == NULL)
            continue;
        if (src.rep != NULL) {
            CZK_TRY(rep_place(b->g, c, i, src, ci[i], err));
        } else {
            CZK_TRY(upload(b->g, (void **)&c->row_ptr[i], mats[i]->row_ptr, c->row_bytes[i], err));
            CZK_TRY(upload(b->g, (void **)&c->cols[i], mats[i]->cols, c->col_bytes[i], err));
            if (ci[i] != NULL)
                CZK_TRY(upload(b->g, (void **)&c->ci[i], ci[i], c->val_bytes[i], err));
            else
                CZK_TRY(upload(b->g, (void **)&c->vals[i], mats[i]->vals, c->val_bytes[i], err));
        }
        if (ci[i] != NULL)
            CZK_TRY(upload(b->g, (void **)&c->dict[i], dict[i], c->dict_bytes[i], err));
        if (nl[i] > 0) {
            CZK_TRY(upload(b->g, (void **)&c->long_rows[i], lr[i], nl[i] * sizeof(uint32_t), err));
            c->n_long[i] = nl[i];
        }
    }
    if (ta != NULL) {
        CZK_TRY(upload(b->g, (void **)&c->take_a, ta, c->take_bytes, err));
        CZK_TRY(upload(b->g, (void **)&c->take_b, tb, c->take_bytes, err));
    }
    /* The arena now fits beside everything resident; an older minimum (a G2 MSM's growth)
     * must not make a later plan regrow it past the budget. */
    b->arena_min = arena_min_of(b);
    *placed = 1;
out:
    attach_end(b, k, rc, ta, tb, ci, dict, lr);
    return rc;
}

} // namespace czk_whole

int czk__gpu_circuit_attach(czk__gpu_backend *b, resident_key *k, const czk_r1cs *cs, int *placed,
                            czk_err *err) {
    return circuit_attach(b, k, circuit_src{cs, NULL}, placed, err);
}

int czk__gpu_circuit_attach_rep(czk__gpu_backend *b, resident_key *k, const czk_r1cs_rep *rep,
                                const czk_r1cs *dims, int *placed, czk_err *err) {
    return circuit_attach(b, k, circuit_src{dims, rep}, placed, err);
}

extern "C" int czk_gpu_backend_attach_key_rep(czk_backend *be, const czk_groth16_pk *pk,
                                              const czk_r1cs_rep *rep, const czk_r1cs *dims,
                                              czk_backend_key **key, int *resident, czk_err *err) {
    int rc = CZK_OK, placed = 0;
    czk_r1cs want;
    if (key != NULL)
        *key = NULL;
    if (resident != NULL)
        *resident = 0;
    if (be == NULL || pk == NULL || rep == NULL || dims == NULL || key == NULL || resident == NULL)
        return czk_err_set(err, CZK_EINVAL, "attach key: NULL argument");
    /* czk_r1cs_rep_dims also checks what the attach relies on: the head shares no more than
     * the block reads, and a head with rows stores the matrices the block does. */
    CZK_TRY(czk_r1cs_rep_dims(rep, &want, err));
    if (want.n_constraints != dims->n_constraints || want.n_vars != dims->n_vars ||
        want.n_public != dims->n_public)
        return czk_err_set(err, CZK_EINVAL,
                           "attach key: sizes of %zu rows, %zu variables, %zu inputs for a "
                           "repeated system of %zu, %zu, %zu",
                           dims->n_constraints, dims->n_vars, dims->n_public, want.n_constraints,
                           want.n_vars, want.n_public);
    /* The points as czk_gpu_backend_attach_key places them (without a circuit it streams
     * nothing), then the circuit beside them. */
    CZK_TRY(czk_gpu_backend_attach_key(be, pk, NULL, key, resident, err));
    if (*resident != 1)
        goto out;
    CZK_TRY(
        czk__gpu_circuit_attach_rep((czk__gpu_backend *)be->ctx, *key, rep, dims, &placed, err));
    *resident = placed ? 2 : 1;
out:
    if (rc != CZK_OK && *key != NULL) {
        czk_gpu_backend_detach_key(be, *key);
        *key = NULL;
        *resident = 0;
    }
    return rc;
}

namespace czk_whole {

/*
 * The MSMs over the witness d_w with k's points on the device, in batches of at most c->cap
 * points with `scratch` (bytes): A and B (G1, G2) over its density selections (for a
 * filtered key: written to sel_out, CUB's storage at sel_tmp, its count at d_count) and L
 * over the part past the inputs; each timed into tm.
 */
int witness_msms(czk__gpu_backend *b, const resident_key *k, void *scratch, size_t bytes,
                 size_t n_vars, size_t n_pub1, const char *d_w, char *sel_tmp, char *sel_out,
                 int *d_count, czk_backend_sums *out, czk_groth16_timings *tm, czk_err *err) {
    typedef czk__gpu_group_g1 G1;
    typedef czk__gpu_group_g2 G2;
    const resident_circuit *c = &k->circ;
    const czk_groth16_pk *pk = k->pk;
    /* Array i of the key (resident_key::r: 0 A, 1 B_G1, 2 B_G2, 3 L). */
    auto pts = [k](int i) { return (const void *)k->r[i].dev; };
    int rc = CZK_OK;
    size_t sel_bytes = 0;
    const char *sc;
    uint64_t t0 = czk_time_ns(), t1;
    CZK_CUDA_TRY(err, cub::DeviceSelect::Flagged(nullptr, sel_bytes, (const fr_t *)nullptr,
                                                 (const uint8_t *)nullptr, (fr_t *)nullptr,
                                                 (int *)nullptr, (int)n_vars));
    for (int i = 0; i < 2; i++) { /* A, then B_G1 */
        const uint8_t *take = i == 0 ? c->take_a : c->take_b;
        sc = d_w;
        if (take != NULL) {
            CZK_CUDA_TRY(err, cub::DeviceSelect::Flagged(sel_tmp, sel_bytes, (const fr_t *)d_w,
                                                         take, (fr_t *)sel_out, d_count,
                                                         (int)n_vars, b->g->stream));
            sc = sel_out;
        }
        CZK_TRY(msm_capped<G1>(b->g, i == 0 ? &out->a : &out->b_g1, pts(i), sc,
                               i == 0 ? pk->n_a : pk->n_b_g1, c->cap, scratch, bytes, err));
        t1 = czk_time_ns();
        if (tm != NULL)
            *(i == 0 ? &tm->msm_a_ns : &tm->msm_b_g1_ns) += t1 - t0;
        t0 = t1;
    }
    CZK_TRY(msm_capped<G2>(b->g, &out->b_g2, pts(2), sc, pk->n_b_g2, c->cap, scratch, bytes,
                           err)); /* B's scalars */
    t1 = czk_time_ns();
    if (tm != NULL)
        tm->msm_b_g2_ns += t1 - t0;
    CZK_TRY(msm_capped<G1>(b->g, &out->l, pts(3), d_w + n_pub1 * sizeof(czk_fr), n_vars - n_pub1,
                           c->cap, scratch, bytes, err));
    t0 = czk_time_ns();
    if (tm != NULL)
        tm->msm_l_ns += t0 - t1;
out:
    return rc;
}
/* w[i] for i < n from a witness pack (groth16/witness_pack.h): zero, one (Montgomery), or
 * the other value at its rank. */
__global__ void witness_unpack_kernel(fr_t *w, const uint64_t *cls, const uint32_t *rank,
                                      const fr_t *others, size_t n) {
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n)
        return;
    const uint64_t x = cls[i >> 5];
    const unsigned j = (unsigned)(i & 31), c = (unsigned)(x >> (2 * j)) & 3;
    fr_t v = fr_t::zero();
    if (c == 1) {
        v = fr_t::one();
    } else if (c == 2) {
        /* The others below lane j of this word: lanes with class 2 (bits 10). */
        const uint64_t m = (x >> 1) & ~x & 0x5555555555555555ULL & ((1ULL << (2 * j)) - 1);
        v = fr_t::load_ro(others + rank[i >> 5] + __popcll(m));
    }
    v.store(w + i);
}

int upload_witness(czk_gpu *g, void *d_w, const czk_fr *w, const czk_witness_pack *wp,
                   size_t n_vars, void *tmp, size_t tmp_bytes, czk_err *err) {
    int rc = CZK_OK;
    if (wp != NULL && wp->n == n_vars) {
        const size_t words = czk_witness_pack_words(n_vars);
        const size_t a_c = czk__gpu_align(words * sizeof(uint64_t)),
                     a_r = czk__gpu_align(words * sizeof(uint32_t)),
                     a_o = czk__gpu_align(wp->n_others * sizeof(czk_fr));
        if (a_c + a_r + a_o <= tmp_bytes) {
            char *d_cls = (char *)tmp, *d_rank = d_cls + a_c, *d_oth = d_rank + a_r;
            CZK_CUDA_TRY(err, cudaMemcpyAsync(d_cls, wp->cls, words * sizeof(uint64_t),
                                              cudaMemcpyHostToDevice, g->stream));
            CZK_CUDA_TRY(err, cudaMemcpyAsync(d_rank, wp->rank, words * sizeof(uint32_t),
                                              cudaMemcpyHostToDevice, g->stream));
            if (wp->n_others > 0)
                CZK_CUDA_TRY(err, cudaMemcpyAsync(d_oth, wp->others, wp->n_others * sizeof(czk_fr),
                                                  cudaMemcpyHostToDevice, g->stream));
            witness_unpack_kernel<<<(unsigned)((n_vars + 255) / 256), 256, 0, g->stream>>>(
                (fr_t *)d_w, (const uint64_t *)d_cls, (const uint32_t *)d_rank, (const fr_t *)d_oth,
                n_vars);
            CZK_CUDA_TRY(err, cudaGetLastError());
            return CZK_OK;
        }
    }
    CZK_CUDA_TRY(
        err, cudaMemcpyAsync(d_w, w, n_vars * sizeof(czk_fr), cudaMemcpyHostToDevice, g->stream));
out:
    return rc;
}

} // namespace czk_whole

static int prove_sums(void *ctx, const czk_backend_key *key, const czk_groth16_pk *pk,
                      const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                      czk_backend_sums *out, czk_groth16_timings *tm, czk_err *err);

/* A lane's proof is urgent from its first copy to its last result: the device's other
 * contexts give way meanwhile (internal.cuh). */
int czk__gpu_prove_sums(void *ctx, const czk_backend_key *key, const czk_groth16_pk *pk,
                        const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                        czk_backend_sums *out, czk_groth16_timings *tm, czk_pool *pool,
                        czk_err *err) {
    czk_gpu *g = ((czk__gpu_backend *)ctx)->g;
    (void)pool; /* everything runs on the device */
    czk__gpu_urgent_begin(g);
    const int rc = prove_sums(ctx, key, pk, cs, w, wp, out, tm, err);
    czk__gpu_urgent_end(g);
    return rc;
}

static int prove_sums(void *ctx, const czk_backend_key *key, const czk_groth16_pk *pk,
                      const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                      czk_backend_sums *out, czk_groth16_timings *tm, czk_err *err) {
    czk__gpu_backend *b = (czk__gpu_backend *)ctx;
    czk_gpu *g = b->g;
    int rc = CZK_OK;
    const resident_key *k = key;
    int *d_count = NULL;
    uint64_t t0, t1;
    if (k == NULL || k->circ.cs == NULL)
        return czk_err_set(err, CZK_EUNSUPPORTED, "gpu: key and circuit not attached");
    if (k->owner != b || k->pk != pk || k->circ.cs != cs)
        return czk_err_set(err, CZK_EINVAL, "gpu: the key was attached %s",
                           k->owner != b ? "to another backend" : "for another key or circuit");
    if (k->circ.streamed) {
        b->h_host = NULL;
        rc = czk__gpu_enter(g, err);
        if (rc == CZK_OK)
            rc = stream_prove(b, k, pk, cs, w, wp, out, tm, err);
        if (rc != CZK_OK) {
            /* A failed proof may leave a chunk's copy in flight: the next one must not find
             * it writing into its arena. */
            (void)cudaStreamSynchronize(b->copy_stream);
            (void)cudaStreamSynchronize(g->stream);
        }
        return rc;
    }
    const resident_circuit *c = &k->circ;
    const size_t n = pk->domain_size, n_vars = cs->n_vars, n_pub1 = cs->n_public + 1;
    const size_t m = max_sz(pk->n_a, pk->n_b_g1);
    const unsigned lg = domain_lg(n);
    const size_t a_w = czk__gpu_align(n_vars * sizeof(czk_fr)),
                 a_s = czk__gpu_align(m * sizeof(czk_fr)), a_n = czk__gpu_align(n * sizeof(czk_fr));
    char *base, *d_w, *d_s, *d_r;
    void *dv[3];
    size_t r_bytes;
    czk_fr mone;
    fr_t one_d, mone_d;
    csr3 mats;

    CZK_TRY(czk__gpu_enter(g, err));
    b->h_host = NULL;
    CZK_TRY(czk__gpu_ensure_plan(b, lg, max_sz(max_sz(pk->n_a, pk->n_b_g1), pk->n_h), err));
    if (b->arena_bytes < c->arena_bytes) {
        rc = czk_err_set(err, CZK_EINTERNAL, "gpu: arena of %zu bytes below the %zu planned",
                         b->arena_bytes, c->arena_bytes);
        goto out;
    }
    base = (char *)b->arena;
    d_w = base;
    d_s = d_w + a_w;
    dv[0] = d_s + a_s;
    dv[1] = (char *)dv[0] + a_n;
    dv[2] = (char *)dv[1] + a_n;
    d_r = (char *)dv[1];
    r_bytes = b->arena_bytes - (size_t)(d_r - base);

    /* 1-2: the witness up, then a, b, c. */
    t0 = czk_time_ns();
    CZK_TRY(upload_witness(g, d_w, w, wp, n_vars, d_r, r_bytes, err));
    for (int i = 0; i < 3; i++)
        mats.m[i] = csr1{c->row_ptr[i],
                         c->cols[i],
                         (const fr_t *)c->vals[i],
                         c->ci[i],
                         (const fr_t *)c->dict[i],
                         c->rep_h,
                         c->rep_r,
                         c->rep_map};
    czk_fr_neg(&mone, &CZK_FR_ONE);
    memcpy(&one_d, &CZK_FR_ONE, sizeof(one_d));
    memcpy(&mone_d, &mone, sizeof(mone_d));
    /* Long rows first, a warp each; then a thread per row, reading theirs. (A thread per
     * row of one matrix, three launches, measured the same at 2^24 on the H200, run 19:
     * 28.1 ms against 27.4 with the upload.) */
    for (int i = 0; i < 3; i++)
        CZK_CUDA_TRY(err, spmv_long(g->stream, (fr_t *)dv[i], mats.m[i], (const fr_t *)d_w,
                                    c->long_rows[i], c->n_long[i], 0, one_d, mone_d));
    CZK_CUDA_TRY(err, spmv_rows(g->stream, (fr_t *)dv[0], (fr_t *)dv[1], (fr_t *)dv[2], mats,
                                (const fr_t *)d_w, cs->n_constraints, n_pub1, n, one_d, mone_d));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    t1 = czk_time_ns();
    if (tm != NULL)
        tm->spmv_ns += t1 - t0;

    /* 3: h in dv[0]. */
    CZK_TRY(czk__gpu_h_device(b, lg, pk->h_basis, &c->omega, &c->omega_2n, dv, err));
    CZK_CUDA_TRY(err, cudaStreamSynchronize(g->stream));
    t0 = czk_time_ns();
    if (tm != NULL)
        tm->h_ns += t0 - t1;

    /* 4: the MSMs; every scratch is R (b and c are dead now). */
    CZK_TRY(msm_capped<czk__gpu_group_g1>(g, &out->h, k->r[4].dev, dv[0], pk->n_h, c->cap, d_r,
                                          r_bytes, err));
    t1 = czk_time_ns();
    if (tm != NULL)
        tm->msm_h_ns += t1 - t0;

    /* The others; CUB's select writes its count to the device: one int at R's end, clear of
     * its storage. */
    d_count = (int *)(base + b->arena_bytes - CZK__GPU_ARENA_ALIGN);
    CZK_TRY(witness_msms(b, k, d_r, r_bytes - CZK__GPU_ARENA_ALIGN, n_vars, n_pub1, d_w, d_r, d_s,
                         d_count, out, tm, err));
out:
    if (rc != CZK_OK)
        (void)cudaStreamSynchronize(g->stream);
    return rc;
}
