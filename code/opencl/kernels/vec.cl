/* vec.cl — four floats per load and store.
 * A row of d floats starts on a 16-byte boundary only when d is a multiple
 * of 4 (buffers themselves are aligned far beyond that).  Aligned rows use
 * float4 pointers, which the compiler may turn into one wide access;
 * the others use vload4/vstore4, which only assume float alignment. */

// @snippet cl-vec
float4 load4(__global const float *p, uint i, bool aligned)
{
    return aligned ? ((__global const float4 *)p)[i] : vload4(i, p);
}

void store4(float4 v, __global float *p, uint i, bool aligned)
{
    if (aligned)
        ((__global float4 *)p)[i] = v;
    else
        vstore4(v, i, p);
}
// @end
