import { expect, test } from 'bun:test';
import { product, setup } from '../../test/kit/setup';
import { runCron } from '../../test/kit/jobs';
import { drain, runApprovals } from '../../test/kit/workflows';
import { mcpClient } from '../../test/kit/mcp';

const tool = (id: string, toolName: string, action: string, input: object, more: object = {}) => ({
  id,
  type: 'tool',
  tool: toolName,
  action,
  input,
  ...more,
});

test('a manual run calls its tools in order; a whole template keeps its JSON type, a condition skips a step', async () => {
  const h = await setup();
  const wf = await h.call('POST', '/workflows', {
    name: 'Make and read',
    trigger: { type: 'manual' },
    steps: [
      tool('make', 'products', 'create_product', product({ name: 'Lamp {{trigger.n}}', pricing_data: { retail: '{{trigger.price}}' } })),
      tool('read', 'products', 'get_product', { id: '{{steps.make.output.id}}' }),
      tool('never', 'products', 'delete_product', { id: '{{steps.make.output.id}}' }, { condition: 'steps.read.output.pricing_data.retail > 100' }),
    ],
  });
  expect(wf.status).toBe(201);
  const run = await h.call('POST', '/workflow-runs', { workflow_id: wf.body.id, input: { n: 7, price: 12.5 } });
  expect(run.status).toBe(201);
  expect(run.body).toMatchObject({ object: 'workflow_run', status: 'queued', trigger: { type: 'manual', data: { n: 7, price: 12.5 } } });
  await drain(h);
  const done = (await h.call('GET', `/workflow-runs/${run.body.id}`)).body;
  expect(done.status).toBe('succeeded');
  expect(done.steps.map((s: any) => s.status)).toEqual(['succeeded', 'succeeded', 'skipped']);
  expect(done.steps[0].output).toMatchObject({ name: 'Lamp 7', pricing_data: { retail: 12.5 } });
  expect(done.steps[1].output.id).toBe(done.steps[0].output.id);
  // The calls went through the tool path: audited as the workflow's.
  const ex = (await h.call('GET', `/tool-executions/${done.steps[0].execution_id}`)).body;
  expect(ex).toMatchObject({ tool: 'products', action: 'create_product', source: 'workflow', status: 'success' });
  const runs = (await h.call('GET', `/workflows/${wf.body.id}/runs`)).body;
  expect(runs.data.map((r: any) => r.id)).toEqual([run.body.id]);
});

test('an unknown template path fails the step naming it; the run names failed_step', async () => {
  const h = await setup();
  const wf = await h.call('POST', '/workflows', {
    name: 'Bad path',
    trigger: { type: 'manual' },
    steps: [tool('read', 'products', 'get_product', { id: '{{trigger.product.id}}' })],
  });
  const run = (await h.call('POST', '/workflow-runs', { workflow_id: wf.body.id, input: { other: 1 } })).body;
  await drain(h);
  const done = (await h.call('GET', `/workflow-runs/${run.id}`)).body;
  expect(done).toMatchObject({ status: 'failed', failed_step: 'read' });
  expect(done.error.message).toContain("'trigger.product.id'");
  expect(done.steps[0].status).toBe('failed');
});

test('a failing step is retried, then fails the run; a step the stored key may not call fails on its scope', async () => {
  const h = await setup();
  const missing = crypto.randomUUID();
  const wf = await h.call('POST', '/workflows', {
    name: 'Retry',
    trigger: { type: 'manual' },
    steps: [tool('read', 'products', 'get_product', { id: missing }, { retries: 2, retry_delay_seconds: 0 })],
  });
  const run = (await h.call('POST', '/workflow-runs', { workflow_id: wf.body.id })).body;
  await drain(h);
  const done = (await h.call('GET', `/workflow-runs/${run.id}`)).body;
  expect(done).toMatchObject({ status: 'failed', failed_step: 'read' });
  expect(done.steps[0]).toMatchObject({ status: 'failed', attempts: 3, error: { code: 'resource_missing' } });

  // A key revoked after it saved a workflow lends it no rights any more.
  const lender = await h.newKey(['workflows', 'products']);
  const wf3 = await h.call(
    'POST',
    '/workflows',
    { name: 'Revoked', trigger: { type: 'manual' }, steps: [tool('l', 'products', 'list_products', {})] },
    { 'x-api-key': lender },
  );
  const [saved] = await h.db.query(`SELECT principal->>'key_id' AS key_id FROM workflows WHERE id = $1`, [wf3.body.id]);
  await h.db.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [saved.key_id]);
  const run3 = (await h.call('POST', '/workflow-runs', { workflow_id: wf3.body.id })).body;
  await drain(h);
  expect((await h.call('GET', `/workflow-runs/${run3.id}`)).body).toMatchObject({ status: 'failed', error: { code: 'invalid_api_key' } });

  const narrow = { 'x-api-key': await h.newKey(['workflows']) };
  const wf2 = await h.call(
    'POST',
    '/workflows',
    { name: 'No scope', trigger: { type: 'manual' }, steps: [tool('l', 'products', 'list_products', {})] },
    narrow,
  );
  const run2 = (await h.call('POST', '/workflow-runs', { workflow_id: wf2.body.id }, narrow)).body;
  await drain(h);
  expect((await h.call('GET', `/workflow-runs/${run2.id}`)).body).toMatchObject({ status: 'failed', error: { code: 'insufficient_scope' } });
});

test('an event trigger runs on the store’s event (stored as a reaction) with the event data as trigger', async () => {
  const h = await setup();
  const other = await setup();
  const wf = await h.call('POST', '/workflows', {
    name: 'On product',
    trigger: { type: 'event', event: 'product.created' },
    steps: [tool('read', 'products', 'get_product', { id: '{{trigger.id}}' })],
  });
  expect(wf.status).toBe(201);
  const p = (await h.call('POST', '/products', product())).body;
  await other.call('POST', '/products', product()); // another store's event starts nothing here
  await drain(h);
  const runs = (await h.call('GET', `/workflows/${wf.body.id}/runs`)).body.data;
  expect(runs).toHaveLength(1);
  expect(runs[0]).toMatchObject({ status: 'succeeded', trigger: { type: 'event', data: { id: p.id } } });
  expect(runs[0].steps[0].output.id).toBe(p.id);
  expect((await other.db.query(`SELECT 1 FROM workflow_runs WHERE store_id = $1`, [other.store.id])).length).toBe(0);
  // Disabled: the type is no longer heard, nothing starts.
  await h.call('PATCH', `/workflows/${wf.body.id}`, { enabled: false });
  await h.call('POST', '/products', product());
  await drain(h);
  expect((await h.call('GET', `/workflows/${wf.body.id}/runs`)).body.data).toHaveLength(1);
});

test('a workflow its own events trigger stops past SVC_WORKFLOWS_MAX_CHAIN_DEPTH', async () => {
  const h = await setup({ env: { SVC_WORKFLOWS_MAX_CHAIN_DEPTH: '2' } });
  const wf = await h.call('POST', '/workflows', {
    name: 'Loop',
    trigger: { type: 'event', event: 'product.created' },
    steps: [tool('again', 'products', 'create_product', product({ name: 'copy of {{trigger.name}}', sku: '{{trigger.sku}}-c' }))],
  });
  await h.call('POST', '/products', product({ name: 'Seed' }));
  await drain(h);
  const runs = (await h.call('GET', `/workflows/${wf.body.id}/runs?limit=100`)).body.data;
  // The outside event starts depth 0; its run's event depth 1, then 2; the event of depth 3 starts none.
  expect(runs.map((r: any) => r.chain_depth).sort()).toEqual([0, 1, 2]);
  expect(runs.every((r: any) => r.status === 'succeeded')).toBe(true);
});

test('a delay is a job that starts later; the run waits meanwhile', async () => {
  const h = await setup();
  const wf = await h.call('POST', '/workflows', {
    name: 'Wait',
    trigger: { type: 'manual' },
    steps: [{ id: 'wait', type: 'delay', seconds: 3600 }, tool('list', 'products', 'list_products', {})],
  });
  const run = (await h.call('POST', '/workflow-runs', { workflow_id: wf.body.id })).body;
  await drain(h);
  expect((await h.call('GET', `/workflow-runs/${run.id}`)).body).toMatchObject({
    status: 'waiting',
    steps: [{ status: 'waiting' }, { status: 'pending' }],
  });
  const [job] = await h.db.query(
    `SELECT start_after > now() + interval '50 minutes' AS later FROM pgboss.job WHERE name = 'workflows.step' AND data->'input'->>'run_id' = $1`,
    [run.id],
  );
  expect(job.later).toBe(true);
  await drain(h, { dueToo: true });
  expect((await h.call('GET', `/workflow-runs/${run.id}`)).body.status).toBe('succeeded');
});

test('a step that requires approval waits, then runs once approved; a rejected one fails the run', async () => {
  const h = await setup();
  const wf = await h.call('POST', '/workflows', {
    name: 'Gated',
    trigger: { type: 'manual' },
    steps: [tool('make', 'products', 'create_product', product({ name: 'Gated', sku: 'G-{{trigger.n}}' }), { requires_approval: true })],
  });
  const run = (await h.call('POST', '/workflow-runs', { workflow_id: wf.body.id, input: { n: 1 } })).body;
  await drain(h);
  const waiting = (await h.call('GET', `/workflow-runs/${run.id}`)).body;
  expect(waiting).toMatchObject({ status: 'waiting', steps: [{ status: 'waiting' }] });
  const exId = waiting.steps[0].execution_id;
  expect((await h.call('GET', `/tool-executions/${exId}`)).body.status).toBe('pending_approval');
  expect((await h.call('POST', `/tool-executions/${exId}/approve`, {})).status).toBe(200);
  await runApprovals(h, exId);
  await drain(h, { dueToo: true });
  const done = (await h.call('GET', `/workflow-runs/${run.id}`)).body;
  expect(done.status).toBe('succeeded');
  expect(done.steps[0].output.name).toBe('Gated');

  const run2 = (await h.call('POST', '/workflow-runs', { workflow_id: wf.body.id, input: { n: 2 } })).body;
  await drain(h);
  const ex2 = (await h.call('GET', `/workflow-runs/${run2.id}`)).body.steps[0].execution_id;
  await h.call('POST', `/tool-executions/${ex2}/reject`, { reason: 'not today' });
  await drain(h, { dueToo: true });
  expect((await h.call('GET', `/workflow-runs/${run2.id}`)).body).toMatchObject({
    status: 'failed',
    failed_step: 'make',
    error: { code: 'approval_rejected' },
  });
});

test('past the plan’s runs per hour a manual trigger is 429 and an event run is dropped and counted', async () => {
  const h = await setup({ plan: 'free' });
  const manual = (await h.call('POST', '/workflows', { name: 'M', trigger: { type: 'manual' }, steps: [{ id: 'w', type: 'delay', seconds: 1 }] }))
    .body;
  const onEvent = (
    await h.call('POST', '/workflows', {
      name: 'E',
      trigger: { type: 'event', event: 'product.created' },
      steps: [{ id: 'w', type: 'delay', seconds: 1 }],
    })
  ).body;
  // The free plan's 100 runs of this hour, already spent.
  await h.db.query(
    `INSERT INTO workflow_runs (id, store_id, workflow_id, status, trigger_type, trigger_data, definition, step_states, created_at, updated_at)
     SELECT gen_random_uuid(), $1, $2, 'succeeded', 'manual', '{}', '{"steps": []}', '[]', $3, $3 FROM generate_series(1, 100)`,
    [h.store.id, manual.id, h.clock.now()],
  );
  const refused = await h.call('POST', '/workflow-runs', { workflow_id: manual.id });
  expect(refused.status).toBe(429);
  expect(refused.body.error.type).toBe('rate_limit_error');
  await h.call('POST', '/products', product());
  await drain(h);
  expect((await h.call('GET', `/workflows/${onEvent.id}`)).body.dropped_runs).toBe(1);
  expect((await h.call('GET', `/workflows/${onEvent.id}/runs`)).body.data).toHaveLength(0);
});

test('definitions are checked: 50 steps at most, unique ids, a real action, a five-field cron; 100 workflows per store', async () => {
  const h = await setup();
  const base = { name: 'x', trigger: { type: 'manual' } };
  const step = (i: number) => ({ id: `s${i}`, type: 'delay', seconds: 1 });
  expect((await h.call('POST', '/workflows', { ...base, steps: Array.from({ length: 51 }, (_, i) => step(i)) })).status).toBe(400);
  expect((await h.call('POST', '/workflows', { ...base, steps: [step(1), step(1)] })).body.error.param).toBe('steps[1].id');
  expect((await h.call('POST', '/workflows', { ...base, steps: [tool('a', 'products', 'nope', {})] })).body.error.param).toBe('steps[0].action');
  const cron = await h.call('POST', '/workflows', { ...base, trigger: { type: 'cron', cron: '* * * * * *' }, steps: [step(1)] });
  expect(cron.body.error.param).toBe('trigger.cron');
  await h.db.query(
    `INSERT INTO workflows (id, store_id, name, trigger, steps, principal, created_at, updated_at)
     SELECT gen_random_uuid(), $1, 'filler', '{"type":"manual"}', '[]', '{}', $2, $2 FROM generate_series(1, 100)`,
    [h.store.id, h.clock.now()],
  );
  expect((await h.call('POST', '/workflows', { ...base, steps: [step(1)] })).status).toBe(400);
});

test('a cron workflow runs once in its minute, read in the store timezone', async () => {
  const h = await setup({ now: '2026-03-02T14:30:20Z' });
  expect((await h.call('PATCH', '/settings', { timezone: 'Europe/Paris' })).status).toBe(200);
  // 15:30 in Paris (UTC+1 in March before the change) is 14:30 UTC.
  const wf = (
    await h.call('POST', '/workflows', { name: 'C', trigger: { type: 'cron', cron: '30 15 * * *' }, steps: [{ id: 'w', type: 'delay', seconds: 1 }] })
  ).body;
  const notNow = (
    await h.call('POST', '/workflows', {
      name: 'C2',
      trigger: { type: 'cron', cron: '30 14 * * *' },
      steps: [{ id: 'w', type: 'delay', seconds: 1 }],
    })
  ).body;
  await runCron(h, 'workflows.cron_tick');
  await runCron(h, 'workflows.cron_tick'); // a second tick in the same minute starts nothing more
  const runs = (await h.call('GET', `/workflows/${wf.id}/runs`)).body.data;
  expect(runs).toHaveLength(1);
  expect(runs[0].trigger).toEqual({ type: 'cron', data: { scheduled_at: '2026-03-02T14:30:00.000Z' } });
  expect((await h.call('GET', `/workflows/${notNow.id}/runs`)).body.data).toHaveLength(0);
});

test('each workflows tool is one MCP call', async () => {
  const h = await setup();
  const { client } = await mcpClient(h);
  const call = async (name: string, args: object) => {
    const out: any = await client.callTool({ name, arguments: args as any });
    expect(out.isError ?? false).toBe(false);
    return out.structuredContent;
  };
  try {
    const wf = await call('workflows', {
      action: 'create_workflow',
      name: 'Over MCP',
      trigger: { type: 'manual' },
      steps: [tool('l', 'products', 'list_products', {})],
    });
    expect((await call('workflows', { action: 'list_workflows' })).data.map((w: any) => w.id)).toEqual([wf.id]);
    expect((await call('workflows_get_workflow', { id: wf.id })).name).toBe('Over MCP');
    expect((await call('workflows_update_workflow', { id: wf.id, name: 'Renamed' })).name).toBe('Renamed');
    const run = await call('workflows', { action: 'trigger_workflow', workflow_id: wf.id, input: { a: 1 } });
    await drain(h);
    expect(await call('workflows', { action: 'get_status', run_id: run.id })).toMatchObject({
      status: 'succeeded',
      steps: [{ status: 'succeeded' }],
    });
    expect((await call('workflows_list_runs', { id: wf.id })).data).toHaveLength(1);
    expect(await call('workflows_delete_workflow', { id: wf.id })).toMatchObject({ deleted: true });
  } finally {
    await client.close();
  }
});
