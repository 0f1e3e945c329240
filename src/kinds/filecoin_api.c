/*
 * include/czk_filecoin.h's registration, file names and verification (the request mapping is
 * filecoin_request.c's). Verification is the chain's: the public inputs of each partition are
 * derived from the public data alone (post/post_inputs.h, porep/porep_inputs.h, snap/snap.h),
 * the same functions the kinds use to check the proofs they make, and each 192-byte proof is
 * checked against the v28 .vk with them.
 *
 * Upstream code cited here was read at filecoin-ffi@de13e648 (verify_seal,
 * verify_window_post, verify_winning_post, verify_empty_sector_update_proof).
 */
#include <stdio.h>
#include <string.h>

#include "czk_filecoin.h"
#include "filecoin/io/params.h"
#include "filecoin/porep/porep_inputs.h"
#include "filecoin/post/post_inputs.h"
#include "filecoin/snap/snap.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/spec/sector.h"
#include "formats/bellperson.h"
#include "groth16/verify.h"
#include "kinds/kinds.h"
#include "util/alloc.h"

_Static_assert((int)CZK_FILECOIN_FILE_PARAMS == (int)CZK_PARAMS_EXT_PARAMS &&
                   (int)CZK_FILECOIN_FILE_VK == (int)CZK_PARAMS_EXT_VK &&
                   (int)CZK_FILECOIN_FILE_META == (int)CZK_PARAMS_EXT_META,
               "czk_filecoin_file and czk_params_ext number the files alike");

typedef unsigned long long ull;

int czk_filecoin_register(czk_engine *e, const char *param_dir, const char *env_value,
                          czk_err *err) {
    int rc = czk_kinds_register_filecoin_posts(e, param_dir, env_value, err);
    if (rc == CZK_OK)
        rc = czk_kinds_register_filecoin_poreps(e, param_dir, env_value, err);
    if (rc == CZK_OK)
        rc = czk_kinds_register_filecoin_snaps(e, param_dir, env_value, err);
    return rc;
}

const char *czk_filecoin_params_dir(const char *param_dir, const char *env_value) {
    return czk_params_cache_dir(param_dir, env_value);
}

/* What one registered proof of a kind is: its parameter set, partitions and public inputs per
 * partition (ONE excluded). */
typedef struct target {
    czk_params_id params;
    uint32_t partitions;
    size_t n_inputs;
    czk_vanilla_post_type post;  /* PoSt */
    const czk_porep_type *porep; /* PoRep */
    czk_snap_shape snap;         /* SnapDeals */
} target;

static int target_of(target *t, int kind, uint64_t registered_proof, czk_err *err) {
    memset(t, 0, sizeof *t);
    char circuit[CZK_ID_MAX + 1];
    int rc = czk_filecoin_circuit_id(circuit, sizeof circuit, kind, registered_proof, err);
    if (rc != CZK_OK)
        return rc;
    if (kind == CZK_FILECOIN_POREP) {
        if ((t->porep = czk_porep_type_from_abi(registered_proof, err)) == NULL)
            return CZK_EINVAL;
        t->partitions = t->porep->partitions;
        t->n_inputs = czk_porep_public_count(t->porep);
        return czk_params_id_get(&t->params, CZK_PARAMS_POREP, t->porep->sector_size, err);
    }
    if (kind == CZK_FILECOIN_SNAP) {
        uint64_t size = 0;
        if ((rc = czk_kinds_snap_sector_size(&size, registered_proof, err)) != CZK_OK ||
            (rc = czk_snap_shape_init(&t->snap, size, err)) != CZK_OK)
            return rc;
        t->partitions = t->snap.partitions;
        t->n_inputs = 4;
        return czk_params_id_get(&t->params, CZK_PARAMS_SNAP, size, err);
    }
    if ((rc = czk_vanilla_post_type_from_abi(&t->post, registered_proof, err)) != CZK_OK)
        return rc;
    size_t slots, k;
    t->partitions = 1;
    t->n_inputs = czk_public_inputs_post_dims(&slots, &k, &t->post);
    return czk_params_id_for_post(&t->params, &t->post, err);
}

int czk_filecoin_params_name(char *out, size_t cap, int kind, uint64_t registered_proof,
                             czk_filecoin_file file, czk_err *err) {
    if (cap > 0)
        out[0] = '\0';
    /* The two enums number the three files alike (0 .params, 1 .vk, 2 .meta). */
    if (file != CZK_FILECOIN_FILE_PARAMS && file != CZK_FILECOIN_FILE_VK &&
        file != CZK_FILECOIN_FILE_META)
        return czk_err_set(err, CZK_EINVAL, "file %d is not a parameter file kind", (int)file);
    target t;
    int rc = target_of(&t, kind, registered_proof, err);
    if (rc != CZK_OK)
        return rc;
    return czk_params_file_name(out, cap, &t.params, (czk_params_ext)file, err);
}

/* ---- verification ------------------------------------------------------------------------- */

/* The result of deriving public inputs (rc, with the lower layer's message in *why): a public
 * value that is no field element means the proof cannot be valid for it (CZK_EVERIFY); any
 * other failure is passed on with its message. */
static int derived(czk_err *err, int rc, const czk_err *why) {
    if (rc == CZK_OK)
        return CZK_OK;
    return czk_err_set(err, rc == CZK_ERANGE ? CZK_EVERIFY : rc, "%s", czk_err_text(why, rc));
}

/* PoSt: one partition's inputs, from its sectors, randomness and index. */
static int post_inputs(czk_fr *in, const target *t, const czk_filecoin_public *pub, czk_err *err) {
    if (pub->n_sectors == 0 || pub->sectors == NULL)
        return czk_err_set(err, CZK_EINVAL, "a PoSt proof is verified against its sectors: none");
    if (pub->n_sectors > t->post.sector_count)
        return czk_err_set(err, CZK_EINVAL,
                           "%zu sectors; a partition of registered PoSt proof %u has at most %u",
                           pub->n_sectors, t->post.abi_id, t->post.sector_count);
    czk_public_inputs_sector *ps = czk_malloc(pub->n_sectors * sizeof *ps);
    if (ps == NULL)
        return czk_err_set(err, CZK_ENOMEM, "no memory for %zu sectors", pub->n_sectors);
    int rc = CZK_OK;
    for (size_t i = 0; rc == CZK_OK && i < pub->n_sectors; i++) {
        ps[i].sector_id = pub->sectors[i].sector_number;
        if (czk_fr_from_bytes_le(&ps[i].comm_r, pub->sectors[i].comm_r) != CZK_OK)
            rc = czk_err_set(err, CZK_EVERIFY, "sector %zu's comm_r is not a field element", i);
    }
    czk_err why = {0};
    if (rc == CZK_OK) {
        rc = derived(err,
                     czk_public_inputs_post_derive(in, t->n_inputs, &t->post, pub->randomness,
                                                   pub->partition_index, ps, pub->n_sectors, &why),
                     &why);
    }
    czk_free(ps);
    return rc;
}

/* PoRep: partition k's inputs; the replica id is computed once by the caller. */
static int porep_inputs(czk_fr *in, const target *t, const czk_filecoin_public *pub,
                        const uint8_t replica_id[32], uint32_t k, czk_err *err) {
    czk_err why = {0};
    int rc = czk_porep_public_inputs(in, t->n_inputs, t->porep, replica_id, pub->comm_d,
                                     pub->comm_r, pub->seed, k, &why);
    return derived(err, rc, &why);
}

static int snap_inputs(czk_fr *in, const target *t, const czk_filecoin_public *pub, uint32_t k,
                       czk_err *err) {
    czk_snap_public sp;
    memcpy(sp.comm_r_old, pub->comm_r_old, 32);
    memcpy(sp.comm_r_new, pub->comm_r_new, 32);
    memcpy(sp.comm_d_new, pub->comm_d_new, 32);
    /* h_default, as filecoin-proofs' update API proves with: hs[3] is 10 (1 at 2 KiB). */
    sp.h = t->snap.hs[3];
    czk_err why = {0};
    return derived(err, czk_snap_public_inputs(in, &t->snap, &sp, k, &why), &why);
}

/* The .vk of t, read and prepared. */
static int open_vk(czk_groth16_pvk *pvk, const target *t, const char *param_dir,
                   const char *env_value, czk_err *err) {
    char path[4096];
    czk_groth16_vk vk;
    memset(&vk, 0, sizeof vk);
    int rc = czk_params_find(path, sizeof path, &t->params, CZK_PARAMS_EXT_VK, param_dir, env_value,
                             err);
    if (rc == CZK_OK)
        rc = czk_bellperson_vk_read(&vk, path, err);
    if (rc == CZK_OK && vk.n_ic != t->n_inputs + 1)
        rc = czk_err_set(err, CZK_EINVAL, "%s has %zu public inputs; this proof has %zu", path,
                         vk.n_ic - 1, t->n_inputs);
    if (rc == CZK_OK)
        rc = czk_groth16_pvk_prepare(pvk, &vk, err);
    czk_groth16_vk_clear(&vk);
    return rc;
}

int czk_filecoin_verify(const czk_filecoin_public *pub, const uint8_t *proof, size_t proof_len,
                        const char *param_dir, const char *env_value, czk_err *err) {
    target t;
    int rc = target_of(&t, pub->kind, pub->registered_proof, err);
    if (rc != CZK_OK)
        return rc;
    size_t want = (size_t)t.partitions * CZK_PROOF_BYTES;
    if (proof == NULL)
        proof_len = 0;
    if (proof_len != want)
        return czk_err_set(err, CZK_EINVAL,
                           "the proof is %zu bytes, %s: registered proof %llu has %u "
                           "partition(s) of %d bytes",
                           proof_len, proof_len < want ? "short" : "too long",
                           (ull)pub->registered_proof, t.partitions, CZK_PROOF_BYTES);
    uint8_t replica_id[32];
    if (pub->kind == CZK_FILECOIN_POREP) {
        if (pub->replica_id != NULL) {
            memcpy(replica_id, pub->replica_id, 32);
        } else {
            uint8_t prover[32], porep_id[32];
            czk_vanilla_prover_id(prover, pub->miner_id);
            czk_porep_id(porep_id, t.porep);
            if ((rc = czk_porep_replica_id(replica_id, prover, pub->sector_number, pub->ticket,
                                           pub->comm_d, porep_id, err)) != CZK_OK)
                return rc;
        }
    }
    czk_groth16_pvk pvk;
    memset(&pvk, 0, sizeof pvk);
    czk_fr *in = czk_malloc(t.n_inputs * sizeof *in);
    if (in == NULL)
        return czk_err_set(err, CZK_ENOMEM, "no memory for %zu public inputs", t.n_inputs);
    /* Public data first: a request that cannot be checked fails before any file is read. */
    if (pub->kind != CZK_FILECOIN_POREP && pub->kind != CZK_FILECOIN_SNAP)
        rc = post_inputs(in, &t, pub, err);
    if (rc == CZK_OK)
        rc = open_vk(&pvk, &t, param_dir, env_value, err);
    for (uint32_t k = 0; rc == CZK_OK && k < t.partitions; k++) {
        if (pub->kind == CZK_FILECOIN_POREP)
            rc = porep_inputs(in, &t, pub, replica_id, k, err);
        else if (pub->kind == CZK_FILECOIN_SNAP)
            rc = snap_inputs(in, &t, pub, k, err);
        czk_groth16_proof p;
        czk_err why = {0};
        if (rc == CZK_OK &&
            czk_bellperson_proof_decode(&p, proof + (size_t)k * CZK_PROOF_BYTES, &why) != CZK_OK)
            rc = czk_err_set(err, CZK_EVERIFY, "partition %u's proof: %s", k, why.msg);
        if (rc == CZK_OK) {
            rc = czk_groth16_verify(&pvk, &p, in, t.n_inputs, &why);
            if (rc == CZK_EVERIFY)
                czk_err_set(err, rc, "partition %u's proof does not verify for the public data", k);
            else if (rc != CZK_OK)
                czk_err_set(err, rc, "partition %u: %s", k, czk_err_text(&why, rc));
        }
    }
    czk_free(in);
    czk_groth16_pvk_clear(&pvk);
    return rc;
}
