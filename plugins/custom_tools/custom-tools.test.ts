/**
 * Custom tools (SPEC 2.5, 4.3, 4.4, 5.2, 8) as a user manages them: the two REST forms over one
 * store of definitions, validation, and plans and visibility across stores.
 */
import { describe, expect, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { mcpClient } from '../../test/kit/mcp';
import { seen, recv, uniq, httpB, jsB, webhookA, create, expectError, mcpJson, useToolKit } from '../../test/kit/custom-tools';

useToolKit();

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

    const patched = await h.call('PATCH', `/tools/${made.id}`, { description: 'Doubles a number.', name: 'double_num' });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({
      id: made.id,
      name: 'double_num',
      description: 'Doubles a number.',
      visibility: 'private',
      execution_type: 'http',
      owned: true,
      enabled: true,
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

  test("schemas, code, url, method and unknown fields are checked, naming the field in the caller's form", async () => {
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

  test('HTTP tool URLs: https only, and no private or metadata address unless SVC_EGRESS_ALLOW allows it, at creation and on update', async () => {
    const h = await setup();
    const refused = [
      'http://tools.example.com/hook', // plain http, even to a public host: headers carry secrets
      'http://169.254.169.254/latest/meta-data/',
      'https://169.254.169.254/latest/meta-data/', // cloud metadata
      'https://10.1.2.3/x',
      'https://127.0.0.2:8443/x', // loopback other than the allowed 127.0.0.1
      'https://[::1]/x',
      'https://user:pw@tools.example.com/x',
    ];
    for (const url of refused) {
      const b = await h.call('POST', '/tools', httpB({ execution_config: { url, headers: { Authorization: 'Bearer {{TOKEN}}' } } }));
      expectError(b, 400, { code: 'validation_failed', param: 'execution_config.url' });
      const a = await h.call('POST', '/custom-tools', webhookA({ handler: { type: 'webhook', url } }));
      expectError(a, 400, { code: 'validation_failed', param: 'handler.url' });
    }
    expectError(await h.call('POST', '/tools', httpB({ execution_config: { url: 'http://tools.example.com/x' } })), 400, {
      message: 'Invalid execution_config.url: tool URL must use https, not http.',
    });
    expectError(await h.call('POST', '/tools', httpB({ execution_config: { url: 'https://169.254.169.254/' } })), 400, {
      message: /cloud metadata address; allow it with SVC_EGRESS_ALLOW/,
    });
    expectError(await h.call('POST', '/tools', httpB({ execution_config: { url: '{{SCHEME}}://tools.example.com/x' } })), 400, {
      param: 'execution_config.url',
    });
    // Accepted: a public host name, an address the egress allow-list holds (127.0.0.1 in these
    // tests), and secret references in the path or query.
    for (const url of ['https://tools.example.com/hook?k={{KEY}}', 'https://127.0.0.1:9/x', `${recv}/double/{{secrets.PATH}}`])
      expect((await h.call('POST', '/tools', httpB({ name: `ok_${crypto.randomUUID().slice(0, 6)}`, execution_config: { url } }))).status).toBe(201);
    expect((await h.call('GET', '/tools')).body.data).toHaveLength(3);
    // On update, through either form.
    const made = await create(h, '/tools', httpB());
    expectError(await h.call('PATCH', `/tools/${made.id}`, { execution_config: { url: 'http://tools.example.com/x' } }), 400, {
      param: 'execution_config.url',
    });
    expectError(await h.call('PATCH', `/custom-tools/${made.id}`, { handler: { type: 'webhook', url: 'https://169.254.169.254/' } }), 400, {
      param: 'handler.url',
    });
    expect((await h.call('GET', `/tools/${made.id}`)).body.execution_config.url).toBe(`${recv}/double`);
  });

  test("test input is checked against the tool's schema", async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB());
    expectError(await h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 'two' } }), 400, { param: 'n' });
    expectError(await h.call('POST', `/tools/${made.id}/test`, { parameters: {} }), 400, { param: 'n' });
    expectError(await h.call('POST', `/tools/${crypto.randomUUID()}/test`, { parameters: { n: 1 } }), 404);
  });
});

describe('plans and visibility across stores', () => {
  test('requires_plan: a pro tool run from a free store is 403 plan_required naming pro', async () => {
    const h = await setup({ plan: 'free' });
    const made = await create(h, '/tools', httpB({ requires_plan: 'pro' }));
    seen.length = 0;
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

  // Published tools, which other stores may read but not change, are in public-tools.test.ts.
  test("store B cannot read, change, test, delete, enable or set secrets of A's private tools (404), nor use them", async () => {
    const a = await setup();
    const b = await setup();
    const pub = await create(a, '/tools', httpB({ name: uniq('priv_x') }));
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
      expectError(await b.call('POST', `/tools/${id}/enable`), 404);
    }
    expect((await b.call('GET', '/tools')).body.data).toEqual([]);
    const { client } = await mcpClient(b);
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain(pub.name);
    await expect(client.callTool({ name: pub.name, arguments: { n: 6 } })).rejects.toThrow(/Unknown tool/);
    await client.close();
    // A's URL with B's key is a store mismatch, not access.
    expectError(await a.call('GET', `/tools/${pub.id}`, undefined, { 'x-api-key': b.key }), 403, { code: 'store_mismatch' });
    const after = await a.call('GET', `/tools/${pub.id}`);
    expect(after.body).toMatchObject({ description: pub.description, secret_names: [] });
    expect((await a.call('GET', `/custom-tools/${priv.id}`)).status).toBe(200);
  });
});
