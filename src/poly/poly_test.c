#include "field/fr.h"
#include "poly/ntt.h"
#include "poly/ntt_internal.h"
#include "poly/quotient.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/status.h"

#include <string.h>

/*
 * Primitive 2^lg-th roots, canonical big-endian hex, for lg = 3, 10, 16, 20, 28, 29.
 * bellperson: 7^((r−1)/2^lg), printed with python3's pow. snarkjs: ffjavascript 0.3.1's
 * Fr.toString(Fr.w[lg], 16) after buildBls12381 (tests/snarkjs/node_modules), zero-padded.
 */
static const unsigned KNOWN_LG[] = {3, 10, 16, 20, 28, 29};
static const char *const KNOWN_BELLPERSON[] = {
    "345766f603fa66e78c0625cd70d77ce2b38b21c28713b7007228fd3397743f7a",
    "325db5c3debf77a18f4de02c0f776af3ea437f9626fc085e3c28d666a5c2d854",
    "2155379d12180caa88f39a78f1aeb57867a665ae1fcadc91d7118f85cd96b8ad",
    "03e1c54bcb947035a57a6e07cb98de4a2f69e02d265e09d9fece7e0e39898d4b",
    "52dd465e2f09425699e276b571905a7d6558e9e3f6ac7b41d7b688830a4f2089",
    "0c83ea7744bf1bee8da40c1ef2bb459884d37b826214abc6474650359d8e211b",
};
static const char *const KNOWN_SNARKJS[] = {
    "3f96405d25a31660a733b23a98ca5b22a032824078eaa4fe8dd702cb688bc087",
    "2f27b09858f43cef3ed6d55a6350721d79efd6b0570bf109d58a5af42d010ff9",
    "6709c6cd56aa725b0409ee987a02402c0caba63a29c01b06137b458acfc35f7a",
    "3436287f5f686d91556c35f6537d6971870c46fac2f0fcbd20b53cbe41144dea",
    "2967385d5e3e768297ae418dd274a80a4d7f3c3aa71efc0caba2f51842f2a254",
    "705aba4f4a939684c3974d73a04fccf33ba4a15774a7ded175c55c7b575a0b79",
};

static int fr_from_hex(czk_fr *r, const char *hex) {
    uint8_t be[CZK_FR_BYTES];
    for (int i = 0; i < CZK_FR_BYTES; i++) {
        unsigned v = 0;
        for (int k = 0; k < 2; k++) {
            char ch = hex[2 * i + k];
            v = v * 16 + (unsigned)(ch <= '9' ? ch - '0' : ch - 'a' + 10);
        }
        be[i] = (uint8_t)v;
    }
    return czk_fr_from_bytes_be(r, be);
}

static czk_fr *fr_alloc(size_t n) {
    return czk_malloc(n * sizeof(czk_fr));
}

static void fr_random_vec(czk_fr *v, size_t n, czk_rng *rng) {
    for (size_t i = 0; i < n; i++)
        czk_fr_random(&v[i], rng);
}

/* Σ_j c[j]·x^j by Horner. */
static void horner(czk_fr *out, const czk_fr *c, size_t n, const czk_fr *x) {
    czk_fr acc = CZK_FR_ZERO;
    for (size_t j = n; j-- > 0;) {
        czk_fr_mul(&acc, &acc, x);
        czk_fr_add(&acc, &acc, &c[j]);
    }
    *out = acc;
}

/* out[i] = Σ_j in[j]·(shift·w^i)^j, the O(n²) reference. */
static void naive_dft(czk_fr *out, const czk_fr *in, size_t n, const czk_fr *w,
                      const czk_fr *shift) {
    czk_fr x = *shift;
    for (size_t i = 0; i < n; i++) {
        horner(&out[i], in, n, &x);
        czk_fr_mul(&x, &x, w);
    }
}

/* Coefficients of the interpolant of evaluations ev at w^i: (1/n)·Σ_i ev[i]·w^(−ij). */
static void naive_interp(czk_fr *coef, const czk_fr *ev, size_t n, const czk_fr *w) {
    czk_fr winv, ninv, nf;
    czk_fr_inv(&winv, w);
    czk_fr_set_u64(&nf, n);
    czk_fr_inv(&ninv, &nf);
    naive_dft(coef, ev, n, &winv, &CZK_FR_ONE);
    for (size_t i = 0; i < n; i++)
        czk_fr_mul(&coef[i], &coef[i], &ninv);
}

static int vec_equal(const czk_fr *a, const czk_fr *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!czk_fr_equal(&a[i], &b[i]))
            return 0;
    return 1;
}

static void fr_pow_u64(czk_fr *r, const czk_fr *a, uint64_t e) {
    czk_fr_pow(r, a, &e, 1);
}

CZK_TEST(ntt_roots) {
    czk_fr minus_one;
    czk_fr_neg(&minus_one, &CZK_FR_ONE);
    for (unsigned lg = 0; lg <= CZK_NTT_MAX_LG; lg++) {
        czk_ntt_domain *bd = NULL, *sd = NULL;
        CHECK_EQ_INT(czk_ntt_domain_create(&bd, lg, CZK_NTT_ROOT_BELLPERSON, NULL), CZK_OK);
        CHECK_EQ_INT(czk_ntt_domain_create(&sd, lg, CZK_NTT_ROOT_SNARKJS, NULL), CZK_OK);
        czk_ntt_domain *ds[2] = {bd, sd};
        for (int k = 0; k < 2; k++) {
            const czk_ntt_domain *d = ds[k];
            size_t n = czk_ntt_domain_size(d);
            CHECK_EQ_INT(n, (size_t)1 << lg);
            CHECK_EQ_INT(czk_ntt_domain_lg(d), lg);
            czk_fr p;
            fr_pow_u64(&p, czk_ntt_domain_omega(d), n);
            CHECKF(czk_fr_is_one(&p), "omega^n != 1 at lg %u", lg);
            if (n >= 2) {
                fr_pow_u64(&p, czk_ntt_domain_omega(d), n / 2);
                CHECKF(czk_fr_equal(&p, &minus_one), "omega^(n/2) != -1 at lg %u", lg);
            }
            czk_fr_sqr(&p, czk_ntt_domain_omega_2n(d));
            CHECK(czk_fr_equal(&p, czk_ntt_domain_omega(d)));
            fr_pow_u64(&p, czk_ntt_domain_omega_2n(d), n);
            CHECK(czk_fr_equal(&p, &minus_one));
            /* O(sqrt n) twiddles above 2^20: the 2^28 domain stays small. */
            if (lg > 20)
                CHECKF(czk_ntt_domain_bytes(d) < ((size_t)2 << 20), "%zu bytes at lg %u",
                       czk_ntt_domain_bytes(d), lg);
        }
        int same = czk_fr_equal(czk_ntt_domain_omega(bd), czk_ntt_domain_omega(sd));
        CHECKF(same == (lg <= 2), "conventions %s at lg %u", same ? "agree" : "differ", lg);
        for (size_t i = 0; i < sizeof(KNOWN_LG) / sizeof(KNOWN_LG[0]); i++) {
            czk_fr want;
            if (KNOWN_LG[i] == lg) {
                CHECK_EQ_INT(fr_from_hex(&want, KNOWN_BELLPERSON[i]), CZK_OK);
                CHECKF(czk_fr_equal(czk_ntt_domain_omega(bd), &want), "bellperson lg %u", lg);
                CHECK_EQ_INT(fr_from_hex(&want, KNOWN_SNARKJS[i]), CZK_OK);
                CHECKF(czk_fr_equal(czk_ntt_domain_omega(sd), &want), "snarkjs lg %u", lg);
            }
            if (KNOWN_LG[i] == lg + 1) { /* the odd-coset shift is snarkjs's Fr.w[lg + 1] */
                CHECK_EQ_INT(fr_from_hex(&want, KNOWN_SNARKJS[i]), CZK_OK);
                CHECK(czk_fr_equal(czk_ntt_domain_omega_2n(sd), &want));
                CHECK_EQ_INT(fr_from_hex(&want, KNOWN_BELLPERSON[i]), CZK_OK);
                CHECK(czk_fr_equal(czk_ntt_domain_omega_2n(bd), &want));
            }
        }
        czk_ntt_domain_destroy(bd);
        czk_ntt_domain_destroy(sd);
    }
}

CZK_TEST(ntt_domain_args) {
    czk_ntt_domain *d = (czk_ntt_domain *)&d;
    czk_err e;
    CHECK_EQ_INT(czk_ntt_domain_create(&d, CZK_NTT_MAX_LG + 1, CZK_NTT_ROOT_SNARKJS, &e),
                 CZK_EINVAL);
    CHECK(d == NULL);
    CHECK_EQ_INT(e.code, CZK_EINVAL);
    CHECK_EQ_INT(czk_ntt_domain_create(&d, 4, (czk_ntt_root)2, NULL), CZK_EINVAL);
    CHECK_EQ_INT(czk_ntt_domain_create(NULL, 4, CZK_NTT_ROOT_SNARKJS, NULL), CZK_EINVAL);
    czk_ntt_domain_destroy(NULL);
    size_t before = czk_alloc_in_use();
    CHECK_EQ_INT(czk_ntt_domain_create(&d, 10, CZK_NTT_ROOT_BELLPERSON, NULL), CZK_OK);
    CHECK(czk_alloc_in_use() - before == czk_ntt_domain_bytes(d));
    czk_ntt_domain_destroy(d);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
    czk_fr a[2], b[2], c[2];
    CHECK_EQ_INT(czk_poly_h_monomial(NULL, a, b, c, NULL, NULL), CZK_EINVAL);
    CHECK_EQ_INT(czk_poly_h_odd_coset(NULL, a, b, c, NULL, &e), CZK_EINVAL);
}

/* n = 1 and n = 2 by hand. */
CZK_TEST(ntt_tiny) {
    czk_ntt_domain *d1 = NULL, *d2 = NULL;
    CHECK_EQ_INT(czk_ntt_domain_create(&d1, 0, CZK_NTT_ROOT_BELLPERSON, NULL), CZK_OK);
    CHECK_EQ_INT(czk_ntt_domain_create(&d2, 1, CZK_NTT_ROOT_SNARKJS, NULL), CZK_OK);
    czk_fr x, y, g, a[2], s, dif;
    czk_fr_random(&x, &t->rng);
    czk_fr_random(&y, &t->rng);
    czk_fr_random(&g, &t->rng);
    a[0] = x;
    czk_ntt_forward(d1, a, NULL);
    CHECK(czk_fr_equal(&a[0], &x));
    czk_ntt_inverse(d1, a, NULL);
    CHECK(czk_fr_equal(&a[0], &x));
    czk_ntt_coset_forward(d1, a, &g, NULL);
    CHECK(czk_fr_equal(&a[0], &x));
    czk_ntt_coset_inverse(d1, a, &g, NULL);
    CHECK(czk_fr_equal(&a[0], &x));
    CHECK(czk_fr_is_one(czk_ntt_domain_omega(d1)));

    a[0] = x;
    a[1] = y;
    czk_ntt_forward(d2, a, NULL);
    czk_fr_add(&s, &x, &y);
    czk_fr_sub(&dif, &x, &y);
    CHECK(czk_fr_equal(&a[0], &s) && czk_fr_equal(&a[1], &dif));
    czk_ntt_inverse(d2, a, NULL);
    CHECK(czk_fr_equal(&a[0], &x) && czk_fr_equal(&a[1], &y));
    /* coset: x + y·g and x − y·g */
    czk_ntt_coset_forward(d2, a, &g, NULL);
    czk_fr yg;
    czk_fr_mul(&yg, &y, &g);
    czk_fr_add(&s, &x, &yg);
    czk_fr_sub(&dif, &x, &yg);
    CHECK(czk_fr_equal(&a[0], &s) && czk_fr_equal(&a[1], &dif));
    czk_ntt_domain_destroy(d1);
    czk_ntt_domain_destroy(d2);
}

/*
 * Forward and inverse against the O(n²) DFT for lg 0..10, both conventions, with the default
 * tuning and with every block size and both twiddle layouts forced, so that the outer-stage
 * and block code paths and the two-level table all run on small domains.
 */
CZK_TEST(ntt_naive_dft) {
    unsigned max_lg = (unsigned)czk_test_iters(t, 10);
    for (unsigned lg = 0; lg <= max_lg; lg++) {
        size_t n = (size_t)1 << lg;
        czk_fr *in = fr_alloc(n), *want = fr_alloc(n), *want_inv = fr_alloc(n), *a = fr_alloc(n);
        CHECK(in != NULL && want != NULL && want_inv != NULL && a != NULL);
        for (int root = 0; root < 2; root++) {
            czk_ntt_domain *d = NULL;
            CHECK_EQ_INT(czk_ntt_domain_create(&d, lg, (czk_ntt_root)root, NULL), CZK_OK);
            fr_random_vec(in, n, &t->rng);
            naive_dft(want, in, n, czk_ntt_domain_omega(d), &CZK_FR_ONE);
            naive_interp(want_inv, in, n, czk_ntt_domain_omega(d));
            for (unsigned bl = 0; bl <= lg + 1; bl++) {
                for (int full = 0; full < 2 - (bl > lg); full++) {
                    czk_ntt_domain *dt = d;
                    if (bl <= lg)
                        CHECK_EQ_INT(czk__ntt_domain_create_tuned(&dt, lg, (czk_ntt_root)root, bl,
                                                                  full ? 30 : 0, NULL),
                                     CZK_OK);
                    memcpy(a, in, n * sizeof(czk_fr));
                    czk_ntt_forward(dt, a, NULL);
                    CHECKF(vec_equal(a, want, n), "forward lg %u root %d block %u full %d", lg,
                           root, bl, full);
                    memcpy(a, in, n * sizeof(czk_fr));
                    czk_ntt_inverse(dt, a, NULL);
                    CHECKF(vec_equal(a, want_inv, n), "inverse lg %u root %d block %u full %d", lg,
                           root, bl, full);
                    /* The DIT pass that quotient.c uses: bit-reversed in, natural out. */
                    memcpy(a, in, n * sizeof(czk_fr));
                    czk__ntt_bitrev(dt, a, NULL, NULL);
                    czk__ntt_dit(dt, a, CZK__NTT_FWD, NULL);
                    CHECKF(vec_equal(a, want, n), "dit lg %u root %d block %u full %d", lg, root,
                           bl, full);
                    memcpy(a, in, n * sizeof(czk_fr));
                    czk__ntt_bitrev(dt, a, czk__ntt_domain_n_inv(dt), NULL);
                    czk__ntt_dit(dt, a, CZK__NTT_INV, NULL);
                    CHECKF(vec_equal(a, want_inv, n), "dit inverse lg %u root %d block %u full %d",
                           lg, root, bl, full);
                    if (dt != d)
                        czk_ntt_domain_destroy(dt);
                }
            }
            czk_ntt_domain_destroy(d);
        }
        czk_free(in);
        czk_free(want);
        czk_free(want_inv);
        czk_free(a);
    }
}

/* Coset forward against evaluation at g·ω^i; coset inverse brings the coefficients back. */
CZK_TEST(ntt_coset_naive) {
    for (unsigned lg = 0; lg <= 9; lg++) {
        size_t n = (size_t)1 << lg;
        czk_fr *in = fr_alloc(n), *want = fr_alloc(n), *a = fr_alloc(n), g;
        CHECK(in != NULL && want != NULL && a != NULL);
        for (int root = 0; root < 2; root++) {
            czk_ntt_domain *d = NULL;
            CHECK_EQ_INT(czk__ntt_domain_create_tuned(&d, lg, (czk_ntt_root)root, lg / 2, 0, NULL),
                         CZK_OK);
            fr_random_vec(in, n, &t->rng);
            czk_fr_random(&g, &t->rng);
            naive_dft(want, in, n, czk_ntt_domain_omega(d), &g);
            memcpy(a, in, n * sizeof(czk_fr));
            czk_ntt_coset_forward(d, a, &g, NULL);
            CHECKF(vec_equal(a, want, n), "coset forward lg %u root %d", lg, root);
            czk_ntt_coset_inverse(d, a, &g, NULL);
            CHECKF(vec_equal(a, in, n), "coset inverse lg %u root %d", lg, root);
            czk_ntt_domain_destroy(d);
        }
        czk_free(in);
        czk_free(want);
        czk_free(a);
    }
}

/* inverse(forward(x)) = x and forward(inverse(x)) = x up to 2^16, plain and coset. */
CZK_TEST(ntt_roundtrip) {
    unsigned max_lg = (unsigned)czk_test_iters(t, 16);
    size_t nmax = (size_t)1 << max_lg;
    czk_fr *in = fr_alloc(nmax), *a = fr_alloc(nmax), g;
    CHECK(in != NULL && a != NULL);
    for (unsigned lg = 0; lg <= max_lg; lg++) {
        size_t n = (size_t)1 << lg;
        czk_ntt_domain *d = NULL;
        CHECK_EQ_INT(czk_ntt_domain_create(&d, lg, (czk_ntt_root)(lg & 1), NULL), CZK_OK);
        fr_random_vec(in, n, &t->rng);
        czk_fr_random(&g, &t->rng);
        memcpy(a, in, n * sizeof(czk_fr));
        czk_ntt_forward(d, a, NULL);
        CHECK(lg == 0 || !vec_equal(a, in, n));
        czk_ntt_inverse(d, a, NULL);
        CHECKF(vec_equal(a, in, n), "inverse(forward) lg %u", lg);
        czk_ntt_inverse(d, a, NULL);
        czk_ntt_forward(d, a, NULL);
        CHECKF(vec_equal(a, in, n), "forward(inverse) lg %u", lg);
        czk_ntt_coset_forward(d, a, &g, NULL);
        czk_ntt_coset_inverse(d, a, &g, NULL);
        CHECKF(vec_equal(a, in, n), "coset lg %u", lg);
        czk_ntt_domain_destroy(d);
    }
    czk_free(in);
    czk_free(a);
}

/*
 * The default domain at 2^21 uses the two-level twiddle table and 9 outer stages: the round
 * trip holds, and a few outputs of the forward transform match Horner evaluation.
 */
CZK_TEST(ntt_two_level_large) {
    const unsigned lg = 21;
    size_t n = (size_t)1 << lg;
    czk_fr *in = fr_alloc(n), *a = fr_alloc(n);
    czk_pool *pool = NULL;
    czk_ntt_domain *d = NULL;
    CHECK(in != NULL && a != NULL);
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    CHECK_EQ_INT(czk_ntt_domain_create(&d, lg, CZK_NTT_ROOT_SNARKJS, NULL), CZK_OK);
    fr_random_vec(in, n, &t->rng);
    memcpy(a, in, n * sizeof(czk_fr));
    czk_ntt_forward(d, a, pool);
    size_t idx[3] = {1, n / 2 + 1, czk_rng_u64(&t->rng) % n};
    for (int k = 0; k < 3; k++) {
        czk_fr x, want;
        fr_pow_u64(&x, czk_ntt_domain_omega(d), idx[k]);
        horner(&want, in, n, &x);
        CHECKF(czk_fr_equal(&a[idx[k]], &want), "forward[%zu] at 2^21", idx[k]);
    }
    czk_ntt_inverse(d, a, pool);
    CHECK(vec_equal(a, in, n));
    czk_ntt_domain_destroy(d);
    czk_pool_destroy(pool);
    czk_free(in);
    czk_free(a);
}

/* Pools of 1, 2 and 3 ways give the results of the inline (NULL pool) run. */
CZK_TEST(ntt_threads) {
    static const unsigned lgs[] = {0, 3, 9, 10, 11, 13, 15};
    enum { NOPS = 6 };
    czk_pool *pools[3] = {NULL, NULL, NULL};
    for (unsigned w = 0; w < 3; w++)
        CHECK_EQ_INT(czk_pool_create(&pools[w], w + 1), CZK_OK);
    for (size_t li = 0; li < sizeof(lgs) / sizeof(lgs[0]); li++) {
        unsigned lg = lgs[li];
        size_t n = (size_t)1 << lg;
        czk_fr *in = fr_alloc(n), *ref = fr_alloc(NOPS * n), *a = fr_alloc(n);
        czk_fr *b = fr_alloc(n), *c = fr_alloc(n), g;
        CHECK(in != NULL && ref != NULL && a != NULL && b != NULL && c != NULL);
        czk_ntt_domain *d = NULL;
        /* Blocks of 2^8 and the two-level table from 2^13 on: outer stages even on one way. */
        CHECK_EQ_INT(czk__ntt_domain_create_tuned(&d, lg, CZK_NTT_ROOT_BELLPERSON, 8, 12, NULL),
                     CZK_OK);
        fr_random_vec(in, n, &t->rng);
        czk_fr_random(&g, &t->rng);
        for (int p = -1; p < 3; p++) {
            czk_pool *pool = p < 0 ? NULL : pools[p];
            for (int op = 0; op < NOPS; op++) {
                memcpy(a, in, n * sizeof(czk_fr));
                for (size_t i = 0; i < n; i++) {
                    b[i] = in[(i + 1) % n];
                    c[i] = in[(i + 2) % n];
                }
                if (op == 0)
                    czk_ntt_forward(d, a, pool);
                else if (op == 1)
                    czk_ntt_inverse(d, a, pool);
                else if (op == 2)
                    czk_ntt_coset_forward(d, a, &g, pool);
                else if (op == 3)
                    czk_ntt_coset_inverse(d, a, &g, pool);
                else if (op == 4)
                    CHECK_EQ_INT(czk_poly_h_monomial(d, a, b, c, pool, NULL), CZK_OK);
                else
                    CHECK_EQ_INT(czk_poly_h_odd_coset(d, a, b, c, pool, NULL), CZK_OK);
                if (p < 0)
                    memcpy(ref + op * n, a, n * sizeof(czk_fr));
                else
                    CHECKF(vec_equal(a, ref + op * n, n), "op %d lg %u ways %d", op, lg, p + 1);
            }
        }
        czk_ntt_domain_destroy(d);
        czk_free(in);
        czk_free(ref);
        czk_free(a);
        czk_free(b);
        czk_free(c);
    }
    for (unsigned w = 0; w < 3; w++)
        czk_pool_destroy(pools[w]);
}

/* One quotient run's inputs: a, b, c on the domain (c = a∘b when satisfied) and, in ca, cb,
 * cc, their coefficients, so a check can evaluate A, B, C anywhere. The quotient overwrites a. */
typedef struct quot_io {
    size_t n;
    unsigned lg;
    int cfg, satisfied;
    const czk_ntt_domain *d;
    const czk_fr *w;
    czk_fr *a, *b, *c, *ca, *cb, *cc;
} quot_io;

typedef int (*quotient_fn)(const czk_ntt_domain *d, czk_fr *a, czk_fr *b, czk_fr *c, czk_pool *pool,
                           czk_err *err);

/* A(x)·B(x) − C(x), from the coefficients by Horner. */
static void abc_at(czk_fr *r, const quot_io *q, const czk_fr *x) {
    czk_fr va, vb, vc;
    horner(&va, q->ca, q->n, x);
    horner(&vb, q->cb, q->n, x);
    horner(&vc, q->cc, q->n, x);
    czk_fr_mul(r, &va, &vb);
    czk_fr_sub(r, r, &vc);
}

/*
 * Runs quotient h for lg 0..8, both root conventions with default tuning and with small
 * blocks and the two-level table, on a satisfied and an unsatisfied system each, and hands
 * every result to check. pad zeroes the last "constraints", as the prover passes them.
 */
static void quotient_sweep(czk_test_ctx *t, quotient_fn h, int pad,
                           void (*check)(czk_test_ctx *t, const quot_io *q)) {
    for (unsigned lg = 0; lg <= 8; lg++) {
        size_t n = (size_t)1 << lg;
        quot_io q = {.n = n, .lg = lg};
        q.a = fr_alloc(n), q.b = fr_alloc(n), q.c = fr_alloc(n);
        q.ca = fr_alloc(n), q.cb = fr_alloc(n), q.cc = fr_alloc(n);
        CHECK(q.a != NULL && q.b != NULL && q.c != NULL && q.ca != NULL && q.cb != NULL &&
              q.cc != NULL);
        for (q.cfg = 0; q.cfg < 4; q.cfg++) {
            int root = q.cfg & 1;
            czk_ntt_domain *d = NULL;
            if (q.cfg < 2)
                CHECK_EQ_INT(czk_ntt_domain_create(&d, lg, (czk_ntt_root)root, NULL), CZK_OK);
            else
                CHECK_EQ_INT(
                    czk__ntt_domain_create_tuned(&d, lg, (czk_ntt_root)root, lg / 2, 0, NULL),
                    CZK_OK);
            q.d = d;
            q.w = czk_ntt_domain_omega(d);
            for (q.satisfied = 1; q.satisfied >= 0; q.satisfied--) {
                fr_random_vec(q.a, n, &t->rng);
                fr_random_vec(q.b, n, &t->rng);
                fr_random_vec(q.c, n, &t->rng);
                if (pad && n >= 4)
                    q.a[n - 1] = q.b[n - 2] = CZK_FR_ZERO;
                if (q.satisfied)
                    for (size_t i = 0; i < n; i++)
                        czk_fr_mul(&q.c[i], &q.a[i], &q.b[i]);
                naive_interp(q.ca, q.a, n, q.w);
                naive_interp(q.cb, q.b, n, q.w);
                naive_interp(q.cc, q.c, n, q.w);
                CHECK_EQ_INT(h(d, q.a, q.b, q.c, NULL, NULL), CZK_OK);
                int failures = t->failures;
                check(t, &q);
                if (t->failures != failures)
                    return;
            }
            czk_ntt_domain_destroy(d);
        }
        czk_free(q.a);
        czk_free(q.b);
        czk_free(q.c);
        czk_free(q.ca);
        czk_free(q.cb);
        czk_free(q.cc);
    }
}

/*
 * bellperson's quotient. Satisfied system (c = a∘b): h·Z = A·B − C at a random point and
 * deg h <= n − 2. Unsatisfied (random c): the result is still bellperson's, the interpolant
 * of (A·B − C)/(g^n − 1) on the coset 7·ω^i, so check it there point by point.
 */
static void check_monomial(czk_test_ctx *t, const quot_io *q) {
    size_t n = q->n;
    czk_fr x, vh, z, lhs, rhs, g, zinv;
    if (q->satisfied) {
        CHECKF(czk_fr_is_zero(&q->a[n - 1]), "h[n-1] != 0 at lg %u", q->lg);
        czk_fr_random(&x, &t->rng);
        horner(&vh, q->a, n, &x);
        fr_pow_u64(&z, &x, n);
        czk_fr_sub(&z, &z, &CZK_FR_ONE);
        czk_fr_mul(&lhs, &vh, &z);
        abc_at(&rhs, q, &x);
        CHECKF(czk_fr_equal(&lhs, &rhs), "h·Z != AB − C at lg %u cfg %d", q->lg, q->cfg);
        return;
    }
    czk_fr_set_u64(&g, 7);
    fr_pow_u64(&zinv, &g, n);
    czk_fr_sub(&zinv, &zinv, &CZK_FR_ONE);
    czk_fr_inv(&zinv, &zinv);
    x = g;
    for (size_t i = 0; i < n; i++) {
        horner(&vh, q->a, n, &x);
        abc_at(&rhs, q, &x);
        czk_fr_mul(&rhs, &rhs, &zinv);
        CHECKF(czk_fr_equal(&vh, &rhs), "h(7·w^%zu) at lg %u cfg %d", i, q->lg, q->cfg);
        czk_fr_mul(&x, &x, q->w);
    }
}

CZK_TEST(quotient_monomial) {
    quotient_sweep(t, czk_poly_h_monomial, 1, check_monomial);
}

/* snarkjs's quotient: A·B − C on the odd coset ω_2n·ω^i, against Horner evaluation. */
static void check_odd_coset(czk_test_ctx *t, const quot_io *q) {
    czk_fr x = *czk_ntt_domain_omega_2n(q->d), rhs;
    for (size_t i = 0; i < q->n; i++) {
        abc_at(&rhs, q, &x);
        CHECKF(czk_fr_equal(&q->a[i], &rhs), "odd coset [%zu] lg %u cfg %d", i, q->lg, q->cfg);
        czk_fr_mul(&x, &x, q->w);
    }
}

CZK_TEST(quotient_odd_coset) {
    quotient_sweep(t, czk_poly_h_odd_coset, 0, check_odd_coset);
}
