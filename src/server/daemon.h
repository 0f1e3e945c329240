/*
 * `czk daemon`: the proving daemon. Reads the config (server/config.h), creates the engine,
 * registers circuits, serves gRPC (server/grpc/server.h) and HTTP (server/http.h), and on
 * SIGTERM or SIGINT stops intake, lets queued and running jobs finish within
 * daemon.shutdown_grace_ms (cancelling the rest), answers every waiter and exits 0. SIGHUP is
 * logged and ignored. A listen address in use is refused before anything starts.
 */
#ifndef CZK_SERVER_DAEMON_H
#define CZK_SERVER_DAEMON_H

#ifdef __cplusplus
extern "C" {
#endif

/* Runs the daemon with the arguments after `daemon`; returns the exit code (0 after a clean
 * shutdown, 2 on a usage or start-up error). */
int czk_server_daemon_main(int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* CZK_SERVER_DAEMON_H */
