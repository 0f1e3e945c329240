/*
 * Partition synthesis for the engine: witness vectors from a circom .wtns image (registered
 * circuits) or derived from a seed (synthetic PoRep-shaped circuits). Internal to the engine.
 */
#ifndef CZK_ENGINE_WITNESS_H
#define CZK_ENGINE_WITNESS_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "util/status.h"

/*
 * Parses a circom .wtns image (version 2, BLS12-381) of `len` bytes into *w (n values,
 * Montgomery form, czk_malloc'ed; the caller clears and frees it). `name` labels messages.
 * The witness must have exactly `n_vars` values and w[0] = 1. Returns CZK_OK, CZK_EFORMAT,
 * CZK_EUNSUPPORTED, CZK_EINVAL (wrong count) or CZK_ENOMEM; *w is NULL on failure.
 */
int czk__wtns_parse(czk_fr **w, const uint8_t *img, size_t len, size_t n_vars, const char *name,
                    czk_err *err);

/*
 * Derives a satisfying witness for a circuit in which every constraint, taken in order,
 * either introduces free boolean variables in A or B (assigned random bits from `seed`) and
 * at most one new variable that appears only in C, which is solved for. The PoRep-shaped
 * circuits of r1cs/synth.h are of this form, so one circuit (and one key) serves witnesses
 * for any number of seeds. Out: *w (cs->n_vars values, czk_malloc'ed). Returns CZK_OK,
 * CZK_ENOMEM, or CZK_EINVAL when a row has no such form (the message names the row). The
 * result is checked against cs (czk_r1cs_check) before it is returned. Single-threaded.
 */
int czk__witness_solve(czk_fr **w, const czk_r1cs *cs, uint64_t seed, czk_err *err);

#endif /* CZK_ENGINE_WITNESS_H */
