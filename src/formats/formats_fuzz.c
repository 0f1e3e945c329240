/*
 * libFuzzer target for every file reader: the first input byte picks the reader, the rest is
 * the file. Readers take paths, so each input is written to one file in /dev/shm (or /tmp)
 * first. A reader may refuse anything; it must never crash, leak, or allocate more than the
 * file could justify (run with -rss_limit_mb and -malloc_limit_mb).
 */
#include "formats/bellperson.h"
#include "formats/circom.h"
#include "formats/snarkjs_json.h"
#include "formats/zkey.h"
#include "r1cs/r1cs.h"
#include "util/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char path[64];

static void make_path(void) {
    if (path[0] != '\0')
        return;
    const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(path, sizeof(path), "%s/czk-fuzz-%d", dir, (int)getpid());
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1)
        return 0;
    make_path();
    FILE *f = fopen(path, "wb");
    if (f == NULL)
        return 0;
    if (size > 1 && fwrite(data + 1, 1, size - 1, f) != size - 1) {
        fclose(f);
        return 0;
    }
    fclose(f);
    size_t before = czk_alloc_in_use();
    czk_groth16_pk pk;
    czk_groth16_vk vk;
    czk_groth16_proof proof, *proofs = NULL;
    czk_r1cs cs;
    czk_fr *v = NULL;
    size_t n = 0;
    memset(&cs, 0, sizeof(cs));
    switch (data[0] % 10) {
    case 0:
        if (czk_circom_r1cs_read(&cs, path, NULL) == 0)
            czk_r1cs_clear(&cs);
        break;
    case 1:
        if (czk_circom_wtns_read(&v, &n, path, NULL) == 0)
            czk_free(v);
        break;
    case 2:
        if (czk_zkey_read_ex(&pk, &cs, path, CZK_KEY_CHECK_CURVE, NULL, NULL) == 0) {
            czk_groth16_pk_clear(&pk);
            czk_r1cs_clear(&cs);
        }
        break;
    case 3:
        (void)czk_snarkjs_proof_read(&proof, path, NULL);
        break;
    case 4:
        if (czk_snarkjs_vk_read(&vk, path, NULL) == 0)
            czk_groth16_vk_clear(&vk);
        break;
    case 5:
        if (czk_snarkjs_public_read(&v, &n, path, NULL) == 0)
            czk_free(v);
        break;
    case 6:
        if (czk_bellperson_params_read(&pk, path, CZK_KEY_CHECK_CURVE, NULL, NULL) == 0)
            czk_groth16_pk_clear(&pk);
        break;
    case 7:
        if (czk_bellperson_vk_read(&vk, path, NULL) == 0)
            czk_groth16_vk_clear(&vk);
        break;
    case 8:
        if (czk_bellperson_proofs_read(&proofs, &n, path, NULL) == 0)
            czk_free(proofs);
        break;
    default:
        if (czk_r1cs_load(&cs, path, NULL) == 0)
            czk_r1cs_clear(&cs);
        break;
    }
    /* Every reader frees what it allocated, on success (above) and on failure. */
    if (czk_alloc_in_use() != before)
        __builtin_trap();
    return 0;
}
