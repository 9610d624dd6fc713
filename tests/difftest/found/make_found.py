#!/usr/bin/env python3
"""Minimal reproducers of the bugs the differential tester found (see
README.md beside this file).  Writes <name>.onnx here, <name>.in.bin, the
graph input as raw float32 (for lightnet -i), where there is one, and
<name>.ref.bin, the output computed here with numpy (checked against ONNX
Runtime when the reproducers were made).  make test-aot runs each through
the interpreter (as compiled and at -O0) and ln-aot against the reference.

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


def avgpool_incl(x, k, s, ceil):
    """AveragePool, no pool pads, count_include_pad: a ceil-mode window
    that runs over the end divides by the part inside the input."""
    n, c, h, w = x.shape
    def out(i, kk, ss):
        span = i - kk
        o = (-(-span // ss) if ceil else span // ss) + 1
        return o - 1 if ceil and (o - 1) * ss >= i else o
    oh, ow = out(h, k[0], s[0]), out(w, k[1], s[1])
    y = np.zeros((n, c, oh, ow), np.float64)
    for i in range(oh):
        for j in range(ow):
            win = x[:, :, i * s[0]:i * s[0] + k[0], j * s[1]:j * s[1] + k[1]]
            y[:, :, i, j] = win.sum(axis=(2, 3)) / (win.shape[2] * win.shape[3])
    return y


def save(name, nodes, inits, ins, outs, ref):
    """ref(inputs..., inits) -> the output"""
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
    xs = []
    for n, s in ins:
        xs.append(R.uniform(-1, 1, s).astype(np.float32))
        xs[-1].tofile(os.path.join(HERE, name + ".in.bin"))
    y = np.asarray(ref(*xs, **inits), np.float64)
    assert list(y.shape) == outs[0][1], (name, y.shape)
    y.astype(np.float32).tofile(os.path.join(HERE, name + ".ref.bin"))


# 1. Clip without a min (or without min and max) fused into the conv before it
save("clip_nomin_fused",
     [helper.make_node("Conv", ["x", "w", "b"], ["t"], kernel_shape=[1, 1]),
      helper.make_node("Clip", ["t", "", "hi"], ["y"])],
     {"w": f32(2, 2, 1, 1), "b": f32(2), "hi": np.float32(0.5)},
     [("x", [1, 2, 2, 2])], [("y", [1, 2, 2, 2])],
     lambda x, w, b, hi: np.minimum(np.einsum("oi,nihw->nohw", w[:, :, 0, 0], x)
                                    + b[None, :, None, None], hi))

# 2. a zero Pad folded into an AveragePool makes pads >= kernel: -O2 refuses
save("pad_fold_avgpool",
     [helper.make_node("Pad", ["x", "pads"], ["p"], mode="constant"),
      helper.make_node("AveragePool", ["p"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                       count_include_pad=1)],
     {"pads": np.array([0, 0, 2, 0, 0, 0, 0, 0], np.int64)},
     [("x", [1, 1, 2, 2])], [("y", [1, 1, 2, 1])],
     lambda x, pads: avgpool_incl(np.pad(x, [(0, 0), (0, 0), (2, 0), (0, 0)]), [2, 2], [2, 2], 0))

# 3. a graph output that is a view of a folded constant is never written
save("folded_const_view_output",
     [helper.make_node("Relu", ["a"], ["u"]),
      helper.make_node("Flatten", ["u"], ["y"], axis=1)],
     {"a": f32(1, 2, 2, 2)},
     [], [("y", [1, 8])],
     lambda a: np.maximum(a, 0).reshape(1, 8))

# 4. a one-input Concat of a view of a graph input: ln-aot's C writes through
#    a const pointer (the caller's input buffer)
save("concat1_of_input_view",
     [helper.make_node("Flatten", ["x"], ["f"], axis=1),
      helper.make_node("Concat", ["f"], ["c"], axis=1),
      helper.make_node("Gemm", ["c", "w"], ["y"])],
     {"w": f32(4, 2)},
     [("x", [1, 1, 2, 2])], [("y", [1, 2])],
     lambda x, w: x.reshape(1, 4) @ w)

# 5. a zero Pad folded into a ceil-mode AveragePool changes its output shape
#    (the window that starts in the explicit padding is dropped)
save("pad_fold_avgpool_ceil",
     [helper.make_node("Pad", ["x", "pads"], ["p"], mode="constant"),
      helper.make_node("AveragePool", ["p"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                       ceil_mode=1, count_include_pad=1)],
     {"pads": np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64)},
     [("x", [1, 1, 9, 4])], [("y", [1, 1, 5, 3])],
     lambda x, pads: avgpool_incl(np.pad(x, [(0, 0), (0, 0), (0, 1), (0, 1)]), [2, 2], [2, 2], 1))

# 6. a graph output that is a view of a constant the importer computed was
#    never written, even at -O0
save("const_view_output_O0",
     [helper.make_node("Add", ["a", "a"], ["u"]),
      helper.make_node("Dropout", ["u"], ["y"])],
     {"a": f32(1, 2, 2, 2)},
     [], [("y", [1, 2, 2, 2])],
     lambda a: a + a)
