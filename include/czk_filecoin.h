/*
 * czk_filecoin: Filecoin's proofs on the czk engine, for embedders (doc/API.md §5.2).
 *
 * Four proof kinds, as Curio asks for them: PoRep C2 (a sector's seal, from its C1 output),
 * SnapDeals (a sector update), WindowPoSt (one partition) and WinningPoSt. Each registered
 * proof (Go's abi.RegisteredSealProof, RegisteredUpdateProof or RegisteredPoStProof) names a
 * circuit of the engine ("porep-32GiB", "snap-32GiB", "window-post-32GiB",
 * "winning-post-32GiB") whose key is Filecoin's official v28 parameter file. With this header
 * an embedder
 *   - registers those circuits on an engine (czk_filecoin_register);
 *   - turns a request with Curio's fields into a job (czk_filecoin_job_from_request), which it
 *     submits with czk_engine_submit;
 *   - verifies a proof from its public data alone, as a chain verifier would
 *     (czk_filecoin_verify);
 *   - names the v28 files a proof needs and the directory they are looked for in.
 *
 * Every proof the engine returns was verified before it was handed out. Functions here
 * read no environment: a caller that follows rust-fil-proofs passes
 * getenv(CZK_FILECOIN_PARAMS_ENV) as `env_value`. Thread-safe (no global state); variable time
 * (everything here is public).
 */
#ifndef CZK_FILECOIN_H
#define CZK_FILECOIN_H

#include <stddef.h>
#include <stdint.h>

#include "czk.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The environment variable rust-fil-proofs reads for its parameter directory, and the
 * directory it uses without one. */
#define CZK_FILECOIN_PARAMS_ENV "FIL_PROOFS_PARAMETER_CACHE"
#define CZK_FILECOIN_PARAMS_DEFAULT_DIR "/var/tmp/filecoin-proof-parameters"

/* The Filecoin proof kinds, numbered as cuzk's ProofKind (proto/cuzk/v1/proving.proto), so
 * that a server passes the proto's number through. */
typedef enum czk_filecoin_kind {
    CZK_FILECOIN_POREP = 1,        /* POREP_SEAL_COMMIT: PoRep C2 from a C1 output */
    CZK_FILECOIN_SNAP = 2,         /* SNAP_DEALS_UPDATE: one vanilla proof per partition */
    CZK_FILECOIN_WINDOW_POST = 3,  /* WINDOW_POST_PARTITION: one partition's sectors */
    CZK_FILECOIN_WINNING_POST = 4, /* WINNING_POST: one sector */
} czk_filecoin_kind;

/* ---- circuits and files ----------------------------------------------------------------- */

/*
 * Registers every Filecoin circuit on `e`: WinningPoSt, WindowPoSt, PoRep and SnapDeals at
 * 2 KiB, 8 MiB, 512 MiB, 32 GiB and 64 GiB (20 circuits). Keys are looked for when a circuit
 * is first loaded, in czk_filecoin_params_dir(param_dir, env_value), so registering needs no
 * file. Returns CZK_OK, CZK_EINVAL (a circuit of that id is already registered) or CZK_ENOMEM.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_filecoin_register(czk_engine *e, const char *param_dir,
                                                         const char *env_value, czk_err *err)
    CZK_NONNULL(1);

/*
 * The directory keys are looked for in, as rust-fil-proofs picks it: `param_dir` when set,
 * else `env_value` when set, else CZK_FILECOIN_PARAMS_DEFAULT_DIR (an empty string counts as
 * unset). Returns one of the three pointers.
 */
CZK_API const char *czk_filecoin_params_dir(const char *param_dir, const char *env_value);

/*
 * The engine circuit that proves `registered_proof` of proof kind `kind`, into out[0..cap)
 * ("window-post-32GiB"). Returns CZK_OK, or CZK_EINVAL with the reason: not a Filecoin kind, a
 * registered proof out of range or of another kind, one czk does not prove (non-interactive
 * PoRep), or out too small.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_filecoin_circuit_id(char *out, size_t cap, int kind,
                                                           uint64_t registered_proof, czk_err *err)
    CZK_NONNULL(1);

/* The three files of one v28 parameter set. */
typedef enum czk_filecoin_file {
    CZK_FILECOIN_FILE_PARAMS = 0, /* the proving key (.params) */
    CZK_FILECOIN_FILE_VK = 1,     /* the verifying key (.vk) */
    CZK_FILECOIN_FILE_META = 2,   /* {"sector_size": N} (.meta) */
} czk_filecoin_file;

/* Bytes that hold any name czk_filecoin_params_name writes (the longest is 151). */
#define CZK_FILECOIN_PARAMS_NAME_MAX 192

/*
 * The name of the v28 file a proof of `kind` and `registered_proof` uses, as rust-fil-proofs'
 * parameters.json lists it ("v28-proof-of-spacetime-fallback-merkletree-poseidon_hasher-8-8-0-
 * 0377ded6….params"), into out[0..cap). WindowPoSt's API 1.0 and 1.2 proofs share one set.
 * Returns as czk_filecoin_circuit_id.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_filecoin_params_name(char *out, size_t cap, int kind,
                                                            uint64_t registered_proof,
                                                            czk_filecoin_file file, czk_err *err)
    CZK_NONNULL(1);

/* ---- requests ----------------------------------------------------------------------------- */

/*
 * A Filecoin proof request with Curio's fields (cuzk's SubmitProofRequest), borrowed for the
 * call. A byte field is a pointer and a length; length 0 is a field not sent.
 */
typedef struct czk_filecoin_request {
    int kind;                  /* czk_filecoin_kind */
    uint64_t registered_proof; /* Go abi RegisteredPoStProof, RegisteredSealProof or
                                  RegisteredUpdateProof, by kind */
    uint64_t sector_size;      /* 0: not sent; otherwise it must be registered_proof's */
    uint64_t sector_number;
    uint64_t miner_id;
    uint32_t partition_index;     /* PoSt */
    uint32_t num_partitions;      /* 0: registered_proof's */
    const uint8_t *vanilla_proof; /* PoRep: the C1 output */
    size_t vanilla_proof_len;
    const uint8_t *const *vanilla_proofs; /* PoSt: one per sector; SnapDeals: one per partition */
    const size_t *vanilla_proofs_len;
    size_t n_vanilla_proofs;
    const uint8_t *randomness; /* PoSt: 32 bytes */
    size_t randomness_len;
    const uint8_t *comm_r_old, *comm_r_new, *comm_d_new; /* SnapDeals: 32 bytes each */
    size_t comm_r_old_len, comm_r_new_len, comm_d_new_len;
    size_t n_witness; /* generic circuits' witnesses sent along (a Filecoin kind takes none) */
} czk_filecoin_request;

/* The czk_job_request fields a Filecoin request decides. The caller adds the ids, the client,
 * the queue name and the priority: those follow the proof kind alone (the proto defines them
 * for any request that names one), not the Filecoin fields. */
typedef struct czk_filecoin_job {
    char circuit_id[CZK_ID_MAX + 1];
    size_t n_partitions;
    uint8_t *payload; /* the kind's payload, czk_malloc'ed */
    size_t payload_len;
} czk_filecoin_job;

/*
 * Maps a Filecoin request onto its circuit's job: the circuit its registered proof names,
 * checked against the proof kind, the partition count and the payload the circuit's kind
 * reads. Checks what the request's shape leaves open (lengths, counts, the sector size); the
 * vanilla proofs themselves are checked when the job is submitted. *out is overwritten;
 * clear it with czk_filecoin_job_clear (also after an error). Returns CZK_OK, CZK_EINVAL with
 * a message naming the field and the fault (meant for the client as is), or CZK_ENOMEM.
 *
 *   czk_filecoin_job job;
 *   if (czk_filecoin_job_from_request(&job, &req, &err) == CZK_OK) {
 *       czk_job_request q = {.request_id = id, .circuit_id = job.circuit_id,
 *                            .n_partitions = job.n_partitions, .payload = job.payload,
 *                            .payload_len = job.payload_len};
 *       rc = czk_engine_submit(e, &q, job_id, NULL, NULL, &err);
 *   }
 *   czk_filecoin_job_clear(&job);
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_filecoin_job_from_request(czk_filecoin_job *out,
                                                                 const czk_filecoin_request *req,
                                                                 czk_err *err) CZK_NONNULL(1, 2);

/* Frees a job's payload and zeroes it; NULL is a no-op. */
CZK_API void czk_filecoin_job_clear(czk_filecoin_job *job);

/* ---- verification ------------------------------------------------------------------------- */

/* One sector of a PoSt partition: its number and its sealed commitment (a field element,
 * 32 bytes little-endian, as Curio's CommR). */
typedef struct czk_filecoin_sector {
    uint64_t sector_number;
    uint8_t comm_r[32];
} czk_filecoin_sector;

/* The public data a proof is verified against (filecoin-ffi's verify_seal, verify_window_post,
 * verify_winning_post and verify_empty_sector_update_proof take the same). Every 32-byte value
 * is a field element, little-endian. Fields another kind uses are ignored. */
typedef struct czk_filecoin_public {
    int kind;                  /* czk_filecoin_kind */
    uint64_t registered_proof; /* as in czk_filecoin_request */
    /* PoSt: the partition's sectors in request order (WinningPoSt: the one challenged
     * sector), the challenge randomness and the partition's index (WinningPoSt 0). */
    const czk_filecoin_sector *sectors;
    size_t n_sectors;
    uint8_t randomness[32];
    uint32_t partition_index;
    /* PoRep: the replica id is the one of miner_id's sector_number with this ticket and
     * comm_d, unless `replica_id` points at one (a C1 output carries its own). */
    uint64_t miner_id, sector_number;
    uint8_t comm_r[32], comm_d[32], ticket[32], seed[32];
    const uint8_t *replica_id;
    /* SnapDeals: the update's commitments. */
    uint8_t comm_r_old[32], comm_r_new[32], comm_d_new[32];
} czk_filecoin_public;

/*
 * Verifies `proof` (192 bytes per partition, concatenated in partition order: 1 for a PoSt
 * partition, the registered proof's count for PoRep and SnapDeals) against `pub`, with the
 * v28 .vk file found as czk_filecoin_params_dir(param_dir, env_value) says. Returns CZK_OK
 * when every partition's proof is valid; CZK_EVERIFY when one is not, its bytes are not
 * points of the groups, or a public value is not a field element (the message names which);
 * CZK_EINVAL for a request that cannot be checked (as czk_filecoin_circuit_id, a proof of
 * the wrong length, a sector count the partition cannot have, a .vk for another circuit);
 * CZK_ENOTFOUND naming the directory and the file when the .vk is not there; the reader's
 * error (CZK_EIO, CZK_EFORMAT, …) for a bad .vk; CZK_ENOMEM.
 */
CZK_API CZK_WARN_UNUSED_RESULT int czk_filecoin_verify(const czk_filecoin_public *pub,
                                                       const uint8_t *proof, size_t proof_len,
                                                       const char *param_dir, const char *env_value,
                                                       czk_err *err) CZK_NONNULL(1);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_H */
