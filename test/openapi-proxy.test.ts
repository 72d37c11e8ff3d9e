/**
 * The server behind a validating proxy (Stoplight Prism, `prism proxy --errors`): a representative
 * request of every operation (the sweeps' examples, test/kit/examples.ts) goes through it, and Prism
 * checks each request and each response against /openapi.json. Any violation is a problem: the
 * document says something the server does not do, or the other way round.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freshWorld } from './kit/examples';
import { setup, type Harness } from './kit/setup';
import { credentialFor, exampleOr, fakeModel, report, requestFor, sweepRoutes } from './kit/sweep';

const root = join(import.meta.dir, '..');
const model = fakeModel();
let h: Harness;
let server: { stop: () => Promise<void> } | undefined;
let prism: Bun.Subprocess | undefined;
let dir: string | undefined;
let proxy = '';
let prismLog = '';

/** A free port on 127.0.0.1 for Prism (it takes a port number, not 0). */
async function freePort() {
  const s = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

beforeAll(async () => {
  h = await setup({ env: model.env });
  const app = h.app.listen({ hostname: '127.0.0.1', port: 0 });
  server = { stop: async () => void (await app.stop()) };
  const upstream = `http://127.0.0.1:${app.server!.port}`;
  dir = await mkdtemp(join(tmpdir(), 'svc-prism-'));
  const file = join(dir, 'openapi.json');
  await Bun.write(file, await (await fetch(`${upstream}/openapi.json`)).text());
  const port = await freePort();
  prism = Bun.spawn([join(root, 'node_modules', '.bin', 'prism'), 'proxy', file, upstream, '--errors', '-h', '127.0.0.1', '-p', String(port)], {
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, NO_COLOR: '1' },
  });
  const drain = async (s: ReadableStream) => {
    for await (const chunk of s) prismLog += new TextDecoder().decode(chunk);
  };
  void drain(prism.stdout as ReadableStream);
  void drain(prism.stderr as ReadableStream);
  proxy = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (prism.exitCode !== null) throw new Error(`prism exited (${prism.exitCode}):\n${prismLog}`);
    if (/Prism is listening/.test(prismLog)) return;
    await Bun.sleep(100);
  }
  throw new Error(`prism did not start in 60 s:\n${prismLog}`);
}, 120_000);

afterAll(async () => {
  prism?.kill();
  await prism?.exited;
  await server?.stop();
  model.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

test('every operation, requested through Prism with its example, matches the document both ways', async () => {
  const problems: string[] = [];
  const uncovered = new Set<string>();
  let requests = 0;
  for (const route of sweepRoutes(h.registry)) {
    // A live stream (the held executions') never ends, and Prism checks a response whole: its
    // events are checked by their plugin's tests.
    if (route.method === 'GET' && route.action.rest?.contentType === 'text/event-stream') {
      uncovered.add(`${route.name}: a live event stream`);
      continue;
    }
    const world = await freshWorld(h, 'Proxy store');
    const input = await exampleOr(world, route, problems, uncovered);
    if (!input) continue;
    const request = requestFor(route, world.store.id, input);
    const { path } = request;
    // Nothing to send is no body at all, as a generated client sends it (the document has none).
    const body = request.body === '{}' ? undefined : request.body;
    const headers: Record<string, string> = { ...credentialFor(route, world), ...(body === undefined ? {} : { 'content-type': 'application/json' }) };
    const res = await fetch(proxy + path, { method: route.method, headers, body });
    const text = await res.text();
    requests++;
    const violations = res.headers.get('sl-violations');
    if (violations || (res.headers.get('content-type') ?? '').includes('application/problem+json'))
      problems.push(`${route.method} ${route.path} (${route.name}): ${res.status} ${violations ?? ''} ${text.slice(0, 600)}`);
    else if (res.status >= 400)
      problems.push(`${route.method} ${route.path} (${route.name}): its example failed through the proxy: ${res.status} ${text.slice(0, 300)}`);
  }
  // Error answers are checked too: the envelope and headers of a 404 and a 401 (an invalid request
  // Prism refuses itself, so a 400 never reaches the server through it).
  const world = await freshWorld(h, 'Proxy store');
  for (const [path, init, status] of [
    [`${world.base}/products/00000000-0000-4000-8000-000000000000`, { headers: { 'x-api-key': world.key } }, 404],
    [`${world.base}/products`, {}, 401],
  ] as [string, RequestInit, number][]) {
    const res = await fetch(proxy + path, init);
    const text = await res.text();
    requests++;
    if (res.status !== status || res.headers.get('sl-violations'))
      problems.push(`GET ${path}: ${res.status} ${res.headers.get('sl-violations') ?? ''} ${text.slice(0, 400)}`);
  }
  report('validating proxy', { operations: requests }, [...uncovered]);
  expect(requests).toBeGreaterThan(50);
  expect(problems).toEqual([]);
}, 600_000);
