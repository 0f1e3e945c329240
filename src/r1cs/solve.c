/*
 * The synthetic witness solver (contract in solve.h).
 *
 * It walks the rows once. In row i the variables not yet assigned are either in A or B (a
 * BOOL gadget's bit: any value in {0, 1} satisfies (1 − b)·b = 0, so it gets a random bit) or
 * in C alone (an XOR/AND/PACK output, or a public input): with A·w and B·w known, the single C
 * unknown u with coefficient k is (A·w·B·w − rest of C·w)/k.
 */
#include "r1cs/solve.h"

#include <string.h>

#include "util/alloc.h"
#include "util/memclear.h"
#include "util/rng.h"

static int is_set(const uint64_t *bits, size_t v) {
    return (int)((bits[v / 64] >> (v % 64)) & 1);
}

static void set_bit(uint64_t *bits, size_t v) {
    bits[v / 64] |= 1ULL << (v % 64);
}

/* <M_row, w> over assigned variables; *unknown gets the unassigned column (or SIZE_MAX),
 * *unknown_coef its coefficient and *n_unknown how many there are. */
static void row_dot(czk_fr *out, const czk_r1cs_matrix *m, size_t row, const czk_fr *w,
                    const uint64_t *assigned, size_t *unknown, czk_fr *unknown_coef,
                    unsigned *n_unknown) {
    czk_fr_set_zero(out);
    *n_unknown = 0;
    *unknown = SIZE_MAX;
    if (m->row_ptr == NULL)
        return;
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        uint32_t v = m->cols[k];
        if (!is_set(assigned, v)) {
            if (*n_unknown == 0 || *unknown != v) {
                *unknown = v;
                *unknown_coef = m->vals[k];
                (*n_unknown)++;
            }
            continue;
        }
        czk_fr t;
        czk_fr_mul(&t, &m->vals[k], &w[v]);
        czk_fr_add(out, out, &t);
    }
}

/* Assigns a random bit to every unassigned variable of row `row` of m. */
static void assign_bits(const czk_r1cs_matrix *m, size_t row, czk_fr *w, uint64_t *assigned,
                        czk_rng *rng) {
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        uint32_t v = m->cols[k];
        if (is_set(assigned, v))
            continue;
        if (czk_rng_u64(rng) & 1)
            czk_fr_set_one(&w[v]);
        else
            czk_fr_set_zero(&w[v]);
        set_bit(assigned, v);
    }
}

int czk_r1cs_solve(czk_fr *w, const czk_r1cs *cs, uint64_t seed, czk_err *err) {
    size_t n = cs->n_vars;
    if (n == 0)
        return czk_err_set(err, CZK_EINVAL, "a system without variables has no witness");
    memset(w, 0, n * sizeof(czk_fr));
    uint64_t *assigned = czk_calloc((n + 63) / 64, sizeof(uint64_t));
    if (assigned == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate the bitmap of %zu variables", n);
    int rc = CZK_OK;
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    czk_fr_set_one(&w[0]);
    set_bit(assigned, 0);
    for (size_t i = 0; i < cs->n_constraints; i++) {
        czk_fr av, bv, cv, kc, t;
        size_t ua, ub, uc;
        unsigned na, nb, nc;
        row_dot(&av, &cs->a, i, w, assigned, &ua, &kc, &na);
        if (na > 0) {
            assign_bits(&cs->a, i, w, assigned, &rng);
            row_dot(&av, &cs->a, i, w, assigned, &ua, &kc, &na);
        }
        row_dot(&bv, &cs->b, i, w, assigned, &ub, &kc, &nb);
        if (nb > 0) {
            assign_bits(&cs->b, i, w, assigned, &rng);
            row_dot(&bv, &cs->b, i, w, assigned, &ub, &kc, &nb);
            /* A may mention a bit B just assigned. */
            row_dot(&av, &cs->a, i, w, assigned, &ua, &kc, &na);
        }
        row_dot(&cv, &cs->c, i, w, assigned, &uc, &kc, &nc);
        if (nc > 1) {
            rc = czk_err_set(err, CZK_EINVAL, "row %zu has %u unknowns in C: not solvable", i, nc);
            goto out;
        }
        if (nc == 1) {
            /* k·w_u = A·w·B·w − (rest of C·w) */
            czk_fr_mul(&t, &av, &bv);
            czk_fr_sub(&t, &t, &cv);
            if (!czk_fr_is_one(&kc)) {
                czk_fr inv;
                czk_fr_inv_var(&inv, &kc);
                czk_fr_mul(&t, &t, &inv);
            }
            w[uc] = t;
            set_bit(assigned, uc);
        }
    }
    rc = czk_r1cs_check(cs, w, NULL, NULL, err);
out:
    if (rc != CZK_OK)
        czk_memclear_explicit(w, n * sizeof(czk_fr));
    czk_memclear_explicit(&rng, sizeof(rng)); /* its state would replay the bits */
    czk_free(assigned);
    return rc;
}
