/*
 * libFuzzer target for every point decoder: G1 and G2; zcash compressed and uncompressed,
 * snarkjs; checked and unchecked. Each decoder reads the first bytes of the input.
 *
 * Besides "never crashes" (the sanitizers watch that), it checks:
 *   - a successful decode re-encodes to exactly the input (every accepted encoding is canonical);
 *   - the decoded point survives the other two encodings;
 *   - checked and unchecked decoders agree: same code unless the unchecked one succeeded, and
 *     then the checked one either returns the same point or CZK_ENOTINGROUP, as the slow
 *     [r]P = O check decides (a differential test of the endomorphism subgroup check).
 * A violated property traps: this file is a test harness, not library code.
 *
 * Build: clang -fsanitize=fuzzer,address -I src -I . src/curve/decode_fuzz.c <library sources>
 */
#include "curve/g1.h"
#include "curve/g2.h"
#include "util/status.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define REQUIRE(cond)                                                                              \
    do {                                                                                           \
        if (!(cond))                                                                               \
            __builtin_trap();                                                                      \
    } while (0)

/* The G1 and G2 checks are the same code over different names: G is g1 or g2. */
#define DEFINE_GROUP_FUZZ(G, AFF, CB, UB, SB)                                                      \
    static void check_other_encodings_##G(const AFF *p) {                                          \
        uint8_t buf[UB];                                                                           \
        AFF q;                                                                                     \
        czk_##G##_affine_serialize(buf, p);                                                        \
        REQUIRE(czk_##G##_affine_deserialize_unchecked(&q, buf) == CZK_OK);                        \
        REQUIRE(czk_##G##_affine_equal(&q, p));                                                    \
        czk_##G##_affine_compress(buf, p);                                                         \
        REQUIRE(czk_##G##_affine_uncompress_unchecked(&q, buf) == CZK_OK);                         \
        REQUIRE(czk_##G##_affine_equal(&q, p));                                                    \
        czk_##G##_affine_to_snarkjs(buf, p);                                                       \
        REQUIRE(czk_##G##_affine_from_snarkjs_unchecked(&q, buf) == CZK_OK);                       \
        REQUIRE(czk_##G##_affine_equal(&q, p));                                                    \
    }                                                                                              \
                                                                                                   \
    /* Checked vs unchecked: rc_u/pu from the unchecked decoder, rc_c/pc from the checked one. */  \
    static void check_pair_##G(int rc_u, const AFF *pu, int rc_c, const AFF *pc) {                 \
        if (rc_u != CZK_OK) {                                                                      \
            REQUIRE(rc_u < 0 && rc_c == rc_u);                                                     \
            return;                                                                                \
        }                                                                                          \
        REQUIRE(czk_##G##_affine_is_on_curve(pu));                                                 \
        int in_group = czk_##G##_affine_is_in_group_slow(pu);                                      \
        REQUIRE(czk_##G##_affine_is_in_group(pu) == in_group);                                     \
        if (in_group) {                                                                            \
            REQUIRE(rc_c == CZK_OK);                                                               \
            REQUIRE(czk_##G##_affine_equal(pc, pu));                                               \
        } else {                                                                                   \
            REQUIRE(rc_c == CZK_ENOTINGROUP);                                                      \
        }                                                                                          \
        check_other_encodings_##G(pu);                                                             \
    }                                                                                              \
                                                                                                   \
    static void fuzz_##G(const uint8_t *data, size_t size) {                                       \
        AFF pu, pc;                                                                                \
        uint8_t out[UB];                                                                           \
        int rc_u, rc_c;                                                                            \
        if (size >= CB) {                                                                          \
            rc_u = czk_##G##_affine_uncompress_unchecked(&pu, data);                               \
            rc_c = czk_##G##_affine_uncompress(&pc, data);                                         \
            if (rc_u == CZK_OK) {                                                                  \
                czk_##G##_affine_compress(out, &pu);                                               \
                REQUIRE(memcmp(out, data, CB) == 0);                                               \
            }                                                                                      \
            check_pair_##G(rc_u, &pu, rc_c, &pc);                                                  \
        }                                                                                          \
        if (size >= UB) {                                                                          \
            rc_u = czk_##G##_affine_deserialize_unchecked(&pu, data);                              \
            rc_c = czk_##G##_affine_deserialize(&pc, data);                                        \
            if (rc_u == CZK_OK) {                                                                  \
                czk_##G##_affine_serialize(out, &pu);                                              \
                REQUIRE(memcmp(out, data, UB) == 0);                                               \
            }                                                                                      \
            check_pair_##G(rc_u, &pu, rc_c, &pc);                                                  \
        }                                                                                          \
        if (size >= SB) {                                                                          \
            rc_u = czk_##G##_affine_from_snarkjs_unchecked(&pu, data);                             \
            rc_c = czk_##G##_affine_from_snarkjs(&pc, data);                                       \
            if (rc_u == CZK_OK) {                                                                  \
                czk_##G##_affine_to_snarkjs(out, &pu);                                             \
                REQUIRE(memcmp(out, data, SB) == 0);                                               \
            }                                                                                      \
            check_pair_##G(rc_u, &pu, rc_c, &pc);                                                  \
        }                                                                                          \
    }

DEFINE_GROUP_FUZZ(g1, czk_g1_affine, CZK_G1_COMPRESSED_BYTES, CZK_G1_UNCOMPRESSED_BYTES,
                  CZK_G1_SNARKJS_BYTES)
DEFINE_GROUP_FUZZ(g2, czk_g2_affine, CZK_G2_COMPRESSED_BYTES, CZK_G2_UNCOMPRESSED_BYTES,
                  CZK_G2_SNARKJS_BYTES)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_g1(data, size);
    fuzz_g2(data, size);
    return 0;
}
