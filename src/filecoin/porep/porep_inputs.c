/*
 * PoRep public inputs (contract in porep_inputs.h; the C1 check is c1_check.c).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#include "filecoin/porep/porep_inputs.h"

#include <stdio.h>
#include <string.h>

#include "filecoin/porep/sdr.h"

static int fr_of(czk_fr *out, const uint8_t b[32], const char *name, czk_err *err) {
    if (czk_fr_from_bytes_le(out, b) != CZK_OK)
        return czk_err_set(err, CZK_ERANGE, "%s is not a field element (≥ r)", name);
    return CZK_OK;
}

int czk_porep_public_inputs(czk_fr *out, size_t out_len, const czk_porep_type *type,
                            const uint8_t replica_id[32], const uint8_t comm_d[32],
                            const uint8_t comm_r[32], const uint8_t seed[32], uint32_t k,
                            czk_err *err) {
    if (out_len != czk_porep_public_count(type))
        return czk_err_set(err, CZK_EINVAL, "%s has %zu public inputs per partition, not %zu",
                           type->name, czk_porep_public_count(type), out_len);
    int rc;
    if ((rc = czk_porep_type_supported(type, err)) != CZK_OK)
        return rc;
    if ((rc = fr_of(&out[0], replica_id, "replica_id", err)) != CZK_OK ||
        (rc = fr_of(&out[1], comm_d, "comm_d", err)) != CZK_OK ||
        (rc = fr_of(&out[2], comm_r, "comm_r", err)) != CZK_OK)
        return rc;
    /* The verifier's challenges (rust-fil-proofs@87348a74:storage-proofs-porep/src/stacked/
     * circuit/proof.rs:229, vanilla/params.rs:153): synthetic ones from comm_r as well. */
    uint64_t ch[CZK_POREP_MAX_CHALLENGES];
    if ((rc = czk_porep_challenges(ch, type, replica_id, comm_r, seed, k, err)) != CZK_OK)
        return rc;
    czk_sdr_graph g;
    if ((rc = czk_sdr_graph_init(&g, type, err)) != CZK_OK)
        return rc;
    czk_fr *o = out + 3;
    for (uint32_t i = 0; i < type->challenges; i++) {
        uint32_t parents[CZK_SDR_PARENTS];
        if (czk_sdr_parents(&g, ch[i], parents) != CZK_OK)
            return czk_err_set(err, CZK_EINTERNAL, "challenge %llu outside the graph",
                               (unsigned long long)ch[i]);
        czk_fr_set_u64(o++, ch[i]); /* the comm_d path */
        for (int j = 0; j < CZK_SDR_PARENTS; j++)
            czk_fr_set_u64(o++, parents[j]); /* the parents' tree_c paths */
        for (int j = 0; j < 3; j++)
            czk_fr_set_u64(o++, ch[i]); /* UInt64, tree_r_last path, own tree_c path */
    }
    return CZK_OK;
}
