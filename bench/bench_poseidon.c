/*
 * bench_poseidon: Filecoin's Poseidon (neptune MerkleTree constants) on one core.
 *
 *   bench_poseidon               every arity (2, 4, 8, 11)
 *   CZK_BENCH_ITERS=<scale>      multiply the hash counts (default 1)
 *
 * Output is CSV (header lines start with '#'): arity, the milliseconds czk_poseidon_constants_init
 * takes, then µs per hash for the optimised form (czk_poseidon_hash) and the plain permutation.
 * Before timing, both forms are checked against each other on the bench's input; a mismatch
 * exits non-zero.
 */
#include "filecoin/hash/poseidon.h"
#include "util/alloc.h"
#include "util/timer.h"

#include <stdio.h>
#include <stdlib.h>

#ifndef CZK_GIT_COMMIT
#define CZK_GIT_COMMIT "unknown"
#endif

static volatile uint64_t sink;

int main(void) {
    static const size_t arities[] = {2, 4, 8, 11};
    const char *scale_env = getenv("CZK_BENCH_ITERS");
    long scale = scale_env ? atol(scale_env) : 1;
    if (scale < 1)
        scale = 1;
    long n = 20000 * scale;
    czk_poseidon_constants *c = czk_malloc(sizeof *c);
    if (c == NULL)
        return 1;
    printf("# bench_poseidon commit %s, %ld hashes per form\n", CZK_GIT_COMMIT, n);
    printf("# arity,init_ms,hash_us,plain_us\n");
    for (size_t k = 0; k < sizeof arities / sizeof arities[0]; k++) {
        size_t a = arities[k];
        czk_err err;
        uint64_t t0 = czk_time_ns();
        if (czk_poseidon_constants_init(c, a, &err) != CZK_OK) {
            fprintf(stderr, "init %zu: %s\n", a, err.msg);
            return 1;
        }
        uint64_t t1 = czk_time_ns();
        czk_fr in[CZK_POSEIDON_MAX_ARITY], h1, h2;
        for (size_t i = 0; i < a; i++)
            czk_fr_set_u64(&in[i], 1000 + i);
        if (czk_poseidon_hash(c, in, a, &h1) != CZK_OK ||
            czk_poseidon_hash_plain(c, in, a, &h2) != CZK_OK || !czk_fr_equal(&h1, &h2)) {
            fprintf(stderr, "arity %zu: optimised and plain forms disagree\n", a);
            return 1;
        }
        /* Chain each digest into the next input so that no call can be skipped. */
        uint64_t t2 = czk_time_ns();
        for (long i = 0; i < n; i++)
            (void)czk_poseidon_hash(c, in, a, &in[0]);
        uint64_t t3 = czk_time_ns();
        for (long i = 0; i < n; i++)
            (void)czk_poseidon_hash_plain(c, in, a, &in[0]);
        uint64_t t4 = czk_time_ns();
        sink += in[0].l[0];
        printf("%zu,%.2f,%.2f,%.2f\n", a, (t1 - t0) / 1e6, (t3 - t2) / 1e3 / n,
               (t4 - t3) / 1e3 / n);
    }
    czk_free(c);
    return 0;
}
