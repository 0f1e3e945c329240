/* The verdict of a Filecoin verify subcommand (cli.h, czk_cli_verify_filecoin). */
#include "cli/cli.h"

#include "util/alloc.h"
#include "util/file.h"

#include <stdio.h>
#include <stdlib.h>

int czk_cli_verify_filecoin(const char *cmd, const czk_filecoin_public *pub, const char *params,
                            const char *proof_path) {
    czk_err err = {0};
    uint8_t *buf = NULL;
    size_t len = 0;
    int rc = czk_file_read_all(&buf, &len, proof_path, &err);
    if (rc == CZK_OK)
        rc = czk_filecoin_verify(pub, buf, len, params, getenv(CZK_FILECOIN_PARAMS_ENV), &err);
    czk_free(buf);
    if (rc == CZK_EVERIFY) {
        printf("INVALID: %s\n", err.msg);
        return CZK_EXIT_INVALID;
    }
    if (rc != CZK_OK)
        return czk_cli_fail(cmd, rc, &err);
    size_t parts = len / CZK_PROOF_BYTES;
    if (parts == 1)
        printf("OK: the proof is valid\n");
    else
        printf("OK: the proof is valid (%zu partitions)\n", parts);
    return CZK_EXIT_OK;
}
