# The differential tester (tests/difftest, docs/difftest.md): random graphs
# run planned, with a no-reuse plan, at -O0, with inputs and outputs in the
# arena, through ln-aot + cc, and in ONNX Runtime; all must agree.
#   make difftest [N=2000] [SEED=1]   N graphs from seed SEED
#   make difftest SEED=1234 N=1       one seed again (kept in build/difftest/work/failed)
#   make difftest-quick               300 graphs (part of make test)
# Under SAN= (make test-asan) the runner, ln-aot, the emitted C and a copy of
# the kernels built here are all sanitized.
DIFF_PY ?= /usr/bin/python3
DIFF_ARGS ?=
N ?= 2000
SEED ?= 1

DIFF_DIR := $(BUILD)/difftest
# the kernels the runner and the emitted models link: the runtime's own
# build, or, under a sanitizer, a sanitized copy compiled here
ifeq ($(strip $(SAN)),)
DIFF_RT := $(RT_LIB)
else
DIFF_RT := $(DIFF_DIR)/rt/libln_rt.a
DIFF_RT_SRCS := $(wildcard runtime/kernels/*.c runtime/kernels/x86/*.c)
DIFF_RT_OBJS := $(DIFF_RT_SRCS:runtime/kernels/%.c=$(DIFF_DIR)/rt/%.o)
# -MMD: an object is rebuilt when a header it includes changes (a stale
# copy of an inline activation once left a fused SiLU out of the GEMM here)
$(DIFF_DIR)/rt/%.o: runtime/kernels/%.c
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -O1 -g -march=native -Iruntime/include -Iruntime/kernels $(SAN) -MMD -MP -c $< -o $@
$(DIFF_RT): $(DIFF_RT_OBJS)
	rm -f $@
	$(AR) rcs $@ $^
-include $(DIFF_RT_OBJS:.o=.d)
endif

DIFF_RUN = $(DIFF_PY) tests/difftest/difftest.py --bin $(BUILD)/bin \
    --runner $(DIFF_DIR)/runner --work $(DIFF_DIR)/work --rt $(DIFF_RT) \
    --aot-cflags "$(SAN)" $(DIFF_ARGS)

.PHONY: difftest difftest-quick difftest-deps
$(DIFF_DIR)/runner: tests/difftest/runner.c $(BUILD)/liblightnet.a $(DIFF_RT)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -o $@ $< $(BUILD)/liblightnet.a $(DIFF_RT) $(LDLIBS_ALL)

# onnxruntime-node: bench/setup.sh installs it when missing (npm, network);
# without it the tester stops with the reason, it never skips ONNX Runtime
difftest-deps: all $(DIFF_DIR)/runner
	@test -f bench/node_modules/onnxruntime-node/package.json || sh bench/setup.sh
	@node -e "require('./bench/node_modules/onnxruntime-node')" 2>/dev/null || \
	    { echo "difftest: onnxruntime-node does not load; run sh bench/setup.sh" >&2; exit 1; }
	@$(DIFF_PY) -c "import onnx, numpy" 2>/dev/null || \
	    { echo "difftest: $(DIFF_PY) lacks onnx or numpy; run sh tools/setup.sh" >&2; exit 1; }

difftest: difftest-deps
	$(DIFF_RUN) --seed $(SEED) --n $(N)

difftest-quick: difftest-deps
	$(DIFF_RUN) --seed 1 --n 300
