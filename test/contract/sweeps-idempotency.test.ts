/**
 * Convention sweep: Idempotency-Key (SPEC 7), over every registered write route (POST and PATCH
 * with a JSON answer, `external` ones included; raw answers are out of scope by declaration). Each
 * write runs its example in a fresh store with a key: it succeeds (its output checked against its
 * schema), a repeat with the same key and body replays it (same status and body, Idempotent-Replayed:
 * true), and the same key with another body is 400 idempotency_key_reused, checked before anything
 * else about that body.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import notes from '../fixtures/notes';
import { freshWorld } from '../kit/examples';
import { setup, type Harness } from '../kit/setup';
import { credentialFor, envelopeProblems, exampleOr, fakeModel, report, requestFor, send, sweepRoutes } from '../kit/sweep';

const model = fakeModel();
let h: Harness;
beforeAll(async () => {
  h = await setup({ extra: [notes], env: model.env });
});
afterAll(() => model.stop());

describe('sweep: idempotency', () => {
  test('every write replays under the same Idempotency-Key and refuses the key with another body', async () => {
    const problems: string[] = [];
    const uncovered = new Set<string>();
    const covered: string[] = [];
    const skipped: string[] = [];
    for (const route of sweepRoutes(h.registry)) {
      if (route.method !== 'POST' && route.method !== 'PATCH') continue;
      if (route.action.kind === 'read' || route.response === 'raw' || route.body !== 'json') {
        skipped.push(`${route.name} (${route.response === 'raw' ? 'raw answer' : route.action.kind === 'read' ? 'read' : `${route.body} body`})`);
        continue;
      }
      const w = await freshWorld(h);
      const input = await exampleOr(w, route, problems, uncovered);
      if (!input) continue;
      covered.push(route.name);
      const { path, body } = requestFor(route, w.store.id, input);
      const headers = { ...credentialFor(route, w), 'Idempotency-Key': `sweep-${route.name}` };
      const first = await send(h, route.method, path, body, headers);
      if (first.status >= 300) {
        problems.push(`${route.name}: its example fails: ${first.status} ${first.text.slice(0, 300)}`);
        continue;
      }
      const again = await send(h, route.method, path, body, headers);
      if (again.status !== first.status || again.text !== first.text || again.headers.get('idempotent-replayed') !== 'true')
        problems.push(
          `${route.name}: the repeat is not a replay: ${again.status} (first ${first.status}), Idempotent-Replayed ${again.headers.get('idempotent-replayed')}, ` +
            `${again.text === first.text ? 'same body' : `body ${again.text.slice(0, 200)}`}`,
        );
      if (first.headers.get('idempotent-replayed')) problems.push(`${route.name}: the first answer says it was replayed`);
      const other = await send(h, route.method, path, JSON.stringify({ ...JSON.parse(body!), idempotency_sweep: true }), headers);
      const issues = envelopeProblems(other, { status: 400, code: 'idempotency_key_reused' });
      if (issues.length) problems.push(`${route.name}, same key, another body: ${issues.join('; ')}`);
    }
    report('idempotency', { 'write routes': covered.length, 'out of scope': skipped.length }, [...uncovered]);
    for (const s of skipped) console.log(`  out of scope: ${s}`);
    expect(covered).toEqual(expect.arrayContaining(['notes.create_note', 'notes.update_note']));
    expect(problems).toEqual([]);
  }, 300_000);
});
