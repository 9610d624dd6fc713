# mk/onnx.mk -- the ONNX importer's build rules (included by the Makefile).
#
# The C for onnx.proto is generated at build time with protoc-c from the
# copy Debian's libonnx-dev installs (/usr/include/onnx/onnx.proto,
# package onnx, no imports) into $(BUILD)/gen/; nothing generated is
# committed.  Without protoc-c, libprotobuf-c or onnx.proto the library is
# built without ONNX (ln-onnx then says so) and a warning names what is
# missing.
#
#   make conformance        the ONNX backend node tests (tests/conformance/)
#   make test-models        tests/models/*/model.onnx through the interpreter
#   make test-onnx          the ln-onnx tool's tests (tests/onnx/run.sh)

ONNX_PROTO ?= /usr/include/onnx/onnx.proto
PROTOC_C ?= protoc-c
ONNX_GEN := $(BUILD)/gen
PYTHON3 ?= /usr/bin/python3

ONNX_MISSING := $(strip \
    $(if $(shell command -v $(PROTOC_C) 2>/dev/null),,protoc-c (protobuf-c-compiler)) \
    $(if $(shell $(PKG_CONFIG) --exists libprotobuf-c 2>/dev/null && echo y),,libprotobuf-c-dev) \
    $(if $(wildcard $(ONNX_PROTO)),,$(ONNX_PROTO) (libonnx-dev)))

ifeq ($(ONNX_MISSING),)

ONNX_CFLAGS := -DLN_HAVE_ONNX -I$(ONNX_GEN) $(shell $(PKG_CONFIG) --cflags libprotobuf-c)
ONNX_PB_OBJ := $(ONNX_GEN)/onnx.pb-c.o

# The Makefile resets EXTRA_LIB_OBJS / EXTRA_LDLIBS after including the
# fragments, hence override.
override EXTRA_LIB_OBJS += $(ONNX_PB_OBJ)
override EXTRA_LDLIBS += $(shell $(PKG_CONFIG) --libs libprotobuf-c)

$(ONNX_GEN)/onnx.proto: $(ONNX_PROTO)
	@mkdir -p $(dir $@)
	cp $< $@

# One rule makes both files (grouped through the .c).
$(ONNX_GEN)/onnx.pb-c.c: $(ONNX_GEN)/onnx.proto
	$(PROTOC_C) --c_out=$(ONNX_GEN) --proto_path=$(ONNX_GEN) $<
$(ONNX_GEN)/onnx.pb-c.h: $(ONNX_GEN)/onnx.pb-c.c ;

# Generated code: the project's warnings minus what protoc-c's output trips.
$(ONNX_PB_OBJ): $(ONNX_GEN)/onnx.pb-c.c $(ONNX_GEN)/onnx.pb-c.h
	$(CC) -std=c99 $(OPT) $(SAN) -fPIC -I$(ONNX_GEN) $(shell $(PKG_CONFIG) --cflags libprotobuf-c) \
	    $(CFLAGS) -c $< -o $@

# Everything that includes onnx.pb-c.h.
ONNX_USERS := $(patsubst %.c,$(BUILD)/%.o,$(wildcard src/ln_onnx*.c)) $(BUILD)/src/ln_serializer.o \
              $(BUILD)/src/tools/ln-onnx.o $(BUILD)/tests/test_ln_onnx.o \
              $(BUILD)/tests/onnx_run.o
$(ONNX_USERS): CFLAGS_ALL += $(ONNX_CFLAGS)
$(ONNX_USERS): $(ONNX_GEN)/onnx.pb-c.h

else
$(warning ONNX import disabled; missing: $(ONNX_MISSING))
endif

# tests/onnx_run: runs a model (ONNX or IR) in the interpreter with inputs
# from raw .bin or TensorProto .pb files and compares with expected outputs.
$(BUILD)/tests/onnx_run: $(BUILD)/tests/onnx_run.o $(BUILD)/liblightnet.a $(RT_LIB)
	$(CC) $(SAN) -o $@ $< $(BUILD)/liblightnet.a $(RT_LIB) $(LDLIBS_ALL)

.PHONY: conformance test-models test-onnx
CONFORMANCE_DIR ?= $(BUILD)/onnx-node
# Every node test Debian's onnx defines (generated into $(CONFORMANCE_DIR)
# the first time, with python3-onnx), through the interpreter.  Not part of
# `make test`: test-unit runs the committed subset tests/conformance/node/.
conformance: $(BUILD)/tests/onnx_run $(TOOL_BINS)
	$(PYTHON3) tests/conformance/run.py --build $(BUILD) --gen $(CONFORMANCE_DIR)

# Every tests/models/<name>: model.onnx with input.bin -> output.bin
# (max |diff| <= 1e-4 x max |reference|); names the op types not imported yet.
test-models: $(BUILD)/tests/onnx_run
	$(BUILD)/tests/onnx_run --model $(sort $(wildcard tests/models/*))

# The ln-onnx tool alone (test-unit runs it too, from test_ln_onnx).
test-onnx: $(TOOL_BINS)
	LN_BIN=$(BUILD)/bin sh tests/onnx/run.sh
