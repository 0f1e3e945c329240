/*
 * DESIGN: the SnapDeals partition circuit (contract in snap.h).
 *
 * czk_snap_synthesize replays rust-fil-proofs@87348a74:storage-proofs-update/src/circuit.rs
 * EmptySectorUpdateCircuit::synthesize call for call, with its gadgets from
 * storage-proofs-update/src/gadgets.rs (apex_por, gen_challenge_bits, get_challenge_high_bits,
 * label_r_new), storage-proofs-core/src/gadgets/por.rs por_no_challenge_input and
 * insertion.rs select. Only the order of allocations and rows matters (doc/FILECOIN.md §1), so
 * each step below names the Rust lines it replays.
 *
 * Where this differs from PoRep's and PoSt's inclusion proofs: por_no_challenge_input allocates
 * no index bits and packs no input (the challenge's bits are reused, LSB first, as the insertion
 * positions), and the caller allocates every sibling of a path before any of its hashes.
 *
 * The gen-randomness Poseidon (phi, rho, challenge digests) is neptune's arity-2 permutation
 * with the domain tag of HashType::Custom(CType::Arbitrary(1)): 1·2^40
 * (argumentcomputer/neptune@ef8a821:src/hash_type.rs:93-99). Round constants and matrices do
 * not depend on the hash type, so its constants are the MerkleTree ones with another tag, and
 * its circuit template is built from them once per process.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb), neptune 11.0.0 (@ef8a821).
 */
#include "filecoin/snap/snap.h"

#include <openssl/sha.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "filecoin/gadgets/cs_parts.h"
#include "filecoin/gadgets/gadget_internal.h"
#include "filecoin/gadgets/gadgets.h"
#include "filecoin/gadgets/poseidon_gadget.h"
#include "filecoin/gadgets/sha256_gadget.h"
#include "filecoin/hash/poseidon.h"
#include "filecoin/io/params.h"
#include "util/alloc.h"

/* ---- shapes ------------------------------------------------------------------------------ */

static uint32_t log2_u64(uint64_t v) {
    uint32_t n = 0;
    while ((1ull << n) < v)
        n++;
    return n;
}

int czk_snap_shape_init(czk_snap_shape *out, uint64_t sector_size, czk_err *err) {
    /* storage-proofs-update/src/constants.rs:37-50 ALLOWED_SECTOR_SIZES, with the TreeR shapes
     * (base, sub, top arity) that constants.rs:134-162 validate_tree_r_shape requires; the
     * production ones are filecoin-proofs' SectorShape2KiB … 64GiB. */
    static const struct {
        uint64_t size;
        uint32_t sub, top;
    } table[] = {
        {1ull << 10, 4, 0},   {2ull << 10, 0, 0},  {4ull << 10, 2, 0},  {8ull << 10, 4, 0},
        {16ull << 10, 8, 0},  {32ull << 10, 8, 2}, {8ull << 20, 0, 0},  {16ull << 20, 2, 0},
        {512ull << 20, 0, 0}, {32ull << 30, 8, 0}, {64ull << 30, 8, 2},
    };
    memset(out, 0, sizeof(*out));
    for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++) {
        if (table[i].size != sector_size)
            continue;
        uint64_t nodes = sector_size / 32;
        uint32_t sub = table[i].sub, top = table[i].top;
        out->sector_size = sector_size;
        out->nodes = nodes;
        out->challenge_bit_len = log2_u64(nodes);
        /* constants.rs:65-86 partition_count and challenge_count: 8 KiB is 2^8 nodes,
         * 32 KiB 2^10, 16 MiB 2^19. */
        out->partitions = nodes <= (1u << 8)    ? 1
                          : nodes <= (1u << 10) ? 2
                          : nodes <= (1u << 19) ? 4
                                                : 16;
        out->partition_bit_len = log2_u64(out->partitions);
        out->challenges = nodes <= (1u << 19) ? 10 : 86;
        /* constants.rs:126-132 apex_leaf_count */
        out->apex_leaves = nodes <= (1u << 8) ? 8 : 128;
        out->apex_leaf_bit_len = log2_u64(out->apex_leaves);
        /* constants.rs:98-104 hs */
        for (uint32_t j = 0; j < CZK_SNAP_N_HS; j++)
            out->hs[j] = nodes <= (1u << 10) ? 1 : 7 + j;
        out->tree_r.base_arity = 8;
        out->tree_r.sub_arity = sub;
        out->tree_r.top_arity = top;
        out->tree_r.base_levels =
            (out->challenge_bit_len - (sub ? log2_u64(sub) : 0) - (top ? log2_u64(top) : 0)) / 3;
        out->tree_r_variant = czk_vanilla_variant_of(sub, top);
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EUNSUPPORTED,
                       "snap: sector size %llu is not an update proof's (2 KiB, 8 MiB, 512 MiB, "
                       "32 GiB, 64 GiB, or a test size of rust-fil-proofs)",
                       (unsigned long long)sector_size);
}

void czk_snap_partition_proof_clear(czk_snap_partition_proof *p) {
    if (p == NULL)
        return;
    czk_free(p->challenge);
    memset(p, 0, sizeof(*p));
}

uint32_t czk_snap_tree_r_arity(const czk_por_shape *t, uint32_t l) {
    if (l < t->base_levels)
        return t->base_arity;
    if (l == t->base_levels && t->sub_arity != 0)
        return t->sub_arity;
    return t->top_arity;
}

int czk_snap_tree_d_node(czk_fr *out, const czk_fr *a, const czk_fr *b) {
    uint8_t buf[64], d[32];
    czk_fr_to_bytes_le(buf, a);
    czk_fr_to_bytes_le(buf + 32, b);
    if (SHA256(buf, 64, d) == NULL)
        return CZK_EINTERNAL;
    d[31] &= 0x3f;
    return czk_fr_from_bytes_le(out, d) == CZK_OK ? CZK_OK : CZK_EINTERNAL;
}

static uint32_t arity_bits(uint32_t arity) {
    return arity == 8 ? 3 : arity == 4 ? 2 : 1;
}

/* Whether the shape is one this file can synthesise: paths that consume exactly the
 * challenge's bits, within the fixed bounds of snap.h. */
static int shape_ok(const czk_snap_shape *sh) {
    uint32_t levels = czk_por_shape_levels(&sh->tree_r), bits = 0;
    if (levels == 0 || levels > CZK_VANILLA_MAX_LEVELS || sh->challenge_bit_len == 0 ||
        sh->challenge_bit_len > CZK_SNAP_MAX_LEVELS || sh->challenges == 0 ||
        sh->challenges > CZK_SNAP_MAX_CHALLENGES || sh->apex_leaves == 0 ||
        sh->apex_leaves > CZK_SNAP_MAX_APEX || sh->apex_leaves != (1u << sh->apex_leaf_bit_len) ||
        sh->partitions != (1u << sh->partition_bit_len) ||
        sh->partition_bit_len + sh->apex_leaf_bit_len > sh->challenge_bit_len ||
        (uint64_t)1 << sh->challenge_bit_len != sh->nodes)
        return 0;
    for (uint32_t l = 0; l < levels; l++)
        bits += arity_bits(czk_snap_tree_r_arity(&sh->tree_r, l));
    if (bits != sh->challenge_bit_len)
        return 0;
    uint32_t rand_bits = sh->challenge_bit_len - sh->partition_bit_len;
    for (int i = 0; i < CZK_SNAP_N_HS; i++)
        if (sh->hs[i] == 0 || sh->hs[i] > sh->challenge_bit_len)
            return 0;
    return rand_bits > 0 && rand_bits <= 254;
}

int czk_snap_shape_valid(const czk_snap_shape *shape) {
    return shape_ok(shape);
}

/* ---- the gen-randomness Poseidon --------------------------------------------------------- */

/* Written once under gen_once, read-only afterwards (pthread_once orders the writes before
 * every reader). */
static czk_poseidon_constants gen_constants;
static czk_poseidon_circuit gen_circuit;
static int gen_status;
static czk_err gen_err;
static pthread_once_t gen_once = PTHREAD_ONCE_INIT;

static void gen_init(void) {
    const czk_poseidon_constants *c2;
    gen_status = czk_poseidon_constants_get(&c2, 2, &gen_err);
    if (gen_status != CZK_OK)
        return;
    gen_constants = *c2;
    /* storage-proofs-update/src/constants.rs:17-22: HashType::Custom(CType::Arbitrary(1)),
     * whose tag is identifier · 2^40. */
    czk_fr_set_u64(&gen_constants.domain_tag, 1ull << 40);
    gen_status = czk_poseidon_circuit_init(&gen_circuit, &gen_constants, &gen_err);
}

static int gen_get(const czk_poseidon_circuit **pc, czk_err *err) {
    if (pthread_once(&gen_once, gen_init) != 0)
        return czk_err_set(err, CZK_EINTERNAL, "snap: pthread_once failed");
    if (gen_status != CZK_OK) {
        if (err != NULL)
            *err = gen_err;
        return gen_status;
    }
    *pc = &gen_circuit;
    return CZK_OK;
}

int czk_snap_hash_gen(czk_fr *out, const czk_fr *a, const czk_fr *b, czk_err *err) {
    const czk_poseidon_circuit *pc;
    int rc = gen_get(&pc, err);
    if (rc != CZK_OK)
        return rc;
    czk_fr in[2] = {*a, *b};
    if (czk_poseidon_hash(pc->constants, in, 2, out) != CZK_OK)
        return czk_err_set(err, CZK_EINTERNAL, "snap: poseidon hash failed");
    return CZK_OK;
}

int czk_snap_params_file_name(char *out, size_t cap, const czk_snap_shape *shape, const char *ext,
                              czk_err *err) {
    char id[96];
    uint8_t digest[32];
    snprintf(id, sizeof(id), "empty_sector_update::PublicParams{ sector_nodes: %llu }",
             (unsigned long long)shape->nodes);
    if (SHA256((const unsigned char *)id, strlen(id), digest) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "snap: SHA-256 of the parameter identifier failed");
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", digest[i]);
    int n =
        snprintf(out, cap, "v%d-empty-sector-update-merkletree-poseidon_hasher-8-%u-%u-%s%s",
                 CZK_PARAMS_VERSION, shape->tree_r.sub_arity, shape->tree_r.top_arity, hex, ext);
    if (n < 0 || (size_t)n >= cap)
        return czk_err_set(err, CZK_ELENGTH, "snap: a parameter file name needs %d bytes", n + 1);
    return CZK_OK;
}

/* ---- public inputs and challenges -------------------------------------------------------- */

/* The index of h in shape->hs (constants.rs:115-124 h_select: the first match), or -1. */
static int h_index(const czk_snap_shape *sh, uint32_t h) {
    for (int i = 0; i < CZK_SNAP_N_HS; i++)
        if (sh->hs[i] == h)
            return i;
    return -1;
}

int czk_snap_public_inputs(czk_fr out[4], const czk_snap_shape *shape, const czk_snap_public *pub,
                           uint32_t k, czk_err *err) {
    if (k >= shape->partitions)
        return czk_err_set(err, CZK_EINVAL, "snap: partition %u of a %u-partition proof", k,
                           shape->partitions);
    int hi = h_index(shape, pub->h);
    if (hi < 0)
        return czk_err_set(err, CZK_EINVAL, "snap: h = %u is not allowed for a %llu-byte sector",
                           pub->h, (unsigned long long)shape->sector_size);
    /* circuit.rs:47-72 PublicInputs::new: k | h_select << partition_bit_len. */
    czk_fr_set_u64(&out[0], (uint64_t)k | ((uint64_t)1 << hi) << shape->partition_bit_len);
    static const char *const names[3] = {"comm_r_old", "comm_d_new", "comm_r_new"};
    const uint8_t *bytes[3] = {pub->comm_r_old, pub->comm_d_new, pub->comm_r_new};
    for (int i = 0; i < 3; i++)
        if (czk_fr_from_bytes_le(&out[1 + i], bytes[i]) != CZK_OK)
            return czk_err_set(err, CZK_ERANGE, "snap: %s is not below the field modulus r",
                               names[i]);
    return CZK_OK;
}

/* Digests per partition and challenges per digest (gadgets.rs:99-104, challenges.rs:41-55). */
static void digest_counts(const czk_snap_shape *sh, uint32_t *per_digest, uint32_t *digests) {
    uint32_t rand_bits = sh->challenge_bit_len - sh->partition_bit_len;
    *per_digest = 254 / rand_bits; /* Fr::CAPACITY */
    *digests = (sh->challenges + *per_digest - 1) / *per_digest;
}

int czk_snap_challenges(uint32_t *out, const czk_snap_shape *shape, const czk_fr *comm_r_new,
                        uint32_t k, czk_err *err) {
    if (!shape_ok(shape))
        return czk_err_set(err, CZK_EINVAL, "snap: invalid circuit shape");
    if (k >= shape->partitions)
        return czk_err_set(err, CZK_EINVAL, "snap: partition %u of a %u-partition proof", k,
                           shape->partitions);
    uint32_t per_digest, digests, rand_bits = shape->challenge_bit_len - shape->partition_bit_len;
    digest_counts(shape, &per_digest, &digests);
    uint32_t n = 0;
    /* challenges.rs:93-131: digest = H(comm_r_new ‖ k·digests + j), challenge i of a digest is
     * its bits [i·rand_bits, (i+1)·rand_bits) LE, with k above them. */
    for (uint32_t j = 0; j < digests; j++) {
        czk_fr index, digest;
        uint64_t limbs[CZK_FR_LIMBS];
        czk_fr_set_u64(&index, (uint64_t)k * digests + j);
        int rc = czk_snap_hash_gen(&digest, comm_r_new, &index, err);
        if (rc != CZK_OK)
            return rc;
        czk_fr_to_limbs(limbs, &digest);
        for (uint32_t i = 0; i < per_digest && n < shape->challenges; i++, n++) {
            uint32_t c = 0;
            for (uint32_t b = 0; b < rand_bits; b++) {
                uint32_t bit = i * rand_bits + b;
                c |= (uint32_t)((limbs[bit / 64] >> (bit % 64)) & 1) << b;
            }
            out[n] = c | k << rand_bits;
        }
    }
    return CZK_OK;
}

/* ---- synthesis --------------------------------------------------------------------------- */

typedef struct snap_ctx {
    czk_cs *cs;
    const czk_snap_shape *sh;
    const czk_poseidon_circuit *gen, *h2, *h4, *h8;
} snap_ctx;

/* por_no_challenge_input over TreeR (Poseidon): per level, leaf to root, insert the running
 * node among the level's siblings at the position the next log2(arity) challenge bits name,
 * hash; then the row computed · ONE = root (storage-proofs-core/src/gadgets/por.rs:457-599). */
static int por_tree_r(const snap_ctx *x, const czk_var *c_bits, czk_var leaf,
                      const czk_var (*sib)[CZK_VANILLA_MAX_SIBLINGS], czk_var root) {
    const czk_por_shape *t = &x->sh->tree_r;
    uint32_t levels = czk_por_shape_levels(t), bit = 0;
    czk_var cur = leaf, pre[8];
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t arity = czk_snap_tree_r_arity(t, l), nb = arity_bits(arity);
        czk_bool bits[3];
        for (uint32_t i = 0; i < nb; i++)
            bits[i] = czk_bool_is(c_bits[bit + i]);
        const czk_poseidon_circuit *pc = arity == 8 ? x->h8 : arity == 4 ? x->h4 : x->h2;
        TRY(czk_gadget_insert(x->cs, pre, cur, bits, nb, sib[l], arity - 1));
        TRY(czk_poseidon_gadget_hash(x->cs, &cur, pc, pre, arity));
        bit += nb;
    }
    return czk_gadget_equal(x->cs, cur, root);
}

/* por_no_challenge_input over TreeD (binary SHA-256): insert_2 and the SHA-256 node hash per
 * level (filecoin-hashers/src/sha256.rs:161-181), then computed · ONE = root. */
static int por_tree_d(const snap_ctx *x, const czk_var *c_bits, uint32_t levels, czk_var leaf,
                      const czk_var *sib, czk_var root) {
    czk_var cur = leaf, pre[2];
    for (uint32_t l = 0; l < levels; l++) {
        czk_bool b = czk_bool_is(c_bits[l]);
        TRY(czk_gadget_insert(x->cs, pre, cur, &b, 1, &sib[l], 1));
        TRY(czk_sha256_gadget_hash_leaves(x->cs, &cur, pre, 2));
    }
    return czk_gadget_equal(x->cs, cur, root);
}

/* AllocatedNum::alloc from an optional value (NULL without values). */
static int alloc_num(czk_cs *cs, czk_var *out, const czk_fr *v) {
    return czk_gadget_num_alloc(cs, out, v);
}

/* bits[0..n) · 2^i summed, times ONE, equals x: the unpacking rows of circuit.rs:449-460 and
 * gadgets.rs:27-37 (unlike AllocatedNum::to_bits_le, the sum is in A and x in C). */
static int enforce_unpack(czk_cs *cs, const czk_var *bits, size_t n, czk_var x) {
    CZK_LC_DECL(A, 255);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        czk_fr coeff = CZK_FR_ONE;
        for (size_t i = 0; i < n; i++) {
            czk_lc_add(&A, bits[i], &coeff);
            czk_fr_dbl(&coeff, &coeff);
        }
        czk_lc_add_var(&B, CZK_VAR_ONE);
        czk_lc_add_var(&C, x);
    }
    return czk_cs_enforce(cs, &A, &B, &C);
}

/* Allocates the 255 bits of x's value, LSB first (field_into_allocated_bits_le), and the
 * unpacking row: gadgets.rs:18-40 allocated_num_to_allocated_bits. */
static int num_to_bits(czk_cs *cs, czk_var out[255], czk_var x) {
    uint64_t limbs[CZK_FR_LIMBS] = {0};
    const czk_fr *xv = czk_cs_value(cs, x);
    if (xv != NULL)
        czk_fr_to_limbs(limbs, xv);
    for (int i = 0; i < 255; i++)
        TRY(czk_gadget_bit_alloc(cs, &out[i], (int)((limbs[i / 64] >> (i % 64)) & 1)));
    return enforce_unpack(cs, out, 255, x);
}

/* gadgets.rs:164-244 get_challenge_high_bits: for each allowed h, pack the h top challenge bits,
 * scale by its h_select bit, and sum the six products into one aux. */
static int challenge_high(const snap_ctx *x, czk_var *out, const czk_var *c_bits,
                          const czk_var *h_select) {
    czk_cs *cs = x->cs;
    uint32_t len = x->sh->challenge_bit_len;
    int values = czk_cs_has_values(cs);
    czk_var or_zero[CZK_SNAP_N_HS], high, sel;
    czk_bool bits[CZK_SNAP_MAX_LEVELS];
    for (uint32_t i = 0; i < len; i++)
        bits[i] = czk_bool_is(c_bits[i]);
    czk_fr sum = CZK_FR_ZERO;
    for (int i = 0; i < CZK_SNAP_N_HS; i++) {
        uint32_t h = x->sh->hs[i];
        TRY(czk_gadget_pack_bits(cs, &high, bits + (len - h), h));
        czk_fr v = CZK_FR_ZERO;
        if (values && !czk_fr_is_zero(czk_cs_value(cs, h_select[i])))
            v = *czk_cs_value(cs, high);
        czk_fr_add(&sum, &sum, &v);
        TRY(alloc_num(cs, &or_zero[i], &v));
        TRY(czk_gadget_enforce_product(cs, high, h_select[i], or_zero[i]));
    }
    TRY(alloc_num(cs, &sel, &sum));
    CZK_LC_DECL(A, CZK_SNAP_N_HS);
    CZK_LC_DECL(B, 1);
    CZK_LC_DECL(C, 1);
    if (czk_cs_builds_rows(cs)) {
        for (int i = 0; i < CZK_SNAP_N_HS; i++)
            czk_lc_add_var(&A, or_zero[i]);
        czk_lc_add_var(&B, CZK_VAR_ONE);
        czk_lc_add_var(&C, sel);
    }
    TRY(czk_cs_enforce(cs, &A, &B, &C));
    *out = sel;
    return CZK_OK;
}

/* gadgets.rs:247-274 label_r_new: d·rho (AllocatedNum::mul), then r_old + d·rho, whose one
 * aux and row (r_old + prod)·ONE = r_new are AllocatedNum::add's (czk_gadget_add). */
static int label_r_new(const snap_ctx *x, czk_var *out, czk_var r_old, czk_var d_new, czk_var rho) {
    czk_cs *cs = x->cs;
    czk_var prod;
    czk_fr pv;
    int values = czk_cs_has_values(cs);
    if (values)
        czk_fr_mul(&pv, czk_cs_value(cs, d_new), czk_cs_value(cs, rho));
    TRY(alloc_num(cs, &prod, values ? &pv : NULL));
    TRY(czk_gadget_enforce_product(cs, d_new, rho, prod));
    return czk_gadget_add(cs, out, r_old, prod);
}

/* Allocates a TreeR path's siblings, level by level (circuit.rs:635-661). */
static int alloc_path_r(const snap_ctx *x, czk_var (*sib)[CZK_VANILLA_MAX_SIBLINGS],
                        const czk_snap_inclusion *p) {
    uint32_t levels = czk_por_shape_levels(&x->sh->tree_r);
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t arity = czk_snap_tree_r_arity(&x->sh->tree_r, l);
        for (uint32_t s = 0; s + 1 < arity; s++)
            TRY(alloc_num(x->cs, &sib[l][s], p ? &p->level[l].sib[s] : NULL));
    }
    return CZK_OK;
}

/* One challenge's part of the circuit: circuit.rs:582-742, for challenge c. */
static int challenge_synthesize(const snap_ctx *x, const czk_snap_challenge_proof *p,
                                const czk_var *c_bits, const czk_var *h_select, czk_var phi,
                                czk_var root_r_old, czk_var root_r_new, const czk_var *apex,
                                uint32_t c) {
    czk_cs *cs = x->cs;
    const czk_snap_shape *sh = x->sh;
    czk_var high, rho, leaf_r_old, leaf_d_new, leaf_r_new, pair[2];
    czk_var sib[CZK_VANILLA_MAX_LEVELS][CZK_VANILLA_MAX_SIBLINGS];

    /* rho = H(phi ‖ c_high) */
    TRY(challenge_high(x, &high, c_bits, h_select));
    pair[0] = phi;
    pair[1] = high;
    TRY(czk_poseidon_gadget_hash(cs, &rho, x->gen, pair, 2));

    TRY(alloc_num(cs, &leaf_r_old, p ? &p->r_old.leaf : NULL));
    TRY(alloc_num(cs, &leaf_d_new, p ? &p->d_new.leaf : NULL));
    TRY(label_r_new(x, &leaf_r_new, leaf_r_old, leaf_d_new, rho));
    /* circuit.rs:630-633 asserts the encoding agrees with the proof's TreeRNew leaf. */
    if (p != NULL && !czk_fr_equal(czk_cs_value(cs, leaf_r_new), &p->r_new.leaf))
        return czk_cs_set_error(cs, CZK_EINVAL,
                                "snap: challenge %u: TreeRNew's leaf is not TreeROld's leaf plus "
                                "the data leaf times rho",
                                c);

    TRY(alloc_path_r(x, sib, p ? &p->r_old : NULL));
    TRY(por_tree_r(x, c_bits, leaf_r_old, (const czk_var(*)[CZK_VANILLA_MAX_SIBLINGS])sib,
                   root_r_old));
    TRY(alloc_path_r(x, sib, p ? &p->r_new : NULL));
    TRY(por_tree_r(x, c_bits, leaf_r_new, (const czk_var(*)[CZK_VANILLA_MAX_SIBLINGS])sib,
                   root_r_new));

    /* insertion.rs select: the apex leaf the challenge's bits [start, start + apex bits) name,
     * picked most significant bit first, halving the candidates each time. */
    uint32_t start = sh->challenge_bit_len - sh->partition_bit_len - sh->apex_leaf_bit_len;
    czk_var state[CZK_SNAP_MAX_APEX];
    memcpy(state, apex, sizeof(czk_var) * sh->apex_leaves);
    uint32_t half = sh->apex_leaves / 2;
    for (uint32_t i = sh->apex_leaf_bit_len; i-- > 0; half /= 2) {
        czk_bool bit = czk_bool_is(c_bits[start + i]);
        for (uint32_t j = 0; j < half; j++)
            TRY(czk_gadget_pick(cs, &state[j], &bit, state[half + j], state[j]));
    }

    /* TreeDNew from the data leaf up to the selected apex leaf. */
    czk_var dsib[CZK_SNAP_MAX_LEVELS];
    for (uint32_t l = 0; l < start; l++)
        TRY(alloc_num(cs, &dsib[l], p ? &p->d_new.level[l].sib[0] : NULL));
    return por_tree_d(x, c_bits, start, leaf_d_new, dsib, state[0]);
}

/* Whether vp fits the shape (czk_snap_synthesize checks it before reading it), and the Rust
 * asserts of circuit.rs:404-417 (every challenge shares challenge 0's partition path). Sets the
 * error on cs. */
static int proof_fits(czk_cs *cs, const czk_snap_shape *sh, const czk_snap_partition_proof *vp,
                      const uint32_t *challenges) {
    uint32_t levels = czk_por_shape_levels(&sh->tree_r), top = sh->challenge_bit_len;
    if (vp->n_apex != sh->apex_leaves || vp->n_challenges != sh->challenges ||
        vp->challenge == NULL)
        return czk_cs_set_error(cs, CZK_EINVAL,
                                "snap: the partition proof has %u apex leaves and %u challenge "
                                "proofs, a %llu-byte sector needs %u and %u",
                                vp->n_apex, vp->n_challenges, (unsigned long long)sh->sector_size,
                                sh->apex_leaves, sh->challenges);
    for (uint32_t c = 0; c < sh->challenges; c++) {
        const czk_snap_challenge_proof *p = &vp->challenge[c];
        const czk_snap_inclusion *r[2] = {&p->r_old, &p->r_new};
        for (int t = 0; t < 2; t++) {
            int ok = r[t]->n_levels == levels;
            for (uint32_t l = 0; ok && l < levels; l++)
                ok = r[t]->level[l].arity == czk_snap_tree_r_arity(&sh->tree_r, l);
            if (!ok)
                return czk_cs_set_error(cs, CZK_EINVAL,
                                        "snap: challenge %u: the %s path does not fit the "
                                        "sector's TreeR",
                                        c, t == 0 ? "TreeROld" : "TreeRNew");
        }
        int ok = p->d_new.n_levels == top;
        for (uint32_t l = 0; ok && l < top; l++)
            ok = p->d_new.level[l].arity == 2;
        if (!ok)
            return czk_cs_set_error(cs, CZK_EINVAL,
                                    "snap: challenge %u: the TreeDNew path does not have %u "
                                    "binary levels",
                                    c, top);
        /* What vanilla.rs:209-227 verify_merkle_proofs checks: each path proves c. */
        if (p->r_old.leaf_index != challenges[c] || p->d_new.leaf_index != challenges[c] ||
            p->r_new.leaf_index != challenges[c])
            return czk_cs_set_error(cs, CZK_EINVAL,
                                    "snap: challenge %u is node %u, but the paths prove nodes "
                                    "%llu, %llu and %llu",
                                    c, challenges[c], (unsigned long long)p->r_old.leaf_index,
                                    (unsigned long long)p->d_new.leaf_index,
                                    (unsigned long long)p->r_new.leaf_index);
        for (uint32_t l = top - sh->partition_bit_len; c > 0 && l < top; l++)
            if (!czk_fr_equal(&p->d_new.level[l].sib[0], &vp->challenge[0].d_new.level[l].sib[0]))
                return czk_cs_set_error(cs, CZK_EINVAL,
                                        "snap: challenge %u: TreeDNew level %u differs from "
                                        "challenge 0's partition path",
                                        c, l);
    }
    return CZK_OK;
}

/* What every challenge reads of the global part: its variables, and the hashes' circuits
 * (x.cs is the system a challenge goes into: set by whoever runs it). */
typedef struct snap_globals {
    snap_ctx x;
    czk_var c_bits[CZK_SNAP_MAX_CHALLENGES][CZK_SNAP_MAX_LEVELS];
    czk_var h_select[CZK_SNAP_N_HS];
    czk_var phi, root_r_old, root_r_new;
    czk_var apex[CZK_SNAP_MAX_APEX];
} snap_globals;

/* The global part (circuit.rs:418-571) into cs: checks, public inputs, commitments, the apex
 * tree and the challenges' bits, into g. */
static int snap_global(czk_cs *cs, const czk_snap_shape *shape, const czk_snap_public *pub,
                       const czk_snap_partition_proof *vp, uint32_t k, snap_globals *g) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    if (!shape_ok(shape))
        return czk_cs_set_error(cs, CZK_EINVAL, "snap: invalid circuit shape");
    const int values = czk_cs_has_values(cs);
    if (values && (pub == NULL || vp == NULL))
        return czk_cs_set_error(cs, CZK_EINVAL,
                                "snap: the system needs values and has no partition proof");
    const czk_snap_shape *sh = shape;
    const uint32_t pb = sh->partition_bit_len, cbl = sh->challenge_bit_len;
    const uint32_t rand_bits = cbl - pb;
    czk_err perr = {0};
    snap_ctx x = {cs, sh, NULL, NULL, NULL, NULL};
    czk_var(*c_bits)[CZK_SNAP_MAX_LEVELS] = g->c_bits;
    if (gen_get(&x.gen, &perr) != CZK_OK || czk_poseidon_circuit_get(&x.h2, 2, &perr) != CZK_OK ||
        czk_poseidon_circuit_get(&x.h4, 4, &perr) != CZK_OK ||
        czk_poseidon_circuit_get(&x.h8, 8, &perr) != CZK_OK)
        return czk_cs_set_error(cs, CZK_EINTERNAL, "snap: %s", perr.msg);

    /* With values: the public inputs (which check k and h) and the challenges the paths must
     * prove. */
    czk_fr pin[4];
    uint32_t challenges[CZK_SNAP_MAX_CHALLENGES];
    if (values) {
        if ((rc = czk_snap_public_inputs(pin, sh, pub, k, &perr)) != CZK_OK ||
            (rc = czk_snap_challenges(challenges, sh, &pin[3], k, &perr)) != CZK_OK)
            return czk_cs_set_error(cs, rc, "%s", perr.msg);
        if ((rc = proof_fits(cs, sh, vp, challenges)) != CZK_OK)
            return rc;
    }
    const czk_snap_challenge_proof *first = values ? &vp->challenge[0] : NULL;

    /* circuit.rs:418-465: k_and_h_select, public, and its bits: partition bits, then the six
     * h_select bits. */
    czk_var khs, kh_bits[CZK_SNAP_MAX_LEVELS + CZK_SNAP_N_HS], partition;
    uint64_t khs_v = 0;
    if (values) {
        uint64_t limbs[CZK_FR_LIMBS];
        czk_fr_to_limbs(limbs, &pin[0]);
        khs_v = limbs[0];
    }
    TRY(alloc_num(cs, &khs, values ? &pin[0] : NULL));
    TRY(czk_gadget_num_inputize(cs, NULL, khs));
    for (uint32_t i = 0; i < pb + CZK_SNAP_N_HS; i++)
        TRY(czk_gadget_bit_alloc(cs, &kh_bits[i], (int)((khs_v >> i) & 1)));
    TRY(enforce_unpack(cs, kh_bits, pb + CZK_SNAP_N_HS, khs));
    const czk_var *partition_bits = kh_bits, *h_select = kh_bits + pb;

    /* circuit.rs:467-474: partition = pack_bits(partition bits) */
    czk_bool pbits[CZK_SNAP_MAX_LEVELS];
    for (uint32_t i = 0; i < pb; i++)
        pbits[i] = czk_bool_is(partition_bits[i]);
    TRY(czk_gadget_pack_bits(cs, &partition, pbits, pb));

    /* circuit.rs:476-497: the three commitments, each public; phi = H(comm_d_new ‖ comm_r_old) */
    czk_var comm_r_old, comm_d_new, comm_r_new, phi, pair[2];
    TRY(alloc_num(cs, &comm_r_old, values ? &pin[1] : NULL));
    TRY(czk_gadget_num_inputize(cs, NULL, comm_r_old));
    TRY(alloc_num(cs, &comm_d_new, values ? &pin[2] : NULL));
    TRY(czk_gadget_num_inputize(cs, NULL, comm_d_new));
    TRY(alloc_num(cs, &comm_r_new, values ? &pin[3] : NULL));
    TRY(czk_gadget_num_inputize(cs, NULL, comm_r_new));
    pair[0] = comm_d_new;
    pair[1] = comm_r_old;
    TRY(czk_poseidon_gadget_hash(cs, &phi, x.gen, pair, 2));

    /* circuit.rs:499-532: comm_c, the two TreeR roots, the apex leaves, the partition path */
    czk_var comm_c, root_r_old, root_r_new, apex[CZK_SNAP_MAX_APEX], ppath[CZK_SNAP_MAX_LEVELS];
    TRY(alloc_num(cs, &comm_c, values ? &vp->comm_c : NULL));
    TRY(alloc_num(cs, &root_r_old, first ? &first->r_old.root : NULL));
    TRY(alloc_num(cs, &root_r_new, first ? &first->r_new.root : NULL));
    for (uint32_t i = 0; i < sh->apex_leaves; i++)
        TRY(alloc_num(cs, &apex[i], values ? &vp->apex[i] : NULL));
    for (uint32_t i = 0; i < pb; i++)
        TRY(alloc_num(cs, &ppath[i], first ? &first->d_new.level[rand_bits + i].sib[0] : NULL));

    /* circuit.rs:534-558: comm_r = H(comm_c ‖ root) for both replicas (TreeR's hasher: the
     * MerkleTree arity-2 Poseidon). */
    czk_var calc;
    pair[0] = comm_c;
    pair[1] = root_r_old;
    TRY(czk_poseidon_gadget_hash(cs, &calc, x.h2, pair, 2));
    TRY(czk_gadget_equal(cs, calc, comm_r_old));
    pair[1] = root_r_new;
    TRY(czk_poseidon_gadget_hash(cs, &calc, x.h2, pair, 2));
    TRY(czk_gadget_equal(cs, calc, comm_r_new));

    /* gadgets.rs:46-89 apex_por: the apex tree row by row, then its root up the partition path
     * to comm_d_new. */
    czk_var row[CZK_SNAP_MAX_APEX];
    memcpy(row, apex, sizeof(czk_var) * sh->apex_leaves);
    for (uint32_t n = sh->apex_leaves; n > 1; n /= 2)
        for (uint32_t i = 0; i < n / 2; i++)
            TRY(czk_sha256_gadget_hash_leaves(cs, &row[i], &row[2 * i], 2));
    TRY(por_tree_d(&x, partition_bits, pb, row[0], ppath, comm_d_new));

    /* gadgets.rs:92-159 gen_challenge_bits: per digest j, digest_index = k·digests + j,
     * digest = H(comm_r_new ‖ digest_index), its 255 bits; challenges take rand_bits each. */
    uint32_t per_digest, digests;
    digest_counts(sh, &per_digest, &digests);
    uint32_t n = 0;
    for (uint32_t j = 0; j < digests; j++) {
        czk_var index, digest, bits[255];
        czk_fr iv, t;
        if (values) {
            czk_fr_set_u64(&t, digests);
            czk_fr_mul(&iv, czk_cs_value(cs, partition), &t);
            czk_fr_set_u64(&t, j);
            czk_fr_add(&iv, &iv, &t);
        }
        TRY(alloc_num(cs, &index, values ? &iv : NULL));
        CZK_LC_DECL(A, 2);
        CZK_LC_DECL(B, 1);
        CZK_LC_DECL(C, 1);
        if (czk_cs_builds_rows(cs)) {
            czk_fr_set_u64(&t, digests);
            czk_lc_add(&A, partition, &t);
            czk_fr_set_u64(&t, j); /* zero for j = 0: no term, as bellperson's prover drops it */
            czk_lc_add(&A, CZK_VAR_ONE, &t);
            czk_lc_add_var(&B, CZK_VAR_ONE);
            czk_lc_add_var(&C, index);
        }
        TRY(czk_cs_enforce(cs, &A, &B, &C));
        pair[0] = comm_r_new;
        pair[1] = index;
        TRY(czk_poseidon_gadget_hash(cs, &digest, x.gen, pair, 2));
        TRY(num_to_bits(cs, bits, digest));
        for (uint32_t i = 0; i < per_digest && n < sh->challenges; i++, n++) {
            memcpy(c_bits[n], bits + i * rand_bits, sizeof(czk_var) * rand_bits);
            memcpy(c_bits[n] + rand_bits, partition_bits, sizeof(czk_var) * pb);
        }
    }

    g->x = x;
    memcpy(g->h_select, h_select, sizeof g->h_select);
    g->phi = phi;
    g->root_r_old = root_r_old;
    g->root_r_new = root_r_new;
    memcpy(g->apex, apex, sizeof(czk_var) * sh->apex_leaves);
    return CZK_OK;
}

/* Challenges [begin, end) into cs (circuit.rs:572-742), after the global part g. */
static int snap_challenges(czk_cs *cs, const snap_globals *g, const czk_snap_partition_proof *vp,
                           uint32_t begin, uint32_t end) {
    snap_ctx x = g->x;
    x.cs = cs;
    for (uint32_t c = begin; c < end; c++)
        TRY(challenge_synthesize(&x, vp != NULL ? &vp->challenge[c] : NULL, g->c_bits[c],
                                 g->h_select, g->phi, g->root_r_old, g->root_r_new, g->apex, c));
    return CZK_OK;
}

int czk_snap_synthesize(czk_cs *cs, const czk_snap_shape *shape, const czk_snap_public *pub,
                        const czk_snap_partition_proof *vp, uint32_t k) {
    snap_globals *g = czk_malloc(sizeof *g);
    if (g == NULL)
        return czk_cs_set_error(cs, CZK_ENOMEM, "snap: out of memory");
    int rc = snap_global(cs, shape, pub, vp, k, g);
    if (rc == CZK_OK)
        rc = snap_challenges(cs, g, czk_cs_has_values(cs) ? vp : NULL, 0, shape->challenges);
    czk_free(g);
    return rc;
}

/* ---- recording over a pool (czk_snap_record) ------------------------------------------------ */

static int record_global(czk_cs *cs, const void *shape, void *g) {
    return snap_global(cs, shape, NULL, NULL, 0, g);
}

static int record_challenge(czk_cs *cs, const void *shape, const void *g, uint32_t i) {
    (void)shape;
    return snap_challenges(cs, g, NULL, i, i + 1);
}

int czk_snap_record(czk_r1cs *out, czk_cs_stats *stats, const czk_snap_shape *shape, czk_pool *pool,
                    czk_err *err) {
    if (!shape_ok(shape)) {
        memset(out, 0, sizeof *out);
        return czk_err_set(err, CZK_EINVAL, "snap: invalid circuit shape");
    }
    const czk_cs_parts def = {.what = "snap",
                              .n_parts = shape->challenges,
                              .globals_size = sizeof(snap_globals),
                              .arg = shape,
                              .global = record_global,
                              .part = record_challenge};
    return czk_cs_record_parts(out, stats, &def, pool, err);
}

uint64_t czk_snap_rows(const czk_snap_shape *shape) {
    if (!shape_ok(shape))
        return 0;
    const czk_snap_shape *sh = shape;
    const uint64_t sha_level = 45381; /* insert_2 (2) + the SHA-256 node hash (45,379) */
    uint32_t per_digest, digests, levels = czk_por_shape_levels(&sh->tree_r);
    digest_counts(sh, &per_digest, &digests);
    uint64_t por_r = 1;
    for (uint32_t l = 0; l < levels; l++) {
        uint32_t a = czk_snap_tree_r_arity(&sh->tree_r, l);
        por_r += a == 8 ? 22 + 505 : a == 4 ? 8 + 377 : 2 + 311;
    }
    uint32_t to_apex = sh->challenge_bit_len - sh->partition_bit_len - sh->apex_leaf_bit_len;
    uint64_t global = 12 + sh->partition_bit_len + 3 * 311 + 2 + 45379ull * (sh->apex_leaves - 1) +
                      sha_level * sh->partition_bit_len + 1 + 568ull * digests;
    uint64_t per_challenge = 2 * CZK_SNAP_N_HS + 1 + 311 + 2 + 2 * por_r + (sh->apex_leaves - 1) +
                             sha_level * to_apex + 1;
    return global + (uint64_t)sh->challenges * per_challenge;
}
