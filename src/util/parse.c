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
