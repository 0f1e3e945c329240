// DESIGN
//
// cuzk.v1.ProvingEngine over the engine's C API (include/czk.h). The service is gRPC's
// synchronous one: every call runs on a thread of gRPC's pool and does nothing but translate
// the request, call the thread-safe engine API and translate the answer. Proving happens on the
// engine's threads. A waiting call (AwaitProof, Prove) blocks in czk_engine_await in slices of
// kAwaitSliceMs so that it notices a client that went away or a deadline, and lets its thread
// go; the job itself is not affected (Curio re-sends its request id and attaches again).
//
// What the proto's types leave open is checked here before the engine sees them (ids, counts,
// the priority); the engine checks again. Every czk status that reaches a client goes through
// the one table in codes.cpp. A Filecoin request (WinningPoSt, WindowPoSt, PoRep C2,
// SnapDeals: proof_kind set, no circuit_id) is handed field by field to
// czk_filecoin_job_from_request (kinds/kinds.h), which alone knows the Filecoin rules: the
// circuit of a registered proof, which fields each kind carries, the payload. Where and how
// the server listens (addresses, TLS, socket locks) is listen.cpp's.
//
// Upstream code cited here was read at bellperson 0.27.0 (@d1fa22cb), curio@e0294b0f (2026-08-20).
#include "server/grpc/server.h"

#include <grpcpp/grpcpp.h>

#include <unistd.h>

#include <atomic>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "cuzk/v1/proving.grpc.pb.h"
#include "formats/snarkjs_text.h"
#include "czk_filecoin.h"
#include "server/grpc/codes.h"
#include "server/grpc/listen.h"
#include "util/alloc.h"
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

// The engine's rules (czk_id_valid for circuits, czk_request_id_valid for requests and
// clients); a NUL inside the string would hide the rest from them.
bool valid_id(const std::string &s) {
    return s.find('\0') == std::string::npos && czk_id_valid(s.c_str());
}
bool valid_request_id(const std::string &s, size_t max) {
    return s.size() <= max && s.find('\0') == std::string::npos && czk_request_id_valid(s.c_str());
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
    czk_filecoin_job filecoin{}; // a Filecoin request's circuit, partitions and payload
    bool is_filecoin = false;
    JobRequest() = default;
    JobRequest(const JobRequest &) = delete;
    JobRequest &operator=(const JobRequest &) = delete;
    ~JobRequest() {
        czk_filecoin_job_clear(&filecoin);
    }
};

// A Filecoin request (proof_kind set, no circuit_id) as its kind's job: the fields go to
// kinds/ as they are, which picks the circuit, checks the fields against the proof kind and
// writes the payload. Its faults are the client's (INVALID_ARGUMENT, its message as is).
grpc::Status map_filecoin(const pb::SubmitProofRequest &r, JobRequest *out) {
    auto u8 = [](const std::string &s) { return reinterpret_cast<const uint8_t *>(s.data()); };
    std::vector<const uint8_t *> bufs;
    std::vector<size_t> lens;
    for (const std::string &v : r.vanilla_proofs()) {
        bufs.push_back(u8(v));
        lens.push_back(v.size());
    }
    czk_filecoin_request f{};
    f.kind = r.proof_kind();
    f.registered_proof = r.registered_proof();
    f.sector_size = r.sector_size();
    f.sector_number = r.sector_number();
    f.miner_id = r.miner_id();
    f.partition_index = r.partition_index();
    f.num_partitions = r.num_partitions();
    f.vanilla_proof = u8(r.vanilla_proof());
    f.vanilla_proof_len = r.vanilla_proof().size();
    f.vanilla_proofs = bufs.data();
    f.vanilla_proofs_len = lens.data();
    f.n_vanilla_proofs = bufs.size();
    f.randomness = u8(r.randomness());
    f.randomness_len = r.randomness().size();
    f.comm_r_old = u8(r.comm_r_old());
    f.comm_r_old_len = r.comm_r_old().size();
    f.comm_r_new = u8(r.comm_r_new());
    f.comm_r_new_len = r.comm_r_new().size();
    f.comm_d_new = u8(r.comm_d_new());
    f.comm_d_new_len = r.comm_d_new().size();
    f.n_witness = static_cast<size_t>(r.witness_size());
    czk_err err{};
    int rc = czk_filecoin_job_from_request(&out->filecoin, &f, &err);
    if (rc == CZK_EINVAL)
        return invalid(err.msg);
    if (rc != CZK_OK)
        return from_czk(rc, &err);
    out->is_filecoin = true;
    return grpc::Status::OK;
}

grpc::Status check_submit(const pb::SubmitProofRequest &r, JobRequest *out) {
    if (!pb::ProofKind_IsValid(r.proof_kind()))
        return invalid("unknown proof_kind " + std::to_string(r.proof_kind()));
    if (!pb::Priority_IsValid(r.priority()))
        return invalid("unknown priority " + std::to_string(r.priority()));
    bool vanilla = !r.vanilla_proof().empty() || r.vanilla_proofs_size() > 0;
    if (r.proof_kind() != pb::PROOF_KIND_UNSPECIFIED && r.circuit_id().empty()) {
        grpc::Status s = map_filecoin(r, out);
        if (!s.ok())
            return s;
    }
    const std::string circuit = out->is_filecoin ? out->filecoin.circuit_id : r.circuit_id();
    if (circuit.empty())
        return invalid("circuit_id is required when proof_kind is PROOF_KIND_UNSPECIFIED");
    if (vanilla && !out->is_filecoin)
        return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                            "vanilla proofs are supported for WINNING_POST, "
                            "WINDOW_POST_PARTITION, POREP_SEAL_COMMIT and SNAP_DEALS_UPDATE "
                            "without circuit_id only");
    if (!valid_id(circuit))
        return invalid("circuit_id must be 1.." + std::to_string(CZK_ID_MAX) +
                       " printable ASCII characters");
    if (!r.request_id().empty() && !valid_request_id(r.request_id(), CZK_REQUEST_ID_MAX))
        return invalid("request_id must be 1.." + std::to_string(CZK_REQUEST_ID_MAX) +
                       " bytes of UTF-8 without control characters");
    if (!r.client_id().empty() && !valid_request_id(r.client_id(), CZK_CLIENT_ID_MAX))
        return invalid("client_id must be at most " + std::to_string(CZK_CLIENT_ID_MAX) +
                       " bytes of UTF-8 without control characters");
    size_t n = out->is_filecoin ? out->filecoin.n_partitions : r.num_partitions();
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
    q.circuit_id = out->is_filecoin ? out->filecoin.circuit_id : r.circuit_id().c_str();
    q.priority = priority_of(r);
    q.client_id = r.client_id().empty() ? nullptr : r.client_id().c_str();
    q.kind = kind_name(r.proof_kind());
    q.n_partitions = n;
    q.wtns = out->wtns.empty() ? nullptr : out->wtns.data();
    q.wtns_len = out->wtns_len.empty() ? nullptr : out->wtns_len.data();
    q.synth_seed = r.synth_seed();
    q.payload = out->filecoin.payload;
    q.payload_len = out->filecoin.payload_len;
    return grpc::Status::OK;
}

// proof_json and public_json: each partition as snarkjs's files (proving.proto says why), for
// generic circuits; a Filecoin job's result leaves them out (fill_result). Left empty, and the
// binary proof still sent, when the result carries no public inputs or its proofs are not
// bellperson's encoding: the JSON is a convenience, never a reason to fail.
void add_snarkjs_json(const czk_job_result &res, pb::AwaitProofResponse *out) {
    if (res.status != CZK_JOB_COMPLETED || res.proof == nullptr || res.public_inputs == nullptr ||
        res.proof_len % CZK_PROOF_BYTES != 0)
        return;
    size_t parts = res.proof_len / CZK_PROOF_BYTES;
    if (parts == 0 || res.public_len % (parts * 32) != 0)
        return;
    size_t n_public = res.public_len / parts / 32;
    for (size_t i = 0; i < parts; i++) {
        char *proof = nullptr, *pub = nullptr;
        czk_err err{};
        int rc = czk_snarkjs_texts_from_bellperson(&proof, &pub, res.proof + i * CZK_PROOF_BYTES,
                                                   res.public_inputs + i * n_public * 32, n_public,
                                                   &err);
        if (rc == CZK_OK) {
            out->add_proof_json(proof);
            out->add_public_json(pub);
        }
        czk_free(proof);
        czk_free(pub);
        if (rc != CZK_OK) {
            out->clear_proof_json();
            out->clear_public_json();
            return;
        }
    }
}

// The response of a finished job. The snarkjs JSON texts for all but the Filecoin kinds, whose
// clients read the 192-byte proofs only (decoding each proof again would be wasted).
void fill_result(const czk_job_result &res, const std::string &job_id,
                 pb::AwaitProofResponse *out) {
    const bool snarkjs =
        res.circuit_kind == nullptr || std::strncmp(res.circuit_kind, "filecoin-", 9) != 0;
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
    if (snarkjs)
        add_snarkjs_json(res, out);
}

class Service final : public pb::ProvingEngine::Service {
  public:
    Service(czk_engine *engine, uint32_t max_jobs_per_client)
        : engine_(engine), max_jobs_per_client_(max_jobs_per_client) {
        for (auto &m : counts_)
            for (auto &c : m)
                c.store(0, std::memory_order_relaxed);
    }

    void stop_intake() {
        // Pairs with the acquire loads in accepting(): a call that sees true was admitted
        // before the drain began, and the engine's own shutdown refuses the rest.
        intake_stopped_.store(true, std::memory_order_release);
    }

    // The server's metric families: the build, and the calls answered by method and gRPC code
    // (by name, as gRPC's own metrics label them).
    std::string metrics() const {
        std::string t = "# HELP czk_build_info The czk daemon's version (the value is always 1).\n"
                        "# TYPE czk_build_info gauge\n"
                        "czk_build_info{version=\"" CZK_VERSION "\"} 1\n"
                        "# HELP czk_grpc_requests_total gRPC calls answered, by method and code.\n"
                        "# TYPE czk_grpc_requests_total counter\n";
        for (int m = 0; m < kMethods; m++)
            for (int c = 0; c < kCodes; c++) {
                uint64_t v = counts_[m][c].load(std::memory_order_relaxed);
                if (v == 0)
                    continue;
                t += "czk_grpc_requests_total{method=\"" + std::string(kMethodNames[m]) +
                     "\",code=\"" + czk_grpc_code_name(c) + "\"} " + std::to_string(v) + "\n";
            }
        return t;
    }

    grpc::Status SubmitProof(grpc::ServerContext *ctx, const pb::SubmitProofRequest *req,
                             pb::SubmitProofResponse *resp) override {
        return count(kSubmit, submit(ctx, *req, resp));
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
        grpc::Status s = submit(ctx, req->submit(), &sub);
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
        czk_job_status prior = CZK_JOB_UNKNOWN;
        int rc = czk_engine_cancel(engine_, req->job_id().c_str(), &was_running, &prior, &err);
        if (rc != CZK_OK)
            return count(kCancel, from_czk(rc, &err));
        // A finished job keeps its status: the answer says which, and that nothing changed.
        bool finished = prior != CZK_JOB_PENDING && prior != CZK_JOB_RUNNING;
        resp->set_was_running(was_running != 0);
        resp->set_already_finished(finished);
        resp->set_status(finished && pb::AwaitProofResponse::Status_IsValid(prior)
                             ? static_cast<pb::AwaitProofResponse::Status>(prior)
                             : pb::AwaitProofResponse::CANCELLED);
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
        // The same snapshot as GET /status shows it, so that `czk status` prints that shape.
        char *json = nullptr;
        rc = czk_engine_status_json(&st, &json);
        czk_engine_status_clear(&st);
        if (rc != CZK_OK)
            return count(kStatus, from_czk(rc, nullptr));
        resp->set_status_json(json);
        czk_free(json);
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

    // The client a job counts against: the peer's address without its port ("ipv4:10.0.0.5"),
    // so that new connections do not make a new client; every caller on a unix socket is one.
    static std::string client_of(grpc::ServerContext *ctx) {
        std::string p = ctx->peer();
        if (p.rfind("ipv4:", 0) == 0 || p.rfind("ipv6:", 0) == 0) {
            size_t colon = p.rfind(':');
            if (colon > 5)
                p.resize(colon);
        }
        return p;
    }

    // Whether a job has left the queue (finished, or pruned after its TTL): a 1 ms await.
    bool job_finished(const std::string &job_id) {
        czk_job_result res;
        std::memset(&res, 0, sizeof res);
        czk_err err{};
        int rc = czk_engine_await(engine_, job_id.c_str(), 1, &res, &err);
        bool done = rc != CZK_OK || res.status != CZK_JOB_TIMEOUT;
        czk_job_result_clear(&res);
        return done;
    }

    // Reserves a job slot for `client`, or answers RESOURCE_EXHAUSTED when it already holds
    // max_jobs_per_client_ unfinished jobs. Finished jobs are forgotten only when a client
    // reaches the limit, so a submit below it costs no engine call; the engine is asked
    // without clients_mu_ held (each ask may wait 1 ms).
    grpc::Status admit(const std::string &client) {
        if (max_jobs_per_client_ == 0)
            return grpc::Status::OK;
        std::vector<std::string> held;
        {
            std::lock_guard<std::mutex> g(clients_mu_);
            Client &c = clients_[client];
            if (c.jobs.size() + c.reserved < max_jobs_per_client_) {
                c.reserved++;
                return grpc::Status::OK;
            }
            held.assign(c.jobs.begin(), c.jobs.end());
        }
        std::vector<std::string> done;
        for (const std::string &id : held)
            if (job_finished(id))
                done.push_back(id);
        std::lock_guard<std::mutex> g(clients_mu_);
        Client &c = clients_[client];
        for (const std::string &id : done)
            c.jobs.erase(id);
        if (c.jobs.size() + c.reserved >= max_jobs_per_client_)
            return grpc::Status(grpc::StatusCode::RESOURCE_EXHAUSTED,
                                "client " + client + " holds " + std::to_string(c.jobs.size()) +
                                    " unfinished jobs, the limit (daemon.max_jobs_per_client)");
        c.reserved++;
        return grpc::Status::OK;
    }

    // Ends admit's reservation: the job is counted when the engine took it (job_id not null).
    void settle(const std::string &client, const char *job_id) {
        if (max_jobs_per_client_ == 0)
            return;
        std::lock_guard<std::mutex> g(clients_mu_);
        Client &c = clients_[client];
        c.reserved--;
        if (job_id != nullptr)
            c.jobs.insert(job_id);
        if (c.jobs.empty() && c.reserved == 0)
            clients_.erase(client);
    }

    grpc::Status submit(grpc::ServerContext *ctx, const pb::SubmitProofRequest &r,
                        pb::SubmitProofResponse *resp) {
        if (intake_stopped_.load(std::memory_order_acquire))
            return grpc::Status(grpc::StatusCode::UNAVAILABLE, "czk daemon is shutting down");
        JobRequest jr;
        grpc::Status s = check_submit(r, &jr);
        if (!s.ok())
            return s;
        const std::string client = client_of(ctx);
        s = admit(client);
        if (!s.ok())
            return s;
        char job_id[CZK_REQUEST_ID_MAX + 1] = {0};
        uint32_t pos = 0;
        int attached = 0;
        czk_err err{};
        int rc = czk_engine_submit(engine_, &jr.req, job_id, &pos, &attached, &err);
        settle(client, rc == CZK_OK ? job_id : nullptr);
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
    // One client's jobs: the ids the engine accepted (some may have finished since) and the
    // submits between admit and settle.
    struct Client {
        std::set<std::string> jobs;
        size_t reserved = 0;
    };
    const uint32_t max_jobs_per_client_;
    std::mutex clients_mu_;
    std::map<std::string, Client> clients_; // guarded by clients_mu_
    std::atomic<bool> intake_stopped_{false};
    std::atomic<uint64_t> counts_[kMethods][kCodes];
};

} // namespace

struct czk_grpc_server {
    std::unique_ptr<Service> service;
    std::unique_ptr<grpc::Server> server;
    std::mutex mu;             // serializes shutdown against metrics
    std::vector<int> lock_fds; // each unix socket's PATH.lock, locked while the server lives
    ~czk_grpc_server() {
        for (int fd : lock_fds)
            close(fd);
    }
};

extern "C" int czk_grpc_server_start(czk_grpc_server **out, int *bound_port, czk_engine *engine,
                                     const char *const *listen, size_t n_listen,
                                     const czk_grpc_server_opts *opts, czk_err *err) {
    *out = nullptr;
    if (bound_port != nullptr)
        *bound_port = 0;
    if (engine == nullptr || listen == nullptr || n_listen == 0)
        return czk_err_set(err, CZK_EINVAL, "no engine or no listen address");
    czk_grpc_server_opts none{};
    if (opts == nullptr)
        opts = &none;
    size_t max_msg_bytes =
        opts->max_msg_bytes != 0 ? opts->max_msg_bytes : CZK_GRPC_DEFAULT_MAX_MSG;
    if (max_msg_bytes > INT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "max message size %zu above 2 GiB", max_msg_bytes);
    czk_grpc_listeners ls;
    int rc = czk_grpc_listen_prepare(&ls, listen, n_listen, opts, err);
    if (rc != CZK_OK)
        return rc;
    auto *srv = new (std::nothrow) czk_grpc_server;
    if (srv == nullptr)
        return czk_err_set(err, CZK_ENOMEM, "no memory for the gRPC server");
    srv->service = std::make_unique<Service>(engine, opts->max_jobs_per_client);
    grpc::ServerBuilder b;
    b.SetMaxReceiveMessageSize(static_cast<int>(max_msg_bytes));
    b.SetMaxSendMessageSize(static_cast<int>(max_msg_bytes));
    b.RegisterService(srv->service.get());
    rc = czk_grpc_listen_start(&srv->server, bound_port, &b, &ls, err);
    if (rc != CZK_OK) {
        delete srv;
        if (bound_port != nullptr)
            *bound_port = 0;
        return rc;
    }
    srv->lock_fds.swap(ls.lock_fds);
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
