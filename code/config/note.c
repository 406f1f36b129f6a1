/* note.c — the note of an nl_config: how the count was made and what was
 * assumed, one clause per finding, as long as it needs to be. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config_internal.h"

void nl_note(nl_config *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n <= 0)
        return;
    size_t used = c->note ? strlen(c->note) : 0, sep = used ? 2 : 0;
    char *grown = realloc(c->note, used + sep + (size_t)n + 1);
    if (!grown)
        return;   /* the note is commentary: without memory it stays as it was */
    memcpy(grown + used, "; ", sep);
    va_start(ap, fmt);
    vsnprintf(grown + used + sep, (size_t)n + 1, fmt, ap);
    va_end(ap);
    c->note = grown;
}
