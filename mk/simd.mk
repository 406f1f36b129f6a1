# mk/simd.mk — chapter 5's measurements that are not timings.

SIMD_COUNT := $(BUILD)/simd-count
# Valgrind does not emulate AVX-512, so counting stops at AVX2.
SIMD_COUNT_IMPLS ?= layernorm_naive layernorm_vec layernorm_avx2 layernorm_welford_avx2 \
                    rmsnorm_naive rmsnorm_vec rmsnorm_avx2
SIMD_COUNT_SHAPE ?= 64 4096

$(SIMD_COUNT): $(BUILD)/obj/scripts/tools/simd-count.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

## simd-count — callgrind instructions per element of each SIMD kernel (chapter 5)
.PHONY: simd-count simd-vecinfo
simd-count: $(SIMD_COUNT)
	@rows=$(word 1,$(SIMD_COUNT_SHAPE)); d=$(word 2,$(SIMD_COUNT_SHAPE)); \
	printf '%-26s %14s %10s\n' impl instructions per-elem; \
	for impl in $(SIMD_COUNT_IMPLS); do \
	  ir=$$(valgrind --tool=callgrind --callgrind-out-file=/dev/null \
	        --toggle-collect=nl_$$impl $(SIMD_COUNT) $$impl $$rows $$d 2>&1 \
	        | sed -n 's/.*Collected : *\([0-9]*\).*/\1/p'); \
	  awk -v i=$$impl -v ir=$$ir -v n=$$((rows * d)) \
	      'BEGIN { printf "%-26s %14d %10.2f\n", i, ir, ir / n }'; \
	done

## simd-vecinfo — what GCC's vectoriser does with the naive kernels, with and without -ffast-math
# -fopt-info says a loop was "vectorized"; only the detailed dump tells that
# an ordered float sum was vectorised "in-order": products in vectors, the
# additions still one lane at a time (vaddss), as C's evaluation order says.
simd-vecinfo:
	@tmp=$$(mktemp -d); \
	for flags in "-O2" "-O3" "-O3 -ffast-math"; do \
	  for f in code/scalar/rmsnorm_naive.c code/scalar/layernorm_naive.c code/simd/layernorm_vec.c; do \
	    echo "=== gcc $$flags -mavx2 -mfma $$f"; \
	    gcc -std=c17 $$flags -mavx2 -mfma -Icode/include -Icode -fopt-info-vec-optimized \
	        -fdump-tree-vect-details=$$tmp/vect -S $$f -o $$tmp/s.s 2>&1 | sed 's/^code\///; s/^simd\///' | sort -u; \
	    grep -o '^code/[a-z_/]*\.c:[0-9]*:[0-9]*: note:   using an in-order (fold-left) reduction' \
	        $$tmp/vect | sed 's/^code\///; s/^simd\///; s/note:   //' | sort -u; \
	    printf 'instructions: '; grep -oE '^\s+v(add|fmadd[0-9]*)(ss|ps)' $$tmp/s.s | tr -d ' \t' \
	        | sort | uniq -c | tr '\n' ' '; echo; \
	  done; \
	done; rm -rf $$tmp

## simd-cross-check — build the kernels for aarch64 and test NEON under qemu-aarch64 (no Check needed)
SIMD_CROSS_CC ?= aarch64-linux-gnu-gcc
SIMD_CROSS_RUN ?= qemu-aarch64 -L /usr/aarch64-linux-gnu
.PHONY: simd-cross-check
simd-cross-check:
	@mkdir -p $(BUILD)
	$(SIMD_CROSS_CC) -std=c17 -O2 -Wall -Wextra -Wshadow -Werror -fopenmp -ffp-contract=off \
	    -D_DEFAULT_SOURCE -Icode/include -Icode \
	    $(filter-out %_avx2.c %_avx512.c code/opencl/%,$(ALL_LIB_SRC)) scripts/tools/simd-cross-check.c \
	    -o $(BUILD)/simd-cross-check -lm
	$(SIMD_CROSS_RUN) $(BUILD)/simd-cross-check

## simd-goals — the AVX2 goals' measurement: AVX2 (NORMLAB_ISA=avx2 on a wider CPU) and AVX-512 rows with the peers, 4096x4096 and 16384x8192, 1 thread and every core → build/simd-goals-{avx2,avx512}.csv, every rung of each width → build/simd-rungs-{avx2,avx512}.csv, then bench --goals
.PHONY: simd-goals arm-bench
simd-goals: $(NORMLAB) $(PEERS_VENV)/.installed
	scripts/bench/simd-goals.sh $(BUILD) $(PEERS_VENV)

## arm-bench — on an aarch64 Linux machine: the NEON rungs and dispatchers timed against the copy roof → build/arm-bench-HOST-DATE.csv, the file to send back
arm-bench:
	scripts/bench/arm-bench.sh $(BUILD)
