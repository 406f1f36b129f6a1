/* measure.h — timing the OpenCL kernels against the device's own copy
 * bandwidth, for `normlab bench --opencl`.  Internal: the program includes
 * it; normlab.h stays free of benchmark types. */
#ifndef NL_OPENCL_MEASURE_H
#define NL_OPENCL_MEASURE_H

#include "bench/bench.h"

/* Times the OpenCL kernel of `norm` on b's data: `samples` launches, each
 * paired with a device-side copy of the same bytes on the same queue,
 * both timed by profiling events; host-to-device and device-to-host
 * copies are timed apart (h2d_gbps, d2h_gbps).  Validate first (with the
 * registered layernorm_opencl / rmsnorm_opencl and nl_bench_validate):
 * this only times.  Fills the timing fields of `row`; returns NL_OK or an
 * NL_E* code with nl_last_error(). */
int nl_cl_bench_time(nl_norm norm, const nl_bench_data *b, size_t samples, nl_bench_row *row);

#endif
