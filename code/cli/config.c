/* config.c — placeholder until its issue lands. */
#include <stdio.h>

#include "commands.h"

int cmd_config(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "normlab config: not built yet\n");
    return 2;
}
