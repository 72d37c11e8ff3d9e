import { afterEach, expect, test } from 'bun:test';
import { setup } from '../kit/setup';
import { mcpClient } from '../kit/mcp';
import { runJob, takeQueued } from '../kit/jobs';
import { countGate, fixtureJobs } from '../fixtures/jobs';

/** Long work a client follows: GET STORE/jobs/{id}, cancel, and the tool's derived get_job / cancel_job. Both backends. */

afterEach(() => void (countGate.hold = undefined));

const QUEUE = 'fixture_jobs.count';

/** Runs the count's queued job, holding it at `pauseAt` until the returned `release` is called. */
function gate(pauseAt: number) {
  let release!: () => void;
  let reached!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const atPause = new Promise<void>((r) => (reached = r));
  countGate.hold = async (step) => {
    if (step !== pauseAt) return;
    reached();
    await released;
  };
  return { atPause, release };
}

test('an action that starts a job answers 202 with it; REST and MCP get_job follow it from queued through running (with progress) to succeeded', async () => {
  const h = await setup({ extra: [fixtureJobs] });
  await h.call('POST', '/webhooks', { url: 'https://hooks.example.com/counts', events: ['fixture_count.finished'] });
  const started = await h.call('POST', '/fixture-jobs/count', { to: 3 });
  expect(started.status).toBe(202);
  expect(started.body).toMatchObject({
    object: 'job',
    type: 'fixture_jobs.count',
    status: 'queued',
    progress: { done: 0, total: null },
    result: null,
    error: null,
    started_at: null,
    finished_at: null,
    url: `${h.base}/jobs/${started.body.id}`,
  });
  const id = started.body.id;
  expect((await h.raw('GET', started.body.url)).body.status).toBe('queued');
  const mcp = await mcpClient(h);
  const viaMcp = async () =>
    JSON.parse(((await mcp.client.callTool({ name: 'fixture_jobs', arguments: { action: 'get_job', id } })) as any).content[0].text);
  expect((await viaMcp()).status).toBe('queued');

  const { atPause, release } = gate(2);
  const running = runJob(h, QUEUE, await takeQueued(h, QUEUE));
  await atPause;
  expect((await h.call('GET', `/jobs/${id}`)).body).toMatchObject({ status: 'running', progress: { done: 1, total: 3 }, finished_at: null });
  expect(await viaMcp()).toMatchObject({ status: 'running', progress: { done: 1, total: 3 } });
  release();
  expect((await running)![0].status).toBe('completed');
  const done = (await h.call('GET', `/jobs/${id}`)).body;
  expect(done).toMatchObject({ status: 'succeeded', progress: { done: 3, total: 3 }, result: { counted: 3 }, error: null });
  expect(done.started_at).not.toBeNull();
  expect(done.finished_at).not.toBeNull();
  expect(await viaMcp()).toEqual(done);
  // What the job emitted is stored for the store's subscriber.
  const events = await h.db.query<{ body: string }>(`SELECT body FROM events WHERE store_id = $1 AND type = 'fixture_count.finished'`, [h.store.id]);
  expect(events.map((e) => JSON.parse(e.body).data)).toEqual([{ object: 'count', counted: 3 }]);
  await mcp.client.close();
});

test('cancel: a queued job never runs; a running one stops at its next progress; a finished one is answered as it is', async () => {
  const h = await setup({ extra: [fixtureJobs] });
  const queued = (await h.call('POST', '/fixture-jobs/count', { to: 2 })).body;
  const cancelled = await h.call('POST', `/jobs/${queued.id}/cancel`);
  expect(cancelled.status).toBe(200);
  expect(cancelled.body).toMatchObject({ id: queued.id, status: 'cancelled' });
  let steps = 0;
  countGate.hold = async () => void steps++;
  await runJob(h, QUEUE, await takeQueued(h, QUEUE));
  expect(steps).toBe(0);
  expect((await h.call('GET', `/jobs/${queued.id}`)).body.status).toBe('cancelled');

  // Over MCP, while it runs.
  const other = (await h.call('POST', '/fixture-jobs/count', { to: 3 })).body;
  const { atPause, release } = gate(2);
  const running = runJob(h, QUEUE, await takeQueued(h, QUEUE));
  await atPause;
  const mcp = await mcpClient(h);
  const answer: any = await mcp.client.callTool({ name: 'fixture_jobs', arguments: { action: 'cancel_job', id: other.id } });
  expect(JSON.parse(answer.content[0].text)).toMatchObject({ status: 'cancelled', progress: { done: 1, total: 3 } });
  release();
  await running;
  expect((await h.call('GET', `/jobs/${other.id}`)).body).toMatchObject({ status: 'cancelled', progress: { done: 1, total: 3 }, result: null });
  await mcp.client.close();

  // A finished job stays as it finished.
  const finished = (await h.call('POST', '/fixture-jobs/count', { to: 1 })).body;
  await runJob(h, QUEUE, await takeQueued(h, QUEUE));
  expect((await h.call('POST', `/jobs/${finished.id}/cancel`)).body.status).toBe('succeeded');
});

test("another store's job is 404 over REST and MCP, and a key without the job's plugin's scopes cannot read it", async () => {
  const h = await setup({ extra: [fixtureJobs] });
  const other = await setup({ extra: [fixtureJobs] });
  const id = (await h.call('POST', '/fixture-jobs/count', { to: 2 })).body.id;
  for (const [method, path] of [
    ['GET', `/jobs/${id}`],
    ['POST', `/jobs/${id}/cancel`],
  ] as const) {
    const r = await other.call(method, path);
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
  }
  const mcp = await mcpClient(other);
  const answer: any = await mcp.client.callTool({ name: 'fixture_jobs', arguments: { action: 'get_job', id } });
  expect(answer.isError).toBe(true);
  expect(answer.content[0].text).toContain('No such job');
  await mcp.client.close();
  expect((await other.call('GET', '/jobs')).body.data.map((j: any) => j.id)).not.toContain(id);

  const narrow = await h.newKey(['orders:read']);
  expect((await h.call('GET', `/jobs/${id}`, undefined, { 'x-api-key': narrow })).status).toBe(403);
  expect((await h.call('GET', '/jobs', undefined, { 'x-api-key': narrow })).body.data).toEqual([]);
  expect((await h.call('GET', `/jobs/${id}`)).body.status).toBe('queued'); // untouched
});
