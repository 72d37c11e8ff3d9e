import { expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withFileLock } from './file-lock';

const dir = () => mkdtempSync(join(tmpdir(), 'svc-lock-'));

/** A pid that no process has now: one that ran and exited. */
async function deadPid() {
  const p = Bun.spawn([process.execPath, '-e', '0']);
  await p.exited;
  return p.pid;
}

test('processes take turns: a read-modify-write under the lock loses no update', async () => {
  const d = dir();
  const counter = join(d, 'counter');
  writeFileSync(counter, '0');
  // Each process adds 1 forty times, reading and writing with a pause between, as a refresh does.
  const script = `
    import { readFileSync, writeFileSync } from 'node:fs';
    import { withFileLock } from ${JSON.stringify(join(import.meta.dir, 'file-lock.ts'))};
    for (let i = 0; i < 40; i++)
      await withFileLock(${JSON.stringify(join(d, 'counter.lock'))}, async () => {
        const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8'));
        await Bun.sleep(1);
        writeFileSync(${JSON.stringify(counter)}, String(n + 1));
      }, { pollMs: 2 });
  `;
  const file = join(d, 'worker.ts');
  writeFileSync(file, script);
  const procs = [0, 1, 2].map(() => Bun.spawn([process.execPath, file], { stderr: 'inherit' }));
  expect(await Promise.all(procs.map((p) => p.exited))).toEqual([0, 0, 0]);
  expect(readFileSync(counter, 'utf8')).toBe('120');
  expect(existsSync(join(d, 'counter.lock'))).toBe(false);
}, 30_000);

test('a lock left by a process that died is broken at once; one held by a live process is waited for', async () => {
  const d = dir();
  const lock = join(d, 'x.lock');
  writeFileSync(lock, JSON.stringify({ pid: await deadPid(), at: Date.now(), token: 'gone' }));
  const started = performance.now();
  expect(await withFileLock(lock, async () => 'ran')).toBe('ran');
  expect(performance.now() - started).toBeLessThan(1000);
  expect(existsSync(lock)).toBe(false);

  // This process is alive: its lock holds until released, or until the wait runs out.
  writeFileSync(lock, JSON.stringify({ pid: process.pid, at: Date.now(), token: 'mine' }));
  await expect(withFileLock(lock, async () => 'ran', { waitMs: 200 })).rejects.toThrow(`held by process ${process.pid}`);
  expect(JSON.parse(readFileSync(lock, 'utf8')).token).toBe('mine');
});

test('a lock older than staleMs is broken, whoever holds it; many breaking it at once still run one at a time', async () => {
  const d = dir();
  const lock = join(d, 'x.lock');
  writeFileSync(lock, JSON.stringify({ pid: process.pid, at: Date.now() - 60_000, token: 'hung' }));
  let inside = 0;
  let most = 0;
  const runs = Array.from({ length: 8 }, () =>
    withFileLock(
      lock,
      async () => {
        most = Math.max(most, ++inside);
        await Bun.sleep(5);
        inside--;
      },
      { staleMs: 30_000, pollMs: 1 },
    ),
  );
  await Promise.all(runs);
  expect(most).toBe(1);
  expect(existsSync(lock)).toBe(false);
});
