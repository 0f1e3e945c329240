/*
 * Filecoin parameter files: names, lookup and the header check (params.h).
 *
 * DESIGN: names are built from the same format strings rust-fil-proofs formats (quoted in
 * params.h), so that a change upstream shows up as a failed comparison with parameters.json in
 * params_test.c rather than as a silent miss at run time. The header check reads six u32s with
 * pread instead of mapping the file: an official WindowPoSt file is 57 GiB, and the point is to
 * learn whether it fits the circuit before anything commits to loading it. The layout itself
 * (offsets, vector order, point sizes) is formats/bellperson's: czk_bellperson_header_read
 * walks it, and this file only says which lengths a circuit needs.
 *
 * Upstream code cited here was read at rust-fil-proofs@87348a74 (2026-06-04), bellperson 0.27.0
 * (@d1fa22cb).
 */
#include "filecoin/io/params.h"

#include <errno.h>
#include <openssl/sha.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "formats/bellperson.h"
#include "util/bytes.h"
#include "util/file.h"

/* filecoin-proofs constants.rs: challenges and sectors per WindowPoSt partition, and the PoRep
 * layer count and challenges per partition, by sector size. */
typedef struct size_row {
    uint64_t size;
    uint32_t window_sectors;
    uint32_t porep_layers;
    uint32_t porep_challenges; /* ceil(minimum challenges / partitions) */
} size_row;

static const size_row SIZES[] = {
    {2048ull, 2, 2, 2},          {8ull << 20, 2, 2, 2},       {512ull << 20, 2, 2, 2},
    {32ull << 30, 2349, 11, 18}, {64ull << 30, 2300, 11, 18},
};

#define WINNING_CHALLENGES 66 /* constants.rs WINNING_POST_CHALLENGE_COUNT */
#define WINDOW_CHALLENGES 10  /* constants.rs WINDOW_POST_CHALLENGE_COUNT */

static const size_row *size_lookup(uint64_t sector_size) {
    for (size_t i = 0; i < sizeof(SIZES) / sizeof(SIZES[0]); i++)
        if (SIZES[i].size == sector_size)
            return &SIZES[i];
    return NULL;
}

/* Fills identifier, digest and cache_id from the identifier and cache prefix. */
static int finish_id(czk_params_id *out, const char *prefix, czk_err *err) {
    const char *s = out->identifier;
    if (SHA256((const unsigned char *)s, strlen(s), out->digest) == NULL)
        return czk_err_set(err, CZK_EINTERNAL, "SHA-256 of the parameter identifier failed");
    char hex[65];
    for (size_t i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", out->digest[i]);
    int n = snprintf(out->cache_id, sizeof(out->cache_id), "%s-%s", prefix, hex);
    if (n < 0 || (size_t)n >= sizeof(out->cache_id))
        return czk_err_set(err, CZK_EINTERNAL, "parameter cache id does not fit");
    return CZK_OK;
}

int czk_params_id_get(czk_params_id *out, czk_params_circuit circuit, uint64_t sector_size,
                      czk_err *err) {
    memset(out, 0, sizeof(*out));
    int rc = CZK_OK;
    const size_row *row = size_lookup(sector_size);
    czk_vanilla_shape shape;
    if (circuit != CZK_PARAMS_WINNING_POST && circuit != CZK_PARAMS_WINDOW_POST &&
        circuit != CZK_PARAMS_POREP && circuit != CZK_PARAMS_SNAP) {
        rc = czk_err_set(err, CZK_EINVAL, "unknown parameter circuit %d", (int)circuit);
        goto out;
    }
    if (row == NULL || czk_vanilla_shape_for_size(&shape, sector_size, NULL) != CZK_OK) {
        rc = czk_err_set(err, CZK_EUNSUPPORTED,
                         "no published parameters for sector size %llu (2 KiB, 8 MiB, 512 MiB, "
                         "32 GiB, 64 GiB)",
                         (unsigned long long)sector_size);
        goto out;
    }
    /* Tree::display(): the hasher, then base, sub and top arities (0 when absent). */
    char tree[64];
    snprintf(tree, sizeof(tree), "merkletree-poseidon_hasher-8-%u-%u", shape.sub_arity,
             shape.top_arity);
    char prefix[128];
    int n;
    if (circuit == CZK_PARAMS_POREP) {
        n = snprintf(out->identifier, sizeof(out->identifier),
                     "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{"
                     "expansion_degree: 8 base_graph: drgraph::BucketGraph{size: %llu; degree: 6; "
                     "hasher: poseidon_hasher} }, challenges: LayerChallenges { layers: %u, "
                     "max_count: %u }, tree: %s }",
                     (unsigned long long)(sector_size / 32), row->porep_layers,
                     row->porep_challenges, tree);
        snprintf(prefix, sizeof(prefix), "stacked-proof-of-replication-%s-sha256_hasher", tree);
    } else if (circuit == CZK_PARAMS_SNAP) {
        n = snprintf(out->identifier, sizeof(out->identifier),
                     "empty_sector_update::PublicParams{ sector_nodes: %llu }",
                     (unsigned long long)(sector_size / 32));
        snprintf(prefix, sizeof(prefix), "empty-sector-update-%s", tree);
    } else {
        /* WinningPoSt's circuit is 66 slots of one challenge (parameters.rs
         * winning_post_setup_params), so its identifier says so. */
        unsigned challenges = circuit == CZK_PARAMS_WINNING_POST ? 1 : WINDOW_CHALLENGES;
        unsigned sectors =
            circuit == CZK_PARAMS_WINNING_POST ? WINNING_CHALLENGES : row->window_sectors;
        n = snprintf(out->identifier, sizeof(out->identifier),
                     "FallbackPoSt::PublicParams{sector_size: %llu, challenge_count: %u, "
                     "sector_count: %u}",
                     (unsigned long long)sector_size, challenges, sectors);
        snprintf(prefix, sizeof(prefix), "proof-of-spacetime-fallback-%s", tree);
    }
    if (n < 0 || (size_t)n >= sizeof(out->identifier)) {
        rc = czk_err_set(err, CZK_EINTERNAL, "parameter identifier does not fit");
        goto out;
    }
    out->circuit = circuit;
    out->sector_size = sector_size;
    rc = finish_id(out, prefix, err);
out:
    if (rc != CZK_OK)
        memset(out, 0, sizeof(*out));
    return rc;
}

int czk_params_id_for_post(czk_params_id *out, const czk_vanilla_post_type *type, czk_err *err) {
    czk_params_circuit c =
        type->kind == CZK_VANILLA_POST_WINNING ? CZK_PARAMS_WINNING_POST : CZK_PARAMS_WINDOW_POST;
    return czk_params_id_get(out, c, type->shape.sector_size, err);
}

int czk_params_file_name(char *out, size_t cap, const czk_params_id *id, czk_params_ext ext,
                         czk_err *err) {
    static const char *const exts[] = {"params", "vk", "meta"};
    if (cap > 0)
        out[0] = '\0';
    if ((unsigned)ext > CZK_PARAMS_EXT_META)
        return czk_err_set(err, CZK_EINVAL, "unknown parameter file extension %d", (int)ext);
    int n = snprintf(out, cap, "v%d-%s.%s", CZK_PARAMS_VERSION, id->cache_id, exts[ext]);
    if (n < 0 || (size_t)n >= cap) {
        if (cap > 0)
            out[0] = '\0';
        return czk_err_set(err, CZK_EINVAL, "parameter file name needs %d bytes, %zu given", n + 1,
                           cap);
    }
    return CZK_OK;
}

const char *czk_params_cache_dir(const char *override_dir, const char *env_value) {
    if (override_dir != NULL && override_dir[0] != '\0')
        return override_dir;
    if (env_value != NULL && env_value[0] != '\0')
        return env_value;
    return CZK_PARAMS_DEFAULT_DIR;
}

int czk_params_find(char *out, size_t cap, const czk_params_id *id, czk_params_ext ext,
                    const char *override_dir, const char *env_value, czk_err *err) {
    char name[CZK_PARAMS_NAME_MAX];
    int rc = czk_params_file_name(name, sizeof(name), id, ext, err);
    if (cap > 0)
        out[0] = '\0';
    if (rc != CZK_OK)
        return rc;
    const char *dir = czk_params_cache_dir(override_dir, env_value);
    const char *from = dir == override_dir ? "the override"
                       : dir == env_value  ? CZK_PARAMS_ENV_VAR
                                           : "the default";
    size_t dl = strlen(dir);
    const char *sep = dl > 0 && dir[dl - 1] == '/' ? "" : "/";
    int n = snprintf(out, cap, "%s%s%s", dir, sep, name);
    if (n < 0 || (size_t)n >= cap) {
        if (cap > 0)
            out[0] = '\0';
        return czk_err_set(err, CZK_EINVAL, "parameter path needs %d bytes, %zu given", n + 1, cap);
    }
    struct stat st;
    if (stat(out, &st) != 0) {
        int e = errno;
        /* czk_err holds 256 bytes: the expected name (up to 151 bytes) goes first so that it is
         * always whole; the directory follows, and with it the path searched. */
        rc = czk_err_set(err, e == ENOENT || e == ENOTDIR ? CZK_ENOTFOUND : CZK_EIO,
                         "parameter file %s not in %s (directory from %s): %s", name, dir, from,
                         strerror(e));
    } else if (!S_ISREG(st.st_mode)) {
        rc = czk_err_set(err, CZK_EIO, "%s: not a regular file (expected parameter file %s)",
                         czk_file_msg_path(out), name);
    }
    if (rc != CZK_OK && cap > 0)
        out[0] = '\0';
    return rc;
}

/* ---- header check ----------------------------------------------------------------------- */

/* Positional: the counts in czk_params_expect's field order. */
void czk_params_expect_from_stats(czk_params_expect *out, const czk_cs_stats *stats) {
    *out = (czk_params_expect){stats->n_rows,        stats->n_inputs,        stats->n_aux,
                               stats->a_aux_density, stats->b_input_density, stats->b_aux_density};
}

/* czk_params_lengths in bellperson's vector order. */
static void lengths_to_array(uint64_t out[CZK_BELLPERSON_N_VECTORS], const czk_params_lengths *L) {
    out[CZK_BELLPERSON_IC] = L->ic;
    out[CZK_BELLPERSON_H] = L->h;
    out[CZK_BELLPERSON_L] = L->l;
    out[CZK_BELLPERSON_A] = L->a;
    out[CZK_BELLPERSON_B_G1] = L->b_g1;
    out[CZK_BELLPERSON_B_G2] = L->b_g2;
}

#define U32_LIMIT (1ull << 32)

int czk_params_expected(czk_params_lengths *lengths, uint64_t *params_size, uint64_t *vk_size,
                        const czk_params_expect *e, czk_err *err) {
    if (e->n_inputs == 0 || e->a_aux_density > e->n_aux || e->b_aux_density > e->n_aux ||
        e->b_input_density > e->n_inputs)
        return czk_err_set(err, CZK_EINVAL,
                           "impossible circuit counts: %llu inputs, %llu aux, densities A %llu, "
                           "B inputs %llu, B aux %llu",
                           (unsigned long long)e->n_inputs, (unsigned long long)e->n_aux,
                           (unsigned long long)e->a_aux_density,
                           (unsigned long long)e->b_input_density,
                           (unsigned long long)e->b_aux_density);
    /* Every count is below 2^32 once checked, so no sum or product below can overflow. */
    if (e->n_rows >= U32_LIMIT || e->n_inputs >= U32_LIMIT || e->n_aux >= U32_LIMIT)
        return czk_err_set(err, CZK_EINVAL, "circuit counts beyond the format's u32 lengths");
    uint64_t need = e->n_rows + e->n_inputs, n = 1;
    while (n < need)
        n <<= 1;
    czk_params_lengths L = {
        .ic = e->n_inputs,
        .h = n - 1,
        .l = e->n_aux,
        .a = e->n_inputs + e->a_aux_density,
        .b_g1 = e->b_input_density + e->b_aux_density,
        .b_g2 = e->b_input_density + e->b_aux_density,
    };
    if (L.h >= U32_LIMIT || L.a >= U32_LIMIT || L.b_g1 >= U32_LIMIT)
        return czk_err_set(err, CZK_EINVAL,
                           "circuit needs a vector of 2^32 or more points (domain %llu)",
                           (unsigned long long)n);
    uint64_t len[CZK_BELLPERSON_N_VECTORS];
    lengths_to_array(len, &L);
    if (lengths != NULL)
        *lengths = L;
    if (vk_size != NULL)
        *vk_size = czk_bellperson_file_size(len, 1);
    if (params_size != NULL)
        *params_size = czk_bellperson_file_size(len, CZK_BELLPERSON_N_VECTORS);
    return CZK_OK;
}

int czk_params_header_read(czk_params_lengths *lengths, uint64_t *size, const char *path,
                           czk_err *err) {
    uint64_t len[CZK_BELLPERSON_N_VECTORS];
    memset(lengths, 0, sizeof(*lengths));
    *size = 0;
    int rc =
        czk_bellperson_header_read(len, size, path, CZK_BELLPERSON_N_VECTORS, NULL, ".params", err);
    if (rc != CZK_OK)
        return rc;
    *lengths = (czk_params_lengths){.ic = len[CZK_BELLPERSON_IC],
                                    .h = len[CZK_BELLPERSON_H],
                                    .l = len[CZK_BELLPERSON_L],
                                    .a = len[CZK_BELLPERSON_A],
                                    .b_g1 = len[CZK_BELLPERSON_B_G1],
                                    .b_g2 = len[CZK_BELLPERSON_B_G2]};
    return CZK_OK;
}

/* Checks the first n_vectors lengths of `path` against those a circuit of `expect` needs. */
static int check_against(const char *path, int n_vectors, const char *kind,
                         const czk_params_expect *expect, czk_err *err) {
    czk_params_lengths want = {0};
    int rc = czk_params_expected(&want, NULL, NULL, expect, err);
    if (rc != CZK_OK)
        return rc;
    uint64_t w[CZK_BELLPERSON_N_VECTORS];
    lengths_to_array(w, &want);
    return czk_bellperson_header_read(NULL, NULL, path, n_vectors, w, kind, err);
}

int czk_params_header_check(const char *path, const czk_params_expect *expect, czk_err *err) {
    return check_against(path, CZK_BELLPERSON_N_VECTORS, ".params", expect, err);
}

int czk_params_vk_check(const char *path, const czk_params_expect *expect, czk_err *err) {
    return check_against(path, 1, ".vk", expect, err);
}
