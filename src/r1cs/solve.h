/*
 * A witness solver for synthetic circuits: one circuit (and one proving key) serves witnesses
 * for any number of seeds, as the engine's synthetic circuit kind needs.
 */
#ifndef CZK_R1CS_SOLVE_H
#define CZK_R1CS_SOLVE_H

#include <stdint.h>

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Derives a satisfying witness for a circuit in which every constraint, taken in order,
 * either introduces free boolean variables in A or B (assigned random bits drawn from `seed`)
 * and at most one new variable that appears only in C, which is solved for. The PoRep-shaped
 * circuits of r1cs/synth.h are of this form. Variables no row mentions stay 0; w[0] = 1.
 *
 * Out: w[0 .. cs->n_vars), the caller's array (Montgomery form). The result depends only on
 * (cs, seed), and is checked against cs (czk_r1cs_check) before the function returns; on
 * failure w is cleared. Single-threaded.
 * Returns CZK_OK, CZK_ENOMEM (the bitmap of assigned variables), CZK_EINVAL (n_vars = 0, or a
 * row has more than one unknown in C; the message names the row) or czk_r1cs_check's
 * CZK_EVERIFY.
 */
int czk_r1cs_solve(czk_fr *w, const czk_r1cs *cs, uint64_t seed, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_R1CS_SOLVE_H */
