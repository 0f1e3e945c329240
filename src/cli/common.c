#include "cli/cli.h"

#ifdef CZK_HAVE_CUDA
#include "gpu/backend.h"
#endif
#include "util/rng.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int czk_cli_common_option(czk_cli_common *c, const char *cmd, int argc, char **argv, int *i) {
    const char *a = argv[*i];
    if (strcmp(a, "--threads") != 0 && strcmp(a, "--backend") != 0 && strcmp(a, "--seed") != 0)
        return 0;
    if (*i + 1 >= argc) {
        fprintf(stderr, "czk %s: %s needs a value\n", cmd, a);
        return -1;
    }
    const char *v = argv[++*i];
    char *end = NULL;
    errno = 0;
    if (strcmp(a, "--threads") == 0) {
        unsigned long n = strtoul(v, &end, 10);
        if (errno != 0 || end == v || *end != '\0' || n > 1024) {
            fprintf(stderr, "czk %s: --threads takes 0..1024 (0: all CPUs), not '%s'\n", cmd, v);
            return -1;
        }
        c->threads = (unsigned)n;
    } else if (strcmp(a, "--backend") == 0) {
        if (strcmp(v, "auto") != 0 && strcmp(v, "cpu") != 0 && strcmp(v, "cuda") != 0) {
            fprintf(stderr, "czk %s: --backend takes auto, cpu or cuda, not '%s'\n", cmd, v);
            return -1;
        }
        c->backend = v;
    } else {
        unsigned long long s = strtoull(v, &end, 0);
        if (errno != 0 || end == v || *end != '\0') {
            fprintf(stderr, "czk %s: --seed takes an integer, not '%s'\n", cmd, v);
            return -1;
        }
        c->seed = s;
        c->have_seed = 1;
    }
    return 1;
}

czk_pool *czk_cli_pool(const czk_cli_common *c, const char *cmd) {
    czk_pool *pool = NULL;
    int rc = czk_pool_create(&pool, c->threads);
    if (rc != CZK_OK) {
        fprintf(stderr, "czk %s: cannot start %u threads: %s\n", cmd, c->threads, czk_strerror(rc));
        return NULL;
    }
    return pool;
}

const czk_backend *czk_cli_backend(const czk_cli_common *c, const char *cmd) {
    const char *want = c->backend != NULL ? c->backend : "auto";
    if (strcmp(want, "cpu") == 0)
        return czk_backend_cpu();
#ifdef CZK_HAVE_CUDA
    /* One backend per process, on device 0, created on first use and released by the OS at
     * exit (the commands run one proof at a time, from one thread). Without a device the
     * static CUDA runtime's cudaGetDeviceCount fails, which czk_gpu_device_count reports as
     * 0: auto then means the CPU. */
    static czk_backend *gpu_be = NULL;
    if (gpu_be != NULL)
        return gpu_be;
    if (czk_gpu_device_count() > 0) {
        czk_err err = {0, {0}};
        int rc = czk_gpu_backend_create(&gpu_be, 0, NULL, &err);
        if (rc == CZK_OK)
            return gpu_be;
        if (strcmp(want, "cuda") == 0) {
            fprintf(stderr, "czk %s: cannot start the CUDA backend: %s (%s)\n", cmd,
                    czk_cli_user_message(err.msg), czk_status_name(rc));
            return NULL;
        }
        fprintf(stderr, "czk %s: CUDA backend unavailable (%s); proving on the CPU\n", cmd,
                czk_cli_user_message(err.msg));
        return czk_backend_cpu();
    }
    if (strcmp(want, "cuda") == 0) {
        fprintf(stderr, "czk %s: --backend cuda: no CUDA device is present\n", cmd);
        return NULL;
    }
    return czk_backend_cpu();
#else
    if (strcmp(want, "cuda") == 0) {
        fprintf(stderr, "czk %s: this czk was built without CUDA (nvcc was not found)\n", cmd);
        return NULL;
    }
    return czk_backend_cpu();
#endif
}

/* The message without the "file.c:123: " that czk_err_set puts first: users want the fault,
 * developers find it from the status name and the text. */
const char *czk_cli_user_message(const char *msg) {
    const char *p = msg;
    while ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')
        p++;
    if (strncmp(p, ".c:", 3) != 0 && strncmp(p, ".h:", 3) != 0)
        return msg;
    p += 3;
    while (*p >= '0' && *p <= '9')
        p++;
    return strncmp(p, ": ", 2) == 0 ? p + 2 : msg;
}

int czk_cli_fail(const char *cmd, int rc, const czk_err *err) {
    if (err != NULL && err->code == rc && err->msg[0] != '\0')
        fprintf(stderr, "czk %s: %s (%s)\n", cmd, czk_cli_user_message(err->msg),
                czk_status_name(rc));
    else
        fprintf(stderr, "czk %s: %s (%s)\n", cmd, czk_strerror(rc), czk_status_name(rc));
    return CZK_EXIT_ERROR;
}

int czk_cli_blinding(czk_fr *r, czk_fr *s, const czk_cli_common *c, czk_err *err) {
    if (c->have_seed) {
        czk_rng rng;
        czk_rng_seed(&rng, c->seed);
        czk_fr_random(r, &rng);
        czk_fr_random(s, &rng);
        return CZK_OK;
    }
    /* Each scalar is 255 bits straight from the OS, rejected when >= r (probability < 1/2),
     * so it is uniform in [0, r) and owes nothing to a seeded generator. */
    for (int k = 0; k < 2; k++) {
        czk_fr *out = k == 0 ? r : s;
        for (;;) {
            uint8_t b[CZK_FR_BYTES];
            if (czk_rng_os(b, sizeof(b)) != CZK_OK)
                return czk_err_set(err, CZK_EIO, "the OS random source failed");
            b[CZK_FR_BYTES - 1] &= 0x7f; /* r < 2^255: keep the rejection rate under 1/2 */
            if (czk_fr_from_bytes_le(out, b) == CZK_OK)
                break;
        }
    }
    return CZK_OK;
}

int czk_cli_wants_help(int argc, char **argv) {
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return 1;
    return 0;
}
