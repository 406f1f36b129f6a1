# mk/precision.mk — chapter 8 (bf16 and fp16).

# The AVX2 cast-order kernels convert fp16 with F16C (vcvtph2ps/vcvtps2ph),
# which every AVX2 CPU has but -mavx2 does not switch on.
$(BUILD)/obj/code/precision/%_avx2.o: ISA_FLAGS := -mavx2 -mfma -mf16c

# Chapter 8's figure, made before the book: the per-row worst error of the
# Llama and Gemma orders, computed now. (book.mk reads BOOK_PREREQS before
# this file is included, so the prerequisite is added to its targets.)
PRECISION_FIG := $(BUILD)/fig-precision
book-only html-only: $(PRECISION_FIG).png
$(PRECISION_FIG).png: $(NORMLAB) scripts/book/plot-precision.sh
	$(NORMLAB) precision --histogram $(PRECISION_FIG).dat --force > /dev/null
	scripts/book/plot-precision.sh $(PRECISION_FIG).dat $(PRECISION_FIG)

# Instruction and cycle counts of the 16-bit kernels (chapter 8's lab
# notebook, "Where the cycles go"): perf stat over REPS calls on a problem
# that stays in L2, less a run of no calls, per 16 elements. perf's
# counters move little with the load of a shared machine; on a kernel
# without a PMU driver ("software events only") only task-clock, the CPU
# time of the process, is left: then ns per 16.
HALF_COUNT := $(BUILD)/half-count
HALF_PERF_IMPLS ?= rmsnorm_llama_bf16_avx512 rmsnorm_llama_bf16_avx512_f32stats \
                   rmsnorm_llama_f16_avx512 rmsnorm_llama_f16_avx512_f32stats \
                   rmsnorm_gemma_bf16_avx512 rmsnorm_gemma_bf16_avx512_f32stats \
                   layernorm_torch_bf16_avx512 layernorm_torch_bf16_avx512_f32stats \
                   layernorm_torch_f16_avx512 layernorm_torch_f16_avx512_f32stats \
                   rmsnorm_llama_bf16_avx512_pipe rmsnorm_gemma_bf16_avx512_pipe \
                   layernorm_torch_bf16_avx512_pipe layernorm_torch_f16_avx512_pipe
HALF_PERF_SHAPE ?= 32 4096 400
$(HALF_COUNT): $(BUILD)/obj/scripts/tools/half-count.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

## half-perf — perf stat per 16 elements of the bf16/fp16 kernels: instructions, cycles, CPU ns (chapter 8)
.PHONY: half-perf
half-perf: $(HALF_COUNT)
	@command -v perf > /dev/null || { echo "half-perf: perf not found (Debian: linux-perf)" >&2; exit 1; }
	@rows=$(word 1,$(HALF_PERF_SHAPE)); d=$(word 2,$(HALF_PERF_SHAPE)); reps=$(word 3,$(HALF_PERF_SHAPE)); \
	printf '%-38s %9s %9s %9s\n' "impl ($$rows x $$d, $$reps calls)" 'insn/16' 'cyc/16' 'cpu ns/16'; \
	for impl in $(HALF_PERF_IMPLS); do \
	  c() { perf stat -x, -e instructions:u,cycles:u,task-clock $(HALF_COUNT) $$impl $$rows $$d $$1 2>&1 >/dev/null \
	        | awk -F, '/instructions/ {i=$$1} /cycles/ {c=$$1} /task-clock/ {t=$$1} \
	                   END {if (i !~ /^[0-9]/) i = "-"; if (c !~ /^[0-9]/) c = "-"; print i, c, t}'; }; \
	  set -- $$(c $$reps) $$(c 0); \
	  awk -v n=$$impl -v i=$$1 -v c=$$2 -v t=$$3 -v i0=$$4 -v c0=$$5 -v t0=$$6 -v e=$$((rows * d * reps)) \
	    'BEGIN { f = "%9s"; \
	             printf "%-38s ", n; \
	             if (i == "-") printf "%9s %9s ", "-", "-"; \
	             else printf "%9.1f %9.1f ", (i - i0) * 16 / e, (c - c0) * 16 / e; \
	             printf "%9.2f\n", (t - t0) * 1e6 * 16 / e }'; \
	done; \
	perf stat -e cycles true 2>&1 | grep -q 'not supported' && \
	  echo "(no hardware counters here: perf reports software events only; instructions from scripts/tools/loop-insns.py)" || true

# The backward's access pattern against the copy, beside the stream rung,
# one thread (chapter 10, "Where the time goes"): x86-64 with AVX-512 only.
BWD_PATTERN := $(BUILD)/bwd-pattern
$(BWD_PATTERN): $(BUILD)/obj/scripts/tools/bwd_pattern_avx512.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

## bwd-pattern — chapter 10: the backward's bare access patterns (one pass, two passes with and without asking for the next rows) and the stream and skew rungs as fractions of the copy, 16384x8192, one thread
.PHONY: bwd-pattern
bwd-pattern: $(BWD_PATTERN)
	$(BWD_PATTERN) $(BWD_PATTERN_ARGS)

# The 16-bit forward's bare access patterns and its fast rungs against the
# copy, with y moved along its page, in place and on huge pages, and each
# rung's arithmetic in L2 (chapter 8's lab notebook, "The limit"): x86-64
# with AVX-512.
HALF_PATTERN := $(BUILD)/half-pattern
$(HALF_PATTERN): $(BUILD)/obj/scripts/tools/half_pattern_avx512.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

## half-pattern — chapter 8: bf16 (HALF_PATTERN_ARGS="16384 8192 7 f16": fp16) bare access patterns and fast rungs as fractions of the copy (y offset, in place, 2 MiB pages), 16384x8192, one thread
.PHONY: half-pattern
half-pattern: $(HALF_PATTERN)
	$(HALF_PATTERN) $(HALF_PATTERN_ARGS)
