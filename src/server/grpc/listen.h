// Where and how the gRPC server listens (listen.cpp): the listen addresses' shape, the
// security mode of each (TLS, loopback, unix socket, explicit --insecure), the checks that no
// other daemon holds an address, the lock beside a unix socket, and the socket file's mode.
// server.cpp builds the service; czk_grpc_server_start hands the listening to these two
// calls. The C side sees czk_grpc_listen_security, czk_grpc_listen_check and
// czk_grpc_security_name (server.h), which listen.cpp defines.
#ifndef CZK_SERVER_GRPC_LISTEN_H
#define CZK_SERVER_GRPC_LISTEN_H

#include "server/grpc/server.h"

// C++ only (grpc::ServerBuilder); a C file that includes it sees server.h alone, so that the
// header still compiles on its own (tools/check_headers.sh compiles every header as C).
#ifdef __cplusplus

#include <grpcpp/grpcpp.h>

#include <memory>
#include <vector>

// The addresses of one server between czk_grpc_listen_prepare and the server's start: their
// credentials, and the lock descriptors of its unix sockets (closed unless handed over, so that
// an early return of the start releases them).
struct czk_grpc_listeners {
    const char *const *addrs = nullptr; // borrowed from the caller of czk_grpc_server_start
    size_t n = 0;
    std::vector<std::shared_ptr<grpc::ServerCredentials>> creds; // one per address
    std::vector<int> lock_fds;
    czk_grpc_listeners() = default;
    czk_grpc_listeners(const czk_grpc_listeners &) = delete;
    czk_grpc_listeners &operator=(const czk_grpc_listeners &) = delete;
    ~czk_grpc_listeners();
};

// Before anything binds: decides each address's security (czk_grpc_listen_security), reads the
// TLS files once, and checks each address free as czk_grpc_listen_check does, locking a unix
// socket's PATH.lock first (a stale socket file is then removed). Returns CZK_OK, CZK_EINVAL
// (a bad address, a refused security mode, unreadable TLS files) or CZK_EIO (address in use).
int czk_grpc_listen_prepare(czk_grpc_listeners *ls, const char *const *listen, size_t n_listen,
                            const czk_grpc_server_opts *opts, czk_err *err);

// Adds the prepared addresses to `b` (without SO_REUSEPORT), builds and starts the server into
// *server, gives unix sockets their mode and reports the first TCP address's port through
// *bound_port (when not NULL). On failure the server is shut down and *server reset. Returns
// CZK_OK or CZK_EIO (a bind that failed, naming the address; "address in use" when another
// process took it since the check).
int czk_grpc_listen_start(std::unique_ptr<grpc::Server> *server, int *bound_port,
                          grpc::ServerBuilder *b, const czk_grpc_listeners *ls, czk_err *err);

#endif // __cplusplus

#endif // CZK_SERVER_GRPC_LISTEN_H
