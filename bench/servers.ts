/** Starts each bench server in its own process so wrk and the servers never share an event loop. */
import { join } from 'node:path';

export interface Child {
  name: string;
  pid: number;
  base: string; // http://127.0.0.1:<port>
  stop: () => Promise<void>;
}

const live = new Set<Bun.Subprocess>();

/** Kills every child still running: called on exit and on Ctrl-C so no server outlives the run. */
export function killAll() {
  for (const p of live) p.kill();
  live.clear();
}

export async function startServer(file: string, env: Record<string, string>): Promise<Child> {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, file)], {
    env: { ...process.env, ...env },
    stdout: 'pipe',
    stderr: 'inherit',
  });
  live.add(proc);
  const port = await readPort(proc, file);
  return {
    name: file,
    pid: proc.pid,
    base: `http://127.0.0.1:${port}`,
    stop: async () => {
      proc.kill();
      await proc.exited;
      live.delete(proc);
    },
  };
}

/** Waits for the child's `READY <port>` line (bench/child.ts), or fails if it exits first. */
async function readPort(proc: Bun.Subprocess<'ignore', 'pipe', 'inherit'>, file: string): Promise<number> {
  const decoder = new TextDecoder();
  let buf = '';
  const reader = proc.stdout.getReader();
  const timeout = setTimeout(() => proc.kill(), 30_000);
  try {
    while (true) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${file} exited before it was ready (code ${await proc.exited})`);
      buf += decoder.decode(value, { stream: true });
      const m = /READY (\d+)/.exec(buf);
      if (m) return Number(m[1]);
    }
  } finally {
    clearTimeout(timeout);
    // Keep draining stdout so a chatty child never blocks on a full pipe.
    reader.releaseLock();
    void proc.stdout.pipeTo(new WritableStream()).catch(() => {});
  }
}
