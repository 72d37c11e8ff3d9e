import { afterAll, beforeAll, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backend } from '../../test/kit/db';
import { mcpClient } from '../../test/kit/mcp';
import { ADMIN_TOKEN, setup, type Harness } from '../../test/kit/setup';
import { startNode, type RunningNode } from './nodes';

let h: Harness;
let node: RunningNode;
let api: RunningNode;
const dataDir = mkdtempSync(join(tmpdir(), 'svc-local-agent-'));
const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-api-key': '' };
beforeAll(async () => {
  h = await setup();
  node = await startNode(h.db, h.clock, 'worker', ['core.webhooks'], { timer: false, dataDir });
  api = await startNode(h.db, h.clock, 'api', [], { timer: false, dataDir });
}, 120_000);
afterAll(async () => {
  await node.stop();
  await api.stop();
});

const trust = (on: boolean, storeId = h.store.id) => h.raw('PATCH', `/v1/stores/${storeId}`, { instance_tools: on }, admin);

test('a store the operator has not trusted gets 403 instance_tools_not_allowed, whatever its scopes; the admin token trusts it', async () => {
  const denied = await h.call('GET', '/local-agent/nodes');
  expect(denied.status).toBe(403);
  expect(denied.body.error).toMatchObject({ type: 'permission_error', code: 'instance_tools_not_allowed' });
  expect((await h.call('POST', '/local-agent/tasks', { task: 'analyze', role: 'worker' })).body.error.code).toBe('instance_tools_not_allowed');
  // Only the operator changes it: the store's own key cannot.
  expect([401, 403]).toContain((await h.raw('PATCH', `/v1/stores/${h.store.id}`, { instance_tools: true })).status);
  expect((await h.call('GET', '/local-agent/nodes')).status).toBe(403);
  const patched = await trust(true);
  expect(patched.status).toBe(200);
  expect(patched.body).toMatchObject({ object: 'store', id: h.store.id, instance_tools: true });
  const list = await h.call('GET', '/local-agent/nodes');
  expect(list.status).toBe(200);
  const mine = list.body.data.find((n: any) => n.id === node.id);
  expect(mine).toMatchObject({ role: 'worker', pid: process.pid, status: 'live', queues: ['core.webhooks'], recent_tasks: [] });
  expect(mine.load.rss_bytes).toBeGreaterThan(0);
  // A trusted store's key still needs platform or platform:write.
  const narrow = await h.call('GET', '/local-agent/nodes', undefined, { 'x-api-key': await h.newKey(['platform:read']) });
  expect(narrow.status).toBe(403);
  expect(narrow.body.error.code).toBe('insufficient_scope');
  expect((await h.call('GET', '/local-agent/nodes', undefined, { 'x-api-key': await h.newKey(['platform:write']) })).status).toBe(200);
  // Another store stays untrusted; an unknown store is 404 to the operator.
  const other = await setup();
  expect((await other.call('GET', '/local-agent/nodes')).status).toBe(403);
  expect((await trust(true, crypto.randomUUID())).status).toBe(404);
});

test('run_task answers a job the chosen node runs itself; the result is in the job and in its recent_tasks, the last 10 kept', async () => {
  await trust(true);
  const started = await h.call('POST', '/local-agent/tasks', { task: 'analyze', node_id: node.id });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({ object: 'job', type: 'local_agent.run_task', status: 'queued' });
  // The api node has nothing to run; the worker node runs its own.
  expect(await api.poll()).toBe(0);
  expect(await node.poll()).toBe(1);
  const job = (await h.call('GET', `/jobs/${started.body.id}`)).body;
  expect(job).toMatchObject({ status: 'succeeded', result: { task: 'analyze' } });
  const got = (await h.call('GET', `/local-agent/nodes/${node.id}`)).body;
  expect(got.recent_tasks[0]).toMatchObject({ job_id: job.id, task: 'analyze', status: 'succeeded' });
  // By role: the first live node of it.
  const byRole = await h.call('POST', '/local-agent/tasks', { task: 'analyze', role: 'api' });
  expect(await node.poll()).toBe(0);
  expect(await api.poll()).toBe(1);
  expect((await h.call('GET', `/jobs/${byRole.body.id}`)).body.status).toBe('succeeded');
  // reindex_embeddings rebuilds the embeddings table's indexes, on the node asked.
  const reindex = await h.call('POST', '/local-agent/tasks', { task: 'reindex_embeddings', node_id: node.id });
  expect(await node.poll()).toBe(1);
  expect((await h.call('GET', `/jobs/${reindex.body.id}`)).body).toMatchObject({
    status: 'succeeded',
    // 3 of its own, plus an HNSW index per vector size where PostgreSQL has pgvector.
    result: { task: 'reindex_embeddings', table: 'embeddings', indexes: expect.any(Number) },
  });
  expect((await h.call('GET', `/jobs/${reindex.body.id}`)).body.result.indexes).toBeGreaterThanOrEqual(3);
  for (let i = 0; i < 11; i++) await h.call('POST', '/local-agent/tasks', { task: 'analyze', node_id: node.id });
  expect(await node.poll()).toBe(11);
  const recent = (await h.call('GET', `/local-agent/nodes/${node.id}`)).body.recent_tasks;
  expect(recent).toHaveLength(10);
  expect(recent.map((t: any) => t.job_id)).not.toContain(job.id);
});

// Its own test with a longer limit: the task is instance-wide, so it rebuilds every store the shared
// test database holds by then (hundreds, with their orders, late in a full run on a loaded machine).
test('rebuild_rollups recomputes the analytics rollups of every store, this one among them', async () => {
  await trust(true);
  const rebuild = await h.call('POST', '/local-agent/tasks', { task: 'rebuild_rollups', node_id: node.id });
  expect(await node.poll()).toBe(1);
  const rebuilt = (await h.call('GET', `/jobs/${rebuild.body.id}`)).body;
  expect(rebuilt).toMatchObject({ status: 'succeeded', result: { task: 'rebuild_rollups' } });
  expect(rebuilt.result.stores).toBeGreaterThanOrEqual(1);
  expect(await h.db.query('SELECT store_id FROM analytics_rollup_state WHERE store_id = $1', [h.store.id])).toHaveLength(1);
}, 240_000);

test('run_task needs exactly one of node_id and role; an unknown node is 404; a role no live node has is 409', async () => {
  await trust(true);
  expect((await h.call('POST', '/local-agent/tasks', { task: 'analyze' })).body.error.param).toBe('node_id');
  expect((await h.call('POST', '/local-agent/tasks', { task: 'analyze', node_id: node.id, role: 'api' })).status).toBe(400);
  const unknown = await h.call('POST', '/local-agent/tasks', { task: 'analyze', node_id: crypto.randomUUID() });
  expect(unknown.status).toBe(404);
  expect(unknown.body.error.param).toBe('node_id');
  expect((await h.call('POST', '/local-agent/tasks', { task: 'analyze', role: 'all' })).body.error.code).toBe('no_live_node');
  expect((await h.call('POST', '/local-agent/tasks', { task: 'reboot', role: 'api' })).status).toBe(400);
});

test.skipIf(backend === 'postgres')('backup copies the embedded database into the data directory’s backups/ (on the embedded database)', async () => {
  await trust(true);
  const started = await h.call('POST', '/local-agent/tasks', { task: 'backup', node_id: node.id });
  expect(started.status).toBe(202);
  await node.poll();
  const job = (await h.call('GET', `/jobs/${started.body.id}`)).body;
  expect(job.status).toBe('succeeded');
  expect(job.result.path.startsWith(join(dataDir, 'backups'))).toBe(true);
  expect(existsSync(job.result.path)).toBe(true);
  expect(statSync(job.result.path).size).toBe(job.result.bytes);
  expect(job.result.bytes).toBeGreaterThan(1000);
});

test.skipIf(backend !== 'postgres')('backup is 400 on PostgreSQL (on PostgreSQL: the embedded database is the one it copies)', async () => {
  await trust(true);
  const r = await h.call('POST', '/local-agent/tasks', { task: 'backup', node_id: node.id });
  expect(r.status).toBe(400);
  expect(r.body.error).toMatchObject({ code: 'backup_needs_embedded_database', param: 'task' });
});

test('a node silent for 15 s is stale and takes no task; 5 minutes later a live node sweeps it and fails its waiting tasks; a clean stop removes at once', async () => {
  await trust(true);
  const doomed = await startNode(h.db, h.clock, 'worker', [], { timer: false, dataDir });
  const waiting = (await h.call('POST', '/local-agent/tasks', { task: 'analyze', node_id: doomed.id })).body;
  h.clock.advance(16_000);
  await node.beat();
  expect((await h.call('GET', `/local-agent/nodes/${doomed.id}`)).body.status).toBe('stale');
  expect((await h.call('POST', '/local-agent/tasks', { task: 'analyze', node_id: doomed.id })).body.error.code).toBe('node_stale');
  h.clock.advance(300_000);
  await node.beat();
  await api.beat();
  expect((await h.call('GET', `/local-agent/nodes/${doomed.id}`)).status).toBe(404);
  expect((await h.call('GET', `/jobs/${waiting.id}`)).body).toMatchObject({ status: 'failed', error: { code: 'node_gone' } });
  // A clean stop: gone at once.
  const brief = await startNode(h.db, h.clock, 'api', [], { timer: false, dataDir });
  expect((await h.call('GET', `/local-agent/nodes/${brief.id}`)).status).toBe(200);
  await brief.stop();
  expect((await h.call('GET', `/local-agent/nodes/${brief.id}`)).status).toBe(404);
});

test('over MCP: local_agent list_nodes, and the untrusted store is told why', async () => {
  await trust(true);
  const { client } = await mcpClient(h);
  const r: any = await client.callTool({ name: 'local_agent', arguments: { action: 'list_nodes' } });
  expect(r.isError).toBeFalsy();
  expect(JSON.parse(r.content[0].text).data.some((n: any) => n.id === node.id)).toBe(true);
  await trust(false);
  const denied: any = await client.callTool({ name: 'local_agent', arguments: { action: 'list_nodes' } });
  await client.close();
  expect(denied.isError).toBe(true);
  expect(denied.content[0].text).toContain('instance_tools_not_allowed');
});
