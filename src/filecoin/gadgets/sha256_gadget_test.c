/*
 * Tests of the SHA-256 gadgets (sha256_gadget.h): counts against doc/FILECOIN.md §12 (numbers
 * asserted in bellperson's and rust-fil-proofs' own tests),
 * digests against OpenSSL, every row satisfied, and the fast WITNESS path held to the row path:
 * its witness vector must equal the one WITNESS+CHECK builds row by row and satisfy the rows
 * RECORD mode keeps.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb).
 */
#include "filecoin/gadgets/sha256_gadget.h"
#include "filecoin/testgen/harness.h"

#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

#include "r1cs/r1cs.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/rng.h"

/* ---- helpers ---- */

/* Allocates n bytes as 8n AllocatedBits, MSB first in each byte (as SHA-256 consumes them). */
static int alloc_bytes(czk_cs *cs, czk_bool *out, const uint8_t *bytes, size_t n) {
    for (size_t i = 0; i < 8 * n; i++) {
        czk_var v;
        int rc = czk_gadget_bit_alloc(cs, &v, (bytes[i / 8] >> (7 - i % 8)) & 1);
        if (rc != CZK_OK)
            return rc;
        out[i] = czk_bool_is(v);
    }
    return CZK_OK;
}

/* The values of 8n bits, MSB first, as bytes. */
static void bits_to_bytes(const czk_cs *cs, uint8_t *out, const czk_bool *bits, size_t n) {
    memset(out, 0, n);
    for (size_t i = 0; i < 8 * n; i++)
        out[i / 8] |= (uint8_t)(czk_bool_get_value(cs, &bits[i]) << (7 - i % 8));
}

/* SHA-256 digest read as a little-endian Fr with the top two bits cleared (trim_to_fr32). */
static void trimmed_fr(czk_fr *out, const uint8_t digest[32]) {
    uint8_t d[32];
    memcpy(d, digest, 32);
    d[31] &= 0x3f;
    czk_fr_from_bytes_le(out, d);
}

/* A num's to_bits_le, padded and reversed per byte: its 32 LE bytes as SHA-256 reads them. */
static int num_sha_bits(czk_cs *cs, czk_bool out[256], czk_var x) {
    czk_bool le[256];
    int rc = czk_gadget_num_to_bits_le(cs, le, x);
    le[255] = czk_bool_constant(0);
    czk_gadget_reverse_bit_numbering(out, le, 256);
    return rc;
}

/* FIPS 180-4 §6.2.2 compression, written out independently of the gadget, for chaining values
 * that do not start from the IV (OpenSSL has no supported call for that). */
static uint32_t rotr32(uint32_t x, unsigned k) {
    return (x >> k) | (x << (32 - k));
}

static void ref_compress(uint32_t st[8], const uint8_t blk[64]) {
    static const uint32_t k[64] = {
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    };
    uint32_t w[64], v[8];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)blk[4 * i] << 24 | (uint32_t)blk[4 * i + 1] << 16 |
               (uint32_t)blk[4 * i + 2] << 8 | blk[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    memcpy(v, st, sizeof v);
    for (int i = 0; i < 64; i++) {
        uint32_t s1 = rotr32(v[4], 6) ^ rotr32(v[4], 11) ^ rotr32(v[4], 25);
        uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
        uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
        uint32_t s0 = rotr32(v[0], 2) ^ rotr32(v[0], 13) ^ rotr32(v[0], 22);
        uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
        memmove(v + 1, v, 7 * sizeof v[0]);
        v[4] += t1;
        v[0] = t1 + s0 + maj;
    }
    for (int i = 0; i < 8; i++)
        st[i] += v[i];
}

static const uint32_t iv[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

static void words_const(czk_bool out[8][32], const uint32_t v[8]) {
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 32; j++)
            out[i][j] = czk_bool_constant((int)((v[i] >> j) & 1));
}

/* ---- Boolean ch and maj, arm by arm ---- */

/* Rows Boolean::and costs: none when either operand is constant, else one. */
static int and_rows(const czk_bool *x, const czk_bool *y) {
    return x->kind != CZK_BOOL_CONST && y->kind != CZK_BOOL_CONST;
}

/* doc/FILECOIN.md §12's arms restated: the rows (= aux) each costs. */
static int ch_rows(const czk_bool *a, const czk_bool *b, const czk_bool *c) {
    czk_bool na = czk_bool_not(*a), nb = czk_bool_not(*b), nc = czk_bool_not(*c);
    int ca = a->kind == CZK_BOOL_CONST, cb = b->kind == CZK_BOOL_CONST,
        cc = c->kind == CZK_BOOL_CONST;
    if (ca && cb && cc)
        return 0;
    if (ca && !a->value)
        return 0;
    if (cb && !b->value)
        return and_rows(&na, c);
    if (cc && !c->value)
        return and_rows(a, b);
    if (cc)
        return and_rows(a, &nb);
    if (cb)
        return and_rows(&na, &nc);
    return 1;
}

static int maj_rows(const czk_bool *a, const czk_bool *b, const czk_bool *c) {
    int ca = a->kind == CZK_BOOL_CONST, cb = b->kind == CZK_BOOL_CONST,
        cc = c->kind == CZK_BOOL_CONST;
    if (ca && cb && cc)
        return 0;
    if (ca)
        return and_rows(b, c);
    if (cb)
        return and_rows(a, c);
    if (cc)
        return and_rows(a, b);
    return 2;
}

typedef struct arms_ctx {
    int v[3]; /* the three variables' values */
} arms_ctx;

/* Every kind combination (Const 0, Const 1, Is, Not)³ through ch and maj. */
static int synth_arms(czk_cs *cs, void *p) {
    arms_ctx *c = p;
    czk_var x[3];
    int rc;
    for (int i = 0; i < 3; i++)
        if ((rc = czk_gadget_bit_alloc(cs, &x[i], c->v[i])) != CZK_OK)
            return rc;
    for (int combo = 0; combo < 64; combo++) {
        czk_bool in[3];
        int val[3];
        for (int i = 0; i < 3; i++) {
            int kind = (combo >> (2 * i)) & 3;
            in[i] = kind == 0   ? czk_bool_constant(0)
                    : kind == 1 ? czk_bool_constant(1)
                    : kind == 2 ? czk_bool_is(x[i])
                                : czk_bool_not(czk_bool_is(x[i]));
            val[i] = kind == 0 ? 0 : kind == 1 ? 1 : kind == 2 ? c->v[i] : !c->v[i];
        }
        for (int op = 0; op < 2; op++) {
            czk_cs_stats s0, s1;
            czk_bool r;
            czk_cs_get_stats(cs, &s0);
            rc = op == 0 ? czk_gadget_bool_sha256_ch(cs, &r, &in[0], &in[1], &in[2])
                         : czk_gadget_bool_sha256_maj(cs, &r, &in[0], &in[1], &in[2]);
            if (rc != CZK_OK)
                return rc;
            czk_cs_get_stats(cs, &s1);
            int want = op == 0 ? ch_rows(&in[0], &in[1], &in[2]) : maj_rows(&in[0], &in[1], &in[2]);
            if (s1.n_rows - s0.n_rows != (uint64_t)want || s1.n_aux - s0.n_aux != (uint64_t)want)
                return czk_cs_set_error(cs, CZK_EINTERNAL, "%s combo %d: %llu rows, want %d",
                                        op ? "maj" : "ch", combo,
                                        (unsigned long long)(s1.n_rows - s0.n_rows), want);
            if (czk_cs_has_values(cs)) {
                int a = val[0], b = val[1], d = val[2];
                int expect = op == 0 ? (a & b) ^ ((!a) & d) : (a & b) ^ (a & d) ^ (b & d);
                if (czk_bool_get_value(cs, &r) != expect)
                    return czk_cs_set_error(cs, CZK_EINTERNAL, "%s combo %d: wrong value",
                                            op ? "maj" : "ch", combo);
            }
        }
    }
    return CZK_OK;
}

CZK_TEST(sha256_gadget_bool_arms) {
    for (int v = 0; v < 8; v++) {
        /* synth_arms checks each call's rows, aux and value in every mode */
        arms_ctx c = {{v & 1, (v >> 1) & 1, (v >> 2) & 1}};
        czk_cs_stats st;
        if (!czk_harness_check_modes(t, synth_arms, &c, CZK_HARNESS_AUX_USED, &st))
            return;
        CHECK(st.n_rows == st.n_aux);
        CHECK_EQ_INT(st.n_inputs, 1);
    }
}

/* The general rows' exact LCs: ch(Not x, Is y, Not z) and maj(Is x, Not y, Is z). */
static int synth_arm_rows(czk_cs *cs, void *p) {
    (void)p;
    czk_var x, y, z;
    czk_bool r;
    int rc;
    if ((rc = czk_gadget_bit_alloc(cs, &x, 1)) || (rc = czk_gadget_bit_alloc(cs, &y, 0)) ||
        (rc = czk_gadget_bit_alloc(cs, &z, 1)))
        return rc;
    czk_bool ix = czk_bool_is(x), iy = czk_bool_is(y), iz = czk_bool_is(z);
    czk_bool nx = czk_bool_not(ix), ny = czk_bool_not(iy), nz = czk_bool_not(iz);
    if ((rc = czk_gadget_bool_sha256_ch(cs, &r, &nx, &iy, &nz)) || /* aux 3, row 3 */
        (rc = czk_gadget_bool_sha256_maj(cs, &r, &ix, &ny, &iz)))  /* aux 4, 5; rows 4, 5 */
        return rc;
    return CZK_OK;
}

CZK_TEST(sha256_gadget_arm_rows) {
    czk_cs *cs = NULL;
    czk_err err = {0};
    czk_r1cs r = {0};
    CHECK(czk_harness_check_modes(t, synth_arm_rows, NULL, CZK_HARNESS_AUX_USED, NULL));
    CHECK(czk_cs_create(&cs, CZK_CS_RECORD, 0, &err) == CZK_OK);
    CHECK(synth_arm_rows(cs, NULL) == CZK_OK);
    CHECK(czk_cs_finish_r1cs(cs, &r, &err) == CZK_OK);
    czk_cs_destroy(cs);
    CHECK_EQ_INT(r.n_constraints, 6);
    const uint32_t X = 1, Y = 2, Z = 3, CH = 4, MAJ = 5, BC = 6; /* column = 1 + aux */
    czk_fr one = CZK_FR_ONE, m1, two;
    czk_fr_neg(&m1, &one);
    czk_fr_dbl(&two, &one);
    /* ch(¬x, y, ¬z): (y − (1 − z))·(1 − x) = ch − (1 − z) */
    {
        uint32_t ac[] = {0, Y, Z}, bc[] = {0, X}, cc[] = {0, Z, CH};
        czk_fr av[] = {m1, one, one}, bv[] = {one, m1}, cv[] = {m1, one, one};
        CHECK(czk_harness_row_is(&r.a, 3, ac, av, 3));
        CHECK(czk_harness_row_is(&r.b, 3, bc, bv, 2));
        CHECK(czk_harness_row_is(&r.c, 3, cc, cv, 3));
    }
    /* maj(x, ¬y, z): maj is aux 4 and b∧c aux 5, but b∧c = and_not(z, y)'s row comes first:
     * z·(1 − y) = bc */
    {
        uint32_t ac[] = {Z}, bc[] = {0, Y}, cc[] = {BC};
        czk_fr av[] = {one}, bv[] = {one, m1}, cv[] = {one};
        CHECK(czk_harness_row_is(&r.a, 4, ac, av, 1));
        CHECK(czk_harness_row_is(&r.b, 4, bc, bv, 2));
        CHECK(czk_harness_row_is(&r.c, 4, cc, cv, 1));
    }
    /* (2·bc − (1 − y) − z)·x = bc − maj */
    {
        uint32_t ac[] = {0, Y, Z, BC}, bc[] = {X}, cc[] = {MAJ, BC};
        czk_fr av[] = {m1, one, m1, two}, bv[] = {one}, cv[] = {m1, one};
        CHECK(czk_harness_row_is(&r.a, 5, ac, av, 4));
        CHECK(czk_harness_row_is(&r.b, 5, bc, bv, 1));
        CHECK(czk_harness_row_is(&r.c, 5, cc, cv, 2));
    }
    czk_r1cs_clear(&r);
}

/* ---- counts (the counts the Rust sources assert: doc/FILECOIN.md §12) ---- */

typedef enum count_case {
    CC_IV_ALLOC,      /* compress: IV, 512 allocated bits */
    CC_CHAIN_ALLOC,   /* compress: 256 allocated chaining bits, 512 allocated bits */
    CC_BLANK,         /* compress: IV, the padding of the empty message */
    CC_MSG512,        /* sha256 of 512 allocated bits */
    CC_LEAF_BITS,     /* hash_leaf_bits_circuit: 512 allocated bits, sha256, pack */
    CC_COMMD_BLOCKS,  /* a comm_d node's two blocks, one compress call each */
    CC_NODE,          /* hash_leaves of two nums */
    CC_LABEL,         /* production label: to_bits_le'd replica and parents, allocated node */
    CC_LABEL_TESTCFG, /* create_label.rs's test: 37·256 + 256 allocated bits, constant node */
    CC_POR64_PUBLIC,  /* PoR, base 2, 64 leaves, public root */
    CC_POR64_COMMD,   /* PoRep's comm_d: Var leaf, Var root, private */
} count_case;

typedef struct count_ctx {
    count_case which;
    uint64_t rows[3], aux[3]; /* deltas of the measured calls */
} count_ctx;

/* Stats delta helper. */
static void delta(const czk_cs *cs, const czk_cs_stats *s0, uint64_t *rows, uint64_t *aux) {
    czk_cs_stats s1;
    czk_cs_get_stats(cs, &s1);
    *rows = s1.n_rows - s0->n_rows;
    *aux = s1.n_aux - s0->n_aux;
}

static int synth_count(czk_cs *cs, void *p) {
    count_ctx *c = p;
    static const uint8_t zeros[64 * 40];
    czk_bool msg[512], cur[8][32], out[8][32], dig[256];
    czk_cs_stats s0;
    czk_var v;
    int rc = CZK_OK;
    switch (c->which) {
    case CC_IV_ALLOC:
    case CC_CHAIN_ALLOC:
        if ((rc = alloc_bytes(cs, msg, zeros, 64)))
            return rc;
        if (c->which == CC_IV_ALLOC)
            words_const(cur, iv);
        else if ((rc = alloc_bytes(cs, &cur[0][0], zeros, 32)))
            return rc;
        czk_cs_get_stats(cs, &s0);
        rc = czk_sha256_gadget_compress(cs, out, msg, (const czk_bool(*)[32])cur);
        delta(cs, &s0, &c->rows[0], &c->aux[0]);
        return rc;
    case CC_BLANK:
        for (int i = 0; i < 512; i++)
            msg[i] = czk_bool_constant(i == 0);
        words_const(cur, iv);
        if ((rc = czk_sha256_gadget_compress(cs, out, msg, (const czk_bool(*)[32])cur)))
            return rc;
        {
            /* SHA-256("") */
            static const uint32_t e[8] = {0xe3b0c442, 0x98fc1c14, 0x9afbf4c8, 0x996fb924,
                                          0x27ae41e4, 0x649b934c, 0xa495991b, 0x7852b855};
            for (int i = 0; i < 8; i++)
                for (int j = 0; j < 32; j++)
                    if (out[i][j].kind != CZK_BOOL_CONST ||
                        out[i][j].value != (int)((e[i] >> j) & 1))
                        return czk_cs_set_error(cs, CZK_EINTERNAL, "blank: word %d bit %d", i, j);
        }
        return CZK_OK;
    case CC_MSG512:
    case CC_LEAF_BITS:
        if ((rc = alloc_bytes(cs, msg, zeros, 64)))
            return rc;
        czk_cs_get_stats(cs, &s0);
        if ((rc = czk_sha256_gadget(cs, dig, msg, 512)))
            return rc;
        if (c->which == CC_LEAF_BITS) {
            czk_bool le[256];
            czk_gadget_reverse_bit_numbering(le, dig, 256);
            if ((rc = czk_gadget_pack_bits(cs, &v, le, 254)))
                return rc;
        }
        delta(cs, &s0, &c->rows[0], &c->aux[0]);
        return CZK_OK;
    case CC_COMMD_BLOCKS: {
        /* block 0: two leaves' 255 allocated bits + Constant(false) each, reversed per byte */
        czk_var x[2];
        czk_fr z = CZK_FR_ZERO;
        for (int l = 0; l < 2; l++)
            if ((rc = czk_gadget_num_alloc(cs, &x[l], &z)) ||
                (rc = num_sha_bits(cs, msg + 256 * l, x[l])))
                return rc;
        words_const(cur, iv);
        czk_cs_get_stats(cs, &s0);
        if ((rc = czk_sha256_gadget_compress(cs, out, msg, (const czk_bool(*)[32])cur)))
            return rc;
        delta(cs, &s0, &c->rows[0], &c->aux[0]);
        /* block 1: padding of a 512-bit message */
        for (int i = 0; i < 512; i++)
            msg[i] = czk_bool_constant(i == 0 || i == 512 - 10);
        czk_cs_get_stats(cs, &s0);
        rc = czk_sha256_gadget_compress(cs, cur, msg, (const czk_bool(*)[32])out);
        delta(cs, &s0, &c->rows[1], &c->aux[1]);
        return rc;
    }
    case CC_NODE: {
        czk_var x[2];
        czk_fr z = CZK_FR_ZERO;
        for (int l = 0; l < 2; l++)
            if ((rc = czk_gadget_num_alloc(cs, &x[l], &z)))
                return rc;
        czk_cs_get_stats(cs, &s0);
        rc = czk_sha256_gadget_hash_leaves(cs, &v, x, 2);
        delta(cs, &s0, &c->rows[0], &c->aux[0]);
        return rc;
    }
    case CC_LABEL: {
        czk_var rid, par[6];
        czk_bool rbits[256], pbits[6][256], node[64];
        const czk_bool *parents[37];
        czk_fr z = CZK_FR_ZERO;
        if ((rc = czk_gadget_num_alloc(cs, &rid, &z)) || (rc = num_sha_bits(cs, rbits, rid)) ||
            (rc = czk_gadget_uint64_alloc(cs, node, 0)))
            return rc;
        for (int i = 0; i < 6; i++)
            if ((rc = czk_gadget_num_alloc(cs, &par[i], &z)) ||
                (rc = num_sha_bits(cs, pbits[i], par[i])))
                return rc;
        for (int i = 0; i < 37; i++)
            parents[i] = pbits[i % 6];
        czk_cs_get_stats(cs, &s0);
        rc = czk_sha256_gadget_label(cs, &v, rbits, 1, node, parents);
        delta(cs, &s0, &c->rows[0], &c->aux[0]);
        return rc;
    }
    case CC_LABEL_TESTCFG: {
        czk_bool *bits = malloc(38 * 256 * sizeof *bits), node[64];
        const czk_bool *parents[37];
        if (bits == NULL)
            return czk_cs_set_error(cs, CZK_ENOMEM, "test: out of memory");
        /* the test allocates the 37 parents, then the id */
        for (int i = 0; i < 38 && rc == CZK_OK; i++)
            rc = alloc_bytes(cs, bits + 256 * i, zeros, 32);
        for (int i = 0; i < 37; i++)
            parents[i] = bits + 256 * i;
        for (int i = 0; i < 64; i++)
            node[i] = czk_bool_constant(i < 8 && ((22 >> i) & 1));
        if (rc == CZK_OK)
            rc = czk_sha256_gadget_label(cs, &v, bits + 37 * 256, 3, node, parents);
        free(bits);
        return rc;
    }
    case CC_POR64_PUBLIC:
    case CC_POR64_COMMD: {
        czk_por_root val = {CZK_POR_ROOT_VAL, 0, CZK_FR_ZERO}, root = val;
        if (c->which == CC_POR64_COMMD) {
            czk_var leaf, r;
            if ((rc = czk_gadget_num_alloc(cs, &leaf, &val.val)) ||
                (rc = czk_gadget_num_alloc(cs, &r, &val.val)))
                return rc;
            val.kind = root.kind = CZK_POR_ROOT_VAR;
            val.var = leaf;
            root.var = r;
        }
        czk_cs_get_stats(cs, &s0);
        rc = czk_sha256_gadget_por(cs, NULL, 6, &val, NULL, &root, c->which == CC_POR64_COMMD);
        delta(cs, &s0, &c->rows[0], &c->aux[0]);
        return rc;
    }
    }
    return CZK_EINVAL;
}

CZK_TEST(sha256_gadget_counts) {
    czk_cs_stats st;
    count_ctx c;
#define COUNT(w)                                                                                   \
    do {                                                                                           \
        memset(&c, 0, sizeof c);                                                                   \
        c.which = (w);                                                                             \
        CHECKF(czk_harness_run_one(synth_count, &c, CZK_CS_COUNT, 0, &st, NULL, NULL) == CZK_OK,   \
               "case %d", (int)(w));                                                               \
    } while (0)
    /* BP sha256.rs:310-335 */
    COUNT(CC_IV_ALLOC);
    CHECK_EQ_INT(c.rows[0], 25840);
    CHECK_EQ_INT(st.n_rows, 512 + 25840);
    CHECK_EQ_INT(st.b_input_density, 1);
    /* non-constant chaining: 13,712 xor + 2,048 ch + 4,096 maj + 6,310 addmany bits, 26 packs */
    COUNT(CC_CHAIN_ALLOC);
    CHECK_EQ_INT(c.rows[0], 26192);
    CHECK_EQ_INT(c.aux[0], 26192 - 26);
    /* BP sha256.rs:285-307 */
    COUNT(CC_BLANK);
    CHECK_EQ_INT(st.n_rows, 0);
    CHECK_EQ_INT(st.n_aux, 0);
    /* BP sha256.rs:338-361 */
    COUNT(CC_MSG512);
    CHECK_EQ_INT(c.rows[0], 44874);
    /* RFP storage-proofs-core util.rs:326: 512 allocated + SHA + pack */
    COUNT(CC_LEAF_BITS);
    CHECK_EQ_INT(st.n_rows, 45387);
    /* comm_d node blocks */
    COUNT(CC_COMMD_BLOCKS);
    CHECK_EQ_INT(c.rows[0], 25832);
    CHECK_EQ_INT(c.aux[0], 25806);
    CHECK_EQ_INT(c.rows[1], 19034);
    CHECK_EQ_INT(c.aux[1], 19014);
    /* a binary node: 2·256 + 44,866 + 1 */
    COUNT(CC_NODE);
    CHECK_EQ_INT(c.rows[0], 45379);
    CHECK_EQ_INT(c.aux[0], 45331);
    /* §2.12: 25,363 + 18·26,184 + 25,593 + 1 */
    COUNT(CC_LABEL);
    CHECK_EQ_INT(c.rows[0], 522269);
    CHECK_EQ_INT(c.aux[0], 521749);
    /* RFP create_label.rs:172 */
    COUNT(CC_LABEL_TESTCFG);
    CHECK_EQ_INT(st.n_rows, 532025);
    /* RFP tests/por_circuit.rs:49 */
    COUNT(CC_POR64_PUBLIC);
    CHECK_EQ_INT(st.n_rows, 272295);
    CHECK_EQ_INT(st.n_inputs, 3);
    /* §3.5: a 2 KiB sector's comm_d inclusion */
    COUNT(CC_POR64_COMMD);
    CHECK_EQ_INT(c.rows[0], 272294);
    CHECK_EQ_INT(c.aux[0], 6 * (45331 + 2 + 2));
    CHECK_EQ_INT(st.n_inputs, 2);
#undef COUNT
}

/* ---- digests against OpenSSL ---- */

typedef struct msg_ctx {
    uint8_t msg[256];
    size_t len;
    uint8_t want[32];
} msg_ctx;

static int synth_msg(czk_cs *cs, void *p) {
    msg_ctx *c = p;
    czk_bool bits[8 * 256], dig[256];
    uint8_t got[32];
    int rc;
    if ((rc = alloc_bytes(cs, bits, c->msg, c->len)) ||
        (rc = czk_sha256_gadget(cs, dig, bits, 8 * c->len)))
        return rc;
    if (czk_cs_has_values(cs)) {
        bits_to_bytes(cs, got, dig, 32);
        if (memcmp(got, c->want, 32) != 0)
            return czk_cs_set_error(cs, CZK_EINTERNAL, "digest of %zu bytes differs", c->len);
    }
    return CZK_OK;
}

CZK_TEST(sha256_gadget_vs_openssl) {
    static const size_t lens[] = {0,  1,  3,   31,  32,  55,  56,  63,
                                  64, 65, 100, 119, 120, 128, 183, 250};
    for (size_t k = 0; k < sizeof lens / sizeof lens[0]; k++) {
        msg_ctx c;
        czk_cs_stats st;
        c.len = lens[k];
        czk_rng_bytes(&t->rng, c.msg, c.len);
        SHA256(c.msg, c.len, c.want);
        CHECKF(czk_harness_check_modes(t, synth_msg, &c, CZK_HARNESS_AUX_USED, &st), "length %zu",
               c.len);
        /* the bellperson test's shape: 8·len bit rows, then the hash */
        CHECK(st.n_rows >= 8 * c.len);
    }
}

/* ---- constants, Not bits and chaining values anywhere ---- */

typedef struct mixed_ctx {
    uint8_t kind[768]; /* per bit of block ‖ chaining: 0/1 constant, 2 Is, 3 Not */
    uint8_t val[768];  /* per bit: its value */
    uint32_t want[8];
} mixed_ctx;

static int synth_mixed(czk_cs *cs, void *p) {
    mixed_ctx *c = p;
    czk_bool in[768], out[8][32];
    for (int i = 0; i < 768; i++) {
        czk_var v;
        int rc;
        if (c->kind[i] < 2) {
            in[i] = czk_bool_constant(c->kind[i]);
            continue;
        }
        /* a Not bit's variable holds the negated value */
        if ((rc = czk_gadget_bit_alloc(cs, &v, c->val[i] ^ (c->kind[i] == 3))) != CZK_OK)
            return rc;
        in[i] = c->kind[i] == 2 ? czk_bool_is(v) : czk_bool_not(czk_bool_is(v));
    }
    int rc = czk_sha256_gadget_compress(cs, out, in, (const czk_bool(*)[32])(in + 512));
    if (rc != CZK_OK)
        return rc;
    if (czk_cs_has_values(cs)) {
        for (int i = 0; i < 8; i++) {
            uint32_t w = 0;
            for (int j = 0; j < 32; j++)
                w |= (uint32_t)czk_bool_get_value(cs, &out[i][j]) << j;
            if (w != c->want[i])
                return czk_cs_set_error(cs, CZK_EINTERNAL, "word %d: %08x, want %08x", i, w,
                                        c->want[i]);
        }
    }
    return CZK_OK;
}

CZK_TEST(sha256_gadget_mixed_constants) {
    /* the reference compression against OpenSSL first: SHA-256("abc") */
    {
        uint8_t blk[64] = {'a', 'b', 'c', 0x80}, want[32], got[32];
        uint32_t st[8];
        blk[63] = 24;
        memcpy(st, iv, sizeof st);
        ref_compress(st, blk);
        for (int i = 0; i < 32; i++)
            got[i] = (uint8_t)(st[i / 4] >> (24 - 8 * (i % 4)));
        SHA256((const uint8_t *)"abc", 3, want);
        CHECK_MEM(got, want, 32);
    }
    static const int const_pct[] = {3, 30, 70, 97, 50, 10, 90, 0};
    long iters = czk_test_iters(t, 8);
    for (long it = 0; it < iters; it++) {
        mixed_ctx c;
        uint8_t blk[64] = {0};
        uint32_t cur[8] = {0};
        int pct = const_pct[it % 8];
        for (int i = 0; i < 768; i++) {
            uint64_t r = czk_rng_u64(&t->rng);
            c.val[i] = r & 1;
            c.kind[i] = (int)((r >> 8) % 100) < pct ? c.val[i] : 2 + ((r >> 1) & 1);
            if (i < 512)
                blk[i / 8] |= (uint8_t)(c.val[i] << (7 - i % 8));
            else
                cur[(i - 512) / 32] |= (uint32_t)c.val[i] << ((i - 512) % 32);
        }
        memcpy(c.want, cur, sizeof cur);
        ref_compress(c.want, blk);
        czk_cs_stats st;
        CHECKF(czk_harness_check_modes(t, synth_mixed, &c, CZK_HARNESS_AUX_USED, &st),
               "iteration %ld (%d%% constant)", it, pct);
    }
}

/* ---- hash_leaves ---- */

typedef struct leaves_ctx {
    czk_fr leaf[3];
    size_t n;
    czk_fr want;
} leaves_ctx;

static int synth_leaves(czk_cs *cs, void *p) {
    leaves_ctx *c = p;
    czk_var x[3], r;
    int rc;
    for (size_t i = 0; i < c->n; i++)
        if ((rc = czk_gadget_num_alloc(cs, &x[i], &c->leaf[i])) != CZK_OK)
            return rc;
    if ((rc = czk_sha256_gadget_hash_leaves(cs, &r, x, c->n)) != CZK_OK)
        return rc;
    if (czk_cs_has_values(cs) && !czk_fr_equal(czk_cs_value(cs, r), &c->want))
        return czk_cs_set_error(cs, CZK_EINTERNAL, "hash_leaves(%zu) value", c->n);
    return CZK_OK;
}

CZK_TEST(sha256_gadget_hash_leaves) {
    for (size_t n = 1; n <= 3; n++) {
        leaves_ctx c;
        uint8_t buf[96], dig[32];
        c.n = n;
        for (size_t i = 0; i < n; i++) {
            czk_fr_random(&c.leaf[i], &t->rng);
            if (i == 1 && n == 3)
                czk_fr_set_zero(&c.leaf[i]);
            czk_fr_to_bytes_le(buf + 32 * i, &c.leaf[i]);
        }
        SHA256(buf, 32 * n, dig);
        trimmed_fr(&c.want, dig);
        czk_cs_stats st;
        CHECKF(czk_harness_check_modes(t, synth_leaves, &c, CZK_HARNESS_AUX_USED, &st),
               "%zu leaves", n);
        if (n == 2) {
            CHECK_EQ_INT(st.n_rows, 45379);
            CHECK_EQ_INT(st.n_aux, 2 + 45331);
        }
    }
}

/* ---- labels ---- */

typedef struct label_ctx {
    int testcfg;         /* create_label.rs's test configuration, else production */
    uint32_t layer;      /* 1-based */
    uint64_t node;       /* production: allocated; test: constant */
    czk_fr rid;          /* production */
    czk_fr par[14];      /* production: the distinct parents (6 at layer 1, else 14) */
    uint8_t raw[38][32]; /* test configuration: 37 parents, then the id, as bytes */
    czk_fr want;
} label_ctx;

static int synth_label(czk_cs *cs, void *p) {
    label_ctx *c = p;
    czk_bool *bits = malloc(38 * 256 * sizeof *bits), node[64], *rid;
    const czk_bool *parents[37];
    czk_var v;
    int rc = CZK_OK;
    if (bits == NULL)
        return czk_cs_set_error(cs, CZK_ENOMEM, "test: out of memory");
    if (c->testcfg) {
        for (int i = 0; i < 38 && rc == CZK_OK; i++)
            rc = alloc_bytes(cs, bits + 256 * i, c->raw[i], 32);
        for (int i = 0; i < 37; i++)
            parents[i] = bits + 256 * i;
        rid = bits + 37 * 256;
        for (int i = 0; i < 64; i++)
            node[i] = czk_bool_constant((int)((c->node >> i) & 1));
    } else {
        /* RFP params.rs: the replica id's bits (global), the UInt64 challenge, then the
         * parents' decompositions; layer 1 repeats 6 parents P×6 ‖ P[0], later layers 14 as
         * P ‖ P ‖ P[0..9] */
        int np = c->layer == 1 ? 6 : 14;
        czk_var x;
        rid = bits + 37 * 256;
        if ((rc = czk_gadget_num_alloc(cs, &x, &c->rid)) == CZK_OK &&
            (rc = num_sha_bits(cs, rid, x)) == CZK_OK)
            rc = czk_gadget_uint64_alloc(cs, node, c->node);
        for (int i = 0; i < np && rc == CZK_OK; i++)
            if ((rc = czk_gadget_num_alloc(cs, &x, &c->par[i])) == CZK_OK)
                rc = num_sha_bits(cs, bits + 256 * i, x);
        for (int i = 0; i < 37; i++)
            parents[i] = bits + 256 * (i % np);
    }
    if (rc == CZK_OK)
        rc = czk_sha256_gadget_label(cs, &v, rid, c->layer, node, parents);
    free(bits);
    if (rc == CZK_OK && czk_cs_has_values(cs) && !czk_fr_equal(czk_cs_value(cs, v), &c->want))
        return czk_cs_set_error(cs, CZK_EINTERNAL, "label value");
    return rc;
}

/* SHA256(replica_id ‖ u32_be(layer) ‖ u64_be(node) ‖ 0^20 ‖ 37 parents), byte 31 & 0x3f. */
static void label_want(label_ctx *c) {
    uint8_t buf[39 * 32] = {0}, dig[32];
    if (c->testcfg) {
        memcpy(buf, c->raw[37], 32);
        for (int i = 0; i < 37; i++)
            memcpy(buf + 64 + 32 * i, c->raw[i], 32);
    } else {
        int np = c->layer == 1 ? 6 : 14;
        czk_fr_to_bytes_le(buf, &c->rid);
        for (int i = 0; i < 37; i++)
            czk_fr_to_bytes_le(buf + 64 + 32 * i, &c->par[i % np]);
    }
    for (int i = 0; i < 4; i++)
        buf[32 + i] = (uint8_t)(c->layer >> (24 - 8 * i));
    for (int i = 0; i < 8; i++)
        buf[36 + i] = (uint8_t)(c->node >> (56 - 8 * i));
    SHA256(buf, sizeof buf, dig);
    trimmed_fr(&c->want, dig);
}

CZK_TEST(sha256_gadget_label) {
    static label_ctx c; /* 1.5 KiB of bytes and Fr, kept off the stack */
    czk_cs_stats st;
    /* production, layer 1 and a later layer, witness and check only (the counts test covers
     * the row count); then one full cross-check of every mode */
    for (int k = 0; k < 2; k++) {
        memset(&c, 0, sizeof c);
        c.layer = k == 0 ? 1 : 2 + (uint32_t)(czk_rng_u64(&t->rng) % 10);
        c.node = czk_rng_u64(&t->rng) >> 34;
        czk_fr_random(&c.rid, &t->rng);
        for (int i = 0; i < 14; i++)
            czk_fr_random(&c.par[i], &t->rng);
        label_want(&c);
        CHECKF(czk_harness_run_one(synth_label, &c, CZK_CS_WITNESS, 0, &st, NULL, NULL) == CZK_OK,
               "layer %u fast", c.layer);
        CHECKF(czk_harness_run_one(synth_label, &c, CZK_CS_WITNESS, CZK_CS_CHECK, NULL, NULL,
                                   NULL) == CZK_OK,
               "layer %u checked", c.layer);
    }
    CHECK(czk_harness_check_modes(t, synth_label, &c, CZK_HARNESS_AUX_USED, NULL));
    /* the test configuration: allocated id and parents, constant node */
    memset(&c, 0, sizeof c);
    c.testcfg = 1;
    c.layer = 3;
    c.node = 22;
    czk_rng_bytes(&t->rng, c.raw, sizeof c.raw);
    label_want(&c);
    CHECK(czk_harness_run_one(synth_label, &c, CZK_CS_WITNESS, 0, &st, NULL, NULL) == CZK_OK);
    CHECK_EQ_INT(st.n_rows, 532025);
    CHECK(czk_harness_run_one(synth_label, &c, CZK_CS_WITNESS, CZK_CS_CHECK, NULL, NULL, NULL) ==
          CZK_OK);
}

/* ---- PoR over a SHA-256 binary tree ---- */

#define POR_LEVELS 3

typedef struct por_ctx {
    czk_fr leaf, root;
    czk_vanilla_level path[POR_LEVELS];
    int private_root;
} por_ctx;

static int synth_por(czk_cs *cs, void *p) {
    por_ctx *c = p;
    czk_por_root val = {CZK_POR_ROOT_VAL, 0, c->leaf}, root = {CZK_POR_ROOT_VAL, 0, c->root};
    czk_var computed;
    int rc =
        czk_sha256_gadget_por(cs, &computed, POR_LEVELS, &val, c->path, &root, c->private_root);
    if (rc == CZK_OK && czk_cs_has_values(cs) &&
        !czk_fr_equal(czk_cs_value(cs, computed), &c->root))
        return czk_cs_set_error(cs, CZK_EINTERNAL, "computed root");
    return rc;
}

/* Node hash of filecoin-hashers' Sha256: SHA256(LE(a) ‖ LE(b)), trimmed. */
static void node_hash(czk_fr *out, const czk_fr *a, const czk_fr *b) {
    uint8_t buf[64], dig[32];
    czk_fr_to_bytes_le(buf, a);
    czk_fr_to_bytes_le(buf + 32, b);
    SHA256(buf, 64, dig);
    trimmed_fr(out, dig);
}

CZK_TEST(sha256_gadget_por) {
    czk_fr tree[2 * (1 << POR_LEVELS)]; /* heap order: node k has children 2k, 2k + 1 */
    por_ctx c;
    czk_cs_stats st;
    const uint32_t n = 1u << POR_LEVELS;
    for (uint32_t i = 0; i < n; i++)
        czk_fr_random(&tree[n + i], &t->rng);
    for (uint32_t k = n - 1; k >= 1; k--)
        node_hash(&tree[k], &tree[2 * k], &tree[2 * k + 1]);
    for (int round = 0; round < 2; round++) {
        uint32_t leaf = (uint32_t)(czk_rng_u64(&t->rng) % n), k = n + leaf;
        memset(&c, 0, sizeof c);
        c.leaf = tree[k];
        c.root = tree[1];
        c.private_root = round == 0;
        for (int l = 0; l < POR_LEVELS; l++, k /= 2) {
            c.path[l].arity = 2;
            c.path[l].index = k & 1;
            c.path[l].sib[0] = tree[k ^ 1];
        }
        CHECK(czk_harness_check_modes(t, synth_por, &c, CZK_HARNESS_AUX_USED, &st));
        CHECK_EQ_INT(st.n_rows, POR_LEVELS * 45382 + 2 + !c.private_root);
        CHECK_EQ_INT(st.n_inputs, 2 + !c.private_root);
        /* a wrong sibling: the computed root misses, the equality row fails */
        czk_fr_add(&c.path[1].sib[0], &c.path[1].sib[0], &CZK_FR_ONE);
        czk_cs *cs = NULL;
        czk_err err = {0};
        CHECK(czk_cs_create(&cs, CZK_CS_WITNESS, CZK_CS_CHECK, &err) == CZK_OK);
        czk_por_root val = {CZK_POR_ROOT_VAL, 0, c.leaf}, root = {CZK_POR_ROOT_VAL, 0, c.root};
        int rc = czk_sha256_gadget_por(cs, NULL, POR_LEVELS, &val, c.path, &root, 1);
        czk_cs_destroy(cs);
        CHECK_EQ_INT(rc, CZK_EVERIFY);
    }
}

/* ---- argument checks ---- */

CZK_TEST(sha256_gadget_rejects) {
    czk_cs *cs = NULL;
    czk_err err = {0};
    czk_bool bits[512], dig[256];
    czk_var v;
    for (int i = 0; i < 512; i++)
        bits[i] = czk_bool_constant(0);
    /* not whole bytes; sticky */
    CHECK(czk_cs_create(&cs, CZK_CS_COUNT, 0, &err) == CZK_OK);
    CHECK_EQ_INT(czk_sha256_gadget(cs, dig, bits, 12), CZK_EINVAL);
    CHECK_EQ_INT(czk_sha256_gadget(cs, dig, bits, 16), CZK_EINVAL);
    czk_cs_destroy(cs);
    /* hash_leaves of nothing */
    CHECK(czk_cs_create(&cs, CZK_CS_COUNT, 0, &err) == CZK_OK);
    CHECK_EQ_INT(czk_sha256_gadget_hash_leaves(cs, &v, &v, 0), CZK_EINVAL);
    czk_cs_destroy(cs);
    /* PoR: level counts, arity, index, values without a path */
    czk_por_root val = {CZK_POR_ROOT_VAL, 0, CZK_FR_ZERO};
    czk_vanilla_level lv[2];
    memset(lv, 0, sizeof lv);
    lv[0].arity = lv[1].arity = 2;
    for (int k = 0; k < 5; k++) {
        CHECK(czk_cs_create(&cs, k == 4 ? CZK_CS_WITNESS : CZK_CS_COUNT, 0, &err) == CZK_OK);
        int rc;
        if (k == 0)
            rc = czk_sha256_gadget_por(cs, NULL, 0, &val, NULL, &val, 1);
        else if (k == 1)
            rc = czk_sha256_gadget_por(cs, NULL, CZK_POR_MAX_LEVELS + 1, &val, NULL, &val, 1);
        else if (k == 2) {
            lv[1].arity = 8;
            rc = czk_sha256_gadget_por(cs, NULL, 2, &val, lv, &val, 1);
            lv[1].arity = 2;
        } else if (k == 3) {
            lv[0].index = 2;
            rc = czk_sha256_gadget_por(cs, NULL, 2, &val, lv, &val, 1);
            lv[0].index = 0;
        } else {
            rc = czk_sha256_gadget_por(cs, NULL, 2, &val, NULL, &val, 1);
        }
        czk_cs_destroy(cs);
        CHECKF(rc == CZK_EINVAL, "case %d: %d", k, rc);
    }
    /* a NULL parent */
    {
        czk_bool rid[256], node[64];
        const czk_bool *parents[37];
        for (int i = 0; i < 256; i++)
            rid[i] = czk_bool_constant(0);
        for (int i = 0; i < 64; i++)
            node[i] = czk_bool_constant(0);
        for (int i = 0; i < 37; i++)
            parents[i] = i == 20 ? NULL : rid;
        CHECK(czk_cs_create(&cs, CZK_CS_COUNT, 0, &err) == CZK_OK);
        CHECK_EQ_INT(czk_sha256_gadget_label(cs, &v, rid, 1, node, parents), CZK_EINVAL);
        czk_cs_destroy(cs);
    }
    /* a sticky error from before stops every gadget */
    CHECK(czk_cs_create(&cs, CZK_CS_WITNESS, 0, &err) == CZK_OK);
    czk_cs_set_error(cs, CZK_EVERIFY, "earlier");
    CHECK_EQ_INT(czk_sha256_gadget(cs, dig, bits, 16), CZK_EVERIFY);
    CHECK_EQ_INT(czk_sha256_gadget_compress(cs, (czk_bool(*)[32])dig, bits, NULL), CZK_EVERIFY);
    czk_cs_destroy(cs);
}
