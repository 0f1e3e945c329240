#include "formats/binfile.h"

#include "util/bytes.h"

#include <string.h>

/* Prints a 4-byte magic safely (the bytes come from an untrusted file). */
static void magic_text(char out[17], const uint8_t *m) {
    size_t o = 0;
    for (int i = 0; i < 4; i++) {
        if (m[i] >= 0x20 && m[i] < 0x7f && m[i] != '\\') {
            out[o++] = (char)m[i];
        } else {
            static const char hex[] = "0123456789abcdef";
            out[o++] = '\\';
            out[o++] = 'x';
            out[o++] = hex[m[i] >> 4];
            out[o++] = hex[m[i] & 15];
        }
    }
    out[o] = 0;
}

int czk_binfile_parse(czk_binfile *bf, const uint8_t *data, size_t len, const char *name,
                      const char magic[4], uint32_t version, uint32_t max_type, czk_err *err) {
    memset(bf, 0, sizeof(*bf));
    bf->name = name;
    if (max_type > CZK_BINFILE_MAX_TYPE)
        return czk_err_set(err, CZK_EINVAL, "%s: max section type %u > %u", name, max_type,
                           CZK_BINFILE_MAX_TYPE);
    bf->max_type = max_type;
    if (len < CZK_BINFILE_HEADER_BYTES)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: %zu bytes, shorter than the 12-byte header (truncated?)", name,
                           len);
    if (memcmp(data, magic, 4) != 0) {
        char got[17], want[17];
        magic_text(got, data);
        magic_text(want, (const uint8_t *)magic);
        return czk_err_set(err, CZK_EFORMAT, "%s: magic \"%s\", expected \"%s\"", name, got, want);
    }
    bf->version = czk_bytes_load_le32(data + 4);
    if (bf->version != version)
        return czk_err_set(err, CZK_EUNSUPPORTED, "%s: version %u, only version %u is supported",
                           name, bf->version, version);
    bf->n_sections = czk_bytes_load_le32(data + 8);
    /* Cheap early bound: each section needs at least its 12-byte header. */
    if (bf->n_sections > (len - CZK_BINFILE_HEADER_BYTES) / CZK_BINFILE_SECTION_HEADER_BYTES)
        return czk_err_set(err, CZK_EFORMAT,
                           "%s: %u sections cannot fit in %zu bytes (truncated or corrupt)", name,
                           bf->n_sections, len);
    size_t pos = CZK_BINFILE_HEADER_BYTES;
    for (uint32_t i = 0; i < bf->n_sections; i++) {
        if (len - pos < CZK_BINFILE_SECTION_HEADER_BYTES)
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: header of section #%u at offset %zu runs past the end (%zu "
                               "bytes; truncated?)",
                               name, i, pos, len);
        uint32_t type = czk_bytes_load_le32(data + pos);
        uint64_t size = czk_bytes_load_le64(data + pos + 4);
        pos += CZK_BINFILE_SECTION_HEADER_BYTES;
        /* Compare against what is left, never pos + size: size is attacker-chosen. */
        if (size > (uint64_t)(len - pos))
            return czk_err_set(err, CZK_EFORMAT,
                               "%s: section %u at offset %zu has size %llu but only %zu bytes "
                               "remain (truncated or corrupt)",
                               name, type, pos, (unsigned long long)size, len - pos);
        if (type >= 1 && type <= max_type) {
            czk_binfile_section *s = &bf->sec[type];
            if (s->present)
                return czk_err_set(err, CZK_EFORMAT,
                                   "%s: section %u appears twice (offsets %llu and %zu)", name,
                                   type, (unsigned long long)s->offset, pos);
            s->present = 1;
            s->data = data + pos;
            s->size = size;
            s->offset = pos;
        }
        pos += (size_t)size;
    }
    if (pos != len)
        return czk_err_set(err, CZK_EFORMAT, "%s: %zu trailing bytes after the last of %u sections",
                           name, len - pos, bf->n_sections);
    return CZK_OK;
}

int czk_binfile_section_get(const czk_binfile *bf, uint32_t type, uint64_t size, const char *what,
                            const czk_binfile_section **sec, czk_err *err) {
    *sec = NULL;
    if (type < 1 || type > bf->max_type || !bf->sec[type].present)
        return czk_err_set(err, CZK_EFORMAT, "%s: section %u missing", bf->name, type);
    const czk_binfile_section *s = &bf->sec[type];
    if (size != UINT64_MAX && s->size != size)
        return czk_err_set(err, CZK_EFORMAT, "%s: section %u size %llu != %s (%llu)", bf->name,
                           type, (unsigned long long)s->size, what != NULL ? what : "expected",
                           (unsigned long long)size);
    *sec = s;
    return CZK_OK;
}

int czk_binfile_write_header(czk_file_writer *w, const char magic[4], uint32_t version,
                             uint32_t n_sections, czk_err *err) {
    int rc = czk_file_writer_write(w, magic, 4, err);
    if (rc == CZK_OK)
        rc = czk_file_writer_u32(w, version, err);
    if (rc == CZK_OK)
        rc = czk_file_writer_u32(w, n_sections, err);
    return rc;
}

int czk_binfile_write_section_header(czk_file_writer *w, uint32_t type, uint64_t size,
                                     czk_err *err) {
    int rc = czk_file_writer_u32(w, type, err);
    if (rc == CZK_OK)
        rc = czk_file_writer_u64(w, size, err);
    return rc;
}
