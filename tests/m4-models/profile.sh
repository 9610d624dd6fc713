#!/bin/sh
# The per-op profile on the Cortex-M4 (issue 19): `make PROFILE=1 run` of
# one model builds the plain and the profiled firmware (model.c and main.c
# with -DMODEL_PROFILE), both must PASS; the profiled one must print one
# row per op -- every index 0 .. MODEL_NUM_OPS-1 once, sorted by cost --
# and a per-type table whose op counts add up to MODEL_NUM_OPS; the ops'
# sum must be within LIMIT percent of the unprofiled run's instruction
# count and of the profiled run's own total.
# Usage (from the repo root, after `make`):
#   LN_AOT=build/bin/ln-aot sh tests/m4-models/profile.sh [MODEL] [LIMIT]
set -u
EX=examples/cortex-m4
M=${1:-ds_cnn}
LIMIT=${2:-2}
LN_AOT=${LN_AOT:-build/bin/ln-aot}
case $LN_AOT in /*) ;; *) LN_AOT=$(pwd)/$LN_AOT ;; esac
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
no() { echo "FAIL: profile $M: $*"; fail=1; }

if ! make --no-print-directory -s -C "$EX" MODEL="$M" PROFILE=1 LN_AOT="$LN_AOT" run >"$T/log" 2>&1; then
    tail -20 "$T/log"; no "make PROFILE=1 run failed"; exit 1
fi
H=$EX/build/$M-profile/model.h
n=$(sed -n 's/^#define MODEL_NUM_OPS \([0-9]*\)$/\1/p' "$H")
[ -n "$n" ] || { no "no MODEL_NUM_OPS in $H"; exit 1; }
[ "$(grep -c '^PASS$' "$T/log")" -eq 2 ] || no "want PASS from the plain and the profiled firmware"

# the per-op rows: "   op  instructions  %  type  name"
sed -n '/^profile: instructions per op (/,/^profile: instructions per op type/p' "$T/log" |
    sed '1,2d;$d' >"$T/ops"
rows=$(wc -l <"$T/ops")
[ "$rows" -eq "$n" ] || no "$rows rows, MODEL_NUM_OPS is $n"
idx=$(awk '{print $1}' "$T/ops" | sort -n | tr '\n' ' ')
want=$(i=0; while [ $i -lt "$n" ]; do printf '%d ' $i; i=$((i + 1)); done)
[ "$idx" = "$want" ] || no "op indices '$idx', want '$want'"
awk 'NR > 1 && $2 > last { bad = 1 } { last = $2 } END { exit bad }' "$T/ops" ||
    no "rows not sorted by cost"
sum_rows=$(awk '{s += $2} END {print s}' "$T/ops")

# the per-type table
sed -n '/^profile: instructions per op type/,/^profile: sum/p' "$T/log" | sed '1,2d;$d' >"$T/types"
ntyp=$(awk '{s += $1} END {print s + 0}' "$T/types")
[ "$ntyp" -eq "$n" ] || no "the per-type table counts $ntyp ops, want $n"

# the sum against the totals
sum=$(sed -n 's/^profile: sum of the [0-9]* ops: \([0-9]*\) instructions; this run.s model_run: \([0-9]*\).*/\1 \2/p' "$T/log")
unprof=$(sed -n 's/^profile: sum of the ops [0-9]* instructions, unprofiled run \([0-9]*\):.*/\1/p' "$T/log")
set -- $sum
if [ $# -ne 2 ] || [ -z "$unprof" ]; then
    no "no sum / totals in the output"
else
    [ "$1" -eq "$sum_rows" ] || no "the rows add up to $sum_rows, the printed sum is $1"
    awk -v s="$1" -v p="$2" -v u="$unprof" -v l="$LIMIT" -v m="$M" -v n="$n" 'BEGIN {
        d1 = 100 * (s - u) / u; d2 = 100 * (s - p) / p
        printf "  %s: %d ops, sum %d, unprofiled %d (%+.3f%%), profiled run %d (%+.3f%%)\n",
               m, n, s, u, d1, p, d2
        exit !(d1 <= l && d1 >= -l && d2 <= l && d2 >= -l) }' ||
        no "the sum is not within $LIMIT% of the totals"
fi
[ $fail -eq 0 ] && { sed -n '/^profile: instructions per op (/,/^profile: instructions per op type/p' "$T/log" |
    sed '$d' | head -6; echo "m4 profile check ($M): passed"; }
exit $fail
