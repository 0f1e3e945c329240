/*
 * What the Filecoin kinds (filecoin.c: PoSt, filecoin_porep.c: PoRep C2, filecoin_snap.c:
 * SnapDeals) share and nothing else uses, and what their tests reach.
 */
#ifndef CZK_KINDS_FILECOIN_INTERNAL_H
#define CZK_KINDS_FILECOIN_INTERNAL_H

#include <stddef.h>

#include "filecoin/gadgets/cs.h"
#include "filecoin/io/params.h"
#include "filecoin/porep/porep.h"
#include "filecoin/snap/snap.h"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/pool.h"
#include "util/status.h"

/*
 * Reads the .params at `path` for circuit `id` into *pk: first the header check against the
 * circuit's counts `st` (params.h: a file made for another circuit is refused before any
 * point is read), then the points (on the curve), then the key against the loaded system cs
 * (variables, public inputs, domain). Returns CZK_OK or the failing step's code, naming the
 * file; on failure pk may hold part of the key (the caller clears it).
 */
int czk__kinds_filecoin_read_key(czk_groth16_pk *pk, const czk_r1cs *cs, const char *path,
                                 const czk_cs_stats *st, const char *id, czk_pool *pool,
                                 czk_err *err);

/* Records one partition of a Filecoin circuit of `shape` (filecoin/circuit.h's record
 * functions, the shape's type theirs). */
typedef int (*czk__kinds_record_fn)(czk_r1cs *r1cs, czk_cs_stats *stats, const void *shape,
                                    czk_err *err);

/*
 * The load of a one-partition Filecoin circuit (PoRep, SnapDeals): its .params found by `pid`
 * in `dir`; the circuit recorded by `record`, whole into *cs or, when `repeated`, as the
 * one-copy repeated form *rep with *cs its dimensions and *extra_bytes its rows; then the key
 * read and checked (czk__kinds_filecoin_read_key) against the recording's own counts. On
 * failure pk, cs and rep are cleared and *extra_bytes is 0. Returns CZK_OK or the step's code.
 */
int czk__kinds_filecoin_load_partition(czk_groth16_pk *pk, czk_r1cs *cs, czk_r1cs_rep *rep,
                                       uint64_t *extra_bytes, int repeated,
                                       czk__kinds_record_fn record, const void *shape,
                                       const czk_params_id *pid, const char *dir, const char *id,
                                       czk_pool *pool, czk_err *err);

/*
 * Where circuit `id` looks for its key `pid`: *dir (czk_strdup'ed, the caller frees it) is
 * czk_params_cache_dir of `param_dir` and `env_value`, and key_path[0..cap) dir/<.params name>.
 * Returns CZK_OK, CZK_ENOMEM or CZK_EINVAL (a path that does not fit); *dir is NULL on error.
 */
int czk__kinds_filecoin_key_path(char **dir, char *key_path, size_t cap, const czk_params_id *pid,
                                 const char *param_dir, const char *env_value, const char *id,
                                 czk_err *err);

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
