/*
 * czk's own R1CS file: save, and load by mapping (contract in r1cs.h).
 *
 * DESIGN
 * A PoRep partition's matrices are ~30 GB; loading them must cost a mapping, not a parse,
 * and a damaged or hostile file must be refused without crashing or allocating what it
 * claims. So the file is the in-memory CSR arrays, each at a 64-byte aligned offset, behind a
 * fixed header whose sizes determine every offset:
 *
 *   offset  size  field (all little-endian)
 *        0     8  magic "CZKR1CS\0"
 *        8     4  version = 1
 *       12     4  flags: bit 0 = C present; every other bit must be 0
 *       16     8  n_constraints
 *       24     8  n_vars
 *       32     8  n_public
 *       40    24  nnz of A, B, C (C's is 0 when C is absent)
 *       64     8  payload_len: bytes after the header (= file size − 128)
 *       72     8  payload checksum
 *       80    40  reserved, zero
 *      120     8  header checksum: czk__r1cs_hash(bytes 0..120, HDR_SEED)
 *      128        payload: for A, B, then C if present: row_ptr (u64 × (n_constraints + 1)),
 *                 cols (u32 × nnz), vals (32-byte Montgomery Fr × nnz), each section
 *                 starting at a multiple of 64 and the gaps zero; the payload ends padded
 *                 to a multiple of 64.
 *
 * The payload checksum is czk__r1cs_hash over each 16 MiB chunk of the payload (seeded with
 * the chunk's number), then over the chunk digests, so that chunks hash in parallel: loading
 * a PoRep-sized file (2^27 rows, 30.2 GB, in the page cache) with checksum and every
 * structural check took 1.1 s on 16 cores of the H200 host (bench_spmv 27). The hash is our own
 * multiply-xorshift mix over four 64-bit lanes (~5 bytes per cycle per core, so memory-bound):
 * every step is a bijection of the lane state, so a change to any single 8-byte word, hence any
 * flipped byte, always changes the result; other damage goes undetected with probability ~2^-64. It
 * guards against accidents, not adversaries: the loader's structural checks (row_ptr monotone and
 * ending at nnz, columns ascending and < n_vars, values < r) run on every load regardless, and they
 * are what makes a hostile file with valid checksums harmless.
 */
#include "r1cs/r1cs.h"

#include "util/alloc.h"
#include "util/bytes.h"
#include "util/file.h"

#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "czk's R1CS file code assumes a little-endian host"
#endif

#define HDR_SIZE 128
#define HDR_HASHED 120
#define FILE_VERSION 1u
#define FLAG_C_PRESENT 1u
#define CHUNK ((size_t)16 << 20)

static const char MAGIC[8] = {'C', 'Z', 'K', 'R', '1', 'C', 'S', '\0'};

/* Seeds keep the header, chunk and top-level hashes distinct functions. */
#define HDR_SEED 0x6a09e667f3bcc908ULL
#define CHUNK_SEED 0xbb67ae8584caa73bULL
#define TOP_SEED 0x3c6ef372fe94f82bULL

/* Odd multipliers (the golden ratio's and two other well-mixed odd constants). */
#define K1 0x9e3779b97f4a7c15ULL
#define K2 0xd6e8feb86659fd93ULL
#define K3 0xff51afd7ed558ccdULL

/* ---- the hash ---- */

/* One lane step: xor the word in, multiply by an odd constant, xorshift: each a bijection. */
static inline uint64_t lane(uint64_t h, uint64_t w) {
    h = (h ^ w) * K1;
    return h ^ (h >> 29);
}

uint64_t czk__r1cs_hash(const void *p, size_t len, uint64_t seed) {
    const unsigned char *s = p;
    uint64_t h0 = seed, h1 = seed ^ K2, h2 = seed + K3, h3 = ~seed;
    size_t i = 0;
    for (; i + 32 <= len; i += 32) {
        h0 = lane(h0, czk_bytes_load_le64(s + i));
        h1 = lane(h1, czk_bytes_load_le64(s + i + 8));
        h2 = lane(h2, czk_bytes_load_le64(s + i + 16));
        h3 = lane(h3, czk_bytes_load_le64(s + i + 24));
    }
    if (i < len) {
        unsigned char tail[32] = {0};
        memcpy(tail, s + i, len - i);
        h0 = lane(h0, czk_bytes_load_le64(tail));
        h1 = lane(h1, czk_bytes_load_le64(tail + 8));
        h2 = lane(h2, czk_bytes_load_le64(tail + 16));
        h3 = lane(h3, czk_bytes_load_le64(tail + 24));
    }
    /* Fold the lanes in one after another (each fold a bijection of the running value for a
     * fixed lane, and of the lane for a fixed running value), with the length. */
    uint64_t r = lane((uint64_t)len * K2, h0);
    r = lane(r, h1);
    r = lane(r, h2);
    r = lane(r, h3);
    r ^= r >> 33;
    r *= K3;
    return r ^ (r >> 29);
}

typedef struct {
    const unsigned char *payload;
    size_t len;
    uint64_t *digests;
} chunk_ctx;

static void chunk_body(void *arg, size_t begin, size_t end, unsigned worker) {
    (void)worker;
    chunk_ctx *c = arg;
    for (size_t i = begin; i < end; i++) {
        size_t off = i * CHUNK, n = c->len - off < CHUNK ? c->len - off : CHUNK;
        c->digests[i] = czk__r1cs_hash(c->payload + off, n, CHUNK_SEED + i);
    }
}

static uint64_t top_hash(const uint64_t *digests, size_t n_chunks, uint64_t payload_len) {
    return czk__r1cs_hash(digests, n_chunks * sizeof(uint64_t), TOP_SEED ^ payload_len);
}

/* The payload checksum of `len` bytes; CZK_ENOMEM when the digest array cannot be had. */
static int payload_hash(const unsigned char *payload, size_t len, czk_pool *pool, uint64_t *out) {
    size_t n_chunks = len / CHUNK + (len % CHUNK != 0);
    uint64_t one;
    uint64_t *d = n_chunks <= 1 ? &one : czk_malloc(n_chunks * sizeof(uint64_t));
    if (d == NULL)
        return CZK_ENOMEM;
    chunk_ctx c = {.payload = payload, .len = len, .digests = d};
    czk_pool_run(pool, n_chunks, 1, chunk_body, &c);
    *out = top_hash(d, n_chunks, len);
    if (d != &one)
        czk_free(d);
    return CZK_OK;
}

/* ---- header and layout ---- */

typedef struct {
    uint32_t version, flags;
    uint64_t n_constraints, n_vars, n_public;
    uint64_t nnz[3];
    uint64_t payload_len, payload_hash, header_hash;
    int reserved_nonzero;
} header;

static void header_encode(unsigned char out[HDR_SIZE], const header *h) {
    memset(out, 0, HDR_SIZE);
    memcpy(out, MAGIC, 8);
    czk_bytes_store_le32(out + 8, h->version);
    czk_bytes_store_le32(out + 12, h->flags);
    czk_bytes_store_le64(out + 16, h->n_constraints);
    czk_bytes_store_le64(out + 24, h->n_vars);
    czk_bytes_store_le64(out + 32, h->n_public);
    for (int m = 0; m < 3; m++)
        czk_bytes_store_le64(out + 40 + 8 * m, h->nnz[m]);
    czk_bytes_store_le64(out + 64, h->payload_len);
    czk_bytes_store_le64(out + 72, h->payload_hash);
    czk_bytes_store_le64(out + HDR_HASHED, czk__r1cs_hash(out, HDR_HASHED, HDR_SEED));
}

static void header_decode(header *h, const unsigned char in[HDR_SIZE]) {
    h->version = czk_bytes_load_le32(in + 8);
    h->flags = czk_bytes_load_le32(in + 12);
    h->n_constraints = czk_bytes_load_le64(in + 16);
    h->n_vars = czk_bytes_load_le64(in + 24);
    h->n_public = czk_bytes_load_le64(in + 32);
    for (int m = 0; m < 3; m++)
        h->nnz[m] = czk_bytes_load_le64(in + 40 + 8 * m);
    h->payload_len = czk_bytes_load_le64(in + 64);
    h->payload_hash = czk_bytes_load_le64(in + 72);
    h->header_hash = czk_bytes_load_le64(in + HDR_HASHED);
    h->reserved_nonzero = 0;
    for (int i = 80; i < HDR_HASHED; i++)
        h->reserved_nonzero |= in[i] != 0;
}

/* Section offsets from the file start: off[m][0] row_ptr, [1] cols, [2] vals. */
typedef struct {
    uint64_t off[3][3];
    uint64_t payload_len;
} layout;

static int add_ok(uint64_t *acc, uint64_t v) {
    return !__builtin_add_overflow(*acc, v, acc);
}

static int align64_ok(uint64_t *pos) {
    return add_ok(pos, (64 - *pos % 64) % 64);
}

/* Computes the layout the header's sizes imply; 0 when any size overflows 64 bits. */
static int layout_compute(const header *h, layout *lo) {
    int n_mat = (h->flags & FLAG_C_PRESENT) ? 3 : 2;
    uint64_t rows1, rp_bytes, pos = HDR_SIZE;
    memset(lo, 0, sizeof(*lo));
    if (__builtin_add_overflow(h->n_constraints, 1, &rows1) ||
        __builtin_mul_overflow(rows1, 8, &rp_bytes))
        return 0;
    for (int m = 0; m < n_mat; m++) {
        uint64_t col_bytes, val_bytes;
        if (__builtin_mul_overflow(h->nnz[m], 4, &col_bytes) ||
            __builtin_mul_overflow(h->nnz[m], 32, &val_bytes))
            return 0;
        lo->off[m][0] = pos;
        if (!add_ok(&pos, rp_bytes) || !align64_ok(&pos))
            return 0;
        lo->off[m][1] = pos;
        if (!add_ok(&pos, col_bytes) || !align64_ok(&pos))
            return 0;
        lo->off[m][2] = pos;
        if (!add_ok(&pos, val_bytes) || !align64_ok(&pos))
            return 0;
    }
    lo->payload_len = pos - HDR_SIZE;
    return 1;
}

/* ---- save ---- */

/*
 * Writes through a czk_file_writer (temporary file, fsync, rename, directory fsync), hashing
 * the payload chunk by chunk as it goes; the header goes last, over its placeholder, once
 * the checksum is known.
 */
typedef struct {
    czk_file_writer file;
    unsigned char *buf; /* CHUNK bytes */
    size_t fill;
    size_t chunk_no;
    uint64_t *digests;
    int rc; /* the first failure; CZK_OK while fine */
    czk_err *err;
} writer;

static void flush_chunk(writer *w) {
    if (w->fill == 0)
        return;
    w->digests[w->chunk_no] = czk__r1cs_hash(w->buf, w->fill, CHUNK_SEED + w->chunk_no);
    w->chunk_no++;
    if (w->rc == CZK_OK)
        w->rc = czk_file_writer_write(&w->file, w->buf, w->fill, w->err);
    w->fill = 0;
}

/* Appends `n` bytes of `p` (or zeros when p is NULL); nothing once a write has failed. */
static void emit(writer *w, const void *p, uint64_t n) {
    const unsigned char *s = p;
    while (n > 0 && w->rc == CZK_OK) {
        size_t take = CHUNK - w->fill < n ? CHUNK - w->fill : (size_t)n;
        if (s != NULL) {
            memcpy(w->buf + w->fill, s, take);
            s += take;
        } else {
            memset(w->buf + w->fill, 0, take);
        }
        w->fill += take;
        n -= take;
        if (w->fill == CHUNK)
            flush_chunk(w);
    }
}

int czk_r1cs_save(const czk_r1cs *cs, const char *path, czk_err *err) {
    if (cs == NULL || path == NULL)
        return czk_err_set(err, CZK_EINVAL, "r1cs save: cs or path is NULL");
    int rc = czk_r1cs_validate(cs, NULL, err);
    if (rc != CZK_OK)
        return rc;
    header h = {.version = FILE_VERSION,
                .flags = cs->c.row_ptr != NULL ? FLAG_C_PRESENT : 0,
                .n_constraints = cs->n_constraints,
                .n_vars = cs->n_vars,
                .n_public = cs->n_public};
    const czk_r1cs_matrix *ms[3] = {&cs->a, &cs->b, &cs->c};
    int n_mat = (h.flags & FLAG_C_PRESENT) ? 3 : 2;
    for (int m = 0; m < n_mat; m++)
        h.nnz[m] = ms[m]->row_ptr[cs->n_constraints];
    layout lo;
    if (!layout_compute(&h, &lo))
        return czk_err_set(err, CZK_EINVAL, "%s: sizes overflow the file format", path);
    h.payload_len = lo.payload_len;

    unsigned char hdr[HDR_SIZE] = {0};
    uint64_t pos = HDR_SIZE;
    size_t n_chunks = lo.payload_len / CHUNK + (lo.payload_len % CHUNK != 0);
    writer w = {.rc = CZK_OK, .err = err};
    w.buf = czk_malloc(CHUNK);
    w.digests = czk_malloc(n_chunks * sizeof(uint64_t));
    if (w.buf == NULL || w.digests == NULL) {
        rc = czk_err_set(err, CZK_ENOMEM, "%s: out of memory for the write buffer", path);
        goto out;
    }
    rc = czk_file_writer_open(&w.file, path, err);
    if (rc != CZK_OK)
        goto out;
    /* A placeholder, outside the hashed payload; rewritten once the checksum is known. */
    w.rc = czk_file_writer_write(&w.file, hdr, HDR_SIZE, err);
    for (int m = 0; m < n_mat; m++) {
        const void *src[3] = {ms[m]->row_ptr, ms[m]->cols, ms[m]->vals};
        uint64_t bytes[3] = {(cs->n_constraints + 1) * 8, h.nnz[m] * 4, h.nnz[m] * 32};
        for (int s = 0; s < 3; s++) {
            emit(&w, NULL, lo.off[m][s] - pos);
            emit(&w, src[s], bytes[s]);
            pos = lo.off[m][s] + bytes[s];
        }
    }
    emit(&w, NULL, HDR_SIZE + lo.payload_len - pos);
    flush_chunk(&w);
    rc = w.rc;
    if (rc == CZK_OK) {
        h.payload_hash = top_hash(w.digests, n_chunks, lo.payload_len);
        header_encode(hdr, &h);
        rc = czk_file_writer_pwrite(&w.file, 0, hdr, HDR_SIZE, err);
    }
    if (rc == CZK_OK)
        rc = czk_file_writer_commit(&w.file, err); /* removes the temporary file on failure */
    else
        czk_file_writer_abort(&w.file);
out:
    czk_free(w.buf);
    czk_free(w.digests);
    return rc;
}

/* ---- load ---- */

int czk_r1cs_load(czk_r1cs *cs, const char *path, czk_err *err) {
    return czk_r1cs_load_ex(cs, path, 0, NULL, err);
}

int czk_r1cs_load_ex(czk_r1cs *cs, const char *path, unsigned flags, czk_pool *pool, czk_err *err) {
    if (cs == NULL || path == NULL)
        return czk_err_set(err, CZK_EINVAL, "r1cs load: cs or path is NULL");
    memset(cs, 0, sizeof(*cs));
    if (flags & ~(unsigned)CZK_R1CS_LOAD_SKIP_CHECKSUM)
        return czk_err_set(err, CZK_EINVAL, "%s: unknown load flags 0x%x", path, flags);
    czk_file_mapping map;
    int rc = czk_file_map(&map, path, err);
    if (rc != CZK_OK)
        return rc;
    uint64_t size = map.len;
    const unsigned char *raw = map.data;
    if (size < HDR_SIZE) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: truncated: %llu bytes, the header alone is %d",
                         path, (unsigned long long)size, HDR_SIZE);
        goto out;
    }
    header h;
    header_decode(&h, raw);
    if (memcmp(raw, MAGIC, 8) != 0) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: bad magic (not a czk R1CS file)", path);
        goto out;
    }
    if (h.version != FILE_VERSION) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: unsupported version %u (this build reads %u)", path,
                         h.version, FILE_VERSION);
        goto out;
    }
    if (czk__r1cs_hash(raw, HDR_HASHED, HDR_SEED) != h.header_hash) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: header checksum mismatch", path);
        goto out;
    }
    if (h.flags & ~FLAG_C_PRESENT) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: unknown flags 0x%x", path, h.flags);
        goto out;
    }
    if (h.reserved_nonzero) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: reserved header bytes are not zero", path);
        goto out;
    }
    if (h.n_vars > (uint64_t)UINT32_MAX + 1 || h.n_vars < 1 || h.n_public > h.n_vars - 1) {
        rc = czk_err_set(err, CZK_EFORMAT,
                         "%s: bad variable counts: n_vars %llu (1 .. 2^32), n_public %llu", path,
                         (unsigned long long)h.n_vars, (unsigned long long)h.n_public);
        goto out;
    }
    if (!(h.flags & FLAG_C_PRESENT) && h.nnz[2] != 0) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: C absent but its nnz is %llu", path,
                         (unsigned long long)h.nnz[2]);
        goto out;
    }
    layout lo;
    if (!layout_compute(&h, &lo)) {
        rc = czk_err_set(err, CZK_EFORMAT,
                         "%s: sizes overflow: n_constraints %llu, nnz %llu/%llu/%llu", path,
                         (unsigned long long)h.n_constraints, (unsigned long long)h.nnz[0],
                         (unsigned long long)h.nnz[1], (unsigned long long)h.nnz[2]);
        goto out;
    }
    if (h.payload_len != lo.payload_len) {
        rc = czk_err_set(err, CZK_EFORMAT,
                         "%s: payload length field %llu disagrees with the sizes (%llu)", path,
                         (unsigned long long)h.payload_len, (unsigned long long)lo.payload_len);
        goto out;
    }
    if (size - HDR_SIZE != lo.payload_len) {
        rc = czk_err_set(err, CZK_EFORMAT, "%s: %s: file is %llu bytes, the header says %llu", path,
                         size - HDR_SIZE < lo.payload_len ? "truncated" : "trailing bytes",
                         (unsigned long long)size, (unsigned long long)(HDR_SIZE + lo.payload_len));
        goto out;
    }
    const unsigned char *base = raw;
    if (!(flags & CZK_R1CS_LOAD_SKIP_CHECKSUM)) {
        uint64_t ph;
        if (payload_hash(base + HDR_SIZE, (size_t)lo.payload_len, pool, &ph) != CZK_OK) {
            rc = czk_err_set(err, CZK_ENOMEM, "%s: out of memory for checksums", path);
            goto out;
        }
        if (ph != h.payload_hash) {
            rc = czk_err_set(err, CZK_EFORMAT, "%s: payload checksum mismatch", path);
            goto out;
        }
    }
    cs->n_constraints = (size_t)h.n_constraints;
    cs->n_vars = (size_t)h.n_vars;
    cs->n_public = (size_t)h.n_public;
    czk_r1cs_matrix *ms[3] = {&cs->a, &cs->b, &cs->c};
    int n_mat = (h.flags & FLAG_C_PRESENT) ? 3 : 2;
    for (int m = 0; m < n_mat; m++) {
        /* The casts drop const: the mapping is read-only and r1cs.h says so. */
        ms[m]->row_ptr = (uint64_t *)(uintptr_t)(base + lo.off[m][0]);
        ms[m]->cols = (uint32_t *)(uintptr_t)(base + lo.off[m][1]);
        ms[m]->vals = (czk_fr *)(uintptr_t)(base + lo.off[m][2]);
    }
    /* Owned by cs now (czk_r1cs_clear unmaps it); map keeps nothing to unmap. */
    cs->mapping = map.base;
    cs->mapping_len = map.map_len;
    memset(&map, 0, sizeof(map));
    for (int m = 0; m < n_mat; m++) {
        /* The sections were sized from the header's nnz: entries beyond it would be read
         * from other sections or past the end of the file. */
        uint64_t last = ms[m]->row_ptr[h.n_constraints];
        if (last != h.nnz[m]) {
            rc =
                czk_err_set(err, CZK_EFORMAT,
                            "%s: matrix %c: row_ptr[n_constraints] = %llu but the header says "
                            "nnz = %llu",
                            path, "ABC"[m], (unsigned long long)last, (unsigned long long)h.nnz[m]);
            czk_r1cs_clear(cs);
            goto out;
        }
    }
    rc = czk__r1cs_validate_as(cs, pool, CZK_EFORMAT, path, err);
    if (rc != CZK_OK)
        czk_r1cs_clear(cs);
out:
    czk_file_unmap(&map);
    return rc;
}

/* ---- test support ---- */

int czk__r1cs_file_reseal(void *image, size_t len) {
    unsigned char *p = image;
    if (p == NULL || len < HDR_SIZE)
        return CZK_EINVAL;
    uint64_t ph;
    int rc = payload_hash(p + HDR_SIZE, len - HDR_SIZE, NULL, &ph);
    if (rc != CZK_OK)
        return rc;
    czk_bytes_store_le64(p + 72, ph);
    czk_bytes_store_le64(p + HDR_HASHED, czk__r1cs_hash(p, HDR_HASHED, HDR_SEED));
    return CZK_OK;
}
