/*
 * libFuzzer target for the SnapDeals partition-proof decoder: the first input byte picks the
 * sector size (mod 5: 2 KiB, 8 MiB, 512 MiB, 32 GiB, 64 GiB), the rest is one bincode
 * PartitionProof. The decoder may refuse anything; it must never crash, read out of bounds,
 * leak, or allocate more than the shape allows. A proof that decodes must encode back to the
 * same bytes. A good seed is a 2 KiB proof from czk_snap_gen (testgen/snap_gen.h) with the
 * byte 0x00 in front.
 */
#include "filecoin/snap/snap_vanilla.h"
#include "filecoin/spec/sector.h"
#include "util/alloc.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    czk_snap_shape shape;
    if (czk_snap_shape_init(&shape, czk_vanilla_sizes[data[0] % CZK_VANILLA_N_SIZES], NULL) !=
        CZK_OK)
        __builtin_trap();
    size_t before = czk_alloc_in_use();
    czk_snap_partition_proof p;
    czk_err e = {0};
    int rc = czk_snap_partition_proof_decode(&p, &shape, data + 1, size - 1, 0, &e);
    if (rc == CZK_OK) {
        /* What decodes is exactly the encoding of what it decoded to. */
        size_t n = czk_snap_partition_proof_encoded_size(&shape), len = 0;
        uint8_t *buf = czk_malloc(n);
        if (buf == NULL)
            __builtin_trap();
        if (n != size - 1 ||
            czk_snap_partition_proof_encode(buf, n, &len, &p, &shape, NULL) != CZK_OK || len != n ||
            memcmp(buf, data + 1, n) != 0)
            __builtin_trap();
        czk_free(buf);
        czk_snap_partition_proof_clear(&p);
    } else if (e.msg[0] == '\0' || p.challenge != NULL) {
        /* Every refusal says why, and leaves nothing allocated behind. */
        __builtin_trap();
    }
    if (czk_alloc_in_use() != before)
        __builtin_trap();
    return 0;
}
