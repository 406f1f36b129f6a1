# fuzz.mk — fuzz the readers of files a person hands normlab, each for a
# bounded time: config.json (code/config/), .npy and .safetensors
# (code/io/).
#
#   make fuzz                   every target for FUZZ_SECONDS (default 60) each,
#                               with libFuzzer (clang), ASan + UBSan
#   make fuzz FUZZ_SECONDS=300  longer
#   make fuzz FUZZ_TARGETS=npy  one of them (config npy safetensors)
#   make fuzz-afl               the config target under AFL++ (afl-clang-fast)
#
# Each corpus starts from the fixtures of its format and grows in
# build-fuzz/corpus-TARGET (kept between runs); crashes land in build-fuzz/
# as crash-* files, and the target fails when one is found.  Packages:
# scripts/setup/deps/fuzz.txt.

FUZZ_SECONDS ?= 60
FUZZ_TARGETS ?= config npy safetensors
FUZZ_CC      ?= clang
FUZZ_DIR     := build-fuzz
# Each reader and the core files it needs: error.c (nl_set_error) and
# util.c (nl_read_file, nl_alloc).  A link error here means a reader grew a
# new dependency: add its file, as the CI stage `fuzz` will say.
FUZZ_CORE    := code/core/error.c code/core/util.c
FUZZ_SRC_config      := $(sort $(wildcard code/config/*.c))
FUZZ_SRC_npy         := $(sort $(wildcard code/io/*.c))
FUZZ_SRC_safetensors := $(FUZZ_SRC_npy)
FUZZ_CFLAGS  := -std=c17 -g -O1 -D_DEFAULT_SOURCE -Icode/include -Icode \
                $(shell pkg-config --cflags libcjson 2>/dev/null)
FUZZ_LIBS    := $(shell pkg-config --libs libcjson 2>/dev/null) -lm
FUZZ_SEEDS_config      := $(shell find tests/fixtures/configs -name '*.json' 2>/dev/null)
FUZZ_SEEDS_npy         := $(wildcard tests/fixtures/npy/*.npy)
FUZZ_SEEDS_safetensors := $(wildcard tests/fixtures/safetensors/*.safetensors)
# The largest input tried: a config is text, an array file a header and a
# little data.
FUZZ_MAXLEN_config      := 4096
FUZZ_MAXLEN_npy         := 1024
FUZZ_MAXLEN_safetensors := 2048

.PHONY: fuzz fuzz-build fuzz-afl fuzz-deps $(FUZZ_TARGETS:%=fuzz-%)

# Runs before any fuzz build, so a missing clang or AFL++ is named with the
# command that installs it rather than failing as a compiler error.
fuzz-deps:
	@scripts/setup/deps.sh fuzz

## fuzz — fuzz the config, .npy and .safetensors readers with libFuzzer, FUZZ_SECONDS (default 60) each
fuzz: $(FUZZ_TARGETS:%=fuzz-%)

$(FUZZ_TARGETS:%=fuzz-%): fuzz-%: $(FUZZ_DIR)/fuzz_%
	@mkdir -p $(FUZZ_DIR)/corpus-$*
	@cp -n $(FUZZ_SEEDS_$*) $(FUZZ_DIR)/corpus-$*/ 2>/dev/null || true
	cd $(FUZZ_DIR) && ./fuzz_$* -max_total_time=$(FUZZ_SECONDS) -max_len=$(FUZZ_MAXLEN_$*) \
	    -dict=../tests/fuzz/$*.dict -print_final_stats=1 corpus-$* > fuzz-$*.log 2>&1; rc=$$?; \
	    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|SUMMARY|artifact_prefix|Test unit written)' fuzz-$*.log; \
	    if [ $$rc -ne 0 ]; then \
	        echo "fuzz $*: what failed:"; \
	        grep -E '^==[0-9]+== ?ERROR|broken promise|^ +#[0-9]+ .* in [^ ]+ [^ ]*/(code|tests)/|^Base64:' fuzz-$*.log | head -20; \
	        echo "fuzz $*: replay: $(FUZZ_DIR)/fuzz_$* $(FUZZ_DIR)/crash-...; the whole log: $(FUZZ_DIR)/fuzz-$*.log"; \
	    fi; exit $$rc
	@echo "fuzz $*: $$(grep -h 'stat::number_of_executed_units' $(FUZZ_DIR)/fuzz-$*.log | awk '{print $$2}') executions in $(FUZZ_SECONDS) s, no crash; corpus $$(ls $(FUZZ_DIR)/corpus-$* | wc -l) inputs"

fuzz-build: $(FUZZ_TARGETS:%=$(FUZZ_DIR)/fuzz_%)

# (every target depends on every reader's sources: a needless rebuild at
# worst, and no second expansion for the whole Makefile)
$(FUZZ_DIR)/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_SRC_config) $(FUZZ_SRC_npy) $(FUZZ_CORE) tests/fuzz/fuzz_file.h \
                    $(wildcard code/config/*.h code/io/*.h) code/include/normlab.h | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -o $@ $< $(FUZZ_SRC_$*) $(FUZZ_CORE) $(FUZZ_LIBS)

## fuzz-afl — fuzz the config.json reader with AFL++ for FUZZ_SECONDS (default 60)
fuzz-afl: $(FUZZ_DIR)/fuzz_config_afl
	@mkdir -p $(FUZZ_DIR)/afl-in
	@cp -n $(FUZZ_SEEDS_config) $(FUZZ_DIR)/afl-in/ 2>/dev/null || true
	AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
	    afl-fuzz -V $(FUZZ_SECONDS) -x tests/fuzz/config.dict -i $(FUZZ_DIR)/afl-in \
	    -o $(FUZZ_DIR)/afl-out -- $(FUZZ_DIR)/fuzz_config_afl > $(FUZZ_DIR)/afl.log 2>&1 || true
	@grep -E 'execs_done|saved_crashes|saved_hangs' $(FUZZ_DIR)/afl-out/default/fuzzer_stats
	@test "$$(awk '/saved_crashes/{print $$3}' $(FUZZ_DIR)/afl-out/default/fuzzer_stats)" = 0

$(FUZZ_DIR)/fuzz_config_afl: tests/fuzz/fuzz_config.c $(FUZZ_SRC_config) $(FUZZ_CORE) \
                             $(wildcard code/config/*.h) code/include/normlab.h | fuzz-deps
	@mkdir -p $(@D)
	AFL_USE_ASAN=1 AFL_USE_UBSAN=1 afl-clang-fast $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	    -o $@ tests/fuzz/fuzz_config.c $(FUZZ_SRC_config) $(FUZZ_CORE) $(FUZZ_LIBS)
