#!/usr/bin/env node
// ort_run.js DIR... -- the ONNX Runtime side of the differential tester.
// Each DIR holds model.onnx, in_<name>.bin (raw float32) per graph input
// and outs.txt; output <name> is written to DIR/ort_<name>.bin, or the
// error to DIR/ort.err.  One thread, all graph optimizations; one process
// for a whole batch.  onnxruntime-node comes from bench/node_modules
// (bench/setup.sh installs it).
'use strict';
const fs = require('fs');
const path = require('path');

let ort;
try {
  ort = require(path.join(__dirname, '..', '..', 'bench', 'node_modules', 'onnxruntime-node'));
} catch (e) {
  process.stderr.write('ort_run: onnxruntime-node is not installed (run sh bench/setup.sh)\n');
  process.exit(2);
}

const OPTS = {intraOpNumThreads: 1, interOpNumThreads: 1,
              graphOptimizationLevel: 'all', executionMode: 'sequential'};

async function one(dir) {
  try {
    const s = await ort.InferenceSession.create(path.join(dir, 'model.onnx'), OPTS);
    const feeds = {};
    for (const name of s.inputNames) {
      const b = fs.readFileSync(path.join(dir, 'in_' + name + '.bin'));
      const shape = JSON.parse(fs.readFileSync(path.join(dir, 'shape_' + name + '.json')));
      const f = new Float32Array(b.buffer, b.byteOffset, b.length / 4);
      feeds[name] = new ort.Tensor('float32', Float32Array.from(f), shape);
    }
    const res = await s.run(feeds);
    for (const name of s.outputNames) {
      const d = res[name].data;
      fs.writeFileSync(path.join(dir, 'ort_' + name + '.bin'),
                       Buffer.from(d.buffer, d.byteOffset, d.byteLength));
    }
  } catch (e) {
    fs.writeFileSync(path.join(dir, 'ort.err'), String(e && e.message ? e.message : e) + '\n');
  }
}

(async () => {
  for (const d of process.argv.slice(2))
    await one(d);
})();
