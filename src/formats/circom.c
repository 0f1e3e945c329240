/*
 * DESIGN: both readers map the file, parse the binfile container (which bounds every section
 * by the file size), then check each count against its section's size before allocating, so
 * the largest allocation is a small multiple of the file size. The .r1cs constraints section
 * is walked twice: once to validate the term counts and size the CSR arrays, once to fill
 * them. Coefficients arrive in normal form and are converted to Montgomery form here, so the
 * rest of czk never sees circom's representation.
 */
#include "formats/circom.h"

#include "field/fp.h"
#include "formats/binfile.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/file.h"
#include "util/memclear.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* bn128 (BN254) r and q, little-endian limbs: only to name the curve in error messages. */
static const uint64_t BN128_R[4] = {0x43e1f593f0000001ULL, 0x2833e84879b97091ULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};
static const uint64_t BN128_Q[4] = {0x3c208c16d87cfd47ULL, 0x97816a916871ca8dULL,
                                    0xb85045b68181585dULL, 0x30644e72e131a029ULL};

/* 1 if the n8 little-endian bytes p equal the n64-limb value v. */
static int bytes_equal_limbs(const uint8_t *p, uint32_t n8, const uint64_t *v, size_t n64) {
    if (n8 != 8 * n64)
        return 0;
    for (size_t i = 0; i < n64; i++)
        if (czk_bytes_load_le64(p + 8 * i) != v[i])
            return 0;
    return 1;
}

int czk__circom_check_prime(const char *name, const char *what, const uint8_t *p, uint32_t n8,
                            czk__circom_prime which, czk_err *err) {
    if (which == CZK__PRIME_R && bytes_equal_limbs(p, n8, CZK_FR_MODULUS, CZK_FR_LIMBS))
        return CZK_OK;
    if (which == CZK__PRIME_Q && bytes_equal_limbs(p, n8, CZK_FP_MODULUS, CZK_FP_LIMBS))
        return CZK_OK;
    if (bytes_equal_limbs(p, n8, BN128_R, 4) || bytes_equal_limbs(p, n8, BN128_Q, 4))
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "%s: %s is the bn128 (BN254) prime; czk supports only BLS12-381 "
                           "(circom --prime bls12381, snarkjs ... bls12381)",
                           name, what);
    if ((which == CZK__PRIME_R && bytes_equal_limbs(p, n8, CZK_FP_MODULUS, CZK_FP_LIMBS)) ||
        (which == CZK__PRIME_Q && bytes_equal_limbs(p, n8, CZK_FR_MODULUS, CZK_FR_LIMBS)))
        return czk_err_set(err, CZK_EFORMAT, "%s: %s is BLS12-381's %s, expected its %s", name,
                           what, which == CZK__PRIME_R ? "q" : "r",
                           which == CZK__PRIME_R ? "r" : "q");
    return czk_err_set(err, CZK_EUNSUPPORTED,
                       "%s: %s (%u bytes) is not BLS12-381's %s; czk supports only BLS12-381", name,
                       what, n8, which == CZK__PRIME_R ? "r" : "q");
}

typedef struct term {
    uint32_t col;
    czk_fr val;
} term;

static int term_cmp(const void *a, const void *b) {
    uint32_t x = ((const term *)a)->col, y = ((const term *)b)->col;
    return (x > y) - (x < y);
}

int czk__r1cs_matrix_normalize(czk_r1cs_matrix *m, size_t n_rows) {
    if (m->row_ptr == NULL)
        return CZK_OK;
    /* The scratch is sized for the longest row that needs work, found first, so that the
     * common case (circom's already-sorted rows) allocates nothing. */
    size_t longest = 0;
    for (size_t r = 0; r < n_rows; r++) {
        uint64_t b = m->row_ptr[r], e = m->row_ptr[r + 1];
        for (uint64_t k = b + 1; k < e; k++) {
            if (m->cols[k] <= m->cols[k - 1]) {
                if (e - b > longest)
                    longest = (size_t)(e - b);
                break;
            }
        }
    }
    if (longest == 0)
        return CZK_OK;
    term *tmp = czk_malloc(longest * sizeof(term));
    if (tmp == NULL)
        return CZK_ENOMEM;
    uint64_t out = 0;
    for (size_t r = 0; r < n_rows; r++) {
        uint64_t b = m->row_ptr[r], e = m->row_ptr[r + 1];
        m->row_ptr[r] = out;
        int sorted = 1;
        for (uint64_t k = b + 1; k < e; k++)
            if (m->cols[k] <= m->cols[k - 1])
                sorted = 0;
        if (sorted) {
            for (uint64_t k = b; k < e; k++, out++) {
                m->cols[out] = m->cols[k];
                m->vals[out] = m->vals[k];
            }
            continue;
        }
        size_t n = (size_t)(e - b);
        for (size_t k = 0; k < n; k++) {
            tmp[k].col = m->cols[b + k];
            tmp[k].val = m->vals[b + k];
        }
        qsort(tmp, n, sizeof(term), term_cmp);
        for (size_t k = 0; k < n; k++) {
            if (k > 0 && tmp[k].col == m->cols[out - 1]) {
                czk_fr_add(&m->vals[out - 1], &m->vals[out - 1], &tmp[k].val);
            } else {
                m->cols[out] = tmp[k].col;
                m->vals[out] = tmp[k].val;
                out++;
            }
        }
    }
    m->row_ptr[n_rows] = out;
    czk_free(tmp);
    return CZK_OK;
}

/* ---- .r1cs ---------------------------------------------------------------------------- */

#define R1CS_HEADER_BYTES (4 + 32 + 4 * 4 + 8 + 4)
#define R1CS_TERM_BYTES (4 + 32)

/*
 * Section 1 of an .r1cs or .wtns opens with a u32 size and the field's prime. Checked before any
 * other field, so that a file for another curve (bn128) says so instead of failing on a size.
 */
static int check_header_prime(const czk_binfile *bf, const char *path,
                              const czk_binfile_section **hdr, czk_err *err) {
    int rc = czk_binfile_section_get(bf, 1, UINT64_MAX, NULL, hdr, err);
    if (rc != CZK_OK)
        return rc;
    if ((*hdr)->size < 4)
        return czk_err_set(err, CZK_EFORMAT, "%s: section 1 (header) size %llu < 4", path,
                           (unsigned long long)(*hdr)->size);
    uint32_t n8 = czk_bytes_load_le32((*hdr)->data);
    if ((*hdr)->size - 4 < n8)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: section 1 (header) size %llu cannot hold its %u-byte prime", path,
                           (unsigned long long)(*hdr)->size, n8);
    return czk__circom_check_prime(path, "header prime", (*hdr)->data + 4, n8, CZK__PRIME_R, err);
}

static const char MATRIX_NAME[3] = {'A', 'B', 'C'};

int czk_circom_r1cs_read(czk_r1cs *cs, const char *path, czk_err *err) {
    memset(cs, 0, sizeof(*cs));
    czk_file_mapping map;
    int rc = czk_file_map(&map, path, err);
    if (rc != CZK_OK)
        return rc;
    czk_binfile bf;
    const czk_binfile_section *hdr, *cons;
    rc = czk_binfile_parse(&bf, map.data, map.len, path, "r1cs", 1, 5, err);
    if (rc != CZK_OK)
        goto out;
    if (bf.sec[4].present || bf.sec[5].present) {
        rc = czk_err_set(err, CZK_EUNSUPPORTED,
                         "%s: has custom gates (sections 4/5), which only PLONK supports", path);
        goto out;
    }
    rc = check_header_prime(&bf, path, &hdr, err);
    if (rc != CZK_OK)
        goto out;
    rc = czk_binfile_section_get(&bf, 1, R1CS_HEADER_BYTES, "the 64-byte BLS12-381 header", &hdr,
                                 err);
    if (rc != CZK_OK)
        goto out;
    const uint8_t *h = hdr->data + 36;
    uint32_t n_wires = czk_bytes_load_le32(h), n_pub_out = czk_bytes_load_le32(h + 4);
    uint32_t n_pub_in = czk_bytes_load_le32(h + 8), n_prv_in = czk_bytes_load_le32(h + 12);
    uint32_t n_cons = czk_bytes_load_le32(h + 24);
    if (n_wires == 0 || 1 + (uint64_t)n_pub_out + n_pub_in + n_prv_in > n_wires) {
        rc = czk_err_set(err, CZK_EFORMAT,
                         "%s: nWires %u cannot hold ONE + %u outputs + %u public + %u private "
                         "inputs",
                         path, n_wires, n_pub_out, n_pub_in, n_prv_in);
        goto out;
    }
    if (bf.sec[3].present && bf.sec[3].size != (uint64_t)n_wires * 8) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: section 3 size %llu != nWires*8 (%llu)", path,
                         (unsigned long long)bf.sec[3].size, (unsigned long long)n_wires * 8);
        goto out;
    }
    rc = czk_binfile_section_get(&bf, 2, UINT64_MAX, NULL, &cons, err);
    if (rc != CZK_OK)
        goto out;

    /* Pass 1: validate the term counts against the bytes present and count terms. */
    uint64_t count[3] = {0, 0, 0};
    uint64_t pos = 0, size = cons->size;
    const uint8_t *d = cons->data;
    for (uint32_t c = 0; c < n_cons; c++) {
        for (int mtx = 0; mtx < 3; mtx++) {
            if (size - pos < 4) {
                rc = czk_err_set(err, CZK_EFORMAT,
                                 "%s: section 2 ends inside constraint %u of %u (matrix %c count "
                                 "at byte %llu; truncated?)",
                                 path, c, n_cons, MATRIX_NAME[mtx], (unsigned long long)pos);
                goto out;
            }
            uint32_t n = czk_bytes_load_le32(d + pos);
            pos += 4;
            if (n > (size - pos) / R1CS_TERM_BYTES) {
                rc = czk_err_set(err, CZK_EFORMAT,
                                 "%s: constraint %u matrix %c has %u terms but section 2 has "
                                 "only %llu bytes left",
                                 path, c, MATRIX_NAME[mtx], n, (unsigned long long)(size - pos));
                goto out;
            }
            pos += (uint64_t)n * R1CS_TERM_BYTES;
            count[mtx] += n;
        }
    }
    if (pos != size) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: section 2 has %llu bytes after constraint %u", path,
                         (unsigned long long)(size - pos), n_cons);
        goto out;
    }

    /* Every size below is bounded by the section size already checked. */
    cs->n_constraints = n_cons;
    cs->n_vars = n_wires;
    cs->n_public = (size_t)n_pub_out + n_pub_in;
    czk_r1cs_matrix *ms[3] = {&cs->a, &cs->b, &cs->c};
    for (int mtx = 0; mtx < 3; mtx++) {
        ms[mtx]->row_ptr = czk_malloc(((size_t)n_cons + 1) * sizeof(uint64_t));
        /* czk_malloc(0) is NULL: keep the arrays non-NULL so that an empty matrix is present. */
        size_t nt = count[mtx] > 0 ? (size_t)count[mtx] : 1;
        ms[mtx]->cols = czk_malloc(nt * sizeof(uint32_t));
        ms[mtx]->vals = czk_malloc(nt * sizeof(czk_fr));
        if (ms[mtx]->row_ptr == NULL || ms[mtx]->cols == NULL || ms[mtx]->vals == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %llu terms of matrix %c", path,
                             (unsigned long long)count[mtx], MATRIX_NAME[mtx]);
            goto out;
        }
        ms[mtx]->row_ptr[0] = 0;
    }

    /* Pass 2: fill, checking wire ids and coefficients. */
    uint64_t fill[3] = {0, 0, 0};
    pos = 0;
    for (uint32_t c = 0; c < n_cons; c++) {
        for (int mtx = 0; mtx < 3; mtx++) {
            uint32_t n = czk_bytes_load_le32(d + pos);
            pos += 4;
            czk_r1cs_matrix *m = ms[mtx];
            for (uint32_t k = 0; k < n; k++, pos += R1CS_TERM_BYTES) {
                uint32_t wire = czk_bytes_load_le32(d + pos);
                if (wire >= n_wires) {
                    rc = czk_err_set(err, CZK_EFORMAT,
                                     "%s: constraint %u matrix %c term %u: wire %u >= nWires %u",
                                     path, c, MATRIX_NAME[mtx], k, wire, n_wires);
                    goto out;
                }
                if (czk_fr_from_bytes_le(&m->vals[fill[mtx]], d + pos + 4) != CZK_OK) {
                    rc = czk_err_set(err, CZK_EFORMAT,
                                     "%s: constraint %u matrix %c term %u: coefficient not below r",
                                     path, c, MATRIX_NAME[mtx], k);
                    goto out;
                }
                m->cols[fill[mtx]++] = wire;
            }
            m->row_ptr[c + 1] = fill[mtx];
        }
    }
    for (int mtx = 0; mtx < 3; mtx++) {
        if (czk__r1cs_matrix_normalize(ms[mtx], n_cons) != CZK_OK) {
            rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate scratch to sort matrix %c", path,
                             MATRIX_NAME[mtx]);
            goto out;
        }
    }
    rc = CZK_OK;
out:
    if (rc != CZK_OK)
        czk_r1cs_clear(cs);
    czk_file_unmap(&map);
    return rc;
}

/* ---- .wtns ---------------------------------------------------------------------------- */

/*
 * The header of a .wtns image: the container, the prime (before any size, so that a bn128
 * witness says so), section 1 of exactly n8 + prime + nWitness, nWitness > 0 and section 2 of
 * exactly nWitness values. Out: *count and *values (section 2, inside img).
 */
static int wtns_header(size_t *count, const uint8_t **values, const uint8_t *img, size_t len,
                       const char *name, czk_err *err) {
    czk_binfile bf;
    const czk_binfile_section *hdr, *data;
    int rc = czk_binfile_parse(&bf, img, len, name, "wtns", 2, 2, err);
    if (rc != CZK_OK)
        return rc;
    rc = check_header_prime(&bf, name, &hdr, err);
    if (rc != CZK_OK)
        return rc;
    /* The prime matched r, so n8 is 32 and the header is exactly 40 bytes. */
    rc = czk_binfile_section_get(&bf, 1, 4 + 32 + 4, "n8 + prime + nWitness (40)", &hdr, err);
    if (rc != CZK_OK)
        return rc;
    uint32_t n_witness = czk_bytes_load_le32(hdr->data + 36);
    if (n_witness == 0)
        return czk_err_set(err, CZK_EFORMAT, "%s: nWitness is 0 (w[0] = 1 must be present)", name);
    rc = czk_binfile_section_get(&bf, 2, (uint64_t)n_witness * 32, "nWitness*32", &data, err);
    if (rc != CZK_OK)
        return rc;
    *count = n_witness;
    *values = data->data;
    return CZK_OK;
}

int czk_circom_wtns_count(size_t *n, const uint8_t *img, size_t len, const char *name,
                          czk_err *err) {
    const uint8_t *values;
    *n = 0;
    return wtns_header(n, &values, img, len, name, err);
}

int czk_circom_wtns_parse(czk_fr *w, size_t n_vars, const uint8_t *img, size_t len,
                          const char *name, czk_err *err) {
    size_t count = 0;
    const uint8_t *values = NULL;
    int rc = wtns_header(&count, &values, img, len, name, err);
    if (rc != CZK_OK)
        return rc;
    if (count != n_vars)
        return czk_err_set(err, CZK_EINVAL, "%s: %zu witness values, the circuit has %zu variables",
                           name, count, n_vars);
    for (size_t i = 0; i < count; i++) {
        if (czk_fr_from_bytes_le(&w[i], values + 32 * i) != CZK_OK) {
            rc = czk_err_set(err, CZK_EFORMAT, "%s: witness value %zu is not below r", name, i);
            break;
        }
    }
    if (rc == CZK_OK && !czk_fr_is_one(&w[0]))
        rc = czk_err_set(err, CZK_EFORMAT, "%s: w[0] is not 1 (the constant ONE)", name);
    if (rc != CZK_OK) /* the values read so far are secret */
        czk_memclear_explicit(w, count * sizeof(czk_fr));
    return rc;
}

int czk_circom_wtns_read(czk_fr **w, size_t *n, const char *path, czk_err *err) {
    *w = NULL;
    *n = 0;
    czk_file_mapping map;
    int rc = czk_file_map(&map, path, err);
    if (rc != CZK_OK)
        return rc;
    size_t count = 0;
    czk_fr *vals = NULL;
    rc = czk_circom_wtns_count(&count, map.data, map.len, path, err);
    if (rc == CZK_OK) {
        vals = czk_malloc(count * sizeof(czk_fr));
        if (vals == NULL)
            rc =
                czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %zu witness values", path, count);
    }
    if (rc == CZK_OK)
        rc = czk_circom_wtns_parse(vals, count, map.data, map.len, path, err);
    czk_file_unmap(&map);
    if (rc != CZK_OK) {
        czk_free(vals); /* parse cleared it */
        return rc;
    }
    *w = vals;
    *n = count;
    return CZK_OK;
}

int czk_circom_wtns_write(const char *path, const czk_fr *w, size_t n, czk_err *err) {
    if (n == 0 || n >= (1ULL << 32))
        return czk_err_set(err, CZK_EINVAL, "%s: cannot write a witness of %zu values", path, n);
    czk_file_writer fw;
    int rc = czk_file_writer_open(&fw, path, err);
    if (rc != CZK_OK)
        return rc;
    uint8_t r_le[CZK_FR_BYTES];
    for (size_t i = 0; i < CZK_FR_LIMBS; i++)
        czk_bytes_store_le64(r_le + 8 * i, CZK_FR_MODULUS[i]);
    if ((rc = czk_file_writer_write(&fw, "wtns", 4, err)) != CZK_OK ||
        (rc = czk_file_writer_u32(&fw, 2, err)) != CZK_OK ||
        (rc = czk_file_writer_u32(&fw, 2, err)) != CZK_OK ||
        (rc = czk_file_writer_u32(&fw, 1, err)) != CZK_OK ||
        (rc = czk_file_writer_u64(&fw, 4 + CZK_FR_BYTES + 4, err)) != CZK_OK ||
        (rc = czk_file_writer_u32(&fw, CZK_FR_BYTES, err)) != CZK_OK ||
        (rc = czk_file_writer_write(&fw, r_le, sizeof(r_le), err)) != CZK_OK ||
        (rc = czk_file_writer_u32(&fw, (uint32_t)n, err)) != CZK_OK ||
        (rc = czk_file_writer_u32(&fw, 2, err)) != CZK_OK ||
        (rc = czk_file_writer_u64(&fw, (uint64_t)n * CZK_FR_BYTES, err)) != CZK_OK)
        goto out;
    for (size_t i = 0; i < n; i++) {
        uint8_t v[CZK_FR_BYTES];
        czk_fr_to_bytes_le(v, &w[i]);
        if ((rc = czk_file_writer_write(&fw, v, sizeof(v), err)) != CZK_OK)
            goto out;
    }
    rc = czk_file_writer_commit(&fw, err);
out:
    if (rc != CZK_OK)
        czk_file_writer_abort(&fw);
    return rc;
}

int czk_formats_r1cs_read(czk_r1cs *cs, const char *path, czk_pool *pool, czk_err *err) {
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return czk_err_set(err, CZK_EIO, "%s: cannot open: %s", path, strerror(errno));
    char magic[8] = {0};
    size_t got = fread(magic, 1, sizeof(magic), f);
    fclose(f);
    if (got >= 4 && memcmp(magic, "r1cs", 4) == 0)
        return czk_circom_r1cs_read(cs, path, err);
    if (got == 8 && memcmp(magic, "CZKR1CS", 8) == 0)
        return czk_r1cs_load_ex(cs, path, 0, pool, err);
    return czk_err_set(err, CZK_EFORMAT,
                       "%s: neither a circom .r1cs nor a czk R1CS file (bad magic bytes)", path);
}
