#!/usr/bin/env python3
"""cut_model.py IN.json OUT.json OPNAME -- keep the ops of a LightNet IR up
to OPNAME, mark OPNAME's output as the graph output and drop the constants
nothing reads any more. Used to make a model with no gemm (LeNet-5's
convolutional part) for the firmware's --gc-sections check."""
import json
import sys

src, dst, last = sys.argv[1:4]
with open(src) as f:
    ir = json.load(f)
ops = []
for op in ir["ops"]:
    ops.append(op)
    if op["name"] == last:
        break
else:
    sys.exit("cut_model.py: no op named %s" % last)
read = {t["name"] for op in ops for t in op["tensors_in"]}
ops = [op for op in ops if op["optype"] != "create" or
       any(t["name"] in read for t in op["tensors_out"])]
out = ops[-1]["tensors_out"][0]["name"]
ops.append({"name": "output_output", "optype": "output",
            "tensors_in": [{"arg_name": "src", "name": out}],
            "tensors_out": [], "params": []})
ir["ops"] = ops
with open(dst, "w") as f:
    json.dump(ir, f, indent=1)
print(out)
