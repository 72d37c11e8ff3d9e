import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { errors } from '../../core/sdk';
import type { LaunchSettings } from './config';

/**
 * The local adapter: `serve --role <role>` child processes of this same program, on the shared
 * PostgreSQL, started by this process (which reaps them: no zombies); terminate sends SIGTERM,
 * which they answer as any svc does: stop taking work, finish or hand back the jobs in hand, exit
 * 0. Any process of the instance on this host can terminate them by pid. A child that dies is not
 * started again (get_status shows it exited).
 */
/** This program: the compiled binary alone, or `bun core/cli.ts` from a checkout. */
function selfCommand(settings: LaunchSettings): string[] {
  if (settings.command) return settings.command.split(/\s+/).filter(Boolean);
  const cli = join(import.meta.dir, '..', '..', 'core', 'cli.ts');
  return existsSync(cli) ? [process.execPath, cli] : [process.execPath];
}

export function launchLocal(settings: LaunchSettings, role: string, count: number) {
  if (!settings.database_url)
    throw errors.notConfigured('DATABASE_URL', 'local processes share one PostgreSQL; the embedded database admits one process');
  const env = {
    ...process.env,
    DATABASE_URL: settings.database_url,
    ...(settings.secret_key ? { SVC_SECRET_KEY: settings.secret_key } : {}),
    // An API node listens on a port of its own.
    PORT: '0',
  };
  const cmd = [...selfCommand(settings), 'serve', '--role', role];
  return Array.from({ length: count }, () => {
    // Their log lines join this process's (stderr), where the operator already looks.
    const child = Bun.spawn(cmd, { env, stdout: 'ignore', stderr: 'inherit' });
    exits.set(child.pid, child.exited);
    return { kind: 'process' as const, pid: child.pid };
  });
}

/** Children of this process, until they exit (a zombie still answers kill 0). */
const exits = new Map<number, Promise<number>>();
const exited = new Set<number>();

const alive = (pid: number) => {
  if (exited.has(pid)) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

export const localState = (pid: number) => (alive(pid) ? 'running' : 'exited');

/** SIGTERM each, and wait (up to `graceMs`) for them to exit: their jobs are handed back by their own shutdown. */
export async function terminateLocal(pids: number[], graceMs = 30_000) {
  for (const pid of pids) {
    void exits.get(pid)?.then(() => exited.add(pid));
    if (alive(pid)) process.kill(pid, 'SIGTERM');
  }
  const until = performance.now() + graceMs;
  while (pids.some(alive) && performance.now() < until) await Bun.sleep(100);
  return pids.map((pid) => ({ pid, state: localState(pid) }));
}
