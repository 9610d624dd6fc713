#!/usr/bin/env python3
"""The differential tester: random graphs (tests/difftest/gen.py) run five
ways, all of which must agree.

  (a) plan     the interpreter, default compile and memory plan
  (b) noreuse  the same compile with a no-reuse plan (no tensor shares bytes)
  (c) O0       the interpreter with no folding and no fusion
  (d) aot      ln-aot's C, compiled with cc and linked with libln_rt
  (e) ort      ONNX Runtime (onnxruntime-node), the reference nobody here wrote

Usage: difftest.py --seed S --n N [--bin build/bin] [--runner R] [--work DIR]
                   [--batch 250] [--jobs 2] [--keep]
Any disagreement, crash or unexpected error fails, naming the seed and the
command that reruns it alone.  A graph LightNet refuses with a clear error
(exit status 1 in every config, the same message) is counted as refused,
by reason.  Exit status: 0 all agreed, 1 a disagreement or crash.
"""
import argparse, collections, json, os, shutil, subprocess, sys, time
from concurrent.futures import ThreadPoolExecutor
import numpy as np
import onnx

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen  # noqa: E402

CFGS = ["plan", "noreuse", "O0", "aot", "ort"]
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))


def tol_ok(a, b, scale):
    """float32 agreement: |a - b| <= 1e-4 * (1 + max |b|) elementwise; a NaN
    or infinity must be matched by the same in the other."""
    fa, fb = np.isfinite(a), np.isfinite(b)
    if not np.array_equal(fa, fb):
        return False, float("inf")
    nf = ~fa
    if nf.any() and not np.array_equal(np.isnan(a[nf]), np.isnan(b[nf])):
        return False, float("inf")
    if nf.any() and not np.array_equal(a[nf & ~np.isnan(a)], b[nf & ~np.isnan(b)]):
        return False, float("inf")
    d = float(np.max(np.abs(a[fa] - b[fa]))) if fa.any() else 0.0
    return d <= 1e-4 * (1.0 + scale), d


def write_graph(d, seed):
    m, ins = gen.gen(seed)
    os.makedirs(d, exist_ok=True)
    onnx.save(m, os.path.join(d, "model.onnx"))
    for k, v in ins.items():
        v.tofile(os.path.join(d, "in_%s.bin" % k))
        with open(os.path.join(d, "shape_%s.json" % k), "w") as f:
            json.dump(list(v.shape), f)
    outs = [o.name for o in m.graph.output]
    with open(os.path.join(d, "outs.txt"), "w") as f:
        f.write("\n".join(outs) + "\n")
    return outs


DRIVER_HEAD = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
typedef int (*run_fn)(void *, const void *const *, void *const *);
struct model { const char *dir; run_fn run; size_t arena; int nin, nout;
               const char *const *inames; const int *isizes;
               const char *const *onames; const int *osizes; };
"""

DRIVER_MAIN = r"""
static int read_in(const char *dir, const char *name, float *buf, int n)
{
    char p[4096]; FILE *fp; size_t got;
    snprintf(p, sizeof p, "%s/in_%s.bin", dir, name);
    if (!(fp = fopen(p, "rb"))) return -1;
    got = fread(buf, sizeof(float), (size_t)n, fp);
    fclose(fp);
    return got == (size_t)n ? 0 : -1;
}
int main(void)
{
    for (size_t m = 0; m < sizeof models / sizeof models[0]; m++) {
        const struct model *md = &models[m];
        void *arena = aligned_alloc(64, (md->arena + 63) / 64 * 64 + 64);
        const void *ins[16]; void *outs[16]; int rc, i;
        char p[4096]; FILE *fp;
        for (i = 0; i < md->nin; i++) {
            float *b = malloc(sizeof(float) * (size_t)(md->isizes[i] ? md->isizes[i] : 1));
            if (read_in(md->dir, md->inames[i], b, md->isizes[i])) { fprintf(stderr, "%s: input\n", md->dir); return 1; }
            ins[i] = b;
        }
        for (i = 0; i < md->nout; i++)
            outs[i] = calloc((size_t)(md->osizes[i] ? md->osizes[i] : 1), sizeof(float));
        rc = md->run(arena, ins, outs);
        if (rc) {
            snprintf(p, sizeof p, "%s/aot.err", md->dir);
            if ((fp = fopen(p, "w"))) { fprintf(fp, "run returned %d\n", rc); fclose(fp); }
        } else {
            for (i = 0; i < md->nout; i++) {
                snprintf(p, sizeof p, "%s/aot_%s.bin", md->dir, md->onames[i]);
                if ((fp = fopen(p, "wb"))) { fwrite(outs[i], sizeof(float), (size_t)md->osizes[i], fp); fclose(fp); }
            }
        }
        for (i = 0; i < md->nin; i++) free((void *)ins[i]);
        for (i = 0; i < md->nout; i++) free(outs[i]);
        free(arena);
    }
    return 0;
}
"""


def aot_batch(args, dirs, work):
    """ln-aot every graph, then one program running them all."""
    def emit(d):
        name = "g" + os.path.basename(d)[1:]
        r = subprocess.run([os.path.join(args.bin, "ln-aot"), "-n", name, "-o",
                            os.path.join(d, "m.c"), "--header", os.path.join(d, "m.h"),
                            os.path.join(d, "model.onnx")], capture_output=True, text=True)
        if r.returncode != 0:
            with open(os.path.join(d, "aot.err"), "w") as f:
                f.write(r.stderr.strip() + " (exit %d)\n" % r.returncode)
            return None
        return d, name
    with ThreadPoolExecutor(args.jobs) as ex:
        ok = [x for x in ex.map(emit, dirs) if x]
    if not ok:
        return
    src = [DRIVER_HEAD]
    for d, name in ok:
        src.append('#include "%s/m.h"\n' % d)
    for d, name in ok:
        U = name.upper()
        src.append("static const char *const %s_in[] = %s_INPUT_NAMES; static const int %s_is[] = %s_INPUT_SIZES;\n"
                   "static const char *const %s_on[] = %s_OUTPUT_NAMES; static const int %s_os[] = %s_OUTPUT_SIZES;\n"
                   % (name, U, name, U, name, U, name, U))
    src.append("static const struct model models[] = {\n")
    for d, name in ok:
        U = name.upper()
        src.append('  {"%s", %s_run_array, %s_ARENA_SIZE, %s_NUM_INPUTS, %s_NUM_OUTPUTS, %s_in, %s_is, %s_on, %s_os},\n'
                   % (d, name, U, U, U, name, name, name, name))
    src.append("};\n" + DRIVER_MAIN)
    drv = os.path.join(work, "driver.c")
    with open(drv, "w") as f:
        f.write("".join(src))
    exe = os.path.join(work, "driver")
    # the model files are compiled in two halves at once (two cores)
    objs = []
    def cc(chunk, k):
        out = os.path.join(work, "models%d.o" % k)
        # one translation unit per chunk: #include every m.c of it
        tu = os.path.join(work, "models%d.c" % k)
        with open(tu, "w") as f:
            for d, _ in chunk:
                f.write('#include "%s/m.c"\n' % d)
        r = subprocess.run([args.cc, "-std=c99", "-O1", "-c", "-I" + os.path.join(ROOT, "runtime/include"),
                            tu, "-o", out], capture_output=True, text=True)
        return out if r.returncode == 0 else r.stderr
    n = max(1, min(args.jobs, len(ok)))
    chunks = [ok[i::n] for i in range(n)]
    with ThreadPoolExecutor(n) as ex:
        res = list(ex.map(cc, chunks, range(n)))
    for r_ in res:
        if not r_.endswith(".o"):
            raise SystemExit("difftest: the emitted C does not compile:\n" + r_[:4000])
        objs.append(r_)
    r = subprocess.run([args.cc, "-std=c11", "-O1", "-I" + os.path.join(ROOT, "runtime/include"),
                        drv] + objs + [os.path.join(ROOT, "runtime/build/libln_rt.a"), "-lm", "-o", exe],
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("difftest: the driver does not link:\n" + r.stderr[:4000])
    r = subprocess.run([exe], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit("difftest: the ln-aot driver failed (exit %d): %s" % (r.returncode, r.stderr[-2000:]))


def read_err(d, cfg):
    p = os.path.join(d, cfg + ".err")
    return open(p).read().strip() if os.path.exists(p) else None


def compare(d, seed, outs):
    """None (agreed), ('refused', reason) or ('fail', message)."""
    errs = {c: read_err(d, c) for c in CFGS}
    ln = ["plan", "noreuse", "O0", "aot"]
    if errs["ort"]:
        return ("fail", "ONNX Runtime refused a generated graph: %s" % errs["ort"]) \
            if not all(errs[c] for c in ln) else ("refused", "ORT and LightNet: " + errs["ort"][:80])
    if any(errs[c] for c in ln):
        if all(errs[c] for c in ln) and all("exit 1" in errs["aot"] or True for _ in [0]):
            msg = errs["plan"]
            # the reason without names: the part after the last ': '
            return ("refused", msg.split(": ")[-1][:100])
        return ("fail", "configs disagree on refusing: " +
                "; ".join("%s: %s" % (c, errs[c] or "ran") for c in ln))
    for o in outs:
        ref = np.fromfile(os.path.join(d, "ort_%s.bin" % o), np.float32)
        scale = float(np.max(np.abs(ref[np.isfinite(ref)]))) if np.isfinite(ref).any() else 0.0
        for c in ln:
            p = os.path.join(d, "%s_%s.bin" % (c, o))
            if not os.path.exists(p):
                return ("fail", "%s wrote no output '%s'" % (c, o))
            a = np.fromfile(p, np.float32)
            if a.shape != ref.shape:
                return ("fail", "%s output '%s' has %d elements, ORT %d" % (c, o, a.size, ref.size))
            ok, diff = tol_ok(a, ref, scale)
            if not ok:
                return ("fail", "%s output '%s' differs from ONNX Runtime by %.3g (max |ref| %.3g)"
                        % (c, o, diff, scale))
        a = np.fromfile(os.path.join(d, "plan_%s.bin" % o), np.float32)
        for c in ["noreuse", "aot"]:
            b = np.fromfile(os.path.join(d, "%s_%s.bin" % (c, o)), np.float32)
            if not np.array_equal(a.view(np.uint32), b.view(np.uint32)):
                ok, diff = tol_ok(b, a, scale)
                return ("fail", "%s output '%s' is not bit-exact with the planned run (%.3g)"
                        % (c, o, diff))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build/bin"))
    ap.add_argument("--runner", default=os.path.join(ROOT, "build/difftest/runner"))
    ap.add_argument("--work", default=os.path.join(ROOT, "build/difftest/work"))
    ap.add_argument("--batch", type=int, default=250)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--cc", default=os.environ.get("CC_DIFF", "cc"))
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    t0 = time.time()
    counts = collections.Counter()
    refused = collections.Counter()
    failures = []
    seeds = list(range(args.seed, args.seed + args.n))
    for b0 in range(0, len(seeds), args.batch):
        batch = seeds[b0:b0 + args.batch]
        work = os.path.abspath(os.path.join(args.work, "b%d" % batch[0]))
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
        dirs, outs = [], {}
        for s in batch:
            d = os.path.join(work, "s%d" % s)
            outs[s] = write_graph(d, s)
            dirs.append(d)
        counts["generated"] += len(batch)
        # (a)-(c): the runner, in args.jobs processes
        n = max(1, args.jobs)
        procs = [subprocess.Popen([args.runner] + dirs[i::n], stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True) for i in range(n) if dirs[i::n]]
        # (e) while the runner works
        ortp = subprocess.run(["node", os.path.join(ROOT, "tests/difftest/ort_run.js")] + dirs,
                              capture_output=True, text=True)
        if ortp.returncode != 0:
            raise SystemExit("difftest: ONNX Runtime side failed: " + ortp.stderr.strip())
        for p in procs:
            out, err = p.communicate()
            if p.returncode != 0:
                raise SystemExit("difftest: the runner crashed (exit %d) in batch %d..%d:\n%s\n"
                                 "rerun: make difftest SEED=%d N=%d"
                                 % (p.returncode, batch[0], batch[-1], err[-3000:], batch[0], len(batch)))
        aot_batch(args, dirs, work)          # (d)
        for s, d in zip(batch, dirs):
            r = compare(d, s, outs[s])
            if r is None:
                counts["agreed"] += 1
            elif r[0] == "refused":
                counts["refused"] += 1
                refused[r[1]] += 1
            else:
                counts["failed"] += 1
                failures.append((s, r[1]))
                keep = os.path.join(args.work, "failed", "s%d" % s)
                shutil.rmtree(keep, ignore_errors=True)
                shutil.copytree(d, keep)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    dt = time.time() - t0
    print("difftest: seeds %d..%d: %d graphs, %d agreed in all five runs, %d refused, "
          "%d failed (%.1f s)" % (args.seed, args.seed + args.n - 1, counts["generated"],
                                   counts["agreed"], counts["refused"], counts["failed"], dt))
    for why, k in refused.most_common():
        print("  refused %5d: %s" % (k, why))
    for s, why in failures[:50]:
        print("FAIL seed %d: %s\n  rerun: make difftest SEED=%d N=1  (kept in %s)"
              % (s, why, s, os.path.join(args.work, "failed", "s%d" % s)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
