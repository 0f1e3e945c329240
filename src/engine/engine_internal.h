/* Internal engine hooks for tests (not part of include/czk.h). */
#ifndef CZK_ENGINE_ENGINE_INTERNAL_H
#define CZK_ENGINE_ENGINE_INTERNAL_H

#include "czk.h"
#include "groth16/backend.h"
#include "groth16/keys.h"

/*
 * Copies the verifying key of a loaded (HOT) circuit into *vk (caller clears it with
 * czk_groth16_vk_clear). Returns CZK_OK, CZK_EINVAL (unknown or not loaded) or CZK_ENOMEM.
 */
int czk__engine_circuit_vk(czk_engine *e, const char *circuit_id, czk_groth16_vk *vk);

/*
 * For tests: replaces the backend of the engine's first device (primary, the first attempt
 * of every partition) and the fallback backend (retries); NULL leaves one as it is. Only
 * for an engine whose device is the CPU (backend "cpu", or "auto" without a CUDA device),
 * before any job is submitted; both tables must outlive the engine and be thread-safe.
 * Returns CZK_OK, or CZK_EINVAL on an engine with CUDA devices.
 */
int czk__engine_set_backends(czk_engine *e, const czk_backend *primary,
                             const czk_backend *fallback);

#endif /* CZK_ENGINE_ENGINE_INTERNAL_H */
