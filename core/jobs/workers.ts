import type { QueueOptions, WorkOptions } from 'pg-boss';
import type { Clock } from '../clock';
import { systemClock } from '../clock';
import type { Db } from '../db/types';
import type { PluginDef } from '../plugins/contract';
import { createBoss, WORK_DEFAULTS } from './boss';
import { MAINTENANCE_CRON, MAINTENANCE_QUEUE, runMaintenance } from '../../workers/maintenance';
import { webhookJob, type DeliveryOptions } from '../../workers/webhooks';
import { approvalTimeoutJob } from '../../workers/approvals';

export interface JobDef {
  queue: string;
  /** Runs a batch; a throw fails the batch's jobs, which pg-boss retries. */
  run: (data: unknown[]) => Promise<void>;
  cron?: string;
  /** Queue settings (expiry, retries), applied when the queue is installed. */
  options?: QueueOptions;
  /** Overrides WORK_DEFAULTS for this queue (batch size, polling). */
  work?: Partial<WorkOptions>;
}

/** The core's jobs, then each plugin's declared jobs under `<plugin>.<name>` queues. */
export function coreJobs(db: Db, clock: Clock, opts: { delivery?: DeliveryOptions; plugins?: PluginDef[] } = {}): JobDef[] {
  return [
    { queue: MAINTENANCE_QUEUE, cron: MAINTENANCE_CRON, run: () => runMaintenance(db, clock) },
    webhookJob(db, clock, opts.delivery),
    approvalTimeoutJob(db, clock, opts.plugins ?? []),
    ...(opts.plugins ?? []).flatMap((p) =>
      (p.jobs ?? []).map((j) => ({ queue: `${p.name}.${j.name}`, cron: j.cron, run: (batch: unknown[]) => j.run({ db, clock }, batch) })),
    ),
  ];
}

/**
 * Creates pg-boss's schema and the core queues if missing, and brings queue settings up to date.
 * Every process that opens the database runs it (after migrations): an API-only process enqueues
 * webhook deliveries in its transactions, so the queues must exist before any worker has started.
 */
export async function installJobs(db: Db, plugins: PluginDef[] = []): Promise<void> {
  const boss = createBoss(db, { supervise: false });
  await boss.start();
  try {
    for (const job of coreJobs(db, systemClock, { plugins })) {
      await boss.createQueue(job.queue, job.options);
      if (job.options) await boss.updateQueue(job.queue, job.options);
    }
  } finally {
    await boss.stop({ close: false, graceful: false });
  }
}

/**
 * `svc serve --role worker|all`: pg-boss handlers in this process, on the same database. Stopping
 * is graceful: no new fetches, in-flight jobs finish (or are failed after the timeout, which
 * spends one of their retries: the next worker runs them again).
 */
export async function startWorkers(db: Db, jobs: JobDef[], log: (line: string) => void) {
  const boss = createBoss(db, { supervise: true, schedule: true });
  boss.on('error', (e: Error) => log(`jobs: ${e.message}`));
  await boss.start();
  for (const job of jobs) {
    await boss.createQueue(job.queue, job.options);
    await boss.work(job.queue, { ...WORK_DEFAULTS, ...job.work }, async (batch) => job.run(batch.map((j) => j.data)));
    if (job.cron) await boss.schedule(job.queue, job.cron);
  }
  log(`workers: ${jobs.map((j) => j.queue).join(', ')}`);
  return {
    boss,
    /** Jobs in hand get `timeoutMs` to finish (pg-boss's floor is 1 s); then pg-boss fails them, and they are retried. */
    stop: (timeoutMs = 30_000) => boss.stop({ graceful: true, timeout: timeoutMs }),
  };
}
