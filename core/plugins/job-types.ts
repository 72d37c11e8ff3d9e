import type { Static, TSchema } from '@sinclair/typebox';
import type { Db } from '../db/types';
import type { Clock } from '../clock';
import type { Logger } from '../log';
import type { EventOrigin } from '../events/types';
import type { Ctx, Registry } from './contract';

export interface JobDeps {
  db: Db;
  clock: Clock;
  registry: Registry;
  log: Logger;
  config: Record<string, any>;
}

/** What a job's handler gets: an action's ctx (store, call, log, clock, db, emit, enqueue), plus progress. */
export interface JobCtx extends Ctx {
  /** The job's id when a client follows it (started with ctx.startJob, or a reaction). */
  jobId?: string;
  /**
   * Records how far the job is (`GET STORE/jobs/{id}` shows it). Throws once the job was
   * cancelled, which ends the handler; `ctx.shutdown` is aborted then too, for long waits.
   */
  progress(done: number, total?: number): Promise<void>;
}

export interface JobSpec<I extends TSchema = TSchema> {
  /** What it does, for the logs and the jobs list. */
  description?: string;
  /** Its input, checked when queued and again when run (a bad one fails at once, never retried). */
  input: I;
  /** Cron schedule (once per cluster): runs with `{}` as input and no store (a sweep over every store). */
  cron?: string;
  /** Attempts after the first before it is failed (default 5), 5 s doubling up to 10 minutes apart. */
  retries?: number;
  /**
   * pg-boss's heartbeat: a job whose worker died (kill -9) is handed back once this many seconds
   * pass without a beat, instead of after pg-boss's 15-minute expiry. For short jobs that must resume.
   */
  heartbeatSeconds?: number;
  /**
   * One input. Runs outside a transaction (long work, outside calls): ctx.db is the database, and
   * what must commit together goes in `ctx.db.transaction`. A throw retries it.
   */
  handler?: (ctx: JobCtx, input: Static<I>) => Promise<unknown>;
  /**
   * Instead of `handler`: many inputs at once (up to 50, from every store: ctx has no store), for
   * high-rate internal work such as deliveries. A throw retries the whole batch.
   */
  batch?: (ctx: JobCtx, inputs: Static<I>[]) => Promise<void>;
}

/** A job of a plugin's declaration: `jobs: { reindex: job({ input, handler }) }`. */
export const job = <I extends TSchema>(j: JobSpec<I>): JobSpec<I> => j;

/**
 * Every event type's payload, by type, for typed reactions. Empty here: a plugin that emits
 * events fills in its own from its index.ts
 * (`declare module '../../core/sdk' { interface DeclaredEvents extends EventsOf<typeof orders> {} }`).
 */
export interface DeclaredEvents {}

/** A plugin's `events` as `type -> payload type`, for DeclaredEvents. */
export type EventsOf<P extends { events?: Record<string, TSchema> }> = {
  [T in keyof NonNullable<P['events']> & string]: Static<NonNullable<P['events']>[T]>;
};

/** The event a reaction gets: as a webhook receives it (SPEC 6.1). */
export interface ReactionEvent<D = any> {
  id: string;
  object: 'event';
  type: string;
  created_at: string;
  data: D;
  /** What caused it, when the writer said so (`withEventCause`): a workflow run's chain depth. */
  cause?: Record<string, unknown>;
}

/** Who caused the event and in which request (null for events written before this was kept). */
export type Reaction<D = any> = (ctx: JobCtx, event: ReactionEvent<D>, origin: EventOrigin) => Promise<void>;

/** `on` of a declaration: typed payloads for declared types, any other registered type as `any`. */
export type Reactions = { [T in keyof DeclaredEvents]?: Reaction<DeclaredEvents[T]> } & { [type: string]: Reaction | undefined };
