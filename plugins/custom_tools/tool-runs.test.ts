/** Test runs of custom tools: HTTP tools against a real local receiver, and JavaScript tools in the sandbox. */
import { describe, expect, test } from 'bun:test';
import { sandboxPoolSize } from '../../core/sandbox/pool';
import { product, setup } from '../../test/kit/setup';
import { mcpClient } from '../../test/kit/mcp';
import { seen, recv, uniq, httpB, jsB, webhookA, create, expectError, useToolKit } from '../../test/kit/custom-tools';

useToolKit();

describe('HTTP tool test runs against a real receiver', () => {
  test('the parameters go out as JSON and the JSON answer comes back', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB());
    seen.length = 0;
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
    seen.length = 0;
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
    const r = await h.call('POST', `/custom-tools/${made.id}/test`, { input: { n: 1 } });
    // The receiver answers after 1,500 ms: a timeout reported before that is the limit at work
    // (no wall-clock bound on the whole request, which a loaded machine could pass).
    expect(r.body).toMatchObject({ success: false, error: { status: 'timeout' } });
    expect(r.body.execution_time_ms).toBeGreaterThanOrEqual(250);
    expect(r.body.execution_time_ms).toBeLessThan(1500);
  });

  test('a slow test run, even with an Idempotency-Key, never holds the database: other requests answer meanwhile', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB({ execution_config: { url: `${recv}/slow`, timeout_ms: 5000 } }));
    const run = h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 1 } }, { 'Idempotency-Key': uniq('test_run') });
    let settled = false;
    void run.then(() => (settled = true));
    await Bun.sleep(200);
    expect((await h.call('GET', '/products')).status).toBe(200);
    expect((await h.call('POST', '/products', product())).status).toBe(201);
    // Answered while the test run still waits for its receiver (1,500 ms): not queued behind it.
    expect(settled).toBe(false);
    expect((await run).body).toMatchObject({ success: true, result: { late: true } });
  });

  test('a tool saved with a plain http URL before the https rule is refused when it runs, and sends nothing', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB());
    await h.db.query('UPDATE custom_tools SET config = $2::text::jsonb WHERE id = $1', [
      made.id,
      JSON.stringify({ url: recv.replace('https:', 'http:') + '/double' }),
    ]);
    seen.length = 0;
    const r = await h.call('POST', `/tools/${made.id}/test`, { parameters: { n: 1 } });
    expect(r.body).toMatchObject({ success: false, error: { status: 'error', message: 'tool URL must use https, not http.' } });
    expect(seen).toHaveLength(0);
  });

  test('a secret that is referenced but not set is a clear error naming it', async () => {
    const h = await setup();
    const made = await create(h, '/tools', httpB({ execution_config: { url: `${recv}/double`, headers: { 'X-Token': '{{MISSING_TOKEN}}' } } }));
    await h.call('PUT', `/tools/${made.id}/secrets`, { OTHER: 'x' });
    seen.length = 0;
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

  test('the body runs as an async function: top-level await works when saved, tested and called', async () => {
    const h = await setup();
    const made = await create(h, '/tools', jsB('const x = await Promise.resolve(41); return x + 1;'));
    expect((await h.call('POST', `/tools/${made.id}/test`, { parameters: {} })).body).toMatchObject({ success: true, result: 42 });
    const { client } = await mcpClient(h);
    expect(((await client.callTool({ name: made.name, arguments: {} })) as any).structuredContent).toEqual({ result: 42 });
    await client.close();
  });

  test('a result over 1 MiB is an error stating the limit, and the audit log does not keep it', async () => {
    const h = await setup();
    const made = await create(h, '/tools', jsB('return "x".repeat(2 * 1024 * 1024);'));
    const limit = /larger than the 1 MiB limit/;
    const run = await h.call('POST', `/tools/${made.id}/test`, { parameters: {} });
    expect(run.body).toMatchObject({ success: false, result: null, error: { status: 'error', message: expect.stringMatching(limit) } });
    const { client } = await mcpClient(h);
    const res: any = await client.callTool({ name: made.name, arguments: {} });
    await client.close();
    expect(res.isError).toBe(true);
    expect(JSON.parse(res.content[0].text).error.message).toMatch(limit);
    const log = await h.call('GET', `/tool-executions?tool=${made.name}`);
    expect(log.body.executions).toEqual([
      expect.objectContaining({ status: 'error', output: { error: expect.objectContaining({ message: expect.stringMatching(limit) }) } }),
    ]);
    expect(JSON.stringify(log.body).length).toBeLessThan(10_000);
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
      let runawaysEnded = false;
      void Promise.all(runs).then(() => (runawaysEnded = true));
      await Bun.sleep(300);
      // Prompt: answered while the runaways still hold every worker (an order, not a time in ms,
      // so a loaded machine cannot fail it).
      const prompt = async <T>(what: Promise<T>) => {
        const out = await what;
        expect(runawaysEnded).toBe(false);
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
      // They ran to their limit (a timeout, not an early end); how long past it they took is the
      // machine's load, which bench/ measures, not this test.
      expect(performance.now() - started).toBeGreaterThanOrEqual(9_500);
      expect((await creating).status).toBe(201);
      // The code patch read the tool before the description patch changed it: a 409, not a silent undo.
      expectError(await recoding, 409, { code: 'concurrent_modification' });
      const kept = (await h.call('GET', `/tools/${quick.id}`)).body;
      expect(kept).toMatchObject({ description: 'Returns one.', execution_config: { code: 'return 1;' } });
      expect((await h.call('POST', `/tools/${quick.id}/test`, { parameters: {} })).body).toMatchObject({ success: true, result: 1 });
    },
    { timeout: 60_000 },
  );
});
