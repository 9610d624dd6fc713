#!/usr/bin/python3
"""ONNX Runtime's QOperator format: models of the com.microsoft nodes its
quantizer writes (QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
QLinearAveragePool, QLinearGlobalAveragePool, QLinearConcat, QLinearSoftmax,
QGemm) around ONNX's QLinearConv, with ONNX Runtime's outputs as references.

    /usr/bin/python3 tests/onnx/qdq/make_ms_qop.py

Writes tests/onnx/qdq/msqop_{u8,s8}.{onnx,in.bin,ref.bin,scale} (and
tests/onnx/msqop_nhwc.onnx, a channels_last pool to be refused): uint8
activations (ONNX Runtime's default) and int8 ones, int8 weights per output
channel.  tests/aot/run.sh holds LightNet to them within 2 output steps on
99% of the elements and 4 on all (ONNX Runtime computes these nodes its own
way: float where LightNet uses TFLite's integer arithmetic).  Needs onnx,
numpy and onnxruntime-node (bench/setup.sh).
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
MS = "com.microsoft"


def build(u8, rng):
    qt, zlo = (np.uint8, 0) if u8 else (np.int8, -128)
    inits, nodes = [], []

    def c(name, v):
        inits.append(numpy_helper.from_array(np.asarray(v), name))
        return name

    def act(name, scale, zp):          # an activation's scale and zero point
        return c(name + "_s", np.float32(scale)), c(name + "_z", qt(zp + 128 if u8 else zp))

    def n(op, ins, outs, domain=None, **kw):
        nodes.append(helper.make_node(op, ins, outs, domain=domain, **kw))

    def qconv(x, xs, xz, cin, cout, name, ys, yz, group=1, k=3):
        w = rng.standard_normal((cout, cin // group, k, k)).astype(np.float32) * 0.3
        ws = np.abs(w).reshape(cout, -1).max(1) / 127
        wq = np.round(w / ws[:, None, None, None]).astype(np.int8)
        b = rng.standard_normal(cout).astype(np.float32) * 0.1
        bq = np.round(b / (inits_scale(xs) * ws)).astype(np.int32)
        ins = [x, xs, xz, c(name + "_w", wq), c(name + "_ws", ws.astype(np.float32)),
               c(name + "_wz", np.zeros(cout, np.int8)), ys, yz, c(name + "_b", bq)]
        n("QLinearConv", ins, [name], pads=[k // 2] * 4, group=group)
        return name

    def inits_scale(name):
        return float(next(numpy_helper.to_array(t) for t in inits if t.name == name))

    xs, xz = act("x", 0.03, 0)
    n("QuantizeLinear", ["x", xs, xz], ["xq"])
    s1, z1 = act("c1", 0.02, -128)
    a = qconv("xq", xs, xz, 3, 8, "c1", s1, z1)
    s2, z2 = act("c2", 0.025, -10)
    b = qconv(a, s1, z1, 8, 8, "c2", s2, z2, group=8)
    s3, z3 = act("add", 0.03, -20)
    n("QLinearAdd", [a, s1, z1, b, s2, z2, s3, z3], ["add"], domain=MS)
    s4, z4 = act("mul", 0.02, 5)
    n("QLinearMul", ["add", s3, z3, b, s2, z2, s4, z4], ["mul"], domain=MS)
    s5, z5 = act("sig", 1 / 256.0, -128)
    n("QLinearSigmoid", ["add", s3, z3, s5, z5], ["sig"], domain=MS)
    s6, z6 = act("lrelu", 0.02, -100)
    n("QLinearLeakyRelu", ["mul", s4, z4, s6, z6], ["lrelu"], domain=MS, alpha=0.1)
    s7, z7 = act("cat", 0.02, -90)
    n("QLinearConcat", [s7, z7, "sig", s5, z5, "lrelu", s6, z6], ["cat"], domain=MS, axis=1)
    s8, z8 = act("pool", 0.02, -90)
    n("QLinearAveragePool", ["cat", s7, z7, s8, z8], ["pool"], domain=MS, kernel_shape=[2, 2],
      strides=[2, 2])
    s9, z9 = act("gap", 0.015, -90)
    n("QLinearGlobalAveragePool", ["pool", s8, z8, s9, z9], ["gap"], domain=MS, channels_last=0)
    n("Flatten", ["gap"], ["flat"])
    w = rng.standard_normal((16, 6)).astype(np.float32) * 0.5
    ws = (np.abs(w).max(0) / 127).astype(np.float32)
    wq = np.round(w / ws).astype(np.int8)
    bq = np.round(rng.standard_normal(6) * 0.1 / (0.015 * ws)).astype(np.int32)
    s10, z10 = act("fc", 0.04, 0)
    n("QGemm", ["flat", s9, z9, c("fc_w", wq), c("fc_ws", ws), c("fc_wz", np.zeros(6, np.int8)),
                c("fc_b", bq), s10, z10], ["fc"], domain=MS)
    s11, z11 = act("sm", 1 / 256.0, -128)
    n("QLinearSoftmax", ["fc", s10, z10, s11, z11], ["sm"], domain=MS, axis=-1, opset=13)
    n("DequantizeLinear", ["sm", s11, z11], ["y"])
    g = helper.make_graph(nodes, "msqop", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 6])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)],
                          producer_name="lightnet-msqop")
    m.ir_version = 7
    return m, 1 / 256.0


def ort(model, x):
    d = tempfile.mkdtemp()
    try:
        onnx.save(model, os.path.join(d, "model.onnx"))
        x.tofile(os.path.join(d, "in_0.bin"))
        json.dump(list(x.shape), open(os.path.join(d, "shape_0.json"), "w"))
        open(os.path.join(d, "inputs.txt"), "w").write("x\n")
        open(os.path.join(d, "outs.txt"), "w").write("y\n")
        subprocess.run(["node", os.path.join(ROOT, "tests", "difftest", "ort_run.js"), d],
                       check=True, stderr=subprocess.DEVNULL)
        if os.path.exists(os.path.join(d, "ort.err")):
            raise SystemExit("ONNX Runtime: " + open(os.path.join(d, "ort.err")).read())
        return np.fromfile(os.path.join(d, "ort_0.bin"), dtype=np.float32)
    finally:
        shutil.rmtree(d)


def bad_nhwc():
    """A channels_last QLinearGlobalAveragePool (NHWC), which LightNet refuses
    by name: tests/onnx/msqop_nhwc.onnx (tests/onnx/run.sh)."""
    i = [numpy_helper.from_array(np.float32(0.1), "s"), numpy_helper.from_array(np.uint8(128), "z")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["xq"]),
             helper.make_node("QLinearGlobalAveragePool", ["xq", "s", "z", "s", "z"], ["p"],
                              domain=MS, channels_last=1),
             helper.make_node("DequantizeLinear", ["p", "s", "z"], ["y"])]
    g = helper.make_graph(nodes, "nhwc", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 4, 3])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 1, 3])], i)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13), helper.make_opsetid(MS, 1)])
    m.ir_version = 7
    onnx.save(m, os.path.join(os.path.dirname(HERE), "msqop_nhwc.onnx"))


def main():
    bad_nhwc()
    for name, u8, seed in (("msqop_u8", True, 1), ("msqop_s8", False, 2)):
        rng = np.random.default_rng(seed)
        m, step = build(u8, rng)
        x = rng.standard_normal((1, 3, 8, 8)).astype(np.float32)
        ref = ort(m, x)
        onnx.save(m, os.path.join(HERE, name + ".onnx"))
        x.tofile(os.path.join(HERE, name + ".in.bin"))
        ref.tofile(os.path.join(HERE, name + ".ref.bin"))
        open(os.path.join(HERE, name + ".scale"), "w").write("%.9g\n" % step)
        print(name, ref)


if __name__ == "__main__":
    main()
