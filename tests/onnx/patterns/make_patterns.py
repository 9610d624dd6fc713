#!/usr/bin/env python3
"""Export patterns real models contain that LightNet must import, each a
small ONNX model: <name>.onnx, its input <name>.in.bin (raw float32) and the
output ONNX Runtime computes for it, <name>.ref.bin (onnxruntime-node from
bench/node_modules, graph optimizations off: run `sh bench/setup.sh`
first).  Committed; make test-aot runs each through the interpreter (as
compiled and at -O0) and ln-aot + cc against the reference.

  /usr/bin/python3 tests/onnx/patterns/make_patterns.py
"""
import json
import os
import shutil
import subprocess
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
R = np.random.RandomState(0)


def f32(*shape):
    return R.uniform(-1, 1, shape).astype(np.float32)


def save(name, nodes, inits, x_shape, y_shape, opset=14, full_check=True):
    g = helper.make_graph(
        nodes, name, [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        [numpy_helper.from_array(v, k) for k, v in inits.items()])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)],
                          producer_name="lightnet-patterns")
    m.ir_version = 8
    onnx.checker.check_model(m, full_check=full_check)
    onnx.save(m, os.path.join(HERE, name + ".onnx"))
    x = f32(*x_shape)
    x.tofile(os.path.join(HERE, name + ".in.bin"))
    # the reference: ONNX Runtime through the differential tester's runner
    d = tempfile.mkdtemp()
    try:
        shutil.copy(os.path.join(HERE, name + ".onnx"), os.path.join(d, "model.onnx"))
        x.tofile(os.path.join(d, "in_0.bin"))
        json.dump(list(x_shape), open(os.path.join(d, "shape_0.json"), "w"))
        open(os.path.join(d, "inputs.txt"), "w").write("x\n")
        open(os.path.join(d, "outs.txt"), "w").write("y\n")
        subprocess.run(["node", os.path.join(ROOT, "tests", "difftest", "ort_run.js"), d],
                       check=True, stderr=subprocess.DEVNULL)
        if os.path.exists(os.path.join(d, "ort.err")):
            raise SystemExit("%s: ONNX Runtime: %s" % (name, open(os.path.join(d, "ort.err")).read()))
        shutil.copy(os.path.join(d, "ort_0.bin"), os.path.join(HERE, name + ".ref.bin"))
    finally:
        shutil.rmtree(d)


# 1-D convolution, batch norm, pooling and transposed convolution on 3-D
# tensors (nn.Conv1d, BatchNorm1d, MaxPool1d, AvgPool1d, ConvTranspose1d:
# audio models), a conv without kernel_shape, a grouped and dilated one
save("conv1d_audio",
     [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3], pads=[1, 1]),
      helper.make_node("BatchNormalization", ["c1", "s", "bb", "m", "v"], ["bn"]),
      helper.make_node("Relu", ["bn"], ["r"]),
      helper.make_node("MaxPool", ["r"], ["mp"], kernel_shape=[2], strides=[2]),
      helper.make_node("Conv", ["mp", "w2"], ["c2"], kernel_shape=[5], pads=[2, 1], strides=[2],
                       group=2),
      helper.make_node("AveragePool", ["c2"], ["ap"], kernel_shape=[3], pads=[1, 1],
                       count_include_pad=0),
      helper.make_node("ConvTranspose", ["ap", "wt"], ["ct"], kernel_shape=[4], strides=[2],
                       pads=[1, 1]),
      helper.make_node("Conv", ["ct", "w3"], ["c3"], dilations=[2]),
      helper.make_node("GlobalAveragePool", ["c3"], ["y"])],
     {"w1": f32(8, 4, 3), "b1": f32(8), "s": f32(8) + 1.5, "bb": f32(8), "m": f32(8),
      "v": np.abs(f32(8)) + 0.5, "w2": f32(6, 4, 5), "wt": f32(6, 3, 4), "w3": f32(5, 3, 3)},
     [2, 4, 40], [2, 5, 1])

# HardSwish as opset 13 exports it (MobileNetV3): x * HardSigmoid(x) with
# alpha 1/6, beta 1/2, both operand orders; the combiner makes each one
# hardswish (a HardSigmoid of other alpha stays as it is)
save("hardswish_opset13",
     [helper.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
      helper.make_node("HardSigmoid", ["c1"], ["h1"], alpha=1.0 / 6, beta=0.5),
      helper.make_node("Mul", ["c1", "h1"], ["m1"]),
      helper.make_node("Conv", ["m1", "w2"], ["c2"], kernel_shape=[1, 1]),
      helper.make_node("HardSigmoid", ["c2"], ["h2"], alpha=1.0 / 6, beta=0.5),
      helper.make_node("Mul", ["h2", "c2"], ["m2"]),
      helper.make_node("HardSigmoid", ["m2"], ["h3"], alpha=0.2, beta=0.5),
      helper.make_node("Mul", ["m2", "h3"], ["y"])],
     {"w1": f32(8, 3, 3, 3), "w2": f32(6, 8, 1, 1)},
     [1, 3, 10, 10], [1, 6, 10, 10])

# Recurrent layers (keyword spotters, voice activity detectors): a
# bidirectional GRU with linear_before_reset, biases, an initial state and
# per-sequence lengths; a reverse LSTM with peepholes and initial h and c,
# read through Y_h (ONNX Runtime has no layout 1, so no reference for it
# here); an RNN with ReLU
H = 8
save("gru_bidirectional",
     [helper.make_node("GRU", ["x", "gw", "gr", "gb", "sl", "gh"], ["y"], hidden_size=H,
                       direction="bidirectional", linear_before_reset=1)],
     {"gw": f32(2, 3 * H, 10), "gr": f32(2, 3 * H, H), "gb": f32(2, 6 * H),
      "sl": np.array([20, 13], np.int32), "gh": f32(2, 2, H)},
     [20, 2, 10], [20, 2, 2, H])
save("lstm_reverse_peephole",
     [helper.make_node("LSTM", ["x", "lw", "lr", "lb", "", "lh", "lc", "lp"], ["", "y"],
                       hidden_size=5, direction="reverse")],
     {"lw": f32(1, 20, 6), "lr": f32(1, 20, 5), "lb": f32(1, 40), "lh": f32(1, 2, 5),
      "lc": f32(1, 2, 5), "lp": f32(1, 15)},
     [15, 2, 6], [1, 2, 5])
save("rnn_relu",
     [helper.make_node("RNN", ["x", "rw", "rr", "rb"], ["y"], hidden_size=6,
                       activations=["Relu"])],
     {"rw": f32(1, 6, 4) * 0.5, "rr": f32(1, 6, 6) * 0.5, "rb": f32(1, 12)},
     [10, 3, 4], [10, 1, 3, 6])

# A log-mel front end's floor: Clip(x, max(x) - 8, none), the min computed
# at run time from the input (a tensor input of clip, not a param); and a
# Clip with a constant max after a conv stays fusable
save("clip_runtime_min",
     [helper.make_node("Conv", ["x", "cw"], ["c"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
      helper.make_node("Clip", ["c", "", "hi"], ["c2"]),
      helper.make_node("ReduceMax", ["c2"], ["m"], keepdims=0),
      helper.make_node("Sub", ["m", "db"], ["floor"]),
      helper.make_node("Clip", ["c2", "floor"], ["y"])],
     {"cw": f32(4, 2, 3, 3) * 3, "hi": np.float32(2.5), "db": np.float32(3.0)},
     [1, 2, 8, 8], [1, 4, 8, 8])

# A classifier's top-3 (TopK's K a [1]-shaped initializer, as exporters
# write it) along a middle axis, values and indices both checked
save("topk_middle_axis",
     [helper.make_node("TopK", ["x", "k"], ["v", "i"], axis=1),
      helper.make_node("Cast", ["i"], ["fi"], to=TensorProto.FLOAT),
      helper.make_node("Add", ["v", "fi"], ["y"])],
     {"k": np.array([3], np.int64)},
     [2, 7, 3], [2, 3, 3])

# One-hot of float indices (negative ones count from depth, one beyond it
# or a fractional one gives all off) on a middle axis, depth a scalar
# initializer: rounded indices concatenated with fractional ones
save("onehot_float_indices",
     [helper.make_node("Mul", ["x", "four"], ["s"]),
      helper.make_node("Round", ["s"], ["r"]),
      helper.make_node("Concat", ["r", "s"], ["rs"], axis=1),
      helper.make_node("OneHot", ["rs", "depth", "vals"], ["y"], axis=1)],
     {"four": np.float32(4.5), "depth": np.float32(4), "vals": np.array([-1, 2], np.float32)},
     [3, 5], [3, 4, 10])

# Running sums (CumSum, axis a scalar initializer), plain and exclusive in
# reverse, on different axes
save("cumsum_axes",
     [helper.make_node("CumSum", ["x", "ax1"], ["a"]),
      helper.make_node("CumSum", ["x", "ax0"], ["b"], exclusive=1, reverse=1),
      helper.make_node("Add", ["a", "b"], ["y"])],
     {"ax1": np.array(1, np.int64), "ax0": np.array(-3, np.int64)},
     [3, 6, 4], [3, 6, 4])

# Attention written as Einsum (as many transformer exports do): the scores
# q.k^T over the head dim, a softmax, the weighted sum of v
save("einsum_attention",
     [helper.make_node("Einsum", ["x", "k"], ["s"], equation="bhqd,bhkd->bhqk"),
      helper.make_node("Softmax", ["s"], ["p"], axis=-1),
      helper.make_node("Einsum", ["p", "v"], ["y"], equation="bhqk, bhkd -> bhqd")],
     {"k": f32(1, 2, 5, 3), "v": f32(1, 2, 5, 3)},
     [1, 2, 4, 3], [1, 2, 4, 3])

# An implicit output with an ellipsis: batched x times a matrix
# ("...ij,jk" is "...ik": the broadcast dims, then the letters used once)
save("einsum_ellipsis_implicit",
     [helper.make_node("Einsum", ["x", "w"], ["y"], equation="...ij,jk")],
     {"w": f32(4, 5)},
     [2, 3, 4], [2, 3, 5])

# 3-D convolution, batch norm, pooling and transposed convolution on 5-D
# tensors (nn.Conv3d, BatchNorm3d, MaxPool3d, AvgPool3d, ConvTranspose3d:
# video and volume models): asymmetric pads, a grouped dilated strided
# conv without kernel_shape, ceil mode, output_padding, a 2-D MaxPool's
# Indices (as int64, row-major) added back in
save("conv3d_volume",
     [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3, 3],
                       pads=[1, 1, 0, 1, 1, 2]),
      helper.make_node("BatchNormalization", ["c1", "s", "bb", "m", "v"], ["bn"]),
      helper.make_node("Relu", ["bn"], ["r"]),
      helper.make_node("MaxPool", ["r"], ["mp"], kernel_shape=[2, 2, 2], strides=[2, 2, 2],
                       ceil_mode=1),
      helper.make_node("Conv", ["mp", "w2"], ["c2"], strides=[1, 2, 1], dilations=[1, 1, 2],
                       pads=[1, 1, 2, 1, 0, 2], group=2),
      helper.make_node("AveragePool", ["c2"], ["ap"], kernel_shape=[2, 3, 3], pads=[1, 1, 1, 0, 1, 1],
                       count_include_pad=0),
      helper.make_node("ConvTranspose", ["ap", "wt", "bt"], ["ct"], kernel_shape=[3, 3, 2],
                       strides=[2, 2, 1], pads=[1, 1, 0, 1, 0, 0], output_padding=[1, 0, 0]),
      helper.make_node("Reshape", ["ct", "shp"], ["ct4"]),
      helper.make_node("MaxPool", ["ct4"], ["mp2", "ix"], kernel_shape=[2, 2], strides=[2, 1]),
      helper.make_node("Cast", ["ix"], ["fix"], to=TensorProto.FLOAT),
      helper.make_node("Mul", ["fix", "tiny"], ["six"]),
      helper.make_node("Add", ["mp2", "six"], ["y"])],
     {"w1": f32(8, 3, 3, 3, 3), "b1": f32(8), "s": f32(8) + 1.5, "bb": f32(8), "m": f32(8),
      "v": np.abs(f32(8)) + 0.5, "w2": f32(6, 4, 2, 3, 2), "wt": f32(6, 2, 3, 3, 2),
      "bt": f32(2), "shp": np.array([2, 2, -1, 4], np.int64), "tiny": np.float32(1e-3)},
     [2, 3, 6, 8, 7], [2, 2, 28, 3])

# Training-graph losses: SoftmaxCrossEntropyLoss in float64 (x cast up, the
# per-element losses beside the log-probabilities, cast back), with class
# weights and an ignored class over [N, C, d1, d2]; NegativeLogLikelihoodLoss
# of a LogSoftmax with int32 targets (the node tests have only int64),
# weights and ignore_index, reduced to the weighted mean
save("loss_sce_float64",
     [helper.make_node("Cast", ["x"], ["xd"], to=TensorProto.DOUBLE),
      helper.make_node("SoftmaxCrossEntropyLoss", ["xd", "lab", "wd"], ["z", "lp"],
                       reduction="none", ignore_index=2),
      helper.make_node("Unsqueeze", ["z", "ax1"], ["z1"]),
      helper.make_node("Concat", ["z1", "lp"], ["zl"], axis=1),
      helper.make_node("Cast", ["zl"], ["y"], to=TensorProto.FLOAT)],
     {"lab": np.array([[[0, 1], [2, 3], [3, 2]], [[1, 1], [0, 2], [3, 0]]], np.int64),
      "wd": np.array([0.5, 1.0, 2.0, 1.5], np.float64), "ax1": np.array([1], np.int64)},
     [2, 4, 3, 2], [2, 5, 3, 2])
save("loss_nll_int32",
     [helper.make_node("LogSoftmax", ["x"], ["lp"], axis=1),
      helper.make_node("NegativeLogLikelihoodLoss", ["lp", "t", "w"], ["y"],
                       reduction="mean", ignore_index=0)],
     {"t": np.array([[1, 0, 4, 2], [3, 3, 0, 1], [2, 4, 1, 0]], np.int32),
      "w": np.array([0.2, 1.0, 0.7, 1.3, 2.0], np.float32)},
     [3, 5, 4], [])

# An audio front end (opset 17): a Hann window, the STFT of 16-sample frames
# 8 apart, the power spectrum, an 8-band mel filter bank (no full check:
# onnx 1.12's shape inference gives STFT all 16 bins, not the one-sided 9)
save("audio_stft_mel",
     [helper.make_node("HannWindow", ["wlen"], ["w"]),
      helper.make_node("STFT", ["x", "step", "w"], ["s"]),
      helper.make_node("Mul", ["s", "s"], ["s2"]),
      helper.make_node("ReduceSum", ["s2", "last"], ["p"], keepdims=0),
      helper.make_node("MelWeightMatrix", ["bins", "wlen", "rate", "lo", "hi"], ["mel"]),
      helper.make_node("MatMul", ["p", "mel"], ["y"])],
     {"wlen": np.array(16, np.int64), "step": np.array(8, np.int64),
      "last": np.array([-1], np.int64), "bins": np.array(8, np.int64),
      "rate": np.array(8000, np.int64), "lo": np.float32(20.0), "hi": np.float32(3900.0)},
     [1, 64, 1], [1, 7, 8], opset=17, full_check=False)

# A one-sided DFT zero padded to 16 points along axis 1, and an inverse
# complex DFT of a Hamming-windowed (symmetric) signal truncated to 8
save("dft_onesided_inverse",
     [helper.make_node("DFT", ["x", "n16"], ["f"], axis=1, onesided=1),
      helper.make_node("HammingWindow", ["n9"], ["h"], periodic=0),
      helper.make_node("Reshape", ["h", "hs"], ["h2"]),
      helper.make_node("Mul", ["f", "h2"], ["g"]),
      helper.make_node("DFT", ["g", "n8"], ["y"], axis=1, inverse=1)],
     {"n16": np.array(16, np.int64), "n9": np.array(9, np.int64),
      "hs": np.array([1, 9, 1, 1], np.int64), "n8": np.array(8, np.int64)},
     [2, 12, 3, 1], [2, 8, 3, 2], opset=17)

# Detection and spatial-transformer heads (opset 16): GridSample bicubic
# with reflection and align_corners, nearest with border, bilinear with
# zeros (grids reaching outside the image); RoiAlign averaged (half_pixel,
# spatial_scale 0.5, adaptive sampling) and maximum (output_half_pixel,
# sampling_ratio 2) over rois partly outside the image
save("detect_heads",
     [helper.make_node("GridSample", ["x", "g1"], ["a"], mode="bicubic",
                       padding_mode="reflection", align_corners=1),
      helper.make_node("GridSample", ["x", "g2"], ["b"], mode="nearest", padding_mode="border"),
      helper.make_node("GridSample", ["x", "g3"], ["c"]),
      helper.make_node("RoiAlign", ["x", "rois", "bi"], ["d"], output_height=5, output_width=7,
                       spatial_scale=0.5),
      helper.make_node("RoiAlign", ["x", "rois", "bi"], ["e"], mode="max", output_height=5,
                       output_width=7, sampling_ratio=2,
                       coordinate_transformation_mode="output_half_pixel"),
      helper.make_node("Sum", ["a", "b", "c", "d", "e"], ["y"])],
     {"g1": f32(2, 5, 7, 2) * 1.3, "g2": f32(2, 5, 7, 2) * 1.3, "g3": f32(2, 5, 7, 2) * 1.3,
      "rois": np.array([[1.0, 2.5, 17.0, 12.0], [-3.0, 4.0, 9.5, 22.0]], np.float32),
      "bi": np.array([1, 0], np.int64)},
     [2, 3, 9, 11], [2, 3, 5, 7], opset=16)

# SegNet's unpooling: MaxPool's Indices into MaxUnpool (no output_shape:
# the unpooled shape is the pooled input's)
save("maxunpool_segnet",
     [helper.make_node("MaxPool", ["x"], ["p", "i"], kernel_shape=[2, 2], strides=[2, 2]),
      helper.make_node("Relu", ["p"], ["r"]),
      helper.make_node("MaxUnpool", ["r", "i"], ["y"], kernel_shape=[2, 2], strides=[2, 2])],
     {}, [2, 3, 8, 10], [2, 3, 8, 10])

# Pad with its constant computed at run time (the input's maximum: a tensor
# input of pad, not a param), beside an int32 edge pad of the same pads
# (Pad on any element type) cast back to float
save("pad_runtime_value",
     [helper.make_node("ReduceMax", ["x"], ["m"], keepdims=0),
      helper.make_node("Pad", ["x", "pads", "m"], ["a"]),
      helper.make_node("Mul", ["x", "ten"], ["x10"]),
      helper.make_node("Cast", ["x10"], ["xi"], to=TensorProto.INT32),
      helper.make_node("Pad", ["xi", "pads"], ["bi"], mode="edge"),
      helper.make_node("Cast", ["bi"], ["b"], to=TensorProto.FLOAT),
      helper.make_node("Add", ["a", "b"], ["y"])],
     {"pads": np.array([0, 1, 2, 0, 2, 1], np.int64), "ten": np.float32(10)},
     [2, 3, 4], [2, 6, 7])

# A run-time pad constant before a conv: not the conv's own (zero) padding
save("pad_runtime_value_conv",
     [helper.make_node("ReduceMin", ["x"], ["m"], keepdims=0),
      helper.make_node("Pad", ["x", "pads", "m"], ["p"]),
      helper.make_node("Conv", ["p", "cw"], ["y"], kernel_shape=[3, 3])],
     {"pads": np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64), "cw": f32(3, 2, 3, 3)},
     [1, 2, 5, 5], [1, 3, 5, 5])

# ConvTranspose3d's output_shape (opset 14): one axis beyond the full
# output (negative pads: the extra outputs are the bias), one at it, one
# below it (pads split with the larger half at the start)
save("convtranspose3d_output_shape",
     [helper.make_node("ConvTranspose", ["x", "w", "b"], ["y"], strides=[2, 1, 2],
                       output_shape=[8, 5, 8])],
     {"w": f32(3, 2, 3, 2, 3), "b": f32(2)},
     [1, 3, 3, 4, 4], [1, 2, 8, 5, 8])

# LpNormalization (F.normalize-style embeddings): L1 over the channels of a
# tensor with one channel column zeroed (ONNX Runtime gives 0 for a zero
# norm), plus L2 over the last axis
mask = np.ones((1, 4, 1), np.float32)
mask[0, 2, 0] = 0.0
save("lpnorm_axes",
     [helper.make_node("Mul", ["x", "mask"], ["xm"]),
      helper.make_node("Transpose", ["xm"], ["xt"], perm=[0, 2, 1]),
      helper.make_node("LpNormalization", ["xt"], ["a"], axis=1, p=1),
      helper.make_node("Transpose", ["a"], ["at"], perm=[0, 2, 1]),
      helper.make_node("LpNormalization", ["x"], ["b"], axis=-1, p=2),
      helper.make_node("Add", ["at", "b"], ["y"])],
     {"mask": mask},
     [2, 4, 5], [2, 4, 5])

# Sequences as torch.tensor_split and unbind-like exports use them:
# SplitToSequence with a scalar split (chunks of 2, the last shorter) read
# at a negative position, and without a split and keepdims 0 (each element
# squeezed); opset 11 (Squeeze/Unsqueeze by attribute) and 13 (by input)
for _ops in (11, 13):
    _unsq = ([helper.make_node("Unsqueeze", ["f"], ["fu"], axes=[2])] if _ops < 13 else
             [helper.make_node("Unsqueeze", ["f", "ax2"], ["fu"])])
    save("seq_split_opset%d" % _ops,
         [helper.make_node("SplitToSequence", ["x", "two"], ["s1"], axis=1),
          helper.make_node("SequenceAt", ["s1", "last"], ["e"]),
          helper.make_node("SplitToSequence", ["x"], ["s2"], axis=2, keepdims=0),
          helper.make_node("SequenceAt", ["s2", "one"], ["f"])] + _unsq +
         [helper.make_node("Add", ["e", "fu"], ["y"])],
         {"two": np.array(2, np.int64), "last": np.array(-1, np.int64),
          "one": np.array(1, np.int64), "ax2": np.array([2], np.int64)},
         [2, 5, 3], [2, 5, 3], opset=_ops)

# SiLU as PyTorch exports nn.SiLU (EfficientNet): x * Sigmoid(x), both
# operand orders, each one silu; a Sigmoid also read by another op stays,
# and so does a squeeze-excitation gate (the Mul's other operand is not the
# Sigmoid's input)
save("silu_swish",
     [helper.make_node("Conv", ["x", "w1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
      helper.make_node("Sigmoid", ["c1"], ["s1"]),
      helper.make_node("Mul", ["c1", "s1"], ["m1"]),
      helper.make_node("Conv", ["m1", "w2"], ["c2"], kernel_shape=[1, 1]),
      helper.make_node("Sigmoid", ["c2"], ["s2"]),
      helper.make_node("Mul", ["s2", "c2"], ["m2"]),
      helper.make_node("Sigmoid", ["m2"], ["s3"]),
      helper.make_node("Mul", ["m2", "s3"], ["m3"]),
      helper.make_node("Add", ["m3", "s3"], ["a"]),
      helper.make_node("GlobalAveragePool", ["a"], ["g"]),
      helper.make_node("Sigmoid", ["g"], ["sg"]),
      helper.make_node("Mul", ["a", "sg"], ["y"])],
     {"w1": f32(8, 3, 3, 3), "w2": f32(6, 8, 1, 1)},
     [1, 3, 10, 10], [1, 6, 10, 10])

# TensorFlow / Keras as tf2onnx writes it: NHWC inputs with Transposes to
# and from the convolutions, "same" padding as auto_pad SAME_UPPER and as
# an asymmetric stride-2 pad, ReLU6 as Clip with min/max inputs, flatten in
# NHWC order, Dense as MatMul + Add, and the softmax head
save("tf_keras_cnn",
     [helper.make_node("Transpose", ["x"], ["t0"], perm=[0, 3, 1, 2]),
      helper.make_node("Conv", ["t0", "w1", "b1"], ["c1"], auto_pad="SAME_UPPER"),
      helper.make_node("Relu", ["c1"], ["r1"]),
      helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[2, 2], strides=[2, 2],
                       auto_pad="VALID"),
      helper.make_node("Conv", ["p1", "w2", "b2"], ["c2"], pads=[0, 0, 1, 1], strides=[2, 2]),
      helper.make_node("Clip", ["c2", "lo", "hi"], ["r2"]),
      helper.make_node("Transpose", ["r2"], ["t1"], perm=[0, 2, 3, 1]),
      helper.make_node("Reshape", ["t1", "shp"], ["fl"]),
      helper.make_node("MatMul", ["fl", "wd"], ["mm"]),
      helper.make_node("Add", ["mm", "bd"], ["ad"]),
      helper.make_node("Softmax", ["ad"], ["y"], axis=-1)],
     {"w1": f32(8, 3, 3, 3), "b1": f32(8), "w2": f32(16, 8, 3, 3), "b2": f32(16),
      "lo": np.array(0, np.float32), "hi": np.array(6, np.float32),
      "shp": np.array([-1, 256], np.int64), "wd": f32(256, 10), "bd": f32(10)},
     [1, 16, 16, 3], [1, 10], opset=13)

# Keras depthwise-separable block in NHWC: the batch norm tf2onnx leaves
# unfused as Mul/Add on the last (channel) axis between Transposes, and
# the global average pool as ReduceMean over axes 1, 2
save("tf_keras_dw_bn_nhwc",
     [helper.make_node("Transpose", ["x"], ["t0"], perm=[0, 3, 1, 2]),
      helper.make_node("Conv", ["t0", "wdw", "bdw"], ["c1"], group=6, pads=[1, 1, 1, 1]),
      helper.make_node("Transpose", ["c1"], ["t1"], perm=[0, 2, 3, 1]),
      helper.make_node("Mul", ["t1", "sc"], ["m1"]),
      helper.make_node("Add", ["m1", "sh"], ["a1"]),
      helper.make_node("Relu", ["a1"], ["r1"]),
      helper.make_node("Transpose", ["r1"], ["t2"], perm=[0, 3, 1, 2]),
      helper.make_node("Conv", ["t2", "wpw", "bpw"], ["c2"]),
      helper.make_node("Transpose", ["c2"], ["t3"], perm=[0, 2, 3, 1]),
      helper.make_node("ReduceMean", ["t3"], ["y"], axes=[1, 2], keepdims=0)],
     {"wdw": f32(6, 1, 3, 3), "bdw": f32(6), "sc": (f32(6) + 1.5).astype(np.float32),
      "sh": f32(6), "wpw": f32(12, 6, 1, 1), "bpw": f32(12)},
     [1, 8, 8, 6], [1, 12], opset=13)

# A per-element scale that broadcasts along W, not along the channels,
# after a conv: it must not fold into the conv's weights
save("conv_mul_along_w",
     [helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
      helper.make_node("Mul", ["c1", "s"], ["m"]),
      helper.make_node("Add", ["m", "t"], ["y"])],
     {"w1": f32(4, 3, 3, 3), "b1": f32(4), "s": (f32(4) + 1).astype(np.float32),
      "t": f32(1, 4, 1, 1)},
     [1, 3, 4, 4], [1, 4, 4, 4], opset=13)

# TF1-style resizes on NHWC: nearest with asymmetric coordinates and floor,
# then bilinear to a size with align_corners
save("tf_resize_nhwc",
     [helper.make_node("Transpose", ["x"], ["t0"], perm=[0, 3, 1, 2]),
      helper.make_node("Resize", ["t0", "roi", "scl"], ["r1"], mode="nearest",
                       coordinate_transformation_mode="asymmetric", nearest_mode="floor"),
      helper.make_node("Resize", ["r1", "", "", "sz"], ["r2"], mode="linear",
                       coordinate_transformation_mode="align_corners"),
      helper.make_node("Transpose", ["r2"], ["y"], perm=[0, 2, 3, 1])],
     {"roi": np.array([], np.float32), "scl": np.array([1, 1, 2, 2], np.float32),
      "sz": np.array([1, 3, 11, 13], np.int64)},
     [1, 5, 6, 3], [1, 11, 13, 3], opset=13)

# Dense on a 3-D input, a layer norm written out (ReduceMean, Sub, Pow,
# Sqrt, Div) and GELU through Erf, as TensorFlow's exporters write them
save("tf_dense_layernorm_gelu",
     [helper.make_node("MatMul", ["x", "wd"], ["mm"]),
      helper.make_node("Add", ["mm", "bd"], ["h"]),
      helper.make_node("ReduceMean", ["h"], ["mu"], axes=[-1]),
      helper.make_node("Sub", ["h", "mu"], ["d"]),
      helper.make_node("Pow", ["d", "two"], ["d2"]),
      helper.make_node("ReduceMean", ["d2"], ["var"], axes=[-1]),
      helper.make_node("Add", ["var", "eps"], ["ve"]),
      helper.make_node("Sqrt", ["ve"], ["sd"]),
      helper.make_node("Div", ["d", "sd"], ["nrm"]),
      helper.make_node("Mul", ["nrm", "g"], ["ng"]),
      helper.make_node("Add", ["ng", "be"], ["ln"]),
      helper.make_node("Mul", ["ln", "rs2"], ["e0"]),
      helper.make_node("Erf", ["e0"], ["e1"]),
      helper.make_node("Add", ["e1", "one"], ["e2"]),
      helper.make_node("Mul", ["ln", "e2"], ["e3"]),
      helper.make_node("Mul", ["e3", "half"], ["y"])],
     {"wd": f32(8, 16), "bd": f32(16), "two": np.array(2, np.float32),
      "eps": np.array(1e-5, np.float32), "g": f32(16), "be": f32(16),
      "rs2": np.array(1 / np.sqrt(2), np.float32), "one": np.array(1, np.float32),
      "half": np.array(0.5, np.float32)},
     [2, 5, 8], [2, 5, 16], opset=13)
