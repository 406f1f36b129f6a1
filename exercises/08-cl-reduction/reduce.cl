/* reduce.cl — the sum of one value per work-item over a team.
 * A team is `size` consecutive work-items (a power of two) that share a
 * row; `mine` points at the team's own `size` floats of local memory and
 * `lane` is the work-item's place in the team.  Every work-item of the
 * work-group must call team_sum the same number of times, live row or not,
 * because it contains barriers: a barrier that only some work-items reach
 * is undefined behaviour, and on a GPU usually a hang. */

float team_sum(__local float *mine, uint lane, uint size, float v)
{
    /* TODO(08-cl-reduction): your code here; see exercises/08-cl-reduction/README.md */
    return v;
}
