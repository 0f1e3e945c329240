/*
 * gpu/device.h when this czk is built without CUDA (CMake found no nvcc): no devices, and
 * opening one says why, so that the engine and the command line need no build-time switch.
 */
#include "gpu/device.h"

#include <stddef.h>

int czk_gpu_built(void) {
    return 0;
}

int czk_gpu_device_count(void) {
    return 0;
}

uint64_t czk_gpu_device_total_memory(int ordinal) {
    (void)ordinal;
    return 0;
}

int czk_device_cuda_open(czk_device **out, int ordinal, const czk_device_cuda_opts *opts,
                         czk_err *err) {
    (void)ordinal, (void)opts;
    if (out != NULL)
        *out = NULL;
    return czk_err_set(err, CZK_EUNSUPPORTED,
                       "this czk was built without CUDA (nvcc was not found)");
}
