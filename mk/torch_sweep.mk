# mk/torch_sweep.mk -- whole torchvision models against PyTorch (included by
# the Makefile; not part of make test: about half an hour on two cores).
#
#   make torch-sweep   tools/torchvision_sweep.py: every torchvision model of
#                      its list (random weights from seed 0) exported at opsets
#                      11, 13 and 17 into $(BUILD)/torch-sweep, through the
#                      lightnet command and through ln-aot + cc, within 1e-4 x
#                      max |PyTorch output|; one row per model and opset.
#                      Needs /usr/bin/python3 with torch and torchvision.
#                      TORCH_SWEEP_ARGS="resnet18 --opsets 13" for a subset.

.PHONY: torch-sweep

TORCH_SWEEP_ARGS ?=

torch-sweep: $(BUILD)/bin/lightnet $(BUILD)/bin/ln-aot $(BUILD)/liblightnet.a $(RT_LIB)
	BUILD=$(BUILD) RT_LIB=$(RT_LIB) CC="$(CC)" AOT_CFLAGS="$(CJSON_CFLAGS) $(SAN)" \
	    AOT_LDLIBS="$(SAN) $(LDLIBS_ALL)" $(TORCH_PY) tools/torchvision_sweep.py $(TORCH_SWEEP_ARGS)
