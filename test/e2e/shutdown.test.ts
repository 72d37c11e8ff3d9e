/**
 * Issue 20.1: SIGTERM ends the server within the grace period, whatever is connected, as a
 * supervisor (docker stop, systemd, a desktop MCP client restarting svc) expects. Real processes:
 * the compiled binary (built once for this file, into a temporary folder) and `npm start`, with an
 * MCP client on the stdio bridge, an open MCP GET stream and an agent chat waiting for approval.
 */
import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { cpSync, existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { events, fakeServer, openai } from '../kit/fake-models';
import { SHUTDOWN_MESSAGE } from '../../plugins/agents/chat';
import { ECHO_MS } from '../../core/lifecycle';
import { writeEvents } from '../../core/events/outbox';
import { backend, sharedDbUrl } from '../kit/db';
import { product, setup } from '../kit/setup';
import { startReceiver, testCerts } from '../kit/webhook-receiver';

const ROOT = join(import.meta.dir, '..', '..');
const ADMIN = 'shutdown-test-admin-token-0123456789';
const GRACE_S = 10;
const ACCEPT = 'application/json, text/event-stream';

let bin: string;
/** A migrated embedded data directory, copied for each server (a fresh one costs a minute under load). */
let template: string | undefined;
/** The test database on PostgreSQL; undefined on the embedded backend. */
let dbUrl: string | undefined;

interface Launched {
  proc: ReturnType<typeof Bun.spawn>;
  readonly log: string;
  exited: Promise<{ code: number; at: number }>;
  /** The exit, or a failure naming what the process printed if it is still running after `ms`. */
  exitWithin: (ms: number) => Promise<{ code: number; at: number }>;
  /** The base URL, once the server says it listens. */
  listening: () => Promise<string>;
}
const launched: Launched[] = [];
const cleanups: (() => unknown)[] = [];

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function eventually(ok: () => boolean, what: string, ms: number) {
  const end = performance.now() + ms;
  while (!ok()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(20);
  }
}

function launch(cmd: string[], extraEnv: Record<string, string | undefined>, dir: string, cwd = ROOT): Launched {
  const proc = Bun.spawn(cmd, {
    cwd,
    env: { ...process.env, DATABASE_URL: dbUrl, SVC_DATA_DIR: dir, SVC_HOST: '127.0.0.1', SVC_ADMIN_TOKEN: ADMIN, PORT: '0', ...extraEnv },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let log = '';
  let done = false;
  const pump = async (s: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of s) log += decoder.decode(chunk, { stream: true });
  };
  void pump(proc.stdout as ReadableStream<Uint8Array>);
  void pump(proc.stderr as ReadableStream<Uint8Array>);
  const exited = proc.exited.then((code) => ((done = true), { code, at: performance.now() }));
  const l: Launched = {
    proc,
    get log() {
      return log;
    },
    exited,
    async exitWithin(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`still running ${ms} ms after the signal:\n${log}`)), ms);
      });
      return Promise.race([exited, late]).finally(() => clearTimeout(timer));
    },
    async listening() {
      const found = () => /listening on http:\/\/[^\s:]+:(\d+)/.exec(log);
      await eventually(() => Boolean(found()) || done, 'the server to listen', 150_000);
      if (!found()) throw new Error(`the server did not start:\n${log}`);
      return `http://127.0.0.1:${found()![1]}`;
    },
  };
  launched.push(l);
  return l;
}

afterEach(async () => {
  for (const c of cleanups.splice(0)) await Promise.resolve(c()).catch(() => {});
  // A failed test leaves no process of its own behind.
  for (const l of launched.splice(0)) if (alive(l.proc.pid)) l.proc.kill('SIGKILL');
});

beforeAll(async () => {
  dbUrl = await sharedDbUrl();
  const dir = mkdtempSync(join(tmpdir(), 'svc-shutdown-'));
  bin = join(dir, 'svc');
  const build = Bun.spawn([process.execPath, 'build', '--compile', '--minify', 'core/cli.ts', 'core/sandbox/worker.ts', '--outfile', bin], {
    cwd: ROOT,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  if ((await build.exited) !== 0) throw new Error(`build failed: ${await new Response(build.stderr).text()}`);
  if (!dbUrl) {
    template = join(dir, 'data');
    const migrate = launch([bin, 'migrate'], {}, template);
    expect((await migrate.exited).code).toBe(0);
  }
}, 240_000);

function dataDir() {
  const dir = mkdtempSync(join(tmpdir(), 'svc-shutdown-data-'));
  if (template) cpSync(template, dir, { recursive: true });
  return dir;
}

/** A store and its all-scopes key, through the admin API. */
async function newStore(url: string) {
  const r = await fetch(`${url}/v1/stores`, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Shutdown shop', plan: 'pro' }),
  });
  expect(r.status).toBe(201);
  const body: any = await r.json();
  return { storeId: body.store.id as string, key: body.api_key.key as string };
}

/** Reads a streamed response as it arrives: its text, and how it ended. */
function reading(res: Response) {
  const s = { text: '', ended: undefined as undefined | 'done' | 'cut' };
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        s.text += decoder.decode(value, { stream: true });
      }
      s.ended = 'done';
    } catch {
      s.ended = 'cut';
    }
  })();
  cleanups.push(() => reader.cancel());
  return s;
}

/** An MCP session's GET stream (server-to-client notifications), opened by hand. */
async function mcpGetStream(url: string, key: string) {
  const headers = { authorization: `Bearer ${key}`, accept: ACCEPT, 'content-type': 'application/json' };
  const init = await fetch(`${url}/agent/mcp`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    }),
  });
  expect(init.status).toBe(200);
  await init.text();
  const sid = init.headers.get('mcp-session-id')!;
  const get = await fetch(`${url}/agent/mcp`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream', 'mcp-session-id': sid, 'mcp-protocol-version': '2025-11-25' },
  });
  expect(get.status).toBe(200);
  return reading(get);
}

/** An agent whose product creation waits for approval, and a chat with it held at that point. */
async function heldChat(url: string, key: string, storeId: string) {
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${url}/v1/stores/${storeId}${path}`, {
      method,
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  const agent: any = await (
    await api('POST', '/agents', { name: 'Clerk', model: 'openai/gpt-test', system_prompt: 'Be brief.', tools: ['products'] })
  ).json();
  expect(
    (await api('PATCH', `/agents/${agent.id}/tool-config`, { tool_overrides: { products: { requires_approval: ['create_product'] } } })).status,
  ).toBe(200);
  const res = await api('POST', `/agents/${agent.id}/chat`, { message: 'Add a lamp' });
  expect(res.status).toBe(200);
  const chat = reading(res);
  await eventually(() => chat.text.includes('"approval_required"') || chat.ended !== undefined, 'approval_required', 30_000);
  const held = events(chat.text).find((e) => e.type === 'approval_required');
  expect(held).toBeDefined();
  return { chat, executionId: held.execution_id as string, api };
}

/** A request that runs for about 10 s: a JavaScript tool's test run spinning until the sandbox stops it. */
async function slowRequest(url: string, storeId: string, key: string) {
  const headers = { 'x-api-key': key, 'content-type': 'application/json' };
  const tool: any = await (
    await fetch(`${url}/v1/stores/${storeId}/tools`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'spin', description: 'Spins.', execution_type: 'javascript', execution_config: { code: 'for (;;) {}' } }),
    })
  ).json();
  expect(tool.id).toBeString();
  const out = { answered: false, settled: Promise.resolve() };
  out.settled = fetch(`${url}/v1/stores/${storeId}/tools/${tool.id}/test`, { method: 'POST', headers, body: JSON.stringify({ parameters: {} }) })
    .then((r) => r.text())
    .then(
      () => void (out.answered = true),
      () => {},
    );
  await Bun.sleep(300); // under way
  return out;
}

describe('SIGTERM with clients connected', () => {
  test('the compiled binary exits 0 well within the grace period: MCP streams end, a held chat gets error and end, the data directory is free', async () => {
    const fake = fakeServer([openai.tools({ name: 'products', input: { action: 'create_product', ...product({ name: 'Gated Lamp' }) } })]);
    cleanups.push(fake.stop);
    const dir = dataDir();
    const env = { SVC_SHUTDOWN_GRACE_S: String(GRACE_S), OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test' };
    const server = launch([bin, 'serve'], env, dir);
    const url = await server.listening();
    const { storeId, key } = await newStore(url);

    // An MCP client on the stdio bridge (as a desktop client runs it), which has made a call.
    const transport = new StdioClientTransport({
      command: bin,
      args: ['mcp', '--store', storeId, '--url', url],
      env: { PATH: process.env.PATH ?? '', SVC_API_KEY: key, HOME: mkdtempSync(join(tmpdir(), 'svc-home-')) },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'desktop', version: '1' });
    await client.connect(transport);
    cleanups.push(() => client.close());
    const listed: any = await client.callTool({ name: 'products', arguments: { action: 'list_products' } });
    expect(listed.isError).toBeFalsy();
    const bridgePid = transport.pid!;

    const stream = await mcpGetStream(url, key);
    const { chat, executionId } = await heldChat(url, key, storeId);
    // The bridge's own GET stream is open already: it answers initialize only once it is.
    expect(chat.ended).toBeUndefined();
    expect(stream.ended).toBeUndefined();

    const sent = performance.now();
    server.proc.kill('SIGTERM');
    const { code, at } = await server.exitWithin((GRACE_S + 5) * 1000);
    const tookMs = at - sent;
    expect(code).toBe(0);
    // Nothing waited for the grace period: every stream ended itself at once.
    expect(tookMs).toBeLessThan(5000);
    expect(server.log).toContain('shutting down');

    // The chat heard why, then end, and its stream closed cleanly; so did the MCP GET stream.
    await eventually(() => chat.ended !== undefined && stream.ended !== undefined, 'the streams to end', 2000);
    expect(chat.ended).toBe('done');
    const types = events(chat.text).map((e) => e.type);
    expect(types.slice(-2)).toEqual(['error', 'end']);
    expect(events(chat.text).at(-2).message).toBe(SHUTDOWN_MESSAGE);
    expect(stream.ended).toBe('done');

    // The stdio bridge notices its server went away, and exits.
    await eventually(() => !alive(bridgePid), 'the stdio bridge to exit', 15_000);

    // The data directory is free: the next serve on it starts, and the held call is still there to decide.
    expect(existsSync(join(dir, 'svc.lock'))).toBe(false);
    const next = launch([bin, 'serve'], env, dir);
    const nextUrl = await next.listening();
    const exec: any = await (await fetch(`${nextUrl}/v1/stores/${storeId}/tool-executions/${executionId}`, { headers: { 'x-api-key': key } })).json();
    expect(exec.status).toBe('pending_approval');
    next.proc.kill('SIGTERM');
    expect((await next.exitWithin((GRACE_S + 5) * 1000)).code).toBe(0);
  }, 300_000);

  test('npm start passes the signal on: npm and the server exit, and the lock is released', async () => {
    const dir = dataDir();
    const npm = launch(['npm', 'start'], { SVC_SHUTDOWN_GRACE_S: String(GRACE_S) }, dir);
    const url = await npm.listening();
    // The server itself, npm's child (no shell in between to leave it running).
    const children = readFileSync(`/proc/${npm.proc.pid}/task/${npm.proc.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    expect(children).toHaveLength(1);
    const serverPid = children[0];
    cleanups.push(() => alive(serverPid) && process.kill(serverPid, 'SIGKILL'));
    if (!dbUrl) expect(readFileSync(join(dir, 'svc.lock'), 'utf8').trim()).toBe(String(serverPid));

    // A connected MCP client (the SDK over Streamable HTTP: it holds a GET stream open).
    const { storeId, key } = await newStore(url);
    const client = new Client({ name: 'connected', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${url}/agent/mcp?store=${storeId}`), {
        requestInit: { headers: { authorization: `Bearer ${key}` } },
      }),
    );
    cleanups.push(() => client.close());
    expect((await client.listTools()).tools.length).toBeGreaterThan(1);
    await Bun.sleep(300);

    const sent = performance.now();
    npm.proc.kill('SIGTERM');
    const { code, at } = await npm.exitWithin((GRACE_S + 5) * 1000);
    expect(code).toBe(0);
    expect(at - sent).toBeLessThan(5000);
    await eventually(() => !alive(serverPid), 'the server to exit', 2000);
    expect(npm.log).toContain('shutting down');
    expect(existsSync(join(dir, 'svc.lock'))).toBe(false);
  }, 300_000);

  test('Ctrl-C at a terminal under npm start reaches the server twice, and counts once: a graceful stop, cut at the grace period', async () => {
    const dir = dataDir();
    const npm = launch(['npm', 'start'], { SVC_SHUTDOWN_GRACE_S: '2' }, dir);
    const url = await npm.listening();
    const [serverPid] = readFileSync(`/proc/${npm.proc.pid}/task/${npm.proc.pid}/children`, 'utf8').trim().split(/\s+/).map(Number);
    cleanups.push(() => alive(serverPid) && process.kill(serverPid, 'SIGKILL'));
    const { storeId, key } = await newStore(url);
    const slow = await slowRequest(url, storeId, key);

    // The terminal signals its whole foreground group: the server hears it at once, and again a
    // moment later when npm passes its own copy on (sent together, the kernel may merge the two).
    const sent = performance.now();
    process.kill(serverPid, 'SIGINT');
    await Bun.sleep(50);
    npm.proc.kill('SIGINT');
    const { code, at } = await npm.exitWithin(10_000);
    expect(npm.log).not.toContain('again: stopping now');
    expect(code).toBe(0);
    // The running request had its 2 s, then its connection was cut.
    expect(at - sent).toBeGreaterThan(1800);
    expect(npm.log).toContain('still running after the grace period');
    await slow.settled;
    expect(slow.answered).toBe(false);
    await eventually(() => !alive(serverPid), 'the server to exit', 2000);
    expect(existsSync(join(dir, 'svc.lock'))).toBe(false);
  }, 300_000);

  test('a second signal stops at once, even with a request still running and a long grace period', async () => {
    const dir = dataDir();
    const server = launch([bin, 'serve'], { SVC_SHUTDOWN_GRACE_S: '120' }, dir);
    const url = await server.listening();
    const { storeId, key } = await newStore(url);
    const slow = await slowRequest(url, storeId, key);

    server.proc.kill('SIGTERM');
    await eventually(() => server.log.includes('shutting down'), 'the first signal to be heard', 5000);
    await Bun.sleep(ECHO_MS + 200); // sooner, the same signal counts as an echo of the first
    expect(alive(server.proc.pid)).toBe(true); // the graceful shutdown waits for the running request
    const sent = performance.now();
    server.proc.kill('SIGTERM');
    const { code, at } = await server.exitWithin(5000);
    expect(at - sent).toBeLessThan(1500);
    expect(code).toBe(128 + 15);
    await slow.settled;
    expect(slow.answered).toBe(false);
  }, 300_000);
});

describe.skipIf(backend !== 'postgres')('SIGTERM to a worker process (PostgreSQL)', () => {
  test('webhook deliveries in flight finish within the grace period before the worker exits 0: none is lost', async () => {
    const h = await setup({ now: new Date().toISOString() });
    const rx = await startReceiver(() => Bun.sleep(1500).then(() => 200)); // every answer takes 1.5 s
    cleanups.push(() => rx.close());
    expect((await h.call('POST', '/webhooks', { url: rx.url(), events: ['order.created'] })).status).toBe(201);
    const worker = launch(
      [bin, 'serve', '--role', 'worker'],
      { NODE_EXTRA_CA_CERTS: join(testCerts().dir, 'ca.pem'), SVC_EGRESS_ALLOW: 'localhost', SVC_SHUTDOWN_GRACE_S: String(GRACE_S) },
      dataDir(),
    );
    await eventually(() => worker.log.includes('workers:'), 'the worker to start', 150_000);
    await h.db.transaction((tx) =>
      writeEvents(
        tx,
        h.store.id,
        [1, 2, 3].map((n) => ({ type: 'order.created', data: { object: 'order', id: crypto.randomUUID(), n }, at: h.clock.now() })),
      ),
    );
    await rx.waitFor(3, 30_000); // all three requests are out, their answers held back

    worker.proc.kill('SIGTERM');
    const { code } = await worker.exitWithin((GRACE_S + 5) * 1000);
    expect(code).toBe(0);
    const rows = await h.db.query<{ status: string }>('SELECT status FROM webhook_deliveries WHERE store_id = $1', [h.store.id]);
    expect(rows.map((r) => r.status)).toEqual(['succeeded', 'succeeded', 'succeeded']);
  }, 300_000);
});
