#!/usr/bin/python3
"""Tiny ONNX models whose sizes no target can hold, for tests/cli/sizes.sh.

    /usr/bin/python3 tests/cli/sizes/make_models.py     (Debian's python3-onnx)

huge.onnx   Relu on a 1x3x1048576x1048576 input: 3.3e12 elements (issue 12)
big4g.onnx  Relu on 1x1024x1024x1024 floats: 2^30 elements, 4 GiB per tensor,
            one byte more than a 32-bit size_t holds
"""
import os
import onnx
from onnx import helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))


def relu_model(path, shape):
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)
    g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"], name="relu")], "g", [x], [y])
    m = helper.make_model(g, opset_imports=[helper.make_operatorsetid("", 13)],
                          producer_name="tests/cli/sizes/make_models.py")
    m.ir_version = 7
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(HERE, path))


relu_model("huge.onnx", [1, 3, 1048576, 1048576])
relu_model("big4g.onnx", [1, 1024, 1024, 1024])
