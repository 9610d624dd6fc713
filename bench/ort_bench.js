#!/usr/bin/env node
// ort_bench.js -- time one ONNX model in ONNX Runtime (npm onnxruntime-node),
// single-threaded, the way bench/driver.c times LightNet's emitted C.
//
//   node bench/ort_bench.js --model M.onnx --input in.bin --shape 1,3,32,32
//        [--out out.bin] [--runs N] [--warmup W] [--times FILE] [--api native|async]
//        [--serve]
//
// Session: intraOpNumThreads 1, interOpNumThreads 1, graphOptimizationLevel
// 'all', executionMode 'sequential', CPU execution provider.  The input is
// raw little-endian float32 (the model's first input), the first output is
// written raw to --out.  W warm-up runs, then N timed runs, each timed alone
// with process.hrtime.bigint() (CLOCK_MONOTONIC, like the C driver).
//
// --api native (default) times the binding's synchronous run() -- what
// InferenceSession.run() calls after a setImmediate() hop and a Promise --
// so the figure is ONNX Runtime's Run() plus the N-API marshalling of one
// input and one output, without the JS event-loop round trip (which alone
// costs tens of microseconds and would swamp the smallest models).
// --api async times the public `await session.run(feeds)`.
//
// Prints one JSON line: {"median_ms", "min_ms", "mean_ms", "runs", "api",
// "ort_version", "output_elems"}.
//
// --serve: after the warm-up, prints {"api", "ort_version"} and "ready", then
// takes commands on stdin, one a line, like bench/driver.c --serve:
// "run K" answers one line with K times in ms; "quit" writes --out and exits.
'use strict';

const fs = require('fs');
const path = require('path');

function die(msg) {
  process.stderr.write('ort_bench: ' + msg + '\n');
  process.exit(1);
}

function parseArgs(argv) {
  const a = {runs: 100, warmup: 10, api: 'native'};
  for (let i = 2; i < argv.length; i++) {
    const k = argv[i];
    const v = argv[i + 1];
    switch (k) {
      case '--model': a.model = v; i++; break;
      case '--input': a.input = v; i++; break;
      case '--shape': a.shape = v.split(',').map(Number); i++; break;
      case '--out': a.out = v; i++; break;
      case '--runs': a.runs = parseInt(v, 10); i++; break;
      case '--warmup': a.warmup = parseInt(v, 10); i++; break;
      case '--times': a.times = v; i++; break;
      case '--api': a.api = v; i++; break;
      case '--serve': a.serve = true; break;
      case '-h': case '--help':
      {
        const ls = fs.readFileSync(__filename, 'utf8').split('\n').slice(1);
        const end = ls.findIndex((l) => !l.startsWith('//'));
        process.stdout.write(ls.slice(0, end).map((l) => l.slice(3)).join('\n') + '\n');
      }
        process.exit(0);
        break;
      default: die('unknown argument ' + k);
    }
  }
  if (!a.model || !a.input || !a.shape) die('need --model, --input and --shape');
  if (!(a.runs > 0) || !(a.warmup >= 0)) die('bad --runs/--warmup');
  if (a.api !== 'native' && a.api !== 'async') die('--api is native or async');
  return a;
}

function median(xs) {
  const s = xs.slice().sort((x, y) => x - y);
  const n = s.length;
  return n % 2 ? s[(n - 1) >> 1] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
}

function loadOrt() {
  // bench/node_modules first (where make bench installs it), then the usual lookup.
  try {
    return require(path.join(__dirname, 'node_modules', 'onnxruntime-node'));
  } catch (e) {
    try {
      return require('onnxruntime-node');
    } catch (e2) {
      die('onnxruntime-node not installed (cd bench && npm install --ignore-scripts): ' + e.message);
    }
  }
  return null;
}

const SESSION_OPTIONS = {
  executionProviders: ['cpu'],
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  graphOptimizationLevel: 'all',
  executionMode: 'sequential',
};

async function main() {
  const a = parseArgs(process.argv);
  const ort = loadOrt();
  let version = '?';
  try {
    version = require(path.join(path.dirname(require.resolve('onnxruntime-node',
      {paths: [__dirname]})), 'version.js')).version;
  } catch (e) {
    try { version = ort.env.versions.node || ort.env.versions.common; } catch (e2) { /* keep ? */ }
  }

  const raw = fs.readFileSync(a.input);
  const nelem = a.shape.reduce((x, y) => x * y, 1);
  if (raw.length !== 4 * nelem) {
    die(`${a.input}: ${raw.length} bytes, shape ${a.shape.join('x')} needs ${4 * nelem}`);
  }
  const data = new Float32Array(nelem);
  for (let i = 0; i < nelem; i++) data[i] = raw.readFloatLE(4 * i);
  const input = new ort.Tensor('float32', data, a.shape);

  const session = await ort.InferenceSession.create(a.model, SESSION_OPTIONS);
  const inName = session.inputNames[0];
  const outName = session.outputNames[0];
  const feeds = {[inName]: input};

  let runOnce;
  let api = a.api;
  if (api === 'native') {
    // The binding the public API wraps, loaded the same way it does.
    let native = null;
    try {
      const binding = require(path.join(path.dirname(require.resolve('onnxruntime-node',
        {paths: [__dirname]})), 'binding.js'));
      binding.initOrt();
      native = new binding.binding.InferenceSession();
      native.loadModel(a.model, SESSION_OPTIONS);
    } catch (e) {
      process.stderr.write('ort_bench: native binding unusable (' + e.message +
        '), timing the async API\n');
      native = null;
      api = 'async';
    }
    if (native) {
      const fetches = {[outName]: null};
      runOnce = () => native.run(feeds, fetches, {})[outName];
    }
  }
  if (api === 'async') {
    runOnce = async () => (await session.run(feeds))[outName];
  }

  let out = null;
  for (let i = 0; i < a.warmup; i++) out = await runOnce();
  const writeOut = () => {
    const d = out.data !== undefined ? out.data : out;
    if (!a.out) return d;
    const buf = Buffer.alloc(4 * d.length);
    for (let i = 0; i < d.length; i++) buf.writeFloatLE(d[i], 4 * i);
    fs.writeFileSync(a.out, buf);
    return d;
  };
  if (a.serve) {
    if (!out) out = await runOnce();
    process.stdout.write(JSON.stringify({api, ort_version: version}) + '\nready\n');
    const rl = require('readline').createInterface({input: process.stdin, terminal: false});
    for await (const line of rl) {
      if (line.startsWith('quit')) break;
      const m = line.match(/^run (\d+)/);
      if (!m || !(parseInt(m[1], 10) > 0)) { process.stdout.write('error bad command\n'); continue; }
      const k = parseInt(m[1], 10);
      const ts = new Array(k);
      for (let i = 0; i < k; i++) {
        const t0 = process.hrtime.bigint();
        out = await runOnce();
        ts[i] = (Number(process.hrtime.bigint() - t0) / 1e6).toFixed(6);
      }
      process.stdout.write(ts.join(' ') + '\n');
    }
    rl.close();
    writeOut();
    return;
  }
  const times = new Array(a.runs);
  for (let i = 0; i < a.runs; i++) {
    const t0 = process.hrtime.bigint();
    out = await runOnce();
    const t1 = process.hrtime.bigint();
    times[i] = Number(t1 - t0) / 1e6;
  }
  if (!out) out = await runOnce();
  const outData = writeOut();
  if (a.times) fs.writeFileSync(a.times, times.map((t) => t.toFixed(6)).join('\n') + '\n');
  const mean = times.reduce((x, y) => x + y, 0) / times.length;
  process.stdout.write(JSON.stringify({
    median_ms: median(times), min_ms: Math.min(...times), mean_ms: mean, runs: a.runs,
    api, ort_version: version, output_elems: outData.length,
  }) + '\n');
}

main().catch((e) => die(e && e.stack ? e.stack : String(e)));
