/*
 * A Filecoin request, with the fields Curio sends, as a Filecoin kind's job (kinds.h). This is
 * the one place that knows how the proto's loose fields map onto a kind: which registered
 * proofs belong to which proof kind, which field carries the vanilla proofs, how many
 * partitions a sector size has. A server passes the fields through and gets back the circuit,
 * the payload and the counts; the kind's job_create then reads the payload in full.
 *
 * Messages name the request's fields as the proto spells them, since they go to the client
 * as they are (the daemon answers INVALID_ARGUMENT with them).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), curio@e0294b0f
 * (2026-08-20).
 */
#include <string.h>

#include "filecoin/io/params.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/spec/sector.h"
#include "kinds/kinds.h"
#include "util/alloc.h"

/* The proto's names of the kinds (ProofKind), for messages. */
static const char *proto_name(int kind) {
    switch (kind) {
    case CZK_FILECOIN_POREP:
        return "POREP_SEAL_COMMIT";
    case CZK_FILECOIN_SNAP:
        return "SNAP_DEALS_UPDATE";
    case CZK_FILECOIN_WINDOW_POST:
        return "WINDOW_POST_PARTITION";
    case CZK_FILECOIN_WINNING_POST:
        return "WINNING_POST";
    default:
        return NULL;
    }
}

typedef unsigned long long ull;

int czk_filecoin_circuit_id(char *out, size_t cap, int kind, uint64_t registered_proof,
                            czk_err *err) {
    const char *name = proto_name(kind);
    if (name == NULL)
        return czk_err_set(err, CZK_EINVAL, "proof_kind %d is not a Filecoin proof kind", kind);
    czk_err why = {0};
    if (kind == CZK_FILECOIN_POREP) {
        if (czk_kinds_porep_circuit_id(out, cap, registered_proof, &why) != CZK_OK)
            return czk_err_set(err, CZK_EINVAL, "registered_proof %llu: %s", (ull)registered_proof,
                               why.msg);
        return CZK_OK;
    }
    if (kind == CZK_FILECOIN_SNAP) {
        if (czk_kinds_snap_circuit_id(out, cap, registered_proof, &why) != CZK_OK)
            return czk_err_set(err, CZK_EINVAL,
                               "registered_proof %llu is not an update proof (abi "
                               "RegisteredUpdateProof 0-4)",
                               (ull)registered_proof);
        return CZK_OK;
    }
    czk_vanilla_post_type ty;
    if (czk_vanilla_post_type_from_abi(&ty, registered_proof, NULL) != CZK_OK)
        return czk_err_set(err, CZK_EINVAL, "registered_proof %llu is not a PoSt proof (0-14)",
                           (ull)registered_proof);
    int winning = kind == CZK_FILECOIN_WINNING_POST;
    if ((ty.kind == CZK_VANILLA_POST_WINNING) != winning)
        return czk_err_set(err, CZK_EINVAL, "registered_proof %llu is %s proof, the request %s",
                           (ull)registered_proof, winning ? "a WindowPoSt" : "a WinningPoSt", name);
    if (czk_kinds_filecoin_circuit_id(out, cap, registered_proof, &why) != CZK_OK)
        return czk_err_set(err, CZK_EINVAL, "registered_proof %llu: %s", (ull)registered_proof,
                           why.msg);
    return CZK_OK;
}

static int post_job(czk_filecoin_job *out, const czk_filecoin_request *r, czk_err *err) {
    if (r->vanilla_proof_len != 0)
        return czk_err_set(err, CZK_EINVAL,
                           "PoSt requests carry one vanilla proof per sector in vanilla_proofs, "
                           "not vanilla_proof");
    if (r->randomness_len != 32)
        return czk_err_set(err, CZK_EINVAL, "randomness is %zu bytes, not 32", r->randomness_len);
    if (r->num_partitions > 1)
        return czk_err_set(err, CZK_EINVAL, "a PoSt request proves one partition, not %u",
                           r->num_partitions);
    if (r->n_witness > 0)
        return czk_err_set(err, CZK_EINVAL, "a PoSt request carries vanilla proofs, not witnesses");
    size_t size = czk_kinds_filecoin_payload_size(r->vanilla_proofs_len, r->n_vanilla_proofs);
    if (size == 0)
        return czk_err_set(err, CZK_EINVAL, "vanilla_proofs too large");
    if ((out->payload = czk_malloc(size)) == NULL)
        return czk_err_set(err, CZK_ENOMEM, "no memory for a %zu-byte PoSt payload", size);
    out->payload_len = size;
    if (czk_kinds_filecoin_payload_encode(
            out->payload, (uint32_t)r->registered_proof, r->partition_index, r->miner_id,
            r->randomness, r->vanilla_proofs, r->vanilla_proofs_len, r->n_vanilla_proofs) != size)
        return czk_err_set(err, CZK_EINVAL,
                           "vanilla_proofs: a proof or their count exceeds 32 bits");
    out->n_partitions = 1;
    return CZK_OK;
}

static int porep_job(czk_filecoin_job *out, const czk_filecoin_request *r, czk_err *err) {
    if (r->vanilla_proof_len == 0 || r->n_vanilla_proofs > 0)
        return czk_err_set(err, CZK_EINVAL,
                           "a PoRep request carries its C1 output in vanilla_proof, and nothing "
                           "in vanilla_proofs");
    if (r->n_witness > 0)
        return czk_err_set(err, CZK_EINVAL, "a PoRep request carries a C1 output, not witnesses");
    if (r->sector_size != 0) {
        const czk_porep_type *ty = czk_porep_type_from_abi(r->registered_proof, NULL);
        if (ty != NULL && ty->sector_size != r->sector_size)
            return czk_err_set(err, CZK_EINVAL,
                               "sector_size %llu is not registered_proof %llu's (%llu)",
                               (ull)r->sector_size, (ull)r->registered_proof, (ull)ty->sector_size);
    }
    size_t size = CZK_POREP_PAYLOAD_HEADER + r->vanilla_proof_len;
    if (size < r->vanilla_proof_len || (out->payload = czk_malloc(size)) == NULL)
        return czk_err_set(err, CZK_ENOMEM, "no memory for a %zu-byte PoRep payload", size);
    /* Miner id 0 is the system actor, never a storage provider: a request without one is
     * proved without the replica id check (the C1 output is still checked in full). */
    out->payload_len = czk_kinds_porep_payload_encode(
        out->payload, (uint32_t)r->registered_proof, r->miner_id != 0 ? CZK_POREP_PAYLOAD_IDS : 0u,
        r->miner_id, r->sector_number, r->vanilla_proof, r->vanilla_proof_len);
    /* 0 is the C1 output's count: job_create takes any count it is not told, and 1 is how
     * requests have always reached it (the engine's idempotency digest includes it). */
    out->n_partitions = r->num_partitions != 0 ? r->num_partitions : 1;
    return CZK_OK;
}

static int snap_job(czk_filecoin_job *out, const czk_filecoin_request *r, czk_err *err) {
    uint64_t size = 0;
    if (czk_kinds_snap_sector_size(&size, r->registered_proof, err) != CZK_OK)
        return CZK_EINVAL; /* czk_filecoin_circuit_id has refused it already */
    if (r->sector_size != 0 && r->sector_size != size)
        return czk_err_set(err, CZK_EINVAL,
                           "sector_size %llu is not registered_proof %llu's (%llu)",
                           (ull)r->sector_size, (ull)r->registered_proof, (ull)size);
    if (r->vanilla_proof_len != 0)
        return czk_err_set(err, CZK_EINVAL,
                           "a SnapDeals request carries one vanilla proof per partition in "
                           "vanilla_proofs, not vanilla_proof");
    if (r->n_witness > 0)
        return czk_err_set(err, CZK_EINVAL,
                           "a SnapDeals request carries vanilla proofs, not witnesses");
    const size_t lens[3] = {r->comm_r_old_len, r->comm_r_new_len, r->comm_d_new_len};
    static const char *const names[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};
    for (int i = 0; i < 3; i++)
        if (lens[i] != 32)
            return czk_err_set(err, CZK_EINVAL, "%s is %zu bytes, not 32%s", names[i], lens[i],
                               lens[i] == 0 ? " (missing)" : "");
    /* 1 partition at 2 KiB, 4 at 8 MiB, 16 above (storage-proofs-update constants.rs). */
    size_t parts = size <= 8192 ? 1 : size <= (16u << 20) ? 4 : 16;
    if (r->n_vanilla_proofs != parts)
        return czk_err_set(err, CZK_EINVAL,
                           "%zu vanilla_proofs; a %llu-byte sector's update takes %zu (one per "
                           "partition, in order)",
                           r->n_vanilla_proofs, (ull)size, parts);
    if (r->num_partitions != 0 && r->num_partitions != parts)
        return czk_err_set(err, CZK_EINVAL, "num_partitions %u, but a %llu-byte update has %zu",
                           r->num_partitions, (ull)size, parts);
    size_t plen = czk_kinds_snap_payload_size(r->vanilla_proofs_len, r->n_vanilla_proofs);
    if (plen == 0)
        return czk_err_set(err, CZK_EINVAL, "vanilla_proofs too large");
    if ((out->payload = czk_malloc(plen)) == NULL)
        return czk_err_set(err, CZK_ENOMEM, "no memory for a %zu-byte SnapDeals payload", plen);
    out->payload_len = plen;
    if (czk_kinds_snap_payload_encode(out->payload, (uint32_t)r->registered_proof, r->miner_id,
                                      r->sector_number, r->comm_r_old, r->comm_r_new, r->comm_d_new,
                                      r->vanilla_proofs, r->vanilla_proofs_len,
                                      r->n_vanilla_proofs) != plen)
        return czk_err_set(err, CZK_EINVAL,
                           "vanilla_proofs: a proof or their count exceeds 32 bits");
    out->n_partitions = parts;
    return CZK_OK;
}

int czk_filecoin_job_from_request(czk_filecoin_job *out, const czk_filecoin_request *req,
                                  czk_err *err) {
    memset(out, 0, sizeof *out);
    const char *name = proto_name(req->kind);
    if (name == NULL)
        return czk_err_set(err, CZK_EINVAL, "proof_kind %d is not a Filecoin proof kind",
                           req->kind);
    if (req->vanilla_proof_len == 0 && req->n_vanilla_proofs == 0)
        return czk_err_set(err, CZK_EINVAL, "%s request without vanilla_proof(s)", name);
    int rc = czk_filecoin_circuit_id(out->circuit_id, sizeof out->circuit_id, req->kind,
                                     req->registered_proof, err);
    if (rc != CZK_OK)
        return rc;
    switch (req->kind) {
    case CZK_FILECOIN_POREP:
        return porep_job(out, req, err);
    case CZK_FILECOIN_SNAP:
        return snap_job(out, req, err);
    default:
        return post_job(out, req, err);
    }
}

void czk_filecoin_job_clear(czk_filecoin_job *job) {
    if (job == NULL)
        return;
    czk_free(job->payload);
    memset(job, 0, sizeof *job);
}
