/*
 * Tests for the Fallback PoSt vanilla-proof decoder and the PoSt challenges (vanilla.h).
 *
 * The anchor is a real 32 GiB WindowPoSt vanilla proof from Curio's test data
 * (tests/data/filecoin/README.md): it must decode, its ten paths must open the leaves that the
 * challenge derivation gives for its public data (read here from Curio's JSON, not copied into
 * the test), every path must hash to comm_r_last with Poseidon, and comm_r must equal
 * Poseidon2(comm_c, comm_r_last) and the digest of the sealed CID. The byte offsets of the
 * structural fields are computed here from the layout independently of the decoder, so that the
 * corruption tests know which field each byte belongs to. The shapes the real file does not
 * cover (Single and Top proofs) are exercised by proofs that an encoder local to this file
 * writes.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), curio@e0294b0f
 * (2026-08-20).
 */
#include "field/fr.h"
#include "filecoin/hash/poseidon.h"
#include "filecoin/io/vanilla.h"
#include "filecoin/testgen/vanilla_gen.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/status.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- fixtures -------------------------------------------------------------------------- */

static uint8_t *slurp_data(const char *name, size_t *len) {
    return czk_test_read_data("filecoin", name, len);
}

#define VPROOF "post-32g-window.vproof"
#define PUBJSON "post-32g-window.pub.json"

/* Layout of the 32 GiB shape (Sub: 9 base levels + 1 sub level of arity 8), as offsets. */
enum {
    OFF_SECTOR_ID = 0,
    OFF_COMM_R = 8,
    OFF_NSECTORS = 40,
    OFF_NINCL = 48,
    OFF_INCL = 56,
    PATH_ELEM = 8 + 7 * 32 + 8,       /* sibling count, siblings, index */
    INCL_SIZE = 4 + 8 + 9 * PATH_ELEM /* tag, base path */
                + 8 + PATH_ELEM       /* sub path */
                + 32 + 32,            /* root, leaf */
};

/* Offset of inclusion k's path element `level` (0-8 base, 9 sub). */
static size_t elem_off(size_t k, unsigned level) {
    size_t o = OFF_INCL + k * INCL_SIZE + 4 + 8;
    if (level >= 9)
        o += 8; /* the sub path's length */
    return o + (size_t)level * PATH_ELEM;
}

static size_t root_off(size_t k) {
    return OFF_INCL + k * INCL_SIZE + INCL_SIZE - 64;
}

/* The public data of Curio's postpub.json, read with a few string searches (the file is one
 * line of compact JSON written by Go). */
typedef struct pubdata {
    uint8_t randomness[32];
    uint64_t post_proof, seal_proof, sector, prover;
    char cid[128];
} pubdata;

static int json_u64(const char *js, const char *key, uint64_t *v) {
    const char *p = strstr(js, key);
    if (p == NULL)
        return 0;
    p += strlen(key);
    char *end;
    *v = strtoull(p, &end, 10);
    return end != p;
}

static int json_str(const char *js, const char *key, char *out, size_t n) {
    const char *p = strstr(js, key);
    if (p == NULL)
        return 0;
    p += strlen(key);
    const char *q = strchr(p, '"');
    if (q == NULL || (size_t)(q - p) >= n)
        return 0;
    memcpy(out, p, (size_t)(q - p));
    out[q - p] = '\0';
    return 1;
}

/* Decodes s in an alphabet of 2^width letters, MSB first, up to its end or a '=' (padding).
 * Returns the length, or -1. */
static int radix_decode(uint8_t *out, size_t cap, const char *s, const char *al, int width) {
    uint32_t acc = 0;
    int bits = 0;
    size_t n = 0;
    for (; *s != '\0' && *s != '='; s++) {
        const char *c = strchr(al, *s);
        if (c == NULL)
            return -1;
        acc = acc << width | (uint32_t)(c - al);
        bits += width;
        if (bits >= 8) {
            bits -= 8;
            if (n == cap)
                return -1;
            out[n++] = (uint8_t)(acc >> bits);
        }
    }
    return (int)n;
}

/* Standard base64 (Go's encoding of []byte). */
static int base64_decode(uint8_t *out, size_t cap, const char *s) {
    return radix_decode(out, cap, s,
                        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/", 6);
}

/* RFC 4648 base32, lower case, no padding (multibase 'b'). */
static int base32_decode(uint8_t *out, size_t cap, const char *s) {
    return radix_decode(out, cap, s, "abcdefghijklmnopqrstuvwxyz234567", 5);
}

static int load_pub(pubdata *pd) {
    size_t n;
    uint8_t *raw = slurp_data(PUBJSON, &n);
    if (raw == NULL)
        return 0;
    char *js = calloc(1, n + 1);
    memcpy(js, raw, n);
    free(raw);
    char b64[128];
    int ok = json_str(js, "\"Randomness\":\"", b64, sizeof(b64)) &&
             base64_decode(pd->randomness, 32, b64) == 32 &&
             json_u64(js, "\"PoStProof\":", &pd->post_proof) &&
             json_u64(js, "\"SealProof\":", &pd->seal_proof) &&
             json_u64(js, "\"SectorNumber\":", &pd->sector) &&
             json_u64(js, "\"Prover\":", &pd->prover) &&
             json_str(js, "\"SealedCID\":{\"/\":\"", pd->cid, sizeof(pd->cid));
    free(js);
    return ok;
}

/* The real proof's bytes (malloc'ed; NULL if unreadable) and its own type (abi 8) in *ty. */
static uint8_t *load_real(czk_vanilla_post_type *ty, size_t *len) {
    if (czk_vanilla_post_type_from_abi(ty, 8, NULL) != CZK_OK)
        return NULL;
    return slurp_data(VPROOF, len);
}

/* Decodes the real proof with its own type (abi 8) into *s. */
static int decode_real(czk_vanilla_sector *s, uint8_t **buf, size_t *len) {
    czk_vanilla_post_type ty;
    *buf = load_real(&ty, len);
    if (*buf == NULL)
        return -1;
    return czk_vanilla_sector_decode(s, &ty, *buf, *len, 0, NULL);
}

/* ---- the real proof -------------------------------------------------------------------- */

CZK_TEST(vanilla_decodes_real_32g) {
    czk_vanilla_sector s;
    uint8_t *buf;
    size_t len;
    CHECK_EQ_INT(decode_real(&s, &buf, &len), CZK_OK);
    CHECK_EQ_INT(len, 24960);
    CHECK_EQ_INT(s.sector_id, 1);
    CHECK_EQ_INT(s.n_inclusions, 10);
    uint8_t b[32];
    czk_fr_to_bytes_le(b, &s.comm_r);
    CHECK_MEM(b, buf + OFF_COMM_R, 32);
    czk_fr_to_bytes_le(b, &s.comm_r_last);
    CHECK_MEM(b, buf + len - 32, 32);
    czk_fr_to_bytes_le(b, &s.comm_c);
    CHECK_MEM(b, buf + len - 64, 32);
    for (size_t k = 0; k < 10; k++) {
        const czk_vanilla_inclusion *inc = &s.inclusion[k];
        CHECK_EQ_INT(inc->n_levels, 10);
        uint64_t want = 0, w = 1;
        for (unsigned l = 0; l < 10; l++) {
            CHECK_EQ_INT(inc->level[l].arity, 8);
            uint64_t idx = 0;
            memcpy(&idx, buf + elem_off(k, l) + PATH_ELEM - 8, 8); /* host is little-endian */
            CHECK_EQ_INT(inc->level[l].index, idx);
            czk_fr_to_bytes_le(b, &inc->level[l].sib[6]);
            CHECK_MEM(b, buf + elem_off(k, l) + 8 + 6 * 32, 32);
            want += idx * w;
            w *= 8;
        }
        CHECK_EQ_INT(inc->leaf_index, want);
        CHECK(czk_fr_equal(&inc->root, &s.comm_r_last));
        czk_fr_to_bytes_le(b, &inc->leaf);
        CHECK_MEM(b, buf + root_off(k) + 32, 32);
    }
    /* The first and last challenged leaves, as Curio's test data records them. */
    CHECK_EQ_INT(s.inclusion[0].leaf_index, 707914199);
    CHECK_EQ_INT(s.inclusion[9].leaf_index, 600088878);
    czk_vanilla_sector_clear(&s);
    free(buf);
}

CZK_TEST(vanilla_challenges_match_real_32g) {
    pubdata pd;
    CHECK(load_pub(&pd));
    czk_vanilla_post_type ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, pd.post_proof, NULL), CZK_OK);
    CHECK_EQ_INT(ty.kind, CZK_VANILLA_POST_WINDOW);
    CHECK_EQ_INT(ty.shape.sector_size, 32ull << 30);
    CHECK_EQ_INT(ty.challenge_count, 10);
    czk_vanilla_sector s;
    uint8_t *buf;
    size_t len;
    CHECK_EQ_INT(decode_real(&s, &buf, &len), CZK_OK);
    CHECK_EQ_INT(s.sector_id, pd.sector);
    for (size_t n = 0; n < 10; n++) {
        uint64_t idx, leaf;
        CHECK_EQ_INT(czk_vanilla_challenge_index(&idx, ty.api, 0, 10, n, NULL), CZK_OK);
        CHECK_EQ_INT(idx, n);
        CHECK_EQ_INT(
            czk_vanilla_leaf_challenge(&leaf, pd.randomness, pd.sector, idx, ty.shape.nodes, NULL),
            CZK_OK);
        CHECK_EQ_INT(leaf, s.inclusion[n].leaf_index);
    }
    czk_err e = {0};
    CHECK_EQ_INT(czk_vanilla_sector_check(&s, &ty, pd.randomness, 0, &e), CZK_OK);
    /* Under API 1.2 the index ignores the sector's position; under 1.0 the first sector of the
     * set is the only position these paths answer. */
    czk_vanilla_post_type ty12;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty12, 13, NULL), CZK_OK);
    CHECK_EQ_INT(ty12.api, CZK_VANILLA_API_V1_2);
    CHECK_EQ_INT(czk_vanilla_sector_check(&s, &ty12, pd.randomness, 7, NULL), CZK_OK);
    CHECK_EQ_INT(czk_vanilla_sector_check(&s, &ty, pd.randomness, 1, &e), CZK_EVERIFY);
    CHECK(strstr(e.msg, "sector 1") != NULL && strstr(e.msg, "inclusion proof 0") != NULL);
    /* Other randomness: the paths no longer answer the challenges. */
    uint8_t rnd[32];
    memcpy(rnd, pd.randomness, 32);
    rnd[0] ^= 1;
    CHECK_EQ_INT(czk_vanilla_sector_check(&s, &ty, rnd, 0, NULL), CZK_EVERIFY);
    /* A leaf index changed by editing one path index is caught by the check, not the decoder
     * (any index below the arity is well-formed). */
    buf[elem_off(3, 4) + PATH_ELEM - 8] ^= 1;
    czk_vanilla_sector s2;
    CHECK_EQ_INT(czk_vanilla_sector_decode(&s2, &ty, buf, len, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_vanilla_sector_check(&s2, &ty, pd.randomness, 0, &e), CZK_EVERIFY);
    CHECK(strstr(e.msg, "inclusion proof 3") != NULL);
    czk_vanilla_sector_clear(&s2);
    buf[elem_off(3, 4) + PATH_ELEM - 8] ^= 1;
    /* A root other than comm_r_last. */
    buf[root_off(5)] ^= 1;
    CHECK_EQ_INT(czk_vanilla_sector_decode(&s2, &ty, buf, len, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_vanilla_sector_check(&s2, &ty, pd.randomness, 0, &e), CZK_EVERIFY);
    CHECK(strstr(e.msg, "inclusion proof 5 has a root") != NULL);
    czk_vanilla_sector_clear(&s2);
    czk_vanilla_sector_clear(&s);
    free(buf);
}

/* Hashes each path up with Poseidon (the node goes in at its index among the siblings, as
 * rust-fil-proofs' InclusionPath::root does) and compares with comm_r_last; then comm_r. */
CZK_TEST(vanilla_real_32g_paths_hash_to_roots) {
    const czk_poseidon_constants *c2;
    CHECK_EQ_INT(czk_poseidon_constants_get(&c2, 2, NULL), CZK_OK);
    czk_vanilla_sector s;
    uint8_t *buf;
    size_t len;
    CHECK_EQ_INT(decode_real(&s, &buf, &len), CZK_OK);
    czk_err e = {0};
    CHECKF(czk_vanilla_sector_verify_paths(&s, &e) == CZK_OK, "%s", e.msg);
    /* One sibling changed: that path no longer reaches comm_r_last, and the message says so. */
    czk_fr_add(&s.inclusion[6].level[4].sib[2], &s.inclusion[6].level[4].sib[2], &CZK_FR_ONE);
    CHECK_EQ_INT(czk_vanilla_sector_verify_paths(&s, &e), CZK_EVERIFY);
    CHECKF(strstr(e.msg, "inclusion proof 6") != NULL, "%s", e.msg);
    czk_fr_sub(&s.inclusion[6].level[4].sib[2], &s.inclusion[6].level[4].sib[2], &CZK_FR_ONE);
    czk_fr pair[2] = {s.comm_c, s.comm_r_last}, comm_r;
    CHECK_EQ_INT(czk_poseidon_hash(c2, pair, 2, &comm_r), CZK_OK);
    CHECK(czk_fr_equal(&comm_r, &s.comm_r));
    /* The sealed CID's multihash digest (its last 32 bytes) is comm_r too. */
    pubdata pd;
    CHECK(load_pub(&pd));
    CHECK(pd.cid[0] == 'b');
    uint8_t cid[64], b[32];
    int n = base32_decode(cid, sizeof(cid), pd.cid + 1);
    CHECK(n >= 32);
    czk_fr_to_bytes_le(b, &s.comm_r);
    CHECK_MEM(cid + n - 32, b, 32);
    czk_vanilla_sector_clear(&s);
    free(buf);
}

/* ---- malformed input ------------------------------------------------------------------- */

/* Decodes `len` bytes with type `ty`; the call must fail with `want` (or any failure when want
 * is 1), leave *out cleared, leak nothing, and say where. */
static int expect_fail(czk_test_ctx *t, const czk_vanilla_post_type *ty, const uint8_t *buf,
                       size_t len, int want, const char *needle) {
    size_t before = czk_alloc_in_use();
    czk_vanilla_sector s;
    czk_err e = {0};
    int rc = czk_vanilla_sector_decode(&s, ty, buf, len, 4, &e);
    if (rc == CZK_OK || (want != 1 && rc != want)) {
        czk_test_fail(t, __FILE__, __LINE__, "len %zu: rc %d, want %d (%s)", len, rc, want, e.msg);
        if (rc == CZK_OK)
            czk_vanilla_sector_clear(&s);
        return 0;
    }
    if (s.inclusion != NULL || s.n_inclusions != 0 || czk_alloc_in_use() != before ||
        e.code != rc || strstr(e.msg, "vanilla proof 4") == NULL ||
        strstr(e.msg, " at byte ") == NULL || (needle != NULL && strstr(e.msg, needle) == NULL)) {
        czk_test_fail(t, __FILE__, __LINE__, "len %zu: bad failure report: %s", len, e.msg);
        return 0;
    }
    return 1;
}

CZK_TEST(vanilla_rejects_every_truncation) {
    czk_vanilla_post_type ty;
    size_t len;
    uint8_t *buf = load_real(&ty, &len);
    CHECK(buf != NULL);
    /* Every prefix, each in a buffer of exactly its length so ASan sees any overread. */
    for (size_t n = 0; n < len; n++) {
        uint8_t *p = malloc(n + 1);
        memcpy(p, buf, n);
        int ok = expect_fail(t, &ty, p, n, CZK_ELENGTH, "truncated");
        free(p);
        if (!ok) {
            free(buf);
            return;
        }
    }
    /* A truncation inside a sibling names it, the sector and the offset. */
    czk_err e = {0};
    czk_vanilla_sector s;
    size_t cut = elem_off(2, 3) + 8 + 32 + 5;
    CHECK_EQ_INT(czk_vanilla_sector_decode(&s, &ty, buf, cut, 0, &e), CZK_ELENGTH);
    char want[160];
    snprintf(want, sizeof(want),
             "vanilla proof 0 (sector 1): truncated: inclusion proof 2 base path level 3 sibling "
             "1 needs 32 bytes, 5 left at byte %zu",
             cut - 5);
    CHECKF(strcmp(e.msg, want) == 0, "message: %s", e.msg);
    /* A NULL buffer is an empty one. */
    CHECK_EQ_INT(czk_vanilla_sector_decode(&s, &ty, NULL, 100, 0, NULL), CZK_ELENGTH);
    /* Trailing bytes. */
    uint8_t *p = malloc(len + 3);
    memcpy(p, buf, len);
    memset(p + len, 0, 3);
    CHECK(expect_fail(t, &ty, p, len + 1, CZK_ELENGTH, "1 trailing bytes"));
    CHECK(expect_fail(t, &ty, p, len + 3, CZK_ELENGTH, "3 trailing bytes"));
    free(p);
    free(buf);
}

/* Sets the 32 bytes at `p` to the little-endian encoding of r + delta (delta ≥ 0), or of
 * 2^256 − 1 when delta < 0. */
static void put_ge_r(uint8_t *p, int delta) {
    if (delta < 0) {
        memset(p, 0xff, 32);
        return;
    }
    uint64_t l[4];
    memcpy(l, CZK_FR_MODULUS, sizeof(l));
    l[0] += (uint64_t)delta;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < 8; j++)
            p[8 * i + j] = (uint8_t)(l[i] >> (8 * j));
}

CZK_TEST(vanilla_rejects_structural_corruption) {
    czk_vanilla_post_type ty;
    size_t len;
    uint8_t *buf = load_real(&ty, &len);
    CHECK(buf != NULL);
    /* Every byte of every count, tag and index: any change is a format error (a length that
     * grows is caught as the wrong count before anything is read or allocated by it). */
    size_t offs[4096], nsz[4096], n = 0;
    const char *what[4096];
    offs[n] = OFF_NSECTORS, nsz[n] = 8, what[n++] = "sector proof count";
    offs[n] = OFF_NINCL, nsz[n] = 8, what[n++] = "inclusion proof count";
    for (size_t k = 0; k < 10; k++) {
        size_t base = OFF_INCL + k * INCL_SIZE;
        offs[n] = base, nsz[n] = 4, what[n++] = "variant tag";
        offs[n] = base + 4, nsz[n] = 8, what[n++] = "base path length";
        offs[n] = elem_off(k, 9) - 8, nsz[n] = 8, what[n++] = "sub path length";
        for (unsigned l = 0; l < 10; l++) {
            offs[n] = elem_off(k, l), nsz[n] = 8, what[n++] = "sibling count";
            offs[n] = elem_off(k, l) + PATH_ELEM - 8, nsz[n] = 8, what[n++] = "index";
        }
    }
    for (size_t i = 0; i < n; i++) {
        for (size_t j = 0; j < nsz[i]; j++) {
            size_t o = offs[i] + j;
            uint8_t keep = buf[o];
            /* The index's low byte: values below 8 are legal, so push it past the arity. */
            buf[o] = (uint8_t)(strcmp(what[i], "index") == 0 && j == 0 ? keep | 0x08 : keep ^ 0x5a);
            char at[32];
            snprintf(at, sizeof(at), "at byte %zu", offs[i]);
            int ok = expect_fail(t, &ty, buf, len, CZK_EFORMAT, what[i]) &&
                     expect_fail(t, &ty, buf, len, CZK_EFORMAT, at);
            buf[o] = keep;
            if (!ok) {
                free(buf);
                return;
            }
        }
    }
    /* Every field element ≥ r is refused, naming its offset: r, r + 1 and 2^256 − 1 at each
     * element of two inclusion proofs and at the commitments. */
    size_t fe[64], nfe = 0;
    fe[nfe++] = OFF_COMM_R;
    fe[nfe++] = len - 64; /* comm_c */
    fe[nfe++] = len - 32; /* comm_r_last */
    for (size_t k = 0; k < 10; k += 9) {
        fe[nfe++] = root_off(k);
        fe[nfe++] = root_off(k) + 32;
        for (unsigned l = 0; l < 10; l++)
            fe[nfe++] = elem_off(k, l) + 8 + (l % 7) * 32;
    }
    uint8_t keep[32];
    for (size_t i = 0; i < nfe; i++) {
        memcpy(keep, buf + fe[i], 32);
        for (int d = -1; d <= 1; d++) {
            put_ge_r(buf + fe[i], d);
            char at[32];
            snprintf(at, sizeof(at), "at byte %zu", fe[i]);
            int ok = expect_fail(t, &ty, buf, len, CZK_ERANGE, at) &&
                     expect_fail(t, &ty, buf, len, CZK_ERANGE, "not below the field modulus");
            if (!ok) {
                free(buf);
                return;
            }
        }
        /* r − 1 is canonical. */
        put_ge_r(buf + fe[i], 0);
        buf[fe[i]] -= 1;
        czk_vanilla_sector s;
        CHECK_EQ_INT(czk_vanilla_sector_decode(&s, &ty, buf, len, 0, NULL), CZK_OK);
        czk_vanilla_sector_clear(&s);
        memcpy(buf + fe[i], keep, 32);
    }
    free(buf);
}

CZK_TEST(vanilla_random_byte_corruption_fails_cleanly) {
    czk_vanilla_post_type ty;
    size_t len;
    uint8_t *buf = load_real(&ty, &len);
    CHECK(buf != NULL);
    long iters = czk_test_iters(t, 20000);
    size_t before = czk_alloc_in_use();
    int failed = 0, decoded = 0;
    for (long it = 0; it < iters; it++) {
        size_t o = (size_t)(czk_rng_u64(&t->rng) % len);
        uint8_t keep = buf[o], v = (uint8_t)czk_rng_u64(&t->rng);
        if (v == keep)
            continue;
        buf[o] = v;
        czk_vanilla_sector s;
        czk_err e = {0};
        int rc = czk_vanilla_sector_decode(&s, &ty, buf, len, 0, &e);
        if (rc == CZK_OK) {
            /* Only a field element's bytes or an index's value may change undetected by the
             * decoder; the sector id and the commitments then still decode. */
            decoded++;
            czk_vanilla_sector_clear(&s);
        } else {
            failed++;
            CHECKF(e.msg[0] != '\0' && strstr(e.msg, "at byte") != NULL, "offset %zu: %s", o,
                   e.msg);
        }
        buf[o] = keep;
    }
    CHECK_EQ_INT(czk_alloc_in_use(), before);
    CHECK(iters < 100 || (failed > 0 && decoded > 0));
    free(buf);
}

CZK_TEST(vanilla_rejects_wrong_sector_size) {
    size_t len;
    uint8_t *buf = slurp_data(VPROOF, &len);
    CHECK(buf != NULL);
    /* Every other type: WindowPoSt 2 KiB, 8 MiB, 512 MiB and 64 GiB want another variant tag;
     * every WinningPoSt type wants 66 inclusion proofs (checked before the tags). */
    for (uint64_t abi = 0; abi <= 14; abi++) {
        if (abi % 5 == 3 && abi != 3)
            continue;
        czk_vanilla_post_type ty;
        CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, abi, NULL), CZK_OK);
        const char *needle = abi < 5 ? "inclusion proof count is 10, expected 66"
                                     : "inclusion proof 0 variant tag is 1";
        if (!expect_fail(t, &ty, buf, len, CZK_EFORMAT, needle))
            break;
    }
    czk_vanilla_shape sh;
    czk_err e = {0};
    CHECK_EQ_INT(czk_vanilla_shape_for_size(&sh, 4096, &e), CZK_EUNSUPPORTED);
    CHECK(strstr(e.msg, "4096") != NULL);
    CHECK_EQ_INT(czk_vanilla_shape_for_size(&sh, 0, NULL), CZK_EUNSUPPORTED);
    czk_vanilla_post_type ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 15, NULL), CZK_EUNSUPPORTED);
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, UINT64_MAX, NULL), CZK_EUNSUPPORTED);
    /* A zeroed type is refused rather than trusted. */
    memset(&ty, 0, sizeof(ty));
    czk_vanilla_sector s;
    CHECK_EQ_INT(czk_vanilla_sector_decode(&s, &ty, buf, len, 0, NULL), CZK_EINVAL);
    free(buf);
}

/* ---- every shape, from a local encoder ------------------------------------------------- */

typedef struct wbuf {
    uint8_t *p;
    size_t n, cap;
} wbuf;

static void w_bytes(wbuf *w, const void *p, size_t n) {
    if (w->n + n > w->cap) {
        w->cap = (w->n + n) * 2;
        w->p = realloc(w->p, w->cap);
    }
    memcpy(w->p + w->n, p, n);
    w->n += n;
}

static void w_u64(wbuf *w, uint64_t v) {
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    w_bytes(w, b, 8);
}

static void w_fr(wbuf *w, const czk_fr *a) {
    uint8_t b[32];
    czk_fr_to_bytes_le(b, a);
    w_bytes(w, b, 32);
}

static void w_path(wbuf *w, czk_rng *rng, unsigned levels, unsigned arity, uint64_t *leaf,
                   czk_vanilla_level *lv) {
    w_u64(w, levels);
    for (unsigned l = 0; l < levels; l++) {
        w_u64(w, arity - 1);
        for (unsigned s = 0; s + 1 < arity; s++) {
            czk_fr_random(&lv[l].sib[s], rng);
            w_fr(w, &lv[l].sib[s]);
        }
        lv[l].arity = arity;
        lv[l].index = (unsigned)(*leaf % arity);
        *leaf /= arity;
        w_u64(w, lv[l].index);
    }
}

/* A FallbackPoStSectorProof of type `ty` whose n-th path opens challenge n for `rnd` (the
 * siblings are random: no tree stands behind it). Its expected decoding goes to *want. */
static wbuf encode_proof(czk_rng *rng, const czk_vanilla_post_type *ty, const uint8_t rnd[32],
                         uint64_t sector_id, czk_vanilla_sector *want) {
    const czk_vanilla_shape *sh = &ty->shape;
    wbuf w = {0};
    want->sector_id = sector_id;
    czk_fr_random(&want->comm_r, rng);
    czk_fr_random(&want->comm_c, rng);
    czk_fr_random(&want->comm_r_last, rng);
    want->n_inclusions = ty->challenge_count;
    want->inclusion = calloc(ty->challenge_count, sizeof(*want->inclusion));
    w_u64(&w, sector_id);
    w_fr(&w, &want->comm_r);
    w_u64(&w, 1);
    w_u64(&w, ty->challenge_count);
    for (uint32_t n = 0; n < ty->challenge_count; n++) {
        czk_vanilla_inclusion *inc = &want->inclusion[n];
        uint64_t idx, leaf;
        if (czk_vanilla_challenge_index(&idx, ty->api, 0, ty->challenge_count, n, NULL) != 0 ||
            czk_vanilla_leaf_challenge(&leaf, rnd, sector_id, idx, sh->nodes, NULL) != 0)
            leaf = 0;
        inc->leaf_index = leaf;
        inc->n_levels = sh->levels;
        inc->root = want->comm_r_last;
        czk_fr_random(&inc->leaf, rng);
        uint32_t tag = sh->variant;
        w_bytes(&w, &tag, 4);
        czk_vanilla_level *sub = &inc->level[sh->base_levels];
        if (sh->variant == CZK_VANILLA_SINGLE) {
            w_fr(&w, &inc->root);
            w_fr(&w, &inc->leaf);
            w_path(&w, rng, sh->base_levels, 8, &leaf, inc->level);
        } else {
            w_path(&w, rng, sh->base_levels, 8, &leaf, inc->level);
            w_path(&w, rng, 1, sh->sub_arity, &leaf, sub);
            if (sh->variant == CZK_VANILLA_TOP)
                w_path(&w, rng, 1, sh->top_arity, &leaf, sub + 1);
            w_fr(&w, &inc->root);
            w_fr(&w, &inc->leaf);
        }
    }
    w_fr(&w, &want->comm_c);
    w_fr(&w, &want->comm_r_last);
    return w;
}

static int same_sector(const czk_vanilla_sector *a, const czk_vanilla_sector *b) {
    if (a->sector_id != b->sector_id || !czk_fr_equal(&a->comm_r, &b->comm_r) ||
        !czk_fr_equal(&a->comm_c, &b->comm_c) || !czk_fr_equal(&a->comm_r_last, &b->comm_r_last) ||
        a->n_inclusions != b->n_inclusions)
        return 0;
    for (size_t k = 0; k < a->n_inclusions; k++) {
        const czk_vanilla_inclusion *x = &a->inclusion[k], *y = &b->inclusion[k];
        if (x->leaf_index != y->leaf_index || x->n_levels != y->n_levels ||
            !czk_fr_equal(&x->leaf, &y->leaf) || !czk_fr_equal(&x->root, &y->root))
            return 0;
        for (unsigned l = 0; l < x->n_levels; l++) {
            if (x->level[l].arity != y->level[l].arity || x->level[l].index != y->level[l].index)
                return 0;
            for (unsigned s = 0; s + 1 < x->level[l].arity; s++)
                if (!czk_fr_equal(&x->level[l].sib[s], &y->level[l].sib[s]))
                    return 0;
        }
    }
    return 1;
}

CZK_TEST(vanilla_every_type_round_trips) {
    /* Shapes: levels and variant per size, (doc/FILECOIN.md §5, §6). */
    static const struct {
        uint64_t size;
        uint32_t levels, variant;
    } shapes[5] = {{2048, 2, 0},
                   {8 << 20, 6, 0},
                   {512 << 20, 8, 0},
                   {32ull << 30, 10, 1},
                   {64ull << 30, 11, 2}};
    uint8_t rnd[32];
    for (int i = 0; i < 32; i++)
        rnd[i] = (uint8_t)czk_rng_u64(&t->rng);
    rnd[31] &= 0x3f; /* Curio's mask; the value may still be ≥ r, so clear one more bit */
    rnd[31] &= 0x1f;
    for (uint64_t abi = 0; abi <= 14; abi++) {
        czk_vanilla_post_type ty;
        CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, abi, NULL), CZK_OK);
        CHECK_EQ_INT(ty.shape.sector_size, shapes[abi % 5].size);
        CHECK_EQ_INT(ty.shape.levels, shapes[abi % 5].levels);
        CHECK_EQ_INT(ty.shape.variant, shapes[abi % 5].variant);
        CHECK_EQ_INT(ty.challenge_count, abi < 5 ? 66 : 10);
        czk_vanilla_sector want = {0}, got;
        uint64_t sid = czk_rng_u64(&t->rng);
        wbuf w = encode_proof(&t->rng, &ty, rnd, sid, &want);
        czk_err e = {0};
        CHECKF(czk_vanilla_sector_decode(&got, &ty, w.p, w.n, 0, &e) == CZK_OK, "abi %llu: %s",
               (unsigned long long)abi, e.msg);
        CHECKF(same_sector(&got, &want), "abi %llu decodes to something else",
               (unsigned long long)abi);
        CHECK_EQ_INT(czk_vanilla_sector_check(&got, &ty, rnd, 0, &e), CZK_OK);
        /* The leaf index a path proves is below the sector's node count, and every truncation
         * of this shape fails too (a sampling of lengths). */
        for (size_t k = 0; k < got.n_inclusions; k++)
            CHECK(got.inclusion[k].leaf_index < ty.shape.nodes);
        for (size_t n = 0; n < w.n; n += 1 + czk_rng_u64(&t->rng) % (w.n / 150 + 1))
            if (!expect_fail(t, &ty, w.p, n, CZK_ELENGTH, "truncated"))
                break;
        czk_vanilla_sector_clear(&got);
        free(want.inclusion);
        free(w.p);
    }
}

CZK_TEST(vanilla_sectors_decode_a_request) {
    czk_vanilla_post_type ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 5, NULL), CZK_OK); /* Window 2 KiB */
    CHECK_EQ_INT(ty.sector_count, 2);
    uint8_t rnd[32] = {7};
    czk_vanilla_sector want[3] = {{0}};
    wbuf w[3];
    for (int i = 0; i < 3; i++)
        w[i] = encode_proof(&t->rng, &ty, rnd, 100 + (uint64_t)i, &want[i]);
    const uint8_t *bufs[3] = {w[0].p, w[1].p, w[2].p};
    size_t lens[3] = {w[0].n, w[1].n, w[2].n};
    czk_vanilla_sector got[3];
    size_t before = czk_alloc_in_use();
    CHECK_EQ_INT(czk_vanilla_sectors_decode(got, &ty, bufs, lens, 2, NULL), CZK_OK);
    CHECK(same_sector(&got[0], &want[0]) && same_sector(&got[1], &want[1]));
    czk_vanilla_sector_clear(&got[0]);
    czk_vanilla_sector_clear(&got[1]);
    /* More sectors than a partition holds, or none. */
    czk_err e = {0};
    CHECK_EQ_INT(czk_vanilla_sectors_decode(got, &ty, bufs, lens, 3, &e), CZK_EINVAL);
    CHECK(strstr(e.msg, "1 to 2") != NULL);
    CHECK_EQ_INT(czk_vanilla_sectors_decode(got, &ty, bufs, lens, 0, NULL), CZK_EINVAL);
    /* The second one is cut short: the first is freed too and the message names the second. */
    lens[1] -= 1;
    CHECK_EQ_INT(czk_vanilla_sectors_decode(got, &ty, bufs, lens, 2, &e), CZK_ELENGTH);
    CHECKF(strstr(e.msg, "vanilla proof 1 (sector 101)") != NULL, "%s", e.msg);
    CHECK(got[0].inclusion == NULL && got[1].inclusion == NULL);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
    /* WinningPoSt takes exactly one sector. */
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 0, NULL), CZK_OK);
    CHECK_EQ_INT(czk_vanilla_sectors_decode(got, &ty, bufs, lens, 2, NULL), CZK_EINVAL);
    for (int i = 0; i < 3; i++) {
        free(want[i].inclusion);
        free(w[i].p);
    }
}

/* ---- challenges ------------------------------------------------------------------------ */

CZK_TEST(vanilla_challenge_rules) {
    uint64_t v;
    /* API 1.0/1.1: sector_index · count + n; 1.2: n. */
    CHECK_EQ_INT(czk_vanilla_challenge_index(&v, CZK_VANILLA_API_V1_0, 3, 10, 4, NULL), CZK_OK);
    CHECK_EQ_INT(v, 34);
    CHECK_EQ_INT(czk_vanilla_challenge_index(&v, CZK_VANILLA_API_V1_1, 2349, 10, 9, NULL), CZK_OK);
    CHECK_EQ_INT(v, 23499);
    CHECK_EQ_INT(czk_vanilla_challenge_index(&v, CZK_VANILLA_API_V1_2, 3, 10, 4, NULL), CZK_OK);
    CHECK_EQ_INT(v, 4);
    CHECK_EQ_INT(czk_vanilla_challenge_index(&v, CZK_VANILLA_API_V1_0, 0, 10, 10, NULL),
                 CZK_EINVAL);
    CHECK_EQ_INT(
        czk_vanilla_challenge_index(&v, CZK_VANILLA_API_V1_0, UINT64_MAX / 10, 10, 9, NULL),
        CZK_ERANGE);
    CHECK_EQ_INT(czk_vanilla_challenge_index(&v, (czk_vanilla_api)9, 0, 10, 1, NULL), CZK_EINVAL);
    /* Randomness must be a canonical field element: r and 2^256−1 are refused, r−1 is not. */
    uint8_t rnd[32], pid[32];
    put_ge_r(rnd, 0);
    czk_err e = {0};
    CHECK_EQ_INT(czk_vanilla_leaf_challenge(&v, rnd, 1, 0, 1u << 30, &e), CZK_ERANGE);
    CHECK(strstr(e.msg, "randomness") != NULL);
    put_ge_r(rnd, -1);
    CHECK_EQ_INT(czk_vanilla_leaf_challenge(&v, rnd, 1, 0, 1u << 30, NULL), CZK_ERANGE);
    put_ge_r(rnd, 0);
    rnd[0] -= 1;
    CHECK_EQ_INT(czk_vanilla_leaf_challenge(&v, rnd, 1, 0, 1u << 30, NULL), CZK_OK);
    CHECK(v < (1u << 30));
    CHECK_EQ_INT(czk_vanilla_leaf_challenge(&v, rnd, 1, 0, 0, NULL), CZK_EINVAL);
    /* Prover id: LEB128 of the actor id, left-aligned (f01000 → e8 07). */
    czk_vanilla_prover_id(pid, 1000);
    CHECK(pid[0] == 0xe8 && pid[1] == 0x07 && pid[2] == 0);
    czk_vanilla_prover_id(pid, 0);
    CHECK(pid[0] == 0 && pid[31] == 0);
    czk_vanilla_prover_id(pid, UINT64_MAX);
    CHECK(pid[0] == 0xff && pid[8] == 0xff && pid[9] == 0x01 && pid[10] == 0);
    /* WinningPoSt sector choice, against values from Python's hashlib for randomness 0,
     * prover f01000 and a set of 1,000 sectors:
     * int.from_bytes(sha256(pid + rnd + k.to_bytes(8, 'little')).digest()[:8], 'little') % 1000. */
    static const uint64_t kat[3] = {695, 353, 6};
    czk_vanilla_prover_id(pid, 1000);
    memset(rnd, 0, sizeof(rnd));
    uint64_t a;
    for (uint64_t k = 0; k < 3; k++) {
        CHECK_EQ_INT(czk_vanilla_sector_challenge(&a, rnd, pid, k, 1000, NULL), CZK_OK);
        CHECK_EQ_INT(a, kat[k]);
    }
    /* Leaf challenges of sector 1 under zero randomness, from the same hashlib expression with
     * randomness ‖ LE64(1) ‖ LE64(n), mod 2^30: the ten leaves of the real proof. */
    static const uint64_t leaves[10] = {707914199, 439148358,  967788220, 548708700,  1061661429,
                                        6202012,   1055504637, 389535735, 1000069704, 600088878};
    for (uint64_t n = 0; n < 10; n++) {
        CHECK_EQ_INT(czk_vanilla_leaf_challenge(&a, rnd, 1, n, 1u << 30, NULL), CZK_OK);
        CHECK_EQ_INT(a, leaves[n]);
    }
    CHECK_EQ_INT(czk_vanilla_sector_challenge(&a, rnd, pid, 0, 0, NULL), CZK_EINVAL);
    put_ge_r(pid, 1);
    CHECK_EQ_INT(czk_vanilla_sector_challenge(&a, rnd, pid, 0, 1000, &e), CZK_ERANGE);
    CHECK(strstr(e.msg, "prover id") != NULL);
}

/* ---- encoding and generation ----------------------------------------------------------- */

/* The encoder is the decoder's inverse on the real file, byte for byte. */
CZK_TEST(vanilla_encode_real_32g_is_identity) {
    czk_vanilla_post_type ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 8, NULL), CZK_OK);
    czk_vanilla_sector s;
    uint8_t *buf;
    size_t len;
    CHECK_EQ_INT(decode_real(&s, &buf, &len), CZK_OK);
    CHECK_EQ_INT(czk_vanilla_sector_encoded_size(&ty), len);
    uint8_t *out = malloc(len);
    CHECK(out != NULL);
    size_t n = 0;
    czk_err e = {0};
    CHECKF(czk_vanilla_sector_encode(out, len, &n, &s, &ty, &e) == CZK_OK, "%s", e.msg);
    CHECK_EQ_INT(n, len);
    CHECK_MEM(out, buf, len);
    /* Too small a buffer, and a path of the wrong shape, are refused before writing. */
    CHECK_EQ_INT(czk_vanilla_sector_encode(out, len - 1, &n, &s, &ty, &e), CZK_ELENGTH);
    s.inclusion[3].level[9].arity = 2;
    memset(out, 0xAA, len);
    CHECK_EQ_INT(czk_vanilla_sector_encode(out, len, &n, &s, &ty, &e), CZK_EINVAL);
    CHECKF(strstr(e.msg, "inclusion proof 3") != NULL, "%s", e.msg);
    CHECK(out[0] == 0xAA && out[len - 1] == 0xAA);
    /* WinningPoSt's size at 32 GiB: 66 of the same inclusion proofs. */
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 3, NULL), CZK_OK);
    CHECK_EQ_INT(czk_vanilla_sector_encoded_size(&ty), 120 + 66 * ((len - 120) / 10));
    czk_vanilla_sector_clear(&s);
    free(out);
    free(buf);
}

/* Generated proofs of all 15 types read back through the strict decoder, open the challenges
 * of their public data, and hash to their roots; a leaf challenged twice gets one path. */
CZK_TEST(vanilla_generated_proofs_are_valid) {
    uint8_t rnd[32];
    czk_fr r;
    czk_fr_random(&r, &t->rng);
    czk_fr_to_bytes_le(rnd, &r);
    for (uint64_t abi = 0; abi <= 14; abi++) {
        czk_vanilla_post_type ty;
        CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, abi, NULL), CZK_OK);
        uint64_t index = ty.kind == CZK_VANILLA_POST_WINNING ? 0 : ty.sector_count + 1;
        uint64_t sid = czk_rng_u64(&t->rng) >> 1;
        czk_vanilla_sector g, d;
        czk_err e = {0};
        CHECKF(czk_vanilla_sector_generate(&g, &ty, rnd, sid, index, &t->rng, &e) == CZK_OK,
               "abi %llu: %s", (unsigned long long)abi, e.msg);
        CHECKF(czk_vanilla_sector_verify_paths(&g, &e) == CZK_OK, "abi %llu: %s",
               (unsigned long long)abi, e.msg);
        size_t cap = czk_vanilla_sector_encoded_size(&ty), n = 0;
        uint8_t *b = malloc(cap);
        CHECK(b != NULL);
        CHECK_EQ_INT(czk_vanilla_sector_encode(b, cap, &n, &g, &ty, NULL), CZK_OK);
        CHECKF(czk_vanilla_sector_decode(&d, &ty, b, n, 0, &e) == CZK_OK, "abi %llu: %s",
               (unsigned long long)abi, e.msg);
        CHECK(same_sector(&d, &g));
        CHECKF(czk_vanilla_sector_check(&d, &ty, rnd, index, &e) == CZK_OK, "abi %llu: %s",
               (unsigned long long)abi, e.msg);
        /* Another sector index opens other leaves (API 1.2 ignores it for WindowPoSt). */
        if (ty.api != CZK_VANILLA_API_V1_2)
            CHECK_EQ_INT(czk_vanilla_sector_check(&d, &ty, rnd, index + 1, NULL), CZK_EVERIFY);
        /* Inclusion proofs of one leaf carry the same path. */
        for (size_t i = 0; i < g.n_inclusions; i++)
            for (size_t j = i + 1; j < g.n_inclusions; j++)
                if (g.inclusion[i].leaf_index == g.inclusion[j].leaf_index)
                    CHECK_MEM(&g.inclusion[i], &g.inclusion[j], sizeof g.inclusion[i]);
        /* A leaf off its path fails the hash check, naming the proof. */
        czk_fr_add(&d.inclusion[1].leaf, &d.inclusion[1].leaf, &CZK_FR_ONE);
        CHECK_EQ_INT(czk_vanilla_sector_verify_paths(&d, &e), CZK_EVERIFY);
        CHECKF(strstr(e.msg, "inclusion proof 1") != NULL, "%s", e.msg);
        czk_fr_sub(&d.inclusion[1].leaf, &d.inclusion[1].leaf, &CZK_FR_ONE);
        czk_fr_add(&d.comm_c, &d.comm_c, &CZK_FR_ONE);
        CHECK_EQ_INT(czk_vanilla_sector_verify_paths(&d, &e), CZK_EVERIFY);
        CHECKF(strstr(e.msg, "comm_r") != NULL, "%s", e.msg);
        czk_vanilla_sector_clear(&d);
        czk_vanilla_sector_clear(&g);
        free(b);
    }
    /* 2 KiB WinningPoSt opens 66 challenges among 64 leaves: repeats are certain, and the
     * two paths of a shared octree parent share their upper level. */
    czk_vanilla_post_type ty;
    CHECK_EQ_INT(czk_vanilla_post_type_from_abi(&ty, 0, NULL), CZK_OK);
    czk_vanilla_sector g;
    CHECK_EQ_INT(czk_vanilla_sector_generate(&g, &ty, rnd, 7, 0, &t->rng, NULL), CZK_OK);
    int shared = 0;
    for (size_t i = 0; i < g.n_inclusions; i++)
        for (size_t j = i + 1; j < g.n_inclusions; j++) {
            const czk_vanilla_inclusion *a = &g.inclusion[i], *b = &g.inclusion[j];
            if (a->leaf_index / 8 == b->leaf_index / 8 && a->leaf_index != b->leaf_index) {
                shared++;
                CHECK_MEM(&a->level[1], &b->level[1], sizeof a->level[1]);
            }
        }
    CHECK(shared > 0);
    czk_vanilla_sector_clear(&g);
    /* Randomness that is not a field element is refused. */
    memset(rnd, 0xff, 32);
    CHECK_EQ_INT(czk_vanilla_sector_generate(&g, &ty, rnd, 7, 0, &t->rng, NULL), CZK_ERANGE);
    CHECK(g.inclusion == NULL);
}
