/*
 * Reads a TOML file for the daemon's config (server/config.c) through toml++. C++ inside;
 * this header is plain C. Tables are flattened into dotted keys ("memory.total_budget"); each
 * scalar, and each element of an array of scalars, is passed to a callback as text.
 */
#ifndef CZK_SERVER_GRPC_TOML_H
#define CZK_SERVER_GRPC_TOML_H

#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum czk_toml_type {
    CZK_TOML_STRING = 0,
    CZK_TOML_INTEGER = 1,
    CZK_TOML_FLOAT = 2,
    CZK_TOML_BOOL = 3, /* text "true" or "false" */
    CZK_TOML_OTHER = 4 /* a date or time, as TOML writes it */
} czk_toml_type;

/*
 * One value: `key` is dotted, `text` is the value (strings unquoted, integers in decimal),
 * `in_array` is 1 for an element of an array (one call per element, in order; an empty array
 * gives one call with text NULL). Returns CZK_OK to go on, or a status (with err filled) to
 * stop the read with it.
 */
typedef int (*czk_toml_fn)(void *arg, const char *key, czk_toml_type type, const char *text,
                           int in_array, czk_err *err);

/*
 * Parses the file at `path` and calls fn for every value, in document order. Returns CZK_OK,
 * CZK_EIO (cannot read), CZK_EFORMAT (not TOML: err names the line and column; or an array of
 * tables or a nested array, which czk's config does not use) or what fn returned.
 */
int czk_toml_read(const char *path, czk_toml_fn fn, void *arg, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_SERVER_GRPC_TOML_H */
