#!/usr/bin/env node
// render.mjs draws Warcraft III models the way the game does, with mdx-m3-viewer's WebGL
// renderer in headless Chromium, as the reference for modelfs's glTF output.
//
// Usage: node render.mjs JOBS.json
//
// JOBS.json:
//   {"size": 256,                      canvas side in pixels
//    "jobs": [{"model": "/abs/X.mdx",  the model file
//              "textures": {"Textures\\X.blp": "/abs/Textures/X.blp", ...},
//                                      each texture path the model names (as written, and the
//                                      replaceable ones as mdx-m3-viewer names them) → the file
//                                      to load; a path not listed is not found
//              "center": [x, y, z],    the point the camera looks at (Warcraft III axes, Z up)
//              "half": h,              half the side of the square the orthographic camera sees
//              "eye": [x, y, z],       direction from the centre to the camera
//              "out": "/abs/out.png",
//              "times": [t, ...],          optional: seconds into the sequence; then each
//                                          moment i is drawn with its particles and ribbons
//                                          (OUT-i-fx.png) and without (OUT-i-plain.png)
//              "preroll": s}]}             seconds the sequence runs before time 0
//
// Each model is shown at the first frame of its first sequence named Stand (else its first
// sequence), player 1's colour, on a transparent background, lit from the camera; particle
// emitters, ribbons and billboarding are left out (glTF has no place for them). The viewer
// draws over an opaque colour, so each model is drawn over black and over white, and the
// written PNG's alpha is what the two tell of its cover. Prints one JSON line per job:
// {"out", "ok", "error"?}. Needs Chromium at /usr/bin/chromium (Debian's package) or $CHROMIUM.

import { createServer } from 'node:http';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium } from 'playwright-core';

const require = createRequire(import.meta.url);
const bundle = readFileSync(require.resolve('mdx-m3-viewer/dist/umd/viewer.min.js'));

const page = `<!doctype html><html><body style="margin:0">
<canvas id="c"></canvas>
<script src="/viewer.js"></script>
<script>
window.render = async (job, size) => {
  // The viewer's particles draw on Math.random: seeded (mulberry32), each job draws the same
  // pixels every run, so that a comparison against it does not flake.
  let seed = 0x2f6b3a1d;
  Math.random = () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const canvas = document.getElementById('c');
  canvas.width = canvas.height = size;
  const MV = window.ModelViewer;
  const viewer = new MV.viewer.ModelViewer(canvas, { alpha: true, premultipliedAlpha: false, preserveDrawingBuffer: true, antialias: false });
  const errors = [];
  viewer.on('error', (e) => {
    const what = String(e.error || e.reason || 'error') + ' ' + (e.fetchUrl || e.src || '');
    // The other players' team pictures, which the viewer loads whether or not they are drawn.
    if (!/Team(Color|Glow)(0[1-9]|1[0-9]|2[0-9])/.test(decodeURIComponent(what))) errors.push(what);
  });
  const solve = (src) => {
    const key = String(src).toLowerCase().replace(/\\//g, '\\\\');
    const file = job.lower[key];
    return file ? '/file?' + encodeURIComponent(file) : '/missing?' + encodeURIComponent(String(src));
  };
  viewer.addHandler(MV.viewer.handlers.mdx, solve);
  viewer.addHandler(MV.viewer.handlers.blp);
  viewer.addHandler(MV.viewer.handlers.tga);
  viewer.addHandler(MV.viewer.handlers.dds);
  const scene = viewer.addScene();
  const model = await viewer.load('\u0000model', (src) => src === '\u0000model' ? '/file?' + encodeURIComponent(job.model) : solve(src));
  if (!model) throw new Error('mdx-m3-viewer did not load the model: ' + errors.join('; '));
  await viewer.whenAllLoaded();
  // Particles, ribbons and event splats are drawn by emitter groups, which batch groups
  // (geosets) are told from by their skinning type. Without job.times they are left out (the
  // model alone); with it, each moment is drawn with them and without them.
  const all = { opaque: model.opaqueGroups, translucent: model.translucentGroups };
  const bare = {
    opaque: model.opaqueGroups.filter((g) => 'skinningType' in g),
    translucent: model.translucentGroups.filter((g) => 'skinningType' in g),
  };
  // Event objects (splats, sounds, spawned models) are not emitters modelfs bakes: the
  // emitter groups keep the particle emitters and ribbons (geometry types 0 and 1) alone.
  const fxOnly = (g) => {
    if ('skinningType' in g) return g;
    const c = Object.assign(Object.create(Object.getPrototypeOf(g)), g);
    c.objects = g.objects.filter((i) => {
      const o = model.genericObjects[i];
      return o && (o.geometryEmitterType === 0 || o.geometryEmitterType === 1);
    });
    return c;
  };
  const withFx = { opaque: all.opaque.map(fxOnly), translucent: all.translucent.map(fxOnly) };
  const use = (g) => { model.opaqueGroups = g.opaque; model.translucentGroups = g.translucent; };
  use(bare);
  // Nor for nodes that turn to face the camera: such a node is drawn in its rest orientation.
  for (const o of model.genericObjects) {
    o.billboarded = o.billboardedX = o.billboardedY = o.billboardedZ = o.anyBillboarding = false;
  }
  const instance = model.addInstance();
  instance.setScene(scene);
  instance.setTeamColor(0);
  let seq = model.sequences.findIndex((s) => s.name.trim().toLowerCase().startsWith('stand'));
  if (seq < 0 && model.sequences.length > 0) seq = 0;
  instance.setSequence(seq);
  instance.setSequenceLoopMode(2);
  const [cx, cy, cz] = job.center, h = job.half;
  const e = job.eye, n = Math.hypot(e[0], e[1], e[2]);
  const dist = 10 * h + 1000;
  const eye = [cx + e[0] / n * dist, cy + e[1] / n * dist, cz + e[2] / n * dist];
  scene.viewport[2] = scene.viewport[3] = size;
  scene.camera.ortho(-h, h, -h, h, 1, 2 * dist);
  scene.camera.moveToAndFace(eye, [cx, cy, cz], [0, 0, 1]);
  scene.lightPosition.set(eye);
  // The viewer clears to an opaque colour: drawn over black and over white, a pixel's
  // coverage is one minus the difference, and its colour what it shows over black divided by
  // that (an additive glow's coverage is then its brightness, as the glTF paints it).
  const shot = (bg) => {
    scene.color.set(bg);
    viewer.updateAndRender(0);
    if (seq >= 0) instance.frame = model.sequences[seq].interval[0];
    viewer.updateAndRender(0);
    const gl = viewer.gl;
    const px = new Uint8Array(size * size * 4);
    gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, px);
    return px;
  };
  // compose is the picture drawn over black and over white, with its alpha: the channel
  // that lets the most through (an additive glow of one colour covers as much as it brightens
  // that colour, as the glTF's alpha from brightness has it).
  const compose = (black, white) => {
    const out = new Uint8Array(size * size * 4);
    for (let i = 0; i < out.length; i += 4) {
      const d = Math.min(white[i] - black[i], white[i + 1] - black[i + 1], white[i + 2] - black[i + 2]);
      const a = Math.min(Math.max(1 - d / 255, 0), 1);
      for (let k = 0; k < 3; k++) out[i + k] = a > 0 ? Math.min(Math.round(black[i + k] / a), 255) : 0;
      out[i + 3] = Math.round(a * 255);
    }
    return Array.from(out);
  };
  if (job.times) {
    // The effect at moments of the sequence: run at 60 steps a second, as the game's frames,
    // first job.preroll seconds (whole loops, so that it is under way, as modelfs bakes it).
    const still = (bg) => {
      scene.color.set(bg);
      viewer.updateAndRender(0);
      const gl = viewer.gl;
      const px = new Uint8Array(size * size * 4);
      gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, px);
      return px;
    };
    const step = 1000 / 60;
    let done = 0;
    const advance = (ms) => {
      const n = Math.round(ms / step);
      for (let i = 0; i < n; i++) viewer.update(step);
    };
    advance((job.preroll || 0) * 1000);
    const moments = [];
    for (const t of job.times) {
      advance(t * 1000 - done);
      done = Math.round(t * 1000 / step) * step;
      use(withFx);
      still([0, 0, 0]);
      const fx = compose(still([0, 0, 0]), still([1, 1, 1]));
      use(bare);
      const plain = compose(still([0, 0, 0]), still([1, 1, 1]));
      moments.push({ fx, plain });
    }
    return { moments, errors };
  }
  shot([0, 0, 0]); // the first frame sets the viewer's state up: drawn again below
  return { pixels: compose(shot([0, 0, 0]), shot([1, 1, 1])), errors };
};
window.ready = true;
</script></body></html>`;

const tgaSignature = Buffer.from('TRUEVISION-XFILE.\0', 'latin1');

function serve() {
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://localhost');
    try {
      if (url.pathname === '/') {
        res.writeHead(200, { 'content-type': 'text/html' }).end(page);
      } else if (url.pathname === '/viewer.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle);
      } else if (url.pathname === '/file') {
        const file = decodeURIComponent(url.search.slice(1));
        let data = readFileSync(file);
        if (file.toLowerCase().endsWith('.tga') && !data.subarray(-18).equals(tgaSignature)) {
          // mdx-m3-viewer knows a TGA by the footer of version 2; the game reads either.
          data = Buffer.concat([data, Buffer.alloc(8), tgaSignature]);
        }
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(data);
      } else {
        res.writeHead(404).end();
      }
    } catch (e) {
      res.writeHead(404).end(String(e));
    }
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// png encodes RGBA rows (bottom row first, as WebGL reads them) as a PNG, top row first.
import { deflateSync } from 'node:zlib';
function png(pixels, size) {
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    const src = (size - 1 - y) * size * 4;
    raw[y * (size * 4 + 1)] = 0;
    for (let i = 0; i < size * 4; i++) raw[y * (size * 4 + 1) + 1 + i] = pixels[src + i];
  }
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (buf) => {
    let c = 0xffffffff;
    for (const b of buf) c = crcTable[(c ^ b) & 0xff] ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type, data) => {
    const len = Buffer.alloc(4); len.writeUInt32BE(data.length);
    const td = Buffer.concat([Buffer.from(type), data]);
    const c = Buffer.alloc(4); c.writeUInt32BE(crc(td));
    return Buffer.concat([len, td, c]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0); ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8; ihdr[9] = 6; ihdr[10] = 0; ihdr[11] = 0; ihdr[12] = 0;
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

const spec = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const size = spec.size || 256;
const server = await serve();
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM || '/usr/bin/chromium',
  args: ['--no-sandbox', '--use-angle=swiftshader', '--enable-unsafe-swiftshader', '--ignore-gpu-blocklist',
    '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
});
let failed = 0;
try {
  const tab = await browser.newPage();
  tab.on('pageerror', (e) => console.error('page error:', e.message));
  const base = `http://127.0.0.1:${server.address().port}/`;
  for (const job of spec.jobs) {
    await tab.goto(base);
    await tab.waitForFunction(() => window.ready === true);
    const lower = {};
    for (const [k, v] of Object.entries(job.textures || {})) lower[k.toLowerCase().replace(/\//g, '\\')] = v;
    try {
      const r = await tab.evaluate(([j, s]) => window.render(j, s), [{ ...job, lower }, size]);
      if (r.moments) {
        r.moments.forEach((m, i) => {
          writeFileSync(`${job.out}-${i}-fx.png`, png(m.fx, size));
          writeFileSync(`${job.out}-${i}-plain.png`, png(m.plain, size));
        });
      } else {
        writeFileSync(job.out, png(r.pixels, size));
      }
      console.log(JSON.stringify({ out: job.out, ok: true, notes: r.errors }));
    } catch (e) {
      failed++;
      console.log(JSON.stringify({ out: job.out, ok: false, error: String(e.message || e) }));
    }
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);
