#!/bin/sh
# Every fuzz regression input through the tools themselves: lightnet,
# ln-onnx and ln-aot exit 0 or 1 (never a signal), and a refusal prints one
# message that names the file.  LN_BIN is the tools' directory.
set -u
B=${LN_BIN:-build/bin}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
check() {  # what status errfile
    if [ "$2" -gt 1 ]; then
        echo "FAIL: $1 exited $2"; fail=$((fail + 1))
    elif [ "$2" -eq 1 ] && ! grep -q "regress" "$3"; then
        echo "FAIL: $1: refusal does not name the file:"; cat "$3"; fail=$((fail + 1))
    else
        pass=$((pass + 1))
    fi
}
for f in tests/fuzz/regress/*/*; do
    case $f in
    *.onnx)
        "$B/ln-onnx" "$f" -o "$T/m.json" >/dev/null 2>"$T/err"; check "ln-onnx $f" $? "$T/err" ;;
    esac
    case $f in
    */onnx/*|*/ir/*|*/pipeline/*)
        "$B/lightnet" "$f" >/dev/null 2>"$T/err"; check "lightnet $f" $? "$T/err"
        "$B/ln-aot" "$f" -o "$T/m.c" >/dev/null 2>"$T/err"; check "ln-aot $f" $? "$T/err" ;;
    */params/*|*/wts/*)
        "$B/lightnet" -f "$f" tests/aot/models/ew.json >/dev/null 2>"$T/err"
        check "lightnet -f $f" $? "$T/err" ;;
    esac
done
echo "fuzz regressions through the tools: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
