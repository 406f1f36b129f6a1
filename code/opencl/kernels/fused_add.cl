/* fused_add.cl — residual add and norm in one launch (chapter 9), laid out
 * as rmsnorm.cl and layernorm.cl are: one team of work-items per row,
 * several rows per work-group when rows are short (QK-norm's d = 128).
 *
 * The first sweep adds x into the residual, stores the float sum and feeds
 * it to the row's statistics; the rest is the unfused kernel's own
 * arithmetic on the stored residual, term for term, so that the result
 * has the unfused pair's bits (tests/check_fused_props.c).  A work-item
 * rereads only what it stored itself (same lane, same indices), which
 * OpenCL orders without a barrier. */

/* Where this work-item sits: its lane in the row's team, the row's place
 * in the buffers and its length (0 past the last row: such work-items loop
 * zero times but still reach every barrier in team_sum). */
typedef struct {
    uint lane, n, n4, base; /* base: the team's first slot of scratch */
    bool aligned;
    size_t start;
} team_row;

team_row team_place(uint rows, uint d, uint team)
{
    uint lid = get_local_id(0);
    uint row = get_group_id(0) * (get_local_size(0) / team) + lid / team;
    bool live = row < rows;
    team_row t;
    t.lane = lid % team;
    t.base = lid - t.lane;
    t.n = live ? d : 0;
    t.n4 = t.n / 4;
    t.aligned = d % 4 == 0;
    t.start = live ? (size_t)row * d : 0;
    return t;
}

// @snippet cl-fused-add-rmsnorm
/* offset = 1: Gemma's (1 + w), formed in float as the host forms gamma'. */
__kernel void fused_add_rmsnorm(__global const float *x, __global float *residual,
                                __global const float *gamma, __global float *y,
                                float eps, uint rows, uint d, uint team, uint offset,
                                __local float *scratch)
{
    team_row t = team_place(rows, d, team);
    __local float *mine = scratch + t.base;
    __global const float *xr = x + t.start;
    __global float *rr = residual + t.start;

    float q = 0.0f;
    for (uint i = t.lane; i < t.n4; i += team) {
        float4 v = load4(rr, i, t.aligned) + load4(xr, i, t.aligned);
        store4(v, rr, i, t.aligned);
        q += dot(v, v);
    }
    for (uint i = 4 * t.n4 + t.lane; i < t.n; i += team) {
        float s = rr[i] + xr[i];
        rr[i] = s;
        q += s * s;
    }
    float inv = rsqrt(team_sum(mine, t.lane, team, q) / (float)d + eps);

    __global float *yr = y + t.start;
    for (uint i = t.lane; i < t.n4; i += team) {
        float4 g = load4(gamma, i, true);
        store4(load4(rr, i, t.aligned) * inv * (offset ? 1.0f + g : g), yr, i, t.aligned);
    }
    for (uint i = 4 * t.n4 + t.lane; i < t.n; i += team)
        yr[i] = rr[i] * inv * (offset ? 1.0f + gamma[i] : gamma[i]);
}
// @end

__kernel void fused_add_layernorm(__global const float *x, __global float *residual,
                                  __global const float *gamma, __global const float *beta,
                                  __global float *y, float eps, uint rows, uint d,
                                  uint team, __local float *scratch)
{
    team_row t = team_place(rows, d, team);
    __local float *mine = scratch + t.base;
    __global const float *xr = x + t.start;
    __global float *rr = residual + t.start;

    float s = 0.0f;
    for (uint i = t.lane; i < t.n4; i += team) {
        float4 v = load4(rr, i, t.aligned) + load4(xr, i, t.aligned);
        store4(v, rr, i, t.aligned);
        s += (v.x + v.y) + (v.z + v.w);
    }
    for (uint i = 4 * t.n4 + t.lane; i < t.n; i += team) {
        float v = rr[i] + xr[i];
        rr[i] = v;
        s += v;
    }
    float mean = team_sum(mine, t.lane, team, s) / (float)d;

    float q = 0.0f;
    for (uint i = t.lane; i < t.n4; i += team) {
        float4 c = load4(rr, i, t.aligned) - mean;
        q += dot(c, c);
    }
    for (uint i = 4 * t.n4 + t.lane; i < t.n; i += team)
        q += (rr[i] - mean) * (rr[i] - mean);
    float inv = rsqrt(team_sum(mine, t.lane, team, q) / (float)d + eps);

    __global float *yr = y + t.start;
    for (uint i = t.lane; i < t.n4; i += team) {
        float4 c = load4(rr, i, t.aligned) - mean;
        store4(c * inv * load4(gamma, i, true) + load4(beta, i, true), yr, i, t.aligned);
    }
    for (uint i = 4 * t.n4 + t.lane; i < t.n; i += team)
        yr[i] = (rr[i] - mean) * inv * gamma[i] + beta[i];
}
