#!/usr/bin/env bun
/**
 * `npm run build`'s last step: compiles dist/svc twice (docs/footprint.md, "Bytecode laid out by a
 * recorded start").
 *
 * 1. Compiles it, runs it (`serve` on the embedded database in a throwaway folder: a first start,
 *    then a later one) with BUN_BYTECODE_ORDER_OUT, so each start writes the list of functions it
 *    ran, and stops it once /health answers. With SVC_BUILD_DATABASE_URL (a PostgreSQL server, never
 *    a deployment's database: the build makes a throwaway database there and drops it), a later
 *    start on PostgreSQL is recorded too; without it that path's start-up code is laid out after
 *    the recorded code (about 2 MB more resident on PostgreSQL, docs/footprint.md).
 * 2. Compiles it again with `--bytecode-order`: Bun places the bytecode those starts used together
 *    at the front of the binary's module section, so a start reads (and keeps resident) a few MB of
 *    it instead of pages scattered over all 55 MB.
 *
 * Both compiles pass `--splitting`: what is loaded by `import()` (a plugin's handlers, PGlite, the
 * MCP server, the console's routes) is a chunk of its own, evaluated at that import; in one chunk
 * its functions would be made at start, called or not. And `--compile-jit-policy`: the binary starts with the JIT reluctant, because
 * start-up code runs once and compiling it only leaves machine code behind; core/cli.ts sets the
 * normal policy back once the server is ready. A recording that fails keeps the first binary (it
 * runs the same, only with the bytecode unordered) and says so.
 */
import { spawn } from 'bun';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(import.meta.dir, '..');
const OUT = join(root, 'dist/svc');
// Start-up's functions tier up at 32 times the usual thresholds. Measured on PostgreSQL idle: 1 (the
// default) held about 5 MB more, 8 about 2.5 MB more; the start's CPU time moved within the noise.
const JIT_POLICY = 32;
const seed = readdirSync(join(root, 'core/db/.seed')).filter((f) => f.endsWith('.tar.gz'));
if (seed.length !== 1) throw new Error(`core/db/.seed should hold one archive (scripts/pglite-seed.ts --out), not ${seed.length}`);

async function run(cmd: string[], env: Record<string, string> = {}) {
  const p = spawn(cmd, { cwd: root, env: { ...process.env, ...env }, stdout: 'inherit', stderr: 'inherit' });
  if ((await p.exited) !== 0) throw new Error(`${cmd.join(' ')} failed`);
}

const compile = (order: string[]) =>
  run([
    process.execPath,
    'build',
    '--compile',
    '--minify',
    '--bytecode',
    '--format=esm',
    '--splitting',
    `--compile-jit-policy=${JIT_POLICY}`,
    ...(order.length ? [`--bytecode-order=${order.join(',')}`] : []),
    'core/cli.ts',
    'core/sandbox/worker.ts',
    `core/db/.seed/${seed[0]}`,
    '--outfile',
    OUT,
  ]);

/** One `svc serve` until /health answers, then SIGTERM; the binary writes `order` as it exits. */
async function recordStart(dir: string, order: string, databaseUrl = '') {
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const proc = spawn([OUT, 'serve', '--port', String(port)], {
    cwd: dir,
    env: {
      ...process.env,
      DATABASE_URL: databaseUrl,
      SVC_DATA_DIR: join(dir, 'data'),
      SVC_HOST: '127.0.0.1',
      SVC_ADMIN_TOKEN: 'svc_admin_build_recording_token',
      BUN_BYTECODE_ORDER_OUT: order,
    },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const t0 = performance.now();
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`svc serve exited ${proc.exitCode}: ${await new Response(proc.stderr).text()}`);
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (performance.now() - t0 > 60_000) throw (proc.kill('SIGKILL'), new Error('svc serve was not ready after 60 s'));
    await Bun.sleep(50);
  }
  proc.kill('SIGTERM');
  await proc.exited;
}

/** A first start on a throwaway database of SVC_BUILD_DATABASE_URL's server (it migrates), then a recorded later start. */
async function recordPostgres(dir: string, order: string) {
  const server = process.env.SVC_BUILD_DATABASE_URL!;
  const name = `svc_build_${crypto.randomUUID().replaceAll('-', '').slice(0, 16)}`;
  const admin = new Bun.SQL(server, { max: 1 });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(server);
    url.pathname = `/${name}`;
    await recordStart(dir, join(dir, 'migrate.order'), url.toString());
    await recordStart(dir, order, url.toString());
  } finally {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin.close();
  }
}

await compile([]);
const dir = mkdtempSync(join(tmpdir(), 'svc-build-order-'));
try {
  // The later start is the common one (every start but a data folder's first): its profiles lead.
  const orders = [join(dir, 'later.order'), join(dir, 'postgres.order'), join(dir, 'first.order')];
  await recordStart(dir, orders[2]);
  await recordStart(dir, orders[0]);
  if (process.env.SVC_BUILD_DATABASE_URL) await recordPostgres(dir, orders[1]);
  else orders.splice(1, 1);
  await compile(orders);
} catch (e) {
  console.error(`build: the start was not recorded, dist/svc keeps its bytecode unordered (${(e as Error).message})`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
