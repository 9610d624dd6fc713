#!/usr/bin/env python3
"""ln-quant --add-scales on ResNet-8 (tests/models/resnet8): the scales a
residual Add's inputs and output get, read from the QDQ model ln-quant
writes, and the arguments ln-aot emits for its int8 add:

- separate (the default): each tensor its own range; on ResNet-8 the
  inputs of an add differ (calibrated alone), so this check can see the
  other modes' sharing;
- inputs: both inputs of every Add of two activations one scale and zero
  point, so TFLite's ADD rescales both by exactly 1/2 (ln-aot: both input
  multipliers 2^30, shift 0: ln_rt_add_s8's first fast path);
- all: the output's too (ln-aot: output multiplier 2^30, shift -18, the
  second fast path: an integer add);
- every mode's model imports in lightnet and its output stays within 1 dB
  (inputs) / 6 dB (all) of separate's SQNR against float on the
  calibration inputs (the figures: docs/quantization-flow.md).

  add_scales.py --bin BUILD/bin
"""
import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MODEL = os.path.join(ROOT, "tests", "models", "resnet8", "model.onnx")
FAILS = []


def fail(msg):
    print("FAIL " + msg)
    FAILS.append(msg)


def add_scales(path):
    """per Add of two dequantized inputs: ((s1, z1), (s2, z2), (so, zo))"""
    q = onnx.load(path)
    init = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    prod = {o: n for n in q.graph.node for o in n.output}
    readers = {}
    for n in q.graph.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)

    def qp(n):
        return float(init[n.input[1]]), int(init[n.input[2]])
    rows = {}
    for n in q.graph.node:
        if n.op_type != "Add":
            continue
        ins = [prod.get(i) for i in n.input]
        if not all(d is not None and d.op_type == "DequantizeLinear" for d in ins):
            continue
        r = readers[n.output[0]][0]
        if r.op_type in ("Relu", "Clip"):
            r = readers[r.output[0]][0]
        if r.op_type != "QuantizeLinear":
            fail("%s: the add's output is not quantized (%s)" % (n.name, r.op_type))
            continue
        rows[n.name] = (qp(ins[0]), qp(ins[1]), qp(r))
    return rows


def run(binary, model, x, out):
    r = subprocess.run([binary, "-i", "input=" + x, "--save", "output=" + out, model],
                       capture_output=True, text=True)
    if r.returncode:
        raise SystemExit("lightnet %s: %s" % (model, r.stderr.strip()))
    return np.fromfile(out, np.float32)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ln-add-scales-")
    try:
        x0 = np.fromfile(os.path.join(os.path.dirname(MODEL), "input.bin"), np.float32)
        rs = np.random.RandomState(8)
        cal = os.path.join(tmp, "cal")
        os.makedirs(cal)
        for i in range(16):
            (x0 * rs.uniform(0.5, 1.5) + rs.normal(0, 0.5 * float(x0.std()), x0.shape)).astype(
                np.float32).tofile(os.path.join(cal, "%03d.bin" % i))
        files = sorted(os.path.join(cal, f) for f in os.listdir(cal))
        ln = os.path.join(a.bin, "lightnet")
        yf = np.array([run(ln, MODEL, f, os.path.join(tmp, "y.bin")) for f in files])
        snr = {}
        for how in ("separate", "inputs", "all"):
            qm = os.path.join(tmp, how + ".onnx")
            r = subprocess.run([os.path.join(a.bin, "ln-quant"), MODEL, "-o", qm, "-q", "--calib",
                                cal] + ([] if how == "separate" else ["--add-scales", how]),
                               capture_output=True, text=True)
            if r.returncode:
                fail("ln-quant --add-scales %s: %s" % (how, r.stderr.strip()))
                continue
            rows = add_scales(qm)
            if len(rows) != 3:
                fail("%s: %d residual adds found, ResNet-8 has 3" % (how, len(rows)))
            same_in = [n for n, (i1, i2, o) in rows.items() if i1 == i2]
            same_all = [n for n, (i1, i2, o) in rows.items() if i1 == i2 == o]
            want_in = {"separate": [], "inputs": list(rows), "all": list(rows)}[how]
            want_all = list(rows) if how == "all" else []
            if sorted(same_in) != sorted(want_in) or sorted(same_all) != sorted(want_all):
                fail("%s: adds with equal input scales %s, all three equal %s" % (
                    how, same_in, same_all))
            # ln-aot's arguments: the fast paths' conditions of ln_rt_add_s8
            c = os.path.join(tmp, how + ".c")
            r = subprocess.run([os.path.join(a.bin, "ln-aot"), "-o", c, qm],
                               capture_output=True, text=True)
            args = re.findall(r"ln_rt_s8_binary_args \w+_Add\w*_args = \{([^}]*)\}",
                              open(c).read() if not r.returncode else "")
            half = [s for s in args if ".in1_mult = 1073741824, .in1_shift = 0, "
                    ".in2_mult = 1073741824, .in2_shift = 0," in s]
            exact = [s for s in half if ".output_mult = 1073741824, .output_shift = -18," in s]
            if len(args) != 3 or len(half) != len(want_in) or len(exact) != len(want_all):
                fail("%s: ln-aot's add arguments: %d adds, %d of input multipliers 1/2, "
                     "%d of output multiplier 2^-19 %s" % (how, len(args), len(half), len(exact),
                                                           r.stderr.strip()))
            yq = np.array([run(ln, qm, f, os.path.join(tmp, "y.bin")) for f in files])
            snr[how] = 10 * np.log10(float((yf ** 2).sum()) / float(((yq - yf) ** 2).sum()))
            print("--add-scales %-8s  adds with equal input scales %d of %d, all equal %d; "
                  "output SQNR %.2f dB" % (how, len(same_in), len(rows), len(same_all), snr[how]))
        if len(snr) == 3 and (snr["inputs"] < snr["separate"] - 1 or
                              snr["all"] < snr["separate"] - 6 or snr["all"] < 30):
            fail("SQNR: %s" % snr)
        r = subprocess.run([os.path.join(a.bin, "ln-quant"), MODEL, "-o",
                            os.path.join(tmp, "x.onnx"), "--calib", cal, "--add-scales", "both"],
                           capture_output=True, text=True)
        if r.returncode != 1 or "--add-scales" not in r.stderr or \
                len(r.stderr.strip().splitlines()) != 1:
            fail("--add-scales both: exit %d, %r" % (r.returncode, r.stderr))
    finally:
        shutil.rmtree(tmp)
    print("add_scales: %d failures" % len(FAILS))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
