/**
 * The live /openapi.json through the two linters generated clients' authors use: Redocly's
 * recommended ruleset and Spectral's spectral:oas. Errors fail; warnings are printed.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setup } from './kit/setup';

const bin = (name: string) => join(import.meta.dir, '..', 'node_modules', '.bin', name);
let dir: string | undefined;

/** The document as the server serves it, written to a file the linters read (made once). */
let written: Promise<string> | undefined;
const documentFile = () =>
  (written ??= (async () => {
    const h = await setup();
    const res = await h.app.handle(new Request('http://svc.test/openapi.json'));
    expect(res.status).toBe(200);
    dir = await mkdtemp(join(tmpdir(), 'svc-openapi-lint-'));
    const file = join(dir, 'openapi.json');
    await Bun.write(file, await res.text());
    return file;
  })());
afterAll(() => dir && rm(dir, { recursive: true, force: true }));

async function run(args: string[]) {
  const proc = Bun.spawn(args, { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NO_COLOR: '1', REDOCLY_TELEMETRY: 'off' } });
  const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  return { code: await proc.exited, out, err };
}

// Each linter takes seconds on a large document and a busy machine: generous limits, not timings.
describe('the API description passes the linters with no errors', () => {
  test('Redocly (recommended)', async () => {
    const file = await documentFile();
    const r = await run([bin('redocly'), 'lint', file, '--extends=recommended', '--format=json', '--max-problems=10000']);
    const problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] = JSON.parse(
      r.out.slice(r.out.indexOf('{')),
    ).problems;
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`);
    for (const p of problems.filter((p) => p.severity !== 'error')) console.log(`redocly ${p.severity}: ${p.ruleId}: ${p.message}`);
    expect(errors).toEqual([]);
  }, 120_000);

  test('Spectral (spectral:oas)', async () => {
    const file = await documentFile();
    const ruleset = join(dir!, '.spectral.yaml');
    await Bun.write(ruleset, 'extends: ["spectral:oas"]\n');
    const r = await run([bin('spectral'), 'lint', file, '--ruleset', ruleset, '--format', 'json', '--quiet']);
    const results: { code: string; severity: number; message: string; path: string[] }[] = JSON.parse(r.out || '[]');
    // Spectral's severities: 0 error, 1 warning, 2 information, 3 hint.
    const errors = results.filter((p) => p.severity === 0).map((p) => `${p.code} at ${p.path.join('.')}: ${p.message}`);
    for (const p of results.filter((p) => p.severity !== 0)) console.log(`spectral (severity ${p.severity}): ${p.code}: ${p.message}`);
    expect(errors).toEqual([]);
    expect(r.err).not.toContain('Error running Spectral');
  }, 120_000);
});
