/**
 * `requires_confirmation` on custom tools (issue 51), through the SDK's own client: set and read
 * through REST in both forms, confirmed it runs, declined it does not (audited as rejected, decision
 * declined), a client without elicitation is refused, and a task cannot skip the question.
 */
import { beforeAll, expect, setDefaultTimeout, test } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ElicitRequestSchema, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';
import { createApp } from '../../core/http/app';
import { LOCAL_HOSTS, makeServices } from '../../core/http/services';
import { NO_LIMITS, setup, type Harness } from '../kit/setup';
import { mcpClient, refundToolAskingFirst } from '../kit/mcp';

setDefaultTimeout(30_000);

let h: Harness;
let toolId: string;
beforeAll(async () => {
  h = await setup();
  toolId = await refundToolAskingFirst(h);
}, 60_000);

/** Another api process over the same database. */
const processOf = () =>
  createApp(makeServices({ db: h.db, clock: h.clock, registry: h.registry, limits: NO_LIMITS, allowedHosts: ['svc.test', ...LOCAL_HOSTS] }));

/** A client declaring form elicitation; `route` picks the api process each request goes to. */
async function eliciting(
  answers: ElicitResult[] | ((params: any) => Promise<ElicitResult>),
  route: (body: any) => { handle: (r: Request) => Promise<Response> } = () => h.app,
) {
  const asked: any[] = [];
  const transport = new StreamableHTTPClientTransport(new URL('http://svc.test/agent/mcp'), {
    fetch: (async (input: string | URL | Request, init?: RequestInit) => {
      const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
      return route(body).handle(new Request(input, init));
    }) as typeof fetch,
    requestInit: { headers: { 'x-api-key': h.key } },
  });
  const client = new Client({ name: 'eliciting', version: '1' }, { capabilities: { elicitation: { form: {} } } });
  client.setRequestHandler(ElicitRequestSchema, async (req) => {
    asked.push(req.params);
    return typeof answers === 'function' ? answers(req.params) : answers.shift()!;
  });
  await client.connect(transport);
  return { client, asked };
}

const executions = async () => (await h.call('GET', '/tool-executions?tool=refund_order&limit=50')).body.executions as any[];

test('requires_confirmation is set, read and changed through REST, in both forms', async () => {
  expect((await h.call('GET', `/tools/${toolId}`)).body.requires_confirmation).toBe(true);
  expect((await h.call('GET', `/custom-tools/${toolId}`)).body.requires_confirmation).toBe(true);
  const off = await h.call('PATCH', `/custom-tools/${toolId}`, { requires_confirmation: false });
  expect(off.status).toBe(200);
  expect(off.body.requires_confirmation).toBe(false);
  expect((await h.call('PATCH', `/tools/${toolId}`, { requires_confirmation: true })).body.requires_confirmation).toBe(true);
  const bad = await h.call('PATCH', `/tools/${toolId}`, { requires_confirmation: 'yes' });
  expect(bad.status).toBe(400);
  expect(bad.body.error.param).toBe('requires_confirmation');
  // Left out, it is false.
  const plain = await h.call('POST', '/custom-tools', {
    name: 'plain_tool',
    description: 'Plain.',
    input_schema: { type: 'object', properties: {} },
    handler: { type: 'javascript', code: 'return 1;' },
  });
  expect(plain.body.requires_confirmation).toBe(false);
});

test('confirmed, the custom tool runs; the form names it and its input', async () => {
  const { client, asked } = await eliciting([{ action: 'accept', content: { confirm: true } }]);
  const r: any = await client.callTool({ name: 'refund_order', arguments: { amount: 12.5 } });
  expect(r.isError).toBeUndefined();
  expect(r.structuredContent).toEqual({ refunded: 12.5 });
  expect(asked).toHaveLength(1);
  expect(asked[0].message).toContain('refund_order');
  expect(asked[0].message).toContain('12.50');
  expect((await executions()).filter((e) => e.status === 'success')).toHaveLength(1);
  await client.close();
});

test('declined, it does not run: a tool error, audited as rejected with approval.decision declined', async () => {
  const before = (await executions()).length;
  const { client } = await eliciting([{ action: 'decline' }]);
  const r: any = await client.callTool({ name: 'refund_order', arguments: { amount: 99 } });
  expect(r.isError).toBe(true);
  expect(JSON.parse(r.content[0].text).error).toMatchObject({ code: 'approval_rejected', message: expect.stringContaining('declined') });
  const log = await executions();
  expect(log.length).toBe(before + 1); // the refusal alone: no run was recorded
  expect(log[0]).toMatchObject({ tool: 'refund_order', action: 'run', source: 'mcp', status: 'rejected', approval: { decision: 'declined' } });
  expect(log[0].input).toEqual({ amount: 99 });
  await client.close();
});

test('a client without elicitation is refused, and a task cannot skip the question', async () => {
  const before = (await executions()).length;
  const { client } = await mcpClient(h);
  const r: any = await client.callTool({ name: 'refund_order', arguments: { amount: 1 } });
  expect(JSON.parse(r.content[0].text).error.code).toBe('confirmation_required');
  const asTask = client.request({ method: 'tools/call', params: { name: 'refund_order', arguments: { amount: 1 }, task: {} } }, CallToolResultSchema);
  await expect(asTask).rejects.toThrow(/confirmation/);
  expect((await executions()).length).toBe(before);
  await client.close();
});

test('the answer may land on another api process: it reaches the call waiting on the first (no sticky sessions)', async () => {
  const [a, b] = [processOf(), processOf()];
  const landed: string[] = [];
  // Every request goes to process a, except the client's answers (JSON-RPC responses), which go to b.
  const { client, asked } = await eliciting([{ action: 'accept', content: { confirm: true } }], (body) => {
    const answer = body && body.method === undefined && 'result' in body;
    landed.push(answer ? 'b' : 'a');
    return answer ? b : a;
  });
  const r: any = await client.callTool({ name: 'refund_order', arguments: { amount: 7 } });
  expect(asked).toHaveLength(1);
  expect(r.structuredContent).toEqual({ refunded: 7 });
  expect(landed.filter((p) => p === 'b')).toHaveLength(1);
  // Taken by the waiting process: nothing is left behind.
  expect(await h.db.query('SELECT 1 FROM mcp_answers WHERE store_id = $1', [h.store.id])).toEqual([]);
  await client.close();
});

test('two calls of one session ask at once: each answer reaches its own call, across processes too', async () => {
  const [a, b] = [processOf(), processOf()];
  // Both questions are outstanding before either is answered; the user confirms 1 and declines 2.
  const { client, asked } = await eliciting(
    async (params) => {
      while (asked.length < 2) await Bun.sleep(10);
      return params.message.includes('at 1.00') ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    },
    (body) => (body && body.method === undefined && 'result' in body ? b : a),
  );
  const [one, two]: any[] = await Promise.all([
    client.callTool({ name: 'refund_order', arguments: { amount: 1 } }),
    client.callTool({ name: 'refund_order', arguments: { amount: 2 } }),
  ]);
  expect(one.structuredContent).toEqual({ refunded: 1 });
  expect(two.isError).toBe(true);
  expect(JSON.parse(two.content[0].text).error.message).toContain('declined');
  await client.close();
});

test('a call the client cancels while it asks stops at once, on whichever process holds it: its stream ends with no answer, nothing runs', async () => {
  for (const elsewhere of [false, true]) {
    const [a, b] = [processOf(), processOf()];
    let callStream: Promise<string> | undefined;
    const cancel = new AbortController();
    const transport = new StreamableHTTPClientTransport(new URL('http://svc.test/agent/mcp'), {
      fetch: (async (input: string | URL | Request, init?: RequestInit) => {
        const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
        // The cancellation lands on the other process in the second round.
        const app = elsewhere && body?.method === 'notifications/cancelled' ? b : a;
        const response = await app.handle(new Request(input, init));
        if (body?.method !== 'tools/call' || !response.body) return response;
        // The client's copy, and ours to see when the server ends the call's stream.
        const [mine, theirs] = response.body.tee();
        callStream = new Response(mine).text();
        return new Response(theirs, response);
      }) as typeof fetch,
      requestInit: { headers: { 'x-api-key': h.key } },
    });
    const client = new Client({ name: 'cancelling', version: '1' }, { capabilities: { elicitation: { form: {} } } });
    // The user walks away from the question: the client cancels the call instead of answering.
    client.setRequestHandler(ElicitRequestSchema, async () => {
      cancel.abort('the user closed the dialog');
      return new Promise<ElicitResult>(() => {});
    });
    await client.connect(transport);
    const amount = elsewhere ? 31 : 30;
    const call = client.callTool({ name: 'refund_order', arguments: { amount } }, CallToolResultSchema, { signal: cancel.signal });
    await expect(call).rejects.toThrow();
    const started = Date.now();
    const streamed = await callStream!;
    // Ended by the server within a moment, not after the question's 60 s timeout; no answer in it.
    expect(Date.now() - started).toBeLessThan(5000);
    expect(streamed).not.toContain('"result"');
    expect(streamed).not.toContain('"error"');
    expect((await executions()).filter((e) => e.input?.amount === amount && e.status === 'success')).toEqual([]);
    await client.close();
  }
});
