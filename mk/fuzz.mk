# fuzz.mk — fuzz the config.json reader for a bounded time.
#
#   make fuzz                   60 s with libFuzzer (clang), ASan + UBSan
#   make fuzz FUZZ_SECONDS=300  longer
#   make fuzz-afl               the same target under AFL++ (afl-clang-fast)
#
# The corpus starts from every fixture config and grows in build-fuzz/corpus
# (kept between runs); crashes land in build-fuzz/ as crash-* files, and the
# target fails when one is found.  Packages: scripts/setup/deps/fuzz.txt.

FUZZ_SECONDS ?= 60
FUZZ_CC      ?= clang
FUZZ_DIR     := build-fuzz
# The reader and the two core files it needs: error.c (nl_set_error) and
# util.c (nl_read_file).  A link error here means the reader grew a new
# dependency: add its file, as the CI stage `fuzz` will say.
FUZZ_SRC     := tests/fuzz/fuzz_config.c $(sort $(wildcard code/config/*.c)) code/core/error.c \
                code/core/util.c
FUZZ_CFLAGS  := -std=c17 -g -O1 -D_DEFAULT_SOURCE -Icode/include -Icode \
                $(shell pkg-config --cflags libcjson 2>/dev/null)
FUZZ_LIBS    := $(shell pkg-config --libs libcjson 2>/dev/null) -lm
FUZZ_SEEDS   := $(shell find tests/fixtures/configs -name '*.json' 2>/dev/null)

.PHONY: fuzz fuzz-build fuzz-afl fuzz-deps

# Runs before any fuzz build, so a missing clang or AFL++ is named with the
# command that installs it rather than failing as a compiler error.
fuzz-deps:
	@scripts/setup/deps.sh fuzz

## fuzz — fuzz the config.json reader with libFuzzer for FUZZ_SECONDS (default 60)
fuzz: $(FUZZ_DIR)/fuzz_config
	@mkdir -p $(FUZZ_DIR)/corpus
	@cp -n $(FUZZ_SEEDS) $(FUZZ_DIR)/corpus/ 2>/dev/null || true
	cd $(FUZZ_DIR) && ./fuzz_config -max_total_time=$(FUZZ_SECONDS) -max_len=4096 \
	    -dict=../tests/fuzz/config.dict -print_final_stats=1 corpus 2>&1 | tee fuzz.log | \
	    grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss|==[0-9]+==ERROR|SUMMARY|artifact_prefix|Test unit written)' ; \
	    test $${PIPESTATUS[0]} -eq 0
	@echo "fuzz: $$(grep -h 'stat::number_of_executed_units' $(FUZZ_DIR)/fuzz.log | awk '{print $$2}') executions in $(FUZZ_SECONDS) s, no crash; corpus $$(ls $(FUZZ_DIR)/corpus | wc -l) inputs"

fuzz-build: $(FUZZ_DIR)/fuzz_config

$(FUZZ_DIR)/fuzz_config: $(FUZZ_SRC) $(wildcard code/config/*.h) code/include/normlab.h | fuzz-deps
	@mkdir -p $(@D)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	    -o $@ $(FUZZ_SRC) $(FUZZ_LIBS)

## fuzz-afl — fuzz the config.json reader with AFL++ for FUZZ_SECONDS (default 60)
fuzz-afl: $(FUZZ_DIR)/fuzz_config_afl
	@mkdir -p $(FUZZ_DIR)/afl-in
	@cp -n $(FUZZ_SEEDS) $(FUZZ_DIR)/afl-in/ 2>/dev/null || true
	AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
	    afl-fuzz -V $(FUZZ_SECONDS) -x tests/fuzz/config.dict -i $(FUZZ_DIR)/afl-in \
	    -o $(FUZZ_DIR)/afl-out -- $(FUZZ_DIR)/fuzz_config_afl > $(FUZZ_DIR)/afl.log 2>&1 || true
	@grep -E 'execs_done|saved_crashes|saved_hangs' $(FUZZ_DIR)/afl-out/default/fuzzer_stats
	@test "$$(awk '/saved_crashes/{print $$3}' $(FUZZ_DIR)/afl-out/default/fuzzer_stats)" = 0

$(FUZZ_DIR)/fuzz_config_afl: $(FUZZ_SRC) $(wildcard code/config/*.h) code/include/normlab.h | fuzz-deps
	@mkdir -p $(@D)
	AFL_USE_ASAN=1 AFL_USE_UBSAN=1 afl-clang-fast $(FUZZ_CFLAGS) -fsanitize=fuzzer \
	    -o $@ $(FUZZ_SRC) $(FUZZ_LIBS)
