#!/usr/bin/env node
// validate.mjs runs the Khronos glTF Validator over .gltf/.glb files and prints one JSON line per
// file, in the order given:
//
//   {"file": "...", "errors": 0, "warnings": 1, "infos": 2, "hints": 0, "truncated": false,
//    "messages": [{"code": "...", "severity": 1, "pointer": "/nodes/0", "message": "..."}]}
//
// Severity is the validator's: 0 error, 1 warning, 2 info, 3 hint. A file the validator cannot
// even parse is reported as one error with code "VALIDATOR_REJECTED".
//
// Usage: node validate.mjs [--max-issues N] [--] FILE...
//        node validate.mjs [--max-issues N] -        (read file paths from stdin, one per line)
//
// Exit status: 0 when every file was read (whatever the validator found), 1 when a file could not
// be read (its line then carries "ioError"), 2 on a usage error.

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import process from 'node:process';
import validator from 'gltf-validator';

const usage = 'usage: node validate.mjs [--max-issues N] [--] FILE... | -';

function parseArgs(argv) {
  const files = [];
  let maxIssues = 1000;
  let stdin = false;
  let rest = false;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (rest) {
      files.push(a);
    } else if (a === '--') {
      rest = true;
    } else if (a === '--max-issues') {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 0) {
        return { error: '--max-issues needs a non-negative integer' };
      }
      maxIssues = n;
    } else if (a === '-') {
      stdin = true;
    } else if (a.startsWith('-')) {
      return { error: `unknown option ${a}` };
    } else {
      files.push(a);
    }
  }
  return { files, maxIssues, stdin };
}

async function readStdin() {
  const chunks = [];
  for await (const c of process.stdin) chunks.push(c);
  return Buffer.concat(chunks)
    .toString('utf8')
    .split(/\r?\n/)
    .filter((l) => l.length > 0);
}

function summarise(file, report) {
  const is = report.issues || {};
  return {
    file,
    errors: is.numErrors || 0,
    warnings: is.numWarnings || 0,
    infos: is.numInfos || 0,
    hints: is.numHints || 0,
    truncated: Boolean(is.truncated),
    messages: (is.messages || []).map((m) => ({
      code: m.code,
      severity: m.severity,
      pointer: m.pointer || '',
      message: m.message,
    })),
  };
}

async function validateFile(file, maxIssues) {
  let data;
  try {
    data = await readFile(file);
  } catch (e) {
    return { line: { file, ioError: String(e && e.message ? e.message : e) }, ioFailed: true };
  }
  const dir = path.dirname(path.resolve(file));
  const options = {
    uri: path.basename(file),
    maxIssues,
    writeTimestamp: false,
    externalResourceFunction: (uri) =>
      readFile(path.resolve(dir, decodeURIComponent(uri))).then((b) => new Uint8Array(b)),
  };
  try {
    const report = await validator.validateBytes(new Uint8Array(data), options);
    return { line: summarise(file, report), ioFailed: false };
  } catch (e) {
    const msg = String(e && e.message ? e.message : e);
    const line = {
      file,
      errors: 1,
      warnings: 0,
      infos: 0,
      hints: 0,
      truncated: false,
      messages: [{ code: 'VALIDATOR_REJECTED', severity: 0, pointer: '', message: msg }],
    };
    return { line, ioFailed: false };
  }
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  if (args.error) {
    process.stderr.write(`validate.mjs: ${args.error}\n${usage}\n`);
    return 2;
  }
  let files = args.files;
  if (args.stdin) files = files.concat(await readStdin());
  if (files.length === 0) {
    process.stderr.write(`${usage}\n`);
    return 2;
  }
  let status = 0;
  for (const f of files) {
    const { line, ioFailed } = await validateFile(f, args.maxIssues);
    if (ioFailed) {
      process.stderr.write(`validate.mjs: ${f}: ${line.ioError}\n`);
      status = 1;
    }
    process.stdout.write(JSON.stringify(line) + '\n');
  }
  return status;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e) => {
    process.stderr.write(`validate.mjs: ${e && e.stack ? e.stack : e}\n`);
    process.exitCode = 1;
  },
);
