#!/bin/sh
# CLI tests for `lightnet`: the bundled example's output, and one clear
# error with exit status 1 (and no partial output file) for bad input.
# Usage: LN_BIN=build/bin sh tests/cli/run.sh   (from the repo root)
set -u
BIN=${LN_BIN:-build/bin}
LN="$BIN/lightnet"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_error NAME PATTERN ARGS... : exit 1, one stderr line matching PATTERN
expect_error() {
    name=$1; pattern=$2; shift 2
    "$LN" "$@" >"$T/out" 2>"$T/err"
    st=$?
    lines=$(wc -l <"$T/err")
    if [ "$st" -ne 1 ]; then bad "$name: exit $st, want 1"; return; fi
    if [ "$lines" -ne 1 ]; then bad "$name: $lines stderr lines, want 1"; cat "$T/err"; return; fi
    if ! grep -q -- "$pattern" "$T/err"; then bad "$name: '$(cat "$T/err")' lacks '$pattern'"; return; fi
    ok
}

# 1. the example prints the 2x3 slice
if "$LN" examples/slice/slice.json >"$T/out" 2>"$T/err" && diff -u tests/cli/slice.expected "$T/out"; then
    ok
else
    bad "examples/slice/slice.json output"; cat "$T/err"
fi

# 2. compile, write the planned IR, run it with -r
if "$LN" -c -o "$T/planned.json" examples/slice/slice.json && grep -q '"memory_plan"' "$T/planned.json" &&
   "$LN" -r "$T/planned.json" >"$T/out2" && diff -u tests/cli/slice.expected "$T/out2" >/dev/null; then
    ok
else
    bad "compile to planned IR and run it"
fi

# 3. stdin
if "$LN" - <examples/slice/slice.json | diff -u tests/cli/slice.expected - >/dev/null; then ok; else bad "model from stdin"; fi

# 4. errors
printf '{"ops": [\n  {"name": "a",, }]}\n' >"$T/malformed.json"
expect_error "malformed JSON" "malformed.json:2:17: malformed JSON" "$T/malformed.json"
sed 's/"optype": "slice"/"optype": "slyce"/' examples/slice/slice.json >"$T/unknown.json"
expect_error "unknown optype" "op 'slice1': unknown optype 'slyce'" "$T/unknown.json"
sed 's/"arg_name": "src", "name": "create1"/"arg_name": "src", "name": "missing1"/' examples/slice/slice.json >"$T/missing.json"
expect_error "missing input tensor" "slice1 (slice): input 'src' is tensor 'missing1', which is not defined" "$T/missing.json"
sed 's/"value": 1}/"value": "one"}/' examples/slice/slice.json >"$T/ptype.json"
expect_error "param type" "slice1 (slice): param 'axis' should be number, got string" "$T/ptype.json"
sed 's/"value": 3}/"value": 9}/' examples/slice/slice.json >"$T/range.json"
expect_error "slice out of range" "slice1 (slice)" "$T/range.json"
expect_error "no such file" "cannot open '$T/nope.json'" "$T/nope.json"
expect_error "unknown target" "unknown target 'gpu9' (known: cpu, cortex-m4)" -t gpu9 examples/slice/slice.json
# the Cortex-M4 target compiles and runs (the same kernels; its own choices)
if "$LN_BIN/lightnet" -t cortex-m4 examples/slice/slice.json >"$T/m4.out" 2>&1 &&
   "$LN_BIN/lightnet" examples/slice/slice.json >"$T/cpu.out" 2>&1 && cmp -s "$T/m4.out" "$T/cpu.out"; then ok
else bad "lightnet -t cortex-m4 differs from -t cpu or fails"; fi
# an IR compiled for the host, its "arch" line removed, then compiled for
# the Cortex-M4: its host-only ops (here conv2d_packed_cpu) are refused
# when it is read, by lightnet and ln-aot alike, and nothing is written
"$LN" -c -o "$T/ds_host.json" tests/models/ds_cnn/model.onnx 2>"$T/err" || bad "ds_cnn host compile: $(cat "$T/err")"
sed '/^	"arch":/d' "$T/ds_host.json" >"$T/ds_noarch.json"
expect_error "host-only op for the M4" "conv2d_packed_cpu): conv2d_packed_cpu is made for host targets only" \
    -t cortex-m4 -c -o "$T/ds_m4.json" "$T/ds_noarch.json"
if [ -e "$T/ds_m4.json" ]; then bad "host-only op for the M4: output written"; else ok; fi
if "$LN_BIN/ln-aot" -t cortex-m4 -o "$T/ds_m4.c" "$T/ds_noarch.json" 2>"$T/err"; then
    bad "ln-aot -t cortex-m4 took a host-only op"
elif ! grep -q "made for host targets only" "$T/err" || [ -e "$T/ds_m4.c" ]; then
    bad "ln-aot -t cortex-m4 host-only op: $(cat "$T/err")"
else ok; fi
if "$LN" -c -o "$T/ds_again.json" "$T/ds_noarch.json" 2>"$T/err"; then ok
else bad "the arch-less host IR no longer compiles for the host: $(cat "$T/err")"; fi
expect_error "unknown option" "unknown option '-x'" -x examples/slice/slice.json
# no partial output file on failure
expect_error "no partial output" "malformed JSON" -c -o "$T/never.json" "$T/malformed.json"
if [ -e "$T/never.json" ]; then bad "partial output file left behind"; else ok; fi
# help
if "$LN" -h | grep -q '^usage: lightnet'; then ok; else bad "-h"; fi

# reports: memory figures, the dot graph, the memory-plan SVG, the profile
cat >"$T/net.json" <<'EOF2'
{"ops": [
 {"name": "in", "optype": "input", "tensors_out": [{"arg_name": "dst", "name": "x"}],
  "params": [{"arg_name": "dtype", "value": "float32"}, {"arg_name": "dims", "value": [2, 3]}]},
 {"name": "r1", "optype": "relu", "tensors_in": [{"arg_name": "src", "name": "x"}],
  "tensors_out": [{"arg_name": "dst", "name": "a"}]},
 {"name": "s1", "optype": "sigmoid", "tensors_in": [{"arg_name": "src", "name": "x"}],
  "tensors_out": [{"arg_name": "dst", "name": "b"}]},
 {"name": "m1", "optype": "mul", "tensors_in": [{"arg_name": "src1", "name": "a"}, {"arg_name": "src2", "name": "b"}],
  "tensors_out": [{"arg_name": "dst", "name": "y"}]},
 {"name": "out", "optype": "output", "tensors_in": [{"arg_name": "src", "name": "y"}]}]}
EOF2
printf '\000\000\200\277\000\000\000\100\000\000\100\300\000\000\200\100\000\000\240\300\000\000\300\100' >"$T/x.bin"
if "$LN" --mem-report --dot "$T/g.dot" --mem-svg "$T/plan.svg" --profile=3 \
       -i x="$T/x.bin" --save y="$T/y.bin" "$T/net.json" >"$T/rep" 2>"$T/err" &&
   grep -q 'arena lower bound' "$T/rep" && grep -q '^profile of' "$T/rep" &&
   grep -q 'digraph lightnet' "$T/g.dot" && grep -q '<svg' "$T/plan.svg" &&
   [ "$(wc -c <"$T/y.bin")" -eq 24 ]; then ok; else bad "--mem-report/--dot/--mem-svg/--profile/-i/--save"; cat "$T/err"; fi
if command -v dot >/dev/null 2>&1; then
    if dot -Tpng "$T/g.dot" -o "$T/g.png" 2>"$T/err"; then ok; else bad "dot -Tpng on --dot output"; cat "$T/err"; fi
fi
if command -v python3 >/dev/null 2>&1; then
    if python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg") and len(r) > 3' "$T/plan.svg"; then ok; else bad "--mem-svg is not well-formed SVG"; fi
fi
expect_error "bad -i size" "tensor 'x' needs 24" -i x="$T/g.dot" "$T/net.json"

# --save of an intermediate tensor: its value after the run, although the
# plan would hand its bytes to a later tensor (relu -> sigmoid -> neg ->
# neg: 'a' dies at the sigmoid); a compiled IR run with -r refuses
cat >"$T/chain.json" <<'EOF2'
{"ops": [
 {"name": "in", "optype": "input", "tensors_out": [{"arg_name": "dst", "name": "x"}],
  "params": [{"arg_name": "dtype", "value": "float32"}, {"arg_name": "dims", "value": [2, 3]}]},
 {"name": "r1", "optype": "relu", "tensors_in": [{"arg_name": "src", "name": "x"}],
  "tensors_out": [{"arg_name": "dst", "name": "a"}]},
 {"name": "s1", "optype": "sigmoid", "tensors_in": [{"arg_name": "src", "name": "a"}],
  "tensors_out": [{"arg_name": "dst", "name": "b"}]},
 {"name": "n1", "optype": "neg", "tensors_in": [{"arg_name": "src", "name": "b"}],
  "tensors_out": [{"arg_name": "dst", "name": "c"}]},
 {"name": "n2", "optype": "neg", "tensors_in": [{"arg_name": "src", "name": "c"}],
  "tensors_out": [{"arg_name": "dst", "name": "y"}]},
 {"name": "out", "optype": "output", "tensors_in": [{"arg_name": "src", "name": "y"}]}]}
EOF2
printf '\000\000\000\000\000\000\000\100\000\000\000\000\000\000\200\100\000\000\000\000\000\000\300\100' >"$T/relu.bin"
if "$LN" -i x="$T/x.bin" --save a="$T/a.bin" "$T/chain.json" >/dev/null 2>"$T/err" &&
   cmp -s "$T/a.bin" "$T/relu.bin"; then ok; else bad "--save of an intermediate tensor"; cat "$T/err"; fi
"$LN" -c -o "$T/chain_planned.json" "$T/chain.json" 2>/dev/null
expect_error "--save intermediate with -r" "'a' is not a graph output" -r -i x="$T/x.bin" \
    --save a="$T/a2.bin" "$T/chain_planned.json"

# --mem-report on a QDQ model: the int8 ops counted, each op that stays
# float between a DequantizeLinear and a QuantizeLinear named (issue 13)
if "$LN" --mem-report tests/onnx/qdq/qdq_keep_float.onnx >"$T/rep" 2>"$T/err" &&
   grep -q '^  stays float between DequantizeLinear and QuantizeLinear' "$T/rep" &&
   grep -q '^    conv_9 (conv2d_cpu)$' "$T/rep" && grep -q '^    averagepool_33 (avgpool2d_cpu)$' "$T/rep" &&
   grep -q '^  int8 ops  *1  (3 ops kept float)$' "$T/rep"; then ok
else bad "--mem-report of qdq_keep_float: $(cat "$T/rep" "$T/err")"; fi
if "$LN" --mem-report tests/onnx/qdq/qdq_branches.onnx >"$T/rep" 2>"$T/err" &&
   ! grep -q 'stays float' "$T/rep" && grep -q '^  int8 ops  *9  (0 ops kept float)$' "$T/rep" &&
   "$LN" --mem-report tests/models/lenet5/model.onnx >"$T/rep" 2>"$T/err" &&
   ! grep -q 'int8 ops' "$T/rep"; then ok
else bad "--mem-report int8 line: $(cat "$T/rep" "$T/err")"; fi

# channels-last edges (ln_pass_nhwc_edges): DS-CNN compiles with its
# depthwise convs channels-last, the planned IR runs with -r to the same
# output; an IR read back whose layouts do not match (the last packed conv
# writing NCHW for the pool that reads channels-last; a depthwise conv
# reading as channels-last what its writer writes NCHW) is refused, naming the file,
# the op and the tensor, by lightnet -r and by ln-aot
DS=tests/models/ds_cnn
if "$LN" -c -o "$T/ds.json" "$DS/model.onnx" 2>"$T/err" && grep -q '"conv2d_dw_nhwc_cpu"' "$T/ds.json" &&
   "$LN" -r "$T/ds.json" -i input="$DS/input.bin" >"$T/ds_r.out" 2>"$T/err" &&
   "$LN" "$DS/model.onnx" -i input="$DS/input.bin" >"$T/ds.out" 2>>"$T/err" &&
   cmp -s "$T/ds.out" "$T/ds_r.out"; then ok
else bad "DS-CNN channels-last planned IR: $(cat "$T/err")"; fi
if command -v python3 >/dev/null 2>&1; then
    python3 - "$T/ds.json" "$T/nhwc_pool.json" "$T/nhwc_dw.json" "$T/nhwc_in.json" <<'PY'
import json, sys
ir = json.load(open(sys.argv[1]))
pk = [o for o in ir['ops'] if o['optype'] == 'conv2d_packed_cpu']
def nhwc(o, v):
    o['params'] = [p for p in o['params'] if p['arg_name'] != 'nhwc'] + [{'arg_name': 'nhwc', 'value': v}]
nhwc(pk[-1], 1)
json.dump(ir, open(sys.argv[2], 'w'))
nhwc(pk[-1], 3)
nhwc(pk[0], 0)
json.dump(ir, open(sys.argv[3], 'w'))
nhwc(pk[0], 3)
json.dump(ir, open(sys.argv[4], 'w'))
PY
    expect_error "nhwc graph input" "nhwc_in.json: /conv1/conv1.0/Conv (conv2d_packed_cpu): tensor 'input' is a graph input or output or a constant, which is NCHW" \
        -r "$T/nhwc_in.json" -f "$T/ds.params" -i input="$DS/input.bin"
    expect_error "NCHW writer, nhwc pool" "nhwc_pool.json: /pool/AveragePool (avgpool2d_nhwc_cpu): input 'src' reads tensor '.*' as channels-last, and /blocks/blocks.7/blocks.7.0/Conv (conv2d_packed_cpu) writes it NCHW" \
        -r "$T/nhwc_pool.json" -f "$T/ds.params" -i input="$DS/input.bin"
    expect_error "nhwc reader, NCHW writer" "nhwc_dw.json: /blocks/blocks.0/blocks.0.0/Conv (conv2d_dw_nhwc_cpu): input 'src' reads tensor '.*' as channels-last, and /conv1/conv1.0/Conv (conv2d_packed_cpu) writes it NCHW" \
        -r "$T/nhwc_dw.json" -f "$T/ds.params" -i input="$DS/input.bin"
    if "$BIN/ln-aot" "$T/nhwc_dw.json" -f "$T/ds.params" -o "$T/nhwc.c" 2>"$T/err"; then
        bad "ln-aot took mismatched layouts"
    elif [ -e "$T/nhwc.c" ] || ! grep -q "conv2d_dw_nhwc_cpu" "$T/err"; then
        bad "ln-aot on mismatched layouts: $(cat "$T/err")"
    else ok; fi
fi

echo "cli: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
