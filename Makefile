# LightNet -- top-level build.  GNU Make.
#   make                 liblightnet (static + shared), libln_rt, the tools
#   make test            Check suites, runtime kernel tests, the same under ASan+UBSan
#   make gen             regenerate src/op/auto and src/arch/auto from gen/*_descs
#   make install PREFIX=/usr/local
# Plain `make` never runs Perl or m4: generated files are committed.

.DEFAULT_GOAL := all
PREFIX ?= /usr/local
CC ?= cc
VERSION := 0.1.0
BUILD ?= build

PKG_CONFIG ?= pkg-config
CJSON_CFLAGS := $(shell $(PKG_CONFIG) --cflags libcjson 2>/dev/null)
CJSON_LIBS := $(shell $(PKG_CONFIG) --libs libcjson 2>/dev/null || echo -lcjson)
CHECK_CFLAGS := $(shell $(PKG_CONFIG) --cflags check 2>/dev/null)
CHECK_LIBS := $(shell $(PKG_CONFIG) --libs check 2>/dev/null || echo -lcheck)

# Per-op switches: `make LN_OPS="conv2d relu ..."` strips every other op.
-include src/op/auto/ln_ops.mk

WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes
OPT ?= -O2 -g
SAN :=
CFLAGS_ALL = -std=c99 -D_POSIX_C_SOURCE=200809L -DLN_VERSION='"$(VERSION)"' $(WARN) $(OPT) $(SAN) $(LN_OP_STRIP_CFLAGS) -fPIC -MMD -MP \
             -Isrc -Isrc/op -Iruntime/include $(CJSON_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(EXTRA_LDLIBS) $(CJSON_LIBS) -lm $(LDLIBS)

RT_LIB := runtime/build/libln_rt.a

EXTRA_LIB_OBJS :=
EXTRA_LDLIBS :=
# Optional parts add their rules, objects and libraries here (e.g. mk/onnx.mk).
-include $(sort $(wildcard mk/*.mk))

LIB_SRCS := $(wildcard src/*.c src/op/*.c src/op/auto/*.c src/arch/*.c src/arch/auto/*.c \
              src/aot/*.c src/aot/auto/*.c)
LIB_OBJS = $(patsubst %.c,$(BUILD)/%.o,$(LIB_SRCS)) $(EXTRA_LIB_OBJS)
# One tool per src/tools/<tool>.c
TOOLS := $(basename $(notdir $(wildcard src/tools/*.c)))
TOOL_BINS := $(addprefix $(BUILD)/bin/,$(TOOLS))

TEST_SRCS := $(wildcard tests/test_ln_*.c)
TEST_OBJS := $(patsubst %.c,$(BUILD)/%.o,$(TEST_SRCS)) $(BUILD)/tests/test_main.o

.PHONY: all lib tools runtime test test-unit test-asan test-rt test-m4 test-gen gen clean install check-gen example
all: lib runtime tools

lib: $(BUILD)/liblightnet.a $(BUILD)/liblightnet.so
tools: $(TOOL_BINS)

runtime:
	$(MAKE) -C runtime all

$(RT_LIB): runtime ;

# Rebuild the library when the op selection changes.
$(BUILD)/ops.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(LN_OPS)' | cmp -s - $@ || echo '$(LN_OPS)' > $@

$(BUILD)/src/%.o: src/%.c $(BUILD)/ops.stamp
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) -c $< -o $@

FORCE:

$(BUILD)/liblightnet.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && ar rcs $@ $^

$(BUILD)/liblightnet.so: $(LIB_OBJS) $(RT_LIB)
	$(CC) -shared $(SAN) -o $@ $(LIB_OBJS) $(RT_LIB) $(LDLIBS_ALL)

$(BUILD)/bin/%: $(BUILD)/src/tools/%.o $(BUILD)/liblightnet.a $(RT_LIB)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $< $(BUILD)/liblightnet.a $(RT_LIB) $(LDLIBS_ALL)

# The suite list is derived from the test files, so adding
# tests/test_ln_foo.c with `Suite *test_ln_foo_suite(void)` is all it takes.
$(BUILD)/tests/suites.h: $(TEST_SRCS) FORCE
	@mkdir -p $(dir $@)
	@grep -ho 'Suite \*test_ln_[a-z0-9_]*_suite' $(TEST_SRCS) | sed 's/Suite \*\(.*\)/LN_SUITE(\1)/' | sort -u > $@.new
	@cmp -s $@.new $@ && rm -f $@.new || mv $@.new $@

$(BUILD)/tests/test_main.o: tests/test_main.c $(BUILD)/tests/suites.h
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CHECK_CFLAGS) -I$(BUILD)/tests -c $< -o $@

$(BUILD)/tests/%.o: tests/%.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS_ALL) $(CHECK_CFLAGS) -Itests -c $< -o $@

$(BUILD)/tests/test_lightnet: $(TEST_OBJS) $(BUILD)/liblightnet.a $(RT_LIB)
	$(CC) $(SAN) -o $@ $(TEST_OBJS) $(BUILD)/liblightnet.a $(RT_LIB) $(CHECK_LIBS) $(LDLIBS_ALL)

test-unit: $(BUILD)/tests/test_lightnet $(TOOL_BINS)
	cd tests && LN_BIN=../$(BUILD)/bin ../$(BUILD)/tests/test_lightnet
	LN_BIN=$(BUILD)/bin sh tests/cli/run.sh
	LN_BIN=$(BUILD)/bin sh tests/cli/sizes.sh
	LN_BIN=$(BUILD)/bin sh tests/cli/outpaths.sh
	LN_BIN=$(BUILD)/bin sh tests/fuzz/cli.sh

test-rt:
	$(MAKE) -C runtime test

# Everything again under AddressSanitizer + UndefinedBehaviorSanitizer,
# in its own build tree.
test-asan:
	CK_FORK=no $(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" test-unit test-aot \
	    difftest-quick
	$(MAKE) -C runtime test-asan

# The Cortex-M4 kernel tests under qemu-system-arm (mps2-an386).
test-m4:
	$(MAKE) -C runtime test-m4

# Generator tests: a small description set generates, compiles and runs;
# malformed descriptions give their documented errors.
test-gen:
	sh tests/gen/run.sh

# Everything: Check suites + CLI + ONNX tool tests, generator tests, kernel
# tests, ln-aot end to end (gcc, clang, arm-none-eabi-gcc), all of it again
# under ASan+UBSan, the kernel tests and every test model as Cortex-M4
# firmware under qemu, the QDQ networks against ONNX Runtime and on the
# Cortex-M4, 300 random graphs through the differential tester,
# the fuzz regressions and 10 s of each libFuzzer harness, and generated
# files in sync.
test: all
	$(MAKE) test-unit
	$(MAKE) test-gen
	$(MAKE) test-rt
	$(MAKE) test-aot
	$(MAKE) test-asan
	$(MAKE) test-m4
	$(MAKE) test-m4-models
	$(MAKE) test-qdq
	$(MAKE) test-m4-qdq
	$(MAKE) difftest-quick
	$(MAKE) fuzz-quick
	$(MAKE) check-gen

# Every generator gen/<x>gen.pl, in name order (opgen before optgen).
gen:
	@for g in $(sort $(wildcard gen/*gen.pl)); do echo "perl $$g"; perl $$g || exit 1; done

# CI: generated files must be what `make gen` writes.
GEN_DIRS := src/op/auto src/arch/auto $(wildcard src/aot/auto) docs/onnx-ops.md runtime/KERNELS.md
check-gen:
	@$(MAKE) -s gen >/dev/null
	@if ! git diff --quiet -- $(GEN_DIRS) || [ -n "$$(git status --porcelain -- $(GEN_DIRS))" ]; then \
	    git status --short -- $(GEN_DIRS); \
	    echo "generated files out of sync with gen/: run make gen and commit"; exit 1; fi
	@echo "check-gen: generated files in sync"

install: all
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include/lightnet \
	    $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig
	install -m 644 $(BUILD)/liblightnet.a $(RT_LIB) $(DESTDIR)$(PREFIX)/lib
	install -m 755 $(BUILD)/liblightnet.so $(DESTDIR)$(PREFIX)/lib
	install -m 644 src/*.h runtime/include/ln_rt.h $(DESTDIR)$(PREFIX)/include/lightnet
	install -m 755 $(TOOL_BINS) $(DESTDIR)$(PREFIX)/bin
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' lightnet.pc.in \
	    > $(DESTDIR)$(PREFIX)/lib/pkgconfig/lightnet.pc

clean:
	rm -rf build build-asan build-fuzz
	$(MAKE) -C runtime clean

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)

# The main job on bundled examples: ln-aot emits a model as C, cc compiles it
# with libln_rt into a program, the program classifies two inputs; then the
# interpreter runs LightNet's classic slice example.
example: all
	$(MAKE) example-aot
	$(BUILD)/bin/lightnet examples/slice/slice.json
