/*
 * Whole-file input and atomic output, for every layer that reads or writes files (r1cs's own
 * file, the format readers and writers).
 *
 * Readers map a file read-only (czk_file_map) or read it into memory (czk_file_read_all) and
 * parse the bytes in place, checking every length against the file size before they trust it.
 * Writers never leave a half-written file under the final name: they write a temporary file
 * in the same directory, flush it to disk, rename it over the target and sync the directory
 * (czk_file_writer, czk_file_write_atomic), so a crash or an error leaves either the old file
 * or the new one.
 *
 * Every error message starts with the path (its last 96 bytes, see czk_file_msg_path) and
 * names the fault. Functions are thread-safe for distinct objects.
 */
#ifndef CZK_UTIL_FILE_H
#define CZK_UTIL_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "util/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A read-only view of a whole file. */
typedef struct czk_file_mapping {
    const uint8_t *data; /* file contents; NULL when len == 0 */
    size_t len;          /* file size in bytes */
    void *base;          /* the mmap'ed region, or NULL */
    size_t map_len;
} czk_file_mapping;

/*
 * Maps the regular file `path` read-only.
 * Out: map (release with czk_file_unmap). An empty file gives data = NULL, len = 0.
 * Returns CZK_OK, CZK_EIO (cannot open or map; not a regular file) or CZK_ENOMEM.
 * The file must not be truncated while it is mapped (that would fault on access).
 */
int czk_file_map(czk_file_mapping *map, const char *path, czk_err *err);

/* Unmaps and zeroes `map`; a zeroed map and NULL are no-ops. */
void czk_file_unmap(czk_file_mapping *map);

/*
 * Advises the kernel that `map` will be read once, roughly front to back (more readahead,
 * pages dropped early). Advice only: nothing changes if the kernel ignores it. A zeroed map
 * is a no-op.
 */
void czk_file_map_advise_sequential(const czk_file_mapping *map);

/*
 * The pages of a mapping that lie wholly inside [p, p + len) leave the process's resident set
 * (a reader done with them: a 47 GB key read through its mapping otherwise counts the file's
 * pages in the resident set beside the decoded copy, twice the key). A later read maps them
 * again from the file, so dropping pages still in use costs time, never data. Advice only.
 * [p, p + len) must lie in a mapping czk_file_map made: on other memory (anonymous pages)
 * the same call would discard what they hold.
 */
void czk_file_map_drop(const void *p, size_t len);

/*
 * The part of `path` to put at the start of an error message: the whole path, or its last 96
 * bytes when it is longer, so that the fault after it still fits in czk_err's message.
 * Returns a pointer into `path`.
 */
const char *czk_file_msg_path(const char *path);

/*
 * Reads the regular file `path` into memory.
 * Out: *data, czk_malloc'ed, len + 1 bytes with a NUL after the contents (so text parsers
 * may treat it as a C string), owned by the caller (czk_free); *len, the file size.
 * Returns CZK_OK, CZK_EIO or CZK_ENOMEM; on error *data is NULL and *len is 0.
 */
int czk_file_read_all(uint8_t **data, size_t *len, const char *path, czk_err *err);

/* A file being written under a temporary name next to its final path. */
typedef struct czk_file_writer {
    int fd;          /* -1 when closed */
    char *path;      /* final path (czk_malloc'ed) */
    char *tmp_path;  /* temporary path (czk_malloc'ed) */
    uint8_t *buf;    /* write buffer (czk_malloc'ed) */
    size_t buf_used; /* bytes waiting in buf */
    uint64_t size;   /* bytes appended so far (written or waiting in buf) */
    int failed;      /* a write failed: commit refuses */
} czk_file_writer;

/*
 * Creates a temporary file next to `path` (same directory, so the final rename is atomic).
 * Out: w. Every successful open must end in czk_file_writer_commit or czk_file_writer_abort.
 * Returns CZK_OK, CZK_EIO or CZK_ENOMEM; on error nothing is left on disk.
 */
int czk_file_writer_open(czk_file_writer *w, const char *path, czk_err *err);

/* Appends len bytes (buffered; a write of a buffer's size or more goes straight to the file).
 * Returns CZK_OK or CZK_EIO; after an error, commit fails. */
int czk_file_writer_write(czk_file_writer *w, const void *data, size_t len, czk_err *err);

/* Appends a little-endian u32 / u64. */
int czk_file_writer_u32(czk_file_writer *w, uint32_t v, czk_err *err);
int czk_file_writer_u64(czk_file_writer *w, uint64_t v, czk_err *err);

/*
 * Overwrites len bytes at `offset` of what has been appended already (a header whose
 * checksum is known only at the end), which must lie wholly within it: the file does not
 * grow. Returns CZK_OK, CZK_EINVAL (the range is not within what was appended; the writer
 * stays usable) or CZK_EIO (after which commit fails).
 */
int czk_file_writer_pwrite(czk_file_writer *w, uint64_t offset, const void *data, size_t len,
                           czk_err *err);

/* Flushes, fsyncs and renames the file to its final path, closes w, then fsyncs the directory
 * so that the rename itself is durable (a directory that cannot be synced is not an error). On
 * error the temporary file is removed and the target is untouched. Returns CZK_OK or CZK_EIO. */
int czk_file_writer_commit(czk_file_writer *w, czk_err *err);

/* Closes w and removes the temporary file; a closed or zeroed writer is a no-op. */
void czk_file_writer_abort(czk_file_writer *w);

/* Writes data[0..len) to `path` atomically (open, write, commit). CZK_OK, CZK_EIO, CZK_ENOMEM. */
int czk_file_write_atomic(const char *path, const void *data, size_t len, czk_err *err);

#ifdef __cplusplus
}
#endif

#endif /* CZK_UTIL_FILE_H */
