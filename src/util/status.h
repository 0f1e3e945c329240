/*
 * Status codes and error detail.
 *
 * Every fallible function in czk returns an int status: CZK_OK (0) on success, a negative
 * CZK_E* code on failure. Functions that can say more take an optional `czk_err *` (NULL is
 * allowed) that receives the code and a message naming the fault.
 *
 * The codes are defined once, in CZK_STATUS_MAP, so names, messages and values never drift.
 */
#ifndef CZK_UTIL_STATUS_H
#define CZK_UTIL_STATUS_H

#ifdef __cplusplus
extern "C" {
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
    X(EINTERNAL, -16, "internal error")

enum czk_status {
#define CZK__STATUS_ENUM(name, value, msg) CZK_##name = value,
    CZK_STATUS_MAP(CZK__STATUS_ENUM)
#undef CZK__STATUS_ENUM
};

/* Error detail: the status code and a message with the place that raised it. */
typedef struct czk_err {
    int code;
    char msg[256];
} czk_err;

/* Returns a static description of `code` ("unknown status" for a code not in the map). */
const char *czk_strerror(int code);

/* Returns the symbolic name of `code` ("CZK_EBADENC"), or "CZK_UNKNOWN". */
const char *czk_status_name(int code);

/*
 * Fills `err` (when not NULL) with `code` and a formatted message prefixed by file:line, and
 * returns `code` so that callers can write `return czk_err_set(...)`.
 */
int czk__err_set(czk_err *err, int code, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

#define czk_err_set(err, code, ...) czk__err_set((err), (code), __FILE__, __LINE__, __VA_ARGS__)

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_STATUS_H */
