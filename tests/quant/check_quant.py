#!/usr/bin/env python3
"""ln-quant on the test networks (tests/models/<name>/model.onnx):

- calibration on NCAL generated inputs, evaluation on NEVAL others from the
  same distribution (the network's input.bin scaled by U(0.5, 1.5) plus
  Gaussian noise of half its spread, a fixed seed per network and set);
- the int8 model in LightNet (fused int8 ops) against the float model
  (LightNet's interpreter): the output SQNR at least 30 dB, and for the
  classifiers (their logits) the top-1 class the same on at least 98% of
  the inputs, ties aside: the int8 model's class counts as the float one's
  when the float logits put it within 2 output steps (the int8 output's
  scale) of the top.  The exact agreement is printed too: the test networks
  have random weights, whose top two logits are often closer than int8's
  error (DS-CNN: a median gap of 4% of the logits' spread);
- ONNX Runtime (onnxruntime-node, graph optimizations off) runs the ln-quant
  model too, and LightNet's int8 output agrees with it: within 2 output
  steps on 99% of the elements and 4 on all, the same top-1 (a class within
  2 steps of ONNX Runtime's top counts: a tie; TFLite's double rounding
  drifts from ONNX Runtime's single rounding by a step or two, and random
  weights put the top two logits of DS-CNN about 2 steps apart);
- the same inputs give the same model, byte for byte (a second run);
- a NAME trained/X is the trained network tests/trained/X
  (tools/make_trained_models.py): its calibration and evaluation inputs are
  drawn from its task (tests/trained/data.py), the task accuracy of the float
  and the int8 model is printed, and the float model in LightNet is held to
  PyTorch's output (tests/trained/X/output.bin, 1e-4 of the largest);
- ln-aot emits C for it that compiles, every conv and gemm an int8 kernel call;
  ln-onnx imports it; -f json writes an IR that computes the same bytes;
- ln-quant --report names the layer whose range was made bad on purpose
  (--force-range), and refuses bad input with one message.

  check_quant.py --bin BUILD/bin [--ncal 32] [--neval 200] [--method minmax|mse|pNN.NN] NAME...

Needs onnx and numpy (/usr/bin/python3) and onnxruntime-node (sh bench/setup.sh).
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
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORT_RUN = os.path.join(ROOT, "tests", "difftest", "ort_run.js")
CLASSIFIERS = {"lenet5", "ds_cnn", "mobilenet_v1_025", "resnet8", "densenet_tiny",
               "mobilenet_v2", "resnet18"}
FAILS = []


def fail(msg):
    print("FAIL " + msg)
    FAILS.append(msg)


TRAINED_DIR = os.path.join(ROOT, "tests", "trained")


def model_dir(name):
    """tests/models/NAME (else bench/models/NAME), or tests/trained/X for NAME trained/X"""
    if name.startswith("trained/"):
        return os.path.join(TRAINED_DIR, name[len("trained/"):])
    d = os.path.join(ROOT, "tests", "models", name)
    if not os.path.exists(d):       # MobileNetV2, ResNet-18: tools/make_test_models.py --bench
        d = os.path.join(ROOT, "bench", "models", name)
    return d


def base(name):
    return name[len("trained/"):] if name.startswith("trained/") else name


def gen_inputs(name, x0, n, seed, d):
    """n inputs: of a trained network's task (tests/trained/data.py), else the
    random network's input.bin scaled and with noise"""
    if name.startswith("trained/"):
        sys.path.insert(0, TRAINED_DIR)
        import data
        return data.write(base(name), n, seed, d)
    os.makedirs(d, exist_ok=True)
    rs = np.random.RandomState(seed)
    sd = float(x0.std()) or 1.0
    files = []
    for i in range(n):
        x = (x0 * rs.uniform(0.5, 1.5) + rs.normal(0, 0.5 * sd, x0.shape)).astype(np.float32)
        f = os.path.join(d, "%03d.bin" % i)
        x.tofile(f)
        files.append(f)
    return files


def lightnet(binary, model, xn, yn, files, tmp):
    ys = []
    out = os.path.join(tmp, "y.bin")
    for f in files:
        r = subprocess.run([binary, "-i", "%s=%s" % (xn, f), "--save", "%s=%s" % (yn, out),
                            model], capture_output=True, text=True)
        if r.returncode:
            raise SystemExit("%s %s: %s" % (binary, model, r.stderr.strip()))
        ys.append(np.fromfile(out, np.float32))
    return np.array(ys)


def ort(model, xn, yn, shape, files, tmp):
    dirs = []
    for k, f in enumerate(files):
        sub = os.path.join(tmp, "ort%d" % k)
        os.makedirs(sub, exist_ok=True)
        if k == 0:
            shutil.copy(model, os.path.join(sub, "model.onnx"))
        else:
            os.symlink(os.path.join(dirs[0], "model.onnx"), os.path.join(sub, "model.onnx"))
        shutil.copy(f, os.path.join(sub, "in_0.bin"))
        json.dump(shape, open(os.path.join(sub, "shape_0.json"), "w"))
        open(os.path.join(sub, "inputs.txt"), "w").write(xn + "\n")
        open(os.path.join(sub, "outs.txt"), "w").write(yn + "\n")
        dirs.append(sub)
    subprocess.run(["node", ORT_RUN] + dirs, check=True, stderr=subprocess.DEVNULL)
    ys = []
    for sub in dirs:
        if os.path.exists(os.path.join(sub, "ort.err")):
            raise SystemExit("ONNX Runtime on %s: %s" % (model, open(os.path.join(sub, "ort.err")).read()))
        ys.append(np.fromfile(os.path.join(sub, "ort_0.bin"), np.float32))
        shutil.rmtree(sub)
    return np.array(ys)


def sqnr(ref, y):
    e = float(((y - ref) ** 2).sum())
    return float("inf") if e == 0 else 10 * np.log10(float((ref ** 2).sum()) / e)


def method_args(m):
    if m == "minmax":
        return ["--minmax"]
    if m == "mse":
        return ["--mse"]
    return ["--percentile", m[1:]]


def sensitive_bound(a, name, m, model, xn, yn, shape, ev, inits, yf, step, tmp):
    """A network that amplifies small input changes (MobileNetV2 of random
    weights: its float output is ~21 dB from the float output of its input
    perturbed at 35 dB): the float model run on the int8 model's quantized
    input alone (QuantizeLinear + DequantizeLinear with its input scale) is
    the bound; the int8 model is held within 3 dB of its SQNR (and 30 at
    most) and 5% of its top-1 agreement (98% at most)."""
    sc, zp = float(inits[xn + "_scale"]), int(inits[xn + "_zero_point"])
    qfiles = []
    for k, f in enumerate(ev):
        x = np.fromfile(f, np.float32)
        xq = ((np.clip(np.round(x / sc) + zp, -128, 127) - zp) * sc).astype(np.float32)
        qfiles.append(os.path.join(tmp, "xq%03d.bin" % k))
        xq.tofile(qfiles[-1])
    yb = lightnet(os.path.join(a.bin, "lightnet"), model, xn, yn, qfiles, tmp)
    for f in qfiles:
        os.remove(f)
    sb = sqnr(yf, yb)
    gap = yf.max(1) - yf[np.arange(len(yf)), yb.argmax(1)]
    ab = float((gap <= 2.001 * step).mean())
    print("BOUND %s: the float model on its quantized input alone: output SQNR %.2f dB, "
          "top-1 %.1f%% (ties aside)" % (name, sb, 100 * ab))
    return min(30, sb - 3), min(0.98, ab - 0.05)


def coverage(a, name, model, cmd, xn, yn, ev, yf, tmp):
    """Where the output SQNR is lost: the same ln-quant run calibrated on the
    evaluation inputs themselves (no input then exceeds a range it was not
    calibrated for), and the float model on its input with Gaussian noise at
    the int8 input's own SQNR (what the network makes of that much input
    error, with no layer quantized).  Printed, not checked."""
    qm = os.path.join(tmp, "coverage.q.onnx")
    r = subprocess.run(cmd[:3] + [qm] + cmd[4:6] + [os.path.dirname(ev[0])] + cmd[7:],
                       capture_output=True, text=True)
    if r.returncode:
        fail("%s: ln-quant calibrated on the evaluation inputs: %s" % (name, r.stderr.strip()))
        return
    ln = os.path.join(a.bin, "lightnet")
    yc = lightnet(ln, qm, xn, yn, ev, tmp)
    per = sorted(sqnr(f, y) for f, y in zip(yf, yc))
    q = onnx.load(qm)
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    sc, zp = float(inits[xn + "_scale"]), int(inits[xn + "_zero_point"])
    rs = np.random.RandomState(7)
    nfiles, sx = [], []
    for k, f in enumerate(ev):
        x = np.fromfile(f, np.float32)
        xq = (np.clip(np.round(x / sc) + zp, -128, 127) - zp) * sc
        sx.append(((x - xq) ** 2).sum() / max((x ** 2).sum(), 1e-30))
        nfiles.append(os.path.join(tmp, "xn%03d.bin" % k))
    nsr = float(np.mean(sx))        # the int8 input's noise-to-signal ratio
    for f, g in zip(ev, nfiles):
        x = np.fromfile(f, np.float32)
        (x + rs.normal(0, np.sqrt(nsr * (x ** 2).mean()), x.shape)).astype(np.float32).tofile(g)
    yn_ = lightnet(ln, model, xn, yn, nfiles, tmp)
    for g in nfiles:
        os.remove(g)
    print("COVERAGE %s: calibrated on the evaluation inputs: output SQNR %.2f dB (per input min "
          "%.2f); float model, input noise at %.2f dB (the int8 input's): output %.2f dB" % (
              name, sqnr(yf, yc), per[0], -10 * np.log10(nsr), sqnr(yf, yn_)))


def check_net(a, name, tmp):
    d = model_dir(name)
    model = os.path.join(d, "model.onnx")
    m = onnx.load(model)
    xn, yn = m.graph.input[0].name, m.graph.output[0].name
    shape = [x.dim_value for x in m.graph.input[0].type.tensor_type.shape.dim]
    x0 = np.fromfile(os.path.join(d, "input.bin"), np.float32).reshape(shape)
    seed = sum(map(ord, name))
    tag = name.replace("/", "_")
    cal = os.path.join(tmp, tag + "_cal")
    gen_inputs(name, x0, a.ncal, seed, cal)
    ev = gen_inputs(name, x0, a.neval, seed + 1, os.path.join(tmp, tag + "_eval"))
    qm = os.path.join(tmp, tag + ".q.onnx")
    cmd = [os.path.join(a.bin, "ln-quant"), model, "-o", qm, "-q", "--calib", cal] + \
        method_args(a.method) + (["--add-scales", a.add_scales] if a.add_scales else []) + \
        (["--headroom", a.headroom] if a.headroom else [])
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        fail("%s: ln-quant: %s" % (name, r.stderr.strip()))
        return None
    if a.repro:
        r = subprocess.run(cmd[:3] + [qm + ".2"] + cmd[4:], capture_output=True, text=True)
        if r.returncode or open(qm, "rb").read() != open(qm + ".2", "rb").read():
            fail("%s: a second run with the same inputs wrote other bytes" % name)
    q = onnx.load(qm)
    onnx.checker.check_model(q, full_check=True)
    inits = {t.name: numpy_helper.to_array(t) for t in q.graph.initializer}
    step = float(inits[yn + "_float_scale"])
    ln = os.path.join(a.bin, "lightnet")
    yf = lightnet(ln, model, xn, yn, ev, tmp)
    yq = lightnet(ln, qm, xn, yn, ev, tmp)
    yo = ort(qm, xn, yn, shape, ev, tmp)
    s = sqnr(yf, yq)
    cls = base(name) in CLASSIFIERS
    cq = yq.argmax(1)
    gap = yf.max(1) - yf[np.arange(len(yf)), cq]
    exact = float((gap == 0).mean())
    agree = float((gap <= 2.001 * step).mean())
    st = np.abs(yq - yo) / step
    within2 = float((st <= 2.001).mean())
    top_ort = all(y[o.argmax()] == y.max() or o[y.argmax()] >= o.max() - 2.001 * step
                  for y, o in zip(yq, yo))
    nq = sum(n.op_type == "QuantizeLinear" for n in q.graph.node)
    print("%-18s %5d %5d %4d | %8.2f %7s %7s | %6.2f%%  %5.2f  %-5s" % (
        name, a.ncal, a.neval, nq, s, "%.1f%%" % (100 * agree) if cls else "-",
        "%.1f%%" % (100 * exact) if cls else "-",
        100 * within2, st.max(), "same" if top_ort else "DIFF"))
    per = sorted(sqnr(f, q_) for f, q_ in zip(yf, yq))
    extra = "per input SQNR min %.2f, median %.2f dB" % (per[0], per[len(per) // 2])
    if name.startswith("trained/"):
        sys.path.insert(0, TRAINED_DIR)
        import data
        lab = data.generate(base(name), a.neval, seed + 1)[1]
        if lab is not None:
            extra += "; task accuracy float %.1f%%, int8 %.1f%%" % (
                100 * float((yf.argmax(1) == lab).mean()), 100 * float((yq.argmax(1) == lab).mean()))
        # the float model in LightNet against PyTorch's stored output
        pt = np.fromfile(os.path.join(d, "output.bin"), np.float32)
        y0 = lightnet(ln, model, xn, yn, [os.path.join(d, "input.bin")], tmp)[0]
        rel = float(np.abs(y0 - pt).max() / np.abs(pt).max())
        extra += "; float vs PyTorch %.1e" % rel
        if rel > 1e-4:
            fail("%s: the float model in LightNet differs from PyTorch by %.2g of the largest" % (
                name, rel))
    print("%-18s %s" % ("", extra))
    if a.coverage:
        coverage(a, name, model, cmd, xn, yn, ev, yf, tmp)
    want_s, want_agree = 30, 0.98
    if name in a.sensitive.split(","):
        want_s, want_agree = sensitive_bound(a, name, m, model, xn, yn, shape, ev, inits, yf, step,
                                             tmp)
    if s < want_s and name in a.known_sqnr.split(","):
        print("KNOWN %s: output SQNR %.2f dB against float, under the %.2f asked "
              "(docs/quantization-flow.md)" % (name, s, want_s))
    elif s < want_s:
        fail("%s: output SQNR %.2f dB against float (at least %.2f)" % (name, s, want_s))
    if cls and agree < want_agree:
        fail("%s: top-1 agrees with float on %.1f%% of the inputs, ties aside (at least %.1f%%)" % (
            name, 100 * agree, 100 * want_agree))
    if within2 < 0.99 or st.max() > 4.001:
        if name in a.known_drift.split(","):
            print("KNOWN %s: %.2f steps from ONNX Runtime (differences that grow with depth "
                  "from one-step slips at rounding ties, mostly ONNX Runtime's: tests/quant/ort_ties.py, "
                  "docs/quantization-flow.md)" % (name, st.max()))
        else:
            fail("%s: against ONNX Runtime %.2f%% within 2 steps, %.2f at most (99%%, 4)" % (
                name, 100 * within2, st.max()))
    if not top_ort and name in a.known_drift.split(",") and name in a.sensitive.split(","):
        print("KNOWN %s: top-1 differs from ONNX Runtime's on some inputs (the drift above, "
              "amplified as the float model amplifies its input's rounding)" % name)
    elif not top_ort:
        fail("%s: top-1 differs from ONNX Runtime's" % name)
    if a.aot:
        c = os.path.join(tmp, tag + ".c")
        r = subprocess.run([os.path.join(a.bin, "ln-aot"), "-o", c, qm], capture_output=True, text=True)
        src = open(c).read() if not r.returncode else ""
        if r.returncode or subprocess.run(["cc", "-std=c99", "-c", "-I" + os.path.join(ROOT, "runtime", "include"),
                                           c, "-o", c + ".o"]).returncode:
            fail("%s: ln-aot or cc: %s" % (name, r.stderr.strip()))
        elif "_s8(" not in src or any(k in src for k in ("ln_rt_conv2d_f32(", "ln_rt_gemm_f32(",
                                                          "ln_rt_conv2d_depthwise_f32(")):
            fail("%s: ln-aot: a conv or gemm is not an int8 kernel call" % name)
    return cal


def check_report(a, tmp, cal):
    """a bad range on purpose: the report must name that tensor first"""
    model = os.path.join(ROOT, "tests", "models", "lenet5", "model.onnx")
    bad = "/Relu_2_output_0"
    r = subprocess.run([os.path.join(a.bin, "ln-quant"), model, "-o", os.path.join(tmp, "bad.onnx"),
                        "-q", "--calib", cal, "--report", "--force-range", bad + "=-40,400"],
                       capture_output=True, text=True)
    worst = [l for l in r.stdout.splitlines() if l.startswith("worst: ")]
    if r.returncode or worst != ["worst: " + bad]:
        fail("report: the bad range of %s not named worst: %s %s" % (bad, worst, r.stderr.strip()))
    else:
        print("report: names %s (given a bad range) as the worst layer" % bad)
    # the normal model's report: output and every quantized tensor compared
    r = subprocess.run([os.path.join(a.bin, "ln-quant"), model, "-o", os.path.join(tmp, "ok.onnx"),
                        "-q", "--calib", cal, "--report"], capture_output=True, text=True)
    if r.returncode or "output " not in r.stdout or bad + "_q" not in r.stdout:
        fail("report: %s%s" % (r.stdout, r.stderr))
    # lightnet --compare REF.onnx: the int8 model against the float one, same table
    x = os.path.join(cal, sorted(os.listdir(cal))[0])
    r = subprocess.run([os.path.join(a.bin, "lightnet"), "-i", "input=" + x, "--compare", model,
                        os.path.join(tmp, "bad.onnx")], capture_output=True, text=True)
    worst = [l for l in r.stdout.splitlines() if l.startswith("worst: ")]
    if r.returncode or worst != ["worst: " + bad]:
        fail("lightnet --compare: %s %s" % (worst, r.stderr.strip()))
    # -f json: LightNet's IR + .params, the same outputs as the ONNX model; ln-onnx reads the ONNX one
    js = os.path.join(tmp, "ok.json")
    outs = []
    for m_ in (os.path.join(tmp, "ok.onnx"), js):
        if m_ == js:
            r = subprocess.run([os.path.join(a.bin, "ln-quant"), model, "-f", "json", "-o", js, "-q",
                                "--calib", cal], capture_output=True, text=True)
            if r.returncode or not os.path.exists(os.path.join(tmp, "ok.params")):
                fail("ln-quant -f json: %s" % r.stderr.strip())
                break
        r = subprocess.run([os.path.join(a.bin, "lightnet"), "-i", "input=" + x, "--save",
                            "output=" + os.path.join(tmp, "o.bin"), m_], capture_output=True, text=True)
        outs.append(open(os.path.join(tmp, "o.bin"), "rb").read() if not r.returncode else r.stderr)
    if len(outs) != 2 or outs[0] != outs[1]:
        fail("ln-quant -f json: the IR's output differs from the ONNX model's")
    r = subprocess.run([os.path.join(a.bin, "ln-onnx"), os.path.join(tmp, "ok.onnx"), "-o",
                        os.path.join(tmp, "imp.json")], capture_output=True, text=True)
    if r.returncode:
        fail("ln-onnx on ln-quant's model: %s" % r.stderr.strip())
    # lightnet --compare DIR: against ONNX Runtime's output of the same model
    ref = os.path.join(tmp, "ortref")
    os.makedirs(ref)
    ort(os.path.join(tmp, "ok.onnx"), "input", "output", [1, 1, 32, 32], [x], tmp)[0].tofile(
        os.path.join(ref, "output.bin"))
    r = subprocess.run([os.path.join(a.bin, "lightnet"), "-i", "input=" + x, "--compare", ref,
                        os.path.join(tmp, "ok.onnx")], capture_output=True, text=True)
    row = [l.split() for l in r.stdout.splitlines() if l.startswith("output ")]
    if r.returncode or not row or not (row[0][1] == "exact" or float(row[0][1]) > 30):
        fail("lightnet --compare DIR: %s %s" % (r.stdout, r.stderr.strip()))
    else:
        print("lightnet --compare DIR: the int8 output against ONNX Runtime's: %s dB" % row[0][1])
    # bad input: one message, exit 1
    for args, what in (([model, "-o", os.path.join(tmp, "x.onnx")], "no calibration"),
                       ([model, "-o", os.path.join(tmp, "x.onnx"), "--calib", model], "bytes"),
                       ([model, "-o", os.path.join(tmp, "x.onnx"), "--calib", cal,
                         "--percentile", "20"], "percentile"),
                       ([os.path.join(tmp, "none.onnx"), "-o", os.path.join(tmp, "x.onnx"),
                         "--calib", cal], "none.onnx")):
        r = subprocess.run([os.path.join(a.bin, "ln-quant")] + args, capture_output=True, text=True)
        if r.returncode != 1 or what not in r.stderr or len(r.stderr.strip().splitlines()) != 1:
            fail("ln-quant %s: exit %d, %r (wanted one line naming '%s')" % (
                " ".join(args), r.returncode, r.stderr, what))
        if os.path.exists(os.path.join(tmp, "x.onnx")):
            fail("ln-quant %s left an output file" % " ".join(args))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--ncal", type=int, default=32)
    ap.add_argument("--neval", type=int, default=200)
    ap.add_argument("--method", default="minmax")
    ap.add_argument("--known-drift", default="")
    ap.add_argument("--known-sqnr", default="",
                    help="networks whose output SQNR under 30 dB is reported as KNOWN, not failed")
    ap.add_argument("--add-scales", default="", help="ln-quant --add-scales HOW")
    ap.add_argument("--headroom", default="", help="ln-quant --headroom F")
    ap.add_argument("--sensitive", default="",
                    help="networks held to the bound of their quantized input (sensitive_bound)")
    ap.add_argument("--coverage", action="store_true",
                    help="also print the SQNR calibrated on the evaluation inputs and the float "
                    "model's on noise at its int8 input's SQNR (coverage)")
    ap.add_argument("--no-repro", dest="repro", action="store_false")
    ap.add_argument("--no-aot", dest="aot", action="store_false")
    ap.add_argument("nets", nargs="+")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="ln-quant-")
    try:
        print("method %s%s%s" % (a.method, ", --add-scales " + a.add_scales if a.add_scales else "",
                                 ", --headroom " + a.headroom if a.headroom else ""))
        print("%-18s %5s %5s %4s | %8s %7s %7s | %s" % (
            "network", "calib", "eval", "Qs", "SQNR dB", "top-1", "exact", "vs ONNX Runtime: <=2 steps, max, top-1"))
        cal = None
        for n in a.nets:
            c = check_net(a, n, tmp)
            if n == "lenet5":
                cal = c
        if cal:
            check_report(a, tmp, cal)
    finally:
        shutil.rmtree(tmp)
    print("ln-quant: %d networks, %d failures" % (len(a.nets), len(FAILS)))
    return 1 if FAILS else 0


if __name__ == "__main__":
    sys.exit(main())
