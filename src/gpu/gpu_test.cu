/*
 * czk_gpu_test: the CUDA backend against the CPU on random inputs, module by module, then a
 * table of the checks passed and failed per module. The checks live beside the code they
 * check: cuda/ff/ff_test.cu (field), cuda/ntt/ntt_test.cu (ntt), cuda/msm/msm_test.cu (msm),
 * prover_test.cu (prover: h, whole proofs, resident and streamed keys),
 * cuda/setup/fixed_base_test.cu (setup: the backend's fixed_base). Timings are not here:
 * bench/gpu/ has them.
 *
 * Usage: czk_gpu_test [--big] [--only MODULE]... [--max-msm-lg N] [--seed N] [--threads N]
 *                     [--log FILE]
 *   (no flags)       every check at its usual sizes (~1 minute on an H200)
 *   --big            also the NTT at lg 25, 27 and 28 (several minutes more)
 *   --only MODULE    field, ntt, msm, prover or setup (repeatable); the host checks always run
 *   --max-msm-lg N   the G2 MSM checks up to 2^N (10..20, default 20; small for a sanitizer)
 *   --seed N         the random seed (default CZK_TEST_SEED, else the time; printed)
 *   --threads N      CPU threads for inputs and references (default: all)
 *   --log FILE       a copy of the output
 * Exit status: 0 every check passed, 1 a check failed, 2 bad usage, 77 no CUDA device (ctest
 * reports the test as skipped; the checks that need no device still run first, and fail the
 * run when they fail).
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "gpu/backend.h"
#include "gpu/cuda/internal.cuh"
#include "gpu/gpu_test.cuh"
#include "util/pool.h"
#include "util/rng.h"
#include "util/status.h"

using namespace czk_gpu_test;

static void usage(void) {
    fprintf(stderr, "usage: czk_gpu_test [--big] [--only field|ntt|msm|prover|setup]... "
                    "[--max-msm-lg N] [--seed N] [--threads N] [--log FILE]\n");
}

int main(int argc, char **argv) {
    static const char *const modules[] = {"field", "ntt", "msm", "prover", "setup"};
    common_flags cf;
    bool big = false, only[5] = {false, false, false, false, false}, any_only = false;
    unsigned long long max_msm_lg = 20;
    czk_gpu *gpu = NULL;
    czk_pool *pool = NULL;
    czk_err err = {};
    czk_rng rng;
    test_env env;
    int rc;

    common_defaults(&cf);
    for (int i = 1; i < argc; i++) {
        const int c = common_flag(argc, argv, &i, &cf);
        if (c < 0)
            return 2;
        if (c > 0)
            continue;
        if (strcmp(argv[i], "--big") == 0) {
            big = true;
        } else if (strcmp(argv[i], "--max-msm-lg") == 0) {
            if (flag_value(argc, argv, &i, &max_msm_lg) != 0)
                return 2;
        } else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            int m = -1;
            for (int k = 0; k < 5; k++)
                if (strcmp(argv[i + 1], modules[k]) == 0)
                    m = k;
            if (m < 0) {
                usage();
                return 2;
            }
            only[m] = any_only = true;
            i++;
        } else {
            usage();
            return 2;
        }
    }
    if (!any_only)
        for (int k = 0; k < 5; k++)
            only[k] = true;

    /* The checks that need no device first: a failure there fails the run even without one. */
    czk_rng_seed(&rng, cf.seed);
    check_ntt_host(&rng);
    check_prover_host(&rng);
    rc = open_device(&gpu, &pool, &cf);
    if (rc != 0) {
        /* The host checks' table; the device checks did not run. */
        summary("czk_gpu_test (host checks)");
        if (rc == 77)
            say("czk_gpu_test: skipped (no CUDA device)\n");
        close_device(gpu, pool);
        return failures() > 0 ? 1 : rc;
    }
    memset(&env, 0, sizeof(env));
    env.gpu = gpu;
    env.pool = pool;
    env.rng = &rng;
    env.big = big;
    env.max_msm_lg = max_msm_lg < 10 ? 10 : max_msm_lg > 20 ? 20 : (unsigned)max_msm_lg;
    rc = czk__gpu_msm_local_bytes(gpu, &env.local_bytes, &err);
    if (rc != CZK_OK) {
        fail("czk__gpu_msm_local_bytes", rc, &err);
    } else {
        say("MSM kernels' local memory (the driver's reservation, held out of every budget): "
            "%.1f MiB\n",
            (double)env.local_bytes / (1024.0 * 1024.0));
        if (only[0])
            check_field(&env);
        if (only[1])
            check_ntt(&env);
        if (only[2])
            check_msm(&env);
        if (only[3])
            check_prover(&env);
        if (only[4])
            check_setup(&env);
    }
    say("\n");
    say_memory(gpu);
    rc = summary("czk_gpu_test");
    close_device(gpu, pool);
    return rc;
}
