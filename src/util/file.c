/*
 * File input and atomic output (contract in file.h).
 */
#include "util/file.h"

#include "util/alloc.h"
#include "util/bytes.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* Big enough that writing a multi-GiB key is not dominated by syscalls. */
#define CZK__WRITER_BUF (1u << 20)

/* Distinguishes temporary files of concurrent writers within one process. */
static _Atomic unsigned long writer_seq;

const char *czk_file_msg_path(const char *path) {
    size_t n = strlen(path);
    return n > 96 ? path + (n - 96) : path;
}

static int open_regular(int *fd_out, size_t *len_out, const char *path, czk_err *err) {
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return czk_err_set(err, CZK_EIO, "%s: cannot open: %s", czk_file_msg_path(path),
                           strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int e = errno;
        close(fd);
        return czk_err_set(err, CZK_EIO, "%s: cannot stat: %s", czk_file_msg_path(path),
                           strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        return czk_err_set(err, CZK_EIO, "%s: not a regular file", czk_file_msg_path(path));
    }
    if ((uintmax_t)st.st_size > (uintmax_t)SIZE_MAX - 1) {
        close(fd);
        return czk_err_set(err, CZK_EIO, "%s: file too large for this address space",
                           czk_file_msg_path(path));
    }
    *fd_out = fd;
    *len_out = (size_t)st.st_size;
    return CZK_OK;
}

int czk_file_map(czk_file_mapping *map, const char *path, czk_err *err) {
    memset(map, 0, sizeof(*map));
    int fd = -1;
    size_t len = 0;
    int rc = open_regular(&fd, &len, path, err);
    if (rc != CZK_OK)
        return rc;
    if (len > 0) {
        /* Read-only and private: no page is ever dirtied, so there is nothing to reserve swap
         * for, however large the file. */
        void *p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_NORESERVE, fd, 0);
        if (p == MAP_FAILED) {
            int e = errno;
            close(fd);
            return czk_err_set(err, e == ENOMEM ? CZK_ENOMEM : CZK_EIO, "%s: cannot map: %s",
                               czk_file_msg_path(path), strerror(e));
        }
        map->base = p;
        map->map_len = len;
        map->data = p;
        map->len = len;
    }
    close(fd); /* the mapping stays valid without the descriptor */
    return CZK_OK;
}

void czk_file_unmap(czk_file_mapping *map) {
    if (map == NULL)
        return;
    if (map->base != NULL)
        munmap(map->base, map->map_len);
    memset(map, 0, sizeof(*map));
}

void czk_file_map_advise_sequential(const czk_file_mapping *map) {
    if (map != NULL && map->base != NULL)
        (void)madvise(map->base, map->map_len, MADV_SEQUENTIAL); /* advice only */
}

void czk_file_map_drop(const void *p, size_t len) {
    const long pg = sysconf(_SC_PAGESIZE);
    if (p == NULL || len == 0 || pg <= 0)
        return;
    const uintptr_t a = (uintptr_t)p, page = (uintptr_t)pg;
    const uintptr_t lo = (a + page - 1) / page * page, hi = (a + len) / page * page;
    if (hi > lo)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED); /* advice only */
}

int czk_file_read_all(uint8_t **data, size_t *len, const char *path, czk_err *err) {
    *data = NULL;
    *len = 0;
    int fd = -1;
    size_t n = 0;
    int rc = open_regular(&fd, &n, path, err);
    if (rc != CZK_OK)
        return rc;
    uint8_t *buf = czk_malloc(n + 1);
    if (buf == NULL) {
        close(fd);
        return czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate %zu bytes",
                           czk_file_msg_path(path), n + 1);
    }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, n - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            int e = errno;
            close(fd);
            czk_free(buf);
            if (r == 0)
                return czk_err_set(err, CZK_EIO, "%s: file shrank while reading (%zu of %zu bytes)",
                                   czk_file_msg_path(path), got, n);
            return czk_err_set(err, CZK_EIO, "%s: read failed: %s", czk_file_msg_path(path),
                               strerror(e));
        }
        got += (size_t)r;
    }
    close(fd);
    buf[n] = 0;
    *data = buf;
    *len = n;
    return CZK_OK;
}

static void writer_release(czk_file_writer *w) {
    if (w->tmp_path != NULL && w->fd >= 0) /* a zeroed writer's fd 0 is not ours */
        close(w->fd);
    czk_free(w->path);
    czk_free(w->tmp_path);
    czk_free(w->buf);
    memset(w, 0, sizeof(*w));
    w->fd = -1;
}

int czk_file_writer_open(czk_file_writer *w, const char *path, czk_err *err) {
    memset(w, 0, sizeof(*w));
    w->fd = -1;
    size_t plen = strlen(path);
    w->path = czk_strdup(path);
    w->tmp_path = czk_malloc(plen + 64);
    w->buf = czk_malloc(CZK__WRITER_BUF);
    if (w->path == NULL || w->tmp_path == NULL || w->buf == NULL) {
        writer_release(w);
        return czk_err_set(err, CZK_ENOMEM, "%s: cannot allocate the write buffer",
                           czk_file_msg_path(path));
    }
    /* O_EXCL with a fresh name per attempt: never clobber another writer's temporary file.
     * Mode 0666 lets the process umask decide the final permissions, as for any new file. */
    for (int attempt = 0; attempt < 100; attempt++) {
        unsigned long seq = atomic_fetch_add_explicit(&writer_seq, 1, memory_order_relaxed);
        snprintf(w->tmp_path, plen + 64, "%s.tmp.%ld.%lu", path, (long)getpid(), seq);
        w->fd = open(w->tmp_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (w->fd >= 0 || errno != EEXIST)
            break;
    }
    if (w->fd < 0) {
        int e = errno;
        writer_release(w);
        return czk_err_set(err, CZK_EIO, "%s: cannot create a temporary file: %s",
                           czk_file_msg_path(path), strerror(e));
    }
    return CZK_OK;
}

/* Appends at the file position (write_fully's offset). */
#define AT_END (-1)

/* Writes p[0..n) at the file position, or at `offset` when it is not AT_END (pwrite, which
 * leaves the position alone); a failure marks the writer failed. */
static int write_fully(czk_file_writer *w, const uint8_t *p, size_t n, int64_t offset,
                       czk_err *err) {
    size_t done = 0;
    while (done < n) {
        ssize_t r = offset == AT_END
                        ? write(w->fd, p + done, n - done)
                        : pwrite(w->fd, p + done, n - done, (off_t)(offset + (int64_t)done));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            w->failed = 1;
            return czk_err_set(err, CZK_EIO, "%s: write failed: %s", czk_file_msg_path(w->path),
                               r < 0 ? strerror(errno) : "no progress");
        }
        done += (size_t)r;
    }
    return CZK_OK;
}

/* 1 while w is open and no write has failed. */
static int writer_usable(const czk_file_writer *w) {
    return w->tmp_path != NULL && w->fd >= 0 && !w->failed;
}

static int refuse_write(const czk_file_writer *w, czk_err *err) {
    return czk_err_set(err, CZK_EIO, "%s: write to a failed or closed writer",
                       w->path != NULL ? czk_file_msg_path(w->path) : "(closed)");
}

static int writer_flush(czk_file_writer *w, czk_err *err) {
    int rc = write_fully(w, w->buf, w->buf_used, AT_END, err);
    if (rc == CZK_OK)
        w->buf_used = 0;
    return rc;
}

int czk_file_writer_write(czk_file_writer *w, const void *data, size_t len, czk_err *err) {
    if (!writer_usable(w))
        return refuse_write(w, err);
    const uint8_t *p = data;
    w->size += len;
    if (len >= CZK__WRITER_BUF) {
        /* Big blocks (a key's point vectors, an R1CS chunk) skip the copy into the buffer. */
        int rc = writer_flush(w, err);
        return rc == CZK_OK ? write_fully(w, p, len, AT_END, err) : rc;
    }
    while (len > 0) {
        size_t room = CZK__WRITER_BUF - w->buf_used;
        size_t n = len < room ? len : room;
        memcpy(w->buf + w->buf_used, p, n);
        w->buf_used += n;
        p += n;
        len -= n;
        if (w->buf_used == CZK__WRITER_BUF) {
            int rc = writer_flush(w, err);
            if (rc != CZK_OK)
                return rc;
        }
    }
    return CZK_OK;
}

int czk_file_writer_u32(czk_file_writer *w, uint32_t v, czk_err *err) {
    uint8_t b[4];
    czk_bytes_store_le32(b, v);
    return czk_file_writer_write(w, b, 4, err);
}

int czk_file_writer_u64(czk_file_writer *w, uint64_t v, czk_err *err) {
    uint8_t b[8];
    czk_bytes_store_le64(b, v);
    return czk_file_writer_write(w, b, 8, err);
}

int czk_file_writer_pwrite(czk_file_writer *w, uint64_t offset, const void *data, size_t len,
                           czk_err *err) {
    if (!writer_usable(w))
        return refuse_write(w, err);
    if (offset > w->size || len > w->size - offset)
        return czk_err_set(err, CZK_EINVAL,
                           "%s: cannot overwrite %zu bytes at offset %llu of a file of %llu",
                           czk_file_msg_path(w->path), len, (unsigned long long)offset,
                           (unsigned long long)w->size);
    /* The bytes may still sit in the buffer: flush first so that pwrite sees the file whole. */
    int rc = writer_flush(w, err);
    return rc == CZK_OK ? write_fully(w, data, len, (int64_t)offset, err) : rc;
}

/* Makes a rename into `path`'s directory durable. Best effort: a directory that cannot be
 * opened or synced (or no memory for its name) leaves the rename merely not yet durable. */
static void sync_parent_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = NULL;
    if (slash != NULL) {
        size_t n = slash == path ? 1 : (size_t)(slash - path); /* "/x" lives in "/" */
        dir = czk_malloc(n + 1);
        if (dir == NULL)
            return;
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    int dfd = open(dir != NULL ? dir : ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        (void)fsync(dfd);
        close(dfd);
    }
    czk_free(dir);
}

int czk_file_writer_commit(czk_file_writer *w, czk_err *err) {
    int rc = CZK_OK;
    if (!writer_usable(w)) {
        rc = czk_err_set(err, CZK_EIO, "%s: not committed: an earlier write failed",
                         w->path != NULL ? czk_file_msg_path(w->path) : "(closed)");
        goto out;
    }
    rc = writer_flush(w, err);
    if (rc != CZK_OK)
        goto out;
    /* fsync before rename: otherwise a crash could leave the new name pointing at an empty
     * file on filesystems that reorder metadata and data writes. */
    if (fsync(w->fd) != 0) {
        rc = czk_err_set(err, CZK_EIO, "%s: fsync failed: %s", czk_file_msg_path(w->path),
                         strerror(errno));
        goto out;
    }
    int fd = w->fd;
    w->fd = -1;
    if (close(fd) != 0) {
        rc = czk_err_set(err, CZK_EIO, "%s: close failed: %s", czk_file_msg_path(w->path),
                         strerror(errno));
        goto out;
    }
    if (rename(w->tmp_path, w->path) != 0) {
        rc =
            czk_err_set(err, CZK_EIO, "%s: cannot rename its temporary file (%s) into place: %s",
                        czk_file_msg_path(w->path), w->tmp_path + strlen(w->path), strerror(errno));
        goto out;
    }
    sync_parent_dir(w->path);
    writer_release(w);
    return CZK_OK;
out:
    czk_file_writer_abort(w);
    return rc;
}

void czk_file_writer_abort(czk_file_writer *w) {
    if (w == NULL)
        return;
    if (w->tmp_path != NULL) {
        if (w->fd >= 0) {
            close(w->fd);
            w->fd = -1;
        }
        unlink(w->tmp_path);
    }
    writer_release(w);
}

int czk_file_write_atomic(const char *path, const void *data, size_t len, czk_err *err) {
    czk_file_writer w;
    int rc = czk_file_writer_open(&w, path, err);
    if (rc != CZK_OK)
        return rc;
    rc = czk_file_writer_write(&w, data, len, err);
    if (rc != CZK_OK) {
        czk_file_writer_abort(&w);
        return rc;
    }
    return czk_file_writer_commit(&w, err);
}
