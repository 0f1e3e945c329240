/*
 * One Filecoin request proved in process (cli.h, czk_cli_inproc_prove): the engine's path for
 * `czk c2`, `czk post prove` and `czk snap prove`, so that the three check, prove, verify and
 * write alike and word their failures alike.
 */
#include "cli/cli.h"

#include "kinds/kinds.h"
#include "util/file.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>

static int register_kind(czk_engine *e, int kind, uint64_t sector_size, const char *dir,
                         czk_err *err) {
    switch (kind) {
    case CZK_CLI_INPROC_POREP:
        return czk_kinds_register_filecoin_porep(e, sector_size, dir, NULL, err);
    case CZK_CLI_INPROC_SNAP:
        return czk_kinds_register_filecoin_snap(e, sector_size, dir, NULL, err);
    default:
        return czk_kinds_register_filecoin_posts(e, dir, NULL, err);
    }
}

int czk_cli_inproc_prove(czk_engine **e, const czk_engine_config *cfg, const czk_cli_inproc *p,
                         uint64_t sector_size, const char *circuit, uint32_t n_partitions,
                         const uint8_t *payload, size_t payload_len, czk_job_result *res) {
    /* The request ids the commands have always sent (they name the job in the engine's log). */
    static const char *const request_ids[] = {"c2", "post", "snap"};
    czk_err err = {0};
    const char *dir = czk_params_cache_dir(p->params, getenv(CZK_PARAMS_ENV_VAR));
    uint64_t load_ms = 0;
    int rc;
    if ((rc = czk_engine_create(e, cfg, &err)) != CZK_OK ||
        (rc = register_kind(*e, p->kind, sector_size, dir, &err)) != CZK_OK ||
        (rc = czk_engine_preload(*e, circuit, NULL, &load_ms, &err)) != CZK_OK)
        return czk_cli_fail(p->cmd, rc, &err);
    uint64_t t1 = czk_time_ns();
    czk_job_request req = {.request_id = request_ids[p->kind],
                           .circuit_id = circuit,
                           .n_partitions = n_partitions,
                           .payload = payload,
                           .payload_len = payload_len};
    char job_id[CZK_REQUEST_ID_MAX + 1];
    if ((rc = czk_engine_submit(*e, &req, job_id, NULL, NULL, &err)) != CZK_OK ||
        (rc = czk_engine_await(*e, job_id, 0, res, &err)) != CZK_OK)
        return czk_cli_fail(p->cmd, rc, &err);
    if (res->status != CZK_JOB_COMPLETED) {
        fprintf(stderr, "czk %s: %s: %s; nothing written\n", p->cmd, p->input, res->error);
        return CZK_EXIT_ERROR;
    }
    if ((rc = czk_file_write_atomic(p->out, res->proof, res->proof_len, &err)) != CZK_OK)
        return czk_cli_fail(p->cmd, rc, &err);
    printf("wrote %s: %zu-byte %s, verified; key load %.2f s, proof %.2f s\n", p->out,
           res->proof_len, p->what, (double)load_ms / 1e3, (double)(czk_time_ns() - t1) / 1e9);
    return CZK_EXIT_OK;
}
