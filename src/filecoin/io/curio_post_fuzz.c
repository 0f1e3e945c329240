/*
 * libFuzzer target for Curio's PoSt public JSON (curio_post.h): the input is the file's text.
 * The parser may refuse anything; it must never crash, leak or leave a half-filled result. A
 * file that parses is written back and parsed again, and must give the same public data. Seeds:
 * tests/fuzz/curio_post_fuzz/ (Curio's file for the real 32 GiB proof, and a 3-sector one).
 */
#include "filecoin/io/curio_post.h"
#include "util/alloc.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static int same(const czk_post_public *a, const czk_post_public *b) {
    if (a->registered_proof != b->registered_proof || a->prover != b->prover ||
        a->n_sectors != b->n_sectors || memcmp(a->randomness, b->randomness, 32) != 0)
        return 0;
    for (size_t i = 0; i < a->n_sectors; i++)
        if (a->sectors[i].sector_number != b->sectors[i].sector_number ||
            a->sectors[i].seal_proof != b->sectors[i].seal_proof ||
            !czk_fr_equal(&a->sectors[i].comm_r, &b->sectors[i].comm_r))
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    size_t before = czk_alloc_in_use();
    czk_post_public p, q;
    czk_err e = {0};
    int rc = czk_post_public_parse(&p, (const char *)data, size, "fuzz.json", &e);
    if (rc != CZK_OK) {
        if (e.msg[0] == '\0' || p.sectors != NULL || p.n_sectors != 0)
            __builtin_trap();
    } else {
        if (p.n_sectors == 0 || p.sectors == NULL)
            __builtin_trap();
        char path[64];
        snprintf(path, sizeof path, "/tmp/czk-post-public-fuzz-%d.json", (int)getpid());
        if (czk_post_public_write(path, &p, NULL) == CZK_OK) {
            if (czk_post_public_read(&q, path, NULL) != CZK_OK || !same(&p, &q))
                __builtin_trap();
            czk_post_public_clear(&q);
        }
        (void)unlink(path);
        czk_post_public_clear(&p);
    }
    if (czk_alloc_in_use() != before)
        __builtin_trap();
    return 0;
}
