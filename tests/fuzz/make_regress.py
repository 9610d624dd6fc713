#!/usr/bin/env python3
"""Writes tests/fuzz/regress/onnx/: one small ONNX file per bug the fuzzers
found (or were told to find), each refused with one clear message now.
Deterministic; needs Debian's python3-onnx.  Run from the repository root:
/usr/bin/python3 tests/fuzz/make_regress.py"""
import os
import onnx
from onnx import TensorProto, helper

OUT = "tests/fuzz/regress/onnx"


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 13)])
    m.ir_version = 8
    return m


def vi(name, dims):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)


def raw_tensor(name, dims, raw, dtype=TensorProto.FLOAT):
    """A TensorProto whose dims need not match its data (make_tensor checks)."""
    t = TensorProto()
    t.name = name
    t.data_type = dtype
    t.dims.extend(dims)
    t.raw_data = raw
    return t


def relu_model():
    return model([helper.make_node("Relu", ["x"], ["y"])], [vi("x", [1, 4])], [vi("y", [1, 4])])


def main():
    os.makedirs(OUT, exist_ok=True)
    cases = {}
    m = relu_model()
    m.graph.input[0].ClearField("name")
    cases["input_without_name"] = m
    m = relu_model()
    m.graph.output[0].ClearField("name")
    cases["output_without_name"] = m
    m = model([helper.make_node("LeakyRelu", ["x"], ["y"], alpha=0.1)],
              [vi("x", [1, 4])], [vi("y", [1, 4])])
    m.graph.node[0].attribute[0].ClearField("name")
    cases["attribute_without_name"] = m
    m = relu_model()
    m.graph.node[0].ClearField("op_type")
    cases["node_without_op_type"] = m
    # dims claim 4 x 2^32 floats (64 GiB), four bytes of data
    big = raw_tensor("w", [4, 1 << 30], b"\0\0\0\0")
    cases["initializer_claims_64g"] = model(
        [helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", [1, 4])], [vi("y", [1, 4])], [big])
    big2 = TensorProto()
    big2.name = "w"
    big2.data_type = TensorProto.FLOAT
    big2.dims.extend([1 << 14, 1 << 14])
    big2.float_data.append(1.0)
    cases["initializer_values_short"] = model(
        [helper.make_node("Add", ["x", "w"], ["y"])], [vi("x", [1, 4])], [vi("y", [1, 4])], [big2])
    # the import-time evaluator's Reshape error path (freed array printed)
    shp = helper.make_tensor("s", TensorProto.INT64, [2], [1, -5])
    c = helper.make_tensor("c", TensorProto.INT64, [2, 1], [1, 4])
    cases["reshape_bad_dim"] = model(
        [helper.make_node("Reshape", ["c", "s"], ["r"]),
         helper.make_node("Reshape", ["x", "r"], ["y"])],
        [vi("x", [1, 4])], [vi("y", [1, 4])], [shp, c])
    # pads that overflow int: 2^31-1 + 1 on one axis
    pads = helper.make_tensor("p", TensorProto.INT64, [4], [0, 2147483647, 0, 1])
    cases["pad_overflow"] = model([helper.make_node("Pad", ["x", "p"], ["y"])],
                                  [vi("x", [1, 4])], [vi("y", [1, None])], [pads])
    # weight dims[1] * group wraps to the input's channel count
    # dilation * (kernel - 1) beyond int
    w2 = helper.make_tensor("w", TensorProto.FLOAT, [1, 1, 1, 3], [1, 1, 1])
    cases["conv_dilation_overflow"] = model(
        [helper.make_node("Conv", ["x", "w"], ["y"], dilations=[1, 1 << 30])],
        [vi("x", [1, 1, 1, 4])], [vi("y", [1, 1, 1, 1])], [w2])
    for name, m in sorted(cases.items()):
        with open(os.path.join(OUT, name + ".onnx"), "wb") as f:
            f.write(m.SerializeToString())


if __name__ == "__main__":
    main()
