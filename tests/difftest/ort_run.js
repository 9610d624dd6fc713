#!/usr/bin/env node
// ort_run.js DIR... -- the ONNX Runtime side of the differential tester.
// Each DIR holds model.onnx, inputs.txt and outs.txt (graph input and
// output names, one a line), in_<k>.bin and shape_<k>.json per input;
// output k is written to DIR/ort_<k>.bin, or the error to DIR/ort.err.
// One thread, no graph optimizations (the reference runs the graph as
// written: ORT's own fusions once made an invalid pool of Pad + pool); one process for a whole batch.
// "BEGIN DIR" goes to stderr before each model (a crash is then named).
// onnxruntime-node comes from bench/node_modules (bench/setup.sh).
'use strict';
const fs = require('fs');
const path = require('path');

let ort;
try {
  ort = require(path.join(__dirname, '..', '..', 'bench', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  process.stderr.write('ort_run: onnxruntime-node is not installed in bench/node_modules ' +
                       '(run sh bench/setup.sh): ' + e.message + '\n');
  process.exit(2);
}

const OPTS = {intraOpNumThreads: 1, interOpNumThreads: 1,
              graphOptimizationLevel: 'disabled', executionMode: 'sequential'};

function lines(p) {
  return fs.readFileSync(p, 'utf8').split('\n').filter((l) => l.length > 0);
}

async function one(dir) {
  try {
    const s = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), OPTS);
    const ins = lines(path.join(dir, 'inputs.txt'));
    const outs = lines(path.join(dir, 'outs.txt'));
    const feeds = {};
    ins.forEach((name, k) => {
      const b = fs.readFileSync(path.join(dir, 'in_' + k + '.bin'));
      const shape = JSON.parse(fs.readFileSync(path.join(dir, 'shape_' + k + '.json')));
      const f = new Float32Array(b.buffer, b.byteOffset, b.length / 4);
      feeds[name] = new ort.Tensor('float32', Float32Array.from(f), shape);
    });
    const res = await s.run(feeds);
    outs.forEach((name, k) => {
      const d = res[name].data;
      fs.writeFileSync(path.join(dir, 'ort_' + k + '.bin'),
                       Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    });
    if (s.release)
      await s.release();
  } catch (e) {
    fs.writeFileSync(path.join(dir, 'ort.err'), String(e && e.message ? e.message : e) + '\n');
  }
}

(async () => {
  for (const d of process.argv.slice(2)) {
    process.stderr.write('BEGIN ' + d + '\n');
    await one(d);
  }
})();
