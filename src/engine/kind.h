/*
 * A circuit kind: everything the engine must not know about a circuit.
 *
 * The engine schedules partitions, budgets memory, proves on devices and verifies every
 * proof; it knows nothing about file formats, request payloads or how a witness is made.
 * Those belong to a circuit kind, one file in src/kinds/ (generic.c: a registered key with
 * circom .wtns witnesses; synthetic.c: PoRep-shaped test circuits whose witnesses are derived
 * from a seed). A Filecoin kind (WinningPoSt, WindowPoSt, PoRep C2, SnapDeals) is one more
 * such file: it turns the request's payload (vanilla proofs) into partitions, names the
 * parameter file of its proof type, synthesizes one partition's witness, and gives each
 * partition's public inputs so that the engine verifies the proof against what the request
 * says rather than against what synthesis produced.
 *
 * A kind registers a circuit with czk__engine_add_circuit, handing over a state of its own
 * (one per registered circuit: paths, options, what it keeps while the key is loaded). The
 * engine calls the entries below; "state" is that pointer and "job" the one job_create gave.
 *
 * Threads and memory: estimate runs once, at registration. job_create runs on the submitting
 * thread with no engine lock held, possibly for several requests of one circuit at once: it
 * may read only what registration fixed in the state (not what load sets), must not call back
 * into the engine, and may take its time (it decodes and copies the request's data: that is
 * what it is for). key_path serves messages and checks before any job. load runs
 * on a synthesis thread or a preloading client with no engine lock held, one load per circuit
 * at a time. shared_witness and synthesize run on synthesis threads, several partitions of
 * one job at once, with no lock held; they may read pk and cs (the engine keeps the key
 * loaded while a job holds it). Every host allocation a kind makes for a loaded key is
 * reported in load's extra_bytes, so that the host budget counts it.
 */
#ifndef CZK_ENGINE_KIND_H
#define CZK_ENGINE_KIND_H

#include <stddef.h>
#include <stdint.h>

#include "czk.h"
#include "field/fr.h"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/pool.h"
#include "util/status.h"

/* What is known of a circuit's size before its key is loaded (0 = not known yet). */
typedef struct czk_kind_sizes {
    uint64_t key_bytes; /* host bytes of key and constraint system once loaded (an estimate) */
    size_t n_vars;      /* witness values of one partition */
    size_t domain;      /* the key's evaluation domain (a power of two) */
    /* 1 when the circuit's rows never come to the host (its repeated form goes to devices,
     * the rep entry below): a partition then needs its witness only, never the CPU prover's
     * scratch, which would be some 45 GB at 2^27 and can never be used for it. */
    int device_rows;
    /* The priority the circuit's requests come with (czk_priority; 0: none known): the engine
     * counts the circuit as used at it from registration, so that before its first job, too,
     * its idle key is not evicted for lower work and synthesis leaves room for it (a preloaded
     * WinningPoSt key was evicted by C2's reservations and reloaded at its first proof, 1.2 s,
     * BENCHMARKS.md run 103). */
    int prio;
} czk_kind_sizes;

typedef struct czk_circuit_kind {
    const char *name; /* "generic", "synthetic", ...: for status and logs */

    /* Sizes before loading, for admission and the host budget. Required. */
    void (*estimate)(const void *state, czk_kind_sizes *out);

    /* The key file this circuit proves with, for messages and startup checks; NULL when it
     * has none (a synthetic circuit makes its own). May be NULL. */
    const char *(*key_path)(const void *state);

    /*
     * Loads the proving key and its constraint system (pk and cs arrive zeroed; on failure
     * the kind leaves them zeroed or cleared). pk and cs must agree (variables, public inputs,
     * domain): the kind checks it and names the files when they do not. Out: *extra_bytes,
     * host bytes the kind itself keeps while loaded (released by unload). Required.
     */
    int (*load)(void *state, czk_groth16_pk *pk, czk_r1cs *cs, uint64_t *extra_bytes,
                czk_pool *pool, czk_err *err);
    /* Drops what load kept besides pk and cs (may be NULL). */
    void (*unload)(void *state);
    /*
     * Optional: the repeated form (r1cs/rep.h) of the system load gave, while loaded, or NULL
     * when cs holds its rows. A kind whose circuit is too large to record whole (a 125 M-row
     * PoSt partition) loads cs as czk_r1cs_rep_dims's header of sizes and keeps the block
     * (counted in extra_bytes); the engine then attaches the block to devices that take it
     * (czk_device_ops.attach_rep), and a device that does not cannot prove the circuit.
     */
    const czk_r1cs_rep *(*rep)(const void *state);

    /*
     * Optional, both or neither: the kind lets the engine keep the key on devices only. A GPU
     * that holds key and circuit whole proves from the witness alone, so once every device
     * that proves the circuit holds them, the engine frees the key's points on the host
     * (tens of GB for a 32 GiB PoRep) and calls drop, which frees what the kind keeps only
     * for attaching (its repeated form) and returns those bytes. Synthesis must then read
     * neither pk's points nor what drop freed. restore undoes it when a proof must run
     * elsewhere (a device fault, the CPU): it reads the key again into pk (zeroed; the engine
     * takes its points and checks that its sizes and verifying key are the ones loaded) and
     * rebuilds what drop freed. Both run with no engine lock held, never beside load, unload
     * or each other for one circuit. NULL: the host copy is kept for as long as the key is
     * loaded.
     */
    uint64_t (*drop)(void *state);
    int (*restore)(void *state, czk_groth16_pk *pk, czk_pool *pool, czk_err *err);

    /*
     * Makes a job from a request: checks what the request carries for this kind (witness
     * images, payload, seed), copies what partitions will need, and says how many partitions
     * the job has (a kind that derives the count from its payload checks it against
     * req->n_partitions when that is not 0). Out: *job (freed with job_destroy), *n_parts.
     * Returns CZK_OK, CZK_EINVAL naming the request and the fault, or CZK_ENOMEM. Required.
     */
    int (*job_create)(void *state, const czk_job_request *req, void **job, size_t *n_parts,
                      czk_err *err);
    /* Frees a job, clearing witness data. Required. */
    void (*job_destroy)(void *state, void *job);

    /*
     * Optional: a witness the kind already holds for partition `part` (read only, valid while
     * the key is loaded), so that the engine need not synthesize one; NULL when there is none.
     */
    const czk_fr *(*shared_witness)(void *state, void *job, size_t part);

    /*
     * Writes partition `part`'s witness into w (cs->n_vars values, Montgomery form; memory the
     * engine gives, page-locked for a GPU where it can). `pool` is the engine's prover pool
     * (shared with running proofs: use it only for work worth waiting for it). Returns
     * CZK_OK, or an error whose message names the partition's input and the fault (a witness
     * that does not satisfy cs is CZK_EVERIFY, naming the first failing constraint). Required.
     */
    int (*synthesize)(void *state, void *job, size_t part, const czk_r1cs *cs, czk_fr *w,
                      czk_pool *pool, czk_err *err);

    /*
     * Optional: partition `part`'s public inputs as the request determines them (n_public
     * values into out). The engine then verifies the proof against these and fails the
     * partition when the witness's own public values differ. NULL: the witness's values are
     * the public inputs (they are then only as trustworthy as the witness file).
     */
    int (*public_inputs)(void *state, void *job, size_t part, czk_fr *out, size_t n_public,
                         czk_err *err);

    /*
     * Optional: encodes one verified partition proof into CZK_PROOF_BYTES bytes; the job's
     * proof is the partitions' encodings concatenated. NULL: bellperson's 192-byte A ‖ B ‖ C,
     * zcash-compressed (what Filecoin puts on chain).
     */
    void (*encode)(void *state, const czk_groth16_proof *proof, uint8_t out[CZK_PROOF_BYTES]);

    /* Frees the state (after unload when loaded). Required. */
    void (*destroy)(void *state);
} czk_circuit_kind;

/*
 * A restore entry for kinds whose load is how the key is read: loads again through `load`,
 * keeps the key in *pk and drops the system it read with it (the engine holds its own).
 */
int czk__kind_restore_by_load(int (*load)(void *, czk_groth16_pk *, czk_r1cs *, uint64_t *,
                                          czk_pool *, czk_err *),
                              void *state, czk_groth16_pk *pk, czk_pool *pool, czk_err *err);

/*
 * Registers a circuit of `kind` under `circuit_id`; the engine owns `state` from this call on,
 * also when it fails (it is then destroyed). Returns CZK_OK, CZK_EINVAL (bad or duplicate
 * id) or CZK_ENOMEM.
 */
int czk__engine_add_circuit(czk_engine *e, const char *circuit_id, const czk_circuit_kind *kind,
                            void *state, czk_err *err);

#endif /* CZK_ENGINE_KIND_H */
