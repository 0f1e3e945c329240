/*
 * The backend's fixed_base entry against the CPU (module "setup" of czk_gpu_test): for G1 and
 * G2, out[i] = [k[i]]G compared byte for byte with czk_g*_jacobian_mul_var and
 * czk_g*s_to_affine:
 *  - n = 1 (scalars 0, 1, r − 1 and a random one), 7, 1000 and 2^16 + 3, every index, with the
 *    edge scalars first (0, 1, 2, r − 1, r − 2, powers of two at and around the 16-bit
 *    windows, pieces of exactly 2^15, 2^15 + 1 and 2^16 − 1 that carry through every window);
 *  - one size past the largest chunk (2^22 + 4097 in G1, 2^21 + 4097 in G2), on a sample of
 *    2,000 random indices with the edges, the chunk boundaries and the end;
 *  - the same 2^16 + 3 scalars through many chunks (czk__gpu_fixed_base_opts: chunks of 4,096
 *    staged in pinned memory; of 1,024 copied directly), on a backend whose pinned limit
 *    refuses staging, and inside the arena of a backend whose 1 GiB of VRAM that arena
 *    fills, each equal to the first result; on 1 GiB without an arena, 2^21 + 5 scalars in
 *    several chunks against the CPU on a sample;
 *  - n = 0, a group flag of 2 and NULL arrays; no device memory left held after the calls.
 */
#include <stdint.h>
#include <string.h>

#include "curve/g1.h"
#include "curve/g2.h"
#include "field/fr.h"
#include "gpu/backend.h"
#include "gpu/cuda/setup/fixed_base.cuh"
#include "gpu/gpu_test.cuh"
#include "gpu/prover_test.cuh"
#include "groth16/backend.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"

using namespace czk_gpu_test;

namespace {

struct sg1 {
    typedef czk_g1_affine aff;
    typedef czk_g1_jacobian jac;
    static constexpr int g2 = 0;
    static constexpr size_t big = ((size_t)1 << 22) + 4097;
    static const char *name() {
        return "G1";
    }
    static void mul(jac *r, const czk_fr *k) {
        jac g;
        czk_g1_jacobian_from_affine(&g, &CZK_G1_GENERATOR);
        czk_g1_jacobian_mul_var(r, &g, k);
    }
    static int to_aff(aff *out, const jac *in, size_t n) {
        return czk_g1s_to_affine(out, in, n);
    }
};

struct sg2 {
    typedef czk_g2_affine aff;
    typedef czk_g2_jacobian jac;
    static constexpr int g2 = 1;
    static constexpr size_t big = ((size_t)1 << 21) + 4097;
    static const char *name() {
        return "G2";
    }
    static void mul(jac *r, const czk_fr *k) {
        jac g;
        czk_g2_jacobian_from_affine(&g, &CZK_G2_GENERATOR);
        czk_g2_jacobian_mul_var(r, &g, k);
    }
    static int to_aff(aff *out, const jac *in, size_t n) {
        return czk_g2s_to_affine(out, in, n);
    }
};

/* The CPU's [k[idx[j]]]G in affine form into ref[j] for j < cnt (idx NULL: j itself). */
template <class S> struct ref_arg {
    const czk_fr *k;
    const size_t *idx;
    typename S::aff *ref;
    int rc;
};

template <class S> void ref_fn(void *arg, size_t begin, size_t end, unsigned worker) {
    ref_arg<S> *a = (ref_arg<S> *)arg;
    typename S::jac jac[64];
    (void)worker;
    for (size_t s = begin; s < end; s += 64) {
        const size_t m = end - s < 64 ? end - s : 64;
        for (size_t j = 0; j < m; j++)
            S::mul(&jac[j], &a->k[a->idx != NULL ? a->idx[s + j] : s + j]);
        if (S::to_aff(a->ref + s, jac, m) != CZK_OK)
            a->rc = CZK_ENOMEM;
    }
}

/* Indices j < cnt where out[idx[j]] differs from the CPU's (idx NULL: every j < cnt); -1 when
 * the reference could not be made. The first difference goes to *first. */
template <class S>
long long count_diffs(czk_pool *pool, const czk_fr *k, const typename S::aff *out,
                      const size_t *idx, size_t cnt, size_t *first) {
    typename S::aff *ref = (typename S::aff *)czk_malloc(cnt * sizeof(*ref));
    ref_arg<S> a = {k, idx, ref, CZK_OK};
    long long bad = 0;
    if (ref == NULL)
        return -1;
    czk_pool_run(pool, cnt, 256, ref_fn<S>, &a);
    if (a.rc != CZK_OK) {
        czk_free(ref);
        return -1;
    }
    for (size_t j = 0; j < cnt; j++) {
        const size_t i = idx != NULL ? idx[j] : j;
        if (memcmp(&out[i], &ref[j], sizeof(ref[j])) != 0) {
            if (bad == 0)
                *first = i;
            bad++;
        }
    }
    czk_free(ref);
    return bad;
}

/* The edge scalars (as many as n holds) at the start of k. */
size_t put_edges(czk_fr *k, size_t n) {
    czk_fr e[64];
    size_t c = 0;
    static const unsigned pow2[] = {1,  14,  15,  16,  17,  31,  32, 63,
                                    64, 127, 128, 200, 239, 240, 254};
    static const uint64_t pats[] = {0x7fff7fff7fff7fffULL, 0x8000800080008000ULL,
                                    0x8001800180018001ULL, 0xffffffffffffffffULL,
                                    0x8000ffff8000ffffULL};
    uint64_t l[4];
    e[c++] = CZK_FR_ZERO;
    e[c++] = CZK_FR_ONE;
    czk_fr_set_u64(&e[c++], 2);
    czk_fr_neg(&e[c++], &CZK_FR_ONE);          /* r − 1 */
    czk_fr_sub(&e[c], &e[c - 1], &CZK_FR_ONE); /* r − 2 */
    c++;
    for (size_t i = 0; i < sizeof(pow2) / sizeof(pow2[0]); i++) {
        memset(l, 0, sizeof(l));
        l[pow2[i] / 64] = (uint64_t)1 << (pow2[i] % 64);
        (void)czk_fr_from_limbs(&e[c++], l);
    }
    czk_fr_set_u64(&e[c++], 0x7fff); /* the largest digit below the window's middle */
    czk_fr_set_u64(&e[c++], 0x8000); /* a digit of exactly 2^15 */
    czk_fr_set_u64(&e[c++], 0x8001); /* the smallest that turns negative */
    czk_fr_set_u64(&e[c++], 0xffff); /* −1 and a carry */
    czk_fr_set_u64(&e[c++], 0x10000);
    /* Every piece but the top one (zero, below r's) equal to a pattern, so that a digit of
     * 2^15, a negative digit or a carry happens in every window. */
    for (size_t i = 0; i < sizeof(pats) / sizeof(pats[0]); i++) {
        l[0] = l[1] = l[2] = pats[i];
        l[3] = pats[i] & 0x0000ffffffffffffULL;
        (void)czk_fr_from_limbs(&e[c++], l);
    }
    /* The largest piece pattern r allows on top: r − 1 − 2^16·j. */
    for (uint64_t j = 1; j <= 3; j++) {
        czk_fr t;
        czk_fr_set_u64(&t, j << 16);
        czk_fr_neg(&e[c], &t);
        c++;
    }
    for (size_t i = 0; i < c && i < n; i++)
        k[i] = e[i];
    return c < n ? c : n;
}

/* A backend on device 0 with these limits and its arena sized at creation for MSMs of
 * max_points (0: the defaults), or NULL after reporting. */
czk_backend *fb_backend(size_t vram_limit, size_t pinned_limit, size_t max_points) {
    czk_gpu_plan_opts opts;
    memset(&opts, 0, sizeof(opts));
    opts.vram_limit_bytes = vram_limit;
    opts.pinned_limit_bytes = pinned_limit;
    opts.max_points = max_points;
    czk_backend *be = make_backend_opts(&opts, "czk_gpu_backend_create");
    if (be == NULL)
        return NULL;
    if (be->fixed_base == NULL) {
        check(0, "the CUDA backend has a fixed_base entry");
        czk_gpu_backend_destroy(be);
        return NULL;
    }
    return be;
}

/* fixed_base on be (through its entry when opts is NULL); a failure is reported. */
int run_fb(czk_backend *be, int g2, const czk_fr *k, size_t n, void *out,
           const czk__gpu_fixed_base_opts *opts, czk_pool *pool, const char *what) {
    czk_err err = {};
    int rc = opts == NULL ? be->fixed_base(be->ctx, g2, k, n, out, pool, &err)
                          : czk__gpu_fixed_base_opts_run(be->ctx, g2, k, n, out, opts, pool, &err);
    if (rc != CZK_OK)
        fail(what, rc, &err);
    return rc;
}

/* n = 1, 7, 1000, 2^16 + 3 (every index) and S::big (a sample); then the chunked variants
 * over the 2^16 + 3 scalars against that verified result. */
template <class S> void test_group(czk_backend *be, czk_pool *pool, czk_rng *rng) {
    typedef typename S::aff aff;
    const size_t mid = ((size_t)1 << 16) + 3, big = S::big;
    czk_fr *k = (czk_fr *)czk_malloc(big * sizeof(czk_fr));
    aff *out = (aff *)czk_malloc(big * sizeof(aff));
    aff *again = (aff *)czk_malloc(mid * sizeof(aff));
    size_t *idx = (size_t *)czk_malloc(2100 * sizeof(size_t));
    size_t first = 0, edges, cnt = 0;
    long long bad;
    czk_fr minus_one;
    const size_t sizes[] = {7, 1000, mid};
    if (k == NULL || out == NULL || again == NULL || idx == NULL) {
        fail("host allocation", CZK_ENOMEM, NULL);
        goto out;
    }
    say("\n== fixed_base %s vs CPU ==\n", S::name());
    czk_fr_neg(&minus_one, &CZK_FR_ONE);
    for (int v = 0; v < 4; v++) {
        static const char *const vn[4] = {"0", "1", "r - 1", "random"};
        czk_fr one_k;
        if (v == 0)
            one_k = CZK_FR_ZERO;
        else if (v == 1)
            one_k = CZK_FR_ONE;
        else if (v == 2)
            one_k = minus_one;
        else
            czk_fr_random(&one_k, rng);
        memset(out, 0xa5, sizeof(aff));
        if (run_fb(be, S::g2, &one_k, 1, out, NULL, pool, "fixed_base n = 1") != CZK_OK)
            continue;
        bad = count_diffs<S>(pool, &one_k, out, NULL, 1, &first);
        check(bad == 0, "%s n = 1, scalar %s", S::name(), vn[v]);
    }
    for (size_t t = 0; t < sizeof(sizes) / sizeof(sizes[0]); t++) {
        const size_t n = sizes[t];
        fill_fr(pool, k, n, czk_rng_u64(rng), FILL_UNIFORM);
        edges = put_edges(k, n);
        memset(out, 0xa5, n * sizeof(aff));
        if (run_fb(be, S::g2, k, n, out, NULL, pool, "fixed_base") != CZK_OK)
            continue;
        bad = count_diffs<S>(pool, k, out, NULL, n, &first);
        check(bad == 0, "%s n = %zu (%zu edge scalars) equals the CPU at every index%s", S::name(),
              n, edges, bad != 0 ? ": differs" : "");
        if (bad != 0)
            say("     %lld differ, the first at %zu\n", bad, first);
    }
    /* The chunked variants over the mid-sized scalars just checked (still in k, out). */
    {
        czk__gpu_fixed_base_opts o;
        memset(&o, 0, sizeof(o));
        o.max_chunk = 4096;
        memset(again, 0xa5, mid * sizeof(aff));
        if (run_fb(be, S::g2, k, mid, again, &o, pool, "fixed_base chunks of 4096") == CZK_OK)
            check(memcmp(again, out, mid * sizeof(aff)) == 0,
                  "%s n = %zu in chunks of 4,096 through pinned memory: the same bytes", S::name(),
                  mid);
        o.max_chunk = 1000;
        o.no_pinned = 1;
        memset(again, 0xa5, mid * sizeof(aff));
        if (run_fb(be, S::g2, k, mid, again, &o, pool, "fixed_base chunks of 1024") == CZK_OK)
            check(memcmp(again, out, mid * sizeof(aff)) == 0,
                  "%s n = %zu in chunks of 1,024 copied directly: the same bytes", S::name(), mid);
    }
    {
        /* No pinned memory to be had: the staging falls back to direct copies. */
        czk_backend *np = fb_backend(0, 4096, 0);
        czk__gpu_fixed_base_opts o;
        memset(&o, 0, sizeof(o));
        o.max_chunk = 4096;
        memset(again, 0xa5, mid * sizeof(aff));
        if (np != NULL &&
            run_fb(np, S::g2, k, mid, again, &o, pool, "fixed_base, pinned limit") == CZK_OK)
            check(memcmp(again, out, mid * sizeof(aff)) == 0,
                  "%s n = %zu in chunks of 4,096 with a pinned limit of 4 KiB: the same bytes",
                  S::name(), mid);
        if (np != NULL)
            czk_gpu_backend_destroy(np);
    }
    {
        /* 1 GiB of VRAM, nearly all of it the arena of MSMs of 2^24 points: the call works
         * inside the arena, which keeps its size. */
        czk_backend *ab = fb_backend((size_t)1 << 30, 0, (size_t)1 << 24);
        czk_gpu_plan before, after;
        size_t held_ab = 0;
        if (ab != NULL) {
            czk_gpu_backend_plan(ab, &before);
            held_ab = czk_gpu_mem_in_use(czk_gpu_backend_context(ab));
            memset(again, 0xa5, mid * sizeof(aff));
            if (run_fb(ab, S::g2, k, mid, again, NULL, pool, "fixed_base in the arena") == CZK_OK) {
                czk_gpu_backend_plan(ab, &after);
                const double mib = 1.0 / (1024.0 * 1024.0);
                const size_t left =
                    before.budget_bytes > held_ab ? before.budget_bytes - held_ab : 0;
                check(memcmp(again, out, mid * sizeof(aff)) == 0,
                      "%s n = %zu on 1 GiB, arena %.0f MiB, %.0f MiB left (%s): the same bytes",
                      S::name(), mid, (double)before.arena_bytes * mib, (double)left * mib,
                      before.arena_bytes > left ? "in the arena" : "beside it");
                check(after.arena_bytes == before.arena_bytes &&
                          czk_gpu_mem_in_use(czk_gpu_backend_context(ab)) == held_ab,
                      "%s fixed_base beside a large arena keeps the arena and frees the rest",
                      S::name());
            }
            czk_gpu_backend_destroy(ab);
        }
    }
    /* Past the largest chunk: a sample. */
    fill_fr(pool, k, big, czk_rng_u64(rng), FILL_UNIFORM);
    edges = put_edges(k, big);
    memset(out, 0xa5, big * sizeof(aff));
    if (run_fb(be, S::g2, k, big, out, NULL, pool, "fixed_base past a chunk") == CZK_OK) {
        const size_t chunk = big - 4097;
        const size_t fixed[] = {chunk - 1, chunk, chunk + 1, big - 2, big - 1};
        for (size_t i = 0; i < edges; i++)
            idx[cnt++] = i;
        for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
            idx[cnt++] = fixed[i];
        for (size_t i = 0; i < 2000; i++)
            idx[cnt++] = (size_t)(czk_rng_u64(rng) % big);
        bad = count_diffs<S>(pool, k, out, idx, cnt, &first);
        check(bad == 0, "%s n = %zu equals the CPU at %zu indices (edges, chunk ends, random)",
              S::name(), big, cnt);
        if (bad != 0)
            say("     %lld differ, the first at %zu\n", bad, first);
    }
out:
    czk_free(k);
    czk_free(out);
    czk_free(again);
    czk_free(idx);
}

/* On a backend with 1 GiB of VRAM: n = 2^21 + 5 in several chunks, a sample against the CPU. */
template <class S> void test_small_vram(czk_pool *pool, czk_rng *rng) {
    typedef typename S::aff aff;
    const size_t n = ((size_t)1 << 21) + 5;
    czk_backend *be = fb_backend((size_t)1 << 30, 0, 0);
    czk_fr *k = (czk_fr *)czk_malloc(n * sizeof(czk_fr));
    aff *out = (aff *)czk_malloc(n * sizeof(aff));
    size_t idx[1000], first = 0, held;
    long long bad;
    if (be == NULL || k == NULL || out == NULL) {
        fail("fixed_base on 1 GiB: setup", CZK_ENOMEM, NULL);
        goto out;
    }
    held = czk_gpu_mem_in_use(czk_gpu_backend_context(be));
    fill_fr(pool, k, n, czk_rng_u64(rng), FILL_UNIFORM);
    memset(out, 0xa5, n * sizeof(aff));
    if (run_fb(be, S::g2, k, n, out, NULL, pool, "fixed_base on 1 GiB") == CZK_OK) {
        for (size_t i = 0; i < 1000; i++)
            idx[i] = i < 2 ? n - 1 - i : (size_t)(czk_rng_u64(rng) % n);
        bad = count_diffs<S>(pool, k, out, idx, 1000, &first);
        check(bad == 0, "%s n = %zu with a VRAM limit of 1 GiB equals the CPU at 1,000 indices",
              S::name(), n);
        check(czk_gpu_mem_in_use(czk_gpu_backend_context(be)) == held,
              "%s fixed_base on 1 GiB leaves no device memory held", S::name());
    }
out:
    if (be != NULL)
        czk_gpu_backend_destroy(be);
    czk_free(k);
    czk_free(out);
}

} // namespace

void czk_gpu_test::check_setup(const test_env *e) {
    czk_backend *be;
    size_t held;
    module("setup");
    be = fb_backend(0, 0, 0);
    if (be == NULL)
        return;
    held = czk_gpu_mem_in_use(czk_gpu_backend_context(be));
    {
        czk_err err = {};
        czk_fr one = CZK_FR_ONE;
        czk_g1_affine p;
        check(be->fixed_base(be->ctx, 0, &one, 0, &p, e->pool, &err) == CZK_OK,
              "fixed_base n = 0 is a no-op");
        check(be->fixed_base(be->ctx, 2, &one, 1, &p, e->pool, &err) == CZK_EINVAL,
              "fixed_base with group flag 2 is CZK_EINVAL");
        check(be->fixed_base(be->ctx, 0, NULL, 1, &p, e->pool, &err) == CZK_EINVAL,
              "fixed_base with no scalars is CZK_EINVAL");
    }
    test_group<sg1>(be, e->pool, e->rng);
    test_group<sg2>(be, e->pool, e->rng);
    check(czk_gpu_mem_in_use(czk_gpu_backend_context(be)) == held,
          "fixed_base leaves no device memory held (%zu bytes before and after)", held);
    czk_gpu_backend_destroy(be);
    test_small_vram<sg1>(e->pool, e->rng);
    test_small_vram<sg2>(e->pool, e->rng);
}
