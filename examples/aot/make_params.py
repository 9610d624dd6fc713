#!/usr/bin/python3
"""Weights, a stored input and its reference output for examples/aot/iris.json.

    python3 make_params.py          (standard library only)

The model is a nearest-centroid classifier of Fisher's iris flowers: the
score of class k is minus the squared distance from the 4 measurements
(sepal length, sepal width, petal length, petal width, in cm) to the
class's mean, each feature divided by its standard deviation over the whole
data set.  Class means and deviations are the well-known summary
statistics of the 150-flower data set (Fisher 1936), rounded to 3 decimals.
Writes iris.params (the NDArray dictionary), iris.in0.bin (the first flower
of the data set, a setosa, as float32) and iris.ref0.bin (its scores,
computed here in double precision).
"""
import struct

MEANS = [[5.006, 3.428, 1.462, 0.246],    # setosa
         [5.936, 2.770, 4.260, 1.326],    # versicolor
         [6.588, 2.974, 5.552, 2.026]]    # virginica
STD = [0.828, 0.436, 1.765, 0.762]
FLOWER = [5.1, 3.5, 1.4, 0.2]


def f32(v):
    return struct.unpack('<f', struct.pack('<f', v))[0]


def write_params(path, tensors):
    out = struct.pack('<QQQ', 0xF7E58D4F05049CB7, 0, len(tensors))
    for name, _, _ in tensors:
        b = name.encode()
        out += struct.pack('<Q', len(b)) + b
    out += struct.pack('<Q', len(tensors))
    for _, dims, vals in tensors:
        data = struct.pack('<%df' % len(vals), *vals)
        out += struct.pack('<QQ', 0xDD5E40F096B4A13F, 0)
        out += struct.pack('<iiiBBH', 1, 0, len(dims), 2, 32, 1)
        out += struct.pack('<%dq' % len(dims), *dims)
        out += struct.pack('<q', len(data)) + data
    with open(path, 'wb') as fp:
        fp.write(out)


inv = [1.0 / s for s in STD]
write_params('iris.params', [('centroids', [3, 4], sum(MEANS, [])), ('inv_scale', [1, 4], inv)])
with open('iris.in0.bin', 'wb') as fp:
    fp.write(struct.pack('<4f', *FLOWER))
scores = [-sum(((f32(FLOWER[i]) - f32(m[i])) * f32(inv[i])) ** 2 for i in range(4)) for m in MEANS]
with open('iris.ref0.bin', 'wb') as fp:
    fp.write(struct.pack('<3f', *scores))
