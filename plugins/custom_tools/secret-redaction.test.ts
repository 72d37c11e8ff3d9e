/** Tool secrets never come back out: not in responses, MCP results, database rows or log output. */
import { describe, expect, spyOn, test } from 'bun:test';
import { setup } from '../../test/kit/setup';
import { mcpClient } from '../../test/kit/mcp';
import { seen, recv, httpB, jsB, webhookA, useToolKit } from '../../test/kit/custom-tools';

useToolKit();

describe('secret values never come back out', () => {
  test('not in responses (both forms, echoed or in errors), the table, the audit log or the console', async () => {
    // Characters a URL parser, a JSON encoder and a form encoder each escape differently; MARK is
    // the part no encoding changes, so it shows the value in any of its forms.
    const MARK = crypto.randomUUID();
    const CANARY = `can'ary ${MARK}/"x"`;
    const printed: string[] = [];
    const show = (a: unknown) => (a instanceof Error ? `${a.message} ${a.stack}` : typeof a === 'string' ? a : Bun.inspect(a));
    const spies = [
      ...(['log', 'info', 'error', 'warn', 'debug'] as const).map((m) =>
        spyOn(console, m).mockImplementation((...args: unknown[]) => void printed.push(args.map(show).join(' '))),
      ),
      // The structured logger writes JSON lines straight to stderr.
      spyOn(process.stderr, 'write').mockImplementation(((chunk: unknown) => (printed.push(String(chunk)), true)) as any),
    ];
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
      seen.length = 0;
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
      const rows = await h.db.query('SELECT * FROM tool_execution_log() WHERE store_id = $1', [h.store.id]);
      expect(rows).toHaveLength(3);
      expect(JSON.stringify(rows)).not.toContain(MARK);
    } finally {
      spies.forEach((s) => s.mockRestore());
    }
    expect(printed.join('\n')).not.toContain(MARK);
  });
});
