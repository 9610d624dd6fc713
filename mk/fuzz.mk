# libFuzzer harnesses (tests/fuzz): the readers and the whole pipeline,
# built with clang under AddressSanitizer + UndefinedBehaviorSanitizer in
# their own tree.  docs/fuzzing.md says how to use them.
#   make fuzz FUZZ_SECONDS=N   each harness N seconds from the seed corpus
#   make fuzz-quick            replay every regression input, then 10 s each
#   make fuzz-regress          replay the regression inputs only
FUZZ_BUILD := build-fuzz
FUZZ_CC ?= clang
FUZZ_HARNESSES := onnx ir pipeline params wts
FUZZ_SECONDS ?= 60
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_BINS := $(addprefix $(FUZZ_BUILD)/fuzz/fuzz_,$(FUZZ_HARNESSES))

.PHONY: fuzz fuzz-quick fuzz-regress fuzz-build
fuzz-build:
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) OPT="-O1 -g -fno-omit-frame-pointer" \
	    SAN="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" $(FUZZ_BUILD)/liblightnet.a runtime
	$(MAKE) BUILD=$(FUZZ_BUILD) CC=$(FUZZ_CC) $(FUZZ_BINS)

$(FUZZ_BUILD)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_BUILD)/liblightnet.a
	@mkdir -p $(dir $@)
	$(FUZZ_CC) -std=c99 -D_POSIX_C_SOURCE=200809L -O1 -g $(FUZZ_SAN) -fsanitize=fuzzer \
	    -Isrc -Iruntime/include $(CJSON_CFLAGS) $< $(FUZZ_BUILD)/liblightnet.a $(RT_LIB) \
	    $(LDLIBS_ALL) -o $@

fuzz-regress: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) sh tests/fuzz/run.sh regress $(FUZZ_HARNESSES)

fuzz: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) sh tests/fuzz/run.sh regress $(FUZZ_HARNESSES)
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) sh tests/fuzz/run.sh fuzz $(FUZZ_HARNESSES)

fuzz-quick: fuzz-build
	FUZZ_BUILD=$(FUZZ_BUILD) sh tests/fuzz/run.sh regress $(FUZZ_HARNESSES)
	FUZZ_BUILD=$(FUZZ_BUILD) FUZZ_SECONDS=10 sh tests/fuzz/run.sh fuzz $(FUZZ_HARNESSES)
