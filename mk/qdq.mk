# mk/qdq.mk -- the quantized (QDQ) versions of the test networks (issue 13;
# docs/quantization.md).  Included by the top-level Makefile.
#
#   make qdq-models   tests/onnx/qdq/quantize_models.py: QDQ copies of the
#                     five test networks, calibrated and run in ONNX Runtime
#                     (the references), into $(BUILD)/qdq, and of their
#                     trained versions (tests/trained, trained/NAME: 16
#                     calibration inputs of their task, 20 evaluated)
#   make test-qdq     the interpreter against ONNX Runtime, in TFLite's
#                     default arithmetic and with the runtime built for
#                     single rounding (tests/onnx/qdq/check_nets.py; the
#                     random networks on one input, the trained ones on
#                     20), 41 random QDQ networks (random_qdq.py), and the
#                     int8 softmax (tests/onnx/qdq/check_softmax.py);
#                     test-aot runs the networks through ln-aot + cc
#   make qdq-random N=2000 SEED=1   the random networks, a long run
#   make test-m4-qdq  each (and QDQ_M4_SMALL) as Cortex-M4 firmware under
#                     qemu, against the host interpreter's output, and ln-aot --budget's
#                     prediction against the linked firmware (check-budget)
# Needs /usr/bin/python3 with onnx and numpy (tools/setup.sh) and
# onnxruntime-node (bench/setup.sh, run here when missing).

QDQ_PY ?= /usr/bin/python3
QDQ_NETS := lenet5 ds_cnn resnet8 mobilenet_v1_025 ad_autoencoder
QDQ_TRAINED := $(patsubst %,trained/%,$(QDQ_NETS))
QDQ_DIR := $(BUILD)/qdq
# small models of tests/onnx/qdq also run as firmware (test-m4-qdq)
QDQ_M4_SMALL := qdq_softmax qdq_softmax_gemm
QDQ_SR_RT := runtime/build-sr/libln_rt.a

.PHONY: qdq-models test-qdq test-m4-qdq qdq-sr-rt qdq-random qdq-m4-dirs m4-report-qdq

$(QDQ_DIR)/stamp: tests/onnx/qdq/quantize_models.py tests/difftest/ort_run.js tests/trained/data.py \
                  $(foreach n,$(QDQ_NETS),tests/models/$(n)/model.onnx tests/models/$(n)/input.bin \
                    tests/trained/$(n)/model.onnx)
	@test -f bench/node_modules/onnxruntime-node/package.json || sh bench/setup.sh
	$(QDQ_PY) tests/onnx/qdq/quantize_models.py $(QDQ_DIR) $(QDQ_NETS) $(QDQ_TRAINED)
	@touch $@

qdq-models: $(QDQ_DIR)/stamp

qdq-sr-rt:
	$(MAKE) --no-print-directory -C runtime BUILD=build-sr CFLAGS=-DLN_RT_S8_SINGLE_ROUNDING

$(QDQ_DIR)/lightnet-sr: $(BUILD)/src/tools/lightnet.o $(BUILD)/liblightnet.a qdq-sr-rt
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $< $(BUILD)/liblightnet.a $(QDQ_SR_RT) $(LDLIBS_ALL)

QDQ_RANDOM = $(QDQ_PY) tests/onnx/qdq/random_qdq.py --lightnet $(BUILD)/bin/lightnet \
    --lightnet-sr $(QDQ_DIR)/lightnet-sr --work $(QDQ_DIR)/random

# the networks, then 40 random QDQ networks and the seeds that found bugs
# (12: a zero point defined after its Q; 223: a degenerate output range
# whose multiplier's left shift overflowed)
test-qdq: qdq-models $(BUILD)/bin/lightnet $(BUILD)/bin/ln-quant $(QDQ_DIR)/lightnet-sr
	$(QDQ_PY) tests/onnx/qdq/check_nets.py --dir $(QDQ_DIR) --lightnet $(BUILD)/bin/lightnet \
	    --lightnet-sr $(QDQ_DIR)/lightnet-sr \
	    --known-sr trained/resnet8,trained/mobilenet_v1_025 $(QDQ_NETS) $(QDQ_TRAINED)
	@test -f bench/node_modules/onnxruntime-node/package.json || sh bench/setup.sh
	$(QDQ_RANDOM) --seed 1 --n 40
	$(QDQ_RANDOM) --seed 223 --n 1
	$(QDQ_PY) tests/onnx/qdq/check_softmax.py --bin $(BUILD)/bin

# make qdq-random [N=2000] [SEED=1]: the long run
qdq-random: $(BUILD)/bin/lightnet $(QDQ_DIR)/lightnet-sr
	@test -f bench/node_modules/onnxruntime-node/package.json || sh bench/setup.sh
	$(QDQ_RANDOM) --seed $(SEED) --n $(N)

# Each network as a firmware model directory (model.onnx, input.bin, the
# host interpreter's output.bin), for test-m4-qdq and m4-report.
QDQ_M4_DIRS = $(patsubst %,$(QDQ_DIR)/m4/qdq_%,$(QDQ_NETS))

qdq-m4-dirs: qdq-models $(BUILD)/bin/lightnet
	@set -e; for n in $(QDQ_NETS); do \
	  d=$(CURDIR)/$(QDQ_DIR)/m4/qdq_$$n; mkdir -p $$d; \
	  cp $(QDQ_DIR)/$$n.onnx $$d/model.onnx; cp $(QDQ_DIR)/$$n.in.bin $$d/input.bin; \
	  io=$$($(QDQ_PY) -c "import onnx, sys; g = onnx.load(sys.argv[1]).graph; print(g.input[0].name, g.output[0].name)" $$d/model.onnx); \
	  set -- $$io; \
	  $(BUILD)/bin/lightnet -i $$1=$$d/input.bin --save $$2=$$d/output.bin $$d/model.onnx > /dev/null; \
	done
	@set -e; for n in $(QDQ_M4_SMALL); do \
	  d=$(CURDIR)/$(QDQ_DIR)/m4/$$n; mkdir -p $$d; \
	  cp tests/onnx/qdq/$$n.onnx $$d/model.onnx; cp tests/onnx/qdq/$$n.in.bin $$d/input.bin; \
	  $(BUILD)/bin/lightnet -i x=$$d/input.bin --save y=$$d/output.bin $$d/model.onnx > /dev/null; \
	done

test-m4-qdq: qdq-m4-dirs $(BUILD)/bin/ln-aot
	@$(MAKE) --no-print-directory -C runtime m4
	@set -e; for n in $(QDQ_NETS); do \
	  d=$(CURDIR)/$(QDQ_DIR)/m4/qdq_$$n; \
	  echo "== qdq_$$n"; \
	  $(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL_DIR=$$d run; \
	  $(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL_DIR=$$d check-budget \
	    > $$d/budget-check.txt || { cat $$d/budget-check.txt; exit 1; }; \
	  grep -E 'total|budget check' $$d/budget-check.txt; \
	done
	@set -e; for n in $(QDQ_M4_SMALL); do \
	  d=$(CURDIR)/$(QDQ_DIR)/m4/$$n; \
	  echo "== $$n"; \
	  $(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL_DIR=$$d run; \
	done

# The memory report of each as firmware and the int8 table (m4-report).
m4-report-qdq: qdq-m4-dirs $(BUILD)/bin/ln-aot
	@$(MAKE) --no-print-directory -C runtime m4
	@for n in $(QDQ_NETS); do \
	  $(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL_DIR=$(CURDIR)/$(QDQ_DIR)/m4/qdq_$$n \
	    report REPORT_FLAGS="--json build/qdq_$$n/report.json" > /dev/null || exit 1; \
	done; \
	$(PYTHON3) tools/memreport.py --table $(patsubst %,$(M4_EX)/build/qdq_%/report.json,$(QDQ_NETS))
