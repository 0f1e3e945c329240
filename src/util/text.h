/*
 * A growing text buffer for output built piece by piece (the engine's status JSON, its metrics,
 * the timeline's SVG): printf-style appends, and one failure flag that sticks after the first
 * allocation failure, so that a long run of appends is checked once at the end.
 */
#ifndef CZK_UTIL_TEXT_H
#define CZK_UTIL_TEXT_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Zero-initialise ({0}) before use; p is NUL-terminated once anything was appended. */
typedef struct czk_text {
    char *p; /* czk_malloc'ed; NULL until the first append */
    size_t len, cap;
    int failed; /* sticks after the first allocation failure: the text is then incomplete */
} czk_text;

/* Appends fmt (printf) to t; after a failure, nothing. */
void czk_text_put(czk_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Frees t's buffer and zeroes t. */
void czk_text_clear(czk_text *t);

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_TEXT_H */
