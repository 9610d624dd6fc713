#!/bin/sh
# The Cortex-M4 example never runs a stale build (issue 12): a model given
# by MODEL_DIR is built under its own name, and a different model in the
# same place -- even copied in with old modification times -- is rebuilt,
# not answered by the firmware of the model built before.
# Usage (from the repo root, after `make`): sh tests/m4-models/stale.sh
set -u
EX=examples/cortex-m4
T=$(mktemp -d)
D=$(cd "$T" && pwd)/net
trap 'rm -rf "$T" "$EX/build/net"' EXIT
fail=0
put() {   # put MODEL: tests/models/MODEL into $D, old timestamps kept
    rm -rf "$D" && mkdir -p "$D"
    cp -p "tests/models/$1/model.onnx" "tests/models/$1/input.bin" "tests/models/$1/output.bin" "$D/"
}
runfw() {   # runfw WANT_OUTPUTS
    if ! make --no-print-directory -s -C "$EX" MODEL_DIR="$D" run >"$T/log" 2>&1; then
        echo "FAIL: MODEL_DIR run failed:"; tail -5 "$T/log"; fail=1; return
    fi
    if ! grep -q "output\[$1\]" "$T/log" || ! grep -q "model net on" "$T/log" ||
       ! grep -q PASS "$T/log"; then
        echo "FAIL: expected model 'net' with $1 outputs and PASS:"; tail -8 "$T/log"; fail=1
    fi
}
rm -rf "$EX/build/net"
put lenet5
runfw 10
put ds_cnn
runfw 12
# a missing model is an error, not the default model
if make --no-print-directory -s -C "$EX" MODEL_DIR="$T/none" run >"$T/log" 2>&1; then
    echo "FAIL: a missing MODEL_DIR ran"; fail=1
elif ! grep -q "is not a directory" "$T/log"; then
    echo "FAIL: a missing MODEL_DIR: $(cat "$T/log")"; fail=1
fi
[ $fail -eq 0 ] && echo "m4 stale-build check: passed"
exit $fail
