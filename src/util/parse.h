/* Parsing of small option values shared by the command line, the daemon's config and benches. */
#ifndef CZK_UTIL_PARSE_H
#define CZK_UTIL_PARSE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A comma-separated list of decimal numbers, as "0,1" (CUDA devices): each starts with a digit
 * (no sign, no space) and is at most max; at most cap of them. Out: out[0..*n). Returns 0, or
 * -1 for anything else (an empty string, an empty item, a number past max, more than cap); *n
 * is then 0.
 */
int czk_parse_uint_list(const char *s, unsigned max, unsigned *out, size_t cap, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_PARSE_H */
