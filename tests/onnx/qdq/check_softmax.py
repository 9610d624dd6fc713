#!/usr/bin/env python3
"""The int8 softmax of QDQ models (softmax_s8: TensorFlow Lite's integer
softmax, ln_rt_softmax_s8), checked through `lightnet`:

1. qdq_softmax (a conv, a softmax over the last axis of 4-D) and
   qdq_softmax_gemm (a gemm classifier, opset 11's 2-D softmax): the
   compiled IR holds softmax_s8_cpu and no float softmax, and the output is
   within 1 step (1/256) of ONNX Runtime's (make_qdq.py's .ref.bin: float
   softmax, QuantizeLinear's rounding) on every element; the steps that
   differ are counted and printed.
2. qdq_softmax_keep_float (a softmax whose output has calibrated
   parameters, one over axis 1 of 3-D): no softmax_s8, both softmaxes float,
   ONNX Runtime's output within 1 step.
3. TensorFlow Lite's softmax vector (tests/rt/s8/ref/softmax.json, its
   input scale 1/255): the parameters the compiler computes are TFLite's
   (input_mult 1077952640, input_left_shift 19, diff_min -3968) and the
   whole QDQ model's output is TFLite's, bit for bit.
4. Random rows (1 to 4095 elements, input scales 2^-8 .. 1.5): the output
   against the float softmax of the dequantized inputs, quantized (round
   half to even), within 1 step everywhere; the counts printed.
5. uint8 activations (ONNX Runtime's default): the softmax output at 1/256
   and zero point 0 is made int8 (-128) and the softmax softmax_s8, within
   1 step of ONNX Runtime.
6. ln-quant on a float gemm classifier with a softmax: the softmax's
   output gets ONNX Runtime's fixed parameters (1/256, -128), the compiled
   model holds softmax_s8, and its output is within 1 step of ONNX
   Runtime's on the same QDQ model.

  /usr/bin/python3 tests/onnx/qdq/check_softmax.py --bin build/bin
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print("FAIL " + msg)


def compiled_ops(lightnet, model, work):
    out = os.path.join(work, "compiled.json")
    subprocess.run([lightnet, "-c", "-o", out, model], check=True)
    return json.load(open(out))["ops"]


def run(lightnet, model, x, work):
    xf, yf = os.path.join(work, "x.bin"), os.path.join(work, "y.bin")
    x.astype(np.float32).tofile(xf)
    subprocess.run([lightnet, "-i", "x=" + xf, "--save", "y=" + yf, model], check=True,
                   stdout=subprocess.DEVNULL)
    return np.fromfile(yf, np.float32)


def steps(a, b):
    return np.abs(a.astype(np.float64) - b.astype(np.float64)) * 256.0


def optypes(ops):
    return [o["optype"] for o in ops]


def check_models(lightnet, work):
    for name in ("qdq_softmax", "qdq_softmax_gemm", "qdq_softmax_keep_float"):
        m = os.path.join(HERE, name + ".onnx")
        t = optypes(compiled_ops(lightnet, m, work))
        keep = "keep_float" in name
        if keep and ("softmax_s8_cpu" in t or t.count("softmax_cpu") != 2):
            fail("%s: a softmax the int8 kernel cannot take was fused: %s" % (name, t))
        if not keep and ("softmax_s8_cpu" not in t or "softmax_cpu" in t):
            fail("%s: the softmax did not become softmax_s8: %s" % (name, t))
        x = np.fromfile(os.path.join(HERE, name + ".in.bin"), np.float32)
        ref = np.fromfile(os.path.join(HERE, name + ".ref.bin"), np.float32)
        y = run(lightnet, m, x, work)
        d = steps(y, ref)
        n1 = int((d > 0.5).sum())
        if y.shape != ref.shape or d.max() > 1.001:
            fail("%s: %.1f steps from ONNX Runtime" % (name, d.max()))
        print("%s: %s, %d of %d outputs 1 step from ONNX Runtime, the rest equal" %
              (name, "float softmax" if keep else "softmax_s8", n1, y.size))


def qdq_softmax_model(path, shape, scale, zp, u8=False):
    """x -> Q(scale, zp) -> DQ -> Softmax(-1) -> Q(1/256, -128) -> DQ -> y;
    u8: uint8 activations, the output's zero point 0 (ONNX Runtime's)"""
    t = np.uint8 if u8 else np.int8
    inits = [numpy_helper.from_array(np.array(scale, np.float32), "sx"),
             numpy_helper.from_array(np.array(zp, t), "zx"),
             numpy_helper.from_array(np.array(1 / 256.0, np.float32), "sy"),
             numpy_helper.from_array(np.array(0 if u8 else -128, t), "zy")]
    nodes = [helper.make_node("QuantizeLinear", ["x", "sx", "zx"], ["xq"]),
             helper.make_node("DequantizeLinear", ["xq", "sx", "zx"], ["xd"]),
             helper.make_node("Softmax", ["xd"], ["p"], axis=-1),
             helper.make_node("QuantizeLinear", ["p", "sy", "zy"], ["pq"]),
             helper.make_node("DequantizeLinear", ["pq", "sy", "zy"], ["y"])]
    g = helper.make_graph(nodes, "softmax", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    onnx.save(m, path)


def check_tflite_vector(lightnet, work):
    d = json.load(open(os.path.join(ROOT, "tests", "rt", "s8", "ref", "softmax.json")))
    c = d["config"]
    rows, n = c["SOFTMAX_NUM_ROWS"], c["SOFTMAX_ROW_SIZE"]
    xq = np.array(d["arrays"]["softmax_input"]["data"], np.int64).reshape(rows, n)
    want = np.array(d["arrays"]["softmax_output_ref"]["data"], np.int64).reshape(rows, n)
    scale = np.float32(1 / 255.0)
    m = os.path.join(work, "tflite.onnx")
    qdq_softmax_model(m, [rows, n], scale, 0)
    sm = [o for o in compiled_ops(lightnet, m, work) if o["optype"] == "softmax_s8_cpu"]
    got = {p["arg_name"]: p["value"] for p in sm[0]["params"]} if sm else {}
    exp = {"input_mult": c["SOFTMAX_INPUT_MULT"], "input_left_shift": c["SOFTMAX_INPUT_LEFT_SHIFT"],
           "diff_min": c["SOFTMAX_DIFF_MIN"]}
    if got != exp:
        fail("TFLite's softmax vector: parameters %s, TFLite's %s" % (got, exp))
    y = run(lightnet, m, (xq * scale).astype(np.float32), work)
    yq = np.round(y.astype(np.float64) * 256).astype(np.int64) - 128
    if not np.array_equal(yq, want.reshape(-1)):
        fail("TFLite's softmax vector: %s, TFLite's %s" % (yq.tolist(), want.reshape(-1).tolist()))
    print("TFLite's softmax vector (scale 1/255): parameters %s and %d outputs bit-exact" %
          (exp, want.size))


def check_random(lightnet, work, seed):
    r = np.random.RandomState(seed)
    total = off = 0
    for scale, n, rows in ((2.0 ** -8, 10, 64), (1 / 255.0, 1, 16), (0.02, 2, 64), (0.05, 10, 64),
                           (0.1, 100, 32), (0.25, 37, 32), (1.5, 16, 32), (0.03, 1000, 4),
                           (0.08, 4095, 2)):
        scale = np.float32(scale)
        zp = int(r.randint(-128, 128))
        xq = r.randint(-128, 128, (rows, n))
        if n > 1:   # some ties for the maximum and some rows of one value
            xq[0, :] = xq[0, 0]
            xq[1, : n // 2] = 127
        m = os.path.join(work, "rand.onnx")
        qdq_softmax_model(m, [rows, n], scale, zp)
        if "softmax_s8_cpu" not in optypes(compiled_ops(lightnet, m, work)):
            fail("random rows, scale %g, row %d: not fused" % (scale, n))
            continue
        xd = (xq - zp).astype(np.float64) * np.float64(scale)
        e = np.exp(xd - xd.max(axis=1, keepdims=True))
        want = np.clip(np.round(e / e.sum(axis=1, keepdims=True) * 256) - 128, -128, 127)
        y = run(lightnet, m, ((xq - zp) * scale).astype(np.float32), work)
        got = np.round(y.astype(np.float64) * 256) - 128
        d = np.abs(got - want.reshape(-1))
        if d.max() > 1:
            k = int(np.argmax(d))
            fail("random rows, scale %g, row %d: output %d is %d, the float softmax's %d" %
                 (scale, n, k, got[k], want.reshape(-1)[k]))
        total += d.size
        off += int((d > 0).sum())
    print("random rows: %d of %d outputs 1 step from the float softmax, the rest equal" % (off, total))


def ort(model, x, work):
    """ONNX Runtime's output (onnxruntime-node, tests/difftest/ort_run.js)."""
    d = os.path.join(work, "ort")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    shutil.copy(model, os.path.join(d, "model.onnx"))
    x.astype(np.float32).tofile(os.path.join(d, "in_0.bin"))
    json.dump(list(x.shape), open(os.path.join(d, "shape_0.json"), "w"))
    open(os.path.join(d, "inputs.txt"), "w").write("x\n")
    open(os.path.join(d, "outs.txt"), "w").write("y\n")
    subprocess.run(["node", os.path.join(ROOT, "tests", "difftest", "ort_run.js"), d], check=True,
                   stderr=subprocess.DEVNULL)
    if os.path.exists(os.path.join(d, "ort.err")):
        raise SystemExit("ONNX Runtime: " + open(os.path.join(d, "ort.err")).read())
    return np.fromfile(os.path.join(d, "ort_0.bin"), np.float32)


def check_u8(lightnet, work, seed):
    """ONNX Runtime's default uint8 activations: the softmax output at
    1/256 and 0 becomes int8 at -128 and the softmax softmax_s8."""
    r = np.random.RandomState(seed)
    x = r.uniform(-3, 5, (6, 12)).astype(np.float32)
    m = os.path.join(work, "u8.onnx")
    qdq_softmax_model(m, [6, 12], np.float32(8 / 255.0), 96, u8=True)
    if "softmax_s8_cpu" not in optypes(compiled_ops(lightnet, m, work)):
        fail("uint8 softmax: not fused")
    y, ref = run(lightnet, m, x, work), ort(m, x, work)
    d = steps(y, ref)
    if d.max() > 1.001:
        fail("uint8 softmax: %.1f steps from ONNX Runtime" % d.max())
    print("uint8 softmax (1/256, 0): softmax_s8, %d of %d outputs 1 step from ONNX Runtime, "
          "the rest equal" % (int((d > 0.5).sum()), d.size))


def check_quant(bindir, work, seed):
    r = np.random.RandomState(seed)
    w1, b1 = r.normal(0, 0.4, (16, 12)).astype(np.float32), r.normal(0, 0.2, 12).astype(np.float32)
    w2, b2 = r.normal(0, 0.6, (12, 6)).astype(np.float32), r.normal(0, 0.3, 6).astype(np.float32)
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
             helper.make_node("Relu", ["h"], ["hr"]),
             helper.make_node("Gemm", ["hr", "w2", "b2"], ["logits"]),
             helper.make_node("Softmax", ["logits"], ["y"], axis=-1)]
    g = helper.make_graph(nodes, "cls", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [4, 16])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [4, 6])],
                          [numpy_helper.from_array(v, k) for k, v in
                           (("w1", w1), ("b1", b1), ("w2", w2), ("b2", b2))])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 7
    fm, qm = os.path.join(work, "float.onnx"), os.path.join(work, "q.onnx")
    onnx.save(m, fm)
    cal = os.path.join(work, "calib")
    os.makedirs(cal)
    for i in range(8):
        r.uniform(-2, 2, (4, 16)).astype(np.float32).tofile(os.path.join(cal, "%02d.bin" % i))
    subprocess.run([os.path.join(bindir, "ln-quant"), fm, "-o", qm, "-q", "--calib", cal], check=True)
    q = onnx.load(qm)
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    sm = [n for n in q.graph.node if n.op_type == "Softmax"]
    qs = [n for n in q.graph.node if n.op_type == "QuantizeLinear" and sm and n.input[0] == sm[0].output[0]]
    if not qs or float(inits[qs[0].input[1]]) != 1 / 256.0 or int(inits[qs[0].input[2]]) != -128:
        fail("ln-quant: the softmax output is not quantized at 1/256, -128")
        return
    lightnet = os.path.join(bindir, "lightnet")
    if "softmax_s8_cpu" not in optypes(compiled_ops(lightnet, qm, work)):
        fail("ln-quant's model: the softmax did not become softmax_s8")
    x = r.uniform(-2, 2, (4, 16)).astype(np.float32)
    y, ref = run(lightnet, qm, x, work), ort(qm, x, work)
    d = steps(y, ref)
    if d.max() > 1.001:
        fail("ln-quant's model: %.1f steps from ONNX Runtime" % d.max())
    print("ln-quant: softmax output at 1/256, -128, softmax_s8, %d of %d outputs 1 step from "
          "ONNX Runtime, the rest equal" % (int((d > 0.5).sum()), d.size))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "bin"))
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    lightnet = os.path.join(a.bin, "lightnet")
    with tempfile.TemporaryDirectory() as work:
        check_models(lightnet, work)
        check_tflite_vector(lightnet, work)
        check_random(lightnet, work, a.seed)
        check_u8(lightnet, work, a.seed)
        check_quant(a.bin, work, a.seed)
    if FAILS:
        print("check_softmax: %d failed" % len(FAILS))
        sys.exit(1)
    print("check_softmax: all passed")


if __name__ == "__main__":
    main()
