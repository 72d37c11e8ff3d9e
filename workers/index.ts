import type { Clock } from '../core/clock';
import type { Db } from '../core/db/types';
import type { Registry } from '../core/plugins/registry';
import { pluginJobs, type JobDef } from '../core/jobs/run';
import { MAINTENANCE_CRON, MAINTENANCE_QUEUE, runMaintenance } from './maintenance';
import { webhookJob, type DeliveryOptions } from './webhooks';
import { approvalTimeoutJob } from './approvals';

/**
 * Every job of this process: the core's (maintenance, webhook deliveries, approval timeouts and
 * runs), then each plugin's declared jobs. The composition root (core/cli.ts) hands the list to
 * the core; the core never imports this folder.
 */
export function allJobs(db: Db, clock: Clock, registry: Registry, opts: { delivery?: DeliveryOptions } = {}): JobDef[] {
  return [
    { queue: MAINTENANCE_QUEUE, cron: MAINTENANCE_CRON, run: () => runMaintenance(db, clock) },
    webhookJob(db, clock, opts.delivery),
    approvalTimeoutJob(db, clock, registry),
    ...pluginJobs(db, clock, registry),
  ];
}
