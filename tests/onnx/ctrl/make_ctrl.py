#!/usr/bin/env python3
"""Control-flow models (ONNX If, Loop, Scan) that LightNet must import, each
run on inputs that take every branch: <name>.onnx, its input <name>.in.bin
(raw float32) and the reference output <name>.ref.bin.

  - ONNX Runtime references (onnxruntime-node from bench/node_modules,
    graph optimizations off: run `sh bench/setup.sh` first): an If on a
    run-time comparison (score > threshold) whose branches are different op
    chains; a nested If whose branches read tensors of the main graph and of
    the outer branch; a Loop with a constant trip count carrying a value and
    stacking a scan output; a Scan with a reversed input.
  - PyTorch references: a torch.jit.script module with `if x.mean() > 0:`,
    exported to ONNX (an If node), its output computed by PyTorch.

A model run on several inputs is one .onnx per input (the same graph), so
that tests/aot/run.sh runs each through the interpreter and ln-aot + cc.
Committed; regenerate with

  /usr/bin/python3 tests/onnx/ctrl/make_ctrl.py
"""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
R = np.random.RandomState(16)


def f32(*shape):
    return R.uniform(-1, 1, shape).astype(np.float32)


def ort(path, x):
    """y of the model at path on input x, by ONNX Runtime."""
    d = tempfile.mkdtemp()
    try:
        shutil.copy(path, os.path.join(d, "model.onnx"))
        x.tofile(os.path.join(d, "in_0.bin"))
        json.dump(list(x.shape), open(os.path.join(d, "shape_0.json"), "w"))
        open(os.path.join(d, "inputs.txt"), "w").write("x\n")
        open(os.path.join(d, "outs.txt"), "w").write("y\n")
        subprocess.run(["node", os.path.join(ROOT, "tests", "difftest", "ort_run.js"), d],
                       check=True, stderr=subprocess.DEVNULL)
        if os.path.exists(os.path.join(d, "ort.err")):
            raise SystemExit("%s: ONNX Runtime: %s" % (path, open(os.path.join(d, "ort.err")).read()))
        return np.fromfile(os.path.join(d, "ort_0.bin"), dtype=np.float32)
    finally:
        shutil.rmtree(d)


def save(name, nodes, inits, x_shape, y_shape, xs, opset=14):
    """The graph x -> y, saved once per input in xs (<name>_<tag>)."""
    g = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="lightnet-ctrl")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=True)
    for tag, x in xs.items():
        n = "%s_%s" % (name, tag)
        onnx.save(m, os.path.join(HERE, n + ".onnx"))
        x.tofile(os.path.join(HERE, n + ".in.bin"))
        ort(os.path.join(HERE, n + ".onnx"), x).tofile(os.path.join(HERE, n + ".ref.bin"))


def graph(name, nodes, outs, inits=None):
    return helper.make_graph(nodes, name, [], [helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                                               for o in outs],
                             [numpy_helper.from_array(v, k) for k, v in (inits or {}).items()])


# If on a score threshold: mean(x) > 0.  Then: conv 3x3 -> relu -> global
# average pool; else: a strided 1x1 conv -> tanh -> max over H and W; a
# relu after the If (it must not fuse into either branch's last op)
then_g = graph("then", [
    helper.make_node("Conv", ["x", "w1", "b1"], ["t1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
    helper.make_node("Relu", ["t1"], ["t2"]),
    helper.make_node("GlobalAveragePool", ["t2"], ["t3"]),
    helper.make_node("Conv", ["t3", "w3"], ["t_out"], kernel_shape=[1, 1])], ["t_out"])
else_g = graph("else", [
    helper.make_node("Conv", ["x", "w2"], ["e1"], kernel_shape=[1, 1], strides=[2, 2]),
    helper.make_node("Tanh", ["e1"], ["e2"]),
    helper.make_node("ReduceMax", ["e2"], ["e3"], axes=[2, 3], keepdims=1),
    helper.make_node("Conv", ["e3", "w4"], ["e_out"], kernel_shape=[1, 1])], ["e_out"])
x = f32(1, 3, 8, 8)
save("if_score",
     [helper.make_node("ReduceMean", ["x"], ["score"], keepdims=0),
      helper.make_node("Greater", ["score", "thr"], ["cond"]),
      helper.make_node("If", ["cond"], ["r"], then_branch=then_g, else_branch=else_g),
      helper.make_node("Relu", ["r"], ["y"])],
     {"thr": np.array(0.0, np.float32), "w1": f32(4, 3, 3, 3), "b1": f32(4), "w2": f32(4, 3, 1, 1),
      "w3": f32(5, 4, 1, 1), "w4": f32(5, 4, 1, 1)},
     [1, 3, 8, 8], [1, 5, 1, 1], {"then": x + 0.5, "else": x - 0.5})

# The same If with its condition a constant: folded at import (the taken
# branch only); their arenas bound the run-time If's (tests/test_ln_ctrl.c)
for tag, c in (("then", True), ("else", False)):
    save("if_fold_" + tag,
         [helper.make_node("If", ["cond"], ["r"], then_branch=then_g, else_branch=else_g),
          helper.make_node("Relu", ["r"], ["y"])],
         {"cond": np.array(c), "w1": f32(4, 3, 3, 3), "b1": f32(4), "w2": f32(4, 3, 1, 1),
          "w3": f32(5, 4, 1, 1), "w4": f32(5, 4, 1, 1)},
         [1, 3, 8, 8], [1, 5, 1, 1], {"x": x})

# A nested If: the outer on sum(x) > 0, the inner (in the outer then
# branch) on max(h) > 1 where h = relu(x) * k is computed before the If;
# the branches read x, h and k of the main graph and a of the outer branch
inner_then = graph("inner_then", [helper.make_node("Add", ["a", "h"], ["it"])], ["it"])
inner_else = graph("inner_else", [helper.make_node("Sub", ["a", "x"], ["ie0"]),
                                  helper.make_node("Sigmoid", ["ie0"], ["ie"])], ["ie"])
outer_then = graph("outer_then", [
    helper.make_node("Mul", ["x", "k"], ["a"]),
    helper.make_node("ReduceMax", ["h"], ["hm"], keepdims=0),
    helper.make_node("Greater", ["hm", "one"], ["c2"]),
    helper.make_node("If", ["c2"], ["ot"], then_branch=inner_then, else_branch=inner_else)],
    ["ot"])
outer_else = graph("outer_else", [helper.make_node("Neg", ["h"], ["oe0"]),
                                  helper.make_node("Add", ["oe0", "k"], ["oe"])], ["oe"])
x = f32(2, 6) * 0.2
x_big = x + 0.5
x_big[1, 3] = 3.0
save("if_nested",
     [helper.make_node("Relu", ["x"], ["h0"]),
      helper.make_node("Mul", ["h0", "k"], ["h"]),
      helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
      helper.make_node("Greater", ["s", "zero"], ["c1"]),
      helper.make_node("If", ["c1"], ["o"], then_branch=outer_then, else_branch=outer_else),
      helper.make_node("Mul", ["o", "h"], ["y"])],
     {"k": f32(6) + 1.5, "zero": np.array(0.0, np.float32), "one": np.array(1.0, np.float32)},
     [2, 6], [2, 6], {"tt": x_big, "tf": x + 0.5, "f": x - 0.1})

# Loop with a constant trip count (4) and no condition: v = tanh(v W + x * i)
# carried, v stacked as the scan output; y is the stack
body = helper.make_graph(
    [helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
     helper.make_node("Mul", ["x", "fi"], ["xi"]),
     helper.make_node("MatMul", ["v_in", "W"], ["vw"]),
     helper.make_node("Add", ["vw", "xi"], ["pre"]),
     helper.make_node("Tanh", ["pre"], ["v_out"]),
     helper.make_node("Identity", ["c_in"], ["c_out"]),
     helper.make_node("Identity", ["v_out"], ["scan"])],
    "body",
    [helper.make_tensor_value_info("i", TensorProto.INT64, []),
     helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
     helper.make_tensor_value_info("v_in", TensorProto.FLOAT, None)],
    [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
     helper.make_tensor_value_info("v_out", TensorProto.FLOAT, None),
     helper.make_tensor_value_info("scan", TensorProto.FLOAT, None)])
save("loop_carry",
     [helper.make_node("Loop", ["M", "", "v0"], ["vf", "y"], body=body)],
     {"M": np.array(4, np.int64), "v0": f32(1, 8), "W": f32(8, 8)},
     [1, 8], [4, 1, 8], {"x": f32(1, 8)})

# Scan (opset 11) over axis 1 of x, the second scan input reversed: a
# running sum s = s + x_t * r_(T-1-t) carried, the products stacked on axis 1
sbody = helper.make_graph(
    [helper.make_node("Mul", ["xt", "rt"], ["p"]),
     helper.make_node("Add", ["s_in", "p"], ["s_out"]),
     helper.make_node("Identity", ["p"], ["p_out"])],
    "sbody",
    [helper.make_tensor_value_info("s_in", TensorProto.FLOAT, [3]),
     helper.make_tensor_value_info("xt", TensorProto.FLOAT, [3]),
     helper.make_tensor_value_info("rt", TensorProto.FLOAT, [3])],
    [helper.make_tensor_value_info("s_out", TensorProto.FLOAT, [3]),
     helper.make_tensor_value_info("p_out", TensorProto.FLOAT, [3])])
save("scan_reverse",
     [helper.make_node("Scan", ["s0", "x", "r"], ["sf", "ps"], body=sbody, num_scan_inputs=2,
                       scan_input_axes=[1, 0], scan_input_directions=[0, 1],
                       scan_output_axes=[1]),
      helper.make_node("Unsqueeze", ["sf", "ax"], ["sf_b"]),
      helper.make_node("Add", ["ps", "sf_b"], ["y0"]),
      helper.make_node("Identity", ["y0"], ["y"])],
     {"s0": f32(3), "r": f32(5, 3), "ax": np.array([1], np.int64)},
     [3, 5], [3, 5], {"x": f32(3, 5)}, opset=13)


# Models LightNet must refuse, naming the node or input (no data)
BAD = os.path.join(HERE, "bad")
os.makedirs(BAD, exist_ok=True)


def save_bad(name, nodes, inits, inputs, opset=14):
    g = helper.make_graph(nodes, name, inputs,
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                          [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="lightnet-ctrl")
    m.ir_version = 8
    onnx.save(m, os.path.join(BAD, name + ".onnx"))


X4 = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
# branches of different shapes: [4] and [2]
save_bad("if_shapes",
         [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
          helper.make_node("Greater", ["s", "zero"], ["c"]),
          helper.make_node("If", ["c"], ["y"], name="pick",
                           then_branch=graph("t", [helper.make_node("Neg", ["x"], ["a"])], ["a"]),
                           else_branch=graph("e", [helper.make_node("Slice", ["x", "st", "en"], ["b"])],
                                             ["b"]))],
         {"zero": np.array(0.0, np.float32), "st": np.array([0], np.int64),
          "en": np.array([2], np.int64)}, [X4])
# a branch output no node writes
save_bad("if_undefined_out",
         [helper.make_node("ReduceSum", ["x"], ["s"], keepdims=0),
          helper.make_node("Greater", ["s", "zero"], ["c"]),
          helper.make_node("If", ["c"], ["y"], name="iff",
                           then_branch=graph("t", [helper.make_node("Neg", ["x"], ["a"])], ["a"]),
                           else_branch=graph("e", [helper.make_node("Neg", ["x"], ["b"])],
                                             ["nowhere"]))],
         {"zero": np.array(0.0, np.float32)}, [X4])
# a trip count computed at run time
save_bad("loop_runtime_m",
         [helper.make_node("Loop", ["M", "", "x"], ["y"], name="lp", body=helper.make_graph(
             [helper.make_node("Identity", ["c_in"], ["c_out"]),
              helper.make_node("Neg", ["v_in"], ["v_out"])], "b",
             [helper.make_tensor_value_info("i", TensorProto.INT64, []),
              helper.make_tensor_value_info("c_in", TensorProto.BOOL, []),
              helper.make_tensor_value_info("v_in", TensorProto.FLOAT, None)],
             [helper.make_tensor_value_info("c_out", TensorProto.BOOL, []),
              helper.make_tensor_value_info("v_out", TensorProto.FLOAT, None)]))],
         {}, [helper.make_tensor_value_info("M", TensorProto.INT64, []), X4])


# PyTorch: a scripted module with a data-dependent if, exported as ONNX If
def torch_if():
    import torch

    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.a = torch.nn.Linear(6, 4)
            self.b = torch.nn.Linear(6, 4)

        def forward(self, x):
            h = torch.relu(x)
            if x.mean() > 0:
                y = torch.sigmoid(self.a(h)) * 2.0
            else:
                y = self.b(x - h) - 1.0
            return y

    torch.manual_seed(16)
    m = torch.jit.script(M().eval())
    x = torch.rand(2, 6) - 0.5
    path = os.path.join(HERE, "torch_if.tmp.onnx")
    torch.onnx.export(m, (x,), path, input_names=["x"], output_names=["y"], opset_version=13)
    for tag, xv in (("pos", x + 0.5), ("neg", x - 0.5)):
        n = "torch_if_%s" % tag
        shutil.copy(path, os.path.join(HERE, n + ".onnx"))
        xv.numpy().astype(np.float32).tofile(os.path.join(HERE, n + ".in.bin"))
        with torch.no_grad():
            m(xv).numpy().astype(np.float32).tofile(os.path.join(HERE, n + ".ref.bin"))
    os.remove(path)


torch_if()
