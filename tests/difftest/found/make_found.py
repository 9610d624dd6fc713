#!/usr/bin/env python3
"""Minimal reproducers of the bugs the differential tester found (see
README.md beside this file).  Writes <name>.onnx here and <name>.in.bin,
the graph input as raw float32 (for lightnet -i), where there is one.

  /usr/bin/python3 tests/difftest/found/make_found.py
"""
import os
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
R = np.random.RandomState(0)


def f32(*shape):
    return R.uniform(-1, 1, shape).astype(np.float32)


def save(name, nodes, inits, ins, outs):
    g = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in ins],
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s) for n, s in outs],
        [numpy_helper.from_array(np.asarray(v), k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="lightnet-difftest")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(HERE, name + ".onnx"))
    for n, s in ins:
        R.uniform(-1, 1, s).astype(np.float32).tofile(os.path.join(HERE, name + ".in.bin"))


# 1. Clip without a min (or without min and max) fused into the conv before it
save("clip_nomin_fused",
     [helper.make_node("Conv", ["x", "w", "b"], ["t"], kernel_shape=[1, 1]),
      helper.make_node("Clip", ["t", "", "hi"], ["y"])],
     {"w": f32(2, 2, 1, 1), "b": f32(2), "hi": np.float32(0.5)},
     [("x", [1, 2, 2, 2])], [("y", [1, 2, 2, 2])])

# 2. a zero Pad folded into an AveragePool makes pads >= kernel: -O2 refuses
save("pad_fold_avgpool",
     [helper.make_node("Pad", ["x", "pads"], ["p"], mode="constant"),
      helper.make_node("AveragePool", ["p"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                       count_include_pad=1)],
     {"pads": np.array([0, 0, 2, 0, 0, 0, 0, 0], np.int64)},
     [("x", [1, 1, 2, 2])], [("y", [1, 1, 2, 1])])

# 3. a graph output that is a view of a folded constant is never written
save("folded_const_view_output",
     [helper.make_node("Relu", ["a"], ["u"]),
      helper.make_node("Flatten", ["u"], ["y"], axis=1)],
     {"a": f32(1, 2, 2, 2)},
     [], [("y", [1, 8])])

# 4. a one-input Concat of a view of a graph input: ln-aot's C writes through
#    a const pointer (the caller's input buffer)
save("concat1_of_input_view",
     [helper.make_node("Flatten", ["x"], ["f"], axis=1),
      helper.make_node("Concat", ["f"], ["c"], axis=1),
      helper.make_node("Gemm", ["c", "w"], ["y"])],
     {"w": f32(4, 2)},
     [("x", [1, 1, 2, 2])], [("y", [1, 2])])

# 5. a zero Pad folded into a ceil-mode AveragePool changes its output shape
#    (the window that starts in the explicit padding is dropped)
save("pad_fold_avgpool_ceil",
     [helper.make_node("Pad", ["x", "pads"], ["p"], mode="constant"),
      helper.make_node("AveragePool", ["p"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                       ceil_mode=1, count_include_pad=1)],
     {"pads": np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64)},
     [("x", [1, 1, 9, 4])], [("y", [1, 1, 5, 3])])
