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
