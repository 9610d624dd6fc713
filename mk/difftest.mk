# The differential tester (tests/difftest, docs/difftest.md): random graphs
# run planned, with a no-reuse plan, at -O0, through ln-aot + cc and in ONNX
# Runtime; all must agree.
#   make difftest [N=2000] [SEED=1]   N graphs from seed SEED
#   make difftest-quick               300 graphs (part of make test)
DIFF_PY ?= /usr/bin/python3
N ?= 2000
SEED ?= 1

.PHONY: difftest difftest-quick difftest-deps
$(BUILD)/difftest/runner: tests/difftest/runner.c $(BUILD)/liblightnet.a $(RT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(SAN) -o $@ $< $(BUILD)/liblightnet.a $(RT_LIB) $(LDLIBS_ALL)

difftest-deps: all $(BUILD)/difftest/runner
	@test -d bench/node_modules/onnxruntime-node || sh bench/setup.sh

difftest: difftest-deps
	$(DIFF_PY) tests/difftest/difftest.py --seed $(SEED) --n $(N) --bin $(BUILD)/bin \
	    --runner $(BUILD)/difftest/runner --work $(BUILD)/difftest/work

difftest-quick: difftest-deps
	$(DIFF_PY) tests/difftest/difftest.py --seed 1 --n 300 --bin $(BUILD)/bin \
	    --runner $(BUILD)/difftest/runner --work $(BUILD)/difftest/work
