/**
 * GET STORE/tool-executions/stream (issue 27): what an approvals inbox hears, live. A held call
 * appears, a decision replaces it, another store's calls never show, the server's shutdown ends the
 * stream with `end`, and on PostgreSQL a change committed by another connection (another process)
 * arrives too.
 */
import { expect, test } from 'bun:test';
import { openDb } from '../../core/db';
import { executionStream } from '../../core/tools/execution-stream';
import { world, createCall, useWorlds, stops } from '../../test/kit/approvals';
import { backend, sharedDbUrl } from '../../test/kit/db';
import { openai } from '../../test/kit/fake-models';
import { setup } from '../../test/kit/setup';

useWorlds();

/** Reads a text/event-stream body as it arrives: its data events, and a wait for one. */
function reader(res: Response) {
  const events: any[] = [];
  let raw = '';
  let closed = false;
  const r = res.body!.getReader();
  const decoder = new TextDecoder();
  (async () => {
    for (;;) {
      const { value, done } = await r.read().catch(() => ({ value: undefined, done: true }));
      if (done) break;
      raw += decoder.decode(value, { stream: true });
      for (;;) {
        const end = raw.indexOf('\n\n');
        if (end < 0) break;
        const frame = raw.slice(0, end);
        raw = raw.slice(end + 2);
        if (frame.startsWith('data: ')) events.push(JSON.parse(frame.slice(6)));
        else events.push({ comment: frame });
      }
    }
    closed = true;
  })();
  stops.push(() => void r.cancel().catch(() => {}));
  const next = async (ok: (e: any) => boolean, what: string, ms = 5000) => {
    const end = Date.now() + ms;
    for (;;) {
      const hit = events.find(ok);
      if (hit) return hit;
      if (closed || Date.now() > end) throw new Error(`stream: no ${what}; got ${JSON.stringify(events)}`);
      await Bun.sleep(5);
    }
  };
  return {
    events,
    next,
    get closed() {
      return closed;
    },
  };
}

const open = async (h: Awaited<ReturnType<typeof setup>>, key = h.key) => {
  const res = await h.app.handle(new Request(`http://svc.test${h.base}/tool-executions/stream`, { headers: { 'x-api-key': key } }));
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  return reader(res);
};

test('a held call appears on the stream as it is held, and its decision replaces it; the snapshot lists what was pending before', async () => {
  const call = createCall();
  const w = await world([openai.tools(call), openai.text('Created.')]);
  const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });
  const live = await open(w.h);
  expect((await live.next((e) => e.type === 'snapshot', 'snapshot')).executions).toEqual([]);

  const chat = await w.chat(agent.id, 'Add a lamp');
  const held = await chat.held();
  const pending = await live.next((e) => e.type === 'execution' && e.execution.status === 'pending_approval', 'the held call');
  expect(pending.execution).toMatchObject({ id: held.execution_id, tool: 'products', action: 'create_product', agent_name: 'Clerk' });
  expect(pending.execution.approval.expires_at).toBe('2026-04-01T00:30:00.000Z');

  // A console opened now gets it in its snapshot.
  const later = await open(w.h);
  expect((await later.next((e) => e.type === 'snapshot', 'snapshot')).executions.map((x: any) => x.id)).toEqual([held.execution_id]);

  expect((await w.h.call('POST', `/tool-executions/${held.execution_id}/reject`, { reason: 'not today' })).status).toBe(200);
  for (const s of [live, later]) {
    const decided = await s.next((e) => e.type === 'execution' && e.execution.status === 'rejected', 'the rejection');
    expect(decided.execution.approval).toMatchObject({ decision: 'rejected', reason: 'not today' });
  }
});

test("another store's held calls never reach a store's stream", async () => {
  const call = createCall();
  const w = await world([openai.tools(call), openai.text('Created.')]);
  const other = await setup();
  const theirs = await open(other);
  await theirs.next((e) => e.type === 'snapshot', 'snapshot');
  const mine = await open(w.h);
  const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });
  await (await w.chat(agent.id, 'Add a lamp')).held();
  await mine.next((e) => e.type === 'execution', 'the held call');
  await Bun.sleep(100);
  expect(theirs.events.filter((e) => e.type === 'execution')).toEqual([]);
});

test('the stream needs a credential with a read scope of tool executions', async () => {
  const h = await setup();
  const none = await h.app.handle(new Request(`http://svc.test${h.base}/tool-executions/stream`));
  expect(none.status).toBe(401);
  const narrow = await h.newKey(['products:read']);
  const res = await h.app.handle(new Request(`http://svc.test${h.base}/tool-executions/stream`, { headers: { 'x-api-key': narrow } }));
  expect(res.status).toBe(403);
  expect((await res.json()).error.code).toBe('insufficient_scope');
});

test('an idle stream sends keep-alive comments, and the server stopping ends it with an end event', async () => {
  const h = await setup();
  const shutdown = new AbortController();
  const s = reader(await executionStream({ db: h.db, storeId: h.store.id, shutdown: shutdown.signal, keepAliveMs: 20 }));
  await s.next((e) => e.type === 'snapshot', 'snapshot');
  await s.next((e) => e.comment === ': keep-alive', 'a keep-alive');
  shutdown.abort();
  await s.next((e) => e.type === 'end', 'end');
  const until = Date.now() + 2000;
  while (!s.closed && Date.now() < until) await Bun.sleep(5);
  expect(s.closed).toBe(true);
});

// The embedded database has one connection, owned by this process: no change can come from
// elsewhere, so the test is skipped there (bun lists it as skipped, with this reason in its name)
// and CI runs it on PostgreSQL.
test.skipIf(backend !== 'postgres')(
  'on PostgreSQL (skipped on the embedded database: no other connection), a change committed through another connection (another server process) reaches the stream',
  async () => {
    const url = await sharedDbUrl();
    if (!url) throw new Error('DATABASE_URL is set but the test database has no URL');
    const call = createCall();
    const w = await world([openai.tools(call), openai.text('Created.')]);
    const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });
    const live = await open(w.h);
    await live.next((e) => e.type === 'snapshot', 'snapshot');
    const held = await (await w.chat(agent.id, 'Add a lamp')).held();
    const elsewhere = await openDb({ databaseUrl: url, poolSize: 1 });
    stops.push(() => elsewhere.close());
    await elsewhere.query(`UPDATE tool_executions SET status = 'rejected' WHERE id = $1`, [held.execution_id]);
    await live.next((e) => e.type === 'execution' && e.execution.status === 'rejected', 'the change made elsewhere');
  },
);
