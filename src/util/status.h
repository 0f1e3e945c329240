/*
 * Status codes and error detail, the library's side.
 *
 * The codes, czk_err, czk_strerror, czk_status_name and czk_err_describe are public and live
 * in include/czk_status.h; this header adds what only the library uses: czk_err_set, which
 * fills a czk_err with its message and the place that raised it.
 */
#ifndef CZK_UTIL_STATUS_H
#define CZK_UTIL_STATUS_H

#include "czk_status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Fills `err` (when not NULL) with `code`, the formatted message and the location (`file`'s
 * base name and `line`, kept out of the message), and returns `code` so that callers can
 * write `return czk_err_set(...)`.
 */
int czk__err_set(czk_err *err, int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define czk_err_set(err, code, ...) czk__err_set((err), (code), __FILE__, __LINE__, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_STATUS_H */
