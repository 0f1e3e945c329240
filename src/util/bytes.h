/*
 * Byte order: loads and stores of 16-, 32- and 64-bit integers at any address, little-endian
 * (czk's own files, bincode, the iden3 container, Filecoin's hashed messages) or big-endian
 * (bellperson's lengths, SHA-256 inputs), for every layer that encodes integers as bytes.
 *
 * Each value is assembled from single bytes, so the result does not depend on the host's byte
 * order or on the pointer's alignment; GCC and Clang compile each to one move (plus a byte
 * swap for the big-endian forms on x86-64), so hot loops (r1cs_file's checksum) may use them.
 * The caller has checked that the bytes lie within its buffer.
 */
#ifndef CZK_UTIL_BYTES_H
#define CZK_UTIL_BYTES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- little-endian ---- */

static inline uint16_t czk_bytes_load_le16(const uint8_t *p) {
    return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t czk_bytes_load_le32(const uint8_t *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static inline uint64_t czk_bytes_load_le64(const uint8_t *p) {
    return (uint64_t)p[0] | (uint64_t)p[1] << 8 | (uint64_t)p[2] << 16 | (uint64_t)p[3] << 24 |
           (uint64_t)p[4] << 32 | (uint64_t)p[5] << 40 | (uint64_t)p[6] << 48 |
           (uint64_t)p[7] << 56;
}

static inline void czk_bytes_store_le16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
}

static inline void czk_bytes_store_le32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static inline void czk_bytes_store_le64(uint8_t *p, uint64_t v) {
    czk_bytes_store_le32(p, (uint32_t)v);
    czk_bytes_store_le32(p + 4, (uint32_t)(v >> 32));
}

/* ---- big-endian ---- */

static inline uint16_t czk_bytes_load_be16(const uint8_t *p) {
    return (uint16_t)(p[0] << 8 | p[1]);
}

static inline uint32_t czk_bytes_load_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | (uint32_t)p[3];
}

static inline uint64_t czk_bytes_load_be64(const uint8_t *p) {
    return (uint64_t)p[0] << 56 | (uint64_t)p[1] << 48 | (uint64_t)p[2] << 40 |
           (uint64_t)p[3] << 32 | (uint64_t)p[4] << 24 | (uint64_t)p[5] << 16 |
           (uint64_t)p[6] << 8 | (uint64_t)p[7];
}

static inline void czk_bytes_store_be16(uint8_t *p, uint16_t v) {
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

static inline void czk_bytes_store_be32(uint8_t *p, uint32_t v) {
    p[0] = (uint8_t)(v >> 24);
    p[1] = (uint8_t)(v >> 16);
    p[2] = (uint8_t)(v >> 8);
    p[3] = (uint8_t)v;
}

static inline void czk_bytes_store_be64(uint8_t *p, uint64_t v) {
    czk_bytes_store_be32(p, (uint32_t)(v >> 32));
    czk_bytes_store_be32(p + 4, (uint32_t)v);
}

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_BYTES_H */
