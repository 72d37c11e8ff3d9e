/**
 * A real `svc serve` process for tests that need one (shutdown, outages): its output is gathered as
 * it comes, `listening()` resolves to its URL once it says where it listens, and `killAll()` (for
 * afterAll) ends whatever a test left running.
 */
import { join } from 'node:path';

const CLI = join(import.meta.dir, '..', '..', 'core', 'cli.ts');

export interface ServeProcess {
  proc: ReturnType<typeof Bun.spawn>;
  /** Everything it printed so far, stdout and stderr together. */
  out: { log: string };
  /** Its URL on 127.0.0.1, once it is listening; throws with its output if it exits first. */
  listening: (ms?: number) => Promise<string>;
}

const started: ReturnType<typeof Bun.spawn>[] = [];

export function serveProcess(env: Record<string, string | undefined>): ServeProcess {
  const proc = Bun.spawn([process.execPath, CLI, 'serve'], {
    env: { ...process.env, SVC_HOST: '127.0.0.1', PORT: '0', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  started.push(proc);
  const out = { log: '' };
  for (const s of [proc.stdout, proc.stderr] as ReadableStream<Uint8Array>[])
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of s) out.log += decoder.decode(chunk, { stream: true });
    })();
  const listening = async (ms = 150_000) => {
    const end = performance.now() + ms;
    for (;;) {
      const found = /listening on http:\/\/[^\s:]+:(\d+)/.exec(out.log);
      if (found) return `http://127.0.0.1:${found[1]}`;
      if (proc.exitCode !== null || performance.now() > end) throw new Error(`the server did not start:\n${out.log}`);
      await Bun.sleep(50);
    }
  };
  return { proc, out, listening };
}

/** Kills every process this file's tests started and left running. */
export function killAll() {
  for (const p of started) if (p.exitCode === null) p.kill('SIGKILL');
}
