/*
 * The gRPC service cuzk.v1.ProvingEngine (proto/cuzk/v1/proving.proto) over the engine's C
 * API. The adapter is C++ (grpc++: gRPC's C core is not a stable application API); this
 * header is all the C side sees.
 *
 * Every RPC runs on one of gRPC's server threads and only calls the engine's thread-safe API:
 * SubmitProof and Prove copy the request into the engine, AwaitProof and Prove block in
 * czk_engine_await in slices (so that a client that goes away frees its thread), and nothing
 * computes on a server thread.
 */
#ifndef CZK_SERVER_GRPC_SERVER_H
#define CZK_SERVER_GRPC_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "czk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default listen address (cuzk's) and message size limit (a PoRep C1 output is ~50 MB). */
#define CZK_GRPC_DEFAULT_LISTEN "0.0.0.0:9820"
#define CZK_GRPC_DEFAULT_MAX_MSG ((size_t)128 << 20)

typedef struct czk_grpc_server czk_grpc_server;

/*
 * Starts serving `engine` on each of the `n_listen` addresses: "host:port" (TCP; port 0 picks
 * a free one, reported through *bound_port when not NULL: the first TCP address's port) or
 * "unix:///path" (a unix socket; an old socket file at path is replaced). Requests and
 * responses may be up to max_msg_bytes (0: CZK_GRPC_DEFAULT_MAX_MSG). The engine is borrowed:
 * it must outlive the server. Returns CZK_OK, CZK_EINVAL (no address, a bad one, or one that
 * cannot be bound) or CZK_ENOMEM; *out is NULL on failure.
 */
int czk_grpc_server_start(czk_grpc_server **out, int *bound_port, czk_engine *engine,
                          const char *const *listen, size_t n_listen, size_t max_msg_bytes,
                          czk_err *err);

/*
 * Stops intake: SubmitProof and Prove fail with UNAVAILABLE from now on; AwaitProof,
 * CancelProof, status and metrics keep working, so that waiters are answered while the engine
 * drains. Thread-safe; idempotent.
 */
void czk_grpc_server_stop_intake(czk_grpc_server *srv);

/*
 * Stops the server: waits up to deadline_ms for running calls to return (the engine must
 * already be shut down, so that no call waits on a job), cancels the rest, and frees the
 * server. NULL is a no-op.
 */
void czk_grpc_server_shutdown(czk_grpc_server *srv, uint64_t deadline_ms);

/*
 * Prometheus text of the server's own counters (requests by method and gRPC code) in *text,
 * malloc'ed (free it with free). Returns CZK_OK or CZK_ENOMEM.
 */
int czk_grpc_server_metrics(czk_grpc_server *srv, char **text);

#ifdef __cplusplus
}
#endif

#endif /* CZK_SERVER_GRPC_SERVER_H */
