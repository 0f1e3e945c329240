#include "groth16/keys.h"

#include "util/alloc.h"

#include <string.h>

void czk_groth16_vk_clear(czk_groth16_vk *vk) {
    if (vk == NULL)
        return;
    czk_free(vk->ic);
    memset(vk, 0, sizeof(*vk));
}

void czk_groth16_pk_clear(czk_groth16_pk *pk) {
    if (pk == NULL)
        return;
    czk_groth16_vk_clear(&pk->vk);
    czk_free(pk->h);
    czk_free(pk->l);
    czk_free(pk->a);
    czk_free(pk->b_g1);
    czk_free(pk->b_g2);
    memset(pk, 0, sizeof(*pk));
}
