#!/usr/bin/python3
"""Build LightNet's whole-model test networks, export them to ONNX and store the
PyTorch reference output beside each.

    /usr/bin/python3 tools/make_test_models.py [--out DIR] [--bench [--bench-out DIR]]
                                               [--only NAME[,NAME...]]

Needs Debian's python3-torch, python3-torchvision, python3-onnx and python3-numpy
(apt-get install python3-torch python3-torchvision python3-onnx python3-numpy) and runs
with /usr/bin/python3 (Debian's modules live in /usr/lib/python3/dist-packages).
Nothing is downloaded: every weight is random, drawn from a fixed seed per model.

For each network NAME it writes OUT/NAME/ (default OUT = tests/models):
    model.onnx   ONNX, opset 13, constant folding on, static shapes, batch 1
    input.bin    raw little-endian float32 input (fixed seed, N(0,1))
    output.bin   raw little-endian float32 PyTorch output for input.bin
    meta.json    input/output shapes, versions, seed, parameter count, op types

The five committed networks follow the published MLPerf Tiny reference architectures
(plus LeNet-5); --bench adds torchvision MobileNetV2 and ResNet-18 at 224x224 under
bench/models/ (not committed).  See docs/test-models.md.

Each exported model is checked with onnx.checker, run through a small numpy ONNX
evaluator (float64) and compared with the PyTorch output, and the PyTorch model is run
a second time to confirm the stored output is bit-for-bit reproducible.
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import onnx
from onnx import numpy_helper

OPSET = 13
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


# --------------------------------------------------------------------------------------
# Networks
# --------------------------------------------------------------------------------------

class LeNet5(nn.Module):
    """LeNet-5 on 1x32x32: conv5x5 6, maxpool 2, conv5x5 16, maxpool 2, fc 120, 84, 10;
    ReLU activations (the original used tanh and subsampling)."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


def conv_bn_relu(cin, cout, k, stride=1, padding=0, groups=1):
    return nn.Sequential(
        nn.Conv2d(cin, cout, k, stride=stride, padding=padding, groups=groups, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class DSCNN(nn.Module):
    """MLPerf Tiny keyword spotting DS-CNN (small) on 1x49x10 MFCC features.

    conv 64 filters 10x4 stride 2, BN, ReLU.  The reference's TF 'same' padding (49x10 ->
    25x5) is asymmetric (4 rows above, 5 below); here the conv pads 5 rows and 1 column
    on each side, which gives the same 25x5 output (the unused 5th bottom row makes it
    5 above / 4 below in effect).  An explicit nn.ZeroPad2d would be exported by torch
    1.13 as a chain of shape ops (ConstantOfShape, Concat, Reshape, Slice with step -1,
    Transpose, Cast) computing the Pad's pads input, which constant folding leaves alone.
    Then four depthwise-separable blocks (dw 3x3 + BN + ReLU, pw 1x1 64 + BN + ReLU); average
    pool over the whole 25x5 map; fc 12.  The reference's dropout is an identity at
    inference and its final softmax is left out (the model outputs logits)."""

    def __init__(self, filters=64, classes=12, blocks=4):
        super().__init__()
        self.conv1 = conv_bn_relu(1, filters, (10, 4), stride=2, padding=(5, 1))
        layers = []
        for _ in range(blocks):
            layers.append(conv_bn_relu(filters, filters, 3, padding=1, groups=filters))
            layers.append(conv_bn_relu(filters, filters, 1))
        self.blocks = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d((25, 5))
        self.fc = nn.Linear(filters, classes)

    def forward(self, x):
        x = self.conv1(x)
        x = self.blocks(x)
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


class MobileNetV1(nn.Module):
    """MobileNetV1 (width multiplier alpha) as in the MLPerf Tiny visual wake words
    reference: conv 3x3 stride 2 + BN + ReLU, 13 depthwise-separable blocks (dw 3x3 +
    BN + ReLU, pw 1x1 + BN + ReLU), average pool over the final 3x3 map, fc 2.
    Plain ReLU as in the reference (not ReLU6); PyTorch symmetric padding 1 for the
    3x3 convolutions (same output sizes as TF 'same'); no softmax (logits)."""

    CFG = [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2),
           (512, 1), (512, 1), (512, 1), (512, 1), (512, 1), (1024, 2), (1024, 1)]

    def __init__(self, alpha=0.25, classes=2, size=96):
        super().__init__()
        c = int(32 * alpha)
        layers = [conv_bn_relu(3, c, 3, stride=2, padding=1)]
        for f, s in self.CFG:
            f = int(f * alpha)
            layers.append(conv_bn_relu(c, c, 3, stride=s, padding=1, groups=c))
            layers.append(conv_bn_relu(c, f, 1))
            c = f
        self.features = nn.Sequential(*layers)
        self.pool = nn.AvgPool2d(size // 32)
        self.fc = nn.Linear(c, classes)

    def forward(self, x):
        x = self.features(x)
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


class ResStack(nn.Module):
    """One ResNet-8 stack: conv3x3(stride) + BN + ReLU, conv3x3 + BN, shortcut (identity,
    or a 1x1 conv with the stride when the shape changes, no BN as in the reference),
    add, ReLU."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = None
        if stride != 1 or cin != cout:
            self.shortcut = nn.Conv2d(cin, cout, 1, stride=stride)

    def forward(self, x):
        y = F.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        s = x if self.shortcut is None else self.shortcut(x)
        return F.relu(y + s)


class ResNet8(nn.Module):
    """MLPerf Tiny image classification ResNet-8 on 3x32x32: conv 16 3x3 + BN + ReLU,
    stacks of 16 (stride 1), 32 (stride 2), 64 (stride 2), average pool 8x8, fc 10.
    Convolutions keep their bias as in the Keras reference; no softmax (logits)."""

    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.stack1 = ResStack(16, 16, 1)
        self.stack2 = ResStack(16, 32, 2)
        self.stack3 = ResStack(32, 64, 2)
        self.pool = nn.AvgPool2d(8)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.stack3(self.stack2(self.stack1(x)))
        x = torch.flatten(self.pool(x), 1)
        return self.fc(x)


class ADAutoencoder(nn.Module):
    """MLPerf Tiny anomaly detection (ToyADMOS) fully connected autoencoder on 640
    inputs: 640->128->128->128->128->8->128->128->128->128, each Linear + BatchNorm1d +
    ReLU, then Linear ->640."""

    def __init__(self, dim=640, hidden=128, bottleneck=8):
        super().__init__()
        sizes = [dim, hidden, hidden, hidden, hidden, bottleneck,
                 hidden, hidden, hidden, hidden]
        layers = []
        for a, b in zip(sizes[:-1], sizes[1:]):
            layers += [nn.Linear(a, b), nn.BatchNorm1d(b), nn.ReLU(inplace=True)]
        layers.append(nn.Linear(hidden, dim))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)


def tiny_densenet():
    """torchvision's DenseNet with small growth and two blocks: every feature map
    feeds every later concat of its block (the pattern that broke the planner's
    in-place placement on DenseNet-121, issue 12)."""
    import torchvision
    return torchvision.models.DenseNet(growth_rate=8, block_config=(3, 3),
                                       num_init_features=16, bn_size=2, num_classes=10)


def tv_mobilenet_v2():
    import torchvision
    return torchvision.models.mobilenet_v2(weights=None)


def tv_resnet18():
    import torchvision
    return torchvision.models.resnet18(weights=None)


def tv_efficientnet_b0():
    import torchvision
    return torchvision.models.efficientnet_b0(weights=None)


def tv_squeezenet1_1():
    import torchvision
    return torchvision.models.squeezenet1_1(weights=None)


def tv_shufflenet_v2_x0_5():
    import torchvision
    return torchvision.models.shufflenet_v2_x0_5(weights=None)


def tv_mnasnet0_5():
    import torchvision
    return torchvision.models.mnasnet0_5(weights=None)


def tv_densenet121():
    import torchvision
    return torchvision.models.densenet121(weights=None)


# name: (constructor, input shape, seed, description)
MODELS = {
    "lenet5": (LeNet5, [1, 1, 32, 32], 1001,
               "LeNet-5, ReLU, max pool"),
    "ds_cnn": (DSCNN, [1, 1, 49, 10], 1002,
               "MLPerf Tiny KWS DS-CNN small"),
    "mobilenet_v1_025": (MobileNetV1, [1, 3, 96, 96], 1003,
                         "MLPerf Tiny VWW MobileNetV1 0.25, ReLU"),
    "resnet8": (ResNet8, [1, 3, 32, 32], 1004,
                "MLPerf Tiny IC ResNet-8"),
    "ad_autoencoder": (ADAutoencoder, [1, 640], 1005,
                       "MLPerf Tiny AD FC autoencoder"),
    "densenet_tiny": (tiny_densenet, [1, 3, 32, 32], 1006,
                      "torchvision DenseNet, growth 8, blocks (3, 3): dense concats"),
}
BENCH_MODELS = {
    "mobilenet_v2": (tv_mobilenet_v2, [1, 3, 224, 224], 2001,
                     "torchvision MobileNetV2 (ReLU6), random weights"),
    "resnet18": (tv_resnet18, [1, 3, 224, 224], 2002,
                 "torchvision ResNet-18, random weights"),
    "efficientnet_b0": (tv_efficientnet_b0, [1, 3, 224, 224], 2003,
                        "torchvision EfficientNet-B0 (SiLU, squeeze-excitation), random weights"),
    "squeezenet1_1": (tv_squeezenet1_1, [1, 3, 224, 224], 2004,
                      "torchvision SqueezeNet 1.1 (fire modules: concats), random weights"),
    "shufflenet_v2_x0_5": (tv_shufflenet_v2_x0_5, [1, 3, 224, 224], 2005,
                           "torchvision ShuffleNetV2 x0.5 (channel shuffle, splits), random weights"),
    "mnasnet0_5": (tv_mnasnet0_5, [1, 3, 224, 224], 2006,
                   "torchvision MnasNet 0.5, random weights"),
    "densenet121": (tv_densenet121, [1, 3, 224, 224], 2007,
                    "torchvision DenseNet-121 (dense concats), random weights"),
}


def he_init(model):
    """He (Kaiming normal, fan in) weights for every conv and linear layer, so that the
    signal neither dies nor explodes through the ReLU stack (PyTorch's default init
    shrinks it by about 3x per layer, leaving deep random networks' outputs nearly
    independent of their input).  Biases keep PyTorch's default uniform init."""
    for m in model.modules():
        if isinstance(m, (nn.Conv2d, nn.Linear)):
            nn.init.kaiming_normal_(m.weight, mode="fan_in", nonlinearity="relu")


def randomize_bn(model):
    """Give every BatchNorm random affine parameters and running statistics, so that
    folding or evaluating BN wrongly shows up in the output."""
    for m in model.modules():
        if isinstance(m, nn.modules.batchnorm._BatchNorm):
            n = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(n) * 0.1)
                m.running_var.copy_(torch.rand(n) + 0.5)          # U(0.5, 1.5)
                m.weight.copy_(torch.rand(n) + 0.5)               # U(0.5, 1.5)
                m.bias.copy_(torch.randn(n) * 0.1)                # N(0, 0.1)


# --------------------------------------------------------------------------------------
# A small numpy ONNX evaluator (float64), enough for the ops these exports use.
# onnxruntime is not packaged in Debian and onnx 1.12 has no reference evaluator, so
# this checks the exported graph (after PyTorch's BN folding and constant folding)
# against the PyTorch output independently of LightNet.
# --------------------------------------------------------------------------------------

def _attrs(node):
    return {a.name: onnx.helper.get_attribute_value(a) for a in node.attribute}


def _pad_nchw(x, pads, value=0.0):
    nd = x.ndim - 2
    pw = [(0, 0), (0, 0)] + [(pads[i], pads[i + nd]) for i in range(nd)]
    return np.pad(x, pw, mode="constant", constant_values=value)


def _windows(x, kh, kw, sh, sw, dh=1, dw=1):
    """x: N,C,H,W (already padded) -> N,C,OH,OW,kh,kw view."""
    n, c, h, w = x.shape
    oh = (h - dh * (kh - 1) - 1) // sh + 1
    ow = (w - dw * (kw - 1) - 1) // sw + 1
    s = x.strides
    return np.lib.stride_tricks.as_strided(
        x, (n, c, oh, ow, kh, kw),
        (s[0], s[1], s[2] * sh, s[3] * sw, s[2] * dh, s[3] * dw), writeable=False)


def _conv(x, w, b, a):
    g = a.get("group", 1)
    kh, kw = w.shape[2:]
    st = a.get("strides", [1, 1])
    dl = a.get("dilations", [1, 1])
    pads = a.get("pads", [0, 0, 0, 0])
    if a.get("auto_pad", b"NOTSET") not in (b"NOTSET", "NOTSET"):
        raise NotImplementedError("auto_pad")
    x = np.ascontiguousarray(_pad_nchw(x, pads))
    win = _windows(x, kh, kw, st[0], st[1], dl[0], dl[1])      # N,C,OH,OW,kh,kw
    n, c, oh, ow = win.shape[:4]
    m = w.shape[0]
    cg, mg = c // g, m // g
    if g == c and g > 1:                                        # depthwise
        wr = w.reshape(c, m // c, kh, kw)
        out = np.einsum("ncxyhw,ckhw->nckxy", win, wr, optimize=True).reshape(n, m, oh, ow)
    else:
        out = np.empty((n, m, oh, ow))
        for gi in range(g):
            out[:, gi * mg:(gi + 1) * mg] = np.einsum(
                "ncxyhw,mchw->nmxy", win[:, gi * cg:(gi + 1) * cg],
                w[gi * mg:(gi + 1) * mg], optimize=True)
    if b is not None:
        out = out + b.reshape(1, -1, 1, 1)
    return out


def _pool(x, a, kind):
    kh, kw = a["kernel_shape"]
    st = a.get("strides", [1, 1])
    pads = a.get("pads", [0, 0, 0, 0])
    if a.get("ceil_mode", 0):
        # ceil mode: windows may run past the end (max pool only), but the last
        # one must start inside the input or its leading pad
        if kind != "max":
            raise NotImplementedError("ceil_mode for average pooling")
        pads = list(pads)
        for d, k, s_ in ((0, kh, st[0]), (1, kw, st[1])):
            size = x.shape[2 + d] + pads[d] + pads[d + 2]
            o = -(-(size - k) // s_) + 1
            if (o - 1) * s_ >= x.shape[2 + d] + pads[d]:
                o -= 1
            pads[d + 2] += max(0, (o - 1) * s_ + k - size)
    if kind == "max":
        xp = np.ascontiguousarray(_pad_nchw(x, pads, -np.inf))
        return _windows(xp, kh, kw, st[0], st[1]).max(axis=(4, 5))
    xp = np.ascontiguousarray(_pad_nchw(x, pads))
    s = _windows(xp, kh, kw, st[0], st[1]).sum(axis=(4, 5))
    if a.get("count_include_pad", 0) or not any(pads):
        return s / (kh * kw)
    ones = np.ascontiguousarray(_pad_nchw(np.ones((1, 1) + x.shape[2:]), pads))
    return s / _windows(ones, kh, kw, st[0], st[1]).sum(axis=(4, 5))


def run_onnx_numpy(model, feeds):
    env = {k: v.astype(np.float64) for k, v in feeds.items()}
    for init in model.graph.initializer:
        arr = numpy_helper.to_array(init)
        env[init.name] = arr.astype(np.float64) if arr.dtype.kind == "f" else arr
    for node in model.graph.node:
        a = _attrs(node)
        i = [env[n] if n else None for n in node.input]
        op = node.op_type
        if op == "Conv":
            y = _conv(i[0], i[1], i[2] if len(i) > 2 else None, a)
        elif op == "Gemm":
            A = i[0].T if a.get("transA", 0) else i[0]
            B = i[1].T if a.get("transB", 0) else i[1]
            y = a.get("alpha", 1.0) * (A @ B)
            if len(i) > 2 and i[2] is not None:
                y = y + a.get("beta", 1.0) * i[2]
        elif op == "MatMul":
            y = i[0] @ i[1]
        elif op == "Relu":
            y = np.maximum(i[0], 0)
        elif op == "Clip":
            lo = i[1] if len(i) > 1 and i[1] is not None else -np.inf
            hi = i[2] if len(i) > 2 and i[2] is not None else np.inf
            y = np.clip(i[0], lo, hi)
        elif op == "Add":
            y = i[0] + i[1]
        elif op == "Mul":
            y = i[0] * i[1]
        elif op == "MaxPool":
            y = _pool(i[0], a, "max")
        elif op == "AveragePool":
            y = _pool(i[0], a, "avg")
        elif op == "GlobalAveragePool":
            y = i[0].mean(axis=tuple(range(2, i[0].ndim)), keepdims=True)
        elif op == "Flatten":
            ax = a.get("axis", 1)
            y = i[0].reshape(int(np.prod(i[0].shape[:ax])), -1)
        elif op == "Reshape":
            y = i[0].reshape([d if d != 0 else i[0].shape[k]
                              for k, d in enumerate(i[1].astype(np.int64))])
        elif op == "Pad":
            mode = a.get("mode", b"constant")
            if mode not in (b"constant", "constant"):
                raise NotImplementedError("Pad mode %s" % mode)
            p = i[1].astype(np.int64)
            r = i[0].ndim
            v = float(i[2]) if len(i) > 2 and i[2] is not None else 0.0
            y = np.pad(i[0], [(p[k], p[k + r]) for k in range(r)], constant_values=v)
        elif op == "BatchNormalization":
            x, sc, bi, mu, var = i[:5]
            shp = (1, -1) + (1,) * (x.ndim - 2)
            y = ((x - mu.reshape(shp)) / np.sqrt(var.reshape(shp) + a.get("epsilon", 1e-5))
                 * sc.reshape(shp) + bi.reshape(shp))
        elif op == "Identity":
            y = i[0]
        elif op == "Concat":
            y = np.concatenate(i, axis=a["axis"])
        elif op == "Constant":
            y = numpy_helper.to_array(a["value"])
            y = y.astype(np.float64) if y.dtype.kind == "f" else y
        elif op == "Shape":
            y = np.array(i[0].shape, np.int64)
        elif op == "Gather":
            y = np.take(i[0], i[1].astype(np.int64), axis=a.get("axis", 0))
        elif op == "Div":
            y = (i[0] // i[1]) if i[0].dtype.kind in "iu" else i[0] / i[1]
        elif op == "Slice":
            y = i[0]
            axes = i[3] if len(i) > 3 and i[3] is not None else range(len(i[1]))
            steps = i[4] if len(i) > 4 and i[4] is not None else [1] * len(i[1])
            sl = [slice(None)] * y.ndim
            for k, ax in enumerate(axes):
                sl[int(ax)] = slice(int(i[1][k]), int(i[2][k]), int(steps[k]))
            y = y[tuple(sl)]
        elif op == "Sigmoid":
            y = 1.0 / (1.0 + np.exp(-i[0]))
        elif op == "ReduceMean":
            axes = tuple(a["axes"]) if "axes" in a else None
            y = i[0].mean(axis=axes, keepdims=bool(a.get("keepdims", 1)))
        elif op == "Transpose":
            y = np.transpose(i[0], a.get("perm"))
        elif op == "Split":
            ax = a.get("axis", 0)
            sp = list(i[1]) if len(i) > 1 and i[1] is not None else a.get("split")
            if sp is None:
                sp = [i[0].shape[ax] // len(node.output)] * len(node.output)
            y = np.split(i[0], np.cumsum(sp)[:-1], axis=ax)
        else:
            raise NotImplementedError("numpy evaluator: op %s" % op)
        if op == "Split":
            for name_out, part in zip(node.output, y):
                env[name_out] = part
            continue
        env[node.output[0]] = y
    return [env[o.name] for o in model.graph.output]


# --------------------------------------------------------------------------------------

def build_one(name, spec, outdir):
    ctor, shape, seed, desc = spec
    torch.manual_seed(seed)
    model = ctor()
    he_init(model)
    randomize_bn(model)
    model.eval()
    params = sum(p.numel() for p in model.parameters())

    gen = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=gen, dtype=torch.float32)
    x2 = torch.randn(*shape, generator=gen, dtype=torch.float32)
    with torch.no_grad():
        y = model(x).contiguous()
        y_again = model(x.clone()).contiguous()
        y_other = model(x2)
    if not torch.equal(y, y_again):
        raise SystemExit("%s: PyTorch output is not deterministic" % name)
    # The output must depend on the input (a network whose ReLUs all died would
    # make a weak test).
    spread = float((y - y_other).abs().max() / max(float(y.abs().max()), 1e-30))
    # DenseNet-121's 58 random BN + ReLU + concat layers leave its output only
    # 0.7% dependent on the input: enough for a benchmark (timing, and the
    # outputs still compared at 1e-4 of their largest), not below 0.1%
    if spread < (1e-3 if name == "densenet121" else 1e-2):
        raise SystemExit("%s: output barely depends on the input (%g)" % (name, spread))

    d = os.path.join(outdir, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, (x,), path, opset_version=OPSET, do_constant_folding=True,
                      export_params=True, training=torch.onnx.TrainingMode.EVAL,
                      input_names=["input"], output_names=["output"])
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)

    # input.bin / output.bin: raw little-endian float32, C order.
    x.numpy().astype("<f4").tofile(os.path.join(d, "input.bin"))
    y.numpy().astype("<f4").tofile(os.path.join(d, "output.bin"))

    # Independent check of the ONNX graph: numpy (float64) vs the PyTorch output.
    ref = y.numpy().astype(np.float64)
    got = run_onnx_numpy(m, {"input": x.numpy()})[0]
    if list(got.shape) != list(ref.shape):
        raise SystemExit("%s: numpy ONNX output shape %s != %s"
                         % (name, got.shape, ref.shape))
    rel = float(np.abs(got - ref).max() / np.abs(ref).max())
    if rel > 1e-4:                     # the whole-model criterion of the ONNX issue
        raise SystemExit("%s: numpy ONNX evaluation differs from PyTorch: %g" % (name, rel))

    ops = sorted({n.op_type for n in m.graph.node})
    meta = {
        "name": name,
        "description": desc,
        "input_name": m.graph.input[0].name,
        "output_name": m.graph.output[0].name,
        "input_shape": list(shape),
        "output_shape": list(y.shape),
        "dtype": "float32",
        "torch": torch.__version__,
        "onnx": onnx.__version__,
        "onnx_opset": OPSET,
        "onnx_ir_version": m.ir_version,
        "seed": seed,
        "params": params,
        "op_types": ops,
        "nodes": len(m.graph.node),
        "output_max_abs": float(np.abs(ref).max()),
        "onnx_numpy_max_rel_diff": rel,
    }
    with open(os.path.join(d, "meta.json"), "w") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    return meta, os.path.getsize(path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "models"),
                    help="where the test models go (default tests/models)")
    ap.add_argument("--bench", action="store_true",
                    help="also build MobileNetV2 and ResNet-18 at 224x224")
    ap.add_argument("--bench-out", default=os.path.join(REPO, "bench", "models"),
                    help="where the benchmark models go (default bench/models)")
    ap.add_argument("--only", default="", help="comma-separated model names")
    args = ap.parse_args()

    torch.set_num_threads(max(1, os.cpu_count() or 1))
    jobs = [(n, s, args.out) for n, s in MODELS.items()]
    if args.bench or any(n in BENCH_MODELS for n in args.only.split(",")):
        # The benchmark models are tens of MB and never committed: keep git from
        # seeing them without touching the project's .gitignore.
        os.makedirs(args.bench_out, exist_ok=True)
        gi = os.path.join(args.bench_out, ".gitignore")
        if not os.path.exists(gi):
            with open(gi, "w") as f:
                f.write("# written by tools/make_test_models.py: generated, not committed\n*\n")
    if args.bench:
        jobs += [(n, s, args.bench_out) for n, s in BENCH_MODELS.items()]
    if args.only:
        want = set(args.only.split(","))
        unknown = want - set(MODELS) - set(BENCH_MODELS)
        if unknown:
            ap.error("unknown model(s): %s" % ", ".join(sorted(unknown)))
        jobs = [j for j in jobs if j[0] in want]
        for n in want:
            if n in BENCH_MODELS and not args.bench:
                jobs.append((n, BENCH_MODELS[n], args.bench_out))

    print("torch %s, onnx %s, numpy %s, opset %d"
          % (torch.__version__, onnx.__version__, np.__version__, OPSET))
    rows = []
    for name, spec, out in jobs:
        t = time.time()
        meta, size = build_one(name, spec, out)
        rows.append((name, meta, size, time.time() - t))
    print()
    print("%-18s %9s %10s  %-14s %-12s %s" % ("model", "params", "onnx bytes",
                                              "input", "output", "op types"))
    for name, meta, size, _ in rows:
        print("%-18s %9d %10d  %-14s %-12s %s" % (
            name, meta["params"], size, "x".join(map(str, meta["input_shape"])),
            "x".join(map(str, meta["output_shape"])), " ".join(meta["op_types"])))
    print()
    print("all models: onnx.checker ok, numpy ONNX evaluation matches PyTorch "
          "(max rel diff %.1e), PyTorch output reproducible"
          % max(r[1]["onnx_numpy_max_rel_diff"] for r in rows))


if __name__ == "__main__":
    sys.exit(main())
