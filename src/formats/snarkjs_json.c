/*
 * DESIGN: files are read whole (they are small: a vk with a million public inputs is about
 * 250 MB, well under json-c's int-sized input limit) and parsed with json-c in strict mode;
 * every value is then pulled out by a typed getter that knows its JSON path, so each error
 * says where it is. Decimal strings are converted here, not by json-c (which would go through
 * doubles or int64): a strict digit-by-digit multiply-add into limbs that stops at overflow.
 */
#include "formats/snarkjs_json.h"

#include "formats/bellperson.h"
#include "formats/snarkjs_text.h"

#include "field/fp.h"
#include "field/fp12.h"
#include "field/fp2.h"
#include "pairing/pairing.h"
#include "util/alloc.h"
#include "util/file.h"

#include <json-c/json.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#define DEC_MAX_LEN 200
#define FP_DEC_BYTES (20 * CZK_FP_LIMBS + 1)

/* ---- decimal <-> limbs ------------------------------------------------------------------ */

int czk_snarkjs_dec_to_limbs(uint64_t *out, size_t n, const char *s, size_t len) {
    if (len == 0 || len > DEC_MAX_LEN)
        return CZK_EFORMAT;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9')
            return CZK_EFORMAT;
    for (size_t k = 0; k < n; k++)
        out[k] = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned __int128 carry = (unsigned)(s[i] - '0');
        for (size_t k = 0; k < n; k++) {
            unsigned __int128 t = (unsigned __int128)out[k] * 10 + carry;
            out[k] = (uint64_t)t;
            carry = t >> 64;
        }
        if (carry != 0)
            return CZK_ERANGE;
    }
    return CZK_OK;
}

void czk_snarkjs_limbs_to_dec(char *out, const uint64_t *in, size_t n) {
    /* Peel off 19 decimal digits at a time (10^19 < 2^64) by long division. */
    const uint64_t chunk = 10000000000000000000ULL;
    uint64_t v[CZK_FP_LIMBS] = {0};
    uint64_t parts[(CZK_FP_LIMBS * 64) / 63 + 2];
    size_t np = 0;
    if (n > CZK_FP_LIMBS)
        n = CZK_FP_LIMBS;
    memcpy(v, in, n * sizeof(uint64_t));
    for (;;) {
        int zero = 1;
        for (size_t k = 0; k < n; k++)
            zero &= v[k] == 0;
        if (zero)
            break;
        unsigned __int128 rem = 0;
        for (size_t k = n; k-- > 0;) {
            unsigned __int128 cur = (rem << 64) | v[k];
            v[k] = (uint64_t)(cur / chunk);
            rem = cur % chunk;
        }
        parts[np++] = (uint64_t)rem;
    }
    if (np == 0) {
        strcpy(out, "0");
        return;
    }
    size_t o = (size_t)sprintf(out, "%llu", (unsigned long long)parts[np - 1]);
    for (size_t i = np - 1; i-- > 0;)
        o += (size_t)sprintf(out + o, "%019llu", (unsigned long long)parts[i]);
}

/* ---- reading ---------------------------------------------------------------------------- */

/* Copies at most 40 characters of an untrusted string, replacing unprintable bytes. */
static void quote(char out[48], const char *s, size_t len) {
    size_t o = 0;
    for (size_t i = 0; i < len && o < 40; i++)
        out[o++] = (s[i] >= 0x20 && s[i] < 0x7f) ? s[i] : '?';
    if (len > 40) {
        out[o++] = '.';
        out[o++] = '.';
        out[o++] = '.';
    }
    out[o] = 0;
}

static int load_json(json_object **root, const char *path, czk_err *err) {
    *root = NULL;
    uint8_t *buf = NULL;
    size_t len = 0;
    json_tokener *tok = NULL;
    int rc = czk_file_read_all(&buf, &len, path, err);
    if (rc != CZK_OK)
        return rc;
    if (len > INT_MAX) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: %zu bytes is too large for a JSON file", path, len);
        goto out;
    }
    tok = json_tokener_new();
    if (tok == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate the JSON parser", path);
        goto out;
    }
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_ALLOW_TRAILING_CHARS);
    json_object *obj = json_tokener_parse_ex(tok, (const char *)buf, (int)len);
    enum json_tokener_error je = json_tokener_get_error(tok);
    if (je != json_tokener_success) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: not valid JSON at byte %zu: %s", path,
                         json_tokener_get_parse_end(tok),
                         je == json_tokener_continue ? "unexpected end of file"
                                                     : json_tokener_error_desc(je));
        json_object_put(obj);
        goto out;
    }
    for (size_t i = json_tokener_get_parse_end(tok); i < len; i++) {
        if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n' && buf[i] != '\r') {
            rc = czk_err_set(err, CZK_EFORMAT,
                             "%s: unexpected data after the JSON value at byte %zu", path, i);
            json_object_put(obj);
            goto out;
        }
    }
    *root = obj;
    rc = CZK_OK;
out:
    if (tok != NULL)
        json_tokener_free(tok);
    czk_free(buf);
    return rc;
}

/* Checks that v is an array of n elements (any length when n is SIZE_MAX). */
static int get_array(json_object *v, size_t n, const char *path, const char *what, czk_err *err) {
    if (v == NULL || !json_object_is_type(v, json_type_array))
        return czk_err_set(err, CZK_EFORMAT, "%s: %s: expected an array", path, what);
    size_t got = json_object_array_length(v);
    if (n != SIZE_MAX && got != n)
        return czk_err_set(err, CZK_EFORMAT, "%s: %s: expected %zu elements, found %zu", path, what,
                           n, got);
    return CZK_OK;
}

/* Parses a decimal string into limbs; n limbs, range-checked by the caller. */
static int get_dec(uint64_t *limbs, size_t n, json_object *v, const char *path, const char *what,
                   const char *modulus, czk_err *err) {
    if (v == NULL || !json_object_is_type(v, json_type_string))
        return czk_err_set(err, CZK_EFORMAT, "%s: %s: expected a decimal string", path, what);
    const char *s = json_object_get_string(v);
    size_t len = (size_t)json_object_get_string_len(v);
    int rc = czk_snarkjs_dec_to_limbs(limbs, n, s, len);
    /* A long string of digits is a number, only too large: say so rather than call it
     * malformed (dec_to_limbs refuses it by length before it looks at its value). */
    if (rc == CZK_EFORMAT && len > DEC_MAX_LEN && strspn(s, "0123456789") == len)
        return czk_err_set(err, CZK_ERANGE,
                           "%s: %s: a %zu-digit number is too large: values must be below the "
                           "field modulus %s (%d digits)",
                           path, what, len, modulus, n == CZK_FR_LIMBS ? 77 : 115);
    if (rc == CZK_EFORMAT) {
        char q[48];
        quote(q, s, len);
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: %s: \"%s\" is not a non-negative decimal integer (digits only)",
                           path, what, q);
    }
    if (rc == CZK_ERANGE)
        return czk_err_set(err, CZK_ERANGE, "%s: %s: value not below %s", path, what, modulus);
    return CZK_OK;
}

static int get_fp(czk_fp *r, json_object *v, const char *path, const char *what, czk_err *err) {
    uint64_t l[CZK_FP_LIMBS];
    int rc = get_dec(l, CZK_FP_LIMBS, v, path, what, "q", err);
    if (rc == CZK_OK && czk_fp_from_limbs(r, l) != CZK_OK)
        rc = czk_err_set(err, CZK_ERANGE, "%s: %s: value not below q", path, what);
    return rc;
}

static int get_fr(czk_fr *r, json_object *v, const char *path, const char *what, czk_err *err) {
    uint64_t l[CZK_FR_LIMBS];
    int rc = get_dec(l, CZK_FR_LIMBS, v, path, what, "r", err);
    if (rc == CZK_OK && czk_fr_from_limbs(r, l) != CZK_OK)
        rc = czk_err_set(err, CZK_ERANGE, "%s: %s: value not below r", path, what);
    return rc;
}

static int get_fp2(czk_fp2 *r, json_object *v, const char *path, const char *what, czk_err *err) {
    char w[128]; /* callers' paths are under 96 bytes */
    int rc = get_array(v, 2, path, what, err);
    for (size_t i = 0; i < 2 && rc == CZK_OK; i++) {
        snprintf(w, sizeof(w), "%s[%zu]", what, i);
        rc = get_fp(i == 0 ? &r->c0 : &r->c1, json_object_array_get_idx(v, i), path, w, err);
    }
    return rc;
}

static int get_g1(czk_g1_affine *p, json_object *v, const char *path, const char *what,
                  czk_err *err) {
    char w[96];
    czk_fp c[3];
    int rc = get_array(v, 3, path, what, err);
    for (size_t i = 0; i < 3 && rc == CZK_OK; i++) {
        snprintf(w, sizeof(w), "%s[%zu]", what, i);
        rc = get_fp(&c[i], json_object_array_get_idx(v, i), path, w, err);
    }
    if (rc != CZK_OK)
        return rc;
    if (czk_fp_is_zero(&c[2])) {
        if (!czk_fp_is_zero(&c[0]) || !czk_fp_is_one(&c[1]))
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: %s: z = 0 but not the point at infinity [\"0\", \"1\", \"0\"]",
                               path, what);
        memset(p, 0, sizeof(*p));
        return CZK_OK;
    }
    if (!czk_fp_is_one(&c[2]))
        return czk_err_set(err, CZK_EFORMAT, "%s: %s: z must be \"1\" (affine) or \"0\" (infinity)",
                           path, what);
    p->x = c[0];
    p->y = c[1];
    /* (0, 0) is czk's infinity but is not on the curve; as an affine point it is invalid. */
    if (czk_g1_affine_is_infinity(p) || !czk_g1_affine_is_on_curve(p))
        return czk_err_set(err, CZK_ENOTONCURVE, "%s: %s: point not on the curve", path, what);
    if (!czk_g1_affine_is_in_group(p))
        return czk_err_set(err, CZK_ENOTINGROUP, "%s: %s: point not in the prime-order subgroup",
                           path, what);
    return CZK_OK;
}

static int get_g2(czk_g2_affine *p, json_object *v, const char *path, const char *what,
                  czk_err *err) {
    char w[96];
    czk_fp2 c[3];
    int rc = get_array(v, 3, path, what, err);
    for (size_t i = 0; i < 3 && rc == CZK_OK; i++) {
        snprintf(w, sizeof(w), "%s[%zu]", what, i);
        rc = get_fp2(&c[i], json_object_array_get_idx(v, i), path, w, err);
    }
    if (rc != CZK_OK)
        return rc;
    if (czk_fp2_is_zero(&c[2])) {
        if (!czk_fp2_is_zero(&c[0]) || !czk_fp2_is_one(&c[1]))
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: %s: z = 0 but not the point at infinity "
                               "[[\"0\",\"0\"], [\"1\",\"0\"], [\"0\",\"0\"]]",
                               path, what);
        memset(p, 0, sizeof(*p));
        return CZK_OK;
    }
    if (!czk_fp2_is_one(&c[2]))
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: %s: z must be [\"1\",\"0\"] (affine) or [\"0\",\"0\"] (infinity)",
                           path, what);
    p->x = c[0];
    p->y = c[1];
    if (czk_g2_affine_is_infinity(p) || !czk_g2_affine_is_on_curve(p))
        return czk_err_set(err, CZK_ENOTONCURVE, "%s: %s: point not on the curve", path, what);
    if (!czk_g2_affine_is_in_group(p))
        return czk_err_set(err, CZK_ENOTINGROUP, "%s: %s: point not in the prime-order subgroup",
                           path, what);
    return CZK_OK;
}

static int get_fp12(czk_fp12 *r, json_object *v, const char *path, const char *what, czk_err *err) {
    char w[96];
    czk_fp6 *c6[2] = {&r->c0, &r->c1};
    int rc = get_array(v, 2, path, what, err);
    for (size_t i = 0; i < 2 && rc == CZK_OK; i++) {
        json_object *vi = json_object_array_get_idx(v, i);
        snprintf(w, sizeof(w), "%s[%zu]", what, i);
        rc = get_array(vi, 3, path, w, err);
        czk_fp2 *c2[3] = {&c6[i]->c0, &c6[i]->c1, &c6[i]->c2};
        for (size_t j = 0; j < 3 && rc == CZK_OK; j++) {
            snprintf(w, sizeof(w), "%s[%zu][%zu]", what, i, j);
            rc = get_fp2(c2[j], json_object_array_get_idx(vi, j), path, w, err);
        }
    }
    return rc;
}

/* snarkjs's curve names: it upper-cases and keeps only letters and digits. */
static int check_curve(json_object *root, int required, const char *path, czk_err *err) {
    json_object *v = NULL;
    if (!json_object_object_get_ex(root, "curve", &v)) {
        if (required)
            return czk_err_set(err, CZK_EFORMAT, "%s: \"curve\" missing", path);
        return CZK_OK;
    }
    if (!json_object_is_type(v, json_type_string))
        return czk_err_set(err, CZK_EFORMAT, "%s: curve: expected a string", path);
    const char *s = json_object_get_string(v);
    size_t len = (size_t)json_object_get_string_len(v);
    char norm[16];
    size_t o = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (c >= 'a' && c <= 'z')
            c = (char)(c - 'a' + 'A');
        if ((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) {
            if (o + 1 >= sizeof(norm)) {
                o = 0;
                break;
            }
            norm[o++] = c;
        }
    }
    norm[o] = 0;
    if (strcmp(norm, "BLS12381") == 0)
        return CZK_OK;
    char q[48];
    quote(q, s, len);
    if (strcmp(norm, "BN128") == 0 || strcmp(norm, "BN254") == 0 || strcmp(norm, "ALTBN128") == 0)
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "%s: curve \"%s\" is bn128 (BN254); czk supports only BLS12-381", path,
                           q);
    return czk_err_set(err, CZK_EUNSUPPORTED,
                       "%s: curve \"%s\" is not supported; czk supports only bls12381", path, q);
}

static int check_protocol(json_object *root, const char *path, czk_err *err) {
    json_object *v = NULL;
    if (!json_object_object_get_ex(root, "protocol", &v))
        return CZK_OK;
    if (!json_object_is_type(v, json_type_string))
        return czk_err_set(err, CZK_EFORMAT, "%s: protocol: expected a string", path);
    if (strcmp(json_object_get_string(v), "groth16") != 0) {
        char q[48];
        quote(q, json_object_get_string(v), (size_t)json_object_get_string_len(v));
        return czk_err_set(err, CZK_EUNSUPPORTED, "%s: protocol \"%s\", only groth16 is supported",
                           path, q);
    }
    return CZK_OK;
}

static json_object *member(json_object *root, const char *key) {
    json_object *v = NULL;
    return json_object_object_get_ex(root, key, &v) ? v : NULL;
}

static int expect_object(json_object *root, const char *path, czk_err *err) {
    if (!json_object_is_type(root, json_type_object))
        return czk_err_set(err, CZK_EFORMAT, "%s: expected a JSON object at the top level", path);
    return CZK_OK;
}

/*
 * e(α, β) as snarkjs writes it. ffjavascript's final exponentiation computes the same power
 * as czk's (3·(q^12 - 1)/r, pairing.h): the vk_alphabeta_12 that snarkjs wrote in the test
 * data is czk_pairing's output bit for bit (test snarkjs_vk_json_read).
 */
static void alphabeta(czk_fp12 *out, const czk_g1_affine *alpha, const czk_g2_affine *beta) {
    czk_pairing(out, alpha, beta);
}

int czk_snarkjs_proof_read(czk_groth16_proof *proof, const char *path, czk_err *err) {
    memset(proof, 0, sizeof(*proof));
    json_object *root;
    int rc = load_json(&root, path, err);
    if (rc != CZK_OK)
        return rc;
    if ((rc = expect_object(root, path, err)) || (rc = check_protocol(root, path, err)) ||
        (rc = check_curve(root, 0, path, err)) ||
        (rc = get_g1(&proof->a, member(root, "pi_a"), path, "pi_a", err)) ||
        (rc = get_g2(&proof->b, member(root, "pi_b"), path, "pi_b", err)) ||
        (rc = get_g1(&proof->c, member(root, "pi_c"), path, "pi_c", err)))
        memset(proof, 0, sizeof(*proof));
    json_object_put(root);
    return rc;
}

int czk_snarkjs_public_read(czk_fr **inputs, size_t *n, const char *path, czk_err *err) {
    *inputs = NULL;
    *n = 0;
    json_object *root;
    czk_fr *vals = NULL;
    int rc = load_json(&root, path, err);
    if (rc != CZK_OK)
        return rc;
    rc = get_array(root, SIZE_MAX, path, "top level", err);
    if (rc != CZK_OK)
        goto out;
    size_t count = json_object_array_length(root);
    if (count > 0) {
        /* Each element took at least 3 bytes of the file, so this is bounded by its size. */
        vals = czk_malloc(count * sizeof(czk_fr));
        if (vals == NULL) {
            rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %zu inputs", path, count);
            goto out;
        }
    }
    for (size_t i = 0; i < count; i++) {
        char w[32];
        snprintf(w, sizeof(w), "[%zu]", i);
        rc = get_fr(&vals[i], json_object_array_get_idx(root, i), path, w, err);
        if (rc != CZK_OK)
            goto out;
    }
    *inputs = vals;
    *n = count;
    vals = NULL;
out:
    czk_free(vals);
    json_object_put(root);
    return rc;
}

int czk_snarkjs_vk_read(czk_groth16_vk *vk, const char *path, czk_err *err) {
    memset(vk, 0, sizeof(*vk));
    json_object *root;
    int rc = load_json(&root, path, err);
    if (rc != CZK_OK)
        return rc;
    json_object *ic = member(root, "IC");
    if ((rc = expect_object(root, path, err)) || (rc = check_protocol(root, path, err)) ||
        (rc = check_curve(root, 1, path, err)) ||
        (rc = get_g1(&vk->alpha_g1, member(root, "vk_alpha_1"), path, "vk_alpha_1", err)) ||
        (rc = get_g2(&vk->beta_g2, member(root, "vk_beta_2"), path, "vk_beta_2", err)) ||
        (rc = get_g2(&vk->gamma_g2, member(root, "vk_gamma_2"), path, "vk_gamma_2", err)) ||
        (rc = get_g2(&vk->delta_g2, member(root, "vk_delta_2"), path, "vk_delta_2", err)) ||
        (rc = get_array(ic, SIZE_MAX, path, "IC", err)))
        goto out;
    if (czk_g1_affine_is_infinity(&vk->alpha_g1) || czk_g2_affine_is_infinity(&vk->beta_g2) ||
        czk_g2_affine_is_infinity(&vk->gamma_g2) || czk_g2_affine_is_infinity(&vk->delta_g2)) {
        rc = czk_err_set(err, CZK_EFORMAT,
                         "%s: vk_alpha_1, vk_beta_2, vk_gamma_2 or vk_delta_2 is the point at "
                         "infinity",
                         path);
        goto out;
    }
    size_t n_ic = json_object_array_length(ic);
    if (n_ic == 0) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: IC is empty (needs nPublic + 1 points)", path);
        goto out;
    }
    json_object *np = member(root, "nPublic");
    if (np != NULL) {
        if (!json_object_is_type(np, json_type_int) || json_object_get_int64(np) < 0 ||
            (uint64_t)json_object_get_int64(np) != n_ic - 1) {
            rc = czk_err_set(err, CZK_EFORMAT,
                             "%s: nPublic is not the number of IC points (%zu) - 1", path, n_ic);
            goto out;
        }
    }
    vk->ic = czk_malloc(n_ic * sizeof(czk_g1_affine));
    if (vk->ic == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %zu IC points", path, n_ic);
        goto out;
    }
    vk->n_ic = n_ic;
    for (size_t i = 0; i < n_ic; i++) {
        char w[32];
        snprintf(w, sizeof(w), "IC[%zu]", i);
        rc = get_g1(&vk->ic[i], json_object_array_get_idx(ic, i), path, w, err);
        if (rc != CZK_OK)
            goto out;
    }
    json_object *ab = member(root, "vk_alphabeta_12");
    if (ab != NULL) {
        czk_fp12 got, want;
        rc = get_fp12(&got, ab, path, "vk_alphabeta_12", err);
        if (rc != CZK_OK)
            goto out;
        alphabeta(&want, &vk->alpha_g1, &vk->beta_g2);
        if (!czk_fp12_equal(&got, &want)) {
            rc = czk_err_set(err, CZK_EFORMAT,
                             "%s: vk_alphabeta_12 is not e(vk_alpha_1, vk_beta_2)", path);
            goto out;
        }
    }
    rc = CZK_OK;
out:
    if (rc != CZK_OK)
        czk_groth16_vk_clear(vk);
    json_object_put(root);
    return rc;
}

/* ---- writing ---------------------------------------------------------------------------- */

/*
 * json-c returns NULL when it cannot allocate; the builders below pass NULL up, and `push`
 * drops a NULL child and reports failure, so a whole tree comes back NULL on any failure.
 */
static json_object *push(json_object *arr, json_object *v) {
    if (arr == NULL || v == NULL || json_object_array_add(arr, v) != 0) {
        json_object_put(v);
        json_object_put(arr);
        return NULL;
    }
    return arr;
}

static json_object *str_json(const char *s) {
    return json_object_new_string(s);
}

static json_object *limbs_json(const uint64_t *l, size_t n) {
    char buf[FP_DEC_BYTES];
    czk_snarkjs_limbs_to_dec(buf, l, n);
    return str_json(buf);
}

static json_object *fp_json(const czk_fp *a) {
    uint64_t l[CZK_FP_LIMBS];
    czk_fp_to_limbs(l, a);
    return limbs_json(l, CZK_FP_LIMBS);
}

static json_object *fp2_json(const czk_fp2 *a) {
    json_object *arr = json_object_new_array();
    arr = push(arr, fp_json(&a->c0));
    return push(arr, fp_json(&a->c1));
}

static json_object *g1_json(const czk_g1_affine *p) {
    json_object *arr = json_object_new_array();
    if (czk_g1_affine_is_infinity(p)) {
        arr = push(arr, str_json("0"));
        arr = push(arr, str_json("1"));
        return push(arr, str_json("0"));
    }
    arr = push(arr, fp_json(&p->x));
    arr = push(arr, fp_json(&p->y));
    return push(arr, str_json("1"));
}

static json_object *fp2_const_json(const char *c0) {
    json_object *arr = json_object_new_array();
    arr = push(arr, str_json(c0));
    return push(arr, str_json("0"));
}

static json_object *g2_json(const czk_g2_affine *p) {
    json_object *arr = json_object_new_array();
    if (czk_g2_affine_is_infinity(p)) {
        arr = push(arr, fp2_const_json("0"));
        arr = push(arr, fp2_const_json("1"));
        return push(arr, fp2_const_json("0"));
    }
    arr = push(arr, fp2_json(&p->x));
    arr = push(arr, fp2_json(&p->y));
    return push(arr, fp2_const_json("1"));
}

static json_object *fp12_json(const czk_fp12 *a) {
    json_object *arr = json_object_new_array();
    const czk_fp6 *c6[2] = {&a->c0, &a->c1};
    for (int i = 0; i < 2; i++) {
        json_object *sub = json_object_new_array();
        sub = push(sub, fp2_json(&c6[i]->c0));
        sub = push(sub, fp2_json(&c6[i]->c1));
        sub = push(sub, fp2_json(&c6[i]->c2));
        arr = push(arr, sub);
    }
    return arr;
}

/* Adds key → v to obj; on failure frees v and returns 0. */
static int put(json_object *obj, const char *key, json_object *v) {
    if (v == NULL)
        return 0;
    if (json_object_object_add(obj, key, v) != 0) {
        json_object_put(v);
        return 0;
    }
    return 1;
}

/* Serializes root (taking ownership of it) into *text, czk_malloc'ed, with a final newline
 * and a NUL; `what` names the document in messages. */
static int json_text(char **text, size_t *text_len, const char *what, json_object *root,
                     czk_err *err) {
    *text = NULL;
    *text_len = 0;
    if (root == NULL)
        return czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate the JSON document", what);
    size_t len = 0;
    const char *s = json_object_to_json_string_length(
        root, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE, &len);
    int rc = CZK_OK;
    if (s == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot serialize the JSON document", what);
    } else if ((*text = czk_malloc(len + 2)) == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %zu bytes", what, len + 2);
    } else {
        memcpy(*text, s, len);
        (*text)[len] = '\n';
        (*text)[len + 1] = '\0';
        *text_len = len + 1;
    }
    json_object_put(root);
    return rc;
}

/* Serializes root (taking ownership of it) and writes it with a final newline. */
static int write_json(const char *path, json_object *root, czk_err *err) {
    char *buf = NULL;
    size_t len = 0;
    int rc = json_text(&buf, &len, path, root, err);
    if (rc == CZK_OK)
        rc = czk_file_write_atomic(path, buf, len, err);
    czk_free(buf);
    return rc;
}

static json_object *proof_doc(const czk_groth16_proof *proof) {
    json_object *root = json_object_new_object();
    if (root != NULL &&
        !(put(root, "pi_a", g1_json(&proof->a)) && put(root, "pi_b", g2_json(&proof->b)) &&
          put(root, "pi_c", g1_json(&proof->c)) && put(root, "protocol", str_json("groth16")) &&
          put(root, "curve", str_json("bls12381")))) {
        json_object_put(root);
        root = NULL;
    }
    return root;
}

static json_object *public_doc(const czk_fr *inputs, size_t n) {
    json_object *root = json_object_new_array();
    for (size_t i = 0; i < n && root != NULL; i++) {
        uint64_t l[CZK_FR_LIMBS];
        czk_fr_to_limbs(l, &inputs[i]);
        root = push(root, limbs_json(l, CZK_FR_LIMBS));
    }
    return root;
}

int czk_snarkjs_proof_write(const char *path, const czk_groth16_proof *proof, czk_err *err) {
    return write_json(path, proof_doc(proof), err);
}

int czk_snarkjs_public_write(const char *path, const czk_fr *inputs, size_t n, czk_err *err) {
    return write_json(path, public_doc(inputs, n), err);
}

int czk_snarkjs_proof_json(char **text, size_t *len, const czk_groth16_proof *proof, czk_err *err) {
    return json_text(text, len, "proof.json", proof_doc(proof), err);
}

int czk_snarkjs_public_json(char **text, size_t *len, const czk_fr *inputs, size_t n,
                            czk_err *err) {
    return json_text(text, len, "public.json", public_doc(inputs, n), err);
}

int czk_snarkjs_vk_write(const char *path, const czk_groth16_vk *vk, czk_err *err) {
    if (vk->n_ic == 0 || vk->ic == NULL || vk->n_ic - 1 > INT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "%s: verifying key has %zu IC points", path, vk->n_ic);
    czk_fp12 ab;
    alphabeta(&ab, &vk->alpha_g1, &vk->beta_g2);
    json_object *ic = json_object_new_array();
    for (size_t i = 0; i < vk->n_ic && ic != NULL; i++)
        ic = push(ic, g1_json(&vk->ic[i]));
    json_object *root = json_object_new_object();
    int ok = root != NULL && put(root, "protocol", str_json("groth16")) &&
             put(root, "curve", str_json("bls12381")) &&
             put(root, "nPublic", json_object_new_int((int32_t)(vk->n_ic - 1))) &&
             put(root, "vk_alpha_1", g1_json(&vk->alpha_g1)) &&
             put(root, "vk_beta_2", g2_json(&vk->beta_g2)) &&
             put(root, "vk_gamma_2", g2_json(&vk->gamma_g2)) &&
             put(root, "vk_delta_2", g2_json(&vk->delta_g2)) &&
             put(root, "vk_alphabeta_12", fp12_json(&ab));
    if (ok) {
        ok = put(root, "IC", ic); /* root owns ic now, or put freed it */
        ic = NULL;
    }
    json_object_put(ic);
    if (!ok) {
        json_object_put(root);
        root = NULL;
    }
    return write_json(path, root, err);
}

int czk_snarkjs_texts_from_bellperson(char **proof_json, char **public_json, const uint8_t *proof,
                                      const uint8_t *public_le, size_t n_public, czk_err *err) {
    *proof_json = NULL;
    *public_json = NULL;
    czk_groth16_proof p;
    czk_fr *inputs = NULL;
    size_t len = 0;
    int rc = czk_bellperson_proof_decode(&p, proof, err);
    if (rc == CZK_OK && n_public > 0 && (inputs = czk_malloc(n_public * sizeof *inputs)) == NULL)
        rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate %zu public inputs", n_public);
    for (size_t i = 0; rc == CZK_OK && i < n_public; i++)
        if ((rc = czk_fr_from_bytes_le(&inputs[i], public_le + i * CZK_FR_BYTES)) != CZK_OK)
            rc = czk_err_set(err, rc, "public input %zu is not below r", i);
    if (rc == CZK_OK)
        rc = czk_snarkjs_proof_json(proof_json, &len, &p, err);
    if (rc == CZK_OK)
        rc = czk_snarkjs_public_json(public_json, &len, inputs, n_public, err);
    if (rc != CZK_OK) {
        czk_free(*proof_json);
        *proof_json = NULL;
    }
    czk_free(inputs);
    return rc;
}
