/**
 * MCP tasks (2025-11-25, issue 51) through the SDK's own client: a gated call as a task (approved,
 * rejected, timed out, cancelled), tasks scoped per credential, read from another api process and
 * after a restart, a bulk call as a task; and a client that does not ask for a task sees no change.
 */
import { beforeAll, setDefaultTimeout, describe, expect, test } from 'bun:test';
import { CallToolResultSchema, CreateTaskResultSchema, TaskStatusNotificationSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createApp } from '../../core/http/app';
import { LOCAL_HOSTS, makeServices } from '../../core/http/services';
import { expireExecution, runApproved } from '../../core/tools/approvals';
import { NO_LIMITS, product, setup, type Harness } from '../kit/setup';
import { mcpClient } from '../kit/mcp';
import { sharedDb } from '../kit/db';
import { runJob, takeQueued } from '../kit/jobs';
import { Type } from '@sinclair/typebox';
import { action, definePlugin, Input, job, JobStarted } from '../../core/sdk';

// The first test of a file pays for a store's set-up, slow on a loaded machine.
setDefaultTimeout(30_000);

/** Long work a client follows: an action that starts a job (as index_catalog, bulk_enrich, batch_remove do). */
const counter = definePlugin({
  name: 'count_fixture',
  category: 'platform',
  description: 'Counts, slowly.',
  scopes: { read: ['products', 'products:read'], write: ['products', 'products:write'] },
  jobs: {
    count: job({
      description: 'Counts to n.',
      input: Type.Object({ n: Type.Integer() }),
      handler: async (ctx, { n }) => {
        for (let i = 1; i <= n; i++) await ctx.progress(i, n);
        return { counted: n };
      },
    }),
  },
  actions: {
    count: action({
      kind: 'write',
      description: 'Counts to n in a job.',
      input: Input({ n: Type.Integer() }),
      output: JobStarted,
      startsJob: true,
      rest: { method: 'POST', path: '/count', status: 202 },
      handler: (ctx, input) => ctx.startJob('count', input),
    }),
  },
});

beforeAll(async () => void (await sharedDb()), 60_000);

/** Another api process over the same database (or this one after a restart). */
const processOf = (h: Harness) =>
  createApp(makeServices({ db: h.db, clock: h.clock, registry: h.registry, limits: NO_LIMITS, allowedHosts: ['svc.test', ...LOCAL_HOSTS] }));

async function gatedTool(h: Harness, extra: Record<string, unknown> = {}) {
  const r = await h.call('POST', '/tools', {
    name: `order_stock_${crypto.randomUUID().slice(0, 6)}`,
    description: 'Order stock from the supplier.',
    parameters: { type: 'object', properties: { quantity: { type: 'integer' } }, required: ['quantity'] },
    execution_type: 'javascript',
    execution_config: { code: 'return { ordered: params.quantity };' },
    requires_approval: true,
    ...extra,
  });
  expect(r.status, JSON.stringify(r.body)).toBe(201);
  return r.body as { id: string; name: string };
}

const asTask = (client: Client, name: string, args: Record<string, unknown>, ttl?: number) =>
  client.request({ method: 'tools/call', params: { name, arguments: args, task: ttl === undefined ? {} : { ttl } } }, CreateTaskResultSchema);

/** A client that records every notifications/tasks/status it hears. */
async function listening(h: Harness, opts: Parameters<typeof mcpClient>[1] = {}) {
  const c = await mcpClient(h, opts);
  const heard: Task[] = [];
  c.client.setNotificationHandler(TaskStatusNotificationSchema, (n) => void heard.push(n.params as Task));
  const until = async (ok: (t: Task[]) => boolean, what: string) => {
    const end = Date.now() + 5000;
    while (!ok(heard)) {
      if (Date.now() > end) throw new Error(`no ${what}; heard ${JSON.stringify(heard)}`);
      await Bun.sleep(10);
    }
  };
  return { ...c, heard, until };
}

const deps = (h: Harness) => ({ db: h.db, clock: h.clock, registry: h.registry });

describe('tasks', () => {
  test('the server declares tasks; every tool may run as one but discover_tools', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    for (const t of tools) expect(t.execution?.taskSupport).toBe(t.name === 'discover_tools' ? 'forbidden' : 'optional');
    await expect(asTask(client, 'discover_tools', {})).rejects.toThrow(/forbidden/);
    await expect(asTask(client, 'no_such_tool', {})).rejects.toThrow(/Unknown tool/);
    await client.close();
  });

  test('a gated call as a task: working while it waits, completed once approved, notified on each change', async () => {
    const h = await setup();
    const tool = await gatedTool(h);
    const { client, heard, until } = await listening(h);
    // The client's GET stream (where notifications come) opens after initialize.
    await Bun.sleep(50);
    const { task } = await asTask(client, tool.name, { quantity: 3 });
    expect(task.status).toBe('working');
    expect(task.statusMessage).toContain('Waiting for an approver');
    expect(task.ttl).toBe(24 * 3600_000);
    // The task is the execution.
    const exec = await h.call('GET', `/tool-executions/${task.taskId}`);
    expect(exec.body).toMatchObject({ status: 'pending_approval', tool: tool.name, source: 'mcp' });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');

    expect((await h.call('POST', `/tool-executions/${task.taskId}/approve`, {})).status).toBe(200);
    await runApproved(deps(h), h.store.id, task.taskId);
    const result: any = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(result.structuredContent).toEqual({ ordered: 3 });
    expect(result._meta['io.modelcontextprotocol/related-task']).toEqual({ taskId: task.taskId });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    await until((t) => t.some((x) => x.status === 'completed'), 'completed notification');
    expect(heard.map((t) => t.taskId)).toContain(task.taskId);
    expect(heard.some((t) => t.statusMessage?.startsWith('Approved'))).toBe(true);
    await client.close();
  });

  test('rejected and timed out: failed, and tasks/result is the tool error with the reason', async () => {
    const h = await setup();
    const tool = await gatedTool(h);
    const { client } = await mcpClient(h);
    const rejected = (await asTask(client, tool.name, { quantity: 1 })).task;
    expect((await h.call('POST', `/tool-executions/${rejected.taskId}/reject`, { reason: 'too many' })).status).toBe(200);
    const r: any = await client.experimental.tasks.getTaskResult(rejected.taskId, CallToolResultSchema);
    expect(r.isError).toBe(true);
    expect(JSON.parse(r.content[0].text).error).toMatchObject({ code: 'approval_rejected', message: expect.stringContaining('too many') });
    expect(await client.experimental.tasks.getTask(rejected.taskId)).toMatchObject({
      status: 'failed',
      statusMessage: expect.stringContaining('too many'),
    });

    const timed = (await asTask(client, tool.name, { quantity: 2 })).task;
    h.clock.advance(31 * 60_000);
    expect(await expireExecution(deps(h), h.store.id, timed.taskId)).toBe('rejected');
    const t: any = await client.experimental.tasks.getTaskResult(timed.taskId, CallToolResultSchema);
    expect(JSON.parse(t.content[0].text).error.code).toBe('approval_timeout');
    expect((await client.experimental.tasks.getTask(timed.taskId)).status).toBe('failed');
    await client.close();
  });

  test('tasks/cancel withdraws a held call: rejected with decision cancelled, a later approve is 409', async () => {
    const h = await setup();
    const tool = await gatedTool(h);
    const { client } = await mcpClient(h);
    const { task } = await asTask(client, tool.name, { quantity: 5 });
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    const exec = (await h.call('GET', `/tool-executions/${task.taskId}`)).body;
    expect(exec.status).toBe('rejected');
    expect(exec.approval.decision).toBe('cancelled');
    expect((await h.call('POST', `/tool-executions/${task.taskId}/approve`, {})).status).toBe(409);
    await expect(client.experimental.tasks.cancelTask(task.taskId)).rejects.toThrow(/already cancelled/);
    const r: any = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(r.isError).toBe(true);
    await client.close();
  });

  test('a task belongs to its credential: another key or store gets -32602 and never lists it', async () => {
    const h = await setup();
    const other = await setup();
    const tool = await gatedTool(h);
    const { client } = await mcpClient(h);
    const { task } = await asTask(client, tool.name, { quantity: 1 }, 60_000);
    // The ttl is at least the approval window (30 min) plus an hour.
    expect(task.ttl).toBe(90 * 60_000);
    expect((await client.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toContain(task.taskId);

    const sameStore = (await mcpClient(h, { key: await h.newKey([...h.registry.scopes]) })).client;
    const elsewhere = (await mcpClient(other)).client;
    for (const c of [sameStore, elsewhere]) {
      await expect(c.experimental.tasks.getTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
      await expect(c.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema)).rejects.toMatchObject({ code: -32602 });
      await expect(c.experimental.tasks.cancelTask(task.taskId)).rejects.toMatchObject({ code: -32602 });
      expect((await c.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(task.taskId);
      await c.close();
    }
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    await client.close();
  });

  test('a task started on one api process is read from another, and after a restart', async () => {
    const h = await setup();
    const tool = await gatedTool(h);
    const a = processOf(h);
    const b = processOf(h);
    const { client } = await mcpClient(h, { apps: [a, b] });
    const { task } = await asTask(client, tool.name, { quantity: 4 });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('working');
    await client.close();
    expect((await h.call('POST', `/tool-executions/${task.taskId}/approve`, {})).status).toBe(200);
    await runApproved(deps(h), h.store.id, task.taskId);
    // A new process (a restart): the same credential reads the task and its result.
    const restarted = (await mcpClient(h, { apps: [processOf(h)] })).client;
    expect((await restarted.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    const r: any = await restarted.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(r.structuredContent).toEqual({ ordered: 4 });
    await restarted.close();
  });

  test('a bulk operation as a task, and a plain call unchanged', async () => {
    const h = await setup();
    const { client } = await mcpClient(h);
    const items = Array.from({ length: 20 }, (_, i) => ({ action: 'create', ...product({ name: `Bulk ${i}` }) }));
    const { task } = await asTask(client, 'products', { action: 'bulk_products', items });
    expect(['working', 'completed']).toContain(task.status);
    const r: any = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(r.isError).toBeUndefined();
    expect(r.structuredContent.data).toHaveLength(20);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    expect((await h.call('GET', '/products?limit=100')).body.data).toHaveLength(20);

    // Without params.task, a gated call keeps today's held answer.
    const tool = await gatedTool(h);
    const held: any = await client.callTool({ name: tool.name, arguments: { quantity: 1 } });
    expect(held.structuredContent).toMatchObject({ status: 'pending_approval', execution_id: expect.any(String) });
    // An input error as a task: failed at once, the tool error its result.
    const bad = (await asTask(client, 'products_create_product', { name: 5 })).task;
    const e: any = await client.experimental.tasks.getTaskResult(bad.taskId, CallToolResultSchema);
    expect(e.isError).toBe(true);
    expect((await client.experimental.tasks.getTask(bad.taskId)).status).toBe('failed');
    await client.close();
  });

  test('a call that starts a job, as a task: working while the job runs, completed with its result', async () => {
    const h = await setup({ extra: [counter] });
    const { client } = await mcpClient(h);
    const { task } = await asTask(client, 'count_fixture', { action: 'count', n: 3 });
    expect(task.status).toBe('working');
    const until = Date.now() + 3000;
    while (!(await client.experimental.tasks.getTask(task.taskId)).statusMessage?.includes('Job count_fixture.count queued'))
      if (Date.now() > until) throw new Error('the task never followed its job');
      else await Bun.sleep(10);
    await runJob(h, 'count_fixture.count', await takeQueued(h, 'count_fixture.count'));
    const r: any = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    expect(r.structuredContent).toEqual({ counted: 3 });
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('completed');

    // Cancelling the task cancels its job.
    const second = (await asTask(client, 'count_fixture', { action: 'count', n: 2 })).task;
    expect((await client.experimental.tasks.cancelTask(second.taskId)).status).toBe('cancelled');
    const jobs = (await h.db.query(`SELECT status FROM jobs WHERE store_id = $1 ORDER BY seq`, [h.store.id])).map((j: any) => j.status);
    expect(jobs).toEqual(['succeeded', 'cancelled']);
    await client.close();
  });
});
