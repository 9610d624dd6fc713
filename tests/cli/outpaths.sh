#!/bin/sh
# Output paths (issue 12): a regular output is replaced whole (no partial
# file, no temporary left), a device or FIFO is written in place and stays
# what it is, with no sibling .params/.h beside it, a directory is refused
# with exit 1 and a message naming it, and a failed run leaves an existing
# output unchanged.  Usage: LN_BIN=build/bin sh tests/cli/outpaths.sh
set -u
BIN=${LN_BIN:-build/bin}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

IR=tests/aot/models/edge.json           # input x [2,3]; tensors r, flat
ONNX=tests/models/lenet5/model.onnx
"$BIN/ln-onnx" "$ONNX" -o "$T/lenet.json" || { echo "FAIL: ln-onnx lenet5"; exit 1; }
printf '\0\0\200?\0\0\0@\0\0@@\0\0\200@\0\0\240@\0\0\300@' >"$T/x.bin"

# run NAME WANT CMD...: exit status WANT, never a signal
run() {
    name=$1; want=$2; shift 2
    "$@" >"$T/stdout" 2>"$T/err"
    st=$?
    if [ "$st" -ne "$want" ]; then bad "$name: exit $st, want $want"; cat "$T/err"; return 1; fi
    return 0
}
nodev_siblings() {
    for f in /dev/null.params /dev/null.h /dev/null.json; do
        [ -e "$f" ] && { bad "$1: $f exists"; rm -f "$f"; return 1; }
    done
    [ -c /dev/null ] || { bad "$1: /dev/null is no longer a character device"; return 1; }
    return 0
}

# 1. /dev/null stays a device, nothing beside it. lightnet -c writes only
# the IR when compiling leaves the weights as they were (edge.json); LeNet-5's
# conv2 gets its weight packed (conv2d_packed_cpu), and a device cannot
# have the new weights written beside it: refused, naming both
run "lightnet -c -o /dev/null" 0 "$BIN/lightnet" -c "$IR" -o /dev/null &&
    nodev_siblings "lightnet -c" && ok
run "lightnet -c -o /dev/null (new weights)" 1 "$BIN/lightnet" -c "$T/lenet.json" -o /dev/null &&
    grep -q "lenet.json: compiling changed the weights and '/dev/null' is not a regular file" "$T/err" &&
    nodev_siblings "lightnet -c (new weights)" && ok
run "lightnet --save /dev/null" 0 "$BIN/lightnet" "$IR" -i x="$T/x.bin" --save r=/dev/null &&
    nodev_siblings "lightnet --save" && ok
run "ln-aot -o /dev/null" 0 "$BIN/ln-aot" "$T/lenet.json" -o /dev/null &&
    nodev_siblings "ln-aot" && ok
run "ln-onnx -o /dev/null" 1 "$BIN/ln-onnx" "$ONNX" -o /dev/null &&
    grep -q "'/dev/null' is not a regular file.*--data" "$T/err" && nodev_siblings "ln-onnx" && ok
run "ln-onnx -o /dev/null --data" 0 "$BIN/ln-onnx" "$ONNX" -o /dev/null --data "$T/w.params" &&
    [ -s "$T/w.params" ] && nodev_siblings "ln-onnx --data" && ok
run "lightnet --mem-svg /dev/null" 0 "$BIN/lightnet" -c "$T/lenet.json" -o "$T/c.json" \
    --mem-svg /dev/null --dot /dev/null && nodev_siblings "lightnet --mem-svg" && ok

# 2. a FIFO is written in place: it stays a FIFO and its reader gets it all
fifo_case() {   # NAME GREP CMD... (the command writes to $T/fifo)
    name=$1; pat=$2; shift 2
    rm -f "$T/fifo" "$T/got" "$T"/fifo.*
    mkfifo "$T/fifo"
    cat "$T/fifo" >"$T/got" &
    reader=$!
    if run "$name" 0 "$@"; then
        if [ ! -p "$T/fifo" ]; then
            bad "$name: the FIFO was replaced"
            kill $reader 2>/dev/null; wait $reader 2>/dev/null; return
        fi
        wait $reader
        if ! grep -q -- "$pat" "$T/got"; then bad "$name: the reader did not get the output"
        elif ls "$T"/fifo.* >/dev/null 2>&1; then bad "$name: wrote $(ls "$T"/fifo.*)"
        else ok; fi
    else
        kill $reader 2>/dev/null; wait $reader 2>/dev/null
    fi
}
fifo_case "ln-aot -o FIFO" "ARENA_SIZE" "$BIN/ln-aot" "$T/lenet.json" -o "$T/fifo"
fifo_case "lightnet -c -o FIFO" "memory_plan" "$BIN/lightnet" -c "$IR" -o "$T/fifo"
fifo_case "ln-onnx -o FIFO --data" '"ops"' "$BIN/ln-onnx" "$ONNX" -o "$T/fifo" --data "$T/w2.params"

# 3. a directory is refused, named, and left alone
mkdir "$T/dir"
for tool in "ln-aot:$BIN/ln-aot $T/lenet.json -o $T/dir" \
            "lightnet -c:$BIN/lightnet -c $IR -o $T/dir" \
            "lightnet --save:$BIN/lightnet $IR -i x=$T/x.bin --save r=$T/dir" \
            "ln-onnx:$BIN/ln-onnx $ONNX -o $T/dir --data $T/w3.params"; do
    name=${tool%%:*}
    # shellcheck disable=SC2086
    if run "$name -o DIR" 1 ${tool#*:}; then
        if ! grep -q "$T/dir.*directory" "$T/err"; then bad "$name -o DIR: '$(cat "$T/err")'"
        elif [ ! -d "$T/dir" ] || [ -n "$(ls -A "$T/dir")" ]; then bad "$name -o DIR: dir changed"
        else ok; fi
    fi
done

# 4. a regular file is replaced whole; no temporaries remain
echo old >"$T/m.c"
run "ln-aot -o FILE" 0 "$BIN/ln-aot" "$T/lenet.json" -o "$T/m.c" &&
    grep -q ARENA_SIZE "$T/m.c" && [ -s "$T/m.h" ] && ok
run "lightnet --save FILE" 0 "$BIN/lightnet" "$IR" -i x="$T/x.bin" --save r="$T/r.bin" &&
    [ "$(wc -c <"$T/r.bin")" -eq 24 ] && ok
if ls "$T" | grep -q tmp; then bad "temporaries left: $(ls "$T" | grep tmp)"; else ok; fi

# 5. a failed run leaves an existing output as it was
echo '{"ops": [' >"$T/broken.json"
echo keep >"$T/keep.c"
run "ln-aot broken" 1 "$BIN/ln-aot" "$T/broken.json" -o "$T/keep.c" &&
    [ "$(cat "$T/keep.c")" = keep ] && [ ! -e "$T/keep.h" ] && ok
echo keep >"$T/keep.json"
run "ln-onnx broken" 1 "$BIN/ln-onnx" tests/onnx/truncated.onnx -o "$T/keep.json" &&
    [ "$(cat "$T/keep.json")" = keep ] && [ ! -e "$T/keep.params" ] && ok
if ls "$T" | grep -q tmp; then bad "temporaries left after failures"; else ok; fi

echo "outpaths: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
