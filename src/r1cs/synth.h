/*
 * Synthetic circuits with satisfying witnesses, for tests and benchmarks.
 *
 * czk_synth_porep_shaped builds a circuit with the statistics of a Filecoin PoRep partition
 * (of a 32 GiB sector, domain 2^27: per row 2.38 nonzeros in A, 1.00 in B, 2.19 in C against
 * PoRep's 2.375 / 1.000 / 2.170; 99.6 % of aux variables in A and 25.4 % in B against 99.7 %
 * and 25.4 %; 98 % of aux witness values are 0 or 1) out of SHA-256-like gadgets: boolean
 * allocations (1 − b)·b = 0, XOR 2a·b = a + b − c, AND a·b = c, and packings of bits into
 * field elements Σ 2^e_i·bit_i + prev = num. It is not the PoRep circuit; it has its shape,
 * so that SpMV, batch addition and MSM timings on it predict the real ones.
 *
 * czk_synth_squaring_chain builds the dense x_{i+1} = x_i^2 chain used to compare with
 * snarkjs: every witness value is a full-size random-looking field element.
 */
#ifndef CZK_R1CS_SYNTH_H
#define CZK_R1CS_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "util/pool.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The sizes czk_synth_porep_shaped(k) will produce, computed without building it. */
typedef struct czk_synth_shape {
    size_t n_constraints; /* 2^k − n_public − 1: with the Groth16 input rows, exactly 2^k */
    size_t n_vars;        /* ONE + public + aux = n_constraints + 1 */
    size_t n_public;      /* min(328, max(1, 2^k / 64)) */
    uint64_t nnz[3];      /* entries of A, B and C */
    size_t matrix_bytes;  /* czk_r1cs_bytes of the system */
    size_t witness_bytes; /* n_vars · 32 */
} czk_synth_shape;

/*
 * Fills *out with the shape of the PoRep-shaped circuit of parameter k (4 <= k <= 31).
 * Cheap (no matrices are built). Returns CZK_OK, CZK_EINVAL or CZK_ENOMEM.
 */
int czk_synth_porep_shape(czk_synth_shape *out, unsigned k, czk_err *err);

/*
 * Builds the PoRep-shaped circuit of about 2^k constraints (exactly 2^k − n_public − 1, so
 * that the prover's domain with its n_public + 1 input rows is exactly 2^k), 4 <= k <= 31,
 * and a satisfying witness (*witness, czk_malloc'ed, n_vars entries, w[0] = 1; the caller
 * frees it with czk_free). Public inputs number min(328, max(1, 2^k / 64)): PoRep's 328 at
 * full size, scaled down for small k so that the per-row densities hold at every k.
 *
 * The result depends only on (k, seed), never on the pool or its size: each block of 256
 * rows draws from its own generator seeded from (seed, block). Multi-threaded over blocks
 * on `pool` (NULL: inline). *cs is overwritten (clear it first if it held a system); on
 * failure *cs is zeroed and *witness NULL. Returns CZK_OK, CZK_EINVAL or CZK_ENOMEM.
 *
 * Memory: czk_synth_porep_shape says exactly; about 225 bytes per constraint for the
 * matrices (32-byte coefficients dominate) plus 32 per variable for the witness, so
 * k = 27 takes about 30.2 GB + 4.3 GB.
 */
int czk_synth_porep_shaped(czk_r1cs *cs, czk_fr **witness, unsigned k, uint64_t seed,
                           czk_pool *pool, czk_err *err);

/*
 * Builds the chain x_{i+1} = x_i^2 for i < n_constraints (row i: A = x_i, B = x_i,
 * C = x_{i+1}), with x_0 drawn from `seed` and variable 1 + j holding x_j, so that the
 * public inputs are the first n_public chain values (n_public <= n_constraints + 1). n_vars
 * = n_constraints + 2. *witness is czk_malloc'ed (n_vars entries). Single-threaded (the
 * witness is a sequential chain). Returns CZK_OK, CZK_EINVAL (n_constraints = 0, too many
 * public inputs, or more than 2^32 − 2 constraints) or CZK_ENOMEM.
 */
int czk_synth_squaring_chain(czk_r1cs *cs, czk_fr **witness, size_t n_constraints, size_t n_public,
                             uint64_t seed, czk_err *err);

/*
 * A repeated system with a head (rep.h), for the tests of its consumers: the head is
 * czk_synth_porep_shaped(k_head), the block czk_synth_porep_shaped(k)'s rows renumbered to
 * sit after the head's variables, followed by 8 rows that read the head's variables in A, B
 * and C, such as (g + x)·ONE = g + x for a shared g and an own x (drawn from seed). They
 * hold whatever the values, so the whole witness (*witness, *n_vars entries, czk_free it) is
 * the head's solved from seed and each copy's from seed + 1 + s (r1cs/solve.h), every copy
 * different. *rep is overwritten (czk_r1cs_rep_clear it); zeroed on failure. 4 ≤ k_head,
 * k ≤ 20. Returns CZK_OK, CZK_EINVAL or CZK_ENOMEM.
 */
int czk_synth_rep_headed(czk_r1cs_rep *rep, czk_fr **witness, size_t *n_vars, unsigned k,
                         unsigned k_head, size_t copies, uint64_t seed, czk_pool *pool,
                         czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_R1CS_SYNTH_H */
