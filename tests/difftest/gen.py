#!/usr/bin/env python3
"""Random but valid ONNX graphs (opset 13) for the differential tester.

gen(seed) -> (onnx ModelProto, [(input name, numpy array)]); the same seed
always gives the same graph and inputs (numpy's RandomState is stable
across versions).  The graphs are biased toward what breaks memory
planners and fusions:

  - Concat fan-in and fan-out: one tensor into several concats, the same
    tensor twice into one, one-input concats, concats of concats, concats
    along H and W, concats of views and of graph inputs (DenseNet-like);
  - residual Add/Sub/Mul/Div/Max/Min/Sum/Mean, broadcasting both ways
    ([1,C,1,1], [C,1,1], [1,1,H,W], [W], scalars, computed [N,C,1,1]:
    squeeze-and-excitation);
  - in-place chains: activations and batch norms after ops whose output
    dies, and after ops whose output is also read elsewhere (which must
    block fusion and in-place reuse);
  - views (Reshape, Flatten, Squeeze/Unsqueeze, Identity, Dropout) of
    tensors other ops also read, views as graph outputs, views of inputs;
  - Split into 2-3 (all parts used or some dead), Slice with steps and
    negative indices, Transpose with any permutation;
  - Pad (constant zero or not, reflect, edge) before Conv, AveragePool and
    MaxPool (a zero pad folds only where that is exact);
  - Conv (plain, grouped, depthwise, dilated, strided, asymmetric pads,
    with and without bias; 16+ channels on 12+ wide maps, the Winograd
    conv's shapes; 1x1 expand + depthwise pairs; 1x1 / depthwise / 1x1 chains
    on small maps, channels-last on the host), ConvTranspose, pooling (ceil mode,
    count_include_pad), GlobalAverage/MaxPool, ReduceMean, BN after conv
    and after Gemm, Gemm (transposes, alpha, beta) and MatMul (with a
    constant and between two activations), Softmax/LogSoftmax on any axis,
    Resize, DepthToSpace/SpaceToDepth, Expand, Tile, InstanceNorm,
    constant subgraphs (folded at compile time);
  - an activation (Relu, Clip in all its forms, Sigmoid, Tanh, LeakyRelu,
    HardSigmoid, Elu, Selu, Celu, Softplus, Softsign, PRelu,
    ThresholdedRelu, Abs, Neg, and x * Sigmoid(x) / x * HardSigmoid(x) in
    either operand order: SiLU and HardSwish as exported, and GELU's erf
    form as PyTorch and TensorFlow write it: Div or Mul by a constant, Erf,
    Add 1, the two products in either order) after any op;
  - one to three graph inputs (one read by several ops), one to five graph
    outputs (some also read by later ops, some views); batch 1 or 2; tensor
    names in several exporters' styles ("t12", "/blk/Conv_output_0",
    "x.3", "17").

Weights are small (uniform, scaled by 1/sqrt(fan-in)) so float32 results of
different summation orders stay close.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ACTS = ["Relu", "Relu", "Clip", "Clip", "Sigmoid", "Tanh", "LeakyRelu", "HardSigmoid",
        "Elu", "Selu", "Celu", "Softplus", "Softsign", "PRelu", "ThresholdedRelu",
        "Abs", "Neg", "SiLU", "HardSwishMul", "GELU"]
STYLES = ["plain", "plain", "torch", "dotted", "numeric"]


class G:
    def __init__(self, seed):
        self.r = np.random.RandomState(seed)
        self.nodes, self.inits, self.n = [], [], 0
        self.shapes = {}          # tensor name -> shape (list), in creation order
        self.uses = {}            # tensor name -> number of readers
        self.concat_in = set()    # tensors read by a concat
        self.fusable = set()      # conv/gemm outputs (fusion candidates)
        self.views = set()        # outputs of view ops
        self.style = STYLES[self.r.randint(len(STYLES))]
        self.block = 0

    def name(self, p):
        self.n += 1
        if self.style == "torch":
            if p in ("t",):
                return "/blk%d/%s_output_%d" % (self.n // 5, "Op", self.n)
            return "/blk%d/%s.%d" % (self.n // 5, p, self.n)
        if self.style == "dotted":
            return "%s.%d" % (p, self.n)
        if self.style == "numeric":
            return str(self.n) if p == "t" else "%s.%d" % (p, self.n)
        return "%s%d" % (p, self.n)

    def const(self, arr, p="w"):
        n = self.name(p)
        self.inits.append(numpy_helper.from_array(np.asarray(arr), n))
        return n

    def i64(self, vals, p="c"):
        return self.const(np.array(vals, np.int64), p)

    def f32(self, arr, p="b"):
        return self.const(np.asarray(arr, np.float32), p)

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

    def choice(self, seq):
        return seq[self.r.randint(len(seq))]

    def rint(self, lo, hi):
        """lo..hi inclusive"""
        return int(self.r.randint(lo, hi + 1))


def is4(s):
    return len(s) == 4


def is2(s):
    return len(s) == 2


def numel(s):
    return int(np.prod(s))


# ---------------------------------------------------------------- activations
def act(g, x, a=None):
    a = a or g.choice(ACTS)
    s = g.shapes[x]
    if a == "Clip":
        form = g.r.randint(6)
        if form <= 2:                                   # relu6 and friends
            lo, hi = g.choice([(0.0, 6.0), (0.0, 6.0), (-0.5, 0.5), (-1.0, 1.0), (0.0, 1.0)])
            return g.node("Clip", [x, g.f32(lo, "lo"), g.f32(hi, "hi")], s)
        if form == 3:                                   # min only
            return g.node("Clip", [x, g.f32(g.choice([0.0, -0.25]), "lo")], s)
        if form == 4:                                   # max only
            return g.node("Clip", [x, "", g.f32(g.choice([0.5, 0.0]), "hi")], s)
        if g.r.rand() < 0.1:                            # min > max (refused)
            return g.node("Clip", [x, g.f32(0.5, "lo"), g.f32(-0.5, "hi")], s)
        return g.node("Clip", [x], s)                   # no bounds
    if a in ("SiLU", "HardSwishMul"):                  # x * f(x), either order, as
        if a == "SiLU":                                 # PyTorch exports SiLU and
            f = g.node("Sigmoid", [x], s)               # (opset < 14) HardSwish
        else:
            f = g.node("HardSigmoid", [x], s, alpha=1.0 / 6, beta=0.5)
        return g.node("Mul", [x, f] if g.r.rand() < 0.5 else [f, x], s)
    if a == "GELU":                                     # x (1 + erf(x / sqrt 2)) / 2
        if g.r.rand() < 0.5:
            v = g.node("Div", [x, g.f32(np.sqrt(2.0), "c")], s)
        else:
            c = g.f32(1.0 / np.sqrt(2.0), "c")
            v = g.node("Mul", [x, c] if g.r.rand() < 0.5 else [c, x], s)
        e = g.node("Erf", [v], s)
        one = g.f32(1.0, "c")
        a1 = g.node("Add", [e, one] if g.r.rand() < 0.5 else [one, e], s)
        half = g.f32(0.5, "c")
        if g.r.rand() < 0.5:
            m = g.node("Mul", [x, a1] if g.r.rand() < 0.5 else [a1, x], s)
            return g.node("Mul", [m, half] if g.r.rand() < 0.5 else [half, m], s)
        h = g.node("Mul", [x, half] if g.r.rand() < 0.5 else [half, x], s)
        return g.node("Mul", [h, a1] if g.r.rand() < 0.5 else [a1, h], s)
    if a == "LeakyRelu":
        al = g.choice([0.01, 0.1, 0.2, 1.5]) if g.r.rand() > 0.04 else -0.5   # < 0: refused
        return g.node(a, [x], s, alpha=float(al))
    if a == "HardSigmoid":
        return g.node(a, [x], s, alpha=float(g.choice([0.2, 1.0 / 6])), beta=0.5)
    if a == "Elu":
        return g.node(a, [x], s, alpha=float(g.choice([1.0, 0.5])))
    if a == "Celu":
        return g.node(a, [x], s, alpha=float(g.choice([1.0, 2.0])))
    if a == "ThresholdedRelu":
        return g.node(a, [x], s, alpha=float(g.choice([0.1, 0.5])))
    if a == "PRelu":
        if len(s) == 4 and g.r.rand() < 0.7:
            slope = g.r.uniform(-0.5, 0.5, [s[1], 1, 1])
        elif len(s) >= 2 and g.r.rand() < 0.5:
            slope = g.r.uniform(-0.5, 0.5, [s[-1]])
        else:
            slope = g.r.uniform(-0.5, 0.5, [1])
        return g.node(a, [x, g.f32(slope, "slope")], s)
    return g.node(a, [x], s)


def maybe_act(g, y, p=0.35):
    while g.r.rand() < p:
        y = act(g, y)
        p *= 0.5                                        # chains, shorter and shorter
    return y


def pad_node(g, x, mode=None, zero=None):
    """A Pad of a 4-D tensor over H and W (pads 0..2 each side)."""
    n, c, h, w = g.shapes[x]
    mode = mode or g.choice(["constant"] * 4 + ["reflect", "edge"])
    lim = 2
    p = [0, 0, g.rint(0, lim), g.rint(0, lim), 0, 0, g.rint(0, lim), g.rint(0, lim)]
    if mode == "reflect":                               # reflect needs pad < dim
        p[2], p[6] = min(p[2], h - 1), min(p[6], h - 1)
        p[3], p[7] = min(p[3], w - 1), min(p[7], w - 1)
    ins = [x, g.i64(p, "pads")]
    if mode == "constant" and not (zero if zero is not None else g.r.rand() < 0.8):
        ins.append(g.f32(g.choice([0.5, -1.0]), "pv"))
    return g.node("Pad", ins, [n, c, h + p[2] + p[6], w + p[3] + p[7]], mode=mode)


# ---------------------------------------------------------------- conv family
def conv(g, x):
    if g.r.rand() < 0.25:
        x = pad_node(g, x, zero=g.r.rand() < 0.7)
    n, c, h, w = g.shapes[x]
    kind = g.r.randint(5)
    if kind == 0 and c > 1:
        group, oc = c, c * g.choice([1, 1, 2])                 # depthwise
    elif kind == 1 and c % 2 == 0:
        group, oc = 2, 2 * g.rint(1, 3)                        # grouped
    elif kind == 2 and c % 3 == 0:
        group, oc = 3, 3 * g.rint(1, 2)
    else:                               # 16+ outputs: the Winograd conv's
        group, oc = 1, g.rint(16, 20) if g.r.rand() < 0.15 else g.rint(1, 8)
    kh = g.choice([1, 3, 3, 5]) if min(h, w) >= 5 else g.choice([1, 3])
    kw = kh if g.r.rand() < 0.85 else g.choice([1, 3])
    sh = g.choice([1, 1, 2])
    sw = sh if g.r.rand() < 0.85 else g.choice([1, 2])
    dil = 2 if (kh == 3 and kw == 3 and min(h, w) >= 7 and g.r.rand() < 0.2) else 1
    pads = [g.rint(0, kh // 2), g.rint(0, kw // 2), g.rint(0, kh // 2), g.rint(0, kw // 2)]
    oh = (h + pads[0] + pads[2] - dil * (kh - 1) - 1) // sh + 1
    ow = (w + pads[1] + pads[3] - dil * (kw - 1) - 1) // sw + 1
    if c >= 16 and w >= 12 and g.r.rand() < 0.5:        # the Winograd conv's
        group, oc, kh, kw, sh, sw, dil = 1, g.rint(16, 20), 3, 3, 1, 1, 1
        pads = [g.rint(0, 2) for _ in range(4)]
        oh, ow = h + pads[0] + pads[2] - 2, w + pads[1] + pads[3] - 2
    if oh < 1 or ow < 1:
        kh = kw = sh = sw = dil = 1
        pads = [0, 0, 0, 0]
        oh, ow = h, w
    wt = g.weight([oc, c // group, kh, kw], c // group * kh * kw)
    ins = [x, wt] + ([g.weight([oc], 4)] if g.r.rand() < 0.7 else [])
    y = g.node("Conv", ins, [n, oc, oh, ow], group=group, kernel_shape=[kh, kw],
               strides=[sh, sw], pads=pads, dilations=[dil, dil])
    g.fusable.add(y)
    if g.r.rand() < 0.25:
        y = bn(g, y)
    return y


def conv_transpose(g, x):
    n, c, h, w = g.shapes[x]
    k, s = g.choice([(2, 2), (3, 1), (3, 2), (1, 1)])
    p = g.rint(0, (k - 1) // 2) if k > 1 else 0
    op_ = 1 if (s == 2 and g.r.rand() < 0.3) else 0
    group = 1
    if c % 2 == 0 and g.r.rand() < 0.25:
        group = 2
    oc = group * g.rint(1, 3)
    oh = (h - 1) * s - 2 * p + k + op_
    ow = (w - 1) * s - 2 * p + k + op_
    attrs = dict(kernel_shape=[k, k], strides=[s, s], pads=[p, p, p, p], group=group)
    if op_:
        attrs["output_padding"] = [op_, op_]
    ins = [x, g.weight([c, oc // group, k, k], c * k * k)]
    if g.r.rand() < 0.5:
        ins.append(g.weight([oc], 4))
    return g.node("ConvTranspose", ins, [n, oc, oh, ow], **attrs)


def bn(g, x):
    c = g.shapes[x][1]
    sc = g.f32(g.r.uniform(0.5, 1.5, c), "s")
    bi = g.f32(g.r.uniform(-0.5, 0.5, c), "b")
    me = g.f32(g.r.uniform(-0.5, 0.5, c), "m")
    va = g.f32(g.r.uniform(0.5, 2.0, c), "v")
    return g.node("BatchNormalization", [x, sc, bi, me, va], g.shapes[x],
                  epsilon=float(g.choice([1e-5, 1e-3])))


# ---------------------------------------------------------------- pooling
def pool(g, x):
    if g.r.rand() < 0.2:
        x = pad_node(g, x, mode="constant", zero=True)
    n, c, h, w = g.shapes[x]
    if min(h, w) < 2:
        return g.node("GlobalMaxPool" if g.r.rand() < 0.5 else "GlobalAveragePool", [x],
                      [n, c, 1, 1])
    k = g.choice([2, 3]) if min(h, w) >= 3 else 2
    s = g.choice([1, 2, 2])
    pb = [g.rint(0, k // 2) for _ in range(4)] if g.r.rand() < 0.6 else [0, 0, 0, 0]
    ceil = int(g.r.rand() < 0.3)

    def out(d, p0, p1):
        span = d + p0 + p1 - k
        return ((-(-span // s)) if ceil else span // s) + 1

    oh, ow = out(h, pb[0], pb[2]), out(w, pb[1], pb[3])
    # ceil mode: no window that starts in the end padding (ONNX and ORT
    # changed their minds about it; keep to where everyone agrees)
    if ceil and ((oh - 1) * s >= h + pb[0] or (ow - 1) * s >= w + pb[1]):
        ceil = 0
        oh, ow = out(h, pb[0], pb[2]), out(w, pb[1], pb[3])
    op = g.choice(["MaxPool", "AveragePool"])
    attrs = dict(kernel_shape=[k, k], strides=[s, s], pads=pb, ceil_mode=ceil)
    if op == "AveragePool":
        attrs["count_include_pad"] = int(g.r.rand() < 0.5)
    return g.node(op, [x], [n, c, oh, ow], **attrs)


# ---------------------------------------------------------------- concat
def concat(g, x):
    s = g.shapes[x]
    ax = 1 if (len(s) != 4 or g.r.rand() < 0.75) else g.choice([2, 3, -1])
    axn = ax % len(s)

    def fits(t):
        return len(t) == len(s) and all(t[i] == s[i] for i in range(len(s)) if i != axn)
    same = [t for t in g.shapes if fits(g.shapes[t])]
    k = g.choice([1, 2, 2, 3, 3, 4])
    ins = [x] + [g.choice(same) for _ in range(k - 1)]
    if g.r.rand() < 0.2 and k >= 2:
        ins[1] = x                                      # the same tensor twice
    g.r.shuffle(ins)
    while len(ins) > 1 and sum(g.shapes[t][axn] for t in ins) > 48:
        ins.pop()
    shp = list(s)
    shp[axn] = sum(g.shapes[t][axn] for t in ins)
    g.concat_in.update(ins)
    return g.node("Concat", ins, shp, axis=ax)


# ---------------------------------------------------------------- arithmetic
def binary(g, x):
    s = g.shapes[x]
    op = g.choice(["Add", "Add", "Add", "Mul", "Mul", "Sub", "Div", "Max", "Min", "Sum", "Mean"])
    same = [t for t in g.shapes if g.shapes[t] == s and t != x]
    if op in ("Sum", "Mean"):
        k = g.choice([1, 2, 3, 3])
        ins = [x] + [g.choice(same + [x]) for _ in range(k - 1)]
        return g.node(op, ins, s)
    if op == "Div":                                     # a denominator away from 0
        if same and g.r.rand() < 0.4:
            y = g.choice(same)
            d = g.node("Add", [g.node("Abs", [y], s), g.f32(np.float32(1.0), "one")], s)
        else:
            d = g.f32(g.r.uniform(0.5, 1.5, [s[1], 1, 1] if len(s) == 4 else [s[-1]]) *
                      g.choice([1, -1]), "den")
        return g.node("Div", [x, d], s)
    r = g.r.rand()
    if same and r < 0.55:
        other, bs = g.choice(same), s
    elif len(s) == 4 and r < 0.65:                      # a computed [N,C,1,1]: SE-like
        gp = g.node(g.choice(["GlobalAveragePool", "GlobalMaxPool"]),
                    [g.choice(same + [x])], [s[0], s[1], 1, 1])
        other, bs = act(g, gp, g.choice(["Sigmoid", "HardSigmoid", "Relu", "Tanh"])), None
    else:
        if len(s) == 4:
            bshape = g.choice([[1, s[1], 1, 1], [s[1], 1, 1], [1, 1, s[2], s[3]], [s[3]], [],
                               [1], [s[0], s[1], 1, 1]])
        else:
            bshape = g.choice([[s[-1]], [], [1, s[-1]]])
        other = g.f32(g.r.uniform(-1, 1, bshape), "k")
        if op in ("Mul",) and g.r.rand() < 0.5:
            other = g.f32(g.r.uniform(0.5, 1.5, bshape), "k")
    ins = [x, other] if g.r.rand() < 0.7 else [other, x]
    return g.node(op, ins, s)


def se_block(g, x):
    n, c, h, w = g.shapes[x]
    gp = g.node("GlobalAveragePool", [x], [n, c, 1, 1])
    mid = max(1, c // 2)
    a = g.node("Conv", [gp, g.weight([mid, c, 1, 1], c), g.weight([mid], 4)], [n, mid, 1, 1],
               kernel_shape=[1, 1])
    a = g.node("Relu", [a], [n, mid, 1, 1])
    b = g.node("Conv", [a, g.weight([c, mid, 1, 1], mid), g.weight([c], 4)], [n, c, 1, 1],
               kernel_shape=[1, 1])
    b = act(g, b, g.choice(["Sigmoid", "HardSigmoid"]))
    y = g.node("Mul", [x, b] if g.r.rand() < 0.5 else [b, x], [n, c, h, w])
    if g.r.rand() < 0.5:                                # the projection conv that
        k = g.choice([1, 1, 3])                         # alone reads it (MBConv)
        res = g.r.rand() < 0.4                          # and its residual add
        oc = c if res else g.rint(1, 8)
        ins = [y, g.weight([oc, c, k, k], c * k * k)] + ([g.weight([oc], 4)] if g.r.rand() < 0.7 else [])
        y = g.node("Conv", ins, [n, oc, h, w], kernel_shape=[k, k], pads=[k // 2] * 4)
        g.fusable.add(y)
        if res:
            y = g.node("Add", [y, x] if g.r.rand() < 0.5 else [x, y], [n, c, h, w])
    return y


def mbconv(g, x):
    """An inverted residual block's front: 1x1 expand, its activation (or
    none), a depthwise conv (3x3 or 5x5, stride 1 or 2, multiplier 1) that
    alone reads it, its activation. The host fuses such a pair
    (conv2d_pwdw_cpu) only on maps larger than these graphs' (the expand
    over 256 KiB: tests/onnx/torch's inverted_residual_96 has them); here
    the pair must survive the other fusions around it."""
    n, c, h, w = g.shapes[x]
    m = c * g.choice([2, 3, 4, 6]) if c <= 8 else g.rint(8, 24)
    ins = [x, g.weight([m, c, 1, 1], c)] + ([g.weight([m], 4)] if g.r.rand() < 0.7 else [])
    e = g.node("Conv", ins, [n, m, h, w], kernel_shape=[1, 1])
    if g.r.rand() < 0.7:
        e = act(g, e, g.choice(["Relu", "Clip", "SiLU", "HardSwishMul", "LeakyRelu"]))
    g.fusable.add(e)                # a graph output now and then
    k = g.choice([3, 3, 5]) if min(h, w) >= 5 else 3
    s = g.choice([1, 2])
    p = k // 2
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    ins = [e, g.weight([m, 1, k, k], k * k)] + ([g.weight([m], 4)] if g.r.rand() < 0.7 else [])
    y = g.node("Conv", ins, [n, m, oh, ow], group=m, kernel_shape=[k, k], strides=[s, s],
               pads=[p] * 4)
    if g.r.rand() < 0.7:
        y = act(g, y, g.choice(["Relu", "Clip", "SiLU", "HardSwishMul"]))
    return y


def dwpw(g, x):
    """DS-CNN's and MobileNetV1's small-map chain: a 1x1 conv to 16, 32 or
    48 channels and its activation (or none), a depthwise 3x3 (stride 1, or
    2 with pads 1 or TensorFlow's 0 / 1) and its activation, a 1x1 conv to
    16..40 channels, now and then a whole-plane AveragePool. On maps of up
    to 128 pixels the host packs the 1x1 convs and stores the tensors
    between them channels-last (ln_pass_nhwc_edges); a graph output among
    them (fusable) keeps them NCHW."""
    n, c, h, w = g.shapes[x]
    m = g.choice([16, 32, 48])
    ins = [x, g.weight([m, c, 1, 1], c)] + ([g.weight([m], 4)] if g.r.rand() < 0.7 else [])
    e = g.node("Conv", ins, [n, m, h, w], kernel_shape=[1, 1])
    if g.r.rand() < 0.8:
        e = act(g, e, g.choice(["Relu", "Relu", "Clip", "LeakyRelu", "HardSwishMul"]))
    g.fusable.add(e)
    s, pads = 1, [1, 1, 1, 1]
    if g.r.rand() < 0.35 and min(h, w) >= 2:
        s = 2
        if g.r.rand() < 0.4:
            pads = [0, 0, 1, 1]
    oh, ow = (h + pads[0] + pads[2] - 3) // s + 1, (w + pads[1] + pads[3] - 3) // s + 1
    ins = [e, g.weight([m, 1, 3, 3], 9)] + ([g.weight([m], 4)] if g.r.rand() < 0.7 else [])
    d = g.node("Conv", ins, [n, m, oh, ow], group=m, kernel_shape=[3, 3], strides=[s, s],
               pads=pads)
    if g.r.rand() < 0.8:
        d = act(g, d, g.choice(["Relu", "Relu", "Clip", "LeakyRelu"]))
    g.fusable.add(d)
    oc = g.rint(16, 40)
    ins = [d, g.weight([oc, m, 1, 1], m)] + ([g.weight([oc], 4)] if g.r.rand() < 0.7 else [])
    y = g.node("Conv", ins, [n, oc, oh, ow], kernel_shape=[1, 1])
    if g.r.rand() < 0.7:
        y = act(g, y, g.choice(["Relu", "Clip"]))
    if g.r.rand() < 0.3:
        g.fusable.add(y)
        y = g.node("AveragePool", [y], [n, oc, 1, 1], kernel_shape=[oh, ow])
    return y


# ---------------------------------------------------------------- views
def stem(g, x):
    # conv -> ReLU -> max pool (an ImageNet stem: conv2d_maxpool_cpu where
    # the conv runs the GEMM path), pools of stride 1 and 2, pads < window,
    # ceil mode where no window starts in the end padding
    n, c, h, w = g.shapes[x]
    k = g.choice([1, 3, 3, 5]) if min(h, w) >= 5 else 1
    s = g.choice([1, 2, 2])
    p = g.rint(0, k // 2)
    oh, ow = (h + 2 * p - k) // s + 1, (w + 2 * p - k) // s + 1
    oc = g.rint(1, 12)
    wt = g.weight([oc, c, k, k], c * k * k)
    ins = [x, wt] + ([g.weight([oc], 4)] if g.r.rand() < 0.7 else [])
    y = g.node("Conv", ins, [n, oc, oh, ow], kernel_shape=[k, k], strides=[s, s],
               pads=[p] * 4)
    y = g.node("Relu", [y], [n, oc, oh, ow])
    pk = g.choice([2, 3]) if min(oh, ow) >= 3 else 1
    ps = g.choice([1, 2])
    pp = g.rint(0, pk - 1) if pk > 1 else 0
    ceil = int(g.r.rand() < 0.3)

    def out(d):
        span = d + 2 * pp - pk
        return ((-(-span // ps)) if ceil else span // ps) + 1
    if ceil and ((out(oh) - 1) * ps >= oh + pp or (out(ow) - 1) * ps >= ow + pp):
        ceil = 0
    return g.node("MaxPool", [y], [n, oc, out(oh), out(ow)], kernel_shape=[pk, pk],
                  strides=[ps, ps], pads=[pp] * 4, ceil_mode=ceil)


def view(g, x):
    s = g.shapes[x]
    n = s[0]
    v = g.r.randint(7)
    if v == 0 and is4(s):                               # Reshape -> act -> Reshape
        rs = g.node("Reshape", [x, g.i64([n, s[1], -1], "sh")], [n, s[1], numel(s[2:])])
        g.views.add(rs)
        y = g.node("Reshape", [act(g, rs), g.i64(s, "sh")], s)
    elif v == 1:                                        # Unsqueeze -> Squeeze
        ax = g.rint(0, len(s))
        us = list(s)
        us.insert(ax, 1)
        u = g.node("Unsqueeze", [x, g.i64([ax], "ax")], us)
        g.views.add(u)
        y = g.node("Squeeze", [u, g.i64([ax], "ax")], s)
    elif v == 2 and is4(s):                             # Reshape -> Reshape
        rs = g.node("Reshape", [x, g.i64([n, -1], "sh")], [n, numel(s[1:])])
        g.views.add(rs)
        y = g.node("Reshape", [rs, g.i64([0, s[1], s[2], s[3]], "sh")], s)
    elif v == 3:
        y = g.node(g.choice(["Identity", "Dropout"]), [x], s)
    elif v == 4 and is4(s):                             # Flatten, a 2-D tensor to go on with
        ax = g.choice([1, 1, 2])
        y = g.node("Flatten", [x], [numel(s[:ax]), numel(s[ax:])], axis=ax)
    elif v == 5 and is4(s):                             # Squeeze of a 1 dim
        ones = [i for i in range(1, 4) if s[i] == 1]
        if not ones:
            return g.node("Reshape", [x, g.i64(s, "sh")], s)
        ax = g.choice(ones)
        sq = [d for i, d in enumerate(s) if i != ax]
        q = g.node("Squeeze", [x, g.i64([ax], "ax")], sq)
        g.views.add(q)
        q = maybe_act(g, q, 0.5)
        y = g.node("Unsqueeze", [q, g.i64([ax], "ax")], s)
    else:                                               # a view read alongside its source
        y = g.node("Reshape", [x, g.i64([-1] + s[1:], "sh")], s)
    g.views.add(y)
    return y


# ---------------------------------------------------------------- shuffles
def split(g, x):
    s = g.shapes[x]
    axes = [i for i in range(1, len(s)) if s[i] >= 2]
    if not axes:
        return act(g, x)
    ax = g.choice(axes)
    d = s[ax]
    k = g.rint(2, min(3, d))
    cuts = sorted(g.r.choice(range(1, d), k - 1, replace=False).tolist())
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [d])]
    shapes = []
    for z in sizes:
        t = list(s)
        t[ax] = z
        shapes.append(t)
    ins = [x]
    if len(set(sizes)) > 1 or g.r.rand() < 0.5:
        ins.append(g.i64(sizes, "split"))
    ys = g.node("Split", ins, None, nout=k, shapes=shapes, axis=ax)
    return ys[g.r.randint(k)]


def transpose(g, x):
    s = g.shapes[x]
    perm = list(g.r.permutation(len(s)))
    perm = [int(p) for p in perm]
    t = g.node("Transpose", [x], [s[p] for p in perm], perm=perm)
    if g.r.rand() < 0.5:                                # and back, after an op
        t = maybe_act(g, t, 0.8)
        inv = [perm.index(i) for i in range(len(s))]
        t = g.node("Transpose", [t], s, perm=inv)
    return t


def slice_(g, x):
    s = g.shapes[x]
    axes = [i for i in range(len(s)) if s[i] >= 2 or (i > 0 and g.r.rand() < 0.2)]
    if not axes:
        return act(g, x)
    nax = g.rint(1, min(2, len(axes)))
    sel = sorted(g.r.choice(axes, nax, replace=False).tolist())
    starts, ends, steps, shp = [], [], [], list(s)
    for ax in sel:
        d = s[ax]
        st = g.choice([1, 1, 1, 2, -1])
        if st > 0:
            b = g.rint(0, d - 1)
            e = g.rint(b + 1, d)
            cnt = -(-(e - b) // st)
            if g.r.rand() < 0.3:
                b -= d                                  # negative start
            if g.r.rand() < 0.2 and e == d:
                e = 2 ** 31 - 1                         # "to the end"
        else:
            b = g.rint(0, d - 1)
            e = g.rint(-1, b - 1)
            cnt = b - e
            if e == -1:
                e = -d - 1                              # through index 0
        starts.append(b)
        ends.append(e)
        steps.append(st)
        shp[ax] = cnt
    if g.r.rand() < 0.3:
        sel = [a - len(s) for a in sel]                 # negative axes
    ins = [x, g.i64(starts, "sb"), g.i64(ends, "se"), g.i64(sel, "sa")]
    if any(st != 1 for st in steps) or g.r.rand() < 0.3:
        ins.append(g.i64(steps, "ss"))
    return g.node("Slice", ins, shp)


def softmax(g, x):
    s = g.shapes[x]
    ax = g.rint(-len(s), len(s) - 1)
    return g.node(g.choice(["Softmax", "Softmax", "LogSoftmax"]), [x], s, axis=ax)


# ---------------------------------------------------------------- matrix ops
def matmul(g, x):
    s = g.shapes[x]
    if len(s) >= 3 and s[-1] * s[-2] <= 100 and g.r.rand() < 0.35:    # x @ x^T
        perm = list(range(len(s)))
        perm[-1], perm[-2] = perm[-2], perm[-1]
        xt = g.node("Transpose", [x], [s[p] for p in perm], perm=perm)
        if g.r.rand() < 0.5:
            return g.node("MatMul", [x, xt], s[:-1] + [s[-2]])
        return g.node("MatMul", [xt, x], s[:-2] + [s[-1], s[-1]])
    o = g.rint(1, 7)
    if g.r.rand() < 0.8:
        return g.node("MatMul", [x, g.weight([s[-1], o], s[-1])], s[:-1] + [o])
    return g.node("MatMul", [g.weight([o, s[-2]], s[-2]), x], s[:-2] + [o, s[-1]])


def gemm(g, x):
    s = g.shapes[x]
    if not is2(s):
        f = g.node("Flatten", [x], [s[0], numel(s[1:])], axis=1)
        g.views.add(f)
        x, s = f, g.shapes[f]
    m, k = s
    o = g.rint(1, 10)
    ta = int(g.r.rand() < 0.15)
    tb = int(g.r.rand() < 0.6)
    a = x
    if ta:                                              # feed A transposed, gemm undoes it
        a = g.node("Transpose", [x], [k, m], perm=[1, 0])
    wt = g.weight([o, k] if tb else [k, o], k)
    attrs = dict(transA=ta, transB=tb)
    if g.r.rand() < 0.3:
        attrs["alpha"] = float(g.choice([0.5, 2.0]))
    ins = [a, wt]
    if g.r.rand() < 0.8:
        ins.append(g.f32(g.r.uniform(-0.5, 0.5, g.choice([[o], [1, o], [m, o], [1]])), "gb"))
        if g.r.rand() < 0.3:
            attrs["beta"] = float(g.choice([0.5, 2.0]))
    y = g.node("Gemm", ins, [m, o], **attrs)
    g.fusable.add(y)
    if g.r.rand() < 0.2:
        y = bn(g, y)
    return y


def step2(g):
    """An op on a 2-D tensor (an MLP after a Flatten)."""
    x = g.pick(is2)
    r = g.r.rand()
    if r < 0.35:
        y = gemm(g, x)
    elif r < 0.5:
        y = act(g, x)
    elif r < 0.6:
        y = binary(g, x)
    elif r < 0.7:
        y = concat(g, x)
    elif r < 0.8:
        y = softmax(g, x)
    elif r < 0.9:                                       # back to 4-D
        m, k = g.shapes[x]
        y = g.node("Reshape", [x, g.i64([m, k, 1, 1], "sh")], [m, k, 1, 1])
        g.views.add(y)
    else:
        y = bn(g, x)
    return maybe_act(g, y, 0.3)


# ---------------------------------------------------------------- the rest
def misc(g, x):
    n, c, h, w = g.shapes[x]
    v = g.r.randint(6)
    if v == 0 and h * w <= 64:                          # Resize x2 (or 1.5) nearest / linear
        mode = g.choice(["nearest", "nearest", "linear"])
        sc = g.choice([2.0, 2.0, 3.0])
        attrs = dict(mode=mode)
        if mode == "nearest":
            attrs["coordinate_transformation_mode"] = g.choice(["asymmetric", "half_pixel"])
            attrs["nearest_mode"] = g.choice(["floor", "round_prefer_floor"])
        else:
            attrs["coordinate_transformation_mode"] = g.choice(
                ["half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"])
        sc_t = g.f32([1.0, 1.0, sc, sc], "scales")
        return g.node("Resize", [x, "", sc_t], [n, c, int(h * sc), int(w * sc)], **attrs)
    if v == 1 and h % 2 == 0 and w % 2 == 0:
        return g.node("SpaceToDepth", [x], [n, c * 4, h // 2, w // 2], blocksize=2)
    if v == 2 and c % 4 == 0:
        return g.node("DepthToSpace", [x], [n, c // 4, h * 2, w * 2], blocksize=2,
                      mode=g.choice(["DCR", "CRD"]))
    if v == 3:                                          # Expand a [N,C,1,1] to [N,C,H,W]
        gp = g.node("GlobalAveragePool", [x], [n, c, 1, 1])
        y = g.node("Expand", [gp, g.i64([n, c, h, w], "es")], [n, c, h, w])
        return g.node("Add", [y, x], [n, c, h, w])
    if v == 4 and h * w <= 36:
        reps = [1, g.choice([1, 2]), g.choice([1, 2]), g.choice([1, 2])]
        return g.node("Tile", [x, g.i64(reps, "rep")], [n, c * reps[1], h * reps[2], w * reps[3]])
    # InstanceNormalization, ReduceMean over H, W
    if g.r.rand() < 0.5 and h * w > 1:
        return g.node("InstanceNormalization",
                      [x, g.f32(g.r.uniform(0.5, 1.5, c), "s"), g.f32(g.r.uniform(-.5, .5, c), "b")],
                      [n, c, h, w], epsilon=1e-5)
    return g.node("ReduceMean", [x], [n, c, 1, 1], axes=[2, 3], keepdims=1)


def const_subgraph(g, x):
    """Constants computed by ops (folded at compile time), then used."""
    n, c, h, w = g.shapes[x]
    if g.r.rand() < 0.5:                                # a conv weight made by a Transpose
        oc = g.rint(1, 6)
        wsrc = g.weight([c, oc, 1, 1], c)
        wt = g.node("Transpose", [wsrc], [oc, c, 1, 1], perm=[1, 0, 2, 3])
        del g.shapes[wt]                                # a constant, not for the pool
        return g.node("Conv", [x, wt], [n, oc, h, w], kernel_shape=[1, 1])
    a = g.f32(g.r.uniform(-1, 1, [1, c, 1, 1]), "ca")
    b = g.f32(g.r.uniform(-1, 1, [1, c, 1, 1]), "cb")
    k = g.node(g.choice(["Add", "Mul", "Sub"]), [a, b], [1, c, 1, 1])
    k = g.node("Relu", [k], [1, c, 1, 1])
    del g.shapes[k]
    return g.node(g.choice(["Add", "Mul"]), [x, k], [n, c, h, w])


def step(g):
    if any(is2(s) for s in g.shapes.values()) and g.r.rand() < 0.15:
        return step2(g)
    x = g.pick(is4)
    n, c, h, w = g.shapes[x]
    r = g.r.rand()
    if r < 0.14:
        y = conv(g, x)
    elif r < 0.28:
        y = concat(g, x)
    elif r < 0.39:
        y = binary(g, x)
    elif r < 0.47:
        y = act(g, x)
    elif r < 0.51:
        y = bn(g, x)
    elif r < 0.57:
        y = pool(g, x)
    elif r < 0.59:
        y = g.node(g.choice(["GlobalAveragePool", "GlobalMaxPool"]), [x], [n, c, 1, 1])
    elif r < 0.63:
        y = split(g, x)
    elif r < 0.70:
        y = view(g, x)
    elif r < 0.73:
        y = transpose(g, x)
    elif r < 0.77:
        y = slice_(g, x)
    elif r < 0.79:
        y = softmax(g, x)
    elif r < 0.83:
        y = matmul(g, x)
    elif r < 0.85 and h * w <= 64:
        y = conv_transpose(g, x)
    elif r < 0.87:
        y = se_block(g, x)
    elif r < 0.90:
        y = gemm(g, x)
    elif r < 0.915:
        y = stem(g, x)
    elif r < 0.95:
        y = misc(g, x)
    elif r < 0.97:
        y = const_subgraph(g, x)
    elif r < 0.975:
        y = mbconv(g, x)
    elif r < 0.995 and h * w <= 128:
        y = dwpw(g, x)
    else:
        y = act(g, x)
    return maybe_act(g, y)


def gen(seed):
    g = G(seed)
    r = g.r
    ninp = g.choice([1, 1, 1, 2, 2, 3])
    nb = 1 if r.rand() < 0.8 else 2
    h, w = g.rint(1, 10), g.rint(1, 10)
    if r.rand() < 0.15:
        h, w = g.rint(8, 16), g.rint(8, 16)
    # 16+ channels on maps 12+ wide: what the Winograd conv takes
    wide = r.rand() < 0.1
    if wide:
        h, w = g.rint(4, 20), g.rint(12, 24)
    inputs = []
    for i in range(ninp):
        nm = "in%d" % i if g.style != "torch" else "input.%d" % (i + 1)
        c = g.rint(16, 18) if wide else g.rint(1, 5)
        g.shapes[nm] = [nb, c, h, w]
        g.uses[nm] = 0
        inputs.append((nm, r.uniform(-1, 1, [nb, c, h, w]).astype(np.float32)))
    nsteps = g.rint(2, 13) if r.rand() < 0.85 else g.rint(14, 32)
    last = None
    for _ in range(nsteps):
        last = step(g)
        # keep the pool small enough that every shape stays bounded
        if sum(numel(s) for s in g.shapes.values()) > 60000:
            break
    # outputs: the last tensor, sometimes others (also read by later ops,
    # concat inputs, fusable conv/gemm outputs, views), a view of an input
    outs = [last]
    innames = [nm for nm, _ in inputs]
    cands = [t for t in g.shapes if t not in innames and t != last]
    special = [t for t in cands if t in g.concat_in or t in g.fusable or t in g.views]
    for _ in range(g.choice([0, 0, 1, 1, 2, 3])):
        pool_ = special if (special and r.rand() < 0.6) else cands
        if pool_:
            t = g.choice(pool_)
            if t not in outs:
                outs.append(t)
    if r.rand() < 0.08:                                 # a view of a graph input as an output
        x = g.choice(innames)
        s = g.shapes[x]
        kind = g.r.randint(3)
        if kind == 0:
            v = g.node("Identity", [x], s)
        elif kind == 1:
            v = g.node("Flatten", [x], [s[0], numel(s[1:])], axis=1)
        else:
            v = g.node("Reshape", [x, g.i64([s[0], -1], "sh")], [s[0], numel(s[1:])])
        outs.append(v)
    graph = helper.make_graph(
        g.nodes, "difftest_%d" % seed,
        [helper.make_tensor_value_info(nm, TensorProto.FLOAT, g.shapes[nm]) for nm in innames],
        [helper.make_tensor_value_info(t, TensorProto.FLOAT, g.shapes[t]) for t in outs],
        g.inits)
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="lightnet-difftest")
    m.ir_version = 8
    return m, inputs


def check(seed):
    """The generator's own shapes against ONNX's shape inference."""
    m, _ = gen(seed)
    onnx.checker.check_model(m, full_check=True)
    inf = onnx.shape_inference.infer_shapes(m, strict_mode=True)
    known = {}
    for vi in list(inf.graph.value_info) + list(inf.graph.output):
        d = [x.dim_value for x in vi.type.tensor_type.shape.dim]
        known[vi.name] = d
    for o in m.graph.output:
        want = [x.dim_value for x in o.type.tensor_type.shape.dim]
        if o.name in known and known[o.name] != want:
            raise SystemExit("seed %d: output %s: generator %s, onnx %s" % (seed, o.name, want, known[o.name]))
    return m


if __name__ == "__main__":
    import sys
    if len(sys.argv) > 2 and sys.argv[1] == "--check":
        a, b = int(sys.argv[2]), int(sys.argv[3])
        for s in range(a, b):
            check(s)
        print("seeds %d..%d: generator shapes agree with onnx shape inference" % (a, b - 1))
        sys.exit(0)
    m = check(int(sys.argv[1]) if len(sys.argv) > 1 else 1)
    print(helper.printable_graph(m.graph))
