/* The verifying key and the proofs a Filecoin verify subcommand checks (cli.h,
 * czk_cli_verify_open). */
#include "cli/cli.h"

#include "formats/bellperson.h"

#include <stdio.h>
#include <stdlib.h>

int czk_cli_verify_open(czk_groth16_vk *vk, char *vk_path, size_t cap, czk_groth16_proof **proofs,
                        size_t *n_proofs, const char *cmd, czk_params_circuit circuit,
                        uint64_t sector_size, const char *params, const char *proof_path) {
    czk_err err = {0};
    czk_params_id id;
    int rc;
    if ((rc = czk_params_id_get(&id, circuit, sector_size, &err)) != CZK_OK ||
        (rc = czk_params_find(vk_path, cap, &id, CZK_PARAMS_EXT_VK, params,
                              getenv(CZK_PARAMS_ENV_VAR), &err)) != CZK_OK ||
        (rc = czk_bellperson_vk_read(vk, vk_path, &err)) != CZK_OK)
        return czk_cli_fail(cmd, rc, &err);
    rc = czk_bellperson_proofs_read(proofs, n_proofs, proof_path, &err);
    if (rc == CZK_EFLAGS || rc == CZK_ERANGE || rc == CZK_ENOTONCURVE || rc == CZK_ENOTINGROUP ||
        rc == CZK_ENOSQRT || rc == CZK_EBADENC) {
        /* Bytes that are not points of the groups are an invalid proof; a file of the wrong
         * size is an error. */
        printf("INVALID: %s\n", czk_err_text(&err, rc));
        return CZK_EXIT_INVALID;
    }
    return rc == CZK_OK ? CZK_EXIT_OK : czk_cli_fail(cmd, rc, &err);
}

int czk_cli_verify_partition(const char *cmd, const czk_groth16_pvk *pvk,
                             const czk_groth16_proof *proof, const czk_fr *inputs, size_t n_in,
                             int rc, czk_err *err, uint32_t k, const char *name) {
    if (rc == CZK_OK)
        rc = czk_groth16_verify(pvk, proof, inputs, n_in, err);
    if (rc == CZK_EVERIFY) {
        printf("INVALID: partition %u's proof does not verify for %s\n", k, name);
        return CZK_EXIT_INVALID;
    }
    return rc == CZK_OK ? -1 : czk_cli_fail(cmd, rc, err);
}
