#!/usr/bin/env bun
/**
 * `npm test`: every test file, split across a few `bun test` processes that run at once (each has
 * its own test database, so files never share state across processes). Files are dealt out by
 * size, largest first, to balance the shards. Each shard's output is printed whole when it ends,
 * with its time; the last line sums them up as "N passed, N failed". Arguments narrow the run to
 * matching files.
 *
 * Failures are read per file from bun's JUnit report (`--reporter=junit`), never from its console
 * text: bun's end-of-run list of failures carries no file names. A failing file runs once more,
 * alone, so the log shows both results, but a failure fails the run even when the second run
 * passes: a test that fails beside other files is a bug to fix, not noise.
 *
 * SVC_TEST_SHARDS sets the number of processes (default: 2, this machine's core count). Files that
 * start whole svc processes or run the sandbox's workers run afterwards on their own, so a busy
 * neighbour shard does not slow them. SVC_TEST_ROOT runs the files of another folder (the
 * runner's own test, scripts/test.test.ts).
 */
import { Glob } from 'bun';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';

const root = process.env.SVC_TEST_ROOT || new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const files = [...new Glob('**/*.test.ts').scanSync({ cwd: root })]
  .filter((f) => !f.startsWith('node_modules/') && !f.startsWith('dist/'))
  .filter((f) => !filters.length || filters.some((x) => f.includes(x)))
  .sort((a, b) => statSync(join(root, b)).size - statSync(join(root, a)).size);

/** Files that start svc processes, browsers or sandbox workers and wait for them: they run alone, after the shards. */
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
  lightest.size += statSync(join(root, f)).size;
}

interface Failure {
  file: string;
  test: string;
  message: string;
}

const unescape = (s: string) =>
  s
    .replace(/&#10;/g, '\n')
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
const attr = (tag: string, name: string) => unescape(new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1] ?? '');

/**
 * The failed tests of a JUnit report, each with its own file (bun writes `file` on every testcase).
 * A describe block nests a testsuite; the test's name is given with its blocks, as bun prints it.
 */
function failuresInJunit(xml: string): Failure[] {
  const out: Failure[] = [];
  for (const m of xml.matchAll(/<testcase\b([^>]*?)(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const failure = /<(failure|error)\b[^>]*>([\s\S]*?)<\/\1>|<(failure|error)\b([^>]*)\/>/.exec(m[3] ?? '');
    if (!failure) continue;
    const blocks = attr(m[1], 'classname').split(' > ').filter(Boolean).reverse();
    out.push({
      file: attr(m[1], 'file'),
      test: [...blocks, attr(m[1], 'name')].join(' > '),
      message: unescape(failure[2] ?? attr(failure[4] ?? '', 'message')).trim(),
    });
  }
  return out;
}

/**
 * Errors outside any test (a file that fails to load, a throw between tests): bun reports them
 * only in its console text, as "# Unhandled error between tests" inside the failing file's
 * section. The end-of-run summary (from the "N tests failed:" line on) is not read: it has no
 * file headers, so the last header above it names the wrong file.
 */
function errorsBetweenTests(text: string): Failure[] {
  const out: Failure[] = [];
  let file = '';
  const lines = text.split('\n');
  for (const [i, line] of lines.entries()) {
    if (/^\d+ tests? failed:$/.test(line.trim())) break;
    if (/^\S+\.test\.ts:$/.test(line)) file = line.slice(0, -1);
    if (!line.startsWith('# Unhandled error between tests')) continue;
    const body = lines.slice(i + 2, i + 40);
    const end = body.findIndex((l) => /^-{10,}$/.test(l));
    out.push({ file, test: '(error outside a test)', message: body.slice(0, end < 0 ? 10 : end).join('\n') });
  }
  return out;
}

const reports = mkdtempSync(join(tmpdir(), 'svc-test-'));
const started = performance.now();
let runs = 0;
const run = async (shard: { files: string[] }, label: string) => {
  const report = join(reports, `run-${++runs}.xml`);
  const began = performance.now();
  const proc = Bun.spawn(
    [process.execPath, 'test', '--timeout', '60000', '--reporter=junit', `--reporter-outfile=${report}`, ...shard.files.map((f) => './' + f)],
    { cwd: root, stdout: 'pipe', stderr: 'pipe', env: process.env },
  );
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  const code = await proc.exited;
  const seconds = ((performance.now() - began) / 1000).toFixed(1);
  process.stdout.write(`\n===== ${label}: ${shard.files.length} files, exit ${code}, ${seconds} s\n${out}${err}`);
  let xml = '';
  try {
    xml = readFileSync(report, 'utf8');
  } catch {} // a crashed process writes no report: its exit code still fails the run
  const failures = [...failuresInJunit(xml), ...errorsBetweenTests(out + err)];
  const num = (re: RegExp) => Number(re.exec(err + out)?.[1] ?? 0);
  return { label, code, seconds, failures, pass: num(/^\s*(\d+) pass$/m), fail: num(/^\s*(\d+) fail$/m), skip: num(/^\s*(\d+) skip$/m) };
};
const results = await Promise.all(shards.filter((s) => s.files.length).map((s, i) => run(s, `shard ${i + 1}/${count}`)));
if (solo.length) results.push(await run({ files: solo }, 'files that run alone'));

const failures = results.flatMap((r) => r.failures);
const failedFiles = [...new Set(failures.map((f) => f.file))];
// A shard that exited non-zero without a failure it can name (a crash, a timeout of the process).
const unexplained = results.filter((r) => r.code !== 0 && !r.failures.length);

/**
 * Each failing file runs once more, alone, so the log tells a failure that depends on its
 * neighbours (or the machine's load) from one that does not. Either way the run fails.
 */
const alone = new Map<string, boolean>();
for (const file of failedFiles.filter(Boolean)) alone.set(file, (await run({ files: [file] }, `${file}, once more alone`)).code === 0);

const sum = (k: 'pass' | 'fail' | 'skip') => results.reduce((n, r) => n + r[k], 0);
console.log(`\n${files.length} files in ${count} processes, ${((performance.now() - started) / 1000).toFixed(0)} s`);
for (const r of results) console.log(`  ${r.label}: ${r.seconds} s${r.code ? `, exit ${r.code}` : ''}`);
if (failures.length || unexplained.length) {
  console.log('\n===== FAILED, by file');
  for (const file of failedFiles) {
    const again = alone.get(file);
    const note = again === undefined ? '' : again ? ' (passed when run again alone: still a failure)' : ' (failed again alone)';
    console.log(`FAILED ${file || '(no file named)'}${note}`);
    for (const f of failures.filter((x) => x.file === file)) console.log(`  ✗ ${f.test}\n${f.message.replace(/^/gm, '      ')}`);
  }
  for (const r of unexplained) console.log(`FAILED ${r.label}: exit ${r.code} without naming a test (see its output above)`);
}
rmSync(reports, { recursive: true, force: true });
console.log(`${sum('pass')} passed, ${Math.max(sum('fail'), failures.length)} failed${sum('skip') ? `, ${sum('skip')} skipped` : ''}`);
process.exit(failures.length || unexplained.length ? 1 : 0);
