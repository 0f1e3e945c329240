/*
 * Tests of the Groth16 layer: dev setup, prover, verifier, CPU backend, benchmark keys.
 *
 * The circuits are random but satisfied by construction (test_circuit below), with boolean
 * variables, public inputs inside products, variables that occur only in C and one variable
 * that occurs nowhere, so that both density layouts have holes. Every positive test is a
 * round trip setup → prove → verify; the negative ones perturb one thing and expect the
 * verifier (or the prover's shape checks) to refuse.
 */
#include "groth16/backend.h"
#include "groth16/benchkey.h"
#include "groth16/keys.h"
#include "groth16/prove.h"
#include "groth16/setup.h"
#include "groth16/verify.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "poly/ntt.h"
#include "r1cs/r1cs.h"
#include "r1cs/synth.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/pool.h"

#include <stdlib.h>
#include <string.h>

/* ---- a random satisfied circuit ---------------------------------------------------------- */

typedef struct tcirc {
    czk_r1cs cs;
    czk_fr *w; /* malloc'ed, cs.n_vars entries */
} tcirc;

static void tcirc_clear(tcirc *c) {
    czk_r1cs_clear(&c->cs);
    free(c->w);
    memset(c, 0, sizeof(*c));
}

typedef struct wvec {
    czk_fr *v;
    size_t n, cap;
} wvec;

static int wvec_push(wvec *w, const czk_fr *x) {
    if (w->n == w->cap) {
        size_t cap = w->cap ? 2 * w->cap : 64;
        czk_fr *v = realloc(w->v, cap * sizeof(*v));
        if (v == NULL)
            return CZK_ENOMEM;
        w->v = v;
        w->cap = cap;
    }
    w->v[w->n++] = *x;
    return CZK_OK;
}

static void rand_coef(czk_fr *c, czk_rng *rng) {
    switch (czk_rng_u64(rng) % 4) {
    case 0:
        czk_fr_set_one(c);
        break;
    case 1:
        czk_fr_set_one(c);
        czk_fr_neg(c, c);
        break;
    default:
        czk_fr_random(c, rng);
        if (czk_fr_is_zero(c))
            czk_fr_set_one(c);
    }
}

/* A random variable other than the public inputs (those go only where test_circuit puts
 * them, so that some of them are absent from A); ONE stands in for them, so it is common. */
static uint32_t rand_var(const wvec *w, size_t n_public, czk_rng *rng) {
    uint32_t v = (uint32_t)(czk_rng_u64(rng) % w->n);
    return v >= 1 && v <= n_public ? 0 : v;
}

static void eval_lc(czk_fr *value, const uint32_t *cols, const czk_fr *vals, size_t cnt,
                    const wvec *w) {
    czk_fr_set_zero(value);
    for (size_t i = 0; i < cnt; i++) {
        czk_fr t;
        czk_fr_mul(&t, &vals[i], &w->v[cols[i]]);
        czk_fr_add(value, value, &t);
    }
}

/* A random linear combination of up to `k` existing variables. */
static size_t rand_lc(uint32_t *cols, czk_fr *vals, size_t k, const wvec *w, size_t n_public,
                      czk_rng *rng) {
    size_t cnt = 1 + czk_rng_u64(rng) % k;
    for (size_t i = 0; i < cnt; i++) {
        cols[i] = rand_var(w, n_public, rng);
        rand_coef(&vals[i], rng);
    }
    return cnt;
}

/*
 * Builds a satisfied system with `n_public` public inputs and about `n_cons` constraints:
 * boolean constraints b·b = b, products v = <A,w>·<B,w> with v alone or with another term in
 * C, and one variable that no constraint mentions.
 */
static int test_circuit(tcirc *out, size_t n_public, size_t n_cons, czk_rng *rng) {
    memset(out, 0, sizeof(*out));
    czk_r1cs_builder *b = NULL;
    wvec w = {0};
    czk_err err;
    int rc = czk_r1cs_builder_create(&b, n_public, &err);
    if (rc != CZK_OK)
        return rc;
    czk_fr x;
    czk_fr_set_one(&x);
    rc = wvec_push(&w, &x);
    for (size_t i = 0; i < n_public && rc == CZK_OK; i++) {
        if (i % 3 == 0)
            czk_fr_set_u64(&x, i % 2); /* some 0/1 inputs */
        else
            czk_fr_random(&x, rng);
        rc = wvec_push(&w, &x);
    }
    uint32_t ac[4], bc[4], cc[2];
    czk_fr av[4], bv[4], cv[2], va, vb;
    for (size_t j = 0; j < n_cons && rc == CZK_OK; j++) {
        uint32_t v;
        if ((rc = czk_r1cs_builder_add_var(b, &v)) != CZK_OK)
            break;
        if (j % 4 == 1 && j >= n_public) { /* boolean: v·v = v */
            czk_fr_set_u64(&x, czk_rng_u64(rng) & 1);
            rc = wvec_push(&w, &x);
            czk_fr_set_one(&av[0]);
            ac[0] = bc[0] = cc[0] = v;
            bv[0] = cv[0] = av[0];
            if (rc == CZK_OK)
                rc = czk_r1cs_builder_add_constraint(b, ac, av, 1, bc, bv, 1, cc, cv, 1, &err);
            continue;
        }
        size_t na = rand_lc(ac, av, 3, &w, n_public, rng);
        size_t nb = rand_lc(bc, bv, 3, &w, n_public, rng);
        if (j < n_public) { /* every public input in one product: even ones in A, odd in B */
            if (j % 2 == 0)
                ac[0] = (uint32_t)(1 + j);
            else
                bc[0] = (uint32_t)(1 + j);
        }
        eval_lc(&va, ac, av, na, &w);
        eval_lc(&vb, bc, bv, nb, &w);
        czk_fr ab;
        czk_fr_mul(&ab, &va, &vb);
        size_t nc = 1;
        cc[0] = v;
        rand_coef(&cv[0], rng);
        czk_fr rhs = ab;
        if (j % 3 == 0) { /* C = k1·v + k2·u: v = (ab − k2·u)/k1 */
            cc[1] = rand_var(&w, n_public, rng);
            rand_coef(&cv[1], rng);
            czk_fr t;
            czk_fr_mul(&t, &cv[1], &w.v[cc[1]]);
            czk_fr_sub(&rhs, &rhs, &t);
            nc = 2;
        }
        czk_fr inv;
        czk_fr_inv_var(&inv, &cv[0]);
        czk_fr_mul(&x, &rhs, &inv);
        if ((rc = wvec_push(&w, &x)) != CZK_OK)
            break;
        /* The builder sums repeated columns, which the value computations above also do. */
        rc = czk_r1cs_builder_add_constraint(b, ac, av, na, bc, bv, nb, cc, cv, nc, &err);
    }
    if (rc == CZK_OK) { /* a variable no constraint mentions */
        uint32_t v;
        czk_fr_random(&x, rng);
        if ((rc = czk_r1cs_builder_add_var(b, &v)) == CZK_OK)
            rc = wvec_push(&w, &x);
    }
    if (rc == CZK_OK)
        rc = czk_r1cs_builder_finish(b, &out->cs, &err);
    czk_r1cs_builder_destroy(b);
    if (rc != CZK_OK || w.n != out->cs.n_vars) {
        free(w.v);
        czk_r1cs_clear(&out->cs);
        return rc != CZK_OK ? rc : CZK_EINTERNAL;
    }
    out->w = w.v;
    return CZK_OK;
}

/* ---- helpers ----------------------------------------------------------------------------- */

static void rand_rs(czk_fr *r, czk_fr *s, czk_rng *rng) {
    czk_fr_random(r, rng);
    czk_fr_random(s, rng);
}

/* The backend tests' start: a key of `basis` for c, fresh r and s and, when ref is not NULL,
 * the proof they give on `be`. */
static void key_rs_ref(czk_test_ctx *t, const tcirc *c, int basis, czk_groth16_pk *pk, czk_fr *r,
                       czk_fr *s, const czk_backend *be, czk_groth16_proof *ref) {
    CHECK_EQ_INT(czk_groth16_setup_dev(pk, &c->cs, (czk_groth16_h_basis)basis, &t->rng, NULL, NULL),
                 CZK_OK);
    rand_rs(r, s, &t->rng);
    czk_err err;
    if (ref != NULL)
        CHECK_EQ_INT(czk_groth16_prove(ref, pk, &c->cs, c->w, r, s, be, NULL, NULL, &err), CZK_OK);
}

/* key_rs_ref, returning from the caller when it failed. */
#define KEY_RS_REF(c, basis, pk, r, s, be, ref)                                                    \
    do {                                                                                           \
        int failures_ = t->failures;                                                               \
        key_rs_ref(t, (c), (basis), (pk), (r), (s), (be), (ref));                                  \
        if (t->failures != failures_)                                                              \
            return;                                                                                \
    } while (0)

/* Proves and verifies; returns the verifier's code (or the prover's on failure). */
static int prove_verify(const czk_groth16_pk *pk, const tcirc *c, const czk_backend *be,
                        czk_pool *pool, czk_rng *rng, czk_groth16_proof *proof_out) {
    czk_fr r, s;
    rand_rs(&r, &s, rng);
    czk_groth16_proof proof;
    czk_err err;
    int rc = czk_groth16_prove(&proof, pk, &c->cs, c->w, &r, &s, be, pool, NULL, &err);
    if (rc != CZK_OK) {
        fprintf(stderr, "prove: %s\n", err.msg);
        return rc;
    }
    if (proof_out != NULL)
        *proof_out = proof;
    czk_groth16_pvk pvk;
    if ((rc = czk_groth16_pvk_prepare(&pvk, &pk->vk, &err)) != CZK_OK)
        return rc;
    rc = czk_groth16_verify(&pvk, &proof, c->w + 1, c->cs.n_public, &err);
    if (rc != CZK_OK && rc != CZK_EVERIFY)
        fprintf(stderr, "verify: %s\n", err.msg);
    czk_groth16_pvk_clear(&pvk);
    return rc;
}

static int g1_in_group_or_inf(const czk_g1_affine *p) {
    return czk_g1_affine_is_infinity(p) || czk_g1_affine_is_in_group(p);
}

/* ---- round trips ------------------------------------------------------------------------- */

static void roundtrip(czk_test_ctx *t, czk_groth16_h_basis basis, size_t n_public, size_t n_cons) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, n_public, n_cons, &t->rng), CZK_OK);
    CHECK_EQ_INT(czk_r1cs_check(&c.cs, c.w, NULL, NULL, NULL), CZK_OK);
    czk_groth16_pk pk;
    czk_err err;
    int rc = czk_groth16_setup_dev(&pk, &c.cs, basis, &t->rng, NULL, &err);
    CHECKF(rc == CZK_OK, "setup: %s", err.msg);
    CHECK_EQ_INT(pk.h_basis, basis);
    CHECK_EQ_INT(pk.n_h, basis == CZK_H_MONOMIAL ? pk.domain_size - 1 : pk.domain_size);
    CHECK(pk.domain_size >= c.cs.n_constraints + n_public + 1);
    CHECK(pk.domain_size / 2 < c.cs.n_constraints + n_public + 1);
    for (size_t i = 0; i < pk.n_h; i += 7)
        CHECK(czk_g1_affine_is_in_group(&pk.h[i]) && !czk_g1_affine_is_infinity(&pk.h[i]));
    for (size_t i = 0; i < pk.n_l; i += 5)
        CHECK(g1_in_group_or_inf(&pk.l[i]));
    czk_groth16_proof p1, p2;
    size_t in_use = czk_alloc_in_use();
    rc = prove_verify(&pk, &c, czk_backend_cpu(), NULL, &t->rng, &p1);
    size_t leaked = czk_alloc_in_use() - in_use;
    /* Created after the count: a new pool's threads free their start-up arguments later. */
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    int rc2 = prove_verify(&pk, &c, czk_backend_cpu(), pool, &t->rng, &p2);
    czk_pool_destroy(pool);
    czk_groth16_pk_clear(&pk);
    tcirc_clear(&c);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK_EQ_INT(rc2, CZK_OK);
    CHECK_EQ_INT(leaked, 0); /* the prover frees all it allocates */
    /* Fresh r and s make the proofs differ. */
    CHECK(!czk_g1_affine_equal(&p1.a, &p2.a));
}

CZK_TEST(g16_roundtrip_monomial) {
    roundtrip(t, CZK_H_MONOMIAL, 3, 200);
}

CZK_TEST(g16_roundtrip_odd_coset) {
    roundtrip(t, CZK_H_ODD_COSET, 3, 200);
}

/* Domain boundaries: rows + 1 exactly a power of two (no padding), and one more. */
CZK_TEST(g16_roundtrip_domain_edges) {
    roundtrip(t, CZK_H_MONOMIAL, 2, 61);  /* 61 + 2 + 1 = 64 */
    roundtrip(t, CZK_H_ODD_COSET, 2, 61); /* no padding row */
    roundtrip(t, CZK_H_MONOMIAL, 2, 62);  /* 65: domain 128 */
    roundtrip(t, CZK_H_ODD_COSET, 1, 1);  /* tiny: domain 4 */
}

/* The smallest systems: no constraints at all (domain 1 or 2: only the input rows), and a
 * single constraint. */
static void tiny(czk_test_ctx *t, size_t n_public, size_t n_aux, int with_constraint) {
    tcirc c;
    memset(&c, 0, sizeof(c));
    czk_r1cs_builder *b = NULL;
    CHECK_EQ_INT(czk_r1cs_builder_create(&b, n_public, NULL), CZK_OK);
    uint32_t v = 0;
    for (size_t i = 0; i < n_aux; i++)
        CHECK_EQ_INT(czk_r1cs_builder_add_var(b, &v), CZK_OK);
    size_t nv = 1 + n_public + n_aux;
    c.w = malloc(nv * sizeof(czk_fr));
    CHECK(c.w != NULL);
    czk_fr_set_one(&c.w[0]);
    for (size_t i = 1; i < nv; i++)
        czk_fr_set_u64(&c.w[i], 3 + i);
    if (with_constraint) { /* w[last]·1 = w[last] */
        czk_fr one;
        czk_fr_set_one(&one);
        uint32_t zero = 0;
        CHECK_EQ_INT(
            czk_r1cs_builder_add_constraint(b, &v, &one, 1, &zero, &one, 1, &v, &one, 1, NULL),
            CZK_OK);
    }
    CHECK_EQ_INT(czk_r1cs_builder_finish(b, &c.cs, NULL), CZK_OK);
    czk_r1cs_builder_destroy(b);
    CHECK_EQ_INT(c.cs.n_vars, nv);
    for (int basis = 0; basis < 2; basis++) {
        czk_groth16_pk pk;
        czk_err err;
        int rc = czk_groth16_setup_dev(&pk, &c.cs, (czk_groth16_h_basis)basis, &t->rng, NULL, &err);
        CHECKF(rc == CZK_OK, "setup: %s", err.msg);
        rc = prove_verify(&pk, &c, czk_backend_cpu(), NULL, &t->rng, NULL);
        czk_groth16_pk_clear(&pk);
        CHECKF(rc == CZK_OK, "%zu public, %zu aux, %d constraint(s), basis %d: %s", n_public, n_aux,
               with_constraint, basis, czk_status_name(rc));
    }
    tcirc_clear(&c);
}

CZK_TEST(g16_tiny_circuits) {
    tiny(t, 0, 0, 0); /* only ONE: domain 1 */
    tiny(t, 0, 2, 0); /* unused aux variables */
    tiny(t, 1, 1, 0); /* domain 2 */
    tiny(t, 0, 1, 1); /* one constraint: domain 2 */
    tiny(t, 2, 1, 1); /* domain 4 */
}

CZK_TEST(g16_no_public_inputs) {
    roundtrip(t, CZK_H_MONOMIAL, 0, 50);
    roundtrip(t, CZK_H_ODD_COSET, 0, 50);
}

/* Circuits of the other engineers' generators: PoRep-shaped (mostly bits) at k = 6..10, and
 * the squaring chain (dense witness values), each with both key families. */
static void synth_roundtrip(czk_test_ctx *t, tcirc *c, czk_pool *pool) {
    for (int basis = 0; basis < 2; basis++) {
        czk_groth16_pk pk;
        czk_err err;
        int rc =
            czk_groth16_setup_dev(&pk, &c->cs, (czk_groth16_h_basis)basis, &t->rng, pool, &err);
        CHECKF(rc == CZK_OK, "setup: %s", err.msg);
        rc = prove_verify(&pk, c, czk_backend_cpu(), pool, &t->rng, NULL);
        czk_groth16_pk_clear(&pk);
        CHECKF(rc == CZK_OK, "basis %d, %zu constraints: %s", basis, c->cs.n_constraints,
               czk_status_name(rc));
    }
}

/* tcirc owns its witness with free(); the generators hand out czk_malloc'ed ones. */
static int adopt_witness(tcirc *c, czk_fr *w) {
    c->w = malloc(c->cs.n_vars * sizeof(*w));
    if (c->w != NULL)
        memcpy(c->w, w, c->cs.n_vars * sizeof(*w));
    czk_free(w);
    return c->w != NULL ? CZK_OK : CZK_ENOMEM;
}

CZK_TEST(g16_synth_porep_roundtrip) {
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    for (unsigned k = 6; k <= 10; k++) {
        tcirc c;
        czk_fr *w = NULL;
        memset(&c, 0, sizeof(c));
        CHECK_EQ_INT(czk_synth_porep_shaped(&c.cs, &w, k, 1000 + k, pool, NULL), CZK_OK);
        CHECK_EQ_INT(adopt_witness(&c, w), CZK_OK);
        CHECK_EQ_INT(czk_groth16_domain_lg(&c.cs), k);
        synth_roundtrip(t, &c, k % 2 ? pool : NULL);
        tcirc_clear(&c);
    }
    czk_pool_destroy(pool);
}

CZK_TEST(g16_squaring_chain_roundtrip) {
    tcirc c;
    czk_fr *w = NULL;
    memset(&c, 0, sizeof(c));
    CHECK_EQ_INT(czk_synth_squaring_chain(&c.cs, &w, 300, 4, 77, NULL), CZK_OK);
    CHECK_EQ_INT(adopt_witness(&c, w), CZK_OK);
    synth_roundtrip(t, &c, NULL);
    tcirc_clear(&c);
}

/* One circuit, both key families: each proof verifies under its own key only. */
CZK_TEST(g16_both_bases_same_circuit) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 4, 150, &t->rng), CZK_OK);
    czk_groth16_pk pm, po;
    czk_err err;
    CHECK_EQ_INT(czk_groth16_setup_dev(&pm, &c.cs, CZK_H_MONOMIAL, &t->rng, NULL, &err), CZK_OK);
    CHECK_EQ_INT(czk_groth16_setup_dev(&po, &c.cs, CZK_H_ODD_COSET, &t->rng, NULL, &err), CZK_OK);
    CHECK_EQ_INT(pm.density, CZK_DENSITY_FILTERED);
    CHECK_EQ_INT(po.density, CZK_DENSITY_DENSE);
    CHECK_EQ_INT(pm.domain_size, po.domain_size);
    czk_groth16_proof prm, pro;
    CHECK_EQ_INT(prove_verify(&pm, &c, czk_backend_cpu(), NULL, &t->rng, &prm), CZK_OK);
    CHECK_EQ_INT(prove_verify(&po, &c, czk_backend_cpu(), NULL, &t->rng, &pro), CZK_OK);
    czk_groth16_pvk pvm;
    CHECK_EQ_INT(czk_groth16_pvk_prepare(&pvm, &pm.vk, &err), CZK_OK);
    int rc = czk_groth16_verify(&pvm, &pro, c.w + 1, c.cs.n_public, NULL);
    czk_groth16_pvk_clear(&pvm);
    czk_groth16_pk_clear(&pm);
    czk_groth16_pk_clear(&po);
    tcirc_clear(&c);
    CHECK_EQ_INT(rc, CZK_EVERIFY);
}

/* The filtered layout keeps exactly bellperson's points; the dense one has infinity for
 * exactly the unused variables. */
CZK_TEST(g16_density_layouts) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 3, 120, &t->rng), CZK_OK);
    size_t nv = c.cs.n_vars, words = (nv + 63) / 64, np1 = c.cs.n_public + 1;
    uint64_t *ab = calloc(words, 8), *bb = calloc(words, 8);
    CHECK(ab != NULL && bb != NULL);
    CHECK_EQ_INT(czk_r1cs_density(&c.cs, ab, bb), CZK_OK);
    size_t na = np1, nb = 0, unused_a = 0;
    for (size_t i = 0; i < nv; i++) {
        int a = (ab[i / 64] >> (i % 64)) & 1, b = (bb[i / 64] >> (i % 64)) & 1;
        na += i >= np1 && a;
        nb += b;
        unused_a += i >= np1 && !a;
    }
    CHECK(unused_a > 0);        /* the circuit has holes */
    CHECK(!((ab[0] >> 2) & 1)); /* public input 2 (variable 2) occurs in B only */
    CHECK((bb[0] >> 2) & 1);
    CHECK(nb < nv);
    czk_groth16_pk pm, po;
    CHECK_EQ_INT(czk_groth16_setup_dev(&pm, &c.cs, CZK_H_MONOMIAL, &t->rng, NULL, NULL), CZK_OK);
    CHECK_EQ_INT(czk_groth16_setup_dev(&po, &c.cs, CZK_H_ODD_COSET, &t->rng, NULL, NULL), CZK_OK);
    CHECK_EQ_INT(pm.n_a, na);
    CHECK_EQ_INT(pm.n_b_g1, nb);
    CHECK_EQ_INT(pm.n_b_g2, nb);
    CHECK_EQ_INT(pm.n_l, nv - np1);
    CHECK_EQ_INT(pm.vk.n_ic, np1);
    for (size_t i = 0; i < pm.n_a; i++)
        CHECK(!czk_g1_affine_is_infinity(&pm.a[i]));
    for (size_t i = 0; i < pm.n_b_g1; i++)
        CHECK(!czk_g1_affine_is_infinity(&pm.b_g1[i]) && !czk_g2_affine_is_infinity(&pm.b_g2[i]));
    CHECK_EQ_INT(po.n_a, nv);
    for (size_t i = 0; i < nv; i++) {
        int a = i < np1 || ((ab[i / 64] >> (i % 64)) & 1), b = (bb[i / 64] >> (i % 64)) & 1;
        CHECK_EQ_INT(czk_g1_affine_is_infinity(&po.a[i]), !a);
        CHECK_EQ_INT(czk_g1_affine_is_infinity(&po.b_g1[i]), !b);
        CHECK_EQ_INT(czk_g2_affine_is_infinity(&po.b_g2[i]), !b);
        CHECK(czk_g2_affine_is_in_group(&po.b_g2[i]));
    }
    free(ab);
    free(bb);
    czk_groth16_pk_clear(&pm);
    czk_groth16_pk_clear(&po);
    tcirc_clear(&c);
}

/* ---- rejections -------------------------------------------------------------------------- */

/* A test circuit with DEV keys, a proof of its witness and the prepared verifying key: what
 * the rejection tests tamper with. */
typedef struct proved {
    tcirc c;
    czk_groth16_pk pk;
    czk_groth16_proof proof;
    czk_groth16_pvk pvk;
} proved;

static void proved_steps(czk_test_ctx *t, proved *p, size_t n_public, size_t n_cons,
                         czk_groth16_h_basis basis) {
    CHECK_EQ_INT(test_circuit(&p->c, n_public, n_cons, &t->rng), CZK_OK);
    CHECK_EQ_INT(czk_groth16_setup_dev(&p->pk, &p->c.cs, basis, &t->rng, NULL, NULL), CZK_OK);
    CHECK_EQ_INT(prove_verify(&p->pk, &p->c, czk_backend_cpu(), NULL, &t->rng, &p->proof), CZK_OK);
    CHECK_EQ_INT(czk_groth16_pvk_prepare(&p->pvk, &p->pk.vk, NULL), CZK_OK);
}

/* Makes p, checking every step; 0 when one failed (the test has failed, the caller returns). */
static int proved_make(czk_test_ctx *t, proved *p, size_t n_public, size_t n_cons,
                       czk_groth16_h_basis basis) {
    int before = t->failures;
    proved_steps(t, p, n_public, n_cons, basis);
    return t->failures == before;
}

static void proved_clear(proved *p) {
    czk_groth16_pvk_clear(&p->pvk);
    czk_groth16_pk_clear(&p->pk);
    tcirc_clear(&p->c);
}

static void wrong_input(czk_test_ctx *t, czk_groth16_h_basis basis) {
    proved p;
    if (!proved_make(t, &p, 3, 100, basis))
        return;
    czk_fr in[3];
    memcpy(in, p.c.w + 1, sizeof(in));
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &p.proof, in, 3, NULL), CZK_OK);
    for (int i = 0; i < 3; i++) {
        czk_fr saved = in[i], one;
        czk_fr_set_one(&one);
        czk_fr_add(&in[i], &in[i], &one);
        CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &p.proof, in, 3, NULL), CZK_EVERIFY);
        in[i] = saved;
    }
    czk_err err;
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &p.proof, in, 2, &err), CZK_EINVAL);
    CHECK(strstr(err.msg, "public inputs") != NULL);
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &p.proof, in, 4, NULL), CZK_EINVAL);
    proved_clear(&p);
}

CZK_TEST(g16_wrong_public_input_rejected) {
    wrong_input(t, CZK_H_MONOMIAL);
    wrong_input(t, CZK_H_ODD_COSET);
}

/* p += G, for a proof element that no longer fits. */
static void g1_add_generator(czk_g1_affine *p) {
    czk_g1_jacobian j, g;
    czk_g1_jacobian_from_affine(&g, &CZK_G1_GENERATOR);
    czk_g1_jacobian_from_affine(&j, p);
    czk_g1_jacobian_add(&j, &j, &g);
    czk_g1_jacobian_to_affine(p, &j);
}

CZK_TEST(g16_tampered_proof_rejected) {
    proved p;
    if (!proved_make(t, &p, 2, 100, CZK_H_MONOMIAL))
        return;
    czk_groth16_proof bad;
    const czk_fr *in = p.c.w + 1;
    bad = p.proof; /* A + G */
    g1_add_generator(&bad.a);
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EVERIFY);
    bad = p.proof; /* B + G2 */
    czk_g2_jacobian j2, g2;
    czk_g2_jacobian_from_affine(&g2, &CZK_G2_GENERATOR);
    czk_g2_jacobian_from_affine(&j2, &bad.b);
    czk_g2_jacobian_add(&j2, &j2, &g2);
    czk_g2_jacobian_to_affine(&bad.b, &j2);
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EVERIFY);
    bad = p.proof; /* C + G */
    g1_add_generator(&bad.c);
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EVERIFY);
    bad = p.proof; /* −A */
    czk_g1_affine_neg(&bad.a, &bad.a);
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EVERIFY);
    bad = p.proof; /* A and C swapped */
    bad.a = p.proof.c;
    bad.c = p.proof.a;
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EVERIFY);
    bad = p.proof; /* A at infinity is a group element: the pairing refuses it */
    memset(&bad.a, 0, sizeof(bad.a));
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EVERIFY);
    /* Points outside the subgroups never reach the pairing. */
    bad = p.proof;
    czk_g1_random_on_curve(&bad.a, &t->rng);
    CHECK(!czk_g1_affine_is_in_group(&bad.a));
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EINVAL);
    bad = p.proof;
    czk_g2_random_on_curve(&bad.b, &t->rng);
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EINVAL);
    bad = p.proof;
    bad.c.y = bad.c.x; /* off the curve */
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &bad, in, 2, NULL), CZK_EINVAL);
    CHECK_EQ_INT(czk_groth16_verify(&p.pvk, &p.proof, in, 2, NULL), CZK_OK);
    proved_clear(&p);
}

/* A witness that breaks one constraint still "proves", and the proof does not verify. */
static void bad_witness(czk_test_ctx *t, czk_groth16_h_basis basis) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 2, 100, &t->rng), CZK_OK);
    czk_groth16_pk pk;
    CHECK_EQ_INT(czk_groth16_setup_dev(&pk, &c.cs, basis, &t->rng, NULL, NULL), CZK_OK);
    size_t v = c.cs.n_vars - 2; /* the last product's output (the last variable is unused) */
    czk_fr one;
    czk_fr_set_one(&one);
    czk_fr_add(&c.w[v], &c.w[v], &one);
    size_t bad_row = 0;
    CHECK_EQ_INT(czk_r1cs_check(&c.cs, c.w, &bad_row, NULL, NULL), CZK_EVERIFY);
    int rc = prove_verify(&pk, &c, czk_backend_cpu(), NULL, &t->rng, NULL);
    czk_groth16_pk_clear(&pk);
    tcirc_clear(&c);
    CHECK_EQ_INT(rc, CZK_EVERIFY);
}

CZK_TEST(g16_unsatisfied_witness_fails) {
    bad_witness(t, CZK_H_MONOMIAL);
    bad_witness(t, CZK_H_ODD_COSET);
}

/* r = s = 0 is a valid (non-hiding) proof, the same every time. */
CZK_TEST(g16_zero_blinding) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 2, 80, &t->rng), CZK_OK);
    for (int basis = 0; basis < 2; basis++) {
        czk_groth16_pk pk;
        CHECK_EQ_INT(
            czk_groth16_setup_dev(&pk, &c.cs, (czk_groth16_h_basis)basis, &t->rng, NULL, NULL),
            CZK_OK);
        czk_fr zero;
        czk_fr_set_zero(&zero);
        czk_groth16_proof p1, p2;
        CHECK_EQ_INT(czk_groth16_prove(&p1, &pk, &c.cs, c.w, &zero, &zero, czk_backend_cpu(), NULL,
                                       NULL, NULL),
                     CZK_OK);
        CHECK_EQ_INT(czk_groth16_prove(&p2, &pk, &c.cs, c.w, &zero, &zero, czk_backend_cpu(), NULL,
                                       NULL, NULL),
                     CZK_OK);
        CHECK(memcmp(&p1, &p2, sizeof(p1)) == 0);
        czk_groth16_pvk pvk;
        CHECK_EQ_INT(czk_groth16_pvk_prepare(&pvk, &pk.vk, NULL), CZK_OK);
        int rc = czk_groth16_verify(&pvk, &p1, c.w + 1, 2, NULL);
        /* r = 0 with s random, and r random with s = 0. */
        czk_fr x;
        czk_fr_random(&x, &t->rng);
        int rc_r =
            czk_groth16_prove(&p1, &pk, &c.cs, c.w, &zero, &x, czk_backend_cpu(), NULL, NULL, NULL);
        int rc_r2 = rc_r == CZK_OK ? czk_groth16_verify(&pvk, &p1, c.w + 1, 2, NULL) : rc_r;
        int rc_s =
            czk_groth16_prove(&p1, &pk, &c.cs, c.w, &x, &zero, czk_backend_cpu(), NULL, NULL, NULL);
        int rc_s2 = rc_s == CZK_OK ? czk_groth16_verify(&pvk, &p1, c.w + 1, 2, NULL) : rc_s;
        czk_groth16_pvk_clear(&pvk);
        czk_groth16_pk_clear(&pk);
        CHECK_EQ_INT(rc, CZK_OK);
        CHECK_EQ_INT(rc_r2, CZK_OK);
        CHECK_EQ_INT(rc_s2, CZK_OK);
    }
    tcirc_clear(&c);
}

/* ---- the prover's shape checks ----------------------------------------------------------- */

CZK_TEST(g16_prove_dimension_mismatch) {
    tcirc c, d;
    CHECK_EQ_INT(test_circuit(&c, 2, 60, &t->rng), CZK_OK);
    CHECK_EQ_INT(test_circuit(&d, 3, 60, &t->rng), CZK_OK);
    czk_groth16_pk pk, po;
    CHECK_EQ_INT(czk_groth16_setup_dev(&pk, &c.cs, CZK_H_MONOMIAL, &t->rng, NULL, NULL), CZK_OK);
    CHECK_EQ_INT(czk_groth16_setup_dev(&po, &c.cs, CZK_H_ODD_COSET, &t->rng, NULL, NULL), CZK_OK);
    const czk_backend *be = czk_backend_cpu();
    czk_fr r, s;
    rand_rs(&r, &s, &t->rng);
    czk_groth16_proof proof;
    czk_err err;
    czk_groth16_pk k;
#define EXPECT_EINVAL(key, circ, wit, backend, needle)                                             \
    do {                                                                                           \
        err.msg[0] = 0;                                                                            \
        CHECK_EQ_INT(                                                                              \
            czk_groth16_prove(&proof, (key), (circ), (wit), &r, &s, (backend), NULL, NULL, &err),  \
            CZK_EINVAL);                                                                           \
        CHECKF(strstr(err.msg, (needle)) != NULL, "message '%s' lacks '%s'", err.msg, (needle));   \
    } while (0)

/* EXPECT_EINVAL of c on a copy k of `base` with `edit` (an expression on k) applied. */
#define EXPECT_KEY_EINVAL(base, edit, needle)                                                      \
    do {                                                                                           \
        k = (base);                                                                                \
        (void)(edit);                                                                              \
        EXPECT_EINVAL(&k, &c.cs, c.w, be, needle);                                                 \
    } while (0)

    CHECK_EQ_INT(czk_groth16_prove(&proof, &pk, &c.cs, c.w, &r, &s, be, NULL, NULL, &err), CZK_OK);
    /* Another circuit: different n_public. */
    EXPECT_EINVAL(&pk, &d.cs, d.w, be, "public");
    /* Same publics, one more variable. */
    czk_r1cs wide = c.cs;
    wide.n_vars++;
    EXPECT_EINVAL(&pk, &wide, c.w, be, "variables");
    /* More constraints than the domain holds. */
    czk_r1cs tall = d.cs;
    tall.n_public = c.cs.n_public;
    tall.n_vars = c.cs.n_vars;
    tall.n_constraints = pk.domain_size;
    EXPECT_EINVAL(&pk, &tall, c.w, be, "domain");
    /* w[0] != 1. */
    czk_fr w0 = c.w[0];
    czk_fr_set_u64(&c.w[0], 2);
    EXPECT_EINVAL(&pk, &c.cs, c.w, be, "w[0]");
    c.w[0] = w0;
    /* Truncated vectors of the key. */
    EXPECT_KEY_EINVAL(pk, (k.n_h--), "H points");
    EXPECT_KEY_EINVAL(pk, (k.n_l--), "L points");
    EXPECT_KEY_EINVAL(pk, (k.n_a--), "density");
    EXPECT_KEY_EINVAL(pk, (k.n_b_g2--), "B_G2");
    EXPECT_KEY_EINVAL(pk, (k.vk.n_ic++), "IC");
    EXPECT_KEY_EINVAL(pk, (k.domain_size *= 3), "power of two");
    EXPECT_KEY_EINVAL(po, (k.n_a--), "dense");
    /* n H points where n − 1 are expected */
    EXPECT_KEY_EINVAL(po, (k.h_basis = CZK_H_MONOMIAL), "H points");
    /* A filtered key whose counts match but whose layout is another circuit's. */
    EXPECT_KEY_EINVAL(pk, (k.density = CZK_DENSITY_FILTERED, k.n_a = pk.n_a + 1), "density");
    /* An incomplete backend. */
    czk_backend half = *be;
    half.msm_g2 = NULL;
    EXPECT_EINVAL(&pk, &c.cs, c.w, &half, "backend");
    EXPECT_EINVAL(&pk, &c.cs, c.w, NULL, "backend");
#undef EXPECT_EINVAL
#undef EXPECT_KEY_EINVAL
    /* Failed calls leave nothing allocated; failed setups leave an empty key. */
    size_t in_use = czk_alloc_in_use();
    k = pk;
    k.n_a++;
    czk_groth16_prove(&proof, &k, &c.cs, c.w, &r, &s, be, NULL, NULL, NULL);
    CHECK_EQ_INT(czk_alloc_in_use(), in_use);
    czk_groth16_pk bad;
    CHECK_EQ_INT(czk_groth16_setup_dev(&bad, &c.cs, (czk_groth16_h_basis)7, &t->rng, NULL, &err),
                 CZK_EINVAL);
    CHECK(bad.h == NULL && bad.vk.ic == NULL);
    czk_r1cs noc = c.cs;
    noc.c.row_ptr = NULL; /* a zkey-only system: no C_i(τ) to put in a key */
    CHECK_EQ_INT(czk_groth16_setup_dev(&bad, &noc, CZK_H_MONOMIAL, &t->rng, NULL, &err),
                 CZK_EINVAL);
    CHECK_EQ_INT(czk_alloc_in_use(), in_use);
    czk_groth16_pk_clear(&pk);
    czk_groth16_pk_clear(&po);
    tcirc_clear(&c);
    tcirc_clear(&d);
}

/* A prove_sums that declines every proof, as a GPU backend without the circuit does. */
static int declining_sums(void *ctx, const czk_backend_key *key, const czk_groth16_pk *pk,
                          const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                          czk_backend_sums *out, czk_groth16_timings *tm, czk_pool *pool,
                          czk_err *err) {
    (void)ctx, (void)key, (void)pk, (void)cs, (void)w, (void)wp, (void)out, (void)tm, (void)pool;
    return czk_err_set(err, CZK_EUNSUPPORTED, "no circuit here");
}

/* A system of sizes only (czk_r1cs_rep_dims: matrices NULL) has no rows to prove step by
 * step: with the key and witness that prove the system itself, the prover refuses it with
 * CZK_EINVAL (on the CPU backend, and on one whose prove_sums declines), allocating nothing. */
CZK_TEST(g16_prove_header_only_refused) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 2, 60, &t->rng), CZK_OK);
    const czk_r1cs_rep rep = {.block = c.cs, .copies = 1}; /* borrows c's system: not cleared */
    czk_r1cs hdr;
    czk_err err;
    CHECK_EQ_INT(czk_r1cs_rep_dims(&rep, &hdr, &err), CZK_OK);
    CHECK(hdr.a.row_ptr == NULL && hdr.b.row_ptr == NULL && hdr.c.row_ptr == NULL);
    CHECK_EQ_INT(hdr.n_constraints, c.cs.n_constraints);
    czk_backend declines = *czk_backend_cpu();
    declines.prove_sums = declining_sums;
    const czk_backend *bes[2] = {czk_backend_cpu(), &declines};
    for (int basis = 0; basis < 2; basis++) {
        czk_groth16_pk pk;
        czk_groth16_proof proof;
        czk_fr r, s;
        KEY_RS_REF(&c, basis, &pk, &r, &s, NULL, NULL);
        for (int i = 0; i < 2; i++) {
            CHECK_EQ_INT(
                czk_groth16_prove(&proof, &pk, &c.cs, c.w, &r, &s, bes[i], NULL, NULL, &err),
                CZK_OK);
            size_t in_use = czk_alloc_in_use();
            err.msg[0] = 0;
            CHECK_EQ_INT(
                czk_groth16_prove(&proof, &pk, &hdr, c.w, &r, &s, bes[i], NULL, NULL, &err),
                CZK_EINVAL);
            CHECKF(strstr(err.msg, "rows are not on the host") != NULL, "message '%s'", err.msg);
            CHECK_EQ_INT(czk_alloc_in_use(), in_use);
        }
        czk_groth16_pk_clear(&pk);
    }
    tcirc_clear(&c);
}

/* ---- the backend ------------------------------------------------------------------------- */

/*
 * What the prover hands each MSM (groth16/backend.h): the key it was given, the array the
 * points are (the key's whole array), and raw scalars, ones included (the backends' MSMs
 * split them off themselves): the witness values of the variables the points stand for, in
 * order (gathered by the density for a filtered key, the witness in place for a dense one),
 * the auxiliary values for L.
 */
typedef struct msm_probe {
    const czk_groth16_pk *pk;
    const czk_fr *w;
    const uint64_t *a_bits, *b_bits; /* the circuit's density; NULL for a dense key */
    size_t n_pub1;
    const czk_backend_key *key; /* what every call must carry */
    int calls[CZK_KEY_ARRAY_H + 1];
    int bad;     /* calls whose inputs were not as described */
    size_t ones; /* scalars equal to 1 that reached an MSM */
} msm_probe;

/* Whether sc[0..n) are the raw scalars of array `which` (not H: those are h's). */
static int probe_scalars_ok(const msm_probe *pr, czk_key_array which, const czk_fr *sc, size_t n) {
    if (which == CZK_KEY_ARRAY_L)
        return n == pr->pk->n_vars - pr->n_pub1 &&
               memcmp(sc, pr->w + pr->n_pub1, n * sizeof(czk_fr)) == 0;
    const uint64_t *bits = which == CZK_KEY_ARRAY_A ? pr->a_bits : pr->b_bits;
    size_t k = 0;
    for (size_t v = 0; v < pr->pk->n_vars; v++) {
        int take = bits == NULL || (which == CZK_KEY_ARRAY_A && v < pr->n_pub1) ||
                   ((bits[v / 64] >> (v % 64)) & 1);
        if (!take)
            continue;
        if (k >= n || memcmp(&sc[k], &pr->w[v], sizeof(czk_fr)) != 0)
            return 0;
        k++;
    }
    return k == n;
}

static void probe_note(msm_probe *pr, const czk_backend_key *key, czk_key_array which,
                       const void *pts, const void *want_pts, size_t n, size_t want_n,
                       const czk_fr *sc) {
    if (which >= CZK_KEY_ARRAY_A && which <= CZK_KEY_ARRAY_H)
        pr->calls[which]++;
    if (key != pr->key || pts != want_pts || n != want_n ||
        (which != CZK_KEY_ARRAY_H && !probe_scalars_ok(pr, which, sc, n)))
        pr->bad++;
    for (size_t i = 0; i < n && which != CZK_KEY_ARRAY_H; i++)
        pr->ones += czk_fr_is_one(&sc[i]);
}

static int probe_msm_g1(void *ctx, czk_g1_jacobian *out, const czk_backend_key *key,
                        czk_key_array which, const czk_g1_affine *pts, const czk_fr *sc, size_t n,
                        czk_pool *pool, czk_err *err) {
    msm_probe *pr = ctx;
    const czk_groth16_pk *pk = pr->pk;
    const czk_g1_affine *want = which == CZK_KEY_ARRAY_A      ? pk->a
                                : which == CZK_KEY_ARRAY_B_G1 ? pk->b_g1
                                : which == CZK_KEY_ARRAY_L    ? pk->l
                                : which == CZK_KEY_ARRAY_H    ? pk->h
                                                              : NULL;
    size_t want_n = which == CZK_KEY_ARRAY_A      ? pk->n_a
                    : which == CZK_KEY_ARRAY_B_G1 ? pk->n_b_g1
                    : which == CZK_KEY_ARRAY_L    ? pk->n_l
                    : which == CZK_KEY_ARRAY_H    ? pk->n_h
                                                  : SIZE_MAX;
    probe_note(pr, key, which, pts, want, n, want_n, sc);
    const czk_backend *cpu = czk_backend_cpu();
    return cpu->msm_g1(cpu->ctx, out, NULL, which, pts, sc, n, pool, err);
}

static int probe_msm_g2(void *ctx, czk_g2_jacobian *out, const czk_backend_key *key,
                        czk_key_array which, const czk_g2_affine *pts, const czk_fr *sc, size_t n,
                        czk_pool *pool, czk_err *err) {
    msm_probe *pr = ctx;
    probe_note(pr, key, which, pts, which == CZK_KEY_ARRAY_B_G2 ? pr->pk->b_g2 : NULL, n,
               pr->pk->n_b_g2, sc);
    const czk_backend *cpu = czk_backend_cpu();
    return cpu->msm_g2(cpu->ctx, out, NULL, which, pts, sc, n, pool, err);
}

/* Every MSM gets the key, its array and raw scalars as described above, for both layouts,
 * with and without a key; the proofs are the CPU backend's bit for bit. The CPU backend,
 * which keeps no keys, refuses one. */
CZK_TEST(g16_prover_msm_inputs) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 3, 150, &t->rng), CZK_OK);
    size_t words = (c.cs.n_vars + 63) / 64;
    uint64_t *ab = calloc(words, 8), *bb = calloc(words, 8);
    CHECK(ab != NULL && bb != NULL);
    CHECK_EQ_INT(czk_r1cs_density(&c.cs, ab, bb), CZK_OK);
    for (int basis = 0; basis < 2; basis++) {
        czk_groth16_pk pk;
        czk_fr r, s;
        czk_groth16_proof ref, p;
        czk_err err;
        KEY_RS_REF(&c, basis, &pk, &r, &s, czk_backend_cpu(), &ref);
        msm_probe pr;
        memset(&pr, 0, sizeof(pr));
        pr.pk = &pk;
        pr.w = c.w;
        pr.n_pub1 = c.cs.n_public + 1;
        if (pk.density == CZK_DENSITY_FILTERED) {
            pr.a_bits = ab;
            pr.b_bits = bb;
        }
        czk_backend be = *czk_backend_cpu();
        be.ctx = &pr;
        be.msm_g1 = probe_msm_g1;
        be.msm_g2 = probe_msm_g2;
        for (int with_key = 0; with_key < 2; with_key++) {
            pr.key = with_key ? (const czk_backend_key *)&pr : NULL; /* any handle will do */
            memset(pr.calls, 0, sizeof(pr.calls));
            pr.bad = 0;
            pr.ones = 0;
            memset(&p, 0, sizeof(p));
            int rc = czk_groth16_prove_ex(&p, &pk, &c.cs, c.w, NULL, pr.key, &r, &s, &be, NULL,
                                          NULL, &err);
            CHECKF(rc == CZK_OK, "%s", err.msg);
            CHECK(memcmp(&p, &ref, sizeof(p)) == 0);
            CHECKF(pr.bad == 0, "basis %d, key %d: %d MSMs got other inputs", basis, with_key,
                   pr.bad);
            for (int a = CZK_KEY_ARRAY_A; a <= CZK_KEY_ARRAY_H; a++)
                CHECKF(pr.calls[a] == 1, "array %d: %d calls", a, pr.calls[a]);
            CHECK(pr.ones > 0); /* the witness's bits went to the MSMs as they are */
        }
        CHECK_EQ_INT(czk_groth16_prove_ex(&p, &pk, &c.cs, c.w, NULL, (const czk_backend_key *)&pr,
                                          &r, &s, czk_backend_cpu(), NULL, NULL, &err),
                     CZK_EINVAL);
        czk_groth16_pk_clear(&pk);
    }
    free(ab);
    free(bb);
    tcirc_clear(&c);
}

/* A host allocator that counts, marks its buffers and fails on request (backend.h). */
typedef struct counting_alloc {
    int allocs, frees, fail_after; /* fail_after < 0: never fail */
    size_t live_bytes, max_bytes;
} counting_alloc;

static void *counting_host_alloc(void *ctx, size_t bytes) {
    counting_alloc *ca = ctx;
    if (ca->fail_after >= 0 && ca->allocs >= ca->fail_after)
        return NULL;
    ca->allocs++;
    ca->live_bytes += bytes;
    if (ca->live_bytes > ca->max_bytes)
        ca->max_bytes = ca->live_bytes;
    void *p = czk_malloc(bytes);
    if (p != NULL)
        memset(p, 0xa5, bytes); /* garbage: the prover must write what it reads */
    return p;
}

static void counting_host_free(void *ctx, void *p, size_t bytes) {
    counting_alloc *ca = ctx;
    ca->frees++;
    ca->live_bytes -= bytes;
    czk_free(p);
}

/* The prover takes its large arrays from the backend's host allocator, gives every one back
 * with the size it asked for, and falls back to czk_malloc when the allocator says no; the
 * proofs are the CPU backend's bit for bit. */
CZK_TEST(g16_backend_host_alloc) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 2, 300, &t->rng), CZK_OK);
    for (int basis = 0; basis < 2; basis++) {
        czk_groth16_pk pk;
        czk_fr r, s;
        czk_groth16_proof ref;
        czk_err err;
        KEY_RS_REF(&c, basis, &pk, &r, &s, czk_backend_cpu(), &ref);
        for (int fail_after = -1; fail_after < 3; fail_after++) {
            counting_alloc ca = {.fail_after = fail_after};
            czk_backend be = *czk_backend_cpu();
            be.ctx = &ca; /* the CPU entries ignore ctx */
            be.host_alloc = counting_host_alloc;
            be.host_free = counting_host_free;
            czk_groth16_proof p;
            size_t in_use = czk_alloc_in_use() - ca.live_bytes;
            int rc = czk_groth16_prove(&p, &pk, &c.cs, c.w, &r, &s, &be, NULL, NULL, &err);
            CHECKF(rc == CZK_OK, "%s", err.msg);
            CHECK(memcmp(&p, &ref, sizeof(p)) == 0);
            CHECK_EQ_INT(ca.allocs, ca.frees);
            CHECK_EQ_INT(ca.live_bytes, 0);
            CHECK_EQ_INT(czk_alloc_in_use(), in_use);
            if (fail_after < 0)
                CHECK(ca.allocs >= 3 && ca.max_bytes >= 3 * pk.domain_size * sizeof(czk_fr));
            else
                CHECK_EQ_INT(ca.allocs, fail_after);
        }
        czk_groth16_pk_clear(&pk);
    }
    tcirc_clear(&c);
}

/* prove_sums: a backend records the CPU's MSM results in call order (H, A, B_G1, L for G1;
 * B_G2), then a fake backend hands them back through prove_sums. */
typedef struct sums_rec {
    czk_g1_jacobian g1[4];
    czk_g2_jacobian g2;
    int n_g1, mode; /* mode: 0 give the recorded sums, 1 EUNSUPPORTED, 2 EIO */
    int calls, msm_calls;
    int packs;                  /* packs given to prove_sums that expanded to its w */
    const czk_backend_key *key; /* the key the prover was given */
    int key_ok;                 /* prove_sums calls that got it */
} sums_rec;

static int rec_msm_g1(void *ctx, czk_g1_jacobian *out, const czk_backend_key *key,
                      czk_key_array which, const czk_g1_affine *pts, const czk_fr *sc, size_t n,
                      czk_pool *pool, czk_err *err) {
    sums_rec *sr = ctx;
    const czk_backend *cpu = czk_backend_cpu();
    (void)key; /* g16_prover_msm_inputs checks what the MSMs get */
    sr->msm_calls++;
    int rc = cpu->msm_g1(cpu->ctx, out, NULL, which, pts, sc, n, pool, err);
    if (rc == CZK_OK && sr->n_g1 < 4)
        sr->g1[sr->n_g1++] = *out;
    return rc;
}

static int rec_msm_g2(void *ctx, czk_g2_jacobian *out, const czk_backend_key *key,
                      czk_key_array which, const czk_g2_affine *pts, const czk_fr *sc, size_t n,
                      czk_pool *pool, czk_err *err) {
    sums_rec *sr = ctx;
    const czk_backend *cpu = czk_backend_cpu();
    (void)key;
    int rc = cpu->msm_g2(cpu->ctx, out, NULL, which, pts, sc, n, pool, err);
    if (rc == CZK_OK)
        sr->g2 = *out;
    return rc;
}

static int fake_prove_sums(void *ctx, const czk_backend_key *key, const czk_groth16_pk *pk,
                           const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                           czk_backend_sums *out, czk_groth16_timings *tm, czk_pool *pool,
                           czk_err *err) {
    sums_rec *sr = ctx;
    (void)pk, (void)tm, (void)pool;
    sr->calls++;
    sr->key_ok += key == sr->key;
    if (wp != NULL) {
        /* What a device would upload instead of w: it must be w. */
        czk_fr *x = czk_malloc(cs->n_vars * sizeof(czk_fr));
        if (x == NULL)
            return czk_err_set(err, CZK_ENOMEM, "test");
        czk_witness_pack_expand(x, wp);
        sr->packs += wp->n == cs->n_vars && memcmp(x, w, cs->n_vars * sizeof(czk_fr)) == 0;
        czk_free(x);
    }
    if (sr->mode == 1)
        return czk_err_set(err, CZK_EUNSUPPORTED, "not resident");
    if (sr->mode == 2)
        return czk_err_set(err, CZK_EIO, "device fault");
    out->h = sr->g1[0];
    out->a = sr->g1[1];
    out->b_g1 = sr->g1[2];
    out->l = sr->g1[3];
    out->b_g2 = sr->g2;
    return CZK_OK;
}

/* A backend's prove_sums replaces every heavy step: its sums give the same proof; when it
 * says EUNSUPPORTED the step-by-step entries run; any other error is the prover's. It gets
 * the key the prover was given. */
CZK_TEST(g16_backend_prove_sums) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 2, 200, &t->rng), CZK_OK);
    for (int basis = 0; basis < 2; basis++) {
        sums_rec sr;
        memset(&sr, 0, sizeof(sr));
        czk_backend rec = *czk_backend_cpu();
        rec.ctx = &sr;
        rec.msm_g1 = rec_msm_g1;
        rec.msm_g2 = rec_msm_g2;
        czk_groth16_pk pk;
        czk_fr r, s;
        czk_groth16_proof ref, p;
        czk_err err;
        KEY_RS_REF(&c, basis, &pk, &r, &s, &rec, &ref);
        CHECK_EQ_INT(sr.n_g1, 4);
        for (int mode = 0; mode < 3; mode++) {
            czk_backend be = rec;
            be.prove_sums = fake_prove_sums;
            sr.mode = mode;
            sr.calls = 0;
            sr.msm_calls = 0;
            sr.key = (const czk_backend_key *)&sr; /* any handle will do */
            sr.key_ok = 0;
            sr.n_g1 = mode == 1 ? 0 : 4; /* mode 1 re-records the same four sums */
            memset(&p, 0, sizeof(p));
            int rc = czk_groth16_prove_ex(&p, &pk, &c.cs, c.w, NULL, sr.key, &r, &s, &be, NULL,
                                          NULL, &err);
            CHECK_EQ_INT(sr.calls, 1);
            CHECK_EQ_INT(sr.key_ok, 1);
            if (mode == 2) {
                CHECK_EQ_INT(rc, CZK_EIO);
                continue;
            }
            CHECKF(rc == CZK_OK, "%s", err.msg);
            CHECK(memcmp(&p, &ref, sizeof(p)) == 0);
            /* EUNSUPPORTED: the MSM entries ran; otherwise none did. */
            CHECK_EQ_INT(sr.n_g1, 4);
            CHECK_EQ_INT(sr.msm_calls, mode == 1 ? 4 : 0);
        }
        /* A witness pack reaches prove_sums only on a backend that takes packs, and only
         * well formed and of cs's size. */
        {
            size_t n = c.cs.n_vars, words = czk_witness_pack_words(n);
            uint64_t *cls = czk_malloc(words * sizeof(uint64_t));
            uint32_t *rank = czk_malloc(words * sizeof(uint32_t));
            czk_fr *others = czk_malloc(n * sizeof(czk_fr));
            CHECK(cls != NULL && rank != NULL && others != NULL);
            size_t no = czk_witness_pack_classify(cls, rank, c.w, n);
            czk_witness_pack_gather(others, cls, c.w, n);
            czk_witness_pack wp = {n, cls, rank, others, no};
            czk_backend be = rec;
            be.prove_sums = fake_prove_sums;
            sr.mode = 0;
            sr.n_g1 = 4;
            sr.key = NULL;
            for (int flag = 0; flag < 2; flag++) {
                be.flags = flag ? CZK_BACKEND_WITNESS_PACK : 0;
                sr.packs = 0;
                CHECK_EQ_INT(czk_groth16_prove_ex(&p, &pk, &c.cs, c.w, &wp, NULL, &r, &s, &be, NULL,
                                                  NULL, &err),
                             CZK_OK);
                CHECK(memcmp(&p, &ref, sizeof(p)) == 0);
                CHECK_EQ_INT(sr.packs, flag);
            }
            wp.n = n - 1;
            CHECK_EQ_INT(
                czk_groth16_prove_ex(&p, &pk, &c.cs, c.w, &wp, NULL, &r, &s, &be, NULL, NULL, &err),
                CZK_EINVAL);
            wp.n = n;
            wp.n_others = no + 1;
            CHECK_EQ_INT(
                czk_groth16_prove_ex(&p, &pk, &c.cs, c.w, &wp, NULL, &r, &s, &be, NULL, NULL, &err),
                CZK_EINVAL);
            czk_free(cls);
            czk_free(rank);
            czk_free(others);
        }
        czk_groth16_pk_clear(&pk);
    }
    tcirc_clear(&c);
}

/* A random witness of n values, each zero, one or random with the given odds (percent). */
static void mixed_witness(czk_fr *w, size_t n, unsigned zero_pct, unsigned one_pct, czk_rng *rng) {
    for (size_t i = 0; i < n; i++) {
        unsigned d = (unsigned)(czk_rng_u64(rng) % 100);
        if (d < zero_pct)
            czk_fr_set_zero(&w[i]);
        else if (d < zero_pct + one_pct)
            czk_fr_set_one(&w[i]);
        else
            czk_fr_random(&w[i], rng);
    }
}

/* Witness packs: classify + gather round-trip through expand for sizes around the 32-value
 * words and mixes from all-other to none; check refuses every kind of damage. */
CZK_TEST(g16_witness_pack) {
    static const size_t ns[] = {0, 1, 31, 32, 33, 64, 95, 1000, 4099};
    static const unsigned mix[][2] = {{60, 38}, {0, 0}, {100, 0}, {0, 100}, {33, 33}};
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]); a++) {
        for (size_t b = 0; b < sizeof(mix) / sizeof(mix[0]); b++) {
            size_t n = ns[a], words = czk_witness_pack_words(n);
            czk_fr *w = czk_malloc((n + 1) * sizeof(czk_fr)),
                   *x = czk_malloc((n + 1) * sizeof(czk_fr));
            czk_fr *others = czk_malloc((n + 1) * sizeof(czk_fr));
            uint64_t *cls = czk_malloc((words + 1) * sizeof(uint64_t));
            uint32_t *rank = czk_malloc((words + 1) * sizeof(uint32_t));
            CHECK(w != NULL && x != NULL && others != NULL && cls != NULL && rank != NULL);
            mixed_witness(w, n, mix[b][0], mix[b][1], &t->rng);
            size_t expect = 0;
            for (size_t i = 0; i < n; i++)
                expect += !czk_fr_is_zero(&w[i]) && !czk_fr_equal(&w[i], &CZK_FR_ONE);
            size_t n_others = czk_witness_pack_classify(cls, rank, w, n);
            CHECK_EQ_INT(n_others, expect);
            czk_witness_pack_gather(others, cls, w, n);
            czk_witness_pack p = {n, cls, rank, others, n_others};
            czk_err err;
            CHECKF(czk_witness_pack_check(&p, &err) == CZK_OK, "%s", err.msg);
            czk_witness_pack_expand(x, &p);
            CHECK(n == 0 || memcmp(x, w, n * sizeof(czk_fr)) == 0);
            if (n == 0)
                goto next;
            /* Damage: a wrong count, a wrong rank, class 3, bits past the end. */
            p.n_others = n_others + 1;
            CHECK_EQ_INT(czk_witness_pack_check(&p, &err), CZK_EINVAL);
            p.n_others = n_others;
            if (words > 1) {
                rank[1] ^= 1;
                CHECK_EQ_INT(czk_witness_pack_check(&p, &err), CZK_EINVAL);
                rank[1] ^= 1;
            }
            cls[0] |= 3;
            CHECK_EQ_INT(czk_witness_pack_check(&p, &err), CZK_EINVAL);
            cls[0] &= ~(uint64_t)3;
            cls[0] |= czk_fr_is_zero(&w[0]) ? 0 : czk_fr_equal(&w[0], &CZK_FR_ONE) ? 1 : 2;
            CHECKF(czk_witness_pack_check(&p, &err) == CZK_OK, "%s", err.msg);
            if (n % 32 != 0) {
                cls[words - 1] |= (uint64_t)1 << 62;
                CHECK_EQ_INT(czk_witness_pack_check(&p, &err), CZK_EINVAL);
                cls[words - 1] &= ~((uint64_t)1 << 62);
            }
        next:
            czk_free(w);
            czk_free(x);
            czk_free(others);
            czk_free(cls);
            czk_free(rank);
        }
    }
}

static int pack_allocs_left;
static void *pack_alloc(void *ctx, size_t bytes) {
    (void)ctx;
    return pack_allocs_left-- > 0 ? czk_malloc(bytes) : NULL;
}
static void pack_free_fn(void *ctx, void *p, size_t bytes) {
    (void)ctx, (void)bytes;
    czk_free(p);
}

/* czk_witness_pack_build: the pack it makes expands to w; too large for max_bytes, or an
 * allocator that refuses either buffer, leaves nothing allocated. */
CZK_TEST(g16_witness_pack_build) {
    const size_t n = 1000;
    czk_fr *w = czk_malloc(n * sizeof(czk_fr)), *x = czk_malloc(n * sizeof(czk_fr));
    CHECK(w != NULL && x != NULL);
    mixed_witness(w, n, 60, 38, &t->rng);
    czk_witness_pack p;
    czk_witness_pack_mem mem;
    size_t before = czk_alloc_in_use();
    pack_allocs_left = 2;
    CHECK_EQ_INT(
        czk_witness_pack_build(&p, &mem, w, n, SIZE_MAX, pack_alloc, pack_free_fn, NULL, NULL),
        CZK_OK);
    CHECK(p.n_others > 0 && mem.p[0] != NULL && mem.p[1] != NULL);
    czk_err err;
    CHECKF(czk_witness_pack_check(&p, &err) == CZK_OK, "%s", err.msg);
    czk_witness_pack_expand(x, &p);
    CHECK(memcmp(x, w, n * sizeof(czk_fr)) == 0);
    const size_t size = mem.bytes[0] + mem.bytes[1];
    czk_witness_pack_release(&mem, pack_free_fn, NULL);
    CHECK(mem.p[0] == NULL && mem.p[1] == NULL);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
    /* One byte short: not worth packing, nothing kept. */
    pack_allocs_left = 2;
    CHECK_EQ_INT(
        czk_witness_pack_build(&p, &mem, w, n, size - 1, pack_alloc, pack_free_fn, NULL, NULL),
        CZK_EUNSUPPORTED);
    CHECK(mem.p[0] == NULL && mem.p[1] == NULL);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
    for (int ok = 0; ok < 2; ok++) {
        pack_allocs_left = ok;
        CHECK_EQ_INT(
            czk_witness_pack_build(&p, &mem, w, n, SIZE_MAX, pack_alloc, pack_free_fn, NULL, NULL),
            CZK_ENOMEM);
        CHECK(mem.p[0] == NULL && mem.p[1] == NULL);
        CHECK_EQ_INT(czk_alloc_in_use(), before);
    }
    czk_free(w);
    czk_free(x);
}

/* The parallel check over several blocks of 2^20 values: faults at a block's first word
 * and inside a later block are found whatever the pool. */
CZK_TEST(g16_witness_pack_blocks) {
    const size_t n = ((size_t)3 << 20) + 17, words = czk_witness_pack_words(n);
    czk_fr *w = czk_malloc(n * sizeof(czk_fr)), *others = czk_malloc(n * sizeof(czk_fr));
    uint64_t *cls = czk_malloc(words * sizeof(uint64_t));
    uint32_t *rank = czk_malloc(words * sizeof(uint32_t));
    czk_pool *pool = NULL;
    CHECK(w != NULL && others != NULL && cls != NULL && rank != NULL);
    CHECK_EQ_INT(czk_pool_create(&pool, 4), CZK_OK);
    mixed_witness(w, n, 60, 38, &t->rng);
    size_t no = czk_witness_pack_classify(cls, rank, w, n);
    czk_witness_pack_gather(others, cls, w, n);
    czk_witness_pack p = {n, cls, rank, others, no};
    czk_err err;
    for (int use_pool = 0; use_pool < 2; use_pool++) {
        czk_pool *pl = use_pool ? pool : NULL;
        CHECKF(czk_witness_pack_check_pool(&p, pl, &err) == CZK_OK, "%s", err.msg);
        static const size_t at[] = {(size_t)1 << 15, ((size_t)2 << 15) + 5, 1};
        for (size_t i = 0; i < sizeof(at) / sizeof(at[0]); i++) {
            rank[at[i]] += 1;
            CHECK_EQ_INT(czk_witness_pack_check_pool(&p, pl, &err), CZK_EINVAL);
            CHECKF(strstr(err.msg, "rank of word") != NULL, "%s", err.msg);
            rank[at[i]] -= 1;
        }
        cls[words - 2] |= (uint64_t)3 << 10;
        CHECK_EQ_INT(czk_witness_pack_check_pool(&p, pl, &err), CZK_EINVAL);
        cls[words - 2] &= ~((uint64_t)3 << 10);
        cls[words - 2] |= (uint64_t)(czk_fr_is_zero(&w[(words - 2) * 32 + 5])              ? 0
                                     : czk_fr_equal(&w[(words - 2) * 32 + 5], &CZK_FR_ONE) ? 1
                                                                                           : 2)
                          << 10;
        CHECKF(czk_witness_pack_check_pool(&p, pl, &err) == CZK_OK, "%s", err.msg);
    }
    czk_pool_destroy(pool);
    czk_free(w);
    czk_free(others);
    czk_free(cls);
    czk_free(rank);
}

/* Builds the pack of w[0 .. n − 1] over pool and checks it is the sequential pack `want`
 * (built with a NULL pool) byte for byte. */
static void check_same_pack(czk_test_ctx *t, const czk_witness_pack *want, const czk_fr *w,
                            size_t n, czk_pool *pool) {
    czk_witness_pack p;
    czk_witness_pack_mem mem;
    const size_t words = czk_witness_pack_words(n);
    pack_allocs_left = 2;
    CHECK_EQ_INT(
        czk_witness_pack_build(&p, &mem, w, n, SIZE_MAX, pack_alloc, pack_free_fn, NULL, pool),
        CZK_OK);
    int same =
        p.n == want->n && p.n_others == want->n_others &&
        (words == 0 || (memcmp(p.cls, want->cls, words * sizeof(uint64_t)) == 0 &&
                        memcmp(p.rank, want->rank, words * sizeof(uint32_t)) == 0)) &&
        (p.n_others == 0 || memcmp(p.others, want->others, p.n_others * sizeof(czk_fr)) == 0);
    czk_witness_pack_release(&mem, pack_free_fn, NULL);
    CHECKF(same, "n %zu, %u ways: the pack differs from the sequential one", n,
           czk_pool_ways(pool));
}

/* czk_witness_pack_build over pools of 2, 3 and 5 ways makes the sequential pack, bit for bit:
 * sizes at the 32-value words and at the parallel blocks (2^18 values), several blocks with a
 * ragged end, mixes from mostly bits to all others; and it refuses as the sequential one does,
 * leaving nothing allocated. */
CZK_TEST(g16_witness_pack_build_pool) {
    const size_t blk = (size_t)1 << 18;
    const size_t ns[] = {0, 1, 31, 32, 33, 1000, blk - 1, blk, blk + 1, 5 * blk + 33};
    static const unsigned mix[][2] = {{60, 38}, {49, 51}, {0, 0}, {100, 0}, {0, 100}};
    static const unsigned ways[] = {2, 3, 5};
    czk_pool *pools[3] = {NULL, NULL, NULL};
    for (int i = 0; i < 3; i++)
        CHECK_EQ_INT(czk_pool_create(&pools[i], ways[i]), CZK_OK);
    const size_t nmax = ns[sizeof(ns) / sizeof(ns[0]) - 1];
    czk_fr *w = czk_malloc(nmax * sizeof(czk_fr));
    CHECK(w != NULL);
    for (size_t a = 0; a < sizeof(ns) / sizeof(ns[0]) && t->failures == 0; a++) {
        for (size_t b = 0; b < sizeof(mix) / sizeof(mix[0]) && t->failures == 0; b++) {
            const size_t n = ns[a];
            mixed_witness(w, n, mix[b][0], mix[b][1], &t->rng);
            czk_witness_pack want;
            czk_witness_pack_mem wmem;
            pack_allocs_left = 2;
            CHECK_EQ_INT(czk_witness_pack_build(&want, &wmem, w, n, SIZE_MAX, pack_alloc,
                                                pack_free_fn, NULL, NULL),
                         CZK_OK);
            for (int i = 0; i < 3 && t->failures == 0; i++)
                check_same_pack(t, &want, w, n, pools[i]);
            czk_witness_pack_release(&wmem, pack_free_fn, NULL);
        }
    }
    /* The refusals, over a pool: one byte short of the pack, and each allocation refused. */
    const size_t n = 5 * blk + 33;
    mixed_witness(w, n, 60, 38, &t->rng);
    czk_witness_pack p;
    czk_witness_pack_mem mem;
    const size_t before = czk_alloc_in_use();
    pack_allocs_left = 2;
    CHECK_EQ_INT(
        czk_witness_pack_build(&p, &mem, w, n, SIZE_MAX, pack_alloc, pack_free_fn, NULL, pools[1]),
        CZK_OK);
    const size_t size = mem.bytes[0] + mem.bytes[1];
    czk_witness_pack_release(&mem, pack_free_fn, NULL);
    pack_allocs_left = 2;
    CHECK_EQ_INT(
        czk_witness_pack_build(&p, &mem, w, n, size - 1, pack_alloc, pack_free_fn, NULL, pools[1]),
        CZK_EUNSUPPORTED);
    CHECK(mem.p[0] == NULL && mem.p[1] == NULL);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
    for (int ok = 0; ok < 2; ok++) {
        pack_allocs_left = ok;
        CHECK_EQ_INT(czk_witness_pack_build(&p, &mem, w, n, SIZE_MAX, pack_alloc, pack_free_fn,
                                            NULL, pools[1]),
                     CZK_ENOMEM);
        CHECK(mem.p[0] == NULL && mem.p[1] == NULL);
        CHECK_EQ_INT(czk_alloc_in_use(), before);
    }
    czk_free(w);
    for (int i = 0; i < 3; i++)
        czk_pool_destroy(pools[i]);
}

/* Naive references: coefficients by an O(n²) inverse DFT; p(x) by Horner. */
static void naive_interpolate(czk_fr *coef, const czk_fr *vals, size_t n, const czk_fr *omega) {
    czk_fr winv, ninv, wk;
    czk_fr_inv_var(&winv, omega);
    czk_fr_set_u64(&ninv, n);
    czk_fr_inv_var(&ninv, &ninv);
    czk_fr_set_one(&wk); /* ω^−k */
    for (size_t k = 0; k < n; k++) {
        czk_fr acc, x, tmp;
        czk_fr_set_zero(&acc);
        czk_fr_set_one(&x); /* ω^−jk */
        for (size_t j = 0; j < n; j++) {
            czk_fr_mul(&tmp, &vals[j], &x);
            czk_fr_add(&acc, &acc, &tmp);
            czk_fr_mul(&x, &x, &wk);
        }
        czk_fr_mul(&coef[k], &acc, &ninv);
        czk_fr_mul(&wk, &wk, &winv);
    }
}

static void horner(czk_fr *out, const czk_fr *coef, size_t n, const czk_fr *x) {
    czk_fr_set_zero(out);
    for (size_t i = n; i-- > 0;) {
        czk_fr_mul(out, out, x);
        czk_fr_add(out, out, &coef[i]);
    }
}

/* The backend's h against (AB − C)/Z by schoolbook multiplication and long division, and
 * against AB − C evaluated on the odd coset. */
CZK_TEST(g16_backend_h_matches_naive) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 2, 25, &t->rng), CZK_OK); /* 28 rows: n = 32 */
    const size_t n = 32, nc = c.cs.n_constraints, np1 = c.cs.n_public + 1;
    CHECK_EQ_INT(czk_groth16_domain_lg(&c.cs), 5);
    czk_fr a[32], b[32], cc[32], pa[32], pb[32], pc[32], prod[64];
    for (int basis = 0; basis < 2; basis++) {
        czk_ntt_domain *d = NULL;
        CHECK_EQ_INT(czk_ntt_domain_create(&d, 5,
                                           basis == CZK_H_MONOMIAL ? CZK_NTT_ROOT_BELLPERSON
                                                                   : CZK_NTT_ROOT_SNARKJS,
                                           NULL),
                     CZK_OK);
        memset(a, 0, sizeof(a));
        memset(b, 0, sizeof(b));
        memset(cc, 0, sizeof(cc));
        CHECK_EQ_INT(czk_r1cs_spmv(&c.cs, c.w, a, b, cc, NULL), CZK_OK);
        for (size_t i = 0; i < np1; i++)
            a[nc + i] = c.w[i];
        const czk_fr *omega = czk_ntt_domain_omega(d);
        naive_interpolate(pa, a, n, omega);
        naive_interpolate(pb, b, n, omega);
        naive_interpolate(pc, cc, n, omega);
        memset(prod, 0, sizeof(prod));
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < n; j++) {
                czk_fr tmp;
                czk_fr_mul(&tmp, &pa[i], &pb[j]);
                czk_fr_add(&prod[i + j], &prod[i + j], &tmp);
            }
        for (size_t i = 0; i < n; i++)
            czk_fr_sub(&prod[i], &prod[i], &pc[i]);
        czk_groth16_h_basis hb = (czk_groth16_h_basis)basis;
        int rc = czk_backend_cpu()->h(NULL, d, hb, a, b, cc, NULL, NULL);
        if (rc != CZK_OK)
            czk_ntt_domain_destroy(d);
        CHECK_EQ_INT(rc, CZK_OK);
        if (hb == CZK_H_ODD_COSET) {
            czk_fr x = *czk_ntt_domain_omega_2n(d);
            for (size_t i = 0; i < n; i++) {
                czk_fr want;
                horner(&want, prod, 2 * n, &x);
                CHECKF(czk_fr_equal(&want, &a[i]), "odd coset value %zu", i);
                czk_fr_mul(&x, &x, omega);
            }
        } else {
            /* prod = q·(x^n − 1) + rem: q_k = prod_{k+n} + q_{k+n}, remainder must vanish. */
            czk_fr q[64];
            memset(q, 0, sizeof(q));
            for (size_t k = 2 * n; k-- > n;) {
                q[k - n] = prod[k];
                czk_fr_add(&prod[k - n], &prod[k - n], &prod[k]);
            }
            for (size_t k = 0; k < n; k++)
                CHECKF(czk_fr_is_zero(&prod[k]), "remainder coefficient %zu", k);
            for (size_t k = 0; k + 1 < n; k++)
                CHECKF(czk_fr_equal(&q[k], &a[k]), "h coefficient %zu", k);
            CHECK(czk_fr_is_zero(&q[n - 1]));
        }
        czk_ntt_domain_destroy(d);
    }
    tcirc_clear(&c);
}

/* ---- benchmark keys ---------------------------------------------------------------------- */

CZK_TEST(g16_benchkey_shape) {
    tcirc c;
    CHECK_EQ_INT(test_circuit(&c, 3, 300, &t->rng), CZK_OK);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    for (int basis = 0; basis < 2; basis++) {
        czk_groth16_pk dev, bk;
        czk_err err;
        czk_groth16_h_basis hb = (czk_groth16_h_basis)basis;
        CHECK_EQ_INT(czk_groth16_setup_dev(&dev, &c.cs, hb, &t->rng, pool, NULL), CZK_OK);
        int rc = czk_groth16_benchkey(&bk, &c.cs, hb, 42, pool, &err);
        CHECKF(rc == CZK_OK, "%s", err.msg);
        CHECK_EQ_INT(bk.domain_size, dev.domain_size);
        CHECK_EQ_INT(bk.density, dev.density);
        CHECK_EQ_INT(bk.n_h, dev.n_h);
        CHECK_EQ_INT(bk.n_l, dev.n_l);
        CHECK_EQ_INT(bk.n_a, dev.n_a);
        CHECK_EQ_INT(bk.n_b_g1, dev.n_b_g1);
        CHECK_EQ_INT(bk.n_b_g2, dev.n_b_g2);
        CHECK_EQ_INT(bk.vk.n_ic, dev.vk.n_ic);
        /* Valid group elements, infinity exactly where the dev key has it, and an arithmetic
         * progression (so all distinct): h[i+1] − h[i] is the same for every i. */
        for (size_t i = 0; i < bk.n_a; i++) {
            CHECK_EQ_INT(czk_g1_affine_is_infinity(&bk.a[i]), czk_g1_affine_is_infinity(&dev.a[i]));
            CHECK(g1_in_group_or_inf(&bk.a[i]));
        }
        for (size_t i = 0; i < bk.n_b_g2; i++) {
            CHECK_EQ_INT(czk_g2_affine_is_infinity(&bk.b_g2[i]),
                         czk_g2_affine_is_infinity(&dev.b_g2[i]));
            CHECK(czk_g2_affine_is_infinity(&bk.b_g2[i]) || czk_g2_affine_is_in_group(&bk.b_g2[i]));
        }
        czk_g1_jacobian q, d;
        for (size_t i = 0; i + 1 < bk.n_h; i++) {
            CHECK(czk_g1_affine_is_in_group(&bk.h[i]));
            czk_g1_affine nh;
            czk_g1_affine_neg(&nh, &bk.h[i]);
            czk_g1_jacobian_from_affine(&d, &bk.h[i + 1]);
            czk_g1_jacobian_add_affine_var(&d, &d, &nh);
            if (i == 0)
                q = d;
            CHECKF(czk_g1_jacobian_equal(&d, &q), "h[%zu] breaks the progression", i + 1);
            CHECK(!czk_g1_affine_equal(&bk.h[i], &bk.h[i + 1]));
        }
        /* The prover runs on it; the proof cannot verify. */
        int vr = prove_verify(&bk, &c, czk_backend_cpu(), pool, &t->rng, NULL);
        czk_groth16_pk_clear(&dev);
        czk_groth16_pk_clear(&bk);
        CHECK_EQ_INT(vr, CZK_EVERIFY);
    }
    czk_pool_destroy(pool);
    tcirc_clear(&c);
}

/* The chains of czk_groth16_benchkey at a size with many chains and a short last one. */
CZK_TEST(g16_benchkey_long_vectors) {
    /* A constraint system shell: 9000 rows of nothing (benchkey reads only the shape and the
     * density), domain 2^14. */
    czk_r1cs cs;
    memset(&cs, 0, sizeof(cs));
    cs.n_constraints = 9000;
    cs.n_vars = 5;
    cs.n_public = 1;
    uint64_t *rp = calloc(cs.n_constraints + 1, sizeof(uint64_t));
    CHECK(rp != NULL);
    cs.a.row_ptr = cs.b.row_ptr = cs.c.row_ptr = rp;
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    czk_groth16_pk bk;
    int rc = czk_groth16_benchkey(&bk, &cs, CZK_H_ODD_COSET, 7, pool, NULL);
    czk_pool_destroy(pool);
    free(rp);
    CHECK_EQ_INT(rc, CZK_OK);
    CHECK_EQ_INT(bk.n_h, 16384);
    /* h[i] = h[0] + i·(h[1] − h[0]) at a spread of indices. */
    czk_g1_jacobian q, p;
    czk_g1_affine n0;
    czk_g1_affine_neg(&n0, &bk.h[0]);
    czk_g1_jacobian_from_affine(&q, &bk.h[1]);
    czk_g1_jacobian_add_affine_var(&q, &q, &n0);
    size_t idx[] = {2, 63, 64, 65, 1000, 8191, 8192, 16383};
    for (size_t k = 0; k < sizeof(idx) / sizeof(idx[0]); k++) {
        czk_fr s;
        czk_fr_set_u64(&s, idx[k]);
        czk_g1_jacobian_mul_var(&p, &q, &s);
        czk_g1_jacobian_add_affine_var(&p, &p, &bk.h[0]);
        czk_g1_jacobian want;
        czk_g1_jacobian_from_affine(&want, &bk.h[idx[k]]);
        CHECKF(czk_g1_jacobian_equal(&p, &want), "h[%zu]", idx[k]);
    }
    czk_groth16_pk_clear(&bk);
}

/* ---- keys of repeated systems --------------------------------------------------------- */

static int g1s_same(const czk_g1_affine *a, const czk_g1_affine *b, size_t n) {
    return n == 0 || memcmp(a, b, n * sizeof(*a)) == 0;
}

static int keys_same(const czk_groth16_pk *a, const czk_groth16_pk *b) {
    return a->h_basis == b->h_basis && a->density == b->density &&
           a->domain_size == b->domain_size && a->n_vars == b->n_vars &&
           a->n_public == b->n_public && a->n_h == b->n_h && a->n_l == b->n_l && a->n_a == b->n_a &&
           a->n_b_g1 == b->n_b_g1 && a->n_b_g2 == b->n_b_g2 && a->vk.n_ic == b->vk.n_ic &&
           memcmp(&a->vk.alpha_g1, &b->vk.alpha_g1, sizeof(a->vk.alpha_g1)) == 0 &&
           memcmp(&a->vk.delta_g2, &b->vk.delta_g2, sizeof(a->vk.delta_g2)) == 0 &&
           g1s_same(a->vk.ic, b->vk.ic, a->vk.n_ic) && g1s_same(a->h, b->h, a->n_h) &&
           g1s_same(a->l, b->l, a->n_l) && g1s_same(a->a, b->a, a->n_a) &&
           g1s_same(a->b_g1, b->b_g1, a->n_b_g1) &&
           (a->n_b_g2 == 0 || memcmp(a->b_g2, b->b_g2, a->n_b_g2 * sizeof(*a->b_g2)) == 0);
}

/* A backend whose fixed_base multiplies on the CPU one point at a time (variable-base), and
 * counts the points it made: the setup must hand every key point but the six of the
 * verifying key to it, and give the same key. */
static size_t g_fixed_base_points;

static int cpu_fixed_base(void *ctx, int g2, const czk_fr *k, size_t n, void *out, czk_pool *pool,
                          czk_err *err) {
    (void)ctx, (void)pool, (void)err;
    for (size_t i = 0; i < n; i++) {
        if (g2) {
            czk_g2_jacobian g, r;
            czk_g2_jacobian_from_affine(&g, &CZK_G2_GENERATOR);
            czk_g2_jacobian_mul_var(&r, &g, &k[i]);
            czk_g2_jacobian_to_affine(&((czk_g2_affine *)out)[i], &r);
        } else {
            czk_g1_jacobian g, r;
            czk_g1_jacobian_from_affine(&g, &CZK_G1_GENERATOR);
            czk_g1_jacobian_mul_var(&r, &g, &k[i]);
            czk_g1_jacobian_to_affine(&((czk_g1_affine *)out)[i], &r);
        }
    }
    g_fixed_base_points += n;
    return CZK_OK;
}

/* For both bases: czk_groth16_setup_dev_rep's key of rep, inline with the backend's
 * multiplier and on pool without, equals czk_groth16_setup_dev's of ex (rep expanded) for the
 * same seed, bit for bit; a proof of ex with its witness verifies under it. */
static void setup_rep_matches(czk_test_ctx *t, const czk_r1cs_rep *rep, const tcirc *ex,
                              czk_pool *pool) {
    czk_backend be = *czk_backend_cpu();
    be.fixed_base = cpu_fixed_base;
    czk_err err = {0};
    for (int basis = 0; basis < 2; basis++) {
        czk_groth16_h_basis hb = basis ? CZK_H_ODD_COSET : CZK_H_MONOMIAL;
        czk_groth16_pk ref, got, via_be;
        czk_rng r1, r2, r3;
        uint64_t seed = czk_rng_u64(&t->rng);
        czk_rng_seed(&r1, seed);
        czk_rng_seed(&r2, seed);
        czk_rng_seed(&r3, seed);
        CHECK_EQ_INT(czk_groth16_setup_dev(&ref, &ex->cs, hb, &r1, NULL, &err), CZK_OK);
        CHECKF(czk_groth16_setup_dev_rep(&got, rep, hb, &r2, NULL, pool, &err) == CZK_OK, "%s",
               err.msg);
        g_fixed_base_points = 0;
        CHECKF(czk_groth16_setup_dev_rep(&via_be, rep, hb, &r3, &be, NULL, &err) == CZK_OK, "%s",
               err.msg);
        CHECK(keys_same(&ref, &got));
        CHECK(keys_same(&ref, &via_be));
        CHECK_EQ_INT(g_fixed_base_points,
                     ref.vk.n_ic + ref.n_l + ref.n_a + ref.n_b_g1 + ref.n_b_g2 + ref.n_h);
        czk_groth16_proof pr;
        CHECK_EQ_INT(prove_verify(&got, ex, czk_backend_cpu(), pool, &t->rng, &pr), CZK_OK);
        czk_groth16_pk_clear(&ref);
        czk_groth16_pk_clear(&got);
        czk_groth16_pk_clear(&via_be);
    }
}

/* czk_groth16_setup_dev_rep gives, bit for bit, czk_groth16_setup_dev's key of the expanded
 * system for the same seed: both bases, inline and on a pool, with the backend's multiplier;
 * a proof of the expanded system (every copy on the block's witness) verifies under it. */
CZK_TEST(g16_setup_rep_equals_expanded) {
    tcirc blk;
    CHECK_EQ_INT(test_circuit(&blk, 3, 150, &t->rng), CZK_OK);
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 3), CZK_OK);
    for (size_t copies = 1; copies <= 4; copies += 3) {
        czk_r1cs_rep rep = {.block = blk.cs, .copies = copies};
        tcirc ex = {0};
        czk_err err = {0};
        CHECK_EQ_INT(czk_r1cs_rep_expand(&rep, &ex.cs, pool, &err), CZK_OK);
        ex.w = malloc(ex.cs.n_vars * sizeof(czk_fr));
        CHECK(ex.w != NULL);
        if (ex.w == NULL)
            break;
        for (size_t s = 0; s < copies; s++)
            for (uint32_t c = 0; c < blk.cs.n_vars; c++)
                ex.w[czk_r1cs_rep_col(&rep, s, c)] = blk.w[c];
        CHECK_EQ_INT(czk_r1cs_check(&ex.cs, ex.w, NULL, NULL, NULL), CZK_OK);
        setup_rep_matches(t, &rep, &ex, pool);
        tcirc_clear(&ex);
    }
    czk_pool_destroy(pool);
    tcirc_clear(&blk);
}

/* The same with a head (czk_synth_rep_headed: the copies read its inputs and aux in A, B and
 * C): the head's rows and the shared variables' sums, copy by copy on the pool's ways, give
 * the expanded system's key; its proof with the generator's witness verifies. Three copies
 * (one with a head is prover_test's and the GPU's case; here it only doubled the time under
 * the sanitizers). */
CZK_TEST(g16_setup_rep_headed_equals_expanded) {
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 3), CZK_OK);
    {
        const size_t copies = 3;
        czk_r1cs_rep rep;
        czk_fr *w = NULL;
        size_t n = 0;
        czk_err err = {0};
        CHECKF(czk_synth_rep_headed(&rep, &w, &n, 8, 6, copies, czk_rng_u64(&t->rng), pool, &err) ==
                   CZK_OK,
               "%s", err.msg);
        CHECK(rep.head.n_constraints > 0 && czk_r1cs_rep_gp(&rep) > 0 && czk_r1cs_rep_gq(&rep) > 0);
        tcirc ex = {0};
        CHECKF(czk_r1cs_rep_expand(&rep, &ex.cs, pool, &err) == CZK_OK, "%s", err.msg);
        CHECK_EQ_INT(ex.cs.n_vars, n);
        ex.w = malloc(n * sizeof(czk_fr));
        CHECK(ex.w != NULL);
        if (ex.w != NULL) {
            memcpy(ex.w, w, n * sizeof(czk_fr));
            CHECK_EQ_INT(czk_r1cs_check(&ex.cs, ex.w, NULL, NULL, NULL), CZK_OK);
            setup_rep_matches(t, &rep, &ex, pool);
        }
        /* An entry past the head's variables is refused, as one past the block's. */
        czk_groth16_pk bad;
        czk_rng r;
        czk_rng_seed(&r, 1);
        const uint32_t c0 = rep.head.c.cols[0];
        rep.head.c.cols[0] = (uint32_t)rep.head.n_vars;
        CHECK_EQ_INT(czk_groth16_setup_dev_rep(&bad, &rep, CZK_H_MONOMIAL, &r, NULL, pool, &err),
                     CZK_EINVAL);
        CHECK(strstr(err.msg, "head") != NULL);
        rep.head.c.cols[0] = c0;
        tcirc_clear(&ex);
        czk_free(w);
        czk_r1cs_rep_clear(&rep);
    }
    czk_pool_destroy(pool);
}
