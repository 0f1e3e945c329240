/* Internal engine hooks for tests (not part of include/czk.h). */
#ifndef CZK_ENGINE_ENGINE_INTERNAL_H
#define CZK_ENGINE_ENGINE_INTERNAL_H

#include "czk.h"
#include "groth16/keys.h"

/*
 * Copies the verifying key of a loaded (HOT) circuit into *vk (caller clears it with
 * czk_groth16_vk_clear). Returns CZK_OK, CZK_EINVAL (unknown or not loaded) or CZK_ENOMEM.
 */
int czk__engine_circuit_vk(czk_engine *e, const char *circuit_id, czk_groth16_vk *vk);

#endif /* CZK_ENGINE_ENGINE_INTERNAL_H */
