# mk/simd.mk — chapter 5's measurements that are not timings.

SIMD_COUNT := $(BUILD)/simd-count
# Valgrind does not emulate AVX-512, so counting stops at AVX2.
SIMD_COUNT_IMPLS ?= layernorm_naive layernorm_vec layernorm_avx2 layernorm_welford_avx2 \
                    rmsnorm_naive rmsnorm_vec rmsnorm_avx2
SIMD_COUNT_SHAPE ?= 64 4096

$(SIMD_COUNT): $(BUILD)/obj/scripts/simd_count.o $(LIB)
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

## simd-vecinfo — what GCC's vectoriser says about the naive kernels, with and without -ffast-math
simd-vecinfo:
	@for flags in "-O3" "-O3 -ffast-math"; do \
	  for f in code/rmsnorm_naive.c code/layernorm_naive.c; do \
	    echo "=== gcc $$flags -mavx2 -mfma $$f"; \
	    gcc -std=c17 $$flags -mavx2 -mfma -Icode/include -fopt-info-vec-all -c $$f -o /dev/null 2>&1 \
	      | grep -E 'loop vectorized|reduction|not vectorized: ' | sed 's/^code\///' | sort -u; \
	  done; \
	done
