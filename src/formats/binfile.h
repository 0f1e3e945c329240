/*
 * The iden3 "binfileutils" container shared by circom's .r1cs, .wtns and snarkjs's .zkey and
 * .ptau files (doc/FORMATS.md §4):
 *
 *     magic[4] ‖ version u32 ‖ nSections u32 ‖ nSections × (type u32 ‖ size u64 ‖ payload)
 *
 * all little-endian. Sections may come in any order, so readers index them by type. The
 * parser checks the whole table against the file size before anyone looks at a payload:
 * every section must fit in the file, sections must cover the file exactly (no trailing
 * bytes), and a type the caller knows may appear at most once. Types above the caller's
 * maximum (and type 0) are skipped: later format versions may add sections.
 *
 * Parsing does not copy: sections point into the caller's buffer, which must outlive them.
 * All functions are thread-safe for distinct objects and allocate nothing.
 */
#ifndef CZK_FORMATS_BINFILE_H
#define CZK_FORMATS_BINFILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/file.h"
#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The largest section type any czk reader indexes (zkey uses 1..10, ptau 1..15). */
#define CZK_BINFILE_MAX_TYPE 16

/* The fixed header: magic, version, section count. */
#define CZK_BINFILE_HEADER_BYTES 12
/* Each section's header: type u32 and size u64. */
#define CZK_BINFILE_SECTION_HEADER_BYTES 12

typedef struct czk_binfile_section {
    const uint8_t *data; /* payload, inside the file buffer */
    uint64_t size;       /* payload bytes */
    uint64_t offset;     /* payload offset in the file, for messages */
    int present;
} czk_binfile_section;

typedef struct czk_binfile {
    const char *name; /* the file's path, borrowed: every message starts with it */
    uint32_t version;
    uint32_t n_sections;
    uint32_t max_type;
    czk_binfile_section sec[CZK_BINFILE_MAX_TYPE + 1]; /* sec[t] for types 1..max_type */
} czk_binfile;

/*
 * Parses the container in data[0..len).
 * In: name (for messages; borrowed, must outlive bf), magic (4 bytes), version (the only one
 * accepted), max_type (<= CZK_BINFILE_MAX_TYPE: types 1..max_type are indexed).
 * Out: bf. Returns CZK_OK, CZK_EFORMAT (bad magic, short header, a section that runs past
 * the end, a duplicate known section, trailing bytes), CZK_EUNSUPPORTED (another version) or
 * CZK_EINVAL (max_type too large).
 */
int czk_binfile_parse(czk_binfile *bf, const uint8_t *data, size_t len, const char *name,
                      const char magic[4], uint32_t version, uint32_t max_type, czk_err *err);

/*
 * Looks up section `type`, which must be present. When `size` is not UINT64_MAX the section
 * must have exactly that many bytes; `what` describes the expected size in the message
 * (e.g. "nVars*96"). Out: *sec. Returns CZK_OK or CZK_EFORMAT ("f.zkey: section 5 missing",
 * "f.zkey: section 9 size 1234 != domainSize*96 (768)").
 */
int czk_binfile_section_get(const czk_binfile *bf, uint32_t type, uint64_t size, const char *what,
                            const czk_binfile_section **sec, czk_err *err);

/* Writes the container header. Returns CZK_OK or CZK_EIO. */
int czk_binfile_write_header(czk_file_writer *w, const char magic[4], uint32_t version,
                             uint32_t n_sections, czk_err *err);

/* Writes one section header; exactly `size` payload bytes must follow. */
int czk_binfile_write_section_header(czk_file_writer *w, uint32_t type, uint64_t size,
                                     czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_FORMATS_BINFILE_H */
