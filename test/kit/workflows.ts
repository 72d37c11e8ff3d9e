/** Test helpers of the workflows tests: run the plugin's queued jobs as a worker would. Not a test file. */
import { runJob } from './jobs';
import type { Harness } from './setup';
import { approvalTimeoutJob } from '../../workers/approvals';
import { APPROVAL_QUEUE } from '../../core/tools/executions';

/** Takes this store's due workflow jobs (steps, reactions) and runs them, until none is left; later ones (delays) stay. */
export async function drain(h: Harness, opts: { dueToo?: boolean } = {}) {
  for (let i = 0; i < 200; i++) {
    const rows = await h.db.query<{ id: string; name: string; data: any }>(
      `DELETE FROM pgboss.job WHERE name IN ('workflows.step', 'workflows.on')
         AND (data->>'store_id' = $1 OR data->'input'->>'store_id' = $1) AND ($2 OR start_after <= now())
       RETURNING id, name, data`,
      [h.store.id, opts.dueToo ?? false],
    );
    if (!rows.length) return;
    for (const r of rows) await runJob(h, r.name, [{ id: r.id, data: r.data }]);
  }
  throw new Error('workflow jobs never ran out');
}

/** Runs the approval worker's jobs for one execution (an approved call runs there). */
export async function runApprovals(h: Harness, executionId: string) {
  const rows = await h.db.query<{ id: string; data: any }>(
    `DELETE FROM pgboss.job WHERE name = $1 AND data->>'execution_id' = $2 AND data->>'kind' = 'run' RETURNING id, data`,
    [APPROVAL_QUEUE, executionId],
  );
  const def = approvalTimeoutJob(h.db, h.clock, h.registry);
  for (const r of rows) {
    if (def.runEach) await def.runEach([{ id: r.id, data: r.data, retryCount: 0, retryLimit: 5 }]);
    else await def.run!([r.data]);
  }
}
