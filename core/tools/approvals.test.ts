/**
 * The tool-call path's approval gate (SPEC 3.1, 4.5, 6.4): agents chatting against a fake model,
 * MCP clients, the approver's REST calls, and the approval jobs run directly as the pg-boss worker
 * would, with the harness's manual clock standing in for time.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { product, setup, type Harness } from '../../test/helpers';
import { plugins as registry } from '../../plugins';
import { agentsPlugin } from '../../plugins/agents';
import { events, fakeServer, openai, type Reply } from '../../plugins/agents/fake-models';
import { deliveryOptions, startReceiver, testCerts } from '../../test/webhook-receiver';
import { mcpClient } from '../../test/mcp/client';
import { sharedDb } from '../../test/db';
import { deliver } from '../../workers/webhooks';
import { approvalTimeoutJob } from '../../workers/approvals';
import { createKey, revokeKey } from '../keys';
import type { Clock } from '../clock';
import { approveExecution, RUN_LEASE_MS } from './approvals';
import { callTool, resolveTarget, type ToolCaller } from './call';
import { APPROVAL_QUEUE, type ApprovalJob } from './executions';

let stops: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(stops.map((s) => s()));
  stops = [];
});
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
// The receiver's throwaway CA (openssl takes a few seconds), made once before the tests' own timeouts start.
// And the shared database (migrations), which the first test would otherwise pay for.
beforeAll(async () => {
  testCerts();
  await sharedDb();
}, 60_000);
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.close()));
});

/** A store whose agents talk to a scripted fake OpenAI server; the approval worker over the same registry. */
async function world(replies: Reply[] = []) {
  const fake = fakeServer(replies);
  stops.push(fake.stop);
  const list = registry.filter((p) => p.name !== 'agents');
  list.push(agentsPlugin({ plugins: () => list, env: { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test' }, keepAliveMs: 60, approvalPollMs: 20 }));
  const h = await setup({ plugins: list });
  const worker = approvalTimeoutJob(h.db, h.clock, list);

  /** An agent with these tools, and tool_overrides set through PATCH tool-config. */
  async function agent(tools: string[], overrides?: Record<string, unknown>) {
    const a = await h.call('POST', '/agents', { name: 'Clerk', model: 'openai/gpt-test', system_prompt: 'Be brief.', tools });
    expect(a.status).toBe(201);
    if (overrides) {
      const r = await h.call('PATCH', `/agents/${a.body.id}/tool-config`, { tool_overrides: overrides });
      expect(r.status).toBe(200);
    }
    return a.body as { id: string; name: string };
  }

  /** Opens a chat stream and reads it as it arrives. */
  async function chat(agentId: string, message: string) {
    const res = await h.app.handle(
      new Request(`http://svc.test${h.base}/agents/${agentId}/chat`, {
        method: 'POST',
        headers: { 'x-api-key': h.key, 'content-type': 'application/json' },
        body: JSON.stringify({ message }),
      }),
    );
    expect(res.status).toBe(200);
    let text = '';
    let closed = false;
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    const finished = (async () => {
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
      closed = true;
      return text;
    })();
    stops.push(() => void reader.cancel().catch(() => {}));
    const until = async (ok: (t: string) => boolean, what: string, ms = 5000) => {
      const end = Date.now() + ms;
      while (!ok(text)) {
        if (closed || Date.now() > end) throw new Error(`chat stream: no ${what}; got:\n${text}`);
        await Bun.sleep(5);
      }
    };
    return {
      get text() {
        return text;
      },
      get closed() {
        return closed;
      },
      until,
      /** The approval_required event, once it arrived. */
      held: async () => {
        await until((t) => t.includes('"approval_required"'), 'approval_required');
        return events(text).find((e) => e.type === 'approval_required');
      },
      finished,
    };
  }

  /**
   * A whole chat in which every held call is rejected as soon as it is announced (reason "held"):
   * the events, and which calls were held.
   */
  async function converse(agentId: string, message: string) {
    const c = await chat(agentId, message);
    const held: { type: 'approval_required'; tool: string; execution_id: string; message: string }[] = [];
    while (!c.closed) {
      const next = events(c.text).filter((e) => e.type === 'approval_required')[held.length];
      if (next) {
        held.push(next);
        expect((await h.call('POST', `/tool-executions/${next.execution_id}/reject`, { reason: 'held' })).status).toBe(200);
      } else await Bun.sleep(5);
    }
    return { events: events(await c.finished), held };
  }

  /** A JavaScript custom tool (Shape B) ordering `quantity` units. */
  async function orderTool(extra: Record<string, unknown> = {}) {
    const r = await h.call('POST', '/tools', {
      name: 'order_stock',
      description: 'Order stock from the supplier.',
      parameters: { type: 'object', properties: { quantity: { type: 'integer' }, supplier: { type: 'object' } }, required: ['quantity'] },
      execution_type: 'javascript',
      execution_config: { code: 'return { ordered: params.quantity };' },
      ...extra,
    });
    expect(r.status).toBe(201);
    return r.body as { id: string; name: string };
  }

  const exec = async (id: string, as: Harness = h) => (await as.call('GET', `/tool-executions/${id}`)).body;
  const jobs = (id: string, kind: ApprovalJob['kind']) =>
    h.db.query<{ data: ApprovalJob; delay: number }>(
      `SELECT data, extract(epoch FROM start_after - created_on)::float AS delay FROM pgboss.job
       WHERE name = $1 AND data->>'execution_id' = $2 AND data->>'kind' = $3 ORDER BY created_on, start_after`,
      [APPROVAL_QUEUE, id, kind],
    );
  /** Runs every job of this kind queued for the execution, as the worker would (the worker's batch is the jobs' data). */
  async function runJobs(id: string, kind: ApprovalJob['kind']) {
    const found = await jobs(id, kind);
    await worker.run(found.map((j) => j.data));
    return found.length;
  }
  const productCount = async () => Number((await h.db.query<{ n: string }>('SELECT count(*) AS n FROM products WHERE store_id = $1', [h.store.id]))[0].n);
  const eventsOf = async (type: string) =>
    (await h.db.query<{ body: string }>('SELECT body FROM events WHERE store_id = $1 AND type = $2 ORDER BY created_at, id', [h.store.id, type])).map(
      (r) => JSON.parse(r.body),
    );
  /** A webhook endpoint for approvers, subscribed to the pending_approval notification. */
  async function subscribe() {
    const rx = await startReceiver();
    receivers.push(rx);
    const ep = await h.call('POST', '/webhooks', { url: rx.url(), events: ['tool_execution.pending_approval'] });
    expect(ep.status).toBe(201);
    return rx;
  }
  /** The tool results the fake model received on its nth request (OpenAI wire: role tool), parsed. */
  const toolResults = (n: number) =>
    (fake.requests[n]?.body.messages ?? []).filter((m: any) => m.role === 'tool').map((m: any) => JSON.parse(m.content));
  /** The messages the fake model received on its nth request, as text. */
  const sentToModel = (n: number) => JSON.stringify(fake.requests[n]?.body.messages ?? null);

  return { h, fake, list, worker, agent, chat, converse, orderTool, exec, jobs, runJobs, productCount, eventsOf, sentToModel, toolResults, subscribe };
}

const createCall = (over: Record<string, unknown> = {}) => ({ name: 'products', input: { action: 'create_product', ...product({ name: 'Gated Lamp', ...over }) } });
const MIN = 60_000;

describe('SPEC 3.1: a gated agent call', () => {
  test('is held: pending_approval, approval_required on the stream, keep-alives, a timeout job, a webhook event for approvers', async () => {
    const call = createCall();
    const w = await world([openai.tools(call), openai.text('Created.')]);
    const { h } = w;
    const rx = await w.subscribe();
    const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });

    const chat = await w.chat(agent.id, 'Add a lamp');
    const held = await chat.held();
    expect(held).toEqual({ type: 'approval_required', tool: 'products', execution_id: expect.any(String), message: expect.stringContaining('products.create_product') });
    const id = held.execution_id;

    expect(await w.exec(id)).toMatchObject({
      object: 'tool_execution',
      id,
      tool: 'products',
      action: 'create_product',
      agent_id: agent.id,
      agent_name: 'Clerk',
      source: 'agent',
      status: 'pending_approval',
      input: { name: 'Gated Lamp', sku: call.input.sku },
      output: null,
      duration_ms: null,
      completed_at: null,
      approval: { gated_by: 'agent', timeout_minutes: 30, timeout_action: 'reject', group: 'default', escalated: false, decision: null, expires_at: '2026-04-01T00:30:00.000Z' },
    });
    expect(await w.productCount()).toBe(0);

    // The stream stays open: keep-alive comments while it waits, nothing else.
    await chat.until((t) => t.split(': keep-alive').length > 3, 'keep-alives');
    expect(chat.closed).toBe(false);
    expect(events(chat.text).map((e) => e.type)).toEqual(['tool_use', 'approval_required']);
    expect(w.fake.requests.length).toBe(1);

    // The timeout job, due when the window closes (30 minutes, in pg-boss's own time).
    const [timeout] = await w.jobs(id, 'timeout');
    expect(timeout.data).toEqual({ execution_id: id, store_id: h.store.id, kind: 'timeout' });
    expect(Math.abs(timeout.delay - 30 * 60)).toBeLessThan(5);

    // Approvers are notified: an event with the tool, its input and the agent, delivered to the endpoint.
    const [ev] = await w.eventsOf('tool_execution.pending_approval');
    expect(ev).toMatchObject({ type: 'tool_execution.pending_approval', data: { id, tool: 'products', action: 'create_product', input: { sku: call.input.sku }, agent_id: agent.id, agent_name: 'Clerk', status: 'pending_approval' } });
    const [delivery] = await h.db.query<{ id: string }>(`SELECT id FROM webhook_deliveries WHERE store_id = $1 AND event_type = 'tool_execution.pending_approval'`, [h.store.id]);
    expect((await deliver(h.db, h.clock, delivery.id, deliveryOptions())).outcome).toBe('succeeded');
    expect(rx.received[0].headers['x-webhook-event']).toBe('tool_execution.pending_approval');
    expect(rx.received[0].body).toMatchObject({ id: ev.id, data: { id, tool: 'products', input: { name: 'Gated Lamp' }, agent_id: agent.id } });

    // Approve: the decision is recorded, the tool runs in the run job, the agent goes on with the result.
    h.clock.advance(5 * MIN);
    const ok = await h.call('POST', `/tool-executions/${id}/approve`, { comment: 'fine' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ id, status: 'approved', approval: { decision: 'approved', comment: 'fine', decided_by: expect.any(String), decided_at: '2026-04-01T00:05:00.000Z' } });
    expect(await w.productCount()).toBe(0);
    expect(await w.runJobs(id, 'run')).toBe(1);
    const text = await chat.finished;
    expect(events(text)).toEqual([
      { type: 'tool_use', tool: 'products', input: call.input },
      expect.objectContaining({ type: 'approval_required' }),
      { type: 'text', text: 'Created.' },
      { type: 'end' },
    ]);
    const [created] = (await h.call('GET', '/products')).body.data;
    expect(created.sku).toBe(call.input.sku);
    expect(w.sentToModel(1)).toContain(created.id); // the model received the tool's result
    const done = await w.exec(id);
    expect(done).toMatchObject({ status: 'success', output: { id: created.id, sku: call.input.sku }, completed_at: '2026-04-01T00:05:00.000Z' });
    expect(Number.isInteger(done.duration_ms) && done.duration_ms >= 0).toBe(true);

    // A second decision is a conflict; a late job changes nothing.
    for (const [path, body] of [['approve', {}], ['reject', { reason: 'too late' }]] as const) {
      const again = await h.call('POST', `/tool-executions/${id}/${path}`, body);
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ type: 'conflict_error', code: 'already_decided' });
    }
    h.clock.advance(30 * MIN);
    expect(await w.runJobs(id, 'timeout')).toBe(1);
    expect(await w.runJobs(id, 'run')).toBe(1);
    expect(await w.exec(id)).toEqual(done);
    expect(await w.productCount()).toBe(1);
  });

  test('reject with a reason: the agent gets the reason, the tool never runs, no run job', async () => {
    const w = await world([openai.tools(createCall()), openai.text('Understood.')]);
    const agent = await w.agent(['products'], { products: { requires_approval: true } });
    const chat = await w.chat(agent.id, 'Add a lamp');
    const { execution_id: id } = await chat.held();
    const no = await w.h.call('POST', `/tool-executions/${id}/reject`, { reason: 'Not before the sale' });
    expect(no.status).toBe(200);
    expect(no.body).toMatchObject({ status: 'rejected', approval: { decision: 'rejected', reason: 'Not before the sale' } });
    expect(events(await chat.finished).map((e) => e.type)).toEqual(['tool_use', 'approval_required', 'text', 'end']);
    expect(w.sentToModel(1)).toContain('Not before the sale');
    expect(w.sentToModel(1)).toContain('approval_rejected');
    expect(await w.exec(id)).toMatchObject({ status: 'rejected', output: { error: { code: 'approval_rejected' } }, completed_at: expect.any(String) });
    expect(await w.jobs(id, 'run')).toEqual([]);
    expect(await w.productCount()).toBe(0);
    const again = await w.h.call('POST', `/tool-executions/${id}/approve`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_decided');
    // The timeout job, when due, finds it decided.
    w.h.clock.advance(31 * MIN);
    const before = await w.exec(id);
    await w.runJobs(id, 'timeout');
    expect(await w.exec(id)).toEqual(before);
  });

  test('timeout with reject (the default): not due before the window closes; then rejected with approval_timeout; a late approve is a 409', async () => {
    const w = await world([openai.tools(createCall()), openai.text('It timed out.')]);
    const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });
    const chat = await w.chat(agent.id, 'Add a lamp');
    const { execution_id: id } = await chat.held();
    // A job run early (clocks disagree) leaves it pending, and another job for the rest of the window.
    w.h.clock.advance(30 * MIN - 10_000);
    expect(await w.runJobs(id, 'timeout')).toBe(1);
    expect((await w.exec(id)).status).toBe('pending_approval');
    const again = await w.jobs(id, 'timeout');
    expect(again.length).toBe(2);
    expect(Math.abs(again[1].delay - 10)).toBeLessThan(3);
    w.h.clock.advance(10_000 - 1);
    w.h.clock.advance(1);
    const late = await w.h.call('POST', `/tool-executions/${id}/approve`, {});
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ type: 'conflict_error', code: 'approval_expired' });
    await w.runJobs(id, 'timeout');
    expect(await w.exec(id)).toMatchObject({ status: 'rejected', output: { error: { code: 'approval_timeout' } }, approval: { decision: 'expired', decided_by: 'timeout' } });
    await chat.finished;
    expect(w.sentToModel(1)).toContain('approval_timeout');
    expect(await w.productCount()).toBe(0);
    const rejectLate = await w.h.call('POST', `/tool-executions/${id}/reject`, { reason: 'x' });
    expect(rejectLate.status).toBe(409);
  });

  test('timeout with approve: runs automatically when the window closes, and the agent gets the result', async () => {
    const w = await world([openai.tools(createCall({ name: 'Auto Lamp' })), openai.text('Done.')]);
    const agent = await w.agent(['products'], { products: { requires_approval: true, timeout_action: 'approve', approval_timeout_minutes: 5 } });
    const chat = await w.chat(agent.id, 'Add a lamp');
    const { execution_id: id } = await chat.held();
    const [job] = await w.jobs(id, 'timeout');
    expect(Math.abs(job.delay - 5 * 60)).toBeLessThan(5);
    w.h.clock.advance(5 * MIN);
    await w.runJobs(id, 'timeout');
    const done = await w.exec(id);
    expect(done).toMatchObject({ status: 'success', output: { name: 'Auto Lamp' }, approval: { decision: 'approved_on_timeout', decided_by: 'timeout' } });
    await chat.finished;
    expect(w.sentToModel(1)).toContain(done.output.id);
    expect(await w.productCount()).toBe(1);
    // The job again (a retry) runs nothing twice.
    await w.runJobs(id, 'timeout');
    expect(await w.productCount()).toBe(1);
  });

  test('timeout with escalate: pending at the escalation group with a new window, job and notification; rejected after the second timeout', async () => {
    const w = await world([openai.tools(createCall()), openai.text('No answer.')]);
    const agent = await w.agent(['products'], {
      products: { requires_approval: ['create_product'], timeout_action: 'escalate', escalation_group: 'managers', approval_timeout_minutes: 10 },
    });
    await w.subscribe();
    const chat = await w.chat(agent.id, 'Add a lamp');
    const { execution_id: id } = await chat.held();
    w.h.clock.advance(10 * MIN);
    expect(await w.runJobs(id, 'timeout')).toBe(1);
    expect(await w.exec(id)).toMatchObject({
      status: 'pending_approval',
      approval: { group: 'managers', escalated: true, escalation_group: 'managers', decision: null, expires_at: '2026-04-01T00:20:00.000Z' },
    });
    const timeouts = await w.jobs(id, 'timeout');
    expect(timeouts.length).toBe(2);
    expect(Math.abs(timeouts[1].delay - 10 * 60)).toBeLessThan(5);
    expect((await w.eventsOf('tool_execution.pending_approval')).map((e) => [e.data.id, e.data.approval.group])).toEqual([
      [id, 'default'],
      [id, 'managers'],
    ]);
    // Still waiting: the stream is open.
    await Bun.sleep(80);
    expect(chat.closed).toBe(false);
    expect(events(chat.text).map((e) => e.type)).toEqual(['tool_use', 'approval_required']);
    // Both jobs run after the second window: the first finds nothing due twice, the second rejects.
    w.h.clock.advance(10 * MIN);
    await w.runJobs(id, 'timeout');
    expect(await w.exec(id)).toMatchObject({ status: 'rejected', output: { error: { code: 'approval_timeout' } }, approval: { escalated: true, decision: 'expired' } });
    expect((await w.jobs(id, 'timeout')).length).toBe(2);
    await chat.finished;
    expect(w.sentToModel(1)).toContain('approval_timeout');
    expect(await w.productCount()).toBe(0);
  });

  test('another store: its key gets 404 on GET, approve and reject of the execution, and sees none in its list', async () => {
    const w = await world([openai.tools(createCall()), openai.text('ok')]);
    const agent = await w.agent(['products'], { products: { requires_approval: true } });
    const chat = await w.chat(agent.id, 'Add a lamp');
    const { execution_id: id } = await chat.held();
    const other = await setup({ plugins: w.list });
    expect((await other.call('GET', `/tool-executions/${id}`)).status).toBe(404);
    const approve = await other.call('POST', `/tool-executions/${id}/approve`, {});
    expect(approve.status).toBe(404);
    expect(approve.body.error.code).toBe('resource_missing');
    expect((await other.call('POST', `/tool-executions/${id}/reject`, { reason: 'mine now' })).status).toBe(404);
    expect((await other.call('GET', '/tool-executions')).body).toMatchObject({ executions: [], total: 0 });
    // The other store's key on this store's path is refused too.
    expect((await w.h.call('POST', `/tool-executions/${id}/approve`, {}, { 'x-api-key': other.key })).status).toBe(403);
    expect((await w.exec(id)).status).toBe('pending_approval');
    await w.h.call('POST', `/tool-executions/${id}/reject`, { reason: 'cleanup' });
    await chat.finished;
  });
});

describe('decisions racing, and the run job', () => {
  async function pendingCreates(n: number, overrides: Record<string, unknown>) {
    const w = await world();
    // The store's default location exists before the concurrent creates (see the report: creating
    // a fresh store's first products concurrently fails on PostgreSQL).
    expect((await w.h.call('GET', '/locations')).status).toBe(200);
    const agent = await w.agent(['products'], { products: overrides });
    const keyId = (await createKey(w.h.db, w.h.clock, { storeId: w.h.store.id, scopes: ['products', 'ai'], livemode: false })).id;
    const caller: ToolCaller = {
      db: w.h.db,
      clock: w.h.clock,
      principal: { kind: 'api_key', keyId, storeId: w.h.store.id, scopes: ['products', 'ai'], livemode: false },
      store: { id: w.h.store.id, name: 'Test store', plan: 'pro' } as ToolCaller['store'],
      source: 'agent',
      agent: { id: agent.id, name: agent.name, toolOverrides: (await w.h.call('GET', `/agents/${agent.id}/tool-config`)).body.tool_overrides },
    };
    const ids = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const target = await resolveTarget(w.h.db, w.list, w.h.store.id, 'products', { action: 'create_product', ...product({ name: `P${i}` }) });
        const out = await callTool(caller, target!);
        expect(out.kind).toBe('pending');
        return out.executionId;
      }),
    );
    return { w, ids, keyId };
  }

  /** A human whose clock reads just before the window closes, approving in its own transaction (as the REST handler does). */
  const humanApprove = (w: Awaited<ReturnType<typeof world>>, clock: Clock, id: string) =>
    w.h.db
      .transaction((tx) => approveExecution({ db: tx, clock, plugins: w.list }, w.h.store.id, id, { keyId: 'human' }))
      .then(
        () => 'approved',
        (e) => e.code as string,
      );

  /**
   * Per execution, the human and the timeout job start together, the job with a head start of
   * 0 to 2 ms (it reads the row before deciding): the humans' answers. Pairs run a few at a time,
   * so both sides reach the row together rather than queueing for a pooled connection.
   */
  async function races(ids: string[], human: (id: string) => Promise<string>, job: (id: string) => Promise<void>) {
    const answers: string[] = [];
    for (let i = 0; i < ids.length; i += 3)
      answers.push(
        ...(await Promise.all(
          ids.slice(i, i + 3).map(async (id, k) => (await Promise.all([Bun.sleep(((i + k) % 5) / 2).then(() => human(id)), job(id)]))[0]),
        )),
      );
    return answers;
  }

  test('30 executions, each approved concurrently with its reject-on-timeout job at expiry: exactly one decision each', async () => {
    const { w, ids } = await pendingCreates(30, { requires_approval: ['create_product'], approval_timeout_minutes: 1 });
    w.h.clock.advance(MIN);
    const justBefore = { now: () => new Date(w.h.clock.now().getTime() - 1) };
    const human = await races(ids, (id) => humanApprove(w, justBefore, id), (id) => w.worker.run([{ execution_id: id, store_id: w.h.store.id, kind: 'timeout' }]));
    for (const id of ids) await w.runJobs(id, 'run');
    let approved = 0;
    for (const [i, id] of ids.entries()) {
      const e = await w.exec(id);
      if (human[i] === 'approved') {
        approved++;
        expect(e).toMatchObject({ status: 'success', approval: { decision: 'approved' } });
        expect(e.approval).not.toHaveProperty('run_claimed_at'); // the worker's lease is not API
      } else {
        expect(human[i]).toBe('already_decided');
        expect(e).toMatchObject({ status: 'rejected', approval: { decision: 'expired' } });
      }
    }
    expect(await w.productCount()).toBe(approved);
    if (process.env.RACE_LOG) console.log('race: human won', approved, 'of', ids.length);
  });

  test('30 executions, human approve racing approve-on-timeout, run jobs retried: every call runs exactly once', async () => {
    const { w, ids } = await pendingCreates(30, { requires_approval: true, timeout_action: 'approve', approval_timeout_minutes: 1 });
    w.h.clock.advance(MIN);
    const justBefore = { now: () => new Date(w.h.clock.now().getTime() - 1) };
    const results = await races(ids, (id) => humanApprove(w, justBefore, id), (id) => w.worker.run([{ execution_id: id, store_id: w.h.store.id, kind: 'timeout' }]));
    expect(results.every((r) => r === 'approved' || r === 'already_decided')).toBe(true);
    if (process.env.RACE_LOG) console.log('race 2: human won', results.filter((r) => r === 'approved').length, 'of', ids.length);
    // The run jobs (only for the human wins), each run twice as a retried job would be.
    await Promise.all(ids.map((id) => Promise.all([w.runJobs(id, 'run'), w.runJobs(id, 'run')])));
    for (const [i, id] of ids.entries()) {
      const e = await w.exec(id);
      expect(e.status).toBe('success');
      expect(e.approval.decision).toBe(results[i] === 'approved' ? 'approved' : 'approved_on_timeout');
      expect((await w.jobs(id, 'run')).length).toBe(results[i] === 'approved' ? 1 : 0);
    }
    expect(await w.productCount()).toBe(30);
  });

  test('5 concurrent approves of one execution over REST: one 200, four 409, one run job, one product', async () => {
    const { w, ids } = await pendingCreates(1, { requires_approval: true });
    const [id] = ids;
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => w.h.call('POST', `/tool-executions/${id}/approve`, { comment: `#${i}` })));
    expect(answers.map((a) => a.status).sort()).toEqual([200, 409, 409, 409, 409]);
    expect(answers.filter((a) => a.status === 409).every((a) => a.body.error.code === 'already_decided')).toBe(true);
    expect((await w.jobs(id, 'run')).length).toBe(1);
    await Promise.all([w.runJobs(id, 'run'), w.runJobs(id, 'run')]);
    await w.runJobs(id, 'run');
    expect(await w.productCount()).toBe(1);
    expect(await w.exec(id)).toMatchObject({ status: 'success' });
  });

  test('a call whose key was revoked while it waited does not run when approved', async () => {
    const { w, ids, keyId } = await pendingCreates(1, { requires_approval: true });
    const [id] = ids;
    expect((await w.h.call('POST', `/tool-executions/${id}/approve`, {})).status).toBe(200);
    await revokeKey(w.h.db, w.h.clock, w.h.store.id, keyId);
    await w.runJobs(id, 'run');
    expect(await w.exec(id)).toMatchObject({ status: 'error', output: { error: { code: 'invalid_api_key' } } });
    expect(await w.productCount()).toBe(0);
  });

  test('a run job whose worker died mid-run: not run again while its claim holds, run by the retry after the lease', async () => {
    const { w, ids } = await pendingCreates(1, { requires_approval: true });
    const [id] = ids;
    expect((await w.h.call('POST', `/tool-executions/${id}/approve`, {})).status).toBe(200);
    // A worker claimed the run and died before recording it (the claim is all it left behind).
    await w.h.db.query(`UPDATE tool_executions SET approval = approval || $2::text::jsonb WHERE id = $1`, [id, JSON.stringify({ run_claimed_at: w.h.clock.now().toISOString() })]);
    w.h.clock.advance(60_000);
    await w.runJobs(id, 'run');
    expect(await w.exec(id)).toMatchObject({ status: 'approved' });
    expect(await w.productCount()).toBe(0);
    w.h.clock.advance(RUN_LEASE_MS);
    await w.runJobs(id, 'run');
    expect(await w.exec(id)).toMatchObject({ status: 'success' });
    expect(await w.productCount()).toBe(1);
  });
});

describe('tool_overrides (SPEC 4.5)', () => {
  const list = { name: 'products', input: { action: 'list_products', limit: 1 } };
  const create = () => ({ name: 'products', input: { action: 'create_product', ...product() } });

  test('requires_approval: a list gates only the listed actions; true gates every action', async () => {
    const w = await world([openai.tools(list, create()), openai.text('ok'), openai.tools(list), openai.text('ok')]);
    const listed = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });
    const one = await w.converse(listed.id, 'Look, then add');
    expect(one.held.map((x) => x.tool)).toEqual(['products']);
    expect((await w.exec(one.held[0].execution_id)).action).toBe('create_product');
    // list_products ran straight away; create_product waited and was rejected.
    expect(w.toolResults(1)).toEqual([expect.objectContaining({ object: 'list', data: [] }), { error: expect.objectContaining({ code: 'approval_rejected' }) }]);
    const all = await w.agent(['products'], { products: { requires_approval: true } });
    const two = await w.converse(all.id, 'Look');
    expect(two.held.length).toBe(1);
    expect(await w.exec(two.held[0].execution_id)).toMatchObject({ action: 'list_products', approval: { gated_by: 'agent' } });
    expect(await w.productCount()).toBe(0);
  });

  test("a custom tool's own requires_approval gates; an agent's auto_approve lifts it for that agent only", async () => {
    const call = { name: 'order_stock', input: { quantity: 3 } };
    const w = await world([openai.tools(call), openai.text('ok'), openai.tools(call), openai.text('ok')]);
    await w.orderTool({ requires_approval: true });
    const plain = await w.agent(['order_stock']);
    const gated = await w.converse(plain.id, 'Order 3');
    expect(gated.held).toEqual([{ type: 'approval_required', tool: 'order_stock', execution_id: expect.any(String), message: 'order_stock requires approval.' }]);
    expect(await w.exec(gated.held[0].execution_id)).toMatchObject({ tool: 'order_stock', action: 'run', approval: { gated_by: 'tool' } });
    const trusted = await w.agent(['order_stock'], { order_stock: { auto_approve: ['run'] } });
    const free = await w.converse(trusted.id, 'Order 3');
    expect(free.held).toEqual([]);
    expect(w.toolResults(3)).toEqual([{ ordered: 3 }]);
    const rows = (await w.h.call('GET', `/tool-executions?agent_id=${trusted.id}`)).body.executions;
    expect(rows.map((r: any) => [r.status, r.output])).toEqual([['success', { ordered: 3 }]]);
  });

  test('approval_conditions: `input.quantity > 5` gates only matching calls, with its message; a condition that throws gates', async () => {
    const w = await world([
      openai.tools({ name: 'order_stock', input: { quantity: 2 } }, { name: 'order_stock', input: { quantity: 9 } }),
      openai.text('ok'),
      openai.tools({ name: 'order_stock', input: { quantity: 1 } }),
      openai.text('ok'),
    ]);
    await w.orderTool();
    const agent = await w.agent(['order_stock'], {
      order_stock: { approval_conditions: { run: { when: 'input.quantity > 5', message: 'Large orders need a manager.' } } },
    });
    const r = await w.converse(agent.id, 'Order 2 then 9');
    expect(r.held.map((x) => x.message)).toEqual(['Large orders need a manager.']);
    const rows = (await w.h.call('GET', `/tool-executions?agent_id=${agent.id}`)).body.executions;
    expect(rows.map((x: any) => [x.input.quantity, x.status])).toEqual([
      [9, 'rejected'],
      [2, 'success'],
    ]);
    expect(rows[0].approval).toMatchObject({ gated_by: 'condition' });
    // A condition that cannot be evaluated on this input gates: when in doubt, a human decides.
    const doubt = await w.agent(['order_stock'], { order_stock: { approval_conditions: { run: { when: "input.supplier.name === 'ACME'" } } } });
    const d = await w.converse(doubt.id, 'Order 1');
    expect(d.held.length).toBe(1);
    expect(d.held[0].message).toContain('could not be evaluated');
  });

  test('PATCH tool-config: bad conditions, unknown tools and actions are 400s naming the field; null removes a tool', async () => {
    const w = await world();
    await w.orderTool();
    const a = await w.agent(['products', 'order_stock']);
    const patch = (tool_overrides: unknown) => w.h.call('PATCH', `/agents/${a.id}/tool-config`, { tool_overrides });
    const bad = async (tool_overrides: unknown, param: string) => {
      const r = await patch(tool_overrides);
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ type: 'invalid_request_error', param });
    };
    await bad({ order_stock: { approval_conditions: { run: { when: 'input.quantity >' } } } }, 'tool_overrides.order_stock.approval_conditions.run.when');
    await bad({ products: { approval_conditions: { create_product: { when: 'input.price > )' } } } }, 'tool_overrides.products.approval_conditions.create_product.when');
    await bad({ nope: { requires_approval: true } }, 'tool_overrides.nope');
    await bad({ products: { requires_approval: ['fly'] } }, 'tool_overrides.products.requires_approval');
    await bad({ products: { auto_approve: ['approve_execution'] } }, 'tool_overrides.products.auto_approve');
    await bad({ order_stock: { approval_conditions: { create_product: { when: 'true' } } } }, 'tool_overrides.order_stock.approval_conditions');
    await bad({ products: { timeout_action: 'escalate' } }, 'tool_overrides.products.escalation_group');
    expect((await w.h.call('GET', `/agents/${a.id}/tool-config`)).body.tool_overrides).toEqual({});
    const ok = await patch({ products: { requires_approval: ['create_product'] }, order_stock: { auto_approve: ['run'] } });
    expect(ok.status).toBe(200);
    expect(ok.body.tool_overrides).toEqual({ products: { requires_approval: ['create_product'] }, order_stock: { auto_approve: ['run'] } });
    const removed = await patch({ order_stock: null });
    expect(removed.body.tool_overrides).toEqual({ products: { requires_approval: ['create_product'] } });
    const other = await setup({ plugins: w.list });
    expect((await other.call('PATCH', `/agents/${a.id}/tool-config`, { tool_overrides: {} })).status).toBe(404);
  });
});

describe('MCP clients', () => {
  test('a gated custom tool over MCP: a hold result (not an error) naming the execution; after approval get_execution shows the result', async () => {
    const w = await world();
    await w.orderTool({ requires_approval: true });
    const { client } = await mcpClient(w.h);
    stops.push(() => client.close());
    const held = await client.callTool({ name: 'order_stock', arguments: { quantity: 4 } });
    expect(held.isError).toBeFalsy();
    const hold = held.structuredContent as any;
    expect(hold).toEqual({ status: 'pending_approval', execution_id: expect.any(String), message: expect.stringContaining(hold.execution_id) });
    expect(JSON.parse((held.content as any)[0].text)).toEqual(hold);
    const id = hold.execution_id;
    expect(await w.exec(id)).toMatchObject({ source: 'mcp', agent_id: null, status: 'pending_approval', input: { quantity: 4 } });

    // The MCP client cannot decide its own call.
    const self = await client.callTool({ name: 'tool_executions', arguments: { action: 'approve_execution', id } });
    expect(self.isError).toBe(true);
    expect((await w.exec(id)).status).toBe('pending_approval');

    expect((await w.h.call('POST', `/tool-executions/${id}/approve`, { comment: 'go' })).status).toBe(200);
    const pending = await client.callTool({ name: 'tool_executions', arguments: { action: 'get_execution', id } });
    expect((pending.structuredContent as any).status).toBe('approved');
    await w.runJobs(id, 'run');
    const got = await client.callTool({ name: 'tool_executions', arguments: { action: 'get_execution', id } });
    expect(got.isError).toBeFalsy();
    expect(got.structuredContent).toMatchObject({ id, status: 'success', output: { ordered: 4 }, approval: { decision: 'approved', comment: 'go' } });
    expect((await w.exec(id)).output).toEqual({ ordered: 4 });
  });

  test("a custom tool's own escalate settings: escalated after its window, approved in the second, then it runs", async () => {
    const w = await world();
    await w.orderTool({ requires_approval: true, approval_timeout_minutes: 2, timeout_action: 'escalate', escalation_group: 'ops' });
    const { client } = await mcpClient(w.h);
    stops.push(() => client.close());
    const id = ((await client.callTool({ name: 'order_stock', arguments: { quantity: 7 } })).structuredContent as any).execution_id;
    expect((await w.exec(id)).approval).toMatchObject({ gated_by: 'tool', timeout_minutes: 2, timeout_action: 'escalate', escalation_group: 'ops', group: 'default' });
    w.h.clock.advance(2 * MIN);
    await w.runJobs(id, 'timeout');
    expect((await w.exec(id)).approval).toMatchObject({ group: 'ops', escalated: true });
    w.h.clock.advance(MIN);
    expect((await w.h.call('POST', `/tool-executions/${id}/approve`, {})).status).toBe(200);
    await w.runJobs(id, 'run');
    w.h.clock.advance(5 * MIN);
    await w.runJobs(id, 'timeout');
    expect(await w.exec(id)).toMatchObject({ status: 'success', output: { ordered: 7 } });
  });

  test('approve, reject, tool-config changes and tool tests are not MCP tools', async () => {
    const w = await world();
    await w.orderTool();
    const { client } = await mcpClient(w.h);
    stops.push(() => client.close());
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toContain('tool_executions');
    expect(names).toContain('order_stock');
    const described = (tool: string) => tools.find((t) => t.name === tool)!.description ?? '';
    const actions = async (tool: string) => ((await client.callTool({ name: 'discover_tools', arguments: { tool_name: tool } })).structuredContent as any).actions.map((a: any) => a.action);
    expect(await actions('tool_executions')).toEqual(['list_executions', 'get_execution']);
    expect(described('tool_executions')).not.toContain('approve_execution');
    expect(await actions('agents')).not.toContain('update_tool_config');
    const custom = await actions('custom_tools');
    for (const hidden of ['test_tool', 'test_custom_tool', 'create_tool', 'update_tool', 'set_tool_secrets']) expect(custom).not.toContain(hidden);
    const flat = await mcpClient(w.h, { query: '?tools=flat' });
    stops.push(() => flat.client.close());
    const flatNames = (await flat.client.listTools()).tools.map((t) => t.name);
    for (const hidden of ['tool_executions_approve_execution', 'tool_executions_reject_execution', 'agents_update_tool_config', 'custom_tools_test_tool'])
      expect(flatNames).not.toContain(hidden);
    expect(flatNames).toContain('tool_executions_get_execution');
    const refused = await client.callTool({ name: 'agents', arguments: { action: 'update_tool_config', id: crypto.randomUUID(), tool_overrides: {} } });
    expect(refused.isError).toBe(true);
  });
});

describe('the audit log (SPEC 2.6, 4.5)', () => {
  test('every agent and MCP call is a row; filters, paging and total; another store sees none', async () => {
    const slow = Bun.serve({
      hostname: '127.0.0.1',
      port: 0,
      fetch: async () => (await Bun.sleep(1500), Response.json({ late: true })),
    });
    stops.push(() => slow.stop(true));
    const w = await world([openai.tools({ name: 'products', input: { action: 'list_products', limit: 1 } }), openai.text('None yet.')]);
    const { h } = w;
    const agent = await w.agent(['products']);
    const at = (minute: number) => new Date(Date.parse('2026-04-01T00:00:00Z') + minute * MIN).toISOString();

    // 00:00 an agent lists products (success).
    await w.converse(agent.id, 'What do I sell?');
    // 00:01 an MCP client lists products (success), 00:02 asks for a malformed id (error).
    const { client } = await mcpClient(h);
    stops.push(() => client.close());
    h.clock.advance(MIN);
    expect((await client.callTool({ name: 'products', arguments: { action: 'list_products' } })).isError).toBeFalsy();
    h.clock.advance(MIN);
    expect((await client.callTool({ name: 'products', arguments: { action: 'get_product', id: 'not-an-id' } })).isError).toBe(true);
    // 00:03 a read-only key tries to create (error: insufficient scope).
    h.clock.advance(MIN);
    const reader = await mcpClient(h, { key: await h.newKey(['products:read']) });
    stops.push(() => reader.client.close());
    const denied = await reader.client.callTool({ name: 'products', arguments: { action: 'create_product', ...product() } });
    expect(denied.isError).toBe(true);
    expect(JSON.parse((denied.content as any)[0].text).error.code).toBe('insufficient_scope');
    // 00:04 an HTTP custom tool runs past its timeout_ms (timeout).
    h.clock.advance(MIN);
    const tool = await h.call('POST', '/tools', {
      name: 'slow_lookup',
      description: 'A slow supplier lookup.',
      parameters: { type: 'object', properties: {} },
      execution_type: 'http',
      execution_config: { url: `http://127.0.0.1:${slow.port}/lookup`, method: 'POST', timeout_ms: 150 },
    });
    expect(tool.status).toBe(201);
    const allow = process.env.SVC_EGRESS_ALLOW;
    process.env.SVC_EGRESS_ALLOW = '127.0.0.1';
    try {
      const timedOut = await client.callTool({ name: 'slow_lookup', arguments: {} });
      expect(timedOut.isError).toBe(true);
    } finally {
      if (allow === undefined) delete process.env.SVC_EGRESS_ALLOW;
      else process.env.SVC_EGRESS_ALLOW = allow;
    }

    const q = async (query: string) => {
      const r = await h.call('GET', `/tool-executions${query}`);
      expect(r.status).toBe(200);
      return r.body;
    };
    const all = await q('');
    expect(all).toMatchObject({ total: 5, limit: 20, offset: 0 });
    expect(all.executions.map((e: any) => [e.created_at, e.tool, e.action, e.source, e.status])).toEqual([
      [at(4), 'slow_lookup', 'run', 'mcp', 'timeout'],
      [at(3), 'products', 'create_product', 'mcp', 'error'],
      [at(2), 'products', 'get_product', 'mcp', 'error'],
      [at(1), 'products', 'list_products', 'mcp', 'success'],
      [at(0), 'products', 'list_products', 'agent', 'success'],
    ]);
    for (const e of all.executions) {
      expect(Number.isInteger(e.duration_ms) && e.duration_ms >= 0).toBe(true);
      expect(e.completed_at).toBe(e.created_at);
      expect(e.approval).toBeNull();
    }
    const [timeoutRow, scopeRow, inputRow] = all.executions;
    expect(timeoutRow.output.error).toMatchObject({ code: 'tool_timeout' });
    expect(timeoutRow.duration_ms).toBeGreaterThanOrEqual(100);
    expect(scopeRow.output.error).toMatchObject({ code: 'insufficient_scope' });
    expect(inputRow).toMatchObject({ input: { id: 'not-an-id' }, output: { error: { type: 'invalid_request_error' } } });
    expect(all.executions[4]).toMatchObject({ agent_id: agent.id, agent_name: 'Clerk', input: { limit: 1 } });

    expect((await q('?tool=products')).total).toBe(4);
    expect((await q('?tool=slow_lookup')).executions.map((e: any) => e.status)).toEqual(['timeout']);
    expect((await q(`?agent_id=${agent.id}`)).executions.map((e: any) => e.source)).toEqual(['agent']);
    expect((await q('?status=error')).total).toBe(2);
    expect((await q('?status=timeout&tool=products')).total).toBe(0);
    expect((await q(`?from=${at(1)}&to=${at(3)}`)).executions.map((e: any) => e.action)).toEqual(['create_product', 'get_product', 'list_products']);
    expect((await q(`?from=${encodeURIComponent('2026-04-01T00:02:30+00:00')}`)).total).toBe(2);
    const page = await q('?limit=2&offset=1');
    expect(page).toMatchObject({ total: 5, limit: 2, offset: 1 });
    expect(page.executions.map((e: any) => e.created_at)).toEqual([at(3), at(2)]);
    expect((await q('?limit=2&offset=4')).executions.length).toBe(1);
    expect((await q('?status=pending_approval')).total).toBe(0);

    for (const [query, param] of [
      ['?from=yesterday', 'from'],
      ['?from=2026-13-45T00:00:00Z', 'from'],
      ['?to=2026-04-01T25:00:00Z', 'to'],
      ['?status=done', 'status'],
      ['?limit=0', 'limit'],
      ['?agent_id=nope', 'agent_id'],
    ]) {
      const r = await h.call('GET', `/tool-executions${query}`);
      expect([query, r.status, r.body.error?.param]).toEqual([query, 400, param]);
    }

    const other = await setup({ plugins: w.list });
    expect((await other.call('GET', '/tool-executions')).body).toMatchObject({ executions: [], total: 0 });
    expect((await other.call('GET', `/tool-executions?agent_id=${agent.id}`)).body.total).toBe(0);
    expect((await other.call('GET', `/tool-executions/${timeoutRow.id}`)).status).toBe(404);
    expect((await other.call('POST', `/tool-executions/${timeoutRow.id}/approve`, {})).status).toBe(404);
    // This store's own approve of a call that was never gated: a conflict, not a run.
    const notGated = await h.call('POST', `/tool-executions/${scopeRow.id}/approve`, {});
    expect(notGated.status).toBe(409);
    expect((await h.call('GET', `/tool-executions/${crypto.randomUUID()}`)).status).toBe(404);
  });
});
