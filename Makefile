# normlab — build, run and test the course.
#
#   make            check/install system packages, build, run `normlab demo`
#   make test       build and run every Check suite (alias: make check)
#   make help       every target
#
# Variables: CC=clang, SAN=1 (ASan+UBSan build in build-san/), WERROR=1, V=1,
# BUILD=dir (out-of-tree build folder; default build/).
# Areas add their own targets in mk/*.mk (book, grade, bench, ...).

.DEFAULT_GOAL := all
SHELL := /bin/bash

CC      ?= cc
ifeq ($(origin CC),default)
CC := gcc
endif
SAN     ?=
WERROR  ?= $(if $(filter true,$(CI)),1,)
# One build folder per compiler and sanitizer setting, so that switching
# never mixes their objects.
CC_TAG  := $(if $(findstring clang,$(CC)),-clang,)
ifeq ($(SAN),1)
BUILD   ?= build-san$(CC_TAG)
else
BUILD   ?= build$(CC_TAG)
endif

TARGET_ARCH_NAME := $(shell $(CC) -dumpmachine 2>/dev/null | cut -d- -f1)
PKGS    := check libcjson OpenCL

# Flags every file gets; -ffp-contract=off keeps scalar code bit-for-bit
# what its C says (no silent FMA), so the ladder compares like with like.
CFLAGS  ?= -O2 -g
ALL_CFLAGS := -std=c17 -Wall -Wextra -Wshadow -Wstrict-prototypes \
    -Wno-unknown-pragmas -fopenmp -ffp-contract=off \
    -D_DEFAULT_SOURCE -DCL_TARGET_OPENCL_VERSION=120 \
    -Icode/include -Icode \
    $(shell pkg-config --cflags $(PKGS) 2>/dev/null) $(CFLAGS)
ifeq ($(WERROR),1)
ALL_CFLAGS += -Werror
endif
ifeq ($(SAN),1)
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
ALL_CFLAGS += $(SANFLAGS)
LDFLAGS += $(SANFLAGS)
# PoCL compiles kernels with LLVM on a cold kernel cache and keeps what it
# allocated there; tests/lsan.supp names that one driver function. PoCL has
# no frame pointers, so only the slow unwinder sees its name.
# intercept_tls_get_addr=0: the dynamic TLS of libraries loaded with
# dlopen (PoCL's, through the ICD loader) is tracked wrongly here, and
# LeakSanitizer's tracer crashed reading it at a forked test's exit ("DTLS
# 9 at 0x1873-0x800002975", then "Tracer caught signal 11"; gcc 12, glibc
# 2.36; check_invariance's OpenCL rows). Static TLS (libgomp's thread pool,
# ours) is still scanned; only pointers held in a dlopen'd library's
# thread-locals go unseen, which could add a report, never hide one of ours.
export ASAN_OPTIONS ?= fast_unwind_on_malloc=0:intercept_tls_get_addr=0
export LSAN_OPTIONS ?= suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0
export UBSAN_OPTIONS ?= print_stacktrace=1
endif
LDLIBS  := $(shell pkg-config --libs libcjson OpenCL 2>/dev/null) -fopenmp -lm
CHECK_LIBS := $(shell pkg-config --libs check 2>/dev/null)

# Sources. ISA-specific files are named *_avx2.c, *_avx512.c, *_neon.c and
# are compiled only where that ISA exists, each with its own -m flags.
ALL_LIB_SRC := $(sort $(shell find code -name '*.c' ! -path 'code/cli/*' ! -path 'code/mpi/*'))
ifeq ($(TARGET_ARCH_NAME),x86_64)
LIB_SRC := $(filter-out %_neon.c,$(ALL_LIB_SRC))
else ifeq ($(TARGET_ARCH_NAME),aarch64)
LIB_SRC := $(filter-out %_avx2.c %_avx512.c,$(ALL_LIB_SRC))
else
LIB_SRC := $(filter-out %_avx2.c %_avx512.c %_neon.c,$(ALL_LIB_SRC))
endif
CLI_SRC  := $(sort $(wildcard code/cli/*.c))
TEST_SRC := $(sort $(wildcard tests/check_*.c))
HARNESS_SRC := $(sort $(wildcard tests/harness/*.c))

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o)
CLI_OBJ  := $(CLI_SRC:%.c=$(BUILD)/obj/%.o)
HARNESS_OBJ := $(HARNESS_SRC:%.c=$(BUILD)/obj/%.o)
TESTS    := $(TEST_SRC:tests/%.c=$(BUILD)/tests/%)
LIB      := $(BUILD)/libnormlab.a
NORMLAB  := $(BUILD)/normlab

$(BUILD)/obj/%_avx2.o:   ISA_FLAGS := -mavx2 -mfma
$(BUILD)/obj/%_avx512.o: ISA_FLAGS := -mavx512f -mavx512dq -mavx512bw -mavx512vl -mfma

.PHONY: all build test check deps clean help demo test-only
.SECONDARY:
# `all` and `test` first make sure the packages are there, then run make
# again: pkg-config's flags are read when make starts, so on a fresh machine
# they must be read after the install, not before.
# The build itself uses every core (JOBS=N to choose): each file compiles
# alone, and a fresh build is a minute on one core.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
all: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build
	@$(MAKE) --no-print-directory demo

build: $(NORMLAB) $(TESTS)

demo: $(NORMLAB)
	$(NORMLAB) demo

DEPS_GROUPS := base $(if $(findstring clang,$(CC)),clang,)
deps:
	@scripts/setup/deps.sh $(DEPS_GROUPS)

# Quiet by default (one line per file); V=1 shows every command.
ifeq ($(V),1)
Q :=
say = @true
else
Q := @
say = @printf '  %-5s %s\n' $(1) $(2)
endif

# Objects depend on the flags they were built with: WERROR=1 or new CFLAGS
# rebuild everything, and an unchanged command line rebuilds nothing.
FLAGS_STAMP := $(BUILD)/.flags
# FLAGS_NOW is fixed once every mk/*.mk has added its flags (end of this
# file): a recursive one took the target-specific flags of whichever
# object first asked for the stamp (tests' -Itests/harness, MPI's), so
# `make build/tests/check_X` then `make build` rebuilt 107 then 176 files.
$(FLAGS_STAMP): FORCE
	@mkdir -p $(@D)
	@[ -f $@ ] && [ "$$(cat $@)" = '$(FLAGS_NOW)' ] || printf '%s' '$(FLAGS_NOW)' > $@
.PHONY: FORCE
FORCE:

$(BUILD)/obj/%.o: %.c $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(call say,CC,$<)
	$(Q)$(CC) $(ALL_CFLAGS) $(ISA_FLAGS) -MMD -MP -c $< -o $@

$(LIB): $(LIB_OBJ)
	@rm -f $@
	$(call say,AR,$@)
	$(Q)$(AR) rcs $@ $^

$(NORMLAB): $(CLI_OBJ) $(LIB)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $(CLI_OBJ) $(LIB) $(LDLIBS)

$(BUILD)/tests/%: $(BUILD)/obj/tests/%.o $(HARNESS_OBJ) $(LIB)
	@mkdir -p $(@D)
	$(call say,LINK,$@)
	$(Q)$(CC) $(LDFLAGS) -o $@ $< $(HARNESS_OBJ) $(LIB) $(CHECK_LIBS) $(LDLIBS)

$(BUILD)/obj/tests/%.o: ALL_CFLAGS += -Itests/harness

# `make test` is what CI runs: every suite, one summary, exit 0 only if all
# pass and every suite ran at least one test.
test: deps
	@$(MAKE) --no-print-directory -j$(JOBS) build
	@$(MAKE) --no-print-directory test-only
test-only: $(TESTS) $(NORMLAB)
	@scripts/ci/run-tests.sh $(BUILD)/tests $(TESTS)
check: test

clean:
	rm -rf build build-* 

help:
	@sed -n '2,9p' Makefile | sed 's/^# \{0,1\}//'
	@echo "More targets:"; grep -h '^## ' mk/*.mk 2>/dev/null | sed 's/^## /  /'

-include $(shell find $(BUILD)/obj -name '*.d' 2>/dev/null)
-include $(sort $(wildcard mk/*.mk))
FLAGS_NOW := $(CC) $(ALL_CFLAGS) $(LDFLAGS)
