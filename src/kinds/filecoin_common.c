/*
 * What the Filecoin kinds (filecoin.c: PoSt, filecoin_porep.c: PoRep C2, filecoin_snap.c:
 * SnapDeals) do alike, written once: a state that starts with a czk__kinds_fc_base and a job
 * that starts with a czk__kinds_fc_job, the engine entries that need nothing else (key path,
 * load, unload, the repeated form, public inputs, job and state destruction), registration's
 * steps, and the checks every job_create begins and ends with. Each kind keeps its payload,
 * its circuit and its witness (filecoin_internal.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "engine/kind.h"
#include "filecoin/io/params.h"
#include "filecoin/spec/sector.h"
#include "formats/bellperson.h"
#include "kinds/filecoin_internal.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/file.h"

void czk__kinds_err_prefix(czk_err *err, const char *fmt, ...) {
    if (err == NULL)
        return;
    char pre[128], old[sizeof err->msg];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(pre, sizeof pre, fmt, ap);
    va_end(ap);
    memcpy(old, err->msg, sizeof old);
    old[sizeof old - 1] = 0;
    size_t np = strlen(pre), no = strlen(old);
    if (np > sizeof err->msg - 1)
        np = sizeof err->msg - 1;
    if (no > sizeof err->msg - 1 - np)
        no = sizeof err->msg - 1 - np;
    memcpy(err->msg, pre, np);
    memcpy(err->msg + np, old, no);
    err->msg[np + no] = 0;
}

int czk__kinds_fc_frame(const uint8_t *p, size_t len, size_t *off, size_t *l, uint32_t k,
                        const char *rid, czk_err *err) {
    if (len - *off < 4)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: payload ends at offset %zu inside vanilla proof %u's "
                           "length",
                           rid, *off, k);
    *l = czk_bytes_load_le32(p + *off);
    *off += 4;
    if (*l > len - *off)
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: vanilla proof %u at payload offset %zu says %zu bytes, "
                           "%zu remain",
                           rid, k, *off, *l, len - *off);
    return CZK_OK;
}

size_t czk__kinds_fc_frames_size(size_t header, const size_t *lens, size_t n) {
    size_t total = header;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] > SIZE_MAX - 4 - total)
            return 0;
        total += 4 + lens[i];
    }
    return total;
}

size_t czk__kinds_fc_frames_encode(uint8_t *out, size_t header, const uint8_t *const *proofs,
                                   const size_t *lens, size_t n) {
    size_t off = header;
    for (size_t i = 0; i < n; i++) {
        if (lens[i] > UINT32_MAX)
            return 0;
        czk_bytes_store_le32(out + off, (uint32_t)lens[i]);
        if (lens[i] != 0)
            memcpy(out + off + 4, proofs[i], lens[i]);
        off += 4 + lens[i];
    }
    return off;
}

int czk__kinds_fc_circuit_id(char *out, size_t cap, const char *prefix, uint64_t sector_size,
                             const char *what, uint64_t registered_proof, czk_err *err) {
    int si = czk_vanilla_size_index(sector_size);
    int n = si < 0 ? -1 : snprintf(out, cap, "%s-%s", prefix, czk_vanilla_size_names[si]);
    if (n < 0 || (size_t)n >= cap)
        return czk_err_set(err, CZK_EINVAL, "%s %llu: circuit id does not fit", what,
                           (unsigned long long)registered_proof);
    return CZK_OK;
}

/* ---- registration ------------------------------------------------------------------------ */

void *czk__kinds_fc_new(const czk__kinds_fc_kind *kind, size_t size, const char *what,
                        const char *prefix, uint64_t sector_size, int *rc, czk_err *err) {
    int si = czk_vanilla_size_index(sector_size);
    if (si < 0) {
        *rc = czk_err_set(err, CZK_EUNSUPPORTED, "%s: sector size %llu is not supported", what,
                          (unsigned long long)sector_size);
        return NULL;
    }
    czk__kinds_fc_base *b = czk_calloc(1, size);
    if (b == NULL) {
        *rc = czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
        return NULL;
    }
    b->kind = kind;
    snprintf(b->id, sizeof b->id, "%s-%s", prefix, czk_vanilla_size_names[si]);
    *rc = CZK_OK;
    return b;
}

int czk__kinds_fc_locate(czk__kinds_fc_base *b, czk_params_circuit circuit, uint64_t sector_size,
                         const char *param_dir, const char *env_value, czk_err *err) {
    int rc = czk_params_id_get(&b->pid, circuit, sector_size, err);
    if (rc != CZK_OK)
        return rc;
    b->dir = czk_strdup(czk_params_cache_dir(param_dir, env_value));
    if (b->dir == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate a circuit");
    char name[CZK_PARAMS_NAME_MAX];
    rc = czk_params_file_name(name, sizeof name, &b->pid, CZK_PARAMS_EXT_PARAMS, err);
    if (rc == CZK_OK) {
        int w = snprintf(b->key_path, sizeof b->key_path, "%s/%s", b->dir, name);
        if (w < 0 || (size_t)w >= sizeof b->key_path)
            rc = czk_err_set(err, CZK_EINVAL, "circuit %s: parameter directory path too long",
                             b->id);
    }
    return rc;
}

int czk__kinds_fc_add(czk_engine *e, czk__kinds_fc_base *b, int rc, czk_err *err) {
    if (rc != CZK_OK) {
        czk__kinds_fc_destroy(b);
        return rc;
    }
    return czk__engine_add_circuit(e, b->id, &b->kind->kind, b, err);
}

int czk__kinds_fc_register(czk_engine *e, const czk__kinds_fc_kind *kind, uint64_t sector_size,
                           const char *param_dir, const char *env_value, czk_err *err) {
    int rc;
    czk__kinds_fc_base *b =
        czk__kinds_fc_new(kind, kind->size, kind->what, kind->prefix, sector_size, &rc, err);
    if (b == NULL)
        return rc;
    rc = kind->setup(b, sector_size, err);
    if (rc == CZK_OK)
        rc = czk__kinds_fc_locate(b, kind->params, sector_size, param_dir, env_value, err);
    return czk__kinds_fc_add(e, b, rc, err);
}

int czk__kinds_fc_register_all(czk_engine *e, const czk__kinds_fc_kind *kind, const char *param_dir,
                               const char *env_value, czk_err *err) {
    int rc = CZK_OK;
    for (int i = 0; i < CZK_VANILLA_N_SIZES && rc == CZK_OK; i++)
        rc = czk__kinds_fc_register(e, kind, czk_vanilla_sizes[i], param_dir, env_value, err);
    return rc;
}

int czk__kinds_fc_stats_find(czk_cs_stats *out, const czk__kinds_fc_stats_row *rows, size_t n,
                             uint64_t sector_size) {
    for (size_t i = 0; i < n; i++)
        if (rows[i].size == sector_size) {
            *out = rows[i].st;
            return 1;
        }
    return 0;
}

void czk__kinds_fc_destroy(void *state) {
    czk__kinds_fc_base *b = state;
    czk_r1cs_rep_clear(&b->rep);
    czk_free(b->dir);
    czk_free(b);
}

/* ---- sizes and load ---------------------------------------------------------------------- */

void czk__kinds_fc_sizes(czk_kind_sizes *out, const czk_cs_stats *st, const czk_cs_stats *rec,
                         int device_rows) {
    czk_params_expect x;
    czk_params_lengths len;
    czk_params_expect_from_stats(&x, st);
    if (czk_params_expected(&len, NULL, NULL, &x, NULL) != CZK_OK)
        return;
    uint64_t g1 = len.ic + len.h + len.l + len.a + len.b_g1;
    out->key_bytes = g1 * sizeof(czk_g1_affine) + len.b_g2 * sizeof(czk_g2_affine) +
                     (rec->nnz_a + rec->nnz_b + rec->nnz_c) * (sizeof(czk_fr) + sizeof(uint32_t));
    out->n_vars = (size_t)(st->n_inputs + st->n_aux);
    out->domain = (size_t)len.h + 1;
    out->device_rows = device_rows;
}

void czk__kinds_fc_estimate(const void *state, czk_kind_sizes *out) {
    const czk__kinds_fc_base *b = state;
    czk__kinds_fc_sizes(out, &b->stats, b->rec.n_rows > 0 ? &b->rec : &b->stats, b->repeated);
}

const char *czk__kinds_fc_key_path(const void *state) {
    return ((const czk__kinds_fc_base *)state)->key_path;
}

/* Reads the .params at `path` into *pk: first the header check against the circuit's counts
 * `st` (params.h: six length prefixes tell whether the file was made for this circuit before
 * any of its, up to tens of GiB of, points is read), then the points (on the curve), then the
 * key against the loaded system cs (variables, public inputs, domain). */
static int read_key(czk_groth16_pk *pk, const czk_r1cs *cs, const char *path,
                    const czk_cs_stats *st, const char *id, czk_pool *pool, czk_err *err) {
    czk_params_expect x;
    czk_params_expect_from_stats(&x, st);
    int rc = czk_params_header_check(path, &x, err);
    if (rc == CZK_OK)
        rc = czk_bellperson_params_read(pk, path, CZK_KEY_CHECK_CURVE, pool, err);
    if (rc == CZK_OK && (cs->n_vars != pk->n_vars || cs->n_public != pk->n_public ||
                         cs->n_constraints + cs->n_public + 1 > pk->domain_size))
        rc = czk_err_set(err, CZK_EINVAL,
                         "%s: circuit %s (%zu vars, %zu public) does not match the key "
                         "(%zu vars, %zu public, domain %zu)",
                         czk_file_msg_path(path), id, cs->n_vars, cs->n_public, pk->n_vars,
                         pk->n_public, pk->domain_size);
    return rc;
}

int czk__kinds_fc_load(void *state, czk_groth16_pk *pk, czk_r1cs *cs, uint64_t *extra_bytes,
                       czk_pool *pool, czk_err *err) {
    czk__kinds_fc_base *b = state;
    *extra_bytes = 0;
    char path[CZK__KINDS_FC_PATH_MAX];
    /* The file first: a missing key should fail at once, not after recording the circuit. */
    int rc = czk_params_find(path, sizeof path, &b->pid, CZK_PARAMS_EXT_PARAMS, b->dir, NULL, err);
    /* The counts the key is checked against: the recording's own, which are exact
     * (registration may have estimated the big ones), or what record_rep gives. */
    czk_cs_stats st;
    if (rc == CZK_OK && b->repeated) {
        /* cs gets the whole system's sizes only (kind.h). */
        if (b->kind->record_rep != NULL) {
            rc = b->kind->record_rep(b, &st, pool, err);
        } else {
            b->rep.copies = 1;
            rc = b->kind->record(b, &b->rep.block, &st, pool, err);
        }
        if (rc == CZK_OK && (rc = czk_r1cs_rep_dims(&b->rep, cs, err)) == CZK_OK)
            *extra_bytes = czk_r1cs_bytes(&b->rep.block) + czk_r1cs_bytes(&b->rep.head);
    } else if (rc == CZK_OK) {
        rc = b->kind->record(b, cs, &st, pool, err);
    }
    if (rc == CZK_OK)
        rc = read_key(pk, cs, path, &st, b->id, pool, err);
    if (rc != CZK_OK) {
        czk_groth16_pk_clear(pk);
        czk_r1cs_clear(cs);
        czk_r1cs_rep_clear(&b->rep);
        *extra_bytes = 0;
    }
    return rc;
}

void czk__kinds_fc_unload(void *state) {
    czk_r1cs_rep_clear(&((czk__kinds_fc_base *)state)->rep);
}

uint64_t czk__kinds_fc_drop(void *state) {
    czk__kinds_fc_base *b = state;
    const uint64_t bytes =
        b->rep.copies > 0 ? czk_r1cs_bytes(&b->rep.block) + czk_r1cs_bytes(&b->rep.head) : 0;
    czk_r1cs_rep_clear(&b->rep);
    return bytes;
}

int czk__kinds_fc_restore(void *state, czk_groth16_pk *pk, czk_pool *pool, czk_err *err) {
    /* The system a load records again is the one the engine holds (a header of sizes for a
     * repeated circuit, whose form load rebuilds here): only the key is new. */
    return czk__kind_restore_by_load(czk__kinds_fc_load, state, pk, pool, err);
}

const czk_r1cs_rep *czk__kinds_fc_rep(const void *state) {
    const czk__kinds_fc_base *b = state;
    return b->rep.copies > 0 ? &b->rep : NULL;
}

/* ---- jobs -------------------------------------------------------------------------------- */

/* What czk__kinds_fc_job_destroy does, for a state job_create may only read. */
static void job_free(const czk__kinds_fc_base *b, czk__kinds_fc_job *j) {
    if (j == NULL)
        return;
    b->kind->job_clear(j);
    czk_free(j->inputs);
    czk_free(j);
}

int czk__kinds_fc_job_begin(const czk__kinds_fc_base *b, const czk_job_request *req, void **job,
                            const char *what, const char *magic, int version, int header,
                            czk_err *err) {
    const char *rid = req->request_id;
    const uint8_t *p = req->payload;
    *job = NULL;
    if (req->wtns != NULL)
        return czk_err_set(err, CZK_EINVAL, "request %s: circuit %s takes no witness files", rid,
                           b->id);
    if (magic != NULL &&
        (p == NULL || req->payload_len < (size_t)header || memcmp(p, magic, 4) != 0 ||
         czk_bytes_load_le32(p + 4) != (uint32_t)version))
        return czk_err_set(err, CZK_EINVAL,
                           "request %s: circuit %s: not a %s payload (magic \"%s\", version %d, "
                           "%d-byte header)",
                           rid, b->id, what, magic, version, header);
    return CZK_OK;
}

int czk__kinds_fc_job_end(const czk__kinds_fc_base *b, void *job_, int rc, const char *rid,
                          void **job, size_t *n_parts, czk_err *err) {
    if (rc == CZK_OK) {
        char path[CZK__KINDS_FC_PATH_MAX];
        rc = czk_params_find(path, sizeof path, &b->pid, CZK_PARAMS_EXT_PARAMS, b->dir, NULL, err);
        if (rc != CZK_OK)
            czk__kinds_err_prefix(err, "request %s: circuit %s: ", rid, b->id);
    }
    if (rc != CZK_OK) {
        job_free(b, job_);
        if (rc != CZK_ENOMEM && err != NULL)
            err->code = CZK_EINVAL;
        return rc == CZK_ENOMEM ? rc : CZK_EINVAL;
    }
    *job = job_;
    *n_parts = ((const czk__kinds_fc_job *)job_)->n_parts;
    return CZK_OK;
}

void czk__kinds_fc_job_destroy(void *state, void *job) {
    job_free(state, job);
}

int czk__kinds_fc_public_inputs(void *state, void *job, size_t part, czk_fr *out, size_t n_public,
                                czk_err *err) {
    const czk__kinds_fc_base *b = state;
    const czk__kinds_fc_job *j = job;
    if (n_public != j->n_inputs || part >= j->n_parts)
        return czk_err_set(err, CZK_EINTERNAL,
                           "circuit %s: the key has %zu public inputs, the request gives %zu",
                           b->id, n_public, j->n_inputs);
    memcpy(out, j->inputs + part * j->n_inputs, n_public * sizeof *out);
    return CZK_OK;
}
