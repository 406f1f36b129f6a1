/* workgroups.c — how rows map onto work-groups.
 * A row gets a team of about d/4 work-items (each then loads a few float4s),
 * rounded up to a power of two so the tree reduction halves cleanly, and
 * capped by the work-group size.  Short rows leave room for several teams,
 * hence several rows, in one work-group: d = 64 on a 256-wide group is 16
 * teams of 16 rather than one team of 16 and 240 idle work-items. */
#include "opencl/internal.h"

// @snippet cl-plan
nl_cl_layout nl_cl_plan(size_t rows, size_t d, size_t max_local)
{
    /* 256 is a common sweet spot (8 warps of 32, 4 wavefronts of 64); going
     * wider rarely helps a memory-bound kernel and costs local memory. */
    size_t local = 1;
    while (local * 2 <= max_local && local * 2 <= 256)
        local *= 2;
    size_t float4s = (d + 3) / 4;
    size_t team = 1;
    while (team < float4s && team < local)
        team *= 2;
    size_t per_group = local / team;
    while (per_group > 1 && per_group / 2 >= rows)
        per_group /= 2; /* a handful of rows needs no 256-wide group */
    nl_cl_layout l = {team, team * per_group, (rows + per_group - 1) / per_group};
    return l;
}
// @end
