#!/usr/bin/env python3
"""memreport.py -- what a LightNet model costs in a Cortex-M firmware.

Reads the artefacts examples/cortex-m4/Makefile leaves behind (the ELF, its
linker map, the model object, the header ln-aot wrote, the -fstack-usage
and -fcallgraph-info files) and prints, for an embedded developer:

  RAM    the arena and its lower bound (model.h), the caller's input and
         output buffers, the stack depth of NAME_run;
  flash  the model's code (.text of the model object) and constants
         (.rodata: weights and kernel arguments), the runtime functions the
         linker kept after --gc-sections, one by one, and everything else
         in the image (start-up, libc, libm, libgcc, alignment fill).

Nothing is hidden: every byte of every allocated output section of the ELF
is attributed to an input section of the map (or to fill), the per-owner
totals are checked against `arm-none-eabi-size -A` of the ELF, the model
object's totals against `arm-none-eabi-size` of model.o, and the runtime
objects that carry the stack-usage data against libln_rt.a (same function
sizes, so the same code).  A failed check exits with status 1.

Stack depth (static): the call graph from gcc's -fcallgraph-info=su (.ci
files, one per translation unit) with each function's frame from its .su
file; the depth of a function is its frame plus the deepest of its callees.
An indirect call (the runtime's GEMM engine calls its micro-kernel and
packers through pointers) may reach any function whose address is taken in
the linked objects (a relocation that is not a call: found with readelf -r)
and is charged the deepest of those.  Library functions (memset, memcpy,
expf, ...) have no .su: their frame is read from the prologue in the
ELF's disassembly (push / vpush / sub sp) and their callees from bl / b.w
to other functions.  Exception frames (SysTick, 104 bytes with the FPU
context) are not included.  The measured figure from the firmware (stack
painted, deepest word overwritten) is printed beside it when a run log is
given, and the static figure must not be smaller.

--check-gc: every ln_rt_ function in the ELF must be reachable from
NAME_run in that call graph (else dead kernel code was linked), and the
functions named by --require-absent must not be in the ELF at all.

--json FILE writes the figures as JSON (for tables and for comparing with
`ln-aot --report`); --table A.json B.json ... prints a Markdown table.
"""
import argparse
import json
import os
import re
import subprocess
import sys

CROSS = os.environ.get("CROSS", "arm-none-eabi-")
CALL_RELOCS = {"R_ARM_THM_CALL", "R_ARM_THM_JUMP24", "R_ARM_THM_JUMP19",
               "R_ARM_CALL", "R_ARM_JUMP24", "R_ARM_PC24",
               "R_ARM_THM_JUMP11", "R_ARM_THM_JUMP8", "R_ARM_V4BX",
               "R_ARM_NONE"}
failures = []


def run(*cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


def check(ok, what):
    print("  check: %-66s %s" % (what, "ok" if ok else "FAILED"))
    if not ok:
        failures.append(what)


# --------------------------------------------------------------------------
# Inputs


def read_header(path):
    """#define NAME value (integers) from the emitted header."""
    d = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"#define\s+(\w+)\s+\(?(-?\d+)\)?", line)
            if m:
                d[m.group(1)] = int(m.group(2))
    return d


def hdr(h, suffix):
    for k, v in h.items():
        if k.endswith("_" + suffix) and k.count("_") >= 1:
            # prefer the NAME_SUFFIX form, NAME being the model prefix
            return v
    return None


def size_sections(path):
    """arm-none-eabi-size -A: [(section, size, addr)]."""
    out = []
    for line in run(CROSS + "size", "-A", path).splitlines():
        m = re.match(r"^(\S+)\s+(\d+)\s+(\d+)\s*$", line)
        if m and m.group(1) != "Total":
            out.append((m.group(1), int(m.group(2)), int(m.group(3))))
    return out


def size_berkeley(path):
    """arm-none-eabi-size (Berkeley): (text, data, bss) summed."""
    t = d = b = 0
    for line in run(CROSS + "size", path).splitlines()[1:]:
        f = line.split()
        if len(f) >= 3 and f[0].isdigit():
            t, d, b = t + int(f[0]), d + int(f[1]), b + int(f[2])
    return t, d, b


def alloc_sections(elf):
    """Allocated sections of the ELF (readelf -S flag A)."""
    names = set()
    for line in run(CROSS + "readelf", "-SW", elf).splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+"
                     r"[0-9a-f]+\s+[0-9a-f]+\s+(\S*)", line)
        if m and "A" in m.group(2):
            names.add(m.group(1))
    return names


def parse_map(path):
    """Input sections of each output section from a GNU ld map:
    {outsec: {"addr", "size", "inputs": [(insec, size, file)]}}."""
    out, cur, pending = {}, None, None
    started = False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not started:
                started = line.startswith("Linker script and memory map")
                continue
            if line.startswith("Cross Reference Table"):
                break
            m = re.match(r"^(\.\S+|\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)"
                         r"(\s+load address 0x[0-9a-f]+)?\s*$", line)
            if m and not line.startswith(" "):
                cur = m.group(1)
                out[cur] = {"addr": int(m.group(2), 16),
                            "size": int(m.group(3), 16), "inputs": []}
                pending = None
                continue
            m = re.match(r"^(\.\S+)\s*$", line)
            if m:  # output section whose address is on the next line
                cur = m.group(1)
                out[cur] = {"addr": None, "size": None, "inputs": []}
                pending = "out"
                continue
            if pending == "out":
                m = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)", line)
                if m:
                    out[cur]["addr"] = int(m.group(1), 16)
                    out[cur]["size"] = int(m.group(2), 16)
                pending = None
                continue
            if cur is None:
                continue
            m = re.match(r"^ \*fill\*\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)", line)
            if m:
                out[cur]["inputs"].append(("*fill*", int(m.group(2), 16), ""))
                continue
            m = re.match(r"^ (\S+)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(.*\S)\s*$", line)
            if m and not m.group(1).startswith("0x"):
                out[cur]["inputs"].append((m.group(1), int(m.group(3), 16),
                                           m.group(4)))
                pending = None
                continue
            m = re.match(r"^ (\S+)\s*$", line)
            if m and not m.group(1).startswith("*") and not m.group(1).startswith("0x"):
                pending = m.group(1)
                continue
            if pending:
                m = re.match(r"^\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(.*\S)\s*$", line)
                if m:
                    out[cur]["inputs"].append((pending, int(m.group(2), 16),
                                               m.group(3)))
                pending = None
    return out


def discarded(path, obj):
    """[(input section, size)] of obj that --gc-sections dropped."""
    out, pending, on = [], None, False
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("Discarded input sections"):
                on = True
                continue
            if line.startswith("Memory Configuration"):
                break
            if not on:
                continue
            m = re.match(r"^ (\S+)\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(.*\S)\s*$", line)
            if m:
                name, size, fname = m.group(1), int(m.group(2), 16), m.group(3)
            else:
                m = re.match(r"^ (\S+)\s*$", line)
                if m:
                    pending = m.group(1)
                    continue
                m = re.match(r"^\s+0x[0-9a-f]+\s+0x([0-9a-f]+)\s+(.*\S)\s*$", line)
                if not (m and pending):
                    continue
                name, size, fname = pending, int(m.group(1), 16), m.group(2)
            pending = None
            if size and os.path.abspath(fname) == os.path.abspath(obj):
                out.append((name, size))
    return out


def text_sections(path):
    """{(member, function): size} of the .text.<function> sections of an
    object or archive (readelf -S), and {member: disassembly}."""
    d, obj = {}, os.path.basename(path)
    for line in run(CROSS + "readelf", "-SW", path).splitlines():
        m = re.match(r"^File: .*\((.*)\)$", line)
        if m:
            obj = m.group(1)
            continue
        m = re.match(r"\s*\[\s*\d+\]\s+\.text\.(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+"
                     r"([0-9a-f]+)", line)
        if m:
            d[(obj, m.group(1))] = int(m.group(2), 16)
    dis, cur = {}, os.path.basename(path)
    for line in run(CROSS + "objdump", "-d", path).splitlines():
        m = re.match(r"^In archive|^(\S+\.o):\s+file format", line)
        if m:
            if m.group(1):
                cur = os.path.basename(m.group(1))
            continue
        if line.strip():
            dis.setdefault(cur, []).append(line)
    dis = {k: v for k, v in dis.items() if k.endswith(".o")}
    return d, dis


def elf_functions(elf):
    """{name: (addr, size)} of FUNC symbols in the ELF."""
    d = {}
    for line in run(CROSS + "readelf", "-sW", elf).splitlines():
        f = line.split()
        if len(f) >= 8 and f[3] == "FUNC" and f[6] != "UND":
            d[f[7]] = (int(f[1], 16) & ~1, int(f[2]))
    return d


def parse_su(paths):
    frames = {}
    for p in paths:
        if not os.path.exists(p):
            continue
        tu = os.path.splitext(os.path.basename(p))[0]
        with open(p) as f:
            for line in f:
                parts = line.rstrip("\n").split("\t")
                if len(parts) < 3:
                    continue
                fn = parts[0].rsplit(":", 1)[-1]
                frames[(tu, fn)] = (int(parts[1]), parts[2])
    return frames


def local(title):
    """gcc titles a static function "file.c:name" in the .ci."""
    return title.rsplit(":", 1)[-1]


def parse_ci(paths):
    """(defined {(tu, fn)}, edges {(tu, fn): [callee name]})."""
    defined, edges = set(), {}
    for p in paths:
        if not os.path.exists(p):
            continue
        tu = os.path.splitext(os.path.basename(p))[0]
        with open(p) as f:
            for line in f:
                m = re.match(r'node: \{ title: "([^"]+)" label: "([^"]*)"', line)
                if m and "bytes" in m.group(2):
                    defined.add((tu, local(m.group(1))))
                m = re.match(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"', line)
                if m:
                    edges.setdefault((tu, local(m.group(1))), []).append(local(m.group(2)))
    return defined, edges


def address_taken(objs):
    """Functions whose address a relocation other than a call takes (in
    any of objs: a table in one object may point at another's function)."""
    taken = set()
    objs = [o for o in objs if os.path.exists(o)]
    funcs = set()
    for o in objs:
        for line in run(CROSS + "readelf", "-sW", o).splitlines():
            f = line.split()
            if len(f) >= 8 and f[3] == "FUNC":
                funcs.add(f[7])
    for o in objs:
        sec = None
        for line in run(CROSS + "readelf", "-rW", o).splitlines():
            m = re.match(r"Relocation section '\.rel(\S*)'", line)
            if m:
                sec = m.group(1)
                # code and constants only: not .ARM.exidx, not debug info
                if not re.match(r"\.(text|rodata|data)", sec):
                    sec = None
                continue
            if sec is None:
                continue
            f = line.split()
            if len(f) >= 5 and re.match(r"[0-9a-f]{8}$", f[0]):
                rtype, sym = f[2], f[4]
                if rtype in CALL_RELOCS:
                    continue
                if sym.startswith(".text."):
                    if sec == sym:  # a switch table inside the function
                        continue
                    sym = sym[len(".text."):]
                if sym in funcs:
                    taken.add(sym)
    return taken


def disasm_frames(elf, names):
    """Frame and callees of functions without .su, from the disassembly."""
    text = run(CROSS + "objdump", "-d", "--no-show-raw-insn", elf)
    funcs, cur = {}, None
    for line in text.splitlines():
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            cur = m.group(1)
            funcs[cur] = []
            continue
        if cur and line.strip():
            funcs[cur].append(line)
    out = {}
    for n in names:
        body = funcs.get(n)
        if body is None:
            continue
        frame, callees = 0, set()
        for i, line in enumerate(body):
            ins = line.split("\t")
            op = ins[1].strip() if len(ins) > 1 else ""
            args = ins[2] if len(ins) > 2 else ""
            if i < 12:
                if op.startswith("push") or op.startswith("stmdb") and "sp!" in args:
                    frame += 4 * len(re.findall(r"r\d+|lr|ip|fp", args.split("{")[-1]))
                elif op.startswith("vpush"):
                    regs = args.split("{")[-1].split("}")[0]
                    for r in regs.split(","):
                        r = r.strip()
                        mm = re.match(r"([sd])(\d+)-[sd](\d+)", r)
                        if mm:
                            cnt = int(mm.group(3)) - int(mm.group(2)) + 1
                        else:
                            cnt = 1
                        frame += cnt * (8 if r.startswith("d") else 4)
                elif op.startswith("sub") and args.startswith("sp, sp, #") or \
                        op.startswith("sub") and args.startswith("sp, #"):
                    frame += int(args.split("#")[-1].split()[0], 0)
            m = re.search(r"<([^>+]+)>", args)
            if m and (op.startswith("bl") or op.startswith("b.w") or op == "b") \
                    and m.group(1) != n:
                callees.add(m.group(1))
        out[n] = (frame, sorted(callees))
    return out


# --------------------------------------------------------------------------
# Attribution


def owner_of(fname, args):
    if not fname:
        return "fill"
    base = os.path.basename(fname)
    if os.path.abspath(fname) == os.path.abspath(args.model_obj):
        return "model"
    if "libln_rt.a(" in fname:
        return "runtime"
    if any(os.path.abspath(fname) == os.path.abspath(o) for o in args.fw_objs):
        return "firmware"
    if re.search(r"libc(_nano)?\.a\(", fname):
        return "libc"
    if re.search(r"libm\.a\(", fname):
        return "libm"
    if re.search(r"libgcc\.a\(", fname):
        return "libgcc"
    if re.match(r"crt\w*\.o$", base):
        return "crt"
    return "other"


def function_of(insec):
    for p in (".text.", ".rodata.", ".data.", ".bss."):
        if insec.startswith(p):
            name = insec[len(p):]
            return name[len("startup."):] if name.startswith("startup.") else name
    return insec


# --------------------------------------------------------------------------


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--name", default="model")
    ap.add_argument("--elf")
    ap.add_argument("--map")
    ap.add_argument("--model-obj")
    ap.add_argument("--header")
    ap.add_argument("--run-fn", default=None,
                    help="the run function (default: <prefix>_run from the .ci)")
    ap.add_argument("--su", nargs="*", default=[])
    ap.add_argument("--rt-lib")
    ap.add_argument("--rt-objs", nargs="*", default=[])
    ap.add_argument("--fw-objs", nargs="*", default=[])
    ap.add_argument("--run-log")
    ap.add_argument("--aot-report", help="ln-aot --report output to compare with")
    ap.add_argument("--check-gc", action="store_true")
    ap.add_argument("--require-absent", nargs="*", default=[])
    ap.add_argument("--json")
    ap.add_argument("--table", nargs="*")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args()

    if args.table is not None:
        return print_table(args.table)

    h = read_header(args.header)
    prefix = None
    for k in h:
        if k.endswith("_ARENA_SIZE"):
            prefix = k[:-len("_ARENA_SIZE")]
    arena = h.get(prefix + "_ARENA_SIZE")
    lower = h.get(prefix + "_ARENA_LOWER_BOUND")
    weights_hdr = h.get(prefix + "_WEIGHTS_SIZE")
    in_elems = [h[k] for k in sorted(h) if re.match(prefix + r"_INPUT\d+_SIZE$", k)]
    out_elems = [h[k] for k in sorted(h) if re.match(prefix + r"_OUTPUT\d+_SIZE$", k)]
    run_fn = args.run_fn or prefix.lower() + "_run"

    mp = parse_map(args.map)
    alloc = alloc_sections(args.elf)
    elf_secs = {n: (s, a) for n, s, a in size_sections(args.elf)}
    elf_funcs = elf_functions(args.elf)

    # Per owner, per output section; runtime and model per input section.
    owners = {}
    rt_items, model_items = {}, {}
    for osec, info in mp.items():
        if osec not in alloc:
            continue
        total = 0
        for insec, size, fname in info["inputs"]:
            if size == 0:
                continue
            o = "heap" if osec == ".heap" else \
                "fill" if insec == "*fill*" else owner_of(fname, args)
            owners.setdefault(o, {}).setdefault(osec, 0)
            owners[o][osec] += size
            total += size
            if o == "runtime":
                kind = "text" if insec.startswith(".text") else "rodata" \
                    if insec.startswith(".rodata") else osec.lstrip(".")
                key = function_of(insec)
                rt_items.setdefault(key, {}).setdefault(kind, 0)
                rt_items[key][kind] += size
            if o == "model":
                model_items[insec] = size
        gap = info["size"] - total
        if gap:
            owners.setdefault("fill", {}).setdefault(osec, 0)
            owners["fill"][osec] += gap  # section-end alignment (ALIGN)

    def owner_sum(o, secs=None):
        return sum(v for s, v in owners.get(o, {}).items()
                   if secs is None or s in secs)

    flash_secs = [s for s in elf_secs if s in alloc and s not in (".bss", ".heap")
                  and not s.startswith(".stack")]
    ram_only = [s for s in elf_secs if s in (".bss", ".heap")]

    # Model object alone.
    mo = size_sections(args.model_obj)
    mo_text = sum(s for n, s, _ in mo if n.startswith(".text"))
    mo_rodata = sum(s for n, s, _ in mo if n.startswith(".rodata"))
    mo_data = sum(s for n, s, _ in mo if n.startswith(".data"))
    mo_bss = sum(s for n, s, _ in mo if n.startswith(".bss"))
    mo_b = size_berkeley(args.model_obj)
    linked_model_text = sum(v for k, v in model_items.items() if k.startswith(".text"))
    linked_model_rodata = sum(v for k, v in model_items.items() if k.startswith(".rodata"))
    model_dropped = discarded(args.map, args.model_obj)

    rt_text = sum(v.get("text", 0) for v in rt_items.values())
    rt_rodata = sum(v.get("rodata", 0) for v in rt_items.values())
    rt_other = sum(v for it in rt_items.values() for k, v in it.items()
                   if k not in ("text", "rodata"))

    # ---- stack ------------------------------------------------------------
    su_paths = list(args.su)
    ci_paths = [os.path.splitext(p)[0] + ".ci" for p in su_paths]
    frames = parse_su(su_paths)
    defined, edges = parse_ci(ci_paths)
    by_name = {}
    for tu, fn in defined:
        by_name.setdefault(fn, []).append((tu, fn))
    taken = address_taken([args.model_obj] + list(args.rt_objs))
    taken = {t for t in taken if t in elf_funcs}
    lib_needed = set()
    memo, lib = {}, {}

    def resolve(tu, name):
        if (tu, name) in defined:
            return [(tu, name)]
        return by_name.get(name, [])

    def depth(node, stack=()):
        """(bytes, path) of the deepest chain from node; node is (tu, fn)
        for compiled code or ("", fn) for library code."""
        if node in memo:
            return memo[node]
        if node in stack:
            return (float("inf"), [node[1] + " (recursion)"])
        tu, fn = node
        if tu:
            fr = frames.get(node, (None, ""))[0]
            if fr is None:
                return (0, [fn + " (no .su)"])
            targets = []
            for callee in edges.get(node, []):
                if callee == "__indirect_call":
                    for t in sorted(taken):
                        targets.extend(resolve("", t) or [("", t)])
                else:
                    r = resolve(tu, callee)
                    targets.extend(r if r else [("", callee)])
        else:
            lib_needed.add(fn)
            if fn not in lib:
                lib.update(disasm_frames(args.elf, [fn]))
            if fn not in lib:
                memo[node] = (0, [fn + " (not in the ELF)"])
                return memo[node]
            fr, callees = lib[fn]
            targets = []
            for c in callees:
                targets.extend(resolve("", c) or [("", c)])
        best = (0, [])
        for t in set(targets):
            d = depth(t, stack + (node,))
            if d[0] > best[0]:
                best = d
        memo[node] = (fr + best[0], ["%s (%d)" % (fn, fr)] + best[1])
        return memo[node]

    roots = by_name.get(run_fn, [])
    stack_bytes, stack_path = depth(roots[0]) if roots else (None, [])

    measured = None
    insns = None
    log_pass = None
    if args.run_log and os.path.exists(args.run_log):
        with open(args.run_log) as f:
            log = f.read()
        m = re.search(r"^stack: (\d+) bytes", log, re.M)
        measured = int(m.group(1)) if m else None
        m = re.search(r"^instructions: (\d+)", log, re.M)
        insns = int(m.group(1)) if m else None
        log_pass = bool(re.search(r"^PASS$", log, re.M))

    # ---- the call graph's reach, for --check-gc ---------------------------
    reach = set()

    def walk(node):
        if node in reach:
            return
        reach.add(node)
        tu, fn = node
        if tu:
            for callee in edges.get(node, []):
                if callee == "__indirect_call":
                    for t in taken:
                        for r in resolve("", t) or [("", t)]:
                            walk(r)
                else:
                    for r in resolve(tu, callee) or [("", callee)]:
                        walk(r)
        else:
            if fn not in lib:
                lib.update(disasm_frames(args.elf, [fn]))
            for c in lib.get(fn, (0, []))[1]:
                for r in resolve("", c) or [("", c)]:
                    walk(r)
    for r in roots:
        walk(r)
    reach_names = {fn for _, fn in reach}

    # ---- print ------------------------------------------------------------
    p = print
    p("Memory report: %s (Cortex-M4, arm-none-eabi-gcc -O2, --gc-sections)" % args.name)
    p("")
    p("RAM")
    p("  arena                 %9d bytes   (%s_ARENA_SIZE, static array in .bss)" % (arena, prefix))
    p("  arena lower bound     %9d bytes   (%s_ARENA_LOWER_BOUND; arena/bound = %.3f)"
      % (lower, prefix, arena / lower if lower else float("nan")))
    io_in = 4 * sum(in_elems)
    io_out = 4 * sum(out_elems)
    p("  input buffers         %9d bytes   (caller's; %s floats)" % (io_in, "+".join(map(str, in_elems))))
    p("  output buffers        %9d bytes   (caller's; %s floats)" % (io_out, "+".join(map(str, out_elems))))
    p("  model RAM total       %9d bytes   (arena + input + output)" % (arena + io_in + io_out))
    if stack_bytes is not None:
        p("  stack of %-12s  %9s bytes   (static: .su frames along the deepest call chain)"
          % (run_fn, stack_bytes))
        p("      " + " -> ".join(stack_path))
    if measured is not None:
        p("  stack measured        %9d bytes   (painted stack, deepest word written)" % measured)
    p("  model writable data   %9d bytes   (.data + .bss of the model object)" % (mo_data + mo_bss))
    p("")
    p("Flash")
    p("  model code            %9d bytes   (.text of model.o; %d linked)" % (mo_text, linked_model_text))
    for n, sz in model_dropped:
        p("      %s (%d bytes): not called, dropped by --gc-sections" % (n, sz))
    p("  model constants       %9d bytes   (.rodata of model.o: weights %s + kernel arguments %s)"
      % (mo_rodata, weights_hdr, mo_rodata - weights_hdr if weights_hdr is not None else "?"))
    p("  runtime code          %9d bytes   (.text of the libln_rt functions kept, %d functions)"
      % (rt_text, sum(1 for v in rt_items.values() if v.get("text"))))
    p("  runtime constants     %9d bytes   (.rodata of libln_rt)" % rt_rodata)
    if rt_other:
        p("  runtime data/bss      %9d bytes" % rt_other)
    p("")
    p("Runtime functions linked (after --gc-sections)      .text   frame  public?")
    for name in sorted(rt_items, key=lambda k: -rt_items[k].get("text", 0)):
        it = rt_items[name]
        if not it.get("text"):
            continue
        fr = [v[0] for (tu, fn), v in frames.items() if fn == name]
        p("  %-48s %6d  %6s  %s" % (name, it["text"], fr[0] if fr else "-",
                                     "kernel" if re.match(r"ln_rt_[a-z]", name) else ""))
    for name in sorted(rt_items):
        it = rt_items[name]
        for k, v in sorted(it.items()):
            if k != "text":
                p("  %-48s %6d  (%s)" % (name, v, k))
    p("")
    p("Whole image (bytes per owner and output section, from the map)")
    secs = [s for s in elf_secs if s in alloc]
    p("  %-10s" % "owner" + "".join("%12s" % s for s in secs) + "%12s" % "total")
    order = ["model", "runtime", "firmware", "libc", "libm", "libgcc", "crt", "other", "heap", "fill"]
    col = {s: 0 for s in secs}
    for o in order:
        if o not in owners:
            continue
        row = [owners[o].get(s, 0) for s in secs]
        for s, v in zip(secs, row):
            col[s] += v
        p("  %-10s" % o + "".join("%12d" % v for v in row) + "%12d" % sum(row))
    p("  %-10s" % "sum" + "".join("%12d" % col[s] for s in secs) + "%12d" % sum(col.values()))
    p("  %-10s" % "ELF" + "".join("%12d" % elf_secs[s][0] for s in secs)
      + "%12d" % sum(elf_secs[s][0] for s in secs))
    fl = sum(elf_secs[s][0] for s in flash_secs)
    ram = sum(elf_secs[s][0] for s in elf_secs if s in alloc and s not in flash_secs) \
        + (elf_secs[".data"][0] if ".data" in elf_secs else 0)
    p("  flash image %d bytes (%s); RAM %d bytes (.data + .bss + .heap) + stack"
      % (fl, " ".join(flash_secs), ram))
    p("")
    p("arm-none-eabi-size")
    for line in run(CROSS + "size", args.model_obj, args.elf).splitlines():
        p("  " + line)
    p("")
    p("Checks")
    for s in secs:
        check(col[s] == elf_secs[s][0],
              "map attribution of %s == size -A of the ELF (%d)" % (s, elf_secs[s][0]))
    check(mo_b[0] == mo_text + mo_rodata,
          "size(model.o) text %d == .text %d + .rodata %d" % (mo_b[0], mo_text, mo_rodata))
    check(mo_data + mo_bss == 0, "the model object writes no global state (.data + .bss = 0)")
    dropped = sum(sz for _, sz in model_dropped)
    check(linked_model_text + linked_model_rodata + dropped == mo_text + mo_rodata,
          "model.o = linked %d + dropped by --gc-sections %d"
          % (linked_model_text + linked_model_rodata, dropped))
    if weights_hdr is not None:
        check(weights_hdr <= mo_rodata,
              "%s_WEIGHTS_SIZE %d <= .rodata of model.o" % (prefix, weights_hdr))
    check(owner_sum("model") == linked_model_text + linked_model_rodata,
          "model bytes in the ELF == linked model sections (%d)" % owner_sum("model"))
    if args.rt_lib and args.rt_objs:
        lib_sizes, lib_dis = text_sections(args.rt_lib)
        su_sizes, su_dis = {}, {}
        for o in args.rt_objs:
            if os.path.exists(o):
                a, b = text_sections(o)
                su_sizes.update(a)
                su_dis.update(b)
        same = su_sizes == lib_sizes and su_dis == lib_dis
        check(same, "stack-usage build of the runtime == libln_rt.a (same code, %d functions)"
              % len(lib_sizes))
        lib_text = {fn: sz for (_, fn), sz in lib_sizes.items()}
        diff = [fn for fn, it in rt_items.items()
                if it.get("text") and lib_text.get(fn) != it.get("text")]
        linked_same = not diff
        check(linked_same, "each linked runtime function has its libln_rt.a size"
              + ("" if not diff else ": " + " ".join(diff)))
    if args.aot_report and os.path.exists(args.aot_report):
        with open(args.aot_report) as f:
            rep = f.read()
        m = re.search(r"arena (\d+) bytes \(lower bound (\d+)\)", rep)
        check(bool(m) and (int(m.group(1)), int(m.group(2))) == (arena, lower),
              "ln-aot --report arena and lower bound == model.h")
        m = re.search(r"constants (\d+) bytes", rep)
        check(bool(m) and int(m.group(1)) == weights_hdr,
              "ln-aot --report constants == %s_WEIGHTS_SIZE" % prefix)
    if measured is not None and stack_bytes is not None:
        check(stack_bytes >= measured,
              "static stack %d >= measured %d" % (stack_bytes, measured))
    if args.check_gc:
        linked_rt = sorted(fn for fn in elf_funcs if fn.startswith("ln_rt_"))
        dead = [fn for fn in linked_rt if fn not in reach_names]
        check(not dead, "every linked ln_rt_ function is reachable from %s (%d)"
              % (run_fn, len(linked_rt)) + ("" if not dead else ": dead " + " ".join(dead)))
        for fn in args.require_absent:
            present = [f for f in elf_funcs if f == fn or
                       (fn.endswith("*") and f.startswith(fn[:-1]))]
            check(not present, "%s is not linked" % fn
                  + ("" if not present else ": found " + " ".join(sorted(present))))
        calls = sorted({c for (tu, f), cs in edges.items() if f == run_fn for c in cs})
        p("  %s calls: %s" % (run_fn, " ".join(calls)))

    if args.json:
        res = {
            "name": args.name, "arena": arena, "arena_lower_bound": lower,
            "input_bytes": io_in, "output_bytes": io_out,
            "weights": weights_hdr, "model_rodata": mo_rodata, "model_text": mo_text,
            "model_text_linked": linked_model_text,
            "runtime_text": rt_text, "runtime_rodata": rt_rodata,
            "runtime_functions": {k: v.get("text", 0) for k, v in rt_items.items()},
            "stack_static": stack_bytes, "stack_path": stack_path,
            "stack_measured": measured, "instructions": insns, "pass": log_pass,
            "elf_flash": fl, "elf_ram_static": ram,
            "elf_data_bss": sum(elf_secs[x][0] for x in (".data", ".bss") if x in elf_secs), "checks_failed": failures,
        }
        with open(args.json, "w") as f:
            json.dump(res, f, indent=1)
    if failures:
        p("memreport: %d check(s) failed" % len(failures))
        return 1
    return 0


def print_table(paths):
    print("| model | result | instructions / inference | arena (bytes) | lower bound | "
          "weights (flash) | other model constants | model code | runtime code + const "
          "(functions) | stack static / measured | flash image | RAM (.data+.bss) |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for p in paths:
        with open(p) as f:
            r = json.load(f)
        print("| %s | %s | %s | %d | %d | %d | %d | %d | %d + %d (%d) | %s / %s | %d | %d |" % (
            r["name"], "PASS" if r["pass"] else "FAIL",
            "{:,}".format(r["instructions"]) if r["instructions"] else "-",
            r["arena"], r["arena_lower_bound"], r["weights"],
            r["model_rodata"] - r["weights"], r["model_text_linked"],
            r["runtime_text"], r["runtime_rodata"],
            sum(1 for v in r["runtime_functions"].values() if v),
            r["stack_static"], r["stack_measured"], r["elf_flash"], r["elf_data_bss"]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
