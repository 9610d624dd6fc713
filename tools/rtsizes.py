#!/usr/bin/env python3
"""rtsizes.py -- the size table `ln-aot --budget` reads: what each kernel of
libln_rt costs in flash, RAM and stack on a target, measured from the
built library and the toolchain's C libraries.

It reads the ELF objects themselves (a small ELF32 reader below, no
pyelftools): every allocated input section of libln_rt.a becomes a node
(.text.ln_rt_conv2d_f32, .rodata.ukr_table ...) with its size and
alignment, and every relocation an edge (a call, or a reference to data or
to a function's address).  An undefined symbol is resolved the way the
link resolves it: libln_rt.a first, then libm.a, libc_nano.a and libgcc.a
of the target's multilib (the order examples/cortex-m4 links them in), so
the nodes of the C libraries that the runtime reaches (memset, expf,
__aeabi_ldivmod ...) are in the table too, and only those.  ln-aot then
walks the graph from the kernels a model calls: that is what
--gc-sections keeps.

Each code node also carries its stack frame, read from its prologue in
the disassembly (push, vpush, sub sp: what gcc's -fstack-usage reports
for these functions), and whether it calls through a register (blx rN:
ln-aot charges such a call the deepest function whose address is taken).

What it does not do: know the model's own code (ln-aot estimates it per
call) or alignment fill between sections beyond each section's own
alignment.

  tools/rtsizes.py --lib runtime/build-m4/libln_rt.a --target cortex-m4 \\
      --cc arm-none-eabi-gcc --cflags "-mcpu=cortex-m4 ..." -o src/auto/ln_budget_cortex_m4.h
"""
import argparse
import os
import re
import struct
import subprocess
import sys
import tempfile

CALL_RELOCS = {10, 30, 51, 52, 28, 29, 1, 102, 103}  # THM_CALL, THM_JUMP24/19 ...
# (R_ARM_THM_CALL 10, R_ARM_THM_JUMP24 30, R_ARM_THM_JUMP19 51,
#  R_ARM_THM_JUMP6 52, R_ARM_CALL 28, R_ARM_JUMP24 29, R_ARM_PC24 1,
#  R_ARM_THM_JUMP11 102, R_ARM_THM_JUMP8 103)
SHF_WRITE, SHF_ALLOC, SHF_EXEC = 1, 2, 4
SHT_PROGBITS, SHT_SYMTAB, SHT_NOBITS, SHT_REL = 1, 2, 8, 9


def run(cmd):
    return subprocess.run(cmd, check=True, stdout=subprocess.PIPE,
                          universal_newlines=True).stdout


# --------------------------------------------------------------------------
# ar and ELF32 (little endian), just what is needed


def ar_members(path):
    """[(member name, bytes)] of a System V / GNU ar archive."""
    with open(path, "rb") as f:
        data = f.read()
    if not data.startswith(b"!<arch>\n"):
        raise SystemExit("rtsizes: %s: not an ar archive" % path)
    pos, names, out = 8, b"", []
    while pos + 60 <= len(data):
        hdr = data[pos:pos + 60]
        name = hdr[:16].decode().strip()
        size = int(hdr[48:58].decode().strip())
        body = data[pos + 60:pos + 60 + size]
        pos += 60 + size + (size & 1)
        if name == "//":
            names = body
            continue
        if name in ("/", "/SYM64/"):
            continue
        if name.startswith("/") and name[1:].isdigit():
            off = int(name[1:])
            name = names[off:names.index(b"/\n", off)].decode()
        elif name.endswith("/"):
            name = name[:-1]
        out.append((name, body))
    return out


class Obj:
    """Sections, symbols and relocations of one ELF32 relocatable object."""

    def __init__(self, lib, member, data):
        self.lib, self.member = lib, member
        if data[:4] != b"\x7fELF" or data[4] != 1 or data[5] != 1:
            raise SystemExit("rtsizes: %s(%s): not a little-endian ELF32 object"
                             % (lib, member))
        shoff, = struct.unpack_from("<I", data, 0x20)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x2e)
        secs = []
        for i in range(shnum):
            secs.append(struct.unpack_from("<IIIIIIIIII", data, shoff + i * shentsize))
        strtab = secs[shstrndx]
        sname = lambda off: data[strtab[4] + off:data.index(b"\0", strtab[4] + off)].decode()
        # name, type, flags, size, align, link, info
        self.secs = [(sname(s[0]), s[1], s[2], s[5], s[8], s[6], s[7], s[4]) for s in secs]
        self.syms, self.rels = [], {}
        for i, (n, t, fl, size, al, link, info, off) in enumerate(self.secs):
            if t == SHT_SYMTAB:
                st = self.secs[link][7]
                for k in range(size // 16):
                    nm, val, sz, inf, oth, shn = struct.unpack_from("<IIIBBH", data, off + 16 * k)
                    name = data[st + nm:data.index(b"\0", st + nm)].decode()
                    # name, value, size, bind, type, shndx
                    self.syms.append((name, val, sz, inf >> 4, inf & 15, shn))
        for i, (n, t, fl, size, al, link, info, off) in enumerate(self.secs):
            if t == SHT_REL:
                rl = []
                for k in range(size // 8):
                    r_off, r_info = struct.unpack_from("<II", data, off + 8 * k)
                    rl.append((r_info >> 8, r_info & 0xff))
                self.rels[info] = rl

    def alloc(self, i):
        n, t, fl, size, al, link, info, off = self.secs[i]
        return (fl & SHF_ALLOC) and t in (SHT_PROGBITS, SHT_NOBITS) and size > 0


# --------------------------------------------------------------------------
# frames from the disassembly


def frames_of(lib):
    """({(member, section): frame bytes}, {(member, section) that calls
    through a register}) from objdump -d: the largest prologue frame of
    the functions in a section, and whether one of them has a blx rN."""
    out, member, sec, func, lines = {}, None, None, None, 0
    indirect = set()
    for line in run([CROSS + "objdump", "-d", "--no-show-raw-insn", lib]).splitlines():
        m = re.match(r"^(\S+\.o):\s+file format", line)
        if m:
            member = m.group(1)
            continue
        m = re.match(r"^Disassembly of section (\S+):", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"^[0-9a-f]+ <([^>]+)>:", line)
        if m:
            func, lines = m.group(1), 0
            key = (member, sec)
            out.setdefault(key, 0)
            cur = [0]
            continue
        if func is None:
            continue
        if re.search(r"\tblx\s+r\d+|\tblx\s+(ip|lr|sl|fp|sb)", line):
            indirect.add((member, sec))
        lines += 1
        if lines > 12:
            continue
        ins = line.split("\t")
        op = ins[1].strip() if len(ins) > 1 else ""
        args = ins[2] if len(ins) > 2 else ""
        add = 0
        if op.startswith("push") or (op.startswith("stmdb") and "sp!" in args):
            add = 4 * len(re.findall(r"r\d+|lr|ip|fp|sl|sb", args.split("{")[-1]))
        elif op.startswith("vpush"):
            for r in args.split("{")[-1].split("}")[0].split(","):
                r = r.strip()
                mm = re.match(r"([sd])(\d+)-[sd](\d+)", r)
                cnt = int(mm.group(3)) - int(mm.group(2)) + 1 if mm else 1
                add += cnt * (8 if r.startswith("d") else 4)
        elif op.startswith("sub") and (args.startswith("sp, sp, #") or args.startswith("sp, #")):
            add = int(args.split("#")[-1].split()[0], 0)
        if add:
            cur[0] += add
            key = (member, sec)
            out[key] = max(out[key], cur[0])
    return out, indirect


# --------------------------------------------------------------------------


def main():
    global CROSS
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lib", required=True, help="the target's libln_rt.a")
    ap.add_argument("--target", required=True, help="the ln-aot target name (cortex-m4)")
    ap.add_argument("--cc", default="arm-none-eabi-gcc")
    ap.add_argument("--cflags", default="", help="the runtime's architecture flags")
    ap.add_argument("--libs", default="libm.a libc_nano.a libgcc.a",
                    help="the C libraries, in link order")
    ap.add_argument("--header", default="runtime/include/ln_rt.h")
    ap.add_argument("-o", "--out", required=True)
    args = ap.parse_args()
    CROSS = args.cc[:-len("gcc")] if args.cc.endswith("gcc") else ""
    flags = args.cflags.split()

    libs = [("LN_BUDGET_RUNTIME", args.lib, os.path.relpath(args.lib))]
    kinds = {"libm.a": "LN_BUDGET_LIBM", "libc_nano.a": "LN_BUDGET_LIBC", "libc.a": "LN_BUDGET_LIBC",
             "libgcc.a": "LN_BUDGET_LIBGCC"}
    for l in args.libs.split():
        if l == "libgcc.a":
            p = run([args.cc] + flags + ["-print-libgcc-file-name"]).strip()
        else:
            p = run([args.cc] + flags + ["-print-file-name=" + l]).strip()
        if not os.path.isabs(p) or not os.path.exists(p):
            raise SystemExit("rtsizes: %s not found for %s %s" % (l, args.cc, args.cflags))
        libs.append((kinds[l], os.path.normpath(p), l))
    version = run([args.cc, "-dumpversion"]).strip()

    objs = []
    for kind, path, short in libs:
        for member, data in ar_members(path):
            if data[:4] == b"\x7fELF":
                o = Obj(short, member, data)
                o.kind = kind
                objs.append(o)
    # global definitions, first archive first (the link order)
    gdef = {}
    for oi, o in enumerate(objs):
        for si, (name, val, sz, bind, typ, shn) in enumerate(o.syms):
            if bind in (1, 2) and 0 < shn < 0xff00 and name not in gdef:
                if o.alloc(shn):
                    gdef[name] = (oi, shn)
    frames, indirect = {}, set()
    for kind, path, short in libs:
        fr_, ind_ = frames_of(path)
        for (member, sec), fr in fr_.items():
            frames[(short, member, sec)] = fr
        indirect.update((short, member, sec) for member, sec in ind_)

    def node_name(o, si):
        sec = o.secs[si][0]
        for pre in (".text.", ".text_"):
            if sec.startswith(pre) and o.kind == "LN_BUDGET_RUNTIME":
                return sec[len(pre):]
        funcs = [s[0] for s in o.syms if s[5] == si and s[4] == 2 and s[3] in (1, 2)]
        if sec.startswith(".text") and funcs:
            return sorted(funcs, key=len)[0]
        objs_ = [s[0] for s in o.syms if s[5] == si and s[4] == 1 and s[3] in (1, 2)]
        if objs_:
            return sorted(objs_, key=len)[0]
        return sec if o.kind == "LN_BUDGET_RUNTIME" else "%s(%s)" % (o.member, sec)

    def edges_of(oi, si):
        o = objs[oi]
        out = set()
        for symi, rtype in o.rels.get(si, []):
            name, val, sz, bind, typ, shn = o.syms[symi]
            if shn == 0:
                # a weak undefined reference pulls no archive member
                if name in gdef and bind != 2:
                    out.add((gdef[name], rtype in CALL_RELOCS))
                # an unresolved weak reference stays 0: nothing linked
            elif shn < 0xff00 and o.alloc(shn) and shn != si:
                out.add(((oi, shn), rtype in CALL_RELOCS))
        return out

    # every runtime section, and what of the C libraries they reach
    todo = [(oi, si) for oi, o in enumerate(objs) if o.kind == "LN_BUDGET_RUNTIME"
            for si in range(len(o.secs)) if o.alloc(si)]
    for extra in ("memcpy", "memset", "memmove"):   # the model's own code may call them
        if extra in gdef:
            todo.append(gdef[extra])
    seen, order = set(), []
    while todo:
        n = todo.pop(0)
        if n in seen:
            continue
        seen.add(n)
        order.append(n)
        for m, _ in sorted(edges_of(*n)):
            if m not in seen:
                todo.append(m)
    # runtime first, in name order; then the libraries' nodes by name
    order.sort(key=lambda n: (objs[n[0]].kind != "LN_BUDGET_RUNTIME", objs[n[0]].kind,
                              node_name(objs[n[0]], n[1]), objs[n[0]].member, n[1]))
    index = {n: i for i, n in enumerate(order)}

    rows, edges = [], []
    for n in order:
        o = objs[n[0]]
        name, typ, fl, size, al, link, info, off = o.secs[n[1]]
        kind = "text" if fl & SHF_EXEC else "bss" if typ == SHT_NOBITS else \
            "data" if fl & SHF_WRITE else "rodata"
        fr = frames.get((o.lib, o.member, name), 0) if kind == "text" else 0
        es = sorted({(index[m], call) for m, call in edges_of(*n) if m in index})
        ind = 1 if (o.lib, o.member, name) in indirect else 0
        rows.append((node_name(o, n[1]), o.kind, kind, size, max(al, 1), fr, ind, len(edges),
                     len(es)))
        edges.extend(es)

    # the kernel argument structs' sizes on the target
    structs = struct_sizes(args.cc, flags, args.header)

    with open(args.out + ".tmp", "w") as f:
        w = f.write
        w("/* GENERATED by tools/rtsizes.py from %s and the C libraries of\n"
          " * arm-none-eabi-gcc %s (%s) for %s -- do not edit; run\n"
          " * `make -C runtime %s-sizes`.\n"
          " *\n"
          " * Every allocated section of the runtime and of the C library pieces it\n"
          " * reaches: its bytes, alignment, stack frame (code) and the sections it\n"
          " * references (call: 1 when the reference is a call).  src/ln_budget.c\n"
          " * walks it from the kernels a model calls. */\n"
          % ("libln_rt.a (" + args.target + ")", version, " ".join(libs[i][2] for i in range(1, len(libs))),
             args.target, args.target.replace("cortex-", "")))
        sym = args.target.replace("-", "_")
        w("#define LN_BUDGET_%s_TOOLCHAIN \"arm-none-eabi-gcc %s\"\n\n" % (sym.upper(), version))
        w("static const ln_budget_node ln_budget_%s_nodes[] = {\n" % sym)
        w("    /* name, library, kind, bytes, align, frame, calls through a pointer,\n"
          "     * first edge, edges */\n")
        for r in rows:
            w('    {"%s", %s, LN_BUDGET_%s, %d, %d, %d, %d, %d, %d},\n'
              % (r[0], r[1], r[2].upper(), r[3], r[4], r[5], r[6], r[7], r[8]))
        w("};\n\n")
        w("static const ln_budget_edge ln_budget_%s_edges[] = {\n" % sym)
        for i in range(0, len(edges), 6):
            w("    " + " ".join("{%d, %d}," % e for e in edges[i:i + 6]) + "\n")
        if not edges:
            w("    {0, 0}\n")
        w("};\n\n")
        w("static const ln_budget_struct ln_budget_%s_structs[] = {\n" % sym)
        w("    /* type, bytes, align */\n")
        for name, sz, al in structs:
            w('    {"%s", %d, %d},\n' % (name, sz, al))
        w("};\n")
    os.replace(args.out + ".tmp", args.out)
    return 0


def struct_sizes(cc, flags, header):
    """[(type, sizeof, alignof)] of the ln_rt_ struct typedefs of ln_rt.h,
    compiled for the target: each as the size of an array in its own
    section, read back from the object."""
    with open(header) as f:
        text = f.read()
    names = sorted(set(re.findall(r"^\}\s*(ln_rt_\w+)\s*;", text, re.M)))
    names = [n for n in names if re.search(r"typedef struct[^;{]*\{[^}]*\}\s*" + n + r"\s*;",
                                             text, re.S)]
    src = ["#include <stddef.h>", '#include "ln_rt.h"']
    for n in names:
        src.append("struct al_%s { char c; %s x; };" % (n, n))
        src.append("const unsigned char sz_%s[sizeof(%s)] = {1};" % (n, n))
        src.append("const unsigned char al_%s[offsetof(struct al_%s, x)] = {1};" % (n, n))
    with tempfile.TemporaryDirectory() as d:
        c, o = os.path.join(d, "s.c"), os.path.join(d, "s.o")
        with open(c, "w") as f:
            f.write("\n".join(src) + "\n")
        run([cc] + flags + ["-std=c99", "-I" + os.path.dirname(header), "-fdata-sections",
                            "-c", c, "-o", o])
        with open(o, "rb") as f:
            ob = Obj("s.o", "s.o", f.read())
    sizes = {s[0]: s[2] for s in ob.syms if s[4] == 1}
    return [(n, sizes["sz_" + n], sizes["al_" + n]) for n in names]


CROSS = "arm-none-eabi-"
if __name__ == "__main__":
    sys.exit(main())
