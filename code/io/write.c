/* write.c — one way to write a file the user named: never over an
 * existing file without `force`, never over something that is not a
 * regular file (a device, a directory, a pipe, a link) even with it, and
 * never a half-written file left where the complete one should be.
 * A command with several outputs stages each (a complete temporary beside
 * its target), then commits them all, or discards them all. */
#include "io/io.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* What stands at `path`, for a message: NULL when nothing does or a
 * regular file does (the two things an output may replace). */
static const char *not_a_file(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || S_ISREG(st.st_mode))
        return NULL;
    if (S_ISLNK(st.st_mode))
        return access(path, F_OK) == 0 ? "a symbolic link" : "a symbolic link to nothing";
    return S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) ? "a character device"
         : S_ISBLK(st.st_mode) ? "a block device" : S_ISFIFO(st.st_mode) ? "a pipe (FIFO)"
         : S_ISSOCK(st.st_mode) ? "a socket" : "not a regular file";
}

int nl_output_check(const char *path, int force)
{
    const char *what = not_a_file(path);
    if (what) {
        /* rename() would put a regular file where a device node or a link
         * was (as root, --out /dev/null would replace the system's node) */
        nl_set_error("%s is %s; only a regular file is written or replaced (name a file)",
                     path, what);
        return NL_EARG;
    }
    if (!force && access(path, F_OK) == 0) {
        nl_set_error("%s exists; not overwritten (--force to replace it)", path);
        return NL_EARG;
    }
    return NL_OK;
}

int nl_io_stage_file(const char *path, const void *const *part, const size_t *len,
                     size_t nparts, char **staged)
{
    *staged = NULL;
    size_t plen = strlen(path);
    char *tmp = malloc(plen + 32);
    if (!tmp) {
        nl_set_error("%s: no memory", path);
        return NL_ENOMEM;
    }
    snprintf(tmp, plen + 32, "%s.tmp%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0666);
    if (fd < 0) {
        nl_set_error("%s: cannot create: %s", path, strerror(errno));
        free(tmp);
        return NL_EARG;
    }
    int rc = NL_OK;
    for (size_t i = 0; i < nparts && rc == NL_OK; i++)
        if (write_all(fd, part[i], len[i])) {
            nl_set_error("%s: cannot write: %s", path, strerror(errno));
            rc = NL_EARG;
        }
    if (rc == NL_OK && fsync(fd) != 0) {
        nl_set_error("%s: cannot write: %s", path, strerror(errno));
        rc = NL_EARG;
    }
    if (close(fd) != 0 && rc == NL_OK) {
        nl_set_error("%s: cannot write: %s", path, strerror(errno));
        rc = NL_EARG;
    }
    if (rc != NL_OK) {
        unlink(tmp);
        free(tmp);
        return rc;
    }
    *staged = tmp;
    return NL_OK;
}

int nl_io_commit_file(const char *path, char *staged, int force)
{
    int rc = nl_output_check(path, force);
    if (rc == NL_OK && (force ? rename(staged, path) : link(staged, path)) != 0) {
        nl_set_error("%s: %s", path,
                     errno == EEXIST ? "appeared while writing; not overwritten (--force)"
                                     : strerror(errno));
        rc = NL_EARG;
    }
    unlink(staged); /* after link() the target stays; after rename() nothing is there */
    free(staged);
    return rc;
}

void nl_io_discard_file(char *staged)
{
    if (staged)
        unlink(staged);
    free(staged);
}

int nl_io_write_file(const char *path, const void *const *part, const size_t *len,
                     size_t nparts, int force)
{
    char *staged;
    int rc = nl_output_check(path, force);
    if (rc == NL_OK)
        rc = nl_io_stage_file(path, part, len, nparts, &staged);
    return rc == NL_OK ? nl_io_commit_file(path, staged, force) : rc;
}
