#!/usr/bin/env python3
"""Shrink a failing difftest graph to a small one that fails the same way.

  minimize.py SEED [-o OUT.onnx]           the graph of a seed
  minimize.py --model M.onnx [-o OUT.onnx]  any model whose inputs are float

The failure is the one difftest.py reports (the same kind: the message up to
its first quote).  Steps, repeated while any succeeds: keep only one graph
output; cut a tensor loose (it becomes a graph input, its producers go);
bypass a node whose first input has its output's shape; drop an input of a
Concat/Sum/Mean.  Inputs are fresh random values for every candidate.  Writes
the smallest model (default build/difftest/min/min.onnx) and prints it.
"""
import argparse, os, re, shutil, subprocess, sys
import numpy as np
import onnx
from onnx import helper, shape_inference, TensorProto

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import difftest  # noqa: E402
import gen  # noqa: E402

ROOT = difftest.ROOT


class Args:
    pass


def shapes_of(m):
    inf = shape_inference.infer_shapes(m)
    s = {}
    for vi in list(inf.graph.value_info) + list(inf.graph.input) + list(inf.graph.output):
        d = [x.dim_value for x in vi.type.tensor_type.shape.dim]
        if d and all(v > 0 for v in d):
            s[vi.name] = d
    return s


def prune(m):
    """Drop nodes nothing needs, unused inputs and initializers."""
    g = m.graph
    need = set(o.name for o in g.output)
    keep = []
    for n in reversed(list(g.node)):
        if any(o in need for o in n.output):
            keep.append(n)
            need.update(i for i in n.input if i)
    keep.reverse()
    del g.node[:]
    g.node.extend(keep)
    ins = [i for i in g.input if i.name in need]
    del g.input[:]
    g.input.extend(ins)
    inits = [t for t in g.initializer if t.name in need]
    del g.initializer[:]
    g.initializer.extend(inits)
    return m


def run_model(m, d, args, rng):
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    onnx.save(m, os.path.join(d, "model.onnx"))
    ins = [i for i in m.graph.input if i.name not in set(t.name for t in m.graph.initializer)]
    with open(os.path.join(d, "inputs.txt"), "w") as f:
        for k, i in enumerate(ins):
            f.write(i.name + "\n")
            shp = [x.dim_value for x in i.type.tensor_type.shape.dim]
            rng.uniform(-1, 1, shp).astype(np.float32).tofile(os.path.join(d, "in_%d.bin" % k))
            with open(os.path.join(d, "shape_%d.json" % k), "w") as g:
                g.write(str(shp))
    outs = [o.name for o in m.graph.output]
    with open(os.path.join(d, "outs.txt"), "w") as f:
        f.write("".join(o + "\n" for o in outs))
    difftest.crash_safe([args.runner], [d], "runner")
    difftest.crash_safe(["node", os.path.join(ROOT, "tests/difftest/ort_run.js")], [d], "ort")
    difftest.aot_batch(args, [d], d)
    r = difftest.compare(d, outs, {"O0": 0, "ort": 0})
    return r[1] if r and r[0] == "fail" else None


def kind(msg):
    return re.sub(r"\d", "N", msg.split("'")[0])[:60]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("seed", nargs="?", type=int)
    ap.add_argument("--model")
    ap.add_argument("-o", "--out", default=os.path.join(ROOT, "build/difftest/min/min.onnx"))
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/bin"))
    ap.add_argument("--runner", default=os.path.join(ROOT, "build/difftest/runner"))
    ap.add_argument("--rt", default=os.path.join(ROOT, "runtime/build/libln_rt.a"))
    a = ap.parse_args()
    args = Args()
    args.bin, args.runner, args.rt, args.cc, args.jobs, args.aot_cflags = \
        a.bin, a.runner, os.path.abspath(a.rt), "cc", 1, ""
    m = onnx.load(a.model) if a.model else gen.gen(a.seed)[0]
    work = os.path.join(os.path.dirname(os.path.abspath(a.out)), "work")
    rng = np.random.RandomState(1)
    first = run_model(m, work, args, rng)
    if not first:
        raise SystemExit("minimize: the model does not fail")
    want = kind(first)
    print("minimize: failure kind: %s" % want)

    def fails(c):
        try:
            onnx.checker.check_model(c)
            r = run_model(c, work, args, rng)
        except Exception:                    # noqa: BLE001  an invalid candidate
            return False
        return bool(r) and kind(r) == want

    def candidates(m):
        g = m.graph
        if len(g.output) > 1:
            for o in g.output:
                c = onnx.ModelProto()
                c.CopyFrom(m)
                del c.graph.output[:]
                c.graph.output.extend([o])
                yield prune(c)
        sh = shapes_of(m)
        inits = set(t.name for t in g.initializer)
        for n in list(g.node):
            for t in n.output:                  # cut t loose: a graph input
                if t not in sh or t in [i.name for i in g.input]:
                    continue
                c = onnx.ModelProto()
                c.CopyFrom(m)
                c.graph.input.extend([helper.make_tensor_value_info(t, TensorProto.FLOAT, sh[t])])
                keep = [x for x in c.graph.node if t not in x.output]
                del c.graph.node[:]
                c.graph.node.extend(keep)
                yield prune(c)
            if n.input and n.input[0] not in inits and len(n.output) == 1 and \
                    sh.get(n.input[0]) == sh.get(n.output[0]) and n.input[0] in sh:
                c = onnx.ModelProto()               # bypass n
                c.CopyFrom(m)
                src, dst = n.input[0], n.output[0]
                keep = [x for x in c.graph.node if x.name != n.name]
                for x in keep:
                    for i, v in enumerate(x.input):
                        if v == dst:
                            x.input[i] = src
                for o in c.graph.output:
                    if o.name == dst:
                        o.name = src
                del c.graph.node[:]
                c.graph.node.extend(keep)
                if len(set(o.name for o in c.graph.output)) == len(c.graph.output):
                    yield prune(c)
            if n.op_type in ("Concat", "Sum", "Mean") and len(n.input) > 1:
                for k in range(len(n.input)):
                    c = onnx.ModelProto()
                    c.CopyFrom(m)
                    x = [y for y in c.graph.node if y.name == n.name][0]
                    del x.input[k]
                    for o in list(c.graph.output):      # its shape changed
                        if o.name in x.output:
                            o.type.tensor_type.ClearField("shape")
                    yield prune(c)

    progress = True
    while progress:
        progress = False
        for c in candidates(m):
            if fails(c):
                m = c
                progress = True
                print("minimize: %d nodes" % len(m.graph.node))
                break
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    onnx.save(m, a.out)
    print("minimize: %s (%d nodes): %s" % (a.out, len(m.graph.node), run_model(m, work, args, rng)))
    print(helper.printable_graph(m.graph))


if __name__ == "__main__":
    main()
