#!/bin/sh
# ln-aot --budget and lightnet --mem-report --budget (issue 19): a budget
# that fits prints the whole table and exits 0; one too small exits 1 with
# one stderr line naming the largest item (the table stays complete, no
# source is written); bad --budget syntax exits 1 naming the field before
# anything is printed; -t cpu is refused (no size table).  DS-CNN's figures
# for cortex-m4 come from the committed size table
# (src/auto/ln_budget_cortex_m4.h); the firmware check is make check-budget.
# Usage: LN_BIN=build/bin sh tests/cli/budget.sh   (from the repo root)
set -u
BIN=${LN_BIN:-build/bin}
M=tests/models/ds_cnn/model.onnx
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

# expect_fail NAME PATTERN STDOUT(empty|table) CMD...: exit 1 (not a
# signal), one stderr line matching PATTERN, stdout empty or the whole
# table, and no file written into $T/out*
expect_fail() {
    name=$1; pattern=$2; want=$3; shift 3
    rm -rf "$T/out"*
    "$@" >"$T/stdout" 2>"$T/err"
    st=$?
    if [ "$st" -ne 1 ]; then bad "$name: exit $st, want 1"; cat "$T/err"; return; fi
    if [ "$(wc -l <"$T/err")" -ne 1 ]; then bad "$name: not one stderr line"; cat "$T/err"; return; fi
    if ! grep -q -- "$pattern" "$T/err"; then bad "$name: '$(cat "$T/err")' lacks '$pattern'"; return; fi
    if ls "$T"/out* >/dev/null 2>&1; then bad "$name: left $(ls "$T"/out*)"; return; fi
    if [ "$want" = empty ] && [ -s "$T/stdout" ]; then bad "$name: printed on stdout"; return; fi
    if [ "$want" = table ] && ! table_whole "$T/stdout"; then bad "$name: no whole table"; return; fi
    ok
}

# the table: both parts, every item, both totals and the deepest stack
table_whole() {
    for l in '^RAM ' '^  arena  ' '^  input and output buffers ' '^  kernel arguments in RAM ' \
             '^  runtime state ' '^  stack  ' '^flash ' '^  weights ' '^  requantization tables ' \
             '^  kernel arguments  ' '^  model code ' '^  runtime kernels ' '^  C library ' \
             '^deepest stack: model_run'; do
        grep -q -- "$l" "$1" || { echo "  table lacks '$l'"; return 1; }
    done
    [ "$(grep -c '^  total ' "$1")" -eq 2 ] || { echo "  not two totals"; return 1; }
}

item() {   # item FILE LABEL: the bytes of an item, without commas
    sed -n "s/^  $2  *\([0-9,]*\) .*/\1/p" "$1" | head -1 | tr -d ,
}

# ---- fits --------------------------------------------------------------
if "$BIN/ln-aot" -t cortex-m4 --budget ram=128K,flash=512K $M >"$T/fit" 2>"$T/err"; then
    if table_whole "$T/fit" && [ ! -s "$T/err" ]; then ok; else bad "fit: table or stderr"; cat "$T/err"; fi
else bad "fit: exit status $?"; cat "$T/err"; fi
# the items: the arena and I/O as planned, weights as emitted, DS-CNN's
# 4 kernels reach runtime code, the stack a pooling chain
arena=$(item "$T/fit" arena)
[ "$arena" -gt 0 ] && grep -q "^  arena .*of\|lower bound" "$T/fit" && ok || bad "arena '$arena'"
[ "$(item "$T/fit" 'input and output buffers')" = 2008 ] && ok || bad "I/O: $(item "$T/fit" 'input and output buffers'), want 2008 (490 + 12 floats)"
[ "$(item "$T/fit" weights)" = 90416 ] && ok || bad "weights: $(item "$T/fit" weights), want 90416"
[ "$(item "$T/fit" 'kernel arguments in RAM')" = 0 ] && ok || bad "arguments in RAM"
[ "$(item "$T/fit" 'runtime kernels')" -gt 4000 ] && ok || bad "runtime kernels: $(item "$T/fit" 'runtime kernels')"
[ "$(item "$T/fit" stack)" -gt 1000 ] && grep -q '^deepest stack: model_run (~[0-9]*) -> ln_rt_' "$T/fit" && ok || bad "stack"
grep -q '^  total .* of 131,072 (.*%): fits$' "$T/fit" && grep -q '^  total .* of 524,288 (.*%): fits$' "$T/fit" \
    && ok || bad "totals against 128K and 512K"
# RAM total = the sum of its items
ram=0
for l in arena 'input and output buffers' 'kernel arguments in RAM' 'runtime state' stack; do
    ram=$((ram + $(item "$T/fit" "$l")))
done
[ "$(sed -n 's/^  total  *\([0-9,]*\) .*/\1/p' "$T/fit" | head -1 | tr -d ,)" = "$ram" ] && ok || bad "RAM total is not the sum"
# plain bytes and M mean the same; only one field given
"$BIN/ln-aot" -t cortex-m4 --budget ram=131072,flash=0.5M $M >/dev/null 2>&1 && bad "flash=0.5M accepted" || ok
"$BIN/ln-aot" -t cortex-m4 --budget flash=1M $M >"$T/f1" 2>&1 && grep -q 'of 1,048,576' "$T/f1" && \
    [ "$(grep -c '^  total .* of ' "$T/f1")" -eq 1 ] && ok || bad "flash=1M alone"
# with -o the source is written when it fits, and is the plain emission
mkdir "$T/a" "$T/b"
"$BIN/ln-aot" -t cortex-m4 -n model --budget ram=128K -o "$T/a/m.c" $M >/dev/null 2>&1 &&
    "$BIN/ln-aot" -t cortex-m4 -n model -o "$T/b/m.c" $M 2>/dev/null &&
    [ "$(grep -v '^ \* command:' "$T/a/m.c" | cksum)" = "$(grep -v '^ \* command:' "$T/b/m.c" | cksum)" ] &&
    [ "$(grep -v '^ \* command:' "$T/a/m.h" | cksum)" = "$(grep -v '^ \* command:' "$T/b/m.h" | cksum)" ] \
    && ok || bad "-o with a fitting budget"
# lightnet: the same table after the memory report
if "$BIN/lightnet" -t cortex-m4 -c -o "$T/ln.json" --mem-report --budget ram=128K,flash=512K $M >"$T/ln" 2>"$T/err"; then
    sed -n '/^budget on/,$p' "$T/ln" >"$T/ln.table"
    table_whole "$T/ln.table" && [ "$(item "$T/ln.table" weights)" = 90416 ] && \
        [ "$(item "$T/ln.table" arena)" = "$arena" ] && ok || bad "lightnet table"
else bad "lightnet fit: exit status $?"; cat "$T/err"; fi

# ---- does not fit --------------------------------------------------------
expect_fail "RAM 64K" "ln-aot: $M does not fit: RAM [0-9,]* > 65,536 (the arena, [0-9,]* bytes, is the largest item)" \
    table "$BIN/ln-aot" -t cortex-m4 -n model --budget ram=64K,flash=512K -o "$T/out.c" $M
expect_fail "flash 64K" "does not fit: flash [0-9,]* > 65,536 (the weights, 90,416 bytes, are the largest item)" \
    table "$BIN/ln-aot" -t cortex-m4 --budget ram=1M,flash=64K $M
expect_fail "both" "does not fit: RAM .* (the arena, .*); flash .* (the weights, .*)" \
    table "$BIN/ln-aot" -t cortex-m4 --budget ram=1K,flash=1K $M
expect_fail "lightnet RAM" "lightnet: $M does not fit: RAM [0-9,]* > 1,024 (the arena" \
    table "$BIN/lightnet" -t cortex-m4 -c -o "$T/out.json" --budget ram=1K $M

# ---- bad syntax: the field named, nothing printed ------------------------
expect_fail "unknown field" "unknown field 'rom'" empty "$BIN/ln-aot" -t cortex-m4 --budget rom=1M $M
expect_fail "bad size" "field 'ram': bad size '12Q'" empty "$BIN/ln-aot" -t cortex-m4 --budget ram=12Q $M
expect_fail "no size" "field 'flash' has no size" empty "$BIN/ln-aot" -t cortex-m4 --budget ram=1K,flash $M
expect_fail "empty size" "field 'ram': bad size ''" empty "$BIN/ln-aot" -t cortex-m4 --budget ram= $M
expect_fail "twice" "field 'ram' given twice" empty "$BIN/ln-aot" -t cortex-m4 --budget ram=1K,ram=2K $M
expect_fail "trailing comma" "missing after the last ','" empty "$BIN/ln-aot" -t cortex-m4 --budget ram=1K, $M
expect_fail "empty" "--budget: empty" empty "$BIN/ln-aot" -t cortex-m4 --budget "" $M
expect_fail "overflow" "field 'flash': bad size" empty "$BIN/ln-aot" -t cortex-m4 --budget flash=99999999999999999999999K $M
expect_fail "no argument" "option --budget needs an argument" empty "$BIN/ln-aot" -t cortex-m4 $M --budget
expect_fail "lightnet field" "lightnet: --budget: unknown field 'rom'" empty "$BIN/lightnet" -t cortex-m4 --budget rom=1 $M
# bad syntax is caught before the model is read (a missing model is not reached)
expect_fail "before the model" "unknown field 'x'" empty "$BIN/ln-aot" -t cortex-m4 --budget x=1 "$T/missing.onnx"

# ---- the host target has no size table -------------------------------------
expect_fail "cpu" "no size table for target 'cpu'" empty "$BIN/ln-aot" --budget ram=1M -o "$T/out.c" $M
expect_fail "lightnet cpu" "no size table for target 'cpu'" empty "$BIN/lightnet" -c -o "$T/out.json" --budget ram=1M $M

echo "budget.sh: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
