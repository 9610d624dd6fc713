# mk/torch.mk -- the PyTorch export patterns (included by the Makefile).
#
#   make test-torch    tests/onnx/torch/run.py: every model of
#                      tests/onnx/torch (tools/make_torch_patterns.py, PyTorch
#                      references committed) through the lightnet command and
#                      through ln-aot + cc, within 1e-4 of the largest
#                      reference value; needs /usr/bin/python3 with onnx and
#                      numpy (tools/setup.sh), not torch

.PHONY: test-torch

TORCH_PY ?= /usr/bin/python3

test-torch: $(BUILD)/bin/lightnet $(BUILD)/bin/ln-aot $(BUILD)/liblightnet.a $(RT_LIB)
	BUILD=$(BUILD) RT_LIB=$(RT_LIB) CC="$(CC)" AOT_CFLAGS="$(CJSON_CFLAGS) $(SAN)" \
	    AOT_LDLIBS="$(SAN) $(LDLIBS_ALL)" $(TORCH_PY) tests/onnx/torch/run.py
