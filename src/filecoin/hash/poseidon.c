/*
 * Filecoin's Poseidon (neptune 11, MerkleTree, Strength::Standard): constant generation and the
 * plain, optimised and tracing hashes. The definitions are in poseidon.h.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), neptune 11.0.0
 * (@ef8a821).
 */
#include "filecoin/hash/poseidon.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define T_MAX CZK_POSEIDON_MAX_WIDTH

typedef czk_fr mat[T_MAX][T_MAX];

/* ---- round numbers ---- */

/* ⌈x⌉ as Rust's `f32::ceil() as usize` gives it: negative values (and NaN) saturate to 0. */
static size_t ceil_to_size(float x) {
    if (!(x > 0.0f))
        return 0;
    size_t i = (size_t)x; /* truncation; x is far below 2^23 here */
    if ((float)i < x)
        i++;
    return i;
}

/*
 * log2 of an integer 2 ≤ t ≤ 4096 rounded to f32, standing in for Rust's f32::log2 without
 * libm: t = 2^e·m with m in [1, 2), ln m = 2·atanh((m−1)/(m+1)) by its series, in double. The
 * result is within an ulp of the correctly rounded value; the test of the R_P table confirms
 * that no width here sits on a rounding boundary.
 */
static float log2_int(size_t t) {
    int e = 0;
    double m = (double)t;
    while (m >= 2.0) {
        m /= 2.0;
        e++;
    }
    double z = (m - 1.0) / (m + 1.0), z2 = z * z, term = z, sum = 0.0;
    for (int k = 1; k < 80; k += 2) {
        sum += term / k;
        term *= z2;
    }
    return (float)(e + 2.0 * sum / 0.69314718055994530942);
}

/* The Poseidon paper's security inequalities (neptune's round_numbers_are_secure), in f32. */
static int rounds_secure(size_t t, size_t rf, size_t rp) {
    const float n = 256.0f, m = 128.0f; /* prime bits (neptune rounds 255 up), security */
    float frp = (float)rp, ft = (float)t;
    float rf_stat = (m <= (n - 3.0f) * (ft + 1.0f)) ? 6.0f : 10.0f;
    volatile float interp = 0.43f * m; /* volatile: keep each f32 step separately rounded */
    interp = interp + log2_int(t);
    interp = interp - frp;
    volatile float grob1 = 0.21f * n;
    grob1 = grob1 - frp;
    volatile float grob2 = 0.14f * n;
    grob2 = grob2 - 1.0f;
    grob2 = grob2 - frp;
    grob2 = grob2 / (ft - 1.0f);
    size_t need = ceil_to_size(rf_stat);
    size_t v;
    if ((v = ceil_to_size(interp)) > need)
        need = v;
    if ((v = ceil_to_size(grob1)) > need)
        need = v;
    if ((v = ceil_to_size(grob2)) > need)
        need = v;
    return rf >= need;
}

int czk_poseidon_round_numbers(size_t width, size_t *r_f, size_t *r_p) {
    if (width < 2 || width > 4096)
        return CZK_EINVAL;
    size_t best_rf = 0, best_rp = 0, best_cost = SIZE_MAX;
    for (size_t rf0 = 2; rf0 <= 1000; rf0 += 2) {
        /* neptune adds the margin to its loop variable itself, so R_F grows by 2 for every
         * secure R_P of this outer iteration; mirrored because it decides the choice. */
        size_t rf = rf0;
        for (size_t rp0 = 4; rp0 < 200; rp0++) {
            if (!rounds_secure(width, rf, rp0))
                continue;
            rf += 2;
            volatile float rpm = 1.075f * (float)rp0;
            size_t rp = ceil_to_size(rpm);
            size_t cost = width * rf + rp;
            if (cost < best_cost || (cost == best_cost && rf < best_rf)) {
                best_rf = rf;
                best_rp = rp;
                best_cost = cost;
            }
        }
    }
    *r_f = best_rf;
    *r_p = best_rp;
    return CZK_OK;
}

/* ---- Grain LFSR ---- */

typedef struct grain {
    uint8_t b[80]; /* b[(head + i) % 80] is state bit i */
    unsigned head;
} grain;

static int grain_step(grain *g) {
#define GB(i) g->b[(g->head + (i)) % 80]
    int nb = GB(62) ^ GB(51) ^ GB(38) ^ GB(23) ^ GB(13) ^ GB(0);
#undef GB
    g->b[g->head] = (uint8_t)nb; /* bit 0 leaves, the new bit becomes bit 79 */
    g->head = (g->head + 1) % 80;
    return nb;
}

/* Self-shrinking: bits in pairs, the second is output when the first is 1. */
static int grain_bit(grain *g) {
    while (!grain_step(g))
        grain_step(g);
    return grain_step(g);
}

static void grain_init(grain *g, size_t t, size_t r_f, size_t r_p) {
    const struct {
        unsigned bits;
        uint32_t value;
    } fields[] = {{2, 1},
                  {4, 1},
                  {12, 255},
                  {12, (uint32_t)t},
                  {10, (uint32_t)r_f},
                  {10, (uint32_t)r_p},
                  {30, 0x3fffffffu}};
    unsigned n = 0;
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (unsigned i = fields[f].bits; i-- > 0;)
            g->b[n++] = (uint8_t)((fields[f].value >> i) & 1);
    g->head = 0;
    for (int i = 0; i < 160; i++)
        grain_step(g);
}

/* The next constant: 255 bits as a big-endian integer, redrawn while it is ≥ r. */
static void grain_field(grain *g, czk_fr *out) {
    uint8_t be[CZK_FR_BYTES];
    do {
        for (int i = 0; i < CZK_FR_BYTES; i++) {
            unsigned nbits = i == 0 ? 7 : 8, byte = 0;
            for (unsigned k = 0; k < nbits; k++)
                byte = (byte << 1) | (unsigned)grain_bit(g);
            be[i] = (uint8_t)byte;
        }
    } while (czk_fr_from_bytes_be(out, be) != CZK_OK);
}

/* ---- small matrices (t ≤ 12) ---- */

/* out = v·m (v a row vector); out may alias v. */
static void vec_mat(czk_fr *out, const czk_fr *v, const mat m, size_t t) {
    czk_fr r[T_MAX], p;
    for (size_t j = 0; j < t; j++) {
        r[j] = CZK_FR_ZERO;
        for (size_t i = 0; i < t; i++) {
            czk_fr_mul(&p, &m[i][j], &v[i]);
            czk_fr_add(&r[j], &r[j], &p);
        }
    }
    memcpy(out, r, t * sizeof r[0]);
}

/* out = a·b (the leading t×t blocks; the rest of out becomes zero); out may alias either. */
static void mat_mul(mat out, const mat a, const mat b, size_t t) {
    mat r;
    czk_fr p;
    memset(r, 0, sizeof r); /* entries beyond t stay zero, so that the constants are one value */
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) {
            r[i][j] = CZK_FR_ZERO;
            for (size_t k = 0; k < t; k++) {
                czk_fr_mul(&p, &a[i][k], &b[k][j]);
                czk_fr_add(&r[i][j], &r[i][j], &p);
            }
        }
    memcpy(out, r, sizeof r);
}

/* Gauss-Jordan inverse of the leading t×t block. Returns 0 when it is singular. */
static int mat_inv(mat out, const mat in, size_t t) {
    mat a;
    memcpy(a, in, sizeof a);
    for (size_t i = 0; i < T_MAX; i++)
        for (size_t j = 0; j < T_MAX; j++)
            out[i][j] = i == j ? CZK_FR_ONE : CZK_FR_ZERO;
    for (size_t col = 0; col < t; col++) {
        size_t piv = col;
        while (piv < t && czk_fr_is_zero(&a[piv][col]))
            piv++;
        if (piv == t)
            return 0;
        if (piv != col)
            for (size_t j = 0; j < t; j++) {
                czk_fr s = a[col][j];
                a[col][j] = a[piv][j];
                a[piv][j] = s;
                s = out[col][j];
                out[col][j] = out[piv][j];
                out[piv][j] = s;
            }
        czk_fr inv, f, p;
        czk_fr_inv_var(&inv, &a[col][col]);
        for (size_t j = 0; j < t; j++) {
            czk_fr_mul(&a[col][j], &a[col][j], &inv);
            czk_fr_mul(&out[col][j], &out[col][j], &inv);
        }
        for (size_t i = 0; i < t; i++) {
            if (i == col || czk_fr_is_zero(&a[i][col]))
                continue;
            f = a[i][col];
            for (size_t j = 0; j < t; j++) {
                czk_fr_mul(&p, &f, &a[col][j]);
                czk_fr_sub(&a[i][j], &a[i][j], &p);
                czk_fr_mul(&p, &f, &out[col][j]);
                czk_fr_sub(&out[i][j], &out[i][j], &p);
            }
        }
    }
    return 1;
}

/* ---- constant generation ---- */

static void gen_mds(czk_poseidon_constants *c) {
    size_t t = c->width;
    for (size_t i = 0; i < t; i++)
        for (size_t j = 0; j < t; j++) {
            czk_fr x;
            czk_fr_set_u64(&x, (uint64_t)(i + t + j)); /* x_i + y_j = i + (t + j) */
            czk_fr_inv_var(&c->mds[i][j], &x);
        }
}

/* The compressed round constants, from rc and M⁻¹ (layout in poseidon.h). */
static void gen_compressed(czk_poseidon_constants *c) {
    size_t t = c->width, half = c->half_full_rounds, rp = c->partial_rounds, n = 0;
    const czk_fr *rc = c->round_constants;
    czk_fr *crc = c->compressed_round_constants;
    czk_fr acc[T_MAX], u[T_MAX], pk[CZK_POSEIDON_MAX_PARTIAL_ROUNDS];

    memcpy(crc, rc, t * sizeof *crc); /* round 0's keys are added before any S-box */
    n += t;
    /* The keys of rounds 1 … half−1 move behind the previous round's MDS. */
    for (size_t r = 1; r < half; r++, n += t)
        vec_mat(&crc[n], &rc[r * t], c->mds_inv, t);
    /* Partial rounds: walking back from the first final full round, each round's keys pass
     * through M⁻¹; the S-boxed element 0 keeps its own key, the rest join the previous round. */
    memcpy(acc, &rc[(half + rp) * t], t * sizeof *acc);
    for (size_t k = 0; k < rp; k++) {
        vec_mat(u, acc, c->mds_inv, t);
        pk[k] = u[0];
        u[0] = CZK_FR_ZERO;
        for (size_t i = 0; i < t; i++)
            czk_fr_add(&acc[i], &rc[(half + rp - 1 - k) * t + i], &u[i]);
    }
    vec_mat(&crc[n], acc, c->mds_inv, t); /* the last first-half full round's post keys */
    n += t;
    for (size_t k = rp; k-- > 0;)
        crc[n++] = pk[k];
    /* Final full rounds but the last: their successors' keys, through M⁻¹. */
    for (size_t r = half + rp + 1; r < c->full_rounds + rp; r++, n += t)
        vec_mat(&crc[n], &rc[r * t], c->mds_inv, t);
    c->n_compressed = n;
}

/* M = M′·M″ repeatedly (neptune's factor_to_sparse_matrices). Returns 0 on a singular minor. */
static int gen_sparse(czk_poseidon_constants *c) {
    size_t t = c->width, rp = c->partial_rounds;
    mat cur, hat, hat_inv, prime;
    memcpy(cur, c->mds, sizeof cur);
    for (size_t k = 0; k < rp; k++) {
        czk_poseidon_sparse *s = &c->sparse[rp - 1 - k]; /* recorded in reverse */
        memset(hat, 0, sizeof hat);
        for (size_t i = 1; i < t; i++)
            for (size_t j = 1; j < t; j++)
                hat[i - 1][j - 1] = cur[i][j];
        if (!mat_inv(hat_inv, hat, t - 1))
            return 0;
        czk_fr w[T_MAX];
        for (size_t i = 1; i < t; i++)
            w[i - 1] = cur[i][0];
        s->w_hat[0] = cur[0][0];
        vec_mat(&s->w_hat[1], w, hat_inv, t - 1);
        for (size_t j = 1; j < t; j++)
            s->v_rest[j - 1] = cur[0][j];
        /* M′: e_0 as row 0, the other rows with column 0 cleared. */
        memcpy(prime, cur, sizeof prime);
        for (size_t j = 0; j < t; j++)
            prime[0][j] = j == 0 ? CZK_FR_ONE : CZK_FR_ZERO;
        for (size_t i = 1; i < t; i++)
            prime[i][0] = CZK_FR_ZERO;
        mat_mul(cur, c->mds, prime, t);
    }
    memcpy(c->pre_sparse, cur, sizeof cur);
    return 1;
}

int czk_poseidon_constants_init(czk_poseidon_constants *c, size_t arity, czk_err *err) {
    if (arity < 1 || arity > CZK_POSEIDON_MAX_ARITY)
        return czk_err_set(err, CZK_EUNSUPPORTED, "poseidon: arity %zu outside 1..%d", arity,
                           CZK_POSEIDON_MAX_ARITY);
    memset(c, 0, sizeof *c);
    c->arity = arity;
    c->width = arity + 1;
    size_t t = c->width;
    if (czk_poseidon_round_numbers(t, &c->full_rounds, &c->partial_rounds) != CZK_OK ||
        c->full_rounds != CZK_POSEIDON_FULL_ROUNDS ||
        c->partial_rounds > CZK_POSEIDON_MAX_PARTIAL_ROUNDS)
        return czk_err_set(err, CZK_EINTERNAL, "poseidon: round numbers %zu/%zu for width %zu",
                           c->full_rounds, c->partial_rounds, t);
    c->half_full_rounds = c->full_rounds / 2;
    czk_fr_set_u64(&c->domain_tag, ((uint64_t)1 << arity) - 1);

    grain g;
    grain_init(&g, t, c->full_rounds, c->partial_rounds);
    for (size_t i = 0; i < (c->full_rounds + c->partial_rounds) * t; i++)
        grain_field(&g, &c->round_constants[i]);

    gen_mds(c);
    if (!mat_inv(c->mds_inv, c->mds, t))
        return czk_err_set(err, CZK_EINTERNAL, "poseidon: MDS matrix of width %zu singular", t);
    gen_compressed(c);
    if (!gen_sparse(c))
        return czk_err_set(err, CZK_EINTERNAL,
                           "poseidon: singular minor in the sparse "
                           "factorisation of width %zu",
                           t);
    return CZK_OK;
}

/* ---- the shared constants of Filecoin's arities ---- */

static const size_t filecoin_arities[] = {2, 4, 8, 11};
#define N_FILECOIN (sizeof filecoin_arities / sizeof filecoin_arities[0])
/* Written once under `once`, read-only afterwards: pthread_once orders the writes before every
 * caller's reads. */
static czk_poseidon_constants shared[N_FILECOIN];
static int shared_status;
static czk_err shared_err;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void shared_init(void) {
    for (size_t k = 0; k < N_FILECOIN; k++) {
        shared_status = czk_poseidon_constants_init(&shared[k], filecoin_arities[k], &shared_err);
        if (shared_status != CZK_OK)
            return;
    }
}

int czk_poseidon_constants_get(const czk_poseidon_constants **out, size_t arity, czk_err *err) {
    size_t k = 0;
    while (k < N_FILECOIN && filecoin_arities[k] != arity)
        k++;
    if (k == N_FILECOIN)
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "poseidon: Filecoin uses arities 2, 4, 8 and 11, not %zu", arity);
    if (pthread_once(&once, shared_init) != 0)
        return czk_err_set(err, CZK_EINTERNAL, "poseidon: pthread_once failed");
    if (shared_status != CZK_OK) {
        if (err)
            *err = shared_err;
        return shared_status;
    }
    *out = &shared[k];
    return CZK_OK;
}

/* ---- hashing ---- */

static void sbox(czk_fr *x) {
    czk_fr x2, x4;
    czk_fr_sqr(&x2, x);
    czk_fr_sqr(&x4, &x2);
    czk_fr_mul(x, x, &x4);
}

int czk_poseidon_hash_plain(const czk_poseidon_constants *c, const czk_fr *in, size_t arity,
                            czk_fr *out) {
    if (arity != c->arity)
        return CZK_EINVAL;
    size_t t = c->width, half = c->half_full_rounds, rounds = c->full_rounds + c->partial_rounds;
    czk_fr s[T_MAX];
    s[0] = c->domain_tag;
    memcpy(&s[1], in, arity * sizeof *in);
    for (size_t r = 0; r < rounds; r++) {
        int full = r < half || r >= half + c->partial_rounds;
        for (size_t i = 0; i < t; i++)
            czk_fr_add(&s[i], &s[i], &c->round_constants[r * t + i]);
        for (size_t i = 0; i < (full ? t : 1); i++)
            sbox(&s[i]);
        vec_mat(s, s, c->mds, t);
    }
    *out = s[1];
    return CZK_OK;
}

void czk_poseidon_mix_sparse(const czk_poseidon_sparse *m, czk_fr *s, size_t t) {
    czk_fr s0, p;
    czk_fr_mul(&s0, &m->w_hat[0], &s[0]);
    for (size_t i = 1; i < t; i++) {
        czk_fr_mul(&p, &m->w_hat[i], &s[i]);
        czk_fr_add(&s0, &s0, &p);
    }
    for (size_t j = 1; j < t; j++) {
        czk_fr_mul(&p, &m->v_rest[j - 1], &s[0]);
        czk_fr_add(&s[j], &s[j], &p);
    }
    s[0] = s0;
}

czk_poseidon_mix czk_poseidon_round_mix(const czk_poseidon_constants *c, size_t r,
                                        size_t *sparse_index) {
    *sparse_index = 0;
    if (r == c->half_full_rounds - 1)
        return CZK_POSEIDON_MIX_PRE_SPARSE;
    if (r >= c->half_full_rounds && r < c->half_full_rounds + c->partial_rounds) {
        *sparse_index = r - c->half_full_rounds;
        return CZK_POSEIDON_MIX_SPARSE;
    }
    return CZK_POSEIDON_MIX_MDS;
}

size_t czk_poseidon_trace_len(const czk_poseidon_constants *c) {
    return (c->full_rounds + c->partial_rounds) * c->width;
}

int czk_poseidon_hash_trace(const czk_poseidon_constants *c, const czk_fr *in, size_t arity,
                            czk_fr *out, czk_fr *trace, size_t trace_len) {
    if (arity != c->arity || (trace && trace_len < czk_poseidon_trace_len(c)))
        return CZK_EINVAL;
    size_t t = c->width, half = c->half_full_rounds, rounds = c->full_rounds + c->partial_rounds;
    const czk_fr *key = c->compressed_round_constants;
    czk_fr s[T_MAX];
    s[0] = c->domain_tag;
    memcpy(&s[1], in, arity * sizeof *in);
    for (size_t i = 0; i < t; i++)
        czk_fr_add(&s[i], &s[i], key++);
    for (size_t r = 0; r < rounds; r++) {
        if (trace)
            memcpy(&trace[r * t], s, t * sizeof *s);
        int full = r < half || r >= half + c->partial_rounds;
        for (size_t i = 0; i < (full ? t : 1); i++) {
            sbox(&s[i]);
            if (r + 1 < rounds) /* the last round has no key */
                czk_fr_add(&s[i], &s[i], key++);
        }
        size_t k;
        switch (czk_poseidon_round_mix(c, r, &k)) {
        case CZK_POSEIDON_MIX_PRE_SPARSE:
            vec_mat(s, s, c->pre_sparse, t);
            break;
        case CZK_POSEIDON_MIX_SPARSE:
            czk_poseidon_mix_sparse(&c->sparse[k], s, t);
            break;
        case CZK_POSEIDON_MIX_MDS:
            vec_mat(s, s, c->mds, t);
            break;
        }
    }
    *out = s[1];
    return CZK_OK;
}

int czk_poseidon_hash(const czk_poseidon_constants *c, const czk_fr *in, size_t arity,
                      czk_fr *out) {
    return czk_poseidon_hash_trace(c, in, arity, out, NULL, 0);
}

int czk_poseidon_hash_arity(const czk_fr *in, size_t arity, czk_fr *out, czk_err *err) {
    const czk_poseidon_constants *c = NULL;
    int rc = czk_poseidon_constants_get(&c, arity, err);
    if (rc == CZK_OK && czk_poseidon_hash(c, in, arity, out) != CZK_OK)
        rc = czk_err_set(err, CZK_EINTERNAL, "Poseidon-%zu refused its input", arity);
    return rc;
}
