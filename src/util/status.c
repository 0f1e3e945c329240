#include "util/status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *czk_strerror(int code) {
    switch (code) {
#define CZK__STATUS_MSG(name, value, msg)                                                          \
    case value:                                                                                    \
        return msg;
        CZK_STATUS_MAP(CZK__STATUS_MSG)
#undef CZK__STATUS_MSG
    default:
        return "unknown status";
    }
}

const char *czk_status_name(int code) {
    switch (code) {
#define CZK__STATUS_NAME(name, value, msg)                                                         \
    case value:                                                                                    \
        return "CZK_" #name;
        CZK_STATUS_MAP(CZK__STATUS_NAME)
#undef CZK__STATUS_NAME
    default:
        return "CZK_UNKNOWN";
    }
}

int czk__err_set(czk_err *err, int code, const char *file, int line, const char *fmt, ...) {
    if (err == NULL)
        return code;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    err->code = code;
    int n = snprintf(err->msg, sizeof(err->msg), "%s:%d: ", base, line);
    if (n < 0 || (size_t)n >= sizeof(err->msg))
        return code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg + n, sizeof(err->msg) - (size_t)n, fmt, ap);
    va_end(ap);
    return code;
}
