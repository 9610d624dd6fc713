#!/bin/sh
# tests/gen/run.sh -- generator tests (called by `make test`).
#
#  1. tests/gen/op_descs + opt_descs (every description feature, including a
#     conv2d_cpu -> relu_cpu combiner) generate into a temp dir, twice, with
#     identical output, and every file compiles warning-free (-Werror), also
#     with ops stripped;
#  2. the committed src/op/auto and src/arch/auto are what `make gen` writes;
#  3. each tests/gen/bad/<case> fails with exit 1 and the message in
#     <case>/expect (docs/op-descriptions.md lists them).
set -u
cd "$(dirname "$0")/../.." || exit 1
CC=${CC:-cc}
CFLAGS="-std=c99 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Werror"
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0
ok() { pass=$((pass + 1)); }
ko() { fail=$((fail + 1)); echo "FAIL: $*"; }

gen() {  # gen OUTDIR OPDESCS OPTDESCS HOOKS [RT_HEADERS]
    perl gen/opgen.pl --descs "$2" --hooks "$4" --out "$1/op" --onnx-doc "$1/onnx-ops.md" \
        --kernel-doc "$1/KERNELS.md" ${5:+--rt-headers "$5"} &&
    perl gen/optgen.pl --descs "$3" --op-descs "$2" --out "$1/arch"
}

TH=runtime/include/ln_rt.h:tests/gen/hooks/ln_ophook.h
if gen "$tmp/a" tests/gen/op_descs tests/gen/opt_descs tests/gen/hooks "$TH" 2>"$tmp/err"; then ok
else ko "generating tests/gen: $(cat "$tmp/err")"; fi
gen "$tmp/b" tests/gen/op_descs tests/gen/opt_descs tests/gen/hooks "$TH" 2>/dev/null
if diff -r "$tmp/a" "$tmp/b" >/dev/null; then ok; else ko "generation is not deterministic"; fi

for strip in "" "-DLN_OP_STRIP_conv2d" "-DLN_OP_STRIP_relu -DLN_OP_STRIP_mul_same" "-DLN_OP_STRIP_celu"; do
    for f in "$tmp"/a/op/*.c "$tmp"/a/arch/*.c; do
        # (-include: the hooks header also declares the test set's made-up kernels)
        if $CC $CFLAGS $strip -I"$tmp/a/op" -Itests/gen/hooks -Isrc -Iruntime/include \
               -include tests/gen/hooks/ln_ophook.h \
               -c "$f" -o "$tmp/x.o" 2>"$tmp/err"; then ok
        else ko "compile $(basename "$f") $strip: $(cat "$tmp/err")"; fi
    done
done
for want in 'cb_conv2d_relu' 'ln_dfg_num_readers(ctx->dfg' '"conv2d_relu_cpu"'; do
    if grep -q "$want" "$tmp/a/arch/ln_combiner_cpu.c"; then ok; else ko "combiner lacks $want"; fi
done
# a rule of stage "early" is in the early table only, the others in the main one
tables=$(sed -n '/^ln_combiner_func/,/^};/p' "$tmp/a/arch/ln_combiner_cpu.c" | tr -d ' \n')
case $tables in
*'funcs_cpu[]={#if!(defined(LN_OP_STRIP_conv2d)||defined(LN_OP_STRIP_relu))cb_conv2d_relu,#endifNULL};'*'early_funcs_cpu[]={#ifndefLN_OP_STRIP_relucb_relu_relu,#endifNULL};'*) ok ;;
*) ko "combiner tables: want conv2d_relu in funcs, relu_relu in early_funcs: $tables" ;;
esac
# tensor-dimension conditions: {"tensor", "dim", <cmp>} and {"param", "<cmp>_dim"}
for want in '"weight"))->ndim > 1 &&' '"weight"))->dims[1] == 1 &&' '"src"))->dims[2] <= 4096 &&' \
            '(ln_op_param(op0->op_arg, "group") ? ln_op_param(op0->op_arg, "group")->value_double : 1) == tensor_of(op0, ln_tensor_list_find_name(op0->op_arg->tensors_in, "src"))->dims[1]'; do
    if grep -qF "$want" "$tmp/a/arch/ln_expander_cpu.c"; then ok; else ko "expander lacks $want"; fi
done
for want in "'weight' dims[1]*group (%d) != 'src' dims[1] (%d)" 'ln_opck_tensor_isstatic(op_arg, "weight"' \
            'ln_opck_param_string_in(op_arg, auto_pad_pe' 'ln_opck_param_array_len(op_arg, stride_pe, LN_CMP_EQ, 2)'; do
    if grep -qF "$want" "$tmp/a/op/ln_opimpl_conv2d.c"; then ok; else ko "conv2d lacks $want"; fi
done

# a kernel call stated once: run() and the ln-aot template from "kernel";
# ${src.type} picks the kernel by the dtype
for want in 'if (src->dtype == LN_DTYPE_INT32)' 'ln_rt_relu_s32(src->data, dst->data, src->len);' \
            'ln_rt_relu_f32(src->data, dst->data, src->len);'; do
    if grep -qF "$want" "$tmp/a/op/ln_opimpl_relu.c"; then ok; else ko "relu lacks $want"; fi
done
for want in 'ln_rt_concat(src_count, src, NULL, 1, 1, ln_dtype_size(src_dtype), dst->data);' \
            '"ln_rt_relu_${src.type}(${src}, ${dst}, ${src.len});"'; do
    if grep -qF "$want" "$tmp/a/op/ln_opimpl_concat.c" "$tmp/a/op/ln_opregistry.c"; then ok
    else ko "generated code lacks $want"; fi
done

# a family: one file, the abstract ops share a check, the cpu ops a pre_run
# and a private struct (run stays per op: its kernel)
f="$tmp/a/op/ln_opimpl_scaled.c"
if [ -f "$f" ] && [ ! -e "$tmp/a/op/ln_opimpl_elu.c" ]; then ok; else ko "family scaled: not one file"; fi
for want in 'static int celu_check(ln_op_arg *op_arg, struct celu_vals *v, ln_bool scratch_ok)' \
            '.pre_run = celu_cpu_pre_run, .run = elu_cpu_run,' 'const struct celu_cpu_priv *priv = op_arg->priv;' \
            '#ifndef LN_OP_STRIP_elu' '#ifndef LN_OP_STRIP_celu'; do
    if grep -qF "$want" "$f"; then ok; else ko "family scaled lacks $want"; fi
done
[ "$(grep -c 'static int .*_cpu_pre_run' "$f")" -eq 1 ] && ok || ko "family scaled: not one cpu pre_run"
grep -qF '{"elu_cpu", "ln_rt_elu_f32(${src}, ${dst}, ${src.len}, ${alpha});", LN_OPREG_IF_KEPT(elu, ln_opimpl_celu_cpu_aot_priv)}' \
    "$tmp/a/op/ln_opregistry.c" && ok || ko "registry: elu_cpu's aot row does not name the shared private struct"

# the committed generated files are up to date
gen "$tmp/main" gen/op_descs gen/opt_descs src/op 2>"$tmp/err" || ko "generating gen/: $(cat "$tmp/err")"
if diff -r src/op/auto "$tmp/main/op" >"$tmp/diff" && diff -r src/arch/auto "$tmp/main/arch" >>"$tmp/diff" &&
   diff docs/onnx-ops.md "$tmp/main/onnx-ops.md" >>"$tmp/diff" && diff runtime/KERNELS.md "$tmp/main/KERNELS.md" >>"$tmp/diff"
then ok; else ko "src/op/auto, src/arch/auto or the generated tables differ from \`make gen\`: $(head -20 "$tmp/diff")"; fi
# the tables: a row per ONNX mapping, a row per kernel with the file defining it
grep -qF '| Concat | 4-12 | concat | src |' "$tmp/a/onnx-ops.md" && ok || ko "onnx-ops.md lacks Concat 4-12"
grep -qF '| conv2d_cpu | `ln_rt_conv2d_f32` | `conv2d_f32.c` |' "$tmp/a/KERNELS.md" && ok || ko "KERNELS.md lacks conv2d_cpu"

for d in tests/gen/bad/*; do
    case=$(basename "$d")
    want=$(cat "$d/expect")
    if [ -d "$d/opt_descs" ]; then
        perl gen/optgen.pl --descs "$d/opt_descs" --op-descs tests/gen/op_descs --out "$tmp/bad" 2>"$tmp/err"
    else
        perl gen/opgen.pl --descs "$d/op_descs" --hooks tests/gen/hooks --out "$tmp/bad" \
            --onnx-doc "$tmp/bad.md" --kernel-doc "$tmp/bad.md" 2>"$tmp/err"
    fi
    st=$?
    if [ $st -eq 1 ] && grep -qF -- "$want" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then ok
    else ko "bad/$case: exit $st, got: $(cat "$tmp/err"), want: $want"; fi
done

echo "tests/gen/run.sh: $pass passed, $fail failed"
[ $fail -eq 0 ]
