/**
 * Shared set-up of the custom tool tests: the environment they need, a local receiver for HTTP
 * tools that records what it got, tool definitions in both forms and small helpers. Not a test
 * file: each test file calls useToolKit().
 */
import { afterAll, beforeAll, expect } from 'bun:test';
import { resetSecretBox } from '../../core/secrets';
import type { Harness } from './setup';
import { sharedDb } from './db';
import { serveTls, trustTestReceivers } from './tool-egress';
import { testCerts } from './webhook-receiver';

// A local HTTPS receiver for HTTP tools (tool URLs must be https): it records what it got and
// answers per path (useToolKit starts it).

export interface Seen {
  method: string;
  path: string;
  url: string;
  headers: Record<string, string>;
  body: any;
}
/** What the receiver got, in order; tests empty it with `seen.length = 0`. */
export const seen: Seen[] = [];
let receiver: ReturnType<typeof serveTls>;
/** The receiver's base URL (set once the hooks ran). */
export let recv = '';

// Definitions and small helpers.

/** A unique snake_case name (public tools are seen by every store of the shared test database). */
export const uniq = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 8)}`;

/** A Shape B (STORE/tools) HTTP tool. */
export const httpB = (over: Record<string, unknown> = {}) => ({
  name: 'double_it',
  description: 'Doubles n.',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execution_type: 'http',
  execution_config: { url: `${recv}/double`, method: 'POST' },
  ...over,
});

/** A Shape B JavaScript tool. */
export const jsB = (code: string, over: Record<string, unknown> = {}) => ({
  name: 'js_tool',
  description: 'Runs code.',
  parameters: { type: 'object', properties: {} },
  execution_type: 'javascript',
  execution_config: { code },
  ...over,
});

/** A Shape A (/custom-tools) webhook tool. */
export const webhookA = (over: Record<string, unknown> = {}) => ({
  name: 'double_a',
  description: 'Doubles n (gateway form).',
  input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  handler: { type: 'webhook', url: `${recv}/double`, method: 'POST' },
  ...over,
});

/** Creates a tool in one form and returns its body, failing loudly on anything but 201. */
export async function create(h: Harness, path: '/tools' | '/custom-tools', body: object) {
  const r = await h.call('POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** An error answer in the SPEC 7 envelope, with the given status and, where given, code, param and message. */
export const expectError = (
  r: { status: number; body: any },
  status: number,
  fields: { code?: string; param?: string | null; message?: RegExp | string } = {},
) => {
  expect({ status: r.status, type: typeof r.body?.error?.type }).toEqual({ status, type: 'string' });
  if (fields.code !== undefined) expect(r.body.error.code).toBe(fields.code);
  if (fields.param !== undefined) expect(r.body.error.param).toBe(fields.param);
  if (fields.message !== undefined) expect(r.body.error.message).toMatch(fields.message);
};

/** The JSON a tool result carries over MCP (structuredContent, or the text mirror of an error). */
export const mcpJson = (r: any) => r.structuredContent ?? JSON.parse(r.content[0].text);

/** Waits until `check` holds (polling), or fails after `ms`. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 2000) {
  const until = performance.now() + ms;
  while (!(await check())) {
    if (performance.now() > until) throw new Error('condition not met in time');
    await Bun.sleep(10);
  }
}

// ---------------------------------------------------------------------------------------------

/**
 * Registers the environment (a secret key, required on PostgreSQL; egress to 127.0.0.1) and the
 * receiver; call it at the top of each test file.
 */
export function useToolKit() {
  const savedEnv = { key: process.env.SVC_SECRET_KEY, allow: process.env.SVC_EGRESS_ALLOW };
  beforeAll(() => {
    process.env.SVC_SECRET_KEY ??= Buffer.alloc(32, 7).toString('base64');
    process.env.SVC_EGRESS_ALLOW = [savedEnv.allow, '127.0.0.1'].filter(Boolean).join(',');
    resetSecretBox();
  });
  afterAll(() => {
    for (const [name, value] of [
      ['SVC_SECRET_KEY', savedEnv.key],
      ['SVC_EGRESS_ALLOW', savedEnv.allow],
    ] as const)
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    resetSecretBox();
  });
  // Creating and migrating the test database, and the receiver's throwaway CA (openssl), take
  // seconds: not within the first test's time limit.
  beforeAll(async () => {
    testCerts();
    await sharedDb();
  }, 60_000);
  let untrust = () => {};
  beforeAll(() => {
    untrust = trustTestReceivers();
    receiver = serveTls(async (req) => {
      const u = new URL(req.url);
      const text = await req.text();
      const s: Seen = {
        method: req.method,
        path: u.pathname,
        url: req.url,
        headers: Object.fromEntries(req.headers),
        body: text ? JSON.parse(text) : null,
      };
      seen.push(s);
      switch (u.pathname.split('/')[1]) {
        case 'double': // JSON in, JSON out
          return Response.json({ doubled: s.body.n * 2, echo: s.body });
        case 'echo': // reflects the request, secrets included, as a careless endpoint would
          return Response.json({ headers: s.headers, url: s.url, note: `you sent ${s.headers['x-token']}` });
        case 'array': // a JSON answer that is not an object
          return Response.json([1, 'two', { three: 3 }]);
        case 'string':
          return Response.json('just a JSON string');
        case 'plain':
          return new Response('plain words', { headers: { 'content-type': 'text/plain' } });
        case 'fail':
          return new Response(`maintenance, token ${s.headers['x-token'] ?? 'none'}`, { status: 503 });
        case 'slow':
          await Bun.sleep(1500);
          return Response.json({ late: true });
      }
      return new Response('no route', { status: 404 });
    });
    recv = receiver.url;
  });
  afterAll(() => {
    receiver.server.stop(true);
    untrust();
  });
}
