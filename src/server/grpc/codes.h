/*
 * The one table between czk status codes (util/status.h) and gRPC status codes (doc/API.md §6:
 * exactly one table in server/ maps them). Both directions read the same table.
 */
#ifndef CZK_SERVER_GRPC_CODES_H
#define CZK_SERVER_GRPC_CODES_H

#ifdef __cplusplus
extern "C" {
#endif

/* The gRPC status code (grpc::StatusCode's value) for czk status `status`; 13 (INTERNAL) for
 * a status not in the table, 0 (OK) for CZK_OK. */
int czk_grpc_code_from_status(int status);

/* The czk status for gRPC code `code`: the first table row with that code; CZK_EIO for a code
 * the table does not hold (UNAVAILABLE, DEADLINE_EXCEEDED: the transport failed). */
int czk_grpc_status_from_code(int code);

/* gRPC's name of code `code` ("NOT_FOUND"), for metrics labels and messages; "UNKNOWN" for a
 * value outside 0..16. A static string. */
const char *czk_grpc_code_name(int code);

#ifdef __cplusplus
}
#endif

#endif /* CZK_SERVER_GRPC_CODES_H */
