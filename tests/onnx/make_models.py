#!/usr/bin/python3
"""Small ONNX files for the importer's tests (tests/onnx/*.onnx).

Run with Debian's python3-onnx (1.12.0 made the committed files):
    /usr/bin/python3 tests/onnx/make_models.py
Every file is written from fixed values, so running it again gives the same
bytes.

  basic.onnx              x[N,3] (symbolic batch) -> Add(w) -> Relu -> Mul(c)
                          -> Identity -> y; w an initializer, c a Constant
                          node, plus an initializer nothing reads
  reshape13.onnx          Reshape at opset 13 with its shape an initializer
                          (the "@param" path: the constant becomes a param)
  two_inputs.onnx         a[1,4] and b[N,H] (H symbolic: needs --shape)
  not_onnx.onnx           text, not protobuf
  truncated.onnx          basic.onnx cut in half
  unknown_op.onnx         a node of op type FooBar
  missing_initializer.onnx  Add reads 'w', which nothing defines
  many_problems.onnx      two unknown op types (three nodes), an undefined
                          input, an external-data initializer: one error
                          must name them all
"""
import os
import numpy as np
import onnx
from onnx import helper, TensorProto, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))


def save(model, name):
    onnx.save(model, os.path.join(HERE, name))


def model(graph, opset=13):
    m = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="lightnet-tests")
    m.ir_version = 7
    return m


def basic():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
    w = numpy_helper.from_array(np.array([0.5, -1.0, 2.0], np.float32), "w")
    unused = numpy_helper.from_array(np.zeros(4, np.float32), "unused")
    c = helper.make_node("Constant", [], ["c"], name="const_c",
                         value=numpy_helper.from_array(np.array([3.0], np.float32)))
    nodes = [c,
             helper.make_node("Add", ["x", "w"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["r"], name=""),
             helper.make_node("Mul", ["r", "c"], ["m"], name="add"),   # duplicate name
             helper.make_node("Identity", ["m"], ["y"])]
    return model(helper.make_graph(nodes, "basic", [x], [y], [w, unused]))


def main():
    b = basic()
    onnx.checker.check_model(b)
    save(b, "basic.onnx")
    data = b.SerializeToString()
    with open(os.path.join(HERE, "truncated.onnx"), "wb") as f:
        f.write(data[:len(data) // 2])
    with open(os.path.join(HERE, "not_onnx.onnx"), "w") as f:
        f.write("this is not an ONNX model\n")

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 4])
    shape = numpy_helper.from_array(np.array([3, -1], np.int64), "shape")
    g = helper.make_graph([helper.make_node("Reshape", ["x", "shape"], ["y"])],
                          "reshape13", [x], [y], [shape])
    save(model(g), "reshape13.onnx")

    a = helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 4])
    bb = helper.make_tensor_value_info("b", TensorProto.FLOAT, ["N", "H"])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    g = helper.make_graph([helper.make_node("Add", ["a", "b"], ["y"])], "two_inputs",
                          [a, bb], [y])
    save(model(g), "two_inputs.onnx")

    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 3])
    g = helper.make_graph([helper.make_node("FooBar", ["x"], ["y"], name="foo1")],
                          "unknown_op", [x], [y])
    save(model(g), "unknown_op.onnx")

    g = helper.make_graph([helper.make_node("Add", ["x", "w"], ["y"], name="add1")],
                          "missing_initializer", [x], [y])
    save(model(g), "missing_initializer.onnx")

    ext = TensorProto(name="ext", data_type=TensorProto.FLOAT, dims=[3],
                      data_location=TensorProto.EXTERNAL)
    ext.external_data.add(key="location", value="weights.bin")
    nodes = [helper.make_node("FooBar", ["x"], ["f1"], name="foo1"),
             helper.make_node("FooBar", ["f1"], ["f2"], name="foo2"),
             helper.make_node("Bazz", ["f2"], ["f3"], name="baz1"),
             helper.make_node("Add", ["f3", "nowhere"], ["f4"], name="add1"),
             helper.make_node("Mul", ["f4", "ext"], ["y"], name="mul1")]
    g = helper.make_graph(nodes, "many_problems", [x], [y], [ext])
    save(model(g), "many_problems.onnx")

    # Gather with its indices a graph input: an index out of range is found
    # only at run time, by the kernel (ln_rt_gather returns LN_RT_ARG_ERROR)
    idx = helper.make_tensor_value_info("idx", TensorProto.INT64, [3])
    gy = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3, 2])
    data = numpy_helper.from_array(np.arange(8, dtype=np.float32).reshape(4, 2), "data")
    g = helper.make_graph([helper.make_node("Gather", ["data", "idx"], ["y"], axis=0, name="gather1")],
                          "gather_runtime_index", [idx], [gy], [data])
    save(model(g), "gather_runtime_index.onnx")

    # a sequence read by something other than SequenceAt: refused, named
    sx = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 4])
    sy = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])
    g = helper.make_graph([helper.make_node("SplitToSequence", ["x"], ["s"], axis=1, name="split1"),
                           helper.make_node("ConcatFromSequence", ["s"], ["y"], axis=1, name="cat1")],
                          "sequence_concat", [sx], [sy])
    save(model(g), "sequence_concat.onnx")

    # an empty constant (ConstantOfShape of shape [0], ln_onnx_empty.c): a
    # Concat drops it; any other reader, or an empty graph output, is refused
    # by name (LightNet has no empty tensors)
    ex = helper.make_tensor_value_info("x", TensorProto.FLOAT, [3])
    ey = helper.make_tensor_value_info("y", TensorProto.FLOAT, [3])
    e0 = helper.make_tensor("s", TensorProto.INT64, [1], [0])
    cos = helper.make_node("ConstantOfShape", ["s"], ["e"], name="cos1")
    g = helper.make_graph([cos, helper.make_node("Concat", ["e", "x"], ["c"], axis=0, name="cat1"),
                           helper.make_node("Add", ["e", "c"], ["y"], name="add1")],
                          "empty_add", [ex], [ey], [e0])
    save(model(g), "empty_add.onnx")
    g = helper.make_graph([cos, helper.make_node("Concat", ["e", "e"], ["y"], axis=0, name="cat1")],
                          "empty_output", [ex], [helper.make_tensor_value_info(
                              "y", TensorProto.FLOAT, [0])], [e0])
    save(model(g), "empty_output.onnx")

    # inputs that set an output's shape must be known at import: a graph
    # input there is refused, naming the node and the input
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, None)
    for op, arg in (("Pad", "pads"), ("Tile", "repeats"), ("Expand", "shape")):
        p = helper.make_tensor_value_info(arg, TensorProto.INT64, [4 if op == "Pad" else 2])
        g = helper.make_graph([helper.make_node(op, ["x", arg], ["y"], name=op.lower() + "1")],
                              "runtime_" + arg, [x, p], [y])
        save(model(g), "runtime_%s.onnx" % arg)


if __name__ == "__main__":
    main()
