#!/bin/sh
# Sizes and memory (issue 12): a model too large for the kernels or for a
# 32-bit target is refused with one clear error and exit status 1, never a
# signal; simulated allocation failure (LN_ALLOC_LIMIT) is exit status 1 with
# no output left behind.  The ONNX inputs come from sizes/make_models.py.
# Usage: LN_BIN=build/bin sh tests/cli/sizes.sh   (from the repo root)
set -u
BIN=${LN_BIN:-build/bin}
D=tests/cli/sizes
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_fail NAME PATTERN CMD... : exit 1 (not a signal), one stderr line
# matching PATTERN, and nothing written into $T/out*
expect_fail() {
    name=$1; pattern=$2; shift 2
    rm -rf "$T/out"*
    "$@" >"$T/stdout" 2>"$T/err"
    st=$?
    if [ "$st" -ne 1 ]; then bad "$name: exit $st, want 1"; cat "$T/err"; return; fi
    if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "$name: not one stderr line"; cat "$T/err"; return; fi
    if ! grep -q -- "$pattern" "$T/err"; then bad "$name: '$(cat "$T/err")' lacks '$pattern'"; return; fi
    if ls "$T"/out* >/dev/null 2>&1; then bad "$name: left $(ls "$T"/out*)"; return; fi
    ok
}

relu_ir() {   # relu_ir DIMS FILE: input [DIMS] -> relu -> output
    cat >"$2" <<JSON
{"ops": [
 {"name": "in", "optype": "input", "tensors_in": [], "tensors_out": [{"arg_name": "dst", "name": "x"}],
  "params": [{"arg_name": "dtype", "value": "float32"}, {"arg_name": "dims", "value": [$1]}]},
 {"name": "relu", "optype": "relu", "tensors_in": [{"arg_name": "src", "name": "x"}],
  "tensors_out": [{"arg_name": "dst", "name": "y"}], "params": []},
 {"name": "out", "optype": "output", "tensors_in": [{"arg_name": "src", "name": "y"}],
  "tensors_out": [], "params": []}]}
JSON
}

# 1. 3.3e12 elements: refused by all three tools, naming file, op and tensor
for tool in lightnet ln-aot; do
    expect_fail "$tool huge.onnx" "huge.onnx: x (input): tensor 'x' \[1, 3, 1048576, 1048576\] has 3298534883328 elements" \
        "$BIN/$tool" "$D/huge.onnx" -o "$T/out.c"
done
expect_fail "ln-onnx huge.onnx" "has 3298534883328 elements" "$BIN/ln-onnx" "$D/huge.onnx" -o "$T/out.json"
# element counts that overflow size_t, in the JSON IR
relu_ir "2147483647, 2147483647, 2147483647, 2147483647" "$T/ovf.json"
expect_fail "lightnet size_t overflow" "ovf.json: in (input): tensor 'x' .*overflows size_t" "$BIN/lightnet" "$T/ovf.json"
expect_fail "ln-aot size_t overflow" "overflows size_t" "$BIN/ln-aot" "$T/ovf.json" -o "$T/out.c"

# 2. 4 GiB tensors: fine for the kernels, too large for a 32-bit target
expect_fail "ln-aot 32-bit target" "big4g.onnx: tensor 'y' needs 4294967296 bytes; a target with a 32-bit size_t addresses at most 4294967295" \
    "$BIN/ln-aot" "$D/big4g.onnx" -o "$T/out.c"
expect_fail "ln-aot --addr-bits 16" "tensor 'y' needs 4294967296 bytes; a target with a 16-bit" \
    "$BIN/ln-aot" --addr-bits 16 "$D/big4g.onnx" -o "$T/out.c"
expect_fail "ln-aot --addr-bits 99" "give a width from 16 to 64" "$BIN/ln-aot" --addr-bits 99 "$D/big4g.onnx"
# for a 64-bit target it emits, and the source refuses a smaller size_t itself
if "$BIN/ln-aot" --addr-bits 64 "$D/big4g.onnx" -o "$T/big.c" 2>"$T/err" &&
   grep -q '^#if SIZE_MAX < 4294967296u' "$T/big.c"; then
    ok
else
    bad "ln-aot --addr-bits 64: $(cat "$T/err")"
fi
if command -v arm-none-eabi-gcc >/dev/null 2>&1; then
    if arm-none-eabi-gcc -mcpu=cortex-m4 -mthumb -Iruntime/include -c "$T/big.c" -o "$T/big.o" 2>"$T/err"; then
        bad "a 4 GiB model compiled for Cortex-M4"
    elif grep -q "needs sizes up to 4294967296 bytes" "$T/err"; then
        ok
    else
        bad "Cortex-M4 compile of a 4 GiB model failed for another reason: $(head -3 "$T/err")"
    fi
fi
if cc -std=c99 -Iruntime/include -c "$T/big.c" -o "$T/big.o" 2>"$T/err"; then ok; else bad "host compile: $(head -3 "$T/err")"; fi

# 3. allocation failure (simulated): exit 1, a message, nothing written
relu_ir "64, 1024" "$T/m.json"
expect_fail "lightnet ENOMEM" "no memory for the 262144" env LN_ALLOC_LIMIT=100000 "$BIN/lightnet" "$T/m.json"
expect_fail "lightnet -c out of memory" "out of memory" env LN_ALLOC_LIMIT=200 "$BIN/lightnet" -c -o "$T/out.json" "$T/m.json"
expect_fail "ln-aot out of memory" "out of memory" env LN_ALLOC_LIMIT=200 "$BIN/ln-aot" "$T/m.json" -o "$T/out.c"
if [ -f tests/models/lenet5/model.onnx ]; then
    expect_fail "ln-onnx out of memory" "out of memory" env LN_ALLOC_LIMIT=20000 "$BIN/ln-onnx" tests/models/lenet5/model.onnx -o "$T/out.json"
fi
# and with memory, the same model runs
if "$BIN/lightnet" "$T/m.json" >/dev/null 2>"$T/err"; then ok; else bad "m.json: $(cat "$T/err")"; fi

echo "sizes: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
