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
    err->code = code;
    err->file = base != NULL ? base + 1 : file;
    err->line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
    va_end(ap);
    return code;
}

const char *czk_err_text(const czk_err *err, int rc) {
    /* A message recorded for another status (an earlier failure, a reused czk_err) would
     * explain the wrong fault: then the status's own description stands in. */
    return err != NULL && err->code == rc && err->msg[0] != '\0' ? err->msg : czk_strerror(rc);
}

void czk_err_describe(const czk_err *err, int rc, char *buf, size_t len) {
    if (buf == NULL || len == 0)
        return;
    snprintf(buf, len, "%s (%s)", czk_err_text(err, rc), czk_status_name(rc));
}
