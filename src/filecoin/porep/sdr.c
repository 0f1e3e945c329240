/*
 * DESIGN: the SDR graph and labels (contract in sdr.h).
 *
 * Parents are computed per node from two primitives written here, ChaCha8 and BLAKE2b-512,
 * rather than through OpenSSL: rust-fil-proofs draws the DRG parents from rand_chacha's
 * ChaCha8Rng, which OpenSSL does not offer (it has ChaCha20 only), and the Feistel round
 * function hashes 16 bytes with BLAKE2b, for which an EVP call costs more than the compression
 * itself (a node's expander parents take about 50 of them). Both are checked against
 * independent vectors and OpenSSL in sdr_test.c, and the whole graph against the parent-cache
 * digests rust-fil-proofs publishes.
 *
 * Nothing is cached between calls: a node's parents are a pure function of the graph and the
 * node, so the sealer and the virtual C1 generator can ask for any node of a 2^31-node graph.
 * Whole-graph users (czk_sdr_labels, the digest) compute each node once.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#include "filecoin/porep/sdr.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <string.h>

#include "util/alloc.h"
#include "util/bytes.h"

/* ---- ChaCha (rand_chacha layout) ------------------------------------------------------- */

static uint32_t rotl32(uint32_t x, unsigned n) {
    return (x << n) | (x >> (32 - n));
}

#define QR(a, b, c, d)                                                                             \
    do {                                                                                           \
        a += b;                                                                                    \
        d = rotl32(d ^ a, 16);                                                                     \
        c += d;                                                                                    \
        b = rotl32(b ^ c, 12);                                                                     \
        a += b;                                                                                    \
        d = rotl32(d ^ a, 8);                                                                      \
        c += d;                                                                                    \
        b = rotl32(b ^ c, 7);                                                                      \
    } while (0)

/* rand_chacha keeps a 64-bit block counter in words 12-13 and the 64-bit stream in 14-15 (the
 * original Bernstein layout); ChaCha8Rng::from_seed uses stream 0. While the counter is below
 * 2^32 this is RFC 7539's block with a zero nonce, so RFC vectors check it. */
void czk__sdr_chacha_block(uint32_t out[16], const uint8_t key[32], uint64_t counter,
                           unsigned rounds) {
    uint32_t in[16] = {0x61707865, 0x3320646e, 0x79622d32, 0x6b206574};
    for (int i = 0; i < 8; i++)
        in[4 + i] = czk_bytes_load_le32(key + 4 * i);
    in[12] = (uint32_t)counter;
    in[13] = (uint32_t)(counter >> 32);
    in[14] = in[15] = 0;
    uint32_t x[16];
    memcpy(x, in, sizeof x);
    for (unsigned r = 0; r < rounds; r += 2) {
        QR(x[0], x[4], x[8], x[12]);
        QR(x[1], x[5], x[9], x[13]);
        QR(x[2], x[6], x[10], x[14]);
        QR(x[3], x[7], x[11], x[15]);
        QR(x[0], x[5], x[10], x[15]);
        QR(x[1], x[6], x[11], x[12]);
        QR(x[2], x[7], x[8], x[13]);
        QR(x[3], x[4], x[9], x[14]);
    }
    for (int i = 0; i < 16; i++)
        out[i] = x[i] + in[i];
}

/* rand_core's BlockRng over ChaCha8: words are consumed in block order, and gen::<u64>() takes
 * two consecutive words, the first as the low half (also across a block boundary). */
typedef struct chacha_stream {
    uint8_t key[32];
    uint64_t counter;
    uint32_t word[16];
    unsigned used; /* words of `word` consumed; 16 forces a new block */
} chacha_stream;

static uint32_t chacha_u32(chacha_stream *s) {
    if (s->used == 16) {
        czk__sdr_chacha_block(s->word, s->key, s->counter++, 8);
        s->used = 0;
    }
    return s->word[s->used++];
}

static uint64_t chacha_u64(chacha_stream *s) {
    uint64_t lo = chacha_u32(s);
    return lo | (uint64_t)chacha_u32(s) << 32;
}

/* ---- BLAKE2b-512 of one block (RFC 7693) ----------------------------------------------- */

static const uint64_t blake2b_iv[8] = {
    0x6a09e667f3bcc908ull, 0xbb67ae8584caa73bull, 0x3c6ef372fe94f82bull, 0xa54ff53a5f1d36f1ull,
    0x510e527fade682d1ull, 0x9b05688c2b3e6c1full, 0x1f83d9abfb41bd6bull, 0x5be0cd19137e2179ull,
};

static const uint8_t blake2b_sigma[10][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
};

static uint64_t rotr64(uint64_t x, unsigned n) {
    return (x >> n) | (x << (64 - n));
}

#define G(a, b, c, d, x, y)                                                                        \
    do {                                                                                           \
        a = a + b + (x);                                                                           \
        d = rotr64(d ^ a, 32);                                                                     \
        c = c + d;                                                                                 \
        b = rotr64(b ^ c, 24);                                                                     \
        a = a + b + (y);                                                                           \
        d = rotr64(d ^ a, 16);                                                                     \
        c = c + d;                                                                                 \
        b = rotr64(b ^ c, 63);                                                                     \
    } while (0)

/* The chaining value after compressing one final block of `len` ≤ 128 bytes (words m). */
static void blake2b_one_block(uint64_t h[8], const uint64_t m[16], uint64_t len) {
    uint64_t v[16];
    for (int i = 0; i < 8; i++)
        h[i] = blake2b_iv[i];
    h[0] ^= 0x01010040; /* digest length 64, no key, fanout 1, depth 1 */
    for (int i = 0; i < 8; i++) {
        v[i] = h[i];
        v[8 + i] = blake2b_iv[i];
    }
    v[12] ^= len;
    v[14] = ~v[14]; /* the last block */
    for (int r = 0; r < 12; r++) {
        const uint8_t *s = blake2b_sigma[r % 10];
        G(v[0], v[4], v[8], v[12], m[s[0]], m[s[1]]);
        G(v[1], v[5], v[9], v[13], m[s[2]], m[s[3]]);
        G(v[2], v[6], v[10], v[14], m[s[4]], m[s[5]]);
        G(v[3], v[7], v[11], v[15], m[s[6]], m[s[7]]);
        G(v[0], v[5], v[10], v[15], m[s[8]], m[s[9]]);
        G(v[1], v[6], v[11], v[12], m[s[10]], m[s[11]]);
        G(v[2], v[7], v[8], v[13], m[s[12]], m[s[13]]);
        G(v[3], v[4], v[9], v[14], m[s[14]], m[s[15]]);
    }
    for (int i = 0; i < 8; i++)
        h[i] ^= v[i] ^ v[8 + i];
}

int czk__sdr_blake2b512(uint8_t out[64], const uint8_t *msg, size_t len) {
    if (len > 128)
        return -1;
    uint8_t block[128] = {0};
    if (len > 0)
        memcpy(block, msg, len);
    uint64_t m[16], h[8];
    for (int i = 0; i < 16; i++)
        m[i] = czk_bytes_load_le64(block + 8 * i);
    blake2b_one_block(h, m, len);
    for (int i = 0; i < 8; i++)
        czk_bytes_store_le64(out + 8 * i, h[i]);
    return 0;
}

/* ---- the graph ------------------------------------------------------------------------- */

static int domain_seed(uint8_t out[32], const char *tag, const uint8_t porep_id[32], czk_err *err) {
    uint8_t msg[64];
    size_t n = strlen(tag);
    memcpy(msg, tag, n);
    memcpy(msg + n, porep_id, 32);
    if (SHA256(msg, n + 32, out) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
    return CZK_OK;
}

int czk_sdr_graph_init_raw(czk_sdr_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                           czk_vanilla_api api, czk_err *err) {
    memset(g, 0, sizeof *g);
    if (nodes < 2 || nodes > UINT32_MAX)
        return czk_err_set(err, CZK_EINVAL, "SDR graph of %llu nodes (2 to 2^32 - 1 allowed)",
                           (unsigned long long)nodes);
    if (api != CZK_VANILLA_API_V1_0 && api != CZK_VANILLA_API_V1_1 && api != CZK_VANILLA_API_V1_2)
        return czk_err_set(err, CZK_EINVAL, "SDR graph: unknown API version %d", (int)api);
    g->nodes = nodes;
    g->api = api;
    memcpy(g->porep_id, porep_id, 32);
    uint8_t d[32];
    int rc = domain_seed(d, "Filecoin_DRSample", porep_id, err);
    if (rc != CZK_OK)
        return rc;
    memcpy(g->drg_seed, d, 28);
    rc = domain_seed(d, "Filecoin_Feistel", porep_id, err);
    if (rc != CZK_OK)
        return rc;
    for (int i = 0; i < 4; i++)
        g->feistel_keys[i] = czk_bytes_load_le64(d + 8 * i);
    /* feistel.rs precompute: the least power of four ≥ 8n, at least 4, split in two halves. */
    uint64_t domain = nodes * CZK_POREP_EXP_PARENTS, pow4 = 4;
    uint32_t k = 1;
    while (pow4 < domain) {
        pow4 *= 4;
        k++;
    }
    g->feistel_half_bits = k;
    g->feistel_right_mask = (1ull << k) - 1;
    return CZK_OK;
}

int czk_sdr_graph_init(czk_sdr_graph *g, const czk_porep_type *type, czk_err *err) {
    uint8_t porep_id[32];
    czk_porep_id(porep_id, type);
    return czk_sdr_graph_init_raw(g, type->nodes, porep_id, type->api, err);
}

/* ceil(log2(x)) for x ≥ 2. rust-fil-proofs takes it in f64 (`(m as f64).log2().ceil()`); for
 * m < 2^54 no non-power of two is close enough to a power of two for the f64 log to round onto
 * the integer (the gap is ≥ 1/(m ln 2) ≫ 2^-52 · 34), so the exact integer form agrees. */
static uint64_t ceil_log2(uint64_t x) {
    return 64 - (uint64_t)__builtin_clzll(x - 1);
}

void czk_sdr_drg_parents(const czk_sdr_graph *g, uint64_t node,
                         uint32_t out[CZK_POREP_DRG_PARENTS]) {
    if (node < 2) {
        memset(out, 0, CZK_POREP_DRG_PARENTS * sizeof *out);
        return;
    }
    chacha_stream s;
    memcpy(s.key, g->drg_seed, 28);
    czk_bytes_store_le32(s.key + 28, (uint32_t)node);
    s.counter = 0;
    s.used = 16;
    const uint64_t m_prime = CZK_POREP_DRG_PARENTS - 1;
    uint64_t meta = node * m_prime, buckets = ceil_log2(meta);
    /* V1_0 puts the predecessor last, later versions first (drgraph.rs). */
    unsigned first = g->api == CZK_VANILLA_API_V1_0 ? 0 : 1;
    unsigned pred = g->api == CZK_VANILLA_API_V1_0 ? (unsigned)m_prime : 0;
    for (unsigned k = 0; k < m_prime; k++) {
        uint64_t bucket = chacha_u64(&s) % buckets + 1;
        uint64_t hi = meta < (1ull << bucket) ? meta : (1ull << bucket);
        uint64_t lo = hi >> 1 > 2 ? hi >> 1 : 2;
        uint64_t distance = lo + chacha_u64(&s) % (hi - lo + 1);
        uint64_t parent = (meta - distance) / m_prime;
        out[first + k] = (uint32_t)(parent == node ? node - 1 : parent);
    }
    out[pred] = (uint32_t)(node - 1);
}

/* Feistel round function: BLAKE2b-512(BE64(right) ‖ BE64(key)), first 8 bytes big-endian. */
static uint64_t feistel_f(uint64_t right, uint64_t key, uint64_t mask) {
    uint64_t m[16] = {0}, h[8];
    m[0] = __builtin_bswap64(right);
    m[1] = __builtin_bswap64(key);
    blake2b_one_block(h, m, 16);
    return __builtin_bswap64(h[0]) & mask;
}

static uint64_t feistel_encode(const czk_sdr_graph *g, uint64_t index) {
    uint64_t k = g->feistel_half_bits, mask = g->feistel_right_mask;
    uint64_t left = (index >> k) & mask, right = index & mask;
    for (int r = 0; r < 3; r++) {
        uint64_t l = right;
        right = left ^ feistel_f(right, g->feistel_keys[r], mask);
        left = l;
    }
    return left << k | right;
}

void czk_sdr_exp_parents(const czk_sdr_graph *g, uint64_t node,
                         uint32_t out[CZK_POREP_EXP_PARENTS]) {
    uint64_t domain = g->nodes * CZK_POREP_EXP_PARENTS;
    for (uint64_t i = 0; i < CZK_POREP_EXP_PARENTS; i++) {
        /* Cycle-walk: re-encrypt until the value lands in [0, 8n); a permutation of the
         * power-of-four superset, so this ends. */
        uint64_t u = feistel_encode(g, node * CZK_POREP_EXP_PARENTS + i);
        while (u >= domain)
            u = feistel_encode(g, u);
        if (g->api == CZK_VANILLA_API_V1_0)
            out[i] = (uint32_t)u / CZK_POREP_EXP_PARENTS;
        else
            out[i] = (uint32_t)(u / CZK_POREP_EXP_PARENTS);
    }
}

int czk_sdr_parents(const czk_sdr_graph *g, uint64_t node, uint32_t out[CZK_SDR_PARENTS]) {
    if (node >= g->nodes)
        return CZK_EINVAL;
    czk_sdr_drg_parents(g, node, out);
    czk_sdr_exp_parents(g, node, out + CZK_POREP_DRG_PARENTS);
    return CZK_OK;
}

int czk_sdr_parent_cache_digest(const czk_sdr_graph *g, uint8_t out[32], czk_err *err) {
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    int rc = CZK_OK;
    if (md == NULL || EVP_DigestInit_ex(md, EVP_sha256(), NULL) != 1) {
        rc = czk_err_set(err, CZK_EINTERNAL, "SHA-256 context failed");
        goto out;
    }
    /* Buffer 256 nodes (14 KiB) per update. */
    enum { CHUNK = 256 };
    static const size_t entry = CZK_SDR_PARENTS * 4;
    uint8_t buf[CHUNK * CZK_SDR_PARENTS * 4];
    for (uint64_t v0 = 0; v0 < g->nodes; v0 += CHUNK) {
        size_t n = g->nodes - v0 < CHUNK ? (size_t)(g->nodes - v0) : CHUNK;
        for (size_t j = 0; j < n; j++) {
            uint32_t p[CZK_SDR_PARENTS];
            czk_sdr_parents(g, v0 + j, p);
            for (size_t i = 0; i < CZK_SDR_PARENTS; i++)
                czk_bytes_store_le32(buf + j * entry + 4 * i, p[i]);
        }
        if (EVP_DigestUpdate(md, buf, n * entry) != 1) {
            rc = czk_err_set(err, CZK_EINTERNAL, "SHA-256 update failed");
            goto out;
        }
    }
    unsigned len = 0;
    if (EVP_DigestFinal_ex(md, out, &len) != 1 || len != 32)
        rc = czk_err_set(err, CZK_EINTERNAL, "SHA-256 final failed");
out:
    EVP_MD_CTX_free(md);
    return rc;
}

/* ---- labels ---------------------------------------------------------------------------- */

int czk_sdr_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                  const uint8_t *parents, czk_err *err) {
    uint8_t buf[CZK_SDR_LABEL_INPUT] = {0};
    memcpy(buf, replica_id, 32);
    czk_bytes_store_be32(buf + 32, layer);
    czk_bytes_store_be64(buf + 36, node);
    size_t len = 64;
    if (parents != NULL) {
        memcpy(buf + 64, parents, 32 * CZK_POREP_PARENTS);
        len = CZK_SDR_LABEL_INPUT;
    }
    if (SHA256(buf, len, out) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "SHA-256 failed");
    out[31] &= 0x3f;
    return CZK_OK;
}

void czk_sdr_gather_parents(uint8_t *out, uint32_t layer, const uint32_t parents[CZK_SDR_PARENTS],
                            const uint8_t *layer_labels, const uint8_t *prev_labels) {
    /* Layer 1 cycles through the 6 DRG parents, later layers through all 14 (graph.rs
     * copy_parents_data{,_exp}). */
    unsigned n = layer == 1 ? CZK_POREP_DRG_PARENTS : CZK_SDR_PARENTS;
    for (unsigned k = 0; k < CZK_POREP_PARENTS; k++) {
        unsigned i = k % n;
        const uint8_t *src = i < CZK_POREP_DRG_PARENTS ? layer_labels : prev_labels;
        memcpy(out + 32 * (size_t)k, src + 32 * (size_t)parents[i], 32);
    }
}

int czk_sdr_labels(const czk_sdr_graph *g, uint8_t *labels, const uint8_t replica_id[32],
                   uint32_t layers, czk_err *err) {
    if (layers == 0)
        return czk_err_set(err, CZK_EINVAL, "SDR labels of 0 layers");
    size_t n = (size_t)g->nodes, layer_bytes = n * 32;
    uint32_t *par = czk_malloc(n * CZK_SDR_PARENTS * sizeof *par);
    if (par == NULL)
        return czk_err_set(err, CZK_ENOMEM, "cannot allocate the parents of %zu nodes", n);
    for (size_t v = 0; v < n; v++)
        czk_sdr_parents(g, v, par + v * CZK_SDR_PARENTS);
    int rc = CZK_OK;
    uint8_t in[32 * CZK_POREP_PARENTS];
    for (uint32_t l = 1; l <= layers && rc == CZK_OK; l++) {
        uint8_t *cur = labels + (size_t)(l - 1) * layer_bytes;
        const uint8_t *prev = l > 1 ? cur - layer_bytes : NULL;
        rc = czk_sdr_label(cur, replica_id, l, 0, NULL, err);
        for (size_t v = 1; v < n && rc == CZK_OK; v++) {
            czk_sdr_gather_parents(in, l, par + v * CZK_SDR_PARENTS, cur, prev);
            rc = czk_sdr_label(cur + 32 * v, replica_id, l, v, in, err);
        }
    }
    czk_free(par);
    return rc;
}
