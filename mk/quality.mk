# quality.mk — the checks that make "the tests pass" mean something on more
# than one machine: valgrind, aarch64 under qemu, and the CI stages.

.PHONY: memcheck cross-test cross-build cross-sysroot ci-stages cycles-check prefetch-check

## cycles-check — fail when files under code/ call or include each other in a loop
cycles-check: $(LIB_OBJ) $(CLI_OBJ)
	@scripts/tools/file-cycles.sh $(BUILD)

## prefetch-check — fail when a function of chapter 8's one-row bf16 rungs or chapter 10's backward stream rung streams its outputs with its prefetch compiled away (x86-64)
prefetch-check: $(LIB_OBJ)
	@scripts/tools/prefetch-kept.sh $(BUILD)


## memcheck — every suite under valgrind (memory errors and leaks fail it); MEMCHECK_OPENCL=1 keeps OpenCL, MEMCHECK_CLI=1 the normlab program too
# CK_FORK=no keeps each test in the process valgrind watches; with forking,
# errors in the children would go unseen. The suites are the normal build's.
# MEMCHECK_CLI=1 puts the normlab program under valgrind too, where the
# suites run it (NL_CLI_WRAPPER); CI leaves it off: a valgrind start per
# run of the program made check_cli take 213 of the stage's 328 s, and
# every suite that runs the program runs build-san/normlab under ASan and
# UBSan in `make test SAN=1`. To find where an uninitialised value came from, add
# VALGRIND_FLAGS+=--track-origins=yes (slower still, so CI
# leaves it off). valgrind 3.19 has no AVX-512: those paths skip here.
# OpenCL is hidden here (an empty vendor folder, as in cross-test), so its
# tests skip and say so: under valgrind, PoCL compiling kernels with LLVM
# took 6 of the stage's 10 minutes (cli, opencl_bench, agreement), and
# what it reports is PoCL's, suppressed anyway. Our OpenCL host code runs
# under ASan and UBSan in `make test SAN=1`, where CI requires OpenCL.
VALGRIND ?= valgrind
VALGRIND_FLAGS ?= -q --error-exitcode=1 --leak-check=full \
    --errors-for-leak-kinds=definite,indirect --show-leak-kinds=definite,indirect \
    --suppressions=tests/valgrind-pocl.supp --num-callers=50
MEMCHECK_OPENCL ?= 0
MEMCHECK_CLI ?= 0
MEMCHECK_ENV = $(if $(filter 1,$(MEMCHECK_OPENCL)),,OCL_ICD_VENDORS=$(CURDIR)/$(BUILD)/no-opencl-vendors NORMLAB_REQUIRE_OPENCL=0)
memcheck: deps $(TESTS) $(NORMLAB)
	@scripts/setup/deps.sh memcheck
	@mkdir -p $(BUILD)/no-opencl-vendors
	$(MEMCHECK_ENV) CK_FORK=no CK_DEFAULT_TIMEOUT=600 \
	NL_TEST_WRAPPER="$(VALGRIND) $(VALGRIND_FLAGS)" \
	$(if $(filter 1,$(MEMCHECK_CLI)),NL_CLI_WRAPPER="$(VALGRIND) $(VALGRIND_FLAGS)") \
	    scripts/ci/run-tests.sh $(BUILD)/tests $(TESTS)

## cross-test — build for aarch64 and run every suite under qemu-aarch64
# The arm64 Check, cJSON and OpenCL loader come from a private sysroot
# (scripts/ci/cross-sysroot.sh: Debian's arm64 .debs, unpacked, no system
# change). The binaries carry an rpath into it; qemu's -L finds the cross
# libc. OCL_ICD_VENDORS points at an empty folder: the host's PoCL is
# x86-64 and cannot load into an aarch64 process, so the OpenCL tests
# report "no OpenCL platform" and skip, visibly.
CROSS_CC      ?= aarch64-linux-gnu-gcc
CROSS_BUILD   ?= build-aarch64
CROSS_SYSROOT := $(CURDIR)/$(CROSS_BUILD)/sysroot
CROSS_LIBDIR  := $(CROSS_SYSROOT)/usr/lib/aarch64-linux-gnu
CROSS_RUN     ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
CROSS_ENV = PKG_CONFIG_LIBDIR=$(CROSS_LIBDIR)/pkgconfig:$(CROSS_SYSROOT)/usr/share/pkgconfig \
    PKG_CONFIG_SYSROOT_DIR=$(CROSS_SYSROOT) \
    OCL_ICD_VENDORS=$(CURDIR)/$(CROSS_BUILD)/no-opencl-vendors
CROSS_MAKE = $(CROSS_ENV) $(MAKE) --no-print-directory CC=$(CROSS_CC) \
    BUILD=$(CROSS_BUILD) SAN= LDFLAGS="-Wl,-rpath,$(CROSS_LIBDIR)"

cross-sysroot: $(CROSS_SYSROOT)/.complete
$(CROSS_SYSROOT)/.complete:
	@scripts/setup/deps.sh cross
	scripts/ci/cross-sysroot.sh $(CROSS_SYSROOT)

## cross-build — the aarch64 build alone (into build-aarch64/)
# Suites that run build-aarch64/normlab as a program (bench, config, cli,
# opencl) cannot exec an aarch64 binary: there is no binfmt_misc handler
# here (registering one changes the machine). So the program is renamed
# normlab.aarch64 and normlab becomes a script that runs it under qemu.
cross-build: $(CROSS_SYSROOT)/.complete
	@mkdir -p $(CROSS_BUILD)/no-opencl-vendors
	+$(CROSS_MAKE) build
	@if head -c4 $(CROSS_BUILD)/normlab | grep -q ELF; then \
	    mv -f $(CROSS_BUILD)/normlab $(CROSS_BUILD)/normlab.aarch64; \
	    printf '#!/bin/sh\n# runs the aarch64 normlab under qemu (made by make cross-build)\nexec %s "$$(dirname "$$0")/normlab.aarch64" "$$@"\n' \
	        '$(CROSS_RUN)' > $(CROSS_BUILD)/normlab; \
	    chmod +x $(CROSS_BUILD)/normlab; \
	fi

cross-test: cross-build
	@echo "::: running the aarch64 suites under $(CROSS_RUN)"
	$(CROSS_ENV) NL_TEST_WRAPPER="$(CROSS_RUN)" \
	    scripts/ci/run-tests.sh $(CROSS_BUILD)/tests \
	    $(patsubst $(BUILD)/%,$(CROSS_BUILD)/%,$(TESTS))

## ci-stages — the CI stages after `make test` (sanitizers, clang, valgrind, aarch64), timed
ci-stages:
	scripts/ci/ci-stages.sh
