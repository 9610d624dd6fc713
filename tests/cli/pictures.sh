#!/bin/sh
# Pictures and tables for people (issue 19): `lightnet --mem-svg` and `--dot`
# of real models render to PNGs of a sane size (rsvg-convert, dot -Tpng),
# the SVG is well-formed XML that names its big buffers in <text> and
# numbers the rest in a legend, the dot hides constants unless --dot-weights
# and cuts a long graph into clusters; the --mem-report, --profile and
# ln-aot --report tables keep their columns with 100-character names, and
# --long prints the names whole.  pictures/long_names.onnx comes from
# pictures/make_models.py.  Needs graphviz, librsvg2-bin, python3
# (tools/setup.sh installs them).
# Usage: LN_BIN=build/bin sh tests/cli/pictures.sh   (from the repo root)
set -u
BIN=${LN_BIN:-build/bin}
LN="$BIN/lightnet"
PY=${PYTHON:-python3}
LONG=tests/cli/pictures/long_names.onnx
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }

for tool in rsvg-convert dot "$PY"; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "FAIL: pictures.sh needs $tool (sh tools/setup.sh installs graphviz librsvg2-bin)"
        exit 1
    fi
done

# png_size FILE MAX: the PNG's width and height, each at most MAX pixels
png_size() {
    "$PY" - "$1" "$2" <<'EOF'
import struct, sys
b = open(sys.argv[1], "rb").read(24)
assert b[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
w, h = struct.unpack(">II", b[16:24])
print("%dx%d" % (w, h))
sys.exit(0 if 0 < w <= int(sys.argv[2]) and 0 < h <= int(sys.argv[2]) else 1)
EOF
}

# svg_check SVG BIGGEST: well-formed; BIGGEST (if not empty) is the text of a
# <text>; every buffer (a <rect> with a <title>) is named in a <text> or is
# numbered ("N: name" in its title) and N is in the legend
svg_check() {
    "$PY" - "$1" "$2" <<'EOF'
import sys, xml.etree.ElementTree as E
ns = "{http://www.w3.org/2000/svg}"
root = E.parse(sys.argv[1]).getroot()
texts = ["".join(t.itertext()) for t in root.iter(ns + "text")]
if sys.argv[2] and sys.argv[2] not in texts:
    sys.exit("biggest buffer '%s' is not a <text>" % sys.argv[2])
nums = set(t.text for t in root.iter(ns + "text") if t.get("font-weight") == "bold")
n = 0
for r in root.iter(ns + "rect"):
    t = r.find(ns + "title")
    if t is None:
        continue
    n += 1
    name = t.text.split(" (")[0]
    if ": " in name.split("/")[0]:
        num = name.split(": ")[0]
        if num not in nums:
            sys.exit("buffer %s is numbered but not in the legend" % num)
    elif name not in texts:
        sys.exit("buffer '%s' is neither named nor numbered" % name)
if n < 3:
    sys.exit("only %d buffers drawn" % n)
EOF
}

# aligned FILE HEADER COLS...: the table under the line starting with
# HEADER (its rows: the lines after it with the same prefix, up to a line
# without digits or one with "took"): in every row each named header
# column ends (right-aligned) at the same character
aligned() {
    "$PY" - "$@" <<'EOF'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
head = sys.argv[2]
prefix = head.rstrip()[:len(head.rstrip()) - len(head.split()[-1])]
i = next(k for k, l in enumerate(lines) if l.startswith(head))
ends = [lines[i].index(c) + len(c) for c in sys.argv[3:]]
rows = 0
for l in lines[i + 1:]:
    if not l.startswith(prefix) or not any(ch.isdigit() for ch in l) or "took" in l:
        break
    for e in ends:
        if len(l) < e or not (l[e - 1].isdigit() or l[e - 1] == "%") or \
                (len(l) > e and l[e] != " "):
            sys.exit("misaligned at column %d: %r" % (e, l))
    rows += 1
if rows < 3:
    sys.exit("only %d rows" % rows)
EOF
}

# 1. the pictures of two real models and of a long model with long names
for m in tests/models/mobilenet_v1_025/model.onnx tests/models/ds_cnn/model.onnx "$LONG"; do
    b=$(basename "$(dirname "$m")")
    [ "$m" = "$LONG" ] && b=long_names
    if ! "$LN" -c -o "$T/$b.json" --mem-report --long --mem-svg "$T/$b.svg" --dot "$T/$b.dot" \
            "$m" >"$T/$b.rep" 2>"$T/err"; then
        bad "$b: lightnet --mem-svg --dot"; cat "$T/err"; continue
    fi
    # the biggest arena buffer (not shared, not the caller's) of the --long table
    big=$(awk '/^  tensor /{t=1; next} t && / arena$/ {
                   n = $(NF-3); if (n + 0 > max) { max = n + 0; name = $0 } }
               END { sub(/^  /, "", name); sub(/ +[0-9]+ +[0-9]+ +[0-9]+\.\.[0-9]+ +arena$/, "", name);
                     print name }' "$T/$b.rep")
    [ "$b" = long_names ] && big=""     # 100 characters: numbered, in the legend
    if msg=$(svg_check "$T/$b.svg" "$big" 2>&1); then ok; else bad "$b: --mem-svg: $msg"; fi
    if rsvg-convert "$T/$b.svg" -o "$T/$b.svg.png" 2>"$T/err" &&
       size=$(png_size "$T/$b.svg.png" 4000); then ok; else bad "$b: svg PNG ${size:-}"; cat "$T/err"; fi
    if dot -Tpng "$T/$b.dot" -o "$T/$b.dot.png" 2>"$T/err" &&
       size=$(png_size "$T/$b.dot.png" 4000); then ok; else bad "$b: dot PNG ${size:-}"; cat "$T/err"; fi
    if grep -q 'create_cpu' "$T/$b.dot"; then bad "$b: --dot draws constants"; else ok; fi
    for what in "arena" "lower bound" "peak" "op step"; do
        if grep -q "<text[^>]*>[^<]*$what" "$T/$b.svg"; then ok; else bad "$b: svg lacks '$what'"; fi
    done
done
# weights on request; the long graph in clusters; the title cut to fit
if "$LN" -c -o "$T/w.json" --dot "$T/w.dot" --dot-weights tests/models/ds_cnn/model.onnx 2>"$T/err" &&
   grep -q 'create_cpu' "$T/w.dot" && grep -q 'style=dashed' "$T/w.dot" &&
   dot -Tpng "$T/w.dot" -o "$T/w.png"; then ok; else bad "--dot-weights"; cat "$T/err"; fi
if grep -q 'subgraph cluster_1' "$T/long_names.dot"; then ok; else bad "long graph not clustered"; fi
D="$T/a_directory_with_a_name_long_enough_that_the_title_of_the_picture_would_run_off_its_right_edge_if_it_were_not_cut/and_another_one_to_be_sure"
mkdir -p "$D" && cp tests/models/ds_cnn/model.onnx "$D/"
if "$LN" -c -o "$T/t.json" --mem-svg "$T/t.svg" "$D/model.onnx" 2>"$T/err" && "$PY" -c '
import sys, xml.etree.ElementTree as E
r = E.parse(sys.argv[1]).getroot()
t = next(r.iter("{http://www.w3.org/2000/svg}text")).text
sys.exit(not ("..." in t and t.endswith("model.onnx") and len(t) * 8.6 < float(r.get("width"))))
' "$T/t.svg"; then ok; else bad "long title not cut to fit"; cat "$T/err"; fi
# XML and dot special characters and UTF-8 in names come through escaped
if grep -q '&lt;&amp;&gt;&quot;&apos;é' "$T/long_names.svg" &&
   grep -q "<&>\\\\\"'é" "$T/long_names.dot"; then ok; else bad "escaping of names"; fi

# 2. tables: aligned for any name length, cut in the middle, whole with --long
"$LN" -c -o "$T/l.json" --mem-report "$LONG" >"$T/rep" 2>"$T/err" || { bad "--mem-report"; cat "$T/err"; }
if msg=$(aligned "$T/rep" "  tensor" bytes offset "op steps" 2>&1); then ok; else bad "--mem-report: $msg"; fi
if grep -q '^  /backbone/stage_0/\.\.\.' "$T/rep" && ! grep -q 'with_a_very_long' "$T/rep"; then
    ok; else bad "--mem-report does not cut long names"; fi
if msg=$(aligned "$T/long_names.rep" "  tensor" bytes offset "op steps" 2>&1); then ok; else bad "--mem-report --long: $msg"; fi
full=/backbone/stage_1/inverted_residual_bottleneck_block_17/residual/with_a_very_long_exported_tensor_name_suffix/Add_output_0
if grep -qF "  $full " "$T/long_names.rep"; then ok; else bad "--long lacks the full name"; fi
"$LN" --profile=2 "$LONG" >"$T/prof" 2>"$T/err" || { bad "--profile"; cat "$T/err"; }
if msg=$(aligned "$T/prof" "  op " ms/run share 2>&1); then ok; else bad "--profile: $msg"; fi
"$LN" --profile=1 --long "$LONG" >"$T/profl" 2>"$T/err" || { bad "--profile --long"; cat "$T/err"; }
if grep -q '\.\.\.' "$T/prof" && msg=$(aligned "$T/profl" "  op " ms/run share 2>&1) &&
   grep -qF "/backbone/stage_2/inverted_residual_bottleneck_block_35/project/with_a_very_long_exported_tensor_name_suffix/Conv " "$T/profl"
then ok; else bad "--profile --long: ${msg:-}"; fi
"$BIN/ln-aot" --report -o "$T/l.c" "$LONG" 2>"$T/aot" || { bad "ln-aot --report"; cat "$T/aot"; }
if msg=$(aligned "$T/aot" "l: buffer" bytes offset "op steps" 2>&1) && grep -q '^l: peak: ' "$T/aot" &&
   ! grep -q 'with_a_very_long' "$T/aot"; then ok; else bad "ln-aot --report: ${msg:-}"; fi
"$BIN/ln-aot" --report --long -o "$T/l.c" "$LONG" 2>"$T/aot"
if msg=$(aligned "$T/aot" "l: buffer" bytes offset "op steps" 2>&1) &&
   grep -q '^l: /backbone/stage_0/inverted_residual_bottleneck_block_00/residual/with_a_very_long' "$T/aot"
then ok; else bad "ln-aot --report --long: ${msg:-}"; fi

# 3. errors stay one line and exit 1, with no file left behind
"$LN" -c -o "$T/x.json" --mem-svg "$T/nodir/p.svg" tests/models/ds_cnn/model.onnx >/dev/null 2>"$T/err"
if [ $? -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "nodir" "$T/err"; then ok; else bad "--mem-svg into a missing directory"; cat "$T/err"; fi
"$LN" --dot 2>"$T/err" >/dev/null
if [ $? -eq 1 ] && grep -q 'needs an argument' "$T/err"; then ok; else bad "--dot without FILE"; fi

echo "pictures: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
