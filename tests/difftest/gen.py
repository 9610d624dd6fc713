#!/usr/bin/env python3
"""Random but valid ONNX graphs (opset 13) for the differential tester.

gen(seed) -> (onnx ModelProto, {input name: numpy array}); the same seed
always gives the same graph and inputs.  The graphs are biased toward what
breaks memory planners and fusions: concat fan-in and fan-out (one tensor
into several concats, one-input concats), dense connectivity, residual
adds, in-place chains (activations and batch norms after ops whose output
dies), views (Reshape, Flatten, Squeeze, Unsqueeze) of tensors that other
ops also read, Split, several graph outputs (some also read by later ops),
a graph input read by several ops, Pad before Conv, plain, grouped and
depthwise Conv, ConvTranspose, pooling, Gemm and MatMul, broadcasting
arithmetic, Softmax, Transpose, Slice and an activation after any of them.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ACTS = ["Relu", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid", "Elu",
        "Softplus", "Abs", "Neg"]


class G:
    def __init__(self, seed):
        self.r = np.random.RandomState(seed)
        self.nodes, self.inits, self.n = [], [], 0
        self.shapes = {}          # tensor name -> shape (list)
        self.uses = {}            # tensor name -> number of readers

    def name(self, p):
        self.n += 1
        return "%s%d" % (p, self.n)

    def const(self, arr, p="w"):
        n = self.name(p)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def weight(self, shape, fan_in):
        return self.const((self.r.uniform(-1, 1, shape) / np.sqrt(max(fan_in, 1)))
                          .astype(np.float32))

    def node(self, op, ins, shape, nout=1, shapes=None, **attrs):
        outs = [self.name("t") for _ in range(nout)]
        self.nodes.append(helper.make_node(op, ins, outs, name=self.name(op.lower()), **attrs))
        for i in ins:
            if i in self.shapes:
                self.uses[i] = self.uses.get(i, 0) + 1
        for k, o in enumerate(outs):
            self.shapes[o] = [int(d) for d in (shapes[k] if shapes else shape)]
        return outs if nout > 1 else outs[0]

    def pick(self, cond=lambda s: True, fresh=0.6):
        """A tensor satisfying cond, the most recent ones preferred."""
        c = [t for t in self.shapes if cond(self.shapes[t])]
        if not c:
            return None
        if self.r.rand() < fresh:
            return c[-1 - self.r.randint(min(3, len(c)))]
        return c[self.r.randint(len(c))]


def is4(s):
    return len(s) == 4


def act(g, x):
    a = ACTS[g.r.randint(len(ACTS))]
    s = g.shapes[x]
    if a == "Clip":
        lo = g.const(np.float32(g.r.choice([0.0, -0.5, -1.0])), "lo")
        hi = g.const(np.float32(g.r.choice([6.0, 0.5, 1.0])), "hi")
        return g.node("Clip", [x, lo, hi], s)
    if a == "LeakyRelu":
        return g.node(a, [x], s, alpha=float(g.r.choice([0.01, 0.1, 0.2])))
    if a == "HardSigmoid":
        return g.node(a, [x], s, alpha=0.2, beta=0.5)
    if a == "Elu":
        return g.node(a, [x], s, alpha=1.0)
    return g.node(a, [x], s)


def conv(g, x, pad_first=False):
    n, c, h, w = g.shapes[x]
    kind = g.r.randint(4)
    if kind == 0 and c > 1:
        group, oc = c, c * g.r.choice([1, 2])                  # depthwise
    elif kind == 1 and c % 2 == 0:
        group, oc = 2, 2 * g.r.randint(1, 4)                   # grouped
    else:
        group, oc = 1, int(g.r.randint(1, 9))
    k = int(g.r.choice([1, 3, 3, 5])) if min(h, w) >= 5 else int(g.r.choice([1, 3]))
    stride = int(g.r.choice([1, 1, 2]))
    dil = 2 if (k == 3 and min(h, w) >= 7 and g.r.rand() < 0.2) else 1
    if pad_first and k > 1:
        p = [0, 0, int(g.r.randint(0, 2)), int(g.r.randint(0, 2)),
             0, 0, int(g.r.randint(0, 2)), int(g.r.randint(0, 2))]
        x = g.node("Pad", [x, g.const(np.array(p, np.int64), "p")],
                   [n, c, h + p[2] + p[6], w + p[3] + p[7]], mode="constant")
        n, c, h, w = g.shapes[x]
        pads = [0, 0, 0, 0]
    else:
        pads = [int(v) for v in g.r.randint(0, k // 2 + 1, 4)] if k > 1 else [0, 0, 0, 0]
    span = dil * (k - 1) + 1
    oh = (h + pads[0] + pads[2] - span) // stride + 1
    ow = (w + pads[1] + pads[3] - span) // stride + 1
    if oh < 1 or ow < 1:
        k, span, pads, stride, dil = 1, 1, [0, 0, 0, 0], 1, 1
        oh, ow = h, w
    wt = g.weight([oc, c // group, k, k], c // group * k * k)
    ins = [x, wt] + ([g.weight([oc], 4)] if g.r.rand() < 0.7 else [])
    y = g.node("Conv", ins, [n, oc, oh, ow], group=group, kernel_shape=[k, k],
               strides=[stride, stride], pads=pads, dilations=[dil, dil])
    return y


def step(g):
    r = g.r.rand()
    x4 = g.pick(is4)
    n, c, h, w = g.shapes[x4]
    if r < 0.16:
        y = conv(g, x4, pad_first=g.r.rand() < 0.25)
    elif r < 0.30:                               # concat, fan-in/out
        same = [t for t in g.shapes if is4(g.shapes[t]) and g.shapes[t][2:] == [h, w]]
        k = int(g.r.randint(1, 4))
        ins = [same[g.r.randint(len(same))] for _ in range(k)]
        if g.r.rand() < 0.5:
            ins[0] = x4
        cs = sum(g.shapes[t][1] for t in ins)
        if cs > 48:
            ins = ins[:1]
            cs = g.shapes[ins[0]][1]
        y = g.node("Concat", ins, [n, cs, h, w], axis=1)
    elif r < 0.40:                               # residual / broadcast arithmetic
        op = str(g.r.choice(["Add", "Add", "Mul", "Sub"]))
        same = [t for t in g.shapes if g.shapes[t] == [n, c, h, w] and t != x4]
        if same and g.r.rand() < 0.7:
            other = same[g.r.randint(len(same))]
        elif g.r.rand() < 0.5:
            other = g.const(g.r.uniform(-1, 1, [1, c, 1, 1]).astype(np.float32), "b")
        else:
            other = g.const(g.r.uniform(-1, 1, [w]).astype(np.float32), "b")
        ins = [x4, other] if g.r.rand() < 0.7 else [other, x4]
        y = g.node(op, ins, [n, c, h, w])
    elif r < 0.52:
        y = act(g, x4)
    elif r < 0.58:
        sc = g.const(g.r.uniform(0.5, 1.5, c).astype(np.float32), "s")
        bi = g.const(g.r.uniform(-0.5, 0.5, c).astype(np.float32), "b")
        me = g.const(g.r.uniform(-0.5, 0.5, c).astype(np.float32), "m")
        va = g.const(g.r.uniform(0.5, 2.0, c).astype(np.float32), "v")
        y = g.node("BatchNormalization", [x4, sc, bi, me, va], [n, c, h, w], epsilon=1e-5)
    elif r < 0.65 and min(h, w) >= 2:
        k = int(g.r.choice([2, 3])) if min(h, w) >= 3 else 2
        s = int(g.r.choice([1, 2]))
        p = int(g.r.randint(0, 2)) if k == 3 else 0
        ceil = int(g.r.rand() < 0.3)
        def out(d):
            span = d + 2 * p - k
            o = (-(-span // s) if ceil else span // s) + 1
            if ceil and (o - 1) * s >= d + p:
                o -= 1
            return o
        op = str(g.r.choice(["MaxPool", "AveragePool"]))
        attrs = dict(kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p], ceil_mode=ceil)
        if op == "AveragePool":
            attrs["count_include_pad"] = int(g.r.rand() < 0.5)
        y = g.node(op, [x4], [n, c, out(h), out(w)], **attrs)
    elif r < 0.68:
        y = g.node("GlobalAveragePool", [x4], [n, c, 1, 1])
    elif r < 0.72 and c >= 2:                    # split
        a = int(g.r.randint(1, c))
        ys = g.node("Split", [x4, g.const(np.array([a, c - a], np.int64), "sp")], None, nout=2,
                    shapes=[[n, a, h, w], [n, c - a, h, w]], axis=1)
        y = ys[g.r.randint(2)]
    elif r < 0.80:                               # views of a tensor also read directly
        v = g.r.randint(4)
        if v == 0:
            f = g.node("Flatten", [x4], [n, c * h * w], axis=1)
            o = int(g.r.randint(1, 9))
            wt = g.weight([o, c * h * w], c * h * w)
            gm = g.node("Gemm", [f, wt, g.weight([o], 4)], [n, o], transB=1)
            y = g.node("Reshape", [gm, g.const(np.array([n, o, 1, 1], np.int64), "sh")],
                       [n, o, 1, 1])
        elif v == 1:
            rs = g.node("Reshape", [x4, g.const(np.array([n, c, h * w], np.int64), "sh")],
                        [n, c, h * w])
            y = g.node("Reshape", [act(g, rs), g.const(np.array([n, c, h, w], np.int64), "sh")],
                       [n, c, h, w])
        elif v == 2:
            u = g.node("Unsqueeze", [x4, g.const(np.array([2], np.int64), "ax")], [n, c, 1, h, w])
            y = g.node("Squeeze", [u, g.const(np.array([2], np.int64), "ax")], [n, c, h, w])
        else:
            rs = g.node("Reshape", [x4, g.const(np.array([n, -1], np.int64), "sh")],
                        [n, c * h * w])
            y = g.node("Reshape", [rs, g.const(np.array([n, c, h, w], np.int64), "sh")],
                       [n, c, h, w])
    elif r < 0.84:
        y = g.node("Transpose", [x4], [n, c, w, h], perm=[0, 1, 3, 2])
    elif r < 0.87 and (h >= 2 or c >= 2):
        ax = 2 if h >= 2 else 1
        d = g.shapes[x4][ax]
        b = int(g.r.randint(0, d))
        e = int(g.r.randint(b + 1, d + 1))
        shp = list(g.shapes[x4])
        shp[ax] = e - b
        y = g.node("Slice", [x4, g.const(np.array([b], np.int64), "sb"),
                             g.const(np.array([e], np.int64), "se"),
                             g.const(np.array([ax], np.int64), "sa")], shp)
    elif r < 0.90:
        y = g.node("Softmax", [x4], [n, c, h, w], axis=int(g.r.choice([1, 3, -1])))
    elif r < 0.94:
        o = int(g.r.randint(1, 7))
        y = g.node("MatMul", [x4, g.weight([w, o], w)], [n, c, h, o])
    elif r < 0.97 and h * w <= 64:
        k, s = (2, 2) if g.r.rand() < 0.5 else (3, 1)
        p = 1 if k == 3 else 0
        oc = int(g.r.randint(1, 5))
        y = g.node("ConvTranspose", [x4, g.weight([c, oc, k, k], c * k * k)],
                   [n, oc, (h - 1) * s - 2 * p + k, (w - 1) * s - 2 * p + k],
                   kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p])
    else:
        y = act(g, x4)
    if g.r.rand() < 0.35 and is4(g.shapes[y]):
        y = act(g, y)                            # an in-place chain
    return y


def gen(seed):
    g = G(seed)
    r = g.r
    ninp = 1 if r.rand() < 0.75 else 2
    c, h, w = int(r.randint(1, 6)), int(r.randint(1, 11)), int(r.randint(1, 11))
    inputs = {}
    for i in range(ninp):
        nm = "in%d" % i
        g.shapes[nm] = [1, c, h, w]
        g.uses[nm] = 0
        inputs[nm] = r.uniform(-1, 1, [1, c, h, w]).astype(np.float32)
    nsteps = int(r.randint(2, 14))
    last = None
    for _ in range(nsteps):
        last = step(g)
    # outputs: the last tensor, sometimes others (also read by later ops)
    outs = [last]
    cands = [t for t in g.shapes if t not in inputs and t not in outs]
    for _ in range(int(r.randint(0, 3))):
        if cands:
            t = cands[r.randint(len(cands))]
            if t not in outs:
                outs.append(t)
    graph = helper.make_graph(
        g.nodes, "difftest_%d" % seed,
        [helper.make_tensor_value_info(nm, TensorProto.FLOAT, g.shapes[nm]) for nm in inputs],
        [helper.make_tensor_value_info(t, TensorProto.FLOAT, g.shapes[t]) for t in outs],
        g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="lightnet-difftest")
    m.ir_version = 8
    return m, inputs


if __name__ == "__main__":
    import sys
    m, ins = gen(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    onnx.checker.check_model(m, full_check=True)
    print(helper.printable_graph(m.graph))
