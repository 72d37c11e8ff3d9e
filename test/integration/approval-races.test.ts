/**
 * The approval gate (SPEC 3.1, 6.4) under races: decisions racing each other and the timeout
 * jobs, and the run job. Jobs run directly as the pg-boss worker would, with the harness's manual
 * clock standing in for time. The state table for one call is approvals.test.ts.
 */
import { describe, expect, test } from 'bun:test';
import { product } from '../kit/setup';
import { createKey, revokeKey } from '../../core/keys';
import type { Clock } from '../../core/clock';
import { approveExecution, RUN_LEASE_MS } from '../../core/tools/approvals';
import { callTool, resolveTarget } from '../../core/tools/call';
import type { ToolCaller } from '../../core/tools/types';
import { world, MIN, useWorlds } from '../kit/approvals';

useWorlds();

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
      registry: w.h.registry,
      principal: { kind: 'api_key', keyId, storeId: w.h.store.id, scopes: ['products', 'ai'], livemode: false },
      store: { id: w.h.store.id, name: 'Test store', plan: 'pro' } as ToolCaller['store'],
      source: 'agent',
      agent: { id: agent.id, name: agent.name, toolOverrides: (await w.h.call('GET', `/agents/${agent.id}/tool-config`)).body.tool_overrides },
    };
    const ids = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const target = await resolveTarget(w.h.db, w.h.registry, w.h.store.id, 'products', {
          action: 'create_product',
          ...product({ name: `P${i}` }),
        });
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
      .transaction((tx) => approveExecution({ db: tx, clock, registry: w.h.registry }, w.h.store.id, id, { keyId: 'human' }))
      .then(
        () => 'approved',
        (e) => e.code as string,
      );

  /**
   * The approval window closes; per execution, a human approving just before it and the timeout
   * job start together, the job with a head start of 0 to 2 ms (it reads the row before deciding):
   * the humans' answers. Pairs run a few at a time, so both sides reach the row together rather
   * than queueing for a pooled connection.
   */
  async function humanVersusTimeout(w: Awaited<ReturnType<typeof world>>, ids: string[]) {
    w.h.clock.advance(MIN);
    const justBefore = { now: () => new Date(w.h.clock.now().getTime() - 1) };
    const human = (id: string) => humanApprove(w, justBefore, id);
    const job = (id: string) => w.worker.run!([{ execution_id: id, store_id: w.h.store.id, kind: 'timeout' }]);
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
    const human = await humanVersusTimeout(w, ids);
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
    const results = await humanVersusTimeout(w, ids);
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
    await revokeKey({ db: w.h.db, clock: w.h.clock, afterCommit: (fn) => fn() }, w.h.store.id, keyId);
    await w.runJobs(id, 'run');
    expect(await w.exec(id)).toMatchObject({ status: 'error', output: { error: { code: 'invalid_api_key' } } });
    expect(await w.productCount()).toBe(0);
  });

  test('a run job whose worker died mid-run: not run again while its claim holds, run by the retry after the lease', async () => {
    const { w, ids } = await pendingCreates(1, { requires_approval: true });
    const [id] = ids;
    expect((await w.h.call('POST', `/tool-executions/${id}/approve`, {})).status).toBe(200);
    // A worker claimed the run and died before recording it (the claim is all it left behind).
    await w.h.db.query(`UPDATE tool_executions SET approval = approval || $2::text::jsonb WHERE id = $1`, [
      id,
      JSON.stringify({ run_claimed_at: w.h.clock.now().toISOString() }),
    ]);
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
