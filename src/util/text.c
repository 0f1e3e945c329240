#include "util/text.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/alloc.h"

void czk_text_put(czk_text *t, const char *fmt, ...) {
    if (t->failed)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = t->cap - t->len;
        int n = vsnprintf(t->p != NULL ? t->p + t->len : NULL, room, fmt, ap);
        va_end(ap);
        if (n < 0) {
            t->failed = 1;
            return;
        }
        if ((size_t)n < room) {
            t->len += (size_t)n;
            return;
        }
        /* Doubling keeps a long run of small appends linear; the slack spares a few small
         * buffers at the start. */
        size_t cap = t->cap * 2 + (size_t)n + 256;
        char *p = czk_malloc(cap);
        if (p == NULL) {
            t->failed = 1;
            return;
        }
        if (t->p != NULL)
            memcpy(p, t->p, t->len + 1);
        czk_free(t->p);
        t->p = p;
        t->cap = cap;
    }
}

void czk_text_clear(czk_text *t) {
    czk_free(t->p);
    memset(t, 0, sizeof *t);
}
