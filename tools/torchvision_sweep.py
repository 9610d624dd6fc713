#!/usr/bin/python3
"""make torch-sweep: whole torchvision models against PyTorch.

    /usr/bin/python3 tools/torchvision_sweep.py [--opsets 11,13,17,13dyn,...] [--jobs N]
                                                [--keep] [--list] [MODEL...]

Every model of MODELS is built with weights=None under torch.manual_seed(0)
in eval mode (random weights, nothing downloaded; every constant parameter
or buffer made random too, vary()), run in PyTorch on one
random input, and exported with torch.onnx.export at each opset (constant
folding on, static shapes) into build/torch-sweep/ (never committed).  An
opset the exporter refuses for a model is printed as "export refused".
Each export then goes
  1. through the lightnet command (-i / --save): the output within
     1e-4 x max |reference| of PyTorch's;
  2. through ln-aot --weights FILE, cc (-std=c99 -pedantic -Werror) and
     tests/aot/aot_check.c (the blob linked in with .incbin): the emitted
     code equal bit for bit to the interpreter, both (and the interpreter
     at -O0) within the same bound.
When LightNet and PyTorch disagree, ONNX Runtime judges the export
(ort_verdict): if it agrees with LightNet, the row reads "export differs
from PyTorch" and step 2 is measured against ONNX Runtime.
One row per model and opset: ONNX nodes, distinct op types, the result
(ok with the worst relative error / export differs / wrong by X / refused:
message / crash), and the seconds the lightnet command and the ln-aot step
took.  Exit status 1 when any row is wrong, crashed or refused.

Environment (mk/torch_sweep.mk): BUILD, RT_LIB, CC, AOT_CFLAGS, AOT_LDLIBS.
"""
import argparse
import concurrent.futures
import importlib.util
import os
import shlex
import subprocess
import sys
import time

import numpy as np
import onnx
import torch
import torchvision.models as tvm
import torchvision.models.segmentation as tvs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# make test-torch's compare(), bound and environment (BUILD, RT_LIB, CC,
# AOT_CFLAGS, AOT_LDLIBS), so both judge and build the same way
_spec = importlib.util.spec_from_file_location(
    "torch_run", os.path.join(ROOT, "tests", "onnx", "torch", "run.py"))
torch_run = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(torch_run)
BUILD, RT_LIB, CC = torch_run.BUILD, torch_run.RT_LIB, torch_run.CC
AOT_CFLAGS, AOT_LDLIBS, TOL = torch_run.AOT_CFLAGS, torch_run.AOT_LDLIBS, torch_run.TOL
OUT = os.path.join(ROOT, BUILD, "torch-sweep")


class SegOut(torch.nn.Module):
    """The segmentation models return {'out': ...}: export the tensor."""
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return self.m(x)["out"]


SEG = ("fcn_resnet50", "deeplabv3_mobilenet_v3_large", "lraspp_mobilenet_v3_large")


class Flat(torch.nn.Module):
    """Models with several outputs (an FPN's levels): one flat tensor."""
    def __init__(self, m):
        super().__init__()
        self.m = m

    def forward(self, x):
        return torch.cat([v.flatten(1) for v in self.m(x).values()], 1)


def fpn(name):
    from torchvision.models.detection.backbone_utils import resnet_fpn_backbone
    return lambda: Flat(resnet_fpn_backbone(backbone_name=name, weights=None,
                                            trainable_layers=5))


def mobile_fpn(name):
    from torchvision.models.detection.backbone_utils import mobilenet_backbone
    return lambda: Flat(mobilenet_backbone(backbone_name=name, weights=None, fpn=True,
                                           trainable_layers=6))


def cls(name, **kw):
    return lambda: getattr(tvm, name)(weights=None, **kw)


def seg(name):
    return lambda: SegOut(getattr(tvs, name)(weights=None, weights_backbone=None,
                                             aux_loss=False))


# name -> (constructor, input side)
MODELS = {
    "resnet18": (cls("resnet18"), 96),
    "resnet34": (cls("resnet34"), 96),
    "resnet50": (cls("resnet50"), 96),
    "resnext50_32x4d": (cls("resnext50_32x4d"), 96),
    "wide_resnet50_2": (cls("wide_resnet50_2"), 96),
    "vgg11_bn": (cls("vgg11_bn"), 224),     # 96 would make the exporter refuse
    "alexnet": (cls("alexnet"), 224),       # AdaptiveAvgPool2d((7, 7)) of 3x3
    "googlenet": (cls("googlenet", aux_logits=False, init_weights=True), 96),
    "inception_v3": (cls("inception_v3", aux_logits=False, init_weights=True), 96),
    "densenet121": (cls("densenet121"), 96),
    "mobilenet_v2": (cls("mobilenet_v2"), 96),
    "mobilenet_v3_small": (cls("mobilenet_v3_small"), 96),
    "mobilenet_v3_large": (cls("mobilenet_v3_large"), 96),
    "efficientnet_b0": (cls("efficientnet_b0"), 96),
    "efficientnet_v2_s": (cls("efficientnet_v2_s"), 96),
    "regnet_x_400mf": (cls("regnet_x_400mf"), 96),
    "regnet_y_400mf": (cls("regnet_y_400mf"), 96),
    "mnasnet0_5": (cls("mnasnet0_5"), 96),
    "mnasnet1_0": (cls("mnasnet1_0"), 96),
    "shufflenet_v2_x1_0": (cls("shufflenet_v2_x1_0"), 96),
    "squeezenet1_0": (cls("squeezenet1_0"), 96),
    "squeezenet1_1": (cls("squeezenet1_1"), 96),
    "convnext_tiny": (cls("convnext_tiny"), 96),
    "vit_b_16": (cls("vit_b_16"), 224),
    "swin_t": (cls("swin_t"), 96),
    "maxvit_t": (cls("maxvit_t"), 224),
    "fcn_resnet50": (seg("fcn_resnet50"), 96),
    "deeplabv3_mobilenet_v3_large": (seg("deeplabv3_mobilenet_v3_large"), 96),
    "lraspp_mobilenet_v3_large": (seg("lraspp_mobilenet_v3_large"), 96),
    # detection backbones: the feature pyramid's levels, flattened and joined
    "fpn_resnet18": (fpn("resnet18"), 96),
    "fpn_mobilenet_v3_large": (mobile_fpn("mobilenet_v3_large"), 96),
}


def run(cmd):
    t = time.time()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    return r, time.time() - t


def failure(r, what):
    """A refusal (exit 1 with a message) or a crash, as one table cell."""
    msg = (r.stderr or r.stdout).strip().splitlines()
    msg = msg[0][:160] if msg else ""
    if r.returncode == 1 and msg:
        return "refused: %s%s" % (what, msg)
    return "crash (%s, status %d): %s" % (what, r.returncode, msg)


def vary(model):
    """Fresh models are too tame to test with: BatchNorm is the identity
    (running mean 0, variance 1, weight 1, bias 0), ViT's head and class
    token are zeros (its output is all zeros), ConvNeXt's layer scales are
    1e-6 (every block nearly the identity).  Every floating-point parameter or
    buffer whose values are all equal gets random ones: near 1 (0.5 to 1.5)
    where it was 1 or is a running variance, else normal(0, 0.1)."""
    with torch.no_grad():
        for n, t in list(model.named_parameters()) + list(model.named_buffers()):
            if not t.is_floating_point() or t.numel() < 2 or t.min() != t.max():
                continue
            if n.endswith("running_var") or float(t.flatten()[0]) == 1.0:
                t.uniform_(0.5, 1.5)
            else:
                t.normal_(0.0, 0.1)


def export(name, opsets, side=None, batch=1):
    """Export NAME at each opset ("13", or "13dyn": a symbolic batch axis on the
    input and the output, "13dynhw": height and width symbolic too,
    "13nofold": do_constant_folding=False, "13keepinit":
    keep_initializers_as_inputs=True, every weight a graph input too);
    {opset: None or 'export refused: ...'}."""
    ctor, side0 = MODELS[name]
    side = side or side0
    torch.manual_seed(0)
    model = ctor().eval()
    vary(model)
    x = torch.randn(batch, 3, side, side)
    with torch.no_grad():
        ref = model(x)
    if not isinstance(ref, torch.Tensor):
        raise SystemExit("torch-sweep: %s returns %s, not a tensor" % (name, type(ref)))
    res = {}
    for o in opsets:
        base = os.path.join(OUT, "%s_opset%s" % (name, o))
        dyn = {"input": {0: "batch"}, "output": {0: "batch"}} if o.endswith("dyn") else None
        if o.endswith("dynhw"):
            dyn = {"input": {0: "batch", 2: "h", 3: "w"}, "output": {0: "batch"}}
            if name in SEG:
                dyn["output"] = {0: "batch", 2: "h", 3: "w"}
        try:
            # grad enabled, as users export: under no_grad nn.MultiheadAttention
            # takes its fast path, aten::_native_multi_head_attention, which
            # torch 1.13 cannot export (ViT-B/16)
            torch.onnx.export(model, (x,), base + ".onnx", opset_version=int(o[:2]),
                              input_names=["input"], output_names=["output"],
                              dynamic_axes=dyn, do_constant_folding=not o.endswith("nofold"),
                              keep_initializers_as_inputs=o.endswith("keepinit"))
        except Exception as e:     # pylint: disable=broad-except
            res[o] = "export refused: %s" % str(e).strip().splitlines()[0][:120]
            continue
        x.numpy().astype("<f4").tofile(base + ".in.bin")
        ref.numpy().astype("<f4").tofile(base + ".ref.bin")
        res[o] = None
    return res


def ort_verdict(d, src, inp, got, side, batch):
    """When LightNet and PyTorch disagree, ONNX Runtime (tests/difftest/
    ort_run.js, onnxruntime-node from bench/setup.sh) judges the export:
    None when ONNX Runtime agrees with LightNet (its output is then
    d/ort/ort_0.bin), else a note to add to the row."""
    o = os.path.join(d, "ort")
    os.makedirs(o, exist_ok=True)
    subprocess.run(["ln", "-sf", os.path.abspath(os.path.join(ROOT, src)),
                    os.path.join(o, "model.onnx")])
    subprocess.run(["cp", inp, os.path.join(o, "in_0.bin")])
    for f, t in (("inputs.txt", "input\n"), ("outs.txt", "output\n"),
                 ("shape_0.json", "[%d, 3, %d, %d]\n" % (batch, side, side))):
        with open(os.path.join(o, f), "w") as fp:
            fp.write(t)
    r = subprocess.run(["node", "tests/difftest/ort_run.js", o], cwd=ROOT,
                       capture_output=True, text=True)
    if not os.path.exists(os.path.join(o, "ort_0.bin")):
        return " [no ONNX Runtime verdict: %s]" % (r.stderr.strip().splitlines() or [""])[-1][:80]
    msg = torch_run.compare(got, os.path.join(o, "ort_0.bin"), "<f4", "lightnet")
    if msg:
        return " [ONNX Runtime differs from LightNet too: %s]" % msg
    return None


def check(stem, side, batch):
    """(result, lightnet seconds, ln-aot seconds) for build/torch-sweep/STEM;
    a symbolic batch is fixed with --shape."""
    d = os.path.join(OUT, stem)
    src = os.path.relpath(d + ".onnx", ROOT)
    inp, ref = d + ".in.bin", d + ".ref.bin"
    os.makedirs(d, exist_ok=True)
    got = os.path.join(d, "out.bin")
    dyn = stem.endswith("dyn") or stem.endswith("dynhw")
    shape = ["--shape", "input=%dx3x%dx%d" % (batch, side, side)] if dyn else []
    r, t_ln = run([os.path.join(BUILD, "bin", "lightnet"), "-i", "input=" + inp,
                   "--save", "output=" + got] + shape + [src])
    if r.returncode:
        return failure(r, "lightnet: "), t_ln, None
    msg = torch_run.compare(got, ref, "<f4", "lightnet")
    differs = None
    if msg:
        v = ort_verdict(d, src, inp, got, side, batch)
        if v is not None:
            return "wrong: " + msg + v, t_ln, None
        # the exporter's own deviation (Upsample/Resize before opset 11,
        # which it warns about): ONNX Runtime is the reference from here on
        ref = os.path.join(d, "ort", "ort_0.bin")
        differs = msg.split(": ", 1)[1]
    a = np.fromfile(got, "<f4").astype(np.float64)
    b = np.fromfile(ref, "<f4").astype(np.float64)
    rel = float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-30))

    t0 = time.time()
    r, _ = run([os.path.join(BUILD, "bin", "ln-aot"), "-n", "m", "-o", os.path.join(d, "m.c"),
                "--weights", os.path.join(d, "m.bin")] + shape + [src])
    if r.returncode:
        return failure(r, "ln-aot: "), t_ln, time.time() - t0
    with open(os.path.join(d, "w.s"), "w") as f:
        f.write('\t.section .rodata\n\t.balign 16\n\t.global m_weights\nm_weights:\n'
                '\t.incbin "%s"\n' % os.path.join(d, "m.bin"))
    strict = "-std=c99 -Wall -Wextra -pedantic -Werror -O2 -Iruntime/include".split()
    r, _ = run([CC] + strict + ["-I" + d, "-c", os.path.join(d, "m.c"),
                                "-o", os.path.join(d, "m.o")])
    if r.returncode:
        return "cc -Werror: " + r.stderr.strip()[:300], t_ln, time.time() - t0
    r, _ = run([CC, "-c", os.path.join(d, "w.s"), "-o", os.path.join(d, "w.o")])
    if r.returncode:
        return "as: " + r.stderr.strip()[:300], t_ln, time.time() - t0
    r, _ = run([CC, "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-O1", "-g", "-Isrc",
                "-Iruntime/include"] + shlex.split(AOT_CFLAGS)
               + ["-DMODEL=m", "-DMODEL_UP=M", '-DMODEL_H="m.h"', "-I" + d,
                  "tests/aot/aot_check.c", os.path.join(d, "m.o"), os.path.join(d, "w.o"),
                  os.path.join(BUILD, "liblightnet.a"), RT_LIB]
               + shlex.split(AOT_LDLIBS) + ["-o", os.path.join(d, "check")])
    if r.returncode:
        return "cannot build the driver: " + r.stderr.strip()[:300], t_ln, time.time() - t0
    ir = src
    if shape:       # aot_check imports an ONNX model with batch 1: give it the IR
        ir = os.path.join(d, "m.json")
        r, _ = run([os.path.join(BUILD, "bin", "ln-onnx"), "-o", ir] + shape + [src])
        if r.returncode:
            return failure(r, "ln-onnx: "), t_ln, time.time() - t0
    r, _ = run([os.path.join(d, "check"), ir, "rel:%g" % TOL, inp, ref])
    t_aot = time.time() - t0
    if r.returncode:
        out = (r.stdout + r.stderr).strip().splitlines()
        if r.returncode < 0 or r.returncode > 1:
            return "crash (aot_check, status %d): %s" % (r.returncode, out[:1]), t_ln, t_aot
        return "wrong (ln-aot): " + (out[0][:200] if out else ""), t_ln, t_aot
    if differs:
        return ("export differs from PyTorch: %s; LightNet and ln-aot equal ONNX Runtime "
                "(%.1e)" % (differs, rel)), t_ln, t_aot
    return "ok (%.1e)" % rel, t_ln, t_aot


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--opsets", default="11,13,17")
    ap.add_argument("--jobs", type=int, default=int(os.environ.get("JOBS", "2")))
    ap.add_argument("--keep", action="store_true",
                    help="keep the files of the rows that pass too (a failing row's always stay)")
    ap.add_argument("--side", type=int, help="the input's height and width for every model")
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--list", action="store_true")
    ap.add_argument("models", nargs="*")
    a = ap.parse_args()
    if a.list:
        print("\n".join(MODELS))
        return
    for n in a.models:
        if n not in MODELS:
            sys.exit("torch-sweep: no model '%s' (--list)" % n)
    names = a.models or list(MODELS)
    opsets = a.opsets.split(",")
    for o in opsets:
        if not (o[:2].isdigit() and o[2:] in ("", "dyn", "dynhw", "nofold", "keepinit")):
            sys.exit("torch-sweep: --opsets: '%s' is not N, Ndyn, Ndynhw, Nnofold or Nkeepinit"
                     % o)
    os.makedirs(OUT, exist_ok=True)
    torch.set_num_threads(1)
    print("%-30s %8s %5s %4s  %-9s %8s  %s" % ("model", "opset", "nodes", "ops", "lightnet",
                                             "ln-aot", "result"))
    bad = differ = 0
    ex = concurrent.futures.ThreadPoolExecutor(max_workers=a.jobs)
    for name in names:
        exp = export(name, opsets, a.side, a.batch)
        futs = {}
        for o in opsets:
            if exp[o] is None:
                futs[o] = ex.submit(check, "%s_opset%s" % (name, o), a.side or MODELS[name][1],
                                    a.batch)
        for o in opsets:
            stem = "%s_opset%s" % (name, o)
            if exp[o] is not None:
                print("%-30s %8s %5s %4s  %-9s %8s  %s" % (name, o, "-", "-", "-", "-", exp[o]))
                continue
            g = onnx.load(os.path.join(OUT, stem + ".onnx"), load_external_data=False).graph
            res, t_ln, t_aot = futs[o].result()
            if res.startswith("export differs"):
                differ += 1
            elif not res.startswith("ok"):
                bad += 1
            print("%-30s %8s %5d %4d  %8.1fs %8s  %s"
                  % (name, o, len(g.node), len({n.op_type for n in g.node}), t_ln,
                     "-" if t_aot is None else "%.1fs" % t_aot, res), flush=True)
            if not a.keep and (res.startswith("ok") or res.startswith("export differs")):
                for ext in (".onnx", ".in.bin", ".ref.bin"):
                    os.remove(os.path.join(OUT, stem + ext))
                subprocess.run(["rm", "-rf", os.path.join(OUT, stem)])
    ex.shutdown()
    print("torch-sweep: %d row(s) wrong, refused or crashed; %d export(s) differ from PyTorch "
          "where LightNet equals ONNX Runtime" % (bad, differ))
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
