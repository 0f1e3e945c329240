/*
 * DESIGN: the reader maps the file, parses the container, then checks the header and every
 * section size against nVars, nPublic and domainSize before it allocates anything, so a
 * hostile file cannot make it allocate more than a small multiple of its own size. Section 4
 * is validated completely (matrix ids, signal ids, coefficient ranges, the input rows) before
 * the points are decoded, because decoding with subgroup checks is the slow part. The writer
 * streams through czk_file_writer, computing every section size up front.
 */
#include "formats/zkey.h"

#include "formats/binfile.h"
#include "formats/circom.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/file.h"

#include <stdatomic.h>
#include <string.h>

#define G1_BYTES CZK_G1_SNARKJS_BYTES
#define G2_BYTES CZK_G2_SNARKJS_BYTES
#define N8Q 48u
#define N8R 32u
#define HEADER2_BYTES (4 + N8Q + 4 + N8R + 3 * 4 + 3 * G1_BYTES + 3 * G2_BYTES) /* 964 */
#define COEF_BYTES (3 * 4 + N8R)                                                /* 44 */
#define CS_HASH_BYTES 64

/* Montgomery limbs {1, 0, 0, 0}: the field element R⁻¹. Multiplying by it is one Montgomery
 * reduction, which turns section 4's c·R² (read as Montgomery limbs) into c in Montgomery
 * form, c·R. */
static const czk_fr R_INV = {{1, 0, 0, 0}};

/* The element whose normal form is R² mod r: c·R2 written with czk_fr_to_bytes_le gives
 * section 4's c·R² bytes. R mod r is the Montgomery form of one, read here as a value. */
static void r2_value(czk_fr *r2) {
    czk_fr r;
    (void)czk_fr_from_limbs(&r, CZK_FR_ONE.l); /* R mod r < r: cannot fail */
    czk_fr_sqr(r2, &r);
}

static int decode_error(int code, const char *path, const char *what, uint64_t idx, czk_err *err) {
    const char *why = code == CZK_ERANGE        ? "a coordinate is not below q"
                      : code == CZK_ENOTONCURVE ? "not on the curve"
                      : code == CZK_ENOTINGROUP ? "not in the prime-order subgroup"
                                                : "undecodable";
    return czk_err_set(err, code, "%s: %s[%llu]: %s", path, what, (unsigned long long)idx, why);
}

/*
 * Decoding with subgroup checks costs ~70 µs a point (measured on this repo's 2-core dev VM),
 * minutes for a key of millions of points, so the vectors are decoded on a pool. A failing
 * chunk records its lowest bad index; the message names the lowest one overall, the same
 * whatever the thread count.
 */
typedef struct decode_job {
    void *out;
    const uint8_t *in;
    int g2;
    int curve_only;       /* skip the subgroup check (czk_key_check CURVE) */
    _Atomic uint64_t bad; /* lowest failing index + 1; 0 when none */
} decode_job;

static int decode_one(const decode_job *j, size_t i) {
    czk_g1_affine *o1 = (czk_g1_affine *)j->out + i;
    czk_g2_affine *o2 = (czk_g2_affine *)j->out + i;
    if (j->g2)
        return j->curve_only ? czk_g2_affine_from_snarkjs_unchecked(o2, j->in + i * G2_BYTES)
                             : czk_g2_affine_from_snarkjs(o2, j->in + i * G2_BYTES);
    return j->curve_only ? czk_g1_affine_from_snarkjs_unchecked(o1, j->in + i * G1_BYTES)
                         : czk_g1_affine_from_snarkjs(o1, j->in + i * G1_BYTES);
}

static void decode_body(void *arg, size_t begin, size_t end, unsigned worker) {
    decode_job *j = arg;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        if (decode_one(j, i) != CZK_OK) {
            /* Relaxed: czk_pool_run's return orders these stores before the caller's load. */
            uint64_t mine = (uint64_t)i + 1;
            uint64_t cur = atomic_load_explicit(&j->bad, memory_order_relaxed);
            while ((cur == 0 || mine < cur) &&
                   !atomic_compare_exchange_weak_explicit(&j->bad, &cur, mine, memory_order_relaxed,
                                                          memory_order_relaxed)) {
            }
            return;
        }
    }
}

static int read_points(void *out, int g2, int curve_only, const uint8_t *p, uint64_t n,
                       czk_pool *pool, const char *path, const char *what, czk_err *err) {
    decode_job j = {.out = out, .in = p, .g2 = g2, .curve_only = curve_only};
    atomic_init(&j.bad, 0);
    czk_pool_run(pool, (size_t)n, 256, decode_body, &j);
    uint64_t bad = atomic_load_explicit(&j.bad, memory_order_relaxed);
    if (bad == 0)
        return CZK_OK;
    return decode_error(decode_one(&j, (size_t)(bad - 1)), path, what, bad - 1, err);
}

static int read_g1s(czk_g1_affine *out, const uint8_t *p, uint64_t n, czk_pool *pool,
                    const char *path, const char *what, czk_err *err) {
    return read_points(out, 0, 0, p, n, pool, path, what, err);
}

static int read_g2s(czk_g2_affine *out, const uint8_t *p, uint64_t n, czk_pool *pool,
                    const char *path, const char *what, czk_err *err) {
    return read_points(out, 1, 0, p, n, pool, path, what, err);
}

/* Allocates n elements of `size` bytes; n = 0 gives NULL without failing. */
static int alloc_array(void **p, uint64_t n, size_t size, const char *path, const char *what,
                       czk_err *err) {
    *p = NULL;
    if (n == 0)
        return CZK_OK;
    *p = czk_malloc((size_t)n * size);
    if (*p == NULL)
        return czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %llu %s", path,
                           (unsigned long long)n, what);
    return CZK_OK;
}

typedef struct zkey_header {
    uint32_t n_vars, n_public, domain_size;
    const uint8_t *points; /* α1 β1 β2 γ2 δ1 δ2, LEM */
} zkey_header;

static int read_header(zkey_header *h, const czk_binfile *bf, const char *path, czk_err *err) {
    const czk_binfile_section *s;
    int rc = czk_binfile_section_get(bf, 1, 4, "4 (protocol id)", &s, err);
    if (rc != CZK_OK)
        return rc;
    uint32_t protocol = czk_bytes_load_le32(s->data);
    if (protocol != 1)
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "%s: protocol %u (%s), only Groth16 (1) is supported", path, protocol,
                           protocol == 2    ? "PLONK"
                           : protocol == 10 ? "FFLONK"
                                            : "unknown");
    rc = czk_binfile_section_get(bf, 2, UINT64_MAX, NULL, &s, err);
    if (rc != CZK_OK)
        return rc;
    if (s->size < 4)
        return czk_err_set(err, CZK_EFORMAT, "%s: section 2 size %llu < 4", path,
                           (unsigned long long)s->size);
    uint32_t n8q = czk_bytes_load_le32(s->data);
    if (s->size - 4 < n8q)
        return czk_err_set(err, CZK_EFORMAT, "%s: section 2 size %llu cannot hold its %u-byte q",
                           path, (unsigned long long)s->size, n8q);
    /* The curve first: a bn128 key should be named as such, not fail on a size. */
    rc = czk__circom_check_prime(path, "section 2 q", s->data + 4, n8q, CZK__PRIME_Q, err);
    if (rc != CZK_OK)
        return rc;
    rc =
        czk_binfile_section_get(bf, 2, HEADER2_BYTES, "the BLS12-381 Groth16 header size", &s, err);
    if (rc != CZK_OK)
        return rc;
    const uint8_t *p = s->data + 4 + N8Q;
    uint32_t n8r = czk_bytes_load_le32(p);
    if (n8r != N8R)
        return czk_err_set(err, CZK_EFORMAT, "%s: section 2 n8r %u, expected 32", path, n8r);
    rc = czk__circom_check_prime(path, "section 2 r", p + 4, n8r, CZK__PRIME_R, err);
    if (rc != CZK_OK)
        return rc;
    p += 4 + N8R;
    h->n_vars = czk_bytes_load_le32(p);
    h->n_public = czk_bytes_load_le32(p + 4);
    h->domain_size = czk_bytes_load_le32(p + 8);
    h->points = p + 12;
    if ((uint64_t)h->n_public + 1 > h->n_vars)
        return czk_err_set(err, CZK_EFORMAT, "%s: nVars %u < nPublic %u + 1", path, h->n_vars,
                           h->n_public);
    if (h->domain_size == 0 || (h->domain_size & (h->domain_size - 1)) != 0)
        return czk_err_set(err, CZK_EFORMAT, "%s: domainSize %u is not a power of two", path,
                           h->domain_size);
    if ((uint64_t)h->n_public + 1 > h->domain_size)
        return czk_err_set(err, CZK_EFORMAT, "%s: domainSize %u < nPublic %u + 1", path,
                           h->domain_size, h->n_public);
    return CZK_OK;
}

/* Section 4, validated: the circuit's row count and the A/B terms. */
typedef struct coef_info {
    uint32_t n_coefs;
    uint32_t n_constraints;
    const uint8_t *coefs; /* n_coefs × 44 bytes */
} coef_info;

static int check_coefs(coef_info *ci, const czk_binfile *bf, const zkey_header *h, const char *path,
                       czk_err *err) {
    const czk_binfile_section *s;
    int rc = czk_binfile_section_get(bf, 4, UINT64_MAX, NULL, &s, err);
    if (rc != CZK_OK)
        return rc;
    if (s->size < 4)
        return czk_err_set(err, CZK_EFORMAT, "%s: section 4 size %llu < 4", path,
                           (unsigned long long)s->size);
    ci->n_coefs = czk_bytes_load_le32(s->data);
    ci->coefs = s->data + 4;
    rc = czk_binfile_section_get(bf, 4, 4 + (uint64_t)ci->n_coefs * COEF_BYTES, "4 + nCoefs*44", &s,
                                 err);
    if (rc != CZK_OK)
        return rc;
    /* The input rows are the last nPublic + 1 constraint indices, so the largest index fixes
     * the circuit's row count. */
    uint64_t max_c = 0;
    for (uint32_t i = 0; i < ci->n_coefs; i++) {
        const uint8_t *e = ci->coefs + (size_t)i * COEF_BYTES;
        uint32_t m = czk_bytes_load_le32(e), c = czk_bytes_load_le32(e + 4),
                 sig = czk_bytes_load_le32(e + 8);
        if (m > 1)
            return czk_err_set(
                err, CZK_EFORMAT,
                "%s: section 4 coefficient %u: matrix %u (only A = 0 and B = 1 are stored)", path,
                i, m);
        if (sig >= h->n_vars)
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: section 4 coefficient %u: signal %u >= nVars %u", path, i, sig,
                               h->n_vars);
        czk_fr v;
        if (czk_fr_from_mont_bytes_le(&v, e + 12) != CZK_OK)
            return czk_err_set(err, CZK_EFORMAT, "%s: section 4 coefficient %u: value not below r",
                               path, i);
        if (c > max_c)
            max_c = c;
    }
    if (ci->n_coefs == 0 || max_c < h->n_public)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: section 4 lacks the %u input rows (largest constraint index %llu)",
                           path, h->n_public + 1, (unsigned long long)max_c);
    uint64_t n_cons = max_c - h->n_public;
    if (n_cons + h->n_public + 1 > h->domain_size)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: %llu constraints + %u input rows exceed domainSize %u", path,
                           (unsigned long long)n_cons, h->n_public + 1, h->domain_size);
    ci->n_constraints = (uint32_t)n_cons;
    /* Input row n_cons + j must be exactly A[j] = 1 for signal j: the prover appends these rows
     * itself, so a key that says otherwise would prove a different system. */
    czk_fr r2;
    r2_value(&r2);
    uint8_t one_bytes[N8R];
    czk_fr_to_bytes_le(one_bytes, &r2);
    /* One flag per input row (nPublic + 1 bytes, bounded by section 3's checked size). */
    uint8_t *seen = czk_calloc((size_t)h->n_public + 1, 1);
    if (seen == NULL)
        return czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %u input-row flags", path,
                           h->n_public + 1);
    rc = CZK_OK;
    for (uint32_t i = 0; i < ci->n_coefs && rc == CZK_OK; i++) {
        const uint8_t *e = ci->coefs + (size_t)i * COEF_BYTES;
        uint32_t m = czk_bytes_load_le32(e), c = czk_bytes_load_le32(e + 4),
                 sig = czk_bytes_load_le32(e + 8);
        if (c < n_cons)
            continue;
        uint32_t j = (uint32_t)(c - n_cons);
        if (m != 0 || sig != j || memcmp(e + 12, one_bytes, N8R) != 0)
            rc = czk_err_set(err, CZK_EFORMAT,
                             "%s: section 4 coefficient %u: input row %u (constraint %u) must be "
                             "A[%u] = 1, found %c[%u] with another value or signal",
                             path, i, j, c, j, m == 0 ? 'A' : 'B', sig);
        else if (seen[j]++)
            rc =
                czk_err_set(err, CZK_EFORMAT,
                            "%s: section 4 coefficient %u: input row %u appears twice", path, i, j);
    }
    for (uint32_t j = 0; j <= h->n_public && rc == CZK_OK; j++)
        if (!seen[j])
            rc = czk_err_set(err, CZK_EFORMAT,
                             "%s: section 4 lacks input row %u (constraint %llu: A[%u] = 1)", path,
                             j, (unsigned long long)(n_cons + j), j);
    czk_free(seen);
    return rc;
}

/* Builds ab's A and B from the validated section 4. */
static int build_ab(czk_r1cs *ab, const coef_info *ci, const zkey_header *h, const char *path,
                    czk_err *err) {
    memset(ab, 0, sizeof(*ab));
    ab->n_constraints = ci->n_constraints;
    ab->n_vars = h->n_vars;
    ab->n_public = h->n_public;
    czk_r1cs_matrix *ms[2] = {&ab->a, &ab->b};
    uint64_t count[2] = {0, 0};
    size_t rows = (size_t)ci->n_constraints;
    int rc = CZK_OK;
    for (int k = 0; k < 2; k++) {
        ms[k]->row_ptr = czk_calloc(rows + 1, sizeof(uint64_t));
        if (ms[k]->row_ptr == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %zu rows", path, rows);
            goto out;
        }
    }
    /* Counting sort by row: count into row_ptr[row + 1], prefix-sum, scatter. */
    for (uint32_t i = 0; i < ci->n_coefs; i++) {
        const uint8_t *e = ci->coefs + (size_t)i * COEF_BYTES;
        uint32_t m = czk_bytes_load_le32(e), c = czk_bytes_load_le32(e + 4);
        if (c < ci->n_constraints) {
            ms[m]->row_ptr[c + 1]++;
            count[m]++;
        }
    }
    for (int k = 0; k < 2; k++) {
        for (size_t r = 0; r < rows; r++)
            ms[k]->row_ptr[r + 1] += ms[k]->row_ptr[r];
        size_t nt = count[k] > 0 ? (size_t)count[k] : 1; /* keep empty matrices non-NULL */
        ms[k]->cols = czk_malloc(nt * sizeof(uint32_t));
        ms[k]->vals = czk_malloc(nt * sizeof(czk_fr));
        if (ms[k]->cols == NULL || ms[k]->vals == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %llu terms", path,
                             (unsigned long long)count[k]);
            goto out;
        }
    }
    /* Scatter, using row_ptr[r] as row r's cursor; afterwards row_ptr[r] holds row r's end,
     * and shifting by one restores the starts. */
    for (uint32_t i = 0; i < ci->n_coefs; i++) {
        const uint8_t *e = ci->coefs + (size_t)i * COEF_BYTES;
        uint32_t m = czk_bytes_load_le32(e), c = czk_bytes_load_le32(e + 4),
                 sig = czk_bytes_load_le32(e + 8);
        if (c >= ci->n_constraints)
            continue;
        uint64_t at = ms[m]->row_ptr[c]++;
        czk_fr v;
        (void)czk_fr_from_mont_bytes_le(&v, e + 12); /* range checked in check_coefs */
        czk_fr_mul(&ms[m]->vals[at], &v, &R_INV);
        ms[m]->cols[at] = sig;
    }
    for (int k = 0; k < 2; k++) {
        memmove(ms[k]->row_ptr + 1, ms[k]->row_ptr, rows * sizeof(uint64_t));
        ms[k]->row_ptr[0] = 0;
        if (czk__r1cs_matrix_normalize(ms[k], rows) != CZK_OK) {
            rc =
                czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate scratch to sort section 4", path);
            goto out;
        }
    }
out:
    if (rc != CZK_OK)
        czk_r1cs_clear(ab);
    return rc;
}

static int read_single_g1(czk_g1_affine *p, const uint8_t *b, const char *path, const char *what,
                          czk_err *err) {
    int rc = read_g1s(p, b, 1, NULL, path, what, err);
    if (rc == CZK_OK && czk_g1_affine_is_infinity(p))
        rc = czk_err_set(err, CZK_EFORMAT, "%s: %s is the point at infinity", path, what);
    return rc;
}

static int read_single_g2(czk_g2_affine *p, const uint8_t *b, const char *path, const char *what,
                          czk_err *err) {
    int rc = read_g2s(p, b, 1, NULL, path, what, err);
    if (rc == CZK_OK && czk_g2_affine_is_infinity(p))
        rc = czk_err_set(err, CZK_EFORMAT, "%s: %s is the point at infinity", path, what);
    return rc;
}

int czk_zkey_read(czk_groth16_pk *pk, czk_r1cs *ab, const char *path, czk_err *err) {
    return czk_zkey_read_pool(pk, ab, path, NULL, err);
}

int czk_zkey_read_pool(czk_groth16_pk *pk, czk_r1cs *ab, const char *path, czk_pool *pool,
                       czk_err *err) {
    return czk_zkey_read_ex(pk, ab, path, CZK_KEY_CHECK_FULL, pool, err);
}

int czk_zkey_read_ex(czk_groth16_pk *pk, czk_r1cs *ab, const char *path, czk_key_check check,
                     czk_pool *pool, czk_err *err) {
    int co = check == CZK_KEY_CHECK_CURVE;
    memset(pk, 0, sizeof(*pk));
    if (ab != NULL)
        memset(ab, 0, sizeof(*ab));
    czk_file_mapping map;
    int rc = czk_file_map(&map, path, err);
    if (rc != CZK_OK)
        return rc;
    czk_binfile bf;
    zkey_header h = {0};
    coef_info ci = {0};
    const czk_binfile_section *s3, *s5, *s6, *s7, *s8, *s9;
    rc = czk_binfile_parse(&bf, map.data, map.len, path, "zkey", 1, 10, err);
    if (rc == CZK_OK)
        rc = read_header(&h, &bf, path, err);
    if (rc != CZK_OK)
        goto out;
    /* Every size is a u32 count times at most 192 bytes: no overflow in 64 bits. */
    uint64_t nv = h.n_vars, np = h.n_public, ds = h.domain_size;
    if ((rc = czk_binfile_section_get(&bf, 3, (np + 1) * G1_BYTES, "(nPublic+1)*96", &s3, err)) ||
        (rc = czk_binfile_section_get(&bf, 5, nv * G1_BYTES, "nVars*96", &s5, err)) ||
        (rc = czk_binfile_section_get(&bf, 6, nv * G1_BYTES, "nVars*96", &s6, err)) ||
        (rc = czk_binfile_section_get(&bf, 7, nv * G2_BYTES, "nVars*192", &s7, err)) ||
        (rc = czk_binfile_section_get(&bf, 8, (nv - np - 1) * G1_BYTES, "(nVars-nPublic-1)*96", &s8,
                                      err)) ||
        (rc = czk_binfile_section_get(&bf, 9, ds * G1_BYTES, "domainSize*96", &s9, err)) ||
        (rc = check_coefs(&ci, &bf, &h, path, err)))
        goto out;

    const uint8_t *p = h.points;
    if ((rc = read_single_g1(&pk->vk.alpha_g1, p, path, "section 2 alpha_1", err)) ||
        (rc = read_single_g1(&pk->vk.beta_g1, p + G1_BYTES, path, "section 2 beta_1", err)) ||
        (rc = read_single_g2(&pk->vk.beta_g2, p + 2 * G1_BYTES, path, "section 2 beta_2", err)) ||
        (rc = read_single_g2(&pk->vk.gamma_g2, p + 2 * G1_BYTES + G2_BYTES, path,
                             "section 2 gamma_2", err)) ||
        (rc = read_single_g1(&pk->vk.delta_g1, p + 2 * G1_BYTES + 2 * G2_BYTES, path,
                             "section 2 delta_1", err)) ||
        (rc = read_single_g2(&pk->vk.delta_g2, p + 3 * G1_BYTES + 2 * G2_BYTES, path,
                             "section 2 delta_2", err)))
        goto out;

    pk->h_basis = CZK_H_ODD_COSET;
    pk->density = CZK_DENSITY_DENSE;
    pk->domain_size = h.domain_size;
    pk->n_vars = h.n_vars;
    pk->n_public = h.n_public;
    pk->vk.n_ic = np + 1;
    pk->n_a = pk->n_b_g1 = pk->n_b_g2 = nv;
    pk->n_l = nv - np - 1;
    pk->n_h = ds;
    if ((rc = alloc_array((void **)&pk->vk.ic, pk->vk.n_ic, sizeof(czk_g1_affine), path,
                          "IC points", err)) ||
        (rc = alloc_array((void **)&pk->a, nv, sizeof(czk_g1_affine), path, "A points", err)) ||
        (rc = alloc_array((void **)&pk->b_g1, nv, sizeof(czk_g1_affine), path, "B1 points", err)) ||
        (rc = alloc_array((void **)&pk->b_g2, nv, sizeof(czk_g2_affine), path, "B2 points", err)) ||
        (rc =
             alloc_array((void **)&pk->l, pk->n_l, sizeof(czk_g1_affine), path, "C points", err)) ||
        (rc = alloc_array((void **)&pk->h, ds, sizeof(czk_g1_affine), path, "H points", err)))
        goto out;
    if ((rc = read_g1s(pk->vk.ic, s3->data, pk->vk.n_ic, pool, path, "section 3 IC", err)) ||
        (rc = read_points(pk->a, 0, co, s5->data, nv, pool, path, "section 5 A", err)) ||
        (rc = read_points(pk->b_g1, 0, co, s6->data, nv, pool, path, "section 6 B1", err)) ||
        (rc = read_points(pk->b_g2, 1, co, s7->data, nv, pool, path, "section 7 B2", err)) ||
        (rc = read_points(pk->l, 0, co, s8->data, pk->n_l, pool, path, "section 8 C", err)) ||
        (rc = read_points(pk->h, 0, co, s9->data, ds, pool, path, "section 9 H", err)))
        goto out;
    if (ab != NULL)
        rc = build_ab(ab, &ci, &h, path, err);
out:
    if (rc != CZK_OK)
        czk_groth16_pk_clear(pk);
    czk_file_unmap(&map);
    return rc;
}

/* ---- writer ---------------------------------------------------------------------------- */

static int check_matrix(const czk_r1cs_matrix *m, const czk_r1cs *cs, char name, uint64_t *nnz,
                        const char *path, czk_err *err) {
    if (m->row_ptr == NULL) {
        if (cs->n_constraints == 0) {
            *nnz = 0;
            return CZK_OK;
        }
        return czk_err_set(err, CZK_EINVAL, "%s: matrix %c is missing", path, name);
    }
    if (m->row_ptr[0] != 0)
        return czk_err_set(err, CZK_EINVAL, "%s: matrix %c row_ptr[0] != 0", path, name);
    for (size_t r = 0; r < cs->n_constraints; r++) {
        if (m->row_ptr[r + 1] < m->row_ptr[r])
            return czk_err_set(err, CZK_EINVAL, "%s: matrix %c row_ptr decreases at row %zu", path,
                               name, r);
        for (uint64_t k = m->row_ptr[r]; k < m->row_ptr[r + 1]; k++)
            if (m->cols[k] >= cs->n_vars)
                return czk_err_set(err, CZK_EINVAL, "%s: matrix %c row %zu: column %u >= n_vars",
                                   path, name, r, m->cols[k]);
    }
    *nnz = m->row_ptr[cs->n_constraints];
    return CZK_OK;
}

static int write_g1s(czk_file_writer *w, const czk_g1_affine *p, size_t n, czk_err *err) {
    uint8_t b[G1_BYTES];
    for (size_t i = 0; i < n; i++) {
        czk_g1_affine_to_snarkjs(b, &p[i]);
        int rc = czk_file_writer_write(w, b, sizeof(b), err);
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}

static int write_g2s(czk_file_writer *w, const czk_g2_affine *p, size_t n, czk_err *err) {
    uint8_t b[G2_BYTES];
    for (size_t i = 0; i < n; i++) {
        czk_g2_affine_to_snarkjs(b, &p[i]);
        int rc = czk_file_writer_write(w, b, sizeof(b), err);
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}

static int write_coef(czk_file_writer *w, uint32_t m, uint32_t c, uint32_t s, const uint8_t v[N8R],
                      czk_err *err) {
    int rc = czk_file_writer_u32(w, m, err);
    if (rc == CZK_OK)
        rc = czk_file_writer_u32(w, c, err);
    if (rc == CZK_OK)
        rc = czk_file_writer_u32(w, s, err);
    if (rc == CZK_OK)
        rc = czk_file_writer_write(w, v, N8R, err);
    return rc;
}

static int write_row(czk_file_writer *w, const czk_r1cs_matrix *m, uint32_t which, size_t row,
                     const czk_fr *r2, czk_err *err) {
    for (uint64_t k = m->row_ptr[row]; k < m->row_ptr[row + 1]; k++) {
        czk_fr t;
        uint8_t v[N8R];
        czk_fr_mul(&t, &m->vals[k], r2); /* value c·R², written in normal form */
        czk_fr_to_bytes_le(v, &t);
        int rc = write_coef(w, which, (uint32_t)row, m->cols[k], v, err);
        if (rc != CZK_OK)
            return rc;
    }
    return CZK_OK;
}

int czk_zkey_write(const char *path, const czk_groth16_pk *pk, const czk_r1cs *cs, czk_err *err) {
    if (pk->h_basis != CZK_H_ODD_COSET || pk->density != CZK_DENSITY_DENSE)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: a zkey needs the odd-coset H basis and dense A/B (snarkjs layout)",
                           path);
    size_t nv = pk->n_vars, np = pk->n_public, ds = pk->domain_size;
    if (nv > UINT32_MAX || ds > ((size_t)1 << 31) || ds == 0 || (ds & (ds - 1)) != 0 || np + 1 > nv)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: n_vars %zu, n_public %zu, domain_size %zu do not fit a zkey", path,
                           nv, np, ds);
    if (pk->n_a != nv || pk->n_b_g1 != nv || pk->n_b_g2 != nv || pk->n_l != nv - np - 1 ||
        pk->n_h != ds || pk->vk.n_ic != np + 1 || (nv > 0 && (!pk->a || !pk->b_g1 || !pk->b_g2)) ||
        (pk->n_l > 0 && !pk->l) || !pk->h || !pk->vk.ic)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: key arrays do not match n_vars %zu / n_public %zu / domain %zu",
                           path, nv, np, ds);
    if (cs->n_vars != nv || cs->n_public != np || cs->n_constraints + np + 1 > ds)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: constraint system (%zu constraints, %zu vars, %zu public) does not "
                           "match the key (%zu vars, %zu public, domain %zu)",
                           path, cs->n_constraints, cs->n_vars, cs->n_public, nv, np, ds);
    uint64_t nnz_a, nnz_b;
    int rc = check_matrix(&cs->a, cs, 'A', &nnz_a, path, err);
    if (rc == CZK_OK)
        rc = check_matrix(&cs->b, cs, 'B', &nnz_b, path, err);
    if (rc != CZK_OK)
        return rc;
    uint64_t n_coefs = nnz_a + nnz_b + np + 1;
    if (n_coefs > UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "%s: %llu A/B terms do not fit section 4's u32 count",
                           path, (unsigned long long)n_coefs);

    czk_fr r2;
    r2_value(&r2);
    czk_file_writer w;
    rc = czk_file_writer_open(&w, path, err);
    if (rc != CZK_OK)
        return rc;
    const czk_groth16_vk *vk = &pk->vk;
    uint8_t prime[N8Q];
    /* Section 1: protocol. */
    if ((rc = czk_binfile_write_header(&w, "zkey", 1, 10, err)) ||
        (rc = czk_binfile_write_section_header(&w, 1, 4, err)) ||
        (rc = czk_file_writer_u32(&w, 1, err)))
        goto fail;
    /* Section 2: primes, counts and the key's fixed points. */
    if ((rc = czk_binfile_write_section_header(&w, 2, HEADER2_BYTES, err)) ||
        (rc = czk_file_writer_u32(&w, N8Q, err)))
        goto fail;
    for (int i = 0; i < CZK_FP_LIMBS; i++)
        czk_bytes_store_le64(prime + 8 * i, CZK_FP_MODULUS[i]);
    if ((rc = czk_file_writer_write(&w, prime, N8Q, err)) ||
        (rc = czk_file_writer_u32(&w, N8R, err)))
        goto fail;
    for (int i = 0; i < CZK_FR_LIMBS; i++)
        czk_bytes_store_le64(prime + 8 * i, CZK_FR_MODULUS[i]);
    if ((rc = czk_file_writer_write(&w, prime, N8R, err)) ||
        (rc = czk_file_writer_u32(&w, (uint32_t)nv, err)) ||
        (rc = czk_file_writer_u32(&w, (uint32_t)np, err)) ||
        (rc = czk_file_writer_u32(&w, (uint32_t)ds, err)) ||
        (rc = write_g1s(&w, &vk->alpha_g1, 1, err)) || (rc = write_g1s(&w, &vk->beta_g1, 1, err)) ||
        (rc = write_g2s(&w, &vk->beta_g2, 1, err)) || (rc = write_g2s(&w, &vk->gamma_g2, 1, err)) ||
        (rc = write_g1s(&w, &vk->delta_g1, 1, err)) || (rc = write_g2s(&w, &vk->delta_g2, 1, err)))
        goto fail;
    /* Section 3: IC. */
    if ((rc = czk_binfile_write_section_header(&w, 3, (uint64_t)(np + 1) * G1_BYTES, err)) ||
        (rc = write_g1s(&w, vk->ic, np + 1, err)))
        goto fail;
    /* Section 4: A and B per constraint (snarkjs's order), then the input rows. */
    if ((rc = czk_binfile_write_section_header(&w, 4, 4 + n_coefs * COEF_BYTES, err)) ||
        (rc = czk_file_writer_u32(&w, (uint32_t)n_coefs, err)))
        goto fail;
    for (size_t row = 0; row < cs->n_constraints; row++)
        if ((rc = write_row(&w, &cs->a, 0, row, &r2, err)) ||
            (rc = write_row(&w, &cs->b, 1, row, &r2, err)))
            goto fail;
    uint8_t one[N8R];
    czk_fr_to_bytes_le(one, &r2);
    for (size_t j = 0; j <= np; j++)
        if ((rc = write_coef(&w, 0, (uint32_t)(cs->n_constraints + j), (uint32_t)j, one, err)))
            goto fail;
    /* Sections 5-9: the point vectors. */
    if ((rc = czk_binfile_write_section_header(&w, 5, (uint64_t)nv * G1_BYTES, err)) ||
        (rc = write_g1s(&w, pk->a, nv, err)) ||
        (rc = czk_binfile_write_section_header(&w, 6, (uint64_t)nv * G1_BYTES, err)) ||
        (rc = write_g1s(&w, pk->b_g1, nv, err)) ||
        (rc = czk_binfile_write_section_header(&w, 7, (uint64_t)nv * G2_BYTES, err)) ||
        (rc = write_g2s(&w, pk->b_g2, nv, err)) ||
        (rc = czk_binfile_write_section_header(&w, 8, (uint64_t)pk->n_l * G1_BYTES, err)) ||
        (rc = write_g1s(&w, pk->l, pk->n_l, err)) ||
        (rc = czk_binfile_write_section_header(&w, 9, (uint64_t)ds * G1_BYTES, err)) ||
        (rc = write_g1s(&w, pk->h, ds, err)))
        goto fail;
    /* Section 10: no ceremony, so a zero circuit hash and no contributions. */
    uint8_t cs_hash[CS_HASH_BYTES] = {0};
    if ((rc = czk_binfile_write_section_header(&w, 10, CS_HASH_BYTES + 4, err)) ||
        (rc = czk_file_writer_write(&w, cs_hash, sizeof(cs_hash), err)) ||
        (rc = czk_file_writer_u32(&w, 0, err)))
        goto fail;
    return czk_file_writer_commit(&w, err);
fail:
    czk_file_writer_abort(&w);
    return rc;
}
