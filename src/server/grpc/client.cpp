// The czk command's client of cuzk.v1.ProvingEngine (client.h): generated stubs behind C.
//
// Upstream code cited here was read at curio@e0294b0f (2026-08-20).
#include "server/grpc/client.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>

#include "cuzk/v1/proving.grpc.pb.h"
#include "server/grpc/codes.h"
#include "server/grpc/server.h"

namespace pb = cuzk::v1;

struct czk_grpc_client {
    std::string addr; // for messages
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<pb::ProvingEngine::Stub> stub;
};

namespace {

// A failed call as a sentence for the person at the terminal: what failed and, where there is
// one, what to do. The gRPC code is named only for codes without a sentence of their own, and
// never as a number (czk_err keeps the source location for debug output).
int fail(czk_err *err, const grpc::Status &s, const char *method, const czk_grpc_client *c) {
    int code = static_cast<int>(s.error_code());
    int rc = czk_grpc_status_from_code(code);
    const char *a = c->addr.c_str();
    // The daemon's message ends in its status name, as "(CZK_EINVAL)"; the czk command adds
    // the same name after this message, so drop the daemon's copy.
    std::string m = s.error_message();
    size_t tail = m.rfind(" (CZK_");
    if (tail != std::string::npos && m.back() == ')')
        m.erase(tail);
    switch (s.error_code()) {
    case grpc::StatusCode::UNAVAILABLE:
        if (m.find("shutting down") != std::string::npos)
            return czk_err_set(err, rc, "the daemon at %s is shutting down; try again later", a);
        if (m.find("DNS resolution failed") != std::string::npos)
            return czk_err_set(err, rc, "cannot find the host of %s: check --addr", a);
        return czk_err_set(err, rc,
                           "cannot reach the daemon at %s: is `czk daemon` running there? "
                           "(--addr names another)",
                           a);
    case grpc::StatusCode::DEADLINE_EXCEEDED:
        return czk_err_set(err, rc, "the daemon at %s did not answer %s in time", a, method);
    case grpc::StatusCode::UNIMPLEMENTED:
        return czk_err_set(err, rc, "the daemon at %s cannot do this: %s", a,
                           m.empty() ? method : m.c_str());
    case grpc::StatusCode::RESOURCE_EXHAUSTED:
        if (m.find("message larger than max") != std::string::npos ||
            m.find("Sent message larger") != std::string::npos)
            return czk_err_set(err, rc,
                               "the request or its answer is larger than the gRPC message limit "
                               "(the daemon's daemon.max_message_size)");
        return czk_err_set(err, rc, "the daemon at %s is full: %s; try again later", a, m.c_str());
    case grpc::StatusCode::INVALID_ARGUMENT:
    case grpc::StatusCode::NOT_FOUND:
    case grpc::StatusCode::FAILED_PRECONDITION:
    case grpc::StatusCode::OUT_OF_RANGE:
    case grpc::StatusCode::ALREADY_EXISTS:
        return czk_err_set(err, rc, "the daemon refused the request: %s", m.c_str());
    case grpc::StatusCode::UNAUTHENTICATED:
    case grpc::StatusCode::PERMISSION_DENIED:
        return czk_err_set(err, rc, "the daemon at %s refused this client: %s", a, m.c_str());
    case grpc::StatusCode::CANCELLED:
        return czk_err_set(err, rc, "%s was cancelled: %s", method, m.c_str());
    default:
        return czk_err_set(err, rc, "%s failed at the daemon %s: %s", method, a,
                           m.empty() ? "no reason given" : m.c_str());
    }
}

void fill_request(const czk_rpc_request *r, pb::SubmitProofRequest *q) {
    if (r->request_id != nullptr)
        q->set_request_id(r->request_id);
    if (r->circuit_id != nullptr)
        q->set_circuit_id(r->circuit_id);
    q->set_proof_kind(static_cast<pb::ProofKind>(r->proof_kind));
    q->set_priority(static_cast<pb::Priority>(r->priority));
    q->set_num_partitions(r->n_partitions);
    for (size_t i = 0; i < r->n_wtns; i++)
        q->add_witness(r->wtns[i], r->wtns_len[i]);
    q->set_synth_seed(r->synth_seed);
    if (r->client_id != nullptr)
        q->set_client_id(r->client_id);
    q->set_registered_proof(r->registered_proof);
    q->set_sector_size(r->sector_size);
    if (r->vanilla_proof != nullptr)
        q->set_vanilla_proof(r->vanilla_proof, r->vanilla_proof_len);
    for (size_t i = 0; i < r->n_vanilla_proofs; i++)
        q->add_vanilla_proofs(r->vanilla_proofs[i], r->vanilla_proofs_len[i]);
    q->set_sector_number(r->sector_number);
    q->set_miner_id(r->miner_id);
    if (r->randomness != nullptr)
        q->set_randomness(r->randomness, 32);
    q->set_partition_index(r->partition_index);
    if (r->comm_r_old != nullptr)
        q->set_comm_r_old(r->comm_r_old, 32);
    if (r->comm_r_new != nullptr)
        q->set_comm_r_new(r->comm_r_new, 32);
    if (r->comm_d_new != nullptr)
        q->set_comm_d_new(r->comm_d_new, 32);
}

bool given(const char *s) {
    return s != nullptr && s[0] != '\0';
}

// A PEM file's text; "" for no file.
int read_pem(const char *path, const char *what, std::string *out, czk_err *err) {
    out->clear();
    if (!given(path))
        return CZK_OK;
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    if (f)
        ss << f.rdbuf();
    if (!f || f.bad())
        return czk_err_set(err, CZK_EINVAL, "%s: cannot read '%s': %s", what, path,
                           std::strerror(errno));
    *out = ss.str();
    return CZK_OK;
}

char *dup_string(const std::string &s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p != nullptr)
        std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

int copy_result(const pb::AwaitProofResponse &a, czk_rpc_result *res, czk_err *err) {
    std::memset(res, 0, sizeof *res);
    std::snprintf(res->job_id, sizeof res->job_id, "%s", a.job_id().c_str());
    res->status = static_cast<int>(a.status());
    std::snprintf(res->error, sizeof res->error, "%s", a.error_message().c_str());
    res->queue_wait_ms = a.queue_wait_ms();
    res->srs_load_ms = a.srs_load_ms();
    res->synthesis_ms = a.synthesis_ms();
    res->gpu_compute_ms = a.gpu_compute_ms();
    res->total_ms = a.total_ms();
    size_t n = static_cast<size_t>(a.proof_json_size());
    if (n > 0 && a.public_json_size() == a.proof_json_size()) {
        res->proof_json = static_cast<char **>(std::calloc(n, sizeof(char *)));
        res->public_json = static_cast<char **>(std::calloc(n, sizeof(char *)));
        res->n_json = n;
        for (size_t i = 0; i < n && res->proof_json != nullptr && res->public_json != nullptr;
             i++) {
            res->proof_json[i] = dup_string(a.proof_json(static_cast<int>(i)));
            res->public_json[i] = dup_string(a.public_json(static_cast<int>(i)));
            if (res->proof_json[i] == nullptr || res->public_json[i] == nullptr)
                break;
        }
        if (res->proof_json == nullptr || res->public_json == nullptr ||
            res->proof_json[n - 1] == nullptr || res->public_json[n - 1] == nullptr)
            return czk_err_set(err, CZK_ENOMEM, "no memory for the proof's JSON");
    }
    if (!a.proof().empty()) {
        res->proof = static_cast<uint8_t *>(std::malloc(a.proof().size()));
        if (res->proof == nullptr)
            return czk_err_set(err, CZK_ENOMEM, "no memory for a %zu-byte proof", a.proof().size());
        std::memcpy(res->proof, a.proof().data(), a.proof().size());
        res->proof_len = a.proof().size();
    }
    return CZK_OK;
}

} // namespace

extern "C" int czk_grpc_client_create(czk_grpc_client **out, const char *addr, czk_err *err) {
    return czk_grpc_client_create_tls(out, addr, nullptr, err);
}

extern "C" int czk_grpc_client_create_tls(czk_grpc_client **out, const char *addr,
                                          const czk_grpc_client_tls *tls, czk_err *err) {
    *out = nullptr;
    if (addr == nullptr || addr[0] == '\0')
        return czk_err_set(err, CZK_EINVAL, "no daemon address");
    std::shared_ptr<grpc::ChannelCredentials> creds = grpc::InsecureChannelCredentials();
    if (tls != nullptr && (given(tls->ca) || given(tls->cert) || given(tls->key))) {
        if (given(tls->cert) != given(tls->key))
            return czk_err_set(err, CZK_EINVAL,
                               "a client certificate needs its key (--tls-cert and --tls-key "
                               "together)");
        grpc::SslCredentialsOptions ssl;
        int rc = read_pem(tls->ca, "--tls-ca", &ssl.pem_root_certs, err);
        if (rc == CZK_OK)
            rc = read_pem(tls->cert, "--tls-cert", &ssl.pem_cert_chain, err);
        if (rc == CZK_OK)
            rc = read_pem(tls->key, "--tls-key", &ssl.pem_private_key, err);
        if (rc != CZK_OK)
            return rc;
        creds = grpc::SslCredentials(ssl);
    }
    auto *c = new (std::nothrow) czk_grpc_client;
    if (c == nullptr)
        return czk_err_set(err, CZK_ENOMEM, "no memory for a gRPC client");
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(static_cast<int>(CZK_GRPC_DEFAULT_MAX_MSG));
    args.SetMaxSendMessageSize(static_cast<int>(CZK_GRPC_DEFAULT_MAX_MSG));
    c->addr = addr;
    c->channel = grpc::CreateCustomChannel(addr, creds, args);
    if (c->channel == nullptr) {
        delete c;
        return czk_err_set(err, CZK_EINVAL, "bad daemon address '%s'", addr);
    }
    c->stub = pb::ProvingEngine::NewStub(c->channel);
    *out = c;
    return CZK_OK;
}

extern "C" void czk_grpc_client_destroy(czk_grpc_client *c) {
    delete c;
}

extern "C" int czk_grpc_client_submit(czk_grpc_client *c, const czk_rpc_request *req,
                                      char job_id[CZK_REQUEST_ID_MAX + 1],
                                      uint32_t *queue_position, int *attached, czk_err *err) {
    pb::SubmitProofRequest q;
    fill_request(req, &q);
    pb::SubmitProofResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->SubmitProof(&ctx, q, &r);
    if (!s.ok())
        return fail(err, s, "SubmitProof", c);
    std::snprintf(job_id, CZK_REQUEST_ID_MAX + 1, "%s", r.job_id().c_str());
    if (queue_position != nullptr)
        *queue_position = r.queue_position();
    if (attached != nullptr)
        *attached = r.attached() ? 1 : 0;
    return CZK_OK;
}

extern "C" int czk_grpc_client_await(czk_grpc_client *c, const char *job_id, uint64_t timeout_ms,
                                     czk_rpc_result *res, czk_err *err) {
    std::memset(res, 0, sizeof *res);
    pb::AwaitProofRequest q;
    q.set_job_id(job_id);
    q.set_timeout_ms(timeout_ms);
    pb::AwaitProofResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->AwaitProof(&ctx, q, &r);
    if (!s.ok())
        return fail(err, s, "AwaitProof", c);
    return copy_result(r, res, err);
}

extern "C" int czk_grpc_client_prove(czk_grpc_client *c, const czk_rpc_request *req,
                                     czk_rpc_result *res, czk_err *err) {
    std::memset(res, 0, sizeof *res);
    pb::ProveRequest q;
    fill_request(req, q.mutable_submit());
    pb::ProveResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->Prove(&ctx, q, &r);
    if (!s.ok())
        return fail(err, s, "Prove", c);
    return copy_result(r.result(), res, err);
}

extern "C" int czk_grpc_client_cancel(czk_grpc_client *c, const char *job_id, int *was_running,
                                      int *finished_status, czk_err *err) {
    pb::CancelProofRequest q;
    q.set_job_id(job_id);
    pb::CancelProofResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->CancelProof(&ctx, q, &r);
    if (!s.ok())
        return fail(err, s, "CancelProof", c);
    if (was_running != nullptr)
        *was_running = r.was_running() ? 1 : 0;
    if (finished_status != nullptr)
        *finished_status = r.already_finished() ? static_cast<int>(r.status()) : 0;
    return CZK_OK;
}

extern "C" int czk_grpc_client_status_json(czk_grpc_client *c, char **json, czk_err *err) {
    *json = nullptr;
    pb::GetStatusResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->GetStatus(&ctx, pb::GetStatusRequest(), &r);
    if (!s.ok())
        return fail(err, s, "GetStatus", c);
    // czk's daemon sends GET /status's JSON; a cuzk daemon does not, and gets the proto's.
    if (!r.status_json().empty()) {
        *json = dup_string(r.status_json());
        return *json != nullptr ? CZK_OK : czk_err_set(err, CZK_ENOMEM, "no memory");
    }
    std::string out;
    google::protobuf::util::JsonPrintOptions opt;
    opt.add_whitespace = true;
    opt.always_print_primitive_fields = true;
    opt.preserve_proto_field_names = true;
    if (!google::protobuf::util::MessageToJsonString(r, &out, opt).ok())
        return czk_err_set(err, CZK_EINTERNAL, "cannot render the status as JSON");
    *json = dup_string(out);
    return *json != nullptr ? CZK_OK : czk_err_set(err, CZK_ENOMEM, "no memory");
}

extern "C" int czk_grpc_client_metrics(czk_grpc_client *c, char **text, czk_err *err) {
    *text = nullptr;
    pb::GetMetricsResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->GetMetrics(&ctx, pb::GetMetricsRequest(), &r);
    if (!s.ok())
        return fail(err, s, "GetMetrics", c);
    *text = dup_string(r.prometheus_text());
    return *text != nullptr ? CZK_OK : czk_err_set(err, CZK_ENOMEM, "no memory");
}

extern "C" void czk_rpc_result_clear(czk_rpc_result *res) {
    if (res == nullptr)
        return;
    std::free(res->proof);
    for (size_t i = 0; i < res->n_json; i++) {
        if (res->proof_json != nullptr)
            std::free(res->proof_json[i]);
        if (res->public_json != nullptr)
            std::free(res->public_json[i]);
    }
    std::free(res->proof_json);
    std::free(res->public_json);
    std::memset(res, 0, sizeof *res);
}

extern "C" const char *czk_rpc_status_name(int status) {
    if (!pb::AwaitProofResponse::Status_IsValid(status))
        return "UNKNOWN";
    // The generated names are static strings for the enum's lifetime (the program's).
    return pb::AwaitProofResponse::Status_Name(static_cast<pb::AwaitProofResponse::Status>(status))
        .c_str();
}
