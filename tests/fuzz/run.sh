#!/bin/sh
# tests/fuzz/run.sh regress|fuzz HARNESS...
#   regress: run every input of tests/fuzz/regress/<h>/ and corpus/<h>/ once
#   fuzz:    fuzz each harness FUZZ_SECONDS seconds from the seed corpus
#            (the grown corpus stays in $FUZZ_BUILD/corpus/<h>/)
# Exits non-zero on the first crash, leak, timeout or sanitizer report; the
# input that caused it is left in $FUZZ_BUILD/artifacts/.
set -u
B=${FUZZ_BUILD:-build-fuzz}
mode=$1
shift
status=0
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
mkdir -p "$B/artifacts" "$B/logs"
for h in "$@"; do
    bin=$B/fuzz/fuzz_$h
    dict=tests/fuzz/$h.dict
    dictopt=""
    [ -f "$dict" ] && dictopt="-dict=$dict"
    log=$B/logs/$h.$mode.log
    common="-timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -error_exitcode=77 \
            -artifact_prefix=$B/artifacts/$h- -print_final_stats=1"
    case $mode in
    regress)
        files=$(find tests/fuzz/regress/$h tests/fuzz/corpus/$h -type f 2>/dev/null | sort)
        n=$(echo "$files" | grep -c . || true)
        if [ "$n" -eq 0 ]; then
            echo "fuzz $h: no regression or seed inputs"; continue
        fi
        # shellcheck disable=SC2086
        if "$bin" $common $files >"$log" 2>&1; then
            echo "fuzz $h: $n regression and seed inputs replayed, no finding"
        else
            echo "fuzz $h: FAILED replaying its inputs; see $log"; tail -30 "$log"; status=1
        fi ;;
    fuzz)
        mkdir -p "$B/corpus/$h"
        dirs="$B/corpus/$h"
        for d in tests/fuzz/corpus/$h tests/fuzz/regress/$h; do
            [ -d "$d" ] && dirs="$dirs $d"
        done
        # shellcheck disable=SC2086
        if "$bin" $common $dictopt -max_total_time="${FUZZ_SECONDS:-60}" \
                $dirs >"$log" 2>&1; then
            execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
            echo "fuzz $h: ${FUZZ_SECONDS:-60} s, ${execs:-?} executions, no finding"
        else
            echo "fuzz $h: FINDING; see $log and $B/artifacts/"; tail -40 "$log"; status=1
        fi ;;
    esac
done
exit $status
