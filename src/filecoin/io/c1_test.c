/*
 * Tests for the C1 output reader and writer (c1.h).
 *
 * No real C1 JSON is public, so the anchors are independent of the code under
 * test where they can be: shapes are set here from the registered proof's table, not with
 * czk_c1_proof_set_shape; json-c (an independent JSON implementation) must accept every
 * output, re-print it byte for byte, and show every object's keys in the declaration order
 * of the Rust structs (transcribed here from rust-fil-proofs and rust-filecoin-proofs-api);
 * json-c also rebuilds the reordered and re-spaced inputs (Curio's Go top-level order, every
 * object reversed, pretty-printed); OpenSSL's base64 builds the wrapper the writer's must
 * equal. The error tests edit a valid output at a place found by text search and check the
 * status code and the JSON path in the message.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * rust-filecoin-proofs-api@0e64ce8d, curio@e0294b0f (2026-08-20).
 */
#include "filecoin/io/c1.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/status.h"
#include "util/timer.h"

#include <json-c/json.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- building random C1 outputs ---------------------------------------------------------- */

static const czk_porep_type *type_named(const char *name) {
    return czk_porep_type_from_name(name, NULL);
}

/* Sets a Merkle proof's shape and fills it: `parts` levels of arity[part] each. */
static void fill_merkle(czk_c1_merkle *m, czk_vanilla_variant v, const uint32_t n[3],
                        const uint32_t arity[3], czk_rng *rng) {
    m->variant = v;
    m->n_base = n[0];
    m->n_sub = n[1];
    m->n_top = n[2];
    m->n_levels = n[0] + n[1] + n[2];
    czk_fr_random(&m->root, rng);
    czk_fr_random(&m->leaf, rng);
    uint32_t l = 0;
    for (int part = 0; part < 3; part++)
        for (uint32_t j = 0; j < n[part]; j++, l++) {
            m->level[l].arity = arity[part];
            m->level[l].index = (uint32_t)(czk_rng_u64(rng) % arity[part]);
            for (uint32_t s = 0; s + 1 < arity[part]; s++)
                czk_fr_random(&m->level[l].sib[s], rng);
        }
}

static void fill_labeling(czk_c1_labeling *l, uint32_t layer, czk_rng *rng) {
    for (int j = 0; j < CZK_POREP_PARENTS; j++)
        czk_fr_random(&l->parents[j], rng);
    l->layer_index = layer;
    l->node = czk_rng_u64(rng); /* the whole u64 range, past 2^53 */
}

/* A shape-correct C1 output of `t` with random values. Returns CZK_OK or CZK_ENOMEM. */
static int random_c1(czk_c1 *c1, const czk_porep_type *t, czk_rng *rng) {
    int rc = czk_c1_init(c1, t, NULL);
    if (rc != CZK_OK)
        return rc;
    const czk_vanilla_shape *sh = &t->tree;
    uint32_t dn[3] = {t->comm_d_levels, 0, 0}, da[3] = {2, 0, 0};
    uint32_t tn[3] = {sh->base_levels, sh->sub_arity ? 1u : 0u, sh->top_arity ? 1u : 0u};
    uint32_t ta[3] = {8, sh->sub_arity, sh->top_arity};
    for (size_t q = 0; q < (size_t)c1->n_partitions * c1->n_challenges; q++) {
        czk_c1_proof *p = &c1->proofs[q];
        fill_merkle(&p->comm_d_proof, CZK_VANILLA_SINGLE, dn, da, rng);
        fill_merkle(&p->comm_r_last_proof, sh->variant, tn, ta, rng);
        for (int j = 0; j < 1 + CZK_POREP_DRG_PARENTS + CZK_POREP_EXP_PARENTS; j++) {
            czk_c1_column *c = j == 0                       ? &p->c_x
                               : j <= CZK_POREP_DRG_PARENTS ? &p->drg_parents[j - 1]
                                                            : &p->exp_parents[j - 7];
            c->index = (uint32_t)czk_rng_u64(rng);
            c->n_rows = t->layers;
            for (uint32_t r = 0; r < t->layers; r++)
                czk_fr_random(&c->rows[r], rng);
            fill_merkle(&c->inclusion, sh->variant, tn, ta, rng);
        }
        p->n_labeling = t->layers;
        for (uint32_t l = 0; l < t->layers; l++)
            fill_labeling(&p->labeling[l], l + 1, rng);
        fill_labeling(&p->encoding, t->layers, rng);
    }
    czk_fr fr;
    uint8_t *commits[3] = {c1->comm_r, c1->comm_d, c1->replica_id};
    for (int j = 0; j < 3; j++) {
        czk_fr_random(&fr, rng);
        czk_fr_to_bytes_le(commits[j], &fr);
    }
    czk_rng_bytes(rng, c1->seed, 32);
    czk_rng_bytes(rng, c1->ticket, 32);
    c1->seed[31] = 0xff; /* randomness, not a field element: ≥ r must pass */
    return CZK_OK;
}

/* ---- comparing -------------------------------------------------------------------------- */

static int merkle_diff(const czk_c1_merkle *a, const czk_c1_merkle *b, char *why, size_t n,
                       const char *where) {
    if (a->variant != b->variant || a->n_base != b->n_base || a->n_sub != b->n_sub ||
        a->n_top != b->n_top || a->n_levels != b->n_levels) {
        snprintf(why, n, "%s: shape", where);
        return 1;
    }
    if (!czk_fr_equal(&a->root, &b->root) || !czk_fr_equal(&a->leaf, &b->leaf)) {
        snprintf(why, n, "%s: root or leaf", where);
        return 1;
    }
    for (uint32_t l = 0; l < a->n_levels; l++) {
        const czk_vanilla_level *x = &a->level[l], *y = &b->level[l];
        if (x->arity != y->arity || x->index != y->index) {
            snprintf(why, n, "%s: level %u arity/index %u/%u vs %u/%u", where, l, x->arity,
                     x->index, y->arity, y->index);
            return 1;
        }
        for (uint32_t s = 0; s + 1 < x->arity; s++)
            if (!czk_fr_equal(&x->sib[s], &y->sib[s])) {
                snprintf(why, n, "%s: level %u sibling %u", where, l, s);
                return 1;
            }
    }
    return 0;
}

static int column_diff(const czk_c1_column *a, const czk_c1_column *b, char *why, size_t n,
                       const char *where) {
    if (a->index != b->index || a->n_rows != b->n_rows) {
        snprintf(why, n, "%s: index or row count", where);
        return 1;
    }
    for (uint32_t r = 0; r < a->n_rows; r++)
        if (!czk_fr_equal(&a->rows[r], &b->rows[r])) {
            snprintf(why, n, "%s: row %u", where, r);
            return 1;
        }
    return merkle_diff(&a->inclusion, &b->inclusion, why, n, where);
}

static int labeling_diff(const czk_c1_labeling *a, const czk_c1_labeling *b, char *why, size_t n,
                         const char *where) {
    if (a->layer_index != b->layer_index || a->node != b->node) {
        snprintf(why, n, "%s: layer_index or node", where);
        return 1;
    }
    for (int j = 0; j < CZK_POREP_PARENTS; j++)
        if (!czk_fr_equal(&a->parents[j], &b->parents[j])) {
            snprintf(why, n, "%s: parent %d", where, j);
            return 1;
        }
    return 0;
}

/* 0 when a and b hold the same C1 output (every used field), else 1 with `why`. */
static int c1_diff(const czk_c1 *a, const czk_c1 *b, char *why, size_t n) {
    if (a->type != b->type || a->n_partitions != b->n_partitions ||
        a->n_challenges != b->n_challenges) {
        snprintf(why, n, "type or counts");
        return 1;
    }
    if (memcmp(a->comm_r, b->comm_r, 32) || memcmp(a->comm_d, b->comm_d, 32) ||
        memcmp(a->replica_id, b->replica_id, 32) || memcmp(a->seed, b->seed, 32) ||
        memcmp(a->ticket, b->ticket, 32)) {
        snprintf(why, n, "top-level bytes");
        return 1;
    }
    for (uint32_t k = 0; k < a->n_partitions; k++)
        for (uint32_t i = 0; i < a->n_challenges; i++) {
            const czk_c1_proof *x = czk_c1_at(a, k, i), *y = czk_c1_at(b, k, i);
            char w[64];
            snprintf(w, sizeof(w), "[%u][%u]", k, i);
            size_t wl = strlen(w);
            int d =
                merkle_diff(&x->comm_d_proof, &y->comm_d_proof, why, n, "comm_d") ||
                merkle_diff(&x->comm_r_last_proof, &y->comm_r_last_proof, why, n, "comm_r_last") ||
                column_diff(&x->c_x, &y->c_x, why, n, "c_x");
            for (int j = 0; !d && j < CZK_POREP_DRG_PARENTS; j++)
                d = column_diff(&x->drg_parents[j], &y->drg_parents[j], why, n, "drg");
            for (int j = 0; !d && j < CZK_POREP_EXP_PARENTS; j++)
                d = column_diff(&x->exp_parents[j], &y->exp_parents[j], why, n, "exp");
            if (!d && x->n_labeling != y->n_labeling) {
                snprintf(why, n, "labeling count");
                d = 1;
            }
            for (uint32_t l = 0; !d && l < x->n_labeling; l++)
                d = labeling_diff(&x->labeling[l], &y->labeling[l], why, n, "labeling");
            if (!d)
                d = labeling_diff(&x->encoding, &y->encoding, why, n, "encoding");
            if (d) {
                size_t m = strlen(why);
                if (m + wl < n) { /* prefix the challenge */
                    memmove(why + wl, why, m + 1);
                    memcpy(why, w, wl);
                }
                return 1;
            }
        }
    return 0;
}

/* ---- JSON helpers ------------------------------------------------------------------------- */

static char *write_json(const czk_c1 *c1, int wrap, uint64_t sector_num, size_t *len) {
    char *out = NULL;
    czk_err e = {0};
    if (czk_c1_write(&out, len, c1, wrap, sector_num, &e) != CZK_OK) {
        fprintf(stderr, "czk_c1_write: %s\n", e.msg);
        return NULL;
    }
    return out;
}

/* Parses `json` and compares it with `want`; returns 0 or 1 with a message in why. */
static int parse_equal(const char *json, size_t len, const czk_c1 *want, czk_c1 *got, char *why,
                       size_t n) {
    czk_err e = {0};
    int rc = czk_c1_parse(got, (const uint8_t *)json, len, "c1.json", &e);
    if (rc != CZK_OK) {
        snprintf(why, n, "parse failed (%d): %.180s", rc, e.msg);
        return 1;
    }
    return c1_diff(want, got, why, n);
}

/* A malloc'ed copy of s[0..len) with s[at..at+del) replaced by `ins`. */
static char *splice(const char *s, size_t len, size_t at, size_t del, const char *ins,
                    size_t *out_len) {
    size_t il = strlen(ins), n = len - del + il;
    char *o = malloc(n + 1);
    if (o == NULL)
        return NULL;
    memcpy(o, s, at);
    memcpy(o + at, ins, il);
    memcpy(o + at + il, s + at + del, len - at - del);
    o[n] = '\0';
    *out_len = n;
    return o;
}

/* Offset of the n-th (1-based) occurrence of needle at or after `from`, or SIZE_MAX. */
static size_t find_nth(const char *s, const char *needle, int n, size_t from) {
    const char *p = s + from;
    for (int k = 0; k < n; k++) {
        p = strstr(p, needle);
        if (p == NULL)
            return SIZE_MAX;
        if (k + 1 < n)
            p++;
    }
    return (size_t)(p - s);
}

/* Length of the JSON array at s[at] ('[' to its matching ']'). */
static size_t array_len(const char *s, size_t at) {
    int depth = 0;
    size_t i = at;
    do {
        depth += s[i] == '[' ? 1 : s[i] == ']' ? -1 : 0;
        i++;
    } while (depth > 0 && s[i] != '\0');
    return i - at;
}

/* Parses `json` expecting failure with `code`, a message that contains `path` (or equals
 * "c1.json: " path ": " detail when `detail` is given) and nothing left allocated. */
static int expect_error(czk_test_ctx *t, const char *json, size_t len, int code, const char *path,
                        const char *detail, int line) {
    czk_c1 c1;
    czk_err e = {0};
    size_t before = czk_alloc_in_use();
    int rc = czk_c1_parse(&c1, (const uint8_t *)json, len, "c1.json", &e);
    int ok = rc == code && c1.proofs == NULL && czk_alloc_in_use() == before &&
             strstr(e.msg, path) != NULL;
    if (ok && detail != NULL) {
        char want[512];
        snprintf(want, sizeof(want), "c1.json: %s: %s", path, detail);
        ok = strcmp(e.msg, want) == 0;
    }
    if (!ok)
        czk_test_fail(t, __FILE__, line, "expected %s at \"%s\"%s%s, got %s: %s",
                      czk_status_name(code), path, detail ? ": " : "", detail ? detail : "",
                      czk_status_name(rc), e.msg);
    if (rc == CZK_OK)
        czk_c1_clear(&c1);
    return ok;
}

#define EXPECT_ERROR(json, len, code, path, detail)                                                \
    do {                                                                                           \
        if (!expect_error(t, (json), (len), (code), (path), (detail), __LINE__))                   \
            return;                                                                                \
    } while (0)

/* The 2 KiB fixture every error test edits: a random C1 and its Rust-order JSON. */
typedef struct fixture {
    czk_c1 c1;
    char *json;
    size_t len;
} fixture;

static int fixture_make(fixture *f, czk_rng *rng, int wrap) {
    memset(f, 0, sizeof(*f));
    if (random_c1(&f->c1, type_named("StackedDrg2KiBV1_1"), rng) != CZK_OK)
        return 0;
    f->json = write_json(&f->c1, wrap, 77, &f->len);
    return f->json != NULL;
}

static void fixture_free(fixture *f) {
    czk_free(f->json);
    czk_c1_clear(&f->c1);
}

/* Edits the fixture: replaces `del` bytes at the first occurrence of `anchor` at or after
 * `from`, offset by `skip`, with `ins`; returns the new text (malloc'ed) or NULL. */
static char *edit(const fixture *f, size_t from, const char *anchor, size_t skip, size_t del,
                  const char *ins, size_t *len) {
    size_t at = find_nth(f->json, anchor, 1, from);
    if (at == SIZE_MAX)
        return NULL;
    return splice(f->json, f->len, at + skip, del, ins, len);
}

/* Edits the fixture (as edit) and parses the result, expecting the error of expect_error. */
static int expect_edit_error(czk_test_ctx *t, const fixture *f, size_t from, const char *anchor,
                             size_t skip, size_t del, const char *ins, int code, const char *path,
                             const char *detail, int line) {
    size_t n;
    char *e = edit(f, from, anchor, skip, del, ins, &n);
    if (e == NULL) {
        czk_test_fail(t, __FILE__, line, "no \"%s\" in the fixture", anchor);
        return 0;
    }
    int ok = expect_error(t, e, n, code, path, detail, line);
    free(e);
    return ok;
}

#define EXPECT_EDIT_ERROR(f, from, anchor, skip, del, ins, code, path, detail)                     \
    do {                                                                                           \
        if (!expect_edit_error(t, (f), (from), (anchor), (skip), (del), (ins), (code), (path),     \
                               (detail), __LINE__))                                                \
            return;                                                                                \
    } while (0)

/* One edit of the fixture (as edit, from its start) and the error its parse must give. */
typedef struct edit_case {
    const char *anchor;
    size_t skip, del;
    const char *ins;
    int code;
    const char *path, *detail;
} edit_case;

/* EXPECT_EDIT_ERROR of each of cases[0..n) on a fresh fixture, up to the first failure. */
static void expect_edit_errors(czk_test_ctx *t, const edit_case *cases, size_t n, int line) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    for (size_t i = 0; i < n; i++) {
        const edit_case *c = &cases[i];
        if (!expect_edit_error(t, &f, 0, c->anchor, c->skip, c->del, c->ins, c->code, c->path,
                               c->detail, line))
            break;
    }
    fixture_free(&f);
}

#define EXPECT_EDIT_ERRORS(cases)                                                                  \
    expect_edit_errors(t, (cases), sizeof(cases) / sizeof((cases)[0]), __LINE__)

#define P00 "vanilla_proofs.StackedDrg2KiBV1[0][0]"
#define P01 "vanilla_proofs.StackedDrg2KiBV1[0][1]"

/* ---- json-c checks ------------------------------------------------------------------------ */

/* Every object's keys, in order, as the Rust structs declare them (rust-fil-proofs
 * storage-proofs-core merkle/proof.rs; storage-proofs-porep stacked/vanilla/params.rs,
 * column_proof.rs, column.rs, labeling_proof.rs, encoding_proof.rs; rust-filecoin-proofs-api
 * seal.rs), and the single-key enum objects. */
static const char *const rust_orders[][8] = {
    {"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"},
    {"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs",
     "encoding_proof"},
    {"c_x", "drg_parents", "exp_parents"},
    {"column", "inclusion_proof"},
    {"index", "rows", "_h"},
    {"parents", "layer_index", "node"},
    {"data"},
    {"root", "leaf", "path"},
    {"base_proof", "sub_proof", "root", "leaf"},
    {"base_proof", "sub_proof", "top_proof", "root", "leaf"},
    {"path"},
    {"hashes", "index"},
    {"Single"},
    {"Sub"},
    {"Top"},
    {"StackedDrg2KiBV1"},
    {"StackedDrg8MiBV1"},
    {"StackedDrg512MiBV1"},
    {"StackedDrg32GiBV1"},
    {"StackedDrg64GiBV1"},
};

/* Checks every object under o against rust_orders; counts the objects. Returns 1 when all
 * match, else 0 with the first offending key list in why. */
static int check_orders(json_object *o, size_t *objects, char *why, size_t n) {
    if (json_object_is_type(o, json_type_array)) {
        for (size_t j = 0; j < json_object_array_length(o); j++)
            if (!check_orders(json_object_array_get_idx(o, j), objects, why, n))
                return 0;
        return 1;
    }
    if (!json_object_is_type(o, json_type_object))
        return 1;
    (*objects)++;
    const char *keys[8];
    size_t nk = 0;
    json_object_object_foreach(o, key, val) {
        (void)val;
        if (nk == 8) {
            snprintf(why, n, "object with more than 8 keys");
            return 0;
        }
        keys[nk++] = key;
    }
    int match = 0;
    for (size_t r = 0; !match && r < sizeof(rust_orders) / sizeof(rust_orders[0]); r++) {
        size_t m = 0;
        while (m < 8 && rust_orders[r][m] != NULL)
            m++;
        match = m == nk;
        for (size_t j = 0; match && j < m; j++)
            match = strcmp(keys[j], rust_orders[r][j]) == 0;
    }
    if (!match) {
        snprintf(why, n, "keys %s, %s, ... in no Rust order", nk > 0 ? keys[0] : "-",
                 nk > 1 ? keys[1] : "-");
        return 0;
    }
    json_object_object_foreach(o, k2, v2) {
        (void)k2;
        if (!check_orders(v2, objects, why, n))
            return 0;
    }
    return 1;
}

static json_object *json_parse(const char *s, size_t len) {
    json_tokener *tok = json_tokener_new_ex(64);
    if (tok == NULL)
        return NULL;
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *o = json_tokener_parse_ex(tok, s, (int)len);
    if (json_tokener_get_error(tok) != json_tokener_success) {
        json_object_put(o);
        o = NULL;
    }
    json_tokener_free(tok);
    return o;
}

/* A copy of o with every object's keys in reverse order (arrays keep theirs). */
static json_object *reversed(json_object *o) {
    if (json_object_is_type(o, json_type_array)) {
        json_object *a = json_object_new_array();
        for (size_t j = 0; j < json_object_array_length(o); j++)
            json_object_array_add(a, reversed(json_object_array_get_idx(o, j)));
        return a;
    }
    if (!json_object_is_type(o, json_type_object))
        return json_object_get(o);
    const char *keys[16];
    json_object *vals[16];
    size_t nk = 0;
    json_object_object_foreach(o, key, val) {
        if (nk < 16) {
            keys[nk] = key;
            vals[nk++] = val;
        }
    }
    json_object *r = json_object_new_object();
    while (nk-- > 0)
        json_object_object_add(r, keys[nk], reversed(vals[nk]));
    return r;
}

/* A copy of the top-level object with its keys in `order` (values shared). */
static json_object *top_in_order(json_object *o, const char *const *order, size_t n) {
    json_object *r = json_object_new_object();
    for (size_t j = 0; j < n; j++) {
        json_object *v = NULL;
        if (json_object_object_get_ex(o, order[j], &v))
            json_object_object_add(r, order[j], json_object_get(v));
    }
    return r;
}

/* Curio's Commit1OutRaw field order (lib/proof/porep_vproof_types.go). */
static const char *const go_order[] = {"comm_d", "comm_r", "registered_proof", "replica_id",
                                       "seed",   "ticket", "vanilla_proofs"};

/* The compact text with random JSON whitespace between tokens (never inside strings). */
static char *sprinkle_ws(const char *s, size_t len, czk_rng *rng, size_t *out_len) {
    static const char wsc[4] = {' ', '\t', '\n', '\r'};
    char *o = malloc(len * 3 + 1);
    if (o == NULL)
        return NULL;
    size_t n = 0;
    int in_str = 0;
    for (size_t i = 0; i < len; i++) {
        char c = s[i];
        if (!in_str && (c == '{' || c == '}' || c == '[' || c == ']' || c == ',' || c == ':')) {
            uint64_t r = czk_rng_u64(rng);
            if (r & 1)
                o[n++] = wsc[(r >> 1) & 3];
            o[n++] = c;
            if (r & 8)
                o[n++] = wsc[(r >> 4) & 3];
            continue;
        }
        if (c == '"' && (i == 0 || s[i - 1] != '\\'))
            in_str = !in_str;
        o[n++] = c;
    }
    o[n] = '\0';
    *out_len = n;
    return o;
}

/* ---- round trips ------------------------------------------------------------------------ */

/* Writes a random C1 of `name`, checks it with json-c when `jsonc`, parses it back, compares,
 * and writes it again (the bytes must repeat). Prints the speeds when `report`. */
static void roundtrip(czk_test_ctx *t, const char *name, int jsonc, int report) {
    const czk_porep_type *ty = type_named(name);
    CHECKF(ty != NULL, "no type %s", name);
    czk_c1 a, b;
    char why[256];
    size_t before = czk_alloc_in_use();
    CHECK(random_c1(&a, ty, &t->rng) == CZK_OK);
    size_t len = 0, len2 = 0;
    uint64_t t0 = czk_time_ns();
    char *json = write_json(&a, 0, 0, &len);
    uint64_t t1 = czk_time_ns();
    CHECK(json != NULL);
    CHECK_EQ_INT(strlen(json), len);
    int d = parse_equal(json, len, &a, &b, why, sizeof(why));
    uint64_t t2 = czk_time_ns();
    CHECKF(!d, "%s: %s", name, why);
    char *again = write_json(&b, 0, 0, &len2);
    CHECK(again != NULL);
    CHECK(len2 == len && memcmp(json, again, len) == 0);
    if (report) { /* the best of three more of each, with the first */
        uint64_t wbest = t1 - t0, pbest = t2 - t1;
        for (int r = 0; r < 3; r++) {
            czk_c1 c;
            size_t l3;
            uint64_t u0 = czk_time_ns();
            char *j3 = write_json(&a, 0, 0, &l3);
            uint64_t u1 = czk_time_ns();
            int ok = czk_c1_parse(&c, (const uint8_t *)json, len, "c1.json", NULL) == CZK_OK;
            uint64_t u2 = czk_time_ns();
            czk_free(j3);
            czk_c1_clear(&c);
            CHECK(j3 != NULL && ok);
            wbest = u1 - u0 < wbest ? u1 - u0 : wbest;
            pbest = u2 - u1 < pbest ? u2 - u1 : pbest;
        }
        fprintf(stderr, "%s: %zu bytes of JSON; write %.1f MB/s, parse %.1f MB/s\n", name, len,
                (double)len / ((double)wbest / 1e9) / 1e6,
                (double)len / ((double)pbest / 1e9) / 1e6);
    }
    if (jsonc) {
        json_object *o = json_parse(json, len);
        CHECKF(o != NULL, "%s: json-c refuses the output", name);
        const char *plain = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
        int same = strlen(plain) == len && memcmp(plain, json, len) == 0;
        size_t objects = 0;
        int orders = check_orders(o, &objects, why, sizeof(why));
        json_object_put(o);
        CHECKF(same, "%s: json-c re-prints the output differently (not compact JSON)", name);
        CHECKF(orders, "%s: %s", name, why);
        CHECK(objects > 100);
    }
    czk_free(json);
    czk_free(again);
    czk_c1_clear(&a);
    czk_c1_clear(&b);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
}

CZK_TEST(c1_roundtrip_small) {
    static const char *const sizes[] = {"2KiB", "8MiB", "512MiB"};
    static const char *const suffixes[] = {"V1", "V1_1", "V1_1_Feat_SyntheticPoRep",
                                           "V1_2_Feat_NonInteractivePoRep"};
    for (size_t s = 0; s < 3; s++)
        for (size_t v = 0; v < 4; v++) {
            char name[64];
            snprintf(name, sizeof(name), "StackedDrg%s%s", sizes[s], suffixes[v]);
            roundtrip(t, name, 1, 0);
            if (t->failures)
                return;
        }
}

CZK_TEST(c1_roundtrip_32g) {
    roundtrip(t, "StackedDrg32GiBV1_1", 0, 1);
}

CZK_TEST(c1_roundtrip_64g) {
    roundtrip(t, "StackedDrg64GiBV1_1", 0, 1);
}

/* The Sub and Top layouts in the writer's text, in Rust's field order (json-c's whole-tree
 * check is too heavy for 40 MB, so the big shapes are checked by their text). */
CZK_TEST(c1_write_big_shapes_text) {
    static const struct {
        const char *type, *seq[6];
    } cases[] = {
        {"StackedDrg32GiBV1_1",
         {"\"vanilla_proofs\":{\"StackedDrg32GiBV1\":[[{\"comm_d_proofs\":{\"data\":{\"Single\":"
          "{\"root\":[",
          "\"comm_r_last_proof\":{\"data\":{\"Sub\":{\"base_proof\":{\"path\":[{\"hashes\":[[",
          "]},\"sub_proof\":{\"path\":[{\"hashes\":[[", "\"root\":[", "\"leaf\":[",
          "]}}},\"replica_column_proofs\":{\"c_x\":{\"column\":{\"index\":"}},
        {"StackedDrg64GiBV1_1",
         {"\"vanilla_proofs\":{\"StackedDrg64GiBV1\":[[{\"comm_d_proofs\":{\"data\":{\"Single\":"
          "{\"root\":[",
          "\"comm_r_last_proof\":{\"data\":{\"Top\":{\"base_proof\":{\"path\":[{\"hashes\":[[",
          "]},\"sub_proof\":{\"path\":[{\"hashes\":[[",
          "]},\"top_proof\":{\"path\":[{\"hashes\":[[", "\"root\":[",
          "]}}},\"replica_column_proofs\":{\"c_x\":{\"column\":{\"index\":"}},
    };
    for (size_t c = 0; c < 2; c++) {
        czk_c1 a;
        CHECK(random_c1(&a, type_named(cases[c].type), &t->rng) == CZK_OK);
        size_t len;
        char *json = write_json(&a, 0, 0, &len);
        czk_c1_clear(&a);
        CHECK(json != NULL);
        size_t at = 0;
        for (size_t j = 0; j < 6 && at != SIZE_MAX; j++) {
            at = find_nth(json, cases[c].seq[j], 1, at);
            CHECKF(at != SIZE_MAX, "%s: \"%s\" not found in order", cases[c].type, cases[c].seq[j]);
        }
        /* a Top proof's top level has one sibling (arity 2) */
        if (c == 1)
            CHECK(strstr(json, "\"top_proof\":{\"path\":[{\"hashes\":[[") != NULL);
        CHECK(strncmp(json, "{\"registered_proof\":\"", 21) == 0);
        czk_free(json);
    }
}

CZK_TEST(c1_key_order_and_whitespace) {
    fixture f;
    char why[256];
    CHECK(fixture_make(&f, &t->rng, 0));
    json_object *o = json_parse(f.json, f.len);
    CHECK(o != NULL);
    czk_c1 got;

    /* Curio's Go re-encoding: the top-level keys in Commit1OutRaw's order, compact. */
    json_object *go = top_in_order(o, go_order, 7);
    const char *s = json_object_to_json_string_ext(go, JSON_C_TO_STRING_PLAIN);
    CHECK(strncmp(s, "{\"comm_d\":[", 11) == 0);
    int d = parse_equal(s, strlen(s), &f.c1, &got, why, sizeof(why));
    czk_c1_clear(&got);
    json_object_put(go);
    CHECKF(!d, "Go order: %s", why);

    /* Every object reversed (vanilla_proofs now comes before registered_proof), pretty. */
    json_object *rev = reversed(o);
    s = json_object_to_json_string_ext(rev, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED);
    CHECK(strchr(s, '\n') != NULL);
    CHECK(strstr(s, "\"vanilla_proofs\"") < strstr(s, "\"registered_proof\""));
    d = parse_equal(s, strlen(s), &f.c1, &got, why, sizeof(why));
    czk_c1_clear(&got);
    json_object_put(rev);
    CHECKF(!d, "reversed, pretty: %s", why);
    json_object_put(o);

    /* Random whitespace of all four kinds around every token, and around the whole. */
    for (int r = 0; r < 4; r++) {
        size_t n;
        char *w = sprinkle_ws(f.json, f.len, &t->rng, &n);
        CHECK(w != NULL);
        char *w2 = malloc(n + 8);
        CHECK(w2 != NULL);
        memcpy(w2, " \r\n\t", 4);
        memcpy(w2 + 4, w, n);
        memcpy(w2 + 4 + n, "\n\t \r", 4);
        d = parse_equal(w2, n + 8, &f.c1, &got, why, sizeof(why));
        czk_c1_clear(&got);
        free(w);
        free(w2);
        CHECKF(!d, "whitespace: %s", why);
    }

    /* Escapes in keys and in the name are JSON too. */
    size_t n;
    char *e = edit(&f, 0, "\"registered_proof\":\"StackedDrg2KiBV1_1\"", 0, 39,
                   "\"registered\\u005fproof\":\"StackedDrg2KiB\\u00561_1\"", &n);
    CHECK(e != NULL);
    d = parse_equal(e, n, &f.c1, &got, why, sizeof(why));
    czk_c1_clear(&got);
    free(e);
    CHECKF(!d, "escapes: %s", why);
    fixture_free(&f);
}

CZK_TEST(c1_wrapper) {
    fixture f;
    char why[256];
    CHECK(fixture_make(&f, &t->rng, 0));
    size_t wlen;
    char *w = write_json(&f.c1, 1, 123456789012ull, &wlen);
    CHECK(w != NULL);

    /* The same wrapper built independently: Go's field order and OpenSSL's base64. */
    size_t b64cap = (f.len + 2) / 3 * 4 + 1;
    unsigned char *b64 = malloc(b64cap);
    CHECK(b64 != NULL);
    int bl = EVP_EncodeBlock(b64, (const unsigned char *)f.json, (int)f.len);
    CHECK(bl > 0);
    size_t elen = (size_t)bl + 100;
    char *expect = malloc(elen);
    CHECK(expect != NULL);
    snprintf(expect, elen, "{\"SectorNum\":123456789012,\"Phase1Out\":\"%s\",\"SectorSize\":2048}",
             (const char *)b64);
    CHECKF(strlen(expect) == wlen && memcmp(expect, w, wlen) == 0,
           "the writer's wrapper differs from Go's");

    czk_c1 got;
    int d = parse_equal(w, wlen, &f.c1, &got, why, sizeof(why));
    CHECKF(!d, "wrapper: %s", why);
    CHECK(got.wrapped == 1 && got.sector_num == 123456789012ull && got.wrapper_sector_size == 2048);
    czk_c1_clear(&got);

    /* Keys reordered and whitespace. (Base64 of this ASCII JSON never has '+' or '/': no
     * 6-bit group of these characters is 62 or 63, so json-c escapes nothing here.) */
    json_object *o = json_object_new_object();
    json_object_object_add(o, "SectorSize", json_object_new_uint64(2048));
    json_object_object_add(o, "Phase1Out", json_object_new_string((const char *)b64));
    json_object_object_add(o, "SectorNum", json_object_new_uint64(5));
    const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY);
    d = parse_equal(s, strlen(s), &f.c1, &got, why, sizeof(why));
    json_object_put(o);
    CHECKF(!d, "reordered wrapper: %s", why);
    CHECK(got.wrapped == 1 && got.sector_num == 5);
    czk_c1_clear(&got);

    /* A JSON escape inside Phase1Out ("\u0041" for its first 'A', or else its 12th char). */
    size_t at = find_nth(w, "\"Phase1Out\":\"", 1, 0) + 13, n;
    char esc[8];
    snprintf(esc, sizeof(esc), "\\u%04x", (unsigned)(unsigned char)w[at + 12]);
    char *e = splice(w, wlen, at + 12, 1, esc, &n);
    CHECK(e != NULL);
    d = parse_equal(e, n, &f.c1, &got, why, sizeof(why));
    free(e);
    CHECKF(!d, "escaped wrapper: %s", why);
    czk_c1_clear(&got);

    /* The unwrapped form says so. */
    d = parse_equal(f.json, f.len, &f.c1, &got, why, sizeof(why));
    CHECKF(!d, "%s", why);
    CHECK(got.wrapped == 0 && got.sector_num == 0 && got.wrapper_sector_size == 0);
    czk_c1_clear(&got);
    free(b64);
    free(expect);
    czk_free(w);
    fixture_free(&f);
}

CZK_TEST(c1_shape_helper_and_node) {
    /* czk_c1_proof_set_shape gives the shape random_c1 sets by hand, for every type. */
    for (uint64_t id = 0; id < CZK_POREP_N_TYPES; id++) {
        const czk_porep_type *ty = czk_porep_type_from_abi(id, NULL);
        CHECK(ty != NULL);
        if (ty->sector_size > (512ull << 20) && id != 8 && id != 9)
            continue; /* the big ones once (V1_1) */
        czk_c1 a;
        CHECK(random_c1(&a, ty, &t->rng) == CZK_OK);
        czk_c1_proof *p = czk_c1_at(&a, 0, 0);
        czk_c1_proof *q = calloc(1, sizeof(*q));
        CHECK(q != NULL);
        memcpy(q, p, sizeof(*q));
        czk_c1_proof_set_shape(q, ty);
        int same = memcmp(p, q, sizeof(*q)) == 0;
        free(q);
        czk_c1_clear(&a);
        CHECKF(same, "%s: czk_c1_proof_set_shape disagrees with the table", ty->name);
    }
    /* Mixed-radix node: base 8 digits 3, 5 then sub digit 7 then top digit 1:
     * 3 + 5·8 + 7·64 + 1·512. */
    czk_c1_merkle m;
    memset(&m, 0, sizeof(m));
    m.n_levels = 4;
    uint32_t ar[4] = {8, 8, 8, 2}, ix[4] = {3, 5, 7, 1};
    for (int l = 0; l < 4; l++) {
        m.level[l].arity = ar[l];
        m.level[l].index = ix[l];
    }
    CHECK_EQ_INT(czk_c1_merkle_node(&m), 3 + 5 * 8 + 7 * 64 + 512);
    /* A 64 GiB comm_d path of all ones is the last node. */
    m.n_levels = 31;
    for (int l = 0; l < 31; l++) {
        m.level[l].arity = 2;
        m.level[l].index = 1;
    }
    CHECK_EQ_INT(czk_c1_merkle_node(&m), (1ll << 31) - 1);
}

/* ---- errors, one test per fault class ---------------------------------------------------- */

CZK_TEST(c1_err_truncated) {
    fixture f;
    char detail[128];
    CHECK(fixture_make(&f, &t->rng, 0));
    const char *anchor = "\"labeling_proofs\":[{\"parents\":[";
    size_t at = find_nth(f.json, anchor, 1, 0);
    CHECK(at != SIZE_MAX);
    at += strlen(anchor);
    EXPECT_ERROR(f.json, at, CZK_EFORMAT, P00 ".labeling_proofs[0].parents[0]",
                 "expected an array, found the end of the input");
    size_t end = at + array_len(f.json, at); /* after the first parent */
    snprintf(detail, sizeof(detail), "expected ',' or ']', found the end of the input at byte %zu",
             end);
    EXPECT_ERROR(f.json, end, CZK_EFORMAT, P00 ".labeling_proofs[0].parents", detail);
    snprintf(detail, sizeof(detail), "expected ',' or '}', found the end of the input at byte %zu",
             f.len - 1);
    EXPECT_ERROR(f.json, f.len - 1, CZK_EFORMAT, "(top level)", detail);
    EXPECT_ERROR(f.json, 0, CZK_EFORMAT, "(top level)",
                 "expected an object, found the end of the input");
    /* inside a string */
    EXPECT_ERROR(f.json, 25, CZK_EFORMAT, "registered_proof", NULL);
    /* a truncated wrapper: the base64 string never ends */
    fixture g;
    CHECK(fixture_make(&g, &t->rng, 1));
    EXPECT_ERROR(g.json, g.len / 2, CZK_EFORMAT, "Phase1Out", NULL);
    fixture_free(&g);
    /* every prefix of the head and many others fail cleanly */
    for (size_t n = 0; n < f.len; n += n < 600 ? 1 : 997) {
        czk_c1 c;
        czk_err e = {0};
        CHECKF(czk_c1_parse(&c, (const uint8_t *)f.json, n, "c1.json", &e) == CZK_EFORMAT,
               "prefix %zu: %s", n, e.msg);
        CHECK(strstr(e.msg, "end of the input") != NULL || strstr(e.msg, "unterminated") != NULL);
    }
    fixture_free(&f);
}

CZK_TEST(c1_err_base64) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 1));
    size_t at = find_nth(f.json, "\"Phase1Out\":\"", 1, 0);
    CHECK(at != SIZE_MAX);
    at += strlen("\"Phase1Out\":\"");
    size_t n;
    char *e = splice(f.json, f.len, at + 10, 1, "*", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "Phase1Out", "not base64: '*' at character 10");
    free(e);
    e = splice(f.json, f.len, at + 10, 1, "", &n); /* one character short */
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "Phase1Out", NULL);
    free(e);
    e = splice(f.json, f.len, at + 10, 0, "\\n", &n); /* Go's decoder skips newlines; cuzk not */
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "Phase1Out", NULL);
    free(e);
    static const char *const small[][2] = {
        {"{\"SectorNum\":1,\"Phase1Out\":\"QR==\",\"SectorSize\":2048}", "non-zero bits"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"QUE=QUFB\",\"SectorSize\":2048}", "'='"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"Q===\",\"SectorSize\":2048}", "'='"},
        {"{\"SectorNum\":1,\"Phase1Out\":\"QUJD-A==\",\"SectorSize\":2048}", "'-'"},
        {"{\"SectorNum\":1,\"Phase1Out\":12,\"SectorSize\":2048}",
         "expected a string (base64), found a number"},
    };
    for (size_t j = 0; j < sizeof(small) / sizeof(small[0]); j++) {
        czk_c1 c;
        czk_err er = {0};
        int rc =
            czk_c1_parse(&c, (const uint8_t *)small[j][0], strlen(small[j][0]), "c1.json", &er);
        CHECKF(rc == CZK_EFORMAT && strstr(er.msg, "c1.json: Phase1Out: ") != NULL &&
                   strstr(er.msg, small[j][1]) != NULL,
               "%s: %s", small[j][0], er.msg);
    }
    /* '+' and '/' are 62 and 63 (the bytes fb ef fe, ff fe fd): the inner parse sees them */
    const char *plus = "{\"SectorNum\":1,\"Phase1Out\":\"++/+\",\"SectorSize\":2048}";
    EXPECT_ERROR(plus, strlen(plus), CZK_EFORMAT, "Phase1Out: (top level)",
                 "expected an object, found byte 0xfb");
    const char *slash = "{\"SectorNum\":1,\"Phase1Out\":\"//79\",\"SectorSize\":2048}";
    EXPECT_ERROR(slash, strlen(slash), CZK_EFORMAT, "Phase1Out: (top level)",
                 "expected an object, found byte 0xff");
    /* valid base64 of something that is not a C1 output: the inner path is named */
    const char *a = "{\"SectorNum\":1,\"Phase1Out\":\"QQ==\",\"SectorSize\":2048}";
    EXPECT_ERROR(a, strlen(a), CZK_EFORMAT, "Phase1Out: (top level)", NULL);
    fixture_free(&f);
}

CZK_TEST(c1_err_missing_key) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    EXPECT_EDIT_ERROR(&f, 0, ",\"_h\":null", 0, 10, "", CZK_EFORMAT,
                      P00 ".replica_column_proofs.c_x.column", "missing key \"_h\"");
    size_t at = find_nth(f.json, ",\"seed\":[", 1, 0), n;
    CHECK(at != SIZE_MAX);
    char *e = splice(f.json, f.len, at, 8 + array_len(f.json, at + 8), "", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "(top level)", "missing key \"seed\"");
    free(e);
    const char *w = "{\"SectorNum\":1,\"Phase1Out\":\"QQ==\"}";
    EXPECT_ERROR(w, strlen(w), CZK_EFORMAT, "(top level)", "missing key \"SectorSize\"");
    EXPECT_ERROR("{}", 2, CZK_EFORMAT, "(top level)", "missing key \"registered_proof\"");
    fixture_free(&f);
}

CZK_TEST(c1_err_unknown_key) {
    static const edit_case cases[] = {
        {"\"labeling_proofs\":[{", 20, 0, "\"extra\":1,", CZK_EFORMAT, P00 ".labeling_proofs[0]",
         "unknown key \"extra\""},
        /* LabelingProof's _h is #[serde(skip)]: not a key */
        {"\"labeling_proofs\":[{", 20, 0, "\"_h\":null,", CZK_EFORMAT, P00 ".labeling_proofs[0]",
         "unknown key \"_h\""},
        /* a wrapper key in a C1 output, and inside Phase1Out */
        {"\"comm_r\":", 0, 0, "\"SectorNum\":1,", CZK_EFORMAT, "(top level)",
         "key \"SectorNum\" of Curio's wrapper in a C1 output"},
        /* a duplicate is refused as serde does */
        {"\"layer_index\":", 0, 0, "\"node\":5,", CZK_EFORMAT, P00 ".labeling_proofs[0]",
         "duplicate key \"node\""},
        /* keys differ from the known ones by a NUL only */
        {"\"labeling_proofs\":[{\"parents\"", 20, 9, "\"parents\\u0000\"", CZK_EFORMAT,
         P00 ".labeling_proofs[0]", "unknown key \"parents\""},
    };
    EXPECT_EDIT_ERRORS(cases);
}

CZK_TEST(c1_err_wrong_type) {
    static const edit_case cases[] = {
        {"\"layer_index\":1", 14, 1, "\"1\"", CZK_EFORMAT, P00 ".labeling_proofs[0].layer_index",
         "expected an integer, found a string"},
        {"\"_h\":null", 5, 4, "{}", CZK_EFORMAT, P00 ".replica_column_proofs.c_x.column._h",
         "expected null, found an object"},
        {"\"drg_parents\":[", 14, 0, "{\"a\":1},", CZK_EFORMAT,
         P00 ".replica_column_proofs.drg_parents", "expected an array, found an object"},
        {"\"registered_proof\":\"", 19, 0, "5,\"x\":", CZK_EFORMAT, "registered_proof",
         "expected a string, found a number"},
        {"\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":[", 43, 0, "true,", CZK_EFORMAT,
         P00 ".comm_d_proofs.data.Single.root[0]", "expected an integer 0..255, found a boolean"},
    };
    EXPECT_ERROR("[]", 2, CZK_EFORMAT, "(top level)", "expected an object, found an array");
    EXPECT_EDIT_ERRORS(cases);
}

CZK_TEST(c1_err_array_length) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    /* challenge 1's fourth DRG parent column gets a third row */
    size_t at = find_nth(f.json, "{\"comm_d_proofs\":", 2, 0);
    CHECK(at != SIZE_MAX);
    at = find_nth(f.json, "\"drg_parents\":[", 1, at);
    at = find_nth(f.json, "\"rows\":[", 4, at);
    CHECK(at != SIZE_MAX);
    char row[200] = "[";
    for (int j = 0; j < 32; j++)
        strcat(row, j < 31 ? "0," : "0],");
    size_t n;
    char *e = splice(f.json, f.len, at + 8, 0, row, &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, P01 ".replica_column_proofs.drg_parents[3].column.rows",
                 "expected 2 elements, found 3");
    free(e);
    /* one DRG parent column too few */
    at = find_nth(f.json, "\"drg_parents\":[", 1, 0) + 14;
    size_t exp = find_nth(f.json, ",\"exp_parents\":", 1, at);
    CHECK(exp != SIZE_MAX);
    /* drop the last column: find the last ",{\"column\"" before exp_parents */
    size_t last = at, q = at;
    while ((q = find_nth(f.json, ",{\"column\"", 1, q + 1)) < exp)
        last = q;
    e = splice(f.json, f.len, last, exp - 1 - last, "", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, P00 ".replica_column_proofs.drg_parents",
                 "expected 6 elements, found 5");
    free(e);
    /* a 33-byte value, a 31-byte value */
    at = find_nth(f.json, "\"comm_r\":[", 1, 0) + 10;
    e = splice(f.json, f.len, at, 0, "7,", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "comm_r", "expected 32 elements, found 33");
    free(e);
    size_t comma = find_nth(f.json, ",", 1, at);
    e = splice(f.json, f.len, at, comma + 1 - at, "", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "comm_r", "expected 32 elements, found 31");
    free(e);
    /* a second partition for a one-partition type */
    at = find_nth(f.json, "]]},\"comm_r\"", 1, 0);
    CHECK(at != SIZE_MAX);
    e = splice(f.json, f.len, at + 1, 0, ",[]", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "vanilla_proofs.StackedDrg2KiBV1",
                 "expected 1 elements, found 2");
    free(e);
    /* one labeling proof short */
    at = find_nth(f.json, "\"labeling_proofs\":[", 1, 0) + 19;
    size_t second = find_nth(f.json, ",{\"parents\"", 1, at);
    size_t close = find_nth(f.json, "],\"encoding_proof\"", 1, at);
    e = splice(f.json, f.len, second, close - second, "", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, P00 ".labeling_proofs", "expected 2 elements, found 1");
    free(e);
    fixture_free(&f);
}

CZK_TEST(c1_err_index_arity) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    size_t at = find_nth(f.json, "\"comm_r_last_proof\":", 1, 0);
    at = find_nth(f.json, "\"index\":", 1, at) + 8;
    size_t n;
    char *e = splice(f.json, f.len, at, 1, "8", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, P00 ".comm_r_last_proof.data.Single.path.path[0].index",
                 "index 8 is not below the arity 8");
    free(e);
    at = find_nth(f.json, "\"comm_d_proofs\":", 1, 0);
    at = find_nth(f.json, "\"index\":", 3, at) + 8;
    e = splice(f.json, f.len, at, 1, "2", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, P00 ".comm_d_proofs.data.Single.path.path[2].index",
                 "index 2 is not below the arity 2");
    free(e);
    /* a usize past u64 */
    e = splice(f.json, f.len, at, 1, "18446744073709551616", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, P00 ".comm_d_proofs.data.Single.path.path[2].index",
                 "18446744073709551616 is out of range for usize (at most 18446744073709551615)");
    free(e);
    fixture_free(&f);
}

static void modulus_json(char out[200], int minus_one) {
    uint8_t r[32];
    for (int j = 0; j < 4; j++)
        for (int b = 0; b < 8; b++)
            r[8 * j + b] = (uint8_t)(CZK_FR_MODULUS[j] >> (8 * b));
    if (minus_one)
        r[0]--; /* r ends in ...01 */
    size_t n = 0;
    out[n++] = '[';
    for (int j = 0; j < 32; j++)
        n += (size_t)snprintf(out + n, 200 - n, j < 31 ? "%u," : "%u]", r[j]);
}

CZK_TEST(c1_err_not_below_r) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    char r[200], rm1[200];
    modulus_json(r, 0);
    modulus_json(rm1, 1);
    const char *anchor = "\"comm_r_last_proof\":{\"data\":{\"Single\":{\"root\":";
    size_t at = find_nth(f.json, anchor, 1, 0) + strlen(anchor);
    size_t n;
    char *e = splice(f.json, f.len, at, array_len(f.json, at), r, &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_ERANGE, P00 ".comm_r_last_proof.data.Single.root",
                 "not a field element: the value is not below r");
    free(e);
    /* r − 1 is fine, and parses to −1 */
    e = splice(f.json, f.len, at, array_len(f.json, at), rm1, &n);
    CHECK(e != NULL);
    czk_c1 c;
    czk_err er = {0};
    CHECKF(czk_c1_parse(&c, (const uint8_t *)e, n, "c1.json", &er) == CZK_OK, "%s", er.msg);
    czk_fr m1;
    czk_fr_neg(&m1, &CZK_FR_ONE);
    CHECK(czk_fr_equal(&czk_c1_at(&c, 0, 0)->comm_r_last_proof.root, &m1));
    czk_c1_clear(&c);
    free(e);
    /* top-level commitments, a sibling and a labeling parent */
    const char *places[][2] = {
        {"\"comm_d\":", "comm_d"},
        {"\"replica_id\":", "replica_id"},
        {"\"hashes\":[", P00 ".comm_d_proofs.data.Single.path.path[0].hashes[0]"},
        {"\"parents\":[", P00 ".labeling_proofs[0].parents[0]"},
    };
    for (size_t j = 0; j < 4; j++) {
        at = find_nth(f.json, places[j][0], 1, 0) + strlen(places[j][0]);
        e = splice(f.json, f.len, at, array_len(f.json, at),
                   "[255,255,255,255,255,255,255,255,"
                   "255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,255,"
                   "255,255,255,255,255]",
                   &n);
        CHECK(e != NULL);
        EXPECT_ERROR(e, n, CZK_ERANGE, places[j][1], NULL);
        free(e);
    }
    /* seed and ticket are randomness: 32 bytes of 255 pass */
    at = find_nth(f.json, "\"ticket\":", 1, 0) + 9;
    e = splice(f.json, f.len, at, array_len(f.json, at), r, &n);
    CHECK(e != NULL);
    CHECKF(czk_c1_parse(&c, (const uint8_t *)e, n, "c1.json", &er) == CZK_OK, "%s", er.msg);
    czk_c1_clear(&c);
    free(e);
    /* a byte that is not a byte */
    at = find_nth(f.json, "\"comm_r\":[", 1, 0) + 10;
    e = splice(f.json, f.len, at, 0, "256,", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "comm_r[0]", "256 is out of range for u8 (at most 255)");
    free(e);
    fixture_free(&f);
}

CZK_TEST(c1_err_numbers) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    static const struct {
        const char *anchor, *value, *path, *detail;
    } cases[] = {
        {"\"layer_index\":", "-1", P00 ".labeling_proofs[0].layer_index",
         "expected an unsigned integer (u32), found -1"},
        {"\"layer_index\":", "-0", P00 ".labeling_proofs[0].layer_index",
         "expected an unsigned integer (u32), found -0"},
        {"\"layer_index\":", "1.0", P00 ".labeling_proofs[0].layer_index",
         "expected an integer (u32), found 1.0"},
        {"\"layer_index\":", "1e0", P00 ".labeling_proofs[0].layer_index",
         "expected an integer (u32), found 1e0"},
        {"\"layer_index\":", "4294967297", P00 ".labeling_proofs[0].layer_index",
         "4294967297 is out of range for u32 (at most 4294967295)"},
        {"\"layer_index\":", "01", P00 ".labeling_proofs[0].layer_index", NULL},
        {"\"node\":", "18446744073709551616", P00 ".labeling_proofs[0].node",
         "18446744073709551616 is out of range for u64 (at most 18446744073709551615)"},
        {"\"node\":", "1.", P00 ".labeling_proofs[0].node", NULL},
        {"\"index\":", "4294967296", P00 ".comm_d_proofs.data.Single.path.path[0].index",
         "index 4294967296 is not below the arity 2"},
        {"\"column\":{\"index\":", "4294967296", P00 ".replica_column_proofs.c_x.column.index",
         "4294967296 is out of range for u32 (at most 4294967295)"},
        {"\"comm_r\":[", "-3", "comm_r[0]", "expected an unsigned integer (u8), found -3"},
        {"\"comm_r\":[", "2.5", "comm_r[0]", "expected an integer (u8), found 2.5"},
    };
    for (size_t j = 0; j < sizeof(cases) / sizeof(cases[0]); j++) {
        size_t at = find_nth(f.json, cases[j].anchor, 1, 0);
        CHECK(at != SIZE_MAX);
        at += strlen(cases[j].anchor);
        size_t del = 0;
        while (f.json[at + del] >= '0' && f.json[at + del] <= '9')
            del++;
        size_t n;
        char *e = splice(f.json, f.len, at, del, cases[j].value, &n);
        CHECK(e != NULL);
        int ok = expect_error(t, e, n, CZK_EFORMAT, cases[j].path, cases[j].detail, __LINE__);
        free(e);
        if (!ok)
            return;
    }
    /* the largest u64 and u32 pass */
    size_t n;
    size_t at = find_nth(f.json, "\"node\":", 1, 0) + 7;
    size_t del = 0;
    while (f.json[at + del] >= '0' && f.json[at + del] <= '9')
        del++;
    char *e = splice(f.json, f.len, at, del, "18446744073709551615", &n);
    CHECK(e != NULL);
    czk_c1 c;
    czk_err er = {0};
    CHECKF(czk_c1_parse(&c, (const uint8_t *)e, n, "c1.json", &er) == CZK_OK, "%s", er.msg);
    CHECK(czk_c1_at(&c, 0, 0)->labeling[0].node == UINT64_MAX);
    czk_c1_clear(&c);
    free(e);
    fixture_free(&f);
}

CZK_TEST(c1_err_registered_proof) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    static const char *const bad[] = {"StackedDrg2KiBV1_3", "stackeddrg2kibv1_1", "",
                                      "StackedDrg2KiBV1_1 ", "StackedDrg2KiBV1_2_Feat_NiPoRep"};
    for (size_t j = 0; j < sizeof(bad) / sizeof(bad[0]); j++) {
        size_t n;
        char *e = edit(&f, 0, "\"StackedDrg2KiBV1_1\"", 1, 18, bad[j], &n);
        CHECK(e != NULL);
        char detail[128];
        snprintf(detail, sizeof(detail), "unknown registered seal proof \"%s\"", bad[j]);
        int ok = expect_error(t, e, n, CZK_EUNSUPPORTED, "registered_proof", detail, __LINE__);
        free(e);
        if (!ok)
            return;
    }
    /* every name of the table is accepted by the parser as itself (write, parse) */
    for (uint64_t id = 0; id < CZK_POREP_N_TYPES; id++) {
        const czk_porep_type *ty = czk_porep_type_from_abi(id, NULL);
        CHECK(ty != NULL);
        CHECK(czk_porep_type_from_name(ty->name, NULL) == ty);
    }
    CHECK(type_named("StackedDrg2KiBV1_1_Feat_SyntheticPoRep") != NULL);
    CHECK(type_named("StackedDrg64GiBV1_2_Feat_NonInteractivePoRep") != NULL);
    fixture_free(&f);
}

CZK_TEST(c1_err_size_variant) {
    static const edit_case cases[] = {
        {"\"StackedDrg2KiBV1\":", 1, 16, "StackedDrg8MiBV1", CZK_EUNSUPPORTED, "vanilla_proofs",
         "the size variant \"StackedDrg8MiBV1\", but registered_proof StackedDrg2KiBV1_1 "
         "needs \"StackedDrg2KiBV1\""},
        /* the version belongs to registered_proof, never to the size variant */
        {"\"StackedDrg2KiBV1\":", 1, 16, "StackedDrg2KiBV1_1", CZK_EUNSUPPORTED, "vanilla_proofs",
         NULL},
        {"\"vanilla_proofs\":{", 18, 0, "\"StackedDrg2KiBV1\":[],", CZK_EFORMAT,
         "vanilla_proofs.StackedDrg2KiBV1", "expected 1 elements, found 0"},
        {"]]},\"comm_r\"", 2, 0, ",\"StackedDrg2KiBV1\":[]", CZK_EFORMAT, "vanilla_proofs",
         "a second key \"StackedDrg2KiBV1\" after StackedDrg2KiBV1"},
    };
    EXPECT_EDIT_ERRORS(cases);
}

CZK_TEST(c1_err_sector_size) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 1));
    CHECK(f.len > 20 && strcmp(f.json + f.len - 19, ",\"SectorSize\":2048}") == 0);
    static const char *const sizes[] = {"34359738368", "0", "2049"};
    for (size_t j = 0; j < 3; j++) {
        size_t n;
        char *e = splice(f.json, f.len, f.len - 5, 4, sizes[j], &n);
        CHECK(e != NULL);
        char msg[200];
        snprintf(msg, sizeof(msg),
                 "SectorSize: %s, but Phase1Out's registered_proof StackedDrg2KiBV1_1 is for "
                 "2048-byte sectors",
                 sizes[j]);
        czk_c1 c;
        czk_err er = {0};
        size_t before = czk_alloc_in_use();
        int rc = czk_c1_parse(&c, (const uint8_t *)e, n, "c1.json", &er);
        free(e);
        CHECKF(rc == CZK_EUNSUPPORTED && strstr(er.msg, "c1.json: ") == er.msg &&
                   strstr(er.msg, msg) != NULL && czk_alloc_in_use() == before,
               "%s", er.msg);
    }
    fixture_free(&f);
}

CZK_TEST(c1_err_variant) {
    static const edit_case cases[] = {
        {"\"comm_r_last_proof\":{\"data\":{\"Single\"", 30, 6, "Sub", CZK_EFORMAT,
         P00 ".comm_r_last_proof.data", "variant Sub, but this tree's proofs are Single"},
        {"\"comm_d_proofs\":{\"data\":{\"Single\"", 26, 6, "Top", CZK_EFORMAT,
         P00 ".comm_d_proofs.data", "variant Top, but this tree's proofs are Single"},
        {"\"inclusion_proof\":{\"data\":{\"Single\"", 28, 6, "single", CZK_EFORMAT,
         P00 ".replica_column_proofs.c_x.inclusion_proof.data",
         "unknown variant \"single\" (expected Single, Sub or Top)"},
        {"\"comm_d_proofs\":{\"data\":{", 25, 0, "}, \"x\":{", CZK_EFORMAT,
         P00 ".comm_d_proofs.data", "expected one of Single, Sub or Top, found an empty object"},
        /* Sub's keys inside Single */
        {"\"comm_d_proofs\":{\"data\":{\"Single\":{", 35, 0, "\"base_proof\":{\"path\":[]},",
         CZK_EFORMAT, P00 ".comm_d_proofs.data.Single", "unknown key \"base_proof\""},
    };
    size_t n;
    /* the 32 GiB shape wants Sub: a Single there is refused */
    czk_c1 big;
    CHECK(random_c1(&big, type_named("StackedDrg32GiBV1_1"), &t->rng) == CZK_OK);
    size_t blen;
    char *bj = write_json(&big, 0, 0, &blen);
    czk_c1_clear(&big);
    CHECK(bj != NULL);
    size_t at = find_nth(bj, "\"comm_r_last_proof\":{\"data\":{\"Sub\"", 1, 0);
    CHECK(at != SIZE_MAX);
    char *e = splice(bj, blen, at + 30, 3, "Single", &n);
    czk_free(bj);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "vanilla_proofs.StackedDrg32GiBV1[0][0].comm_r_last_proof.data",
                 "variant Single, but this tree's proofs are Sub");
    free(e);
    EXPECT_EDIT_ERRORS(cases);
}

CZK_TEST(c1_err_misc) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    size_t n;
    /* labeling layers out of order */
    EXPECT_EDIT_ERROR(&f, 0, "\"layer_index\":1", 14, 1, "2", CZK_EFORMAT,
                      P00 ".labeling_proofs[0].layer_index", "layer_index is 2, expected 1");
    size_t at = find_nth(f.json, "\"encoding_proof\":", 1, 0);
    at = find_nth(f.json, "\"layer_index\":2", 1, at) + 14;
    char *e = splice(f.json, f.len, at, 1, "1", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, P00 ".encoding_proof.layer_index",
                 "layer_index is 1, expected 2");
    free(e);
    /* text after the JSON */
    e = splice(f.json, f.len, f.len, 0, " x", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "(top level)", NULL);
    free(e);
    /* a NUL byte inside */
    e = splice(f.json, f.len, 5, 0, "\x01", &n);
    CHECK(e != NULL);
    EXPECT_ERROR(e, n, CZK_EFORMAT, "(top level)", NULL);
    free(e);
    /* vanilla_proofs before registered_proof is skipped, then parsed: deep nesting in it stops
     * the skipper */
    char deep[400];
    size_t dn = 0;
    dn += (size_t)snprintf(deep, sizeof(deep), "{\"vanilla_proofs\":");
    for (int j = 0; j < 100; j++)
        deep[dn++] = '[';
    for (int j = 0; j < 100; j++)
        deep[dn++] = ']';
    dn += (size_t)snprintf(deep + dn, sizeof(deep) - dn, "}");
    EXPECT_ERROR(deep, dn, CZK_EFORMAT, "vanilla_proofs", NULL);
    /* a lone surrogate and a bad escape in a key */
    const char *s1 = "{\"\\ud800x\":1}", *s2 = "{\"\\q\":1}";
    EXPECT_ERROR(s1, strlen(s1), CZK_EFORMAT, "(top level)", NULL);
    EXPECT_ERROR(s2, strlen(s2), CZK_EFORMAT, "(top level)", NULL);
    /* NULL with length 0, garbage, a too-large input for the type */
    EXPECT_ERROR(NULL, 0, CZK_EFORMAT, "(top level)", NULL);
    size_t big = 8u << 20;
    char *pad = malloc(f.len + big);
    CHECK(pad != NULL);
    memcpy(pad, f.json, f.len - 1);
    memset(pad + f.len - 1, ' ', big);
    pad[f.len - 1 + big] = '}';
    EXPECT_ERROR(pad, f.len + big, CZK_EFORMAT, "registered_proof", NULL);
    free(pad);
    fixture_free(&f);
}

/* Random byte edits of a valid output: the parser may refuse anything, but must never crash or
 * leak, must always say why, and whatever it accepts must write and re-parse the same. */
CZK_TEST(c1_mutations) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    char *buf = malloc(f.len);
    CHECK(buf != NULL);
    static const char alphabet[] = "0123456789[]{},:\" -.eEnul\\";
    long iters = czk_test_iters(t, 400);
    size_t before = czk_alloc_in_use(), accepted = 0;
    for (long it = 0; it < iters; it++) {
        memcpy(buf, f.json, f.len);
        int edits = 1 + (int)(czk_rng_u64(&t->rng) % 3);
        for (int j = 0; j < edits; j++) {
            size_t at = czk_rng_u64(&t->rng) % f.len;
            buf[at] = alphabet[czk_rng_u64(&t->rng) % (sizeof(alphabet) - 1)];
        }
        czk_c1 c;
        czk_err e = {0};
        int rc = czk_c1_parse(&c, (const uint8_t *)buf, f.len, "c1.json", &e);
        if (rc != CZK_OK) {
            CHECKF(e.msg[0] != '\0' && c.proofs == NULL, "refusal without a reason");
            CHECKF(strncmp(e.msg, "c1.json: ", 9) == 0, "message: %s", e.msg);
            continue;
        }
        accepted++;
        size_t n;
        char *w = write_json(&c, 0, 0, &n);
        CHECK(w != NULL);
        czk_c1 d;
        char why[256];
        int diff = parse_equal(w, n, &c, &d, why, sizeof(why));
        czk_free(w);
        czk_c1_clear(&c);
        czk_c1_clear(&d);
        CHECKF(!diff, "accepted mutation does not round-trip: %s", why);
    }
    free(buf);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
    fixture_free(&f);
    fprintf(stderr, "%zu of %ld mutations accepted (and round-tripped)\n", accepted, iters);
}

CZK_TEST(c1_write_rejects) {
    fixture f;
    CHECK(fixture_make(&f, &t->rng, 0));
    char *out;
    size_t n;
    czk_err e = {0};
    czk_c1_proof *p = czk_c1_at(&f.c1, 0, 1);
    p->drg_parents[3].inclusion.level[1].index = 8;
    CHECK(czk_c1_write(&out, &n, &f.c1, 0, 0, &e) == CZK_EINVAL && out == NULL);
    CHECKF(strstr(e.msg, "[0][1].drg_parents") != NULL, "%s", e.msg);
    p->drg_parents[3].inclusion.level[1].index = 7;
    p->comm_r_last_proof.variant = CZK_VANILLA_SUB;
    CHECK(czk_c1_write(&out, &n, &f.c1, 0, 0, &e) == CZK_EINVAL);
    p->comm_r_last_proof.variant = CZK_VANILLA_SINGLE;
    p->labeling[1].layer_index = 1;
    CHECK(czk_c1_write(&out, &n, &f.c1, 0, 0, &e) == CZK_EINVAL);
    p->labeling[1].layer_index = 2;
    p->c_x.n_rows = 3;
    CHECK(czk_c1_write(&out, &n, &f.c1, 0, 0, &e) == CZK_EINVAL);
    p->c_x.n_rows = 2;
    memset(f.c1.comm_r, 0xff, 32);
    CHECK(czk_c1_write(&out, &n, &f.c1, 0, 0, &e) == CZK_EINVAL);
    CHECKF(strstr(e.msg, "comm_r") != NULL, "%s", e.msg);
    f.c1.comm_r[31] = 0;
    CHECK(czk_c1_write(&out, &n, &f.c1, 0, 0, &e) == CZK_OK);
    czk_free(out);
    czk_c1 empty;
    memset(&empty, 0, sizeof(empty));
    CHECK(czk_c1_write(&out, &n, &empty, 0, 0, &e) == CZK_EINVAL);
    czk_c1_clear(NULL);
    fixture_free(&f);
}
