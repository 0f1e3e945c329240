/*
 * DESIGN: the dev-only Groth16 setup (setup.h). NOT a ceremony: the toxic waste comes from a
 * caller's non-cryptographic rng.
 *
 * 1. QAP at τ. The domain points are ω^j (ω from the key family's root convention, so that
 *    the prover's NTTs agree with the key), row j of the constraint system sits at ω^j, and
 *    the Groth16 input rows follow the circuit's rows. With the Lagrange basis
 *        L_j(τ) = ω^j·(τ^n − 1) / (n·(τ − ω^j))
 *    (one batch inversion), A_i(τ) = Σ_j A[j][i]·L_j(τ), and likewise B and C, comes from one
 *    pass over the CSR entries.
 * 2. Points. Every key point is [k]G for the G1 or G2 generator, so a fixed-base table pays
 *    off: with signed w-bit windows, tables[i][d − 1] = [d·2^(w·i)]G for d = 1..2^(w−1),
 *    each scalar costs ceil(256/w) mixed additions instead of the ~128 doublings and ~40
 *    additions of a variable-base GLV multiplication. w is chosen per call to minimize
 *    (scalars + table entries) × windows.
 * 3. H. MONOMIAL (bellperson): h[i] = τ^i·Z(τ)/δ, i < n − 1, so Σ h_i·H_i = h(τ)Z(τ)/δ for
 *    the coefficients h_i of h = (ab − c)/Z. ODD_COSET (snarkjs): the prover multiplies the
 *    values of P = ab − c at the odd-coset points p_i = g·ω^i (g = ω_{2n}, g^n = −1) against
 *    H, with no division by Z. snarkjs's zkey_new copies H from the ptau's Lagrange basis
 *    over the 2n-th roots of unity, the odd entries: H_i = L^{(2n)}_{2i+1}(τ)/δ. Why that is
 *    right: the Lagrange polynomial of p_i over the coset (vanishing polynomial x^n + 1) is
 *        L'_i(x) = −p_i·(x^n + 1) / (n·(x − p_i)),
 *    and L^{(2n)}_{2i+1}(x) = p_i·(x^{2n} − 1)/(2n·(x − p_i)) = −(Z(x)/2)·L'_i(x). Since
 *    P = h·Z with deg h ≤ n − 2 and Z(p_i) = p_i^n − 1 = −2,
 *        Σ_i P(p_i)·H_i = Σ_i (−2·h(p_i))·(−Z(τ)/2)·L'_i(τ)/δ = Z(τ)·h(τ)/δ,
 *    the same value as the monomial form: the constant is −Z(τ)/2, folded into the points.
 *    We compute H_i = p_i·(τ^{2n} − 1) / (2n·(τ − p_i)·δ) directly (one batch inversion).
 * 4. Layout. MONOMIAL keys are density-filtered as bellperson's generator leaves them (it
 *    drops points at infinity from a, b_g1 and b_g2; for a random τ those are exactly the
 *    columns with no entry, which is what the prover's density bitmaps record). Public
 *    variables always keep their A point (the input rows put each of them in A). ODD_COSET
 *    keys are dense, with infinity for unused variables, as snarkjs writes them.
 */
#include "groth16/setup.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "msm/msm_internal.h"
#include "poly/ntt.h"
#include "util/alloc.h"
#include "util/memclear.h"

#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* ---- fixed-base multiplication, for G1 and G2 through one table of operations ---------- */

typedef struct fb_ops {
    size_t aff_size, jac_size;
    void (*set_inf)(void *r);
    void (*from_aff)(void *r, const void *p);
    void (*add)(void *r, const void *a, const void *b);
    void (*add_aff)(void *r, const void *a, const void *p);
    void (*dbl)(void *r, const void *a);
    void (*neg_aff)(void *r, const void *p);
    int (*to_aff)(void *out, const void *in, size_t n);
    /* The eight-lane IFMA additions (msm/msm_internal.h) and an affine point into and out of
     * their domain; buf_size: the scratch czk__msm_ifma_add(_g2) wants for n additions. */
    size_t (*ifma_add)(const void *const *pa, const void *const *pb, void *const *po, size_t n,
                       uint8_t *kind, void *vbuf);
    void (*ifma_to)(void *p);
    void (*ifma_from)(void *p);
    size_t (*ifma_buf)(size_t n);
} fb_ops;

static void g1_set_inf(void *r) {
    czk_g1_jacobian_set_infinity(r);
}
static void g1_from_aff(void *r, const void *p) {
    czk_g1_jacobian_from_affine(r, p);
}
static void g1_add(void *r, const void *a, const void *b) {
    czk_g1_jacobian_add_var(r, a, b);
}
static void g1_add_aff(void *r, const void *a, const void *p) {
    czk_g1_jacobian_add_affine_var(r, a, p);
}
static void g1_dbl(void *r, const void *a) {
    czk_g1_jacobian_dbl(r, a);
}
static void g1_neg_aff(void *r, const void *p) {
    czk_g1_affine_neg(r, p);
}
static int g1_to_aff(void *out, const void *in, size_t n) {
    return czk_g1s_to_affine(out, in, n);
}
static size_t g1_ifma_add(const void *const *pa, const void *const *pb, void *const *po, size_t n,
                          uint8_t *kind, void *vbuf) {
    return czk__msm_ifma_add((const czk_g1_affine *const *)pa, (const czk_g1_affine *const *)pb,
                             (czk_g1_affine *const *)po, n, kind, vbuf);
}
static void g1_ifma_to(void *p) {
    czk__msm_ifma_g1_to(p);
}
static void g1_ifma_from(void *p) {
    czk__msm_ifma_g1_from(p);
}
static size_t g1_ifma_buf(size_t n) {
    return CZK__MSM_IFMA_BUF(n);
}
static const fb_ops G1_OPS = {sizeof(czk_g1_affine),
                              sizeof(czk_g1_jacobian),
                              g1_set_inf,
                              g1_from_aff,
                              g1_add,
                              g1_add_aff,
                              g1_dbl,
                              g1_neg_aff,
                              g1_to_aff,
                              g1_ifma_add,
                              g1_ifma_to,
                              g1_ifma_from,
                              g1_ifma_buf};

static void g2_set_inf(void *r) {
    czk_g2_jacobian_set_infinity(r);
}
static void g2_from_aff(void *r, const void *p) {
    czk_g2_jacobian_from_affine(r, p);
}
static void g2_add(void *r, const void *a, const void *b) {
    czk_g2_jacobian_add_var(r, a, b);
}
static void g2_add_aff(void *r, const void *a, const void *p) {
    czk_g2_jacobian_add_affine_var(r, a, p);
}
static void g2_dbl(void *r, const void *a) {
    czk_g2_jacobian_dbl(r, a);
}
static void g2_neg_aff(void *r, const void *p) {
    czk_g2_affine_neg(r, p);
}
static int g2_to_aff(void *out, const void *in, size_t n) {
    return czk_g2s_to_affine(out, in, n);
}
static size_t g2_ifma_add(const void *const *pa, const void *const *pb, void *const *po, size_t n,
                          uint8_t *kind, void *vbuf) {
    return czk__msm_ifma_add_g2((const czk_g2_affine *const *)pa, (const czk_g2_affine *const *)pb,
                                (czk_g2_affine *const *)po, n, kind, vbuf);
}
static void g2_ifma_to(void *p) {
    czk__msm_ifma_g2_to(p);
}
static void g2_ifma_from(void *p) {
    czk__msm_ifma_g2_from(p);
}
static size_t g2_ifma_buf(size_t n) {
    return CZK__MSM_IFMA_BUF_G2(n);
}
static const fb_ops G2_OPS = {sizeof(czk_g2_affine),
                              sizeof(czk_g2_jacobian),
                              g2_set_inf,
                              g2_from_aff,
                              g2_add,
                              g2_add_aff,
                              g2_dbl,
                              g2_neg_aff,
                              g2_to_aff,
                              g2_ifma_add,
                              g2_ifma_to,
                              g2_ifma_from,
                              g2_ifma_buf};

#define FB_MAX_W 14  /* tables of 2^13 points a window: 19 MiB for G2 at most */
#define FB_BATCH 256 /* scalars per batch affine conversion inside a worker */

typedef struct fb_table {
    const fb_ops *ops;
    unsigned w, nw;      /* window bits, windows (nw·w ≥ 256) */
    size_t half;         /* 2^(w−1) entries per window */
    unsigned char *pts;  /* nw·half affine points: window i, entry d − 1 = [d·2^(w·i)]G */
    unsigned char *base; /* nw Jacobian points [2^(w·i)]G, while building */
    int ifma;            /* pts are in the IFMA domain and fb_mul_body adds on eight lanes */
    _Atomic int failed;
} fb_table;

static void fb_build_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    fb_table *t = arg;
    const fb_ops *o = t->ops;
    unsigned char *tmp = czk_malloc(t->half * o->jac_size);
    if (tmp == NULL) {
        atomic_store_explicit(&t->failed, 1, memory_order_relaxed);
        return;
    }
    for (size_t i = begin; i < end; i++) {
        const unsigned char *b = t->base + i * o->jac_size;
        memcpy(tmp, b, o->jac_size);
        for (size_t d = 1; d < t->half; d++)
            o->add(tmp + d * o->jac_size, tmp + (d - 1) * o->jac_size, b);
        if (o->to_aff(t->pts + i * t->half * o->aff_size, tmp, t->half) != CZK_OK)
            atomic_store_explicit(&t->failed, 1, memory_order_relaxed);
    }
    czk_free(tmp);
}

/* Builds the table of `gen` sized for about `count` multiplications. */
static int fb_table_build(fb_table *t, const fb_ops *o, const void *gen, size_t count,
                          czk_pool *pool) {
    memset(t, 0, sizeof(*t));
    t->ops = o;
    unsigned best_w = 2;
    double best = 0;
    for (unsigned w = 2; w <= FB_MAX_W; w++) {
        unsigned nw = (256 + w - 1) / w;
        double cost = (double)nw * ((double)count + (double)(1u << (w - 1)));
        if (w == 2 || cost < best) {
            best = cost;
            best_w = w;
        }
    }
    t->w = best_w;
    t->nw = (256 + best_w - 1) / best_w;
    t->half = (size_t)1 << (best_w - 1);
    t->pts = czk_malloc((size_t)t->nw * t->half * o->aff_size);
    t->base = czk_malloc((size_t)t->nw * o->jac_size);
    if (t->pts == NULL || t->base == NULL) {
        czk_free(t->pts);
        czk_free(t->base);
        t->pts = t->base = NULL;
        return CZK_ENOMEM;
    }
    o->from_aff(t->base, gen);
    for (unsigned i = 1; i < t->nw; i++) {
        unsigned char *b = t->base + (size_t)i * o->jac_size;
        memcpy(b, b - o->jac_size, o->jac_size);
        for (unsigned k = 0; k < t->w; k++)
            o->dbl(b, b);
    }
    atomic_init(&t->failed, 0);
    czk_pool_run(pool, t->nw, 1, fb_build_body, t);
    czk_free(t->base);
    t->base = NULL;
    if (atomic_load_explicit(&t->failed, memory_order_relaxed)) {
        czk_free(t->pts);
        t->pts = NULL;
        return CZK_ENOMEM;
    }
    /* Where the CPU has AVX-512 IFMA, the multiplications add table entries eight lanes at a
     * time in the MSM's affine IFMA additions, in that domain (a table entry is never
     * infinity: d·2^(w·i) < r). */
    t->ifma = czk__msm_ifma_available();
    if (t->ifma)
        for (size_t i = 0; i < (size_t)t->nw * t->half; i++)
            o->ifma_to(t->pts + i * o->aff_size);
    return CZK_OK;
}

static void fb_table_free(fb_table *t) {
    czk_free(t->pts);
    t->pts = NULL;
}

/* Bits [o, o + w) of the 256-bit little-endian integer l. */
static unsigned fb_bits(const uint64_t l[4], unsigned o, unsigned w) {
    unsigned li = o / 64, sh = o % 64;
    uint64_t v = l[li] >> sh;
    if (sh + w > 64 && li + 1 < 4)
        v |= l[li + 1] << (64 - sh);
    return (unsigned)(v & (((uint64_t)1 << w) - 1));
}

/* The signed digit of window i of a scalar (l its limbs), carrying into the next window. */
static long fb_digit(const fb_table *t, const uint64_t l[4], unsigned i, unsigned *carry) {
    long d = (long)fb_bits(l, i * t->w, t->w) + *carry;
    *carry = 0;
    if (d > (long)t->half) {
        d -= 1l << t->w;
        *carry = 1;
    }
    return d;
}

/* r = [k]G from the table (variable time: dev setup only). */
static void fb_mul(const fb_table *t, void *r, const czk_fr *k) {
    const fb_ops *o = t->ops;
    uint64_t l[4];
    czk_fr_to_limbs(l, k);
    czk_g2_affine neg; /* room for either group's negated point, suitably aligned */
    o->set_inf(r);
    unsigned carry = 0;
    for (unsigned i = 0; i < t->nw; i++) {
        long d = fb_digit(t, l, i, &carry);
        if (d == 0)
            continue;
        const unsigned char *p =
            t->pts + ((size_t)i * t->half + (size_t)(d > 0 ? d : -d) - 1) * o->aff_size;
        if (d < 0) {
            o->neg_aff(&neg, p);
            p = (const unsigned char *)&neg;
        }
        o->add_aff(r, r, p);
    }
    /* nw·w ≥ 256 and k < 2^255 leave no carry past the last window. */
    czk_memclear_explicit(l, sizeof(l));
}

typedef struct fb_job {
    const fb_table *t;
    unsigned char *out; /* affine */
    const czk_fr *sc;
    _Atomic int failed;
} fb_job;

/* out[0..n) = [sc[i]]G, affine, by the eight-lane additions: window by window, every lane
 * whose digit is not 0 adds its table entry to its accumulator in one batch; a lane at
 * infinity (none added yet, or a sum of opposite points) takes the entry instead. */
static int fb_mul_ifma(const fb_table *t, unsigned char *out, const czk_fr *sc, size_t n) {
    const fb_ops *o = t->ops;
    size_t as = o->aff_size;
    unsigned char *neg = czk_malloc(n * as);
    uint64_t(*l)[4] = czk_malloc(n * sizeof(*l));
    unsigned *carry = czk_calloc(n, sizeof(*carry));
    uint8_t *inf = czk_malloc(n), *kind = czk_malloc(n);
    const void **pa = czk_malloc(n * sizeof(*pa)), **pb = czk_malloc(n * sizeof(*pb));
    void **po = czk_malloc(n * sizeof(*po));
    size_t *lane = czk_malloc(n * sizeof(*lane));
    void *vbuf = czk_malloc(o->ifma_buf(n));
    int rc = CZK_ENOMEM;
    if (neg == NULL || l == NULL || carry == NULL || inf == NULL || kind == NULL || pa == NULL ||
        pb == NULL || po == NULL || lane == NULL || vbuf == NULL)
        goto out;
    for (size_t b = 0; b < n; b++) {
        czk_fr_to_limbs(l[b], &sc[b]);
        inf[b] = 1;
    }
    for (unsigned i = 0; i < t->nw; i++) {
        size_t np = 0;
        for (size_t b = 0; b < n; b++) {
            long d = fb_digit(t, l[b], i, &carry[b]);
            if (d == 0)
                continue;
            const unsigned char *p =
                t->pts + ((size_t)i * t->half + (size_t)(d > 0 ? d : -d) - 1) * as;
            if (d < 0) {
                o->neg_aff(neg + b * as, p); /* negation is linear: the domain does not matter */
                p = neg + b * as;
            }
            if (inf[b]) {
                memcpy(out + b * as, p, as);
                inf[b] = 0;
                continue;
            }
            pa[np] = out + b * as;
            pb[np] = p;
            po[np] = out + b * as;
            lane[np++] = b;
        }
        if (np > 0 && o->ifma_add(pa, pb, po, np, kind, vbuf) > 0) {
            /* Opposite points gave (0, 0): those lanes are at infinity again. */
            static const unsigned char zero[sizeof(czk_g2_affine)];
            for (size_t q = 0; q < np; q++)
                if (memcmp(po[q], zero, as) == 0)
                    inf[lane[q]] = 1;
        }
    }
    for (size_t b = 0; b < n; b++) {
        if (inf[b])
            memset(out + b * as, 0, as); /* infinity: (0, 0) */
        else
            o->ifma_from(out + b * as);
    }
    rc = CZK_OK;
out:
    if (l != NULL)
        czk_memclear_explicit(l, n * sizeof(*l));
    czk_free(neg);
    czk_free(l);
    czk_free(carry);
    czk_free(inf);
    czk_free(kind);
    czk_free(pa);
    czk_free(pb);
    czk_free(po);
    czk_free(lane);
    czk_free(vbuf);
    return rc;
}

static void fb_mul_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    fb_job *j = arg;
    const fb_ops *o = j->t->ops;
    if (j->t->ifma) {
        for (size_t s = begin; s < end; s += FB_BATCH) {
            size_t e = s + FB_BATCH < end ? s + FB_BATCH : end;
            if (fb_mul_ifma(j->t, j->out + s * o->aff_size, &j->sc[s], e - s) != CZK_OK)
                atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
        }
        return;
    }
    unsigned char *tmp = czk_malloc(FB_BATCH * o->jac_size);
    if (tmp == NULL) {
        atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
        return;
    }
    for (size_t s = begin; s < end; s += FB_BATCH) {
        size_t e = s + FB_BATCH < end ? s + FB_BATCH : end;
        for (size_t i = s; i < e; i++)
            fb_mul(j->t, tmp + (i - s) * o->jac_size, &j->sc[i]);
        if (o->to_aff(j->out + s * o->aff_size, tmp, e - s) != CZK_OK)
            atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
    }
    czk_free(tmp);
}

/* out[i] = [sc[i]]G in affine form, i < n. */
static int fb_mul_many(const fb_table *t, void *out, const czk_fr *sc, size_t n, czk_pool *pool) {
    fb_job j = {.t = t, .out = out, .sc = sc};
    atomic_init(&j.failed, 0);
    czk_pool_run(pool, n, FB_BATCH, fb_mul_body, &j);
    return atomic_load_explicit(&j.failed, memory_order_relaxed) ? CZK_ENOMEM : CZK_OK;
}

/* ---- the setup ------------------------------------------------------------------------- */

unsigned czk_groth16_domain_lg(const czk_r1cs *cs) {
    size_t m = cs->n_constraints + cs->n_public + 1;
    unsigned lg = 0;
    while (((size_t)1 << lg) < m)
        lg++;
    return lg;
}

typedef struct toxic {
    czk_fr tau, alpha, beta, gamma, delta;
} toxic;

/* ω and ω_2n of the domain of size 2^lg under `root`. */
static int domain_omega(czk_fr *omega, czk_fr *omega2n, unsigned lg, czk_ntt_root root,
                        czk_err *err) {
    czk_ntt_domain *d = NULL;
    int rc = czk_ntt_domain_create(&d, lg, root, err);
    if (rc != CZK_OK)
        return rc;
    *omega = *czk_ntt_domain_omega(d);
    *omega2n = *czk_ntt_domain_omega_2n(d);
    czk_ntt_domain_destroy(d);
    return CZK_OK;
}

/* ---- parallel passes over the rows and the variables -------------------------------- */

#define SETUP_GRAIN 4096 /* elements a chunk of the field passes below */

/* The two formulas of the setup that run over a domain, in chunks on the pool:
 * mode 0: out[i] = c·g^i for i < n (the monomial H scalars);
 * mode 1: out[i] = c·x_i / (t − x_i) with x_i = h·g^i (the Lagrange values at t over the
 *         points h·g^i: h = 1 the domain, h = ω_2n the odd coset). */
typedef struct powers_job {
    czk_fr *out;
    czk_fr g, c, h, t;
    int mode;
    _Atomic int failed;
} powers_job;

static void powers_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    powers_job *j = arg;
    czk_fr x;
    uint64_t e = begin;
    czk_fr_pow(&x, &j->g, &e, 1);
    if (j->mode == 0) {
        czk_fr_mul(&x, &x, &j->c);
        for (size_t i = begin; i < end; i++) {
            j->out[i] = x;
            czk_fr_mul(&x, &x, &j->g);
        }
        return;
    }
    czk_fr_mul(&x, &x, &j->h);
    const czk_fr x0 = x;
    for (size_t i = begin; i < end; i++) {
        czk_fr_sub(&j->out[i], &j->t, &x);
        czk_fr_mul(&x, &x, &j->g);
    }
    czk_fr *scratch = czk_malloc((end - begin) * sizeof(czk_fr));
    if (scratch == NULL ||
        czk_frs_inv_var(j->out + begin, j->out + begin, end - begin, scratch) != CZK_OK) {
        atomic_store_explicit(&j->failed, 1, memory_order_relaxed);
        czk_free(scratch);
        return;
    }
    czk_free(scratch);
    x = x0;
    for (size_t i = begin; i < end; i++) {
        czk_fr_mul(&j->out[i], &j->out[i], &x);
        czk_fr_mul(&j->out[i], &j->out[i], &j->c);
        czk_fr_mul(&x, &x, &j->g);
    }
}

static int powers(czk_fr *out, size_t n, int mode, const czk_fr *g, const czk_fr *c,
                  const czk_fr *h, const czk_fr *t, czk_pool *pool) {
    powers_job j = {.out = out, .g = *g, .c = *c, .mode = mode};
    if (h != NULL)
        j.h = *h;
    if (t != NULL)
        j.t = *t;
    atomic_init(&j.failed, 0);
    czk_pool_run(pool, n, SETUP_GRAIN, powers_body, &j);
    int failed = atomic_load_explicit(&j.failed, memory_order_relaxed);
    czk_memclear_explicit(&j, sizeof(j));
    return failed ? CZK_ENOMEM : CZK_OK;
}

/* A_i(τ), B_i(τ), C_i(τ): acc[m][col] += M[j][col]·lag[j], the head's rows inline, then copy
 * by copy. Copies share ONE, the gp shared inputs and the gq shared aux (rep.h): their sums go
 * to each way's own accumulators (shared, 3·ns per way, ns = 1 + gp + gq: ONE and the shared
 * inputs at their column, the shared aux after them) until the end. */
typedef struct qap_job {
    const czk_r1cs_rep *rep;
    const czk_fr *lag;
    czk_fr *acc[3];
    czk_fr *shared;  /* 3·ns per way: way w's matrix m at (3·w + m)·ns */
    size_t ns;       /* 1 + gp + gq */
    _Atomic int bad; /* 1: a block's entry past its variables; 2: the head's */
} qap_job;

/* The shared variable's index in a way's accumulators for the block's column c, or SIZE_MAX
 * for a copy's own variable. */
static size_t qap_shared_index(const czk_r1cs_rep_map *map, uint32_t c) {
    if (c <= map->gp)
        return c;
    if (c > map->gp + map->p && c <= map->gp + map->p + map->gq)
        return (size_t)(c - map->p);
    return SIZE_MAX;
}

/* The whole system's column of shared index i (the inverse of qap_shared_index). */
static size_t qap_shared_col(const czk_r1cs_rep_map *map, size_t i) {
    return i <= map->gp ? i : (size_t)(map->aux0 + (i - 1 - map->gp));
}

/* The head's rows, before the copies run: nothing else writes acc yet. Returns 0, or 1 for an
 * entry past the head's variables. */
static int qap_head(qap_job *j) {
    const czk_r1cs *h = &j->rep->head;
    const czk_r1cs_matrix *mats[3] = {&h->a, &h->b, &h->c};
    const czk_r1cs_rep_map map = czk_r1cs_rep_map_of(j->rep, 1);
    for (int m = 0; m < 3; m++) {
        const czk_r1cs_matrix *mat = mats[m];
        czk_fr *acc = j->acc[m];
        for (size_t r = 0; r < h->n_constraints; r++) {
            for (uint64_t k = mat->row_ptr[r]; k < mat->row_ptr[r + 1]; k++) {
                uint32_t c = mat->cols[k];
                if (c >= h->n_vars)
                    return 1;
                czk_fr t;
                czk_fr_mul(&t, &mat->vals[k], &j->lag[r]);
                czk_fr *dst = &acc[czk_r1cs_rep_map_col(&map, 0, c)];
                czk_fr_add(dst, dst, &t);
            }
        }
    }
    return 0;
}

static void qap_copy(void *arg, size_t s, unsigned worker) {
    qap_job *j = arg;
    const czk_r1cs *b = &j->rep->block;
    const czk_r1cs_matrix *mats[3] = {&b->a, &b->b, &b->c};
    const czk_r1cs_rep_map map = czk_r1cs_rep_map_of(j->rep, 0);
    const size_t R = b->n_constraints;
    const czk_fr *lag = j->lag + j->rep->head.n_constraints + s * R;
    for (int m = 0; m < 3; m++) {
        const czk_r1cs_matrix *mat = mats[m];
        czk_fr *acc = j->acc[m], *sums = &j->shared[(3 * (size_t)worker + m) * j->ns];
        for (size_t r = 0; r < R; r++) {
            for (uint64_t k = mat->row_ptr[r]; k < mat->row_ptr[r + 1]; k++) {
                uint32_t c = mat->cols[k];
                if (c >= b->n_vars) {
                    atomic_store_explicit(&j->bad, 1, memory_order_relaxed);
                    return;
                }
                czk_fr t;
                czk_fr_mul(&t, &mat->vals[k], &lag[r]);
                const size_t i = qap_shared_index(&map, c);
                czk_fr *dst = i != SIZE_MAX ? &sums[i] : &acc[czk_r1cs_rep_map_col(&map, s, c)];
                czk_fr_add(dst, dst, &t);
            }
        }
    }
}

/* ct[i] = (β·A_i + α·B_i + C_i) / (γ for public i, δ for aux i). */
typedef struct scalars_job {
    const czk_fr *at, *bt;
    czk_fr *ct;
    czk_fr alpha, beta, gamma_inv, delta_inv;
    size_t n_pub1;
} scalars_job;

static void scalars_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    scalars_job *j = arg;
    for (size_t i = begin; i < end; i++) {
        czk_fr u, t;
        czk_fr_mul(&u, &j->beta, &j->at[i]);
        czk_fr_mul(&t, &j->alpha, &j->bt[i]);
        czk_fr_add(&u, &u, &t);
        czk_fr_add(&u, &u, &j->ct[i]);
        czk_fr_mul(&j->ct[i], &u, i < j->n_pub1 ? &j->gamma_inv : &j->delta_inv);
        czk_memclear_explicit(&u, sizeof(u));
        czk_memclear_explicit(&t, sizeof(t));
    }
}

static int bit_get(const uint64_t *bits, size_t i) {
    return (int)((bits[i / 64] >> (i % 64)) & 1);
}

/* Frees a secret-derived Fr array after clearing it. */
static void free_secret(czk_fr *p, size_t n) {
    if (p != NULL)
        czk_memclear_explicit(p, n * sizeof(*p));
    czk_free(p);
}

static void draw_nonzero(czk_fr *x, czk_rng *rng) {
    do
        czk_fr_random(x, rng);
    while (czk_fr_is_zero(x));
}

/* out[i] = [sc[i]]G for the group of `t`, on the backend when it multiplies. */
static int points(const czk_backend *be, const fb_table *t, int g2, void *out, const czk_fr *sc,
                  size_t n, czk_pool *pool, czk_err *err) {
    if (n == 0)
        return CZK_OK;
    if (be != NULL && be->fixed_base != NULL)
        return be->fixed_base(be->ctx, g2, sc, n, out, pool, err);
    int rc = fb_mul_many(t, out, sc, n, pool);
    return rc == CZK_OK ? CZK_OK : czk_err_set(err, rc, "setup: key points");
}

int czk_groth16_setup_dev(czk_groth16_pk *pk, const czk_r1cs *cs, czk_groth16_h_basis basis,
                          czk_rng *rng, czk_pool *pool, czk_err *err) {
    /* A system is one copy of itself (rep.h): the block is borrowed, not cleared. */
    czk_r1cs_rep rep = {.block = *cs, .copies = 1};
    return czk_groth16_setup_dev_rep(pk, &rep, basis, rng, NULL, pool, err);
}

int czk_groth16_setup_dev_rep(czk_groth16_pk *pk, const czk_r1cs_rep *rep,
                              czk_groth16_h_basis basis, czk_rng *rng, const czk_backend *be,
                              czk_pool *pool, czk_err *err) {
    int rc = CZK_OK;
    toxic tw;
    czk_fr *lag = NULL, *at = NULL, *bt = NULL, *ct = NULL, *sa = NULL, *sb = NULL, *sh = NULL,
           *shared = NULL;
    uint64_t *a_bits = NULL, *b_bits = NULL;
    size_t n_sa = 0, n_sb = 0;
    fb_table t1 = {0}, t2 = {0};
    czk_fr omega, omega2n, one_fr, t, zt, z2t, gamma_inv, delta_inv;
    czk_r1cs dims;
    const unsigned ways = czk_pool_ways(pool);
    memset(pk, 0, sizeof(*pk));
    memset(&tw, 0, sizeof(tw));
    czk_fr_set_zero(&t);
    czk_fr_set_zero(&gamma_inv);
    czk_fr_set_zero(&delta_inv);
    if ((rc = czk_r1cs_rep_dims(rep, &dims, err)) != CZK_OK)
        return rc;
    const czk_r1cs *cs = &dims, *blk = &rep->block, *head = &rep->head;
    /* Sizes first, so that every exit can clear what it freed. */
    const unsigned lg = czk_groth16_domain_lg(cs);
    const size_t n = (size_t)1 << (lg < CZK_NTT_MAX_LG ? lg : CZK_NTT_MAX_LG);
    const size_t n_vars = cs->n_vars, n_pub1 = cs->n_public + 1;
    const size_t n_aux = n_vars >= n_pub1 ? n_vars - n_pub1 : 0;
    const size_t m = cs->n_constraints + n_pub1; /* rows with content */
    /* The variables the copies share: ONE, the head's inputs and aux (rep.h). */
    const size_t ns = (size_t)(1 + czk_r1cs_rep_gp(rep) + czk_r1cs_rep_gq(rep));
    const size_t n_shared = 3 * (size_t)ways * ns;
    const size_t n_h = basis == CZK_H_MONOMIAL ? n - 1 : n;
    const czk_ntt_root root =
        basis == CZK_H_MONOMIAL ? CZK_NTT_ROOT_BELLPERSON : CZK_NTT_ROOT_SNARKJS;

    if (basis != CZK_H_MONOMIAL && basis != CZK_H_ODD_COSET) {
        rc = czk_err_set(err, CZK_EINVAL, "setup: unknown H basis %d", (int)basis);
        goto out;
    }
    if ((blk->n_constraints > 0 &&
         (blk->a.row_ptr == NULL || blk->b.row_ptr == NULL || blk->c.row_ptr == NULL)) ||
        (head->n_constraints > 0 &&
         (head->a.row_ptr == NULL || head->b.row_ptr == NULL || head->c.row_ptr == NULL))) {
        rc = czk_err_set(err, CZK_EINVAL,
                         "setup: the constraint system lacks a matrix (a zkey-only system has "
                         "no C; a key needs C_i(tau))");
        goto out;
    }
    if (lg > CZK_NTT_MAX_LG) {
        rc = czk_err_set(err, CZK_EINVAL, "setup: domain 2^%u is too large", lg);
        goto out;
    }
    czk_fr_set_one(&one_fr);
    if ((rc = domain_omega(&omega, &omega2n, lg, root, err)) != CZK_OK)
        goto out;

    /* The toxic waste. τ must avoid the 2n-th roots of unity, so that it is neither a domain
     * point nor an odd-coset point (the Lagrange formulas divide by τ − point). */
    for (;;) {
        draw_nonzero(&tw.tau, rng);
        uint64_t e = n;
        czk_fr_pow(&t, &tw.tau, &e, 1);
        czk_fr_sub(&zt, &t, &one_fr); /* Z(τ) = τ^n − 1 */
        czk_fr_sqr(&t, &t);
        czk_fr_sub(&z2t, &t, &one_fr); /* τ^{2n} − 1 */
        if (!czk_fr_is_zero(&z2t))
            break;
    }
    draw_nonzero(&tw.alpha, rng);
    draw_nonzero(&tw.beta, rng);
    draw_nonzero(&tw.gamma, rng);
    draw_nonzero(&tw.delta, rng);

    /* 1. L_j(τ) = ω^j·Z(τ)/(n·(τ − ω^j)) for the m rows in use. */
    lag = czk_malloc(m * sizeof(*lag));
    at = czk_calloc(n_vars, sizeof(*at));
    bt = czk_calloc(n_vars, sizeof(*bt));
    ct = czk_calloc(n_vars, sizeof(*ct));
    shared = czk_calloc(n_shared, sizeof(*shared));
    if (lag == NULL || at == NULL || bt == NULL || ct == NULL || shared == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "setup: QAP arrays for %zu rows, %zu variables", m,
                         n_vars);
        goto out;
    }
    {
        czk_fr coef, ninv;
        czk_fr_set_u64(&ninv, n);
        czk_fr_inv_var(&ninv, &ninv);
        czk_fr_mul(&coef, &zt, &ninv);
        if ((rc = powers(lag, m, 1, &omega, &coef, &one_fr, &tw.tau, pool)) != CZK_OK) {
            rc = czk_err_set(err, rc, "setup: Lagrange values of %zu rows", m);
            goto out;
        }
    }

    /* A_i(τ), B_i(τ), C_i(τ): one pass over the entries, the head's, then copy by copy. */
    if (cs->n_constraints > 0) {
        qap_job q = {.rep = rep, .lag = lag, .acc = {at, bt, ct}, .shared = shared, .ns = ns};
        atomic_init(&q.bad, 0);
        if (head->n_constraints > 0 && qap_head(&q) != 0)
            atomic_store_explicit(&q.bad, 2, memory_order_relaxed);
        if (atomic_load_explicit(&q.bad, memory_order_relaxed) == 0 && blk->n_constraints > 0)
            czk_r1cs_rep_for_copies(rep, pool, qap_copy, &q);
        const int bad = atomic_load_explicit(&q.bad, memory_order_relaxed);
        if (bad != 0) {
            rc = czk_err_set(err, CZK_EINVAL,
                             "setup: an entry refers to a variable past the %zu of its %s",
                             bad == 2 ? head->n_vars : blk->n_vars, bad == 2 ? "head" : "block");
            goto out;
        }
        const czk_r1cs_rep_map map = czk_r1cs_rep_map_of(rep, 0);
        for (unsigned w = 0; w < ways; w++)
            for (int k = 0; k < 3; k++) {
                czk_fr *acc = q.acc[k];
                const czk_fr *src = &shared[(3 * (size_t)w + k) * ns];
                for (size_t i = 0; i < ns; i++) {
                    czk_fr *dst = &acc[qap_shared_col(&map, i)];
                    czk_fr_add(dst, dst, &src[i]);
                }
            }
    }
    for (size_t i = 0; i < n_pub1; i++) /* the input rows: A = variable i */
        czk_fr_add(&at[i], &at[i], &lag[cs->n_constraints + i]);
    free_secret(lag, m);
    lag = NULL;

    /* 2. Scalars. ct becomes β·A + α·B + C, over γ (public) or δ (aux). */
    czk_fr_inv_var(&gamma_inv, &tw.gamma);
    czk_fr_inv_var(&delta_inv, &tw.delta);
    {
        scalars_job sj = {.at = at,
                          .bt = bt,
                          .ct = ct,
                          .alpha = tw.alpha,
                          .beta = tw.beta,
                          .gamma_inv = gamma_inv,
                          .delta_inv = delta_inv,
                          .n_pub1 = n_pub1};
        czk_pool_run(pool, n_vars, SETUP_GRAIN, scalars_body, &sj);
        czk_memclear_explicit(&sj, sizeof(sj));
    }

    pk->h_basis = basis;
    pk->domain_size = n;
    pk->n_vars = n_vars;
    pk->n_public = cs->n_public;
    const czk_fr *a_sc = at, *b_sc = bt;
    if (basis == CZK_H_MONOMIAL) {
        pk->density = CZK_DENSITY_FILTERED;
        size_t words = (n_vars + 63) / 64;
        a_bits = czk_calloc(words, sizeof(uint64_t));
        b_bits = czk_calloc(words, sizeof(uint64_t));
        if (a_bits == NULL || b_bits == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "setup: density of %zu variables", n_vars);
            goto out;
        }
        if ((rc = czk_r1cs_rep_density(rep, a_bits, b_bits, err)) != CZK_OK)
            goto out;
        size_t na = 0, nb = 0;
        for (size_t i = 0; i < n_vars; i++) {
            na += i < n_pub1 || bit_get(a_bits, i);
            nb += bit_get(b_bits, i);
        }
        /* Only the variables that occur: the dense arrays are gathered and then freed. */
        n_sa = na > 0 ? na : 1;
        n_sb = nb > 0 ? nb : 1;
        sa = czk_malloc(n_sa * sizeof(*sa));
        sb = czk_malloc(n_sb * sizeof(*sb));
        if (sa == NULL || sb == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "setup: scalars of %zu variables", n_vars);
            goto out;
        }
        na = nb = 0;
        for (size_t i = 0; i < n_vars; i++) {
            if (i < n_pub1 || bit_get(a_bits, i))
                sa[na++] = at[i];
            if (bit_get(b_bits, i))
                sb[nb++] = bt[i];
        }
        pk->n_a = na;
        pk->n_b_g1 = pk->n_b_g2 = nb;
        a_sc = sa;
        b_sc = sb;
    } else {
        pk->density = CZK_DENSITY_DENSE;
        pk->n_a = pk->n_b_g1 = pk->n_b_g2 = n_vars;
    }

    /* H scalars: MONOMIAL τ^i·Z(τ)/δ; ODD_COSET p_i·(τ^{2n} − 1)/(2n·(τ − p_i)·δ). */
    pk->n_h = n_h;
    sh = czk_malloc((n_h > 0 ? n_h : 1) * sizeof(*sh));
    if (sh == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "setup: %zu H scalars", pk->n_h);
        goto out;
    }
    {
        czk_fr coef;
        if (basis == CZK_H_MONOMIAL) {
            czk_fr_mul(&coef, &zt, &delta_inv);
            rc = powers(sh, n_h, 0, &tw.tau, &coef, NULL, NULL, pool);
        } else {
            czk_fr inv2n;
            czk_fr_set_u64(&inv2n, 2 * (uint64_t)n);
            czk_fr_inv_var(&inv2n, &inv2n);
            czk_fr_mul(&coef, &z2t, &inv2n);
            czk_fr_mul(&coef, &coef, &delta_inv);
            rc = powers(sh, n, 1, &omega, &coef, &omega2n, &tw.tau, pool);
        }
        czk_memclear_explicit(&coef, sizeof(coef));
        if (rc != CZK_OK) {
            rc = czk_err_set(err, rc, "setup: %zu H scalars", n_h);
            goto out;
        }
    }
    /* 3. Points. */
    pk->vk.n_ic = n_pub1;
    pk->n_l = n_aux;
    pk->vk.ic = czk_malloc(n_pub1 * sizeof(czk_g1_affine));
    pk->l = n_aux ? czk_malloc(n_aux * sizeof(czk_g1_affine)) : NULL;
    pk->a = pk->n_a ? czk_malloc(pk->n_a * sizeof(czk_g1_affine)) : NULL;
    pk->b_g1 = pk->n_b_g1 ? czk_malloc(pk->n_b_g1 * sizeof(czk_g1_affine)) : NULL;
    pk->b_g2 = pk->n_b_g2 ? czk_malloc(pk->n_b_g2 * sizeof(czk_g2_affine)) : NULL;
    pk->h = pk->n_h ? czk_malloc(pk->n_h * sizeof(czk_g1_affine)) : NULL;
    if (pk->vk.ic == NULL || (n_aux && pk->l == NULL) || (pk->n_a && pk->a == NULL) ||
        (pk->n_b_g1 && (pk->b_g1 == NULL || pk->b_g2 == NULL)) || (pk->n_h && pk->h == NULL)) {
        rc = czk_err_set(err, CZK_ENOMEM, "setup: key of %zu variables, domain %zu", n_vars, n);
        goto out;
    }
    /* The CPU's tables: for the six verifying-key points always, for the rest when the
     * backend does not multiply. */
    const int on_be = be != NULL && be->fixed_base != NULL;
    size_t count1 = on_be ? 3 : n_pub1 + n_aux + pk->n_a + pk->n_b_g1 + pk->n_h + 3;
    if ((rc = fb_table_build(&t1, &G1_OPS, &CZK_G1_GENERATOR, count1, pool)) != CZK_OK ||
        (rc = fb_table_build(&t2, &G2_OPS, &CZK_G2_GENERATOR, on_be ? 3 : pk->n_b_g2 + 3, pool)) !=
            CZK_OK) {
        rc = czk_err_set(err, rc, "setup: fixed-base tables");
        goto out;
    }
    {
        czk_fr v1[3] = {tw.alpha, tw.beta, tw.delta}, v2[3] = {tw.beta, tw.gamma, tw.delta};
        czk_g1_affine p1[3];
        czk_g2_affine p2[3];
        rc = fb_mul_many(&t1, p1, v1, 3, NULL);
        if (rc == CZK_OK)
            rc = fb_mul_many(&t2, p2, v2, 3, NULL);
        czk_memclear_explicit(v1, sizeof(v1));
        czk_memclear_explicit(v2, sizeof(v2));
        if (rc != CZK_OK) {
            rc = czk_err_set(err, rc, "setup: verifying key points");
            goto out;
        }
        pk->vk.alpha_g1 = p1[0];
        pk->vk.beta_g1 = p1[1];
        pk->vk.delta_g1 = p1[2];
        pk->vk.beta_g2 = p2[0];
        pk->vk.gamma_g2 = p2[1];
        pk->vk.delta_g2 = p2[2];
    }
    const czk_backend *pb = on_be ? be : NULL;
    if ((rc = points(pb, &t1, 0, pk->vk.ic, ct, n_pub1, pool, err)) != CZK_OK ||
        (rc = points(pb, &t1, 0, pk->l, ct + n_pub1, n_aux, pool, err)) != CZK_OK ||
        (rc = points(pb, &t1, 0, pk->a, a_sc, pk->n_a, pool, err)) != CZK_OK ||
        (rc = points(pb, &t1, 0, pk->b_g1, b_sc, pk->n_b_g1, pool, err)) != CZK_OK ||
        (rc = points(pb, &t2, 1, pk->b_g2, b_sc, pk->n_b_g2, pool, err)) != CZK_OK ||
        (rc = points(pb, &t1, 0, pk->h, sh, pk->n_h, pool, err)) != CZK_OK)
        goto out;

out:
    czk_memclear_explicit(&tw, sizeof(tw));
    czk_memclear_explicit(&t, sizeof(t));
    czk_memclear_explicit(&zt, sizeof(zt));
    czk_memclear_explicit(&z2t, sizeof(z2t));
    czk_memclear_explicit(&gamma_inv, sizeof(gamma_inv));
    czk_memclear_explicit(&delta_inv, sizeof(delta_inv));
    free_secret(lag, m);
    free_secret(at, n_vars);
    free_secret(bt, n_vars);
    free_secret(ct, n_vars);
    free_secret(sa, n_sa);
    free_secret(sb, n_sb);
    free_secret(sh, n_h > 0 ? n_h : 1);
    free_secret(shared, n_shared);
    czk_free(a_bits);
    czk_free(b_bits);
    fb_table_free(&t1);
    fb_table_free(&t2);
    if (rc != CZK_OK)
        czk_groth16_pk_clear(pk);
    return rc;
}
