/*
 * DESIGN: the Groth16 prover driver (prove.h has the equations).
 *
 * Memory. The key is only read, never copied. The prover owns three arrays of n Fr (a, b, c)
 * for the quotient; after the H MSM all three are free again, and the scalar vectors of the
 * A, B and L MSMs are gathered into them (an extra array only when a layout has more points
 * than the domain has elements, which real circuits never do). So the peak is the key, the
 * witness, 3·n Fr and, for a filtered key, two density bitmaps.
 *
 * Layouts. A dense layout (snarkjs) has one point per variable; a filtered one (bellperson)
 * only the variables whose density bit is set, in variable order, with every public
 * variable in A. The MSM scalars are gathered in the point order in both cases, from the
 * density bitmaps of czk_r1cs_density, which is exactly what bellperson's prover does with
 * its DensityTrackers. A dense layout's MSMs read the witness in place: nothing is gathered.
 *
 * Ones. Most witness values of the circuits we serve are bits. The backends' MSMs (the CPU's
 * and the GPU's) move the scalars equal to 0 and 1 out of Pippenger themselves ("batch
 * addition", doc/DESIGN.md §1), so the prover hands them raw scalars.
 *
 * Keys. A backend that keeps a copy of pk (key, from its attach) gets it with every MSM,
 * with the array the points are, so that it reads its copy (groth16/backend.h); and the
 * whole proof, when prove_sums can run it for that key.
 */
#include "groth16/prove.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "poly/ntt.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/timer.h"

#include <string.h>

/* ---- scalar gathering ------------------------------------------------------------------ */

#define GATHER_BLOCK ((size_t)1 << 14) /* variables per block; a multiple of 64 */

/* The scalars of one MSM of a filtered key: variables [v_begin, v_end) of w, those below
 * keep_below plus those whose bit is set. */
typedef struct gather_spec {
    const czk_fr *w;
    size_t v_begin, v_end;
    const uint64_t *bits;
    size_t keep_below;
} gather_spec;

static int take(const gather_spec *g, size_t v) {
    return v < g->keep_below || ((g->bits[v / 64] >> (v % 64)) & 1);
}

/* How many points the spec selects; serial, one popcount a word. */
static size_t gather_count(const gather_spec *g) {
    size_t cnt = 0;
    for (size_t v = g->v_begin; v < g->v_end;) {
        if (v % 64 == 0 && v + 64 <= g->v_end && v + 64 <= g->keep_below) {
            cnt += 64;
            v += 64;
        } else if (v % 64 == 0 && v + 64 <= g->v_end && v >= g->keep_below) {
            cnt += (size_t)__builtin_popcountll(g->bits[v / 64]);
            v += 64;
        } else {
            cnt += (size_t)take(g, v);
            v++;
        }
    }
    return cnt;
}

typedef struct gather_job {
    const gather_spec *g;
    czk_fr *out;
    size_t *offsets; /* per block: the output index of its first selected variable */
} gather_job;

/* Block blk's variables [*v0, *v1): GATHER_BLOCK of them, the last block fewer. */
static void gather_block(const gather_spec *g, size_t blk, size_t *v0, size_t *v1) {
    *v0 = g->v_begin + blk * GATHER_BLOCK;
    *v1 = *v0 + GATHER_BLOCK < g->v_end ? *v0 + GATHER_BLOCK : g->v_end;
}

static void gather_count_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    gather_job *j = arg;
    for (size_t blk = begin; blk < end; blk++) {
        gather_spec sub = *j->g;
        gather_block(j->g, blk, &sub.v_begin, &sub.v_end);
        j->offsets[blk] = gather_count(&sub);
    }
}

static void gather_fill_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    gather_job *j = arg;
    for (size_t blk = begin; blk < end; blk++) {
        size_t v0, v1;
        gather_block(j->g, blk, &v0, &v1);
        size_t k = j->offsets[blk];
        for (size_t v = v0; v < v1; v++)
            if (take(j->g, v))
                j->out[k++] = j->g->w[v];
    }
}

/*
 * Fills out[0..gather_count(g)) with the selected scalars. offsets: scratch of one entry per
 * GATHER_BLOCK variables.
 */
static void gather(czk_fr *out, const gather_spec *g, size_t *offsets, czk_pool *pool) {
    gather_job j = {.g = g, .out = out, .offsets = offsets};
    size_t nblk = (g->v_end - g->v_begin + GATHER_BLOCK - 1) / GATHER_BLOCK;
    czk_pool_run(pool, nblk, 1, gather_count_body, &j);
    size_t acc = 0;
    for (size_t blk = 0; blk < nblk; blk++) {
        size_t c = offsets[blk];
        offsets[blk] = acc;
        acc += c;
    }
    czk_pool_run(pool, nblk, 1, gather_fill_body, &j);
}

/* ---- the prover ------------------------------------------------------------------------ */

/* A per-proof Fr array, from the backend's host allocator when it has one (backend.h). */
typedef struct fr_buf {
    czk_fr *p;
    size_t n;
    int from_backend; /* 1: give it back with be->host_free */
} fr_buf;

static czk_fr *buf_alloc(fr_buf *b, const czk_backend *be, size_t n) {
    b->n = n;
    b->from_backend = 0;
    b->p = NULL;
    if (be->host_alloc != NULL && be->host_free != NULL) {
        b->p = be->host_alloc(be->ctx, n * sizeof(czk_fr));
        b->from_backend = b->p != NULL;
    }
    if (b->p == NULL)
        b->p = czk_malloc(n * sizeof(czk_fr));
    return b->p;
}

/* Arrays holding witness-derived values: cleared, then freed. */
static void buf_free(fr_buf *b, const czk_backend *be) {
    if (b->p == NULL)
        return;
    czk_memclear_explicit(b->p, b->n * sizeof(czk_fr));
    if (b->from_backend)
        be->host_free(be->ctx, b->p, b->n * sizeof(czk_fr));
    else
        czk_free(b->p);
    b->p = NULL;
}

static int check_shape(const czk_groth16_pk *pk, const czk_r1cs *cs, const czk_fr *w,
                       const czk_backend *be, unsigned *lg_out, czk_err *err) {
    if (be == NULL || be->h == NULL || be->msm_g1 == NULL || be->msm_g2 == NULL)
        return czk_err_set(err, CZK_EINVAL, "prove: backend lacks an operation");
    if (pk->n_vars != cs->n_vars || pk->n_public != cs->n_public)
        return czk_err_set(err, CZK_EINVAL,
                           "prove: key has %zu variables, %zu public; circuit %zu, %zu", pk->n_vars,
                           pk->n_public, cs->n_vars, cs->n_public);
    if (cs->n_vars < cs->n_public + 1)
        return czk_err_set(err, CZK_EINVAL, "prove: %zu variables cannot hold ONE and %zu inputs",
                           cs->n_vars, cs->n_public);
    size_t n = pk->domain_size, need = cs->n_constraints + cs->n_public + 1;
    unsigned lg = 0;
    while (lg < 63 && ((size_t)1 << lg) < n)
        lg++;
    if (n == 0 || ((size_t)1 << lg) != n || n < need || lg > CZK_NTT_MAX_LG)
        return czk_err_set(err, CZK_EINVAL,
                           "prove: key domain %zu is not a power of two >= %zu rows (at most "
                           "2^%d)",
                           n, need, CZK_NTT_MAX_LG);
    size_t n_h = pk->h_basis == CZK_H_MONOMIAL    ? n - 1
                 : pk->h_basis == CZK_H_ODD_COSET ? n
                                                  : SIZE_MAX;
    if (n_h == SIZE_MAX || pk->n_h != n_h)
        return czk_err_set(err, CZK_EINVAL, "prove: key has %zu H points, basis %d needs %zu",
                           pk->n_h, (int)pk->h_basis, n_h);
    size_t n_aux = cs->n_vars - cs->n_public - 1;
    if (pk->n_l != n_aux)
        return czk_err_set(err, CZK_EINVAL, "prove: key has %zu L points, circuit %zu aux", pk->n_l,
                           n_aux);
    if (pk->vk.n_ic != cs->n_public + 1)
        return czk_err_set(err, CZK_EINVAL, "prove: key has %zu IC points, circuit %zu inputs",
                           pk->vk.n_ic, cs->n_public);
    if (pk->n_b_g1 != pk->n_b_g2)
        return czk_err_set(err, CZK_EINVAL, "prove: key has %zu B_G1 but %zu B_G2 points",
                           pk->n_b_g1, pk->n_b_g2);
    if (pk->density == CZK_DENSITY_DENSE && (pk->n_a != cs->n_vars || pk->n_b_g1 != cs->n_vars))
        return czk_err_set(err, CZK_EINVAL,
                           "prove: dense key has %zu A and %zu B points for %zu variables", pk->n_a,
                           pk->n_b_g1, cs->n_vars);
    if (pk->density != CZK_DENSITY_DENSE && pk->density != CZK_DENSITY_FILTERED)
        return czk_err_set(err, CZK_EINVAL, "prove: unknown density %d", (int)pk->density);
    if (!czk_fr_is_one(&w[0]))
        return czk_err_set(err, CZK_EINVAL, "prove: w[0] must be 1");
    *lg_out = lg;
    return CZK_OK;
}

/*
 * A = α + ΣA + r·δ, B = β + ΣB + s·δ, C = ΣL + ΣH + s·A + r·B_G1 − r·s·δ. r and s are
 * secret: constant-time multiplications and additions.
 */
static void assemble(czk_groth16_proof *proof, const czk_groth16_pk *pk,
                     const czk_backend_sums *sums, const czk_fr *r, const czk_fr *s) {
    czk_g1_jacobian pa, pb1, pc, t, d1;
    czk_g2_jacobian pb2, t2j, d2;
    czk_fr rs;
    czk_g1_jacobian_from_affine(&d1, &pk->vk.delta_g1);
    czk_g2_jacobian_from_affine(&d2, &pk->vk.delta_g2);

    czk_g1_jacobian_mul(&t, &d1, r); /* A = α + ΣA + r·δ */
    czk_g1_jacobian_add(&pa, &sums->a, &t);
    czk_g1_jacobian_add_affine(&pa, &pa, &pk->vk.alpha_g1);

    czk_g2_jacobian_mul(&t2j, &d2, s); /* B = β + ΣB + s·δ */
    czk_g2_jacobian_add(&pb2, &sums->b_g2, &t2j);
    czk_g2_jacobian_add_affine(&pb2, &pb2, &pk->vk.beta_g2);

    czk_g1_jacobian_mul(&t, &d1, s);
    czk_g1_jacobian_add(&pb1, &sums->b_g1, &t);
    czk_g1_jacobian_add_affine(&pb1, &pb1, &pk->vk.beta_g1);

    czk_g1_jacobian_add(&pc, &sums->l, &sums->h); /* C = ΣL + ΣH + s·A + r·B1 − r·s·δ */
    czk_g1_jacobian_mul(&t, &pa, s);
    czk_g1_jacobian_add(&pc, &pc, &t);
    czk_g1_jacobian_mul(&t, &pb1, r);
    czk_g1_jacobian_add(&pc, &pc, &t);
    czk_fr_mul(&rs, r, s);
    czk_g1_jacobian_mul(&t, &d1, &rs);
    czk_g1_jacobian_neg(&t, &t);
    czk_g1_jacobian_add(&pc, &pc, &t);

    czk_g1_jacobian_to_affine(&proof->a, &pa);
    czk_g2_jacobian_to_affine(&proof->b, &pb2);
    czk_g1_jacobian_to_affine(&proof->c, &pc);
    czk_memclear_explicit(&rs, sizeof(rs));
    czk_memclear_explicit(&t, sizeof(t));
    czk_memclear_explicit(&t2j, sizeof(t2j));
    czk_memclear_explicit(&pb1, sizeof(pb1));
}

int czk_groth16_prove(czk_groth16_proof *proof, const czk_groth16_pk *pk, const czk_r1cs *cs,
                      const czk_fr *w, const czk_fr *r, const czk_fr *s, const czk_backend *be,
                      czk_pool *pool, czk_groth16_timings *timings, czk_err *err) {
    return czk_groth16_prove_ex(proof, pk, cs, w, NULL, NULL, r, s, be, pool, timings, err);
}

int czk_groth16_prove_ex(czk_groth16_proof *proof, const czk_groth16_pk *pk, const czk_r1cs *cs,
                         const czk_fr *w, const czk_witness_pack *wp, const czk_backend_key *key,
                         const czk_fr *r, const czk_fr *s, const czk_backend *be, czk_pool *pool,
                         czk_groth16_timings *timings, czk_err *err) {
    uint64_t t_start = czk_time_ns(), t0;
    czk_groth16_timings tm;
    memset(&tm, 0, sizeof(tm));
    czk_fr *a = NULL, *b = NULL, *c = NULL, *extra_a = NULL, *extra_b = NULL;
    fr_buf bufs[5] = {{0}}; /* a, b, c, extra_a, extra_b */
    uint64_t *a_bits = NULL, *b_bits = NULL;
    size_t *offsets = NULL;
    czk_ntt_domain *dom = NULL;
    czk_backend_sums sums;
    unsigned lg = 0;
    int rc = check_shape(pk, cs, w, be, &lg, err);
    if (rc != CZK_OK)
        return rc;
    const size_t n = pk->domain_size, n_vars = cs->n_vars, n_c = cs->n_constraints;
    const size_t n_pub1 = cs->n_public + 1, n_aux = n_vars - n_pub1;
    const int filtered = pk->density == CZK_DENSITY_FILTERED;

    /* The whole heavy part on the backend, when it can (a GPU with pk and cs attached). */
    if (be->prove_sums != NULL) {
        if (wp != NULL && !(be->flags & CZK_BACKEND_WITNESS_PACK))
            wp = NULL;
        if (wp != NULL) {
            if (wp->n != n_vars)
                return czk_err_set(err, CZK_EINVAL, "witness pack of %zu values for %zu variables",
                                   wp->n, n_vars);
            if ((rc = czk_witness_pack_check_pool(wp, pool, err)) != CZK_OK)
                return rc;
        }
        rc = be->prove_sums(be->ctx, key, pk, cs, w, wp, &sums, &tm, pool, err);
        if (rc == CZK_OK) {
            assemble(proof, pk, &sums, r, s);
            goto out;
        }
        if (rc != CZK_EUNSUPPORTED)
            goto out;
        rc = CZK_OK;
    }
    /* Step by step reads the rows: a header of sizes (czk_r1cs_rep_dims) has none. */
    if (n_c > 0 && (cs->a.row_ptr == NULL || cs->b.row_ptr == NULL))
        return czk_err_set(err, CZK_EINVAL,
                           "prove: the circuit's rows are not on the host: a system of sizes "
                           "only proves on a backend holding its rows (key and circuit "
                           "attached)");

    /* A filtered layout: which variables each A and B point stands for. */
    gather_spec ga = {.w = w, .v_begin = 0, .v_end = n_vars};
    gather_spec gb = ga;
    if (filtered) {
        t0 = czk_time_ns();
        size_t words = (n_vars + 63) / 64;
        a_bits = czk_calloc(words, sizeof(uint64_t));
        b_bits = czk_calloc(words, sizeof(uint64_t));
        offsets = czk_malloc((n_vars / GATHER_BLOCK + 1) * sizeof(*offsets));
        if (a_bits == NULL || b_bits == NULL || offsets == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "prove: density bitmaps");
            goto out;
        }
        if ((rc = czk_r1cs_density(cs, a_bits, b_bits)) != CZK_OK) {
            rc = czk_err_set(err, rc, "prove: density of the circuit");
            goto out;
        }
        ga.bits = a_bits;
        ga.keep_below = n_pub1; /* every public variable has its A point */
        gb.bits = b_bits;
        size_t na = gather_count(&ga), nb = gather_count(&gb);
        if (na != pk->n_a || nb != pk->n_b_g1) {
            rc = czk_err_set(err, CZK_EINVAL,
                             "prove: filtered key has %zu A and %zu B points; the circuit's "
                             "density gives %zu and %zu",
                             pk->n_a, pk->n_b_g1, na, nb);
            goto out;
        }
        tm.spmv_ns += czk_time_ns() - t0; /* a pass over the matrices, like the SpMV */
    }

    a = buf_alloc(&bufs[0], be, n);
    b = buf_alloc(&bufs[1], be, n);
    c = buf_alloc(&bufs[2], be, n);
    if (a == NULL || b == NULL || c == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "prove: quotient arrays of %zu elements", n);
        goto out;
    }

    /* 1. a, b, c over the domain: the circuit's rows, the input rows, zeros. */
    t0 = czk_time_ns();
    if ((rc = czk_r1cs_spmv(cs, w, a, b, c, pool)) != CZK_OK) {
        rc = czk_err_set(err, rc, "prove: A·w, B·w, C·w");
        goto out;
    }
    for (size_t i = 0; i < n_pub1; i++) {
        a[n_c + i] = w[i];
        czk_fr_set_zero(&b[n_c + i]);
        czk_fr_set_zero(&c[n_c + i]);
    }
    size_t used = n_c + n_pub1;
    memset(a + used, 0, (n - used) * sizeof(*a));
    memset(b + used, 0, (n - used) * sizeof(*b));
    memset(c + used, 0, (n - used) * sizeof(*c));
    tm.spmv_ns += czk_time_ns() - t0;

    /* 2. h. */
    t0 = czk_time_ns();
    czk_ntt_root root =
        pk->h_basis == CZK_H_MONOMIAL ? CZK_NTT_ROOT_BELLPERSON : CZK_NTT_ROOT_SNARKJS;
    if ((rc = czk_ntt_domain_create(&dom, lg, root, err)) != CZK_OK)
        goto out;
    if ((rc = be->h(be->ctx, dom, pk->h_basis, a, b, c, pool, err)) != CZK_OK)
        goto out;
    tm.h_ns = czk_time_ns() - t0;

    /* 3. The MSMs. H first: afterwards a, b and c are all free for the gathered scalars. */
    t0 = czk_time_ns();
    if ((rc = be->msm_g1(be->ctx, &sums.h, key, CZK_KEY_ARRAY_H, pk->h, a, pk->n_h, pool, err)) !=
        CZK_OK)
        goto out;
    tm.msm_h_ns = czk_time_ns() - t0;

    /* A dense layout's scalars are the witness itself; a filtered one's are gathered into
     * a and b (or larger arrays when a layout has more points than the domain). */
    const czk_fr *sc_a = w, *sc_b = w;
    czk_fr *sa = a, *sb = b;
    const size_t max_pts = pk->n_a > pk->n_b_g1 ? pk->n_a : pk->n_b_g1;
    if (filtered && max_pts > n) {
        extra_a = buf_alloc(&bufs[3], be, max_pts);
        extra_b = buf_alloc(&bufs[4], be, max_pts);
        if (extra_a == NULL || extra_b == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "prove: %zu gathered scalars", max_pts);
            goto out;
        }
        sa = extra_a;
        sb = extra_b;
    }

    t0 = czk_time_ns();
    if (filtered) {
        gather(sa, &ga, offsets, pool);
        sc_a = sa;
    }
    if ((rc = be->msm_g1(be->ctx, &sums.a, key, CZK_KEY_ARRAY_A, pk->a, sc_a, pk->n_a, pool,
                         err)) != CZK_OK)
        goto out;
    tm.msm_a_ns = czk_time_ns() - t0;

    t0 = czk_time_ns();
    if (filtered) {
        gather(sb, &gb, offsets, pool);
        sc_b = sb;
    }
    if ((rc = be->msm_g1(be->ctx, &sums.b_g1, key, CZK_KEY_ARRAY_B_G1, pk->b_g1, sc_b, pk->n_b_g1,
                         pool, err)) != CZK_OK)
        goto out;
    uint64_t t2 = czk_time_ns();
    if ((rc = be->msm_g2(be->ctx, &sums.b_g2, key, CZK_KEY_ARRAY_B_G2, pk->b_g2, sc_b, pk->n_b_g2,
                         pool, err)) != CZK_OK)
        goto out;
    uint64_t t3 = czk_time_ns();
    /* The shared gather is charged to B_G1. */
    tm.msm_b_g1_ns = t2 - t0;
    tm.msm_b_g2_ns = t3 - t2;

    /* L: the auxiliary variables, in place in both layouts. */
    t0 = czk_time_ns();
    if ((rc = be->msm_g1(be->ctx, &sums.l, key, CZK_KEY_ARRAY_L, pk->l, w + n_pub1, n_aux, pool,
                         err)) != CZK_OK)
        goto out;
    tm.msm_l_ns = czk_time_ns() - t0;

    /* 4. Assembly. */
    assemble(proof, pk, &sums, r, s);

out:
    czk_ntt_domain_destroy(dom);
    for (int i = 0; i < 5; i++)
        buf_free(&bufs[i], be);
    czk_free(offsets);
    czk_free(a_bits);
    czk_free(b_bits);
    if (timings != NULL) {
        tm.total_ns = czk_time_ns() - t_start;
        *timings = tm;
    }
    return rc;
}
