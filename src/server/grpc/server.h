/*
 * The gRPC service cuzk.v1.ProvingEngine (proto/cuzk/v1/proving.proto) over the engine's C
 * API. The adapter is C++ (grpc++: gRPC's C core is not a stable application API); this
 * header is all the C side sees.
 *
 * Every RPC runs on one of gRPC's server threads and only calls the engine's thread-safe API:
 * SubmitProof and Prove copy the request into the engine, AwaitProof and Prove block in
 * czk_engine_await in slices (so that a client that goes away frees its thread), and nothing
 * computes on a server thread.
 *
 * Upstream code cited here was read at curio@e0294b0f (2026-08-20).
 */
#ifndef CZK_SERVER_GRPC_SERVER_H
#define CZK_SERVER_GRPC_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "czk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Default listen address (cuzk's port, on loopback only: a proof service open to the network
 * is a choice the operator makes, with TLS) and message size limit (a PoRep C1 output is
 * ~50 MB). */
#define CZK_GRPC_DEFAULT_LISTEN "127.0.0.1:9820"
#define CZK_GRPC_DEFAULT_MAX_MSG ((size_t)128 << 20)
/* Unfinished jobs one client (one peer address) may hold; more get RESOURCE_EXHAUSTED. */
#define CZK_GRPC_DEFAULT_MAX_JOBS_PER_CLIENT 64
/* The mode of a unix socket file: owner and group only (the group is who may prove). */
#define CZK_GRPC_UNIX_SOCKET_MODE 0660

/* How one listen address is served, from the address and the TLS options. */
typedef enum czk_grpc_security {
    CZK_GRPC_SEC_REFUSED = 0,     /* plaintext on a non-loopback address, not allowed */
    CZK_GRPC_SEC_UNIX,            /* a unix socket: plaintext, guarded by the file's mode */
    CZK_GRPC_SEC_LOOPBACK,        /* plaintext TCP on a loopback address */
    CZK_GRPC_SEC_INSECURE_PUBLIC, /* plaintext TCP beyond loopback: the operator said insecure */
    CZK_GRPC_SEC_TLS,             /* TLS, any client */
    CZK_GRPC_SEC_MUTUAL_TLS,      /* TLS, clients need a certificate from tls_client_ca */
} czk_grpc_security;

/* The gRPC server's options (czk_grpc_server_start). Strings are borrowed for the call. */
typedef struct czk_grpc_server_opts {
    const char *tls_cert;         /* PEM certificate chain file; NULL or "": no TLS */
    const char *tls_key;          /* PEM private key file of tls_cert */
    const char *tls_client_ca;    /* PEM CA file: require and verify client certificates */
    int insecure;                 /* allow plaintext TCP on addresses beyond loopback */
    size_t max_msg_bytes;         /* largest request or response; 0: CZK_GRPC_DEFAULT_MAX_MSG */
    uint32_t max_jobs_per_client; /* unfinished jobs per peer address; 0: no limit */
} czk_grpc_server_opts;

typedef struct czk_grpc_server czk_grpc_server;

/* The listening rules below (czk_grpc_listen_security, czk_grpc_security_name,
 * czk_grpc_listen_check) are listen.cpp's, apart from the service in server.cpp. */

/*
 * Decides how `addr` ("host:port" or "unix:///path") would be served under `opts` (NULL: no
 * TLS, not insecure): TLS or mutual TLS for TCP when a certificate is given, plaintext on a
 * unix socket or a loopback host, and plaintext beyond loopback only when opts->insecure.
 * A host name counts as loopback when every address it resolves to is. Out: *sec. Returns
 * CZK_OK, or CZK_EINVAL with err saying why (a bad address; CZK_GRPC_SEC_REFUSED: what to
 * configure instead). Thread-safe.
 */
int czk_grpc_listen_security(czk_grpc_security *sec, const char *addr,
                             const czk_grpc_server_opts *opts, czk_err *err);

/* "TLS", "mutual TLS", "insecure (loopback)", ...: a security mode as the log says it. */
const char *czk_grpc_security_name(czk_grpc_security sec);

/*
 * Checks that `addr` is free to listen on before anything binds it: a TCP "host:port" (port 0
 * is always free) that a socket can bind, or a unix socket path with no listener behind it (a
 * socket file that refuses connections, ECONNREFUSED, is a dead daemon's: free, and
 * czk_grpc_server_start replaces it); a path that is not a socket is refused. Changes
 * nothing. Returns CZK_OK, CZK_EIO ("address in use" in err) or CZK_EINVAL (a bad address, or
 * a path that is not a socket).
 */
int czk_grpc_listen_check(const char *addr, czk_err *err);

/*
 * Starts serving `engine` on each of the `n_listen` addresses: "host:port" (TCP; port 0 picks
 * a free one, reported through *bound_port when not NULL: the first TCP address's port) or
 * "unix:///path" (a unix socket, made with mode CZK_GRPC_UNIX_SOCKET_MODE; a stale socket file
 * is replaced, a live one refused; "path.lock" beside it is locked while the server lives, so
 * that two daemons started at once cannot both take it). Each address is checked as
 * czk_grpc_listen_check does and
 * served as czk_grpc_listen_security says; an address another process listens on is refused
 * ("address in use"), never shared (no SO_REUSEPORT). `opts` may be NULL (defaults). The
 * engine is borrowed: it must outlive the server. Returns CZK_OK, CZK_EINVAL (no address, a
 * bad one, a refused security mode, unreadable TLS files), CZK_EIO (address in use, or a bind
 * that failed) or CZK_ENOMEM; *out is NULL on failure.
 */
int czk_grpc_server_start(czk_grpc_server **out, int *bound_port, czk_engine *engine,
                          const char *const *listen, size_t n_listen,
                          const czk_grpc_server_opts *opts, czk_err *err);

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
