# mk/m4.mk -- emitted models as Cortex-M4 firmware under QEMU (issue 8;
# docs/firmware.md).  Included by the top-level Makefile.
#
#   make test-m4-models   every tests/models/<name> through ln-aot, built as
#                         firmware for mps2-an386 and run under qemu: the
#                         output must match output.bin (max |diff| <= 1e-4 x
#                         max |ref|); plus the --gc-sections checks and
#                         ln-aot --budget's prediction against the linked
#                         firmware (check-budget: 5% or 512 bytes)
#   make m4-report        the memory report of every model + a results table,
#                         float (tests/models) and int8 (the QDQ networks)
#   make test-m4-profile  DS-CNN with PROFILE=1: one row per op, the ops'
#                         sum within 2% of the unprofiled instruction count
#                         (also part of test-m4-models)
#
# A model whose ln-aot run fails is reported SKIP (with ln-aot's message)
# only when ln-aot says an op is unsupported/missing; any other failure --
# emission, compile, link, run, mismatch -- fails the target.
# Needs gcc-arm-none-eabi, libnewlib-arm-none-eabi and qemu-system-arm.

M4_EX := examples/cortex-m4
PYTHON3 ?= /usr/bin/python3
M4_MODELS ?= $(notdir $(patsubst %/,%,$(dir $(wildcard tests/models/*/model.onnx))))
M4_GC_DIR := $(M4_EX)/build/lenet5_conv
# The firmware is emitted by this build's ln-aot (BUILD=...), not build/'s,
# compiled for the cortex-m4 target (its kernels' scratch: none for convs).
M4_TARGET ?= cortex-m4
M4_AOT := LN_AOT=$(abspath $(BUILD))/bin/ln-aot AOT_TARGET=$(M4_TARGET)
M4_PROFILE_MODEL ?= ds_cnn

.PHONY: test-m4-models m4-report m4-gc-check test-m4-profile

test-m4-models: $(BUILD)/bin/ln-aot $(BUILD)/bin/ln-onnx $(BUILD)/bin/lightnet
	@$(MAKE) --no-print-directory -C runtime m4
	@pass=""; skip=""; fail=""; \
	for m in $(M4_MODELS); do \
	  echo "== $$m"; \
	  mkdir -p $(M4_EX)/build/$$m; \
	  if ! $(BUILD)/bin/ln-aot -t $(M4_TARGET) -n model -o $(M4_EX)/build/$$m/probe.c \
	        tests/models/$$m/model.onnx 2> $(M4_EX)/build/$$m/aot.err; then \
	    cat $(M4_EX)/build/$$m/aot.err; \
	    if grep -q -i -E 'unsupported|not supported|unknown op|no emission rule|not implemented' \
	         $(M4_EX)/build/$$m/aot.err; then \
	      echo "$$m: SKIP (ln-aot cannot emit it yet: an op is missing)"; skip="$$skip $$m"; \
	    else echo "$$m: FAIL (ln-aot)"; fail="$$fail $$m"; fi; \
	    continue; \
	  fi; \
	  absent=""; \
	  [ $$m = ad_autoencoder ] && absent="ln_rt_conv2d_f32* ln_rt__conv2d* ln_rt_maxpool2d_f32 ln_rt_avgpool2d_f32"; \
	  if $(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL=$$m run && \
	     $(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL=$$m check-gc \
	       REQUIRE_ABSENT="$$absent" > $(M4_EX)/build/$$m/gc.txt && \
	     $(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL=$$m check-budget \
	       > $(M4_EX)/build/$$m/budget-check.txt; then \
	    grep 'check:' $(M4_EX)/build/$$m/gc.txt | grep -E 'reachable|not linked'; \
	    grep -E 'total|budget check' $(M4_EX)/build/$$m/budget-check.txt; \
	    pass="$$pass $$m"; \
	  else cat $(M4_EX)/build/$$m/gc.txt 2>/dev/null | grep -E 'FAILED|calls'; \
	    cat $(M4_EX)/build/$$m/budget-check.txt 2>/dev/null; \
	    echo "$$m: FAIL"; fail="$$fail $$m"; fi; \
	done; \
	echo "== gemm-free model (LeNet-5 without its classifier): no gemm code linked"; \
	if $(MAKE) --no-print-directory -s m4-gc-check; then pass="$$pass lenet5_conv(gc)"; \
	else echo "lenet5_conv: FAIL"; fail="$$fail lenet5_conv(gc)"; fi; \
	echo "== a different model under MODEL_DIR is rebuilt, never answered by a stale build"; \
	if $(M4_AOT) sh tests/m4-models/stale.sh; then pass="$$pass stale-build"; \
	else fail="$$fail stale-build"; fi; \
	echo "== per-op profile ($(M4_PROFILE_MODEL), PROFILE=1)"; \
	if $(M4_AOT) sh tests/m4-models/profile.sh $(M4_PROFILE_MODEL); then pass="$$pass profile"; \
	else fail="$$fail profile"; fi; \
	echo "test-m4-models: PASS:$${pass:- none}"; \
	echo "test-m4-models: SKIP:$${skip:- none}"; \
	echo "test-m4-models: FAIL:$${fail:- none}"; \
	test -z "$$fail$$skip"

test-m4-profile: $(BUILD)/bin/ln-aot
	@$(MAKE) --no-print-directory -C runtime m4
	@$(M4_AOT) sh tests/m4-models/profile.sh $(M4_PROFILE_MODEL)

# LeNet-5 cut after its last pooling layer: conv, relu and maxpool only.
# Its reference is the host interpreter's output (the check here is what
# gets linked; the firmware still compares with it).
m4-gc-check: $(BUILD)/bin/ln-aot $(BUILD)/bin/ln-onnx $(BUILD)/bin/lightnet
	@mkdir -p $(M4_GC_DIR)/in
	@$(BUILD)/bin/ln-onnx tests/models/lenet5/model.onnx -o $(M4_GC_DIR)/in/full.json \
	  --data $(M4_GC_DIR)/in/full.params
	@out=$$($(PYTHON3) tests/m4-models/cut_model.py $(M4_GC_DIR)/in/full.json \
	  $(M4_GC_DIR)/in/model.json /MaxPool_1) && \
	  cp tests/models/lenet5/input.bin $(M4_GC_DIR)/in/input.bin && \
	  $(BUILD)/bin/lightnet $(M4_GC_DIR)/in/model.json -i input=$(M4_GC_DIR)/in/input.bin \
	    --save "$$out=$(M4_GC_DIR)/in/output.bin" > /dev/null
	@$(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL=lenet5_conv \
	  MODEL_DIR=build/lenet5_conv/in run
	@$(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL=lenet5_conv \
	  MODEL_DIR=build/lenet5_conv/in check-gc \
	  REQUIRE_ABSENT="ln_rt_gemm_f32* ln_rt_matmul_f32* ln_rt_avgpool2d_f32 ln_rt_conv2d_depthwise_f32* ln_rt__conv2d_depthwise*" | \
	  grep -E 'check:|calls|FAIL'

m4-report: $(BUILD)/bin/ln-aot
	@for m in $(M4_MODELS); do \
	  $(MAKE) --no-print-directory -s -C $(M4_EX) $(M4_AOT) MODEL=$$m report \
	    REPORT_FLAGS="--json build/$$m/report.json" || exit 1; echo; \
	done; \
	$(PYTHON3) tools/memreport.py --table $(patsubst %,$(M4_EX)/build/%/report.json,$(M4_MODELS))
	@echo; echo "int8 (the QDQ networks, mk/qdq.mk):"
	@$(MAKE) --no-print-directory -s m4-report-qdq
