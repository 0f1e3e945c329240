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

/*
 * 1 when s[0..n) is well-formed UTF-8 (no overlong form, no surrogate, nothing past U+10FFFF)
 * without a control character (U+0000-001F, U+007F, U+0080-009F) or line separator (U+2028,
 * U+2029), else 0. Text a client
 * names things with: it can go into a log line, JSON or a terminal without breaking them.
 */
int czk_utf8_printable(const char *s, size_t n);

/* The size czk_quote_value needs for a value of at most n bytes: every byte escaped, two
 * quotes and the NUL. */
#define CZK_QUOTED_MAX(n) (2 * (n) + 3)

/*
 * A value as a log line's key=value field shows it (logfmt's convention): `s` itself when it
 * is not empty and has no space, '"', '=' or '\\'; else `s` in double quotes, with '"' and '\\'
 * escaped by a backslash. So "porep-1000-7" stays as it is and Curio's WindowPoSt id
 * "wdpost-1000-0-[12 200 3]" becomes "\"wdpost-1000-0-[12 200 3]\"". Writes at most n bytes,
 * NUL included (truncating: size dst with CZK_QUOTED_MAX); returns dst.
 */
char *czk_quote_value(char *dst, size_t n, const char *s);

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_PARSE_H */
