#!/usr/bin/python3
"""Inputs, weights and reference outputs of the hand-written AOT test models.

Run from this directory with any Python 3 (standard library only):
    python3 make_data.py
It writes, per model M: M.in<i>.bin (the graph inputs, raw little-endian
float32), M.ref<i>.bin (the expected outputs, float32, computed here in
double precision with Python's math module, independently of LightNet's
kernels) and, for models whose weights are read from a file, M.params (the
NDArray parameter dictionary described in /work/shared/DESIGN.md).
Inputs come from random.Random(seed) so a rerun writes identical files.
"""
import math
import random
import struct


def f32(v):
    return struct.unpack('<f', struct.pack('<f', v))[0]


def write_f32(path, vals):
    with open(path, 'wb') as fp:
        fp.write(struct.pack('<%df' % len(vals), *vals))


def write_params(path, tensors):
    out = struct.pack('<QQQ', 0xF7E58D4F05049CB7, 0, len(tensors))
    for name, _, _ in tensors:
        b = name.encode()
        out += struct.pack('<Q', len(b)) + b
    out += struct.pack('<Q', len(tensors))
    for _, dims, vals in tensors:
        data = struct.pack('<%df' % len(vals), *vals)
        out += struct.pack('<QQ', 0xDD5E40F096B4A13F, 0)
        out += struct.pack('<iiiBBH', 1, 0, len(dims), 2, 32, 1)   # CPU, float 32
        out += struct.pack('<%dq' % len(dims), *dims)
        out += struct.pack('<q', len(data)) + data
    with open(path, 'wb') as fp:
        fp.write(out)


def ew():
    """ew.json: broadcast add/mul, relu, clip, sub, tanh, leakyrelu, slice,
    reshape (a view), sigmoid; two outputs."""
    rng = random.Random(6001)
    w = [0.25, -0.75, 1.5, -2.0]
    b = [0.5, -1.25, 2.0]
    x = [f32(rng.uniform(-2, 2)) for _ in range(24)]
    write_params('ew.params', [('w', [4], w)])
    write_f32('ew.in0.bin', x)
    clip, y3 = [], []
    for n in range(2):
        for c in range(3):
            for k in range(4):
                v = (x[(n * 3 + c) * 4 + k] + w[k]) * b[c]
                r = max(v, 0.0)
                cl = min(max(v, f32(-0.5)), f32(1.5))
                t = math.tanh(r - cl)
                lr = t if t >= 0 else f32(0.1) * t
                clip.append(cl)
                y3.append(lr)
    y = []
    for n in range(2):
        for c in range(3):
            for k in (1, 2):                     # slice axis 2, start 1, len 2
                v = y3[(n * 3 + c) * 4 + k]
                y.append(1.0 / (1.0 + math.exp(-v)))
    write_f32('ew.ref0.bin', y)
    write_f32('ew.ref1.bin', clip)


def act():
    """act.json: elu, hardsigmoid, softplus, prelu, div, sqrt, max, add;
    two inputs."""
    rng = random.Random(6002)
    slope = [0.1, 0.2, 0.3, 0.4, 0.5, -0.1, -0.2, -0.3, 1.5, 2.0]
    x = [f32(rng.uniform(-3, 3)) for _ in range(10)]
    z = [f32(rng.uniform(-1, 1)) for _ in range(10)]
    write_f32('act.in0.bin', x)
    write_f32('act.in1.bin', z)
    y = []
    for i in range(10):
        e = x[i] if x[i] >= 0 else math.exp(x[i]) - 1.0
        h = max(0.0, min(1.0, f32(0.2) * e + 0.5))
        s = math.log1p(math.exp(x[i]))
        p = x[i] if x[i] >= 0 else f32(slope[i]) * x[i]
        q = math.sqrt(s / h)
        y.append(max(q, p) + z[i])
    write_f32('act.ref0.bin', y)


def edge():
    """edge.json: outputs the planner cannot give their own caller buffer --
    a reshape view of the input (input and output share a buffer, so both
    are copied through the arena) and a constant -- beside a plain one."""
    rng = random.Random(6003)
    x = [f32(rng.uniform(-1, 1)) for _ in range(6)]
    write_f32('edge.in0.bin', x)
    write_f32('edge.ref0.bin', x)
    write_f32('edge.ref1.bin', [max(v, 0.0) for v in x])
    write_f32('edge.ref2.bin', [3.5, -0.25])


def noinput():
    """noinput.json: no graph input, relu of a constant [1, -2]; the run
    function takes only the output."""
    write_f32('noinput.ref0.bin', [1.0, 0.0])


if __name__ == '__main__':
    ew()
    act()
    edge()
    noinput()
