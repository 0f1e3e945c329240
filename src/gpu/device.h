/*
 * CUDA devices as prover devices (groth16/device.h), in plain C: the only header of src/gpu
 * that the engine includes.
 *
 * It is there whether or not this czk was built with CUDA: without nvcc, src/gpu/none
 * implements it (czk_gpu_built() = 0, no devices, czk_device_cuda_open fails with
 * CZK_EUNSUPPORTED), so that the engine needs no build-time switch.
 *
 * A CUDA device is one czk_gpu_backend_create backend (gpu/backend.h) behind
 * czk_device_ops:
 *   - info: the device's description ("NVIDIA H200, 132 SMs, ..."), label "cuda:N", its
 *     memory as the driver reports it (mem_free as sampled at open and after every proof:
 *     info itself calls no CUDA function), mem_budget (the smaller of the free memory at open
 *     and opts->vram_limit_bytes), the device bytes attached keys hold and the page-locked
 *     host bytes the device holds;
 *   - need: partition_bytes, the arena and tables of the plan czk_gpu_plan_make makes for
 *     the key's domain and its largest G1 array within mem_budget; attach_host_bytes,
 *     czk_gpu_attach_host_bytes(cs);
 *   - attach/detach: czk_gpu_backend_attach_key/_detach_key; the device key is the backend's
 *     key handle;
 *   - host_alloc/host_free: the backend's pinned buffers (at most opts->pinned_limit_bytes);
 *   - prove: czk_groth16_prove_ex with the backend and the key's handle (a whole proof on
 *     the device when key and circuit are attached, else the steps one by one).
 * Flags: CZK_DEVICE_WHOLE_PROOFS | CZK_DEVICE_WITNESS_PACK | CZK_DEVICE_PINNED.
 */
#ifndef CZK_GPU_DEVICE_H
#define CZK_GPU_DEVICE_H

#include <stdint.h>

#include "groth16/device.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a CUDA device is opened. All zero (or a NULL pointer): the defaults. */
typedef struct czk_device_cuda_opts {
    /* 0: the device's free memory at open; else the smaller of the two. */
    uint64_t vram_limit_bytes;
    /* Page-locked staging this device may hold (host_alloc, and the prover's arrays):
     * 0 = the backend's default, a quarter of the host's physical memory. */
    uint64_t pinned_limit_bytes;
    /* Host bytes of streamed keys and circuits it may page-lock in place: 0 = the default,
     * half of the host's physical memory; (uint64_t)-1 = none. */
    uint64_t register_limit_bytes;
    /* Device bytes of the free memory at open left out of this device's budget, for a
     * priority lane opened on the same ordinal after it. */
    uint64_t vram_reserve_bytes;
    /* 1: a priority lane (label "cuda:N/lane"): a stream of the device's greatest priority,
     * so that its proofs run beside another device's long kernel regions on the same GPU. */
    int priority_lane;
} czk_device_cuda_opts;

/* 1 when this czk was built with the CUDA backend, else 0. */
int czk_gpu_built(void);

/* CUDA devices present; 0 without a driver or a device, or without CUDA. */
int czk_gpu_device_count(void);

/* The memory of CUDA device `ordinal` in bytes, from its properties (no context is made); 0
 * when it cannot be read or without CUDA. */
uint64_t czk_gpu_device_total_memory(int ordinal);

/*
 * Opens CUDA device `ordinal` (0-based) as a prover device. opts may be NULL (defaults).
 * Out: *out, closed with czk_device_close. Returns CZK_OK; CZK_EUNSUPPORTED without CUDA;
 * CZK_EINVAL, CZK_ENOMEM or CZK_ECUDA (no such device, or it failed) with err naming the
 * fault; *out is then NULL.
 */
int czk_device_cuda_open(czk_device **out, int ordinal, const czk_device_cuda_opts *opts,
                         czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_GPU_DEVICE_H */
