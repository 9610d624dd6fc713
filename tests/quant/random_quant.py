#!/usr/bin/env python3
"""ln-quant on random float CNNs (tests/onnx/qdq/random_qdq.py's build():
convs of kernel 1 or 3, stride 1 or 2, depthwise, Relu / Clip / Sigmoid /
LeakyRelu, residual adds, concats, squeeze-excitation gates, pools, Gemm or
MatMul heads), calibrated on 8 random inputs, then run in ONNX Runtime and
in lightnet built for single rounding (LN_RT_S8_SINGLE_ROUNDING): the int8
pipeline on ln-quant's model must agree with ONNX Runtime to the step (1
step on at most 2% of the outputs, or on one), and the default build pick
the same class (a class within a step of ONNX Runtime's top is a tie).

  random_quant.py --bin BUILD/bin --lightnet-sr BIN [--seed 1] [--n 20]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "onnx", "qdq"))
import quantize_models as qm      # noqa: E402  (ONNX Runtime runner)
import random_qdq                  # noqa: E402  (the random float CNNs)


def run(binary, model, x_file, y_file):
    r = subprocess.run([binary, "-i", "x=" + x_file, "--save", "y=" + y_file, model],
                       capture_output=True, text=True)
    if r.returncode:
        raise RuntimeError(r.stderr.strip())
    return np.fromfile(y_file, np.float32)


def one(seed, a, d):
    m, x = random_qdq.build(seed)
    r = np.random.RandomState(seed + 7)
    f = os.path.join(d, "float.onnx")
    onnx.save(m, f)
    cal = os.path.join(d, "cal")
    os.makedirs(cal)
    for i in range(8):
        r.uniform(-1, 1, x.shape).astype(np.float32).tofile(os.path.join(cal, "%d.bin" % i))
    x = r.uniform(-1, 1, x.shape).astype(np.float32)
    xf = os.path.join(d, "x.bin")
    x.tofile(xf)
    q = os.path.join(d, "q.onnx")
    p = subprocess.run([os.path.join(a.bin, "ln-quant"), f, "-o", q, "-q", "--calib", cal] +
                       (["--add-scales", a.add_scales] if a.add_scales else []) +
                       (["--headroom", a.headroom] if a.headroom else []),
                       capture_output=True, text=True)
    if p.returncode:
        return "ln-quant: " + p.stderr.strip()
    model = onnx.load(q)
    onnx.checker.check_model(model, full_check=True)
    step = float(next(numpy_helper.to_array(t) for t in model.graph.initializer
                      if t.name == "y_float_scale"))
    ref = qm.ort(model, [x], ["y"])[0][0]
    try:
        sr = np.abs(run(a.lightnet_sr, q, xf, os.path.join(d, "sr.bin")) - ref) / step
        y = run(os.path.join(a.bin, "lightnet"), q, xf, os.path.join(d, "dr.bin"))
    except RuntimeError as e:
        return "lightnet: %s" % e
    problems = []
    if sr.max() > 1.001 or ((sr > 0.001).mean() > 0.02 and (sr > 0.001).sum() > 1):
        problems.append("single rounding %.1f steps off on %.1f%% of the outputs"
                        % (sr.max(), 100 * (sr > 0.001).mean()))
    if y[ref.argmax()] != y.max() and ref[y.argmax()] < ref.max() - 1.001 * step:
        problems.append("top-1 %d, ONNX Runtime %d" % (y.argmax(), ref.argmax()))
    return "; ".join(problems) or None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--lightnet-sr", required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=20)
    ap.add_argument("--add-scales", default="", help="ln-quant --add-scales HOW")
    ap.add_argument("--headroom", default="", help="ln-quant --headroom F")
    a = ap.parse_args()
    fails = 0
    for seed in range(a.seed, a.seed + a.n):
        d = tempfile.mkdtemp(prefix="ln-quant-random-")
        try:
            msg = one(seed, a, d)
        finally:
            shutil.rmtree(d)
        if msg:
            fails += 1
            print("FAIL seed %d: %s" % (seed, msg))
    print("ln-quant random networks%s: %d, %d failed" % (
        (", --add-scales " + a.add_scales if a.add_scales else "") +
        (", --headroom " + a.headroom if a.headroom else ""), a.n, fails))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
