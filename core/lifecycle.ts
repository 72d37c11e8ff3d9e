/**
 * The process's one lifecycle owner (ARCHITECTURE, Runtime roles and scale). What lives as long as
 * the process registers here at start; on SIGTERM or SIGINT it all stops in order, so a supervisor's
 * stop (docker stop, systemd, a desktop app restarting svc) ends with exit 0 and a free data
 * directory instead of a SIGKILL:
 *
 * 1. `signal` aborts: open streams (MCP GET streams, agent chats) end themselves with a final event.
 *    The core hands the signal to them (Services.shutdown, Ctx.shutdown); nothing imports this file
 *    to find it.
 * 2. drain, all at once within the grace period: the HTTP server stops accepting and lets requests
 *    in flight finish, workers stop fetching and finish or hand back their jobs.
 * 3. close, one after another in reverse order of registration: the sandbox pool, the database
 *    (and with it the data-directory lock).
 */
export type Stage = 'drain' | 'close';

/** `deadline` is a performance.now() time: a drain that is not done by then cuts what remains. */
export type StopFn = (deadline: number) => Promise<void> | void;

interface Part {
  name: string;
  stage: Stage;
  stop: StopFn;
}

export class Lifecycle {
  private readonly controller = new AbortController();
  /** Aborted when shutdown begins. */
  readonly signal: AbortSignal = this.controller.signal;
  private parts: Part[] = [];
  private started: Promise<unknown> = Promise.resolve();
  private stopping?: Promise<boolean>;

  constructor(
    readonly graceMs: number,
    private readonly log: (line: string) => void = (l) => console.error(l),
  ) {}

  /** Something long-lived to stop at shutdown. Returns a function that unregisters it (it stopped on its own). */
  register(name: string, stage: Stage, stop: StopFn): () => void {
    const part = { name, stage, stop };
    this.parts.push(part);
    return () => {
      this.parts = this.parts.filter((p) => p !== part);
    };
  }

  /** Start-up in progress: a shutdown asked for meanwhile waits for it, then stops what it started. */
  starting(p: Promise<unknown>) {
    this.started = p.catch(() => {});
  }

  /** Runs the shutdown once (later calls get the same promise); resolves true when every part stopped cleanly. */
  shutdown(why: string): Promise<boolean> {
    return (this.stopping ??= this.run(why));
  }

  private async run(why: string): Promise<boolean> {
    this.log(`svc: shutting down (${why}); open requests have ${this.graceMs / 1000} s to finish. A second signal stops at once.`);
    await this.started;
    const deadline = performance.now() + this.graceMs;
    this.controller.abort();
    let clean = true;
    const stop = async (p: Part) => {
      try {
        await p.stop(deadline);
      } catch (err) {
        clean = false;
        this.log(`svc: stopping ${p.name} failed: ${(err as Error)?.message ?? err}`);
      }
    };
    await Promise.all(this.parts.filter((p) => p.stage === 'drain').map(stop));
    for (const p of this.parts.filter((p) => p.stage === 'close').reverse()) await stop(p);
    return clean;
  }
}

/** How long until a deadline, at least `floor` ms. */
export const remaining = (deadline: number, floor = 0) => Math.max(floor, deadline - performance.now());

/** Resolves with `p`, or with `undefined` once the deadline passes (p keeps running). */
export function until<T>(p: Promise<T>, deadline: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), remaining(deadline));
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

const SIGNAL_NUMBERS = { SIGINT: 2, SIGTERM: 15 } as const;

/**
 * One stop request often arrives twice: Ctrl-C reaches every process of the terminal's group, and
 * systemd signals every process of the unit, so the server hears it directly and again from the
 * wrapper that forwards signals (npm, bin/svc.cjs). The same signal this soon after the first is
 * that echo, not a second request.
 */
export const ECHO_MS = 1000;

/**
 * SIGTERM and SIGINT: the first shuts down gracefully and exits 0 (1 if something failed to stop);
 * a second exits at once (128 + the signal's number, as a shell reports it). A shutdown that
 * overruns the grace period by far (a stuck close) exits 1 rather than hang the supervisor.
 */
export function exitOnSignals(lifecycle: Lifecycle, opts: { exit?: (code: number) => void; log?: (line: string) => void; overrunMs?: number } = {}) {
  const exit = opts.exit ?? ((code: number) => process.exit(code));
  const log = opts.log ?? ((l: string) => console.error(l));
  let first: { signal: string; at: number } | undefined;
  const on = (signal: keyof typeof SIGNAL_NUMBERS) => {
    if (first) {
      if (signal === first.signal && performance.now() - first.at < ECHO_MS) return;
      log(`svc: ${signal} again: stopping now.`);
      return exit(128 + SIGNAL_NUMBERS[signal]);
    }
    first = { signal, at: performance.now() };
    setTimeout(
      () => {
        log('svc: shutdown is taking too long; stopping now.');
        exit(1);
      },
      lifecycle.graceMs + (opts.overrunMs ?? 5000),
    ).unref();
    void lifecycle.shutdown(signal).then((clean) => exit(clean ? 0 : 1));
  };
  for (const signal of Object.keys(SIGNAL_NUMBERS) as (keyof typeof SIGNAL_NUMBERS)[]) process.on(signal, () => on(signal));
}
