/*
 * What the Filecoin kinds (filecoin.c: PoSt, filecoin_porep.c: PoRep C2, filecoin_snap.c:
 * SnapDeals) share and nothing else uses, and what their tests reach.
 */
#ifndef CZK_KINDS_FILECOIN_INTERNAL_H
#define CZK_KINDS_FILECOIN_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "engine/kind.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/io/params.h"
#include "filecoin/porep/porep.h"
#include "filecoin/snap/snap.h"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/pool.h"
#include "util/status.h"

#define CZK__KINDS_FC_PATH_MAX 4096

typedef struct czk__kinds_fc_base czk__kinds_fc_base;

/*
 * What a Filecoin kind adds to the entries the three share (filecoin_common.c): one static
 * table per kind, so that the shared entries reach the kind's own parts through the state.
 */
typedef struct czk__kinds_fc_kind {
    czk_circuit_kind kind; /* the engine's table (CZK__KINDS_FC_TABLE) */
    /* Records one partition whole into *r1cs and its counts into *stats (filecoin/circuit.h's
     * record function of the state's shape), over pool where it can. */
    int (*record)(const czk__kinds_fc_base *b, czk_r1cs *r1cs, czk_cs_stats *stats, czk_pool *pool,
                  czk_err *err);
    /* Optional: the repeated form recorded into b->rep (over pool where it can), the whole
     * system's counts into *stats. NULL: rep is one copy of what record makes. */
    int (*record_rep)(czk__kinds_fc_base *b, czk_cs_stats *stats, czk_pool *pool, czk_err *err);
    /* Clears and frees what a job holds besides its czk__kinds_fc_job. */
    void (*job_clear)(void *job);
    /* For czk__kinds_fc_register (PoRep, SnapDeals; PoSt registers by kind and flags): the
     * state's size, the kind's name in messages, the circuit ids' prefix, its .params, and
     * what the state holds beyond the base: the shape of `sector_size`, b->stats and
     * b->repeated. */
    size_t size;
    const char *what, *prefix;
    czk_params_circuit params;
    int (*setup)(czk__kinds_fc_base *b, uint64_t sector_size, czk_err *err);
} czk__kinds_fc_kind;

/* The engine's table of a Filecoin kind: its name and own entries, the shared ones for the
 * rest. */
#define CZK__KINDS_FC_TABLE(NAME, ESTIMATE, JOB_CREATE, SYNTHESIZE)                                \
    {                                                                                              \
        .name = (NAME), .estimate = (ESTIMATE), .key_path = czk__kinds_fc_key_path,                \
        .load = czk__kinds_fc_load, .unload = czk__kinds_fc_unload, .rep = czk__kinds_fc_rep,      \
        .drop = czk__kinds_fc_drop, .restore = czk__kinds_fc_restore, .job_create = (JOB_CREATE),  \
        .job_destroy = czk__kinds_fc_job_destroy, .synthesize = (SYNTHESIZE),                      \
        .public_inputs = czk__kinds_fc_public_inputs, .destroy = czk__kinds_fc_destroy             \
    }

/* The first member of every Filecoin kind's state: what the shared entries take it as. */
struct czk__kinds_fc_base {
    const czk__kinds_fc_kind *kind;
    czk_params_id pid;
    char *dir;                             /* the directory the key is looked up in */
    char key_path[CZK__KINDS_FC_PATH_MAX]; /* dir/v28-….params, for messages (may not exist) */
    char id[64];
    /* One partition's counts (PoRep and SnapDeals: estimated above 2^24 rows), or for PoSt
     * one slot's (the estimate scales them, the witness layout follows them). */
    czk_cs_stats stats;
    /* The counts of the rows load keeps on the host, for the estimate, when they are not
     * stats' (a repeated PoRep: its global part and one challenge); zeroed otherwise. */
    czk_cs_stats rec;
    /* Load keeps the repeated form (r1cs/rep.h) in rep instead of the recording, and the
     * engine gets the sizes only: the rows then go to the devices that take them (a GPU),
     * and a partition reserves its witness, not the CPU prover's scratch, which could
     * never be used for it. */
    int repeated;
    czk_r1cs_rep rep; /* while loaded, when repeated */
};

/* The first member of every Filecoin kind's job: the public inputs the request determines. */
typedef struct czk__kinds_fc_job {
    size_t n_parts;
    size_t n_inputs; /* per partition */
    czk_fr *inputs;  /* n_parts × n_inputs */
} czk__kinds_fc_job;

/*
 * A zeroed state of `size` bytes (its czk__kinds_fc_base first) of `kind`, its id
 * "<prefix>-<size name>"; `what` names the kind in the message for an unsupported sector
 * size. Returns the state with *rc CZK_OK, or NULL with *rc CZK_EUNSUPPORTED or CZK_ENOMEM.
 */
void *czk__kinds_fc_new(const czk__kinds_fc_kind *kind, size_t size, const char *what,
                        const char *prefix, uint64_t sector_size, int *rc, czk_err *err);

/*
 * Where the circuit looks for its key, the .params of `circuit` for `sector_size`: b->dir
 * (czk_params_cache_dir of `param_dir` and `env_value`) and b->key_path, dir/<file name>.
 * Returns CZK_OK, CZK_ENOMEM, or the error of a parameter set or path that does not exist or
 * fit.
 */
int czk__kinds_fc_locate(czk__kinds_fc_base *b, czk_params_circuit circuit, uint64_t sector_size,
                         const char *param_dir, const char *env_value, czk_err *err);

/* Registers the state with the engine when rc (the registration's steps) is CZK_OK, else
 * destroys it; returns rc or czk__engine_add_circuit's. */
int czk__kinds_fc_add(czk_engine *e, czk__kinds_fc_base *b, int rc, czk_err *err);

/* Registers the circuit of `kind` (its size, what, prefix, params and setup) for
 * `sector_size`: new, setup, locate, add. Returns CZK_OK or the failing step's code. */
int czk__kinds_fc_register(czk_engine *e, const czk__kinds_fc_kind *kind, uint64_t sector_size,
                           const char *param_dir, const char *env_value, czk_err *err);

/* czk__kinds_fc_register for each of czk_vanilla_sizes, stopping at the first failure. */
int czk__kinds_fc_register_all(czk_engine *e, const czk__kinds_fc_kind *kind, const char *param_dir,
                               const char *env_value, czk_err *err);

/* One row of a kind's table of partition counts by sector size. */
typedef struct czk__kinds_fc_stats_row {
    uint64_t size;
    czk_cs_stats st; /* rows, inputs, aux, nnz A/B/C, densities a_aux, b_input, b_aux */
} czk__kinds_fc_stats_row;

/* rows[0..n)'s counts for `sector_size`: 1 and *out filled, or 0 when it has no row. */
int czk__kinds_fc_stats_find(czk_cs_stats *out, const czk__kinds_fc_stats_row *rows, size_t n,
                             uint64_t sector_size);

/* The circuit id "<prefix>-<size name>" of a registered proof `registered_proof` of
 * `sector_size` into out[0..cap); `what` names the proof when it does not fit. Returns CZK_OK
 * or CZK_EINVAL. */
int czk__kinds_fc_circuit_id(char *out, size_t cap, const char *prefix, uint64_t sector_size,
                             const char *what, uint64_t registered_proof, czk_err *err);

/* The payload framing PoSt and SnapDeals share: after a `header`-byte header, each vanilla
 * proof as a 4-byte little-endian length and its bytes. frames_size: the total for the lengths
 * lens[0..n), 0 when it overflows; frames_encode: the proofs written from out + header on,
 * the total returned, 0 for a length above 2^32 - 1. */
size_t czk__kinds_fc_frames_size(size_t header, const size_t *lens, size_t n);
size_t czk__kinds_fc_frames_encode(uint8_t *out, size_t header, const uint8_t *const *proofs,
                                   const size_t *lens, size_t n);

/* The sizes of a circuit of counts `st` whose recording has `rec`'s entries. */
void czk__kinds_fc_sizes(czk_kind_sizes *out, const czk_cs_stats *st, const czk_cs_stats *rec,
                         int device_rows);

/*
 * A job_create's first checks: *job is NULL and the request carries no witness files; with
 * `magic` non-NULL, also the payload's framing as PoRep and SnapDeals check it (at least
 * `header` bytes, `magic` and `version` first), `what` naming the payload. Returns CZK_OK or
 * CZK_EINVAL naming the request and the circuit.
 */
int czk__kinds_fc_job_begin(const czk__kinds_fc_base *b, const czk_job_request *req, void **job,
                            const char *what, const char *magic, int version, int header,
                            czk_err *err);

/*
 * A job_create's end, `job_` (a czk__kinds_fc_job first, or NULL) with the checks' result rc.
 * After passed checks the key is looked for, so that a request the daemon cannot serve for
 * want of a key is refused now, naming the directory searched and the file expected, rather
 * than failing after queueing (the message starts with the request and the circuit). Then *job and
 * *n_parts are set; or the job is destroyed and, whatever the lower layer called it (a decoding's
 * CZK_EFORMAT, a check's CZK_EVERIFY), the request is at fault: CZK_EINVAL is what the engine and
 * clients take for that (CZK_ENOMEM aside).
 */
int czk__kinds_fc_job_end(const czk__kinds_fc_base *b, void *job_, int rc, const char *rid,
                          void **job, size_t *n_parts, czk_err *err);

/* Puts the request's context in front of a message a lower layer wrote (which names the
 * proof, field and offset but not the request). */
__attribute__((format(printf, 2, 3))) void czk__kinds_err_prefix(czk_err *err, const char *fmt,
                                                                 ...);

/*
 * One vanilla proof's frame of a payload p[0..len) at *off: its 4-byte length, checked
 * against what remains. Out: *l, *off its first byte. Returns CZK_OK or CZK_EINVAL naming
 * the request `rid`, proof `k` and the offset.
 */
int czk__kinds_fc_frame(const uint8_t *p, size_t len, size_t *off, size_t *l, uint32_t k,
                        const char *rid, czk_err *err);

/* The shared entries of the engine's table (kind.h), the state a czk__kinds_fc_base. The
 * estimate is PoRep's and SnapDeals': one partition's counts, recorded whole. */
void czk__kinds_fc_estimate(const void *state, czk_kind_sizes *out);
const char *czk__kinds_fc_key_path(const void *state);
int czk__kinds_fc_load(void *state, czk_groth16_pk *pk, czk_r1cs *cs, uint64_t *extra_bytes,
                       czk_pool *pool, czk_err *err);
void czk__kinds_fc_unload(void *state);
const czk_r1cs_rep *czk__kinds_fc_rep(const void *state);
/* The engine keeps the key on devices only (kind.h): drop frees the repeated form (synthesis
 * reads neither it nor the points); restore loads again and keeps the key. */
uint64_t czk__kinds_fc_drop(void *state);
int czk__kinds_fc_restore(void *state, czk_groth16_pk *pk, czk_pool *pool, czk_err *err);
void czk__kinds_fc_job_destroy(void *state, void *job);
int czk__kinds_fc_public_inputs(void *state, void *job, size_t part, czk_fr *out, size_t n_public,
                                czk_err *err);
void czk__kinds_fc_destroy(void *state);

/*
 * A SnapDeals payload (kinds.h) checked in full for `shape`, as job_create does: the header,
 * the commitments (each < r), one vanilla proof per partition, each decoded strictly into
 * parts[k] and checked against the commitments (czk_snap_partition_check), and no trailing
 * bytes. Out: *pub (h = h_default), parts[0 .. shape->partitions) (zeroed by the caller; the
 * caller clears them, also on error), inputs[4k .. 4k + 4) partition k's public inputs.
 * Messages name the request `rid` and the partition. Returns CZK_OK, CZK_EINVAL, CZK_ELENGTH,
 * CZK_EFORMAT, CZK_ERANGE, CZK_EVERIFY or CZK_ENOMEM.
 */
int czk__kinds_snap_job_check(czk_snap_public *pub, czk_snap_partition_proof *parts, czk_fr *inputs,
                              const czk_snap_shape *shape, const uint8_t *payload, size_t len,
                              const char *rid, czk_err *err);

/* One SnapDeals partition's counts for the sector sizes of the registered update proofs, from
 * filecoin_snap.c's table: 1 and *out filled, or 0 for another size. */
int czk__kinds_snap_stats(czk_cs_stats *out, uint64_t sector_size);

/* One PoRep partition's counts for the registered sector sizes, from filecoin_porep.c's table:
 * 1 and *out filled, or 0 for another size. */
int czk__kinds_porep_stats(czk_cs_stats *out, uint64_t sector_size);

/* The same counts by COUNT passes (the global part plus C times one challenge above 2^24
 * rows): what the table was made from, and what the tests compare it with. */
int czk__kinds_porep_count_stats(czk_cs_stats *out, const czk_porep_shape *shape, czk_err *err);

#endif /* CZK_KINDS_FILECOIN_INTERNAL_H */
