/*
 * Writing the C1 output's JSON (contract in c1.h; the parser and its DESIGN note are in c1.c):
 * compact, keys in Rust's declaration order, every 32-byte value as 32 integers, and with
 * Curio's wrapper (base64 of the same JSON) on request. What it writes the parser reads back:
 * it first checks the output against the type's shape as the parser would.
 *
 * Upstream code cited here was read at curio@e0294b0f (2026-08-20).
 */
#include "filecoin/io/c1.h"
#include "filecoin/io/c1_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

/* ---- base64 (Go's StdEncoding, as encoding/json writes []byte) ------------------------------ */

static const char b64_chars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

static size_t b64_encoded_len(size_t n) {
    return (n + 2) / 3 * 4;
}

static void b64_encode(char *out, const uint8_t *in, size_t n) {
    size_t o = 0, i = 0;
    for (; i + 3 <= n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
        out[o++] = b64_chars[v >> 18];
        out[o++] = b64_chars[v >> 12 & 63];
        out[o++] = b64_chars[v >> 6 & 63];
        out[o++] = b64_chars[v & 63];
    }
    if (n - i == 1) {
        uint32_t v = (uint32_t)in[i] << 16;
        out[o++] = b64_chars[v >> 18];
        out[o++] = b64_chars[v >> 12 & 63];
        out[o++] = '=';
        out[o++] = '=';
    } else if (n - i == 2) {
        uint32_t v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8;
        out[o++] = b64_chars[v >> 18];
        out[o++] = b64_chars[v >> 12 & 63];
        out[o++] = b64_chars[v >> 6 & 63];
        out[o++] = '=';
    }
}

/* ---- validation for the writer --------------------------------------------------------------- */

typedef struct vctx {
    czk_err *err;
    uint32_t k, i;
} vctx;

static int v_fail(const vctx *v, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int v_fail(const vctx *v, const char *where, const char *fmt, ...) {
    char detail[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(detail, sizeof(detail), fmt, ap);
    va_end(ap);
    return czk_err_set(v->err, CZK_EINVAL, "C1 output: proof [%u][%u].%s: %s", v->k, v->i, where,
                       detail);
}

static int v_merkle(const vctx *v, const char *where, const czk_c1_merkle *m, const mshape *sh) {
    if (m->variant != sh->variant || m->n_base != sh->n[0] || m->n_sub != sh->n[1] ||
        m->n_top != sh->n[2] || m->n_levels != sh->n[0] + sh->n[1] + sh->n[2])
        return v_fail(v, where, "shape %s %u+%u+%u, expected %s %u+%u+%u",
                      m->variant <= CZK_VANILLA_TOP ? czk__c1_variant_names[m->variant] : "?",
                      m->n_base, m->n_sub, m->n_top, czk__c1_variant_names[sh->variant], sh->n[0],
                      sh->n[1], sh->n[2]);
    uint32_t l = 0;
    for (int part = 0; part < 3; part++)
        for (uint32_t j = 0; j < sh->n[part]; j++, l++) {
            if (m->level[l].arity != sh->arity[part])
                return v_fail(v, where, "level %u has arity %u, expected %u", l, m->level[l].arity,
                              sh->arity[part]);
            if (m->level[l].index >= m->level[l].arity)
                return v_fail(v, where, "level %u index %u is not below the arity %u", l,
                              m->level[l].index, m->level[l].arity);
        }
    return CZK_OK;
}

static int v_column(const vctx *v, const char *where, const czk_c1_column *c,
                    const czk_porep_type *t, const mshape *tree) {
    if (c->n_rows != t->layers)
        return v_fail(v, where, "%u rows, expected %u", c->n_rows, t->layers);
    return v_merkle(v, where, &c->inclusion, tree);
}

static int v_proof(const vctx *v, const czk_c1_proof *p, const czk_porep_type *t) {
    mshape d = czk__c1_comm_d_shape(t), tree = czk__c1_tree_shape(t);
    int rc = v_merkle(v, "comm_d_proofs", &p->comm_d_proof, &d);
    if (rc == CZK_OK)
        rc = v_merkle(v, "comm_r_last_proof", &p->comm_r_last_proof, &tree);
    if (rc == CZK_OK)
        rc = v_column(v, "c_x", &p->c_x, t, &tree);
    for (size_t j = 0; rc == CZK_OK && j < CZK_POREP_DRG_PARENTS; j++)
        rc = v_column(v, "drg_parents", &p->drg_parents[j], t, &tree);
    for (size_t j = 0; rc == CZK_OK && j < CZK_POREP_EXP_PARENTS; j++)
        rc = v_column(v, "exp_parents", &p->exp_parents[j], t, &tree);
    if (rc == CZK_OK && p->n_labeling != t->layers)
        rc = v_fail(v, "labeling_proofs", "%u proofs, expected %u", p->n_labeling, t->layers);
    for (uint32_t l = 0; rc == CZK_OK && l < t->layers; l++)
        if (p->labeling[l].layer_index != l + 1)
            rc = v_fail(v, "labeling_proofs", "proof %u has layer_index %u, expected %u", l,
                        p->labeling[l].layer_index, l + 1);
    if (rc == CZK_OK && p->encoding.layer_index != t->layers)
        rc = v_fail(v, "encoding_proof", "layer_index %u, expected %u", p->encoding.layer_index,
                    t->layers);
    return rc;
}

static int v_c1(const czk_c1 *c1, czk_err *err) {
    const czk_porep_type *t = c1->type;
    if (t == NULL || c1->proofs == NULL)
        return czk_err_set(err, CZK_EINVAL, "C1 output: no type or no proofs");
    if (c1->n_partitions != t->partitions || c1->n_challenges != t->challenges)
        return czk_err_set(
            err, CZK_EINVAL, "C1 output: %u partitions × %u challenges, but %s has %u × %u",
            c1->n_partitions, c1->n_challenges, t->name, t->partitions, t->challenges);
    const uint8_t *fields[3] = {c1->comm_r, c1->comm_d, c1->replica_id};
    static const char *const names[3] = {"comm_r", "comm_d", "replica_id"};
    for (int j = 0; j < 3; j++) {
        czk_fr fr;
        if (czk_fr_from_bytes_le(&fr, fields[j]) != CZK_OK)
            return czk_err_set(err, CZK_EINVAL, "C1 output: %s is not below r", names[j]);
    }
    vctx v = {err, 0, 0};
    for (v.k = 0; v.k < c1->n_partitions; v.k++)
        for (v.i = 0; v.i < c1->n_challenges; v.i++) {
            int rc = v_proof(&v, czk_c1_at(c1, v.k, v.i), t);
            if (rc != CZK_OK)
                return rc;
        }
    return CZK_OK;
}

/* ---- the writer ------------------------------------------------------------------------------ */

/* An output buffer. It starts at compact_bound, which no valid C1 output exceeds; growing is
 * only a safety net. After a failed allocation it stops writing and sets `failed`. */
typedef struct wb {
    char *p;
    size_t len, cap;
    int failed;
} wb;

static void w_put(wb *w, const char *s, size_t n) {
    if (w->failed)
        return;
    if (w->cap - w->len < n + 1) {
        size_t cap = (w->cap + n + 1) * 2;
        char *q = czk_malloc(cap);
        if (q == NULL) {
            w->failed = 1;
            return;
        }
        memcpy(q, w->p, w->len);
        czk_free(w->p);
        w->p = q;
        w->cap = cap;
    }
    memcpy(w->p + w->len, s, n);
    w->len += n;
}

#define W_LIT(w, s) w_put((w), (s), sizeof(s) - 1)

static void w_str(wb *w, const char *s) {
    w_put(w, s, strlen(s));
}

static void w_u64(wb *w, uint64_t v) {
    char b[20];
    size_t n = 0;
    do {
        b[19 - n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    w_put(w, b + 20 - n, n);
}

static void w_bytes32(wb *w, const uint8_t b[32]) {
    char buf[130];
    size_t n = 0;
    buf[n++] = '[';
    for (int j = 0; j < 32; j++) {
        unsigned v = b[j];
        if (j > 0)
            buf[n++] = ',';
        if (v >= 100) {
            buf[n++] = (char)('0' + v / 100);
            v %= 100;
            buf[n++] = (char)('0' + v / 10);
        } else if (v >= 10) {
            buf[n++] = (char)('0' + v / 10);
        }
        buf[n++] = (char)('0' + v % 10);
    }
    buf[n++] = ']';
    w_put(w, buf, n);
}

static void w_fr(wb *w, const czk_fr *a) {
    uint8_t b[32];
    czk_fr_to_bytes_le(b, a);
    w_bytes32(w, b);
}

static void w_frs(wb *w, const czk_fr *a, size_t n) {
    W_LIT(w, "[");
    for (size_t j = 0; j < n; j++) {
        if (j > 0)
            W_LIT(w, ",");
        w_fr(w, &a[j]);
    }
    W_LIT(w, "]");
}

/* InclusionPath { path: Vec<PathElement { hashes, index }> } */
static void w_path(wb *w, const czk_vanilla_level *lv, uint32_t n) {
    W_LIT(w, "{\"path\":[");
    for (uint32_t l = 0; l < n; l++) {
        if (l > 0)
            W_LIT(w, ",");
        W_LIT(w, "{\"hashes\":");
        w_frs(w, lv[l].sib, lv[l].arity - 1);
        W_LIT(w, ",\"index\":");
        w_u64(w, lv[l].index);
        W_LIT(w, "}");
    }
    W_LIT(w, "]}");
}

static void w_merkle(wb *w, const czk_c1_merkle *m) {
    W_LIT(w, "{\"data\":{\"");
    w_str(w, czk__c1_variant_names[m->variant]);
    W_LIT(w, "\":{");
    if (m->variant == CZK_VANILLA_SINGLE) {
        W_LIT(w, "\"root\":");
        w_fr(w, &m->root);
        W_LIT(w, ",\"leaf\":");
        w_fr(w, &m->leaf);
        W_LIT(w, ",\"path\":");
        w_path(w, m->level, m->n_base);
    } else {
        W_LIT(w, "\"base_proof\":");
        w_path(w, m->level, m->n_base);
        W_LIT(w, ",\"sub_proof\":");
        w_path(w, m->level + m->n_base, m->n_sub);
        if (m->variant == CZK_VANILLA_TOP) {
            W_LIT(w, ",\"top_proof\":");
            w_path(w, m->level + m->n_base + m->n_sub, m->n_top);
        }
        W_LIT(w, ",\"root\":");
        w_fr(w, &m->root);
        W_LIT(w, ",\"leaf\":");
        w_fr(w, &m->leaf);
    }
    W_LIT(w, "}}}");
}

static void w_column(wb *w, const czk_c1_column *c) {
    W_LIT(w, "{\"column\":{\"index\":");
    w_u64(w, c->index);
    W_LIT(w, ",\"rows\":");
    w_frs(w, c->rows, c->n_rows);
    W_LIT(w, ",\"_h\":null},\"inclusion_proof\":");
    w_merkle(w, &c->inclusion);
    W_LIT(w, "}");
}

static void w_columns(wb *w, const czk_c1_column *c, size_t n) {
    W_LIT(w, "[");
    for (size_t j = 0; j < n; j++) {
        if (j > 0)
            W_LIT(w, ",");
        w_column(w, &c[j]);
    }
    W_LIT(w, "]");
}

static void w_labeling(wb *w, const czk_c1_labeling *l) {
    W_LIT(w, "{\"parents\":");
    w_frs(w, l->parents, CZK_POREP_PARENTS);
    W_LIT(w, ",\"layer_index\":");
    w_u64(w, l->layer_index);
    W_LIT(w, ",\"node\":");
    w_u64(w, l->node);
    W_LIT(w, "}");
}

static void w_proof(wb *w, const czk_c1_proof *p) {
    W_LIT(w, "{\"comm_d_proofs\":");
    w_merkle(w, &p->comm_d_proof);
    W_LIT(w, ",\"comm_r_last_proof\":");
    w_merkle(w, &p->comm_r_last_proof);
    W_LIT(w, ",\"replica_column_proofs\":{\"c_x\":");
    w_column(w, &p->c_x);
    W_LIT(w, ",\"drg_parents\":");
    w_columns(w, p->drg_parents, CZK_POREP_DRG_PARENTS);
    W_LIT(w, ",\"exp_parents\":");
    w_columns(w, p->exp_parents, CZK_POREP_EXP_PARENTS);
    W_LIT(w, "},\"labeling_proofs\":[");
    for (uint32_t l = 0; l < p->n_labeling; l++) {
        if (l > 0)
            W_LIT(w, ",");
        w_labeling(w, &p->labeling[l]);
    }
    W_LIT(w, "],\"encoding_proof\":");
    w_labeling(w, &p->encoding);
    W_LIT(w, "}");
}

static void w_c1(wb *w, const czk_c1 *c1) {
    W_LIT(w, "{\"registered_proof\":\"");
    w_str(w, c1->type->name);
    W_LIT(w, "\",\"vanilla_proofs\":{\"");
    w_str(w, c1->type->size_variant);
    W_LIT(w, "\":[");
    for (uint32_t k = 0; k < c1->n_partitions; k++) {
        if (k > 0)
            W_LIT(w, ",");
        W_LIT(w, "[");
        for (uint32_t i = 0; i < c1->n_challenges; i++) {
            if (i > 0)
                W_LIT(w, ",");
            w_proof(w, czk_c1_at(c1, k, i));
        }
        W_LIT(w, "]");
    }
    W_LIT(w, "]},\"comm_r\":");
    w_bytes32(w, c1->comm_r);
    W_LIT(w, ",\"comm_d\":");
    w_bytes32(w, c1->comm_d);
    W_LIT(w, ",\"replica_id\":");
    w_bytes32(w, c1->replica_id);
    W_LIT(w, ",\"seed\":");
    w_bytes32(w, c1->seed);
    W_LIT(w, ",\"ticket\":");
    w_bytes32(w, c1->ticket);
    W_LIT(w, "}");
}

int czk_c1_write(char **out, size_t *out_len, const czk_c1 *c1, int wrap, uint64_t sector_num,
                 czk_err *err) {
    *out = NULL;
    *out_len = 0;
    int rc = v_c1(c1, err);
    if (rc != CZK_OK)
        return rc;
    uint64_t bound = czk__c1_compact_bound(c1->type);
    wb json = {czk_malloc((size_t)bound), 0, (size_t)bound, 0};
    json.failed = json.p == NULL;
    w_c1(&json, c1);
    if (json.failed) {
        czk_free(json.p);
        return czk_err_set(err, CZK_ENOMEM, "C1 output: no memory for %llu bytes of JSON",
                           (unsigned long long)bound);
    }
    json.p[json.len] = '\0'; /* w_put always leaves room for it */
    if (!wrap) {
        *out = json.p;
        *out_len = json.len;
        return CZK_OK;
    }
    /* Go's json.Marshal of c1OutputWrapper (curio lib/ffi/cuzk_funcs.go): fields in struct
     * order, []byte as padded standard base64. */
    char head[64], tail[64];
    int hl = snprintf(head, sizeof(head), "{\"SectorNum\":%llu,\"Phase1Out\":\"",
                      (unsigned long long)sector_num);
    int tl = snprintf(tail, sizeof(tail), "\",\"SectorSize\":%llu}",
                      (unsigned long long)c1->type->sector_size);
    size_t b64len = b64_encoded_len(json.len), total = (size_t)hl + b64len + (size_t)tl;
    char *wbuf = czk_malloc(total + 1);
    if (wbuf == NULL) {
        czk_free(json.p);
        return czk_err_set(err, CZK_ENOMEM, "C1 output: no memory for %zu bytes of wrapper", total);
    }
    memcpy(wbuf, head, (size_t)hl);
    b64_encode(wbuf + hl, (const uint8_t *)json.p, json.len);
    memcpy(wbuf + hl + b64len, tail, (size_t)tl + 1);
    czk_free(json.p);
    *out = wbuf;
    *out_len = total;
    return CZK_OK;
}
