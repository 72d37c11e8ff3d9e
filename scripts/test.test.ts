import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The runner (scripts/test.ts) on a folder of throwaway test files, in one shard: a failure is
 * named under its own file even when a passing file runs after it (bun's end-of-run list has no
 * file names, so the old runner filed it under the last one), and a test that fails once and then
 * passes alone still fails the run, with both results printed.
 */
const dir = mkdtempSync(join(tmpdir(), 'svc-runner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const head = "import { describe, expect, test } from 'bun:test';\n";
// Sizes order the files (largest first): the failing file runs first, the passing one last.
writeFileSync(
  join(dir, 'broken.test.ts'),
  head + `describe('totals', () => { test('adds up', () => expect(1 + 1).toBe(3)); });\n// ${'x'.repeat(400)}\n`,
);
writeFileSync(
  join(dir, 'wobbly.test.ts'),
  head +
    `import { existsSync, writeFileSync } from 'node:fs';
test('only the second time', () => { const seen = existsSync(${JSON.stringify(join(dir, 'seen'))}); writeFileSync(${JSON.stringify(join(dir, 'seen'))}, ''); expect(seen).toBe(true); });
// ${'x'.repeat(100)}\n`,
);
writeFileSync(join(dir, 'fine.test.ts'), head + "test('passes', () => expect(true).toBe(true));\n");

test('a failing test is named under its own file and fails the run, also when it passes alone', async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'test.ts')], {
    env: { ...process.env, SVC_TEST_ROOT: dir, SVC_TEST_SHARDS: '1' },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const out = await new Response(proc.stdout).text();
  expect(await proc.exited).toBe(1);
  const summary = out.slice(out.indexOf('===== FAILED, by file'));
  expect(summary).toContain('FAILED broken.test.ts (failed again alone)\n  ✗ totals > adds up');
  expect(summary).toContain('FAILED wobbly.test.ts (passed when run again alone: still a failure)\n  ✗ only the second time');
  expect(summary).not.toContain('fine.test.ts');
  // Both results of the wobbly file are in the log, and every run's time.
  expect(out).toContain('===== wobbly.test.ts, once more alone: 1 files, exit 0');
  expect(out).toMatch(/===== shard 1\/1: 3 files, exit 1, [\d.]+ s/);
  expect(out).toMatch(/^  shard 1\/1: [\d.]+ s, exit 1$/m);
  expect(out).toMatch(/^1 passed, 2 failed$/m);
}, 60_000);
