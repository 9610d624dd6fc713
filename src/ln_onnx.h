/*
 * ln_onnx.h -- the ONNX importer (a serializer, see ln_serializer.h).
 *
 * ln_serializer_onnx turns an ONNX ModelProto into LightNet's JSON IR and
 * its constants: graph inputs become `input` ops, initializers and
 * Constant nodes `create` ops read from the constants, every node one
 * abstract op by the generated table ln_opregistry_onnx[] (op_type and
 * opset -> optype, inputs, outputs, attributes -> params), graph outputs
 * `output` ops.  Everything the model asks for that LightNet cannot do is
 * named in one error.  Built only with LN_HAVE_ONNX (mk/onnx.mk).
 */
#ifndef LN_ONNX_H
#define LN_ONNX_H

#include "ln_serializer.h"

LN_CPPSTART

extern const ln_serializer ln_serializer_onnx;

/* LN_TRUE when this build reads ONNX. */
ln_bool ln_onnx_enabled(void);

/* A serialized TensorProto (the node tests' input_N.pb / output_N.pb) into
 * a new tensor with owned data; LN_EPARSE / LN_EUNSUPPORTED naming source. */
int ln_onnx_read_tensor(const void *buf, size_t len, const char *source, ln_tensor **t);

/* The ONNX mapping of op_type at opset (default domain), NULL when none;
 * *optype gets the LightNet optype.  A stripped op counts as absent. */
ln_bool ln_onnx_op_supported(const char *op_type, int opset, const char **optype);

LN_CPPEND
#endif
