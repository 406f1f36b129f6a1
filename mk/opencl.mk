# mk/opencl.mk — compiles the OpenCL kernel sources into the library.
# Each code/opencl/kernels/*.cl becomes one C string in a generated file,
# so `normlab` finds its kernels wherever it is run from; at run time
# NORMLAB_CL_KERNELS=dir replaces them file by file.

CL_KERNELS := $(sort $(wildcard code/opencl/kernels/*.cl))
CL_EMBED_C := $(BUILD)/gen/cl_kernels.c
CL_EMBED_O := $(BUILD)/obj/gen/cl_kernels.o

$(LIB): $(CL_EMBED_O)

$(CL_EMBED_C): $(CL_KERNELS) scripts/tools/embed-cl.sh
	@mkdir -p $(@D)
	@scripts/tools/embed-cl.sh $@ $(CL_KERNELS)

$(CL_EMBED_O): $(CL_EMBED_C)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -MMD -MP -c $< -o $@

## devices — list the OpenCL devices normlab can use (normlab devices)
.PHONY: devices
devices: $(NORMLAB)
	$(NORMLAB) devices
