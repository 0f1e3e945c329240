/*
 * A client of cuzk.v1.ProvingEngine for the czk command (submit, await, status, cancel,
 * bench). C++ inside (the generated grpc++ stubs); this header is plain C. A client may be
 * used from any number of threads at once.
 *
 * Upstream code cited here was read at curio@e0294b0f (2026-08-20).
 */
#ifndef CZK_SERVER_GRPC_CLIENT_H
#define CZK_SERVER_GRPC_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include "czk.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_grpc_client czk_grpc_client;

/* A proof request: SubmitProofRequest's fields that czk's generic circuits use. */
typedef struct czk_rpc_request {
    const char *request_id; /* "" or NULL: the daemon makes one up */
    const char *circuit_id;
    int proof_kind; /* proto ProofKind; 0 for a generic circuit */
    int priority;   /* proto Priority; 0 = the kind's default */
    uint32_t n_partitions;
    const uint8_t *const *wtns; /* n_wtns .wtns images, or none for a synthetic circuit */
    const size_t *wtns_len;
    size_t n_wtns;
    uint64_t synth_seed;
    const char *client_id; /* may be NULL */
    /* Filecoin requests (proof_kind set), as Curio fills them: the registered proof (its ABI
     * number) and the sector size; PoRep's C1 output in vanilla_proof with sector_number and
     * miner_id; PoSt's one vanilla proof per sector in vanilla_proofs with randomness (32
     * bytes), miner_id and partition_index; SnapDeals' below. Unused fields are 0 / NULL. */
    uint64_t registered_proof, sector_size;
    const uint8_t *vanilla_proof;
    size_t vanilla_proof_len;
    const uint8_t *const *vanilla_proofs;
    const size_t *vanilla_proofs_len;
    size_t n_vanilla_proofs;
    uint64_t sector_number, miner_id;
    const uint8_t *randomness;
    uint32_t partition_index;
    /* SnapDeals: one vanilla proof per partition in vanilla_proofs, and the three raw 32-byte
     * commitments (NULL when unused). */
    const uint8_t *comm_r_old, *comm_r_new, *comm_d_new;
} czk_rpc_request;

/* AwaitProofResponse, in C. */
typedef struct czk_rpc_result {
    char job_id[CZK_REQUEST_ID_MAX + 1];
    int status;     /* proto AwaitProofResponse.Status: 1 COMPLETED, 2 FAILED, 3 CANCELLED... */
    uint8_t *proof; /* malloc'ed; czk_rpc_result_clear frees it */
    size_t proof_len;
    char error[512];
    uint64_t queue_wait_ms, srs_load_ms, synthesis_ms, gpu_compute_ms, total_ms;
    /* COMPLETED: per partition, snarkjs's proof.json and public.json texts (malloc'ed, as
     * the arrays); n_json 0 when the daemon sent none (proving.proto: proof_json). */
    char **proof_json, **public_json;
    size_t n_json;
} czk_rpc_result;

/*
 * Connects to `addr` ("host:port" or "unix:///path"); the connection is made lazily, so an
 * unreachable daemon shows up as CZK_EIO from the first call. Returns CZK_OK, CZK_EINVAL or
 * CZK_ENOMEM.
 */
int czk_grpc_client_create(czk_grpc_client **out, const char *addr, czk_err *err);

/* A client's TLS files (PEM). A client with any of them set speaks TLS. */
typedef struct czk_grpc_client_tls {
    const char *ca;   /* CA that signed the daemon's certificate; NULL or "": the system's CAs */
    const char *cert; /* this client's certificate, for a daemon with mutual TLS; with key */
    const char *key;
} czk_grpc_client_tls;

/*
 * As czk_grpc_client_create, over TLS when `tls` is not NULL and names a file: the daemon's
 * certificate must be signed by tls->ca and name the address's host (an IP address or DNS
 * name in its subjectAltName). Returns CZK_OK, CZK_EINVAL (also: a file that cannot be read,
 * or a certificate without its key) or CZK_ENOMEM.
 */
int czk_grpc_client_create_tls(czk_grpc_client **out, const char *addr,
                               const czk_grpc_client_tls *tls, czk_err *err);

/* Closes the channel; NULL is a no-op. */
void czk_grpc_client_destroy(czk_grpc_client *c);

/*
 * The RPCs. Each returns CZK_OK when the daemon answered, or the czk status that the gRPC
 * code maps to (server/grpc/codes.h), with a sentence for people in err (what failed, the
 * daemon's reason, what to do; an unreachable daemon is named with its address). deadline_ms bounds
 * the call (0: none).
 */
int czk_grpc_client_submit(czk_grpc_client *c, const czk_rpc_request *req,
                           char job_id[CZK_REQUEST_ID_MAX + 1], uint32_t *queue_position,
                           int *attached, czk_err *err);
int czk_grpc_client_await(czk_grpc_client *c, const char *job_id, uint64_t timeout_ms,
                          czk_rpc_result *res, czk_err *err);
int czk_grpc_client_prove(czk_grpc_client *c, const czk_rpc_request *req, czk_rpc_result *res,
                          czk_err *err);
/* CancelProof. Out (may be NULL): *was_running; *finished_status, 0 when the call cancelled the
 * job, else the proto status (COMPLETED 1, FAILED 2, CANCELLED 3) it had already ended with. */
int czk_grpc_client_cancel(czk_grpc_client *c, const char *job_id, int *was_running,
                           int *finished_status, czk_err *err);

/* GetStatus as JSON, malloc'ed in *json (free it with free): the daemon's status_json (the
 * shape of GET /status), or protobuf's JSON mapping of the response when the daemon sends none
 * (cuzk). */
int czk_grpc_client_status_json(czk_grpc_client *c, char **json, czk_err *err);

/* GetMetrics' Prometheus text, malloc'ed in *text (free it with free). */
int czk_grpc_client_metrics(czk_grpc_client *c, char **text, czk_err *err);

/* Frees res->proof and the JSON texts and zeroes *res; NULL is a no-op. */
void czk_rpc_result_clear(czk_rpc_result *res);

/* "COMPLETED" for a proto AwaitProofResponse.Status value; "UNKNOWN" for others. */
const char *czk_rpc_status_name(int status);

#ifdef __cplusplus
}
#endif

#endif /* CZK_SERVER_GRPC_CLIENT_H */
