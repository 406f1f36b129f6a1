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
# --as-needed: only a program that calls BLAS depends on it.  With
# CC=clang the program's OpenMP is LLVM's libomp and OpenBLAS's is GCC's
# libgomp: both load and the results are the same, but each has its own
# threads, so a product called inside the attention's parallel loop may
# start BLAS threads of its own; time training with the gcc build.

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

# ------------------------------------------------------ the experiment
# LayerNorm against RMSNorm, several seeds, on the course's own text and
# code (scripts/tools/train-experiment.sh); the committed CSV gives the
# chapter its numbers (train-report) and its figure.  Minutes of both
# cores: run it on a quiet machine.
TRAIN_REPORT := $(BUILD)/train-report
TRAIN_CSV := book/data/train-reference.csv
TRAIN_SAMPLE := book/data/train-sample-reference.txt
TRAIN_FIG := $(BUILD)/fig-train

$(TRAIN_REPORT): $(BUILD)/obj/scripts/tools/train-report.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

.PHONY: train-experiment figure-train
## train-experiment — LayerNorm and RMSNorm GPT-2s trained from the same weights on the same data, 3 seeds (TRAIN_SEEDS, TRAIN_STEPS, TRAIN_THREADS), the LayerNorm model converted; replaces book/data/train-reference.csv (chapter 13; about 15 minutes on 2 cores, a quiet machine)
train-experiment: $(NORMLAB) $(TRAIN_REPORT)
	scripts/tools/train-experiment.sh run $(NORMLAB) $(TRAIN_REPORT) $(BUILD)/train $(TRAIN_CSV) \
	    $(TRAIN_SAMPLE)

$(TRAIN_CSV):
	@echo "$@ is missing: make train-experiment writes it (about 15 minutes on 2 cores)" >&2; exit 1

$(TRAIN_FIG).dat: $(TRAIN_REPORT) $(TRAIN_CSV)
	$(TRAIN_REPORT) figure > $@

$(TRAIN_FIG).pdf: $(TRAIN_FIG).dat scripts/book/plot-train.gp
	$(gnuplot_pdf_png)
$(TRAIN_FIG).png: $(TRAIN_FIG).pdf

## figure-train — build/fig-train.pdf and .png: validation loss of the LayerNorm and RMSNorm runs by step and by seconds (chapter 13)
figure-train: $(TRAIN_FIG).pdf $(TRAIN_FIG).png

# The gradient check's numbers: the check of tests/check_train_grad.c, run
# once at book time (under a second).
TRAIN_GRADCHECK := $(BUILD)/train-gradcheck
$(TRAIN_GRADCHECK): $(BUILD)/obj/scripts/tools/train-gradcheck.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

BOOK_NUMBERS += $(TRAIN_REPORT) $(TRAIN_GRADCHECK)
book-only html-only web-only: figure-train $(TRAIN_REPORT) $(TRAIN_GRADCHECK)

# -------------------------------------------------- PyTorch beside ours
# The same model, weights, batches and AdamW in PyTorch (the virtual
# environment `make peers` builds under build/), one thread and every core,
# both norms, in one run: tokens/s and the norms' share of a step
# (scripts/bench/train-peers.py).  A quiet machine, please.
TRAIN_PEERS_STEPS ?= 30

.PHONY: train-peers
## train-peers — chapter 13's training step in PyTorch beside ours, one thread and every core, both norms: ms a step, tokens/s, the norms' share → build/train-peers.csv (TRAIN_PEERS_STEPS, default 30; a quiet machine)
train-peers: $(NORMLAB) $(PEERS_VENV)/.installed
	scripts/tools/train-experiment.sh corpus $(BUILD)/train
	$(PEERS_VENV)/bin/python scripts/bench/train-peers.py --normlab $(NORMLAB) \
	    --text $(BUILD)/train/train.txt --steps $(TRAIN_PEERS_STEPS) \
	    --csv $(BUILD)/train-peers.csv --force
