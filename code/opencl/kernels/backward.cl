/* backward.cl — LayerNorm and RMSNorm backward (chapter 10).
 *
 * Three kernels.  norm_bwd_dx: one team of work-items per row, as the
 * forward kernels (layout.c packs the teams): the row sums of g and
 * g * x-hat by team_sum, then dx.  norm_bwd_partials: one work-item per
 * (column, chunk of 32 rows: CL_CHUNK_ROWS of backward_opencl.c) sums
 * dy * x-hat and dy down its chunk, in row order; neighbouring
 * work-items read neighbouring columns, so the reads coalesce.
 * norm_bwd_reduce: one work-item per column adds the chunk partials in
 * chunk order into dgamma (and dbeta).  No atomics and no order left to
 * the scheduler: the same bits for any work-group size the device picks.  center = 1: LayerNorm; 0: RMSNorm (mean 0, no
 * mean(g) term, no dbeta). */

// @snippet cl-bwd-dx
__kernel void norm_bwd_dx(__global const float *x, __global const float *gamma,
                          __global const float *mean, __global const float *rstd,
                          __global const float *dy, __global float *dx,
                          uint rows, uint d, uint team, uint center,
                          __local float *scratch)
{
    uint lid = get_local_id(0);
    uint lane = lid % team;
    uint row = get_group_id(0) * (get_local_size(0) / team) + lid / team;
    __local float *mine = scratch + (lid - lane);

    bool live = row < rows;
    uint n = live ? d : 0;
    size_t base = live ? (size_t)row * d : 0;
    float mu = live && center ? mean[row] : 0.0f;
    float rs = live ? rstd[row] : 0.0f;

    float sg = 0.0f, sgx = 0.0f;
    for (uint i = lane; i < n; i += team) {
        float g = gamma[i] * dy[base + i];
        sg += g;
        sgx += g * ((x[base + i] - mu) * rs);
    }
    /* every work-item calls team_sum equally often: it holds barriers */
    float mean_g = center ? team_sum(mine, lane, team, sg) / (float)d : 0.0f;
    float mean_gx = team_sum(mine, lane, team, sgx) / (float)d;

    for (uint i = lane; i < n; i += team) {
        float xhat = (x[base + i] - mu) * rs;
        dx[base + i] = rs * (gamma[i] * dy[base + i] - mean_g - xhat * mean_gx);
    }
}
// @end

// @snippet cl-bwd-params
__kernel void norm_bwd_partials(__global const float *x, __global const float *mean,
                                __global const float *rstd, __global const float *dy,
                                __global float *pg, __global float *pb,
                                uint rows, uint d, uint chunk, uint center)
{
    uint i = get_global_id(0), c = get_global_id(1);
    if (i >= d)
        return;
    uint r0 = c * chunk, r1 = min(rows, r0 + chunk);
    float sg = 0.0f, sb = 0.0f;
    for (uint r = r0; r < r1; r++) {
        size_t k = (size_t)r * d + i;
        float mu = center ? mean[r] : 0.0f;
        sg += dy[k] * ((x[k] - mu) * rstd[r]);
        sb += dy[k];
    }
    pg[(size_t)c * d + i] = sg;
    if (center)
        pb[(size_t)c * d + i] = sb;
}

__kernel void norm_bwd_reduce(__global const float *parts, __global float *sum,
                              uint nparts, uint d)
{
    uint i = get_global_id(0);
    if (i >= d)
        return;
    float s = parts[i];
    for (uint c = 1; c < nparts; c++)
        s += parts[(size_t)c * d + i];
    sum[i] += s;
}
// @end
