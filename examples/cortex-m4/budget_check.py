#!/usr/bin/env python3
"""budget_check.py -- does `ln-aot --budget` predict what the linked
firmware holds?  (docs/firmware.md, "Budget: predicted vs linked")

Reads ln-aot's budget table (budget.txt), the linker map of fw-budget.elf
(the model linked with budget_main.c alone: its arena and buffers and one
call, no start-up, no printing, so every runtime and C library byte in it
is the model's) and the memory report's JSON of the real firmware (the
static stack of model_run), and compares what the model brings:

  flash  predicted: weights + requantization tables + kernel arguments +
         model code + runtime kernels + C library
         linked:    the model object's sections kept + the libln_rt.a
         sections kept + the libm/libc/libgcc sections kept (.text,
         .rodata, .data)
  RAM    predicted: arena + input and output buffers + runtime state + stack
         linked:    budget_arena + budget_in + budget_out + .data/.bss of
         the runtime and C library + the static stack of model_run (.su
         frames along the deepest call chain, tools/memreport.py)

and fails when a total is off by more than its margin: the larger of
MARGIN_PCT percent of the linked figure and MARGIN_BYTES.  Each line is
printed with its own difference, so a failure says which item drifted.
"""
import argparse
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import memreport  # noqa: E402  (parse_map, owner_of)



def read_budget(path):
    """{("ram"|"flash", label): bytes} from ln-aot's table."""
    items, part = {}, None
    with open(path) as f:
        for line in f:
            if re.match(r"^RAM\s+bytes", line):
                part = "ram"
            elif re.match(r"^flash\s+bytes", line):
                part = "flash"
            m = re.match(r"^  (\S.*?)\s+([\d,]+)(\s|$)", line)
            if part and m:
                items[(part, m.group(1))] = int(m.group(2).replace(",", ""))
    return items


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", required=True)
    ap.add_argument("--map", required=True)
    ap.add_argument("--report-json", required=True)
    ap.add_argument("--model-obj", required=True)
    ap.add_argument("--fw-objs", nargs="*", default=[])
    ap.add_argument("--name", default="model")
    ap.add_argument("--margin-pct", type=float, default=5.0)
    ap.add_argument("--margin-bytes", type=int, default=512)
    ap.add_argument("--json", help="write the figures here")
    args = ap.parse_args()

    pred = read_budget(args.budget)
    with open(args.report_json) as f:
        rep = json.load(f)
    mp = memreport.parse_map(args.map)

    class A:  # what memreport.owner_of wants
        model_obj = args.model_obj
        fw_objs = args.fw_objs

    libs = ("libc", "libm", "libgcc")
    flash = {"model": 0, "runtime": 0, "clib": 0}
    ram = {"arena": 0, "io": 0, "state": 0}
    for osec, info in mp.items():
        for insec, size, fname in info["inputs"]:
            if not size or insec == "*fill*":
                continue
            o = memreport.owner_of(fname, A)
            in_flash = osec in (".text", ".rodata", ".data", ".isr_vector")
            in_ram = osec in (".data", ".bss")
            if o == "model" and in_flash:
                flash["model"] += size
            elif o == "runtime" or o in libs:
                if in_flash:
                    flash["runtime" if o == "runtime" else "clib"] += size
                if in_ram:
                    ram["state"] += size
            elif o == "firmware":
                if insec == ".bss.budget_arena":
                    ram["arena"] += size
                elif insec in (".bss.budget_in", ".bss.budget_out"):
                    ram["io"] += size
    stack = rep.get("stack_static") or 0

    g = lambda part, label: pred.get((part, label), 0)
    p_model = g("flash", "weights") + g("flash", "requantization tables") + \
        g("flash", "kernel arguments") + g("flash", "model code")
    rows = [
        ("flash", "model (weights, tables, arguments, code)", p_model, flash["model"]),
        ("flash", "runtime kernels", g("flash", "runtime kernels"), flash["runtime"]),
        ("flash", "C library", g("flash", "C library"), flash["clib"]),
        ("RAM", "arena", g("ram", "arena"), ram["arena"]),
        ("RAM", "input and output buffers", g("ram", "input and output buffers"), ram["io"]),
        ("RAM", "runtime state", g("ram", "runtime state"), ram["state"]),
        ("RAM", "stack (static, .su)", g("ram", "stack"), stack),
    ]
    print("budget check: %s, ln-aot --budget vs the linked firmware (fw.map)" % args.name)
    print("  %-6s %-42s %10s %10s %8s" % ("", "item", "predicted", "linked", "diff"))
    totals, failed = {}, []
    for part, label, p, l in rows:
        print("  %-6s %-42s %10d %10d %+8d" % (part, label, p, l, p - l))
        t = totals.setdefault(part, [0, 0])
        t[0] += p
        t[1] += l
    for part in ("flash", "RAM"):
        p, l = totals[part]
        margin = max(args.margin_pct / 100.0 * l, args.margin_bytes)
        ok = abs(p - l) <= margin
        print("  %-6s %-42s %10d %10d %+8d  (%+.2f%%; margin %d bytes) %s"
              % (part, "total", p, l, p - l, 100.0 * (p - l) / l if l else 0.0, margin,
                 "ok" if ok else "FAILED"))
        if not ok:
            failed.append(part)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"name": args.name, "rows": rows, "totals": totals, "failed": failed}, f)
    if failed:
        print("budget check: %s: FAILED (%s off by more than the margin)"
              % (args.name, " and ".join(failed)))
        return 1
    print("budget check: %s: PASS" % args.name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
