// The czk command's client of cuzk.v1.ProvingEngine (client.h): generated stubs behind C.
#include "server/grpc/client.h"

#include <google/protobuf/util/json_util.h>
#include <grpcpp/grpcpp.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "cuzk/v1/proving.grpc.pb.h"
#include "server/grpc/codes.h"
#include "server/grpc/server.h"

namespace pb = cuzk::v1;

struct czk_grpc_client {
    std::shared_ptr<grpc::Channel> channel;
    std::unique_ptr<pb::ProvingEngine::Stub> stub;
};

namespace {

int fail(czk_err *err, const grpc::Status &s, const char *method) {
    int rc = czk_grpc_status_from_code(static_cast<int>(s.error_code()));
    return czk_err_set(err, rc, "%s: %s (gRPC code %d)", method, s.error_message().c_str(),
                       static_cast<int>(s.error_code()));
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
    if (!a.proof().empty()) {
        res->proof = static_cast<uint8_t *>(std::malloc(a.proof().size()));
        if (res->proof == nullptr)
            return czk_err_set(err, CZK_ENOMEM, "no memory for a %zu-byte proof", a.proof().size());
        std::memcpy(res->proof, a.proof().data(), a.proof().size());
        res->proof_len = a.proof().size();
    }
    return CZK_OK;
}

char *dup_string(const std::string &s) {
    char *p = static_cast<char *>(std::malloc(s.size() + 1));
    if (p != nullptr)
        std::memcpy(p, s.c_str(), s.size() + 1);
    return p;
}

} // namespace

extern "C" int czk_grpc_client_create(czk_grpc_client **out, const char *addr, czk_err *err) {
    *out = nullptr;
    if (addr == nullptr || addr[0] == '\0')
        return czk_err_set(err, CZK_EINVAL, "no daemon address");
    auto *c = new (std::nothrow) czk_grpc_client;
    if (c == nullptr)
        return czk_err_set(err, CZK_ENOMEM, "no memory for a gRPC client");
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(static_cast<int>(CZK_GRPC_DEFAULT_MAX_MSG));
    args.SetMaxSendMessageSize(static_cast<int>(CZK_GRPC_DEFAULT_MAX_MSG));
    c->channel = grpc::CreateCustomChannel(addr, grpc::InsecureChannelCredentials(), args);
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
                                      char job_id[128], uint32_t *queue_position, int *attached,
                                      czk_err *err) {
    pb::SubmitProofRequest q;
    fill_request(req, &q);
    pb::SubmitProofResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->SubmitProof(&ctx, q, &r);
    if (!s.ok())
        return fail(err, s, "SubmitProof");
    std::snprintf(job_id, 128, "%s", r.job_id().c_str());
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
        return fail(err, s, "AwaitProof");
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
        return fail(err, s, "Prove");
    return copy_result(r.result(), res, err);
}

extern "C" int czk_grpc_client_cancel(czk_grpc_client *c, const char *job_id, int *was_running,
                                      czk_err *err) {
    pb::CancelProofRequest q;
    q.set_job_id(job_id);
    pb::CancelProofResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->CancelProof(&ctx, q, &r);
    if (!s.ok())
        return fail(err, s, "CancelProof");
    if (was_running != nullptr)
        *was_running = r.was_running() ? 1 : 0;
    return CZK_OK;
}

extern "C" int czk_grpc_client_status_json(czk_grpc_client *c, char **json, czk_err *err) {
    *json = nullptr;
    pb::GetStatusResponse r;
    grpc::ClientContext ctx;
    grpc::Status s = c->stub->GetStatus(&ctx, pb::GetStatusRequest(), &r);
    if (!s.ok())
        return fail(err, s, "GetStatus");
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
        return fail(err, s, "GetMetrics");
    *text = dup_string(r.prometheus_text());
    return *text != nullptr ? CZK_OK : czk_err_set(err, CZK_ENOMEM, "no memory");
}

extern "C" void czk_rpc_result_clear(czk_rpc_result *res) {
    if (res == nullptr)
        return;
    std::free(res->proof);
    std::memset(res, 0, sizeof *res);
}

extern "C" const char *czk_rpc_status_name(int status) {
    if (!pb::AwaitProofResponse::Status_IsValid(status))
        return "UNKNOWN";
    // The generated names are static strings for the enum's lifetime (the program's).
    return pb::AwaitProofResponse::Status_Name(static_cast<pb::AwaitProofResponse::Status>(status))
        .c_str();
}
