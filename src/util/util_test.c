#include "tests/test.h"
#include "util/alloc.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"

#include <stdatomic.h>
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

typedef struct {
    unsigned char *hit;
    _Atomic unsigned long sum;
    unsigned ways;
    int bad_worker;
} pool_probe;

static void pool_body(void *arg, size_t b, size_t e, unsigned worker) {
    pool_probe *pp = arg;
    if (worker >= pp->ways)
        pp->bad_worker = 1;
    for (size_t i = b; i < e; i++) {
        pp->hit[i]++;
        atomic_fetch_add_explicit(&pp->sum, i, memory_order_relaxed);
    }
}

CZK_TEST(pool_covers_every_index_once) {
    size_t sizes[] = {0, 1, 2, 3, 7, 1000, 100003};
    for (unsigned ways = 1; ways <= 4; ways++) {
        czk_pool *pool = NULL;
        CHECK_EQ_INT(czk_pool_create(&pool, ways), CZK_OK);
        CHECK_EQ_INT(czk_pool_ways(pool), ways);
        for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
            size_t n = sizes[s];
            pool_probe pp = {.ways = ways};
            pp.hit = czk_calloc(n + 1, 1);
            CHECK(pp.hit != NULL);
            czk_pool_run(pool, n, 0, pool_body, &pp);
            for (size_t i = 0; i < n; i++)
                CHECKF(pp.hit[i] == 1, "ways %u n %zu index %zu hit %d times", ways, n, i,
                       pp.hit[i]);
            CHECK(pp.sum == (n == 0 ? 0 : n * (n - 1) / 2));
            CHECK(!pp.bad_worker);
            czk_free(pp.hit);
        }
        czk_pool_destroy(pool);
    }
    /* NULL runs inline. */
    pool_probe pp = {.ways = 1};
    pp.hit = czk_calloc(10, 1);
    CHECK(pp.hit != NULL);
    czk_pool_run(NULL, 10, 0, pool_body, &pp);
    CHECK(pp.sum == 45);
    czk_free(pp.hit);
    CHECK_EQ_INT(czk_pool_ways(NULL), 1);
    czk_pool_destroy(NULL);
}
