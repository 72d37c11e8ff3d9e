import type { Db } from '../core/db/types';
import type { Clock } from '../core/clock';
import type { Registry } from '../core/plugins/registry';
import type { JobDef } from '../core/jobs/run';
import { APPROVAL_QUEUE, type ApprovalJob } from '../core/tools/executions';
import { expireExecution, runApproved } from '../core/tools/approvals';

/**
 * Approval work (SPEC 3.1): a timeout job per gated execution, due when its window closes, and a
 * run job per approved call. Decisions are compare-and-set on the row, so a timeout racing a human
 * decision, or a retried job, decides nothing twice.
 */
export function approvalTimeoutJob(db: Db, clock: Clock, registry: Registry): JobDef {
  return {
    queue: APPROVAL_QUEUE,
    // A timed-out call may run a tool (timeout_action approve): up to its 10 s limit, and more.
    options: { expireInSeconds: 120, retryLimit: 10, retryDelay: 10, deleteAfterSeconds: 24 * 3600 },
    run: async (batch) => {
      const deps = { db, clock, registry };
      for (const job of batch as ApprovalJob[])
        if (job.kind === 'run') await runApproved(deps, job.store_id, job.execution_id);
        else await expireExecution(deps, job.store_id, job.execution_id);
    },
  };
}
