/*
 * The SDR (stacked depth-robust) graph of Filecoin's PoRep and its labels, as rust-fil-proofs
 * builds them (storage-proofs-core drgraph.rs and crypto/feistel.rs; storage-proofs-porep
 * stacked/vanilla/graph.rs, create_label/single.rs, cache.rs).
 *
 * Every node has 14 parents, computed per node with no table, so graphs of 2^31 nodes cost
 * nothing until a node is asked for:
 *  - 6 DRG parents (bucket sampling). drg_seed = SHA256("Filecoin_DRSample" ‖ porep_id)[0..28].
 *    Nodes 0 and 1 have parents 0,0,0,0,0,0. For node v ≥ 2 a ChaCha8 generator is keyed with
 *    drg_seed ‖ LE32(v) (rand_chacha's ChaCha8Rng: stream 0, block counter from 0) and, with
 *    m = 5v and B = ⌈log2 m⌉, each of 5 parents takes two u64 draws (two LE words, low first):
 *    bucket b = draw % B + 1, hi = min(m, 2^b), lo = max(2, hi / 2), distance d = lo + draw %
 *    (hi − lo + 1), parent (m − d) / 5, replaced by v − 1 when it is v. Under API 1.0 the 5
 *    draws fill slots 0-4 and slot 5 is v − 1; under API 1.1 and later slot 0 is v − 1 and
 *    the draws fill slots 1-5.
 *  - 8 expander parents (Chung's construction through a Feistel permutation of [0, 8n)):
 *    keys = the four LE64 words of SHA256("Filecoin_Feistel" ‖ porep_id), of which rounds use
 *    the first three. Parent i of v is permute(8v + i) / 8, where permute applies the 3-round
 *    network until the value falls below 8n. The network splits its input into two halves of
 *    k bits (4^k the least power of four ≥ 8n, k ≥ 1); a round maps (L, R) to (R, L ⊕ F(R,
 *    key)), F = the first 8 bytes, big-endian, of BLAKE2b-512(BE64(R) ‖ BE64(key)), masked to
 *    k bits. API 1.0 truncates the permuted value to 32 bits before dividing by 8 (which only
 *    matters from 2^29 nodes up: rust-fil-proofs' `transformed as u32`).
 * The labeler's order is DRG(6) ‖ expander(8); the parent cache file holds exactly that per
 * node as 14 LE32 words.
 *
 * Labels: label(layer ℓ, node v) = SHA256(replica_id ‖ BE32(ℓ) ‖ BE64(v) ‖ 0^20 ‖ P) with byte
 * 31 &= 0x3f, where P is 37 parent labels of 32 bytes: in layer 1 the 6 DRG parents of layer 1
 * repeated (6·6 + the first), in layer ℓ ≥ 2 the 6 DRG parents of layer ℓ and the 8 expander
 * parents of layer ℓ − 1, repeated (14 + 14 + the first 9). Node 0 hashes the 64-byte prefix
 * alone. A label is a field element (< 2^254) as 32 little-endian bytes.
 *
 * Thread-safety: a graph is read-only after czk_sdr_graph_init; everything here may be called
 * from any number of threads at once. Nothing is constant-time (all inputs are public).
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04).
 */
#ifndef CZK_FILECOIN_POREP_SDR_H
#define CZK_FILECOIN_POREP_SDR_H

#include <stddef.h>
#include <stdint.h>

#include "filecoin/spec/porep_types.h"
#include "filecoin/spec/sector.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parents per node: 6 DRG then 8 expander. */
#define CZK_SDR_PARENTS (CZK_POREP_DRG_PARENTS + CZK_POREP_EXP_PARENTS)
/* Bytes hashed into one label: the 64-byte prefix and 37 parent labels. */
#define CZK_SDR_LABEL_INPUT (64 + 32 * CZK_POREP_PARENTS)

/* One SDR graph. Plain data; init fills it, nothing to free. */
typedef struct czk_sdr_graph {
    uint64_t nodes;
    czk_vanilla_api api;  /* V1_0 orders the DRG parents differently (see the top) */
    uint8_t porep_id[32]; /* kept for messages and for the file name of a parent cache */
    uint8_t drg_seed[28]; /* SHA256("Filecoin_DRSample" ‖ porep_id)[0..28] */
    uint64_t feistel_keys[4];
    uint64_t feistel_right_mask; /* 2^k − 1 */
    uint32_t feistel_half_bits;  /* k */
} czk_sdr_graph;

/*
 * The graph of a registered seal proof: its nodes, its porep_id (czk_porep_id) and its API
 * version. Returns CZK_OK, or CZK_EINTERNAL if SHA-256 fails.
 */
int czk_sdr_graph_init(czk_sdr_graph *g, const czk_porep_type *type, czk_err *err);

/*
 * A graph of `nodes` nodes (2 … 2^32 − 1, as rust-fil-proofs' StackedGraph allows) for any porep_id
 * and API version, as rust-fil-proofs' tests build them (the label KATs use porep ids that
 * belong to no registered proof). Returns CZK_OK, CZK_EINVAL for a node count out of range or
 * an unknown API, or CZK_EINTERNAL.
 */
int czk_sdr_graph_init_raw(czk_sdr_graph *g, uint64_t nodes, const uint8_t porep_id[32],
                           czk_vanilla_api api, czk_err *err);

/*
 * The 14 parents of `node` in the labeler's order (6 DRG, then 8 expander) into out. About
 * 2 ChaCha8 blocks and ~50 BLAKE2b compressions. Returns CZK_OK, or CZK_EINVAL when node ≥ nodes
 * (out untouched).
 */
int czk_sdr_parents(const czk_sdr_graph *g, uint64_t node, uint32_t out[CZK_SDR_PARENTS]);

/* The 6 DRG parents alone (node < nodes, unchecked). */
void czk_sdr_drg_parents(const czk_sdr_graph *g, uint64_t node,
                         uint32_t out[CZK_POREP_DRG_PARENTS]);

/* The 8 expander parents alone (node < nodes, unchecked). */
void czk_sdr_exp_parents(const czk_sdr_graph *g, uint64_t node,
                         uint32_t out[CZK_POREP_EXP_PARENTS]);

/*
 * SHA-256 of the parent cache file rust-fil-proofs would write for this graph: for every node
 * in order, its 14 parents as LE32 (cache.rs; the digests are published in parent_cache.json).
 * Computes every node's parents: seconds per million nodes. Returns CZK_OK or CZK_EINTERNAL.
 */
int czk_sdr_parent_cache_digest(const czk_sdr_graph *g, uint8_t out[32], czk_err *err);

/*
 * One label: out = SHA256(replica_id ‖ BE32(layer) ‖ BE64(node) ‖ 0^20 ‖ parents[0..37·32)),
 * byte 31 &= 0x3f; `parents` NULL hashes the prefix alone (node 0). Returns CZK_OK or
 * CZK_EINTERNAL.
 */
int czk_sdr_label(uint8_t out[32], const uint8_t replica_id[32], uint32_t layer, uint64_t node,
                  const uint8_t *parents, czk_err *err);

/*
 * The 37 parent labels that node `node` of layer `layer` hashes, gathered from `layer_labels`
 * (the labels of `layer`, 32 bytes a node) and `prev_labels` (those of layer − 1; unused and
 * may be NULL in layer 1), for the node's 14 `parents`. Out: out[0..37·32).
 */
void czk_sdr_gather_parents(uint8_t *out, uint32_t layer, const uint32_t parents[CZK_SDR_PARENTS],
                            const uint8_t *layer_labels, const uint8_t *prev_labels);

/*
 * The labels of layers 1 … `layers` of the whole graph for `replica_id`: labels[(ℓ − 1)·nodes·32
 * + v·32 ...] is node v of layer ℓ. `labels` holds layers·nodes·32 bytes (the caller allocates
 * it). `layers` is any count ≥ 1 (registered proofs use 2 or 11; the label KATs run 11 layers on
 * 64 nodes). Allocates a parent table of nodes·56 bytes for the duration of the call. Cost:
 * layers·nodes SHA-256 of 1,248 bytes plus one parents computation per node. Returns CZK_OK,
 * CZK_EINVAL (layers = 0), CZK_ENOMEM or CZK_EINTERNAL.
 */
int czk_sdr_labels(const czk_sdr_graph *g, uint8_t *labels, const uint8_t replica_id[32],
                   uint32_t layers, czk_err *err);

/*
 * Internal, for tests: one block of rand_chacha's ChaCha with `rounds` rounds (8 for ChaCha8Rng,
 * 20 for RFC 7539's vectors) for a 32-byte key, a 64-bit block counter and stream 0, as the 16
 * output words.
 */
void czk__sdr_chacha_block(uint32_t out[16], const uint8_t key[32], uint64_t counter,
                           unsigned rounds);

/* Internal, for tests: BLAKE2b-512 (RFC 7693, no key) of a message of at most 128 bytes.
 * Returns 0, or −1 when len > 128. */
int czk__sdr_blake2b512(uint8_t out[64], const uint8_t *msg, size_t len);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FILECOIN_POREP_SDR_H */
