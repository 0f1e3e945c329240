/*
 * The Filecoin tests' shared harness (harness.h). Named *_test.c, with no tests of its own, so
 * that CMake builds it into czk_tests only: it reports through the runner's czk_test_fail.
 */
#include "filecoin/testgen/harness.h"

#include "filecoin/spec/porep_types.h"
#include "filecoin/testgen/seal.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/rng.h"

#include <stdlib.h>
#include <string.h>

void czk_harness_free_witness(czk_fr *w, size_t n) {
    if (w) {
        czk_memclear_explicit(w, n * sizeof(czk_fr));
        czk_free(w);
    }
}

void czk_harness_run_clear(czk_harness_run *res) {
    czk_r1cs_clear(&res->r);
    czk_harness_free_witness(res->w, res->w_n);
    memset(res, 0, sizeof(*res));
}

static uint64_t popcount_range(const uint64_t *bits, size_t lo, size_t hi) {
    uint64_t n = 0;
    for (size_t v = lo; v < hi; v++)
        n += (bits[v / 64] >> (v % 64)) & 1;
    return n;
}

static int same_counts(const czk_cs_stats *x, const czk_cs_stats *y) {
    return x->n_rows == y->n_rows && x->n_inputs == y->n_inputs && x->n_aux == y->n_aux;
}

int czk_harness_run_modes(czk_test_ctx *t, czk_harness_fn fn, void *ctx, unsigned flags,
                          czk_harness_run *res) {
    czk_cs *cs = NULL;
    czk_err err = {0};
    int ok = 0;
    czk_cs_stats ws, cws, rs, ks;
    uint8_t d_rec_stream[32], d_count[32], d_rec[32];
    uint64_t *abits = NULL, *bbits = NULL;
    uint8_t *used = NULL;
    czk_fr *w2 = NULL;
    size_t wn2 = 0;
    memset(res, 0, sizeof(*res));

    /* WITNESS: the fast path, values only */
    CHECK_CS_OR_OUT(czk_cs_create(&cs, CZK_CS_WITNESS, 0, &err) == CZK_OK);
    CHECK_CS_OR_OUT(!czk_cs_builds_rows(cs));
    CHECK_CS_OR_OUT(fn(cs, ctx) == CZK_OK);
    czk_cs_get_stats(cs, &ws);
    CHECK_CS_OR_OUT(czk_cs_witness(cs, &res->w, &res->w_n, &err) == CZK_OK);
    czk_cs_destroy(cs);
    cs = NULL;

    /* WITNESS + CHECK builds and evaluates rows without keeping them: the row path */
    CHECK_CS_OR_OUT(czk_cs_create(&cs, CZK_CS_WITNESS, CZK_CS_CHECK, &err) == CZK_OK);
    CHECK_CS_OR_OUT(czk_cs_builds_rows(cs));
    CHECK_CS_OR_OUT(fn(cs, ctx) == CZK_OK);
    czk_cs_get_stats(cs, &cws);
    CHECK_CS_OR_OUT(czk_cs_witness(cs, &w2, &wn2, &err) == CZK_OK);
    czk_cs_destroy(cs);
    cs = NULL;
    CHECK_CS_OR_OUT(same_counts(&cws, &ws));
    CHECK_CS_OR_OUT(wn2 == res->w_n);
    for (size_t i = 0; i < wn2; i++)
        if (!czk_fr_equal(&res->w[i], &w2[i])) {
            czk_test_fail(t, __FILE__, __LINE__, "fast witness differs at %zu of %zu", i, wn2);
            goto out;
        }

    /* RECORD, without values (the generator's view) */
    const size_t in_use0 = czk_alloc_in_use();
    CHECK_CS_OR_OUT(czk_cs_create(&cs, CZK_CS_RECORD, CZK_CS_DIGEST, &err) == CZK_OK);
    CHECK_CS_OR_OUT(fn(cs, ctx) == CZK_OK);
    czk_cs_get_stats(cs, &rs);
    CHECK_CS_OR_OUT(czk_cs_digest_finish(cs, d_rec_stream, &err) == CZK_OK);
    CHECK_CS_OR_OUT(czk_cs_finish_r1cs(cs, &res->r, &err) == CZK_OK);
    czk_cs_destroy(cs);
    cs = NULL;
    /* The rows hold exactly what czk_r1cs_bytes (the engine's count) says: the capacity
     * their arrays grew into is given back when they are finished. */
    CHECK_CS_OR_OUT(czk_alloc_in_use() - in_use0 == czk_r1cs_bytes(&res->r));
    CHECK_CS_OR_OUT(czk_r1cs_validate(&res->r, NULL, &err) == CZK_OK);
    CHECK_CS_OR_OUT(res->r.n_vars == res->w_n);
    CHECK_CS_OR_OUT(res->r.n_constraints == rs.n_rows);
    CHECK_CS_OR_OUT(res->r.n_public + 1 == rs.n_inputs);
    CHECK_CS_OR_OUT(same_counts(&rs, &ws));
    {
        size_t bad = SIZE_MAX;
        if (czk_r1cs_check(&res->r, res->w, &bad, NULL, &err) != CZK_OK) {
            czk_test_fail(t, __FILE__, __LINE__, "witness fails row %zu: %s", bad, err.msg);
            goto out;
        }
    }
    if (flags & CZK_HARNESS_AUX_USED) {
        const czk_r1cs *r = &res->r;
        used = calloc(r->n_vars ? r->n_vars : 1, 1);
        CHECK_CS_OR_OUT(used != NULL);
        const czk_r1cs_matrix *m[3] = {&r->a, &r->b, &r->c};
        for (int k = 0; k < 3; k++)
            for (uint64_t e = 0; e < czk_r1cs_nnz(m[k], r->n_constraints); e++)
                used[m[k]->cols[e]] = 1;
        for (size_t v = r->n_public + 1; v < r->n_vars; v++)
            if (!used[v]) {
                czk_test_fail(t, __FILE__, __LINE__, "aux %zu is in no row", v - r->n_public - 1);
                goto out;
            }
    }

    /* RECORD + CHECK: the gadgets' own values satisfy every row as it is enforced */
    CHECK_CS_OR_OUT(czk_cs_create(&cs, CZK_CS_RECORD, CZK_CS_CHECK, &err) == CZK_OK);
    CHECK_CS_OR_OUT(fn(cs, ctx) == CZK_OK);
    czk_cs_destroy(cs);
    cs = NULL;

    /* COUNT + DIGEST, sized up front from the RECORD pass */
    const czk_r1cs *r = &res->r;
    CHECK_CS_OR_OUT(czk_cs_create(&cs, CZK_CS_COUNT, CZK_CS_DIGEST, &err) == CZK_OK);
    CHECK_CS_OR_OUT(czk_cs_reserve(cs, rs.n_inputs, rs.n_aux) == CZK_OK);
    CHECK_CS_OR_OUT(fn(cs, ctx) == CZK_OK);
    czk_cs_get_stats(cs, &ks);
    CHECK_CS_OR_OUT(czk_cs_digest_finish(cs, d_count, &err) == CZK_OK);
    czk_cs_destroy(cs);
    cs = NULL;

    /* COUNT's figures against the recorded matrices */
    CHECK_CS_OR_OUT(ks.n_rows == r->n_constraints);
    CHECK_CS_OR_OUT(ks.n_inputs == r->n_public + 1);
    CHECK_CS_OR_OUT(ks.n_aux == r->n_vars - r->n_public - 1);
    CHECK_CS_OR_OUT(ks.nnz_a == czk_r1cs_nnz(&r->a, r->n_constraints));
    CHECK_CS_OR_OUT(ks.nnz_b == czk_r1cs_nnz(&r->b, r->n_constraints));
    CHECK_CS_OR_OUT(ks.nnz_c == czk_r1cs_nnz(&r->c, r->n_constraints));
    size_t words = r->n_vars / 64 + 1, n_in = r->n_public + 1;
    abits = calloc(words, 8);
    bbits = calloc(words, 8);
    CHECK_CS_OR_OUT(abits && bbits);
    CHECK_CS_OR_OUT(czk_r1cs_density(r, abits, bbits) == CZK_OK);
    CHECK_CS_OR_OUT(ks.a_aux_density == popcount_range(abits, n_in, r->n_vars));
    CHECK_CS_OR_OUT(ks.b_input_density == popcount_range(bbits, 0, n_in));
    CHECK_CS_OR_OUT(ks.b_aux_density == popcount_range(bbits, n_in, r->n_vars));
    CHECK_CS_OR_OUT(memcmp(&ks, &rs, sizeof(ks)) == 0);

    /* The streaming digests against the one recomputed from the recorded system */
    CHECK_CS_OR_OUT(czk_cs_r1cs_digest(r, d_rec, &err) == CZK_OK);
    CHECK_CS_OR_OUT(memcmp(d_count, d_rec, 32) == 0);
    CHECK_CS_OR_OUT(memcmp(d_rec_stream, d_rec, 32) == 0);
    res->stats = rs;
    ok = 1;
out:
    free(abits);
    free(bbits);
    free(used);
    czk_harness_free_witness(w2, wn2);
    czk_cs_destroy(cs);
    if (!ok)
        czk_harness_run_clear(res);
    return ok;
}

int czk_harness_check_modes(czk_test_ctx *t, czk_harness_fn fn, void *ctx, unsigned flags,
                            czk_cs_stats *st) {
    czk_harness_run res;
    if (!czk_harness_run_modes(t, fn, ctx, flags, &res))
        return 0;
    if (st)
        *st = res.stats;
    czk_harness_run_clear(&res);
    return 1;
}

int czk_harness_run_one(czk_harness_fn fn, void *ctx, czk_cs_mode mode, unsigned flags,
                        czk_cs_stats *st, uint8_t *digest, czk_err *err) {
    czk_cs *cs = NULL;
    int rc = czk_cs_create(&cs, mode, flags, err);
    if (rc != CZK_OK)
        return rc;
    rc = fn(cs, ctx);
    if (st)
        czk_cs_get_stats(cs, st);
    if (rc != CZK_OK && err)
        *err = *czk_cs_error(cs);
    if (rc == CZK_OK && digest && (flags & CZK_CS_DIGEST))
        rc = czk_cs_digest_finish(cs, digest, err);
    czk_cs_destroy(cs);
    return rc;
}

int czk_harness_count(czk_test_ctx *t, czk_harness_fn fn, void *ctx, czk_cs_stats *st) {
    czk_err err = {0};
    int rc = czk_harness_run_one(fn, ctx, CZK_CS_COUNT, 0, st, NULL, &err);
    if (rc != CZK_OK)
        czk_test_fail(t, __FILE__, __LINE__, "count: %s", err.msg);
    return rc == CZK_OK;
}

int czk_harness_row_is(const czk_r1cs_matrix *m, size_t row, const uint32_t *cols,
                       const czk_fr *vals, size_t n) {
    uint64_t lo = m->row_ptr[row], hi = m->row_ptr[row + 1];
    if (hi - lo != n)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (m->cols[lo + i] != cols[i] || !czk_fr_equal(&m->vals[lo + i], &vals[i]))
            return 0;
    return 1;
}

int czk_harness_seal_2k(czk_test_ctx *t, uint64_t abi, czk_c1 *c1, const czk_porep_sector_ids *ids,
                        czk_err *err) {
    uint8_t prover[32], ticket[32], seed[32], piece[127 * 16], data[2048];
    uint64_t sector;
    if (ids) {
        memcpy(prover, ids->prover_id, 32);
        sector = ids->sector_id;
    } else {
        czk_rng_bytes(&t->rng, prover, 32);
        prover[31] &= 0x3f;
        sector = czk_rng_u64(&t->rng);
    }
    czk_rng_bytes(&t->rng, ticket, 32);
    ticket[31] &= 0x3f;
    czk_rng_bytes(&t->rng, seed, 32);
    seed[31] &= 0x3f;
    czk_rng_bytes(&t->rng, piece, sizeof piece);
    const czk_porep_type *ty = czk_porep_type_from_abi(abi, err);
    if (!ty)
        return CZK_EINVAL;
    int rc = czk_seal_fr32_pad(data, sizeof data, piece, sizeof piece, err);
    if (rc == CZK_OK)
        rc = czk_seal_small(c1, ty, data, prover, sector, ticket, seed, err);
    return rc;
}
