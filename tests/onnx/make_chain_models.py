#!/usr/bin/python3
"""Models with shape-computation chains for the importer's import-time
evaluation (tests/onnx/chains/<name>/, docs/onnx.md "Shape computations").

Run with Debian's python3-torch 1.13 and python3-onnx 1.12:
    /usr/bin/python3 tests/onnx/make_chain_models.py
Each directory has the layout of an ONNX backend node test (model.onnx,
test_data_set_0/input_0.pb and output_0.pb: the reference output, from
PyTorch or numpy) plus stream.txt: the op types the compiled cpu stream
must hold besides input/output/create (the shape chains must leave none).
Fixed seeds: running it again gives the same values.

  view13        x.view(x.size(0), -1), no constant folding: Constant ->
                Unsqueeze -> Concat -> Reshape
  view_dyn13    the same with a symbolic batch: Shape -> Gather ->
                Unsqueeze -> Concat -> Reshape (batch taken as 1)
  view_dyn11    the same at opset 11 (Unsqueeze's axes an attribute)
  arith_dyn13   view(n, c * h // 2, -1): Mul, Div, Cast on int64
  interp13      F.interpolate(size=(h * 2, w * 2)): Shape -> Slice -> Cast
                -> Concat -> Resize(sizes)
  interp_dyn11  the same at opset 11 with a symbolic batch
  consts_dyn13  torch.arange, torch.ones(y.shape), torch.where: Range,
                ConstantOfShape, Equal, Neg, Where on known values
  helper_ops    onnx.helper: Shape(start) -> Squeeze, Sub, Expand, Less,
                Not, Where, Size, Floor, Flatten and Slice (negative step)
                of constants, feeding Reshape and Add
  zeropad13     nn.ZeroPad2d((0, 1, 0, 1)) before a conv, opset 13 without
                constant folding: Shape, Gather, Mul, Sub, Cast,
                ConstantOfShape, Concat, Reshape, Slice (step -1),
                Transpose, Reshape, Cast -> Pad's pads (issue 16)
  zeropad_chain the same pad chain built with onnx.helper, exactly
                ConstantOfShape -> Concat -> Reshape -> Slice (step -1) ->
                Transpose -> Reshape -> Cast -> Pad, numpy's np.pad the
                reference
and beside them, models whose chains cannot be folded (the importer's
error must name the node that could not be evaluated and why):
  ../pad_chain_runtime.onnx    the pad chain fed by a graph input
  ../pad_chain_bad_perm.onnx   its Transpose given a perm the op refuses
"""
import os
import shutil
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chains")


def store(name, model, x, y, stream):
    d = os.path.join(HERE, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "test_data_set_0"))
    onnx.save(model, os.path.join(d, "model.onnx"))
    g = model.graph
    for fn, arr, vi in (("input_0.pb", x, g.input[0]), ("output_0.pb", y, g.output[0])):
        t = numpy_helper.from_array(np.ascontiguousarray(arr), vi.name)
        with open(os.path.join(d, "test_data_set_0", fn), "wb") as f:
            f.write(t.SerializeToString())
    with open(os.path.join(d, "stream.txt"), "w") as f:
        f.write(" ".join(stream) + "\n")


def torch_models():
    import io
    import torch
    import torch.nn.functional as F

    class View(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.c = torch.nn.Conv2d(3, 4, 3)
            s.f = torch.nn.Linear(4 * 6 * 6, 5)

        def forward(s, x):
            y = s.c(x)
            return s.f(y.view(y.size(0), -1))

    class Arith(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.c = torch.nn.Conv2d(3, 4, 3)

        def forward(s, x):
            y = s.c(x)
            return y.view(y.size(0), y.size(1) * y.size(2) // 2, -1)

    class Interp(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.c = torch.nn.Conv2d(3, 4, 3)

        def forward(s, x):
            y = s.c(x)
            return F.interpolate(y, size=(y.shape[2] * 2, y.shape[3] * 2))

    class Consts(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.c = torch.nn.Conv2d(3, 4, 3)

        def forward(s, x):
            y = s.c(x)
            r = torch.arange(y.size(3), dtype=torch.float32)
            o = torch.ones(y.shape) * 0.5
            return y * r + o + torch.where(r == 2.0, r, -r)

    class ZeroPad(torch.nn.Module):
        def __init__(s):
            super().__init__()
            s.p = torch.nn.ZeroPad2d((0, 1, 0, 1))
            s.c = torch.nn.Conv2d(3, 4, 3)

        def forward(s, x):
            return s.c(s.p(x))

    dyn = {"x": {0: "N"}, "y": {0: "N"}}
    cases = [("view13", View, 13, None, ["conv2d", "reshape", "gemm"]),
             ("view_dyn13", View, 13, dyn, ["conv2d", "reshape", "gemm"]),
             ("view_dyn11", View, 11, dyn, ["conv2d", "reshape", "gemm"]),
             ("arith_dyn13", Arith, 13, dyn, ["conv2d", "reshape"]),
             ("interp13", Interp, 13, None, ["conv2d", "resize"]),
             ("interp_dyn11", Interp, 11, dyn, ["conv2d", "resize"]),
             ("consts_dyn13", Consts, 13, dyn, ["conv2d", "mul", "add", "add"]),
             ("zeropad13", ZeroPad, 13, None, ["conv2d"])]
    for i, (name, cls, opset, axes, stream) in enumerate(cases):
        torch.manual_seed(100 + i)
        m = cls().eval()
        x = torch.randn(1, 3, 8, 8)
        with torch.no_grad():
            y = m(x)
        buf = io.BytesIO()
        torch.onnx.export(m, x, buf, opset_version=opset, do_constant_folding=False,
                          input_names=["x"], output_names=["y"], dynamic_axes=axes)
        model = onnx.load_from_string(buf.getvalue())
        model.producer_version = ""          # the same bytes whatever the build
        store(name, model, x.numpy(), y.numpy(), stream)


def helper_ops():
    """Ops torch rarely emits, on known values; numpy gives the output."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3, 4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, 4])
    i64 = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)
    inits = [i64("zero", [0]), i64("one1", [1]), i64("three", [3]), i64("axes0", [0]),
             numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "w"),
             numpy_helper.from_array(np.array([1.7], np.float32), "f")]
    N = helper.make_node
    nodes = [
        N("Shape", ["x"], ["s12"], start=1),                    # [3, 4]
        N("Size", ["x"], ["size"]),                             # 24
        N("Slice", ["s12", "zero", "one1", "zero"], ["s1"]),    # [3]
        N("Squeeze", ["s1", "axes0"], ["c"]),                   # 3
        N("Sub", ["size", "c"], ["r"]),                         # 21
        N("Less", ["c", "r"], ["lt"]),                          # True
        N("Not", ["lt"], ["nlt"]),                              # False
        N("Where", ["nlt", "three", "s1"], ["s1b"]),            # [3]
        N("Concat", ["s1b", "s12"], ["shape3"], axis=0),        # [3, 3, 4]
        N("Slice", ["shape3", "one1", "three"], ["hw"]),        # [3, 4]
        N("Concat", ["two", "hw"], ["shp"], axis=0),            # [2, 3, 4]
        N("Reshape", ["x", "shp"], ["xr"]),
        N("Flatten", ["w"], ["wf"], axis=0),                    # [1, 6] of w
        N("Slice", ["wf", "m1", "big", "ax1", "m1"], ["wr"]),   # reversed
        N("Floor", ["f"], ["ff"]),                              # [1.0]
        N("Mul", ["wr", "ff"], ["wm"]),
        N("Reshape", ["wm", "hw23"], ["wm2"]),                  # [2, 3]
        N("Unsqueeze", ["wm2", "m1"], ["wm3"]),                 # [2, 3, 1]
        N("Expand", ["wm3", "shp"], ["we"]),                    # [2, 3, 4]
        N("Add", ["xr", "we"], ["y"]),
    ]
    inits += [i64("two", [2]), i64("ax1", [1]), i64("m1", [-1]), i64("big", [-100]),
              i64("hw23", [2, 3])]
    g = helper.make_graph(nodes, "helper_ops", [x], [y], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 15)],
                          producer_name="lightnet-tests")
    m.ir_version = 8
    onnx.checker.check_model(m)
    rng = np.random.RandomState(7)
    xv = rng.randn(2, 3, 4).astype(np.float32)
    w = np.arange(6, dtype=np.float32).reshape(1, 6)[:, ::-1] * np.floor(np.float32(1.7))
    yv = xv + np.broadcast_to(w.reshape(2, 3, 1), (2, 3, 4))
    store("helper_ops", m, xv, yv.astype(np.float32), ["add"])


def pad_chain(name, pad_src, perm=(1, 0)):
    """PyTorch's F.pad(x, (0, 1, 0, 1)) at opset 13 as onnx.helper nodes:
    the pads in PyTorch's order (last axis first, begin and end), filled
    up with zeros for the other axes, reversed pairwise and transposed into
    ONNX's order [begins..., ends...]."""
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3, 6, 7])
    i64 = lambda n, v: numpy_helper.from_array(np.array(v, np.int64), n)
    inputs = [x]
    inits = [i64("n_zeros", [4]), i64("pairs", [-1, 2]), i64("flat", [-1]),
             i64("s_start", [-1]), i64("s_end", [-9223372036854775807]), i64("s_axes", [0]),
             i64("s_steps", [-1])]
    if pad_src == "input":
        inputs.append(helper.make_tensor_value_info("torch_pads", TensorProto.INT64, [4]))
    else:
        inits.append(i64("torch_pads", [0, 1, 0, 1]))
    N = helper.make_node
    nodes = [
        N("ConstantOfShape", ["n_zeros"], ["zeros"],
          value=numpy_helper.from_array(np.array([0], np.int64))),
        N("Concat", ["torch_pads", "zeros"], ["pads8"], axis=0),
        N("Reshape", ["pads8", "pairs"], ["pairs2"]),
        N("Slice", ["pairs2", "s_start", "s_end", "s_axes", "s_steps"], ["rev"]),
        N("Transpose", ["rev"], ["tr"], perm=list(perm), name="T"),
        N("Reshape", ["tr", "flat"], ["onnx_pads"]),
        N("Cast", ["onnx_pads"], ["pads"], to=TensorProto.INT64),
        N("Pad", ["x", "pads"], ["y"], mode="constant"),
    ]
    g = helper.make_graph(nodes, name, inputs, [y], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)],
                          producer_name="lightnet-tests")
    m.ir_version = 7
    onnx.checker.check_model(m)
    return m


def pad_chains():
    m = pad_chain("zeropad_chain", "const")
    xv = np.random.RandomState(11).randn(1, 3, 5, 6).astype(np.float32)
    yv = np.pad(xv, ((0, 0), (0, 0), (0, 1), (0, 1)))        # F.pad(x, (0, 1, 0, 1))
    store("zeropad_chain", m, xv, yv, ["pad"])
    onnx.save(pad_chain("pad_chain_runtime", "input"),
              os.path.join(HERE, "..", "pad_chain_runtime.onnx"))
    onnx.save(pad_chain("pad_chain_bad_perm", "const", perm=(0, 0)),
              os.path.join(HERE, "..", "pad_chain_bad_perm.onnx"))


def main():
    torch_models()
    helper_ops()
    pad_chains()


if __name__ == "__main__":
    main()
