import type { Db } from './types';
import { tracing, type OpenSpan } from '../plugins/telemetry';

/** The driver's own statement runner of a Db built by pglite.ts or postgres.ts (rows, untimed). */
export const RUN = Symbol('svc.db.run');
type Run = (text: string, params: unknown[]) => Promise<any[]>;

/**
 * Runs a statement, timed as a query of traced work when a tracer is installed
 * (core/plugins/telemetry.ts): of `carried` (a traced Db's span), else of the span in async context.
 */
export async function timedQuery(run: Run, text: string, params: unknown[], carried: OpenSpan | undefined): Promise<any[]> {
  const tracer = tracing.tracer;
  const parent = tracer?.queryStart(carried);
  if (!parent) return run(text, params);
  const t0 = performance.now();
  let rows: any[];
  try {
    rows = await run(text, params);
  } catch (e) {
    tracer!.queryEnd(parent, text, t0, e ?? 'failed');
    throw e;
  }
  tracer!.queryEnd(parent, text, t0);
  return rows;
}

/**
 * A Db whose queries are the children of `span`: how a request's or a tool call's span reaches
 * its queries without async context (core/plugins/telemetry.ts). Everything but running
 * statements is the underlying Db's. Anything kept per database (a cache, a listener, a lane)
 * must key on `baseDb(db)`, never on a traced Db: there is one per request.
 */
class TracedDb implements Db {
  constructor(
    readonly base: Db,
    readonly span: OpenSpan,
  ) {}
  get kind() {
    return this.base.kind;
  }
  get native() {
    return this.base.native;
  }
  query<T = Record<string, any>>(text: string, params: unknown[] = []): Promise<T[]> {
    const run = (this.base as any)[RUN] as Run | undefined;
    return run ? timedQuery(run, text, params, this.span) : this.base.query<T>(text, params);
  }
  transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    // Inside a transaction the base hands itself back: then this same traced Db stands for it.
    return this.base.transaction((tx) => fn(tx === this.base ? this : new TracedDb(tx, this.span)));
  }
  exec(text: string): Promise<void> {
    return this.base.exec(text);
  }
  close(): Promise<void> {
    return this.base.close();
  }
  listen(channel: string, onPayload: (payload: string) => void): Promise<() => Promise<void>> {
    return this.base.listen(channel, onPayload);
  }
}

/** `db` with its queries traced as children of `span`. */
export const tracedDb = (db: Db, span: OpenSpan): Db => new TracedDb(baseDb(db), span);

/** The Db underneath a traced one (itself otherwise): what anything kept per database keys on. */
export const baseDb = (db: Db): Db => (db instanceof TracedDb ? db.base : db);

/** The span a traced Db carries, if it is one. */
export const spanOf = (db: Db): OpenSpan | undefined => (db instanceof TracedDb ? db.span : undefined);
