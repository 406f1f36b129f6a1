# bench.mk — `normlab bench`, the oneDNN peer, and the benchmark figure.

# --------------------------------------------------------- oneDNN (optional)
# The peer is built when oneDNN's C header is found (pkg-config first; the
# Debian package ships no .pc file, so then the header itself).  NO_DNNL=1
# leaves it out.  Only for native builds: a cross build must not pick up
# the host's library.
NO_DNNL ?=
DNNL_CFLAGS :=
DNNL_LIBS :=
ifeq ($(NO_DNNL)$(filter-out $(shell uname -m),$(TARGET_ARCH_NAME)),)
DNNL_LIBS := $(shell pkg-config --libs dnnl 2>/dev/null)
DNNL_CFLAGS := $(shell pkg-config --cflags dnnl 2>/dev/null)
ifeq ($(DNNL_LIBS),)
ifneq ($(wildcard /usr/include/dnnl.h /usr/local/include/dnnl.h),)
DNNL_LIBS := -ldnnl
endif
endif
endif
ifneq ($(DNNL_LIBS),)
ALL_CFLAGS += -DNL_HAVE_DNNL $(DNNL_CFLAGS)
LDLIBS += $(DNNL_LIBS)
endif

# Rebuild the peer and relink when oneDNN appears or goes away: the stamp
# changes only when the detection result does.
NL_DNNL_STAMP := $(BUILD)/dnnl.stamp
NL_DNNL_STATE := $(if $(DNNL_LIBS),$(DNNL_LIBS),none)
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(NL_DNNL_STAMP) 2>/dev/null)" = "$(NL_DNNL_STATE)" ] || echo "$(NL_DNNL_STATE)" > $(NL_DNNL_STAMP); })
$(BUILD)/obj/code/bench/onednn.o $(NORMLAB) $(TESTS): $(NL_DNNL_STAMP)

# The copy roof's plain loop must stay a loop: without this the compiler
# recognizes it and calls memcpy, and two of the three roofs coincide.
$(BUILD)/obj/code/bench/copy_kernel.o: ALL_CFLAGS += -fno-builtin

# ------------------------------------------------------------- benchmarks
# Each CSV is stamped with where it came from; the binary adds the CPU,
# compiler, date and thread counts itself.
BENCH_FLAGS ?=
BENCH_NOTES = --note "commit: $$(git describe --always --dirty 2>/dev/null || echo unknown)" \
    --note "make: CC=$(CC) CFLAGS=$(strip $(CFLAGS))$(if $(DNNL_LIBS), DNNL=$(DNNL_LIBS),)" \
    --note "load: 1/5/15-minute load average $$(cut -d' ' -f1-3 /proc/loadavg) when the bench started"

.PHONY: bench bench-quick bench-reference figures

## bench — full benchmark (every implementation; in-cache, 64 MiB, 256 MiB and 512 MiB shapes; 1 and all threads) → build/bench.csv; minutes: run it on a quiet machine
bench: $(NORMLAB)
	$(NORMLAB) bench --force --csv $(BUILD)/bench.csv $(BENCH_NOTES) $(BENCH_FLAGS)

## bench-quick — the same in under a minute (fewer samples, two shapes) → build/bench-quick.csv
bench-quick: $(NORMLAB)
	$(NORMLAB) bench --quick --force --csv $(BUILD)/bench-quick.csv $(BENCH_NOTES) $(BENCH_FLAGS)

# A fresh result on demand, for `make figures BENCH_CSV=build/bench.csv`.
$(BUILD)/bench.csv: | $(NORMLAB)
	$(NORMLAB) bench --force --csv $@ $(BENCH_NOTES) $(BENCH_FLAGS)

## bench-reference — rerun the full benchmark and replace book/data/bench-reference.csv (the book's numbers; quiet machine, full ladder merged)
bench-reference: $(NORMLAB)
	$(NORMLAB) bench --force --csv book/data/bench-reference.csv $(BENCH_NOTES) $(BENCH_FLAGS)

# ----------------------------------------------------------------- figure
# The book draws its benchmark figures from committed reference CSVs, or
# from a fresh run (BENCH_CSV=build/bench.csv). Each figure keeps one kind
# of row (plot-bench.sh --rows) from our CSV and from its peers' CSV, so a
# chapter shows the frameworks beside our kernels for its own problem:
#   fig-bench     f32 forward (chapter 6)
#   fig-half      bf16 and fp16 forward (chapter 8)
#   fig-backward  the backward passes (chapter 10)
# Each has its peers' run: PEERS_REF the f32 forward, PEERS_HALF_REF the
# 16-bit forward, PEERS_BWD_REF the backward. A peers' CSV set empty draws
# ours alone.
BENCH_CSV ?= book/data/bench-reference.csv
HALF_CSV ?= book/data/half-block-reference.csv
BACKWARD_CSV ?= book/data/backward-reference.csv
PEERS_REF ?= book/data/peers-f32-reference.csv
PEERS_HALF_REF ?= book/data/peers-reference.csv
PEERS_BWD_REF ?= book/data/peers-fwd-bwd-reference.csv
# fig-half draws the kernels a reader calls (`_best`, `_omp`) of each cast
# order and dtype, in this order, against the peers on the same dtypes.
HALF_FIG_IMPLS ?= rmsnorm_llama_bf16_best,rmsnorm_gemma_bf16_best,layernorm_torch_bf16_best,rmsnorm_llama_f16_best,layernorm_torch_f16_best,rmsnorm_llama_bf16_omp,rmsnorm_gemma_bf16_omp,layernorm_torch_bf16_omp,rmsnorm_llama_f16_omp,layernorm_torch_f16_omp,torch-*/*,jax-*/*
BENCH_FIG := $(BUILD)/fig-bench
FIGURES := $(BENCH_FIG) $(BUILD)/fig-half $(BUILD)/fig-backward
# The rows a figure draws (plot-bench.sh --impl, --shape; empty: all of
# its kind). Chapter 6 reads the ladder's steps against the copy in cache
# and beyond the last-level cache, beside the peers; chapter 10 the
# backward's named rungs (the dispatchers' names ran other rungs when
# backward-reference.csv was taken) beside the peers' backward.
FIG_BENCH_IMPLS ?= layernorm_naive,rmsnorm_naive,layernorm_avx512,rmsnorm_avx512,layernorm_avx512_nt,rmsnorm_avx512_nt,layernorm_avx512_pf,rmsnorm_avx512_pf,layernorm_avx512_shift,layernorm_avx512_block,rmsnorm_avx512_block,layernorm_omp,rmsnorm_omp,onednn,ort-*/*,torch-*/*,jax-*/*
FIG_BENCH_SHAPES ?= 256x1024,4096x4096,16384x8192
FIG_BACKWARD_IMPLS ?= *_bwd_fused,*_bwd_avx512,*_bwd_avx512_stream,*_bwd_avx512_skew,*_bwd_stream_omp,*_bwd_skew_omp,torch-*/*,jax-*/*
fig_rows = $(if $(filter %-half,$1),half,$(if $(filter %-backward,$1),backward,f32))
fig_csv = $(if $(filter %-half,$1),$(HALF_CSV),$(if $(filter %-backward,$1),$(BACKWARD_CSV),$(BENCH_CSV)))
fig_peers = $(if $(filter %-half,$1),$(PEERS_HALF_REF),$(if $(filter %-backward,$1),$(PEERS_BWD_REF),$(PEERS_REF)))
fig_select = $(if $(filter %-bench,$1),$(if $(FIG_BENCH_IMPLS),--impl '$(FIG_BENCH_IMPLS)') $(if $(FIG_BENCH_SHAPES),--shape '$(FIG_BENCH_SHAPES)'),$(if $(filter %-backward,$1),$(if $(FIG_BACKWARD_IMPLS),--impl '$(FIG_BACKWARD_IMPLS)'),$(if $(filter %-half,$1),$(if $(HALF_FIG_IMPLS),--impl '$(HALF_FIG_IMPLS)'))))

## figures — build/fig-{bench,half,backward}.{pdf,png}: fraction of copy bandwidth per implementation and shape, ours and the peers' (chapters 6, 8, 10), from BENCH_CSV, HALF_CSV, BACKWARD_CSV (default: book/data/*-reference.csv); build/fig-widths: the f32 rungs at AVX2 and AVX-512 (chapter 6)
figures: $(addsuffix .pdf,$(FIGURES)) $(addsuffix .png,$(FIGURES)) $(BUILD)/fig-widths.pdf $(BUILD)/fig-widths.png

# Switching a figure's CSV must redraw it even when the other file is older.
$(foreach f,$(FIGURES),$(shell mkdir -p $(BUILD) && { [ "$$(cat $f.src 2>/dev/null)" = "$(call fig_csv,$f) $(call fig_peers,$f) $(call fig_select,$f)" ] || echo "$(call fig_csv,$f) $(call fig_peers,$f) $(call fig_select,$f)" > $f.src; }))

# One pair of rules per figure: fig_rule FIGURE
define fig_rule
$1.pdf: $(call fig_csv,$1) $(call fig_peers,$1) $1.src scripts/book/plot-bench.sh scripts/book/bench-tables.sh scripts/book/plot-bench.gp
	@mkdir -p $$(@D)
	scripts/book/plot-bench.sh --rows $(call fig_rows,$1) $(call fig_select,$1) $(call fig_csv,$1) $1 $(call fig_peers,$1)
# The script draws both; this only catches a PNG deleted on its own.
$1.png: $1.pdf
	@test -f $$@ || scripts/book/plot-bench.sh --rows $(call fig_rows,$1) $(call fig_select,$1) $(call fig_csv,$1) $1 $(call fig_peers,$1)
endef
$(foreach f,$(FIGURES),$(eval $(call fig_rule,$f)))

# fig-widths: one schedule at two widths (chapter 6): the f32 forward rungs,
# first to last, at one thread, AVX2 beside AVX-512, from the rungs' runs
# of `make simd-goals` (build/simd-rungs-{avx2,avx512}.csv for your own).
WIDTHS_NARROW_CSV ?= book/data/zen4-simd-rungs-avx2-reference.csv
WIDTHS_WIDE_CSV ?= book/data/zen4-simd-rungs-avx512-reference.csv
WIDTHS_RUNGS ?= rmsnorm,rmsnorm_nt,rmsnorm_pf,rmsnorm_block,layernorm,layernorm_nt,layernorm_pf,layernorm_shift,layernorm_block
WIDTHS_FIG := $(BUILD)/fig-widths
$(shell mkdir -p $(BUILD) && { [ "$$(cat $(WIDTHS_FIG).src 2>/dev/null)" = "$(WIDTHS_RUNGS) $(WIDTHS_NARROW_CSV) $(WIDTHS_WIDE_CSV)" ] || echo "$(WIDTHS_RUNGS) $(WIDTHS_NARROW_CSV) $(WIDTHS_WIDE_CSV)" > $(WIDTHS_FIG).src; })
$(WIDTHS_FIG).pdf: $(WIDTHS_NARROW_CSV) $(WIDTHS_WIDE_CSV) $(WIDTHS_FIG).src scripts/book/plot-widths.sh scripts/book/plot-bench.gp
	@mkdir -p $(@D)
	scripts/book/plot-widths.sh $(WIDTHS_RUNGS) $(WIDTHS_NARROW_CSV) $(WIDTHS_WIDE_CSV) $(WIDTHS_FIG)
$(WIDTHS_FIG).png: $(WIDTHS_FIG).pdf
	@test -f $@ || scripts/book/plot-widths.sh $(WIDTHS_RUNGS) $(WIDTHS_NARROW_CSV) $(WIDTHS_WIDE_CSV) $(WIDTHS_FIG)

# ------------------------------------------------------------------ peers
# PyTorch, JAX (XLA) and ONNX Runtime beside our kernels: installed from
# PyPI into a virtual environment under build/ (never system-wide, never
# by `make test` or CI), timed by scripts/bench/peers.py on the shapes of a
# `normlab bench` run made now, against that run's copy roof, each
# checked against the double reference first; backward rows (*_bwd*) get
# the peers' backward (ONNX Runtime's inference build has none). PEERS_PIP names the
# packages (torch's PyPI wheel brings its CUDA libraries: a few GiB).
PEERS_VENV ?= $(BUILD)/peers-venv
PEERS_PIP ?= numpy onnx onnxruntime "jax[cpu]" torch
PEERS_FRAMEWORKS ?= torch,jax,ort
PEERS_BENCH_FLAGS ?= --dtype f32,bf16 --shape 4096x4096,16384x8192 --samples 9 --no-peer \
    --impl rmsnorm_best,layernorm_best,rmsnorm_omp,layernorm_omp,rmsnorm_llama_bf16_avx512_f32stats,layernorm_torch_bf16_avx512_f32stats,rmsnorm_llama_bf16_f32stats_omp,layernorm_torch_bf16_f32stats_omp,$(PEERS_BWD_IMPLS)
# The backward rows the peers' backward stands beside (chapter 10): the
# skew rungs, one thread and threaded; the fused rung where AVX-512 is absent.
PEERS_BWD_IMPLS ?= rmsnorm_bwd_fused,layernorm_bwd_fused,rmsnorm_bwd_avx512_skew,layernorm_bwd_avx512_skew,rmsnorm_bwd_skew_omp,layernorm_bwd_skew_omp
PEERS_CSV ?= $(BUILD)/peers.csv

$(PEERS_VENV)/.installed:
	python3 -m venv $(PEERS_VENV)
	$(PEERS_VENV)/bin/pip install --disable-pip-version-check $(PEERS_PIP)
	touch $@

## peers — PyTorch, JAX and ONNX Runtime (a venv under build/) timed beside our kernels in one run → build/peers.csv (`normlab bench --show build/peers.csv`)
.PHONY: peers peers-smoke
peers: $(NORMLAB) $(PEERS_VENV)/.installed
	$(NORMLAB) bench --force --csv $(BUILD)/peers-ours.csv $(BENCH_NOTES) \
	    $(PEERS_BENCH_FLAGS)
	$(PEERS_VENV)/bin/python scripts/bench/peers.py --csv $(BUILD)/peers-ours.csv \
	    --out $(PEERS_CSV) --force --frameworks $(PEERS_FRAMEWORKS)
	$(NORMLAB) bench --show $(PEERS_CSV)

## peers-smoke — the peer harness on one small shape; skips, saying why, when PyPI cannot be reached
peers-smoke: $(NORMLAB)
	@scripts/bench/peers-smoke.sh $(NORMLAB) $(PEERS_VENV) '$(PEERS_PIP)' $(BUILD)
