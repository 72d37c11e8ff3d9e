/**
 * The `svc` command as a user runs it (Bun on the CLI source), for tests: `runSvc` runs a command
 * to its end; `serveProcess` keeps a real `svc serve` running (shutdown, outages): its output is
 * gathered as it comes, `listening()` resolves to its URL once it says where it listens, and
 * `killAll()` (for afterAll) ends whatever a test left running. Neither uses the suite's database
 * unless the test passes DATABASE_URL.
 */
import { join } from 'node:path';

export const CLI = join(import.meta.dir, '..', '..', 'core', 'cli.ts');

/** Runs `svc <args>` to its end: its exit code and what it printed. `stdin`, when given, is its input. */
export async function runSvc(args: string[], env: Record<string, string | undefined> = {}, stdin?: string) {
  const proc = Bun.spawn([process.execPath, CLI, ...args], {
    env: { ...process.env, DATABASE_URL: undefined, ...env },
    stdin: stdin === undefined ? 'ignore' : new Blob([stdin]),
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

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
