/*
 * DESIGN: the C1 output's JSON (contract in c1.h).
 *
 * The parser is a strict recursive descent over the bytes, driven by the schema: every object
 * parser knows its keys, every array parser its length (from the registered proof's shape),
 * and values go straight into the caller's czk_c1. There is no intermediate tree. json-c would
 * build one object per integer, about 10 million of them for a 38 MB 32 GiB C1 (about 800 MB
 * of small allocations, below), to fill 26 MB of structs; it would also take duplicate
 * keys, fractions and out-of-range integers, which serde refuses. The parser carries the JSON
 * path of the value it is reading, so that every message names it.
 *
 * Key order is free at every level. The one ordering dependency, that vanilla_proofs' shape
 * comes from registered_proof, is met by skipping vanilla_proofs when it comes first and
 * parsing it again once the type is known. Nesting is bounded by the schema; the skipper, the
 * only generic walker, stops at SKIP_DEPTH. The allocations are the proof array, sized by the
 * type once its name is read (never by a count in the input), and, for Curio's wrapper, the
 * decoded Phase1Out (3/4 of the input's size). The input's size is checked against the type
 * once its name is read: at most WS_FACTOR times the longest compact JSON of that type (serde's
 * 2-space pretty-print of a random 2 KiB output is 8.6 times its compact form and 6.9 times
 * that bound). A random 32 GiB output (38.7 MB) parses at 175-365 MB/s and writes at
 * 155-195 MB/s (best of four, c1_roundtrip_32g, on a 2-core VM shared with builds; first-touch
 * page faults on the 26 MB of proof structs and the output buffer are a large part of it).
 * json-c took 5.2 s and 807 MB of RSS for a 37.5 MB JSON of the same shape on that VM.
 *
 * Serde layout (rust-fil-proofs storage-proofs-core/src/merkle/proof.rs, storage-proofs-porep
 * stacked/vanilla/{params,column_proof,column,labeling_proof,encoding_proof}.rs,
 * rust-filecoin-proofs-api src/seal.rs): structs are objects with their fields in declaration
 * order, enums externally tagged ({"Variant": value}), [u8; 32] and Fr reprs arrays of 32
 * integers, Column's PhantomData `_h` a null (it is not skipped, so serde requires it), and
 * LabelingProof/EncodingProof's `_h` absent (#[serde(skip)]). Curio's Go types
 * (lib/proof/porep_vproof_types.go, merkle.go) write the same inner orders and put the
 * top-level keys in another.
 *
 * The writer (c1_write.c) emits in one pass into a buffer of the compact bound, which no valid
 * output exceeds (it would grow if one did).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * rust-filecoin-proofs-api@0e64ce8d, curio@e0294b0f (2026-08-20).
 */
#include "filecoin/io/c1.h"
#include "filecoin/io/c1_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"
#include "util/file.h"

#define PATH_CAP 320  /* the deepest schema path is about 140 characters */
#define KEY_CAP 64    /* longer keys are unknown anyway */
#define SKIP_DEPTH 64 /* the schema nests 17 levels deep */
#define WS_FACTOR 16  /* room for whitespace over the compact size */
#define NO_INDEX ((size_t)-1)

/* ---- shapes -------------------------------------------------------------------------------- */

mshape czk__c1_comm_d_shape(const czk_porep_type *t) {
    mshape s = {CZK_VANILLA_SINGLE, {t->comm_d_levels, 0, 0}, {2, 0, 0}};
    return s;
}

mshape czk__c1_tree_shape(const czk_porep_type *t) {
    const czk_vanilla_shape *v = &t->tree;
    mshape s = {v->variant,
                {v->base_levels, v->sub_arity != 0, v->top_arity != 0},
                {8, v->sub_arity, v->top_arity}};
    return s;
}

static void merkle_set_shape(czk_c1_merkle *m, const mshape *s) {
    m->variant = s->variant;
    m->n_base = s->n[0];
    m->n_sub = s->n[1];
    m->n_top = s->n[2];
    m->n_levels = s->n[0] + s->n[1] + s->n[2];
    uint32_t l = 0;
    for (int part = 0; part < 3; part++)
        for (uint32_t j = 0; j < s->n[part]; j++)
            m->level[l++].arity = s->arity[part];
}

void czk_c1_proof_set_shape(czk_c1_proof *p, const czk_porep_type *type) {
    mshape d = czk__c1_comm_d_shape(type), t = czk__c1_tree_shape(type);
    merkle_set_shape(&p->comm_d_proof, &d);
    merkle_set_shape(&p->comm_r_last_proof, &t);
    czk_c1_column *cols[1 + CZK_POREP_DRG_PARENTS + CZK_POREP_EXP_PARENTS];
    size_t nc = 0;
    cols[nc++] = &p->c_x;
    for (size_t j = 0; j < CZK_POREP_DRG_PARENTS; j++)
        cols[nc++] = &p->drg_parents[j];
    for (size_t j = 0; j < CZK_POREP_EXP_PARENTS; j++)
        cols[nc++] = &p->exp_parents[j];
    for (size_t j = 0; j < nc; j++) {
        cols[j]->n_rows = type->layers;
        merkle_set_shape(&cols[j]->inclusion, &t);
    }
    p->n_labeling = type->layers;
    for (uint32_t l = 0; l < type->layers; l++)
        p->labeling[l].layer_index = l + 1;
    p->encoding.layer_index = type->layers;
}

uint64_t czk_c1_merkle_node(const czk_c1_merkle *m) {
    uint64_t v = 0;
    uint32_t n = m->n_levels < CZK_C1_MAX_LEVELS ? m->n_levels : CZK_C1_MAX_LEVELS;
    for (uint32_t l = n; l-- > 0;)
        v = v * m->level[l].arity + m->level[l].index;
    return v;
}

/* An upper bound on the compact JSON of one C1 output of `t`: every byte three digits, every
 * integer at its widest. A 32-byte value and its comma are at most 130 characters; a path
 * element adds at most 32 around its hashes; everything else (keys, column indices, nodes) is
 * under 5 KiB a challenge. The writer sizes its buffer with it. */
uint64_t czk__c1_compact_bound(const czk_porep_type *t) {
    mshape d = czk__c1_comm_d_shape(t), s = czk__c1_tree_shape(t);
    uint64_t tree_levels = (uint64_t)s.n[0] + s.n[1] + s.n[2];
    uint64_t tree_hashes = 0;
    for (int part = 0; part < 3; part++)
        tree_hashes += (uint64_t)s.n[part] * (s.arity[part] > 0 ? s.arity[part] - 1 : 0);
    uint64_t columns = 1 + CZK_POREP_DRG_PARENTS + CZK_POREP_EXP_PARENTS;
    uint64_t values = (d.n[0] + 2) + (tree_hashes + 2) + columns * (t->layers + tree_hashes + 2) +
                      (uint64_t)(t->layers + 1) * CZK_POREP_PARENTS;
    uint64_t levels = d.n[0] + (1 + columns) * tree_levels;
    uint64_t per_challenge = values * 130 + levels * 32 + 8192;
    return (uint64_t)t->partitions * t->challenges * per_challenge + 4096;
}

static uint64_t input_limit(const czk_porep_type *t) {
    return WS_FACTOR * czk__c1_compact_bound(t) + (1u << 20);
}

/* The largest input any type allows, with Curio's wrapper around it (base64: 4/3). */
static uint64_t input_limit_any(void) {
    uint64_t m = 0;
    for (uint64_t id = 0; id < CZK_POREP_N_TYPES; id++) {
        const czk_porep_type *t = czk_porep_type_from_abi(id, NULL);
        if (t != NULL && input_limit(t) > m)
            m = input_limit(t);
    }
    return m / 3 * 4 + 4096;
}

/* ---- init and clear ------------------------------------------------------------------------ */

/* The proof array of `type` (zeroed), its type and counts; the rest of c1 is untouched. */
static int c1_alloc(czk_c1 *c1, const czk_porep_type *type, czk_err *err) {
    size_t n = (size_t)type->partitions * type->challenges;
    c1->proofs = czk_calloc(n, sizeof(czk_c1_proof));
    if (c1->proofs == NULL)
        return czk_err_set(err, CZK_ENOMEM, "C1 output of %s: no memory for %zu challenge proofs",
                           type->name, n);
    c1->type = type;
    c1->n_partitions = type->partitions;
    c1->n_challenges = type->challenges;
    return CZK_OK;
}

int czk_c1_init(czk_c1 *c1, const czk_porep_type *type, czk_err *err) {
    memset(c1, 0, sizeof(*c1));
    if (type == NULL)
        return czk_err_set(err, CZK_EINVAL, "C1 output: no registered seal proof");
    return c1_alloc(c1, type, err);
}

void czk_c1_clear(czk_c1 *c1) {
    if (c1 == NULL)
        return;
    czk_free(c1->proofs);
    memset(c1, 0, sizeof(*c1));
}

/* ---- the cursor, the path and errors -------------------------------------------------------- */

typedef struct jp {
    const uint8_t *s;
    size_t n, i;
    const char *what;   /* the input's name */
    const char *prefix; /* "" or "Phase1Out: " */
    czk_err *err;
    size_t plen;
    char path[PATH_CAP];
} jp;

/* Fails with "<what>: <prefix><path>: <detail>". */
static int jp_fail(jp *p, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int jp_fail(jp *p, int code, const char *fmt, ...) {
    char detail[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return czk_err_set(p->err, code, "%s: %s%s: %s", czk_file_msg_path(p->what), p->prefix,
                       p->plen > 0 ? p->path : "(top level)", detail);
}

static size_t path_push(jp *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static size_t path_push(jp *p, const char *fmt, ...) {
    size_t old = p->plen;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(p->path + old, PATH_CAP - old, fmt, ap);
    va_end(ap);
    p->plen = (w < 0 || (size_t)w >= PATH_CAP - old) ? PATH_CAP - 1 : old + (size_t)w;
    return old;
}

static size_t path_key(jp *p, const char *key) {
    return path_push(p, p->plen > 0 ? ".%s" : "%s", key);
}

static size_t path_idx(jp *p, size_t i) {
    return path_push(p, "[%zu]", i);
}

static void path_pop(jp *p, size_t old) {
    p->plen = old;
    p->path[old] = '\0';
}

static int is_digit(uint8_t c) {
    return c >= '0' && c <= '9';
}

static void ws(jp *p) {
    while (p->i < p->n) {
        uint8_t c = p->s[p->i];
        if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
            break;
        p->i++;
    }
}

static int peek(jp *p) {
    ws(p);
    return p->i < p->n ? p->s[p->i] : -1;
}

static int starts(const jp *p, const char *lit) {
    size_t n = strlen(lit);
    return p->n - p->i >= n && memcmp(p->s + p->i, lit, n) == 0;
}

/* What the cursor is at, for messages. */
static const char *found(const jp *p, char buf[24]) {
    if (p->i >= p->n)
        return "the end of the input";
    uint8_t c = p->s[p->i];
    if (c == '{')
        return "an object";
    if (c == '[')
        return "an array";
    if (c == '"')
        return "a string";
    if (c == '-' || is_digit(c))
        return "a number";
    size_t left = p->n - p->i;
    if ((c == 'n' && left < 4 && memcmp(p->s + p->i, "null", left) == 0) ||
        (c == 't' && left < 4 && memcmp(p->s + p->i, "true", left) == 0) ||
        (c == 'f' && left < 5 && memcmp(p->s + p->i, "false", left) == 0))
        return "a literal cut by the end of the input";
    if (starts(p, "null"))
        return "null";
    if (starts(p, "true") || starts(p, "false"))
        return "a boolean";
    if (c >= 0x21 && c < 0x7f)
        snprintf(buf, 24, "'%c'", c);
    else
        snprintf(buf, 24, "byte 0x%02x", c);
    return buf;
}

/* A value of the wrong kind. */
static int type_fail(jp *p, const char *want) {
    char b[24];
    return jp_fail(p, CZK_EFORMAT, "expected %s, found %s", want, found(p, b));
}

/* Not JSON. */
static int syntax(jp *p, const char *want) {
    char b[24];
    return jp_fail(p, CZK_EFORMAT, "%s, found %s at byte %zu", want, found(p, b), p->i);
}

/* A key or name made safe to print (control characters and quotes replaced). */
static const char *printable(char *s) {
    for (char *q = s; *q != '\0'; q++)
        if ((unsigned char)*q < 0x20 || *q == '"' || *q == '\\' || (unsigned char)*q >= 0x7f)
            *q = '?';
    return s;
}

/* ---- strings --------------------------------------------------------------------------------- */

static int hex4(const uint8_t *q, unsigned *u) {
    *u = 0;
    for (int k = 0; k < 4; k++) {
        uint8_t c = q[k];
        unsigned d = is_digit(c)              ? (unsigned)(c - '0')
                     : (c >= 'a' && c <= 'f') ? c - 'a' + 10u
                     : (c >= 'A' && c <= 'F') ? c - 'A' + 10u
                                              : 16u;
        if (d == 16)
            return 0;
        *u = *u << 4 | d;
    }
    return 1;
}

/*
 * Scans the string at the cursor (at '"'): *raw and *rawlen get the bytes between the quotes,
 * *esc whether an escape occurs. Refuses control characters, unknown escapes and unpaired
 * surrogates, as serde_json does. The cursor ends after the closing quote.
 */
static int str_scan(jp *p, const uint8_t **raw, size_t *rawlen, int *esc) {
    const uint8_t *s = p->s;
    size_t n = p->n, i = p->i + 1, start = i;
    *esc = 0;
    for (;;) {
        if (i >= n) {
            p->i = n;
            return syntax(p, "unterminated string");
        }
        uint8_t c = s[i];
        if (c == '"')
            break;
        if (c < 0x20) {
            p->i = i;
            return jp_fail(p, CZK_EFORMAT, "control character 0x%02x in a string at byte %zu", c,
                           i);
        }
        if (c != '\\') {
            i++;
            continue;
        }
        *esc = 1;
        if (i + 1 >= n) {
            p->i = n;
            return syntax(p, "unterminated string");
        }
        c = s[i + 1];
        if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' ||
            c == 't') {
            i += 2;
            continue;
        }
        unsigned u, lo;
        if (c != 'u' || n - i < 6 || !hex4(s + i + 2, &u)) {
            p->i = i;
            return jp_fail(p, CZK_EFORMAT, "invalid escape in a string at byte %zu", i);
        }
        if (u >= 0xdc00 && u <= 0xdfff) {
            p->i = i;
            return jp_fail(p, CZK_EFORMAT, "unpaired surrogate \\u%04x at byte %zu", u, i);
        }
        if (u >= 0xd800 && u <= 0xdbff) {
            if (n - i < 12 || s[i + 6] != '\\' || s[i + 7] != 'u' || !hex4(s + i + 8, &lo) ||
                lo < 0xdc00 || lo > 0xdfff) {
                p->i = i;
                return jp_fail(p, CZK_EFORMAT, "unpaired surrogate \\u%04x at byte %zu", u, i);
            }
            i += 12;
        } else {
            i += 6;
        }
    }
    *raw = s + start;
    *rawlen = i - start;
    p->i = i + 1;
    return CZK_OK;
}

/* Decodes a string str_scan accepted into out (at least len bytes); returns its length. */
static size_t str_decode(uint8_t *out, const uint8_t *raw, size_t len) {
    size_t o = 0;
    for (size_t i = 0; i < len;) {
        if (raw[i] != '\\') {
            out[o++] = raw[i++];
            continue;
        }
        /* The one-letter escapes, as pairs: the letter, then the byte it stands for. */
        static const char one_letter[] = "b\bf\fn\nr\rt\t";
        uint8_t c = raw[i + 1];
        i += 2;
        const char *hit = c != 'u' && c != 0 ? strchr(one_letter, c) : NULL;
        if (hit != NULL && (hit - one_letter) % 2 == 0) {
            out[o++] = (uint8_t)hit[1];
            continue;
        }
        switch (c) {
        case 'u': {
            unsigned u, lo;
            hex4(raw + i, &u);
            i += 4;
            uint32_t cp = u;
            if (u >= 0xd800 && u <= 0xdbff) {
                hex4(raw + i + 2, &lo);
                i += 6;
                cp = 0x10000 + ((u - 0xd800) << 10) + (lo - 0xdc00);
            }
            if (cp < 0x80) {
                out[o++] = (uint8_t)cp;
            } else if (cp < 0x800) {
                out[o++] = (uint8_t)(0xc0 | cp >> 6);
                out[o++] = (uint8_t)(0x80 | (cp & 0x3f));
            } else if (cp < 0x10000) {
                out[o++] = (uint8_t)(0xe0 | cp >> 12);
                out[o++] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
                out[o++] = (uint8_t)(0x80 | (cp & 0x3f));
            } else {
                out[o++] = (uint8_t)(0xf0 | cp >> 18);
                out[o++] = (uint8_t)(0x80 | (cp >> 12 & 0x3f));
                out[o++] = (uint8_t)(0x80 | (cp >> 6 & 0x3f));
                out[o++] = (uint8_t)(0x80 | (cp & 0x3f));
            }
            break;
        }
        default: /* '"', '\\', '/' */
            out[o++] = c;
            break;
        }
    }
    return o;
}

/*
 * A short string (a key or a name) at the cursor into buf (NUL-terminated); *len is its
 * decoded length, or SIZE_MAX when it did not fit (buf then holds its start, for messages).
 */
static int read_short(jp *p, char buf[KEY_CAP], size_t *len) {
    const uint8_t *raw;
    size_t rawlen;
    int esc;
    int rc = str_scan(p, &raw, &rawlen, &esc);
    if (rc != CZK_OK)
        return rc;
    if (rawlen < KEY_CAP) {
        *len = str_decode((uint8_t *)buf, raw, rawlen);
        buf[*len] = '\0';
    } else {
        memcpy(buf, raw, KEY_CAP - 4);
        memcpy(buf + KEY_CAP - 4, "...", 4);
        *len = SIZE_MAX;
    }
    return CZK_OK;
}

static int name_is(const char *buf, size_t len, const char *name) {
    return len == strlen(name) && memcmp(buf, name, len) == 0;
}

static unsigned lookup(const char *const *names, unsigned n, const char *key, size_t klen) {
    unsigned f = 0;
    while (f < n && !name_is(key, klen, names[f]))
        f++;
    return f;
}

/* ---- numbers and literals ---------------------------------------------------------------- */

/* Lexes the number at the cursor per RFC 8259; *neg and *frac say whether it has a sign or a
 * fraction or exponent. The cursor ends after it. */
static int lex_number(jp *p, int *neg, int *frac) {
    const uint8_t *s = p->s;
    size_t n = p->n, i = p->i;
    *neg = *frac = 0;
    if (i < n && s[i] == '-') {
        *neg = 1;
        i++;
    }
    if (i >= n || !is_digit(s[i])) {
        p->i = i;
        return syntax(p, "expected a digit");
    }
    if (s[i] == '0') {
        i++;
        if (i < n && is_digit(s[i])) {
            p->i = i;
            return syntax(p, "expected no digit after a leading 0");
        }
    } else {
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && s[i] == '.') {
        *frac = 1;
        if (++i >= n || !is_digit(s[i])) {
            p->i = i;
            return syntax(p, "expected a digit after '.'");
        }
        while (i < n && is_digit(s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        *frac = 1;
        i++;
        if (i < n && (s[i] == '+' || s[i] == '-'))
            i++;
        if (i >= n || !is_digit(s[i])) {
            p->i = i;
            return syntax(p, "expected a digit in the exponent");
        }
        while (i < n && is_digit(s[i]))
            i++;
    }
    p->i = i;
    return CZK_OK;
}

/* The careful path of read_uint: precise messages for everything the fast path refuses. */
static int read_uint_slow(jp *p, uint64_t max, const char *tname, uint64_t *out) {
    int c = peek(p);
    if (c != '-' && (c < 0 || !is_digit((uint8_t)c)))
        return type_fail(p, tname[1] == '8' ? "an integer 0..255" : "an integer");
    size_t start = p->i;
    int neg, frac;
    int rc = lex_number(p, &neg, &frac);
    if (rc != CZK_OK)
        return rc;
    int tl = (int)(p->i - start < 40 ? p->i - start : 40);
    const char *tok = (const char *)p->s + start;
    p->i = start; /* messages point at the number */
    if (neg)
        return jp_fail(p, CZK_EFORMAT, "expected an unsigned integer (%s), found %.*s", tname, tl,
                       tok);
    if (frac)
        return jp_fail(p, CZK_EFORMAT, "expected an integer (%s), found %.*s", tname, tl, tok);
    uint64_t v = 0;
    size_t end = start;
    while (end < p->n && is_digit(p->s[end]))
        end++;
    for (size_t i = start; i < end; i++) {
        unsigned d = p->s[i] - '0';
        if (v > (max - d) / 10)
            return jp_fail(p, CZK_EFORMAT, "%.*s is out of range for %s (at most %llu)", tl, tok,
                           tname, (unsigned long long)max);
        v = v * 10 + d;
    }
    p->i = end;
    *out = v;
    return CZK_OK;
}

/*
 * An unsigned integer ≤ max at the cursor (JSON: no sign, fraction or exponent). `tname`
 * ("u8", "u32", "u64", "usize") is for messages; `idx`, unless NO_INDEX, is pushed on the path
 * when the value is refused (the position within a byte array).
 */
static int read_uint(jp *p, uint64_t max, const char *tname, size_t idx, uint64_t *out) {
    ws(p);
    const uint8_t *s = p->s;
    size_t n = p->n, i = p->i;
    if (i < n && is_digit(s[i])) {
        size_t start = i;
        uint64_t v = (uint64_t)(s[i++] - '0');
        if (v != 0)
            while (i < n && is_digit(s[i]) && i - start < 19) /* 19 digits cannot overflow */
                v = v * 10 + (uint64_t)(s[i++] - '0');
        if (v <= max && !(i < n && (is_digit(s[i]) || s[i] == '.' || s[i] == 'e' || s[i] == 'E'))) {
            p->i = i;
            *out = v;
            return CZK_OK;
        }
    }
    size_t mark = idx != NO_INDEX ? path_idx(p, idx) : p->plen;
    int rc = read_uint_slow(p, max, tname, out);
    path_pop(p, mark);
    return rc;
}

static int read_literal(jp *p, const char *lit) {
    if (!starts(p, lit))
        return syntax(p, "expected a value");
    p->i += strlen(lit);
    return CZK_OK;
}

/* ---- structure --------------------------------------------------------------------------- */

/* Opens an object or array: `open` is '{' or '[', `what` names it for the type error. */
static int seq_open(jp *p, char open, const char *what) {
    if (peek(p) != open)
        return type_fail(p, what);
    p->i++;
    return CZK_OK;
}

static int obj_open(jp *p) {
    return seq_open(p, '{', "an object");
}

static int arr_open(jp *p) {
    return seq_open(p, '[', "an array");
}

/* The step to the next item of an open object or array that has `count` items so far (`close`
 * '}' or ']'): 0 after `close`, 1 at the next item (past its ',' when it is not the first), or
 * an error. */
static int seq_next(jp *p, size_t count, char close) {
    int c = peek(p);
    if (c == close) {
        p->i++;
        return 0;
    }
    if (count > 0) {
        if (c != ',')
            return syntax(p, close == '}' ? "expected ',' or '}'" : "expected ',' or ']'");
        p->i++;
    }
    return 1;
}

/* The next member of an open object: 1 with its key in key/klen and the cursor at its value,
 * 0 after the closing brace, or an error. *count counts the members so far. */
static int obj_next(jp *p, size_t *count, char key[KEY_CAP], size_t *klen) {
    int rc = seq_next(p, *count, '}');
    if (rc != 1)
        return rc;
    if (peek(p) != '"')
        return syntax(p, *count > 0 ? "expected a key" : "expected a key or '}'");
    rc = read_short(p, key, klen);
    if (rc != CZK_OK)
        return rc;
    if (peek(p) != ':')
        return syntax(p, "expected ':'");
    p->i++;
    (*count)++;
    return 1;
}

/* Opens an object and steps to its first member, as obj_next. */
static int obj_first(jp *p, size_t *count, char key[KEY_CAP], size_t *klen) {
    int rc = obj_open(p);
    return rc != CZK_OK ? rc : obj_next(p, count, key, klen);
}

/*
 * An object of exactly one member, {"key": value}: serde's externally tagged enum, or a map of
 * one entry. sole_first opens it and reads the key, leaving the cursor at the value; an empty
 * object fails as "expected <fmt...>, found an empty object". After the value, sole_end takes
 * the key's mark off the path and requires the closing brace: a second member fails as "a
 * second <what> "<its key>" after <first>".
 */
static int sole_first(jp *p, char key[KEY_CAP], size_t *klen, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int sole_first(jp *p, char key[KEY_CAP], size_t *klen, const char *fmt, ...) {
    size_t count = 0;
    int k = obj_first(p, &count, key, klen);
    if (k != 0)
        return k < 0 ? k : CZK_OK;
    char want[120];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(want, sizeof(want), fmt, ap);
    va_end(ap);
    return jp_fail(p, CZK_EFORMAT, "expected %s, found an empty object", want);
}

static int sole_end(jp *p, size_t mark, const char *what, const char *first) {
    char key[KEY_CAP];
    size_t klen, count = 1; /* the sole member, read */
    path_pop(p, mark);
    int k = obj_next(p, &count, key, &klen);
    if (k < 0)
        return k;
    if (k == 1)
        return jp_fail(p, CZK_EFORMAT, "a second %s \"%s\" after %s", what, printable(key), first);
    return CZK_OK;
}

/* The next element of an open array: 1 with the cursor at it, 0 after ']', or an error. */
static int arr_next(jp *p, size_t *count) {
    int rc = seq_next(p, *count, ']');
    if (rc == 1)
        (*count)++;
    return rc;
}

/* Any JSON value, checked for syntax and thrown away. */
static int skip_value(jp *p, int depth) {
    if (depth > SKIP_DEPTH)
        return jp_fail(p, CZK_EFORMAT, "nested more than %d levels deep at byte %zu", SKIP_DEPTH,
                       p->i);
    int c = peek(p), k, rc;
    size_t count = 0;
    if (c == '{') {
        char key[KEY_CAP];
        size_t klen;
        p->i++;
        while ((k = obj_next(p, &count, key, &klen)) == 1)
            if ((rc = skip_value(p, depth + 1)) != CZK_OK)
                return rc;
        return k < 0 ? k : CZK_OK;
    }
    if (c == '[') {
        p->i++;
        while ((k = arr_next(p, &count)) == 1)
            if ((rc = skip_value(p, depth + 1)) != CZK_OK)
                return rc;
        return k < 0 ? k : CZK_OK;
    }
    if (c == '"') {
        const uint8_t *raw;
        size_t rawlen;
        int esc;
        return str_scan(p, &raw, &rawlen, &esc);
    }
    if (c == '-' || (c >= 0 && is_digit((uint8_t)c))) {
        int neg, frac;
        return lex_number(p, &neg, &frac);
    }
    if (c == 't')
        return read_literal(p, "true");
    if (c == 'f')
        return read_literal(p, "false");
    if (c == 'n')
        return read_literal(p, "null");
    return syntax(p, "expected a value");
}

typedef int (*member_fn)(jp *p, void *ctx, unsigned field);
typedef int (*elem_fn)(jp *p, void *ctx, size_t i);

/* An object whose keys are exactly names[0..n) in any order; fn reads each value with the
 * key on the path. */
static int parse_object(jp *p, const char *const *names, unsigned n, member_fn fn, void *ctx) {
    int rc = obj_open(p), k;
    if (rc != CZK_OK)
        return rc;
    char key[KEY_CAP];
    size_t klen, count = 0;
    uint32_t seen = 0;
    while ((k = obj_next(p, &count, key, &klen)) == 1) {
        unsigned f = lookup(names, n, key, klen);
        if (f == n)
            return jp_fail(p, CZK_EFORMAT, "unknown key \"%s\"", printable(key));
        if (seen >> f & 1u)
            return jp_fail(p, CZK_EFORMAT, "duplicate key \"%s\"", names[f]);
        seen |= 1u << f;
        size_t mark = path_key(p, names[f]);
        if ((rc = fn(p, ctx, f)) != CZK_OK)
            return rc;
        path_pop(p, mark);
    }
    if (k < 0)
        return k;
    for (unsigned f = 0; f < n; f++)
        if (!(seen >> f & 1u))
            return jp_fail(p, CZK_EFORMAT, "missing key \"%s\"", names[f]);
    return CZK_OK;
}

/* An array of exactly `want` elements; fn reads element i with [i] on the path. Extra
 * elements are skipped only to count them for the message. */
static int parse_array(jp *p, size_t want, elem_fn fn, void *ctx) {
    int rc = arr_open(p), k;
    if (rc != CZK_OK)
        return rc;
    size_t count = 0;
    while ((k = arr_next(p, &count)) == 1) {
        size_t i = count - 1;
        if (i < want) {
            size_t mark = path_idx(p, i);
            if ((rc = fn(p, ctx, i)) != CZK_OK)
                return rc;
            path_pop(p, mark);
        } else if ((rc = skip_value(p, 0)) != CZK_OK) {
            return rc;
        }
    }
    if (k < 0)
        return k;
    if (count != want)
        return jp_fail(p, CZK_EFORMAT, "expected %zu elements, found %zu", want, count);
    return CZK_OK;
}

/* ---- values ------------------------------------------------------------------------------ */

/* Element i of a [u8; N] into ((uint8_t *)ctx)[i] (parse_array has put [i] on the path). */
static int u8_elem(jp *p, void *ctx, size_t i) {
    uint64_t v;
    int rc = read_uint(p, 255, "u8", NO_INDEX, &v);
    if (rc == CZK_OK)
        ((uint8_t *)ctx)[i] = (uint8_t)v;
    return rc;
}

/* A [u8; 32]: an array of exactly 32 integers 0..255. */
static int parse_bytes32(jp *p, uint8_t out[32]) {
    /* The fast path takes what Rust and Go write, "[d,d,...,d]" without whitespace; anything
     * else, errors included, goes the careful way below from the same place. */
    ws(p);
    const uint8_t *s = p->s;
    size_t n = p->n, q = p->i;
    if (q < n && s[q] == '[') {
        q++;
        int j = 0;
        for (; j < 32 && q < n && is_digit(s[q]); j++) {
            unsigned v = s[q++] - (unsigned)'0';
            if (v != 0 && q < n && is_digit(s[q])) {
                v = v * 10 + (s[q++] - (unsigned)'0');
                if (q < n && is_digit(s[q]))
                    v = v * 10 + (s[q++] - (unsigned)'0');
            }
            if (v > 255 || q >= n || s[q] != (j < 31 ? ',' : ']'))
                break;
            out[j] = (uint8_t)v;
            q++;
        }
        if (j == 32) {
            p->i = q;
            return CZK_OK;
        }
    }
    return parse_array(p, 32, u8_elem, out);
}

/* A domain: 32 bytes that are a canonical little-endian field element. */
static int parse_fr(jp *p, czk_fr *out, uint8_t bytes[32]) {
    uint8_t b[32];
    int rc = parse_bytes32(p, b);
    if (rc != CZK_OK)
        return rc;
    if (czk_fr_from_bytes_le(out, b) != CZK_OK)
        return jp_fail(p, CZK_ERANGE, "not a field element: the value is not below r");
    if (bytes != NULL)
        memcpy(bytes, b, 32);
    return CZK_OK;
}

static int fr_elem(jp *p, void *ctx, size_t i) {
    return parse_fr(p, (czk_fr *)ctx + i, NULL);
}

static int parse_frs(jp *p, czk_fr *out, size_t n) {
    return parse_array(p, n, fr_elem, out);
}

/* ---- Merkle proofs ----------------------------------------------------------------------- */

const char *const czk__c1_variant_names[3] = {"Single", "Sub", "Top"};

enum { ROLE_BASE, ROLE_SUB, ROLE_TOP, ROLE_ROOT, ROLE_LEAF };

/* The fields of SingleProof, SubProof and TopProof, in declaration order. */
static const char *const single_keys[] = {"root", "leaf", "path"};
static const char *const sub_keys[] = {"base_proof", "sub_proof", "root", "leaf"};
static const char *const top_keys[] = {"base_proof", "sub_proof", "top_proof", "root", "leaf"};
static const unsigned char single_roles[] = {ROLE_ROOT, ROLE_LEAF, ROLE_BASE};
static const unsigned char sub_roles[] = {ROLE_BASE, ROLE_SUB, ROLE_ROOT, ROLE_LEAF};
static const unsigned char top_roles[] = {ROLE_BASE, ROLE_SUB, ROLE_TOP, ROLE_ROOT, ROLE_LEAF};

static const struct {
    const char *const *keys;
    const unsigned char *roles;
    unsigned n;
} variants[3] = {
    {single_keys, single_roles, 3}, {sub_keys, sub_roles, 4}, {top_keys, top_roles, 5}};

static const char *const inclusion_keys[] = {"path"};
static const char *const element_keys[] = {"hashes", "index"};
static const char *const merkle_keys[] = {"data"};

typedef struct path_ctx {
    czk_vanilla_level *lv;
    uint32_t n, arity;
} path_ctx;

static int element_member(jp *p, void *ctx, unsigned f) {
    czk_vanilla_level *lv = ctx;
    if (f == 0)
        return parse_frs(p, lv->sib, lv->arity - 1);
    uint64_t v;
    int rc = read_uint(p, UINT64_MAX, "usize", NO_INDEX, &v);
    if (rc == CZK_OK && v >= lv->arity)
        rc = jp_fail(p, CZK_EFORMAT, "index %llu is not below the arity %u", (unsigned long long)v,
                     lv->arity);
    lv->index = (uint32_t)v;
    return rc;
}

static int element_elem(jp *p, void *ctx, size_t i) {
    path_ctx *c = ctx;
    c->lv[i].arity = c->arity;
    return parse_object(p, element_keys, 2, element_member, &c->lv[i]);
}

static int inclusion_member(jp *p, void *ctx, unsigned f) {
    (void)f;
    path_ctx *c = ctx;
    return parse_array(p, c->n, element_elem, c);
}

/* An InclusionPath {"path": [{"hashes", "index"} × n]} into lv[0..n). */
static int parse_inclusion(jp *p, czk_vanilla_level *lv, uint32_t n, uint32_t arity) {
    path_ctx c = {lv, n, arity};
    return parse_object(p, inclusion_keys, 1, inclusion_member, &c);
}

typedef struct merkle_ctx {
    czk_c1_merkle *m;
    const mshape *sh;
} merkle_ctx;

static int variant_member(jp *p, void *ctx, unsigned f) {
    merkle_ctx *c = ctx;
    czk_c1_merkle *m = c->m;
    switch (variants[m->variant].roles[f]) {
    case ROLE_ROOT:
        return parse_fr(p, &m->root, NULL);
    case ROLE_LEAF:
        return parse_fr(p, &m->leaf, NULL);
    case ROLE_BASE:
        return parse_inclusion(p, m->level, c->sh->n[0], c->sh->arity[0]);
    case ROLE_SUB:
        return parse_inclusion(p, m->level + c->sh->n[0], c->sh->n[1], c->sh->arity[1]);
    default:
        return parse_inclusion(p, m->level + c->sh->n[0] + c->sh->n[1], c->sh->n[2],
                               c->sh->arity[2]);
    }
}

/* ProofData, an externally tagged enum: {"Single" | "Sub" | "Top": {...}}. */
static int data_member(jp *p, void *ctx, unsigned f) {
    (void)f;
    merkle_ctx *c = ctx;
    char key[KEY_CAP];
    size_t klen;
    int rc = sole_first(p, key, &klen, "one of Single, Sub or Top");
    if (rc != CZK_OK)
        return rc;
    unsigned v = lookup(czk__c1_variant_names, 3, key, klen);
    if (v == 3)
        return jp_fail(p, CZK_EFORMAT, "unknown variant \"%s\" (expected Single, Sub or Top)",
                       printable(key));
    if (v != (unsigned)c->sh->variant)
        return jp_fail(p, CZK_EFORMAT, "variant %s, but this tree's proofs are %s",
                       czk__c1_variant_names[v], czk__c1_variant_names[c->sh->variant]);
    size_t mark = path_key(p, czk__c1_variant_names[v]);
    if ((rc = parse_object(p, variants[v].keys, variants[v].n, variant_member, c)) != CZK_OK)
        return rc;
    return sole_end(p, mark, "variant", czk__c1_variant_names[v]);
}

/* A MerkleProof {"data": ProofData} of shape sh. */
static int parse_merkle(jp *p, czk_c1_merkle *m, const mshape *sh) {
    merkle_set_shape(m, sh);
    merkle_ctx c = {m, sh};
    return parse_object(p, merkle_keys, 1, data_member, &c);
}

/* ---- the stacked DRG proof ------------------------------------------------------------------ */

/* What a challenge proof's parsers share. */
typedef struct pctx {
    czk_c1 *c1;
    const czk_porep_type *type;
    mshape comm_d, tree;
} pctx;

static const char *const column_proof_keys[] = {"column", "inclusion_proof"};
static const char *const column_keys[] = {"index", "rows", "_h"};
static const char *const rcp_keys[] = {"c_x", "drg_parents", "exp_parents"};
static const char *const labeling_keys[] = {"parents", "layer_index", "node"};
static const char *const proof_keys[] = {"comm_d_proofs", "comm_r_last_proof",
                                         "replica_column_proofs", "labeling_proofs",
                                         "encoding_proof"};

typedef struct col_ctx {
    const pctx *pc;
    czk_c1_column *col; /* one column, or the first of an array */
} col_ctx;

/* A u32 field (an index or a layer number). */
static int read_u32(jp *p, uint32_t *out) {
    uint64_t v = 0;
    int rc = read_uint(p, UINT32_MAX, "u32", NO_INDEX, &v);
    *out = (uint32_t)v;
    return rc;
}

static int column_member(jp *p, void *ctx, unsigned f) {
    col_ctx *c = ctx;
    switch (f) {
    case 0:
        return read_u32(p, &c->col->index);
    case 1:
        c->col->n_rows = c->pc->type->layers;
        return parse_frs(p, c->col->rows, c->pc->type->layers);
    default: /* PhantomData */
        if (peek(p) != 'n' || !starts(p, "null"))
            return type_fail(p, "null");
        p->i += 4;
        return CZK_OK;
    }
}

static int column_proof_member(jp *p, void *ctx, unsigned f) {
    col_ctx *c = ctx;
    if (f == 0)
        return parse_object(p, column_keys, 3, column_member, c);
    return parse_merkle(p, &c->col->inclusion, &c->pc->tree);
}

static int parse_column(jp *p, const pctx *pc, czk_c1_column *col) {
    col_ctx c = {pc, col};
    return parse_object(p, column_proof_keys, 2, column_proof_member, &c);
}

static int column_elem(jp *p, void *ctx, size_t i) {
    col_ctx *c = ctx;
    return parse_column(p, c->pc, c->col + i);
}

typedef struct chal_ctx {
    const pctx *pc;
    czk_c1_proof *proof;
} chal_ctx;

static int rcp_member(jp *p, void *ctx, unsigned f) {
    chal_ctx *c = ctx;
    if (f == 0)
        return parse_column(p, c->pc, &c->proof->c_x);
    col_ctx cc = {c->pc, f == 1 ? c->proof->drg_parents : c->proof->exp_parents};
    return parse_array(p, f == 1 ? CZK_POREP_DRG_PARENTS : CZK_POREP_EXP_PARENTS, column_elem, &cc);
}

typedef struct lab_ctx {
    czk_c1_labeling *lab;
    uint32_t layer; /* the layer_index it must have */
} lab_ctx;

static int labeling_member(jp *p, void *ctx, unsigned f) {
    lab_ctx *c = ctx;
    switch (f) {
    case 0:
        return parse_frs(p, c->lab->parents, CZK_POREP_PARENTS);
    case 1: {
        int rc = read_u32(p, &c->lab->layer_index);
        if (rc == CZK_OK && c->lab->layer_index != c->layer)
            rc = jp_fail(p, CZK_EFORMAT, "layer_index is %llu, expected %u",
                         (unsigned long long)c->lab->layer_index, c->layer);
        return rc;
    }
    default:
        return read_uint(p, UINT64_MAX, "u64", NO_INDEX, &c->lab->node);
    }
}

static int labeling_elem(jp *p, void *ctx, size_t i) {
    czk_c1_proof *proof = ctx;
    lab_ctx c = {&proof->labeling[i], (uint32_t)i + 1};
    return parse_object(p, labeling_keys, 3, labeling_member, &c);
}

static int proof_member(jp *p, void *ctx, unsigned f) {
    chal_ctx *c = ctx;
    czk_c1_proof *proof = c->proof;
    const czk_porep_type *t = c->pc->type;
    switch (f) {
    case 0:
        return parse_merkle(p, &proof->comm_d_proof, &c->pc->comm_d);
    case 1:
        return parse_merkle(p, &proof->comm_r_last_proof, &c->pc->tree);
    case 2:
        return parse_object(p, rcp_keys, 3, rcp_member, c);
    case 3:
        proof->n_labeling = t->layers;
        return parse_array(p, t->layers, labeling_elem, proof);
    default: {
        lab_ctx lc = {&proof->encoding, t->layers};
        return parse_object(p, labeling_keys, 3, labeling_member, &lc);
    }
    }
}

typedef struct part_ctx {
    const pctx *pc;
    uint32_t k;
} part_ctx;

static int challenge_elem(jp *p, void *ctx, size_t i) {
    part_ctx *c = ctx;
    chal_ctx cc = {c->pc, czk_c1_at(c->pc->c1, c->k, (uint32_t)i)};
    return parse_object(p, proof_keys, 5, proof_member, &cc);
}

static int partition_elem(jp *p, void *ctx, size_t k) {
    const pctx *pc = ctx;
    part_ctx c = {pc, (uint32_t)k};
    return parse_array(p, pc->type->challenges, challenge_elem, &c);
}

static int is_size_variant(const char *key, size_t klen) {
    for (uint64_t id = 0; id < 5; id++) {
        const czk_porep_type *t = czk_porep_type_from_abi(id, NULL);
        if (t != NULL && name_is(key, klen, t->size_variant))
            return 1;
    }
    return 0;
}

/* vanilla_proofs: {"<size variant>": [[Proof × challenges] × partitions]}. */
static int parse_vanilla(jp *p, const pctx *pc) {
    char key[KEY_CAP];
    size_t klen;
    int rc = sole_first(p, key, &klen, "the key \"%s\"", pc->type->size_variant);
    if (rc != CZK_OK)
        return rc;
    if (!name_is(key, klen, pc->type->size_variant))
        return jp_fail(p, CZK_EUNSUPPORTED,
                       "%s size variant \"%s\", but registered_proof %s needs \"%s\"",
                       is_size_variant(key, klen) ? "the" : "unknown", printable(key),
                       pc->type->name, pc->type->size_variant);
    size_t mark = path_key(p, pc->type->size_variant);
    if ((rc = parse_array(p, pc->type->partitions, partition_elem, (void *)pc)) != CZK_OK)
        return rc;
    return sole_end(p, mark, "key", pc->type->size_variant);
}

/* ---- base64 (Go's StdEncoding, as encoding/json writes []byte) ------------------------------ */

static int b64_val(uint8_t c) {
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (is_digit(c))
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

/* Strict standard base64 with padding (as Rust's base64 STANDARD engine, which cuzk uses, and
 * Go's StdEncoding writes): no whitespace, padding only at the end, unused bits zero. Out:
 * *out (czk_malloc'ed) and *out_len. The path must be Phase1Out. */
static int b64_decode(jp *p, const uint8_t *in, size_t n, uint8_t **out, size_t *out_len) {
    *out = NULL;
    if (n % 4 != 0)
        return jp_fail(p, CZK_EFORMAT, "not base64: %zu characters, not a multiple of 4", n);
    uint8_t *buf = czk_malloc(n / 4 * 3 + 1);
    if (buf == NULL)
        return jp_fail(p, CZK_ENOMEM, "no memory to decode %zu characters of base64", n);
    size_t o = 0;
    for (size_t i = 0; i < n; i += 4) {
        int v[4], pad = 0;
        for (int j = 0; j < 4; j++) {
            uint8_t c = in[i + j];
            v[j] = b64_val(c);
            if (c == '=' && i + 4 == n && j >= 2 && (j == 3 || in[i + 3] == '=')) {
                v[j] = 0;
                pad++;
            } else if (v[j] < 0 || pad > 0) {
                czk_free(buf);
                if (c >= 0x21 && c < 0x7f)
                    return jp_fail(p, CZK_EFORMAT, "not base64: '%c' at character %zu", c, i + j);
                return jp_fail(p, CZK_EFORMAT, "not base64: byte 0x%02x at character %zu", c,
                               i + j);
            }
        }
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | v[3];
        if ((pad == 2 && (w & 0xffff) != 0) || (pad == 1 && (w & 0xff) != 0)) {
            czk_free(buf);
            return jp_fail(p, CZK_EFORMAT,
                           "not base64: non-zero bits in the padding at "
                           "character %zu",
                           i);
        }
        buf[o++] = (uint8_t)(w >> 16);
        if (pad < 2)
            buf[o++] = (uint8_t)(w >> 8);
        if (pad < 1)
            buf[o++] = (uint8_t)w;
    }
    *out = buf;
    *out_len = o;
    return CZK_OK;
}

/* ---- the top level --------------------------------------------------------------------------- */

/* The C1 output's fields (SealCommitPhase1Output, declaration order), then Curio's wrapper's. */
static const char *const top_level_keys[] = {
    "registered_proof", "vanilla_proofs", "comm_r",    "comm_d",    "replica_id", "seed",
    "ticket",           "SectorNum",      "Phase1Out", "SectorSize"};
enum {
    TOP_REGISTERED,
    TOP_VANILLA,
    TOP_COMM_R,
    TOP_COMM_D,
    TOP_REPLICA_ID,
    TOP_SEED,
    TOP_TICKET,
    TOP_SECTOR_NUM,
    TOP_PHASE1OUT,
    TOP_SECTOR_SIZE,
    TOP_N,
    TOP_N_C1 = TOP_SECTOR_NUM
};
enum { MODE_NONE, MODE_C1, MODE_WRAPPER };

/* registered_proof: the type, then the checks it allows and the proof array. `expect_size`,
 * unless NULL, is the wrapper's SectorSize. */
static int parse_registered(jp *p, pctx *pc, const uint64_t *expect_size) {
    if (peek(p) != '"')
        return type_fail(p, "a string");
    char name[KEY_CAP];
    size_t len;
    int rc = read_short(p, name, &len);
    if (rc != CZK_OK)
        return rc;
    const czk_porep_type *t = len == strlen(name) ? czk_porep_type_from_name(name, NULL) : NULL;
    if (t == NULL)
        return jp_fail(p, CZK_EUNSUPPORTED, "unknown registered seal proof \"%s\"",
                       printable(name));
    if (expect_size != NULL && t->sector_size != *expect_size)
        return czk_err_set(p->err, CZK_EUNSUPPORTED,
                           "%s: SectorSize: %llu, but Phase1Out's registered_proof %s is for "
                           "%llu-byte sectors",
                           czk_file_msg_path(p->what), (unsigned long long)*expect_size, t->name,
                           (unsigned long long)t->sector_size);
    if (p->n > input_limit(t))
        return jp_fail(p, CZK_EFORMAT,
                       "%zu bytes of JSON, more than a %s C1 output can take (%llu)", p->n, t->name,
                       (unsigned long long)input_limit(t));
    if ((rc = c1_alloc(pc->c1, t, p->err)) != CZK_OK)
        return rc;
    pc->type = t;
    pc->comm_d = czk__c1_comm_d_shape(t);
    pc->tree = czk__c1_tree_shape(t);
    return CZK_OK;
}

/* The top-level object: a C1 output, or (when allow_wrapper) Curio's wrapper, whose Phase1Out
 * is decoded and parsed here with its SectorSize as `expect_size`. */
static int parse_top(jp *p, czk_c1 *out, int allow_wrapper, const uint64_t *expect_size) {
    pctx pc = {out, NULL, {0}, {0}};
    int rc = obj_open(p), k, mode = MODE_NONE;
    if (rc != CZK_OK)
        return rc;
    uint32_t seen = 0;
    size_t deferred = SIZE_MAX; /* where vanilla_proofs starts, when it came before the type */
    const uint8_t *b64 = NULL;
    size_t b64len = 0;
    int b64esc = 0;
    uint64_t sector_num = 0, sector_size = 0;
    czk_fr fr;
    char key[KEY_CAP];
    size_t klen, count = 0;
    while ((k = obj_next(p, &count, key, &klen)) == 1) {
        unsigned f = lookup(top_level_keys, TOP_N, key, klen);
        if (f == TOP_N || (f >= TOP_N_C1 && !allow_wrapper))
            return jp_fail(p, CZK_EFORMAT, "unknown key \"%s\"", printable(key));
        int m = f < TOP_N_C1 ? MODE_C1 : MODE_WRAPPER;
        if (mode != MODE_NONE && m != mode)
            return jp_fail(p, CZK_EFORMAT, "key \"%s\" %s", top_level_keys[f],
                           m == MODE_C1 ? "of a C1 output in Curio's wrapper"
                                        : "of Curio's wrapper in a C1 output");
        mode = m;
        if (seen >> f & 1u)
            return jp_fail(p, CZK_EFORMAT, "duplicate key \"%s\"", top_level_keys[f]);
        seen |= 1u << f;
        size_t mark = path_key(p, top_level_keys[f]);
        switch (f) {
        case TOP_REGISTERED:
            rc = parse_registered(p, &pc, expect_size);
            break;
        case TOP_VANILLA:
            if (pc.type != NULL) {
                rc = parse_vanilla(p, &pc);
            } else {
                ws(p);
                deferred = p->i;
                rc = skip_value(p, 0);
            }
            break;
        case TOP_COMM_R:
            rc = parse_fr(p, &fr, out->comm_r);
            break;
        case TOP_COMM_D:
            rc = parse_fr(p, &fr, out->comm_d);
            break;
        case TOP_REPLICA_ID:
            rc = parse_fr(p, &fr, out->replica_id);
            break;
        case TOP_SEED: /* chain randomness, only hashed: any 32 bytes */
            rc = parse_bytes32(p, out->seed);
            break;
        case TOP_TICKET:
            rc = parse_bytes32(p, out->ticket);
            break;
        case TOP_SECTOR_NUM:
            rc = read_uint(p, UINT64_MAX, "u64", NO_INDEX, &sector_num);
            break;
        case TOP_PHASE1OUT:
            rc = peek(p) == '"' ? str_scan(p, &b64, &b64len, &b64esc)
                                : type_fail(p, "a string (base64)");
            break;
        default:
            rc = read_uint(p, UINT64_MAX, "u64", NO_INDEX, &sector_size);
            break;
        }
        if (rc != CZK_OK)
            return rc;
        path_pop(p, mark);
    }
    if (k < 0)
        return k;
    unsigned lo = mode == MODE_WRAPPER ? TOP_N_C1 : 0, hi = mode == MODE_WRAPPER ? TOP_N : TOP_N_C1;
    for (unsigned f = lo; f < hi; f++)
        if (!(seen >> f & 1u))
            return jp_fail(p, CZK_EFORMAT, "missing key \"%s\"", top_level_keys[f]);
    if (mode == MODE_C1 && deferred != SIZE_MAX) {
        size_t end = p->i;
        p->i = deferred;
        size_t mark = path_key(p, "vanilla_proofs");
        if ((rc = parse_vanilla(p, &pc)) != CZK_OK)
            return rc;
        path_pop(p, mark);
        p->i = end;
    }
    if (mode != MODE_WRAPPER)
        return CZK_OK;

    /* Curio's wrapper: decode Phase1Out and parse it as the C1 output. */
    size_t mark = path_key(p, "Phase1Out");
    uint8_t *unesc = NULL, *inner = NULL;
    size_t inner_len = 0;
    if (b64esc) {
        unesc = czk_malloc(b64len + 1);
        if (unesc == NULL)
            return jp_fail(p, CZK_ENOMEM, "no memory for %zu bytes", b64len);
        b64len = str_decode(unesc, b64, b64len);
        b64 = unesc;
    }
    rc = b64_decode(p, b64, b64len, &inner, &inner_len);
    czk_free(unesc);
    if (rc != CZK_OK)
        return rc;
    path_pop(p, mark);
    jp q = {.s = inner, .n = inner_len, .what = p->what, .prefix = "Phase1Out: ", .err = p->err};
    rc = parse_top(&q, out, 0, &sector_size);
    if (rc == CZK_OK) {
        ws(&q);
        if (q.i != q.n)
            rc = syntax(&q, "expected the end of the C1 output");
    }
    czk_free(inner);
    out->wrapped = 1;
    out->sector_num = sector_num;
    out->wrapper_sector_size = sector_size;
    return rc;
}

int czk_c1_parse(czk_c1 *out, const uint8_t *buf, size_t len, const char *what, czk_err *err) {
    memset(out, 0, sizeof(*out));
    jp p = {.s = buf,
            .n = buf != NULL ? len : 0,
            .what = what != NULL ? what : "C1 output",
            .prefix = "",
            .err = err};
    int rc;
    if (p.n > input_limit_any()) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: %zu bytes, more than any C1 output can take",
                         czk_file_msg_path(p.what), p.n);
    } else {
        rc = parse_top(&p, out, 1, NULL);
        if (rc == CZK_OK) {
            ws(&p);
            if (p.i != p.n)
                rc = syntax(&p, "expected the end of the input");
        }
    }
    if (rc != CZK_OK)
        czk_c1_clear(out);
    return rc;
}
