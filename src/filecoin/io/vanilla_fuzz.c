/*
 * libFuzzer target for the PoSt vanilla-proof decoder: the first input byte picks the registered
 * PoSt proof type (mod 15), the rest is one bincode FallbackPoStSectorProof. The decoder may
 * refuse anything; it must never crash, read out of bounds, leak, or allocate more than the
 * type's shape allows. A proof that decodes is also checked against zero randomness, which
 * walks every decoded path. A good seed is tests/data/filecoin/post-32g-window.vproof with
 * the byte 0x08 in front.
 */
#include "filecoin/io/vanilla.h"
#include "util/alloc.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    czk_vanilla_post_type ty;
    if (czk_vanilla_post_type_from_abi(&ty, data[0] % 15, NULL) != CZK_OK)
        __builtin_trap();
    size_t before = czk_alloc_in_use();
    czk_vanilla_sector s;
    czk_err e = {0};
    int rc = czk_vanilla_sector_decode(&s, &ty, data + 1, size - 1, 0, &e);
    if (rc == CZK_OK) {
        static const uint8_t zero[32];
        /* Any verdict is fine; the walk must be safe. */
        (void)czk_vanilla_sector_check(&s, &ty, zero, 0, NULL);
        czk_vanilla_sector_clear(&s);
    } else if (e.msg[0] == '\0' || s.inclusion != NULL) {
        /* Every refusal says why, and leaves nothing allocated behind. */
        __builtin_trap();
    }
    if (czk_alloc_in_use() != before)
        __builtin_trap();
    return 0;
}
