/**
 * The approval gate (SPEC 3.1, 6.4): every row of the state table for agent calls (the races are
 * approval-races.test.ts). Jobs run directly as the pg-boss worker would, with the
 * harness's manual clock standing in for time.
 */
import { describe, expect, test } from 'bun:test';
import { setup } from '../kit/setup';
import { events, openai, USAGE } from '../kit/fake-models';
import { deliveryOptions } from '../kit/webhook-receiver';
import { deliver } from '../../workers/webhooks';
import { world, createCall, MIN, useWorlds } from '../kit/approvals';

useWorlds();

describe('SPEC 3.1: a gated agent call', () => {
  test('is held: pending_approval, approval_required on the stream, keep-alives, a timeout job, a webhook event for approvers', async () => {
    const call = createCall();
    const w = await world([openai.tools(call), openai.text('Created.')]);
    const { h } = w;
    const rx = await w.subscribe();
    const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'] } });

    const chat = await w.chat(agent.id, 'Add a lamp');
    const held = await chat.held();
    expect(held).toEqual({
      type: 'approval_required',
      tool: 'products',
      execution_id: expect.any(String),
      message: expect.stringContaining('products.create_product'),
    });
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
      approval: {
        gated_by: 'agent',
        timeout_minutes: 30,
        timeout_action: 'reject',
        group: 'default',
        escalated: false,
        decision: null,
        expires_at: '2026-04-01T00:30:00.000Z',
      },
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
    expect(ev).toMatchObject({
      type: 'tool_execution.pending_approval',
      data: {
        id,
        tool: 'products',
        action: 'create_product',
        input: { sku: call.input.sku },
        agent_id: agent.id,
        agent_name: 'Clerk',
        status: 'pending_approval',
      },
    });
    const [delivery] = await h.db.query<{ id: string }>(
      `SELECT id FROM webhook_deliveries WHERE store_id = $1 AND event_type = 'tool_execution.pending_approval'`,
      [h.store.id],
    );
    expect((await deliver(h.db, h.clock, delivery.id, deliveryOptions())).outcome).toBe('succeeded');
    expect(rx.received[0].headers['x-webhook-event']).toBe('tool_execution.pending_approval');
    expect(rx.received[0].body).toMatchObject({ id: ev.id, data: { id, tool: 'products', input: { name: 'Gated Lamp' }, agent_id: agent.id } });

    // Approve: the decision is recorded, the tool runs in the run job, the agent goes on with the result.
    h.clock.advance(5 * MIN);
    const ok = await h.call('POST', `/tool-executions/${id}/approve`, { comment: 'fine' });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({
      id,
      status: 'approved',
      approval: { decision: 'approved', comment: 'fine', decided_by: expect.any(String), decided_at: '2026-04-01T00:05:00.000Z' },
    });
    expect(await w.productCount()).toBe(0);
    expect(await w.runJobs(id, 'run')).toBe(1);
    const text = await chat.finished;
    expect(events(text)).toEqual([
      { type: 'tool_use', tool: 'products', input: call.input },
      expect.objectContaining({ type: 'approval_required' }),
      { type: 'tool_result', tool: 'products', execution_id: id, status: 'success', result: expect.objectContaining({ sku: call.input.sku }) },
      { type: 'text', text: 'Created.' },
      { type: 'end', usage: { input_tokens: 2 * USAGE.input_tokens, output_tokens: 2 * USAGE.output_tokens } },
    ]);
    const [created] = (await h.call('GET', '/products')).body.data;
    expect(created.sku).toBe(call.input.sku);
    expect(w.sentToModel(1)).toContain(created.id); // the model received the tool's result
    const done = await w.exec(id);
    expect(done).toMatchObject({ status: 'success', output: { id: created.id, sku: call.input.sku }, completed_at: '2026-04-01T00:05:00.000Z' });
    expect(Number.isInteger(done.duration_ms) && done.duration_ms >= 0).toBe(true);

    // A second decision is a conflict; a late job changes nothing.
    for (const [path, body] of [
      ['approve', {}],
      ['reject', { reason: 'too late' }],
    ] as const) {
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
    const seen = events(await chat.finished);
    expect(seen.map((e) => e.type)).toEqual(['tool_use', 'approval_required', 'tool_result', 'text', 'end']);
    expect(seen[2]).toMatchObject({
      execution_id: id,
      status: 'rejected',
      error: { code: 'approval_rejected', message: expect.stringContaining('Not before the sale') },
    });
    expect(w.sentToModel(1)).toContain('Not before the sale');
    expect(w.sentToModel(1)).toContain('approval_rejected');
    expect(await w.exec(id)).toMatchObject({
      status: 'rejected',
      output: { error: { code: 'approval_rejected' } },
      completed_at: expect.any(String),
    });
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
    expect(await w.exec(id)).toMatchObject({
      status: 'rejected',
      output: { error: { code: 'approval_timeout' } },
      approval: { decision: 'expired', decided_by: 'timeout' },
    });
    await chat.finished;
    expect(w.sentToModel(1)).toContain('approval_timeout');
    expect(await w.productCount()).toBe(0);
    const rejectLate = await w.h.call('POST', `/tool-executions/${id}/reject`, { reason: 'x' });
    expect(rejectLate.status).toBe(409);
  });

  test('the timeout message reads right for a one-minute window: "within 1 minute"', async () => {
    const w = await world([openai.tools(createCall()), openai.text('It timed out.')]);
    const agent = await w.agent(['products'], { products: { requires_approval: ['create_product'], approval_timeout_minutes: 1 } });
    const chat = await w.chat(agent.id, 'Add a lamp');
    const { execution_id: id } = await chat.held();
    w.h.clock.advance(MIN);
    await w.runJobs(id, 'timeout');
    expect((await w.exec(id)).output.error.message).toBe('No approver decided within 1 minute; the call was not run.');
    await chat.finished;
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
    expect(done).toMatchObject({
      status: 'success',
      output: { name: 'Auto Lamp' },
      approval: { decision: 'approved_on_timeout', decided_by: 'timeout' },
    });
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
    expect(await w.exec(id)).toMatchObject({
      status: 'rejected',
      output: { error: { code: 'approval_timeout' } },
      approval: { escalated: true, decision: 'expired' },
    });
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
    const other = await setup();
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
