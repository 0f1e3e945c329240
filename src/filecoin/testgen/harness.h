/*
 * The Filecoin tests' shared harness: a circuit run through every constraint-system mode and
 * cross-checked, single-mode runs, row comparisons, and 2 KiB sealed-sector fixtures. One copy
 * for the gadget, PoSt and PoRep tests, which each had their own.
 *
 * Test code only: harness_test.c is named *_test.c so that CMake's globs build it into
 * czk_tests and never into czk_filecoin (it calls the test runner's czk_test_fail), and so that
 * tools/check_layers.sh treats it as a test. It has no CZK_TEST_ENTRY of its own. Production
 * code may not include this header (filecoin/testgen/ is the test generators' rank).
 */
#ifndef CZK_FILECOIN_TESTGEN_HARNESS_H
#define CZK_FILECOIN_TESTGEN_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "field/fr.h"
#include "filecoin/gadgets/cs.h"
#include "filecoin/io/c1.h"
#include "filecoin/porep/c1_check.h"
#include "r1cs/r1cs.h"
#include "tests/test.h"
#include "util/status.h"

/* A test circuit: run once per mode on the same `ctx` (its inputs), the way a real circuit is
 * synthesised by the generator, the prover and the witness pass. With values it may check its
 * own outputs and fail the system (CZK_EINTERNAL) when they are wrong. */
typedef int (*czk_harness_fn)(czk_cs *cs, void *ctx);

/* What czk_harness_run_modes produced, for further checks; czk_harness_run_clear frees it. */
typedef struct czk_harness_run {
    czk_r1cs r;         /* RECORD mode's system */
    czk_fr *w;          /* WITNESS mode's vector: ONE, inputs, aux */
    size_t w_n;         /* entries of w (= r.n_vars) */
    czk_cs_stats stats; /* the figures (COUNT's and RECORD's, which are equal) */
} czk_harness_run;

/* czk_harness_run_modes option: every aux appears in some row, as czk's generator demands of
 * a whole circuit (a gadget tested alone may leave some unused). */
#define CZK_HARNESS_AUX_USED 1u

/*
 * Runs `fn` in WITNESS, WITNESS+CHECK, RECORD+DIGEST, RECORD+CHECK and COUNT+DIGEST modes
 * and cross-checks them: WITNESS builds no rows and WITNESS+CHECK does; both witness passes
 * give the same vector; the recorded system is valid, holds exactly czk_r1cs_bytes of memory
 * and is satisfied by the witness; COUNT's figures (sized up front from RECORD's), nnz and
 * densities equal those recomputed from the recorded matrices; both streaming digests equal
 * the one recomputed from the recorded system; every pass sees the same rows, inputs and aux.
 * `flags`: 0 or CZK_HARNESS_AUX_USED. Returns 1 when all hold (*res filled; the caller clears
 * it), else 0 after failing the test (*res cleared).
 */
int czk_harness_run_modes(czk_test_ctx *t, czk_harness_fn fn, void *ctx, unsigned flags,
                          czk_harness_run *res);

void czk_harness_run_clear(czk_harness_run *res);

/* czk_harness_run_modes for callers that need only the figures: *st (if not NULL) gets them.
 * Returns 1 when all checks hold, else 0 after failing the test. */
int czk_harness_check_modes(czk_test_ctx *t, czk_harness_fn fn, void *ctx, unsigned flags,
                            czk_cs_stats *st);

/*
 * Runs fn once in `mode` with CZK_CS_* `flags`. *st (if not NULL) gets the figures, whatever
 * the outcome; with CZK_CS_DIGEST and success, digest (32 bytes) gets the digest. Returns
 * fn's code; on failure *err (if not NULL) gets the system's error.
 */
int czk_harness_run_one(czk_harness_fn fn, void *ctx, czk_cs_mode mode, unsigned flags,
                        czk_cs_stats *st, uint8_t *digest, czk_err *err);

/* czk_harness_run_one in COUNT mode that fails the test on error: returns 1 when *st holds
 * fn's figures, else 0. */
int czk_harness_count(czk_test_ctx *t, czk_harness_fn fn, void *ctx, czk_cs_stats *st);

/* Whether row `row` of m is exactly the n given (col, val) terms, in column order. */
int czk_harness_row_is(const czk_r1cs_matrix *m, size_t row, const uint32_t *cols,
                       const czk_fr *vals, size_t n);

/* Clears and frees a witness vector of n values (NULL is a no-op). */
void czk_harness_free_witness(czk_fr *w, size_t n);

/*
 * Seals a 2 KiB sector of random data with registered proof `abi` (V1_1 or synthetic) into
 * *c1 (czk_c1_clear). The prover id and sector number are ids' when ids is not NULL, else
 * random. The ticket and seed are random below r, so that the output also passes c1.c's
 * parser, which demands field elements everywhere. Returns the status.
 */
int czk_harness_seal_2k(czk_test_ctx *t, uint64_t abi, czk_c1 *c1, const czk_porep_sector_ids *ids,
                        czk_err *err);

#endif
