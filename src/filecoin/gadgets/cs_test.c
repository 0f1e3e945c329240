#include "filecoin/gadgets/cs.h"
#include "filecoin/gadgets/cs_parts.h"
#include "filecoin/gadgets/gadgets.h"
#include "filecoin/testgen/harness.h"
#include "r1cs/r1cs.h"
#include "r1cs/rep.h"
#include "tests/test.h"
#include "util/alloc.h"
#include "util/memclear.h"
#include "util/rng.h"

#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- circuits ---- */

typedef struct bits_ctx {
    int a, b;
} bits_ctx;

/* Every AllocatedBit op, and the Boolean dispatch over all kind pairs; checks values. */
static int synth_bits(czk_cs *cs, void *p) {
    bits_ctx *c = p;
    czk_var a, b, r;
    int rc;
    if ((rc = czk_gadget_bit_alloc(cs, &a, c->a)) || (rc = czk_gadget_bit_alloc(cs, &b, c->b)))
        return rc;
    if ((rc = czk_gadget_bit_xor(cs, &r, a, b)) || (rc = czk_gadget_bit_and(cs, &r, a, b)) ||
        (rc = czk_gadget_bit_and_not(cs, &r, a, b)) || (rc = czk_gadget_bit_nor(cs, &r, a, b)))
        return rc;
    czk_bool kinds[2][4] = {
        {czk_bool_constant(0), czk_bool_constant(1), czk_bool_is(a), czk_bool_not(czk_bool_is(a))},
        {czk_bool_constant(0), czk_bool_constant(1), czk_bool_is(b), czk_bool_not(czk_bool_is(b))},
    };
    for (int i = 0; i < 4; i++) {
        for (int j = 0; j < 4; j++) {
            czk_bool x, y;
            if ((rc = czk_gadget_bool_xor(cs, &x, &kinds[0][i], &kinds[1][j])) ||
                (rc = czk_gadget_bool_and(cs, &y, &kinds[0][i], &kinds[1][j])))
                return rc;
            if (czk_cs_has_values(cs)) {
                int va = czk_bool_get_value(cs, &kinds[0][i]);
                int vb = czk_bool_get_value(cs, &kinds[1][j]);
                if (czk_bool_get_value(cs, &x) != (va ^ vb) ||
                    czk_bool_get_value(cs, &y) != (va & vb))
                    return czk_cs_set_error(cs, CZK_EINTERNAL, "dispatch value %d,%d", i, j);
            }
        }
    }
    return CZK_OK;
}

CZK_TEST(cs_bits_all_modes) {
    for (int v = 0; v < 4; v++) {
        bits_ctx c = {v & 1, v >> 1};
        czk_harness_run res;
        if (!czk_harness_run_modes(t, synth_bits, &c, 0, &res))
            return;
        /* 2 allocs + 4 ops, then per dispatch pair only the non-constant ones: (Is|Not)² = 4
         * pairs × (xor + and) = 8 rows */
        CHECK_EQ_INT(res.stats.n_rows, 2 + 4 + 8);
        CHECK_EQ_INT(res.stats.n_aux, 2 + 4 + 8);
        czk_harness_run_clear(&res);
    }
}

typedef struct num_ctx {
    czk_fr x, y;
    uint64_t u;
    int flip[64];
} num_ctx;

/* AllocatedNum, multipack, UInt64 and constraint helpers. */
static int synth_num(czk_cs *cs, void *p) {
    num_ctx *c = p;
    czk_var x, y, s, sq, pb;
    czk_bool bits[255], ubits[64], mixed[300];
    int rc;
    if ((rc = czk_gadget_num_alloc(cs, &x, &c->x)) || (rc = czk_gadget_num_alloc(cs, &y, &c->y)) ||
        (rc = czk_gadget_num_inputize(cs, NULL, x)) ||
        (rc = czk_gadget_num_to_bits_le(cs, bits, x)) || (rc = czk_gadget_num_square(cs, &sq, y)) ||
        (rc = czk_gadget_add(cs, &s, x, y)) || (rc = czk_gadget_equal(cs, s, s)) ||
        (rc = czk_gadget_uint64_alloc(cs, ubits, c->u)) ||
        (rc = czk_gadget_uint64_pack_into_input(cs, ubits)))
        return rc;
    /* a pack over Is, Not and constant bits, 300 long: two input chunks (254 + 46) */
    for (int i = 0; i < 300; i++) {
        czk_bool b = i < 255 ? bits[i] : czk_bool_constant(i & 1);
        mixed[i] = c->flip[i % 64] ? czk_bool_not(b) : b;
    }
    if ((rc = czk_gadget_pack_into_inputs(cs, mixed, 300)) ||
        (rc = czk_gadget_pack_bits(cs, &pb, bits, 255)))
        return rc;
    /* pack_bits of the 255 bits of x takes 254 of them: x mod 2^254 */
    if (czk_cs_has_values(cs)) {
        uint64_t l[4], m[4];
        czk_fr_to_limbs(l, czk_cs_value(cs, x));
        czk_fr_to_limbs(m, czk_cs_value(cs, pb));
        l[3] &= (1ull << 62) - 1;
        if (memcmp(l, m, sizeof(l)) != 0)
            return czk_cs_set_error(cs, CZK_EINTERNAL, "pack_bits value");
    }
    return CZK_OK;
}

CZK_TEST(cs_num_pack_all_modes) {
    long iters = czk_test_iters(t, 4);
    for (long it = 0; it < iters; it++) {
        num_ctx c;
        czk_fr_random(&c.x, &t->rng);
        czk_fr_random(&c.y, &t->rng);
        c.u = czk_rng_u64(&t->rng);
        for (int i = 0; i < 64; i++)
            c.flip[i] = (int)(czk_rng_u64(&t->rng) & 1);
        czk_harness_run res;
        if (!czk_harness_run_modes(t, synth_num, &c, 0, &res))
            return;
        /* ONE, inputize, uint64 pack, two chunks */
        CHECK_EQ_INT(res.stats.n_inputs, 1 + 1 + 1 + 2);
        CHECK_EQ_INT(res.stats.b_input_density, 1);
        /* inputize's input is x */
        CHECK(czk_fr_equal(&res.w[1], &c.x));
        {
            czk_fr u;
            czk_fr_set_u64(&u, c.u);
            CHECK(czk_fr_equal(&res.w[2], &u));
        }
        czk_harness_run_clear(&res);
    }
}

typedef struct one_ctx {
    int which, arity;
    czk_fr x;
} one_ctx;

/* One gadget after a fixed prelude of 3 bits (Is) and 8 nums, so that counts are deltas. */
static int synth_one(czk_cs *cs, void *p) {
    one_ctx *c = p;
    czk_var b[3], n[8], r, out[8];
    czk_bool bb[255];
    int rc;
    for (int i = 0; i < 3; i++)
        if ((rc = czk_gadget_bit_alloc(cs, &b[i], i & 1)))
            return rc;
    for (int i = 0; i < 8; i++)
        if ((rc = czk_gadget_num_alloc(cs, &n[i], &c->x)))
            return rc;
    czk_bool bits[3] = {czk_bool_is(b[0]), czk_bool_is(b[1]), czk_bool_is(b[2])};
    switch (c->which) {
    case 0:
        return czk_gadget_insert(cs, out, n[0], bits,
                                 c->arity == 2   ? 1
                                 : c->arity == 4 ? 2
                                                 : 3,
                                 n + 1, (size_t)c->arity - 1);
    case 1:
        return czk_gadget_num_to_bits_le(cs, bb, n[0]);
    case 2:
        return czk_gadget_pack_into_inputs(cs, bits, 3);
    case 3:
        return czk_gadget_uint64_alloc(cs, bb, 12345);
    case 4: { /* constant folding: no rows */
        czk_bool k0 = czk_bool_constant(0), k1 = czk_bool_constant(1), o;
        czk_bool nb = czk_bool_not(bits[0]);
        const czk_bool *xs[4] = {&k0, &k1, &bits[0], &nb};
        for (int i = 0; i < 4; i++)
            for (int j = 0; j < 4; j++)
                if ((i < 2 || j < 2) && ((rc = czk_gadget_bool_xor(cs, &o, xs[i], xs[j])) ||
                                         (rc = czk_gadget_bool_and(cs, &o, xs[i], xs[j]))))
                    return rc;
        return CZK_OK;
    }
    case 5:
        return czk_gadget_pick(cs, &r, &bits[1], n[0], n[1]);
    case 6:
        return czk_gadget_num_inputize(cs, NULL, n[0]);
    default:
        return czk_gadget_pack_bits(cs, &r, bits, 3);
    }
}

CZK_TEST(cs_gadget_counts) {
    struct {
        int which, arity;
        uint64_t rows, aux, inputs;
    } cases[] = {
        {0, 2, 2, 2, 0},   {0, 4, 8, 8, 0}, {0, 8, 22, 22, 0}, {1, 0, 256, 255, 0}, {2, 0, 1, 0, 1},
        {3, 0, 64, 64, 0}, {4, 0, 0, 0, 0}, {5, 0, 1, 1, 0},   {6, 0, 1, 0, 1},     {7, 0, 1, 1, 0},
    };
    /* The prelude plus case 4 (Boolean xor/and with a constant operand, all 24 such calls):
     * constant folding must add nothing, so this is the prelude alone: 3 bit rows, 3 + 8
     * aux, ONE. */
    czk_cs_stats base;
    one_ctx c = {4, 0, CZK_FR_ZERO};
    czk_fr_set_u64(&c.x, 7);
    if (!czk_harness_count(t, synth_one, &c, &base))
        return;
    CHECK_EQ_INT(base.n_rows, 3);
    CHECK_EQ_INT(base.n_aux, 11);
    CHECK_EQ_INT(base.n_inputs, 1);
    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        czk_cs_stats st;
        c.which = cases[k].which;
        c.arity = cases[k].arity;
        if (!czk_harness_count(t, synth_one, &c, &st))
            return;
        CHECKF(st.n_rows - base.n_rows == cases[k].rows, "case %zu rows %llu", k,
               (unsigned long long)(st.n_rows - base.n_rows));
        CHECKF(st.n_aux - base.n_aux == cases[k].aux, "case %zu aux", k);
        CHECKF(st.n_inputs - base.n_inputs == cases[k].inputs, "case %zu inputs", k);
        /* and every one of them satisfiable in all modes */
        czk_harness_run res;
        if (!czk_harness_run_modes(t, synth_one, &c, 0, &res))
            return;
        czk_harness_run_clear(&res);
    }
}

typedef struct rows_ctx {
    int dummy;
} rows_ctx;

/* Rows whose LCs are checked one by one: inputs alloc'd to push aux columns. */
static int synth_rows(czk_cs *cs, void *p) {
    (void)p;
    czk_var a, b, n0, n1, r, in;
    int rc;
    czk_fr two;
    czk_fr_set_u64(&two, 2);
    if ((rc = czk_gadget_bit_alloc(cs, &a, 1)) ||            /* row 0, aux 0 */
        (rc = czk_gadget_bit_alloc(cs, &b, 0)) ||            /* row 1, aux 1 */
        (rc = czk_gadget_num_alloc(cs, &n0, &two)) ||        /* aux 2 */
        (rc = czk_gadget_num_alloc(cs, &n1, &CZK_FR_ONE)) || /* aux 3 */
        (rc = czk_gadget_num_inputize(cs, &in, n0)) ||       /* row 2, input 1 */
        (rc = czk_gadget_bit_xor(cs, &r, a, b)))             /* row 3, aux 4 */
        return rc;
    czk_bool isa = czk_bool_is(a), notb = czk_bool_not(czk_bool_is(b)), o;
    if ((rc = czk_gadget_bool_xor(cs, &o, &notb, &isa)) || /* row 4: xor(a, b), aux 5 */
        (rc = czk_gadget_bool_and(cs, &o, &notb, &isa)) || /* row 5: and_not(a, b), aux 6 */
        (rc = czk_gadget_pick(cs, &r, &notb, n0, n1)))     /* row 6, aux 7 */
        return rc;
    return CZK_OK;
}

CZK_TEST(cs_row_contents) {
    rows_ctx c = {0};
    czk_harness_run res;
    if (!czk_harness_run_modes(t, synth_rows, &c, 0, &res))
        return;
    const czk_r1cs *r = &res.r;
    CHECK_EQ_INT(r->n_public, 1);
    const uint32_t base = 2; /* aux j is column 2 + j */
    czk_fr one = CZK_FR_ONE, m1, two;
    czk_fr_neg(&m1, &one);
    czk_fr_set_u64(&two, 2);
    /* bit alloc: (ONE - b)·b = 0 */
    {
        uint32_t ac[] = {0, base + 0}, bc[] = {base + 0};
        czk_fr av[] = {one, m1}, bv[] = {one};
        CHECK(czk_harness_row_is(&r->a, 0, ac, av, 2));
        CHECK(czk_harness_row_is(&r->b, 0, bc, bv, 1));
        CHECK(czk_harness_row_is(&r->c, 0, NULL, NULL, 0));
    }
    /* inputize: input·ONE = x */
    {
        uint32_t ac[] = {1}, bc[] = {0}, cc[] = {base + 2};
        czk_fr v[] = {one};
        CHECK(czk_harness_row_is(&r->a, 2, ac, v, 1));
        CHECK(czk_harness_row_is(&r->b, 2, bc, v, 1));
        CHECK(czk_harness_row_is(&r->c, 2, cc, v, 1));
    }
    /* xor: A is the single term 2·a; C = a + b - r */
    {
        uint32_t ac[] = {base + 0}, bc[] = {base + 1}, cc[] = {base + 0, base + 1, base + 4};
        czk_fr av[] = {two}, bv[] = {one}, cv[] = {one, one, m1};
        CHECK(czk_harness_row_is(&r->a, 3, ac, av, 1));
        CHECK(czk_harness_row_is(&r->b, 3, bc, bv, 1));
        CHECK(czk_harness_row_is(&r->c, 3, cc, cv, 3));
    }
    /* xor(Not b, Is a): the Is operand a becomes `a` of 2a·b */
    {
        uint32_t ac[] = {base + 0}, bc[] = {base + 1}, cc[] = {base + 0, base + 1, base + 5};
        czk_fr av[] = {two}, bv[] = {one}, cv[] = {one, one, m1};
        CHECK(czk_harness_row_is(&r->a, 4, ac, av, 1));
        CHECK(czk_harness_row_is(&r->b, 4, bc, bv, 1));
        CHECK(czk_harness_row_is(&r->c, 4, cc, cv, 3));
    }
    /* and(Not b, Is a) = and_not(a, b): a·(ONE - b) = r */
    {
        uint32_t ac[] = {base + 0}, bc[] = {0, base + 1}, cc[] = {base + 6};
        czk_fr av[] = {one}, bv[] = {one, m1}, cv[] = {one};
        CHECK(czk_harness_row_is(&r->a, 5, ac, av, 1));
        CHECK(czk_harness_row_is(&r->b, 5, bc, bv, 2));
        CHECK(czk_harness_row_is(&r->c, 5, cc, cv, 1));
    }
    /* pick(Not b, n0, n1): (n1 - n0)·(ONE - b) = n1 - c */
    {
        uint32_t ac[] = {base + 2, base + 3}, bc[] = {0, base + 1}, cc[] = {base + 3, base + 7};
        czk_fr av[] = {m1, one}, bv[] = {one, m1}, cv[] = {one, m1};
        CHECK(czk_harness_row_is(&r->a, 6, ac, av, 2));
        CHECK(czk_harness_row_is(&r->b, 6, bc, bv, 2));
        CHECK(czk_harness_row_is(&r->c, 6, cc, cv, 2));
    }
    /* pick's value: cond = ¬b = 1, so c = n0 = 2 */
    CHECK(czk_fr_equal(&res.w[base + 7], &two));
    czk_harness_run_clear(&res);
}

/* LC merging: repeated variables add, cancellation drops the term, overflow is reported. */
CZK_TEST(cs_lc_merge_and_overflow) {
    czk_cs *cs = NULL;
    czk_err err = {0};
    czk_r1cs r = {0};
    czk_var x;
    CHECK(czk_cs_create(&cs, CZK_CS_RECORD, 0, &err) == CZK_OK);
    CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_OK);
    CZK_LC_DECL(A, 4);
    CZK_LC_DECL(B, 4);
    CZK_LC_DECL(C, 1);
    czk_lc_add_var(&A, x);
    czk_lc_add_var(&A, CZK_VAR_ONE);
    czk_lc_sub_var(&A, x); /* cancels: x's term is 0 and is dropped */
    czk_lc_add_var(&B, x);
    czk_lc_add_var(&B, x);
    czk_lc_add_var(&B, x);
    CHECK_EQ_INT(B.n, 1);
    CHECK(czk_cs_enforce(cs, &A, &B, &C) == CZK_OK);
    CHECK(czk_cs_finish_r1cs(cs, &r, &err) == CZK_OK);
    czk_fr three;
    czk_fr_set_u64(&three, 3);
    uint32_t ac[] = {0}, bc[] = {1};
    czk_fr av[] = {CZK_FR_ONE};
    CHECK(czk_harness_row_is(&r.a, 0, ac, av, 1));
    CHECK(czk_harness_row_is(&r.b, 0, bc, &three, 1));
    czk_r1cs_clear(&r);
    czk_cs_destroy(cs);

    CHECK(czk_cs_create(&cs, CZK_CS_COUNT, 0, &err) == CZK_OK);
    CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_OK);
    czk_lc_reset(&A);
    czk_lc_reset(&B);
    czk_lc_add_var(&C, x);
    czk_lc_add_var(&C, CZK_VAR_ONE); /* capacity 1: overflow */
    CHECK(C.overflow);
    CHECK(czk_cs_enforce(cs, &A, &B, &C) == CZK_EINVAL);
    CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_EINVAL); /* sticky */
    czk_cs_destroy(cs);

    /* a variable that does not exist */
    CHECK(czk_cs_create(&cs, CZK_CS_COUNT, 0, &err) == CZK_OK);
    czk_lc_reset(&C);
    czk_lc_add_var(&C, 5);
    CHECK(czk_cs_enforce(cs, &A, &B, &C) == CZK_EINVAL);
    czk_cs_destroy(cs);
}

/* The digest format of FILECOIN.md §8 written out by hand for one AllocatedBit::alloc. */
CZK_TEST(cs_digest_by_hand) {
    czk_cs *cs = NULL;
    czk_err err = {0};
    czk_var b;
    uint8_t got[32], want[32], msg[512];
    size_t n = 0;
    CHECK(czk_cs_create(&cs, CZK_CS_COUNT, CZK_CS_DIGEST, &err) == CZK_OK);
    CHECK(czk_gadget_bit_alloc(cs, &b, 0) == CZK_OK);
    CHECK(czk_cs_digest_finish(cs, got, &err) == CZK_OK);
    CHECK(czk_cs_enforce(cs, NULL, NULL, NULL) == CZK_EINVAL); /* finished */
    czk_cs_destroy(cs);
    /* r - 1, little-endian */
    static const uint8_t r_minus_1[32] = {0x00, 0x00, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff,
                                          0xfe, 0x5b, 0xfe, 0xff, 0x02, 0xa4, 0xbd, 0x53,
                                          0x05, 0xd8, 0xa1, 0x09, 0x08, 0xd8, 0x39, 0x33,
                                          0x48, 0x7d, 0x9d, 0x29, 0x53, 0xa7, 0xed, 0x73};
    uint8_t one32[32] = {1};
    uint8_t id_one[8] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, id_aux0[8] = {0};
    /* row 0: A = ONE·1 + aux0·(r-1); B = aux0·1; C = ∅ */
    memcpy(msg + n, id_one, 8), n += 8;
    memcpy(msg + n, one32, 32), n += 32;
    memcpy(msg + n, id_aux0, 8), n += 8;
    memcpy(msg + n, r_minus_1, 32), n += 32;
    msg[n++] = '|';
    memcpy(msg + n, id_aux0, 8), n += 8;
    memcpy(msg + n, one32, 32), n += 32;
    msg[n++] = '|';
    msg[n++] = '|';
    /* the input row of ONE */
    memcpy(msg + n, id_one, 8), n += 8;
    memcpy(msg + n, one32, 32), n += 32;
    msg[n++] = '|';
    msg[n++] = '|';
    msg[n++] = '|';
    unsigned len = 0;
    CHECK(EVP_Digest(msg, n, want, &len, EVP_sha256(), NULL) == 1);
    CHECK_MEM(got, want, 32);
}

/* ---- composite: a Merkle-path-like chain ---- */

#define PATH_LEVELS 3

typedef struct path_ctx {
    czk_fr leaf;
    uint32_t index; /* 3 bits per level */
    czk_fr sib[PATH_LEVELS][7];
    uint64_t challenge;
} path_ctx;

/* leaf, then per level: 3 index bits, 7 siblings, insert_8, a toy hash (adds + square), then
 * pack the index, pick a root, equal, inputize, to_bits_le + pack_bits of the root. */
static int synth_path(czk_cs *cs, void *p) {
    path_ctx *c = p;
    czk_var cur, sib[7], ins[8], s, root, packed;
    czk_bool bits[3 * PATH_LEVELS], rbits[255], ubits[64];
    int rc;
    if ((rc = czk_gadget_num_alloc(cs, &cur, &c->leaf)))
        return rc;
    for (int l = 0; l < PATH_LEVELS; l++) {
        for (int i = 0; i < 3; i++) {
            czk_var b;
            if ((rc = czk_gadget_bit_alloc(cs, &b, (int)((c->index >> (3 * l + i)) & 1))))
                return rc;
            bits[3 * l + i] = czk_bool_is(b);
        }
        for (int i = 0; i < 7; i++)
            if ((rc = czk_gadget_num_alloc(cs, &sib[i], &c->sib[l][i])))
                return rc;
        if ((rc = czk_gadget_insert(cs, ins, cur, bits + 3 * l, 3, sib, 7)))
            return rc;
        /* position check: ins[idx] is cur, the others the siblings in order */
        if (czk_cs_has_values(cs)) {
            unsigned idx = (c->index >> (3 * l)) & 7;
            for (unsigned i = 0, k = 0; i < 8; i++) {
                const czk_fr *want = i == idx ? czk_cs_value(cs, cur) : &c->sib[l][k++];
                if (!czk_fr_equal(czk_cs_value(cs, ins[i]), want))
                    return czk_cs_set_error(cs, CZK_EINTERNAL, "insert_8 value %u", i);
            }
        }
        s = ins[0];
        for (int i = 1; i < 8; i++)
            if ((rc = czk_gadget_add(cs, &s, s, ins[i])))
                return rc;
        if ((rc = czk_gadget_num_square(cs, &cur, s)))
            return rc;
        /* an insert_2 and insert_4 on the same bits, to cover them in the chain */
        if ((rc = czk_gadget_insert(cs, ins, cur, bits + 3 * l, 1, sib, 1)) ||
            (rc = czk_gadget_insert(cs, ins, cur, bits + 3 * l, 2, sib, 3)))
            return rc;
    }
    if ((rc = czk_gadget_pack_into_inputs(cs, bits, 3 * PATH_LEVELS)))
        return rc;
    /* root: a fresh aux holding the computed value, as Root::Val */
    const czk_fr *cv = czk_cs_value(cs, cur);
    czk_fr rv = cv ? *cv : CZK_FR_ZERO;
    if ((rc = czk_gadget_num_alloc(cs, &root, &rv)) || (rc = czk_gadget_equal(cs, cur, root)) ||
        (rc = czk_gadget_num_inputize(cs, NULL, root)) ||
        (rc = czk_gadget_num_to_bits_le(cs, rbits, root)) ||
        (rc = czk_gadget_pack_bits(cs, &packed, rbits, 255)) ||
        (rc = czk_gadget_uint64_alloc(cs, ubits, c->challenge)) ||
        (rc = czk_gadget_uint64_pack_into_input(cs, ubits)))
        return rc;
    return CZK_OK;
}

static void path_random(czk_test_ctx *t, path_ctx *c) {
    czk_fr_random(&c->leaf, &t->rng);
    c->index = (uint32_t)(czk_rng_u64(&t->rng) & ((1u << (3 * PATH_LEVELS)) - 1));
    for (int l = 0; l < PATH_LEVELS; l++)
        for (int i = 0; i < 7; i++)
            czk_fr_random(&c->sib[l][i], &t->rng);
    c->challenge = czk_rng_u64(&t->rng);
}

CZK_TEST(cs_composite_path) {
    long iters = czk_test_iters(t, 4);
    for (long it = 0; it < iters; it++) {
        path_ctx c;
        path_random(t, &c);
        czk_harness_run res;
        if (!czk_harness_run_modes(t, synth_path, &c, 0, &res))
            return;
        /* per level 3 + 22 + 7 + 1 + 2 + 8 rows; pack 1; equal 1; inputize 1; to_bits 256;
         * pack_bits 1; uint64 64 + 1 */
        CHECK_EQ_INT(res.stats.n_rows,
                     PATH_LEVELS * (3 + 22 + 7 + 1 + 2 + 8) + 1 + 1 + 1 + 256 + 1 + 64 + 1);
        CHECK_EQ_INT(res.stats.n_inputs, 4);
        CHECK_EQ_INT(res.stats.b_input_density, 1);
        {
            czk_fr idx;
            czk_fr_set_u64(&idx, c.index);
            CHECK(czk_fr_equal(&res.w[1], &idx)); /* the packed index is input 1 */
        }
        czk_harness_run_clear(&res);
    }
}

/* A wrong witness value is caught at the right row, by czk_r1cs_check and by CHECK mode. */
CZK_TEST(cs_wrong_witness_names_row) {
    path_ctx c;
    path_random(t, &c);
    czk_harness_run res;
    czk_err err = {0};
    if (!czk_harness_run_modes(t, synth_path, &c, 0, &res))
        return;
    /* aux 0 is the leaf; the first insert_8's first pick (p0_xx0) is aux 1 + 3 + 7 + 2 = 13,
     * its row is 3 + 2 = 5 (after the 3 bit rows, nor and and). Its value feeds row 6 too, but
     * row 5 is the first to fail. */
    size_t col = res.r.n_public + 1 + 13, bad = 0;
    czk_fr_add(&res.w[col], &res.w[col], &CZK_FR_ONE);
    CHECK(czk_r1cs_check(&res.r, res.w, &bad, NULL, &err) == CZK_EVERIFY);
    CHECK_EQ_INT(bad, 5);
    /* restored, the witness is whole again */
    czk_fr_sub(&res.w[col], &res.w[col], &CZK_FR_ONE);
    CHECK(czk_r1cs_check(&res.r, res.w, NULL, NULL, &err) == CZK_OK);
    czk_harness_run_clear(&res);

    /* CHECK mode: 3 bit rows, then equal(x, y) with x != y at row 3 */
    czk_cs *cs = NULL;
    czk_var b, x, y;
    czk_fr one = CZK_FR_ONE, two;
    czk_fr_set_u64(&two, 2);
    CHECK(czk_cs_create(&cs, CZK_CS_COUNT, CZK_CS_CHECK, &err) == CZK_OK);
    for (int i = 0; i < 3; i++)
        CHECK(czk_gadget_bit_alloc(cs, &b, i & 1) == CZK_OK);
    CHECK(czk_gadget_num_alloc(cs, &x, &one) == CZK_OK);
    CHECK(czk_gadget_num_alloc(cs, &y, &two) == CZK_OK);
    CHECK(czk_gadget_equal(cs, x, y) == CZK_EVERIFY);
    CHECK_EQ_INT(czk_cs_bad_row(cs), 3);
    CHECK(strstr(czk_cs_error(cs)->msg, "row 3") != NULL);
    CHECK(czk_gadget_equal(cs, x, x) == CZK_EVERIFY); /* sticky */
    czk_cs_destroy(cs);

    /* a bit allocated with a non-boolean value fails its own row */
    CHECK(czk_cs_create(&cs, CZK_CS_RECORD, CZK_CS_CHECK, &err) == CZK_OK);
    CHECK(czk_cs_alloc(cs, &x, &two) == CZK_OK);
    {
        CZK_LC_DECL(A, 2);
        CZK_LC_DECL(B, 1);
        CZK_LC_DECL(C, 1);
        czk_lc_add_var(&A, CZK_VAR_ONE);
        czk_lc_sub_var(&A, x);
        czk_lc_add_var(&B, x);
        CHECK(czk_cs_enforce(cs, &A, &B, &C) == CZK_EVERIFY);
        CHECK_EQ_INT(czk_cs_bad_row(cs), 0);
    }
    czk_cs_destroy(cs);
}

/* WITNESS mode keeps values only: no LCs are needed, rows are just counted. */
CZK_TEST(cs_witness_mode_values_only) {
    czk_cs *cs = NULL;
    czk_err err = {0};
    path_ctx c;
    path_random(t, &c);
    CHECK(czk_cs_create(&cs, CZK_CS_WITNESS, 0, &err) == CZK_OK);
    CHECK(czk_cs_reserve(cs, 2, 5) == CZK_OK); /* smaller than needed: growth continues */
    CHECK(czk_cs_enforce(cs, NULL, NULL, NULL) == CZK_OK);
    CHECK(synth_path(cs, &c) == CZK_OK);
    CHECK(czk_cs_digest_finish(cs, (uint8_t[32]){0}, &err) == CZK_EINVAL);
    czk_r1cs r;
    CHECK(czk_cs_finish_r1cs(cs, &r, &err) == CZK_EINVAL);
    size_t na = 0, ni = 0;
    CHECK(czk_cs_aux_values(cs, &na) != NULL);
    CHECK(czk_cs_input_values(cs, &ni) != NULL);
    CHECK(czk_fr_is_one(&czk_cs_input_values(cs, NULL)[0]));
    CHECK(czk_fr_equal(&czk_cs_aux_values(cs, NULL)[0], &c.leaf));
    CHECK_EQ_INT(ni, 4);
    czk_cs_destroy(cs);
    /* no digest in WITNESS mode; values required with CHECK */
    CHECK(czk_cs_create(&cs, CZK_CS_WITNESS, CZK_CS_DIGEST, &err) == CZK_EINVAL);
    CHECK(czk_cs_create(&cs, CZK_CS_COUNT, CZK_CS_CHECK, &err) == CZK_OK);
    czk_var x;
    CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_EINVAL);
    czk_cs_destroy(cs);
}

/*
 * czk_cs_witness_at: a second system continues a first one's synthesis in the same caller
 * memory: it reads the earlier variables' values, writes only past its start, counts from it,
 * and stops at the end of what it is bound to; misuse is refused.
 */
CZK_TEST(cs_witness_at) {
    czk_cs *cs = NULL, *cs2 = NULL;
    czk_err err = {0};
    czk_fr in[3], aux[6], two, three, five;
    memset(in, 0xa5, sizeof in);
    memset(aux, 0xa5, sizeof aux);
    czk_fr_set_u64(&two, 2);
    czk_fr_set_u64(&three, 3);
    czk_fr_add(&five, &two, &three);
    /* The first part: aux 0, 1 and input 1. */
    czk_var a, b, x, s, y;
    CHECK(czk_cs_create(&cs, CZK_CS_WITNESS, 0, &err) == CZK_OK);
    CHECK(czk_cs_bind_values(cs, in, 3, aux, 6) == CZK_OK);
    CHECK(czk_gadget_num_alloc(cs, &a, &two) == CZK_OK);
    CHECK(czk_gadget_num_alloc(cs, &b, &three) == CZK_OK);
    CHECK(czk_cs_alloc_input(cs, &x, &five) == CZK_OK);
    CHECK_EQ_INT(czk_cs_witness_at(cs, 2, 2), CZK_EINVAL); /* variables allocated already */
    czk_cs_destroy(cs);
    /* The second part, from input 2 and aux 2, bound up to aux 4: a + b into aux 2, the ONE
     * input's neighbour read back. */
    CHECK(czk_cs_create(&cs2, CZK_CS_WITNESS, 0, &err) == CZK_OK);
    CHECK(czk_cs_bind_values(cs2, in, 2, aux, 4) == CZK_OK);
    CHECK_EQ_INT(czk_cs_witness_at(cs2, 2, 2), CZK_OK);
    CHECK(czk_fr_equal(czk_cs_value(cs2, x), &five));
    CHECK(czk_fr_is_one(czk_cs_value(cs2, CZK_VAR_ONE)));
    CHECK(czk_gadget_add(cs2, &s, a, b) == CZK_OK);
    CHECK_EQ_INT(s, 2);
    CHECK(czk_fr_equal(&aux[2], &five));
    CHECK(czk_cs_alloc_input(cs2, &y, &two) == CZK_OK);
    CHECK_EQ_INT(czk_var_index(y), 2);
    CHECK(czk_fr_equal(&in[1], &two));
    czk_cs_stats st;
    czk_cs_get_stats(cs2, &st);
    CHECK(st.n_inputs == 3 && st.n_aux == 3 && st.n_rows == 1);
    CHECK(czk_cs_alloc(cs2, &y, &two) == CZK_OK);                /* aux 3: the last bound */
    CHECK_EQ_INT(czk_cs_alloc(cs2, &y, &two), CZK_EINVAL);       /* aux 4: beyond */
    CHECK_EQ_INT(czk_cs_alloc_input(cs2, &y, &two), CZK_EINVAL); /* sticky */
    czk_fr pat;
    memset(&pat, 0xa5, sizeof pat);
    CHECK(memcmp(&aux[4], &pat, sizeof pat) == 0 && memcmp(&aux[5], &pat, sizeof pat) == 0);
    CHECK(memcmp(&in[2], &pat, sizeof pat) == 0);
    czk_cs_destroy(cs2);
    /* Refusals: not bound (WITNESS or not), input 0, beyond the bound arrays. */
    static const czk_cs_mode modes[] = {CZK_CS_WITNESS, CZK_CS_COUNT};
    for (int m = 0; m < 2; m++) {
        CHECK(czk_cs_create(&cs, modes[m], 0, &err) == CZK_OK);
        CHECK_EQ_INT(czk_cs_witness_at(cs, 1, 0), CZK_EINVAL);
        czk_cs_destroy(cs);
    }
    static const size_t bad[][2] = {{0, 0}, {4, 0}, {1, 7}};
    for (int k = 0; k < 3; k++) {
        CHECK(czk_cs_create(&cs, CZK_CS_WITNESS, 0, &err) == CZK_OK);
        CHECK(czk_cs_bind_values(cs, in, 2, aux, 6) == CZK_OK);
        CHECK_EQ_INT(czk_cs_witness_at(cs, bad[k][0], bad[k][1]), CZK_EINVAL);
        CHECK_EQ_INT(czk_cs_status(cs), CZK_EINVAL);
        czk_cs_destroy(cs);
    }
    CHECK(czk_cs_create(&cs, CZK_CS_WITNESS, 0, &err) == CZK_OK);
    CHECK(czk_cs_bind_values(cs, in, 2, aux, 6) == CZK_OK);
    CHECK_EQ_INT(czk_cs_witness_at(cs, 3, 6), CZK_OK); /* at the very end: nothing more fits */
    CHECK_EQ_INT(czk_cs_alloc(cs, &y, &two), CZK_EINVAL);
    czk_cs_destroy(cs);
}

/*
 * The exact pick sequence of insert_2/4/8 (FILECOIN.md §2): every row checked against a table of
 * (cond, a, b) operands. Symbols: 0 = the element, 1..7 = siblings, 8..10 = bits b0..b2,
 * 11 = nor(b0,b1), 12 = and(b0,b1), 100 + k = the output of pick k.
 */
typedef struct pick_op {
    int cond, a, b;
} pick_op;

static const pick_op INSERT_2[] = {{8, 1, 0}, {8, 0, 1}};
static const int INSERT_2_OUT[] = {0, 1};
static const pick_op INSERT_4[] = {{8, 1, 0}, {9, 1, 100}, {8, 0, 1}, {9, 2, 102},
                                   {8, 3, 0}, {9, 104, 2}, {8, 0, 3}, {9, 106, 3}};
static const int INSERT_4_OUT[] = {1, 3, 5, 7};
static const pick_op INSERT_8[] = {
    {11, 0, 1},   {10, 1, 100}, {8, 0, 1},    {9, 2, 102},  {10, 2, 103}, {8, 3, 0},   {9, 105, 2},
    {10, 3, 106}, {12, 0, 3},   {10, 4, 108}, {11, 0, 5},   {10, 110, 4}, {8, 0, 5},   {9, 6, 112},
    {10, 113, 5}, {8, 7, 0},    {9, 115, 6},  {10, 116, 6}, {12, 0, 7},   {10, 118, 7}};
static const int INSERT_8_OUT[] = {1, 4, 7, 9, 11, 14, 17, 19};

CZK_TEST(cs_insert_pick_order) {
    static const struct {
        int arity;
        const pick_op *ops;
        size_t n_ops;
        const int *outs;
    } cases[] = {{2, INSERT_2, 2, INSERT_2_OUT},
                 {4, INSERT_4, 8, INSERT_4_OUT},
                 {8, INSERT_8, 20, INSERT_8_OUT}};
    for (size_t k = 0; k < 3; k++) {
        czk_cs *cs = NULL;
        czk_err err = {0};
        czk_r1cs r = {0};
        czk_var bits[3], x, sib[7], out[8];
        int nb = cases[k].arity == 2 ? 1 : cases[k].arity == 4 ? 2 : 3;
        CHECK(czk_cs_create(&cs, CZK_CS_RECORD, 0, &err) == CZK_OK);
        for (int i = 0; i < 3; i++)
            CHECK(czk_gadget_bit_alloc(cs, &bits[i], 0) == CZK_OK); /* aux 0..2, rows 0..2 */
        CHECK(czk_cs_alloc(cs, &x, NULL) == CZK_OK);                /* aux 3 */
        for (int i = 0; i < 7; i++)
            CHECK(czk_cs_alloc(cs, &sib[i], NULL) == CZK_OK); /* aux 4..10 */
        czk_bool bb[3] = {czk_bool_is(bits[0]), czk_bool_is(bits[1]), czk_bool_is(bits[2])};
        CHECK(czk_gadget_insert(cs, out, x, bb, (size_t)nb, sib, (size_t)cases[k].arity - 1) ==
              CZK_OK);
        CHECK(czk_cs_finish_r1cs(cs, &r, &err) == CZK_OK);
        czk_cs_destroy(cs);
        /* columns: ONE is 0, aux j is 1 + j */
        int extra = cases[k].arity == 8 ? 2 : 0; /* nor and and: aux 11, 12; rows 3, 4 */
        size_t first_pick_row = 3 + (size_t)extra;
        uint32_t first_pick_aux = 11 + (uint32_t)extra;
        CHECK_EQ_INT(r.n_constraints, first_pick_row + cases[k].n_ops);
        uint32_t col_of[200];
        col_of[0] = 1 + 3;
        for (int i = 1; i <= 7; i++)
            col_of[i] = 1 + 3 + (uint32_t)i;
        for (int i = 0; i < 3; i++)
            col_of[8 + i] = 1 + (uint32_t)i;
        col_of[11] = 1 + 11;
        col_of[12] = 1 + 12;
        for (size_t i = 0; i < cases[k].n_ops; i++)
            col_of[100 + i] = 1 + first_pick_aux + (uint32_t)i;
        czk_fr one = CZK_FR_ONE, m1;
        czk_fr_neg(&m1, &one);
        if (extra) {
            uint32_t o_b0[] = {0, col_of[8]}, o_b1[] = {0, col_of[9]}, nor[] = {col_of[11]};
            uint32_t b0[] = {col_of[8]}, b1[] = {col_of[9]}, and[] = {col_of[12]};
            czk_fr pm[] = {one, m1}, p[] = {one};
            CHECK(czk_harness_row_is(&r.a, 3, o_b0, pm, 2) &&
                  czk_harness_row_is(&r.b, 3, o_b1, pm, 2) &&
                  czk_harness_row_is(&r.c, 3, nor, p, 1));
            CHECK(czk_harness_row_is(&r.a, 4, b0, p, 1) && czk_harness_row_is(&r.b, 4, b1, p, 1) &&
                  czk_harness_row_is(&r.c, 4, and, p, 1));
        }
        for (size_t i = 0; i < cases[k].n_ops; i++) {
            const pick_op *op = &cases[k].ops[i];
            size_t row = first_pick_row + i;
            uint32_t ca = col_of[op->a], cb = col_of[op->b], cc = col_of[op->cond];
            uint32_t co = col_of[100 + i];
            /* A = b - a, B = cond, C = b - out, columns ascending */
            uint32_t acols[2] = {ca < cb ? ca : cb, ca < cb ? cb : ca};
            czk_fr avals[2] = {ca < cb ? m1 : one, ca < cb ? one : m1};
            uint32_t ccols[2] = {cb, co}; /* out is the newest column */
            czk_fr cvals[2] = {one, m1};
            CHECKF(czk_harness_row_is(&r.a, row, acols, avals, 2), "arity %d pick %zu A",
                   cases[k].arity, i);
            CHECKF(czk_harness_row_is(&r.b, row, &cc, &one, 1), "arity %d pick %zu B",
                   cases[k].arity, i);
            CHECKF(czk_harness_row_is(&r.c, row, ccols, cvals, 2), "arity %d pick %zu C",
                   cases[k].arity, i);
        }
        for (int i = 0; i < cases[k].arity; i++)
            CHECK(out[i] == first_pick_aux + (uint32_t)cases[k].outs[i]);
        czk_r1cs_clear(&r);
    }
}

/* ---- circuits in parts (cs_parts.h) ---- */

/* A global part (an input g and an aux h, g·ONE = h) and parts alike but for `odd`: part i
 * allocates an input x and an aux y, enforces (h + y)·ONE = x + g and y·y = k·ONE, k = 1 for
 * every part but part `odd`, whose k is 2. */
typedef struct parts_arg {
    uint32_t odd; /* UINT32_MAX: every part alike */
} parts_arg;

typedef struct parts_globals {
    czk_var g, h;
} parts_globals;

static int parts_global(czk_cs *cs, const void *arg, void *globals) {
    (void)arg;
    parts_globals *pg = globals;
    int rc;
    if ((rc = czk_cs_alloc_input(cs, &pg->g, NULL)) || (rc = czk_cs_alloc(cs, &pg->h, NULL)))
        return rc;
    CZK_LC_DECL(a, 2);
    CZK_LC_DECL(b, 2);
    CZK_LC_DECL(c, 2);
    czk_lc_add_var(&a, pg->g);
    czk_lc_add_var(&b, CZK_VAR_ONE);
    czk_lc_add_var(&c, pg->h);
    return czk_cs_enforce(cs, &a, &b, &c);
}

static int parts_part(czk_cs *cs, const void *arg, const void *globals, uint32_t i) {
    const parts_arg *pa = arg;
    const parts_globals *pg = globals;
    czk_var x, y;
    int rc;
    if ((rc = czk_cs_alloc_input(cs, &x, NULL)) || (rc = czk_cs_alloc(cs, &y, NULL)))
        return rc;
    CZK_LC_DECL(a, 2);
    CZK_LC_DECL(b, 2);
    CZK_LC_DECL(c, 2);
    czk_lc_add_var(&a, pg->h);
    czk_lc_add_var(&a, y);
    czk_lc_add_var(&b, CZK_VAR_ONE);
    czk_lc_add_var(&c, x);
    czk_lc_add_var(&c, pg->g);
    if ((rc = czk_cs_enforce(cs, &a, &b, &c)) != CZK_OK)
        return rc;
    czk_lc_reset(&a);
    czk_lc_reset(&b);
    czk_lc_reset(&c);
    czk_fr k;
    czk_fr_set_u64(&k, i == pa->odd ? 2 : 1);
    czk_lc_add_var(&a, y);
    czk_lc_add_var(&b, y);
    czk_lc_add(&c, CZK_VAR_ONE, &k);
    return czk_cs_enforce(cs, &a, &b, &c);
}

/* The repeated form of parts that are alike expands to czk_cs_record_parts's system with its
 * counts; parts that differ at part 1 or at the last are refused, naming the part. */
CZK_TEST(cs_parts_rep) {
    czk_pool *pool = NULL;
    CHECK_EQ_INT(czk_pool_create(&pool, 2), CZK_OK);
    for (uint32_t n = 1; n <= 5; n += 2) {
        parts_arg pa = {UINT32_MAX};
        const czk_cs_parts def = {.what = "test",
                                  .n_parts = n,
                                  .globals_size = sizeof(parts_globals),
                                  .arg = &pa,
                                  .global = parts_global,
                                  .part = parts_part};
        czk_r1cs whole, ex;
        czk_r1cs_rep rep;
        czk_cs_stats ws, rs;
        czk_err e = {0};
        CHECKF(czk_cs_record_parts(&whole, &ws, &def, pool, &e) == CZK_OK, "%s", e.msg);
        CHECKF(czk_cs_record_parts_rep(&rep, &rs, &def, pool, &e) == CZK_OK, "%s", e.msg);
        CHECK_EQ_INT(rep.copies, n);
        CHECK_EQ_INT(rep.head.n_constraints, 1);
        CHECK_EQ_INT(rep.block.n_constraints, 2);
        CHECK_EQ_INT(czk_r1cs_rep_expand(&rep, &ex, NULL, &e), CZK_OK);
        CHECK(memcmp(&ws, &rs, sizeof ws) == 0);
        CHECK(ex.n_vars == whole.n_vars && ex.n_public == whole.n_public &&
              ex.n_constraints == whole.n_constraints);
        const czk_r1cs_matrix *mw[3] = {&whole.a, &whole.b, &whole.c},
                              *me[3] = {&ex.a, &ex.b, &ex.c};
        for (int m = 0; m < 3; m++) {
            const uint64_t nnz = mw[m]->row_ptr[whole.n_constraints];
            CHECK(memcmp(mw[m]->row_ptr, me[m]->row_ptr,
                         (whole.n_constraints + 1) * sizeof(uint64_t)) == 0);
            CHECK(memcmp(mw[m]->cols, me[m]->cols, nnz * sizeof(uint32_t)) == 0);
            CHECK(memcmp(mw[m]->vals, me[m]->vals, nnz * sizeof(czk_fr)) == 0);
        }
        czk_r1cs_clear(&whole);
        czk_r1cs_clear(&ex);
        czk_r1cs_rep_clear(&rep);
        /* Parts unlike part 0: caught where the check looks (part 1, the last). */
        for (uint32_t odd = 1; odd < n; odd += n - 2) {
            pa.odd = odd;
            CHECK_EQ_INT(czk_cs_record_parts_rep(&rep, &rs, &def, pool, &e), CZK_EINVAL);
            char want[32];
            snprintf(want, sizeof want, "part %u's rows", odd);
            CHECKF(strstr(e.msg, want) != NULL, "%s", e.msg);
            CHECK(rep.copies == 0 && rep.block.n_vars == 0 && rep.head.n_vars == 0);
        }
    }
    czk_pool_destroy(pool);
}
