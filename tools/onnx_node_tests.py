#!/usr/bin/python3
"""Generate the ONNX backend node-test corpus with Debian's python3-onnx.

    /usr/bin/python3 tools/onnx_node_tests.py OUTDIR [--op-type A,B,...] [--quiet]

Writes, for every node test that the installed onnx package defines,

    OUTDIR/node/<test name>/model.onnx
    OUTDIR/node/<test name>/test_data_set_<k>/input_<j>.pb    (serialized TensorProto)
    OUTDIR/node/<test name>/test_data_set_<k>/output_<j>.pb

(the layout of onnx's own backend-test data), plus OUTDIR/node/index.tsv, one line per
test: name, op types used by its graph (comma-separated, sorted), the default-domain
opset it imports, its number of inputs and outputs, and whether every input and output
is a plain tensor.  A conformance runner can pick the tests whose op types it supports
from that file without parsing protobuf first.

Needs python3-onnx and python3-numpy from Debian (apt-get install python3-onnx
python3-numpy) and must run with /usr/bin/python3.  Debian bookworm ships onnx 1.12,
whose test-case generators still use the numpy aliases np.float, np.int, np.bool and
np.object that numpy 1.24 removed; they are restored here before onnx is imported.
The generators draw random data from numpy's global generator; it is seeded, so the
same onnx and numpy versions give the same corpus.

Tests whose inputs or outputs are sequences, maps or optionals are written too (with
onnx's own serializers) and marked in index.tsv; test cases that refer to downloadable
real models are not (nothing can be downloaded here).
"""
import argparse
import os
import shutil
import sys

import numpy as np

# numpy >= 1.24 removed these aliases; onnx 1.12's test-case generators still use them.
for _alias, _builtin in (("float", float), ("int", int), ("bool", bool),
                         ("object", object), ("str", str)):
    if _alias not in np.__dict__:
        setattr(np, _alias, _builtin)

import onnx                                             # noqa: E402
from onnx import numpy_helper                           # noqa: E402
import onnx.backend.test.case.node as node_test         # noqa: E402


def _serialize(value, vinfo):
    t = vinfo.type
    if t.HasField("map_type"):
        return numpy_helper.from_dict(value, vinfo.name).SerializeToString(), False
    if t.HasField("sequence_type"):
        return numpy_helper.from_list(value, vinfo.name).SerializeToString(), False
    if t.HasField("optional_type"):
        return numpy_helper.from_optional(value, vinfo.name).SerializeToString(), False
    return numpy_helper.from_array(np.asarray(value), vinfo.name).SerializeToString(), True


def _op_types(graph):
    ops = set()
    for n in graph.node:
        ops.add(n.op_type if n.domain in ("", "ai.onnx") else n.domain + "." + n.op_type)
        for a in n.attribute:                           # If/Loop/Scan bodies
            if a.type == onnx.AttributeProto.GRAPH:
                ops |= _op_types(a.g)
            for g in a.graphs:
                ops |= _op_types(g)
    return ops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("--op-type", default="",
                    help="comma-separated op types: only tests whose name says so "
                         "(onnx's own filter)")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()

    np.random.seed(0)
    cases = node_test.collect_testcases(args.op_type or None)
    root = os.path.join(args.outdir, "node")
    if os.path.exists(root):
        shutil.rmtree(root)
    os.makedirs(root)

    rows = {}
    dups = []
    for case in cases:
        if case.kind != "node" or case.model is None:
            continue
        d = os.path.join(root, case.name)
        if case.name in rows:       # onnx 1.12 defines a few names twice: last one wins,
            dups.append(case.name)  # as with onnx's own generate-data
            shutil.rmtree(d)
        os.makedirs(d)
        with open(os.path.join(d, "model.onnx"), "wb") as f:
            f.write(case.model.SerializeToString())
        graph = case.model.graph
        tensors_only = True
        for k, (inputs, outputs) in enumerate(case.data_sets):
            ds = os.path.join(d, "test_data_set_%d" % k)
            os.makedirs(ds)
            for kind, values, infos in (("input", inputs, graph.input),
                                        ("output", outputs, graph.output)):
                for j, v in enumerate(values):
                    data, plain = _serialize(v, infos[j])
                    tensors_only &= plain
                    with open(os.path.join(ds, "%s_%d.pb" % (kind, j)), "wb") as f:
                        f.write(data)
        ops = sorted(_op_types(graph))
        opset = max((o.version for o in case.model.opset_import
                     if o.domain in ("", "ai.onnx")), default=0)
        rows[case.name] = (case.name, ",".join(ops), opset, len(graph.input),
                           len(graph.output), "tensor" if tensors_only else "non-tensor")

    rows = sorted(rows.values())
    all_ops = set(op for r in rows for op in r[1].split(",") if op)
    with open(os.path.join(root, "index.tsv"), "w") as f:
        f.write("# name\top_types\topset\tinputs\toutputs\tio\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")

    if not args.quiet:
        print("onnx %s, numpy %s: %d node tests, %d op types -> %s"
              % (onnx.__version__, np.__version__, len(rows), len(all_ops), root))
        if dups:
            print("defined twice by onnx (the later definition kept): %s"
                  % " ".join(sorted(set(dups))))
    return 0


if __name__ == "__main__":
    sys.exit(main())
