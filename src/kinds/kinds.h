/*
 * The circuit kinds czk ships (engine/kind.h says what a kind is). Each kind's registration
 * function is public API (include/czk.h: czk_engine_register_circuit for generic circuits,
 * czk_engine_register_synthetic); this header adds the options that only in-tree callers set.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04),
 * filecoin-ffi@de13e648, bellperson 0.27.0 (@d1fa22cb), curio@e0294b0f (2026-08-20).
 */
#ifndef CZK_KINDS_KINDS_H
#define CZK_KINDS_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include "czk.h"
#include "czk_filecoin.h"
#include "formats/key_check.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Options of a generic circuit (a .zkey, or a .params with an R1CS, and .wtns witnesses). */
typedef struct czk_generic_opts {
    /* Point checks when the key is read, when key_check_set: CZK_KEY_CHECK_CURVE (on the
     * curve, as bellperson: every proof is verified, so a bad key cannot pass a bad proof) or
     * CZK_KEY_CHECK_FULL (also in the subgroup). Unset: a .zkey is checked in full (it is
     * small next to what it costs to make one) and a .params on the curve only. */
    int key_check_set;
    czk_key_check key_check;
    /* 1: synthesis checks that each witness satisfies the R1CS and fails the partition naming
     * the first failing constraint, before any proving (costs one pass over the matrices; a
     * .zkey carries no C matrix, so only A and B rows are checked there). */
    int check_witness;
} czk_generic_opts;

/*
 * As czk_engine_register_circuit, with options (NULL: the defaults above, as the public
 * function uses).
 */
int czk_kinds_register_generic(czk_engine *e, const char *circuit_id, const char *key_path,
                               const char *r1cs_path, const czk_generic_opts *opts, czk_err *err);

/* ---- Filecoin PoSt (filecoin.c) ------------------------------------------------------- */

/*
 * One circuit per PoSt kind and sector size, with ids "winning-post-<size>" and
 * "window-post-<size>", size one of 2KiB, 8MiB, 512MiB, 32GiB, 64GiB. Its key is the v28
 * .params file of params.h, looked up at load in one directory (czk_params_cache_dir of
 * `param_dir` and `env_value`: the caller passes getenv(CZK_PARAMS_ENV_VAR), library code reads
 * no environment).
 *
 * A job is one partition. Its payload (czk_job_request.payload) is, all integers little-endian:
 *   magic "CZKP" · u32 version (1) · u32 registered_proof (Go abi.RegisteredPoStProof, 0–14)
 *   · u32 partition_index · u64 miner_id · randomness [32] (a field element, LE, < r)
 *   · u32 n · n × (u32 len · len bytes of one bincode FallbackPoStSectorProof, vanilla.h)
 * with nothing after the last proof. WinningPoSt takes 1 proof (its challenged sector) and
 * partition 0; WindowPoSt 1 to the type's sector count, in request order. miner_id is carried
 * for logs only: the circuit does not depend on it (WinningPoSt's sector choice needs the
 * sector set, which the request does not carry).
 */
#define CZK_FILECOIN_PAYLOAD_VERSION 1
#define CZK_FILECOIN_PAYLOAD_HEADER 60 /* bytes before the first proof's length */

/* The circuit id of a registered PoSt proof (0–14) into out[0..cap). Returns CZK_OK,
 * CZK_EUNSUPPORTED for another number, CZK_EINVAL when it does not fit. */
int czk_kinds_filecoin_circuit_id(char *out, size_t cap, uint64_t registered_proof, czk_err *err);

/* The payload's size for these proofs, or 0 when it would overflow. */
size_t czk_kinds_filecoin_payload_size(const size_t *lens, size_t n);

/* Writes the payload into out[0..czk_kinds_filecoin_payload_size(lens, n)). Returns the bytes
 * written, 0 when a length exceeds 32 bits or n exceeds 32 bits. */
size_t czk_kinds_filecoin_payload_encode(uint8_t *out, uint32_t registered_proof,
                                         uint32_t partition_index, uint64_t miner_id,
                                         const uint8_t randomness[32], const uint8_t *const *proofs,
                                         const size_t *lens, size_t n);

/*
 * The largest PoSt circuit (rows) kept as a whole recording while its key is loaded (1.5 KB a
 * row with its attach): every one but WindowPoSt 32/64 GiB (125 M and 130 M rows, 41 GB
 * recorded), which is kept in its repeated form (r1cs/rep.h, 18 MB) and proves only on devices
 * that expand it (a GPU): the CPU refuses such a circuit (the job fails, naming why).
 */
#define CZK_KINDS_POST_RECORD_MAX_ROWS (1ull << 24)

/* czk_kinds_register_filecoin_post's flags: keep the repeated form whatever the size (for
 * the checks and benchmarks of that path on small circuits). */
#define CZK_KINDS_POST_REPEATED 1u

/* Registers one PoSt circuit (kind 1 winning, 2 window, as czk_vanilla_post_kind) under its id.
 * Counts one sector slot of the circuit (milliseconds), so the estimate is cheap. flags: 0 or
 * CZK_KINDS_POST_REPEATED. Returns CZK_OK, CZK_EUNSUPPORTED (size), CZK_EINVAL or CZK_ENOMEM. */
int czk_kinds_register_filecoin_post(czk_engine *e, int kind, uint64_t sector_size,
                                     const char *param_dir, const char *env_value, unsigned flags,
                                     czk_err *err);

/* Registers all ten PoSt circuits (keys are only looked for at load). */
int czk_kinds_register_filecoin_posts(czk_engine *e, const char *param_dir, const char *env_value,
                                      czk_err *err);

/* ---- Filecoin PoRep C2 (filecoin_porep.c) --------------------------------------------- */

/*
 * One circuit per sector size, id "porep-<size>", keyed by the v28 PoRep .params (params.h),
 * looked up as for PoSt. A job is one C2 proof; its partitions are the registered proof's.
 * Its payload, integers little-endian:
 *   magic "CZKR" · u32 version (1) · u32 registered_proof (Go abi.RegisteredSealProof, 0–19)
 *   · u32 flags · u64 miner_id · u64 sector_number · the C1 output (filecoin/io/c1.h:
 *   filecoin-ffi's JSON or Curio's wrapper), to the end.
 * With CZK_POREP_PAYLOAD_IDS in flags, the replica id is recomputed from miner and sector and
 * must be the C1 output's (Curio always sends both; a file proved from the command line may
 * come without them).
 */
#define CZK_POREP_PAYLOAD_VERSION 1
#define CZK_POREP_PAYLOAD_HEADER 32
#define CZK_POREP_PAYLOAD_IDS 1u

/* The largest PoRep partition (rows) whose counts registration takes from a full COUNT pass
 * and whose recording the engine holds as an ordinary system (any device, the CPU included,
 * can prove it). Above it (32/64 GiB, 130 M rows) the counts are estimated from one
 * challenge, and load keeps the partition in its repeated form (r1cs/rep.h): the global part
 * and one of its 18 challenges, 1.5 GB beside the 44 GiB key where the whole recording took
 * 26 GB. It proves on devices that expand it (a GPU); the CPU refuses such a circuit. */
#define CZK_KINDS_POREP_COUNT_MAX_ROWS (1ull << 24)

/* czk_kinds_register_filecoin_porep_flags's flags: keep the repeated form whatever the size
 * (for the checks and benchmarks of that path on small circuits). */
#define CZK_KINDS_POREP_REPEATED 1u

/* The circuit id of a registered seal proof (0–19) into out[0..cap): "porep-2KiB". Returns
 * CZK_OK, CZK_EUNSUPPORTED for another number, CZK_EINVAL when it does not fit. */
int czk_kinds_porep_circuit_id(char *out, size_t cap, uint64_t registered_proof, czk_err *err);

/* Writes the payload into out[0 .. CZK_POREP_PAYLOAD_HEADER + c1_len); returns its size. */
size_t czk_kinds_porep_payload_encode(uint8_t *out, uint32_t registered_proof, uint32_t flags,
                                      uint64_t miner_id, uint64_t sector_number, const uint8_t *c1,
                                      size_t c1_len);

/* Registers the PoRep circuit of one sector size (counts a partition of the sizes it can
 * prove: about a second). Returns CZK_OK, CZK_EUNSUPPORTED (size), CZK_EINVAL or CZK_ENOMEM. */
int czk_kinds_register_filecoin_porep(czk_engine *e, uint64_t sector_size, const char *param_dir,
                                      const char *env_value, czk_err *err);

/* As czk_kinds_register_filecoin_porep, with flags 0 or CZK_KINDS_POREP_REPEATED. */
int czk_kinds_register_filecoin_porep_flags(czk_engine *e, uint64_t sector_size,
                                            const char *param_dir, const char *env_value,
                                            unsigned flags, czk_err *err);

/* Registers the five PoRep circuits (keys are only looked for at load). */
int czk_kinds_register_filecoin_poreps(czk_engine *e, const char *param_dir, const char *env_value,
                                       czk_err *err);

/* ---- Filecoin SnapDeals (filecoin_snap.c) ---------------------------------------------- */

/*
 * One circuit per sector size, id "snap-<size>", keyed by the v28 update .params
 * (CZK_PARAMS_SNAP), looked up as for PoSt. A job is one update proof; its partitions are the
 * sector's (1 at 2 KiB, 4 at 8 MiB, 16 above), proved with h = h_default (1 at 2 KiB, 10
 * above), as filecoin-proofs' update API does. Its payload, integers little-endian:
 *   magic "CZKS" · u32 version (1) · u32 registered_proof (Go abi.RegisteredUpdateProof, 0–4)
 *   · u32 flags (0) · u64 miner_id · u64 sector_number · comm_r_old [32] · comm_r_new [32]
 *   · comm_d_new [32] (each a field element, LE, < r) · u32 n
 *   · n × (u32 len · len bytes of one bincode PartitionProof, snap_vanilla.h)
 * with n the partition count and nothing after the last proof. miner_id and sector_number are
 * carried for logs only (the circuit does not depend on them).
 */
#define CZK_SNAP_PAYLOAD_VERSION 1
#define CZK_SNAP_PAYLOAD_HEADER 132

/* The sector size of a registered update proof (0–4). Returns CZK_OK or CZK_EUNSUPPORTED. */
int czk_kinds_snap_sector_size(uint64_t *out, uint64_t registered_proof, czk_err *err);

/* The circuit id of a registered update proof (0–4) into out[0..cap): "snap-2KiB". Returns
 * CZK_OK, CZK_EUNSUPPORTED for another number, CZK_EINVAL when it does not fit. */
int czk_kinds_snap_circuit_id(char *out, size_t cap, uint64_t registered_proof, czk_err *err);

/* The payload's size for these proofs, or 0 when it would overflow. */
size_t czk_kinds_snap_payload_size(const size_t *lens, size_t n);

/* Writes the payload into out[0..czk_kinds_snap_payload_size(lens, n)). Returns the bytes
 * written, 0 when a length or n exceeds 32 bits. */
size_t czk_kinds_snap_payload_encode(uint8_t *out, uint32_t registered_proof, uint64_t miner_id,
                                     uint64_t sector_number, const uint8_t comm_r_old[32],
                                     const uint8_t comm_r_new[32], const uint8_t comm_d_new[32],
                                     const uint8_t *const *proofs, const size_t *lens, size_t n);

/* Registers the SnapDeals circuit of one sector size (its counts come from a table: no
 * synthesis). Returns CZK_OK, CZK_EUNSUPPORTED (size), CZK_EINVAL or CZK_ENOMEM. */
int czk_kinds_register_filecoin_snap(czk_engine *e, uint64_t sector_size, const char *param_dir,
                                     const char *env_value, czk_err *err);

/* Registers the five SnapDeals circuits (keys are only looked for at load). */
int czk_kinds_register_filecoin_snaps(czk_engine *e, const char *param_dir, const char *env_value,
                                      czk_err *err);

/* The Filecoin kinds' public entry points (registering all of them, requests from Curio's
 * fields, verification from public data, file names) are include/czk_filecoin.h's:
 * filecoin_request.c and filecoin_api.c. */

#ifdef __cplusplus
}
#endif

#endif /* CZK_KINDS_KINDS_H */
