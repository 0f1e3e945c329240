/*
 * Synthetic circuits (contract in synth.h).
 *
 * DESIGN
 * The PoRep-shaped circuit is a sequence of independent blocks of BLOCK_ROWS rows. Within a
 * block, row t has a kind fixed by t alone (kind_at): BOOL at t ≡ 0 (mod 4) and at t = 1,
 * PACK at five rows, AND at one, XOR elsewhere; a row that carries a public input (PUB)
 * overrides that, and the last row of a partial (final) block is a PACK, so that small k
 * keep the per-row densities of a full block. Every row but PUB allocates exactly one aux variable,
 * so block j's first aux variable and first row are closed-form, and the number of entries each row
 * has depends only on the kinds, never on random draws: one planning pass computes each block's
 * entry counts (all full blocks without public inputs share one count), prefix sums place every
 * block, and a parallel pass fills blocks independently, each from its own generator. That
 * makes generation embarrassingly parallel and its result independent of the thread count.
 *
 * Kinds (variables local to the block unless said; b is a BOOL variable drawn at random):
 *   BOOL  (1 − b)·b = 0              A: ONE, −b      B: b     C: —          b random bit
 *   XOR   2a·b = a + b − c           A: 2a           B: b     C: a, b, −c   c = a ⊕ b
 *   AND   a·b = c                    A: a            B: b     C: c          c = a ∧ b
 *   PACK  (Σ 2^e_i·bit_i + prev)·1 = n, over the PACK_WIDTH most recent bit variables, prev
 *         the block's previous packed number: A: ≤ 59 terms  B: ONE  C: n
 *   PUB   as PACK with PUB_WIDTH bits, and n is a public input (variable 1 + p)
 * XOR and AND take as `a` the last XOR/AND output not yet used in A (the "pending" one) or
 * else the most recent bit variable other than b, so nearly every variable appears in A
 * (all but each block's last packed number: 99.6 %). B holds the BOOL variables only (and
 * ONE): 65 of every 256 variables, 25.4 %. The exponents e_i = 4i + 1 spread the packed
 * numbers over ~230 bits, so they are full-size field elements as in PoRep.
 * Per full block: A 610, B 256, C 561 entries: 2.383 / 1.000 / 2.191 per row.
 *
 * Measured (bench_spmv, H200 host, 16 cores): k = 16 / 18 / 20 / 22 generate in 7 / 52 / 219 /
 * 834 ms on one thread and 2.0 / 5.9 / 21 / 78 ms on 16; k = 27 (134 M rows, 30.15 GB of
 * matrices + 4.29 GB of witness) in 2.3 s on 16 threads. The filling pass is bound by
 * first-touch page faults and store bandwidth, not by the arithmetic.
 */
#include "r1cs/synth.h"

#include "util/alloc.h"
#include "util/rng.h"

#include <string.h>

#define BLOCK_ROWS 256
#define PACK_WIDTH 58
#define PUB_WIDTH 3
#define MAX_PUBLIC 328
#define ROW_TERMS (PACK_WIDTH + 1) /* the most entries one side of a row can have */

enum kind { K_BOOL, K_XOR, K_AND, K_PACK, K_PUB };

static enum kind kind_at(unsigned t) {
    if (t == 63 || t == 111 || t == 159 || t == 207 || t == 255)
        return K_PACK;
    if (t == 126)
        return K_AND;
    if (t % 4 == 0 || t == 1)
        return K_BOOL;
    return K_XOR;
}

/* Coefficient indices into plan.coef. */
enum { C_ONE = 0, C_MINUS_ONE = 1, C_TWO = 2, C_POW2 = 3 /* + e for 2^e, e < 256 */ };

typedef struct {
    size_t n_c, n_pub, n_vars, n_blocks;
    uint64_t seed;
    uint64_t *pub_row; /* n_pub rows carrying a public input, ascending */
    size_t *first_pub; /* n_blocks + 1: block j holds public inputs [first_pub[j], [j+1]) */
    uint64_t *nnz_off; /* 3 × (n_blocks + 1): entries before block j in each matrix */
    czk_fr coef[C_POW2 + 256];
    czk_r1cs *cs; /* filled in the second pass; NULL while planning */
    czk_fr *w;
} plan;

typedef struct {
    uint32_t col;
    uint16_t coef;
} entry;

/* Insertion sort by column: rows are short and nearly sorted already. */
static void sort_entries(entry *e, unsigned n) {
    for (unsigned i = 1; i < n; i++) {
        entry x = e[i];
        unsigned j = i;
        for (; j > 0 && e[j - 1].col > x.col; j--)
            e[j] = e[j - 1];
        e[j] = x;
    }
}

/*
 * Generates (p->cs set) or only counts (p->cs NULL) block j: `rows` rows from row0 =
 * j·BLOCK_ROWS, public inputs [pub_b, pub_e). Adds the entries per matrix to cnt.
 */
static void gen_block(const plan *p, size_t j, size_t rows, size_t pub_b, size_t pub_e,
                      uint64_t cnt[3]) {
    size_t row0 = j * BLOCK_ROWS;
    uint64_t var_base = 1 + p->n_pub + row0 - pub_b; /* first aux variable of the block */
    uint16_t bits[BLOCK_ROWS], bools[BLOCK_ROWS];
    uint8_t val[BLOCK_ROWS]; /* bit value of each local variable that is a bit */
    unsigned nbits = 0, nbools = 0, nloc = 0;
    int pending = -1; /* index into bits[] of an XOR/AND output not yet used in A */
    int has_prev = 0;
    uint64_t prev_var = 0;
    czk_fr prev_val = CZK_FR_ZERO;
    uint64_t off[3] = {0, 0, 0};
    czk_r1cs_matrix *mat[3] = {NULL, NULL, NULL};
    if (p->cs != NULL) {
        mat[0] = &p->cs->a;
        mat[1] = &p->cs->b;
        mat[2] = &p->cs->c;
        for (int m = 0; m < 3; m++)
            off[m] = p->nnz_off[m * (p->n_blocks + 1) + j];
    }
    czk_rng rng;
    /* The golden-ratio multiplier spreads block numbers; czk_rng_seed's splitmix64 does the
     * rest, so neighbouring blocks draw unrelated streams. */
    czk_rng_seed(&rng, p->seed ^ ((uint64_t)j * 0x9E3779B97F4A7C15ULL));
    uint64_t pool_bits = 0;
    unsigned pool_left = 0;
    size_t pub = pub_b;

    for (unsigned t = 0; t < rows; t++) {
        entry e[3][ROW_TERMS];
        unsigned ne[3] = {0, 0, 0};
        enum kind kd = kind_at(t);
        if (t + 1 == rows && t >= 2)
            kd = K_PACK; /* a partial block ends as a full one does, so small k keep shape */
        if (pub < pub_e && p->pub_row[pub] == row0 + t)
            kd = K_PUB;
        switch (kd) {
        case K_BOOL: {
            unsigned l = nloc++;
            if (pool_left == 0) {
                pool_bits = czk_rng_u64(&rng);
                pool_left = 64;
            }
            val[l] = (uint8_t)(pool_bits & 1);
            pool_bits >>= 1;
            pool_left--;
            e[0][ne[0]++] = (entry){CZK_R1CS_VAR_ONE, C_ONE};
            e[0][ne[0]++] = (entry){(uint32_t)(var_base + l), C_MINUS_ONE};
            e[1][ne[1]++] = (entry){(uint32_t)(var_base + l), C_ONE};
            bits[nbits++] = (uint16_t)l;
            bools[nbools++] = (uint16_t)l;
            if (p->cs != NULL)
                p->w[var_base + l] = val[l] ? CZK_FR_ONE : CZK_FR_ZERO;
            break;
        }
        case K_XOR:
        case K_AND: {
            /* Rows 0 and 1 are BOOL, so two bits exist before the first XOR/AND. */
            unsigned b = bools[(unsigned)(((czk_rng_u64(&rng) >> 32) * nbools) >> 32)];
            unsigned a;
            if (pending >= 0) {
                a = bits[pending]; /* an XOR/AND output, never a BOOL, so a != b */
            } else {
                unsigned i = nbits - 1;
                while (bits[i] == b)
                    i--;
                a = bits[i];
            }
            unsigned c = nloc++;
            uint32_t ga = (uint32_t)(var_base + a), gb = (uint32_t)(var_base + b),
                     gc = (uint32_t)(var_base + c);
            if (kd == K_XOR) {
                val[c] = val[a] ^ val[b];
                e[0][ne[0]++] = (entry){ga, C_TWO};
                e[2][ne[2]++] = (entry){ga, C_ONE};
                e[2][ne[2]++] = (entry){gb, C_ONE};
                e[2][ne[2]++] = (entry){gc, C_MINUS_ONE};
            } else {
                val[c] = val[a] & val[b];
                e[0][ne[0]++] = (entry){ga, C_ONE};
                e[2][ne[2]++] = (entry){gc, C_ONE};
            }
            e[1][ne[1]++] = (entry){gb, C_ONE};
            pending = (int)nbits;
            bits[nbits++] = (uint16_t)c;
            if (p->cs != NULL)
                p->w[gc] = val[c] ? CZK_FR_ONE : CZK_FR_ZERO;
            break;
        }
        case K_PACK:
        case K_PUB: {
            unsigned width = kd == K_PACK ? PACK_WIDTH : PUB_WIDTH;
            if (width > nbits)
                width = nbits;
            czk_fr num = prev_val;
            for (unsigned i = 0; i < width; i++) {
                unsigned l = bits[nbits - width + i];
                uint16_t ci = (uint16_t)(C_POW2 + 4 * i + 1);
                e[0][ne[0]++] = (entry){(uint32_t)(var_base + l), ci};
                if (p->cs != NULL && val[l])
                    czk_fr_add(&num, &num, &p->coef[ci]);
            }
            if (has_prev)
                e[0][ne[0]++] = (entry){(uint32_t)prev_var, C_ONE};
            if (pending >= (int)(nbits - width))
                pending = -1;
            e[1][ne[1]++] = (entry){CZK_R1CS_VAR_ONE, C_ONE};
            uint64_t out = kd == K_PACK ? var_base + nloc++ : 1 + (uint64_t)pub++;
            e[2][ne[2]++] = (entry){(uint32_t)out, C_ONE};
            if (p->cs != NULL)
                p->w[out] = num;
            has_prev = 1;
            prev_var = out;
            prev_val = num;
            break;
        }
        }
        for (int m = 0; m < 3; m++) {
            cnt[m] += ne[m];
            if (p->cs == NULL)
                continue;
            sort_entries(e[m], ne[m]);
            mat[m]->row_ptr[row0 + t] = off[m];
            for (unsigned i = 0; i < ne[m]; i++) {
                mat[m]->cols[off[m] + i] = e[m][i].col;
                mat[m]->vals[off[m] + i] = p->coef[e[m][i].coef];
            }
            off[m] += ne[m];
        }
    }
}

static size_t block_rows(const plan *p, size_t j) {
    size_t row0 = j * BLOCK_ROWS;
    return p->n_c - row0 < BLOCK_ROWS ? p->n_c - row0 : BLOCK_ROWS;
}

static void plan_free(plan *p) {
    czk_free(p->pub_row);
    czk_free(p->first_pub);
    czk_free(p->nnz_off);
    p->pub_row = NULL;
    p->first_pub = NULL;
    p->nnz_off = NULL;
}

/* Sizes, public-input rows and per-block entry offsets. */
static int plan_make(plan *p, unsigned k, uint64_t seed, czk_err *err) {
    memset(p, 0, sizeof(*p));
    if (k < 4 || k > 31)
        return czk_err_set(err, CZK_EINVAL, "synth: porep-shaped k = %u, need 4 <= k <= 31", k);
    size_t n = (size_t)1 << k;
    p->n_pub = n / 64 < 1 ? 1 : n / 64 > MAX_PUBLIC ? MAX_PUBLIC : n / 64;
    p->n_c = n - p->n_pub - 1;
    p->n_vars = p->n_c + 1;
    p->n_blocks = (p->n_c + BLOCK_ROWS - 1) / BLOCK_ROWS;
    p->seed = seed;
    p->coef[C_ONE] = CZK_FR_ONE;
    czk_fr_neg(&p->coef[C_MINUS_ONE], &CZK_FR_ONE);
    czk_fr_dbl(&p->coef[C_TWO], &CZK_FR_ONE);
    p->coef[C_POW2] = CZK_FR_ONE;
    for (int e = 1; e < 256; e++)
        czk_fr_dbl(&p->coef[C_POW2 + e], &p->coef[C_POW2 + e - 1]);

    p->pub_row = czk_malloc(p->n_pub * sizeof(uint64_t));
    p->first_pub = czk_malloc((p->n_blocks + 1) * sizeof(size_t));
    p->nnz_off = czk_malloc(3 * (p->n_blocks + 1) * sizeof(uint64_t));
    if (p->pub_row == NULL || p->first_pub == NULL || p->nnz_off == NULL) {
        plan_free(p);
        return czk_err_set(err, CZK_ENOMEM, "synth: out of memory planning k = %u", k);
    }
    /* Evenly spaced (at least 7 rows apart), never on a block's rows 0 and 1 (which must be
     * BOOL so that every later row finds the bits it needs). */
    for (size_t i = 0; i < p->n_pub; i++) {
        uint64_t r = (uint64_t)(i + 1) * p->n_c / (p->n_pub + 1);
        if (r % BLOCK_ROWS < 2)
            r += 2 - r % BLOCK_ROWS;
        p->pub_row[i] = r;
    }
    size_t pi = 0;
    for (size_t j = 0; j <= p->n_blocks; j++) {
        while (pi < p->n_pub && p->pub_row[pi] < (uint64_t)j * BLOCK_ROWS)
            pi++;
        p->first_pub[j] = pi;
    }
    p->first_pub[p->n_blocks] = p->n_pub;

    uint64_t plain[3] = {0, 0, 0};
    gen_block(p, 0, BLOCK_ROWS, 0, 0, plain);
    size_t stride = p->n_blocks + 1;
    uint64_t tot[3] = {0, 0, 0};
    for (size_t j = 0; j < p->n_blocks; j++) {
        for (int m = 0; m < 3; m++)
            p->nnz_off[m * stride + j] = tot[m];
        size_t rows = block_rows(p, j);
        if (rows == BLOCK_ROWS && p->first_pub[j] == p->first_pub[j + 1]) {
            for (int m = 0; m < 3; m++)
                tot[m] += plain[m];
        } else {
            gen_block(p, j, rows, p->first_pub[j], p->first_pub[j + 1], tot);
        }
    }
    for (int m = 0; m < 3; m++)
        p->nnz_off[m * stride + p->n_blocks] = tot[m];
    return CZK_OK;
}

static size_t plan_matrix_bytes(const plan *p) {
    size_t total = 0, stride = p->n_blocks + 1;
    for (int m = 0; m < 3; m++)
        total += (p->n_c + 1) * sizeof(uint64_t) +
                 (size_t)p->nnz_off[m * stride + p->n_blocks] * (sizeof(uint32_t) + sizeof(czk_fr));
    return total;
}

int czk_synth_porep_shape(czk_synth_shape *out, unsigned k, czk_err *err) {
    if (out == NULL)
        return czk_err_set(err, CZK_EINVAL, "synth: shape: out is NULL");
    memset(out, 0, sizeof(*out));
    plan p;
    int rc = plan_make(&p, k, 0, err);
    if (rc != CZK_OK)
        return rc;
    out->n_constraints = p.n_c;
    out->n_vars = p.n_vars;
    out->n_public = p.n_pub;
    for (int m = 0; m < 3; m++)
        out->nnz[m] = p.nnz_off[m * (p.n_blocks + 1) + p.n_blocks];
    out->matrix_bytes = plan_matrix_bytes(&p);
    out->witness_bytes = p.n_vars * sizeof(czk_fr);
    plan_free(&p);
    return CZK_OK;
}

static void fill_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    const plan *p = arg;
    for (size_t j = begin; j < end; j++) {
        uint64_t cnt[3] = {0, 0, 0};
        gen_block(p, j, block_rows(p, j), p->first_pub[j], p->first_pub[j + 1], cnt);
    }
}

int czk_synth_porep_shaped(czk_r1cs *cs, czk_fr **witness, unsigned k, uint64_t seed,
                           czk_pool *pool, czk_err *err) {
    if (cs == NULL || witness == NULL)
        return czk_err_set(err, CZK_EINVAL, "synth: porep-shaped: cs or witness is NULL");
    memset(cs, 0, sizeof(*cs));
    *witness = NULL;
    plan p;
    int rc = plan_make(&p, k, seed, err);
    if (rc != CZK_OK)
        return rc;
    size_t stride = p.n_blocks + 1;
    czk_r1cs_matrix *ms[3] = {&cs->a, &cs->b, &cs->c};
    czk_fr *w = czk_malloc(p.n_vars * sizeof(czk_fr));
    int ok = w != NULL;
    for (int m = 0; m < 3 && ok; m++) {
        uint64_t nnz = p.nnz_off[m * stride + p.n_blocks];
        ms[m]->row_ptr = czk_malloc((p.n_c + 1) * sizeof(uint64_t));
        ms[m]->cols = czk_malloc((size_t)nnz * sizeof(uint32_t));
        ms[m]->vals = czk_malloc((size_t)nnz * sizeof(czk_fr));
        ok = ms[m]->row_ptr != NULL && ms[m]->cols != NULL && ms[m]->vals != NULL;
    }
    if (!ok) {
        size_t need = plan_matrix_bytes(&p) + p.n_vars * sizeof(czk_fr);
        czk_free(w);
        czk_r1cs_clear(cs);
        plan_free(&p);
        return czk_err_set(err, CZK_ENOMEM, "synth: porep-shaped k = %u needs %zu bytes", k, need);
    }
    cs->n_constraints = p.n_c;
    cs->n_vars = p.n_vars;
    cs->n_public = p.n_pub;
    p.cs = cs;
    p.w = w;
    w[0] = CZK_FR_ONE;
    /* 16 blocks (4096 rows, ~23 k entries) per chunk: tens of microseconds of work. */
    czk_pool_run(pool, p.n_blocks, 16, fill_body, &p);
    for (int m = 0; m < 3; m++)
        ms[m]->row_ptr[p.n_c] = p.nnz_off[m * stride + p.n_blocks];
    plan_free(&p);
    *witness = w;
    return CZK_OK;
}

int czk_synth_squaring_chain(czk_r1cs *cs, czk_fr **witness, size_t n_constraints, size_t n_public,
                             uint64_t seed, czk_err *err) {
    if (cs == NULL || witness == NULL)
        return czk_err_set(err, CZK_EINVAL, "synth: squaring chain: cs or witness is NULL");
    memset(cs, 0, sizeof(*cs));
    *witness = NULL;
    size_t n = n_constraints;
    if (n == 0 || (uint64_t)n > (uint64_t)UINT32_MAX - 1)
        return czk_err_set(err, CZK_EINVAL,
                           "synth: squaring chain: %zu constraints, need 1 .. 2^32 - 2", n);
    if (n_public > n + 1)
        return czk_err_set(err, CZK_EINVAL, "synth: squaring chain: %zu public inputs, at most %zu",
                           n_public, n + 1);
    size_t n_vars = n + 2;
    czk_fr *w = czk_malloc(n_vars * sizeof(czk_fr));
    czk_r1cs_matrix *ms[3] = {&cs->a, &cs->b, &cs->c};
    int ok = w != NULL;
    for (int m = 0; m < 3 && ok; m++) {
        ms[m]->row_ptr = czk_malloc((n + 1) * sizeof(uint64_t));
        ms[m]->cols = czk_malloc(n * sizeof(uint32_t));
        ms[m]->vals = czk_malloc(n * sizeof(czk_fr));
        ok = ms[m]->row_ptr != NULL && ms[m]->cols != NULL && ms[m]->vals != NULL;
    }
    if (!ok) {
        czk_free(w);
        czk_r1cs_clear(cs);
        return czk_err_set(err, CZK_ENOMEM, "synth: squaring chain of %zu: out of memory", n);
    }
    cs->n_constraints = n;
    cs->n_vars = n_vars;
    cs->n_public = n_public;
    czk_rng rng;
    czk_rng_seed(&rng, seed);
    w[0] = CZK_FR_ONE;
    czk_fr_random(&w[1], &rng);
    for (size_t i = 0; i < n; i++) {
        czk_fr_sqr(&w[2 + i], &w[1 + i]);
        for (int m = 0; m < 3; m++) {
            ms[m]->row_ptr[i] = i;
            ms[m]->cols[i] = (uint32_t)(m == 2 ? 2 + i : 1 + i);
            ms[m]->vals[i] = CZK_FR_ONE;
        }
    }
    for (int m = 0; m < 3; m++)
        ms[m]->row_ptr[n] = n;
    *witness = w;
    return CZK_OK;
}
