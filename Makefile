# LightNet -- top-level build.  GNU Make.
#   make                 liblightnet (static + shared), libln_rt, the tools
#   make test            Check suites, runtime kernel tests, the same under ASan+UBSan
#   make gen             regenerate src/op/auto and src/arch/auto from gen/*_descs
#   make install PREFIX=/usr/local [DESTDIR=...]   (docs/install.md)
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

# The shared library: liblightnet.so.MAJOR.MINOR.PATCH with soname
# liblightnet.so.MAJOR, and the .so.MAJOR and .so links beside it.
SO_MAJOR := $(firstword $(subst ., ,$(VERSION)))
SO_NAME := liblightnet.so.$(SO_MAJOR)
SO_FILE := liblightnet.so.$(VERSION)
SO_LINK = $(CC) -shared $(SAN) -Wl,-soname,$(SO_NAME) -o $@ $(LIB_OBJS) $(1) $(LDLIBS_ALL)

$(BUILD)/$(SO_FILE): $(LIB_OBJS) $(RT_LIB)
	$(call SO_LINK,$(RT_LIB))

$(BUILD)/liblightnet.so: $(BUILD)/$(SO_FILE)
	ln -sf $(SO_FILE) $(BUILD)/$(SO_NAME)
	ln -sf $(SO_NAME) $@

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
	LN_BIN=$(BUILD)/bin sh tests/cli/pictures.sh
	LN_BIN=$(BUILD)/bin sh tests/cli/budget.sh
	LN_BIN=$(BUILD)/bin sh tests/fuzz/cli.sh
	BUILD=$(BUILD) MAKE="$(MAKE)" SAN="$(SAN)" sh tests/cli/install.sh

test-rt:
	$(MAKE) -C runtime test test-dispatch

# Everything again under AddressSanitizer + UndefinedBehaviorSanitizer,
# in its own build tree.  test-aot's clang and arm-none-eabi-gcc builds
# only compile the emitted C, which the sanitizers do not change: make
# test-aot has done them, so they are skipped here (CLANG= ARM_CC=); and
# each model runs with caller buffers only (AOT_LAYOUTS=plain: the
# sanitizer guards separate buffers, not slices of the one arena).
test-asan:
	CK_FORK=no CLANG= ARM_CC= AOT_LAYOUTS=plain $(MAKE) BUILD=build-asan OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="-fsanitize=address,undefined -fno-sanitize-recover=all" test-unit test-aot \
	    test-torch difftest-quick
	$(MAKE) -C runtime test-asan

# The Cortex-M4 kernel tests under qemu-system-arm (mps2-an386).
test-m4:
	$(MAKE) -C runtime test-m4

# Generator tests: a small description set generates, compiles and runs;
# malformed descriptions give their documented errors.
test-gen:
	sh tests/gen/run.sh

# Everything: Check suites + CLI + ONNX tool tests, generator tests, kernel
# tests, ln-aot end to end (gcc, clang, arm-none-eabi-gcc), the PyTorch
# export patterns against PyTorch (test-torch), all of it again
# under ASan+UBSan, the kernel tests and every test model as Cortex-M4
# firmware under qemu, the QDQ networks against ONNX Runtime and on the
# Cortex-M4, ln-quant on the test networks (mk/quant.mk), 300 random graphs through the differential tester,
# the fuzz regressions and 10 s of each libFuzzer harness, and generated
# files in sync.
test: all
	$(MAKE) test-unit
	$(MAKE) test-gen
	$(MAKE) test-rt
	$(MAKE) test-aot
	$(MAKE) test-torch
	$(MAKE) test-asan
	$(MAKE) test-m4
	$(MAKE) -C runtime check-m4-sizes
	$(MAKE) test-m4-models
	$(MAKE) test-qdq
	$(MAKE) test-quant
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

# ---- install (docs/install.md) ------------------------------------------
# What is installed is built for any CPU of the architecture: the runtime
# again without -march=native (runtime/build-portable), and the shared
# library and the tools linked with it, in $(BUILD)/dist.  The build tree's
# own libraries and tools stay tuned to this machine.
#
# Headers: the documented API only (docs/install.md lists them).  The
# second group is not API: the public headers include them, so they are
# installed to make those compile.  Every other header stays private: the
# memory planner, the passes, the reports, the JSON and ONNX readers,
# ln-aot's internals, the op registry.
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
PUBLIC_HEADERS := src/ln_util.h src/ln_list.h src/ln_hash.h src/ln_tensor.h src/ln_param.h \
                  src/ln_op.h src/ln_context.h src/ln_interp.h src/ln_serializer.h \
                  src/ln_datafile.h src/aot/ln_aot.h runtime/include/ln_rt.h
PUBLIC_HEADER_DEPS := src/ln_mem.h src/ln_graph.h src/ln_dfg.h src/ln_arch.h

RT_PORTABLE := runtime/build-portable/libln_rt.a
DIST := $(BUILD)/dist
DIST_TOOLS := $(addprefix $(DIST)/bin/,$(TOOLS))
# lightnet.pc: what a program needs besides -llightnet.  The shared library
# carries the runtime and names cJSON, protobuf-c and libm itself; the
# static one needs them listed (pkg-config --static).
PC_REQUIRES_PRIVATE := $(if $(shell $(PKG_CONFIG) --exists libcjson 2>/dev/null && echo y),libcjson) \
                       $(if $(ONNX_MISSING),,libprotobuf-c)
PC_LIBS_PRIVATE := -lln_rt $(if $(filter libcjson,$(PC_REQUIRES_PRIVATE)),,-lcjson) -lm
# under the prefix: relative to ${prefix}, so the file reads as usual
PC_LIBDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(LIBDIR))
PC_INCLUDEDIR = $(patsubst $(PREFIX)/%,$${prefix}/%,$(INCLUDEDIR))

.PHONY: rt-portable dist
rt-portable:
	$(MAKE) -C runtime all BUILD=build-portable CFLAGS_ARCH=

$(RT_PORTABLE): rt-portable ;

$(DIST)/lib/$(SO_FILE): $(LIB_OBJS) $(RT_PORTABLE)
	@mkdir -p $(dir $@)
	$(call SO_LINK,$(RT_PORTABLE))

$(DIST)/bin/%: $(BUILD)/src/tools/%.o $(BUILD)/liblightnet.a $(RT_PORTABLE)
	@mkdir -p $(dir $@)
	$(CC) $(SAN) -o $@ $< $(BUILD)/liblightnet.a $(RT_PORTABLE) $(LDLIBS_ALL)

dist: $(BUILD)/liblightnet.a $(DIST)/lib/$(SO_FILE) $(DIST_TOOLS) $(RT_PORTABLE)

install: dist
	install -d $(DESTDIR)$(LIBDIR)/pkgconfig $(DESTDIR)$(INCLUDEDIR)/lightnet $(DESTDIR)$(BINDIR)
	install -m 644 $(BUILD)/liblightnet.a $(DESTDIR)$(LIBDIR)/liblightnet.a
	install -m 644 $(RT_PORTABLE) $(DESTDIR)$(LIBDIR)/libln_rt.a
	install -m 755 $(DIST)/lib/$(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_FILE)
	ln -sf $(SO_FILE) $(DESTDIR)$(LIBDIR)/$(SO_NAME)
	ln -sf $(SO_NAME) $(DESTDIR)$(LIBDIR)/liblightnet.so
	install -m 644 $(PUBLIC_HEADERS) $(PUBLIC_HEADER_DEPS) $(DESTDIR)$(INCLUDEDIR)/lightnet
	install -m 755 $(DIST_TOOLS) $(DESTDIR)$(BINDIR)
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$(PC_LIBDIR)|' -e 's|@INCLUDEDIR@|$(PC_INCLUDEDIR)|' \
	    -e 's|@VERSION@|$(VERSION)|' -e 's|@REQUIRES_PRIVATE@|$(strip $(PC_REQUIRES_PRIVATE))|' \
	    -e 's|@LIBS_PRIVATE@|$(strip $(PC_LIBS_PRIVATE))|' lightnet.pc.in \
	    > $(DESTDIR)$(LIBDIR)/pkgconfig/lightnet.pc
	@if [ -z "$(DESTDIR)" ]; then \
	    ldconfig 2>/dev/null || echo "note: run ldconfig as root so $(SO_NAME) is found"; \
	    case "$(LIBDIR)" in /usr/lib|/usr/local/lib|/lib) ;; \
	    *) echo "note: $(LIBDIR) is not a standard library directory: link with" \
	            "-Wl,-rpath,$(LIBDIR) or set LD_LIBRARY_PATH (docs/install.md)";; esac; \
	fi

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
