/*
 * DESIGN: Fallback PoSt vanilla proofs and challenges (contract in vanilla.h).
 *
 * The bytes come from the network (Curio's ProveRequest), so the decoder treats them as
 * hostile: it walks them with a bounds-checked cursor, compares every count with the one the
 * tree shape fixes before reading or allocating anything it sizes, and reports the first fault
 * with the proof's position, its sector id (once read), the field and the byte offset. The one
 * allocation is the inclusion-proof array, sized by the post type's challenge count (≤ 66),
 * never by a count read from the input.
 *
 * The layout follows rust-fil-proofs' serde derives (storage-proofs-core/src/merkle/proof.rs,
 * storage-proofs-post/src/fallback/vanilla.rs, filecoin-proofs/src/types) as bincode 1.x
 * writes them; Curio's Go decoder (lib/proof/post_vproof_bin_decode.go) reads the same.
 */
#include "filecoin/vanilla.h"

#include <openssl/sha.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "util/alloc.h"
#include "util/bytes.h"

/* ---- shapes and proof types ------------------------------------------------------------ */

const uint64_t czk_vanilla_sizes[CZK_VANILLA_N_SIZES] = {2ull << 10, 8ull << 20, 512ull << 20,
                                                         32ull << 30, 64ull << 30};
const char *const czk_vanilla_size_names[CZK_VANILLA_N_SIZES] = {"2KiB", "8MiB", "512MiB", "32GiB",
                                                                 "64GiB"};

int czk_vanilla_size_index(uint64_t sector_size) {
    for (int i = 0; i < CZK_VANILLA_N_SIZES; i++)
        if (czk_vanilla_sizes[i] == sector_size)
            return i;
    return -1;
}

int czk_vanilla_size_index_by_name(const char *name) {
    for (int i = 0; i < CZK_VANILLA_N_SIZES; i++)
        if (strcasecmp(czk_vanilla_size_names[i], name) == 0)
            return i;
    return -1;
}

int czk_vanilla_shape_for_size(czk_vanilla_shape *out, uint64_t sector_size, czk_err *err) {
    /* filecoin-proofs/src/constants.rs: SectorShape2KiB/8MiB/512MiB are LCTree<U8, U0, U0>,
     * 32GiB is <U8, U8, U0>, 64GiB is <U8, U8, U2>. */
    static const struct {
        uint64_t size;
        uint32_t base, sub, top;
    } table[] = {
        {2048ull, 2, 0, 0},     {8ull << 20, 6, 0, 0},  {512ull << 20, 8, 0, 0},
        {32ull << 30, 9, 8, 0}, {64ull << 30, 9, 8, 2},
    };
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (table[i].size != sector_size)
            continue;
        out->sector_size = sector_size;
        out->nodes = sector_size / 32;
        out->base_levels = table[i].base;
        out->sub_arity = table[i].sub;
        out->top_arity = table[i].top;
        out->levels = table[i].base + (table[i].sub != 0) + (table[i].top != 0);
        out->variant = table[i].top != 0   ? CZK_VANILLA_TOP
                       : table[i].sub != 0 ? CZK_VANILLA_SUB
                                           : CZK_VANILLA_SINGLE;
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EUNSUPPORTED,
                       "sector size %llu is not a PoSt sector size (2 KiB, 8 MiB, 512 MiB, "
                       "32 GiB, 64 GiB)",
                       (unsigned long long)sector_size);
}

int czk_vanilla_post_type_from_abi(czk_vanilla_post_type *out, uint64_t abi_id, czk_err *err) {
    static const uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    /* filecoin-proofs/src/constants.rs WINDOW_POST_SECTOR_COUNT. */
    static const uint32_t window_sectors[5] = {2, 2, 2, 2349, 2300};
    memset(out, 0, sizeof(*out));
    if (abi_id > 14)
        return czk_err_set(err, CZK_EUNSUPPORTED,
                           "registered PoSt proof %llu is not one of 0-14 (WinningPoSt V1, "
                           "WindowPoSt V1, WindowPoSt V1_1)",
                           (unsigned long long)abi_id);
    unsigned s = (unsigned)(abi_id % 5);
    out->abi_id = (uint32_t)abi_id;
    if (abi_id < 5) {
        out->kind = CZK_VANILLA_POST_WINNING;
        out->api = CZK_VANILLA_API_V1_0;
        out->challenge_count = 66;
        out->sector_count = 1;
    } else {
        out->kind = CZK_VANILLA_POST_WINDOW;
        /* Go's WindowPoSt "V1_1" ids map to proofs-api's V1_2 types (cuzk prover.rs:463-485);
         * only the challenge index differs, the circuit and keys are shared. */
        out->api = abi_id < 10 ? CZK_VANILLA_API_V1_0 : CZK_VANILLA_API_V1_2;
        out->challenge_count = 10;
        out->sector_count = window_sectors[s];
    }
    return czk_vanilla_shape_for_size(&out->shape, sizes[s], err);
}

/* ---- the bounds-checked reader ---------------------------------------------------------- */

typedef struct reader {
    const uint8_t *p;
    size_t len;
    size_t off;
    size_t ordinal;
    int have_id;
    uint64_t sector_id;
    czk_err *err;
} reader;

/* Fails with "vanilla proof N (sector S): <what> at byte OFF". */
static int rd_fail(reader *r, int code, size_t off, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static int rd_fail(reader *r, int code, size_t off, const char *fmt, ...) {
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    if (r->have_id)
        return czk_err_set(r->err, code, "vanilla proof %zu (sector %llu): %s at byte %zu",
                           r->ordinal, (unsigned long long)r->sector_id, what, off);
    return czk_err_set(r->err, code, "vanilla proof %zu: %s at byte %zu", r->ordinal, what, off);
}

static int rd_need(reader *r, size_t n, const char *field) {
    if (r->len - r->off >= n)
        return CZK_OK;
    return rd_fail(r, CZK_ELENGTH, r->off, "truncated: %s needs %zu bytes, %zu left", field, n,
                   r->len - r->off);
}

static int rd_u64(reader *r, uint64_t *v, const char *field) {
    int rc = rd_need(r, 8, field);
    if (rc != CZK_OK)
        return rc;
    *v = czk_bytes_load_le64(r->p + r->off);
    r->off += 8;
    return CZK_OK;
}

static int rd_u32(reader *r, uint32_t *v, const char *field) {
    int rc = rd_need(r, 4, field);
    if (rc != CZK_OK)
        return rc;
    *v = czk_bytes_load_le32(r->p + r->off);
    r->off += 4;
    return CZK_OK;
}

/* A count or tag that must equal `want`, read as u64 (bincode's Vec length and usize). */
static int rd_expect_u64(reader *r, uint64_t want, const char *field) {
    size_t at = r->off;
    uint64_t v;
    int rc = rd_u64(r, &v, field);
    if (rc != CZK_OK)
        return rc;
    if (v != want)
        return rd_fail(r, CZK_EFORMAT, at, "%s is %llu, expected %llu", field,
                       (unsigned long long)v, (unsigned long long)want);
    return CZK_OK;
}

/* A 32-byte little-endian field element, which must be canonical (< r). */
static int rd_fr(reader *r, czk_fr *out, const char *field) {
    int rc = rd_need(r, 32, field);
    if (rc != CZK_OK)
        return rc;
    if (czk_fr_from_bytes_le(out, r->p + r->off) != CZK_OK)
        return rd_fail(r, CZK_ERANGE, r->off, "%s is not below the field modulus r", field);
    r->off += 32;
    return CZK_OK;
}

/* ---- the proof ------------------------------------------------------------------------- */

/* One InclusionPath of `levels` elements of `arity`, into lv[0..levels-1]. `name` says which
 * path ("inclusion proof 3 base path"). */
static int rd_path(reader *r, czk_vanilla_level *lv, uint32_t levels, uint32_t arity,
                   const char *name) {
    char field[160];
    snprintf(field, sizeof(field), "%s length", name);
    int rc = rd_expect_u64(r, levels, field);
    for (uint32_t l = 0; rc == CZK_OK && l < levels; l++) {
        lv[l].arity = arity;
        snprintf(field, sizeof(field), "%s level %u sibling count", name, l);
        rc = rd_expect_u64(r, arity - 1, field);
        for (uint32_t s = 0; rc == CZK_OK && s + 1 < arity; s++) {
            snprintf(field, sizeof(field), "%s level %u sibling %u", name, l, s);
            rc = rd_fr(r, &lv[l].sib[s], field);
        }
        if (rc != CZK_OK)
            break;
        size_t at = r->off;
        uint64_t index = 0;
        snprintf(field, sizeof(field), "%s level %u index", name, l);
        rc = rd_u64(r, &index, field);
        if (rc == CZK_OK && index >= arity)
            rc = rd_fail(r, CZK_EFORMAT, at, "%s is %llu, not below the arity %u", field,
                         (unsigned long long)index, arity);
        lv[l].index = (uint32_t)index;
    }
    return rc;
}

static int rd_inclusion(reader *r, czk_vanilla_inclusion *inc, const czk_vanilla_shape *sh,
                        size_t k) {
    char name[96], field[128];
    size_t at = r->off;
    uint32_t tag;
    snprintf(name, sizeof(name), "inclusion proof %zu", k);
    snprintf(field, sizeof(field), "%s variant tag", name);
    int rc = rd_u32(r, &tag, field);
    if (rc != CZK_OK)
        return rc;
    if (tag != (uint32_t)sh->variant)
        return rd_fail(r, CZK_EFORMAT, at, "%s is %u, a %llu-byte sector needs %u", field, tag,
                       (unsigned long long)sh->sector_size, (unsigned)sh->variant);
    inc->n_levels = sh->levels;
    czk_vanilla_level *sub = &inc->level[sh->base_levels];
    czk_vanilla_level *top = sub + (sh->sub_arity != 0);
    char root_f[128], leaf_f[128], path_f[128];
    snprintf(root_f, sizeof(root_f), "%s root", name);
    snprintf(leaf_f, sizeof(leaf_f), "%s leaf", name);
    snprintf(path_f, sizeof(path_f), "%s base path", name);
    if (sh->variant == CZK_VANILLA_SINGLE) {
        /* SingleProof { root, leaf, path } */
        rc = rd_fr(r, &inc->root, root_f);
        if (rc == CZK_OK)
            rc = rd_fr(r, &inc->leaf, leaf_f);
        if (rc == CZK_OK)
            rc = rd_path(r, inc->level, sh->base_levels, 8, path_f);
        return rc;
    }
    /* SubProof { base_proof, sub_proof, root, leaf };
     * TopProof { base_proof, sub_proof, top_proof, root, leaf } */
    rc = rd_path(r, inc->level, sh->base_levels, 8, path_f);
    if (rc == CZK_OK) {
        snprintf(path_f, sizeof(path_f), "%s sub path", name);
        rc = rd_path(r, sub, 1, sh->sub_arity, path_f);
    }
    if (rc == CZK_OK && sh->variant == CZK_VANILLA_TOP) {
        snprintf(path_f, sizeof(path_f), "%s top path", name);
        rc = rd_path(r, top, 1, sh->top_arity, path_f);
    }
    if (rc == CZK_OK)
        rc = rd_fr(r, &inc->root, root_f);
    if (rc == CZK_OK)
        rc = rd_fr(r, &inc->leaf, leaf_f);
    return rc;
}

/* The leaf a path proves: its indices as mixed-radix digits, the leaf's level least
 * significant (MerkleProof::path_index). */
static uint64_t path_leaf_index(const czk_vanilla_inclusion *inc) {
    uint64_t v = 0;
    for (uint32_t l = inc->n_levels; l-- > 0;)
        v = v * inc->level[l].arity + inc->level[l].index;
    return v;
}

void czk_vanilla_sector_clear(czk_vanilla_sector *s) {
    if (s == NULL)
        return;
    czk_free(s->inclusion);
    memset(s, 0, sizeof(*s));
}

int czk_vanilla_sector_decode(czk_vanilla_sector *out, const czk_vanilla_post_type *type,
                              const uint8_t *buf, size_t len, size_t ordinal, czk_err *err) {
    memset(out, 0, sizeof(*out));
    reader r = {.p = buf, .len = buf != NULL ? len : 0, .ordinal = ordinal, .err = err};
    const czk_vanilla_shape *sh = &type->shape;
    int rc;
    if (sh->levels == 0 || sh->levels > CZK_VANILLA_MAX_LEVELS || type->challenge_count == 0 ||
        type->challenge_count > CZK_VANILLA_MAX_CHALLENGES) {
        rc = czk_err_set(err, CZK_EINVAL, "vanilla proof %zu: post type is not initialised",
                         ordinal);
        goto out;
    }
    rc = rd_u64(&r, &out->sector_id, "sector id");
    if (rc != CZK_OK)
        goto out;
    r.have_id = 1;
    r.sector_id = out->sector_id;
    rc = rd_fr(&r, &out->comm_r, "comm_r");
    if (rc == CZK_OK) /* Proof.sectors: one SectorProof per FallbackPoStSectorProof */
        rc = rd_expect_u64(&r, 1, "sector proof count");
    if (rc == CZK_OK)
        rc = rd_expect_u64(&r, type->challenge_count, "inclusion proof count");
    if (rc != CZK_OK)
        goto out;
    /* The count was checked against the type above, so this is at most 66 entries. */
    out->inclusion = czk_calloc(type->challenge_count, sizeof(*out->inclusion));
    if (out->inclusion == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM,
                         "vanilla proof %zu (sector %llu): no memory for %u "
                         "inclusion proofs",
                         ordinal, (unsigned long long)out->sector_id, type->challenge_count);
        goto out;
    }
    out->n_inclusions = type->challenge_count;
    for (size_t k = 0; rc == CZK_OK && k < out->n_inclusions; k++) {
        rc = rd_inclusion(&r, &out->inclusion[k], sh, k);
        if (rc == CZK_OK)
            out->inclusion[k].leaf_index = path_leaf_index(&out->inclusion[k]);
    }
    if (rc == CZK_OK)
        rc = rd_fr(&r, &out->comm_c, "comm_c");
    if (rc == CZK_OK)
        rc = rd_fr(&r, &out->comm_r_last, "comm_r_last");
    if (rc == CZK_OK && r.off != r.len)
        rc = rd_fail(&r, CZK_ELENGTH, r.off, "%zu trailing bytes after the proof", r.len - r.off);
out:
    if (rc != CZK_OK)
        czk_vanilla_sector_clear(out);
    return rc;
}

int czk_vanilla_sectors_decode(czk_vanilla_sector *out, const czk_vanilla_post_type *type,
                               const uint8_t *const *bufs, const size_t *lens, size_t n,
                               czk_err *err) {
    if (n == 0 || n > type->sector_count || out == NULL || bufs == NULL || lens == NULL)
        return czk_err_set(err, CZK_EINVAL,
                           "%zu vanilla proofs: registered PoSt proof %u takes 1 to %u", n,
                           type->abi_id, type->sector_count);
    for (size_t i = 0; i < n; i++)
        memset(&out[i], 0, sizeof(out[i]));
    for (size_t i = 0; i < n; i++) {
        int rc = czk_vanilla_sector_decode(&out[i], type, bufs[i], lens[i], i, err);
        if (rc != CZK_OK) {
            for (size_t j = 0; j < i; j++)
                czk_vanilla_sector_clear(&out[j]);
            return rc;
        }
    }
    return CZK_OK;
}

/* ---- challenges ------------------------------------------------------------------------ */

static int check_fr_bytes(const uint8_t b[32], const char *what, czk_err *err) {
    czk_fr tmp;
    if (czk_fr_from_bytes_le(&tmp, b) != CZK_OK)
        return czk_err_set(err, CZK_ERANGE, "%s is not below the field modulus r", what);
    return CZK_OK;
}

int czk_vanilla_challenge_index(uint64_t *out, czk_vanilla_api api, uint64_t sector_index,
                                uint64_t challenge_count, uint64_t n, czk_err *err) {
    *out = 0;
    if (n >= challenge_count)
        return czk_err_set(err, CZK_EINVAL, "challenge %llu of a sector with %llu challenges",
                           (unsigned long long)n, (unsigned long long)challenge_count);
    switch (api) {
    case CZK_VANILLA_API_V1_0:
    case CZK_VANILLA_API_V1_1: {
        uint64_t base;
        if (__builtin_mul_overflow(sector_index, challenge_count, &base) ||
            __builtin_add_overflow(base, n, out))
            return czk_err_set(err, CZK_ERANGE,
                               "challenge index of sector index %llu overflows 64 bits",
                               (unsigned long long)sector_index);
        return CZK_OK;
    }
    case CZK_VANILLA_API_V1_2:
        *out = n;
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EINVAL, "unknown proofs API version %d", (int)api);
}

int czk_vanilla_leaf_challenge(uint64_t *out, const uint8_t randomness[32], uint64_t sector_id,
                               uint64_t challenge_index, uint64_t nodes, czk_err *err) {
    *out = 0;
    if (nodes == 0)
        return czk_err_set(err, CZK_EINVAL, "leaf challenge into a tree of 0 leaves");
    int rc = check_fr_bytes(randomness, "PoSt randomness", err);
    if (rc != CZK_OK)
        return rc;
    uint8_t msg[48], md[SHA256_DIGEST_LENGTH];
    memcpy(msg, randomness, 32);
    czk_bytes_store_le64(msg + 32, sector_id);
    czk_bytes_store_le64(msg + 40, challenge_index);
    if (SHA256(msg, sizeof(msg), md) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
    *out = czk_bytes_load_le64(md) % nodes;
    return CZK_OK;
}

int czk_vanilla_sector_challenge(uint64_t *out, const uint8_t randomness[32],
                                 const uint8_t prover_id[32], uint64_t k, uint64_t sector_set_len,
                                 czk_err *err) {
    *out = 0;
    if (sector_set_len == 0)
        return czk_err_set(err, CZK_EINVAL, "sector challenge into an empty sector set");
    int rc = check_fr_bytes(randomness, "PoSt randomness", err);
    if (rc == CZK_OK)
        rc = check_fr_bytes(prover_id, "prover id", err);
    if (rc != CZK_OK)
        return rc;
    uint8_t msg[72], md[SHA256_DIGEST_LENGTH];
    memcpy(msg, prover_id, 32);
    memcpy(msg + 32, randomness, 32);
    czk_bytes_store_le64(msg + 64, k);
    if (SHA256(msg, sizeof(msg), md) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
    *out = czk_bytes_load_le64(md) % sector_set_len;
    return CZK_OK;
}

void czk_vanilla_prover_id(uint8_t out[32], uint64_t miner_id) {
    /* filecoin-ffi's to_prover_id: the actor id's unsigned varint, zero-padded on the right. */
    memset(out, 0, 32);
    size_t i = 0;
    do {
        uint8_t b = (uint8_t)(miner_id & 0x7f);
        miner_id >>= 7;
        out[i++] = miner_id != 0 ? (uint8_t)(b | 0x80) : b;
    } while (miner_id != 0);
}

int czk_vanilla_sector_check(const czk_vanilla_sector *s, const czk_vanilla_post_type *type,
                             const uint8_t randomness[32], uint64_t sector_index, czk_err *err) {
    if (s->n_inclusions != type->challenge_count || s->inclusion == NULL)
        return czk_err_set(err, CZK_EINVAL, "sector %llu: %zu inclusion proofs, the type needs %u",
                           (unsigned long long)s->sector_id, s->n_inclusions,
                           type->challenge_count);
    for (size_t n = 0; n < s->n_inclusions; n++) {
        const czk_vanilla_inclusion *inc = &s->inclusion[n];
        if (!czk_fr_equal(&inc->root, &s->comm_r_last))
            return czk_err_set(err, CZK_EVERIFY,
                               "sector %llu: inclusion proof %zu has a root other than comm_r_last",
                               (unsigned long long)s->sector_id, n);
        uint64_t idx, leaf;
        int rc = czk_vanilla_challenge_index(&idx, type->api, sector_index, type->challenge_count,
                                             n, err);
        if (rc == CZK_OK)
            rc = czk_vanilla_leaf_challenge(&leaf, randomness, s->sector_id, idx, type->shape.nodes,
                                            err);
        if (rc != CZK_OK)
            return rc;
        if (leaf != inc->leaf_index)
            return czk_err_set(err, CZK_EVERIFY,
                               "sector %llu: inclusion proof %zu opens leaf %llu, challenge %zu is "
                               "leaf %llu",
                               (unsigned long long)s->sector_id, n,
                               (unsigned long long)inc->leaf_index, n, (unsigned long long)leaf);
    }
    return CZK_OK;
}

/* ---- encoding ------------------------------------------------------------------------- */

/* Bytes of one InclusionPath of `levels` elements of `arity`. */
static size_t path_size(uint32_t levels, uint32_t arity) {
    return 8 + (size_t)levels * (8 + (size_t)(arity - 1) * 32 + 8);
}

size_t czk_vanilla_sector_encoded_size(const czk_vanilla_post_type *type) {
    const czk_vanilla_shape *sh = &type->shape;
    size_t inc = 4 + 64 + path_size(sh->base_levels, 8);
    if (sh->sub_arity != 0)
        inc += path_size(1, sh->sub_arity);
    if (sh->top_arity != 0)
        inc += path_size(1, sh->top_arity);
    return 8 + 32 + 8 + 8 + (size_t)type->challenge_count * inc + 64;
}

typedef struct writer {
    uint8_t *p;
    size_t off;
} writer;

static void wr_u64(writer *w, uint64_t v) {
    czk_bytes_store_le64(w->p + w->off, v);
    w->off += 8;
}

static void wr_fr(writer *w, const czk_fr *a) {
    czk_fr_to_bytes_le(w->p + w->off, a);
    w->off += 32;
}

static void wr_path(writer *w, const czk_vanilla_level *lv, uint32_t levels) {
    wr_u64(w, levels);
    for (uint32_t l = 0; l < levels; l++) {
        wr_u64(w, lv[l].arity - 1);
        for (uint32_t s = 0; s + 1 < lv[l].arity; s++)
            wr_fr(w, &lv[l].sib[s]);
        wr_u64(w, lv[l].index);
    }
}

int czk_vanilla_sector_encode(uint8_t *out, size_t cap, size_t *len, const czk_vanilla_sector *s,
                              const czk_vanilla_post_type *type, czk_err *err) {
    const czk_vanilla_shape *sh = &type->shape;
    size_t need = czk_vanilla_sector_encoded_size(type);
    if (s->n_inclusions != type->challenge_count || s->inclusion == NULL)
        return czk_err_set(err, CZK_EINVAL, "sector %llu: %zu inclusion proofs, the type needs %u",
                           (unsigned long long)s->sector_id, s->n_inclusions,
                           type->challenge_count);
    /* Every path must have the shape the decoder will demand, or the bytes would not read
     * back; checked before anything is written. */
    for (size_t k = 0; k < s->n_inclusions; k++) {
        const czk_vanilla_inclusion *inc = &s->inclusion[k];
        int ok = inc->n_levels == sh->levels;
        for (uint32_t l = 0; ok && l < sh->levels; l++) {
            uint32_t want = l < sh->base_levels    ? 8
                            : l == sh->base_levels ? (sh->sub_arity ? sh->sub_arity : sh->top_arity)
                                                   : sh->top_arity;
            ok = inc->level[l].arity == want && inc->level[l].index < want;
        }
        if (!ok)
            return czk_err_set(err, CZK_EINVAL,
                               "sector %llu: inclusion proof %zu does not have the %u-level "
                               "path of a %llu-byte sector",
                               (unsigned long long)s->sector_id, k, sh->levels,
                               (unsigned long long)sh->sector_size);
    }
    if (cap < need)
        return czk_err_set(err, CZK_ELENGTH, "sector %llu: %zu bytes needed, %zu given",
                           (unsigned long long)s->sector_id, need, cap);
    writer w = {.p = out};
    wr_u64(&w, s->sector_id);
    wr_fr(&w, &s->comm_r);
    wr_u64(&w, 1);
    wr_u64(&w, s->n_inclusions);
    for (size_t k = 0; k < s->n_inclusions; k++) {
        const czk_vanilla_inclusion *inc = &s->inclusion[k];
        czk_bytes_store_le32(w.p + w.off, (uint32_t)sh->variant); /* the variant tag, a u32 */
        w.off += 4;
        if (sh->variant == CZK_VANILLA_SINGLE) {
            wr_fr(&w, &inc->root);
            wr_fr(&w, &inc->leaf);
            wr_path(&w, inc->level, sh->base_levels);
            continue;
        }
        wr_path(&w, inc->level, sh->base_levels);
        wr_path(&w, &inc->level[sh->base_levels], 1);
        if (sh->variant == CZK_VANILLA_TOP)
            wr_path(&w, &inc->level[sh->base_levels + 1], 1);
        wr_fr(&w, &inc->root);
        wr_fr(&w, &inc->leaf);
    }
    wr_fr(&w, &s->comm_c);
    wr_fr(&w, &s->comm_r_last);
    *len = w.off;
    return CZK_OK;
}
