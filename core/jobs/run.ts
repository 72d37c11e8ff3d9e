import type { JobResult, JobWithMetadata, PgBoss, QueueOptions, WorkOptions } from 'pg-boss';
import type { Clock } from '../clock';
import type { Db } from '../db/types';
import type { Registry } from '../plugins/contract';
import type { JobSpec, PluginDef, Store } from '../plugins/contract';
import { createLogger, errorFields, type Logger } from '../log';
import { createBoss, WORK_DEFAULTS } from './boss';
import { wakeWorkers } from './wake';
import { SvcError } from '../errors';
import { jobContext, runAfterCommit, validateInput, writeJobEvents, type CallerDeps, type JobData } from '../plugins/invoke';
import { reactionQueue } from '../events/outbox';
import type { EventOrigin } from '../events/types';
import { claimJob, failJob, finishJob, recordProgress } from './tracked';
import { tracing, type TracedOutcome } from '../plugins/telemetry';

/** One pg-boss job as a worker holds it (the fields the runner reads). */
export type HeldJob = Pick<JobWithMetadata<any>, 'id' | 'data' | 'retryCount' | 'retryLimit'>;

export interface JobDef {
  queue: string;
  /** Runs a batch; a throw fails the batch's jobs, which pg-boss retries. */
  run?: (data: unknown[]) => Promise<void>;
  /** Runs each job of a batch on its own and answers each one's outcome (pg-boss `perJobResults`). */
  runEach?: (jobs: HeldJob[]) => Promise<JobResult[]>;
  cron?: string;
  /** Queue settings (expiry, retries), applied when the queue is installed. */
  options?: QueueOptions;
  /** Overrides WORK_DEFAULTS for this queue (batch size, polling). */
  work?: Partial<WorkOptions>;
}

/** A declared job's retries: `retries` attempts (default 5), 5 s doubling up to 10 minutes apart. */
const retrying = (retries = 5): QueueOptions => ({ retryLimit: retries, retryBackoff: true, retryDelay: 5, retryDelayMax: 600 });

/** Thrown by ctx.progress once the job was cancelled: the runner ends it quietly. */
class Cancelled extends Error {}

const stores = async (db: Db, id: string) => (await db.query<Store>('SELECT id, name, plan FROM stores WHERE id = $1', [id]))[0];

/**
 * Each plugin's declared jobs, on `<plugin>.<name>` queues, and its reactions on `<plugin>.on`
 * (the core's own jobs are in workers/). Every job runs with an action's ctx, as its plugin.
 */
export function pluginJobs(db: Db, clock: Clock, registry: Registry, opts: { shutdown?: AbortSignal; log?: Logger } = {}): JobDef[] {
  const { shutdown } = opts;
  const log = opts.log ?? createLogger();
  const deps = (p: PluginDef, job: string): CallerDeps => ({ db, clock, registry, shutdown, log: log.child({ plugin: p.name, job }) });
  return registry.plugins.flatMap((p) => [
    ...Object.entries(p.jobs ?? {}).map(([name, spec]): JobDef => {
      const queue = `${p.name}.${name}`;
      if (spec.batch) return { queue, cron: spec.cron, run: (batch) => runBatch(p, spec, deps(p, name), batch) };
      return {
        queue,
        cron: spec.cron,
        options: { ...retrying(spec.retries), ...(spec.heartbeatSeconds ? { heartbeatSeconds: spec.heartbeatSeconds } : {}) },
        runEach: (jobs) => eachOf(jobs, (j) => traced(queue, j, () => runOne(p, name, spec, deps(p, name), j))),
      };
    }),
    ...(p.on || p.onSubscribed
      ? [
          {
            queue: reactionQueue(p.name),
            options: retrying(),
            runEach: (jobs: HeldJob[]) => eachOf(jobs, (j) => traced(reactionQueue(p.name), j, () => react(p, deps(p, 'on'), j))),
          },
        ]
      : []),
  ]);
}

async function eachOf(jobs: HeldJob[], run: (j: HeldJob) => Promise<JobResult['status']>): Promise<JobResult[]> {
  return Promise.all(jobs.map(async (j) => ({ id: j.id, status: await run(j) })));
}

const jobOutcome = (status: JobResult['status']): TracedOutcome => (status === 'completed' ? {} : { failed: true });

/** A job's span, in its store, when a tracer is installed (core/plugins/telemetry.ts); otherwise the job itself. */
function traced(queue: string, held: HeldJob, run: () => Promise<JobResult['status']>): Promise<JobResult['status']> {
  const tracer = tracing.tracer;
  if (!tracer) return run();
  const store_id = (held.data as JobData | null)?.store_id;
  return tracer.span('job', queue, { route: queue, store_id }, run, jobOutcome);
}

/** A cron job's data is pg-boss's (none): its input is `{}`. */
const dataOf = (raw: unknown): JobData => (raw && typeof raw === 'object' && 'input' in raw ? (raw as JobData) : { input: {} });

async function runBatch(p: PluginDef, spec: JobSpec, deps: CallerDeps, batch: unknown[]) {
  const inputs = batch.map((d) => dataOf(d).input);
  for (const input of inputs) validateInput(spec.input, input);
  const { ctx, events, queue } = jobContext(p, deps, undefined, deps.db, { progress: async () => {} });
  await spec.batch!(ctx, inputs);
  await writeJobEvents(deps.db, deps.registry, undefined, events.pending);
  await runAfterCommit(queue, ctx.log);
}

/** One job: claim its row (a cancelled one is skipped), check its input, run it, record how it ended. */
async function runOne(p: PluginDef, name: string, spec: JobSpec, deps: CallerDeps, held: HeldJob): Promise<JobResult['status']> {
  const { db, clock } = deps;
  const data = dataOf(held.data);
  const id = data.job_id;
  const log = (deps.log ?? createLogger()).child({ pg_job: held.id, ...(id ? { job_id: id } : {}) });
  if (id && !(await claimJob(db, id, clock.now()))) return 'completed';
  const cancel = new AbortController();
  const signal = deps.shutdown ? AbortSignal.any([deps.shutdown, cancel.signal]) : cancel.signal;
  try {
    validateInput(spec.input, data.input);
    const store = data.store_id ? await stores(db, data.store_id) : undefined;
    if (data.store_id && !store) throw new SvcError('resource_missing', 'The job’s store no longer exists.');
    const progress = async (done: number, total?: number) => {
      if (!id) return;
      if (!(await recordProgress(db, id, done, total))) throw (cancel.abort(), new Cancelled('cancelled'));
    };
    const { ctx, events, queue } = jobContext(p, { ...deps, shutdown: signal }, store, db, { jobId: id, progress });
    const result = await spec.handler!(ctx, data.input);
    if (events.pending.length) await db.transaction((tx) => writeJobEvents(tx, deps.registry, store?.id, events.pending));
    if (id) await finishJob(db, id, clock.now(), result);
    await runAfterCommit(queue, ctx.log);
    return 'completed';
  } catch (e) {
    if (e instanceof Cancelled || (cancel.signal.aborted && !deps.shutdown?.aborted)) return 'completed';
    return failed(db, clock, log, `${p.name}.${name}`, id, held, e);
  }
}

/**
 * A failed attempt. Bad input can never succeed: failed at once. Otherwise pg-boss tries again
 * (with backoff) until its retries are spent; each failure is logged by the job's name, and a
 * followed job shows the error (queued again, or failed at the last).
 */
async function failed(db: Db, clock: Clock, log: Logger, type: string, id: string | undefined, held: HeldJob, e: unknown) {
  const invalid = e instanceof SvcError && e.status < 500;
  const final = invalid || held.retryCount >= held.retryLimit;
  // A client sees an SvcError's own message; anything else may name internals (SQL, hosts): the log has it.
  const error =
    e instanceof SvcError && e.status < 500
      ? { message: e.message, code: e.code }
      : {
          message: `The job failed on an internal error${final ? '' : '; it will be retried'}. The server's log has it (job ${id ?? held.id}).`,
          code: 'api_error',
        };
  log[final ? 'error' : 'warn'](final ? `job ${type} failed` : `job ${type} failed; it will be retried`, {
    attempt: held.retryCount + 1,
    retries: held.retryLimit,
    ...errorFields(e),
  });
  // A job failed for good is an error of its span (query_errors); a failure to be retried is not yet.
  if (final) tracing.tracer?.annotate({ error: true, error_code: error.code, error_message: e instanceof Error ? e.message : error.message });
  if (id) await failJob(db, id, clock.now(), error, final).catch(() => {});
  return invalid ? 'deadletter' : 'failed';
}

/**
 * A reaction: in one transaction, the (event, plugin) record and the reaction's work. The record
 * is inserted first, so a second delivery of the same job (its worker died after the commit,
 * before pg-boss heard) either waits for the first and then finds it, or finds it at once: the
 * reaction is applied once, however often the job runs.
 */
async function react(p: PluginDef, deps: CallerDeps, held: HeldJob): Promise<JobResult['status']> {
  const { db, clock } = deps;
  const { store_id, event_id, job_id } = held.data as { store_id: string; event_id: string; job_id: string };
  const log = (deps.log ?? createLogger()).child({ event_id, job_id });
  if (!(await claimJob(db, job_id, clock.now()))) return 'completed';
  let type = '?';
  try {
    const result = await db.transaction(async (tx) => {
      const fresh = await tx.query(
        `INSERT INTO event_reactions (event_id, plugin, store_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING RETURNING 1`,
        [event_id, p.name, store_id, clock.now()],
      );
      if (!fresh.length) return 'already applied';
      const [row] = await tx.query<{ type: string; body: string; cause: object | null; origin: EventOrigin | null }>(
        'SELECT type, body, cause, origin FROM events WHERE id = $1 AND store_id = $2',
        [event_id, store_id],
      );
      if (!row) throw new Error(`event ${event_id} is gone`);
      type = row.type;
      const store = await stores(tx, store_id);
      const { ctx, events, queue } = jobContext(p, deps, store, tx, { jobId: job_id, progress: async () => {} });
      // The plugin's reaction to the type, else its '*' (every type), else its run-time subscriptions' (event_subscriptions).
      const reaction = p.on?.[row.type] ?? p.on?.['*'] ?? p.onSubscribed!;
      const origin = row.origin ?? { actor: { type: 'system' as const, id: null }, request_id: null };
      await reaction(ctx, { ...JSON.parse(row.body), ...(row.cause ? { cause: row.cause } : {}) }, origin);
      await writeJobEvents(tx, deps.registry, store_id, events.pending);
      return queue;
    });
    await finishJob(db, job_id, clock.now(), null);
    if (typeof result !== 'string') await runAfterCommit(result, log);
    return 'completed';
  } catch (e) {
    return failed(db, clock, log, `${p.name}.on:${type}`, job_id, held, e);
  }
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
    await ensureQueues(boss, jobs);
  } finally {
    await boss.stop({ close: false, graceful: false });
  }
}

/**
 * Creates the queues that are missing and updates those whose settings changed, from one read of
 * pg-boss's queue table. Every start used to create and update each queue one by one (pg-boss's
 * createQueue is a locked DDL block): on the embedded database that was a fifth of a later start.
 */
async function ensureQueues(boss: PgBoss, jobs: JobDef[]): Promise<void> {
  const existing = new Map((await boss.getQueues()).map((q) => [q.name, q as unknown as Record<string, unknown>]));
  for (const job of jobs) {
    const found = existing.get(job.queue);
    if (!found) await boss.createQueue(job.queue, job.options);
    else if (job.options && Object.entries(job.options).some(([k, v]) => v !== undefined && found[k] !== v))
      await boss.updateQueue(job.queue, job.options);
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
  await ensureQueues(boss, jobs);
  // A schedule already stored as declared is not written again (each write parses the cron and upserts a row).
  const scheduled = new Set(
    (await boss.getSchedules()).filter((s) => !s.key && s.timezone === 'UTC' && s.data == null).map((s) => `${s.name} ${s.cron}`),
  );
  for (const job of jobs) {
    const work = { ...WORK_DEFAULTS, ...job.work };
    if (job.runEach) await boss.work(job.queue, { ...work, perJobResults: true, includeMetadata: true } as any, job.runEach as any);
    else await boss.work(job.queue, work, async (batch) => job.run!(batch.map((j) => j.data)));
    if (job.cron && !scheduled.has(`${job.queue} ${job.cron}`)) await boss.schedule(job.queue, job.cron);
  }
  const waking = wakeWorkers(
    db,
    boss,
    jobs.map((j) => j.queue),
    (e) => log(`jobs: ${e.message}`),
  );
  log(`workers: ${jobs.map((j) => j.queue).join(', ')}`);
  return {
    boss,
    /** Jobs in hand get `timeoutMs` to finish (pg-boss's floor is 1 s); then pg-boss fails them, and they are retried. */
    stop: async (timeoutMs = 30_000) => {
      await waking.stop();
      await boss.stop({ graceful: true, timeout: timeoutMs });
    },
  };
}
