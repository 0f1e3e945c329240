// czk status codes <-> gRPC codes: the one table (codes.h).
#include "server/grpc/codes.h"

#include <grpcpp/support/status_code_enum.h>

#include "util/status.h"

namespace {

struct Row {
    int status;
    grpc::StatusCode code;
};

// Malformed input of any kind is the client's fault (INVALID_ARGUMENT); a full queue or budget
// is RESOURCE_EXHAUSTED so that clients back off; the rest is ours (INTERNAL). The first row
// of a gRPC code is the one the client side maps it back to.
constexpr Row kTable[] = {
    {CZK_OK, grpc::StatusCode::OK},
    {CZK_EINVAL, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_EBADENC, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_EFLAGS, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_ERANGE, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_ENOTONCURVE, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_ENOTINGROUP, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_ENOSQRT, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_ELENGTH, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_EFORMAT, grpc::StatusCode::INVALID_ARGUMENT},
    {CZK_ENOMEM, grpc::StatusCode::RESOURCE_EXHAUSTED},
    {CZK_EUNSUPPORTED, grpc::StatusCode::UNIMPLEMENTED},
    {CZK_ECANCELED, grpc::StatusCode::CANCELLED},
    {CZK_EIO, grpc::StatusCode::UNAVAILABLE},
    {CZK_EINTERNAL, grpc::StatusCode::INTERNAL},
    {CZK_ECUDA, grpc::StatusCode::INTERNAL},
    {CZK_EVERIFY, grpc::StatusCode::INTERNAL},
    {CZK_EEXIST, grpc::StatusCode::ALREADY_EXISTS},
    {CZK_ENOTFOUND, grpc::StatusCode::NOT_FOUND},
};

// grpc::StatusCode's names, by value (grpc/status.h: 0..16).
constexpr const char *kNames[] = {
    "OK",        "CANCELLED",      "UNKNOWN",           "INVALID_ARGUMENT",   "DEADLINE_EXCEEDED",
    "NOT_FOUND", "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED",   "OUT_OF_RANGE",   "UNIMPLEMENTED",     "INTERNAL",           "UNAVAILABLE",
    "DATA_LOSS", "UNAUTHENTICATED"};
static_assert(sizeof kNames / sizeof kNames[0] == grpc::StatusCode::UNAUTHENTICATED + 1,
              "one name per gRPC code");

} // namespace

extern "C" int czk_grpc_code_from_status(int status) {
    for (const Row &r : kTable)
        if (r.status == status)
            return static_cast<int>(r.code);
    return static_cast<int>(grpc::StatusCode::INTERNAL);
}

extern "C" const char *czk_grpc_code_name(int code) {
    return code >= 0 && code <= grpc::StatusCode::UNAUTHENTICATED ? kNames[code] : "UNKNOWN";
}

extern "C" int czk_grpc_status_from_code(int code) {
    for (const Row &r : kTable)
        if (static_cast<int>(r.code) == code)
            return r.status;
    return CZK_EIO;
}
