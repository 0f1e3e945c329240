/*
 * DESIGN: Curio's PoSt public JSON (contract in curio_post.h). The file is small (about 120
 * bytes per sector, 2,349 sectors at most per partition), so it is read whole and parsed with
 * json-c; each value is taken by a getter that knows its JSON path, so every message names the
 * file and the field. Base64 goes through OpenSSL (already linked for SHA-256); base32, used
 * only for the 40 bytes of a CID, is done here.
 */
#include "filecoin/io/curio_post.h"

#include <json-c/json.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <string.h>

#include "filecoin/spec/sector.h"
#include "util/alloc.h"
#include "util/file.h"

/* CIDv1 · varint 0xf102 (fil-commitment-sealed) · varint 0xb401 (poseidon-bls12_381-a2-fc1)
 * · digest length 32. */
static const uint8_t cid_prefix[8] = {0x01, 0x82, 0xe2, 0x03, 0x81, 0xe8, 0x02, 0x20};
static const char b32[] = "abcdefghijklmnopqrstuvwxyz234567";

void czk_post_sealed_cid_encode(char out[CZK_SEALED_CID_CHARS], const czk_fr *comm_r) {
    uint8_t raw[40];
    memcpy(raw, cid_prefix, 8);
    czk_fr_to_bytes_le(raw + 8, comm_r);
    size_t o = 0;
    out[o++] = 'b';
    /* 40 bytes are exactly 64 five-bit groups: no padding. */
    for (size_t bit = 0; bit < 320; bit += 5) {
        unsigned v = 0;
        for (unsigned k = 0; k < 5; k++)
            v = v << 1 | ((raw[(bit + k) / 8] >> (7 - (bit + k) % 8)) & 1u);
        out[o++] = b32[v];
    }
    out[o] = '\0';
}

int czk_post_sealed_cid_decode(czk_fr *comm_r, const char *cid, czk_err *err) {
    size_t n = strlen(cid);
    if (n != CZK_SEALED_CID_CHARS - 1 || cid[0] != 'b')
        return czk_err_set(err, CZK_EFORMAT,
                           "sealed CID '%.80s' is not 65 characters of base32 starting 'b'", cid);
    uint8_t raw[40] = {0};
    for (size_t i = 0; i < 64; i++) {
        const char *p = memchr(b32, cid[1 + i], 32);
        if (p == NULL || cid[1 + i] == '\0')
            return czk_err_set(err, CZK_EFORMAT,
                               "sealed CID '%.80s': '%c' at %zu is not a base32 character", cid,
                               cid[1 + i], 1 + i);
        unsigned v = (unsigned)(p - b32);
        for (unsigned k = 0; k < 5; k++)
            if (v >> (4 - k) & 1u)
                raw[(i * 5 + k) / 8] |= (uint8_t)(0x80u >> ((i * 5 + k) % 8));
    }
    if (memcmp(raw, cid_prefix, sizeof cid_prefix) != 0)
        return czk_err_set(err, CZK_EFORMAT,
                           "sealed CID '%.80s' is not a CIDv1 fil-commitment-sealed "
                           "poseidon-bls12_381-a2-fc1 digest",
                           cid);
    if (czk_fr_from_bytes_le(comm_r, raw + 8) != CZK_OK)
        return czk_err_set(err, CZK_ERANGE, "sealed CID '%.80s': comm_r is not below r", cid);
    return CZK_OK;
}

/* ---- parsing ------------------------------------------------------------------------------ */

typedef struct ctx {
    const char *name;
    czk_err *err;
} ctx;

static json_object *member(const ctx *c, json_object *obj, const char *key, json_type type,
                           const char *where, int *rc) {
    json_object *v = NULL;
    if (*rc != CZK_OK)
        return NULL;
    if (!json_object_object_get_ex(obj, key, &v) || !json_object_is_type(v, type)) {
        *rc = czk_err_set(c->err, CZK_EFORMAT, "%s: %s%s is missing or not a %s",
                          czk_file_msg_path(c->name), where, key, json_type_to_name(type));
        return NULL;
    }
    return v;
}

static uint64_t get_u64(const ctx *c, json_object *obj, const char *key, const char *where,
                        int *rc) {
    json_object *v = member(c, obj, key, json_type_int, where, rc);
    if (v == NULL)
        return 0;
    /* json-c keeps integers above INT64_MAX as unsigned; a negative one is refused. */
    if (json_object_get_int64(v) < 0) {
        *rc = czk_err_set(c->err, CZK_EFORMAT, "%s: %s%s is negative", czk_file_msg_path(c->name),
                          where, key);
        return 0;
    }
    return json_object_get_uint64(v);
}

/* Element i of the array `name`, which must be an object; `where` gets "name[i]." for the
 * messages about its members. NULL with *rc set (naming the element) when it is not one. */
static json_object *element(const ctx *c, json_object *arr, const char *name, size_t i, char *where,
                            size_t cap, int *rc) {
    snprintf(where, cap, "%s[%zu].", name, i);
    json_object *e = json_object_array_get_idx(arr, i);
    if (json_object_is_type(e, json_type_object))
        return e;
    *rc = czk_err_set(c->err, CZK_EFORMAT, "%s: %s[%zu] is not an object",
                      czk_file_msg_path(c->name), name, i);
    return NULL;
}

static uint64_t sector_size_of_seal(uint64_t seal_proof) {
    static const uint64_t sizes[5] = {2048ull, 8ull << 20, 512ull << 20, 32ull << 30, 64ull << 30};
    return seal_proof <= 19 ? sizes[seal_proof % 5] : 0;
}

static int parse_root(czk_post_public *out, json_object *root, const ctx *c) {
    int rc = CZK_OK;
    if (!json_object_is_type(root, json_type_object))
        return czk_err_set(c->err, CZK_EFORMAT, "%s: not a JSON object",
                           czk_file_msg_path(c->name));
    json_object *rnd = member(c, root, "Randomness", json_type_string, "", &rc);
    json_object *proofs = member(c, root, "Proofs", json_type_array, "", &rc);
    json_object *secs = member(c, root, "ChallengedSectors", json_type_array, "", &rc);
    out->prover = get_u64(c, root, "Prover", "", &rc);
    if (rc != CZK_OK)
        return rc;
    /* Randomness: base64 of exactly 32 bytes (44 characters, one '='). */
    const char *s = json_object_get_string(rnd);
    size_t sl = strlen(s);
    uint8_t buf[34];
    if (sl != 44 || s[43] != '=' || s[42] == '=' ||
        EVP_DecodeBlock(buf, (const unsigned char *)s, 44) != 33)
        return czk_err_set(c->err, CZK_EFORMAT,
                           "%s: Randomness is not the base64 of 32 bytes ('%.60s')",
                           czk_file_msg_path(c->name), s);
    memcpy(out->randomness, buf, 32);
    czk_fr tmp;
    if (czk_fr_from_bytes_le(&tmp, out->randomness) != CZK_OK)
        return czk_err_set(c->err, CZK_ERANGE,
                           "%s: Randomness is not a field element (>= r; Curio masks the top "
                           "two bits)",
                           czk_file_msg_path(c->name));
    size_t np = json_object_array_length(proofs);
    if (np == 0)
        return czk_err_set(c->err, CZK_EFORMAT, "%s: Proofs is empty", czk_file_msg_path(c->name));
    for (size_t i = 0; i < np && rc == CZK_OK; i++) {
        char where[48];
        json_object *p = element(c, proofs, "Proofs", i, where, sizeof where, &rc);
        if (p == NULL)
            return rc;
        uint64_t id = get_u64(c, p, "PoStProof", where, &rc);
        if (rc == CZK_OK && i == 0)
            out->registered_proof = id;
        else if (rc == CZK_OK && id != out->registered_proof)
            rc = czk_err_set(c->err, CZK_EFORMAT,
                             "%s: Proofs[%zu].PoStProof is %llu, Proofs[0]'s is %llu",
                             czk_file_msg_path(c->name), i, (unsigned long long)id,
                             (unsigned long long)out->registered_proof);
    }
    czk_vanilla_post_type ty;
    if (rc == CZK_OK && czk_vanilla_post_type_from_abi(&ty, out->registered_proof, NULL) != CZK_OK)
        rc = czk_err_set(c->err, CZK_EFORMAT,
                         "%s: Proofs[0].PoStProof %llu is not a PoSt proof (0-14)",
                         czk_file_msg_path(c->name), (unsigned long long)out->registered_proof);
    if (rc != CZK_OK)
        return rc;
    size_t ns = json_object_array_length(secs);
    if (ns == 0 || ns > ty.sector_count)
        return czk_err_set(c->err, CZK_EFORMAT,
                           "%s: %zu ChallengedSectors; PoSt proof %llu takes 1 to %u",
                           czk_file_msg_path(c->name), ns,
                           (unsigned long long)out->registered_proof, ty.sector_count);
    out->sectors = czk_calloc(ns, sizeof *out->sectors);
    if (out->sectors == NULL)
        return czk_err_set(c->err, CZK_ENOMEM, "%s: cannot allocate %zu sectors",
                           czk_file_msg_path(c->name), ns);
    out->n_sectors = ns;
    for (size_t i = 0; i < ns && rc == CZK_OK; i++) {
        char where[64];
        json_object *e = element(c, secs, "ChallengedSectors", i, where, sizeof where, &rc);
        if (e == NULL)
            return rc;
        czk_post_public_sector *ps = &out->sectors[i];
        ps->seal_proof = get_u64(c, e, "SealProof", where, &rc);
        ps->sector_number = get_u64(c, e, "SectorNumber", where, &rc);
        json_object *cid = member(c, e, "SealedCID", json_type_object, where, &rc);
        strncat(where, "SealedCID.", sizeof where - strlen(where) - 1);
        json_object *cs = cid == NULL ? NULL : member(c, cid, "/", json_type_string, where, &rc);
        if (rc != CZK_OK)
            break;
        uint64_t size = sector_size_of_seal(ps->seal_proof);
        if (size != ty.shape.sector_size)
            return czk_err_set(c->err, CZK_EFORMAT,
                               "%s: ChallengedSectors[%zu] (sector %llu): seal proof %llu is not "
                               "of the %llu-byte sectors PoSt proof %llu proves",
                               czk_file_msg_path(c->name), i, (unsigned long long)ps->sector_number,
                               (unsigned long long)ps->seal_proof,
                               (unsigned long long)ty.shape.sector_size,
                               (unsigned long long)out->registered_proof);
        rc = czk_post_sealed_cid_decode(&ps->comm_r, json_object_get_string(cs), c->err);
        if (rc != CZK_OK) {
            char msg[sizeof c->err->msg];
            snprintf(msg, sizeof msg, "%s", c->err->msg);
            rc = czk_err_set(c->err, rc, "%s: ChallengedSectors[%zu]: %s",
                             czk_file_msg_path(c->name), i, msg);
        }
    }
    return rc;
}

int czk_post_public_parse(czk_post_public *out, const char *json, size_t len, const char *name,
                          czk_err *err) {
    memset(out, 0, sizeof *out);
    ctx c = {.name = name, .err = err};
    if (len > (1u << 30))
        return czk_err_set(err, CZK_EFORMAT, "%s: %zu bytes is too large for PoSt public data",
                           czk_file_msg_path(name), len);
    json_tokener *tok = json_tokener_new();
    if (tok == NULL)
        return czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate a JSON parser",
                           czk_file_msg_path(name));
    json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
    json_object *root = json_tokener_parse_ex(tok, json, (int)len);
    enum json_tokener_error je = json_tokener_get_error(tok);
    size_t used = json_tokener_get_parse_end(tok);
    int rc;
    if (root == NULL || je != json_tokener_success) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: not JSON: %s at byte %zu", czk_file_msg_path(name),
                         json_tokener_error_desc(je), used);
    } else {
        while (used < len && (json[used] == ' ' || json[used] == '\n' || json[used] == '\r' ||
                              json[used] == '\t'))
            used++;
        rc = used != len ? czk_err_set(err, CZK_EFORMAT, "%s: text after the JSON at byte %zu",
                                       czk_file_msg_path(name), used)
                         : parse_root(out, root, &c);
    }
    json_object_put(root);
    json_tokener_free(tok);
    if (rc != CZK_OK)
        czk_post_public_clear(out);
    return rc;
}

int czk_post_public_read(czk_post_public *out, const char *path, czk_err *err) {
    memset(out, 0, sizeof *out);
    uint8_t *data = NULL;
    size_t len = 0;
    int rc = czk_file_read_all(&data, &len, path, err);
    if (rc == CZK_OK)
        rc = czk_post_public_parse(out, (const char *)data, len, path, err);
    czk_free(data);
    return rc;
}

void czk_post_public_clear(czk_post_public *p) {
    if (p == NULL)
        return;
    czk_free(p->sectors);
    memset(p, 0, sizeof *p);
}

/* ---- writing ------------------------------------------------------------------------------ */

int czk_post_public_write(const char *path, const czk_post_public *p, czk_err *err) {
    /* Per sector: the fixed text, two u64 of at most 20 digits and the CID. */
    size_t cap = 256 + p->n_sectors * (96 + 2 * 20 + CZK_SEALED_CID_CHARS);
    char *s = czk_malloc(cap);
    if (s == NULL)
        return czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %zu bytes",
                           czk_file_msg_path(path), cap);
    char rnd[45];
    EVP_EncodeBlock((unsigned char *)rnd, p->randomness, 32);
    size_t o = (size_t)snprintf(s, cap,
                                "{\"Randomness\":\"%s\",\"Proofs\":[{\"PoStProof\":%llu,"
                                "\"ProofBytes\":null}],\"ChallengedSectors\":[",
                                rnd, (unsigned long long)p->registered_proof);
    for (size_t i = 0; i < p->n_sectors; i++) {
        char cid[CZK_SEALED_CID_CHARS];
        czk_post_sealed_cid_encode(cid, &p->sectors[i].comm_r);
        o += (size_t)snprintf(s + o, cap - o,
                              "%s{\"SealProof\":%llu,\"SectorNumber\":%llu,\"SealedCID\":{\"/\":"
                              "\"%s\"}}",
                              i ? "," : "", (unsigned long long)p->sectors[i].seal_proof,
                              (unsigned long long)p->sectors[i].sector_number, cid);
    }
    o += (size_t)snprintf(s + o, cap - o, "],\"Prover\":%llu}\n", (unsigned long long)p->prover);
    int rc = czk_file_write_atomic(path, s, o, err);
    czk_free(s);
    return rc;
}
