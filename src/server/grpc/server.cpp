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
// status that reaches a client goes through the one table in codes.cpp. WinningPoSt and
// WindowPoSt requests (vanilla proofs) and PoRep C2 requests (a C1 output) go to the Filecoin
// kinds' circuit of their registered_proof (kinds/kinds.h), and so do SnapDeals requests (the
// vanilla partition proofs and the three commitments).
#include "server/grpc/server.h"

#include <grpcpp/grpcpp.h>
#include <grpcpp/resource_quota.h>
#include <grpcpp/security/server_credentials.h>

#include <arpa/inet.h>
#include <cerrno>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <netdb.h>
#include <netinet/in.h>
#include <set>
#include <sstream>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

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
#include "filecoin/porep_types.h"
#include "filecoin/vanilla.h"
#include "formats/snarkjs_text.h"
#include "kinds/kinds.h"
#include "server/grpc/codes.h"
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
    return s.size() <= max && s.find('\0') == std::string::npos &&
           czk_request_id_valid(s.c_str());
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
    std::string circuit_id;       // a PoSt request's circuit, from its registered_proof
    std::vector<uint8_t> payload; // a PoSt request's payload (kinds/kinds.h)
    size_t num_partitions = 0;    // a SnapDeals request's partitions, from its sector size
};

// A WinningPoSt or WindowPoSt request as the Filecoin kind's job: the circuit named by
// registered_proof, and its public data and vanilla proofs as the payload kinds/kinds.h
// defines. The kind decodes and checks the proofs at submit; here only what the proto's types
// leave open (the proof kind against registered_proof, the randomness's length).
grpc::Status check_post(const pb::SubmitProofRequest &r, JobRequest *out) {
    czk_vanilla_post_type ty;
    czk_err err{};
    if (czk_vanilla_post_type_from_abi(&ty, r.registered_proof(), &err) != CZK_OK)
        return invalid("registered_proof " + std::to_string(r.registered_proof()) +
                       " is not a PoSt proof (0-14)");
    bool winning = r.proof_kind() == pb::WINNING_POST;
    if ((ty.kind == CZK_VANILLA_POST_WINNING) != winning)
        return invalid("registered_proof " + std::to_string(r.registered_proof()) + " is " +
                       (winning ? "a WindowPoSt" : "a WinningPoSt") + " proof, the request " +
                       pb::ProofKind_Name(r.proof_kind()));
    if (!r.vanilla_proof().empty())
        return invalid("PoSt requests carry one vanilla proof per sector in vanilla_proofs, "
                       "not vanilla_proof");
    if (r.randomness().size() != 32)
        return invalid("randomness is " + std::to_string(r.randomness().size()) + " bytes, not 32");
    if (r.num_partitions() > 1)
        return invalid("a PoSt request proves one partition, not " +
                       std::to_string(r.num_partitions()));
    if (r.witness_size() > 0)
        return invalid("a PoSt request carries vanilla proofs, not witnesses");
    char id[64];
    if (czk_kinds_filecoin_circuit_id(id, sizeof id, r.registered_proof(), &err) != CZK_OK)
        return from_czk(err.code, &err);
    out->circuit_id = id;
    std::vector<const uint8_t *> bufs;
    std::vector<size_t> lens;
    for (const std::string &v : r.vanilla_proofs()) {
        bufs.push_back(reinterpret_cast<const uint8_t *>(v.data()));
        lens.push_back(v.size());
    }
    size_t size = czk_kinds_filecoin_payload_size(lens.data(), lens.size());
    if (size == 0)
        return invalid("vanilla_proofs too large");
    out->payload.resize(size);
    if (czk_kinds_filecoin_payload_encode(
            out->payload.data(), static_cast<uint32_t>(r.registered_proof()), r.partition_index(),
            r.miner_id(), reinterpret_cast<const uint8_t *>(r.randomness().data()), bufs.data(),
            lens.data(), bufs.size()) != size)
        return invalid("vanilla_proofs: a proof or their count exceeds 32 bits");
    return grpc::Status::OK;
}

// A POREP_SEAL_COMMIT request as the PoRep kind's job: the circuit named by registered_proof
// (an abi seal proof, 0-19), and the C1 output with the miner and sector as the payload
// kinds/kinds.h defines. The kind parses and checks the C1 output at submit; here only what the
// proto's types leave open.
grpc::Status check_porep(const pb::SubmitProofRequest &r, JobRequest *out) {
    czk_err err{};
    char id[64];
    if (czk_kinds_porep_circuit_id(id, sizeof id, r.registered_proof(), &err) != CZK_OK)
        return invalid("registered_proof " + std::to_string(r.registered_proof()) + ": " +
                       err.msg);
    if (r.vanilla_proof().empty() || r.vanilla_proofs_size() > 0)
        return invalid("a PoRep request carries its C1 output in vanilla_proof, and nothing in "
                       "vanilla_proofs");
    if (r.witness_size() > 0)
        return invalid("a PoRep request carries a C1 output, not witnesses");
    if (r.sector_size() != 0) {
        const czk_porep_type *ty = czk_porep_type_from_abi(r.registered_proof(), nullptr);
        if (ty != nullptr && ty->sector_size != r.sector_size())
            return invalid("sector_size " + std::to_string(r.sector_size()) +
                           " is not registered_proof " + std::to_string(r.registered_proof()) +
                           "'s (" + std::to_string(ty->sector_size) + ")");
    }
    out->circuit_id = id;
    out->payload.resize(CZK_POREP_PAYLOAD_HEADER + r.vanilla_proof().size());
    // Miner id 0 is the system actor, never a storage provider: a request without one is
    // proved without the replica id check (the C1 output is still checked in full).
    czk_kinds_porep_payload_encode(
        out->payload.data(), static_cast<uint32_t>(r.registered_proof()),
        r.miner_id() != 0 ? CZK_POREP_PAYLOAD_IDS : 0u, r.miner_id(), r.sector_number(),
        reinterpret_cast<const uint8_t *>(r.vanilla_proof().data()), r.vanilla_proof().size());
    return grpc::Status::OK;
}

// A SNAP_DEALS_UPDATE request as the SnapDeals kind's job: the circuit named by
// registered_proof (an abi RegisteredUpdateProof, 0-4), and the three commitments with one
// vanilla PartitionProof per partition as the payload kinds/kinds.h defines (Curio's
// ProveUpdateCuzk). The kind decodes and checks every proof against the commitments at submit;
// here what the proto's types leave open: the commitments' lengths, the proof count, the size.
grpc::Status check_snap(const pb::SubmitProofRequest &r, JobRequest *out) {
    czk_err err{};
    char id[64];
    uint64_t size = 0;
    if (czk_kinds_snap_circuit_id(id, sizeof id, r.registered_proof(), &err) != CZK_OK ||
        czk_kinds_snap_sector_size(&size, r.registered_proof(), &err) != CZK_OK)
        return invalid("registered_proof " + std::to_string(r.registered_proof()) +
                       " is not an update proof (abi RegisteredUpdateProof 0-4)");
    if (r.sector_size() != 0 && r.sector_size() != size)
        return invalid("sector_size " + std::to_string(r.sector_size()) +
                       " is not registered_proof " + std::to_string(r.registered_proof()) + "'s (" +
                       std::to_string(size) + ")");
    if (!r.vanilla_proof().empty())
        return invalid("a SnapDeals request carries one vanilla proof per partition in "
                       "vanilla_proofs, not vanilla_proof");
    if (r.witness_size() > 0)
        return invalid("a SnapDeals request carries vanilla proofs, not witnesses");
    const std::string *comms[3] = {&r.comm_r_old(), &r.comm_r_new(), &r.comm_d_new()};
    static const char *const names[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    for (int i = 0; i < 3; i++)
        if (comms[i]->size() != 32)
            return invalid(std::string(names[i]) + " is " + std::to_string(comms[i]->size()) +
                           " bytes, not 32" + (comms[i]->empty() ? " (missing)" : ""));
    // 1 partition at 2 KiB, 4 at 8 MiB, 16 above (storage-proofs-update constants.rs).
    size_t parts = size <= 8192 ? 1 : size <= (16u << 20) ? 4 : 16;
    if (static_cast<size_t>(r.vanilla_proofs_size()) != parts)
        return invalid(std::to_string(r.vanilla_proofs_size()) + " vanilla_proofs; a " +
                       std::to_string(size) + "-byte sector's update takes " +
                       std::to_string(parts) + " (one per partition, in order)");
    if (r.num_partitions() != 0 && r.num_partitions() != parts)
        return invalid("num_partitions " + std::to_string(r.num_partitions()) + ", but a " +
                       std::to_string(size) + "-byte update has " + std::to_string(parts));
    out->circuit_id = id;
    std::vector<const uint8_t *> bufs;
    std::vector<size_t> lens;
    for (const std::string &v : r.vanilla_proofs()) {
        bufs.push_back(reinterpret_cast<const uint8_t *>(v.data()));
        lens.push_back(v.size());
    }
    size_t plen = czk_kinds_snap_payload_size(lens.data(), lens.size());
    if (plen == 0)
        return invalid("vanilla_proofs too large");
    out->payload.resize(plen);
    auto u8 = [](const std::string &s) { return reinterpret_cast<const uint8_t *>(s.data()); };
    if (czk_kinds_snap_payload_encode(
            out->payload.data(), static_cast<uint32_t>(r.registered_proof()), r.miner_id(),
            r.sector_number(), u8(r.comm_r_old()), u8(r.comm_r_new()), u8(r.comm_d_new()),
            bufs.data(), lens.data(), bufs.size()) != plen)
        return invalid("vanilla_proofs: a proof or their count exceeds 32 bits");
    out->num_partitions = parts;
    return grpc::Status::OK;
}

grpc::Status check_submit(const pb::SubmitProofRequest &r, JobRequest *out) {
    if (!pb::ProofKind_IsValid(r.proof_kind()))
        return invalid("unknown proof_kind " + std::to_string(r.proof_kind()));
    if (!pb::Priority_IsValid(r.priority()))
        return invalid("unknown priority " + std::to_string(r.priority()));
    bool vanilla = !r.vanilla_proof().empty() || r.vanilla_proofs_size() > 0;
    bool post = r.proof_kind() == pb::WINNING_POST || r.proof_kind() == pb::WINDOW_POST_PARTITION;
    if (r.proof_kind() != pb::PROOF_KIND_UNSPECIFIED && r.circuit_id().empty()) {
        if (!vanilla)
            return invalid(std::string(pb::ProofKind_Name(r.proof_kind())) +
                           " request without vanilla_proof(s)");
        if (post || r.proof_kind() == pb::POREP_SEAL_COMMIT ||
            r.proof_kind() == pb::SNAP_DEALS_UPDATE) {
            grpc::Status s = post                                      ? check_post(r, out)
                             : r.proof_kind() == pb::POREP_SEAL_COMMIT ? check_porep(r, out)
                                                                       : check_snap(r, out);
            if (!s.ok())
                return s;
        } else
            return grpc::Status(grpc::StatusCode::UNIMPLEMENTED,
                                "Filecoin circuits (" + pb::ProofKind_Name(r.proof_kind()) +
                                    ") are not supported by czk yet; generic circuits are: set "
                                    "circuit_id (and witness) instead of vanilla proofs");
    }
    const std::string &circuit = out->circuit_id.empty() ? r.circuit_id() : out->circuit_id;
    if (circuit.empty())
        return invalid("circuit_id is required when proof_kind is PROOF_KIND_UNSPECIFIED");
    if (vanilla && out->payload.empty())
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
    size_t n = out->num_partitions != 0 ? out->num_partitions : r.num_partitions();
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
    q.circuit_id = circuit.c_str();
    q.priority = priority_of(r);
    q.client_id = r.client_id().empty() ? nullptr : r.client_id().c_str();
    q.kind = kind_name(r.proof_kind());
    q.n_partitions = n;
    q.wtns = out->wtns.empty() ? nullptr : out->wtns.data();
    q.wtns_len = out->wtns_len.empty() ? nullptr : out->wtns_len.data();
    q.synth_seed = r.synth_seed();
    q.payload = out->payload.empty() ? nullptr : out->payload.data();
    q.payload_len = out->payload.size();
    return grpc::Status::OK;
}

// proof_json and public_json: each partition as snarkjs's files (proving.proto says why).
// Left empty, and the binary proof still sent, when the result carries no public inputs or its
// proofs are not bellperson's encoding: the JSON is a convenience, never a reason to fail.
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

namespace {

// What is wrong with a listen address, or "" when it has the shape gRPC takes: unix:PATH,
// unix:///PATH, or HOST:PORT (HOST may be [v6]) with PORT a number in 0..65535 (0: any free
// port). Checked before gRPC sees it: gRPC would log a raw core error for a bad one, and it
// takes a port above 65535 without complaint and listens on some other port.
std::string listen_fault(const std::string &a) {
    if (a.rfind("unix:", 0) == 0) {
        bool uri = a.rfind("unix://", 0) == 0;
        std::string path = uri ? a.substr(7) : a.substr(5);
        if (path.empty())
            return "no socket path after unix:";
        // gRPC reads unix://x/y as host x, path /y: a relative path is unix:PATH.
        return uri && path[0] != '/' ? "unix:// takes an absolute path (unix:///run/czk.sock); "
                                       "a relative one is unix:PATH"
                                     : "";
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

// The path of "unix:PATH" or "unix:///PATH"; "" for a TCP address.
std::string unix_path(const std::string &a) {
    if (a.rfind("unix:", 0) != 0)
        return "";
    return a.rfind("unix://", 0) == 0 ? a.substr(7) : a.substr(5);
}

// The host (without a v6 address's brackets) and port of a TCP address that listen_fault
// accepted.
void split_host_port(const std::string &a, std::string *host, std::string *port) {
    size_t colon = a.rfind(':');
    *host = a.substr(0, colon);
    *port = a.substr(colon + 1);
    if (host->size() >= 2 && host->front() == '[')
        *host = host->substr(1, host->size() - 2);
}

// The addresses a TCP host:port resolves to for listening, or nullptr with err set.
addrinfo *resolve(const std::string &addr, czk_err *err) {
    std::string host, port;
    split_host_port(addr, &host, &port);
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
    addrinfo *ai = nullptr;
    int gai = getaddrinfo(host.c_str(), port.c_str(), &hints, &ai);
    if (gai != 0) {
        czk_err_set(err, CZK_EINVAL, "listen address '%s': %s", addr.c_str(), gai_strerror(gai));
        return nullptr;
    }
    return ai;
}

bool is_loopback(const sockaddr *sa) {
    if (sa->sa_family == AF_INET) {
        uint32_t a = ntohl(reinterpret_cast<const sockaddr_in *>(sa)->sin_addr.s_addr);
        return (a >> 24) == 127;
    }
    if (sa->sa_family == AF_INET6) {
        const in6_addr &a = reinterpret_cast<const sockaddr_in6 *>(sa)->sin6_addr;
        return IN6_IS_ADDR_LOOPBACK(&a) || (IN6_IS_ADDR_V4MAPPED(&a) && a.s6_addr[12] == 127);
    }
    return false;
}

// A TCP address another socket listens on. SO_REUSEADDR as gRPC and libmicrohttpd set it, so
// that connections of an earlier run in TIME_WAIT do not count; a listener still does.
int tcp_check(const std::string &addr, czk_err *err) {
    std::string host, port;
    split_host_port(addr, &host, &port);
    if (port == "0")
        return CZK_OK;
    addrinfo *ai = resolve(addr, err);
    if (ai == nullptr)
        return CZK_EINVAL;
    int rc = CZK_OK;
    for (addrinfo *p = ai; p != nullptr && rc == CZK_OK; p = p->ai_next) {
        int fd = socket(p->ai_family, p->ai_socktype | SOCK_CLOEXEC, p->ai_protocol);
        if (fd < 0)
            continue;
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (bind(fd, p->ai_addr, p->ai_addrlen) != 0 && errno == EADDRINUSE)
            rc = czk_err_set(err, CZK_EIO,
                             "listen address '%s': address in use (another czk daemon, or "
                             "another program, listens on it)",
                             addr.c_str());
        close(fd);
    }
    freeaddrinfo(ai);
    return rc;
}

// A unix socket path: free when absent or stale (a connect is refused: the daemon that made it
// is gone; the file is removed when remove_stale); in use when something accepts or queues the
// connect.
int unix_check(const std::string &addr, bool remove_stale, czk_err *err) {
    std::string path = unix_path(addr);
    sockaddr_un sun{};
    if (path.size() >= sizeof sun.sun_path)
        return czk_err_set(err, CZK_EINVAL, "listen address '%s': the path is longer than %zu",
                           addr.c_str(), sizeof sun.sun_path - 1);
    struct stat st;
    if (lstat(path.c_str(), &st) != 0)
        return errno == ENOENT ? CZK_OK
                               : czk_err_set(err, CZK_EINVAL, "listen address '%s': %s",
                                             addr.c_str(), std::strerror(errno));
    if (!S_ISSOCK(st.st_mode))
        return czk_err_set(err, CZK_EINVAL,
                           "listen address '%s': %s exists and is not a socket (not replaced)",
                           addr.c_str(), path.c_str());
    sun.sun_family = AF_UNIX;
    std::memcpy(sun.sun_path, path.c_str(), path.size() + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return czk_err_set(err, CZK_EIO, "listen address '%s': socket: %s", addr.c_str(),
                           std::strerror(errno));
    int rc = connect(fd, reinterpret_cast<const sockaddr *>(&sun), sizeof sun);
    int e = errno;
    close(fd);
    if (rc == 0 || e == EAGAIN)
        return czk_err_set(err, CZK_EIO,
                           "listen address '%s': address in use (a daemon answers on this "
                           "socket; it is left alone)",
                           addr.c_str());
    if (e != ECONNREFUSED)
        return czk_err_set(err, CZK_EIO,
                           "listen address '%s': cannot tell whether it is in use: %s",
                           addr.c_str(), std::strerror(e));
    if (remove_stale && unlink(path.c_str()) != 0 && errno != ENOENT)
        return czk_err_set(err, CZK_EIO, "listen address '%s': cannot remove the stale socket: %s",
                           addr.c_str(), std::strerror(errno));
    return CZK_OK;
}

// Locks PATH.lock beside a unix socket for the server's life. Of two daemons started at once on
// one path, both may find no socket yet; the lock makes the second fail here instead of
// unlinking the first one's socket between its bind and its listen.
int unix_lock(const std::string &addr, std::vector<int> *fds, czk_err *err) {
    std::string lock = unix_path(addr) + ".lock";
    int fd = open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0660);
    if (fd < 0)
        return czk_err_set(err, CZK_EIO, "listen address '%s': cannot open %s: %s", addr.c_str(),
                           lock.c_str(), std::strerror(errno));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
        int e = errno;
        close(fd);
        if (e == EWOULDBLOCK)
            return czk_err_set(err, CZK_EIO,
                               "listen address '%s': address in use (another daemon holds %s)",
                               addr.c_str(), lock.c_str());
        return czk_err_set(err, CZK_EIO, "listen address '%s': cannot lock %s: %s", addr.c_str(),
                           lock.c_str(), std::strerror(e));
    }
    fds->push_back(fd);
    return CZK_OK;
}

// Lock descriptors that close unless handed over (start's early returns).
struct Locks {
    std::vector<int> fds;
    ~Locks() {
        for (int fd : fds)
            close(fd);
    }
};

bool given(const char *s) {
    return s != nullptr && s[0] != '\0';
}

// A PEM file's text, or an error naming the config key it came from.
int read_pem(const char *path, const char *key, std::string *out, czk_err *err) {
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    if (f)
        ss << f.rdbuf();
    if (!f || f.bad())
        return czk_err_set(err, CZK_EINVAL, "%s: cannot read '%s': %s", key, path,
                           std::strerror(errno));
    *out = ss.str();
    if (out->find("-----BEGIN ") == std::string::npos)
        return czk_err_set(err, CZK_EINVAL, "%s: '%s' is not a PEM file", key, path);
    return CZK_OK;
}

} // namespace

extern "C" const char *czk_grpc_security_name(czk_grpc_security sec) {
    switch (sec) {
    case CZK_GRPC_SEC_UNIX:
        return "insecure (unix socket, mode 0660)";
    case CZK_GRPC_SEC_LOOPBACK:
        return "insecure (loopback)";
    case CZK_GRPC_SEC_INSECURE_PUBLIC:
        return "INSECURE on a non-loopback address";
    case CZK_GRPC_SEC_TLS:
        return "TLS";
    case CZK_GRPC_SEC_MUTUAL_TLS:
        return "mutual TLS";
    case CZK_GRPC_SEC_REFUSED:
        break;
    }
    return "refused";
}

extern "C" int czk_grpc_listen_security(czk_grpc_security *sec, const char *addr,
                                        const czk_grpc_server_opts *opts, czk_err *err) {
    *sec = CZK_GRPC_SEC_REFUSED;
    std::string a = addr != nullptr ? addr : "";
    std::string fault = a.empty() ? "empty" : listen_fault(a);
    if (!fault.empty())
        return czk_err_set(err, CZK_EINVAL, "listen address '%s': %s", a.c_str(), fault.c_str());
    czk_grpc_server_opts none{};
    if (opts == nullptr)
        opts = &none;
    if (given(opts->tls_cert) != given(opts->tls_key))
        return czk_err_set(err, CZK_EINVAL,
                           "TLS needs both daemon.tls_cert and daemon.tls_key (--tls-cert, "
                           "--tls-key)");
    if (given(opts->tls_client_ca) && !given(opts->tls_cert))
        return czk_err_set(err, CZK_EINVAL,
                           "daemon.tls_client_ca (mutual TLS) needs daemon.tls_cert and "
                           "daemon.tls_key");
    if (a.rfind("unix:", 0) == 0) {
        *sec = CZK_GRPC_SEC_UNIX;
        return CZK_OK;
    }
    if (given(opts->tls_cert)) {
        *sec = given(opts->tls_client_ca) ? CZK_GRPC_SEC_MUTUAL_TLS : CZK_GRPC_SEC_TLS;
        return CZK_OK;
    }
    addrinfo *ai = resolve(a, err);
    if (ai == nullptr)
        return CZK_EINVAL;
    bool loopback = true;
    for (addrinfo *p = ai; p != nullptr; p = p->ai_next)
        loopback = loopback && is_loopback(p->ai_addr);
    freeaddrinfo(ai);
    if (loopback) {
        *sec = CZK_GRPC_SEC_LOOPBACK;
        return CZK_OK;
    }
    if (opts->insecure) {
        *sec = CZK_GRPC_SEC_INSECURE_PUBLIC;
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EINVAL,
                       "listen address '%s' is not a loopback address: serving it needs TLS "
                       "(daemon.tls_cert and daemon.tls_key; daemon.tls_client_ca for mutual "
                       "TLS), or plaintext said explicitly with --insecure (daemon.insecure)",
                       a.c_str());
}

extern "C" int czk_grpc_listen_check(const char *addr, czk_err *err) {
    std::string a = addr != nullptr ? addr : "";
    std::string fault = a.empty() ? "empty" : listen_fault(a);
    if (!fault.empty())
        return czk_err_set(err, CZK_EINVAL, "listen address '%s': %s", a.c_str(), fault.c_str());
    return a.rfind("unix:", 0) == 0 ? unix_check(a, false, err) : tcp_check(a, err);
}

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
    std::shared_ptr<grpc::ServerCredentials> tls;
    Locks locks;
    for (size_t i = 0; i < n_listen; i++) {
        czk_grpc_security sec;
        int rc = czk_grpc_listen_security(&sec, listen[i], opts, err);
        if (rc != CZK_OK)
            return rc;
        if ((sec == CZK_GRPC_SEC_TLS || sec == CZK_GRPC_SEC_MUTUAL_TLS) && tls == nullptr) {
            grpc::SslServerCredentialsOptions ssl(
                sec == CZK_GRPC_SEC_MUTUAL_TLS
                    ? GRPC_SSL_REQUEST_AND_REQUIRE_CLIENT_CERTIFICATE_AND_VERIFY
                    : GRPC_SSL_DONT_REQUEST_CLIENT_CERTIFICATE);
            grpc::SslServerCredentialsOptions::PemKeyCertPair pair;
            if ((rc = read_pem(opts->tls_cert, "daemon.tls_cert", &pair.cert_chain, err)) !=
                    CZK_OK ||
                (rc = read_pem(opts->tls_key, "daemon.tls_key", &pair.private_key, err)) != CZK_OK)
                return rc;
            if (sec == CZK_GRPC_SEC_MUTUAL_TLS &&
                (rc = read_pem(opts->tls_client_ca, "daemon.tls_client_ca", &ssl.pem_root_certs,
                               err)) != CZK_OK)
                return rc;
            ssl.pem_key_cert_pairs.push_back(pair);
            tls = grpc::SslServerCredentials(ssl);
        }
        // Before gRPC binds: gRPC unlinks whatever socket file is at a unix path, a live
        // daemon's included, and would share a TCP port it can bind.
        std::string path = unix_path(listen[i]);
        if (path.empty())
            rc = tcp_check(listen[i], err);
        else if ((rc = unix_lock(listen[i], &locks.fds, err)) == CZK_OK)
            rc = unix_check(listen[i], true, err);
        if (rc != CZK_OK)
            return rc;
    }
    auto *srv = new (std::nothrow) czk_grpc_server;
    if (srv == nullptr)
        return czk_err_set(err, CZK_ENOMEM, "no memory for the gRPC server");
    srv->service = std::make_unique<Service>(engine, opts->max_jobs_per_client);
    grpc::ServerBuilder b;
    // One daemon per address: with SO_REUSEPORT (gRPC's default) a second daemon binds the
    // same port and the kernel splits the connections between the two.
    b.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
    std::vector<int> ports(n_listen, 0);
    for (size_t i = 0; i < n_listen; i++) {
        czk_grpc_security sec;
        (void)czk_grpc_listen_security(&sec, listen[i], opts, nullptr);
        bool use_tls = sec == CZK_GRPC_SEC_TLS || sec == CZK_GRPC_SEC_MUTUAL_TLS;
        b.AddListeningPort(listen[i], use_tls ? tls : grpc::InsecureServerCredentials(), &ports[i]);
    }
    b.SetMaxReceiveMessageSize(static_cast<int>(max_msg_bytes));
    b.SetMaxSendMessageSize(static_cast<int>(max_msg_bytes));
    b.RegisterService(srv->service.get());
    // gRPC binds unix sockets with mode 0777 minus the umask: this umask makes them 0660 from
    // the start (no window in which anyone may connect); the chmod below makes it certain.
    mode_t old_mask = umask(0117);
    srv->server = b.BuildAndStart();
    umask(old_mask);
    int rc = CZK_OK;
    for (size_t i = 0; i < n_listen && rc == CZK_OK; i++) {
        std::string path = unix_path(listen[i]);
        if (srv->server == nullptr || (path.empty() && ports[i] == 0)) {
            // Another process may have taken the address since the check: say so if it did.
            rc = path.empty() ? tcp_check(listen[i], err) : CZK_OK;
            if (rc == CZK_OK)
                rc = czk_err_set(err, CZK_EIO, "cannot listen on %s", listen[i]);
        } else if (!path.empty() && chmod(path.c_str(), CZK_GRPC_UNIX_SOCKET_MODE) != 0) {
            rc = czk_err_set(err, CZK_EIO, "listen address '%s': chmod: %s", listen[i],
                             std::strerror(errno));
        } else if (path.empty() && bound_port != nullptr && *bound_port == 0) {
            *bound_port = ports[i];
        }
    }
    if (rc != CZK_OK) {
        if (srv->server != nullptr)
            srv->server->Shutdown();
        delete srv;
        if (bound_port != nullptr)
            *bound_port = 0;
        return rc;
    }
    srv->lock_fds.swap(locks.fds);
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
