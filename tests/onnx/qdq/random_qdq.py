#!/usr/bin/env python3
"""Random QDQ networks against ONNX Runtime: the differential test of the int8
path. Each seed builds a small float CNN from random layers (convs of kernel
1 or 3, stride 1 or 2, grouped or depthwise, relu / clip / sigmoid / leaky
relu, residual adds, SE-style gates, concats of two branches, max / average
/ global pooling, flatten + gemm or matmul), quantizes it the way
quantize_models.py does (min/max calibration in ONNX Runtime, per-channel
int8 weights, int32 biases, uint8 activations for some seeds), and runs it
in ONNX Runtime (graph optimizations off: the float QDQ semantics) and in
lightnet built with -DLN_RT_S8_SINGLE_ROUNDING: rounding once as ONNX
Runtime does, every output element must agree to the step, except where a
layer's value falls within float rounding of a half step (allowed: 1 step on
at most 2% of the elements, or on one). Average pools are 3x3 with stride 3:
TFLite's int8 average pool rounds a tie away from zero where ONNX Runtime
rounds to even (a 2x2 window's sum of 2 mod 4: a quarter of the outputs a
step apart, carried on), and a window of 9 never ties. lightnet with
TFLite's default arithmetic is held to the same class (ties aside: a class
within a step of ONNX Runtime's top counts as the top) and its distance is
reported.

  random_qdq.py --lightnet BIN --lightnet-sr BIN [--seed S] [--n N] [--work DIR]

A failing seed's model stays in WORK/s<seed>.
"""
import argparse
import os
import shutil
import subprocess
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import quantize_models as qm  # noqa: E402


def build(seed):
    """A random float CNN: (model, input)."""
    r = np.random.RandomState(seed)
    nodes, inits = [], {}
    n = [0]

    def name(p):
        n[0] += 1
        return "%s%d" % (p, n[0])

    def const(v):
        k = name("c")
        inits[k] = v.astype(np.float32) if v.dtype.kind == "f" else v
        return k

    def node(op, ins, **attrs):
        o = name(op.lower())
        nodes.append(helper.make_node(op, ins, [o], name=o, **attrs))
        return o

    c, h = int(r.choice([3, 4, 8])), int(r.choice([6, 8, 9, 12]))
    x = r.uniform(-1, 1, (1, c, h, h)).astype(np.float32)
    t, shape = "x", [1, c, h, h]

    def conv(t, shape, oc, k, s, group):
        ci = shape[1]
        w = r.normal(0, 1.0 / np.sqrt(ci // group * k * k), (oc, ci // group, k, k))
        ins = [t, const(w)]
        if r.rand() < 0.8:
            ins.append(const(r.normal(0, 0.2, oc)))
        p = k // 2
        o = node("Conv", ins, kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p], group=group)
        hh = (shape[2] + 2 * p - k) // s + 1
        return o, [1, oc, hh, hh]

    def act(t):
        a = r.randint(5)
        if a == 0:
            return node("Relu", [t])
        if a == 1:
            return node("Clip", [t, const(np.array(0.0)), const(np.array(6.0))])
        if a == 2:
            return node("Sigmoid", [t])
        if a == 3:
            return node("LeakyRelu", [t], alpha=0.1)
        return t

    for _ in range(r.randint(2, 6)):
        kind = r.randint(6)
        if kind <= 1:           # conv + activation
            oc = int(r.choice([4, 8, shape[1]]))
            k = int(r.choice([1, 3]))
            s = int(r.choice([1, 1, 2])) if shape[2] > 3 else 1
            t, shape = conv(t, shape, oc, k, s, 1)
            t = act(t)
        elif kind == 2:         # depthwise
            t, shape = conv(t, shape, shape[1], 3, 1, shape[1])
            t = act(t)
        elif kind == 3:         # residual
            u, _ = conv(t, shape, shape[1], 3, 1, 1)
            t = node("Add", [t, act(u)])
        elif kind == 4:         # two branches, concatenated, or an SE gate
            if r.rand() < 0.5:
                a, sa = conv(t, shape, 4, 1, 1, 1)
                b, _ = conv(t, shape, 4, 3, 1, 1)
                t = node("Concat", [act(a), act(b)], axis=1)
                shape = [1, 8, sa[2], sa[3]]
            else:
                g = node("GlobalAveragePool", [t])
                g, _ = conv(g, [1, shape[1], 1, 1], shape[1], 1, 1, 1)
                t = node("Mul", [t, node("Sigmoid", [g])])
        elif shape[2] >= 4 and r.rand() < 0.5:
            t = node("MaxPool", [t], kernel_shape=[2, 2], strides=[2, 2])
            shape = [1, shape[1], shape[2] // 2, shape[3] // 2]
        elif shape[2] >= 3:     # 9 taps: no ties (see above)
            t = node("AveragePool", [t], kernel_shape=[3, 3], strides=[3, 3])
            shape = [1, shape[1], shape[2] // 3, shape[3] // 3]
    if r.rand() < 0.5:
        t = node("GlobalAveragePool", [t])
        shape = [1, shape[1], 1, 1]
    t = node("Flatten", [t])
    f = int(np.prod(shape[1:]))
    out = int(r.choice([3, 10]))
    if r.rand() < 0.5:
        t = node("Gemm", [t, const(r.normal(0, 1 / np.sqrt(f), (out, f))),
                          const(r.normal(0, 0.2, out))], transB=1)
    else:
        t = node("MatMul", [t, const(r.normal(0, 1 / np.sqrt(f), (f, out)))])
    nodes[-1].output[0] = "y"
    g = helper.make_graph(nodes, "random_qdq_%d" % seed,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, c, h, h])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, out])],
                          [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    return m, x


def run(binary, model, x_file, y_file):
    r = subprocess.run([binary, "-i", "x=" + x_file, "--save", "y=" + y_file, model],
                       capture_output=True, text=True)
    return r.stderr.strip() if r.returncode else None


def one(seed, a):
    m, x = build(seed)
    r = np.random.RandomState(seed + 1)
    xs = [x] + [r.uniform(-1, 1, x.shape).astype(np.float32) for _ in range(3)]
    q = qm.Quantizer(m, xs)
    q.calibrate()
    if seed % 3 == 0:           # uint8 activations, ONNX Runtime's default
        q.uint8 = True
    model = q.run()
    d = os.path.join(a.work, "s%d" % seed)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    onnx.save(model, path)
    x.tofile(os.path.join(d, "x.bin"))
    ref = qm.ort(model, [x], ["y"])[0][0]
    step = float(q.params("y")[0])
    res = {}
    for tag, binary in (("sr", a.lightnet_sr), ("dr", a.lightnet)):
        err = run(binary, path, os.path.join(d, "x.bin"), os.path.join(d, tag + ".bin"))
        if err:
            return "%s: %s" % (tag, err), None
        res[tag] = np.abs(np.fromfile(os.path.join(d, tag + ".bin"), np.float32) - ref) / step
    sr, dr = res["sr"], res["dr"]
    y = np.fromfile(os.path.join(d, "dr.bin"), np.float32)
    problems = []
    if sr.max() > 1.001 or ((sr > 0.001).mean() > 0.02 and (sr > 0.001).sum() > 1):
        problems.append("single rounding %.1f steps off on %.1f%% of the outputs"
                        % (sr.max(), 100 * (sr > 0.001).mean()))
    # the same class, ties aside: a class within a step of the top in ONNX
    # Runtime's output is as good as the top (int8 cannot tell them apart)
    if y[ref.argmax()] != y.max() and ref[y.argmax()] < ref.max() - 1.001 * step:
        problems.append("double rounding: top-1 %d, ONNX Runtime %d" % (y.argmax(), ref.argmax()))
    if not problems:
        shutil.rmtree(d)
    return "; ".join(problems) or None, dr.max()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lightnet", required=True)
    ap.add_argument("--lightnet-sr", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--work", default="build/qdq/random")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    fails, worst = 0, 0.0
    for seed in range(a.seed, a.seed + a.n):
        problem, dr = one(seed, a)
        if problem:
            fails += 1
            print("FAIL seed %d: %s (kept in %s)" % (seed, problem, os.path.join(a.work, "s%d" % seed)))
        else:
            worst = max(worst, dr)
    print("random qdq: seeds %d..%d: %d agree with ONNX Runtime (single rounding to the step, "
          "top-1 with TFLite's rounding, at most %.0f steps off), %d failed"
          % (a.seed, a.seed + a.n - 1, a.n - fails, worst, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
