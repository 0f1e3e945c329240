#include "tests/test.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/parse.h"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"

#include <dirent.h>
#include <locale.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

CZK_TEST(status_names) {
    CHECK(strcmp(czk_status_name(CZK_OK), "CZK_OK") == 0);
    CHECK(strcmp(czk_status_name(CZK_ENOTINGROUP), "CZK_ENOTINGROUP") == 0);
    CHECK(strcmp(czk_status_name(12345), "CZK_UNKNOWN") == 0);
    CHECK(strcmp(czk_strerror(CZK_ENOMEM), "out of memory") == 0);
    czk_err e;
    int rc = czk_err_set(&e, CZK_EBADENC, "byte %d", 7);
    CHECK_EQ_INT(rc, CZK_EBADENC);
    CHECK_EQ_INT(e.code, CZK_EBADENC);
    /* The location is kept beside the message, never in it. */
    CHECK(e.file != NULL && strcmp(e.file, "util_test.c") == 0);
    CHECK(e.line > 0);
    CHECK(strcmp(e.msg, "byte 7") == 0);
    CHECK_EQ_INT(czk_err_set(NULL, CZK_EIO, "ignored"), CZK_EIO);
    /* A long message is cut to the buffer, still terminated. */
    char big[sizeof(e.msg) + 144];
    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    czk_err_set(&e, CZK_EIO, "%s", big);
    CHECK_EQ_INT(strlen(e.msg), sizeof(e.msg) - 1);
}

CZK_TEST(status_describe) {
    char line[CZK_ERR_LINE_MAX];
    czk_err e = {0};
    /* No detail: the status's own text. */
    czk_err_describe(NULL, CZK_ENOMEM, line, sizeof(line));
    CHECK(strcmp(line, "out of memory (CZK_ENOMEM)") == 0);
    czk_err_describe(&e, CZK_EIO, line, sizeof(line));
    CHECK(strcmp(line, "input/output error (CZK_EIO)") == 0);
    /* A message for this status: the message alone, then the name. */
    czk_err_set(&e, CZK_EFORMAT, "f.zkey: section %d missing", 5);
    czk_err_describe(&e, CZK_EFORMAT, line, sizeof(line));
    CHECK(strcmp(line, "f.zkey: section 5 missing (CZK_EFORMAT)") == 0);
    /* For people: the message alone; another status's message does not stand in. */
    CHECK(strcmp(czk_err_text(&e, CZK_EFORMAT), "f.zkey: section 5 missing") == 0);
    CHECK(strcmp(czk_err_text(&e, CZK_EIO), "input/output error") == 0);
    CHECK(strcmp(czk_err_text(NULL, CZK_ENOMEM), "out of memory") == 0);
    /* A message left from another status does not explain this one. */
    czk_err_describe(&e, CZK_EIO, line, sizeof(line));
    CHECK(strcmp(line, "input/output error (CZK_EIO)") == 0);
    czk_err_describe(&e, 12345, line, sizeof(line));
    CHECK(strcmp(line, "unknown status (CZK_UNKNOWN)") == 0);
    /* The longest message and status name fit CZK_ERR_LINE_MAX; a short buffer truncates. */
    char big[sizeof(e.msg) + 44];
    memset(big, 'y', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    czk_err_set(&e, CZK_EUNSUPPORTED, "%s", big);
    czk_err_describe(&e, CZK_EUNSUPPORTED, line, sizeof(line));
    CHECK(strlen(line) == sizeof(e.msg) - 1 + strlen(" (CZK_EUNSUPPORTED)"));
    char small[8];
    czk_err_describe(&e, CZK_EUNSUPPORTED, small, sizeof(small));
    CHECK(strcmp(small, "yyyyyyy") == 0);
    czk_err_describe(&e, CZK_EUNSUPPORTED, small, 0); /* nothing written, no fault */
}

CZK_TEST(alloc_strdup) {
    CHECK(czk_strdup(NULL) == NULL);
    size_t before = czk_alloc_in_use();
    char *a = czk_strdup("proving engine");
    CHECK(a != NULL && strcmp(a, "proving engine") == 0);
    CHECK(czk_alloc_in_use() - before >= sizeof("proving engine")); /* counted */
    char *b = czk_strdup("");
    CHECK(b != NULL && b[0] == '\0');
    czk_free(a);
    czk_free(b);
    CHECK_EQ_INT(czk_alloc_in_use(), before);
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

/* ---- file.h ---------------------------------------------------------------------------- */

/* The process's resident pages (/proc/self/statm's second field), -1 when unreadable. */
static long resident_pages(void) {
    long size = 0, res = -1;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL)
        return -1;
    if (fscanf(f, "%ld %ld", &size, &res) != 2)
        res = -1;
    fclose(f);
    return res;
}

static void file_io_body(czk_test_ctx *t, const char *dir) {
    char p[512], q[600];
    czk_err e = {0};
    snprintf(p, sizeof(p), "%s/a.bin", dir);
    CHECK_EQ_INT(czk_file_write_atomic(p, "hello", 5, &e), CZK_OK);
    CHECK_EQ_INT(czk_file_write_atomic(p, "bye", 3, &e), CZK_OK); /* replaces */
    uint8_t *d;
    size_t n;
    CHECK_EQ_INT(czk_file_read_all(&d, &n, p, &e), CZK_OK);
    CHECK(n == 3 && memcmp(d, "bye", 3) == 0 && d[3] == 0);
    czk_free(d);
    czk_file_mapping m;
    CHECK_EQ_INT(czk_file_map(&m, p, &e), CZK_OK);
    CHECK(m.len == 3 && memcmp(m.data, "bye", 3) == 0);
    czk_file_unmap(&m);
    czk_file_unmap(&m); /* a zeroed map is a no-op */
    /* Pages dropped from a mapping leave the resident set (/proc/self/statm) and read back
     * the same: 1,024 pages read, pages 2 to 1,021 dropped (a range from mid-page 1). */
    {
        const size_t pg = (size_t)sysconf(_SC_PAGESIZE), len = 1024 * pg;
        uint8_t *buf = czk_malloc(len);
        CHECK(buf != NULL);
        for (size_t i = 0; buf != NULL && i < len; i++)
            buf[i] = (uint8_t)(i * 7 + i / pg);
        snprintf(q, sizeof(q), "%s/pages", dir);
        CHECK_EQ_INT(buf != NULL ? czk_file_write_atomic(q, buf, len, &e) : CZK_ENOMEM, CZK_OK);
        CHECK_EQ_INT(czk_file_map(&m, q, &e), CZK_OK);
        unsigned long sum = 0;
        for (size_t i = 0; i < len; i += 64)
            sum += m.data[i]; /* every page mapped in */
        const long before = resident_pages();
        czk_file_map_drop(m.data + pg + pg / 2, len - 3 * pg);
        const long after = resident_pages();
        CHECKF(before - after >= 900, "resident pages %ld before the drop, %ld after", before,
               after);
        CHECK(buf != NULL && memcmp(m.data, buf, len) == 0 && sum > 0);
        czk_file_unmap(&m);
        czk_free(buf);
        CHECK_EQ_INT(unlink(q), 0);
    }
    /* Only a.bin is left: no temporary files. */
    DIR *dd = opendir(dir);
    CHECK(dd != NULL);
    int count = 0;
    struct dirent *de;
    while ((de = readdir(dd)) != NULL)
        count += de->d_name[0] != '.';
    closedir(dd);
    CHECK_EQ_INT(count, 1);
    /* Empty files map to nothing. */
    snprintf(q, sizeof(q), "%s/empty", dir);
    CHECK_EQ_INT(czk_file_write_atomic(q, NULL, 0, &e), CZK_OK);
    CHECK_EQ_INT(czk_file_map(&m, q, &e), CZK_OK);
    CHECK(m.len == 0 && m.data == NULL);
    czk_file_unmap(&m);
    /* Errors name the path. */
    snprintf(q, sizeof(q), "%s/no/such/dir/x", dir);
    CHECK_EQ_INT(czk_file_write_atomic(q, "x", 1, &e), CZK_EIO);
    CHECK(strstr(e.msg, q) != NULL);
    CHECK_EQ_INT(czk_file_map(&m, q, &e), CZK_EIO);
    CHECK(strstr(e.msg, q) != NULL);
    CHECK_EQ_INT(czk_file_map(&m, dir, &e), CZK_EIO); /* a directory */
    CHECK(strstr(e.msg, "not a regular file") != NULL);
    CHECK_EQ_INT(czk_file_read_all(&d, &n, dir, &e), CZK_EIO);
    CHECK(d == NULL && n == 0);
    /* An aborted writer leaves the old file alone and no temporary behind. */
    czk_file_writer w;
    CHECK_EQ_INT(czk_file_writer_open(&w, p, &e), CZK_OK);
    CHECK_EQ_INT(czk_file_writer_write(&w, "zzzz", 4, &e), CZK_OK);
    czk_file_writer_abort(&w);
    CHECK_EQ_INT(czk_file_read_all(&d, &n, p, &e), CZK_OK);
    CHECK(n == 3 && memcmp(d, "bye", 3) == 0);
    czk_free(d);
    /* A big write goes through several buffer flushes intact. */
    size_t big = (3u << 20) + 12345;
    uint8_t *src = malloc(big);
    CHECK(src != NULL);
    for (size_t i = 0; i < big; i++)
        src[i] = (uint8_t)(i * 2654435761u >> 13);
    int rc = czk_file_write_atomic(p, src, big, &e);
    uint8_t *back = NULL;
    if (rc == CZK_OK)
        rc = czk_file_read_all(&back, &n, p, &e);
    int same = rc == CZK_OK && n == big && memcmp(src, back, big) == 0;
    free(src);
    czk_free(back);
    CHECK(same);
}

CZK_TEST(file_io) {
    CZK_TEST_WITH_TMPDIR(file_io_body);
}

/* Entries of dir other than . and .. */
static int count_entries(const char *dir) {
    DIR *dd = opendir(dir);
    if (dd == NULL)
        return -1;
    int count = 0;
    struct dirent *de;
    while ((de = readdir(dd)) != NULL)
        count += de->d_name[0] != '.';
    closedir(dd);
    return count;
}

static void file_pwrite_body(czk_test_ctx *t, const char *dir) {
    char p[512];
    czk_err e = {0};
    snprintf(p, sizeof(p), "%s/patched.bin", dir);
    /* A placeholder header, a payload larger than the write buffer (written around it), and
     * the header patched last, as czk_r1cs_save does. */
    size_t big = (2u << 20) + 777;
    uint8_t *payload = malloc(big);
    CHECK(payload != NULL);
    for (size_t i = 0; i < big; i++)
        payload[i] = (uint8_t)(i * 2654435761u >> 11);
    czk_file_writer w;
    CHECK_EQ_INT(czk_file_writer_open(&w, p, &e), CZK_OK);
    uint8_t zeros[16] = {0};
    int ok = czk_file_writer_write(&w, zeros, sizeof(zeros), &e) == CZK_OK &&
             czk_file_writer_write(&w, payload, 5, &e) == CZK_OK &&
             czk_file_writer_write(&w, payload + 5, big - 5, &e) == CZK_OK &&
             czk_file_writer_u32(&w, 0xdeadbeef, &e) == CZK_OK;
    CHECK(ok);
    CHECK(w.size == sizeof(zeros) + big + 4);
    /* Out of range: refused, and the writer stays usable. */
    CHECK_EQ_INT(czk_file_writer_pwrite(&w, w.size - 3, "abcd", 4, &e), CZK_EINVAL);
    CHECK(strstr(e.msg, "patched.bin") != NULL);
    CHECK_EQ_INT(czk_file_writer_pwrite(&w, UINT64_MAX, "a", 1, &e), CZK_EINVAL);
    CHECK_EQ_INT(czk_file_writer_pwrite(&w, 0, "HEADER-PATCHED!!", 16, &e), CZK_OK);
    CHECK_EQ_INT(czk_file_writer_pwrite(&w, w.size - 4, "tail", 4, &e), CZK_OK); /* the end */
    CHECK_EQ_INT(czk_file_writer_pwrite(&w, w.size, "", 0, &e), CZK_OK);         /* empty */
    CHECK_EQ_INT(czk_file_writer_u32(&w, 0x01020304, &e), CZK_OK); /* appending goes on */
    CHECK_EQ_INT(czk_file_writer_commit(&w, &e), CZK_OK);
    uint8_t *d = NULL;
    size_t n = 0;
    CHECK_EQ_INT(czk_file_read_all(&d, &n, p, &e), CZK_OK);
    int same = n == 16 + big + 8 && memcmp(d, "HEADER-PATCHED!!", 16) == 0 &&
               memcmp(d + 16, payload, big) == 0 && memcmp(d + 16 + big, "tail", 4) == 0 &&
               d[16 + big + 4] == 4 && d[16 + big + 7] == 1;
    czk_free(d);
    free(payload);
    CHECK(same);
    CHECK_EQ_INT(count_entries(dir), 1); /* no temporary file left */
    /* A closed writer refuses. */
    CHECK_EQ_INT(czk_file_writer_pwrite(&w, 0, "x", 1, &e), CZK_EIO);
}

CZK_TEST(file_writer_pwrite) {
    CZK_TEST_WITH_TMPDIR(file_pwrite_body);
}

/* The "0,1" lists of --devices and gpus.devices. */
CZK_TEST(parse_uint_list) {
    unsigned v[4];
    size_t n = 9;
    CHECK(czk_parse_uint_list("0,1", 63, v, 4, &n) == 0);
    CHECK(n == 2 && v[0] == 0 && v[1] == 1);
    CHECK(czk_parse_uint_list("7", 63, v, 4, &n) == 0);
    CHECK(n == 1 && v[0] == 7);
    CHECK(czk_parse_uint_list("63,0,5,2", 63, v, 4, &n) == 0);
    CHECK(n == 4 && v[0] == 63 && v[3] == 2);
    static const char *const bad[] = {"",   ",",  "1,", ",1",  "1,,2", "64",        "-1",
                                      " 1", "1 ", "+1", "0x1", "1;2",  "0,1,2,3,4", "a"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        n = 9;
        CHECKF(czk_parse_uint_list(bad[i], 63, v, 4, &n) == -1 && n == 0, "'%s'", bad[i]);
    }
    /* Overflow of the 64-bit conversion is refused too. */
    CHECK(czk_parse_uint_list("99999999999999999999999", 63, v, 4, &n) == -1);
}

/* glibc's decoder in its C.UTF-8 locale, the independent reference for czk_utf8_printable:
 * mbrtowc refuses overlong forms and surrogates, and iswcntrl
 * names the C0 and C1 controls and DEL. The caller has set the locale. */
static int utf8_printable_ref(const char *s, size_t n) {
    mbstate_t st;
    memset(&st, 0, sizeof st);
    int ok = 1;
    for (size_t i = 0; i < n && ok;) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, s + i, n - i, &st);
        /* glibc decodes past U+10FFFF (the old 31-bit UTF-8); RFC 3629 ends there. */
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0 || (uint32_t)wc > 0x10ffff ||
            iswcntrl((wint_t)wc))
            ok = 0;
        else
            i += k;
    }
    return ok;
}

/* Request ids: Curio's, UTF-8, and what breaks a log line or a terminal. */
CZK_TEST(utf8_printable) {
    static const struct {
        const char *s;
        int ok;
    } cases[] = {
        {"wdpost-1000-0-[12 200 3 4 5 6 7 8]", 1},
        {"winpost-1000-0c0d0e0f10111213", 1},
        {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x94\x91", 1}, /* é € and a 4-byte emoji */
        {"a\tb", 0},
        {"a\nb", 0},
        {"\x7f", 0},
        {"\xc2\x85", 0},         /* NEL, a C1 control */
        {"\xe2\x80\xa8", 0},     /* LINE SEPARATOR */
        {"\xc0\xaf", 0},         /* overlong '/' */
        {"\xe0\x80\xaf", 0},     /* overlong, 3 bytes */
        {"\xed\xa0\x80", 0},     /* a surrogate */
        {"\xf4\x90\x80\x80", 0}, /* past U+10FFFF */
        {"\xe2\x82", 0},         /* truncated */
        {"\x80", 0},             /* a lone continuation byte */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        CHECKF(czk_utf8_printable(cases[i].s, strlen(cases[i].s)) == cases[i].ok, "case %zu", i);
    /* Random strings against glibc, weighted to the bytes where UTF-8 has its rules. */
    static const unsigned char pick[] = {0x00, 0x1f, 0x20, 0x41, 0x7e, 0x7f, 0x80, 0x9f, 0xa0,
                                         0xbf, 0xc0, 0xc1, 0xc2, 0xc3, 0xdf, 0xe0, 0xe2, 0xed,
                                         0xef, 0xf0, 0xf4, 0xf5, 0xff, 0x8f, 0x90};
    locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (loc == (locale_t)0) {
        fprintf(stderr, "utf8_printable: no C.UTF-8 locale, the fixed cases stand alone\n");
        return;
    }
    locale_t old = uselocale(loc);
    long iters = czk_test_iters(t, 200000), compared = 0;
    for (long it = 0; it < iters && t->failures == 0; it++) {
        char s[8];
        size_t n = 1 + czk_rng_u64(&t->rng) % sizeof s;
        for (size_t i = 0; i < n; i++) {
            uint64_t r = czk_rng_u64(&t->rng);
            s[i] = (char)(r & 1 ? pick[(r >> 1) % sizeof pick] : (r >> 8) & 0xff);
        }
        int want = utf8_printable_ref(s, n);
        compared++;
        if (czk_utf8_printable(s, n) != want) {
            czk_test_dump("the string", s, n);
            czk_test_fail(t, __FILE__, __LINE__, "iteration %ld, %zu bytes: want %d", it, n, want);
        }
    }
    uselocale(old);
    freelocale(loc);
    fprintf(stderr, "utf8_printable: %ld random strings compared with glibc\n", compared);
}

/* Log fields: plain ids unchanged, others quoted with " and \ escaped, truncation still
 * quoted. */
CZK_TEST(quote_value) {
    char b[CZK_QUOTED_MAX(40)];
    CHECK(strcmp(czk_quote_value(b, sizeof b, "porep-1000-7"), "porep-1000-7") == 0);
    CHECK(strcmp(czk_quote_value(b, sizeof b, "wdpost-1-0-[1 2]"), "\"wdpost-1-0-[1 2]\"") == 0);
    CHECK(strcmp(czk_quote_value(b, sizeof b, "a\"b\\c"), "\"a\\\"b\\\\c\"") == 0);
    CHECK(strcmp(czk_quote_value(b, sizeof b, "k=v"), "\"k=v\"") == 0);
    CHECK(strcmp(czk_quote_value(b, sizeof b, ""), "\"\"") == 0);
    char small[8];
    CHECK(strcmp(czk_quote_value(small, sizeof small, "a b c d e"), "\"a b c\"") == 0);
    CHECK(strcmp(czk_quote_value(small, sizeof small, "abcdefghij"), "abcdefg") == 0);
    /* Every character escaped still fits CZK_QUOTED_MAX. */
    char all[41];
    memset(all, '"', 40);
    all[40] = '\0';
    czk_quote_value(b, sizeof b, all);
    CHECK(strlen(b) == 82 && b[0] == '"' && b[81] == '"');
}

/* czk_shrink keeps the first bytes, uncounts the rest, and the block is freed as before. */
CZK_TEST(alloc_shrink) {
    const size_t big = (size_t)8 << 20, small = ((size_t)1 << 20) + 123;
    size_t before = czk_alloc_in_use();
    unsigned char *p = czk_malloc(big);
    CHECK(p != NULL);
    for (size_t i = 0; i < big; i++)
        p[i] = (unsigned char)(i * 7 + 1);
    CHECK(czk_alloc_in_use() - before == big);
    czk_shrink(p, small);
    CHECK(czk_alloc_in_use() - before == small);
    int same = 1;
    for (size_t i = 0; i < small; i++)
        same &= p[i] == (unsigned char)(i * 7 + 1);
    CHECK(same);
    czk_shrink(p, big); /* growing is not shrinking: ignored */
    CHECK(czk_alloc_in_use() - before == small);
    czk_shrink(NULL, 1);
    czk_free(p);
    CHECK(czk_alloc_in_use() == before);
}
