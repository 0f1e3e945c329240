/*
 * czk status codes and error detail: part of the public API (czk.h includes it), and what
 * every layer of the library returns.
 *
 * Every fallible function in czk returns an int status: CZK_OK (0) on success, a negative
 * CZK_E* code on failure. Functions that can say more take an optional `czk_err *` (NULL is
 * allowed) that receives the code, a message naming the fault, and the source location that
 * raised it, kept apart from the message so that users are shown the fault alone.
 *
 * The codes are defined once, in CZK_STATUS_MAP, so names, messages and values never drift.
 * This header stands alone: it needs only the C library.
 */
#ifndef CZK_STATUS_H
#define CZK_STATUS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifndef CZK_API
#define CZK_API __attribute__((visibility("default")))
#endif

/* X(name, value, message) */
#define CZK_STATUS_MAP(X)                                                                          \
    X(OK, 0, "success")                                                                            \
    X(EINVAL, -1, "invalid argument")                                                              \
    X(ENOMEM, -2, "out of memory")                                                                 \
    X(EIO, -3, "input/output error")                                                               \
    X(EBADENC, -4, "malformed encoding")                                                           \
    X(EFLAGS, -5, "bad flag combination in point encoding")                                        \
    X(ERANGE, -6, "coordinate not below the field modulus")                                        \
    X(ENOTONCURVE, -7, "point not on the curve")                                                   \
    X(ENOTINGROUP, -8, "point not in the prime-order subgroup")                                    \
    X(ENOSQRT, -9, "no square root exists (x is not an x-coordinate)")                             \
    X(ELENGTH, -10, "wrong input length")                                                          \
    X(EFORMAT, -11, "malformed file")                                                              \
    X(EUNSUPPORTED, -12, "unsupported")                                                            \
    X(ECUDA, -13, "CUDA error")                                                                    \
    X(ECANCELED, -14, "canceled")                                                                  \
    X(EVERIFY, -15, "verification failed")                                                         \
    X(EINTERNAL, -16, "internal error")                                                            \
    X(EEXIST, -17, "already exists")                                                               \
    X(ENOTFOUND, -18, "not found")

enum czk_status {
#define CZK__STATUS_ENUM(name, value, msg) CZK_##name = value,
    CZK_STATUS_MAP(CZK__STATUS_ENUM)
#undef CZK__STATUS_ENUM
};

/*
 * Error detail. `msg` is the fault alone ("f.zkey: section 5 missing"), for users; `file`
 * (the source file's base name, static storage) and `line` say where it was raised, for
 * developers. A zeroed czk_err (`czk_err e = {0};`) has no message and no location. 512 bytes:
 * a message may carry a request id, a path and a Filecoin parameter file name (~140 bytes).
 */
typedef struct czk_err {
    int code;
    const char *file;
    int line;
    char msg[512];
} czk_err;

/* Returns a static description of `code` ("unknown status" for a code not in the map). */
CZK_API const char *czk_strerror(int code);

/* Returns the symbolic name of `code` ("CZK_EBADENC"), or "CZK_UNKNOWN". */
CZK_API const char *czk_status_name(int code);

/*
 * What failed, for people: err->msg when err (NULL allowed) holds a message for rc, else
 * czk_strerror(rc). Neither the status name nor the source location is part of it.
 */
CZK_API const char *czk_err_text(const czk_err *err, int rc);

/*
 * Writes the line a log or another program is given for a failure with status `rc` into buf[0..len)
 * (always NUL-terminated when len > 0, truncated to fit): "<czk_err_text> (CZK_EINVAL)". The
 * location is never part of it.
 */
CZK_API void czk_err_describe(const czk_err *err, int rc, char *buf, size_t len);

/* A buffer of this many bytes holds any line czk_err_describe writes, untruncated. */
#define CZK_ERR_LINE_MAX 544

#ifdef __cplusplus
}
#endif

#endif /* CZK_STATUS_H */
