#!/usr/bin/env node
// parse.mjs times mdx-m3-viewer's MDX/MDL parser on each file given and prints one JSON line
// per file: {"file", "bytes", "firstMs", "medianMs", "runs"}. firstMs is the first parse in this
// process (the engine still compiling the parser); medianMs the median of the runs after it,
// the parse alone. Only the parse is timed: not Node's start, the module's load or the read.
//
// Usage: node parse.mjs [--runs N] FILE...

import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Model = require('mdx-m3-viewer').parsers.mdlx.Model;

let runs = 15;
const files = [];
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--runs') runs = Number(argv[++i]);
  else files.push(argv[i]);
}
if (files.length === 0 || !(runs >= 1)) {
  console.error('usage: node parse.mjs [--runs N] FILE...');
  process.exit(2);
}
for (const file of files) {
  const bytes = readFileSync(file);
  const input = file.toLowerCase().endsWith('.mdl') ? bytes.toString('utf8') : bytes;
  const time = () => {
    const t0 = performance.now();
    new Model().load(input);
    return performance.now() - t0;
  };
  const first = time();
  const times = [];
  for (let i = 0; i < runs; i++) times.push(time());
  times.sort((a, b) => a - b);
  const median = times[Math.floor(times.length / 2)];
  console.log(JSON.stringify({ file, bytes: bytes.length, firstMs: +first.toFixed(2), medianMs: +median.toFixed(2), runs }));
}
