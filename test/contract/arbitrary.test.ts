/**
 * The schema-derived generators of the fuzz sweep (test/kit/arbitrary.ts), checked against the
 * schemas themselves: over every registered action's input, valid values are accepted and invalid
 * ones refused. A generator that drifted would make the fuzz sweep test much less than it says.
 */
import { describe, expect, test } from 'bun:test';
import { Type } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import fc from 'fast-check';
import { invalid, valid } from '../kit/arbitrary';
import { allPlugins } from '../kit/setup';
import notes from '../fixtures/notes';

const RUNS = 30;
// Text the database cannot store is refused by invoke beside the schema (core/plugins/invoke.ts).
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const unstorable = (v: unknown): boolean =>
  typeof v === 'string'
    ? UNSTORABLE.test(v)
    : !!v && typeof v === 'object' && Object.entries(v).some(([k, x]) => UNSTORABLE.test(k) || unstorable(x));
const refused = (check: { Check(v: unknown): boolean }, v: unknown) => !check.Check(v) || unstorable(v);

describe('schema-derived arbitraries', () => {
  test('valid values pass the input schema of every action, invalid ones mostly fail it', () => {
    const problems: string[] = [];
    for (const plugin of [...allPlugins, notes])
      for (const [name, a] of Object.entries(plugin.actions)) {
        const check = TypeCompiler.Compile(a.input);
        const good = fc.sample(valid(a.input, { ids: [crypto.randomUUID()] }), { numRuns: RUNS, seed: 1 });
        const bad = fc.sample(invalid(a.input), { numRuns: RUNS, seed: 1 });
        // The generator approximates some schemas (patterned record keys, lengths counted in UTF-16
        // units, timestamps inside ranges): a refused "valid" value only makes a fuzz request an
        // invalid one, so those are noted; a generator that makes almost nothing valid fails.
        const refusedGood = good.filter((v) => !check.Check(v));
        if (refusedGood.length > RUNS * 0.9)
          problems.push(
            `${plugin.name}.${name}: ${refusedGood.length} of ${RUNS} valid values are refused, e.g. ${JSON.stringify(refusedGood[0]).slice(0, 200)}`,
          );
        else if (refusedGood.length)
          console.log(`arbitrary: ${plugin.name}.${name}: ${refusedGood.length} of ${RUNS} generated values refused by the schema`);
        // Invalid members of a union may satisfy another member, so a few invalid values pass.
        const acceptedBad = bad.filter((v) => !refused(check, v)).length;
        if (acceptedBad > RUNS * 0.2) problems.push(`${plugin.name}.${name}: ${acceptedBad} of ${RUNS} invalid values are accepted`);
      }
    expect(problems).toEqual([]);
  }, 60_000);

  test('bounds, patterns and required fields are honoured', () => {
    const schema = Type.Object(
      {
        code: Type.String({ pattern: '^[A-Z]{3}$' }),
        n: Type.Integer({ minimum: 1, maximum: 5 }),
        tags: Type.Optional(Type.Array(Type.String({ maxLength: 3 }), { maxItems: 2, uniqueItems: true })),
        kind: Type.Optional(Type.Union([Type.Literal('a'), Type.Literal('b')])),
        secret: Type.Optional(Type.String({ minLength: 16, maxLength: 20, pattern: '^[!-~]+$' })),
      },
      { additionalProperties: false },
    );
    const check = TypeCompiler.Compile(schema);
    for (const v of fc.sample(valid(schema), { numRuns: 200, seed: 3 })) expect(check.Check(v)).toBe(true);
    const bad = fc.sample(invalid(schema), { numRuns: 200, seed: 3 });
    expect(bad.filter((v) => !refused(check, v)).length).toBe(0);
  });
});
