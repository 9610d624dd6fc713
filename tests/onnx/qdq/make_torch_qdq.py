#!/usr/bin/python3
"""QDQ models as PyTorch writes them, with PyTorch's own outputs as references.

    /usr/bin/python3 tests/onnx/qdq/make_torch_qdq.py

A model that calls torch.fake_quantize_per_tensor_affine on activations and
torch.fake_quantize_per_channel_affine on weights (what torch.ao.quantization's
FakeQuantize modules compute in quantization-aware training) exports at opset
13 as QuantizeLinear -> DequantizeLinear pairs: the activations' with int8 or
uint8 zero points, the weights' QuantizeLinear of the float weight itself
(with the scale computed from it by Abs / ReduceMax / Div, which LightNet
folds at import) and axis 0.  F.relu6 exports as Relu then Clip, F.silu as
Sigmoid then Mul, F.hardswish (opset 13) as HardSigmoid then Mul.  Writes
tests/onnx/qdq/torch_fq_{s8,u8}.{onnx,in.bin,ref.bin,scale}; the reference is
PyTorch's fake-quantized output, which LightNet's int8 kernels are held to
within 2 output steps on 99% of the elements and 4 on all (tests/aot/run.sh),
every conv and linear an int8 kernel call.  Also torch_fx_{qnnpack,fbgemm}:
a model quantized with torch.ao.quantization's FX flow and exported
(FxNet).  Needs Debian's python3-torch; the outputs are committed (CI has
no torch).
"""
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))


def fqw(w):
    s = (w.abs().flatten(1).max(1)[0] / 127).clamp(min=1e-8)
    return torch.fake_quantize_per_channel_affine(w, s, torch.zeros_like(s, dtype=torch.int32),
                                                  0, -128, 127)


class Net(nn.Module):
    """conv3x3 + relu, depthwise + F.relu6, a residual add, maxpool,
    conv1x1, SiLU, hardswish, global average pool, linear; every activation
    fake-quantized (lo..hi: -128..127 or 0..255)."""

    def __init__(self, lo, hi):
        super().__init__()
        self.lo, self.hi = lo, hi
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.c3 = nn.Conv2d(8, 16, 1)
        self.fc = nn.Linear(16, 6)

    def fq(self, x, s, z):
        return torch.fake_quantize_per_tensor_affine(x, s, z + (0 if self.lo < 0 else 128),
                                                     self.lo, self.hi)

    def forward(self, x):
        x = self.fq(x, 0.03, 0)
        a = self.fq(F.relu(F.conv2d(x, fqw(self.c1.weight), self.c1.bias, padding=1)), 0.02, -128)
        b = self.fq(F.relu6(F.conv2d(a, fqw(self.c2.weight), self.c2.bias, padding=1, groups=8)),
                    0.02, -128)
        x = self.fq(a + b, 0.03, -128)
        x = self.fq(F.max_pool2d(x, 2), 0.03, -128)
        x = self.fq(F.conv2d(x, fqw(self.c3.weight), self.c3.bias), 0.05, 3)
        x = self.fq(F.silu(x), 0.03, -110)
        x = self.fq(F.hardswish(x), 0.04, -100)
        x = self.fq(F.adaptive_avg_pool2d(x, 1), 0.04, -100).flatten(1)
        return self.fq(F.linear(x, fqw(self.fc.weight), self.fc.bias), 0.04, 0)


class FxNet(nn.Module):
    """What torch.ao.quantization's FX flow quantizes and torch.onnx exports
    (as QuantizeLinear -> Cast -> DequantizeLinear around float ops, uint8
    activations, the bias's zero point from ConstantOfShape): conv + batch
    norm + relu (fused by prepare_fx), depthwise + relu, a residual add,
    1x1 conv, maxpool, adaptive average pool, flatten, linear (a quantized
    concat does not export in PyTorch 1.13)."""

    def __init__(self):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.c3 = nn.Conv2d(8, 16, 1)
        self.fc = nn.Linear(16, 10)

    def forward(self, x):
        x = F.relu(self.b1(self.c1(x)))
        y = F.relu(self.c2(x))
        x = x + y
        x = F.max_pool2d(self.c3(x), 2)
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


def fx_models():
    """FxNet through prepare_fx / convert_fx with the qnnpack (per-tensor
    weights) and fbgemm (per-channel weights, activations in 0..127)
    defaults, calibrated on 16 random inputs; PyTorch's quantized output
    is the reference, its last scale the step."""
    from torch.ao.quantization import get_default_qconfig_mapping
    from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

    for engine in ("qnnpack", "fbgemm"):
        torch.manual_seed(1)
        # Debian's PyTorch runs QNNPACK only: fbgemm's qconfig, run by it
        torch.backends.quantized.engine = "qnnpack"
        m = FxNet().eval()
        with torch.no_grad():
            m.b1.running_mean.uniform_(-0.2, 0.2)
            m.b1.running_var.uniform_(0.5, 2)
        x = torch.randn(1, 3, 16, 16)
        p = prepare_fx(m, get_default_qconfig_mapping(engine), example_inputs=(x,))
        with torch.no_grad():
            for _ in range(16):
                p(torch.randn(1, 3, 16, 16))
        q = convert_fx(p)
        name = "torch_fx_" + engine
        with torch.no_grad():
            y = q(x)
            torch.onnx.export(q, (x,), os.path.join(HERE, name + ".onnx"), opset_version=13,
                              input_names=["x"], output_names=["y"])
        x.numpy().astype(np.float32).tofile(os.path.join(HERE, name + ".in.bin"))
        y.numpy().astype(np.float32).tofile(os.path.join(HERE, name + ".ref.bin"))
        open(os.path.join(HERE, name + ".scale"), "w").write("%.9g\n" % q.fc.scale)
        print(name, y.numpy().ravel())


def main():
    fx_models()
    torch.manual_seed(0)
    for name, lo, hi in (("torch_fq_s8", -128, 127), ("torch_fq_u8", 0, 255)):
        m = Net(lo, hi).eval()
        x = torch.randn(1, 3, 16, 16)
        with torch.no_grad():
            y = m(x)
            torch.onnx.export(m, x, os.path.join(HERE, name + ".onnx"), opset_version=13,
                              input_names=["x"], output_names=["y"])
        x.numpy().astype(np.float32).tofile(os.path.join(HERE, name + ".in.bin"))
        y.numpy().astype(np.float32).tofile(os.path.join(HERE, name + ".ref.bin"))
        open(os.path.join(HERE, name + ".scale"), "w").write("0.04\n")
        print(name, y.numpy().ravel())


if __name__ == "__main__":
    main()
