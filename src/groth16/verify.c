/*
 * DESIGN: Groth16 verification as one multi-pairing (see verify.h for the equation).
 *
 * Every proof leaves the engine only after this check (doc/DESIGN.md §1), so it runs once per
 * partition: the key-side G2 lines are prepared once per key (czk_groth16_pvk_prepare) and a
 * verification prepares only B's lines, runs one 4-pair Miller loop and one final
 * exponentiation. The input combination Σ x_i·IC_i goes through the MSM, which matters for
 * WindowPoSt (25,840 inputs per partition).
 */
#include "groth16/verify.h"

#include "curve/g2.h"
#include "msm/msm.h"
#include "util/alloc.h"

#include <string.h>

int czk_groth16_pvk_prepare(czk_groth16_pvk *pvk, const czk_groth16_vk *vk, czk_err *err) {
    memset(pvk, 0, sizeof(*pvk));
    if (vk->n_ic == 0 || vk->ic == NULL)
        return czk_err_set(err, CZK_EINVAL, "verifying key has no IC points");
    pvk->ic = czk_malloc(vk->n_ic * sizeof(*pvk->ic));
    if (pvk->ic == NULL)
        return czk_err_set(err, CZK_ENOMEM, "pvk: %zu IC points", vk->n_ic);
    memcpy(pvk->ic, vk->ic, vk->n_ic * sizeof(*pvk->ic));
    pvk->n_ic = vk->n_ic;

    czk_g1_affine_neg(&pvk->neg_alpha_g1, &vk->alpha_g1);
    czk_pairing_g2_prepare(&pvk->beta_g2, &vk->beta_g2);
    czk_g2_affine neg;
    czk_g2_affine_neg(&neg, &vk->gamma_g2);
    czk_pairing_g2_prepare(&pvk->neg_gamma_g2, &neg);
    czk_g2_affine_neg(&neg, &vk->delta_g2);
    czk_pairing_g2_prepare(&pvk->neg_delta_g2, &neg);
    return CZK_OK;
}

void czk_groth16_pvk_clear(czk_groth16_pvk *pvk) {
    if (pvk == NULL)
        return;
    czk_free(pvk->ic);
    memset(pvk, 0, sizeof(*pvk));
}

int czk_groth16_verify(const czk_groth16_pvk *pvk, const czk_groth16_proof *proof,
                       const czk_fr *inputs, size_t n_inputs, czk_err *err) {
    if (pvk->n_ic == 0 || n_inputs != pvk->n_ic - 1)
        return czk_err_set(err, CZK_EINVAL, "verify: %zu public inputs, key expects %zu", n_inputs,
                           pvk->n_ic == 0 ? 0 : pvk->n_ic - 1);
    /* is_in_group also rejects points off the curve. */
    if (!czk_g1_affine_is_in_group(&proof->a))
        return czk_err_set(err, CZK_EINVAL, "verify: proof A is not a point of G1");
    if (!czk_g2_affine_is_in_group(&proof->b))
        return czk_err_set(err, CZK_EINVAL, "verify: proof B is not a point of G2");
    if (!czk_g1_affine_is_in_group(&proof->c))
        return czk_err_set(err, CZK_EINVAL, "verify: proof C is not a point of G1");

    czk_g1_jacobian acc;
    if (n_inputs > 0) {
        int rc = czk_msm_g1(&acc, pvk->ic + 1, inputs, n_inputs, NULL, err);
        if (rc != CZK_OK)
            return rc;
    } else {
        czk_g1_jacobian_set_infinity(&acc);
    }
    czk_g1_jacobian_add_affine_var(&acc, &acc, &pvk->ic[0]);

    czk_g1_affine ps[4];
    czk_pairing_g2_prepared *qs = czk_malloc(4 * sizeof(*qs));
    if (qs == NULL)
        return czk_err_set(err, CZK_ENOMEM, "verify: prepared lines");
    ps[0] = proof->a;
    czk_pairing_g2_prepare(&qs[0], &proof->b);
    czk_g1_jacobian_to_affine(&ps[1], &acc);
    qs[1] = pvk->neg_gamma_g2;
    ps[2] = proof->c;
    qs[2] = pvk->neg_delta_g2;
    ps[3] = pvk->neg_alpha_g1;
    qs[3] = pvk->beta_g2;
    int ok = czk_pairing_check(ps, qs, 4);
    czk_free(qs);
    if (!ok)
        return czk_err_set(err, CZK_EVERIFY, "verify: pairing check failed");
    return CZK_OK;
}
