/*
 * What the standalone device probes (tools/pipe_probe.cu, tools/hybrid_probe.cu) share: a
 * CUDA return-code check for main's scope, the device's SM count, and a xorshift generator.
 */
#ifndef CZK_TOOLS_PROBE_CUH
#define CZK_TOOLS_PROBE_CUH

#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>

/* Returns 1 from the enclosing function on a CUDA error, after naming it. */
#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));    \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

/* Device 0's multiprocessors, or 0 (after saying so) when there is no device or no answer. */
static inline int probe_sms(const char *name) {
    int ndev = 0;
    cudaDeviceProp prop;
    if (cudaGetDeviceCount(&ndev) != cudaSuccess || ndev == 0 ||
        cudaGetDeviceProperties(&prop, 0) != cudaSuccess) {
        printf("%s: no CUDA device\n", name);
        return 0;
    }
    return prop.multiProcessorCount;
}

static inline uint64_t probe_rng(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

#endif
