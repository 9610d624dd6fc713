#!/bin/sh
# Tests of the ln-onnx tool and of `lightnet MODEL.onnx`: the files written,
# and one clear error with exit status 1 and no file left behind for bad
# input.  The .onnx files come from tests/onnx/make_models.py.
# Usage: LN_BIN=build/bin sh tests/onnx/run.sh   (from the repo root or tests/)
set -u
BIN=${LN_BIN:-build/bin}
case "$BIN" in /*) ;; *) BIN="$(pwd)/$BIN" ;; esac
D=$(cd "$(dirname "$0")" && pwd)
ONNX="$BIN/ln-onnx"
LN="$BIN/lightnet"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_error NAME PATTERN ARGS... : exit 1, one stderr line matching
# PATTERN, and nothing written into $T/out
expect_error() {
    name=$1; pattern=$2; shift 2
    rm -rf "$T/out"; mkdir "$T/out"
    "$@" >"$T/stdout" 2>"$T/err"
    st=$?
    lines=$(wc -l <"$T/err")
    if [ "$st" -ne 1 ]; then bad "$name: exit $st, want 1"; return; fi
    if [ "$lines" -ne 1 ]; then bad "$name: $lines stderr lines, want 1"; cat "$T/err"; return; fi
    if ! grep -q -- "$pattern" "$T/err"; then bad "$name: '$(cat "$T/err")' lacks '$pattern'"; return; fi
    if [ -n "$(ls -A "$T/out")" ]; then bad "$name: left files: $(ls "$T/out")"; return; fi
    ok
}

# 1. IR + weights, "data" relative to the JSON
if "$ONNX" "$D/basic.onnx" -o "$T/basic.json" && [ -s "$T/basic.params" ] &&
   grep -q '"data":[[:space:]]*"basic.params"' "$T/basic.json"; then ok; else bad "basic.onnx -o"; fi

# 2. defaults: beside the model
cp "$D/basic.onnx" "$T/m.onnx"
if "$ONNX" "$T/m.onnx" && [ -s "$T/m.json" ] && [ -s "$T/m.params" ]; then ok; else bad "default names"; fi

# 3. --data elsewhere: an absolute path in "data"; the IR runs from anywhere
mkdir -p "$T/w"
printf '\000\000\200\077\000\000\000\100\000\000\100\100' >"$T/x.bin"     # 1 2 3
printf '\000\000\220\100\000\000\100\100\000\000\160\101' >"$T/want.bin"  # 4.5 3 15
if "$ONNX" "$D/basic.onnx" -o "$T/ir.json" --data "$T/w/basic.params" &&
   grep -q "\"data\":[[:space:]]*\"$T/w/basic.params\"" "$T/ir.json" &&
   (cd / && "$LN" "$T/ir.json" -i "x=$T/x.bin" --save "y=$T/y.bin") && cmp -s "$T/y.bin" "$T/want.bin"; then
    ok
else
    bad "--data in another directory, run the IR"
fi

# 4. lightnet reads .onnx directly
if "$LN" "$D/basic.onnx" -i "x=$T/x.bin" --save "y=$T/y2.bin" && cmp -s "$T/y2.bin" "$T/want.bin"; then
    ok
else
    bad "lightnet basic.onnx"
fi

# 5. --shape
if "$ONNX" "$D/two_inputs.onnx" -o "$T/two.json" --shape b=1x4 &&
   [ ! -e "$T/two.params" ] && ! grep -q '"data"' "$T/two.json"; then ok; else bad "--shape b=1x4"; fi

# 6. --ops names what the importer maps
if "$ONNX" --ops | grep -q '^Relu	'; then ok; else bad "--ops"; fi

# 7. bad input: one line, exit 1, no files
expect_error "truncated" "truncated.onnx: not an ONNX model" "$ONNX" "$D/truncated.onnx" -o "$T/out/m.json"
expect_error "not onnx" "not_onnx.onnx: not an ONNX model" "$ONNX" "$D/not_onnx.onnx" -o "$T/out/m.json"
expect_error "unknown op" "unsupported at opset 13: FooBar (node 'foo1')" "$ONNX" "$D/unknown_op.onnx" -o "$T/out/m.json"
expect_error "NHWC QOperator pool" "node 'QLinearGlobalAveragePool_1' (QLinearGlobalAveragePool): channels_last 1 (NHWC) is not supported" "$ONNX" "$D/msqop_nhwc.onnx" -o "$T/out/m.json"
expect_error "missing initializer" "node 'add1' (Add): input 'w' is not defined" "$ONNX" "$D/missing_initializer.onnx" -o "$T/out/m.json"
expect_error "all at once" "FooBar (nodes 'foo1', 'foo2'), Bazz (node 'baz1'); initializer 'ext' is stored as external data.*input 'nowhere' is not defined" \
    "$ONNX" "$D/many_problems.onnx" -o "$T/out/m.json"
expect_error "symbolic dim" "graph input 'b' dim 1 is symbolic ('H'): give --shape b=" "$ONNX" "$D/two_inputs.onnx" -o "$T/out/m.json"
expect_error "bad --shape" "shape 'b=1xq'" "$ONNX" "$D/two_inputs.onnx" --shape b=1xq -o "$T/out/m.json"
expect_error "--shape for no input" "shape 'zz=1' names no graph input" "$ONNX" "$D/basic.onnx" --shape zz=1 -o "$T/out/m.json"
expect_error "no such file" "cannot open" "$ONNX" "$T/nope.onnx" -o "$T/out/m.json"
expect_error "unwritable" "cannot" "$ONNX" "$D/basic.onnx" -o "$T/out/nodir/m.json"
expect_error "lightnet unknown op" "unsupported at opset 13: FooBar" "$LN" "$D/unknown_op.onnx"
expect_error "lightnet truncated" "not an ONNX model" "$LN" "$D/truncated.onnx"
for a in pads repeats shape; do
    expect_error "run-time $a" "(\(Pad\|Tile\|Expand\)): input '$a' ($a) must be a constant" \
        "$ONNX" "$D/runtime_$a.onnx" -o "$T/out/m.json"
done

# 8. a kernel that refuses its data at run time (an index out of range that
# no check could see: the indices are a graph input) is an error naming
# the op and the kernel, and --save writes nothing; in range (and -1 from
# the end) runs
z7='\000\000\000\000\000\000\000'
printf "\000$z7\007$z7\001$z7" >"$T/idx_bad.bin"
printf "\000$z7\377\377\377\377\377\377\377\377\001$z7" >"$T/idx_ok.bin"
expect_error "kernel refuses at run time" "gather1 (gather_cpu): ln_rt_gather refused its input at run time" \
    "$LN" "$D/gather_runtime_index.onnx" -i "idx=$T/idx_bad.bin" --save "y=$T/out/y.bin"
if "$LN" "$D/gather_runtime_index.onnx" -i "idx=$T/idx_ok.bin" --save "y=$T/y.bin" >/dev/null 2>&1 &&
   [ "$(od -An -v -f "$T/y.bin" | tr -s ' \n' ' ' | sed 's/^ //; s/ $//')" = "0 1 6 7 2 3" ]; then ok
else bad "gather with indices in range: $(od -An -f "$T/y.bin" 2>&1)"; fi

# 9. sequences: only SplitToSequence -> SequenceAt (constant positions)
expect_error "sequence read by another op" "node 'cat1' (ConcatFromSequence): input 's' is a sequence (from SplitToSequence 'split1')" \
    "$ONNX" "$D/sequence_concat.onnx" -o "$T/out/m.json"

# 9b. an empty constant (ConstantOfShape of shape [0]) only as a Concat input
#     (the Concat drops it: tests/onnx/torch/pad_to_multiple_*); else refused
expect_error "empty constant read by an Add" "e (create): param 'dims'\[0\] should be >= 1, got 0" \
    "$LN" "$D/empty_add.onnx"
expect_error "empty graph output" "cat1 (concat): 'src' should be >= 1 tensors (src_0, ...), got 0" \
    "$LN" "$D/empty_output.onnx"

# 10. MatMulInteger zero point shapes ONNX Runtime refuses
#     (tests/onnx/integer/make_integer.py): refused naming node, input, shapes
expect_error "b_zero_point broadcasting B's batch" \
    "mm (matmul_integer): 'src2_zero_point' (b_zero_point) \[1, 1, 5\] fits 'src2' \[2, 4, 5\] neither" \
    "$ONNX" "$D/integer/bad_matmul_bz_broadcast.onnx" -o "$T/out/m.json"
expect_error "b_zero_point [N] for a 3-D B" \
    "mm (matmul_integer): 'src2_zero_point' (b_zero_point) \[5\] fits 'src2' \[2, 4, 5\] neither" \
    "$ONNX" "$D/integer/bad_matmul_bz_vector_3d.onnx" -o "$T/out/m.json"
expect_error "a_zero_point [1, 1] for A [3, 4]" \
    "mm (matmul_integer): 'src1_zero_point' (a_zero_point) \[1, 1\] fits 'src1' \[3, 4\] neither" \
    "$LN" "$D/integer/bad_matmul_az_11.onnx"

echo "onnx tool tests: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
