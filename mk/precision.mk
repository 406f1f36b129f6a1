# mk/precision.mk — chapter 8 (bf16 and fp16).

# The AVX2 cast-order kernels convert fp16 with F16C (vcvtph2ps/vcvtps2ph),
# which every AVX2 CPU has but -mavx2 does not switch on.
$(BUILD)/obj/code/precision/%_avx2.o: ISA_FLAGS := -mavx2 -mfma -mf16c
