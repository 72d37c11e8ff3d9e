/**
 * Shared set-up of the approval-gate tests (approvals, gate, executions): a store whose agents chat
 * against a scripted fake model, the approval worker over the same registry, and small readers.
 * Not a test file: each test file calls useWorlds() and builds its worlds with world().
 */
import { afterAll, afterEach, beforeAll, expect } from 'bun:test';
import { product, setup, type Harness } from './setup';
import { events, fakeServer, openai, type Reply } from './fake-models';
import { startReceiver, testCerts } from './webhook-receiver';
import { sharedDb } from './db';
import { approvalTimeoutJob } from '../../workers/approvals';
import { APPROVAL_QUEUE, type ApprovalJob } from '../../core/tools/executions';

/** Cleanups for the running test (clients, servers), run after each test of a file that calls useWorlds. */
export const stops: (() => void | Promise<void>)[] = [];
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];

/** Registers the hooks these tests need; call it at the top of each test file. */
export function useWorlds() {
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((s) => s()));
  });
  // The receiver's throwaway CA (openssl takes a few seconds), made once before the tests' own timeouts start.
  // And the shared database (migrations), which the first test would otherwise pay for.
  beforeAll(async () => {
    testCerts();
    await sharedDb();
  }, 60_000);
  afterAll(async () => {
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
}

/** A store whose agents talk to a scripted fake OpenAI server; the approval worker over the same registry. */
export async function world(replies: Reply[] = []) {
  const fake = fakeServer(replies);
  stops.push(fake.stop);
  const h = await setup({
    env: { OPENAI_BASE_URL: `${fake.url}/v1`, OPENAI_API_KEY: 'sk-test', SVC_AGENTS_KEEP_ALIVE_MS: '60', SVC_AGENTS_APPROVAL_POLL_MS: '20' },
  });
  const worker = approvalTimeoutJob(h.db, h.clock, h.registry);

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
        if (closed || Date.now() > end)
          throw new Error(`chat stream: no ${what}; got:
${text}`);
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
    await worker.run!(found.map((j) => j.data));
    return found.length;
  }
  const productCount = async () =>
    Number((await h.db.query<{ n: string }>('SELECT count(*) AS n FROM products WHERE store_id = $1', [h.store.id]))[0].n);
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

  return { h, fake, worker, agent, chat, converse, orderTool, exec, jobs, runJobs, productCount, eventsOf, sentToModel, toolResults, subscribe };
}

export const createCall = (over: Record<string, unknown> = {}) => ({
  name: 'products',
  input: { action: 'create_product', ...product({ name: 'Gated Lamp', ...over }) },
});
export const MIN = 60_000;
