#!/usr/bin/python3
"""Train LightNet's five whole-model test networks on synthetic tasks and export them,
the kind of model users quantize (tests/models/ holds the same architectures with
random weights, whose near-tied logits make a weak test of int8 accuracy).

    /usr/bin/python3 tools/make_trained_models.py [--out DIR] [--only NAME[,NAME...]]

The architectures are tools/make_test_models.py's (imported, not copied); the tasks
and their numpy data generator are tests/trained/data.py.  Each network is trained
briefly on the CPU (seeded: Adam with a one-cycle learning rate, a few epochs, each
over examples drawn afresh, batch norm in training mode), then put in eval mode and exported as make_test_models.py exports:
ONNX opset 13, constant folding on, static shapes, batch 1, input "input", output
"output".  For each NAME it writes OUT/NAME/ (default OUT = tests/trained):
    model.onnx   the trained network
    input.bin    one input of the task (raw little-endian float32; data.py seed 7)
    output.bin   PyTorch's output for it
    meta.json    shapes, seeds, training settings, time, the accuracy on 1000 held-out
                 examples (for the autoencoder: the fraction of the variance its
                 reconstruction explains, R^2) and that of chance

Each exported model is checked with onnx.checker and make_test_models.py's numpy ONNX
evaluator against the PyTorch output.  Needs Debian's python3-torch and python3-onnx
(see make_test_models.py).  Training is deterministic for a given torch build and
thread count; the committed models are what this script wrote with torch 1.13 on one
thread.
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

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "tools"))
sys.path.insert(0, os.path.join(REPO, "tests", "trained"))
import make_test_models as mtm        # noqa: E402
import data                           # noqa: E402

OPSET = mtm.OPSET
TRAIN_SEED, TEST_SEED, INPUT_SEED = 100, 200, 7

# name: (examples drawn afresh for each epoch, epochs, batch, peak learning rate,
#        He init (else PyTorch's default), one-cycle schedule (else a constant rate))
# MobileNetV1-0.25 learnt nothing in 8 epochs with He init and one cycle (held-out
# accuracy 50%); with PyTorch's init and a constant rate it does
TRAIN = {
    "lenet5": (4000, 4, 64, 3e-3, True, True),
    "ds_cnn": (4000, 4, 64, 3e-3, True, True),
    "resnet8": (4000, 4, 64, 3e-3, True, True),
    "mobilenet_v1_025": (2000, 8, 32, 1e-3, False, False),
    "ad_autoencoder": (5000, 6, 64, 3e-3, True, True),
}


def evaluate(model, x, lab):
    model.eval()
    with torch.no_grad():
        y = torch.cat([model(x[i:i + 250]) for i in range(0, len(x), 250)])
    if lab is None:                        # autoencoder: R^2 of the reconstruction
        return 1.0 - float(((y - x) ** 2).mean() / ((x - x.mean(0)) ** 2).mean())
    return float((y.argmax(1) == lab).float().mean())


def train_one(name, out):
    ctor, shape, seed, desc = mtm.MODELS[name]
    n, epochs, batch, lr, he, cycle = TRAIN[name]
    t0 = time.time()
    torch.manual_seed(seed)
    model = ctor()
    if he:
        mtm.he_init(model)
    xt, labt = data.generate(name, 1000, TEST_SEED + seed)
    xt = torch.from_numpy(xt)
    labt = None if labt is None else torch.from_numpy(labt)
    t_data = 0.0
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    steps = epochs * ((n + batch - 1) // batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=lr, total_steps=steps) if cycle \
        else torch.optim.lr_scheduler.LambdaLR(opt, lambda k: 1.0)
    g = torch.Generator().manual_seed(seed)
    for ep in range(epochs):
        t1 = time.time()
        xs, labs = data.generate(name, n, TRAIN_SEED + seed + 10000 * ep)
        xs = torch.from_numpy(xs)
        labs = None if labs is None else torch.from_numpy(labs)
        t_data += time.time() - t1
        model.train()
        perm = torch.randperm(n, generator=g)
        tot = 0.0
        for i in range(0, n, batch):
            idx = perm[i:i + batch]
            xb = xs[idx]
            y = model(xb)
            loss = F.mse_loss(y, xb) if labs is None else F.cross_entropy(y, labs[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
            tot += float(loss) * len(idx)
        print("  %s epoch %d: loss %.4f (%.0f s)" % (name, ep + 1, tot / n, time.time() - t0),
              flush=True)
    model.eval()
    acc = evaluate(model, xt, labt)
    t_train = time.time() - t0

    x = torch.from_numpy(data.generate(name, 1, INPUT_SEED)[0])
    with torch.no_grad():
        y = model(x).contiguous()
        y_again = model(x.clone()).contiguous()
    if not torch.equal(y, y_again):
        raise SystemExit("%s: PyTorch output is not deterministic" % name)
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "model.onnx")
    torch.onnx.export(model, (x,), path, opset_version=OPSET, do_constant_folding=True,
                      export_params=True, training=torch.onnx.TrainingMode.EVAL,
                      input_names=["input"], output_names=["output"])
    m = onnx.load(path)
    onnx.checker.check_model(m, full_check=True)
    x.numpy().astype("<f4").tofile(os.path.join(d, "input.bin"))
    y.numpy().astype("<f4").tofile(os.path.join(d, "output.bin"))
    ref = y.numpy().astype(np.float64)
    got = mtm.run_onnx_numpy(m, {"input": x.numpy()})[0]
    rel = float(np.abs(got - ref).max() / np.abs(ref).max())
    if list(got.shape) != list(ref.shape) or rel > 1e-4:
        raise SystemExit("%s: numpy ONNX evaluation differs from PyTorch: %g" % (name, rel))
    classes = data.CLASSES[name]
    meta = {
        "name": name,
        "description": desc + ", trained on tests/trained/data.py's synthetic task",
        "input_name": m.graph.input[0].name,
        "output_name": m.graph.output[0].name,
        "input_shape": list(shape),
        "output_shape": list(y.shape),
        "dtype": "float32",
        "torch": torch.__version__,
        "onnx": onnx.__version__,
        "onnx_opset": OPSET,
        "init_seed": seed,
        "train": {"examples_per_epoch": n, "data_seed": "%d + 10000 * epoch" % (TRAIN_SEED + seed),
                  "epochs": epochs,
                  "batch": batch, "init": "He (fan in)" if he else "PyTorch default",
                  "optimizer": "Adam, %s learning rate" % ("one-cycle" if cycle else "constant"),
                  "max_lr": lr, "threads": torch.get_num_threads(),
                  "seconds": round(t_train - t_data, 1)},
        "held_out": {"examples": 1000, "data_seed": TEST_SEED + seed,
                     "metric": "R^2 of the reconstruction" if not classes else "top-1 accuracy",
                     "value": round(acc, 4),
                     "chance": 0.0 if not classes else round(1.0 / classes, 4)},
        "input_seed": INPUT_SEED,
        "params": sum(p.numel() for p in model.parameters()),
        "op_types": sorted({nd.op_type for nd in m.graph.node}),
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
    ap.add_argument("--out", default=os.path.join(REPO, "tests", "trained"))
    ap.add_argument("--only", default="", help="comma-separated model names")
    ap.add_argument("--threads", type=int, default=1,
                    help="torch threads (1: two threads were ten times slower on a busy 2-core machine)")
    a = ap.parse_args()
    names = list(TRAIN)
    if a.only:
        want = a.only.split(",")
        bad = [w for w in want if w not in TRAIN]
        if bad:
            ap.error("unknown model(s): %s" % ", ".join(bad))
        names = [n for n in names if n in want]
    torch.set_num_threads(a.threads)
    print("torch %s, onnx %s, numpy %s, opset %d, %d threads" % (
        torch.__version__, onnx.__version__, np.__version__, OPSET, torch.get_num_threads()))
    rows = []
    for n in names:
        meta, size = train_one(n, a.out)
        rows.append((n, meta, size))
    print()
    print("%-18s %8s %10s %8s  %-28s %s" % ("model", "params", "onnx bytes", "train s",
                                           "held-out", "chance"))
    for n, meta, size in rows:
        h = meta["held_out"]
        print("%-18s %8d %10d %8.1f  %-28s %s" % (
            n, meta["params"], size, meta["train"]["seconds"],
            "%s %.3f" % ("R^2" if h["chance"] == 0 else "accuracy", h["value"]),
            "-" if h["chance"] == 0 else "%.3f" % h["chance"]))


if __name__ == "__main__":
    sys.exit(main())
