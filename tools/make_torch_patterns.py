#!/usr/bin/python3
"""Export the patterns real PyTorch models contain, each a small nn.Module,
with PyTorch's own output beside it (issue 16).

    /usr/bin/python3 tools/make_torch_patterns.py [--only NAME[,NAME...]] [--list]

Needs Debian's python3-torch and python3-torchvision (1.13 / 0.14) besides
python3-onnx and python3-numpy, run with /usr/bin/python3.  Nothing is
downloaded: every weight is random from a fixed seed per pattern, so the
files are the same on every run.  The outputs are committed, so make test
needs neither torch nor this script.

For each pattern NAME (at opset 13 unless its name ends in _opset<N>) it
writes to tests/onnx/torch/:
    NAME.onnx       torch.onnx.export (constant folding on; static shapes, but a
                    symbolic batch in the _dynbatch ones)
    NAME.in.bin     the input, raw little-endian (float32; int64 or bool, one
                    byte, where the graph input is); NAME.in0.bin, NAME.in1.bin ... when
                    the model has several inputs, in graph input order
    NAME.ref.bin    PyTorch's output for it (NAME.ref0.bin ... for several)
Each export also runs in ONNX Runtime (onnxruntime-node in bench/node_modules,
sh bench/setup.sh; skipped when absent, or with --no-ort), which must agree
with PyTorch within 1e-4 of the largest value: an exporter bug cannot make a
wrong reference.
make test-torch (tests/onnx/torch/run.py) runs each through the interpreter
and through ln-aot + cc and compares within 1e-4 of the largest reference
value.
"""
import argparse
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import onnx

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(REPO, "tests", "onnx", "torch")
MAX_BYTES = 300 * 1024   # MobileNetV3-small at width 0.25 is the largest, 272 KB

PATTERNS = {}


def pattern(name, opsets=(13,), dynamic=False):
    """Register fn() -> (module, inputs tuple, input names, output names);
    dynamic: the first dimension of every input and output is symbolic
    ("batch"), as exports for deployment often have it (LightNet takes 1)."""
    def reg(fn):
        for o in opsets:
            n = name if len(opsets) == 1 and o == 13 else "%s_opset%d" % (name, o)
            PATTERNS[n] = (fn, o, dynamic)
        return fn
    return reg


def randn(*shape):
    return torch.randn(*shape)


# --------------------------------------------------------------------------------------
# Padding: TF-style "same" before a strided conv
# --------------------------------------------------------------------------------------

class PadConv(nn.Module):
    """nn.ZeroPad2d((0, 1, 0, 1)) and F.pad(x, (0, 1, 0, 1)) each before a stride-2
    conv: at opset 11+ the exporter writes the pads as a ConstantOfShape -> Concat ->
    Reshape -> Slice(step -1) -> Transpose -> Reshape -> Cast chain into Pad."""

    def __init__(self):
        super().__init__()
        self.pad = nn.ZeroPad2d((0, 1, 0, 1))
        self.c1 = nn.Conv2d(3, 8, 3, stride=2)
        self.c2 = nn.Conv2d(8, 8, 3, stride=2)

    def forward(self, x):
        x = torch.relu(self.c1(self.pad(x)))
        return self.c2(F.pad(x, (0, 1, 0, 1)))


@pattern("zeropad_conv", opsets=(11, 13, 17))
def _zeropad_conv():
    return PadConv(), (randn(1, 3, 16, 16),), ["x"], ["y"]


class PadToMultiple(nn.Module):
    """Pad height and width up to a multiple of 8 with pads computed from the
    shape, all eight given (F.pad of a 4-d tensor, as detection and
    segmentation models pad their input): the export concatenates the pads
    with an empty ConstantOfShape."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, stride=2, padding=1)

    def forward(self, x):
        h, w = x.shape[-2:]
        y = F.pad(x, (0, (8 - w % 8) % 8, 0, (8 - h % 8) % 8, 0, 0, 0, 0), value=0.5)
        return self.c(y)


@pattern("pad_to_multiple", opsets=(11, 13, 17))
def _pad_to_multiple():
    return PadToMultiple(), (randn(1, 3, 13, 11),), ["x"], ["y"]


class ReflectPad(nn.Module):
    """F.pad reflect and replicate, a padding_mode="reflect" conv: the same
    pads chain into Pad."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(4, 4, 3)
        self.r = nn.Conv2d(4, 4, 3, padding=1, padding_mode="reflect")

    def forward(self, x):
        y = self.c(F.pad(x, (1, 1, 1, 1), mode="reflect"))
        return self.r(y + F.pad(x, (1, 1, 1, 1), mode="replicate")[:, :, 1:-1, 1:-1])


@pattern("reflect_replicate_pad")
def _reflect_pad():
    return ReflectPad(), (randn(1, 4, 8, 8),), ["x"], ["y"]


# --------------------------------------------------------------------------------------
# Audio
# --------------------------------------------------------------------------------------

class AudioNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv1d(1, 8, 9, stride=2, padding=4)
        self.b1 = nn.BatchNorm1d(8)
        self.p1 = nn.MaxPool1d(3, stride=2, padding=1)
        self.c2 = nn.Conv1d(8, 16, 5, padding=2, dilation=1, groups=2)
        self.b2 = nn.BatchNorm1d(16)
        self.p2 = nn.AvgPool1d(2)
        self.c3 = nn.Conv1d(16, 16, 3, padding=1)
        self.gap = nn.AdaptiveAvgPool1d(1)
        self.fc = nn.Linear(16, 6)

    def forward(self, x):
        x = self.p1(torch.relu(self.b1(self.c1(x))))
        x = self.p2(torch.relu(self.b2(self.c2(x))))
        x = torch.relu(self.c3(x))
        return self.fc(self.gap(x).squeeze(-1))


@pattern("audio_conv1d")
def _audio():
    m = AudioNet()
    for b in (m.b1, m.b2):   # trained-looking statistics
        b.running_mean.uniform_(-0.5, 0.5)
        b.running_var.uniform_(0.5, 2.0)
    return m, (randn(2, 1, 400),), ["audio"], ["logits"]


class AdaptivePool1d(nn.Module):
    def forward(self, x):
        return torch.cat([F.adaptive_avg_pool1d(x, 4), F.adaptive_max_pool1d(x, 4)], 1)


@pattern("adaptive_pool1d")
def _adaptive_pool1d():
    return AdaptivePool1d(), (randn(1, 3, 32),), ["x"], ["y"]


# --------------------------------------------------------------------------------------
# Recurrent keyword spotters
# --------------------------------------------------------------------------------------

class GruKws(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(10, 16, num_layers=2, batch_first=True)
        self.fc = nn.Linear(16, 12)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y[:, -1])


@pattern("gru_kws", opsets=(11, 13))
def _gru_kws():
    return GruKws(), (randn(2, 25, 10),), ["mfcc"], ["logits"]


class LstmKws(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.LSTM(10, 12, num_layers=2, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(24, 12)

    def forward(self, x):
        y, _ = self.rnn(x)
        return self.fc(y.mean(dim=1))


@pattern("lstm_kws", opsets=(11, 13))
def _lstm_kws():
    return LstmKws(), (randn(2, 25, 10),), ["mfcc"], ["logits"]


# --------------------------------------------------------------------------------------
# Log-mel front end
# --------------------------------------------------------------------------------------

class LogMel(nn.Module):
    def __init__(self):
        super().__init__()
        g = torch.Generator().manual_seed(7)
        self.register_buffer("mel", torch.rand(65, 20, generator=g) / 8)

    def forward(self, spec):
        x = torch.matmul(spec, self.mel)
        x = 10.0 * torch.log10(torch.clamp(x, min=1e-10))
        return torch.maximum(x, x.max() - 80.0)


@pattern("logmel")
def _logmel():
    # a power spectrogram: squares, spanning many decades (zeros included)
    s = (randn(1, 30, 65) * torch.logspace(-6, 1, 65)) ** 2
    s[0, :3] = 0.0
    return LogMel(), (s,), ["spec"], ["logmel"]


# --------------------------------------------------------------------------------------
# A voice-activity detector with its LSTM state as inputs and outputs
# --------------------------------------------------------------------------------------

class Vad(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Conv1d(1, 8, 16, stride=8)
        self.lstm = nn.LSTM(8, 16, batch_first=True)
        self.out = nn.Linear(16, 1)

    def forward(self, x, sr, h, c):
        # the sample rate rescales the input (arithmetic on an int64 input)
        x = x * (sr.to(torch.float32) / 16000.0)
        f = torch.relu(self.enc(x.unsqueeze(1))).transpose(1, 2)
        y, (hn, cn) = self.lstm(f, (h, c))
        return torch.sigmoid(self.out(y[:, -1])), hn, cn


@pattern("vad_lstm_state")
def _vad():
    return (Vad(), (randn(1, 256) * 0.3, torch.tensor(8000, dtype=torch.int64),
                    randn(1, 1, 16) * 0.5, randn(1, 1, 16) * 0.5),
            ["x", "sr", "h", "c"], ["prob", "hn", "cn"])


# --------------------------------------------------------------------------------------
# MobileNetV3-small (torchvision, random weights, width 0.25 to keep it small)
# --------------------------------------------------------------------------------------

@pattern("mobilenet_v3_small", opsets=(13, 14))
def _mnv3():
    import torchvision
    m = torchvision.models.mobilenet_v3_small(weights=None, width_mult=0.25, reduced_tail=True,
                                              num_classes=10)
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
    return m, (randn(1, 3, 64, 64),), ["image"], ["logits"]


# --------------------------------------------------------------------------------------
# Inverted residual blocks on a map large enough that the host fuses each 1x1 expand
# with its depthwise conv (conv2d_pwdw_cpu runs them in channel blocks)
# --------------------------------------------------------------------------------------

class InvertedResidual(nn.Module):
    """MobileNetV2's block (expand 4->24, ReLU6, depthwise 3x3, project, residual)
    then EfficientNet's (expand 4->32, SiLU, depthwise 5x5 stride 2, project 32->8),
    batch norms folded at export; 4x96x96 in."""
    def __init__(self):
        super().__init__()
        def cbn(ci, co, k, s=1, g=1):
            return nn.Sequential(nn.Conv2d(ci, co, k, s, k // 2, groups=g, bias=False),
                                 nn.BatchNorm2d(co))
        self.e1, self.d1, self.p1 = cbn(4, 24, 1), cbn(24, 24, 3, 1, 24), cbn(24, 4, 1)
        self.e2, self.d2, self.p2 = cbn(4, 32, 1), cbn(32, 32, 5, 2, 32), cbn(32, 8, 1)
        for mod in self.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.2, 0.2)
                mod.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        x = x + self.p1(F.relu6(self.d1(F.relu6(self.e1(x)))))
        return self.p2(F.silu(self.d2(F.silu(self.e2(x)))))


@pattern("inverted_residual_96")
def _inverted_residual():
    return InvertedResidual(), (randn(1, 4, 96, 96),), ["x"], ["y"]


class BandedMBConv(nn.Module):
    """Two stride-2 expand + depthwise pairs on an expand input larger than
    512 KiB (12 x 124 x 124, from a small input upsampled in the graph so
    that the committed input stays small), which the host runs in bands of
    output rows (ln_rt_conv2d_pwdw_f32): 1x1 + ReLU6 then 3x3 pads 1 +
    ReLU6, as MobileNetV2's features.2; 1x1 + SiLU, F.pad (1, 2, 1, 2) then
    5x5 pads 0 (asymmetric pads once the Pad folds into the conv) + SiLU."""

    def __init__(self):
        super().__init__()

        def cbn(ci, co, k, s=1, g=1, p=None):
            return nn.Sequential(nn.Conv2d(ci, co, k, s, k // 2 if p is None else p,
                                           groups=g, bias=False),
                                 nn.BatchNorm2d(co))
        self.stem = cbn(3, 12, 3)
        self.e1, self.d1, self.p1 = cbn(12, 72, 1), cbn(72, 72, 3, 2, 72), cbn(72, 8, 1)
        self.e2, self.d2, self.p2 = cbn(12, 48, 1), cbn(48, 48, 5, 2, 48, 0), cbn(48, 8, 1)
        for mod in self.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.running_mean.uniform_(-0.2, 0.2)
                mod.running_var.uniform_(0.5, 1.5)

    def forward(self, x):
        x = F.interpolate(x, scale_factor=4, mode="bilinear", align_corners=False)
        x = F.relu(self.stem(x))
        a = self.p1(F.relu6(self.d1(F.relu6(self.e1(x)))))
        b = self.p2(F.silu(self.d2(F.pad(F.silu(self.e2(x)), (1, 2, 1, 2)))))
        return F.avg_pool2d(a + b, 2)


@pattern("inverted_residual_bands")
def _inverted_residual_bands():
    return BandedMBConv(), (randn(1, 3, 31, 31),), ["x"], ["y"]


# --------------------------------------------------------------------------------------
# Common export patterns, each small
# --------------------------------------------------------------------------------------

class Flatten(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3, padding=1)
        self.fc1 = nn.Linear(4 * 6 * 6, 8)
        self.fc2 = nn.Linear(4 * 6 * 6, 8)

    def forward(self, x):
        y = F.max_pool2d(self.c(x), 2)
        return self.fc1(y.view(y.size(0), -1)) + self.fc2(torch.flatten(y, 1))


@pattern("flatten_view")
def _flatten():
    return Flatten(), (randn(2, 3, 12, 12),), ["x"], ["y"]


class Interp(nn.Module):
    def __init__(self, **kw):
        super().__init__()
        self.kw = kw
        self.c = nn.Conv2d(2, 2, 1)

    def forward(self, x):
        return self.c(F.interpolate(x, **self.kw))


for _n, _kw in [("interp_nearest2x", dict(scale_factor=2, mode="nearest")),
                ("interp_bilinear2x", dict(scale_factor=2, mode="bilinear", align_corners=False)),
                ("interp_bilinear2x_ac", dict(scale_factor=2, mode="bilinear", align_corners=True)),
                ("interp_bilinear_size", dict(size=(7, 11), mode="bilinear", align_corners=False)),
                ("interp_nearest_size", dict(size=(9, 4), mode="nearest"))]:
    pattern(_n, opsets=(11, 13))(lambda kw=_kw: (Interp(**kw), (randn(1, 2, 5, 6),), ["x"], ["y"]))


class AdaptivePool2d(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 4, 3)

    def forward(self, x):
        y = self.c(x)
        a = nn.functional.adaptive_avg_pool2d(y, (1, 1)).flatten(1)
        b = nn.functional.adaptive_avg_pool2d(y, (2, 2)).flatten(1)
        return torch.cat([a, b], 1)


@pattern("adaptive_avgpool2d")
def _adaptive_pool2d():
    return AdaptivePool2d(), (randn(1, 3, 10, 10),), ["x"], ["y"]


class Activations(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.ln = nn.LayerNorm(16)
        self.acts = nn.ModuleList([nn.GELU(), nn.SiLU(), nn.Mish(), nn.Hardswish(),
                                   nn.GELU(approximate="tanh"), nn.ELU(), nn.LeakyReLU(0.1),
                                   nn.Softplus(), nn.Hardsigmoid(), nn.ReLU6()])

    def forward(self, x):
        y = self.ln(self.fc(x))
        return torch.stack([a(y * 3.0) for a in self.acts], 0)


@pattern("activations", opsets=(13, 17))
def _acts():
    return Activations(), (randn(2, 5, 16),), ["x"], ["y"]


class CatSplit(nn.Module):
    def forward(self, x):
        a, b = torch.chunk(x, 2, dim=1)
        c, d, e = torch.split(x, [1, 2, 3], dim=1)
        s = x[:, ::2]
        t = x[..., 1::3]
        return torch.cat([a * b, s, c + e[:, :1], d], 1).sum(-1, keepdim=True) + t.mean()


@pattern("cat_chunk_split_slice")
def _catsplit():
    return CatSplit(), (randn(2, 6, 7),), ["x"], ["y"]


class Mha(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = nn.MultiheadAttention(16, 4, batch_first=True)

    def forward(self, x):
        y, _ = self.att(x, x, x)   # need_weights=False takes the fast path, not exportable
        return y


@pattern("multihead_attention")
def _mha():
    return Mha(), (randn(2, 6, 16),), ["x"], ["y"]


class HandAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q = nn.Linear(8, 8)
        self.k = nn.Linear(8, 8)
        self.v = nn.Linear(8, 8)
        self.register_buffer("tril", torch.tril(torch.ones(16, 16)))

    def forward(self, x):
        q, k, v = self.q(x), self.k(x), self.v(x)
        s = torch.matmul(q, k.transpose(-2, -1)) / (8 ** 0.5)
        n = x.shape[1]
        s = s.masked_fill(self.tril[:n, :n] == 0, float("-inf"))
        return torch.matmul(torch.softmax(s, dim=-1), v)


@pattern("hand_attention")
def _hand_att():
    return HandAttention(), (randn(2, 5, 8),), ["x"], ["y"]


class WindowAttention(nn.Module):
    """Swin-style shifted-window attention as torchvision 0.14 writes it: a
    roll, windows by view/permute, a relative-position bias gathered from a
    table, a mask built with slices of zeros for the shifted windows, and
    F.dropout(p=0.0, training=True) on the attention (exported as Dropout
    with training_mode true and ratio 0: it drops nothing)."""

    def __init__(self, dim=8, heads=2, win=4):
        super().__init__()
        self.heads, self.win = heads, win
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.table = nn.Parameter(torch.randn((2 * win - 1) ** 2, heads) * 0.1)
        c = torch.stack(torch.meshgrid(torch.arange(win), torch.arange(win), indexing="ij"))
        c = c.flatten(1)
        r = (c[:, :, None] - c[:, None, :]).permute(1, 2, 0) + (win - 1)
        self.register_buffer("index", (r[:, :, 0] * (2 * win - 1) + r[:, :, 1]).flatten())

    def forward(self, x):
        B, H, W, C = x.shape
        w, s = self.win, self.win // 2
        x = torch.roll(x, shifts=(-s, -s), dims=(1, 2))
        t = x.view(B, H // w, w, W // w, w, C).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, C)
        qkv = self.qkv(t).reshape(t.size(0), w * w, 3, self.heads, C // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        a = (q * (C // self.heads) ** -0.5).matmul(k.transpose(-2, -1))
        bias = self.table[self.index].view(w * w, w * w, -1).permute(2, 0, 1)
        a = a + bias.unsqueeze(0)
        m = x.new_zeros((H, W))
        cnt = 0
        for hs in ((0, -w), (-w, -s), (-s, None)):
            for ws in ((0, -w), (-w, -s), (-s, None)):
                m[hs[0]:hs[1], ws[0]:ws[1]] = cnt
                cnt += 1
        m = m.view(H // w, w, W // w, w).permute(0, 2, 1, 3).reshape(-1, w * w)
        m = m.unsqueeze(1) - m.unsqueeze(2)
        m = m.masked_fill(m != 0, -100.0).masked_fill(m == 0, 0.0)
        a = a.view(-1, (H // w) * (W // w), self.heads, w * w, w * w) + m.unsqueeze(1).unsqueeze(0)
        a = F.softmax(a.view(-1, self.heads, w * w, w * w), dim=-1)
        a = F.dropout(a, p=0.0, training=True)
        t = a.matmul(v).transpose(1, 2).reshape(t.size(0), w * w, C)
        t = self.proj(t).view(B, H // w, W // w, w, w, C).permute(0, 1, 3, 2, 4, 5).reshape(B, H, W, C)
        return torch.roll(t, shifts=(s, s), dims=(1, 2))


@pattern("swin_window_attention", opsets=(13, 17))
def _swin():
    return WindowAttention(), (randn(1, 8, 8, 8),), ["x"], ["y"]


class PixelShuffle(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 12, 3, padding=1)
        self.ps = nn.PixelShuffle(2)
        self.pu = nn.PixelUnshuffle(2)

    def forward(self, x):
        y = self.ps(self.c(x))
        return y, self.pu(y)


@pattern("pixel_shuffle")
def _ps():
    return PixelShuffle(), (randn(1, 3, 4, 6),), ["x"], ["y", "z"]


class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.e = nn.Embedding(50, 8)
        self.fc = nn.Linear(8, 3)

    def forward(self, tok):
        return self.fc(self.e(tok).mean(1))


@pattern("embedding_int64")
def _embed():
    g = torch.Generator().manual_seed(3)
    return Embed(), (torch.randint(0, 50, (2, 7), generator=g),), ["tokens"], ["y"]


class SqueezeExcite(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(8, 8, 3, padding=1)
        self.fc1 = nn.Conv2d(8, 2, 1)
        self.fc2 = nn.Conv2d(2, 8, 1)

    def forward(self, x):
        y = torch.relu(self.c(x))
        s = torch.sigmoid(self.fc2(torch.relu(self.fc1(y.mean((2, 3), keepdim=True)))))
        return y * s


@pattern("squeeze_excite")
def _se():
    return SqueezeExcite(), (randn(1, 8, 6, 6),), ["x"], ["y"]


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(4, 4, 3, padding=1)
        self.b1 = nn.BatchNorm2d(4)
        self.c2 = nn.Conv2d(4, 4, 3, padding=1)
        self.b2 = nn.BatchNorm2d(4)

    def forward(self, x):
        y = self.b2(self.c2(F.relu(self.b1(self.c1(x)), inplace=True)))
        y += x
        return F.relu(y, inplace=True)


@pattern("residual_inplace")
def _res():
    m = Residual()
    for b in (m.b1, m.b2):
        b.running_mean.uniform_(-0.5, 0.5)
        b.running_var.uniform_(0.5, 2.0)
        b.weight.data.uniform_(0.5, 1.5)
        b.bias.data.uniform_(-0.5, 0.5)
    return m, (randn(1, 4, 8, 8),), ["x"], ["y"]


class PReLUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 6, 3)
        self.p1 = nn.PReLU(6)
        self.p2 = nn.PReLU()
        self.fc = nn.Linear(6, 4)
        self.p3 = nn.PReLU()

    def forward(self, x):
        y = self.p2(self.p1(self.c(x)) - 0.2)
        return self.p3(self.fc(y.mean((2, 3))))


@pattern("prelu")
def _prelu():
    m = PReLUNet()
    m.p1.weight.data.uniform_(-0.5, 0.5)
    return m, (randn(1, 3, 7, 7),), ["x"], ["y"]


class ConvT(nn.Module):
    def __init__(self):
        super().__init__()
        self.t1 = nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1, output_padding=1)
        self.t2 = nn.ConvTranspose2d(3, 2, (3, 4), stride=(2, 3), padding=(1, 0),
                                     output_padding=(0, 2), dilation=1)

    def forward(self, x):
        return self.t2(torch.relu(self.t1(x)))


@pattern("conv_transpose_outpad")
def _convt():
    return ConvT(), (randn(1, 4, 5, 5),), ["x"], ["y"]


class GroupNormNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(3, 8, 3)
        self.g = nn.GroupNorm(4, 8)
        self.g1 = nn.GroupNorm(1, 8)

    def forward(self, x):
        return self.g1(torch.relu(self.g(self.c(x))))


@pattern("group_norm")
def _gn():
    m = GroupNormNet()
    m.g.weight.data.uniform_(0.5, 1.5)
    m.g.bias.data.uniform_(-0.5, 0.5)
    return m, (randn(2, 3, 8, 8),), ["x"], ["y"]


class WhereCmp(nn.Module):
    def forward(self, x, y):
        a = torch.where(x > y, x, y * 0.5)
        b = torch.where(x < 0, torch.zeros_like(x), x)
        return a + b, (x >= 0.25).float()


@pattern("where_compare")
def _where():
    return WhereCmp(), (randn(3, 8), randn(3, 8)), ["x", "y"], ["z", "m"]


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.pos = nn.Parameter(torch.randn(1, 6, 16) * 0.1)
        self.enc = nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.1,
                                              activation="gelu", batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x):
        return self.head(self.enc(x + self.pos)[:, 0])


@pattern("transformer_encoder", opsets=(13, 17))
def _transformer():
    return Transformer(), (randn(2, 6, 16),), ["x"], ["y"]


class Classifier(nn.Module):
    """A classifier's tail as exported for deployment: softmax, log_softmax, the
    top class as int64 (argmax) and the top 3 (values and int64 indices)."""

    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(12, 10)

    def forward(self, x):
        z = self.fc(x)
        v, i = torch.topk(z, 3, dim=1)
        return torch.softmax(z, 1), F.log_softmax(z, dim=-1), z.argmax(1), v, i


@pattern("classifier_head")
def _classifier():
    return Classifier(), (randn(3, 12),), ["x"], ["prob", "logprob", "top", "top3", "top3_idx"]


class Norms(nn.Module):
    def __init__(self):
        super().__init__()
        self.inorm = nn.InstanceNorm2d(3, affine=True)
        self.bn = nn.BatchNorm1d(5)

    def forward(self, x, v):
        a = F.normalize(v, dim=1)
        b = (v - v.mean(1, keepdim=True)) / torch.sqrt(v.var(1, keepdim=True, unbiased=False) + 1e-5)
        c = torch.rsqrt(v.pow(2).sum(-1, keepdim=True)) * v.std(-1, keepdim=True)
        return self.inorm(x), a + b + c + self.bn(v)


@pattern("norms")
def _norms():
    m = Norms()
    m.bn.running_mean.uniform_(-0.5, 0.5)
    m.bn.running_var.uniform_(0.5, 2.0)
    m.inorm.weight.data.uniform_(0.5, 1.5)
    return m, (randn(2, 3, 5, 5), randn(4, 5)), ["x", "v"], ["y", "z"]


class ShapeOps(nn.Module):
    """permute / transpose / reshape / expand / repeat / unsqueeze / squeeze,
    torch.arange as a constant, gather and index_select with int64 indices."""

    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([3, 0, 2]))

    def forward(self, x):
        b, c, h, w = x.shape
        y = x.permute(0, 2, 3, 1).reshape(b, h * w, c)
        y = y.transpose(1, 2).contiguous().view(b, c, h, w)
        r = torch.arange(w, dtype=torch.float32).view(1, 1, 1, w)
        e = x.mean(1, keepdim=True).expand(b, c, h, w) + r
        t = x[:, :1].repeat(1, c, 1, 1)
        s = torch.index_select(x, 3, self.idx)
        g = torch.gather(x, 1, x.argsort(1)[:, :1].expand(b, 1, h, w))
        return (y + e + t).unsqueeze(1).squeeze(1), s, g


@pattern("shape_ops")
def _shape_ops():
    return ShapeOps(), (randn(2, 3, 4, 5),), ["x"], ["y", "s", "g"]


class ConvVariants(nn.Module):
    """An even kernel, depthwise separable, a dilated grouped conv, no bias,
    relu6 and clamp (padding="same" does not export in torch 1.13; a
    padding_mode="reflect" conv is in reflect_replicate_pad)."""

    def __init__(self):
        super().__init__()
        self.same3 = nn.Conv2d(3, 6, 3, padding=1)
        self.same4 = nn.Conv2d(6, 6, 4, padding=2, bias=False)
        self.dw = nn.Conv2d(6, 6, 3, padding=1, groups=6)
        self.pw = nn.Conv2d(6, 8, 1)
        self.refl = nn.Conv2d(8, 4, 3, padding=1)
        self.dil = nn.Conv2d(4, 4, 3, padding=2, dilation=2, groups=2)

    def forward(self, x):
        y = F.relu6(self.same4(self.same3(x)))
        y = self.pw(F.relu(self.dw(y)))
        return self.dil(self.refl(y)).clamp(-1.0, 1.0)


@pattern("conv_variants")
def _conv_variants():
    return ConvVariants(), (randn(1, 3, 9, 8),), ["x"], ["y"]


class Pools(nn.Module):
    def forward(self, x):
        a = F.adaptive_max_pool2d(x, (1, 1)).flatten(1)
        b = F.max_pool2d(x, 3, stride=2, padding=1, ceil_mode=True).mean((2, 3))
        c = F.avg_pool2d(x, 3, stride=2, padding=1, count_include_pad=False).amax((2, 3))
        d = F.avg_pool2d(x, 2, ceil_mode=True).sum((2, 3))
        v, _ = x.max(dim=2)
        return torch.cat([a, b, c, d, v.min(-1).values], 1)


@pattern("pools")
def _pools():
    return Pools(), (randn(2, 3, 7, 9),), ["x"], ["y"]


class MaskedMean(nn.Module):
    """Mean over time of the valid steps: a mask from the lengths (int64 input)
    against torch.arange, masked_fill, a float cast and a division."""

    def forward(self, x, lengths):
        t = torch.arange(x.shape[1]).unsqueeze(0)
        mask = t < lengths.unsqueeze(1)
        s = x.masked_fill(~mask.unsqueeze(-1), 0.0).sum(1)
        return s / lengths.unsqueeze(1).to(x.dtype)


@pattern("masked_mean_lengths")
def _masked_mean():
    return MaskedMean(), (randn(3, 7, 4), torch.tensor([7, 3, 1])), ["x", "lengths"], ["y"]


class Upsample(nn.Module):
    def __init__(self):
        super().__init__()
        self.up1 = nn.Upsample(scale_factor=(2, 1), mode="nearest")
        self.up2 = nn.UpsamplingBilinear2d(scale_factor=2)

    def forward(self, x):
        return self.up1(x), self.up2(x), F.interpolate(x, scale_factor=1.5, mode="nearest")


@pattern("upsample_modules", opsets=(11, 13))
def _upsample():
    return Upsample(), (randn(1, 2, 4, 6),), ["x"], ["a", "b", "c"]


@pattern("flatten_view_dynbatch", dynamic=True)
def _flatten_dyn():
    return Flatten(), (randn(1, 3, 12, 12),), ["x"], ["y"]


@pattern("lstm_kws_dynbatch", dynamic=True)
def _lstm_dyn():
    return LstmKws(), (randn(1, 25, 10),), ["mfcc"], ["logits"]


@pattern("multihead_attention_dynbatch", dynamic=True)
def _mha_dyn():
    return Mha(), (randn(1, 6, 16),), ["x"], ["y"]


class StreamingConv(nn.Module):
    """A streaming conv: the previous frames come in as a cache input, are
    concatenated before the new ones, and the last ones go out as the next cache."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv1d(8, 6, 5)

    def forward(self, x, cache):
        full = torch.cat([cache, x], 2)
        return self.c(full), full[:, :, -4:]


@pattern("streaming_conv_cache")
def _stream_conv():
    return StreamingConv(), (randn(1, 8, 10), randn(1, 8, 4)), ["x", "cache"], ["y", "next_cache"]


class CausalTcn(nn.Module):
    """Causal dilated Conv1d by padding both sides and cutting the right one off
    (x[:, :, :-p]), depthwise, GLU, a residual, attention pooling over time."""

    def __init__(self):
        super().__init__()
        self.inp = nn.Conv1d(4, 8, 1)
        self.dw = nn.ModuleList([nn.Conv1d(8, 8, 3, padding=2 * d, dilation=d, groups=8)
                                 for d in (1, 2, 4)])
        self.pw = nn.ModuleList([nn.Conv1d(8, 16, 1) for _ in range(3)])
        self.att = nn.Linear(8, 1)

    def forward(self, x):
        x = self.inp(x)
        for dw, pw, d in zip(self.dw, self.pw, (1, 2, 4)):
            y = dw(x)[:, :, :-2 * d]
            x = x + F.glu(pw(y), dim=1)
        h = x.transpose(1, 2)
        w = torch.softmax(self.att(h), dim=1)
        return (w * h).sum(1)


@pattern("causal_tcn")
def _tcn():
    return CausalTcn(), (randn(2, 4, 30),), ["x"], ["y"]


class UNetTiny(nn.Module):
    def __init__(self):
        super().__init__()
        self.d1 = nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU())
        self.d2 = nn.Sequential(nn.Conv2d(4, 8, 3, padding=1), nn.ReLU())
        self.up = nn.ConvTranspose2d(8, 4, 2, stride=2)
        self.u1 = nn.Sequential(nn.Conv2d(8, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 1, 1))

    def forward(self, x):
        a = self.d1(x)
        b = self.d2(F.max_pool2d(a, 2))
        return torch.sigmoid(self.u1(torch.cat([self.up(b), a], 1)))


@pattern("unet_tiny")
def _unet():
    return UNetTiny(), (randn(1, 1, 16, 12),), ["x"], ["mask"]


class Activations2(nn.Module):
    def __init__(self):
        super().__init__()
        self.acts = nn.ModuleList([nn.Hardtanh(-0.5, 1.5), nn.Softsign(), nn.Tanhshrink(),
                                   nn.LogSigmoid(), nn.CELU(0.7), nn.SELU(),
                                   nn.Hardshrink(0.3), nn.Softshrink(0.3), nn.Softmin(dim=1),
                                   nn.LogSoftmax(dim=1), nn.Softmax2d(), nn.Sigmoid(), nn.Tanh()])

    def forward(self, x):
        return torch.stack([a(x * 2.0) for a in self.acts], 0)


@pattern("activations2")
def _acts2():
    return Activations2(), (randn(2, 3, 4, 5),), ["x"], ["y"]


class MathOps(nn.Module):
    def forward(self, x, y):
        a = torch.abs(x) + torch.exp(-x * x) + torch.log1p(torch.abs(y)) + torch.sin(x) * torch.cos(y)
        b = torch.floor(x * 3) + torch.round(y * 3) + torch.sign(x) + torch.reciprocal(torch.abs(y) + 1)
        c = torch.abs(x) ** 0.5 + torch.pow(y, 3) + torch.erf(x) + torch.atan(y) + torch.ceil(y)
        d = torch.remainder(x * 5, 1.5) + torch.fmod(y * 5, 1.5) + torch.minimum(x, y) - torch.maximum(x, y)
        e = torch.clamp(x, min=y) + torch.clamp(x, max=0.25) + torch.clamp(x, min=-0.25)
        return a + b + c + d + e, torch.rsqrt(torch.abs(x) + 0.5) / x.shape[-1]


@pattern("math_ops")
def _math():
    return MathOps(), (randn(3, 7), randn(3, 7)), ["x", "y"], ["z", "w"]


class SeqOps(nn.Module):
    """flip, roll, cumsum, bmm, sin/cos positions from arange, zeros_like, a
    division by a size, masked_fill with a causal mask from arange."""

    def forward(self, x, y):
        n, t, c = x.shape
        pos = torch.arange(t, dtype=torch.float32).unsqueeze(1)
        freq = torch.exp(torch.arange(0, c, 2, dtype=torch.float32) * (-4.0 / c))
        pe = torch.cat([torch.sin(pos * freq), torch.cos(pos * freq)], 1)
        z = torch.flip(x, [1]) + torch.roll(x, 2, 1) + torch.cumsum(x, 1) + pe
        s = torch.bmm(z, y.transpose(1, 2)) / t
        i = torch.arange(t)
        s = s.masked_fill(i.unsqueeze(0) > i.unsqueeze(1), 0.0)
        return s + torch.zeros_like(s)


@pattern("seq_ops")
def _seq():
    return SeqOps(), (randn(2, 6, 8), randn(2, 6, 8)), ["x", "y"], ["y_out"]


class GruStream(nn.Module):
    """A streaming GRU keyword spotter: its state in and out as graph inputs
    and outputs, a softmax over the classes."""

    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(12, 16, num_layers=2, batch_first=True)
        self.fc = nn.Linear(16, 5)

    def forward(self, x, h):
        y, hn = self.gru(x, h)
        return torch.softmax(self.fc(y), -1), hn


@pattern("gru_stream_state")
def _gru_stream():
    return GruStream(), (randn(1, 4, 12), randn(2, 1, 16) * 0.5), ["x", "h"], ["probs", "hn"]


class RnnTanh(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(6, 10, num_layers=2, batch_first=True, bidirectional=True)

    def forward(self, x):
        return self.rnn(x)[0]


@pattern("rnn_tanh")
def _rnn_tanh():
    return RnnTanh(), (randn(2, 7, 6),), ["x"], ["y"]


class TokenPosEmbed(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(40, 12, padding_idx=0)
        self.pos = nn.Embedding(16, 12)
        self.ln = nn.LayerNorm(12)
        self.fc = nn.Linear(12, 2)

    def forward(self, tokens):
        p = torch.arange(tokens.shape[1]).unsqueeze(0)
        h = self.ln(self.tok(tokens) + self.pos(p))
        mask = (tokens != 0).unsqueeze(-1).float()
        return self.fc((h * mask).sum(1) / mask.sum(1))


@pattern("token_pos_embedding")
def _tokpos():
    g = torch.Generator().manual_seed(5)
    t = torch.randint(1, 40, (2, 9), generator=g)
    t[1, 6:] = 0    # padding
    return TokenPosEmbed(), (t,), ["tokens"], ["y"]


class SequentialFlatten(nn.Module):
    def __init__(self):
        super().__init__()
        # (nn.Unflatten does not export in torch 1.13: a view instead)
        self.net = nn.Sequential(nn.Conv2d(2, 4, 3), nn.ReLU(), nn.Flatten(), nn.Dropout(0.5),
                                 nn.Linear(4 * 4 * 4, 32))
        self.tail = nn.Sequential(nn.BatchNorm1d(2), nn.Flatten(), nn.Linear(32, 3))

    def forward(self, x):
        return self.tail(self.net(x).view(-1, 2, 16))


@pattern("sequential_flatten")
def _seqflat():
    m = SequentialFlatten()
    m.tail[0].running_mean.uniform_(-0.5, 0.5)
    m.tail[0].running_var.uniform_(0.5, 2.0)
    return m, (randn(3, 2, 6, 6),), ["x"], ["y"]


class DsConv1d(nn.Module):
    """MobileNet-style audio block: depthwise Conv1d, BatchNorm1d, Hardswish,
    pointwise, an SE gate with Hardsigmoid."""

    def __init__(self):
        super().__init__()
        self.dw = nn.Conv1d(8, 8, 5, padding=2, groups=8, bias=False)
        self.bn = nn.BatchNorm1d(8)
        self.pw = nn.Conv1d(8, 12, 1)
        self.se1 = nn.Conv1d(12, 4, 1)
        self.se2 = nn.Conv1d(4, 12, 1)

    def forward(self, x):
        y = self.pw(F.hardswish(self.bn(self.dw(x))))
        g = F.hardsigmoid(self.se2(F.relu(self.se1(F.adaptive_avg_pool1d(y, 1)))))
        return y * g


@pattern("dsconv1d_se")
def _dsconv1d():
    m = DsConv1d()
    m.bn.running_mean.uniform_(-0.5, 0.5)
    m.bn.running_var.uniform_(0.5, 2.0)
    return m, (randn(2, 8, 20),), ["x"], ["y"]


@pattern("shufflenet_v2_tiny")
def _shufflenet():
    """torchvision's ShuffleNetV2 with small stages: channel shuffle (view,
    transpose, view), chunk, depthwise stride-2 branches, concat."""
    import torchvision
    m = torchvision.models.ShuffleNetV2([2, 2, 2], [8, 16, 32, 64, 128], num_classes=10)
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
    return m, (randn(1, 3, 64, 64),), ["image"], ["logits"]


@pattern("resnet_basic_blocks")
def _resnet_blocks():
    """torchvision's BasicBlock and Bottleneck, with a strided 1x1 downsample."""
    from torchvision.models.resnet import BasicBlock, Bottleneck
    ds = nn.Sequential(nn.Conv2d(8, 16, 1, stride=2, bias=False), nn.BatchNorm2d(16))
    m = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), BasicBlock(8, 8), BasicBlock(8, 16, 2, ds),
                      Bottleneck(16, 4), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(16, 5))
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
            mod.weight.data.uniform_(0.5, 1.5)
    return m, (randn(1, 3, 16, 16),), ["x"], ["y"]


class VitTiny(nn.Module):
    """A vision transformer: patch embedding (a stride-4 conv, flatten(2),
    transpose), a class token expanded to the batch, position embeddings, two
    encoder layers, the class token's LayerNorm into a head."""

    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, 16, 4, stride=4)
        self.cls = nn.Parameter(torch.randn(1, 1, 16) * 0.1)
        self.pos = nn.Parameter(torch.randn(1, 17, 16) * 0.1)
        layer = nn.TransformerEncoderLayer(16, 4, 32, dropout=0.0, activation="gelu",
                                           batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(16)
        self.head = nn.Linear(16, 10)

    def forward(self, x):
        p = self.patch(x).flatten(2).transpose(1, 2)
        t = torch.cat([self.cls.expand(x.shape[0], -1, -1), p], 1) + self.pos
        return self.head(self.norm(self.enc(t))[:, 0])


@pattern("vit_tiny", opsets=(13, 17))
def _vit():
    return VitTiny(), (randn(2, 3, 16, 16),), ["image"], ["logits"]


class Crnn(nn.Module):
    """Conv features, permuted to time-major steps (OCR and audio CRNNs), a
    bidirectional GRU, per-step log-softmax."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)),
                                  nn.Conv2d(8, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d((2, 1)))
        self.rnn = nn.GRU(8 * 4, 12, bidirectional=True)
        self.fc = nn.Linear(24, 7)

    def forward(self, x):
        f = self.conv(x)
        b, c, h, w = f.shape
        f = f.view(b, c * h, w).permute(2, 0, 1)
        y, _ = self.rnn(f)
        return F.log_softmax(self.fc(y), dim=2)


@pattern("crnn")
def _crnn():
    return Crnn(), (randn(2, 1, 16, 10),), ["x"], ["logprobs"]


class Cells(nn.Module):
    """LSTMCell and GRUCell stepped in Python over a few frames (unrolled)."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTMCell(6, 8)
        self.gru = nn.GRUCell(8, 8)

    def forward(self, x, h, c):
        g = h
        for t in range(x.shape[1]):
            h, c = self.lstm(x[:, t], (h, c))
            g = self.gru(h, g)
        return g, h, c


@pattern("rnn_cells_unrolled")
def _cells():
    return (Cells(), (randn(2, 3, 6), randn(2, 8) * 0.5, randn(2, 8) * 0.5), ["x", "h", "c"],
            ["g", "hn", "cn"])


class MhaPadMask(nn.Module):
    """MultiheadAttention with a bool key_padding_mask graph input."""

    def __init__(self):
        super().__init__()
        self.att = nn.MultiheadAttention(8, 2, batch_first=True)

    def forward(self, x, pad):
        return self.att(x, x, x, key_padding_mask=pad)[0]


@pattern("mha_key_padding_mask")
def _mha_pad():
    pad = torch.zeros(2, 5, dtype=torch.bool)
    pad[1, 3:] = True
    return MhaPadMask(), (randn(2, 5, 8), pad), ["x", "pad"], ["y"]


class IntOps(nn.Module):
    """int64 arithmetic at run time: tokens % 7, * 3, one_hot, a comparison,
    a sum of int64, a cast to float."""

    def forward(self, tokens):
        a = tokens % 7 + tokens * 3 - 1
        oh = F.one_hot(tokens % 5, 5)
        n = (tokens > 10).sum(1, keepdim=True)
        return a, oh, (a.float() / (n.float() + 1)).mean(1)


@pattern("int64_ops")
def _int_ops():
    g = torch.Generator().manual_seed(11)
    return IntOps(), (torch.randint(0, 30, (3, 6), generator=g),), ["tokens"], ["a", "onehot", "m"]


class IntFloorDiv(nn.Module):
    """Integer division at run time: tokens // 4 (Div on int64)."""

    def forward(self, tokens):
        return torch.div(tokens, 4, rounding_mode="floor") + tokens // 3


@pattern("int64_floor_div")
def _int_div():
    g = torch.Generator().manual_seed(11)
    return IntFloorDiv(), (torch.randint(0, 30, (3, 6), generator=g),), ["tokens"], ["q"]


class LlamaBlock(nn.Module):
    """A LLaMA-style block: RMSNorm, rotary position embedding on even/odd
    halves (x[..., ::2], x[..., 1::2], stack, flatten), causal attention with a
    tril buffer, SwiGLU MLP."""

    def __init__(self, d=16, heads=2):
        super().__init__()
        self.h, self.dh = heads, d // heads
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.o = nn.Linear(d, d, bias=False)
        self.w1 = nn.Linear(d, 24, bias=False)
        self.w3 = nn.Linear(d, 24, bias=False)
        self.w2 = nn.Linear(24, d, bias=False)
        self.g1 = nn.Parameter(torch.rand(d) + 0.5)
        self.g2 = nn.Parameter(torch.rand(d) + 0.5)
        t = torch.arange(8, dtype=torch.float32).unsqueeze(1)
        f = 1.0 / (100.0 ** (torch.arange(0, self.dh, 2, dtype=torch.float32) / self.dh))
        self.register_buffer("cos", torch.cos(t * f))
        self.register_buffer("sin", torch.sin(t * f))
        self.register_buffer("mask", torch.tril(torch.ones(8, 8)).view(1, 1, 8, 8))

    @staticmethod
    def rms(x, g):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * g

    def rope(self, x, n):
        a, b = x[..., ::2], x[..., 1::2]
        c, s = self.cos[:n], self.sin[:n]
        return torch.stack([a * c - b * s, a * s + b * c], -1).flatten(-2)

    def forward(self, x):
        bsz, n, d = x.shape
        q, k, v = self.qkv(self.rms(x, self.g1)).split(d, dim=2)
        q, k, v = [t.view(bsz, n, self.h, self.dh).transpose(1, 2) for t in (q, k, v)]
        q, k = self.rope(q, n), self.rope(k, n)
        att = (q @ k.transpose(-2, -1)) * self.dh ** -0.5
        att = att.masked_fill(self.mask[:, :, :n, :n] == 0, float("-inf")).softmax(-1)
        x = x + self.o((att @ v).transpose(1, 2).reshape(bsz, n, d))
        y = self.rms(x, self.g2)
        return x + self.w2(F.silu(self.w1(y)) * self.w3(y))


@pattern("llama_block")
def _llama():
    return LlamaBlock(), (randn(2, 6, 16),), ["x"], ["y"]


class LayerNorm2d(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm([4, 5])
        # (elementwise_affine=False exports an invalid LayerNormalization at
        # opset 17 in torch 1.13, without Scale: the export fails)
        self.ln_noaffine = nn.LayerNorm(4)

    def forward(self, x):
        return self.ln(x) + self.ln_noaffine(x.transpose(1, 2)).transpose(1, 2)


@pattern("layernorm_multi_dim", opsets=(13, 17))
def _ln2d():
    m = LayerNorm2d()
    m.ln.weight.data.uniform_(0.5, 1.5)
    m.ln.bias.data.uniform_(-0.5, 0.5)
    return m, (randn(3, 4, 5),), ["x"], ["y"]


class InterpDown(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, size=(3, 4), mode="bilinear", align_corners=True),
                F.interpolate(x, size=(4, 5), mode="bilinear", align_corners=False),
                F.interpolate(x, size=(3, 4), mode="area"))


@pattern("interp_down_area")
def _interp_down():
    return InterpDown(), (randn(1, 2, 6, 8),), ["x"], ["ac", "half_pixel", "area"]


class Bicubic(nn.Module):
    def forward(self, x):
        return (F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False),
                F.interpolate(x, size=(5, 7), mode="bicubic", align_corners=True))


@pattern("interp_bicubic")
def _bicubic():
    return Bicubic(), (randn(1, 2, 6, 8),), ["x"], ["up", "ac"]


class WeightsAsInputs(nn.Module):
    """F.conv2d and F.linear whose weights are graph inputs (hypernetworks,
    weights streamed in at run time)."""

    def forward(self, x, w, fw):
        y = F.relu(F.conv2d(x, w, padding=1))
        return F.linear(y.mean((2, 3)), fw)


@pattern("weights_as_inputs")
def _weights_in():
    return (WeightsAsInputs(), (randn(1, 3, 6, 6), randn(4, 3, 3, 3) * 0.3, randn(5, 4)),
            ["x", "w", "fw"], ["y"])


class IndexPut(nn.Module):
    """Slice assignment in forward (index_put, ScatterND): a rolling buffer
    shifted by one frame and the new frame written at the end, and a column
    zeroed."""

    def forward(self, buf, frame):
        out = buf.clone()
        out[:, :, :-1] = buf[:, :, 1:]
        out[:, :, -1] = frame
        z = frame.clone()
        z[:, 0] = 0.0
        return out, z


@pattern("index_put_buffer")
def _index_put():
    return IndexPut(), (randn(1, 4, 6), randn(1, 4)), ["buf", "frame"], ["next_buf", "z"]


class Scatter(nn.Module):
    """scatter, scatter_add and gather along a dim.  The indices are distinct
    per row: torch 1.13 exports scatter_add before opset 16 as a ScatterElements
    into zeros plus an Add, which is wrong for repeated indices; from 16 it is
    ScatterElements(reduction="add") (scatter_add_repeated)."""

    def __init__(self, idx=((2, 0, 1, 3), (1, 3, 0, 2))):
        super().__init__()
        self.register_buffer("idx", torch.tensor(idx))

    def forward(self, x, u):
        a = torch.zeros(2, 4).scatter(1, self.idx, u)
        b = x.scatter_add(1, self.idx, u)
        return a + b, torch.gather(x, 1, self.idx)


@pattern("scatter_gather", opsets=(13, 16))
def _scatter():
    return Scatter(), (randn(2, 4), randn(2, 4)), ["x", "u"], ["y", "t"]


class ScatterAddRepeated(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("idx", torch.tensor([[2, 0, 2, 2], [1, 1, 0, 3]]))

    def forward(self, x, u):
        return x.scatter_add(1, self.idx, u)


@pattern("scatter_add_repeated", opsets=(16,))
def _scatter_add_rep():
    return ScatterAddRepeated(), (randn(2, 4), randn(2, 4)), ["x", "u"], ["y"]


class Reductions(nn.Module):
    def forward(self, x):
        v, m = torch.var_mean(x, 1, unbiased=False)
        return torch.cat([torch.logsumexp(x, 1), torch.prod(x * 0.5 + 1, 1), x.amax(1), x.amin(1),
                          v, m, torch.argmin(x, 1).float(), (x > 0).any(1).float(),
                          (x > -1.5).all(1).float(), F.cosine_similarity(x, x.flip(1), 1)[:, None]
                          .squeeze(1), torch.norm(x, dim=1), x.abs().sum(1)], 0)


@pattern("reductions")
def _reductions():
    return Reductions(), (randn(3, 7),), ["x"], ["y"]


class AudioDecoder(nn.Module):
    """A vocoder-like upsampler: ConvTranspose1d (grouped too), Upsample on 3-D
    (nearest and linear), InstanceNorm1d, Softplus(beta), LeakyReLU, tanh
    (nn.LocalResponseNorm exports through the pads chain and an If)."""

    def __init__(self):
        super().__init__()
        self.t1 = nn.ConvTranspose1d(8, 8, 4, stride=2, padding=1)
        self.t2 = nn.ConvTranspose1d(8, 8, 3, stride=2, padding=1, output_padding=1, groups=2)
        self.n = nn.InstanceNorm1d(8, affine=True)
        self.c = nn.Conv1d(8, 1, 7, padding=3)

    def forward(self, x):
        y = F.leaky_relu(self.t1(x), 0.2)
        y = F.softplus(self.t2(y), beta=2.0)
        y = self.n(y)
        y = F.interpolate(y, scale_factor=2, mode="nearest") + \
            F.interpolate(y, scale_factor=2, mode="linear", align_corners=False)
        return torch.tanh(self.c(y))


@pattern("audio_decoder")
def _audio_dec():
    return AudioDecoder(), (randn(1, 8, 10),), ["mel"], ["wave"]


class Narrow(nn.Module):
    def forward(self, x):
        a = torch.narrow(x, 1, 1, 3)
        e = x[:, None, 2:, :, None].squeeze(-1)
        return a.sum(1) * x[..., -1:].mean(), e


@pattern("narrow_none_index")
def _narrow():
    return Narrow(), (randn(2, 5, 6),), ["x"], ["a", "e"]


class TensorSplit(nn.Module):
    """torch.tensor_split exports as SplitToSequence -> SequenceAt."""

    def forward(self, x):
        b, c, d = torch.tensor_split(x, 3, dim=2)
        return b * c.mean() - d.amax(2, keepdim=True)


@pattern("tensor_split")
def _tensor_split():
    return TensorSplit(), (randn(2, 5, 6),), ["x"], ["y"]


class Interp1d(nn.Module):
    """F.interpolate on [n, c, l]: Resize of a 3-D tensor, by scale and by size."""

    def forward(self, x):
        return (F.interpolate(x, scale_factor=3, mode="nearest"),
                F.interpolate(x, size=17, mode="linear", align_corners=True),
                F.interpolate(x, size=5, mode="linear", align_corners=False),
                nn.Upsample(scale_factor=2, mode="linear")(x))


@pattern("interp_1d", opsets=(11, 13))
def _interp_1d():
    return Interp1d(), (randn(2, 3, 8),), ["x"], ["nearest3x", "ac17", "down5", "up2"]


class ConvNeXtBlock(nn.Module):
    """A ConvNeXt block: depthwise 7x7, channels-last permute, LayerNorm,
    Linear 4x, GELU, Linear, layer scale, permute back, residual."""

    def __init__(self, c=8):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.ln = nn.LayerNorm(c, eps=1e-6)
        self.l1 = nn.Linear(c, 4 * c)
        self.l2 = nn.Linear(4 * c, c)
        self.gamma = nn.Parameter(torch.rand(c) + 0.5)

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.gamma * self.l2(F.gelu(self.l1(self.ln(y))))
        return x + y.permute(0, 3, 1, 2)


@pattern("convnext_block")
def _convnext():
    return ConvNeXtBlock(), (randn(1, 8, 9, 9),), ["x"], ["y"]


@pattern("efficientnet_mbconv")
def _mbconv():
    """torchvision's MBConv blocks (EfficientNet): expand, depthwise, SE with
    SiLU, project, stochastic depth (identity in eval), residual."""
    from functools import partial
    from torchvision.models.efficientnet import MBConv, MBConvConfig
    bn = partial(nn.BatchNorm2d, eps=1e-3)
    m = nn.Sequential(MBConv(MBConvConfig(1, 3, 1, 8, 8, 1), 0.2, bn),
                      MBConv(MBConvConfig(4, 5, 2, 8, 16, 1), 0.2, bn),
                      MBConv(MBConvConfig(4, 3, 1, 16, 16, 1), 0.2, bn))
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
    return m, (randn(1, 8, 12, 12),), ["x"], ["y"]


class Ghost(nn.Module):
    """A GhostNet module: a primary conv, a cheap depthwise conv of its output,
    concatenated and cut to the output channels."""

    def __init__(self):
        super().__init__()
        self.primary = nn.Sequential(nn.Conv2d(4, 6, 1), nn.BatchNorm2d(6), nn.ReLU())
        self.cheap = nn.Sequential(nn.Conv2d(6, 6, 3, padding=1, groups=6), nn.BatchNorm2d(6),
                                   nn.ReLU())

    def forward(self, x):
        a = self.primary(x)
        return torch.cat([a, self.cheap(a)], 1)[:, :10]


@pattern("ghost_module")
def _ghost():
    m = Ghost()
    for mod in m.modules():
        if isinstance(mod, nn.BatchNorm2d):
            mod.running_mean.uniform_(-0.2, 0.2)
            mod.running_var.uniform_(0.5, 1.5)
    return m, (randn(1, 4, 7, 7),), ["x"], ["y"]


class YoloHead(nn.Module):
    """A YOLO-style head: a 1x1 conv to anchors x (5 + classes), view and
    permute to [b, a, h, w, 5 + nc], sigmoid, a grid from torch.meshgrid added,
    times the stride, anchor sizes by exp, every scale flattened and concatenated."""

    def __init__(self, nc=3, na=2):
        super().__init__()
        self.nc, self.na = nc, na
        self.convs = nn.ModuleList([nn.Conv2d(8, na * (5 + nc), 1), nn.Conv2d(8, na * (5 + nc), 1)])
        self.register_buffer("anchors", torch.tensor([[10.0, 13.0], [16.0, 30.0]]).view(1, na, 1, 1, 2))

    def forward(self, p8, p16):
        out = []
        for x, conv, stride in ((p8, self.convs[0], 8.0), (p16, self.convs[1], 16.0)):
            b, _, h, w = x.shape
            y = conv(x).view(b, self.na, 5 + self.nc, h, w).permute(0, 1, 3, 4, 2).sigmoid()
            gy, gx = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            grid = torch.stack((gx, gy), 2).view(1, 1, h, w, 2).float()
            xy = (y[..., :2] * 2 - 0.5 + grid) * stride
            wh = (y[..., 2:4] * 2) ** 2 * self.anchors
            out.append(torch.cat((xy, wh, y[..., 4:]), -1).view(b, -1, 5 + self.nc))
        return torch.cat(out, 1)


@pattern("yolo_head")
def _yolo():
    return YoloHead(), (randn(1, 8, 6, 8), randn(1, 8, 3, 4)), ["p8", "p16"], ["boxes"]


class Decoder(nn.Module):
    """nn.TransformerDecoderLayer: masked self-attention (a causal mask buffer)
    and cross-attention to a memory input."""

    def __init__(self):
        super().__init__()
        self.dec = nn.TransformerDecoderLayer(16, 2, 32, dropout=0.0, batch_first=True)
        self.register_buffer("mask", torch.triu(torch.full((5, 5), float("-inf")), 1))

    def forward(self, tgt, memory):
        return self.dec(tgt, memory, tgt_mask=self.mask)


@pattern("transformer_decoder")
def _decoder():
    return Decoder(), (randn(2, 5, 16), randn(2, 7, 16)), ["tgt", "memory"], ["y"]


# Not here: padding_mode="circular" (torch 1.13 exports its wrap-around as
# Slice(-2, -1), the wrong element: ONNX Runtime and LightNet agree with each
# other, not with PyTorch) and nn.LSTM(proj_size=...) (does not export).


# --------------------------------------------------------------------------------------
# Export
# --------------------------------------------------------------------------------------

# ONNX Runtime cross-check of every export (when onnxruntime-node is in
# bench/node_modules: sh bench/setup.sh): an exporter bug shows up as
# ONNX Runtime disagreeing with PyTorch (padding_mode="circular" did).
ORT_JS = r"""
const fs = require('fs'), path = require('path');
const ort = require(process.argv[1]);   // node -e: the arguments from argv[1]
const d = process.argv[2];
const spec = JSON.parse(fs.readFileSync(path.join(d, 'spec.json'), 'utf8'));
(async () => {
  try {
    const s = await ort.InferenceSession.create(path.join(d, 'model.onnx'),
        {intraOpNumThreads: 1, graphOptimizationLevel: 'disabled'});
    const feeds = {};
    spec.inputs.forEach((inp, k) => {
      const b = fs.readFileSync(path.join(d, 'in_' + k + '.bin'));
      const ab = b.buffer.slice(b.byteOffset, b.byteOffset + b.length);
      const data = inp.type === 'int64' ? new BigInt64Array(ab) :
                   inp.type === 'bool' ? Uint8Array.from(new Uint8Array(ab)) : new Float32Array(ab);
      feeds[inp.name] = new ort.Tensor(inp.type, data, inp.shape);
    });
    const res = await s.run(feeds);
    spec.outputs.forEach((name, k) => {
      const t = res[name].data;
      fs.writeFileSync(path.join(d, 'ort_' + k + '.bin'), Buffer.from(t.buffer, t.byteOffset, t.byteLength));
    });
  } catch (e) {
    fs.writeFileSync(path.join(d, 'ort.err'), String(e && e.message ? e.message : e));
  }
})();
"""
ORT_MODULE = os.path.join(REPO, "bench", "node_modules", "onnxruntime-node")


def ort_check(name, onnx_path, inputs, in_names, outs, out_names):
    """None when ONNX Runtime agrees with PyTorch (1e-4 of the largest value,
    integers exactly), else what differs; "no ONNX Runtime" when absent."""
    import json
    import shutil
    import subprocess
    import tempfile
    if not os.path.isdir(ORT_MODULE) or not shutil.which("node"):
        return "no ONNX Runtime (sh bench/setup.sh)"
    d = tempfile.mkdtemp()
    try:
        shutil.copy(onnx_path, os.path.join(d, "model.onnx"))
        spec = {"inputs": [], "outputs": out_names}
        for k, (n, t) in enumerate(zip(in_names, inputs)):
            a = to_np(t)
            a.tofile(os.path.join(d, "in_%d.bin" % k))
            spec["inputs"].append({"name": n, "shape": list(a.shape), "type":
                                   {"<i8": "int64", "|u1": "bool"}.get(a.dtype.str, "float32")})
        json.dump(spec, open(os.path.join(d, "spec.json"), "w"))
        subprocess.run(["node", "-e", ORT_JS, ORT_MODULE, d], check=True)
        if os.path.exists(os.path.join(d, "ort.err")):
            return "ONNX Runtime: " + open(os.path.join(d, "ort.err")).read().strip()[:300]
        for k, t in enumerate(outs):
            ref = to_np(t)
            got = np.fromfile(os.path.join(d, "ort_%d.bin" % k), ref.dtype).reshape(ref.shape)
            if ref.dtype.kind == "f":
                scale = float(np.abs(ref).max()) if ref.size else 0.0
                err = float(np.abs(got.astype(np.float64) - ref).max()) if ref.size else 0.0
                if not err <= 1e-4 * scale:
                    return "output '%s': ONNX Runtime %.3g off PyTorch (largest %.3g)" % (
                        out_names[k], err, scale)
            elif not np.array_equal(got, ref):
                return "output '%s': ONNX Runtime differs from PyTorch" % out_names[k]
        return None
    finally:
        shutil.rmtree(d)


def to_np(t):
    a = t.detach().numpy()
    if a.dtype == np.int64:
        return a.astype("<i8")
    return a.astype(np.uint8) if a.dtype == np.bool_ else a.astype("<f4")


def files(base, kind, n):
    return [base + ".%s.bin" % kind] if n == 1 else [base + ".%s%d.bin" % (kind, i)
                                                      for i in range(n)]


# ONNX Runtime cannot run these, or they run differently there: listed, why
ORT_DISAGREES = {}


def build(name, out_dir, use_ort=True):
    fn, opset, dynamic = PATTERNS[name]
    torch.manual_seed(sum(map(ord, name.split("_opset")[0])))
    model, inputs, in_names, out_names = fn()
    model.eval()
    base = os.path.join(out_dir, name)
    # not under torch.no_grad(): MultiheadAttention's inference fast path
    # (taken without grad) does not export
    if True:
        outs = model(*inputs)
        outs = outs if isinstance(outs, tuple) else (outs,)
        torch.onnx.export(model, inputs, base + ".onnx", opset_version=opset,
                          do_constant_folding=True, input_names=in_names, output_names=out_names,
                          dynamic_axes={n: {0: "batch"} for n in in_names + out_names}
                          if dynamic else None)
        again = model(*inputs)
        again = again if isinstance(again, tuple) else (again,)
    for a, b in zip(outs, again):
        if not torch.equal(a, b):
            raise SystemExit("%s: PyTorch output not reproducible" % name)
    m = onnx.load(base + ".onnx")
    onnx.checker.check_model(m, full_check=True)
    graph_inputs = [i.name for i in m.graph.input]
    if graph_inputs != in_names:
        raise SystemExit("%s: graph inputs %s, expected %s" % (name, graph_inputs, in_names))
    for f in [f for f in os.listdir(out_dir) if f.startswith(name + ".") and f.endswith(".bin")]:
        os.remove(os.path.join(out_dir, f))
    for t, path in zip(inputs, files(base, "in", len(inputs))):
        to_np(t).tofile(path)
    for t, path in zip(outs, files(base, "ref", len(outs))):
        to_np(t).tofile(path)
    size = os.path.getsize(base + ".onnx")
    if size > MAX_BYTES:
        raise SystemExit("%s: %d bytes, more than %d" % (name, size, MAX_BYTES))
    ops = sorted({n.op_type for n in m.graph.node})
    ort = ort_check(name, base + ".onnx", inputs, in_names, outs, out_names) if use_ort else "off"
    if ort and not ort.startswith(("no ONNX Runtime", "off")) and name not in ORT_DISAGREES:
        raise SystemExit("%s: %s" % (name, ort))
    print("%-28s opset %d %7d bytes  ort: %s  %s" % (name, opset, size,
                                                    "agrees" if ort is None else ort, " ".join(ops)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--only", help="comma-separated pattern names")
    ap.add_argument("--list", action="store_true", help="list the patterns")
    ap.add_argument("--out", default=OUT, help="output directory (default tests/onnx/torch)")
    ap.add_argument("--no-ort", action="store_true", help="no ONNX Runtime cross-check")
    args = ap.parse_args()
    if args.list:
        print("\n".join(sorted(PATTERNS)))
        return
    names = sorted(PATTERNS) if not args.only else args.only.split(",")
    for n in names:
        if n not in PATTERNS:
            sys.exit("unknown pattern %s (--list)" % n)
    os.makedirs(args.out, exist_ok=True)
    torch.set_num_threads(1)
    for n in names:
        build(n, args.out, not args.no_ort)


if __name__ == "__main__":
    main()
