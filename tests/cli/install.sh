#!/bin/sh
# `make install` works anywhere (issue 19; docs/install.md).  Installs into
# a DESTDIR with PREFIX=/usr/local and checks:
#   - liblightnet.so.MAJOR.MINOR.PATCH with soname liblightnet.so.MAJOR, and
#     the .so.MAJOR -> .so.MAJOR.MINOR.PATCH and .so -> .so.MAJOR links;
#   - the headers are exactly the public API plus the four it includes,
#     each compiles on its own, and no private header is installed;
#   - a program using the context API and ln_rt.h, built with pkg-config
#     (PKG_CONFIG_PATH + PKG_CONFIG_SYSROOT_DIR into the DESTDIR), links
#     against the shared library (NEEDED liblightnet.so.MAJOR) and runs with
#     LD_LIBRARY_PATH, and without it when linked with -Wl,-rpath; with
#     `pkg-config --static --libs` against liblightnet.a and libln_rt.a, and
#     runs without the shared library;
#   - libln_rt.a, the shared library and the tools hold no AVX2 / AVX-512
#     instruction (no %ymm / %zmm register): the runtime picks its kernels
#     at compile time, not by cpuid, so what is installed must be built
#     without -march=native.
# LD_LIBRARY_PATH is needed only because the DESTDIR is not a library
# directory the dynamic linker knows; installed for real under /usr/local
# (and ldconfig run) the program finds liblightnet.so.0 by itself.
#
# Environment: BUILD (build tree, default build), MAKE, CC, SAN (non-empty:
# skipped -- the sanitizer runtime must come first in a program, which a
# plain pkg-config link does not give).
set -u
BUILD=${BUILD:-build}
MAKE=${MAKE:-make}
CC=${CC:-cc}
if [ -n "${SAN:-}" ]; then echo "install: SKIP under sanitizers ($SAN)"; exit 0; fi
for tool in readelf objdump pkg-config; do
    command -v $tool >/dev/null 2>&1 || { echo "install: SKIP: no $tool"; exit 0; }
done
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
D=$T/root
P=/usr/local
L=$D$P/lib
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: install: $*"; }

VERSION=$(sed -n 's/^VERSION := *//p' Makefile)
MAJOR=${VERSION%%.*}
if ! $MAKE --no-print-directory install DESTDIR="$D" PREFIX=$P BUILD="$BUILD" >"$T/make.log" 2>&1; then
    tail -20 "$T/make.log"; bad "make install DESTDIR=... PREFIX=$P failed"; exit 1
fi

# 1. the shared library: file, soname, links
SO=liblightnet.so.$VERSION
if [ -f "$L/$SO" ] && [ ! -L "$L/$SO" ]; then ok; else bad "no regular file $L/$SO"; fi
soname=$(readelf -d "$L/$SO" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ "$soname" = "liblightnet.so.$MAJOR" ]; then ok; else bad "soname '$soname', want liblightnet.so.$MAJOR"; fi
if [ -L "$L/liblightnet.so.$MAJOR" ] && [ "$(readlink "$L/liblightnet.so.$MAJOR")" = "$SO" ]; then ok
else bad "liblightnet.so.$MAJOR is not a link to $SO"; fi
if [ -L "$L/liblightnet.so" ] && [ "$(readlink "$L/liblightnet.so")" = "liblightnet.so.$MAJOR" ]; then ok
else bad "liblightnet.so is not a link to liblightnet.so.$MAJOR"; fi
for f in liblightnet.a libln_rt.a pkgconfig/lightnet.pc; do
    if [ -f "$L/$f" ]; then ok; else bad "$f not installed"; fi
done
for t in lightnet ln-aot ln-onnx; do
    if [ -x "$D$P/bin/$t" ]; then ok; else bad "bin/$t not installed"; fi
done

# 2. headers: the public API + what it includes, nothing private
I=$D$P/include/lightnet
want="ln_aot.h ln_arch.h ln_context.h ln_datafile.h ln_dfg.h ln_graph.h ln_hash.h ln_interp.h
ln_list.h ln_mem.h ln_op.h ln_param.h ln_rt.h ln_serializer.h ln_tensor.h ln_util.h"
got=$(cd "$I" && ls | LC_ALL=C sort | tr '\n' ' ')
want=$(echo "$want" | tr ' ' '\n' | LC_ALL=C sort | tr '\n' ' ')
if [ "$got" = "$want" ]; then ok; else bad "installed headers: $got; want: $want"; fi
for h in ln_mem_plan.h ln_pass.h ln_pass_impl.h ln_pass_qdq_impl.h ln_report.h ln_json.h ln_onnx.h \
         ln_onnx_impl.h ln_outfile.h ln_queue.h ln_stack.h ln_aot_impl.h ln_aot_buf.h ln_aot_args.h \
         ln_opregistry.h ln_opcheck.h onnx.pb-c.h; do
    if [ -e "$I/$h" ] || [ -e "$D$P/include/$h" ]; then bad "private header $h installed"; else ok; fi
done
for h in $(cd "$I" && ls); do
    printf '#include "%s"\n' "$h" >"$T/h.c"
    if $CC -std=c99 -Wall -Wextra -Werror -fsyntax-only -I"$I" "$T/h.c" 2>"$T/h.err"; then ok
    else bad "$h does not compile alone with the installed headers: $(head -3 "$T/h.err")"; fi
done

# 3. a program through pkg-config
export PKG_CONFIG_PATH="$L/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$D"
cat >"$T/prog.c" <<'EOF'
/* relu(x + c) through the interpreter, and ln_rt_relu_f32 directly */
#include <stdio.h>
#include "ln_interp.h"
#include "ln_rt.h"

static const char *model =
    "{\"ops\": ["
    "{\"name\": \"x\", \"optype\": \"input\", \"tensors_in\": [], \"tensors_out\": "
    "[{\"arg_name\": \"dst\", \"name\": \"x\"}], \"params\": [{\"arg_name\": \"dtype\", "
    "\"value\": \"float32\"}, {\"arg_name\": \"dims\", \"value\": [4]}]},"
    "{\"name\": \"c\", \"optype\": \"create\", \"tensors_in\": [], \"tensors_out\": "
    "[{\"arg_name\": \"dst\", \"name\": \"c\"}], \"params\": [{\"arg_name\": \"dtype\", "
    "\"value\": \"float32\"}, {\"arg_name\": \"dims\", \"value\": [4]}, "
    "{\"arg_name\": \"data\", \"value\": [1, -2, 3, -4]}]},"
    "{\"name\": \"add1\", \"optype\": \"add\", \"tensors_in\": [{\"arg_name\": \"src1\", "
    "\"name\": \"x\"}, {\"arg_name\": \"src2\", \"name\": \"c\"}], \"tensors_out\": "
    "[{\"arg_name\": \"dst\", \"name\": \"s\"}], \"params\": []},"
    "{\"name\": \"relu1\", \"optype\": \"relu\", \"tensors_in\": [{\"arg_name\": \"src\", "
    "\"name\": \"s\"}], \"tensors_out\": [{\"arg_name\": \"dst\", \"name\": \"y\"}], \"params\": []},"
    "{\"name\": \"out\", \"optype\": \"output\", \"tensors_in\": [{\"arg_name\": \"src\", "
    "\"name\": \"y\"}], \"tensors_out\": [], \"params\": []}]}";

int main(void)
{
    float x[4] = {0.5f, 0.5f, 0.5f, 0.5f}, y[4], want[4] = {1.5f, 0, 3.5f, 0};
    float v[3] = {-1, 0, 2}, r[3];
    ln_context *ctx = ln_context_create();
    int i;

    if (ln_context_init_str(ctx, model, "prog") || ln_context_compile(ctx, "cpu") ||
        ln_context_load(ctx, NULL) || ln_context_set_data(ctx, "x", x, sizeof x) ||
        ln_context_run(ctx) || ln_context_get_data(ctx, "y", y, sizeof y)) {
        printf("error: %s\n", ln_error_message());
        return 1;
    }
    for (i = 0; i < 4; i++)
        if (y[i] != want[i]) {
            printf("y[%d] = %g, want %g\n", i, y[i], want[i]);
            return 1;
        }
    ln_context_unload(ctx);
    ln_context_cleanup(ctx);
    ln_context_free(ctx);
    ln_rt_relu_f32(v, r, 3);
    if (r[0] != 0 || r[1] != 0 || r[2] != 2) {
        printf("ln_rt_relu_f32 is wrong\n");
        return 1;
    }
    printf("ok: y = %g %g %g %g\n", y[0], y[1], y[2], y[3]);
    return 0;
}
EOF
cflags=$(pkg-config --cflags lightnet) || bad "pkg-config --cflags lightnet"
libs=$(pkg-config --libs lightnet) || bad "pkg-config --libs lightnet"
slibs=$(pkg-config --static --libs lightnet) || bad "pkg-config --static --libs lightnet"
case " $cflags " in *" -I$I "*) ok ;; *) bad "--cflags '$cflags' lacks -I$I" ;; esac
for l in -llightnet -lln_rt -lm -lcjson; do
    case " $slibs " in *" $l "*) ok ;; *) bad "--static --libs '$slibs' lacks $l" ;; esac
done
needed() { readelf -d "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' '; }
# shellcheck disable=SC2086
if $CC -std=c99 -Wall -Wextra -Werror $cflags "$T/prog.c" $libs -o "$T/prog-dyn" 2>"$T/cc.err"; then
    ok
    case " $(needed "$T/prog-dyn") " in *" liblightnet.so.$MAJOR "*) ok ;;
        *) bad "the program does not need liblightnet.so.$MAJOR: $(needed "$T/prog-dyn")" ;; esac
    if out=$(LD_LIBRARY_PATH="$L" "$T/prog-dyn" 2>&1); then ok; echo "  install: dynamic: $out"
    else bad "dynamic program: $out"; fi
else bad "the program does not build with pkg-config --cflags --libs: $(head -5 "$T/cc.err")"; fi
# the other way for a prefix outside the linker's path: an rpath
# shellcheck disable=SC2086
if $CC -std=c99 $cflags "$T/prog.c" $libs -Wl,-rpath,"$L" -o "$T/prog-rpath" 2>"$T/cc.err" &&
   out=$(unset LD_LIBRARY_PATH; "$T/prog-rpath" 2>&1); then ok; echo "  install: rpath, no LD_LIBRARY_PATH: $out"
else bad "program with -Wl,-rpath: $out $(head -5 "$T/cc.err")"; fi
# static: the same flags with the archives named (the .so would win otherwise)
slibs_a=$(echo " $slibs " | sed -e 's/ -llightnet / -l:liblightnet.a /' -e 's/ -lln_rt / -l:libln_rt.a /')
# shellcheck disable=SC2086
if $CC -std=c99 -Wall -Wextra -Werror $cflags "$T/prog.c" $slibs_a -o "$T/prog-static" 2>"$T/cc.err"; then
    ok
    case " $(needed "$T/prog-static") " in *liblightnet*) bad "the static program needs liblightnet" ;; *) ok ;; esac
    if out=$(unset LD_LIBRARY_PATH; "$T/prog-static" 2>&1); then ok; echo "  install: static: $out"
    else bad "static program: $out"; fi
else bad "the program does not link with pkg-config --static --libs ($slibs_a): $(head -5 "$T/cc.err")"; fi

# 4. portable code: instructions on ymm/zmm registers (AVX2, AVX-512)
# only in the kernels the runtime picks by cpuid (runtime/kernels/x86/,
# ln_rt_internal.h's LN_RT_DISPATCH), and the installed lightnet runs a
# model on a CPU without AVX (qemu-x86_64 -cpu qemu64, Debian's qemu-user:
# any AVX instruction is illegal there) with the output it gives natively
native=$(objdump -d runtime/build/libln_rt.a 2>/dev/null | grep -c '%[yz]mm')
disp=$(nm runtime/build-portable/obj/kernels/x86/*.o 2>/dev/null |
       awk 'NF == 3 && ($2 == "t" || $2 == "T") { sub(/[.].*/, "", $3); print $3 }' | sort -u)
if [ -n "$disp" ]; then ok; else bad "no dispatched x86 kernels in runtime/build-portable"; fi
for f in "$L/libln_rt.a" "$L/$SO" "$D$P/bin/ln-aot" "$D$P/bin/lightnet"; do
    fns=$(objdump -d "$f" | awk '/^[0-9a-f]+ <.*>:$/ { fn = $2; gsub(/[<>:]/, "", fn); sub(/[.].*/, "", fn) }
                              /%[yz]mm/ { print fn }' | sort -u)
    stray=$(echo "$fns" | grep . | grep -vxF "$disp" || true)
    if [ -z "$stray" ]; then ok
    else bad "${f#"$D"}: ymm/zmm outside the dispatched kernels, in: $(echo $stray)"; fi
done
echo "  install: ymm/zmm only in the $(echo "$disp" | wc -l) functions of the dispatched x86 kernels" \
     "(the build tree's native libln_rt.a: $native such instructions throughout)"
m=tests/models/ds_cnn
if [ "$(uname -m)" = x86_64 ] && command -v qemu-x86_64 >/dev/null; then
    if "$D$P/bin/lightnet" "$m/model.onnx" -i "input=$m/input.bin" --save "output=$T/y.native" >/dev/null 2>"$T/q.err" &&
       qemu-x86_64 -cpu qemu64 "$D$P/bin/lightnet" "$m/model.onnx" -i "input=$m/input.bin" \
           --save "output=$T/y.qemu64" >/dev/null 2>>"$T/q.err"; then
        ok
        # float sums may round differently between the AVX-512 and portable kernels
        if od -An -v -f "$T/y.native" | tr -s ' ' '\n' | grep . >"$T/a" &&
           od -An -v -f "$T/y.qemu64" | tr -s ' ' '\n' | grep . >"$T/b" &&
           [ -s "$T/a" ] && paste "$T/a" "$T/b" | awk '{ d = $1 - $2; if (d < 0) d = -d; m = $1 < 0 ? -$1 : $1;
                 if (m < 1) m = 1; if (d > 1e-4 * m) bad = 1 } END { exit bad }' &&
           [ "$(wc -l <"$T/a")" -eq "$(wc -l <"$T/b")" ]; then ok; echo "  install: lightnet on a CPU without AVX (qemu64): DS-CNN as natively"
        else bad "lightnet under qemu64 gives other outputs than natively"; fi
    else bad "installed lightnet on a CPU without AVX (qemu-x86_64 -cpu qemu64): $(tail -3 "$T/q.err")"; fi
else bad "qemu-x86_64 missing (sh tools/setup.sh installs qemu-user): cannot run the installed tools without AVX"; fi

echo "install: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
