/* The bincode reader (bincode.h). */
#include "filecoin/io/bincode.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/alloc.h"
#include "util/bytes.h"

void czk_bincode_init(czk_bincode_reader *r, const uint8_t *buf, size_t len, czk_err *err,
                      const char *who, ...) {
    r->p = buf;
    r->len = buf != NULL ? len : 0;
    r->off = 0;
    r->err = err;
    va_list ap;
    va_start(ap, who);
    vsnprintf(r->who, sizeof(r->who), who, ap);
    va_end(ap);
}

void czk_bincode_rename(czk_bincode_reader *r, const char *who, ...) {
    va_list ap;
    va_start(ap, who);
    vsnprintf(r->who, sizeof(r->who), who, ap);
    va_end(ap);
}

int czk_bincode_fail(czk_bincode_reader *r, int code, size_t off, const char *fmt, ...) {
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return czk_err_set(r->err, code, "%s: %s at byte %zu", r->who, what, off);
}

int czk_bincode_end(czk_bincode_reader *r) {
    if (r->off == r->len)
        return CZK_OK;
    return czk_bincode_fail(r, CZK_ELENGTH, r->off, "%zu trailing bytes after the proof",
                            r->len - r->off);
}

void *czk_bincode_calloc(czk_bincode_reader *r, size_t n, size_t size, const char *what, int *rc) {
    void *p = czk_calloc(n, size);
    if (p == NULL)
        *rc = czk_err_set(r->err, CZK_ENOMEM, "%s: no memory for %zu %s", r->who, n, what);
    return p;
}

static int need(czk_bincode_reader *r, size_t n, const char *field) {
    if (r->len - r->off >= n)
        return CZK_OK;
    return czk_bincode_fail(r, CZK_ELENGTH, r->off, "truncated: %s needs %zu bytes, %zu left",
                            field, n, r->len - r->off);
}

int czk_bincode_u64(czk_bincode_reader *r, uint64_t *v, const char *field) {
    int rc = need(r, 8, field);
    if (rc != CZK_OK)
        return rc;
    *v = czk_bytes_load_le64(r->p + r->off);
    r->off += 8;
    return CZK_OK;
}

int czk_bincode_u32(czk_bincode_reader *r, uint32_t *v, const char *field) {
    int rc = need(r, 4, field);
    if (rc != CZK_OK)
        return rc;
    *v = czk_bytes_load_le32(r->p + r->off);
    r->off += 4;
    return CZK_OK;
}

int czk_bincode_expect(czk_bincode_reader *r, uint64_t want, int bytes, const char *field) {
    size_t at = r->off;
    int rc = need(r, (size_t)bytes, field);
    if (rc != CZK_OK)
        return rc;
    const uint8_t *p = r->p + r->off;
    uint64_t v = bytes == 8 ? czk_bytes_load_le64(p) : czk_bytes_load_le32(p);
    r->off += (size_t)bytes;
    if (v != want)
        return czk_bincode_fail(r, CZK_EFORMAT, at, "%s is %llu, expected %llu", field,
                                (unsigned long long)v, (unsigned long long)want);
    return CZK_OK;
}

int czk_bincode_fr(czk_bincode_reader *r, czk_fr *out, const char *field) {
    int rc = need(r, 32, field);
    if (rc != CZK_OK)
        return rc;
    if (czk_fr_from_bytes_le(out, r->p + r->off) != CZK_OK)
        return czk_bincode_fail(r, CZK_ERANGE, r->off, "%s is not below the field modulus r",
                                field);
    r->off += 32;
    return CZK_OK;
}

int czk_bincode_path(czk_bincode_reader *r, czk_vanilla_level *lv, uint32_t levels, uint32_t arity,
                     const char *name) {
    char field[192];
    snprintf(field, sizeof(field), "%s length", name);
    int rc = czk_bincode_expect(r, levels, 8, field);
    for (uint32_t l = 0; rc == CZK_OK && l < levels; l++) {
        lv[l].arity = arity;
        snprintf(field, sizeof(field), "%s level %u sibling count", name, l);
        rc = czk_bincode_expect(r, arity - 1, 8, field);
        for (uint32_t s = 0; rc == CZK_OK && s + 1 < arity; s++) {
            snprintf(field, sizeof(field), "%s level %u sibling %u", name, l, s);
            rc = czk_bincode_fr(r, &lv[l].sib[s], field);
        }
        if (rc != CZK_OK)
            break;
        size_t at = r->off;
        uint64_t index = 0;
        snprintf(field, sizeof(field), "%s level %u index", name, l);
        rc = czk_bincode_u64(r, &index, field);
        if (rc == CZK_OK && index >= arity)
            rc = czk_bincode_fail(r, CZK_EFORMAT, at, "%s is %llu, not below the arity %u", field,
                                  (unsigned long long)index, arity);
        lv[l].index = (uint32_t)index;
    }
    return rc;
}

int czk_bincode_merkle(czk_bincode_reader *r, czk_fr *root, czk_fr *leaf, czk_vanilla_level *level,
                       const czk_bincode_tree *t, const char *name) {
    char f[192], root_f[192], leaf_f[192];
    czk_vanilla_level *sub = &level[t->base_levels];
    czk_vanilla_level *top = sub + (t->sub_arity != 0);
    snprintf(root_f, sizeof(root_f), "%s root", name);
    snprintf(leaf_f, sizeof(leaf_f), "%s leaf", name);
    snprintf(f, sizeof(f), "%s base path", name);
    int rc;
    if (t->variant == CZK_VANILLA_SINGLE) {
        if ((rc = czk_bincode_fr(r, root, root_f)) == CZK_OK &&
            (rc = czk_bincode_fr(r, leaf, leaf_f)) == CZK_OK)
            rc = czk_bincode_path(r, level, t->base_levels, t->base_arity, f);
        return rc;
    }
    rc = czk_bincode_path(r, level, t->base_levels, t->base_arity, f);
    if (rc == CZK_OK) {
        snprintf(f, sizeof(f), "%s sub path", name);
        rc = czk_bincode_path(r, sub, 1, t->sub_arity, f);
    }
    if (rc == CZK_OK && t->variant == CZK_VANILLA_TOP) {
        snprintf(f, sizeof(f), "%s top path", name);
        rc = czk_bincode_path(r, top, 1, t->top_arity, f);
    }
    if (rc == CZK_OK && (rc = czk_bincode_fr(r, root, root_f)) == CZK_OK)
        rc = czk_bincode_fr(r, leaf, leaf_f);
    return rc;
}
