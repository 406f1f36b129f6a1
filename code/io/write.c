/* write.c — one way to write a file the user named: never over an
 * existing file without `force`, never over something that is not a
 * regular file (a device, a directory, a pipe) even with it, and never a
 * half-written file left where the complete one should be. */
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

int nl_io_check_target(const char *path, int force)
{
    struct stat st;
    if (lstat(path, &st) != 0)
        return NL_OK; /* nothing there (or nothing we may see): the write will tell */
    if (!S_ISREG(st.st_mode)) {
        nl_set_error("%s: exists and is not a regular file; not replaced", path);
        return NL_EARG;
    }
    if (!force) {
        nl_set_error("%s: exists; not overwritten (--force to replace it)", path);
        return NL_EARG;
    }
    return NL_OK;
}

int nl_io_write_file(const char *path, const void *const *part, const size_t *len,
                     size_t nparts, int force)
{
    int rc = nl_io_check_target(path, force);
    if (rc)
        return rc;
    /* a temporary beside the target, renamed over it only when complete:
     * a failure (disk full, bad path) leaves nothing behind */
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
    if (rc == NL_OK) {
        if ((force ? rename(tmp, path) : link(tmp, path)) != 0) {
            nl_set_error("%s: %s", path,
                         errno == EEXIST ? "appeared while writing; not overwritten (--force)"
                                         : strerror(errno));
            rc = NL_EARG;
        }
    }
    unlink(tmp); /* after link() the target stays; after rename() nothing is there */
    free(tmp);
    return rc;
}
