/* reduce.cl — the sum of one value per work-item over a team.
 * A team is `size` consecutive work-items (a power of two) that share a
 * row; `mine` points at the team's own `size` floats of local memory and
 * `lane` is the work-item's place in the team.  Every work-item of the
 * work-group must call team_sum the same number of times, live row or not,
 * because it contains barriers: a barrier that only some work-items reach
 * is undefined behaviour, and on a GPU usually a hang. */

// @snippet cl-team-sum
float team_sum(__local float *mine, uint lane, uint size, float v)
{
    // @exercise 08-cl-reduction
    mine[lane] = v;
    barrier(CLK_LOCAL_MEM_FENCE);
    /* Halve the active lanes each level; the barrier makes level k's
     * writes visible before level k+1 reads them.  Nothing here assumes
     * that work-items run in lock-step. */
    for (uint width = size / 2; width > 0; width /= 2) {
        if (lane < width)
            mine[lane] += mine[lane + width];
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    float total = mine[0];
    /* The caller reuses `mine` for its next sum: nobody may overwrite
     * mine[0] before every lane has read it. */
    barrier(CLK_LOCAL_MEM_FENCE);
    return total;
    // @stub return v;
    // @end
}
// @end
