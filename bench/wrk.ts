/** Runs wrk and reads its --latency report. */

export interface WrkResult {
  rps: number;
  p50: number; // milliseconds
  p99: number; // milliseconds
  requests: number;
  /** Responses outside 2xx/3xx plus socket errors: a valid run has 0. */
  errors: number;
  /** CPU time the server process spent per request, microseconds, where measurable. */
  serverCpuUs?: number;
  /** CPU time all PostgreSQL processes spent per request, microseconds, where measurable. */
  dbCpuUs?: number;
  raw: string;
}

export interface WrkRun {
  url: string;
  seconds: number;
  connections: number;
  threads: number;
  headers?: Record<string, string>;
  /** A Lua script and the arguments passed to it after `--`. */
  script?: string;
  scriptArgs?: string[];
}

/** Exits with install advice when wrk is missing: the benchmark cannot run without it. */
export function requireWrk(): string {
  const path = Bun.which('wrk');
  if (!path) {
    console.error('wrk is not installed. Install it (Debian/Ubuntu): sudo apt-get install -y wrk');
    process.exit(1);
  }
  return path;
}

const UNIT_MS: Record<string, number> = { us: 0.001, ms: 1, s: 1000, m: 60_000 };

function durationMs(text: string): number {
  const m = /^([\d.]+)(us|ms|s|m)$/.exec(text.trim());
  if (!m) throw new Error(`wrk: cannot read duration '${text}'`);
  return Number(m[1]) * UNIT_MS[m[2]];
}

export function parseWrk(out: string): WrkResult {
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = /^\s+50%\s+(\S+)/m.exec(out);
  const p99 = /^\s+99%\s+(\S+)/m.exec(out);
  const total = /(\d+) requests in/.exec(out);
  if (!rps || !p50 || !p99 || !total) throw new Error(`wrk: unexpected output:\n${out}`);
  const non2xx = Number(/Non-2xx or 3xx responses:\s+(\d+)/.exec(out)?.[1] ?? 0);
  const sock = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  const socketErrors = sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0;
  return {
    rps: Number(rps[1]),
    p50: durationMs(p50[1]),
    p99: durationMs(p99[1]),
    requests: Number(total[1]),
    errors: non2xx + socketErrors,
    raw: out,
  };
}

const running = new Set<Bun.Subprocess>();

/** Stops any wrk still running, so an interrupted benchmark leaves no load generator behind. */
export function killWrk() {
  for (const p of running) p.kill();
  running.clear();
}

export async function runWrk(wrk: string, run: WrkRun): Promise<WrkResult> {
  const args = [wrk, `-t${run.threads}`, `-c${run.connections}`, `-d${run.seconds}s`, '--latency'];
  for (const [k, v] of Object.entries(run.headers ?? {})) args.push('-H', `${k}: ${v}`);
  if (run.script) args.push('-s', run.script);
  args.push(run.url);
  if (run.scriptArgs?.length) args.push('--', ...run.scriptArgs);
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe' });
  running.add(proc);
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  running.delete(proc);
  if (code !== 0) throw new Error(`wrk exited with ${code}:\n${err}\n${out}`);
  return parseWrk(out);
}
