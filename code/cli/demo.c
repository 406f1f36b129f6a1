/* demo.c — placeholder until its issue lands. */
#include <stdio.h>

#include "commands.h"

int cmd_demo(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "normlab demo: not built yet\n");
    return 2;
}
