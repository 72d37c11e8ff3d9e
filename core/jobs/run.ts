import type { QueueOptions, WorkOptions } from 'pg-boss';
import type { Clock } from '../clock';
import type { Db } from '../db/types';
import type { Registry } from '../plugins/registry';
import { createLogger } from '../log';
import { createBoss, WORK_DEFAULTS } from './boss';

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

/** Each plugin's declared jobs, under `<plugin>.<name>` queues (the core's own are in workers/). */
export function pluginJobs(db: Db, clock: Clock, registry: Registry): JobDef[] {
  const log = createLogger();
  return registry.plugins.flatMap((p) =>
    (p.jobs ?? []).map((j) => ({
      queue: `${p.name}.${j.name}`,
      cron: j.cron,
      run: (batch: unknown[]) =>
        j.run({ db, clock, registry, log: log.child({ plugin: p.name, job: j.name }), config: registry.configOf(p.name) }, batch),
    })),
  );
}

/**
 * Creates pg-boss's schema and the core queues if missing, and brings queue settings up to date.
 * Every process that opens the database runs it (after migrations): an API-only process enqueues
 * webhook deliveries in its transactions, so the queues must exist before any worker has started.
 */
export async function installJobs(db: Db, jobs: JobDef[]): Promise<void> {
  const boss = createBoss(db, { supervise: false });
  await boss.start();
  try {
    for (const job of jobs) {
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
