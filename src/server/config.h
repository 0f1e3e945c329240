/*
 * czk daemon's configuration: a TOML file (cuzk's section and key names where the meaning is
 * the same), then command-line overrides. The keys, their defaults and their validators are
 * one table in config.c (valkey's config.c style); `czk daemon --help-config` prints it.
 *
 * Upstream code cited here was read at curio@e0294b0f (2026-08-20).
 */
#ifndef CZK_SERVER_CONFIG_H
#define CZK_SERVER_CONFIG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct czk_server_config {
    char **listen; /* daemon.listen: gRPC addresses, "host:port" or "unix:///path" */
    size_t n_listen;
    char *status_listen;          /* daemon.status_listen: HTTP host:port; "" = off */
    uint64_t max_message_bytes;   /* daemon.max_message_size */
    char *tls_cert;               /* daemon.tls_cert: PEM file; "" = no TLS */
    char *tls_key;                /* daemon.tls_key */
    char *tls_client_ca;          /* daemon.tls_client_ca: "" = no client certificates */
    int insecure;                 /* daemon.insecure: plaintext TCP beyond loopback allowed */
    uint64_t max_jobs_per_client; /* daemon.max_jobs_per_client: 0 = no limit */
    uint64_t shutdown_grace_ms;   /* daemon.shutdown_grace_ms */
    uint64_t result_ttl_ms;       /* daemon.result_ttl_ms */
    uint64_t total_budget;        /* memory.total_budget: 0 = auto */
    uint64_t safety_margin;       /* memory.safety_margin (auto budget = MemTotal - margin) */
    uint64_t pinned_budget;       /* memory.pinned_budget: 0 = auto */
    uint64_t lock_budget;         /* memory.lock_budget: 0 = auto */
    uint64_t vram_budget;         /* gpus.vram_budget: device bytes per GPU, 0 = auto */
    uint64_t priority_lane;       /* gpus.priority_lane: 0 = auto, 1 = none */
    uint64_t workers_per_device;  /* gpus.workers_per_device (cuzk: gpu_workers_per_device) */
    uint64_t prove_threads;       /* gpus.gpu_threads: 0 = auto */
    char *backend;                /* gpus.backend: auto | cpu | cuda */
    unsigned *gpu_devices;        /* gpus.devices: CUDA ordinals (malloc'ed); none = all */
    size_t n_gpu_devices;
    uint64_t synth_threads;     /* synthesis.threads (cuzk: pipeline.max_parallel_synthesis) */
    uint64_t finalizer_threads; /* synthesis.finalizer_threads */
    uint64_t max_queued_jobs;   /* pipeline.max_queued_jobs */
    char *log_level;            /* logging.level: error | warn | info | debug */
    char **circuits;            /* circuits.register: "id=key[,r1cs]" */
    size_t n_circuits;
    char **synthetic; /* circuits.synthetic: "id=K" */
    size_t n_synthetic;
    char *param_cache; /* srs.param_cache (filecoin.param_cache): "" = the environment's */
} czk_server_config;

/* Fills *cfg with every key's default. Returns CZK_OK or CZK_ENOMEM. */
int czk_server_config_init(czk_server_config *cfg);

/* Frees what *cfg owns and zeroes it; NULL is a no-op. */
void czk_server_config_clear(czk_server_config *cfg);

/*
 * Reads a TOML file over *cfg. Unknown keys, wrong types and values a validator refuses are
 * errors (err names the key); keys of cuzk that czk accepts but does not use yet are noted on
 * `log` (may be NULL). Returns CZK_OK, CZK_EIO, CZK_EFORMAT or CZK_EINVAL.
 */
int czk_server_config_load(czk_server_config *cfg, const char *path, FILE *log, czk_err *err);

/*
 * Sets one key from text ("memory.total_budget", "64GiB"), as the file would. A list key
 * ("daemon.listen") gets the value appended unless `replace_list` is set, which empties it
 * first. Returns CZK_OK or CZK_EINVAL.
 */
int czk_server_config_set(czk_server_config *cfg, const char *key, const char *value,
                          int replace_list, czk_err *err);

/* Prints the table: every key, its default and what it does. */
void czk_server_config_print_help(FILE *f);

/*
 * Parses a byte size: a decimal count with an optional suffix K, M, G, T (powers of 1024;
 * "KiB", "MB" and "GiB" spellings too: czk counts bytes in binary units) or "auto" (0).
 * Returns CZK_OK or CZK_EINVAL.
 */
int czk_server_parse_bytes(uint64_t *out, const char *text);

#ifdef __cplusplus
}
#endif

#endif /* CZK_SERVER_CONFIG_H */
