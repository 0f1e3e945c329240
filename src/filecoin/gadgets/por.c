/*
 * PoRCircuit over Poseidon trees (contract in por.h), in RFP's order: value, then
 * SubPath::synthesize for base, sub and top, pack_into_inputs, root, equal, inputize.
 */
#include "filecoin/gadgets/por.h"

#include "filecoin/gadgets/gadgets.h"
#include "filecoin/gadgets/poseidon_gadget.h"

static int arity_ok(uint32_t a) {
    return a == 2 || a == 4 || a == 8;
}

uint32_t czk_por_shape_levels(const czk_por_shape *s) {
    if (!arity_ok(s->base_arity) || (s->sub_arity != 0 && !arity_ok(s->sub_arity)) ||
        (s->top_arity != 0 && !arity_ok(s->top_arity)))
        return 0;
    uint32_t n = s->base_levels + (s->sub_arity != 0) + (s->top_arity != 0);
    return n <= CZK_POR_MAX_LEVELS ? n : 0;
}

static uint32_t level_arity(const czk_por_shape *s, uint32_t l) {
    if (l < s->base_levels)
        return s->base_arity;
    if (l == s->base_levels && s->sub_arity != 0)
        return s->sub_arity;
    return s->top_arity;
}

static uint32_t log2_arity(uint32_t a) {
    return a == 2 ? 1 : a == 4 ? 2 : 3;
}

int czk_por_synthesize(czk_cs *cs, czk_var *computed, const czk_por_shape *shape,
                       const czk_por_root *value, const czk_vanilla_level *path,
                       const czk_por_root *root, int private_root) {
    return czk_por_synthesize_memo(cs, computed, shape, value, path, root, private_root, NULL);
}

int czk_por_synthesize_memo(czk_cs *cs, czk_var *computed, const czk_por_shape *shape,
                            const czk_por_root *value, const czk_vanilla_level *path,
                            const czk_por_root *root, int private_root, czk_poseidon_memo *memo) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    uint32_t n_levels = czk_por_shape_levels(shape);
    int values = czk_cs_has_values(cs);
    if (n_levels == 0)
        return czk_cs_set_error(cs, CZK_EINVAL, "por: invalid tree shape");
    if (values && path == NULL)
        return czk_cs_set_error(cs, CZK_EINVAL, "por: values need a path");
    /* Bits of all levels, in order (base, sub, top), for the one packed input. */
    czk_bool bits[3 * CZK_POR_MAX_LEVELS];
    size_t n_bits = 0;
    czk_var cur;
    if (value->kind == CZK_POR_ROOT_VAR)
        cur = value->var;
    else if ((rc = czk_gadget_num_alloc(cs, &cur, &value->val)) != CZK_OK)
        return rc;

    for (uint32_t l = 0; l < n_levels; l++) {
        uint32_t arity = level_arity(shape, l), nb = log2_arity(arity), index = 0;
        const czk_poseidon_circuit *pc;
        czk_err e;
        if (czk_poseidon_circuit_get(&pc, arity, &e) != CZK_OK)
            return czk_cs_set_error(cs, CZK_EINTERNAL, "por: %s", e.msg);
        if (path != NULL) {
            if (path[l].arity != arity || path[l].index >= arity)
                return czk_cs_set_error(cs, CZK_EINVAL, "por: level %u has arity %u, shape %u", l,
                                        path[l].arity, arity);
            index = path[l].index;
        }
        for (uint32_t i = 0; i < nb; i++) {
            czk_var b;
            if ((rc = czk_gadget_bit_alloc(cs, &b, (int)((index >> i) & 1))) != CZK_OK)
                return rc;
            bits[n_bits++] = czk_bool_is(b);
        }
        czk_var sib[CZK_VANILLA_MAX_SIBLINGS], ins[8];
        for (uint32_t i = 0; i + 1 < arity; i++)
            if ((rc = czk_gadget_num_alloc(cs, &sib[i], path ? &path[l].sib[i] : NULL)) != CZK_OK)
                return rc;
        if ((rc = czk_gadget_insert(cs, ins, cur, &bits[n_bits - nb], nb, sib, arity - 1)) !=
                CZK_OK ||
            (rc = czk_poseidon_gadget_hash_memo(cs, &cur, pc, ins, arity, memo)) != CZK_OK)
            return rc;
    }
    if ((rc = czk_gadget_pack_into_inputs(cs, bits, n_bits)) != CZK_OK)
        return rc;
    czk_var rt;
    if (root->kind == CZK_POR_ROOT_VAR)
        rt = root->var;
    else if ((rc = czk_gadget_num_alloc(cs, &rt, &root->val)) != CZK_OK)
        return rc;
    if ((rc = czk_gadget_equal(cs, cur, rt)) != CZK_OK)
        return rc;
    if (!private_root && (rc = czk_gadget_num_inputize(cs, NULL, rt)) != CZK_OK)
        return rc;
    if (computed != NULL)
        *computed = cur;
    return CZK_OK;
}
