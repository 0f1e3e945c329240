#include "util/parse.h"

#include <errno.h>
#include <stdlib.h>

int czk_parse_uint_list(const char *s, unsigned max, unsigned *out, size_t cap, size_t *n) {
    *n = 0;
    for (const char *p = s;;) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = *p >= '0' && *p <= '9' ? strtoull(p, &end, 10) : 0;
        if (end == NULL || errno != 0 || (*end != ',' && *end != '\0') || v > max || *n == cap) {
            *n = 0;
            return -1;
        }
        out[(*n)++] = (unsigned)v;
        if (*end == '\0')
            return 0;
        p = end + 1;
    }
}

int czk_utf8_printable(const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    while (p < end) {
        unsigned c = *p++;
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f)
                return 0;
            continue;
        }
        /* The lead byte gives the length and the smallest code point that length may carry
         * (anything smaller is an overlong form). */
        unsigned len, min;
        if (c >= 0xc2 && c <= 0xdf)
            len = 1, min = 0x80, c &= 0x1f;
        else if (c >= 0xe0 && c <= 0xef)
            len = 2, min = 0x800, c &= 0x0f;
        else if (c >= 0xf0 && c <= 0xf4)
            len = 3, min = 0x10000, c &= 0x07;
        else
            return 0;
        if ((size_t)(end - p) < len)
            return 0;
        for (unsigned i = 0; i < len; i++, p++) {
            if ((*p & 0xc0) != 0x80)
                return 0;
            c = c << 6 | (*p & 0x3fu);
        }
        /* U+2028 and U+2029 are line and paragraph separators: a log reader or JSON
         * viewer may break the line there. */
        if (c < min || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff) || (c >= 0x80 && c <= 0x9f) ||
            c == 0x2028 || c == 0x2029)
            return 0;
    }
    return 1;
}

char *czk_quote_value(char *dst, size_t n, const char *s) {
    if (n == 0)
        return dst;
    int plain = s[0] != '\0';
    for (const char *p = s; *p != '\0' && plain; p++)
        plain = *p != ' ' && *p != '"' && *p != '=' && *p != '\\';
    size_t o = 0;
    if (plain) {
        while (s[o] != '\0' && o + 1 < n) {
            dst[o] = s[o];
            o++;
        }
        dst[o] = '\0';
        return dst;
    }
    /* Room for the closing quote and the NUL is kept back at every step, so that a truncated
     * value is still a quoted string. */
    if (n < 3) {
        dst[0] = '\0';
        return dst;
    }
    dst[o++] = '"';
    for (const char *p = s; *p != '\0'; p++) {
        size_t need = *p == '"' || *p == '\\' ? 2 : 1;
        if (o + need + 2 > n)
            break;
        if (need == 2)
            dst[o++] = '\\';
        dst[o++] = *p;
    }
    dst[o++] = '"';
    dst[o] = '\0';
    return dst;
}
