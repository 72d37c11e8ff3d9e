import { describe, expect, test } from 'bun:test';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CLI, runSvc } from './kit/serve-process';

const freshDir = () => mkdtempSync(join(tmpdir(), 'svc-ops-'));

/** `svc serve` on a data directory, with its stderr and stdout collected as they come. */
function startServer(dir: string, port: number, env: Record<string, string> = {}) {
  const proc = Bun.spawn([process.execPath, CLI, 'serve', '--port', String(port)], {
    env: { ...process.env, DATABASE_URL: undefined, SVC_ADMIN_TOKEN: undefined, SVC_DATA_DIR: dir, PORT: undefined, ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  let log = '';
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    for await (const chunk of stream) log += new TextDecoder().decode(chunk);
  };
  void collect(proc.stderr);
  void collect(proc.stdout);
  const until = async (needle: string, ms = 60_000) => {
    const end = Date.now() + ms;
    while (!log.includes(needle) && Date.now() < end) await Bun.sleep(50);
    if (!log.includes(needle)) throw new Error(`no '${needle}' in: ${log}`);
  };
  return { proc, log: () => log, until };
}

/** `svc <args>` to its end, with everything it printed together. */
const run = async (args: string[], env: Record<string, string | undefined>) => {
  const r = await runSvc(args, env);
  return { code: r.code, out: r.stdout + r.stderr };
};

const randomPort = () => 20000 + Math.floor(Math.random() * 20000);

describe('what svc tells its operator', () => {
  test('the banner shows what it binds; the admin token is never printed, only where it is kept', async () => {
    const dir = freshDir();
    const port = randomPort();
    const server = startServer(dir, port);
    try {
      await server.until('listening');
      const token = (await Bun.file(join(dir, 'admin-token')).text()).trim();
      expect(token).toStartWith('svc_admin_');
      expect(server.log()).not.toContain(token);
      expect(server.log()).toContain(join(dir, 'admin-token'));
      expect(server.log()).toContain(`0.0.0.0:${port} (all interfaces; from this machine http://127.0.0.1:${port})`);
    } finally {
      server.proc.kill('SIGTERM');
      await server.proc.exited;
    }
    const local = startServer(dir, port, { SVC_HOST: '127.0.0.1' });
    try {
      await local.until('listening');
      expect(local.log()).toContain(`svc listening on http://127.0.0.1:${port} (`);
    } finally {
      local.proc.kill('SIGTERM');
      await local.proc.exited;
    }
  }, 120_000);

  test("a second serve and the store commands on a locked folder name the running server's real port", async () => {
    const dir = freshDir();
    const port = randomPort();
    const server = startServer(dir, port);
    try {
      await server.until('listening');
      // PORT in the environment says something else: the advice must not believe it.
      const second = await run(['serve', '--port', String(port + 1)], { SVC_DATA_DIR: dir, PORT: '3000' });
      expect(second.code).toBe(1);
      expect(second.out).toContain('in use by another svc process');
      expect(second.out).toContain(`listens at http://127.0.0.1:${port}`);
      expect(second.out).not.toContain('--url');
      const store = await run(['stores', 'create', '--name', 'X'], { SVC_DATA_DIR: dir, PORT: '3000' });
      expect(store.code).toBe(1);
      expect(store.out).toContain(`--url http://127.0.0.1:${port} `);
      expect(store.out).not.toContain(':3000');
    } finally {
      server.proc.kill('SIGTERM');
      await server.proc.exited;
    }
    expect(await Bun.file(join(dir, 'server.json')).exists()).toBe(false);
  }, 120_000);
});
