#!/usr/bin/env python3
"""QDQ test models (the layout ONNX Runtime's quantizer writes: int8
activations as QuantizeLinear -> DequantizeLinear pairs, int8 weights and
int32 biases as constants behind DequantizeLinear), each calibrated on
its own input with a float forward pass in numpy: <name>.onnx, the input
<name>.in.bin (raw float32), ONNX Runtime's output <name>.ref.bin
(onnxruntime-node, graph optimizations off: the plain QDQ semantics; run
`sh bench/setup.sh` first) and <name>.scale (the output's quantization
step).  Committed; tests/onnx/qdq/check.sh runs them.

  /usr/bin/python3 tests/onnx/qdq/make_qdq.py
"""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
R = np.random.RandomState(7)


class Builder:
    def __init__(self):
        self.nodes, self.inits, self.n = [], {}, 0

    def name(self, p):
        self.n += 1
        return "%s%d" % (p, self.n)

    def const(self, p, v):
        n = self.name(p)
        self.inits[n] = v
        return n

    def node(self, op, ins, **attrs):
        out = self.name(op.lower() + "_")
        self.nodes.append(helper.make_node(op, ins, [out], name=out, **attrs))
        return out

    def qdq(self, x, v):
        """Q -> DQ of float tensor x whose calibration values are v."""
        lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
        scale = np.float32(max(hi - lo, 1e-6) / 255.0)
        zp = np.int8(np.clip(np.round(-128 - lo / scale), -128, 127))
        s, z = self.const("s", np.array(scale, np.float32)), self.const("z", np.array(zp, np.int8))
        q = self.node("QuantizeLinear", [x, s, z])
        return self.node("DequantizeLinear", [q, s, z]), float(scale), int(zp)

    def qdq_u8(self, x, v):
        """Q -> DQ with uint8 activations (ONNX Runtime's other default)."""
        lo, hi = min(float(v.min()), 0.0), max(float(v.max()), 0.0)
        scale = np.float32(max(hi - lo, 1e-6) / 255.0)
        zp = np.uint8(np.clip(np.round(-lo / scale), 0, 255))
        s, z = self.const("s", np.array(scale, np.float32)), self.const("z", np.array(zp, np.uint8))
        q = self.node("QuantizeLinear", [x, s, z])
        return self.node("DequantizeLinear", [q, s, z]), float(scale), int(zp)

    def weight(self, w, axis=None, zp=0):
        """int8 weight constant + DQ: per channel along axis, else per tensor."""
        if axis is None:
            s = np.float32(np.abs(w).max() / 127.0)
            q = np.clip(np.round(w / s) + zp, -128, 127).astype(np.int8)
            sc, deq = np.array(s, np.float32), (q.astype(np.float32) - zp) * s
            zc = np.array(zp, np.int8)
            ins = [self.const("wq", q), self.const("ws", sc), self.const("wz", zc)]
            return self.node("DequantizeLinear", ins), deq, np.full(w.shape[0 if w.ndim == 4 else 1], s)
        red = tuple(i for i in range(w.ndim) if i != axis)
        s = (np.abs(w).max(axis=red) / 127.0).astype(np.float32)
        shp = [1] * w.ndim
        shp[axis] = -1
        q = np.clip(np.round(w / s.reshape(shp)), -128, 127).astype(np.int8)
        ins = [self.const("wq", q), self.const("ws", s), self.const("wz", np.zeros(s.shape, np.int8))]
        return (self.node("DequantizeLinear", ins, axis=axis),
                q.astype(np.float32) * s.reshape(shp), s)

    def bias(self, b, x_scale, w_scales):
        s = (np.float32(x_scale) * w_scales.astype(np.float32)).astype(np.float32)
        q = np.round(b / s).astype(np.int32)
        ins = [self.const("bq", q), self.const("bs", s), self.const("bz", np.zeros(s.shape, np.int32))]
        return self.node("DequantizeLinear", ins, axis=0), q.astype(np.float32) * s


def conv(x, w, b, stride=1, pad=0, group=1):
    n, c, h, wd = x.shape
    oc, cg, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = (h + 2 * pad - kh) // stride + 1, (wd + 2 * pad - kw) // stride + 1
    y = np.zeros((n, oc, oh, ow), np.float64)
    og = oc // group
    for o in range(oc):
        g = o // og
        for i in range(cg):
            for ky in range(kh):
                for kx in range(kw):
                    y[:, o] += w[o, i, ky, kx] * xp[:, g * cg + i, ky:ky + stride * oh:stride,
                                                    kx:kx + stride * ow:stride]
        if b is not None:
            y[:, o] += b[o]
    return y.astype(np.float32)


def cnn(B):
    """conv+relu (per-channel), depthwise stride 2 + relu6, 1x1 conv (per
    tensor, no bias), a float maxpool between Q/DQ, flatten, gemm."""
    x = R.uniform(-1, 1, (1, 3, 12, 12)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    w1, wd1, ws1 = B.weight(R.normal(0, 0.3, (8, 3, 3, 3)).astype(np.float32), axis=0)
    b1, bd1 = B.bias(R.normal(0, 0.2, 8).astype(np.float32), sx, ws1)
    v = np.maximum(conv(x, wd1, bd1, pad=1), 0)
    t = B.node("Relu", [B.node("Conv", [t, w1, b1], pads=[1, 1, 1, 1])])
    t, sx, _ = B.qdq(t, v)
    w2, wd2, ws2 = B.weight(R.normal(0, 0.5, (8, 1, 3, 3)).astype(np.float32), axis=0)
    b2, bd2 = B.bias(R.normal(0, 0.2, 8).astype(np.float32), sx, ws2)
    v = np.clip(conv(v, wd2, bd2, stride=2, pad=1, group=8), 0, 6)
    t = B.node("Conv", [t, w2, b2], pads=[1, 1, 1, 1], strides=[2, 2], group=8)
    t = B.node("Clip", [t, B.const("lo", np.array(0, np.float32)), B.const("hi", np.array(6, np.float32))])
    t, sx, _ = B.qdq(t, v)
    w3, wd3, _ = B.weight(R.normal(0, 0.4, (16, 8, 1, 1)).astype(np.float32))
    v = conv(v, wd3, None)
    t, sx, _ = B.qdq(B.node("Conv", [t, w3]), v)
    v = v.reshape(1, 16, 3, 2, 3, 2).max(axis=(3, 5))
    t, sx, _ = B.qdq(B.node("MaxPool", [t], kernel_shape=[2, 2], strides=[2, 2]), v)
    t = B.node("Flatten", [t])
    v = v.reshape(1, -1)
    w4, wd4, ws4 = B.weight(R.normal(0, 0.2, (10, 144)).astype(np.float32), axis=0)
    b4, bd4 = B.bias(R.normal(0, 0.2, 10).astype(np.float32), sx, ws4)
    v = v @ wd4.T + bd4
    t, s_out, _ = B.qdq(B.node("Gemm", [t, w4, b4], transB=1), v)
    return x, t, s_out, [1, 10]


def mlp(B):
    """gemm with asymmetric per-tensor weights and a float bias, relu,
    matmul with per-channel weights, a batch of 4."""
    x = R.uniform(-2, 2, (4, 32)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    w1, wd1, _ = B.weight(R.normal(0, 0.3, (32, 24)).astype(np.float32), zp=5)
    b1 = R.normal(0, 0.3, 24).astype(np.float32)
    v = np.maximum(x @ wd1 + b1, 0)
    t = B.node("Relu", [B.node("Gemm", [t, w1, B.const("b", b1)])])
    t, sx, _ = B.qdq(t, v)
    w2, wd2, _ = B.weight(R.normal(0, 0.3, (24, 8)).astype(np.float32), axis=1)
    v = v @ wd2
    t, s_out, _ = B.qdq(B.node("MatMul", [t, w2]), v)
    return x, t, s_out, [4, 8]


def keep(B):
    """What the int8 kernels cannot take stays float between its Q/DQ
    pairs and must still be right: uint8 weights, asymmetric int8 conv
    weights, an add that broadcasts, an average pool counting padding
    with a zero point that is not 0."""
    x = R.uniform(-1, 1, (1, 4, 6, 6)).astype(np.float32)
    t, sx, _ = B.qdq_u8("x", x)
    w = R.normal(0, 0.3, (4, 4, 3, 3)).astype(np.float32)
    ws = np.float32((w.max() - w.min()) / 255)
    wz = np.uint8(np.round(-w.min() / ws))
    wq = np.clip(np.round(w / ws) + wz, 0, 255).astype(np.uint8)
    w1 = B.node("DequantizeLinear", [B.const("wq", wq), B.const("ws", np.array(ws)),
                                     B.const("wz", np.array(wz))])
    wd1 = (wq.astype(np.float32) - wz) * ws
    v = conv(x, wd1, None, pad=1)
    t, sx, _ = B.qdq(B.node("Conv", [t, w1], pads=[1, 1, 1, 1]), v)
    w2, wd2, _ = B.weight(R.normal(0, 0.3, (4, 4, 1, 1)).astype(np.float32), zp=4)
    v2 = conv(v, wd2, None)
    t2, _, _ = B.qdq(B.node("Conv", [t, w2]), v2)
    g = R.uniform(-1, 1, (1, 4, 1, 1)).astype(np.float32)
    gq, _, _ = B.qdq(B.const("g", g), g)
    v = v2 + g
    t, _, _ = B.qdq(B.node("Add", [t2, gq]), v)
    v = np.pad(v, ((0, 0), (0, 0), (1, 1), (1, 1))).reshape(1, 4, 4, 2, 4, 2).mean(axis=(3, 5))
    t, s_out, _ = B.qdq(B.node("AveragePool", [t], kernel_shape=[2, 2], strides=[2, 2],
                               pads=[1, 1, 1, 1], count_include_pad=1), v)
    return x, t, s_out, [1, 4, 4, 4]


def qop(B):
    """The QOperator form (what tf2onnx writes for a TFLite int8 model):
    QLinearConv with per-channel int8 weights and an int32 bias, then
    QLinearMatMul, all int8."""
    x = R.uniform(-1, 1, (1, 2, 6, 6)).astype(np.float32)
    sx, zx = np.float32(2.0 / 255), np.int8(-1)
    xq = B.node("QuantizeLinear", ["x", B.const("s", np.array(sx)), B.const("z", np.array(zx))])
    w = R.normal(0, 0.3, (4, 2, 3, 3)).astype(np.float32)
    ws = (np.abs(w).max(axis=(1, 2, 3)) / 127).astype(np.float32)
    wq = np.round(w / ws.reshape(-1, 1, 1, 1)).astype(np.int8)
    b = np.round(R.normal(0, 0.2, 4) / (sx * ws)).astype(np.int32)
    sy, zy = np.float32(0.02), np.int8(3)
    y = B.node("QLinearConv", [xq, B.const("s", np.array(sx)), B.const("z", np.array(zx)),
                               B.const("w", wq), B.const("ws", ws),
                               B.const("wz", np.zeros(4, np.int8)),
                               B.const("s", np.array(sy)), B.const("z", np.array(zy)),
                               B.const("b", b)], pads=[1, 1, 1, 1], strides=[2, 2])
    y = B.node("Reshape", [y, B.const("shape", np.array([1, 36], np.int64))])
    m = R.normal(0, 0.3, (36, 5)).astype(np.float32)
    ms = np.float32(np.abs(m).max() / 127)
    s_out, z_out = np.float32(0.05), np.int8(-2)
    y = B.node("QLinearMatMul", [y, B.const("s", np.array(sy)), B.const("z", np.array(zy)),
                                 B.const("m", np.round(m / ms).astype(np.int8)),
                                 B.const("ms", np.array(ms)), B.const("mz", np.array(0, np.int8)),
                                 B.const("s", np.array(s_out)), B.const("z", np.array(z_out))])
    B.node("DequantizeLinear", [y, B.const("s", np.array(s_out)), B.const("z", np.array(z_out))])
    return x, None, float(s_out), [1, 5]


def u8(B):
    """ONNX Runtime's default U8S8 layout: uint8 activations, int8
    per-channel weights; a conv, a residual add and a gemm, which the
    compiler runs int8 (a uint8 activation read only by its DQs is the int8
    one shifted by 128)."""
    x = R.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32)
    t0, sx, _ = B.qdq_u8("x", x)
    w1, wd1, ws1 = B.weight(R.normal(0, 0.3, (3, 3, 3, 3)).astype(np.float32), axis=0)
    b1, bd1 = B.bias(R.normal(0, 0.2, 3).astype(np.float32), sx, ws1)
    v = np.maximum(conv(x, wd1, bd1, pad=1), 0)
    t, sy, _ = B.qdq_u8(B.node("Relu", [B.node("Conv", [t0, w1, b1], pads=[1, 1, 1, 1])]), v)
    v = v + x
    t, sy, _ = B.qdq_u8(B.node("Add", [t, t0]), v)
    t = B.node("Flatten", [t])
    v = v.reshape(1, -1)
    w2, wd2, ws2 = B.weight(R.normal(0, 0.1, (6, 192)).astype(np.float32), axis=0)
    b2, bd2 = B.bias(R.normal(0, 0.2, 6).astype(np.float32), sy, ws2)
    v = v @ wd2.T + bd2
    t, s_out, _ = B.qdq_u8(B.node("Gemm", [t, w2, b2], transB=1), v)
    return x, t, s_out, [1, 6]


def branches(B):
    """Two conv branches at their own scales, concatenated at a third
    (both requantized), a global average pool to a fourth scale, a
    requantization of a Q/DQ pair, a gemm: all int8."""
    x = R.uniform(-1, 1, (1, 3, 7, 7)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    outs, vals = [], []
    for oc, sd in ((4, 0.3), (5, 0.6)):
        w, wd, ws = B.weight(R.normal(0, sd, (oc, 3, 3, 3)).astype(np.float32), axis=0)
        b, bd = B.bias(R.normal(0, 0.2, oc).astype(np.float32), sx, ws)
        v = np.maximum(conv(x, wd, bd, pad=1), 0)
        o, _, _ = B.qdq(B.node("Relu", [B.node("Conv", [t, w, b], pads=[1, 1, 1, 1])]), v)
        outs.append(o)
        vals.append(v)
    v = np.concatenate(vals, axis=1)
    t, _, _ = B.qdq(B.node("Concat", outs, axis=1), v * 1.5)
    v = v.mean(axis=(2, 3), keepdims=True)
    t, _, _ = B.qdq(B.node("GlobalAveragePool", [t]), v)
    t, _, _ = B.qdq(t, v * 0.7)
    t = B.node("Flatten", [t])
    v = v.reshape(1, -1)
    w, wd, ws = B.weight(R.normal(0, 0.3, (4, 9)).astype(np.float32), axis=0)
    b, bd = B.bias(R.normal(0, 0.2, 4).astype(np.float32), 1.0, ws)
    v = v @ wd.T
    t, s_out, _ = B.qdq(B.node("Gemm", [t, w], transB=1), v)
    return x, t, s_out, [1, 4]


def acts(B):
    """Elementwise functions between Q/DQ pairs, each a 256-entry table:
    Sigmoid, Tanh, HardSigmoid, LeakyRelu, Elu after a conv (the float
    Mul/Sub between them stay float)."""
    x = R.uniform(-1, 1, (1, 3, 6, 6)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    w, wd, ws = B.weight(R.normal(0, 0.6, (4, 3, 3, 3)).astype(np.float32), axis=0)
    b, bd = B.bias(R.normal(0, 0.2, 4).astype(np.float32), sx, ws)
    v = conv(x, wd, bd, pad=1)
    t, _, _ = B.qdq(B.node("Conv", [t, w, b], pads=[1, 1, 1, 1]), v)
    v = 1 / (1 + np.exp(-v))
    t, _, _ = B.qdq(B.node("Sigmoid", [t]), v)
    v = np.tanh(v * 3 - 1.5)
    t = B.node("Sub", [B.node("Mul", [t, B.const("k", np.array(3, np.float32))]),
                       B.const("k", np.array(1.5, np.float32))])
    t, _, _ = B.qdq(t, v * 3)
    t, _, _ = B.qdq(B.node("Tanh", [t]), v)
    v = np.clip(0.2 * v + 0.5, 0, 1) - 0.5
    t = B.node("Sub", [B.node("HardSigmoid", [t]), B.const("k", np.array(0.5, np.float32))])
    t, _, _ = B.qdq(t, v)
    v = np.where(v > 0, v, 0.1 * v)
    t, _, _ = B.qdq(B.node("LeakyRelu", [t], alpha=0.1), v)
    v = np.where(v > 0, v, np.exp(v) - 1)
    t, s_out, _ = B.qdq(B.node("Elu", [t]), v)
    return x, t, s_out, [1, 4, 6, 6]


def se(B):
    """A squeeze-excitation block as MobileNetV3 / EfficientNet have it:
    x * sigmoid(conv(relu(conv(global_pool(x))))), the gate broadcast over
    the plane, then x * hardsigmoid(x) (opset 13's HardSwish), and a
    broadcasting residual add of a per-channel constant."""
    x = R.uniform(-1, 1, (1, 8, 5, 5)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    v = x.mean(axis=(2, 3), keepdims=True)
    g, sg, _ = B.qdq(B.node("GlobalAveragePool", [t]), v)
    w1, wd1, ws1 = B.weight(R.normal(0, 0.5, (4, 8, 1, 1)).astype(np.float32), axis=0)
    b1, bd1 = B.bias(R.uniform(0.1, 0.4, 4).astype(np.float32), sg, ws1)
    v = np.maximum(conv(v, wd1, bd1), 0)
    g, sg, _ = B.qdq(B.node("Relu", [B.node("Conv", [g, w1, b1])]), v)
    w2, wd2, ws2 = B.weight(R.normal(0, 0.5, (8, 4, 1, 1)).astype(np.float32), axis=0)
    b2, bd2 = B.bias(R.normal(0, 0.2, 8).astype(np.float32), sg, ws2)
    v = conv(v, wd2, bd2)
    g, _, _ = B.qdq(B.node("Conv", [g, w2, b2]), v)
    v = 1 / (1 + np.exp(-v))
    g, _, _ = B.qdq(B.node("Sigmoid", [g]), v)
    v = x * v
    t, _, _ = B.qdq(B.node("Mul", [t, g]), v)
    h = np.clip(v / 6 + 0.5, 0, 1)
    hs, _, _ = B.qdq(B.node("HardSigmoid", [t], alpha=1.0 / 6, beta=0.5), h)
    v = v * h
    t, _, _ = B.qdq(B.node("Mul", [t, hs]), v)
    c = R.uniform(-0.5, 0.5, (1, 8, 1, 1)).astype(np.float32)
    cq, _, _ = B.qdq(B.const("c", c), c)
    v = v + c
    t, s_out, _ = B.qdq(B.node("Add", [t, cq]), v)
    return x, t, s_out, [1, 8, 5, 5]


def conv1d(B):
    """An audio-style 1-D model (nn.Conv1d): conv + relu, a strided conv,
    the importer's unsqueeze/squeeze views around each conv, a MatMul on
    the flattened features: int8 throughout."""
    x = R.uniform(-1, 1, (1, 4, 20)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    w1, wd1, ws1 = B.weight(R.normal(0, 0.4, (6, 4, 3)).astype(np.float32), axis=0)
    b1, bd1 = B.bias(R.normal(0, 0.2, 6).astype(np.float32), sx, ws1)
    # pads 1 on the time axis only
    v = np.maximum(conv(np.pad(x, ((0, 0), (0, 0), (1, 1)))[:, :, None, :],
                        wd1[:, :, None, :], bd1)[:, :, 0, :], 0)
    t, sy, _ = B.qdq(B.node("Relu", [B.node("Conv", [t, w1, b1], pads=[1, 1])]), v)
    w2, wd2, ws2 = B.weight(R.normal(0, 0.4, (3, 6, 3)).astype(np.float32), axis=0)
    b2, bd2 = B.bias(R.normal(0, 0.2, 3).astype(np.float32), sy, ws2)
    v = conv(v[:, :, None, :], wd2[:, :, None, :], bd2, stride=1)[:, :, 0, ::2]
    t, _, _ = B.qdq(B.node("Conv", [t, w2, b2], strides=[2]), v)
    t = B.node("Flatten", [t])
    v = v.reshape(1, -1)
    m, md, _ = B.weight(R.normal(0, 0.3, (v.shape[1], 5)).astype(np.float32), axis=1)
    v = v @ md
    t, s_out, _ = B.qdq(B.node("MatMul", [t, m]), v)
    return x, t, s_out, [1, 5]


def pads(B):
    """TF-style asymmetric "same" padding (nn.ZeroPad2d((0, 1, 0, 1))) before
    a strided conv, once with Q/DQ between pad and conv and once without,
    and a reflect pad: the zero pads fold into the int8 convs' padding."""
    x = R.uniform(-1, 1, (1, 3, 8, 8)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    zpad = B.const("pads", np.array([0, 0, 0, 0, 0, 0, 1, 1], np.int64))
    p = B.node("Pad", [t, zpad])
    v = np.pad(x, ((0, 0), (0, 0), (0, 1), (0, 1)))
    p, _, _ = B.qdq(p, v)
    w1, wd1, ws1 = B.weight(R.normal(0, 0.4, (4, 3, 3, 3)).astype(np.float32), axis=0)
    b1, bd1 = B.bias(R.normal(0, 0.2, 4).astype(np.float32), sx, ws1)
    v = np.maximum(conv(v, wd1, bd1, stride=2), 0)
    t, sy, _ = B.qdq(B.node("Relu", [B.node("Conv", [p, w1, b1], strides=[2, 2])]), v)
    p = B.node("Pad", [t, zpad])
    v = np.pad(v, ((0, 0), (0, 0), (0, 1), (0, 1)))
    w2, wd2, ws2 = B.weight(R.normal(0, 0.4, (4, 4, 3, 3)).astype(np.float32), axis=0)
    b2, bd2 = B.bias(R.normal(0, 0.2, 4).astype(np.float32), sy, ws2)
    v = conv(v, wd2, bd2, stride=2)
    t, _, _ = B.qdq(B.node("Conv", [p, w2, b2], strides=[2, 2]), v)
    rpad = B.const("pads", np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64))
    v = np.pad(v, ((0, 0), (0, 0), (1, 1), (1, 1)), mode="reflect")
    t, s_out, _ = B.qdq(B.node("Pad", [t, rpad], mode="reflect"), v)
    return x, t, s_out, [1, 4, 4, 4]


def softmax_q(B, t, v, axis=None):
    """Softmax of t (calibration values v, float) over the last axis, then
    Q -> DQ at the fixed parameters ONNX Runtime's quantizer gives a
    softmax output: scale 1/256, zero point -128 (TFLite's int8 softmax)."""
    e = np.exp(v - v.max(axis=-1, keepdims=True))
    attrs = {} if axis is None else {"axis": axis}
    t = B.node("Softmax", [t], **attrs)
    s, z = B.const("s", np.array(1 / 256.0, np.float32)), B.const("z", np.array(-128, np.int8))
    return B.node("DequantizeLinear", [B.node("QuantizeLinear", [t, s, z]), s, z]), e / e.sum(axis=-1, keepdims=True)


def softmax(B):
    """A conv, then a softmax over the last axis of its 4-D output (rows of
    the width, ONNX 13's axis -1) at the fixed output parameters: int8
    throughout (softmax_s8)."""
    x = R.uniform(-1, 1, (1, 3, 6, 9)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    w, wd, ws = B.weight(R.normal(0, 0.8, (4, 3, 3, 3)).astype(np.float32), axis=0)
    b, bd = B.bias(R.normal(0, 0.3, 4).astype(np.float32), sx, ws)
    v = conv(x, wd, bd, pad=1)
    t, _, _ = B.qdq(B.node("Conv", [t, w, b], pads=[1, 1, 1, 1]), v)
    t, v = softmax_q(B, t, v)
    return x, t, 1 / 256.0, [1, 4, 6, 9]


def classifier(B):
    """A gemm classifier (per-tensor weights) and its softmax at opset 11:
    Softmax's default axis 1 on the 2-D logits, the coercion to 2-D that is
    the last axis; a batch of 8 rows of 10 classes."""
    x = R.uniform(-1, 1, (8, 24)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    w, wd, _ = B.weight(R.normal(0, 0.5, (24, 10)).astype(np.float32))
    b = R.normal(0, 0.5, 10).astype(np.float32)
    v = x @ wd + b
    t, _, _ = B.qdq(B.node("Gemm", [t, w, B.const("b", b)]), v)
    t, v = softmax_q(B, t, v)
    return x, t, 1 / 256.0, [8, 10]


def softmax_keep(B):
    """Softmaxes the int8 kernel cannot take stay float between their Q/DQ:
    one whose output has calibrated parameters (not 1/256, -128), one over
    axis 1 of a 3-D tensor (not the last)."""
    x = R.uniform(-2, 2, (2, 5, 7)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    v = e / e.sum(axis=-1, keepdims=True)
    t, _, _ = B.qdq(B.node("Softmax", [t], axis=-1), v)
    e = np.exp(v - v.max(axis=1, keepdims=True))
    v = e / e.sum(axis=1, keepdims=True)
    t = B.node("Softmax", [t], axis=1)
    s, z = B.const("s", np.array(1 / 256.0, np.float32)), B.const("z", np.array(-128, np.int8))
    t = B.node("DequantizeLinear", [B.node("QuantizeLinear", [t, s, z]), s, z])
    return x, t, 1 / 256.0, [2, 5, 7]


def linear(B):
    """Linear layers on a 3-D input as PyTorch (nn.Linear on [B, T, K])
    and TensorFlow (Dense) export them: MatMul, then an Add of the bias --
    an int32 constant behind a DequantizeLinear, then a float constant of
    [1, N] as the Add's first input -- with a Relu between."""
    x = R.uniform(-1, 1, (2, 5, 16)).astype(np.float32)
    t, sx, _ = B.qdq("x", x)
    w1, wd1, ws1 = B.weight(R.normal(0, 0.3, (16, 12)).astype(np.float32), axis=1)
    b1, bd1 = B.bias(R.normal(0, 0.3, 12).astype(np.float32), sx, ws1)
    v = np.maximum(x @ wd1 + bd1, 0)
    t = B.node("Relu", [B.node("Add", [B.node("MatMul", [t, w1]), b1])])
    t, sx, _ = B.qdq(t, v)
    w2, wd2, _ = B.weight(R.normal(0, 0.3, (12, 6)).astype(np.float32), axis=1)
    b2 = R.normal(0, 0.3, (1, 6)).astype(np.float32)
    v = b2 + v @ wd2
    t, s_out, _ = B.qdq(B.node("Add", [B.const("b", b2), B.node("MatMul", [t, w2])]), v)
    return x, t, s_out, [2, 5, 6]


def save(name, make, opset=13):
    B = Builder()
    x, y, s_out, y_shape = make(B)
    B.nodes[-1].output[0] = "y"
    g = helper.make_graph(B.nodes, name,
                          [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(x.shape))],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
                          [numpy_helper.from_array(v, k) for k, v in B.inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="lightnet-qdq")
    m.ir_version = 7
    onnx.checker.check_model(m, full_check=True)
    onnx.save(m, os.path.join(HERE, name + ".onnx"))
    x.tofile(os.path.join(HERE, name + ".in.bin"))
    open(os.path.join(HERE, name + ".scale"), "w").write("%.9g\n" % s_out)
    d = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(HERE, name + ".onnx"), os.path.join(d, "model.onnx"))
        x.tofile(os.path.join(d, "in_0.bin"))
        json.dump(list(x.shape), open(os.path.join(d, "shape_0.json"), "w"))
        open(os.path.join(d, "inputs.txt"), "w").write("x\n")
        open(os.path.join(d, "outs.txt"), "w").write("y\n")
        subprocess.run(["node", os.path.join(ROOT, "tests", "difftest", "ort_run.js"), d],
                       check=True, stderr=subprocess.DEVNULL)
        if os.path.exists(os.path.join(d, "ort.err")):
            raise SystemExit("%s: ONNX Runtime: %s" % (name, open(os.path.join(d, "ort.err")).read()))
        shutil.copy(os.path.join(d, "ort_0.bin"), os.path.join(HERE, name + ".ref.bin"))
    finally:
        shutil.rmtree(d)


save("qdq_cnn", cnn)
save("qdq_mlp", mlp)
save("qdq_keep_float", keep)
save("qop_conv_matmul", qop)
save("qdq_u8", u8)
save("qdq_branches", branches)
save("qdq_acts", acts)
save("qdq_se", se)
save("qdq_conv1d", conv1d)
save("qdq_pads", pads)
save("qdq_softmax", softmax)
save("qdq_softmax_gemm", classifier, opset=11)
save("qdq_softmax_keep_float", softmax_keep)
save("qdq_linear3d", linear)
