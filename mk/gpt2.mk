# gpt2.mk — chapter 12: the random checkpoint generator and the
# equivalence experiment whose numbers and figure the chapter quotes
# (scripts/tools/gpt2-random.c, scripts/tools/gpt2-equiv.c).

GPT2_RANDOM := $(BUILD)/gpt2-random
GPT2_EQUIV := $(BUILD)/gpt2-equiv

$(GPT2_RANDOM): $(BUILD)/obj/scripts/tools/gpt2-random.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

.PHONY: gpt2-random
## gpt2-random — build/gpt2-random: writes a random GPT-2 checkpoint in llm.c's layout (chapter 12)
gpt2-random: $(GPT2_RANDOM)

$(GPT2_EQUIV): $(BUILD)/obj/scripts/tools/gpt2-equiv.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

GPT2_FIG := $(BUILD)/fig-gpt2

$(GPT2_FIG).dat: $(GPT2_EQUIV)
	$(GPT2_EQUIV) figure > $@

$(GPT2_FIG).pdf: $(GPT2_FIG).dat scripts/book/plot-gpt2.gp
	$(gnuplot_pdf_png)
$(GPT2_FIG).png: $(GPT2_FIG).pdf

.PHONY: figure-gpt2
## figure-gpt2 — build/fig-gpt2.pdf and .png: float error of each converted GPT-2 against the original, by sequence length (chapter 12)
figure-gpt2: $(GPT2_FIG).pdf $(GPT2_FIG).png
# The chapter's {{equiv.*}} numbers: gpt2-equiv prints them (no argument),
# beside book-numbers.  book.mk is read first, so the targets get the
# figure and the program here, by name.
BOOK_NUMBERS += $(GPT2_EQUIV)
book-only html-only web-only: figure-gpt2 $(GPT2_EQUIV)

# The bench rows' kernels are plain C that the compiler vectorises
# (code/gpt2/kernels.h): -O3 unrolls and vectorises what -O2 leaves alone.
$(BUILD)/obj/code/gpt2/matmul.o $(BUILD)/obj/code/gpt2/norm_kernels.o: ALL_CFLAGS += -O3

# ------------------------------------------------ the bench rows (ch 12)
# Two committed runs, the book's numbers and figure: `normlab bench --gpt2`
# (the norms, 101 samples: each is a millisecond) and `--flashnorm` (the
# matmuls, the default 21), one thread each; the make target below
# replaces them (a quiet machine, please).
GPT2_BENCH := $(BUILD)/gpt2-bench
GPT2_BENCH_FIG := $(BUILD)/fig-gpt2-bench
GPT2_NORMS_CSV := book/data/gpt2-norms-reference.csv
GPT2_FLASH_CSV := book/data/flashnorm-reference.csv

$(GPT2_BENCH): $(BUILD)/obj/scripts/tools/gpt2-bench.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(GPT2_BENCH_FIG).dat: $(GPT2_BENCH) $(GPT2_NORMS_CSV) $(GPT2_FLASH_CSV)
	$(GPT2_BENCH) figure > $@

$(GPT2_BENCH_FIG).pdf: $(GPT2_BENCH_FIG).dat scripts/book/plot-gpt2-bench.gp
	$(gnuplot_pdf_png)
$(GPT2_BENCH_FIG).png: $(GPT2_BENCH_FIG).pdf

.PHONY: figure-gpt2-bench gpt2-bench-reference
## figure-gpt2-bench — build/fig-gpt2-bench.pdf and .png: norm time per token per GPT-2, and FlashNorm against norm then matmul (chapter 12)
figure-gpt2-bench: $(GPT2_BENCH_FIG).pdf $(GPT2_BENCH_FIG).png

## gpt2-bench-reference — rerun `normlab bench --gpt2` and `--flashnorm` (one thread) and replace book/data/gpt2-norms-reference.csv and flashnorm-reference.csv (quiet machine)
# Both runs write under build/ and are copied at the end: a tracked CSV
# rewritten by the first run would mark the second's commit note dirty.
gpt2-bench-reference: $(NORMLAB)
	$(NORMLAB) bench --gpt2 --threads 1 --samples 101 --force --csv $(BUILD)/gpt2-norms.csv \
	    $(BENCH_NOTES) \
	    --note "load: 1/5/15-minute load average $$(cut -d' ' -f1-3 /proc/loadavg) when the bench started"
	$(NORMLAB) bench --flashnorm --threads 1 --force --csv $(BUILD)/flashnorm.csv $(BENCH_NOTES) \
	    --note "load: 1/5/15-minute load average $$(cut -d' ' -f1-3 /proc/loadavg) when the bench started"
	cp $(BUILD)/gpt2-norms.csv $(GPT2_NORMS_CSV)
	cp $(BUILD)/flashnorm.csv $(GPT2_FLASH_CSV)

BOOK_NUMBERS += $(GPT2_BENCH)
book-only html-only web-only: figure-gpt2-bench $(GPT2_BENCH)
