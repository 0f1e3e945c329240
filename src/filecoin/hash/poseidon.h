/*
 * Poseidon over BLS12-381 Fr exactly as Filecoin uses it: neptune 11's `PoseidonConstants<Fr, A>`
 * with Strength::Standard and HashType::MerkleTree, for arity a = 2, 4, 8 or 11 (width t = a + 1).
 *
 * Where Filecoin uses it: tree_c and tree_r_last nodes (arity 8, top levels 2 or 8), the column
 * hash of a sector's labels (arity 11; 2 for 2-layer test sectors), comm_r = H2(comm_c,
 * comm_r_last), and neptune's legacy circuit gadget, whose rows follow the optimised form below.
 *
 * The hash. State s = [tag, x_1 … x_a] with tag = 2^a − 1. R_F = 8 full rounds (4 before, 4 after)
 * and R_P partial rounds; round r adds the round constants RK(r) = rc[r·t .. r·t+t) to the state,
 * raises every element (full round) or element 0 only (partial round) to the 5th power, then
 * mixes with the MDS matrix M: s ← s·M (row vector times matrix; M is symmetric). The digest is
 * s[1]. That is czk_poseidon_hash_plain.
 *
 * Every constant is generated here from its definition (nothing is a table):
 *  - R_F, R_P: the Poseidon paper's security inequalities for a 256-bit prime and 128-bit
 *    security, searched for the cheapest (R_F, R_P) with t·R_F + R_P S-boxes, then widened by the
 *    security margin R_F + 2, ⌈1.075·R_P⌉ (in f32 arithmetic, with neptune's quirk that R_F grows
 *    by 2 for every secure R_P tried): R_F = 8 and R_P = 55, 56, 57, 57 for t = 3, 5, 9, 12.
 *  - round constants: the Grain LFSR of the Poseidon paper (appendix F). 80 seed bits, MSB first:
 *    field = 1 (2 bits), S-box = 1 (4 bits), field size 255 (12), t (12), R_F (10), R_P (10), 30
 *    ones; b_new = b62 ⊕ b51 ⊕ b38 ⊕ b23 ⊕ b13 ⊕ b0; the first 160 bits are discarded; output bits
 *    are self-shrunk (take bits in pairs, output the second when the first is 1). Each constant is
 *    255 output bits read as a big-endian integer, redrawn when ≥ r. (R_F + R_P)·t of them.
 *  - MDS: the Cauchy matrix M[i][j] = 1/(x_i + y_j), x_i = i, y_j = t + j, and its inverse.
 *  - compressed round constants (crc): the constants pushed back through the linear layers so that
 *    each round adds its constant after the S-box and a partial round adds only one constant:
 *    crc = RK(0) ‖ M⁻¹RK(1) ‖ M⁻¹RK(2) ‖ M⁻¹RK(3) ‖ M⁻¹acc ‖ pk[R_P−1] … pk[0] ‖ M⁻¹RK(5+R_P) ‖
 *    M⁻¹RK(6+R_P) ‖ M⁻¹RK(7+R_P), where acc starts at RK(4+R_P) and for k = 0 … R_P−1:
 *    u = M⁻¹acc, pk[k] = u[0], u[0] = 0, acc = RK(3+R_P−k) + u (M⁻¹v meaning v·M⁻¹). 8t + R_P.
 *  - sparse factorisation: M = M′·M″ with M″ sparse (dense first row and column, identity
 *    elsewhere); cur = M, then R_P times: record M″ of cur, cur = M·M′. The last cur is the
 *    pre-sparse matrix, used after the 4th full round; the recorded M″ in reverse order are the
 *    sparse matrices of the partial rounds.
 *
 * The optimised form (neptune's OptimizedStatic, czk_poseidon_hash): s += crc[0..t); then rounds
 * r = 0 … R_F+R_P−1, where a full round maps every s_i to s_i^5 + key (no key in the last round)
 * and a partial round maps only s_0, taking keys from crc in order; after round r the state is
 * mixed by czk_poseidon_round_mix(r): M, except the pre-sparse matrix after round 3 and
 * sparse[r−4] after partial round r. Its intermediate states are not those of the plain form, and
 * they are what the circuit's witness holds; czk_poseidon_hash_trace reports them.
 *
 * Cost: per hash (R_F·t + R_P) S-boxes of 3 multiplications (t = 9: 129 S-boxes) plus the mixing,
 * R_F dense t×t products and R_P sparse ones of 2t−1 multiplications: about 2,000 Fr
 * multiplications for arity 8 and 2,900 for arity 11 (the plain form mixes densely in every
 * round: 5,700 for arity 8). Measured by bench/bench_poseidon on a loaded 2-core x86-64 build
 * machine (so only roughly): 25–30, 40, 55–65 and 130–150 µs per hash for arity 2, 4, 8 and 11.
 * Generating the constants of one arity takes 15–50 ms there; czk_poseidon_constants_get does it
 * once per process, for all four arities. The circuit: 3a + 28t + 4R_P + 1 rows (311, 377, 505,
 * 598).
 *
 * Everything here is variable-time only in the constant generation; the hashes run the same
 * sequence of Fr operations for every input (Fr arithmetic is constant-time).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), neptune 11.0.0
 * (@ef8a821).
 */
#ifndef CZK_FILECOIN_HASH_POSEIDON_H
#define CZK_FILECOIN_HASH_POSEIDON_H

#include <stddef.h>

#include "field/fr.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CZK_POSEIDON_MAX_ARITY 11
#define CZK_POSEIDON_MAX_WIDTH (CZK_POSEIDON_MAX_ARITY + 1)
#define CZK_POSEIDON_FULL_ROUNDS 8
/* R_P for every width up to CZK_POSEIDON_MAX_WIDTH is at most 57. */
#define CZK_POSEIDON_MAX_PARTIAL_ROUNDS 57
#define CZK_POSEIDON_MAX_ROUNDS (CZK_POSEIDON_FULL_ROUNDS + CZK_POSEIDON_MAX_PARTIAL_ROUNDS)

/* M″ of one partial round: s′_0 = Σ_i w_hat[i]·s_i; s′_j = s_j + v_rest[j−1]·s_0 for j ≥ 1. */
typedef struct czk_poseidon_sparse {
    czk_fr w_hat[CZK_POSEIDON_MAX_WIDTH];      /* t entries: the dense first column */
    czk_fr v_rest[CZK_POSEIDON_MAX_WIDTH - 1]; /* t−1 entries: the first row but its head */
} czk_poseidon_sparse;

/*
 * The constants of one width (see the top of this file for their definitions). All field
 * elements are in czk_fr's Montgomery form; matrices are indexed [row][column] and only their
 * first `width` rows and columns are meaningful. About 87 KB; read-only after generation.
 */
typedef struct czk_poseidon_constants {
    size_t arity;            /* a: inputs per hash */
    size_t width;            /* t = a + 1 */
    size_t full_rounds;      /* R_F = 8 */
    size_t half_full_rounds; /* R_F / 2 = 4 */
    size_t partial_rounds;   /* R_P */
    czk_fr domain_tag;       /* 2^a − 1 (HashType::MerkleTree), state element 0 */
    /* rc[r·t + i] for round r, element i: (R_F + R_P)·t Grain constants, the plain form's. */
    czk_fr round_constants[CZK_POSEIDON_MAX_ROUNDS * CZK_POSEIDON_MAX_WIDTH];
    /* crc, 8t + R_P entries (n_compressed), consumed in order by the optimised form and the
     * circuit: crc[0..t) before round 0's S-boxes, then one key per S-box. */
    czk_fr compressed_round_constants[CZK_POSEIDON_FULL_ROUNDS * CZK_POSEIDON_MAX_WIDTH +
                                      CZK_POSEIDON_MAX_PARTIAL_ROUNDS];
    size_t n_compressed;
    czk_fr mds[CZK_POSEIDON_MAX_WIDTH][CZK_POSEIDON_MAX_WIDTH];        /* M, symmetric */
    czk_fr mds_inv[CZK_POSEIDON_MAX_WIDTH][CZK_POSEIDON_MAX_WIDTH];    /* M⁻¹ */
    czk_fr pre_sparse[CZK_POSEIDON_MAX_WIDTH][CZK_POSEIDON_MAX_WIDTH]; /* after round 3 */
    czk_poseidon_sparse sparse[CZK_POSEIDON_MAX_PARTIAL_ROUNDS];       /* after round 4 + k */
} czk_poseidon_constants;

/*
 * Neptune's round numbers for width t (Strength::Standard): *r_f = 8 and *r_p as described at
 * the top. Returns CZK_OK, or CZK_EINVAL when width < 2 or width > 4096.
 */
int czk_poseidon_round_numbers(size_t width, size_t *r_f, size_t *r_p);

/*
 * Generates the MerkleTree constants of `arity` (1 … CZK_POSEIDON_MAX_ARITY) into the
 * caller's *c. Returns CZK_OK, or CZK_EUNSUPPORTED for another arity (with err filled), or
 * CZK_EINTERNAL should a matrix the definition needs be singular (it never is for these
 * widths). Takes tens of milliseconds; thread-safe (no shared state). On error *c is undefined.
 */
int czk_poseidon_constants_init(czk_poseidon_constants *c, size_t arity, czk_err *err);

/*
 * The process-wide constants of one of Filecoin's arities (2, 4, 8, 11), generated on first
 * use (all four at once, under pthread_once) and never freed. *out is set on CZK_OK; returns
 * CZK_EUNSUPPORTED for another arity. Thread-safe: any number of threads may call it at once,
 * and all get the same read-only struct.
 */
int czk_poseidon_constants_get(const czk_poseidon_constants **out, size_t arity, czk_err *err);

/*
 * The MerkleTree hash of in[0 … arity) into *out, by the optimised form (the one neptune's
 * `hash()` and the circuit use). Returns CZK_OK, or CZK_EINVAL when arity != c->arity.
 */
int czk_poseidon_hash(const czk_poseidon_constants *c, const czk_fr *in, size_t arity, czk_fr *out);

/* czk_poseidon_hash with the process-wide constants of `arity` (2, 4, 8 or 11): what callers
 * hashing tree nodes and columns want. Returns CZK_OK, CZK_EUNSUPPORTED (arity) or
 * CZK_EINTERNAL, with err filled. */
int czk_poseidon_hash_arity(const czk_fr *in, size_t arity, czk_fr *out, czk_err *err);

/* The same hash by the plain permutation (round constants and M only), for cross-checks. */
int czk_poseidon_hash_plain(const czk_poseidon_constants *c, const czk_fr *in, size_t arity,
                            czk_fr *out);

/* s ← s·M″ for one sparse matrix (w_hat, v_rest) of the partial rounds, state width t: the
 * O(t) product that makes the optimised form fast. */
void czk_poseidon_mix_sparse(const czk_poseidon_sparse *m, czk_fr *s, size_t t);

/* How the state is mixed after round r of the optimised form (czk_poseidon_round_mix). */
typedef enum czk_poseidon_mix {
    CZK_POSEIDON_MIX_MDS = 0,    /* s ← s·M */
    CZK_POSEIDON_MIX_PRE_SPARSE, /* s ← s·pre_sparse (after round half_full_rounds − 1) */
    CZK_POSEIDON_MIX_SPARSE      /* s ← s·M″ of c->sparse[*sparse_index] (partial rounds) */
} czk_poseidon_mix;

/*
 * The mixing after round r (0 … R_F + R_P − 1) of the optimised form; *sparse_index is set for
 * CZK_POSEIDON_MIX_SPARSE (r − half_full_rounds) and to 0 otherwise.
 */
czk_poseidon_mix czk_poseidon_round_mix(const czk_poseidon_constants *c, size_t r,
                                        size_t *sparse_index);

/* Entries of a czk_poseidon_hash_trace trace: (R_F + R_P)·t. */
size_t czk_poseidon_trace_len(const czk_poseidon_constants *c);

/*
 * The optimised-form hash (as czk_poseidon_hash) that also reports the S-box inputs:
 * trace[r·t + i] = state element i as round r's S-box layer receives it, i.e. x_i + crc[i] in
 * round 0 and the mixed state of round r − 1 afterwards (in partial rounds elements 1 … t−1 are
 * reported too although no S-box touches them). These are the circuit's witness values:
 * for an S-box input v with key q, y2 = v², y4 = y2², y5 = v·y4 + q; the `ensure_allocated` value
 * of rounds 1 … R_F+R_P−1 is v itself. trace_len must be at least czk_poseidon_trace_len(c).
 * Returns CZK_OK, or CZK_EINVAL on a wrong arity or a short trace.
 */
int czk_poseidon_hash_trace(const czk_poseidon_constants *c, const czk_fr *in, size_t arity,
                            czk_fr *out, czk_fr *trace, size_t trace_len);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_HASH_POSEIDON_H */
