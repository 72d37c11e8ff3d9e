import { describe, expect, test } from 'bun:test';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createThrowawayDatabase } from './kit/db';
import { CLI, runSvc as svc } from './kit/serve-process';

const freshDir = () => mkdtempSync(join(tmpdir(), 'svc-cli-'));

async function waitFor(url: string, ms = 30_000) {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await Bun.sleep(100);
  }
  throw new Error(`server at ${url} did not come up`);
}

describe('svc command line', () => {
  test('--help prints usage and exits 0', async () => {
    const r = await svc(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('svc serve');
    expect(r.stdout).toContain('svc keys create');
  });

  test('bad flags, commands and values exit non-zero with a clear message', async () => {
    const dir = freshDir();
    for (const [args, needle] of [
      [['serve', '--bogus'], "Unknown option '--bogus'"],
      [['frobnicate'], "Unknown command 'frobnicate'"],
      [['stores', 'create'], '--name'],
      [['stores', 'create', '--name', 'X', '--plan', 'gold'], "Invalid --plan 'gold'"],
      [['serve', '--port', 'abc'], "Invalid port 'abc'"],
      [['serve', '--role', 'boss'], "Invalid role 'boss'"],
      [['keys', 'create'], '--store'],
    ] as [string[], string][]) {
      const r = await svc(args, { SVC_DATA_DIR: dir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(needle);
    }
  });

  test('stores create and keys create work directly on the embedded database', async () => {
    const dir = freshDir();
    const created = await svc(['stores', 'create', '--name', 'Corner Shop', '--plan', 'pro', '--json'], { SVC_DATA_DIR: dir });
    expect(created.code).toBe(0);
    const out = JSON.parse(created.stdout);
    expect(out.store).toMatchObject({ object: 'store', name: 'Corner Shop', plan: 'pro', instance_tools: false });
    expect(out.api_key.key).toMatch(/^svc_test_/);
    // --instance-tools: trusted with local_agent and launch_cluster from the start.
    const trusted = await svc(['stores', 'create', '--name', 'Ops', '--instance-tools', '--json'], { SVC_DATA_DIR: dir });
    expect(JSON.parse(trusted.stdout).store.instance_tools).toBe(true);
    const key = await svc(['keys', 'create', '--store', out.store.id, '--scopes', 'products:read', '--live', '--json'], { SVC_DATA_DIR: dir });
    expect(key.code).toBe(0);
    expect(JSON.parse(key.stdout)).toMatchObject({ object: 'api_key', scopes: ['products:read'], livemode: true });
    expect(JSON.parse(key.stdout).key).toMatch(/^svc_live_/);
    const missing = await svc(['keys', 'create', '--store', crypto.randomUUID()], { SVC_DATA_DIR: dir });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('No such store');
  }, 60_000);

  test('while a server holds the embedded database, commands say to go through it, and do so with --url', async () => {
    const dir = freshDir();
    const port = 20000 + Math.floor(Math.random() * 20000);
    const server = Bun.spawn([process.execPath, CLI, 'serve', '--port', String(port)], {
      env: { ...process.env, DATABASE_URL: undefined, SVC_DATA_DIR: dir },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    try {
      await waitFor(`http://127.0.0.1:${port}/health`);
      const locked = await svc(['stores', 'create', '--name', 'X'], { SVC_DATA_DIR: dir });
      expect(locked.code).toBe(1);
      expect(locked.stderr).toContain('in use by another svc process');
      expect(locked.stderr).toContain('--url');
      const token = (await Bun.file(join(dir, 'admin-token')).text()).trim();
      const remote = await svc(['stores', 'create', '--name', 'Remote', '--json', '--url', `http://127.0.0.1:${port}`], {
        SVC_DATA_DIR: dir,
        SVC_ADMIN_TOKEN: token,
      });
      expect(remote.code).toBe(0);
      const { store, api_key } = JSON.parse(remote.stdout);
      const res = await fetch(`http://127.0.0.1:${port}/v1/stores/${store.id}/products`, { headers: { 'x-api-key': api_key.key } });
      expect(res.status).toBe(200);
      const wrong = await svc(['stores', 'create', '--name', 'Y', '--url', `http://127.0.0.1:${port}`, '--admin-token', 'nope']);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('401');
    } finally {
      server.kill('SIGTERM');
      await server.exited;
    }
    // The server released the directory on SIGTERM: direct mode works again.
    expect((await svc(['stores', 'create', '--name', 'After'], { SVC_DATA_DIR: dir })).code).toBe(0);
  }, 90_000);

  test('serve --role worker runs the job handlers and no HTTP; --role api the reverse; SIGTERM stops either cleanly', async () => {
    for (const [role, expected, absent] of [
      ['worker', 'workers: core.maintenance', 'listening'],
      ['api', 'listening', 'workers:'],
    ]) {
      const dir = freshDir();
      const proc = Bun.spawn([process.execPath, CLI, 'serve', '--role', role, '--port', '0'], {
        env: { ...process.env, DATABASE_URL: undefined, SVC_DATA_DIR: dir },
        stderr: 'pipe',
        stdout: 'pipe',
      });
      const reader = proc.stderr.getReader();
      let log = '';
      const until = Date.now() + 30_000;
      while (!log.includes(expected) && Date.now() < until) {
        const { value, done } = await reader.read();
        if (done) break;
        log += new TextDecoder().decode(value);
      }
      expect(log).toContain(expected);
      expect(log).not.toContain(absent);
      proc.kill('SIGTERM');
      expect(await proc.exited).toBe(0);
      expect(await Bun.file(join(dir, 'svc.lock')).exists()).toBe(false);
    }
  }, 90_000);

  test('two processes migrating at once both succeed on PostgreSQL, or one is refused cleanly on the embedded database', async () => {
    if (process.env.DATABASE_URL) {
      const { url, drop } = await createThrowawayDatabase();
      try {
        const [a, b] = await Promise.all([svc(['migrate'], { DATABASE_URL: url }), svc(['migrate'], { DATABASE_URL: url })]);
        expect([a.code, b.code]).toEqual([0, 0]);
      } finally {
        await drop();
      }
    } else {
      const dir = freshDir();
      const [a, b] = await Promise.all([svc(['migrate'], { SVC_DATA_DIR: dir }), svc(['migrate'], { SVC_DATA_DIR: dir })]);
      expect([a.code, b.code].sort()).toEqual([0, 1]);
      expect(a.stderr + b.stderr).toContain('in use by another svc process');
      expect((await svc(['migrate'], { SVC_DATA_DIR: dir })).code).toBe(0);
    }
  }, 60_000);
});

describe('a fresh clone (issue 44)', () => {
  test('`npx svc serve` without console/dist builds the console and serves /console', async () => {
    // The working tree as a clone has it (tracked and new files, nothing ignored: no console/dist),
    // with the installed node_modules beside it, as after `npm install`.
    const root = join(import.meta.dir, '..');
    const clone = mkdtempSync(join(tmpdir(), 'svc-clone-'));
    const listed = Bun.spawnSync(['git', 'ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root });
    for (const file of new TextDecoder().decode(listed.stdout).split('\0').filter(Boolean)) {
      if (!existsSync(join(root, file))) continue; // deleted in the work tree, not yet committed
      mkdirSync(dirname(join(clone, file)), { recursive: true });
      copyFileSync(join(root, file), join(clone, file));
    }
    symlinkSync(join(root, 'node_modules'), join(clone, 'node_modules'));
    expect(existsSync(join(clone, 'console', 'dist'))).toBe(false);

    // Port 0: the system picks a free one, and the start-up line says which (a fixed guess could
    // be taken by another process on a shared machine).
    const server = Bun.spawn(['npx', 'svc', 'serve'], {
      cwd: clone,
      env: { ...process.env, DATABASE_URL: undefined, SVC_DATA_DIR: join(clone, 'data'), SVC_HOST: '127.0.0.1', PORT: '0' },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    let log = '';
    for (const stream of [server.stdout, server.stderr])
      void (async () => {
        for await (const chunk of stream) log += new TextDecoder().decode(chunk);
      })();
    try {
      let port = '';
      for (const until = Date.now() + 90_000; !port; await Bun.sleep(100)) {
        port = /listening on http:\/\/[^\s:]+:(\d+)/.exec(log)?.[1] ?? '';
        if (!port && (server.exitCode !== null || Date.now() > until)) throw new Error(`svc serve did not start:\n${log}`);
      }
      expect(log).toContain('building the console');
      const page = await fetch(`http://127.0.0.1:${port}/console`);
      expect(page.status).toBe(200);
      const html = await page.text();
      expect(html).toContain('svc console');
      const script = /<script type="module" src="([^"]+)"/.exec(html)![1];
      const js = await fetch(new URL(script, `http://127.0.0.1:${port}`));
      expect(js.status).toBe(200);
      expect((await js.text()).length).toBeGreaterThan(1000);
      expect(existsSync(join(clone, 'console', 'dist', 'bundle.txt'))).toBe(true);
    } finally {
      // npx does not pass a SIGTERM on to the server it started: each process of the tree gets it,
      // and the server must then stop by itself within seconds (a clean stop).
      const tree = [...descendants(server.pid), server.pid];
      for (const pid of tree) signal(pid, 'SIGTERM');
      for (const until = Date.now() + 15_000; tree.some(alive) && Date.now() < until;) await Bun.sleep(100);
      const left = tree.filter(alive);
      for (const pid of left) signal(pid, 'SIGKILL');
      await server.exited;
      expect(left).toEqual([]);
    }
  }, 120_000);
});

/** The processes started, directly or not, by `pid` (children before their parents). */
function descendants(pid: number): number[] {
  const out = Bun.spawnSync(['pgrep', '-P', String(pid)])
    .stdout.toString()
    .trim();
  return (out ? out.split('\n').map(Number) : []).flatMap((child) => [...descendants(child), child]);
}
/** Running (an exited process waiting to be reaped is not). */
const alive = (pid: number) => {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
};
const signal = (pid: number, name: NodeJS.Signals) => {
  try {
    process.kill(pid, name);
  } catch {}
};
