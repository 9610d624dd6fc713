#!/usr/bin/env python3
"""gen_cases.py REF_DIR OUT.c -- the TensorFlow Lite int8 reference cases
(tests/rt/s8/ref/*.json) as C data for s8_check.c: one s8_case per file
whose kind this build checks, with its arrays.

Conventions of the reference set: activations NHWC; INPUT_OFFSET is minus
the input zero point, OUTPUT_OFFSET the output zero point; conv weights
[oc][kh][kw][c/groups], depthwise [1][kh][kw][oc], fully connected
[out][in]; requantization TFLite's MultiplyByQuantizedMultiplier; config
keys <CASE>_<FIELD>, arrays <case>_<what>."""
import json
import os
import sys

KINDS = ["conv", "depthwise", "transpose_conv", "fc", "avgpool", "maxpool", "add", "mul",
         "maximum", "minimum", "pad", "softmax"]


def kind_of(name):
    for p, k in [("depthwise", "depthwise"), ("transpose_conv", "transpose_conv"),
                 ("fully_connected", "fc"), ("fc_", "fc"), ("avgpooling", "avgpool"),
                 ("maxpooling", "maxpool"), ("maximum", "maximum"), ("minimum", "minimum"),
                 ("pad_int8", "pad"), ("softmax", "softmax"), ("add", "add"), ("mul", "mul"),
                 ("ds_cnn", None)]:
        if name.startswith(p):
            return k
    return "conv"


def main():
    ref, out = sys.argv[1], sys.argv[2]
    cases, data = [], []
    for f in sorted(os.listdir(ref)):
        if not f.endswith(".json"):
            continue
        d = json.load(open(os.path.join(ref, f)))
        name = d["case"]
        k = kind_of(name)
        if k is None:
            continue
        up = name.upper() + "_"
        cfg = {key[len(up):]: v for key, v in d["config"].items() if key.startswith(up)}
        arr = {key[len(name) + 1:]: v for key, v in d["arrays"].items() if key.startswith(name + "_")}

        def a(*names):
            for n in names:
                if n in arr:
                    return arr[n]
            return None

        def emit(what, ctype):
            if what is None:
                return "NULL"
            sym = "%s_%d" % (name, len(data))
            data.append("static const %s %s[] = {%s};\n" % (ctype, sym, ", ".join(map(str, what["data"]))))
            return sym

        def c(key, default=0):
            v = cfg.get(key, default)
            return int(v) if not isinstance(v, str) else default

        f = {}
        if k in ("conv", "depthwise", "transpose_conv"):
            w = a("weights")
            per = c("FILTER_X") * c("FILTER_Y") * c("OUT_CH")
            group = 1
            if k == "conv" and per and len(w["data"]) != per * c("IN_CH"):
                group = c("IN_CH") // (len(w["data"]) // per)
            f = dict(n=c("INPUT_BATCHES", 1), h=c("INPUT_H"), w=c("INPUT_W"), c=c("IN_CH"),
                     oh=c("OUTPUT_H"), ow=c("OUTPUT_W"), oc=c("OUT_CH"), kh=c("FILTER_Y"),
                     kw=c("FILTER_X"), sh=c("STRIDE_Y", 1), sw=c("STRIDE_X", 1),
                     dh=c("DILATION_Y", 1), dw=c("DILATION_X", 1), pt=c("PAD_Y"), pl=c("PAD_X"),
                     group=group, mult=c("CH_MULT", 1), in_off=c("INPUT_OFFSET"),
                     out_off=c("OUTPUT_OFFSET"), lo=c("OUT_ACTIVATION_MIN", -128),
                     hi=c("OUT_ACTIVATION_MAX", 127))
            arrays = dict(in1=a("input"), w=w, bias=a("biases", "bias"), m=a("output_mult"),
                          s=a("output_shift"), ref=a("output_ref"))
        elif k == "fc":
            per_ch = cfg.get("PER_CHANNEL_QUANT") == "true"
            f = dict(n=c("INPUT_BATCHES", 1), c=c("ACCUMULATION_DEPTH"), oc=c("OUT_CH"),
                     in_off=c("INPUT_OFFSET"), w_off=c("FILTER_OFFSET"), out_off=c("OUTPUT_OFFSET"),
                     lo=c("OUT_ACTIVATION_MIN", -128), hi=c("OUT_ACTIVATION_MAX", 127),
                     per_ch=int(per_ch), mult1=c("OUTPUT_MULTIPLIER"), shift1=c("OUTPUT_SHIFT"))
            arrays = dict(in1=a("input"), w=a("weights"), bias=a("biases", "bias"),
                          m=a("output_multiplier") if per_ch else None,
                          s=a("output_shift") if per_ch else None,
                          ref=a("output_ref") if "output_ref" in arr else a("output"))
        elif k in ("avgpool", "maxpool"):
            f = dict(n=c("BATCH_SIZE", c("INPUT_N", 1)), h=c("INPUT_H"), w=c("INPUT_W"), c=c("INPUT_C"),
                     oh=c("OUTPUT_H"), ow=c("OUTPUT_W"), kh=c("FILTER_H"), kw=c("FILTER_W"),
                     sh=c("STRIDE_H", 1), sw=c("STRIDE_W", 1), pt=c("PADDING_H"), pl=c("PADDING_W"),
                     lo=c("ACTIVATION_MIN", -128), hi=c("ACTIVATION_MAX", 127))
            arrays = dict(in1=a("input_tensor", "input"), ref=a("output", "output_ref"))
        elif k in ("add", "mul"):
            f = dict(in_off=c("INPUT1_OFFSET"), in2_off=c("INPUT2_OFFSET"), out_off=c("OUTPUT_OFFSET"),
                     m1=c("INPUT1_MULT"), s1=c("INPUT1_SHIFT"), m2=c("INPUT2_MULT"), s2=c("INPUT2_SHIFT"),
                     left=c("LEFT_SHIFT"), mult1=c("OUTPUT_MULT"), shift1=c("OUTPUT_SHIFT"),
                     lo=c("OUT_ACTIVATION_MIN", -128), hi=c("OUT_ACTIVATION_MAX", 127),
                     size=c("DST_SIZE"))
            arrays = dict(in1=a("input1"), in2=a("input2"), ref=a("output_ref"))
        elif k in ("maximum", "minimum"):
            f = dict(d1=[c("BATCH_1", 1), c("HEIGHT_1", 1), c("WIDTH_1", 1), c("CHANNEL_1", 1)],
                     d2=[c("BATCH_2", 1), c("HEIGHT_2", 1), c("WIDTH_2", 1), c("CHANNEL_2", 1)],
                     size=c("DST_SIZE"))
            arrays = dict(in1=a("input_tensor_1"), in2=a("input_tensor_2"), ref=a("output"))
        elif k == "pad":
            f = dict(d1=[c("INPUT_N", 1), c("INPUT_H", 1), c("INPUT_W", 1), c("INPUT_C", 1)],
                     pre=[c("PRE_PAD_N"), c("PRE_PAD_H"), c("PRE_PAD_W"), c("PRE_PAD_C")],
                     post=[c("POST_PAD_N"), c("POST_PAD_H"), c("POST_PAD_W"), c("POST_PAD_C")],
                     value=c("PAD_VALUE"), size=c("OUTPUT_SIZE"))
            arrays = dict(in1=a("input_tensor", "input"), ref=a("output"))
        else:  # softmax
            f = dict(n=c("NUM_ROWS"), c=c("ROW_SIZE"), mult1=c("INPUT_MULT"), left=c("INPUT_LEFT_SHIFT"),
                     diff_min=c("DIFF_MIN"), size=c("DST_SIZE"))
            arrays = dict(in1=a("input"), ref=a("output_ref"))
        if arrays.get("in1") is None or arrays.get("ref") is None:
            sys.exit("gen_cases.py: %s: no input or reference array" % f)
        syms = {key: emit(v, "int32_t" if key in ("bias", "m", "s") else "int8_t")
                for key, v in arrays.items()}
        fields = ["n", "h", "w", "c", "oh", "ow", "oc", "kh", "kw", "sh", "sw", "dh", "dw", "pt", "pl",
                  "group", "mult", "in_off", "in2_off", "w_off", "out_off", "lo", "hi", "per_ch",
                  "mult1", "shift1", "m1", "s1", "m2", "s2", "left", "diff_min", "value", "size"]
        init = ", ".join(".%s = %d" % (x, f[x]) for x in fields if x in f)
        for x in ("d1", "d2", "pre", "post"):
            if x in f:
                init += ", .%s = {%s}" % (x, ", ".join(map(str, f[x])))
        cases.append('    {"%s", S8_%s, %d, {%s}, %s, %s, %s, %s, %s, %s, %s},\n'
                     % (name, k.upper(), len(arrays["ref"]["data"]), init, syms.get("in1", "NULL"),
                        syms.get("in2", "NULL"), syms.get("w", "NULL"), syms.get("bias", "NULL"),
                        syms.get("m", "NULL"), syms.get("s", "NULL"), syms["ref"]))
    with open(out, "w") as fp:
        fp.write("/* GENERATED by tests/rt/s8/gen_cases.py from %s -- do not edit. */\n" % ref)
        fp.write('#include "s8_cases.h"\n\n')
        fp.write("".join(data))
        fp.write("\nconst s8_case s8_cases[] = {\n%s    {NULL, 0, 0, {0}, NULL, NULL, NULL, NULL, NULL, NULL, NULL}\n};\n"
                 % "".join(cases))


if __name__ == "__main__":
    main()
