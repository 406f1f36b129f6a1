/* scratch.c — a private folder for the files a test writes (see harness.h). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"

static char dir[256];

void nl_scratch_make(const char *tag)
{
    snprintf(dir, sizeof dir, "/tmp/normlab-%s-%ld", tag, (long)getpid());
    mkdir(dir, 0700);
}

void nl_scratch_remove(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) {
        /* a leftover temp folder fails nothing */
    }
}

const char *nl_scratch_path(const char *name)
{
    static char bufs[8][512];
    static int k;
    char *b = bufs[k++ % 8];
    snprintf(b, 512, "%s/%s", dir, name);
    return b;
}
