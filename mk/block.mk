# block.mk — chapter 9's figure: the residual stream under pre-norm,
# post-norm and DeepNorm (scripts/tools/block-depth.c computes it,
# scripts/book/plot-depth.gp draws it).  The book builds it first.

BLOCK_DEPTH := $(BUILD)/block-depth
DEPTH_FIG := $(BUILD)/fig-depth

$(BLOCK_DEPTH): $(BUILD)/obj/scripts/tools/block-depth.o $(LIB)
	$(CC) $(LDFLAGS) -o $@ $< $(LIB) $(LDLIBS)

$(DEPTH_FIG).dat: $(BLOCK_DEPTH)
	$(BLOCK_DEPTH) > $@

$(DEPTH_FIG).pdf: $(DEPTH_FIG).dat scripts/book/plot-depth.gp
	$(gnuplot_pdf_png)
$(DEPTH_FIG).png: $(DEPTH_FIG).pdf

.PHONY: figure-depth
## figure-depth — build/fig-depth.pdf and .png: the residual stream's scale and memory over 64 blocks (chapter 9)
figure-depth: $(DEPTH_FIG).pdf $(DEPTH_FIG).png
BOOK_PREREQS += figure-depth

# ------------------------------------------------------------ fused bench
.PHONY: bench-fused
## bench-fused — fused add + norm against the unfused pair, every core (normlab bench --fused; FUSED_SHAPES=RxD,... to choose); quiet machine
FUSED_SHAPES ?=
bench-fused: $(NORMLAB)
	$(NORMLAB) bench --fused $(if $(FUSED_SHAPES),--shape $(FUSED_SHAPES))
