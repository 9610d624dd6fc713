#!/usr/bin/env node
// run.js -- LightNet against ONNX Runtime on this host, single-threaded; the
// body of `make bench` (mk/bench.mk builds the tools first, then runs this).
//
//   node bench/run.js [--build DIR] [--cc CC] [--rt LIB] [--ldlibs "..."]
//        [--rounds R] [--round-ms T] [--min-runs N] [--max-runs N] [--runs N]
//        [--models a,b,...] [--no-m4] [--no-plot] [--no-pin] [--out FILE.md]
//
// Per model (tests/models/* and bench/models/{mobilenet_v2, resnet18,
// efficientnet_b0, squeezenet1_1, shufflenet_v2_x0_5, mnasnet0_5, densenet121}, the
// latter built with tools/make_test_models.py when missing and python3-torch
// is there):
//   1. ln-onnx imports model.onnx; ln-aot emits bm.c/bm.h; cc -O3
//      -march=native compiles them with bench/driver.c against libln_rt.a.
//   2. The three engines are started side by side in serve mode and warmed
//      up: the emitted C (bench/driver.c), the interpreter
//      (bench/interp_driver.c) and ONNX Runtime (bench/ort_bench.js).  Then R
//      rounds (default 20), each: K timed runs of the emitted C, K of the
//      interpreter, K of ONNX Runtime -- A B C A B C, so drift and other load
//      on the machine hit all of them alike.  K is picked per model so that
//      one engine's turn takes about T ms (default 100) of ONNX Runtime time,
//      and R grows until R x K >= --min-runs (default 60).  The figure is the
//      median over all R x K runs.
//   3. Outputs: each engine's output against output.bin (PyTorch) and the
//      emitted C against ONNX Runtime: max |diff| <= 1e-4 x max |reference|.
//   4. Memory: arena, lower bound, no-aliasing bound and no-reuse total
//      from the planner (the emitted header's figures when there is one);
//      the host object's .text/.rodata; for the test models the Cortex-M4
//      instructions per inference from `make -C examples/cortex-m4 MODEL=.. run`.
//   5. Where LightNet is slower than ONNX Runtime, `lightnet --profile`.
// Writes bench/results.md, bench/results.json and (gnuplot) bench/results.png,
// or with --out DIR/NAME.md: DIR/NAME.md, DIR/NAME.json and DIR/NAME.png
// (the tracked results stay as they are); scratch files go to BUILD/bench/.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const cp = require('child_process');

const ROOT = path.resolve(__dirname, '..');
const BENCH = __dirname;

// ---------------------------------------------------------------- options
const opt = {
  build: 'build', cc: process.env.CC || 'cc', rt: 'runtime/build/libln_rt.a',
  ldlibs: '-lm', rounds: 20, roundMs: 100, minRuns: 60, maxRuns: 2000, runs: 0, warmup: 0,
  models: '', m4: true, plot: true, pin: true, out: path.join(BENCH, 'results.md'),
  m4Timeout: 900,
};
for (let i = 2; i < process.argv.length; i++) {
  const k = process.argv[i];
  const v = process.argv[i + 1];
  const take = () => { i++; return v; };
  switch (k) {
    case '--build': opt.build = take(); break;
    case '--cc': opt.cc = take(); break;
    case '--rt': opt.rt = take(); break;
    case '--ldlibs': opt.ldlibs = take(); break;
    case '--rounds': opt.rounds = parseInt(take(), 10); break;
    case '--round-ms': opt.roundMs = parseFloat(take()); break;
    case '--min-runs': opt.minRuns = parseInt(take(), 10); break;
    case '--max-runs': opt.maxRuns = parseInt(take(), 10); break;
    case '--runs': opt.runs = parseInt(take(), 10); break;
    case '--warmup': opt.warmup = parseInt(take(), 10); break;
    case '--models': opt.models = take(); break;
    case '--m4-timeout': opt.m4Timeout = parseInt(take(), 10); break;
    case '--no-m4': opt.m4 = false; break;
    case '--no-plot': opt.plot = false; break;
    case '--no-pin': opt.pin = false; break;
    case '--out': opt.out = path.resolve(take()); break;
    case '-h': case '--help':
      {
        const ls = fs.readFileSync(__filename, 'utf8').split('\n').slice(1);
        const end = ls.findIndex((l) => !l.startsWith('//'));
        process.stdout.write(ls.slice(0, end).map((l) => l.slice(3)).join('\n') + '\n');
      }
      process.exit(0);
      break;
    default:
      process.stderr.write(`bench: unknown argument ${k}\n`);
      process.exit(2);
  }
}
const BUILD = path.resolve(ROOT, opt.build);
const BIN = path.join(BUILD, 'bin');
const WORK = path.join(BUILD, 'bench');
const RT = path.resolve(ROOT, opt.rt);
fs.mkdirSync(WORK, {recursive: true});
// The report's folder is made now, so that a run of many minutes does not
// end in ENOENT when --out names a folder that does not exist yet.
fs.mkdirSync(path.dirname(opt.out), {recursive: true});

// The interpreter driver links the libraries as they were when it was
// built (make bench relinks it; running this script alone does not): say
// so when a library it links is newer, since its kernels may then differ
// from the emitted C's.
function staleInterp() {
  const bin = path.join(WORK, 'interp_driver');
  let t;
  try { t = fs.statSync(bin).mtimeMs; } catch (e) { return ''; }
  const newer = [path.join(BUILD, 'liblightnet.a'), RT, path.join(WORK, 'libln_rt.a')]
    .filter((f) => { try { return fs.statSync(f).mtimeMs > t; } catch (e) { return false; } });
  return newer.length ? `interpreter: build/bench/interp_driver is older than ${newer.map((f) => path.relative(ROOT, f)).join(', ')} ` +
    '(make bench relinks it); its figures are of the kernels it was linked with' : '';
}
const INTERP_STALE = staleInterp();
if (INTERP_STALE) process.stderr.write(`bench: ${INTERP_STALE}\n`);

const TEST_MODELS = ['lenet5', 'ds_cnn', 'mobilenet_v1_025', 'resnet8', 'ad_autoencoder'];
const BIG_MODELS = ['mobilenet_v2', 'resnet18', 'efficientnet_b0', 'squeezenet1_1',
                    'shufflenet_v2_x0_5', 'mnasnet0_5', 'densenet121'];
const MLPERF_TINY = new Set(['ds_cnn', 'mobilenet_v1_025', 'resnet8', 'ad_autoencoder']);
// issue 17: below 1 on every network, below 0.8 on the MLPerf Tiny four
const AIM = {};
for (const m of BIG_MODELS) AIM[m] = 1.0;
for (const m of MLPERF_TINY) AIM[m] = 0.8;
const TOL = 1e-4;

// ---------------------------------------------------------------- helpers
function log(s) { process.stdout.write(s + '\n'); }

function sh(cmd, args, o = {}) {
  const r = cp.spawnSync(cmd, args, {
    cwd: o.cwd || ROOT, encoding: 'utf8', maxBuffer: 256 << 20,
    timeout: o.timeout ? o.timeout * 1000 : undefined, env: o.env || process.env,
  });
  const out = (r.stdout || '') + (r.stderr || '');
  return {ok: r.status === 0 && !r.error, status: r.status, stdout: r.stdout || '',
    stderr: r.stderr || '', out, error: r.error, timedOut: r.error && r.error.code === 'ETIMEDOUT'};
}

function have(cmd) { return sh('sh', ['-c', `command -v ${cmd}`]).ok; }

function firstLine(s) {
  const l = String(s || '').split('\n').map((x) => x.trim()).filter((x) => x)
    .filter((x) => !/^(make|cc|gcc)(\[\d+\])?: (Entering|Leaving)/.test(x));
  const err = l.find((x) => /error|unsupported|cannot|not |fail/i.test(x));
  let m = (err || l[0] || '(no message)').split(ROOT + '/').join('');
  if (m.length > 160) m = m.slice(0, 157) + '...';
  return m;
}

function md(s) { return String(s).replace(/\|/g, '\\|'); }

function readF32(file) {
  const b = fs.readFileSync(file);
  return new Float32Array(b.buffer, b.byteOffset, b.length >> 2);
}

function compare(a, ref, scaleRef) {
  if (a.length !== ref.length) return {ok: false, why: `length ${a.length} != ${ref.length}`};
  let maxd = 0;
  let maxr = 0;
  let nan = false;
  for (let i = 0; i < a.length; i++) {
    if (!Number.isFinite(a[i])) nan = true;
    maxd = Math.max(maxd, Math.abs(a[i] - ref[i]));
  }
  const s = scaleRef || ref;
  for (let i = 0; i < s.length; i++) maxr = Math.max(maxr, Math.abs(s[i]));
  const rel = maxr > 0 ? maxd / maxr : maxd;
  return {ok: !nan && maxd <= TOL * maxr, maxdiff: maxd, maxref: maxr, rel,
    bitexact: !nan && maxd === 0};
}

function median(xs) {
  const s = xs.slice().sort((x, y) => x - y);
  const n = s.length;
  if (!n) return NaN;
  return n % 2 ? s[(n - 1) >> 1] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

function readTimes(file) {
  return fs.readFileSync(file, 'utf8').split('\n').filter((x) => x).map(Number);
}

function fmtMs(x) {
  if (x === undefined || x === null || !Number.isFinite(x)) return '—';
  if (x >= 100) return x.toFixed(1);
  if (x >= 10) return x.toFixed(2);
  if (x >= 1) return x.toFixed(3);
  return x.toFixed(4);
}

function fmtInt(x) {
  if (x === undefined || x === null || !Number.isFinite(x)) return '—';
  return Math.round(x).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

function fmtRatio(x) { return Number.isFinite(x) ? x.toFixed(2) : '—'; }

function fmtE(x) { return Number.isFinite(x) ? x.toExponential(1) : '—'; }

// Pin every timed process to the same CPU (the last one) so the engines
// share one core's caches and frequency; --no-pin turns it off.
const PIN_CPU = os.cpus().length - 1;
function timed(cmd, args) {
  if (opt.pin && have('taskset')) return sh('taskset', ['-c', String(PIN_CPU), cmd, ...args]);
  return sh(cmd, args);
}

function parseJsonLine(s) {
  const l = s.split('\n').filter((x) => x.trim().startsWith('{')).pop();
  if (!l) return null;
  try { return JSON.parse(l); } catch (e) { return null; }
}

// ---------------------------------------------------------------- machine
function machine() {
  const info = {};
  let cpuinfo = '';
  try { cpuinfo = fs.readFileSync('/proc/cpuinfo', 'utf8'); } catch (e) { /* none */ }
  const field = (k) => { const m = cpuinfo.match(new RegExp(`^${k}\\s*:\\s*(.*)$`, 'm')); return m ? m[1].trim() : ''; };
  info.cpu = field('model name') || os.cpus()[0].model;
  info.logical = os.cpus().length;
  info.coresPerSocket = field('cpu cores');
  info.mhz = field('cpu MHz');
  const flags = ` ${field('flags')} `;
  info.isa = ['sse4_2', 'avx', 'avx2', 'fma', 'avx512f', 'avx512_vnni', 'amx_tile']
    .filter((f) => flags.includes(` ${f} `)).join(' ');
  info.hypervisor = flags.includes(' hypervisor ') ? 'yes (virtual machine)' : 'no';
  info.kernel = `${os.type()} ${os.release()} ${os.arch()}`;
  info.mem = `${(os.totalmem() / 2 ** 30).toFixed(1)} GiB`;
  info.date = new Date().toISOString().replace(/\.\d+Z$/, 'Z');
  info.cc = (sh(opt.cc, ['--version']).stdout.split('\n')[0] || opt.cc).trim();
  info.node = process.version;
  let os_rel = '';
  try { os_rel = (fs.readFileSync('/etc/os-release', 'utf8').match(/^PRETTY_NAME="?(.*?)"?$/m) || [])[1]; } catch (e) { /* none */ }
  info.os = os_rel || '';
  const g = sh('git', ['rev-parse', '--short', 'HEAD']);
  info.commit = g.ok ? g.stdout.trim() : '';
  const d = sh('git', ['status', '--porcelain', '--untracked-files=no']);
  if (d.ok && d.stdout.trim()) info.commit += ' (work tree modified)';
  const load = os.loadavg();
  info.load = load.map((x) => x.toFixed(2)).join(' ');
  return info;
}

// ---------------------------------------------------------------- models
function ensureBigModels(notes) {
  const want = (opt.models ? opt.models.split(',') : BIG_MODELS).filter((m) => BIG_MODELS.includes(m));
  const missing = want.filter((m) => !fs.existsSync(path.join(BENCH, 'models', m, 'model.onnx')));
  if (!missing.length) return;
  const py = '/usr/bin/python3';
  const t = fs.existsSync(py) ? sh(py, ['-c', 'import torch, torchvision, onnx']) : {ok: false};
  if (!t.ok) {
    const why = `${missing.join(', ')} not built: tools/make_test_models.py needs Debian's ` +
      'python3-torch, python3-torchvision and python3-onnx (/usr/bin/python3), not installed here';
    notes.push(why);
    log('bench: ' + why);
    return;
  }
  log(`bench: building ${missing.join(', ')} with tools/make_test_models.py`);
  const r = sh(py, ['tools/make_test_models.py', '--only', missing.join(',')], {timeout: 1800});
  if (!r.ok) {
    const why = `${missing.join(', ')}: tools/make_test_models.py failed: ${firstLine(r.out)}`;
    notes.push(why);
    log('bench: ' + why);
  }
}

function modelList() {
  const all = TEST_MODELS.map((m) => ({name: m, dir: path.join(ROOT, 'tests', 'models', m)}))
    .concat(BIG_MODELS.map((m) => ({name: m, dir: path.join(BENCH, 'models', m)})));
  const sel = opt.models ? opt.models.split(',') : null;
  if (sel) {
    const unknown = sel.filter((m) => !all.find((x) => x.name === m));
    if (unknown.length) {
      process.stderr.write(`bench: unknown model(s) ${unknown.join(', ')}\n`);
      process.exit(2);
    }
  }
  return all.filter((m) => !sel || sel.includes(m.name));
}

// ---------------------------------------------------------------- LightNet
function hostSize(obj) {
  // Berkeley size of one object: .text, and .rodata (weights) read per section.
  const r = sh('size', ['-A', obj]);
  if (!r.ok) return null;
  const s = {text: 0, rodata: 0, data: 0, bss: 0};
  for (const l of r.stdout.split('\n')) {
    const m = l.match(/^(\.\S+)\s+(\d+)/);
    if (!m) continue;
    const n = parseInt(m[2], 10);
    if (m[1].startsWith('.text')) s.text += n;
    else if (m[1].startsWith('.rodata') || m[1].startsWith('.lrodata')) s.rodata += n;
    else if (m[1].startsWith('.data') || m[1].startsWith('.ldata')) s.data += n;
    else if (m[1].startsWith('.bss') || m[1].startsWith('.lbss')) s.bss += n;
  }
  return s;
}

function headerInt(h, uname, what) {
  const m = h.match(new RegExp(`#define\\s+${uname}_${what}\\s+\\(?\\s*(\\d+)`));
  return m ? parseInt(m[1], 10) : undefined;
}

function prepareAot(M, meta, w) {
  // 1. import
  const json = path.join(w, 'model.json');
  const lnOnnx = path.join(BIN, 'ln-onnx');
  if (!fs.existsSync(lnOnnx)) return {ok: false, why: `${path.relative(ROOT, lnOnnx)} not built`};
  let r = sh(lnOnnx, [path.join(M.dir, 'model.onnx'), '-o', json, '--data', path.join(w, 'model.params')]);
  if (!r.ok) return {ok: false, stage: 'import', why: 'import: ' + firstLine(r.out)};
  // 2. emit
  const lnAot = path.join(BIN, 'ln-aot');
  if (!fs.existsSync(lnAot)) return {ok: false, stage: 'aot', why: 'ln-aot not built yet', imported: true};
  const t0 = Date.now();
  r = sh(lnAot, ['-n', 'bm', '-o', path.join(w, 'bm.c'), '--header', path.join(w, 'bm.h'), json]);
  const aotSec = (Date.now() - t0) / 1000;
  if (!r.ok) return {ok: false, stage: 'aot', why: 'ln-aot: ' + firstLine(r.out), imported: true};
  // 3. compile (model object separately, for its size)
  const cflags = ['-std=c99', '-O3', '-march=native', `-I${w}`, `-I${path.join(ROOT, 'runtime', 'include')}`];
  let t1 = Date.now();
  r = sh(opt.cc, [...cflags, '-c', path.join(w, 'bm.c'), '-o', path.join(w, 'bm.o')]);
  let ccSec = (Date.now() - t1) / 1000;
  let sanitized = null;
  if (!r.ok) {
    // Workaround while ln-aot pastes ONNX node names ('/conv1/Conv') into C
    // identifiers: emit again from an IR whose op names are made identifiers,
    // and say so in the notes.
    const why = 'cc bm.c: ' + firstLine(r.out);
    const ir = JSON.parse(fs.readFileSync(json, 'utf8'));
    const bad = (ir.ops || []).filter((o) => !/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.name)).length;
    if (!bad) return {ok: false, stage: 'cc', why, imported: true};
    for (const o of ir.ops) o.name = o.name.replace(/[^A-Za-z0-9_]/g, '_');
    const json2 = path.join(w, 'model_ident.json');
    fs.writeFileSync(json2, JSON.stringify(ir));
    r = sh(lnAot, ['-n', 'bm', '-o', path.join(w, 'bm.c'), '--header', path.join(w, 'bm.h'), json2]);
    if (!r.ok) return {ok: false, stage: 'aot', why: `${why}; with identifier op names, ln-aot: ${firstLine(r.out)}`, imported: true};
    t1 = Date.now();
    r = sh(opt.cc, [...cflags, '-c', path.join(w, 'bm.c'), '-o', path.join(w, 'bm.o')]);
    ccSec = (Date.now() - t1) / 1000;
    if (!r.ok) return {ok: false, stage: 'cc', why: `${why}; with identifier op names: ${firstLine(r.out)}`, imported: true};
    sanitized = `ln-aot's C did not compile with the ONNX node names (${why}); ` +
      `measured with ${bad} op names rewritten to C identifiers in the IR (workaround in bench/run.js, to drop once ln-aot handles them)`;
  }
  r = sh(opt.cc, [...cflags, '-D_POSIX_C_SOURCE=200809L', '-DBM_NAME=bm', '-DBM_UNAME=BM',
    '-DBM_HEADER="bm.h"', `-I${BENCH}`, path.join(BENCH, 'driver.c'), path.join(w, 'bm.o'),
    RT, ...opt.ldlibs.split(/\s+/).filter((x) => x), '-o', path.join(w, 'driver')]);
  if (!r.ok) return {ok: false, stage: 'cc', why: 'link driver: ' + firstLine(r.out), imported: true};
  const h = fs.readFileSync(path.join(w, 'bm.h'), 'utf8');
  return {ok: true, imported: true, aotSec, ccSec, sanitized, size: hostSize(path.join(w, 'bm.o')),
    arena: headerInt(h, 'BM', 'ARENA_SIZE'), lowerBound: headerInt(h, 'BM', 'ARENA_LOWER_BOUND')};
}

function m4Count(M) {
  if (!opt.m4) return {why: 'skipped (--no-m4)'};
  const dir = path.join(ROOT, 'examples', 'cortex-m4');
  if (!fs.existsSync(path.join(dir, 'Makefile'))) return {why: 'examples/cortex-m4 not there yet'};
  if (!TEST_MODELS.includes(M.name)) return {why: 'not a firmware model'};
  const r = sh('make', ['-s', '-C', dir, `MODEL=${M.name}`, 'run'], {timeout: opt.m4Timeout});
  fs.writeFileSync(path.join(WORK, M.name, 'm4.log'), r.out);
  if (r.timedOut) return {why: `timed out after ${opt.m4Timeout} s`};
  const m = r.out.match(/^instructions:\s*([0-9][0-9,']*)/m) ||
    r.out.match(/instructions?[^0-9\n]*?([0-9][0-9,']*)/i) ||
    r.out.match(/([0-9][0-9,']*)\s*instructions?/i);
  if (!r.ok) return {why: 'firmware run failed: ' + firstLine(r.out), count: m ? parseInt(m[1].replace(/[,']/g, ''), 10) : undefined};
  if (!m) return {why: 'no instruction count in the output'};
  return {count: parseInt(m[1].replace(/[,']/g, ''), 10), pass: /\bPASS\b/.test(r.out)};
}

function profile(M, meta, runs) {
  const args = [`--profile=${runs}`];
  args.push('-i', `${meta.input_name}=${path.join(M.dir, 'input.bin')}`);
  args.push(path.join(M.dir, 'model.onnx'));
  let r = timed(path.join(BIN, 'lightnet'), args);
  if (!r.ok) r = timed(path.join(BIN, 'lightnet'), [`--profile=${runs}`, path.join(M.dir, 'model.onnx')]);
  if (!r.ok) return {ok: false, text: firstLine(r.out)};
  const lines = r.stdout.split('\n');
  const i = lines.findIndex((l) => l.startsWith('profile of'));
  const text = (i >= 0 ? lines.slice(i).join('\n') : r.stdout).trim().split(ROOT + '/').join('');
  return {ok: i >= 0, text};
}

// What kind of op each imported op is (conv2d: depthwise/pointwise, kernel,
// stride), from the IR ln-onnx wrote, by op name.
function opKinds(irFile) {
  const kinds = {};
  let ir;
  try { ir = JSON.parse(fs.readFileSync(irFile, 'utf8')); } catch (e) { return kinds; }
  for (const o of ir.ops || []) {
    const P = {};
    for (const p of o.params || []) P[p.arg_name] = p.value;
    let k = o.optype;
    if (/conv/.test(o.optype) && Array.isArray(P.kernel_shape)) {
      const ks = P.kernel_shape.join('x');
      const st = Array.isArray(P.stride) && P.stride.some((x) => x !== 1) ? ` stride ${P.stride.join('x')}` : '';
      if (P.group > 1) k = `${o.optype} depthwise/grouped ${ks}${st}`;
      else if (ks === '1x1') k = `${o.optype} pointwise 1x1${st}`;
      else k = `${o.optype} ${ks}${st}`;
    }
    kinds[o.name] = k;
  }
  return kinds;
}

// Parse the profile table into totals per op kind (optype, or the finer
// kind from opKinds when the op name is known).
function profileByType(text, kinds) {
  const by = {};
  for (const l of text.split('\n')) {
    const m = l.match(/^\s+(\S+)\s+(\S+)\s+([\d.]+)\s+([\d.]+)%/);
    if (!m) continue;
    const k = (kinds && kinds[m[1]]) || m[2];
    by[k] = by[k] || {ms: 0, share: 0, n: 0};
    by[k].ms += parseFloat(m[3]);
    by[k].share += parseFloat(m[4]);
    by[k].n++;
  }
  return Object.entries(by).sort((a, b) => b[1].ms - a[1].ms);
}

// ---------------------------------------------------------------- one model
// One engine kept running in serve mode (bench_serve in bench_common.h,
// ort_bench.js --serve): start() waits for "ready" and returns the JSON line
// printed before it (or null); run(k) returns k times in ms; quit() waits
// for the exit (the engine writes its output then).
class Served {
  constructor(cmd, args) {
    const full = opt.pin && have('taskset') ? ['taskset', ['-c', String(PIN_CPU), cmd, ...args]] : [cmd, args];
    this.p = cp.spawn(full[0], full[1], {cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe']});
    this.buf = '';
    this.lines = [];
    this.waiters = [];
    this.err = '';
    this.exited = null;
    this.p.stdout.setEncoding('utf8');
    this.p.stderr.setEncoding('utf8');
    this.p.stdout.on('data', (d) => {
      this.buf += d;
      let i;
      while ((i = this.buf.indexOf('\n')) >= 0) {
        this.lines.push(this.buf.slice(0, i));
        this.buf = this.buf.slice(i + 1);
      }
      this.wake();
    });
    this.p.stderr.on('data', (d) => { this.err += d; });
    this.p.stdin.on('error', () => { /* the engine died: reported by line() */ });
    this.p.on('error', (e) => { this.exited = {code: -1, why: e.message}; this.wake(); });
    this.p.on('close', (code, sig) => { this.exited = {code, why: sig ? `killed by ${sig}` : `exit ${code}`}; this.wake(); });
  }
  wake() {
    while (this.waiters.length && (this.lines.length || this.exited)) {
      const w = this.waiters.shift();
      if (this.lines.length) w.ok(this.lines.shift());
      else w.fail(new Error(firstLine(this.err) || this.exited.why));
    }
  }
  line() {
    return new Promise((ok, fail) => { this.waiters.push({ok, fail}); this.wake(); });
  }
  async start() {
    let header = null;
    for (;;) {
      const l = await this.line();
      if (l === 'ready') return header;
      if (l.startsWith('error')) throw new Error(firstLine(this.err) || l);
      if (l.trim().startsWith('{')) { try { header = JSON.parse(l); } catch (e) { /* not ours */ } }
    }
  }
  async run(k) {
    this.p.stdin.write(`run ${k}\n`);
    const l = await this.line();
    if (l.startsWith('error')) throw new Error(firstLine(this.err) || l);
    const ts = l.trim().split(/\s+/).map(Number);
    if (ts.length !== k || ts.some((x) => !Number.isFinite(x))) throw new Error(`bad answer '${l.slice(0, 80)}'`);
    return ts;
  }
  async quit() {
    if (!this.exited) this.p.stdin.end('quit\n');
    await new Promise((ok) => { if (this.exited) ok(); else this.p.on('close', () => ok()); });
    if (this.exited.code !== 0) throw new Error(firstLine(this.err) || this.exited.why);
  }
}

async function benchModel(M, ortVersion) {
  const res = {name: M.name, notes: []};
  const w = path.join(WORK, M.name);
  fs.mkdirSync(w, {recursive: true});
  if (!fs.existsSync(path.join(M.dir, 'model.onnx'))) {
    res.skip = 'model not built (see notes)';
    return res;
  }
  const meta = JSON.parse(fs.readFileSync(path.join(M.dir, 'meta.json'), 'utf8'));
  res.meta = {input_shape: meta.input_shape, output_shape: meta.output_shape, params: meta.params,
    op_types: meta.op_types, nodes: meta.nodes, description: meta.description};
  const input = path.join(M.dir, 'input.bin');
  const ref = readF32(path.join(M.dir, 'output.bin'));
  const outElems = meta.output_shape.reduce((x, y) => x * y, 1);
  const shape = meta.input_shape.join(',');

  // LightNet: emitted C, then the interpreter (needs import only).
  const aot = prepareAot(M, meta, w);
  res.aot = aot;
  if (!aot.ok) res.notes.push(`emitted C: ${aot.why}`);
  if (aot.ok && aot.sanitized) res.notes.push(`emitted C: ${aot.sanitized}`);
  const interpBin = path.join(WORK, 'interp_driver');
  let interpOk = fs.existsSync(interpBin);
  if (!interpOk) res.notes.push('interpreter: build/bench/interp_driver not built');
  else if (INTERP_STALE) res.notes.push(INTERP_STALE);

  // Calibrate on ONNX Runtime (one short run): K runs per round so that a
  // round of one engine takes about --round-ms.
  const ort = path.join(BENCH, 'ort_bench.js');
  const r = timed(process.execPath, [ort, '--model', path.join(M.dir, 'model.onnx'), '--input', input,
    '--shape', shape, '--runs', '5', '--warmup', '2']);
  const cal = parseJsonLine(r.stdout);
  if (!r.ok || !cal) {
    res.notes.push('ONNX Runtime: ' + firstLine(r.out));
    res.ortFailed = true;
  }
  const est = cal ? cal.median_ms : 10;
  let perRound = Math.max(1, Math.min(opt.maxRuns, Math.round(opt.roundMs / Math.max(est, 1e-3))));
  let rounds = Math.max(opt.rounds, Math.ceil(opt.minRuns / perRound));
  if (opt.runs) { perRound = Math.max(1, Math.ceil(opt.runs / opt.rounds)); rounds = opt.rounds; }
  const warmup = opt.warmup || Math.max(3, Math.min(50, Math.round(perRound * rounds / 20)));
  res.runs = perRound * rounds;
  res.perRound = perRound;
  res.warmup = warmup;
  res.rounds = rounds;
  log(`bench: ${M.name}: ${rounds} rounds x ${perRound} runs per engine (warm-up ${warmup})` +
    `${aot.ok ? '' : ' [emitted C: ' + aot.why + ']'}`);

  // The engines stay up (serve mode) and take turns: round i runs the
  // emitted C K times, then the interpreter K times, then ONNX Runtime.
  const engines = [];
  const onnx = path.join(M.dir, 'model.onnx');
  const outOf = (k) => path.join(w, `out_${k}.bin`);
  if (aot.ok) engines.push({key: 'c', label: 'emitted C', cmd: path.join(w, 'driver'), args: [input, outOf('c'), String(outElems), '--serve', String(warmup)]});
  if (interpOk) engines.push({key: 'interp', label: 'interpreter', cmd: interpBin, args: [onnx, input, outOf('interp'), '--serve', String(warmup)]});
  if (!res.ortFailed) engines.push({key: 'ort', label: 'ONNX Runtime', cmd: process.execPath, args: [ort, '--model', onnx, '--input', input, '--shape', shape, '--out', outOf('ort'), '--warmup', String(warmup), '--serve']});

  const E = {};
  for (const e of engines) {
    const st = E[e.key] = {times: [], roundMedians: [], failed: null, header: null};
    for (const f of [outOf(e.key)]) if (fs.existsSync(f)) fs.unlinkSync(f);
    st.proc = new Served(e.cmd, e.args);
    try {
      st.header = await st.proc.start();
    } catch (err) {
      st.failed = err.message;
      res.notes.push(`${e.label}: ${st.failed}`);
    }
  }
  for (let round = 0; round < rounds; round++) {
    for (const e of engines) {
      const st = E[e.key];
      if (st.failed) continue;
      try {
        const ts = await st.proc.run(perRound);
        st.times.push(...ts);
        st.roundMedians.push(median(ts));
      } catch (err) {
        st.failed = err.message;
        res.notes.push(`${e.label} run: ${st.failed}`);
      }
    }
  }
  for (const e of engines) {
    const st = E[e.key];
    try {
      await st.proc.quit();
    } catch (err) {
      if (!st.failed) { st.failed = err.message; res.notes.push(`${e.label}: ${st.failed}`); }
    }
    st.out = outOf(e.key);
  }
  for (const k of Object.keys(E)) {
    const st = E[k];
    if (st.failed || !st.times.length || !fs.existsSync(st.out)) continue;
    const med = median(st.times);
    res[k] = {median_ms: med, min_ms: Math.min(...st.times),
      round_medians: st.roundMedians,
      spread: (Math.max(...st.roundMedians) - Math.min(...st.roundMedians)) / med,
      json: st.header};
  }
  if (res.c && res.ort) res.ratio = res.c.median_ms / res.ort.median_ms;
  if (res.interp && res.ort) res.ratioInterp = res.interp.median_ms / res.ort.median_ms;

  // Agreement.
  res.agree = {};
  const outs = {};
  for (const k of ['c', 'interp', 'ort']) if (res[k]) outs[k] = readF32(E[k].out);
  for (const k of Object.keys(outs)) res.agree[`${k}_vs_ref`] = compare(outs[k], ref);
  if (outs.c && outs.ort) res.agree.c_vs_ort = compare(outs.c, outs.ort, ref);
  if (outs.interp && outs.ort) res.agree.interp_vs_ort = compare(outs.interp, outs.ort, ref);
  if (outs.c && outs.interp) res.agree.c_vs_interp = compare(outs.c, outs.interp, ref);

  // Memory: the planner's figures (interpreter), the emitted header's arena.
  if (res.interp) {
    const j = res.interp.json;
    res.mem = {arena: j.arena, lower_bound: j.lower_bound, lower_bound_noalias: j.lower_bound_noalias,
      noreuse: j.noreuse, io: j.io, ops: j.ops};
  } else {
    // Interpreter unavailable or failed: ask lightnet --mem-report.
    const mr = sh(path.join(BIN, 'lightnet'), ['-c', '--mem-report', '-o', path.join(w, 'planned.json'), path.join(M.dir, 'model.onnx')]);
    if (mr.ok) {
      const g = (re) => { const m = mr.stdout.match(re); return m ? parseInt(m[1], 10) : undefined; };
      res.mem = {arena: g(/^\s*arena\s+(\d+)/m), lower_bound: g(/arena lower bound\s+(\d+)/),
        lower_bound_noalias: g(/bound without aliasing\s+(\d+)/), noreuse: g(/no reuse at all\s+(\d+)/),
        io: g(/caller buffers \(in\/out\)\s+(\d+)/)};
    }
  }
  if (aot.ok && aot.arena !== undefined) {
    res.mem = res.mem || {};
    res.mem.aot_arena = aot.arena;
    if (aot.lowerBound !== undefined) res.mem.aot_lower_bound = aot.lowerBound;
  }

  // Cortex-M4.
  res.m4 = m4Count(M);

  // Profile where LightNet is slower than ONNX Runtime (the emitted C's
  // ratio, or the interpreter's when there is no emitted C).
  const slow = Number.isFinite(res.ratio) ? res.ratio > 1 : Number.isFinite(res.ratioInterp) && res.ratioInterp > 1;
  if (slow) {
    const p = profile(M, meta, Math.max(5, Math.min(res.runs, 500)));
    res.profile = p;
  }
  return res;
}

// ---------------------------------------------------------------- report
function agreeCell(r) {
  const a = r.agree || {};
  const parts = [];
  const mark = (x) => (x ? (x.ok ? '✓' : '✗') : '');
  if (a.c_vs_ort) parts.push(`C~ORT ${mark(a.c_vs_ort)}`);
  if (a.c_vs_ref) parts.push(`C~ref ${mark(a.c_vs_ref)}`);
  if (a.interp_vs_ref) parts.push(`interp~ref ${mark(a.interp_vs_ref)}`);
  if (a.ort_vs_ref) parts.push(`ORT~ref ${mark(a.ort_vs_ref)}`);
  if (a.c_vs_interp) parts.push(a.c_vs_interp.bitexact ? 'C=interp bit-exact' : `C vs interp ${fmtE(a.c_vs_interp.rel)}`);
  return parts.join(', ') || '—';
}

// The table's short reason for a missing emitted-C figure (the whole
// message is in the notes).
function shortWhy(r) {
  const a = r.aot || {};
  if (a.ok) return 'run failed';
  if (a.stage === 'import') return 'does not import yet';
  if (a.stage === 'aot') return /not built/.test(a.why) ? 'ln-aot not built' : 'ln-aot failed';
  if (a.stage === 'cc') return 'emitted C does not compile';
  return md(a.why || 'failed');
}

function verdict(r) {
  const aim = AIM[r.name];
  if (!Number.isFinite(r.ratio) || aim === undefined) return '';
  return r.ratio <= aim ? `met (≤ ${aim})` : `missed (≤ ${aim})`;
}

function writeReport(results, mach, ortVersion, notes, cfg) {
  const L = [];
  L.push('# LightNet benchmark results');
  L.push('');
  L.push('Written by `make bench` (bench/run.js); do not edit by hand. What each figure means: ' +
    '[docs/performance.md](../docs/performance.md).');
  L.push('');
  L.push('## Machine');
  L.push('');
  L.push('| | |');
  L.push('|---|---|');
  L.push(`| date | ${mach.date} |`);
  L.push(`| CPU | ${md(mach.cpu)} (${mach.logical} logical CPUs, ${mach.coresPerSocket || '?'} cores per socket, ${mach.mhz ? Math.round(mach.mhz) + ' MHz' : '?'}) |`);
  L.push(`| ISA extensions | ${mach.isa || '—'} |`);
  L.push(`| virtual machine | ${mach.hypervisor} |`);
  L.push(`| memory | ${mach.mem} |`);
  L.push(`| OS | ${md(mach.os)}, ${md(mach.kernel)} |`);
  L.push(`| load average at start | ${mach.load} |`);
  L.push(`| C compiler | ${md(mach.cc)}; emitted C and libln_rt at \`-O3 -march=native\` |`);
  L.push(`| ONNX Runtime | onnxruntime-node ${ortVersion || '?'} (npm), Node.js ${mach.node}; 1 intra-op and 1 inter-op thread, graph optimization level all, sequential |`);
  L.push(`| LightNet | commit ${mach.commit || '?'} |`);
  L.push(`| method | the three engines run side by side as long-lived processes ${opt.pin ? `pinned to CPU ${PIN_CPU}` : '(unpinned)'}, warmed up, then take turns: R rounds of K timed runs each (emitted C, interpreter, ONNX Runtime, repeat; K x R per model below); each run timed alone with CLOCK_MONOTONIC; figure = median over all K x R runs |`);
  L.push('');
  L.push('## Latency, single thread');
  L.push('');
  L.push('Ratio = LightNet / ONNX Runtime median: below 1 means LightNet is faster.');
  L.push('');
  L.push('| model | K x R | LightNet C (ms) | interpreter (ms) | ONNX Runtime (ms) | **C / ORT** | interp / ORT | aim | outputs |');
  L.push('|---|---|---:|---:|---:|---:|---:|---|---|');
  for (const r of results) {
    if (r.skip) {
      L.push(`| ${r.name} | — | — | — | — | — | — | | skipped: ${md(r.skip)} |`);
      continue;
    }
    const cC = r.c ? fmtMs(r.c.median_ms) : `— (${shortWhy(r)})`;
    L.push(`| ${r.name} | ${r.perRound} x ${r.rounds} | ${cC} | ${r.interp ? fmtMs(r.interp.median_ms) : '—'} | ` +
      `${r.ort ? fmtMs(r.ort.median_ms) : '—'} | **${fmtRatio(r.ratio)}** | ${fmtRatio(r.ratioInterp)} | ` +
      `${verdict(r) || (AIM[r.name] ? `≤ ${AIM[r.name]}` : '')} | ${agreeCell(r)} |`);
  }
  L.push('');
  L.push(`Outputs: "A~B ✓" means max |A − B| ≤ ${TOL} × max |B| (B = ref is PyTorch's output.bin; ` +
    'for C~ORT the scale is max |ref|). Spread of the per-round medians (max − min over the median): ' +
    results.filter((r) => r.c || r.ort).map((r) => `${r.name} ${['c', 'interp', 'ort'].filter((k) => r[k]).map((k) => `${k} ${(100 * r[k].spread).toFixed(0)}%`).join('/')}`).join('; ') + '. ' +
    'Ratio of the fastest runs (min C / min ORT), a check on load noise: ' +
    results.filter((r) => r.c && r.ort).map((r) => `${r.name} ${fmtRatio(r.c.min_ms / r.ort.min_ms)}`).join(', ') + '.');
  L.push('');
  L.push('## Memory and size');
  L.push('');
  L.push('Bytes. Arena: the one block the planner lays every intermediate tensor in (graph inputs and outputs ' +
    'are the caller\'s buffers, listed apart). Lower bound: the largest sum of bytes live at one step, with aliasing. ' +
    'No-reuse: every tensor its own buffer.');
  L.push('');
  L.push('| model | arena | lower bound | arena / bound | bound w/o aliasing | no-reuse total | caller I/O | host .text | host .rodata | Cortex-M4 instr/inference |');
  L.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    if (r.skip) { L.push(`| ${r.name} | — | — | — | — | — | — | — | — | — |`); continue; }
    const m = r.mem || {};
    const arena = m.aot_arena !== undefined ? m.aot_arena : m.arena;
    const lb = m.aot_lower_bound !== undefined ? m.aot_lower_bound : m.lower_bound;
    const sz = r.aot && r.aot.size;
    const m4 = r.m4 || {};
    L.push(`| ${r.name} | ${fmtInt(arena)} | ${fmtInt(lb)} | ${lb ? (arena / lb).toFixed(2) : '—'} | ` +
      `${fmtInt(m.lower_bound_noalias)} | ${fmtInt(m.noreuse)} | ${fmtInt(m.io)} | ` +
      `${sz ? fmtInt(sz.text) : '—'} | ${sz ? fmtInt(sz.rodata) : '—'} | ` +
      `${m4.count !== undefined ? fmtInt(m4.count) : '—'}${m4.pass === false ? ' (no PASS)' : ''}${m4.why ? ` (${md(m4.why)})` : ''} |`);
  }
  L.push('');
  L.push('Host .text/.rodata: `size -A` of the emitted model object alone (x86-64, -O3), .rodata being mostly weights. ' +
    'Cortex-M4 instructions: one inference under qemu-system-arm -icount, from `make -C examples/cortex-m4 MODEL=<name> run`.');
  L.push('');

  const detail = results.filter((r) => r.agree && Object.keys(r.agree).length);
  if (detail.length) {
    L.push('## Output agreement, detail');
    L.push('');
    L.push('max |diff| / max |reference| per pair (tolerance 1e-4).');
    L.push('');
    L.push('| model | C vs ref | interp vs ref | ORT vs ref | C vs ORT | C vs interp |');
    L.push('|---|---:|---:|---:|---:|---:|');
    const c = (x) => (x ? `${fmtE(x.rel)}${x.ok ? '' : ' ✗'}` : '—');
    for (const r of detail) {
      const a = r.agree;
      L.push(`| ${r.name} | ${c(a.c_vs_ref)} | ${c(a.interp_vs_ref)} | ${c(a.ort_vs_ref)} | ${c(a.c_vs_ort)} | ${a.c_vs_interp ? (a.c_vs_interp.bitexact ? '0 (bit-exact)' : c(a.c_vs_interp)) : '—'} |`);
    }
    L.push('');
  }

  const allNotes = notes.slice();
  for (const r of results) for (const n of r.notes || []) allNotes.push(`${r.name}: ${n}`);
  for (const r of results) {
    if (r.aot && r.aot.ok) allNotes.push(`${r.name}: ln-aot ${r.aot.aotSec.toFixed(2)} s, cc -O3 of the model ${r.aot.ccSec.toFixed(1)} s`);
  }
  if (allNotes.length) {
    L.push('## Notes');
    L.push('');
    for (const n of allNotes) L.push(`- ${md(n)}`);
    L.push('');
  }

  const slow = results.filter((r) => r.profile);
  if (slow.length) {
    L.push('## Where LightNet is slower: per-op profiles');
    L.push('');
    L.push('`lightnet --profile=N -i input=input.bin model.onnx` (the interpreter, same kernels as the emitted C; ' +
      'interpreter totals are sums of per-op times, not the median above).');
    L.push('');
    for (const r of slow) {
      const kinds = opKinds(path.join(WORK, r.name, 'model.json'));
      const by = r.profile.ok ? profileByType(r.profile.text, kinds) : [];
      const ratioTxt = Number.isFinite(r.ratio) ? `C / ORT ${fmtRatio(r.ratio)}` : `interp / ORT ${fmtRatio(r.ratioInterp)}`;
      L.push(`### ${r.name} (${ratioTxt})`);
      L.push('');
      if (by.length) {
        L.push('Time by kind of op: ' + by.slice(0, 6).map(([t, v]) => `${t} ${v.share.toFixed(1)}% (${v.n} op${v.n > 1 ? 's' : ''}, ${fmtMs(v.ms)} ms)`).join(', ') + '.');
        L.push('');
      }
      const lines = r.profile.text.split('\n').map((l) => {
        const m = l.match(/^\s+(\S+)\s+(\S+)\s+[\d.]+\s+[\d.]+%/);
        return m && kinds[m[1]] && kinds[m[1]] !== m[2].replace(/_cpu$/, '') ? `${l}  ${kinds[m[1]]}` : l;
      });
      L.push('```');
      L.push(...lines.slice(0, 2 + 15));
      if (lines.length > 17) L.push(`  ... ${lines.length - 17} more ops`);
      L.push('```');
      L.push('');
    }
  }
  if (fs.existsSync(outSibling('.png'))) {
    L.push(`![latency ratio and arena vs lower bound](${path.basename(outSibling('.png'))})`);
    L.push('');
  }
  fs.writeFileSync(opt.out, L.join('\n'));
}

function plot(results) {
  if (!opt.plot) return 'plot skipped (--no-plot)';
  if (!have('gnuplot')) return 'no plot: gnuplot not installed (apt-get install gnuplot-nox)';
  const dat = path.join(WORK, 'plot.dat');
  const rows = ['# model c_over_ort interp_over_ort arena_kib lower_bound_kib noreuse_kib'];
  const nan = (x) => (Number.isFinite(x) ? x : 'NaN');
  for (const r of results) {
    if (r.skip) continue;
    const m = r.mem || {};
    const arena = m.aot_arena !== undefined ? m.aot_arena : m.arena;
    const lb = m.aot_lower_bound !== undefined ? m.aot_lower_bound : m.lower_bound;
    rows.push([`"${r.name}"`, nan(r.ratio), nan(r.ratioInterp), nan(arena / 1024), nan(lb / 1024),
      nan(m.noreuse / 1024)].join(' '));
  }
  fs.writeFileSync(dat, rows.join('\n') + '\n');
  const png = outSibling('.png');
  const tmp = png + '.tmp.png';
  const r = sh('gnuplot', ['-e', `datafile='${dat}'; outfile='${tmp}'`, path.join(BENCH, 'plot.gp')]);
  if (!r.ok) return 'plot failed: ' + firstLine(r.out);
  fs.renameSync(tmp, png);
  return null;
}

// The report's companions: --out's path with .json / .png for its .md.
function outSibling(ext) {
  return opt.out.replace(/\.md$/, '') + ext;
}

// ---------------------------------------------------------------- main
async function main() {
  const notes = [];
  const mach = machine();
  ensureBigModels(notes);
  const models = modelList();
  let ortVersion = null;
  try {
    ortVersion = require(path.join(BENCH, 'node_modules', 'onnxruntime-node', 'package.json')).version;
  } catch (e) {
    notes.push('onnxruntime-node is not installed in bench/node_modules (cd bench && npm install --ignore-scripts)');
  }
  log(`bench: ${mach.cpu}, ${mach.logical} CPUs; ${opt.cc}; onnxruntime-node ${ortVersion || '(missing)'}`);
  const results = [];
  for (const M of models) {
    const r = await benchModel(M, ortVersion);
    results.push(r);
    const f = (x) => (Number.isFinite(x) ? x.toFixed(2) : '—');
    if (r.skip) log(`bench: ${M.name}: skipped: ${r.skip}`);
    else {
      log(`bench: ${M.name}: C ${r.c ? fmtMs(r.c.median_ms) : '—'} ms, interp ${r.interp ? fmtMs(r.interp.median_ms) : '—'} ms, ` +
        `ORT ${r.ort ? fmtMs(r.ort.median_ms) : '—'} ms; C/ORT ${f(r.ratio)}, interp/ORT ${f(r.ratioInterp)}; ${agreeCell(r)}`);
    }
  }
  const cfg = {rounds: opt.rounds};
  const pm = plot(results);
  if (pm) notes.push(pm);
  writeReport(results, mach, ortVersion, notes, cfg);
  const slim = results.map((r) => {
    const o = Object.assign({}, r);
    if (o.profile) o.profile = o.profile.text;
    return o;
  });
  fs.writeFileSync(outSibling('.json'), JSON.stringify({machine: mach, ort_version: ortVersion,
    config: Object.assign({}, opt, {out: path.relative(ROOT, opt.out)}), notes, results: slim}, null, 1) + '\n');
  log(`bench: wrote ${path.relative(ROOT, opt.out)}, ${path.relative(ROOT, outSibling('.json'))}` +
    (pm ? '' : `, ${path.relative(ROOT, outSibling('.png'))}`));
  const bad = results.some((r) => r.agree && Object.values(r.agree).some((a) => a && a.ok === false &&
    a !== r.agree.c_vs_interp));
  if (bad) log('bench: WARNING: some outputs disagree (see the table)');
}

main().catch((e) => { process.stderr.write(`bench: ${e && e.stack ? e.stack : e}\n`); process.exit(1); });
