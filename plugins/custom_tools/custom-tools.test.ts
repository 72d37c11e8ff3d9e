/**
 * Custom tools (SPEC 2.5, 4.3, 4.4, 5.2, 8) as a user meets them: the two REST forms over one
 * store of definitions, validation, test runs of HTTP tools (against a real local receiver) and
 * JavaScript tools, plans and visibility across stores, secrets that never come back out, and the
 * tools as MCP tools (listing, change notifications, calls with an audit record).
 */
import { afterAll, beforeAll, describe, expect, spyOn, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { openToolStreams } from '../../core/mcp/http';
import { POLL_MS } from '../../core/mcp/tool-watch';
import { sandboxPoolSize } from '../../core/sandbox/pool';
import { resetSecretBox } from '../../core/secrets';
import { product, setup, type Harness } from '../../test/helpers';
import { mcpClient } from '../../test/mcp/client';

// ---------------------------------------------------------------------------------------------
// Environment: a secret key (required on PostgreSQL) and egress to the local receiver.

const savedEnv = { key: process.env.SVC_SECRET_KEY, allow: process.env.SVC_EGRESS_ALLOW };
beforeAll(() => {
  process.env.SVC_SECRET_KEY ??= Buffer.alloc(32, 7).toString('base64');
  process.env.SVC_EGRESS_ALLOW = [savedEnv.allow, '127.0.0.1'].filter(Boolean).join(',');
  resetSecretBox();
});
afterAll(() => {
  for (const [name, value] of [['SVC_SECRET_KEY', savedEnv.key], ['SVC_EGRESS_ALLOW', savedEnv.allow]] as const)
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  resetSecretBox();
});

// ---------------------------------------------------------------------------------------------
// A local receiver for HTTP tools: it records what it got and answers per path.

interface Seen {
  method: string;
  path: string;
  url: string;
  headers: Record<string, string>;
  body: any;
}
let seen: Seen[] = [];
let receiver: ReturnType<typeof Bun.serve>;
let recv = '';

beforeAll(() => {
  receiver = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(req) {
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
        case 'fail':
          return new Response(`maintenance, token ${s.headers['x-token'] ?? 'none'}`, { status: 503 });
        case 'slow':
          await Bun.sleep(1500);
          return Response.json({ late: true });
      }
      return new Response('no route', { status: 404 });
    },
  });
  recv = `http://127.0.0.1:${receiver.port}`;
});
afterAll(() => receiver.stop(true));

// ---------------------------------------------------------------------------------------------
// Definitions and small helpers.

/** A unique snake_case name (public tools are seen by every store of the shared test database). */
const uniq = (prefix: string) => `${prefix}_${crypto.randomUUID().replaceAll('-', '').slice(0, 8)}`;

/** A Shape B (STORE/tools) HTTP tool. */
const httpB = (over: Record<string, unknown> = {}) => ({
  name: 'double_it',
  description: 'Doubles n.',
  parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  execution_type: 'http',
  execution_config: { url: `${recv}/double`, method: 'POST' },
  ...over,
});

/** A Shape B JavaScript tool. */
const jsB = (code: string, over: Record<string, unknown> = {}) => ({
  name: 'js_tool',
  description: 'Runs code.',
  parameters: { type: 'object', properties: {} },
  execution_type: 'javascript',
  execution_config: { code },
  ...over,
});

/** A Shape A (/custom-tools) webhook tool. */
const webhookA = (over: Record<string, unknown> = {}) => ({
  name: 'double_a',
  description: 'Doubles n (gateway form).',
  input_schema: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] },
  handler: { type: 'webhook', url: `${recv}/double`, method: 'POST' },
  ...over,
});

/** Creates a tool in one form and returns its body, failing loudly on anything but 201. */
async function create(h: Harness, path: '/tools' | '/custom-tools', body: object) {
  const r = await h.call('POST', path, body);
  if (r.status !== 201) throw new Error(`POST ${path} answered ${r.status}: ${JSON.stringify(r.body)}`);
  return r.body;
}

/** An error answer in the SPEC 7 envelope, with the given status and, where given, code, param and message. */
const expectError = (
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
const mcpJson = (r: any) => (r.structuredContent ?? JSON.parse(r.content[0].text));

/** Waits until `check` holds (polling), or fails after `ms`. */
async function eventually(check: () => boolean | Promise<boolean>, ms = 2000) {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('condition not met in time');
    await Bun.sleep(10);
  }
}

// ---------------------------------------------------------------------------------------------

describe('CRUD in both forms over one store of definitions', () => {
  test('Shape B round trip: create 201, list, get, patch, delete', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB({ requires_plan: 'starter', category: 'math' }));
    expect(made).toMatchObject({
      object: 'tool',
      name: 'double_it',
      description: 'Doubles n.',
      execution_type: 'http',
      execution_config: { url: `${recv}/double`, method: 'POST' },
      visibility: 'private',
      requires_plan: 'starter',
      category: 'math',
      secret_names: [],
    });
    expect(made.parameters.required).toEqual(['n']);

    const list = await h.call('GET', '/tools');
    expect(list.status).toBe(200);
    expect(list.body.data.map((t: any) => t.id)).toEqual([made.id]);
    expect((await h.call('GET', `/tools/${made.id}`)).body).toEqual(made);

    const patched = await h.call('PATCH', `/tools/${made.id}`, { description: 'Doubles a number.', visibility: 'public', name: 'double_num' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: made.id,
      name: 'double_num',
      description: 'Doubles a number.',
      visibility: 'public',
      execution_type: 'http',
    });
    expect((await h.call('GET', `/tools/${made.id}`)).body.name).toBe('double_num');

    const del = await h.call('DELETE', `/tools/${made.id}`);
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ id: made.id, object: 'tool', deleted: true });
    expectError(await h.call('GET', `/tools/${made.id}`), 404);
    expect((await h.call('GET', '/tools')).body.data).toEqual([]);
  });

  test('Shape A round trip: create 201 (visibility store), list, get, patch, delete 204 with no body', async () => {
    const h = await setup();
    const handler = { type: 'webhook', url: `${recv}/double`, method: 'POST', headers: { 'X-Token': '{{secrets.TOKEN}}' }, timeout_ms: 5000 };
    const made = await create(h, '/custom-tools', webhookA({ handler }));
    expect(made).toMatchObject({
      object: 'custom_tool',
      name: 'double_a',
      handler: { type: 'webhook', url: `${recv}/double`, method: 'POST', headers: { 'X-Token': '{{secrets.TOKEN}}' } },
      visibility: 'store',
      requires_approval: false,
    });
    expect((await h.call('GET', '/custom-tools')).body.data.map((t: any) => t.id)).toEqual([made.id]);
    expect((await h.call('GET', `/custom-tools/${made.id}`)).body).toEqual(made);

    const patched = await h.call('PATCH', `/custom-tools/${made.id}`, { handler: { type: 'javascript', code: 'return input.n * 3;' } });
    expect(patched.status).toBe(200);
    expect(patched.body.handler).toEqual({ type: 'javascript', code: 'return input.n * 3;' });
    const run = await h.call('POST', `/custom-tools/${made.id}/test`, { input: { n: 5 } });
    expect(run.body).toMatchObject({ success: true, result: 15 });

    const del = await h.raw('DELETE', `${h.base}/custom-tools/${made.id}`);
    expect(del.status).toBe(204);
    expect(del.body).toBe('');
    expectError(await h.call('GET', `/custom-tools/${made.id}`), 404);
  });

  test('one id space: a tool made in one form is read, patched, tested, given secrets and deleted through the other', async () => {
    const h = await setup();
    const b = await create(h, '/tools', httpB({ execution_config: { url: `${recv}/echo`, headers: { 'X-Token': '{{TOKEN}}' } } }));
    const asA = await h.call('GET', `/custom-tools/${b.id}`);
    expect(asA.body).toMatchObject({
      object: 'custom_tool',
      id: b.id,
      name: 'double_it',
      handler: { type: 'webhook', url: `${recv}/echo` },
      visibility: 'store',
    });
    expect(asA.body.input_schema).toEqual(b.parameters);
    expect((await h.call('PATCH', `/custom-tools/${b.id}`, { description: 'Changed via A' })).body.description).toBe('Changed via A');
    expect((await h.call('GET', `/tools/${b.id}`)).body.description).toBe('Changed via A');
    const secrets = await h.call('PUT', `/custom-tools/${b.id}/secrets`, { TOKEN: 'tok-a' });
    expect(secrets.status).toBe(200);
    expect(secrets.body).toMatchObject({ object: 'tool_secrets', tool_id: b.id, names: ['TOKEN'] });
    expect((await h.call('GET', `/tools/${b.id}`)).body.secret_names).toEqual(['TOKEN']);
    const run = await h.call('POST', `/custom-tools/${b.id}/test`, { input: { n: 1 } });
    expect(run.body.success).toBe(true);
    expect(seen.at(-1)!.headers['x-token']).toBe('tok-a');
    expect((await h.raw('DELETE', `${h.base}/custom-tools/${b.id}`)).status).toBe(204);
    expectError(await h.call('GET', `/tools/${b.id}`), 404);

    const a = await create(h, '/custom-tools', webhookA());
    expect((await h.call('GET', `/tools/${a.id}`)).body).toMatchObject({ object: 'tool', execution_type: 'http', visibility: 'private' });
    expect((await h.call('PATCH', `/tools/${a.id}`, { requires_plan: 'starter' })).body.requires_plan).toBe('starter');
    expect((await h.call('GET', `/custom-tools/${a.id}`)).body.requires_plan).toBe('starter');
    expect((await h.call('PUT', `/tools/${a.id}/secrets`, { K: 'v' })).body.names).toEqual(['K']);
    expect((await h.call('POST', `/tools/${a.id}/test`, { parameters: { n: 4 } })).body).toMatchObject({ success: true, result: { doubled: 8 } });
    expect((await h.call('GET', '/tools')).body.data.map((t: any) => t.id)).toEqual([a.id]);
    expect((await h.call('GET', '/custom-tools')).body.data.map((t: any) => t.id)).toEqual([a.id]);
    expect((await h.call('DELETE', `/tools/${a.id}`)).body).toEqual({ id: a.id, object: 'tool', deleted: true });
    expectError(await h.call('GET', `/custom-tools/${a.id}`), 404);
  });

  test('an Idempotency-Key makes a repeated registration return the first tool, not a 409', async () => {
    const h = await setup();
    const headers = { 'idempotency-key': crypto.randomUUID() };
    const first = await h.call('POST', '/custom-tools', webhookA(), headers);
    const again = await h.call('POST', '/custom-tools', webhookA(), headers);
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await h.call('GET', '/custom-tools')).body.data).toHaveLength(1);
  });

  test('auth: Bearer works on /custom-tools and /tools; no key or a bad key is 401', async () => {
    const h = await setup();
    const bearer = { 'x-api-key': '', authorization: `Bearer ${h.key}` };
    const made = await h.call('POST', '/custom-tools', webhookA(), bearer);
    expect(made.status).toBe(201);
    expect((await h.call('GET', '/custom-tools', undefined, bearer)).body.data).toHaveLength(1);
    expect((await h.call('POST', `/custom-tools/${made.body.id}/test`, { input: { n: 2 } }, bearer)).body.result.doubled).toBe(4);
    expect((await h.call('GET', `/tools/${made.body.id}`, undefined, bearer)).status).toBe(200);
    expectError(await h.call('GET', '/custom-tools', undefined, { 'x-api-key': '' }), 401, { code: 'invalid_api_key' });
    expectError(await h.call('POST', '/tools', httpB(), { 'x-api-key': '' }), 401, { code: 'invalid_api_key' });
    expectError(await h.call('GET', '/custom-tools', undefined, { 'x-api-key': '', authorization: 'Bearer svc_test_nope' }), 401);
  });
});

describe('validation', () => {
  test('names: snake_case only, no built-in tool names', async () => {
    const h = await setup();
    for (const name of ['DoubleIt', 'double-it', '1tool', 'with space'])
      expectError(await h.call('POST', '/tools', httpB({ name })), 400, { param: 'name' });
    for (const name of ['products', 'orders_list_orders', 'discover_tools']) {
      expectError(await h.call('POST', '/tools', httpB({ name })), 400, { param: 'name', message: /built-in/ });
      expectError(await h.call('POST', '/custom-tools', webhookA({ name })), 400, { param: 'name' });
    }
    const made = await create(h, '/tools', httpB());
    expectError(await h.call('PATCH', `/tools/${made.id}`, { name: 'products' }), 400, { param: 'name' });
    expect((await h.call('GET', '/tools')).body.data).toHaveLength(1);
  });

  test('duplicate names are 409 duplicate_name, in either form and on a rename', async () => {
    const h = await setup();
    const first = await create(h, '/tools', httpB());
    expectError(await h.call('POST', '/tools', httpB()), 409, { code: 'duplicate_name' });
    expectError(await h.call('POST', '/custom-tools', webhookA({ name: 'double_it' })), 409, { code: 'duplicate_name' });
    const other = await create(h, '/custom-tools', webhookA());
    expectError(await h.call('PATCH', `/tools/${other.id}`, { name: 'double_it' }), 409, { code: 'duplicate_name' });
    expectError(await h.call('PATCH', `/custom-tools/${other.id}`, { name: 'double_it' }), 409, { code: 'duplicate_name' });
    expect((await h.call('GET', `/tools/${other.id}`)).body.name).toBe('double_a');
    // The same name in another store is fine.
    const h2 = await setup();
    await create(h2, '/tools', httpB());
    expect((await h.call('GET', `/tools/${first.id}`)).status).toBe(200);
  });

  test('schemas, code, url, method and unknown fields are checked, naming the field in the caller\'s form', async () => {
    const h = await setup();
    expectError(await h.call('POST', '/tools', httpB({ parameters: { type: 'string' } })), 400, { param: 'parameters' });
    expectError(await h.call('POST', '/custom-tools', webhookA({ input_schema: { type: 'array' } })), 400, { param: 'input_schema' });
    expectError(await h.call('POST', '/tools', jsB('return (;')), 400, { param: 'execution_config.code' });
    const badCode = webhookA({ handler: { type: 'javascript', code: 'let = ;' } });
    expectError(await h.call('POST', '/custom-tools', badCode), 400, { param: 'handler.code' });
    expectError(await h.call('POST', '/tools', httpB({ execution_config: { method: 'POST' } })), 400, { param: 'execution_config.url' });
    expectError(await h.call('POST', '/custom-tools', webhookA({ handler: { type: 'webhook' } })), 400, { param: 'handler.url' });
    expectError(await h.call('POST', '/tools', httpB({ execution_config: { url: 'ftp://example.com/x' } })), 400, { param: 'execution_config.url' });
    const badMethod = await h.call('POST', '/tools', httpB({ execution_config: { url: `${recv}/double`, method: 'FETCH' } }));
    expectError(badMethod, 400);
    expect(badMethod.body.error.param).toContain('method');
    const unknown = await h.call('POST', '/tools', { ...httpB(), colour: 'red' });
    expectError(unknown, 400);
    expect(JSON.stringify(unknown.body.error)).toContain('colour');
    expectError(await h.call('POST', '/tools', httpB({ execution_type: 'python' })), 400);
    expectError(await h.call('POST', '/tools', httpB({ visibility: 'store' })), 400);
    expectError(await h.call('POST', '/custom-tools', webhookA({ visibility: 'private' })), 400);
    expectError(await h.call('POST', '/tools', httpB({ requires_plan: 'gold' })), 400);
    // A broken patch leaves the tool as it was.
    const made = await create(h, '/tools', jsB('return 1;'));
    expectError(await h.call('PATCH', `/tools/${made.id}`, { execution_config: { code: 'return (' } }), 400, { param: 'execution_config.code' });
    expect((await h.call('GET', `/tools/${made.id}`)).body.execution_config.code).toBe('return 1;');
    expect((await h.call('GET', '/tools')).body.data).toHaveLength(1);
  });

  test('test input is checked against the tool\'s schema', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB());
    expectError(await h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 'two' } }), 400, { param: 'n' });
    expectError(await h.call('POST', `/tools/${made.id}/test`, { parameters: {} }), 400, { param: 'n' });
    expectError(await h.call('POST', `/tools/${crypto.randomUUID()}/test`, { parameters: { n: 1 } }), 404);
  });
});

describe('HTTP tool test runs against a real receiver', () => {
  test('the parameters go out as JSON and the JSON answer comes back', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB());
    seen = [];
    const r = await h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 21 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: true, result: { doubled: 42, echo: { n: 21 } } });
    expect(Number.isInteger(r.body.execution_time_ms)).toBe(true);
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatchObject({ method: 'POST', path: '/double', body: { n: 21 } });
    expect(seen[0].headers['content-type']).toBe('application/json');
  });

  test('secrets are filled into headers and the URL, in both {{NAME}} and {{secrets.NAME}} forms', async () => {
    const h = await setup();
    const made = await create(
      h,
      '/tools',
      httpB({
        name: 'echo_tool',
        parameters: { type: 'object', properties: {} },
        execution_config: {
          url: `${recv}/echo?k={{API_KEY}}&s={{secrets.SHOP}}`,
          headers: { 'X-Token': '{{TOKEN}}', Authorization: 'Bearer {{secrets.BEARER}}' },
        },
      }),
    );
    await h.call('PUT', `/tools/${made.id}/secrets`, { API_KEY: 'key-1', SHOP: 'shop-2', TOKEN: 'token-3', BEARER: 'bearer-4' });
    seen = [];
    const r = await h.call('POST', `/tools/${made.id}/test`, { parameters: {} });
    expect(r.body.success).toBe(true);
    const got = new URL(seen[0].url);
    expect(got.searchParams.get('k')).toBe('key-1');
    expect(got.searchParams.get('s')).toBe('shop-2');
    expect(seen[0].headers['x-token']).toBe('token-3');
    expect(seen[0].headers.authorization).toBe('Bearer bearer-4');
  });

  test('a non-2xx answer is success false with status error and the reason', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB({ execution_config: { url: `${recv}/fail` } }));
    const r = await h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 1 } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: false, result: null, error: { status: 'error' } });
    expect(r.body.error.message).toContain('503');
    expect(r.body.error.message).toContain('maintenance');
  });

  test('timeout_ms bounds a slow receiver: status timeout', async () => {
    const h = await setup();
    const made = await create(h, '/custom-tools', webhookA({ handler: { type: 'webhook', url: `${recv}/slow`, timeout_ms: 300 } }));
    const started = performance.now();
    const r = await h.call('POST', `/custom-tools/${made.id}/test`, { input: { n: 1 } });
    expect(performance.now() - started).toBeLessThan(1200);
    expect(r.body).toMatchObject({ success: false, error: { status: 'timeout' } });
    expect(r.body.execution_time_ms).toBeGreaterThanOrEqual(250);
  });

  test('a slow test run, even with an Idempotency-Key, never holds the database: other requests answer meanwhile', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB({ execution_config: { url: `${recv}/slow`, timeout_ms: 5000 } }));
    const run = h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 1 } }, { 'Idempotency-Key': uniq('test_run') });
    await Bun.sleep(200);
    const started = performance.now();
    expect((await h.call('GET', '/products')).status).toBe(200);
    expect((await h.call('POST', '/products', product())).status).toBe(201);
    expect(performance.now() - started).toBeLessThan(500);
    expect((await run).body).toMatchObject({ success: true, result: { late: true } });
  });

  test('a secret that is referenced but not set is a clear error naming it', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB({ execution_config: { url: `${recv}/double`, headers: { 'X-Token': '{{MISSING_TOKEN}}' } } }));
    await h.call('PUT', `/tools/${made.id}/secrets`, { OTHER: 'x' });
    seen = [];
    const r = await h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 1 } });
    expect(r.body).toMatchObject({ success: false, error: { status: 'error' } });
    expect(r.body.error.message).toContain('MISSING_TOKEN');
    expect(seen).toHaveLength(0);
  });
});

describe('JavaScript tool test runs', () => {
  test('the result comes back; the input is both `params` and `input`', async () => {
    const h = await setup();
    const b = await create(h, '/tools', jsB('return { total: params.a + params.b, same: input === params || input.a === params.a };'));
    expect((await h.call('POST', `/tools/${b.id}/test`, { parameters: { a: 2, b: 3 } })).body).toMatchObject({
      success: true,
      result: { total: 5, same: true },
    });
    const a = await create(h, '/custom-tools', {
      name: 'greet',
      description: 'Greets.',
      handler: { type: 'javascript', code: 'return `hi ${input.who}`;' },
    });
    expect((await h.call('POST', `/custom-tools/${a.id}/test`, { input: { who: 'Ann' } })).body).toMatchObject({ success: true, result: 'hi Ann' });
  });

  test('a thrown error is success false with its message', async () => {
    const h = await setup();
    const made = await create(h, '/tools', jsB('throw new Error("out of widgets");'));
    const r = await h.call('POST', `/tools/${made.id}/test`, { parameters: {} });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ success: false, result: null, error: { status: 'error' } });
    expect(r.body.error.message).toContain('out of widgets');
  });

  // JavaScript tools have the fixed 10 s limit (SPEC 8) and no per-tool setting, so this one test
  // waits it out once, and checks everything that must stay responsive meanwhile.
  test(
    'runaway loops end as timeout at the 10 s limit; meanwhile the server and tool management keep answering',
    async () => {
      const h = await setup();
      await h.call('POST', '/products', product({ name: 'Lamp' }));
      const loop = await create(h, '/tools', jsB('while (true) {}'));
      const quick = await create(h, '/tools', jsB('return 1;', { name: 'quick' }));
      const started = performance.now();
      // One runaway per sandbox worker: the pool is full until they time out.
      const runs = Array.from({ length: sandboxPoolSize() }, () => h.call('POST', `/tools/${loop.id}/test`, { parameters: {} }));
      await Bun.sleep(300);
      const prompt = async <T>(what: Promise<T>) => {
        const t = performance.now();
        const out = await what;
        expect(performance.now() - t).toBeLessThan(1000);
        return out;
      };
      expect((await prompt(h.call('GET', '/products'))).body.data.map((p: any) => p.name)).toEqual(['Lamp']);
      // HTTP tools need no sandbox worker.
      const http = await prompt(create(h, '/tools', httpB()));
      expect((await prompt(h.call('POST', `/tools/${http.id}/test`, { parameters: { n: 1 } }))).body.success).toBe(true);
      // New JavaScript code is compiled in the sandbox, so it waits for a worker, holding nothing meanwhile.
      const creating = h.call('POST', '/tools', jsB('return 2;', { name: 'waits' }));
      const recoding = h.call('PATCH', `/tools/${quick.id}`, { execution_config: { code: 'return 3;' } });
      await Bun.sleep(100);
      expect((await prompt(h.call('GET', '/products'))).status).toBe(200);
      expect((await prompt(h.call('GET', '/tools'))).body.data).toHaveLength(3);
      // A patch that keeps the code needs no worker.
      expect((await prompt(h.call('PATCH', `/tools/${quick.id}`, { description: 'Returns one.' }))).status).toBe(200);

      for (const r of await Promise.all(runs)) expect(r.body).toMatchObject({ success: false, result: null, error: { status: 'timeout' } });
      const elapsed = performance.now() - started;
      expect(elapsed).toBeGreaterThanOrEqual(9_500);
      expect(elapsed).toBeLessThan(12_000);
      expect((await creating).status).toBe(201);
      // The code patch read the tool before the description patch changed it: a 409, not a silent undo.
      expectError(await recoding, 409, { code: 'concurrent_modification' });
      const kept = (await h.call('GET', `/tools/${quick.id}`)).body;
      expect(kept).toMatchObject({ description: 'Returns one.', execution_config: { code: 'return 1;' } });
      expect((await h.call('POST', `/tools/${quick.id}/test`, { parameters: {} })).body).toMatchObject({ success: true, result: 1 });
    },
    { timeout: 20_000 },
  );
});

describe('plans and visibility across stores', () => {
  test('requires_plan: a pro tool run from a free store is 403 plan_required naming pro', async () => {
    const h = await setup({ plan: 'free' });
    const made = await create(h, '/tools', httpB({ requires_plan: 'pro' }));
    seen = [];
    const r = await h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 1 } });
    expectError(r, 403, { code: 'plan_required', message: /pro/ });
    expect(seen).toHaveLength(0);
    expect((await h.call('PATCH', `/tools/${made.id}`, { requires_plan: 'free' })).status).toBe(200);
    expect((await h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 1 } })).body.success).toBe(true);
    // Through MCP the same rule holds.
    await h.call('PATCH', `/tools/${made.id}`, { requires_plan: 'enterprise' });
    const { client } = await mcpClient(h);
    const res: any = await client.callTool({ name: 'double_it', arguments: { n: 1 } });
    expect(res.isError).toBe(true);
    expect(mcpJson(res).error).toMatchObject({ code: 'plan_required' });
    expect(mcpJson(res).error.message).toContain('enterprise');
    await client.close();
  });

  test('a public tool of store A is usable by store B over MCP; a private one is not', async () => {
    const a = await setup();
    const b = await setup();
    const pub = await create(a, '/tools', httpB({ name: uniq('pub_double'), visibility: 'public' }));
    const priv = await create(a, '/tools', httpB({ name: uniq('priv_double') }));
    const { client } = await mcpClient(b);
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toContain(pub.name);
    expect(names).not.toContain(priv.name);
    const res: any = await client.callTool({ name: pub.name, arguments: { n: 6 } });
    expect(res.isError).toBeUndefined();
    expect(res.structuredContent).toMatchObject({ doubled: 12 });
    await expect(client.callTool({ name: priv.name, arguments: { n: 6 } })).rejects.toThrow(/Unknown tool/);
    // The call is in B's audit log, not A's.
    expect((await b.call('GET', `/tool-executions?tool=${pub.name}`)).body.total).toBe(1);
    expect((await a.call('GET', `/tool-executions?tool=${pub.name}`)).body.total).toBe(0);
    // B does not see A's tools through REST at all.
    expect((await b.call('GET', '/tools')).body.data).toEqual([]);
    await client.close();
  });

  test('store B cannot read, change, test, delete or set secrets of A\'s tools (404), public or not', async () => {
    const a = await setup();
    const b = await setup();
    const pub = await create(a, '/tools', httpB({ name: uniq('pub_x'), visibility: 'public' }));
    const priv = await create(a, '/custom-tools', webhookA());
    for (const id of [pub.id, priv.id]) {
      for (const prefix of ['/tools', '/custom-tools']) {
        expectError(await b.call('GET', `${prefix}/${id}`), 404);
        expectError(await b.call('PATCH', `${prefix}/${id}`, { description: 'mine now' }), 404);
        expectError(await b.call('PUT', `${prefix}/${id}/secrets`, { TOKEN: 'x' }), 404);
        expectError(await b.call('DELETE', `${prefix}/${id}`), 404);
      }
      expectError(await b.call('POST', `/tools/${id}/test`, { parameters: { n: 1 } }), 404);
      expectError(await b.call('POST', `/custom-tools/${id}/test`, { input: { n: 1 } }), 404);
    }
    // A's URL with B's key is a store mismatch, not access.
    expectError(await a.call('GET', `/tools/${pub.id}`, undefined, { 'x-api-key': b.key }), 403, { code: 'store_mismatch' });
    const after = await a.call('GET', `/tools/${pub.id}`);
    expect(after.body).toMatchObject({ description: pub.description, secret_names: [] });
    expect((await a.call('GET', `/custom-tools/${priv.id}`)).status).toBe(200);
  });
});

describe('secret values never come back out', () => {
  test('not in responses (both forms, echoed or in errors), the table, the audit log or the console', async () => {
    // Characters a URL parser, a JSON encoder and a form encoder each escape differently; MARK is
    // the part no encoding changes, so it shows the value in any of its forms.
    const MARK = crypto.randomUUID();
    const CANARY = `can'ary ${MARK}/"x"`;
    const printed: string[] = [];
    const show = (a: unknown) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === 'string' ? a : Bun.inspect(a));
    const spies = (['log', 'info', 'error', 'warn', 'debug'] as const).map((m) =>
      spyOn(console, m).mockImplementation((...args: unknown[]) => void printed.push(args.map(show).join(' '))),
    );
    const bodies: unknown[] = [];
    const keep = <T extends { body: unknown }>(r: T) => (bodies.push(r.body), r);
    try {
      const h = await setup();
      const echo = keep(
        await h.call(
          'POST',
          '/tools',
          httpB({
            name: 'echo_tool',
            parameters: { type: 'object', properties: {} },
            execution_config: {
              url: `${recv}/echo/{{CANARY}}?key={{secrets.CANARY}}`,
              headers: { 'X-Token': '{{CANARY}}', 'X-Other': '{{secrets.CANARY}}' },
            },
          }),
        ),
      ).body as any;
      const failHandler = { type: 'webhook', url: `${recv}/fail`, headers: { 'X-Token': '{{secrets.CANARY}}' } };
      const failing = keep(await h.call('POST', '/custom-tools', webhookA({ name: 'fail_tool', handler: failHandler }))).body as any;
      const js = keep(await h.call('POST', '/tools', jsB('throw new Error("no access to secrets: " + typeof CANARY);'))).body as any;
      for (const t of [echo, failing, js]) {
        const put = keep(await h.call('PUT', `/tools/${t.id}/secrets`, { CANARY }));
        expect(put.status).toBe(200);
        expect(put.body.names).toEqual(['CANARY']);
        keep(await h.call('PUT', `/custom-tools/${t.id}/secrets`, { CANARY }));
      }
      seen = [];
      const echoed = keep(await h.call('POST', `/tools/${echo.id}/test`, { parameters: {} }));
      expect(echoed.body.success).toBe(true);
      // The receiver really got it (and echoed it): the response hides it.
      expect(seen[0].headers['x-token']).toBe(CANARY);
      expect(JSON.stringify(echoed.body)).toContain('[redacted]');
      keep(await h.call('POST', `/custom-tools/${echo.id}/test`, { input: {} }));
      const failed = keep(await h.call('POST', `/custom-tools/${failing.id}/test`, { input: { n: 1 } }));
      expect(failed.body.success).toBe(false);
      expect(failed.body.error.message).toContain('503');
      keep(await h.call('POST', `/tools/${js.id}/test`, { parameters: {} }));
      for (const id of [echo.id, failing.id, js.id])
        for (const path of [`/tools/${id}`, `/custom-tools/${id}`]) expect(keep(await h.call('GET', path)).body.secret_names).toEqual(['CANARY']);
      keep(await h.call('GET', '/tools'));
      keep(await h.call('GET', '/custom-tools'));
      keep(await h.call('PATCH', `/tools/${echo.id}`, { description: 'Still echoes.' }));
      keep(await h.call('PATCH', `/custom-tools/${failing.id}`, { description: 'Still fails.' }));

      // Over MCP: the call results and the audit rows.
      const { client } = await mcpClient(h);
      for (const name of ['echo_tool', 'fail_tool', 'js_tool']) {
        const res = await client.callTool({ name, arguments: name === 'fail_tool' ? { n: 1 } : {} });
        bodies.push(res);
      }
      const listed = await client.listTools();
      bodies.push(listed);
      bodies.push(await client.callTool({ name: 'discover_tools', arguments: { tool_name: 'echo_tool' } }));
      await client.close();
      const execs = keep(await h.call('GET', '/tool-executions?limit=50'));
      expect(execs.body.total).toBe(3);
      for (const e of execs.body.executions) expect(e.source).toBe('mcp');

      for (const b of bodies) expect(JSON.stringify(b)).not.toContain(MARK);
      const tools = await h.db.query('SELECT * FROM custom_tools WHERE store_id = $1', [h.store.id]);
      expect(tools).toHaveLength(3);
      for (const row of tools) {
        expect(row.secrets).toMatch(/^v1:/);
        expect(JSON.stringify(row)).not.toContain(MARK);
      }
      const rows = await h.db.query('SELECT * FROM tool_executions WHERE store_id = $1', [h.store.id]);
      expect(rows).toHaveLength(3);
      expect(JSON.stringify(rows)).not.toContain(MARK);
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
    expect(printed.join('\n')).not.toContain(MARK);
  });
});

describe('custom tools as MCP tools', () => {
  test('a registered tool is listed at once; a client with an open stream is told the list changed', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    // The SDK opens the GET stream right after initialization; give it a moment to be served.
    await Bun.sleep(50);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('double_it');

    const made = await create(h, '/tools', httpB());
    const listed = (await client.listTools()).tools.find((t) => t.name === 'double_it');
    expect(listed).toMatchObject({ name: 'double_it', description: 'Doubles n.', inputSchema: { type: 'object', required: ['n'] } });
    await eventually(() => changes >= 1);

    // Rename and delete are announced too, and the list follows.
    const before = changes;
    await h.call('PATCH', `/custom-tools/${made.id}`, { name: 'double_that' });
    await eventually(() => changes > before);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('double_that');
    const mid = changes;
    await h.call('DELETE', `/tools/${made.id}`);
    await eventually(() => changes > mid);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('double_that');
    await client.close();
  });

  test('another store\'s private change is not announced to this store', async () => {
    const h = await setup();
    const other = await setup();
    const { client } = await mcpClient(h);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    await Bun.sleep(50);
    await create(other, '/tools', httpB());
    await create(h, '/tools', httpB({ name: 'mine' }));
    await eventually(() => changes >= 1);
    await Bun.sleep(100);
    expect(changes).toBe(1);
    // A public tool of another store is usable here, so it is announced here too.
    const pub = await create(other, '/tools', httpB({ name: uniq('pub_note'), visibility: 'public' }));
    await eventually(() => changes >= 2);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain(pub.name);
    await other.call('PATCH', `/tools/${pub.id}`, { visibility: 'private' });
    await eventually(() => changes >= 3);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(pub.name);
    await client.close();
  });

  test('a tool added by another server process (straight into the shared database) is announced within seconds, once', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    let changes = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, async () => void changes++);
    await Bun.sleep(50);
    // What another API process's create leaves behind: the row, and no announcement from here.
    await h.db.query(
      `INSERT INTO custom_tools (id, store_id, name, shape, description, input_schema, kind, config, visibility, created_at, updated_at)
       VALUES (gen_random_uuid(), $1, 'from_elsewhere', 'store', 'Made by another node.', '{"type":"object"}', 'javascript',
         '{"code":"return 1"}', 'private', now(), now())`,
      [h.store.id],
    );
    await eventually(() => changes === 1, 5000);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('from_elsewhere');
    await Bun.sleep(POLL_MS + 200); // the next look finds nothing new: no second announcement
    expect(changes).toBe(1);
    await client.close();
  });

  test('over a real HTTP server: the stream gets the notification, and a closed or ended session is forgotten', async () => {
    const h = await setup();
    const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: (r) => h.app.handle(r) });
    try {
      const connect = async () => {
        const transport = new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${server.port}/agent/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${h.key}` } },
        });
        const client = new Client({ name: 'real', version: '1.0.0' });
        const got: string[] = [];
        client.setNotificationHandler(ToolListChangedNotificationSchema, async (n) => void got.push(n.method));
        await client.connect(transport);
        return { client, transport, got };
      };
      const before = openToolStreams();
      const one = await connect();
      const two = await connect();
      await eventually(() => openToolStreams() >= before + 2);
      const open = openToolStreams();
      await create(h, '/custom-tools', webhookA());
      await eventually(() => one.got.length === 1 && two.got.length === 1);
      expect(one.got).toEqual(['notifications/tools/list_changed']);
      expect((await one.client.listTools()).tools.map((t) => t.name)).toContain('double_a');
      // Closing a client, or ending its session, stops notifications to it.
      await one.client.close();
      await two.transport.terminateSession();
      await eventually(() => openToolStreams() <= open - 2);
      await two.client.close();
    } finally {
      server.stop(true);
    }
  });

  test('tools are hidden on read-only connections and when toolsets leave out custom_tools', async () => {
    const h = await setup();
    await create(h, '/tools', httpB());
    seen = [];
    const readOnly = await mcpClient(h, { query: '?readonly=true' });
    expect((await readOnly.client.listTools()).tools.map((t) => t.name)).not.toContain('double_it');
    const refused: any = await readOnly.client.callTool({ name: 'double_it', arguments: { n: 1 } });
    expect(refused.isError).toBe(true);
    expect(mcpJson(refused).error.code).toBe('insufficient_scope');
    await readOnly.client.close();
    const products = await mcpClient(h, { query: '?toolsets=products' });
    expect((await products.client.listTools()).tools.map((t) => t.name)).not.toContain('double_it');
    await expect(products.client.callTool({ name: 'double_it', arguments: { n: 1 } })).rejects.toThrow(/Unknown tool/);
    await products.client.close();
    expect(seen).toHaveLength(0);
    const { client } = await mcpClient(h, { query: '?toolsets=custom_tools' });
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('double_it');
    await client.close();
    // Nor do the management actions show up as tools: they are REST only.
    const all = await mcpClient(h, { query: '?tools=flat' });
    const flat = (await all.client.listTools()).tools.map((t) => t.name);
    const reads = ['custom_tools_list_tools', 'custom_tools_get_tool', 'custom_tools_list_custom_tools', 'custom_tools_get_custom_tool'];
    expect(flat.filter((n) => n.startsWith('custom_tools_')).sort()).toEqual(reads.sort());
    await all.client.close();
  });

  test('calling a tool over MCP returns its result and writes an audit record', async () => {
    const h = await setup();
    await create(h, '/tools', httpB());
    await create(h, '/custom-tools', {
      name: 'shout',
      description: 'Upper-cases.',
      input_schema: { type: 'object', properties: { s: { type: 'string' } } },
      handler: { type: 'javascript', code: 'return { loud: input.s.toUpperCase() };' },
    });
    const { client } = await mcpClient(h);
    const res: any = await client.callTool({ name: 'double_it', arguments: { n: 7 } });
    expect(res.isError).toBeUndefined();
    expect(res.structuredContent).toMatchObject({ doubled: 14 });
    expect(JSON.parse(res.content[0].text)).toMatchObject({ doubled: 14 });
    expect(mcpJson(await client.callTool({ name: 'shout', arguments: { s: 'hey' } }))).toEqual({ loud: 'HEY' });
    const bad: any = await client.callTool({ name: 'double_it', arguments: { n: 'x' } });
    expect(bad.isError).toBe(true);
    expect(mcpJson(bad).error.param).toBe('n');
    await client.close();

    const log = await h.call('GET', '/tool-executions?tool=double_it');
    expect(log.status).toBe(200);
    expect(log.body.total).toBe(2);
    const [failed, ok] = log.body.executions;
    expect(ok).toMatchObject({ tool: 'double_it', action: 'run', status: 'success', source: 'mcp', input: { n: 7 }, output: { doubled: 14 } });
    expect(Number.isInteger(ok.duration_ms)).toBe(true);
    expect(ok.duration_ms).toBeGreaterThanOrEqual(0);
    expect(failed).toMatchObject({ tool: 'double_it', action: 'run', status: 'error', source: 'mcp' });
    const shout = await h.call('GET', '/tool-executions?tool=shout&status=success');
    expect(shout.body.executions).toEqual([expect.objectContaining({ tool: 'shout', action: 'run', output: { loud: 'HEY' } })]);
  });
});
