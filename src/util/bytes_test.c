/* Tests of util/bytes.h: known byte patterns, round trips, and unaligned addresses. */
#include "tests/test.h"
#include "util/bytes.h"
#include "util/rng.h"

#include <string.h>

/* The stores behind one signature, so that a table of cases can name them. */
#define BYTES_STORE(name, type)                                                                    \
    static void store_##name(uint8_t *p, uint64_t v) {                                             \
        czk_bytes_store_##name(p, (type)v);                                                        \
    }
BYTES_STORE(le16, uint16_t)
BYTES_STORE(le32, uint32_t)
BYTES_STORE(le64, uint64_t)
BYTES_STORE(be16, uint16_t)
BYTES_STORE(be32, uint32_t)
BYTES_STORE(be64, uint64_t)
#undef BYTES_STORE

/* One pattern in each width, with every byte distinct so that a swapped pair shows. */
CZK_TEST(bytes_known_patterns) {
    static const uint8_t src[8] = {0x01, 0x23, 0x45, 0x67, 0x89, 0xab, 0xcd, 0xef};
    CHECK(czk_bytes_load_le16(src) == 0x2301u);
    CHECK(czk_bytes_load_le32(src) == 0x67452301u);
    CHECK(czk_bytes_load_le64(src) == 0xefcdab8967452301ull);
    CHECK(czk_bytes_load_be16(src) == 0x0123u);
    CHECK(czk_bytes_load_be32(src) == 0x01234567u);
    CHECK(czk_bytes_load_be64(src) == 0x0123456789abcdefull);

    /* Stores write exactly their width: the guard bytes after them stay 0xee. */
    static const struct {
        void (*store)(uint8_t *, uint64_t);
        uint64_t v;
        size_t width;
    } stores[] = {
        {store_le16, 0x2301u, 2},
        {store_le32, 0x67452301u, 4},
        {store_le64, 0xefcdab8967452301ull, 8},
        {store_be16, 0x0123u, 2},
        {store_be32, 0x01234567u, 4},
        {store_be64, 0x0123456789abcdefull, 8},
    };
    for (size_t i = 0; i < sizeof stores / sizeof stores[0]; i++) {
        uint8_t b[10];
        memset(b, 0xee, sizeof b);
        stores[i].store(b, stores[i].v);
        CHECK_MEM(b, src, stores[i].width);
        CHECK(b[stores[i].width] == 0xee);
    }

    /* The top bit of every width survives (no sign extension through int promotion). */
    static const uint8_t ff[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
    CHECK(czk_bytes_load_le16(ff) == UINT16_MAX && czk_bytes_load_be16(ff) == UINT16_MAX);
    CHECK(czk_bytes_load_le32(ff) == UINT32_MAX && czk_bytes_load_be32(ff) == UINT32_MAX);
    CHECK(czk_bytes_load_le64(ff) == UINT64_MAX && czk_bytes_load_be64(ff) == UINT64_MAX);
    static const uint8_t hi[8] = {0, 0, 0, 0, 0, 0, 0, 0x80};
    CHECK(czk_bytes_load_le64(hi) == 1ull << 63);
    CHECK(czk_bytes_load_be64(hi) == 0x80);
    CHECK(czk_bytes_load_le32(hi + 4) == 1u << 31);
    CHECK(czk_bytes_load_le16(hi + 6) == 1u << 15);
}

/* Random values at every offset in a word: store then load gives the value back, and the
 * big-endian bytes are the little-endian ones reversed. */
CZK_TEST(bytes_round_trips) {
    czk_rng rng;
    czk_rng_seed(&rng, 0xb17e5);
    uint8_t buf[16], rev[8];
    for (int k = 0; k < 1000; k++) {
        uint64_t v = czk_rng_u64(&rng);
        size_t off = (size_t)k % 8; /* unaligned addresses too */
        czk_bytes_store_le64(buf + off, v);
        CHECK(czk_bytes_load_le64(buf + off) == v);
        for (int i = 0; i < 8; i++)
            rev[i] = buf[off + 7 - i];
        CHECK(czk_bytes_load_be64(rev) == v);
        czk_bytes_store_be64(buf + off, v);
        CHECK(czk_bytes_load_be64(buf + off) == v);
        CHECK_MEM(buf + off, rev, 8);

        uint32_t w = (uint32_t)v;
        czk_bytes_store_le32(buf + off, w);
        CHECK(czk_bytes_load_le32(buf + off) == w);
        czk_bytes_store_be32(buf + off, w);
        CHECK(czk_bytes_load_be32(buf + off) == w);
        CHECK(czk_bytes_load_le32(buf + off) == __builtin_bswap32(w));

        uint16_t h = (uint16_t)(v >> 48);
        czk_bytes_store_le16(buf + off, h);
        CHECK(czk_bytes_load_le16(buf + off) == h);
        czk_bytes_store_be16(buf + off, h);
        CHECK(czk_bytes_load_be16(buf + off) == h);
        CHECK(czk_bytes_load_le16(buf + off) == (uint16_t)(h << 8 | h >> 8));

        /* A 64-bit value is its two 32-bit halves, low half first in little-endian. */
        czk_bytes_store_le64(buf + off, v);
        CHECK(czk_bytes_load_le32(buf + off) == (uint32_t)v);
        CHECK(czk_bytes_load_le32(buf + off + 4) == (uint32_t)(v >> 32));
        czk_bytes_store_be64(buf + off, v);
        CHECK(czk_bytes_load_be32(buf + off) == (uint32_t)(v >> 32));
        CHECK(czk_bytes_load_be32(buf + off + 4) == (uint32_t)v);
    }
}
