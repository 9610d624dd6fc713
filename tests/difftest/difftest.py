#!/usr/bin/env python3
"""The differential tester: random graphs (tests/difftest/gen.py) run six
ways, all of which must agree.

  plan     the interpreter, default compile (folding, fusion) and memory plan
  noreuse  the same compile with a no-reuse plan (no tensor shares bytes)
  O0       the interpreter with the expander only: no folding, no fusion
  io       the default compile with graph inputs and outputs in the arena
  aot      ln-aot's C, compiled with cc and linked with libln_rt
  ort      ONNX Runtime (onnxruntime-node), the reference nobody here wrote

Usage: difftest.py --seed S --n N [--bin build/bin] [--runner R] [--work DIR]
                   [--rt LIB] [--aot-cflags FLAGS] [--batch 250] [--jobs 2] [--keep]

noreuse, io and aot must be bit-exact with plan (the same kernels on the
same data; only placement differs), O0 within a tight tolerance of plan
(fusion and folding change the rounding), and every config within float32
tolerance of ONNX Runtime.  The interpreter configs and the ln-aot program
each run twice, on memory filled with different bytes, and must give the
same bits both times.  Any disagreement, crash, sanitizer report or
unexpected error fails, naming the seed and the command that reruns it
alone.  A graph LightNet refuses with a clear error (every LightNet config,
exit status 1 from ln-aot) is counted as refused, by reason.
Exit status: 0 all agreed (or refused), 1 a failure.
"""
import argparse, collections, json, os, re, shutil, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

INTERP = ["plan", "noreuse", "O0", "io"]
LN = INTERP + ["aot"]
CFGS = LN + ["ort"]
EXACT = ["noreuse", "io", "aot"]          # bit-exact with plan
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# float32 tolerances: against ONNX Runtime, and O0 against plan.  O0 and
# plan round differently where the passes change the arithmetic (a folded
# batchnorm scales the weights; a fused activation): seed 27000, 51 ops with
# two folds, came to 1.03 x a 1e-5 tolerance with plan and O0 equally far
# from ONNX Runtime on either side of it (0.2 x its tolerance); the next
# worst of 30,000 graphs was 0.42 x.  3e-5 keeps O0 against plan three
# times tighter than the reference.
RTOL, ATOL = 1e-4, 1e-4
RTOL_O0, ATOL_O0 = 3e-5, 3e-5
SAN_RE = re.compile(r"runtime error:|ERROR: AddressSanitizer|ERROR: LeakSanitizer|"
                    r"SUMMARY: UndefinedBehaviorSanitizer")


def diff_ratio(a, b, rtol, atol, scale):
    """The worst |a - b| / (atol * max(1, scale) + rtol * |b|) over the
    finite elements (agreement: <= 1), or inf when a NaN or an infinity of
    one is not the same in the other."""
    fa, fb = np.isfinite(a), np.isfinite(b)
    if not np.array_equal(fa, fb):
        return float("inf")
    nf = ~fa
    if nf.any():
        if not np.array_equal(np.isnan(a[nf]), np.isnan(b[nf])):
            return float("inf")
        ia, ib = a[nf], b[nf]
        if not np.array_equal(ia[~np.isnan(ia)], ib[~np.isnan(ib)]):
            return float("inf")
    if not fa.any():
        return 0.0
    a64, b64 = a[fa].astype(np.float64), b[fa].astype(np.float64)
    return float(np.max(np.abs(a64 - b64) / (atol * max(1.0, scale) + rtol * np.abs(b64))))


def write_graph(d, seed):
    m, ins = gen.gen(seed)
    os.makedirs(d, exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for k, (name, v) in enumerate(ins):
        v.tofile(os.path.join(d, "in_%d.bin" % k))
        with open(os.path.join(d, "shape_%d.json" % k), "w") as f:
            json.dump(list(v.shape), f)
    with open(os.path.join(d, "inputs.txt"), "w") as f:
        f.write("".join(name + "\n" for name, _ in ins))
    outs = [o.name for o in m.graph.output]
    with open(os.path.join(d, "outs.txt"), "w") as f:
        f.write("".join(o + "\n" for o in outs))
    return outs


def put(d, name, text):
    with open(os.path.join(d, name), "w") as f:
        f.write(text.rstrip() + "\n")


def crash_safe(cmd, dirs, what, env=None, timeout=600):
    """Run cmd + dirs; the tool prints "BEGIN DIR" on stderr before each.
    When it crashes (or a sanitizer speaks), DIR/<what>.err gets "BUG: ..."
    for the model it was on, and the rest run again.  Returns None, or a
    message when a crash could not be pinned on one model."""
    rest = list(dirs)
    while rest:
        try:
            p = subprocess.run(cmd + rest, capture_output=True, text=True, env=env,
                               timeout=timeout)
            rc, err = p.returncode, p.stderr
        except subprocess.TimeoutExpired as e:
            rc, err = "timeout", (e.stderr.decode() if isinstance(e.stderr, bytes) else e.stderr) or ""
        if rc == 0 and not SAN_RE.search(err):
            return None
        if "LeakSanitizer" in err:           # reported at exit: no model to blame
            return "%s leaks (exit %s): %s" % (what, rc, err.strip()[-3000:])
        began = re.findall(r"^BEGIN (.*)$", err, re.M)
        if rc == 2 and not began:
            raise SystemExit("difftest: %s cannot start: %s" % (" ".join(cmd), err.strip()[-2000:]))
        if not began or began[-1] not in rest:
            return "%s failed (exit %s) after all models: %s" % (what, rc, err.strip()[-3000:])
        # the sanitizer report belongs to the last model begun
        bad = began[-1]
        tail = err[err.rfind("BEGIN " + bad):].split("\n", 1)[-1].strip()
        put(bad, "%s.err" % what, "BUG: %s crashed (exit %s): %s" % (what, rc, tail[-3000:]))
        rest = rest[rest.index(bad) + 1:]
    return None


DRIVER = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef int (*run_fn)(void *, const void *const *, void *const *);
struct model { const char *dir; run_fn run; size_t arena; int nin, nout;
               const int *isizes; const int *osizes; };
%(includes)s
static const struct model models[] = {
%(rows)s
};
static int run(const struct model *md, int fill, void **outs)
{
    void *arena = aligned_alloc(64, (md->arena + 63) / 64 * 64 + 64);
    const void *ins[64]; int rc, i;
    char p[4096]; FILE *fp;
    memset(arena, fill, md->arena + 64);
    for (i = 0; i < md->nin; i++) {
        float *b = malloc(sizeof(float) * (size_t)(md->isizes[i] ? md->isizes[i] : 1));
        size_t got;
        snprintf(p, sizeof p, "%%s/in_%%d.bin", md->dir, i);
        if (!(fp = fopen(p, "rb"))) { fprintf(stderr, "%%s: no input\n", p); exit(3); }
        got = fread(b, sizeof(float), (size_t)md->isizes[i], fp);
        fclose(fp);
        if (got != (size_t)md->isizes[i]) { fprintf(stderr, "%%s: short\n", p); exit(3); }
        ins[i] = b;
    }
    for (i = 0; i < md->nout; i++) {
        outs[i] = malloc(sizeof(float) * (size_t)(md->osizes[i] ? md->osizes[i] : 1));
        memset(outs[i], fill, sizeof(float) * (size_t)md->osizes[i]);
    }
    rc = md->run(arena, ins, outs);
    for (i = 0; i < md->nin; i++) free((void *)ins[i]);
    free(arena);
    return rc;
}
int main(int argc, char **argv)
{
    size_t m = argc > 1 ? (size_t)atoi(argv[1]) : 0;
    for (; m < sizeof models / sizeof models[0]; m++) {
        const struct model *md = &models[m];
        void *o1[64], *o2[64];
        int rc, i;
        char p[4096]; FILE *fp;
        fprintf(stderr, "BEGIN %%s\n", md->dir);
        fflush(stderr);
        rc = run(md, 0xff, o1);
        if (!rc) rc = run(md, 0x42, o2); else for (i = 0; i < md->nout; i++) o2[i] = NULL;
        if (rc) {
            snprintf(p, sizeof p, "%%s/aot.err", md->dir);
            if ((fp = fopen(p, "w"))) { fprintf(fp, "BUG: the emitted run returned %%d\n", rc); fclose(fp); }
        } else {
            for (i = 0; i < md->nout; i++)
                if (memcmp(o1[i], o2[i], sizeof(float) * (size_t)md->osizes[i])) {
                    snprintf(p, sizeof p, "%%s/aot.err", md->dir);
                    if ((fp = fopen(p, "w"))) {
                        fprintf(fp, "BUG: output %%d differs between two runs on arenas filled "
                                "with different bytes\n", i);
                        fclose(fp);
                    }
                    break;
                }
            for (i = 0; i < md->nout; i++) {
                snprintf(p, sizeof p, "%%s/aot_%%d.bin", md->dir, i);
                if ((fp = fopen(p, "wb"))) { fwrite(o1[i], sizeof(float), (size_t)md->osizes[i], fp); fclose(fp); }
            }
        }
        for (i = 0; i < md->nout; i++) { free(o1[i]); free(o2[i]); }
    }
    return 0;
}
"""


def aot_batch(args, dirs, work):
    """ln-aot every graph, compile them in args.jobs translation units, link
    one program running them all."""
    def emit(d):
        name = "g" + os.path.basename(d)[1:]
        r = subprocess.run([os.path.join(args.bin, "ln-aot"), "-n", name, "-o",
                            os.path.join(d, "m.c"), "--header", os.path.join(d, "m.h"),
                            os.path.join(d, "model.onnx")], capture_output=True, text=True)
        if r.returncode == 1 and not SAN_RE.search(r.stderr):
            put(d, "aot.err", r.stderr.strip() + " (ln-aot exit 1)")
            return None
        if r.returncode != 0 or SAN_RE.search(r.stderr) or r.stderr.strip():
            put(d, "aot.err", "BUG: ln-aot exit %d: %s" % (r.returncode, r.stderr.strip()[-3000:]))
            return None
        return d, name
    with ThreadPoolExecutor(args.jobs) as ex:
        ok = [x for x in ex.map(emit, dirs) if x]
    if not ok:
        return
    inc = "-I" + os.path.join(ROOT, "runtime/include")
    cflags = ["-std=c99", "-O1", "-Wall", "-Werror", inc] + args.aot_cflags.split()

    def cc_tu(chunk, tu, out):
        with open(tu, "w") as f:
            for d, _ in chunk:
                f.write('#include "%s/m.c"\n' % d)
        r = subprocess.run([args.cc] + cflags + ["-c", tu, "-o", out], capture_output=True, text=True)
        return r.returncode == 0, r.stderr

    def cc(chunk, k):
        okc, err = cc_tu(chunk, os.path.join(work, "models%d.c" % k), os.path.join(work, "models%d.o" % k))
        if okc:
            return chunk, [os.path.join(work, "models%d.o" % k)]
        good, objs = [], []                      # find the models that do not compile
        for d, name in chunk:
            o = os.path.join(d, "m.o")
            okm, errm = cc_tu([(d, name)], os.path.join(d, "tu.c"), o)
            if okm:
                good.append((d, name))
                objs.append(o)
            else:
                put(d, "aot.err", "BUG: the emitted C does not compile: " + errm.strip()[-3000:])
        return good, objs
    n = max(1, min(args.jobs, len(ok)))
    with ThreadPoolExecutor(n) as ex:
        res = list(ex.map(cc, [ok[i::n] for i in range(n)], range(n)))
    ok = [x for good, _ in res for x in good]
    objs = [o for _, os_ in res for o in os_]
    if not ok:
        return
    includes = "".join('#include "%s/m.h"\n' % d for d, _ in ok)
    includes += "".join("static const int %s_is[] = %s_INPUT_SIZES, %s_os[] = %s_OUTPUT_SIZES;\n"
                        % (nm, nm.upper(), nm, nm.upper()) for _, nm in ok)
    rows = "".join('  {"%s", %s_run_array, %s_ARENA_SIZE, %s_NUM_INPUTS, %s_NUM_OUTPUTS, %s_is, %s_os},\n'
                   % (d, nm, nm.upper(), nm.upper(), nm.upper(), nm, nm) for d, nm in ok)
    drv = os.path.join(work, "driver.c")
    with open(drv, "w") as f:
        f.write(DRIVER % dict(includes=includes, rows=rows))
    exe = os.path.join(work, "driver")
    r = subprocess.run([args.cc, "-std=c11", "-O1", inc] + args.aot_cflags.split() +
                       [drv] + objs + [args.rt, "-lm", "-o", exe], capture_output=True, text=True)
    if r.returncode != 0:
        for d, _ in ok:
            put(d, "aot.err", "BUG: the driver does not link: " + r.stderr.strip()[-2000:])
        return
    # the driver takes the index to start at: crash_safe passes dirs, so
    # give it a tiny wrapper that maps them
    idx = {d: i for i, (d, _) in enumerate(ok)}
    rest = [d for d, _ in ok]
    while rest:
        p = subprocess.run([exe, str(idx[rest[0]])], capture_output=True, text=True)
        if p.returncode == 0 and not SAN_RE.search(p.stderr):
            break
        began = re.findall(r"^BEGIN (.*)$", p.stderr, re.M)
        if not began:
            for d in rest:
                put(d, "aot.err", "BUG: the ln-aot driver failed (exit %d): %s"
                    % (p.returncode, p.stderr.strip()[-2000:]))
            break
        bad = began[-1]
        tail = p.stderr[p.stderr.rfind("BEGIN " + bad):].split("\n", 1)[-1].strip()
        put(bad, "aot.err", "BUG: the emitted model crashed (exit %d): %s" % (p.returncode, tail[-3000:]))
        rest = rest[rest.index(bad) + 1:]


def read_err(d, cfg):
    p = os.path.join(d, cfg + ".err")
    return open(p).read().strip() if os.path.exists(p) else None


def reason(msg):
    """A refusal's message without the file, names and numbers, to count
    refusals by kind."""
    msg = re.sub(r"^ln-aot: ", "", msg)
    msg = re.sub(r"\s*\(ln-aot exit 1\)$", "", msg)
    msg = re.sub(r"\S*model\.onnx: ", "", msg)
    msg = re.sub(r"\S+ \((\w+)\): ", r"\1: ", msg)       # the op's name
    msg = re.sub(r"'[^']*'", "'X'", msg)
    msg = re.sub(r"-?\d+(\.\d+)?", "N", msg)
    return msg[:160]


def compare(d, outs, stats):
    """None (agreed), ('refused', reason) or ('fail', message)."""
    errs = {c: read_err(d, c) for c in CFGS}
    bugs = ["%s: %s" % (c, e) for c, e in errs.items() if e and e.startswith("BUG")]
    if bugs:
        return ("fail", "; ".join(bugs))
    if errs["ort"]:
        if all(errs[c] for c in LN):
            return ("refused", "ONNX Runtime refuses it too: " + reason(errs["ort"])[:100])
        return ("fail", "ONNX Runtime refused a generated graph (a generator bug?): %s"
                % errs["ort"][:300])
    refusing = [c for c in LN if errs[c]]
    if refusing:
        internal = [c for c in refusing if re.search(r"memory plan|internal", errs[c], re.I)]
        if internal:
            return ("fail", "internal error: " + "; ".join("%s: %s" % (c, errs[c]) for c in internal))
        iref = [c for c in INTERP if errs[c]]
        if iref and len(iref) != len(INTERP):
            return ("fail", "the interpreter configs disagree on refusing: " +
                    "; ".join("%s: %s" % (c, errs[c] or "ran") for c in INTERP))
        if len(refusing) == len(LN):
            return ("refused", reason(errs["plan"]))
        if refusing == ["aot"]:
            return ("refused", "ln-aot only: " + reason(errs["aot"]))
        return ("fail", "configs disagree on refusing: " +
                "; ".join("%s: %s" % (c, errs[c] or "ran") for c in LN))
    for k, o in enumerate(outs):
        ref = np.fromfile(os.path.join(d, "ort_%d.bin" % k), np.float32)
        fin = ref[np.isfinite(ref)]
        scale = float(np.max(np.abs(fin))) if fin.size else 0.0
        got = {}
        for c in LN:
            p = os.path.join(d, "%s_%d.bin" % (c, k))
            if not os.path.exists(p):
                return ("fail", "%s wrote no output '%s'" % (c, o))
            got[c] = np.fromfile(p, np.float32)
            if got[c].shape != ref.shape:
                return ("fail", "%s output '%s' has %d elements, ONNX Runtime %d"
                        % (c, o, got[c].size, ref.size))
        a = got["plan"]
        qs = {"O0": diff_ratio(got["O0"], a, RTOL_O0, ATOL_O0, scale), "ort": 0.0}
        for c in EXACT:
            if not np.array_equal(a.view(np.uint32), got[c].view(np.uint32)):
                diff = np.max(np.abs(a.astype(np.float64) - got[c]))
                return ("fail", "%s output '%s' is not bit-exact with plan (max |diff| %.3g)"
                        % (c, o, diff))
        vs_ort = {c: diff_ratio(got[c], ref, RTOL, ATOL, scale) for c in ["plan", "O0"]}
        q = qs["O0"]
        if q > 1:
            return ("fail", "O0 output '%s' differs from plan: %.3g x the tolerance "
                    "(|d| <= %g * max(1, max|ref| = %.3g) + %g * |plan|); against ONNX "
                    "Runtime: plan %.3g, O0 %.3g x its tolerance"
                    % (o, q, ATOL_O0, scale, RTOL_O0, vs_ort["plan"], vs_ort["O0"]))
        for c in ["plan", "O0"]:
            q = vs_ort[c]
            qs["ort"] = max(qs["ort"], q)
            if q > 1:
                return ("fail", "%s output '%s' differs from ONNX Runtime: %.3g x the tolerance "
                        "(|d| <= %g * max(1, max|ref| = %.3g) + %g * |ref|)"
                        % (c, o, q, ATOL, scale, RTOL))
        for key in qs:                       # the margins of the graphs that agreed
            stats[key] = max(stats[key], qs[key])
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/bin"))
    ap.add_argument("--runner", default=os.path.join(ROOT, "build/difftest/runner"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build/difftest/work"))
    ap.add_argument("--rt", default=os.path.join(ROOT, "runtime/build/libln_rt.a"))
    ap.add_argument("--aot-cflags", default="", help="extra flags for the emitted C (e.g. sanitizers)")
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cc", default=os.environ.get("CC_DIFF", "cc"))
    ap.add_argument("--keep", action="store_true", help="keep the work directories")
    args = ap.parse_args()
    args.rt = os.path.abspath(args.rt)
    for f in [args.runner, os.path.join(args.bin, "ln-aot"), args.rt]:
        if not os.path.exists(f):
            raise SystemExit("difftest: %s is missing (make difftest builds it)" % f)
    t0 = time.time()
    counts = collections.Counter()
    refused = collections.Counter()
    refused_seed = {}
    stats = {"O0": 0.0, "ort": 0.0}
    failures = []
    seeds = list(range(args.seed, args.seed + args.n))
    for b0 in range(0, len(seeds), args.batch):
        batch = seeds[b0:b0 + args.batch]
        work = os.path.abspath(os.path.join(args.work, "b%d" % batch[0]))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        dirs, outs, live = {}, {}, []
        for s in batch:
            d = os.path.join(work, "s%d" % s)
            dirs[s] = d
            counts["generated"] += 1
            try:
                outs[s] = write_graph(d, s)
                live.append(s)
            except Exception as e:         # noqa: BLE001  a generator bug
                counts["failed"] += 1
                failures.append((s, "the generator failed: %r" % e))
        ld = [dirs[s] for s in live]
        # plan / noreuse / O0 / io in args.jobs runner processes, ONNX
        # Runtime beside them, then ln-aot
        n = max(1, args.jobs)
        with ThreadPoolExecutor(n + 1) as ex:
            futs = [ex.submit(crash_safe, [args.runner], ld[i::n], "runner")
                    for i in range(n) if ld[i::n]]
            fort = ex.submit(crash_safe, ["node", os.path.join(ROOT, "tests/difftest/ort_run.js")],
                             ld, "ort")
            batch_errs = [f.result() for f in futs] + [fort.result()]
        for e in batch_errs:
            if e:
                counts["failed"] += 1
                failures.append((batch[0], "seeds %d..%d: %s" % (batch[0], batch[-1], e)))
        aot_batch(args, ld, work)
        for s in live:
            counts["run"] += 1
            r = compare(dirs[s], outs[s], stats)
            if r is None:
                counts["agreed"] += 1
            elif r[0] == "refused":
                counts["refused"] += 1
                refused[r[1]] += 1
                refused_seed.setdefault(r[1], s)
            else:
                counts["failed"] += 1
                failures.append((s, r[1]))
                keep = os.path.join(os.path.abspath(args.work), "failed", "s%d" % s)
                shutil.rmtree(keep, ignore_errors=True)
                shutil.copytree(dirs[s], keep)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    dt = time.time() - t0
    print("difftest: seeds %d..%d: %d generated, %d run, %d agreed in all six configs, "
          "%d refused, %d failed (%.1f s)"
          % (args.seed, args.seed + args.n - 1, counts["generated"], counts["run"],
             counts["agreed"], counts["refused"], counts["failed"], dt))
    print("  closest to the tolerance: O0 vs plan %.3g, LightNet vs ONNX Runtime %.3g "
          "(1 = at the limit)" % (stats["O0"], stats["ort"]))
    for why, k in refused.most_common():
        print("  refused %5d: %s (e.g. seed %d)" % (k, why, refused_seed[why]))
    for s, why in failures[:50]:
        print("FAIL seed %d: %s\n  rerun: make difftest SEED=%d N=1  (kept in %s)"
              % (s, why, s, os.path.join(args.work, "failed", "s%d" % s)))
    if len(failures) > 50:
        print("... and %d more failures" % (len(failures) - 50))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
