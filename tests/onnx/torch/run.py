#!/usr/bin/python3
"""make test-torch: the PyTorch export patterns (tools/make_torch_patterns.py)
through the interpreter and through ln-aot + cc, against PyTorch's outputs.

For each tests/onnx/torch/NAME.onnx:
  1. the lightnet command (-i NAME=FILE for every input, float32 or int64;
     --save for every output): each output within 1e-4 of its largest
     reference value;
  2. ln-aot -> cc -std=c99 -pedantic -Werror -> tests/aot/aot_check.c
     (rel:1e-4): the emitted code bit for bit equal to the interpreter, it
     and the interpreter at -O0 within 1e-4 of the largest reference value.
Patterns in EXPECTED_FAIL must fail with their message (XFAIL); one that
passes is a failure until it is taken off the list (XPASS).  Then
MobileNetV3-small at opsets 13 (HardSigmoid * x) and 14 (HardSwish) must
compile to the same kernel calls and the same arena.

    run.py [--dir DIR] [NAME...]   (DIR: other models, e.g. new patterns)
Environment (mk/torch.mk): BUILD, RT_LIB, CC, AOT_CFLAGS, AOT_LDLIBS, JOBS.
"""
import concurrent.futures
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
BUILD = os.environ.get("BUILD", "build")
RT_LIB = os.environ.get("RT_LIB", "runtime/build/libln_rt.a")
CC = os.environ.get("CC", "cc")
AOT_CFLAGS = os.environ.get("AOT_CFLAGS", "")
AOT_LDLIBS = os.environ.get("AOT_LDLIBS", "-lprotobuf-c -lcjson -lm")
TOL = 1e-4
MODELS = HERE      # run.py --dir DIR: the patterns in DIR instead

# Patterns that fail today, with (a piece of) the message they must fail
# with: the lead takes a pattern off when the fix lands (an XPASS fails).
EXPECTED_FAIL = {
}


def io_files(base, kind, n):
    if n == 1:
        return [base + ".%s.bin" % kind]
    return [base + ".%s%d.bin" % (kind, i) for i in range(n)]


def run(cmd, **kw):
    return subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, **kw)


def compare(got_path, ref_path, dtype, what):
    """float32 within TOL of the largest reference value, others exact."""
    ref = np.fromfile(ref_path, dtype)
    got = np.fromfile(got_path, dtype)
    if got.size != ref.size:
        return "%s: %d values, reference %d" % (what, got.size, ref.size)
    if dtype != "<f4":
        if not np.array_equal(got, ref):
            k = int(np.argmax(got != ref))
            return "%s [%d]: %d, reference %d" % (what, k, got[k], ref[k])
        return None
    scale = float(np.abs(ref).max()) if ref.size else 0.0
    err = float(np.abs(got.astype(np.float64) - ref).max()) if ref.size else 0.0
    if not err <= TOL * scale:
        k = int(np.argmax(np.abs(got.astype(np.float64) - ref)))
        return "%s [%d]: %.9g, reference %.9g (largest reference %.3g)" % (what, k, got[k], ref[k],
                                                                          scale)
    return None


def check(name, tmp):
    """None when the pattern passes, else the first failure's message."""
    src = os.path.relpath(os.path.join(MODELS, name + ".onnx"), ROOT)
    m = onnx.load(os.path.join(ROOT, src))
    ins = [i.name for i in m.graph.input]
    outs = [o.name for o in m.graph.output]
    dtypes = {onnx.TensorProto.FLOAT: "<f4", onnx.TensorProto.INT64: "<i8",
              onnx.TensorProto.INT32: "<i4", onnx.TensorProto.BOOL: "u1"}
    out_dtypes = [dtypes[o.type.tensor_type.elem_type] for o in m.graph.output]
    base = src[:-5]
    in_files = io_files(base, "in", len(ins))
    ref_files = io_files(base, "ref", len(outs))
    d = os.path.join(tmp, name)
    os.makedirs(d)

    # 1. the interpreter through the command line
    cmd = [os.path.join(BUILD, "bin", "lightnet")]
    for n, f in zip(ins, in_files):
        cmd += ["-i", "%s=%s" % (n, f)]
    saved = [os.path.join(d, "out%d.bin" % i) for i in range(len(outs))]
    for n, f in zip(outs, saved):
        cmd += ["--save", "%s=%s" % (n, f)]
    r = run(cmd + [src])
    if r.returncode:
        return r.stderr.strip()
    for n, f, ref, dt in zip(outs, saved, ref_files, out_dtypes):
        msg = compare(f, ref, dt, "lightnet output '%s'" % n)
        if msg:
            return msg

    # 2. ln-aot, cc, the emitted code against the interpreter and PyTorch
    r = run([os.path.join(BUILD, "bin", "ln-aot"), "-n", "m", "-o", os.path.join(d, "m.c"), src])
    if r.returncode:
        return "ln-aot: " + r.stderr.strip()
    strict = "-std=c99 -Wall -Wextra -pedantic -Werror -O2 -Iruntime/include".split()
    r = run([CC] + strict + ["-I" + d, "-c", os.path.join(d, "m.c"), "-o", os.path.join(d, "m.o")])
    if r.returncode:
        return "cc -Werror: " + r.stderr.strip()[:2000]
    drv = (["-std=c99", "-D_POSIX_C_SOURCE=200809L", "-O1", "-g", "-Isrc", "-Iruntime/include"]
           + shlex.split(AOT_CFLAGS) + ["-DMODEL=m", "-DMODEL_UP=M", '-DMODEL_H="m.h"', "-I" + d,
                                        "tests/aot/aot_check.c", os.path.join(d, "m.o"),
                                        os.path.join(BUILD, "liblightnet.a"), RT_LIB]
           + shlex.split(AOT_LDLIBS) + ["-o", os.path.join(d, "check")])
    r = run([CC] + drv)
    if r.returncode:
        return "cannot build the driver: " + r.stderr.strip()[:2000]
    r = run([os.path.join(d, "check"), src, "rel:%g" % TOL] + in_files + ref_files)
    if r.returncode:
        return (r.stdout + r.stderr).strip()
    return None


def header_facts(tmp, name):
    """The arena size and the kernel calls of an emitted model."""
    c = open(os.path.join(tmp, name, "m.c")).read()
    h = open(os.path.join(tmp, name, "m.h")).read()
    arena = int(re.search(r"#define M_ARENA_SIZE (\d+)", h).group(1))
    calls = sorted(re.findall(r"\b(ln_rt_[a-z0-9_]+)\(", c))
    return arena, calls


def main():
    global MODELS
    args = sys.argv[1:]
    if args[:1] == ["--dir"] and len(args) > 1:
        MODELS, args = os.path.abspath(args[1]), args[2:]
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(MODELS, "*.onnx")))
    if args:
        names = [n for n in names if n in args]
    for n in EXPECTED_FAIL:
        if MODELS == HERE and not os.path.exists(os.path.join(HERE, n + ".onnx")):
            sys.exit("test-torch: EXPECTED_FAIL names %s, which is not a pattern" % n)
    tmp = tempfile.mkdtemp(prefix="ln-torch-")
    npass = nfail = nxfail = nextra = 0
    try:
        jobs = int(os.environ.get("JOBS", "2"))
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as ex:
            results = dict(zip(names, ex.map(lambda n: check(n, tmp), names)))
        for n in names:
            msg = results[n]
            want = EXPECTED_FAIL.get(n)
            if want is None and msg is None:
                npass += 1
                print("  PASS %s" % n)
            elif want is None:
                nfail += 1
                print("FAIL %s: %s" % (n, msg))
            elif msg is None:
                nfail += 1
                print("XPASS %s: passes now, take it off EXPECTED_FAIL in %s" % (n, __file__))
            elif want in msg:
                nxfail += 1
                print("  XFAIL %s: %s" % (n, msg.splitlines()[0][:200]))
            else:
                nfail += 1
                print("FAIL %s: expected to fail with \"%s\", failed with: %s" % (n, want, msg))

        # MobileNetV3-small: HardSigmoid * x (opset 13) is HardSwish (opset 14)
        a, b = "mobilenet_v3_small_opset13", "mobilenet_v3_small_opset14"
        if results.get(a, 1) is None and results.get(b, 1) is None:
            (arena13, calls13), (arena14, calls14) = header_facts(tmp, a), header_facts(tmp, b)
            hs = calls13.count("ln_rt_hardswish_f32")
            if arena13 == arena14 and calls13 == calls14 and hs > 0:
                nextra += 1
                print("  PASS mobilenet_v3_small: opsets 13 and 14 compile to the same %d kernel "
                      "calls (%d hardswish), arena %d bytes both" % (len(calls13), hs, arena13))
            else:
                nfail += 1
                print("FAIL mobilenet_v3_small: opset 13: arena %d, %d calls (%d hardswish); "
                      "opset 14: arena %d, %d calls (%d hardswish)"
                      % (arena13, len(calls13), hs, arena14, len(calls14),
                         calls14.count("ln_rt_hardswish_f32")))
    finally:
        shutil.rmtree(tmp)
    print("test-torch: %d of %d patterns passed, %d expected failures, %d failed; %d other "
          "check(s) passed" % (npass, len(names), nxfail, nfail, nextra))
    sys.exit(1 if nfail else 0)


if __name__ == "__main__":
    main()
