import { mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * A PostgreSQL server of the test's own (never the shared one on 5432): initdb into a temporary
 * directory, on a free port, started and stopped at will, so outage tests can take the database
 * away. Runs as the `postgres` user when the test runs as root (PostgreSQL refuses root).
 */
const BIN = '/usr/lib/postgresql/15/bin';

export interface PrivatePostgres {
  port: number;
  url: string;
  start(): Promise<void>;
  /** Fast shutdown: open connections are cut, as in a crash or a restart. */
  stop(): Promise<void>;
  /** Stops it and removes its files. */
  destroy(): Promise<void>;
}

async function run(cmd: string[]) {
  const asRoot = process.getuid?.() === 0;
  const argv = asRoot ? ['runuser', '-u', 'postgres', '--', ...cmd] : cmd;
  const proc = Bun.spawn(argv, { stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`${cmd.join(' ')} failed (${code}): ${err || out}`);
}

function freePort(): number {
  const s = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
  const port = s.port;
  s.stop(true);
  return port;
}

export async function privatePostgres(): Promise<PrivatePostgres> {
  const root = mkdtempSync(join(tmpdir(), 'svc-pg-'));
  chmodSync(root, 0o777);
  const data = join(root, 'data');
  const port = freePort();
  await run([`${BIN}/initdb`, '-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
  const ctl = (...args: string[]) => run([`${BIN}/pg_ctl`, '-D', data, '-w', '-t', '60', ...args]);
  const pg: PrivatePostgres = {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start: () => ctl('-o', `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off`, '-l', join(root, 'log'), 'start'),
    stop: () => ctl('-m', 'fast', 'stop'),
    async destroy() {
      await pg.stop().catch(() => {});
      rmSync(root, { recursive: true, force: true });
    },
  };
  await pg.start();
  return pg;
}
