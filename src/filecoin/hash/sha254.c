/*
 * tree_d's node hash (contract in sha254.h).
 */
#include "filecoin/hash/sha254.h"

#include <openssl/sha.h>
#include <string.h>

void czk_sha254_node(uint8_t out[32], const uint8_t left[32], const uint8_t right[32]) {
    uint8_t buf[64];
    memcpy(buf, left, 32);
    memcpy(buf + 32, right, 32);
    /* OpenSSL's one-shot SHA256 only fails when its context cannot be made, which the
     * built-in implementation never does. */
    (void)SHA256(buf, sizeof buf, out);
    out[31] &= 0x3f;
}
