/*
 * What the Filecoin kinds (filecoin.c: PoSt, filecoin_porep.c: PoRep C2) share and nothing else
 * uses.
 */
#ifndef CZK_KINDS_FILECOIN_INTERNAL_H
#define CZK_KINDS_FILECOIN_INTERNAL_H

#include <stddef.h>

#include "filecoin/cs.h"
#include "filecoin/params.h"
#include "groth16/keys.h"
#include "r1cs/r1cs.h"
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

/*
 * Where circuit `id` looks for its key `pid`: *dir (czk_strdup'ed, the caller frees it) is
 * czk_params_cache_dir of `param_dir` and `env_value`, and key_path[0..cap) dir/<.params name>.
 * Returns CZK_OK, CZK_ENOMEM or CZK_EINVAL (a path that does not fit); *dir is NULL on error.
 */
int czk__kinds_filecoin_key_path(char **dir, char *key_path, size_t cap, const czk_params_id *pid,
                                 const char *param_dir, const char *env_value, const char *id,
                                 czk_err *err);

#endif /* CZK_KINDS_FILECOIN_INTERNAL_H */
