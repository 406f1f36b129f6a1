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
