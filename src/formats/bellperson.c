/*
 * DESIGN: bellperson files are read in two passes over a read-only mapping.
 *
 * Pass one walks the layout (doc/FORMATS.md §3.1–3.2): the fixed VK fields, n_ic, then the five
 * u32 big-endian length prefixes. Each length is checked against the bytes left in the file
 * before the walk moves past it, with 64-bit arithmetic (a u32 count times 192 cannot
 * overflow), and the file must end exactly after b_g2. Only then is anything allocated, so
 * allocation is bounded by the file's size (an affine point in memory is the same 96 or 192
 * bytes as on disk) and a hostile prefix costs nothing.
 *
 * Pass two decodes the points. The big vectors go through czk_pool_run in chunks; a chunk
 * that finds a bad point lowers a shared "first bad index" and stops, and chunks wholly past
 * that index are skipped. Every index below the final value was decoded by some chunk, so the
 * point reported is the lowest bad one however the chunks were scheduled, and the error text
 * is the same with one thread or many.
 *
 * Writes go through czk_file_writer (util/file.h): a temporary file beside the target,
 * fsync'ed and renamed over it, so a reader never sees a half-written key.
 *
 * The file is read through czk_file_map with czk_file_map_advise_sequential: the decode reads
 * each byte once, roughly front to back. A file truncated by another process while mapped
 * still raises SIGBUS; that is outside what a reader of a regular file can defend against.
 *
 * Upstream code cited here was read at bellperson 0.27.0 (@d1fa22cb).
 */
#include "formats/bellperson.h"

#include "curve/g1.h"
#include "curve/g2.h"
#include "util/alloc.h"
#include "util/bytes.h"
#include "util/file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define G1U CZK_G1_UNCOMPRESSED_BYTES /* 96 */
#define G2U CZK_G2_UNCOMPRESSED_BYTES /* 192 */
#define G1C CZK_G1_COMPRESSED_BYTES   /* 48 */
#define G2C CZK_G2_COMPRESSED_BYTES   /* 96 */

/* The five .params vectors in file order (doc/FORMATS.md §3.2: h, l, a, b_g1, b_g2). */
enum { V_H, V_L, V_A, V_B_G1, V_B_G2, V_COUNT };
static const char *const VEC_NAME[V_COUNT] = {"h", "l", "a", "b_g1", "b_g2"};
static const size_t VEC_ELEM[V_COUNT] = {G1U, G1U, G1U, G1U, G2U};

/* The fixed part of a .vk (doc/FORMATS.md §3.1), in file order. */
enum { F_ALPHA_G1, F_BETA_G1, F_BETA_G2, F_GAMMA_G2, F_DELTA_G1, F_DELTA_G2, F_COUNT };
static const char *const FIXED_NAME[F_COUNT] = {"alpha_g1", "beta_g1",  "beta_g2",
                                                "gamma_g2", "delta_g1", "delta_g2"};
static const size_t FIXED_SIZE[F_COUNT] = {G1U, G1U, G2U, G2U, G1U, G2U};

/* Points per pool chunk: a few hundred microseconds of work even for on-curve-only G1
 * decodes, so the shared claim counter stays out of the profile; not tuned further. */
#define DECODE_GRAIN 512

static const char *point_fault(int code) {
    if (code == CZK_EBADENC)
        return "point at infinity, which bellperson refuses here";
    return czk_strerror(code);
}

/* ---- reading: pass one, the layout ------------------------------------------------------- */

typedef struct bp_layout {
    size_t fixed_off[F_COUNT];
    size_t n_ic, ic_off;
    size_t len[V_COUNT], off[V_COUNT];
    size_t end; /* offset just past the last field walked */
} bp_layout;

/* Walks the .vk part at the start of the file; sets fixed_off, n_ic, ic_off and end. */
static int walk_vk(bp_layout *lay, const czk_file_mapping *m, const char *path, czk_err *err) {
    size_t off = 0;
    for (int f = 0; f < F_COUNT; f++) {
        if (m->len - off < FIXED_SIZE[f])
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: truncated: vk %s needs %zu bytes at offset %zu, file has %zu "
                               "left",
                               czk_file_msg_path(path), FIXED_NAME[f], FIXED_SIZE[f], off,
                               m->len - off);
        lay->fixed_off[f] = off;
        off += FIXED_SIZE[f];
    }
    if (m->len - off < 4)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: truncated: vk ic length prefix needs 4 bytes at offset %zu, file "
                           "has %zu left",
                           czk_file_msg_path(path), off, m->len - off);
    uint64_t n_ic = czk_bytes_load_be32(m->data + off);
    off += 4;
    if (n_ic == 0)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: vk ic: length 0 at offset %zu; ic[0], the ONE term, is required",
                           czk_file_msg_path(path), off - 4);
    if (n_ic * G1U > (uint64_t)(m->len - off))
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: vk ic: length %llu needs %llu bytes at offset %zu, file has %zu "
                           "left",
                           czk_file_msg_path(path), (unsigned long long)n_ic,
                           (unsigned long long)(n_ic * G1U), off, m->len - off);
    lay->n_ic = (size_t)n_ic;
    lay->ic_off = off;
    lay->end = off + lay->n_ic * G1U;
    return CZK_OK;
}

/* Walks the five vectors after the .vk part; sets len, off and end. */
static int walk_vectors(bp_layout *lay, const czk_file_mapping *m, const char *path, czk_err *err) {
    size_t off = lay->end;
    for (int v = 0; v < V_COUNT; v++) {
        if (m->len - off < 4)
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: truncated: vector %s: length prefix needs 4 bytes at offset "
                               "%zu, file has %zu left",
                               czk_file_msg_path(path), VEC_NAME[v], off, m->len - off);
        uint64_t n = czk_bytes_load_be32(m->data + off);
        off += 4;
        /* n < 2^32 and the element is at most 192 bytes: the product fits in 64 bits. */
        uint64_t need = n * VEC_ELEM[v];
        if (need > (uint64_t)(m->len - off))
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: vector %s: length %llu needs %llu bytes at offset %zu, file "
                               "has %zu left",
                               czk_file_msg_path(path), VEC_NAME[v], (unsigned long long)n,
                               (unsigned long long)need, off, m->len - off);
        lay->len[v] = (size_t)n;
        lay->off[v] = off;
        off += (size_t)need;
    }
    lay->end = off;
    return CZK_OK;
}

/*
 * The shape every bellperson generator output has and the prover relies on (see
 * czk_bellperson_params_read). On a mismatch writes the reason to `why` and returns 0.
 */
static int shape_ok(const size_t len[V_COUNT], size_t n_ic, char *why, size_t why_len) {
    size_t n_vars = n_ic + len[V_L]; /* both below 2^32: no overflow */
    size_t domain = len[V_H] + 1;
    if (n_ic == 0)
        snprintf(why, why_len, "no ic point (ic[0], the ONE term, is required)");
    else if ((domain & (domain - 1)) != 0)
        snprintf(why, why_len, "|h| + 1 = %zu is not a power of two", domain);
    else if (len[V_B_G1] != len[V_B_G2])
        snprintf(why, why_len, "|b_g1| = %zu differs from |b_g2| = %zu", len[V_B_G1], len[V_B_G2]);
    else if (len[V_A] < n_ic)
        snprintf(why, why_len, "|a| = %zu is below |ic| = %zu (every public variable is in A)",
                 len[V_A], n_ic);
    else if (len[V_A] > n_vars)
        snprintf(why, why_len, "|a| = %zu exceeds the %zu variables (|ic| + |l|)", len[V_A],
                 n_vars);
    else if (len[V_B_G1] > n_vars)
        snprintf(why, why_len, "|b_g1| = %zu exceeds the %zu variables (|ic| + |l|)", len[V_B_G1],
                 n_vars);
    else
        return 1;
    return 0;
}

/* ---- reading: pass two, the points ------------------------------------------------------- */

typedef struct decode_job {
    const uint8_t *src;
    void *dst;
    size_t n;
    int g2;
    int subgroup;       /* full checks; else on-curve only */
    int no_infinity;    /* refuse the point at infinity with CZK_EBADENC */
    _Atomic size_t bad; /* lowest index found bad so far; n when none */
} decode_job;

static int decode_one(const decode_job *j, size_t i) {
    int rc;
    if (j->g2) {
        czk_g2_affine *p = (czk_g2_affine *)j->dst + i;
        const uint8_t *s = j->src + i * G2U;
        rc = j->subgroup ? czk_g2_affine_deserialize(p, s)
                         : czk_g2_affine_deserialize_unchecked(p, s);
        if (rc == CZK_OK && j->no_infinity && czk_g2_affine_is_infinity(p))
            rc = CZK_EBADENC;
    } else {
        czk_g1_affine *p = (czk_g1_affine *)j->dst + i;
        const uint8_t *s = j->src + i * G1U;
        rc = j->subgroup ? czk_g1_affine_deserialize(p, s)
                         : czk_g1_affine_deserialize_unchecked(p, s);
        if (rc == CZK_OK && j->no_infinity && czk_g1_affine_is_infinity(p))
            rc = CZK_EBADENC;
    }
    return rc;
}

static void decode_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    decode_job *j = arg;
    for (size_t i = begin; i < end; i++) {
        /* Relaxed: `bad` only ever decreases, so a stale value merely does extra work. */
        if (i > atomic_load_explicit(&j->bad, memory_order_relaxed))
            return;
        if (decode_one(j, i) == CZK_OK)
            continue;
        size_t cur = atomic_load_explicit(&j->bad, memory_order_relaxed);
        while (i < cur && !atomic_compare_exchange_weak_explicit(
                              &j->bad, &cur, i, memory_order_relaxed, memory_order_relaxed)) {
        }
        return; /* the rest of this chunk has higher indices */
    }
    /* Decoded: the file's pages of these points need not stay resident beside the copy. */
    const size_t elem = j->g2 ? G2U : G1U;
    czk_file_map_drop(j->src + begin * elem, (end - begin) * elem);
}

/*
 * Decodes n points from src into dst. Returns CZK_OK, or the code of the lowest bad index,
 * stored in *bad_index. czk_pool_run's completion publishes the workers' writes.
 */
static int decode_points(void *dst, const uint8_t *src, size_t n, int g2, int subgroup,
                         czk_pool *pool, size_t *bad_index) {
    decode_job j = {
        .src = src, .dst = dst, .n = n, .g2 = g2, .subgroup = subgroup, .no_infinity = 1};
    atomic_init(&j.bad, n);
    if (n > 0)
        czk_pool_run(pool, n, DECODE_GRAIN, decode_body, &j);
    size_t bad = atomic_load_explicit(&j.bad, memory_order_relaxed);
    if (bad == n)
        return CZK_OK;
    *bad_index = bad;
    return decode_one(&j, bad); /* again, on this thread, for its code */
}

/* Allocates n elements, or leaves *out NULL for n = 0. */
static int alloc_points(void **out, size_t n, size_t elem, const char *path, const char *what,
                        czk_err *err) {
    *out = NULL;
    if (n == 0)
        return CZK_OK;
    *out = czk_malloc(n * elem); /* n < 2^32, elem ≤ 192: no overflow on 64-bit size_t */
    if (*out == NULL)
        return czk_err_set(err, CZK_ENOMEM, "%s: %s: cannot allocate %zu points",
                           czk_file_msg_path(path), what, n);
    return CZK_OK;
}

/* Decodes the .vk part walked into `lay`. On failure vk may hold an array: the caller clears. */
static int decode_vk(czk_groth16_vk *vk, const czk_file_mapping *m, const bp_layout *lay,
                     const char *path, czk_pool *pool, czk_err *err) {
    void *fixed_dst[F_COUNT] = {&vk->alpha_g1, &vk->beta_g1,  &vk->beta_g2,
                                &vk->gamma_g2, &vk->delta_g1, &vk->delta_g2};
    for (int f = 0; f < F_COUNT; f++) {
        const uint8_t *s = m->data + lay->fixed_off[f];
        /* Infinity is allowed here, as in bellperson's VerifyingKey::read. */
        int rc = FIXED_SIZE[f] == G1U ? czk_g1_affine_deserialize(fixed_dst[f], s)
                                      : czk_g2_affine_deserialize(fixed_dst[f], s);
        if (rc != CZK_OK)
            return czk_err_set(err, rc, "%s: vk %s at offset %zu: %s", czk_file_msg_path(path),
                               FIXED_NAME[f], lay->fixed_off[f], point_fault(rc));
    }
    int rc = alloc_points((void **)&vk->ic, lay->n_ic, sizeof(czk_g1_affine), path, "vk ic", err);
    if (rc != CZK_OK)
        return rc;
    vk->n_ic = lay->n_ic;
    size_t bad = 0;
    /* IC points always get the full checks (bellperson reads them with from_uncompressed). */
    rc = decode_points(vk->ic, m->data + lay->ic_off, lay->n_ic, 0, 1, pool, &bad);
    if (rc != CZK_OK)
        return czk_err_set(err, rc, "%s: vk ic: point %zu of %zu at offset %zu: %s",
                           czk_file_msg_path(path), bad, lay->n_ic, lay->ic_off + bad * G1U,
                           point_fault(rc));
    return CZK_OK;
}

/* Maps `path` and walks its .vk part into `lay`; on failure nothing stays mapped. */
static int map_and_walk_vk(czk_file_mapping *m, bp_layout *lay, const char *path, czk_err *err) {
    int rc = czk_file_map(m, path, err);
    if (rc != CZK_OK)
        return rc;
    czk_file_map_advise_sequential(m);
    rc = walk_vk(lay, m, path, err);
    if (rc != CZK_OK)
        czk_file_unmap(m);
    return rc;
}

int czk_bellperson_vk_read(czk_groth16_vk *vk, const char *path, czk_err *err) {
    if (vk == NULL || path == NULL)
        return czk_err_set(err, CZK_EINVAL, "bellperson vk read: NULL argument");
    memset(vk, 0, sizeof(*vk));
    czk_file_mapping m;
    bp_layout lay;
    int rc = map_and_walk_vk(&m, &lay, path, err);
    if (rc != CZK_OK)
        return rc;
    if (lay.end != m.len) {
        rc =
            czk_err_set(err, CZK_EFORMAT, "%s: %zu trailing bytes after vk ic (ends at offset %zu)",
                        czk_file_msg_path(path), m.len - lay.end, lay.end);
        goto out;
    }
    rc = decode_vk(vk, &m, &lay, path, NULL, err);
out:
    czk_file_unmap(&m);
    if (rc != CZK_OK)
        czk_groth16_vk_clear(vk);
    return rc;
}

int czk_bellperson_params_read(czk_groth16_pk *pk, const char *path, czk_key_check check,
                               czk_pool *pool, czk_err *err) {
    if (pk == NULL || path == NULL)
        return czk_err_set(err, CZK_EINVAL, "bellperson params read: NULL argument");
    memset(pk, 0, sizeof(*pk));
    if (check != CZK_KEY_CHECK_FULL && check != CZK_KEY_CHECK_CURVE)
        return czk_err_set(err, CZK_EINVAL, "%s: unknown check mode %d", czk_file_msg_path(path),
                           (int)check);
    czk_file_mapping m;
    bp_layout lay;
    int rc = map_and_walk_vk(&m, &lay, path, err);
    if (rc != CZK_OK)
        return rc;
    rc = walk_vectors(&lay, &m, path, err);
    if (rc != CZK_OK)
        goto out;
    if (lay.end != m.len) {
        rc = czk_err_set(err, CZK_EFORMAT,
                         "%s: %zu trailing bytes after vector b_g2 (ends at offset %zu)",
                         czk_file_msg_path(path), m.len - lay.end, lay.end);
        goto out;
    }
    char why[160];
    if (!shape_ok(lay.len, lay.n_ic, why, sizeof(why))) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: not a bellperson key: %s", czk_file_msg_path(path),
                         why);
        goto out;
    }

    rc = decode_vk(&pk->vk, &m, &lay, path, pool, err);
    if (rc != CZK_OK)
        goto out;
    void **dst[V_COUNT] = {(void **)&pk->h, (void **)&pk->l, (void **)&pk->a, (void **)&pk->b_g1,
                           (void **)&pk->b_g2};
    size_t *count[V_COUNT] = {&pk->n_h, &pk->n_l, &pk->n_a, &pk->n_b_g1, &pk->n_b_g2};
    for (int v = 0; v < V_COUNT; v++) {
        size_t elem = v == V_B_G2 ? sizeof(czk_g2_affine) : sizeof(czk_g1_affine);
        char what[32];
        snprintf(what, sizeof(what), "vector %s", VEC_NAME[v]);
        rc = alloc_points(dst[v], lay.len[v], elem, path, what, err);
        if (rc != CZK_OK)
            goto out;
        *count[v] = lay.len[v];
        size_t bad = 0;
        rc = decode_points(*dst[v], m.data + lay.off[v], lay.len[v], v == V_B_G2,
                           check == CZK_KEY_CHECK_FULL, pool, &bad);
        if (rc != CZK_OK) {
            czk_err_set(err, rc, "%s: vector %s: point %zu of %zu at offset %zu: %s",
                        czk_file_msg_path(path), VEC_NAME[v], bad, lay.len[v],
                        lay.off[v] + bad * VEC_ELEM[v], point_fault(rc));
            goto out;
        }
    }
    pk->h_basis = CZK_H_MONOMIAL;
    pk->density = CZK_DENSITY_FILTERED;
    pk->domain_size = lay.len[V_H] + 1;
    pk->n_public = lay.n_ic - 1;
    pk->n_vars = lay.n_ic + lay.len[V_L];
out:
    czk_file_unmap(&m);
    if (rc != CZK_OK)
        czk_groth16_pk_clear(pk);
    return rc;
}

/* ---- reading the header alone (czk_bellperson_header_read) ------------------------------ */

/* The fixed .vk points' bytes (FIXED_SIZE's sum, 864): where ic's length prefix lies. */
#define VK_FIXED_BYTES (3 * G1U + 3 * G2U)

/* The six vectors of czk_bellperson_header_read, ic first, then the five of VEC_NAME. */
static const char *header_vec_name(int v) {
    return v == CZK_BELLPERSON_IC ? "ic" : VEC_NAME[v - 1];
}

static uint64_t header_vec_elem(int v) {
    return v == CZK_BELLPERSON_IC ? G1U : VEC_ELEM[v - 1];
}

uint64_t czk_bellperson_file_size(const uint64_t *len, int n_vectors) {
    uint64_t size = VK_FIXED_BYTES;
    for (int v = 0; v < n_vectors; v++)
        size += 4 + len[v] * header_vec_elem(v);
    return size;
}

int czk_bellperson_header_read(uint64_t *len, uint64_t *size_out, const char *path, int n_vectors,
                               const uint64_t *want, const char *kind, czk_err *err) {
    uint64_t got[CZK_BELLPERSON_N_VECTORS] = {0};
    const char *mp = czk_file_msg_path(path);
    if (n_vectors < 1 || n_vectors > CZK_BELLPERSON_N_VECTORS)
        return czk_err_set(err, CZK_EINVAL, "%s: %d vectors asked for", mp, n_vectors);
    int rc = CZK_OK;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return czk_err_set(err, CZK_EIO, "%s: cannot open %s file: %s", mp, kind, strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        rc = czk_err_set(err, CZK_EIO, "%s: cannot stat: %s", mp, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rc = czk_err_set(err, CZK_EIO, "%s: not a regular file", mp);
        goto out;
    }
    uint64_t size = (uint64_t)st.st_size, off = VK_FIXED_BYTES;
    for (int v = 0; v < n_vectors; v++) {
        const char *name = header_vec_name(v);
        uint8_t b[4];
        if (off + sizeof(b) > size) {
            rc = czk_err_set(err, CZK_EFORMAT,
                             "%s: truncated %s file: the length of %s is at byte %llu, the file "
                             "has %llu bytes",
                             mp, kind, name, (unsigned long long)off, (unsigned long long)size);
            goto out;
        }
        ssize_t r = pread(fd, b, sizeof(b), (off_t)off);
        if (r != (ssize_t)sizeof(b)) {
            rc = czk_err_set(err, CZK_EIO, "%s: cannot read the length of %s at byte %llu: %s", mp,
                             name, (unsigned long long)off, r < 0 ? strerror(errno) : "short read");
            goto out;
        }
        uint64_t n = czk_bytes_load_be32(b);
        got[v] = n;
        if (want != NULL && n != want[v]) {
            rc = czk_err_set(err, CZK_ELENGTH,
                             "%s: vector %s has %llu points, the circuit needs %llu", mp, name,
                             (unsigned long long)n, (unsigned long long)want[v]);
            goto out;
        }
        /* n < 2^32 and off ≤ size < 2^63, so this cannot overflow. */
        uint64_t end = off + sizeof(b) + n * header_vec_elem(v);
        if (end > size) {
            rc = czk_err_set(err, CZK_EFORMAT,
                             "%s: truncated %s file: vector %s (%llu points) ends at byte %llu, "
                             "the file has %llu bytes",
                             mp, kind, name, (unsigned long long)n, (unsigned long long)end,
                             (unsigned long long)size);
            goto out;
        }
        off = end;
    }
    if (off != size) {
        rc = czk_err_set(err, CZK_EFORMAT,
                         "%s: %s file has trailing bytes: its lengths end at byte %llu, the file "
                         "has %llu bytes",
                         mp, kind, (unsigned long long)off, (unsigned long long)size);
        goto out;
    }
    if (len != NULL)
        memcpy(len, got, (size_t)n_vectors * sizeof(*len));
    if (size_out != NULL)
        *size_out = size;
out:
    close(fd);
    return rc;
}

/* ---- writing ----------------------------------------------------------------------------- */

/*
 * The put_* helpers append to a czk_file_writer and keep the first failure in *rc (with its
 * message in err); once *rc is set they do nothing, so a writer checks *rc once, at the end.
 */
static void put_bytes(czk_file_writer *w, const uint8_t *b, size_t n, int *rc, czk_err *err) {
    if (*rc == CZK_OK)
        *rc = czk_file_writer_write(w, b, n, err);
}

static void put_g1(czk_file_writer *w, const czk_g1_affine *p, int *rc, czk_err *err) {
    uint8_t b[G1U];
    czk_g1_affine_serialize(b, p);
    put_bytes(w, b, sizeof(b), rc, err);
}

static void put_g2(czk_file_writer *w, const czk_g2_affine *p, int *rc, czk_err *err) {
    uint8_t b[G2U];
    czk_g2_affine_serialize(b, p);
    put_bytes(w, b, sizeof(b), rc, err);
}

static void put_u32(czk_file_writer *w, size_t v, int *rc, czk_err *err) {
    uint8_t b[4];
    czk_bytes_store_be32(b, (uint32_t)v);
    put_bytes(w, b, sizeof(b), rc, err);
}

/* Points serialised per chunk of a written vector, and per pool task. */
#define WRITE_CHUNK ((size_t)1 << 14)
#define ENCODE_GRAIN ((size_t)1024)

/* Serialises points first + [begin, end) of a vector into dst (chunk-relative), keeping the
 * lowest chunk-relative index of a point at infinity in bad. */
typedef struct encode_job {
    int g2;
    const void *src;
    size_t first;
    uint8_t *dst;
    _Atomic size_t bad;
} encode_job;

static void encode_body(void *arg, size_t begin, size_t end, unsigned worker) {
    encode_job *j = arg;
    (void)worker;
    for (size_t i = begin; i < end; i++) {
        int inf;
        if (j->g2) {
            const czk_g2_affine *p = (const czk_g2_affine *)j->src + j->first + i;
            inf = czk_g2_affine_is_infinity(p);
            czk_g2_affine_serialize(j->dst + i * G2U, p);
        } else {
            const czk_g1_affine *p = (const czk_g1_affine *)j->src + j->first + i;
            inf = czk_g1_affine_is_infinity(p);
            czk_g1_affine_serialize(j->dst + i * G1U, p);
        }
        if (inf) {
            size_t cur = atomic_load_explicit(&j->bad, memory_order_relaxed);
            while (i < cur && !atomic_compare_exchange_weak_explicit(
                                  &j->bad, &cur, i, memory_order_relaxed, memory_order_relaxed))
                ;
        }
    }
}

/* Commits w if every put succeeded (rc == CZK_OK), else removes the temporary file. */
static int writer_finish(czk_file_writer *w, int rc, czk_err *err) {
    if (rc != CZK_OK) {
        czk_file_writer_abort(w);
        return rc;
    }
    return czk_file_writer_commit(w, err);
}

/* The IC checks shared by both writers. */
static int vk_writable(const czk_groth16_vk *vk, const char *path, czk_err *err) {
    if (vk->n_ic == 0 || vk->n_ic > UINT32_MAX || vk->ic == NULL)
        return czk_err_set(err, CZK_EINVAL, "%s: vk has %zu ic points; 1 to 2^32 - 1 are needed",
                           czk_file_msg_path(path), vk->n_ic);
    for (size_t i = 0; i < vk->n_ic; i++)
        if (czk_g1_affine_is_infinity(&vk->ic[i]))
            return czk_err_set(err, CZK_EINVAL,
                               "%s: vk ic point %zu is at infinity, which bellperson refuses",
                               czk_file_msg_path(path), i);
    return CZK_OK;
}

static void put_vk(czk_file_writer *w, const czk_groth16_vk *vk, int *rc, czk_err *err) {
    put_g1(w, &vk->alpha_g1, rc, err);
    put_g1(w, &vk->beta_g1, rc, err);
    put_g2(w, &vk->beta_g2, rc, err);
    put_g2(w, &vk->gamma_g2, rc, err);
    put_g1(w, &vk->delta_g1, rc, err);
    put_g2(w, &vk->delta_g2, rc, err);
    put_u32(w, vk->n_ic, rc, err);
    for (size_t i = 0; i < vk->n_ic && *rc == CZK_OK; i++)
        put_g1(w, &vk->ic[i], rc, err);
}

int czk_bellperson_vk_write(const char *path, const czk_groth16_vk *vk, czk_err *err) {
    if (vk == NULL || path == NULL)
        return czk_err_set(err, CZK_EINVAL, "bellperson vk write: NULL argument");
    int rc = vk_writable(vk, path, err);
    if (rc != CZK_OK)
        return rc;
    czk_file_writer w;
    rc = czk_file_writer_open(&w, path, err);
    if (rc != CZK_OK)
        return rc;
    put_vk(&w, vk, &rc, err);
    return writer_finish(&w, rc, err);
}

int czk_bellperson_params_write(const char *path, const czk_groth16_pk *pk, czk_pool *pool,
                                czk_err *err) {
    if (pk == NULL || path == NULL)
        return czk_err_set(err, CZK_EINVAL, "bellperson params write: NULL argument");
    const char *mp = czk_file_msg_path(path);
    if (pk->h_basis != CZK_H_MONOMIAL || pk->density != CZK_DENSITY_FILTERED)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: bellperson keys are monomial-basis H with filtered density", mp);
    int rc = vk_writable(&pk->vk, path, err);
    if (rc != CZK_OK)
        return rc;
    const size_t len[V_COUNT] = {pk->n_h, pk->n_l, pk->n_a, pk->n_b_g1, pk->n_b_g2};
    const void *vec[V_COUNT] = {pk->h, pk->l, pk->a, pk->b_g1, pk->b_g2};
    for (int v = 0; v < V_COUNT; v++) {
        if (len[v] > UINT32_MAX)
            return czk_err_set(err, CZK_EINVAL, "%s: vector %s has %zu points; at most 2^32 - 1",
                               mp, VEC_NAME[v], len[v]);
        if (len[v] > 0 && vec[v] == NULL)
            return czk_err_set(err, CZK_EINVAL, "%s: vector %s has %zu points but no array", mp,
                               VEC_NAME[v], len[v]);
    }
    char why[160];
    if (!shape_ok(len, pk->vk.n_ic, why, sizeof(why)))
        return czk_err_set(err, CZK_EINVAL, "%s: key does not fit the format: %s", mp, why);
    if (pk->domain_size != pk->n_h + 1 || pk->n_public != pk->vk.n_ic - 1 ||
        pk->n_vars != pk->vk.n_ic + pk->n_l)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: key sizes disagree: domain %zu, public %zu, vars %zu for |h| = "
                           "%zu, |ic| = %zu, |l| = %zu",
                           mp, pk->domain_size, pk->n_public, pk->n_vars, pk->n_h, pk->vk.n_ic,
                           pk->n_l);

    /* The points are serialised a chunk at a time over the pool (a product each coordinate,
     * out of Montgomery form: some 50 s on one thread for a 32 GiB PoRep key) into one
     * buffer that is then written whole. A point at infinity aborts the write: the file is
     * never committed, as if the key had been refused before writing. */
    uint8_t *buf = czk_malloc(WRITE_CHUNK * G2U);
    if (buf == NULL)
        return czk_err_set(err, CZK_ENOMEM, "%s: a write buffer of %zu bytes", mp,
                           (size_t)(WRITE_CHUNK * G2U));
    czk_file_writer w;
    rc = czk_file_writer_open(&w, path, err);
    if (rc != CZK_OK) {
        czk_free(buf);
        return rc;
    }
    put_vk(&w, &pk->vk, &rc, err);
    for (int v = 0; v < V_COUNT && rc == CZK_OK; v++) {
        put_u32(&w, len[v], &rc, err);
        for (size_t at = 0; at < len[v] && rc == CZK_OK; at += WRITE_CHUNK) {
            const size_t n = len[v] - at < WRITE_CHUNK ? len[v] - at : WRITE_CHUNK;
            encode_job j = {.g2 = v == V_B_G2, .src = vec[v], .first = at, .dst = buf};
            atomic_init(&j.bad, SIZE_MAX);
            czk_pool_run(pool, n, ENCODE_GRAIN, encode_body, &j);
            const size_t bad = atomic_load_explicit(&j.bad, memory_order_relaxed);
            if (bad != SIZE_MAX)
                rc = czk_err_set(err, CZK_EINVAL,
                                 "%s: vector %s: point %zu is at infinity, which bellperson "
                                 "refuses",
                                 mp, VEC_NAME[v], at + bad);
            else
                put_bytes(&w, buf, n * (j.g2 ? G2U : G1U), &rc, err);
        }
    }
    czk_free(buf);
    return writer_finish(&w, rc, err);
}

/* ---- proofs ------------------------------------------------------------------------------ */

void czk_bellperson_proof_encode(uint8_t out[CZK_BELLPERSON_PROOF_BYTES],
                                 const czk_groth16_proof *proof) {
    czk_g1_affine_compress(out, &proof->a);
    czk_g2_affine_compress(out + G1C, &proof->b);
    czk_g1_affine_compress(out + G1C + G2C, &proof->c);
}

/* Decodes one proof; on failure *which is the index of the bad point (0 = A, 1 = B, 2 = C). */
static int proof_decode(czk_groth16_proof *proof, const uint8_t *in, int *which) {
    int rc = czk_g1_affine_uncompress(&proof->a, in);
    if (rc == CZK_OK && czk_g1_affine_is_infinity(&proof->a))
        rc = CZK_EBADENC;
    *which = 0;
    if (rc != CZK_OK)
        return rc;
    rc = czk_g2_affine_uncompress(&proof->b, in + G1C);
    if (rc == CZK_OK && czk_g2_affine_is_infinity(&proof->b))
        rc = CZK_EBADENC;
    *which = 1;
    if (rc != CZK_OK)
        return rc;
    rc = czk_g1_affine_uncompress(&proof->c, in + G1C + G2C);
    if (rc == CZK_OK && czk_g1_affine_is_infinity(&proof->c))
        rc = CZK_EBADENC;
    *which = 2;
    return rc;
}

static const char *const PROOF_POINT[3] = {"A", "B", "C"};
static const size_t PROOF_POINT_OFF[3] = {0, G1C, G1C + G2C};

int czk_bellperson_proof_decode(czk_groth16_proof *proof,
                                const uint8_t in[CZK_BELLPERSON_PROOF_BYTES], czk_err *err) {
    if (proof == NULL || in == NULL)
        return czk_err_set(err, CZK_EINVAL, "bellperson proof decode: NULL argument");
    int which = 0;
    int rc = proof_decode(proof, in, &which);
    if (rc != CZK_OK)
        return czk_err_set(err, rc, "proof %s (byte %zu): %s", PROOF_POINT[which],
                           PROOF_POINT_OFF[which], point_fault(rc));
    return CZK_OK;
}

int czk_bellperson_proofs_read(czk_groth16_proof **proofs, size_t *n, const char *path,
                               czk_err *err) {
    if (proofs == NULL || n == NULL || path == NULL)
        return czk_err_set(err, CZK_EINVAL, "bellperson proofs read: NULL argument");
    *proofs = NULL;
    *n = 0;
    czk_file_mapping m;
    int rc = czk_file_map(&m, path, err);
    if (rc != CZK_OK)
        return rc;
    czk_file_map_advise_sequential(&m);
    czk_groth16_proof *out = NULL;
    if (m.len == 0 || m.len % CZK_BELLPERSON_PROOF_BYTES != 0) {
        rc = czk_err_set(err, CZK_EFORMAT,
                         "%s: size %zu bytes is not a positive multiple of the %d-byte proof",
                         czk_file_msg_path(path), m.len, CZK_BELLPERSON_PROOF_BYTES);
        goto out;
    }
    size_t k = m.len / CZK_BELLPERSON_PROOF_BYTES;
    /* sizeof(proof) is 384, twice the bytes each proof takes in the file. */
    out = czk_malloc(k * sizeof(*out));
    if (out == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %zu proofs", czk_file_msg_path(path),
                         k);
        goto out;
    }
    for (size_t i = 0; i < k; i++) {
        int which = 0;
        size_t off = i * CZK_BELLPERSON_PROOF_BYTES;
        rc = proof_decode(&out[i], m.data + off, &which);
        if (rc != CZK_OK) {
            czk_err_set(err, rc, "%s: proof %zu of %zu: %s at offset %zu: %s",
                        czk_file_msg_path(path), i, k, PROOF_POINT[which],
                        off + PROOF_POINT_OFF[which], point_fault(rc));
            goto out;
        }
    }
    *proofs = out;
    *n = k;
    out = NULL;
out:
    czk_free(out);
    czk_file_unmap(&m);
    return rc;
}

int czk_bellperson_proofs_write(const char *path, const czk_groth16_proof *proofs, size_t n,
                                czk_err *err) {
    if (path == NULL || (proofs == NULL && n > 0))
        return czk_err_set(err, CZK_EINVAL, "bellperson proofs write: NULL argument");
    if (n == 0)
        return czk_err_set(err, CZK_EINVAL, "%s: no proofs to write", czk_file_msg_path(path));
    for (size_t i = 0; i < n; i++) {
        int which = czk_g1_affine_is_infinity(&proofs[i].a)   ? 0
                    : czk_g2_affine_is_infinity(&proofs[i].b) ? 1
                    : czk_g1_affine_is_infinity(&proofs[i].c) ? 2
                                                              : -1;
        if (which >= 0)
            return czk_err_set(err, CZK_EINVAL,
                               "%s: proof %zu: %s is at infinity, which bellperson refuses",
                               czk_file_msg_path(path), i, PROOF_POINT[which]);
    }
    czk_file_writer w;
    int rc = czk_file_writer_open(&w, path, err);
    if (rc != CZK_OK)
        return rc;
    for (size_t i = 0; i < n && rc == CZK_OK; i++) {
        uint8_t b[CZK_BELLPERSON_PROOF_BYTES];
        czk_bellperson_proof_encode(b, &proofs[i]);
        put_bytes(&w, b, sizeof(b), &rc, err);
    }
    return writer_finish(&w, rc, err);
}
