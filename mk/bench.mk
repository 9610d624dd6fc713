# mk/bench.mk -- `make bench`: LightNet against ONNX Runtime on this host
# (latency, memory, size); never part of `make test`.  See docs/performance.md.
#
#   make bench                       every benchmark model, writes bench/results.{md,json,png}
#   make bench BENCH_ARGS="--models lenet5,resnet8 --rounds 3"
#   make bench BENCH_ARGS="--no-m4"  without the Cortex-M4 firmware runs
#
# bench/setup.sh installs what is missing (nodejs, npm, gnuplot-nox; the npm
# package onnxruntime-node into bench/node_modules); bench/run.js does the rest.

.PHONY: bench bench-setup
BENCH_ARGS ?=
NODE ?= node

# One snapshot of the runtime for the whole run: the interpreter driver and
# every emitted model link this copy, so both run the same kernels even when
# runtime/build is rebuilt while the benchmark runs.
BENCH_RT := $(BUILD)/bench/libln_rt.a

$(BENCH_RT): $(RT_LIB)
	@mkdir -p $(dir $@)
	cp $(RT_LIB) $@

$(BUILD)/bench/interp_driver: bench/interp_driver.c bench/bench_common.h $(BUILD)/liblightnet.a $(BENCH_RT)
	@mkdir -p $(dir $@)
	$(CC) -std=c99 -O2 -D_POSIX_C_SOURCE=200809L -Ibench -Isrc -Isrc/op -Iruntime/include \
	    $(CJSON_CFLAGS) -o $@ $< $(BUILD)/liblightnet.a $(BENCH_RT) $(LDLIBS_ALL)

bench-setup:
	sh bench/setup.sh

# The tools are made if they can be; a model whose tool is missing is
# skipped with the reason in the table.
bench: bench-setup runtime $(BUILD)/liblightnet.a $(BUILD)/bench/interp_driver
	-@$(MAKE) --no-print-directory $(TOOL_BINS) >/dev/null || \
	    echo "bench: some tools did not build; their models are skipped"
	$(NODE) bench/run.js --build $(BUILD) --cc "$(CC)" --rt $(BENCH_RT) $(BENCH_ARGS)
