#!/usr/bin/env python3
"""Writes the seed corpus of tests/fuzz/corpus/ that is not a copy of a test
model: small JSON IR networks with inline constants (the pipeline harness
runs them), a .params and a .wts file.  Deterministic; run from the
repository root: python3 tests/fuzz/make_seeds.py"""
import json, os, random, struct

R = random.Random(12)
OUT = "tests/fuzz/corpus"


def t(name):
    return {"name": name}


def op(name, optype, ins, outs, **params):
    return {"name": name, "optype": optype,
            "tensors_in": [dict(arg_name=a, name=n) for a, n in ins],
            "tensors_out": [dict(arg_name=a, name=n) for a, n in outs],
            "params": [{"arg_name": k, "value": v} for k, v in params.items()]}


def const(name, dims):
    n = 1
    for d in dims:
        n *= d
    return op(name, "create", [], [("dst", name)], dtype="float32", dims=dims,
              data=[round(R.uniform(-1, 1), 3) for _ in range(n)])


def inp(name, dims):
    return op(name, "input", [], [("dst", name)], dtype="float32", dims=dims)


def out(name):
    return op(name + "_out", "output", [("src", name)], [])


def conv_net():
    return {"ops": [
        inp("x", [1, 2, 6, 6]), const("w", [4, 2, 3, 3]), const("b", [4]),
        op("c1", "conv2d", [("src", "x"), ("weight", "w"), ("bias", "b")], [("dst", "y1")],
           pads=[1, 1, 1, 1], stride=[1, 1]),
        op("r1", "relu", [("src", "y1")], [("dst", "y2")]),
        op("p1", "maxpool2d", [("src", "y2")], [("dst", "y3")], kernel_shape=[2, 2],
           stride=[2, 2]),
        op("f1", "flatten", [("src", "y3")], [("dst", "y4")], axis=1),
        const("fw", [3, 36]), const("fb", [3]),
        op("g1", "gemm", [("src", "y4"), ("weight", "fw"), ("bias", "fb")], [("dst", "y5")],
           trans_b=1),
        op("s1", "softmax", [("src", "y5")], [("dst", "y6")], axis=-1),
        out("y6")]}


def concat_net():
    return {"ops": [
        inp("x", [1, 2, 4, 4]),
        op("pd", "pad", [("src", "x")], [("dst", "xp")], pads=[0, 0, 1, 0, 0, 0, 0, 1]),
        op("a1", "sigmoid", [("src", "x")], [("dst", "s")]),
        op("cc", "concat", [("src_0", "x"), ("src_1", "s")], [("dst", "c")], axis=1),
        op("cc2", "concat", [("src_0", "s"), ("src_1", "c")], [("dst", "c2")], axis=1),
        op("ad", "add", [("src1", "c2"), ("src2", "c2")], [("dst", "sum")]),
        op("rs", "reshape", [("src", "sum")], [("dst", "flat")], dims=[1, -1]),
        op("ap", "avgpool2d", [("src", "c")], [("dst", "ap")], kernel_shape=[2, 2]),
        out("flat"), out("ap"), out("xp")]}


def params_file():
    """.params (DLPack list): 2 tensors."""
    def tensor(dims, vals):
        b = struct.pack("<QQii", 0xF7E58D4F05049CB7, 0, 1, 0)
        b += struct.pack("<i", len(dims)) + bytes([2, 32, 1, 0])
        b += b"".join(struct.pack("<q", d) for d in dims)
        b += struct.pack("<q", 4 * len(vals)) + struct.pack("<%df" % len(vals), *vals)
        return b
    names = [b"w", b"bias"]
    body = struct.pack("<QQQ", 0x112, 0, 2)
    body += tensor([2, 3], [0.5, -1, 2, 3, 4, 5]) + tensor([3], [1, 2, 3])
    body += struct.pack("<Q", 2) + b"".join(struct.pack("<Q", len(n)) + n for n in names)
    return body


def main():
    for h in ("ir", "pipeline"):
        os.makedirs(os.path.join(OUT, h), exist_ok=True)
        for name, net in (("conv_net", conv_net()), ("concat_net", concat_net())):
            with open(os.path.join(OUT, h, name + ".json"), "w") as f:
                json.dump(net, f, separators=(",", ":"))
                f.write("\n")
    os.makedirs(os.path.join(OUT, "params"), exist_ok=True)
    with open(os.path.join(OUT, "params", "two.params"), "wb") as f:
        f.write(params_file())
    os.makedirs(os.path.join(OUT, "wts"), exist_ok=True)
    with open(os.path.join(OUT, "wts", "two.wts"), "w") as f:
        f.write("2\nw 0 3 3f800000 bf800000 40000000\nb 2 2 7f 80\n")


if __name__ == "__main__":
    main()
