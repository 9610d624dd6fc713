# mk/aot.mk -- ln-aot's end-to-end tests and example (included by the Makefile).
#
#   make test-aot      tests/aot/run.sh: emit, compile (gcc, clang,
#                      arm-none-eabi-gcc, -Werror), nm, run against the
#                      interpreter and the references, bad input
#   make example-aot   examples/aot: ln-aot -> cc -> run the iris classifier

.PHONY: test-aot example-aot

test-aot: $(BUILD)/bin/ln-aot $(BUILD)/liblightnet.a $(RT_LIB) qdq-models
	BUILD=$(BUILD) RT_LIB=$(RT_LIB) CC="$(CC)" AOT_CFLAGS="$(CJSON_CFLAGS) $(SAN)" QDQ_DIR=$(QDQ_DIR) \
	    AOT_LDLIBS="$(SAN) $(LDLIBS_ALL)" sh tests/aot/run.sh

example-aot: $(BUILD)/bin/ln-aot $(RT_LIB)
	$(MAKE) -C examples/aot run LN_ROOT=$(CURDIR) OUT=$(CURDIR)/$(BUILD)/examples/aot
