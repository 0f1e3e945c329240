/*
 * czk snap: Filecoin SnapDeals (sector update) proofs without a daemon. A directory holds what
 * Curio hands a prover: `vanilla_proofs.json`, the vanilla partition proofs as Curio keeps them
 * (Go's json.Marshal of [][]byte: a JSON list of base64 strings, one bincode PartitionProof per
 * partition, in order), and `public.json`, the public data:
 *   {"registered_proof": 0, "sector_size": 2048, "comm_r_old": HEX, "comm_r_new": HEX,
 *    "comm_d_new": HEX, "h": 1, "miner_id": 1000, "sector_number": 7}
 * where HEX is the 32 raw bytes of the commitment (as Curio passes them to the prover) in 64
 * hex digits. `prove` proves every partition in process, `verify` checks a proof against
 * public.json alone, `gen` seals a 2 KiB or 8 MiB committed-capacity sector and writes an update
 * of it, or with --virtual an update of any size (filecoin/testgen/snap_gen.h).
 */
#include "cli/cli.h"

#include "filecoin/io/c1.h"
#include "filecoin/io/params.h"
#include "filecoin/snap/snap.h"
#include "filecoin/snap/snap_vanilla.h"
#include "filecoin/spec/porep_types.h"
#include "filecoin/testgen/seal.h"
#include "filecoin/testgen/snap_gen.h"
#include "formats/bellperson.h"
#include "groth16/verify.h"
#include "kinds/kinds.h"
#include "util/alloc.h"
#include "util/file.h"
#include "util/timer.h"

#include <ctype.h>
#include <json-c/json.h>
#include <openssl/evp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *USAGE =
    "usage: czk snap gen SIZE --out DIR [--virtual] [--miner-id M] [--sector-id S] [--seed S]\n"
    "       czk snap prove DIR --out PROOF [--params KEYS] [--backend auto|cpu|cuda]\n"
    "                      [--devices 0,1] [--threads N]\n"
    "       czk snap verify DIR PROOF [--params KEYS]\n"
    "\n"
    "Filecoin SnapDeals (empty sector update) proofs. DIR holds vanilla_proofs.json (Curio's\n"
    "vanilla proofs: a JSON list of base64 strings, one bincode PartitionProof per partition)\n"
    "and public.json (registered_proof: the abi RegisteredUpdateProof, 0 = 2KiB .. 4 = 64GiB;\n"
    "comm_r_old, comm_r_new, comm_d_new: 32 bytes each in hex; h; miner_id; sector_number).\n"
    "\n"
    "  gen     writes DIR for an update of a 2 KiB or 8 MiB committed-capacity sector that\n"
    "          czk seals first (its comm_r is comm_r_old) with random new data (test data);\n"
    "          --virtual: of a sector of any size whose data repeat every 2^12 nodes, every\n"
    "          partition's proof (benchmarks; 32 GiB takes some seconds).\n"
    "  prove   checks every vanilla proof against the commitments, proves every partition\n"
    "          and writes their 192-byte proofs, concatenated, once they verify.\n"
    "  verify  exit 0 when PROOF is valid for public.json's commitments, 1 when not.\n"
    "\n"
    "Keys are the v28 update files in --params KEYS, else $FIL_PROOFS_PARAMETER_CACHE, else\n"
    "/var/tmp/filecoin-proof-parameters (`czk setup --filecoin snap SIZE` makes development\n"
    "keys).\n";

#define VANILLA_FILE "vanilla_proofs.json"
#define PUBLIC_FILE "public.json"
#define MAX_PARTS CZK_CLI_SNAP_MAX_PARTS

typedef struct snap_args {
    const char *pos[2];
    int npos;
    const char *out, *params;
    unsigned long long miner_id, sector_id;
    int virt; /* gen --virtual */
} snap_args;

/* The public data of public.json. */
typedef struct snap_public_file {
    uint64_t registered_proof, sector_size, h, miner_id, sector_number;
    int have_size, have_h;
    uint8_t comm[3][32]; /* comm_r_old, comm_r_new, comm_d_new */
} snap_public_file;

static const char *const COMM_NAMES[3] = {"comm_r_old", "comm_r_new", "comm_d_new"};

/* ---- the two files: json-c for the JSON, OpenSSL for base64 ---------------------------------- */

/* Standard base64 with padding of in[0..n) into out (4·⌈n/3⌉ characters and a NUL). */
static void b64_encode(char *out, const uint8_t *in, size_t n) {
    EVP_EncodeBlock((unsigned char *)out, in, (int)n);
}

/* Strict standard base64 with padding (Go's StdEncoding, as encoding/json writes []byte) of
 * s[0..n) into a czk_malloc'ed *out. Returns the byte count, or -1. */
static long b64_decode(uint8_t **out, const char *s, size_t n) {
    *out = NULL;
    if (n % 4 != 0 || n > (1u << 30))
        return -1;
    for (size_t i = 0; i < n; i++) /* EVP_DecodeBlock skips blanks; Go never writes them */
        if (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')
            return -1;
    size_t pad = n >= 1 && s[n - 1] == '=' ? (n >= 2 && s[n - 2] == '=' ? 2 : 1) : 0;
    *out = czk_malloc(n / 4 * 3 + 1);
    if (*out == NULL)
        return -1;
    int got = n == 0 ? 0 : EVP_DecodeBlock(*out, (const unsigned char *)s, (int)n);
    if (got < 0 || (size_t)got != n / 4 * 3) {
        czk_free(*out);
        *out = NULL;
        return -1;
    }
    return (long)((size_t)got - pad);
}

static void hex_encode(char out[65], const uint8_t in[32]) {
    for (int i = 0; i < 32; i++)
        snprintf(out + 2 * i, 3, "%02x", in[i]);
}

static int hex_decode(uint8_t out[32], const char *s) {
    if (strlen(s) != 64)
        return -1;
    for (int i = 0; i < 32; i++) {
        unsigned v;
        if (!isxdigit((unsigned char)s[2 * i]) || !isxdigit((unsigned char)s[2 * i + 1]) ||
            sscanf(s + 2 * i, "%2x", &v) != 1)
            return -1;
        out[i] = (uint8_t)v;
    }
    return 0;
}

/* DIR/NAME parsed as one strict JSON value (json_object_put it), or NULL after printing why. */
static json_object *read_json(const char *cmd, const char *dir, const char *name, char *path,
                              size_t cap) {
    snprintf(path, cap, "%s/%s", dir, name);
    uint8_t *text = NULL;
    size_t len = 0;
    czk_err err = {0};
    int rc = czk_file_read_all(&text, &len, path, &err);
    if (rc != CZK_OK) {
        czk_cli_fail(cmd, rc, &err);
        return NULL;
    }
    json_object *root = NULL;
    json_tokener *tok = len <= INT32_MAX ? json_tokener_new() : NULL;
    if (tok != NULL) {
        json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
        root = json_tokener_parse_ex(tok, (const char *)text, (int)len);
        size_t used = json_tokener_get_parse_end(tok);
        while (root != NULL && used < len && strchr(" \t\r\n", text[used]) != NULL)
            used++;
        if (root == NULL || used != len) {
            enum json_tokener_error je = json_tokener_get_error(tok);
            fprintf(stderr, "czk %s: %s: not one JSON value (%s, at byte %zu)\n", cmd,
                    czk_file_msg_path(path),
                    je == json_tokener_continue  ? "the text ends inside it"
                    : je == json_tokener_success ? "text after it"
                                                 : json_tokener_error_desc(je),
                    used);
            json_object_put(root);
            root = NULL;
        }
        json_tokener_free(tok);
    } else {
        fprintf(stderr, "czk %s: %s: too large or out of memory\n", cmd, czk_file_msg_path(path));
    }
    czk_free(text);
    return root;
}

/* Reads DIR/vanilla_proofs.json: bufs[0..*n) (czk_malloc'ed each), lens. Returns 0 or -1 after
 * printing why. */
static int read_vanilla(uint8_t **bufs, size_t *lens, size_t *n, const char *cmd, const char *dir) {
    char path[4096];
    *n = 0;
    json_object *root = read_json(cmd, dir, VANILLA_FILE, path, sizeof path);
    if (root == NULL)
        return -1;
    char what[128] = "";
    if (!json_object_is_type(root, json_type_array))
        snprintf(what, sizeof what, "not a JSON list");
    else if (json_object_array_length(root) > MAX_PARTS)
        snprintf(what, sizeof what, "%zu vanilla proofs, more than the %d partitions an update has",
                 json_object_array_length(root), MAX_PARTS);
    for (size_t i = 0; what[0] == '\0' && i < json_object_array_length(root); i++) {
        json_object *v = json_object_array_get_idx(root, i);
        long got = -1;
        if (json_object_is_type(v, json_type_string))
            got = b64_decode(&bufs[i], json_object_get_string(v),
                             (size_t)json_object_get_string_len(v));
        if (got < 0)
            snprintf(what, sizeof what, "item %zu is not a standard base64 string", i);
        else
            lens[(*n)++] = (size_t)got;
    }
    if (what[0] != '\0') {
        fprintf(stderr, "czk %s: %s: %s (Go's [][]byte JSON: a list of base64 strings)\n", cmd,
                czk_file_msg_path(path), what);
        for (size_t i = 0; i < *n; i++)
            czk_free(bufs[i]);
        *n = 0;
    }
    json_object_put(root);
    return what[0] == '\0' ? 0 : -1;
}

/* Reads DIR/public.json. Returns 0 or -1 after printing why. */
static int read_public(snap_public_file *out, const char *cmd, const char *dir) {
    char path[4096];
    memset(out, 0, sizeof *out);
    json_object *root = read_json(cmd, dir, PUBLIC_FILE, path, sizeof path);
    if (root == NULL)
        return -1;
    char what[160] = "";
    int have_reg = 0, have_comm[3] = {0, 0, 0};
    if (!json_object_is_type(root, json_type_object))
        snprintf(what, sizeof what, "not a JSON object");
    else {
        json_object_object_foreach(root, key, v) {
            if (what[0] != '\0')
                break;
            int ci = -1;
            for (int i = 0; i < 3; i++)
                if (strcmp(key, COMM_NAMES[i]) == 0)
                    ci = i;
            if (ci >= 0) {
                if (!json_object_is_type(v, json_type_string) ||
                    hex_decode(out->comm[ci], json_object_get_string(v)) != 0)
                    snprintf(what, sizeof what, "%s is not 64 hex digits (32 bytes)", key);
                have_comm[ci] = 1;
                continue;
            }
            if (!json_object_is_type(v, json_type_int) || json_object_get_int64(v) < 0) {
                snprintf(what, sizeof what, "\"%.40s\" is not a whole number", key);
                break;
            }
            uint64_t u = json_object_get_uint64(v);
            if (strcmp(key, "registered_proof") == 0)
                out->registered_proof = u, have_reg = 1;
            else if (strcmp(key, "sector_size") == 0)
                out->sector_size = u, out->have_size = 1;
            else if (strcmp(key, "h") == 0)
                out->h = u, out->have_h = 1;
            else if (strcmp(key, "miner_id") == 0)
                out->miner_id = u;
            else if (strcmp(key, "sector_number") == 0)
                out->sector_number = u;
            else
                snprintf(what, sizeof what, "unknown key \"%.40s\"", key);
        }
    }
    for (int i = 0; what[0] == '\0' && i < 3; i++)
        if (!have_comm[i])
            snprintf(what, sizeof what, "%s is missing", COMM_NAMES[i]);
    if (what[0] == '\0' && !have_reg)
        snprintf(what, sizeof what, "registered_proof is missing");
    json_object_put(root);
    if (what[0] != '\0') {
        fprintf(stderr, "czk %s: %s: %s\n", cmd, czk_file_msg_path(path), what);
        return -1;
    }
    return 0;
}

int czk_cli_snap_read(czk_cli_snap_inputs *in, const char *cmd, const char *dir) {
    memset(in, 0, sizeof *in);
    snap_public_file pf;
    if (read_public(&pf, cmd, dir) != 0 || read_vanilla(in->vproofs, in->lens, &in->n, cmd, dir))
        return -1;
    in->registered_proof = pf.registered_proof;
    in->sector_size = pf.sector_size;
    in->miner_id = pf.miner_id;
    in->sector_number = pf.sector_number;
    memcpy(in->comm_r_old, pf.comm[0], 32);
    memcpy(in->comm_r_new, pf.comm[1], 32);
    memcpy(in->comm_d_new, pf.comm[2], 32);
    return 0;
}

void czk_cli_snap_clear(czk_cli_snap_inputs *in) {
    for (size_t i = 0; i < in->n; i++)
        czk_free(in->vproofs[i]);
    memset(in, 0, sizeof *in);
}

/* The shape of public.json's registered proof, checked against its sector_size and h. Returns
 * 0 or -1 after printing why. */
static int public_shape(czk_snap_shape *shape, const snap_public_file *pf, const char *cmd) {
    czk_err err = {0};
    uint64_t size = 0;
    int rc = czk_kinds_snap_sector_size(&size, pf->registered_proof, &err);
    if (rc == CZK_OK)
        rc = czk_snap_shape_init(shape, size, &err);
    if (rc != CZK_OK) {
        czk_cli_fail(cmd, rc, &err);
        return -1;
    }
    if (pf->have_size && pf->sector_size != size) {
        fprintf(stderr, "czk %s: sector_size %llu is not registered_proof %llu's (%llu)\n", cmd,
                (unsigned long long)pf->sector_size, (unsigned long long)pf->registered_proof,
                (unsigned long long)size);
        return -1;
    }
    if (pf->have_h && pf->h != shape->hs[3]) {
        fprintf(stderr,
                "czk %s: h %llu is not h_default (%u), which filecoin-proofs proves updates "
                "with\n",
                cmd, (unsigned long long)pf->h, shape->hs[3]);
        return -1;
    }
    return 0;
}

/* ---- gen ------------------------------------------------------------------------------------ */

static int snap_gen(const czk_cli_common *c, const snap_args *a) {
    const char *cmd = "snap gen";
    if (a->npos != 1 || a->out == NULL) {
        fprintf(stderr, "czk snap gen: wants SIZE --out DIR\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    int si = czk_vanilla_size_index_by_name(a->pos[0]);
    if (si < 0) {
        fprintf(stderr, "czk snap gen: unknown sector size '%s' (2KiB .. 64GiB)\n", a->pos[0]);
        return CZK_EXIT_ERROR;
    }
    int exit_code = CZK_EXIT_ERROR, rc;
    czk_err err = {0};
    czk_snap_shape sh;
    czk_snap_public pub;
    czk_snap_partition_proof vp[MAX_PARTS];
    memset(vp, 0, sizeof vp);
    czk_seal_replica rep = {0};
    czk_rng rng;
    uint8_t *bin = NULL;
    char *text = NULL;
    if ((rc = czk_snap_shape_init(&sh, czk_vanilla_sizes[si], &err)) != CZK_OK) {
        exit_code = czk_cli_fail(cmd, rc, &err);
        goto out;
    }
    if (!a->virt && sh.nodes > CZK_SNAP_GEN_MAX_NODES) {
        fprintf(stderr,
                "czk snap gen: a sealed sector is updated in memory, up to %u nodes: 2KiB or "
                "8MiB (--virtual makes an update of any size)\n",
                CZK_SNAP_GEN_MAX_NODES);
        goto out;
    }
    if (czk_cli_rng(&rng, c, cmd) != 0)
        goto out;
    uint32_t h = sh.hs[3]; /* h_default, what filecoin-proofs' update API proves with */
    /* A virtual update's period: 2^12 nodes, or the largest power of 8 within a rho bin. */
    uint32_t lg_bin = sh.challenge_bit_len - h, lg_period = lg_bin < 12 ? lg_bin / 3 * 3 : 12;
    uint64_t t0 = czk_time_ns();
    if (a->virt) {
        rc = czk_snap_gen_virtual(&pub, vp, &sh, h, lg_period, &rng, &err);
    } else {
        /* An empty sector update proper: czk's sealer makes a committed-capacity sector of
         * StackedDrg<size>V1_1 for the miner and sector, and its replica is updated with
         * random data, so comm_r_old is that sector's comm_r. */
        const czk_porep_type *ty = czk_porep_type_from_abi(5 + (uint64_t)si, &err);
        uint8_t prover[32], ticket[32], seed[32];
        czk_vanilla_prover_id(prover, a->miner_id);
        czk_rng_bytes(&rng, ticket, sizeof ticket);
        czk_rng_bytes(&rng, seed, sizeof seed);
        czk_c1 c1;
        rc = ty == NULL ? CZK_EUNSUPPORTED
                        : czk_seal_small_replica(&c1, &rep, ty, NULL, prover, a->sector_id, ticket,
                                                 seed, &err);
        if (rc == CZK_OK) {
            czk_c1_clear(&c1);
            rc = czk_snap_gen_sealed(&pub, vp, &sh, h, rep.nodes, rep.n, &rep.comm_c, &rng, &err);
        }
    }
    if (rc != CZK_OK) {
        exit_code = czk_cli_fail(cmd, rc, &err);
        goto out;
    }
    double gen_s = (double)(czk_time_ns() - t0) / 1e9;
    size_t one = czk_snap_partition_proof_encoded_size(&sh), len = 0;
    size_t tcap = sh.partitions * ((one + 2) / 3 * 4 + 4) + 512;
    if ((bin = czk_malloc(one)) == NULL || (text = czk_malloc(tcap)) == NULL) {
        exit_code = czk_cli_fail(cmd, CZK_ENOMEM, NULL);
        goto out;
    }
    /* Go's json.Marshal of [][]byte: a list of base64 strings, one per partition. */
    size_t o = 0;
    text[o++] = '[';
    for (uint32_t k = 0; k < sh.partitions; k++) {
        if ((rc = czk_snap_partition_proof_encode(bin, one, &len, &vp[k], &sh, &err)) != CZK_OK) {
            exit_code = czk_cli_fail(cmd, rc, &err);
            goto out;
        }
        if (k > 0)
            text[o++] = ',';
        text[o++] = '"';
        b64_encode(text + o, bin, len);
        o += strlen(text + o);
        text[o++] = '"';
    }
    text[o++] = ']';
    text[o++] = '\n';
    if (czk_cli_make_dir(cmd, a->out) != 0)
        goto out;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", a->out, VANILLA_FILE);
    if ((rc = czk_file_write_atomic(path, text, o, &err)) != CZK_OK) {
        exit_code = czk_cli_fail(cmd, rc, &err);
        goto out;
    }
    char hx[3][65];
    hex_encode(hx[0], pub.comm_r_old);
    hex_encode(hx[1], pub.comm_r_new);
    hex_encode(hx[2], pub.comm_d_new);
    int n = snprintf(text, tcap,
                     "{\"registered_proof\": %d, \"sector_size\": %llu, \"comm_r_old\": \"%s\", "
                     "\"comm_r_new\": \"%s\", \"comm_d_new\": \"%s\", \"h\": %u, \"miner_id\": "
                     "%llu, \"sector_number\": %llu}\n",
                     si, (unsigned long long)sh.sector_size, hx[0], hx[1], hx[2], pub.h,
                     a->miner_id, a->sector_id);
    snprintf(path, sizeof path, "%s/%s", a->out, PUBLIC_FILE);
    if ((rc = czk_file_write_atomic(path, text, (size_t)n, &err)) != CZK_OK) {
        exit_code = czk_cli_fail(cmd, rc, &err);
        goto out;
    }
    if (a->virt)
        printf("wrote %s: a virtual %s update (data repeating every 2^%u nodes), %u "
               "partition(s) of %zu-byte vanilla proofs, h = %u, made in %.1f s\n",
               a->out, czk_vanilla_size_names[si], lg_period, sh.partitions, len, pub.h, gen_s);
    else
        printf("wrote %s: an update of a %s committed-capacity sector czk sealed (miner %llu "
               "sector %llu), %u partition(s) of %zu-byte vanilla proofs, h = %u, made in %.1f s\n",
               a->out, czk_vanilla_size_names[si], a->miner_id, a->sector_id, sh.partitions, len,
               pub.h, gen_s);
    exit_code = CZK_EXIT_OK;
out:
    for (uint32_t k = 0; k < MAX_PARTS; k++)
        czk_snap_partition_proof_clear(&vp[k]);
    czk_seal_replica_clear(&rep);
    czk_free(bin);
    czk_free(text);
    return exit_code;
}

/* ---- prove ---------------------------------------------------------------------------------- */

static int snap_prove(const czk_cli_common *c, const snap_args *a) {
    const char *cmd = "snap prove";
    if (a->npos != 1 || a->out == NULL) {
        fprintf(stderr, "czk snap prove: wants DIR --out PROOF\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    int exit_code = CZK_EXIT_ERROR, rc;
    snap_public_file pf;
    czk_snap_shape sh;
    uint8_t *bufs[MAX_PARTS] = {0}, *payload = NULL;
    size_t lens[MAX_PARTS], n = 0;
    czk_engine *e = NULL;
    czk_job_result res;
    memset(&res, 0, sizeof res);
    czk_err err = {0};
    if (read_public(&pf, cmd, a->pos[0]) != 0 || public_shape(&sh, &pf, cmd) != 0 ||
        read_vanilla(bufs, lens, &n, cmd, a->pos[0]) != 0)
        goto out;
    char circuit[64];
    if ((rc = czk_kinds_snap_circuit_id(circuit, sizeof circuit, pf.registered_proof, &err)) !=
        CZK_OK) {
        exit_code = czk_cli_fail(cmd, rc, &err);
        goto out;
    }
    char what[128];
    snprintf(what, sizeof what, "%s proof (%u partition(s))", circuit, sh.partitions);
    size_t plen = czk_kinds_snap_payload_size(lens, n);
    if (plen == 0 || (payload = czk_malloc(plen)) == NULL) {
        exit_code = czk_cli_fail(cmd, CZK_ENOMEM, NULL);
        goto out;
    }
    czk_kinds_snap_payload_encode(payload, (uint32_t)pf.registered_proof, pf.miner_id,
                                  pf.sector_number, pf.comm[0], pf.comm[1], pf.comm[2],
                                  (const uint8_t *const *)bufs, lens, n);
    czk_engine_config cfg;
    czk_cli_engine_config(&cfg, c);
    cfg.synth_threads = 0;
    cfg.workers_per_device = 2;
    const czk_cli_inproc p = {cmd, a->pos[0], a->out, a->params, what, CZK_CLI_INPROC_SNAP};
    if ((exit_code = czk_cli_inproc_prove(&e, &cfg, &p, sh.sector_size, circuit, sh.partitions,
                                          payload, plen, &res)) != 0)
        goto out;
    exit_code = CZK_EXIT_OK;
out:
    czk_engine_destroy(e);
    czk_job_result_clear(&res);
    for (size_t i = 0; i < n; i++)
        czk_free(bufs[i]);
    czk_free(payload);
    return exit_code;
}

/* ---- verify --------------------------------------------------------------------------------- */

static int snap_verify(const snap_args *a) {
    const char *cmd = "snap verify";
    if (a->npos != 2 || a->out != NULL) {
        fprintf(stderr, "czk snap verify: wants DIR PROOF\n%s", USAGE);
        return CZK_EXIT_ERROR;
    }
    snap_public_file pf;
    czk_snap_shape sh;
    if (read_public(&pf, cmd, a->pos[0]) != 0 || public_shape(&sh, &pf, cmd) != 0)
        return CZK_EXIT_ERROR;
    czk_filecoin_public fp = {.kind = CZK_FILECOIN_SNAP, .registered_proof = pf.registered_proof};
    memcpy(fp.comm_r_old, pf.comm[0], 32);
    memcpy(fp.comm_r_new, pf.comm[1], 32);
    memcpy(fp.comm_d_new, pf.comm[2], 32);
    return czk_cli_verify_filecoin(cmd, &fp, a->params, a->pos[1]);
}

/* ---- dispatch ------------------------------------------------------------------------------- */

static int parse(snap_args *a, const char *cmd, int argc, char **argv) {
    memset(a, 0, sizeof *a);
    a->miner_id = 1000;
    a->sector_id = 7;
    const czk_cli_opt opts[] = {
        {.name = "--virtual", .kind = CZK_CLI_OPT_FLAG, .dest = &a->virt},
        {.name = "--out", .kind = CZK_CLI_OPT_STRING, .dest = &a->out},
        {.name = "--params", .kind = CZK_CLI_OPT_STRING, .dest = &a->params},
        {.name = "--miner-id", .kind = CZK_CLI_OPT_U64, .dest = &a->miner_id},
        {.name = "--sector-id", .kind = CZK_CLI_OPT_U64, .dest = &a->sector_id},
    };
    const czk_cli_opts how = {cmd, USAGE, CZK_CLI_OPTS_UNKNOWN_OPTION};
    a->npos = czk_cli_opts_parse(&how, opts, CZK_CLI_OPTS_N(opts), a->pos,
                                 (int)CZK_CLI_OPTS_N(a->pos), argc, argv);
    return a->npos < 0 ? -1 : 0;
}

int czk_cli_snap(int argc, char **argv) {
    if (argc < 1 || strcmp(argv[0], "--help") == 0 || strcmp(argv[0], "-h") == 0) {
        fputs(USAGE, argc < 1 ? stderr : stdout);
        return argc < 1 ? CZK_EXIT_ERROR : CZK_EXIT_OK;
    }
    const char *sub = argv[0];
    if (strcmp(sub, "gen") != 0 && strcmp(sub, "prove") != 0 && strcmp(sub, "verify") != 0) {
        fprintf(stderr, "czk snap: unknown subcommand '%s' (gen, prove or verify)\n%s", sub, USAGE);
        return CZK_EXIT_ERROR;
    }
    argc--;
    argv++;
    char cmd[16];
    snprintf(cmd, sizeof cmd, "snap %s", sub);
    czk_cli_common c = {0};
    int r = czk_cli_start(&c, cmd, USAGE, &argc, argv);
    if (r >= 0)
        return r;
    snap_args a;
    if (parse(&a, cmd, argc, argv) != 0)
        return CZK_EXIT_ERROR;
    if (strcmp(sub, "gen") == 0)
        return snap_gen(&c, &a);
    return strcmp(sub, "prove") == 0 ? snap_prove(&c, &a) : snap_verify(&a);
}
