/* half.cl — the cast orders of chapter 8 on bf16/fp16 data (host side:
 * code/opencl/half_opencl.c). One team of work-items per row, as in
 * rmsnorm.cl. bf16 travels as ushort and converts with the shifts of
 * code/precision/bf16.c; fp16 goes through vload_half / vstore_half_rte,
 * which every OpenCL 1.2 device has, with or without cl_khr_fp16.
 * The rounding points are those of the scalar kernels; the statistics are
 * fp32 team sums (the scalar ones are double sums rounded to fp32), and
 * OpenCL's sqrt may be a few fp32 ulps off: either can move an output by
 * one ulp of its dtype when it sits at a rounding boundary. */

enum { CAST_LLAMA = 0, CAST_GEMMA = 1, CAST_T5_F32W = 2, CAST_TORCH = 3 };

float half_load(__global const ushort *p, uint i, int bf16)
{
    return bf16 ? as_float((uint)p[i] << 16) : vload_half(i, (__global const half *)p);
}

// @snippet cl-bf16-narrow
ushort bf16_round(float f)
{
    uint u = as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) /* NaN: quiet, never rounded into Inf */
        return (ushort)((u >> 16) | 0x40u);
    return (ushort)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
// @end

ushort half_round(float f, int bf16)
{
    if (bf16)
        return bf16_round(f);
    ushort h;
    vstore_half_rte(f, 0, (__private half *)&h);
    return h;
}

float half_widen(ushort h, int bf16)
{
    return bf16 ? as_float((uint)h << 16) : vload_half(0, (__private const half *)&h);
}

__kernel void half_norm(__global const ushort *x, __global const ushort *g16,
                        __global const float *g32, __global const ushort *beta,
                        __global ushort *y, float eps, uint rows, uint d, uint team,
                        int bf16, int cast, __local float *scratch)
{
    uint lid = get_local_id(0);
    uint lane = lid % team;
    uint row = get_group_id(0) * (get_local_size(0) / team) + lid / team;
    __local float *mine = scratch + (lid - lane);
    bool live = row < rows;
    uint n = live ? d : 0;
    __global const ushort *xr = x + (live ? (size_t)row * d : 0);
    __global ushort *yr = y + (live ? (size_t)row * d : 0);

    /* every work-item calls team_sum equally often, live row or not */
    float mean = 0.0f;
    if (cast == CAST_TORCH) {
        float s = 0.0f;
        for (uint i = lane; i < n; i += team)
            s += half_load(xr, i, bf16);
        mean = team_sum(mine, lane, team, s) / (float)d;
    }
    float q = 0.0f;
    for (uint i = lane; i < n; i += team) {
        float v = half_load(xr, i, bf16) - mean;
        q += v * v;
    }
    float stat = team_sum(mine, lane, team, q) / (float)d;
    float inv = 1.0f / sqrt(stat + eps);

    if (cast == CAST_TORCH) {
        float shift = -inv * mean;
        for (uint i = lane; i < n; i += team) {
            float t = half_load(xr, i, bf16) * inv + shift;
            t = t * half_load(g16, i, bf16);
            yr[i] = half_round(t + half_load(beta, i, bf16), bf16);
        }
        return;
    }
    for (uint i = lane; i < n; i += team) {
        float xv = half_load(xr, i, bf16) * inv;
        float out;
        if (cast == CAST_T5_F32W)
            out = g32[i] * xv;
        else if (cast == CAST_GEMMA)
            out = xv * (1.0f + half_load(g16, i, bf16));
        else /* llama and t5: round x*r, multiply in the dtype */
            out = half_widen(half_round(xv, bf16), bf16) * half_load(g16, i, bf16);
        yr[i] = half_round(out, bf16);
    }
}
