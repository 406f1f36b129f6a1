/* workgroups.c — how rows map onto work-groups.
 * A row gets a team of work-items, each loading at least per_item float4s
 * (1 on a GPU, more on a CPU device, where every barrier costs a loop over
 * the group), rounded up to a power of two so the tree reduction halves
 * cleanly, and capped by the work-group size.  Short rows leave room for
 * several teams, hence several rows, in one work-group: d = 64 on a
 * 256-wide group of a GPU is 16 teams of 16 rather than one team of 16 and
 * 240 idle work-items. */
#include "opencl/internal.h"

// @snippet cl-plan
nl_cl_layout nl_cl_plan(size_t rows, size_t d, size_t max_local, size_t per_item)
{
    /* 256 is a common sweet spot (8 warps of 32, 4 wavefronts of 64); going
     * wider rarely helps a memory-bound kernel and costs local memory. */
    size_t local = 1;
    while (local * 2 <= max_local && local * 2 <= 256)
        local *= 2;
    size_t loads = (d + 4 * per_item - 1) / (4 * per_item); /* work-items wanted */
    size_t team = 1;
    while (team < loads && team < local)
        team *= 2;
    size_t per_group = local / team;
    while (per_group > 1 && per_group / 2 >= rows)
        per_group /= 2; /* a handful of rows needs no 256-wide group */
    nl_cl_layout l = {team, team * per_group, (rows + per_group - 1) / per_group};
    return l;
}
// @end
