/* rmsnorm.cl — RMSNorm, one team of work-items per row (see layernorm.cl
 * for the layout).  One word less: no mean, so one reduction instead of
 * two and one fewer pass over the row. */

// @snippet cl-rmsnorm
__kernel void rmsnorm(__global const float *x, __global const float *gamma,
                      __global float *y, float eps, uint rows, uint d,
                      uint team, __local float *scratch)
{
    uint lid = get_local_id(0);
    uint lane = lid % team;
    uint row = get_group_id(0) * (get_local_size(0) / team) + lid / team;
    __local float *mine = scratch + (lid - lane);

    bool live = row < rows;
    uint n = live ? d : 0;
    uint n4 = n / 4;
    bool aligned = d % 4 == 0;
    __global const float *xr = x + (live ? (size_t)row * d : 0);

    float q = 0.0f;
    for (uint i = lane; i < n4; i += team) {
        float4 v = load4(xr, i, aligned);
        q += dot(v, v);
    }
    for (uint i = 4 * n4 + lane; i < n; i += team)
        q += xr[i] * xr[i];
    float inv = rsqrt(team_sum(mine, lane, team, q) / (float)d + eps);

    __global float *yr = y + (live ? (size_t)row * d : 0);
    for (uint i = lane; i < n4; i += team)
        store4(load4(xr, i, aligned) * inv * load4(gamma, i, true), yr, i, aligned);
    for (uint i = 4 * n4 + lane; i < n; i += team)
        yr[i] = xr[i] * inv * gamma[i];
}
// @end
