#!/usr/bin/env python3
"""QDQ versions of the test networks (tests/models/<name>/model.onnx), the
layout ONNX Runtime's static quantizer writes: int8 activations as
QuantizeLinear -> DequantizeLinear pairs (asymmetric, min/max calibrated
with ONNX Runtime on the network's own input, three noisy copies of it
and four random ones), int8
weights per output channel (symmetric) and int32 biases at input scale *
weight scale behind DequantizeLinear.  Batch norm is folded into the
conv/gemm before it first (as the quantizer's pre-processing does); a
Relu/Clip after a conv or gemm is quantized at its output (its clamp);
Flatten/Reshape/Pad outputs share their input's parameters, and so do
MaxPool/AveragePool outputs (as TensorFlow Lite's converter makes them).

  quantize_models.py [--ncal 16] [--neval 20] OUTDIR NAME...

writes OUTDIR/<name>.onnx, <name>.in.bin (the network's input.bin),
<name>.ref.bin (ONNX Runtime, graph optimizations off: plain QDQ) and
<name>.scale (the output's step).  A NAME trained/X is the trained network
tests/trained/X (tools/make_trained_models.py): calibrated on NCAL inputs
of its task (tests/trained/data.py, seed 1000), and <name>.in.bin and
<name>.ref.bin hold NEVAL others (seed 1001) one after another, with ONNX
Runtime's output for each.  Needs onnx and numpy
(/usr/bin/python3) and onnxruntime-node (sh bench/setup.sh).
"""
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
ORT_RUN = os.path.join(ROOT, "tests", "difftest", "ort_run.js")
WEIGHTED = ("Conv", "Gemm", "MatMul")
QUANTIZED = WEIGHTED + ("Add", "MaxPool", "AveragePool", "GlobalAveragePool", "Concat")
ACTS = ("Relu", "Clip")
VIEWS = ("Flatten", "Reshape", "Squeeze", "Unsqueeze", "Pad")
POOLS = ("MaxPool", "AveragePool")


def ort(model, xs, outs):
    """Run model on each input of xs; per input, the outputs listed."""
    d = tempfile.mkdtemp()
    try:
        dirs = []
        for k, x in enumerate(xs):
            sub = os.path.join(d, str(k))
            os.mkdir(sub)
            onnx.save(model, os.path.join(sub, "model.onnx"))
            x.tofile(os.path.join(sub, "in_0.bin"))
            json.dump(list(x.shape), open(os.path.join(sub, "shape_0.json"), "w"))
            open(os.path.join(sub, "inputs.txt"), "w").write(model.graph.input[0].name + "\n")
            open(os.path.join(sub, "outs.txt"), "w").write("".join(o + "\n" for o in outs))
            dirs.append(sub)
        subprocess.run(["node", ORT_RUN] + dirs, check=True, stderr=subprocess.DEVNULL)
        res = []
        for sub in dirs:
            if os.path.exists(os.path.join(sub, "ort.err")):
                raise SystemExit("ONNX Runtime: " + open(os.path.join(sub, "ort.err")).read())
            res.append([np.fromfile(os.path.join(sub, "ort_%d.bin" % i), np.float32)
                        for i in range(len(outs))])
        return res
    finally:
        shutil.rmtree(d)


def fold_bn(g, inits):
    """BatchNormalization after a conv/gemm whose output it alone reads."""
    readers = {}
    for n in g.node:
        for i in n.input:
            readers.setdefault(i, []).append(n)
    prod = {o: n for n in g.node for o in n.output}
    drop = []
    for bn in g.node:
        if bn.op_type != "BatchNormalization":
            continue
        p = prod.get(bn.input[0])
        if p is None or p.op_type not in ("Conv", "Gemm") or len(readers[bn.input[0]]) != 1:
            continue
        trans_b = next((a.i for a in p.attribute if a.name == "transB"), 0)
        if p.op_type == "Gemm" and not trans_b:
            continue
        sc, b, m, v = (inits[i] for i in bn.input[1:5])
        eps = next((a.f for a in bn.attribute if a.name == "epsilon"), 1e-5)
        s = sc / np.sqrt(v + eps)
        w = inits[p.input[1]]
        inits[p.input[1]] = (w * s.reshape([-1] + [1] * (w.ndim - 1))).astype(np.float32)
        old_b = inits[p.input[2]] if len(p.input) > 2 else np.zeros(len(s), np.float32)
        bname = p.input[2] if len(p.input) > 2 else p.name + "_bias"
        inits[bname] = ((old_b - m) * s + b).astype(np.float32)
        if len(p.input) < 3:
            p.input.append(bname)
        p.output[0] = bn.output[0]
        drop.append(bn)
    for bn in drop:
        g.node.remove(bn)


class Quantizer:
    def __init__(self, model, xs):
        self.m = model
        self.g = model.graph
        self.inits = {t.name: numpy_helper.to_array(t) for t in self.g.initializer}
        for n in self.g.node:      # Constant nodes to initializers
            if n.op_type == "Constant":
                self.inits[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        keep = [n for n in self.g.node if n.op_type != "Constant"]
        del self.g.node[:]
        self.g.node.extend(keep)
        fold_bn(self.g, self.inits)
        self.xs = xs
        self.nodes = []
        self.new_inits = {}
        self.qparams = {}
        self.uint8 = False

    def calibrate(self):
        names = [o for n in self.g.node for o in n.output]
        m = onnx.ModelProto()
        m.CopyFrom(self.m)
        del m.graph.initializer[:]
        m.graph.initializer.extend(numpy_helper.from_array(v, k) for k, v in self.inits.items())
        del m.graph.output[:]
        m.graph.output.extend(helper.make_tensor_value_info(o, TensorProto.FLOAT, None)
                              for o in names)
        res = ort(m, self.xs, names)
        self.range = {}
        for k, o in enumerate(names):
            v = np.concatenate([r[k] for r in res])
            self.range[o] = (min(float(v.min()), 0.0), max(float(v.max()), 0.0))
        x = self.g.input[0].name
        v = np.concatenate([x_.ravel() for x_ in self.xs])
        self.range[x] = (min(float(v.min()), 0.0), max(float(v.max()), 0.0))

    def const(self, name, v):
        self.new_inits[name] = v
        return name

    def params(self, t):
        if t not in self.qparams:
            lo, hi = self.range[t]
            s = np.float32(max(hi - lo, 1e-8) / 255.0)
            if self.uint8:      # ONNX Runtime's default activation type
                z = np.uint8(np.clip(np.round(-lo / s), 0, 255))
            else:
                z = np.int8(np.clip(np.round(-128 - lo / s), -128, 127))
            self.qparams[t] = (s, z)
        return self.qparams[t]

    def qdq(self, t, like=None):
        """Q -> DQ of tensor t (params of `like` when given); returns the DQ output."""
        s, z = self.params(like or t)
        sn = self.const(t + "_scale", np.array(s, np.float32))
        zn = self.const(t + "_zero_point", np.array(z, np.uint8 if self.uint8 else np.int8))
        self.nodes.append(helper.make_node("QuantizeLinear", [t, sn, zn], [t + "_q"],
                                           name=t + "_QuantizeLinear"))
        self.nodes.append(helper.make_node("DequantizeLinear", [t + "_q", sn, zn],
                                           [t + "_dq"], name=t + "_DequantizeLinear"))
        return t + "_dq"

    def weight(self, node):
        w = self.inits[node.input[1]]
        trans_b = next((a.i for a in node.attribute if a.name == "transB"), 0)
        axis = 0 if node.op_type == "Conv" or trans_b else 1
        red = tuple(i for i in range(w.ndim) if i != axis)
        s = np.maximum(np.abs(w).max(axis=red) / 127.0, 1e-12).astype(np.float32)
        shp = [1] * w.ndim
        shp[axis] = -1
        q = np.clip(np.round(w / s.reshape(shp)), -127, 127).astype(np.int8)
        n = node.input[1]
        ins = [self.const(n + "_q", q), self.const(n + "_scale", s),
               self.const(n + "_zero_point", np.zeros(s.shape, np.int8))]
        self.nodes.append(helper.make_node("DequantizeLinear", ins, [n + "_dq"], axis=axis,
                                           name=n + "_DequantizeLinear"))
        return n + "_dq", s

    def bias(self, name, x_scale, w_scale):
        b = self.inits[name]
        s = (np.float32(x_scale) * w_scale).astype(np.float32)
        q = np.clip(np.round(b / s), -2**31, 2**31 - 1).astype(np.int32)
        ins = [self.const(name + "_q", q), self.const(name + "_scale", s),
               self.const(name + "_zero_point", np.zeros(s.shape, np.int32))]
        self.nodes.append(helper.make_node("DequantizeLinear", ins, [name + "_dq"], axis=0,
                                           name=name + "_DequantizeLinear"))
        return name + "_dq"

    def run(self):
        readers = {}
        for n in self.g.node:
            for i in n.input:
                readers.setdefault(i, []).append(n)
        outputs = {o.name for o in self.g.output}
        # which tensors get Q/DQ: inputs of quantized ops, their outputs
        # (after a relu/clip that alone reads them), views of those
        quant, like = set(), {}
        for n in self.g.node:
            if n.op_type not in QUANTIZED:
                continue
            for i in (n.input[:1] if n.op_type in WEIGHTED else n.input):
                if i not in self.inits:
                    quant.add(i)
            o = n.output[0]
            r = readers.get(o, [])
            if len(r) == 1 and r[0].op_type in ACTS and o not in outputs:
                o = r[0].output[0]
            quant.add(o)
        for n in self.g.node:      # a view or pool of a quantized tensor keeps its params
            if n.op_type in VIEWS + POOLS and n.output[0] in quant:
                src = n.input[0]
                while src in like:
                    src = like[src]
                if src in quant:
                    like[n.output[0]] = src
        graph_in = self.g.input[0].name
        renamed = {}
        order = [None] + list(self.g.node)
        for n in order:
            if n is not None:
                for k, i in enumerate(n.input):
                    n.input[k] = renamed.get(i, i)
                if n.op_type in WEIGHTED and n.input[1] in self.inits:
                    x_scale = self.params(like.get(n.input[0][:-3], n.input[0][:-3]))[0] \
                        if n.input[0].endswith("_dq") else None
                    if x_scale is not None:
                        n.input[1], ws = self.weight(n)
                        if len(n.input) > 2 and n.input[2]:
                            n.input[2] = self.bias(n.input[2], x_scale, ws)
                self.nodes.append(n)
            for o in ([graph_in] if n is None else n.output):
                if o not in quant:
                    continue
                src = like.get(o)
                if o in outputs:
                    f = o + "_float"
                    n.output[list(n.output).index(o)] = f
                    self.qdq(f, like=src or o)
                    self.nodes[-1].output[0] = o
                else:
                    renamed[o] = self.qdq(o, like=src)
        del self.g.node[:]
        self.g.node.extend(self.nodes)
        all_inits = dict(self.inits)
        all_inits.update(self.new_inits)
        used = {i for n in self.g.node for i in n.input}
        del self.g.initializer[:]
        self.g.initializer.extend(numpy_helper.from_array(v, k) for k, v in all_inits.items()
                                  if k in used)
        return self.m


TRAINED_DIR = os.path.join(ROOT, "tests", "trained")
CAL_SEED, EVAL_SEED = 1000, 1001


def model_dir(name):
    """tests/models/NAME, or tests/trained/X for NAME trained/X"""
    if name.startswith("trained/"):
        return os.path.join(TRAINED_DIR, name[len("trained/"):])
    return os.path.join(ROOT, "tests", "models", name)


def inputs(name, x, n_cal, n_eval):
    """calibration and evaluation inputs: for a random network its input.bin, three
    noisy copies and four N(0, spread) draws, evaluated on input.bin; for a trained
    one n_cal and n_eval inputs of its task (tests/trained/data.py)"""
    if name.startswith("trained/"):
        sys.path.insert(0, TRAINED_DIR)
        import data
        base = name[len("trained/"):]
        cal = list(data.generate(base, n_cal, CAL_SEED)[0][:, None])
        return cal, list(data.generate(base, n_eval, EVAL_SEED)[0][:, None])
    shape = list(x.shape)
    rs = np.random.RandomState(1)
    sd = float(x.std()) or 1.0
    xs = [x] + [(x * rs.uniform(0.5, 1.5) + rs.normal(0, sd * a, shape)).astype(np.float32)
                for a in (0.25, 0.5, 1.0)] + [rs.normal(0, sd, shape).astype(np.float32)
                                              for _ in range(4)]
    return xs, [x]


def main():
    args = sys.argv[1:]
    n_cal, n_eval = 16, 20
    while args and args[0].startswith("--"):
        opt, val = args[0], int(args[1])
        if opt == "--ncal":
            n_cal = val
        elif opt == "--neval":
            n_eval = val
        else:
            raise SystemExit("quantize_models.py: unknown option %s" % opt)
        args = args[2:]
    out_dir, names = args[0], args[1:]
    for name in names:
        d = model_dir(name)
        m = onnx.load(os.path.join(d, "model.onnx"))
        shape = [x.dim_value for x in m.graph.input[0].type.tensor_type.shape.dim]
        x = np.fromfile(os.path.join(d, "input.bin"), np.float32).reshape(shape)
        xs, ev = inputs(name, x, n_cal, n_eval)
        q = Quantizer(m, xs)
        q.calibrate()
        qm = q.run()
        onnx.checker.check_model(qm, full_check=True)
        dst = os.path.join(out_dir, name)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        onnx.save(qm, dst + ".onnx")
        np.concatenate([e.ravel() for e in ev]).astype(np.float32).tofile(dst + ".in.bin")
        out = qm.graph.output[0].name
        refs = ort(qm, ev, [out])
        np.concatenate([r[0] for r in refs]).tofile(dst + ".ref.bin")
        s = q.params(out)[0]
        open(dst + ".scale", "w").write("%.9g\n" % s)
        print("%s: %d nodes, %d QuantizeLinear, %d calibration inputs, %d evaluated" % (
            name, len(qm.graph.node), sum(n.op_type == "QuantizeLinear" for n in qm.graph.node),
            len(xs), len(ev)))


if __name__ == "__main__":
    main()
