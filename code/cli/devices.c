/* devices.c — placeholder until its issue lands. */
#include <stdio.h>

#include "commands.h"

int cmd_devices(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fprintf(stderr, "normlab devices: not built yet\n");
    return 2;
}
