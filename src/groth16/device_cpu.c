/*
 * The CPU as a prover device (groth16/device.h): proofs through a czk_backend table (the CPU
 * backend, or a test's wrapper of it). It keeps nothing per key and needs no device memory.
 * Its flags follow the table's abilities, so that a test's wrapper with prove_sums, witness
 * packs or staging memory drives the engine down the paths a GPU takes.
 */
#include "groth16/device.h"

#include <stdio.h>
#include <string.h>

#include "groth16/prove.h"
#include "util/alloc.h"

typedef struct cpu_device {
    czk_device base; /* first: the engine sees only this */
    const czk_backend *be;
    char name[128];
} cpu_device;

static void cpu_close(czk_device *d) {
    czk_free(d);
}

static void cpu_info(czk_device *d, czk_device_info *out) {
    const cpu_device *c = (const cpu_device *)d;
    memset(out, 0, sizeof *out);
    snprintf(out->name, sizeof out->name, "%s", c->name);
    snprintf(out->label, sizeof out->label, "%s", c->be->name);
    out->ordinal = -1;
}

static int cpu_need(czk_device *d, const czk_groth16_pk *pk, const czk_r1cs *cs,
                    czk_device_need *out, czk_err *err) {
    (void)d, (void)pk, (void)cs, (void)err;
    memset(out, 0, sizeof *out);
    return CZK_OK;
}

static int cpu_prove(czk_device *d, czk_device_key *key, const czk_groth16_pk *pk,
                     const czk_r1cs *cs, const czk_fr *w, const czk_witness_pack *wp,
                     const czk_fr *r, const czk_fr *s, czk_groth16_proof *proof,
                     czk_groth16_timings *tm, czk_pool *pool, czk_err *err) {
    (void)key; /* the CPU attaches nothing: every key is read where it lies */
    const cpu_device *c = (const cpu_device *)d;
    return czk_groth16_prove_ex(proof, pk, cs, w, wp, NULL, r, s, c->be, pool, tm, err);
}

static void *cpu_host_alloc(czk_device *d, size_t bytes) {
    const cpu_device *c = (const cpu_device *)d;
    return c->be->host_alloc != NULL ? c->be->host_alloc(c->be->ctx, bytes) : NULL;
}

static void cpu_host_free(czk_device *d, void *p, size_t bytes) {
    const cpu_device *c = (const cpu_device *)d;
    if (c->be->host_free != NULL)
        c->be->host_free(c->be->ctx, p, bytes);
}

static const czk_backend *cpu_backend(czk_device *d) {
    return ((cpu_device *)d)->be;
}

static const czk_device_ops cpu_ops = {
    .close = cpu_close,
    .info = cpu_info,
    .need = cpu_need,
    .host_alloc = cpu_host_alloc,
    .host_free = cpu_host_free,
    .prove = cpu_prove,
    .backend = cpu_backend,
};

int czk_device_cpu_open(czk_device **out, const czk_backend *be, const char *name, czk_err *err) {
    *out = NULL;
    cpu_device *c = czk_calloc(1, sizeof *c);
    if (c == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate the CPU device");
    c->base.ops = &cpu_ops;
    c->be = be != NULL ? be : czk_backend_cpu();
    if (c->be->prove_sums != NULL)
        c->base.flags |= CZK_DEVICE_WHOLE_PROOFS;
    if (c->be->flags & CZK_BACKEND_WITNESS_PACK)
        c->base.flags |= CZK_DEVICE_WITNESS_PACK;
    if (c->be->host_alloc != NULL && c->be->host_free != NULL)
        c->base.flags |= CZK_DEVICE_PINNED;
    snprintf(c->name, sizeof c->name, "%s", name != NULL ? name : "cpu");
    *out = &c->base;
    return CZK_OK;
}

void czk_device_close(czk_device *d) {
    if (d != NULL)
        d->ops->close(d);
}
