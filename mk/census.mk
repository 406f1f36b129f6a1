# census.mk — the census table (code/config/census.def) against what it was
# measured from.  Cheap: no Python; scripts/census/run.sh regenerates the
# table, its small configs and the real configs' expected counts.

## census-check — the census table parses, names its sources, every width formula was varied, and the C reader reproduces transformers' counts (small, real and trap configs)
census-check: $(BUILD)/tests/check_census
	@$(BUILD)/tests/check_census
.PHONY: census-check
