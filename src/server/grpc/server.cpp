// DESIGN
//
// cuzk.v1.ProvingEngine over the engine's C API (include/czk.h). The service is gRPC's
// synchronous one: every call runs on a thread of gRPC's pool and does nothing but translate
// the request, call the thread-safe engine API and translate the answer. Proving happens on the
// engine's threads. A waiting call (AwaitProof, Prove) blocks in czk_engine_await in slices of
// kAwaitSliceMs so that it notices a client that went away or a deadline, and lets its thread
// go; the job itself is not affected (Curio re-sends its request id and attaches again).
//
// Requests are checked here before the engine sees them; the engine checks again. Every czk
// status that reaches a client goes through the one table in codes.cpp. Filecoin's own
// circuits (a PoRep, PoSt or SnapDeals request carrying vanilla proofs) are not implemented
// yet: such requests get UNIMPLEMENTED with a message that says so.
#include "server/grpc/server.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <random>
#include <string>
#include <vector>

#include "cuzk/v1/proving.grpc.pb.h"
#include "server/grpc/codes.h"
#include "util/status.h"

namespace {

namespace pb = cuzk::v1;

constexpr uint64_t kAwaitSliceMs = 500;
constexpr uint32_t kMaxPartitions = 1024;

// Methods, for the request counters.
enum Method { kSubmit, kAwait, kProve, kCancel, kStatus, kMetrics, kPreload, kEvict, kMethods };
constexpr const char *kMethodNames[kMethods] = {"SubmitProof", "AwaitProof", "Prove",
                                                "CancelProof", "GetStatus",  "GetMetrics",
                                                "PreloadSRS",  "EvictSRS"};
constexpr int kCodes = 17; // grpc::StatusCode 0..16

// A czk status as a gRPC status: the code from codes.cpp's one table, and czk_err_describe's
// line (the fault and the status name; the source location stays out of it).
grpc::Status from_czk(int status, const czk_err *err) {
    char line[CZK_ERR_LINE_MAX];
    czk_err_describe(err, status, line, sizeof line);
    return grpc::Status(static_cast<grpc::StatusCode>(czk_grpc_code_from_status(status)), line);
}

grpc::Status invalid(const std::string &msg) {
    return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT, msg);
}

// Priority 0 is the kind's default (doc/API.md §2): WinningPoSt CRITICAL, WindowPoSt HIGH, others
// NORMAL.
czk_priority priority_of(const pb::SubmitProofRequest &r) {
    if (r.priority() != pb::PRIORITY_UNSPECIFIED)
        return static_cast<czk_priority>(r.priority());
    switch (r.proof_kind()) {
    case pb::WINNING_POST:
        return CZK_PRIORITY_CRITICAL;
    case pb::WINDOW_POST_PARTITION:
        return CZK_PRIORITY_HIGH;
    default:
        return CZK_PRIORITY_NORMAL;
    }
}

// The queue name a kind is reported under in status (cuzk's names of its circuits' kinds).
const char *kind_name(int kind) {
    switch (kind) {
    case pb::POREP_SEAL_COMMIT:
        return "porep";
    case pb::SNAP_DEALS_UPDATE:
        return "snap";
    case pb::WINDOW_POST_PARTITION:
        return "wpost";
    case pb::WINNING_POST:
        return "winning";
    default:
        return nullptr;
    }
}

// The engine's rule (czk_id_valid); a NUL inside the string would hide the rest from it.
bool valid_id(const std::string &s) {
    return s.find('\0') == std::string::npos && czk_id_valid(s.c_str());
}

// A request id for a client that sent none: unique for the daemon's lifetime.
std::string make_request_id() {
    static std::atomic<uint64_t> counter{0};
    static const uint64_t boot = std::random_device{}();
    char buf[64];
    std::snprintf(buf, sizeof buf, "czk-%016" PRIx64 "-%" PRIu64, boot,
                  counter.fetch_add(1, std::memory_order_relaxed) + 1);
    return buf;
}

// The engine's view of a SubmitProofRequest, pointing into the request (which outlives it).
struct JobRequest {
    czk_job_request req{};
    std::string request_id;
    std::vector<const uint8_t *> wtns;
    std::vector<size_t> wtns_len;
};

grpc::Status check_submit(const pb::SubmitProofRequest &r, JobRequest *out) {
    if (!pb::ProofKind_IsValid(r.proof_kind()))
        return invalid("unknown proof_kind " + std::to_string(r.proof_kind()));
    if (!pb::Priority_IsValid(r.priority()))
        return invalid("unknown priority " + std::to_string(r.priority()));
    bool vanilla = !r.vanilla_proof().empty() || r.vanilla_proofs_size() > 0;
    if (r.proof_kind() != pb::PROOF_KIND_UNSPECIFIED && r.circuit_id().empty()) {
        if (!vanilla)
            return invalid(std::string(pb::ProofKind_Name(r.proof_kind())) +
                           " request without vanilla_proof(s)");
        return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                            "Filecoin circuits (" + pb::ProofKind_Name(r.proof_kind()) +
                                ") are not supported by czk yet; generic circuits are: set "
                                "circuit_id (and witness) instead of vanilla proofs");
    }
    if (r.circuit_id().empty())
        return invalid("circuit_id is required when proof_kind is PROOF_KIND_UNSPECIFIED");
    if (vanilla)
        return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                            "vanilla proofs (Filecoin circuits) are not supported by czk yet");
    if (!valid_id(r.circuit_id()))
        return invalid("circuit_id must be 1.." + std::to_string(CZK_ID_MAX) +
                       " printable ASCII characters");
    if (!r.request_id().empty() && !valid_id(r.request_id()))
        return invalid("request_id must be 1.." + std::to_string(CZK_ID_MAX) +
                       " printable ASCII characters");
    size_t n = r.num_partitions();
    if (n == 0)
        n = r.witness_size() > 0 ? static_cast<size_t>(r.witness_size()) : 1;
    if (n > kMaxPartitions)
        return invalid("num_partitions " + std::to_string(n) + " is above the limit " +
                       std::to_string(kMaxPartitions));
    if (r.witness_size() > 0 && static_cast<size_t>(r.witness_size()) != n)
        return invalid("num_partitions " + std::to_string(n) + " but " +
                       std::to_string(r.witness_size()) + " witness entries");
    out->request_id = r.request_id().empty() ? make_request_id() : r.request_id();
    for (const std::string &w : r.witness()) {
        if (w.empty())
            return invalid("an empty witness entry");
        out->wtns.push_back(reinterpret_cast<const uint8_t *>(w.data()));
        out->wtns_len.push_back(w.size());
    }
    czk_job_request &q = out->req;
    q.request_id = out->request_id.c_str();
    q.circuit_id = r.circuit_id().c_str();
    q.priority = priority_of(r);
    q.client_id = r.client_id().empty() ? nullptr : r.client_id().c_str();
    q.kind = kind_name(r.proof_kind());
    q.n_partitions = n;
    q.wtns = out->wtns.empty() ? nullptr : out->wtns.data();
    q.wtns_len = out->wtns_len.empty() ? nullptr : out->wtns_len.data();
    q.synth_seed = r.synth_seed();
    return grpc::Status::OK;
}

void fill_result(const czk_job_result &res, const std::string &job_id,
                 pb::AwaitProofResponse *out) {
    out->set_job_id(job_id);
    out->set_status(static_cast<pb::AwaitProofResponse::Status>(res.status));
    if (res.status == CZK_JOB_COMPLETED && res.proof != nullptr)
        out->set_proof(res.proof, res.proof_len);
    if (res.status != CZK_JOB_COMPLETED)
        out->set_error_message(res.error);
    out->set_queue_wait_ms(res.queue_wait_ms);
    out->set_srs_load_ms(res.srs_load_ms);
    out->set_synthesis_ms(res.synthesis_ms);
    out->set_gpu_compute_ms(res.gpu_compute_ms);
    out->set_total_ms(res.total_ms);
}

class Service final : public pb::ProvingEngine::Service {
  public:
    explicit Service(czk_engine *engine) : engine_(engine) {
        for (auto &m : counts_)
            for (auto &c : m)
                c.store(0, std::memory_order_relaxed);
    }

    void stop_intake() {
        // Pairs with the acquire loads in accepting(): a call that sees true was admitted
        // before the drain began, and the engine's own shutdown refuses the rest.
        intake_stopped_.store(true, std::memory_order_release);
    }

    std::string metrics() const {
        std::string t = "# HELP czk_grpc_requests_total gRPC calls answered, by method and code.\n"
                        "# TYPE czk_grpc_requests_total counter\n";
        for (int m = 0; m < kMethods; m++)
            for (int c = 0; c < kCodes; c++) {
                uint64_t v = counts_[m][c].load(std::memory_order_relaxed);
                if (v == 0)
                    continue;
                t += "czk_grpc_requests_total{method=\"" + std::string(kMethodNames[m]) +
                     "\",code=\"" + std::to_string(c) + "\"} " + std::to_string(v) + "\n";
            }
        return t;
    }

    grpc::Status SubmitProof(grpc::ServerContext *, const pb::SubmitProofRequest *req,
                             pb::SubmitProofResponse *resp) override {
        return count(kSubmit, submit(*req, resp));
    }

    grpc::Status AwaitProof(grpc::ServerContext *ctx, const pb::AwaitProofRequest *req,
                            pb::AwaitProofResponse *resp) override {
        if (req->job_id().empty())
            return count(kAwait, invalid("job_id is required"));
        return count(kAwait, await(ctx, req->job_id(), req->timeout_ms(), resp));
    }

    grpc::Status Prove(grpc::ServerContext *ctx, const pb::ProveRequest *req,
                       pb::ProveResponse *resp) override {
        pb::SubmitProofResponse sub;
        grpc::Status s = submit(req->submit(), &sub);
        if (s.ok())
            s = await(ctx, sub.job_id(), 0, resp->mutable_result());
        return count(kProve, s);
    }

    grpc::Status CancelProof(grpc::ServerContext *, const pb::CancelProofRequest *req,
                             pb::CancelProofResponse *resp) override {
        if (req->job_id().empty())
            return count(kCancel, invalid("job_id is required"));
        czk_err err{};
        int was_running = 0;
        int rc = czk_engine_cancel(engine_, req->job_id().c_str(), &was_running, &err);
        if (rc != CZK_OK)
            return count(kCancel, from_czk(rc, &err));
        resp->set_was_running(was_running != 0);
        return count(kCancel, grpc::Status::OK);
    }

    grpc::Status GetStatus(grpc::ServerContext *, const pb::GetStatusRequest *,
                           pb::GetStatusResponse *resp) override {
        czk_engine_status st;
        int rc = czk_engine_get_status(engine_, &st);
        if (rc != CZK_OK)
            return count(kStatus, from_czk(rc, nullptr));
        for (size_t i = 0; i < st.n_devices; i++) {
            const czk_device_status &d = st.devices[i];
            pb::GPUStatus *g = resp->add_gpus();
            g->set_ordinal(d.ordinal);
            g->set_name(d.name);
            g->set_vram_total_bytes(d.vram_total_bytes);
            g->set_vram_free_bytes(d.vram_free_bytes);
            g->set_current_job_id(d.current_job_id);
        }
        for (size_t i = 0; i < st.n_circuits; i++) {
            const czk_circuit_status &c = st.circuits[i];
            pb::SRSStatus *s = resp->add_loaded_srs();
            s->set_circuit_id(c.circuit_id);
            s->set_tier(pb::SRSStatus::Tier_IsValid(c.tier)
                            ? static_cast<pb::SRSStatus::Tier>(c.tier)
                            : pb::SRSStatus::COLD);
            s->set_size_bytes(c.size_bytes);
            s->set_ref_count(c.ref_count);
        }
        for (size_t i = 0; i < st.n_queues; i++) {
            pb::QueueStatus *q = resp->add_queues();
            q->set_proof_kind(st.queues[i].kind);
            q->set_pending(st.queues[i].pending);
            q->set_in_progress(st.queues[i].in_progress);
        }
        resp->set_total_proofs_completed(st.jobs_completed);
        resp->set_total_proofs_failed(st.jobs_failed);
        resp->set_uptime_seconds(st.uptime_s);
        resp->set_pinned_memory_bytes(st.pinned_used_bytes);
        resp->set_pinned_memory_limit_bytes(st.pinned_budget_bytes);
        czk_engine_status_clear(&st);
        return count(kStatus, grpc::Status::OK);
    }

    grpc::Status GetMetrics(grpc::ServerContext *, const pb::GetMetricsRequest *,
                            pb::GetMetricsResponse *resp) override {
        char *text = nullptr;
        int rc = czk_engine_metrics(engine_, &text);
        if (rc != CZK_OK)
            return count(kMetrics, from_czk(rc, nullptr));
        std::string t(text);
        czk_free(text);
        // Count this call before rendering, so that the text includes it.
        grpc::Status ok = count(kMetrics, grpc::Status::OK);
        resp->set_prometheus_text(t + metrics());
        return ok;
    }

    grpc::Status PreloadSRS(grpc::ServerContext *, const pb::PreloadSrsRequest *req,
                            pb::PreloadSrsResponse *resp) override {
        if (req->circuit_id().empty())
            return count(kPreload, invalid("circuit_id is required"));
        czk_err err{};
        int already = 0;
        uint64_t ms = 0;
        int rc = czk_engine_preload(engine_, req->circuit_id().c_str(), &already, &ms, &err);
        if (rc != CZK_OK)
            return count(kPreload, from_czk(rc, &err));
        resp->set_already_loaded(already != 0);
        resp->set_load_time_ms(ms);
        return count(kPreload, grpc::Status::OK);
    }

    grpc::Status EvictSRS(grpc::ServerContext *, const pb::EvictSrsRequest *req,
                          pb::EvictSrsResponse *resp) override {
        if (req->circuit_id().empty())
            return count(kEvict, invalid("circuit_id is required"));
        czk_err err{};
        int was_loaded = 0;
        uint64_t freed = 0;
        int rc = czk_engine_evict(engine_, req->circuit_id().c_str(), &was_loaded, &freed, &err);
        if (rc != CZK_OK)
            return count(kEvict, from_czk(rc, &err));
        resp->set_was_loaded(was_loaded != 0);
        resp->set_freed_bytes(freed);
        return count(kEvict, grpc::Status::OK);
    }

  private:
    grpc::Status count(Method m, grpc::Status s) {
        int c = static_cast<int>(s.error_code());
        if (c >= 0 && c < kCodes)
            counts_[m][c].fetch_add(1, std::memory_order_relaxed);
        return s;
    }

    grpc::Status submit(const pb::SubmitProofRequest &r, pb::SubmitProofResponse *resp) {
        if (intake_stopped_.load(std::memory_order_acquire))
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, "czk daemon is shutting down");
        JobRequest jr;
        grpc::Status s = check_submit(r, &jr);
        if (!s.ok())
            return s;
        char job_id[128] = {0};
        uint32_t pos = 0;
        int attached = 0;
        czk_err err{};
        int rc = czk_engine_submit(engine_, &jr.req, job_id, &pos, &attached, &err);
        if (rc == CZK_ECANCELED)
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, "czk daemon is shutting down");
        if (rc != CZK_OK)
            return from_czk(rc, &err);
        resp->set_job_id(job_id);
        resp->set_queue_position(pos);
        resp->set_attached(attached != 0);
        return grpc::Status::OK;
    }

    // Waits for job_id at most timeout_ms (0: forever), in slices, giving up early when the
    // client cancelled the call or its deadline passed.
    grpc::Status await(grpc::ServerContext *ctx, const std::string &job_id, uint64_t timeout_ms,
                       pb::AwaitProofResponse *resp) {
        auto start = std::chrono::steady_clock::now();
        for (;;) {
            uint64_t slice = kAwaitSliceMs;
            if (timeout_ms != 0) {
                auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
                                  std::chrono::steady_clock::now() - start)
                                  .count();
                uint64_t left = waited >= 0 && static_cast<uint64_t>(waited) < timeout_ms
                                    ? timeout_ms - static_cast<uint64_t>(waited)
                                    : 0;
                if (left == 0) {
                    resp->set_job_id(job_id);
                    resp->set_status(pb::AwaitProofResponse::TIMEOUT);
                    resp->set_error_message("no result within " + std::to_string(timeout_ms) +
                                            " ms; the job goes on");
                    return grpc::Status::OK;
                }
                slice = left < slice ? left : slice;
            }
            czk_job_result res;
            std::memset(&res, 0, sizeof res);
            czk_err err{};
            int rc = czk_engine_await(engine_, job_id.c_str(), slice, &res, &err);
            if (rc != CZK_OK) {
                czk_job_result_clear(&res);
                return from_czk(rc, &err);
            }
            if (res.status != CZK_JOB_TIMEOUT) {
                fill_result(res, job_id, resp);
                czk_job_result_clear(&res);
                return grpc::Status::OK;
            }
            czk_job_result_clear(&res);
            if (ctx->IsCancelled())
                return grpc::Status(grpc::StatusCode::CANCELLED, "the client went away");
        }
    }

    czk_engine *engine_;
    std::atomic<bool> intake_stopped_{false};
    std::atomic<uint64_t> counts_[kMethods][kCodes];
};

} // namespace

struct czk_grpc_server {
    std::unique_ptr<Service> service;
    std::unique_ptr<grpc::Server> server;
    std::mutex mu; // serializes shutdown against metrics
};

namespace {

// What is wrong with a listen address, or "" when it has the shape gRPC takes: unix:PATH,
// unix:///PATH, or HOST:PORT (HOST may be [v6]) with PORT a number in 0..65535 (0: any free
// port). Checked before gRPC sees it: gRPC would log a raw core error for a bad one, and it
// takes a port above 65535 without complaint and listens on some other port.
std::string listen_fault(const std::string &a) {
    if (a.rfind("unix:", 0) == 0) {
        std::string path = a.rfind("unix://", 0) == 0 ? a.substr(7) : a.substr(5);
        return path.empty() ? "no socket path after unix:" : "";
    }
    size_t colon = a.rfind(':');
    if (colon == std::string::npos || colon == 0)
        return "not HOST:PORT or unix:PATH";
    std::string host = a.substr(0, colon), port = a.substr(colon + 1);
    if (host.front() == '[' ? host.back() != ']' || host.size() < 3
                            : host.find(':') != std::string::npos)
        return "an IPv6 host must be in brackets, as [::1]:9820";
    if (port.empty() || port.size() > 5 ||
        port.find_first_not_of("0123456789") != std::string::npos || std::stoul(port) > 65535)
        return "the port must be a number in 0..65535";
    return "";
}

} // namespace

extern "C" int czk_grpc_server_start(czk_grpc_server **out, int *bound_port, czk_engine *engine,
                                     const char *const *listen, size_t n_listen,
                                     size_t max_msg_bytes, czk_err *err) {
    *out = nullptr;
    if (bound_port != nullptr)
        *bound_port = 0;
    if (engine == nullptr || listen == nullptr || n_listen == 0)
        return czk_err_set(err, CZK_EINVAL, "no engine or no listen address");
    if (max_msg_bytes == 0)
        max_msg_bytes = CZK_GRPC_DEFAULT_MAX_MSG;
    if (max_msg_bytes > INT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "max message size %zu above 2 GiB", max_msg_bytes);
    auto *srv = new (std::nothrow) czk_grpc_server;
    if (srv == nullptr)
        return czk_err_set(err, CZK_ENOMEM, "no memory for the gRPC server");
    srv->service = std::make_unique<Service>(engine);
    grpc::ServerBuilder b;
    std::vector<int> ports(n_listen, 0);
    for (size_t i = 0; i < n_listen; i++) {
        std::string a = listen[i] != nullptr ? listen[i] : "";
        if (a.empty()) {
            delete srv;
            return czk_err_set(err, CZK_EINVAL, "empty listen address");
        }
        std::string fault = listen_fault(a);
        if (!fault.empty()) {
            delete srv;
            return czk_err_set(err, CZK_EINVAL, "listen address '%s': %s", a.c_str(),
                               fault.c_str());
        }
        if (a.rfind("unix:", 0) == 0) {
            std::string path = a.rfind("unix://", 0) == 0 ? a.substr(7) : a.substr(5);
            std::remove(path.c_str()); // a stale socket of an earlier run
        }
        b.AddListeningPort(a, grpc::InsecureServerCredentials(), &ports[i]);
    }
    b.SetMaxReceiveMessageSize(static_cast<int>(max_msg_bytes));
    b.SetMaxSendMessageSize(static_cast<int>(max_msg_bytes));
    b.RegisterService(srv->service.get());
    srv->server = b.BuildAndStart();
    if (srv->server == nullptr) {
        delete srv;
        return czk_err_set(err, CZK_EINVAL, "cannot listen on %s%s", listen[0],
                           n_listen > 1 ? " (or another address)" : "");
    }
    for (size_t i = 0; i < n_listen; i++) {
        bool unix_socket = std::strncmp(listen[i], "unix:", 5) == 0;
        if (!unix_socket && ports[i] == 0) {
            srv->server->Shutdown();
            delete srv;
            return czk_err_set(err, CZK_EINVAL, "cannot listen on %s", listen[i]);
        }
        if (!unix_socket && bound_port != nullptr && *bound_port == 0)
            *bound_port = ports[i];
    }
    *out = srv;
    return CZK_OK;
}

extern "C" void czk_grpc_server_stop_intake(czk_grpc_server *srv) {
    if (srv != nullptr)
        srv->service->stop_intake();
}

extern "C" void czk_grpc_server_shutdown(czk_grpc_server *srv, uint64_t deadline_ms) {
    if (srv == nullptr)
        return;
    srv->service->stop_intake();
    srv->server->Shutdown(std::chrono::system_clock::now() +
                          std::chrono::milliseconds(deadline_ms));
    srv->server->Wait();
    delete srv;
}

extern "C" int czk_grpc_server_metrics(czk_grpc_server *srv, char **text) {
    *text = nullptr;
    std::string t = srv->service->metrics();
    char *p = static_cast<char *>(std::malloc(t.size() + 1));
    if (p == nullptr)
        return CZK_ENOMEM;
    std::memcpy(p, t.c_str(), t.size() + 1);
    *text = p;
    return CZK_OK;
}
