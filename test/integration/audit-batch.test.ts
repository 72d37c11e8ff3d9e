import { describe, expect, test } from 'bun:test';
import { setup } from '../kit/setup';
import { writeAudit, type AuditRow } from '../../core/tools/audit-batch';
import { drainWriteBehinds, resumeWriteBehinds } from '../../core/write-behind';

const wait = { wait: true };

const row = (storeId: string, n: number): AuditRow => ({
  id: crypto.randomUUID(),
  store_id: storeId,
  tool: 'batch_probe',
  action: 'run',
  custom_tool_id: null,
  agent_id: null,
  agent_name: null,
  source: 'mcp',
  status: 'success',
  duration_ms: n,
  input: { n },
  output: JSON.stringify({ doubled: n * 2 }),
  created_at: new Date(Date.UTC(2026, 3, 1, 0, 0, 0, n)).toISOString(),
});

describe('audit records written together in batches', () => {
  test('300 records written at once are all stored, each with its own input and output', async () => {
    const h = await setup();
    await Promise.all(Array.from({ length: 300 }, (_, n) => writeAudit(h.db, row(h.store.id, n), wait)));
    const list = await h.call('GET', '/tool-executions?tool=batch_probe&limit=100&offset=200');
    expect(list.body.total).toBe(300);
    for (const e of list.body.executions) expect(e.output).toEqual({ doubled: e.input.n * 2 });
  });

  test('text of any shape is stored as given: quotes, backslashes, braces, commas, NULL words, newlines, emoji (column arrays escape it)', async () => {
    const h = await setup();
    const odd = ['say "hi"', 'back\\slash\\', '{a,b}', 'NULL', 'null', 'line\nbreak', '🙂 ünïcode', '', ' spaced ', "it's"];
    await Promise.all(
      odd.map((text, n) =>
        writeAudit(h.db, { ...row(h.store.id, n), agent_name: text, input: { text, n }, output: JSON.stringify({ echo: text }) }, wait),
      ),
    );
    const list = await h.call('GET', '/tool-executions?tool=batch_probe&limit=100');
    expect(list.body.total).toBe(odd.length);
    for (const e of list.body.executions) {
      expect(e.agent_name).toBe(odd[e.input.n]);
      expect(e.input.text).toBe(odd[e.input.n]);
      expect(e.output).toEqual({ echo: odd[e.input.n] });
    }
  });

  test('U+0000, which PostgreSQL text cannot hold, is stored as U+FFFD in names and inputs; the output keeps it', async () => {
    const h = await setup();
    await writeAudit(h.db, { ...row(h.store.id, 0), agent_name: 'a\0b', input: { text: 'c\0d' }, output: JSON.stringify({ echo: 'e\0f' }) }, wait);
    const [e] = (await h.call('GET', '/tool-executions?tool=batch_probe')).body.executions;
    expect([e.agent_name, e.input.text, e.output.echo]).toEqual(['a\ufffdb', 'c\ufffdd', 'e\0f']);
  });

  test('a record that cannot be stored fails alone; the others written with it are kept', async () => {
    const h = await setup();
    const bad = { ...row(h.store.id, 1), created_at: 'not a time' }; // the database refuses it
    // Two reads' records wait for company; the bad one, waited for, goes out with them in one batch.
    const results = await Promise.allSettled([
      writeAudit(h.db, row(h.store.id, 2), { wait: false }),
      writeAudit(h.db, row(h.store.id, 3), { wait: false }),
      writeAudit(h.db, bad, wait),
    ]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    expect((await h.call('GET', '/tool-executions?tool=batch_probe')).body.total).toBe(2);
  });

  test("reads' records, answered before they are stored, are in the list read right after", async () => {
    const h = await setup();
    for (let n = 0; n < 5; n++) await writeAudit(h.db, row(h.store.id, n), { wait: false });
    expect((await h.call('GET', '/tool-executions?tool=batch_probe')).body.total).toBe(5);
  });

  test('records handed over without waiting are all stored by the shutdown, before the database closes', async () => {
    const h = await setup();
    for (let n = 0; n < 400; n++) void writeAudit(h.db, row(h.store.id, n), { wait: false });
    await drainWriteBehinds(h.db);
    resumeWriteBehinds(h.db); // the database is shared by the files after this one
    const [{ count }] = await h.db.query(`SELECT count(*)::int AS count FROM tool_executions WHERE tool = 'batch_probe' AND store_id = $1`, [
      h.store.id,
    ]);
    expect(count).toBe(400);
  });
});
