import type { Clock } from '../clock';
import type { Db } from '../db/types';
import { createBoss, WORK_DEFAULTS } from './boss';
import { MAINTENANCE_CRON, MAINTENANCE_QUEUE, runMaintenance } from '../../workers/maintenance';

export interface JobDef {
  queue: string;
  /** Runs a batch; a throw fails the batch's jobs, which pg-boss retries. */
  run: (data: unknown[]) => Promise<void>;
  cron?: string;
}

/** The core's jobs; plugins' jobs join this list as they arrive (webhook delivery next). */
export function coreJobs(db: Db, clock: Clock): JobDef[] {
  return [{ queue: MAINTENANCE_QUEUE, cron: MAINTENANCE_CRON, run: () => runMaintenance(db, clock) }];
}

/**
 * `svc serve --role worker|all`: pg-boss handlers in this process, on the same database. Stopping
 * is graceful: no new fetches, in-flight jobs finish (or are released after the timeout and
 * retried elsewhere).
 */
export async function startWorkers(db: Db, jobs: JobDef[], log: (line: string) => void) {
  const boss = createBoss(db, { supervise: true, schedule: true });
  boss.on('error', (e: Error) => log(`jobs: ${e.message}`));
  await boss.start();
  for (const job of jobs) {
    await boss.createQueue(job.queue);
    await boss.work(job.queue, WORK_DEFAULTS, async (batch) => job.run(batch.map((j) => j.data)));
    if (job.cron) await boss.schedule(job.queue, job.cron);
  }
  log(`workers: ${jobs.map((j) => j.queue).join(', ')}`);
  return {
    boss,
    stop: () => boss.stop({ graceful: true, timeout: 30_000 }),
  };
}
