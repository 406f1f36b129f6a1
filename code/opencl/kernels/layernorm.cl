/* layernorm.cl — LayerNorm, one team of work-items per row.
 * The host picks the team size (a power of two, about d/4 work-items so
 * that each loads a few float4s) and packs local_size / team rows into one
 * work-group, so that short rows still fill a work-group.  Two passes over
 * the row: the mean, then the variance around it (the stable two-pass
 * formula of the scalar ladder); the third pass writes y.  Each pass reads
 * the row again from global memory: on a GPU a row of a few thousand
 * floats is likely still in cache. */

// @snippet cl-layernorm
__kernel void layernorm(__global const float *x, __global const float *gamma,
                        __global const float *beta, __global float *y,
                        float eps, uint rows, uint d, uint team,
                        __local float *scratch)
{
    uint lid = get_local_id(0);
    uint lane = lid % team;
    uint row = get_group_id(0) * (get_local_size(0) / team) + lid / team;
    __local float *mine = scratch + (lid - lane);

    /* Work-items past the last row loop zero times but still reach every
     * barrier inside team_sum. */
    bool live = row < rows;
    uint n = live ? d : 0;
    uint n4 = n / 4;
    bool aligned = d % 4 == 0;
    __global const float *xr = x + (live ? (size_t)row * d : 0);

    float s = 0.0f;
    for (uint i = lane; i < n4; i += team) {
        float4 v = load4(xr, i, aligned);
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (uint i = 4 * n4 + lane; i < n; i += team)
        s += xr[i];
    float mean = team_sum(mine, lane, team, s) / (float)d;

    float q = 0.0f;
    for (uint i = lane; i < n4; i += team) {
        float4 c = load4(xr, i, aligned) - mean;
        q += dot(c, c);
    }
    for (uint i = 4 * n4 + lane; i < n; i += team)
        q += (xr[i] - mean) * (xr[i] - mean);
    float var = team_sum(mine, lane, team, q) / (float)d;
    float inv = rsqrt(var + eps);

    __global float *yr = y + (live ? (size_t)row * d : 0);
    for (uint i = lane; i < n4; i += team) {
        float4 c = load4(xr, i, aligned) - mean;
        store4(c * inv * load4(gamma, i, true) + load4(beta, i, true), yr, i, aligned);
    }
    for (uint i = 4 * n4 + lane; i < n; i += team)
        yr[i] = (xr[i] - mean) * inv * gamma[i] + beta[i];
}
// @end
