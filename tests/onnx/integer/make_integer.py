#!/usr/bin/env python3
"""ONNX's integer ops on the shapes tests/rt/test_rt_integer.c covers
kernel by kernel, here end to end: ConvInteger on 1-D (NCW) and 3-D
(NCDHW) inputs with Conv's attributes, and MatMulInteger with zero points
per column of each matrix of a batch (b_zero_point [..., 1, N], B
broadcast over A's batch and B computed at run time).  Each model takes
one float input x, quantizes it (QuantizeLinear with a power-of-two
scale: exact), runs the integer ops and casts their int32 results to float
(exact below 2^24): <name>.onnx, <name>.in.bin (raw float32) and the
output ONNX Runtime computes, <name>.ref.bin (onnxruntime-node from
bench/node_modules, graph optimizations off: `sh bench/setup.sh` first).
Committed; make test-aot runs each through the interpreter and ln-aot + cc
and wants the reference bit for bit.  bad_*.onnx are zero point shapes
ONNX Runtime 1.30 refuses; LightNet must refuse them too, naming the node,
the input and the shapes (tests/onnx/run.sh).

  /usr/bin/python3 tests/onnx/integer/make_integer.py
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
R = np.random.RandomState(13)


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.n = [], [], 0

    def const(self, base, v):
        self.n += 1
        name = "%s_%d" % (base, self.n)
        self.inits.append(numpy_helper.from_array(np.asarray(v), name))
        return name

    def node(self, op, ins, **attrs):
        self.n += 1
        out = "%s_%d" % (op.lower(), self.n)
        self.nodes.append(helper.make_node(op, ins, [out], name="%s_%d" % (op, self.n), **attrs))
        return out

    def quant(self, x, zp):
        """x / 2^-6 + zp, saturated (uint8 or int8 as zp's dtype)"""
        return self.node("QuantizeLinear", [x, self.const("s", np.float32(1.0 / 64)),
                                            self.const("z", zp)])

    def flat_float(self, y):
        y = self.node("Cast", [y], to=TensorProto.FLOAT)
        return self.node("Reshape", [y, self.const("shape", np.array([1, -1], np.int64))])


def u8(*shape):
    return R.randint(0, 256, shape).astype(np.uint8)


def s8(*shape):
    return R.randint(-128, 128, shape).astype(np.int8)


def save(name, b, outs, x_shape, reference=True):
    if len(outs) > 1:
        b.node("Concat", outs, axis=1)
    b.nodes[-1].output[0] = "y"             # the last node's output is the graph's
    g = helper.make_graph(b.nodes, name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, None])], b.inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="lightnet-integer")
    m.ir_version = 8
    onnx.checker.check_model(m)
    onnx.save(m, os.path.join(HERE, name + ".onnx"))
    if not reference:
        return
    x = R.uniform(-1.5, 1.5, x_shape).astype(np.float32)
    x.tofile(os.path.join(HERE, name + ".in.bin"))
    d = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(HERE, name + ".onnx"), os.path.join(d, "model.onnx"))
        x.tofile(os.path.join(d, "in_0.bin"))
        json.dump(list(x_shape), open(os.path.join(d, "shape_0.json"), "w"))
        open(os.path.join(d, "inputs.txt"), "w").write("x\n")
        open(os.path.join(d, "outs.txt"), "w").write("y\n")
        subprocess.run(["node", os.path.join(ROOT, "tests", "difftest", "ort_run.js"), d],
                       check=True, stderr=subprocess.DEVNULL)
        if os.path.exists(os.path.join(d, "ort.err")):
            raise SystemExit("%s: ONNX Runtime: %s" % (name, open(os.path.join(d, "ort.err")).read()))
        ref = np.fromfile(os.path.join(d, "ort_0.bin"), np.float32)
        assert np.all(ref == np.round(ref)) and np.abs(ref).max() < 2 ** 24, name
        ref.tofile(os.path.join(HERE, name + ".ref.bin"))
    finally:
        shutil.rmtree(d)


def conv1d():
    """ConvInteger on [n, c, l]: uint8 with pads, strides, dilations; int8
    grouped with SAME_UPPER and SAME_LOWER; no zero points at all"""
    b = Builder()
    xu = b.quant("x", np.uint8(128))
    xs = b.quant("x", np.int8(-3))
    outs = [b.flat_float(b.node("ConvInteger", [xu, b.const("w", u8(4, 4, 3)),
                                                b.const("xz", np.uint8(128)),
                                                b.const("wz", np.uint8(120))],
                                pads=[1, 2], strides=[2], dilations=[2]))]
    for ap in ("SAME_UPPER", "SAME_LOWER"):
        outs.append(b.flat_float(b.node("ConvInteger", [xs, b.const("w", s8(6, 2, 4)),
                                                        b.const("xz", np.array([-3], np.int8)),
                                                        b.const("wz", np.int8(5))],
                                        group=2, auto_pad=ap, strides=[3])))
    outs.append(b.flat_float(b.node("ConvInteger", [xu, b.const("w", u8(2, 4, 5))],
                                    kernel_shape=[5])))
    save("integer_conv1d", b, outs, [2, 4, 11])


def conv3d():
    """ConvInteger on [n, c, d, h, w]: pads, strides, dilations per axis;
    grouped int8 SAME_LOWER; VALID with strides"""
    b = Builder()
    xu = b.quant("x", np.uint8(130))
    xs = b.quant("x", np.int8(2))
    outs = [b.flat_float(b.node("ConvInteger", [xu, b.const("w", u8(3, 4, 2, 3, 2)),
                                                b.const("xz", np.uint8(130)),
                                                b.const("wz", np.uint8(127))],
                                pads=[0, 1, 1, 1, 0, 1], strides=[1, 2, 1],
                                dilations=[2, 1, 1]))]
    outs.append(b.flat_float(b.node("ConvInteger", [xs, b.const("w", s8(4, 2, 3, 3, 3)),
                                                    b.const("xz", np.int8(2))],
                                    group=2, auto_pad="SAME_LOWER", strides=[2, 1, 2])))
    outs.append(b.flat_float(b.node("ConvInteger", [xu, b.const("w", u8(2, 4, 3, 3, 3)),
                                                    b.const("xz", np.uint8(130))],
                                    auto_pad="VALID", strides=[2, 2, 2])))
    save("integer_conv3d", b, outs, [1, 4, 5, 6, 7])


def matmul_batch():
    """MatMulInteger, b_zero_point per column of each matrix: constant B
    [2, K, N] with [2, 1, N]; B [1, 3, K, N] against A [2, 1, M, K]
    (both broadcast) with [1, 3, 1, N]; B quantized at run time
    [2, K, M] with a run-time zero point [2, 1, M]; B 2-D with [N]"""
    b = Builder()
    a = b.quant("x", np.uint8(128))                          # A [2, 3, 4] uint8
    outs = [b.flat_float(b.node("MatMulInteger", [a, b.const("B", s8(2, 4, 5)),
                                                  b.const("az", np.uint8(128)),
                                                  b.const("bz", s8(2, 1, 5))]))]
    a4 = b.node("Reshape", [a, b.const("shape", np.array([2, 1, 3, 4], np.int64))])
    outs.append(b.flat_float(b.node("MatMulInteger", [a4, b.const("B", u8(1, 3, 4, 5)),
                                                      b.const("az", np.array([128], np.uint8)),
                                                      b.const("bz", u8(1, 3, 1, 5))])))
    xt = b.node("Transpose", ["x"], perm=[0, 2, 1])            # [2, 4, 3]
    bq = b.quant(xt, np.int8(0))
    bz = b.const("bz", s8(2, 1, 3))
    a_s = b.quant("x", np.int8(-1))
    outs.append(b.flat_float(b.node("MatMulInteger", [a_s, bq, b.const("az", np.int8(-1)), bz])))
    outs.append(b.flat_float(b.node("MatMulInteger", [a, b.const("B", s8(4, 6)), "",
                                                      b.const("bz", s8(6))])))
    save("integer_matmul_batch", b, outs, [2, 3, 4])


def bad(name, a_shape, az_shape, b_shape, bz_shape):
    """a zero point shape ONNX Runtime refuses (no reference)"""
    b = Builder()
    a = b.quant("x", np.uint8(128))
    ins = [a, b.const("B", s8(*b_shape)),
           b.const("az", u8(*az_shape)) if az_shape is not None else "",
           b.const("bz", s8(*bz_shape)) if bz_shape is not None else ""]
    while not ins[-1]:
        ins.pop()
    b.nodes.append(helper.make_node("MatMulInteger", ins, ["mm"], name="mm"))
    b.nodes.append(helper.make_node("Cast", ["mm"], ["y"], to=TensorProto.FLOAT))
    save(name, b, ["y"], a_shape, reference=False)


if __name__ == "__main__":
    conv1d()
    conv3d()
    matmul_batch()
    bad("bad_matmul_bz_broadcast", [2, 3, 4], None, [2, 4, 5], [1, 1, 5])
    bad("bad_matmul_bz_vector_3d", [2, 3, 4], None, [2, 4, 5], [5])
    bad("bad_matmul_az_11", [3, 4], [1, 1], [4, 5], None)
