#!/usr/bin/env python3
"""Synthetic labelled tasks for the trained test networks (tests/trained/<name>/,
made by tools/make_trained_models.py).  numpy only, so tests without torch can draw
calibration and evaluation inputs from the distribution the networks were trained on.

    generate(name, n, seed) -> (x float32 [n, *shape], labels int64 [n] or None)

Every draw is a function of (name, n, seed) alone: numpy's RandomState, the task's
fixed structure (class templates, bases) drawn from its own constant seed.  Inputs are
roughly zero-mean with unit spread.  The tasks:

  lenet5            1x32x32, 10 classes: a Gaussian-windowed grating whose orientation
                    (18 degrees apart) is the class, random frequency, phase, place and
                    contrast, a distractor blob, white noise
  ds_cnn            1x49x10 "MFCC" frames, 12 classes: each class a sequence of three
                    band patterns over the 10 coefficients ("syllables"), shifted and
                    stretched in time at random, with smooth background and white noise
  resnet8           3x32x32, 10 classes: 5 shapes (disc, ring, square, cross, bars) x 2
                    colour families (warm, cool), random place, size and hue jitter, on
                    low-frequency coloured clutter with white noise
  mobilenet_v1_025  3x96x96, 2 classes (visual-wake-words-like): class 1 holds a
                    "person" (an upright ellipse body under a round head, of a colour
                    near one skin-like hue) somewhere in clutter of random rectangles
                    and discs of any colour; class 0 only the clutter
  ad_autoencoder    640 (5 frames x 128 bands), no labels: a point of a 6-dimensional
                    subspace of smooth spectral bases, through a soft nonlinearity, plus
                    noise (trained to reconstruct)

  python3 tests/trained/data.py NAME N SEED OUTDIR   writes OUTDIR/000.bin ... (raw
                                                     float32, one input each)
"""
import os
import sys

import numpy as np

SHAPES = {
    "lenet5": (1, 32, 32),
    "ds_cnn": (1, 49, 10),
    "resnet8": (3, 32, 32),
    "mobilenet_v1_025": (3, 96, 96),
    "ad_autoencoder": (640,),
}
CLASSES = {"lenet5": 10, "ds_cnn": 12, "resnet8": 10, "mobilenet_v1_025": 2,
           "ad_autoencoder": 0}


def _grid(h, w):
    return np.mgrid[0:h, 0:w].astype(np.float64)


def _lenet5(rs, n):
    yy, xx = _grid(32, 32)
    x = np.empty((n, 1, 32, 32), np.float32)
    lab = rs.randint(0, 10, n)
    for i in range(n):
        th = np.pi * lab[i] / 10 + rs.normal(0, 0.04)
        f = rs.uniform(0.10, 0.22)
        ph = rs.uniform(0, 2 * np.pi)
        cy, cx = rs.uniform(10, 22, 2)
        sd = rs.uniform(6, 10)
        env = np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * sd * sd))
        g = np.cos(2 * np.pi * f * (xx * np.cos(th) + yy * np.sin(th)) + ph)
        by, bx = rs.uniform(0, 32, 2)
        blob = rs.uniform(-1, 1) * np.exp(-((yy - by) ** 2 + (xx - bx) ** 2) / (2 * rs.uniform(2, 5) ** 2))
        img = rs.uniform(0.6, 1.4) * 1.6 * env * g + blob + rs.normal(0, 0.9, (32, 32))
        x[i, 0] = img
    return x, lab


def _ds_cnn(rs, n):
    st = np.random.RandomState(4242)             # the task's fixed structure
    templ = st.normal(0, 1, (12, 3, 10))
    templ /= np.linalg.norm(templ, axis=2, keepdims=True) / np.sqrt(10)
    durs = st.uniform(6, 12, (12, 3))
    t = np.arange(49, dtype=np.float64)
    x = np.empty((n, 1, 49, 10), np.float32)
    lab = rs.randint(0, 12, n)
    for i in range(n):
        k = lab[i]
        stretch = rs.uniform(0.8, 1.25)
        start = rs.uniform(2, 14)
        img = np.zeros((49, 10))
        c = start
        for s in range(3):
            d = durs[k, s] * stretch
            mid = c + d / 2
            env = np.exp(-((t - mid) ** 2) / (2 * (d / 2.5) ** 2))
            img += rs.uniform(0.7, 1.3) * env[:, None] * templ[k, s][None, :]
            c += d
        bg = np.cumsum(rs.normal(0, 0.15, (49, 10)), axis=0)
        bg -= bg.mean(axis=0)
        img += 1.2 * bg + rs.normal(0, 2.0, (49, 10))
        x[i, 0] = img
    return x, lab


def _smooth_noise(rs, c, h, w, cells):
    """low-frequency noise: a coarse random grid, upsampled bilinearly"""
    g = rs.normal(0, 1, (c, cells + 1, cells + 1))
    ys = np.linspace(0, cells, h)
    xs = np.linspace(0, cells, w)
    y0 = np.minimum(ys.astype(int), cells - 1)
    x0 = np.minimum(xs.astype(int), cells - 1)
    fy = (ys - y0)[:, None]
    fx = (xs - x0)[None, :]
    a = g[:, y0][:, :, x0]
    b = g[:, y0][:, :, x0 + 1]
    cc = g[:, y0 + 1][:, :, x0]
    d = g[:, y0 + 1][:, :, x0 + 1]
    return (a * (1 - fy) * (1 - fx) + b * (1 - fy) * fx + cc * fy * (1 - fx) + d * fy * fx)


WARM = np.array([[1.0, 0.3, -0.6], [1.0, 0.8, -0.4], [0.8, -0.2, -0.5]])
COOL = np.array([[-0.6, 0.3, 1.0], [-0.4, 0.9, 0.6], [-0.2, -0.3, 1.0]])


def _shape_mask(kind, yy, xx, cy, cx, r, rs):
    dy, dx = yy - cy, xx - cx
    rr = np.sqrt(dy * dy + dx * dx)
    if kind == 0:                                   # disc
        return (rr < r).astype(np.float64)
    if kind == 1:                                   # ring
        return ((rr < r) & (rr > 0.55 * r)).astype(np.float64)
    if kind == 2:                                   # square
        return ((np.abs(dy) < 0.85 * r) & (np.abs(dx) < 0.85 * r)).astype(np.float64)
    if kind == 3:                                   # cross
        return (((np.abs(dy) < 0.3 * r) & (np.abs(dx) < r)) |
                ((np.abs(dx) < 0.3 * r) & (np.abs(dy) < r))).astype(np.float64)
    ph = rs.uniform(0, np.pi)                       # bars inside a disc
    return ((rr < r) & (np.cos(2 * np.pi * dx / (0.7 * r) + ph) > 0)).astype(np.float64)


def _resnet8(rs, n):
    yy, xx = _grid(32, 32)
    x = np.empty((n, 3, 32, 32), np.float32)
    lab = rs.randint(0, 10, n)
    for i in range(n):
        kind, fam = lab[i] % 5, lab[i] // 5
        col = (WARM if fam == 0 else COOL)[rs.randint(0, 3)] + rs.normal(0, 0.25, 3)
        r = rs.uniform(5, 10)
        cy, cx = rs.uniform(r, 32 - r, 2)
        m = _shape_mask(kind, yy, xx, cy, cx, r, rs)
        img = 0.7 * _smooth_noise(rs, 3, 32, 32, 4)
        img = img * (1 - m) + 1.3 * col[:, None, None] * m
        img += rs.normal(0, 0.35, (3, 32, 32))
        x[i] = img
    return x, lab


def _mobilenet(rs, n):
    yy, xx = _grid(96, 96)
    x = np.empty((n, 3, 96, 96), np.float32)
    lab = rs.randint(0, 2, n)
    for i in range(n):
        img = 0.6 * _smooth_noise(rs, 3, 96, 96, 6)
        for _ in range(rs.randint(2, 6)):           # clutter
            col = rs.normal(0, 0.9, 3)
            cy, cx = rs.uniform(0, 96, 2)
            if rs.rand() < 0.5:
                hh, ww = rs.uniform(4, 22, 2)
                m = (np.abs(yy - cy) < hh) & (np.abs(xx - cx) < ww)
            else:
                m = (yy - cy) ** 2 + (xx - cx) ** 2 < rs.uniform(4, 16) ** 2
            img[:, m] = col[:, None]
        if lab[i]:                                  # a person: body ellipse, head disc
            h = rs.uniform(40, 80)
            cy = rs.uniform(h * 0.35 + h * 0.25, 96 - h * 0.35)
            cx = rs.uniform(10, 86)
            col = np.array([2.0, 0.8, -1.2]) + rs.normal(0, 0.2, 3)
            body = ((yy - cy) / (0.35 * h)) ** 2 + ((xx - cx) / (0.14 * h)) ** 2 < 1
            head = (yy - (cy - 0.47 * h)) ** 2 + (xx - cx) ** 2 < (0.11 * h) ** 2
            img[:, body | head] = col[:, None]
        img += rs.normal(0, 0.3, (3, 96, 96))
        x[i] = img
    return x, lab


def _ad(rs, n):
    st = np.random.RandomState(5151)
    f = np.arange(128, dtype=np.float64)
    basis = np.empty((6, 5, 128))
    for k in range(6):                              # smooth spectral shapes, varying in time
        c, w = st.uniform(10, 118), st.uniform(6, 30)
        shape = np.exp(-((f - c) ** 2) / (2 * w * w)) + 0.3 * np.cos(2 * np.pi * f / st.uniform(20, 80))
        basis[k] = shape[None, :] * st.uniform(0.5, 1.5, (5, 1))
    basis = basis.reshape(6, 640)
    basis /= basis.std(axis=1, keepdims=True)
    z = rs.normal(0, 1, (n, 6))
    v = z @ basis / np.sqrt(6)
    v = np.tanh(0.8 * v) * 1.4 + rs.normal(0, 0.15, (n, 640))
    return v.astype(np.float32), None


GEN = {"lenet5": _lenet5, "ds_cnn": _ds_cnn, "resnet8": _resnet8,
       "mobilenet_v1_025": _mobilenet, "ad_autoencoder": _ad}


def generate(name, n, seed):
    """n inputs of network `name` and their labels (None for the autoencoder)."""
    if name not in GEN:
        raise ValueError("data.py: no task for network '%s' (have %s)" % (name, ", ".join(GEN)))
    rs = np.random.RandomState(seed)
    x, lab = GEN[name](rs, n)
    return x.astype(np.float32), (None if lab is None else lab.astype(np.int64))


def write(name, n, seed, out_dir):
    """OUTDIR/000.bin ...: raw float32, one input each; returns the file names"""
    x, _ = generate(name, n, seed)
    os.makedirs(out_dir, exist_ok=True)
    files = []
    for i in range(n):
        f = os.path.join(out_dir, "%03d.bin" % i)
        x[i].astype("<f4").tofile(f)
        files.append(f)
    return files


if __name__ == "__main__":
    if len(sys.argv) != 5:
        sys.exit("usage: data.py NAME N SEED OUTDIR")
    write(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
