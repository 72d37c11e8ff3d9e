import { afterAll, beforeAll, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { enqueue } from '../../core/jobs/send';
import { createRegistry } from '../../core/plugins/registry';
import { definePlugin } from '../../core/sdk';
import { pluginList } from '..';
import { runJob, takeQueued } from '../../test/kit/jobs';
import { mcpClient } from '../../test/kit/mcp';
import { setup, type Harness } from '../../test/kit/setup';
import { startReceiver } from '../../test/kit/webhook-receiver';
import { localTls } from '../../test/kit/tool-egress';
import { startNode, type RunningNode } from '../local_agent/nodes';
import { checkIncidents } from './checks';
import { readiness } from './status';
import { setStatusEgress } from './subscriptions';

let h: Harness;
let receiver: Awaited<ReturnType<typeof startReceiver>>;
const BACKLOG_S = 3600;
const nodes: RunningNode[] = [];
beforeAll(async () => {
  h = await setup({ env: { SVC_STATUS_BACKLOG_S: String(BACKLOG_S), SVC_EMAIL_FROM: 'status@shop.example.com' } });
  receiver = await startReceiver();
  const { allow: _, ...tls } = localTls();
  setStatusEgress({ ...tls, allow: ['127.0.0.1'] });
}, 120_000);
afterAll(async () => {
  for (const n of nodes) await n.stop();
  await receiver.close();
});

const check = () => checkIncidents(h.db, h.clock, BACKLOG_S);
const open = async (kind: string, as = h) =>
  (await as.call('GET', '/status/incidents?status=open&limit=100')).body.data.filter((i: any) => i.kind === kind);

/** A job that waits (no worker runs in tests), on a core queue nobody's test takes. */
async function waitingJob(ageSeconds = 0) {
  const marker = crypto.randomUUID();
  await enqueue(h.db, 'core.webhooks', [{ data: { status_test: marker } }]);
  if (ageSeconds)
    await h.db.query(
      `UPDATE pgboss.job SET start_after = now() - make_interval(secs => $2), created_on = now() - make_interval(secs => $2) WHERE data->>'status_test' = $1`,
      [marker, ageSeconds],
    );
  return { done: () => h.db.query(`DELETE FROM pgboss.job WHERE data->>'status_test' = $1`, [marker]) };
}

/** The notify jobs queued for this store, run as a worker would. */
async function deliverNotices(as = h) {
  const jobs = await takeQueued(as, 'svc_status.notify');
  if (jobs.length) await runJob(as, 'svc_status.notify', jobs);
  return jobs.length;
}

test('/healthz and /readyz answer without a credential; readiness is 503 naming a migration not applied', async () => {
  const health = await h.raw('GET', '/healthz', undefined, { 'x-api-key': '' });
  expect(health.status).toBe(200);
  expect(health.body.status).toBe('ok');
  const ready = await h.raw('GET', '/readyz', undefined, { 'x-api-key': '' });
  expect(ready.status).toBe(200);
  expect(ready.body).toMatchObject({ status: 'ready', database: 'ok', migrations: 'applied' });
  // A build with one more migration than this database has: not ready until it is applied.
  const newer = definePlugin({
    name: 'later',
    category: 'platform',
    scopes: { read: ['platform'], write: ['platform'] },
    actions: {},
    migrations: [{ id: 'later/001_new', sql: 'SELECT 1' }],
  });
  const res = await readiness(h.db, createRegistry([...pluginList, newer], { env: {} }));
  expect(res.status).toBe(503);
  expect(await res.json()).toMatchObject({ migrations: 'pending', pending: ['later/001_new'] });
});

test('workers gone: jobs wait and no worker is live, an incident opens; a live worker resolves it; subscribers hear both, signed', async () => {
  const sub = await h.call('POST', '/status/subscriptions', { channel: 'webhook', url: receiver.url('/status') });
  expect(sub.status).toBe(201);
  expect(sub.body.secret).toMatch(/^whsec_/);
  const job = await waitingJob();
  await check();
  const [incident] = await open('workers_gone');
  expect(incident).toMatchObject({ scope: 'instance', status: 'open' });
  expect((await h.call('GET', '/status')).body).toMatchObject({ status: 'degraded', workers: { live: 0 } });
  // Checking again (another process at once) opens no second one.
  await check();
  expect(await open('workers_gone')).toHaveLength(1);

  nodes.push(await startNode(h.db, h.clock, 'worker', ['core.webhooks'], { timer: false }));
  await check();
  expect(await open('workers_gone')).toHaveLength(0);
  const status = (await h.call('GET', '/status')).body;
  expect(status.workers).toEqual({ live: 1, stale: 0 });

  expect(await deliverNotices()).toBeGreaterThanOrEqual(2);
  const mine = receiver.received.filter((r) => r.body?.data?.id === incident.id);
  // Each is its own job, delivered at once: as with webhooks, order on the wire is not promised.
  expect(mine.map((r) => r.body.type).sort()).toEqual(['incident.opened', 'incident.resolved']);
  for (const r of mine) expect(r.headers['x-webhook-signature']).toBe(`sha256=${createHmac('sha256', sub.body.secret).update(r.raw).digest('hex')}`);
  expect(mine.find((r) => r.body.type === 'incident.resolved')!.body.data).toMatchObject({ status: 'resolved', kind: 'workers_gone' });
  await job.done();
});

test('a worker silent past 15 s is stale; with jobs waiting the incident opens again only after 30 s without one', async () => {
  const job = await waitingJob();
  h.clock.advance(20_000);
  await check();
  expect((await h.call('GET', '/status')).body.workers).toEqual({ live: 0, stale: 1 });
  expect(await open('workers_gone')).toHaveLength(0); // 20 s: not yet
  h.clock.advance(15_000);
  await check();
  expect(await open('workers_gone')).toHaveLength(1);
  await nodes[0].beat();
  await check();
  expect(await open('workers_gone')).toHaveLength(0);
  await job.done();
});

test('a backlog past SVC_STATUS_BACKLOG_S opens an incident that closes once the queue catches up', async () => {
  await nodes[0].beat();
  const job = await waitingJob(BACKLOG_S * 2);
  const status = (await h.call('GET', '/status')).body;
  expect(status.queue.depth).toBeGreaterThanOrEqual(1);
  expect(status.queue.lag_seconds).toBeGreaterThanOrEqual(BACKLOG_S * 2);
  await check();
  const [backlog] = await open('backlog');
  expect(backlog.details.threshold_seconds).toBe(BACKLOG_S);
  await job.done();
  await check();
  expect(await open('backlog')).toHaveLength(0);
  const resolved = (await h.call('GET', `/status/incidents?status=resolved&limit=100`)).body.data.find((i: any) => i.id === backlog.id);
  expect(resolved.resolved_at).not.toBeNull();
});

test("a webhook endpoint svc disabled is its store's incident alone, resolved when re-enabled; an email subscriber is mailed", async () => {
  await nodes[0].beat();
  const other = await setup();
  const endpoint = (await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/x', events: ['product.created'] })).body;
  const mail = await h.call('POST', '/status/subscriptions', { channel: 'email', email: 'ops@example.com' });
  expect(mail.status).toBe(201);
  expect(mail.body.secret).toBeUndefined();
  // As the delivery worker does after days of failures.
  await h.db.query(`UPDATE webhook_endpoints SET is_active = false, disabled_reason = 'Failing for 5 days.' WHERE id = $1`, [endpoint.id]);
  await check();
  const [incident] = await open('webhook_disabled');
  expect(incident).toMatchObject({ scope: 'store', details: { endpoint_id: endpoint.id } });
  expect(await open('webhook_disabled', other)).toHaveLength(0);
  expect((await other.call('GET', '/status')).body.open_incidents).toBe(0);
  // The other store's subscribers hear nothing of it.
  await other.call('POST', '/status/subscriptions', { channel: 'webhook', url: receiver.url('/other') });
  await h.call('PATCH', `/webhooks/${endpoint.id}`, { is_active: true });
  await check();
  expect(await open('webhook_disabled')).toHaveLength(0);
  expect(await takeQueued(other, 'svc_status.notify')).toHaveLength(0);
  await deliverNotices();
  const sent = (await h.call('GET', '/email/messages?limit=100')).body.data.filter(
    (m: any) => m.to?.includes?.('ops@example.com') || m.to === 'ops@example.com',
  );
  expect(sent.map((m: any) => m.subject).sort()).toEqual([`[svc] Incident: ${incident.title}`, `[svc] Resolved: ${incident.title}`].sort());
});

test('subscribe refuses a plain-http URL and a webhook channel without one', async () => {
  const http = await h.call('POST', '/status/subscriptions', { channel: 'webhook', url: 'http://hooks.example.com/x' });
  expect(http.status).toBe(400);
  expect(http.body.error.param).toBe('url');
  const none = await h.call('POST', '/status/subscriptions', { channel: 'webhook' });
  expect(none.status).toBe(400);
  expect(none.body.error.param).toBe('url');
});

test('over MCP: svc_status get_status; a key without platform scopes is refused', async () => {
  const { client } = await mcpClient(h, { key: await h.newKey(['platform:read']) });
  const r: any = await client.callTool({ name: 'svc_status', arguments: { action: 'get_status' } });
  await client.close();
  expect(r.isError).toBeFalsy();
  expect(JSON.parse(r.content[0].text)).toMatchObject({ object: 'status', database: { status: 'ok' } });
  const denied = await h.call('GET', '/status', undefined, { 'x-api-key': await h.newKey(['products:read']) });
  expect(denied.status).toBe(403);
});
