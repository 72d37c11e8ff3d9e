/**
 * `bun bench/media.ts`: media `transform` throughput through svc's REST API (issue 47), in process
 * (auth, routing, the action, the WebAssembly codecs, the data directory, the database). One store
 * uploads a 1200x900 JPEG photo-like picture, then each target is timed twice, one call at a time:
 *
 * - new: every call a distinct set of parameters (quality 50..99, then a pixel wider), so each one
 *   decodes the source, resizes, encodes and stores a new asset;
 * - cached: the first call's parameters again, answered by the stored copy (the baseline).
 *
 *   BENCH_TRANSFORMS  calls per target and path (default 30)
 *   DATABASE_URL      PostgreSQL for a throwaway database (default: the embedded PGlite)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeSharedDb } from '../test/kit/db';
import { setup } from '../test/kit/setup';
import { decodeImage, encodeImage } from '../plugins/media/codecs';

const N = Number(process.env.BENCH_TRANSFORMS ?? 30);
const log = (line: string) => console.error(line);

/** A photo-like 1200x900 picture: soft gradients, a few shapes and some fine texture (flat colour would flatter the codecs). */
async function photo(width = 1200, height = 900) {
  const data = new Uint8ClampedArray(width * height * 4);
  let s = 12345;
  const noise = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0), (s >>> 24) - 128);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const d = Math.hypot(x - 700, y - 400);
      const disc = d < 260 ? 60 * Math.cos(d / 40) : 0;
      const wave = 25 * Math.sin(x / 23) * Math.cos(y / 31);
      const n = noise() / 16;
      data.set([120 + (x / width) * 100 + disc + n, 90 + (y / height) * 120 + wave + n, 160 - disc / 2 + wave + n, 255], (y * width + x) * 4);
    }
  return encodeImage('jpeg', { data, width, height }, 85);
}

/** A target's parameters for call `i`: distinct for every i (the cache keys on all of them). */
const targets: [string, (i: number) => Record<string, unknown>][] = [
  ['400 wide WebP', (i) => ({ width: 400 + Math.floor(i / 50), format: 'webp', quality: 50 + (i % 50) })],
  ['200x200 cover JPEG', (i) => ({ width: 200 + Math.floor(i / 50), height: 200, fit: 'cover', format: 'jpeg', quality: 50 + (i % 50) })],
  ['800 wide PNG', (i) => ({ width: 800 + Math.floor(i / 50), format: 'png', quality: 50 + (i % 50) })],
];

const dir = mkdtempSync(join(tmpdir(), 'svc-bench-media-'));
try {
  const h = await setup({ env: { SVC_DATA_DIR: dir } });
  const jpeg = await photo();
  const up = await h.call('POST', '/media', { data: Buffer.from(jpeg).toString('base64'), filename: 'photo.jpg' });
  if (up.status !== 201) throw new Error(`upload answered ${up.status}: ${JSON.stringify(up.body)}`);
  const id: string = up.body.id;
  log(`source: ${up.body.width}x${up.body.height} JPEG, ${(jpeg.length / 1024).toFixed(0)} KiB`);

  async function timed(n: number, params: (i: number) => Record<string, unknown>, cached: boolean) {
    const ms: number[] = [];
    const t0 = performance.now();
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      const r = await h.call('POST', `/media/${id}/transform`, params(i));
      ms.push(performance.now() - t);
      if (r.status !== 201) throw new Error(`transform answered ${r.status}: ${JSON.stringify(r.body)}`);
      if (r.body.cached !== cached) throw new Error(`expected cached ${cached}, got ${r.body.cached}`);
    }
    const total = performance.now() - t0;
    ms.sort((a, b) => a - b);
    const at = (p: number) => ms[Math.min(n - 1, Math.floor(p * n))];
    return { perS: (n * 1000) / total, p50: at(0.5), p95: at(0.95) };
  }

  // Warm-up: the codecs' WebAssembly is compiled at first use; these parameters are never reused below.
  for (const [, params] of targets) await timed(1, (i) => params(i + 10_000), false);

  const rows: string[] = [];
  for (const [name, params] of targets) {
    log(`${name} ...`);
    const fresh = await timed(N, params, false);
    const cached = await timed(N, () => params(0), true);
    const f = (x: number) => x.toFixed(1);
    rows.push(
      `| ${name} | ${f(fresh.perS)} | ${f(fresh.p50)} | ${f(fresh.p95)} | ${f(cached.perS)} | ${f(cached.p50)} | ${f(cached.p95)} | ${Math.round(cached.perS / fresh.perS)}x |`,
    );
  }

  // The share of a new transform that is the source's decode alone (every new transform decodes it again).
  const decodes: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t = performance.now();
    await decodeImage('jpeg', jpeg);
    decodes.push(performance.now() - t);
  }
  decodes.sort((a, b) => a - b);

  const db = process.env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite';
  console.log(
    `\nmedia transform of a 1200x900 JPEG (${(jpeg.length / 1024).toFixed(0)} KiB), ${N} calls per row, one client, in process, ${db}; ${cpus().length} CPUs, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}\n`,
  );
  console.log('| target | new /s | new p50 ms | new p95 ms | cached /s | cached p50 ms | cached p95 ms | cached ÷ new |');
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|');
  for (const row of rows) console.log(row);
  console.log(`\nThe source's JPEG decode alone, in the codecs: median ${decodes[2].toFixed(1)} ms of 5.`);
} finally {
  await closeSharedDb();
  rmSync(dir, { recursive: true, force: true });
}
