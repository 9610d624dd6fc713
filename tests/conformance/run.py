#!/usr/bin/python3
"""ONNX backend node tests through LightNet (`make conformance`).

Generates the node tests that Debian's python3-onnx defines (with
tools/onnx_node_tests.py) unless they are there already, asks the importer
which op types it maps (`ln-onnx --ops`), runs every tensor-only test whose
op types are all mapped through the interpreter (build/tests/onnx_run, one
process per test), and compares with the expected outputs (rtol 1e-4,
atol 1e-5; exact for integer outputs).

Each test ends as one of
  PASS         matches
  FAIL         wrong values, or an imported model failed to compile or run
  UNSUPPORTED  the importer named what LightNet cannot do (an op type, an
               opset, a dynamic input where a constant is needed, ...)
  REJECTED     an op's own checks refused the model (e.g. a dtype the op
               does not implement)
A test that passes in the interpreter is then compiled with ln-aot and cc
(the emitted C linked with runtime/build/libln_rt.a, a small generated
main() calling <name>_run_array) and compared the same way; a mismatch
there is a FAIL too ("aot: ...").  --no-aot skips that, and so does a build
without build/bin/ln-aot.
A test that is UNSUPPORTED only because a graph input feeds an input
LightNet needs as a constant ("@param": Reshape's shape, Slice's starts,
Clip's min, ...) is run again with those inputs turned into initializers
holding the test's own values (a copy under BUILD/onnx-frozen/); it counts
by that second result and is marked "frozen".
Tests that need op types LightNet does not map are not run; they are counted
per missing op type.  A FAIL listed in tests/conformance/known_failures.txt
(name, then the reason) is reported but does not fail the run.

Exit status 1 on any other FAIL.

  run.py [--build build] [--gen DIR] [--only Relu,Add] [--no-aot] [-v]
  run.py --update-subset    refresh the committed subset tests/conformance/node/
                            (the passing tests, small ones, a few per op type)
"""
import argparse
import collections
import re
import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def read_index(node_dir):
    tests = []
    with open(os.path.join(node_dir, "index.tsv")) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, op_types, opset, _ins, _outs, io = line.rstrip("\n").split("\t")
            tests.append((name, op_types.split(",") if op_types else [], int(opset), io))
    return tests


def supported_ops(build):
    out = subprocess.run([os.path.join(build, "bin", "ln-onnx"), "--ops"], check=True,
                         capture_output=True, text=True).stdout
    ops = set()
    for line in out.splitlines():
        if line.startswith("#") or not line.strip():
            continue
        op_type, _opsets, optype = line.split("\t")
        if "(stripped)" not in optype:
            ops.add(op_type)
    return ops


def read_known(path):
    known = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                line = line.strip()
                if not line or line.startswith("#"):
                    continue
                parts = line.split(None, 1)
                if len(parts) < 2:
                    sys.exit("%s: '%s' has no reason beside it" % (path, parts[0]))
                known[parts[0]] = parts[1]
    return known


def run_one(runner, test_dir):
    try:
        p = subprocess.run([runner, test_dir], capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return "FAIL", "timed out after 120 s"
    line = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    if p.returncode < 0 or not line:
        return "FAIL", "crashed (status %d) %s" % (p.returncode, p.stderr.strip()[-300:])
    status, _, rest = line.partition(" ")
    why = rest.partition(": ")[2]
    return status, why


AOT_MAIN = r"""
#include <stdio.h>
#include <stdlib.h>
#include "m.h"

static unsigned char arena[M_ARENA_SIZE + 1] __attribute__((aligned(64)));
static const size_t in_bytes[] = {%(in_bytes)s}, out_bytes[] = {%(out_bytes)s};

int main(int argc, char **argv)
{
    const void *ins[%(n_in)d + 1];
    void *outs[%(n_out)d + 1];
    int i, ret;

    if (argc != 1 + %(n_in)d + %(n_out)d)
        return 2;
    for (i = 0; i < %(n_in)d; i++) {
        FILE *fp = fopen(argv[1 + i], "rb");
        void *b = malloc(in_bytes[i] + 1);
        if (!fp || fread(b, 1, in_bytes[i], fp) != in_bytes[i])
            return 3;
        fclose(fp);
        ins[i] = b;
    }
    for (i = 0; i < %(n_out)d; i++)
        outs[i] = malloc(out_bytes[i] + 1);
    if ((ret = m_run_array(arena, ins, outs)) != 0) {
        fprintf(stderr, "m_run_array returned %%d\n", ret);
        return 4;
    }
    for (i = 0; i < %(n_out)d; i++) {
        FILE *fp = fopen(argv[1 + %(n_in)d + i], "wb");
        if (!fp || fwrite(outs[i], 1, out_bytes[i], fp) != out_bytes[i] || fclose(fp))
            return 5;
    }
    return 0;
}
"""


CONST_RE = re.compile(r"input '([^']+)' \([^)]*\) must be a constant")


def freeze(test_dir, names, out_dir):
    """A copy of a node test where the graph inputs names (those LightNet
    needs as constants: Reshape's shape, Slice's starts, ...) are
    initializers holding the test's values for them."""
    import onnx

    model = onnx.load(os.path.join(test_dir, "model.onnx"))
    g = model.graph
    data = os.path.join(test_dir, "test_data_set_0")
    if os.path.isdir(out_dir):
        shutil.rmtree(out_dir)
    os.makedirs(os.path.join(out_dir, "test_data_set_0"))
    keep, k = [], 0
    for i, vi in enumerate(list(g.input)):
        t = onnx.TensorProto()
        with open(os.path.join(data, "input_%d.pb" % i), "rb") as f:
            t.ParseFromString(f.read())
        if vi.name in names:
            t.name = vi.name
            g.initializer.append(t)
        else:
            keep.append(vi)
            shutil.copy(os.path.join(data, "input_%d.pb" % i),
                        os.path.join(out_dir, "test_data_set_0", "input_%d.pb" % k))
            k += 1
    del g.input[:]
    g.input.extend(keep)
    for f in os.listdir(data):
        if f.startswith("output_"):
            shutil.copy(os.path.join(data, f), os.path.join(out_dir, "test_data_set_0", f))
    onnx.save(model, os.path.join(out_dir, "model.onnx"))


def node_test_data(test_dir):
    """The inputs and expected outputs of a node test, as numpy arrays."""
    import onnx
    from onnx import numpy_helper

    def load(path):
        t = onnx.TensorProto()
        with open(path, "rb") as f:
            t.ParseFromString(f.read())
        return numpy_helper.to_array(t)

    data = os.path.join(test_dir, "test_data_set_0")
    key = lambda f: int(f.split("_")[1].split(".")[0])
    ins = [load(os.path.join(data, f)) for f in sorted(
        (f for f in os.listdir(data) if f.startswith("input_")), key=key)]
    outs = [load(os.path.join(data, f)) for f in sorted(
        (f for f in os.listdir(data) if f.startswith("output_")), key=key)]
    return ins, outs


def model_data(model_dir):
    """A test model's input and PyTorch output (tests/models/<name>)."""
    import json
    import numpy as np
    with open(os.path.join(model_dir, "meta.json")) as f:
        meta = json.load(f)
    x = np.fromfile(os.path.join(model_dir, "input.bin"), np.float32)
    y = np.fromfile(os.path.join(model_dir, "output.bin"), np.float32)
    return [x.reshape(meta["input_shape"])], [y.reshape(meta["output_shape"])]


def run_aot(build, test_dir, work, model_tol=False):
    """ln-aot + cc + run; (ok, why).  model_tol: the whole-model tolerance
    (max |diff| <= 1e-4 x max |reference|) instead of the node tests'."""
    import numpy as np

    ins, outs = model_data(test_dir) if model_tol else node_test_data(test_dir)
    if os.path.isdir(work):
        shutil.rmtree(work)
    os.makedirs(work)
    try:
        p = subprocess.run([os.path.join(build, "bin", "ln-aot"), "-n", "m", "-o",
                            os.path.join(work, "m.c"), os.path.join(test_dir, "model.onnx")],
                           capture_output=True, text=True)
    except OSError as e:
        return False, "cannot run ln-aot: %s" % e
    if p.returncode:
        return False, "ln-aot: " + p.stderr.strip()
    with open(os.path.join(work, "main.c"), "w") as f:
        f.write(AOT_MAIN % {"in_bytes": ", ".join(str(a.nbytes) for a in ins) or "0",
                            "out_bytes": ", ".join(str(a.nbytes) for a in outs) or "0",
                            "n_in": len(ins), "n_out": len(outs)})
    exe = os.path.join(work, "m")
    p = subprocess.run(["cc", "-std=c99", "-O1", "-w", "-I" + work,
                        "-I" + os.path.join(ROOT, "runtime", "include"),
                        os.path.join(work, "m.c"), os.path.join(work, "main.c"),
                        os.path.join(ROOT, "runtime", "build", "libln_rt.a"), "-lm", "-o", exe],
                       capture_output=True, text=True)
    if p.returncode:
        return False, "cc: " + p.stderr.strip()[-400:]
    args = []
    for i, a in enumerate(ins):
        path = os.path.join(work, "in%d.bin" % i)
        np.ascontiguousarray(a).tofile(path)
        args.append(path)
    out_paths = [os.path.join(work, "out%d.bin" % i) for i in range(len(outs))]
    p = subprocess.run([exe] + args + out_paths, capture_output=True, text=True, timeout=120)
    if p.returncode:
        return False, "emitted model exited %d %s" % (p.returncode, p.stderr.strip())
    for i, want in enumerate(outs):
        got = np.fromfile(out_paths[i], dtype=want.dtype).reshape(want.shape)
        if model_tol:
            ok = np.max(np.abs(got - want)) <= 1e-4 * np.max(np.abs(want))
        elif want.dtype.kind == "f":
            ok = np.allclose(got, want, rtol=1e-4, atol=1e-5, equal_nan=True)
        else:
            ok = np.array_equal(got, want)
        if not ok:
            diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
            return False, "output %d differs: max |diff| %.3g" % (i, np.nanmax(diff))
    return True, ""


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--gen", default=None, help="node tests directory (default BUILD/onnx-node)")
    ap.add_argument("--only", default="", help="comma-separated op types")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every test")
    ap.add_argument("--no-aot", action="store_true", help="interpreter only")
    ap.add_argument("--update-subset", action="store_true")
    args = ap.parse_args()

    build = os.path.abspath(args.build)
    gen = os.path.abspath(args.gen or os.path.join(build, "onnx-node"))
    node_dir = os.path.join(gen, "node")
    if not os.path.exists(os.path.join(node_dir, "index.tsv")):
        print("generating the ONNX node tests into %s" % gen, flush=True)
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "onnx_node_tests.py"),
                        gen, "--quiet"], check=True)
    runner = os.path.join(build, "tests", "onnx_run")
    ops = supported_ops(build)
    known = read_known(os.path.join(HERE, "known_failures.txt"))
    only = set(filter(None, args.only.split(",")))
    aot = not args.no_aot and os.path.exists(os.path.join(build, "bin", "ln-aot"))
    aot_dir = os.path.join(build, "onnx-aot")
    aot_counts = collections.Counter()
    frozen = set()                                 # run with constant inputs frozen

    results = {}                                   # name -> (status, why)
    missing = collections.Counter()                # unmapped op type -> tests
    tests = read_index(node_dir)
    for name, op_types, _opset, io in tests:
        if only and not only.intersection(op_types):
            continue
        if io != "tensor":
            results[name] = ("NOTRUN", "sequence/map/optional inputs or outputs")
            continue
        lacking = [t for t in op_types if t not in ops]
        if lacking:
            for t in lacking:
                missing[t] += 1
            results[name] = ("NOTRUN", "needs " + ",".join(lacking))
            continue
        test_dir = os.path.join(node_dir, name)
        status, why = run_one(runner, test_dir)
        consts = CONST_RE.findall(why) if status == "UNSUPPORTED" else []
        consts = set(consts)
        while consts:
            # inputs LightNet needs as constants: run again with them frozen
            # (again while the error names more: it is cut at 1 KB, so a
            # node of five constant inputs may name only four at first)
            test_dir = os.path.join(build, "onnx-frozen", name)
            freeze(os.path.join(node_dir, name), consts, test_dir)
            status, why = run_one(runner, test_dir)
            frozen.add(name)
            more = set(CONST_RE.findall(why)) if status == "UNSUPPORTED" else set()
            if more <= consts:
                break
            consts |= more
        if status == "PASS" and aot:
            ok, awhy = run_aot(build, test_dir, os.path.join(aot_dir, name))
            aot_counts["pass" if ok else "fail"] += 1
            if not ok:
                status, why = "FAIL", "aot: " + awhy
        if status == "FAIL" and name in known:
            status, why = "KNOWN", known[name] + " (" + why + ")"
        results[name] = (status, why)
        if args.verbose or status in ("FAIL",):
            print("%-11s %s%s%s" % (status, name, " (frozen)" if name in frozen else "",
                                    ": " + why if why else ""), flush=True)

    # per op type (a test counts under every mapped op type it uses)
    cols = ("PASS", "FAIL", "KNOWN", "UNSUPPORTED", "REJECTED")
    table = collections.defaultdict(collections.Counter)
    for name, op_types, _opset, _io in tests:
        st = results.get(name, ("", ""))[0]
        if st in cols:
            for t in op_types:
                table[t][st] += 1
    print("\nper op type (tests that use it; a test with several op types counts in each):")
    print("%-20s %5s %5s %5s %6s %6s %6s" % ("op type", "run", "pass", "fail", "known",
                                             "unsup", "reject"))
    for t in sorted(table):
        c = table[t]
        print("%-20s %5d %5d %5d %6d %6d %6d" % (t, sum(c.values()), c["PASS"], c["FAIL"],
                                                c["KNOWN"], c["UNSUPPORTED"], c["REJECTED"]))
    total = collections.Counter(st for st, _ in results.values())
    ran = sum(total[c] for c in cols)
    print("\noverall: %d node tests; %d run: %d passed, %d failed, %d known failures, "
          "%d unsupported by the importer, %d rejected by op checks; %d not run (op types "
          "not mapped or non-tensor io)" % (len(results), ran, total["PASS"], total["FAIL"],
                                             total["KNOWN"], total["UNSUPPORTED"],
                                             total["REJECTED"], total["NOTRUN"]))
    if frozen:
        print("%d of them had graph inputs LightNet needs as constants (Reshape's shape, "
              "Slice's starts, ...); they ran with those inputs turned into initializers "
              "holding the test's values: %d passed" % (
                  len(frozen), sum(results[n][0] == "PASS" for n in frozen)))
    if aot:
        print("ln-aot + cc: %d of the tests that passed in the interpreter also passed "
              "compiled, %d failed" % (aot_counts["pass"], aot_counts["fail"]))
    else:
        print("ln-aot + cc: not run (%s)" % ("--no-aot" if args.no_aot else "no ln-aot"))
    for st in ("UNSUPPORTED", "REJECTED", "KNOWN"):
        names = sorted(n for n, r in results.items() if r[0] == st)
        if names:
            print("\n%s:" % st.lower())
            for n in names:
                why = results[n][1]
                if st != "KNOWN" and "model.onnx: " in why:
                    why = why[why.find("model.onnx: ") + 12:]
                print("  %s: %s" % (n, why))
    if missing:
        print("\nop types not mapped (tests needing them): " +
              ", ".join("%s %d" % (t, n) for t, n in sorted(missing.items())))
    stale = [n for n in known if results.get(n, ("",))[0] == "PASS"]
    if stale:
        print("\nknown_failures.txt lists tests that pass now: " + ", ".join(stale))

    # whole models: interpreter (onnx_run --model) and ln-aot + cc
    model_fail = 0
    if not only:
        print("\ntest models (max |diff| <= 1e-4 x max |reference|):")
        for d in sorted(glob.glob(os.path.join(ROOT, "tests", "models", "*", "model.onnx"))):
            d = os.path.dirname(d)
            p = subprocess.run([runner, "--model", d], capture_output=True, text=True)
            line = (p.stdout.strip() or p.stderr.strip() or "crashed").splitlines()[-1]
            st = line.split(" ", 1)[0]
            msg = "  %-18s interpreter %s" % (os.path.basename(d), line.partition(": ")[2][:300]
                                              if st == "PASS" else line)
            if st != "PASS":
                model_fail += 1
            elif aot:
                ok, why = run_aot(build, d, os.path.join(aot_dir, "model_" + os.path.basename(d)),
                                  model_tol=True)
                msg += "; ln-aot + cc: " + ("PASS" if ok else "FAIL " + why)
                model_fail += not ok
            print(msg)

    if args.update_subset:
        update_subset(node_dir, results, tests, frozen, os.path.join(build, "onnx-frozen"))
    # the last line, for scripts
    print("\nconformance: %d passed, %d failed (%d known); %d rejected, %d unsupported, "
          "%d not run; ln-aot + cc: %d passed, %d failed"
          % (total["PASS"], total["FAIL"], total["KNOWN"], total["REJECTED"], total["UNSUPPORTED"],
             total["NOTRUN"], aot_counts["pass"] if aot else 0, aot_counts["fail"] if aot else 0))
    sys.exit(1 if total["FAIL"] or model_fail else 0)


def dir_bytes(d):
    return sum(os.path.getsize(os.path.join(r, f)) for r, _, fs in os.walk(d) for f in fs)


def update_subset(node_dir, results, tests, frozen, frozen_dir, per_op=6, max_bytes=4096):
    """The committed subset: passing tests under max_bytes, per_op per op type
    (a frozen test as it ran: its constant inputs are initializers)."""
    dest = os.path.join(HERE, "node")
    if os.path.isdir(dest):
        shutil.rmtree(dest)
    os.makedirs(dest)
    taken = collections.Counter()
    chosen = []
    for name, op_types, _opset, _io in tests:
        if results.get(name, ("",))[0] != "PASS" or len(op_types) != 1:
            continue
        src = os.path.join(frozen_dir if name in frozen else node_dir, name)
        if taken[op_types[0]] >= per_op or dir_bytes(src) > max_bytes:
            continue
        taken[op_types[0]] += 1
        chosen.append(name)
        shutil.copytree(src, os.path.join(dest, name))
    print("\nsubset: %d tests, %d bytes -> %s" % (len(chosen), dir_bytes(dest), dest))


if __name__ == "__main__":
    main()
