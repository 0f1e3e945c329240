/*
 * The daemon's HTTP endpoint for operators (doc/API.md §3), on daemon.status_listen:
 * GET /status (JSON: the engine's status) and GET /metrics (Prometheus text: the engine's
 * metrics and the gRPC server's request counters). libmicrohttpd serves it from its own
 * thread; a request reads the engine's thread-safe status API and nothing else.
 */
#ifndef CZK_SERVER_HTTP_H
#define CZK_SERVER_HTTP_H

#include "czk.h"
#include "server/grpc/server.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_http czk_http;

/*
 * Serves on `listen` ("host:port"; port 0 picks one, reported in *bound_port when not NULL).
 * engine and grpc (may be NULL) are borrowed and must outlive the endpoint. Returns CZK_OK,
 * CZK_EINVAL (a bad address or one that cannot be bound) or CZK_ENOMEM.
 */
int czk_http_start(czk_http **out, int *bound_port, const char *listen, czk_engine *engine,
                   czk_grpc_server *grpc, czk_err *err);

/* Stops serving and frees the endpoint; NULL is a no-op. */
void czk_http_stop(czk_http *h);

/* The engine's status as JSON (what GET /status returns), malloc'ed. Returns CZK_OK or
 * CZK_ENOMEM. */
int czk_http_status_json(czk_engine *engine, char **json);

#ifdef __cplusplus
}
#endif

#endif /* CZK_SERVER_HTTP_H */
