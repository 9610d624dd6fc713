#!/usr/bin/python3
"""A long ONNX model with very long names, for tests/cli/pictures.sh.

    /usr/bin/python3 tests/cli/pictures/make_models.py    (Debian's python3-onnx)

long_names.onnx  36 inverted-residual blocks (1x1 conv + relu, 3x3 depthwise
                 conv + relu, 1x1 conv, add) on a 1x4x12x12 input, about 150
                 ops after fusion (a MobileNetV3-size graph); every node and
                 tensor name is 90 to 120 characters; the input's and block 5's
                 hold XML and dot special characters (<, >, &, ", ') and a
                 non-ASCII letter.
                 Weights from numpy's seed 19.
"""
import os
import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(19)
C, E, HW, BLOCKS = 4, 8, 12, 36
nodes, inits = [], []


def name(i, what):
    if i == 5:      # escaping: XML and dot special characters, UTF-8
        what += "<&>\"'é"
    return ("/backbone/stage_%d/inverted_residual_bottleneck_block_%02d/%s/"
            "with_a_very_long_exported_tensor_name_suffix" % (i // 12, i, what))


def const(n, shape):
    inits.append(numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), n))
    return n


def conv(i, what, x, cin, cout, k, group):
    w = const(name(i, what) + ".weight", [cout, cin // group, k, k])
    b = const(name(i, what) + ".bias", [cout])
    y = name(i, what) + "/Conv_output_0"
    nodes.append(helper.make_node("Conv", [x, w, b], [y], name=name(i, what) + "/Conv",
                                  pads=[k // 2] * 4, group=group))
    return y


def relu(i, what, x):
    y = name(i, what) + "/Relu_output_0"
    nodes.append(helper.make_node("Relu", [x], [y], name=name(i, what) + "/Relu"))
    return y


x = "input <image> & \"friends\" 'é'"
t = x
for i in range(BLOCKS):
    h = relu(i, "expand", conv(i, "expand", t, C, E, 1, 1))
    h = relu(i, "depthwise", conv(i, "depthwise", h, E, E, 3, E))
    h = conv(i, "project", h, E, C, 1, 1)
    y = name(i, "residual") + "/Add_output_0"
    nodes.append(helper.make_node("Add", [t, h], [y], name=name(i, "residual") + "/Add"))
    t = y
g = helper.make_graph(nodes, "long_names",
                      [helper.make_tensor_value_info(x, TensorProto.FLOAT, [1, C, HW, HW])],
                      [helper.make_tensor_value_info(t, TensorProto.FLOAT, [1, C, HW, HW])],
                      inits)
m = helper.make_model(g, opset_imports=[helper.make_operatorsetid("", 13)],
                      producer_name="tests/cli/pictures/make_models.py")
m.ir_version = 7
onnx.checker.check_model(m)
onnx.save(m, os.path.join(HERE, "long_names.onnx"))
