import { beforeAll, describe, expect, test } from 'bun:test';
import { callTool, resolveTarget } from '../../core/tools/call';
import { flushAudits } from '../../core/tools/executions';
import { addReadRecord, type ReadRecord } from '../../core/tools/audit-pages';
import { writeAudit } from '../../core/tools/audit-batch';
import { drainWriteBehinds, resumeWriteBehinds } from '../../core/write-behind';
import type { ToolCaller } from '../../core/tools/types';
import { product, setup, type Harness } from '../kit/setup';

/** Successful built-in reads' records, kept as pages (core/tools/audit-pages.ts), read through the API as one log with the rows. */

async function mcpCaller(h: Harness, agent?: { id: string; name: string }) {
  const { principal, store } = await h.svc.keys.resolve(h.key);
  const c: ToolCaller = {
    db: h.db,
    clock: h.clock,
    registry: h.registry,
    principal,
    store,
    source: agent ? 'agent' : 'mcp',
    agent: agent && { ...agent, toolOverrides: {} },
  };
  return async (name: string, args: Record<string, unknown>) => callTool(c, (await resolveTarget(h.db, h.registry, store.id, name, args))!);
}

const read = (h: Harness, n: number, over: Partial<ReadRecord> = {}): ReadRecord => ({
  id: Bun.randomUUIDv7(),
  store_id: h.store.id,
  tool: 'page_probe',
  action: 'look',
  agent_id: null,
  agent_name: null,
  source: 'mcp',
  duration_ms: n,
  input: { n },
  output: JSON.stringify({ n, tripled: n * 3 }),
  created_at: new Date(Date.UTC(2026, 3, 1, 0, 0, 0, 0) + n).toISOString(),
  ...over,
});

const pageCount = async (h: Harness) =>
  (await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM tool_execution_pages WHERE store_id = $1', [h.store.id]))[0].n;

describe('reads recorded as pages', () => {
  // The first harness migrates the test database: on the embedded one that can pass a test's 5 s.
  beforeAll(async () => void (await setup()), 60_000);

  test('an MCP read answers at once, and its record is listed and fetched by id right after, with input and output', async () => {
    const h = await setup();
    const call = await mcpCaller(h);
    const made = await h.call('POST', '/products', product({ name: 'Paged' }));
    const out = await call('products_get_product', { id: made.body.id });
    expect(out.kind).toBe('result');
    const one = await h.call('GET', `/tool-executions/${out.executionId}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: out.executionId, tool: 'products', action: 'get_product', status: 'success', source: 'mcp' });
    expect(one.body.input).toEqual({ id: made.body.id });
    expect(one.body.output).toMatchObject({ id: made.body.id, name: 'Paged' });
    expect(one.body.completed_at).toBe(one.body.created_at);
    const list = await h.call('GET', '/tool-executions?tool=products');
    expect(list.body.executions.map((e: any) => e.id)).toContain(out.executionId);
    expect(await pageCount(h)).toBeGreaterThan(0);
  });

  test('200 reads at once go onto a few pages, not 200 rows, and each keeps its own input and output', async () => {
    const h = await setup();
    await Promise.all(Array.from({ length: 200 }, (_, n) => addReadRecord(h.db, read(h, n))));
    await flushAudits();
    expect(await pageCount(h)).toBeLessThan(20);
    const [{ n }] = await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tool_executions WHERE store_id = $1`, [h.store.id]);
    expect(n).toBe(0);
    const list = await h.call('GET', '/tool-executions?tool=page_probe&limit=100&offset=50');
    expect(list.body.total).toBe(200);
    // Newest first: created_at runs with n.
    expect(list.body.executions.map((e: any) => e.input.n)).toEqual(Array.from({ length: 100 }, (_, i) => 149 - i));
    for (const e of list.body.executions) expect(e.output).toEqual({ n: e.input.n, tripled: e.input.n * 3 });
  });

  test('the list merges rows and page records in one order, and limit/offset/total hold across both', async () => {
    const h = await setup();
    const rowsAt = [1, 4, 5, 9];
    for (let n = 0; n < 12; n++) {
      if (rowsAt.includes(n)) {
        await writeAudit(
          h.db,
          { ...read(h, n), custom_tool_id: null, status: n === 9 ? 'error' : 'success', output: JSON.stringify({ n }) },
          { wait: true },
        );
      } else void addReadRecord(h.db, read(h, n));
    }
    const all = await h.call('GET', '/tool-executions?tool=page_probe&limit=5&offset=0');
    expect(all.body.total).toBe(12);
    const order: number[] = [];
    for (let offset = 0; offset < 12; offset += 5) {
      const page = await h.call('GET', `/tool-executions?tool=page_probe&limit=5&offset=${offset}`);
      order.push(...page.body.executions.map((e: any) => e.input.n));
    }
    expect(order).toEqual([11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    const errors = await h.call('GET', '/tool-executions?tool=page_probe&status=error');
    expect(errors.body).toMatchObject({ total: 1, executions: [{ status: 'error', input: { n: 9 } }] });
    const successes = await h.call('GET', '/tool-executions?tool=page_probe&status=success');
    expect(successes.body.total).toBe(11);
  });

  test('filters by tool, agent and time count and list page records whole pages or partly', async () => {
    const h = await setup();
    const agent = crypto.randomUUID();
    const records = Array.from({ length: 30 }, (_, n) =>
      read(h, n, n % 3 === 0 ? { tool: 'page_other', agent_id: agent, agent_name: 'Helper', source: 'agent' } : {}),
    );
    // One batch: the tools and agents share pages, so counting must open them.
    for (const r of records) void addReadRecord(h.db, r);
    const q = async (query: string) => (await h.call('GET', `/tool-executions?${query}`)).body;
    expect((await q('tool=page_other')).total).toBe(10);
    expect((await q(`agent_id=${agent}`)).total).toBe(10);
    expect((await q('tool=page_probe')).total).toBe(20);
    const from = new Date(Date.UTC(2026, 3, 1) + 10).toISOString();
    const to = new Date(Date.UTC(2026, 3, 1) + 19).toISOString();
    const span = await q(`tool=page_probe&from=${from}&to=${to}&limit=100`);
    expect(span.total).toBe(7); // 10..19 less 12, 15, 18
    expect(span.executions.map((e: any) => e.input.n)).toEqual([19, 17, 16, 14, 13, 11, 10]);
    const agents = await q(`agent_id=${agent}&limit=3`);
    expect(agents.executions.map((e: any) => [e.input.n, e.agent_name, e.source])).toEqual([
      [27, 'Helper', 'agent'],
      [24, 'Helper', 'agent'],
      [21, 'Helper', 'agent'],
    ]);
    expect((await q('status=pending_approval&tool=page_probe')).total).toBe(0);
  });

  test('text PostgreSQL cannot hold (U+0000, lone surrogates) in a read is stored, and the page stays readable', async () => {
    const h = await setup();
    const id = Bun.randomUUIDv7();
    void addReadRecord(
      h.db,
      read(h, 1, { id, agent_name: 'a\0b', input: { text: 'c\0d', odd: '\ud800' }, output: JSON.stringify({ echo: 'e\0f', lone: '\udc00' }) }),
    );
    void addReadRecord(h.db, read(h, 2, { output: JSON.stringify('plain \0 text') }));
    const got = (await h.call('GET', `/tool-executions/${id}`)).body;
    expect([got.agent_name, got.input.text, got.input.odd]).toEqual(['a\ufffdb', 'c\ufffdd', '\ufffd']);
    expect(got.output).toEqual({ echo: 'e\0f', lone: '\udc00' });
    const list = await h.call('GET', '/tool-executions?tool=page_probe');
    expect(list.body.executions.map((e: any) => e.output)).toEqual(['plain \0 text', { echo: 'e\0f', lone: '\udc00' }]);
  });

  test('an id no record has is a 404, from rows and pages alike, and another store cannot read a page record', async () => {
    const h = await setup();
    const id = Bun.randomUUIDv7();
    void addReadRecord(h.db, read(h, 1, { id }));
    expect((await h.call('GET', `/tool-executions/${id}`)).status).toBe(200);
    const missing = await h.call('GET', `/tool-executions/${Bun.randomUUIDv7()}`);
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('resource_missing');
    const other = await setup();
    expect((await other.call('GET', `/tool-executions/${id}`)).status).toBe(404);
    expect((await other.call('GET', '/tool-executions?tool=page_probe')).body.total).toBe(0);
  });

  test('a page the database refuses is dropped alone: the pages written with it are kept, and later pages are written', async () => {
    const h = await setup();
    const other = await setup();
    // Year 10000: a time JavaScript can write and PostgreSQL cannot read.
    void addReadRecord(h.db, read(h, 1, { created_at: new Date(Date.UTC(10000, 0, 1)).toISOString() }));
    void addReadRecord(other.db, read(other, 2));
    expect((await other.call('GET', '/tool-executions?tool=page_probe')).body.total).toBe(1);
    expect((await h.call('GET', '/tool-executions?tool=page_probe')).body.total).toBe(0);
    void addReadRecord(h.db, read(h, 3));
    expect((await h.call('GET', '/tool-executions?tool=page_probe')).body.executions.map((e: any) => e.input.n)).toEqual([3]);
  });

  test('records on pages not yet written are all stored by the shutdown, before the database closes', async () => {
    const h = await setup();
    for (let n = 0; n < 400; n++) void addReadRecord(h.db, read(h, n));
    await drainWriteBehinds(h.db);
    resumeWriteBehinds(h.db); // the database is shared by the files after this one
    const [{ count }] = await h.db.query<{ count: number }>(`SELECT count(*)::int AS count FROM tool_execution_log() WHERE store_id = $1`, [
      h.store.id,
    ]);
    expect(count).toBe(400);
  });

  test('the records of an agent chat tool read and of an MCP read are in the log the agent and console read', async () => {
    const h = await setup();
    const call = await mcpCaller(h, { id: crypto.randomUUID(), name: 'Pager' });
    const out = await call('products_list_products', { limit: 2 });
    expect(out.kind).toBe('result');
    const list = (await h.call('GET', '/tool-executions?tool=products')).body;
    expect(list.executions[0]).toMatchObject({ id: out.executionId, agent_name: 'Pager', source: 'agent', status: 'success' });
  });
});
