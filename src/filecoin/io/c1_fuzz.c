/*
 * libFuzzer target for the C1 output parser: the input is a C1 JSON or Curio's wrapper. The
 * parser may refuse anything; it must never crash, read out of bounds or leak, must say why it
 * refused and leave nothing allocated. What it accepts must write, and the written JSON must
 * parse to the same bytes again (write ∘ parse is idempotent). Good seeds are the outputs of
 * czk_c1_write for the 2 KiB types (the c1_roundtrip_small test makes them), plain and
 * wrapped.
 */
#include "filecoin/io/c1.h"
#include "util/alloc.h"

#include <stdint.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t before = czk_alloc_in_use();
    czk_c1 c1, again;
    czk_err e = {0};
    int rc = czk_c1_parse(&c1, data, size, "fuzz", &e);
    if (rc != CZK_OK) {
        if (e.msg[0] == '\0' || c1.proofs != NULL)
            __builtin_trap();
    } else {
        char *out = NULL, *out2 = NULL;
        size_t n = 0, n2 = 0;
        if (czk_c1_write(&out, &n, &c1, c1.wrapped, c1.sector_num, NULL) != CZK_OK)
            __builtin_trap();
        if (czk_c1_parse(&again, (const uint8_t *)out, n, "fuzz-again", NULL) != CZK_OK)
            __builtin_trap();
        if (czk_c1_write(&out2, &n2, &again, again.wrapped, again.sector_num, NULL) != CZK_OK ||
            n2 != n || memcmp(out, out2, n) != 0)
            __builtin_trap();
        czk_free(out);
        czk_free(out2);
        czk_c1_clear(&again);
        czk_c1_clear(&c1);
    }
    if (czk_alloc_in_use() != before)
        __builtin_trap();
    return 0;
}
