#!/usr/bin/env node
// emitters.mjs prints what mdx-m3-viewer's parser reads of each model's emitters, in the form
// of modelfs's .json "emitters" (internal/testkit/blendercheck compares the two): one JSON line
// per file, {"file", "emitters": [...]} or {"file", "error"}. Each emitter has the .json's kind,
// name, objectId, parent, flags (names) and parameters under the .json's keys; an animated
// parameter is its track {interpolation, globalSequence, frames, values, inTans?, outTans?},
// values flattened.
//
// Usage: node emitters.mjs FILE...

import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const Model = require('mdx-m3-viewer').parsers.mdlx.Model;

const nodeFlags = [[0x1, 'DontInherit:Translation'], [0x2, 'DontInherit:Scaling'], [0x4, 'DontInherit:Rotation'],
  [0x8, 'Billboarded'], [0x10, 'BillboardedLockX'], [0x20, 'BillboardedLockY'], [0x40, 'BillboardedLockZ'],
  [0x80, 'CameraAnchored']];
const kindFlags = {
  particle: [[0x8000, 'EmitterUsesMDL'], [0x10000, 'EmitterUsesTGA']],
  particle2: [[0x8000, 'Unshaded'], [0x10000, 'SortPrimsFarZ'], [0x20000, 'LineEmitter'], [0x40000, 'Unfogged'],
    [0x80000, 'ModelSpace'], [0x100000, 'XYQuad']],
  ribbon: [],
  popcorn: [],
};
const tags = {
  particle: { KPEE: 'emissionRate', KPEG: 'gravity', KPLN: 'longitude', KPLT: 'latitude', KPEL: 'lifeSpan', KPES: 'initVelocity', KPEV: 'visibility' },
  particle2: { KP2S: 'speed', KP2R: 'variation', KP2L: 'latitude', KP2G: 'gravity', KP2E: 'emissionRate', KP2N: 'width', KP2W: 'length', KP2V: 'visibility' },
  ribbon: { KRHA: 'heightAbove', KRHB: 'heightBelow', KRAL: 'alpha', KRCO: 'color', KRTX: 'textureSlot', KRVS: 'visibility' },
  popcorn: {},
};
const filterModes = ['Blend', 'Additive', 'Modulate', 'Modulate2x', 'AlphaKey'];
const headOrTail = ['Head', 'Tail', 'Both'];

const flat = (vs) => vs.flatMap((v) => (typeof v === 'number' ? [v] : Array.from(v)));
const list = (v) => Array.from(v);

function emitter(kind, o, fields) {
  const flags = [...nodeFlags, ...kindFlags[kind]].filter(([bit]) => o.flags & bit).map(([, name]) => name);
  const e = { kind, name: o.name, objectId: o.objectId, parent: o.parentId, flags, ...fields };
  if ('visibility' in tags[kind] || kind !== 'popcorn') e.visibility = 1;
  for (const a of o.animations) {
    const key = tags[kind][a.name];
    if (!key) continue;
    const t = { interpolation: a.interpolationType, globalSequence: a.globalSequenceId, frames: list(a.frames), values: flat(a.values) };
    if (a.interpolationType > 1) {
      t.inTans = flat(a.inTans);
      t.outTans = flat(a.outTans);
    }
    e[key] = t;
  }
  return e;
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error('usage: node emitters.mjs FILE...');
  process.exit(2);
}
for (const file of files) {
  try {
    const bytes = readFileSync(file);
    const m = new Model();
    m.load(file.toLowerCase().endsWith('.mdl') ? bytes.toString('utf8') : bytes);
    const out = [];
    for (const o of m.particleEmitters) {
      out.push(emitter('particle', o, {
        emissionRate: o.emissionRate, gravity: o.gravity, longitude: o.longitude, latitude: o.latitude,
        lifeSpan: o.lifeSpan, initVelocity: o.speed, path: o.path,
      }));
    }
    for (const o of m.particleEmitters2) {
      out.push(emitter('particle2', o, {
        speed: o.speed, variation: o.variation, latitude: o.latitude, gravity: o.gravity, lifeSpan: o.lifeSpan,
        emissionRate: o.emissionRate, width: o.width, length: o.length,
        filterMode: filterModes[o.filterMode] ?? `Unknown${o.filterMode}`, rows: o.rows, columns: o.columns,
        headOrTail: headOrTail[o.headOrTail] ?? 'Unknown', tailLength: o.tailLength, time: o.timeMiddle,
        segmentColor: o.segmentColors.map(list), alpha: list(o.segmentAlphas), particleScaling: list(o.segmentScaling),
        lifeSpanUVAnim: list(o.headIntervals[0]), decayUVAnim: list(o.headIntervals[1]),
        tailUVAnim: list(o.tailIntervals[0]), tailDecayUVAnim: list(o.tailIntervals[1]),
        textureId: o.textureId, replaceableId: o.replaceableId, priorityPlane: o.priorityPlane, squirt: o.squirt !== 0,
      }));
    }
    for (const o of m.ribbonEmitters) {
      out.push(emitter('ribbon', o, {
        heightAbove: o.heightAbove, heightBelow: o.heightBelow, alpha: o.alpha, color: list(o.color),
        textureSlot: o.textureSlot, emissionRate: o.emissionRate, lifeSpan: o.lifeSpan, gravity: o.gravity,
        rows: o.rows, columns: o.columns, materialId: o.materialId,
      }));
    }
    for (const o of m.particleEmittersPopcorn ?? []) {
      const e = emitter('popcorn', o, { path: o.path });
      out.push({ kind: e.kind, name: e.name, objectId: e.objectId, path: e.path });
    }
    console.log(JSON.stringify({ file, emitters: out }));
  } catch (err) {
    console.log(JSON.stringify({ file, error: String(err && err.message || err) }));
  }
}
