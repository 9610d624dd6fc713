#!/bin/sh
# End-to-end tests of ln-aot (run by `make test-aot` from the repo root).
#
# For every model -- the hand-written IR models in tests/aot/models/, the
# ONNX test models tests/models/*/model.onnx whose ops this build supports
# and the differential tester's minimal finds in tests/difftest/found --
# ln-aot emits C; the C must compile with -std=c99 -Wall -Wextra -pedantic
# -Werror under gcc, clang and arm-none-eabi-gcc (Cortex-M4F); the object
# may reference no symbol outside ln_rt_ (plus libm and the mem* functions
# compilers emit); the emitted model run on the stored input must equal the
# interpreter bit for bit, it and the interpreter at -O0 the reference
# within tolerance -- with inputs
# and outputs as caller buffers, in the arena (--io-in-arena), and with
# the weights in an external blob (--weights FILE).  Then two models are
# linked into one program and run interleaved, emission is checked to be
# deterministic, and bad input must give one error line, exit 1 and no file.
#
# Environment (set by mk/aot.mk): BUILD, RT_LIB, AOT_LDLIBS, AOT_CFLAGS,
# CC, QDQ_DIR (the generated QDQ networks; empty: none); CLANG and ARM_CC
# to override the compilers (empty: skip); AOT_LAYOUTS (below).
set -u
BUILD=${BUILD:-build}
QDQ_DIR=${QDQ_DIR:-}
RT_LIB=${RT_LIB:-runtime/build/libln_rt.a}
AOT_LDLIBS=${AOT_LDLIBS:--lcjson -lm}
AOT_CFLAGS=${AOT_CFLAGS:-}
CC=${CC:-cc}
# AOT_LAYOUTS=plain: each model with caller buffers only, not again with
# --io-in-arena and --weights FILE (make test-asan: under AddressSanitizer
# the caller's separate buffers are what it can guard; inside the one
# arena an overrun shows in neither layout)
AOT_LAYOUTS=${AOT_LAYOUTS:-all}
CLANG=${CLANG-clang}
ARM_CC=${ARM_CC-arm-none-eabi-gcc}
LNAOT=$BUILD/bin/ln-aot
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
skip=0

ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

STRICT="-std=c99 -Wall -Wextra -pedantic -Werror -O2 -Iruntime/include"
M4FLAGS="-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16"
DRIVER_CFLAGS="-std=c99 -D_POSIX_C_SOURCE=200809L -O1 -g -Isrc -Iruntime/include $AOT_CFLAGS"
have() { [ -n "$1" ] && command -v "$1" >/dev/null 2>&1; }
# An empty CLANG or ARM_CC skips that compiler on purpose (make test-asan:
# the emitted C those two only compile is the same as in make test-aot).
if [ -z "$CLANG" ]; then echo "clang: not asked for (CLANG empty)"
elif have "$CLANG"; then :; else echo "SKIP: no clang ($CLANG)"; CLANG=; fi
if [ -z "$ARM_CC" ]; then echo "arm-none-eabi-gcc: not asked for (ARM_CC empty)"
elif have "$ARM_CC"; then :; else echo "SKIP: no arm-none-eabi-gcc ($ARM_CC)"; ARM_CC=; fi

# Undefined symbols of an emitted object: only the runtime, libm and the
# memory functions a compiler may call for a copy loop.
LIBM='(sinf?|cosf?|tanf?|expf?|exp2f?|expm1f?|logf?|log1pf?|log2f?|sqrtf?|powf?|fabsf?|floorf?|ceilf?|roundf?|tanhf?|erff?|fmaxf?|fminf?|nanf?)'
check_nm() {   # OBJECT LABEL [ALSO_ALLOWED]
    extra=$(nm -u "$1" | awk '{print $NF}' |
            grep -Ev "^(ln_rt_[A-Za-z0-9_]+|$LIBM|memcpy|memmove|memset${3:+|$3})$")
    if [ -n "$extra" ]; then bad "$2: undefined symbols outside ln_rt_/libm: $extra"; else ok; fi
}

# compile_all: gcc (kept as DIR/NAME.o), clang, arm-none-eabi-gcc
compile_all() {   # DIR NAME LABEL [ALSO_ALLOWED_SYMBOL]
    cd_=$1; cn_=$2; cl_=$3; ca_=${4:-}
    if $CC $STRICT -I"$cd_" -c "$cd_/$cn_.c" -o "$cd_/$cn_.o" 2>"$T/cc.err"; then ok
    else bad "$cl_: gcc -Werror"; head -20 "$T/cc.err"; return 1; fi
    check_nm "$cd_/$cn_.o" "$cl_ (host)" "$ca_"
    if [ -n "$CLANG" ]; then
        if $CLANG $STRICT -I"$cd_" -c "$cd_/$cn_.c" -o "$cd_/$cn_.clang.o" 2>"$T/cc.err"; then ok
        else bad "$cl_: clang -Werror"; head -20 "$T/cc.err"; fi
    fi
    if [ -n "$ARM_CC" ]; then
        if $ARM_CC $STRICT $M4FLAGS -ffunction-sections -fdata-sections -I"$cd_" -c "$cd_/$cn_.c" \
               -o "$cd_/$cn_.m4.o" 2>"$T/cc.err"; then
            ok
            check_nm "$cd_/$cn_.m4.o" "$cl_ (cortex-m4)" "$ca_"
        else
            bad "$cl_: arm-none-eabi-gcc -Werror"; head -20 "$T/cc.err"
        fi
    fi
    return 0
}

# driver DIR NAME LABEL EXTRA_OBJS MODEL TOL INPUTS... REFS...: build and run aot_check
driver() {
    dd_=$1; dn_=$2; dl_=$3; dx_=$4; shift 4
    up=$(echo "$dn_" | tr 'a-z' 'A-Z')
    # shellcheck disable=SC2086
    if $CC $DRIVER_CFLAGS -DMODEL="$dn_" -DMODEL_UP="$up" -DMODEL_H="\"$dn_.h\"" -I"$dd_" \
           tests/aot/aot_check.c "$dd_/$dn_.o" $dx_ "$BUILD/liblightnet.a" "$RT_LIB" $AOT_LDLIBS \
           -o "$dd_/check" 2>"$T/cc.err"; then
        if "$dd_/check" "$@" >"$T/check.out" 2>&1; then ok; echo "  $dl_: $(cat "$T/check.out")"
        else bad "$dl_: $(cat "$T/check.out")"; fi
    else
        bad "$dl_: cannot build the driver"; head -20 "$T/cc.err"
    fi
}

SIZES=""
# one_model NAME SOURCE TOL "INPUTS" "REFS" [ln-aot options]
one_model() {
    n=$1; src=$2; tol=$3; ins=$4; refs=$5; shift 5
    d="$T/$n"
    mkdir -p "$d/io" "$d/blob"
    start=$(date +%s.%N)
    if ! "$LNAOT" -n "$n" -o "$d/$n.c" --static-arena "$@" "$src" 2>"$T/aot.err"; then
        if grep -q "unsupported\|no emission rule\|unknown optype" "$T/aot.err"; then
            skip=$((skip + 1)); echo "SKIP $n: $(cat "$T/aot.err")"
        else
            bad "$n: ln-aot: $(cat "$T/aot.err")"
        fi
        return
    fi
    end=$(date +%s.%N)
    ok
    compile_all "$d" "$n" "$n" || return
    # shellcheck disable=SC2086
    driver "$d" "$n" "$n" "" "$src" "$tol" $ins $refs
    if [ -n "$ARM_CC" ]; then
        sz=$(arm-none-eabi-size -A "$d/$n.m4.o" | awk '/^\.text/ {t += $2} /^\.rodata/ {r += $2} END {print t + 0, r + 0}')
        SIZES="$SIZES
  $n: cortex-m4 .text $(echo "$sz" | cut -d' ' -f1) B, .rodata $(echo "$sz" | cut -d' ' -f2) B, $(grep -o 'Arena [0-9]* bytes (lower bound [0-9]*)' "$d/$n.c"), ln-aot $(echo "$end - $start" | bc) s"
    fi

    [ "$AOT_LAYOUTS" = plain ] && return
    # inputs and outputs in the arena, accessors
    if "$LNAOT" -n "$n" -o "$d/io/$n.c" --io-in-arena "$@" "$src" 2>"$T/aot.err"; then
        ok
        grep -q "${n}_output0(void \*arena)" "$d/io/$n.h" && ok || bad "$n --io-in-arena: no accessor"
        if compile_all "$d/io" "$n" "$n --io-in-arena"; then
            # shellcheck disable=SC2086
            driver "$d/io" "$n" "$n --io-in-arena" "" "$src" "$tol" $ins $refs
        fi
    else
        bad "$n --io-in-arena: $(cat "$T/aot.err")"
    fi

    # weights in an external blob, linked in with .incbin
    if "$LNAOT" -n "$n" -o "$d/blob/$n.c" --weights "$d/blob/$n.bin" "$@" "$src" 2>"$T/aot.err"; then
        ok
        if grep -q "${n}_w_" "$d/blob/$n.c"; then bad "$n --weights FILE: weights still embedded"; else ok; fi
        printf '\t.section .rodata\n\t.balign 16\n\t.global %s_weights\n%s_weights:\n\t.incbin "%s"\n' \
            "$n" "$n" "$d/blob/$n.bin" >"$d/blob/weights.s"
        # the blob is the one symbol the user provides
        if compile_all "$d/blob" "$n" "$n --weights FILE" "${n}_weights" &&
           $CC -c "$d/blob/weights.s" -o "$d/blob/weights.o"; then
            # shellcheck disable=SC2086
            driver "$d/blob" "$n" "$n --weights FILE" "$d/blob/weights.o" "$src" "$tol" $ins $refs
        fi
    else
        bad "$n --weights FILE: $(cat "$T/aot.err")"
    fi
}

# 1. the hand-written models (references from tests/aot/models/make_data.py)
M=tests/aot/models
one_model ew $M/ew.json 1e-5 "$M/ew.in0.bin" "$M/ew.ref0.bin $M/ew.ref1.bin"
one_model act $M/act.json 1e-5 "$M/act.in0.bin $M/act.in1.bin" "$M/act.ref0.bin"
one_model edge $M/edge.json 0 "$M/edge.in0.bin" "$M/edge.ref0.bin $M/edge.ref1.bin $M/edge.ref2.bin"
# a model without graph inputs: a constant through relu (run takes only outputs)
one_model noinput $M/noinput.json 0 "" "$M/noinput.ref0.bin"
one_model iris examples/aot/iris.json 1e-5 "examples/aot/iris.in0.bin" "examples/aot/iris.ref0.bin"

# 2. the ONNX test models (PyTorch references), when their ops are supported
for m in tests/models/*/model.onnx; do
    [ -f "$m" ] || continue
    dir=$(dirname "$m")
    one_model "$(basename "$dir")" "$m" 1e-4 "$dir/input.bin" "$dir/output.bin"
done

# 2b. the differential tester's finds (tests/difftest/found: minimal models
#     of bugs it found, numpy references), the export patterns models
#     contain (tests/onnx/patterns, ONNX Runtime references) and control
#     flow, each If on inputs taking every branch (tests/onnx/ctrl, ONNX
#     Runtime and PyTorch references)
for m in tests/difftest/found/*.onnx tests/onnx/patterns/*.onnx tests/onnx/ctrl/*.onnx; do
    n=$(basename "$m" .onnx)
    in=${m%.onnx}.in.bin
    [ -f "$in" ] || in=""
    one_model "$n" "$m" 1e-5 "$in" "${m%.onnx}.ref.bin"
done

# 2b'. ONNX's integer ops (ConvInteger 1-D and 3-D, MatMulInteger zero
#      points per batch; tests/onnx/integer, ONNX Runtime references):
#      integer results cast to float, so bit for bit (tolerance 0)
for m in tests/onnx/integer/integer_*.onnx; do
    one_model "$(basename "$m" .onnx)" "$m" 0 "${m%.onnx}.in.bin" "${m%.onnx}.ref.bin"
done

# 2c. quantized (QDQ) models with ONNX Runtime references: the small ones
#     of tests/onnx/qdq within 2 output steps on 99% of the elements and 4
#     on all (q:STEP); of the QDQ test networks (make qdq-models, in
#     QDQ_DIR) the -O0 float QDQ path within 1 step (qo:STEP; make test-qdq
#     holds their int8 path to the reference); every conv / gemm / matmul
#     must have become an int8 kernel call, and none in qdq_keep_float
#     (uint8, asymmetric conv weights, a broadcasting add, an average pool
#     counting padding)
for m in tests/onnx/qdq/*.onnx ${QDQ_DIR:+$QDQ_DIR/*.onnx}; do
    [ -f "$m" ] || continue
    n=$(basename "$m" .onnx)
    case $m in tests/*) crit=q ;; *) n=qdq_$n; crit=qo ;; esac
    one_model "$n" "$m" "$crit:$(cat "${m%.onnx}.scale")" "${m%.onnx}.in.bin" "${m%.onnx}.ref.bin"
    c="$T/$n/$n.c"
    case $n in
    *keep_float*)   # what the int8 kernels cannot take stays float
        if [ -f "$c" ] && ! grep -q 'ln_rt_\(conv2d_nchw\|fully_connected\|add\|avgpool2d\)_s8(' "$c"; then ok
        else bad "$n: an op that must stay float became an int8 kernel call"; fi ;;
    *)
        if [ -f "$c" ] && grep -q 'ln_rt_\(conv2d_nchw\|fully_connected\)_s8(' "$c" &&
           ! grep -q 'ln_rt_\(conv2d\|conv2d_depthwise\|gemm\|matmul\)_f32(' "$c"; then ok
        else bad "$n: a conv, gemm or matmul did not become an int8 kernel call"; fi ;;
    esac
done

# 3. two models in one program, interleaved
if [ -f "$T/ew/ew.o" ] && [ -f "$T/act/act.o" ]; then
    if $CC $DRIVER_CFLAGS -I"$T/ew" -I"$T/act" tests/aot/two_models.c "$T/ew/ew.o" "$T/act/act.o" \
           "$RT_LIB" -lm -o "$T/two" 2>"$T/cc.err"; then
        if "$T/two" $M/ew.in0.bin $M/act.in0.bin $M/act.in1.bin >"$T/two.out" 2>&1; then
            ok; echo "  $(cat "$T/two.out")"
        else bad "$(cat "$T/two.out")"; fi
    else
        bad "two models: cannot link ew and act together"; head -20 "$T/cc.err"
    fi
fi

# 3b. the per-op profile hook (-DNAME_PROFILE): the profiled build calls
#     NAME_profile_hook with -1, then 0 .. NAME_NUM_OPS-1, naming the ops as
#     the source's comments do, and computes the same bytes as the plain
#     build; the plain object holds neither the hook nor the op names
profile_model() {   # NAME INPUTS...
    pn=$1; shift
    pd="$T/$pn"
    [ -f "$pd/$pn.o" ] || return 0
    pu=$(echo "$pn" | tr 'a-z' 'A-Z')
    pdef="-DMODEL=$pn -DMODEL_UP=$pu -DMODEL_H=\"$pn.h\""
    if $CC $STRICT -D"${pu}_PROFILE" -I"$pd" -c "$pd/$pn.c" -o "$pd/prof.o" 2>"$T/cc.err" &&
       { [ -z "$CLANG" ] || $CLANG $STRICT -D"${pu}_PROFILE" -I"$pd" -c "$pd/$pn.c" -o "$pd/prof.clang.o" 2>>"$T/cc.err"; } &&
       { [ -z "$ARM_CC" ] || $ARM_CC $STRICT $M4FLAGS -D"${pu}_PROFILE" -I"$pd" -c "$pd/$pn.c" -o "$pd/prof.m4.o" 2>>"$T/cc.err"; } &&
       # shellcheck disable=SC2086
       $CC $DRIVER_CFLAGS $pdef -D"${pu}_PROFILE" -DPROFILED -I"$pd" tests/aot/profile_check.c \
           "$pd/prof.o" "$RT_LIB" -lm -o "$pd/prof" 2>>"$T/cc.err" &&
       # shellcheck disable=SC2086
       $CC $DRIVER_CFLAGS $pdef -I"$pd" tests/aot/profile_check.c "$pd/$pn.o" "$RT_LIB" -lm \
           -o "$pd/plain" 2>>"$T/cc.err"; then ok
    else bad "$pn -D${pu}_PROFILE: does not build"; head -20 "$T/cc.err"; return; fi
    check_nm "$pd/prof.o" "$pn -D${pu}_PROFILE" "${pn}_profile_hook"
    if nm "$pd/$pn.o" | grep -q profile_hook; then bad "$pn: the plain object refers to the hook"; else ok; fi
    # the ops as the source's comments name them: "    /* NAME (TYPE): ..."
    sed -n 's|^    /\* \(.*\) (\([a-z0-9_]*\)): .* -> .*\*/$|\1\t\2|p' "$pd/$pn.c" | awk '{print NR - 1 "\t" $0}' >"$T/ops.want"
    first=$(sed -n '1s/^0\t\(.*\)\t.*/\1/p' "$T/ops.want")
    if [ ${#first} -lt 6 ]; then :    # too short to tell from other bytes
    elif ! strings "$pd/$pn.o" | grep -qxF "$first" && strings "$pd/prof.o" | grep -qxF "$first"; then ok
    else bad "$pn: op name '$first' in the plain object, or not in the profiled one"; fi
    if "$pd/prof" "$T/prof.out" "$@" >"$T/ops.got" 2>"$T/prof.err" && "$pd/plain" "$T/plain.out" "$@" 2>>"$T/prof.err"; then
        if cmp -s "$T/ops.want" "$T/ops.got"; then ok
        else bad "$pn: hook calls differ from the ops in the source"; diff "$T/ops.want" "$T/ops.got" | head -10; fi
        if cmp -s "$T/prof.out" "$T/plain.out"; then ok
        else bad "$pn: the profiled build computes different outputs"; fi
        echo "  $pn -D${pu}_PROFILE: $(wc -l <"$T/ops.got") ops, hook called in order, outputs identical"
    else bad "$pn -D${pu}_PROFILE: $(cat "$T/prof.err")"; fi
}
profile_model edge $M/edge.in0.bin
profile_model noinput
[ -f tests/models/ds_cnn/input.bin ] && profile_model ds_cnn tests/models/ds_cnn/input.bin

# 4. deterministic: the same command twice gives the same files
"$LNAOT" -n ew -o "$T/det.c" $M/ew.json 2>/dev/null && mv "$T/det.c" "$T/det1.c"
"$LNAOT" -n ew -o "$T/det.c" $M/ew.json 2>/dev/null
if cmp -s "$T/det1.c" "$T/det.c"; then ok; else bad "ln-aot output differs between two runs"; fi
# stdin and stdout: the declarations go into the source, which compiles alone
if "$LNAOT" -n ew -f $M/ew.params - <$M/ew.json >"$T/stdout.c" 2>"$T/aot.err" &&
   grep -q '^int ew_run(void \*arena' "$T/stdout.c" &&
   $CC $STRICT -c "$T/stdout.c" -o "$T/stdout.o" 2>/dev/null; then ok
else bad "model from stdin, source to stdout: $(cat "$T/aot.err")"; fi

# 5. bad input: one line naming the problem, exit 1, no file left behind
expect_error() {   # NAME PATTERN ARGS...
    name=$1; pattern=$2; shift 2
    rm -rf "$T/bad"; mkdir -p "$T/bad"
    "$LNAOT" -o "$T/bad/model.c" "$@" >"$T/bad.out" 2>"$T/bad.err"
    st=$?
    lines=$(wc -l <"$T/bad.err")
    left=$(ls "$T/bad")
    if [ "$st" -ne 1 ]; then bad "$name: exit $st, want 1"
    elif [ "$lines" -ne 1 ]; then bad "$name: $lines stderr lines, want 1"; cat "$T/bad.err"
    elif ! grep -q -- "$pattern" "$T/bad.err"; then bad "$name: '$(cat "$T/bad.err")' lacks '$pattern'"
    elif [ -n "$left" ]; then bad "$name: left files behind: $left"
    else ok; fi
}
expect_error "no emission rule" "show (print_cpu): no emission rule" tests/aot/bad/print.json
expect_error "missing weights" "constant 'w': .*noweights.params: cannot open" tests/aot/bad/noweights.json
expect_error "no output op" "has no output op" tests/aot/bad/nooutput.json
expect_error "unknown flag" "unknown option '--frobnicate'" --frobnicate $M/ew.json
expect_error "bad name" "'1x' is not a C identifier" -n 1x $M/ew.json
expect_error "unknown target" "unknown target 'gpu'" -t gpu $M/ew.json
printf '{"ops": [\n  {"name": "a",, }]}\n' >"$T/malformed.json"
expect_error "malformed JSON" "malformed.json:2:17: malformed JSON" "$T/malformed.json"
expect_error "no such file" "nothere.json" tests/aot/nothere.json

if [ -n "$SIZES" ]; then echo "emitted model objects (arm-none-eabi-gcc -O2):$SIZES"; fi
echo "aot: $pass passed, $fail failed, $skip models skipped (ops not supported yet)"
[ "$fail" -eq 0 ]
