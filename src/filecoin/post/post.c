/*
 * The Fallback PoSt circuit (contract in post.h): Sector::synthesize of
 * rust-fil-proofs' storage-proofs-post/src/fallback/circuit.rs for every slot in order.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#include "filecoin/post/post.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "filecoin/gadgets/gadgets.h"
#include "filecoin/gadgets/poseidon_gadget.h"
#include "util/alloc.h"
#include "util/memclear.h"

int czk_post_shape_init(czk_post_shape *out, czk_vanilla_post_kind kind, uint64_t sector_size,
                        czk_err *err) {
    /* Registered proofs 0–4 are WinningPoSt and 5–9 WindowPoSt, one per sector size: find the
     * one with this kind and size rather than repeat vanilla.h's table. */
    for (uint64_t abi = 0; abi < 10; abi++) {
        czk_vanilla_post_type ty;
        if (czk_vanilla_post_type_from_abi(&ty, abi, NULL) != CZK_OK || ty.kind != kind ||
            ty.shape.sector_size != sector_size)
            continue;
        out->kind = kind;
        out->sector_size = sector_size;
        if (kind == CZK_VANILLA_POST_WINNING) {
            /* One sector's challenge_count inclusion proofs become as many one-challenge
             * slots (filecoin-proofs' api/winning_post.rs). */
            out->slots = (size_t)ty.challenge_count * ty.sector_count;
            out->challenges = 1;
        } else {
            out->slots = ty.sector_count;
            out->challenges = ty.challenge_count;
        }
        out->tree.base_arity = 8;
        out->tree.base_levels = ty.shape.base_levels;
        out->tree.sub_arity = ty.shape.sub_arity;
        out->tree.top_arity = ty.shape.top_arity;
        return CZK_OK;
    }
    return czk_err_set(err, CZK_EUNSUPPORTED, "post: no %s PoSt for sector size %llu",
                       kind == CZK_VANILLA_POST_WINNING ? "Winning" : "Window",
                       (unsigned long long)sector_size);
}

/* Slot s's sector and its first inclusion proof. */
static void slot_source(const czk_post_shape *shape, const czk_vanilla_sector *sectors,
                        size_t n_sectors, size_t s, const czk_vanilla_sector **sec, size_t *first) {
    if (shape->kind == CZK_VANILLA_POST_WINNING) {
        *sec = &sectors[0];
        *first = s;
    } else {
        *sec = &sectors[s < n_sectors ? s : n_sectors - 1];
        *first = 0;
    }
}

/* The slots before the first that only repeats its predecessor's source (slot_source): a
 * WindowPoSt partition of fewer sectors repeats its last one, and a slot's values depend only
 * on its source, so the repeats' values are copies. */
static size_t distinct_slots(const czk_post_shape *shape, size_t n_sectors) {
    return shape->kind == CZK_VANILLA_POST_WINNING ? shape->slots : n_sectors;
}

/* Whether the shape is valid, and whether `sectors` fit it (see czk_post_synthesize). */
static int shape_ok(const czk_post_shape *shape) {
    return czk_por_shape_levels(&shape->tree) != 0 && shape->slots != 0 && shape->challenges != 0;
}

static int sectors_fit(const czk_post_shape *shape, const czk_vanilla_sector *sectors,
                       size_t n_sectors) {
    uint32_t levels = czk_por_shape_levels(&shape->tree);
    if (sectors == NULL || n_sectors == 0 ||
        (shape->kind == CZK_VANILLA_POST_WINNING ? n_sectors != 1 : n_sectors > shape->slots))
        return 0;
    size_t need = shape->kind == CZK_VANILLA_POST_WINNING ? shape->slots : shape->challenges;
    for (size_t i = 0; i < n_sectors; i++) {
        if (sectors[i].n_inclusions != need)
            return 0;
        for (size_t k = 0; k < need; k++)
            if (sectors[i].inclusion[k].n_levels != levels)
                return 0;
    }
    return 1;
}

/* Slot s (Sector::synthesize): its allocations and rows appended to cs. `sectors` is NULL when
 * cs carries no values; `memo` (may be NULL) serves this slot's paths, which share their top
 * nodes, and is reset here: paths of different slots rarely meet. */
static int slot_synthesize(czk_cs *cs, const czk_post_shape *shape, const czk_poseidon_circuit *h2,
                           const czk_vanilla_sector *sectors, size_t n_sectors, size_t s,
                           czk_poseidon_memo *memo) {
    const czk_vanilla_sector *sec = NULL;
    size_t first = 0;
    int rc;
    if (sectors != NULL)
        slot_source(shape, sectors, n_sectors, s, &sec, &first);
    if (memo != NULL)
        czk_poseidon_memo_reset(memo);
    czk_var comm_r_last, comm_c, comm_r, pair[2], hash;
    if ((rc = czk_cs_alloc(cs, &comm_r_last, sec ? &sec->comm_r_last : NULL)) != CZK_OK ||
        (rc = czk_cs_alloc(cs, &comm_c, sec ? &sec->comm_c : NULL)) != CZK_OK ||
        (rc = czk_cs_alloc(cs, &comm_r, sec ? &sec->comm_r : NULL)) != CZK_OK ||
        (rc = czk_gadget_num_inputize(cs, NULL, comm_r)) != CZK_OK)
        return rc;
    /* comm_c is hash2's first argument, as in PoRep. */
    pair[0] = comm_c;
    pair[1] = comm_r_last;
    if ((rc = czk_poseidon_gadget_hash(cs, &hash, h2, pair, 2)) != CZK_OK ||
        (rc = czk_gadget_equal(cs, comm_r, hash)) != CZK_OK)
        return rc;
    czk_por_root root = {CZK_POR_ROOT_VAR, comm_r_last, CZK_FR_ZERO};
    for (size_t k = 0; k < shape->challenges; k++) {
        const czk_vanilla_inclusion *inc = sec ? &sec->inclusion[first + k] : NULL;
        czk_por_root leaf = {CZK_POR_ROOT_VAL, 0, inc ? inc->leaf : CZK_FR_ZERO};
        if ((rc = czk_por_synthesize_memo(cs, NULL, &shape->tree, &leaf, inc ? inc->level : NULL,
                                          &root, 1, memo)) != CZK_OK)
            return rc;
    }
    return CZK_OK;
}

/* A memo for cs when it has use for one (WITNESS mode without CHECK), else NULL. Without
 * memory, synthesis goes on without one: it only saves work. */
static czk_poseidon_memo *memo_new(const czk_cs *cs) {
    if (!czk_cs_has_values(cs) || czk_cs_builds_rows(cs))
        return NULL;
    czk_poseidon_memo *m = czk_malloc(sizeof *m);
    if (m != NULL)
        czk_poseidon_memo_reset(m);
    return m;
}

static void memo_free(czk_poseidon_memo *m) {
    if (m != NULL) {
        czk_memclear_explicit(m, sizeof *m); /* input values of the hashes */
        czk_free(m);
    }
}

int czk_post_synthesize(czk_cs *cs, const czk_post_shape *shape, const czk_vanilla_sector *sectors,
                        size_t n_sectors) {
    int rc = czk_cs_status(cs);
    if (rc != CZK_OK)
        return rc;
    if (!shape_ok(shape))
        return czk_cs_set_error(cs, CZK_EINVAL, "post: invalid shape");
    if ((sectors != NULL || czk_cs_has_values(cs)) && !sectors_fit(shape, sectors, n_sectors))
        return czk_cs_set_error(cs, CZK_EINVAL, "post: %zu vanilla proofs do not fit the shape",
                                n_sectors);
    const czk_poseidon_circuit *h2;
    czk_err e;
    if (czk_poseidon_circuit_get(&h2, 2, &e) != CZK_OK)
        return czk_cs_set_error(cs, CZK_EINTERNAL, "post: %s", e.msg);
    czk_poseidon_memo *memo = memo_new(cs);
    for (size_t s = 0; rc == CZK_OK && s < shape->slots; s++)
        rc = slot_synthesize(cs, shape, h2, sectors, n_sectors, s, memo);
    memo_free(memo);
    return rc;
}

/* ---- the witness in parallel ---- */

int czk_post_witness_dims(const czk_post_shape *shape, size_t *n_inputs, size_t *n_aux,
                          czk_err *err) {
    if (!shape_ok(shape))
        return czk_err_set(err, CZK_EINVAL, "post: invalid shape");
    /* One slot counted: every slot is the same block of inputs and aux. */
    czk_post_shape one = *shape;
    one.slots = 1;
    czk_cs *cs;
    int rc = czk_cs_create(&cs, CZK_CS_COUNT, 0, err);
    if (rc != CZK_OK)
        return rc;
    rc = czk_post_synthesize(cs, &one, NULL, 0);
    if (rc != CZK_OK) {
        rc = czk_err_set(err, rc, "%s", czk_cs_error(cs)->msg);
    } else {
        czk_cs_stats st;
        czk_cs_get_stats(cs, &st);
        uint64_t in = st.n_inputs - 1, aux = st.n_aux, s = shape->slots;
        if ((in != 0 && s > (SIZE_MAX - 1) / in) || (aux != 0 && s > SIZE_MAX / aux))
            rc = czk_err_set(err, CZK_EINVAL, "post: %zu slots overflow the witness's size",
                             shape->slots);
        else {
            *n_inputs = (size_t)(1 + in * s);
            *n_aux = (size_t)(aux * s);
        }
    }
    czk_cs_destroy(cs);
    return rc;
}

/* A parallel witness: the layout, the sources, the slots claimed so far, the first failure. */
typedef struct witness_job {
    const czk_post_shape *shape;
    const czk_vanilla_sector *sectors;
    size_t n_sectors;
    const czk_poseidon_circuit *h2;
    czk_fr *in, *aux;         /* w + 1: slot s's inputs start at in + s·slot_in; w + n_inputs */
    size_t slot_in, slot_aux; /* inputs (ONE excluded) and aux per slot */
    size_t distinct;          /* slots synthesised; the rest repeat the last of them */
    atomic_size_t next;       /* the next slot to claim */
    pthread_mutex_t mu;
    atomic_int failed; /* set with the first failure, so that the workers stop early */
    int rc;
    czk_err err;
} witness_job;

static void witness_fail(witness_job *j, int code, const char *msg) {
    pthread_mutex_lock(&j->mu);
    if (j->rc == CZK_OK)
        j->rc = czk_err_set(&j->err, code, "%s", msg);
    pthread_mutex_unlock(&j->mu);
    atomic_store(&j->failed, 1);
}

/* Slots [b, e), in one WITNESS-mode system whose values are bound to the range's place in w:
 * the slots write their values there and nowhere else, and a range that makes more or fewer
 * variables than the layout says fails instead of writing over its neighbours. */
static void witness_range(witness_job *j, size_t b, size_t e, czk_poseidon_memo *memo) {
    size_t n = e - b;
    czk_cs *cs = NULL;
    czk_err err;
    int rc = czk_cs_create(&cs, CZK_CS_WITNESS, 0, &err);
    if (rc != CZK_OK) {
        witness_fail(j, rc, err.msg);
        return;
    }
    rc = czk_cs_bind_values(cs, j->in + b * j->slot_in, n * j->slot_in, j->aux + b * j->slot_aux,
                            n * j->slot_aux);
    for (size_t s = b; rc == CZK_OK && s < e; s++)
        rc = slot_synthesize(cs, j->shape, j->h2, j->sectors, j->n_sectors, s, memo);
    if (rc != CZK_OK) {
        witness_fail(j, rc, czk_cs_error(cs)->msg);
    } else {
        czk_cs_stats st;
        czk_cs_get_stats(cs, &st);
        if (st.n_inputs - 1 != n * j->slot_in || st.n_aux != n * j->slot_aux) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "post: slots %zu-%zu made %llu inputs and %llu aux, the layout %zu and %zu", b,
                     e - 1, (unsigned long long)(st.n_inputs - 1), (unsigned long long)st.n_aux,
                     n * j->slot_in, n * j->slot_aux);
            witness_fail(j, CZK_EINVAL, msg);
        }
    }
    czk_cs_destroy(cs);
}

/*
 * One way of the pool: claims slots one at a time until none is left. The pool would hand out
 * chunks of a quarter of a way's share (czk_pool_run), and at 2,349 slots on 16 ways some way
 * then gets five chunks of 36 slots where the share is 147 slots: the last chunks alone would
 * cost a fifth of the time. Claiming single slots (some 4 ms each) ends every way within one
 * slot of the others; the claim and the small system each slot makes cost microseconds.
 */
static void witness_worker(void *arg, size_t b, size_t e, unsigned worker) {
    (void)b, (void)e, (void)worker;
    witness_job *j = arg;
    czk_poseidon_memo *memo = czk_malloc(sizeof *memo); /* NULL: no memo, same values */
    while (!atomic_load(&j->failed)) {
        size_t s = atomic_fetch_add(&j->next, 1);
        if (s >= j->distinct)
            break;
        witness_range(j, s, s + 1, memo);
    }
    memo_free(memo);
}

/* Slots distinct + [b, e): the values of slot distinct − 1 again. */
static void witness_copy(void *arg, size_t b, size_t e, unsigned worker) {
    (void)worker;
    witness_job *j = arg;
    const czk_fr *in = j->in + (j->distinct - 1) * j->slot_in;
    const czk_fr *aux = j->aux + (j->distinct - 1) * j->slot_aux;
    for (size_t s = j->distinct + b; s < j->distinct + e; s++) {
        memcpy(j->in + s * j->slot_in, in, j->slot_in * sizeof *in);
        memcpy(j->aux + s * j->slot_aux, aux, j->slot_aux * sizeof *aux);
    }
}

int czk_post_witness(const czk_post_shape *shape, const czk_vanilla_sector *sectors,
                     size_t n_sectors, czk_fr *w, size_t n_inputs, size_t n_aux, czk_pool *pool,
                     czk_err *err) {
    if (!shape_ok(shape))
        return czk_err_set(err, CZK_EINVAL, "post: invalid shape");
    if (!sectors_fit(shape, sectors, n_sectors))
        return czk_err_set(err, CZK_EINVAL, "post: %zu vanilla proofs do not fit the shape",
                           n_sectors);
    size_t slots = shape->slots;
    if (w == NULL || n_inputs == 0 || (n_inputs - 1) % slots != 0 || n_aux % slots != 0)
        return czk_err_set(err, CZK_EINVAL,
                           "post: a witness of %zu inputs and %zu aux does not split into %zu "
                           "slots",
                           n_inputs, n_aux, slots);
    witness_job j;
    memset(&j, 0, sizeof j);
    int rc = czk_poseidon_circuit_get(&j.h2, 2, err);
    if (rc != CZK_OK)
        return rc;
    j.shape = shape;
    j.sectors = sectors;
    j.n_sectors = n_sectors;
    j.in = w + 1;
    j.aux = w + n_inputs;
    j.slot_in = (n_inputs - 1) / slots;
    j.slot_aux = n_aux / slots;
    j.distinct = distinct_slots(shape, n_sectors);
    j.rc = CZK_OK;
    atomic_init(&j.next, 0);
    atomic_init(&j.failed, 0);
    if (pthread_mutex_init(&j.mu, NULL) != 0)
        return czk_err_set(err, CZK_ENOMEM, "post: cannot create a mutex");
    w[0] = CZK_FR_ONE;
    /* One index per way, each a worker claiming slots (witness_worker). */
    unsigned ways = czk_pool_ways(pool);
    czk_pool_run(pool, ways < j.distinct ? ways : j.distinct, 1, witness_worker, &j);
    if (j.rc == CZK_OK && j.distinct < slots)
        czk_pool_run(pool, slots - j.distinct, 1, witness_copy, &j);
    pthread_mutex_destroy(&j.mu);
    if (j.rc != CZK_OK && err)
        *err = j.err;
    return j.rc;
}
