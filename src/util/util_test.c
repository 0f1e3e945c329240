#include "tests/test.h"
#include "util/alloc.h"
#include "util/rng.h"
#include "util/status.h"

#include <string.h>

CZK_TEST(status_names) {
    CHECK(strcmp(czk_status_name(CZK_OK), "CZK_OK") == 0);
    CHECK(strcmp(czk_status_name(CZK_ENOTINGROUP), "CZK_ENOTINGROUP") == 0);
    CHECK(strcmp(czk_status_name(12345), "CZK_UNKNOWN") == 0);
    CHECK(strcmp(czk_strerror(CZK_ENOMEM), "out of memory") == 0);
    czk_err e;
    int rc = czk_err_set(&e, CZK_EBADENC, "byte %d", 7);
    CHECK_EQ_INT(rc, CZK_EBADENC);
    CHECK_EQ_INT(e.code, CZK_EBADENC);
    CHECK(strstr(e.msg, "util_test.c:") != NULL);
    CHECK(strstr(e.msg, "byte 7") != NULL);
    CHECK_EQ_INT(czk_err_set(NULL, CZK_EIO, "ignored"), CZK_EIO);
}

CZK_TEST(rng_reproducible) {
    czk_rng a, b;
    czk_rng_seed(&a, 42);
    czk_rng_seed(&b, 42);
    for (int i = 0; i < 100; i++)
        CHECK(czk_rng_u64(&a) == czk_rng_u64(&b));
    czk_rng_seed(&b, 43);
    CHECK(czk_rng_u64(&a) != czk_rng_u64(&b));
    unsigned char buf[33] = {0}, zero[33] = {0};
    CHECK_EQ_INT(czk_rng_os(buf, sizeof(buf)), CZK_OK);
    CHECK(memcmp(buf, zero, sizeof(buf)) != 0);
}

CZK_TEST(alloc_counts) {
    size_t before = czk_alloc_in_use();
    unsigned char *p = czk_malloc(1000);
    CHECK(p != NULL);
    CHECK(((uintptr_t)p & 63) == 0);
    CHECK_EQ_INT(czk_alloc_in_use() - before, 1000);
    CHECK(czk_alloc_peak() >= before + 1000);
    czk_free(p);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
    CHECK(czk_malloc(0) == NULL);
    CHECK(czk_calloc(SIZE_MAX / 2, 4) == NULL);
    czk_free(NULL);
}
