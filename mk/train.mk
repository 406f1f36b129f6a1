# train.mk — chapter 13: training a GPT-2 in C.  OpenBLAS for the matrix
# products, the experiment (LayerNorm against RMSNorm), its figure and
# numbers, and the same training step in PyTorch.

# ------------------------------------------------------------- OpenBLAS
# Found with pkg-config (Debian: libopenblas-dev, scripts/setup/deps/base.txt);
# NO_BLAS=1 leaves it out and the products run through chapter 12's blocked
# matmul.  Only for native builds: a cross build must not pick up the host's
# library.  The library's folder goes into the binaries' rpath: Debian's
# libopenblas.so.0 is an alternative that may name the pthreads build, and
# the OpenMP build pkg-config found is the one whose threads are ours.
NO_BLAS ?=
comma := ,
BLAS_LIBS :=
BLAS_CFLAGS :=
ifeq ($(NO_BLAS)$(filter-out $(shell uname -m),$(TARGET_ARCH_NAME)),)
BLAS_LIBS := $(shell pkg-config --libs openblas 2>/dev/null)
BLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
BLAS_LIBDIR := $(shell pkg-config --variable=libdir openblas 2>/dev/null)
endif
ifneq ($(BLAS_LIBS),)
$(BUILD)/obj/code/gpt2/gemm.o: ALL_CFLAGS += -DNL_HAVE_OPENBLAS $(BLAS_CFLAGS)
# --as-needed: only a program that calls BLAS depends on it
LDLIBS += -Wl,--push-state,--as-needed $(BLAS_LIBS) -Wl,--pop-state \
    $(if $(BLAS_LIBDIR),-Wl$(comma)-rpath$(comma)$(BLAS_LIBDIR))
endif

# Rebuild gemm.o and relink when OpenBLAS appears or goes away: the stamp
# changes only when the detection result does.
NL_BLAS_STAMP := $(BUILD)/blas.stamp
NL_BLAS_STATE := $(if $(BLAS_LIBS),$(BLAS_LIBS) $(BLAS_CFLAGS),none)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(NL_BLAS_STAMP) 2>/dev/null)" = "$(NL_BLAS_STATE)" ] || echo "$(NL_BLAS_STATE)" > $(NL_BLAS_STAMP); })
$(BUILD)/obj/code/gpt2/gemm.o $(NORMLAB) $(TESTS): $(NL_BLAS_STAMP)

# GELU's kernels are written for the compiler to vectorise (gelu.c), as
# chapter 12's matmul and norms are.
$(BUILD)/obj/code/gpt2/gelu.o: ALL_CFLAGS += -O3
