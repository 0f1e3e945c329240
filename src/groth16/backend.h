/*
 * The operations a Groth16 proof is made of, as a table (doc/DESIGN.md §5).
 *
 * The prover (prove.h) drives a proof through these entries and nothing else heavy, so a
 * backend that runs them elsewhere (the CUDA backend of src/gpu) plugs in without touching
 * the driver. The table is plain C on purpose: src/gpu implements it from a .cu file, and a
 * test can wrap one backend in another to count or perturb calls.
 *
 * Contract for every entry: `ctx` is the backend's own `ctx` field; `pool` may be NULL (run
 * inline) and a backend that does not compute on the host may ignore it; on failure an entry
 * returns a negative czk status and fills `err` (may be NULL), and its outputs are
 * unspecified. Entries may be called from several threads at once only when the backend's
 * documentation says so (the CPU backend's may). All entries are variable time (_var): their
 * inputs are the witness-dependent but not secret-key-dependent parts of a proof, and MSM
 * bucket choice leaks scalar bits through timing, as it does in every Groth16 prover we
 * know of (bellperson, snarkjs, rapidsnark, sppark).
 */
#ifndef CZK_GROTH16_BACKEND_H
#define CZK_GROTH16_BACKEND_H

#include <stddef.h>
#include <stdint.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "groth16/keys.h"
#include "groth16/witness_pack.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* czk_backend.flags */
enum {
    /* prove_sums reads the witness from a pack when it is given one (groth16/witness_pack.h):
     * worth building one for it. */
    CZK_BACKEND_WITNESS_PACK = 1u << 0,
};

/*
 * A key a backend keeps a copy of (its points, and maybe its circuit) for later proofs:
 * opaque, defined by the backend that made it (the CUDA backend's
 * czk_gpu_backend_attach_key), and handed back to that backend's entries by the prover
 * (czk_groth16_prove_ex). NULL everywhere means "no copy": the backend reads the host
 * arrays it is given. The CPU backend makes none.
 */
typedef struct czk_backend_key czk_backend_key;

/*
 * Which of a key's point arrays an MSM's points are: with a key, a backend reads its own
 * copy of that array instead of the host array (the points are always the array's first n,
 * n at most its length). NONE: points that are no key array (tests, benchmarks).
 */
typedef enum czk_key_array {
    CZK_KEY_ARRAY_NONE = 0,
    CZK_KEY_ARRAY_A = 1,    /* pk->a, n_a points */
    CZK_KEY_ARRAY_B_G1 = 2, /* pk->b_g1, n_b_g1 points */
    CZK_KEY_ARRAY_B_G2 = 3, /* pk->b_g2, n_b_g2 points (G2) */
    CZK_KEY_ARRAY_L = 4,    /* pk->l, n_l points */
    CZK_KEY_ARRAY_H = 5,    /* pk->h, n_h points */
} czk_key_array;

/* Wall-clock nanoseconds of each step of one proof. */
typedef struct czk_groth16_timings {
    uint64_t spmv_ns;     /* a, b, c = A·w, B·w, C·w, input rows, padding; for a filtered
                             key also the density pass over A and B */
    uint64_t h_ns;        /* the quotient step (NTTs) */
    uint64_t msm_a_ns;    /* Σ w_i·A_i */
    uint64_t msm_b_g1_ns; /* Σ w_i·B_i in G1 */
    uint64_t msm_b_g2_ns; /* Σ w_i·B_i in G2 */
    uint64_t msm_l_ns;    /* Σ_aux w_i·L_i */
    uint64_t msm_h_ns;    /* Σ h_i·H_i */
    uint64_t total_ns;    /* the whole call, checks and assembly included */
} czk_groth16_timings;

/* The five multi-scalar sums of one proof (before r, s and the key's constants). */
typedef struct czk_backend_sums {
    czk_g1_jacobian a;    /* Σ w_i·A_i */
    czk_g1_jacobian b_g1; /* Σ w_i·B_i in G1 */
    czk_g2_jacobian b_g2; /* Σ w_i·B_i in G2 */
    czk_g1_jacobian l;    /* Σ_aux w_i·L_i */
    czk_g1_jacobian h;    /* Σ h_i·H_i */
} czk_backend_sums;

typedef struct czk_backend {
    const char *name; /* "cpu", "cuda:0", ... for logs */
    void *ctx;
    unsigned flags; /* CZK_BACKEND_* */

    /*
     * The quotient step. In: a, b, c of czk_ntt_domain_size(d) elements each, the values of
     * A·w, B·w and C·w at the domain points ω^j in natural order (zero-padded past the
     * constraints). Out: `a` holds h in the form `basis` asks for: CZK_H_MONOMIAL, the
     * n − 1 coefficients of (ab − c)/Z in a[0..n−1) (a[n−1] unspecified); CZK_H_ODD_COSET,
     * the n values of ab − c on the odd coset ω_{2n}·ω^i. b and c are scratch afterwards.
     */
    int (*h)(void *ctx, const czk_ntt_domain *d, czk_groth16_h_basis basis, czk_fr *a, czk_fr *b,
             czk_fr *c, czk_pool *pool, czk_err *err);

    /*
     * out = Σ sc[i]·pts[i], i < n; n = 0 gives infinity. Points at infinity are allowed.
     * Scalars are raw witness (or h) values: a backend whose MSM profits from treating
     * values 0 and 1 apart (every production one: the CPU's and the GPU's) does so itself.
     * pts is always the host array. key (may be NULL) and which (may be NONE) say which of
     * a key's arrays pts is (its first n points), so that a backend holding a copy of that
     * key reads its own copy; a key from another backend, or one that does not hold pts as
     * `which`, is CZK_EINVAL.
     */
    int (*msm_g1)(void *ctx, czk_g1_jacobian *out, const czk_backend_key *key, czk_key_array which,
                  const czk_g1_affine *pts, const czk_fr *sc, size_t n, czk_pool *pool,
                  czk_err *err);
    int (*msm_g2)(void *ctx, czk_g2_jacobian *out, const czk_backend_key *key, czk_key_array which,
                  const czk_g2_affine *pts, const czk_fr *sc, size_t n, czk_pool *pool,
                  czk_err *err);

    /*
     * Host memory for the prover's large per-proof arrays (a, b, c, the gathered scalars):
     * the arrays a backend copies to and from its device. A GPU backend hands out page-locked
     * (pinned) buffers it keeps and reuses, so those copies run at the bus's full speed
     * without pinning memory per proof. host_alloc returns NULL when it cannot; the prover
     * then falls back to czk_malloc. host_free takes back exactly what host_alloc returned,
     * with the same byte count (the prover clears witness-derived contents first). Both
     * NULL: the prover uses czk_malloc/czk_free. Thread-safe when the backend's other
     * entries are.
     */
    void *(*host_alloc)(void *ctx, size_t bytes);
    void (*host_free)(void *ctx, void *p, size_t bytes);

    /*
     * Optional: every heavy step of one proof from the witness alone: a, b, c (the
     * circuit's rows, the input rows, zero padding), h in pk's basis, and the five sums, as
     * the step-by-step entries above would give them. A GPU backend does this when key holds
     * pk and cs on its device (or streams them from page-locked host memory), so that only
     * the witness crosses the bus. Returns CZK_EUNSUPPORTED, having changed nothing, when it
     * cannot for this key (NULL, or attached without its circuit): the prover then runs the
     * entries above; CZK_EINVAL when key was attached for another pk or cs. NULL: never.
     * In: w, cs->n_vars values; wp (may be NULL): the same witness packed (checked by the
     * prover: well formed, n = cs->n_vars), which a backend with CZK_BACKEND_WITNESS_PACK
     * moves instead of w; pk and cs already checked against each other by the prover.
     * Out: *out; tm (may be NULL): the step times the backend can attribute, added to what
     * is there.
     */
    int (*prove_sums)(void *ctx, const czk_backend_key *key, const czk_groth16_pk *pk,
                      const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                      czk_backend_sums *out, czk_groth16_timings *tm, czk_pool *pool, czk_err *err);

    /*
     * Optional, for key generation (groth16/setup.h): out[i] = [k[i]]·G for the generator G
     * of G1 (g2 = 0: out is czk_g1_affine[n]) or of G2 (g2 = 1: czk_g2_affine[n]), i < n,
     * affine with (0, 0) for infinity, bit for bit what the CPU's arithmetic gives. k in
     * Montgomery form, any values (0 gives infinity). k and out are host arrays of any size
     * (a 2^27-row circuit's key has some 450 M of them); the backend works through them in
     * pieces. Variable time in k (development keys only). Returns CZK_OK, CZK_ENOMEM or a
     * device error, with err filled. NULL: the setup multiplies on the CPU.
     */
    int (*fixed_base)(void *ctx, int g2, const czk_fr *k, size_t n, void *out, czk_pool *pool,
                      czk_err *err);
} czk_backend;

/*
 * The CPU backend: poly/quotient.h for h and msm/msm.h for the rest. A static table with
 * ctx = NULL; every entry is thread-safe. Never NULL.
 */
const czk_backend *czk_backend_cpu(void);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GROTH16_BACKEND_H */
