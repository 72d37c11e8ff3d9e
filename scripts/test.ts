#!/usr/bin/env bun
/**
 * `npm test`: every test file, split across a few `bun test` processes that run at once (each has
 * its own test database, so files never share state across processes). Files are dealt out by
 * size, largest first, to balance the shards. Each shard's output is printed whole when it ends;
 * the last line sums them up as "N passed, N failed". Arguments narrow the run to matching files.
 *
 * SVC_TEST_SHARDS sets the number of processes (default: 2, this machine's core count). Files that
 * measure wall time against limits (the sandbox's watchdog, processes started and stopped) run
 * afterwards on their own, so a busy neighbour shard cannot push them past a limit.
 */
import { Glob } from 'bun';
import { statSync } from 'node:fs';
import { cpus } from 'node:os';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const files = [...new Glob('**/*.test.ts').scanSync({ cwd: root })]
  .filter((f) => !f.startsWith('node_modules/') && !f.startsWith('dist/'))
  .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
  .sort((a, b) => statSync(root + b).size - statSync(root + a).size);

/**
 * Timing-sensitive files: they measure wall time against limits (the sandbox's watchdog) or start
 * whole svc processes and wait for them; they run alone, after the parallel shards.
 */
const SOLO = [
  /^core\/sandbox\//,
  /^test\/e2e\//,
  /^plugins\/custom_tools\/tool-runs\.test\.ts$/,
  ...[
    'test/cli',
    'test/operator-text',
    'test/conventions/api-keys',
    'test/mcp/bridges',
    'test/mcp/oauth-login',
    'test/mcp/outside-clients',
    'plugins/users/cli',
    'workers/webhooks-queue',
    'console/console', // measures the console's first load
  ].map((f) => new RegExp(`^${f}\\.test\\.ts$`)),
];
const solo = files.filter((f) => SOLO.some((re) => re.test(f)));
const parallel = files.filter((f) => !solo.includes(f));

const count = Math.max(1, Math.min(Number(process.env.SVC_TEST_SHARDS ?? Math.min(2, cpus().length)), parallel.length));
const shards: { files: string[]; size: number }[] = Array.from({ length: count }, () => ({ files: [], size: 0 }));
for (const f of parallel) {
  const lightest = shards.reduce((a, b) => (b.size < a.size ? b : a));
  lightest.files.push(f);
  lightest.size += statSync(root + f).size;
}

/**
 * The failures in a shard's output: each "(fail)" line with the lines just before it (bun prints a
 * test's error above its name), and the file it is in (bun heads each file's tests with its path).
 */
function failuresIn(text: string): { file: string; text: string }[] {
  const lines = text.split('\n');
  let file = '';
  return lines.flatMap((line, i) => {
    if (/^\S+\.test\.ts:$/.test(line)) file = line.slice(0, -1);
    return line.startsWith('(fail)') ? [{ file, text: lines.slice(Math.max(0, i - 25), i + 1).join('\n') }] : [];
  });
}

const started = performance.now();
const run = async (shard: { files: string[] }, label: string) => {
  const proc = Bun.spawn([process.execPath, 'test', '--timeout', '60000', ...shard.files.map((f) => './' + f)], {
    cwd: root,
    stdout: 'pipe',
    stderr: 'pipe',
    env: process.env,
  });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  process.stdout.write(`\n===== ${label}: ${shard.files.length} files, exit ${code}\n${out}${err}`);
  const num = (re: RegExp) => Number(re.exec(err + out)?.[1] ?? 0);
  return { code, failures: failuresIn(out + err), pass: num(/^\s*(\d+) pass$/m), fail: num(/^\s*(\d+) fail$/m), skip: num(/^\s*(\d+) skip$/m) };
};
const results = await Promise.all(shards.filter((s) => s.files.length).map((s, i) => run(s, `shard ${i + 1}/${count}`)));
if (solo.length) results.push(await run({ files: solo }, 'timing-sensitive files, alone'));

const failures = results.flatMap((r) => r.failures);
if (failures.length)
  console.log(`\n===== failed tests, repeated here with what they printed just before\n${failures.map((f) => f.text).join('\n\n')}`);

/**
 * A file that failed beside a busy neighbour runs once more, alone. Passing alone, it does not
 * fail the run but is named FLAKY at the end, to be fixed (its timing depends on the machine's
 * load); failing again, it fails the run. A shard that crashed without naming a test still fails.
 */
const failedFiles = [...new Set(failures.map((f) => f.file))];
const unexplained = results.some((r) => r.code !== 0 && !r.failures.length) || failedFiles.includes('');
const flaky: string[] = [];
for (const file of unexplained ? [] : failedFiles) {
  const again = await run({ files: [file] }, `${file}, once more alone`);
  if (again.code === 0) flaky.push(file);
  else results.push(again);
}
const sum = (k: 'pass' | 'fail' | 'skip') => results.reduce((n, r) => n + r[k], 0);
const failed = unexplained || flaky.length < failedFiles.length;
console.log(`\n${files.length} files in ${count} processes, ${((performance.now() - started) / 1000).toFixed(0)} s`);
if (flaky.length) console.log(`FLAKY (failed beside other files, passed alone): ${flaky.join(', ')}`);
const failCount = unexplained ? sum('fail') : failures.filter((f) => !flaky.includes(f.file)).length;
console.log(`${sum('pass')} passed, ${failCount} failed${sum('skip') ? `, ${sum('skip')} skipped` : ''}`);
process.exit(failed ? 1 : 0);
